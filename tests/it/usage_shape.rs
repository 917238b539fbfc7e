//! `Usage::from_response` per provider against expected figures worked out by hand from the
//! providers' documented usage fields (docs/models.md, "Usage: one shape for every provider") and
//! the recorded responses of `corpora/usage/`: Anthropic's cache tokens come on top of
//! `input_tokens`, OpenAI's and Gemini's inside the prompt count, and in every case
//! `input_total = uncached + cache_read + cache_write`, with no cached token counted twice.

use prompt_inspector::usage::{Api, Usage};
use serde_json::{json, Value as Json};

use crate::support::{root, usage};

/// The `response_usage` of a corpus pair.
fn corpus_usage(file: &str) -> Json {
    let path = root().join("corpora/usage").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    v["response_usage"].clone()
}

fn check(api: Api, raw: &Json, want: Usage, what: &str) {
    let got = Usage::from_response(api, raw).unwrap_or_else(|| panic!("{what}: not read"));
    assert_eq!(got, want, "{what}");
    assert_eq!(
        got.input_total,
        got.uncached + got.cache_read + got.cache_write_total(),
        "{what}: the parts do not add up"
    );
}

#[test]
fn openai_chat_counts_cached_and_written_tokens_inside_prompt_tokens() {
    // prompt_tokens 1149 with cached_tokens 1024: 125 at the full price.
    check(
        Api::OpenaiChat,
        &corpus_usage("openllmetry/004-openai-chat-test-openai-prompt-caching-c2.json"),
        usage(1149, 125, 1024, &[], 353, Some(0)),
        "a cache read",
    );
    // prompt_tokens 4020 of which 4012 written to the cache (cache_write_tokens), no TTL given.
    check(
        Api::OpenaiChat,
        &corpus_usage("pydantic-ai/019-openai-chat-test-openai-chat-prompt-cache-e2e-c1.json"),
        usage(4020, 8, 0, &[("unspecified", 4012)], 4, Some(0)),
        "a cache write",
    );
    // Without any details: everything uncached, reasoning unknown.
    check(
        Api::OpenaiChat,
        &json!({"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}),
        usage(12, 12, 0, &[], 3, None),
        "no details",
    );
}

#[test]
fn openai_responses_counts_cached_tokens_inside_input_tokens() {
    // input_tokens 4020 with cached_tokens 4012.
    check(
        Api::OpenaiResponses,
        &corpus_usage(
            "pydantic-ai/028-openai-responses-test-openai-responses-prompt-cache-e2e-c2.json",
        ),
        usage(4020, 8, 4012, &[], 5, Some(0)),
        "a cache read",
    );
    // 9 of the 288 output tokens were reasoning.
    check(
        Api::OpenaiResponses,
        &corpus_usage("otel-python-contrib/008-openai-responses-test-responses-create-reports-reasoning-tokens-content-mode0.json"),
        usage(44, 44, 0, &[], 288, Some(9)),
        "reasoning",
    );
    // The chat-completions names read under the Responses API are not its usage.
    assert_eq!(
        Usage::from_response(Api::OpenaiResponses, &json!({"prompt_tokens": 3})),
        None
    );
}

#[test]
fn anthropic_reports_cache_tokens_on_top_of_input_tokens() {
    // input_tokens 4 plus 1163 written to the cache (no split by TTL in this older response).
    check(
        Api::Anthropic,
        &corpus_usage("openllmetry/001-anthropic-test-anthropic-prompt-caching-legacy-c1.json"),
        usage(1167, 4, 0, &[("unspecified", 1163)], 187, None),
        "a cache write",
    );
    // The same prefix read back: 4 + 1163.
    check(
        Api::Anthropic,
        &corpus_usage("openllmetry/002-anthropic-test-anthropic-prompt-caching-legacy-c2.json"),
        usage(1167, 4, 1163, &[], 202, None),
        "a cache read",
    );
    // 3 uncached + 1111 read + 418 written with a 5-minute TTL.
    check(
        Api::Anthropic,
        &corpus_usage("pydantic-ai/002-anthropic-test-anthropic-cache-real-api-c2.json"),
        usage(1532, 3, 1111, &[("5m", 418)], 33, None),
        "a read and a write",
    );
    // 53 of the 93 output tokens were thinking.
    check(
        Api::Anthropic,
        &corpus_usage("openinference/009-anthropic-test-completion-streaming-with-extended-thinking-anthropic.json"),
        usage(50, 50, 0, &[], 93, Some(53)),
        "thinking",
    );
    // A write split by TTL, part of it unattributed: 100 for an hour, 20 for 5 minutes, and
    // 30 more of cache_creation_input_tokens (150) that the split does not name.
    check(
        Api::Anthropic,
        &json!({"input_tokens": 7, "cache_creation_input_tokens": 150, "cache_read_input_tokens": 0,
                "cache_creation": {"ephemeral_1h_input_tokens": 100, "ephemeral_5m_input_tokens": 20},
                "output_tokens": 1}),
        usage(
            157,
            7,
            0,
            &[("1h", 100), ("5m", 20), ("unspecified", 30)],
            1,
            None,
        ),
        "a split write",
    );
}

#[test]
fn gemini_counts_cached_tokens_inside_the_prompt_and_tool_results_beside_it() {
    // promptTokenCount 109; output is the candidates (29) and the thoughts (89).
    check(
        Api::Gemini,
        &corpus_usage("openinference/014-gemini-test-sub-agent-session-id-not-overwritten-by-adk-internal-uu.json"),
        usage(109, 109, 0, &[], 118, Some(89)),
        "thoughts",
    );
    // No candidates at all (the response was cut at maxOutputTokens while thinking).
    check(
        Api::Gemini,
        &corpus_usage("otel-python-contrib/001-gemini-test-generate-content-extra-params.json"),
        usage(5, 5, 0, &[], 4, Some(4)),
        "thoughts only",
    );
    // The documented fields: cachedContentTokenCount is part of promptTokenCount;
    // toolUsePromptTokenCount (tool results given back as input) is beside it, and
    // totalTokenCount = prompt + candidates + tool use + thoughts (2000 + 50 + 120 + 0).
    check(
        Api::Gemini,
        &json!({"promptTokenCount": 2000, "cachedContentTokenCount": 1500,
                "toolUsePromptTokenCount": 120, "candidatesTokenCount": 50,
                "totalTokenCount": 2170}),
        usage(2120, 620, 1500, &[], 50, None),
        "cached content and tool use",
    );
}

#[test]
fn every_recorded_usage_of_the_corpus_adds_up() {
    // Each pair's usage read as its API reports it: its parts add up and nothing is negative,
    // and the reported total (where the provider gives one) is input plus output.
    let selection: Json = serde_json::from_str(
        &std::fs::read_to_string(root().join("corpora/usage/selection.json")).expect("selection"),
    )
    .expect("json");
    let mut read = 0;
    for entry in selection.as_array().expect("a list") {
        let file = entry["file"].as_str().expect("file");
        let api = Api::parse(entry["endpoint"].as_str().expect("endpoint")).expect("an API");
        let raw = corpus_usage(file);
        let got = Usage::from_response(api, &raw).unwrap_or_else(|| panic!("{file}: not read"));
        assert_eq!(
            got.input_total,
            got.uncached + got.cache_read + got.cache_write_total(),
            "{file}"
        );
        let total = raw
            .get("total_tokens")
            .or_else(|| raw.get("totalTokenCount"))
            .and_then(Json::as_u64);
        if let Some(total) = total {
            assert_eq!(got.input_total + got.output, total, "{file}: {raw}");
        }
        read += 1;
    }
    assert_eq!(read, 158);
}
