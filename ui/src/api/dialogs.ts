// What only the desktop shell offers the UI (loaded by ./index.ts when running inside Tauri): the
// system file dialogs, the unsaved-edits flag its close guard reads, the guard's "Save" (the shell
// asks the page to save before it closes the window), and the shell's log lines.
// The dialogs are shown by Rust commands, so the web view needs no dialog or file-system permission.
import { commands, events, type LogEvent } from './bindings';
import { toApiError } from './tauri';

async function picked(call: Promise<{ status: 'ok'; data: string | null } | { status: 'error'; error: unknown }>): Promise<string | null> {
  const r = await call;
  if (r.status === 'error') throw toApiError(r.error);
  return r.data;
}

/** The system "open" dialog, starting at `suggested`; the chosen scene file's path, or null when cancelled. */
export function openDialog(suggested?: string): Promise<string | null> {
  return picked(commands.pickOpenPath(suggested ?? null));
}

/** The recent files, newest first: the shell records every open and save. */
export function recentFiles(): Promise<string[]> {
  return commands.recentFiles();
}

export function clearRecent(): Promise<void> {
  return commands.clearRecent();
}

/** The system "save as" dialog, starting at `suggested`; the chosen path, or null. */
export function saveDialog(suggested?: string): Promise<string | null> {
  return picked(commands.pickSavePath(suggested ?? null));
}

/** The system folder dialog (replay view). */
export function folderDialog(): Promise<string | null> {
  return picked(commands.pickFolder());
}

/** Tells the shell whether there are unsaved edits (closing the window then asks first) and the window title. */
export function setDirty(dirty: boolean, title: string): Promise<void> {
  return commands.setDirty(dirty, title);
}

export type { LogEvent };

/** Calls `cb` with the shell's recent log lines, then with each new one; returns the unsubscribe. */
export async function onLog(cb: (e: LogEvent) => void): Promise<() => void> {
  const unlisten = await events.logEvent.listen((e) => cb(e.payload));
  const info = await commands.appInfo();
  for (const e of info.recent_logs) cb(e);
  return unlisten;
}

/**
 * Runs `save` each time the shell's close guard asks to save before closing (its "Save" button),
 * then answers with whether it saved: the shell closes the window if so and keeps it open (with the
 * edits) if not. Every request is answered, even when `save` throws: the shell waits for the answer
 * before it lets another close request ask again. A request that comes while a save is under way is
 * left to that save's answer. Returns the unsubscribe.
 */
export async function onSaveBeforeClose(save: () => Promise<boolean>): Promise<() => void> {
  let busy = false;
  return events.saveBeforeClose.listen(async () => {
    if (busy) return;
    busy = true;
    let saved = false;
    try {
      saved = await save();
    } catch (e) {
      console.error('saving before closing failed', e);
    } finally {
      busy = false;
    }
    try {
      await commands.closeGuardDone(saved);
    } catch (e) {
      console.error('could not answer the close guard', e);
    }
  });
}
