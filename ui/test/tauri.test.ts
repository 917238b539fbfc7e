// The Tauri transport (src/api/tauri.ts, dialogs.ts) over a mocked IPC: the commands and argument
// shapes the Rust side expects (src-tauri/src/commands.rs), and every failure as an ApiError.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import { createTauriApi, toApiError } from '../src/api/tauri';
import * as shell from '../src/api/dialogs';

type Call = { cmd: string; args: unknown };
let calls: Call[] = [];
let answer: (cmd: string, args: unknown) => unknown;

beforeEach(() => {
  calls = [];
  answer = () => null;
  mockIPC((cmd, args) => {
    calls.push({ cmd, args });
    return answer(cmd, args);
  });
});
afterEach(() => clearMocks());

describe('TauriApi', () => {
  it('wraps each request in `req` with the snake_case fields of docs/api.md', async () => {
    answer = (cmd) => (cmd === 'render' ? { report: { llm: 'chat', segments: [] } } : null);
    const api = createTauriApi();
    const report = await api.render('{…}', { llm: 'chat', provider: 'openai', baseDir: '/x', tokens: true });
    expect(report).toEqual({ llm: 'chat', segments: [] });
    expect(calls).toEqual([
      {
        cmd: 'render',
        args: { req: { text: '{…}', llm: 'chat', base_dir: '/x', provider: 'openai', tokenizer: null, tokens: true, models: [] } },
      },
    ]);
  });

  it('maps every operation to its command', async () => {
    answer = (cmd) =>
      (
        ({
          default_scene: { path: null, text: 'T' },
          open: { path: '/a', text: 'A' },
          save: { modified_ms: 5, size: 1 },
          stat: { modified_ms: null, size: 2 },
          rules: { segments: [], rules: [] },
          models: { models: [] },
          run: { report: { iterations: [] } },
          conversation: { folder: '/conv', calls: [] },
          check: { passed: 0, failed: 0, scenes: [] },
          approve: { golden_path: '/a.golden.json' },
          live_open: { doc: 1, revision: 1, load_error: null, patch: [], core_ms: 2 },
          live_edit: { doc: 1, revision: 2, load_error: null, patch: [], core_ms: 1 },
          live_close: null,
        }) as Record<string, unknown>
      )[cmd];
    const api = createTauriApi();
    const options = { base_dir: null, provider: null, tokenizer: null, tokens: true, models: [] };
    expect(await api.defaultScene()).toEqual({ path: null, text: 'T' });
    expect(await api.open('/a')).toEqual({ path: '/a', text: 'A' });
    expect(await api.save('/a', 'A')).toEqual({ modified_ms: 5, size: 1 });
    // f64 fields are `number | null` in the bindings: the answer as it came.
    expect(await api.stat('/a')).toEqual({ modified_ms: null, size: 2 });
    expect(await api.rules()).toEqual({ segments: [], rules: [] });
    expect(await api.models()).toEqual({ models: [] });
    expect(await api.run('A', null, ['openai/gpt-5'])).toEqual({ report: { iterations: [] } });
    expect(await api.conversation('/conv', ['openai/gpt-5'])).toEqual({ folder: '/conv', calls: [] });
    expect(await api.check('/dir')).toEqual({ passed: 0, failed: 0, scenes: [] });
    expect(await api.approve('/a')).toEqual({ golden_path: '/a.golden.json' });
    expect(await api.liveOpen('A', options)).toMatchObject({ doc: 1, revision: 1 });
    expect(await api.liveEdit(1, 1, { start: 0, delete: 1, insert: 'B' }, null, true)).toMatchObject({ doc: 1, revision: 2 });
    expect(await api.liveClose(1)).toBeUndefined();
    expect(calls).toEqual([
      { cmd: 'default_scene', args: {} },
      { cmd: 'open', args: { req: { path: '/a' } } },
      { cmd: 'save', args: { req: { path: '/a', text: 'A', recording: false } } },
      { cmd: 'stat', args: { req: { path: '/a' } } },
      { cmd: 'rules', args: {} },
      { cmd: 'models', args: {} },
      { cmd: 'run', args: { req: { text: 'A', base_dir: null, models: ['openai/gpt-5'] } } },
      { cmd: 'conversation', args: { req: { folder: '/conv', models: ['openai/gpt-5'] } } },
      { cmd: 'check', args: { req: { folder: '/dir' } } },
      { cmd: 'approve', args: { req: { scene_path: '/a' } } },
      { cmd: 'live_open', args: { req: { text: 'A', options } } },
      {
        cmd: 'live_edit',
        args: { req: { doc: 1, revision: 1, edit: { start: 0, delete: 1, insert: 'B' }, options: null, defer_costs: true } },
      },
      { cmd: 'live_close', args: { req: { doc: 1 } } },
    ]);
  });

  it('rejects with the command error, position fields included', async () => {
    answer = () => {
      throw { code: 'load_error', message: 'missing field "name"', file: '/x.json', line: 3, column: 5, field: 'tools[0]' };
    };
    await expect(createTauriApi().open('/x.json')).rejects.toEqual({
      code: 'load_error',
      message: 'missing field "name"',
      file: '/x.json',
      line: 3,
      column: 5,
      field: 'tools[0]',
    });
  });

  it('turns a bare IPC rejection (ACL, bad argument) into {code: "ipc"}', async () => {
    answer = () => {
      throw 'render not allowed. Permissions associated with this command: allow-render';
    };
    await expect(createTauriApi().render('x', { llm: 'desk' })).rejects.toEqual({
      code: 'ipc',
      message: 'render not allowed. Permissions associated with this command: allow-render',
    });
    expect(toApiError({ code: 'template_error', message: 'm', kind: 'KeyError', range: [1, 4] })).toEqual({
      code: 'template_error',
      message: 'm',
      kind: 'KeyError',
      range: [1, 4],
    });
  });
});

describe('shell (dialogs.ts)', () => {
  it('shows the dialogs through the app commands and reports the unsaved flag', async () => {
    answer = (cmd) =>
      cmd === 'pick_open_path' ? '/picked.scene.json' : cmd === 'recent_files' ? ['/picked.scene.json', '/old.scene.json'] : null;
    expect(await shell.openDialog()).toBe('/picked.scene.json');
    expect(await shell.openDialog('/typed/x.scene.json')).toBe('/picked.scene.json');
    expect(await shell.saveDialog('/a/b.scene.json')).toBeNull();
    await shell.setDirty(true, '● a.scene.json — Prompt Inspector');
    // The recent list is the shell's, not the page's.
    expect(await shell.recentFiles()).toEqual(['/picked.scene.json', '/old.scene.json']);
    await shell.clearRecent();
    expect(calls).toEqual([
      { cmd: 'pick_open_path', args: { suggested: null } },
      { cmd: 'pick_open_path', args: { suggested: '/typed/x.scene.json' } },
      { cmd: 'pick_save_path', args: { suggested: '/a/b.scene.json' } },
      { cmd: 'set_dirty', args: { dirty: true, title: '● a.scene.json — Prompt Inspector' } },
      { cmd: 'recent_files', args: {} },
      { cmd: 'clear_recent', args: {} },
    ]);
  });
});

describe("the close guard's Save (dialogs.ts onSaveBeforeClose)", () => {
  beforeEach(() => {
    clearMocks();
    // The event plugin mocked too: `emit` reaches the listeners as the shell's event would.
    mockIPC(
      (cmd, args) => {
        calls.push({ cmd, args });
        return answer(cmd, args);
      },
      { shouldMockEvents: true },
    );
  });
  const answers = () => calls.filter((c) => c.cmd === 'close_guard_done').map((c) => c.args);
  const until = async (n: number) => {
    for (let i = 0; i < 50 && answers().length < n; i++) await new Promise((r) => setTimeout(r, 0));
  };

  it('runs the save and tells the shell whether it saved', async () => {
    const results = [true, false];
    let saves = 0;
    const off = await shell.onSaveBeforeClose(async () => {
      saves++;
      return results.shift()!;
    });
    await emit('save-before-close');
    await until(1);
    await emit('save-before-close');
    await until(2);
    expect(saves).toBe(2);
    expect(answers()).toEqual([{ saved: true }, { saved: false }]);
    off();
    await emit('save-before-close');
    await new Promise((r) => setTimeout(r, 10));
    expect(saves).toBe(2);
  });

  it('answers "not saved" when the save throws', async () => {
    const err = console.error;
    console.error = () => {};
    try {
      const off = await shell.onSaveBeforeClose(async () => {
        throw new Error('disk full');
      });
      await emit('save-before-close');
      await until(1);
      expect(answers()).toEqual([{ saved: false }]);
      off();
    } finally {
      console.error = err;
    }
  });

  it("leaves a request that comes during a save to that save's answer", async () => {
    let finish: (saved: boolean) => void = () => {};
    let saves = 0;
    const off = await shell.onSaveBeforeClose(() => {
      saves++;
      return new Promise<boolean>((r) => {
        finish = r;
      });
    });
    await emit('save-before-close');
    await emit('save-before-close');
    await new Promise((r) => setTimeout(r, 10));
    expect(saves).toBe(1);
    expect(answers()).toEqual([]);
    finish(true);
    await until(1);
    await new Promise((r) => setTimeout(r, 10));
    expect(answers()).toEqual([{ saved: true }]);
    off();
  });
});
