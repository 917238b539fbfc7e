//! The container readers on the recorded fixtures (`fixtures/import/vcr/`, PROVENANCE.md there):
//! which calls are taken or skipped, and each call's usage and time, against the numbers in the
//! recorded responses (read by hand from the cassettes).

use std::collections::HashSet;

use serde_json::{json, Value};

use super::*;
use crate::import::node::{self, Doc};

fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/import/vcr/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs `f` on a fixture's root node, the `!!binary` positions and the container kind.
fn with_root<T>(name: &str, f: impl FnOnce(&Node<'_>, &HashSet<usize>, Container) -> T) -> T {
    let text = fixture(name);
    let doc = Doc {
        text: &text,
        first_line: 1,
        host: None,
        prefix: String::new(),
    };
    let (tree, binary) = if name.ends_with(".yaml") {
        let y = yaml::parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        (y.root, y.binary)
    } else {
        (
            node::parse(&doc).unwrap_or_else(|e| panic!("{name}: {e}")),
            HashSet::new(),
        )
    };
    let kind = if name.ends_with(".har") {
        Container::Har
    } else {
        Container::Vcr
    };
    f(&Node::root(&tree, &doc), &binary, kind)
}

/// Each call's label and `recorded` object, and the skipped calls.
fn calls(name: &str) -> (Vec<(String, Value)>, Vec<String>) {
    with_root(name, |root, binary, kind| {
        let mut skipped = Vec::new();
        let calls =
            read(kind, root, binary, &mut skipped).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = calls
            .into_iter()
            .map(|(draft, label)| (label, Value::Object(draft.recorded)))
            .collect();
        (out, skipped)
    })
}

/// The API, model, usage and time of a `recorded` object.
fn facts(recorded: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in ["api", "model", "usage", "timestamp"] {
        if let Some(v) = recorded.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

fn error(name: &str) -> String {
    with_root(name, |root, binary, kind| {
        match read(kind, root, binary, &mut Vec::new()) {
            Ok(calls) => panic!("{name}: {} calls, expected an error", calls.len()),
            Err(e) => e.to_string(),
        }
    })
}

#[test]
fn a_cassette_of_two_cached_anthropic_calls_keeps_each_usage_and_time() {
    let (calls, skipped) = calls("anthropic-prompt-caching.yaml");
    assert!(skipped.is_empty(), "{skipped:?}");
    let recorded: Vec<&Value> = calls.iter().map(|(_, r)| r).collect();
    // input_tokens 4, cache_creation_input_tokens 1163, output_tokens 187 (gzip body).
    assert_eq!(
        facts(recorded[0]),
        json!({"api": "anthropic", "model": "claude-3-5-sonnet-20240620",
               "usage": {"input_total": 1167, "uncached": 4, "cache_read": 0,
                         "cache_write": {"unspecified": 1163}, "output": 187},
               "timestamp": "2025-03-15T09:40:00Z"})
    );
    // input_tokens 4, cache_read_input_tokens 1163, output_tokens 202.
    assert_eq!(
        facts(recorded[1]),
        json!({"api": "anthropic", "model": "claude-3-5-sonnet-20240620",
               "usage": {"input_total": 1167, "uncached": 4, "cache_read": 1163,
                         "cache_write": {}, "output": 202},
               "timestamp": "2025-03-15T09:40:04Z"})
    );
    assert_eq!(
        calls[0].0,
        "interaction 0 (POST https://api.anthropic.com/v1/messages)"
    );
}

/// prompt_tokens 24, completion_tokens 11, reasoning_tokens 0, in a gzip body; the chunked
/// copy holds the same gzip bytes in chunked framing.
#[test]
fn gzip_and_chunked_bodies_are_decoded() {
    for name in ["openai-chat-gzip.yaml", "openai-chat-chunked.yaml"] {
        let (calls, _) = calls(name);
        assert_eq!(calls.len(), 1, "{name}");
        assert_eq!(
            facts(&calls[0].1),
            json!({"api": "openai-chat", "model": "gpt-4o",
                   "usage": {"input_total": 24, "uncached": 24, "cache_read": 0,
                             "cache_write": {}, "output": 11, "reasoning": 0},
                   "timestamp": "2025-05-12T16:58:24Z"}),
            "{name}"
        );
    }
}

#[test]
fn streams_give_the_usage_of_their_last_event() {
    let cases = [
        // The final chunk: prompt 12, completion 5 (YAML and vcrpy's JSON form).
        (
            "openai-chat-stream.yaml",
            json!({"input_total": 12, "uncached": 12, "cache_read": 0, "cache_write": {}, "output": 5, "reasoning": 0}),
        ),
        (
            "openai-chat-stream.json",
            json!({"input_total": 12, "uncached": 12, "cache_read": 0, "cache_write": {}, "output": 5, "reasoning": 0}),
        ),
        // message_start input 14 (output 6), then message_delta output 11.
        (
            "anthropic-stream.yaml",
            json!({"input_total": 14, "uncached": 14, "cache_read": 0, "cache_write": {}, "output": 11}),
        ),
        // parsed_body request; message_delta output 5.
        (
            "anthropic-parsed-body-stream.yaml",
            json!({"input_total": 20, "uncached": 20, "cache_read": 0, "cache_write": {}, "output": 5}),
        ),
        // response.completed: input 53, output 469 of which 448 reasoning.
        (
            "openai-responses-stream.yaml",
            json!({"input_total": 53, "uncached": 53, "cache_read": 0, "cache_write": {}, "output": 469, "reasoning": 448}),
        ),
    ];
    for (name, usage) in cases {
        let (calls, _) = calls(name);
        assert_eq!(calls.len(), 1, "{name}");
        assert_eq!(calls[0].1["usage"], usage, "{name}");
    }
}

#[test]
fn other_calls_are_skipped_with_why() {
    let (count, skipped) = calls("anthropic-count-tokens.yaml");
    assert_eq!(count.len(), 1);
    // parsed_body response: input 19, output 77, cache_creation all zero.
    assert_eq!(
        count[0].1["usage"],
        json!({"input_total": 19, "uncached": 19, "cache_read": 0, "cache_write": {}, "output": 77})
    );
    assert_eq!(
        skipped,
        ["interaction 0 (POST https://api.anthropic.com/v1/messages/count_tokens?beta=true): /v1/messages/count_tokens is not an LLM call this command reads"]
    );
    let (other, skipped) = calls("openai-chat-other-host.yaml");
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].1["usage"]["input_total"], json!(42));
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].starts_with("interaction 0 (POST https://eu.i.posthog.com/batch/): eu.i.posthog.com is not a provider's API host"), "{skipped:?}");
}

#[test]
fn a_cassette_without_a_call_to_read_is_an_error_that_lists_the_skipped() {
    let e = error("openai-chat-401.yaml");
    assert!(
        e.contains("no interaction of this cassette is an LLM call"),
        "{e}"
    );
    assert!(
        e.contains(
            "interaction 0 (POST https://api.openai.com/v1/chat/completions): HTTP 401 status"
        ),
        "{e}"
    );
}

/// countTokens is skipped; generateContent's usageMetadata: prompt 12, candidates 109, thoughts
/// 806; the model is the one the URL named.
#[test]
fn a_gemini_call_keeps_its_usage_and_the_model_its_url_named() {
    let (calls, skipped) = calls("gemini-count-tokens.yaml");
    assert_eq!(skipped.len(), 1);
    assert!(
        skipped[0].contains(":countTokens is not an LLM call"),
        "{skipped:?}"
    );
    assert_eq!(calls.len(), 1);
    assert_eq!(
        facts(&calls[0].1),
        json!({"api": "gemini", "model": "gemini-2.5-flash",
               "usage": {"input_total": 12, "uncached": 12, "cache_read": 0, "cache_write": {},
                         "output": 915, "reasoning": 806}})
    );
}

#[test]
fn a_har_file_gives_its_calls_with_their_start_times() {
    let (calls, skipped) = calls("calls.har");
    let labels: Vec<&str> = calls.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(
        labels,
        [
            "entry 0 (POST https://api.anthropic.com/v1/messages)",
            "entry 1 (POST https://api.anthropic.com/v1/messages)",
            "entry 3 (POST https://api.openai.com/v1/chat/completions)",
            "entry 4 (POST https://api.openai.com/v1/chat/completions)",
        ]
    );
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].starts_with("entry 2 (POST https://eu.i.posthog.com/batch/)"));
    let times: Vec<&Value> = calls.iter().map(|(_, r)| &r["timestamp"]).collect();
    assert_eq!(
        times,
        [
            &json!("2025-03-15T09:40:00.000Z"),
            &json!("2025-03-15T09:40:04.000Z"),
            &json!("2024-11-13T00:04:11.000Z"),
            &json!("2025-05-12T16:58:24.000Z")
        ]
    );
    assert_eq!(calls[1].1["usage"]["cache_read"], json!(1163));
    assert_eq!(calls[2].1["usage"]["output"], json!(5));
    // The base64 content: prompt 24, completion 11.
    assert_eq!(calls[3].1["usage"]["input_total"], json!(24));
    assert_eq!(calls[3].1["usage"]["output"], json!(11));
}

#[test]
fn endpoints_by_host_and_path() {
    let ok = |m: &str, u: &str| endpoint(m, u).map(Api::as_str);
    assert_eq!(
        ok("POST", "https://api.openai.com/v1/chat/completions"),
        Ok("openai-chat")
    );
    assert_eq!(
        ok("POST", "https://api.openai.com/v1/responses"),
        Ok("openai-responses")
    );
    assert_eq!(
        ok("POST", "https://api.anthropic.com/v1/messages?beta=true"),
        Ok("anthropic")
    );
    assert_eq!(
        ok("POST", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"),
        Ok("gemini")
    );
    assert_eq!(
        ok("POST", "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-1.5-flash:generateContent"),
        Ok("gemini")
    );
    assert_eq!(
        ok("POST", "https://my.openai.azure.com:443/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01"),
        Ok("openai-chat")
    );
    let why = |m: &str, u: &str| endpoint(m, u).err().unwrap_or_default();
    assert!(why("POST", "https://api.openai.com/v1/embeddings")
        .contains("/v1/embeddings is not an LLM call"));
    assert!(
        why("POST", "https://api.anthropic.com/v1/messages/count_tokens")
            .contains("not an LLM call")
    );
    assert!(why("GET", "https://api.openai.com/v1/responses").contains("a GET request"));
    assert!(why("POST", "https://chat.example.com/v1/messages")
        .contains("chat.example.com is not a provider"));
    assert!(why("POST", "ftp://x").contains("not an http(s) URL"));
}

/// Ruby VCR's shape: `recorded_at`, `base64_string` bodies, capitalised header names.
#[test]
fn ruby_vcr_cassettes_are_read_too() {
    let response = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        r#"{"usage": {"prompt_tokens": 7, "completion_tokens": 2}}"#,
    );
    let text = format!(
        "---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://api.openai.com/v1/chat/completions\n    body:\n      encoding: UTF-8\n      string: '{{\"messages\": [{{\"role\": \"user\", \"content\": \"hi\"}}]}}'\n    headers:\n      Content-Type:\n      - application/json\n  response:\n    status:\n      code: 200\n      message: OK\n    headers:\n      Content-Type: application/json\n    body:\n      encoding: ASCII-8BIT\n      base64_string: |\n        {response}\n  recorded_at: Tue, 01 Nov 2011 04:58:44 GMT\nrecorded_with: VCR 6.2.0\n"
    );
    let y = yaml::parse(&text).unwrap_or_else(|e| panic!("{e:?}"));
    let doc = Doc {
        text: &text,
        first_line: 1,
        host: None,
        prefix: String::new(),
    };
    let calls = read(
        Container::Vcr,
        &Node::root(&y.root, &doc),
        &y.binary,
        &mut Vec::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        facts(&Value::Object(calls[0].0.recorded.clone())),
        json!({"api": "openai-chat",
               "usage": {"input_total": 7, "uncached": 7, "cache_read": 0, "cache_write": {}, "output": 2},
               "timestamp": "2011-11-01T04:58:44Z"})
    );
}
