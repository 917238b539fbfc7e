//! The stable codes of the report's diagnostics, one variant each (docs/diagnostics.md, whose
//! tables a test holds to this list): what every module that emits a diagnostic names, what
//! `--deny` parses into, and (feature `specta`) the UI's string-literal union.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::Level;

/// Declares [`DiagnosticCode`] from one list: each variant with its doc comment, its JSON
/// spelling and its level, so the spelling, the level and `ALL` cannot drift apart.
macro_rules! diagnostic_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, $level:ident; )*) => {
        /// A diagnostic's stable `code`, serialised as its snake_case name.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
        )]
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        pub enum DiagnosticCode {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant, )*
        }

        impl DiagnosticCode {
            /// Every code, in the order docs/diagnostics.md lists them.
            pub const ALL: &'static [DiagnosticCode] = &[$(DiagnosticCode::$variant),*];

            /// The code as the report spells it (`tool_invalid`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(DiagnosticCode::$variant => $name,)*
                }
            }

            /// The level every diagnostic with this code has.
            pub fn level(self) -> Level {
                match self {
                    $(DiagnosticCode::$variant => Level::$level,)*
                }
            }
        }
    };
}

diagnostic_codes! {
    /// Error: the tool fails class-definition validation (docs/rules.md); it takes no part.
    ToolInvalid = "tool_invalid", Error;
    /// Error: `_format_2_prompt` raised, or its string `source` failed to render; skipped.
    ToolRaised = "tool_raised", Error;
    /// Error: `_format_2_prompt` returned something that is not `str`, a prompt or `None`.
    ToolFormat2Prompt = "tool_format_2_prompt", Error;
    /// Warning: a tool name is listed again; the first entry is the tool.
    ToolDuplicate = "tool_duplicate", Warning;
    /// Warning: a configured or tool prompt fails to render; it renders as `""`.
    PromptRenderFailed = "prompt_render_failed", Warning;
    /// Warning: an entry of `context.conversation` is not a message; it is left out.
    ConversationMessageInvalid = "conversation_message_invalid", Warning;
    /// Warning: an image `path` cannot be opened or read; left out of the request.
    ImageUnreadable = "image_unreadable", Warning;
    /// Warning: an image is over `provider::MAX_IMAGE_BYTES`; left out.
    ImageTooLarge = "image_too_large", Warning;
    /// Warning: an image's bytes are not PNG, JPEG, GIF or WebP (or, for Gemini, a URL image of
    /// no known type); left out.
    ImageTypeUnknown = "image_type_unknown", Warning;
    /// Warning: `data_base64` is not base64, or a `data:` URL is malformed; left out.
    ImageDataInvalid = "image_data_invalid", Warning;
    /// Warning: the image cannot go where it is (a system-side segment, a text-only model, a
    /// non-user message for OpenAI chat completions); left out.
    ImageDropped = "image_dropped", Warning;
    /// Warning: a URL image for `ollama_desk`, which takes base64 only; left out.
    ImageUrlUnsupported = "image_url_unsupported", Warning;
    /// Warning: more images than the model takes; the extra ones are left out.
    ImagesOverModelLimit = "images_over_model_limit", Warning;
    /// Warning: an inline image over the provider's per-image limit; left out.
    ImageOverProviderLimit = "image_over_provider_limit", Warning;
    /// Warning: the request body is over the provider's request limit; kept whole.
    RequestTooLarge = "request_too_large", Warning;
    /// Warning: the desk segments leave the body with no messages; what the API requires is sent.
    RequestWithoutMessages = "request_without_messages", Warning;
    /// Warning: a message content part whose `type` is not `text` or `image`; left out.
    MessagePartUnknown = "message_part_unknown", Warning;
    /// Warning: a recorded tool call id Anthropic refuses; sent mapped.
    ToolCallIdMapped = "tool_call_id_mapped", Warning;
    /// Warning: the scene's tools record `parameters` but the adapter takes no tool definitions.
    ToolDefinitionsDropped = "tool_definitions_dropped", Warning;
    /// Warning: a tool name outside OpenAI's function-name rule; sent as recorded.
    ToolNameInvalid = "tool_name_invalid", Warning;
    /// Warning: a tool's `parameters` schema is not `"type": "object"`; sent as recorded.
    ToolParametersNotObject = "tool_parameters_not_object", Warning;
    /// Warning: a recorded tool call without string `id` and `name`, or one Anthropic cannot
    /// take as recorded.
    ToolCallInvalid = "tool_call_invalid", Warning;
    /// Warning: a value or cache breakpoint kept in the scene's `recorded` finds no place in the
    /// rebuilt request (the scene was edited around it); left out.
    RecordedUnplaced = "recorded_unplaced", Warning;
    /// Info (cache-safety lint): a tool's text is injected into a cached-prefix segment.
    CachePrefixInjection = "cache_prefix_injection", Info;
    /// Warning (cache-safety lint): text in a cached-prefix segment that changes on every call.
    CacheVolatileValue = "cache_volatile_value", Warning;
    /// Warning (cache-safety lint): a cached-prefix piece differs from the call before.
    CachePrefixChanged = "cache_prefix_changed", Warning;
    /// Info (cache-safety lint): a call's input is under a model's minimum cacheable length.
    CacheBelowMinimum = "cache_below_minimum", Info;
    /// Warning (verify): a recorded cache miss after the system prompt changed.
    MissSystemChanged = "miss_system_changed", Warning;
    /// Warning (verify): a recorded cache miss after the tool definitions changed.
    MissToolsChanged = "miss_tools_changed", Warning;
    /// Warning (verify): a recorded cache miss after the model changed.
    MissModelChanged = "miss_model_changed", Warning;
    /// Warning (verify): a recorded cache miss after an earlier message was rewritten.
    MissMessagesRewritten = "miss_messages_rewritten", Warning;
    /// Info (verify): a recorded cache miss on a prefix under the model's minimum.
    MissBelowMinimum = "miss_below_minimum", Info;
    /// Warning (verify): a recorded cache miss with no breakpoint after the stable prefix.
    MissNoBreakpoint = "miss_no_breakpoint", Warning;
    /// Warning (verify): a recorded cache miss after the cache entry's TTL ran out.
    MissTtlExpired = "miss_ttl_expired", Warning;
    /// Warning (verify): a recorded cache miss on the same JSON value sent as other bytes.
    MissByteInstability = "miss_byte_instability", Warning;
    /// Info (verify): a recorded cache miss the request does not explain: the provider's side.
    MissProviderSide = "miss_provider_side", Info;
    /// Info (verify): a cache read no recorded call wrote: warmed outside the recording.
    ReadWarmedOutside = "read_warmed_outside", Info;
}

impl DiagnosticCode {
    /// Whether the code is one of the cache-safety lint's (`cache_…`), which goldens leave out.
    /// (The causes `verify` gives, `miss_…` and `read_…`, are never in a render report.)
    pub fn is_cache_lint(self) -> bool {
        self.as_str().starts_with("cache_")
    }
}

impl fmt::Display for DiagnosticCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no diagnostic code; its message lists the codes there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCode(pub String);

impl fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let codes: Vec<&str> = DiagnosticCode::ALL.iter().map(|c| c.as_str()).collect();
        write!(
            f,
            "unknown diagnostic code {:?}; the codes (docs/diagnostics.md): {}",
            self.0,
            codes.join(", ")
        )
    }
}

impl std::error::Error for UnknownCode {}

impl FromStr for DiagnosticCode {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DiagnosticCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_as_str_and_from_str_spell_each_code_alike() {
        for &code in DiagnosticCode::ALL {
            let json = serde_json::to_string(&code).expect("serialises");
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: DiagnosticCode = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(back, code);
            assert_eq!(code.as_str().parse::<DiagnosticCode>(), Ok(code));
        }
        assert_eq!(
            DiagnosticCode::ToolFormat2Prompt.as_str(),
            "tool_format_2_prompt"
        );
    }

    #[test]
    fn an_unknown_code_is_refused_with_the_list() {
        let e = "tool_invlid"
            .parse::<DiagnosticCode>()
            .expect_err("a typo is no code");
        let message = e.to_string();
        assert!(
            message.starts_with("unknown diagnostic code \"tool_invlid\""),
            "{message}"
        );
        assert!(message.contains("tool_invalid, tool_raised,"), "{message}");
        assert!(message.ends_with("read_warmed_outside"), "{message}");
        assert!(serde_json::from_str::<DiagnosticCode>("\"tool_invlid\"").is_err());
    }
}
