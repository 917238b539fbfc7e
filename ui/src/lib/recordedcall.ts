// What a recorded call keeps beyond its request (docs/scene-format.md, `recorded`): the reply the
// provider returned (`recorded.reply`, shown after the messages, never sent) and the prompt
// template the call was made from (`recorded.prompt`, shown with the scene's details). Read from
// the open scene's document, as the board reads its name and description.
import { JObject, type JValue, stringifyJson, toPlain } from './json';
import type { Scene } from './scene';

/** A text as the app shows it in a line: whole when short, else its start with the rest folded. */
export interface Folded {
  /** What the line shows: the whole text, or its first line cut to `inline` characters and `…`. */
  head: string;
  /** Whether there is more than `head` (the rest shows when the fold is opened). */
  folded: boolean;
  /** What the open fold shows: the text, cut to `most` characters. */
  full: string;
  /** How many characters `full` leaves out (0 when none). */
  cut: number;
}

/** A value shown in a line (`name = value`) up to this many characters; longer, or over more than
 *  one line, it folds. */
export const INLINE_CHARS = 100;
/** An open fold shows at most this many characters (a recorded variable may be a whole document). */
export const FOLD_CHARS = 20000;

/** `text` as a line shows it: whole when it is one line of at most `inline` characters, else
 *  folded after the start of its first line. */
export function foldText(text: string, inline = INLINE_CHARS, most = FOLD_CHARS): Folded {
  const cut = Math.max(0, text.length - most);
  const full = cut ? text.slice(0, most) : text;
  const firstLine = text.split('\n', 1)[0];
  if (firstLine === text && text.length <= inline) return { head: text, folded: false, full, cut };
  const start = firstLine.length > inline ? firstLine.slice(0, inline) : firstLine;
  return { head: `${start.trimEnd()}…`, folded: true, full, cut };
}

/** A variable's value as text: a string as it is, anything else as its JSON (numbers as written). */
export function valueText(v: JValue): string {
  return typeof v === 'string' ? v : stringifyJson(v, v instanceof JObject || Array.isArray(v) ? 2 : 0);
}

export interface PromptVariable {
  name: string;
  value: Folded;
  /** The value's length in characters (the fold's summary says it). */
  chars: number;
}

export interface RecordedPrompt {
  name: string | null;
  version: string | null;
  /** The template's text, when recorded. */
  template: Folded | null;
  variables: PromptVariable[];
}

function recordedOf(scene: Scene): JObject | null {
  const r = scene.get('recorded');
  return r instanceof JObject ? r : null;
}

function str(o: JObject, k: string): string | null {
  const v = o.get(k);
  return typeof v === 'string' ? v : null;
}

/** The scene's `recorded.prompt`, or null when it records none (or one with nothing in it). */
export function recordedPrompt(scene: Scene): RecordedPrompt | null {
  const p = recordedOf(scene)?.get('prompt');
  if (!(p instanceof JObject)) return null;
  const vars = p.get('variables');
  const variables = (vars instanceof JObject ? vars.entries : []).map(([name, v]) => {
    const text = valueText(v);
    return { name, value: foldText(text), chars: text.length };
  });
  const template = str(p, 'template');
  const out = {
    name: str(p, 'name'),
    version: str(p, 'version'),
    template: template === null ? null : foldText(template),
    variables,
  };
  return out.name === null && out.version === null && out.template === null && !variables.length ? null : out;
}

/** A message as the scene writes it (docs/scene-format.md, "Messages and parts"); the message
 *  cards read its content and tool calls in either of their shapes. */
export interface ReplyMessage {
  role: string;
  content?: unknown;
  name?: string | null;
  tool_call_id?: string | null;
  tool_calls?: unknown;
}

/** The scene's `recorded.reply`: the messages the provider returned. */
export function recordedReply(scene: Scene): ReplyMessage[] {
  const r = recordedOf(scene)?.get('reply');
  if (!Array.isArray(r)) return [];
  return r.flatMap((m) => {
    if (!(m instanceof JObject)) return [];
    const plain = toPlain(m) as Record<string, unknown>;
    const text = (k: string) => (typeof plain[k] === 'string' ? (plain[k] as string) : null);
    return [
      {
        role: text('role') ?? 'assistant',
        content: plain.content,
        name: text('name'),
        tool_call_id: text('tool_call_id'),
        tool_calls: plain.tool_calls,
      },
    ];
  });
}

/** The output tokens the provider billed for the reply (`recorded.usage.output`), when recorded. */
export function replyTokens(scene: Scene): number | null {
  const u = recordedOf(scene)?.get('usage');
  const out = u instanceof JObject ? toPlain(u.get('output') ?? null) : null;
  return typeof out === 'number' && Number.isFinite(out) ? out : null;
}

/** The prompt template's head line: `trip-planner, version 3` (either may be missing). */
export function promptTitle(p: RecordedPrompt): string {
  if (p.name && p.version) return `${p.name}, version ${p.version}`;
  if (p.name) return p.name;
  if (p.version) return `unnamed, version ${p.version}`;
  return 'unnamed';
}

/** A folded text's length: `218 characters`. */
export function charsText(f: Folded): string {
  const n = f.full.length + f.cut;
  return `${n.toLocaleString('en-US')} character${n === 1 ? '' : 's'}`;
}

/** A template text's size: `2 lines, 131 characters`; one cut for the fold says how much it shows. */
export function templateSize(f: Folded): string {
  if (f.cut) return `${charsText(f)}, the first ${f.full.length.toLocaleString('en-US')} shown`;
  const lines = f.full.split('\n').length;
  return `${lines.toLocaleString('en-US')} line${lines === 1 ? '' : 's'}, ${charsText(f)}`;
}
