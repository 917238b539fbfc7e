// What the picked model makes of the core's figures: the report's `costs` (segments and tool
// definitions priced by the core, docs/cli.md), a piece's share at the report's per-token rate,
// the run's per-request split into cache reads, writes and uncached input, and the picker's
// default and remembered choice.
import type { CallCost, InputCost, ModelInfo, Report } from '../api/types';

/** The picked model's costs in a report, or null (no model picked, or tokens not counted). */
export function costOf(report: Report | null | undefined, model: string | null): InputCost | null {
  if (!report?.costs || !model) return null;
  return report.costs.find((c) => c.model === model) ?? null;
}

/**
 * Dollars for reading: whole cents above a dollar; below it, enough decimals that a figure of a
 * few tokens (a millionth of a dollar or less) is not shown as zero.
 */
export function fmtUsd(usd: number | null | undefined): string {
  const n = usd ?? 0;
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n >= 0.01) return `$${n.toFixed(4)}`;
  return `$${n.toFixed(6)}`;
}

/** A piece's cost: its tokens at the report's uncached input price, USD per million tokens
 *  (display arithmetic only; the segments' and definitions' costs are the core's). */
export function pieceCost(tokens: number, usdPerMtok: number): number {
  return (tokens * usdPerMtok) / 1e6;
}

/** A piece's figures: `17 tokens`, and with a model's price `17 tokens · $0.000034`. */
export function pieceFigures(tokens: number | undefined, usdPerMtok: number | undefined): string {
  if (tokens === undefined) return '';
  return usdPerMtok === undefined ? `${tokens} tokens` : `${tokens} tokens · ${fmtUsd(pieceCost(tokens, usdPerMtok))}`;
}

/** The model the picker starts on: the remembered one while the table has it, else the table's
 *  first default row, else its first row. */
export function initialModel(models: ModelInfo[], remembered: string | null): string | null {
  if (remembered && models.some((m) => m.id === remembered)) return remembered;
  return (models.find((m) => m.default) ?? models[0])?.id ?? null;
}

const MODEL_KEY = 'prompt-inspector.model';

/** The model picked last time (the page's localStorage, in the browser and in the app's web view). */
export function rememberedModel(): string | null {
  try {
    return localStorage.getItem(MODEL_KEY);
  } catch {
    return null;
  }
}

export function rememberModel(id: string) {
  try {
    localStorage.setItem(MODEL_KEY, id);
  } catch {
    /* storage unavailable: the choice lasts for this session */
  }
}

/** The table's rows by provider, in the table's order: the picker's groups. */
export function modelGroups(models: ModelInfo[]): [string, ModelInfo[]][] {
  const groups = new Map<string, ModelInfo[]>();
  for (const m of models) groups.set(m.provider, [...(groups.get(m.provider) ?? []), m]);
  return [...groups.entries()];
}

/** A row in the picker, under its provider's group: `gpt-5 · $1.25/M` (input, USD per million tokens). */
export function modelLabel(m: ModelInfo): string {
  return `${m.id.slice(m.provider.length + 1) || m.id} · $${m.prices_per_mtok.input ?? 0}/M`;
}

/** One request of a replayed run for one model: its input split the way the provider bills it. */
export interface PrefixShares {
  read: number;
  written: number;
  uncached: number;
  total: number;
  /** Percentages of `total` for the bar (0 when the request has no tokens). */
  pct: { read: number; written: number; uncached: number };
  costUsd: number;
  uncachedCostUsd: number;
}

export function prefixShares(c: CallCost): PrefixShares {
  const read = c.cache_read_tokens;
  const written = c.cache_write_tokens;
  const uncached = c.uncached_tokens;
  const total = read + written + uncached;
  const pct = (n: number) => (total ? (100 * n) / total : 0);
  return {
    read,
    written,
    uncached,
    total,
    pct: { read: pct(read), written: pct(written), uncached: pct(uncached) },
    costUsd: c.cost_usd ?? 0,
    uncachedCostUsd: c.uncached_cost_usd ?? 0,
  };
}

/** The sentence a screen reader hears for a request's bar (and the bar's tooltip). */
export function prefixSentence(s: PrefixShares, n: number, model: string): string {
  return `Request ${n} on ${model}: ${s.total} input tokens, ${s.read} read from the prompt cache, ${s.written} written to it, ${s.uncached} uncached; costs ${fmtUsd(s.costUsd)} (${fmtUsd(s.uncachedCostUsd)} with no caching).`;
}
