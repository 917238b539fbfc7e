// Help while editing templates: completion of the variables as each engine reads them, the render
// errors underlined where the core says they are (with what exists in place of a missing name),
// the warning on switching to the engine the text is not written for, the locale that renders
// apart from the locale shown, and selects that do not change on an arrow key alone.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import type { Diagnostic, Report } from '../src/api/types';
import { completeAt, fstringTarget, jinjaTarget } from '../src/editor/complete';
import { toCmDiagnostics } from '../src/editor/template';
import type { JObject } from '../src/lib/json';
import { parseScene, renderedLocale, toolByName, toolTemplate } from '../src/lib/scene';
import { guarded, installSelectGuard } from '../src/lib/select-keys';
import { Session } from '../src/lib/session';
import { engineContext, otherEngineSyntax, renderProblems, templateOwner, templateVars } from '../src/lib/template-help';
import { TemplateEditor } from '../src/views/TemplateEditor';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));
const show = (vnode: Parameters<typeof render>[0]) => act(() => render(vnode, root));

const SCENE = `{
  "format": "prompt-inspector/scene@1",
  "name": "help",
  "context": { "user_input": { "input": "hi", "additional_info": { "deadline": "Friday" } }, "project": "Q3" },
  "chat_llm": {
    "system_msg_prompt": [
      { "kind": "normalize", "template": { "engine": "fstring", "templates": { "default": "P" } } },
      { "kind": "additional_info", "template": { "engine": "jinja2", "templates": { "default": "{{ deadline }}" } } }
    ]
  },
  "tools": [
    { "name": "notes", "state": { "items": ["a"], "limit": 2 }, "prompt_position": ["system_msg_prompt", null],
      "format_2_prompt": { "returns": "str", "source": { "engine": "fstring", "templates": { "default": "Notes\\nYou: {ctx[user_input][inptu]}", "zh": "笔记" }, "active_language": "default" } } }
  ]
}`;

const labels = (r: ReturnType<typeof completeAt>) => r?.options.map((o) => o.label) ?? null;

describe('what a template can read', () => {
  it('a tool source reads state and ctx; a normalize prompt the context; additional_info its own keys', () => {
    const s = parseScene(SCENE);
    const tool = templateOwner(s, 'tools[0].format_2_prompt.source');
    expect(tool?.kind).toBe('tool-source');
    expect(templateVars(s, tool).keys()).toEqual(['state', 'ctx']);
    // The written keys first, then the standard keys the scene leaves out (docs/scene-format.md).
    expect(engineContext(s).keys()).toEqual(['user_input', 'project', 'conversation', 'runtime_vars', 'neural', 'tools']);
    const normalize = templateOwner(s, 'chat_llm.system_msg_prompt[0].template');
    expect(templateVars(s, normalize).keys()).toEqual(engineContext(s).keys());
    const info = templateOwner(s, 'chat_llm.system_msg_prompt[1].template');
    expect(templateVars(s, info).keys()).toEqual(['deadline']);
  });
});

describe('completion', () => {
  const vars = () => templateVars(parseScene(SCENE), templateOwner(parseScene(SCENE), 'tools[0].format_2_prompt.source'));

  it('fstring: a name after `{`, then each level’s keys after `[`, closing the bracket', () => {
    expect(labels(completeAt('fstring', 'You: {', vars()))).toEqual(['state', 'ctx']);
    const r = completeAt('fstring', 'You: {ctx[user_input][in', vars())!;
    expect(r.options.map((o) => [o.label, o.apply])).toEqual([
      ['input', 'input]'],
      ['additional_info', 'additional_info]'],
    ]);
    // From where the partial key starts: 'in' is replaced.
    expect(r.from).toBe('You: {ctx[user_input]['.length);
    expect(labels(completeAt('fstring', '{state[items][', vars()))).toEqual(['0']);
    // `{{` is a literal brace, and past `:` is the format spec: nothing to complete.
    expect(completeAt('fstring', 'a {{ctx', vars())).toBe(null);
    expect(completeAt('fstring', '{ctx:>', vars())).toBe(null);
  });

  it("jinja2: names in `{{ }}` and `{% %}`, keys after `.` and inside `['`", () => {
    expect(labels(completeAt('jinja2', '{{ ', vars()))).toEqual(['state', 'ctx']);
    expect(labels(completeAt('jinja2', '{% if ctx.user_input.', vars()))).toEqual(['input', 'additional_info']);
    const quoted = completeAt('jinja2', "{{ ctx['pro", vars())!;
    expect(quoted.options.map((o) => o.apply)).toContain("project']");
    // A filter's name is not a variable; after `}}` the expression is closed.
    expect(completeAt('jinja2', '{{ ctx | len', vars())).toBe(null);
    expect(completeAt('jinja2', '{{ ctx }} ct', vars())).toBe(null);
  });

  it('reads the path being written', () => {
    expect(fstringTarget('x {a[b][c')).toEqual({ path: ['a', 'b'], partial: 'c', inBracket: true });
    expect(jinjaTarget("{{ a.b['c'].d")).toEqual({ path: ['a', 'b', 'c'], partial: 'd', quote: null, dotted: true });
  });
});

const diag = (over: Partial<Diagnostic>): Diagnostic => ({ level: 'error', code: 'tool_raised', message: 'm', ...over }) as Diagnostic;
const report = (diagnostics: Diagnostic[]) => ({ diagnostics, segments: [] }) as unknown as Report;

describe('render errors in the editor', () => {
  // The text: "Notes\nYou: {ctx[user_input][inptu]}"; the field starts at byte 11 (line 2,
  // column 6) and ends at byte 35.
  const text = 'Notes\nYou: {ctx[user_input][inptu]}';
  const at: Partial<Diagnostic> = {
    tool: 'notes',
    locale: 'default',
    line: 2,
    column: 6,
    range: [11, 35],
    suggestions: ['ctx[user_input][input]'],
    message: "Tool notes format_2_prompt failed, falling back to None: [default] KeyError: 'inptu' (line 2, column 6)",
  };

  it('finds the errors of one template and locale, each once across both families', () => {
    const s = parseScene(SCENE);
    const reports = { chat: report([diag(at)]), desk: report([diag(at), diag({ ...at, tool: 'other' })]) };
    const path = 'tools[0].format_2_prompt.source';
    expect(renderProblems(s, reports, path, 'default')).toEqual([
      { message: "KeyError: 'inptu' (line 2, column 6)", range: [11, 35], line: 2, column: 6, suggestions: ['ctx[user_input][input]'] },
    ]);
    expect(renderProblems(s, reports, path, 'zh')).toEqual([]);
    expect(renderProblems(s, reports, 'chat_llm.system_msg_prompt[0].template', 'default')).toEqual([]);
  });

  it('underlines the field and offers the existing name, which the action puts in place', () => {
    const [d] = toCmDiagnostics(text, [
      { message: "KeyError: 'inptu'", range: [11, 35], suggestions: ['ctx[user_input][input]'], source: 'render' },
    ]);
    expect(text.slice(d.from, d.to)).toBe('{ctx[user_input][inptu]}');
    expect(d.message).toBe("KeyError: 'inptu' Did you mean ctx[user_input][input]?");
    expect(d.source).toBe('render');
    const view = new EditorView({ state: EditorState.create({ doc: 'Notes\nYou: {ctx[user_input][inptu]!r:>9}' }) });
    d.actions![0].apply(view, d.from, d.to);
    expect(view.state.doc.toString()).toBe('Notes\nYou: {ctx[user_input][input]!r:>9}');
    view.destroy();
  });

  it('the template editor underlines a render error at its range, and says what exists', async () => {
    vi.useFakeTimers();
    try {
      const s = new Session(fakeApi({ liveOpen: () => new Promise(() => {}) }));
      s.scene = parseScene(SCENE);
      const spec = toolTemplate(toolByName(s.scene, 'notes')!)!;
      s.text = 'scene text';
      s.reports = {
        chat: report([diag(at)]),
        desk: report([]),
        validate: { templates: [], tools: [] },
        text: 'scene text',
      } as unknown as Session['reports'];
      show(
        h(TemplateEditor, {
          session: s,
          spec,
          path: 'tools[0].format_2_prompt.source',
          label: 'notes template',
          testId: 'template-editor',
        }),
      );
      await act(async () => {
        await vi.advanceTimersByTimeAsync(500);
      });
      const marked = [...root.querySelectorAll('.cm-lintRange-error')].map((e) => e.textContent).join('');
      expect(marked).toBe('{ctx[user_input][inptu]}');
      const hint = root.querySelector('[data-testid="template-editor-did-you-mean"]')!;
      expect(hint.textContent).toBe('Line 2, column 6: not found. Did you mean ctx[user_input][input]?');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('switching the engine', () => {
  it('knows each engine’s syntax', () => {
    expect(otherEngineSyntax(['Hi {name}, {items[0]:>4}'], 'jinja2')).toMatch(/fstring fields/);
    expect(otherEngineSyntax(['Hi {{ name }}'], 'jinja2')).toBe(null);
    expect(otherEngineSyntax(['{% if x %}y{% endif %}'], 'fstring')).toMatch(/jinja2 syntax/);
    expect(otherEngineSyntax(['{{ name | upper }}'], 'fstring')).toMatch(/jinja2 syntax/);
    // An fstring's escaped braces are not jinja2.
    expect(otherEngineSyntax(['JSON: {{"a": {n}}}'], 'fstring')).toBe(null);
    expect(otherEngineSyntax(['plain'], 'jinja2')).toBe(null);
  });

  it('warns on a switch to the engine the text is not written for, and switches back in one click', () => {
    const s = new Session(fakeApi({ liveOpen: () => new Promise(() => {}) }));
    s.scene = parseScene(SCENE);
    const spec = toolTemplate(toolByName(s.scene, 'notes')!)!;
    show(
      h(TemplateEditor, { session: s, spec, path: 'tools[0].format_2_prompt.source', label: 'notes template', testId: 'template-editor' }),
    );
    const select = root.querySelector<HTMLSelectElement>('[data-testid="template-editor-engine"]')!;
    act(() => {
      select.value = 'jinja2';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(spec.get('engine')).toBe('jinja2');
    const warning = root.querySelector('[data-testid="template-editor-engine-warning"]')!;
    expect(warning.getAttribute('role')).toBe('alert');
    expect(warning.textContent).toMatch(/fstring fields/);
    const back = [...warning.querySelectorAll('button')].find((b) => b.textContent === 'Switch back to fstring')!;
    act(() => back.click());
    expect(spec.get('engine')).toBe('fstring');
    expect(root.querySelector('[data-testid="template-editor-engine-warning"]')).toBe(null);
  });
});

describe('locales: shown and rendered', () => {
  it('the tabs choose the locale shown; "Renders this locale" sets active_language', () => {
    const s = new Session(fakeApi({ liveOpen: () => new Promise(() => {}), render: () => new Promise(() => {}) }));
    s.scene = parseScene(SCENE);
    const spec = toolTemplate(toolByName(s.scene, 'notes')!)! as JObject;
    show(
      h(TemplateEditor, { session: s, spec, path: 'tools[0].format_2_prompt.source', label: 'notes template', testId: 'template-editor' }),
    );
    const renders = () => root.querySelector<HTMLInputElement>('[data-testid="template-editor-renders"] input')!;
    expect(renders().checked).toBe(true);
    const zh = [...root.querySelectorAll<HTMLElement>('[role="tab"]')].find((t) => t.textContent?.startsWith('zh'))!;
    act(() => zh.click());
    // Showing zh changes nothing in the scene: default still renders.
    expect(zh.getAttribute('aria-selected')).toBe('true');
    expect(renderedLocale(spec)).toBe('default');
    expect(renders().checked).toBe(false);
    expect(root.querySelector('[data-testid="template-editor-renders"] [role="status"]')!.textContent).toBe(
      'Shown: zh, a preview. The scene renders default.',
    );
    act(() => renders().click());
    expect(spec.get('active_language')).toBe('zh');
    expect(renderedLocale(spec)).toBe('zh');
  });
});

describe('a closed select and the arrow keys', () => {
  it('stops the keys that would change a closed select, and opens its list instead', () => {
    const off = installSelectGuard(document);
    try {
      const select = document.createElement('select');
      for (const v of ['fstring', 'jinja2']) {
        const o = document.createElement('option');
        o.value = o.textContent = v;
        select.append(o);
      }
      const picker = vi.fn();
      (select as unknown as { showPicker: () => void }).showPicker = picker;
      const changed = vi.fn();
      select.addEventListener('change', changed);
      root.append(select);
      for (const key of ['ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']) {
        const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true });
        select.dispatchEvent(e);
        expect(e.defaultPrevented, key).toBe(true);
      }
      expect(picker).toHaveBeenCalledTimes(8);
      expect(select.value).toBe('fstring');
      expect(changed).not.toHaveBeenCalled();
      // Enter, Space and Alt+ArrowDown open the list as the browser does them; Tab moves on.
      for (const init of [{ key: 'Enter' }, { key: ' ' }, { key: 'ArrowDown', altKey: true }, { key: 'Tab' }]) {
        const e = new KeyboardEvent('keydown', { ...init, bubbles: true, cancelable: true });
        select.dispatchEvent(e);
        expect(e.defaultPrevented, init.key).toBe(false);
      }
    } finally {
      off();
    }
  });

  it('leaves list boxes and other elements alone', () => {
    const list = document.createElement('select');
    list.size = 4;
    const multi = document.createElement('select');
    multi.multiple = true;
    const down = { key: 'ArrowDown', altKey: false, ctrlKey: false, metaKey: false };
    expect(guarded(list, down)).toBe(false);
    expect(guarded(multi, down)).toBe(false);
    expect(guarded(document.createElement('input'), down)).toBe(false);
    expect(guarded(document.createElement('select'), down)).toBe(true);
  });
});
