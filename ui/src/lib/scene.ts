// Structured edits of a scene held losslessly (lib/json.ts). The UI edits the parsed tree and
// re-serialises it; numbers keep their source text, keys their order.
import { JObject, type JValue, parseJson, stringifyJson } from './json';

export const CHAT_SEGMENTS = ['system_msg_prompt', 'conversation_msgs', 'before_input_msg_prompt', 'reformat_input_prompt', 'after_input_msg_prompt', 'intermediate_msgs', 'after_intermediate_msg_prompt'];
export const DESK_SEGMENTS = ['system_prompt', 'instruction_prompt', 'original_desk_screenshot_prompt', 'intermediate_prompt', 'current_desk_screenshot_prompt', 'purpose_prompt', 'prefix_prompt'];
export const ADAPTERS = ['openai_desk', 'claude_desk', 'gemini_desk', 'deepseek_desk', 'ollama_desk', 'sglang_desk', 'openai_gen_desk', 'tencent_ds_desk'];

export type Scene = JObject;

export function parseScene(text: string): Scene {
  const v = parseJson(text);
  if (!(v instanceof JObject)) throw new Error('a scene is a JSON object');
  return v;
}

export function sceneText(s: Scene): string { return stringifyJson(s) + '\n'; }

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
  if (p instanceof JObject) { const t = p.get('template'); if (t instanceof JObject) return t; }
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
  if (!(t instanceof JObject)) { t = new JObject(); spec.set('templates', t); }
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
