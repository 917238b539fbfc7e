// A path typed into any box of the app means the same: absolute as typed, relative from the open
// scene's folder, and refused (in words) when the open scene has no folder, rather than left to
// the core, which would take it from the folder the app or `serve` was started in.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { typedPath } from '../src/lib/paths';
import { Session } from '../src/lib/session';
import { ConversationView } from '../src/views/Conversation';
import { RunView } from '../src/views/Run';
import { emptyRun, fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';

import DEFAULT from '../../fixtures/default.scene.json?raw';

describe('typedPath', () => {
  it('keeps absolute paths, takes relative ones from the folder, refuses them without one', () => {
    expect(typedPath(' /a/b.json ', null)).toEqual({ path: '/a/b.json' });
    expect(typedPath('C:\\a\\b.json', null)).toEqual({ path: 'C:\\a\\b.json' });
    expect(typedPath('run/../b.json', '/p')).toEqual({ path: '/p/b.json' });
    expect(typedPath('', null)).toEqual({ path: '' });
    expect(typedPath('b.json', null)).toEqual({
      error: '"b.json" is relative, and the open scene has no folder to take it from: type an absolute path.',
    });
  });
});

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));
const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  });
async function type(testid: string, value: string) {
  const box = root.querySelector(`[data-testid="${testid}"]`) as HTMLInputElement;
  await act(() => {
    box.value = value;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await act(() => {
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  });
  await settle();
}

describe('the Run and Conversation boxes on the embedded scene (no folder)', () => {
  it('refuse a relative path in words and ask the core nothing', async () => {
    const asked: string[] = [];
    const s = new Session(
      fakeApi({
        run: async () => emptyRun(),
        open: async (p) => {
          asked.push(p);
          throw new Error('not reached');
        },
        conversation: async (f) => {
          asked.push(f);
          throw new Error('not reached');
        },
      }),
    );
    await s.load(DEFAULT, null, false);
    await act(() => {
      render(h(RunView, { session: s }), root);
    });
    await settle();
    await type('run-path', 'x.scene.json');
    (root.querySelector('[data-testid="run-file"]') as HTMLElement).click();
    await settle();
    expect(root.querySelector('[data-testid="run-error"]')?.textContent).toContain('"x.scene.json" is relative');
    await act(() => {
      render(h(ConversationView, { session: s }), root);
    });
    await type('conv-folder', 'calls');
    expect(root.textContent).toContain('"calls" is relative');
    expect(asked).toEqual([]);
  });
});
