import { useEffect, useRef, useState } from 'preact/hooks';
import { pieceColor } from '../lib/colors';
import { TypeAhead, keeps, listboxKeyDown } from '../lib/listbox';
import {
  addConfiguredPrompt,
  configuredPrompt,
  configuredPrompts,
  familyOf,
  promptName,
  promptSegmentsOf,
  promptTemplate,
  promptTemplatePath,
  removeConfiguredPrompt,
  renderedLocale,
  templateText,
  tools,
  type Family,
  type PromptRef,
} from '../lib/scene';
import type { Session } from '../lib/session';
import { Breakable } from './common';
import { diagnosticLists, diagnosticsOf } from '../lib/diagnostics';
import { ProblemsLink } from './Context';
import { TemplateEditor, localesWithErrors } from './TemplateEditor';
import { ToolsPanel } from './Tools';

export type LeftMode = 'tools' | 'prompts';

const FAMILY_LABEL: Record<Family, string> = { chat: 'ChatLLM', desk: 'DeskLLM' };

interface LeftPaneProps {
  session: Session;
  mode: LeftMode;
  setMode: (m: LeftMode) => void;
  selectedTool: string | null;
  onSelectTool: (n: string) => void;
  palette: Map<string, string>;
  selectedPrompt: PromptRef | null;
  onSelectPrompt: (r: PromptRef | null) => void;
  onSegment: (family: Family, segment: string) => void;
}

/** The left pane: the tools (call order) or the configured prompts (by segment), one at a time. */
export function LeftPane(p: LeftPaneProps) {
  const counts: Record<LeftMode, number> = { tools: tools(p.session.scene).length, prompts: configuredPrompts(p.session.scene).length };
  const modes: LeftMode[] = ['tools', 'prompts'];
  return (
    <>
      <div class="pane-tabs" role="tablist" aria-label="Left pane">
        {modes.map((m) => (
          <button
            type="button"
            key={m}
            role="tab"
            id={`pane-tab-${m}`}
            aria-selected={p.mode === m}
            tabIndex={p.mode === m ? 0 : -1}
            class={p.mode === m ? 'on' : ''}
            data-testid={`pane-${m}`}
            onClick={() => p.setMode(m)}
            onKeyDown={(e) => {
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              const next = modes[(modes.indexOf(m) + 1) % modes.length];
              p.setMode(next);
              document.getElementById(`pane-tab-${next}`)?.focus();
            }}
          >
            {m === 'tools' ? 'Tools' : 'Prompts'}{' '}
            <span
              class="count"
              data-testid={`count-${m}`}
              title={
                m === 'tools'
                  ? `${counts.tools} tool${counts.tools === 1 ? '' : 's'} in the call, valid or not`
                  : `${counts.prompts} configured prompt${counts.prompts === 1 ? '' : 's'}`
              }
            >
              {counts[m]}
            </span>
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-labelledby={`pane-tab-${p.mode}`}>
        {p.mode === 'tools' ? (
          <ToolsPanel session={p.session} selected={p.selectedTool} onSelect={p.onSelectTool} palette={p.palette} />
        ) : (
          <PromptsPanel
            session={p.session}
            selected={p.selectedPrompt}
            onSelect={p.onSelectPrompt}
            palette={p.palette}
            onSegment={p.onSegment}
          />
        )}
      </div>
    </>
  );
}

interface PanelProps {
  session: Session;
  selected: PromptRef | null;
  onSelect: (r: PromptRef | null) => void;
  palette: Map<string, string>;
  onSegment: (family: Family, segment: string) => void;
}

const same = (a: PromptRef | null, b: PromptRef | null) => !!a && !!b && a.segment === b.segment && a.index === b.index;

/** The LLMs' configured segment prompts (chat_llm / desk_llm), each editable like a tool template. */
export function PromptsPanel({ session, selected, onSelect, palette, onSegment }: PanelProps) {
  const list = configuredPrompts(session.scene);
  const validate = session.reports?.validate;
  const diags = [...(session.reports?.chat.diagnostics ?? []), ...(session.reports?.desk.diagnostics ?? [])];
  const current = selected && list.some((x) => same(x, selected)) ? selected : null;
  // Keep a selection that exists (a reopened scene, a removed prompt): else the first prompt.
  useEffect(() => {
    if (!current && (list.length || selected)) onSelect(list.length ? { segment: list[0].segment, index: list[0].index } : null);
  });
  const [addTo, setAddTo] = useState(promptSegmentsOf('chat')[0]);
  const [filter, setFilter] = useState('');
  const listsRef = useRef<HTMLDivElement>(null);
  const typeahead = useRef(new TypeAhead());
  const shown = list.filter((x) => {
    const spec = promptTemplate(x.prompt);
    return keeps(filter, x.segment, `#${x.index}`, FAMILY_LABEL[x.family], templateText(spec, renderedLocale(spec) ?? 'default'));
  });
  // One Tab stop in the two lists (roving tabindex): the selected prompt, else the first one shown.
  const tabStop = shown.find((x) => same(x, current)) ?? shown[0] ?? null;
  const pick = (o: HTMLElement) => onSelect({ segment: o.dataset.segment ?? '', index: Number(o.dataset.index) });
  const add = () => {
    let index = 0;
    session.edit((s) => {
      index = addConfiguredPrompt(s, addTo);
    });
    onSelect({ segment: addTo, index });
  };

  return (
    <div class="prompts">
      <p class="muted pane-hint">
        The LLMs' own segment prompts, in assembly order: “configured prompt n of a segment”, as the board and the diagnostics name them.
      </p>
      {!list.length && <div class="empty-seg">This scene has no configured prompts.</div>}
      {list.length > 0 && (
        <input
          type="search"
          class="list-filter"
          placeholder="Filter prompts"
          aria-label="Filter the configured prompts by segment or text"
          data-testid="prompt-filter"
          value={filter}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            // ↓ or Enter goes to the list, on the first prompt the filter keeps.
            if (e.key !== 'ArrowDown' && e.key !== 'Enter') return;
            const first = listsRef.current?.querySelector<HTMLElement>('[role="option"]');
            if (!first) return;
            e.preventDefault();
            pick(first);
            first.focus();
          }}
        />
      )}
      {filter && !shown.length && list.length > 0 && <div class="empty-seg">No configured prompt matches “{filter.trim()}”.</div>}
      <div ref={listsRef}>
        {(['chat', 'desk'] as const).map((family) => {
          const rows = shown.filter((x) => x.family === family);
          if (!rows.length) return null;
          return (
            <section key={family} aria-label={`${FAMILY_LABEL[family]} prompts`}>
              <h3 class="family-label" id={`prompt-family-${family}`}>
                {FAMILY_LABEL[family]}
              </h3>
              <div
                class="prompt-list"
                role="listbox"
                aria-labelledby={`prompt-family-${family}`}
                onKeyDown={(e) => {
                  if (listsRef.current) listboxKeyDown(e, listsRef.current, typeahead.current, pick);
                }}
                onClick={(e) => {
                  const o = (e.target as HTMLElement).closest<HTMLElement>('[role="option"]');
                  if (o) pick(o);
                }}
              >
                {rows.map((x) => {
                  const spec = promptTemplate(x.prompt);
                  const text = templateText(spec, renderedLocale(spec) ?? 'default');
                  const error = localesWithErrors(validate, x.path).size > 0;
                  const warn = diags.some((d) => !d.tool && d.segment === x.segment && d.prompt === x.index);
                  const on = same(x, current);
                  return (
                    <div
                      key={`${x.segment}:${x.index}`}
                      role="option"
                      class={on ? 'prompt-row selected' : 'prompt-row'}
                      aria-selected={on}
                      tabIndex={same(x, tabStop) ? 0 : -1}
                      data-label={x.segment}
                      data-segment={x.segment}
                      data-index={x.index}
                      data-testid={`prompt-${x.segment}-${x.index}`}
                    >
                      <span class="swatch" style={{ background: pieceColor({ source: 'config', index: x.index }, palette) }} />
                      <span class="prompt-seg">
                        <span class="muted">configured prompt {x.index} of</span> <Breakable name={x.segment} />
                      </span>
                      <span class="chips">
                        {spec && <span class="chip chip-engine">{spec.get('engine') === 'jinja2' ? 'jinja2' : 'fstring'}</span>}
                        {x.prompt.get('kind') === 'additional_info' && <span class="chip chip-silent">additional_info</span>}
                        {error && (
                          <span class="chip chip-error" title="The template has a syntax error">
                            template error
                          </span>
                        )}
                        {warn && !error && (
                          <span class="chip chip-undeclared" title="The template failed to render (rendered as empty)">
                            render warning
                          </span>
                        )}
                      </span>
                      <span class="prompt-excerpt">{text.trim() ? text : <i>empty</i>}</span>
                    </div>
                  );
                })}
              </div>
            </section>
          );
        })}
      </div>
      <div class="add-prompt">
        <select
          value={addTo}
          aria-label="Segment for a new prompt"
          data-testid="add-prompt-segment"
          onChange={(e) => setAddTo((e.target as HTMLSelectElement).value)}
        >
          <optgroup label="ChatLLM">
            {promptSegmentsOf('chat').map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </optgroup>
          <optgroup label="DeskLLM">
            {promptSegmentsOf('desk').map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </optgroup>
        </select>
        <button type="button" onClick={add} data-testid="add-prompt">
          Add a prompt
        </button>
      </div>
      {current && (
        <PromptDetail
          key={`${current.segment}:${current.index}:${session.path}`}
          session={session}
          at={current}
          onSegment={onSegment}
          onRemoved={() => onSelect(null)}
        />
      )}
    </div>
  );
}

function PromptDetail({
  session,
  at,
  onSegment,
  onRemoved,
}: {
  session: Session;
  at: PromptRef;
  onSegment: (f: Family, s: string) => void;
  onRemoved: () => void;
}) {
  const prompt = configuredPrompt(session.scene, at);
  if (!prompt) return null;
  const family = familyOf(at.segment)!;
  const spec = promptTemplate(prompt);
  const path = promptTemplatePath(at);
  const kind = prompt.get('kind');
  const attachments = prompt.get('attachments');
  // The panel lists them (each once); here, how many and a link there.
  const diags = diagnosticsOf(diagnosticLists({ chat: session.reports?.chat, desk: session.reports?.desk }), {
    segment: at.segment,
    index: at.index,
  });
  const where = `${family === 'chat' ? 'chat_llm' : 'desk_llm'}.${at.segment}[${at.index}]`;
  return (
    <div class="tool-detail prompt-detail" data-testid="prompt-detail">
      <h3>{promptName(at.segment, at.index)}</h3>
      <p class="muted">
        In the scene file: <code>{where}</code>
      </p>
      <p class="muted">
        {kind === 'additional_info' ? (
          <>
            additional_info: renders with <code>context.user_input.additional_info</code> as its variables.
          </>
        ) : (
          <>
            normalize: renders with the whole context as its variables (<code>{'{user_input[input]}'}</code>,{' '}
            <code>{'{{ conversation | length }}'}</code>).
          </>
        )}
        {Array.isArray(attachments) && attachments.length > 0 && (
          <>
            {' '}
            {attachments.length} attachment{attachments.length === 1 ? '' : 's'} (they do not change the text).
          </>
        )}
      </p>
      {spec ? (
        <TemplateEditor session={session} spec={spec} path={path} label={`${where} template`} testId="prompt-editor" />
      ) : (
        <div class="error-box">This prompt has no template object.</div>
      )}
      <ProblemsLink items={diags} what="this prompt" />
      <div class="bar">
        <button type="button" onClick={() => onSegment(family, at.segment)} title="Scroll the board to this segment">
          Show on the board
        </button>
        <button
          type="button"
          class="danger"
          data-testid="remove-prompt"
          onClick={() => {
            if (!confirm(`Remove ${where}?`)) return;
            session.edit((s) => removeConfiguredPrompt(s, at));
            onRemoved();
          }}
        >
          Remove
        </button>
      </div>
    </div>
  );
}
