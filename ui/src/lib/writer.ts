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
    this.origin = { base: this.generation, stable: text.length };
    const keys = scene.keys();
    if (keys.some((k) => !spans.has(k)) || new Set(keys).size !== keys.length) {
      this.base = null;
      return;
    }
    const written = new Map<string, string>();
    for (const [k, v] of scene.entries) if (k !== 'context') written.set(k, stringifyJson(v, 2, 1));
    this.base = { text, keys, spans, written };
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
    this.generation++;
    this.invalidateContext();
  }

  write(s: Scene): string {
    const b = this.base;
    if (b && s.entries.length === b.keys.length && s.entries.every(([k], i) => k === b.keys[i])) {
      // Splice the changed values into the loaded text, in file order.
      let out = '';
      let at = 0;
      let stable = -1;
      for (const [k, v] of s.entries) {
        const [start, end] = b.spans.get(k)!;
        let body: string | null;
        // Once edited, the context is written from the tree in every later text too (not copied
        // back from the loaded text, which would undo the edit at the next keystroke elsewhere).
        if (k === 'context') body = this.ctxFromBase && this.ctxRef === v ? null : this.context(v);
        else {
          const w = this.value(k, v);
          body = w === b.written.get(k) ? null : w;
        }
        if (body === null) continue;
        if (stable < 0) stable = start;
        out += b.text.slice(at, start) + body;
        at = end;
      }
      this.origin = { base: this.generation, stable: stable < 0 ? b.text.length : stable };
      return out + b.text.slice(at);
    }
    this.origin = undefined;
    const parts = s.entries.map(([k, v]) => `  ${JSON.stringify(k)}: ${k === 'context' ? this.context(v) : this.value(k, v)}`);
    return `{\n${parts.join(',\n')}\n}\n`;
  }

  /** A top-level value as `stringifyJson(v, 2, 1)` writes it, tools from the cache. */
  private value(k: string, v: JValue): string {
    if (k !== 'tools' || !Array.isArray(v) || !v.length) return stringifyJson(v, 2, 1);
    const items = v.map((t) => {
      if (!(t instanceof JObject)) return stringifyJson(t, 2, 2);
      let text = this.toolText.get(t);
      if (text === undefined) {
        text = stringifyJson(t, 2, 2);
        this.toolText.set(t, text);
      }
      return text;
    });
    return `[\n    ${items.join(',\n    ')}\n  ]`;
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
