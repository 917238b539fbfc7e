// The open scene and its live reports. Framework-free: the Preact app subscribes to changes.
import type { Api } from '../api/api';
import { errorText, isApiError } from '../api/api';
import type { ApiError, Report, Rules, ValidateResponse } from '../api/types';
import { JObject, stringifyJson } from './json';
import { LatestOnly, type Schedule } from './live';
import { parseScene, type Scene } from './scene';

const EMPTY_VALIDATE: ValidateResponse = { load_error: null, templates: [], tools: [] };

export interface Reports { chat: Report; desk: Report; validate: ValidateResponse; text: string }

/** Scene → text, re-serialising the (possibly huge) context only when it changed. */
export class SceneWriter {
  private ctxRef: unknown = null;
  private ctxText = '';
  private ctxDirty = true;
  invalidateContext() { this.ctxDirty = true; }
  write(s: Scene): string {
    const parts = s.entries.map(([k, v]) => {
      let body: string;
      if (k === 'context') {
        if (this.ctxDirty || this.ctxRef !== v) { this.ctxText = stringifyJson(v, 2, 1); this.ctxRef = v; this.ctxDirty = false; }
        body = this.ctxText;
      } else body = stringifyJson(v, 2, 1);
      return `  ${JSON.stringify(k)}: ${body}`;
    });
    return `{\n${parts.join(',\n')}\n}\n`;
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
  /** performance.now() of the last edit and of the paint that showed its render. */
  perf = { editAt: 0, resultAt: 0, paints: 0, last: 0, renderMs: 0 };
  private writer = new SceneWriter();
  private listeners = new Set<() => void>();
  private live: LatestOnly<string, Reports>;

  constructor(public api: Api, schedule?: Schedule) {
    this.live = new LatestOnly<string, Reports>(
      (text) => this.renderAll(text),
      (r) => { this.reports = r; this.renderError = null; this.perf.resultAt = performance.now(); this.changed(); },
      (e) => { this.renderError = isApiError(e) ? e : { code: 'internal', message: errorText(e) }; this.changed(); },
      schedule,
    );
  }

  subscribe(f: () => void) { this.listeners.add(f); return () => this.listeners.delete(f); }
  changed() { this.version++; this.listeners.forEach((f) => f()); }
  get dirty() { return this.text !== this.savedText; }
  get baseDir() { return this.path ? this.path.replace(/[\\/][^\\/]*$/, '') || '/' : null; }

  async renderAll(text: string): Promise<Reports> {
    const o = { tokens: this.tokens, baseDir: this.baseDir };
    const t0 = performance.now();
    const [chat, desk] = await Promise.all([
      this.api.render(text, { ...o, llm: 'chat', provider: this.provider }),
      this.api.render(text, { ...o, llm: 'desk' }),
    ]);
    this.perf.renderMs = performance.now() - t0;
    // Template errors (the editors' underlines) follow one request later: they do not hold up
    // the board. They are kept until the next validate answers, and dropped if stale.
    const prev = this.reports?.validate ?? EMPTY_VALIDATE;
    void this.api.validate(text).then((v) => {
      if (this.reports && this.reports.text === text) { this.reports = { ...this.reports, validate: v }; this.changed(); }
    }, () => { /* validate never fails for a bad scene; a transport error shows on the next render */ });
    return { chat, desk, validate: prev, text };
  }

  /** Replace the open scene with loaded text (the text must parse). */
  async load(text: string, path: string | null, render = true) {
    const scene = parseScene(text);
    this.scene = scene;
    this.writer.invalidateContext();
    this.text = text;
    this.savedText = text;
    this.path = path;
    this.fileError = null;
    if (text.length > 256 * 1024) this.tokens = false;
    if (path) rememberRecent(path);
    if (path) { try { this.diskModified = (await this.api.stat(path)).modified_ms; } catch { this.diskModified = 0; } }
    this.changed();
    if (render) await this.live.fire(text);
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

  /** Apply a structured edit; `context` says whether the context changed (re-serialised). */
  edit(f: (s: Scene) => void, context = false) {
    f(this.scene);
    if (context) this.writer.invalidateContext();
    this.setText(this.writer.write(this.scene), false);
  }

  /** Set the whole text (the raw JSON editor); re-parses it into the tree. */
  setText(text: string, reparse = true) {
    this.perf.editAt = performance.now();
    if (reparse) {
      try { this.scene = parseScene(text); this.writer.invalidateContext(); } catch { /* the render reports the error */ }
    }
    this.text = text;
    this.changed();
    this.live.push(text);
  }

  rerender() { this.live.push(this.text); }

  /** Poll the file on disk; returns 'changed' when it was modified outside. */
  async pollDisk(): Promise<'same' | 'changed' | 'gone'> {
    if (!this.path) return 'same';
    try {
      const st = await this.api.stat(this.path);
      return st.modified_ms !== this.diskModified ? 'changed' : 'same';
    } catch { return 'gone'; }
  }

  async reloadFromDisk(): Promise<boolean> {
    if (!this.path) return false;
    try {
      const r = await this.api.open(this.path);
      await this.load(r.text, this.path);
      return true;
    } catch (e) {
      this.fileError = `The file changed on disk but does not load: ${errorText(e)}`;
      try { this.diskModified = (await this.api.stat(this.path)).modified_ms; } catch { /* keep */ }
      this.changed();
      return false;
    }
  }

  /** Acknowledge an outside change without loading it (keep the edits). */
  async ignoreDisk() { if (this.path) this.diskModified = (await this.api.stat(this.path)).modified_ms; }
}

const RECENT_KEY = 'prompt-inspector.recent';

/** The last opened or saved scene files, newest first (kept in the page's localStorage). */
export function recentFiles(): string[] {
  try { const v = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]'); return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []; } catch { return []; }
}

export function rememberRecent(path: string) {
  try { localStorage.setItem(RECENT_KEY, JSON.stringify([path, ...recentFiles().filter((p) => p !== path)].slice(0, 10))); } catch { /* storage unavailable */ }
}
