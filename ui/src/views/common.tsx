import type { Diagnostic, Rules, ToolStatus, ToolValidity } from '../api/types';
import { plainMessage } from '../lib/diagnostics';

export const STATUS_LABEL: Record<ToolStatus, string> = {
  injected: 'injected',
  rendered_empty: 'rendered empty',
  empty: 'empty',
  silent: 'silent',
  undeclared: 'undeclared',
  invalid: 'invalid',
  error: 'error',
  protocol_error: 'protocol error',
};

/** A tool's status in one family; `why` (an invalid tool's reason) goes into the tooltip. */
export function StatusChip({ status, family, why }: { status?: ToolStatus; family: string; why?: string | null }) {
  if (!status) return <span class="chip chip-none">{family} –</span>;
  const tip = `${family}: ${STATUS_LABEL[status]}${why && status === 'invalid' ? `. ${why}` : ''}`;
  return (
    <span class={`chip chip-${status}`} title={tip}>
      {family} {STATUS_LABEL[status]}
    </span>
  );
}

/** A diagnostic's severity in words: the border's colour is never the only sign of it. */
export const LEVEL_LABEL: Record<Diagnostic['level'], string> = { error: 'error', warning: 'warning', info: 'info' };

export function LevelTag({ level }: { level: Diagnostic['level'] }) {
  return <span class={`level level-${level}`}>{LEVEL_LABEL[level] ?? level}</span>;
}

/** A core message in plain words: what it wrote between backticks as code, no backticks shown
 *  (and a command-line aside left out: the app links to the view that answers it). */
export function PlainText({ message }: { message: string }) {
  return <>{plainMessage(message).parts.map((p, i) => (p.code ? <code key={i}>{p.text}</code> : p.text))}</>;
}

/** One diagnostic in a line: its severity, code and message. */
export function DiagLine({ d }: { d: Pick<Diagnostic, 'level' | 'code' | 'message'> }) {
  return (
    <div class={`diag diag-${d.level}`}>
      <LevelTag level={d.level} /> <code>{d.code}</code>: <PlainText message={d.message} />
    </div>
  );
}

export function ruleOf(rules: Rules | null, segment: string) {
  const s = rules?.segments.find((x) => x.name === segment);
  if (!s || s.legal) return null;
  const r = rules!.rules.find((x) => x.id === s.rule);
  return { id: s.rule!, title: r?.title ?? s.rule!, reason: s.reason ?? r?.reason ?? '' };
}

export function fmtBytes(n: number) {
  return n < 10000 ? `${n} B` : n < 1e6 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(2)} MiB`;
}

/** A dotted or snake_case name that may wrap after its dots and underscores
 * (`positions.<wbr>original_<wbr>desk_<wbr>screenshot_<wbr>prompt`) rather than mid-word in a
 * narrow card or table; its text content is unchanged. */
export function Breakable({ name }: { name: string }) {
  const parts = breakParts(name);
  return (
    <>
      {parts.map((p, i) =>
        i < parts.length - 1 ? (
          <>
            {p}
            <wbr />
          </>
        ) : (
          p
        ),
      )}
    </>
  );
}

/** `a.b_c` → `['a.', 'b_', 'c']`: the pieces between which a line may break. */
export function breakParts(name: string): string[] {
  return name.split(/(?<=[._])/);
}

/** The project's documents the UI points to, by their path in the Prompt Inspector repository. */
export const DOCS = {
  rules: 'docs/rules.md',
  scene: 'docs/scene-format.md',
  runLoop: 'docs/run-loop.md',
  templates: 'docs/templates.md',
} as const;

/** "More: docs/rules.md (in the Prompt Inspector repository)". */
export function DocRef({ path, what = 'More' }: { path: string; what?: string }) {
  return (
    <span class="doc-ref">
      {what}: <code>{path}</code> in the Prompt Inspector repository.
    </span>
  );
}

/** A rule's title said in a sentence: `Iron rule 1: user intent (铁律 1：…)` → `iron rule 1, user intent`. */
export function ruleShort(title: string): string {
  const t = title.replace(/\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*$/, '').replace(/:\s*/, ', ');
  return t.charAt(0).toLowerCase() + t.slice(1);
}

const FAMILY_CLASS: Record<string, string> = { chat: 'ChatLLM', desk: 'DeskLLM' };

/**
 * Why an invalid tool injects nowhere, in one sentence. TFRobot validates the tool class when it
 * is defined, so one bad side rejects the whole class and neither family renders it: the chips of
 * both families say "invalid", and this says which side (or which declaration) caused it.
 * Null for a valid tool.
 */
export function invalidWhy(v: ToolValidity | undefined, pos: [string | null, string | null] | null, rules: Rules | null): string | null {
  if (!v || v.valid) return null;
  const neither = 'so the tool takes part in neither family';
  const side = v.family === 'chat' ? 0 : v.family === 'desk' ? 1 : null;
  const seg = side === null ? null : (pos?.[side] ?? null);
  if (side !== null && seg && v.rule) {
    const title = rules?.rules.find((r) => r.id === v.rule)?.title ?? v.rule;
    return `invalid: ${v.family} position ${seg} is forbidden (${ruleShort(title)}), ${neither}`;
  }
  if (side !== null && seg) return `invalid: ${v.family} position ${seg} is not a ${FAMILY_CLASS[v.family!]} segment, ${neither}`;
  switch (v.reason) {
    case 'position_without_override':
      return `invalid: it declares a prompt_position but does not override _format_2_prompt (${v.exception ?? 'TypeError'}), ${neither}`;
    case 'override_without_position':
      return `invalid: it overrides _format_2_prompt but declares no prompt_position (${v.exception ?? 'TypeError'}), ${neither}`;
    case 'both_sides_null':
      return `invalid: prompt_position is (None, None) (${v.exception ?? 'ValueError'}), ${neither}`;
    default:
      return `invalid: ${v.message ?? v.exception ?? 'rejected at class definition'}; ${neither}`;
  }
}

/**
 * A log line's durations rounded for reading: the app logs `ms=3.4172999` (an operation's time,
 * a float) and tracing prints Durations as `3.4172999ms`; both read `3.4 ms`.
 */
export function roundDurations(message: string): string {
  const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
  return message
    .replace(
      /\b((?:\w+_)?ms)=(\d+(?:\.\d+)?(?:e-?\d+)?)\b/g,
      (_, k: string, n: string) => `${k === 'ms' ? '' : `${k}=`}${fmt(Number(n))} ms`,
    )
    .replace(/\b(\d+\.\d{2,})(ms|µs|us|ns|s)\b/g, (_, n: string, u: string) => `${fmt(Number(n))} ${u}`);
}
