//! Ollama `POST /api/chat` (`ollama_desk`): messages with string content and the images of a
//! message as a list of base64 strings beside it; `stream: false` for one JSON answer.

use serde_json::{json, Value as Json};

use super::{without_messages, Block, DeskInput, Img, Sink};

pub(crate) fn desk(model: &str, input: &DeskInput, sink: &mut Sink) -> Json {
    let mut messages = Vec::new();
    let system = input.system_text();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system}));
    }
    let mut images = Vec::new();
    for (segment, blocks) in &input.user {
        for b in blocks {
            match b {
                Block::Image(Img::Inline { data, .. }) => images.push(json!(data)),
                Block::Image(Img::Url { url, .. }) => sink.warn(
                    "image_url_unsupported",
                    format!("the image {url:?} is left out of the request: Ollama takes images only as base64 data, not URLs"),
                    Some(segment),
                    None,
                ),
                Block::Text(_) => {}
            }
        }
    }
    let text = input.user_text();
    if !text.is_empty() || !images.is_empty() {
        let mut user = json!({"role": "user", "content": text});
        if !images.is_empty() {
            user["images"] = Json::Array(images);
        }
        messages.push(user);
    }
    if messages.is_empty() {
        // Ollama answers an empty list by loading the model, without generating anything.
        without_messages(
            sink,
            "ollama_desk",
            "every desk segment is empty",
            "Ollama only loads the model for an empty `messages` list, so one user message with empty content is sent",
        );
        messages.push(json!({"role": "user", "content": ""}));
    }
    json!({"model": model, "messages": messages, "stream": false})
}
