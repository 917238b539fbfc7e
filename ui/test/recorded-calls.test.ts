// Recorded against predicted in the Conversation view: each call's lines come from the `verify`
// operation's result as it is (fixtures/cache/recorded, call 4, as `prompt-inspector verify
// fixtures/cache/recorded --format json` prints it), and the view shows them with the miss's cause.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { ConversationResponse, RecordedCall } from '../src/api/types';
import { recordedLines, recordedProvenance } from '../src/lib/money';
import { ConversationReport } from '../src/views/Conversation';
import { dropRoot, freshRoot } from './root';

const SONNET = 'anthropic/claude-sonnet-4-5';

const CALL_4 = {
  label: 'fixtures/cache/recorded/04-tool-search.scene.json',
  call: 4,
  api: 'anthropic',
  model: 'claude-sonnet-4-5',
  priced_as: SONNET,
  billed: { input_total: 1218, uncached: 1218, cache_read: 0, cache_write: {}, output: 23 },
  input: {
    predicted: 1191,
    billed: 1218,
    difference: -27,
    error_percent: -2.2167487684729066,
    provenance: { kind: 'estimate', bound_percent: 12.0 },
    within_bound: true,
  },
  cache_read: {
    predicted_low: 0,
    predicted_high: 0,
    billed: 0,
    agrees: true,
    automatic: false,
    reported: true,
    provenance: { kind: 'estimate', bound_percent: 12.0 },
  },
  cache_write: { predicted: 0, billed: 0, predicted_by_ttl: [], provenance: { kind: 'estimate', bound_percent: 12.0 } },
  cost: { predicted_low_usd: 0.003573, predicted_high_usd: 0.003573, billed_usd: 0.003654, difference_usd: 8.100000000000034e-5 },
  miss: true,
  causes: [
    {
      code: 'miss_no_breakpoint',
      level: 'warning',
      message:
        'call 3 marks no cache breakpoint (cache_control) at or after the 1,119-token prefix this call repeats, so nothing was written for it to read',
      tokens: 1119,
      cost_usd: 0.0030213,
      against_call: 3,
    },
  ],
} as unknown as RecordedCall;

// openllmetry's prompt-caching test, call 3 (corpora/usage): OpenAI's automatic cache, so the
// read is a range; it read nothing where up to 1,024 could be.
const OPENAI_CALL_3 = {
  ...CALL_4,
  api: 'openai-chat',
  model: 'gpt-4o-mini',
  priced_as: 'openai/gpt-4o-mini',
  input: { predicted: 1149, billed: 1149, difference: 0, error_percent: 0, provenance: { kind: 'exact' }, within_bound: true },
  cache_read: {
    predicted_low: 0,
    predicted_high: 1024,
    billed: 0,
    agrees: true,
    automatic: true,
    reported: true,
    provenance: { kind: 'exact' },
  },
  cache_write: null,
  cost: { predicted_low_usd: 0.000096, predicted_high_usd: 0.000172, billed_usd: 0.000172, difference_usd: 0 },
} as unknown as RecordedCall;

describe('recorded against predicted', () => {
  it("puts each figure's prediction next to the bill, in the operation's own terms", () => {
    expect(recordedLines(CALL_4).map((l) => [l.what, l.predicted, l.billed, l.difference, l.off])).toEqual([
      ['input', '1,191', '1,218', '27 low (2.2%)', false],
      ['cache read', '0', '0', 'agrees', false],
      ['cache write', '0', '0', 'equal', false],
      ['input cost', '$0.003573', '$0.003654', '$0.000081 low', false],
    ]);
    expect(recordedProvenance(CALL_4)).toBe('estimate ±12%');
  });

  it('shows an automatic cache read as a range, and an exact count as exact', () => {
    const lines = recordedLines(OPENAI_CALL_3);
    expect(lines.map((l) => l.what)).toEqual(['input', 'cache read', 'input cost']);
    expect(lines[0].difference).toBe('equal');
    expect(lines[1].predicted).toBe('0–1,024');
    expect(lines[2].predicted).toBe('$0.000096–$0.000172');
    expect(lines[2].difference).toBe('equal');
    expect(recordedProvenance(OPENAI_CALL_3)).toBe('exact');
  });

  it('marks a figure outside its bound and a read the prediction does not agree with', () => {
    const off = {
      ...CALL_4,
      input: { ...CALL_4.input, predicted: 900, difference: -318, error_percent: -26.1, within_bound: false },
      cache_read: { ...CALL_4.cache_read, billed: 1024, agrees: false },
    } as unknown as RecordedCall;
    const lines = recordedLines(off);
    expect(lines[0]).toMatchObject({ difference: '318 low (26.1%)', off: true });
    expect(lines[1]).toMatchObject({ billed: '1,024', difference: 'disagrees', off: true });
  });
});

describe('the Conversation view with recorded usage', () => {
  let root: HTMLElement;
  beforeEach(() => {
    root = freshRoot();
  });
  afterEach(() => dropRoot(root));

  const conversation = (): ConversationResponse =>
    ({
      folder: '/f/recorded',
      calls: [1, 2, 3, 4].map((n) => ({
        scene: `0${n}-tool-search.scene.json`,
        path: `/f/recorded/0${n}-tool-search.scene.json`,
        messages: n * 2 - 1,
        request_bytes: 3000 + n,
        request_tokens: 700 + 100 * n,
        common_prefix_tokens: n === 1 ? null : 600 + 100 * n,
        change: null,
        recorded: n === 4 ? CALL_4 : null,
      })),
      // `verify --format json fixtures/cache/recorded`'s predicted input per call (billed 762,
      // 889, 1,122 and 1,218); no request marks a breakpoint, so each is uncached at $3 a million.
      models: [
        {
          model: SONNET,
          ttl: '5m',
          calls: PREDICTED.map((n) => ({
            uncached_tokens: n,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: (n * 3) / 1e6,
            uncached_cost_usd: (n * 3) / 1e6,
          })),
          total: {
            uncached_tokens: 3928,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: 0.011784,
            uncached_cost_usd: 0.011784,
            saving_usd: 0,
          },
          provenance: { kind: 'estimate', bound_percent: 12 },
          prices_read: '2026-11-20',
          price_sources: [],
        },
      ],
      figures: [
        {
          model: SONNET,
          basis: 'billed',
          calls: PREDICTED.map((n, k) => ({
            input_tokens: n,
            shared_tokens: k ? SHARED[k - 1] : null,
            provenance: { kind: 'estimate', bound_percent: 12 },
          })),
        },
      ],
      zero_reads: [],
      what_if: [],
      diagnostics: [],
      recorded_totals: {
        calls: 4,
        predicted_input: 3928,
        billed_input: 3991,
        predicted_read_low: 0,
        predicted_read_high: 0,
        billed_read: 0,
        predicted_write: 0,
        billed_write: 0,
        predicted_low_usd: 0.011784,
        predicted_high_usd: 0.011784,
        billed_usd: 0.011973,
        misses: 3,
        miss_cost_usd: 0.0030213,
      },
      recorded_errors: [],
    }) as unknown as ConversationResponse;

  const PREDICTED = [758, 884, 1095, 1191];
  const SHARED = [755, 881, 1092];

  it("gives each call's input as its provider bills the request, with how far it can be off", async () => {
    await act(() => {
      render(h(ConversationReport, { c: conversation(), model: SONNET }), root);
    });
    const head = (n: number) => root.querySelector(`[data-testid="conv-call-${n}"] .conv-call-head .muted`)?.textContent;
    expect(head(4)).toBe('1,191 tokens (estimate ±12%) · $0.003573');
    expect(head(1)).toBe('758 tokens (estimate ±12%) · $0.002274');
    expect(root.querySelector('[data-testid="conv-bar-4"]')?.getAttribute('aria-label')).toContain(
      '1191 input tokens (estimate ±12%), 0 read from the prompt cache, 0 written to it, 1191 uncached; costs $0.003573',
    );
    expect((root.querySelector('[data-testid="conv-bar-1"]') as HTMLElement).style.width).toBe(`${(100 * 758) / 1191}%`);
  });

  it("shows a call's bill next to its prediction, with the miss's cause and the totals", async () => {
    await act(() => {
      render(h(ConversationReport, { c: conversation(), model: SONNET }), root);
    });
    const q = (id: string) => root.querySelector(`[data-testid="${id}"]`);
    expect(q('conv-recorded-1')).toBe(null);
    expect(q('conv-recorded-4-summary')?.textContent).toBe(
      'Recorded: billed 1,218 input tokens, predicted 1,191 (estimate ±12%); a cache miss: no breakpoint after the stable prefix',
    );
    const input = q('conv-recorded-4-input');
    expect([...(input?.querySelectorAll('th, td') ?? [])].map((c) => c.textContent)).toEqual(['input', '1,191', '1,218', '27 low (2.2%)']);
    expect(q('conv-recorded-4-provenance')?.textContent).toContain('estimate ±12%');
    const cause = q('conv-recorded-4-cause');
    expect(cause?.getAttribute('data-code')).toBe('miss_no_breakpoint');
    expect(cause?.textContent).toContain('Recorded miss: no breakpoint after the stable prefix');
    expect(cause?.textContent).toContain('$0.003021');
    expect(q('conv-recorded-totals')?.textContent).toBe(
      'Recorded: 4 calls billed 3,991 input tokens (predicted 3,928), costing $0.0120 (predicted $0.0118); 3 recorded cache misses costing $0.003021.',
    );
  });
});
