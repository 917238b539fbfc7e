// Live re-rendering through a live document in the core (docs/api.md, "Live"). Each edit goes out
// at once as a text splice; while one is in flight, later edits wait and go out together as one
// splice from the text the core has. Updates therefore arrive in order and every patch applies to
// the tree the page holds; nothing is dropped and the board only ever shows the latest text.
import type { Api } from '../api/api';
import { isApiError } from '../api/api';
import type { ApiError, LiveOptions, LiveTree, LiveUpdate } from '../api/types';
import { applyPatch, originEdit, textEdit } from './patch';

/**
 * What the scene writer knows about a text it wrote from a loaded `text` (numbered `base`): it is
 * that text's first `stable` characters (up to the first value an edit re-serialised, or the
 * first tool it changed), then `middle`, then that text's last `stableTail` characters.
 */
export interface TextOrigin {
  base: number;
  text: string;
  stable: number;
  stableTail: number;
  middle: string;
}

export interface LiveResult {
  tree: LiveTree;
  text: string;
  coreMs: number;
  roundTripMs: number;
  /** The options the reports were rendered with (the chat body's provider among them). */
  options: LiveOptions;
  /** The costs are the previous text's: the core prices this one next (a settle follows). */
  costsPending: boolean;
  /** This result only priced the text shown already: nothing was typed. */
  settle: boolean;
}

/**
 * Resolves after the next frame has been painted (at once where there are no frames). A hidden
 * page draws no frames: after 100 ms it resolves without one.
 */
function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const fallback = setTimeout(resolve, 100);
    requestAnimationFrame(() => {
      clearTimeout(fallback);
      setTimeout(resolve, 0);
    });
  });
}

export class LiveClient {
  private doc: number | null = null;
  private revision = 0;
  /** The text and options the core's document has. */
  private coreText = '';
  private coreOptions = '';
  private coreOptionsValue: LiveOptions | null = null;
  private coreOrigin: TextOrigin | null = null;
  private tree: LiveTree | null = null;
  private wanted: { text: string; options: LiveOptions; origin?: TextOrigin } | null = null;
  private busy = false;
  /** The core left the last edit unpriced: once nothing is wanted, ask it to price. */
  private unpriced = false;
  /** Bumped by `reset`: an answer about an earlier document is dropped. */
  private epoch = 0;

  constructor(
    private api: Api,
    private onResult: (r: LiveResult) => void,
    private onError: (e: ApiError, text: string) => void,
  ) {}

  /** Render `text` with `options` as soon as the core is free. */
  push(text: string, options: LiveOptions, origin?: TextOrigin) {
    this.wanted = { text, options, origin };
    if (!this.busy) void this.pump();
  }

  /** Start over with a new document (a file was opened); the old one is closed. */
  reset() {
    if (this.doc !== null) {
      const d = this.doc;
      void this.api.liveClose(d).catch(() => {
        /* already gone */
      });
    }
    this.doc = null;
    this.tree = null;
    this.unpriced = false;
    this.epoch++;
  }

  /** Resolves when every pushed text has been rendered (or failed). */
  async idle(): Promise<void> {
    while (this.busy || this.wanted || (this.unpriced && this.doc !== null)) await new Promise((r) => setTimeout(r, 1));
  }

  private async pump() {
    this.busy = true;
    try {
      while (this.wanted || (this.unpriced && this.doc !== null && this.tree)) {
        if (!this.wanted) {
          // Nothing typed since the last answer, which left pricing for later: price it once that
          // answer is on screen (pricing beside the board's frame would slow the frame on two
          // cores), unless a keystroke comes first.
          await afterPaint();
          if (!this.wanted && !(this.unpriced && this.doc !== null && this.tree)) continue;
        }
        const settle = !this.wanted;
        const { text, options, origin } = this.wanted ?? {
          text: this.coreText,
          options: this.coreOptionsValue as LiveOptions,
          origin: this.coreOrigin ?? undefined,
        };
        this.wanted = null;
        this.unpriced = false;
        const optionsKey = JSON.stringify(options);
        const t0 = performance.now();
        let epoch = this.epoch;
        let u: LiveUpdate;
        try {
          if (this.doc === null || !this.tree) {
            this.reset();
            epoch = this.epoch;
            u = await this.api.liveOpen(text, options);
          } else {
            const c = this.coreOrigin;
            const edit = c && origin && c.base === origin.base ? originEdit(c, origin) : textEdit(this.coreText, text);
            const opts = optionsKey === this.coreOptions ? null : options;
            if (!edit && !opts && !settle) continue;
            // A keystroke may leave pricing for later; a change of options is priced at once.
            u = await this.api.liveEdit(this.doc, this.revision, edit, opts, edit !== null && opts === null);
          }
        } catch (e) {
          if (epoch !== this.epoch) continue;
          const err: ApiError = isApiError(e) ? e : { code: 'internal', message: String(e) };
          // The core lost the document or disagrees about its text: open it again.
          if (err.code === 'stale_document' && this.doc !== null) {
            this.doc = null;
            this.tree = null;
            this.wanted ??= { text, options };
            continue;
          }
          // A transport failure: the core's state is unknown, so the next edit starts over.
          this.doc = null;
          this.tree = null;
          this.onError(err, text);
          continue;
        }
        if (epoch !== this.epoch) {
          // A file was opened meanwhile: this answer is about the document before it.
          if (u.doc !== this.doc)
            void this.api.liveClose(u.doc).catch(() => {
              /* already gone */
            });
          continue;
        }
        this.doc = u.doc;
        this.revision = u.revision;
        this.coreText = text;
        this.coreOptions = optionsKey;
        this.coreOptionsValue = options;
        this.unpriced = u.costs_pending ?? false;
        this.coreOrigin = origin ?? null;
        if (u.patch.length) {
          try {
            this.tree = applyPatch(this.tree as LiveTree, u.patch);
          } catch {
            // Cannot happen unless the two sides disagree; reopen rather than show a wrong board.
            this.doc = null;
            this.tree = null;
            this.wanted ??= { text, options };
            continue;
          }
        }
        if (u.load_error) {
          this.onError(u.load_error, text);
          continue;
        }
        if (this.tree)
          this.onResult({
            tree: this.tree,
            text,
            coreMs: u.core_ms ?? 0,
            roundTripMs: performance.now() - t0,
            options,
            costsPending: this.unpriced,
            settle,
          });
      }
    } finally {
      this.busy = false;
    }
  }
}
