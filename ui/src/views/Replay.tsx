import { useEffect, useRef, useState } from 'preact/hooks';
import { dialogs } from '../api';
import { errorText } from '../api/api';
import type { CheckResponse, CheckScene } from '../api/types';
import { diffSegments, type Row, type SegmentLike } from '../lib/diff';
import { resolvePath, shortPath } from '../lib/paths';
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
                  {x.rows.map((r, i) => (
                    <tr key={i} class={`row-${r.kind}`}>
                      <DiffSign kind={r.kind} />
                      <td>
                        <pre>{r.left ?? ''}</pre>
                      </td>
                      <td>
                        <pre>{r.right ?? ''}</pre>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
          </section>
        );
      })}
      {sc.diff && (
        <details>
          <summary>Unified diff of the whole golden</summary>
          <pre class="udiff">{sc.diff}</pre>
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

/** Failures first (mismatch, missing golden, unreadable), then the scenes that match, each in path order. */
export function sortScenes(scenes: CheckScene[]): CheckScene[] {
  return [...scenes].sort((a, b) => Number(a.status === 'ok') - Number(b.status === 'ok'));
}

export function ReplayView({ session }: { session: Session }) {
  const baseDir = session.baseDir;
  const [folder, setFolder] = useState(baseDir ?? '');
  // The folder box follows the open scene's folder until the user types in it. A ref, not state:
  // the effect runs after paint, and the first render's `typed` (false) would put the open
  // scene's folder back over a path typed in the meantime.
  const typed = useRef(false);
  useEffect(() => {
    if (!typed.current) setFolder(baseDir ?? '');
  }, [baseDir]);
  const [res, setRes] = useState<CheckResponse | null>(null);
  const [checked, setChecked] = useState<string | null>(null);
  const [sel, setSel] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pick, setPick] = useState<(() => Promise<string | null>) | null>(null);
  useEffect(() => {
    void dialogs().then((d) => {
      if (d.folderDialog) setPick(() => d.folderDialog!);
    });
  }, []);
  const check = async (f = folder) => {
    const full = resolvePath(f, baseDir);
    if (!full) {
      setErr(
        `Choose a folder first${pick ? ' (Browse…)' : ''}: type its path${baseDir ? ` (absolute, or relative to ${baseDir})` : ' (absolute)'}.`,
      );
      return;
    }
    setErr(null);
    setBusy(true);
    try {
      const r = await session.api.check(full);
      setRes(r);
      setChecked(full);
      if (sel && !r.scenes.some((s) => s.path === sel)) setSel(null);
    } catch (e) {
      setRes(null);
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const cur = res?.scenes.find((s) => s.path === sel) ?? null;
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
                ? `A relative path is taken from the open scene's folder, ${baseDir}`
                : 'The open scene has no folder: type an absolute path'
            }
            onInput={(e) => {
              typed.current = true;
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
                typed.current = true;
                setFolder(f);
                await check(f);
              }
            }}
          >
            Browse…
          </button>
        )}
        <button type="button" onClick={() => void check()} disabled={busy}>
          {busy ? 'Checking…' : 'Check'}
        </button>
        {res && (
          <span>
            <b>{res.passed}</b> passed, <b class={res.failed ? 'bad' : ''}>{res.failed}</b> failed
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
          <ul class="scene-list" aria-label="checked scenes">
            {sortScenes(res.scenes).map((s) => (
              <li key={s.path}>
                <button
                  type="button"
                  class={`${s.path === sel ? 'on' : ''}`}
                  title={s.path}
                  aria-pressed={s.path === sel}
                  onClick={() => setSel(s.path)}
                >
                  <StatusChip status={s.status} /> {shortPath(s.path, checked)}
                </button>
              </li>
            ))}
          </ul>
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
