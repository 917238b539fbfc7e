// The single-file HTML reports (`render --format html`, `check --html`) in Chromium: drawn with
// JavaScript off, no network request, reachable by keyboard from a skip link, printable, and
// scanned with axe-core (axe.mjs) like the app's views. Screenshots go to ui/e2e/screenshots/.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** Writes the two reports into `tmp` and returns their paths. */
function makeReports(bin, repo, tmp) {
  const page = join(tmp, 'default-report.html');
  writeFileSync(page, execFileSync(bin, ['render', '--format', 'html', join(repo, 'fixtures/default.scene.json')]));
  // A run with one scene that matches and one whose tool template changed since its golden.
  const corpus = join(tmp, 'report-corpus');
  mkdirSync(corpus, { recursive: true });
  const src = join(repo, 'fixtures/lint/volatile-values.scene.json');
  copyFileSync(src, join(corpus, 'a-match.scene.json'));
  copyFileSync(src, join(corpus, 'b-changed.scene.json'));
  execFileSync(bin, ['check', '--bless', corpus]);
  const text = readFileSync(src, 'utf8');
  writeFileSync(join(corpus, 'b-changed.scene.json'), text.replace('Trace this answer.', 'Trace this reply.'));
  const run = join(tmp, 'check-report.html');
  const r = spawnSync(bin, ['check', '--html', run, corpus]);
  if (r.status !== 1) throw new Error(`check --html exited ${r.status}: ${r.stderr}`);
  return { page, run };
}

export async function reportJourney({ bin, repo, tmp, shots, check, axe, chromiumPath, args }) {
  const { page: scenePage, run: runPage } = makeReports(bin, repo, tmp);
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args });
  try {
    const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1300, height: 900 } });
    const p = await noJs.newPage();
    const requests = [];
    p.on('request', (r) => {
      if (!r.url().startsWith('file://')) requests.push(r.url());
    });
    for (const [file, name] of [
      [scenePage, 'report-default'],
      [runPage, 'report-check'],
    ]) {
      await p.goto(`file://${file}`);
      await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    }
    // The scene's page, JavaScript off: both boards, every card, the labels and badges.
    await p.goto(`file://${scenePage}`);
    check((await p.locator('li.card').count()) === 14, 'HTML report, JavaScript off: 14 segment cards (7 chat, 7 desk)');
    check(
      (await p.locator('li.card.forbidden').count()) === (await p.getByText('Forbidden to tools').count()),
      'HTML report: every hatched (forbidden) card says so in words',
    );
    check((await p.getByText('tool tf_notes', { exact: true }).count()) > 0, 'HTML report: a piece is labelled with its tool');
    check(await p.getByText('✗ invalid').first().isVisible(), 'HTML report: a tool status in words and a sign');
    check(
      await p
        .getByRole('row', { name: /openai\/gpt-5/ })
        .first()
        .isVisible(),
      'HTML report: the call priced per model',
    );
    // Keyboard: the first Tab reaches the skip link, which leads to the report; later Tabs reach
    // the families' links.
    await p.keyboard.press('Tab');
    check((await p.locator(':focus').innerText()) === 'Skip to the report', 'HTML report: Tab first reaches the skip link');
    await p.keyboard.press('Enter');
    check(p.url().endsWith('#main'), 'HTML report: the skip link leads to the report');
    await p.keyboard.press('Tab');
    check((await p.locator(':focus').innerText()) === 'ChatLLM', 'HTML report: the next Tab reaches the ChatLLM link');
    // Printing: the contents links are left out, the cards stay.
    await p.emulateMedia({ media: 'print' });
    check(!(await p.locator('nav.toc').first().isVisible()), 'HTML report, print: the contents links are not printed');
    check(await p.locator('li.card').first().isVisible(), 'HTML report, print: the cards are');
    await p.screenshot({ path: join(shots, 'report-default-print.png'), fullPage: true });
    await p.emulateMedia({ media: 'screen' });
    // The run's page: the changed line beside its new form.
    await p.goto(`file://${runPage}`);
    check(
      (await p.getByRole('heading', { level: 1 }).innerText()) === 'Check: 1 passed, 1 failed',
      'check --html, JavaScript off: the run summarised',
    );
    const row = p.locator('table.side-by-side tr', { hasText: 'Trace this reply.' });
    check((await row.innerText()).includes('Trace this answer.'), 'check --html: the golden line beside the changed one');
    check(requests.length === 0, `HTML reports: no network request (${requests.join(', ') || 'none'})`);
    await noJs.close();

    // axe-core runs as a script, so the scans take a page with JavaScript on (the files have none).
    const withJs = await browser.newContext({ viewport: { width: 1300, height: 900 } });
    const q = await withJs.newPage();
    await q.goto(`file://${scenePage}`);
    await axe(q, 'the HTML report of the default scene');
    await q.goto(`file://${runPage}`);
    await axe(q, 'the HTML report of a check run with a mismatch');
    await withJs.close();
  } finally {
    await browser.close();
  }
}
