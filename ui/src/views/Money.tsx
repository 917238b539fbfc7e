// What the Run and Conversation views share about money: a call that reads nothing, explained,
// and the what-if prices.
import type { WhatIfPrice, ZeroRead } from '../api/types';
import { fmtUsd } from '../lib/costs';
import { CAUSE_WORDS } from '../lib/money';

/** Why a call reads nothing from the prompt cache, and where a breakpoint or the injection goes. */
export function ZeroReadNote({ z, testid }: { z: ZeroRead; testid: string }) {
  return (
    <div class="zero-read" role="note" data-testid={testid} data-cause={z.cause}>
      <p>
        <b>Reads nothing from the cache: {CAUSE_WORDS[z.cause]}.</b>{' '}
        <span data-testid={`${testid}-why`}>{z.why[0].toUpperCase() + z.why.slice(1)}.</span>
      </p>
      {z.fix && (
        <p data-testid={`${testid}-fix`}>
          <b>Where the fix goes:</b> {z.fix}.
        </p>
      )}
      {(z.missed_usd ?? 0) > 0 && (
        <p class="muted">
          Reading the {z.shared_tokens} tokens it shares with the call before would cost {fmtUsd(z.missed_usd)} less.
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
