// HTTP transport: `prompt-inspector serve` (docs/api.md, "HTTP"). The token comes from the page
// URL (`?token=`) and is sent as `Authorization: Bearer`. Every failure becomes an ApiError. Once
// serve's WebSocket (`/api/ws`) is open, calls go over it instead: in Chromium a call over an open
// socket takes about a millisecond and a fetch five to ten, and a keystroke's answer has one frame.
import { type Api, createApi, type Host, type Transport } from './api';
import type { Operation, Operations } from './bindings';
import type { AboutResponse, ApiError } from './types';
import { type OpenSocket, SocketChannel } from './ws';

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** Map any failure (an ApiError body, a bare status, a network failure) to {code, message, ...position}. */
export async function toApiError(res: Response | null, cause?: unknown): Promise<ApiError> {
  if (!res) {
    return { code: 'network', message: `cannot reach prompt-inspector serve: ${cause instanceof Error ? cause.message : String(cause)}` };
  }
  return errorOf(res.status, res.statusText, await res.text().catch(() => ''));
}

/** The ApiError of an answer's status and body text (HTTP or WebSocket). */
function errorOf(status: number, statusText: string, text: string): ApiError {
  let b: Record<string, unknown> | null = null;
  try {
    const j = text ? JSON.parse(text) : null;
    if (j && typeof j === 'object') b = j as Record<string, unknown>;
  } catch {
    b = null;
  }
  if (b && typeof b.message === 'string') {
    const e: ApiError = { code: typeof b.code === 'string' ? (b.code as ApiError['code']) : `http_${status}`, message: b.message };
    for (const k of ['kind', 'file', 'field'] as const) if (typeof b[k] === 'string') e[k] = b[k] as string;
    for (const k of ['line', 'column'] as const) if (typeof b[k] === 'number') e[k] = b[k] as number;
    if (Array.isArray(b.range) && b.range.length === 2) e.range = [Number(b.range[0]), Number(b.range[1])];
    return e;
  }
  const code: ApiError['code'] =
    status === 401
      ? 'unauthorized'
      : status === 403
        ? 'forbidden_host'
        : status === 404
          ? 'not_found'
          : status === 413
            ? 'too_large'
            : `http_${status}`;
  return { code, message: text.trim() || `${status} ${statusText}`.trim() };
}

/** `serve`'s routes: `POST /api/<op>` with the operation's request as the JSON body. */
export class HttpTransport implements Transport {
  constructor(
    private base: string,
    private token: string | null,
    private fetchFn: Fetch = (i, init) => fetch(i, init),
    openSocket?: OpenSocket,
  ) {
    if (openSocket) {
      const ws = `${base.replace(/^http/, 'ws')}/api/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`;
      this.socket = new SocketChannel(ws, openSocket);
    }
  }

  private socket: SocketChannel | null = null;

  // Scene texts go out several times per edit (chat, desk, live edits) and can be megabytes: the
  // JSON-encoded UTF-8 bytes of the last text are kept and spliced into each body.
  private encoded: { text: string; bytes: Uint8Array<ArrayBuffer> } | null = null;
  private enc = new TextEncoder();

  /** A request as its JSON body, UTF-8; a string `text` field is spliced in from the bytes kept. */
  body(req: object | null): Uint8Array<ArrayBuffer> | string {
    if (req === null || !('text' in req) || typeof req.text !== 'string') return JSON.stringify(req ?? {});
    const { text, ...fields } = req;
    if (this.encoded?.text !== text) this.encoded = { text, bytes: this.enc.encode(JSON.stringify(text)) };
    const head = this.enc.encode(`${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length ? ',' : ''}"text":`);
    const out = new Uint8Array(head.length + this.encoded.bytes.length + 1);
    out.set(head, 0);
    out.set(this.encoded.bytes, head.length);
    out[out.length - 1] = 0x7d; // }
    return out;
  }

  /** Any operation of the core's table: serve routes them all. */
  async call<K extends Operation>(op: K, req: Operations[K]['request']): Promise<Operations[K]['response']> {
    const body = this.body(req);
    const answer = this.socket?.call(op, body);
    if (answer) {
      const a = await answer;
      if (a.status === 200) return a.body as Operations[K]['response'];
      throw errorOf(a.status, '', a.body === null || a.body === undefined ? '' : JSON.stringify(a.body));
    }
    let res: Response;
    try {
      res = await this.fetchFn(`${this.base}/api/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
        body,
      });
    } catch (e) {
      throw await toApiError(null, e);
    }
    if (!res.ok) throw await toApiError(res);
    // serve answers with the operation's response (the core's type, as the map says); an
    // operation that answers nothing has an empty body.
    return JSON.parse((await res.text()) || 'null');
  }

  /** In a browser the program is `serve`, part of the core's own command line: the same version. */
  async host(core: AboutResponse): Promise<Host> {
    return { name: 'prompt-inspector serve', version: core.version };
  }
}

/** The `Api` over `serve` at `base`, sending `token` as `Authorization: Bearer`. */
export function httpApi(base: string, token: string | null, fetchFn?: Fetch, openSocket?: OpenSocket): Api {
  return createApi(new HttpTransport(base, token, fetchFn, openSocket));
}

/** The `Api` of the page's own server: its origin, the token of its `?token=`; calls go over its WebSocket once open. */
export function httpApiFromLocation(loc: Location): Api {
  const openSocket = typeof WebSocket === 'function' ? (url: string) => new WebSocket(url) : undefined;
  return httpApi(loc.origin, new URLSearchParams(loc.search).get('token'), undefined, openSocket);
}
