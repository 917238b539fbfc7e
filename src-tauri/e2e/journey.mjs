// The real-window journey: the built desktop app (target/debug/prompt-inspector-app, built with the
// e2e identifier overlay tauri.e2e.conf.json) driven through tauri-driver and Debian's WebKitWebDriver,
// under an Xvfb display of its own.
//
// open the default scene → edit a tool template → the segment updates → pick a forbidden position
// → its rule and reason show → save → reopen → the close guard: a window manager's close request
// with unsaved edits shows the "Unsaved changes" dialog (Save, Don't Save, Cancel) and keeps the
// window: Escape cancels; two close requests at once show one dialog (the second is ignored); the
// Cancel button keeps window and edits; Enter (the focused Save) saves the edit to the open file and
// ends the app → a second launch closes at once without edits → a third launch opens the large
// generated scene and measures keystroke-to-paint in the real window (a PERF line; the figures never
// fail the run, a board that never updates does), then closes through the guard with Don't Save and
// the large scene's file stays byte for byte the same. After the first launch's opening, a model is
// picked: the board and the Run view's bars are priced for it; then the real instrumented client
// (tests/otel_client/send.py) exports its calls over http/protobuf and http/json to the app's OTLP
// receiver (PROMPT_INSPECTOR_OTLP, a free loopback port) and they land in the Live view within a
// second of each export. The window title (file name, "●" when unsaved)
// is checked as document.title and on the X window. Screenshots go to ./screenshots/.
//
// The file dialogs cannot be driven through WebDriver (they are GTK windows), so the app runs with
// PROMPT_INSPECTOR_E2E_DIALOG_PATH: its open/save dialogs then answer with that path (commands.rs).
// tauri-driver passes no environment of a session's own to the app, so the third launch runs the
// app through a small wrapper script that sets that variable to the large scene.
// Xvfb runs no window manager: xwin.py (Debian's python3-xlib) does what one does, reading window
// titles and sending WM_DELETE_WINDOW, and types into the close guard's GTK dialog through XTEST.
// Every process this script starts is stopped by its PID at the end, pass or fail.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remote } from 'webdriverio';
import { clientPython, startSender } from '../../tests/otel_client/sender.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const shots = join(here, 'screenshots');
mkdirSync(shots, { recursive: true });

const app = process.env.PI_APP ?? join(repo, 'target/debug/prompt-inspector-app');
// The large generated scene of the keystroke-to-paint step (the browser journey's, ui/e2e/journey.mjs).
const big = process.env.BIG_SCENE ?? '/tmp/big.scene.json';
const nativeDriver = process.env.WEBKIT_WEBDRIVER ?? '/usr/bin/WebKitWebDriver';
// Debian's python (python3-xlib is installed for it), not whatever python3 comes first on PATH.
const python = process.env.PI_PYTHON ?? '/usr/bin/python3';
const xwin = join(here, 'xwin.py');
const tauriDriver = process.env.TAURI_DRIVER ?? [join(homedir(), '.cargo/bin/tauri-driver'), '/usr/local/bin/tauri-driver'].find(existsSync) ?? 'tauri-driver';
const E2E_IDENTIFIER = JSON.parse(readFileSync(join(here, '../tauri.e2e.conf.json'), 'utf8')).identifier;
for (const [what, path] of [['the app (TAURI_CONFIG="$(cat src-tauri/tauri.e2e.conf.json)" cargo build -p prompt-inspector-app, as scripts/test-all does)', app], ['WebKitWebDriver (apt-get install -y webkit2gtk-driver)', nativeDriver]]) {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${what}`);
}
try {
  execFileSync(python, ['-c', 'import Xlib.ext.xtest']);
} catch {
  throw new Error(`${python} cannot import Xlib: apt-get install -y python3-xlib (scripts/install-app-deps)`);
}

const tmp = mkdtempSync(join(tmpdir(), 'pi-app-e2e-'));
const saved = join(tmp, 'journey.scene.json');
const children = [];
const step = (m) => console.log(`• ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');
let passed = 0;
/** Polls `fn` until it returns something truthy (and returns that), or fails after `timeout` ms. */
async function pollFor(what, fn, timeout = 15000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
/** Whether a process runs (a zombie waiting for its parent to reap it has ended). */
function running(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
function check(cond, msg) {
  if (!cond) throw new Error(`FAILED: ${msg}`);
  passed++;
  step(`ok: ${msg}`);
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  });
}

function start(cmd, args, env) {
  const p = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  let log = '';
  const keep = (d) => { log = (log + d).slice(-8000); };
  p.stdout.on('data', keep);
  p.stderr.on('data', keep);
  p.log = () => log;
  return p;
}

/** Stops what this script started, newest first, by PID: SIGTERM, then SIGKILL if still there. */
async function stopAll() {
  for (const p of children.reverse()) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    p.kill('SIGTERM');
    for (let i = 0; i < 20 && p.exitCode === null && p.signalCode === null; i++) await sleep(100);
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }
}

// The environment of the driver, and so of the app it launches.
const env = {
  ...process.env,
  // Software rendering: Xvfb has no GPU (harmless on a real display).
  WEBKIT_DISABLE_COMPOSITING_MODE: '1',
  WEBKIT_DISABLE_DMABUF_RENDERER: '1',
  LIBGL_ALWAYS_SOFTWARE: '1',
  // Logs, web view storage and caches of this run stay in the temporary folder.
  XDG_DATA_HOME: join(tmp, 'data'),
  XDG_CONFIG_HOME: join(tmp, 'config'),
  XDG_CACHE_HOME: join(tmp, 'cache'),
  PROMPT_INSPECTOR_E2E_DIALOG_PATH: saved,
  PROMPT_INSPECTOR_LOG: 'info',
};

let browser;
let failed = false;
try {
  // A display of our own, the size of the window, so the screenshot is the main window and nothing
  // else (a developer's own display is left alone): the first free number from 99 up.
  let n = 99;
  while (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) n++;
  start('Xvfb', [`:${n}`, '-screen', '0', '1440x900x24', '-nolisten', 'tcp'], env);
  env.DISPLAY = `:${n}`;
  for (let i = 0; i < 50 && !existsSync(`/tmp/.X11-unix/X${n}`); i++) await sleep(100);
  if (!existsSync(`/tmp/.X11-unix/X${n}`)) throw new Error(`Xvfb did not start on :${n}`);
  step(`Xvfb on ${env.DISPLAY}`);

  const port = await freePort();
  const nativePort = await freePort();
  // The app's OTLP receiver on a free loopback port of its own (never the 4318 a developer's app or
  // collector may hold), for every launch: the Live step sends the real client's calls there.
  const otlpPort = await freePort();
  env.PROMPT_INSPECTOR_OTLP = `127.0.0.1:${otlpPort}`;
  const otlpEndpoint = `http://127.0.0.1:${otlpPort}/v1/traces`;
  // The real client's environment, found or installed before the app starts (a journey without it
  // fails here rather than skipping the Live step).
  step(`the OpenTelemetry client: ${clientPython()}`);
  const driver = start(tauriDriver, ['--port', String(port), '--native-port', String(nativePort), '--native-driver', nativeDriver], env);
  step(`tauri-driver on 127.0.0.1:${port} (WebKitWebDriver on ${nativePort})`);

  // tauri-driver takes a moment to listen; the first session request is retried until it does.
  const options = {
    hostname: '127.0.0.1',
    port,
    logLevel: 'warn',
    connectionRetryCount: 0,
    // A command that hangs (a wedged web view) fails the run instead of waiting the default 2 minutes.
    connectionRetryTimeout: 30000,
    capabilities: {
      // Classic WebDriver (WebKitWebDriver has no BiDi); only the application in tauri:options:
      // a browserName here makes the session fail.
      'wdio:enforceWebDriverClassic': true,
      'tauri:options': { application: app },
    },
  };
  const openSession = async (application = app) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await remote({ ...options, capabilities: { ...options.capabilities, 'tauri:options': { application } } });
      } catch (e) {
        if (attempt >= 30 || driver.exitCode !== null) throw new Error(`no WebDriver session: ${e.message}\n${driver.log()}`);
        await sleep(500);
      }
    }
  };
  browser = await openSession();
  step('session open: the app window is up');

  const $t = (id) => browser.$(`[data-testid="${id}"]`);
  const html = async (id) => (await $t(id)).getHTML({ prettify: false });
  const waitFor = async (what, fn, timeout = 15000) => {
    await browser.waitUntil(fn, { timeout, interval: 100, timeoutMsg: `timed out waiting for ${what}` });
  };
  const shot = (name) => {
    const out = join(shots, name);
    execFileSync('import', ['-window', 'root', out], { env });
    step(`screenshot ${out}`);
  };

  // The X server's side (xwin.py): the top-level windows as a window manager sees them.
  const xWindows = () => JSON.parse(execFileSync(python, [xwin, 'list'], { env, encoding: 'utf8' }));
  const xDo = (...args) => execFileSync(python, [xwin, ...args.map(String)], { env });
  const appWindow = (title = (t) => / — Prompt Inspector$/.test(t)) => xWindows().find((w) => w.protocols.includes('WM_DELETE_WINDOW') && title(w.title ?? ''));
  const main = await pollFor('the app window on the X server', () => appWindow());
  step(`the app's X window: 0x${main.id.toString(16)} of pid ${main.pid}`);
  const titled = async (want, what) => {
    await waitFor(`document.title "${want}"`, async () => (await browser.getTitle()) === want);
    await pollFor(`the X window title "${want}" (it is "${xWindows().find((w) => w.id === main.id)?.title}")`, () => xWindows().find((w) => w.id === main.id)?.title === want);
    check(true, `${what}: the title is "${want}" (document.title and the X window's)`);
  };

  // 1. The default scene on first launch.
  await waitFor('the chat system segment', async () => (await $t('seg-chat-system_msg_prompt').isExisting()) && (await html('seg-chat-system_msg_prompt')).includes('工作笔记'), 30000);
  check((await html('file-name')).includes('default scene'), 'opens on the embedded default scene');
  await titled('default scene — Prompt Inspector', 'the default scene');
  check((await html('tool-goal_rewriter')).includes('invalid'), 'goal_rewriter shows its invalid chip');
  check(await $t('seg-desk-system_prompt').isDisplayed(), 'the desk segments are on the board');
  await sleep(300); // let the board finish painting before the screenshot
  shot('main-window.png');

  // 1a. About, from the keyboard: the app's version (its crate's) and the core's, as their
  // Cargo.toml files say.
  {
    const crateVersion = (manifest) => /^\[package\][^[]*?^version = "([^"]+)"/m.exec(readFileSync(join(repo, manifest), 'utf8'))[1];
    await browser.execute(() => document.querySelector('[data-testid="about-button"]').focus());
    await browser.keys('Enter');
    await waitFor('the About box', async () => (await $t('about-core').isExisting()));
    const appLine = await (await $t('about-app')).getText();
    const coreLine = await (await $t('about-core')).getText();
    check(appLine === `prompt-inspector-app ${crateVersion('src-tauri/Cargo.toml')}`, `About shows the app's version (${appLine})`);
    check(coreLine === `prompt-inspector ${crateVersion('Cargo.toml')}`, `About shows the core's version (${coreLine})`);
    shot('about.png');
    await browser.keys('Escape');
    await waitFor('the About box to close', async () => !(await $t('about').isExisting()));
    const back = await browser.execute(() => document.activeElement?.dataset.testid);
    check(back === 'about-button', 'Escape closes About and gives the focus back to its button');
  }

  // 1b. Costs on the picked model (the models table read from the repository, not from the app):
  // the picker starts on the first default row; another model prices the board and the Run view's
  // bars (tokens read from the cache, written, uncached, and each request's cost).
  {
    const table = JSON.parse(readFileSync(join(repo, 'data/models.json'), 'utf8')).models;
    const usd = (x) => {
      const v = Math.round(x * 1e8) / 1e8;
      return v === 0 ? '$0' : v >= 1 ? `$${v.toFixed(2)}` : v >= 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(6)}`;
    };
    const picker = await $t('model');
    const firstDefault = table.find((r) => r.default).id;
    check((await picker.getValue()) === firstDefault, `the model picker starts on the table's first default row (${firstDefault})`);
    const sonnet = table.find((r) => r.id === 'anthropic/claude-sonnet-4-5');
    await picker.selectByAttribute('value', sonnet.id);
    await waitFor('the board priced for claude-sonnet-4-5', async () => (await (await $t('call-cost-chat')).getAttribute('data-model')) === sonnet.id);
    const figures = await (await browser.$('[data-testid="seg-chat-system_msg_prompt"] [data-testid="seg-figures"]')).getText();
    const tokens = Number(/· (\d+) tokens/.exec(figures)[1]);
    check(figures.endsWith(`· ${usd((tokens * sonnet.prices_per_mtok.input) / 1e6)}`), `a segment card shows its cost on ${sonnet.id} (${figures})`);
    await sleep(300);
    shot('costs.png');
    await (await browser.$('button=Run')).click();
    await waitFor("the example run's bars", async () => $t('prefix-bar-1').isExisting(), 15000);
    const label = await (await $t('prefix-bar-1')).getAttribute('aria-label');
    const m = /: (\d+) input tokens, (\d+) read from the prompt cache, (\d+) written to it, (\d+) uncached; costs (\$[\d.]+)/.exec(label ?? '');
    check(
      !!m && label.includes(sonnet.id) && +m[2] + +m[3] + +m[4] === +m[1] && m[5] === usd((+m[4] * sonnet.prices_per_mtok.input) / 1e6),
      `the Run view's bar says its shares and cost to a screen reader (${label})`,
    );
    await sleep(300);
    shot('run-bars.png');
    await (await browser.$('button=Inspector')).click();
    await waitFor('the board again', async () => $t('seg-chat-system_msg_prompt').isExisting());
  }

  // 1c. Live: the real instrumented client (tests/otel_client/send.py: the `openai` client with
  // opentelemetry-instrumentation-openai-v2 against a stand-in for the OpenAI API) exports a
  // conversation over http/protobuf, then one over http/json, to the app's receiver; each lands in
  // the Live view, in the real window, within a second of its export finishing, grouped by its
  // trace, with the tokens the stand-in billed.
  {
    await (await browser.$('#view-tab-live')).click();
    await waitFor('the Live view naming its receiver', async () => (await $t('live-endpoint').isExisting()) && (await (await $t('live-endpoint')).getText()).includes(otlpEndpoint));
    check(true, `the Live view says where the app receives: ${otlpEndpoint} (PROMPT_INSPECTOR_OTLP)`);
    const sender = startSender(otlpEndpoint);
    // Each conversation: its heading and its rows' billed tokens, read in one round trip.
    const shown = (trace) =>
      browser.execute((id) => {
        const group = [...document.querySelectorAll('[data-testid="live-conversation"]')].find((g) => g.querySelector('h3')?.textContent.includes(id));
        return group ? { head: group.querySelector('h3').textContent, billed: [...group.querySelectorAll('[data-testid^="live-billed-"]')].map((b) => b.textContent.trim()) } : null;
      }, trace);
    try {
      for (const encoding of ['protobuf', 'json']) {
        const r = await sender.send(encoding);
        const exportedAt = r.exported_at * 1000;
        let got = null;
        for (;;) {
          got = await shown(r.trace_id);
          if (got?.billed.length === r.calls.length) break;
          if (Date.now() - exportedAt > 1000) throw new Error(`FAILED: the client's ${encoding} export is not in the Live view ${Math.round(Date.now() - exportedAt)} ms after it finished (${JSON.stringify(got)})`);
          await sleep(20);
        }
        const took = Math.round(Date.now() - exportedAt);
        check(took <= 1000, `the real client's ${r.calls.length} calls exported over http/${encoding} are in the real window's Live view ${took} ms after the export finished, grouped by their trace (${got.head.trim()})`);
        // The instrumentation does not record the cached tokens on the span (`not_on_span`): what
        // it leaves out is not made up.
        const want = r.calls.map((c) => `${c.usage.input} in · ${c.usage.output} out · ${c.not_on_span.includes('the cached tokens') ? 0 : c.usage.cache_read} cache read`);
        check(JSON.stringify(got.billed) === JSON.stringify(want), `${encoding}: each call billed as the stand-in answered (${got.billed.join(' | ')})`);
      }
    } finally {
      await sender.stop();
    }
    await waitFor('the predictions of the received calls', async () => browser.execute(() => [...document.querySelectorAll('[data-testid^="live-predicted-"]')].every((p) => /^\d/.test(p.textContent.trim()))));
    check((await (await $t('live-count')).getText()).startsWith('4 calls') && (await (await $t('live-dropped')).getText()).startsWith('0 dropped'), `the Live view counts the 4 calls, none dropped`);
    await sleep(300);
    shot('live.png');
    await (await browser.$('#view-tab-inspector')).click();
    await waitFor('the board again', async () => $t('seg-chat-system_msg_prompt').isExisting());
  }

  // 2. Edit tf_notes' template: both families' system segments update.
  await (await $t('tool-tf_notes')).click();
  const editor = await browser.$('[data-testid="template-editor"] .cm-content');
  await editor.waitForDisplayed({ timeout: 10000 });
  await editor.click();
  await browser.keys(['Control', 'Home']); // an array is a chord
  // One key per action: WebKitWebDriver wedges on an action list that presses a key that is
  // already down (wdio sends a string as all keys down, then all up).
  for (const c of 'E2E-MARK-') await browser.keys(c);
  await waitFor('the edit in system_msg_prompt', async () => (await html('seg-chat-system_msg_prompt')).includes('E2E-MARK'));
  await waitFor('the edit in system_prompt', async () => (await html('seg-desk-system_prompt')).includes('E2E-MARK'));
  check(true, 'editing the template updates system_msg_prompt (chat) and system_prompt (desk)');
  check(await $t('unsaved').isExisting(), 'the unsaved marker shows');
  await titled('● default scene — Prompt Inspector', 'unsaved edits');

  // 3. A forbidden position: the rule and its reason show, and the tool becomes invalid.
  await (await $t('pos-chat')).selectByAttribute('value', 'reformat_input_prompt');
  await waitFor('the rule box', async () => $t('rule-box').isExisting());
  const box = await html('rule-box');
  check(box.includes('Iron rule 1') && box.includes('rewrites what the user asked for'), 'the forbidden position shows iron rule 1 and its reason');
  await waitFor('tf_notes invalid', async () => (await html('tool-tf_notes')).includes('chat invalid'));
  check(await $t('tool-invalid').isExisting(), 'tf_notes becomes invalid (ValueError at class definition)');
  shot('forbidden-position.png');
  // Back to a legal position before saving.
  // By text: Preact leaves out the value attribute where it equals the option's text.
  await (await $t('pos-chat')).selectByVisibleText('system_msg_prompt');
  await waitFor('the edit back in system_msg_prompt', async () => (await html('seg-chat-system_msg_prompt')).includes('E2E-MARK'));

  // 4. Save as (the save dialog answers with the temporary path), then reopen from disk.
  await (await $t('save-as')).click();
  await waitFor('the saved file name', async () => (await html('file-name')).includes('journey.scene.json'));
  check(!(await $t('unsaved').isExisting()), 'saved: the unsaved marker is gone');
  await titled('journey.scene.json — Prompt Inspector', 'saved');
  check(existsSync(saved) && readFileSync(saved, 'utf8').includes('E2E-MARK'), 'the file on disk holds the edit');
  // Away to the default scene, then Open (the open dialog answers with the saved path).
  await (await browser.$('button=Default')).click();
  await waitFor('the default scene again', async () => (await html('file-name')).includes('default scene') && !(await html('seg-chat-system_msg_prompt')).includes('E2E-MARK'));
  await (await $t('open')).click();
  await waitFor('the reopened file', async () => (await html('file-name')).includes('journey.scene.json') && (await html('seg-chat-system_msg_prompt')).includes('E2E-MARK'));
  check(true, 'reopened the saved file: the edit is there');
  // With a file open, each view tab is what the pointer hits at its centre (nothing of the header
  // drawn over it), and a click on Replay shows it.
  const covered = await browser.execute(() =>
    [...document.querySelectorAll('header [role=tab]')]
      .filter((t) => {
        const r = t.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !hit || !(hit === t || t.contains(hit));
      })
      .map((t) => t.id),
  );
  check(covered.length === 0, `each view tab is what the pointer hits in the real window${covered.length ? ` (not: ${covered.join(', ')})` : ''}`);
  await (await browser.$('#view-tab-replay')).click();
  await waitFor('the Replay view', async () => (await (await browser.$('#view-tab-replay')).getAttribute('aria-selected')) === 'true');
  await (await browser.$('#view-tab-inspector')).click();

  // 4b. Paths the person did not choose: script in the page can call the commands, but reaches
  // only what was chosen, and a refusal says nothing of the file.
  const secretDir = mkdtempSync(join(tmpdir(), 'pi-not-chosen-'));
  const secret = join(secretDir, 'secret.scene.json');
  writeFileSync(secret, readFileSync(saved, 'utf8').replace('E2E-MARK', 'TOP-SECRET'));
  // The answer crosses WebDriver as JSON text: WebKitWebDriver refuses to hand back some objects.
  const refused = JSON.parse(
    await browser.executeAsync((path, done) => {
      window.__TAURI_INTERNALS__.invoke('open', { req: { path } }).then(
        (r) => done(JSON.stringify({ ok: r })),
        (e) => done(JSON.stringify({ error: e })),
      );
    }, secret),
  );
  rmSync(secretDir, { recursive: true, force: true });
  check(
    refused.error?.code === 'path_not_chosen' && !JSON.stringify(refused).includes('TOP-SECRET'),
    `the page's script cannot open a file the person did not choose (${JSON.stringify(refused.error)})`,
  );
  // The recent list is the shell's: it records the save and the reopen itself.
  await (await $t('recent')).click();
  await waitFor('the recent menu lists the saved file', async () => (await (await $t('recent-menu')).getText()).includes('journey.scene.json'));
  check(true, "the Recent menu lists the saved file from the shell's recent list");
  await browser.keys('Escape');

  // 5. The shell's side: the log went to the e2e identifier's log folder, via the app's own IPC.
  const info = await browser.executeAsync((done) => {
    window.__TAURI_INTERNALS__.invoke('app_info').then(done, (e) => done({ error: String(e) }));
  });
  check(typeof info.log_file === 'string' && info.log_file.includes(E2E_IDENTIFIER), `the app logs to its e2e log folder (${info.log_file})`);
  check(readFileSync(info.log_file, 'utf8').includes('journey.scene.json'), 'the log file records the save and the reopen');
  check(info.recent_logs.some((l) => l.message.includes('scene saved')), 'the shell keeps the save in its recent log lines');
  await waitFor('the app log in the diagnostics panel', async () => {
    const panel = await browser.$('.shell-log');
    return (await panel.isExisting()) && (await panel.getHTML({ prettify: false })).includes('scene saved');
  });
  check(true, 'the diagnostics panel shows the app log (log-event), with the save');

  // 6. No network: the content security policy refuses any connection but IPC.
  const csp = await browser.executeAsync((done) => {
    let violated = null;
    document.addEventListener('securitypolicyviolation', (e) => { violated = e.violatedDirective; }, { once: true });
    fetch('https://example.com/').then(() => done({ fetched: true, violated }), () => setTimeout(() => done({ fetched: false, violated }), 200));
  });
  check(!csp.fetched && String(csp.violated).startsWith('connect-src'), `the CSP blocks a fetch to the network (${csp.violated})`);

  // 7. The close guard on the real path: a window manager's close request (WM_DELETE_WINDOW) →
  // GTK's delete-event → WindowEvent::CloseRequested → the shell's "Unsaved changes" dialog, whose
  // buttons GTK shows as Save (focused), Don't Save, Cancel.
  const logCount = (line) => readFileSync(info.log_file, 'utf8').split(line).length - 1;
  const ASKED = 'close requested with unsaved changes: asking first';
  const KEPT = 'close cancelled: the unsaved changes are kept';
  const IGNORED = 'close requested while the close guard is open: ignored';
  const SAVING = 'close guard: saving before closing';
  const DISCARDED = 'closing with unsaved changes discarded';
  await (await $t('tool-tf_notes')).click();
  const editor2 = await browser.$('[data-testid="template-editor"] .cm-content');
  await editor2.waitForDisplayed({ timeout: 10000 });
  await editor2.click();
  await browser.keys(['Control', 'Home']);
  for (const c of 'UNSAVED-') await browser.keys(c);
  await waitFor('the new edit in system_msg_prompt', async () => (await html('seg-chat-system_msg_prompt')).includes('UNSAVED-'));
  // The title travels with the unsaved flag (set_dirty): once the X title has the marker, the
  // shell knows there are unsaved edits.
  await titled('● journey.scene.json — Prompt Inspector', 'a new edit of the saved file');
  const editsKept = async () => (await $t('unsaved').isExisting()) && (await html('seg-chat-system_msg_prompt')).includes('UNSAVED-');
  const guardDialog = () => xWindows().find((w) => w.title === 'Unsaved changes');
  const windowStays = async () => running(main.pid) && xWindows().some((w) => w.id === main.id) && (await editsKept());
  const requestClose = async (n) => {
    xDo('close', main.id);
    const dialog = await pollFor('the close guard dialog', guardDialog);
    await pollFor(`close request ${n} in the log`, () => logCount(ASKED) >= n);
    return dialog;
  };
  /** Types into the dialog, waits for it to go, and for the n-th "kept" line of the log. */
  const answerCancel = async (dialog, n, ...keys) => {
    xDo('keys', dialog.id, ...keys);
    await pollFor('the dialog to close', () => !guardDialog());
    await pollFor(`cancel ${n} in the log`, () => logCount(KEPT) >= n);
  };

  let dialog = await requestClose(1);
  check(dialog.pid === main.pid, `a close request with unsaved edits shows the app's "Unsaved changes" dialog (X window 0x${dialog.id.toString(16)})`);
  check(await windowStays(), 'while it asks, the window stays open and the edits are there');
  await sleep(300); // let the dialog finish painting before the screenshot
  shot('close-guard.png');
  // (a) Escape: cancel.
  await answerCancel(dialog, 1, 'Escape');
  check(await windowStays(), 'Escape (cancel): the window stays open with the unsaved edits');
  // (b) Two close requests queued at once (a double click on the close button): one dialog; the
  // second request finds the guard open and is ignored.
  xDo('close', main.id, 2);
  dialog = await pollFor('the close guard dialog', guardDialog);
  await pollFor('the second close request ignored in the log', () => logCount(IGNORED) >= 1);
  await sleep(500); // a second dialog, if there were one, would be up by now
  const dialogs = xWindows().filter((w) => w.title === 'Unsaved changes').length;
  check(dialogs === 1 && logCount(ASKED) === 2 && logCount(IGNORED) === 1, `two close requests in a row: one dialog (${dialogs}), the second request ignored (log)`);
  await answerCancel(dialog, 2, 'Escape');
  check(await windowStays(), 'cancelled: the window stays open with the unsaved edits');
  // (c) The Cancel button: GTK focuses the first button, Save; two Tabs move past Don't Save to Cancel.
  dialog = await requestClose(3);
  xDo('keys', dialog.id, 'Tab', 'Tab');
  await sleep(300);
  shot('close-guard-cancel.png');
  await answerCancel(dialog, 3, 'Return');
  check(await windowStays(), 'the Cancel button: the window stays open with the unsaved edits');
  check(await $t('unsaved').isExisting() && (await browser.getTitle()).startsWith('●'), 'still marked unsaved after cancelling');
  check(logCount(SAVING) === 0 && !readFileSync(saved, 'utf8').includes('UNSAVED-'), 'nothing was saved while cancelling');
  // (d) Enter: Save (the focused first button). The page saves to the open file, then the window
  // closes and the app ends.
  dialog = await requestClose(4);
  xDo('keys', dialog.id, 'Return');
  await pollFor('the app to exit', () => !running(main.pid));
  check(!xWindows().some((w) => w.id === main.id) && !guardDialog(), 'Enter (Save): the window and the dialog are gone');
  check(readFileSync(saved, 'utf8').includes('UNSAVED-'), 'Enter (Save): the unsaved edit was written to the open file');
  check(logCount(SAVING) === 1 && logCount('saved; closing') === 1, 'Save: the page saved, then the app closed (log)');
  check(logCount(DISCARDED) === 0, 'nothing was discarded');
  await browser.deleteSession().catch(() => {}); // the app is gone: its session with it
  browser = null;

  // 8. No unsaved edits: a close request ends the app without asking (a second launch).
  browser = await openSession();
  const second = await pollFor('the second launch\'s window', () => appWindow((t) => / — Prompt Inspector$/.test(t) && !t.startsWith('●')));
  step(`second launch: X window 0x${second.id.toString(16)} of pid ${second.pid}`);
  await waitFor('the model picker on the second launch', async () => $t('model').isExisting(), 30000);
  check((await (await $t('model')).getValue()) === 'anthropic/claude-sonnet-4-5', "the picked model is remembered across launches (the web view's storage)");
  const asked = logCount(ASKED);
  xDo('close', second.id);
  await pollFor('the app to exit', () => !running(second.pid));
  check(logCount('close requested: no unsaved changes, closing') === 1 && logCount(ASKED) === asked, 'without unsaved edits a close request ends the app at once, without the dialog');
  await browser.deleteSession().catch(() => {});
  browser = null;

  // 9. Keystroke-to-paint on the large generated scene, in the real window (the browser journey's
  // step 8 against the app): a third launch whose Open dialog answers with the large scene.
  if (!existsSync(big)) writeFileSync(big, execFileSync('cargo', ['run', '-q', '--release', '--example', 'gen_scene'], { cwd: repo, maxBuffer: 1 << 28 }));
  const wrapper = join(tmp, 'app-with-big-scene');
  const sh = (v) => `'${v.replaceAll("'", `'\\''`)}'`;
  writeFileSync(wrapper, `#!/bin/sh\nPROMPT_INSPECTOR_E2E_DIALOG_PATH=${sh(big)} exec ${sh(app)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const bigHash = sha256(big);
  browser = await openSession(wrapper);
  const third = await pollFor('the third launch\'s window', () => appWindow((t) => / — Prompt Inspector$/.test(t) && !t.startsWith('●')));
  step(`third launch: X window 0x${third.id.toString(16)} of pid ${third.pid}`);
  await waitFor('the default scene', async () => (await html('seg-chat-system_msg_prompt')).includes('工作笔记'), 30000);
  // How often this web view runs requestAnimationFrame (the paint probe waits for a frame).
  const raf = await browser.executeAsync((done) => {
    const t = [];
    const tick = (now) => { t.push(now); if (t.length < 61) requestAnimationFrame(tick); else done(t.slice(1).map((x, i) => x - t[i]).sort((a, b) => a - b)); };
    requestAnimationFrame(tick);
  });
  await (await $t('open')).click();
  await waitFor(`${basename(big)} opened and rendered`, async () => (await html('file-name')).includes(basename(big)) && browser.execute(() => !!(window.__pi.reports && window.__pi.path)), 60000);
  const tool = await browser.$('.tool-row');
  const firstTool = await tool.getAttribute('data-testid');
  await tool.click();
  const bed = await browser.$('[data-testid="template-editor"] .cm-content');
  await bed.waitForDisplayed({ timeout: 10000 });
  await bed.click();
  await browser.keys(['Control', 'End']);
  // The board is idle (the open's render has painted) before the first keystroke.
  await sleep(300);
  const perf = () => browser.execute(() => { const p = window.__pi.perf; return [p.paints, p.last, p.renderMs, p.coreMs, p.fromAnswer, ...p.phases, p.lag]; });
  const samples = [];
  let typed = '';
  for (let i = 0; i < 12; i++) {
    const [before] = await perf();
    const c = String(i % 10);
    await browser.keys(c);
    typed += c;
    let now;
    await waitFor(`the paint after keystroke ${i + 1} (the board did not update)`, async () => (now = await perf())[0] > before, 30000);
    samples.push(now.slice(1));
    await sleep(50);
  }
  // The board shows what was typed: the first tool's notes in the chat system segment.
  await waitFor('the typed text on the board', () => browser.execute((s) => !!document.querySelector('[data-testid="seg-chat-system_msg_prompt"]')?.textContent.includes(s), typed));
  check(true, `typing into ${firstTool}'s template on the large scene updates the board (${samples.length} probed paints)`);
  const sorted = (k) => samples.map((x) => x[k]).sort((a, b) => a - b);
  const med = (a) => a[Math.floor(a.length / 2)];
  const [paint, trip, core, fromAnswer, toDom, toFrame, toPainted, lag] = [sorted(0), sorted(1), sorted(2), sorted(3), sorted(4), sorted(5), sorted(6), sorted(7)];
  const profile = basename(dirname(realpathSync(app)));
  console.log(`PERF real window keystroke-to-paint on ${big} (${(readFileSync(big).length / 1048576).toFixed(2)} MiB, ${profile} app): median ${med(paint).toFixed(1)} ms, min ${paint[0].toFixed(1)}, max ${paint.at(-1).toFixed(1)} over ${paint.length} keystrokes; round trip median ${med(trip).toFixed(1)} ms, core median ${med(core).toFixed(1)} ms; answer to paint median ${med(fromAnswer).toFixed(1)} ms (max ${fromAnswer.at(-1).toFixed(1)}): re-render ${med(toDom).toFixed(1)}, wait for the frame ${med(toFrame).toFixed(1)}, frame ${med(toPainted).toFixed(1)}; the board's frame began ${med(lag).toFixed(1)} ms (max ${lag.at(-1).toFixed(1)}) after the frame that showed the typed character`);
  console.log(`PERF real window requestAnimationFrame interval: median ${med(raf).toFixed(1)} ms, min ${raf[0].toFixed(1)}, max ${raf.at(-1).toFixed(1)} over ${raf.length} frames`);
  await sleep(300); // let the board finish painting before the screenshot
  shot('big-scene.png');
  // Unsaved edits: close through the guard and Don't Save (one Tab from the focused Save; Enter
  // would save the typed digits into the large scene), so the app ends as a person would end it.
  xDo('close', third.id);
  const guard3 = await pollFor('the close guard dialog', guardDialog);
  xDo('keys', guard3.id, 'Tab');
  await sleep(300);
  shot('close-guard-dont-save.png');
  xDo('keys', guard3.id, 'Return');
  await pollFor('the app to exit', () => !running(third.pid));
  check(logCount(DISCARDED) === 1, "Don't Save: the app ended through the close guard, the edits discarded (log)");
  check(sha256(big) === bigHash, `Don't Save: ${basename(big)} is byte for byte as before`);
  await browser.deleteSession().catch(() => {});
  browser = null;

  // 10. The money question in the real window, at 1280x720 and 1440x900: a fourth launch whose
  // folder dialog answers with a conversation folder (a copy of fixtures/cache/system-notes). The
  // cache example (fixtures/run/stable-prefix) reads on claude-sonnet-4-5 and its first round
  // says why it reads nothing; the conversation's bars, a zero-read explanation and its table of
  // requests sorted from the keyboard.
  const conversation = join(tmp, 'conversation');
  cpSync(join(repo, 'fixtures/cache/system-notes'), conversation, { recursive: true });
  const wrapper4 = join(tmp, 'app-with-conversation');
  writeFileSync(wrapper4, `#!/bin/sh\nPROMPT_INSPECTOR_E2E_DIALOG_PATH=${sh(conversation)} exec ${sh(app)} "$@"\n`);
  chmodSync(wrapper4, 0o755);
  browser = await openSession(wrapper4);
  const fourth = await pollFor('the fourth launch\'s window', () => appWindow((t) => / — Prompt Inspector$/.test(t) && !t.startsWith('●')));
  step(`fourth launch: X window 0x${fourth.id.toString(16)} of pid ${fourth.pid}`);
  await waitFor('the model picker on the fourth launch', async () => $t('model').isExisting(), 30000);
  await (await $t('model')).selectByAttribute('value', 'anthropic/claude-sonnet-4-5');
  const focusedId = () => browser.execute(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? null);
  const tabTo = async (id, key = 'Tab') => {
    for (let n = 1; n <= 80; n++) {
      await browser.keys(key === 'Tab' ? ['Tab'] : ['Shift', 'Tab']);
      if ((await focusedId()) === id) return n;
    }
    throw new Error(`FAILED: the keyboard never reached ${id} (the focus is on ${await focusedId()})`);
  };
  const order = () => browser.execute(() => [...document.querySelectorAll('[data-testid="cost-table"] tbody tr')].map((r) => r.getAttribute('data-testid')));
  for (const [width, height] of [[1280, 720], [1440, 900]]) {
    await browser.setWindowSize(width, height);
    const inner = await browser.execute(() => [window.innerWidth, window.innerHeight]);
    const size = `${width}x${height}`;
    step(`window ${size} (the web view ${inner.join('x')})`);
    check(Math.abs(inner[0] - width) <= 16, `the window is ${width} px wide (${inner[0]})`);
    await (await browser.$('button=Run')).click();
    await (await $t('run-example-cache')).click();
    await waitFor('the cache example', async () => (await $t('prefix-bar-2').isExisting()) && (await (await $t('prefix-bar-2')).getAttribute('aria-label')).includes('claude-sonnet-4-5'));
    const label = async (n) => (await (await $t(`prefix-bar-${n}`)).getAttribute('aria-label')) ?? '';
    const [l1, l2] = [await label(1), await label(2)];
    const written = Number(/(\d+) written to it/.exec(l1)[1]);
    check(written >= 1024 && l2.includes(`${written} read from the prompt cache`), `${size}: the cache example writes ${written} tokens in request 1 and request 2 reads them (${l2})`);
    check((await (await $t('zero-read-1')).getAttribute('data-cause')) === 'first_call' && !(await $t('zero-read-2').isExisting()), `${size}: only request 1 reads nothing, and says why`);
    await sleep(300);
    shot(`money-run-${size}.png`);
    await (await browser.$('button=Conversation')).click();
    await (await $t('conv-browse')).click();
    await waitFor('the conversation', async () => $t('conv-bar-3').isExisting());
    const zero2 = await $t('conv-zero-2');
    const why2 = await (await $t('conv-zero-2-why')).getText();
    check((await zero2.getAttribute('data-cause')) === 'miss_system_changed' && why2.includes('tool tf_notes'), `${size}: call 2 of the conversation reads nothing, system changed: ${why2}`);
    const before = await order();
    await browser.execute(() => document.querySelector('[data-testid="conv-folder"]').focus());
    const presses = await tabTo('sort-cost');
    await browser.keys(['Enter']);
    const after = await order();
    check(JSON.stringify(after) === JSON.stringify([...before].reverse()), `${size}: ${presses} Tabs reach the Cost header and Enter reverses the table (${before.join(', ')} → ${after.join(', ')})`);
    await sleep(300);
    shot(`money-conversation-${size}.png`);
  }
  xDo('close', fourth.id);
  await pollFor('the app to exit', () => !running(fourth.pid));
  await browser.deleteSession().catch(() => {});
  browser = null;
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  if (browser) await browser.deleteSession().catch(() => {});
  await stopAll();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`app e2e: ${passed} passed, ${failed ? 1 : 0} failed`);
process.exit(failed ? 1 : 0);
