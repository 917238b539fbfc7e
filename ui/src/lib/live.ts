// Live re-rendering: coalesce edits to one request per animation frame and drop responses that
// arrive after a newer request was issued (stale), so the board only ever shows the latest scene.

export type Schedule = (cb: () => void) => unknown;

export class LatestOnly<I, O> {
  private seq = 0;
  private pending: I | null = null;
  private scheduled = false;
  constructor(
    private work: (input: I) => Promise<O>,
    private onResult: (out: O, input: I) => void,
    private onError: (e: unknown, input: I) => void,
    private schedule: Schedule = (cb) => requestAnimationFrame(() => cb()),
  ) {}

  /** Ask for a render of `input`; several calls in one frame make one request. */
  push(input: I) {
    this.pending = input;
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      const inp = this.pending as I;
      this.pending = null;
      void this.fire(inp);
    });
  }

  /** Run now (no frame wait); still subject to stale-dropping. */
  async fire(input: I) {
    const my = ++this.seq;
    try {
      const out = await this.work(input);
      if (my === this.seq) this.onResult(out, input);
    } catch (e) {
      if (my === this.seq) this.onError(e, input);
    }
  }

  get latest() { return this.seq; }
}
