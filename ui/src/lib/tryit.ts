// "Try it" in the Rules view: what the model receives at a segment with the rule (the tool refused)
// and what it would have received had the rule not existed (the tool's text there, marked), next to
// a legal position where the tool's text is really injected. Built from two renders of a copy of
// the open scene: the tool moved to the forbidden segment, and moved to the legal one.
import type { Report, Rules } from '../api/types';

/** A run of text the model receives; `tool` marks the tool's own text. */
export interface Part {
  text: string;
  tool: boolean;
}

/** A text as parts, the tool's text marked. */
export interface Shown {
  parts: Part[];
  /** Where the text sits, in words (`the user message`, `the system message`). */
  where: string;
}

const plain = (text: string): Part[] => (text ? [{ text, tool: false }] : []);
const contentText = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c, null, 2));

/** The tool's text as it renders at the legal position (its pieces there, joined as the segment joins them). */
export function toolText(legal: Report, segment: string, tool: string): string | null {
  const seg = legal.segments.find((s) => s.name === segment);
  const pieces = seg?.pieces.filter((p) => p.source === 'tool' && p.tool === tool) ?? [];
  return pieces.length ? pieces.map((p) => p.text).join('\n') : null;
}

/** The legal segment's text with the tool's pieces marked (by their byte ranges in the segment's text). */
export function legalShown(legal: Report, segment: string, tool: string): Shown {
  const seg = legal.segments.find((s) => s.name === segment);
  const where = legal.llm === 'chat' ? 'a system message' : 'a block of the request';
  if (!seg) return { parts: [], where };
  const bytes = new TextEncoder().encode(seg.text);
  const dec = new TextDecoder();
  const parts: Part[] = [];
  let at = 0;
  const ranges = seg.pieces
    .filter((p) => p.source === 'tool' && p.tool === tool)
    .map((p) => p.range)
    .sort((a, b) => a[0] - b[0]);
  for (const [a, b] of ranges) {
    if (a > at) parts.push({ text: dec.decode(bytes.slice(at, a)), tool: false });
    parts.push({ text: dec.decode(bytes.slice(a, b)), tool: true });
    at = b;
  }
  if (at < bytes.length) parts.push({ text: dec.decode(bytes.slice(at)), tool: false });
  return { parts, where };
}

/**
 * What the model receives at `segment` with the rule: for the chat user's input, the user message
 * (the reformat prompt, or the user's input sent as is); for a message stream, its messages; else
 * the segment's text. The tool is refused, so none of its text is there.
 */
export function withRule(forbidden: Report, segment: string, rules: Rules): Shown {
  const info = rules.segments.find((s) => s.name === segment && s.family === forbidden.llm);
  const tagged = (forbidden.messages ?? []).filter((m) => m.segment === segment);
  if (forbidden.llm === 'chat' && info && !info.configured) {
    // A message stream: its recorded messages, each on its own lines.
    return { parts: plain(tagged.map((m) => `${m.role}: ${contentText(m.content)}`).join('\n\n')), where: `the ${info.label}` };
  }
  if (forbidden.llm === 'chat' && tagged.length) {
    const user = tagged.find((m) => m.role === 'user') ?? tagged[0];
    return { parts: plain(contentText(user.content)), where: `the ${user.role} message` };
  }
  const seg = forbidden.segments.find((s) => s.name === segment);
  return { parts: plain(seg?.text ?? ''), where: forbidden.llm === 'chat' ? 'a message' : 'a block of the request' };
}

/**
 * What the model would have received at `segment` had the rule not existed: the same text with
 * the tool's text added where a tool's text goes (after the segment's own text, on a line of its
 * own, as a legal segment joins its pieces), marked; for a message stream, as one more message.
 */
export function withoutRule(shownWith: Shown, text: string, stream: boolean): Shown {
  const parts = [...shownWith.parts];
  if (parts.length) parts.push({ text: stream ? '\n\n' : '\n', tool: false });
  parts.push({ text: stream ? `tool: ${text}` : text, tool: true });
  return { parts, where: shownWith.where };
}

/** The legal segment to contrast with `forbidden`: the legal prompt list of its family nearest to it in assembly order, earlier first. */
export function nearestLegal(rules: Rules, forbidden: string): string | null {
  const f = rules.segments.find((s) => s.name === forbidden);
  if (!f) return null;
  const open = rules.segments.filter((s) => s.family === f.family && s.legal && s.configured);
  open.sort((a, b) => Math.abs(a.order - f.order) - Math.abs(b.order - f.order) || a.order - b.order);
  return open[0]?.name ?? null;
}

/** A segment in words, with its family: "ChatLLM: the user's input". */
export function segmentWords(rules: Rules, name: string): string {
  const s = rules.segments.find((x) => x.name === name);
  if (!s) return name;
  return `${s.family === 'chat' ? 'ChatLLM' : 'DeskLLM'}: ${s.label}`;
}

/** A forbidden segment's badge: "forbidden: history" (the rule in words, from the core). */
export function forbiddenBadge(rules: Rules, segment: string): string | null {
  const s = rules.segments.find((x) => x.name === segment);
  if (!s || s.legal) return null;
  const r = rules.rules.find((x) => x.id === s.rule);
  return `forbidden: ${r?.short ?? s.rule}`;
}
