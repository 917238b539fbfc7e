// serve's WebSocket (`GET /api/ws`, docs/api.md "WebSocket"): one call per message,
// `{"id", "op", "req"}`, answered by `{"id", "status", "body"}`, the status and body the same call
// over `POST /api/<op>` would have had. The socket opens on the first call and is used once open;
// until then, and whenever it cannot be, the caller goes over HTTP.
import type { ApiError } from './types';

/** Opens a WebSocket to `url` (the page's own `WebSocket`; tests give their own). */
export type OpenSocket = (url: string) => WebSocket;

interface Pending {
  resolve: (answer: { status: number; body: unknown }) => void;
  reject: (e: ApiError) => void;
}

/** After a socket failed to open, calls go over HTTP this long before it is tried again. */
const RETRY_MS = 5000;
const OPEN = 1;
const CONNECTING = 0;

export class SocketChannel {
  private socket: WebSocket | null = null;
  private retryAt = 0;
  private nextId = 0;
  private pending = new Map<number, Pending>();
  private enc = new TextEncoder();

  constructor(
    private url: string,
    private open: OpenSocket,
  ) {}

  /**
   * Sends a call when the socket is open and resolves with its status and body; `null` when it is
   * not (the caller goes over HTTP), in which case a socket is opened for the calls after this one.
   */
  call(op: string, body: Uint8Array<ArrayBuffer> | string): Promise<{ status: number; body: unknown }> | null {
    const ws = this.socket;
    if (ws?.readyState !== OPEN) {
      if (ws?.readyState !== CONNECTING) this.connect();
      return null;
    }
    const id = ++this.nextId;
    const head = `{"id":${id},"op":${JSON.stringify(op)},"req":`;
    const promise = new Promise<{ status: number; body: unknown }>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    try {
      if (typeof body === 'string') ws.send(`${head}${body}}`);
      else {
        // The request's UTF-8 bytes (a scene text can be megabytes) go out as they are.
        const h = this.enc.encode(head);
        const out = new Uint8Array(h.length + body.length + 1);
        out.set(h, 0);
        out.set(body, h.length);
        out[out.length - 1] = 0x7d; // }
        ws.send(out);
      }
    } catch {
      this.pending.delete(id);
      return null;
    }
    return promise;
  }

  private connect() {
    if (Date.now() < this.retryAt) return;
    let ws: WebSocket;
    try {
      ws = this.open(this.url);
    } catch {
      this.retryAt = Date.now() + RETRY_MS;
      return;
    }
    let opened = false;
    this.socket = ws;
    ws.onopen = () => {
      opened = true;
    };
    ws.onmessage = (m: MessageEvent) => {
      let a: { id?: unknown; status?: unknown; body?: unknown };
      try {
        a = JSON.parse(typeof m.data === 'string' ? m.data : '');
      } catch {
        return;
      }
      const p = typeof a.id === 'number' ? this.pending.get(a.id) : undefined;
      if (!p || typeof a.status !== 'number') return;
      this.pending.delete(a.id as number);
      p.resolve({ status: a.status, body: a.body });
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.socket === ws) this.socket = null;
      // A socket that never opened (refused, busy) is not tried again at once.
      if (!opened) this.retryAt = Date.now() + RETRY_MS;
      const why = e.reason ? `: ${e.reason}` : '';
      for (const p of this.pending.values())
        p.reject({ code: 'network', message: `the connection to prompt-inspector serve closed (${e.code}${why})` });
      this.pending.clear();
    };
  }
}
