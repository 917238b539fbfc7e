import { Component } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { dialogs, type ShellLog } from '../api';
import { json } from '@codemirror/lang-json';

const JSON_LANG = json();
import type { Metrics, Report } from '../api/types';
import {
  type AppView,
  diagnosticId,
  diagnosticLists,
  bySeverity,
  isLintCode,
  levelCounts,
  plainMessage,
  targetLabel,
  templateTarget,
  type Family,
  type ShownDiagnostic,
  type TemplateTarget,
} from '../lib/diagnostics';
import { Editor } from '../editor/Editor';
import { JObject, RawNumber, parseJson, stringifyJson, type JValue } from '../lib/json';
import type { Session } from '../lib/session';
import { Breakable, DOCS, DocRef, LevelTag, PlainText, roundDurations } from './common';
import { tools } from '../lib/scene';
import { familyUsed } from '../lib/sceneinfo';

const PAGE = 50;

function leafText(v: JValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof RawNumber) return v.raw;
  return String(v);
}

function TreeNode({ k, v, depth, onSet }: { k: string; v: JValue; depth: number; onSet: (nv: JValue) => void }) {
  const [open, setOpen] = useState(depth < 1);
  const [shown, setShown] = useState(PAGE);
  const [editing, setEditing] = useState(false);
  const container = Array.isArray(v) || v instanceof JObject;
  if (!container) {
    return (
      <li class="leaf">
        <span class="key">{k}</span>:{' '}
        {editing ? (
          <input
            class="leaf-input"
            // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to edit this value; focus goes where they are typing
            autoFocus
            defaultValue={typeof v === 'string' ? v : leafText(v)}
            aria-label={`value of ${k}`}
            onKeyDown={(e) => {
              const el = e.target as HTMLInputElement;
              if (e.key === 'Escape') setEditing(false);
              if (e.key !== 'Enter') return;
              let nv: JValue = el.value;
              if (typeof v !== 'string') {
                try {
                  nv = parseJson(el.value);
                } catch {
                  nv = el.value;
                }
              }
              setEditing(false);
              onSet(nv);
            }}
            onBlur={() => setEditing(false)}
          />
        ) : (
          <button
            type="button"
            class={`val val-${v === null ? 'null' : v instanceof RawNumber ? 'number' : typeof v}`}
            title="Click to edit"
            onClick={() => setEditing(true)}
          >
            {leafText(v)}
          </button>
        )}
      </li>
    );
  }
  const entries: [string, JValue][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : v.entries;
  return (
    <li>
      <button type="button" class="twisty" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} <span class="key">{k}</span>{' '}
        <span class="muted">{Array.isArray(v) ? `[${v.length}]` : `{${entries.length}}`}</span>
      </button>
      {open && (
        <ul>
          {entries.slice(0, shown).map(([ck, cv], i) => (
            <TreeNode
              key={ck}
              k={ck}
              v={cv}
              depth={depth + 1}
              onSet={(nv) => {
                if (Array.isArray(v)) v[i] = nv;
                else v.entries[i][1] = nv;
                onSet(v);
              }}
            />
          ))}
          {entries.length > shown && (
            <li>
              <button type="button" class="more" onClick={() => setShown(shown + PAGE * 4)}>
                show {Math.min(PAGE * 4, entries.length - shown)} more of {entries.length - shown}
              </button>
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

/**
 * The injection metrics of both families, in the words of `prompt-inspector render --format text`.
 * "Tools declaring a position" counts the valid tools with a `prompt_position` (an invalid one takes
 * part in neither family), which is why it can differ from the Tools tab's count of every tool in
 * the call: both rows are shown, so the two numbers are told apart.
 */
export function MetricsTable({ chat, desk, inCall, invalid }: { chat?: Metrics; desk?: Metrics; inCall: number; invalid: string[] }) {
  if (!chat || !desk) return null;
  const seg = new Set([...Object.keys(chat.positions), ...Object.keys(desk.positions)]);
  return (
    <>
      <table class="metrics" aria-label="Injection metrics" data-testid="metrics">
        <thead>
          <tr>
            <th>
              <span class="sr-only">figure</span>
            </th>
            <th>chat</th>
            <th>desk</th>
          </tr>
        </thead>
        <tbody>
          <tr class="in-call" title="Every tool in the call's tools argument, valid or not (the count on the Tools tab)">
            <td>tools in the call</td>
            <td>{inCall}</td>
            <td>{inCall}</td>
          </tr>
          <tr title="Valid tools with a prompt_position; an invalid tool is rejected at class definition and counted in neither family">
            <td>tools declaring a position</td>
            <td>{chat.tools_total}</td>
            <td>{desk.tools_total}</td>
          </tr>
          <tr title="Tools whose _format_2_prompt rendered non-empty text in this family (status injected)">
            <td>tools that rendered text</td>
            <td>{chat.tools_rendered}</td>
            <td>{desk.tools_rendered}</td>
          </tr>
          <tr title="The bytes (UTF-8) the tools injected into this family's segments">
            <td>bytes injected</td>
            <td>{chat.bytes}</td>
            <td>{desk.bytes}</td>
          </tr>
          {seg.size > 0 && (
            <tr class="sub">
              <td colSpan={3}>tools injected per position</td>
            </tr>
          )}
          {[...seg].map((s) => (
            <tr key={s}>
              <td class="pos-name">
                <Breakable name={s} />
              </td>
              <td>{chat.positions[s] ?? ''}</td>
              <td>{desk.positions[s] ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {invalid.length > 0 && (
        <p class="muted metrics-note" data-testid="metrics-note">
          Not counted as declaring a position: {invalid.join(', ')} (invalid, so {invalid.length === 1 ? 'it takes' : 'they take'} part in
          neither family).
        </p>
      )}
    </>
  );
}

/**
 * Under a template's editor: how many diagnostics the panel lists about it, and a link that
 * scrolls the panel to the first of them. Each diagnostic is written out once, in the panel; the
 * editor underlines the template errors where they are.
 */
export function ProblemsLink({ items, what }: { items: ShownDiagnostic[]; what: string }) {
  if (!items.length) return null;
  const worst = bySeverity(items)[0];
  const go = () => {
    const el = document.getElementById(diagnosticId(worst));
    if (!el) return;
    const fold = el.closest('details');
    if (fold) fold.open = true;
    el.scrollIntoView({ block: 'nearest' });
    el.focus();
    el.classList.add('flash');
    setTimeout(() => el.classList.remove('flash'), 1200);
  };
  return (
    <p class={`problems-link diag-${worst.d.level}`} data-testid="problems-link">
      <LevelTag level={worst.d.level} /> {levelCounts(items)} about {what}{' '}
      <button type="button" class="link" onClick={go} title="Scroll the Diagnostics panel to it">
        show in Diagnostics
      </button>
    </p>
  );
}

const VIEW_LINK: Record<AppView, string> = {
  conversation: 'Price the move over a folder of calls: Conversation view',
  run: 'See it in the Run view',
};

interface DiagnosticItemProps {
  x: ShownDiagnostic;
  onTemplate: (t: TemplateTarget) => void;
  onSegment: (family: Family, s: string) => void;
  onView?: (v: AppView) => void;
}

// A large scene lists hundreds of diagnostics and a keystroke changes a few: an item re-renders
// only when its diagnostic (the object a live patch keeps when unchanged) or its families changed.
// The handlers are read from the props when clicked, so the latest ones always run.
class DiagnosticItem extends Component<DiagnosticItemProps> {
  shouldComponentUpdate(b: DiagnosticItemProps) {
    const a = this.props;
    return !(a.x.d === b.x.d && a.x.families.join() === b.x.families.join() && !a.onView === !b.onView);
  }
  render() {
    const { d, families } = this.props.x;
    const target = templateTarget(d);
    const msg = plainMessage(d.message);
    return (
      <li class={`diag diag-${d.level}`} id={diagnosticId(this.props.x)} data-code={d.code} tabIndex={-1}>
        <div>
          <LevelTag level={d.level} /> {isLintCode(d.code) && <span class="diag-kind">cache safety</span>}{' '}
          <span class="muted diag-code" title="The diagnostic's code (docs/diagnostics.md)">
            {d.code}
          </span>{' '}
          <span class="muted">{families.join(' + ')}</span>
        </div>
        <div class="diag-msg">
          <PlainText message={d.message} />
        </div>
        <div class="links">
          {target && (
            <button
              type="button"
              class="link"
              data-testid="diag-template"
              title={`Open this template in the editor${target.line ? `, the cursor on line ${target.line}` : ''}`}
              onClick={() => this.props.onTemplate(target)}
            >
              {targetLabel(target)}
            </button>
          )}
          {d.segment && (
            <button type="button" class="link" onClick={() => this.props.onSegment(families[0], d.segment!)}>
              segment {d.segment} on the board
            </button>
          )}
          {msg.view && this.props.onView && (
            <button type="button" class="link" data-testid="diag-view" onClick={() => this.props.onView?.(msg.view!)}>
              {VIEW_LINK[msg.view]}
            </button>
          )}
        </div>
      </li>
    );
  }
}

/**
 * Both families' diagnostics, each once, as a problems panel: errors, then warnings, then info;
 * the cache-safety lint's findings (codes `cache_…`) tagged "cache safety". Findings about the
 * cached prefix that are moot on the picked model (the request is under its cache minimum, so
 * nothing is cached anyway) are folded, with the reason. A diagnostic about a tool or a
 * configured prompt links to that template's editor, at the line it names.
 */
export function DiagnosticsList({
  reports,
  onTemplate,
  onSegment,
  onView,
  unusedFamilies = [],
}: {
  reports: { chat?: Report; desk?: Report };
  onTemplate: (t: TemplateTarget) => void;
  onSegment: (family: Family, s: string) => void;
  onView?: (v: AppView) => void;
  /** Families the scene does not use: their diagnostics are folded apart. */
  unusedFamilies?: Family[];
}) {
  const { shown, moot, mootWhy, unused } = diagnosticLists(reports, unusedFamilies);
  const item = (x: ShownDiagnostic) => (
    <DiagnosticItem key={diagnosticId(x)} x={x} onTemplate={onTemplate} onSegment={onSegment} onView={onView} />
  );
  return (
    <section aria-labelledby="diag-h" class="problems" data-testid="problems">
      <h2 id="diag-h">
        Diagnostics{' '}
        <span class="muted diag-counts" data-testid="diag-counts">
          {shown.length ? levelCounts(shown) : 'none'}
          {moot.length ? `, ${moot.length} moot` : ''}
          {unused.length ? `, ${unused.length} about an unused family` : ''}
        </span>
      </h2>
      {shown.length ? (
        <ul class="diagnostics" data-testid="diagnostics">
          {shown.map(item)}
        </ul>
      ) : (
        <div class="empty-seg">No diagnostics.</div>
      )}
      {moot.length > 0 && (
        <details class="moot" data-testid="diag-moot">
          <summary>
            {moot.length} cache-prefix finding{moot.length === 1 ? '' : 's'} that change nothing here
          </summary>
          <p class="muted moot-why" data-testid="diag-moot-why">
            Nothing is cached anyway: the {mootWhy.flatMap((w) => w.families).join(' and ')} request
            {mootWhy.flatMap((w) => w.families).length === 1 ? ' is' : 's are'} under the picked model's minimum cacheable length
            (cache_below_minimum, listed above). They matter once a request reaches it, or on a model with a lower one.
          </p>
          <ul class="diagnostics">{moot.map(item)}</ul>
        </details>
      )}
      {unused.length > 0 && (
        <details class="moot" data-testid="diag-unused">
          <summary>
            {unused.length} about {unusedFamilies.map((f) => (f === 'chat' ? 'ChatLLM' : 'DeskLLM')).join(' and ')}, which this scene does
            not use
          </summary>
          <ul class="diagnostics">{unused.map(item)}</ul>
        </details>
      )}
    </section>
  );
}

interface TreeProps {
  session: Session;
  ctx: JValue;
  version: number;
}

// The tree re-renders only when the context may have changed: a keystroke in a template answers
// with new reports, and walking thousands of history messages again for each would be wasted.
// (The tree edits values in place, so the context's identity alone cannot tell.)
class ContextTree extends Component<TreeProps> {
  shouldComponentUpdate(b: TreeProps) {
    return b.ctx !== this.props.ctx || b.version !== this.props.version;
  }
  render() {
    const { session, ctx } = this.props;
    return (
      <ul class="tree">
        {ctx instanceof JObject ? (
          ctx.entries.map(([k, v], i) => (
            <TreeNode
              key={k}
              k={k}
              v={v}
              depth={0}
              onSet={(nv) =>
                session.edit(() => {
                  ctx.entries[i][1] = nv;
                }, true)
              }
            />
          ))
        ) : (
          <li class="muted">The context is not an object.</li>
        )}
      </ul>
    );
  }
}

export function ContextPanel({
  session,
  onTemplate,
  onSegment,
  onView,
}: {
  session: Session;
  onTemplate: (t: TemplateTarget) => void;
  onSegment: (family: 'chat' | 'desk', s: string) => void;
  /** Shows another view (a diagnostic whose answer is there). */
  onView?: (v: AppView) => void;
}) {
  const [mode, setMode] = useState<'tree' | 'json'>('tree');
  const [jsonError, setJsonError] = useState<string | null>(null);
  const ctx = session.scene.get('context') ?? new JObject();
  const ctxText = useMemo(
    () => (mode === 'json' ? stringifyJson(ctx) : ''),
    [mode, session.path, mode === 'json' ? null : session.version],
  );
  const r = session.reports;
  const [logs, setLogs] = useState<ShellLog[]>([]);
  useEffect(() => {
    let off: (() => void) | undefined;
    void dialogs().then(async (d) => {
      off = await d.onLog?.((e) => setLogs((l) => [...l.slice(-199), e]));
    });
    return () => off?.();
  }, []);
  return (
    <div class="context">
      <h2>
        Context{' '}
        <span class="toggle">
          <button type="button" class={mode === 'tree' ? 'on' : ''} aria-pressed={mode === 'tree'} onClick={() => setMode('tree')}>
            Tree
          </button>
          <button type="button" class={mode === 'json' ? 'on' : ''} aria-pressed={mode === 'json'} onClick={() => setMode('json')}>
            JSON
          </button>
        </span>
      </h2>
      {mode === 'tree' ? (
        <ContextTree key={session.path ?? 'default'} session={session} ctx={ctx} version={session.contextVersion} />
      ) : (
        <>
          <Editor
            label="context JSON"
            value={ctxText}
            language={JSON_LANG}
            maxHeight="45vh"
            onChange={(t) => {
              let v: JValue;
              try {
                v = parseJson(t);
              } catch (e) {
                setJsonError((e as Error).message);
                return;
              }
              setJsonError(null);
              session.edit((s) => s.set('context', v), true);
            }}
          />
          {jsonError && <div class="error-line">Not applied: {jsonError}</div>}
        </>
      )}
      <DiagnosticsList
        reports={{ chat: r?.chat, desk: r?.desk }}
        onTemplate={onTemplate}
        onSegment={onSegment}
        onView={onView}
        unusedFamilies={(['chat', 'desk'] as const).filter((f) => !familyUsed(session.scene, f))}
      />
      {logs.length > 0 && (
        <details class="shell-log">
          <summary>
            App log ({logs.length}
            {logs.some((l) => l.level === 'ERROR') ? ', with errors' : ''})
          </summary>
          <ul>
            {logs.map((l, i) => (
              <li key={i} class={`log-${l.level}`}>
                <b>{l.level}</b> <span class="muted">{l.target}</span> {roundDurations(l.message)}
              </li>
            ))}
          </ul>
        </details>
      )}
      <h2>Injection metrics</h2>
      {r ? (
        <MetricsTable
          chat={r.chat.metrics}
          desk={r.desk.metrics}
          inCall={tools(session.scene).length}
          invalid={r.validate.tools.filter((t) => !t.valid).map((t) => t.name)}
        />
      ) : (
        <div class="empty-seg">rendering…</div>
      )}
      <p class="muted">
        <DocRef path={DOCS.rules} what="The 14 segments, the rules and the statuses" />
      </p>
    </div>
  );
}
