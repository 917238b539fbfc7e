import type { EditorSelection } from '@codemirror/state';
import { type EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';

/**
 * Tabbing back into an editor puts the caret where it was, not at the start. The browser places
 * the DOM caret at the start of the content it focuses by keyboard, and CodeMirror takes the DOM
 * selection as the editor's: so the selection is kept when the editor loses the focus (or is set
 * while it has none, as a diagnostic's link does) and put back when it gets the focus without a
 * pointer. A click still places the caret where it is clicked.
 */
export const keepCaret = ViewPlugin.fromClass(
  class {
    saved: EditorSelection | null = null;
    pointer = false;
    constructor(readonly view: EditorView) {}
    update(u: ViewUpdate) {
      if (!u.view.hasFocus && u.selectionSet) this.saved = u.state.selection;
    }
  },
  {
    eventObservers: {
      mousedown() {
        this.pointer = true;
      },
      touchstart() {
        this.pointer = true;
      },
      blur() {
        this.saved = this.view.state.selection;
        this.pointer = false;
      },
      focus() {
        const saved = this.saved;
        const byPointer = this.pointer;
        this.pointer = false;
        if (byPointer || !saved) return;
        const length = this.view.state.doc.length;
        if (saved.ranges.some((r) => r.to > length)) return;
        this.view.dispatch({ selection: saved, scrollIntoView: true });
      },
    },
  },
);
