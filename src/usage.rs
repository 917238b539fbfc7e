//! What a provider billed, in one shape for every provider (docs/models.md, "Usage"), and how
//! sure a predicted figure is ([`Provenance`]).
//!
//! Providers report the same facts differently: Anthropic's `input_tokens` leaves out the tokens
//! read from and written to the cache, which it reports beside it; OpenAI's `prompt_tokens` /
//! `input_tokens` and Gemini's `promptTokenCount` include the cached ones (Gemini reports the
//! results of its own tools, `toolUsePromptTokenCount`, beside the prompt). [`Usage::from_response`]
//! normalises once, so that no figure counts a cached token twice or not at all; the table is in
//! docs/models.md, "Usage: one shape for every provider".

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// The request shape a recorded call used: which API it was sent to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Api {
    /// OpenAI chat completions (`POST /v1/chat/completions`); also DeepSeek's API.
    OpenaiChat,
    /// OpenAI Responses (`POST /v1/responses`).
    OpenaiResponses,
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// Gemini `generateContent` / `streamGenerateContent`.
    Gemini,
}

impl Api {
    pub const ALL: [Api; 4] = [
        Api::OpenaiChat,
        Api::OpenaiResponses,
        Api::Anthropic,
        Api::Gemini,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Api::OpenaiChat => "openai-chat",
            Api::OpenaiResponses => "openai-responses",
            Api::Anthropic => "anthropic",
            Api::Gemini => "gemini",
        }
    }

    pub fn parse(s: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// A call's billed tokens, normalised. Always `input_total = uncached + cache_read +
/// cache_write_total()`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    /// Every input token the call was billed for, cached or not.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub input_total: u64,
    /// Input tokens billed at the ordinary input price.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub uncached: u64,
    /// Input tokens read from the prompt cache.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub cache_read: u64,
    /// Input tokens written to the prompt cache, by TTL (`5m`, `1h`, ...; `unspecified` when the
    /// provider did not say which).
    #[cfg_attr(feature = "specta", specta(type = std::collections::BTreeMap<String, u32>))]
    pub cache_write: BTreeMap<String, u64>,
    /// Output tokens, reasoning included.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub output: u64,
    /// The share of `output` that was reasoning, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub reasoning: Option<u64>,
}

impl Usage {
    pub fn cache_write_total(&self) -> u64 {
        self.cache_write.values().sum()
    }

    /// Reads a response's usage object (`usage`, Gemini's `usageMetadata`) as `api` reports it.
    /// `None` when it is not a usage object of that API.
    pub fn from_response(api: Api, usage: &Json) -> Option<Usage> {
        let n = |v: &Json, path: &[&str]| -> Option<u64> {
            let mut at = v;
            for key in path {
                at = at.get(key)?;
            }
            at.as_u64()
        };
        let usage = usage.as_object().map(|_| usage)?;
        match api {
            Api::OpenaiChat | Api::OpenaiResponses => {
                let (input_key, details, output_key, output_details) = match api {
                    Api::OpenaiChat if usage.get("prompt_tokens").is_some() => (
                        "prompt_tokens",
                        "prompt_tokens_details",
                        "completion_tokens",
                        "completion_tokens_details",
                    ),
                    _ => (
                        "input_tokens",
                        "input_tokens_details",
                        "output_tokens",
                        "output_tokens_details",
                    ),
                };
                let total = n(usage, &[input_key])?;
                let read = n(usage, &[details, "cached_tokens"])
                    .unwrap_or(0)
                    .min(total);
                let written = n(usage, &[details, "cache_write_tokens"])
                    .unwrap_or(0)
                    .min(total - read);
                let mut cache_write = BTreeMap::new();
                if written > 0 {
                    cache_write.insert("unspecified".to_owned(), written);
                }
                Some(Usage {
                    input_total: total,
                    uncached: total - read - written,
                    cache_read: read,
                    cache_write,
                    output: n(usage, &[output_key]).unwrap_or(0),
                    reasoning: n(usage, &[output_details, "reasoning_tokens"]),
                })
            }
            Api::Anthropic => {
                let uncached = n(usage, &["input_tokens"])?;
                let read = n(usage, &["cache_read_input_tokens"]).unwrap_or(0);
                let written = n(usage, &["cache_creation_input_tokens"]).unwrap_or(0);
                let mut cache_write = BTreeMap::new();
                let five = n(usage, &["cache_creation", "ephemeral_5m_input_tokens"]).unwrap_or(0);
                let hour = n(usage, &["cache_creation", "ephemeral_1h_input_tokens"]).unwrap_or(0);
                if five > 0 {
                    cache_write.insert("5m".to_owned(), five);
                }
                if hour > 0 {
                    cache_write.insert("1h".to_owned(), hour);
                }
                let split = five + hour;
                if written > split {
                    cache_write.insert("unspecified".to_owned(), written - split);
                }
                let written = written.max(split);
                Some(Usage {
                    input_total: uncached + read + written,
                    uncached,
                    cache_read: read,
                    cache_write,
                    output: n(usage, &["output_tokens"]).unwrap_or(0),
                    // Newer models report the thinking share of the output tokens.
                    reasoning: n(usage, &["output_tokens_details", "thinking_tokens"]),
                })
            }
            Api::Gemini => {
                let prompt = n(usage, &["promptTokenCount"])?;
                let read = n(usage, &["cachedContentTokenCount"])
                    .unwrap_or(0)
                    .min(prompt);
                // The results of Google's own tools (Search, code execution), given back to the
                // model as input: billed as input, beside the prompt's count.
                let tool_use = n(usage, &["toolUsePromptTokenCount"]).unwrap_or(0);
                let thoughts = n(usage, &["thoughtsTokenCount"]);
                Some(Usage {
                    input_total: prompt + tool_use,
                    uncached: prompt - read + tool_use,
                    cache_read: read,
                    cache_write: BTreeMap::new(),
                    output: n(usage, &["candidatesTokenCount"]).unwrap_or(0)
                        + thoughts.unwrap_or(0),
                    reasoning: thoughts,
                })
            }
        }
    }
}

/// How far a token or cost figure can be off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Provenance {
    /// Counted as the provider bills it, and checked so against recorded usage.
    Exact,
    /// Within `bound_percent` of the billed figure on the share of recorded calls named in
    /// docs/models.md.
    Estimate { bound_percent: f64 },
    /// An estimate scaled by a ratio learnt from recorded usage (`prompt-inspector calibrate`).
    Calibrated { ratio: f64, bound_percent: f64 },
}

impl Provenance {
    /// The looser of two provenances: what a sum of an exact and an estimated figure is.
    pub fn combine(&self, other: &Provenance) -> Provenance {
        match (self, other) {
            (Provenance::Exact, p) | (p, Provenance::Exact) => p.clone(),
            (a, b) => {
                if a.bound() >= b.bound() {
                    a.clone()
                } else {
                    b.clone()
                }
            }
        }
    }

    /// The error bound in percent (0 for exact figures).
    pub fn bound(&self) -> f64 {
        match self {
            Provenance::Exact => 0.0,
            Provenance::Estimate { bound_percent }
            | Provenance::Calibrated { bound_percent, .. } => *bound_percent,
        }
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::Exact => f.write_str("exact"),
            Provenance::Estimate { bound_percent } => write!(f, "estimate ±{bound_percent}%"),
            Provenance::Calibrated { bound_percent, .. } => {
                write!(f, "calibrated ±{bound_percent}%")
            }
        }
    }
}
