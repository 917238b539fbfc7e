// The real instrumented client (send.py) as the journeys drive it: ui/e2e/live.mjs against serve's
// receiver, src-tauri/e2e/journey.mjs against the app's. The client's environment comes from
// scripts/otel-client-venv (installed there when missing, as scripts/otel-client-test does; kept
// under $CARGO_TARGET_DIR): a journey fails when the client cannot run, it never skips it.
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

/** The venv's python, installed first if it is not there yet; throws with the script's reason. */
export function clientPython() {
  try {
    return execFileSync('bash', [join(repo, 'scripts/otel-client-venv')], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch (e) {
    throw new Error(`the OpenTelemetry client cannot run (scripts/otel-client-venv failed: ${e.message})`);
  }
}

/**
 * Starts send.py against `endpoint`, waiting on stdin before each export. `send(encoding)` runs one
 * conversation (two chat-completions calls) exported in that encoding and resolves with send.py's
 * report: `{encoding, trace_id, calls: [{span_id, model, answered_model, messages, usage, not_on_span}], exported_at}`
 * (`exported_at` in seconds since the epoch). `stop()` ends the sender.
 */
export function startSender(endpoint, encodings = ['protobuf', 'json']) {
  const python = clientPython();
  const child = spawn(python, [join(here, 'send.py'), '--endpoint', endpoint, '--encodings', encodings.join(','), '--wait'], {
    cwd: here,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-8000);
  });
  let buffered = '';
  const lines = [];
  const waiting = [];
  let ended = null;
  const settle = () => {
    while (waiting.length && (lines.length || ended)) {
      const w = waiting.shift();
      if (lines.length) w.res(lines.shift());
      else w.rej(new Error(`the client's sender ended (${ended}) before reporting an export: ${stderr}`));
    }
  };
  child.stdout.on('data', (d) => {
    buffered += d;
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
    settle();
  });
  child.on('exit', (code, signal) => {
    ended = signal ?? `exit ${code}`;
    settle();
  });
  child.on('error', (e) => {
    ended = String(e);
    settle();
  });
  const sent = [];
  return {
    /** One conversation exported in `encoding` (the next of `encodings`); its report. */
    async send(encoding) {
      const want = encodings[sent.length];
      if (encoding !== want) throw new Error(`the sender was started to send ${want} next, not ${encoding}`);
      const line = new Promise((res, rej) => {
        waiting.push({ res, rej });
        settle();
      });
      child.stdin.write('\n');
      const timeout = new Promise((_, rej) =>
        setTimeout(() => rej(new Error(`the client's ${encoding} export did not come in 60 s: ${stderr}`)), 60000).unref(),
      );
      const report = JSON.parse(await Promise.race([line, timeout]));
      if (report.encoding !== encoding) throw new Error(`the sender reported a ${report.encoding} export, not ${encoding}`);
      sent.push(report);
      return report;
    },
    /** Ends the sender; resolves once it has exited. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        await new Promise((res) => {
          const t = setTimeout(() => child.kill('SIGKILL'), 10000);
          child.once('exit', () => {
            clearTimeout(t);
            res();
          });
        });
      }
    },
    pid: child.pid,
  };
}
