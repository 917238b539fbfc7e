//! Anthropic Messages as a recorded call sent it: one `system` block per system prompt, each turn
//! its own message, tool results in the user message they came in (consecutive results, and the
//! user turn after them, share one message), a system message between the turns sent as one
//! (Anthropic's beta endpoint takes them), and `max_tokens` as recorded.

use serde_json::{json, Map, Value as Json};

use super::{arguments_object, object, parts, string_or_parts, Content, Message};
use crate::provider::{Block, Img};

fn image(img: &Img) -> Json {
    match img {
        Img::Inline { mime, data } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
        }
        Img::Url { url, .. } => json!({"type": "image", "source": {"type": "url", "url": url}}),
    }
}

fn blocks(b: &[Block]) -> Vec<Json> {
    parts(b, |t| json!({"type": "text", "text": t}), image)
}

/// `POST /v1/messages`.
pub(super) fn messages(model: &str, content: &Content, params: &Map<String, Json>) -> Json {
    let system = match (content.system.as_slice(), content.system_listed) {
        ([only], Some(false)) => Some(json!(only)),
        ([], Some(true)) => Some(json!([])),
        ([], _) => None,
        (texts, _) => Some(Json::Array(
            texts
                .iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect(),
        )),
    };
    let mut messages: Vec<(&str, Json)> = Vec::new();
    // Whether the last message is a user message of tool results that a user turn may join.
    let mut results_open = false;
    for Message { turn: t, listed } in &content.turns {
        let text = |listed: bool| {
            string_or_parts(
                &t.blocks,
                listed,
                |s| json!({"type": "text", "text": s}),
                image,
            )
        };
        match t.role {
            "tool" => {
                let result = json!({
                    "type": "tool_result",
                    "tool_use_id": t.tool_call_id.clone().unwrap_or_default(),
                    "content": text(*listed),
                });
                match messages.last_mut() {
                    Some((_, Json::Array(last))) if results_open => last.push(result),
                    _ => messages.push(("user", json!([result]))),
                }
                results_open = true;
            }
            "assistant" => {
                let body = if t.tool_calls.is_empty() {
                    text(*listed)
                } else {
                    let mut out = blocks(&t.blocks);
                    for c in &t.tool_calls {
                        out.push(json!({"type": "tool_use", "id": c.id, "name": c.name,
                                        "input": arguments_object(&c.arguments)}));
                    }
                    Json::Array(out)
                };
                messages.push(("assistant", body));
                results_open = false;
            }
            role => {
                // A user turn with nothing of its own in the scene kept its place for what was
                // carried from it: it is a message of its own.
                match messages.last_mut() {
                    Some((_, Json::Array(last)))
                        if results_open && role == "user" && !t.blocks.is_empty() =>
                    {
                        last.extend(blocks(&t.blocks))
                    }
                    _ => messages.push((
                        if role == "system" { "system" } else { "user" },
                        text(*listed),
                    )),
                }
                results_open = false;
            }
        }
    }
    let messages = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let max_tokens =
        (!params.contains_key("max_tokens")).then(|| json!(crate::provider::anthropic::MAX_TOKENS));
    object(vec![
        ("model", Some(json!(model))),
        ("max_tokens", max_tokens),
        ("system", system),
        ("messages", Some(Json::Array(messages))),
        (
            "tools",
            content.tool_list(|d| {
                Json::Object(d.declaration("input_schema", Some(json!({"type": "object"}))))
            }),
        ),
    ])
}
