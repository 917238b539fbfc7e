// The Replay view for a real corpus: which rows show (failures only, grouped by folder), which one
// is selected after a check, what "approve all" asks and does, changes within a line, the coloured
// unified diff, opening a scene from its row, and the view's state surviving a switch of views.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { CheckResponse, CheckScene } from '../src/api/types';
import { intraLine, udiffKind, udiffKinds } from '../src/lib/diff';
import { approveAllQuestion, pickSelection, sceneGroups, shownOrder } from '../src/lib/replay';
import { Session } from '../src/lib/session';
import { ReplayView } from '../src/views/Replay';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';

import DEFAULT from '../../fixtures/default.scene.json?raw';

const scene = (path: string, status: CheckScene['status'], extra: Partial<CheckScene> = {}): CheckScene => ({
  path,
  golden_path: path.replace('.scene.', '.golden.'),
  status,
  golden: null,
  current: null,
  diff: null,
  error: null,
  ...extra,
});

const CORPUS = [
  scene('/c/a.scene.json', 'ok'),
  scene('/c/b.scene.json', 'mismatch'),
  scene('/c/sub/c.scene.json', 'ok'),
  scene('/c/sub/d.scene.json', 'missing_golden'),
  scene('/c/sub/deeper/e.scene.json', 'unreadable'),
  scene('/c/z.scene.json', 'missing_golden'),
];
const paths = (xs: CheckScene[]) => xs.map((s) => s.path);

describe('which rows the list shows', () => {
  it('failures only leaves out the scenes that match', () => {
    const [g] = sceneGroups(CORPUS, '/c', { failuresOnly: true, grouped: false });
    expect(paths(g.scenes)).toEqual(['/c/b.scene.json', '/c/sub/d.scene.json', '/c/sub/deeper/e.scene.json', '/c/z.scene.json']);
    expect(
      sceneGroups(
        CORPUS.filter((s) => s.status === 'ok'),
        '/c',
        { failuresOnly: true, grouped: false },
      ),
    ).toEqual([]);
  });
  it('groups by folder, relative to the checked folder, its own scenes first, failures first in each', () => {
    const groups = sceneGroups(CORPUS, '/c/', { failuresOnly: false, grouped: true });
    expect(groups.map((g) => g.folder)).toEqual(['', 'sub', 'sub/deeper']);
    expect(paths(groups[0].scenes)).toEqual(['/c/b.scene.json', '/c/z.scene.json', '/c/a.scene.json']);
    expect(paths(groups[1].scenes)).toEqual(['/c/sub/d.scene.json', '/c/sub/c.scene.json']);
    const failing = sceneGroups(CORPUS, '/c', { failuresOnly: true, grouped: true });
    expect(failing.map((g) => [g.folder, g.scenes.length])).toEqual([
      ['', 2],
      ['sub', 1],
      ['sub/deeper', 1],
    ]);
  });
  it('selects the first failure in the order shown, or keeps the scene selected before', () => {
    const flat = shownOrder(sceneGroups(CORPUS, '/c', { failuresOnly: false, grouped: false }));
    expect(pickSelection(flat, null)).toBe('/c/b.scene.json');
    expect(pickSelection(flat, '/c/sub/c.scene.json')).toBe('/c/sub/c.scene.json');
    // A scene no longer listed (filtered out) gives way to the first failure.
    const failing = shownOrder(sceneGroups(CORPUS, '/c', { failuresOnly: true, grouped: true }));
    expect(pickSelection(failing, '/c/a.scene.json')).toBe('/c/b.scene.json');
    expect(
      pickSelection(shownOrder(sceneGroups([scene('/c/a.scene.json', 'ok')], '/c', { failuresOnly: false, grouped: false })), null),
    ).toBe(null);
  });
  it('approve all names how many goldens it writes: mismatches and missing goldens, not unreadable scenes', () => {
    expect(approveAllQuestion(CORPUS)).toMatch(/^Approve 3 goldens\?/);
    expect(approveAllQuestion([scene('/c/b.scene.json', 'mismatch')])).toMatch(/^Approve 1 golden\?/);
  });
});

describe('changes within a line', () => {
  it('marks the words that differ, and each side joins back to its line', () => {
    const a = 'You are TFRobot, a careful research assistant.';
    const b = 'You are TFRobot, a terse assistant.';
    const { left, right } = intraLine(a, b);
    expect(left.map((s) => s.text).join('')).toBe(a);
    expect(right.map((s) => s.text).join('')).toBe(b);
    expect(left.filter((s) => s.changed).map((s) => s.text)).toEqual(['careful research']);
    expect(right.filter((s) => s.changed).map((s) => s.text)).toEqual(['terse']);
  });
  it('compares ideographs one by one, and marks only what was added', () => {
    const { left, right } = intraLine('工作笔记：季度报告', '工作笔记：年度报告');
    expect(left.filter((s) => s.changed).map((s) => s.text)).toEqual(['季']);
    expect(right.filter((s) => s.changed).map((s) => s.text)).toEqual(['年']);
    const added = intraLine('a b', 'a new b');
    expect(added.left.some((s) => s.changed)).toBe(false);
    expect(added.right.filter((s) => s.changed).map((s) => s.text.trim())).toEqual(['new']);
  });
  it("colours check's summary of the segments before the file headers too", () => {
    const text = [
      'Segments whose text differs (- golden, + now):',
      '  chat · system_msg_prompt',
      '    - old',
      '    + new',
      '--- g',
      '+++ n',
      '- x',
    ];
    expect(udiffKinds(text)).toEqual(['ctx', 'ctx', 'del', 'add', 'file', 'file', 'del']);
  });
  it('tells the lines of a unified diff apart', () => {
    expect(['--- a/x', '+++ b/x', '@@ -1 +1 @@', '-old', '+new', ' same'].map(udiffKind)).toEqual([
      'file',
      'file',
      'hunk',
      'del',
      'add',
      'ctx',
    ]);
  });
});

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
});
afterEach(() => {
  dropRoot(root);
  vi.unstubAllGlobals();
});
const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  });
const click = async (el: Element | null | undefined) => {
  if (!el) throw new Error('nothing to click');
  await act(() => {
    (el as HTMLElement).click();
  });
  await settle();
};
const button = (text: string) => [...root.querySelectorAll('button')].find((b) => b.textContent?.startsWith(text));

const SEG = (text: string) => ({ chat: { segments: [{ name: 'system_msg_prompt', text }] }, desk: { segments: [] } });
const MISMATCH = scene('/c/b.scene.json', 'mismatch', {
  golden: SEG('You are TFRobot, a careful research assistant.'),
  current: SEG('You are TFRobot, a terse assistant.'),
  diff: '--- /c/b.golden.json\n+++ now\n@@ -1 +1 @@\n-careful\n+terse\n',
});

/** A core whose check answers `corpus` (after approvals, the approved scenes match). */
function core(corpus: CheckScene[], approved: string[]) {
  return fakeApi({
    check: async (): Promise<CheckResponse> => {
      const scenes = corpus.map((s) => (approved.includes(s.path) ? { ...s, status: 'ok' as const, diff: null } : s));
      const passed = scenes.filter((s) => s.status === 'ok').length;
      return { passed, failed: scenes.length - passed, scenes };
    },
    approve: async (path) => {
      approved.push(path);
      return { golden_path: path.replace('.scene.', '.golden.') };
    },
  });
}

async function checked(corpus: CheckScene[], approved: string[] = [], onOpen?: (p: string) => void) {
  const s = new Session(core(corpus, approved));
  await s.load(DEFAULT, '/c/default.scene.json', false);
  await act(() => {
    render(h(ReplayView, { session: s, onOpen }), root);
  });
  await click(button('Check'));
  return s;
}

describe('ReplayView on a corpus', () => {
  it('selects the first failure, shows changes within a line and colours the unified diff', async () => {
    await checked([scene('/c/a.scene.json', 'ok'), MISMATCH]);
    expect(root.querySelector('.scene-list button.on')?.getAttribute('title')).toBe('/c/b.scene.json');
    expect(root.querySelector('[data-testid="replay-scene-path"]')?.textContent).toBe('b.scene.json');
    const del = [...root.querySelectorAll('mark.intra-del')].map((m) => m.textContent);
    const add = [...root.querySelectorAll('mark.intra-add')].map((m) => m.textContent);
    expect(del).toEqual(['[was: careful research]']);
    expect(add).toEqual(['[now: terse]']);
    const kinds = [...root.querySelectorAll('[data-testid="udiff"] .ud')].map((l) => l.className);
    expect(kinds).toEqual(['ud ud-file', 'ud ud-file', 'ud ud-hunk', 'ud ud-del', 'ud ud-add']);
  });

  it('keeps the folder, the answer, the selection and the filters across a switch of views', async () => {
    const s = await checked(CORPUS);
    await click(root.querySelector('[data-testid="replay-failures-only"]'));
    await click([...root.querySelectorAll('.scene-list button')].find((b) => b.getAttribute('title') === '/c/z.scene.json'));
    // Another view is shown: the Replay view is unmounted, then shown again.
    await act(() => {
      render(null, root);
    });
    await act(() => {
      render(h(ReplayView, { session: s }), root);
    });
    expect((root.querySelector('[data-testid="replay-folder"]') as HTMLInputElement).value).toBe('/c');
    expect((root.querySelector('[data-testid="replay-failures-only"]') as HTMLInputElement).checked).toBe(true);
    expect(root.querySelectorAll('.scene-list button')).toHaveLength(4);
    expect(root.querySelector('.scene-list button.on')?.getAttribute('title')).toBe('/c/z.scene.json');
  });

  it('groups rows under their folders', async () => {
    await checked(CORPUS);
    await click(root.querySelector('[data-testid="replay-grouped"]'));
    expect([...root.querySelectorAll('.scene-group-name')].map((x) => x.textContent)).toEqual([
      'this folder (3)',
      'sub (2)',
      'sub/deeper (1)',
    ]);
    expect([...root.querySelectorAll('.scene-group')][1].querySelector('button')?.textContent).toContain('d.scene.json');
  });

  it('approve all asks once, naming the count, then writes every golden it can', async () => {
    const approved: string[] = [];
    await checked(CORPUS, approved);
    const asked: string[] = [];
    let answer = false;
    vi.stubGlobal('confirm', (q: string) => {
      asked.push(q);
      return answer;
    });
    await click(root.querySelector('[data-testid="approve-all"]'));
    expect(asked).toEqual(['Approve 3 goldens? Each is written from its scene as it is now.']);
    expect(approved).toEqual([]);
    answer = true;
    await click(root.querySelector('[data-testid="approve-all"]'));
    expect(approved).toEqual(['/c/b.scene.json', '/c/sub/d.scene.json', '/c/z.scene.json']);
    expect(asked).toHaveLength(2);
    // Checked again: only the unreadable scene still fails, and nothing is left to approve.
    expect(root.textContent).toContain('5 match their goldens, 1 does not');
    expect(root.querySelector('[data-testid="approve-all"]')).toBeNull();
  });

  it('approve all stops at the first golden it cannot write and says how far it got', async () => {
    const approved: string[] = [];
    const s = new Session(
      fakeApi({
        check: core(CORPUS, approved).check,
        approve: async (path) => {
          if (path === '/c/sub/d.scene.json') throw { code: 'io_error', message: 'permission denied', file: '/c/sub/d.golden.json' };
          approved.push(path);
          return { golden_path: path };
        },
      }),
    );
    await s.load(DEFAULT, '/c/default.scene.json', false);
    await act(() => {
      render(h(ReplayView, { session: s }), root);
    });
    await click(button('Check'));
    vi.stubGlobal('confirm', () => true);
    await click(root.querySelector('[data-testid="approve-all"]'));
    expect(approved).toEqual(['/c/b.scene.json']);
    expect(root.querySelector('[data-testid="replay-error"]')?.textContent).toBe(
      '1 of 3 approved; then: /c/sub/d.golden.json: permission denied',
    );
    // The list is the answer after the approval: b matches now.
    expect(root.textContent).toContain('3 match their goldens, 3 do not');
  });

  it("opens a scene from its row through the app's open flow", async () => {
    const opened: string[] = [];
    await checked(CORPUS, [], (p) => opened.push(p));
    const links = [...root.querySelectorAll('[data-testid="replay-open"]')] as HTMLAnchorElement[];
    // Every row but the unreadable one (it does not load) has an Open link.
    expect(links).toHaveLength(5);
    const z = links.find((a) => a.title.includes('/c/z.scene.json'))!;
    expect(new URL(z.href).searchParams.get('open')).toBe('/c/z.scene.json');
    await click(z);
    expect(opened).toEqual(['/c/z.scene.json']);
  });

  it('refuses a relative folder when the open scene has none, and takes it from the open scene otherwise', async () => {
    const asked: string[] = [];
    const s = new Session(
      fakeApi({
        check: async (f) => {
          asked.push(f);
          return { passed: 0, failed: 0, scenes: [] };
        },
      }),
    );
    await s.load(DEFAULT, null, false);
    await act(() => {
      render(h(ReplayView, { session: s }), root);
    });
    const box = root.querySelector('[data-testid="replay-folder"]') as HTMLInputElement;
    box.value = 'scenes';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    await click(button('Check'));
    expect(asked).toEqual([]);
    expect(root.querySelector('[data-testid="replay-error"]')?.textContent).toContain('type an absolute path');
  });

  it('shows the folder it checked, so a later check means the same whichever scene is open', async () => {
    const asked: string[] = [];
    const s = new Session(
      fakeApi({
        check: async (f) => {
          asked.push(f);
          return { passed: 1, failed: 0, scenes: [scene(`${f}/a.scene.json`, 'ok')] };
        },
      }),
    );
    await s.load(DEFAULT, '/p/default.scene.json', false);
    await act(() => {
      render(h(ReplayView, { session: s }), root);
    });
    const box = root.querySelector('[data-testid="replay-folder"]') as HTMLInputElement;
    box.value = 'run';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    await click(button('Check'));
    expect(box.value).toBe('/p/run');
    await s.load(DEFAULT, '/elsewhere/x.scene.json', false);
    await settle();
    await click(button('Check'));
    expect(asked).toEqual(['/p/run', '/p/run']);
  });
});
