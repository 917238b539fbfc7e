import { Component } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { json } from '@codemirror/lang-json';

const JSON_LANG = json();
import type { Rules, ToolStatus, ValidateResponse } from '../api/types';
import { Editor } from '../editor/Editor';
import { costOf, fmtUsd } from '../lib/costs';
import { TypeAhead, keeps, listboxKeyDown } from '../lib/listbox';
import { JObject, parseJson, stringifyJson, type JValue } from '../lib/json';
import {
  RETURNS_KINDS,
  position,
  segmentsOf,
  returnsKind,
  setPosition,
  setReturnsKind,
  templatePathOf,
  toolByName,
  tools,
  toolTemplate,
  type ReturnsKind,
  type ReturnsStash,
  type Scene,
} from '../lib/scene';
import type { Session } from '../lib/session';
import { diagnosticLists, diagnosticsOf } from '../lib/diagnostics';
import { ProblemsLink } from './Context';
import { DOCS, DocRef, StatusChip, invalidWhy, ruleOf } from './common';
import { TemplateEditor } from './TemplateEditor';

const RETURNS_TEXT: Record<string, string> = {
  str: 'a string: the template above rendered over {state, ctx}',
  prompt: 'a prompt, passed through unchanged (it renders with the context as variables, not {state, ctx})',
  none: 'None: skipped (empty)',
  raise: 'raises: skipped, an ERROR is logged',
  invalid: 'a value of another type: protocol error',
  default: 'no format_2_prompt: the base method is kept (declaring a prompt_position without overriding it is a TypeError)',
};

interface Props {
  session: Session;
  selected: string | null;
  onSelect: (n: string) => void;
  palette: Map<string, string>;
}

export function ToolsPanel({ session, selected, onSelect, palette }: Props) {
  const s = session.scene;
  const r = session.reports;
  const list = tools(s);
  // Name → status, once per report (a list of hundreds of tools would otherwise search it per row).
  const chatStatus = useMemo(() => new Map(r?.chat.tools.map((x) => [x.name, x.status])), [r?.chat.tools]);
  const deskStatus = useMemo(() => new Map(r?.desk.tools.map((x) => [x.name, x.status])), [r?.desk.tools]);
  // A definition is the same in both families' requests (the neutral JSON of its schema), and so
  // is its cost on the picked model (the core's figure).
  const cost = costOf(r?.chat, session.model);
  const definitions = useMemo(
    () =>
      new Map(
        r?.chat.tools
          .filter((x) => x.definition)
          .map((x) => [x.name, definitionLabel(x.definition!, cost?.definitions.find((d) => d.tool === x.name)?.cost_usd)]),
      ),
    [r?.chat.tools, cost],
  );
  // Why an invalid tool injects in neither family, by name (validate says which side or declaration).
  const why = useMemo(
    () =>
      new Map(
        (r?.validate.tools ?? [])
          .filter((v) => !v.valid)
          .map((v) => {
            const t = toolByName(s, v.name);
            return [v.name, invalidWhy(v, t ? position(t) : null, session.rules)];
          }),
      ),
    [r?.validate, session.rules],
  );
  // The report's own words for it (TFRobot's exception message), on hover of the reason.
  const whyDetail = useMemo(
    () =>
      new Map(
        [...(r?.chat.diagnostics ?? []), ...(r?.desk.diagnostics ?? [])]
          .filter((d) => d.code === 'tool_invalid' && d.tool)
          .map((d) => [d.tool!, d.message]),
      ),
    [r?.chat.diagnostics, r?.desk.diagnostics],
  );
  const declaring = r?.chat.metrics.tools_total;
  const [filter, setFilter] = useState('');
  const listRef = useRef<HTMLDivElement>(null);
  const typeahead = useRef(new TypeAhead());
  const shown = list.map((t, i) => ({ name: String(t.get('name') ?? `#${i}`), i })).filter((x) => keeps(filter, x.name));
  // One Tab stop in the list (roving tabindex): the selected tool, else the first one shown.
  const tabStop = shown.some((x) => x.name === selected) ? selected : (shown[0]?.name ?? null);
  return (
    <div class="tools">
      <p class="muted pane-hint" data-testid="tools-hint">
        {list.length} tool{list.length === 1 ? '' : 's'} in the call, in call order (the <code>tools</code> argument)
        {declaring !== undefined ? `; ${declaring} valid one${declaring === 1 ? '' : 's'} declaring a position` : ''}.
      </p>
      {!list.length && <div class="empty-seg">This scene has no tools.</div>}
      {list.length > 0 && (
        <input
          type="search"
          class="list-filter"
          placeholder="Filter tools"
          aria-label="Filter the tools by name"
          aria-controls="tool-list"
          data-testid="tool-filter"
          value={filter}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            // ↓ or Enter goes to the list, on the first tool the filter keeps.
            if (e.key !== 'ArrowDown' && e.key !== 'Enter') return;
            const first = listRef.current?.querySelector<HTMLElement>('[role="option"]');
            if (!first) return;
            e.preventDefault();
            onSelect(first.dataset.label ?? '');
            first.focus();
          }}
        />
      )}
      {filter && !shown.length && list.length > 0 && <div class="empty-seg">No tool name contains “{filter.trim()}”.</div>}
      <div
        class="tool-list"
        id="tool-list"
        role="listbox"
        aria-label="Tools, in call order"
        ref={listRef}
        onKeyDown={(e) => {
          if (listRef.current) listboxKeyDown(e, listRef.current, typeahead.current, (o) => onSelect(o.dataset.label ?? ''));
        }}
        onClick={(e) => {
          const o = (e.target as HTMLElement).closest<HTMLElement>('[role="option"]');
          if (o) onSelect(o.dataset.label ?? '');
        }}
      >
        {shown.map(({ name, i }) => {
          return (
            <ToolRow
              key={i}
              name={name}
              selected={name === selected}
              tabbable={name === tabStop}
              color={palette.get(name)}
              chat={chatStatus.get(name)}
              desk={deskStatus.get(name)}
              definition={definitions.get(name) ?? null}
              why={why.get(name) ?? null}
              whyDetail={whyDetail.get(name) ?? null}
            />
          );
        })}
      </div>
      {selected && toolByName(s, selected) && <ToolDetail key={`${selected}:${session.path}`} session={session} name={selected} />}
    </div>
  );
}

interface RowProps {
  name: string;
  selected: boolean;
  /** The list's one Tab stop. */
  tabbable: boolean;
  color: string | undefined;
  chat: ToolStatus | undefined;
  desk: ToolStatus | undefined;
  /** The size of the tool's definition in the requests, when the scene records its schema. */
  definition: string | null;
  why: string | null;
  whyDetail: string | null;
}

/** "definition 296 B · 70 tokens · $0.000088": what a tool's schema adds to every request, and
 *  what that costs on the picked model (when it is priced). */
export function definitionLabel(d: { bytes: number; tokens?: number | null }, costUsd?: number | null): string {
  const usd = d.tokens != null && costUsd !== undefined ? ` · ${fmtUsd(costUsd)}` : '';
  return `definition ${d.bytes} B${d.tokens != null ? ` · ${d.tokens} tokens` : ''}${usd}`;
}

/** One row of the tool list. A scene can have hundreds of tools and every keystroke re-renders
 *  the window: a row whose name, colour, selection and chips did not change is not diffed again. */
class ToolRow extends Component<RowProps> {
  shouldComponentUpdate(n: RowProps) {
    const p = this.props;
    return (
      p.name !== n.name ||
      p.selected !== n.selected ||
      p.tabbable !== n.tabbable ||
      p.color !== n.color ||
      p.chat !== n.chat ||
      p.desk !== n.desk ||
      p.definition !== n.definition ||
      p.why !== n.why ||
      p.whyDetail !== n.whyDetail
    );
  }
  render({ name, selected, tabbable, color, chat, desk, definition, why, whyDetail }: RowProps) {
    return (
      <div
        role="option"
        id={`tool-option-${name}`}
        class={selected ? 'tool-row selected' : 'tool-row'}
        aria-selected={selected}
        tabIndex={tabbable ? 0 : -1}
        data-label={name}
        data-testid={`tool-${name}`}
      >
        <span class="swatch" style={{ background: color }} />
        <span class="tool-name">{name}</span>
        <span class="chips">
          <StatusChip family="chat" status={chat} why={why} />
          <StatusChip family="desk" status={desk} why={why} />
        </span>
        {definition && (
          <span
            class="tool-def"
            data-testid={`definition-${name}`}
            title="The tool's parameters schema, sent as its definition in every request (and its cost on the picked model, as a first call)"
          >
            {definition}
          </span>
        )}
        {why && (
          <span class="tool-why" data-testid={`why-${name}`} title={whyDetail ?? undefined}>
            {why}
          </span>
        )}
      </div>
    );
  }
}

function PositionPicker({
  family,
  value,
  segments,
  rules,
  onChange,
}: {
  family: 'chat' | 'desk';
  value: string | null;
  segments: readonly string[];
  rules: Rules | null;
  onChange: (v: string | null) => void;
}) {
  return (
    <label class="pos">
      <span>{family}</span>
      <select
        value={value ?? ''}
        onChange={(e) => onChange((e.target as HTMLSelectElement).value || null)}
        data-testid={`pos-${family}`}
        aria-label={`${family} position`}
      >
        <option value="">None (silent in {family})</option>
        {segments.map((seg) => {
          const rule = ruleOf(rules, seg);
          return (
            <option key={seg} value={seg} title={rule ? `forbidden: ${rule.title}` : undefined}>
              {rule ? `⛔ ${seg} · forbidden` : seg}
            </option>
          );
        })}
        {value && !segments.includes(value) && <option value={value}>? {value} (unknown)</option>}
      </select>
    </label>
  );
}

function ToolDetail({ session, name }: { session: Session; name: string }) {
  const scene = session.scene;
  const tool = toolByName(scene, name)!;
  const pos = position(tool);
  const spec = toolTemplate(tool);
  const validity = session.reports?.validate.tools.find((t) => t.name === name);
  const tplPath = templatePathOf(scene, tool);
  // The panel lists them (each once); here, how many and a link there.
  const renderDiags = diagnosticsOf(diagnosticLists({ chat: session.reports?.chat, desk: session.reports?.desk }), { tool: name }).filter(
    (x) => x.d.code !== 'tool_invalid',
  );

  const stateText = useMemo(() => {
    const v = tool.get('state');
    return v === undefined ? 'null' : stringifyJson(v);
  }, [name, session.path]);
  const [stateError, setStateError] = useState<string | null>(null);

  const setPos = (family: 0 | 1, v: string | null) =>
    session.edit(() => {
      const cur = position(tool) ?? [null, null];
      cur[family] = v;
      setPosition(tool, cur);
    });
  const forbidden = (['chat', 'desk'] as const)
    .map((f, i) => ({ f, seg: pos?.[i] ?? null, rule: pos?.[i] ? ruleOf(session.rules, pos[i]!) : null }))
    .filter((x) => x.rule);

  return (
    <div class="tool-detail" data-testid="tool-detail">
      <h3>{name}</h3>
      {typeof tool.get('description') === 'string' && <p class="muted">{tool.get('description') as string}</p>}
      <fieldset>
        <legend>prompt_position (chat, desk)</legend>
        {pos === null ? (
          <p class="muted">
            No position declared (<code>prompt_position = None</code>).{' '}
            <button type="button" onClick={() => session.edit(() => setPosition(tool, ['system_msg_prompt', 'system_prompt']))}>
              Declare one
            </button>
          </p>
        ) : (
          <div class="pos-pair">
            <PositionPicker
              family="chat"
              value={pos[0]}
              segments={segmentsOf('chat')}
              rules={session.rules}
              onChange={(v) => setPos(0, v)}
            />
            <PositionPicker
              family="desk"
              value={pos[1]}
              segments={segmentsOf('desk')}
              rules={session.rules}
              onChange={(v) => setPos(1, v)}
            />
          </div>
        )}
        {forbidden.map((x) => (
          <div class="rule-box" key={x.f} data-testid="rule-box" role="alert">
            <b>
              {x.seg} is forbidden in {x.f === 'chat' ? 'ChatLLM' : 'DeskLLM'}: {x.rule!.title}
            </b>
            <p>{x.rule!.reason}</p>
          </div>
        ))}
        {validity && !validity.valid && (
          <div class="error-box" data-testid="tool-invalid">
            <b>{validity.exception ?? 'Error'}</b> at class definition: {validity.message}
            <p class="invalid-both">
              TFRobot checks the tool class when it is defined, so the class is rejected whole: neither side injects, and the tool takes
              part in neither family (both chips say invalid).
            </p>
          </div>
        )}
      </fieldset>
      {/* The template first after the positions: at 1280x720 it shows without scrolling. */}
      {spec && (
        <TemplateEditor
          key={tplPath ?? ''}
          session={session}
          spec={spec}
          path={tplPath}
          label={`${name} template`}
          testId="template-editor"
          legend={returnsKind(tool) === 'prompt' ? 'prompt template' : 'template'}
        />
      )}
      <ProblemsLink items={renderDiags} what={`${name}`} />
      <ReturnsEditor session={session} tool={tool} name={name} />
      <fieldset>
        <legend>state (JSON)</legend>
        <Editor
          label={`${name} state`}
          testId="state-editor"
          value={stateText}
          language={JSON_LANG}
          onChange={(t) => {
            let v: JValue;
            try {
              v = parseJson(t);
            } catch (e) {
              setStateError((e as Error).message);
              return;
            }
            setStateError(null);
            session.edit(() => tool.set('state', v));
          }}
        />
        {stateError && <div class="error-line">Not applied: {stateError}</div>}
      </fieldset>
    </div>
  );
}

// What each kind had before the tool was switched away from it, so switching back restores it
// (kept per tool object: an edit keeps the object, a reopened file makes new ones).
const stashes = new WeakMap<JObject, ReturnsStash>();
function stashOf(tool: JObject): ReturnsStash {
  let s = stashes.get(tool);
  if (!s) {
    s = new Map();
    stashes.set(tool, s);
  }
  return s;
}

/** What `_format_2_prompt` returns: a select over the scene format's kinds (plus "not overridden",
 *  which removes `format_2_prompt`), and the raise message or the invalid value. */
function ReturnsEditor({ session, tool, name }: { session: Session; tool: JObject; name: string }) {
  const kind = returnsKind(tool) as ReturnsKind;
  const stash = stashOf(tool);
  const f = tool.get('format_2_prompt');
  const field = (k: string) => (f instanceof JObject ? f.get(k) : undefined);
  const err = field('error');
  const valueText = useMemo(() => {
    const v = field('value');
    return v === undefined ? '' : stringifyJson(v, 0);
  }, [kind, session.path]);
  const [valueError, setValueError] = useState<string | null>(null);
  const prompt = field('prompt');
  const promptKind = prompt instanceof JObject ? prompt.get('kind') : undefined;
  return (
    <fieldset class="returns">
      <legend>_format_2_prompt returns</legend>
      <select
        value={kind}
        data-testid="returns-kind"
        aria-label={`What ${name}'s _format_2_prompt returns`}
        onChange={(e) => {
          setValueError(null);
          session.edit(() => setReturnsKind(tool, (e.target as HTMLSelectElement).value as ReturnsKind, stash));
        }}
      >
        {RETURNS_KINDS.map((k) => (
          <option key={k} value={k}>
            {k === 'default' ? 'not overridden' : k}
          </option>
        ))}
      </select>
      <p class="muted returns-text">
        {RETURNS_TEXT[kind] ?? kind}
        {kind === 'prompt' && typeof promptKind === 'string' ? ` — a ${promptKind} prompt` : ''}.{' '}
        <DocRef path={DOCS.scene} what="Each kind" />
      </p>
      {kind === 'raise' && (
        <label class="field">
          error message
          <input
            type="text"
            value={typeof err === 'string' ? err : ''}
            data-testid="returns-error"
            aria-label={`${name}: the error it raises`}
            onInput={(e) => {
              const v = (e.target as HTMLInputElement).value;
              session.edit(() => (tool.get('format_2_prompt') as JObject).set('error', v));
            }}
          />
        </label>
      )}
      {kind === 'invalid' && (
        <label class="field">
          returned value (JSON)
          <input
            type="text"
            class="mono"
            defaultValue={valueText}
            key={valueText}
            data-testid="returns-value"
            aria-label={`${name}: the value it returns`}
            onInput={(e) => {
              let v: JValue;
              try {
                v = parseJson((e.target as HTMLInputElement).value);
              } catch (x) {
                setValueError((x as Error).message);
                return;
              }
              setValueError(null);
              session.edit(() => (tool.get('format_2_prompt') as JObject).set('value', v));
            }}
          />
          {valueError && <span class="error-line">Not applied: {valueError}</span>}
        </label>
      )}
    </fieldset>
  );
}

export function adapterOf(s: Scene): string {
  const d = s.get('desk_llm');
  return d instanceof JObject && typeof d.get('adapter') === 'string' ? (d.get('adapter') as string) : 'openai_desk';
}

export type { ValidateResponse };
