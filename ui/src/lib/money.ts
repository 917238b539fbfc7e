// The money question in the Run and Conversation views: why a call reads nothing from the prompt
// cache (the core's `ZeroRead`, docs/api.md "Zero reads and what-ifs"), what a change would save,
// the calls by cost and per 1,000 calls, and the provenance a cost figure carries.
import type { CallCost, ConversationResponse, MissCause, ModelCost, ZeroRead } from '../api/types';
import { fmtUsd } from './costs';

/** A cause in the words of the causes vocabulary (docs/diagnostics.md). */
export const CAUSE_WORDS: Record<MissCause, string> = {
  first_call: 'first call',
  system_changed: 'system changed',
  tools_changed: 'tools changed',
  messages_rewritten: 'messages rewritten',
  below_minimum: "below the model's minimum",
  no_breakpoint: 'no breakpoint after the stable prefix',
  provider_side: 'provider side / unknown',
};

/** The zero-read explanations of one model, by call (0-based). */
export function zeroReadsOf(all: ZeroRead[] | undefined, model: string | null | undefined): Map<number, ZeroRead> {
  const out = new Map<number, ZeroRead>();
  for (const z of all ?? []) if (z.model === model) out.set(z.call, z);
  return out;
}

/** The explanation in one sentence, as the page and a screen reader say it. */
export function zeroReadSentence(z: ZeroRead): string {
  const missed = z.missed_usd ? ` Reading the ${z.shared_tokens} shared tokens would cost ${fmtUsd(z.missed_usd)} less.` : '';
  return `Reads nothing: ${CAUSE_WORDS[z.cause]}. ${capital(z.why)}.${missed}`;
}

function capital(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** One row of the table of requests by cost. */
export interface CallRow {
  /** 1-based, the call order. */
  n: number;
  scene: string;
  tokens: number;
  read: number;
  written: number;
  uncached: number;
  cost: number;
  uncachedCost: number;
  /** The zero-read cause in words, or '' when the call reads. */
  cause: string;
}

export type SortKey = 'n' | 'scene' | 'tokens' | 'read' | 'written' | 'uncached' | 'cost' | 'cause';
export interface Sort {
  key: SortKey;
  descending: boolean;
}

/** The table's rows for one model: each call with its bill and its cause. */
export function callRows(c: ConversationResponse, cost: ModelCost | null): CallRow[] {
  const reasons = zeroReadsOf(c.zero_reads, cost?.model);
  return c.calls.map((call, k) => {
    const bill: CallCost | undefined = cost?.calls[k];
    const z = reasons.get(k);
    return {
      n: k + 1,
      scene: call.scene,
      tokens: call.request_tokens,
      read: bill?.cache_read_tokens ?? 0,
      written: bill?.cache_write_tokens ?? 0,
      uncached: bill?.uncached_tokens ?? call.request_tokens,
      cost: bill?.cost_usd ?? 0,
      uncachedCost: bill?.uncached_cost_usd ?? 0,
      cause: z ? CAUSE_WORDS[z.cause] : '',
    };
  });
}

/** The rows in `sort`'s order; ties keep the call order. */
export function sortRows(rows: CallRow[], sort: Sort): CallRow[] {
  const sign = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a[sort.key];
    const y = b[sort.key];
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return c !== 0 ? sign * c : a.n - b.n;
  });
}

/** A header pressed: the same column flips its order, another starts on its natural one (the
 *  figures largest first, the names and the call order first to last). */
export function nextSort(now: Sort, key: SortKey): Sort {
  if (now.key === key) return { key, descending: !now.descending };
  return { key, descending: !(key === 'n' || key === 'scene' || key === 'cause') };
}

/** What 1,000 calls like these cost: the mean call's cost times 1,000. */
export function perThousand(total: number, calls: number): number {
  return calls ? (total / calls) * 1000 : 0;
}

/** A call's bar: its width in percent of the largest request, and its shares in percent of itself. */
export function barOf(call: CallRow, largest: number): { width: number; read: number; written: number; uncached: number } {
  const total = call.read + call.written + call.uncached;
  const pct = (n: number) => (total ? (100 * n) / total : 0);
  return {
    width: largest ? (100 * call.tokens) / largest : 0,
    read: pct(call.read),
    written: pct(call.written),
    uncached: pct(call.uncached),
  };
}

/** The sentence a screen reader hears for a call's bar. */
export function barSentence(call: CallRow, model: string): string {
  return `Call ${call.n} (${call.scene}) on ${model}: ${call.tokens} input tokens, ${call.read} read from the prompt cache, ${call.written} written to it, ${call.uncached} uncached; costs ${fmtUsd(call.cost)} (${fmtUsd(call.uncachedCost)} with no caching).`;
}

/** How a cost figure was counted (`usage::Provenance` on a `costs[]` row, when the core sends it). */
export type Provenance =
  | { kind: 'exact' }
  | { kind: 'estimate'; bound_percent: number }
  | { kind: 'calibrated'; ratio: number; bound_percent: number };

/** The provenance in words, as the command line prints it: `exact`, `estimate ±3%`, `calibrated ±2%`
 *  (the ratio is in the tooltip, `provenanceTitle`). */
export function provenanceText(p: Provenance | null | undefined): string | null {
  if (!p) return null;
  switch (p.kind) {
    case 'exact':
      return 'exact';
    case 'estimate':
      return `estimate ±${p.bound_percent}%`;
    case 'calibrated':
      return `calibrated ±${p.bound_percent}%`;
    default:
      return null;
  }
}

/** What a provenance means, for a tooltip. */
export function provenanceTitle(p: Provenance | null | undefined): string {
  if (!p) return '';
  switch (p.kind) {
    case 'exact':
      return 'Counted as the provider bills it, and checked so against recorded usage.';
    case 'estimate':
      return `An estimate: within ${p.bound_percent}% of the billed count on the recorded calls docs/models.md names.`;
    case 'calibrated':
      return `An estimate scaled by ${p.ratio}, a ratio learnt from recorded usage (prompt-inspector calibrate); within ${p.bound_percent}%.`;
    default:
      return '';
  }
}
