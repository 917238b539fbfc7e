// Applying the core's live patches (src/api/live/diff.rs) and computing the text edits it takes.
import type { PatchOp, PathStep, TextEdit } from '../api/types';
import type { TextOrigin } from './live';

type Container = Record<string, unknown> | unknown[];

/**
 * Applies ops to a tree without changing it: the containers on the ops' paths are copied (once
 * per call), everything else is shared, so a component whose props did not change keeps the same
 * object and can skip re-rendering. Throws when a path does not exist (the trees disagree).
 */
export function applyPatch<T>(tree: T, ops: PatchOp[]): T {
  const fresh = new WeakSet<object>();
  const own = (c: Container): Container => {
    if (fresh.has(c)) return c;
    const copy: Container = Array.isArray(c) ? c.slice() : { ...c };
    fresh.add(copy);
    return copy;
  };
  let root: unknown = tree;
  for (const op of ops) {
    if (op.op === 'set' && op.path.length === 0) {
      root = op.value;
      continue;
    }
    if (root === null || typeof root !== 'object') throw new Error(`patch: no tree to apply ${op.op} to`);
    root = own(root as Container);
    // Walk to the parent of the last step (or to the array, for a splice), copying on the way.
    const steps = op.op === 'splice' ? op.path : op.path.slice(0, -1);
    let node = root as Container;
    for (const step of steps) {
      const child = get(node, step);
      if (child === null || typeof child !== 'object') throw new Error(`patch: no container at ${JSON.stringify(op.path)}`);
      const copy = own(child as Container);
      put(node, step, copy);
      node = copy;
    }
    if (op.op === 'splice') {
      if (!Array.isArray(node) || op.start + op.delete > node.length) throw new Error(`patch: bad splice at ${JSON.stringify(op.path)}`);
      node.splice(op.start, op.delete, ...op.items);
    } else if (op.op === 'set') {
      put(node, op.path[op.path.length - 1], op.value);
    } else {
      const key = op.path[op.path.length - 1];
      if (Array.isArray(node) || typeof key !== 'string' || !(key in node)) throw new Error(`patch: no key at ${JSON.stringify(op.path)}`);
      delete (node as Record<string, unknown>)[key];
    }
  }
  return root as T;
}

function get(node: Container, step: PathStep): unknown {
  return Array.isArray(node) ? node[step as number] : (node as Record<string, unknown>)[step as string];
}

function put(node: Container, step: PathStep, value: unknown) {
  if (Array.isArray(node)) {
    if (typeof step !== 'number' || step >= node.length) throw new Error(`patch: index ${String(step)} out of range`);
    node[step] = value;
  } else (node as Record<string, unknown>)[step as string] = value;
}

const BLOCK = 4096;

/**
 * The splice that turns `a` into `b` (common head and tail kept), in UTF-16 code units. Large
 * texts are compared a block at a time (substring equality is a memory compare), so an edit in
 * a 1 MB scene costs about a millisecond. The split never falls inside a surrogate pair.
 */
export function textEdit(a: string, b: string, from = 0): TextEdit | null {
  if (a === b) return null;
  const max = Math.min(a.length, b.length);
  // `from`: a length the caller knows the two texts share (the scene writer's untouched head).
  let head = Math.min(from, max);
  while (head + BLOCK <= max && a.substr(head, BLOCK) === b.substr(head, BLOCK)) head += BLOCK;
  while (head < max && a.charCodeAt(head) === b.charCodeAt(head)) head++;
  if (head > 0 && isHigh(a.charCodeAt(head - 1))) head--;
  const room = max - head;
  // A keystroke inserts or deletes: what follows it is the whole rest of both texts, which one
  // native comparison finds (the blocks below would walk a megabyte scene in JavaScript).
  let tail = room > 0 && a.slice(a.length - room) === b.slice(b.length - room) ? room : 0;
  while (tail + BLOCK <= room && a.substr(a.length - tail - BLOCK, BLOCK) === b.substr(b.length - tail - BLOCK, BLOCK)) tail += BLOCK;
  while (tail < room && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  if (tail > 0 && isLow(a.charCodeAt(a.length - tail))) tail--;
  return { start: head, delete: a.length - head - tail, insert: b.slice(head, b.length - tail) };
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * The splice between two texts the scene writer wrote from one loaded text, read from what it
 * says of them (`TextOrigin`) rather than from the texts: a text it writes is left in pieces, and
 * reading a megabyte scene whole copies it. The result is `textEdit` of the two texts.
 */
export function originEdit(a: TextOrigin, b: TextOrigin): TextEdit | null {
  const base = b.text;
  const from = Math.min(a.stable, b.stable);
  const fromEnd = Math.min(a.stableTail, b.stableTail);
  // Each text from `from` to `fromEnd` before its end: what the loaded text has there, its middle.
  const region = (o: TextOrigin) => base.slice(from, o.stable) + o.middle + base.slice(base.length - o.stableTail, base.length - fromEnd);
  const e = textEdit(region(a), region(b));
  return e && { ...e, start: e.start + from };
}

/** `a` with the edit applied (what the core does with it). */
export function applyTextEdit(a: string, e: TextEdit): string {
  return a.slice(0, e.start) + e.insert + a.slice(e.start + e.delete);
}
