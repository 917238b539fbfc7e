// The board says what is true: the reformat card shows the user message it yields, an invalid
// tool's chips say why neither family renders it, forbidden reasons read whole, the injection
// metrics use the CLI's words, long paths are shortened, log durations rounded, and no UI text
// cites the design documents users do not have.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Api } from '../src/api/api';
import type { Report, Rules, ToolValidity, ValidateResponse } from '../src/api/types';
import { Session } from '../src/lib/session';
import { MetricsTable } from '../src/views/Context';
import { Segments, reformatSent } from '../src/views/Segments';
import { ToolsPanel, definitionLabel } from '../src/views/Tools';
import { shortPath as shortPathIn } from '../src/lib/paths';
import { StatusChip, invalidWhy, roundDurations, ruleShort } from '../src/views/common';

const shortPath = (p: string) => shortPathIn(p, null, 48);

import DEFAULT from '../../fixtures/default.scene.json?raw';
import INDEX_HTML from '../index.html?raw';
import { dropRoot, freshRoot } from './root';

// Every source file of the UI, as text (Vite reads them at test time).
const SOURCES = import.meta.glob<string>('../src/**/*.{ts,tsx,css}', { query: '?raw', import: 'default', eager: true });
const PUBLIC = import.meta.glob<string>('../public/*', { query: '?raw', import: 'default', eager: true });
const REASON =
  "Tools must not write where the user's own words, the task's purpose or the last behavioural instruction are expressed. A tool bug there silently rewrites what the user asked for, and the model acts on an intent nobody can trace back.";
const RULES: Rules = {
  segments: [
    {
      name: 'system_msg_prompt',
      label: 'system message',
      family: 'chat',
      order: 0,
      legal: true,
      configured: true,
      purpose: 'System message',
      cached_prefix: true,
    },
    {
      name: 'reformat_input_prompt',
      label: "the user's input",
      family: 'chat',
      order: 3,
      legal: false,
      configured: true,
      cached_prefix: true,
      purpose: 'The user message',
      rule: 'iron_rule_1',
      reason: REASON,
    },
    {
      name: 'purpose_prompt',
      label: "the task's purpose",
      family: 'desk',
      order: 5,
      legal: false,
      configured: true,
      cached_prefix: false,
      purpose: 'The task',
      rule: 'iron_rule_1',
      reason: REASON,
    },
  ],
  rules: [
    {
      id: 'iron_rule_1',
      title: 'Iron rule 1: user intent (铁律 1：用户意图表达位)',
      short: "user's words",
      holds: "The user's input.",
      reason: REASON,
      segments: ['reformat_input_prompt', 'purpose_prompt', 'prefix_prompt'],
    },
  ],
  system_side: 'System-side prompt lists.',
  adapters: [],
};
// As `prompt-inspector render fixtures/default.scene.json --format json` and validate answer.
const GOAL_REWRITER: ToolValidity = {
  index: 2,
  name: 'goal_rewriter',
  valid: false,
  exception: 'ValueError',
  reason: 'iron_rule_1',
  rule: 'iron_rule_1',
  rule_reason: REASON,
  family: 'desk',
  message: `goal_rewriter.prompt_position[1]="purpose_prompt" is not a legal DeskLLM position: iron_rule_1 (Iron rule 1: user intent (铁律 1：用户意图表达位)). ${REASON}`,
};

function chatReport(reformatText: string, userMessage: string | null): Report {
  return {
    llm: 'chat',
    messages: [
      { role: 'system', content: 'You are X.', segment: 'system_msg_prompt' },
      ...(userMessage === null ? [] : [{ role: 'user', content: userMessage, segment: 'reformat_input_prompt' }]),
    ],
    segments: [
      {
        name: 'system_msg_prompt',
        legal: true,
        text: 'You are X.',
        bytes: 10,
        pieces: [{ source: 'config', index: 0, text: 'You are X.', range: [0, 10] }],
      },
      {
        name: 'reformat_input_prompt',
        legal: false,
        rule: 'iron_rule_1',
        text: reformatText,
        bytes: reformatText.length,
        pieces: reformatText ? [{ source: 'config', index: 0, text: reformatText, range: [0, reformatText.length] }] : [],
      },
    ],
    tools: [
      { name: 'tf_notes', status: 'injected', position: 'system_msg_prompt' },
      { name: 'chat_memo', status: 'injected' },
      { name: 'goal_rewriter', status: 'invalid', position: 'before_input_msg_prompt' },
    ],
    diagnostics: [{ level: 'error', code: 'tool_invalid', message: `ValueError: ${GOAL_REWRITER.message}`, tool: 'goal_rewriter' }],
    metrics: { tools_total: 2, tools_rendered: 2, bytes: 188, positions: { system_msg_prompt: 1, after_input_msg_prompt: 1 } },
  };
}
const deskReport = (): Report => ({
  llm: 'desk',
  segments: [],
  tools: [
    { name: 'tf_notes', status: 'injected' },
    { name: 'chat_memo', status: 'silent' },
    { name: 'goal_rewriter', status: 'invalid', position: 'purpose_prompt' },
  ],
  diagnostics: [],
  metrics: { tools_total: 2, tools_rendered: 1, bytes: 146, positions: { system_prompt: 1 } },
});

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));

const board = (chat: Report, configured = false) =>
  act(() => {
    render(
      h(Segments, {
        chat,
        desk: deskReport(),
        rules: RULES,
        palette: new Map(),
        adapter: 'openai_desk',
        setAdapter: () => {},
        provider: null,
        onSelectTool: () => {},
        selectedTool: null,
        hasConfigured: (f: string, s: string) => configured && f === 'chat' && s === 'reformat_input_prompt',
      }),
      root,
    );
  });
const card = () => root.querySelector('[data-testid="seg-chat-reformat_input_prompt"]') as HTMLElement;

describe('the reformat card shows the user message it yields', () => {
  it('reads the user message tagged reformat_input_prompt from the report', () => {
    expect(reformatSent(chatReport('', '你刚才记了什么？'))).toBe('你刚才记了什么？');
    expect(reformatSent(chatReport('', null))).toBe(null);
    expect(reformatSent(null)).toBe(null);
  });
  it('no reformat prompt: the user input, sent as is, not "empty"', async () => {
    await board(chatReport('', '你刚才记了什么？'));
    const sent = card().querySelector('[data-testid="reformat-sent"]')!;
    expect(sent.textContent).toContain("no reformat prompt configured: the user's input is sent as is");
    expect(sent.querySelector('pre')!.textContent).toBe('你刚才记了什么？');
    expect(card().querySelector('.empty-seg')).toBe(null);
  });
  it('a configured prompt that rendered empty says so', async () => {
    await board(chatReport('', 'the input'), true);
    expect(card().textContent).toContain("the reformat prompt rendered empty: the user's input is sent as is");
  });
  it('a rendered prompt is the user message; with neither, no message is sent', async () => {
    await board(chatReport('Rewritten: the input', 'Rewritten: the input'), true);
    expect(card().querySelector('.seg-text')!.textContent).toBe('Rewritten: the input');
    expect(card().textContent).toContain('sent as the user message');
    await board(chatReport('', null));
    expect(card().querySelector('[data-testid="reformat-none"]')!.textContent).toContain('no user message is sent');
  });
  it('other empty segments still say empty', async () => {
    const r = chatReport('', 'x');
    r.segments[0] = { ...r.segments[0], text: '', bytes: 0, pieces: [] };
    await board(r);
    expect(root.querySelector('[data-testid="seg-chat-system_msg_prompt"] .empty-seg')!.textContent).toBe('empty');
  });
});

describe('a forbidden reason reads whole', () => {
  it('is a disclosure (keyboard reachable), its whole reason in the summary and the tooltip, and points at docs/rules.md', async () => {
    await board(chatReport('', 'x'));
    const badge = card().querySelector('details.badge-forbidden') as HTMLDetailsElement;
    expect(badge).not.toBe(null);
    const summary = badge.querySelector('summary')!;
    expect(summary.querySelector('.reason')!.textContent).toBe(REASON);
    expect(badge.getAttribute('title')).toContain(REASON);
    expect(badge.textContent).toContain('docs/rules.md');
    // The summary toggles it open (the CSS unclamps the reason when open).
    expect(badge.open).toBe(false);
    await act(() => {
      summary.click();
    });
    expect(badge.open).toBe(true);
  });
});

describe('an invalid tool says why neither family renders it', () => {
  it('names the forbidden side, the rule and "neither family"', () => {
    expect(ruleShort('Iron rule 1: user intent (铁律 1：用户意图表达位)')).toBe('iron rule 1, user intent');
    expect(ruleShort('Architecture boundary: message streams (架构边界)')).toBe('architecture boundary, message streams');
    expect(invalidWhy(GOAL_REWRITER, ['before_input_msg_prompt', 'purpose_prompt'], RULES)).toBe(
      'invalid: desk position purpose_prompt is forbidden (iron rule 1, user intent), so the tool takes part in neither family',
    );
    expect(
      invalidWhy(
        { index: 0, name: 't', valid: false, exception: 'TypeError', reason: 'position_without_override' },
        ['system_msg_prompt', null],
        RULES,
      ),
    ).toContain('does not override _format_2_prompt (TypeError), so the tool takes part in neither family');
    expect(
      invalidWhy({ index: 0, name: 't', valid: false, exception: 'ValueError', reason: 'unknown', family: 'chat' }, ['nope', null], RULES),
    ).toBe('invalid: chat position nope is not a ChatLLM segment, so the tool takes part in neither family');
    expect(invalidWhy({ index: 0, name: 't', valid: true }, null, RULES)).toBe(null);
  });
  it('the chip tooltip carries it', async () => {
    await act(() => {
      render(h(StatusChip, { family: 'chat', status: 'invalid', why: 'invalid: because' }), root);
    });
    expect(root.querySelector('.chip')!.getAttribute('title')).toBe('chat: invalid. invalid: because');
  });
  it("the tool list shows it on goal_rewriter's row and both chips, and tells the call's count from the declaring count", async () => {
    const validate: ValidateResponse = {
      load_error: null,
      templates: [],
      tools: [{ index: 0, name: 'tf_notes', valid: true }, { index: 1, name: 'chat_memo', valid: true }, GOAL_REWRITER],
    };
    const api = { defaultScene: async () => ({ path: null, text: DEFAULT }) } as unknown as Api;
    const s = new Session(api);
    await s.openDefault().catch(() => {});
    s.reports = { chat: chatReport('', 'x'), desk: deskReport(), validate, text: s.text };
    s.rules = RULES;
    await act(() => {
      render(h(ToolsPanel, { session: s, selected: null, onSelect: () => {}, palette: new Map() }), root);
    });
    const row = root.querySelector('[data-testid="tool-goal_rewriter"]')!;
    const why = 'invalid: desk position purpose_prompt is forbidden (iron rule 1, user intent), so the tool takes part in neither family';
    expect(row.querySelector('[data-testid="why-goal_rewriter"]')!.textContent).toBe(why);
    expect(row.querySelector('[data-testid="why-goal_rewriter"]')!.getAttribute('title')).toBe(`ValueError: ${GOAL_REWRITER.message}`);
    expect([...row.querySelectorAll('.chip')].map((c) => c.getAttribute('title'))).toEqual([
      `chat: invalid. ${why}`,
      `desk: invalid. ${why}`,
    ]);
    expect(root.querySelector('[data-testid="why-tf_notes"]')).toBe(null);
    expect(root.querySelector('[data-testid="tools-hint"]')!.textContent).toBe(
      '3 tools in the call, in call order (the tools argument); 2 valid ones declaring a position.',
    );
  });

  it("shows what a recorded schema adds to every request, on that tool's row only", async () => {
    const api = { defaultScene: async () => ({ path: null, text: DEFAULT }) } as unknown as Api;
    const s = new Session(api);
    await s.openDefault().catch(() => {});
    const chat = chatReport('', 'x');
    chat.tools = chat.tools.map((t) => (t.name === 'chat_memo' ? { ...t, definition: { bytes: 296, tokens: 70 } } : t));
    const validate: ValidateResponse = { load_error: null, templates: [], tools: [] };
    s.reports = { chat, desk: deskReport(), validate, text: s.text };
    s.rules = RULES;
    await act(() => {
      render(h(ToolsPanel, { session: s, selected: null, onSelect: () => {}, palette: new Map() }), root);
    });
    expect(root.querySelector('[data-testid="definition-chat_memo"]')!.textContent).toBe('definition 296 B · 70 tokens');
    expect(root.querySelector('[data-testid="definition-tf_notes"]')).toBe(null);
    expect(definitionLabel({ bytes: 12 })).toBe('definition 12 B');
  });
});

describe('injection metrics', () => {
  it("uses the CLI's words, names the positions, and tells the tools in the call from those declaring a position", async () => {
    await act(() => {
      render(
        h(MetricsTable, { chat: chatReport('', 'x').metrics, desk: deskReport().metrics, inCall: 3, invalid: ['goal_rewriter'] }),
        root,
      );
    });
    const table = root.querySelector('table.metrics')!;
    expect(table.getAttribute('aria-label')).toBe('Injection metrics');
    const rows = [...table.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((d) => d.textContent));
    expect(rows).toEqual([
      ['tools in the call', '3', '3'],
      ['tools declaring a position', '2', '2'],
      ['tools that rendered text', '2', '1'],
      ['bytes injected', '188', '146'],
      ['tools injected per position'],
      ['system_msg_prompt', '1', ''],
      ['after_input_msg_prompt', '1', ''],
      ['system_prompt', '', '1'],
    ]);
    expect(root.querySelector('[data-testid="metrics-note"]')!.textContent).toContain(
      'goal_rewriter (invalid, so it takes part in neither family)',
    );
  });
});

describe('paths and log lines', () => {
  it('shortens a long path in the middle, the file name kept whole; a short one is left alone', () => {
    expect(shortPath('/tmp/a.scene.json')).toBe('/tmp/a.scene.json');
    const long = '/home/someone/projects/prompt-inspector/very/deep/folder/of/scenes/demo.scene.json';
    const s = shortPath(long);
    expect(s.length).toBeLessThanOrEqual(48);
    expect(s.endsWith('/demo.scene.json')).toBe(true);
    expect(s.startsWith('/home/')).toBe(true);
    expect(s).toContain('…');
    expect(
      shortPath('C:\\Users\\someone\\projects\\prompt-inspector\\deep\\folder\\scenes\\demo.scene.json').endsWith('\\demo.scene.json'),
    ).toBe(true);
    const name = `${'x'.repeat(60)}.json`;
    expect(shortPath(`/a/${name}`).length).toBe(48);
  });
  it('rounds durations in log lines', () => {
    expect(roundDurations('operation done operation=render ms=3.4172999')).toBe('operation done operation=render 3.4 ms');
    expect(roundDurations('live edit core_ms=12.04999 doc=3')).toBe('live edit core_ms=12.0 ms doc=3');
    expect(roundDurations('close time.busy=3.4172999ms time.idle=215.5501ms')).toBe('close time.busy=3.4 ms time.idle=216 ms');
    expect(roundDurations('items=3 version 1.25')).toBe('items=3 version 1.25');
  });
});

describe('the page', () => {
  it('has a favicon that ships with the UI (no request the server answers 404)', () => {
    const m = /<link rel="icon"[^>]*href="\.\/([^"]+)"/.exec(INDEX_HTML);
    expect(m).not.toBe(null);
    expect(PUBLIC[`../public/${m![1]}`]).toContain('<svg');
  });
});

describe('UI text cites no design document users do not have', () => {
  // Run.tsx and Replay.tsx are checked with their own views; bindings.ts is generated.
  const skip = /\/(Run\.tsx|Replay\.tsx|bindings\.ts)$/;
  it('no "seed 000", "§7", "contract §" or "PRD v7" outside comments', () => {
    const files = Object.keys(SOURCES).filter((f) => !skip.test(f));
    expect(files.some((f) => f.endsWith('/views/Context.tsx'))).toBe(true);
    const bad: string[] = [];
    for (const f of files) {
      // Comments are for developers; everything else may reach the screen.
      const code = SOURCES[f].replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
      for (const re of [/seed[ -]?0\d\d/i, /§\s*\d/, /contract\s*§/i, /PRD v\d/i]) {
        const hit = re.exec(code);
        if (hit) bad.push(`${f}: ${hit[0]}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
