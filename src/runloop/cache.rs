//! Cache figures: how much of a request a provider's prompt cache can reuse from an earlier one.
//!
//! The request is serialised provider-neutrally (contract §5): the concatenation over its messages
//! of `role + "\n" + content`. Token figures use `o200k_base` (OpenAI's current tokenizer); for
//! Anthropic, whose tokenizer is not public, they are an estimate. Sources of the rules:
//! docs/run-loop.md.

use serde::Serialize;

use crate::tokens::{self, Encoding};

/// OpenAI caches a prompt automatically once it has this many tokens...
pub const OPENAI_MIN_TOKENS: usize = 1024;
/// ...and cache hits grow in steps of this many tokens past the minimum.
pub const OPENAI_STEP_TOKENS: usize = 128;
/// Anthropic: the shortest prefix a `cache_control` breakpoint caches (Claude Sonnet and Opus;
/// the Haiku models need 2,048).
pub const ANTHROPIC_MIN_TOKENS: usize = 1024;
/// Anthropic: at most this many `cache_control` breakpoints per request.
pub const ANTHROPIC_MAX_BREAKPOINTS: usize = 4;
/// Anthropic looks for hits at earlier block boundaries up to about this many blocks before a
/// breakpoint.
pub const ANTHROPIC_LOOKBACK_BLOCKS: usize = 20;

/// The serialisation the prefix figures are measured on.
pub fn serialize<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::new();
    for (role, content) in messages {
        out.push_str(role);
        out.push('\n');
        out.push_str(content);
    }
    out
}

/// Length in bytes of the common prefix of `a` and `b`.
pub fn common_prefix_bytes(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// `text[..at]` cut back to a character boundary, so a byte prefix can be tokenized.
pub fn prefix_text(text: &str, at: usize) -> &str {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

/// Tokens of a text under `o200k_base`.
pub fn count_tokens(text: &str) -> usize {
    tokens::count(text, Encoding::O200kBase)
}

/// The tokens OpenAI serves from its cache when `common` prompt tokens match an earlier request:
/// nothing below 1,024, then 1,024 plus whole 128-token steps.
pub fn openai_cached_tokens(common: usize) -> usize {
    if common < OPENAI_MIN_TOKENS {
        0
    } else {
        OPENAI_MIN_TOKENS + (common - OPENAI_MIN_TOKENS) / OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS
    }
}

/// The figures of one request against the previous one (all `None` for the first request).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Figures {
    /// The system message is byte-identical to the previous request's.
    pub system_identical: Option<bool>,
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub common_prefix_bytes: Option<usize>,
    /// Tokens of the common prefix (cut back to a character boundary).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub common_prefix_tokens: Option<usize>,
    /// The size of this request.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub request_bytes: usize,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub request_tokens: usize,
    /// OpenAI's automatic cache: tokens served from the cache (1,024 then 128-token steps).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub openai_cached_tokens: Option<usize>,
    /// Anthropic with xbot's one breakpoint (the `static` system message): its tokens when it is
    /// unchanged and long enough to be cached, else 0.
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub anthropic_cached_tokens: Option<usize>,
}

/// A request as the figures see it: its serialisation and its system message.
pub struct Measured {
    pub text: String,
    pub system: String,
    pub system_tokens: usize,
}

impl Measured {
    pub fn new(text: String, system: &str) -> Measured {
        Measured {
            text,
            system: system.to_owned(),
            system_tokens: count_tokens(system),
        }
    }
}

/// The figures of `now` against `before`.
pub fn figures(before: Option<&Measured>, now: &Measured) -> Figures {
    let mut f = Figures {
        request_bytes: now.text.len(),
        request_tokens: count_tokens(&now.text),
        ..Figures::default()
    };
    if let Some(before) = before {
        let identical = before.system == now.system;
        let bytes = common_prefix_bytes(&before.text, &now.text);
        let common = count_tokens(prefix_text(&now.text, bytes));
        f.system_identical = Some(identical);
        f.common_prefix_bytes = Some(bytes);
        f.common_prefix_tokens = Some(common);
        f.openai_cached_tokens = Some(openai_cached_tokens(common));
        f.anthropic_cached_tokens =
            Some(if identical && now.system_tokens >= ANTHROPIC_MIN_TOKENS {
                now.system_tokens
            } else {
                0
            });
    }
    f
}
