//! Provider request bodies: what would actually be sent. The 8 DeskLLM adapters of TFRobot shape
//! the 7 rendered desk segments into their provider's request; a chat report's messages become an
//! OpenAI chat-completions or Anthropic Messages body. docs/providers.md has the table of where
//! each segment goes and the provider facts it rests on.
//!
//! Everything goes through one provider-neutral form first ([`Block`], [`Turn`]), so images are
//! read and checked once and each API family's file only decides the JSON shape.

mod anthropic;
mod chat;
mod desk;
mod gemini;
mod gemini_chat;
pub mod image;
mod limits;
mod ollama;
mod openai;
mod recorded;
mod tools;

use serde_json::Value as Json;

pub use image::{Img, MAX_IMAGE_BYTES};
pub(crate) use recorded::build as build_recorded;
pub use recorded::{recorded_request, RecordedError, RecordedRequest};
pub use tools::ToolDef;

use crate::report::{Diagnostic, DiagnosticCode, MessageOut, SegmentOut};
use crate::scene::{Adapter, DeskConfig};

/// The chat providers `render --llm chat --provider` can shape messages for. In JSON (the API's
/// `provider`) `"openai"` or `"anthropic"`; the TypeScript bindings call the type `Provider`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename = "Provider", rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum ChatProvider {
    /// OpenAI chat completions (`POST /v1/chat/completions`).
    Openai,
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
}

impl ChatProvider {
    pub const ALL: [ChatProvider; 2] = [ChatProvider::Openai, ChatProvider::Anthropic];

    pub fn as_str(self) -> &'static str {
        match self {
            ChatProvider::Openai => "openai",
            ChatProvider::Anthropic => "anthropic",
        }
    }

    pub fn parse(s: &str) -> Option<ChatProvider> {
        ChatProvider::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The model named in the body (chat scenes name none).
    pub fn default_model(self) -> &'static str {
        match self {
            ChatProvider::Openai => "gpt-4.1",
            ChatProvider::Anthropic => anthropic::DEFAULT_MODEL,
        }
    }
}

/// The API a chat provider's body is for.
pub fn chat_api(provider: ChatProvider) -> crate::usage::Api {
    match provider {
        ChatProvider::Openai => crate::usage::Api::OpenaiChat,
        ChatProvider::Anthropic => crate::usage::Api::Anthropic,
    }
}

/// The model an adapter names when the scene's `desk_llm.model` is absent. Each is a model its
/// provider lists as current; docs/providers.md, "Default models", has the sources and the
/// models these replaced.
pub fn default_model(adapter: Adapter) -> &'static str {
    match adapter {
        Adapter::OpenaiDesk => "gpt-4.1",
        Adapter::ClaudeDesk => anthropic::DEFAULT_MODEL,
        Adapter::GeminiDesk => "gemini-3.5-flash-lite",
        Adapter::DeepseekDesk => "deepseek-flash",
        Adapter::OllamaDesk => "llama3.2-vision",
        Adapter::SglangDesk => "default",
        Adapter::OpenaiGenDesk => "gpt-5.4-mini",
        Adapter::TencentDsDesk => "deepseek-v3.1",
    }
}

/// DeepSeek's model names that take images: `deepseek-flash` (DeepSeek-V4.1-Flash) and the
/// legacy names DeepSeek still serves with it. `deepseek-v4-pro` takes none.
const DEEPSEEK_VISION: [&str; 3] = [
    "deepseek-flash",
    "deepseek-v4-flash",
    "deepseek-v4-flash-vision-exp",
];

/// Whether the adapter's API, with this model, takes images at all (the others drop them with
/// `image_dropped`).
pub fn takes_images(adapter: Adapter, model: &str) -> bool {
    match adapter {
        Adapter::DeepseekDesk => DEEPSEEK_VISION.contains(&model),
        Adapter::OpenaiGenDesk | Adapter::TencentDsDesk => false,
        _ => true,
    }
}

/// One piece of content in provider-neutral form.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Block {
    Text(String),
    Image(Img),
}

/// A tool call of an assistant message, whichever of the two recorded shapes it was written in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as JSON text (OpenAI's wire form).
    pub arguments: String,
}

/// A chat message in provider-neutral form.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Turn {
    pub role: &'static str,
    pub blocks: Vec<Block>,
    pub segment: Option<&'static str>,
    pub name: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_calls: Vec<ToolCall>,
}

/// The rendered desk segments split the way every adapter reads them: the instruction side
/// (`system_prompt`, `instruction_prompt`, text only) and the user turn (the other five, in
/// order, each its text then its images). Segments with nothing in them are left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeskInput {
    pub system: Vec<(&'static str, String)>,
    pub user: Vec<(&'static str, Vec<Block>)>,
}

impl DeskInput {
    /// The instruction side as one text, segments separated by a blank line.
    pub fn system_text(&self) -> String {
        join_blank(self.system.iter().map(|(_, t)| t.as_str()))
    }

    /// The user turn's text, segments separated by a blank line (images left out).
    pub fn user_text(&self) -> String {
        join_blank(self.user.iter().flat_map(|(_, blocks)| {
            blocks.iter().filter_map(|b| match b {
                Block::Text(t) => Some(t.as_str()),
                Block::Image(_) => None,
            })
        }))
    }
}

/// Joins non-empty texts with a blank line, the separator between segments in one message.
pub(crate) fn join_blank<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Where diagnostics of request building go (the report's list).
pub(crate) struct Sink<'a> {
    out: &'a mut Vec<Diagnostic>,
}

impl Sink<'_> {
    pub fn warn(
        &mut self,
        code: DiagnosticCode,
        message: String,
        segment: Option<&'static str>,
        tool: Option<&str>,
    ) {
        tracing::warn!(code = code.as_str(), "{message}");
        self.out.push(Diagnostic {
            tool: tool.map(str::to_owned),
            segment,
            ..Diagnostic::new(code.level(), code, message)
        });
    }
}

/// The request body of a DeskLLM adapter for the rendered desk segments. Problems (an image that
/// cannot be read, images a text-only model cannot take) become warnings in `diagnostics`.
pub fn desk_request(
    config: &DeskConfig,
    segments: &[SegmentOut],
    tool_defs: &[ToolDef],
    base_dir: Option<&std::path::Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Json {
    let mut sink = Sink { out: diagnostics };
    let adapter = config.adapter;
    let model = config
        .model
        .as_deref()
        .unwrap_or_else(|| default_model(adapter));
    let input = desk::gather(adapter, model, segments, base_dir, &mut sink);
    let name = adapter.as_str();
    let mut body = match adapter {
        Adapter::OpenaiDesk => openai::responses(model, &input, name, &mut sink),
        Adapter::ClaudeDesk => anthropic::desk(model, &input, &mut sink),
        Adapter::GeminiDesk => gemini::desk(&input, &mut sink),
        Adapter::OllamaDesk => ollama::desk(model, &input, &mut sink),
        Adapter::DeepseekDesk if takes_images(adapter, model) => {
            openai::chat_desk(model, &input, name, &mut sink)
        }
        Adapter::SglangDesk => openai::chat_desk(model, &input, name, &mut sink),
        Adapter::DeepseekDesk | Adapter::TencentDsDesk => {
            openai::chat_desk_text(model, &input, name, &mut sink)
        }
        Adapter::OpenaiGenDesk => openai::completion(model, &input, &mut sink),
    };
    tools::attach(
        &mut body,
        tools::Shape::of_adapter(adapter),
        tool_defs,
        &mut sink,
    );
    limits::check_request(limits::Api::of_adapter(adapter), &body, &mut sink);
    body
}

/// The request body of a chat provider for a chat report's messages.
/// The segments give the attachments of the prompt pieces behind each message.
pub fn chat_request(
    provider: ChatProvider,
    messages: &[MessageOut],
    segments: &[SegmentOut],
    tool_defs: &[ToolDef],
    base_dir: Option<&std::path::Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Json {
    let mut sink = Sink { out: diagnostics };
    let turns = chat::turns(messages, segments, base_dir, &mut sink);
    let model = provider.default_model();
    let (mut body, shape) = match provider {
        ChatProvider::Openai => (
            openai::chat(model, &turns, &mut sink),
            tools::Shape::ChatCompletions,
        ),
        ChatProvider::Anthropic => (
            anthropic::chat(model, &turns, &mut sink),
            tools::Shape::Anthropic,
        ),
    };
    tools::attach(&mut body, shape, tool_defs, &mut sink);
    limits::check_request(limits::Api::of_chat(provider), &body, &mut sink);
    body
}

/// A chat report's messages as a Gemini `generateContent` body (the model is in the URL, not the
/// body): what a chat call is priced on for a Gemini model. `render --provider` does not offer
/// it; the body is built only to be counted.
pub fn gemini_chat_request(
    messages: &[MessageOut],
    segments: &[SegmentOut],
    tool_defs: &[ToolDef],
    base_dir: Option<&std::path::Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Json {
    let mut sink = Sink { out: diagnostics };
    let turns = chat::turns(messages, segments, base_dir, &mut sink);
    let mut body = gemini_chat::chat(&turns, &mut sink);
    tools::attach(&mut body, tools::Shape::Gemini, tool_defs, &mut sink);
    body
}

/// The text of the one user turn sent where an API refuses both a request without messages and
/// a turn without text (Anthropic, Gemini): the shortest text that is not whitespace, so the
/// model is given as little as possible that the scene did not render.
pub(crate) const PLACEHOLDER_TEXT: &str = ".";

/// Reports a request that would have carried no messages, and what was sent instead.
pub(crate) fn without_messages(sink: &mut Sink, who: &str, why: &str, done: &str) {
    sink.warn(
        DiagnosticCode::RequestWithoutMessages,
        format!("{who}: {why}, so the request has no messages; {done}"),
        None,
        None,
    );
}

/// The texts of a turn whose role takes no images there; each image is reported as dropped.
pub(crate) fn texts_only<'t>(
    index: usize,
    turn: &'t Turn,
    provider: &str,
    sink: &mut Sink,
) -> Vec<&'t str> {
    let mut out = Vec::with_capacity(turn.blocks.len());
    for b in &turn.blocks {
        match b {
            Block::Text(t) => out.push(t.as_str()),
            Block::Image(_) => sink.warn(
                DiagnosticCode::ImageDropped,
                format!(
                    "an image of messages[{index}] is left out of the request: {provider} takes images only in user messages, this one is {}",
                    turn.role
                ),
                turn.segment,
                None,
            ),
        }
    }
    out
}
