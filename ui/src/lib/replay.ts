// The Replay view's logic: which scenes show, in which order and groups, which one is selected,
// and what "approve all" asks. Kept out of the view so it can be tested without a page.
import type { CheckResponse, CheckScene } from '../api/types';
import type { Session } from './session';
import { dirOf, relativeTo } from './paths';

/** A scene that fails its check: its golden differs, is missing, or the scene does not load. */
export const isFailure = (s: CheckScene) => s.status !== 'ok';

/** A failure approve can fix: the scene loads, so its golden can be written from it. */
export const isApprovable = (s: CheckScene) => s.status === 'mismatch' || s.status === 'missing_golden';

/** Failures first (mismatch, missing golden, unreadable), then the scenes that match, each in path order. */
export function sortScenes(scenes: CheckScene[]): CheckScene[] {
  return [...scenes].sort((a, b) => Number(a.status === 'ok') - Number(b.status === 'ok'));
}

/** A folder of the list and its scenes; `folder` is relative to the checked folder, '' for itself. */
export interface SceneGroup {
  folder: string;
  scenes: CheckScene[];
}

/**
 * The rows the list shows: only failures when `failuresOnly`; grouped by the folder each scene is
 * in (relative to `root`, the checked folder) when `grouped`, else one group with every row.
 * Within a group, failures first. Groups come in path order, the checked folder's own first.
 */
export function sceneGroups(scenes: CheckScene[], root: string | null, opts: { failuresOnly: boolean; grouped: boolean }): SceneGroup[] {
  const shown = scenes.filter((s) => !opts.failuresOnly || isFailure(s));
  if (!opts.grouped) return shown.length ? [{ folder: '', scenes: sortScenes(shown) }] : [];
  const by = new Map<string, CheckScene[]>();
  for (const s of shown) {
    const dir = dirOf(s.path) ?? '';
    const rel = root && dir === root.replace(/[\\/]+$/, '') ? '' : relativeTo(dir, root);
    const list = by.get(rel);
    if (list) list.push(s);
    else by.set(rel, [s]);
  }
  return [...by.keys()]
    .sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0))
    .map((folder) => ({ folder, scenes: sortScenes(by.get(folder)!) }));
}

/** The rows in the order the list shows them. */
export const shownOrder = (groups: SceneGroup[]) => groups.flatMap((g) => g.scenes);

/**
 * Which scene to select after a check: the one selected before while it is still listed, else
 * the first failure in the list's order, else none.
 */
export function pickSelection(order: CheckScene[], previous: string | null): string | null {
  if (previous && order.some((s) => s.path === previous)) return previous;
  return order.find(isFailure)?.path ?? null;
}

/** What "approve all" asks before writing, naming how many goldens it writes. */
export function approveAllQuestion(scenes: CheckScene[]): string {
  const n = scenes.filter(isApprovable).length;
  return `Approve ${n} golden${n === 1 ? '' : 's'}? Each is written from its scene as it is now.`;
}

/** What the Replay view keeps while other views are shown: the folder typed, the last answer, the choices. */
export interface ReplayMemo {
  folder: string;
  /** Whether the person typed or picked the folder (else it follows the open scene's folder). */
  typed: boolean;
  res: CheckResponse | null;
  checked: string | null;
  sel: string | null;
  failuresOnly: boolean;
  grouped: boolean;
}

const memos = new WeakMap<Session, ReplayMemo>();

/** The Replay view's state for `session`: it outlives the view, so switching tabs loses nothing. */
export function replayMemo(session: Session): ReplayMemo {
  let m = memos.get(session);
  if (!m) {
    m = { folder: session.baseDir ?? '', typed: false, res: null, checked: null, sel: null, failuresOnly: false, grouped: false };
    memos.set(session, m);
  }
  return m;
}
