import { useMemo, useState } from 'preact/hooks';
import { Component } from 'preact';
import type { InputCost, Llm, Report, Rules, SegmentReport } from '../api/types';
import { pieceColor, pieceRuns, runLines, sourceKey, sourceLabel, textLines, type Run } from '../lib/colors';
import { costOf, fmtUsd, pieceFigures } from '../lib/costs';
import { pricesText, provenanceText, provenanceTitle } from '../lib/money';
import { adapters } from '../lib/scene';
import { Breakable, DOCS, DocRef, fmtBytes, ruleOf } from './common';

interface Props {
  chat: Report | null;
  desk: Report | null;
  rules: Rules | null;
  palette: Map<string, string>;
  adapter: string;
  setAdapter: (a: string) => void;
  provider: 'openai' | 'anthropic' | null;
  setProvider: (p: 'openai' | 'anthropic' | null) => void;
  onSelectTool: (name: string) => void;
  selectedTool: string | null;
  /** A configured prompt's piece was clicked: open its editor (segment name, index in the segment). */
  onSelectPrompt?: (segment: string, index: number) => void;
  /** Whether the open scene configures a prompt in this segment (the reformat card's note). */
  hasConfigured?: (family: Llm, segment: string) => boolean;
  /** The picked model (a row id): the cards show what their tokens cost on it. */
  model?: string | null;
}

/** The chat segment whose user message is the user's input when it renders empty. */
export const REFORMAT = 'reformat_input_prompt';

/**
 * What the reformat card says is sent, from the chat report's messages: the user message tagged
 * `reformat_input_prompt` (the rendered prompt when it is not empty, else `user_input.input`),
 * or null when neither is there and no user message is sent.
 */
export function reformatSent(report: Report | null): string | null {
  const m = report?.messages?.find((x) => x.segment === REFORMAT && x.role === 'user');
  if (!m) return null;
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content, null, 2);
}

const MAX_SHOWN = 200;

export function Legend({ reports, palette }: { reports: (Report | null)[]; palette: Map<string, string> }) {
  // Recomputed only when a report changed (every piece of both families is visited).
  const list = useMemo(() => {
    const keys = new Map<string, { source: 'config' | 'tool'; index?: number; tool?: string }>();
    for (const r of reports) for (const s of r?.segments ?? []) for (const p of s.pieces) keys.set(sourceKey(p), p);
    return [...keys.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }, reports);
  if (!list.length) return <div class="legend empty-seg">No pieces rendered.</div>;
  const item = ([k, p]: (typeof list)[number]) => (
    <span class="legend-item" key={k}>
      <span class="swatch" style={{ background: pieceColor(p, palette) }} />
      {sourceLabel(k)}
    </span>
  );
  const SHOWN = 12;
  return (
    <section class="legend" aria-label="Piece sources">
      {list.slice(0, SHOWN).map(item)}
      {list.length > SHOWN && (
        <details>
          <summary>{list.length - SHOWN} more sources</summary>
          <div class="more-items">{list.slice(SHOWN).map(item)}</div>
        </details>
      )}
    </section>
  );
}

interface CardProps {
  seg: SegmentReport;
  family: Llm;
  order: number;
  rules: Rules | null;
  palette: Map<string, string>;
  onSelectTool: (n: string) => void;
  onSelectPrompt?: (segment: string, index: number) => void;
  selectedTool: string | null;
  /** The reformat card only: the user message it yields (null: none is sent), and whether a prompt is configured there. */
  sent?: string | null;
  configured?: boolean;
  /** What the segment's tokens cost on the picked model (the core's figure), and its price per
   *  million input tokens (for the pieces); undefined when nothing is priced. */
  costUsd?: number;
  rate?: number;
}

// A live patch keeps the objects of unchanged segments, so a card re-renders only when its own
// segment (or the selection, palette or rules) changed. The click handlers are left out of the
// comparison: they only call state setters, which never change. (A class rather than
// preact/compat's memo: compat hooks into every element the app creates.)
class SegmentCard extends Component<CardProps> {
  shouldComponentUpdate(b: CardProps) {
    const a = this.props;
    return !(
      a.seg === b.seg &&
      a.family === b.family &&
      a.order === b.order &&
      a.rules === b.rules &&
      a.palette === b.palette &&
      a.selectedTool === b.selectedTool &&
      a.sent === b.sent &&
      a.configured === b.configured &&
      a.costUsd === b.costUsd &&
      a.rate === b.rate
    );
  }
  render() {
    return SegmentCardView(this.props);
  }
}

/** The reformat card when the segment renders empty: the user message is the user's input, sent as
 *  is (TFRobot's chat order), or there is none when the input is empty too. */
function SentAsIs({ sent, configured }: { sent: string | null; configured: boolean }) {
  if (sent === null)
    return (
      <div class="empty-seg" data-testid="reformat-none">
        empty: no user message is sent (no reformat prompt text and no user input)
      </div>
    );
  return (
    <div class="sent-as-is" data-testid="reformat-sent">
      <div class="sent-note">
        {configured ? 'the reformat prompt rendered empty' : 'no reformat prompt configured'}: the user's input is sent as is
      </div>
      <div class="msg role-user">
        <div class="msg-head">
          <b>user</b> <span class="muted">context.user_input.input</span>
          <span class="figures" title="The user message's size (the segment itself is empty)">
            {fmtBytes(new TextEncoder().encode(sent).length)}
          </span>
        </div>
        <pre>{sent}</pre>
      </div>
    </div>
  );
}

/** Each piece of a segment with its tokens and cost, in text order: the same figures as the
 *  pieces' tooltips, readable without a pointer. */
function PieceFigures({ seg, rate, palette }: { seg: SegmentReport; rate?: number; palette: Map<string, string> }) {
  if (seg.tokens === undefined || seg.pieces.length < 1) return null;
  return (
    <ul class="piece-figures" aria-label={`${seg.name}: tokens${rate !== undefined ? ' and cost' : ''} of each piece`}>
      {seg.pieces.map((p, i) => (
        <li key={i} data-testid="piece-figure">
          <span class="swatch" style={{ background: pieceColor(p, palette) }} />
          {sourceLabel(sourceKey(p))} <span class="muted-figure">{pieceFigures(p.tokens, rate)}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A segment's lines of runs, each piece's first run marked `start`: there the board writes the
 * piece's source (the tool's name, "configured prompt n") in front of it, so which tool injected
 * what reads without telling colours apart.
 */
export function pieceLines(seg: Pick<SegmentReport, 'text' | 'pieces'>): (Run & { start: boolean })[][] {
  let prev: Run['piece'] = null;
  return runLines(pieceRuns(seg.text, seg.pieces)).map((line) =>
    line.map((r) => {
      const start = !!r.piece && r.piece !== prev;
      if (r.piece) prev = r.piece;
      return { ...r, start };
    }),
  );
}

function SegmentCardView({
  seg,
  family,
  order,
  rules,
  palette,
  onSelectTool,
  onSelectPrompt,
  selectedTool,
  sent,
  configured,
  costUsd,
  rate,
}: CardProps) {
  // A tool's piece selects the tool; a configured prompt's piece opens that prompt's editor.
  const open = (p: SegmentReport['pieces'][number]) => {
    if (p.tool) onSelectTool(p.tool);
    else if (p.source === 'config' && onSelectPrompt) onSelectPrompt(seg.name, p.index ?? 0);
  };
  const rule = seg.legal ? null : ruleOf(rules, seg.name);
  const isStream = seg.messages !== undefined;
  const hasSel = !!selectedTool && seg.pieces.some((p) => p.tool === selectedTool);
  return (
    <div
      class={`card${seg.legal ? '' : ' forbidden'}${hasSel ? ' has-selected' : ''}`}
      id={`seg-${family}-${seg.name}`}
      data-testid={`seg-${family}-${seg.name}`}
    >
      <div class="card-head">
        <span class="order">{order + 1}</span>
        <span class="seg-name">
          <Breakable name={seg.name} />
        </span>
        <span class="figures" data-testid="seg-figures">
          {fmtBytes(seg.bytes)}
          {seg.tokens !== undefined ? ` · ${seg.tokens} tokens` : ''}
          {costUsd !== undefined ? ` · ${fmtUsd(costUsd)}` : ''}
        </span>
      </div>
      {rule && (
        // A disclosure: the reason shows two lines closed and whole open (click, Enter or Space on
        // the summary); the tooltip has it whole too.
        <details class="badge-forbidden" data-testid={`forbidden-${family}-${seg.name}`} title={`${rule.title}. ${rule.reason}`}>
          <summary>
            <b>forbidden to tools · {rule.title}</b>
            <span class="reason">{rule.reason}</span>
          </summary>
          <DocRef path={DOCS.rules} what="The segments and the rules" />
        </details>
      )}
      {isStream ? (
        <div class="stream">
          {seg.messages} message{seg.messages === 1 ? '' : 's'} (runtime stream; see Messages)
        </div>
      ) : seg.text === '' ? (
        sent !== undefined ? (
          <SentAsIs sent={sent} configured={!!configured} />
        ) : (
          <div class="empty-seg">empty</div>
        )
      ) : (
        <div class="seg-text">
          {pieceLines(seg).map((line, l) => (
            <div class="seg-line" key={l}>
              {line.map((r, i) =>
                r.piece ? (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut; the keyboard reaches the same tool or prompt from the Tools and Prompts lists, and a tab stop per piece would bury the rest of the page
                  // biome-ignore lint/a11y/noStaticElementInteractions: see above
                  <span
                    key={i}
                    class={`piece${r.start ? ' piece-start' : ''}${r.piece.tool && r.piece.tool === selectedTool ? ' sel' : ''}`}
                    data-source={r.start ? sourceLabel(sourceKey(r.piece)) : undefined}
                    style={{ background: pieceColor(r.piece, palette) }}
                    title={`${sourceLabel(sourceKey(r.piece))} · bytes ${r.piece.range[0]}–${r.piece.range[1]}${r.piece.tokens !== undefined ? ` · ${pieceFigures(r.piece.tokens, rate)}` : ''} · click to ${r.piece.tool ? 'select the tool' : 'edit the prompt'}`}
                    onClick={() => r.piece && open(r.piece)}
                  >
                    {r.text}
                  </span>
                ) : (
                  <span key={i} class="seam">
                    {r.text}
                  </span>
                ),
              )}
            </div>
          ))}
        </div>
      )}
      {!isStream && seg.text !== '' && <PieceFigures seg={seg} rate={rate} palette={palette} />}
      {sent !== undefined && seg.text !== '' && (
        <div class="sent-note" data-testid="reformat-sent">
          sent as the user message (in place of the user's input)
        </div>
      )}
    </div>
  );
}

/** The family's whole input on the picked model, as a first call: what the cards add up to. */
export function CallCostNote({ cost, family }: { cost: InputCost; family: Llm }) {
  const what = family === 'chat' ? 'messages' : 'segments';
  // How the count was made (exact, an estimate with its bound, or calibrated), when the core says.
  const provenance = cost.provenance;
  const counted = provenanceText(provenance);
  const prices = pricesText(cost.prices_read, cost.price_sources);
  return (
    <p
      class="call-cost"
      data-testid={`call-cost-${family}`}
      data-model={cost.model}
      title={`This call's input on ${cost.model} as a first call, nothing cached: ${cost.content_tokens} tokens of ${what} and ${cost.definition_tokens} of tool definitions, at $${cost.usd_per_mtok_input ?? 0} per million input tokens`}
    >
      This call's input: {cost.input_tokens} tokens · {fmtUsd(cost.cost_usd)} <span class="muted-figure">on {cost.model}, first call</span>
      {counted && (
        <span class="provenance muted-figure" data-testid={`call-cost-provenance-${family}`} title={provenanceTitle(provenance)}>
          {' '}
          · tokens {counted}
        </span>
      )}
      {prices && (
        <span class="muted-figure" data-testid={`call-cost-prices-${family}`} title={cost.price_sources.join('\n')}>
          {' '}
          · {prices}
        </span>
      )}
    </p>
  );
}

function content(c: unknown): string {
  if (typeof c === 'string') return c;
  return JSON.stringify(c, null, 2);
}

function Messages({ report }: { report: Report }) {
  const msgs = report.messages ?? [];
  return (
    <div class="messages">
      {msgs.slice(0, MAX_SHOWN).map((m, i) => (
        <div class={`msg role-${m.role}`} key={i}>
          <div class="msg-head">
            <b>{m.role}</b> <span class="muted">{m.segment}</span>
            {m.tokens !== undefined && <span class="figures">{m.tokens} tokens</span>}
          </div>
          <pre>{content(m.content)}</pre>
        </div>
      ))}
      {msgs.length > MAX_SHOWN && <div class="muted">… {msgs.length - MAX_SHOWN} more messages not shown</div>}
      {!msgs.length && <div class="empty-seg">no messages</div>}
    </div>
  );
}

function Body({ value }: { value: unknown }) {
  if (value === undefined || value === null) return <div class="empty-seg">no request body</div>;
  const s = JSON.stringify(value, null, 2);
  const shown = s.length > 200000 ? `${s.slice(0, 200000)}\n… (truncated for display)` : s;
  // One block per line, as on the segment cards: a keystroke changes a few lines of the body,
  // and only those are laid out again (not the whole body of a large scene).
  return (
    <div class="request-body">
      {textLines(shown).map((l, i) => (
        <div key={i} class="body-line">
          {l}
        </div>
      ))}
    </div>
  );
}

export function Segments(p: Props) {
  const [chatView, setChatView] = useState<'segments' | 'messages'>('segments');
  const [deskView, setDeskView] = useState<'segments' | 'request'>('segments');
  const fam = (family: Llm, r: Report | null, cost: InputCost | null) => (
    <section class="family" aria-label={`${family} segments`}>
      <div class="family-head">
        <h3>{family === 'chat' ? 'ChatLLM' : 'DeskLLM'}</h3>
        {family === 'chat' ? (
          // biome-ignore lint/a11y/useSemanticElements: a two-button toggle; a fieldset brings a border, padding and legend semantics it does not have
          <div class="toggle" role="group" aria-label="Chat view">
            <button
              type="button"
              class={chatView === 'segments' ? 'on' : ''}
              aria-pressed={chatView === 'segments'}
              onClick={() => setChatView('segments')}
            >
              Segments
            </button>
            <button
              type="button"
              class={chatView === 'messages' ? 'on' : ''}
              aria-pressed={chatView === 'messages'}
              onClick={() => setChatView('messages')}
              data-testid="chat-messages"
            >
              Messages
            </button>
            {chatView === 'messages' && (
              <select
                aria-label="Chat provider"
                value={p.provider ?? ''}
                onChange={(e) => p.setProvider(((e.target as HTMLSelectElement).value || null) as 'openai' | null)}
              >
                <option value="">messages only</option>
                <option value="openai">+ OpenAI body</option>
                <option value="anthropic">+ Anthropic body</option>
              </select>
            )}
          </div>
        ) : (
          // biome-ignore lint/a11y/useSemanticElements: a two-button toggle; a fieldset brings a border, padding and legend semantics it does not have
          <div class="toggle" role="group" aria-label="Desk view">
            <button
              type="button"
              class={deskView === 'segments' ? 'on' : ''}
              aria-pressed={deskView === 'segments'}
              onClick={() => setDeskView('segments')}
            >
              Segments
            </button>
            <button
              type="button"
              class={deskView === 'request' ? 'on' : ''}
              aria-pressed={deskView === 'request'}
              onClick={() => setDeskView('request')}
              data-testid="desk-request"
            >
              Request body
            </button>
            {deskView === 'request' && (
              <select aria-label="Desk adapter" value={p.adapter} onChange={(e) => p.setAdapter((e.target as HTMLSelectElement).value)}>
                {adapters().map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </select>
            )}
          </div>
        )}
      </div>
      {cost && <CallCostNote cost={cost} family={family} />}
      {!r ? (
        <div class="empty-seg">rendering…</div>
      ) : family === 'chat' && chatView === 'messages' ? (
        <>
          <Messages report={r} />
          {r.request !== undefined && <Body value={r.request} />}
        </>
      ) : family === 'desk' && deskView === 'request' ? (
        <Body value={r.request} />
      ) : (
        <div class="cards">
          {r.segments.map((s, i) => {
            const reformat = family === 'chat' && s.name === REFORMAT;
            const c = cost?.segments.find((x) => x.name === s.name);
            return (
              <SegmentCard
                key={s.name}
                seg={s}
                family={family}
                order={i}
                rules={p.rules}
                palette={p.palette}
                onSelectTool={p.onSelectTool}
                onSelectPrompt={p.onSelectPrompt}
                selectedTool={p.selectedTool}
                sent={reformat ? reformatSent(r) : undefined}
                configured={reformat ? (p.hasConfigured?.(family, s.name) ?? false) : undefined}
                costUsd={c ? (c.cost_usd ?? 0) : undefined}
                rate={cost ? (cost.usd_per_mtok_input ?? 0) : undefined}
              />
            );
          })}
        </div>
      )}
    </section>
  );
  return (
    <div class="segments">
      <Legend reports={[p.chat, p.desk]} palette={p.palette} />
      <div class="families">
        {fam('chat', p.chat, costOf(p.chat, p.model ?? null))}
        {fam('desk', p.desk, costOf(p.desk, p.model ?? null))}
      </div>
    </div>
  );
}
