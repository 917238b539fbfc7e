import { describe, expect, it } from 'vitest';
import { fileLabel, windowTitle } from '../src/lib/title';

describe('window title', () => {
  it('names the open file, with the unsaved marker in front while it has edits', () => {
    expect(windowTitle('/tmp/pi/journey.scene.json', false)).toBe('journey.scene.json — Prompt Inspector');
    expect(windowTitle('/tmp/pi/journey.scene.json', true)).toBe('● journey.scene.json — Prompt Inspector');
  });
  it('says "default scene" for the embedded scene (no path)', () => {
    expect(windowTitle(null, false)).toBe('default scene — Prompt Inspector');
    expect(windowTitle(undefined, true)).toBe('● default scene — Prompt Inspector');
    expect(windowTitle('', false)).toBe('default scene — Prompt Inspector');
  });
  it('takes the last component of a path, either separator, ignoring a trailing one', () => {
    expect(fileLabel('a.scene.json')).toBe('a.scene.json');
    expect(fileLabel('C:\\Users\\me\\笔记.scene.json')).toBe('笔记.scene.json');
    expect(fileLabel('/srv/scenes/x.json/')).toBe('x.json');
  });
});
