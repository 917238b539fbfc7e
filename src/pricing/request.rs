//! A rendered call as each models-table row's provider is sent it, and what that provider bills
//! for it (`billing::predict`): the figures `input_costs` prices. A row's provider comes from its
//! id (`openai/gpt-5` is OpenAI's); a chat call becomes that provider's chat body, a desk call the
//! body of that provider's desk adapter, both naming the row's first model.

use std::path::Path;

use serde::Serialize;
use serde_json::Value as Json;

use super::Row;
use crate::billing::{self, Prediction};
use crate::provider::{self, ChatProvider, ToolDef};
use crate::report::Report;
use crate::scene::{Adapter, DeskConfig, Scene};
use crate::tokens::Encoding;
use crate::usage::{Api, Provenance};

/// Who serves a row's models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    Openai,
    Anthropic,
    Google,
    Deepseek,
}

/// Each provider by the prefix of its rows' ids (`anthropic/claude-sonnet-4-5`).
pub const ID_PREFIXES: [(&str, Provider); 4] = [
    ("openai/", Provider::Openai),
    ("anthropic/", Provider::Anthropic),
    ("google/", Provider::Google),
    ("deepseek/", Provider::Deepseek),
];

impl Provider {
    /// The provider of a row, from its id; `None` for a row of another provider (a models file
    /// may add any), which is priced as an OpenAI-compatible chat call.
    pub fn of_row(row: &Row) -> Option<Provider> {
        ID_PREFIXES
            .iter()
            .find(|(prefix, _)| row.id.starts_with(prefix))
            .map(|&(_, p)| p)
    }

    /// The desk adapter that sends a desk call to this provider.
    fn desk_adapter(self) -> Adapter {
        match self {
            Provider::Openai => Adapter::OpenaiDesk,
            Provider::Anthropic => Adapter::ClaudeDesk,
            Provider::Google => Adapter::GeminiDesk,
            Provider::Deepseek => Adapter::DeepseekDesk,
        }
    }

    /// How far a count of text with `encoding` is from this provider's own count of the same
    /// text (docs/models.md, "Provenance of the figures"). OpenAI's models in the table count
    /// with `o200k_base`, so there it is exact; the other tokenizers split text differently.
    pub fn text_provenance(self, encoding: Encoding) -> Provenance {
        match (self, encoding) {
            (Provider::Openai, Encoding::O200kBase) => Provenance::Exact,
            _ => Provenance::Estimate {
                bound_percent: TEXT_BOUND_PERCENT,
            },
        }
    }
}

/// The bound of an `o200k_base` count of a text against a tokenizer it is not (docs/models.md,
/// "Provenance of the figures", has where it was measured).
pub const TEXT_BOUND_PERCENT: f64 = 30.0;

/// The bound of an `o200k_base` count of the provider-neutral serialisation (`role + "\n" +
/// content` per message, docs/run-loop.md) against what OpenAI bills for a call large enough to
/// be cached: the framing it leaves out is a few tokens per message.
pub const OPENAI_SERIALISATION_BOUND_PERCENT: f64 = 3.0;

/// How far the cache figures (`runloop::cache`, counted on the provider-neutral serialisation)
/// can be from what `row`'s provider bills, for calls large enough to be cached.
pub fn serialisation_provenance(row: &Row) -> Provenance {
    let bound_percent = match Provider::of_row(row) {
        Some(Provider::Openai) => OPENAI_SERIALISATION_BOUND_PERCENT,
        _ => TEXT_BOUND_PERCENT,
    };
    Provenance::Estimate { bound_percent }
}

/// What a call sends beside the report's text: the tool definitions (the report keeps only their
/// sizes), and the folder relative image paths are read from.
#[derive(Clone, Debug, Default)]
pub struct Sent<'a> {
    pub tools: Vec<ToolDef>,
    pub base_dir: Option<&'a Path>,
}

impl<'a> Sent<'a> {
    /// The definitions of the report's tools that have one, from the scene it was rendered from.
    pub fn of(scene: &Scene, report: &Report, base_dir: Option<&'a Path>) -> Sent<'a> {
        Sent {
            tools: tool_defs(scene, report),
            base_dir,
        }
    }
}

/// The report's defined tools (`tools[].definition`), in report order, each the scene's first
/// tool of that name (the one the render used).
pub fn tool_defs(scene: &Scene, report: &Report) -> Vec<ToolDef> {
    let tools: Vec<&crate::scene::Tool> = report
        .tools
        .iter()
        .filter(|t| t.definition.is_some())
        .filter_map(|t| scene.tools.iter().find(|s| s.name == t.name))
        .collect();
    ToolDef::of(&tools)
}

/// The request body `row`'s provider is sent for the report's call, the API it goes to and the
/// model it names.
pub struct Body {
    pub api: Api,
    pub model: String,
    pub json: Json,
}

/// The report's call as `row`'s provider is sent it. Diagnostics of building it are left out:
/// they are about the shape of a request the report does not show.
pub fn body(report: &Report, sent: &Sent, row: &Row) -> Body {
    let provider = Provider::of_row(row);
    let model = row
        .models
        .first()
        .cloned()
        .unwrap_or_else(|| row.id.clone());
    let mut ignored = Vec::new();
    let tools = &sent.tools;
    let (api, mut json) = match (&report.messages, provider) {
        (Some(messages), Some(Provider::Anthropic)) => (
            Api::Anthropic,
            provider::chat_request(
                ChatProvider::Anthropic,
                messages,
                &report.segments,
                tools,
                sent.base_dir,
                &mut ignored,
            ),
        ),
        (Some(messages), Some(Provider::Google)) => (
            Api::Gemini,
            provider::gemini_chat_request(
                messages,
                &report.segments,
                tools,
                sent.base_dir,
                &mut ignored,
            ),
        ),
        (Some(messages), _) => (
            Api::OpenaiChat,
            provider::chat_request(
                ChatProvider::Openai,
                messages,
                &report.segments,
                tools,
                sent.base_dir,
                &mut ignored,
            ),
        ),
        (None, provider) => {
            let adapter = provider.map_or(Adapter::SglangDesk, Provider::desk_adapter);
            let config = DeskConfig {
                adapter,
                model: Some(model.clone()),
                ..DeskConfig::default()
            };
            let api = match adapter {
                Adapter::OpenaiDesk => Api::OpenaiResponses,
                Adapter::ClaudeDesk => Api::Anthropic,
                Adapter::GeminiDesk => Api::Gemini,
                _ => Api::OpenaiChat,
            };
            let json = provider::desk_request(
                &config,
                &report.segments,
                tools,
                sent.base_dir,
                &mut ignored,
            );
            (api, json)
        }
    };
    // The chat bodies name the provider's default model; Gemini's names none (it is in the URL).
    if api != Api::Gemini {
        if let Json::Object(map) = &mut json {
            map.insert("model".into(), Json::String(model.clone()));
        }
    }
    Body { api, model, json }
}

/// What `row`'s provider bills for the report's call, or why it cannot be told.
pub fn billed(
    report: &Report,
    sent: &Sent,
    row: &Row,
) -> Result<Prediction, billing::BillingError> {
    let body = body(report, sent, row);
    billing::predict(body.api, &body.model, &body.json)
}
