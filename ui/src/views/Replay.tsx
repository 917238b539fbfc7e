import { useEffect, useState } from 'preact/hooks';
import { dialogs } from '../api';
import { errorText } from '../api/api';
import type { CheckResponse, CheckScene } from '../api/types';
import { diffSegments, type SegmentLike } from '../lib/diff';
import type { Session } from '../lib/session';

function segs(g: unknown, family: 'chat' | 'desk'): SegmentLike[] {
  const f = (g as Record<string, { segments?: SegmentLike[] }> | null)?.[family];
  return f?.segments ?? [];
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
            <h3>{fam} <span class="muted">{changed.length ? `${changed.length} segment(s) differ` : 'segments identical'}</span></h3>
            {changed.map((x) => (
              <table class="side" key={x.name}>
                <caption><code>{x.name}</code></caption>
                <thead><tr><th>golden</th><th>now</th></tr></thead>
                <tbody>{x.rows.map((r, i) => <tr key={i} class={`row-${r.kind}`}><td><pre>{r.left ?? ''}</pre></td><td><pre>{r.right ?? ''}</pre></td></tr>)}</tbody>
              </table>
            ))}
          </section>
        );
      })}
      {sc.diff && <details><summary>Unified diff of the whole golden</summary><pre class="udiff">{sc.diff}</pre></details>}
    </div>
  );
}

export function ReplayView({ session }: { session: Session }) {
  const [folder, setFolder] = useState('fixtures');
  const [res, setRes] = useState<CheckResponse | null>(null);
  const [sel, setSel] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pick, setPick] = useState<(() => Promise<string | null>) | null>(null);
  useEffect(() => { void dialogs().then((d) => { if (d.folderDialog) setPick(() => d.folderDialog!); }); }, []);
  const check = async () => {
    setErr(null); setBusy(true);
    try { const r = await session.api.check(folder); setRes(r); if (sel && !r.scenes.some((s) => s.path === sel)) setSel(null); } catch (e) { setErr(errorText(e)); } finally { setBusy(false); }
  };
  const cur = res?.scenes.find((s) => s.path === sel) ?? null;
  return (
    <div class="page replay-view">
      <div class="bar">
        <label>Folder <input class="path" data-testid="replay-folder" value={folder} onInput={(e) => setFolder((e.target as HTMLInputElement).value)} /></label>
        {pick && <button onClick={async () => { const f = await pick(); if (f) setFolder(f); }}>Browse…</button>}
        <button onClick={check} disabled={busy}>{busy ? 'Checking…' : 'Check'}</button>
        {res && <span><b>{res.passed}</b> passed, <b class={res.failed ? 'bad' : ''}>{res.failed}</b> failed</span>}
      </div>
      {err && <div class="error-box">{err}</div>}
      {!res && !err && <div class="empty-seg">Choose a folder of scenes with goldens and press Check.</div>}
      {res && (
        <div class="replay">
          <ul class="scene-list">
            {[...res.scenes].sort((a, b) => Number(a.status === 'ok') - Number(b.status === 'ok')).map((s) => (
              <li key={s.path}><button class={`${s.path === sel ? 'on' : ''}`} onClick={() => setSel(s.path)}><span class={`chip chip-${s.status === 'ok' ? 'injected' : 'invalid'}`}>{s.status}</span> {s.path.replace(/^.*?fixtures\//, '')}</button></li>
            ))}
          </ul>
          <div class="replay-detail">
            {!cur ? <div class="empty-seg">Select a scene.</div> : (
              <>
                <div class="bar"><code>{cur.path}</code>
                  {cur.status !== 'ok' && cur.status !== 'unreadable' && <button data-testid="approve" onClick={async () => {
                    if (!confirm(`Write ${cur.golden_path} from the scene as it is now?`)) return;
                    try { await session.api.approve(cur.path); await check(); } catch (e) { setErr(errorText(e)); }
                  }}>Approve (write golden)</button>}
                </div>
                {cur.status === 'ok' ? <div class="empty-seg">Matches its golden.</div> : <SceneDiff sc={cur} />}
              </>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
