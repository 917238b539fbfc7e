// Costs on the picked model and the diagnostics panel's links: the board's, the Tools view's and
// the Run view's figures come from the report's `costs` and `models` (the core's prices), the
// picker starts on the remembered or the table's first default row, the cache-safety lint's
// findings have a heading of their own, and a diagnostic's link opens its template at its line.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { EditorView } from '@codemirror/view';
import type { Api } from '../src/api/api';
import type { Diagnostic, InputCost, ModelInfo, Report, Rules, RunReport, ValidateResponse } from '../src/api/types';
import {
  fmtUsd,
  initialModel,
  modelGroups,
  pieceFigures,
  prefixSentence,
  prefixShares,
  rememberModel,
  rememberedModel,
} from '../src/lib/costs';
import { diagnosticLists, targetLabel, templateTarget } from '../src/lib/diagnostics';
import { Session } from '../src/lib/session';
import { App } from '../src/app';
import { DiagnosticsList } from '../src/views/Context';
import { RunReportView } from '../src/views/Run';
import { Segments } from '../src/views/Segments';
import { ToolsPanel } from '../src/views/Tools';
import { fakeApi } from './fake-api';

import DEFAULT from '../../fixtures/default.scene.json?raw';
import RULES from '../../fixtures/rules.json';
import CD2 from '../../fixtures/run/cd-round-2.golden.json?raw';
import { dropRoot, freshRoot } from './root';

const model = (id: string, input: number, isDefault = false): ModelInfo => ({
  id,
  provider: id.split('/')[0],
  names: [id.split('/')[1]],
  default: isDefault,
  prices_per_mtok: { input, cached_input: input / 10, cache_write: [], output: input * 4 },
  cache: {
    min_tokens: 1024,
    growth: 'units',
    unit_tokens: 128,
    ttl: ['in_memory'],
    writes_charged: false,
    summary: 'units of 128, from 1024 tokens',
  },
  sources: [{ url: 'https://example.com', read: '2026-12-01' }],
});
const MODELS = [model('openai/gpt-4.1', 2), model('openai/gpt-5', 1.25, true), model('anthropic/claude-sonnet-4-5', 3, true)];

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
  localStorage.clear();
});
afterEach(() => dropRoot(root));

describe('cost figures', () => {
  it('reads dollars at a precision that keeps a few tokens from showing as zero', () => {
    expect(fmtUsd(0)).toBe('$0');
    expect(fmtUsd(null)).toBe('$0');
    expect(fmtUsd(0.000034)).toBe('$0.000034');
    expect(fmtUsd(0.0123456)).toBe('$0.0123');
    expect(fmtUsd(12.3456)).toBe('$12.35');
  });

  it("prices a piece's tokens at the report's rate (17 tokens at $2 per million)", () => {
    expect(pieceFigures(17, 2)).toBe('17 tokens · $0.000034');
    expect(pieceFigures(17, undefined)).toBe('17 tokens');
    expect(pieceFigures(undefined, 2)).toBe('');
  });

  it('starts on the remembered model while the table has it, else the first default row', () => {
    expect(initialModel(MODELS, null)).toBe('openai/gpt-5');
    expect(initialModel(MODELS, 'anthropic/claude-sonnet-4-5')).toBe('anthropic/claude-sonnet-4-5');
    expect(initialModel(MODELS, 'acme/gone')).toBe('openai/gpt-5');
    expect(initialModel([model('a/x', 1)], null)).toBe('a/x');
    expect(initialModel([], null)).toBe(null);
    rememberModel('openai/gpt-4.1');
    expect(rememberedModel()).toBe('openai/gpt-4.1');
  });

  it('groups the picker by provider in table order', () => {
    expect(modelGroups(MODELS).map(([p, rows]) => [p, rows.map((m) => m.id)])).toEqual([
      ['openai', ['openai/gpt-4.1', 'openai/gpt-5']],
      ['anthropic', ['anthropic/claude-sonnet-4-5']],
    ]);
  });

  it("splits a request's tokens into read, written and uncached shares, and says so in a sentence", () => {
    const s = prefixShares({
      cache_read_tokens: 1024,
      cache_write_tokens: 512,
      uncached_tokens: 512,
      cost_usd: 0.0012,
      uncached_cost_usd: 0.006,
    });
    expect(s.total).toBe(2048);
    expect(s.pct).toEqual({ read: 50, written: 25, uncached: 25 });
    expect(prefixSentence(s, 2, 'anthropic/claude-sonnet-4-5')).toBe(
      'Request 2 on anthropic/claude-sonnet-4-5: 2048 input tokens, 1024 read from the prompt cache, 512 written to it, 512 uncached; costs $0.001200 ($0.006000 with no caching).',
    );
    expect(
      prefixShares({ cache_read_tokens: 0, cache_write_tokens: 0, uncached_tokens: 0, cost_usd: 0, uncached_cost_usd: 0 }).pct.read,
    ).toBe(0);
  });
});

// A chat report with one segment of a configured prompt and a tool piece, priced by "the core":
// the figures are chosen so that a view computing its own (tokens × rate) would show others.
const TEXT = 'You are X.\n# notes';
const cost = (id: string, rate: number): InputCost => ({
  model: id,
  usd_per_mtok_input: rate,
  input_tokens: 300,
  provenance: { kind: 'exact' },
  content_tokens: 230,
  definition_tokens: 70,
  text_provenance: { kind: 'exact' },
  cost_usd: 0.25,
  prices_read: '2026-12-01',
  price_sources: ['https://example.com/pricing'],
  segments: [{ name: 'system_msg_prompt', tokens: 7, cost_usd: 0.125 }],
  definitions: [{ tool: 'tf_notes', tokens: 70, cost_usd: 0.0625 }],
});
function chatReport(diagnostics: Diagnostic[] = []): Report {
  return {
    llm: 'chat',
    tokenizer: 'o200k_base',
    messages: [],
    segments: [
      {
        name: 'system_msg_prompt',
        legal: true,
        text: TEXT,
        bytes: TEXT.length,
        tokens: 7,
        pieces: [
          { source: 'config', index: 0, text: 'You are X.', range: [0, 10], tokens: 4 },
          { source: 'tool', tool: 'tf_notes', text: '# notes', range: [11, 18], tokens: 2 },
        ],
      },
    ],
    tools: [{ name: 'tf_notes', status: 'injected', position: 'system_msg_prompt', definition: { bytes: 296, tokens: 70 } }],
    diagnostics,
    metrics: { tools_total: 1, tools_rendered: 1, bytes: 7, positions: {} },
    costs: [cost('openai/gpt-5', 1.25), cost('openai/gpt-4.1', 2)],
  } as unknown as Report;
}

describe('the board and the Tools view on the picked model', () => {
  it("shows each card's cost from the core and each piece's at the report's rate", async () => {
    const board = (m: string | null) =>
      act(() => {
        render(
          h(Segments, {
            chat: chatReport(),
            desk: null,
            rules: null,
            palette: new Map(),
            adapter: 'openai_desk',
            setAdapter: () => {},
            provider: null,
            onSelectTool: () => {},
            selectedTool: null,
            model: m,
          }),
          root,
        );
      });
    await board('openai/gpt-4.1');
    const card = root.querySelector('[data-testid="seg-chat-system_msg_prompt"]')!;
    expect(card.querySelector('[data-testid="seg-figures"]')!.textContent).toBe('18 B · 7 tokens · $0.1250');
    expect([...card.querySelectorAll('[data-testid="piece-figure"]')].map((p) => p.textContent)).toEqual([
      'configured prompt 0 4 tokens · $0.000008',
      'tf_notes 2 tokens · $0.000004',
    ]);
    expect((card.querySelector('.piece') as HTMLElement).title).toContain('4 tokens · $0.000008');
    const total = root.querySelector('[data-testid="call-cost-chat"]')!;
    expect(total.textContent).toBe(
      "This call's input: 300 tokens · $0.2500 on openai/gpt-4.1, first call · tokens exact · prices of 2026-12-01 (1 source)",
    );
    expect(total.getAttribute('data-model')).toBe('openai/gpt-4.1');
    // Another model's rate; no model: tokens only.
    await board('openai/gpt-5');
    expect(root.querySelector('[data-testid="piece-figure"]')!.textContent).toBe('configured prompt 0 4 tokens · $0.000005');
    await board(null);
    expect(root.querySelector('[data-testid="seg-figures"]')!.textContent).toBe('18 B · 7 tokens');
    expect(root.querySelector('[data-testid="piece-figure"]')!.textContent).toBe('configured prompt 0 4 tokens');
    expect(root.querySelector('[data-testid="call-cost-chat"]')).toBe(null);
  });

  it("shows a tool definition's tokens and its cost on the picked model", async () => {
    const s = new Session(fakeApi({ defaultScene: async () => ({ path: null, text: DEFAULT }) }));
    await s.load(DEFAULT, null, false);
    const validate: ValidateResponse = { load_error: null, templates: [], tools: [] };
    s.reports = { chat: chatReport(), desk: { ...chatReport(), llm: 'desk' }, validate, text: s.text };
    s.models = MODELS;
    s.model = 'openai/gpt-5';
    await act(() => {
      render(h(ToolsPanel, { session: s, selected: null, onSelect: () => {}, palette: new Map() }), root);
    });
    expect(root.querySelector('[data-testid="definition-tf_notes"]')!.textContent).toBe('definition 296 B · 70 tokens · $0.0625');
  });
});

describe("the Run view's bars", () => {
  const run = (): RunReport => {
    const r = JSON.parse(CD2).run as RunReport;
    // Priced as the core prices a run (`models`), for two models; the figures are made up.
    const calls = r.iterations.map((_, i) => ({
      cache_read_tokens: i * 1024,
      cache_write_tokens: i === 0 ? 1024 : 0,
      uncached_tokens: 200 + i,
      cost_usd: 0.001 * (i + 1),
      uncached_cost_usd: 0.01,
    }));
    const total = {
      uncached_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0.01,
      uncached_cost_usd: 0.04,
      saving_usd: 0.03,
    };
    return {
      ...r,
      models: [
        { model: 'openai/gpt-5', calls: calls.map((c) => ({ ...c, cache_write_tokens: 0 })), total },
        { model: 'anthropic/claude-sonnet-4-5', ttl: '5m', calls, total },
      ],
    } as unknown as RunReport;
  };

  it('draws each request in tokens for the picked model, with its cost and a sentence for screen readers', async () => {
    await act(() => {
      render(h(RunReportView, { report: run(), source: 'test', model: 'anthropic/claude-sonnet-4-5' }), root);
    });
    const bar = root.querySelector('[data-testid="prefix-bar-2"]') as HTMLElement;
    expect(bar.getAttribute('role')).toBe('img');
    expect(bar.getAttribute('aria-label')).toBe(
      'Request 2 on anthropic/claude-sonnet-4-5: 1225 input tokens, 1024 read from the prompt cache, 0 written to it, 201 uncached; costs $0.002000 ($0.0100 with no caching).',
    );
    const widths = (n: number) =>
      [...root.querySelectorAll(`[data-testid="prefix-bar-${n}"] .part`)].map((p) => [p.className, (p as HTMLElement).style.width]);
    expect(widths(2)).toEqual([
      ['part read', `${(100 * 1024) / 1225}%`],
      ['part uncached', `${(100 * 201) / 1225}%`],
    ]);
    expect(widths(1)).toEqual([
      ['part written', `${(100 * 1024) / 1224}%`],
      ['part uncached', `${(100 * 200) / 1224}%`],
    ]);
    expect(root.querySelector('[data-testid="prefix-figures-1"]')!.textContent).toBe(
      ' read 0 ·  written 1024 ·  uncached 200 tokens · $0.001000 ($0.0100 uncached)',
    );
    expect(root.querySelector('.run-legend')!.textContent).toContain('anthropic/claude-sonnet-4-5');
    // Another model, another split.
    await act(() => {
      render(h(RunReportView, { report: run(), source: 'test', model: 'openai/gpt-5' }), root);
    });
    expect(widths(1).map(([c]) => c)).toEqual(['part uncached']);
  });

  it('asks the core to price the run for the picked model, and again when it changes', async () => {
    const asked: (string[] | undefined)[] = [];
    const s = new Session(
      fakeApi({
        run: async (_t, _b, models) => {
          asked.push(models);
          return { report: run(), zero_reads: [], what_if: [] };
        },
      }),
    );
    await s.load(DEFAULT, null, false);
    s.models = MODELS;
    s.model = 'openai/gpt-4.1';
    const { RunView } = await import('../src/views/Run');
    await act(() => {
      render(h(RunView, { session: s }), root);
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    s.setModel('anthropic/claude-sonnet-4-5');
    await act(() => {
      render(h(RunView, { session: s }), root);
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(asked).toEqual([['openai/gpt-4.1'], ['anthropic/claude-sonnet-4-5']]);
    expect(rememberedModel()).toBe('anthropic/claude-sonnet-4-5');
  });
});

describe('the diagnostics panel', () => {
  // The lint's codes (src/inject/lint.rs, landing separately) and today's diagnostics.
  const LINT: Diagnostic = {
    level: 'warning',
    code: 'cache_volatile_value',
    message: 'tf_notes renders a value that changes every call into the cached prefix',
    tool: 'tf_notes',
    segment: 'system_msg_prompt',
    line: 3,
  };
  const PROMPT: Diagnostic = {
    level: 'warning',
    code: 'prompt_render_failed',
    message: "KeyError: 'nope'",
    segment: 'system_msg_prompt',
    prompt: 0,
  };
  const INVALID: Diagnostic = { level: 'error', code: 'tool_invalid', message: 'ValueError: no', tool: 'goal_rewriter' };

  it('lists each diagnostic once, errors first, and says where each link goes', () => {
    const desk = { ...chatReport([INVALID]), llm: 'desk' } as Report;
    const lists = diagnosticLists({ chat: chatReport([LINT, INVALID, PROMPT]), desk });
    expect(lists.shown.map((x) => [x.d.code, x.families])).toEqual([
      ['tool_invalid', ['chat', 'desk']],
      ['cache_volatile_value', ['chat']],
      ['prompt_render_failed', ['chat']],
    ]);
    expect(lists.moot).toEqual([]);
    expect(templateTarget(LINT)).toEqual({ kind: 'tool', tool: 'tf_notes', line: 3 });
    expect(templateTarget(PROMPT)).toEqual({ kind: 'prompt', segment: 'system_msg_prompt', index: 0, line: null });
    expect(templateTarget({ level: 'warning', code: 'conversation_message_invalid', message: 'x' })).toBe(null);
    expect(targetLabel(templateTarget(LINT)!)).toBe('tool tf_notes: template, line 3');
    expect(targetLabel(templateTarget(PROMPT)!)).toBe('configured prompt 0 of system_msg_prompt: template');
  });

  it('tags the cache-safety findings and links each template', async () => {
    const onTemplate = vi.fn();
    await act(() => {
      render(h(DiagnosticsList, { reports: { chat: chatReport([LINT, PROMPT]) }, onTemplate, onSegment: () => {} }), root);
    });
    const items = [...root.querySelectorAll('[data-testid="diagnostics"] > li')];
    expect(items.map((li) => li.querySelector('.diag-kind')?.textContent ?? null)).toEqual(['cache safety', null]);
    expect(root.querySelector('[data-testid="diag-counts"]')!.textContent).toBe('2 warnings');
    const links = [...root.querySelectorAll('[data-testid="diag-template"]')] as HTMLElement[];
    expect(links.map((l) => l.textContent)).toEqual([
      'tool tf_notes: template, line 3',
      'configured prompt 0 of system_msg_prompt: template',
    ]);
    await act(() => {
      links[0].click();
      links[1].click();
    });
    expect(onTemplate.mock.calls.map((c) => c[0])).toEqual([templateTarget(LINT), templateTarget(PROMPT)]);
    // Without diagnostics the panel says so.
    await act(() => {
      render(h(DiagnosticsList, { reports: { chat: chatReport([]) }, onTemplate, onSegment: () => {} }), root);
    });
    expect(root.querySelector('[data-testid="problems"]')!.textContent).toContain('No diagnostics.');
  });

  it("opens the tool's template editor at the diagnostic's line, focused, from the panel's link", async () => {
    const api: Api = fakeApi({
      defaultScene: async () => ({ path: null, text: DEFAULT }),
      stat: async () => ({ modified_ms: 0, size: 0 }),
    });
    const s = new Session(api);
    s.rules = RULES as Rules;
    await s.load(DEFAULT, null, false);
    const validate: ValidateResponse = { load_error: null, templates: [], tools: [] };
    s.reports = { chat: chatReport([LINT, PROMPT]), desk: { ...chatReport(), llm: 'desk' } as Report, validate, text: s.text };
    await act(() => {
      render(h(App, { session: s }), root);
    });
    const link = () => [...root.querySelectorAll('[data-testid="diag-template"]')] as HTMLElement[];
    await act(() => {
      link()[0].click();
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    const editor = root.querySelector('[data-testid="template-editor"]') as HTMLElement;
    expect(root.querySelector('[data-testid="tool-detail"] h3')!.textContent).toBe('tf_notes');
    const view = EditorView.findFromDOM(editor)!;
    const at = view.state.selection.main.head;
    // tf_notes' template (fixtures/default.scene.json): line 3 is the `{% for n in state.notes %}` line.
    expect(view.state.doc.lineAt(at).number).toBe(3);
    expect(view.state.doc.lineAt(at).text.startsWith('{% for n in state.notes %}')).toBe(true);
    expect(view.hasFocus).toBe(true);
    // The configured prompt's link opens the Prompts pane on that prompt's template.
    await act(() => {
      link()[1].click();
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(root.querySelector('[data-testid="prompt-detail"] h3')!.textContent).toBe('configured prompt 0 of system_msg_prompt');
    expect(root.querySelector('[data-testid="prompt-detail"] code')!.textContent).toBe('chat_llm.system_msg_prompt[0]');
    const prompt = EditorView.findFromDOM(root.querySelector('[data-testid="prompt-editor"]') as HTMLElement)!;
    expect(prompt.hasFocus).toBe(true);
    expect(prompt.state.selection.main.head).toBe(0);
  });
});
