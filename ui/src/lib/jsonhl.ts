// A small JSON highlighter for one line of pretty-printed JSON (the request bodies): keys,
// strings, numbers and literals as tokens, the rest as plain text. Line by line, so a body of
// thousands of messages is coloured without a parser or an editor.

export type JsonTokenKind = 'key' | 'string' | 'number' | 'literal' | null;
export interface JsonToken {
  text: string;
  kind: JsonTokenKind;
}

const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

export function jsonTokens(line: string): JsonToken[] {
  const out: JsonToken[] = [];
  let at = 0;
  for (const m of line.matchAll(TOKEN)) {
    const i = m.index ?? 0;
    if (i > at) out.push({ text: line.slice(at, i), kind: null });
    if (m[1] !== undefined) {
      out.push({ text: m[1], kind: m[2] !== undefined ? 'key' : 'string' });
      if (m[2]) out.push({ text: m[2], kind: null });
    } else if (m[3] !== undefined) out.push({ text: m[3], kind: 'number' });
    else out.push({ text: m[4], kind: 'literal' });
    at = i + m[0].length;
  }
  if (at < line.length) out.push({ text: line.slice(at), kind: null });
  return out;
}
