// Tauri transport: the `Api` of ./api.ts over the app's commands (src-tauri/src/commands.rs), called
// through the tauri-specta bindings in ./bindings.ts (generated; never edit them by hand).
//
// Every failure becomes an ApiError: a command's own error arrives as {code, message, ...position}
// already; a failure of the IPC layer itself (a command the capability does not grant, an argument
// of the wrong type) rejects with a bare string, which becomes {code: 'ipc', message}.
import type { About, Api, RenderOptions } from './api';
import { commands } from './bindings';
import type {
  ApiError,
  CheckResponse,
  FileStat,
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

type Result<T, E> = { status: 'ok'; data: T } | { status: 'error'; error: E };

/** Any rejection or error value from IPC, as docs/api.md's error shape. */
export function toApiError(e: unknown): ApiError {
  if (typeof e === 'object' && e !== null && typeof (e as ApiError).code === 'string' && typeof (e as ApiError).message === 'string') {
    const src = e as Record<string, unknown>;
    const out: ApiError = { code: src.code as ApiError['code'], message: src.message as string };
    for (const k of ['kind', 'file', 'field'] as const) if (typeof src[k] === 'string') out[k] = src[k] as string;
    for (const k of ['line', 'column'] as const) if (typeof src[k] === 'number') out[k] = src[k] as number;
    if (Array.isArray(src.range) && src.range.length === 2) out.range = [Number(src.range[0]), Number(src.range[1])];
    return out;
  }
  return { code: 'ipc', message: e instanceof Error ? e.message : String(e) };
}

/** The data of an ok result; throws the ApiError of an error result or of a rejected call. */
async function unwrap<T, E>(call: () => Promise<Result<T, E>>): Promise<T> {
  let r: Result<T, E>;
  try {
    r = await call();
  } catch (e) {
    throw toApiError(e);
  }
  if (r.status === 'error') throw toApiError(r.error);
  return r.data;
}

/** f64 fields are typed `number | null` by the bindings (NaN would travel as null); the core never sends one. */
function fileStat(s: { modified_ms: number | null; size: number | null }): FileStat {
  return { modified_ms: s.modified_ms ?? 0, size: s.size ?? 0 };
}

/** `core_ms` is an f64, typed `number | null` by the bindings like FileStat's fields. */
function liveUpdate(u: {
  doc: number;
  revision: number;
  load_error: unknown;
  patch: LiveUpdate['patch'];
  core_ms: number | null;
}): LiveUpdate {
  return {
    doc: u.doc,
    revision: u.revision,
    load_error: u.load_error ? toApiError(u.load_error) : null,
    patch: u.patch,
    core_ms: u.core_ms ?? 0,
  };
}

export class TauriApi implements Api {
  async defaultScene(): Promise<SceneText> {
    const s = await unwrap(() => commands.defaultScene());
    return { path: s.path ?? null, text: s.text };
  }
  async open(path: string): Promise<SceneText> {
    const s = await unwrap(() => commands.open({ path }));
    return { path: s.path ?? null, text: s.text };
  }
  async save(path: string, text: string): Promise<FileStat> {
    return fileStat(await unwrap(() => commands.save({ path, text })));
  }
  async stat(path: string): Promise<FileStat> {
    return fileStat(await unwrap(() => commands.stat({ path })));
  }
  async render(text: string, o: RenderOptions): Promise<Report> {
    const r = await unwrap(() =>
      commands.render({
        text,
        llm: o.llm,
        base_dir: o.baseDir ?? null,
        provider: o.provider ?? null,
        tokenizer: o.tokenizer ?? null,
        tokens: !!o.tokens,
        models: o.models ?? [],
      }),
    );
    return r.report as Report;
  }
  async validate(text: string): Promise<ValidateResponse> {
    return (await unwrap(() => commands.validate({ text }))) as ValidateResponse;
  }
  async rules(): Promise<Rules> {
    return (await unwrap(() => commands.rules())) as Rules;
  }
  async models(): Promise<ModelsResponse> {
    return (await unwrap(() => commands.models())) as ModelsResponse;
  }
  async about(): Promise<About> {
    const [core, app] = await Promise.all([unwrap(() => commands.about()), commands.appInfo()]);
    return { host: { name: 'prompt-inspector-app', version: app.version }, core };
  }
  async run(text: string, baseDir?: string | null, models?: string[]): Promise<RunReport> {
    const r = await unwrap(() => commands.run({ text, base_dir: baseDir ?? null, models: models ?? [] }));
    return r.report as RunReport;
  }
  async check(folder: string): Promise<CheckResponse> {
    return (await unwrap(() => commands.check({ folder }))) as CheckResponse;
  }
  async approve(scenePath: string): Promise<{ golden_path: string }> {
    return unwrap(() => commands.approve({ scene_path: scenePath }));
  }
  async liveOpen(text: string, options: LiveOptions): Promise<LiveUpdate> {
    return liveUpdate(await unwrap(() => commands.liveOpen({ text, options })));
  }
  async liveEdit(doc: number, revision: number, edit: TextEdit | null, options: LiveOptions | null): Promise<LiveUpdate> {
    return liveUpdate(await unwrap(() => commands.liveEdit({ doc, revision, edit, options })));
  }
  async liveClose(doc: number): Promise<void> {
    await unwrap(() => commands.liveClose({ doc }));
  }
}

export function createTauriApi(): Api {
  return new TauriApi();
}
