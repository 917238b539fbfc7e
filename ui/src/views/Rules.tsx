import { useState } from 'preact/hooks';
import { errorText } from '../api/api';
import type { Diagnostic, Report, Rules, ToolStatus } from '../api/types';
import { parseScene, position, sceneText, setPosition, tools, toolByName } from '../lib/scene';
import type { Session } from '../lib/session';
import { forbiddenBadge, legalShown, nearestLegal, type Shown, segmentWords, toolText, withoutRule, withRule } from '../lib/tryit';
import { DOCS, DiagLine, DocRef, STATUS_LABEL } from './common';

/** The large-text mode for projectors, kept in the browser between visits. */
const LARGE_KEY = 'prompt-inspector.rules-large-text';
export function largeTextStored(): boolean {
  try {
    return localStorage.getItem(LARGE_KEY) === '1';
  } catch {
    return false;
  }
}
function storeLargeText(on: boolean) {
  try {
    localStorage.setItem(LARGE_KEY, on ? '1' : '0');
  } catch {
    // Storage refused (a private window): the mode still holds for this visit.
  }
}

/** A text the model receives, the tool's part marked (and said in words for a screen reader). */
function ShownText({ shown, testid }: { shown: Shown; testid: string }) {
  return (
    <pre class="try-text" data-testid={testid}>
      {shown.parts.length ? (
        shown.parts.map((p, i) =>
          p.tool ? (
            <mark key={i} class="injected try-tool">
              <span class="sr-only">[the tool's text: </span>
              {p.text}
              <span class="sr-only">]</span>
            </mark>
          ) : (
            p.text
          ),
        )
      ) : (
        <span class="muted">(empty)</span>
      )}
    </pre>
  );
}

interface TryResult {
  tool: string;
  forbidden: string;
  legal: string | null;
  status?: ToolStatus;
  diags: Diagnostic[];
  text: string | null;
  withRule: Shown;
  withoutRule: Shown | null;
  legalShown: Shown | null;
  legalStatus?: ToolStatus;
}

export function RulesView({ session }: { session: Session }) {
  const rules: Rules | null = session.rules;
  const names = tools(session.scene).map((t) => String(t.get('name')));
  const forbidden = rules?.segments.filter((s) => !s.legal) ?? [];
  const [tool, setTool] = useState(names[0] ?? '');
  const [seg, setSeg] = useState(forbidden[0]?.name ?? '');
  const [legal, setLegal] = useState<string | null>(null);
  const [large, setLarge] = useState(largeTextStored);
  const [result, setResult] = useState<TryResult | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!rules) return <main class="page">Loading the rules…</main>;
  const target = rules.segments.find((s) => s.name === seg);
  const legalChoices = rules.segments.filter((s) => s.legal && s.configured && s.family === target?.family);
  const contrast = legal && legalChoices.some((s) => s.name === legal) ? legal : nearestLegal(rules, seg);
  const ruleOfSeg = (name: string) => rules.rules.find((r) => r.id === rules.segments.find((s) => s.name === name)?.rule);

  // Renders a copy of the open scene with the tool moved to `at` (its family's side of the pair).
  const renderAt = async (at: string): Promise<Report> => {
    const info = rules.segments.find((s) => s.name === at)!;
    const copy = parseScene(session.text);
    const t = toolByName(copy, tool);
    if (!t) throw new Error(`No tool ${tool} in the open scene.`);
    const pos = position(t) ?? [null, null];
    pos[info.family === 'chat' ? 0 : 1] = at;
    setPosition(t, pos);
    const rep = await session.api.render(sceneText(copy), { llm: info.family, baseDir: session.baseDir });
    return rep;
  };

  const tryIt = async () => {
    setErr(null);
    setResult(null);
    if (!target) return;
    setBusy(true);
    try {
      const [bad, good] = await Promise.all([renderAt(seg), contrast ? renderAt(contrast) : Promise.resolve(null)]);
      const text = good && contrast ? toolText(good, contrast, tool) : null;
      const shownWith = withRule(bad, seg, rules);
      setResult({
        tool,
        forbidden: seg,
        legal: contrast,
        status: bad.tools.find((x) => x.name === tool)?.status,
        diags: bad.diagnostics.filter((d) => d.tool === tool),
        text,
        withRule: shownWith,
        withoutRule: text === null ? null : withoutRule(shownWith, text, !target.configured),
        legalShown: good && contrast ? legalShown(good, contrast, tool) : null,
        legalStatus: good?.tools.find((x) => x.name === tool)?.status,
      });
    } catch (e) {
      setErr(e instanceof Error ? e.message : errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const badge = (name: string) => {
    const words = forbiddenBadge(rules, name);
    return words ? (
      <span class="chip chip-invalid" data-testid={`badge-${name}`} title={ruleOfSeg(name)?.title}>
        {words}
      </span>
    ) : (
      <span class="chip chip-injected" data-testid={`badge-${name}`}>
        open to tools
      </span>
    );
  };
  const labels = (names: string[]) => names.map((n) => segmentWords(rules, n)).join('; ');

  return (
    <main class={`page rules-view${large ? ' rules-large' : ''}`} data-testid="rules-view">
      <div class="rules-head">
        <h2>Where a tool may write</h2>
        <label class="large-toggle">
          <input
            type="checkbox"
            data-testid="rules-large"
            checked={large}
            onChange={(e) => {
              const on = (e.target as HTMLInputElement).checked;
              setLarge(on);
              storeLargeText(on);
            }}
          />{' '}
          Large text (for a projector)
        </label>
      </div>
      <p class="muted">
        <DocRef path={DOCS.rules} what="The segments and the rules explained" />
      </p>
      <section class="boundary" aria-labelledby="boundary-h">
        <h2 id="boundary-h">The boundary: what the fields are</h2>
        <div class="boundary-grid">
          <div class="field-kind field-open" data-testid="field-system-side">
            <h3>
              <span class="chip chip-injected">open to tools</span> the system side
            </h3>
            <p>{rules.system_side}</p>
            <p class="muted">{labels(rules.segments.filter((s) => s.legal).map((s) => s.name))}</p>
          </div>
          {rules.rules.map((r) => (
            <div class="field-kind field-closed rule-card" key={r.id} data-testid={`field-${r.id}`}>
              <h3>
                <span class="chip chip-invalid">forbidden: {r.short}</span>
              </h3>
              <p>{r.holds}</p>
              <p class="muted">{labels(r.segments)}</p>
              <details>
                <summary>{r.title}</summary>
                <p>{r.reason}</p>
              </details>
            </div>
          ))}
        </div>
      </section>
      <h2>The 14 segments</h2>
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
                      <b>{s.label}</b> <code class="seg-id">{s.name}</code>
                      <div class="muted">{s.purpose}</div>
                    </td>
                    <td>{badge(s.name)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        ))}
      </div>
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
          <select
            value={seg}
            data-testid="try-forbidden"
            onChange={(e) => {
              setSeg((e.target as HTMLSelectElement).value);
              setLegal(null);
            }}
          >
            {forbidden.map((s) => (
              <option key={s.name} value={s.name}>
                {segmentWords(rules, s.name)} (forbidden: {ruleOfSeg(s.name)?.short ?? s.rule})
              </option>
            ))}
          </select>
        </label>
        <label>
          Legal position to contrast{' '}
          <select value={contrast ?? ''} data-testid="try-legal" onChange={(e) => setLegal((e.target as HTMLSelectElement).value)}>
            {legalChoices.map((s) => (
              <option key={s.name} value={s.name}>
                {segmentWords(rules, s.name)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={tryIt} disabled={!names.length || busy} data-testid="try-it">
          {busy ? 'Rendering…' : 'Try it'}
        </button>
        <span class="muted">(renders copies of the open scene; the scene itself is not changed)</span>
      </div>
      {err && <div class="error-box">{err}</div>}
      {result && (
        <div class="try-result" data-testid="try-result">
          <p>
            <b>{result.tool}</b> at {segmentWords(rules, result.forbidden)}:{' '}
            <span class={`chip chip-${result.status}`}>{result.status ? STATUS_LABEL[result.status] : 'not in the report'}</span>
          </p>
          {result.diags.map((d, i) => (
            <DiagLine d={d} key={i} />
          ))}
          <div class="try-sides">
            <section class="try-side try-without" data-testid="try-without">
              <h3>Had the rule not existed</h3>
              {result.withoutRule ? (
                <>
                  <p class="muted">
                    {result.withoutRule.where}, with the tool's text (marked) inside {segmentWords(rules, result.forbidden)}:
                  </p>
                  <ShownText shown={result.withoutRule} testid="try-without-text" />
                </>
              ) : (
                <p class="muted">The tool renders no text in this scene, so there is nothing it could have put here.</p>
              )}
            </section>
            <section class="try-side try-with" data-testid="try-with">
              <h3>With the rule</h3>
              <p class="muted">{result.withRule.where}: the tool is refused, its text is not there.</p>
              <ShownText shown={result.withRule} testid="try-with-text" />
            </section>
          </div>
          {result.legal && result.legalShown && (
            <section class="try-side try-legal" data-testid="try-legal-result">
              <h3>
                At a legal position: {segmentWords(rules, result.legal)}{' '}
                <span class={`chip chip-${result.legalStatus}`}>
                  {result.legalStatus ? STATUS_LABEL[result.legalStatus] : 'not in the report'}
                </span>
              </h3>
              <p class="muted">{result.legalShown.where}, the tool's text (marked) among the system's own prompts:</p>
              <ShownText shown={result.legalShown} testid="try-legal-text" />
            </section>
          )}
        </div>
      )}
    </main>
  );
}
