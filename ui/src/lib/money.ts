// The money question in the Run and Conversation views: why a call reads nothing from the prompt
// cache (the core's `ZeroRead`, docs/api.md "Zero reads and what-ifs"), what a change would save,
// the calls by cost and per 1,000 calls, and the provenance a cost figure carries.
import type { CallCost, ConversationResponse, DiagnosticCode, ModelCost, Provenance, RecordedCall, ZeroRead } from '../api/types';
import { fmtUsd } from './costs';

/** The causes `verify` gives a miss (docs/diagnostics.md, "Predicted against billed"), in words;
 *  the app's zero-read explanations use the same codes. */
export const CAUSE_WORDS: Partial<Record<DiagnosticCode, string>> = {
  miss_system_changed: 'system changed',
  miss_tools_changed: 'tools changed',
  miss_model_changed: 'model changed',
  miss_messages_rewritten: 'messages rewritten',
  miss_below_minimum: "below the model's minimum",
  miss_no_breakpoint: 'no breakpoint after the stable prefix',
  miss_ttl_expired: 'TTL expired',
  miss_byte_instability: 'byte instability',
  miss_provider_side: 'provider side / unknown',
  read_warmed_outside: 'warmed outside the recording',
};

/** A cause in words: `null` is the first call, which has nothing cached to read. */
export function causeWords(code: DiagnosticCode | null | undefined): string {
  if (code == null) return 'first call';
  return CAUSE_WORDS[code] ?? code;
}

/** The zero-read explanations of one model, by call (0-based). */
export function zeroReadsOf(all: ZeroRead[] | undefined, model: string | null | undefined): Map<number, ZeroRead> {
  const out = new Map<number, ZeroRead>();
  for (const z of all ?? []) if (z.model === model) out.set(z.call, z);
  return out;
}

/** The explanation in one sentence, as the page and a screen reader say it. */
export function zeroReadSentence(z: ZeroRead): string {
  const missed = z.missed_usd
    ? ` Reading the ${z.shared_tokens} shared tokens (${sharedProvenance(z)}) would cost ${fmtUsd(z.missed_usd)} less.`
    : '';
  return `Reads nothing: ${causeWords(z.cause)}. ${capital(z.why)}.${missed}`;
}

/** How far a zero read's shared tokens can be from the bill, in words. */
export function sharedProvenance(z: ZeroRead): string {
  return provenanceText(z.shared_provenance) ?? 'exact';
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
  /** What `tokens` is counted on and how far it can be off, in words: `estimate ±12%`, or
   *  `chat messages only, estimate ±3%` when the request could not be counted as billed. */
  counted: string;
}

export type SortKey = 'n' | 'scene' | 'tokens' | 'read' | 'written' | 'uncached' | 'cost' | 'cause';
export interface Sort {
  key: SortKey;
  descending: boolean;
}

/** The table's rows for one model: each call with its bill and its cause. Its input is the
 *  model's figure (`figures`: as its provider bills the request), or the chat messages' count
 *  when the operation has none, labelled so. */
export function callRows(c: ConversationResponse, cost: ModelCost | null): CallRow[] {
  const reasons = zeroReadsOf(c.zero_reads, cost?.model);
  const figures = c.figures?.find((f) => f.model === cost?.model);
  const billed = figures?.basis === 'billed';
  return c.calls.map((call, k) => {
    const bill: CallCost | undefined = cost?.calls[k];
    const z = reasons.get(k);
    const mine = figures?.calls[k];
    const tokens = mine?.input_tokens ?? call.request_tokens;
    const bound = provenanceText(mine?.provenance ?? cost?.provenance);
    return {
      n: k + 1,
      scene: call.scene,
      tokens,
      read: bill?.cache_read_tokens ?? 0,
      written: bill?.cache_write_tokens ?? 0,
      uncached: bill?.uncached_tokens ?? tokens,
      cost: bill?.cost_usd ?? 0,
      uncachedCost: bill?.uncached_cost_usd ?? 0,
      cause: z ? causeWords(z.cause) : '',
      counted: billed ? (bound ?? 'exact') : `chat messages only${bound ? `, ${bound}` : ''}`,
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
  return `Call ${call.n} (${call.scene}) on ${model}: ${call.tokens} input tokens (${call.counted}), ${call.read} read from the prompt cache, ${call.written} written to it, ${call.uncached} uncached; costs ${fmtUsd(call.cost)} (${fmtUsd(call.uncachedCost)} with no caching).`;
}

/** The provenance in words, as the command line prints it: `exact`, `estimate ±3%`, `calibrated ±2%`
 *  (the ratio is in the tooltip, `provenanceTitle`). */
export function provenanceText(p: Provenance | null | undefined): string | null {
  if (!p) return null;
  switch (p.kind) {
    case 'exact':
      return 'exact';
    case 'estimate':
      return `estimate ±${p.bound_percent ?? '?'}%`;
    case 'calibrated':
      return `calibrated ±${p.bound_percent ?? '?'}%`;
    default:
      return null;
  }
}

/** A models-table row's prices: when they were read, and from how many pages (their addresses are
 *  the tooltip). */
export function pricesText(read: string | undefined, sources: string[] | undefined): string | null {
  if (!read) return null;
  const n = sources?.length ?? 0;
  return `prices of ${read} (${n} source${n === 1 ? '' : 's'})`;
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

/** One line of a call's predicted-against-billed table. */
export interface RecordedLine {
  what: 'input' | 'cache read' | 'cache write' | 'input cost';
  /** The prediction as text: a figure, or a range for an automatic cache (a hit is not guaranteed). */
  predicted: string;
  billed: string;
  /** How the prediction stands against the record, in words (`4 low (0.5%)`); '' when nothing is
   *  predicted. */
  difference: string;
  /** Whether the record is outside what was predicted (its bound, or the read's range). */
  off: boolean;
}

const int = (n: number) => n.toLocaleString('en-US');
/** `predicted - billed` in words: `27 low`, `3 high`, `equal`. */
const lowHigh = (d: number, f: (n: number) => string = int) => (d < 0 ? `${f(-d)} low` : d > 0 ? `${f(d)} high` : 'equal');

/** A call's predicted figures against what its provider billed, as the `verify` operation gives
 *  them (nothing is reckoned again here: differences and agreement are the operation's). */
export function recordedLines(r: RecordedCall): RecordedLine[] {
  const out: RecordedLine[] = [];
  const i = r.input;
  if (i) {
    const pct = i.error_percent ?? 0;
    out.push({
      what: 'input',
      predicted: int(i.predicted),
      billed: int(i.billed),
      difference: i.difference ? `${lowHigh(i.difference)} (${Math.abs(pct).toFixed(1)}%)` : 'equal',
      off: !i.within_bound,
    });
  } else {
    out.push({ what: 'input', predicted: '—', billed: int(r.billed.input_total), difference: '', off: false });
  }
  const read = r.cache_read;
  if (read) {
    const range =
      read.predicted_low === read.predicted_high ? int(read.predicted_low) : `${int(read.predicted_low)}–${int(read.predicted_high)}`;
    out.push({
      what: 'cache read',
      predicted: range,
      billed: read.reported ? int(read.billed) : 'not reported',
      difference: read.reported ? (read.agrees ? 'agrees' : 'disagrees') : '',
      off: read.reported && !read.agrees,
    });
  }
  const write = r.cache_write;
  if (write) {
    out.push({
      what: 'cache write',
      predicted: int(write.predicted),
      billed: int(write.billed),
      difference: lowHigh(write.predicted - write.billed),
      off: write.billed !== write.predicted,
    });
  }
  const c = r.cost;
  if (c.predicted_low_usd != null && c.predicted_high_usd != null) {
    const same = c.predicted_low_usd === c.predicted_high_usd;
    out.push({
      what: 'input cost',
      predicted: same ? fmtUsd(c.predicted_low_usd) : `${fmtUsd(c.predicted_low_usd)}–${fmtUsd(c.predicted_high_usd)}`,
      billed: fmtUsd(c.billed_usd),
      // `difference_usd` is billed minus predicted, 0 inside a predicted range.
      difference: lowHigh(-(c.difference_usd ?? 0), fmtUsd),
      off: i ? !i.within_bound : false,
    });
  }
  return out;
}

/** How far the call's predicted input can be off, in words (`exact`, `estimate ±12%`). */
export function recordedProvenance(r: RecordedCall): string | null {
  return provenanceText(r.input?.provenance);
}
