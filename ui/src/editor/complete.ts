// Completion of the variables a template can read, as its engine reads them: fstring fields
// (`{ctx[user_input][input]}`: a name, then `[key]` per level) and jinja2 expressions
// (`{{ ctx.user_input.input }}`, `ctx['a key']`). The variables come from the owner
// (lib/template-help.ts `templateVars`), read when the completion is asked for.
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { JObject, RawNumber, type JValue } from '../lib/json';

export type EngineName = 'fstring' | 'jinja2';

function typeOf(v: JValue | undefined): string {
  if (v === null || v === undefined) return 'None';
  if (v instanceof JObject) return 'dict';
  if (Array.isArray(v)) return 'list';
  if (v instanceof RawNumber) return /[.eE]/.test(v.raw) ? 'float' : 'int';
  return typeof v === 'boolean' ? 'bool' : 'str';
}

function preview(v: JValue | undefined): string {
  if (v instanceof JObject) return `{${v.keys().slice(0, 6).join(', ')}${v.entries.length > 6 ? ', …' : ''}}`;
  if (Array.isArray(v)) return `${v.length} item${v.length === 1 ? '' : 's'}`;
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  return String(v ?? 'None');
}

/** The members of a value as completions: a dict's keys, a list's indexes. */
function members(v: JValue | undefined, write: (key: string, index: boolean) => string | null): Completion[] {
  const out: Completion[] = [];
  if (v instanceof JObject)
    for (const [k, child] of v.entries) {
      const apply = write(k, false);
      if (apply !== null) out.push({ label: k, apply, type: 'property', detail: typeOf(child), info: preview(child) });
    }
  else if (Array.isArray(v))
    v.slice(0, 50).forEach((child, i) => {
      const apply = write(String(i), true);
      if (apply !== null) out.push({ label: String(i), apply, type: 'property', detail: typeOf(child), info: preview(child) });
    });
  return out;
}

function step(v: JValue | undefined, key: string): JValue | undefined {
  if (v instanceof JObject) return v.get(key);
  if (Array.isArray(v) && /^\d+$/.test(key)) return v[Number(key)];
  return undefined;
}

/** What to complete at the end of `before` (the text of the line up to the cursor, and a bit
 *  more), for fstring: the field being written, if the cursor is in a field's name. */
export function fstringTarget(before: string): { path: string[]; partial: string; inBracket: boolean } | null {
  const open = before.lastIndexOf('{');
  if (open < 0) return null;
  // `{{` is a literal brace: the field starts only after an odd run of `{`.
  let run = 0;
  for (let i = open; i >= 0 && before[i] === '{'; i--) run++;
  if (run % 2 === 0) return null;
  const field = before.slice(open + 1);
  if (/[}!:\n]/.test(field.replace(/\[[^\]]*\]/g, ''))) return null;
  const m = /^([^.[\]]*)((?:\[[^\]]*\]|\.[^.[\]]*)*?)(?:\[([^\]]*)|\.([^.[\]]*))?$/.exec(field);
  if (!m) return null;
  const path: string[] = [];
  const root = m[1];
  if (m[2] === '' && m[3] === undefined && m[4] === undefined) return { path, partial: root, inBracket: false };
  path.push(root);
  for (const s of m[2].match(/\[[^\]]*\]|\.[^.[\]]*/g) ?? []) path.push(s.startsWith('[') ? s.slice(1, -1) : s.slice(1));
  if (m[3] !== undefined) return { path, partial: m[3], inBracket: true };
  // `.attr` reads an attribute, which a dict's keys are not in Python: nothing to offer.
  return null;
}

/** For jinja2: the path being written when the cursor is inside `{{ }}` or `{% %}`. */
export function jinjaTarget(before: string): { path: string[]; partial: string; quote: string | null; dotted: boolean } | null {
  const open = Math.max(before.lastIndexOf('{{'), before.lastIndexOf('{%'));
  if (open < 0) return null;
  const inside = before.slice(open + 2);
  if (/\}\}|%\}/.test(inside)) return null;
  const tail = /[\w.[\]'"]*$/.exec(inside)?.[0] ?? '';
  const head = inside.slice(0, inside.length - tail.length).trimEnd();
  // A filter's or a test's name is not a variable.
  if (head.endsWith('|') || /\bis(\s+not)?$/.test(head)) return null;
  const m = /^([A-Za-z_]\w*)?((?:\.\w+|\[(?:'[^']*'|"[^"]*"|\d+)\])*?)(?:\.(\w*)|\[(['"]?)([^'"\]]*))?$/.exec(tail);
  if (!m) return null;
  if (m[1] === undefined) return tail === '' ? { path: [], partial: '', quote: null, dotted: false } : null;
  if (m[2] === '' && m[3] === undefined && m[4] === undefined) return { path: [], partial: m[1], quote: null, dotted: false };
  const path = [m[1]];
  for (const s of m[2].match(/\.\w+|\[(?:'[^']*'|"[^"]*"|\d+)\]/g) ?? [])
    path.push(s.startsWith('.') ? s.slice(1) : s.slice(1, -1).replace(/^['"]|['"]$/g, ''));
  if (m[3] !== undefined) return { path, partial: m[3], quote: null, dotted: true };
  return { path, partial: m[5] ?? '', quote: m[4] || null, dotted: false };
}

const IDENT = /^[A-Za-z_]\w*$/;
/** A dict's methods win over its keys in jinja2's `d.name` (docs/templates.md). */
const DICT_METHODS = new Set(['items', 'keys', 'values', 'get', 'pop', 'update', 'copy', 'clear', 'setdefault', 'popitem', 'fromkeys']);

/** Completions for the text before the cursor (exported for tests). */
export function completeAt(engine: EngineName, before: string, vars: JObject): { from: number; options: Completion[] } | null {
  if (engine === 'fstring') {
    const t = fstringTarget(before);
    if (!t) return null;
    let v: JValue | undefined = vars;
    for (const k of t.path) v = step(v, k);
    const options = t.inBracket
      ? // A field's key runs to `]` and an all-digit one indexes: a dict key of digits cannot be written.
        members(v, (k, index) => (k.includes(']') || (!index && /^\d+$/.test(k)) ? null : `${k}]`))
      : members(v, (k) => (/^[^.[\]{}!:]+$/.test(k) ? k : null));
    return { from: before.length - t.partial.length, options };
  }
  const t = jinjaTarget(before);
  if (!t) return null;
  let v: JValue | undefined = vars;
  for (const k of t.path) v = step(v, k);
  let options: Completion[];
  if (t.quote) options = members(v, (k, index) => (index || k.includes(t.quote!) ? null : `${k}${t.quote}]`));
  else if (t.dotted || t.path.length === 0)
    options = members(v, (k, index) => (!index && IDENT.test(k) && !(t.dotted && DICT_METHODS.has(k)) ? k : null));
  else options = members(v, (k, index) => (index ? `${k}]` : null));
  return { from: before.length - t.partial.length, options };
}

/** A completion source over the variables `vars()` gives when asked. */
export function templateCompletion(engine: EngineName, vars: () => JObject): CompletionSource {
  return (cx: CompletionContext): CompletionResult | null => {
    const from = Math.max(0, cx.pos - 2000);
    const before = cx.state.sliceDoc(from, cx.pos);
    const r = completeAt(engine, before, vars());
    if (!r?.options.length) return null;
    // Unprompted, only once something of the name is typed or a `[`, `.` or `{` was just typed.
    if (!cx.explicit && r.from === before.length && !/[[.{'"]\s*$/.test(before)) return null;
    return { from: from + r.from, options: r.options, validFor: /^[^\]'".[{}]*$/ };
  };
}
