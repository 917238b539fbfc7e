//! DeepSeek's chat completions (an OpenAI chat-shaped body sent for a `deepseek-*` model) as
//! billed: an estimate. Its tokenizer is not shipped here and no recorded DeepSeek usage exists
//! to measure against, so the bound is a stated guess (docs/models.md, "Predicted billed input:
//! Anthropic, Gemini, DeepSeek").
//!
//! Text is `o200k_base` scaled by the ratio DeepSeek V4's tokenizer gave against `o200k_base` on
//! the English texts of `corpora/usage`; framing follows the shape of DeepSeek's chat format
//! (a begin-of-sentence token, a role marker per message, an end marker per assistant turn, the
//! tool definitions in the system prompt).

use serde_json::Value as Json;

use super::estimate::{o200k, plain_text, scaled, sorted_json};
use super::{BilledPart, BillingError, PartKind};
use crate::usage::Provenance;

/// DeepSeek V4 tokens per `o200k_base` token, measured with its tokenizer on the texts of
/// `corpora/usage` (1.00 to 1.11 per request; Chinese text will differ).
const TEXT_RATIO: f64 = 1.02;
/// Begin-of-sentence and the final assistant marker.
const PER_REQUEST: usize = 3;
/// A role marker, and an end marker after an assistant turn.
const PER_MESSAGE: usize = 2;
/// The instructions that introduce tool definitions in the system prompt: not measured.
const TOOLS_PREAMBLE: usize = 100;
const PER_TOOL: usize = 6;
const PER_CALL: usize = 6;
/// Unmeasured: no recorded DeepSeek call is in the corpus.
pub const BOUND_PERCENT: f64 = 30.0;

/// Whether `model` is a DeepSeek model (`deepseek-chat`, `deepseek-v4-pro`, `deepseek/...`).
pub(super) fn is_deepseek(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    m.starts_with("deepseek-") || m.starts_with("deepseek/")
}

pub(super) fn chat(
    _model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    if !body.is_object() {
        return Err(BillingError::at(
            "",
            "a chat completions request body is a JSON object",
        ));
    }
    let mut parts = Vec::new();
    let tools = body.get("tools").and_then(Json::as_array);
    if let Some(tools) = tools.filter(|t| !t.is_empty()) {
        parts.push(BilledPart::new(
            PartKind::ToolPrompt,
            String::new(),
            "tool instructions".to_owned(),
            TOOLS_PREAMBLE,
        ));
        for (i, tool) in tools.iter().enumerate() {
            let def = sorted_json(tool.get("function").unwrap_or(tool));
            let tokens = scaled(o200k(&def), TEXT_RATIO) + PER_TOOL;
            parts.push(BilledPart::new(
                PartKind::Tool,
                format!("/tools/{i}"),
                def,
                tokens,
            ));
        }
    }
    let messages = match body.get("messages") {
        None => &[][..],
        Some(Json::Array(m)) => m.as_slice(),
        Some(_) => {
            return Err(BillingError::at(
                "/messages",
                "expected an array of messages",
            ))
        }
    };
    for (i, m) in messages.iter().enumerate() {
        parts.push(message(m, i));
    }
    parts.push(BilledPart::new(
        PartKind::Framing,
        String::new(),
        "assistant:".to_owned(),
        PER_REQUEST,
    ));
    Ok((
        parts,
        Provenance::Estimate {
            bound_percent: BOUND_PERCENT,
        },
    ))
}

fn message(m: &Json, i: usize) -> BilledPart {
    let role = m.get("role").and_then(Json::as_str).unwrap_or("user");
    let text = plain_text(m.get("content").unwrap_or(&Json::Null));
    let mut tokens = scaled(o200k(&text), TEXT_RATIO) + PER_MESSAGE;
    let mut canonical = format!("{role}: {text}");
    for call in m
        .get("tool_calls")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let name = call
            .pointer("/function/name")
            .and_then(Json::as_str)
            .unwrap_or("");
        let args = call
            .pointer("/function/arguments")
            .and_then(Json::as_str)
            .unwrap_or("");
        tokens += scaled(o200k(name) + o200k(args), TEXT_RATIO) + PER_CALL;
        canonical.push_str(&format!("\n<call {name}>{args}"));
    }
    if role == "tool" {
        tokens += PER_CALL;
    }
    let kind = if role == "system" {
        PartKind::System
    } else {
        PartKind::Message
    };
    BilledPart::new(kind, format!("/messages/{i}"), canonical, tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deepseek_models_are_recognised_by_name() {
        assert!(is_deepseek("deepseek-chat"));
        assert!(is_deepseek("deepseek-v4-pro"));
        assert!(is_deepseek("DeepSeek/deepseek-v4-flash"));
        assert!(!is_deepseek("gpt-4o"));
    }

    #[test]
    fn framing_and_tools_are_added_to_the_scaled_text() {
        let body = json!({"model": "deepseek-chat", "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Hello there"}]}]});
        let (parts, provenance) = chat("deepseek-chat", &body).unwrap();
        let text =
            scaled(o200k("Be brief."), TEXT_RATIO) + scaled(o200k("Hello there"), TEXT_RATIO);
        let total: usize = parts.iter().map(|p| p.tokens).sum();
        assert_eq!(total, text + 2 * PER_MESSAGE + PER_REQUEST);
        assert_eq!(parts[0].kind, PartKind::System);
        assert_eq!(provenance.bound(), BOUND_PERCENT);

        let with_tool = json!({"messages": [{"role": "user", "content": "Hi"}], "tools": [
            {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]});
        let (parts, _) = chat("deepseek-chat", &with_tool).unwrap();
        assert_eq!(parts[0].kind, PartKind::ToolPrompt);
        assert_eq!(parts[0].tokens, TOOLS_PREAMBLE);
        assert_eq!(parts[1].pointer, "/tools/0");
    }

    #[test]
    fn a_body_that_is_not_an_object_is_refused() {
        assert!(chat("deepseek-chat", &json!([1])).is_err());
        let e = chat("deepseek-chat", &json!({"messages": 3})).unwrap_err();
        assert_eq!(e.pointer, "/messages");
    }
}
