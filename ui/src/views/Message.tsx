// One chat message as the Run view and the board's Messages view both show it: the speaker, where
// the message came from, its text parts as text (an image part named, not dumped as JSON) and its
// tool calls as calls with their arguments.
import type { ComponentChildren } from 'preact';

export interface ToolCallView {
  id: string;
  name: string;
  arguments: string;
}

type Call = { id?: unknown; name?: unknown; arguments?: unknown; function?: { name?: unknown; arguments?: unknown } };

/** A message's tool calls, from either shape: `{id, name, arguments}` or OpenAI's `{id, function: {name, arguments}}`. */
export function toolCalls<T extends { tool_calls?: unknown }>(m: T): ToolCallView[] {
  const list = Array.isArray(m.tool_calls) ? (m.tool_calls as Call[]) : [];
  return list.map((c) => {
    const f = c?.function ?? c ?? {};
    const a = f.arguments;
    return {
      id: typeof c?.id === 'string' ? c.id : '',
      name: typeof f.name === 'string' ? f.name : '(unnamed)',
      arguments: a === undefined ? '' : typeof a === 'string' ? a : JSON.stringify(a),
    };
  });
}

export function ToolCallList({ calls }: { calls: ToolCallView[] }) {
  return (
    <ul class="run-calls" aria-label="tool calls">
      {calls.map((c, k) => (
        <li key={k} class="run-call">
          <span class="muted">calls</span> <b class="run-call-name">{c.name}</b>
          {c.id && <span class="muted"> ({c.id})</span>} <span class="muted">with arguments</span>{' '}
          <code class="run-call-args">{c.arguments || '(none)'}</code>
        </li>
      ))}
    </ul>
  );
}

export type ContentPart = { kind: 'text'; text: string } | { kind: 'image'; what: string } | { kind: 'other'; json: string };

/** A message's content as parts: a string is one text part; in a part list, text parts are their
 *  text, an image part says where its bytes are, anything else is shown as JSON. */
export function contentParts(content: unknown): ContentPart[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : [];
  if (!Array.isArray(content)) return content == null ? [] : [{ kind: 'other', json: JSON.stringify(content, null, 2) }];
  return content.map((p): ContentPart => {
    if (p && typeof p === 'object' && p.type === 'text' && typeof p.text === 'string') return { kind: 'text', text: p.text };
    if (p && typeof p === 'object' && p.type === 'image') {
      const src =
        typeof p.path === 'string'
          ? p.path
          : typeof p.url === 'string'
            ? p.url.startsWith('data:')
              ? `${p.url.slice(0, p.url.indexOf(',') + 1)}… (${p.url.length} characters)`
              : p.url
            : typeof p.data_base64 === 'string'
              ? `base64 data (${p.data_base64.length} characters)`
              : 'no source';
      return { kind: 'image', what: src };
    }
    return { kind: 'other', json: JSON.stringify(p, null, 2) };
  });
}

export interface MessageLike {
  role: string;
  content?: unknown;
  name?: string | null;
  tool_call_id?: string | null;
  tool_calls?: unknown;
}

/**
 * A message: its head (role, name, the call it answers, where it came from, figures), its text
 * (`body` when the caller marks parts of it, else its content parts) and its tool calls.
 */
export function MessageCard({
  m,
  source,
  figures,
  extra,
  body,
  as = 'div',
  value,
}: {
  m: MessageLike;
  /** Where the message came from (a segment, `context.user_input.input`). */
  source?: ComponentChildren;
  figures?: ComponentChildren;
  /** More of the head (a cache hint, a note). */
  extra?: ComponentChildren;
  body?: ComponentChildren;
  as?: 'div' | 'li';
  value?: number;
}) {
  const calls = toolCalls(m);
  const parts = body === undefined ? contentParts(m.content) : [];
  const Tag = as;
  return (
    <Tag class={`msg role-${m.role}`} value={value}>
      <div class="msg-head">
        <b>{m.role}</b>
        {m.name && <span>{m.name}</span>}
        {m.tool_call_id && <span class="muted">result of {m.tool_call_id}</span>}
        {source && <span class="muted msg-source">{source}</span>}
        {extra}
        {figures && <span class="figures">{figures}</span>}
      </div>
      {body}
      {parts.map((p, k) =>
        p.kind === 'text' ? (
          <pre key={k}>{p.text}</pre>
        ) : p.kind === 'image' ? (
          <div key={k} class="msg-image muted">
            image: {p.what}
          </div>
        ) : (
          <pre key={k} class="msg-other">
            {p.json}
          </pre>
        ),
      )}
      {calls.length > 0 && <ToolCallList calls={calls} />}
      {body === undefined && !parts.length && !calls.length && <span class="empty-seg">(empty)</span>}
    </Tag>
  );
}
