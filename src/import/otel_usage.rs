//! The billed usage an OpenTelemetry span records, normalised (`usage::Usage`): the GenAI
//! conventions' `gen_ai.usage.*` (with the names earlier conventions and instrumentations used)
//! or OpenInference's `llm.token_count.*`.
//!
//! The conventions put cached tokens inside `gen_ai.usage.input_tokens`, Anthropic's spans
//! included (their Anthropic page: input = `input_tokens` + cache reads + cache writes), and
//! OpenInference's instrumentations do the same for `llm.token_count.prompt`. Some exporters
//! still pass Anthropic's own `input_tokens` through, which leaves the cached tokens out; on an
//! Anthropic span (`gen_ai.provider.name`, `gen_ai.system`, `llm.provider` or `llm.system`) an
//! input smaller than its cache reads and writes can only be that, and is read so.

use std::collections::BTreeMap;

use super::node::Node;
use super::ImportError;
use crate::json::{Json as Tree, Kind};
use crate::usage::{Api, Usage};

/// One reading of usage attributes: the names of each count, first found wins.
struct Names {
    input: &'static [&'static str],
    output: &'static [&'static str],
    cache_read: &'static [&'static str],
    cache_write: &'static [&'static str],
    reasoning: &'static [&'static str],
}

/// The GenAI conventions: current names first, then earlier ones (`prompt_tokens` before 1.27,
/// `cache_creation.input_tokens` before the rename to `cache_write`) and OpenLLMetry's.
const GEN_AI: Names = Names {
    input: &["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"],
    output: &[
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
    ],
    cache_read: &[
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
    ],
    cache_write: &[
        "gen_ai.usage.cache_write.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
    ],
    reasoning: &[
        "gen_ai.usage.reasoning.output_tokens",
        "gen_ai.usage.reasoning_tokens",
    ],
};

/// OpenInference's span attributes.
const OPENINFERENCE: Names = Names {
    input: &["llm.token_count.prompt"],
    output: &["llm.token_count.completion"],
    cache_read: &["llm.token_count.prompt_details.cache_read"],
    cache_write: &["llm.token_count.prompt_details.cache_write"],
    reasoning: &["llm.token_count.completion_details.reasoning"],
};

const PROVIDER: [&str; 4] = [
    "gen_ai.provider.name",
    "gen_ai.system",
    "llm.provider",
    "llm.system",
];

/// Whether an attribute is one this reader turns into the recorded usage.
pub(crate) fn is_usage_key(key: &str) -> bool {
    [GEN_AI, OPENINFERENCE].iter().any(|n| {
        [n.input, n.output, n.cache_read, n.cache_write, n.reasoning]
            .iter()
            .any(|keys| keys.contains(&key))
    })
}

/// The model the call named (the request's, else the response's).
const MODEL: [&str; 3] = [
    "gen_ai.request.model",
    "gen_ai.response.model",
    "llm.model_name",
];

/// Whether an attribute is read for the recorded call besides its counts: the provider (which
/// says the API, and how Anthropic's counts read) and the model.
pub(crate) fn is_fact_key(key: &str) -> bool {
    PROVIDER.contains(&key) || MODEL.contains(&key)
}

/// The API the span's provider serves: `gen_ai.provider.name`'s (or the older `gen_ai.system`'s,
/// OpenInference's `llm.provider` / `llm.system`) well-known values. OpenAI's spans do not say
/// whether chat completions or the Responses API was called: they are taken as chat
/// completions, whose usage reads the same.
pub(crate) fn api(attributes: &[(&str, Tree, Node<'_>)]) -> Option<Api> {
    PROVIDER.iter().find_map(|key| {
        let (_, v, _) = attributes.iter().find(|(k, _, _)| k == key)?;
        let Kind::Str(name) = &v.kind else {
            return None;
        };
        match name.to_ascii_lowercase().as_str() {
            "openai" | "azure.ai.openai" | "az.ai.openai" | "deepseek" => Some(Api::OpenaiChat),
            "anthropic" => Some(Api::Anthropic),
            "gcp.gemini" | "gcp.vertex_ai" | "gcp.gen_ai" | "google" | "vertexai" | "vertex_ai"
            | "gemini" => Some(Api::Gemini),
            _ => None,
        }
    })
}

/// The span's usage, from its attributes as (key, value as JSON, the attribute's node for
/// errors); `None` when it records no input count.
pub(crate) fn read(attributes: &[(&str, Tree, Node<'_>)]) -> Result<Option<Usage>, ImportError> {
    let find = |keys: &[&str]| attributes.iter().find(|(k, _, _)| keys.contains(k));
    let count = |keys: &[&str]| -> Result<Option<u64>, ImportError> {
        find(keys).map(|(_, v, n)| tokens(v, n)).transpose()
    };
    let names = if find(GEN_AI.input).is_some() {
        GEN_AI
    } else {
        OPENINFERENCE
    };
    let Some(input) = count(names.input)? else {
        return Ok(None);
    };
    let read = count(names.cache_read)?.unwrap_or(0);
    let write = count(names.cache_write)?.unwrap_or(0);
    let anthropic = find(&PROVIDER).is_some_and(
        |(_, v, _)| matches!(&v.kind, Kind::Str(s) if s.eq_ignore_ascii_case("anthropic")),
    );
    let (input_total, cache_read, written) = if anthropic && input < read.saturating_add(write) {
        (input + read + write, read, write)
    } else {
        let read = read.min(input);
        (input, read, write.min(input - read))
    };
    let mut cache_write = BTreeMap::new();
    if written > 0 {
        cache_write.insert("unspecified".to_owned(), written);
    }
    Ok(Some(Usage {
        input_total,
        uncached: input_total - cache_read - written,
        cache_read,
        cache_write,
        output: count(names.output)?.unwrap_or(0),
        reasoning: count(names.reasoning)?,
    }))
}

/// A token count: a non-negative integer (OTLP's `intValue`, or a whole `doubleValue`).
fn tokens(v: &Tree, node: &Node<'_>) -> Result<u64, ImportError> {
    let n = match &v.kind {
        Kind::Int(i) => i.as_i64().and_then(|i| u64::try_from(i).ok()),
        Kind::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 9e15 => Some(*f as u64),
        Kind::Str(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.ok_or_else(|| node.err("expected a token count (a non-negative integer)"))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::import::node::{self, Doc, Node};
    use crate::import::otel;

    /// The `recorded` object and the unmapped list of the one span in `text`.
    fn span(text: &str) -> (Value, Vec<String>) {
        let doc = Doc {
            text,
            first_line: 1,
            host: None,
            prefix: String::new(),
        };
        let tree = node::parse(&doc).unwrap_or_else(|e| panic!("{e}"));
        let mut spans =
            otel::read(&Node::root(&tree, &doc), &mut Vec::new()).unwrap_or_else(|e| panic!("{e}"));
        let d = spans.remove(0).draft;
        (Value::Object(d.recorded), d.unmapped)
    }

    fn flat(attributes: Value) -> String {
        let mut a = attributes;
        a["gen_ai.input.messages"] =
            json!(r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]"#);
        a.to_string()
    }

    #[test]
    fn the_conventions_count_cached_tokens_inside_the_input() {
        let (rec, unmapped) = span(&flat(json!({
            "gen_ai.provider.name": "anthropic",
            "gen_ai.usage.input_tokens": 1167,
            "gen_ai.usage.cache_read.input_tokens": 1163,
            "gen_ai.usage.output_tokens": 202
        })));
        assert_eq!(
            rec["usage"],
            json!({"input_total": 1167, "uncached": 4, "cache_read": 1163, "cache_write": {}, "output": 202})
        );
        assert!(
            !unmapped.iter().any(|u| u.starts_with("gen_ai.usage")),
            "{unmapped:?}"
        );
        assert!(unmapped
            .iter()
            .any(|u| u.starts_with("gen_ai.provider.name")));
    }

    #[test]
    fn cache_writes_by_the_current_and_the_old_name() {
        for key in [
            "gen_ai.usage.cache_write.input_tokens",
            "gen_ai.usage.cache_creation.input_tokens",
        ] {
            let (rec, _) = span(&flat(json!({
                "gen_ai.system": "openai",
                "gen_ai.usage.input_tokens": 2006,
                "gen_ai.usage.cache_read.input_tokens": 1920,
                key: 40,
                "gen_ai.usage.output_tokens": 300,
                "gen_ai.usage.reasoning.output_tokens": 120
            })));
            assert_eq!(
                rec["usage"],
                json!({"input_total": 2006, "uncached": 46, "cache_read": 1920,
                       "cache_write": {"unspecified": 40}, "output": 300, "reasoning": 120}),
                "{key}"
            );
        }
    }

    /// An exporter that passed Anthropic's own input_tokens through: 4 < 1163 + 0.
    #[test]
    fn anthropic_input_without_its_cache_is_added_to() {
        let (rec, _) = span(&flat(json!({
            "gen_ai.system": "anthropic",
            "gen_ai.usage.input_tokens": 4,
            "gen_ai.usage.cache_creation.input_tokens": 1163,
            "gen_ai.usage.output_tokens": 187
        })));
        assert_eq!(
            rec["usage"],
            json!({"input_total": 1167, "uncached": 4, "cache_read": 0,
                   "cache_write": {"unspecified": 1163}, "output": 187})
        );
    }

    #[test]
    fn openinference_token_counts() {
        let (rec, _) = span(&flat(json!({
            "llm.provider": "anthropic",
            "llm.token_count.prompt": 1744,
            "llm.token_count.prompt_details.cache_read": 1733,
            "llm.token_count.prompt_details.cache_write": 0,
            "llm.token_count.completion": 50,
            "llm.token_count.completion_details.reasoning": 10,
            "llm.token_count.total": 1794
        })));
        assert_eq!(
            rec["usage"],
            json!({"input_total": 1744, "uncached": 11, "cache_read": 1733,
                   "cache_write": {}, "output": 50, "reasoning": 10})
        );
    }

    #[test]
    fn an_otlp_span_gives_its_start_time_and_int_values_as_strings() {
        let text = r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{
            "name": "chat gpt-4o", "startTimeUnixNano": "1747069103250000000",
            "attributes": [
              {"key": "gen_ai.provider.name", "value": {"stringValue": "openai"}},
              {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\": \"user\", \"parts\": [{\"type\": \"text\", \"content\": \"hi\"}]}]"}},
              {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "24"}},
              {"key": "gen_ai.usage.output_tokens", "value": {"intValue": 11}}
            ]}]}]}]}"#;
        let (rec, _) = span(text);
        assert_eq!(
            rec,
            json!({"api": "openai-chat", "timestamp": "2025-05-12T16:58:23.25Z",
                   "usage": {"input_total": 24, "uncached": 24, "cache_read": 0, "cache_write": {}, "output": 11}})
        );
    }

    /// Without a provider there is no API to record the counts under: they stay listed.
    #[test]
    fn a_span_without_a_known_provider_lists_its_counts() {
        let (rec, unmapped) = span(&flat(json!({
            "gen_ai.provider.name": "aws.bedrock",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 2
        })));
        assert_eq!(rec, json!({}));
        assert!(
            unmapped.contains(&"gen_ai.usage.input_tokens = 10".to_owned()),
            "{unmapped:?}"
        );
    }

    #[test]
    fn a_count_that_is_not_one_is_refused_where_it_is() {
        let text = flat(json!({"gen_ai.system": "openai", "gen_ai.usage.input_tokens": "many"}));
        let doc = Doc {
            text: &text,
            first_line: 1,
            host: None,
            prefix: String::new(),
        };
        let tree = node::parse(&doc).unwrap_or_else(|e| panic!("{e}"));
        let e = match otel::read(&Node::root(&tree, &doc), &mut Vec::new()) {
            Ok(_) => panic!("accepted"),
            Err(e) => e,
        };
        assert_eq!(e.pointer, "/gen_ai.usage.input_tokens");
        assert!(e.message.contains("expected a token count"), "{e}");
    }
}
