import { describe, expect, it } from 'vitest';
import { httpApi } from '../src/api/http';

/** A WebSocket the test drives: it records what is sent and answers when told. */
class FakeSocket {
  static last: FakeSocket | null = null;
  readyState = 0;
  sent: (string | Uint8Array)[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  constructor(public url: string) {
    FakeSocket.last = this;
  }
  send(data: string | Uint8Array) {
    this.sent.push(data);
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  answer(id: number, status: number, body: unknown) {
    this.onmessage?.({ data: JSON.stringify({ id, status, body }) });
  }
  close(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  /** The last call sent, parsed. */
  lastCall(): { id: number; op: string; req: Record<string, unknown> } {
    const m = this.sent[this.sent.length - 1];
    return JSON.parse(typeof m === 'string' ? m : new TextDecoder().decode(m));
  }
}

function setup() {
  const fetched: string[] = [];
  const api = httpApi(
    'http://127.0.0.1:9',
    't k',
    async (url) => {
      fetched.push(url);
      return new Response(JSON.stringify({ name: 'prompt-inspector', version: '1' }), { status: 200 });
    },
    (url) => new FakeSocket(url) as unknown as WebSocket,
  );
  return { api, fetched };
}

describe('calls over serve WebSocket', () => {
  it('go over HTTP until the socket opens, then over it, with the token in its URL', async () => {
    const { api, fetched } = setup();
    await api.about();
    expect(fetched).toEqual(['http://127.0.0.1:9/api/about']);
    const ws = FakeSocket.last as FakeSocket;
    expect(ws.url).toBe('ws://127.0.0.1:9/api/ws?token=t%20k');
    // Still connecting: HTTP again, and no second socket.
    await api.about();
    expect(fetched.length).toBe(2);
    expect(FakeSocket.last).toBe(ws);
    ws.open();
    const p = api.about();
    const call = ws.lastCall();
    expect(call.op).toBe('about');
    expect(call.req).toEqual({});
    ws.answer(call.id, 200, { name: 'prompt-inspector', version: '2' });
    expect((await p).core.version).toBe('2');
    expect(fetched.length).toBe(2);
  });

  it('matches answers to calls by id and maps an error status as HTTP does', async () => {
    const { api } = setup();
    await api.about();
    const ws = FakeSocket.last as FakeSocket;
    ws.open();
    const a = api.about();
    const first = ws.lastCall();
    const b = api.render('{}', { llm: 'chat', tokens: false });
    const second = ws.lastCall();
    expect(second.id).not.toBe(first.id);
    // A request with a scene text goes out as UTF-8 bytes, the text spliced in whole.
    expect(ws.sent[1]).toBeInstanceOf(Uint8Array);
    expect(second.op).toBe('render');
    expect(second.req).toMatchObject({ text: '{}', llm: 'chat' });
    ws.answer(second.id, 400, { code: 'load_error', message: 'unknown field', line: 3, column: 5 });
    ws.answer(first.id, 200, { name: 'prompt-inspector', version: '3' });
    await expect(b).rejects.toMatchObject({ code: 'load_error', message: 'unknown field', line: 3, column: 5 });
    expect((await a).core.version).toBe('3');
  });

  it('fails the calls in flight when the socket closes, and opens a new one for later calls', async () => {
    const { api, fetched } = setup();
    await api.about();
    const ws = FakeSocket.last as FakeSocket;
    ws.open();
    const p = api.about();
    ws.close(1001, 'no message for 10 minutes');
    await expect(p).rejects.toMatchObject({ code: 'network', message: expect.stringContaining('no message for 10 minutes') });
    await api.about();
    expect(fetched.length).toBe(2);
    expect(FakeSocket.last).not.toBe(ws);
  });

  it('does not retry at once a socket that never opened', async () => {
    const { api, fetched } = setup();
    await api.about();
    const ws = FakeSocket.last as FakeSocket;
    ws.close(1006);
    await api.about();
    await api.about();
    expect(FakeSocket.last).toBe(ws);
    expect(fetched.length).toBe(3);
  });
});
