import { describe, expect, it } from 'vitest';
import { pieceColor, pieceRuns, sourceKey, toolPalette } from '../src/lib/colors';
import { commonPrefixBytes, diffSegments, sideBySide } from '../src/lib/diff';
import { parseJson, stringifyJson, RawNumber, JObject } from '../src/lib/json';
import { LatestOnly } from '../src/lib/live';
import { byteToIndex, toCmDiagnostics } from '../src/editor/template';
import { markInjected } from '../src/views/Run';
import type { Piece } from '../src/api/types';

describe('piece colouring', () => {
  const pieces: Piece[] = [
    { source: 'config', index: 0, text: 'You are X.', range: [0, 10] },
    { source: 'tool', tool: 'tf_notes', text: '# 笔记', range: [11, 19] },
  ];
  it('splits a segment at byte ranges, keeping the \\n seam', () => {
    const runs = pieceRuns('You are X.\n# 笔记', pieces);
    expect(runs.map((r) => [r.text, r.piece ? sourceKey(r.piece) : null])).toEqual([['You are X.', 'config:0'], ['\n', null], ['# 笔记', 'tool:tf_notes']]);
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
      { left: 'a', right: 'a', kind: 'same' }, { left: 'b', right: 'B', kind: 'changed' }, { left: 'c', right: 'c', kind: 'same' },
    ]);
    expect(sideBySide('', 'x')).toEqual([{ left: null, right: 'x', kind: 'add' }]);
  });
  it('compares segments by name and flags the changed ones', () => {
    const d = diffSegments([{ name: 's', text: 'x' }, { name: 't', text: 'y' }], [{ name: 's', text: 'x' }, { name: 't', text: 'z' }, { name: 'u', text: 'new' }]);
    expect(d.map((x) => [x.name, x.changed])).toEqual([['s', false], ['t', true], ['u', true]]);
  });
  it('counts a common prefix in UTF-8 bytes', () => { expect(commonPrefixBytes('笔记a', '笔记b')).toBe(6); });
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

describe('live rendering: one request per frame, stale answers dropped', () => {
  it('coalesces pushes within a frame', async () => {
    const frames: (() => void)[] = [];
    const seen: string[] = [];
    const got: string[] = [];
    const l = new LatestOnly<string, string>(async (x) => { seen.push(x); return x.toUpperCase(); }, (o) => got.push(o), () => {}, (cb) => frames.push(cb));
    l.push('a'); l.push('ab'); l.push('abc');
    expect(frames.length).toBe(1);
    frames[0]();
    await Promise.resolve(); await Promise.resolve();
    expect(seen).toEqual(['abc']);
    expect(got).toEqual(['ABC']);
  });
  it('drops a slow answer that arrives after a newer one', async () => {
    const resolvers: Record<string, (v: string) => void> = {};
    const got: string[] = [];
    const l = new LatestOnly<string, string>((x) => new Promise((r) => { resolvers[x] = r; }), (o) => got.push(o), () => {}, (cb) => cb());
    const p1 = l.fire('old');
    const p2 = l.fire('new');
    resolvers.new('NEW'); await p2;
    resolvers.old('OLD'); await p1;
    expect(got).toEqual(['NEW']);
  });
  it('drops a stale error too', async () => {
    const errs: unknown[] = [];
    let rejectOld: (e: unknown) => void = () => {};
    const l = new LatestOnly<string, string>((x) => (x === 'old' ? new Promise((_, rej) => { rejectOld = rej; }) : Promise.resolve('ok')), () => {}, (e) => errs.push(e), (cb) => cb());
    const p1 = l.fire('old');
    await l.fire('new');
    rejectOld(new Error('late')); await p1;
    expect(errs).toEqual([]);
  });
});

describe('template lint and run marks', () => {
  it('maps a byte range of validate to the editor string', () => {
    const text = '笔记 {x';
    expect(byteToIndex(text, 7)).toBe(3);
    expect(toCmDiagnostics(text, [{ kind: 'ValueError', message: 'expected }', range: [7, 9] }])).toEqual([{ from: 3, to: 5, severity: 'error', message: 'ValueError: expected }', source: 'validate' }]);
  });
  it('highlights injected blocks in a request message', () => {
    expect(markInjected('ls\n<r>x</r>', ['<r>x</r>'])).toEqual([{ text: 'ls\n', injected: false }, { text: '<r>x</r>', injected: true }]);
  });
});
