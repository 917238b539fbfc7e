// The board first: a keystroke's answer reaches the board at once and the panels beside it (the
// left pane, the context panel) only once the settle that prices it has arrived, or, when no
// settle follows, after the frame that painted the board. Any other change reaches them at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { type BoardFirst, Held, usePanelsVersion } from '../src/views/held';
import { dropRoot, freshRoot } from './root';

/** What the session says, and what its reports hold (`data`). */
interface Fake extends BoardFirst {
  data: string;
}

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => dropRoot(root));

let panelRenders = 0;
function Screen({ s, selected }: { s: Fake; selected: string }) {
  const panels = usePanelsVersion(s);
  return h('div', null, [
    h('p', { id: 'board' }, s.data),
    h(Held, {
      version: panels,
      deps: [selected],
      children: () => {
        panelRenders++;
        return h('p', { id: 'panel' }, `${s.data} ${selected}`);
      },
    }),
  ]);
}

const text = (id: string) => root.querySelector(`#${id}`)?.textContent;
const draw = (s: Fake, selected = 'a') => render(h(Screen, { s: { ...s }, selected }), root);
/** Past the next frame and the task after it (where effects run after a paint). */
const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

describe('the panels beside the board', () => {
  it('take a keystroke answer with the settle that prices it, the board at once', async () => {
    const s: Fake = { version: 1, boardFirst: 0, costsPending: false, data: 'v1' };
    await act(() => draw(s));
    expect([text('board'), text('panel')]).toEqual(['v1', 'v1 a']);
    // The answer: costs left to a settle.
    Object.assign(s, { version: 2, boardFirst: 2, costsPending: true, data: 'v2' });
    await act(() => draw(s));
    await afterPaint();
    expect([text('board'), text('panel')]).toEqual(['v2', 'v1 a']);
    // Choosing another tool meanwhile is shown at once.
    await act(() => draw(s, 'b'));
    expect(text('panel')).toBe('v2 b');
    // The settle.
    Object.assign(s, { version: 3, costsPending: false, data: 'v3' });
    await act(() => draw(s, 'b'));
    expect([text('board'), text('panel')]).toEqual(['v3', 'v3 b']);
  });

  it('take an answer with no settle after the frame that painted the board', async () => {
    const s: Fake = { version: 1, boardFirst: 0, costsPending: false, data: 'v1' };
    await act(() => draw(s));
    Object.assign(s, { version: 2, boardFirst: 2, data: 'v2' });
    draw(s);
    expect([text('board'), text('panel')]).toEqual(['v2', 'v1 a']);
    await afterPaint();
    await afterPaint();
    expect(text('panel')).toBe('v2 a');
  });

  it('take any other change at once, and re-render only when something they show changed', async () => {
    const s: Fake = { version: 1, boardFirst: 0, costsPending: false, data: 'v1' };
    await act(() => draw(s));
    panelRenders = 0;
    await act(() => draw(s));
    expect(panelRenders).toBe(0);
    Object.assign(s, { version: 2, data: 'v2' });
    await act(() => draw(s));
    expect(text('panel')).toBe('v2 a');
    expect(panelRenders).toBe(1);
  });
});
