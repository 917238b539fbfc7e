// Browser end-to-end journey against the real core: `prompt-inspector serve --port 0 --ui ui/dist`
// driven with playwright-core and Debian's Chromium (/usr/bin/chromium; never downloaded).
// open the default scene → edit a tool template → the segment updates → pick a forbidden position
// → its rule and reason show → save (temp path) → reopen; edit a configured prompt, a tool's
// returns kind, open from the Recent menu; a keyboard-only edit and save (keyboard.mjs); the Rules,
// Run and Replay views; then keystroke-to-paint on the large generated scene. Each view and open
// menu is scanned with axe-core (axe.mjs): a serious or critical violation fails the journey.
// Screenshots go to ui/e2e/screenshots/.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { AXE_VERSION, scanPage } from './axe.mjs';
import { editingJourney } from './editing.mjs';
import { fontsJourney } from './fonts.mjs';
import { keyboardJourney } from './keyboard.mjs';
import { layoutJourney } from './layout.mjs';
import { listsJourney } from './lists.mjs';
import { moneyJourney } from './money.mjs';
import { problemsJourney } from './problems.mjs';
import { liveJourney } from './live.mjs';
import { replayJourney, rulesJourney } from './replay.mjs';
import { reportJourney } from './report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ui = resolve(here, '..');
const repo = resolve(ui, '..');
const shots = join(here, 'screenshots');
mkdirSync(shots, { recursive: true });
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install -y chromium`);

// PI_BIN overrides the binary; otherwise the debug build, built when missing.
const bin = process.env.PI_BIN ?? join(repo, 'target/debug/prompt-inspector');
if (!existsSync(bin)) execFileSync('cargo', ['build', '--bin', 'prompt-inspector'], { cwd: repo, stdio: 'inherit' });
if (!existsSync(join(ui, 'dist/index.html'))) execFileSync('npm', ['run', 'build'], { cwd: ui, stdio: 'inherit' });

// The models table the core prices with, read from the repository (not from the app under test).
const TABLE = JSON.parse(readFileSync(join(repo, 'data/models.json'), 'utf8')).models;
const row = (id) => TABLE.find((r) => r.id === id);
/** Dollars as the app shows them (ui/src/lib/costs.ts, fmtUsd), of a figure the core rounds to 1e-8. */
function usd(x) {
  const n = Math.round(x * 1e8) / 1e8;
  return n === 0 ? '$0' : n >= 1 ? `$${n.toFixed(2)}` : n >= 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(6)}`;
}
const tmp = mkdtempSync(join(tmpdir(), 'pi-e2e-'));
const children = [];
let failed = false;
const step = (m) => console.log(`• ${m}`);
function check(cond, msg) {
  if (!cond) throw new Error(`FAILED: ${msg}`);
  step(`ok: ${msg}`);
}
// The axe-core scans: each fails the journey on a serious or critical violation; the moderate
// and minor ones are gathered for the summary at the end.
const lesser = new Map();
async function axe(p, name) {
  const r = await scanPage(p, name);
  for (const v of r.others)
    if (!lesser.has(v.id))
      lesser.set(v.id, `${v.impact} ${v.id} (${v.help}), first on ${name} at ${v.nodes.map((n) => n.target).join(', ')}`);
  step(`ok: axe-core ${AXE_VERSION}: no serious or critical violation on ${name}`);
}

/** Each server's OTLP receiver (the second line serve prints), by the URL of its page. */
const otlpOf = new Map();

async function startServe(exe = bin, cwd = repo) {
  // The receiver on a port of its own: never the 4318 a running app or collector may hold.
  const p = spawn(exe, ['serve', '--port', '0', '--ui', join(ui, 'dist'), '--otlp', '127.0.0.1:0'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(p);
  p.stderr.on('data', () => {});
  return await new Promise((res, rej) => {
    let buf = '';
    const t = setTimeout(() => rej(new Error(`serve printed no URL: ${buf}`)), 20000);
    p.stdout.on('data', (d) => {
      buf += d;
      const m = /serving on (http:\/\/\S+)/.exec(buf);
      const o = /otlp on (http:\/\/\S+)/.exec(buf);
      if (m && o) {
        clearTimeout(t);
        otlpOf.set(m[1], o[1]);
        res(m[1]);
      }
    });
    p.on('exit', (c) => rej(new Error(`serve exited ${c}: ${buf}`)));
  });
}

// A fresh profile each run (Playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(join(tmp, 'profile'), {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1600, height: 1000 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const url = await startServe();
  step(`serve: ${url}`);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => d.accept());

  // 0. The scan itself finds what it should: a file page under a CSP as strict as the HTML
  // report's, with an unnamed button and an image without a text equivalent, fails it.
  {
    const bad = join(tmp, 'bad-a11y.html');
    writeFileSync(
      bad,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>bad</title></head><body><main><h1>bad</h1><button></button><div role="img"></div></main></body></html>`,
    );
    await page.goto(`file://${bad}`);
    const err = await scanPage(page, 'a page made to fail').then(
      () => null,
      (e) => String(e.message),
    );
    check(
      !!err &&
        /button-name \(critical\)/.test(err) &&
        /role-img-alt \(serious\)/.test(err) &&
        err.includes('https://dequeuniversity.com/rules/axe/'),
      `the axe-core scan fails a page with an unnamed button and an unlabelled image, under a strict CSP (${err?.split('\n')[0]})`,
    );
  }

  // 0b. The single-file HTML reports (report.mjs).
  await reportJourney({
    bin,
    repo,
    tmp,
    shots,
    check,
    axe,
    chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

  // 1. The default scene.
  await page.goto(url);
  const sysCard = page.getByTestId('seg-chat-system_msg_prompt');
  await sysCard.getByText('工作笔记').waitFor();
  // No character drawn as a box (fonts.mjs), and the check finds boxes where a CJK font is missing.
  await fontsJourney({ page, url, tmp, check, chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  check(
    await page
      .getByTestId('file-name')
      .innerText()
      .then((t) => t.includes('default scene')),
    'opens on the embedded default scene',
  );
  check(
    await page
      .getByTestId('tool-goal_rewriter')
      .innerText()
      .then((t) => t.includes('invalid')),
    'goal_rewriter shows an invalid chip',
  );
  await page.screenshot({ path: join(shots, '01-default-scene.png') });
  await axe(page, 'the main window (default scene, segment board)');
  await page.getByTestId('chat-messages').click();
  await page.getByTestId('desk-request').click();
  await page.locator('.msg').first().waitFor();
  check(
    await page
      .locator('.request-body')
      .innerText()
      .then((t) => t.includes('"instructions"')),
    'the desk toggle shows the openai_desk request body',
  );
  await page.mouse.move(1, 1); // the scan reads the resting colours, not those of the button last clicked
  await page.screenshot({ path: join(shots, '01b-messages-and-request.png') });
  await axe(page, 'the Messages and Request body views');
  await page.getByRole('button', { name: 'Segments' }).first().click();
  await page.getByRole('button', { name: 'Segments' }).nth(1).click();

  // ── 1c: the board says what is true (reformat card, invalid tool, forbidden reason, metrics) ──
  // The reformat card shows the user message the segment yields: the input, sent as is.
  const reformat = page.getByTestId('seg-chat-reformat_input_prompt');
  const sentText = await reformat.getByTestId('reformat-sent').innerText();
  check(
    sentText.includes("no reformat prompt configured: the user's input is sent as is") && sentText.includes('你刚才记了什么？'),
    'the reformat card shows the user input sent as the user message, not "empty"',
  );
  // goal_rewriter is invalid on its desk side only; its row and both chips say why neither side injects.
  const whyText = 'invalid: desk position purpose_prompt is forbidden (iron rule 1, user intent), so the tool takes part in neither family';
  check((await page.getByTestId('why-goal_rewriter').innerText()) === whyText, "goal_rewriter's row explains why both sides are off");
  const chipTips = await page
    .getByTestId('tool-goal_rewriter')
    .locator('.chip')
    .evaluateAll((els) => els.map((e) => e.title));
  check(
    chipTips.length === 2 && chipTips.every((t) => t.includes(whyText)),
    `both of goal_rewriter's chips carry the reason (${chipTips[0]})`,
  );
  // A forbidden reason: two lines closed; opened from the keyboard, it reads whole.
  const badge = page.getByTestId('forbidden-chat-reformat_input_prompt');
  const reasonCut = () => badge.locator('.reason').evaluate((r) => r.scrollHeight > r.clientHeight + 1);
  const cutBefore = await reasonCut();
  await badge.locator('summary').focus();
  await page.keyboard.press('Enter');
  check(
    (await badge.evaluate((d) => d.open)) && !(await reasonCut()),
    `a forbidden reason opens from the keyboard and reads whole (cut before: ${cutBefore})`,
  );
  check(
    await badge.innerText().then((t) => t.includes('nobody can trace back') && t.includes('docs/rules.md')),
    'the opened reason ends whole and points at docs/rules.md',
  );
  await page.screenshot({ path: join(shots, '01c-board-truth.png') });
  await axe(page, 'the board with a forbidden reason open');
  // The metrics read in the CLI's words, the tools in the call told from those declaring a position.
  const metrics = page.getByTestId('metrics');
  await metrics.scrollIntoViewIfNeeded();
  const mText = await metrics.innerText();
  check(
    [
      'tools in the call\t3\t3',
      'tools declaring a position\t2\t2',
      'tools that rendered text',
      'bytes injected',
      'system_msg_prompt',
    ].every((w) => mText.includes(w)),
    'the injection metrics use readable labels and segment names',
  );
  check(
    await page
      .locator('aside.right')
      .innerText()
      .then((t) => /injection metrics/i.test(t) && !/seed 0\d\d|§\s*\d/.test(t)),
    'the metrics heading is "Injection metrics", with no section-number citation',
  );
  check(
    (await page.getByTestId('count-tools').getAttribute('title')) === '3 tools in the call, valid or not',
    "the Tools tab's count says it counts every tool in the call",
  );
  await page.locator('aside.right').screenshot({ path: join(shots, '01d-metrics.png') });
  // The favicon is served with the UI.
  const icon = await page.evaluate(async () => {
    const l = document.querySelector('link[rel="icon"]');
    const r = await fetch(l.href);
    return { status: r.status, type: r.headers.get('content-type') };
  });
  check(icon.status === 200 && icon.type.startsWith('image/svg+xml'), `the favicon is served (${icon.status} ${icon.type})`);
  // About in a browser: the program is serve, the core's own command line, so both lines carry
  // the core's Cargo.toml version.
  {
    const core = /^\[package\][^[]*?^version = "([^"]+)"/m.exec(readFileSync(join(repo, 'Cargo.toml'), 'utf8'))[1];
    await page.getByRole('button', { name: 'About Prompt Inspector' }).click();
    const about = page.getByRole('dialog', { name: 'About Prompt Inspector' });
    await about.waitFor();
    const lines = [await about.getByTestId('about-app').innerText(), await about.getByTestId('about-core').innerText()];
    check(
      lines[0] === `prompt-inspector serve ${core}` && lines[1] === `prompt-inspector ${core}`,
      `About names serve and the core with the core's version (${lines.join(' | ')})`,
    );
    await page.keyboard.press('Escape');
    await about.waitFor({ state: 'detached' });
  }
  // A long path in the header: the file's base name, the full path on hover.
  const deep = join(tmp, 'a-rather-long-folder-name', 'and-another-long-folder', 'deep.scene.json');
  mkdirSync(dirname(deep), { recursive: true });
  writeFileSync(deep, readFileSync(join(repo, 'fixtures/default.scene.json')));
  await page.getByTestId('path-input').fill(deep);
  await page.getByTestId('path-input').press('Enter');
  await page.getByTestId('file-name').getByText('deep.scene.json').waitFor();
  const fileName = page.getByTestId('file-name');
  const shownName = await fileName.innerText();
  check(
    shownName.trim() === 'deep.scene.json' && (await fileName.getAttribute('title')) === deep,
    `a long open path shows as its base name (${shownName}), the full path in its title`,
  );
  await page.screenshot({ path: join(shots, '01e-long-path.png'), clip: { x: 0, y: 0, width: 1600, height: 80 } });
  check(await fileName.evaluate((e) => e.scrollWidth <= e.clientWidth + 1), 'the name is not clipped in the header');
  await page.getByRole('button', { name: 'Default', exact: true }).click();
  await page.getByTestId('file-name').getByText('default scene').waitFor();
  await sysCard.getByText('工作笔记').waitFor();
  // ── end of 1c ──────────────────────────────────────────────────────────────────────────────

  // ── 1f: costs on the picked model (keyboard only), the cache-safety lint, diagnostics' links ──
  {
    const picker = page.getByRole('combobox', { name: 'Model' });
    const firstDefault = TABLE.find((r) => r.default).id;
    check((await picker.inputValue()) === firstDefault, `the model picker starts on the table's first default row (${firstDefault})`);
    const figures = () => sysCard.getByTestId('seg-figures').innerText();
    const tokensOf = (t) => Number(/· (\d+) tokens/.exec(t)[1]);
    const priced = async (id) => {
      const t = await figures();
      return t.endsWith(`· ${usd((tokensOf(t) * row(id).prices_per_mtok.input) / 1e6)}`);
    };
    check(await priced(firstDefault), `a segment card shows its tokens' cost on ${firstDefault} (${await figures()})`);
    // Keyboard only: Tab from the Default button reaches the picker; typing a name picks that row.
    await page.getByRole('button', { name: 'Default', exact: true }).focus();
    await page.keyboard.press('Tab');
    check(await picker.evaluate((el) => el === document.activeElement), 'Tab reaches the model picker (it follows the Default button)');
    // ↓ on the closed picker opens its list and changes nothing (ui/src/lib/select-keys.ts); ↓ and
    // Enter in the list pick the next row.
    await page.keyboard.press('ArrowDown');
    check((await picker.inputValue()) === firstDefault, `↓ on the closed model picker changes nothing (still ${firstDefault})`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const next = TABLE[TABLE.findIndex((r) => r.id === firstDefault) + 1].id;
    await page.waitForFunction((id) => document.querySelector('[data-testid="model"]').value === id, next);
    await page.waitForFunction((id) => document.querySelector('[data-testid="call-cost-chat"]')?.dataset.model === id, next);
    check(await priced(next), `↓ and Enter in its list pick the next row (${next}) and the board is priced for it`);
    await page.keyboard.type('claude-sonnet-4-5');
    const sonnet = 'anthropic/claude-sonnet-4-5';
    await page.waitForFunction((id) => document.querySelector('[data-testid="call-cost-chat"]')?.dataset.model === id, sonnet);
    check((await picker.inputValue()) === sonnet && (await priced(sonnet)), `typing a model's name picks it (${await figures()})`);
    const pieces = await sysCard.getByTestId('piece-figure').allInnerTexts();
    const rate = row(sonnet).prices_per_mtok.input;
    check(
      pieces.length === 2 &&
        pieces.every((p) => {
          const m = /(\d+) tokens · (\$[\d.]+)$/.exec(p);
          return m && m[2] === usd((Number(m[1]) * rate) / 1e6);
        }),
      `each piece shows its tokens and their cost at $${rate} per million (${pieces.join(' | ')})`,
    );
    await page.screenshot({ path: join(shots, '01f-costs.png') });
    // The toolbar stays one row in a window as wide as the app's (1440 px): the path box shrinks.
    await page.setViewportSize({ width: 1440, height: 900 });
    const oneRow = await page.evaluate(() => {
      const h = document.querySelector('header').getBoundingClientRect();
      const open = document.querySelector('[data-testid="open"]').getBoundingClientRect();
      return h.height < 2 * open.height;
    });
    await page.screenshot({ path: join(shots, '01f-toolbar-1440.png'), clip: { x: 0, y: 0, width: 1440, height: 60 } });
    await page.setViewportSize({ width: 1600, height: 1000 });
    check(oneRow, 'with the model picker the toolbar stays one row 1440 px wide');
    await sysCard.screenshot({ path: join(shots, '01g-card-costs.png') });
    await page.reload();
    await sysCard.getByText('工作笔记').waitFor();
    check((await picker.inputValue()) === sonnet, 'the picked model is remembered across a reload');
    // The Tools view: a definition's tokens and cost (a scene that records schemas).
    await page.getByTestId('path-input').fill(join(repo, 'fixtures/providers/chat.scene.json'));
    await page.getByTestId('open').click();
    await page.getByTestId('definition-tf_notes').waitFor();
    const def = await page.getByTestId('definition-tf_notes').innerText();
    check(
      def === `definition 296 B · 70 tokens · ${usd((70 * rate) / 1e6)}`,
      `the Tools view prices a definition on the picked model (${def})`,
    );
    await page.locator('.tool-list').screenshot({ path: join(shots, '01h-definition-costs.png') });
    await page.getByRole('button', { name: 'Default', exact: true }).click();
    await sysCard.getByText('工作笔记').waitFor();

    // The diagnostics panel: the lint's heading; a diagnostic about a tool links to its template.
    const panel = page.locator('aside.right');
    check(
      (await panel.locator('.diag-kind', { hasText: 'cache safety' }).count()) > 0,
      "the diagnostics panel tags the cache-safety lint's findings",
    );
    // cache_below_minimum is about the whole request for the picked model: it names no template.
    const lint = panel.locator('li.diag').filter({ has: page.locator('.diag-kind') });
    const lintLinks = (await lint.count()) - (await lint.filter({ hasText: 'cache_below_minimum' }).count());
    const lintTargets = await lint.getByTestId('diag-template').count();
    check(
      lintLinks > 0 && lintTargets === lintLinks,
      `every cache-safety finding that names a tool links to its template (${lintLinks} findings)`,
    );
    const toGoal = panel.getByRole('button', { name: 'tool goal_rewriter: template' });
    await toGoal.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('tool-detail').getByRole('heading', { name: 'goal_rewriter' }).waitFor();
    await page.waitForFunction(() => !!document.activeElement?.closest('[data-testid="template-editor"]'));
    check(true, "tool_invalid's link (Enter) opens goal_rewriter's template editor with the focus in it");
    // A configured prompt that fails to render: its link opens that prompt's template.
    await page.getByTestId('pane-prompts').click();
    await page.getByTestId('prompt-system_msg_prompt-0').click();
    await page.getByTestId('prompt-editor').locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' {nope}');
    const toPrompt = panel.getByRole('button', { name: /^configured prompt 0 of system_msg_prompt: template/ });
    await toPrompt.waitFor();
    check(
      await panel
        .getByTestId('diagnostics')
        .innerText()
        .then((t) => t.includes('prompt_render_failed')),
      'a prompt that fails to render is listed (prompt_render_failed)',
    );
    await page.getByTestId('pane-tools').click();
    await toPrompt.click();
    await page.getByTestId('prompt-detail').getByText('chat_llm.system_msg_prompt[0]').waitFor();
    await page.waitForFunction(() => !!document.activeElement?.closest('[data-testid="prompt-editor"]'));
    check(true, "prompt_render_failed's link opens the Prompts pane on chat_llm.system_msg_prompt[0], the focus in its template");
    check(
      await page.evaluate(() => window.scrollY === 0 && document.querySelector('header').getBoundingClientRect().top === 0),
      'the window does not scroll away from the header to show the editor (only its pane does)',
    );
    await page.screenshot({ path: join(shots, '01i-diagnostic-link.png') });
    await axe(page, "the Prompts pane opened by a diagnostic's link (a template error)");
    await page.getByTestId('pane-tools').click();
    await page.getByRole('button', { name: 'Default', exact: true }).click(); // discards the broken prompt
    await sysCard.getByText('You are TFRobot, a careful research assistant.').waitFor();
  }
  // ── end of 1f ──────────────────────────────────────────────────────────────────────────────

  // 2. Edit tf_notes' template: the chat and desk segments update.
  await page.getByTestId('tool-tf_notes').click();
  const ed = page.getByTestId('template-editor').locator('.cm-content');
  await ed.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('E2E-MARK ');
  await sysCard.getByText('E2E-MARK').waitFor({ timeout: 5000 });
  await page.getByTestId('seg-desk-system_prompt').getByText('E2E-MARK').waitFor({ timeout: 5000 });
  check(true, 'editing the template updates system_msg_prompt (chat) and system_prompt (desk)');
  check(await page.getByTestId('unsaved').isVisible(), 'the unsaved marker shows');
  await page.screenshot({ path: join(shots, '02-template-edited.png') });

  // 2b. A template syntax error is underlined where it is (validate → lint), then fixed.
  await page.getByTestId('tool-chat_memo').click();
  await page.getByTestId('template-editor').locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' {oops');
  await page.getByTestId('template-editor').locator('.cm-lintRange-error').waitFor({ timeout: 5000 });
  await page.getByTestId('tool-detail').getByTestId('problems-link').waitFor();
  check(
    await page
      .locator('aside.right')
      .getByTestId('diagnostics')
      .innerText()
      .then((t) => /ValueError/.test(t)),
    'an fstring syntax error is underlined, named in the Diagnostics panel (ValueError), and linked from under the editor',
  );
  // Hovering the underline shows the message in a tooltip, whole: not clipped at the left pane's
  // edge (the panes have strict containment; the tooltips live in the body).
  const under = await page.getByTestId('template-editor').locator('.cm-lintRange-error').first().boundingBox();
  await page.mouse.move(under.x + under.width / 2, under.y + under.height / 2);
  const tip = page.locator('.cm-tooltip-hover');
  await tip.waitFor({ timeout: 5000 });
  const shown = await tip.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const pane = document.querySelector('aside.left').getBoundingClientRect();
    const hit = document.elementFromPoint(r.right - 4, r.top + r.height / 2);
    return { text: el.textContent, beyondPane: r.right > pane.right, visible: !!hit && el.contains(hit) };
  });
  check(
    /ValueError/.test(shown.text) && shown.visible,
    `the error's tooltip shows its message whole (${shown.beyondPane ? "past the pane's edge" : 'inside the pane'}): ${shown.text}`,
  );
  await page.screenshot({ path: join(shots, '02b-template-error.png') });
  await page.mouse.move(5, 5);
  for (let i = 0; i < 6; i++) await page.keyboard.press('Backspace');
  await page.getByTestId('seg-chat-after_input_msg_prompt').getByText('Memo: The user prefers answers in Chinese.').waitFor();
  await page.getByTestId('template-editor').locator('.cm-lintRange-error').waitFor({ state: 'detached', timeout: 5000 });
  check(true, 'fixing it removes the underline');
  await page.getByTestId('tool-tf_notes').click();

  // 2c. The context tree is editable: change user_input.input, the desk purpose_prompt follows.
  await page.locator('.tree button.val').first().click();
  await page.locator('.tree .leaf-input').fill('列出所有笔记');
  await page.locator('.tree .leaf-input').press('Enter');
  await page.getByTestId('seg-desk-purpose_prompt').getByText('Task: 列出所有笔记').waitFor();
  check(true, 'editing the context tree re-renders (desk purpose_prompt shows the new input)');

  // 3. A forbidden position: its rule and reason show.
  await page.getByTestId('pos-chat').selectOption('reformat_input_prompt');
  const box = page.getByTestId('rule-box');
  await box.waitFor();
  const boxText = await box.innerText();
  check(
    boxText.includes('Iron rule 1') && boxText.includes('rewrites what the user asked for'),
    'the forbidden position shows iron rule 1 and its reason',
  );
  await page.getByTestId('tool-invalid').waitFor();
  await page.getByTestId('tool-tf_notes').getByText('chat invalid').waitFor();
  check(true, 'tf_notes becomes invalid (ValueError at class definition)');
  await page.screenshot({ path: join(shots, '03-forbidden-position.png') });
  await axe(page, 'a forbidden position picked (rule box, invalid tool)');
  // Back to a legal position before saving.
  await page.getByTestId('pos-chat').selectOption('system_msg_prompt');
  await sysCard.getByText('E2E-MARK').waitFor();

  // 4. Save to a temp path, then reopen.
  const saved = join(tmp, 'journey.scene.json');
  await page.getByTestId('path-input').fill(saved);
  await page.getByTestId('save-as').click();
  await page.locator(`[data-testid=file-name][title="${saved}"]`).waitFor();
  check(!(await page.getByTestId('unsaved').count()), 'saved: the unsaved marker is gone');
  check(readFileSync(saved, 'utf8').includes('E2E-MARK'), 'the file on disk holds the edit');
  await page.goto(`${url}&open=${encodeURIComponent(saved)}`);
  await sysCard.getByText('E2E-MARK').waitFor();
  check(
    await page
      .getByTestId('file-name')
      .innerText()
      .then((t) => t.includes('journey.scene.json')),
    'reopened the saved file: the edit is there',
  );

  // 5. A bad file shows its error with line and column and leaves the open scene.
  const bad = join(tmp, 'bad.scene.json');
  writeFileSync(bad, '{\n  "format": "prompt-inspector/scene@1",\n  "nam": 1\n}\n');
  await page.getByTestId('path-input').fill(bad);
  await page.getByTestId('open').click();
  const fe = await page.getByTestId('file-error').innerText();
  check(/:\d+:\d+/.test(fe), `a bad file shows line:column (${fe.slice(0, 90)})`);
  check(await sysCard.getByText('E2E-MARK').isVisible(), 'the open scene stays as it was');
  await page.screenshot({ path: join(shots, '04-bad-file.png') });

  // 6. Reload on an outside change (no unsaved edits).
  await page.getByText('Dismiss').click();
  writeFileSync(saved, readFileSync(saved, 'utf8').replace('E2E-MARK', 'DISK-EDIT'));
  await sysCard.getByText('DISK-EDIT').waitFor({ timeout: 5000 });
  check(true, 'an outside change to the file reloads it');

  // ── 6b–6d: configured prompts, a tool's returns kind, the Recent menu ──────────────────────
  // 6b. A configured prompt is edited like a tool template: its segment on the board updates.
  // Clicking the prompt's piece on the board opens its editor in the Prompts pane.
  await sysCard.locator('.piece').first().click();
  await page.getByTestId('prompt-detail').getByText('chat_llm.system_msg_prompt[0]').waitFor();
  check(
    (await page.getByTestId('pane-prompts').getAttribute('aria-selected')) === 'true',
    "clicking a configured prompt's piece on the board opens that prompt in the Prompts pane",
  );
  const ped = page.getByTestId('prompt-editor').locator('.cm-content');
  await ped.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('PROMPT-MARK ');
  await sysCard.locator('.piece').getByText('PROMPT-MARK You are TFRobot').waitFor({ timeout: 5000 });
  check(true, 'editing a configured prompt updates its segment on the board (system_msg_prompt)');
  // Its template errors are underlined as a tool template's are.
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' {oops');
  await page.getByTestId('prompt-editor').locator('.cm-lintRange-error').waitFor({ timeout: 5000 });
  await page.getByTestId('prompt-detail').getByTestId('problems-link').waitFor();
  check(
    await page
      .locator('aside.right')
      .getByTestId('diagnostics')
      .innerText()
      .then((t) => /ValueError/.test(t)),
    "a configured prompt's syntax error is underlined and named in the Diagnostics panel",
  );
  await page.getByTestId('prompt-system_msg_prompt-0').getByText('template error').waitFor();
  await page.screenshot({ path: join(shots, '04b-prompt-edited.png') });
  for (let i = 0; i < 6; i++) await page.keyboard.press('Backspace');
  await page.getByTestId('prompt-editor').locator('.cm-lintRange-error').waitFor({ state: 'detached', timeout: 5000 });
  await sysCard.getByText('PROMPT-MARK You are TFRobot, a careful research assistant.').waitFor();
  // A jinja2 prompt gets the jinja2 editor.
  await page.getByTestId('prompt-after_input_msg_prompt-0').click();
  check((await page.getByTestId('prompt-editor-engine').inputValue()) === 'jinja2', 'the jinja2 prompt opens with the jinja2 engine');

  // 6c. A tool's returns kind: its status chip follows; "not overridden" removes the field.
  await page.getByTestId('pane-tools').click();
  await page.getByTestId('tool-chat_memo').click();
  const memoChip = page.getByTestId('tool-chat_memo');
  check((await page.getByTestId('returns-kind').inputValue()) === 'str', 'chat_memo returns str');
  await page.getByTestId('returns-kind').selectOption('none');
  await memoChip.getByText('chat empty').waitFor({ timeout: 5000 });
  check(true, 'returns none: the chat chip says empty');
  await page.getByTestId('returns-kind').selectOption('raise');
  await memoChip.getByText('chat error').waitFor({ timeout: 5000 });
  await page.getByTestId('tool-detail').getByTestId('problems-link').getByText('1 error about chat_memo').waitFor();
  await page.locator('aside.right').getByTestId('diagnostics').getByText('tool_raised').first().waitFor();
  check(true, 'returns raise: the chip says error and the ERROR is shown');
  await page.screenshot({ path: join(shots, '04c-returns-kind.png') });
  await page.getByTestId('returns-kind').selectOption('default');
  await memoChip.getByText('chat invalid').waitFor({ timeout: 5000 });
  check(
    await page
      .getByTestId('tool-invalid')
      .innerText()
      .then((t) => t.includes('TypeError')),
    'not overridden: prompt_position without format_2_prompt is a TypeError',
  );
  await page.getByTestId('returns-kind').selectOption('str');
  await memoChip.getByText('chat injected').waitFor({ timeout: 5000 });
  await page.getByTestId('seg-chat-after_input_msg_prompt').getByText('Memo: The user prefers answers in Chinese.').waitFor();
  check(true, 'back to str: the template is back and injected again');

  // 6d. Recent menu: open a file from it (keyboard), a bad one leaves the open scene, clear.
  const other = join(tmp, 'other.scene.json');
  writeFileSync(
    other,
    readFileSync(join(repo, 'fixtures/default.scene.json'), 'utf8').replace(
      'You are TFRobot, a careful research assistant.',
      'RECENT-OTHER',
    ),
  );
  await page.getByTestId('path-input').fill(other);
  await page.getByTestId('open').click(); // discards the unsaved edits (the dialog is accepted)
  await sysCard.getByText('RECENT-OTHER').waitFor();
  await page.getByTestId('recent').focus();
  await page.keyboard.press('ArrowDown');
  const menu = page.getByTestId('recent-menu');
  await menu.waitFor();
  const items = await menu.getByRole('menuitem').allInnerTexts();
  check(
    items[0].includes('other.scene.json') &&
      items[0].includes('(open)') &&
      items[1].includes('journey.scene.json') &&
      items.at(-1) === 'Clear recent',
    `the Recent menu lists the files, newest first (${items.map((x) => x.split('\n')[0]).join(' | ')})`,
  );
  await page.screenshot({ path: join(shots, '04d-recent-menu.png') });
  await axe(page, 'the Recent menu open');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.locator(`[data-testid=file-name][title="${saved}"]`).waitFor();
  await sysCard.getByText('DISK-EDIT').waitFor();
  check(!(await menu.count()), 'picking journey.scene.json from the menu (keyboard) opens it, and the menu closes');
  writeFileSync(other, '{ "format": "prompt-inspector/scene@1", ');
  await page.getByTestId('recent').click();
  await menu.getByRole('menuitem', { name: /other\.scene\.json/ }).click();
  await page.getByTestId('file-error').waitFor();
  check(
    (await page
      .getByTestId('file-name')
      .innerText()
      .then((t) => t.includes('journey.scene.json'))) && (await sysCard.getByText('DISK-EDIT').isVisible()),
    'a bad file from the menu shows its error and leaves the open scene',
  );
  await page.getByText('Dismiss').click();
  await page.getByTestId('recent').click();
  await page.getByTestId('recent-clear').click();
  await page.getByTestId('recent').click();
  check(await menu.innerText().then((t) => t.includes('No recent files yet')), 'Clear recent empties the menu');
  await page.keyboard.press('Escape');
  // ── end of 6b–6d ─────────────────────────────────────────────────────────────────────────

  // 6e. Keyboard only: reach a tool, change its position, edit its template, save (ui/e2e/keyboard.mjs).
  await keyboardJourney({ page, url, repo, dir: tmp, check, shot: (name) => page.screenshot({ path: join(shots, name) }) });
  // 6f. The lists (listboxes, filters), the path box and the editor's caret by keyboard alone (lists.mjs).
  await listsJourney({ page, url, repo, dir: tmp, check, shots, axe });

  // 6g. Every view reachable at every width, notices that do not move the views, AA contrast in
  // every state (layout.mjs).
  await layoutJourney({ page, url, repo, tmp, check, shots, axe });
  // 6h. The problems panel and the board's figures saying what they are (ui/e2e/problems.mjs).
  await problemsJourney({ page, repo, check, shots, axe });
  // 6i. Help while editing a template at 1280x720 and 1440x900 (ui/e2e/editing.mjs).
  await editingJourney({ page, url, repo, dir: tmp, check, shots, axe });

  // 7. Other views.
  await page.getByRole('tab', { name: 'Rules' }).click();
  await page.getByTestId('try-it').click();
  await page.getByTestId('try-result').waitFor();
  await page.screenshot({ path: join(shots, '05-rules.png'), fullPage: false });
  await axe(page, 'the Rules view (with a "Try it" result)');
  // 7-rules. The Rules view for a presenter at 1280x720 and 1440x900 (replay.mjs).
  await rulesJourney({ browser, url, check, shots, axe });
  await page.getByRole('tab', { name: 'Run' }).click();
  await page.getByTestId('run-example').click();
  await page.locator('.iteration').first().waitFor();
  await page.screenshot({ path: join(shots, '06-run.png') });
  // The bars in tokens: a run whose system message is long enough for a breakpoint cache writes
  // it in round 1 and reads it back after; each share and the cost as the models table prices it.
  {
    const base = JSON.parse(readFileSync(join(repo, 'fixtures/run/cd-round-2.scene.json'), 'utf8'));
    const skills = Array.from({ length: 300 }, (_, i) => `- skill-${i}: runs task number ${i} of the project`);
    base.run.system_parts['10_skills'] = `<available_skills>\n${skills.join('\n')}\n</available_skills>`;
    const long = join(tmp, 'long-system.scene.json');
    writeFileSync(long, JSON.stringify(base, null, 2));
    await page.getByTestId('run-path').fill(long);
    await page.getByTestId('run-file').click();
    await page.locator('.run-summary').getByText(long).waitFor();
    const sonnet = row('anthropic/claude-sonnet-4-5');
    const shares = async (n) => {
      const label = await page.getByTestId(`prefix-bar-${n}`).getAttribute('aria-label');
      const m = /: (\d+) input tokens, (\d+) read from the prompt cache, (\d+) written to it, (\d+) uncached; costs (\$[\d.]+)/.exec(label);
      return { label, total: +m[1], read: +m[2], written: +m[3], uncached: +m[4], cost: m[5] };
    };
    const headTokens = async (n) => Number(/· (\d+) tokens/.exec(await page.getByTestId(`run-round-${n}`).locator('h3').innerText())[1]);
    const p = sonnet.prices_per_mtok;
    const bill = (s) => usd((s.uncached * p.input + s.read * p.cached_input + s.written * p.cache_write['5m']) / 1e6);
    const [r1, r2] = [await shares(1), await shares(2)];
    check(
      r1.label.includes(sonnet.id) && r1.written > sonnet.cache.min_tokens && r1.read === 0 && r2.read === r1.written && r2.written === 0,
      `on ${sonnet.id} request 1 writes the long system message to the cache and request 2 reads it back (${r1.written} tokens)`,
    );
    for (const [n, s] of [
      [1, r1],
      [2, r2],
    ])
      check(
        s.read + s.written + s.uncached === s.total && s.total === (await headTokens(n)) && s.cost === bill(s),
        `request ${n}: read ${s.read} + written ${s.written} + uncached ${s.uncached} = its ${s.total} tokens, costing ${s.cost} at the table's prices`,
      );
    const parts = async (n) =>
      page
        .getByTestId(`prefix-bar-${n}`)
        .locator('.part')
        .evaluateAll((ps) => ps.map((x) => x.className));
    check(
      JSON.stringify(await parts(1)) === JSON.stringify(['part written', 'part uncached']) &&
        JSON.stringify(await parts(2)) === JSON.stringify(['part read', 'part uncached']),
      'the bars draw the written share in request 1 and the read share in request 2',
    );
    check(
      (await page.getByTestId('prefix-figures-2').innerText()).includes(`read ${r2.read}`),
      'the figures under a bar say the same in words',
    );
    await page.getByTestId('prefix-1').screenshot({ path: join(shots, '06b-run-bar-written.png') });
    await page.getByTestId('prefix-2').screenshot({ path: join(shots, '06c-run-bar-read.png') });
    await page.locator('.run-summary').screenshot({ path: join(shots, '06d-run-summary.png') });
    // Another model: the run is priced again (an automatic cache charges no writes).
    await page.getByRole('combobox', { name: 'Model' }).selectOption('openai/gpt-5');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="prefix-bar-1"]')?.getAttribute('aria-label').includes('openai/gpt-5'),
    );
    const g1 = await shares(1);
    check(g1.written === 0 && g1.uncached === g1.total, `on openai/gpt-5 the first request is all uncached (${g1.label})`);
    await axe(page, 'the Run view (cache bars priced)');
  }
  // 7a. The money question at 1280x720 and 1440x900 (money.mjs): the run fixture reading the
  // cache, a zero-read round explained, what-if prices, a conversation folder's bars, its
  // per-1,000-calls figure and its table of requests sorted by keyboard alone.
  await moneyJourney({ page, bin, repo, tmp, check, shots, axe, usd, row });
  // Replay: a folder with one scene → missing golden → approve → ok → change → mismatch + diff → approve.
  const folder = join(tmp, 'replay');
  mkdirSync(folder);
  const rscene = join(folder, 'demo.scene.json');
  writeFileSync(rscene, readFileSync(join(repo, 'fixtures/default.scene.json')));
  await page.getByRole('tab', { name: 'Replay' }).click();
  await page.getByTestId('replay-folder').fill(folder);
  await page.getByRole('button', { name: 'Check' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.scene-list button').length === 1);
  await page.locator('.scene-list button').getByText('missing golden').click();
  await page.getByTestId('approve').click();
  await page.locator('.scene-list button').getByText('matches').waitFor();
  check(existsSync(join(folder, 'demo.golden.json')), 'approve wrote the golden');
  writeFileSync(
    rscene,
    readFileSync(rscene, 'utf8').replace('You are TFRobot, a careful research assistant.', 'You are TFRobot, a terse assistant.'),
  );
  await page.getByRole('button', { name: 'Check' }).click();
  await page.locator('.scene-list button').getByText('mismatch').click();
  await page.locator('table.side').first().waitFor();
  check(
    await page
      .locator('table.side')
      .first()
      .innerText()
      .then((t) => t.includes('terse')),
    'the mismatch shows a side-by-side segment diff',
  );
  await page.screenshot({ path: join(shots, '07-replay.png') });
  await axe(page, 'the Replay view (a mismatch and its diff)');
  await page.getByTestId('approve').click();
  await page.locator('.scene-list button').getByText('matches').waitFor();
  check(true, 'approving the change makes the scene pass');
  await page.getByRole('tab', { name: 'Inspector' }).click();
  // 7-replay. Replay on a corpus at 1280x720 and 1440x900 (replay.mjs).
  await replayJourney({ browser, url, repo, tmp, check, shots, axe });
  // The Live view: OTLP exports posted to serve's receiver arrive in it (live.mjs).
  await liveJourney({ browser, url, otlp: otlpOf.get(url), tmp, check, shots, axe });

  // ── 7b: the Run and Replay views from a serve started outside the repository ───────────────
  // Their defaults must not depend on the server's working directory: the Run view shows the
  // built-in example, and typed paths are taken from the open scene's folder.
  {
    const elsewhere = join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    const url2 = await startServe(bin, elsewhere);
    const p2 = await browser.newPage();
    p2.on('pageerror', (e) => errors.push(String(e)));
    p2.on('dialog', (d) => d.accept());
    await p2.goto(url2);
    await p2.getByTestId('seg-chat-system_msg_prompt').getByText('工作笔记').waitFor();
    await p2.getByRole('tab', { name: 'Run' }).click();
    const round = (n) => p2.getByTestId(`run-round-${n}`);
    await round(4).waitFor();
    await p2.screenshot({ path: join(shots, '09-run-elsewhere.png') });
    check(
      !(await p2.getByTestId('run-error').count()) &&
        (await p2
          .locator('.run-summary')
          .innerText()
          .then((t) => t.includes('built-in example'))),
      'Run view, serve started in a temp dir, embedded default scene: the built-in example runs',
    );
    const marks = async (loc, text) => (await loc.locator('mark.injected').allInnerTexts()).filter((t) => t.includes(text)).length;
    check(
      (await marks(round(3), '<dynamic-context>')) === 1 && (await marks(round(2), '<dynamic-context>')) === 0,
      'the <dynamic-context> block appended after round 2 is marked in request 3, not in request 2',
    );
    check(
      (await marks(round(2), '<system-reminder>')) === 1 && (await marks(round(1), '<system-reminder>')) === 0,
      'the <system-reminder> appended after round 1 is marked in request 2',
    );
    const r2 = await round(2).innerText();
    check(r2.includes('calls Cd (call_2) with arguments {"path": "docs"}'), 'round 2 shows its tool call with its arguments');
    check(
      await p2
        .getByTestId('final-answer')
        .innerText()
        .then((t) => t.includes('docs 目录里有 cli.md 和 run-loop.md。')),
      'the final answer is shown',
    );
    await p2.locator('.run-summary').screenshot({ path: join(shots, '09a-run-example-summary.png') });
    await round(2).screenshot({ path: join(shots, '09b-run-round-2.png') });
    await round(3).screenshot({ path: join(shots, '09c-run-round-3-marks.png') });
    await round(4).screenshot({ path: join(shots, '09d-run-final-answer.png') });

    // A run scene opened by absolute path: it runs; its next request carries the last round's blocks.
    await p2.getByTestId('path-input').fill(join(repo, 'fixtures/run/several-changes.scene.json'));
    await p2.getByTestId('open').click();
    await p2.getByTestId('file-name').getByText('several-changes.scene.json').waitFor();
    await p2.getByRole('tab', { name: 'Run' }).click();
    const next = p2.getByTestId('run-next-request');
    await next.waitFor();
    check(
      (await marks(next, '<dynamic-context>')) === 1 && (await marks(next, '<system-reminder>')) === 1,
      'a recording ending after a tool round: the next request marks the blocks appended after the last round',
    );
    check(
      await p2
        .locator('.run-summary')
        .innerText()
        .then((t) => t.includes('1 system message of the history was dropped')),
      'the dropped history system message is said plainly',
    );
    await next.screenshot({ path: join(shots, '09e-run-next-request.png') });
    // A path typed relative to the open scene's folder.
    await p2.getByTestId('run-path').fill('final-without-tools.scene.json');
    await p2.getByTestId('run-file').click();
    await p2.locator('.run-summary').getByText('1 recorded round was ignored').waitFor();
    check(
      await p2
        .locator('.run-summary')
        .innerText()
        .then((t) => t.includes(join(repo, 'fixtures/run/final-without-tools.scene.json'))),
      "a relative run path is taken from the open scene's folder, not the server's",
    );
    await p2.getByTestId('run-path').fill('no-such.scene.json');
    await p2.getByTestId('run-file').click();
    const missing = join(repo, 'fixtures/run/no-such.scene.json');
    const runErr = await p2.getByTestId('run-error').innerText();
    check(runErr.split(missing).length === 2, `a missing run scene: one error naming the path once (${runErr})`);

    // Replay: a folder typed relative to the open scene's folder.
    await p2.getByTestId('path-input').fill(join(repo, 'fixtures/default.scene.json'));
    await p2.getByTestId('open').click();
    await p2.getByTestId('file-name').getByText('default.scene.json').waitFor();
    await p2.getByRole('tab', { name: 'Replay' }).click();
    check((await p2.getByTestId('replay-folder').inputValue()) === join(repo, 'fixtures'), "Replay starts on the open scene's folder");
    await p2.getByTestId('replay-folder').fill('run');
    await p2.getByRole('button', { name: 'Check' }).click();
    await p2.locator('.scene-list button').first().waitFor();
    const rows = await p2.locator('.scene-list button').allInnerTexts();
    const titles = await p2.locator('.scene-list button').evaluateAll((bs) => bs.map((b) => b.title));
    const runScenes = readdirSync(join(repo, 'fixtures/run')).filter((f) => f.endsWith('.scene.json')).length;
    check(
      rows.length === runScenes && rows.every((t) => t.includes('matches') && !t.includes(repo)),
      `Replay of "run" relative to the open scene's folder: ${runScenes} scenes, chips in words, short paths (${rows.join(' | ')})`,
    );
    check(
      titles.every((t) => t.startsWith(join(repo, 'fixtures/run/'))),
      'each scene shows its full path on hover',
    );
    await p2.locator('.scene-list button').first().click();
    await p2.screenshot({ path: join(shots, '09f-replay-relative.png') });
    // Every status in words: a mismatch, a missing golden, an unreadable scene, a match.
    const mixed = join(tmp, 'mixed-statuses', 'with a rather long folder name', 'to shorten');
    mkdirSync(mixed, { recursive: true });
    const base = readFileSync(join(repo, 'fixtures/default.scene.json'), 'utf8');
    writeFileSync(join(mixed, 'a-mismatch.scene.json'), base);
    writeFileSync(join(mixed, 'a-mismatch.golden.json'), '{}\n');
    writeFileSync(join(mixed, 'b-missing.scene.json'), base);
    writeFileSync(join(mixed, 'c-unreadable.scene.json'), '{ "format": ');
    writeFileSync(join(mixed, 'd-match.scene.json'), readFileSync(join(repo, 'fixtures/run/cd-round-1.scene.json')));
    writeFileSync(join(mixed, 'd-match.golden.json'), readFileSync(join(repo, 'fixtures/run/cd-round-1.golden.json')));
    await p2.getByTestId('replay-folder').fill(mixed);
    await p2.getByRole('button', { name: 'Check' }).click();
    await p2.locator('.scene-list button').getByText('b-missing.scene.json').waitFor();
    const chips = await p2.locator('.scene-list .chip').allInnerTexts();
    check(
      JSON.stringify(chips.map((c) => c.replace(/^\S+\s/, ''))) === JSON.stringify(['mismatch', 'missing golden', 'unreadable', 'matches']),
      `the status chips speak words (${chips.join(' | ')})`,
    );
    await p2.locator('.scene-list button').getByText('a-mismatch.scene.json').click();
    await p2.locator('table.side').first().waitFor();
    await p2.screenshot({ path: join(shots, '09g-replay-statuses.png') });
    await axe(p2, 'the Replay view with every status');
    await p2.getByTestId('replay-folder').fill('no-such-folder');
    await p2.getByRole('button', { name: 'Check' }).click();
    const repErr = await p2.getByTestId('replay-error').innerText();
    check(repErr.split(join(repo, 'fixtures/no-such-folder')).length === 2, `a missing folder: one error naming the path once (${repErr})`);
    await p2.close();
  }
  // ── end of 7b ──────────────────────────────────────────────────────────────────────────────

  // 7c. The scene the Python package's worked example records (examples/python/) on the board.
  {
    const p3 = await browser.newPage();
    await p3.goto(`${url}&open=${encodeURIComponent(join(repo, 'examples/python/notes.scene.json'))}`);
    const card = p3.getByTestId('seg-chat-system_msg_prompt');
    await card.getByText('代码 {x: 1}').first().waitFor();
    check(
      await card.getByText('工作笔记（用户=帮我分析这份季度报告 PDF）').first().isVisible(),
      "the Python example's recording opens: the tools' pieces are on the board, braces and locale as recorded",
    );
    await p3.screenshot({ path: join(shots, '10-python-recording.png') });
    await p3.close();
  }

  // 8. Keystroke-to-paint on the large generated scene.
  const big = process.env.BIG_SCENE ?? '/tmp/big.scene.json';
  if (!existsSync(big))
    writeFileSync(big, execFileSync('cargo', ['run', '-q', '--release', '--example', 'gen_scene'], { cwd: repo, maxBuffer: 1 << 28 }));
  // Measured against the release binary when it has `serve` (the figure for docs/performance.md).
  const rel = join(repo, 'target/release/prompt-inspector');
  let perfUrl = url,
    perfBin = 'debug';
  try {
    execFileSync(rel, ['serve', '--help'], { stdio: 'ignore' });
    perfUrl = await startServe(rel);
    perfBin = 'release';
  } catch {
    /* debug build */
  }
  await page.goto(perfUrl);
  await sysCard.getByText('工作笔记').waitFor();
  await page.getByTestId('tool-tf_notes').click();
  await page.getByTestId('template-editor').locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  // Keystroke-to-paint on the default scene: five letters typed, then five backspaces.
  const small = [];
  for (const key of ['a', 'b', 'c', 'd', 'e', 'Backspace', 'Backspace', 'Backspace', 'Backspace', 'Backspace']) {
    const before = await page.evaluate(() => window.__pi.perf.paints);
    await page.keyboard.press(key);
    await page.waitForFunction((b) => window.__pi.perf.paints > b, before, { timeout: 10000 });
    small.push(await page.evaluate(() => window.__pi.perf.last));
  }
  small.sort((a, b) => a - b);
  console.log(
    `PERF keystroke-to-paint on the default scene (${perfBin} serve): median ${small[5].toFixed(1)} ms, min ${small[0].toFixed(1)}, max ${small.at(-1).toFixed(1)} over ${small.length} keystrokes`,
  );
  await page.goto(`${perfUrl}&open=${encodeURIComponent(big)}`);
  await page.waitForFunction(() => window.__pi?.reports && window.__pi.path, null, { timeout: 60000 });
  const first = await page.locator('.tool-row').first().getAttribute('data-testid');
  await page.locator('.tool-row').first().click();
  const bed = page.getByTestId('template-editor').locator('.cm-content');
  await bed.click();
  await page.keyboard.press('Control+End');
  const costBefore = await page.getByTestId('call-cost-chat').textContent();
  const samples = [];
  for (let i = 0; i < 12; i++) {
    const before = await page.evaluate(() => window.__pi.perf.paints);
    await page.keyboard.type(String(i % 10));
    await page.waitForFunction((b) => window.__pi.perf.paints > b, before, { timeout: 30000 });
    samples.push(
      await page.evaluate(() => [
        window.__pi.perf.last,
        window.__pi.perf.renderMs,
        window.__pi.perf.coreMs,
        window.__pi.perf.fromAnswer,
        ...window.__pi.perf.phases,
        window.__pi.perf.lag,
      ]),
    );
    await page.waitForTimeout(50);
  }
  // Keystrokes on a scene this large are answered before they are priced; the page then asks
  // for the costs (a settle), so once typing stops the figure is the new text's.
  await page.evaluate(() => window.__pi.settled());
  const costAfter = await page.getByTestId('call-cost-chat').textContent();
  const tokensOf = (t) => Number(/input: (\d+) tokens/.exec(t ?? '')?.[1]);
  check(
    !(await page.evaluate(() => window.__pi.costsPending)) && tokensOf(costAfter) > tokensOf(costBefore),
    `the call's price follows the typed digits once typing stops (${tokensOf(costBefore)} → ${tokensOf(costAfter)} tokens)`,
  );
  const paint = samples.map((x) => x[0]).sort((a, b) => a - b);
  const api = samples.map((x) => x[1]).sort((a, b) => a - b);
  const core = samples.map((x) => x[2]).sort((a, b) => a - b);
  const fromAnswer = samples.map((x) => x[3]).sort((a, b) => a - b);
  const phase = (k) => med(samples.map((x) => x[4 + k]).sort((a, b) => a - b)).toFixed(1);
  const med = (a) => a[Math.floor(a.length / 2)];
  const lag = samples.map((x) => x[7]).sort((a, b) => a - b);
  const size = readFileSync(big).length;
  console.log(
    `PERF keystroke-to-paint on ${big} (${(size / 1048576).toFixed(2)} MiB, ${first}, ${perfBin} serve): median ${med(paint).toFixed(1)} ms, min ${paint[0].toFixed(1)}, max ${paint.at(-1).toFixed(1)} over ${paint.length} keystrokes; live_edit round trip median ${med(api).toFixed(1)} ms, of which the core ${med(core).toFixed(1)} ms; answer to paint median ${med(fromAnswer).toFixed(1)} ms (max ${fromAnswer.at(-1).toFixed(1)}): re-render ${phase(0)}, wait for the frame ${phase(1)}, frame ${phase(2)}; the board's frame began ${med(lag).toFixed(1)} ms (max ${lag.at(-1).toFixed(1)}) after the frame that showed the typed character`,
  );
  await page.screenshot({ path: join(shots, '08-big-scene.png') });
  check(!errors.length, `no page errors ${errors.join('; ')}`);
  console.log(
    lesser.size
      ? `axe-core: moderate and minor findings left (not failing):\n${[...lesser.values()].map((x) => `  ${x}`).join('\n')}`
      : 'axe-core: no moderate or minor findings either',
  );
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  for (const c of children) c.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
