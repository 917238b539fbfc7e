// The money question, as a person reads it in the browser (docs/app.md, "Run" and
// "Conversation"), at 1280x720 and 1440x900: the run fixture that reads the cache on
// claude-sonnet-4-5, a round that reads nothing and why, the what-if prices; a conversation folder
// with its bars in proportion to each call's size, the per-1,000-calls figure, a zero-read
// explanation, and its table of requests sorted by cost with the keyboard alone; a conversation
// with recorded usage, each call's billed figures next to its prediction and the cause of a
// recorded miss (checked against `prompt-inspector verify --format json`). Each view is scanned
// with axe-core. The figures are checked against `prompt-inspector cache --format json`
// and the models table, not against the page's own arithmetic.
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';

const SONNET = 'anthropic/claude-sonnet-4-5';

/** What has the focus: its test id, or its tag. */
const focused = (page) =>
  page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName.toLowerCase() ?? null);

async function tabTo(page, testId, key = 'Tab', max = 80) {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press(key);
    if ((await focused(page)) === testId) return n;
  }
  throw new Error(`FAILED: ${max} presses of ${key} never reached ${testId} (the focus ended on ${await focused(page)})`);
}

export async function moneyJourney({ page, bin, repo, tmp, check, shots, axe, usd, row }) {
  const sonnet = row(SONNET);
  await page.getByRole('combobox', { name: 'Model' }).selectOption(SONNET);
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    await page.setViewportSize({ width, height });
    const size = `${width}x${height}`;

    // The run fixture that hits the cache on the default Claude model.
    await page.getByRole('tab', { name: 'Run' }).click();
    const fixture = join(repo, 'fixtures/run/stable-prefix.scene.json');
    await page.getByTestId('run-path').fill(fixture);
    await page.getByTestId('run-file').click();
    await page.locator('.run-summary').getByText(fixture).waitFor();
    const shares = async (n) => {
      const label = await page.getByTestId(`prefix-bar-${n}`).getAttribute('aria-label');
      const m = /: (\d+) input tokens, (\d+) read from the prompt cache, (\d+) written to it, (\d+) uncached; costs (\$[\d.]+)/.exec(label);
      return { label, total: +m[1], read: +m[2], written: +m[3], uncached: +m[4], cost: m[5] };
    };
    const rounds = await page.locator('.iteration').count();
    const r1 = await shares(1);
    const later = [];
    for (let n = 2; n <= rounds; n++) later.push(await shares(n));
    check(
      r1.written >= sonnet.cache.min_tokens && later.every((s) => s.read === r1.written),
      `${size}: stable-prefix on ${SONNET}: request 1 writes the ${r1.written}-token system message, requests 2–${rounds} read it back`,
    );
    const notes = await page.locator('.zero-read').count();
    check(
      notes === 1 && (await page.getByTestId('zero-read-1').getAttribute('data-cause')) === 'first_call',
      `${size}: only request 1 reads nothing, and it says why: ${await page.getByTestId('zero-read-1-why').innerText()}`,
    );
    const whatIf = await page.getByTestId('run-what-if').innerText();
    check(
      whatIf.includes('a cache_control breakpoint at the end of every request'),
      `${size}: the Run view shows the what-if prices (${whatIf.split('\n').at(-1)})`,
    );
    await page.screenshot({ path: join(shots, `10a-run-cache-hit-${size}.png`) });
    await axe(page, `the Run view reading the cache (${size})`);

    // A round that reads nothing: long-goal's round 4 repeats 1,060 tokens with no breakpoint after them.
    const longGoal = join(repo, 'fixtures/run/long-goal.scene.json');
    await page.getByTestId('run-path').fill(longGoal);
    await page.getByTestId('run-file').click();
    await page.locator('.run-summary').getByText(longGoal).waitFor();
    const zero4 = page.getByTestId('zero-read-4');
    const why = await page.getByTestId('zero-read-4-why').innerText();
    const fix = await page.getByTestId('zero-read-4-fix').innerText();
    const round3 = Number(/request of (\d+) messages/.exec(await page.getByTestId('run-round-3').locator('h3').innerText())[1]);
    check(
      (await zero4.getAttribute('data-cause')) === 'miss_no_breakpoint' && fix.includes(`end of message ${round3}`),
      `${size}: round 4 reads nothing: "${why}" — "${fix}"`,
    );
    await zero4.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `10b-run-zero-read-${size}.png`) });
    await axe(page, `the Run view explaining a zero-read round (${size})`);

    // A conversation folder (a copy of fixtures/cache/system-notes: tf_notes writes into the
    // system message, so no call reads).
    const folder = join(tmp, `conversation-${size}`);
    cpSync(join(repo, 'fixtures/cache/system-notes'), folder, { recursive: true });
    const cli = JSON.parse(
      execFileSync(
        bin,
        ['cache', '--format', 'json', '--model', SONNET, ...['01', '02', '03'].map((n) => join(folder, `${n}.scene.json`))],
        { encoding: 'utf8' },
      ),
    );
    await page.getByRole('tab', { name: 'Conversation' }).click();
    await page.getByTestId('conv-folder').fill(folder);
    await page.getByTestId('conv-folder').press('Enter');
    await page.getByTestId('conv-bar-3').waitFor();
    const steps = cli.steps;
    const largest = Math.max(...steps.map((s) => s.request_tokens));
    const widths = await page.locator('[data-testid^="conv-bar-"]').evaluateAll((bars) => bars.map((b) => b.getBoundingClientRect().width));
    const track = await page
      .locator('.conv-bar-track')
      .first()
      .evaluate((t) => t.getBoundingClientRect().width);
    check(
      widths.length === steps.length && widths.every((w, k) => Math.abs(w - (track * steps[k].request_tokens) / largest) < 1.5),
      `${size}: each call's bar is drawn in proportion to its request (${steps.map((s) => s.request_tokens).join(', ')} tokens → ${widths.map((w) => w.toFixed(0)).join(', ')} px)`,
    );
    const bill = cli.models[0].total;
    const perK = await page.getByTestId('per-thousand').innerText();
    check(
      perK.startsWith(`Per 1,000 calls like these: ${usd((bill.cost_usd / steps.length) * 1000)}`),
      `${size}: the per-1,000-calls figure is the conversation's cost per call times 1,000 (${perK})`,
    );
    const zero2 = page.getByTestId('conv-zero-2');
    const convFix = await page.getByTestId('conv-zero-2-fix').innerText();
    check(
      (await zero2.getAttribute('data-cause')) === 'miss_system_changed' &&
        (await zero2.innerText()).includes(`byte ${steps[1].first_difference.byte}`) &&
        convFix.includes("move tf_notes's text from system_msg_prompt to after_intermediate_msg_prompt"),
      `${size}: call 2 reads nothing because tf_notes changed the system message at byte ${steps[1].first_difference.byte}; the fix: ${convFix}`,
    );
    await page.screenshot({ path: join(shots, `10c-conversation-${size}.png`) });
    await axe(page, `the Conversation view (${size})`);

    // The table of requests by cost, with the keyboard alone: Tab to a header, Enter, Space.
    const order = () =>
      page.locator('[data-testid="cost-table"] tbody tr').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-testid')));
    const costs = cli.models[0].calls.map((c, k) => [k + 1, c.cost_usd]);
    const byCost = (desc) => [...costs].sort((a, b) => (desc ? b[1] - a[1] : a[1] - b[1]) || a[0] - b[0]).map(([n]) => `cost-row-${n}`);
    check(
      JSON.stringify(await order()) === JSON.stringify(byCost(true)),
      `${size}: the table starts with the most expensive request (${(await order()).join(', ')})`,
    );
    await page.getByTestId('conv-folder').focus();
    const presses = await tabTo(page, 'sort-cost');
    await page.keyboard.press('Enter');
    const sortState = () => page.locator('[data-testid="sort-cost"]').evaluate((b) => b.closest('th').getAttribute('aria-sort'));
    check(
      JSON.stringify(await order()) === JSON.stringify(byCost(false)) && (await sortState()) === 'ascending',
      `${size}: ${presses} Tabs reach the Cost header; Enter sorts the requests cheapest first (aria-sort ascending)`,
    );
    await tabTo(page, 'sort-tokens', 'Shift+Tab');
    await page.keyboard.press('Space');
    const tokensOrder = [...steps.keys()]
      .sort((a, b) => steps[b].request_tokens - steps[a].request_tokens || a - b)
      .map((k) => `cost-row-${k + 1}`);
    check(
      JSON.stringify(await order()) === JSON.stringify(tokensOrder) && (await sortState()) === 'none',
      `${size}: Shift+Tab to the Input tokens header and Space sorts by size, largest first`,
    );
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    check(ring !== 'none', `${size}: the focused header shows a focus ring (${ring})`);
    await page.getByTestId('cost-table').screenshot({ path: join(shots, `10d-cost-table-${size}.png`) });
    await axe(page, `the Conversation view's sorted table (${size})`);

    // A conversation with recorded usage (a copy of fixtures/cache/recorded): each call's bill next
    // to its prediction, as `verify` puts them, and the cause of call 4's recorded miss.
    const recorded = join(tmp, `recorded-${size}`);
    cpSync(join(repo, 'fixtures/cache/recorded'), recorded, { recursive: true });
    const verified = JSON.parse(execFileSync(bin, ['verify', '--format', 'json', recorded], { encoding: 'utf8' }));
    const vcalls = verified.conversations[0].calls;
    await page.getByTestId('conv-folder').fill(recorded);
    await page.getByTestId('conv-folder').press('Enter');
    await page.getByTestId('conv-recorded-4').waitFor();
    const cells = (n, what) =>
      page
        .getByTestId(`conv-recorded-${n}-${what}`)
        .locator('th, td')
        .evaluateAll((cs) => cs.map((c) => c.textContent));
    for (const [k, v] of vcalls.entries()) {
      const input = await cells(k + 1, 'input');
      const cost = await cells(k + 1, 'input-cost');
      check(
        input[1] === v.input.predicted.toLocaleString('en-US') &&
          input[2] === v.input.billed.toLocaleString('en-US') &&
          cost[2] === usd(v.cost.billed_usd) &&
          (await page.getByTestId(`conv-recorded-${k + 1}-provenance`).innerText()).includes(
            `estimate ±${v.input.provenance.bound_percent}%`,
          ),
        `${size}: call ${k + 1} shows predicted ${input[1]} against billed ${input[2]} input tokens (${input[3]}), cost ${cost[1]} against ${cost[2]}, as verify gives them`,
      );
    }
    // Each call's header counts the request its provider was sent, as `verify` predicts it, not
    // the chat messages alone.
    for (const [k, v] of vcalls.entries()) {
      const head = await page.getByTestId(`conv-tokens-${k + 1}`).innerText();
      check(
        head === `${v.input.predicted.toLocaleString('en-US')} tokens (estimate ±${v.input.provenance.bound_percent}%)`,
        `${size}: call ${k + 1}'s header gives its predicted input: ${head} (billed ${v.input.billed})`,
      );
    }
    const missCause = page.getByTestId('conv-recorded-4-cause');
    const expectedCause = vcalls[3].causes[0];
    check(
      (await missCause.getAttribute('data-code')) === expectedCause.code &&
        (await missCause.innerText()).includes(usd(expectedCause.cost_usd)),
      `${size}: call 4's recorded miss is explained: ${await missCause.innerText()}`,
    );
    // The prediction-only note above the fold counts the shared prefix as the provider bills it,
    // so it names the record's cause too.
    const note4 = page.getByTestId('conv-zero-4');
    check(
      (await note4.getAttribute('data-cause')) === expectedCause.code,
      `${size}: call 4's zero-read note names the record's cause: ${await note4.innerText()}`,
    );
    const totals = await page.getByTestId('conv-recorded-totals').innerText();
    check(
      totals.includes(`billed ${verified.conversations[0].totals.billed_input.toLocaleString('en-US')} input tokens`),
      `${size}: the recorded totals: ${totals}`,
    );
    await page.getByTestId('conv-folder').focus();
    const toSummary = await tabTo(page, 'conv-recorded-4-summary');
    await page.keyboard.press('Enter');
    const closed = await page.getByTestId('conv-recorded-4').evaluate((d) => !d.open);
    await page.keyboard.press('Enter');
    check(
      closed && (await page.getByTestId('conv-recorded-4').evaluate((d) => d.open)),
      `${size}: ${toSummary} Tabs reach call 4's recorded figures; Enter folds and unfolds them`,
    );
    await page.getByTestId('conv-recorded-4').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `10e-conversation-recorded-${size}.png`) });
    // The long temporary path leaves the toolbar too little room beside the view tabs (the page
    // scrolls, so a scrollbar takes its width): it wraps rather than running over them.
    const overlap = await page.evaluate(() => {
      const a = document.querySelector('header .main-tabs').getBoundingClientRect();
      const b = document.querySelector('[data-testid="file-name"]').getBoundingClientRect();
      return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    });
    check(!overlap, `${size}: the file's name does not run over the view tabs`);
    await axe(page, `the Conversation view with recorded usage (${size})`);
  }
  await page.setViewportSize({ width: 1600, height: 1000 });
}
