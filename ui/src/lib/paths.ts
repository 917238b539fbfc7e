// Paths typed into the Run and Replay views. The core resolves a relative path against the
// working directory of the process serving the page, which is rarely what the user means; the
// views resolve it against the open scene's folder first.

/** Whether `p` is absolute on POSIX or Windows (`/x`, `C:\x`, `C:/x`, `\\server\share`). */
export function isAbsolute(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(p);
}

/**
 * `typed` resolved against `baseDir` (the open scene's folder), `.` and `..` folded; an absolute
 * path, or any path when there is no folder, is returned as typed (trimmed).
 */
export function resolvePath(typed: string, baseDir: string | null): string {
  const p = typed.trim();
  if (!p || isAbsolute(p) || !baseDir) return p;
  const sep = baseDir.includes('\\') && !baseDir.includes('/') ? '\\' : '/';
  const parts = baseDir.split(/[\\/]/);
  // A trailing separator leaves an empty last part; the root's empty first part stays.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  for (const seg of p.split(/[\\/]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 1) parts.pop();
      continue;
    }
    parts.push(seg);
  }
  return parts.length === 1 && parts[0] === '' ? sep : parts.join(sep);
}

/**
 * A path typed into any path box of the app, as the core should read it: absolute as typed,
 * relative taken from the open scene's folder (`baseDir`). With no folder a relative path is
 * refused rather than left to the core, which would take it from the folder the app or `serve`
 * was started in, a folder the page does not show.
 */
export function typedPath(typed: string, baseDir: string | null): { path: string } | { error: string } {
  const p = typed.trim();
  if (p && !isAbsolute(p) && !baseDir)
    return { error: `"${p}" is relative, and the open scene has no folder to take it from: type an absolute path.` };
  return { path: resolvePath(p, baseDir) };
}

/** The folder of a file path (`/a/b.json` → `/a`), or null when it has none. */
export function dirOf(path: string): string | null {
  const k = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (k < 0) return null;
  return k === 0 ? path.slice(0, 1) : path.slice(0, k);
}

/** `path` relative to `folder` when it lies inside it, else the path itself. */
export function relativeTo(path: string, folder: string | null): string {
  if (!folder) return path;
  const f = folder.replace(/[\\/]+$/, '');
  if (path === f) return path.slice(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1) || path;
  const rest = path.slice(f.length);
  if (path.startsWith(f) && (rest.startsWith('/') || rest.startsWith('\\'))) return rest.slice(1);
  return path;
}

/**
 * A long path shortened to about `max` characters for a narrow place, the file name kept whole and
 * the folders cut from the middle: `/home/me/…/scenes/demo.scene.json`. Show the full path in a
 * `title`.
 */
export function ellipsisPath(p: string, max = 60): string {
  if ([...p].length <= max) return p;
  const cut = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  const name = p.slice(cut + 1);
  if (cut < 0 || name.length + 4 >= max) return name.length > max ? `…${name.slice(name.length - max + 1)}` : `…${p.slice(cut)}`;
  const dir = p.slice(0, cut);
  const room = max - name.length - 2; // the separator before the name and the ellipsis
  const head = Math.ceil(room * 0.4);
  return `${dir.slice(0, head)}…${dir.slice(dir.length - (room - head))}${p.charAt(cut)}${name}`;
}

/** How the views show a long path: relative to `folder` (when inside it), then shortened. */
export function shortPath(path: string, folder: string | null = null, max = 60): string {
  return ellipsisPath(relativeTo(path, folder), max);
}

/** The file name of a path, its folders dropped (`/a/b/c.scene.json` → `c.scene.json`). */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1) || path;
}
