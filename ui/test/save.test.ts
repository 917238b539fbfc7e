// The Save flow (app.tsx saveScene): the Save and Save as buttons run it, and so does the desktop
// close guard's "Save", which closes the window only when it answers with a path.
import { describe, expect, it } from 'vitest';
import type { Api } from '../src/api/api';
import { saveScene } from '../src/app';
import { Session } from '../src/lib/session';
import { fakeApi } from './fake-api';

import DEFAULT from '../../fixtures/default.scene.json?raw';

/** Only what saving touches; the rest is never called here. */
function savingApi(files: Record<string, string>, failSave = false): Api {
  return fakeApi({
    defaultScene: async () => ({ path: null, text: DEFAULT }),
    open: async (path) => ({ path, text: files[path] }),
    save: async (path, text) => {
      if (failSave) throw { code: 'io_error', message: 'Permission denied', file: path };
      files[path] = text;
      return { modified_ms: 1, size: text.length };
    },
    stat: async () => ({ modified_ms: 1, size: 1 }),
  });
}

async function session(files: Record<string, string>, path: string | null, failSave = false) {
  const s = new Session(savingApi(files, failSave));
  await s.load(DEFAULT, path, false);
  s.setText(DEFAULT.replace('工作笔记', '工作笔记 EDITED'));
  expect(s.dirty).toBe(true);
  return s;
}

describe('saveScene', () => {
  it('saves an opened file to its path without asking', async () => {
    const files: Record<string, string> = { '/a.scene.json': DEFAULT };
    const s = await session(files, '/a.scene.json');
    let asked = 0;
    const saved = await saveScene(s, false, '', async () => {
      asked++;
      return '/elsewhere.json';
    });
    expect(saved).toBe('/a.scene.json');
    expect(asked).toBe(0);
    expect(files['/a.scene.json']).toContain('EDITED');
    expect(s.dirty).toBe(false);
  });

  it('asks where to save a scene without a file, and reports a cancelled dialog', async () => {
    const files: Record<string, string> = {};
    const s = await session(files, null);
    expect(await saveScene(s, false, '', async () => null)).toBeNull();
    expect(s.fileError).toBe('Not saved: no file was chosen.');
    expect(s.dirty).toBe(true);
    expect(await saveScene(s, false, '', async () => '/new.scene.json')).toBe('/new.scene.json');
    expect(s.path).toBe('/new.scene.json');
    expect(files['/new.scene.json']).toContain('EDITED');
    expect(s.fileError).toBeNull();
  });

  it('saves to the typed path without a save dialog (the browser)', async () => {
    const files: Record<string, string> = {};
    const s = await session(files, null);
    expect(await saveScene(s, false, '  ')).toBeNull();
    expect(s.fileError).toBe('Type a path to save to (the path box), then Save.');
    expect(await saveScene(s, false, ' /typed.scene.json ')).toBe('/typed.scene.json');
    expect(files['/typed.scene.json']).toContain('EDITED');
  });

  it('keeps the edits and says why when the save fails', async () => {
    const s = await session({}, '/ro.scene.json', true);
    expect(await saveScene(s, false, '')).toBeNull();
    expect(s.fileError).toBe('Save failed: /ro.scene.json: Permission denied');
    expect(s.dirty).toBe(true);
    // A failing save dialog too.
    expect(
      await saveScene(s, true, '', async () => {
        throw { code: 'ipc', message: 'no dialog' };
      }),
    ).toBeNull();
    expect(s.fileError).toBe('Save failed: no dialog');
  });
});
