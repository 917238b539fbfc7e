// Help while editing a template: the variables it renders over (for completion), the render
// errors the core reported for it (underlined where they are), the syntax of the other engine
// (a warning on switching), and the piece a template renders to (a locale's preview).
import type { Diagnostic, Report } from '../api/types';
import { JObject, type JValue } from './json';
import { configuredPrompt, getPath, promptTemplatePath, type Scene, templatePathOf, toolByName, tools } from './scene';

export type EngineName = 'fstring' | 'jinja2';

/** Where a template sits: a tool's string source, a tool's prompt, or a configured prompt. */
export type TemplateOwner =
  | { kind: 'tool-source'; tool: JObject; name: string }
  | { kind: 'tool-prompt'; tool: JObject; name: string; prompt: JObject }
  | { kind: 'configured'; family: 'chat' | 'desk'; segment: string; index: number; prompt: JObject };

/** What the template at `path` (as validate writes it) belongs to. */
export function templateOwner(scene: Scene, path: string | null): TemplateOwner | null {
  if (!path) return null;
  let m = /^tools\[(\d+)\]\.format_2_prompt\.(source|prompt\.template)$/.exec(path);
  if (m) {
    const tool = tools(scene)[Number(m[1])];
    if (!tool) return null;
    const name = String(tool.get('name') ?? '');
    if (m[2] === 'source') return { kind: 'tool-source', tool, name };
    const prompt = getPath(tool, ['format_2_prompt', 'prompt']);
    return prompt instanceof JObject ? { kind: 'tool-prompt', tool, name, prompt } : null;
  }
  m = /^(chat_llm|desk_llm)\.([A-Za-z_]+)\[(\d+)\]\.template$/.exec(path);
  if (m) {
    const prompt = configuredPrompt(scene, { segment: m[2], index: Number(m[3]) });
    if (!prompt) return null;
    return { kind: 'configured', family: m[1] === 'chat_llm' ? 'chat' : 'desk', segment: m[2], index: Number(m[3]), prompt };
  }
  return null;
}

/**
 * The context as templates see it: the scene's `context`, with the standard keys it leaves out
 * appended with their defaults (docs/scene-format.md, "context"); `tools` derived from the
 * scene's tools when it is not written.
 */
export function engineContext(scene: Scene): JObject {
  const written = scene.get('context');
  const ctx = new JObject(written instanceof JObject ? [...written.entries] : []);
  const add = (k: string, v: JValue) => {
    if (!ctx.has(k)) ctx.set(k, v);
  };
  add(
    'user_input',
    new JObject([
      ['input', ''],
      ['additional_info', new JObject()],
    ]),
  );
  add('conversation', []);
  add('runtime_vars', new JObject());
  add('neural', new JObject());
  const seen = new Set<string>();
  const derived: JValue[] = [];
  for (const t of tools(scene)) {
    const name = t.get('name');
    if (typeof name !== 'string' || seen.has(name)) continue;
    seen.add(name);
    const d = t.get('description');
    derived.push(
      new JObject([
        ['name', name],
        ['description', typeof d === 'string' ? d : ''],
      ]),
    );
  }
  add('tools', derived);
  return ctx;
}

/**
 * The variables a template renders over (docs/templates.md, docs/injection.md): a tool's string
 * source sees `state` and `ctx`; a `normalize` prompt sees the context's keys; an
 * `additional_info` prompt sees `user_input.additional_info`'s.
 */
export function templateVars(scene: Scene, owner: TemplateOwner | null): JObject {
  if (!owner) return new JObject();
  const ctx = engineContext(scene);
  if (owner.kind === 'tool-source') {
    const state = owner.tool.get('state');
    return new JObject([
      ['state', state === undefined ? null : state],
      ['ctx', ctx],
    ]);
  }
  if (owner.prompt.get('kind') === 'additional_info') {
    const info = getPath(ctx, ['user_input', 'additional_info']);
    return info instanceof JObject ? info : new JObject();
  }
  return ctx;
}

/** Where the template of `d` is (a tool's or a configured prompt's), as validate writes paths. */
export function diagnosticTemplatePath(scene: Scene, d: Diagnostic): string | null {
  if (d.tool) {
    const t = toolByName(scene, d.tool);
    return t ? templatePathOf(scene, t) : null;
  }
  if (d.segment && d.prompt != null) return promptTemplatePath({ segment: d.segment, index: d.prompt });
  return null;
}

/** A render error of a template, where it is in one locale's text. */
export interface RenderProblem {
  message: string;
  range: [number, number];
  line?: number;
  column?: number;
  suggestions: string[];
}

/** The render errors (`tool_raised`, `prompt_render_failed`) the reports hold for the template at
 *  `path` in `locale`, each once (both families and every segment a tool renders in report it). */
export function renderProblems(
  scene: Scene,
  reports: { chat?: Report | null; desk?: Report | null } | null,
  path: string | null,
  locale: string,
): RenderProblem[] {
  if (!reports || !path) return [];
  const out = new Map<string, RenderProblem>();
  for (const d of [...(reports.chat?.diagnostics ?? []), ...(reports.desk?.diagnostics ?? [])]) {
    if (d.code !== 'tool_raised' && d.code !== 'prompt_render_failed') continue;
    if (!d.range || d.locale !== locale) continue;
    if (diagnosticTemplatePath(scene, d) !== path) continue;
    const key = `${d.range[0]}:${d.range[1]}`;
    // The message without what the editor already says (whose template, which locale).
    const at = d.message.indexOf(`[${d.locale}] `);
    if (!out.has(key))
      out.set(key, {
        message: at < 0 ? d.message : d.message.slice(at + d.locale.length + 3),
        range: [d.range[0], d.range[1]],
        line: d.line ?? undefined,
        column: d.column ?? undefined,
        suggestions: d.suggestions ?? [],
      });
  }
  return [...out.values()];
}

// ---- the other engine's syntax ----

const JINJA_MARK = /\{%[\s\S]*?%\}|\{#[\s\S]*?#\}|\{\{[\s\S]*?\}\}/g;
/** `{{ name }}`, `{{ a.b | upper }}`, `{% ... %}`, `{# ... #}`: what only jinja2 reads. An fstring
 *  text's `{{literal}}` is an escape, so `{{` alone is not taken for jinja2: it needs an
 *  expression-like inside, a statement or a comment. */
const JINJA_ONLY = /\{%[\s\S]*?%\}|\{#[\s\S]*?#\}|\{\{\s*[A-Za-z_][\w.[\]'"]*\s*(\|[^{}]*)?\}\}/;
/** `{name}`, `{a[b]}`, `{x:>4}`: a format field, once jinja2's constructs are taken out. */
const FSTRING_FIELD = /(?<!\{)\{[A-Za-z_][^{}\n]*\}(?!\})/;

/** What in `texts` (a template's locales) is written for the other engine than `to`, in words;
 *  null when nothing is. */
export function otherEngineSyntax(texts: string[], to: EngineName): string | null {
  if (to === 'jinja2') {
    const fields = texts.some((t) => FSTRING_FIELD.test(t.replace(JINJA_MARK, '')));
    const jinja = texts.some((t) => JINJA_MARK.test(t));
    JINJA_MARK.lastIndex = 0;
    if (fields && !jinja)
      return 'The text has fstring fields such as {name} and no {{ }} or {% %}: jinja2 prints single braces as they are, so no field would be filled in.';
    return null;
  }
  if (texts.some((t) => JINJA_ONLY.test(t)))
    return 'The text has jinja2 syntax ({{ name }}, {% %} or {# #}): fstring reads {{ and }} as literal braces and the rest as fields, so it would print the markup or fail.';
  return null;
}

// ---- the piece a template renders to ----

/** The text the template of `owner` renders to in `report`, or null when it has no piece there. */
export function pieceText(report: Report | null | undefined, owner: TemplateOwner | null): string | null {
  if (!report || !owner) return null;
  for (const s of report.segments) {
    if (owner.kind === 'configured' && s.name !== owner.segment) continue;
    for (const p of s.pieces) {
      if (owner.kind === 'configured' ? p.source === 'config' && p.index === owner.index : p.source === 'tool' && p.tool === owner.name)
        return p.text;
    }
  }
  return null;
}

/** `spec` with `active_language` set to `locale` for as long as `f` runs; then as it was. */
export function withActiveLanguage<T>(spec: JObject, locale: string, f: () => T): T {
  const had = spec.has('active_language');
  const before = spec.get('active_language');
  const at = spec.entries.findIndex(([k]) => k === 'active_language');
  spec.set('active_language', locale);
  try {
    return f();
  } finally {
    if (had) spec.entries[at] = ['active_language', before as JValue];
    else spec.delete('active_language');
  }
}
