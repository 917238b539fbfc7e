// Keystroke-to-paint in the real app window (WebKitGTK under Xvfb), for side-by-side runs of two
// builds (bench/keystroke_ab.sh): the same probe as the journey's step 9, on its own.
//
//   node keystroke.mjs APP_BINARY SCENE [KEYS]
//
// The app opens SCENE through its Open dialog (PROMPT_INSPECTOR_E2E_DIALOG_PATH, as in the
// journey). Prints one JSON line of medians (see ui/e2e/keystroke.mjs). Every process it starts is
// stopped at the end, WebKitWebDriver included (it is tauri-driver's child: its own process group).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { remote } from 'webdriverio';

const [app, scene, keys = '14'] = process.argv.slice(2);
if (!scene) throw new Error('usage: node keystroke.mjs APP_BINARY SCENE [KEYS]');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmp = mkdtempSync(join(tmpdir(), 'pi-keystroke-'));
const children = [];
const start = (cmd, args, env) => { const p = spawn(cmd, args, { env, stdio: 'ignore', detached: true }); children.push(p); return p; };
const freePort = () => new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); }); });
const env = {
  ...process.env,
  // As the journey: software rendering under Xvfb, this run's data in a temporary folder.
  WEBKIT_DISABLE_COMPOSITING_MODE: '1', WEBKIT_DISABLE_DMABUF_RENDERER: '1', LIBGL_ALWAYS_SOFTWARE: '1',
  XDG_DATA_HOME: join(tmp, 'data'), XDG_CONFIG_HOME: join(tmp, 'config'), XDG_CACHE_HOME: join(tmp, 'cache'),
};
let browser;
try {
  let n = 150;
  while (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) n++;
  start('Xvfb', [`:${n}`, '-screen', '0', '1440x900x24', '-nolisten', 'tcp'], env);
  env.DISPLAY = `:${n}`;
  for (let i = 0; i < 50 && !existsSync(`/tmp/.X11-unix/X${n}`); i++) await sleep(100);
  const port = await freePort();
  const nativePort = await freePort();
  const driver = process.env.TAURI_DRIVER ?? join(homedir(), '.cargo/bin/tauri-driver');
  start(driver, ['--port', String(port), '--native-port', String(nativePort), '--native-driver', process.env.WEBKIT_WEBDRIVER ?? '/usr/bin/WebKitWebDriver'], env);
  const wrapper = join(tmp, 'app');
  const sh = (v) => `'${v.replaceAll("'", `'\\''`)}'`;
  writeFileSync(wrapper, `#!/bin/sh\nPROMPT_INSPECTOR_E2E_DIALOG_PATH=${sh(scene)} exec ${sh(app)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  for (let attempt = 0; ; attempt++) {
    try {
      browser = await remote({ hostname: '127.0.0.1', port, logLevel: 'error', capabilities: { 'wdio:enforceWebDriverClassic': true, 'tauri:options': { application: wrapper } } });
      break;
    } catch (e) {
      if (attempt > 30) throw e;
      await sleep(500);
    }
  }
  await browser.waitUntil(() => browser.execute(() => !!window.__pi?.reports), { timeout: 30000 });
  await (await browser.$('[data-testid="open"]')).click();
  await browser.waitUntil(() => browser.execute(() => !!(window.__pi.reports && window.__pi.path)), { timeout: 60000 });
  await (await browser.$('.tool-row')).click();
  const editor = await browser.$('[data-testid="template-editor"] .cm-content');
  await editor.waitForDisplayed();
  await editor.click();
  await browser.keys(['Control', 'End']);
  await sleep(300);
  const rows = [];
  for (let i = 0; i < Number(keys) + 2; i++) {
    const before = await browser.execute(() => window.__pi.perf.paints);
    await browser.keys(String(i % 10));
    await browser.waitUntil(() => browser.execute((b) => window.__pi.perf.paints > b, before), { timeout: 30000, interval: 20 });
    if (i >= 2) rows.push(await browser.execute(() => { const p = window.__pi.perf; return [p.last, p.renderMs, p.coreMs, p.lag ?? null]; }));
    await sleep(60);
  }
  const med = (k) => { const a = rows.map((r) => r[k]).filter((x) => x !== null).sort((x, y) => x - y); return a.length ? +a[a.length >> 1].toFixed(1) : null; };
  console.log(JSON.stringify({ engine: 'webkitgtk', keys: rows.length, paint: med(0), roundTrip: med(1), core: med(2), lag: med(3) }));
} finally {
  await browser?.deleteSession().catch(() => {});
  for (const p of children.reverse()) { try { process.kill(-p.pid, 'SIGKILL'); } catch { /* gone */ } }
  rmSync(tmp, { recursive: true, force: true });
}
