// The keyboard of the left pane's lists (WAI-ARIA listbox, single select, selection follows
// focus): ↑ ↓ move, Home End go to the ends, Page Up / Page Down move by a page, Enter and Space
// select the focused option, printable
// characters find the next option whose label starts with what was typed. The pure parts are
// here (tested alone); `listboxKeyDown` wires them to the options in the DOM.

/** How many options Page Up / Page Down move by. */
export const PAGE = 10;

/** The option a navigation key moves to from `current` (-1: none focused) among `count`, or null
 *  when the key is not one of them. */
export function moveTo(key: string, current: number, count: number): number | null {
  if (count <= 0) return null;
  const last = count - 1;
  switch (key) {
    case 'ArrowDown':
      return current < 0 ? 0 : Math.min(current + 1, last);
    case 'ArrowUp':
      return current < 0 ? last : Math.max(current - 1, 0);
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'PageDown':
      return current < 0 ? 0 : Math.min(current + PAGE, last);
    case 'PageUp':
      return current < 0 ? 0 : Math.max(current - PAGE, 0);
    default:
      return null;
  }
}

/** Type-ahead: keys typed within this many milliseconds of each other make one search. */
export const TYPEAHEAD_MS = 700;

/**
 * Type to find. Each printable key adds to the search (a pause of `TYPEAHEAD_MS` starts a new
 * one); the answer is the first option, from the focused one on (the next one when the search is
 * a single character, so pressing `c` again cycles through the options starting with c), whose
 * label starts with the search, ignoring case.
 */
export class TypeAhead {
  private typed = '';
  private at = Number.NEGATIVE_INFINITY;

  find(key: string, labels: readonly string[], current: number, now: number): number | null {
    if (key.length !== 1 || !labels.length) return null;
    this.typed = now - this.at > TYPEAHEAD_MS ? key : this.typed + key;
    this.at = now;
    const search = this.typed.toLocaleLowerCase();
    // The same character again: cycle through the options that start with it.
    const repeated = [...search].every((c) => c === search[0]);
    const start = repeated ? current + 1 : Math.max(current, 0);
    const needle = repeated ? search[0] : search;
    for (let k = 0; k < labels.length; k++) {
      const i = (start + k) % labels.length;
      if (labels[i].toLocaleLowerCase().startsWith(needle)) return i;
    }
    return null;
  }
}

/** Whether a filter box's text keeps an option: every word of the filter is in one of the
 *  option's texts, ignoring case. An empty filter keeps everything. */
export function keeps(filter: string, ...texts: string[]): boolean {
  const words = filter.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const hay = texts.join('\n').toLocaleLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * The listbox's keydown: moves the focus (and so the selection: `pick` is called with the option
 * element) by the keys above, over the `[role=option]` elements inside `container` in document
 * order (the prompt list's two families are one list). The option's `data-label` is what
 * type-ahead matches. Whether the key was used.
 */
export function listboxKeyDown(
  e: KeyboardEvent,
  container: HTMLElement,
  typeahead: TypeAhead,
  pick: (option: HTMLElement) => void,
): boolean {
  if (e.altKey || e.ctrlKey || e.metaKey) return false;
  const options = [...container.querySelectorAll<HTMLElement>('[role="option"]')];
  const active = document.activeElement as HTMLElement | null;
  let current = options.findIndex((o) => o === active || o.contains(active));
  if (current < 0) current = options.findIndex((o) => o.getAttribute('aria-selected') === 'true');
  let next = moveTo(e.key, current, options.length);
  const here = e.key === ' ' || e.key === 'Enter';
  if (next === null && here) next = current >= 0 ? current : null;
  if (next === null && !here)
    next = typeahead.find(
      e.key,
      options.map((o) => o.dataset.label ?? o.textContent ?? ''),
      current,
      e.timeStamp || performance.now(),
    );
  if (next === null) return false;
  e.preventDefault();
  const option = options[next];
  pick(option);
  option.focus();
  option.scrollIntoView?.({ block: 'nearest' });
  return true;
}
