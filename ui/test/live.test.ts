// The Live view's logic: pages of `live_calls` merged from a cursor (no call twice, the cursor
// never back), grouping by conversation, the filter box, the dropped count, the names calls are
// saved under, their JSON lines, predictions asked once a few at a time, and the poller.
import { describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Api } from '../src/api/api';
import type { LiveCallsPage, ReceivedCall } from '../src/api/types';
import {
  billedTokens,
  emptyLive,
  groupByConversation,
  jsonLines,
  joinPath,
  LivePoller,
  matchesFilter,
  mergePage,
  predict,
  sceneFileName,
} from '../src/lib/received';
import { saveScene } from '../src/app';
import { Session } from '../src/lib/session';
import { LiveView, type LiveProps } from '../src/views/Live';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';

import DEFAULT from '../../fixtures/default.scene.json?raw';

const call = (seq: number, conversation: string, extra: Partial<ReceivedCall> = {}): ReceivedCall => ({
  seq,
  received_at: '2026-12-03T05:00:00Z',
  conversation,
  trace_id: 'ab'.repeat(16),
  span_id: '02'.repeat(8),
  span_name: 'chat gpt-4o-mini',
  scene_name: 'chat-gpt-4o-mini',
  provider: 'openai',
  api: 'openai-chat',
  model: 'gpt-4o-mini',
  usage: null,
  scene: `{"scene": ${seq}}`,
  unmapped: [],
  span_json: `{"span": ${seq}}`,
  ...extra,
});

const page = (calls: ReceivedCall[], next: number, dropped = 0): LiveCallsPage => ({
  calls,
  next,
  dropped,
  receiver: { endpoint: 'http://127.0.0.1:4318/v1/traces', error: null },
});

/** A fake core whose `save` writes into `files` (with `more` of the operations a test needs). */
const savingApi = (files: Record<string, string>, more: Partial<Api> = {}): Api =>
  fakeApi({
    save: async (path, text) => {
      files[path] = text;
      return { modified_ms: 1, size: text.length };
    },
    ...more,
  });

/** The Live view rendered into a fresh element, nothing happening on its buttons unless given. */
async function renderLive(props: Pick<LiveProps, 'session' | 'live'> & Partial<LiveProps>): Promise<HTMLElement> {
  const root = freshRoot();
  await act(() => {
    render(
      h(LiveView, {
        paused: false,
        setPaused: () => {},
        onClear: () => {},
        onShow: () => {},
        onConversation: () => {},
        ...props,
      }),
      root,
    );
  });
  return root;
}

/** Clicks the element of `root` with this test id. */
const clickTestId = (root: HTMLElement, id: string) => (root.querySelector(`[data-testid="${id}"]`) as HTMLElement).click();

describe('merging pages from a cursor', () => {
  it('adds the new calls, moves the cursor and takes the dropped count', () => {
    let s = mergePage(emptyLive(), page([call(1, 'a'), call(2, 'b')], 2));
    expect(s.calls.map((c) => c.seq)).toEqual([1, 2]);
    expect(s.next).toBe(2);
    s = mergePage(s, page([call(3, 'a')], 3, 5));
    expect(s.calls.map((c) => c.seq)).toEqual([1, 2, 3]);
    expect(s.dropped).toBe(5);
    expect(s.receiver?.endpoint).toBe('http://127.0.0.1:4318/v1/traces');
  });

  it('never adds a call twice nor moves the cursor back', () => {
    const s = mergePage(emptyLive(), page([call(1, 'a'), call(2, 'a')], 2));
    const again = mergePage(s, page([call(2, 'a')], 1));
    expect(again.calls.map((c) => c.seq)).toEqual([1, 2]);
    expect(again.next).toBe(2);
  });

  it('keeps the newest calls within its cap', () => {
    const s = mergePage(
      emptyLive(),
      page(
        [1, 2, 3, 4].map((i) => call(i, 'a')),
        4,
      ),
      3,
    );
    expect(s.calls.map((c) => c.seq)).toEqual([2, 3, 4]);
  });
});

describe('conversations and the filter', () => {
  const calls = [
    call(1, 'trip-42'),
    call(2, 'ffff', { model: 'claude-sonnet-4-5', provider: 'anthropic', api: 'anthropic', span_name: 'chat claude-sonnet-4-5' }),
    call(3, 'trip-42', { scene: '{"text": "And in June?"}' }),
  ];

  it('groups by conversation in the order each first arrived', () => {
    const groups = groupByConversation(calls);
    expect(groups.map((g) => [g.id, g.calls.map((c) => c.seq)])).toEqual([
      ['trip-42', [1, 3]],
      ['ffff', [2]],
    ]);
  });

  it('matches every word against model, provider and text, case ignored', () => {
    const seqs = (f: string) => calls.filter((c) => matchesFilter(c, f)).map((c) => c.seq);
    expect(seqs('')).toEqual([1, 2, 3]);
    expect(seqs('anthropic')).toEqual([2]);
    expect(seqs('GPT-4O')).toEqual([1, 3]);
    expect(seqs('june')).toEqual([3]);
    expect(seqs('june sonnet')).toEqual([]);
  });
});

describe('what a call shows and is saved as', () => {
  it('shows the billed usage of the span, or none', () => {
    expect(billedTokens(call(1, 'a'))).toBeNull();
    const usage = { input_total: 1200, uncached: 200, cache_read: 1000, cache_write: {}, output: 40 };
    expect(billedTokens(call(1, 'a', { usage }))).toEqual({ input: 1200, output: 40, cacheRead: 1000 });
  });

  it('names scenes by their place and a safe name', () => {
    expect(sceneFileName(1, call(7, 'a'))).toBe('001-chat-gpt-4o-mini.scene.json');
    expect(sceneFileName(12, call(7, 'a', { scene_name: '../Weird Name!' }))).toBe('012-weird-name.scene.json');
    expect(sceneFileName(3, call(7, 'a', { scene_name: '', span_name: '' }))).toBe('003-call.scene.json');
    expect(joinPath('/tmp/out/', 'x.scene.json')).toBe('/tmp/out/x.scene.json');
    expect(joinPath('C:\\out', 'x.scene.json')).toBe('C:\\out\\x.scene.json');
  });

  it('writes one span a line', () => {
    expect(jsonLines([call(1, 'a'), call(2, 'a')])).toBe('{"span": 1}\n{"span": 2}\n');
  });
});

describe('predictions', () => {
  it('asks render for each call not known, a few at a time, on the picked model', async () => {
    let inFlight = 0;
    let most = 0;
    const asked: { text: string; models: string[] | undefined }[] = [];
    const api = fakeApi({
      render: async (text, o) => {
        asked.push({ text, models: o.models });
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        if (text.includes('3')) throw { code: 'load_error', message: 'bad scene' };
        return { costs: [{ model: 'openai/gpt-4o-mini', input_tokens: text.length, cost_usd: 0.001 }] } as never;
      },
    });
    const done = new Map<number, unknown>();
    const calls = [1, 2, 3, 4, 5].map((i) => call(i, 'a'));
    await predict(
      api,
      calls,
      'openai/gpt-4o-mini',
      (seq) => seq === 5,
      (seq, p) => done.set(seq, p),
      2,
    );
    expect(asked.map((a) => a.text)).toEqual(calls.slice(0, 4).map((c) => c.scene));
    expect(asked.every((a) => a.models?.[0] === 'openai/gpt-4o-mini')).toBe(true);
    expect(most).toBe(2);
    expect(done.get(1)).toEqual({ cost: { model: 'openai/gpt-4o-mini', input_tokens: calls[0].scene.length, cost_usd: 0.001 } });
    expect(done.get(3)).toEqual({ error: 'bad scene' });
    expect(done.has(5)).toBe(false);
  });
});

describe('the poller', () => {
  it('asks from its cursor, and clear starts over from 0', async () => {
    const asked: [number, boolean | undefined][] = [];
    const pages = [page([call(1, 'a'), call(2, 'a')], 2, 0), page([call(3, 'b')], 3, 1), page([], 3, 1)];
    const api = fakeApi({
      liveCalls: async (after, clear) => {
        asked.push([after, clear]);
        return pages.shift() ?? page([], 3, 1);
      },
    });
    const seen: number[][] = [];
    const p = new LivePoller(api, (s) => seen.push(s.calls.map((c) => c.seq)));
    await p.poll();
    await p.poll();
    expect(p.state.dropped).toBe(1);
    await p.clear();
    expect(asked).toEqual([
      [0, false],
      [2, false],
      [0, true],
    ]);
    expect(seen).toEqual([[1, 2], [1, 2, 3], []]);
    expect(p.state.next).toBe(3);
  });

  it('polls on a timer while started, one poll at a time', async () => {
    let polls = 0;
    const api = fakeApi({
      liveCalls: async () => {
        polls++;
        return page([], 0);
      },
    });
    const p = new LivePoller(api, () => {});
    p.start(10);
    await new Promise((r) => setTimeout(r, 60));
    p.stop();
    const after = polls;
    expect(after).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 40));
    expect(polls).toBe(after);
    expect(p.running).toBe(false);
  });
});

describe('a received call on the board', () => {
  it('is read-only, has no path, and is a scene of its own once saved', async () => {
    const files: Record<string, string> = {};
    const s = new Session(savingApi(files, { stat: async () => ({ modified_ms: 1, size: 1 }) }));
    await s.loadReceived(DEFAULT, 'call 3 (gpt-4o-mini)', false);
    expect([s.received, s.path, s.dirty]).toEqual(['call 3 (gpt-4o-mini)', null, false]);
    s.edit((sc) => sc.set('name', 'changed'));
    expect(s.text).toBe(DEFAULT);
    expect(s.notice).toBe('call 3 (gpt-4o-mini) is a received call, shown read-only: save it (Save) to edit it.');
    expect(await saveScene(s, false, '', async () => '/r.scene.json')).toBe('/r.scene.json');
    expect(files['/r.scene.json']).toBe(DEFAULT);
    expect([s.received, s.path]).toEqual([null, '/r.scene.json']);
  });
});

describe('the Live view', () => {
  it('lists the calls by conversation with the dropped count, and saves the ticked ones as numbered scenes', async () => {
    const files: Record<string, string> = {};
    const s = new Session(savingApi(files));
    const live = mergePage(emptyLive(), page([call(4, 'trip-42'), call(5, 'ffff'), call(6, 'trip-42')], 6, 3));
    const shown: number[] = [];
    const root = await renderLive({ session: s, live, onShow: (c: ReceivedCall) => shown.push(c.seq) });
    const heads = [...root.querySelectorAll('.live-conversation h3')].map((x) => x.textContent);
    expect(heads).toEqual(['Conversation trip-42 2 calls', 'Conversation ffff 1 call']);
    expect(root.querySelector('[data-testid="live-dropped"]')?.textContent).toBe('3 dropped');
    expect(root.querySelector('[data-testid="live-count"]')?.textContent).toBe('3 calls');
    const tick = async (seq: number) =>
      act(() => {
        clickTestId(root, `live-pick-${seq}`);
      });
    await tick(6);
    await tick(4);
    const folder = root.querySelector('[data-testid="live-folder"]') as HTMLInputElement;
    await act(() => {
      folder.value = '/out';
      folder.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => {
      clickTestId(root, 'live-save-scenes');
      for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    });
    expect(Object.keys(files)).toEqual(['/out/001-chat-gpt-4o-mini.scene.json', '/out/002-chat-gpt-4o-mini.scene.json']);
    expect(Object.values(files)).toEqual([call(4, '').scene, call(6, '').scene]);
    expect(root.querySelector('[data-testid="live-message"]')?.textContent).toBe('Saved 2 scenes in /out.');
    await act(() => {
      clickTestId(root, 'live-show-5');
    });
    expect(shown).toEqual([5]);
    dropRoot(root);
  });
});

describe("the receiver's status", () => {
  const shown = async (receiver: LiveCallsPage['receiver'] | null) => {
    const root = await renderLive({ session: new Session(fakeApi({})), live: { ...emptyLive(), receiver } });
    const text = root.querySelector('.bar')?.textContent ?? '';
    const alert = root.querySelector('[role="alert"]')?.textContent ?? null;
    dropRoot(root);
    return { text, alert };
  };

  it('names the endpoint, says why it is not listening, or that it is starting', async () => {
    expect((await shown({ endpoint: 'http://127.0.0.1:4318/v1/traces', error: null })).text).toContain('http://127.0.0.1:4318/v1/traces');
    const taken = await shown({ endpoint: null, error: 'cannot listen on 127.0.0.1:4318: Address in use' });
    expect(taken.alert).toBe('The receiver is not listening: cannot listen on 127.0.0.1:4318: Address in use');
    const starting = await shown({ endpoint: null, error: null });
    expect([starting.text, starting.alert]).toEqual(['Starting the receiver…', null]);
  });
});
