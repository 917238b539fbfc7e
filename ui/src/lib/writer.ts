// The scene writer: the open scene's tree back to text, keeping what an edit did not touch.
import { JObject, stringifyJson, type JValue } from './json';
import type { TextOrigin } from './live';
import type { Scene } from './scene';

/**
 * Scene → text. The text of a loaded file is kept where an edit did not change a top-level
 * value (its formatting, and byte for byte what the core already has), and the context (most of
 * a large scene) is re-serialised only when it changed.
 */
export class SceneWriter {
  private ctxRef: unknown = null;
  private ctxText = '';
  private ctxDirty = true;
  /** Whether the context is still the loaded text's (copied from it as it was). */
  private ctxFromBase = false;
  /** The loaded text, its top-level value ranges, and each value as this writer would write it. */
  private base: { text: string; keys: string[]; spans: Map<string, [number, number]>; written: Map<string, string> } | null = null;
  /**
   * The loaded tools' texts, when the loaded text holds the tools array exactly as this writer
   * writes it: a keystroke in one tool then leaves every other tool's text where it was, so the
   * untouched head and tail reach up to the edited tool (`origin`).
   */
  private baseTools: string[] | null = null;
  /** Which base the last text was written from, and how much of the base text it starts with. */
  private generation = 0;
  origin: TextOrigin | undefined;
  /** Each tool's text, kept until an edit may have changed that tool. */
  private toolText = new WeakMap<JObject, string>();
  invalidateContext() {
    this.ctxDirty = true;
    this.ctxFromBase = false;
  }

  /**
   * Note an edit made inside `scope` (a validate-style path: `tools[3].format_2_prompt.source`,
   * `chat_llm.system_msg_prompt[0]`); without one, anything may have changed. A keystroke in a
   * tool's template then re-serialises that tool only, not every tool of a large scene.
   */
  invalidate(scope?: string, scene?: Scene) {
    if (scope === undefined) {
      this.toolText = new WeakMap();
      return;
    }
    const m = /^tools\[(\d+)\]/.exec(scope);
    if (m && scene) {
      const t = scene.get('tools');
      const tool = Array.isArray(t) ? t[Number(m[1])] : undefined;
      if (tool instanceof JObject) this.toolText.delete(tool);
      return;
    }
    if (scope.startsWith('tools')) this.toolText = new WeakMap();
  }

  /** Start from a loaded text (and its scene), whose formatting untouched parts keep. */
  adopt(text: string, scene: Scene, spans: Map<string, [number, number]>) {
    this.invalidateContext();
    this.generation++;
    this.origin = { base: this.generation, text, stable: text.length, stableTail: 0, middle: '' };
    this.baseTools = null;
    const keys = scene.keys();
    if (keys.some((k) => !spans.has(k)) || new Set(keys).size !== keys.length) {
      this.base = null;
      return;
    }
    const written = new Map<string, string>();
    for (const [k, v] of scene.entries) if (k !== 'context') written.set(k, this.value(k, v));
    this.base = { text, keys, spans, written };
    const tools = scene.get('tools');
    const span = spans.get('tools');
    this.baseTools =
      Array.isArray(tools) && tools.length && span && text.slice(span[0], span[1]) === written.get('tools') ? this.toolItems(tools) : null;
    const ctx = scene.get('context');
    if (ctx !== undefined) {
      this.ctxRef = ctx;
      this.ctxDirty = false;
      this.ctxText = '';
      this.ctxFromBase = true;
    }
  }

  /** Forget the loaded text (the raw editor replaced it). */
  detach() {
    this.base = null;
    this.baseTools = null;
    this.generation++;
    this.invalidateContext();
  }

  write(s: Scene): string {
    const b = this.base;
    if (b && s.entries.length === b.keys.length && s.entries.every(([k], i) => k === b.keys[i])) {
      // Splice the changed values into the loaded text, in file order. The text is left as the
      // pieces it is made of: nothing here reads it whole (copying a megabyte scene into one string
      // took most of a keystroke's script), and the origin says what lies between the untouched
      // head and tail.
      let out = '';
      let at = 0;
      let stable = -1;
      let stableTail = 0;
      /** The text from `stable` up to the last changed value; that value and where it starts. */
      let before = '';
      let last = '';
      let lastHead = 0;
      let lastTail = 0;
      for (const [k, v] of s.entries) {
        const [start, end] = b.spans.get(k)!;
        let body: string | null;
        let head = 0;
        let tail = 0;
        // Once edited, the context is written from the tree in every later text too (not copied
        // back from the loaded text, which would undo the edit at the next keystroke elsewhere).
        if (k === 'context') body = this.ctxFromBase && this.ctxRef === v ? null : this.context(v);
        else if (k === 'tools' && this.baseTools && Array.isArray(v) && v.length) {
          const items = this.toolItems(v);
          body = joinTools(items);
          if (body === b.written.get(k)) body = null;
          else [head, tail] = untouchedTools(this.baseTools, items);
        } else {
          const w = this.value(k, v);
          body = w === b.written.get(k) ? null : w;
        }
        if (body === null) continue;
        if (stable < 0) stable = start + head;
        else {
          before += last.slice(lastHead) + b.text.slice(at, start);
          head = 0;
        }
        last = body;
        lastHead = head;
        // Head and tail may overlap (a tool removed): the tail gives way.
        lastTail = Math.min(tail, body.length - head);
        stableTail = b.text.length - end + lastTail;
        out += b.text.slice(at, start) + body;
        at = end;
      }
      this.origin =
        stable < 0
          ? { base: this.generation, text: b.text, stable: b.text.length, stableTail: 0, middle: '' }
          : { base: this.generation, text: b.text, stable, stableTail, middle: before + last.slice(lastHead, last.length - lastTail) };
      return out + b.text.slice(at);
    }
    this.origin = undefined;
    const parts = s.entries.map(([k, v]) => `  ${JSON.stringify(k)}: ${k === 'context' ? this.context(v) : this.value(k, v)}`);
    return `{\n${parts.join(',\n')}\n}\n`;
  }

  /** A top-level value as `stringifyJson(v, 2, 1)` writes it, tools from the cache. */
  private value(k: string, v: JValue): string {
    if (k !== 'tools' || !Array.isArray(v) || !v.length) return stringifyJson(v, 2, 1);
    return joinTools(this.toolItems(v));
  }

  /** Each tool's text as an item of the tools array, from the cache where it is kept. */
  private toolItems(v: JValue[]): string[] {
    return v.map((t) => {
      if (!(t instanceof JObject)) return stringifyJson(t, 2, 2);
      let text = this.toolText.get(t);
      if (text === undefined) {
        text = stringifyJson(t, 2, 2);
        this.toolText.set(t, text);
      }
      return text;
    });
  }

  private context(v: JValue): string {
    if (this.ctxDirty || this.ctxRef !== v || !this.ctxText) {
      this.ctxText = stringifyJson(v, 2, 1);
      this.ctxRef = v;
      this.ctxDirty = false;
      this.ctxFromBase = false;
    }
    return this.ctxText;
  }
}

const TOOLS_OPEN = '[\n    ';
const TOOLS_SEPARATOR = ',\n    ';
const TOOLS_CLOSE = '\n  ]';

/** A non-empty tools array from its items' texts, as `stringifyJson(tools, 2, 1)` writes it. */
function joinTools(items: string[]): string {
  return TOOLS_OPEN + items.join(TOOLS_SEPARATOR) + TOOLS_CLOSE;
}

/**
 * How many characters at the head and at the tail of `joinTools(items)` are those of
 * `joinTools(was)`: the items that are the same from the start, and from the end (an item kept in
 * the cache is the same string, so most compare by address). Each count is true of both texts on
 * its own; the two may overlap by a separator (an item removed), and `write` shortens the tail.
 */
function untouchedTools(was: string[], items: string[]): [number, number] {
  const both = Math.min(was.length, items.length);
  let first = 0;
  let head = TOOLS_OPEN.length;
  while (first < both && was[first] === items[first]) head += items[first++].length + TOOLS_SEPARATOR.length;
  // The last item of either list is followed by the closing bracket, not a separator.
  if (first === both && first > 0) head -= TOOLS_SEPARATOR.length;
  let last = 0;
  let tail = TOOLS_CLOSE.length;
  while (last < both - first && was[was.length - 1 - last] === items[items.length - 1 - last])
    tail += items[items.length - 1 - last++].length + TOOLS_SEPARATOR.length;
  // Likewise the first item of either list follows the opening bracket.
  if (last === both && last > 0) tail -= TOOLS_SEPARATOR.length;
  return [head, tail];
}
