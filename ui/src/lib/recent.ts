// The recent files and what the Recent menu needs. In the desktop app the shell keeps the list
// (it records every open and save itself, and the paths on it are ones the app may reach again,
// so the page must not be able to write it); in the browser the page keeps it in localStorage.
import { dialogs } from '../api';

const RECENT_KEY = 'prompt-inspector.recent';

function storedRecent(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The last opened or saved scene files, newest first. */
export async function recentFiles(): Promise<string[]> {
  const shell = await dialogs();
  return shell.recentFiles ? shell.recentFiles() : storedRecent();
}

/** After an open or a save (the shell, when there is one, has recorded it already). */
export async function rememberRecent(path: string): Promise<void> {
  const shell = await dialogs();
  if (shell.recentFiles) return;
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify([path, ...storedRecent().filter((p) => p !== path)].slice(0, 10)));
  } catch {
    /* storage unavailable */
  }
}

export async function clearRecentFiles(): Promise<void> {
  const shell = await dialogs();
  if (shell.clearRecent) return shell.clearRecent();
  try {
    localStorage.removeItem(RECENT_KEY);
  } catch {
    /* storage unavailable */
  }
}

/** A path's file name and the folder it is in (either separator). */
export function splitPath(p: string): { name: string; dir: string } {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? { name: p, dir: '' } : { name: p.slice(i + 1) || p, dir: p.slice(0, i) || p.slice(0, 1) };
}

/** A long folder shortened from its start (the end names it best): `…/projects/scenes`. */
export function shortDir(dir: string, max = 64): string {
  return dir.length <= max ? dir : `…${dir.slice(dir.length - (max - 1))}`;
}

/** The menu's roving focus: the item a key moves to from `cur` among `n` items (WAI-ARIA menu
 *  button: arrows wrap, Home and End jump); null when the key does not move the focus. */
export function menuMove(key: string, cur: number, n: number): number | null {
  if (n <= 0) return null;
  switch (key) {
    case 'ArrowDown':
      return cur < 0 ? 0 : (cur + 1) % n;
    case 'ArrowUp':
      return cur < 0 ? n - 1 : (cur - 1 + n) % n;
    case 'Home':
    case 'PageUp':
      return 0;
    case 'End':
    case 'PageDown':
      return n - 1;
    default:
      return null;
  }
}
