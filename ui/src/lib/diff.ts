// Line diff (LCS) for the side-by-side segment view of Replay.
export type DiffOp = { kind: 'same' | 'del' | 'add'; left?: string; right?: string };
export type Row = { left: string | null; right: string | null; kind: 'same' | 'changed' | 'del' | 'add' };

export function diffLines(a: string, b: string): DiffOp[] {
  const A = a === '' ? [] : a.split('\n');
  const B = b === '' ? [] : b.split('\n');
  const n = A.length,
    m = B.length;
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) L[i][j] = A[i] === B[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const ops: DiffOp[] = [];
  let i = 0,
    j = 0;
  while (i < n && j < m) {
    if (A[i] === B[j]) {
      ops.push({ kind: 'same', left: A[i], right: B[j] });
      i++;
      j++;
    } else if (L[i + 1][j] >= L[i][j + 1]) ops.push({ kind: 'del', left: A[i++] });
    else ops.push({ kind: 'add', right: B[j++] });
  }
  while (i < n) ops.push({ kind: 'del', left: A[i++] });
  while (j < m) ops.push({ kind: 'add', right: B[j++] });
  return ops;
}

/** Pair deletions with following additions as 'changed' rows for a side-by-side table. */
export function sideBySide(a: string, b: string): Row[] {
  const ops = diffLines(a, b);
  const rows: Row[] = [];
  for (let k = 0; k < ops.length; ) {
    if (ops[k].kind === 'same') {
      rows.push({ left: ops[k].left!, right: ops[k].right!, kind: 'same' });
      k++;
      continue;
    }
    const dels: string[] = [],
      adds: string[] = [];
    while (k < ops.length && ops[k].kind === 'del') dels.push(ops[k++].left!);
    while (k < ops.length && ops[k].kind === 'add') adds.push(ops[k++].right!);
    for (let t = 0; t < Math.max(dels.length, adds.length); t++) {
      const l = dels[t] ?? null,
        r = adds[t] ?? null;
      rows.push({ left: l, right: r, kind: l !== null && r !== null ? 'changed' : l !== null ? 'del' : 'add' });
    }
  }
  return rows;
}

export interface SegmentLike {
  name: string;
  text: string;
  bytes?: number;
}
export interface SegmentDiff {
  name: string;
  changed: boolean;
  rows: Row[];
}

/** Compare two families' segment lists by name (golden → current). */
export function diffSegments(golden: SegmentLike[], current: SegmentLike[]): SegmentDiff[] {
  const names = [...golden.map((s) => s.name)];
  for (const s of current) if (!names.includes(s.name)) names.push(s.name);
  return names.map((name) => {
    const g = golden.find((s) => s.name === name)?.text ?? '';
    const c = current.find((s) => s.name === name)?.text ?? '';
    return { name, changed: g !== c, rows: sideBySide(g, c) };
  });
}

/** Length in bytes of the common prefix of two strings (UTF-8). */
export function commonPrefixBytes(a: string, b: string): number {
  const A = new TextEncoder().encode(a),
    B = new TextEncoder().encode(b);
  let k = 0;
  while (k < A.length && k < B.length && A[k] === B[k]) k++;
  return k;
}

/** A run of a line in an intra-line diff: text the other side also has, or text only this side has. */
export type Span = { text: string; changed: boolean };

// Words, runs of spaces and single signs: a change inside a word marks the word, not one letter
// of it, and CJK text (no spaces) is compared a character at a time.
const TOKEN = /[\p{L}\p{N}_]+|\s+|./gsu;
function tokens(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(TOKEN)) {
    const t = m[0];
    // A run of ideographs is no word: split it into characters.
    if (/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u.test(t)) out.push(...t);
    else out.push(t);
  }
  return out;
}

function pushSpan(spans: Span[], text: string, changed: boolean) {
  if (!text) return;
  const last = spans[spans.length - 1];
  if (last && last.changed === changed) last.text += text;
  else spans.push({ text, changed });
}

/** Above this many token pairs the middle of a changed line is marked whole (the LCS is quadratic). */
const MAX_PAIRS = 250_000;

/**
 * What changed within a changed line: both sides as runs of unchanged and changed text. The
 * common head and tail are unchanged; the middle is compared word by word (ideographs one by one).
 * Joining either side's runs gives that side's line back.
 */
export function intraLine(a: string, b: string): { left: Span[]; right: Span[] } {
  const A = tokens(a);
  const B = tokens(b);
  let head = 0;
  while (head < A.length && head < B.length && A[head] === B[head]) head++;
  let tail = 0;
  while (tail < A.length - head && tail < B.length - head && A[A.length - 1 - tail] === B[B.length - 1 - tail]) tail++;
  const left: Span[] = [];
  const right: Span[] = [];
  const headText = A.slice(0, head).join('');
  pushSpan(left, headText, false);
  pushSpan(right, headText, false);
  const midA = A.slice(head, A.length - tail);
  const midB = B.slice(head, B.length - tail);
  if (midA.length * midB.length > MAX_PAIRS) {
    pushSpan(left, midA.join(''), true);
    pushSpan(right, midB.join(''), true);
  } else {
    const n = midA.length;
    const m = midB.length;
    const L: number[][] = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--) L[i][j] = midA[i] === midB[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (midA[i] === midB[j]) {
        pushSpan(left, midA[i++], false);
        pushSpan(right, midB[j++], false);
      } else if (L[i + 1][j] >= L[i][j + 1]) pushSpan(left, midA[i++], true);
      else pushSpan(right, midB[j++], true);
    }
    while (i < n) pushSpan(left, midA[i++], true);
    while (j < m) pushSpan(right, midB[j++], true);
  }
  const tailText = A.slice(A.length - tail).join('');
  pushSpan(left, tailText, false);
  pushSpan(right, tailText, false);
  return { left, right };
}

/** What a line of a unified diff is, for its colour: the file header, a hunk header, added, removed or context. */
export type UdiffKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx';

/**
 * The kind of every line of `check`'s diff text. Its summary of the segments that differ comes
 * before the file headers, its removed and added lines indented under each segment's name
 * (`    - old`, `    + new`); from the first `--- ` on it is a unified diff.
 */
export function udiffKinds(lines: string[]): UdiffKind[] {
  let summary = true;
  return lines.map((l) => {
    if (summary && l.startsWith('--- ')) summary = false;
    if (summary) {
      const t = l.trimStart();
      if (t !== l && t.startsWith('- ')) return 'del';
      if (t !== l && t.startsWith('+ ')) return 'add';
      return 'ctx';
    }
    return udiffKind(l);
  });
}

export function udiffKind(line: string): UdiffKind {
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'ctx';
}
