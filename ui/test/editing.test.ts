// Configured prompts, the returns kind of a tool, the template editor's error lookup, the
// recent-files menu and name wrapping (the UI logic added with the Prompts pane).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import type { Report, ValidateResponse } from '../src/api/types';
import { JObject, RawNumber, stringifyJson } from '../src/lib/json';
import {
  RETURNS_KINDS,
  addConfiguredPrompt,
  configuredPrompt,
  configuredPrompts,
  familyOf,
  parseScene,
  promptTemplate,
  promptTemplatePath,
  removeConfiguredPrompt,
  removeLocale,
  renderedLocale,
  returnsKind,
  setReturnsKind,
  setTemplateText,
  templatePathOf,
  templateText,
  toolByName,
  toolTemplate,
  type ReturnsStash,
} from '../src/lib/scene';
import { rememberRecent } from '../src/lib/recent';
import { SceneWriter } from '../src/lib/writer';
import { clearRecentFiles, menuMove, recentFiles, shortDir, splitPath } from '../src/lib/recent';
import { localesWithErrors, templateProblems } from '../src/views/TemplateEditor';
import { breakParts } from '../src/views/common';
import { RecentMenu } from '../src/views/RecentMenu';
import { Segments } from '../src/views/Segments';

import DEFAULT from '../../fixtures/default.scene.json?raw';
import { dropRoot, freshRoot } from './root';

/** The scene as the app writes it, read back as plain JSON. */
const written = (s: JObject) => JSON.parse(new SceneWriter().write(s));

describe('configured prompts', () => {
  it('lists every configured prompt, chat then desk, with the path validate uses', () => {
    const list = configuredPrompts(parseScene(DEFAULT));
    expect(list.map((p) => `${p.family} ${p.segment}[${p.index}] ${p.path}`)).toEqual([
      'chat system_msg_prompt[0] chat_llm.system_msg_prompt[0].template',
      'chat after_input_msg_prompt[0] chat_llm.after_input_msg_prompt[0].template',
      'desk system_prompt[0] desk_llm.system_prompt[0].template',
      'desk current_desk_screenshot_prompt[0] desk_llm.current_desk_screenshot_prompt[0].template',
      'desk purpose_prompt[0] desk_llm.purpose_prompt[0].template',
    ]);
    expect(familyOf('purpose_prompt')).toBe('desk');
    expect(familyOf('conversation_msgs')).toBe('chat');
    expect(familyOf('nope')).toBe(null);
  });

  it('edits a prompt template in place (other keys and their order untouched)', () => {
    const s = parseScene(DEFAULT);
    const spec = promptTemplate(configuredPrompt(s, { segment: 'after_input_msg_prompt', index: 0 }))!;
    setTemplateText(spec, 'default', '{{ conversation | length }} messages');
    const j = written(s);
    expect(j.chat_llm.after_input_msg_prompt[0]).toEqual({
      kind: 'normalize',
      template: { engine: 'jinja2', templates: { default: '{{ conversation | length }} messages' } },
    });
    expect(Object.keys(j)).toEqual(Object.keys(JSON.parse(DEFAULT)));
  });

  it('adds a prompt to an empty segment, creating the block before the tools', () => {
    const s = parseScene('{"format": "prompt-inspector/scene@1", "name": "x", "context": {}, "tools": []}');
    expect(addConfiguredPrompt(s, 'instruction_prompt')).toBe(0);
    expect(addConfiguredPrompt(s, 'instruction_prompt')).toBe(1);
    expect(addConfiguredPrompt(s, 'system_msg_prompt')).toBe(0);
    const j = written(s);
    expect(Object.keys(j)).toEqual(['format', 'name', 'context', 'chat_llm', 'desk_llm', 'tools']);
    expect(j.desk_llm.instruction_prompt[1]).toEqual({ kind: 'normalize', template: { engine: 'fstring', templates: { default: '' } } });
    expect(() => addConfiguredPrompt(s, 'conversation_msgs_typo')).toThrow();
    addConfiguredPrompt(s, 'system_prompt');
    addConfiguredPrompt(s, 'prefix_prompt');
    expect(Object.keys(written(s).desk_llm)).toEqual(['system_prompt', 'instruction_prompt', 'prefix_prompt']);
  });

  it('removes a prompt, and the list when it empties', () => {
    const s = parseScene(DEFAULT);
    removeConfiguredPrompt(s, { segment: 'purpose_prompt', index: 0 });
    expect(written(s).desk_llm).not.toHaveProperty('purpose_prompt');
    expect(configuredPrompts(s)).toHaveLength(4);
    removeConfiguredPrompt(s, { segment: 'purpose_prompt', index: 3 }); // gone already: no-op
    expect(configuredPrompts(s)).toHaveLength(4);
  });

  it('knows which locale renders (active_language, else default) and keeps the last locale', () => {
    const spec = parseScene('{"t": {"engine": "fstring", "templates": {"default": "a", "zh": "b"}, "active_language": "zh"}}').get(
      't',
    ) as JObject;
    expect(renderedLocale(spec)).toBe('zh');
    spec.set('active_language', 'fr');
    expect(renderedLocale(spec)).toBe('default');
    removeLocale(spec, 'default');
    removeLocale(spec, 'zh');
    expect(templateText(spec, 'zh')).toBe('b');
    expect(renderedLocale(spec)).toBe(null);
  });
});

describe('what _format_2_prompt returns', () => {
  const f2p = (s: JObject, name: string) => written(s).tools.find((t: { name: string }) => t.name === name).format_2_prompt;

  it('writes exactly the fields of each kind (the loader rejects others)', () => {
    const s = parseScene(DEFAULT);
    const tool = toolByName(s, 'chat_memo')!;
    const stash: ReturnsStash = new Map();
    setReturnsKind(tool, 'none', stash);
    expect(f2p(s, 'chat_memo')).toEqual({ returns: 'none' });
    setReturnsKind(tool, 'raise', stash);
    expect(f2p(s, 'chat_memo')).toEqual({ returns: 'raise', error: 'chat_memo failed' });
    setReturnsKind(tool, 'invalid', stash);
    expect(stringifyJson(tool.get('format_2_prompt') as JObject, 0)).toBe('{"returns":"invalid","value":42}');
    setReturnsKind(tool, 'prompt', stash);
    expect(f2p(s, 'chat_memo')).toEqual({
      returns: 'prompt',
      prompt: { kind: 'normalize', template: { engine: 'fstring', templates: { default: 'Memo: {state}' } } },
    });
    expect(templatePathOf(s, tool)).toBe('tools[1].format_2_prompt.prompt.template');
    setReturnsKind(tool, 'str', stash);
    expect(f2p(s, 'chat_memo')).toEqual({ returns: 'str', source: { engine: 'fstring', templates: { default: 'Memo: {state}' } } });
    expect(templatePathOf(s, tool)).toBe('tools[1].format_2_prompt.source');
  });

  it('"not overridden" removes the field; switching back restores the template and the other fields', () => {
    const s = parseScene(DEFAULT);
    const tool = toolByName(s, 'tf_notes')!;
    const text = templateText(toolTemplate(tool), 'default');
    const stash: ReturnsStash = new Map();
    setReturnsKind(tool, 'default', stash);
    expect(returnsKind(tool)).toBe('default');
    expect(written(s).tools[0]).not.toHaveProperty('format_2_prompt');
    setReturnsKind(tool, 'raise', stash);
    (tool.get('format_2_prompt') as JObject).set('error', 'disk full');
    setReturnsKind(tool, 'str', stash);
    expect(templateText(toolTemplate(tool), 'default')).toBe(text);
    expect(toolTemplate(tool)!.get('engine')).toBe('jinja2');
    setReturnsKind(tool, 'raise', stash);
    expect(f2p(s, 'tf_notes')).toEqual({ returns: 'raise', error: 'disk full' });
    // Keys of the tool keep their order; a re-added field goes last.
    expect(Object.keys(written(s).tools[0])).toEqual(['name', 'description', 'prompt_position', 'state', 'format_2_prompt']);
  });

  it('a fresh tool gets an empty fstring template; the same kind is a no-op', () => {
    const tool = new JObject([['name', 't']]);
    setReturnsKind(tool, 'str');
    expect(stringifyJson(tool, 0)).toBe(
      '{"name":"t","format_2_prompt":{"returns":"str","source":{"engine":"fstring","templates":{"default":""}}}}',
    );
    const before = tool.get('format_2_prompt');
    setReturnsKind(tool, 'str');
    expect(tool.get('format_2_prompt')).toBe(before);
    expect(RETURNS_KINDS).toEqual(['default', 'str', 'prompt', 'none', 'raise', 'invalid']);
  });

  it('keeps an invalid value losslessly', () => {
    const s = parseScene('{"tools": [{"name": "t", "format_2_prompt": {"returns": "invalid", "value": 1.0}}]}');
    const tool = toolByName(s, 't')!;
    const stash: ReturnsStash = new Map();
    setReturnsKind(tool, 'none', stash);
    setReturnsKind(tool, 'invalid', stash);
    expect((tool.get('format_2_prompt') as JObject).get('value')).toEqual(new RawNumber('1.0'));
  });
});

describe('template editor: errors per locale', () => {
  const v: ValidateResponse = {
    load_error: null,
    tools: [],
    templates: [
      {
        path: 'chat_llm.system_msg_prompt[0].template.templates.default',
        owner: 'config',
        tool: null,
        segment: 'system_msg_prompt',
        engine: 'fstring',
        locale: 'default',
        span: [0, 0],
        error: { kind: 'ValueError', message: 'x', range: [1, 2] },
      },
      {
        path: 'chat_llm.system_msg_prompt[0].template.templates.zh',
        owner: 'config',
        tool: null,
        segment: 'system_msg_prompt',
        engine: 'fstring',
        locale: 'zh',
        span: [0, 0],
        error: null,
      },
      {
        path: 'chat_llm.system_msg_prompt[1].template.templates.default',
        owner: 'config',
        tool: null,
        segment: 'system_msg_prompt',
        engine: 'fstring',
        locale: 'default',
        span: [0, 0],
        error: { kind: 'KeyError', message: 'y' },
      },
    ],
  };
  it('picks the errors of one template and locale', () => {
    const path = promptTemplatePath({ segment: 'system_msg_prompt', index: 0 });
    expect(templateProblems(v, path, 'default').map((p) => p.kind)).toEqual(['ValueError']);
    expect(templateProblems(v, path, 'zh')).toEqual([]);
    expect(templateProblems(v, null, 'default')).toEqual([]);
    expect([...localesWithErrors(v, path)]).toEqual(['default']);
    expect([...localesWithErrors(v, 'chat_llm.system_msg_prompt[1].template')]).toEqual(['default']);
    expect([...localesWithErrors(undefined, path)]).toEqual([]);
  });
});

describe('wrapping names', () => {
  it('breaks after dots and underscores only', () => {
    expect(breakParts('positions.original_desk_screenshot_prompt')).toEqual(['positions.', 'original_', 'desk_', 'screenshot_', 'prompt']);
    expect(breakParts('tools_total')).toEqual(['tools_', 'total']);
    expect(breakParts('bytes')).toEqual(['bytes']);
    expect(breakParts('positions.original_desk_screenshot_prompt').join('')).toBe('positions.original_desk_screenshot_prompt');
  });
});

describe('recent files', () => {
  beforeEach(() => {
    localStorage.clear();
  });
  it('splits and shortens paths for the menu', () => {
    expect(splitPath('/a/b/x.scene.json')).toEqual({ name: 'x.scene.json', dir: '/a/b' });
    expect(splitPath('/x.json')).toEqual({ name: 'x.json', dir: '/' });
    expect(splitPath('C:\\s\\y.json')).toEqual({ name: 'y.json', dir: 'C:\\s' });
    expect(splitPath('z.json')).toEqual({ name: 'z.json', dir: '' });
    expect(shortDir('/short')).toBe('/short');
    const long = `/home/someone/${'deep/'.repeat(20)}scenes`;
    expect(shortDir(long, 20)).toHaveLength(20);
    expect(shortDir(long, 20).endsWith('/deep/scenes')).toBe(true);
  });
  it('moves the focus like a menu: arrows wrap, Home and End jump', () => {
    expect(menuMove('ArrowDown', -1, 3)).toBe(0);
    expect(menuMove('ArrowDown', 2, 3)).toBe(0);
    expect(menuMove('ArrowUp', 0, 3)).toBe(2);
    expect(menuMove('ArrowUp', -1, 3)).toBe(2);
    expect(menuMove('Home', 2, 3)).toBe(0);
    expect(menuMove('End', 0, 3)).toBe(2);
    expect(menuMove('a', 0, 3)).toBe(null);
    expect(menuMove('ArrowDown', 0, 0)).toBe(null);
  });
  it('clears the list session.ts keeps (in the browser, where the page keeps it)', async () => {
    await rememberRecent('/a.scene.json');
    await rememberRecent('/b.scene.json');
    await rememberRecent('/a.scene.json');
    expect(await recentFiles()).toEqual(['/a.scene.json', '/b.scene.json']);
    await clearRecentFiles();
    expect(await recentFiles()).toEqual([]);
  });
});

describe('the Recent menu', () => {
  let root: HTMLElement;
  beforeEach(() => {
    localStorage.clear();
    root = document.createElement('div');
    document.body.append(root);
  });
  afterEach(() => {
    render(null, root);
    root.remove();
  });
  // The menu reads the list asynchronously (the shell keeps it in the app): let that settle.
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const key = (el: Element, k: string) =>
    act(async () => {
      el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
      await settle();
    });
  const mount = (props: Parameters<typeof RecentMenu>[0]) =>
    act(() => {
      render(h(RecentMenu, props), root);
    });

  it('opens from the keyboard, moves, opens the picked file and closes on Escape', async () => {
    await rememberRecent('/s/one.scene.json');
    await rememberRecent('/s/two.scene.json');
    const onOpen = vi.fn();
    await mount({ current: '/s/two.scene.json', onOpen });
    const button = root.querySelector('[data-testid="recent"]') as HTMLButtonElement;
    expect(button.getAttribute('aria-haspopup')).toBe('menu');
    expect(root.querySelector('[role="menu"]')).toBe(null);
    button.focus();
    await key(button, 'ArrowDown');
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const items = [...root.querySelectorAll('[role="menuitem"]')] as HTMLElement[];
    expect(items.map((i) => i.textContent)).toEqual(['two.scene.json (open)/s', 'one.scene.json/s', 'Clear recent']);
    expect(document.activeElement).toBe(items[0]);
    await key(items[0], 'ArrowDown');
    expect(document.activeElement).toBe(items[1]);
    await key(items[1], 'End');
    expect(document.activeElement).toBe(items[2]);
    await key(items[2], 'ArrowDown');
    expect(document.activeElement).toBe(items[0]);
    await key(items[0], 'Escape');
    expect(root.querySelector('[role="menu"]')).toBe(null);
    expect(document.activeElement).toBe(button);
    await key(button, 'ArrowUp');
    expect(document.activeElement?.textContent).toBe('Clear recent');
    await act(() => {
      (root.querySelectorAll('[role="menuitem"]')[1] as HTMLElement).click();
    });
    expect(onOpen).toHaveBeenCalledWith('/s/one.scene.json');
    expect(root.querySelector('[role="menu"]')).toBe(null);
  });

  it('clears the list, and says when it is empty', async () => {
    await rememberRecent('/s/one.scene.json');
    const onCleared = vi.fn();
    await mount({ current: null, onOpen: () => {}, onCleared });
    const button = root.querySelector('[data-testid="recent"]') as HTMLButtonElement;
    await act(async () => {
      button.click();
      await settle();
    });
    await act(async () => {
      (root.querySelector('[data-testid="recent-clear"]') as HTMLElement).click();
      await settle();
    });
    expect(onCleared).toHaveBeenCalled();
    expect(await recentFiles()).toEqual([]);
    await act(async () => {
      button.click();
      await settle();
    });
    expect(root.querySelector('[role="menu"]')!.textContent).toContain('No recent files yet');
    expect(root.querySelector('[data-testid="recent-clear"]')!.getAttribute('aria-disabled')).toBe('true');
    // A press outside closes it.
    await act(() => {
      document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    });
    expect(root.querySelector('[role="menu"]')).toBe(null);
  });
});

describe('the segment board', () => {
  // Seg text: a configured prompt, a seam, a tool's two lines (the board lays out one block per line).
  const text = 'You are X.\n# notes\n- a';
  const report = (llm: 'chat' | 'desk'): Report =>
    ({
      llm,
      segments: [
        {
          name: llm === 'chat' ? 'system_msg_prompt' : 'system_prompt',
          legal: true,
          text,
          bytes: text.length,
          pieces: [
            { source: 'config', index: 1, text: 'You are X.', range: [0, 10] },
            { source: 'tool', tool: 'tf_notes', text: '# notes\n- a', range: [11, 22] },
          ],
        },
      ],
      tools: [],
      diagnostics: [],
      metrics: { tools_total: 1, tools_rendered: 1, bytes: text.length, positions: {} },
    }) as unknown as Report;
  let root: HTMLElement;
  beforeEach(() => {
    root = freshRoot();
  });
  afterEach(() => dropRoot(root));

  it('shows each line as a block with the text byte for byte; a tool piece selects the tool, a prompt piece opens its editor', async () => {
    const onSelectTool = vi.fn();
    const onSelectPrompt = vi.fn();
    await act(() => {
      render(
        h(Segments, {
          chat: report('chat'),
          desk: report('desk'),
          rules: null,
          palette: new Map(),
          adapter: 'openai_desk',
          setAdapter: () => {},
          provider: null,
          onSelectTool,
          selectedTool: null,
          onSelectPrompt,
        }),
        root,
      );
    });
    const card = root.querySelector('[data-testid="seg-chat-system_msg_prompt"] .seg-text')!;
    expect([...card.querySelectorAll('.seg-line')].map((l) => l.textContent)).toEqual(['You are X.\n', '# notes\n', '- a']);
    expect(card.textContent).toBe(text);
    const pieces = [...card.querySelectorAll('.piece')] as HTMLElement[];
    expect(pieces.map((p) => p.textContent)).toEqual(['You are X.', '# notes\n', '- a']);
    await act(() => {
      pieces[2].click();
    });
    expect(onSelectTool).toHaveBeenCalledWith('tf_notes');
    await act(() => {
      pieces[0].click();
    });
    expect(onSelectPrompt).toHaveBeenCalledWith('system_msg_prompt', 1);
    const desk = root.querySelector('[data-testid="seg-desk-system_prompt"] .piece') as HTMLElement;
    await act(() => {
      desk.click();
    });
    expect(onSelectPrompt).toHaveBeenLastCalledWith('system_prompt', 1);
  });
});
