import { useEffect, useRef, useState } from 'preact/hooks';
import { dialogs } from '../api';
import { errorText } from '../api/api';
import type { ModelCost, RunIteration, RunMessage, RunReport, RunResponse, WhatIfPrice, ZeroRead } from '../api/types';
import { fmtUsd, prefixSentence, prefixShares } from '../lib/costs';
import { zeroReadsOf } from '../lib/money';
import { FiguresNote, WhatIfTable, ZeroReadNote } from './Money';
import { dirOf, typedPath } from '../lib/paths';
import type { Session } from '../lib/session';
import { MessageCard, ToolCallList, toolCalls } from './Message';
// The example run, compiled into the page from the fixture itself (one source): `run` takes scene
// text, so the example needs no file at run time and works whatever folder the app started in.
import exampleRunText from '../../../fixtures/run/cd-round-2.scene.json?raw';
import cacheRunText from '../../../fixtures/run/stable-prefix.scene.json?raw';

export const EXAMPLE_RUN = { name: 'cd-round-2.scene.json', text: exampleRunText };
/** A run whose system message is long enough for a breakpoint cache: later rounds read it back. */
export const CACHE_RUN = { name: 'stable-prefix.scene.json', text: cacheRunText };

// The run report as `prompt-inspector run --format json` prints it, in the core's own types.
export type RunMsg = RunMessage;
export type RunIter = RunIteration;
export type FullRunReport = RunReport;

function contentText(c: unknown): string {
  return typeof c === 'string' ? c : JSON.stringify(c, null, 2);
}

export type TextRun = { text: string; injected: boolean };

/**
 * Runs of `text` with `blocks` marked where the loop put them: appended in order at the end
 * (each after a blank line), so they are looked for from the end backwards. A block that is not
 * there is skipped (nothing is marked for it).
 */
export function markBlocks(text: string, blocks: string[]): TextRun[] {
  const found: [number, number][] = [];
  let end = text.length;
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b];
    if (!block || block.length > end) continue;
    const k = text.lastIndexOf(block, end - block.length);
    if (k < 0) continue;
    found.unshift([k, k + block.length]);
    end = k;
  }
  const out: TextRun[] = [];
  let at = 0;
  for (const [s, e] of found) {
    if (s > at) out.push({ text: text.slice(at, s), injected: false });
    out.push({ text: text.slice(s, e), injected: true });
    at = e;
  }
  if (at < text.length) out.push({ text: text.slice(at), injected: false });
  return out;
}

export { toolCalls, type ToolCallView } from './Message';

/** One request the loop sends: the rounds' requests, then the request it would send next. */
export interface RequestView {
  /** 1-based, as the rounds are numbered. */
  n: number;
  messages: RunMsg[];
  /** How many leading messages are the previous request again (the loop only appends). */
  shared: number;
  /** The blocks appended after the previous round; they land inside the last message. */
  carried: string[];
  /** Whether this is the request after the recording ends (no answer recorded). */
  next: boolean;
}

/** Every request of the report, in order: the rounds' requests, then the one the loop would send next. */
export function requestViews(r: FullRunReport): RequestView[] {
  const sizes = r.iterations.map((it) => it.request_messages);
  if (r.next_request_messages != null) sizes.push(r.next_request_messages);
  // Each request is the first messages of `r.messages` (the loop only appends), so a request
  // repeats the whole previous one.
  return sizes.map((size, k) => ({
    n: k + 1,
    messages: r.messages.slice(0, size),
    shared: k > 0 ? sizes[k - 1] : 0,
    carried: k > 0 ? r.iterations[k - 1].injected : [],
    next: k === r.iterations.length,
  }));
}

/** Message `j` of a request as runs: the carried blocks are marked in the last message only. */
export function messageRuns(v: RequestView, j: number): TextRun[] {
  const text = contentText(v.messages[j].content);
  if (j !== v.messages.length - 1 || !v.carried.length) return text ? [{ text, injected: false }] : [];
  return markBlocks(text, v.carried);
}

/** The tool results of round `i` (0-based): what follows its assistant turn in the next request. */
export function toolResults(r: FullRunReport, i: number): RunMsg[] {
  const next =
    i + 1 < r.iterations.length
      ? r.iterations[i + 1].request_messages
      : i + 1 === r.iterations.length
        ? r.next_request_messages
        : undefined;
  if (next == null) return [];
  return r.messages.slice(r.iterations[i].request_messages + 1, next);
}

/** The round (0-based) whose answer ends the loop: the first without tool calls. */
export function finalRound(r: FullRunReport): number {
  return r.iterations.findIndex((it) => !it.tools.length && !toolCalls(it.assistant).length);
}

function dir(d: string): string {
  return d || '(empty)';
}

/** What the dynamic-context injector did after a round, in words. */
export function dynamicContextText(it: RunIter, prevCwd: string): string {
  switch (it.dynamic_context) {
    case 'baseline':
      return it.cwd !== prevCwd
        ? `Not added: the directory changed from ${dir(prevCwd)} to ${dir(it.cwd)} in this round, but the injector's first look (again whenever the directory it last saw is empty) only records the starting directory, so this change is never reported.`
        : `Not added: the injector's first look (again whenever the directory it last saw is empty) only records the starting directory, ${dir(it.cwd)}.`;
    case 'unchanged':
      return `Not added: the directory is still ${dir(it.cwd)}, as after the previous round.`;
    case 'changed':
      return `Added: the directory changed from ${dir(prevCwd)} to ${dir(it.cwd)}. The system message still names the old one, so the model is told here.`;
    default:
      return '';
  }
}

function blockKind(b: string): string {
  if (b.startsWith('<dynamic-context>')) return 'Dynamic context';
  if (b.startsWith('<system-reminder>')) return 'System reminder';
  return 'Block';
}

/** A tool result as the tool returned it: without the blocks the loop appended to it. */
function resultText(m: RunMsg, appended: string[]): string {
  return markBlocks(contentText(m.content), appended)
    .filter((r) => !r.injected)
    .map((r) => r.text)
    .join('')
    .trimEnd();
}

function firstLine(s: string): string {
  const line = s.split('\n')[0];
  return line.length < s.length || line.length > 90 ? `${line.slice(0, 90)} …` : line;
}

function who(m: RunMsg): string {
  return `${m.role}${m.name ? ` ${m.name}` : ''}${m.tool_call_id ? ` (${m.tool_call_id})` : ''}`;
}

function Message({ v, j }: { v: RequestView; j: number }) {
  const m = v.messages[j];
  const runs = messageRuns(v, j);
  const marked = runs.filter((r) => r.injected).length;
  return (
    <MessageCard
      as="li"
      value={j + 1}
      m={m}
      extra={
        <>
          {m.cache_hint && <span class="muted">cache hint: {m.cache_hint}</span>}
          {marked > 0 && (
            <span class="run-carried-note">
              ends with {marked} block{marked > 1 ? 's' : ''} appended after round {v.n - 1}
            </span>
          )}
        </>
      }
      body={
        runs.length > 0 ? (
          <pre>
            {runs.map((r, k) =>
              r.injected ? (
                <mark key={k} class="injected run-mark" title={`${blockKind(r.text)}, appended after round ${v.n - 1}`}>
                  {r.text}
                </mark>
              ) : // A mark is laid out as a block (it ends its line), so the newline after it is dropped.
              k > 0 && runs[k - 1].injected && r.text.startsWith('\n') ? (
                r.text.slice(1)
              ) : (
                r.text
              ),
            )}
          </pre>
        ) : toolCalls(m).length ? null : (
          <span class="empty-seg">(empty)</span>
        )
      }
    />
  );
}

/** The messages a request repeats from the previous one, listed only once opened: a long run
 * repeats thousands of them in every round. */
function SharedMessages({ v }: { v: RequestView }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="run-shared" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        Messages 1–{v.shared}: request {v.n - 1} again, unchanged
      </summary>
      {open && (
        <ol class="run-oneliners">
          {v.messages.slice(0, v.shared).map((m, j) => {
            const calls = toolCalls(m);
            const shown =
              !contentText(m.content) && calls.length
                ? `(calls ${calls.map((c) => c.name).join(', ')})`
                : firstLine(contentText(m.content));
            return (
              <li key={j}>
                <b>{who(m)}</b> {shown}
              </li>
            );
          })}
        </ol>
      )}
    </details>
  );
}

function RequestMessages({ v }: { v: RequestView }) {
  return (
    <>
      {v.shared > 0 && <SharedMessages v={v} />}
      <ol
        class="messages run-msgs"
        start={v.shared + 1}
        aria-label={v.shared > 0 ? `messages new in request ${v.n}` : `messages of request ${v.n}`}
      >
        {v.messages.slice(v.shared).map((_, k) => (
          <Message key={v.shared + k} v={v} j={v.shared + k} />
        ))}
      </ol>
    </>
  );
}

/** The picked model's bill for the run (the report prices the rounds for the models asked for). */
export function modelCostOf(r: FullRunReport, model: string | null): ModelCost | null {
  return r.models?.find((m) => m.model === model) ?? r.models?.[0] ?? null;
}

/**
 * A request's input in tokens on the picked model, as a bar: read from the prompt cache, written
 * to it, and sent uncached, with what the request costs; a sentence says the same to a screen
 * reader. Under it, what repeats the previous request (all a prompt cache can reuse).
 */
function CacheBar({
  c,
  n,
  cost,
  zero,
}: {
  c: RunIteration['cache'];
  n: number;
  cost: { model: string; call: ModelCost['calls'][number] } | null;
  /** Why this request reads nothing on the picked model, when it does not. */
  zero?: ZeroRead;
}) {
  const first = c.common_prefix_bytes == null;
  const shared = first
    ? 'The first request: nothing to reuse yet.'
    : `Shares ${c.common_prefix_tokens} of its ${c.request_tokens} tokens (${c.common_prefix_bytes} of ${c.request_bytes} bytes) with request ${n - 1}${c.system_identical === false ? '; the system message CHANGED' : ''}.`;
  if (!cost)
    return (
      <p class="muted run-cache-note" data-testid={`prefix-${n}`}>
        {shared}
      </p>
    );
  const s = prefixShares(cost.call);
  const sentence = prefixSentence(s, n, cost.model);
  const part = (cls: string, pct: number) => (pct > 0 ? <div class={`part ${cls}`} style={{ width: `${pct}%` }} /> : null);
  return (
    <div class="prefix" data-testid={`prefix-${n}`}>
      <div class="prefix-bar tokens" role="img" aria-label={sentence} title={sentence} data-testid={`prefix-bar-${n}`}>
        {part('read', s.pct.read)}
        {part('written', s.pct.written)}
        {part('uncached', s.pct.uncached)}
      </div>
      <p class="prefix-figures" aria-hidden="true" data-testid={`prefix-figures-${n}`}>
        <span class="share-key read" />
        {` read ${s.read} · `}
        <span class="share-key written" />
        {` written ${s.written} · `}
        <span class="share-key uncached" />
        {` uncached ${s.uncached} tokens · `}
        <b>{fmtUsd(s.costUsd)}</b>
        <span class="muted-figure">{` (${fmtUsd(s.uncachedCostUsd)} uncached)`}</span>
      </p>
      <p class="muted run-cache-note">{shared}</p>
      {zero && <ZeroReadNote z={zero} testid={`zero-read-${n}`} />}
    </div>
  );
}

function AfterRound({ r, i }: { r: FullRunReport; i: number }) {
  const it = r.iterations[i];
  const prevCwd = i > 0 ? r.iterations[i - 1].cwd : r.initial_cwd;
  const where =
    it.appended_to === 'tool'
      ? 'the last tool result'
      : it.appended_to
        ? `the newest message (role ${it.appended_to}): the round recorded no tool results`
        : 'nothing (there was no message)';
  const nextLabel = i + 1 < r.iterations.length ? `request ${i + 2}` : 'the request the loop would send next';
  return (
    <section class="run-after" aria-labelledby={`run-after-${i + 1}`}>
      <h4 id={`run-after-${i + 1}`}>Appended after round {i + 1}</h4>
      <p>
        <b>Dynamic context</b> (the facts that changed): {dynamicContextText(it, prevCwd)}
      </p>
      <p>
        {it.injected.length ? (
          <>
            {it.injected.length} block{it.injected.length > 1 ? 's' : ''} appended to {where}, each after a blank line. The model first sees{' '}
            {it.injected.length > 1 ? 'them' : 'it'} in <a href={`#run-request-${i + 2}`}>{nextLabel}</a>, marked there.
          </>
        ) : (
          'Nothing appended.'
        )}
      </p>
      <ul class="run-blocks">
        {it.injected.map((b, k) => (
          <li key={k}>
            <span class="run-block-kind">{blockKind(b)}</span>
            <pre class="run-block">{b}</pre>
          </li>
        ))}
      </ul>
    </section>
  );
}

function RoundView({
  r,
  v,
  i,
  final,
  model,
  zero,
}: {
  r: FullRunReport;
  v: RequestView;
  i: number;
  final: boolean;
  model: ModelCost | null;
  zero?: ZeroRead;
}) {
  const it = r.iterations[i];
  const c = it.cache;
  const calls = toolCalls(it.assistant);
  const results = toolResults(r, i);
  const text = contentText(it.assistant.content);
  return (
    <section class="iteration" id={`run-request-${i + 1}`} aria-labelledby={`run-round-${i + 1}`} data-testid={`run-round-${i + 1}`}>
      <h3 id={`run-round-${i + 1}`}>
        Round {i + 1}{' '}
        <span class="muted">
          request of {it.request_messages} messages · {c.request_bytes} bytes · {c.request_tokens} tokens
        </span>
      </h3>
      <h4>Request {i + 1}</h4>
      <CacheBar c={c} n={i + 1} cost={model?.calls[i] ? { model: model.model, call: model.calls[i] } : null} zero={zero} />
      <RequestMessages v={v} />
      <h4>The model's answer</h4>
      {final ? (
        <section class="run-final" data-testid="final-answer" aria-label="final answer">
          <div class="run-final-head">Final answer (no tool calls: the loop ends here and nothing is appended)</div>
          <pre>{text || '(empty)'}</pre>
        </section>
      ) : (
        <div class="msg role-assistant run-answer">
          {text && <pre>{text}</pre>}
          {calls.length ? <ToolCallList calls={calls} /> : <span class="empty-seg">(no text, no tool calls)</span>}
        </div>
      )}
      {!final && (
        <>
          <h4>Tool results</h4>
          {results.length ? (
            <ul class="run-results">
              {results.map((m, k) => (
                <li key={k}>
                  <b>{who(m)}</b> {firstLine(resultText(m, k === results.length - 1 ? it.injected : [])) || '(empty)'}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No tool results were recorded for this round.</p>
          )}
          <AfterRound r={r} i={i} />
        </>
      )}
    </section>
  );
}

export function RunReportView({
  report,
  source,
  model = null,
  zeroReads = [],
  whatIf = [],
}: {
  report: RunReport;
  source: string;
  model?: string | null;
  /** The rounds that read nothing, per model, with their causes (the `run` operation's). */
  zeroReads?: ZeroRead[];
  /** The what-if prices (the `run` operation's). */
  whatIf?: WhatIfPrice[];
}) {
  const r = report;
  const cost = modelCostOf(r, model);
  const zeros = zeroReadsOf(zeroReads, cost?.model);
  const views = requestViews(r);
  const fin = finalRound(r);
  const next = r.next_request_messages != null ? views[views.length - 1] : null;
  return (
    <div class="run-report">
      <section class="run-summary" aria-labelledby="run-summary-h">
        <h2 id="run-summary-h">
          Run loop <span class="muted">{source}</span>
        </h2>
        <p>
          {r.iterations.length} round{r.iterations.length === 1 ? '' : 's'} replayed, starting in {dir(r.initial_cwd)}.{' '}
          {fin >= 0 ? (
            <>
              The model gives its final answer in <a href={`#run-request-${fin + 1}`}>round {fin + 1}</a>.
            </>
          ) : r.next_request_messages != null ? (
            <>
              The recording ends after a round with tool calls:{' '}
              <a href={`#run-request-${views.length}`}>the request the loop would send next</a> is shown at the end; the model's answer to
              it is not recorded.
            </>
          ) : (
            'No round was recorded.'
          )}
        </p>
        {r.ignored_iterations > 0 && (
          <p class="run-note" role="note">
            <b>
              {r.ignored_iterations} recorded round{r.ignored_iterations > 1 ? 's were' : ' was'} ignored:
            </b>{' '}
            {r.ignored_iterations > 1 ? 'they come' : 'it comes'} after the final answer, and the loop ends as soon as the model answers
            without tool calls.
          </p>
        )}
        {r.dropped_system_messages > 0 && (
          <p class="run-note" role="note">
            <b>
              {r.dropped_system_messages} system message{r.dropped_system_messages > 1 ? 's' : ''} of the history{' '}
              {r.dropped_system_messages > 1 ? 'were' : 'was'} dropped:
            </b>{' '}
            the loop sends its own system message instead.
          </p>
        )}
        <p>
          <b>System message:</b> built once from the parts{' '}
          {r.system.parts.length
            ? r.system.parts.map((p, k) => (
                <span key={p}>
                  {k > 0 && ', '}
                  <code>{p}</code>
                </span>
              ))
            : '(none)'}{' '}
          (sorted by key, joined with a newline)
          {r.system.skipped.length ? (
            <>
              ; empty parts skipped:{' '}
              {r.system.skipped.map((p, k) => (
                <span key={p}>
                  {k > 0 && ', '}
                  <code>{p}</code>
                </span>
              ))}
            </>
          ) : null}
          . It is marked cache hint <code>{r.system.cache_hint}</code> and never rebuilt, so every request starts with the same bytes;
          changes reach the model as blocks appended to the newest message.
        </p>
        <ul class="run-legend" aria-label="legend">
          <li class="muted">Legend:</li>
          <li>
            <mark class="injected run-mark">marked text</mark> a block the loop appended after the previous round (dynamic context, system
            reminder), shown where the model first sees it
          </li>
          <li>
            <span>
              a request's bar: its input tokens on {cost ? <b>{cost.model}</b> : 'the picked model'},{' '}
              <span class="share-key read" aria-hidden="true" /> read from the prompt cache,{' '}
              <span class="share-key written" aria-hidden="true" /> written to it, <span class="share-key uncached" aria-hidden="true" />{' '}
              sent uncached, and what the request costs (prices and cache rules: <code>docs/models.md</code>)
            </span>
          </li>
        </ul>
        {cost && (
          <p data-testid="run-total">
            On <b>{cost.model}</b> the run's input costs <b>{fmtUsd(cost.total.cost_usd)}</b>, against{' '}
            {fmtUsd(cost.total.uncached_cost_usd)} with no caching
            {cost.ttl ? ` (cache writes at the ${cost.ttl} TTL's price)` : ''}.{' '}
            {zeros.size ? (
              <span data-testid="run-zero-count">
                {zeros.size} of {r.iterations.length} requests read nothing from the cache; each says why under its bar.
              </span>
            ) : (
              <span data-testid="run-zero-count">Every request reads from the cache.</span>
            )}
          </p>
        )}
        {cost && <FiguresNote cost={cost} testid="run-figures" />}
        <WhatIfTable items={whatIf} model={cost?.model ?? null} testid="run-what-if" />
        <p class="muted">
          How the loop works: <code>docs/run-loop.md</code> in the Prompt Inspector repository.
        </p>
      </section>
      {r.iterations.map((_, i) => (
        <RoundView key={i} r={r} v={views[i]} i={i} final={i === fin} model={cost} zero={zeros.get(i)} />
      ))}
      {next && (
        <section class="iteration run-next" id={`run-request-${next.n}`} aria-labelledby="run-next-h" data-testid="run-next-request">
          <h3 id="run-next-h">
            The request the loop would send next <span class="muted">{next.messages.length} messages</span>
          </h3>
          <p class="muted">
            The recording ends after round {next.n - 1}, which called tools: this request carries the blocks appended after it; the model's
            answer to it is not recorded.
          </p>
          <RequestMessages v={next} />
        </section>
      )}
    </div>
  );
}

type Source = { kind: 'open' } | { kind: 'example' } | { kind: 'cache-example' } | { kind: 'file'; path: string };

export function RunView({ session }: { session: Session }) {
  const [report, setReport] = useState<RunResponse | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [path, setPath] = useState('');
  const hasRun = session.scene.has('run');
  const [source, setSource] = useState<Source>(hasRun ? { kind: 'open' } : { kind: 'example' });
  const baseDir = session.baseDir;
  // What ran last, run again when the picked model changes (a file's text is not kept elsewhere).
  const last = useRef<{ text: string; base: string | null; src: Source } | null>(null);
  const runText = async (text: string, base: string | null, src: Source) => {
    last.current = { text, base, src };
    setErr(null);
    try {
      setReport(await session.api.run(text, base, session.model ? [session.model] : []));
      setSource(src);
    } catch (e) {
      setReport(null);
      setErr(errorText(e));
    }
  };
  useEffect(() => {
    const l = last.current;
    if (hasRun) void runText(session.text, baseDir, { kind: 'open' });
    else if (l && (l.src.kind === 'file' || l.src.kind === 'cache-example')) void runText(l.text, l.base, l.src);
    else void runText(EXAMPLE_RUN.text, null, { kind: 'example' });
  }, [hasRun ? session.text : null, session.model]);
  const runFile = async () => {
    const typed = path.trim();
    if (!typed) {
      setErr(baseDir ? `Type the path of a run scene (absolute, or relative to ${baseDir}).` : 'Type the absolute path of a run scene.');
      return;
    }
    // A relative path is taken from the open scene's folder, as in every path box of the app.
    const t = typedPath(typed, baseDir);
    if ('error' in t) {
      setErr(t.error);
      return;
    }
    let full = t.path;
    try {
      let r: { text: string };
      try {
        r = await session.api.open(full);
      } catch (e) {
        // In the app, a typed path not chosen yet opens once the person picks it in the Open
        // dialog, which starts there (as the toolbar's Open does).
        const pick = (e as { code?: string }).code === 'path_not_chosen' ? (await dialogs()).openDialog : undefined;
        const picked = pick ? await pick(full) : null;
        if (!picked) throw e;
        full = picked;
        r = await session.api.open(full);
      }
      await runText(r.text, dirOf(full), { kind: 'file', path: full });
    } catch (e) {
      setReport(null);
      setErr(errorText(e));
    }
  };
  const label =
    source.kind === 'open'
      ? `of the open scene${session.path ? ` (${session.path})` : ''}`
      : source.kind === 'example'
        ? `of the built-in example (${EXAMPLE_RUN.name}: the directory changes in round 2)`
        : source.kind === 'cache-example'
          ? `of the built-in example (${CACHE_RUN.name}: a system message long enough to be read from the cache)`
          : `of ${source.path}`;
  return (
    <main class="page run-view">
      <div class="bar">
        {hasRun ? (
          <span>
            The open scene has a <code>run</code> loop: it is replayed below. Or run another file:
          </span>
        ) : (
          <span class="muted">
            The open scene has no <code>run</code> loop. Run the built-in example, or a run scene file (it does not replace the open scene):
          </span>
        )}
      </div>
      <div class="bar">
        <button
          type="button"
          onClick={() => {
            setPath('');
            void runText(EXAMPLE_RUN.text, null, { kind: 'example' });
          }}
          data-testid="run-example"
        >
          Run the example
        </button>
        <button
          type="button"
          onClick={() => {
            setPath('');
            void runText(CACHE_RUN.text, null, { kind: 'cache-example' });
          }}
          data-testid="run-example-cache"
        >
          Run the cache example
        </button>
        {hasRun && (
          <button type="button" onClick={() => void runText(session.text, baseDir, { kind: 'open' })}>
            Run the open scene
          </button>
        )}
        <input
          class="path"
          value={path}
          onInput={(e) => setPath((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void runFile();
          }}
          aria-label="Run scene path"
          data-testid="run-path"
          placeholder={baseDir ? `run scene, absolute or relative to ${baseDir}` : 'absolute path of a run scene'}
          title={
            baseDir
              ? `A relative path is taken from the open scene's folder, ${baseDir}`
              : 'The open scene has no folder: type an absolute path'
          }
        />
        <button type="button" onClick={() => void runFile()} data-testid="run-file">
          Run this file
        </button>
      </div>
      {err && (
        <div class="error-box" role="alert" data-testid="run-error">
          {err}
        </div>
      )}
      {!report && !err && <div class="empty-seg">No run yet.</div>}
      {report && !err && (
        <RunReportView report={report.report} source={label} model={session.model} zeroReads={report.zero_reads} whatIf={report.what_if} />
      )}
    </main>
  );
}
