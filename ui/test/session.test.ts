import { describe, expect, it } from 'vitest';
import type { Api } from '../src/api/api';
import { Session, SceneWriter } from '../src/lib/session';
import { parseScene, position, setPosition, setTemplateText, toolByName, toolTemplate } from '../src/lib/scene';
import { stringifyJson } from '../src/lib/json';

// The repository's default scene fixture (the same text the core embeds).
import DEFAULT from '../../fixtures/default.scene.json?raw';

/** A transport double for the session's file logic (the real core is exercised by the e2e journey). */
function fakeApi(files: Record<string, string>): Api {
  const report = { llm: 'chat', segments: [], tools: [], diagnostics: [], metrics: { tools_total: 0, tools_rendered: 0, bytes: 0, positions: {} } };
  return {
    defaultScene: async () => ({ path: null, text: DEFAULT }),
    open: async (path) => {
      if (!(path in files)) throw { code: 'io_error', message: 'No such file', file: path };
      if (!files[path].trim().startsWith('{')) throw { code: 'load_error', message: 'expected a JSON object', file: path, line: 1, column: 1 };
      return { path, text: files[path] };
    },
    save: async (path, text) => { files[path] = text; return { modified_ms: 1, size: text.length }; },
    stat: async () => ({ modified_ms: 1, size: 1 }),
    render: async () => report as never,
    validate: async () => ({ load_error: null, templates: [], tools: [] }),
    rules: async () => ({ segments: [], rules: [] }),
    run: async () => ({ iterations: [] }),
    check: async () => ({ passed: 0, failed: 0, scenes: [] }),
    approve: async () => ({ golden_path: '' }),
  };
}

describe('scene writer', () => {
  it('re-serialises the default scene to the same values, keys in order', () => {
    const s = parseScene(DEFAULT);
    const again = parseScene(new SceneWriter().write(s));
    expect(stringifyJson(again)).toBe(stringifyJson(s));
  });
  it('edits a template and a position in place', () => {
    const s = parseScene(DEFAULT);
    const t = toolByName(s, 'tf_notes')!;
    setTemplateText(toolTemplate(t)!, 'default', 'X');
    setPosition(t, ['reformat_input_prompt', null]);
    const text = new SceneWriter().write(s);
    const t2 = toolByName(parseScene(text), 'tf_notes')!;
    expect(position(t2)).toEqual(['reformat_input_prompt', null]);
    expect(JSON.parse(text).tools[0].format_2_prompt.source.templates.default).toBe('X');
  });
});

describe('session files', () => {
  const sched = (cb: () => void) => cb();
  it('marks edits unsaved, and clears the mark on save', async () => {
    const files: Record<string, string> = {};
    const s = new Session(fakeApi(files), sched);
    await s.openDefault();
    expect(s.dirty).toBe(false);
    s.edit((sc) => setTemplateText(toolTemplate(toolByName(sc, 'chat_memo')!)!, 'default', 'Memo!'));
    expect(s.dirty).toBe(true);
    expect(await s.save('/tmp/x.scene.json')).toBe(true);
    expect(s.dirty).toBe(false);
    expect(files['/tmp/x.scene.json']).toContain('Memo!');
  });
  it('a bad file shows its error with line and column and leaves the open scene', async () => {
    const s = new Session(fakeApi({ '/bad.json': 'nope' }), sched);
    await s.openDefault();
    const before = s.text;
    expect(await s.open('/bad.json')).toBe(false);
    expect(s.fileError).toBe('/bad.json:1:1: expected a JSON object');
    expect(s.text).toBe(before);
    expect(s.path).toBe(null);
  });
});
