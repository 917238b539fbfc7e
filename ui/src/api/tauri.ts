// Tauri transport: the app's commands (src-tauri/src/commands.rs), one per operation of the core's
// table, invoked as the generated bindings (./bindings.ts, never edited by hand) invoke them: the
// command of the operation's name with its request as the argument `req`.
//
// Every failure becomes an ApiError: a command's own error arrives as {code, message, ...position}
// already; a failure of the IPC layer itself (a command the capability does not grant, an argument
// of the wrong type) rejects with a bare string, which becomes {code: 'ipc', message}.
import { invoke } from '@tauri-apps/api/core';
import { type Api, createApi, type Host, type Transport } from './api';
import { commands, type Operations, type WebviewOperation } from './bindings';
import type { ApiError } from './types';

/** Any rejection or error value from IPC, as docs/api.md's error shape. */
export function toApiError(e: unknown): ApiError {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' && 'message' in e && typeof e.message === 'string') {
    const out: ApiError = { code: e.code, message: e.message };
    const src: Record<string, unknown> = { ...e };
    for (const k of ['kind', 'file', 'field'] as const) {
      const v = src[k];
      if (typeof v === 'string') out[k] = v;
    }
    for (const k of ['line', 'column'] as const) {
      const v = src[k];
      if (typeof v === 'number') out[k] = v;
    }
    const range = src.range;
    if (Array.isArray(range) && range.length === 2) out.range = [Number(range[0]), Number(range[1])];
    return out;
  }
  return { code: 'ipc', message: e instanceof Error ? e.message : String(e) };
}

/** The app's commands. Only the operations the capability grants the web view can be named. */
export class TauriTransport implements Transport {
  async call<K extends WebviewOperation>(op: K, req: Operations[K]['request']): Promise<Operations[K]['response']> {
    try {
      // The command answers with the operation's response (the map's type for `op`).
      return await invoke<Operations[K]['response']>(op, req === null ? undefined : { req });
    } catch (e) {
      throw toApiError(e);
    }
  }

  /** The desktop app, at the version its bundle was given. */
  async host(): Promise<Host> {
    return { name: 'prompt-inspector-app', version: (await commands.appInfo()).version };
  }
}

export function createTauriApi(): Api {
  return createApi(new TauriTransport());
}
