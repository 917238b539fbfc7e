//! Scene files (`*.scene.json`, docs/scene-format.md): one recorded LLM call site with its context, the
//! LLM's configured segment prompts and the tools.
//!
//! The types mirror the file; [`load`] reads them strictly, naming file, line, column and field
//! path in every error. Tool positions are kept as written: whether a position is legal is the
//! validator's business (an invalid tool is reported, not a load error).

mod error;
pub mod keys;
mod load;
pub mod run;

use std::ops::Range;

use indexmap::IndexMap;

pub use error::SceneError;
pub use load::{
    load_file, load_keeping, load_reusing, load_str, ContextText, MAX_SCENE_BYTES, POINTER_PATTERN,
    TIMESTAMP_PATTERN,
};

use crate::template::Engine;
use crate::value::Value;

/// The only scene format this build reads.
pub const FORMAT: &str = "prompt-inspector/scene@1";

/// The embedded default scene (TFNotes with a chat-only memo and a tool that tries a forbidden
/// position), which the app opens on first launch.
pub const DEFAULT_SCENE: &str = include_str!("../../fixtures/default.scene.json");

/// The default scene, loaded. It is part of the build and tested, so it always loads.
pub fn default_scene() -> Scene {
    load_str(DEFAULT_SCENE)
        .unwrap_or_else(|e| unreachable!("the embedded default scene is invalid: {e}"))
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub name: String,
    pub description: Option<String>,
    /// The context exactly as written (a dict), keys in file order, before defaults are added.
    pub context: Value,
    pub intermediate_msgs: Vec<Message>,
    pub chat_llm: ChatConfig,
    pub desk_llm: DeskConfig,
    pub tools: Vec<Tool>,
    /// The tool-call loop to replay (`run`, docs/scene-format.md); `runloop::replay` replays it.
    pub run: Option<run::Run>,
    /// What was recorded with an imported call: the API, model, request parameters, billed
    /// usage and when (`recorded`, docs/scene-format.md). `None` for scenes written by hand.
    pub recorded: Option<Recorded>,
}

/// A recorded call's facts beyond its prompts and tools (`recorded`, docs/scene-format.md): what
/// a request body rebuilt from the scene needs to be the one that was sent
/// (`provider::recorded_request`), and what the provider billed for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// The API the request was sent to.
    pub api: crate::usage::Api,
    /// The model the request named.
    pub model: Option<String>,
    /// The request's other top-level fields as sent (`max_tokens`, `temperature`,
    /// `response_format`, `reasoning`, ...), in the order sent.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Which of the forms an API allows the request used, where the scene's content alone
    /// does not say.
    pub layout: Layout,
    /// The request's own cache breakpoints (Anthropic's `cache_control` on a block), in the order
    /// they appear in the request.
    pub cache_control: Vec<Breakpoint>,
    /// What the request held that a scene has no place for but the provider bills or reads
    /// (reasoning items, thinking blocks, documents, ids and flags on items), each at its place.
    pub carried: Vec<Carried>,
    /// The response's usage, normalised.
    pub usage: Option<crate::usage::Usage>,
    /// When the call was made (RFC 3339).
    pub timestamp: Option<String>,
    /// The prompt template the call was made from, as an instrumentation recorded it.
    pub prompt: Option<PromptTemplate>,
    /// The response's messages as recorded with the call (the assistant's reply); a rebuilt
    /// request leaves them out.
    pub reply: Vec<Message>,
}

/// `recorded.prompt`: the prompt template a call was made from (OpenTelemetry's
/// `gen_ai.prompt.name`, `.version` and `.variable.<name>`, OpenInference's
/// `llm.prompt_template.*`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptTemplate {
    pub name: Option<String>,
    pub version: Option<String>,
    /// The template's text, when recorded.
    pub template: Option<String>,
    /// The values of its variables, by name, in the order recorded.
    pub variables: serde_json::Map<String, serde_json::Value>,
}

impl Recorded {
    /// A record of a call to `api` and nothing else yet.
    pub fn new(api: crate::usage::Api) -> Recorded {
        Recorded {
            api,
            model: None,
            params: serde_json::Map::new(),
            layout: Layout::default(),
            cache_control: Vec::new(),
            carried: Vec::new(),
            usage: None,
            timestamp: None,
            prompt: None,
            reply: Vec::new(),
        }
    }
}

/// `recorded.layout`: the request's form where its API allows more than one for the same
/// content. Each is `false` for the default form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// OpenAI Responses: the system prompts went as system messages at the start of `input`
    /// (`"system": "input"`), not as `instructions`.
    pub system_in_input: bool,
    /// OpenAI Responses: `input` was one string, the one user turn (`"input": "string"`).
    pub input_string: bool,
    /// Gemini: the function declarations' schemas went in `parameters` (Gemini's OpenAPI
    /// subset, `"schema": "parameters"`), not `parametersJsonSchema`.
    pub gemini_parameters: bool,
    /// How the system texts were sent: Anthropic's `system`, or the content of each system
    /// message (OpenAI); `None` when not recorded.
    pub system_form: Option<Form>,
    /// How the input turn's content was sent, when it was one text; `None` when not recorded.
    pub input_form: Option<Form>,
}

/// A text content as sent: a string, or a list of (one) text part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    String,
    Parts,
}

/// A cache breakpoint the request set: `cache_control` on the object at `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    /// The JSON pointer (RFC 6901) of the object in the request body that carried it
    /// (`/system/1`, `/tools/3`, `/messages/2/content/0`).
    pub at: String,
    /// Its `ttl` (`5m`, `1h`); `None` when the request named none (the provider's default, 5
    /// minutes).
    pub ttl: Option<String>,
}

/// A value of the request a scene has no place for, and where it was: rebuilding the body puts
/// it back there (an array item is inserted at its index, an object member set).
#[derive(Clone, Debug, PartialEq)]
pub struct Carried {
    /// The JSON pointer (RFC 6901) of the value in the request body as it was sent.
    pub at: String,
    pub value: serde_json::Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

    /// The role a message's `role` string names, as the loader and the context's conversation
    /// read it (one parser for both).
    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: Content,
    pub name: Option<String>,
    pub tool_call_id: Option<String>,
    /// Kept as written: `{id, name, arguments}` or OpenAI's `{id, function: {...}}`.
    pub tool_calls: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    Text(String),
    Parts(Vec<Part>),
}

impl Content {
    /// The text of the content: the string, or the text parts joined with `\n`.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) => Some(t.as_str()),
                    Part::Image(_) => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    Image(Image),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub source: ImageSource,
    pub mime_type: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ImageSource {
    Url(String),
    /// Relative to the scene file.
    Path(String),
    DataBase64(String),
}

/// `Template`: an engine and one template text per locale.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateSpec {
    pub engine: Engine,
    /// Locale → template text, in file order.
    pub templates: IndexMap<String, String>,
    pub active_language: Option<String>,
    /// Where the `templates` entries sit in the scene file (byte spans of each text), so an
    /// editor can map a template error back to the file.
    pub spans: IndexMap<String, Range<usize>>,
}

impl TemplateSpec {
    /// Moves the spans by `by` bytes (the text they point into moved).
    pub fn move_spans(&mut self, by: isize) {
        for span in self.spans.values_mut() {
            *span = moved(span, by);
        }
    }

    /// The template text for the active language, falling back to `default` (docs/scene-format.md).
    pub fn select(&self) -> Option<(&str, &str)> {
        let active = self.active_language.as_deref().unwrap_or("default");
        self.templates
            .get_key_value(active)
            .or_else(|| self.templates.get_key_value("default"))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Prompt {
    /// Renders with the whole context as variables.
    Normalize {
        template: TemplateSpec,
        attachments: Vec<Part>,
    },
    /// Renders with `context.user_input.additional_info` as variables.
    AdditionalInfo { template: TemplateSpec },
}

impl Prompt {
    pub fn template(&self) -> &TemplateSpec {
        match self {
            Prompt::Normalize { template, .. } | Prompt::AdditionalInfo { template } => template,
        }
    }
}

/// The configured prompts of a ChatLLM, one list per prompt segment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatConfig {
    pub system_msg_prompt: Vec<Prompt>,
    pub before_input_msg_prompt: Vec<Prompt>,
    pub reformat_input_prompt: Vec<Prompt>,
    pub after_input_msg_prompt: Vec<Prompt>,
    pub after_intermediate_msg_prompt: Vec<Prompt>,
}

impl ChatConfig {
    pub const FIELDS: [&'static str; 5] = [
        "system_msg_prompt",
        "before_input_msg_prompt",
        "reformat_input_prompt",
        "after_input_msg_prompt",
        "after_intermediate_msg_prompt",
    ];

    /// The configured prompts of a chat segment by name (empty for message segments).
    pub fn prompts(&self, segment: &str) -> &[Prompt] {
        match segment {
            "system_msg_prompt" => &self.system_msg_prompt,
            "before_input_msg_prompt" => &self.before_input_msg_prompt,
            "reformat_input_prompt" => &self.reformat_input_prompt,
            "after_input_msg_prompt" => &self.after_input_msg_prompt,
            "after_intermediate_msg_prompt" => &self.after_intermediate_msg_prompt,
            _ => &[],
        }
    }
}

/// The 8 DeskLLM adapters of TFRobot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adapter {
    OpenaiDesk,
    ClaudeDesk,
    GeminiDesk,
    DeepseekDesk,
    OllamaDesk,
    SglangDesk,
    OpenaiGenDesk,
    TencentDsDesk,
}

impl Adapter {
    pub const ALL: [Adapter; 8] = [
        Adapter::OpenaiDesk,
        Adapter::ClaudeDesk,
        Adapter::GeminiDesk,
        Adapter::DeepseekDesk,
        Adapter::OllamaDesk,
        Adapter::SglangDesk,
        Adapter::OpenaiGenDesk,
        Adapter::TencentDsDesk,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Adapter::OpenaiDesk => "openai_desk",
            Adapter::ClaudeDesk => "claude_desk",
            Adapter::GeminiDesk => "gemini_desk",
            Adapter::DeepseekDesk => "deepseek_desk",
            Adapter::OllamaDesk => "ollama_desk",
            Adapter::SglangDesk => "sglang_desk",
            Adapter::OpenaiGenDesk => "openai_gen_desk",
            Adapter::TencentDsDesk => "tencent_ds_desk",
        }
    }

    pub fn parse(s: &str) -> Option<Adapter> {
        Adapter::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// The configured prompts of a DeskLLM, one list per desk segment, and its adapter.
#[derive(Clone, Debug, PartialEq)]
pub struct DeskConfig {
    pub adapter: Adapter,
    /// The model the adapter's request names; `None` uses the adapter's default
    /// (`provider::default_model`).
    pub model: Option<String>,
    pub system_prompt: Vec<Prompt>,
    pub instruction_prompt: Vec<Prompt>,
    pub original_desk_screenshot_prompt: Vec<Prompt>,
    pub intermediate_prompt: Vec<Prompt>,
    pub current_desk_screenshot_prompt: Vec<Prompt>,
    pub purpose_prompt: Vec<Prompt>,
    pub prefix_prompt: Vec<Prompt>,
}

impl Default for DeskConfig {
    fn default() -> DeskConfig {
        DeskConfig {
            adapter: Adapter::OpenaiDesk,
            model: None,
            system_prompt: Vec::new(),
            instruction_prompt: Vec::new(),
            original_desk_screenshot_prompt: Vec::new(),
            intermediate_prompt: Vec::new(),
            current_desk_screenshot_prompt: Vec::new(),
            purpose_prompt: Vec::new(),
            prefix_prompt: Vec::new(),
        }
    }
}

impl DeskConfig {
    pub const FIELDS: [&'static str; 7] = [
        "system_prompt",
        "instruction_prompt",
        "original_desk_screenshot_prompt",
        "intermediate_prompt",
        "current_desk_screenshot_prompt",
        "purpose_prompt",
        "prefix_prompt",
    ];

    pub fn prompts(&self, segment: &str) -> &[Prompt] {
        match segment {
            "system_prompt" => &self.system_prompt,
            "instruction_prompt" => &self.instruction_prompt,
            "original_desk_screenshot_prompt" => &self.original_desk_screenshot_prompt,
            "intermediate_prompt" => &self.intermediate_prompt,
            "current_desk_screenshot_prompt" => &self.current_desk_screenshot_prompt,
            "purpose_prompt" => &self.purpose_prompt,
            "prefix_prompt" => &self.prefix_prompt,
            _ => &[],
        }
    }
}

/// A tool as the call site passes it in `tools`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    /// The argument schema the model is shown (TFRobot's `params_schema`): a JSON Schema object,
    /// as written. `None` when the scene does not record one; such a tool has no definition in
    /// the request bodies.
    pub parameters: Option<Value>,
    /// `None` when the tool declares no position (`prompt_position = None`).
    pub prompt_position: Option<Position>,
    pub state: Value,
    /// `None` when the tool does not override `_format_2_prompt`.
    pub format_2_prompt: Option<Returns>,
    /// Byte span of the tool's entry in the scene file, for pointing at it.
    pub span: Range<usize>,
}

impl Tool {
    /// Moves every span of the tool by `by` bytes: its entry's text moved in the scene file (an
    /// edit before it), unchanged.
    pub fn move_spans(&mut self, by: isize) {
        self.span = moved(&self.span, by);
        match &mut self.format_2_prompt {
            Some(Returns::Str { source }) => source.move_spans(by),
            Some(Returns::Prompt(
                Prompt::Normalize { template, .. } | Prompt::AdditionalInfo { template },
            )) => template.move_spans(by),
            Some(Returns::None | Returns::Raise { .. } | Returns::Invalid { .. }) | None => {}
        }
    }
}

/// `span` moved by `by` bytes.
fn moved(span: &Range<usize>, by: isize) -> Range<usize> {
    span.start.saturating_add_signed(by)..span.end.saturating_add_signed(by)
}

/// `prompt_position`: the `(chat, desk)` pair as written; names are checked by validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub chat: Option<String>,
    pub desk: Option<String>,
}

/// What the tool's `_format_2_prompt` returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Returns {
    /// A literal string, produced by rendering `source` over `{state, ctx}`.
    Str {
        source: TemplateSpec,
    },
    /// A prompt, passed through unchanged.
    Prompt(Prompt),
    None,
    Raise {
        error: String,
    },
    Invalid {
        value: Value,
    },
}
