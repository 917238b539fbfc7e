// The transport seam. The UI talks to the core only through `Api`, whose methods are one-liners
// over a `Transport`'s one generic `call` (`createApi` below). The operations, their request and
// response types, and which of them the app's web view may call all come from the core's table of
// operations through the generated bindings (./bindings.ts: `Operations`, `WebviewOperation`), so
// adding an operation to the table needs no TypeScript for the transports to carry it.
//
//   - HTTP (`./http.ts`): the browser against `prompt-inspector serve` (token from `?token=`).
//   - Tauri (`./tauri.ts`): the desktop shell's commands. `pickApi()` loads it when
//     `window.__TAURI_INTERNALS__` is present.
//   - The Tauri shell also provides `./dialogs.ts` exporting `openDialog()`/`saveDialog()`
//     returning a path or null (system dialogs); without it the UI shows a path input.
import type { Operations, WebviewOperation } from './bindings';
import type {
  AboutResponse,
  ApiError,
  CheckResponse,
  ConversationResponse,
  FileStat,
  Llm,
  LiveOptions,
  LiveCallsPage,
  LiveUpdate,
  ModelsResponse,
  Report,
  Rules,
  RunResponse,
  SceneText,
  TextEdit,
} from './types';

// Operations and shapes: docs/api.md (one method per operation, same request fields).
export interface RenderOptions {
  llm: Llm;
  provider?: 'openai' | 'anthropic' | null;
  tokens?: boolean;
  tokenizer?: 'o200k_base' | 'cl100k_base' | null;
  baseDir?: string | null;
  /** Price the call for these models (row ids of `models()`): the report's `costs`. */
  models?: string[];
}

/** What the About box says: the program the UI runs in and the core answering its operations. */
export interface About {
  /** The desktop app (`prompt-inspector-app`, its crate's version) or, in a browser,
   *  `prompt-inspector serve`, which is the core's own command line. */
  host: Host;
  /** The core library, the `prompt-inspector` crate. */
  core: { name: string; version: string };
}

export interface Api {
  /** The embedded default scene (TFNotes); `path` is null. */
  defaultScene(): Promise<SceneText>;
  /** Read a scene file; a file that does not load rejects with a positioned ApiError. */
  open(path: string): Promise<SceneText>;
  /** Atomic save; refuses text that does not load. */
  save(path: string, text: string): Promise<FileStat>;
  /** Atomic save of a recording `import` reads (JSON lines of OTLP spans); refuses one that does not import. */
  saveRecording(path: string, text: string): Promise<FileStat>;
  stat(path: string): Promise<FileStat>;
  /** Render scene text for one family; resolves to its render report (docs/cli.md, `render --format json`). */
  render(text: string, opts: RenderOptions): Promise<Report>;
  rules(): Promise<Rules>;
  /** The built-in models table: prices and cache rules, for the model picker. */
  models(): Promise<ModelsResponse>;
  /** The versions the About box shows. */
  about(): Promise<About>;
  /** The run report (docs/run-loop.md, `run --format json`), each round priced for `models`
   *  (row ids; none: the table's default set), with the rounds that read nothing explained and
   *  the what-if prices. */
  run(text: string, baseDir?: string | null, models?: string[]): Promise<RunResponse>;
  /** A folder of scenes, one per call: each call's cache figures, costs, misses and what-ifs. */
  conversation(folder: string, models?: string[]): Promise<ConversationResponse>;
  /** The same for scene texts not on disk (the Live view's received calls), in call order; `name` names it. */
  conversationOfScenes(name: string, scenes: string[], models?: string[]): Promise<ConversationResponse>;
  /** The calls the OTLP receiver took in after the cursor `after` (0: all kept); `clear` forgets them first. */
  liveCalls(after: number, clear?: boolean): Promise<LiveCallsPage>;
  /** A folder (or one scene) against its goldens. */
  check(folder: string): Promise<CheckResponse>;
  /** Write one scene's golden from the scene on disk. */
  approve(scenePath: string): Promise<{ golden_path: string }>;
  /** Open a live document: the core keeps the text; the update's patch sets the whole tree. */
  liveOpen(text: string, options: LiveOptions): Promise<LiveUpdate>;
  /**
   * Apply an edit made on `revision`; rejects with code `stale_document` when the core disagrees.
   * `deferCosts` lets the core leave pricing to a later call with no edit and no options (the
   * update says `costs_pending`).
   */
  liveEdit(doc: number, revision: number, edit: TextEdit | null, options: LiveOptions | null, deferCosts?: boolean): Promise<LiveUpdate>;
  liveClose(doc: number): Promise<void>;
}

/** The program answering the operations, as the About box names it. */
export interface Host {
  name: string;
  version: string;
}

/**
 * What carries the core's operations: one generic call per transport, typed by the generated map.
 * Only the operations the app's web view is granted may be named (`WebviewOperation`, the
 * desktop shell's list): the same UI runs in the app, where any other is refused.
 */
export interface Transport {
  /** Runs `op` with its request (`null` for an operation without one); rejects with an ApiError. */
  call<K extends WebviewOperation>(op: K, req: Operations[K]['request']): Promise<Operations[K]['response']>;
  /** The program the UI runs in, given the core's own name and version. */
  host(core: AboutResponse): Promise<Host>;
}

/** The `Api` over a transport: each method names its operation and builds the request. */
export function createApi(t: Transport): Api {
  return {
    defaultScene: () => t.call('default_scene', null),
    open: (path) => t.call('open', { path }),
    save: (path, text) => t.call('save', { path, text, recording: false }),
    saveRecording: (path, text) => t.call('save', { path, text, recording: true }),
    stat: (path) => t.call('stat', { path }),
    render: async (text, o) =>
      (
        await t.call('render', {
          text,
          llm: o.llm,
          base_dir: o.baseDir ?? null,
          provider: o.provider ?? null,
          tokenizer: o.tokenizer ?? null,
          tokens: !!o.tokens,
          models: o.models ?? [],
        })
      ).report,
    rules: () => t.call('rules', null),
    models: () => t.call('models', null),
    about: async () => {
      const core = await t.call('about', null);
      return { host: await t.host(core), core };
    },
    run: (text, baseDir, models) => t.call('run', { text, base_dir: baseDir ?? null, models: models ?? [] }),
    conversation: (folder, models) => t.call('conversation', { folder, models: models ?? [] }),
    conversationOfScenes: (name, scenes, models) => t.call('conversation', { folder: name, scenes, models: models ?? [] }),
    liveCalls: (after, clear) => t.call('live_calls', { after, clear: !!clear }),
    check: (folder) => t.call('check', { folder }),
    approve: (scenePath) => t.call('approve', { scene_path: scenePath }),
    liveOpen: (text, options) => t.call('live_open', { text, options }),
    liveEdit: (doc, revision, edit, options, deferCosts) =>
      t.call('live_edit', { doc, revision, edit, options, defer_costs: deferCosts ?? false }),
    liveClose: async (doc) => {
      await t.call('live_close', { doc });
    },
  };
}

export function isApiError(e: unknown): e is ApiError {
  return typeof e === 'object' && e !== null && typeof (e as ApiError).code === 'string' && typeof (e as ApiError).message === 'string';
}

/**
 * One line for an error, naming its file once: the core puts the path in `file` and not in the
 * message, and a message that starts with the path anyway (an error built elsewhere) keeps it
 * without a second copy in front.
 */
export function errorText(e: unknown): string {
  if (isApiError(e)) {
    const named = !!e.file && e.line == null && (e.message === e.file || e.message.startsWith(`${e.file}:`));
    const where = e.line != null ? `${e.file ? `${e.file}:` : ''}${e.line}:${e.column ?? 1}: ` : e.file && !named ? `${e.file}: ` : '';
    const field = e.field ? `${e.field}: ` : '';
    return `${where}${field}${e.kind ? `${e.kind}: ` : ''}${e.message}`;
  }
  return e instanceof Error ? e.message : String(e);
}
