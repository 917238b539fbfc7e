//! The render report: what `prompt-inspector render --format json` prints (docs/cli.md) and what
//! goldens hold. Fields may be added, never renamed. The app's TypeScript types are derived
//! from these (feature `specta`), so the UI has no copy of its own.

use std::sync::Arc;

use indexmap::IndexMap;
use serde::Serialize;

use crate::value::Value;

mod code;

pub use code::{DiagnosticCode, UnknownCode};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Report {
    /// `chat` or `desk`.
    pub llm: &'static str,
    /// The encoding the `tokens` fields were counted with (`o200k_base`, `cl100k_base`); absent
    /// when tokens were not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<crate::tokens::Encoding>,
    /// The final messages (chat).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<MessageOut>>,
    /// The provider request body (see docs/providers.md): for desk, the adapter's; for chat,
    /// only when a provider was asked for (`Options::chat_provider`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<specta_typescript::Unknown>))]
    pub request: Option<serde_json::Value>,
    /// The segments of the family, in assembly order.
    pub segments: Vec<SegmentOut>,
    pub tools: Vec<ToolOut>,
    pub diagnostics: Vec<Diagnostic>,
    pub metrics: Metrics,
    /// What this call's input costs for each model asked for (`render --model`, the API's
    /// `models`), computed from the `tokens` fields by `pricing::cost::input_costs`; left out
    /// when no model was asked for or tokens were not counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub costs: Vec<InputCost>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MessageOut {
    pub role: &'static str,
    /// A string, or the list of parts as written.
    #[cfg_attr(feature = "specta", specta(type = specta_typescript::Unknown))]
    pub content: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<specta_typescript::Unknown>))]
    pub tool_calls: Option<Value>,
    /// Tokens of the message's text (a string content, or its text parts joined with `\n`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub tokens: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SegmentOut {
    pub name: &'static str,
    pub legal: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
    /// The segment's text as the model sees it: non-empty pieces joined with `\n`. Empty for
    /// the message streams (`conversation_msgs`, `intermediate_msgs`), whose messages are in the
    /// report's `messages`, tagged with this segment.
    pub text: String,
    /// Bytes the model sees from this segment (for a message stream: its messages' text).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub bytes: usize,
    /// Tokens of `text` as a whole (for a message stream: the sum over its messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub tokens: Option<usize>,
    /// For a message stream: how many messages it contributes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub messages: Option<usize>,
    pub pieces: Vec<PieceOut>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// One of the LLM's configured prompts.
    Config,
    /// A tool's contribution.
    Tool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PieceOut {
    pub source: Source,
    /// The tool's name, for tool pieces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The configured prompt's index in its segment list.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub index: Option<usize>,
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub text: Arc<str>,
    /// The prompt's attachments (image parts) as written; they never change the text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "specta", specta(type = Vec<specta_typescript::Unknown>))]
    pub attachments: Vec<Value>,
    /// Byte range of this piece in the segment's `text`.
    #[cfg_attr(feature = "specta", specta(type = [u32; 2]))]
    pub range: [usize; 2],
    /// Tokens of this piece's text on its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub tokens: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Injected,
    RenderedEmpty,
    Empty,
    Silent,
    Undeclared,
    Invalid,
    Error,
    ProtocolError,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Injected => "injected",
            Status::RenderedEmpty => "rendered_empty",
            Status::Empty => "empty",
            Status::Silent => "silent",
            Status::Undeclared => "undeclared",
            Status::Invalid => "invalid",
            Status::Error => "error",
            Status::ProtocolError => "protocol_error",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolOut {
    pub name: String,
    pub status: Status,
    /// The segment the tool targets in this family, when it declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// The tool's definition in the request bodies, when the scene records its `parameters`
    /// (and the tool is valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<DefinitionOut>,
}

/// How large a tool's definition is: its neutral JSON `{name, description?, parameters}`
/// (`provider::ToolDef::text`), which each provider wraps in its own shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DefinitionOut {
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub bytes: usize,
    /// Tokens of that JSON, when tokens are counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub tokens: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Error,
    Warning,
    Info,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Diagnostic {
    pub level: Level,
    /// Stable code (see docs/diagnostics.md).
    pub code: DiagnosticCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<&'static str>,
    /// The configured prompt's index in its segment, for configuration diagnostics.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub prompt: Option<usize>,
    /// The line (1-based) of the template, of the `tool` or of the configured `prompt`, that
    /// produced what the diagnostic is about (the cache-safety lint names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub line: Option<usize>,
    /// For a template that failed to render: the 1-based column (in characters) on `line` where
    /// the error is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub column: Option<usize>,
    /// For a template that failed to render: the error's byte range in the template's text (of
    /// `locale`), what an editor underlines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<[u32; 2]>))]
    pub range: Option<[usize; 2]>,
    /// For a template that failed to render: the locale whose text it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// For a name or key a template read that is not there: the closest ones that are, written in
    /// that template's syntax (`ctx[user_input][input]`, `ctx.user_input.input`), closest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic with only its level, code and message.
    pub fn new(level: Level, code: DiagnosticCode, message: String) -> Diagnostic {
        Diagnostic {
            level,
            code,
            message,
            tool: None,
            segment: None,
            prompt: None,
            line: None,
            column: None,
            range: None,
            locale: None,
            suggestions: Vec::new(),
        }
    }

    /// Where in a template a render error is: locale, line, column, byte range and suggestions.
    pub fn at_template_error(
        mut self,
        locale: &str,
        error: &crate::template::TemplateError,
    ) -> Diagnostic {
        self.locale = Some(locale.to_owned());
        self.line = error.line();
        self.column = error.column();
        self.range = error.range().map(|r| [r.start, r.end]);
        self.suggestions = error.suggestions().to_vec();
        self
    }
}

/// One model's price of a call's input as a first call, with nothing in the prompt cache yet:
/// every token at the model's uncached input price (docs/cli.md, "costs"). Plain figures: the
/// report sits below the models table (`pricing`), which fills them in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct InputCost {
    /// The models table row's id (`openai/gpt-5`).
    pub model: String,
    /// The API the call was priced as being sent to (the row's provider's request shape for this
    /// family); absent when its body could not be counted and `input_tokens` fell back to
    /// `content_tokens + definition_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<crate::usage::Api>,
    /// The row's price of an uncached input token, in USD per million tokens (what a piece's
    /// tokens cost: `tokens × usd_per_mtok_input / 1e6`).
    pub usd_per_mtok_input: f64,
    /// The call's input as the row's provider bills it: the request body that provider is sent,
    /// framing included (per-message and per-tool overhead, tool-use prompts, images).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub input_tokens: usize,
    /// How far `input_tokens` and `cost_usd` can be off.
    pub provenance: crate::usage::Provenance,
    /// Tokens of the messages' text (chat) or of the segments' (desk), counted with the report's
    /// `tokenizer`, without framing.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub content_tokens: usize,
    /// Tokens of the tool definitions' neutral JSON, counted the same way.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub definition_tokens: usize,
    /// How far the counts of text (`content_tokens`, `definition_tokens`, `segments[].tokens`,
    /// `definitions[].tokens`) can be from the row's provider's own count of that text.
    pub text_provenance: crate::usage::Provenance,
    /// What `input_tokens` cost, in USD.
    pub cost_usd: f64,
    /// When the row's prices were read (`YYYY-MM-DD`), and the pages they were read from.
    pub prices_read: String,
    pub price_sources: Vec<String>,
    /// Each segment of the report with tokens, in report order: its tokens and what they cost.
    pub segments: Vec<SegmentCost>,
    /// Each tool definition with tokens, in tool order.
    pub definitions: Vec<DefinitionCost>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SegmentCost {
    /// The segment's name, as in `segments[].name`.
    pub name: &'static str,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub tokens: usize,
    pub cost_usd: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DefinitionCost {
    /// The tool's name, as in `tools[].name`.
    pub tool: String,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub tokens: usize,
    pub cost_usd: f64,
}

/// The injection metrics (TFRobot's observability figures, docs/rules.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Metrics {
    /// Tools of this call that declare `prompt_position` (valid, distinct).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub tools_total: usize,
    /// Tools whose contribution rendered non-empty.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub tools_rendered: usize,
    /// Bytes of all rendered tool text.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub bytes: usize,
    /// Contributing tools per segment (non-zero segments only).
    #[cfg_attr(feature = "specta", specta(type = std::collections::BTreeMap<String, u32>))]
    pub positions: IndexMap<String, usize>,
}
