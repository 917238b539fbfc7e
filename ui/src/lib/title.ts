// The window title, as a desktop app shows it: the open file's name, "● " in front while there are
// unsaved edits ("● journey.scene.json — Prompt Inspector"), "default scene" for the embedded one.
// app.tsx puts it in document.title (the browser tab) and hands it to the desktop shell, which sets
// the real window's title together with the unsaved flag of its close guard (set_dirty).

export const APP_NAME = 'Prompt Inspector';
/** The unsaved marker in front of the name. */
export const UNSAVED = '●';

/** The last component of a path (either separator: the shell also runs on Windows); "default scene" without one. */
export function fileLabel(path: string | null | undefined): string {
  const name = (path ?? '').split(/[\\/]/).filter(Boolean).pop();
  return name ?? 'default scene';
}

export function windowTitle(path: string | null | undefined, dirty: boolean): string {
  return `${dirty ? `${UNSAVED} ` : ''}${fileLabel(path)} — ${APP_NAME}`;
}
