// The panels beside the board wait for a keystroke's answer to be on screen (docs/performance.md,
// "The board first").
import { Component, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../lib/session';

/** What the hook reads of the session. */
export type BoardFirst = Pick<Session, 'version' | 'boardFirst' | 'costsPending'>;

/**
 * The session version the panels beside the board (the left pane, the context panel) show. A
 * keystroke's answer reaches the board in the next frame and the panels after it: with the costs
 * it left to a settle, when the settle arrives; else in the frame after the board's. Re-rendering
 * them with the board took most of a frame on a large scene (their tool rows, findings and
 * editor), which pushed the board a frame later (docs/performance.md). Any other change reaches
 * them at once.
 */
export function usePanelsVersion(s: BoardFirst): number {
  const shown = useRef(s.version);
  const released = useRef(0);
  const [, force] = useState(0);
  const answer = s.version === s.boardFirst && typeof requestAnimationFrame === 'function';
  // The answer left its costs to a settle that follows at once: the panels wait for it and
  // change once, with everything the keystroke changed.
  const hold = answer && (s.costsPending || released.current !== s.version);
  if (!hold) shown.current = s.version;
  const held = s.version;
  useEffect(() => {
    if (!hold || s.costsPending) return;
    // Effects run after the frame that painted the render: the board is on screen. A newer
    // change has its own render coming.
    released.current = held;
    if (s.version === held) force((x) => x + 1);
  }, [hold, held, s]);
  return shown.current;
}

/** Renders `children` again only when `version` or one of `deps` changed (see usePanelsVersion). */
export class Held extends Component<{ version: number; deps: unknown[]; children: () => ComponentChildren }> {
  shouldComponentUpdate(next: { version: number; deps: unknown[] }) {
    return (
      next.version !== this.props.version ||
      next.deps.length !== this.props.deps.length ||
      next.deps.some((d, i) => !Object.is(d, this.props.deps[i]))
    );
  }
  render() {
    return this.props.children();
  }
}
