// Keystroke-to-paint in headless Chromium against `prompt-inspector serve`, for side-by-side runs
// of two builds (bench/keystroke_ab.sh): the same probe as the journey's step 8, on its own.
//
//   node e2e/keystroke.mjs SERVE_BINARY UI_DIST SCENE [KEYS]
//
// Prints one JSON line of medians: keystroke to paint, the live_edit round trip, the core's part,
// the lag (the board's frame after the frame that showed the typed character) and `typed`, from
// the edit to the frame that showed the typed character (null for builds whose probe did not
// measure them).
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

const [serve, dist, scene, keys = '14'] = process.argv.slice(2);
if (!scene) throw new Error('usage: node e2e/keystroke.mjs SERVE_BINARY UI_DIST SCENE [KEYS]');
const server = spawn(serve, ['serve', '--port', '0', '--ui', dist], { stdio: ['ignore', 'pipe', 'ignore'] });
let browser;
try {
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /serving on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    server.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`${url}&open=${encodeURIComponent(scene)}`);
  await page.waitForFunction(() => window.__pi?.reports && window.__pi.path, null, { timeout: 60000 });
  await page.locator('.tool-row').first().click();
  await page.getByTestId('template-editor').locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.waitForTimeout(300);
  const rows = [];
  for (let i = 0; i < Number(keys) + 2; i++) {
    const before = await page.evaluate(() => window.__pi.perf.paints);
    await page.keyboard.type(String(i % 10));
    await page.waitForFunction((b) => window.__pi.perf.paints > b, before, { timeout: 30000 });
    // The first two keys warm the page up (JIT, first patch): left out.
    if (i >= 2)
      rows.push(
        await page.evaluate(() => {
          const p = window.__pi.perf;
          return [p.last, p.renderMs, p.coreMs, p.lag ?? null, p.typedFrameAt ? p.typedFrameAt - p.editAt : null];
        }),
      );
    await page.waitForTimeout(60);
  }
  const med = (k) => {
    const a = rows
      .map((r) => r[k])
      .filter((x) => x !== null)
      .sort((x, y) => x - y);
    return a.length ? +a[a.length >> 1].toFixed(1) : null;
  };
  console.log(
    JSON.stringify({ engine: 'chromium', keys: rows.length, paint: med(0), roundTrip: med(1), core: med(2), lag: med(3), typed: med(4) }),
  );
} finally {
  await browser?.close();
  server.kill();
}
