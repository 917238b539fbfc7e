// Which request body the board shows, as one choice with the model the figures are priced for:
// the chat body is the picked model's provider's, and the desk body is built for the picked model
// (the adapter of its provider when the scene's adapter does not send to it, naming that model),
// or for an adapter the person previews. Looking at a body never edits the scene; writing the
// previewed adapter and model into the scene is a separate, explicit step.
import type { ModelInfo } from '../api/types';
import { JObject, parseJson, stringifyJson } from './json';
import type { Scene } from './scene';

/** The provider each DeskLLM adapter sends to, as the models table names providers (null: none
 *  of the table's, e.g. a local server). */
export const ADAPTER_PROVIDER: Record<string, string | null> = {
  openai_desk: 'openai',
  openai_gen_desk: 'openai',
  claude_desk: 'anthropic',
  gemini_desk: 'google',
  deepseek_desk: 'deepseek',
  tencent_ds_desk: null,
  ollama_desk: null,
  sglang_desk: null,
};

/** The adapter that sends to a provider of the models table. */
const PROVIDER_ADAPTER: Record<string, string> = {
  openai: 'openai_desk',
  anthropic: 'claude_desk',
  google: 'gemini_desk',
  deepseek: 'deepseek_desk',
};

/** The chat providers the core builds a body for. */
export type ChatProvider = 'openai' | 'anthropic';

/** The chat body's provider for the picked model: its own provider when the core builds that
 *  body (OpenAI chat completions, Anthropic Messages), else null. */
export function chatProviderOf(model: ModelInfo | null | undefined): ChatProvider | null {
  return model?.provider === 'openai' || model?.provider === 'anthropic' ? model.provider : null;
}

/** The API name a body names for a models-table row (`openai/gpt-5` → `gpt-5`). */
export function apiName(model: ModelInfo): string {
  return model.names[0] ?? model.id.slice(model.provider.length + 1);
}

/** The scene's DeskLLM adapter and model (`desk_llm.adapter`, default `openai_desk`; `desk_llm.model`). */
export function sceneDesk(scene: Scene): { adapter: string; model: string | null } {
  const d = scene.get('desk_llm');
  const get = (k: string) => (d instanceof JObject && typeof d.get(k) === 'string' ? (d.get(k) as string) : null);
  return { adapter: get('adapter') ?? 'openai_desk', model: get('model') };
}

export interface DeskBody {
  /** The adapter and model (null: the adapter's default) the shown body is built for. */
  adapter: string;
  model: string | null;
  /** Whether that is the scene's own configuration (the live report's body is it). */
  scenes: boolean;
  /** Whether the adapter sends to the picked model's provider (the body names the picked model). */
  priced: boolean;
}

/**
 * The desk body to show. Without a previewed adapter: the picked model's (the scene's adapter when
 * it sends to that model's provider, else the adapter of that provider), naming the picked model;
 * with one (`preview`): that adapter, naming the picked model when it sends to its provider, else
 * the scene's model when it is the scene's adapter, else the adapter's default.
 */
export function deskBody(scene: { adapter: string; model: string | null }, picked: ModelInfo | null, preview: string | null): DeskBody {
  const provider = picked?.provider ?? null;
  const follows = provider && ADAPTER_PROVIDER[scene.adapter] !== provider ? (PROVIDER_ADAPTER[provider] ?? null) : null;
  const adapter = preview ?? follows ?? scene.adapter;
  const priced = !!picked && ADAPTER_PROVIDER[adapter] === provider;
  const model = priced ? apiName(picked!) : adapter === scene.adapter ? scene.model : null;
  const scenes = adapter === scene.adapter && model === scene.model;
  return { adapter, model, scenes, priced };
}

/** The scene's text with `desk_llm.adapter` and `desk_llm.model` set (model null: removed), for
 *  rendering a previewed body; the scene itself is untouched. */
export function withDesk(text: string, adapter: string, model: string | null): string {
  const s = parseJson(text);
  if (!(s instanceof JObject)) return text;
  let d = s.get('desk_llm');
  if (!(d instanceof JObject)) {
    d = new JObject();
    s.set('desk_llm', d);
  }
  const desk = d as JObject;
  desk.set('adapter', adapter);
  if (model === null) desk.delete('model');
  else desk.set('model', model);
  return stringifyJson(s, 0);
}

/** Writes the previewed adapter and model into the scene (the explicit step that edits it). */
export function writeDesk(scene: Scene, adapter: string, model: string | null) {
  let d = scene.get('desk_llm');
  if (!(d instanceof JObject)) {
    d = new JObject();
    scene.set('desk_llm', d);
  }
  const desk = d as JObject;
  desk.set('adapter', adapter);
  if (model === null) desk.delete('model');
  else desk.set('model', model);
}
