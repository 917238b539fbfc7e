//! A chat report's messages as a Gemini `generateContent` body: what a chat call is priced on for
//! a Gemini model (`pricing::request`). docs/providers.md, "Gemini", has the shape.
//!
//! Leading system messages become `systemInstruction`; a later one (Gemini has no system role in
//! `contents`) is a text part of a user turn at its place. Assistant turns are role `model`, their
//! tool calls `functionCall` parts; a tool result is a `functionResponse` part of a user turn,
//! named after the call it answers. Consecutive turns of one role are merged into one content,
//! as the API wants roles to alternate.

use std::collections::HashMap;

use serde_json::{json, Map, Value as Json};

use super::{texts_only, without_messages, Block, Img, Sink, Turn, PLACEHOLDER_TEXT};
use crate::report::DiagnosticCode;

pub(crate) fn chat(turns: &[Turn], sink: &mut Sink) -> Json {
    let lead = turns.iter().take_while(|t| t.role == "system").count();
    let mut system = Vec::new();
    for (i, t) in turns[..lead].iter().enumerate() {
        let text = texts_only(i, t, "Gemini's systemInstruction", sink).join("\n");
        if !text.trim().is_empty() {
            system.push(json!({"text": text}));
        }
    }
    // A tool result names the function it answers; the call is found by its id.
    let names: HashMap<&str, &str> = turns
        .iter()
        .flat_map(|t| t.tool_calls.iter())
        .map(|c| (c.id.as_str(), c.name.as_str()))
        .collect();
    let mut contents: Vec<(&'static str, Vec<Json>)> = Vec::new();
    for (i, t) in turns.iter().enumerate().skip(lead) {
        let (role, parts) = match t.role {
            "assistant" => ("model", model_parts(i, t, sink)),
            "tool" => ("user", vec![function_response(t, &names)]),
            _ => (
                "user",
                t.blocks.iter().filter_map(|b| part(b, t, sink)).collect(),
            ),
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((last, all)) if *last == role => all.extend(parts),
            _ => contents.push((role, parts)),
        }
    }
    if contents.is_empty() {
        without_messages(
            sink,
            "a Gemini chat request",
            "no message after the leading system messages has content",
            &format!(
                "generateContent requires `contents` with at least one turn, so one user turn of the text {PLACEHOLDER_TEXT:?} is sent"
            ),
        );
        contents.push(("user", vec![json!({"text": PLACEHOLDER_TEXT})]));
    }
    let mut body = Map::new();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": system}));
    }
    let contents = contents
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect();
    body.insert("contents".into(), Json::Array(contents));
    Json::Object(body)
}

/// A text, `inlineData` or `fileData` part; `None` for empty text and for a URL image whose type
/// is unknown (Gemini's `fileData` needs one: reported).
fn part(b: &Block, t: &Turn, sink: &mut Sink) -> Option<Json> {
    match b {
        Block::Text(s) if s.is_empty() => None,
        Block::Text(s) => Some(json!({"text": s})),
        Block::Image(Img::Inline { mime, data }) => {
            Some(json!({"inlineData": {"mimeType": mime, "data": data}}))
        }
        Block::Image(Img::Url {
            url,
            mime: Some(mime),
        }) => Some(json!({"fileData": {"mimeType": mime, "fileUri": url}})),
        Block::Image(Img::Url { url, mime: None }) => {
            sink.warn(
                DiagnosticCode::ImageTypeUnknown,
                format!("the image {url:?} is left out of the Gemini request: its fileData needs a mimeType; give the part a mime_type"),
                t.segment,
                None,
            );
            None
        }
    }
}

fn model_parts(i: usize, t: &Turn, sink: &mut Sink) -> Vec<Json> {
    let mut out: Vec<Json> = texts_only(i, t, "Gemini", sink)
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(|s| json!({"text": s}))
        .collect();
    for c in &t.tool_calls {
        // Gemini takes the arguments as an object; text that is not one goes as `{}`, as the
        // Anthropic body sends it.
        let args = match serde_json::from_str::<Json>(&c.arguments) {
            Ok(v @ Json::Object(_)) => v,
            _ => json!({}),
        };
        out.push(json!({"functionCall": {"name": c.name, "args": args}}));
    }
    out
}

/// `{functionResponse: {name, response}}`: the result as an object when it is one, else under
/// `output`, the key Gemini's documentation gives a function's output.
fn function_response(t: &Turn, names: &HashMap<&str, &str>) -> Json {
    let text: Vec<&str> = t
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(s) => Some(s.as_str()),
            Block::Image(_) => None,
        })
        .collect();
    let text = text.join("\n");
    let name = t
        .tool_call_id
        .as_deref()
        .and_then(|id| names.get(id).copied())
        .or(t.name.as_deref())
        .unwrap_or("");
    let response = match serde_json::from_str::<Json>(&text) {
        Ok(v @ Json::Object(_)) => v,
        _ => json!({"output": text}),
    };
    json!({"functionResponse": {"name": name, "response": response}})
}
