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
