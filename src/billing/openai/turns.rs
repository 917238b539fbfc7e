//! A chat or Responses request reduced to what the model reads, before framing: messages,
//! tool calls and results, carried reasoning, tool definitions and the output format.

use serde_json::Value as Json;

use super::formats::FormatText;
use super::prompt::{digest, Piece};
use crate::billing::image::{self, ImageRef};
use crate::billing::PartKind;
use crate::usage::{Api, Provenance};

/// One turn of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Turn {
    /// A message with text and images; `name` is chat's author name, `commentary` marks an
    /// assistant message of the Responses `commentary` phase.
    Message {
        role: String,
        name: Option<String>,
        commentary: bool,
        pieces: Vec<Piece>,
    },
    /// An assistant call of a function; `parallel` when it is one of several the assistant
    /// made at once.
    Call {
        name: String,
        arguments: String,
        pointer: String,
        parallel: bool,
    },
    /// A function's result; `chat` when it came as a chat `tool` message.
    Result {
        name: String,
        pieces: Vec<Piece>,
        chat: bool,
    },
    /// Reasoning carried from an earlier response (its text is encrypted: `tokens` is an
    /// estimate); `id` tells items apart in canonical text.
    Reasoning {
        pointer: String,
        tokens: usize,
        id: String,
    },
}

/// A request, reduced.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Turns<'a> {
    pub turns: Vec<Turn>,
    /// Function tools: `(pointer, {name, description, parameters})`.
    pub tools: Vec<(String, &'a Json)>,
    /// The structured-output section and where the format is.
    pub format: Option<(String, FormatText)>,
    /// Bounds (percent) of the pieces whose billing is not known exactly.
    pub estimates: Vec<f64>,
}

/// Measured bounds (percent of the billed input) for what cannot be counted exactly; each is
/// the largest error seen on the corpus for that kind (docs/models.md).
pub(crate) mod bound {
    /// A PDF or other file: its text and page images are billed, and neither is read here.
    pub const FILE: f64 = 100.0;
    /// Audio input.
    pub const AUDIO: f64 = 100.0;
    /// An input item or content part of a kind not modelled: counted as its JSON text.
    pub const UNKNOWN_ITEM: f64 = 50.0;
    /// Several tool calls in one assistant turn (rendered one message each; one recorded call
    /// was billed 3% over that).
    pub const PARALLEL_CALLS: f64 = 5.0;
    /// A strict chat structured-output schema (recorded: 4 tokens, 3.1% and 4.6%, over the
    /// rendering that is exact for non-strict ones).
    pub const STRICT_CHAT_FORMAT: f64 = 5.0;
    /// A non-strict Responses output schema (none recorded).
    pub const FORMAT: f64 = 10.0;
    /// A tool schema with `$ref`, `anyOf`, multi-line property descriptions or deep nesting
    /// (recorded: up to 29% off on `$defs` schemas).
    pub const COMPLEX_SCHEMA: f64 = 30.0;
    /// Reasoning carried in a Responses request, estimated from its encrypted size.
    pub const REASONING: f64 = 30.0;
    /// A GPT-5.x model newer than GPT-5 with tools (gpt-5.4-mini billed 30% over GPT-5's tool
    /// rendering).
    pub const NEWER_TOOLS: f64 = 35.0;
    /// An output schema on a GPT-5.x model newer than GPT-5 (gpt-5.4-mini: 1 token, 1.4%, over).
    pub const NEWER_FORMAT: f64 = 5.0;
    /// A Responses tool with neither a description nor parameters (recorded four times on
    /// gpt-4o, billed 1 or 2 tokens, up to 3%, under its rendering, which is exact for the same
    /// tool in chat).
    pub const BARE_RESPONSES_TOOL: f64 = 5.0;
    /// GPT-5 tools with no system or developer message to join (recorded once: 2 tokens, 4%,
    /// under the rendering that is exact when instructions are present).
    pub const HARMONY_TOOLS_ALONE: f64 = 5.0;
    /// A model that is not OpenAI's: OpenAI's framing and `o200k_base` are a guess.
    pub const FOREIGN: f64 = 25.0;
}

/// A content part that is not text: an image (priced by `billing::image`), or a file or audio
/// (an estimate).
pub(crate) fn media_piece(
    api: Api,
    model: &str,
    part: &Json,
    pointer: String,
    estimates: &mut Vec<f64>,
) -> Piece {
    let kind = part.get("type").and_then(Json::as_str).unwrap_or("");
    match kind {
        "image_url" | "input_image" => {
            let (url, detail) = image_source(part);
            let size = url
                .and_then(|u| u.strip_prefix("data:"))
                .and_then(|d| d.split_once(','))
                .and_then(|(_, data)| image::pixel_size_base64(data));
            let (tokens, provenance) = image::tokens(
                api,
                model,
                &ImageRef {
                    size,
                    detail,
                    ..Default::default()
                },
            );
            if let Provenance::Estimate { bound_percent }
            | Provenance::Calibrated { bound_percent, .. } = provenance
            {
                estimates.push(bound_percent);
            }
            let id = digest(url.unwrap_or_default().as_bytes());
            let canonical = format!("<image {id} {}>", detail.unwrap_or("auto"));
            Piece::opaque(PartKind::Image, pointer, tokens, canonical)
        }
        "file" | "input_file" => {
            estimates.push(bound::FILE);
            let file = part.get("file").unwrap_or(part);
            let id = ["file_data", "file_id", "file_url"]
                .iter()
                .find_map(|k| file.get(*k).and_then(Json::as_str))
                .unwrap_or_default();
            Piece::opaque(
                PartKind::Message,
                pointer,
                0,
                format!("<file {}>", digest(id.as_bytes())),
            )
        }
        "input_audio" => {
            estimates.push(bound::AUDIO);
            Piece::opaque(PartKind::Message, pointer, 0, "<audio>".to_owned())
        }
        _ => {
            estimates.push(bound::UNKNOWN_ITEM);
            Piece::text(PartKind::Message, pointer, part.to_string())
        }
    }
}

/// An image part's URL (data URL or web address) and `detail`, in chat's
/// (`image_url: {url, detail}`) or Responses' (`image_url: "...", detail`) shape.
fn image_source(part: &Json) -> (Option<&str>, Option<&str>) {
    match part.get("image_url") {
        Some(Json::Object(o)) => (
            o.get("url").and_then(Json::as_str),
            o.get("detail").and_then(Json::as_str),
        ),
        Some(Json::String(url)) => (
            Some(url.as_str()),
            part.get("detail").and_then(Json::as_str),
        ),
        _ => (None, part.get("detail").and_then(Json::as_str)),
    }
}

/// Tool-call arguments as the model is shown them: JSON re-serialized compactly in its own key
/// order (a recorded GPT-3.5 call with spaced arguments was billed as the compact text);
/// arguments that are not JSON as sent.
pub(crate) fn compact_arguments(arguments: &str) -> String {
    serde_json::from_str::<Json>(arguments)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| arguments.to_owned())
}

/// Tokens of reasoning carried as `encrypted_content`: the ciphertext grows about 3.6 bytes per
/// reasoning token over about 700 bytes of envelope (fitted on a recorded GPT-5 call that
/// carried 1,792 reasoning tokens in 7,120 bytes; docs/models.md).
pub(crate) fn reasoning_tokens(encrypted: &str) -> usize {
    const ENVELOPE: usize = 700;
    const BYTES_PER_TOKEN: f64 = 3.6;
    // Fernet: base64url of version (1) + time (8) + IV (16) + ciphertext + HMAC (32).
    let bytes = encrypted.trim_end_matches('=').len() * 3 / 4;
    let ciphertext = bytes.saturating_sub(57);
    (ciphertext.saturating_sub(ENVELOPE) as f64 / BYTES_PER_TOKEN).round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_compacted_in_their_own_order() {
        assert_eq!(
            compact_arguments("{\"b\": 1,\n  \"a\": \"x y\"}"),
            "{\"b\":1,\"a\":\"x y\"}"
        );
        assert_eq!(compact_arguments("not json"), "not json");
    }

    #[test]
    fn reasoning_size_estimate() {
        // 9,572 base64 characters carried 1,792 reasoning tokens (pydantic-ai
        // test_openai_responses_thinking_with_tool_calls): the estimate is within 1%.
        let encrypted = "A".repeat(9572);
        let tokens = reasoning_tokens(&encrypted);
        assert!((1770..=1810).contains(&tokens), "{tokens}");
        assert_eq!(reasoning_tokens("gAAAAA"), 0);
    }

    #[test]
    fn image_sources_in_both_shapes() {
        let chat = serde_json::json!({"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}});
        assert_eq!(image_source(&chat), (Some("https://x/y.png"), Some("low")));
        let responses = serde_json::json!({"type": "input_image", "image_url": "data:image/png;base64,AA", "detail": "high"});
        assert_eq!(
            image_source(&responses),
            (Some("data:image/png;base64,AA"), Some("high"))
        );
    }
}
