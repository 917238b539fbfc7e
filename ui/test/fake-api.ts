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
    stat: never,
    render: never,
    rules: never,
    models: never,
    about: never,
    run: never,
    conversation: never,
    check: never,
    approve: never,
    liveOpen: never,
    liveEdit: never,
    liveClose: never,
    ...operations,
  };
}
