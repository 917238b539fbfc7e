import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { EditorState, Compartment, Text, type Extension } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection, tooltips } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { keepCaret, keptSelection } from './keepCaret';
import { refreshLint } from './template';
import { bracketMatching } from '@codemirror/language';

interface Props {
  value: string;
  onChange?: (text: string) => void;
  language?: Extension;
  /** Bumped by the owner when lint data changed (re-runs the lint source). */
  lintVersion?: unknown;
  lint?: Extension;
  readOnly?: boolean;
  label: string;
  testId?: string;
  minHeight?: string;
  maxHeight?: string;
  /** Show this line (1-based; null: the start) with the cursor on it, and take the focus: a
   *  diagnostic's link. A new `seq` asks again; `onRevealed` says it was done. */
  reveal?: { line: number | null; seq: number };
  onRevealed?: () => void;
  /** Keep the caret under this key: a new editor with the same key starts where the last one's
   *  caret was (editor/keepCaret.ts). */
  caretKey?: string;
}

/** Scrolls the nearest scrolling ancestor of `el` (a pane) so that `el`'s top is in view. */
function scrollIntoPane(el: HTMLElement) {
  let pane = el.parentElement;
  while (pane && !/(auto|scroll)/.test(getComputedStyle(pane).overflowY)) pane = pane.parentElement;
  if (!pane) return;
  const r = el.getBoundingClientRect();
  const box = pane.getBoundingClientRect();
  if (r.top < box.top || r.bottom > box.bottom) pane.scrollTop += r.top - box.top - 8;
}

/** A CodeMirror 6 editor as a Preact component. External value changes replace the document
 *  unless they equal it (so typing does not reset the cursor). */
export function Editor(p: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const lang = useRef(new Compartment());
  const lintC = useRef(new Compartment());
  const onChange = useRef(p.onChange);
  onChange.current = p.onChange;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: p.value,
        selection: keptSelection(p.caretKey, Text.of(p.value.split(/\r\n?|\n/))),
        extensions: [
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          bracketMatching(),
          p.caretKey === undefined ? [] : keepCaret(p.caretKey),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          // Tooltips (an error's message on hover) live in the body: the panes have strict containment
          // (style.css), which would clip them at the pane's edge.
          tooltips({ parent: document.body }),
          EditorView.lineWrapping,
          EditorState.readOnly.of(!!p.readOnly),
          EditorView.contentAttributes.of({ 'aria-label': p.label }),
          lang.current.of(p.language ?? []),
          lintC.current.of(p.lint ?? []),
          EditorView.theme({
            // `&.cm-editor`, not `&`: the tooltips' host in the body carries the theme's class too,
            // and a min-height on it made the page 4em taller than the window (which then scrolled).
            '&.cm-editor': { minHeight: p.minHeight ?? '4em', maxHeight: p.maxHeight ?? '40vh', fontSize: '12.5px' },
            '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', overflow: 'auto' },
          }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChange.current?.(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
  }, []);

  // A layout effect runs in the same task as the render that read `value`, so no keystroke can
  // slip in between (a passive effect, run a frame later, would write a stale value back).
  useLayoutEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== p.value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: p.value } });
  }, [p.value]);

  useEffect(() => {
    view.current?.dispatch({ effects: lang.current.reconfigure(p.language ?? []) });
  }, [p.language]);
  useEffect(() => {
    view.current?.dispatch({ effects: lintC.current.reconfigure(p.lint ?? []) });
  }, [p.lint]);
  useEffect(() => {
    if (view.current && p.lint) view.current.dispatch({ effects: refreshLint.of(null) });
  }, [p.lintVersion]);

  useEffect(() => {
    const v = view.current;
    if (!v || !p.reveal) return;
    const doc = v.state.doc;
    const at = p.reveal.line ? doc.line(Math.min(Math.max(p.reveal.line, 1), doc.lines)).from : 0;
    v.dispatch({ selection: { anchor: at }, effects: EditorView.scrollIntoView(at, { y: 'center' }) });
    // Only the pane the editor is in scrolls to it: the window itself must not move (focus() and
    // scrollIntoView() would scroll every scrollable ancestor, the page's header out of sight).
    v.contentDOM.focus({ preventScroll: true });
    if (host.current) scrollIntoPane(host.current);
    p.onRevealed?.();
  }, [p.reveal?.seq]);

  return <div class="editor" ref={host} data-testid={p.testId} />;
}
