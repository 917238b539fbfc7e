//! Spans to received calls: each span with a GenAI request is imported on its own (as a one-span
//! OTLP/JSON export, by `import`'s OpenTelemetry reader), so one unreadable span is rejected and
//! counted while the others of its export are kept.

use serde_json::Value as Json;

use super::ReceivedCall;
use crate::import::{self, Source};

/// One span of an export, alone.
#[derive(Clone, Debug)]
pub struct SpanIn {
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits.
    pub span_id: String,
    pub name: String,
    /// `{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [the span]}]}]}`, ids
    /// in hex, values in OTLP/JSON's form.
    pub export: Json,
}

/// What an export became.
#[derive(Debug, Default)]
pub struct Received {
    pub calls: Vec<ReceivedCall>,
    /// The spans that could not be read, each with why (`span 00f0... "chat": ...`).
    pub rejected: Vec<String>,
    /// Spans that record no GenAI request (an HTTP call, an agent step): not calls, not errors.
    pub ignored: usize,
}

/// Attribute keys (or key prefixes ending in `.`) that carry a request's messages, system text or
/// tools in one of the conventions `import` reads.
const REQUEST_KEYS: [&str; 8] = [
    "gen_ai.input.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
    "gen_ai.prompt",
    "gen_ai.prompt.",
    "llm.input_messages",
    "llm.input_messages.",
    "llm.prompts",
];

/// The received calls of `spans`; `rejected` already holds the spans the decoder could not read.
/// `received_at` is the export's arrival (RFC 3339).
pub fn received_calls(spans: Vec<SpanIn>, rejected: Vec<String>, received_at: &str) -> Received {
    let mut out = Received {
        rejected,
        ..Received::default()
    };
    for span in spans {
        let Some(body) = span_of(&span.export) else {
            out.rejected.push(format!(
                "span {} {:?}: no span in its export",
                span.span_id, span.name
            ));
            continue;
        };
        if !is_request(body) {
            out.ignored += 1;
            continue;
        }
        match call_of(&span, body, received_at) {
            Ok(call) => out.calls.push(call),
            Err(why) => out
                .rejected
                .push(format!("span {} {:?}: {why}", span.span_id, span.name)),
        }
    }
    out
}

fn call_of(span: &SpanIn, body: &Json, received_at: &str) -> Result<ReceivedCall, String> {
    let span_json = serde_json::to_string(&span.export).map_err(|e| e.to_string())?;
    let name = scene_name(&span.name);
    let imported = import::import_str(
        &span_json,
        &format!("{name}.json"),
        false,
        Some(Source::Otel),
    )
    .map_err(|e| e.to_string())?;
    let Some(scene) = imported.scenes.into_iter().next() else {
        return Err("no GenAI request in the span".to_owned());
    };
    let attributes = body.get("attributes");
    let provider = import::PROVIDER_ATTRIBUTES
        .iter()
        .find_map(|k| attr_text(attributes, k));
    let recorded = scene.recorded.as_ref();
    let model = recorded
        .and_then(|r| r.model.clone())
        .or_else(|| attr_text(attributes, "gen_ai.response.model"))
        .or_else(|| attr_text(attributes, "gen_ai.request.model"))
        .or_else(|| attr_text(attributes, "llm.model_name"));
    let usage = recorded
        .and_then(|r| r.usage.clone())
        .or_else(|| usage_of(attributes));
    let conversation = attr_text(attributes, "gen_ai.conversation.id")
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| span.trace_id.clone());
    // Both texts were built by growing buffers, which can hold up to twice their length: kept
    // as they are, the store's byte bound (it counts lengths) would let memory reach twice it.
    let mut scene_text = scene.text;
    scene_text.shrink_to_fit();
    let mut span_json = span_json;
    span_json.shrink_to_fit();
    Ok(ReceivedCall {
        seq: 0,
        received_at: received_at.to_owned(),
        conversation,
        trace_id: span.trace_id.clone(),
        span_id: span.span_id.clone(),
        span_name: span.name.clone(),
        scene_name: scene.name,
        provider,
        api: recorded.map(|r| r.api.as_str().to_owned()),
        model,
        usage,
        scene: scene_text,
        unmapped: scene.unmapped,
        span_json,
    })
}

/// The one span of a one-span export.
fn span_of(export: &Json) -> Option<&Json> {
    export
        .pointer("/resourceSpans/0/scopeSpans/0/spans/0")
        .filter(|s| s.is_object())
}

/// Whether a span records a request `import` can read: an attribute of [`REQUEST_KEYS`] or a
/// GenAI message event.
fn is_request(span: &Json) -> bool {
    let keys = span
        .get("attributes")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(|kv| kv.get("key").and_then(Json::as_str));
    let request_key = |key: &str| {
        REQUEST_KEYS.iter().any(|k| {
            if k.ends_with('.') {
                key.starts_with(k)
            } else {
                key == *k
            }
        })
    };
    if keys.into_iter().any(request_key) {
        return true;
    }
    span.get("events")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("name").and_then(Json::as_str))
        .any(|n| n.starts_with("gen_ai.") && (n.ends_with(".message") || n.ends_with(".details")))
}

/// An attribute's value as text: a string, or an integer as its digits.
fn attr_text(attributes: Option<&Json>, key: &str) -> Option<String> {
    let value = attr(attributes, key)?;
    if let Some(s) = value.get("stringValue").and_then(Json::as_str) {
        return Some(s.to_owned());
    }
    value.get("intValue").map(|i| match i {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    })
}

fn attr<'a>(attributes: Option<&'a Json>, key: &str) -> Option<&'a Json> {
    attributes?
        .as_array()?
        .iter()
        .rev()
        .find(|kv| kv.get("key").and_then(Json::as_str) == Some(key))?
        .get("value")
}

fn attr_count(attributes: Option<&Json>, key: &str) -> Option<u64> {
    attr_text(attributes, key)?.trim().parse().ok()
}

/// `gen_ai.usage.input_tokens` and `output_tokens` (with the cache read when given) as they are,
/// for a span whose provider names no API `import` prices.
fn usage_of(attributes: Option<&Json>) -> Option<crate::usage::Usage> {
    let input = attr_count(attributes, "gen_ai.usage.input_tokens");
    let output = attr_count(attributes, "gen_ai.usage.output_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let input = input.unwrap_or(0);
    let cache_read = attr_count(attributes, "gen_ai.usage.cache_read.input_tokens")
        .unwrap_or(0)
        .min(input);
    Some(crate::usage::Usage {
        input_total: input,
        uncached: input - cache_read,
        cache_read,
        output: output.unwrap_or(0),
        ..crate::usage::Usage::default()
    })
}

/// A span's name as a scene's: letters, digits, `.`, `_` and `-`, the rest `-`, at most 60.
pub fn scene_name(span_name: &str) -> String {
    let name: String = span_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let name = name.trim_matches(|c| c == '-' || c == '.');
    if name.is_empty() {
        "call".to_owned()
    } else {
        name.to_owned()
    }
}
