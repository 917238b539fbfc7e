//! A chat or Responses request reduced to what the model reads, before framing: messages,
//! tool calls and results, carried reasoning, tool definitions and the output format.

use serde_json::Value as Json;

use super::formats::FormatText;
use super::prompt::{digest, Piece};
use crate::billing::image::{self, ImageRef, Margin};
use crate::billing::PartKind;
use crate::usage::Api;

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
    /// What is not known exactly.
    pub estimates: Estimates,
}

/// What a count is not sure of.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Estimates {
    /// Bounds in percent of the billed input, one per thing estimated.
    pub bounds: Vec<f64>,
    /// How far the images' counts can be off in all (`billing::image` states each one's bound
    /// in percent of its own figure).
    pub images: Margin,
}

impl Estimates {
    pub fn bound(&mut self, percent: f64) {
        self.bounds.push(percent);
    }
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
    /// GPT-5 tool calls and results, framed as OpenAI's harmony guide shows: no recorded body
    /// has them without something else estimated.
    pub const HARMONY_CALLS: f64 = 10.0;
    /// Tools on an `o`-series model (none recorded; GPT-4o's rendering is used).
    pub const O_SERIES_TOOLS: f64 = 5.0;
    /// A model that is not OpenAI's: OpenAI's framing and `o200k_base` are a guess.
    pub const FOREIGN: f64 = 25.0;
}

/// How a request's message contents become pieces.
pub(crate) struct Content<'a> {
    pub api: Api,
    pub model: &'a str,
    /// The TTL of the request's explicit cache breakpoints.
    pub ttl: &'a str,
}

impl Content<'_> {
    /// A message's content: a string, or parts whose texts are joined as they are and whose
    /// images and files are pieces of their own. A missing content is an empty text in chat
    /// and nothing in Responses.
    pub fn pieces(
        &self,
        content: Option<&Json>,
        at: &str,
        role: &str,
        estimates: &mut Estimates,
    ) -> Vec<Piece> {
        let kind = match role {
            "system" | "developer" => PartKind::System,
            _ => PartKind::Message,
        };
        match content {
            Some(Json::String(text)) => {
                vec![Piece::text(kind, format!("{at}/content"), text.clone())]
            }
            Some(Json::Array(parts)) => parts
                .iter()
                .enumerate()
                .map(|(j, part)| {
                    let pointer = format!("{at}/content/{j}");
                    let piece = match part_text(part) {
                        Some(text) => Piece::text(kind, pointer, text),
                        None => media_piece(self.api, self.model, part, pointer, estimates),
                    };
                    with_breakpoint(piece, part, self.ttl)
                })
                .collect(),
            _ if self.api == Api::OpenaiChat => {
                vec![Piece::text(kind, format!("{at}/content"), "")]
            }
            _ => Vec::new(),
        }
    }
}

/// The text of a text-like part (`text`, `refusal`, and Responses' `input_text`,
/// `output_text`).
pub(crate) fn part_text(part: &Json) -> Option<String> {
    match part {
        Json::String(s) => Some(s.clone()),
        _ => {
            let kind = part.get("type").and_then(Json::as_str).unwrap_or("text");
            match kind {
                "text" | "input_text" | "output_text" | "summary_text" | "reasoning_text" => {
                    part.get("text").and_then(Json::as_str).map(str::to_owned)
                }
                "refusal" => part
                    .get("refusal")
                    .and_then(Json::as_str)
                    .map(str::to_owned),
                _ => None,
            }
        }
    }
}

/// A content part that is not text: an image (priced by `billing::image`), or a file or audio
/// (an estimate).
fn media_piece(
    api: Api,
    model: &str,
    part: &Json,
    pointer: String,
    estimates: &mut Estimates,
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
            estimates.images.add(tokens, &provenance);
            let id = digest(url.unwrap_or_default().as_bytes());
            let canonical = format!("<image {id} {}>", detail.unwrap_or("auto"));
            Piece::opaque(PartKind::Image, pointer, tokens, canonical)
        }
        "file" | "input_file" => {
            estimates.bound(bound::FILE);
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
            estimates.bound(bound::AUDIO);
            Piece::opaque(PartKind::Message, pointer, 0, "<audio>".to_owned())
        }
        _ => {
            estimates.bound(bound::UNKNOWN_ITEM);
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

/// The TTL of the request's explicit cache breakpoints (`prompt_cache_options.ttl`; OpenAI's
/// default retention, `in_memory`, when it names none).
pub(crate) fn breakpoint_ttl(body: &Json) -> String {
    body.get("prompt_cache_options")
        .and_then(|o| o.get("ttl"))
        .and_then(Json::as_str)
        .unwrap_or("in_memory")
        .to_owned()
}

/// `piece` with the breakpoint `part` marks after it (`prompt_cache_breakpoint`), if any.
fn with_breakpoint(mut piece: Piece, part: &Json, ttl: &str) -> Piece {
    if part
        .get("prompt_cache_breakpoint")
        .is_some_and(Json::is_object)
    {
        piece.breakpoint = Some(ttl.to_owned());
    }
    piece
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
