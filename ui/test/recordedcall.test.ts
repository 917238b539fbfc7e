// A recorded call's reply and prompt template (docs/scene-format.md, `recorded.reply` and
// `recorded.prompt`): read from the scene, long values folded, the reply shown after the messages
// in the Messages view with the message cards, the template with the scene's details.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Report } from '../src/api/types';
import { JObject, RawNumber } from '../src/lib/json';
import {
  charsText,
  foldText,
  promptTitle,
  recordedPrompt,
  recordedReply,
  replyTokens,
  templateSize,
  valueText,
} from '../src/lib/recordedcall';
import { parseScene } from '../src/lib/scene';
import { sceneDesk } from '../src/lib/preview';
import { Session } from '../src/lib/session';
import { Segments } from '../src/views/Segments';
import { fakeApi } from './fake-api';
import { dropRoot, freshRoot } from './root';
import CALL from '../../fixtures/scenes/recorded-reply-and-prompt.scene.json?raw';
import AGENT from '../../fixtures/import/otel/agent-trace/01-agent-trace.scene.json?raw';
import DEFAULT from '../../fixtures/default.scene.json?raw';

const NOTES =
  'Prefers morning trains and window seats. Travels with a folding bicycle, so every train must take bicycles; no buses. ' +
  'Vegetarian: lunch suggestions near the station are welcome. Back in Lisbon by 21:00 at the latest.';

describe('folding a long value', () => {
  it('keeps a short line whole', () => {
    expect(foldText('Portugal')).toEqual({ head: 'Portugal', folded: false, full: 'Portugal', cut: 0 });
    const hundred = 'x'.repeat(100);
    expect(foldText(hundred).folded).toBe(false);
  });
  it('folds a line over the limit after its start', () => {
    const f = foldText(NOTES);
    expect(f.folded).toBe(true);
    expect(f.head).toBe('Prefers morning trains and window seats. Travels with a folding bicycle, so every train must take bi…');
    expect(f.full).toBe(NOTES);
    expect(f.cut).toBe(0);
    expect(charsText(f)).toBe('216 characters');
  });
  it('folds a text of several lines after its first line, even a short one', () => {
    const f = foldText('line one\nline two');
    expect(f).toEqual({ head: 'line one…', folded: true, full: 'line one\nline two', cut: 0 });
  });
  it('shows at most the fold limit and counts what it leaves out', () => {
    const f = foldText('abcdefghij', 4, 6);
    expect(f).toEqual({ head: 'abcd…', folded: true, full: 'abcdef', cut: 4 });
    expect(charsText(f)).toBe('10 characters');
    expect(templateSize(f)).toBe('10 characters, the first 6 shown');
    expect(charsText(foldText('a'))).toBe('1 character');
  });
});

describe('a variable value as text', () => {
  it('writes a string as it is and anything else as its JSON, numbers as written', () => {
    expect(valueText('Lisbon')).toBe('Lisbon');
    expect(valueText(new RawNumber('1.0'))).toBe('1.0');
    expect(valueText(null)).toBe('null');
    expect(valueText(true)).toBe('true');
    expect(valueText(new JObject([['seats', new RawNumber('2')]]))).toBe('{\n  "seats": 2\n}');
    expect(valueText(['a', 'b'])).toBe('[\n  "a",\n  "b"\n]');
  });
});

describe('recorded.prompt', () => {
  it('reads the name, version, variables in order and the template text', () => {
    const p = recordedPrompt(parseScene(CALL))!;
    expect(promptTitle(p)).toBe('trip-planner, version 3');
    expect(p.variables.map((v) => [v.name, v.value.head, v.value.folded, v.chars])).toEqual([
      ['country', 'Portugal', false, 8],
      ['language', 'English', false, 7],
      ['notes', 'Prefers morning trains and window seats. Travels with a folding bicycle, so every train must take bi…', true, 216],
      ['max_stops', '2', false, 1],
    ]);
    expect(p.template!.full).toBe(
      'You are a travel planner for {country}. Answer in {language}, briefly, with at most {max_stops} changes of train.\nTraveller notes: {notes}',
    );
    expect(templateSize(p.template!)).toBe('2 lines, 138 characters');
  });
  it('is none without a record, or with an empty one; a template without a name says so', () => {
    expect(recordedPrompt(parseScene(DEFAULT))).toBe(null);
    expect(recordedPrompt(parseScene(AGENT))).toBe(null);
    expect(recordedPrompt(parseScene('{"recorded": {"api": "openai-chat", "prompt": {}}}'))).toBe(null);
    const p = recordedPrompt(parseScene('{"recorded": {"api": "openai-chat", "prompt": {"variables": {"city": "Porto"}}}}'))!;
    expect(promptTitle(p)).toBe('unnamed');
    expect(p.template).toBe(null);
    expect(promptTitle({ ...p, version: '7' })).toBe('unnamed, version 7');
    expect(promptTitle({ ...p, name: 'trips' })).toBe('trips');
  });
});

describe('recorded.reply', () => {
  it('reads each message with its text and tool calls, and the output tokens billed', () => {
    const s = parseScene(CALL);
    expect(recordedReply(s)).toEqual([
      {
        role: 'assistant',
        content: "I'll look up Saturday's trains from Lisbon to Porto first.",
        name: null,
        tool_call_id: null,
        tool_calls: [{ id: 'call_trains_1', name: 'find_trains', arguments: { from: 'Lisbon', to: 'Porto', date: '2025-09-13' } }],
      },
    ]);
    expect(replyTokens(s)).toBe(41);
  });
  it('is empty without one', () => {
    expect(recordedReply(parseScene(DEFAULT))).toEqual([]);
    expect(replyTokens(parseScene(DEFAULT))).toBe(null);
    expect(recordedReply(parseScene('{"recorded": {"api": "anthropic", "reply": "not a list"}}'))).toEqual([]);
  });
});

let root: HTMLElement;
beforeEach(() => {
  root = freshRoot();
  localStorage.clear();
});
afterEach(() => dropRoot(root));

const chatReport = (): Report => ({
  llm: 'chat',
  segments: [],
  tools: [],
  diagnostics: [],
  metrics: { tools_total: 0, tools_rendered: 0, bytes: 0, positions: {} },
  messages: [
    { role: 'system', content: 'You are a travel planner for Portugal.', segment: 'system_msg_prompt' },
    { role: 'user', content: 'Plan a day trip from Lisbon to Porto next Saturday.', segment: 'reformat_input_prompt' },
  ],
});

async function board(text: string) {
  const s = new Session(fakeApi({ stat: async () => ({ modified_ms: 0, size: 0 }) }));
  await s.load(text, null, false);
  const view = () =>
    h(Segments, {
      chat: chatReport(),
      desk: null,
      rules: null,
      palette: new Map(),
      adapter: sceneDesk(s.scene).adapter,
      setAdapter: () => {},
      provider: null,
      session: s,
      onSelectTool: () => {},
      selectedTool: null,
    });
  await act(() => {
    render(view(), root);
  });
  return s;
}

const byTestId = (id: string) => root.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;

describe('the board of a recorded call', () => {
  it('shows the prompt template with the scene details, long values folded', async () => {
    await board(CALL);
    const info = byTestId('scene-info')!;
    expect(byTestId('recorded-prompt-title')!.textContent).toBe('trip-planner, version 3');
    const vars = [...info.querySelectorAll('[data-testid="recorded-prompt-vars"] > li')];
    expect(vars.map((li) => li.textContent)).toEqual([
      'country = Portugal',
      'language = English',
      `notes = Prefers morning trains and window seats. Travels with a folding bicycle, so every train must take bi… (216 characters)${NOTES}`,
      'max_stops = 2',
    ]);
    const fold = vars[2].querySelector('details')!;
    expect(fold.open).toBe(false);
    expect(fold.querySelector('pre')!.textContent).toBe(NOTES);
    const template = byTestId('recorded-prompt-template') as HTMLDetailsElement;
    expect(template.querySelector('summary')!.textContent).toBe('Template text (2 lines, 138 characters)');
    expect(template.querySelector('pre')!.textContent).toContain('Traveller notes: {notes}');
    expect(byTestId('reply-pointer')!.textContent).toContain('The reply the provider returned (1 message) is recorded with this call');
  });

  it('shows the reply after the messages, as a message card marked recorded, not sent', async () => {
    await board(CALL);
    // The Segments view is shown first; the reply is in the Messages view.
    expect(byTestId('recorded-reply')).toBe(null);
    await act(() => {
      byTestId('chat-messages')!.click();
    });
    const list = byTestId('chat-message-list')!;
    const reply = byTestId('recorded-reply')!;
    expect(list.compareDocumentPosition(reply) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(reply.querySelector('h4')!.textContent).toBe('Reply recorded, not sent');
    expect(reply.querySelector('.reply-about')!.textContent).toContain('(41 output tokens billed)');
    const card = reply.querySelector('.msg.role-assistant')!;
    expect(card.querySelector('.msg-source')!.textContent).toBe('recorded.reply[0]');
    expect(card.querySelector('pre')!.textContent).toBe("I'll look up Saturday's trains from Lisbon to Porto first.");
    expect(card.querySelector('.run-call')!.textContent).toBe(
      'calls find_trains (call_trains_1) with arguments {"from":"Lisbon","to":"Porto","date":"2025-09-13"}',
    );
  });

  it('"Show the reply" opens the Messages view and moves the focus to the reply', async () => {
    await board(CALL);
    await act(() => {
      byTestId('show-reply')!.click();
    });
    expect(byTestId('chat-messages')!.getAttribute('aria-pressed')).toBe('true');
    expect(document.activeElement?.id).toBe('recorded-reply-heading');
  });

  it('a reply with tool calls and no text shows the calls', async () => {
    await board(AGENT);
    expect(byTestId('recorded-prompt')).toBe(null);
    await act(() => {
      byTestId('chat-messages')!.click();
    });
    const reply = byTestId('recorded-reply')!;
    expect(reply.querySelector('.reply-about')!.textContent).toContain('(17 output tokens billed)');
    expect([...reply.querySelectorAll('.run-call-name')].map((e) => e.textContent)).toEqual(['get_weather']);
    expect(reply.querySelector('.empty-seg')).toBe(null);
  });

  it('a scene without a record shows neither', async () => {
    await board(DEFAULT);
    await act(() => {
      byTestId('chat-messages')!.click();
    });
    expect(byTestId('recorded-reply')).toBe(null);
    expect(byTestId('recorded-prompt')).toBe(null);
    expect(byTestId('reply-pointer')).toBe(null);
  });
});
