//! Anthropic Messages (`POST /v1/messages`): `claude_desk` and the `anthropic` chat provider.
//!
//! The API takes system text only in the top-level `system` list of text blocks, roles `user` and
//! `assistant` only, requires `max_tokens`, and refuses empty text blocks. The last system block
//! carries `cache_control: {type: ephemeral}`, as xbot marks its static system prompt,
//! so the system prefix is cached across calls.

use serde_json::{json, Map, Value as Json};

use super::limits::{self, Api};
use super::{texts_only, without_messages, Block, DeskInput, Img, Sink, Turn, PLACEHOLDER_TEXT};
use crate::report::DiagnosticCode;

pub(crate) const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// `max_tokens` is required by the Messages API; this is the body's value.
pub const MAX_TOKENS: u32 = 4096;

fn image(img: &Img) -> Json {
    match img {
        Img::Inline { mime, data } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
        }
        Img::Url { url, .. } => json!({"type": "image", "source": {"type": "url", "url": url}}),
    }
}

/// Where a block is, for the diagnostics about it: its segment and a phrase naming it.
#[derive(Clone, Copy)]
struct At<'a> {
    segment: Option<&'static str>,
    place: &'a str,
}

/// A content block; `None` for text that is empty or only whitespace, which the API refuses, and
/// for an image over the API's per-image size (reported).
fn block(b: &Block, at: At, sink: &mut Sink) -> Option<Json> {
    match b {
        Block::Text(t) if t.trim().is_empty() => None,
        Block::Text(t) => Some(json!({"type": "text", "text": t})),
        Block::Image(img) => match limits::image_over(Api::Anthropic, img) {
            Some(why) => {
                sink.warn(
                    DiagnosticCode::ImageOverProviderLimit,
                    format!("an image of {} is left out of the request: {why}", at.place),
                    at.segment,
                    None,
                );
                None
            }
            None => Some(image(img)),
        },
    }
}

/// System text blocks, the last one marked as a cache breakpoint.
fn system(texts: Vec<String>) -> Json {
    let n = texts.len();
    let blocks = texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            if i + 1 == n {
                json!({"type": "text", "text": text, "cache_control": {"type": "ephemeral"}})
            } else {
                json!({"type": "text", "text": text})
            }
        })
        .collect();
    Json::Array(blocks)
}

/// The body; with no messages, one user turn of [`PLACEHOLDER_TEXT`] (the API refuses a request
/// without messages and a message without text), reported with `why` there were none.
fn body(
    model: &str,
    system_texts: Vec<String>,
    mut messages: Vec<Json>,
    (who, why): (&str, &str),
    sink: &mut Sink,
) -> Json {
    if messages.is_empty() {
        without_messages(
            sink,
            who,
            why,
            &format!(
                "the Messages API requires at least one message and refuses empty text, so one user turn of the text {PLACEHOLDER_TEXT:?} is sent"
            ),
        );
        messages
            .push(json!({"role": "user", "content": [{"type": "text", "text": PLACEHOLDER_TEXT}]}));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(MAX_TOKENS));
    if !system_texts.is_empty() {
        body.insert("system".into(), system(system_texts));
    }
    body.insert("messages".into(), Json::Array(messages));
    Json::Object(body)
}

/// `claude_desk`: one system block per instruction-side segment; one user message of text and
/// image blocks for the rest.
pub(crate) fn desk(model: &str, input: &DeskInput, sink: &mut Sink) -> Json {
    // A system block of only whitespace is refused like any other text block.
    let system_texts = input
        .system
        .iter()
        .filter(|(_, t)| !t.trim().is_empty())
        .map(|(_, t)| t.clone())
        .collect();
    let mut content = Vec::new();
    for (segment, blocks) in &input.user {
        let at = At {
            segment: Some(segment),
            place: segment,
        };
        content.extend(blocks.iter().filter_map(|b| block(b, at, sink)));
    }
    let messages = if content.is_empty() {
        Vec::new()
    } else {
        vec![json!({"role": "user", "content": content})]
    };
    let why = "the desk segments of the user turn are empty or only whitespace";
    body(model, system_texts, messages, ("claude_desk", why), sink)
}

/// The `anthropic` chat provider. System messages before the first other message become the
/// `system` blocks; a later system message (there is no system role mid-conversation) becomes a
/// text block of a user turn at its place. Tool results are `tool_result` blocks of a user turn,
/// tool calls `tool_use` blocks; consecutive turns of one role are merged into one message.
pub(crate) fn chat(model: &str, turns: &[Turn], sink: &mut Sink) -> Json {
    let lead = turns.iter().take_while(|t| t.role == "system").count();
    let mut system_texts = Vec::new();
    for (i, t) in turns[..lead].iter().enumerate() {
        let text = texts_only(i, t, "Anthropic's system", sink).join("\n");
        if !text.trim().is_empty() {
            system_texts.push(text);
        }
    }
    let mut messages: Vec<(&'static str, Vec<Json>)> = Vec::new();
    for (i, t) in turns.iter().enumerate().skip(lead) {
        let place = format!("messages[{i}]");
        let at = At {
            segment: t.segment,
            place: &place,
        };
        let (role, content) = match t.role {
            "assistant" => ("assistant", assistant(i, t, sink)),
            "tool" => ("user", tool_result(i, t, at, sink)),
            // `user`, and a system message after the conversation started.
            _ => (
                "user",
                t.blocks.iter().filter_map(|b| block(b, at, sink)).collect(),
            ),
        };
        if content.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last, blocks)) if *last == role => blocks.extend(content),
            _ => messages.push((role, content)),
        }
    }
    let messages = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let why = "no message after the leading system messages has content";
    body(
        model,
        system_texts,
        messages,
        ("the anthropic chat provider", why),
        sink,
    )
}

fn assistant(i: usize, t: &Turn, sink: &mut Sink) -> Vec<Json> {
    let mut out: Vec<Json> = texts_only(i, t, "Anthropic", sink)
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| json!({"type": "text", "text": s}))
        .collect();
    for c in &t.tool_calls {
        // Anthropic wants the arguments as an object, not OpenAI's JSON text.
        let input = match serde_json::from_str::<Json>(&c.arguments) {
            Ok(v @ Json::Object(_)) => v,
            _ => {
                sink.warn(
                    DiagnosticCode::ToolCallInvalid,
                    format!(
                        "messages[{i}] tool call {:?}: arguments {:?} are not a JSON object; sent as {{}}",
                        c.id, c.arguments
                    ),
                    t.segment,
                    None,
                );
                json!({})
            }
        };
        let id = tool_use_id(&c.id, i, t, sink);
        out.push(json!({"type": "tool_use", "id": id, "name": c.name, "input": input}));
    }
    out
}

fn tool_result(i: usize, t: &Turn, at: At, sink: &mut Sink) -> Vec<Json> {
    let content: Vec<Json> = t.blocks.iter().filter_map(|b| block(b, at, sink)).collect();
    match &t.tool_call_id {
        Some(id) => {
            let id = tool_use_id(id, i, t, sink);
            vec![json!({"type": "tool_result", "tool_use_id": id, "content": content})]
        }
        None => {
            sink.warn(
                DiagnosticCode::ToolCallInvalid,
                format!("messages[{i}] is a tool message without tool_call_id; sent as user text"),
                t.segment,
                None,
            );
            content
        }
    }
}

/// A tool-use id as Anthropic takes it (`^[a-zA-Z0-9_-]+$`): a recorded id that is not one (an
/// OpenAI-style `call:1`, a UUID with dots) is mapped the same way wherever it appears, so a
/// call and its result still pair: each other byte becomes `_` and its two hex digits.
fn tool_use_id(id: &str, i: usize, t: &Turn, sink: &mut Sink) -> String {
    let ok = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    if !id.is_empty() && id.bytes().all(ok) {
        return id.to_owned();
    }
    let mut mapped = String::with_capacity(id.len() + 8);
    for b in id.bytes() {
        if ok(b) {
            mapped.push(char::from(b));
        } else {
            mapped.push_str(&format!("_{b:02x}"));
        }
    }
    if mapped.is_empty() {
        mapped.push_str("toolu_empty");
    }
    sink.warn(
        DiagnosticCode::ToolCallIdMapped,
        format!(
            "messages[{i}]: tool-use id {id:?} is not one Anthropic takes (a-z, A-Z, 0-9, _ and -); sent as {mapped:?}, in the call and in its result"
        ),
        t.segment,
        None,
    );
    mapped
}
