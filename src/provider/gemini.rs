//! Gemini `generateContent` (`gemini_desk`). The model is part of the URL
//! (`POST /v1beta/models/{model}:generateContent`), not of the body, so the body names none.

use serde_json::{json, Map, Value as Json};

use super::{without_messages, Block, DeskInput, Img, Sink, PLACEHOLDER_TEXT};
use crate::report::DiagnosticCode;

/// `systemInstruction` with one text part per instruction-side segment; `contents` with one
/// `user` turn of text, `inlineData` and `fileData` parts.
pub(crate) fn desk(input: &DeskInput, sink: &mut Sink) -> Json {
    let mut body = Map::new();
    if !input.system.is_empty() {
        let parts: Vec<Json> = input
            .system
            .iter()
            .map(|(_, t)| json!({"text": t}))
            .collect();
        body.insert("systemInstruction".into(), json!({"parts": parts}));
    }
    let mut parts = Vec::new();
    for (segment, blocks) in &input.user {
        for b in blocks {
            match b {
                Block::Text(t) => parts.push(json!({"text": t})),
                Block::Image(Img::Inline { mime, data }) => {
                    parts.push(json!({"inlineData": {"mimeType": mime, "data": data}}))
                }
                Block::Image(Img::Url { url, mime: Some(mime) }) => {
                    parts.push(json!({"fileData": {"mimeType": mime, "fileUri": url}}))
                }
                Block::Image(Img::Url { url, mime: None }) => sink.warn(
                    DiagnosticCode::ImageTypeUnknown,
                    format!("the image {url:?} is left out of the request: Gemini's fileData needs a mimeType; give the part a mime_type"),
                    Some(segment),
                    None,
                ),
            }
        }
    }
    if parts.is_empty() {
        without_messages(
            sink,
            "gemini_desk",
            "the desk segments of the user turn are empty",
            &format!(
                "generateContent requires `contents` with at least one turn, so one user turn of the text {PLACEHOLDER_TEXT:?} is sent"
            ),
        );
        parts.push(json!({"text": PLACEHOLDER_TEXT}));
    }
    let contents = vec![json!({"role": "user", "parts": parts})];
    body.insert("contents".into(), Json::Array(contents));
    Json::Object(body)
}
