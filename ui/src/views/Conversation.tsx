// The Conversation view: a folder of numbered scenes, one per call (what `prompt-inspector cache`
// reads), as the `conversation` operation prices it: each call's bar in proportion to its size,
// the calls by cost, a per-1,000-calls figure, every call that reads nothing explained, the
// what-if prices and the cache-safety lint's findings; for scenes that record their billed usage,
// each call's prediction against the bill and the cause of a recorded miss (`verify`'s result).
import { useEffect, useRef, useState } from 'preact/hooks';
import { dialogs } from '../api';
import { errorText } from '../api/api';
import type { ConversationResponse, ModelCost } from '../api/types';
import { fmtUsd } from '../lib/costs';
import {
  barOf,
  barSentence,
  type CallRow,
  callRows,
  nextSort,
  perThousand,
  type Sort,
  type SortKey,
  sortRows,
  zeroReadsOf,
} from '../lib/money';
import { shortPath, typedPath } from '../lib/paths';
import type { Session } from '../lib/session';
import { FiguresNote, RecordedNote, RecordedTotalsNote, WhatIfTable, ZeroReadNote } from './Money';

const COLUMNS: { key: SortKey; label: string; numeric: boolean }[] = [
  { key: 'n', label: 'Call', numeric: true },
  { key: 'scene', label: 'Scene', numeric: false },
  { key: 'tokens', label: 'Input tokens', numeric: true },
  { key: 'read', label: 'Read', numeric: true },
  { key: 'written', label: 'Written', numeric: true },
  { key: 'uncached', label: 'Uncached', numeric: true },
  { key: 'cost', label: 'Cost', numeric: true },
  { key: 'cause', label: 'Reads nothing because', numeric: false },
];

/** The table of requests by cost: every column sorts, by mouse or by keyboard (its header is a button). */
export function CostTable({ rows }: { rows: CallRow[] }) {
  const [sort, setSort] = useState<Sort>({ key: 'cost', descending: true });
  const sorted = sortRows(rows, sort);
  return (
    <table class="cost-table" data-testid="cost-table">
      <caption>
        Requests by cost <span class="muted">(press a column's header to sort by it; again to reverse)</span>
      </caption>
      <thead>
        <tr>
          {COLUMNS.map((c) => {
            const on = sort.key === c.key;
            return (
              <th
                key={c.key}
                scope="col"
                aria-sort={on ? (sort.descending ? 'descending' : 'ascending') : 'none'}
                class={c.numeric ? 'num' : ''}
              >
                <button type="button" class="sort" data-testid={`sort-${c.key}`} onClick={() => setSort(nextSort(sort, c.key))}>
                  {c.label}
                  <span aria-hidden="true" class="sort-sign">
                    {on ? (sort.descending ? ' ▼' : ' ▲') : ' ↕'}
                  </span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {sorted.map((r) => (
          <tr key={r.n} data-testid={`cost-row-${r.n}`}>
            <td class="num">{r.n}</td>
            <td>{r.scene}</td>
            <td class="num">{r.tokens}</td>
            <td class="num">{r.read}</td>
            <td class="num">{r.written}</td>
            <td class="num">{r.uncached}</td>
            <td class="num">{fmtUsd(r.cost)}</td>
            <td>{r.cause || <span class="muted">reads</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ConversationReport({ c, model }: { c: ConversationResponse; model: string | null }) {
  const cost: ModelCost | null = c.models.find((m) => m.model === model) ?? c.models[0] ?? null;
  const rows = callRows(c, cost);
  const zeros = zeroReadsOf(c.zero_reads, cost?.model);
  const largest = Math.max(0, ...rows.map((r) => r.tokens));
  const total = cost?.total;
  return (
    <div class="conversation-report">
      <section class="run-summary" aria-labelledby="conv-summary-h">
        <h2 id="conv-summary-h">
          Conversation <span class="muted">{shortPath(c.folder, null, 60)}</span>
        </h2>
        {cost && total && (
          <>
            <p data-testid="conv-total">
              {rows.length} call{rows.length === 1 ? '' : 's'}. On <b>{cost.model}</b> their input costs <b>{fmtUsd(total.cost_usd)}</b>,
              against {fmtUsd(total.uncached_cost_usd)} with no caching{cost.ttl ? ` (cache writes at the ${cost.ttl} TTL's price)` : ''}.
            </p>
            <p class="per-thousand" data-testid="per-thousand">
              Per 1,000 calls like these: <b>{fmtUsd(perThousand(total.cost_usd ?? 0, rows.length))}</b>{' '}
              <span class="muted">({fmtUsd(perThousand(total.uncached_cost_usd ?? 0, rows.length))} with no caching)</span>
            </p>
            <p data-testid="conv-zero-count">
              {zeros.size
                ? `${zeros.size} of ${rows.length} calls read nothing from the cache; each says why under its bar.`
                : 'Every call reads from the cache.'}
            </p>
          </>
        )}
        <ul class="run-legend" aria-label="legend">
          <li>
            <span>
              a call's bar: as long as its input, in tokens, against the longest call; <span class="share-key read" aria-hidden="true" />{' '}
              read from the prompt cache, <span class="share-key written" aria-hidden="true" /> written to it,{' '}
              <span class="share-key uncached" aria-hidden="true" /> sent uncached
            </span>
          </li>
        </ul>
        {c.recorded_totals && <RecordedTotalsNote t={c.recorded_totals} testid="conv-recorded-totals" />}
        {c.recorded_errors.length > 0 && (
          <ul class="bad" data-testid="conv-recorded-errors">
            {c.recorded_errors.map((e, k) => (
              <li key={k}>{errorText(e)}</li>
            ))}
          </ul>
        )}
        {cost && <FiguresNote cost={cost} testid="conv-figures" />}
        <WhatIfTable items={c.what_if} model={cost?.model ?? null} testid="conv-what-if" />
      </section>
      <section aria-labelledby="conv-calls-h">
        <h3 id="conv-calls-h">Each call</h3>
        <ol class="conv-calls">
          {rows.map((r) => {
            const b = barOf(r, largest);
            const z = zeros.get(r.n - 1);
            const recorded = c.calls[r.n - 1]?.recorded;
            const sentence = cost ? barSentence(r, cost.model) : `Call ${r.n}: ${r.tokens} input tokens`;
            return (
              <li key={r.n} class="conv-call" data-testid={`conv-call-${r.n}`}>
                <div class="conv-call-head">
                  <b>Call {r.n}</b> <span>{r.scene}</span>{' '}
                  <span class="muted">
                    <span data-testid={`conv-tokens-${r.n}`}>
                      {r.tokens.toLocaleString('en-US')} tokens ({r.counted})
                    </span>{' '}
                    · {fmtUsd(r.cost)}
                  </span>
                </div>
                <div class="conv-bar-track">
                  <div
                    class="prefix-bar tokens"
                    role="img"
                    aria-label={sentence}
                    title={sentence}
                    style={{ width: `${b.width}%` }}
                    data-testid={`conv-bar-${r.n}`}
                  >
                    {b.read > 0 && <div class="part read" style={{ width: `${b.read}%` }} />}
                    {b.written > 0 && <div class="part written" style={{ width: `${b.written}%` }} />}
                    {b.uncached > 0 && <div class="part uncached" style={{ width: `${b.uncached}%` }} />}
                  </div>
                </div>
                <p class="prefix-figures" aria-hidden="true">
                  <span class="share-key read" />
                  {` read ${r.read} · `}
                  <span class="share-key written" />
                  {` written ${r.written} · `}
                  <span class="share-key uncached" />
                  {` uncached ${r.uncached} tokens`}
                </p>
                {z && <ZeroReadNote z={z} testid={`conv-zero-${r.n}`} />}
                {recorded && <RecordedNote r={recorded} n={r.n} testid={`conv-recorded-${r.n}`} />}
              </li>
            );
          })}
        </ol>
      </section>
      <section aria-labelledby="conv-table-h">
        <h3 id="conv-table-h">The calls by cost</h3>
        <CostTable rows={rows} />
      </section>
      {c.diagnostics.length > 0 && (
        <section aria-labelledby="conv-lint-h">
          <h3 id="conv-lint-h">Cache safety (lint)</h3>
          <ul class="conv-lint">
            {c.diagnostics.map((d, k) => (
              <li key={k}>
                {d.call != null && <b>Call {d.call + 1}: </b>}
                {d.diagnostic.level} <code>{d.diagnostic.code}</code> {d.diagnostic.message}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

/** A conversation not on disk: the Live view's received calls, by their scene texts. */
export interface GivenConversation {
  name: string;
  scenes: string[];
}

export function ConversationView({ session, given = null }: { session: Session; given?: GivenConversation | null }) {
  const baseDir = session.baseDir;
  const [folder, setFolder] = useState('');
  const [res, setRes] = useState<ConversationResponse | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pick, setPick] = useState<(() => Promise<string | null>) | null>(null);
  const opened = useRef<string | null>(null);
  useEffect(() => {
    void dialogs().then((d) => {
      if (d.folderDialog) setPick(() => d.folderDialog!);
    });
  }, []);
  const open = async (f = folder) => {
    // A relative path is taken from the open scene's folder, as in every path box of the app.
    const t = typedPath(f, baseDir);
    if ('error' in t) {
      setErr(t.error);
      return;
    }
    const full = t.path;
    if (!full) {
      setErr(
        `Choose a folder of numbered scenes first${pick ? ' (Browse…)' : ''}: type its path${baseDir ? ` (absolute, or relative to ${baseDir})` : ' (absolute)'}.`,
      );
      return;
    }
    setErr(null);
    setBusy(true);
    try {
      setRes(await session.api.conversation(full, session.model ? [session.model] : []));
      opened.current = full;
    } catch (e) {
      setRes(null);
      const code = (e as { code?: string }).code;
      setErr(code === 'path_not_chosen' && pick ? `${errorText(e)} Choose the folder with Browse… first.` : errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const openGiven = async (g: GivenConversation) => {
    setErr(null);
    setBusy(true);
    try {
      setRes(await session.api.conversationOfScenes(`received: ${g.name}`, g.scenes, session.model ? [session.model] : []));
      opened.current = null;
    } catch (e) {
      setRes(null);
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  // Priced again for another model; a conversation handed over by the Live view opens as it comes.
  useEffect(() => {
    if (given) void openGiven(given);
    else if (opened.current) void open(opened.current);
  }, [session.model, given]);
  return (
    <main class="page conversation-view">
      <div class="bar">
        <span class="muted">
          A recorded conversation: a folder of scenes, one per call, in name order (<code>01.scene.json</code>, <code>02.scene.json</code>,
          …), as <code>prompt-inspector cache</code> and <code>import --out-dir</code> write them.
        </span>
      </div>
      <div class="bar">
        <label>
          Folder{' '}
          <input
            class="path"
            data-testid="conv-folder"
            value={folder}
            placeholder={baseDir ? `absolute, or relative to ${baseDir}` : 'absolute path of a folder of scenes'}
            onInput={(e) => setFolder((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void open();
            }}
          />
        </label>
        {pick && (
          <button
            type="button"
            data-testid="conv-browse"
            onClick={async () => {
              const f = await pick();
              if (f) {
                setFolder(f);
                await open(f);
              }
            }}
          >
            Browse…
          </button>
        )}
        <button type="button" data-testid="conv-open" onClick={() => void open()} disabled={busy}>
          {busy ? 'Opening…' : 'Open'}
        </button>
      </div>
      {err && (
        <div class="error-box" role="alert" data-testid="conv-error">
          {err}
        </div>
      )}
      {!res && !err && <div class="empty-seg">No conversation open yet.</div>}
      {res && !err && <ConversationReport c={res} model={session.model} />}
    </main>
  );
}
