import { describe, expect, it } from 'vitest';
import { httpApi, toApiError } from '../src/api/http';
import { errorText } from '../src/api/api';

function res(status: number, body: string) {
  return new Response(body, { status, statusText: 'X' });
}

describe('transport error mapping', () => {
  it('keeps code, message and the position fields of an ApiError body', async () => {
    const e = await toApiError(
      res(
        400,
        JSON.stringify({
          code: 'load_error',
          message: 'unknown field "nam"',
          file: '/x/a.scene.json',
          line: 3,
          column: 5,
          field: 'tools[0].nam',
        }),
      ),
    );
    expect(e).toEqual({
      code: 'load_error',
      message: 'unknown field "nam"',
      file: '/x/a.scene.json',
      line: 3,
      column: 5,
      field: 'tools[0].nam',
    });
    expect(errorText(e)).toBe('/x/a.scene.json:3:5: tools[0].nam: unknown field "nam"');
  });
  it('keeps kind and range of a template error', async () => {
    const e = await toApiError(
      res(400, JSON.stringify({ code: 'template_error', message: "Single '}'", kind: 'ValueError', range: [7, 8], line: 1, column: 8 })),
    );
    expect(e.kind).toBe('ValueError');
    expect(e.range).toEqual([7, 8]);
  });
  it('maps a bare status without a JSON body', async () => {
    expect(await toApiError(res(401, ''))).toMatchObject({ code: 'unauthorized' });
    expect(await toApiError(res(502, 'Bad Gateway'))).toEqual({ code: 'http_502', message: 'Bad Gateway' });
  });
  it('maps a network failure', async () => {
    expect(await toApiError(null, new TypeError('Failed to fetch'))).toMatchObject({ code: 'network' });
  });
  it('sends the bearer token and the request fields of docs/api.md', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const api = httpApi('http://127.0.0.1:9', 'tok', async (url, init) => {
      calls.push({ url, init: init! });
      return res(200, JSON.stringify({ report: { llm: 'chat', segments: [], tools: [], diagnostics: [], metrics: {} } }));
    });
    const r = await api.render('{}', { llm: 'chat', tokens: true, baseDir: '/x' });
    expect(r.llm).toBe('chat');
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/render');
    expect((calls[0].init.headers as Record<string, string>).authorization).toBe('Bearer tok');
    expect(JSON.parse(new TextDecoder().decode(calls[0].init.body as Uint8Array))).toMatchObject({
      text: '{}',
      llm: 'chat',
      tokens: true,
      base_dir: '/x',
    });
  });
  it('splices the scene text into every body as valid JSON', async () => {
    const bodies: unknown[] = [];
    const api = httpApi('', null, async (_u, init) => {
      const body = init!.body;
      bodies.push(JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array)));
      return res(200, '{"doc":1,"revision":1,"load_error":null,"patch":[],"core_ms":0}');
    });
    const text = '{"a": "笔记 \\"q\\" \\n"}';
    await api.liveOpen(text, { base_dir: null, provider: null, tokenizer: null, tokens: true, models: [] });
    await api.save('/x/a.json', text);
    await api.liveEdit(1, 1, null, null);
    await api.rules();
    expect(bodies).toEqual([
      { options: { base_dir: null, provider: null, tokenizer: null, tokens: true, models: [] }, text },
      { path: '/x/a.json', text, recording: false },
      { doc: 1, revision: 1, edit: null, options: null, defer_costs: false },
      {},
    ]);
  });
  it('rejects with the ApiError of a failing call', async () => {
    const api = httpApi('', null, async () => res(400, JSON.stringify({ code: 'no_run', message: 'no run' })));
    await expect(api.run('{}')).rejects.toEqual({ code: 'no_run', message: 'no run' });
  });
});
