import type { Api } from './api';
import { httpApiFromLocation } from './http';

// The Tauri transport lives in ./tauri.ts, loaded only inside the desktop shell (see api.ts).
const tauriModules = import.meta.glob<{ createTauriApi: () => Api }>('./tauri.ts');
/** What only the desktop shell offers (./dialogs.ts). */
export interface ShellLog {
  level: string;
  target: string;
  message: string;
  time_ms: number | null;
}
export interface Shell {
  /** The system open dialog, starting at `suggested` when given. */
  openDialog?: (suggested?: string) => Promise<string | null>;
  saveDialog?: (suggested?: string) => Promise<string | null>;
  folderDialog?: () => Promise<string | null>;
  setDirty?: (dirty: boolean, title: string) => Promise<void>;
  onLog?: (cb: (e: ShellLog) => void) => Promise<() => void>;
  /** The close guard's "Save": run `save` (true when it saved); the shell then closes the window or keeps it. */
  onSaveBeforeClose?: (save: () => Promise<boolean>) => Promise<() => void>;
  /** The recent files the shell keeps, newest first. */
  recentFiles?: () => Promise<string[]>;
  clearRecent?: () => Promise<void>;
}
const dialogModules = import.meta.glob<Shell>('./dialogs.ts');

export function inTauri(): boolean {
  return typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;
}

export async function pickApi(): Promise<Api> {
  if (inTauri()) {
    const load = tauriModules['./tauri.ts'] as (() => Promise<{ createTauriApi: () => Api }>) | undefined;
    if (load) return (await load()).createTauriApi();
    console.warn('Tauri detected but ui/src/api/tauri.ts is missing; falling back to HTTP');
  }
  return httpApiFromLocation(window.location);
}

let shell: Promise<Shell> | null = null;
/** The shell's extras inside Tauri; an empty object in the browser. */
export function dialogs(): Promise<Shell> {
  const load = dialogModules['./dialogs.ts'] as (() => Promise<Shell>) | undefined;
  shell ??= load && inTauri() ? load() : Promise.resolve({});
  return shell;
}

export type { Api } from './api';
