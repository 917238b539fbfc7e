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

/** A snake_case name that may wrap after its underscores (`original_desk_<wbr>screenshot_<wbr>prompt`)
 * rather than mid-word in a narrow card; its text content is unchanged. */
export function Breakable({ name }: { name: string }) {
  const parts = name.split('_');
  return <>{parts.map((p, i) => (i < parts.length - 1 ? <>{p}_<wbr /></> : p))}</>;
}
