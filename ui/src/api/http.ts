// HTTP transport: `prompt-inspector serve` (docs/api.md, "HTTP"). The token comes from the page
// URL (`?token=`) and is sent as `Authorization: Bearer`. Every failure becomes an ApiError.
import type { About, Api, RenderOptions } from './api';
import type {
  AboutResponse,
  ApiError,
  CheckResponse,
  FileStat,
  LiveOptions,
  LiveUpdate,
  ModelsResponse,
  Report,
  Rules,
  RunReport,
  SceneText,
  TextEdit,
  ValidateResponse,
} from './types';

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** Map any failure (an ApiError body, a bare status, a network failure) to {code, message, ...position}. */
export async function toApiError(res: Response | null, cause?: unknown): Promise<ApiError> {
  if (!res) {
    return { code: 'network', message: `cannot reach prompt-inspector serve: ${cause instanceof Error ? cause.message : String(cause)}` };
  }
  const text = await res.text().catch(() => '');
  let b: Record<string, unknown> | null = null;
  try {
    const j = text ? JSON.parse(text) : null;
    if (j && typeof j === 'object') b = j as Record<string, unknown>;
  } catch {
    b = null;
  }
  if (b && typeof b.message === 'string') {
    const e: ApiError = { code: typeof b.code === 'string' ? (b.code as ApiError['code']) : `http_${res.status}`, message: b.message };
    for (const k of ['kind', 'file', 'field'] as const) if (typeof b[k] === 'string') e[k] = b[k] as string;
    for (const k of ['line', 'column'] as const) if (typeof b[k] === 'number') e[k] = b[k] as number;
    if (Array.isArray(b.range) && b.range.length === 2) e.range = [Number(b.range[0]), Number(b.range[1])];
    return e;
  }
  const code: ApiError['code'] =
    res.status === 401
      ? 'unauthorized'
      : res.status === 403
        ? 'forbidden_host'
        : res.status === 404
          ? 'not_found'
          : res.status === 413
            ? 'too_large'
            : `http_${res.status}`;
  return { code, message: text.trim() || `${res.status} ${res.statusText}`.trim() };
}

export class HttpApi implements Api {
  constructor(
    private base: string,
    private token: string | null,
    private fetchFn: Fetch = (i, init) => fetch(i, init),
  ) {}

  static fromLocation(loc: Location): HttpApi {
    return new HttpApi(loc.origin, new URLSearchParams(loc.search).get('token'));
  }

  // Scene texts go out several times per edit (chat, desk, validate) and can be megabytes: the
  // JSON-encoded UTF-8 bytes of the last text are kept and spliced into each body.
  private encoded: { text: string; bytes: Uint8Array } | null = null;
  private enc = new TextEncoder();

  /** The request body: `fields` as JSON with `"text": <text>` added, as UTF-8 bytes. */
  body(fields: Record<string, unknown>, text?: string): Uint8Array | string {
    if (text === undefined) return JSON.stringify(fields);
    if (this.encoded?.text !== text) this.encoded = { text, bytes: this.enc.encode(JSON.stringify(text)) };
    const head = this.enc.encode(`${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length ? ',' : ''}"text":`);
    const out = new Uint8Array(head.length + this.encoded.bytes.length + 1);
    out.set(head, 0);
    out.set(this.encoded.bytes, head.length);
    out[out.length - 1] = 0x7d; // }
    return out;
  }

  async call<T>(op: string, fields: Record<string, unknown> = {}, scene?: string): Promise<T> {
    let res: Response;
    try {
      res = await this.fetchFn(`${this.base}/api/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
        body: this.body(fields, scene) as BodyInit,
      });
    } catch (e) {
      throw await toApiError(null, e);
    }
    if (!res.ok) throw await toApiError(res);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  defaultScene() {
    return this.call<SceneText>('default_scene');
  }
  open(path: string) {
    return this.call<SceneText>('open', { path });
  }
  save(path: string, text: string) {
    return this.call<FileStat>('save', { path }, text);
  }
  stat(path: string) {
    return this.call<FileStat>('stat', { path });
  }
  async render(text: string, o: RenderOptions) {
    const r = await this.call<{ report: Report }>(
      'render',
      {
        llm: o.llm,
        base_dir: o.baseDir ?? null,
        provider: o.provider ?? null,
        tokenizer: o.tokenizer ?? null,
        tokens: !!o.tokens,
        models: o.models ?? [],
      },
      text,
    );
    return r.report;
  }
  validate(text: string) {
    return this.call<ValidateResponse>('validate', {}, text);
  }
  rules() {
    return this.call<Rules>('rules');
  }
  models() {
    return this.call<ModelsResponse>('models');
  }
  /** In a browser the program is `serve`, part of the core's own command line: the same version. */
  async about(): Promise<About> {
    const core = await this.call<AboutResponse>('about');
    return { host: { name: 'prompt-inspector serve', version: core.version }, core };
  }
  async run(text: string, baseDir?: string | null, models?: string[]) {
    return (await this.call<{ report: RunReport }>('run', { base_dir: baseDir ?? null, models: models ?? [] }, text)).report;
  }
  check(folder: string) {
    return this.call<CheckResponse>('check', { folder });
  }
  approve(scenePath: string) {
    return this.call<{ golden_path: string }>('approve', { scene_path: scenePath });
  }
  liveOpen(text: string, options: LiveOptions) {
    return this.call<LiveUpdate>('live_open', { options }, text);
  }
  liveEdit(doc: number, revision: number, edit: TextEdit | null, options: LiveOptions | null) {
    return this.call<LiveUpdate>('live_edit', { doc, revision, edit, options });
  }
  async liveClose(doc: number) {
    await this.call<null>('live_close', { doc });
  }
}
