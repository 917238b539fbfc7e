import { useState } from 'preact/hooks';
import { errorText } from '../api/api';
import type { Diagnostic, Rules, ToolStatus } from '../api/types';
import { parseScene, position, sceneText, setPosition, tools, toolByName } from '../lib/scene';
import type { Session } from '../lib/session';
import { DOCS, DiagLine, DocRef, STATUS_LABEL } from './common';

export function RulesView({ session }: { session: Session }) {
  const rules: Rules | null = session.rules;
  const names = tools(session.scene).map((t) => String(t.get('name')));
  const forbidden = rules?.segments.filter((s) => !s.legal) ?? [];
  const [tool, setTool] = useState(names[0] ?? '');
  const [seg, setSeg] = useState(forbidden[0]?.name ?? '');
  const [result, setResult] = useState<{ diags: Diagnostic[]; status?: ToolStatus } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  if (!rules) return <main class="page">Loading the rules…</main>;

  // "Try it": render a copy of the open scene with the tool moved to a forbidden segment.
  const tryIt = async () => {
    setErr(null);
    setResult(null);
    const target = rules.segments.find((s) => s.name === seg);
    if (!target) return;
    try {
      const copy = parseScene(session.text);
      const t = toolByName(copy, tool);
      if (!t) {
        setErr(`No tool ${tool} in the open scene.`);
        return;
      }
      const pos = position(t) ?? [null, null];
      pos[target.family === 'chat' ? 0 : 1] = seg;
      setPosition(t, pos);
      const rep = await session.api.render(sceneText(copy), { llm: target.family, baseDir: session.baseDir });
      setResult({ diags: rep.diagnostics.filter((d) => d.tool === tool), status: rep.tools.find((x) => x.name === tool)?.status });
    } catch (e) {
      setErr(errorText(e));
    }
  };

  return (
    <main class="page rules-view">
      <h2>The 14 segments</h2>
      <p class="muted">
        <DocRef path={DOCS.rules} what="The segments and the rules explained" />
      </p>
      <div class="rules-grid">
        {(['chat', 'desk'] as const).map((f) => (
          <table key={f} class="seg-table">
            <caption>{f === 'chat' ? 'ChatLLM' : 'DeskLLM'}, in assembly order</caption>
            <tbody>
              {rules.segments
                .filter((s) => s.family === f)
                .sort((a, b) => a.order - b.order)
                .map((s) => (
                  <tr key={s.name} class={s.legal ? 'legal' : 'forbidden'}>
                    <td>{s.order + 1}</td>
                    <td>
                      <code>{s.name}</code>
                      <div class="muted">{s.purpose}</div>
                    </td>
                    <td>
                      {s.legal ? (
                        <span class="chip chip-injected">legal</span>
                      ) : (
                        <span class="chip chip-invalid" title={rules.rules.find((r) => r.id === s.rule)?.title ?? s.rule}>
                          {s.rule}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        ))}
      </div>
      <h2>The three rules</h2>
      {rules.rules.map((r) => (
        <div class="rule-card" key={r.id}>
          <h3>{r.title}</h3>
          <p>{r.reason}</p>
          <p class="muted">
            Forbids:{' '}
            {r.segments.map((s) => (
              <code key={s}>{s} </code>
            ))}
          </p>
        </div>
      ))}
      <h2>Try it</h2>
      <div class="try">
        <label>
          Tool{' '}
          <select value={tool} onChange={(e) => setTool((e.target as HTMLSelectElement).value)}>
            {names.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          Forbidden segment{' '}
          <select value={seg} onChange={(e) => setSeg((e.target as HTMLSelectElement).value)}>
            {forbidden.map((s) => (
              <option key={s.name} value={s.name}>
                {s.family}: {s.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={tryIt} disabled={!names.length} data-testid="try-it">
          Inject there
        </button>
        <span class="muted">(renders a copy of the open scene; the scene itself is not changed)</span>
      </div>
      {err && <div class="error-box">{err}</div>}
      {result && (
        <div class="try-result" data-testid="try-result">
          <p>
            Status of <b>{tool}</b>:{' '}
            <span class={`chip chip-${result.status}`}>{result.status ? STATUS_LABEL[result.status] : 'not in the report'}</span>
          </p>
          {result.diags.map((d, i) => (
            <DiagLine d={d} key={i} />
          ))}
        </div>
      )}
    </main>
  );
}
