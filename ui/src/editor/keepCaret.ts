import { EditorSelection, type Text } from '@codemirror/state';
import { ViewPlugin, type ViewUpdate } from '@codemirror/view';

/**
 * Where the caret was in each template, so that coming back to a template (another tool picked
 * and this one again, another locale and back) and tabbing into its editor puts the caret where
 * it was, not at the start: the editor is a new one each time, which would begin at 0. Kept for
 * the page's life, by the owner's key (the template's path and locale), for at most `MAX` keys.
 */
const kept = new Map<string, ReturnType<EditorSelection['toJSON']>>();
const MAX = 256;

/** The selection kept for `key`, if it still fits `doc`. */
export function keptSelection(key: string | undefined, doc: Text): EditorSelection | undefined {
  const json = key === undefined ? undefined : kept.get(key);
  if (!json) return undefined;
  const selection = EditorSelection.fromJSON(json);
  return selection.ranges.every((r) => r.to <= doc.length) ? selection : undefined;
}

/** Keeps the editor's selection under `key` as it changes. */
export function keepCaret(key: string) {
  return ViewPlugin.define(() => ({
    update(u: ViewUpdate) {
      if (!u.selectionSet && !u.docChanged) return;
      kept.delete(key);
      kept.set(key, u.state.selection.toJSON());
      // The oldest first: a Map keeps insertion order.
      if (kept.size > MAX) kept.delete(kept.keys().next().value as string);
    },
  }));
}
