// A scene imported with its recorded call (docs/scene-format.md, `recorded`) keeps that record
// through the app's edits and saves: the editor re-serialises only what changed, and the full
// rewrite after a raw-JSON edit writes `recorded` back as it was.
import { describe, expect, it } from 'vitest';
import { Session } from '../src/lib/session';
import { SceneWriter } from '../src/lib/writer';
import { configuredPrompt, parseScene, promptTemplate, setTemplateText } from '../src/lib/scene';
import { fakeApi } from './fake-api';

import HAIKU from '../../fixtures/import/pair/haiku.scene.json?raw';
import SUPPORT from '../../fixtures/import/openai-responses/support.scene.json?raw';

function recordedOf(text: string): unknown {
  return JSON.parse(text).recorded;
}

function savingSession(files: Record<string, string>) {
  return new Session(
    fakeApi({
      open: async (path) => ({ path, text: files[path] }),
      save: async (path, text) => {
        files[path] = text;
        return { modified_ms: 1, size: text.length };
      },
      stat: async () => ({ modified_ms: 1, size: 1 }),
    }),
  );
}

describe('recorded', () => {
  for (const [name, text] of [
    ['haiku (Anthropic, with usage)', HAIKU],
    ['support (Responses, with carried values)', SUPPORT],
  ] as const) {
    it(`${name}: a template edit and a save keep it`, async () => {
      const files: Record<string, string> = { '/x.scene.json': text };
      const s = savingSession(files);
      expect(await s.open('/x.scene.json')).toBe(true);
      const before = recordedOf(text);
      expect(before).toBeTruthy();
      s.edit(
        (sc) => {
          const t = promptTemplate(configuredPrompt(sc, { segment: 'system_msg_prompt', index: 0 }));
          setTemplateText(t!, 'default', 'An edited system prompt.');
        },
        false,
        'chat_llm.system_msg_prompt[0]',
      );
      expect(await s.save('/x.scene.json')).toBe(true);
      const saved = files['/x.scene.json'];
      expect(saved).toContain('An edited system prompt.');
      expect(recordedOf(saved)).toEqual(before);
    });

    it(`${name}: the full rewrite keeps it, numbers and order as written`, () => {
      const w = new SceneWriter();
      const sc = parseScene(text);
      const t = promptTemplate(configuredPrompt(sc, { segment: 'system_msg_prompt', index: 0 }));
      setTemplateText(t!, 'default', 'Rewritten.');
      const out = w.write(sc);
      expect(recordedOf(out)).toEqual(recordedOf(text));
      // Key order of the record is the file's.
      const keys = (s: string) => Object.keys(JSON.parse(s).recorded);
      expect(keys(out)).toEqual(keys(text));
    });
  }
});
