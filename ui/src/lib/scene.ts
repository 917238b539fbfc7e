// Structured edits of a scene held losslessly (lib/json.ts). The UI edits the parsed tree and
// re-serialises it; numbers keep their source text, keys their order.
import type { Rules } from '../api/types';
import { JObject, RawNumber, type JValue, parseJson, stringifyJson } from './json';

/**
 * The segments of each family in assembly order, the ones holding configured prompts, and the desk
 * adapters: the core's own lists (its `rules` operation), set once at start-up before a scene
 * opens (`adoptCoreLayout`), so the UI keeps no copy of them.
 */
const layout = {
  chat: [] as string[],
  desk: [] as string[],
  chatPrompts: [] as string[],
  deskPrompts: [] as string[],
  adapters: [] as string[],
};

export function adoptCoreLayout(rules: Rules) {
  const of = (f: string) => rules.segments.filter((x) => x.family === f).sort((a, b) => a.order - b.order);
  // The message streams are the segments the architecture boundary closes: they hold messages,
  // not configured prompts.
  const prompts = (f: string) =>
    of(f)
      .filter((x) => x.rule !== 'architecture_boundary')
      .map((x) => x.name);
  layout.chat = of('chat').map((x) => x.name);
  layout.desk = of('desk').map((x) => x.name);
  layout.chatPrompts = prompts('chat');
  layout.deskPrompts = prompts('desk');
  layout.adapters = [...rules.adapters];
}

/** A family's segments in assembly order. */
export function segmentsOf(f: Family): readonly string[] {
  return f === 'chat' ? layout.chat : layout.desk;
}
/** A family's segments that hold configured prompts (the two message streams hold none). */
export function promptSegmentsOf(f: Family): readonly string[] {
  return f === 'chat' ? layout.chatPrompts : layout.deskPrompts;
}
/** The DeskLLM adapters a scene may name, the default first. */
export function adapters(): readonly string[] {
  return layout.adapters;
}

export type Scene = JObject;

export function parseScene(text: string, top?: Map<string, [number, number]>): Scene {
  const v = parseJson(text, top);
  if (!(v instanceof JObject)) throw new Error('a scene is a JSON object');
  return v;
}

export function sceneText(s: Scene): string {
  return `${stringifyJson(s)}\n`;
}

export function tools(s: Scene): JObject[] {
  const t = s.get('tools');
  return Array.isArray(t) ? (t.filter((x) => x instanceof JObject) as JObject[]) : [];
}

export function toolByName(s: Scene, name: string): JObject | undefined {
  return tools(s).find((t) => t.get('name') === name);
}

export function position(tool: JObject): [string | null, string | null] | null {
  const p = tool.get('prompt_position');
  if (!Array.isArray(p)) return null;
  return [typeof p[0] === 'string' ? p[0] : null, typeof p[1] === 'string' ? p[1] : null];
}

export function setPosition(tool: JObject, pos: [string | null, string | null] | null) {
  tool.set('prompt_position', pos ? [pos[0], pos[1]] : null);
}

export function returnsKind(tool: JObject): string {
  const f = tool.get('format_2_prompt');
  if (!(f instanceof JObject)) return 'default';
  const r = f.get('returns');
  return typeof r === 'string' ? r : 'default';
}

/** The template spec of a `returns: str` tool (source), or of a `returns: prompt` tool (prompt.template). */
export function toolTemplate(tool: JObject): JObject | null {
  const f = tool.get('format_2_prompt');
  if (!(f instanceof JObject)) return null;
  const src = f.get('source');
  if (src instanceof JObject) return src;
  const p = f.get('prompt');
  if (p instanceof JObject) {
    const t = p.get('template');
    if (t instanceof JObject) return t;
  }
  return null;
}

export function templatePathOf(s: Scene, tool: JObject): string | null {
  const i = tools(s).indexOf(tool);
  const f = tool.get('format_2_prompt');
  if (!(f instanceof JObject)) return null;
  if (f.get('source') instanceof JObject) return `tools[${i}].format_2_prompt.source`;
  if (f.get('prompt') instanceof JObject) return `tools[${i}].format_2_prompt.prompt.template`;
  return null;
}

export function engineOf(spec: JObject | null): 'fstring' | 'jinja2' {
  return spec?.get('engine') === 'jinja2' ? 'jinja2' : 'fstring';
}

export function locales(spec: JObject | null): string[] {
  const t = spec?.get('templates');
  return t instanceof JObject ? t.keys() : [];
}

export function templateText(spec: JObject | null, locale: string): string {
  const t = spec?.get('templates');
  const v = t instanceof JObject ? t.get(locale) : undefined;
  return typeof v === 'string' ? v : '';
}

export function setTemplateText(spec: JObject, locale: string, text: string) {
  let t = spec.get('templates');
  if (!(t instanceof JObject)) {
    t = new JObject();
    spec.set('templates', t);
  }
  (t as JObject).set(locale, text);
}

export function getPath(s: JValue, path: (string | number)[]): JValue | undefined {
  let cur: JValue | undefined = s;
  for (const k of path) {
    if (cur instanceof JObject && typeof k === 'string') cur = cur.get(k);
    else if (Array.isArray(cur) && typeof k === 'number') cur = cur[k];
    else return undefined;
  }
  return cur;
}

export function setPath(s: JValue, path: (string | number)[], v: JValue) {
  const parent = getPath(s, path.slice(0, -1));
  const k = path[path.length - 1];
  if (parent instanceof JObject && typeof k === 'string') parent.set(k, v);
  else if (Array.isArray(parent) && typeof k === 'number') parent[k] = v;
}

// ---- configured prompts (chat_llm / desk_llm segment lists) ----

export type Family = 'chat' | 'desk';

/** Which LLM a segment belongs to (the two families share no segment name). */
export function familyOf(segment: string): Family | null {
  return layout.chat.includes(segment) ? 'chat' : layout.desk.includes(segment) ? 'desk' : null;
}

/** A configured prompt's one name in the app: `configured prompt 0 of system_msg_prompt` (the
 *  board, inside the segment's card, says `configured prompt 0`). */
export function promptName(segment: string, index: number): string {
  return `configured prompt ${index} of ${segment}`;
}

/** A configured prompt: the `index`th entry of a segment list of `chat_llm` or `desk_llm`. */
export interface PromptRef {
  segment: string;
  index: number;
}

export interface ConfiguredPrompt extends PromptRef {
  family: Family;
  prompt: JObject;
  path: string;
}

function blockOf(family: Family) {
  return family === 'chat' ? 'chat_llm' : 'desk_llm';
}

/** The JSON path of a configured prompt's template, as `validate` writes it. */
export function promptTemplatePath(r: PromptRef): string {
  return `${blockOf(familyOf(r.segment) ?? 'chat')}.${r.segment}[${r.index}].template`;
}

/** Every configured prompt, chat then desk, each family in assembly order. */
export function configuredPrompts(s: Scene): ConfiguredPrompt[] {
  const out: ConfiguredPrompt[] = [];
  for (const [family, segs] of [
    ['chat', layout.chatPrompts],
    ['desk', layout.deskPrompts],
  ] as const) {
    const block = s.get(blockOf(family));
    if (!(block instanceof JObject)) continue;
    for (const segment of segs) {
      const list = block.get(segment);
      if (!Array.isArray(list)) continue;
      list.forEach((p, index) => {
        if (p instanceof JObject) out.push({ family, segment, index, prompt: p, path: promptTemplatePath({ segment, index }) });
      });
    }
  }
  return out;
}

export function configuredPrompt(s: Scene, r: PromptRef): JObject | undefined {
  const f = familyOf(r.segment);
  const block = f && s.get(blockOf(f));
  const list = block instanceof JObject ? block.get(r.segment) : undefined;
  const p = Array.isArray(list) ? list[r.index] : undefined;
  return p instanceof JObject ? p : undefined;
}

/** A prompt's template spec (`{engine, templates, active_language?}`). */
export function promptTemplate(p: JObject | undefined): JObject | null {
  const t = p?.get('template');
  return t instanceof JObject ? t : null;
}

export function newTemplate(engine: 'fstring' | 'jinja2' = 'fstring', text = ''): JObject {
  return new JObject([
    ['engine', engine],
    ['templates', new JObject([['default', text]])],
  ]);
}

export function newPrompt(template: JObject = newTemplate()): JObject {
  return new JObject([
    ['kind', 'normalize'],
    ['template', template],
  ]);
}

/** Append an empty `normalize` prompt to a segment list (creating the block and the list);
 *  returns its index. */
export function addConfiguredPrompt(s: Scene, segment: string, prompt: JObject = newPrompt()): number {
  const f = familyOf(segment);
  if (!f) throw new Error(`unknown segment ${segment}`);
  let block = s.get(blockOf(f));
  if (!(block instanceof JObject)) {
    block = new JObject();
    // Keep the file's usual order: chat_llm and desk_llm before the tools.
    const at = s.entries.findIndex(([k]) => k === 'tools' || k === 'run' || (f === 'chat' && k === 'desk_llm'));
    if (at < 0) s.entries.push([blockOf(f), block]);
    else s.entries.splice(at, 0, [blockOf(f), block]);
  }
  let list = (block as JObject).get(segment);
  if (!Array.isArray(list)) {
    list = [];
    // A new list goes in assembly order among the block's other segment lists.
    const order = segmentsOf(f);
    const entries = (block as JObject).entries;
    const at = entries.findIndex(([k]) => order.indexOf(k) > order.indexOf(segment));
    if (at < 0) entries.push([segment, list]);
    else entries.splice(at, 0, [segment, list]);
  }
  (list as JValue[]).push(prompt);
  return (list as JValue[]).length - 1;
}

/** Remove a configured prompt; an emptied segment list is removed too. */
export function removeConfiguredPrompt(s: Scene, r: PromptRef) {
  const f = familyOf(r.segment);
  const block = f && s.get(blockOf(f));
  if (!(block instanceof JObject)) return;
  const list = block.get(r.segment);
  if (!Array.isArray(list) || r.index >= list.length) return;
  list.splice(r.index, 1);
  if (!list.length) block.delete(r.segment);
}

/** The locale a template renders with: `active_language` when it has it, else `default`. */
export function renderedLocale(spec: JObject | null): string | null {
  const t = spec?.get('templates');
  if (!(t instanceof JObject)) return null;
  const a = spec!.get('active_language');
  if (typeof a === 'string' && t.has(a)) return a;
  return t.has('default') ? 'default' : null;
}

export function setEngine(spec: JObject, engine: 'fstring' | 'jinja2') {
  spec.set('engine', engine);
}

/** Remove a locale; the last one is kept (a template needs a text). */
export function removeLocale(spec: JObject, locale: string) {
  const t = spec.get('templates');
  if (t instanceof JObject && t.entries.length > 1) t.delete(locale);
}

// ---- what a tool's _format_2_prompt returns ----

/** `default` is "not overridden": no `format_2_prompt` field. */
export const RETURNS_KINDS = ['default', 'str', 'prompt', 'none', 'raise', 'invalid'] as const;
export type ReturnsKind = (typeof RETURNS_KINDS)[number];

/** The `format_2_prompt` objects a tool had before its kind was changed, by kind: switching back
 *  restores them (the raise message, the invalid value, a prompt's kind and attachments). */
export type ReturnsStash = Map<string, JObject>;

/** Switch what a tool's `_format_2_prompt` returns, writing the scene format's shape (each kind has
 *  exactly its own fields, which the loader requires). The template moves between `str`
 *  (`source`) and `prompt` (`prompt.template`); `default` removes the field. */
export function setReturnsKind(tool: JObject, kind: ReturnsKind, stash: ReturnsStash = new Map()) {
  const cur = tool.get('format_2_prompt');
  const curKind = returnsKind(tool);
  if (kind === curKind) return;
  const tpl = toolTemplate(tool);
  if (cur instanceof JObject) stash.set(curKind, cur);
  if (tpl) stash.set('template', tpl);
  if (kind === 'default') {
    tool.delete('format_2_prompt');
    return;
  }
  const old = stash.get(kind);
  const template = () => tpl ?? stash.get('template') ?? newTemplate();
  let f: JObject;
  switch (kind) {
    case 'str':
      f = new JObject([
        ['returns', 'str'],
        ['source', template()],
      ]);
      break;
    case 'prompt': {
      const p = old?.get('prompt');
      const prompt = p instanceof JObject ? p : newPrompt();
      prompt.set('template', template());
      f = new JObject([
        ['returns', 'prompt'],
        ['prompt', prompt],
      ]);
      break;
    }
    case 'none':
      f = new JObject([['returns', 'none']]);
      break;
    case 'raise': {
      const e = old?.get('error');
      f = new JObject([
        ['returns', 'raise'],
        ['error', typeof e === 'string' ? e : `${String(tool.get('name') ?? 'tool')} failed`],
      ]);
      break;
    }
    case 'invalid': {
      const v = old?.get('value');
      f = new JObject([
        ['returns', 'invalid'],
        ['value', v === undefined ? new RawNumber('42') : v],
      ]);
      break;
    }
  }
  tool.set('format_2_prompt', f);
}
