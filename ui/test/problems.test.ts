// The diagnostics panel as a problems panel (sorted, each once, plain words, moot findings folded)
// and the board's figures saying what they are (one model choice for bodies and prices, a
// previewed adapter that leaves the scene unchanged, unused families folded, the scene's own
// words, message parts and tool calls, coloured bodies).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Api, RenderOptions } from '../src/api/api';
import type { Diagnostic, ModelInfo, Report, Rules, ValidateResponse } from '../src/api/types';
import { diagnosticLists, plainMessage } from '../src/lib/diagnostics';
import { jsonTokens } from '../src/lib/jsonhl';
import { parseScene } from '../src/lib/scene';
import { deskBody, sceneDesk } from '../src/lib/preview';
import { familyUsed, runOnly, sceneAbout } from '../src/lib/sceneinfo';
import { Session } from '../src/lib/session';
import { App } from '../src/app';
import { DiagnosticsList } from '../src/views/Context';
import { MessageCard } from '../src/views/Message';
import { Segments, messageSource } from '../src/views/Segments';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';
import DEFAULT from '../../fixtures/default.scene.json?raw';
import IMPORTED from '../../fixtures/import/anthropic/code-review.scene.json?raw';
import RUN_ONLY from '../../fixtures/run/cd-round-2.scene.json?raw';
import RULES from '../../fixtures/rules.json';

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
  localStorage.clear();
});
afterEach(() => dropRoot(root));

const report = (llm: 'chat' | 'desk', diagnostics: Diagnostic[], extra: Partial<Report> = {}): Report => ({
  llm,
  segments: [],
  tools: [],
  diagnostics,
  metrics: { tools_total: 0, tools_rendered: 0, bytes: 0, positions: {} },
  ...extra,
});

const INJECT: Diagnostic = {
  level: 'info',
  code: 'cache_prefix_injection',
  message:
    'tf_notes writes 12 tokens into system_msg_prompt, in the cached prefix: whenever that text changes from one call to the next, everything after it is billed again. after_intermediate_msg_prompt is the first segment open to tools after the prefix (`prompt-inspector cache` prices the move)',
  tool: 'tf_notes',
  segment: 'system_msg_prompt',
};
const BELOW: Diagnostic = {
  level: 'info',
  code: 'cache_below_minimum',
  message: "openai/gpt-5's cache needs 1,024 tokens, this request has 300: it is billed in full however stable its prefix",
};
const VOLATILE: Diagnostic = {
  level: 'warning',
  code: 'cache_volatile_value',
  message: 'system_prompt[0] (template line 1), in the cached prefix, holds a time of day `23:59:01`, which changes on every call',
  segment: 'system_prompt',
  prompt: 0,
  line: 1,
};
const INVALID: Diagnostic = { level: 'error', code: 'tool_invalid', message: 'ValueError: no', tool: 'goal_rewriter' };
const DUP: Diagnostic = { level: 'warning', code: 'tool_duplicate', message: 'tool `x` is listed again', tool: 'x' };

describe('the problems panel', () => {
  it('lists errors, then warnings, then info, each once with the families that have it', () => {
    const lists = diagnosticLists({
      chat: report('chat', [INJECT, DUP, INVALID]),
      desk: report('desk', [INVALID, DUP]),
    });
    expect(lists.shown.map((x) => [x.d.level, x.d.code, x.families.join('+')])).toEqual([
      ['error', 'tool_invalid', 'chat+desk'],
      ['warning', 'tool_duplicate', 'chat+desk'],
      ['info', 'cache_prefix_injection', 'chat'],
    ]);
    expect(lists.moot).toEqual([]);
  });

  it('folds the cache-prefix findings of a request under the model’s cache minimum, with the reason', () => {
    const lists = diagnosticLists({ chat: report('chat', [INJECT, BELOW]), desk: report('desk', [VOLATILE]) });
    // chat is below the minimum: its prefix finding is moot; desk is not: its finding stands.
    expect(lists.moot.map((x) => x.d.code)).toEqual(['cache_prefix_injection']);
    expect(lists.shown.map((x) => x.d.code)).toEqual(['cache_volatile_value', 'cache_below_minimum']);
    expect(lists.mootWhy.map((x) => x.d.code)).toEqual(['cache_below_minimum']);
    // A finding both families have is moot only when both are below the minimum.
    const both = diagnosticLists({ chat: report('chat', [INJECT, BELOW]), desk: report('desk', [INJECT]) });
    expect(both.moot).toEqual([]);
    const bothBelow = diagnosticLists({ chat: report('chat', [INJECT, BELOW]), desk: report('desk', [INJECT, BELOW]) });
    expect(bothBelow.moot.map((x) => x.families)).toEqual([['chat', 'desk']]);
  });

  it('folds apart the diagnostics of a family the scene does not use', () => {
    const WITHOUT: Diagnostic = { level: 'warning', code: 'request_without_messages', message: 'openai_desk: no messages' };
    const lists = diagnosticLists({ chat: report('chat', [INVALID]), desk: report('desk', [INVALID, WITHOUT]) }, ['desk']);
    expect(lists.shown.map((x) => x.d.code)).toEqual(['tool_invalid']);
    expect(lists.unused.map((x) => x.d.code)).toEqual(['request_without_messages']);
    expect(diagnosticLists({ desk: report('desk', [WITHOUT]) }).unused).toEqual([]);
  });

  it('says the core’s messages in plain words: code without backticks, a command aside as a view', () => {
    const m = plainMessage(INJECT.message);
    expect(m.view).toBe('conversation');
    const text = m.parts.map((p) => p.text).join('');
    expect(text).not.toContain('`');
    expect(text).not.toContain('prompt-inspector');
    expect(text.endsWith('first segment open to tools after the prefix')).toBe(true);
    expect(plainMessage('holds `23:59:01`, which').parts).toEqual([
      { text: 'holds ', code: false },
      { text: '23:59:01', code: true },
      { text: ', which', code: false },
    ]);
    // An unmatched backtick is shown as written.
    expect(
      plainMessage('a `b')
        .parts.map((p) => p.text)
        .join(''),
    ).toBe('a `b');
  });

  it('renders no backticks, folds the moot ones under a reason, and links the view that answers', async () => {
    const onView = vi.fn();
    await act(() => {
      render(
        h(DiagnosticsList, {
          reports: { chat: report('chat', [INJECT, BELOW, DUP]), desk: report('desk', [INVALID]) },
          onTemplate: () => {},
          onSegment: () => {},
          onView,
        }),
        root,
      );
    });
    const panel = root.querySelector('[data-testid="problems"]')!;
    expect(panel.textContent).not.toContain('`');
    expect(root.querySelector('[data-testid="diag-counts"]')!.textContent).toBe('1 error, 1 warning, 1 info, 1 moot');
    const levels = [...root.querySelectorAll('[data-testid="diagnostics"] > li .level')].map((l) => l.textContent);
    expect(levels).toEqual(['error', 'warning', 'info']);
    const moot = root.querySelector('[data-testid="diag-moot"]') as HTMLDetailsElement;
    expect(moot.open).toBe(false);
    expect(moot.querySelector('summary')!.textContent).toContain('1 cache-prefix finding that change');
    expect(root.querySelector('[data-testid="diag-moot-why"]')!.textContent).toContain(
      "the chat request is under the picked model's minimum cacheable length",
    );
    const code = [...root.querySelectorAll('[data-testid="diagnostics"] code')].map((c) => c.textContent);
    expect(code).toContain('x');
    await act(() => {
      (moot.querySelector('[data-testid="diag-view"]') as HTMLElement).click();
    });
    expect(onView).toHaveBeenCalledWith('conversation');
  });

  it("shows a tool's diagnostic once: in the panel, and under its editor only a link there", async () => {
    const api: Api = fakeApi({ stat: async () => ({ modified_ms: 0, size: 0 }) });
    const s = new Session(api);
    s.rules = RULES as Rules;
    await s.load(DEFAULT, null, false);
    const RAISED: Diagnostic = {
      level: 'error',
      code: 'tool_raised',
      message: "tf_notes's template failed to render: UndefinedError: 'nope' is undefined",
      tool: 'tf_notes',
    };
    const path = 'tools[0].format_2_prompt.source';
    const validate: ValidateResponse = {
      load_error: null,
      templates: [
        {
          path: `${path}.templates.default`,
          locale: 'default',
          engine: 'jinja2',
          error: { kind: 'render', message: "UndefinedError: 'nope' is undefined", line: 1, column: 3 },
        } as ValidateResponse['templates'][number],
      ],
      tools: [],
    };
    s.reports = { chat: report('chat', [RAISED]), desk: report('desk', [RAISED]), validate, text: s.text };
    await act(() => {
      render(h(App, { session: s }), root);
    });
    await act(() => {
      (root.querySelector('[data-testid="tool-tf_notes"], [data-tool="tf_notes"]') as HTMLElement | null)?.click();
    });
    const detail = root.querySelector('[data-testid="tool-detail"]')!;
    expect(detail.querySelector('h3')!.textContent).toBe('tf_notes');
    const said = (el: Element) => el.textContent!.split("'nope' is undefined").length - 1;
    expect(said(root.querySelector('aside.right')!)).toBe(1);
    expect(said(detail)).toBe(0);
    const link = detail.querySelector('[data-testid="problems-link"]')!;
    expect(link.textContent).toContain('1 error about tf_notes');
  });
});

const model = (id: string): ModelInfo => ({
  id,
  provider: id.split('/')[0],
  names: [id.split('/')[1]],
  default: false,
  prices_per_mtok: { input: 1, cached_input: 0.1, cache_write: [], output: 4 },
  cache: { min_tokens: 1024, growth: 'units', unit_tokens: 128, ttl: ['in_memory'], writes_charged: false, summary: '' },
  sources: [],
});
const GPT = model('openai/gpt-5');
const SONNET = model('anthropic/claude-sonnet-4-5');
const GEMINI = model('google/gemini-2.5-flash');

describe('one model choice for the bodies and the prices', () => {
  it('builds the chat body for the picked model’s provider, none for a provider without one', async () => {
    const s = new Session(fakeApi({}));
    s.models = [GPT, SONNET, GEMINI];
    s.model = SONNET.id;
    expect(s.provider).toBe(null); // the body is not shown yet
    s.chatBody = true;
    expect(s.provider).toBe('anthropic');
    expect(s.liveOptions.provider).toBe('anthropic');
    s.model = GPT.id;
    expect(s.liveOptions.provider).toBe('openai');
    s.model = GEMINI.id;
    expect(s.provider).toBe(null);
  });

  it('names the picked model in the chat body only once the body is that provider’s', async () => {
    const s = new Session(fakeApi({ stat: async () => ({ modified_ms: 0, size: 0 }) }));
    s.rules = RULES as Rules;
    await s.load(DEFAULT, null, false);
    s.models = [GPT, SONNET];
    s.model = SONNET.id;
    s.chatBody = true;
    const chat = report('chat', [], { request: { model: 'gpt-4.1', messages: [] } });
    const board = () =>
      h(Segments, {
        chat,
        desk: report('desk', []),
        rules: s.rules,
        palette: new Map(),
        adapter: 'openai_desk',
        setAdapter: () => {},
        provider: s.provider,
        session: s,
        onSelectTool: () => {},
        selectedTool: null,
        model: s.model,
      });
    s.reportsProvider = 'openai'; // the answer to the render before the model changed
    await act(() => {
      render(board(), root);
    });
    await act(() => {
      (root.querySelector('[data-testid="chat-messages"]') as HTMLElement).click();
    });
    expect(root.querySelector('[aria-label="chat request body"]')).toBe(null);
    expect(root.textContent).toContain('building the body for anthropic/claude-sonnet-4-5');
    s.reportsProvider = 'anthropic';
    await act(() => {
      render(board(), root);
    });
    expect(root.querySelector('[aria-label="chat request body"]')!.textContent).toContain('"model": "claude-sonnet-4-5"');
  });

  it('builds the desk body for the picked model, or a previewed adapter', () => {
    const scene = { adapter: 'openai_desk', model: null };
    expect(deskBody(scene, GPT, null)).toEqual({ adapter: 'openai_desk', model: 'gpt-5', scenes: false, priced: true });
    expect(deskBody(scene, SONNET, null)).toEqual({ adapter: 'claude_desk', model: 'claude-sonnet-4-5', scenes: false, priced: true });
    expect(deskBody(scene, null, null)).toEqual({ adapter: 'openai_desk', model: null, scenes: true, priced: false });
    expect(deskBody(scene, GPT, 'ollama_desk')).toEqual({ adapter: 'ollama_desk', model: null, scenes: false, priced: false });
    expect(deskBody({ adapter: 'claude_desk', model: 'claude-sonnet-4-5' }, SONNET, null).scenes).toBe(true);
  });
});

describe('previewing an adapter', () => {
  it('leaves the scene unchanged; Use in the scene writes it', async () => {
    const rendered: string[] = [];
    const api = fakeApi({
      stat: async () => ({ modified_ms: 0, size: 0 }),
      render: async (text: string, o: RenderOptions) => {
        rendered.push(text);
        return report(o.llm, [], {
          request: { model: JSON.parse(text).desk_llm.model ?? 'default', via: JSON.parse(text).desk_llm.adapter },
        });
      },
    });
    const s = new Session(api);
    s.rules = RULES as Rules;
    await s.load(DEFAULT, null, false);
    s.models = [GPT, SONNET];
    s.model = GPT.id;
    s.reports = {
      chat: report('chat', []),
      desk: report('desk', [], { request: { model: 'scene' } }),
      validate: { load_error: null, templates: [], tools: [] },
      text: s.text,
    };
    const text = s.text;
    const board = () =>
      h(Segments, {
        chat: s.reports!.chat,
        desk: s.reports!.desk,
        rules: s.rules,
        palette: new Map(),
        adapter: sceneDesk(s.scene).adapter,
        setAdapter: () => {},
        provider: s.provider,
        session: s,
        onSelectTool: () => {},
        selectedTool: null,
        model: s.model,
      });
    s.subscribe(() => render(board(), root));
    await act(() => {
      render(board(), root);
    });
    await act(() => {
      (root.querySelector('[data-testid="desk-request"]') as HTMLElement).click();
    });
    const select = root.querySelector('[data-testid="desk-adapter"]') as HTMLSelectElement;
    await act(async () => {
      select.value = 'claude_desk';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 250));
    });
    expect(s.previewAdapter).toBe('claude_desk');
    expect(s.dirty).toBe(false);
    expect(s.text).toBe(text);
    expect(JSON.parse(rendered.at(-1)!).desk_llm.adapter).toBe('claude_desk');
    expect(root.querySelector('[data-testid="request-body"]')!.textContent).toContain('"via": "claude_desk"');
    await act(() => {
      (root.querySelector('[data-testid="desk-write"]') as HTMLElement).click();
    });
    expect(s.dirty).toBe(true);
    expect(sceneDesk(s.scene).adapter).toBe('claude_desk');
    expect(s.previewAdapter).toBe(null);
  });
});

describe("the scene's own words and what it uses", () => {
  it("reads an import's name, description and lists", () => {
    const about = sceneAbout(parseScene(IMPORTED));
    expect(about.lead).toBe('Imported from an Anthropic Messages request body (code-review.json).');
    expect(about.lists.map((l) => [l.title, l.items.length, l.note])).toEqual([
      ['Origins', 9, ''],
      ['Kept in recorded.carried (sent again where they were, not shown as prompts)', 1, ''],
      ['Not mapped', 0, 'nothing.'],
    ]);
    expect(about.lists[0].items[0]).toBe('chat_llm.system_msg_prompt[0] ← /system/0');
  });

  it('tells a family the scene does not use, and a run-only scene', () => {
    const imported = parseScene(IMPORTED);
    expect(familyUsed(imported, 'chat')).toBe(true);
    expect(familyUsed(imported, 'desk')).toBe(false);
    const def = parseScene(DEFAULT);
    expect(familyUsed(def, 'desk')).toBe(true);
    expect(runOnly(def)).toBe(false);
    const run = parseScene(RUN_ONLY);
    expect(runOnly(run)).toBe(true);
    expect(familyUsed(run, 'chat')).toBe(false);
  });
});

describe('messages and bodies', () => {
  it('shows text parts as text, images named, and tool calls as calls', async () => {
    await act(() => {
      render(
        h('div', null, [
          h(MessageCard, {
            m: {
              role: 'tool',
              tool_call_id: 'call_1',
              content: [
                { type: 'text', text: 'Page 1' },
                { type: 'image', path: 'screens/page1.png' },
              ],
            },
          }),
          h(MessageCard, {
            m: {
              role: 'assistant',
              content: '',
              tool_calls: [{ id: 'c2', type: 'function', function: { name: 'Shell', arguments: { command: 'ls' } } }],
            },
          }),
        ]),
        root,
      );
    });
    const [tool, asst] = [...root.querySelectorAll('.msg')];
    expect(tool.querySelector('pre')!.textContent).toBe('Page 1');
    expect(tool.textContent).not.toContain('"type"');
    expect(tool.querySelector('.msg-image')!.textContent).toBe('image: screens/page1.png');
    expect(asst.querySelector('.run-call-name')!.textContent).toBe('Shell');
    expect(asst.querySelector('.run-call-args')!.textContent).toBe('{"command":"ls"}');
  });

  it("names the user message's source as the board's reformat card does", () => {
    const seg = (text: string) =>
      report('chat', [], { segments: [{ name: 'reformat_input_prompt', legal: false, text, bytes: text.length, pieces: [] }] });
    const m = { role: 'user', content: 'hi', segment: 'reformat_input_prompt' };
    expect(messageSource(m, seg(''))).toBe("context.user_input.input (the user's input, sent as is)");
    expect(messageSource(m, seg('Rewritten'))).toBe("reformat_input_prompt (in place of the user's input)");
  });

  it('colours a JSON line by kind', () => {
    expect(jsonTokens('  "model": "gpt-5",').map((t) => [t.text, t.kind])).toEqual([
      ['  ', null],
      ['"model"', 'key'],
      [':', null],
      [' ', null],
      ['"gpt-5"', 'string'],
      [',', null],
    ]);
    expect(
      jsonTokens('  "n": -1.5e3, "ok": true, "x": null')
        .filter((t) => t.kind)
        .map((t) => t.kind),
    ).toEqual(['key', 'number', 'key', 'literal', 'key', 'literal']);
    expect(jsonTokens('"a \\"q\\" 12"').map((t) => t.kind)).toEqual(['string']);
  });
});
