// The app log panel (desktop shell only) shows durations rounded.
import { describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Api } from '../src/api/api';
import type { ShellLog } from '../src/api';
import { Session } from '../src/lib/session';
import DEFAULT from '../../fixtures/default.scene.json?raw';

let emit: ((e: ShellLog) => void) | null = null;
vi.mock('../src/api', async (orig) => ({
  ...(await orig<typeof import('../src/api')>()),
  dialogs: async () => ({
    onLog: async (cb: (e: ShellLog) => void) => {
      emit = cb;
      return () => {
        emit = null;
      };
    },
  }),
}));

describe('the app log panel', () => {
  it("rounds an operation's duration (ms=3.4172999 reads 3.4 ms)", async () => {
    const { ContextPanel } = await import('../src/views/Context');
    const s = new Session({ defaultScene: async () => ({ path: null, text: DEFAULT }) } as unknown as Api);
    await s.openDefault().catch(() => {});
    const root = document.createElement('div');
    document.body.append(root);
    await act(async () => {
      render(h(ContextPanel, { session: s, onTemplate: () => {}, onSegment: () => {} }), root);
    });
    await act(async () => {
      await Promise.resolve();
    });
    expect(emit).not.toBe(null);
    await act(() => {
      emit!({
        level: 'DEBUG',
        target: 'prompt_inspector_app::commands',
        message: 'operation done operation=render ms=3.4172999',
        time_ms: 1,
      });
    });
    const line = root.querySelector('.shell-log li')!.textContent!;
    expect(line).toContain('operation done operation=render 3.4 ms');
    expect(line).not.toContain('3.4172999');
    render(null, root);
    root.remove();
  });
});
