// A closed <select> never commits a change on a key alone. Chromium on Linux (and Windows) moves a
// focused, closed select to the next or previous option on the arrow keys, Home, End, PageUp and
// PageDown, and fires `change` at once: one stray key press would switch a template's engine or
// the priced model. Installed once for the whole document (main.tsx), so every select in the app,
// present and future, behaves the same: those keys open the list instead (where the browser has
// `showPicker()`), and only a choice made in the open list (Enter or a click) commits.
// An open list is the browser's own popup: its key presses never reach the page, so every key
// seen here is for a closed select.

/** The keys that would change a closed select's value without opening it. */
export const MOVING_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/** Whether a keydown on `el` is one this guard stops. Alt+ArrowDown / Alt+ArrowUp open the list
 *  natively and are left alone, as is a list box (`multiple` or `size` > 1), which shows its options. */
export function guarded(el: EventTarget | null, e: Pick<KeyboardEvent, 'key' | 'altKey' | 'ctrlKey' | 'metaKey'>): el is HTMLSelectElement {
  if (!(el instanceof HTMLSelectElement)) return false;
  if (el.multiple || el.size > 1) return false;
  if (e.altKey || e.ctrlKey || e.metaKey) return false;
  return MOVING_KEYS.has(e.key);
}

function onKeyDown(e: KeyboardEvent) {
  const el = e.target;
  if (!guarded(el, e)) return;
  e.preventDefault();
  try {
    // Needs a user activation, which this key press is; may be refused (a select in a hidden
    // pane, a browser without it): then the key just does nothing.
    (el as HTMLSelectElement & { showPicker?: () => void }).showPicker?.();
  } catch {
    /* nothing to open: the value stays as it was, which is the point */
  }
}

/** Installs the guard on `doc` (capture phase, before any component's own handler); returns its removal. */
export function installSelectGuard(doc: Document = document): () => void {
  doc.addEventListener('keydown', onKeyDown, true);
  return () => doc.removeEventListener('keydown', onKeyDown, true);
}
