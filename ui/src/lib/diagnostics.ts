// The diagnostics panel's lists and links: both families' diagnostics once each, the cache-safety
// lint's findings (codes `cache_…`, docs/diagnostics.md) apart from the rest, and the template a
// diagnostic points at (a tool's, or a configured prompt's), at the line it names.
import type { Diagnostic, DiagnosticCode, Llm, Report } from '../api/types';
import { promptName } from './scene';

/** The codes of the cache-safety lint start with this. */
export const LINT_PREFIX = 'cache_';

/** The cache-safety lint's codes: the members of the core's code union that start with `cache_`. */
export type LintCode = Extract<DiagnosticCode, `${typeof LINT_PREFIX}${string}`>;

export function isLintCode(code: DiagnosticCode): code is LintCode {
  return code.startsWith(LINT_PREFIX);
}

export type Family = Llm;

export interface ShownDiagnostic {
  d: Diagnostic;
  /** The families whose report has it (validation is per tool class, so often both). */
  families: Family[];
}

export interface DiagnosticLists {
  /** The cache-safety lint's findings. */
  lint: ShownDiagnostic[];
  /** Every other diagnostic. */
  other: ShownDiagnostic[];
}

/** Both reports' diagnostics, each once, in order (chat's first), the lint's apart. */
export function diagnosticLists(reports: { chat?: Report | null; desk?: Report | null }): DiagnosticLists {
  const seen = new Map<string, ShownDiagnostic>();
  for (const f of ['chat', 'desk'] as const)
    for (const d of reports[f]?.diagnostics ?? []) {
      const key = [d.level, d.code, d.message, d.tool ?? '', d.segment ?? '', d.prompt ?? '', d.line ?? ''].join('|');
      const e = seen.get(key);
      if (e) e.families.push(f);
      else seen.set(key, { d, families: [f] });
    }
  const all = [...seen.values()];
  return { lint: all.filter((x) => isLintCode(x.d.code)), other: all.filter((x) => !isLintCode(x.d.code)) };
}

/** The template a diagnostic is about: its tool's, or (without a tool) the configured prompt at
 *  `segment` and `prompt`; `line` is 1-based in that template. */
export type TemplateTarget =
  | { kind: 'tool'; tool: string; line: number | null }
  | { kind: 'prompt'; segment: string; index: number; line: number | null };

export function templateTarget(d: Diagnostic): TemplateTarget | null {
  const line = d.line ?? null;
  if (d.tool) return { kind: 'tool', tool: d.tool, line };
  if (d.segment && d.prompt !== undefined) return { kind: 'prompt', segment: d.segment, index: d.prompt, line };
  return null;
}

/** The link's words: `tf_notes's template, line 3`. */
export function targetLabel(t: TemplateTarget): string {
  const what = t.kind === 'tool' ? `tool ${t.tool}: template` : `${promptName(t.segment, t.index)}: template`;
  return t.line ? `${what}, line ${t.line}` : what;
}
