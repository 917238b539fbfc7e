//! Gemini `generateContent` as a recorded call sent it: `systemInstruction` with one part per
//! system prompt, `user` and `model` contents, function responses in the user content they came
//! in (consecutive responses, and the user turn after them, share one content), and the
//! function declarations under the schema field the request used. The model is the URL's.

use serde_json::{json, Value as Json};

use super::{arguments_object, object, parts, Content, Message};
use crate::provider::{Block, Img};
use crate::scene::Layout;

fn image(img: &Img) -> Json {
    match img {
        Img::Inline { mime, data } => json!({"inlineData": {"mimeType": mime, "data": data}}),
        Img::Url { url, mime } => object(vec![(
            "fileData",
            Some(object(vec![
                ("mimeType", mime.as_ref().map(|m| json!(m))),
                ("fileUri", Some(json!(url))),
            ])),
        )]),
    }
}

fn gemini_parts(b: &[Block]) -> Vec<Json> {
    parts(b, |t| json!({"text": t}), image)
}

/// A function response's `response`: the tool message's text is the object's JSON text; any
/// other text goes as `{"result": text}`.
fn response(b: &[Block]) -> Json {
    let text: Vec<&str> = b
        .iter()
        .filter_map(|x| match x {
            Block::Text(t) => Some(t.as_str()),
            Block::Image(_) => None,
        })
        .collect();
    let text = text.join("\n");
    match serde_json::from_str::<Json>(&text) {
        Ok(v @ Json::Object(_)) => v,
        _ => json!({"result": text}),
    }
}

/// `POST /v1beta/models/{model}:generateContent`.
pub(super) fn generate_content(content: &Content, layout: &Layout) -> Json {
    let mut contents: Vec<(&str, Vec<Json>)> = Vec::new();
    let mut results_open = false;
    for Message { turn: t, .. } in &content.turns {
        match t.role {
            "tool" => {
                let part = json!({"functionResponse": object(vec![
                    ("id", t.tool_call_id.as_ref().map(|i| json!(i))),
                    ("name", Some(json!(t.name.clone().unwrap_or_default()))),
                    ("response", Some(response(&t.blocks))),
                ])});
                match contents.last_mut() {
                    Some((_, last)) if results_open => last.push(part),
                    _ => contents.push(("user", vec![part])),
                }
                results_open = true;
            }
            "assistant" => {
                let mut out = gemini_parts(&t.blocks);
                for c in &t.tool_calls {
                    out.push(json!({"functionCall": object(vec![
                        ("id", (!c.id.is_empty()).then(|| json!(c.id))),
                        ("name", Some(json!(c.name))),
                        ("args", Some(arguments_object(&c.arguments))),
                    ])}));
                }
                contents.push(("model", out));
                results_open = false;
            }
            _ => {
                let out = gemini_parts(&t.blocks);
                match contents.last_mut() {
                    Some((_, last)) if results_open && !out.is_empty() => last.extend(out),
                    _ => contents.push(("user", out)),
                }
                results_open = false;
            }
        }
    }
    let contents = contents
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect();
    let system = (!content.system.is_empty()).then(
        || json!({"parts": content.system.iter().map(|t| json!({"text": t})).collect::<Vec<_>>()}),
    );
    let schema_key = if layout.gemini_parameters {
        "parameters"
    } else {
        "parametersJsonSchema"
    };
    let tools = content
        .tool_list(|d| Json::Object(d.declaration(schema_key, None)))
        .map(|declarations| json!([{ "functionDeclarations": declarations }]));
    object(vec![
        ("contents", Some(Json::Array(contents))),
        ("systemInstruction", system),
        ("tools", tools),
    ])
}
