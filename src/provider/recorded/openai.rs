//! OpenAI's two request shapes as a recorded call sent them: chat completions (one system
//! message per system prompt, content a string when it is one text) and Responses (`instructions`
//! or leading system messages, message and function-call items, function tools without the
//! `strict: false` the inspector's own Responses body adds).

use serde_json::{json, Map, Value as Json};

use super::{object, string_or_parts, Content, Message};
use crate::provider::{Block, Img, Turn};
use crate::scene::Layout;

fn chat_part(b: &Block) -> Json {
    match b {
        Block::Text(t) => json!({"type": "text", "text": t}),
        Block::Image(img) => json!({"type": "image_url", "image_url": {"url": img.as_url()}}),
    }
}

/// `POST /v1/chat/completions`.
pub(super) fn chat(model: &str, content: &Content) -> Json {
    let listed = content.system_listed == Some(true);
    let mut messages: Vec<Json> = content
        .system
        .iter()
        .map(|t| {
            let text = if listed {
                json!([{"type": "text", "text": t}])
            } else {
                json!(t)
            };
            json!({"role": "system", "content": text})
        })
        .collect();
    for Message { turn: t, listed } in &content.turns {
        // An assistant turn that only calls tools, held as an empty list of parts (as the
        // OpenTelemetry conventions record it): chat completions takes no empty list, so `null`.
        let body = if t.role == "assistant"
            && t.blocks.is_empty()
            && *listed
            && !t.tool_calls.is_empty()
        {
            Json::Null
        } else {
            string_or_parts(
                &t.blocks,
                *listed,
                |s| chat_part(&Block::Text(s.to_owned())),
                |i| chat_part(&Block::Image(i.clone())),
            )
        };
        let calls = (!t.tool_calls.is_empty()).then(|| {
            Json::Array(
                t.tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": c.arguments}})
                    })
                    .collect(),
            )
        });
        messages.push(object(vec![
            ("role", Some(json!(t.role))),
            ("content", Some(body)),
            ("name", t.name.as_ref().map(|n| json!(n))),
            ("tool_call_id", t.tool_call_id.as_ref().map(|n| json!(n))),
            ("tool_calls", calls),
        ]));
    }
    let tools = content
        .tool_list(|d| json!({"type": "function", "function": d.declaration("parameters", None)}));
    object(vec![
        ("model", Some(json!(model))),
        ("messages", Some(Json::Array(messages))),
        ("tools", tools),
    ])
}

fn input_part(b: &Block, role: &str) -> Json {
    match b {
        Block::Text(t) if role == "assistant" => json!({"type": "output_text", "text": t}),
        Block::Text(t) => json!({"type": "input_text", "text": t}),
        Block::Image(img) => json!({"type": "input_image", "image_url": img.as_url()}),
    }
}

fn responses_content(t: &Turn, listed: bool) -> Json {
    string_or_parts(
        &t.blocks,
        listed,
        |s| input_part(&Block::Text(s.to_owned()), t.role),
        |i: &Img| input_part(&Block::Image(i.clone()), t.role),
    )
}

/// `POST /v1/responses`.
pub(super) fn responses(model: &str, content: &Content, layout: &Layout) -> Json {
    let mut input = Vec::new();
    let instructions = if layout.system_in_input {
        let listed = content.system_listed == Some(true);
        input.extend(content.system.iter().map(|t| {
            let text = if listed {
                json!([{"type": "input_text", "text": t}])
            } else {
                json!(t)
            };
            json!({"role": "system", "content": text})
        }));
        None
    } else {
        (!content.system.is_empty()).then(|| json!(content.system.join("\n")))
    };
    for Message { turn: t, listed } in &content.turns {
        match t.role {
            "tool" => {
                let output = string_or_parts(
                    &t.blocks,
                    *listed,
                    |s| input_part(&Block::Text(s.to_owned()), "tool"),
                    |i: &Img| input_part(&Block::Image(i.clone()), "tool"),
                );
                input.push(json!({
                    "type": "function_call_output",
                    "call_id": t.tool_call_id.clone().unwrap_or_default(),
                    "output": output,
                }));
            }
            role => {
                // An assistant turn that only calls tools is its function calls alone.
                if !(role == "assistant" && t.blocks.is_empty() && !t.tool_calls.is_empty()) {
                    input.push(json!({"role": role, "content": responses_content(t, *listed)}));
                }
                for c in &t.tool_calls {
                    input.push(json!({"type": "function_call", "call_id": c.id,
                                      "name": c.name, "arguments": c.arguments}));
                }
            }
        }
    }
    let input = match input.as_slice() {
        [only] if layout.input_string && only.get("role") == Some(&json!("user")) => only
            .get("content")
            .filter(|c| c.is_string())
            .cloned()
            .unwrap_or_else(|| Json::Array(input.clone())),
        _ => Json::Array(input),
    };
    let tools = content.tool_list(|d| {
        let mut tool = Map::from_iter([("type".to_owned(), json!("function"))]);
        tool.extend(d.declaration("parameters", None));
        Json::Object(tool)
    });
    object(vec![
        ("model", Some(json!(model))),
        ("instructions", instructions),
        ("input", Some(input)),
        ("tools", tools),
    ])
}
