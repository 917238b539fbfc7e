import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../api/api';
import type { RunReport } from '../api/types';
import type { Session } from '../lib/session';

function contentText(c: unknown): string { return typeof c === 'string' ? c : JSON.stringify(c, null, 2); }

/** Split text into runs, marking occurrences of the injected blocks. */
export function markInjected(text: string, injected: string[]): { text: string; injected: boolean }[] {
  const out: { text: string; injected: boolean }[] = [];
  let rest = text;
  for (;;) {
    let best = -1, len = 0;
    for (const b of injected) { if (!b) continue; const k = rest.indexOf(b); if (k >= 0 && (best < 0 || k < best)) { best = k; len = b.length; } }
    if (best < 0) { if (rest) out.push({ text: rest, injected: false }); return out; }
    if (best > 0) out.push({ text: rest.slice(0, best), injected: false });
    out.push({ text: rest.slice(best, best + len), injected: true });
    rest = rest.slice(best + len);
  }
}

export function RunView({ session }: { session: Session }) {
  const [report, setReport] = useState<RunReport | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [path, setPath] = useState('fixtures/run/cd-round-2.scene.json');
  const hasRun = session.scene.has('run');
  const runText = async (text: string) => {
    setErr(null);
    try { setReport(await session.api.run(text, session.baseDir)); } catch (e) { setReport(null); setErr(errorText(e)); }
  };
  useEffect(() => { if (hasRun) void runText(session.text); }, [hasRun ? session.text : null]);
  return (
    <div class="page run-view">
      <div class="bar">
        {hasRun ? <span>Replaying the open scene's <code>run</code> loop.</span> : <span class="muted">The open scene has no <code>run</code>. Open a run scene here (it does not replace the open scene):</span>}
        <input class="path" value={path} onInput={(e) => setPath((e.target as HTMLInputElement).value)} aria-label="Run scene path" />
        <button onClick={async () => { try { const r = await session.api.open(path); await runText(r.text); } catch (e) { setErr(errorText(e)); } }}>Run this file</button>
      </div>
      {err && <div class="error-box">{err}</div>}
      {!report && !err && <div class="empty-seg">No run yet.</div>}
      {report?.iterations.map((it, i) => {
        const c = it.cache;
        const pct = c.common_prefix_bytes != null && c.request_bytes ? (100 * c.common_prefix_bytes) / c.request_bytes : 0;
        return (
          <section class="iteration" key={i}>
            <h3>Request {i + 1} <span class="muted">{c.request_bytes} B · {c.request_tokens} tok{it.dynamic_context ? ` · dynamic context ${it.dynamic_context}` : ''}{it.appended_to ? ` · appended to ${it.appended_to}` : ''}</span></h3>
            <div class="prefix-bar" title={c.common_prefix_bytes == null ? 'first request: nothing to share' : `${c.common_prefix_bytes} of ${c.request_bytes} bytes shared with the previous request`}>
              <div class="shared" style={{ width: `${pct}%` }} />
              <span class="bar-label">{c.common_prefix_bytes == null ? 'first request' : `shared prefix ${c.common_prefix_bytes} B (${pct.toFixed(0)}%) · ${c.common_prefix_tokens} tok · OpenAI cached ${c.openai_cached_tokens ?? 0} · Anthropic cached ${c.anthropic_cached_tokens ?? 0}`}</span>
            </div>
            {it.request.map((m, j) => (
              <div class={`msg role-${m.role}`} key={j}>
                <div class="msg-head"><b>{m.role}</b>{m.cache_hint && <span class="muted"> cache: {m.cache_hint}</span>}</div>
                <pre>{markInjected(contentText(m.content), it.injected).map((r, k) => r.injected ? <mark key={k} class="injected">{r.text}</mark> : r.text)}</pre>
              </div>
            ))}
          </section>
        );
      })}
    </div>
  );
}
