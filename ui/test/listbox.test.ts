// The left pane's lists are listboxes (lib/listbox.ts): arrow keys, Home/End, Page keys and
// type-ahead move the focus and the selection together, a filter box narrows each list, and the
// list is one Tab stop. Save as without a save dialog asks for the path in the path box.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { act } from 'preact/test-utils';
import type { Api } from '../src/api/api';
import { saveScene } from '../src/app';
import { PAGE, TypeAhead, keeps, moveTo } from '../src/lib/listbox';
import type { PromptRef } from '../src/lib/scene';
import { Session } from '../src/lib/session';
import { PromptsPanel } from '../src/views/Prompts';
import { ToolsPanel } from '../src/views/Tools';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';

import DEFAULT from '../../fixtures/default.scene.json?raw';

describe('listbox keys', () => {
  it('moves by one, by a page and to the ends, and stops at the ends', () => {
    expect(moveTo('ArrowDown', 0, 3)).toBe(1);
    expect(moveTo('ArrowDown', 2, 3)).toBe(2);
    expect(moveTo('ArrowUp', 0, 3)).toBe(0);
    expect(moveTo('ArrowUp', 2, 3)).toBe(1);
    expect(moveTo('Home', 2, 3)).toBe(0);
    expect(moveTo('End', 0, 3)).toBe(2);
    expect(moveTo('PageDown', 0, 25)).toBe(PAGE);
    expect(moveTo('PageDown', 20, 25)).toBe(24);
    expect(moveTo('PageUp', 5, 25)).toBe(0);
    // Nothing focused yet: ↓ the first, ↑ the last.
    expect(moveTo('ArrowDown', -1, 3)).toBe(0);
    expect(moveTo('ArrowUp', -1, 3)).toBe(2);
    expect(moveTo('ArrowDown', 0, 0)).toBe(null);
    expect(moveTo('a', 0, 3)).toBe(null);
  });

  it('finds by the typed start, cycles on a repeated letter, and starts over after a pause', () => {
    const labels = ['chat_memo', 'goal_rewriter', 'chat_notes', 'tf_notes'];
    const t = new TypeAhead();
    expect(t.find('g', labels, 0, 0)).toBe(1);
    // A second key within the pause extends the search: "go" still goal_rewriter.
    expect(t.find('o', labels, 1, 100)).toBe(1);
    // After the pause, "c" from goal_rewriter: the next one starting with c.
    expect(t.find('c', labels, 1, 2000)).toBe(2);
    expect(t.find('c', labels, 2, 2100)).toBe(0);
    expect(t.find('c', labels, 0, 2200)).toBe(2);
    // "chat_n" narrows to chat_notes, from wherever the focus is.
    const u = new TypeAhead();
    expect([...'chat_n'].map((k, i) => u.find(k, labels, 0, i * 10)).at(-1)).toBe(2);
    expect(new TypeAhead().find('T', labels, 0, 0)).toBe(3);
    expect(new TypeAhead().find('z', labels, 0, 0)).toBe(null);
    expect(new TypeAhead().find('Shift', labels, 0, 0)).toBe(null);
  });

  it('filters by every word, ignoring case', () => {
    expect(keeps('', 'anything')).toBe(true);
    expect(keeps('NOTES', 'tf_notes')).toBe(true);
    expect(keeps('tf memo', 'tf_notes')).toBe(false);
    expect(keeps('system #0', 'system_msg_prompt', '#0')).toBe(true);
    expect(keeps('工作', 'chat_memo', '工作笔记')).toBe(true);
  });
});

async function defaultSession(api?: Api) {
  const s = new Session(api ?? fakeApi({}));
  await s.load(DEFAULT, null, false);
  return s;
}

const key = (el: Element, k: string) =>
  act(() => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
  });

describe('the tool list as a listbox', () => {
  let root: HTMLElement;
  beforeEach(() => {
    root = freshRoot();
  });
  afterEach(() => dropRoot(root));

  async function mount() {
    const s = await defaultSession();
    const picks: string[] = [];
    function Host() {
      const [selected, setSelected] = useState<string | null>('tf_notes');
      return h(ToolsPanel, {
        session: s,
        selected,
        onSelect: (n: string) => {
          picks.push(n);
          setSelected(n);
        },
        palette: new Map(),
      });
    }
    await act(() => {
      render(h(Host, {}), root);
    });
    return picks;
  }
  const options = () => [...root.querySelectorAll<HTMLElement>('[role="listbox"] [role="option"]')];
  const focusedLabel = () => (document.activeElement as HTMLElement | null)?.dataset.label ?? null;
  const selectedLabels = () =>
    options()
      .filter((o) => o.getAttribute('aria-selected') === 'true')
      .map((o) => o.dataset.label);

  it('is a listbox of options, one of them selected and the only Tab stop', async () => {
    await mount();
    const box = root.querySelector('[role="listbox"]')!;
    expect(box.getAttribute('aria-label')).toBe('Tools, in call order');
    expect(options().map((o) => o.dataset.label)).toEqual(['tf_notes', 'chat_memo', 'goal_rewriter']);
    expect(selectedLabels()).toEqual(['tf_notes']);
    expect(options().map((o) => o.tabIndex)).toEqual([0, -1, -1]);
    // No control inside an option (a listbox's options are not containers of buttons).
    expect(box.querySelector('button, a, input, select')).toBe(null);
  });

  it('moves focus and selection with the arrows, Home, End and type-ahead', async () => {
    const picks = await mount();
    options()[0].focus();
    await key(document.activeElement!, 'ArrowDown');
    expect(focusedLabel()).toBe('chat_memo');
    expect(selectedLabels()).toEqual(['chat_memo']);
    expect(options().map((o) => o.tabIndex)).toEqual([-1, 0, -1]);
    await key(document.activeElement!, 'End');
    expect(focusedLabel()).toBe('goal_rewriter');
    await key(document.activeElement!, 'ArrowDown');
    expect(focusedLabel()).toBe('goal_rewriter');
    await key(document.activeElement!, 'Home');
    expect(focusedLabel()).toBe('tf_notes');
    await key(document.activeElement!, 'ArrowUp');
    expect(focusedLabel()).toBe('tf_notes');
    await key(document.activeElement!, 'g');
    expect(focusedLabel()).toBe('goal_rewriter');
    expect(selectedLabels()).toEqual(['goal_rewriter']);
    expect(picks).toEqual(['chat_memo', 'goal_rewriter', 'goal_rewriter', 'tf_notes', 'tf_notes', 'goal_rewriter']);
  });

  it('narrows to what the filter box keeps; ↓ from the box selects the first one kept', async () => {
    await mount();
    const filter = root.querySelector<HTMLInputElement>('[data-testid="tool-filter"]')!;
    filter.value = 'MEMO';
    await act(() => {
      filter.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(options().map((o) => o.dataset.label)).toEqual(['chat_memo']);
    // The selected tool is filtered out: the one shown is the Tab stop.
    expect(options()[0].tabIndex).toBe(0);
    filter.focus();
    await key(filter, 'ArrowDown');
    expect(focusedLabel()).toBe('chat_memo');
    expect(selectedLabels()).toEqual(['chat_memo']);
    filter.value = 'nothing-like-it';
    await act(() => {
      filter.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(options()).toEqual([]);
    expect(root.textContent).toContain('No tool name contains “nothing-like-it”.');
  });
});

describe('the configured prompts as a listbox', () => {
  let root: HTMLElement;
  beforeEach(() => {
    root = freshRoot();
  });
  afterEach(() => dropRoot(root));

  it('walks both families as one list, by arrows and by the typed segment name', async () => {
    const s = await defaultSession();
    function Host() {
      const [selected, setSelected] = useState<PromptRef | null>({ segment: 'system_msg_prompt', index: 0 } as PromptRef);
      return h(PromptsPanel, { session: s, selected, onSelect: setSelected, palette: new Map(), onSegment: () => {} });
    }
    await act(() => {
      render(h(Host, {}), root);
    });
    const options = () => [...root.querySelectorAll<HTMLElement>('[role="listbox"] [role="option"]')];
    const boxes = [...root.querySelectorAll('[role="listbox"]')].map(
      (b) => root.querySelector(`#${b.getAttribute('aria-labelledby')}`)?.textContent,
    );
    expect(boxes).toEqual(['ChatLLM', 'DeskLLM']);
    expect(options().map((o) => o.dataset.label)).toEqual([
      'system_msg_prompt',
      'after_input_msg_prompt',
      'system_prompt',
      'current_desk_screenshot_prompt',
      'purpose_prompt',
    ]);
    expect(options().filter((o) => o.tabIndex === 0).length).toBe(1);
    options()[0].focus();
    await key(document.activeElement!, 'ArrowDown');
    await key(document.activeElement!, 'ArrowDown');
    // From the chat list into the desk list.
    const focused = () => (document.activeElement as HTMLElement).dataset.label;
    expect(focused()).toBe('system_prompt');
    expect(root.querySelector('[data-testid="prompt-detail"] code')!.textContent).toBe('desk_llm.system_prompt[0]');
    await key(document.activeElement!, 'p');
    expect(focused()).toBe('purpose_prompt');
    await key(document.activeElement!, 'Home');
    expect(focused()).toBe('system_msg_prompt');
    const filter = root.querySelector<HTMLInputElement>('[data-testid="prompt-filter"]')!;
    filter.value = 'desk screenshot';
    await act(() => {
      filter.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(options().map((o) => o.dataset.label)).toEqual(['current_desk_screenshot_prompt']);
  });
});

describe('Save as without a save dialog', () => {
  it('asks for the path in the path box instead of failing, when none or only the open file is typed', async () => {
    const files: Record<string, string> = {};
    const api = fakeApi({
      save: async (path, text) => {
        files[path] = text;
        return { modified_ms: 1, size: text.length };
      },
    });
    const s = await defaultSession(api);
    let asked = 0;
    const ask = () => asked++;
    expect(await saveScene(s, true, '  ', undefined, ask)).toBeNull();
    expect(asked).toBe(1);
    expect(s.fileError).toBeNull();
    // A typed path saves at once.
    expect(await saveScene(s, true, '/typed.scene.json', undefined, ask)).toBe('/typed.scene.json');
    expect(asked).toBe(1);
    // Save as with the open file's path in the box asks for another.
    expect(await saveScene(s, true, '/typed.scene.json', undefined, ask)).toBeNull();
    expect(asked).toBe(2);
    // With a save dialog, the dialog asks.
    expect(await saveScene(s, true, '', async () => '/picked.scene.json', ask)).toBe('/picked.scene.json');
    expect(asked).toBe(2);
    expect(Object.keys(files).sort()).toEqual(['/picked.scene.json', '/typed.scene.json']);
  });
});
