//! Predicted billed input: a provider-native request body counted the way its provider bills
//! it (docs/models.md, "Predicted billed input"). One file per API family decides the framing;
//! `image` prices images by each provider's documented rule.
//!
//! A prediction is a list of [`BilledPart`]s in the order they form the provider's cached prefix
//! (tools, system, messages for Anthropic), each with the tokens it is billed for and its text in
//! the provider's canonical form, so that two requests' prefixes are compared as the provider
//! compares them, not as JSON bytes.

pub mod anthropic;
pub mod calibration;
pub mod deepseek;
mod estimate;
pub mod gemini;
pub mod image;
mod openai;

use serde::Serialize;
use serde_json::Value as Json;

use crate::usage::{Api, Provenance};

/// What a request's input will be billed as.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub api: Api,
    pub model: String,
    /// The sum of the parts' tokens.
    pub input_tokens: usize,
    /// How far `input_tokens` can be off.
    pub provenance: Provenance,
    /// The request's pieces in cache-prefix order; their tokens add up to `input_tokens`.
    pub parts: Vec<BilledPart>,
}

/// One piece of a request as billed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BilledPart {
    pub kind: PartKind,
    /// Where in the request body the piece is (a JSON pointer; empty for framing the provider
    /// adds, such as Anthropic's tool-use system prompt).
    pub pointer: String,
    /// The piece in the provider's canonical form: two requests share a cached prefix up to the
    /// first part whose `canonical` differs.
    pub canonical: String,
    pub tokens: usize,
    /// The request marks a cache breakpoint at the end of this part (Anthropic's
    /// `cache_control`), with its TTL (`5m` when it names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakpoint: Option<String>,
}

impl BilledPart {
    /// A piece with no cache breakpoint after it.
    pub(crate) fn new(kind: PartKind, pointer: String, canonical: String, tokens: usize) -> Self {
        Self {
            kind,
            pointer,
            canonical,
            tokens,
            breakpoint: None,
        }
    }
}

/// What a billed piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// Fixed tokens the provider adds around the request (reply priming, per-request overhead).
    Framing,
    /// The provider's own system prompt for tool use.
    ToolPrompt,
    /// One tool definition.
    Tool,
    /// The system prompt / instructions.
    System,
    /// One message or input item.
    Message,
    /// One image.
    Image,
    /// A structured-output schema.
    Schema,
    /// A reasoning item carried from an earlier response.
    Reasoning,
}

/// Why a body cannot be counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BillingError {
    /// Where in the body (a JSON pointer).
    pub pointer: String,
    pub message: String,
}

impl BillingError {
    pub(crate) fn at(pointer: &str, message: &str) -> Self {
        Self {
            pointer: pointer.to_owned(),
            message: message.to_owned(),
        }
    }
}

impl std::fmt::Display for BillingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

impl std::error::Error for BillingError {}

/// Predicts what `body`, sent to `api` for `model`, will be billed as input.
pub fn predict(api: Api, model: &str, body: &Json) -> Result<Prediction, BillingError> {
    let (parts, provenance) = match api {
        Api::OpenaiChat if deepseek::is_deepseek(model) => deepseek::chat(model, body)?,
        Api::OpenaiChat => openai::chat(model, body)?,
        Api::OpenaiResponses => openai::responses(model, body)?,
        Api::Anthropic => anthropic::messages(model, body)?,
        Api::Gemini => gemini::generate_content(model, body)?,
    };
    Ok(Prediction {
        api,
        model: model.to_owned(),
        input_tokens: parts.iter().map(|p| p.tokens).sum(),
        provenance,
        parts,
    })
}
