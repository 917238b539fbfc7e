// The Live view (docs/app.md, "Live: calls from running agents"), at 1280x720 and 1440x900 in a
// page of its own: two OTLP/JSON exports posted to serve's receiver (GenAI spans, built here: one
// conversation by `gen_ai.conversation.id` over both exports, another by its trace) appear in the
// view within a second, grouped by conversation, with the usage the spans recorded; the filter box;
// a call shown on the board read-only with its "not saved" note; the conversation opened in the
// Conversation view; the selected calls saved as numbered scenes and as JSON lines, read back from
// disk; every control reached with the keyboard; an axe-core scan of the view. Then the real
// instrumented client (tests/otel_client/send.py: the `openai` client with
// opentelemetry-instrumentation-openai-v2 against a stand-in for the OpenAI API) exports a
// conversation over http/protobuf, then one over http/json: each arrives within a second of its
// export, grouped by its trace, with the model and the tokens the stand-in billed, and Show puts a
// call on the board with the messages the client sent.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { startSender } from '../../tests/otel_client/sender.mjs';

const SIZES = [
  [1280, 720],
  [1440, 900],
];

const text = (s) => ({ stringValue: s });
const int = (n) => ({ intValue: String(n) });
const attr = (key, value) => ({ key, value });

/** One GenAI client span as an OpenTelemetry SDK exports it (semantic conventions 1.37). */
function span({ traceId, spanId, model, provider, conversation, question, system, usage }) {
  const attributes = [
    attr('gen_ai.operation.name', text('chat')),
    attr('gen_ai.provider.name', text(provider)),
    attr('gen_ai.request.model', text(model)),
    attr('gen_ai.response.model', text(model)),
    attr('gen_ai.input.messages', text(JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]))),
    attr(
      'gen_ai.output.messages',
      text(JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny, 24 °C.' }], finish_reason: 'stop' }])),
    ),
    attr('gen_ai.usage.input_tokens', int(usage.input)),
    attr('gen_ai.usage.output_tokens', int(usage.output)),
  ];
  if (conversation) attributes.push(attr('gen_ai.conversation.id', text(conversation)));
  if (system) attributes.push(attr('gen_ai.system_instructions', text(JSON.stringify([{ type: 'text', content: system }]))));
  return {
    traceId,
    spanId,
    name: `chat ${model}`,
    kind: 3,
    startTimeUnixNano: '1764738000000000000',
    endTimeUnixNano: '1764738001000000000',
    attributes,
  };
}

const exportOf = (spans) => ({
  resourceSpans: [
    {
      resource: { attributes: [attr('service.name', text('weather-agent'))] },
      scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.openai_v2' }, spans }],
    },
  ],
});

/** POSTs an OTLP/JSON export as an exporter does (no Origin: not a browser); the status and body. */
function post(endpoint, body) {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((res, rej) => {
    const r = request(
      endpoint,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': data.length } },
      (resp) => {
        let got = '';
        resp.on('data', (d) => {
          got += d;
        });
        resp.on('end', () => res({ status: resp.statusCode, body: got }));
      },
    );
    r.on('error', rej);
    r.end(data);
  });
}

export async function liveJourney({ browser, url, otlp, tmp, check, shots, axe }) {
  check(!!otlp && /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/.test(otlp), `serve runs an OTLP receiver (${otlp})`);
  for (const [width, height] of SIZES) {
    const size = `${width}x${height}`;
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    page.on('dialog', (d) => void d.accept());
    await page.goto(url);
    await page.getByTestId('file-name').waitFor();
    // The tab is reached from the keyboard: focus the selected view's tab, End goes to the last.
    await page.getByRole('tab', { name: 'Inspector' }).focus();
    await page.keyboard.press('End');
    await page.getByTestId('live-endpoint').waitFor();
    check(
      (await page.getByTestId('live-endpoint').innerText()).includes(otlp),
      `${size}: the Live view opens from the keyboard and names the receiver's endpoint`,
    );
    // A fresh start: the other size's calls are forgotten (Clear asks the receiver too).
    await page.getByTestId('live-clear').focus();
    await page.keyboard.press('Enter');
    await page.getByText('No calls received yet.').waitFor();

    const trip = `trip-${size}`;
    const first = exportOf([
      span({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: '00f067aa0ba902b7',
        model: 'gpt-4o-mini',
        provider: 'openai',
        conversation: trip,
        question: 'What is the weather in Lisbon?',
        system: 'You are a weather assistant.',
        usage: { input: 55, output: 9 },
      }),
      span({
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b8',
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        conversation: null,
        question: 'Summarise the forecast for Porto.',
        usage: { input: 120, output: 30 },
      }),
    ]);
    const second = exportOf([
      span({
        traceId: '0af7651916cd43dd8448eb211c80319d',
        spanId: '00f067aa0ba902b9',
        model: 'gpt-4o-mini',
        provider: 'openai',
        conversation: trip,
        question: 'And in June?',
        system: 'You are a weather assistant.',
        usage: { input: 71, output: 12 },
      }),
    ]);
    const sent = Date.now();
    for (const e of [first, second]) {
      const r = await post(otlp, e);
      check(r.status === 200, `${size}: the receiver takes an OTLP/JSON export (${r.status} ${r.body})`);
    }
    const conversations = page.getByTestId('live-conversation');
    await conversations.nth(1).getByRole('row').nth(1).waitFor({ timeout: 1000 });
    await conversations
      .first()
      .getByRole('row')
      .nth(2)
      .waitFor({ timeout: Math.max(1, 1000 - (Date.now() - sent)) });
    const took = Date.now() - sent;
    check(took <= 1000, `${size}: the three calls of the two exports are in the view ${took} ms after the first was posted`);
    const heads = await conversations.locator('h3').allInnerTexts();
    check(
      heads.length === 2 &&
        heads[0].includes(trip) &&
        heads[0].includes('2 calls') &&
        heads[1].includes('4bf92f3577b34da6a3ce929d0e0e4736') &&
        heads[1].includes('1 call'),
      `${size}: grouped by conversation: ${trip} (by its id, over both exports) and the other call's trace (${heads.join(' | ')})`,
    );
    const rows = conversations.first().locator('tbody tr');
    const billed = await rows.locator('[data-testid^="live-billed-"]').allInnerTexts();
    check(
      billed.length === 2 &&
        billed[0].includes('55 in') &&
        billed[0].includes('9 out') &&
        billed[1].includes('71 in') &&
        billed[1].includes('12 out'),
      `${size}: each call shows the usage its span recorded (${billed.join(' | ')})`,
    );
    const models = await rows.locator('[data-testid^="live-model-"]').allInnerTexts();
    check(
      models.every((m) => m.includes('gpt-4o-mini') && m.includes('openai')),
      `${size}: and its model and provider (${models[0]})`,
    );
    // The prediction on the picked model arrives after (render on the call's scene).
    await rows.first().locator('[data-testid^="live-cost-"]').getByText('$').waitFor();
    const predicted = await rows.first().locator('[data-testid^="live-predicted-"]').innerText();
    check(
      /^\d[\d,]*$/.test(predicted.trim()) && Number(predicted.replace(/,/g, '')) > 0,
      `${size}: a predicted input in tokens and its cost (${predicted})`,
    );
    check((await page.getByTestId('live-dropped').innerText()).startsWith('0 dropped'), `${size}: nothing dropped`);
    await page.screenshot({ path: join(shots, `08-live-${size}.png`) });
    if (width === 1280) await axe(page, 'the Live view with two conversations');

    // The filter box: a word of the provider, then of a question.
    const filter = page.getByTestId('live-filter');
    await filter.fill('anthropic');
    check(
      (await page.getByTestId('live-count').innerText()).startsWith('1 of 3 calls') && (await conversations.count()) === 1,
      `${size}: the filter keeps the Anthropic call only`,
    );
    await filter.fill('june');
    check(
      (await conversations.count()) === 1 && (await conversations.locator('tbody tr').count()) === 1,
      `${size}: and a word of the text finds the call that asked it`,
    );
    await filter.fill('');

    // Pause: the view stops asking; a call posted meanwhile comes on Resume.
    await page.getByTestId('live-pause').click();
    await post(
      otlp,
      exportOf([
        span({
          traceId: '0af7651916cd43dd8448eb211c80319e',
          spanId: '00f067aa0ba902ba',
          model: 'gpt-4o-mini',
          provider: 'openai',
          conversation: trip,
          question: 'And in July?',
          usage: { input: 80, output: 10 },
        }),
      ]),
    );
    await page.waitForTimeout(1200);
    check((await page.getByTestId('live-count').innerText()).includes('3 calls (paused)'), `${size}: paused, a new call is not listed`);
    await page.getByTestId('live-pause').click();
    await conversations.first().locator('tbody tr').nth(2).waitFor({ timeout: 1500 });
    check(true, `${size}: resumed, it is`);

    // Saving: the two first calls of the conversation, as scenes and as JSON lines.
    const out = join(tmp, `live-${size}`);
    mkdirSync(out, { recursive: true });
    const picks = conversations.first().locator('input[type="checkbox"]');
    await picks.nth(0).focus();
    await page.keyboard.press('Space');
    await picks.nth(1).check();
    await page.getByTestId('live-folder').fill(out);
    await page.getByTestId('live-save-scenes').click();
    await page.getByTestId('live-message').getByText('Saved 2 scenes').waitFor();
    const names = readdirSync(out).sort();
    check(
      JSON.stringify(names) === JSON.stringify(['001-chat-gpt-4o-mini.scene.json', '002-chat-gpt-4o-mini.scene.json']),
      `${size}: saved as numbered scenes (${names.join(', ')})`,
    );
    const saved = names.map((n) => readFileSync(join(out, n), 'utf8'));
    check(
      saved[0].includes('What is the weather in Lisbon?') &&
        saved[0].includes('You are a weather assistant.') &&
        saved[1].includes('And in June?'),
      `${size}: each scene holds its call's system text and question`,
    );
    await page.getByTestId('live-save-jsonl').click();
    await page.getByTestId('live-message').getByText('as JSON lines').waitFor();
    const lines = readFileSync(join(out, 'received.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const spanIds = lines.map((l) => l.resourceSpans[0].scopeSpans[0].spans[0].spanId);
    check(
      JSON.stringify(spanIds) === JSON.stringify(['00f067aa0ba902b7', '00f067aa0ba902b9']),
      `${size}: and as JSON lines, one export a line, the two spans sent (${spanIds.join(', ')})`,
    );

    // A call on the board: read-only until saved.
    await conversations
      .first()
      .getByTestId(/^live-show-/)
      .nth(1)
      .click();
    await page.getByTestId('received-note').waitFor();
    check(
      (await page.getByTestId('file-name').innerText()).includes('received call (not saved)') &&
        (await page.getByTestId('received-note').innerText()).includes('not saved'),
      `${size}: Show puts the call on the board, marked a received call, not saved`,
    );
    check(await page.getByText('And in June?').first().isVisible(), `${size}: the board shows the call's question`);
    await page.screenshot({ path: join(shots, `08b-live-on-board-${size}.png`) });

    // The conversation in the Conversation view, from its texts.
    await page.getByRole('tab', { name: 'Live' }).click();
    await conversations.first().getByTestId('live-open-conversation').click();
    await page.getByTestId('conv-call-3').waitFor();
    check(
      (await page.locator('.conversation-view h2').first().innerText()).includes(trip) &&
        (await page.getByTestId('conv-total').innerText()).startsWith('3 calls'),
      `${size}: the conversation opens in the Conversation view, its three calls priced`,
    );
    await page.screenshot({ path: join(shots, `08c-live-conversation-${size}.png`) });
    check(!existsSync(join(out, 'call 1')), `${size}: nothing written for it`);

    await realClient({ page, otlp, size, check, shots });
    await page.close();
  }
}

/** A chat message's text as the board shows it (a string, or the text of its parts). */
const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''));

/**
 * The real client against serve's receiver, one conversation per encoding, in a cleared Live view:
 * each export's two calls are in the view within a second of the export finishing.
 */
async function realClient({ page, otlp, size, check, shots }) {
  await page.getByRole('tab', { name: 'Live' }).click();
  await page.getByTestId('live-clear').click();
  await page.getByText('No calls received yet.').waitFor();
  const sender = startSender(otlp);
  try {
    const conversations = page.getByTestId('live-conversation');
    const reports = [];
    for (const encoding of ['protobuf', 'json']) {
      const r = await sender.send(encoding);
      reports.push(r);
      const exportedAt = r.exported_at * 1000;
      const group = conversations.filter({ hasText: r.trace_id });
      await group
        .locator('tbody tr')
        .nth(r.calls.length - 1)
        .waitFor({ timeout: Math.max(1, 1000 - (Date.now() - exportedAt)) })
        .catch((e) => {
          throw new Error(
            `FAILED: ${size}: the client's ${encoding} export is not in the Live view ${Date.now() - exportedAt} ms after it finished: ${e.message}`,
          );
        });
      const took = Math.round(Date.now() - exportedAt);
      check(
        took <= 1000,
        `${size}: the real client's ${r.calls.length} calls exported over http/${encoding} are in the Live view ${took} ms after the export finished`,
      );
      const head = await group.locator('h3').innerText();
      check(
        head.includes(r.trace_id) &&
          head.includes(`${r.calls.length} calls`) &&
          (await group.locator('tbody tr').count()) === r.calls.length,
        `${size}: ${encoding}: grouped by conversation, the client's trace (${head})`,
      );
      const rows = group.locator('tbody tr');
      for (const [i, call] of r.calls.entries()) {
        const row = rows.nth(i);
        const model = await row.locator('[data-testid^="live-model-"]').innerText();
        check(
          model.startsWith(call.model) && model.includes('openai'),
          `${size}: ${encoding}: call ${i + 1} names the model the client asked for and its provider (${model})`,
        );
        // The instrumentation does not record every figure the stand-in answered (`not_on_span`):
        // what it leaves out must not be made up.
        const cacheRead = call.not_on_span.includes('the cached tokens') ? 0 : call.usage.cache_read;
        const want = `${call.usage.input} in · ${call.usage.output} out · ${cacheRead} cache read`;
        const billed = (await row.locator('[data-testid^="live-billed-"]').innerText()).trim();
        check(billed === want, `${size}: ${encoding}: call ${i + 1} is billed as the stand-in answered (${billed})`);
      }
    }
    check(
      (await conversations.count()) === 2 && (await page.getByTestId('live-count').innerText()).startsWith('4 calls'),
      `${size}: both exports listed, ${await page.getByTestId('live-count').innerText()}`,
    );
    check((await page.getByTestId('live-dropped').innerText()).startsWith('0 dropped'), `${size}: nothing dropped of the client's calls`);
    // The predictions come after the calls (render on each call's scene): the last one's is in.
    await conversations.last().locator('[data-testid^="live-predicted-"]').last().getByText(/^\d/).waitFor();
    await page.screenshot({ path: join(shots, `08d-live-client-${size}.png`) });

    // The second call of the JSON export on the board, its Messages view: every message the
    // client sent, in order (the system text, the question, the tool call with its arguments, the
    // tool's result answering it).
    const call = reports[1].calls[1];
    await conversations
      .filter({ hasText: reports[1].trace_id })
      .getByTestId(/^live-show-/)
      .nth(1)
      .click();
    await page.getByTestId('received-note').waitFor();
    await page.getByTestId('chat-messages').click();
    const cards = page.getByTestId('chat-message-list').locator('.msg');
    await cards.first().waitFor();
    const shown = [];
    for (let i = 0; i < (await cards.count()); i++) {
      const card = cards.nth(i);
      shown.push({
        role: await card.locator('.msg-head b').innerText(),
        text: (await card.locator(':scope > pre').allInnerTexts()).join(''),
        head: await card.locator('.msg-head').innerText(),
        calls: await Promise.all(
          (await card.locator('.run-call').all()).map(async (c) => [
            await c.locator('.run-call-name').innerText(),
            JSON.parse(await c.locator('.run-call-args').innerText()),
          ]),
        ),
      });
    }
    const want = call.messages.map((m) => ({
      role: m.role,
      text: textOf(m),
      calls: (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
      answers: m.tool_call_id ?? null,
    }));
    check(
      shown.length === want.length &&
        want.every(
          (w, i) =>
            shown[i].role === w.role &&
            shown[i].text === w.text &&
            JSON.stringify(shown[i].calls) === JSON.stringify(w.calls) &&
            (!w.answers || shown[i].head.includes(`result of ${w.answers}`)),
        ),
      `${size}: Show puts the client's call on the board, its Messages view the ${want.length} messages the client sent (${shown.map((m) => `${m.role}: ${m.text || JSON.stringify(m.calls)}`).join(' | ')})`,
    );
    await page.mouse.move(1, 1);
    await page.screenshot({ path: join(shots, `08e-live-client-on-board-${size}.png`) });
    await page.getByRole('button', { name: 'Segments' }).first().click();
  } finally {
    await sender.stop();
  }
}
