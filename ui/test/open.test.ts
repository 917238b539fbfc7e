// Opening a typed path (app.tsx openScene): in the app, a path the shell refuses as not chosen
// opens once the person picks it in the Open dialog, which starts at that path.
import { describe, expect, it } from 'vitest';
import type { Api } from '../src/api/api';
import { openScene, saveScene } from '../src/app';
import { Session } from '../src/lib/session';
import { fakeApi } from './fake-api';

import DEFAULT from '../../fixtures/default.scene.json?raw';

const NOT_CHOSEN = { code: 'path_not_chosen', message: 'not a path you chose in this window', file: '' };

/** A shell that reaches only `chosen` paths, as the app's does. */
function chosenOnly(files: Record<string, string>, chosen: Set<string>): Api {
  return fakeApi({
    defaultScene: async () => ({ path: null, text: DEFAULT }),
    open: async (path) => {
      if (!chosen.has(path)) throw { ...NOT_CHOSEN, file: path };
      return { path, text: files[path] };
    },
    stat: async () => ({ modified_ms: 1, size: 1 }),
  });
}

async function session(chosen: Set<string>) {
  const files = { '/typed/a.scene.json': DEFAULT, '/picked/b.scene.json': DEFAULT.replace('工作笔记', '工作笔记 B') };
  const s = new Session(chosenOnly(files, chosen));
  await s.load(DEFAULT, null, false);
  return s;
}

describe('openScene', () => {
  it('asks the Open dialog, starting at the typed path, and opens what the person picks', async () => {
    const chosen = new Set<string>();
    const s = await session(chosen);
    const asked: string[] = [];
    const opened = await openScene(s, '/typed/a.scene.json', async (suggested) => {
      asked.push(suggested);
      chosen.add('/picked/b.scene.json'); // the shell grants the dialog's answer
      return '/picked/b.scene.json';
    });
    expect(opened).toBe(true);
    expect(asked).toEqual(['/typed/a.scene.json']);
    expect(s.path).toBe('/picked/b.scene.json');
    expect(s.text).toContain('工作笔记 B');
    expect(s.fileError).toBeNull();
  });

  it('keeps the open scene when the person cancels, and says why', async () => {
    const s = await session(new Set());
    expect(await openScene(s, '/typed/a.scene.json', async () => null)).toBe(false);
    expect(s.path).toBeNull();
    expect(s.fileError).toContain('not a path you chose');
  });

  it('opens a path the shell reaches at once, and shows other errors without a dialog', async () => {
    const s = await session(new Set(['/typed/a.scene.json']));
    let asked = 0;
    const pick = async () => {
      asked++;
      return null;
    };
    expect(await openScene(s, '/typed/a.scene.json', pick)).toBe(true);
    expect(s.path).toBe('/typed/a.scene.json');
    // In the browser there is no dialog: the refusal is shown as it is.
    const browser = await session(new Set());
    expect(await openScene(browser, '/typed/a.scene.json')).toBe(false);
    expect(browser.fileError).toContain('not a path you chose');
    expect(asked).toBe(0);
  });

  it("takes a relative path from the open scene's folder, as the Run and Replay boxes do, and refuses one when there is no folder", async () => {
    const s = await session(new Set(['/typed/a.scene.json', '/picked/b.scene.json']));
    expect(await openScene(s, 'a.scene.json')).toBe(false);
    expect(s.fileError).toContain('"a.scene.json" is relative, and the open scene has no folder');
    expect(await openScene(s, '/typed/a.scene.json')).toBe(true);
    expect(await openScene(s, '../picked/./b.scene.json')).toBe(true);
    expect(s.path).toBe('/picked/b.scene.json');
  });
});

describe('saveScene', () => {
  it("saves to a typed relative path in the open scene's folder", async () => {
    const saved: string[] = [];
    const s = new Session(
      fakeApi({
        open: async (path) => ({ path, text: DEFAULT }),
        stat: async () => ({ modified_ms: 1, size: 1 }),
        save: async (path) => {
          saved.push(path);
          return { modified_ms: 2, size: 1 };
        },
      }),
    );
    await s.load(DEFAULT, null, false);
    expect(await saveScene(s, true, 'copy.scene.json')).toBeNull();
    expect(s.fileError).toContain('type an absolute path');
    expect(saved).toEqual([]);
    await s.load(DEFAULT, '/work/a.scene.json', false);
    expect(await saveScene(s, true, 'sub/copy.scene.json')).toBe('/work/sub/copy.scene.json');
    expect(saved).toEqual(['/work/sub/copy.scene.json']);
  });
});
