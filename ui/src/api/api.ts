// The transport seam. The UI talks to the core only through `Api`.
//
//   - HTTP (`./http.ts`): the browser against `prompt-inspector serve` (token from `?token=`).
//   - Tauri (`./tauri.ts`): WRITTEN BY THE TAURI SHELL DEVELOPER, not by ui/. It must
//     `export function createTauriApi(): Api` built on the tauri-specta generated bindings
//     (e.g. `./bindings.ts`), mapping every IPC error to `ApiError` ({code, message, ...position}).
//     `pickApi()` loads it when `window.__TAURI_INTERNALS__` is present. While the file does not
//     exist, the build still works (import.meta.glob finds nothing) and the HTTP transport is used.
//   - The Tauri shell may also provide `./dialogs.ts` exporting `openDialog()`/`saveDialog()`
//     returning a path or null (system dialogs); without it the UI shows a path input.
import type {
  ApiError,
  CheckResponse,
  FileStat,
  Llm,
  LiveOptions,
  LiveUpdate,
  ModelsResponse,
  Report,
  Rules,
  RunReport,
  SceneText,
  TextEdit,
  ValidateResponse,
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
  host: { name: string; version: string };
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
  stat(path: string): Promise<FileStat>;
  /** Render scene text for one family; resolves to its render report (docs/cli.md, `render --format json`). */
  render(text: string, opts: RenderOptions): Promise<Report>;
  /** What an editor underlines; never rejects for a bad scene (load_error instead). */
  validate(text: string): Promise<ValidateResponse>;
  rules(): Promise<Rules>;
  /** The built-in models table: prices and cache rules, for the model picker. */
  models(): Promise<ModelsResponse>;
  /** The versions the About box shows. */
  about(): Promise<About>;
  /** The run report (docs/run-loop.md, `run --format json`), each round priced for `models`
   *  (row ids; none: the table's default set). */
  run(text: string, baseDir?: string | null, models?: string[]): Promise<RunReport>;
  /** A folder (or one scene) against its goldens. */
  check(folder: string): Promise<CheckResponse>;
  /** Write one scene's golden from the scene on disk. */
  approve(scenePath: string): Promise<{ golden_path: string }>;
  /** Open a live document: the core keeps the text; the update's patch sets the whole tree. */
  liveOpen(text: string, options: LiveOptions): Promise<LiveUpdate>;
  /** Apply an edit made on `revision`; rejects with code `stale_document` when the core disagrees. */
  liveEdit(doc: number, revision: number, edit: TextEdit | null, options: LiveOptions | null): Promise<LiveUpdate>;
  liveClose(doc: number): Promise<void>;
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
