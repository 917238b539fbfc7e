// The Run and Replay views: where the loop's appended blocks are marked, tool calls and the final
// answer, paths typed relative to the open scene, and the replay list's words and short paths.
// The run reports are the `run` part of the fixtures' goldens, which `prompt-inspector check`
// keeps byte for byte equal to what `prompt-inspector run --format json` prints.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Api } from '../src/api/api';
import type { CheckResponse, RunReport } from '../src/api/types';
import { errorText } from '../src/api/api';
import { baseName, ellipsisPath, resolvePath, shortPath } from '../src/lib/paths';
import { Session } from '../src/lib/session';
import { fakeApi } from './fake-api';
import {
  EXAMPLE_RUN,
  markBlocks,
  messageRuns,
  requestViews,
  RunReportView,
  RunView,
  toolCalls,
  type FullRunReport,
} from '../src/views/Run';
import { ReplayView, STATUS_WORDS } from '../src/views/Replay';

import DEFAULT from '../../fixtures/default.scene.json?raw';
import CD1 from '../../fixtures/run/cd-round-1.golden.json?raw';
import CD2 from '../../fixtures/run/cd-round-2.golden.json?raw';
import FINAL from '../../fixtures/run/final-without-tools.golden.json?raw';
import LONG from '../../fixtures/run/long-goal.golden.json?raw';
import SEVERAL from '../../fixtures/run/several-changes.golden.json?raw';
import { dropRoot, freshRoot } from './root';

const report = (golden: string) => JSON.parse(golden).run as FullRunReport;
const ALL = { 'cd-round-1': CD1, 'cd-round-2': CD2, 'final-without-tools': FINAL, 'long-goal': LONG, 'several-changes': SEVERAL };
const marked = (runs: { text: string; injected: boolean }[]) => runs.filter((r) => r.injected).map((r) => r.text);

describe('where the appended blocks are marked', () => {
  for (const [name, golden] of Object.entries(ALL)) {
    it(`${name}: round i's blocks are marked in request i+1 (or the next request), never in request i`, () => {
      const r = report(golden);
      const views = requestViews(r);
      expect(views.length).toBe(r.iterations.length + (r.next_request_messages != null ? 1 : 0));
      r.iterations.forEach((it, i) => {
        const own = views[i];
        const lastOwn = own.messages.length - 1;
        // Request i itself does not hold the blocks appended after round i (the old view looked there).
        for (const b of it.injected) expect(own.messages.some((m) => String(m.content).includes(b))).toBe(false);
        expect(marked(messageRuns(own, lastOwn)).some((t) => it.injected.includes(t))).toBe(false);
        const following = views[i + 1];
        if (!it.injected.length) {
          expect(following).toBeUndefined();
          return;
        }
        // In the request that follows they are marked, in order, inside its last message only.
        const last = following.messages.length - 1;
        expect(marked(messageRuns(following, last))).toEqual(it.injected);
        for (let j = 0; j < last; j++) expect(marked(messageRuns(following, j))).toEqual([]);
        // The marked text is the message text, byte for byte.
        expect(
          messageRuns(following, last)
            .map((x) => x.text)
            .join(''),
        ).toBe(following.messages[last].content);
      });
    });
  }

  it('several-changes ends after a tool round: the next request carries the dynamic context and the reminder', () => {
    const r = report(SEVERAL);
    const views = requestViews(r);
    const next = views.at(-1)!;
    expect(next.next).toBe(true);
    const blocks = marked(messageRuns(next, next.messages.length - 1));
    expect(blocks.map((b) => b.split('\n')[0])).toEqual(['<dynamic-context>', '<system-reminder>']);
    expect(blocks[0]).toContain('/srv/api');
    // The previous request is repeated unchanged at its start.
    expect(next.shared).toBe(r.iterations.at(-1)!.request_messages);
    expect(next.messages.length).toBe(r.messages.length);
  });

  it('marks the blocks at the end even when the same text occurs earlier', () => {
    const b = '<system-reminder>\nx\n</system-reminder>';
    const text = `echo ${b}\n\n${b}`;
    const runs = markBlocks(text, [b]);
    expect(runs).toEqual([
      { text: `echo ${b}\n\n`, injected: false },
      { text: b, injected: true },
    ]);
    expect(markBlocks('no blocks here', [b])).toEqual([{ text: 'no blocks here', injected: false }]);
  });
});

describe('tool calls', () => {
  it('reads the flat shape {id, name, arguments}', () => {
    const r = report(CD2);
    expect(toolCalls(r.iterations[1].assistant)).toEqual([{ id: 'call_2', name: 'Cd', arguments: '{"path": "docs"}' }]);
  });
  it("reads OpenAI's shape {id, function: {name, arguments}}, several per turn", () => {
    const r = report(SEVERAL);
    expect(toolCalls(r.iterations[1].assistant)).toEqual([
      { id: 'call_2', name: 'Cd', arguments: '{"path": "web"}' },
      { id: 'call_3', name: 'Shell', arguments: '{"command": "pnpm build"}' },
    ]);
  });
  it('shows object arguments as JSON', () => {
    expect(
      toolCalls({ role: 'assistant', content: '', tool_calls: [{ id: 'a', name: 'Read', arguments: { path: 'x' } }] })[0].arguments,
    ).toBe('{"path":"x"}');
  });
});

let root: HTMLElement;
beforeEach(() => {
  localStorage.clear();
  root = freshRoot();
});
afterEach(() => dropRoot(root));

describe('the run report as the page shows it', () => {
  const mount = (golden: string) =>
    act(() => {
      render(h(RunReportView, { report: report(golden) as unknown as RunReport, source: 'test' }), root);
    });

  it('cd-round-2: the tool calls with their arguments, the results, the marks, the final answer', async () => {
    await mount(CD2);
    const rounds = [...root.querySelectorAll('[data-testid^="run-round-"]')];
    expect(rounds.length).toBe(4);
    // No assistant turn is an empty box: each names the tool it calls and the arguments.
    const r2 = rounds[1].textContent ?? '';
    expect(r2).toContain('calls Cd (call_2) with arguments {"path": "docs"}');
    expect(rounds[0].textContent).toContain('calls Shell (call_1) with arguments {"command": "ls"}');
    // The tool results, without the blocks appended to them.
    expect(rounds[1].querySelector('.run-results')?.textContent).toContain('当前目录: /work/repo/docs');
    expect(rounds[1].querySelector('.run-results')?.textContent).not.toContain('<system-reminder>');
    // What the injector did, in words.
    expect(rounds[1].querySelector('.run-after')?.textContent).toContain('Added: the directory changed from /work/repo to /work/repo/docs');
    expect(rounds[0].querySelector('.run-after')?.textContent).toContain('only records the starting directory');
    // The dynamic-context block appended after round 2 is marked in request 3, not in request 2.
    const marks = (el: Element) => [...el.querySelectorAll('mark.injected')].map((m) => m.textContent ?? '');
    expect(marks(rounds[1]).some((t) => t.startsWith('<dynamic-context>'))).toBe(false);
    expect(marks(rounds[2]).filter((t) => t.startsWith('<dynamic-context>'))).toHaveLength(1);
    expect(marks(rounds[2]).filter((t) => t.startsWith('<system-reminder>'))).toHaveLength(1);
    expect(marks(rounds[0])).toEqual([]);
    // The final answer.
    const fin = root.querySelector('[data-testid="final-answer"]');
    expect(fin?.closest('[data-testid="run-round-4"]')).toBeTruthy();
    expect(fin?.textContent).toContain('docs 目录里有 cli.md 和 run-loop.md。');
    // A visible legend for the marks; no citations of documents users do not have.
    expect(root.querySelector('.run-legend mark')).toBeTruthy();
    expect(root.textContent).not.toMatch(/seed \d|contract §/);
  });

  it('lists the messages a request repeats only once they are opened', async () => {
    await mount(CD2);
    const round2 = root.querySelector('[data-testid="run-round-2"]')!;
    const shared = round2.querySelector('details.run-shared') as HTMLDetailsElement;
    expect(shared.querySelector('summary')?.textContent).toBe('Messages 1–4: request 1 again, unchanged');
    expect(shared.querySelectorAll('li')).toHaveLength(0);
    await act(() => {
      shared.open = true;
      shared.dispatchEvent(new Event('toggle'));
    });
    const lines = [...shared.querySelectorAll('li')].map((li) => li.textContent);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe('user 先看看仓库结构');
  });

  it('says when rounds were ignored and history system messages dropped; shows the next request', async () => {
    await mount(FINAL);
    expect(root.textContent).toContain('1 recorded round was ignored');
    expect(root.querySelector('[data-testid="run-next-request"]')).toBeNull();
    await mount(SEVERAL);
    expect(root.textContent).toContain('1 system message of the history was dropped');
    const next = root.querySelector('[data-testid="run-next-request"]')!;
    expect([...next.querySelectorAll('mark.injected')].map((m) => m.textContent?.split('\n')[0])).toEqual([
      '<dynamic-context>',
      '<system-reminder>',
    ]);
    expect(root.querySelector('[data-testid="final-answer"]')).toBeNull();
    expect(root.textContent).toContain("the model's answer to it is not recorded");
  });
});

/** A fake core: files by path, `run` answering with the golden's report of the matching fixture. */
function coreWith(files: Record<string, string>, opened: string[], checked: string[] = []): Api {
  return fakeApi({
    defaultScene: async () => ({ path: null, text: DEFAULT }),
    open: async (path) => {
      opened.push(path);
      if (!(path in files)) throw { code: 'io_error', message: `${path}: No such file or directory (os error 2)`, file: path };
      return { path, text: files[path] };
    },
    stat: async () => ({ modified_ms: 1, size: 1 }),
    run: async (text) => ({ report: report(text === EXAMPLE_RUN.text ? CD2 : CD1) as unknown as RunReport, zero_reads: [], what_if: [] }),
    check: async (folder) => {
      checked.push(folder);
      const scenes = ['a/long/path/to/deeply/nested/scene-with-a-long-name.scene.json', 'b.scene.json', 'c.scene.json', 'd.scene.json'].map(
        (p, k) => ({
          path: `${folder}/${p}`,
          golden_path: `${folder}/${p.replace('.scene.', '.golden.')}`,
          status: (['mismatch', 'ok', 'missing_golden', 'unreadable'] as const)[k],
          golden: null,
          current: null,
          diff: null,
          error: null,
        }),
      );
      return { passed: 1, failed: 3, scenes } satisfies CheckResponse;
    },
  });
}

const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  });
const input = (el: HTMLInputElement, v: string) =>
  act(() => {
    el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });

describe('RunView paths', () => {
  it('on the embedded default scene (no folder) it shows the built-in example run', async () => {
    const opened: string[] = [];
    const s = new Session(coreWith({}, opened));
    await s.load(DEFAULT, null, false);
    await act(() => {
      render(h(RunView, { session: s }), root);
    });
    await settle();
    expect(root.textContent).toContain('built-in example');
    expect(root.querySelectorAll('[data-testid^="run-round-"]').length).toBe(4);
    expect(opened).toEqual([]);
  });

  it("resolves a typed relative path against the open scene's folder; a missing one names the path once", async () => {
    const opened: string[] = [];
    const s = new Session(coreWith({ '/proj/fixtures/run/x.scene.json': CD1 }, opened));
    await s.load(DEFAULT, '/proj/fixtures/default.scene.json', false);
    await act(() => {
      render(h(RunView, { session: s }), root);
    });
    await settle();
    const box = root.querySelector('[data-testid="run-path"]') as HTMLInputElement;
    await input(box, 'run/x.scene.json');
    await act(() => {
      (root.querySelector('[data-testid="run-file"]') as HTMLElement).click();
    });
    await settle();
    expect(opened).toEqual(['/proj/fixtures/run/x.scene.json']);
    expect(root.textContent).toContain('of /proj/fixtures/run/x.scene.json');
    await input(box, '../nope.scene.json');
    await act(() => {
      (root.querySelector('[data-testid="run-file"]') as HTMLElement).click();
    });
    await settle();
    const err = root.querySelector('[data-testid="run-error"]')?.textContent ?? '';
    expect(err).toBe('/proj/nope.scene.json: No such file or directory (os error 2)');
    expect(err.split('/proj/nope.scene.json').length - 1).toBe(1);
  });
});

describe('ReplayView', () => {
  it('keeps a folder typed before its first effects ran (they run after paint)', async () => {
    const s = new Session(coreWith({}, [], []));
    await s.load(DEFAULT, '/proj/fixtures/default.scene.json', false);
    // No act(): the mount effect is still pending when the person types, as in a slow browser.
    render(h(ReplayView, { session: s }), root);
    const box = root.querySelector('[data-testid="replay-folder"]') as HTMLInputElement;
    box.value = 'run';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    expect(box.value).toBe('run');
  });
  it("starts on the open scene's folder; relative folders resolve against it; chips speak words; long paths shorten", async () => {
    const checked: string[] = [];
    const s = new Session(coreWith({}, [], checked));
    await s.load(DEFAULT, '/proj/fixtures/default.scene.json', false);
    await act(() => {
      render(h(ReplayView, { session: s }), root);
    });
    await settle();
    const box = root.querySelector('[data-testid="replay-folder"]') as HTMLInputElement;
    expect(box.value).toBe('/proj/fixtures');
    await input(box, 'run');
    const checkButton = [...root.querySelectorAll('button')].find((b) => b.textContent === 'Check')!;
    await act(() => {
      checkButton.click();
    });
    await settle();
    expect(checked).toEqual(['/proj/fixtures/run']);
    const items = [...root.querySelectorAll('.scene-list button')];
    const chips = items.map((b) => b.querySelector('.chip')?.textContent?.replace(/^\S+ /, ''));
    expect(chips).toEqual(['mismatch', 'missing golden', 'unreadable', 'matches']);
    expect(root.querySelector('.scene-list')?.textContent).not.toMatch(/missing_golden|\bok\b/);
    // Relative to the checked folder, middle-ellipsised when still long, the full path on hover.
    expect(items[0].getAttribute('title')).toBe('/proj/fixtures/run/a/long/path/to/deeply/nested/scene-with-a-long-name.scene.json');
    expect(items[1].textContent).toContain('c.scene.json');
    expect(items[1].textContent).not.toContain('/proj');
    await act(() => {
      (items[0] as HTMLElement).click();
    });
    const detail = root.querySelector('[data-testid="replay-scene-path"]')!;
    expect(detail.getAttribute('title')).toBe(items[0].getAttribute('title'));
    expect(detail.textContent).toBe('a/long/path/to/deeply/nested/scene-with-a-long-name.scene.json');
  });

  it('on a scene without a folder it starts empty and asks for a folder', async () => {
    const s = new Session(coreWith({}, []));
    await s.load(DEFAULT, null, false);
    await act(() => {
      render(h(ReplayView, { session: s }), root);
    });
    expect((root.querySelector('[data-testid="replay-folder"]') as HTMLInputElement).value).toBe('');
    expect(root.textContent).toContain('Choose the folder of scenes to check');
    expect(Object.values(STATUS_WORDS)).toEqual(['matches', 'mismatch', 'missing golden', 'unreadable']);
  });
});

describe('paths', () => {
  it('resolves relative paths against a folder', () => {
    expect(resolvePath('run/a.json', '/p/fixtures')).toBe('/p/fixtures/run/a.json');
    expect(resolvePath('./run/../b.json', '/p/fixtures/')).toBe('/p/fixtures/b.json');
    expect(resolvePath('../../../x', '/p')).toBe('/x');
    expect(resolvePath('/abs/x', '/p')).toBe('/abs/x');
    expect(resolvePath('C:\\x\\y', '/p')).toBe('C:\\x\\y');
    expect(resolvePath('sub\\a.json', 'C:\\work')).toBe('C:\\work\\sub\\a.json');
    expect(resolvePath(' rel ', null)).toBe('rel');
    expect(resolvePath('', '/p')).toBe('');
  });
  it('names a file by its base name', () => {
    expect(baseName('/home/me/projects/deep/demo.scene.json')).toBe('demo.scene.json');
    expect(baseName('C:\\work\\demo.scene.json')).toBe('demo.scene.json');
    expect(baseName('demo.scene.json')).toBe('demo.scene.json');
    expect(baseName('/a/folder/')).toBe('folder');
  });
  it('shortens long paths', () => {
    expect(shortPath('/f/a/b.json', '/f')).toBe('a/b.json');
    expect(shortPath('/g/a/b.json', '/f')).toBe('/g/a/b.json');
    const long = `/very/long/${'x'.repeat(100)}/end.scene.json`;
    const m = ellipsisPath(long, 40);
    expect([...m].length).toBe(40);
    expect(m.startsWith('/very/long')).toBe(true);
    expect(m.endsWith('end.scene.json')).toBe(true);
    expect(m).toContain('…');
  });
  it('names a file once in an I/O error, and keeps positions of other errors', () => {
    expect(errorText({ code: 'io_error', message: 'No such file', file: '/a' })).toBe('/a: No such file');
    expect(errorText({ code: 'load_error', message: 'bad', file: '/a', line: 2, column: 3 })).toBe('/a:2:3: bad');
  });
});
