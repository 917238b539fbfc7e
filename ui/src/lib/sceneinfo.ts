// What a scene says about itself: its name and description, and for a scene written by
// `prompt-inspector import`, the lists its description holds (docs/cli.md, "import"): where each
// piece came from (Origins), what is kept in `recorded.carried`, and what was not mapped.
import { JObject } from './json';
import type { Scene } from './scene';

export interface DescriptionList {
  /** The list's heading as the description writes it, without the colon (`Origins`, `Not mapped`). */
  title: string;
  items: string[];
  /** Text after the colon on the heading's line (`nothing.`). */
  note: string;
}

export interface SceneAbout {
  name: string;
  /** The description's text before its first list. */
  lead: string;
  lists: DescriptionList[];
}

/** A line `Heading:` or `Heading: note` that starts a list (the next lines are `- item`). */
const HEADING = /^([A-Z][^:]{0,80}):\s*(.*)$/;

/** The scene's name and description, the description's `Heading:` + `- item` lists apart. */
export function sceneAbout(scene: Scene): SceneAbout {
  const name = typeof scene.get('name') === 'string' ? (scene.get('name') as string) : '';
  const text = typeof scene.get('description') === 'string' ? (scene.get('description') as string) : '';
  const lines = text.split('\n');
  const lead: string[] = [];
  const lists: DescriptionList[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const h = HEADING.exec(line);
    const startsList = h && (lines[i + 1]?.startsWith('- ') || /^nothing\.?$/.test(h[2]));
    if (h && startsList) {
      lists.push({ title: h[1], items: [], note: h[2] });
      continue;
    }
    const last = lists[lists.length - 1];
    if (last && line.startsWith('- ')) last.items.push(line.slice(2));
    else if (last) last.items.push(line);
    else lead.push(line);
  }
  return { name, lead: lead.join('\n').trim(), lists };
}

const CONTENT_KEYS = ['context', 'intermediate_msgs', 'chat_llm', 'desk_llm', 'tools'];

/** A scene with a `run` loop and none of what the board renders (docs/scene-format.md, `run`). */
export function runOnly(scene: Scene): boolean {
  return scene.get('run') !== undefined && !CONTENT_KEYS.some((k) => scene.get(k) !== undefined);
}

/** Whether the scene gives a family anything to render: its `…_llm` object, a tool declaring a
 *  position in it, and for chat also the context's input, conversation or intermediate messages. */
export function familyUsed(scene: Scene, family: 'chat' | 'desk'): boolean {
  if (scene.get(family === 'chat' ? 'chat_llm' : 'desk_llm') !== undefined) return true;
  const tools = scene.get('tools');
  const side = family === 'chat' ? 0 : 1;
  if (
    Array.isArray(tools) &&
    tools.some((t) => {
      const p = t instanceof JObject ? t.get('prompt_position') : undefined;
      return Array.isArray(p) && typeof p[side] === 'string';
    })
  )
    return true;
  if (family === 'desk') return false;
  if (scene.get('intermediate_msgs') !== undefined) return true;
  const ctx = scene.get('context');
  return ctx instanceof JObject && (ctx.get('user_input') !== undefined || ctx.get('conversation') !== undefined);
}
