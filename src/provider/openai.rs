//! OpenAI's request shapes, and the OpenAI-compatible ones: the Responses API (`openai_desk`),
//! chat completions (`sglang_desk`, `deepseek_desk`, `tencent_ds_desk`, the `openai` chat
//! provider) and the legacy completions prompt (`openai_gen_desk`).

use serde_json::{json, Map, Value as Json};

use super::{join_blank, texts_only, without_messages, Block, DeskInput, Sink, Turn};
use crate::report::DiagnosticCode;

/// `POST /v1/responses`: the instruction side is `instructions`, the rest one user input message
/// of `input_text` / `input_image` parts.
pub(crate) fn responses(model: &str, input: &DeskInput, who: &str, sink: &mut Sink) -> Json {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let instructions = input.system_text();
    if !instructions.is_empty() {
        body.insert("instructions".into(), json!(instructions));
    }
    let content: Vec<Json> = user_blocks(input)
        .map(|b| match b {
            Block::Text(t) => json!({"type": "input_text", "text": t}),
            // `detail` is required by the Responses schema; strict compatible servers refuse an
            // image without it. `auto` is what the API assumes when it is left out.
            Block::Image(img) => {
                json!({"type": "input_image", "image_url": img.as_url(), "detail": "auto"})
            }
        })
        .collect();
    let items = if content.is_empty() {
        // The Responses schema puts no lower bound on the input list, so it goes as it is.
        let then = if instructions.is_empty() {
            "there are no instructions either, so the model is given nothing"
        } else {
            "the model answers from `instructions` alone"
        };
        without_messages(
            sink,
            who,
            "the desk segments of the user turn are empty",
            &format!(
                "sent `input: []`, which the Responses API takes (its schema sets no minimum length); {then}"
            ),
        );
        Vec::new()
    } else {
        vec![json!({"role": "user", "content": content})]
    };
    body.insert("input".into(), Json::Array(items));
    Json::Object(body)
}

fn user_blocks(input: &DeskInput) -> impl Iterator<Item = &Block> {
    input.user.iter().flat_map(|(_, blocks)| blocks.iter())
}

/// A chat-completions content part.
fn part(b: &Block) -> Json {
    match b {
        Block::Text(t) => json!({"type": "text", "text": t}),
        Block::Image(img) => json!({"type": "image_url", "image_url": {"url": img.as_url()}}),
    }
}

fn system_message(input: &DeskInput) -> Option<Json> {
    let text = input.system_text();
    (!text.is_empty()).then(|| json!({"role": "system", "content": text}))
}

/// Chat completions for a vision model (`sglang_desk`, `deepseek_desk` with a model that takes
/// images): a system message, then one user message of text and `image_url` parts.
pub(crate) fn chat_desk(model: &str, input: &DeskInput, who: &str, sink: &mut Sink) -> Json {
    let mut messages: Vec<Json> = system_message(input).into_iter().collect();
    let content: Vec<Json> = user_blocks(input).map(part).collect();
    if !content.is_empty() {
        messages.push(json!({"role": "user", "content": content}));
    }
    at_least_one_message(&mut messages, who, sink);
    json!({"model": model, "messages": messages})
}

/// Chat completions for a text-only model (`deepseek_desk`, `tencent_ds_desk`): a system message
/// and one user message, both plain strings (images were dropped while gathering).
pub(crate) fn chat_desk_text(model: &str, input: &DeskInput, who: &str, sink: &mut Sink) -> Json {
    let mut messages: Vec<Json> = system_message(input).into_iter().collect();
    let text = input.user_text();
    if !text.is_empty() {
        messages.push(json!({"role": "user", "content": text}));
    }
    at_least_one_message(&mut messages, who, sink);
    json!({"model": model, "messages": messages})
}

/// Chat completions takes at least one message (`messages` has `minItems: 1` in OpenAI's
/// schema); a user message with empty content is the one that adds no text to the prompt.
fn at_least_one_message(messages: &mut Vec<Json>, who: &str, sink: &mut Sink) {
    if messages.is_empty() {
        without_messages(
            sink,
            who,
            "every desk segment is empty",
            "chat completions requires at least one message, so one user message with empty content is sent",
        );
        messages.push(json!({"role": "user", "content": ""}));
    }
}

/// `POST /v1/completions` (`openai_gen_desk`): all seven segments, in order, as one prompt, so
/// `prefix_prompt` is the text the completion continues from.
pub(crate) fn completion(model: &str, input: &DeskInput, sink: &mut Sink) -> Json {
    let system = input.system.iter().map(|(_, t)| t.as_str());
    let prompt = join_blank(system.chain(std::iter::once(input.user_text().as_str())));
    if prompt.is_empty() {
        sink.warn(
            DiagnosticCode::RequestWithoutMessages,
            "openai_gen_desk: every desk segment is empty, so the prompt is \"\"; sent as it is: the completions API takes an empty prompt, and the model continues from the start of a document".to_owned(),
            None,
            None,
        );
    }
    json!({"model": model, "prompt": prompt, "max_tokens": COMPLETION_MAX_TOKENS})
}

/// The legacy completions API stops after 16 tokens unless told otherwise, too few for a desk
/// action; this is the body's value.
pub const COMPLETION_MAX_TOKENS: u32 = 1024;

/// Chat completions from a chat report's messages: roles kept, images as `image_url` parts in
/// user messages, tool calls as `{id, type: function, function: {name, arguments}}`.
pub(crate) fn chat(model: &str, turns: &[Turn], sink: &mut Sink) -> Json {
    let mut messages = Vec::with_capacity(turns.len());
    for (i, t) in turns.iter().enumerate() {
        let mut m = Map::new();
        m.insert("role".into(), json!(t.role));
        let content = if t.role == "user" {
            match t.blocks.as_slice() {
                [Block::Text(s)] => json!(s),
                [] => json!(""),
                blocks => Json::Array(blocks.iter().map(part).collect()),
            }
        } else {
            let texts = texts_only(i, t, "OpenAI chat completions", sink);
            if texts.is_empty() && !t.tool_calls.is_empty() {
                // An assistant message that only calls tools has null content.
                Json::Null
            } else {
                json!(texts.join("\n"))
            }
        };
        m.insert("content".into(), content);
        if let Some(name) = &t.name {
            m.insert("name".into(), json!(name));
        }
        if let Some(id) = &t.tool_call_id {
            m.insert("tool_call_id".into(), json!(id));
        }
        if !t.tool_calls.is_empty() {
            let calls: Vec<Json> = t
                .tool_calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                           "function": {"name": c.name, "arguments": c.arguments}})
                })
                .collect();
            m.insert("tool_calls".into(), Json::Array(calls));
        }
        messages.push(Json::Object(m));
    }
    json!({"model": model, "messages": messages})
}
