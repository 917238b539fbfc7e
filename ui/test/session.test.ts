import { describe, expect, it } from 'vitest';
import type { Api } from '../src/api/api';
import { Session, SceneWriter } from '../src/lib/session';
import { parseScene, position, setPosition, setTemplateText, toolByName, toolTemplate } from '../src/lib/scene';
import { JObject, stringifyJson } from '../src/lib/json';

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
    liveOpen: async () => ({ doc: 1, revision: 1, load_error: null, core_ms: 0, patch: [{ op: 'set', path: [], value: { chat: report, desk: { ...report, llm: 'desk' }, validate: { load_error: null, templates: [], tools: [] } } }] }),
    liveEdit: async (doc, revision) => ({ doc, revision: revision + 1, load_error: null, core_ms: 0, patch: [] }),
    liveClose: async () => {},
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

describe('scene writer keeps the loaded text where nothing changed', () => {
  const text = '{"format": "prompt-inspector/scene@1",\n "context": {"a": [1,2,  3]},\n  "tools": [{"name": "t", "description": "d"}],\n "name":"n"}\n';
  const load = () => { const spans = new Map<string, [number, number]>(); const s = parseScene(text, spans); const w = new SceneWriter(); w.adopt(text, s, spans); return { s, w }; };
  it('writes an untouched scene back byte for byte', () => {
    const { s, w } = load();
    expect(w.write(s)).toBe(text);
  });
  it('re-serialises only the value that changed, and says where the untouched head ends', () => {
    const { s, w } = load();
    (s.get('tools') as JObject[])[0].set('description', 'e');
    const out = w.write(s);
    expect(w.origin?.stable).toBe(text.indexOf('[{'));
    expect(out.slice(0, w.origin!.stable)).toBe(text.slice(0, w.origin!.stable));
    expect(out.startsWith('{"format": "prompt-inspector/scene@1",\n "context": {"a": [1,2,  3]},\n  "tools": [')).toBe(true);
    expect(out.endsWith('],\n "name":"n"}\n')).toBe(true);
    expect(JSON.parse(out).tools[0].description).toBe('e');
  });
  it('re-serialises the context when told it changed, and falls back to full form when keys change', () => {
    const { s, w } = load();
    (s.get('context') as JObject).set('b', 'x');
    w.invalidateContext();
    expect(JSON.parse(w.write(s)).context).toEqual({ a: [1, 2, 3], b: 'x' });
    s.set('description', 'new key');
    const out = w.write(s);
    expect(JSON.parse(out).description).toBe('new key');
    expect(out).toContain('\n  "name": "n"');
  });
});

describe('scene writer: per-tool text cache', () => {
  it('an edit scoped to one tool gives the same text as writing from scratch', () => {
    const s = parseScene(DEFAULT);
    const w = new SceneWriter();
    w.write(s);
    const t = toolByName(s, 'tf_notes')!;
    setTemplateText(toolTemplate(t)!, 'default', 'scoped edit');
    const i = (s.get('tools') as JObject[]).indexOf(t);
    w.invalidate(`tools[${i}].format_2_prompt.source`, s);
    expect(w.write(s)).toBe(new SceneWriter().write(s));
    expect(w.write(s)).toContain('scoped edit');
  });
  it('an edit scoped elsewhere keeps the cached tool text (so the scope must be right)', () => {
    const s = parseScene(DEFAULT);
    const w = new SceneWriter();
    w.write(s);
    setTemplateText(toolTemplate(toolByName(s, 'tf_notes')!)!, 'default', 'unscoped');
    w.invalidate('chat_llm.system_msg_prompt[0]', s);
    expect(w.write(s)).not.toContain('unscoped');
    w.invalidate();
    expect(w.write(s)).toContain('unscoped');
  });
});

describe('session files', () => {
  it('marks edits unsaved, and clears the mark on save', async () => {
    const files: Record<string, string> = {};
    const s = new Session(fakeApi(files));
    await s.openDefault();
    expect(s.dirty).toBe(false);
    s.edit((sc) => setTemplateText(toolTemplate(toolByName(sc, 'chat_memo')!)!, 'default', 'Memo!'));
    expect(s.dirty).toBe(true);
    expect(await s.save('/tmp/x.scene.json')).toBe(true);
    expect(s.dirty).toBe(false);
    expect(files['/tmp/x.scene.json']).toContain('Memo!');
  });
  it('a bad file shows its error with line and column and leaves the open scene', async () => {
    const s = new Session(fakeApi({ '/bad.json': 'nope' }));
    await s.openDefault();
    const before = s.text;
    expect(await s.open('/bad.json')).toBe(false);
    expect(s.fileError).toBe('/bad.json:1:1: expected a JSON object');
    expect(s.text).toBe(before);
    expect(s.path).toBe(null);
  });
});
