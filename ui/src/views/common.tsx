import type { Rules, ToolStatus } from '../api/types';

export const STATUS_LABEL: Record<ToolStatus, string> = {
  injected: 'injected', rendered_empty: 'rendered empty', empty: 'empty', silent: 'silent',
  undeclared: 'undeclared', invalid: 'invalid', error: 'error', protocol_error: 'protocol error',
};

export function StatusChip({ status, family }: { status?: ToolStatus; family: string }) {
  if (!status) return <span class="chip chip-none">{family} –</span>;
  return <span class={`chip chip-${status}`} title={`${family}: ${STATUS_LABEL[status]}`}>{family} {STATUS_LABEL[status]}</span>;
}

export function ruleOf(rules: Rules | null, segment: string) {
  const s = rules?.segments.find((x) => x.name === segment);
  if (!s || s.legal) return null;
  const r = rules!.rules.find((x) => x.id === s.rule);
  return { id: s.rule!, title: r?.title ?? s.rule!, reason: s.reason ?? r?.reason ?? '' };
}

export function fmtBytes(n: number) { return n < 10000 ? `${n} B` : n < 1e6 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(2)} MiB`; }

/** A dotted or snake_case name that may wrap after its dots and underscores
 * (`positions.<wbr>original_<wbr>desk_<wbr>screenshot_<wbr>prompt`) rather than mid-word in a
 * narrow card or table; its text content is unchanged. */
export function Breakable({ name }: { name: string }) {
  const parts = breakParts(name);
  return <>{parts.map((p, i) => (i < parts.length - 1 ? <>{p}<wbr /></> : p))}</>;
}

/** `a.b_c` → `['a.', 'b_', 'c']`: the pieces between which a line may break. */
export function breakParts(name: string): string[] {
  return name.split(/(?<=[._])/);
}
