// Keystroke-to-paint in headless Chromium against `prompt-inspector serve`, for side-by-side runs
// of two builds (bench/keystroke_ab.sh): the same probe as the journey's step 8, on its own.
//
//   node e2e/keystroke.mjs SERVE_BINARY UI_DIST SCENE [KEYS]
//
// Prints one JSON line of medians: keystroke to paint, the live_edit round trip, the core's part,
// the lag (the board's frame after the frame that showed the typed character) and `typed`, from
// the edit to the frame that showed the typed character (null for builds whose probe did not
// measure them).
//
// With `PHASES=1` it also prints, per keystroke (medians, milliseconds after the edit), when the
// edit was sent, when the frame showing the typed character started, when the core's answer was
// ready (`serve`'s own log), when the page took the answer off its socket, when it had applied
// it, and when the board's frame was painted.
//
// `CHROMIUM_ARGS` adds switches to Chromium's command line (space-separated), e.g.
// `--disable-features=DeferRendererTasksAfterInput` to see what Chromium's holding of a page's
// tasks after a keypress costs (docs/performance.md).
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

const [serve, dist, scene, keys = '14'] = process.argv.slice(2);
if (!scene) throw new Error('usage: node e2e/keystroke.mjs SERVE_BINARY UI_DIST SCENE [KEYS]');
const phases = process.env.PHASES === '1';
const server = spawn(serve, ['serve', '--port', '0', '--ui', dist], {
  stdio: ['ignore', 'pipe', phases ? 'pipe' : 'ignore'],
  env: phases ? { ...process.env, PROMPT_INSPECTOR_LOG: 'prompt_inspector::api::live=debug' } : process.env,
});
// When each answer was ready in the core (epoch milliseconds), from the log's `live update` lines.
const ready = [];
if (phases) {
  let pending = '';
  server.stderr.on('data', (d) => {
    pending += d;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^(\S+?)(?:\.(\d+))?Z .*live update/.exec(line);
      if (m) ready.push(Date.parse(`${m[1]}Z`) + Number(`0.${m[2] ?? '0'}`) * 1000);
    }
  });
}
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
    args: ['--headless', '--no-sandbox', '--disable-gpu', ...(process.env.CHROMIUM_ARGS?.split(' ').filter(Boolean) ?? [])],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  if (phases)
    await page.addInitScript(() => {
      const now = () => performance.timeOrigin + performance.now();
      const socket = { sends: [], takes: [] };
      window.__socket = socket;
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        constructor(...args) {
          super(...args);
          this.addEventListener('message', () => socket.takes.push(now()));
        }
        send(data) {
          if (typeof data === 'string' && data.includes('"live_edit"') && !data.includes('"edit":null')) socket.sends.push(now());
          super.send(data);
        }
      };
    });
  await page.goto(`${url}&open=${encodeURIComponent(scene)}`);
  await page.waitForFunction(() => window.__pi?.reports && window.__pi.path, null, { timeout: 60000 });
  await page.locator('.tool-row').first().click();
  await page.getByTestId('template-editor').locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.waitForTimeout(300);
  const rows = [];
  const phaseRows = [];
  for (let i = 0; i < Number(keys) + 2; i++) {
    const before = await page.evaluate(() => window.__pi.perf.paints);
    const sent = phases ? await page.evaluate(() => window.__socket.sends.length) : 0;
    const readyBefore = ready.length;
    await page.keyboard.type(String(i % 10));
    await page.waitForFunction((b) => window.__pi.perf.paints > b, before, { timeout: 30000 });
    if (phases && i >= 2) {
      const p = await page.evaluate((sent) => {
        const { perf } = window.__pi;
        const origin = performance.timeOrigin;
        const send = window.__socket.sends[sent];
        const take = window.__socket.takes.find((t) => t > send);
        const edit = origin + perf.editAt;
        return {
          edit,
          send: send - edit,
          typed: origin + perf.typedFrameAt - edit,
          take: take - edit,
          applied: origin + perf.resultAt - edit,
          painted: perf.last,
        };
      }, sent);
      phaseRows.push({ ...p, ready: ready[readyBefore] - p.edit });
    }
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
  if (phases) {
    const median = (k) => {
      const a = phaseRows.map((r) => r[k]).sort((x, y) => x - y);
      return +a[a.length >> 1].toFixed(1);
    };
    const names = ['send', 'typed', 'ready', 'take', 'applied', 'painted'];
    console.log(JSON.stringify({ phases: Object.fromEntries(names.map((k) => [k, median(k)])) }));
  }
} finally {
  await browser?.close();
  server.kill();
}
