// Browser end-to-end journey against the real core: `prompt-inspector serve --port 0 --ui ui/dist`
// driven with playwright-core and Debian's Chromium (/usr/bin/chromium; never downloaded).
// open the default scene → edit a tool template → the segment updates → pick a forbidden position
// → its rule and reason show → save (temp path) → reopen; edit a configured prompt, a tool's
// returns kind, open from the Recent menu; then keystroke-to-paint on the large
// generated scene. Screenshots go to ui/e2e/screenshots/.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

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

const tmp = mkdtempSync(join(tmpdir(), 'pi-e2e-'));
const children = [];
let failed = false;
const step = (m) => console.log(`• ${m}`);
function check(cond, msg) { if (!cond) throw new Error(`FAILED: ${msg}`); step(`ok: ${msg}`); }

async function startServe(exe = bin) {
  const p = spawn(exe, ['serve', '--port', '0', '--ui', join(ui, 'dist')], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  p.stderr.on('data', () => {});
  return await new Promise((res, rej) => {
    let buf = '';
    const t = setTimeout(() => rej(new Error(`serve printed no URL: ${buf}`)), 20000);
    p.stdout.on('data', (d) => {
      buf += d;
      const m = /serving on (http:\/\/\S+)/.exec(buf);
      if (m) { clearTimeout(t); res(m[1]); }
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

  // 1. The default scene.
  await page.goto(url);
  const sysCard = page.getByTestId('seg-chat-system_msg_prompt');
  await sysCard.getByText('工作笔记').waitFor();
  check(await page.getByTestId('file-name').innerText().then((t) => t.includes('default scene')), 'opens on the embedded default scene');
  check(await page.getByTestId('tool-goal_rewriter').innerText().then((t) => t.includes('invalid')), 'goal_rewriter shows an invalid chip');
  await page.screenshot({ path: join(shots, '01-default-scene.png') });
  await page.getByTestId('chat-messages').click();
  await page.getByTestId('desk-request').click();
  await page.locator('.msg').first().waitFor();
  check(await page.locator('.request-body').innerText().then((t) => t.includes('"instructions"')), 'the desk toggle shows the openai_desk request body');
  await page.screenshot({ path: join(shots, '01b-messages-and-request.png') });
  await page.getByRole('button', { name: 'Segments' }).first().click();
  await page.getByRole('button', { name: 'Segments' }).nth(1).click();

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
  check(await page.getByTestId('tool-detail').innerText().then((t) => /ValueError/.test(t)), 'an fstring syntax error is underlined and named (ValueError)');
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
  check(/ValueError/.test(shown.text) && shown.visible, `the error's tooltip shows its message whole (${shown.beyondPane ? 'past the pane\'s edge' : 'inside the pane'}): ${shown.text}`);
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
  check(boxText.includes('Iron rule 1') && boxText.includes('rewrites what the user asked for'), 'the forbidden position shows iron rule 1 and its reason');
  await page.getByTestId('tool-invalid').waitFor();
  await page.getByTestId('tool-tf_notes').getByText('chat invalid').waitFor();
  check(true, 'tf_notes becomes invalid (ValueError at class definition)');
  await page.screenshot({ path: join(shots, '03-forbidden-position.png') });
  // Back to a legal position before saving.
  await page.getByTestId('pos-chat').selectOption('system_msg_prompt');
  await sysCard.getByText('E2E-MARK').waitFor();

  // 4. Save to a temp path, then reopen.
  const saved = join(tmp, 'journey.scene.json');
  await page.getByTestId('path-input').fill(saved);
  await page.getByTestId('save-as').click();
  await page.getByTestId('file-name').getByText(saved).waitFor();
  check(!(await page.getByTestId('unsaved').count()), 'saved: the unsaved marker is gone');
  check(readFileSync(saved, 'utf8').includes('E2E-MARK'), 'the file on disk holds the edit');
  await page.goto(`${url}&open=${encodeURIComponent(saved)}`);
  await sysCard.getByText('E2E-MARK').waitFor();
  check(await page.getByTestId('file-name').innerText().then((t) => t.includes('journey.scene.json')), 'reopened the saved file: the edit is there');

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
  check(await page.getByTestId('pane-prompts').getAttribute('aria-selected') === 'true', 'clicking a configured prompt\'s piece on the board opens that prompt in the Prompts pane');
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
  check(await page.getByTestId('prompt-detail').innerText().then((t) => /ValueError/.test(t)), 'a configured prompt\'s syntax error is underlined and named');
  await page.getByTestId('prompt-system_msg_prompt-0').getByText('template error').waitFor();
  await page.screenshot({ path: join(shots, '04b-prompt-edited.png') });
  for (let i = 0; i < 6; i++) await page.keyboard.press('Backspace');
  await page.getByTestId('prompt-editor').locator('.cm-lintRange-error').waitFor({ state: 'detached', timeout: 5000 });
  await sysCard.getByText('PROMPT-MARK You are TFRobot, a careful research assistant.').waitFor();
  // A jinja2 prompt gets the jinja2 editor.
  await page.getByTestId('prompt-after_input_msg_prompt-0').click();
  check(await page.getByTestId('prompt-editor-engine').inputValue() === 'jinja2', 'the jinja2 prompt opens with the jinja2 engine');

  // 6c. A tool's returns kind: its status chip follows; "not overridden" removes the field.
  await page.getByTestId('pane-tools').click();
  await page.getByTestId('tool-chat_memo').click();
  const memoChip = page.getByTestId('tool-chat_memo');
  check(await page.getByTestId('returns-kind').inputValue() === 'str', 'chat_memo returns str');
  await page.getByTestId('returns-kind').selectOption('none');
  await memoChip.getByText('chat empty').waitFor({ timeout: 5000 });
  check(true, 'returns none: the chat chip says empty');
  await page.getByTestId('returns-kind').selectOption('raise');
  await memoChip.getByText('chat error').waitFor({ timeout: 5000 });
  await page.getByTestId('tool-detail').getByText('tool_raised').waitFor();
  check(true, 'returns raise: the chip says error and the ERROR is shown');
  await page.screenshot({ path: join(shots, '04c-returns-kind.png') });
  await page.getByTestId('returns-kind').selectOption('default');
  await memoChip.getByText('chat invalid').waitFor({ timeout: 5000 });
  check(await page.getByTestId('tool-invalid').innerText().then((t) => t.includes('TypeError')), 'not overridden: prompt_position without format_2_prompt is a TypeError');
  await page.getByTestId('returns-kind').selectOption('str');
  await memoChip.getByText('chat injected').waitFor({ timeout: 5000 });
  await page.getByTestId('seg-chat-after_input_msg_prompt').getByText('Memo: The user prefers answers in Chinese.').waitFor();
  check(true, 'back to str: the template is back and injected again');

  // 6d. Recent menu: open a file from it (keyboard), a bad one leaves the open scene, clear.
  const other = join(tmp, 'other.scene.json');
  writeFileSync(other, readFileSync(join(repo, 'fixtures/default.scene.json'), 'utf8').replace('You are TFRobot, a careful research assistant.', 'RECENT-OTHER'));
  await page.getByTestId('path-input').fill(other);
  await page.getByTestId('open').click(); // discards the unsaved edits (the dialog is accepted)
  await sysCard.getByText('RECENT-OTHER').waitFor();
  await page.getByTestId('recent').focus();
  await page.keyboard.press('ArrowDown');
  const menu = page.getByTestId('recent-menu');
  await menu.waitFor();
  const items = await menu.getByRole('menuitem').allInnerTexts();
  check(items[0].includes('other.scene.json') && items[0].includes('(open)') && items[1].includes('journey.scene.json') && items.at(-1) === 'Clear recent', `the Recent menu lists the files, newest first (${items.map((x) => x.split('\n')[0]).join(' | ')})`);
  await page.screenshot({ path: join(shots, '04d-recent-menu.png') });
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByTestId('file-name').getByText(saved).waitFor();
  await sysCard.getByText('DISK-EDIT').waitFor();
  check(!(await menu.count()), 'picking journey.scene.json from the menu (keyboard) opens it, and the menu closes');
  writeFileSync(other, '{ "format": "prompt-inspector/scene@1", ');
  await page.getByTestId('recent').click();
  await menu.getByRole('menuitem', { name: /other\.scene\.json/ }).click();
  await page.getByTestId('file-error').waitFor();
  check(await page.getByTestId('file-name').innerText().then((t) => t.includes('journey.scene.json')) && await sysCard.getByText('DISK-EDIT').isVisible(), 'a bad file from the menu shows its error and leaves the open scene');
  await page.getByText('Dismiss').click();
  await page.getByTestId('recent').click();
  await page.getByTestId('recent-clear').click();
  await page.getByTestId('recent').click();
  check(await menu.innerText().then((t) => t.includes('No recent files yet')), 'Clear recent empties the menu');
  await page.keyboard.press('Escape');
  // ── end of 6b–6d ─────────────────────────────────────────────────────────────────────────

  // 7. Other views.
  await page.getByRole('tab', { name: 'Rules' }).click();
  await page.getByTestId('try-it').click();
  await page.getByTestId('try-result').waitFor();
  await page.screenshot({ path: join(shots, '05-rules.png'), fullPage: false });
  await page.getByRole('tab', { name: 'Run' }).click();
  await page.getByText('Run this file').click();
  await page.locator('.iteration').first().waitFor();
  await page.screenshot({ path: join(shots, '06-run.png') });
  // Replay: a folder with one scene → missing golden → approve → ok → change → mismatch + diff → approve.
  const folder = join(tmp, 'replay');
  mkdirSync(folder);
  const rscene = join(folder, 'demo.scene.json');
  writeFileSync(rscene, readFileSync(join(repo, 'fixtures/default.scene.json')));
  await page.getByRole('tab', { name: 'Replay' }).click();
  await page.getByTestId('replay-folder').fill(folder);
  await page.getByRole('button', { name: 'Check' }).click();
  await page.locator('.scene-list button').getByText('missing_golden').click();
  await page.getByTestId('approve').click();
  await page.locator('.scene-list button').getByText('ok').waitFor();
  check(existsSync(join(folder, 'demo.golden.json')), 'approve wrote the golden');
  writeFileSync(rscene, readFileSync(rscene, 'utf8').replace('You are TFRobot, a careful research assistant.', 'You are TFRobot, a terse assistant.'));
  await page.getByRole('button', { name: 'Check' }).click();
  await page.locator('.scene-list button').getByText('mismatch').click();
  await page.locator('table.side').first().waitFor();
  check(await page.locator('table.side').first().innerText().then((t) => t.includes('terse')), 'the mismatch shows a side-by-side segment diff');
  await page.screenshot({ path: join(shots, '07-replay.png') });
  await page.getByTestId('approve').click();
  await page.locator('.scene-list button').getByText('ok').waitFor();
  check(true, 'approving the change makes the scene pass');
  await page.getByRole('tab', { name: 'Inspector' }).click();

  // 8. Keystroke-to-paint on the large generated scene.
  const big = process.env.BIG_SCENE ?? '/tmp/big.scene.json';
  if (!existsSync(big)) writeFileSync(big, execFileSync('cargo', ['run', '-q', '--release', '--example', 'gen_scene'], { cwd: repo, maxBuffer: 1 << 28 }));
  // Measured against the release binary when it has `serve` (the figure for docs/performance.md).
  const rel = join(repo, 'target/release/prompt-inspector');
  let perfUrl = url, perfBin = 'debug';
  try { execFileSync(rel, ['serve', '--help'], { stdio: 'ignore' }); perfUrl = await startServe(rel); perfBin = 'release'; } catch { /* debug build */ }
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
  console.log(`PERF keystroke-to-paint on the default scene (${perfBin} serve): median ${small[5].toFixed(1)} ms, min ${small[0].toFixed(1)}, max ${small.at(-1).toFixed(1)} over ${small.length} keystrokes`);
  await page.goto(`${perfUrl}&open=${encodeURIComponent(big)}`);
  await page.waitForFunction(() => window.__pi?.reports && window.__pi.path, null, { timeout: 60000 });
  const first = await page.locator('.tool-row').first().getAttribute('data-testid');
  await page.locator('.tool-row').first().click();
  const bed = page.getByTestId('template-editor').locator('.cm-content');
  await bed.click();
  await page.keyboard.press('Control+End');
  const samples = [];
  for (let i = 0; i < 12; i++) {
    const before = await page.evaluate(() => window.__pi.perf.paints);
    await page.keyboard.type(String(i % 10));
    await page.waitForFunction((b) => window.__pi.perf.paints > b, before, { timeout: 30000 });
    samples.push(await page.evaluate(() => [window.__pi.perf.last, window.__pi.perf.renderMs, window.__pi.perf.coreMs, window.__pi.perf.fromAnswer, ...window.__pi.perf.phases, window.__pi.perf.lag]));
    await page.waitForTimeout(50);
  }
  const paint = samples.map((x) => x[0]).sort((a, b) => a - b);
  const api = samples.map((x) => x[1]).sort((a, b) => a - b);
  const core = samples.map((x) => x[2]).sort((a, b) => a - b);
  const fromAnswer = samples.map((x) => x[3]).sort((a, b) => a - b);
  const phase = (k) => med(samples.map((x) => x[4 + k]).sort((a, b) => a - b)).toFixed(1);
  const med = (a) => a[Math.floor(a.length / 2)];
  const lag = samples.map((x) => x[7]).sort((a, b) => a - b);
  const size = readFileSync(big).length;
  console.log(`PERF keystroke-to-paint on ${big} (${(size / 1048576).toFixed(2)} MiB, ${first}, ${perfBin} serve): median ${med(paint).toFixed(1)} ms, min ${paint[0].toFixed(1)}, max ${paint.at(-1).toFixed(1)} over ${paint.length} keystrokes; live_edit round trip median ${med(api).toFixed(1)} ms, of which the core ${med(core).toFixed(1)} ms; answer to paint median ${med(fromAnswer).toFixed(1)} ms (max ${fromAnswer.at(-1).toFixed(1)}): re-render ${phase(0)}, wait for the frame ${phase(1)}, frame ${phase(2)}; the board's frame began ${med(lag).toFixed(1)} ms (max ${lag.at(-1).toFixed(1)}) after the frame that showed the typed character`);
  await page.screenshot({ path: join(shots, '08-big-scene.png') });
  check(!errors.length, `no page errors ${errors.join('; ')}`);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  for (const c of children) c.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
