// What the Run and Conversation views share about money: a call that reads nothing, explained,
// and the what-if prices.
import type { ModelCost, RecordedCall, RecordedTotals, WhatIfPrice, ZeroRead } from '../api/types';
import { fmtUsd } from '../lib/costs';
import { causeWords, pricesText, sharedProvenance, provenanceText, provenanceTitle, recordedLines } from '../lib/money';

/** What a model's figures are: how far its token counts can be off, and whose prices they use. */
export function FiguresNote({ cost, testid }: { cost: ModelCost; testid: string }) {
  const counted = provenanceText(cost.provenance);
  const prices = pricesText(cost.prices_read, cost.price_sources);
  if (!counted && !prices) return null;
  return (
    <p class="muted" data-testid={testid}>
      {counted && <span title={provenanceTitle(cost.provenance)}>Token figures: {counted}</span>}
      {counted && prices && ' · '}
      {prices && <span title={cost.price_sources.join('\n')}>{prices}</span>}
    </p>
  );
}

/** Why a call reads nothing from the prompt cache, and where a breakpoint or the injection goes. */
export function ZeroReadNote({ z, testid }: { z: ZeroRead; testid: string }) {
  return (
    <div class="zero-read" role="note" data-testid={testid} data-cause={z.cause ?? 'first_call'}>
      <p>
        <b>Reads nothing from the cache: {causeWords(z.cause)}.</b>{' '}
        <span data-testid={`${testid}-why`}>{z.why[0].toUpperCase() + z.why.slice(1)}.</span>
      </p>
      {z.fix && (
        <p data-testid={`${testid}-fix`}>
          <b>Where the fix goes:</b> {z.fix}.
        </p>
      )}
      {(z.missed_usd ?? 0) > 0 && (
        <p class="muted">
          Reading the {z.shared_tokens} tokens it shares with the call before ({sharedProvenance(z)}, as its provider bills the two
          requests) would cost {fmtUsd(z.missed_usd)} less.
        </p>
      )}
    </div>
  );
}

/** The what-if prices of one model: each change, the cost as it is, with the change, and the difference. */
export function WhatIfTable({ items, model, testid }: { items: WhatIfPrice[]; model: string | null; testid: string }) {
  const mine = items.filter((w) => w.model === model);
  if (!mine.length) return null;
  return (
    <table class="what-if" data-testid={testid}>
      <caption>
        What-if prices on <b>{model}</b> (input only)
      </caption>
      <thead>
        <tr>
          <th scope="col">Change</th>
          <th scope="col">As it is</th>
          <th scope="col">With the change</th>
          <th scope="col">Saves</th>
        </tr>
      </thead>
      <tbody>
        {mine.map((w, k) => (
          <tr key={k}>
            <th scope="row">{w.what}</th>
            <td>{fmtUsd(w.cost_usd)}</td>
            <td>{fmtUsd(w.what_if_usd)}</td>
            <td class={(w.saving_usd ?? 0) < 0 ? 'bad' : ''}>
              {(w.saving_usd ?? 0) < 0 ? `costs ${fmtUsd(-(w.saving_usd ?? 0))} more` : fmtUsd(w.saving_usd)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A recorded call's billed usage next to its prediction, and the cause of its miss: the `verify`
 *  operation's result for the call (docs/app.md, "Recorded against predicted"). */
export function RecordedNote({ r, n, testid }: { r: RecordedCall; n: number; testid: string }) {
  const lines = recordedLines(r);
  const counted = provenanceText(r.input?.provenance);
  const miss = r.causes[0];
  const summary = `Recorded: billed ${r.billed.input_total.toLocaleString('en-US')} input tokens${
    r.input ? `, predicted ${r.input.predicted.toLocaleString('en-US')}` : ''
  }${counted ? ` (${counted})` : ''}; ${r.miss ? `a cache miss: ${causeWords(miss?.code)}` : `read ${r.billed.cache_read.toLocaleString('en-US')} from the cache`}`;
  return (
    <details class="recorded" open data-testid={testid}>
      <summary data-testid={`${testid}-summary`}>{summary}</summary>
      <p class="muted recorded-about">
        {r.model}, priced as {r.priced_as}
        {counted && (
          <span title={provenanceTitle(r.input?.provenance)} data-testid={`${testid}-provenance`}>
            ; input {counted}
          </span>
        )}
      </p>
      <table class="recorded-table">
        <caption>Call {n}: predicted against billed</caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col" class="num">
              Predicted
            </th>
            <th scope="col" class="num">
              Billed
            </th>
            <th scope="col">Prediction</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.what} class={l.off ? 'off' : ''} data-testid={`${testid}-${l.what.replace(' ', '-')}`}>
              <th scope="row">{l.what}</th>
              <td class="num">{l.predicted}</td>
              <td class="num">{l.billed}</td>
              <td>{l.difference}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {r.error && <p class="bad">Not predicted: {r.error}</p>}
      {r.causes.map((c, k) => (
        <p key={k} class="recorded-cause" data-testid={`${testid}-cause`} data-code={c.code}>
          <b>
            {r.miss ? 'Recorded miss' : 'Recorded'}: {causeWords(c.code)}
          </b>{' '}
          <code>{c.code}</code>
          {(c.cost_usd ?? 0) > 0 && <> (cost {fmtUsd(c.cost_usd)})</>}. {c.message[0].toUpperCase() + c.message.slice(1)}.
        </p>
      ))}
    </details>
  );
}

/** The recorded calls added up, predicted against billed. */
export function RecordedTotalsNote({ t, testid }: { t: RecordedTotals; testid: string }) {
  const same = t.predicted_low_usd === t.predicted_high_usd;
  return (
    <p data-testid={testid}>
      <b>Recorded:</b> {t.calls} call{t.calls === 1 ? '' : 's'} billed {t.billed_input.toLocaleString('en-US')} input tokens (predicted{' '}
      {t.predicted_input.toLocaleString('en-US')}), costing <b>{fmtUsd(t.billed_usd)}</b> (predicted{' '}
      {same ? fmtUsd(t.predicted_low_usd) : `${fmtUsd(t.predicted_low_usd)}–${fmtUsd(t.predicted_high_usd)}`});{' '}
      {t.misses
        ? `${t.misses} recorded cache miss${t.misses === 1 ? '' : 'es'} costing ${fmtUsd(t.miss_cost_usd)}.`
        : 'no recorded cache miss.'}
    </p>
  );
}
