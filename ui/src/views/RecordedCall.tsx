// What a recorded call keeps beyond its request (docs/app.md, "What the board says"): the reply
// the provider returned, after the messages in the Messages view, and the prompt template the call
// was made from, with the scene's details above the board.
import { useMemo } from 'preact/hooks';
import { charsText, type Folded, promptTitle, recordedPrompt, recordedReply, replyTokens, templateSize } from '../lib/recordedcall';
import type { Session } from '../lib/session';
import { MessageCard } from './Message';

/** The id of the reply's heading: the scene details' link to the reply moves the focus there. */
export const REPLY_HEADING = 'recorded-reply-heading';

/** `recorded.reply`: each message as the Messages and Run views show one, marked as the reply the
 *  provider returned, recorded with the call and not part of the request. */
export function RecordedReply({ session }: { session: Session }) {
  const reply = useMemo(() => recordedReply(session.scene), [session.scene, session.version]);
  const tokens = useMemo(() => replyTokens(session.scene), [session.scene, session.version]);
  if (!reply.length) return null;
  return (
    <section class="recorded-reply" aria-labelledby={REPLY_HEADING} data-testid="recorded-reply">
      <h4 id={REPLY_HEADING} tabIndex={-1}>
        Reply <span class="reply-mark">recorded, not sent</span>
      </h4>
      <p class="muted reply-about">
        What the provider returned for this call, as recorded with it
        {tokens !== null ? ` (${tokens.toLocaleString('en-US')} output tokens billed)` : ''}. It is not part of the request: the figures and
        the request body leave it out.
      </p>
      <div class="messages">
        {reply.map((m, i) => (
          <MessageCard key={i} m={m} source={`recorded.reply[${i}]`} />
        ))}
      </div>
    </section>
  );
}

/** A value in a line: whole when short, else its start, the rest in a fold. */
function FoldedValue({ v }: { v: Folded }) {
  if (!v.folded) return <code class="prompt-value">{v.head}</code>;
  return (
    <details class="prompt-fold">
      <summary>
        <code class="prompt-value">{v.head}</code> <span class="muted">({charsText(v)})</span>
      </summary>
      <pre class="prompt-full">
        {v.full}
        {v.cut > 0 && `\n… ${v.cut.toLocaleString('en-US')} more characters not shown`}
      </pre>
    </details>
  );
}

/** `recorded.prompt`: the template's name and version, its variables (`name = value`, long values
 *  folded) and its text when recorded. */
export function RecordedPromptInfo({ session }: { session: Session }) {
  const p = useMemo(() => recordedPrompt(session.scene), [session.scene, session.version]);
  if (!p) return null;
  return (
    <div class="recorded-prompt" data-testid="recorded-prompt">
      <p class="prompt-title">
        Made from the prompt template <b data-testid="recorded-prompt-title">{promptTitle(p)}</b>{' '}
        <span class="muted">(recorded with the call)</span>
      </p>
      {p.variables.length > 0 ? (
        <ul class="prompt-vars" aria-label="Template variables" data-testid="recorded-prompt-vars">
          {p.variables.map((v) => (
            <li key={v.name}>
              <code class="prompt-var">{v.name}</code> = <FoldedValue v={v.value} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted prompt-none">No variables recorded.</p>
      )}
      {p.template && (
        <details class="prompt-template" data-testid="recorded-prompt-template">
          <summary>Template text ({templateSize(p.template)})</summary>
          <pre class="prompt-full">
            {p.template.full}
            {p.template.cut > 0 && `\n… ${p.template.cut.toLocaleString('en-US')} more characters not shown`}
          </pre>
        </details>
      )}
    </div>
  );
}
