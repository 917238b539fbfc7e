// The diagnostics panel's lists and links, read like an editor's problems panel: both families'
// diagnostics once each, errors first, then warnings, then info; the cache-safety lint's findings
// (codes `cache_…`, docs/diagnostics.md) marked as such, and folded when they are moot (nothing is
// cached anyway); the core's messages in plain words; and the template a diagnostic points at (a
// tool's, or a configured prompt's), at the line it names.
import type { Diagnostic, DiagnosticCode, Llm, Report } from '../api/types';
import { promptName } from './scene';

type Level = Diagnostic['level'];

/** The codes of the cache-safety lint start with this. */
export const LINT_PREFIX = 'cache_';

/** The cache-safety lint's codes: the members of the core's code union that start with `cache_`. */
export type LintCode = Extract<DiagnosticCode, `${typeof LINT_PREFIX}${string}`>;

export function isLintCode(code: DiagnosticCode): code is LintCode {
  return code.startsWith(LINT_PREFIX);
}

export type Family = Llm;

/** The lint's findings about what would stop a cache from reusing the prefix: moot when the
 *  request is too short for the picked model to cache anything at all. */
const PREFIX_FINDINGS: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  'cache_prefix_injection',
  'cache_volatile_value',
  'cache_prefix_changed',
]);

export interface ShownDiagnostic {
  d: Diagnostic;
  /** The families whose report has it (validation is per tool class, so often both). */
  families: Family[];
}

export interface DiagnosticLists {
  /** Every diagnostic that matters, each once: errors, then warnings, then info. */
  shown: ShownDiagnostic[];
  /** Cache-prefix findings that change nothing on the picked model (see `mootWhy`), same order. */
  moot: ShownDiagnostic[];
  /** Why the moot ones are moot: the `cache_below_minimum` finding(s) of their families. */
  mootWhy: ShownDiagnostic[];
  /** Diagnostics only of families the scene does not use (see `familyUsed`), same order. */
  unused: ShownDiagnostic[];
}

const RANK: Record<Level, number> = { error: 0, warning: 1, info: 2 };

/** Errors first, then warnings, then info; within a level, the order the reports gave (stable). */
export function bySeverity<T extends { d: Pick<Diagnostic, 'level'> }>(items: T[]): T[] {
  return items
    .map((x, i) => [x, i] as const)
    .sort((a, b) => (RANK[a[0].d.level] ?? 3) - (RANK[b[0].d.level] ?? 3) || a[1] - b[1])
    .map(([x]) => x);
}

/** Both reports' diagnostics, each once (chat's first within a level), sorted by severity, the
 *  moot cache-prefix findings apart. A finding is moot when every family that has it also has
 *  `cache_below_minimum`: the request is under the picked model's minimum cacheable length, so
 *  it is billed in full whatever its prefix holds. */
/** The last few lists, by the reports' diagnostics (a live patch keeps an unchanged list's array):
 *  the panel, the Tools view and the Prompts view ask on every render, a large scene has hundreds. */
const recentLists: { chat: Diagnostic[] | undefined; desk: Diagnostic[] | undefined; unused: string; lists: DiagnosticLists }[] = [];

export function diagnosticLists(
  reports: { chat?: Report | null; desk?: Report | null },
  /** The families the scene does not use: their own diagnostics are folded apart. */
  unusedFamilies: Family[] = [],
): DiagnosticLists {
  const chat = reports.chat?.diagnostics;
  const desk = reports.desk?.diagnostics;
  const unused = unusedFamilies.join(',');
  const hit = recentLists.find((e) => e.chat === chat && e.desk === desk && e.unused === unused);
  if (hit) return hit.lists;
  const lists = computeDiagnosticLists(reports, unusedFamilies);
  recentLists.unshift({ chat, desk, unused, lists });
  recentLists.length = Math.min(recentLists.length, 4);
  return lists;
}

function computeDiagnosticLists(
  reports: { chat?: Report | null; desk?: Report | null },
  /** The families the scene does not use: their own diagnostics are folded apart. */
  unusedFamilies: Family[] = [],
): DiagnosticLists {
  const seen = new Map<string, ShownDiagnostic>();
  const below = new Set<Family>();
  for (const f of ['chat', 'desk'] as const)
    for (const d of reports[f]?.diagnostics ?? []) {
      if (d.code === 'cache_below_minimum') below.add(f);
      const key = [d.level, d.code, d.message, d.tool ?? '', d.segment ?? '', d.prompt ?? '', d.line ?? ''].join('|');
      const e = seen.get(key);
      if (e) e.families.push(f);
      else seen.set(key, { d, families: [f] });
    }
  const sorted = bySeverity([...seen.values()]);
  const isUnused = (x: ShownDiagnostic) => x.families.every((f) => unusedFamilies.includes(f));
  const all = sorted.filter((x) => !isUnused(x));
  const isMoot = (x: ShownDiagnostic) => PREFIX_FINDINGS.has(x.d.code) && x.families.every((f) => below.has(f));
  const moot = all.filter(isMoot);
  return {
    shown: all.filter((x) => !isMoot(x)),
    moot,
    mootWhy: moot.length ? all.filter((x) => x.d.code === 'cache_below_minimum') : [],
    unused: sorted.filter(isUnused),
  };
}

/** How many of each level: the panel's heading (`1 error, 3 warnings`). */
export function levelCounts(items: ShownDiagnostic[]): string {
  const n = (l: Level) => items.filter((x) => x.d.level === l).length;
  const parts = [
    [n('error'), 'error', 'errors'],
    [n('warning'), 'warning', 'warnings'],
    [n('info'), 'info', 'info'],
  ] as const;
  return parts
    .filter(([c]) => c > 0)
    .map(([c, one, many]) => `${c} ${c === 1 ? one : many}`)
    .join(', ');
}

/** A piece of a message: plain text, or what the core wrote between backticks (a name, a value). */
export type MessagePart = { text: string; code: boolean };

/** Where the app shows what a message's command would print. */
export type AppView = 'run' | 'conversation';

export interface PlainMessage {
  parts: MessagePart[];
  /** The view that answers what the message told the reader to run, when it did. */
  view: AppView | null;
}

// A parenthesis naming a command of the command-line tool, with what it does (`(`prompt-inspector
// cache` prices the move)`): in the app the answer is a view away.
const COMMAND_HINT = /\s*\(`prompt-inspector (\w+)[^`]*`[^)]*\)/g;
const VIEW_OF: Record<string, AppView> = { cache: 'conversation', run: 'run' };

/** The core's message in plain words: backtick spans become code parts (no backticks shown), and
 *  a "run `prompt-inspector …`" aside becomes a link to the view that shows the answer. */
export function plainMessage(message: string): PlainMessage {
  const known = plainMessages.get(message);
  if (known) return known;
  const plain = computePlainMessage(message);
  // Bounded: a long session of edits sees many messages; the board shows a few hundred at most.
  if (plainMessages.size >= 4096) plainMessages.clear();
  plainMessages.set(message, plain);
  return plain;
}

const plainMessages = new Map<string, PlainMessage>();

function computePlainMessage(message: string): PlainMessage {
  let view: AppView | null = null;
  const text = message.replace(COMMAND_HINT, (_, cmd: string) => {
    view = VIEW_OF[cmd] ?? view;
    return '';
  });
  const parts: MessagePart[] = [];
  const pieces = text.split('`');
  // An odd count of backticks leaves the last one unmatched: it is shown as written.
  const matched = pieces.length % 2 === 1 ? pieces.length : pieces.length - 1;
  for (let i = 0; i < pieces.length; i++) {
    const code = i % 2 === 1 && i < matched;
    const t = i % 2 === 1 && !code ? `\`${pieces[i]}` : pieces[i];
    if (t) parts.push({ text: t, code });
  }
  return { parts, view };
}

/** The template a diagnostic is about: its tool's, or (without a tool) the configured prompt at
 *  `segment` and `prompt`; `line` is 1-based in that template. */
export type TemplateTarget =
  | { kind: 'tool'; tool: string; line: number | null }
  | { kind: 'prompt'; segment: string; index: number; line: number | null };

export function templateTarget(d: Diagnostic): TemplateTarget | null {
  const line = d.line ?? null;
  if (d.tool) return { kind: 'tool', tool: d.tool, line };
  if (d.segment && d.prompt !== undefined && d.prompt !== null) return { kind: 'prompt', segment: d.segment, index: d.prompt, line };
  return null;
}

/** The link's words: `tf_notes's template, line 3`. */
export function targetLabel(t: TemplateTarget): string {
  const what = t.kind === 'tool' ? `tool ${t.tool}: template` : `${promptName(t.segment, t.index)}: template`;
  return t.line ? `${what}, line ${t.line}` : what;
}

/** The diagnostics about one template (a tool's, or the configured prompt at `segment`/`index`):
 *  what its editor counts and links to the panel for, rather than listing them again. */
export function diagnosticsOf(lists: DiagnosticLists, t: { tool: string } | { segment: string; index: number }): ShownDiagnostic[] {
  return [...lists.shown, ...lists.moot, ...lists.unused].filter((x) =>
    'tool' in t ? x.d.tool === t.tool : !x.d.tool && x.d.segment === t.segment && x.d.prompt === t.index,
  );
}

/** The id of a diagnostic's row in the panel (the editors' links scroll to it). */
const ids = new WeakMap<Diagnostic, string>();

export function diagnosticId(x: ShownDiagnostic): string {
  const d = x.d;
  const known = ids.get(d);
  if (known !== undefined) return known;
  const id = computeDiagnosticId(d);
  ids.set(d, id);
  return id;
}

function computeDiagnosticId(d: Diagnostic): string {
  const key = [d.level, d.code, d.tool ?? '', d.segment ?? '', d.prompt ?? '', d.line ?? '', d.message].join('|');
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return `diag-${(h >>> 0).toString(36)}`;
}
