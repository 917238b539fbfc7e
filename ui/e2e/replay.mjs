// Replay on a corpus and the Rules view for a presenter (docs/app.md, "Run and Replay" and "Rules
// view"), each at 1280x720 and 1440x900 in a page of its own.
//
// Replay: a folder with scenes in subfolders (two without goldens, one that matches, one that does
// not load) opened from a scene in it; the first failure selected; "approve all" asks once, naming
// the count, and writes both goldens; after an edit the mismatch marks the words changed within the
// line and colours the unified diff at AA contrast; failures only and grouping by folder; the
// folder, the answer, the selection and the filters survive a switch of views; a row opens its
// scene in the Inspector; a relative folder is taken from the open scene's folder and the box then
// shows it whole; a missing folder says "no such folder".
//
// Rules: every badge in words; Try it on the user's input shows the tool's text marked inside the
// user message had the rule not existed, the user message alone with it, and the legal position
// with the tool injected; the large-text mode grows the text and is kept across a reload.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SIZES = [
  [1280, 720],
  [1440, 900],
];

/** WCAG contrast ratio of an element's text against its own background, computed in the page. */
const contrastOf = (loc) =>
  loc.evaluate((el) => {
    const rgb = (c) =>
      c
        .match(/[\d.]+/g)
        .slice(0, 3)
        .map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const cs = getComputedStyle(el);
    const a = lum(rgb(cs.color));
    const b = lum(rgb(cs.backgroundColor));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });

/** Whether the element at the centre of `loc` is `loc` itself (or inside it): nothing covers it. */
const onTop = (loc) =>
  loc.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && (hit === el || el.contains(hit));
  });

export async function replayJourney({ browser, url, repo, tmp, check, shots, axe }) {
  const base = readFileSync(join(repo, 'fixtures/default.scene.json'), 'utf8');
  for (const [width, height] of SIZES) {
    const size = `${width}x${height}`;
    const corpus = join(tmp, `corpus-${size}`);
    mkdirSync(join(corpus, 'sub', 'deep'), { recursive: true });
    writeFileSync(join(corpus, 'one.scene.json'), base);
    writeFileSync(join(corpus, 'sub', 'two.scene.json'), base);
    cpSync(join(repo, 'fixtures/run/cd-round-1.scene.json'), join(corpus, 'sub', 'three.scene.json'));
    cpSync(join(repo, 'fixtures/run/cd-round-1.golden.json'), join(corpus, 'sub', 'three.golden.json'));
    writeFileSync(join(corpus, 'sub', 'deep', 'bad.scene.json'), '{ "format": ');

    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    const asked = [];
    page.on('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.goto(`${url}&open=${encodeURIComponent(join(corpus, 'one.scene.json'))}`);
    await page.getByTestId('file-name').getByText('one.scene.json').waitFor();
    await page.getByRole('tab', { name: 'Replay' }).click();
    check((await page.getByTestId('replay-folder').inputValue()) === corpus, `${size}: Replay starts on the open scene's folder`);
    await page.getByRole('button', { name: 'Check' }).click();
    await page.locator('.scene-list button').nth(3).waitFor();
    const selected = page.locator('.scene-list button.on');
    check(
      (await selected.getAttribute('title')) === (await page.locator('.scene-list button').first().getAttribute('title')) &&
        (await selected.innerText()).includes('missing golden'),
      `${size}: the first failure is selected after the check (${await selected.innerText()})`,
    );

    // Approve all: one question naming the count, then every golden written.
    await page.getByTestId('approve-all').click();
    await page.getByText('3 match their goldens, 1 does not').waitFor();
    check(
      asked.length === 1 && asked[0].startsWith('Approve 2 goldens?'),
      `${size}: approve all asked once, naming the count ("${asked[0]}")`,
    );
    check(
      existsSync(join(corpus, 'one.golden.json')) && existsSync(join(corpus, 'sub', 'two.golden.json')),
      `${size}: approve all wrote both goldens`,
    );

    // An edit in two scenes: both mismatch; the first is selected with the change within its line.
    for (const f of ['one.scene.json', join('sub', 'two.scene.json')])
      writeFileSync(join(corpus, f), base.replace('You are TFRobot, a careful research assistant.', 'You are TFRobot, a terse assistant.'));
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('1 matches its golden, 3 do not').waitFor();
    await page.locator('mark.intra-del').first().waitFor();
    const del = await page.locator('mark.intra-del').first().innerText();
    const add = await page.locator('mark.intra-add').first().innerText();
    check(
      del.includes('careful research') && !del.includes('TFRobot') && add.includes('terse') && !add.includes('assistant'),
      `${size}: the words changed within the line are marked (was "${del}", now "${add}")`,
    );
    await page.locator('summary', { hasText: 'Unified diff' }).click();
    const lines = { add: page.locator('.ud-add').first(), del: page.locator('.ud-del').first(), hunk: page.locator('.ud-hunk').first() };
    const ratios = {};
    for (const [k, loc] of Object.entries(lines)) ratios[k] = await contrastOf(loc);
    const bgs = await Promise.all(Object.values(lines).map((l) => l.evaluate((e) => getComputedStyle(e).backgroundColor)));
    check(
      Object.values(ratios).every((r) => r >= 4.5) && new Set(bgs).size === 3,
      `${size}: the unified diff colours added, removed and hunk lines apart, each at AA contrast (${Object.entries(ratios)
        .map(([k, r]) => `${k} ${r.toFixed(1)}:1`)
        .join(', ')})`,
    );
    for (const cls of ['intra-del', 'intra-add']) {
      const r = await contrastOf(page.locator(`mark.${cls}`).first());
      check(r >= 4.5, `${size}: the ${cls} mark holds AA contrast (${r.toFixed(1)}:1)`);
    }
    await page.screenshot({ path: join(shots, `11a-replay-corpus-${size}.png`) });
    await axe(page, `the Replay view on a corpus, a mismatch open (${size})`);

    // Failures only, grouped by folder.
    await page.getByTestId('replay-failures-only').check();
    await page.getByTestId('replay-grouped').check();
    const groups = await page.locator('.scene-group-name').allInnerTexts();
    const rows = await page.locator('.scene-list button').count();
    check(
      JSON.stringify(groups) === JSON.stringify(['this folder (1)', 'sub (1)', 'sub/deep (1)']) && rows === 3,
      `${size}: failures only, grouped by folder (${groups.join(' | ')})`,
    );
    for (const link of await page.getByTestId('replay-open').all())
      check(await onTop(link), `${size}: the Open link of ${await link.getAttribute('title')} is not covered`);
    await page.screenshot({ path: join(shots, `11b-replay-grouped-${size}.png`) });
    await axe(page, `the Replay view grouped, failures only (${size})`);

    // Another view and back: nothing is lost.
    const before = await selected.getAttribute('title');
    await page.getByRole('tab', { name: 'Rules' }).click();
    await page.getByRole('tab', { name: 'Replay' }).click();
    check(
      (await page.getByTestId('replay-folder').inputValue()) === corpus &&
        (await page.locator('.scene-list button').count()) === 3 &&
        (await page.getByTestId('replay-failures-only').isChecked()) &&
        (await page.getByTestId('replay-grouped').isChecked()) &&
        (await selected.getAttribute('title')) === before,
      `${size}: the folder, the answer, the filters and the selection survive a switch of views`,
    );

    // A row opens its scene in the Inspector; Replay still holds its answer afterwards.
    const two = join(corpus, 'sub', 'two.scene.json');
    await page.locator(`[data-testid="replay-open"][title="Open ${two} in the Inspector"]`).click();
    await page.getByTestId('file-name').getByText('two.scene.json').waitFor();
    // The view switches once the open has answered, a moment after the header names the file.
    await page
      .locator('#view-tab-inspector[aria-selected="true"]')
      .waitFor({ timeout: 3000 })
      .catch(() => {});
    check(
      (await page.getByRole('tab', { name: 'Inspector' }).getAttribute('aria-selected')) === 'true' &&
        (await page.getByTestId('file-name').getAttribute('title')) === two,
      `${size}: a row's Open link opens that scene in the Inspector`,
    );
    await page.getByRole('tab', { name: 'Replay' }).click();
    check((await page.locator('.scene-list button').count()) === 3, `${size}: back in Replay, the answer is still there`);

    // Paths: a relative folder from the open scene's folder (now sub/), shown whole once checked;
    // a missing one in words.
    await page.getByTestId('replay-folder').fill('deep');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('0 match their goldens, 1 does not').waitFor();
    check(
      (await page.getByTestId('replay-folder').inputValue()) === join(corpus, 'sub', 'deep'),
      `${size}: "deep" is taken from the open scene's folder and the box shows the folder checked`,
    );
    await page.getByTestId('replay-folder').fill('no-such-folder');
    await page.getByRole('button', { name: 'Check' }).click();
    const err = await page.getByTestId('replay-error').innerText();
    check(
      err === `${join(corpus, 'sub', 'no-such-folder')}: no such folder`,
      `${size}: a missing folder says so in words, named once ("${err}")`,
    );
    await page.close();
  }
}

export async function rulesJourney({ browser, url, check, shots, axe }) {
  for (const [width, height] of SIZES) {
    const size = `${width}x${height}`;
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(url);
    await page.getByTestId('seg-chat-system_msg_prompt').waitFor();
    await page.getByRole('tab', { name: 'Rules' }).click();
    const badges = await page.locator('[data-testid^="badge-"]').allInnerTexts();
    check(
      badges.length === 14 && badges.every((b) => !b.includes('_')) && badges.includes('forbidden: history'),
      `${size}: the 14 badges are words (${[...new Set(badges)].join(' | ')})`,
    );
    await page.getByTestId('try-forbidden').selectOption('reformat_input_prompt');
    await page.getByTestId('try-it').click();
    await page.getByTestId('try-legal-result').waitFor();
    const withText = await page.getByTestId('try-with-text').innerText();
    const withoutText = await page.getByTestId('try-without-text').innerText();
    const marked = await page.getByTestId('try-without-text').locator('mark').allInnerTexts();
    const legalMarked = await page.getByTestId('try-legal-text').locator('mark').allInnerTexts();
    check(
      withText.includes('你刚才记了什么？') &&
        (await page.getByTestId('try-with-text').locator('mark').count()) === 0 &&
        withoutText.startsWith(withText) &&
        marked.length === 1 &&
        marked[0].length > 0,
      `${size}: Try it on the user's input: the user message alone with the rule, the tool's text marked inside it without`,
    );
    check(
      legalMarked.length === 1 &&
        legalMarked[0] === marked[0] &&
        (await page.getByTestId('try-legal-result').innerText()).includes('injected'),
      `${size}: the legal position to contrast injects the same text, marked`,
    );
    const sides = await page
      .locator('.try-side.try-without, .try-side.try-with')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
    check(Math.abs(sides[0] - sides[1]) < 2, `${size}: "had the rule not existed" and "with the rule" side by side`);
    await page.getByTestId('try-result').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `15a-rules-try-${size}.png`) });
    await axe(page, `the Rules view with a Try it result (${size})`);

    // Large text for a projector, kept across a reload.
    const font = () => page.getByTestId('rules-view').evaluate((e) => Number.parseFloat(getComputedStyle(e).fontSize));
    const small = await font();
    await page.getByTestId('rules-large').check();
    const large = await font();
    await page.reload();
    await page.getByTestId('seg-chat-system_msg_prompt').waitFor();
    await page.getByRole('tab', { name: 'Rules' }).click();
    check(
      large >= small * 1.4 && (await font()) === large && (await page.getByTestId('rules-large').isChecked()),
      `${size}: large text grows the view's text from ${small}px to ${large}px and is kept across a reload`,
    );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 0, `${size}: in large text nothing runs past the window's width (${overflow}px)`);
    await page.screenshot({ path: join(shots, `15b-rules-large-${size}.png`) });
    await axe(page, `the Rules view in large text (${size})`);
    await page.getByTestId('rules-large').uncheck();
    await page.close();
  }
}
