// The Live view's logic: the calls the app's OTLP receiver took in (`live_calls`), merged page by
// page from a cursor, grouped by conversation, filtered, named for saving, and their predictions
// asked for a few at a time. Kept out of the view so it can be tested without a page.
import type { Api } from '../api/api';
import type { InputCost, LiveCallsPage, ReceivedCall, ReceiverStatus } from '../api/types';

/** Calls the view keeps at most (the receiver keeps its own last 1,000; a cleared view starts over). */
export const MAX_SHOWN = 1000;

/** What the view knows of the receiver's calls. */
export interface LiveCalls {
  /** Oldest first. */
  calls: ReceivedCall[];
  /** The cursor: the `after` of the next poll. */
  next: number;
  /** Dropped by the receiver to stay within its bounds, as its last answer says. */
  dropped: number;
  receiver: ReceiverStatus | null;
}

export const emptyLive = (): LiveCalls => ({ calls: [], next: 0, dropped: 0, receiver: null });

/**
 * A page of `live_calls` added to what the view has: only calls newer than the cursor (a page
 * asked twice adds nothing twice), at most `cap` kept, the newest. The cursor is the page's
 * `next`, which never goes back.
 */
export function mergePage(state: LiveCalls, page: LiveCallsPage, cap = MAX_SHOWN): LiveCalls {
  const fresh = page.calls.filter((c) => c.seq > state.next);
  const calls = fresh.length ? [...state.calls, ...fresh].slice(-cap) : state.calls;
  return { calls, next: Math.max(state.next, page.next), dropped: page.dropped, receiver: page.receiver };
}

/** One conversation's calls (`gen_ai.conversation.id`, else the trace), in arrival order. */
export interface Conversation {
  id: string;
  calls: ReceivedCall[];
}

/** The calls by conversation; conversations in the order of their first call. */
export function groupByConversation(calls: ReceivedCall[]): Conversation[] {
  const by = new Map<string, ReceivedCall[]>();
  for (const c of calls) {
    const list = by.get(c.conversation);
    if (list) list.push(c);
    else by.set(c.conversation, [c]);
  }
  return [...by].map(([id, cs]) => ({ id, calls: cs }));
}

/**
 * Whether a call matches the filter box: every word of it (case ignored) is in the call's model,
 * provider, API, conversation, span name or scene text.
 */
export function matchesFilter(call: ReceivedCall, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const hay = [call.model, call.provider, call.api, call.conversation, call.span_name, call.scene]
    .filter((x): x is string => !!x)
    .join('\n')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** The tokens the provider billed, as the span recorded them; null when it recorded none. */
export function billedTokens(call: ReceivedCall): { input: number; output: number; cacheRead: number } | null {
  const u = call.usage;
  if (!u) return null;
  return { input: u.input_total, output: u.output, cacheRead: u.cache_read };
}

/** `NNN-name.scene.json`: the place among the saved calls (from 1) and the scene's name made safe for a file. */
export function sceneFileName(place: number, call: ReceivedCall): string {
  const name =
    (call.scene_name || call.span_name || 'call')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 60) || 'call';
  return `${String(place).padStart(3, '0')}-${name}.scene.json`;
}

/** The calls as a JSON-lines file: each span alone as an OTLP/JSON export, one a line (what `cache` and `verify` read). */
export function jsonLines(calls: ReceivedCall[]): string {
  return calls.map((c) => `${c.span_json}\n`).join('');
}

/** `folder` joined with a file name, with the folder's own separator. */
export function joinPath(folder: string, name: string): string {
  const f = folder.replace(/[\\/]+$/, '');
  const sep = f.includes('\\') && !f.includes('/') ? '\\' : '/';
  return `${f}${sep}${name}`;
}

/** One call's prediction on the picked model: input tokens and their cost (the render report's `costs[0]`). */
export type Prediction = { cost: InputCost } | { error: string };

/**
 * Asks `render` for the calls' predictions, `atOnce` at a time, on `model`; `done` is called as
 * each arrives. A call already asked for (in `known`) is not asked again.
 */
export async function predict(
  api: Api,
  calls: ReceivedCall[],
  model: string,
  known: (seq: number) => boolean,
  done: (seq: number, p: Prediction) => void,
  atOnce = 3,
): Promise<void> {
  const todo = calls.filter((c) => !known(c.seq));
  for (let i = 0; i < todo.length; i += atOnce) {
    await Promise.all(
      todo.slice(i, i + atOnce).map(async (c) => {
        try {
          const report = await api.render(c.scene, { llm: 'chat', tokens: true, models: [model] });
          const cost = report.costs?.[0];
          done(c.seq, cost ? { cost } : { error: `no price for ${model}` });
        } catch (e) {
          done(c.seq, { error: (e as { message?: string }).message ?? String(e) });
        }
      }),
    );
  }
}

/**
 * Polls `live_calls` every `ms` from the cursor while started; `clear` asks the receiver to forget
 * its calls and starts the view over. One poll at a time: a slow answer delays the next.
 */
export class LivePoller {
  state: LiveCalls = emptyLive();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly api: Pick<Api, 'liveCalls'>,
    private readonly onChange: (s: LiveCalls) => void,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  get running(): boolean {
    return this.timer !== null;
  }

  /** One poll now; resolves when its page is merged. */
  poll(clear = false): Promise<void> {
    if (this.inFlight && !clear) return this.inFlight;
    const run = async () => {
      try {
        const page = await this.api.liveCalls(clear ? 0 : this.state.next, clear);
        this.state = mergePage(clear ? emptyLive() : this.state, page);
        this.onChange(this.state);
      } catch (e) {
        this.onError(e);
      }
    };
    const p = (this.inFlight ?? Promise.resolve()).then(run).finally(() => {
      if (this.inFlight === p) this.inFlight = null;
    });
    this.inFlight = p;
    return p;
  }

  start(ms = 500) {
    if (this.timer) return;
    const tick = async () => {
      await this.poll();
      if (this.timer) this.timer = setTimeout(tick, ms);
    };
    this.timer = setTimeout(tick, 0);
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Forgets every call, here and in the receiver. */
  clear(): Promise<void> {
    return this.poll(true);
  }
}
