// In the app, a run scene typed in the Run view that the person has not chosen yet opens once
// they pick it in the Open dialog, which starts at the typed path (as the toolbar's Open does).
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { Session } from '../src/lib/session';
import { RunView } from '../src/views/Run';
import { emptyRun, fakeApi } from './fake-api';

import DEFAULT from '../../fixtures/default.scene.json?raw';
import STABLE from '../../fixtures/run/stable-prefix.scene.json?raw';
import { dropRoot, freshRoot } from './root';

const suggested: (string | undefined)[] = [];
vi.mock('../src/api', () => ({
  dialogs: async () => ({
    openDialog: async (at?: string) => {
      suggested.push(at);
      return '/chosen/stable-prefix.scene.json';
    },
  }),
}));

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));

it('asks for a path not chosen yet with the Open dialog, then runs the file picked', async () => {
  const opened: string[] = [];
  const ran: string[] = [];
  const s = new Session(
    fakeApi({
      open: async (path) => {
        opened.push(path);
        if (path !== '/chosen/stable-prefix.scene.json') throw { code: 'path_not_chosen', message: 'not chosen', file: path };
        return { path, text: STABLE };
      },
      run: async (text) => {
        ran.push(text === STABLE ? 'stable-prefix' : 'other');
        return emptyRun();
      },
    }),
  );
  await s.load(DEFAULT, '/proj/default.scene.json', false);
  await act(() => {
    render(h(RunView, { session: s }), root);
  });
  const box = root.querySelector('[data-testid="run-path"]') as HTMLInputElement;
  await act(() => {
    box.value = 'typed/run.scene.json';
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await act(async () => {
    (root.querySelector('[data-testid="run-file"]') as HTMLElement).click();
    await new Promise((r) => setTimeout(r, 0));
  });
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
  expect(opened).toEqual(['/proj/typed/run.scene.json', '/chosen/stable-prefix.scene.json']);
  expect(suggested).toEqual(['/proj/typed/run.scene.json']);
  expect(ran.at(-1)).toBe('stable-prefix');
  expect(root.textContent).toContain('of /chosen/stable-prefix.scene.json');
  expect(root.querySelector('[data-testid="run-error"]')).toBe(null);
});
