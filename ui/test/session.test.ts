import { describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { ContextPanel } from '../src/views/Context';
import type { Api } from '../src/api/api';
import type { Rules } from '../src/api/types';
import { Session } from '../src/lib/session';
import { SceneWriter } from '../src/lib/writer';
import { emptyRun } from './fake-api';
import { parseScene, position, setPosition, setTemplateText, toolByName, toolTemplate } from '../src/lib/scene';
import { type JObject, stringifyJson } from '../src/lib/json';
import { applyTextEdit, originEdit, textEdit } from '../src/lib/patch';

// The repository's default scene fixture (the same text the core embeds).
import DEFAULT from '../../fixtures/default.scene.json?raw';
import RULES from '../../fixtures/rules.json';

/** A transport double for the session's file logic (the real core is exercised by the e2e journey). */
function fakeApi(files: Record<string, string>): Api {
  const report = {
    llm: 'chat',
    segments: [],
    tools: [],
    diagnostics: [],
    metrics: { tools_total: 0, tools_rendered: 0, bytes: 0, positions: {} },
  };
  return {
    defaultScene: async () => ({ path: null, text: DEFAULT }),
    open: async (path) => {
      if (!(path in files)) throw { code: 'io_error', message: 'No such file', file: path };
      if (!files[path].trim().startsWith('{'))
        throw { code: 'load_error', message: 'expected a JSON object', file: path, line: 1, column: 1 };
      return { path, text: files[path] };
    },
    save: async (path, text) => {
      files[path] = text;
      return { modified_ms: 1, size: text.length };
    },
    saveRecording: async () => {
      throw new Error('not used');
    },
    stat: async () => ({ modified_ms: 1, size: 1 }),
    render: async () => report as never,
    rules: async () => RULES as Rules,
    models: async () => ({ models: [] }),
    about: async () => {
      throw new Error('not used');
    },
    run: async () => emptyRun(),
    conversationOfScenes: async () => {
      throw new Error('not used');
    },
    liveCalls: async () => {
      throw new Error('not used');
    },
    conversation: async () => {
      throw new Error('not used');
    },
    check: async () => ({ passed: 0, failed: 0, scenes: [] }),
    approve: async () => ({ golden_path: '' }),
    liveOpen: async () => ({
      doc: 1,
      revision: 1,
      load_error: null,
      core_ms: 0,
      costs_pending: false,
      patch: [
        {
          op: 'set',
          path: [],
          value: { chat: report, desk: { ...report, llm: 'desk' }, validate: { load_error: null, templates: [], tools: [] } },
        },
      ],
    }),
    liveEdit: async (doc, revision) => ({ doc, revision: revision + 1, load_error: null, core_ms: 0, costs_pending: false, patch: [] }),
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
  const text =
    '{"format": "prompt-inspector/scene@1",\n "context": {"a": [1,2,  3]},\n  "tools": [{"name": "t", "description": "d"}],\n "name":"n"}\n';
  const load = () => {
    const spans = new Map<string, [number, number]>();
    const s = parseScene(text, spans);
    const w = new SceneWriter();
    w.adopt(text, s, spans);
    return { s, w };
  };
  it('writes an untouched scene back byte for byte', () => {
    const { s, w } = load();
    expect(w.write(s)).toBe(text);
  });
  it('keeps an edit of the context in every later text (it is not copied back from the loaded text)', () => {
    const { s, w } = load();
    (s.get('context') as JObject).set('a', 'edited');
    w.invalidateContext();
    expect(JSON.parse(w.write(s)).context.a).toBe('edited');
    // A later edit elsewhere (a keystroke in a tool) writes the edited context again.
    (s.get('tools') as JObject[])[0].set('description', 'e');
    w.invalidate('tools[0]', s);
    const out = JSON.parse(w.write(s));
    expect(out.context.a).toBe('edited');
    expect(out.tools[0].description).toBe('e');
  });
  it('re-serialises only the value that changed, and says where the untouched head ends', () => {
    const { s, w } = load();
    (s.get('tools') as JObject[])[0].set('description', 'e');
    w.invalidate('tools[0]', s);
    const out = w.write(s);
    // This file's tools array is not as the writer writes it: the head ends where the array starts.
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

// Texts as the writer writes them (the app's saves), so the loaded tools array is the writer's;
// the tools last (as in the default scene) and first.
const { tools: defaultTools, ...defaultRest } = JSON.parse(DEFAULT);
describe.each([
  ['last', DEFAULT],
  ['first', JSON.stringify({ tools: defaultTools, ...defaultRest })],
])('scene writer, the tools %s: the untouched head and tail reach up to the edited tool', (_, loaded) => {
  const canonical = new SceneWriter().write(parseScene(loaded));
  const load = () => {
    const spans = new Map<string, [number, number]>();
    const s = parseScene(canonical, spans);
    const w = new SceneWriter();
    w.adopt(canonical, s, spans);
    return { s, w, tools: s.get('tools') as JObject[] };
  };
  /** The writer's origin says what `out` is: the loaded text's head, the middle, its tail. */
  const claimsHold = (w: SceneWriter, out: string) => {
    const { stable, stableTail, middle, text } = w.origin!;
    expect(text).toBe(canonical);
    expect(canonical.slice(0, stable) + middle + canonical.slice(canonical.length - stableTail)).toBe(out);
  };
  it('a keystroke in one tool leaves the text before and after that tool untouched', () => {
    const { s, w, tools } = load();
    const i = tools.findIndex((t) => t.get('name') === 'chat_memo');
    expect(i).toBeGreaterThan(0);
    expect(i).toBeLessThan(tools.length - 1);
    setTemplateText(toolTemplate(tools[i])!, 'default', 'typed');
    w.invalidate(`tools[${i}].format_2_prompt.source`, s);
    const out = w.write(s);
    claimsHold(w, out);
    // The head ends where the tool's text starts and the tail starts where it ends.
    const at = out.indexOf('typed');
    const toolStart = out.lastIndexOf('{', out.lastIndexOf('"name": "chat_memo"', at));
    expect(w.origin!.stable).toBe(toolStart);
    expect(out.length - w.origin!.stableTail).toBe(out.indexOf('\n    }', at) + '\n    }'.length);
  });
  it('holds for every tool, for a tool removed or added, and gives a splice that makes the text', () => {
    for (let i = 0; ; i++) {
      const { s, w, tools } = load();
      if (i >= tools.length) break;
      let prev = canonical;
      let prevOrigin = w.origin!;
      const step = (change: () => void, scope: string, keystroke = true) => {
        change();
        w.invalidate(scope, s);
        const out = w.write(s);
        claimsHold(w, out);
        const o = w.origin!;
        const edit = originEdit(prevOrigin, o);
        expect(edit ? applyTextEdit(prev, edit) : prev).toBe(out);
        // A keystroke's splice is the one comparing the texts finds; removing a tool may be said
        // more than one way (the next tool's first characters match the removed one's).
        if (keystroke) expect(edit).toEqual(textEdit(prev, out));
        prev = out;
        prevOrigin = o;
      };
      step(() => setTemplateText(toolTemplate(tools[i])!, 'default', `edit ${i}`), `tools[${i}].format_2_prompt.source`);
      step(() => setTemplateText(toolTemplate(tools[i])!, 'default', `edit ${i}!`), `tools[${i}].format_2_prompt.source`);
      step(() => setTemplateText(toolTemplate(tools[i])!, 'default', `edit ${i}?`), `tools[${i}].format_2_prompt.source`);
      // A keystroke in another value too: the head then ends before it.
      step(() => s.set('name', `renamed ${i}`), 'name');
      const [removed] = tools.splice(i, 1);
      step(() => {}, 'tools', false);
      tools.splice(i, 0, removed);
      step(() => {}, 'tools', false);
      tools.push(tools[0]);
      step(() => {}, 'tools', false);
    }
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

describe('the context tree', () => {
  // The tree skips re-rendering unless the context may have changed; these are the ways it does.
  it('shows a value edited in the tree, a re-parsed context and a newly opened one; template edits keep it', async () => {
    const s = new Session(fakeApi({ '/other.scene.json': DEFAULT.replace('你刚才记了什么？', 'from the other file') }));
    await s.openDefault();
    const root = document.createElement('div');
    document.body.append(root);
    const mount = () =>
      act(() => {
        render(h(ContextPanel, { session: s, onTemplate: () => {}, onSegment: () => {} }), root);
      });
    await mount();
    const leaf = () => [...root.querySelectorAll('.tree .val')].map((b) => b.textContent);
    expect(leaf()).toContain('"你刚才记了什么？"');
    // Edit the leaf in the tree: click, type, Enter.
    await act(() => {
      (root.querySelector('.tree .val') as HTMLElement).click();
    });
    const input = root.querySelector('.leaf-input') as HTMLInputElement;
    input.value = 'edited in the tree';
    await act(() => {
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    });
    await mount();
    expect(leaf()).toContain('"edited in the tree"');
    expect(s.text).toContain('edited in the tree');
    // A template edit re-renders the window but not the tree, which still shows the same.
    const before = s.contextVersion;
    s.edit((sc) => setTemplateText(toolTemplate(toolByName(sc, 'chat_memo')!)!, 'default', 'Memo!'), false, 'tools[0]');
    await mount();
    expect(s.contextVersion).toBe(before);
    expect(leaf()).toContain('"edited in the tree"');
    // The raw JSON editor's text is re-parsed: the tree follows it.
    s.setText(s.text.replace('edited in the tree', 'typed in the raw JSON'));
    await mount();
    expect(leaf()).toContain('"typed in the raw JSON"');
    // Opening another file shows its context.
    expect(await s.open('/other.scene.json')).toBe(true);
    await mount();
    expect(leaf()).toContain('"from the other file"');
    render(null, root);
    root.remove();
  });
});

describe('the session watches the open file on disk', () => {
  /** A disk whose file's modification time the test moves, as an outside editor would. */
  function disk(text: string) {
    const files: Record<string, string> = { '/d/a.scene.json': text };
    let modified = 1;
    const api = { ...fakeApi(files), stat: async () => ({ modified_ms: modified, size: 1 }) };
    return {
      api,
      files,
      touch(next: string) {
        files['/d/a.scene.json'] = next;
        modified++;
      },
    };
  }
  const edited = DEFAULT.replace('"tf_notes"', '"tf_notes_outside"');

  it('reloads a change when there are no unsaved edits, and says so', async () => {
    const d = disk(DEFAULT);
    const s = new Session(d.api);
    await s.open('/d/a.scene.json');
    expect(await s.checkDisk()).toBe('same');
    d.touch(edited);
    expect(await s.checkDisk()).toBe('reloaded');
    expect(s.text).toBe(edited);
    expect(s.notice).toContain('changed on disk');
    expect(s.diskConflict).toBe(false);
  });

  it('keeps unsaved edits and raises a conflict, settled by keeping them or by reloading', async () => {
    const d = disk(DEFAULT);
    const s = new Session(d.api);
    await s.open('/d/a.scene.json');
    s.setText(`${DEFAULT} `);
    d.touch(edited);
    expect(await s.checkDisk()).toBe('conflict');
    expect(s.diskConflict).toBe(true);
    expect(s.text).toBe(`${DEFAULT} `);
    // While the user decides, the watch asks nothing more.
    expect(await s.checkDisk()).toBe('same');
    await s.ignoreDisk();
    expect(s.diskConflict).toBe(false);
    expect(s.text).toBe(`${DEFAULT} `);
    d.touch(DEFAULT);
    expect(await s.checkDisk()).toBe('conflict');
    await s.reloadFromDisk();
    expect(s.diskConflict).toBe(false);
    expect(s.text).toBe(DEFAULT);
  });
});
