// The recent-files menu's logic. The list itself is session.ts's (`recentFiles`, kept in the
// page's localStorage and updated on every open and save); this adds what the menu needs.
import { recentFiles } from './session';

// session.ts keeps the list under this key (not exported there); test/recent.test.ts checks
// that clearing through it empties what `recentFiles()` returns.
const RECENT_KEY = 'prompt-inspector.recent';

export { recentFiles };

export function clearRecentFiles() {
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
