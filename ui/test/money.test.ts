// The money question in the Run and Conversation views: zero-read explanations, what-if prices,
// the calls' bars in proportion to their size, the table of requests by cost (sorting), the
// per-1,000-calls figure, and the provenance on the board's cost line.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { ConversationResponse, DiagnosticCode, InputCost, RunReport, ZeroRead } from '../src/api/types';
import {
  barOf,
  callRows,
  causeWords,
  nextSort,
  perThousand,
  provenanceText,
  provenanceTitle,
  sortRows,
  zeroReadSentence,
} from '../src/lib/money';
import { ConversationReport, CostTable } from '../src/views/Conversation';
import { RunReportView } from '../src/views/Run';
import { CallCostNote } from '../src/views/Segments';

import STABLE from '../../fixtures/run/stable-prefix.golden.json?raw';
import { dropRoot, freshRoot } from './root';

const SONNET = 'anthropic/claude-sonnet-4-5';

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));

const zero = (call: number, cause: DiagnosticCode | null, extra: Partial<ZeroRead> = {}): ZeroRead => ({
  call,
  model: SONNET,
  cause,
  why: 'why',
  shared_tokens: 0,
  shared_provenance: { kind: 'exact' },
  missed_usd: 0,
  ...extra,
});

// fixtures/cache/system-notes on claude-sonnet-4-5, as `prompt-inspector cache` prices it: each
// call writes its breakpoints and reads nothing, because tf_notes rewrites the system message.
function systemNotes(): ConversationResponse {
  const call = (tokens: number, cost: number, uncached: number) => ({
    uncached_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: tokens,
    cost_usd: cost,
    uncached_cost_usd: uncached,
  });
  const change = {
    part: 'system' as const,
    byte: 1834,
    written_by: 'tool tf_notes (message 1, system_msg_prompt)',
    tool: 'tf_notes',
  };
  return {
    folder: '/c/system-notes',
    calls: [
      {
        scene: '01.scene.json',
        path: '/c/01.scene.json',
        messages: 4,
        request_bytes: 6496,
        request_tokens: 1260,
        common_prefix_tokens: null,
        change: null,
      },
      {
        scene: '02.scene.json',
        path: '/c/02.scene.json',
        messages: 6,
        request_bytes: 6743,
        request_tokens: 1310,
        common_prefix_tokens: 361,
        change,
      },
      {
        scene: '03.scene.json',
        path: '/c/03.scene.json',
        messages: 8,
        request_bytes: 6907,
        request_tokens: 1352,
        common_prefix_tokens: 371,
        change,
      },
    ],
    models: [
      {
        model: SONNET,
        ttl: '5m',
        calls: [call(1260, 0.004725, 0.00378), call(1310, 0.004913, 0.00393), call(1352, 0.00507, 0.004056)],
        total: {
          uncached_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 3922,
          cost_usd: 0.014708,
          uncached_cost_usd: 0.011766,
          saving_usd: -0.002942,
        },
        provenance: { kind: 'estimate', bound_percent: 20 },
        prices_read: '2026-11-20',
        price_sources: ['https://docs.anthropic.com/pricing'],
      },
    ],
    zero_reads: [
      zero(0, null, { why: 'the first call: nothing is cached yet' }),
      zero(1, 'miss_system_changed', {
        why: 'the system message changed at byte 1834 (tool tf_notes (message 1, system_msg_prompt) wrote it)',
        change,
        fix: "move tf_notes's text from system_msg_prompt to after_intermediate_msg_prompt: the what-if saves $0.0087",
        shared_tokens: 361,
        missed_usd: 0.0009747,
      }),
      zero(2, 'miss_system_changed', { change, shared_tokens: 371, missed_usd: 0.0010017 }),
    ],
    what_if: [
      {
        model: SONNET,
        what: "tf_notes's text moved from system_msg_prompt to after_intermediate_msg_prompt",
        tool: 'tf_notes',
        from: 'system_msg_prompt',
        to: 'after_intermediate_msg_prompt',
        cost_usd: 0.014708,
        what_if_usd: 0.006,
        saving_usd: 0.008708,
      },
    ],
    diagnostics: [],
    recorded_totals: null,
    recorded_errors: [],
  } as unknown as ConversationResponse;
}

describe('zero reads', () => {
  it('has words for every cause of the vocabulary', () => {
    // The codes `verify` gives (docs/diagnostics.md); `null` is a first call, which is no miss.
    const causes: (DiagnosticCode | null)[] = [
      null,
      'miss_system_changed',
      'miss_tools_changed',
      'miss_model_changed',
      'miss_messages_rewritten',
      'miss_below_minimum',
      'miss_no_breakpoint',
      'miss_ttl_expired',
      'miss_byte_instability',
      'miss_provider_side',
      'read_warmed_outside',
    ];
    expect(causes.map(causeWords)).toEqual([
      'first call',
      'system changed',
      'tools changed',
      'model changed',
      'messages rewritten',
      "below the model's minimum",
      'no breakpoint after the stable prefix',
      'TTL expired',
      'byte instability',
      'provider side / unknown',
      'warmed outside the recording',
    ]);
    expect(
      zeroReadSentence(
        zero(3, 'miss_no_breakpoint', {
          why: 'no breakpoint ends after them',
          shared_tokens: 1092,
          shared_provenance: { kind: 'estimate', bound_percent: 12 },
          missed_usd: 0.002948,
        }),
      ),
    ).toBe(
      'Reads nothing: no breakpoint after the stable prefix. No breakpoint ends after them. Reading the 1092 shared tokens (estimate ±12%) would cost $0.002948 less.',
    );
  });

  it('puts each explanation under the bar of its round, for the picked model only', async () => {
    const report = JSON.parse(STABLE).run as RunReport;
    const models = [
      {
        model: SONNET,
        calls: report.iterations.map(() => ({
          uncached_tokens: 1,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cost_usd: 0,
          uncached_cost_usd: 0,
        })),
        total: {
          uncached_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cost_usd: 0.01,
          uncached_cost_usd: 0.02,
          saving_usd: 0.01,
        },
      },
    ];
    const zeroReads = [
      zero(0, null, { why: 'the first call: nothing is cached yet' }),
      zero(3, 'miss_no_breakpoint', {
        why: 'no breakpoint ends after them',
        fix: 'a cache_control breakpoint at the end of message 8',
        shared_tokens: 1527,
        missed_usd: 0.004,
      }),
      { ...zero(1, 'miss_below_minimum'), model: 'openai/gpt-5' },
    ];
    const whatIf = [
      {
        model: SONNET,
        what: 'a cache_control breakpoint at the end of every request',
        cost_usd: 0.01,
        what_if_usd: 0.008,
        saving_usd: 0.002,
      },
    ];
    await act(() => {
      render(h(RunReportView, { report: { ...report, models } as RunReport, source: 'test', model: SONNET, zeroReads, whatIf }), root);
    });
    const note = (n: number) => root.querySelector(`[data-testid="zero-read-${n}"]`);
    expect(note(1)?.getAttribute('data-cause')).toBe('first_call');
    expect(note(2)).toBe(null);
    expect(note(4)?.textContent).toContain('Reads nothing from the cache: no breakpoint after the stable prefix.');
    expect(root.querySelector('[data-testid="zero-read-4-fix"]')?.textContent).toBe(
      'Where the fix goes: a cache_control breakpoint at the end of message 8.',
    );
    expect(note(4)?.closest('[data-testid="prefix-4"]')).not.toBe(null);
    expect(note(4)?.getAttribute('role')).toBe('note');
    expect(root.querySelector('[data-testid="run-zero-count"]')?.textContent).toBe(
      `2 of ${report.iterations.length} requests read nothing from the cache; each says why under its bar.`,
    );
    const rows = [...root.querySelectorAll('[data-testid="run-what-if"] tbody tr')].map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual([['a cache_control breakpoint at the end of every request', '$0.0100', '$0.008000', '$0.002000']]);
  });
});

describe('a conversation', () => {
  it('draws each call in proportion to its size, split as it is billed', () => {
    const rows = callRows(systemNotes(), systemNotes().models[0]);
    expect(rows.map((r) => [r.n, r.tokens, r.written, r.cause])).toEqual([
      [1, 1260, 1260, 'first call'],
      [2, 1310, 1310, 'system changed'],
      [3, 1352, 1352, 'system changed'],
    ]);
    expect(barOf(rows[0], 1352)).toEqual({ width: (100 * 1260) / 1352, read: 0, written: 100, uncached: 0 });
    expect(barOf({ ...rows[1], read: 1000, written: 10, uncached: 300 }, 1352).read).toBeCloseTo((100 * 1000) / 1310);
  });

  it('sorts the requests by any column; the same header again reverses it', () => {
    const rows = callRows(systemNotes(), systemNotes().models[0]);
    const sort = { key: 'cost' as const, descending: true };
    expect(sortRows(rows, sort).map((r) => r.n)).toEqual([3, 2, 1]);
    const again = nextSort(sort, 'cost');
    expect(again).toEqual({ key: 'cost', descending: false });
    expect(sortRows(rows, again).map((r) => r.n)).toEqual([1, 2, 3]);
    expect(nextSort(sort, 'scene')).toEqual({ key: 'scene', descending: false });
    expect(nextSort(sort, 'tokens')).toEqual({ key: 'tokens', descending: true });
    // Ties keep the call order.
    expect(sortRows(rows, { key: 'cause', descending: false }).map((r) => r.n)).toEqual([1, 2, 3]);
  });

  it('says what 1,000 calls like these cost', () => {
    expect(perThousand(0.014708, 3)).toBeCloseTo(4.902667, 6);
    expect(perThousand(1, 0)).toBe(0);
  });

  it('shows the bars, the explanations, the per-1,000 figure and the what-if', async () => {
    await act(() => {
      render(h(ConversationReport, { c: systemNotes(), model: SONNET }), root);
    });
    const bar = root.querySelector('[data-testid="conv-bar-1"]') as HTMLElement;
    expect(bar.getAttribute('role')).toBe('img');
    expect(bar.getAttribute('aria-label')).toBe(
      'Call 1 (01.scene.json) on anthropic/claude-sonnet-4-5: 1260 input tokens (chat messages only, estimate ±20%), 0 read from the prompt cache, 1260 written to it, 0 uncached; costs $0.004725 ($0.003780 with no caching).',
    );
    // No billed figures for these calls: the header says the count is the chat messages'.
    expect(root.querySelector('[data-testid="conv-tokens-1"]')?.textContent).toBe('1,260 tokens (chat messages only, estimate ±20%)');
    expect(bar.style.width).toBe(`${(100 * 1260) / 1352}%`);
    expect((root.querySelector('[data-testid="conv-bar-3"]') as HTMLElement).style.width).toBe('100%');
    expect(root.querySelector('[data-testid="per-thousand"]')?.textContent).toBe(
      'Per 1,000 calls like these: $4.90 ($3.92 with no caching)',
    );
    expect(root.querySelector('[data-testid="conv-zero-count"]')?.textContent).toBe(
      '3 of 3 calls read nothing from the cache; each says why under its bar.',
    );
    expect(root.querySelector('[data-testid="conv-zero-2-fix"]')?.textContent).toContain("move tf_notes's text from system_msg_prompt");
    expect(root.querySelector('[data-testid="conv-what-if"] tbody tr')?.textContent).toContain('$0.008708');
    expect(root.querySelector('[data-testid="conv-figures"]')?.textContent).toBe(
      'Token figures: estimate ±20% · prices of 2026-11-20 (1 source)',
    );
  });

  it('sorts the table from its headers, saying the order to assistive technology', async () => {
    const rows = callRows(systemNotes(), systemNotes().models[0]);
    await act(() => {
      render(h(CostTable, { rows }), root);
    });
    const order = () => [...root.querySelectorAll('tbody tr')].map((r) => r.getAttribute('data-testid'));
    const sortOf = (key: string) => root.querySelector(`[data-testid="sort-${key}"]`)!.closest('th')!.getAttribute('aria-sort');
    expect(order()).toEqual(['cost-row-3', 'cost-row-2', 'cost-row-1']);
    expect(sortOf('cost')).toBe('descending');
    expect(sortOf('n')).toBe('none');
    const press = (key: string) => act(() => (root.querySelector(`[data-testid="sort-${key}"]`) as HTMLButtonElement).click());
    await press('cost');
    expect(order()).toEqual(['cost-row-1', 'cost-row-2', 'cost-row-3']);
    expect(sortOf('cost')).toBe('ascending');
    await press('scene');
    expect(sortOf('scene')).toBe('ascending');
    expect(sortOf('cost')).toBe('none');
    expect(root.querySelector('[data-testid="sort-cost"]')!.tagName).toBe('BUTTON');
  });
});

describe("the board's cost line", () => {
  const cost = (extra: object = {}): InputCost =>
    ({
      model: SONNET,
      usd_per_mtok_input: 3,
      input_tokens: 300,
      content_tokens: 250,
      definition_tokens: 50,
      cost_usd: 0.0009,
      text_provenance: { kind: 'exact' },
      provenance: { kind: 'exact' },
      prices_read: '',
      price_sources: [],
      segments: [],
      definitions: [],
      ...extra,
    }) as unknown as InputCost;

  it('says how the tokens were counted and where the prices come from', async () => {
    const sources = ['https://docs.anthropic.com/pricing', 'https://docs.anthropic.com/caching'];
    const line = async (c: InputCost) => {
      await act(() => {
        render(h(CallCostNote, { cost: c, family: 'chat' }), root);
      });
      return root.textContent;
    };
    expect(
      await line(cost({ provenance: { kind: 'estimate', bound_percent: 3 }, prices_read: '2026-11-20', price_sources: sources })),
    ).toBe(
      "This call's input: 300 tokens · $0.000900 on anthropic/claude-sonnet-4-5, first call · tokens estimate ±3% · prices of 2026-11-20 (2 sources)",
    );
    expect((root.querySelector('[data-testid="call-cost-prices-chat"]') as HTMLElement).title).toBe(
      'https://docs.anthropic.com/pricing\nhttps://docs.anthropic.com/caching',
    );
    expect((root.querySelector('[data-testid="call-cost-provenance-chat"]') as HTMLElement).title).toContain('within 3%');
    expect(await line(cost({ provenance: { kind: 'exact' }, prices_read: '2026-11-20', price_sources: sources.slice(0, 1) }))).toBe(
      "This call's input: 300 tokens · $0.000900 on anthropic/claude-sonnet-4-5, first call · tokens exact · prices of 2026-11-20 (1 source)",
    );
  });

  it('names each provenance as the command line does', () => {
    expect(provenanceText({ kind: 'exact' })).toBe('exact');
    expect(provenanceText({ kind: 'estimate', bound_percent: 3 })).toBe('estimate ±3%');
    expect(provenanceText({ kind: 'calibrated', ratio: 1.08, bound_percent: 2 })).toBe('calibrated ±2%');
    expect(provenanceTitle({ kind: 'calibrated', ratio: 1.08, bound_percent: 2 })).toContain('scaled by 1.08');
    expect(provenanceText(null)).toBe(null);
  });
});
