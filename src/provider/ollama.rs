//! Ollama `POST /api/chat` (`ollama_desk`): messages with string content and the images of a
//! message as a list of base64 strings beside it; `stream: false` for one JSON answer.

use serde_json::{json, Value as Json};

use super::{without_messages, Block, DeskInput, Img, Sink};
use crate::report::DiagnosticCode;

/// The segment whose first image is the one kept for a model that takes one image: the desk as
/// it is now, which the model acts on.
const CURRENT: &str = "current_desk_screenshot_prompt";

/// Whether the model takes at most one image per message. Ollama refuses more for the `mllama`
/// family ("this model only supports one image while more than one image requested",
/// server/prompt.go), which in its library is `llama3.2-vision`; the family of another name
/// cannot be told from the name, so only that one is known here.
fn one_image_per_message(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model);
    let name = name.split(':').next().unwrap_or(name);
    name == "llama3.2-vision"
}

pub(crate) fn desk(model: &str, input: &DeskInput, sink: &mut Sink) -> Json {
    let mut messages = Vec::new();
    let system = input.system_text();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system}));
    }
    // (segment, its n-th image, the base64 data)
    let mut images: Vec<(&'static str, usize, &str)> = Vec::new();
    for (segment, blocks) in &input.user {
        let mut n = 0;
        for b in blocks {
            match b {
                Block::Image(Img::Inline { data, .. }) => {
                    images.push((segment, n, data));
                    n += 1;
                }
                Block::Image(Img::Url { url, .. }) => sink.warn(
                    DiagnosticCode::ImageUrlUnsupported,
                    format!("the image {url:?} is left out of the request: Ollama takes images only as base64 data, not URLs"),
                    Some(segment),
                    None,
                ),
                Block::Text(_) => {}
            }
        }
    }
    if images.len() > 1 && one_image_per_message(model) {
        images = one_image(images, model, sink);
    }
    let text = input.user_text();
    if !text.is_empty() || !images.is_empty() {
        let mut user = json!({"role": "user", "content": text});
        if !images.is_empty() {
            user["images"] = images.iter().map(|(_, _, data)| json!(data)).collect();
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

/// The one image sent to a model that takes one: the first of `current_desk_screenshot_prompt`,
/// or else the last (the latest view of the desk); the others are reported as left out.
fn one_image<'a>(
    images: Vec<(&'static str, usize, &'a str)>,
    model: &str,
    sink: &mut Sink,
) -> Vec<(&'static str, usize, &'a str)> {
    let keep = images
        .iter()
        .position(|(segment, _, _)| *segment == CURRENT)
        .unwrap_or(images.len() - 1);
    let (kept_segment, kept_n, _) = images[keep];
    for (i, (segment, n, _)) in images.iter().enumerate() {
        if i != keep {
            sink.warn(
                DiagnosticCode::ImagesOverModelLimit,
                format!(
                    "image {n} of {segment} is left out of the request: {model} takes one image per message (Ollama's mllama models), and the one sent is image {kept_n} of {kept_segment}"
                ),
                Some(segment),
                None,
            );
        }
    }
    vec![images[keep]]
}
