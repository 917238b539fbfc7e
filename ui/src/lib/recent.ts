// The recent files: the list (kept in the page's localStorage, updated by the session on every
// open and save) and what the Recent menu needs.

const RECENT_KEY = 'prompt-inspector.recent';

/** The last opened or saved scene files, newest first (kept in the page's localStorage). */
export function recentFiles(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberRecent(path: string) {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify([path, ...recentFiles().filter((p) => p !== path)].slice(0, 10)));
  } catch {
    /* storage unavailable */
  }
}

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
