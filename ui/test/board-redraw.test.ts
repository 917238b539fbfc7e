// What a keystroke re-draws on the board. A segment can hold hundreds of pieces (every tool of a
// scene injected in one place); typing in one tool's template changes that piece's text and
// figures and moves the byte offsets of every piece after it. Only the edited piece's line and
// figure row may change in the document: the other lines, figure rows and the legend stay as
// they were (no attribute, text or child changes), so the browser re-lays out one line.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Report } from '../src/api/types';
import { Segments } from '../src/views/Segments';
import { dropRoot, freshRoot } from './root';

/** The chat report of one segment holding one piece per tool, one line each; `first` is the
 *  first tool's text (the one being edited). Offsets are UTF-8 bytes, as the core gives them. */
function report(first: string, tools = ['alpha', 'beta', 'gamma']): Report {
  const texts = tools.map((t, i) => (i === 0 ? first : `# ${t} notes`));
  const enc = new TextEncoder();
  let at = 0;
  const pieces = texts.map((text, i) => {
    const start = at;
    at += enc.encode(text).length;
    const piece = { source: 'tool', tool: tools[i], text, range: [start, at], tokens: 2 + i + (i === 0 ? first.length : 0) };
    at += 1; // the "\n" seam between pieces
    return piece;
  });
  const text = texts.join('\n');
  return {
    llm: 'chat',
    tokenizer: 'o200k_base',
    messages: [],
    segments: [{ name: 'system_msg_prompt', legal: true, text, bytes: enc.encode(text).length, tokens: 40, pieces }],
    tools: [],
    diagnostics: [],
    metrics: { tools_total: 3, tools_rendered: 3, bytes: 0, positions: {} },
  } as unknown as Report;
}

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));

const palette = new Map([
  ['alpha', 'hsl(10 80% 80%)'],
  ['beta', 'hsl(120 80% 80%)'],
  ['gamma', 'hsl(220 80% 80%)'],
]);
const board = (chat: Report, selectedTool: string | null = null, colors = palette) =>
  act(() => {
    render(
      h(Segments, {
        chat,
        desk: null,
        rules: null,
        palette: colors,
        adapter: 'openai_desk',
        setAdapter: () => {},
        provider: null,
        onSelectTool: () => {},
        selectedTool,
      }),
      root,
    );
  });

/** The elements a mutation touched (the element itself for attributes, the parent for
 *  children, the text node's element for text). */
function touched(records: MutationRecord[]): Set<Node> {
  const out = new Set<Node>();
  for (const r of records) out.add(r.type === 'characterData' ? (r.target.parentNode ?? r.target) : r.target);
  return out;
}

describe('a keystroke on a segment of many pieces', () => {
  it("re-draws the edited piece's line and figures, not the pieces after it nor the legend", async () => {
    await board(report('# alpha notes'));
    const lines = [...root.querySelectorAll('.seg-line')];
    const figures = [...root.querySelectorAll('[data-testid="piece-figure"]')];
    const legend = root.querySelector('.legend')!;
    expect(lines).toHaveLength(3);
    expect(figures).toHaveLength(3);
    const titleBefore = (lines[2].querySelector('.piece') as HTMLElement).title;

    const records: MutationRecord[] = [];
    const seen = new MutationObserver((r) => records.push(...r));
    seen.observe(root, { subtree: true, attributes: true, childList: true, characterData: true });
    await board(report('# alpha notesX'));
    records.push(...seen.takeRecords());
    seen.disconnect();
    const changed = touched(records);

    const inside = (el: Element) => [...changed].some((n) => el === n || el.contains(n));
    // The edited piece: its text and its figure row changed.
    expect(lines[0].textContent).toBe('# alpha notesX\n');
    expect(inside(lines[0])).toBe(true);
    expect(figures[0].textContent).toBe('alpha 16 tokens');
    // The pieces after it: offsets moved by one byte, nothing drawn changed.
    expect(inside(lines[1])).toBe(false);
    expect(inside(lines[2])).toBe(false);
    expect(inside(figures[1])).toBe(false);
    expect(inside(figures[2])).toBe(false);
    expect(inside(legend)).toBe(false);
    expect((lines[2].querySelector('.piece') as HTMLElement).title).toBe(titleBefore);
    // Still the same elements, in the document.
    expect([...root.querySelectorAll('.seg-line')]).toEqual(lines);
  });

  it('re-draws a line when its piece is selected and when its colour changes', async () => {
    await board(report('# alpha notes'));
    await board(report('# alpha notes'), 'beta');
    const pieces = [...root.querySelectorAll('.seg-line .piece')];
    expect(pieces.map((p) => p.classList.contains('sel'))).toEqual([false, true, false]);
    await board(report('# alpha notes'), null, new Map(palette).set('gamma', 'rgb(1, 2, 3)'));
    const after = [...root.querySelectorAll('.seg-line .piece')] as HTMLElement[];
    expect(after.map((p) => p.classList.contains('sel'))).toEqual([false, false, false]);
    expect(after[2].style.background).toBe('rgb(1, 2, 3)');
  });
});
