// The Live view: the LLM calls the app's OTLP receiver takes in from running agents, as they
// arrive, grouped by conversation; each with its model, the tokens its provider billed (the span's
// usage), the input tokens predicted for the picked model and their cost. A call opens on the board
// (read-only until saved), a conversation in the Conversation view; selected calls are saved as
// numbered scenes or as a JSON-lines file of their spans (what `cache` and `verify` read).
import { useEffect, useRef, useState } from 'preact/hooks';
import { dialogs } from '../api';
import { errorText } from '../api/api';
import type { ReceivedCall } from '../api/types';
import { fmtUsd } from '../lib/costs';
import { typedPath } from '../lib/paths';
import {
  billedTokens,
  groupByConversation,
  joinPath,
  jsonLines,
  type LiveCalls,
  matchesFilter,
  type Prediction,
  predict,
  sceneFileName,
} from '../lib/received';
import type { Session } from '../lib/session';

const n = (x: number) => x.toLocaleString('en-US');

export interface LiveProps {
  session: Session;
  live: LiveCalls;
  paused: boolean;
  setPaused: (p: boolean) => void;
  onClear: () => void;
  /** Puts a call on the board. */
  onShow: (call: ReceivedCall) => void;
  /** Opens a conversation's calls in the Conversation view. */
  onConversation: (id: string, calls: ReceivedCall[]) => void;
}

/** Where the receiver listens, or why it does not. */
function ReceiverLine({ live }: { live: LiveCalls }) {
  const r = live.receiver;
  // Neither an endpoint nor an error: the receiver is still binding its address.
  if (!r || (!r.endpoint && !r.error)) return <span class="muted">Starting the receiver…</span>;
  if (r.endpoint)
    return (
      <span data-testid="live-endpoint">
        Receiving OTLP traces at <code>{r.endpoint}</code> <span class="muted">(point an agent's OTLP/HTTP exporter here)</span>
      </span>
    );
  return (
    <span class="bad" role="alert" data-testid="live-receiver-error">
      The receiver is not listening: {r.error ?? 'unknown reason'}
    </span>
  );
}

function CallRow({
  call,
  prediction,
  checked,
  onCheck,
  onShow,
}: {
  call: ReceivedCall;
  prediction: Prediction | undefined;
  checked: boolean;
  onCheck: (on: boolean) => void;
  onShow: () => void;
}) {
  const billed = billedTokens(call);
  const time = call.received_at.replace(/^.*T/, '').replace(/\..*$|Z$/, '');
  return (
    <tr data-testid={`live-call-${call.seq}`}>
      <td>
        <input
          type="checkbox"
          checked={checked}
          aria-label={`Select call ${call.seq} for saving`}
          data-testid={`live-pick-${call.seq}`}
          onChange={(e) => onCheck((e.target as HTMLInputElement).checked)}
        />
      </td>
      <td class="num">{call.seq}</td>
      <td>{time}</td>
      <td data-testid={`live-model-${call.seq}`} title={[call.model, call.provider, call.span_name].filter(Boolean).join(' · ')}>
        {call.model ?? <span class="muted">no model</span>}
        {call.provider && <span class="muted"> · {call.provider}</span>}
      </td>
      <td class="num" data-testid={`live-billed-${call.seq}`}>
        {billed ? (
          <>
            {n(billed.input)} in · {n(billed.output)} out · {n(billed.cacheRead)} cache read
          </>
        ) : (
          <span class="muted">not recorded</span>
        )}
      </td>
      <td class="num" data-testid={`live-predicted-${call.seq}`}>
        {!prediction ? (
          <span class="muted">…</span>
        ) : 'cost' in prediction ? (
          n(prediction.cost.input_tokens)
        ) : (
          <span class="muted" title={prediction.error}>
            n/a
          </span>
        )}
      </td>
      <td class="num" data-testid={`live-cost-${call.seq}`}>
        {prediction && 'cost' in prediction ? fmtUsd(prediction.cost.cost_usd) : ''}
      </td>
      <td>
        <button
          type="button"
          data-testid={`live-show-${call.seq}`}
          onClick={onShow}
          title="Show this call on the board, read-only until saved"
        >
          Show
        </button>
      </td>
    </tr>
  );
}

export function LiveView({ session, live, paused, setPaused, onClear, onShow, onConversation }: LiveProps) {
  const [filter, setFilter] = useState('');
  const [picked, setPicked] = useState<Set<number>>(new Set());
  const [folder, setFolder] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [predictions, setPredictions] = useState<Map<string, Prediction>>(new Map());
  const [pickFolder, setPickFolder] = useState<(() => Promise<string | null>) | null>(null);
  // Predictions asked for, answered or not: a call is asked about once per model.
  const asked = useRef(new Set<string>());
  const model = session.model;
  useEffect(() => {
    void dialogs().then((d) => {
      if (d.folderDialog) setPickFolder(() => d.folderDialog!);
    });
  }, []);

  // Each new call's prediction on the picked model, a few at a time.
  useEffect(() => {
    if (!model) return;
    const key = (seq: number) => `${model}\u0000${seq}`;
    void predict(
      session.api,
      live.calls,
      model,
      (seq) => {
        const known = asked.current.has(key(seq));
        asked.current.add(key(seq));
        return known;
      },
      // Kept even when the view has moved on: the call is not asked about again.
      (seq, p) => setPredictions((m) => new Map(m).set(key(seq), p)),
    );
  }, [live.calls, model]);

  const shown = live.calls.filter((c) => matchesFilter(c, filter));
  const groups = groupByConversation(shown);
  const pickedCalls = live.calls.filter((c) => picked.has(c.seq));

  const check = (seq: number, on: boolean) =>
    setPicked((s) => {
      const next = new Set(s);
      if (on) next.add(seq);
      else next.delete(seq);
      return next;
    });

  const target = (): string | null => {
    const t = typedPath(folder, session.baseDir);
    if ('error' in t) {
      setMessage({ ok: false, text: t.error });
      return null;
    }
    if (!t.path) {
      setMessage({ ok: false, text: `Type the folder to save into${pickFolder ? ' (or Browse…)' : ''}.` });
      return null;
    }
    if (!pickedCalls.length) {
      setMessage({ ok: false, text: 'Select the calls to save first (the box at the start of each row).' });
      return null;
    }
    return t.path;
  };

  const saveScenes = async () => {
    const dir = target();
    if (!dir) return;
    const written: string[] = [];
    try {
      for (const [i, c] of pickedCalls.entries()) {
        const path = joinPath(dir, sceneFileName(i + 1, c));
        await session.api.save(path, c.scene);
        written.push(path);
      }
      setMessage({ ok: true, text: `Saved ${written.length} scene${written.length === 1 ? '' : 's'} in ${dir}.` });
    } catch (e) {
      const hint = (e as { code?: string }).code === 'path_not_chosen' && pickFolder ? ' Choose the folder with Browse… first.' : '';
      setMessage({ ok: false, text: `Saved ${written.length} of ${pickedCalls.length}; then: ${errorText(e)}${hint}` });
    }
  };

  const saveLines = async () => {
    const dir = target();
    if (!dir) return;
    let path = joinPath(dir, 'received.jsonl');
    // In the app a file other than a scene is written only where the person chose it: the save
    // dialog, starting there (docs/security.md).
    const saveDialog = (await dialogs()).saveDialog;
    if (saveDialog) {
      const chosen = await saveDialog(path);
      if (!chosen) return;
      path = chosen;
    }
    try {
      await session.api.saveRecording(path, jsonLines(pickedCalls));
      setMessage({ ok: true, text: `Saved ${pickedCalls.length} call${pickedCalls.length === 1 ? '' : 's'} as JSON lines in ${path}.` });
    } catch (e) {
      setMessage({ ok: false, text: errorText(e) });
    }
  };

  return (
    <main class="page live-view" aria-labelledby="live-h">
      <h2 class="sr-only" id="live-h">
        Live calls
      </h2>
      <div class="bar">
        <ReceiverLine live={live} />
      </div>
      <div class="bar">
        <button type="button" data-testid="live-pause" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button
          type="button"
          data-testid="live-clear"
          onClick={() => {
            setPicked(new Set());
            onClear();
          }}
        >
          Clear
        </button>
        <label>
          Filter{' '}
          <input
            type="search"
            data-testid="live-filter"
            value={filter}
            placeholder="model, provider or text"
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
        </label>
        <span data-testid="live-count" aria-live="polite">
          {shown.length === live.calls.length ? `${n(live.calls.length)} calls` : `${n(shown.length)} of ${n(live.calls.length)} calls`}
          {paused ? ' (paused)' : ''}
        </span>
        <span data-testid="live-dropped" class={live.dropped ? 'bad' : 'muted'}>
          {n(live.dropped)} dropped
        </span>
        <span class="muted" data-testid="live-model">
          {model ? `Predicted input and cost on ${model} (the header's model)` : 'Pick a model (header) for the predictions and costs.'}
        </span>
      </div>
      <div class="bar">
        <label>
          Save into folder{' '}
          <input
            class="path"
            data-testid="live-folder"
            value={folder}
            placeholder={session.baseDir ? `absolute, or relative to ${session.baseDir}` : 'absolute path of a folder'}
            onInput={(e) => setFolder((e.target as HTMLInputElement).value)}
          />
        </label>
        {pickFolder && (
          <button
            type="button"
            onClick={async () => {
              const f = await pickFolder();
              if (f) setFolder(f);
            }}
          >
            Browse…
          </button>
        )}
        <button type="button" data-testid="live-save-scenes" onClick={() => void saveScenes()}>
          Save {pickedCalls.length || ''} as scenes
        </button>
        <button type="button" data-testid="live-save-jsonl" onClick={() => void saveLines()}>
          Save {pickedCalls.length || ''} as JSON lines
        </button>
      </div>
      {message && (
        <div class={message.ok ? 'banner banner-ok' : 'error-box'} role={message.ok ? 'status' : 'alert'} data-testid="live-message">
          {message.text}
        </div>
      )}
      {!live.calls.length && <div class="empty-seg">No calls received yet.</div>}
      {groups.map((g) => (
        <section key={g.id} class="live-conversation" aria-label={`Conversation ${g.id}`} data-testid="live-conversation">
          <div class="live-conversation-head">
            <h3>
              Conversation <code>{g.id}</code>{' '}
              <span class="muted">
                {g.calls.length} call{g.calls.length === 1 ? '' : 's'}
              </span>
            </h3>
            <button
              type="button"
              data-testid="live-open-conversation"
              onClick={() => onConversation(g.id, g.calls)}
              title="Open these calls in the Conversation view: the cache figures and costs, call by call"
            >
              Open in the Conversation view
            </button>
            <button
              type="button"
              onClick={() => setPicked((s) => new Set([...s, ...g.calls.map((c) => c.seq)]))}
              title="Select every call of this conversation for saving"
            >
              Select all
            </button>
          </div>
          <table class="live-calls">
            <thead>
              <tr>
                <th scope="col">
                  <span class="sr-only">Selected</span>
                </th>
                <th scope="col" class="num">
                  #
                </th>
                <th scope="col">Received</th>
                <th scope="col">Model</th>
                <th scope="col" class="num">
                  Billed tokens
                </th>
                <th scope="col" class="num">
                  Predicted input
                </th>
                <th scope="col" class="num">
                  Cost
                </th>
                <th scope="col">
                  <span class="sr-only">Board</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {g.calls.map((c) => (
                <CallRow
                  key={c.seq}
                  call={c}
                  prediction={model ? predictions.get(`${model}\u0000${c.seq}`) : undefined}
                  checked={picked.has(c.seq)}
                  onCheck={(on) => check(c.seq, on)}
                  onShow={() => onShow(c)}
                />
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </main>
  );
}
