// A fake core for the UI's tests: the operations a test gives, every other one throwing
// "not used" (a test that reaches one it did not expect fails loudly).
import type { Api } from '../src/api/api';

const never = async (): Promise<never> => {
  throw new Error('not used');
};

export function fakeApi(operations: Partial<Api>): Api {
  return {
    defaultScene: never,
    open: never,
    save: never,
    saveRecording: never,
    stat: never,
    render: never,
    rules: never,
    models: never,
    about: never,
    run: never,
    conversation: never,
    conversationOfScenes: never,
    liveCalls: never,
    check: never,
    approve: never,
    liveOpen: never,
    liveEdit: never,
    liveClose: never,
    ...operations,
  };
}

/** What `run` answers for a scene with no loop: no rounds, nothing read, no what-ifs. */
export function emptyRun(): Awaited<ReturnType<Api['run']>> {
  return {
    report: {
      initial_cwd: '',
      system: { parts: [], skipped: [], cache_hint: 'static' },
      messages: [],
      iterations: [],
      ignored_iterations: 0,
      dropped_system_messages: 0,
    },
    zero_reads: [],
    what_if: [],
  };
}
