import { useEffect, useState } from 'preact/hooks';
import { dialogs } from '../api';
import { errorText } from '../api/api';
import type { CheckScene } from '../api/types';
import { diffSegments, intraLine, type Row, type SegmentLike, type Span, udiffKinds } from '../lib/diff';
import { shortPath, typedPath } from '../lib/paths';
import { approveAllQuestion, isApprovable, pickSelection, type ReplayMemo, replayMemo, sceneGroups, shownOrder } from '../lib/replay';
import type { Session } from '../lib/session';

function segs(g: unknown, family: 'chat' | 'desk'): SegmentLike[] {
  const f = (g as Record<string, { segments?: SegmentLike[] }> | null)?.[family];
  return f?.segments ?? [];
}

/** What happened to a row of the side-by-side diff, as a sign and in words: the row's colour is
 *  never the only sign of a change. */
export const DIFF_ROW: Record<Row['kind'], { sign: string; words: string }> = {
  same: { sign: '', words: 'unchanged' },
  changed: { sign: '~', words: 'changed' },
  del: { sign: '−', words: 'only in the golden' },
  add: { sign: '+', words: 'only now' },
};

export function DiffSign({ kind }: { kind: Row['kind'] }) {
  const { sign, words } = DIFF_ROW[kind];
  return (
    <td class="diff-sign" title={words}>
      <span aria-hidden="true">{sign}</span>
      <span class="sr-only">{words}</span>
    </td>
  );
}

/** A changed line's runs, what changed marked (`del` on the golden's side, `add` on the current one). */
function Spans({ spans, side }: { spans: Span[]; side: 'del' | 'add' }) {
  return (
    <>
      {spans.map((x, i) =>
        x.changed ? (
          <mark key={i} class={`intra intra-${side}`}>
            <span class="sr-only">{side === 'del' ? '[was: ' : '[now: '}</span>
            {x.text}
            <span class="sr-only">]</span>
          </mark>
        ) : (
          x.text
        ),
      )}
    </>
  );
}

/** The unified diff, each line coloured by what it is (and still led by its +, - or @@). */
export function Udiff({ text }: { text: string }) {
  const lines = text.replace(/\n$/, '').split('\n');
  const kinds = udiffKinds(lines);
  return (
    <pre class="udiff" data-testid="udiff">
      {lines.map((l, i) => (
        <span key={i} class={`ud ud-${kinds[i]}`}>
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function SceneDiff({ sc }: { sc: CheckScene }) {
  if (sc.status === 'unreadable') return <div class="error-box">{sc.error ? errorText(sc.error) : 'unreadable'}</div>;
  return (
    <div class="scene-diff">
      {(['chat', 'desk'] as const).map((fam) => {
        const d = diffSegments(segs(sc.golden, fam), segs(sc.current, fam));
        const changed = d.filter((x) => x.changed);
        return (
          <section key={fam}>
            <h3>
              {fam} <span class="muted">{changed.length ? `${changed.length} segment(s) differ` : 'segments identical'}</span>
            </h3>
            {changed.map((x) => (
              <table class="side" key={x.name}>
                <caption>
                  <code>{x.name}</code>
                </caption>
                <thead>
                  <tr>
                    <th class="diff-sign">
                      <span class="sr-only">change</span>
                    </th>
                    <th>golden</th>
                    <th>now</th>
                  </tr>
                </thead>
                <tbody>
                  {x.rows.map((r, i) => {
                    // A changed line marks what changed within it; an added or removed one is all new.
                    const within = r.kind === 'changed' ? intraLine(r.left ?? '', r.right ?? '') : null;
                    return (
                      <tr key={i} class={`row-${r.kind}`}>
                        <DiffSign kind={r.kind} />
                        <td>
                          <pre>{within ? <Spans spans={within.left} side="del" /> : (r.left ?? '')}</pre>
                        </td>
                        <td>
                          <pre>{within ? <Spans spans={within.right} side="add" /> : (r.right ?? '')}</pre>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            ))}
          </section>
        );
      })}
      {sc.diff && (
        <details>
          <summary>Unified diff of the whole golden</summary>
          <Udiff text={sc.diff} />
        </details>
      )}
    </div>
  );
}

/** The words a status chip shows (the core's codes: src/api/replay.rs `CheckStatus`). */
export const STATUS_WORDS: Record<CheckScene['status'], string> = {
  ok: 'matches',
  mismatch: 'mismatch',
  missing_golden: 'missing golden',
  unreadable: 'unreadable',
};
/** A symbol next to the word, so the chip's colour is never the only signal. */
const STATUS_SIGNS: Record<CheckScene['status'], string> = { ok: '✓', mismatch: '≠', missing_golden: '?', unreadable: '!' };

export function StatusChip({ status }: { status: CheckScene['status'] }) {
  return (
    <span class={`chip chip-status chip-status-${status}`} data-status={status}>
      <span aria-hidden="true">{STATUS_SIGNS[status]} </span>
      {STATUS_WORDS[status] ?? status}
    </span>
  );
}

export { sortScenes } from '../lib/replay';

/** This page's address opening `path` (the `open` parameter the app reads at start-up). */
function openHref(path: string): string {
  const u = new URL(window.location.href);
  u.searchParams.set('open', path);
  return u.toString();
}

/** A field of the Replay view's kept state, as a state hook: the value outlives the view. */
function useKept<K extends keyof ReplayMemo>(memo: ReplayMemo, key: K): [ReplayMemo[K], (v: ReplayMemo[K]) => void] {
  const [v, set] = useState(memo[key]);
  return [
    v,
    (x) => {
      memo[key] = x;
      set(x);
    },
  ];
}

export function ReplayView({ session, onOpen }: { session: Session; onOpen?: (path: string) => void | Promise<void> }) {
  const baseDir = session.baseDir;
  // Kept per session outside the view: switching to another view and back finds the folder,
  // the last answer, the selection and the filters as they were.
  const memo = replayMemo(session);
  const [folder, setFolder] = useKept(memo, 'folder');
  // The folder box follows the open scene's folder until the user types in it (kept in the memo,
  // not state: the effect runs after paint, and the first render's value would put the open
  // scene's folder back over a path typed in the meantime).
  useEffect(() => {
    if (!memo.typed) setFolder(baseDir ?? '');
  }, [baseDir]);
  const [res, setRes] = useKept(memo, 'res');
  const [checked, setChecked] = useKept(memo, 'checked');
  const [sel, setSel] = useKept(memo, 'sel');
  const [failuresOnly, setFailuresOnly] = useKept(memo, 'failuresOnly');
  const [grouped, setGrouped] = useKept(memo, 'grouped');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [pick, setPick] = useState<(() => Promise<string | null>) | null>(null);
  useEffect(() => {
    void dialogs().then((d) => {
      if (d.folderDialog) setPick(() => d.folderDialog!);
    });
  }, []);
  const opts = { failuresOnly, grouped };
  const check = async (f = folder, keep = memo.sel) => {
    // A relative path is taken from the open scene's folder, as in every path box of the app.
    const typed = typedPath(f, baseDir);
    if ('error' in typed) {
      setErr(typed.error);
      return;
    }
    const full = typed.path;
    if (!full) {
      setErr(
        `Choose a folder first${pick ? ' (Browse…)' : ''}: type its path${baseDir ? ` (absolute, or relative to ${baseDir})` : ' (absolute)'}.`,
      );
      return;
    }
    setErr(null);
    setBusy('Checking…');
    try {
      const r = await session.api.check(full);
      // The box shows the folder the answer is about, so what it says no longer depends on
      // which scene is open when it is checked again.
      memo.typed = true;
      setFolder(full);
      setRes(r);
      setChecked(full);
      setSel(pickSelection(shownOrder(sceneGroups(r.scenes, full, opts)), keep));
    } catch (e) {
      setRes(null);
      setErr(errorText(e));
    } finally {
      setBusy(null);
    }
  };
  const groups = res ? sceneGroups(res.scenes, checked, opts) : [];
  const order = shownOrder(groups);
  const cur = res?.scenes.find((s) => s.path === sel) ?? null;
  const approvable = res?.scenes.filter(isApprovable) ?? [];
  const setFilter = (only: boolean, group: boolean) => {
    setFailuresOnly(only);
    setGrouped(group);
    if (res) setSel(pickSelection(shownOrder(sceneGroups(res.scenes, checked, { failuresOnly: only, grouped: group })), sel));
  };
  const approveAll = async () => {
    if (!res || !approvable.length) return;
    if (!confirm(approveAllQuestion(res.scenes))) return;
    let done = 0;
    let failure: string | null = null;
    try {
      for (const sc of approvable) {
        setBusy(`Approving ${done + 1} of ${approvable.length}…`);
        await session.api.approve(sc.path);
        done++;
      }
    } catch (e) {
      failure = `${done} of ${approvable.length} approved; then: ${errorText(e)}`;
    } finally {
      setBusy(null);
    }
    // Checked again to show what was written; a failure stays in view after it.
    await check(checked ?? folder);
    if (failure) setErr(failure);
  };
  const row = (s: CheckScene, rel: string | null) => (
    <li key={s.path} class="scene-row">
      <button
        type="button"
        class={`${s.path === sel ? 'on' : ''}`}
        title={s.path}
        aria-pressed={s.path === sel}
        onClick={() => setSel(s.path)}
      >
        <StatusChip status={s.status} /> {shortPath(s.path, rel)}
      </button>
      {onOpen && s.status !== 'unreadable' && (
        // A link (the page opens a scene named in its address, so it also works in a new tab),
        // followed here through the header's open flow: unsaved edits are asked about first.
        <a
          class="open-scene"
          href={openHref(s.path)}
          data-testid="replay-open"
          title={`Open ${s.path} in the Inspector`}
          aria-label={`Open ${shortPath(s.path, checked)} in the Inspector`}
          onClick={(e) => {
            if (e.ctrlKey || e.metaKey || e.shiftKey || e.button === 1) return;
            e.preventDefault();
            void onOpen(s.path);
          }}
        >
          Open
        </a>
      )}
    </li>
  );
  return (
    <main class="page replay-view">
      <h2 class="sr-only">Replay: the scenes of a folder against their goldens</h2>
      <div class="bar">
        <label>
          Folder{' '}
          <input
            class="path"
            data-testid="replay-folder"
            value={folder}
            placeholder={baseDir ? `absolute, or relative to ${baseDir}` : 'absolute path of a folder of scenes'}
            title={
              baseDir
                ? `A relative path is taken from the open scene's folder, ${baseDir}, as in every path box of the app`
                : 'The open scene has no folder: type an absolute path'
            }
            onInput={(e) => {
              memo.typed = true;
              setFolder((e.target as HTMLInputElement).value);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void check();
            }}
          />
        </label>
        {pick && (
          <button
            type="button"
            onClick={async () => {
              const f = await pick();
              if (f) {
                memo.typed = true;
                setFolder(f);
                await check(f);
              }
            }}
          >
            Browse…
          </button>
        )}
        <button type="button" onClick={() => void check()} disabled={!!busy}>
          {busy === 'Checking…' ? busy : 'Check'}
        </button>
        {res && (
          <span>
            {/* The rows' words: a scene "matches" its golden or does not. */}
            <b>{res.passed}</b> {res.passed === 1 ? 'matches its golden' : 'match their goldens'},{' '}
            <b class={res.failed ? 'bad' : ''}>{res.failed}</b> {res.failed === 1 ? 'does' : 'do'} not
            {checked && (
              <span class="muted" title={checked}>
                {' '}
                in {shortPath(checked, null, 70)}
              </span>
            )}
          </span>
        )}
      </div>
      {err && (
        <div class="error-box" role="alert" data-testid="replay-error">
          {err}
        </div>
      )}
      {!res && !err && (
        <div class="empty-seg">
          {folder ? (
            <>
              Press Check to compare every <code>*.scene.json</code> under this folder with its golden (<code>*.golden.json</code> next to
              it).
            </>
          ) : (
            <>
              Choose the folder of scenes to check{pick ? ' (Browse…)' : ''}, or type its path, then press Check: every{' '}
              <code>*.scene.json</code> under it is compared with its golden. The open scene has no folder, so type an absolute path.
            </>
          )}
        </div>
      )}
      {res && (
        <div class="replay">
          <div class="replay-list">
            <fieldset class="replay-tools">
              <legend class="sr-only">Which scenes to list</legend>
              <label>
                <input
                  type="checkbox"
                  data-testid="replay-failures-only"
                  checked={failuresOnly}
                  onChange={(e) => setFilter((e.target as HTMLInputElement).checked, grouped)}
                />{' '}
                Failures only
              </label>
              <label>
                <input
                  type="checkbox"
                  data-testid="replay-grouped"
                  checked={grouped}
                  onChange={(e) => setFilter(failuresOnly, (e.target as HTMLInputElement).checked)}
                />{' '}
                Group by folder
              </label>
              {approvable.length > 0 && (
                <button type="button" data-testid="approve-all" onClick={() => void approveAll()} disabled={!!busy}>
                  {busy?.startsWith('Approving') ? busy : `Approve all (${approvable.length})`}
                </button>
              )}
            </fieldset>
            {!order.length && <div class="empty-seg">No failures: every scene matches its golden.</div>}
            {grouped ? (
              groups.map((g) => (
                <section key={g.folder} class="scene-group" aria-label={`folder ${g.folder || '(the checked folder)'}`}>
                  <h3 class="scene-group-name" title={g.folder ? `${checked}/${g.folder}` : (checked ?? '')}>
                    {g.folder || 'this folder'} <span class="muted">({g.scenes.length})</span>
                  </h3>
                  <ul class="scene-list" aria-label={`scenes in ${g.folder || 'this folder'}`}>
                    {g.scenes.map((s) => row(s, g.folder ? `${checked?.replace(/[\\/]+$/, '')}/${g.folder}` : checked))}
                  </ul>
                </section>
              ))
            ) : (
              <ul class="scene-list" aria-label="checked scenes">
                {order.map((s) => row(s, checked))}
              </ul>
            )}
          </div>
          <div class="replay-detail">
            {!cur ? (
              <div class="empty-seg">Select a scene.</div>
            ) : (
              <>
                <div class="bar">
                  <StatusChip status={cur.status} />
                  <code title={cur.path} data-testid="replay-scene-path">
                    {shortPath(cur.path, checked, 80)}
                  </code>
                  {cur.status !== 'ok' && cur.status !== 'unreadable' && (
                    <button
                      type="button"
                      data-testid="approve"
                      onClick={async () => {
                        if (!confirm(`Write ${cur.golden_path} from the scene as it is now?`)) return;
                        try {
                          await session.api.approve(cur.path);
                          await check(checked ?? folder);
                        } catch (e) {
                          setErr(errorText(e));
                        }
                      }}
                    >
                      Approve (write golden)
                    </button>
                  )}
                  {onOpen && cur.status !== 'unreadable' && (
                    <button type="button" data-testid="replay-open-current" onClick={() => void onOpen(cur.path)}>
                      Open in the Inspector
                    </button>
                  )}
                </div>
                {cur.status === 'ok' ? (
                  <div class="empty-seg">Matches its golden.</div>
                ) : (
                  <>
                    {cur.status === 'missing_golden' && (
                      <p>
                        No golden yet (<code title={cur.golden_path}>{shortPath(cur.golden_path, checked, 80)}</code>): approve to write it
                        from the scene as it is now, shown here.
                      </p>
                    )}
                    <SceneDiff sc={cur} />
                  </>
                )}
              </>
            )}
          </div>
        </div>
      )}
    </main>
  );
}
