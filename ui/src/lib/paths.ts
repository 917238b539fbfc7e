// Paths typed into the Run and Replay views. The core resolves a relative path against the
// working directory of the process serving the page, which is rarely what the user means; the
// views resolve it against the open scene's folder first.
import { errorText, isApiError } from '../api/api';

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
    if (seg === '..') { if (parts.length > 1) parts.pop(); continue; }
    parts.push(seg);
  }
  return parts.length === 1 && parts[0] === '' ? sep : parts.join(sep);
}

/** The folder of a file path (`/a/b.json` → `/a`), or null when it has none. */
export function dirOf(path: string): string | null {
  const k = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (k < 0) return null;
  return k === 0 ? path.slice(0, 1) : path.slice(0, k);
}

/**
 * An error about a file, naming the file once: the core's I/O errors carry the path both in
 * `file` and at the start of `message`, which `errorText` would print twice.
 */
export function fileErrorText(e: unknown): string {
  if (isApiError(e) && e.file && e.line == null && e.message.startsWith(e.file)) {
    return `${e.field ? `${e.field}: ` : ''}${e.message}`;
  }
  return errorText(e);
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

/** At most `max` characters: the start and the end kept, `…` in the middle. */
export function middleEllipsis(s: string, max = 60): string {
  const chars = [...s];
  if (chars.length <= max) return s;
  const keep = max - 1;
  const head = Math.ceil(keep * 0.4);
  return chars.slice(0, head).join('') + '…' + chars.slice(chars.length - (keep - head)).join('');
}

/** How the views show a long scene path: relative to the checked folder, then middle-ellipsised. */
export function shortPath(path: string, folder: string | null, max = 60): string {
  return middleEllipsis(relativeTo(path, folder), max);
}
