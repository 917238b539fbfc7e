import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { Component } from 'preact';
import type { InputCost, Llm, ModelInfo, Report, Rules, SegmentReport } from '../api/types';
import { pieceColor, pieceRuns, runLines, sourceKey, sourceLabel, textLines, type Run } from '../lib/colors';
import { costOf, fmtUsd, pieceFigures } from '../lib/costs';
import { pricesText, provenanceText, provenanceTitle } from '../lib/money';
import { adapters } from '../lib/scene';
import { apiName, chatProviderOf, deskBody, sceneDesk, withDesk, type DeskBody } from '../lib/preview';
import { familyUsed, runOnly, sceneAbout } from '../lib/sceneinfo';
import { recordedPrompt, recordedReply } from '../lib/recordedcall';
import type { Session } from '../lib/session';
import { jsonTokens } from '../lib/jsonhl';
import { MessageCard } from './Message';
import { RecordedPromptInfo, RecordedReply, REPLY_HEADING } from './RecordedCall';
import { Breakable, DOCS, DocRef, fmtBytes, ruleOf } from './common';

interface Props {
  chat: Report | null;
  desk: Report | null;
  rules: Rules | null;
  palette: Map<string, string>;
  /** The scene's DeskLLM adapter (`desk_llm.adapter`). */
  adapter: string;
  /** Writes an adapter into the scene (without a session: the desk view's adapter select). */
  setAdapter: (a: string) => void;
  /** The chat body's provider (the picked model's), null when none is shown. */
  provider: 'openai' | 'anthropic' | null;
  /** The open scene: the desk body follows the picked model and previews adapters without
   *  editing the scene, the chat body shows on demand, unused families fold, the scene's name,
   *  description and import lists show. Without it (a bare board) the desk body is the scene's. */
  session?: Session;
  /** Shows another view (a run-only scene's pointer to the Run view). */
  onView?: (v: 'run') => void;
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
  // The request has one such message, after the history: searched from the end, a keystroke on a
  // scene of thousands of messages does not visit them all.
  const messages = report?.messages ?? [];
  let m: (typeof messages)[number] | undefined;
  for (let i = messages.length - 1; i >= 0 && !m; i--) if (messages[i].segment === REFORMAT && messages[i].role === 'user') m = messages[i];
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
  return <LegendItems items={list.map(([k, p]) => [k, pieceColor(p, palette)] as const)} />;
}

type LegendEntry = readonly [key: string, color: string];

/** The legend's entries. Every answer of a live edit brings new reports, but the sources and
 *  their colours rarely change: the entries are diffed only when they did. */
class LegendItems extends Component<{ items: LegendEntry[] }> {
  shouldComponentUpdate({ items }: { items: LegendEntry[] }) {
    const old = this.props.items;
    return old.length !== items.length || items.some(([k, c], i) => old[i][0] !== k || old[i][1] !== c);
  }
  render({ items }: { items: LegendEntry[] }) {
    const item = ([k, color]: LegendEntry) => (
      <span class="legend-item" key={k}>
        <span class="swatch" style={{ background: color }} />
        {sourceLabel(k)}
      </span>
    );
    const SHOWN = 12;
    return (
      <section class="legend" aria-label="Piece sources">
        {items.slice(0, SHOWN).map(item)}
        {items.length > SHOWN && (
          <details>
            <summary>{items.length - SHOWN} more sources</summary>
            <div class="more-items">{items.slice(SHOWN).map(item)}</div>
          </details>
        )}
      </section>
    );
  }
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
        <PieceFigure key={i} color={pieceColor(p, palette)} label={sourceLabel(sourceKey(p))} figures={pieceFigures(p.tokens, rate)} />
      ))}
    </ul>
  );
}

interface PieceFigureProps {
  color: string;
  label: string;
  figures: string;
}

/** One piece's row: a keystroke changes the figures of the piece it edited, not the others'. */
class PieceFigure extends Component<PieceFigureProps> {
  shouldComponentUpdate(n: PieceFigureProps) {
    const p = this.props;
    return p.color !== n.color || p.label !== n.label || p.figures !== n.figures;
  }
  render({ color, label, figures }: PieceFigureProps) {
    return (
      <li data-testid="piece-figure">
        <span class="swatch" style={{ background: color }} />
        {label} <span class="muted-figure">{figures}</span>
      </li>
    );
  }
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

interface SegLineProps {
  line: (Run & { start: boolean })[];
  /** The selected tool when this line has one of its pieces, else null. */
  selectedTool: string | null;
  palette: Map<string, string>;
  rate?: number;
  onOpen: (p: SegmentReport['pieces'][number]) => void;
}

/** Whether two runs draw the same: a piece's offsets move when an earlier piece is edited, its
 *  source, size and figures do not. */
function sameRun(a: SegLineProps['line'][number], b: SegLineProps['line'][number]): boolean {
  if (a.text !== b.text || a.start !== b.start) return false;
  if (!a.piece || !b.piece) return a.piece === b.piece;
  return (
    a.piece.source === b.piece.source &&
    a.piece.tool === b.piece.tool &&
    a.piece.index === b.piece.index &&
    a.piece.tokens === b.piece.tokens &&
    a.piece.range[1] - a.piece.range[0] === b.piece.range[1] - b.piece.range[0]
  );
}

/**
 * One line of a segment's text. A segment can hold hundreds of pieces (every tool injected in one
 * place): a keystroke in one tool's template re-draws that tool's lines, not the others'.
 */
class SegLine extends Component<SegLineProps> {
  shouldComponentUpdate(n: SegLineProps) {
    const p = this.props;
    return (
      p.selectedTool !== n.selectedTool ||
      p.palette !== n.palette ||
      p.rate !== n.rate ||
      p.line.length !== n.line.length ||
      p.line.some((r, i) => !sameRun(r, n.line[i]))
    );
  }
  render({ line, selectedTool, palette, rate }: SegLineProps) {
    return (
      <div class="seg-line">
        {line.map((r, i) => {
          const piece = r.piece;
          if (!piece)
            return (
              <span key={i} class="seam">
                {r.text}
              </span>
            );
          const label = sourceLabel(sourceKey(piece));
          const bytes = piece.range[1] - piece.range[0];
          return (
            // biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut; the keyboard reaches the same tool or prompt from the Tools and Prompts lists, and a tab stop per piece would bury the rest of the page
            // biome-ignore lint/a11y/noStaticElementInteractions: see above
            <span
              key={i}
              class={`piece${r.start ? ' piece-start' : ''}${piece.tool && piece.tool === selectedTool ? ' sel' : ''}`}
              data-source={r.start ? label : undefined}
              style={{ background: pieceColor(piece, palette) }}
              title={`${label} · ${fmtBytes(bytes)}${piece.tokens !== undefined ? ` · ${pieceFigures(piece.tokens, rate)}` : ''} · click to ${piece.tool ? 'select the tool' : 'edit the prompt'}`}
              // Read when clicked: a line not drawn again still gets each render's props, while its
              // element keeps the handler of the render that drew it.
              onClick={() => this.props.onOpen(piece)}
            >
              {r.text}
            </span>
          );
        })}
      </div>
    );
  }
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
            <SegLine
              key={l}
              line={line}
              selectedTool={selectedTool && line.some((r) => r.piece?.tool === selectedTool) ? selectedTool : null}
              palette={palette}
              rate={rate}
              onOpen={open}
            />
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
export function CallCostNote({ cost, family, pending = false }: { cost: InputCost; family: Llm; pending?: boolean }) {
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
      // Between a keystroke's answer and its pricing (a large scene): the figure is the last
      // text's. Dimmed only if that lasts (style.css), so typing does not flicker.
      aria-busy={pending ? 'true' : undefined}
      title={`${pending ? 'Pricing the edit: this figure is the text before it. ' : ''}This call's input on ${cost.model} as a first call, nothing cached: ${cost.content_tokens} tokens of ${what} and ${cost.definition_tokens} of tool definitions, at $${cost.usd_per_mtok_input ?? 0} per million input tokens`}
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

/** Where a chat message came from, as the board's cards say it: the user message is the
 *  reformat prompt's text, or the user's input sent as is when that renders empty. */
export function messageSource(m: { role: string; segment?: string }, report: Report): string {
  if (m.segment === REFORMAT && m.role === 'user') {
    const seg = report.segments.find((x) => x.name === REFORMAT);
    return seg && seg.text !== ''
      ? `${REFORMAT} (in place of the user's input)`
      : "context.user_input.input (the user's input, sent as is)";
  }
  return m.segment ?? '';
}

function Messages({ report }: { report: Report }) {
  const msgs = report.messages ?? [];
  return (
    <div class="messages" data-testid="chat-message-list">
      {msgs.slice(0, MAX_SHOWN).map((m, i) => (
        <MessageCard key={i} m={m} source={messageSource(m, report)} figures={m.tokens !== undefined ? `${m.tokens} tokens` : undefined} />
      ))}
      {msgs.length > MAX_SHOWN && <div class="muted">… {msgs.length - MAX_SHOWN} more messages not shown</div>}
      {!msgs.length && <div class="empty-seg">no messages</div>}
    </div>
  );
}

const BODY_SHOWN = 200000;

// One line of the body: laid out again only when its text changed (a keystroke changes a few
// lines of a large body).
class BodyLine extends Component<{ text: string }> {
  shouldComponentUpdate(b: { text: string }) {
    return b.text !== this.props.text;
  }
  render() {
    return (
      <div class="body-line">
        {jsonTokens(this.props.text).map((t, i) =>
          t.kind ? (
            <span key={i} class={`j-${t.kind}`}>
              {t.text}
            </span>
          ) : (
            t.text
          ),
        )}
      </div>
    );
  }
}

/** A request body: its JSON coloured (keys, strings, numbers, literals), with a copy button that
 *  copies the whole body (also past what is shown of a very large one). */
export function Body({ value, label = 'request body' }: { value: unknown; label?: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  if (value === undefined || value === null) return <div class="empty-seg">no request body</div>;
  const s = JSON.stringify(value, null, 2);
  const shown = s.length > BODY_SHOWN ? `${s.slice(0, BODY_SHOWN)}\n… (truncated for display; Copy copies all of it)` : s;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(s);
      setCopied('Copied');
    } catch {
      setCopied('Copy failed: the clipboard is not available here');
    }
    setTimeout(() => setCopied(null), 2500);
  };
  return (
    <div class="body-wrap">
      <div class="body-bar">
        <button type="button" onClick={copy} data-testid="copy-body" aria-label={`Copy the ${label}`}>
          Copy
        </button>
        <span class="muted" role="status">
          {copied ?? ''}
        </span>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region: a keyboard user focuses it to scroll a long body with the arrow keys */}
      <section class="request-body" data-testid="request-body" aria-label={label} tabIndex={0}>
        {textLines(shown).map((l, i) => (
          <BodyLine key={i} text={l} />
        ))}
      </section>
    </div>
  );
}

/** The model a chat body names: the picked model's API name in place of the provider's default,
 *  when the scene records no model of its own (a rebuilt imported call keeps the recorded one). */
export function chatBodyFor(body: unknown, picked: ModelInfo | null, recordedModel: boolean): unknown {
  if (!picked || recordedModel || !body || typeof body !== 'object' || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string') return body;
  return Object.fromEntries(Object.entries(b).map(([k, v]) => [k, k === 'model' ? apiName(picked) : v]));
}

/** The desk body of an adapter other than the scene's (or naming another model): rendered from a
 *  copy of the scene's text, a moment after the last edit; the live document is not touched. */
function usePreviewBody(
  session: Session | undefined,
  choice: DeskBody | null,
  on: boolean,
): { body: unknown; error: string | null } | null {
  const [out, setOut] = useState<{ key: string; body: unknown; error: string | null } | null>(null);
  const key = choice && !choice.scenes && on && session ? `${choice.adapter}|${choice.model}|${session.text}` : '';
  useEffect(() => {
    if (!key || !session || !choice) return;
    let gone = false;
    const id = setTimeout(async () => {
      try {
        const r = await session.api.render(withDesk(session.text, choice.adapter, choice.model), {
          llm: 'desk',
          tokens: false,
          baseDir: session.baseDir,
        });
        if (!gone) setOut({ key, body: r.request, error: null });
      } catch (e) {
        if (!gone)
          setOut({ key, body: undefined, error: e instanceof Error ? e.message : String((e as { message?: string })?.message ?? e) });
      }
    }, 150);
    return () => {
      gone = true;
      clearTimeout(id);
    };
  }, [key]);
  if (!key) return null;
  return out && out.key.split('|').slice(0, 2).join('|') === key.split('|').slice(0, 2).join('|') ? out : { body: undefined, error: null };
}

const LEAD_SHOWN = 280;

/** The scene's name and description; an imported scene's Origins, carried and Not-mapped lists
 *  folded under their headings; a recorded call's prompt template and a pointer to its reply; a
 *  run-only scene's pointer to the Run view. */
export function SceneInfo({
  session,
  onView,
  onShowReply,
}: {
  session: Session;
  onView?: (v: 'run') => void;
  /** Shows the recorded reply (the chat Messages view, scrolled to it). */
  onShowReply?: () => void;
}) {
  const about = useMemo(() => sceneAbout(session.scene), [session.scene, session.path, session.version]);
  const recorded = useMemo(
    () => ({ prompt: recordedPrompt(session.scene) !== null, reply: recordedReply(session.scene).length }),
    [session.scene, session.version],
  );
  const onlyRun = runOnly(session.scene);
  if (!about.name && !about.lead && !about.lists.length && !onlyRun && !recorded.prompt && !recorded.reply) return null;
  return (
    <section class="scene-info" aria-label="About this scene" data-testid="scene-info">
      {about.name && (
        <h2 class="scene-name" data-testid="scene-name">
          {about.name}
        </h2>
      )}
      {about.lead &&
        (about.lead.length <= LEAD_SHOWN ? (
          <p class="scene-desc" data-testid="scene-desc">
            {about.lead}
          </p>
        ) : (
          // A long description folds after its first words, so the board stays in view.
          <details class="scene-desc-long">
            <summary>{about.lead.slice(0, LEAD_SHOWN)}…</summary>
            <p class="scene-desc" data-testid="scene-desc">
              {about.lead}
            </p>
          </details>
        ))}
      {about.lists.map((l) => (
        <details key={l.title} class="scene-list" data-testid={`scene-list-${l.title.split(/\s/)[0].toLowerCase()}`}>
          <summary>
            {l.title} ({l.items.length ? l.items.length : l.note.replace(/\.$/, '') || 'none'})
          </summary>
          <ul>
            {l.items.map((it, i) => (
              <li key={i}>{it}</li>
            ))}
          </ul>
        </details>
      ))}
      <RecordedPromptInfo session={session} />
      {recorded.reply > 0 && (
        <p class="reply-pointer" data-testid="reply-pointer">
          The reply the provider returned ({recorded.reply} message{recorded.reply === 1 ? '' : 's'}) is recorded with this call: the
          Messages view shows it after the messages.{' '}
          {onShowReply && (
            <button type="button" onClick={onShowReply} data-testid="show-reply">
              Show the reply
            </button>
          )}
        </p>
      )}
      {onlyRun && (
        <p class="run-only" data-testid="run-only">
          This scene is a recorded tool-call loop (<code>run</code>) and nothing else: the board has nothing to render. The Run view replays
          it round by round.{' '}
          {onView && (
            <button type="button" onClick={() => onView('run')} data-testid="to-run">
              Open the Run view
            </button>
          )}
        </p>
      )}
    </section>
  );
}

export function Segments(p: Props) {
  const [chatView, setChatView] = useState<'segments' | 'messages'>('segments');
  // "Show the reply" (the scene details): once the Messages view shows it, the reply takes the focus.
  // A layout effect, so the frame that first draws the reply already has it scrolled to and focused.
  const [toReply, setToReply] = useState(false);
  useLayoutEffect(() => {
    if (!toReply || chatView !== 'messages') return;
    const h = document.getElementById(REPLY_HEADING);
    const section = h?.closest('section');
    if (!h || !section) return;
    // Below the sources' legend, which stays at the top of the board as it scrolls.
    const legend = section.closest('.segments')?.querySelector('.legend');
    section.style.scrollMarginTop = `${(legend?.getBoundingClientRect().height ?? 0) + 8}px`;
    section.scrollIntoView({ block: 'start' });
    h.focus({ preventScroll: true });
    setToReply(false);
  });
  const [deskView, setDeskView] = useState<'segments' | 'request'>('segments');
  const session = p.session;
  const picked = session?.modelInfo ?? null;
  // The desk body follows the picked model (or a previewed adapter); without a session, the scene's.
  const desk = session ? deskBody(sceneDesk(session.scene), picked, session.previewAdapter) : null;
  const preview = usePreviewBody(session, desk, deskView === 'request');
  const recordedModel = (() => {
    const r = session?.scene.get('recorded');
    return !!r && typeof r === 'object' && 'get' in r && typeof (r as { get: (k: string) => unknown }).get('model') === 'string';
  })();
  const chatHead = (
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
    </div>
  );
  const deskHead = (
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
    </div>
  );
  // The chat body: for the picked model's provider, shown on demand (building it costs a render).
  const chatBodyBar = session && (
    <div class="body-choice" data-testid="chat-body-choice">
      <label class="check">
        <input
          type="checkbox"
          checked={session.chatBody}
          data-testid="chat-body"
          onChange={(e) => session.setChatBody((e.target as HTMLInputElement).checked)}
        />{' '}
        request body
      </label>{' '}
      <span class="muted">
        {!picked
          ? 'for OpenAI chat completions (no model picked)'
          : chatProviderOf(picked)
            ? `for ${picked.id}, the model the figures are priced for (the header's Model)`
            : `none for ${picked.id}: the chat body is built for OpenAI and Anthropic models; pick one of theirs in the header's Model`}
      </span>
    </div>
  );
  const chatBody = (r: Report) => {
    if (!session) return r.request !== undefined ? <Body value={r.request} label="chat request body" /> : null;
    if (!session.chatBody || !session.provider) return null;
    // Until the reports answer for the picked model's provider, the body is another provider's.
    if (session.reportsProvider !== session.provider || r.request === undefined)
      return <div class="empty-seg">building the body for {picked?.id}…</div>;
    return (
      <>
        <p class="muted body-note" data-testid="chat-body-note">
          {recordedModel
            ? `The recorded call's body, rebuilt: it names the recorded model; the figures are for ${picked?.id ?? 'no model'}.`
            : `"model" is ${picked ? apiName(picked) : 'the provider default'}: the scene names no chat model, so the body names the one the figures are for.`}
        </p>
        <Body value={chatBodyFor(r.request, picked, recordedModel)} label="chat request body" />
      </>
    );
  };
  const deskBodyView = (r: Report) => {
    if (!session || !desk) {
      return (
        <>
          <label class="body-choice">
            Adapter{' '}
            <select aria-label="Desk adapter" value={p.adapter} onChange={(e) => p.setAdapter((e.target as HTMLSelectElement).value)}>
              {adapters().map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          <Body value={r.request} label="desk request body" />
        </>
      );
    }
    const scene = sceneDesk(session.scene);
    const body = desk.scenes ? r.request : preview?.body;
    return (
      <>
        <div class="body-choice" data-testid="desk-body-choice">
          <label>
            Adapter{' '}
            <select
              aria-label="Desk adapter to preview"
              data-testid="desk-adapter"
              value={desk.adapter}
              onChange={(e) => {
                const a = (e.target as HTMLSelectElement).value;
                session.setPreviewAdapter(a === deskBody(scene, picked, null).adapter ? null : a);
              }}
            >
              {adapters().map((a) => (
                <option key={a} value={a}>
                  {a}
                  {a === scene.adapter ? ' (the scene’s)' : ''}
                </option>
              ))}
            </select>
          </label>{' '}
          <span class="muted" data-testid="desk-body-note">
            {desk.priced
              ? `naming ${desk.model}, the model the figures are priced for (the header's Model).`
              : picked
                ? `naming ${desk.model ?? 'its default model'}; ${desk.adapter} does not send to ${picked.provider}, so the figures (${picked.id}) are not for this body.`
                : `naming ${desk.model ?? 'its default model'}.`}{' '}
            {desk.scenes
              ? 'The scene’s own adapter and model.'
              : `A preview: the scene uses ${scene.adapter}${scene.model ? ` with ${scene.model}` : ''}.`}
          </span>{' '}
          {!desk.scenes && (
            <button
              type="button"
              data-testid="desk-write"
              title="Write this adapter and model into the scene's desk_llm (an edit: Save keeps it)"
              onClick={() => session.writeDeskPreview(desk.adapter, desk.model)}
            >
              Use in the scene
            </button>
          )}
        </div>
        {preview?.error ? (
          <div class="error-line">The preview does not render: {preview.error}</div>
        ) : body === undefined && !desk.scenes ? (
          <div class="empty-seg">rendering the preview…</div>
        ) : (
          <Body value={body} label="desk request body" />
        )}
      </>
    );
  };
  const fam = (family: Llm, r: Report | null, cost: InputCost | null) => {
    const content = (
      <>
        {cost && <CallCostNote cost={cost} family={family} pending={session?.costsPending ?? false} />}
        {family === 'chat' && chatView === 'messages' && chatBodyBar}
        {!r ? (
          <div class="empty-seg">rendering…</div>
        ) : family === 'chat' && chatView === 'messages' ? (
          <>
            <Messages report={r} />
            {session && <RecordedReply session={session} />}
            {chatBody(r)}
          </>
        ) : family === 'desk' && deskView === 'request' ? (
          deskBodyView(r)
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
      </>
    );
    const name = family === 'chat' ? 'ChatLLM' : 'DeskLLM';
    const used = !session || familyUsed(session.scene, family);
    if (!used)
      return (
        <section class="family family-unused" aria-label={`${family} segments`} data-testid={`family-unused-${family}`}>
          <details>
            <summary>
              <b>{name}</b>: not used by this scene{' '}
              <span class="muted">
                ({family === 'chat' ? 'no chat_llm, no input or messages,' : 'no desk_llm,'} and no tool declares a {family} position); what
                it would render with the defaults
              </span>
            </summary>
            <div class="family-head">{family === 'chat' ? chatHead : deskHead}</div>
            {content}
          </details>
        </section>
      );
    return (
      <section class="family" aria-label={`${family} segments`}>
        <div class="family-head">
          <h3>{name}</h3>
          {family === 'chat' ? chatHead : deskHead}
        </div>
        {content}
      </section>
    );
  };
  return (
    <div class="segments">
      {session && (
        <SceneInfo
          session={session}
          onView={p.onView}
          onShowReply={() => {
            setChatView('messages');
            setToReply(true);
          }}
        />
      )}
      <Legend reports={[p.chat, p.desk]} palette={p.palette} />
      <div class="families">
        {fam('chat', p.chat, costOf(p.chat, p.model ?? null))}
        {fam('desk', p.desk, costOf(p.desk, p.model ?? null))}
      </div>
    </div>
  );
}
