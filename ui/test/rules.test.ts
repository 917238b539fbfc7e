// The Rules view as a presenter shows it: words on every badge (the core's segment labels and rule
// words, fixtures/rules.json being the core's answer), the boundary said as what the fields are,
// "Try it" side by side (the tool's text where the rule would have let it go, and what the model
// receives with the rule) with a legal position to contrast, and a large-text mode that is kept.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { RenderOptions } from '../src/api/api';
import type { Report, Rules } from '../src/api/types';
import { parseScene, position, toolByName } from '../src/lib/scene';
import { Session } from '../src/lib/session';
import { forbiddenBadge, nearestLegal, segmentWords, withoutRule, withRule } from '../src/lib/tryit';
import { RulesView } from '../src/views/Rules';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';

import RULES_JSON from '../../fixtures/rules.json';
import DEFAULT from '../../fixtures/default.scene.json?raw';

const RULES = RULES_JSON as Rules;
const TOOL_TEXT = 'NOTES-FROM-THE-TOOL';
const USER = '帮我分析这份季度报告';

/**
 * A core whose render puts the tool `tf_notes` where the scene now says: at a legal segment its
 * text follows the configured prompt (a tool piece with its byte range); at a forbidden one it is
 * refused (invalid, a diagnostic) and the segment has only its own text.
 */
function fakeRender(text: string, o: RenderOptions): Report {
  const scene = parseScene(text);
  const at = position(toolByName(scene, 'tf_notes')!)?.[o.llm === 'chat' ? 0 : 1] ?? null;
  const legal = RULES.segments.find((s) => s.name === at)?.legal ?? false;
  const config = 'You are X.';
  const segments = RULES.segments
    .filter((s) => s.family === o.llm)
    .map((s) => {
      if (s.name === at && legal) {
        const t = `${config}\n${TOOL_TEXT}`;
        const start = new TextEncoder().encode(`${config}\n`).length;
        return {
          name: s.name,
          legal: true,
          text: t,
          bytes: 0,
          pieces: [
            { source: 'config', index: 0, text: config, range: [0, config.length] },
            { source: 'tool', tool: 'tf_notes', text: TOOL_TEXT, range: [start, start + TOOL_TEXT.length] },
          ],
        };
      }
      return {
        name: s.name,
        legal: s.legal,
        text: s.name === 'original_desk_screenshot_prompt' ? 'DESK AT START' : '',
        bytes: 0,
        pieces: [],
      };
    });
  return {
    llm: o.llm,
    segments,
    messages: o.llm === 'chat' ? [{ role: 'user', content: USER, segment: 'reformat_input_prompt' }] : undefined,
    tools: [{ name: 'tf_notes', status: legal ? 'injected' : 'invalid' }],
    diagnostics: legal ? [] : [{ level: 'error', code: 'forbidden_position', tool: 'tf_notes', message: `tf_notes may not write ${at}` }],
  } as unknown as Report;
}

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
  localStorage.clear();
});
afterEach(() => dropRoot(root));
const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  });

async function shown() {
  const s = new Session(fakeApi({ render: async (t, o) => fakeRender(t, o) }));
  await s.load(DEFAULT, '/p/default.scene.json', false);
  s.rules = RULES;
  await act(() => {
    render(h(RulesView, { session: s }), root);
  });
  return s;
}
const select = async (testid: string, value: string) => {
  const el = root.querySelector(`[data-testid="${testid}"]`) as HTMLSelectElement;
  await act(() => {
    el.value = value;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
};
const tryIt = async () => {
  await act(() => {
    (root.querySelector('[data-testid="try-it"]') as HTMLElement).click();
  });
  await settle();
};
const marks = (testid: string) => [...root.querySelectorAll(`[data-testid="${testid}"] mark`)].map((m) => m.textContent);

describe('words, not ids', () => {
  it('every badge and every segment name reads as words from the core', async () => {
    await shown();
    const badges = [...root.querySelectorAll('[data-testid^="badge-"]')].map((b) => b.textContent ?? '');
    expect(badges).toHaveLength(14);
    for (const b of badges) expect(b).not.toMatch(/_/);
    expect(root.querySelector('[data-testid="badge-original_desk_screenshot_prompt"]')?.textContent).toBe('forbidden: history');
    expect(root.querySelector('[data-testid="badge-purpose_prompt"]')?.textContent).toBe("forbidden: user's words");
    expect(root.querySelector('[data-testid="badge-conversation_msgs"]')?.textContent).toBe('forbidden: message stream');
    expect(root.querySelector('[data-testid="badge-system_prompt"]')?.textContent).toBe('open to tools');
    // The options of "Try it" name the segments in words too.
    const options = [...root.querySelectorAll('[data-testid="try-forbidden"] option')].map((o) => o.textContent ?? '');
    expect(options).toContain("ChatLLM: the user's input (forbidden: user's words)");
    for (const o of options) expect(o).not.toMatch(/_/);
    expect(forbiddenBadge(RULES, 'system_prompt')).toBeNull();
    expect(segmentWords(RULES, 'original_desk_screenshot_prompt')).toBe('DeskLLM: the desk at the start');
  });

  it('explains the boundary as what the fields are: the system side, the user input, the history snapshot, the streams', async () => {
    await shown();
    expect(root.querySelector('[data-testid="field-system-side"]')?.textContent).toContain(RULES.system_side);
    for (const r of RULES.rules) {
      const card = root.querySelector(`[data-testid="field-${r.id}"]`)!;
      expect(card.textContent).toContain(`forbidden: ${r.short}`);
      expect(card.textContent).toContain(r.holds);
    }
    expect(root.querySelector('[data-testid="field-iron_rule_1"]')?.textContent).toMatch(/^forbidden: user's words\s*The user's input/);
    expect(root.querySelector('[data-testid="field-iron_rule_2"]')?.textContent).toMatch(/The history snapshot/);
  });
});

describe('Try it', () => {
  it("the user's input: the tool's text inside the user's words had the rule not existed, the user's words alone with it, a legal position to contrast", async () => {
    await shown();
    await select('try-forbidden', 'reformat_input_prompt');
    // The legal position nearest the user's input in the chat family.
    expect((root.querySelector('[data-testid="try-legal"]') as HTMLSelectElement).value).toBe('before_input_msg_prompt');
    await tryIt();
    const without = root.querySelector('[data-testid="try-without-text"]')!.textContent!;
    expect(without).toContain(USER);
    expect(marks('try-without-text')).toEqual([`[the tool's text: ${TOOL_TEXT}]`]);
    expect(root.querySelector('[data-testid="try-without"]')?.textContent).toContain('the user message');
    const withIt = root.querySelector('[data-testid="try-with-text"]')!.textContent!;
    expect(withIt).toBe(USER);
    expect(marks('try-with-text')).toEqual([]);
    expect(root.querySelector('[data-testid="try-result"]')?.textContent).toContain('invalid');
    // The contrast: at the legal position the tool is injected, its text marked among the configured prompt's.
    expect(root.querySelector('[data-testid="try-legal-result"]')?.textContent).toContain('injected');
    expect(root.querySelector('[data-testid="try-legal-text"]')?.textContent).toBe(`You are X.\n[the tool's text: ${TOOL_TEXT}]`);
  });

  it('the history snapshot: the tool text after the recorded desk had the rule not existed', async () => {
    await shown();
    await select('try-forbidden', 'original_desk_screenshot_prompt');
    await select('try-legal', 'current_desk_screenshot_prompt');
    await tryIt();
    expect(root.querySelector('[data-testid="try-without-text"]')?.textContent).toBe(`DESK AT START\n[the tool's text: ${TOOL_TEXT}]`);
    expect(root.querySelector('[data-testid="try-with-text"]')?.textContent).toBe('DESK AT START');
    expect(root.querySelector('[data-testid="try-legal-result"] h3')?.textContent).toContain('DeskLLM: the desk now');
  });

  it('builds both sides from the renders: a message stream gets the tool text as one more message', () => {
    const chat = fakeRender(DEFAULT, { llm: 'chat' });
    const w = withRule(chat, 'reformat_input_prompt', RULES);
    expect(w).toEqual({ parts: [{ text: USER, tool: false }], where: 'the user message' });
    expect(withoutRule(w, 'T', false).parts).toEqual([
      { text: USER, tool: false },
      { text: '\n', tool: false },
      { text: 'T', tool: true },
    ]);
    expect(withoutRule({ parts: [], where: 'x' }, 'T', true).parts).toEqual([{ text: 'tool: T', tool: true }]);
    expect(nearestLegal(RULES, 'prefix_prompt')).toBe('current_desk_screenshot_prompt');
    expect(nearestLegal(RULES, 'intermediate_msgs')).toBe('after_input_msg_prompt');
  });
});

describe('large text for a projector', () => {
  it('is a toggle, kept for the next visit', async () => {
    await shown();
    const view = () => root.querySelector('[data-testid="rules-view"]')!;
    expect(view().classList.contains('rules-large')).toBe(false);
    await act(() => {
      (root.querySelector('[data-testid="rules-large"]') as HTMLInputElement).click();
    });
    expect(view().classList.contains('rules-large')).toBe(true);
    await act(() => {
      render(null, root);
    });
    await shown();
    expect(view().classList.contains('rules-large')).toBe(true);
    expect((root.querySelector('[data-testid="rules-large"]') as HTMLInputElement).checked).toBe(true);
  });
});
