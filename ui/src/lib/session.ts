// The open scene and its live reports. Framework-free: the Preact app subscribes to changes.
import type { Api } from '../api/api';
import { errorText, isApiError } from '../api/api';
import type { ApiError, LiveOptions, Report, Rules, ValidateResponse } from '../api/types';
import { JObject, stringifyJson, type JValue } from './json';
import { LiveClient, type TextOrigin } from './live';
import { parseScene, type Scene } from './scene';

export interface Reports {
  chat: Report;
  desk: Report;
  validate: ValidateResponse;
  text: string;
}

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

export class Session {
  scene: Scene = new JObject();
  text = '';
  savedText = '';
  path: string | null = null;
  diskModified = 0;
  reports: Reports | null = null;
  renderError: ApiError | null = null;
  fileError: string | null = null;
  notice: string | null = null;
  rules: Rules | null = null;
  tokens = true;
  provider: 'openai' | 'anthropic' | null = null;
  /** Bumped on every change; the UI re-renders on it. */
  version = 0;
  /** Bumped when the context may have changed (a load, a re-parse, a context edit): the tree view re-renders on it only. */
  contextVersion = 0;
  /**
   * performance.now() of the last edit and of the result that answered it; `renderMs` is the
   * round trip of the last live edit and `coreMs` the core's share of it; `last` is keystroke to
   * paint and `fromAnswer` the answer's arrival to paint, split in `phases`: answer to the DOM
   * update (the window's re-render), to the next animation frame, to after that frame's paint.
   * `typedFrameAt` is the start of the first frame after the edit (the one that shows the typed
   * character), and `lag` how much later the frame that showed the board began.
   */
  perf = { editAt: 0, resultAt: 0, paints: 0, last: 0, fromAnswer: 0, renderMs: 0, coreMs: 0, phases: [0, 0, 0], typedFrameAt: 0, lag: 0 };
  private writer = new SceneWriter();
  private listeners = new Set<() => void>();
  private live: LiveClient;
  /** What the writer knows about `text` (see `TextOrigin`). */
  private origin: TextOrigin | undefined;

  constructor(public api: Api) {
    this.live = new LiveClient(
      api,
      (r) => {
        this.reports = { ...r.tree, text: r.text };
        this.renderError = null;
        this.perf.resultAt = performance.now();
        this.perf.renderMs = r.roundTripMs;
        this.perf.coreMs = r.coreMs;
        this.changed();
      },
      (e) => {
        this.renderError = isApiError(e) ? e : { code: 'internal', message: errorText(e) };
        this.changed();
      },
    );
  }

  subscribe(f: () => void) {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }
  changed() {
    this.version++;
    for (const f of this.listeners) f();
  }
  get dirty() {
    return this.text !== this.savedText;
  }
  get baseDir() {
    return this.path ? this.path.replace(/[\\/][^\\/]*$/, '') || '/' : null;
  }

  /** How the live document renders. */
  get liveOptions(): LiveOptions {
    return { base_dir: this.baseDir, provider: this.provider, tokenizer: null, tokens: this.tokens };
  }

  /** Resolves when the board shows the latest text (tests, the journey). */
  settled() {
    return this.live.idle();
  }

  /** Replace the open scene with loaded text (the text must parse). */
  async load(text: string, path: string | null, render = true) {
    const spans = new Map<string, [number, number]>();
    const scene = parseScene(text, spans);
    this.scene = scene;
    this.contextVersion++;
    this.writer.invalidate();
    this.writer.adopt(text, scene, spans);
    this.text = text;
    this.savedText = text;
    this.path = path;
    this.fileError = null;
    if (text.length > 256 * 1024) this.tokens = false;
    if (path) rememberRecent(path);
    if (path) {
      try {
        this.diskModified = (await this.api.stat(path)).modified_ms;
      } catch {
        this.diskModified = 0;
      }
    }
    this.changed();
    this.live.reset();
    this.origin = this.writer.origin;
    if (render) {
      this.live.push(text, this.liveOptions, this.origin);
      await this.live.idle();
    }
  }

  async openDefault() {
    const r = await this.api.defaultScene();
    await this.load(r.text, r.path);
  }

  /** Open a file; a bad file reports its error and leaves the open scene as it was. */
  async open(path: string): Promise<boolean> {
    try {
      const r = await this.api.open(path);
      await this.load(r.text, r.path ?? path);
      return true;
    } catch (e) {
      this.fileError = errorText(e);
      this.changed();
      return false;
    }
  }

  async save(path = this.path): Promise<boolean> {
    if (!path) return false;
    try {
      const st = await this.api.save(path, this.text);
      this.savedText = this.text;
      this.path = path;
      this.diskModified = st.modified_ms;
      this.fileError = null;
      this.notice = `Saved ${path}`;
      rememberRecent(path);
      this.changed();
      return true;
    } catch (e) {
      this.fileError = `Save failed: ${errorText(e)}`;
      this.changed();
      return false;
    }
  }

  /**
   * Apply a structured edit; `context` says whether the context changed (re-serialised), `scope`
   * where the edit was made when it is known (see `SceneWriter.invalidate`).
   */
  edit(f: (s: Scene) => void, context = false, scope?: string) {
    f(this.scene);
    if (context) {
      this.writer.invalidateContext();
      this.contextVersion++;
    }
    this.writer.invalidate(scope, this.scene);
    this.setText(this.writer.write(this.scene), false, this.writer.origin);
  }

  /** Set the whole text (the raw JSON editor); re-parses it into the tree. */
  setText(text: string, reparse = true, origin?: TextOrigin) {
    const at = performance.now();
    this.perf.editAt = at;
    this.perf.typedFrameAt = 0;
    if (typeof requestAnimationFrame === 'function')
      requestAnimationFrame(() => {
        if (this.perf.editAt === at) this.perf.typedFrameAt = performance.now();
      });
    if (reparse) {
      try {
        this.scene = parseScene(text);
        this.contextVersion++;
        this.writer.detach();
        this.writer.invalidate();
      } catch {
        /* the render reports the error */
      }
    }
    const wasDirty = this.dirty;
    this.text = text;
    this.origin = origin;
    this.live.push(text, this.liveOptions, origin);
    // The editor that made the edit already shows it; the rest of the window changes when the
    // render answers. Re-rendering everything now would only delay that answer (one keystroke of
    // work on the main thread), except for the unsaved marker, which must show at once.
    if (reparse || wasDirty !== this.dirty) this.changed();
  }

  rerender() {
    this.live.push(this.text, this.liveOptions, this.origin);
  }

  /** Poll the file on disk; returns 'changed' when it was modified outside. */
  async pollDisk(): Promise<'same' | 'changed' | 'gone'> {
    if (!this.path) return 'same';
    try {
      const st = await this.api.stat(this.path);
      return st.modified_ms !== this.diskModified ? 'changed' : 'same';
    } catch {
      return 'gone';
    }
  }

  async reloadFromDisk(): Promise<boolean> {
    if (!this.path) return false;
    try {
      const r = await this.api.open(this.path);
      await this.load(r.text, this.path);
      return true;
    } catch (e) {
      this.fileError = `The file changed on disk but does not load: ${errorText(e)}`;
      try {
        this.diskModified = (await this.api.stat(this.path)).modified_ms;
      } catch {
        /* keep */
      }
      this.changed();
      return false;
    }
  }

  /** Acknowledge an outside change without loading it (keep the edits). */
  async ignoreDisk() {
    if (this.path) this.diskModified = (await this.api.stat(this.path)).modified_ms;
  }
}

const RECENT_KEY = 'prompt-inspector.recent';

/** The last opened or saved scene files, newest first (kept in the page's localStorage). */
export function recentFiles(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberRecent(path: string) {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify([path, ...recentFiles().filter((p) => p !== path)].slice(0, 10)));
  } catch {
    /* storage unavailable */
  }
}
