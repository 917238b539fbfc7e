// The open scene and its live reports. Framework-free: the Preact app subscribes to changes.
import type { Api } from '../api/api';
import { errorText, isApiError } from '../api/api';
import type { ApiError, LiveOptions, ModelInfo, Report, Rules, ValidateResponse } from '../api/types';
import { initialModel, rememberModel, rememberedModel } from './costs';
import { JObject } from './json';
import { LiveClient, type TextOrigin } from './live';
import { rememberRecent } from './recent';
import { type ChatProvider, chatProviderOf, writeDesk } from './preview';
import { parseScene, type Scene } from './scene';
import { SceneWriter } from './writer';

/**
 * Scenes up to this many UTF-16 code units open with tokens counted. Counting on every keystroke
 * costs about one render again (docs/performance.md, "Token counts (issue 15)"): the generated
 * 0.86 MB scene stays interactive; beyond this the toolbar's switch turns it on.
 */
const TOKENS_UP_TO = 4 * 1024 * 1024;

export interface Reports {
  chat: Report;
  desk: Report;
  validate: ValidateResponse;
  text: string;
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
  /** The error code of the last failed open (`path_not_chosen`: the app may open it once the person picks it). */
  fileErrorCode: string | null = null;
  notice: string | null = null;
  /** The file changed on disk while there were unsaved edits: the user chooses (reload or keep). */
  diskConflict = false;
  rules: Rules | null = null;
  tokens = true;
  /** Whether the board shows the chat request body (built for the picked model's provider). */
  chatBody = false;
  /** A DeskLLM adapter the board previews the request body of, or null (the picked model's):
   *  looking, not an edit of the scene (`writeDeskPreview` is). */
  previewAdapter: string | null = null;
  /** The chat body provider the current reports were rendered with (a model change re-renders). */
  reportsProvider: ChatProvider | null = null;
  /** The built-in models table (the `models` operation), for the picker; empty until loaded. */
  models: ModelInfo[] = [];
  /** The picked model's row id: the reports are priced for it (`costs`), the run view too. */
  model: string | null = null;
  /** The picked model's row of the table. */
  get modelInfo(): ModelInfo | null {
    return this.models.find((m) => m.id === this.model) ?? null;
  }
  /** The chat body's provider: the picked model's, when the body is shown and the core builds
   *  that provider's body; one choice with the priced model. */
  get provider(): ChatProvider | null {
    return this.chatBody ? chatProviderOf(this.modelInfo) : null;
  }
  /**
   * A template editor to show, and the line to put the cursor on (a diagnostic's link): the editor
   * of the template at `path` takes it when it is on screen. `seq` tells two requests apart.
   */
  reveal: { path: string; line: number | null; seq: number } | null = null;
  /** Bumped when the recent-files list may have changed (an open, a save, the menu's Clear): the
   *  header reads the list again then, not on every keystroke's answer. */
  recentVersion = 0;
  /** The reports' costs are the previous text's while the core prices the new one. */
  costsPending = false;
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
  /**
   * The version whose only change is the answer to a keystroke: the board shows it in the next
   * frame, the panels around it after it (`usePanelsVersion`, views/held.tsx).
   */
  boardFirst = 0;
  /** The last edit was typed in an editor (a template's or the scene's text), not a click. */
  private typed = false;
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
        this.reportsProvider = r.options.provider ?? null;
        this.costsPending = r.costsPending;
        this.renderError = null;
        // A settle only prices what is shown: it is not the answer to a keystroke.
        if (!r.settle) {
          this.perf.resultAt = performance.now();
          this.perf.renderMs = r.roundTripMs;
          this.perf.coreMs = r.coreMs;
          if (this.typed) this.boardFirst = this.version + 1;
        }
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
  /** The recent-files list changed outside the session (cleared from the menu): the header re-reads it. */
  recentFilesChanged() {
    this.recentVersion++;
    this.changed();
  }
  /** Views change the session through its actions; each action tells the subscribers here. */
  private changed() {
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
    return {
      base_dir: this.baseDir,
      provider: this.provider,
      tokenizer: null,
      tokens: this.tokens,
      models: this.model ? [this.model] : [],
    };
  }

  /** Reads the models table and picks the model: the one picked last time, else the table's
   *  first default. Without the table (an older core) nothing is priced. */
  async loadModels() {
    try {
      this.models = (await this.api.models()).models;
    } catch {
      this.models = [];
    }
    this.model = initialModel(this.models, rememberedModel());
  }

  /** Resolves when the board shows the latest text (tests, the journey). */
  settled() {
    return this.live.idle();
  }

  /**
   * A call the Live view put on the board (its label): shown read-only until saved, with no path,
   * so Save asks for one. Null for a scene opened from a file or the default.
   */
  received: string | null = null;

  /** Shows a received call's scene text on the board, not saved anywhere (`received`). */
  async loadReceived(text: string, label: string, render = true) {
    await this.load(text, null, render);
    this.received = label;
    this.changed();
  }

  /** Replace the open scene with loaded text (the text must parse). */
  async load(text: string, path: string | null, render = true) {
    this.received = null;
    const spans = new Map<string, [number, number]>();
    const scene = parseScene(text, spans);
    this.scene = scene;
    this.previewAdapter = null;
    this.contextVersion++;
    this.writer.invalidate();
    this.writer.adopt(text, scene, spans);
    this.text = text;
    this.savedText = text;
    this.path = path;
    this.fileError = null;
    this.diskConflict = false;
    if (text.length > TOKENS_UP_TO) this.tokens = false;
    if (path) void rememberRecent(path).then(() => this.recentFilesChanged());
    if (path) {
      try {
        this.diskModified = (await this.api.stat(path)).modified_ms ?? 0;
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
    this.fileErrorCode = null;
    try {
      const r = await this.api.open(path);
      await this.load(r.text, r.path ?? path);
      return true;
    } catch (e) {
      this.fileError = errorText(e);
      this.fileErrorCode = isApiError(e) ? e.code : null;
      this.changed();
      return false;
    }
  }

  async save(path = this.path): Promise<boolean> {
    if (!path) return false;
    try {
      const st = await this.api.save(path, this.text);
      this.received = null;
      this.savedText = this.text;
      this.path = path;
      this.diskModified = st.modified_ms ?? 0;
      this.fileError = null;
      this.diskConflict = false;
      this.notice = `Saved ${path}`;
      void rememberRecent(path).then(() => this.recentFilesChanged());
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
    if (this.received) {
      // A received call is a record of what was sent: it changes once it is a file of its own.
      this.showNotice(`${this.received} is a received call, shown read-only: save it (Save) to edit it.`);
      return;
    }
    f(this.scene);
    // A template's editor names where it edits; a click on a control does not.
    this.typed = scope !== undefined;
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
      this.typed = true;
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

  /** A file error for the banner (a failed save or open the caller ran), until dismissed. */
  showFileError(message: string) {
    this.fileError = message;
    this.changed();
  }
  dismissFileError() {
    this.fileError = null;
    this.changed();
  }
  /** A passing notice (the banner fades it after a few seconds). */
  showNotice(message: string) {
    this.notice = message;
    this.changed();
  }
  /** Clears the notice, or only `which` when given (a fading notice must not clear a newer one). */
  dismissNotice(which?: string) {
    if (which !== undefined && this.notice !== which) return;
    this.notice = null;
    this.changed();
  }
  setTokens(on: boolean) {
    this.tokens = on;
    this.rerender();
  }
  /** Shows or hides the chat request body (for the picked model's provider). */
  setChatBody(on: boolean) {
    this.chatBody = on;
    this.rerender();
    this.changed();
  }
  /** Previews another adapter's desk body (null: the picked model's); the scene is not changed. */
  setPreviewAdapter(a: string | null) {
    this.previewAdapter = a;
    this.changed();
  }
  /** Writes the previewed desk adapter and model into the scene: an edit, so the scene is changed. */
  writeDeskPreview(adapter: string, model: string | null) {
    this.previewAdapter = null;
    this.edit((s) => writeDesk(s, adapter, model));
  }
  /** Picks the model the reports are priced for, and remembers it for the next start. */
  setModel(id: string) {
    if (!this.models.some((m) => m.id === id)) return;
    this.model = id;
    rememberModel(id);
    this.rerender();
    this.changed();
  }
  /** The pending request to show the template at `path`, taken by its editor (once). */
  takeReveal(path: string): { line: number | null; seq: number } | null {
    const r = this.reveal;
    if (!r || r.path !== path) return null;
    this.reveal = null;
    return r;
  }
  /** Asks the editor of the template at `path` to show `line` (1-based) and take the focus. */
  revealTemplate(path: string, line: number | null) {
    this.reveal = { path, line, seq: (this.reveal?.seq ?? 0) + 1 };
    this.changed();
  }

  /**
   * Watches the open file on disk (stat every `ms`): a change is reloaded when there are no
   * unsaved edits, and otherwise raises `diskConflict` for the user to settle. Returns the stop.
   */
  watchDisk(ms = 1000): () => void {
    let busy = false;
    const id = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        await this.checkDisk();
      } finally {
        busy = false;
      }
    }, ms);
    return () => clearInterval(id);
  }

  /** One look at the file on disk (what `watchDisk` does each time). */
  async checkDisk(): Promise<'same' | 'reloaded' | 'conflict' | 'gone'> {
    if (!this.path || this.diskConflict) return 'same';
    const st = await this.pollDisk();
    if (st !== 'changed') return st;
    if (this.dirty) {
      this.diskConflict = true;
      this.changed();
      return 'conflict';
    }
    const path = this.path;
    if (await this.reloadFromDisk()) {
      this.notice = `Reloaded ${path}: it changed on disk.`;
      this.changed();
    }
    return 'reloaded';
  }

  /** Poll the file on disk; returns 'changed' when it was modified outside. */
  async pollDisk(): Promise<'same' | 'changed' | 'gone'> {
    if (!this.path) return 'same';
    try {
      const st = await this.api.stat(this.path);
      return (st.modified_ms ?? 0) !== this.diskModified ? 'changed' : 'same';
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
      this.diskConflict = false;
      try {
        this.diskModified = (await this.api.stat(this.path)).modified_ms ?? 0;
      } catch {
        /* keep */
      }
      this.changed();
      return false;
    }
  }

  /** Acknowledge an outside change without loading it (keep the edits). */
  async ignoreDisk() {
    if (this.path) this.diskModified = (await this.api.stat(this.path)).modified_ms ?? 0;
    this.diskConflict = false;
    this.changed();
  }
}
