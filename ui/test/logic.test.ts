import { describe, expect, it } from 'vitest';
import { pieceColor, pieceRuns, runLines, sourceKey, textLines, toolPalette } from '../src/lib/colors';
import { commonPrefixBytes, diffSegments, sideBySide } from '../src/lib/diff';
import { parseJson, stringifyJson, RawNumber, type JObject } from '../src/lib/json';
import { LiveClient } from '../src/lib/live';
import { applyPatch, applyTextEdit, textEdit } from '../src/lib/patch';
import type { Api } from '../src/api/api';
import type { LiveTree, LiveUpdate, PatchOp } from '../src/api/types';
import { byteToIndex, toCmDiagnostics } from '../src/editor/template';
import type { Piece } from '../src/api/types';

describe('piece colouring', () => {
  const pieces: Piece[] = [
    { source: 'config', index: 0, text: 'You are X.', range: [0, 10] },
    { source: 'tool', tool: 'tf_notes', text: '# 笔记', range: [11, 19] },
  ];
  it('splits a segment at byte ranges, keeping the \\n seam', () => {
    const runs = pieceRuns('You are X.\n# 笔记', pieces);
    expect(runs.map((r) => [r.text, r.piece ? sourceKey(r.piece) : null])).toEqual([
      ['You are X.', 'config:0'],
      ['\n', null],
      ['# 笔记', 'tool:tf_notes'],
    ]);
  });
  it('cuts runs into lines, a piece over several lines on each, the text kept byte for byte', () => {
    const text = 'You are X.\n# 笔记\n- a\n\n- b';
    const multi: Piece[] = [pieces[0], { source: 'tool', tool: 'tf_notes', text: '# 笔记\n- a\n\n- b', range: [11, 28] }];
    const lines = runLines(pieceRuns(text, multi));
    expect(lines.map((l) => l.map((r) => [r.text, r.piece ? sourceKey(r.piece) : null]))).toEqual([
      [
        ['You are X.', 'config:0'],
        ['\n', null],
      ],
      [['# 笔记\n', 'tool:tf_notes']],
      [['- a\n', 'tool:tf_notes']],
      [['\n', 'tool:tf_notes']],
      [['- b', 'tool:tf_notes']],
    ]);
    expect(
      lines
        .flat()
        .map((r) => r.text)
        .join(''),
    ).toBe(text);
    // A trailing newline ends the last line; it opens no empty one (as in the single block before).
    expect(runLines(pieceRuns('a\n', [])).map((l) => l.map((r) => r.text))).toEqual([['a\n']]);
    expect(runLines([])).toEqual([]);
    expect(textLines('{\n  "a": 1\n\n}')).toEqual(['{\n', '  "a": 1\n', '\n', '}']);
    expect(textLines('')).toEqual([]);
  });
  it('gives each tool its own colour, stable by call order, and configured prompts another family', () => {
    const pal = toolPalette(['a', 'b']);
    expect(pal.get('a')).not.toBe(pal.get('b'));
    expect(pieceColor({ source: 'tool', tool: 'b' }, pal)).toBe(toolPalette(['a', 'b']).get('b'));
    expect(pieceColor({ source: 'config', index: 0 }, pal)).not.toBe(pal.get('a'));
  });
});

describe('segment diff', () => {
  it('pairs changed lines side by side', () => {
    expect(sideBySide('a\nb\nc', 'a\nB\nc')).toEqual([
      { left: 'a', right: 'a', kind: 'same' },
      { left: 'b', right: 'B', kind: 'changed' },
      { left: 'c', right: 'c', kind: 'same' },
    ]);
    expect(sideBySide('', 'x')).toEqual([{ left: null, right: 'x', kind: 'add' }]);
  });
  it('compares segments by name and flags the changed ones', () => {
    const d = diffSegments(
      [
        { name: 's', text: 'x' },
        { name: 't', text: 'y' },
      ],
      [
        { name: 's', text: 'x' },
        { name: 't', text: 'z' },
        { name: 'u', text: 'new' },
      ],
    );
    expect(d.map((x) => [x.name, x.changed])).toEqual([
      ['s', false],
      ['t', true],
      ['u', true],
    ]);
  });
  it('counts a common prefix in UTF-8 bytes', () => {
    expect(commonPrefixBytes('笔记a', '笔记b')).toBe(6);
  });
});

describe('lossless JSON', () => {
  it('keeps floats, big integers and key order through an edit', () => {
    const src = '{"b": 1.0, "a": 12345678901234567890123, "c": [1e5, -0.0]}';
    const v = parseJson(src) as JObject;
    expect(v.get('b')).toEqual(new RawNumber('1.0'));
    v.set('d', 'x');
    expect(stringifyJson(v, 0)).toBe('{"b":1.0,"a":12345678901234567890123,"c":[1e5,-0.0],"d":"x"}');
  });
  it('names line and column of a syntax error', () => {
    expect(() => parseJson('{\n  "a": }')).toThrow(/2:8/);
  });
});

describe('live patches (the ops src/api/live/diff.rs writes)', () => {
  const tree = () => ({
    chat: {
      segments: [
        { name: 'a', text: 'x' },
        { name: 'b', text: 'y' },
      ],
      messages: [1, 2, 3, 4],
    },
    desk: { segments: [{ name: 'c' }] },
  });
  it('sets a field, copying only the containers on its path', () => {
    const t = tree();
    const out = applyPatch(t, [{ op: 'set', path: ['chat', 'segments', 1, 'text'], value: 'z' }]);
    expect(out.chat.segments[1].text).toBe('z');
    expect(t.chat.segments[1].text).toBe('y');
    expect(out.chat.segments[0]).toBe(t.chat.segments[0]);
    expect(out.desk).toBe(t.desk);
  });
  it('splices the middle of a list and removes keys', () => {
    const ops: PatchOp[] = [
      { op: 'splice', path: ['chat', 'messages'], start: 2, delete: 0, items: [9, 9] },
      { op: 'remove', path: ['desk', 'segments'] },
      { op: 'set', path: ['desk', 'request'], value: { model: 'm' } },
    ];
    const out = applyPatch(tree(), ops) as unknown as Record<string, Record<string, unknown>>;
    expect(out.chat.messages).toEqual([1, 2, 9, 9, 3, 4]);
    expect(out.desk).toEqual({ request: { model: 'm' } });
  });
  it('replaces the whole tree on an empty path, and refuses paths that do not exist', () => {
    expect(applyPatch(tree(), [{ op: 'set', path: [], value: 1 }])).toBe(1);
    expect(() => applyPatch(tree(), [{ op: 'set', path: ['chat', 'segments', 7, 'text'], value: 1 }])).toThrow(/out of range|no container/);
    expect(() => applyPatch(tree(), [{ op: 'splice', path: ['chat', 'messages'], start: 3, delete: 5, items: [] }])).toThrow(/bad splice/);
  });
});

describe('text edits for the live document', () => {
  const check = (a: string, b: string) => {
    const e = textEdit(a, b);
    expect(e ? applyTextEdit(a, e) : a).toBe(b);
    return e;
  };
  it('keeps the common head and tail, in UTF-16 code units', () => {
    expect(check('hello world', 'hello, world')).toEqual({ start: 5, delete: 0, insert: ',' });
    expect(check('abc', 'abc')).toBe(null);
    expect(check('笔记x', '笔记yx')).toEqual({ start: 2, delete: 0, insert: 'y' });
  });
  it('starts from a shared head the caller knows, with the same result', () => {
    const a = `${'x'.repeat(9000)}abc${'y'.repeat(10)}`;
    const b = `${'x'.repeat(9000)}aXbc${'y'.repeat(10)}`;
    expect(textEdit(a, b, 8000)).toEqual(textEdit(a, b));
    expect(textEdit(a, b, 9001)).toEqual({ start: 9001, delete: 0, insert: 'X' });
  });
  it('never splits a surrogate pair', () => {
    const e = check('a😀b', 'a😁b')!;
    expect(e.start).toBe(1);
    expect(e.insert).toBe('😁');
  });
  it('finds a one-character edit in a megabyte text, across block boundaries', () => {
    const big = 'x'.repeat(500000) + '中'.repeat(300000);
    for (const at of [0, 4095, 4096, 500000, 799999]) {
      const b = `${big.slice(0, at)}Q${big.slice(at)}`;
      expect(check(big, b)).toEqual({ start: at, delete: 0, insert: 'Q' });
    }
  });
});

/**
 * A core double: the document's tree is `{chat: {text}}` of the text it holds; it answers in the
 * order asked. With `slowPricing`, an edit that may defer its costs leaves them pending, as the
 * core does when pricing the document takes long.
 */
function liveCore(delays: number[] = [], slowPricing = false) {
  const calls: string[] = [];
  const docs = new Map<number, { text: string; revision: number }>();
  let next = 0;
  const update = (doc: number, text: string, revision: number, first: boolean): LiveUpdate => ({
    doc,
    revision,
    load_error: text.includes('BAD') ? { code: 'load_error', message: 'bad', line: 1, column: 1 } : null,
    core_ms: 1,
    costs_pending: false,
    patch: text.includes('BAD')
      ? []
      : first
        ? [{ op: 'set', path: [], value: { chat: { text }, desk: {}, validate: {} } }]
        : [{ op: 'set', path: ['chat', 'text'], value: text }],
  });
  const wait = () => new Promise((r) => setTimeout(r, delays.shift() ?? 0));
  const api = {
    liveOpen: async (text: string) => {
      calls.push(`open ${text}`);
      await wait();
      next++;
      docs.set(next, { text, revision: 1 });
      return update(next, text, 1, true);
    },
    liveEdit: async (
      doc: number,
      revision: number,
      edit: { start: number; delete: number; insert: string } | null,
      options: unknown,
      deferCosts?: boolean,
    ) => {
      calls.push(`edit ${edit ? JSON.stringify(edit) : '-'}${options ? ' options' : ''}${deferCosts ? ' defer' : ''}`);
      await wait();
      const d = docs.get(doc);
      if (!d || d.revision !== revision) throw { code: 'stale_document', message: 'gone' };
      if (edit) d.text = applyTextEdit(d.text, edit);
      d.revision++;
      return { ...update(doc, d.text, d.revision, false), costs_pending: slowPricing && !!deferCosts };
    },
    liveClose: async (doc: number) => {
      docs.delete(doc);
    },
  } as unknown as Api;
  return { api, calls, docs };
}

describe('live client: edits go out at once, later ones together, in order', () => {
  const opts = { base_dir: null, provider: null, tokenizer: null, tokens: false, models: [] };
  it('opens, then sends splices; edits made while one is in flight go out as one', async () => {
    const core = liveCore([5, 20]);
    const got: string[] = [];
    const c = new LiveClient(
      core.api,
      (r) => got.push((r.tree as unknown as { chat: { text: string } }).chat.text),
      () => {},
    );
    c.push('abc', opts);
    await c.idle();
    c.push('abcd', opts);
    c.push('abcde', opts);
    c.push('abcdef', opts);
    await c.idle();
    expect(core.calls).toEqual([
      'open abc',
      'edit {"start":3,"delete":0,"insert":"d"} defer',
      'edit {"start":4,"delete":0,"insert":"ef"} defer',
    ]);
    expect(got).toEqual(['abc', 'abcd', 'abcdef']);
  });
  it('a text that does not load reports its error and keeps the last tree; the next good one patches it', async () => {
    const core = liveCore();
    const got: string[] = [];
    const errs: string[] = [];
    const c = new LiveClient(
      core.api,
      (r) => got.push((r.tree as unknown as { chat: { text: string } }).chat.text),
      (e) => errs.push(e.code),
    );
    c.push('ok', opts);
    await c.idle();
    c.push('ok BAD', opts);
    await c.idle();
    c.push('ok again', opts);
    await c.idle();
    expect(errs).toEqual(['load_error']);
    expect(got).toEqual(['ok', 'ok again']);
  });
  it('drops an answer about the document before a reset (a file opened meanwhile)', async () => {
    const core = liveCore([30, 0]);
    const got: string[] = [];
    const c = new LiveClient(
      core.api,
      (r) => got.push((r.tree as unknown as { chat: { text: string } }).chat.text),
      () => {},
    );
    c.push('old file', opts);
    await new Promise((r) => setTimeout(r, 5));
    c.reset();
    c.push('new file', opts);
    await c.idle();
    expect(got).toEqual(['new file']);
    expect(core.calls).toEqual(['open old file', 'open new file']);
  });
  it('reopens with the whole text when the core lost the document', async () => {
    const core = liveCore();
    const got: string[] = [];
    const c = new LiveClient(
      core.api,
      (r) => got.push((r.tree as unknown as LiveTree & { chat: { text: string } }).chat.text),
      () => {},
    );
    c.push('one', opts);
    await c.idle();
    core.docs.clear();
    c.push('one two', opts);
    await c.idle();
    expect(core.calls).toEqual(['open one', 'edit {"start":3,"delete":0,"insert":" two"} defer', 'open one two']);
    expect(got).toEqual(['one', 'one two']);
  });
});

describe('live client: pricing left for later', () => {
  const opts = { base_dir: null, provider: null, tokenizer: null, tokens: true, models: ['openai/gpt-5'] };
  it('a keystroke may defer its costs; once nothing else is typed the client asks for them', async () => {
    const core = liveCore([], true);
    const got: string[] = [];
    const c = new LiveClient(
      core.api,
      (r) =>
        got.push(
          `${(r.tree as unknown as { chat: { text: string } }).chat.text}${r.costsPending ? ' pending' : ''}${r.settle ? ' settle' : ''}`,
        ),
      () => {},
    );
    c.push('ab', opts);
    await c.idle();
    c.push('abc', opts);
    await c.idle();
    // A change of options is priced at once: no deferral, no settle.
    c.push('abc', { ...opts, models: ['openai/gpt-4.1'] });
    await c.idle();
    expect(core.calls).toEqual(['open ab', 'edit {"start":2,"delete":0,"insert":"c"} defer', 'edit -', 'edit - options']);
    expect(got).toEqual(['ab', 'abc pending', 'abc settle', 'abc']);
  });
  it('asks for the costs once the answer is on screen: a keystroke before that frame goes first', async () => {
    const core = liveCore([], true);
    let answered = () => {};
    const firstAnswer = new Promise<void>((r) => {
      answered = r;
    });
    const c = new LiveClient(
      core.api,
      (r) => {
        if (r.costsPending) answered();
      },
      () => {},
    );
    c.push('a', opts);
    await c.idle();
    c.push('ab', opts);
    await firstAnswer;
    c.push('abc', opts);
    await c.idle();
    expect(core.calls).toEqual([
      'open a',
      'edit {"start":1,"delete":0,"insert":"b"} defer',
      'edit {"start":2,"delete":0,"insert":"c"} defer',
      'edit -',
    ]);
  });
  it('keystrokes typed before the settle go out first; the settle follows the last one', async () => {
    const core = liveCore([0, 20, 0, 0], true);
    const calls: string[] = [];
    const c = new LiveClient(
      core.api,
      () => {},
      () => {},
    );
    c.push('a', opts);
    await c.idle();
    c.push('ab', opts);
    await new Promise((r) => setTimeout(r, 5));
    c.push('abc', opts);
    await c.idle();
    calls.push(...core.calls);
    expect(calls).toEqual([
      'open a',
      'edit {"start":1,"delete":0,"insert":"b"} defer',
      'edit {"start":2,"delete":0,"insert":"c"} defer',
      'edit -',
    ]);
  });
});

describe('template lint', () => {
  it('maps a byte range of validate to the editor string', () => {
    const text = '笔记 {x';
    expect(byteToIndex(text, 7)).toBe(3);
    expect(toCmDiagnostics(text, [{ kind: 'ValueError', message: 'expected }', range: [7, 9] }])).toEqual([
      { from: 3, to: 5, severity: 'error', message: 'ValueError: expected }', source: 'validate' },
    ]);
  });
});
