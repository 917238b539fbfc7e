// Colour is never the only signal: every status the UI colours (a tool's status in a family, a
// replayed scene's status, a diagnostic's severity, a forbidden segment, a diff row, a locale with
// an error) also says so in text, and every piece on the board, coloured by its source, is
// labelled with that source where it starts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { CheckScene, Diagnostic, DiagnosticCode, Report, Rules, ToolStatus, ValidateResponse } from '../src/api/types';
import { parseJson } from '../src/lib/json';
import { configuredPrompt, parseScene, promptTemplate } from '../src/lib/scene';
import { Session } from '../src/lib/session';
import { DiagnosticsList } from '../src/views/Context';
import { DiffSign, StatusChip as CheckChip } from '../src/views/Replay';
import { Segments, pieceLines } from '../src/views/Segments';
import { TemplateEditor } from '../src/views/TemplateEditor';
import { DiagLine, STATUS_LABEL, StatusChip } from '../src/views/common';
import { fakeApi } from './fake-api';

import DEFAULT from '../../fixtures/default.scene.json?raw';
// The stylesheet as text (vitest.config.ts lets this one CSS file through).
import CSS from '../src/style.css?raw';
import { dropRoot, freshRoot } from './root';

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));
const show = (vnode: Parameters<typeof render>[0]) => act(() => render(vnode, root));
/** The text a screen reader reads: everything but what is hidden from it. */
const spoken = (el: Element): string => {
  const copy = el.cloneNode(true) as Element;
  for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
  return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
};

describe('tool statuses', () => {
  // Every status of the core's report (bindings.ts `Status`), in the words the chips show.
  const WORDS: Record<ToolStatus, string> = {
    injected: 'injected',
    rendered_empty: 'rendered empty',
    empty: 'empty',
    silent: 'silent',
    undeclared: 'undeclared',
    invalid: 'invalid',
    error: 'error',
    protocol_error: 'protocol error',
  };
  it('has words for every status the core reports', () => {
    expect(Object.keys(STATUS_LABEL).sort()).toEqual(Object.keys(WORDS).sort());
  });
  for (const [status, words] of Object.entries(WORDS) as [ToolStatus, string][])
    it(`a ${status} chip says "${words}" next to its family`, () => {
      show(h(StatusChip, { family: 'desk', status }));
      const chip = root.querySelector('.chip')!;
      expect(chip.classList.contains(`chip-${status}`)).toBe(true);
      expect(spoken(chip)).toBe(`desk ${words}`);
    });
  it('a family the tool is absent from says so with a dash, not a grey chip alone', () => {
    show(h(StatusChip, { family: 'chat' }));
    expect(spoken(root.querySelector('.chip')!)).toBe('chat –');
  });
});

describe('replayed scenes', () => {
  const WORDS: [CheckScene['status'], string, string][] = [
    ['ok', '✓', 'matches'],
    ['mismatch', '≠', 'mismatch'],
    ['missing_golden', '?', 'missing golden'],
    ['unreadable', '!', 'unreadable'],
  ];
  for (const [status, sign, words] of WORDS)
    it(`${status}: a sign and a word, the word read aloud`, () => {
      show(h(CheckChip, { status }));
      const chip = root.querySelector('.chip')!;
      expect(chip.textContent).toBe(`${sign} ${words}`);
      expect(spoken(chip)).toBe(words);
    });
  it('each row of the side-by-side diff says what changed', () => {
    const rows: [Parameters<typeof DiffSign>[0]['kind'], string, string][] = [
      ['same', '', 'unchanged'],
      ['changed', '~', 'changed'],
      ['del', '−', 'only in the golden'],
      ['add', '+', 'only now'],
    ];
    for (const [kind, sign, words] of rows) {
      show(h('table', null, h('tbody', null, h('tr', null, h(DiffSign, { kind })))));
      const cell = root.querySelector('td')!;
      expect(cell.querySelector('[aria-hidden="true"]')!.textContent).toBe(sign);
      expect(spoken(cell)).toBe(words);
    }
  });
});

describe('diagnostics', () => {
  const levels: Diagnostic['level'][] = ['error', 'warning', 'info'];
  // A code of each level (docs/diagnostics.md); the only `info` ones are the cache-safety lint's.
  const CODE_OF: Record<Diagnostic['level'], DiagnosticCode> = {
    error: 'tool_invalid',
    warning: 'tool_duplicate',
    info: 'cache_below_minimum',
  };
  it('a diagnostic line names its severity', () => {
    for (const level of levels) {
      show(h(DiagLine, { d: { level, code: CODE_OF[level], message: 'what happened' } }));
      expect(spoken(root.querySelector(`.diag-${level}`)!)).toBe(`${level} ${CODE_OF[level]}: what happened`);
    }
  });
  it('the diagnostics panel names each severity', () => {
    const report = (llm: 'chat' | 'desk', diagnostics: Diagnostic[]): Report => ({
      llm,
      segments: [],
      tools: [],
      diagnostics,
      metrics: { tools_total: 0, tools_rendered: 0, bytes: 0, positions: {} },
    });
    const chat = report(
      'chat',
      levels.map((level) => ({ level, code: CODE_OF[level], message: `a ${level}` })),
    );
    show(h(DiagnosticsList, { reports: { chat, desk: report('desk', []) }, onTemplate: () => {}, onSegment: () => {} }));
    const items = [...root.querySelectorAll('[data-testid="diagnostics"] li')];
    expect(items.map((li) => li.querySelector('.level')!.textContent)).toEqual(['error', 'warning', 'info']);
  });
});

describe('the board', () => {
  const RULES: Rules = {
    segments: [
      {
        name: 'system_msg_prompt',
        label: 'system message',
        family: 'chat',
        order: 0,
        legal: true,
        configured: true,
        purpose: 'System',
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
        reason: 'Tools must not write there.',
      },
    ],
    rules: [
      {
        id: 'iron_rule_1',
        title: 'Iron rule 1: user intent',
        short: "user's words",
        holds: "The user's input.",
        reason: 'Tools must not write there.',
        segments: [],
      },
    ],
    system_side: 'System-side prompt lists.',
    adapters: [],
  };
  // "You are X.\n" (config 0), "- a\n- b" (tf_notes, over two lines), "\n", "Memo" (chat_memo).
  const text = 'You are X.\n- a\n- b\nMemo';
  const chat: Report = {
    llm: 'chat',
    segments: [
      {
        name: 'system_msg_prompt',
        legal: true,
        text,
        bytes: text.length,
        pieces: [
          { source: 'config', index: 0, text: 'You are X.', range: [0, 10] },
          { source: 'tool', tool: 'tf_notes', text: '- a\n- b', range: [11, 18] },
          { source: 'tool', tool: 'chat_memo', text: 'Memo', range: [19, 23] },
        ],
      },
      { name: 'reformat_input_prompt', legal: false, rule: 'iron_rule_1', text: '', bytes: 0, pieces: [] },
    ],
    tools: [],
    diagnostics: [],
    metrics: { tools_total: 2, tools_rendered: 2, bytes: 11, positions: {} },
  };
  const board = () =>
    show(
      h(Segments, {
        chat,
        desk: null,
        rules: RULES,
        palette: new Map([
          ['tf_notes', 'hsl(28 75% 84%)'],
          ['chat_memo', 'hsl(140 75% 84%)'],
        ]),
        adapter: 'openai_desk',
        setAdapter: () => {},
        provider: null,
        onSelectTool: () => {},
        selectedTool: null,
      }),
    );

  it('labels each piece with its source where it starts, once, even when it spans lines', () => {
    board();
    const card = root.querySelector('[data-testid="seg-chat-system_msg_prompt"]')!;
    const starts = [...card.querySelectorAll('.piece-start')].map((p) => [p.getAttribute('data-source'), p.textContent]);
    expect(starts).toEqual([
      ['configured prompt 0', 'You are X.'],
      ['tf_notes', '- a\n'],
      ['chat_memo', 'Memo'],
    ]);
    // tf_notes' second line continues its piece: coloured, not labelled again.
    const pieces = [...card.querySelectorAll('.piece')];
    expect(pieces.map((p) => p.textContent)).toEqual(['You are X.', '- a\n', '- b', 'Memo']);
    expect(pieces.filter((p) => !p.classList.contains('piece-start')).map((p) => p.textContent)).toEqual(['- b']);
    // The label is drawn by the stylesheet from the attribute, so the segment's text is unchanged.
    expect(card.querySelector('.seg-text')!.textContent).toBe(text);
    expect(CSS).toMatch(/\.piece-start::before\s*\{[^}]*content:\s*attr\(data-source\)/);
  });

  it('pieceLines marks a piece that starts on a line of its own after a seam', () => {
    const lines = pieceLines(chat.segments[0]);
    expect(lines.map((l) => l.map((r) => `${r.start ? '^' : ''}${r.text}`))).toEqual([
      ['^You are X.', '\n'],
      ['^- a\n'],
      ['- b', '\n'],
      ['^Memo'],
    ]);
  });

  it('the view toggles say which view is on, not only by their fill', () => {
    board();
    const chatToggle = root.querySelector('[role="group"][aria-label="Chat view"]')!;
    expect([...chatToggle.querySelectorAll('button')].map((b) => `${b.textContent} ${b.getAttribute('aria-pressed')}`)).toEqual([
      'Segments true',
      'Messages false',
    ]);
  });

  it('a forbidden segment says so in words, with its rule', () => {
    board();
    const badge = root.querySelector('[data-testid="forbidden-chat-reformat_input_prompt"]')!;
    expect(spoken(badge.querySelector('summary')!)).toContain('forbidden to tools · Iron rule 1: user intent');
  });
});

describe('template locales', () => {
  it('a locale with an error says so in its tab, not only in red', () => {
    const s = new Session(fakeApi({}));
    s.scene = parseScene(DEFAULT);
    const spec = promptTemplate(configuredPrompt(s.scene, { segment: 'system_msg_prompt', index: 0 })!)!;
    spec.set('templates', parseJson('{"default": "a {", "zh": "甲"}'));
    const path = 'chat_llm.system_msg_prompt[0].template';
    const check = (locale: string, error: boolean): ValidateResponse['templates'][number] => ({
      path: `${path}.templates.${locale}`,
      owner: 'config',
      tool: null,
      segment: 'system_msg_prompt',
      engine: 'fstring',
      locale,
      span: [0, 0],
      error: error ? { kind: 'ValueError', message: 'unclosed {' } : null,
    });
    s.reports = { validate: { templates: [check('default', true), check('zh', false)], tools: [] } } as unknown as Session['reports'];
    show(h(TemplateEditor, { session: s, spec, path, label: 'system prompt', testId: 'prompt-editor' }));
    const tabs = [...root.querySelectorAll('[role="tab"]')];
    expect(tabs.map((t) => t.querySelector('[role="img"][aria-label="(has an error)"]') !== null)).toEqual([true, false]);
    expect(tabs.map((t) => t.textContent?.trim())).toEqual(['default ● !', 'zh']);
    // The tab list holds only tabs; the add and remove buttons sit beside it.
    const list = root.querySelector('[role="tablist"]')!;
    expect([...list.children].every((c) => c.getAttribute('role') === 'tab')).toBe(true);
    expect(root.querySelector('button[aria-label="Add a locale"]')!.closest('[role="tablist"]')).toBe(null);
  });
});
