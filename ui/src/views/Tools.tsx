import { useMemo, useState } from 'preact/hooks';
import { json } from '@codemirror/lang-json';

const JSON_LANG = json();
import type { Report, Rules, ValidateResponse } from '../api/types';
import { Editor } from '../editor/Editor';
import { templateLanguage, templateLinter, type TemplateErrorMark } from '../editor/template';
import { JObject, parseJson, stringifyJson, type JValue } from '../lib/json';
import { CHAT_SEGMENTS, DESK_SEGMENTS, engineOf, locales, position, returnsKind, setPosition, setTemplateText, templatePathOf, templateText, toolByName, tools, toolTemplate, type Scene } from '../lib/scene';
import type { Session } from '../lib/session';
import { StatusChip, ruleOf } from './common';

const RETURNS_TEXT: Record<string, string> = {
  str: 'a string: the template below rendered over {state, ctx}',
  prompt: 'a prompt (passed through unchanged)',
  none: 'None: skipped (empty)',
  raise: 'raises: skipped, an ERROR is logged',
  invalid: 'a value of another type: protocol error',
  default: 'not overridden',
};

interface Props { session: Session; selected: string | null; onSelect: (n: string) => void; palette: Map<string, string> }

export function ToolsPanel({ session, selected, onSelect, palette }: Props) {
  const s = session.scene;
  const r = session.reports;
  const list = tools(s);
  return (
    <div class="tools">
      <h2>Tools <span class="muted">call order</span></h2>
      {!list.length && <div class="empty-seg">This scene has no tools.</div>}
      <ol class="tool-list">
        {list.map((t, i) => {
          const name = String(t.get('name') ?? `#${i}`);
          const st = (rep: Report | undefined) => rep?.tools.find((x) => x.name === name)?.status;
          return (
            <li key={i} class={name === selected ? 'selected' : ''}>
              <button class="tool-row" onClick={() => onSelect(name)} data-testid={`tool-${name}`} aria-pressed={name === selected}>
                <span class="swatch" style={{ background: palette.get(name) }} />
                <span class="tool-name">{name}</span>
                <span class="chips"><StatusChip family="chat" status={st(r?.chat)} /><StatusChip family="desk" status={st(r?.desk)} /></span>
              </button>
            </li>
          );
        })}
      </ol>
      {selected && toolByName(s, selected) && <ToolDetail key={selected + ':' + session.path} session={session} name={selected} />}
    </div>
  );
}

function PositionPicker({ family, value, segments, rules, onChange }: { family: 'chat' | 'desk'; value: string | null; segments: string[]; rules: Rules | null; onChange: (v: string | null) => void }) {
  return (
    <label class="pos">
      <span>{family}</span>
      <select value={value ?? ''} onChange={(e) => onChange((e.target as HTMLSelectElement).value || null)} data-testid={`pos-${family}`} aria-label={`${family} position`}>
        <option value="">None (silent in {family})</option>
        {segments.map((seg) => {
          const rule = ruleOf(rules, seg);
          return <option key={seg} value={seg}>{rule ? `⛔ ${seg} — ${rule.id}` : seg}</option>;
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
  const kind = returnsKind(tool);
  const spec = toolTemplate(tool);
  const locs = locales(spec);
  const [locale, setLocale] = useState(locs[0] ?? 'default');
  const engine = engineOf(spec);
  const lang = useMemo(() => templateLanguage(engine), [engine]);
  const validity = session.reports?.validate.tools.find((t) => t.name === name);
  const tplPath = templatePathOf(scene, tool);
  const problems: TemplateErrorMark[] = (session.reports?.validate.templates ?? [])
    .filter((t) => t.error && tplPath && t.path === `${tplPath}.templates.${t.locale}` && t.locale === locale)
    .map((t) => t.error!);
  const renderDiags = [...(session.reports?.chat.diagnostics ?? []), ...(session.reports?.desk.diagnostics ?? [])].filter((d) => d.tool === name && d.code !== 'tool_invalid');
  const problemsRef = useMemo(() => ({ current: problems }), []);
  problemsRef.current = problems;
  const lint = useMemo(() => templateLinter(() => problemsRef.current), []);
  // Re-lint when validate answers for the text on screen (not on every keystroke).
  const lintVersion = session.reports?.text === session.text ? session.reports.validate : null;

  const stateText = useMemo(() => { const v = tool.get('state'); return v === undefined ? 'null' : stringifyJson(v); }, [name, session.path]);
  const [stateError, setStateError] = useState<string | null>(null);

  const setPos = (family: 0 | 1, v: string | null) => session.edit(() => {
    const cur = position(tool) ?? [null, null];
    cur[family] = v;
    setPosition(tool, cur);
  });
  const forbidden = (['chat', 'desk'] as const).map((f, i) => ({ f, seg: pos?.[i] ?? null, rule: pos?.[i] ? ruleOf(session.rules, pos[i]!) : null })).filter((x) => x.rule);

  return (
    <div class="tool-detail" data-testid="tool-detail">
      <h3>{name}</h3>
      {typeof tool.get('description') === 'string' && <p class="muted">{tool.get('description') as string}</p>}
      <fieldset>
        <legend>prompt_position (chat, desk)</legend>
        {pos === null ? <p class="muted">No position declared (<code>prompt_position = None</code>). <button onClick={() => session.edit(() => setPosition(tool, ['system_msg_prompt', 'system_prompt']))}>Declare one</button></p> : (
          <div class="pos-pair">
            <PositionPicker family="chat" value={pos[0]} segments={CHAT_SEGMENTS} rules={session.rules} onChange={(v) => setPos(0, v)} />
            <PositionPicker family="desk" value={pos[1]} segments={DESK_SEGMENTS} rules={session.rules} onChange={(v) => setPos(1, v)} />
          </div>
        )}
        {forbidden.map((x) => (
          <div class="rule-box" key={x.f} data-testid="rule-box" role="alert">
            <b>{x.seg} is forbidden in {x.f === 'chat' ? 'ChatLLM' : 'DeskLLM'}: {x.rule!.title}</b>
            <p>{x.rule!.reason}</p>
          </div>
        ))}
        {validity && !validity.valid && <div class="error-box" data-testid="tool-invalid"><b>{validity.exception ?? 'Error'}</b> at class definition: {validity.message}</div>}
      </fieldset>
      <fieldset>
        <legend>_format_2_prompt returns</legend>
        <p><code>{kind}</code> — {RETURNS_TEXT[kind] ?? kind}</p>
      </fieldset>
      {spec && (
        <fieldset>
          <legend>template <span class="engine">{engine}</span></legend>
          <div class="tabs locale-tabs" role="tablist">
            {locs.map((l) => <button role="tab" key={l} aria-selected={l === locale} class={l === locale ? 'on' : ''} onClick={() => setLocale(l)}>{l}</button>)}
            <button class="add" title="Add a locale" onClick={() => {
              const l = prompt('Locale (e.g. zh, en)')?.trim();
              if (l && !locs.includes(l)) { session.edit(() => setTemplateText(spec, l, templateText(spec, locale))); setLocale(l); }
            }}>+</button>
          </div>
          <Editor key={locale} label={`${name} template (${locale})`} testId="template-editor" value={templateText(spec, locale)} language={lang} lint={lint} lintVersion={lintVersion}
            onChange={(t) => session.edit(() => setTemplateText(spec, locale, t))} />
          {problems.map((p, i) => <div class="error-line" key={i}>{p.kind}: {p.message}{p.line ? ` (line ${p.line}, column ${p.column})` : ''}</div>)}
        </fieldset>
      )}
      {renderDiags.map((d, i) => <div class={`diag diag-${d.level}`} key={i}>{d.code}: {d.message}</div>)}
      <fieldset>
        <legend>state (JSON)</legend>
        <Editor label={`${name} state`} testId="state-editor" value={stateText} language={JSON_LANG} onChange={(t) => {
          let v: JValue;
          try { v = parseJson(t); } catch (e) { setStateError((e as Error).message); return; }
          setStateError(null);
          session.edit(() => tool.set('state', v));
        }} />
        {stateError && <div class="error-line">Not applied: {stateError}</div>}
      </fieldset>
    </div>
  );
}

export function adapterOf(s: Scene): string {
  const d = s.get('desk_llm');
  return d instanceof JObject && typeof d.get('adapter') === 'string' ? (d.get('adapter') as string) : 'openai_desk';
}

export type { ValidateResponse };
