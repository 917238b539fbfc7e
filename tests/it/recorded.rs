//! A scene's `recorded` (docs/scene-format.md): imported with the request and its response
//! (Gemini bodies, request/response pairs, JSON lines of them, SSE streams, texts handed to
//! `import::exchange`), read strictly by the loader, and used by the rebuilt request, which names
//! the recorded model and warns when an edit leaves a carried value without its place.

use std::path::PathBuf;

use prompt_inspector::import::{self, Exchange, Source};
use prompt_inspector::inject::{self, DiagnosticCode, Options};
use prompt_inspector::provider::{self, ChatProvider};
use prompt_inspector::scene::{self, Scene};
use prompt_inspector::segments::Family;
use prompt_inspector::usage::Api;
use serde_json::{json, Value as Json};

use crate::support::same_as_golden;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/import")
}

fn imported(case: &str) -> import::Import {
    import::import_file(&fixtures().join(case), None).unwrap_or_else(|e| panic!("{case}: {e}"))
}

fn loaded(text: &str) -> Scene {
    scene::load_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn gemini_bodies_and_recorded_calls_become_their_golden_scenes() {
    let got = imported("gemini/lights.json");
    assert_eq!(got.source, Source::Gemini);
    assert_eq!(got.detected.as_deref(), Some("/contents is Gemini's"));
    same_as_golden(
        &got.scenes[0].text,
        &fixtures().join("gemini/lights.scene.json"),
    );
    let got = imported("pair/haiku.json");
    assert_eq!(got.source, Source::Anthropic);
    same_as_golden(
        &got.scenes[0].text,
        &fixtures().join("pair/haiku.scene.json"),
    );
    let got = imported("pair/lisbon-stream.jsonl");
    assert_eq!(got.source, Source::OpenaiChat);
    let names = import::file_names(&got);
    assert_eq!(names.len(), 2);
    for (s, name) in got.scenes.iter().zip(&names) {
        same_as_golden(&s.text, &fixtures().join("pair/lisbon-stream").join(name));
    }
}

#[test]
fn the_response_brings_the_billed_usage_the_model_and_the_time() {
    // Anthropic's response body: cache tokens on top of input_tokens, the write by TTL.
    let got = imported("pair/haiku.json");
    let r = loaded(&got.scenes[0].text).recorded.expect("recorded");
    let u = r.usage.expect("usage");
    assert_eq!(
        (u.input_total, u.uncached, u.cache_read, u.output),
        (1264, 14, 0, 23)
    );
    assert_eq!(u.cache_write.get("1h"), Some(&1250));
    assert_eq!(r.timestamp.as_deref(), Some("2025-10-02T09:15:00Z"));
    // The request named the model; the response's dated snapshot does not replace it.
    assert_eq!(r.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(r.cache_control.len(), 1);
    assert_eq!(r.cache_control[0].at, "/system/0");
    assert_eq!(r.cache_control[0].ttl.as_deref(), Some("1h"));

    // An SSE stream per line: the usage of the chunk that carries one, the time of `created`
    // (1759395300 s and 1759395360 s after 1970, checked against Python's datetime).
    let got = imported("pair/lisbon-stream.jsonl");
    let mut seen = Vec::new();
    for s in &got.scenes {
        let r = loaded(&s.text).recorded.expect("recorded");
        let u = r.usage.expect("usage");
        seen.push((u.input_total, u.output, r.timestamp.unwrap_or_default()));
        assert_eq!(r.params.get("temperature"), Some(&json!(0.3)));
    }
    assert_eq!(
        seen,
        [
            (37, 17, "2025-10-02T08:55:00Z".to_owned()),
            (70, 9, "2025-10-02T08:56:00Z".to_owned())
        ]
    );
}

#[test]
fn the_rebuilt_body_names_the_recorded_model_and_parameters() {
    let got = imported("conversation/lisbon.jsonl");
    let s = loaded(&got.scenes[0].text);
    let report = inject::render_with(&s, Family::Chat, &Options::default());
    let body = report
        .request
        .expect("a recorded scene's chat render has a request");
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(body["temperature"], 0.3);
    // The same API asked for by name: the recorded body.
    let openai = Options {
        chat_provider: Some(ChatProvider::Openai),
        ..Default::default()
    };
    let again = inject::render_with(&s, Family::Chat, &openai);
    assert_eq!(again.request.as_ref(), Some(&body));
    // Another provider's body when one is asked for: its own default model.
    let anthropic = Options {
        chat_provider: Some(ChatProvider::Anthropic),
        ..Default::default()
    };
    let other = inject::render_with(&s, Family::Chat, &anthropic);
    assert_eq!(
        other.request.expect("a body")["model"],
        ChatProvider::Anthropic.default_model()
    );
    // The function other parts of the program call gives the same body.
    let rebuilt = provider::recorded_request(&s, &report_of(&s), None)
        .expect("recorded")
        .expect("a chat report");
    assert_eq!(
        (rebuilt.api, rebuilt.model.as_str()),
        (Api::OpenaiChat, "gpt-4o-mini")
    );
    assert_eq!(rebuilt.body, body);
    // A desk render has no chat messages to rebuild from.
    let desk = inject::render_with(&s, Family::Desk, &Options::default());
    assert!(provider::recorded_request(&s, &desk, None)
        .expect("recorded")
        .is_err());
    // A scene without `recorded` has no recorded request.
    let plain = scene::default_scene();
    assert!(provider::recorded_request(&plain, &report_of(&plain), None).is_none());
}

fn report_of(s: &Scene) -> inject::Report {
    inject::render_with(s, Family::Chat, &Options::default())
}

#[test]
fn an_edit_that_moves_a_carried_value_out_of_place_is_reported() {
    // The Responses fixture carries the assistant item's id at /input/1/id; without the
    // conversation, /input/1 is another item and /input/3 is gone.
    let got = imported("openai-responses/support.json");
    let mut doc: Json = serde_json::from_str(&got.scenes[0].text).expect("json");
    doc["context"]["conversation"] = json!([]);
    doc["intermediate_msgs"] = json!([]);
    let s = loaded(&doc.to_string());
    let report = report_of(&s);
    let unplaced: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::RecordedUnplaced)
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        unplaced
            .iter()
            .any(|m| m.contains("/input/3/id") && m.contains("left out")),
        "{unplaced:?}"
    );
    // Nothing is reported for the scene as imported.
    let whole = report_of(&loaded(&got.scenes[0].text));
    assert!(whole
        .diagnostics
        .iter()
        .all(|d| d.code != DiagnosticCode::RecordedUnplaced));
}

#[test]
fn exchange_reads_a_request_and_its_stream_from_their_texts() {
    // A body both APIs would read alike: the usage's input_tokens says it was Anthropic's.
    let request = r#"{"model": "claude-haiku-4-5", "max_tokens": 64,
        "messages": [{"role": "user", "content": "Say hello."}]}"#;
    let stream = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-haiku-4-5\",\"usage\":{\"input_tokens\":9,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":1}}}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":6}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );
    let call = import::exchange(&Exchange {
        request,
        response: Some(stream),
        timestamp: Some("2025-10-02T10:00:00Z"),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(call.source, Source::Anthropic);
    assert!(
        call.detected
            .as_deref()
            .is_some_and(|w| w.contains("input_tokens")),
        "{:?}",
        call.detected
    );
    let got = import::import_calls(
        vec![(call, "interaction 0".to_owned())],
        Vec::new(),
        "hello.yaml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.scenes.len(), 1);
    assert_eq!(got.scenes[0].from, "interaction 0");
    let r = loaded(&got.scenes[0].text).recorded.expect("recorded");
    let u = r.usage.expect("usage");
    assert_eq!((u.input_total, u.output), (9, 6));
    assert_eq!(r.timestamp.as_deref(), Some("2025-10-02T10:00:00Z"));
    // With OpenAI's usage the same body is OpenAI's.
    let call = import::exchange(&Exchange {
        request,
        response: Some(r#"{"usage": {"prompt_tokens": 9, "completion_tokens": 2}}"#),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(call.source, Source::OpenaiChat);
    // A Gemini body names no model: the recording's (its URL's) is kept.
    let call = import::exchange(&Exchange {
        request: r#"{"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}"#,
        response: Some(r#"[{"candidates": []}, {"usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 5}, "modelVersion": "gemini-2.5-flash-001"}]"#),
        model: Some("gemini-2.5-flash"),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let got = import::import_calls(vec![(call, "entry 4".to_owned())], Vec::new(), "x.har")
        .unwrap_or_else(|e| panic!("{e}"));
    let r = loaded(&got.scenes[0].text).recorded.expect("recorded");
    assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(r.usage.map(|u| (u.input_total, u.output)), Some((2, 5)));
    // A response without usage is said to have none; a timestamp that is not RFC 3339 is
    // refused.
    let call = import::exchange(&Exchange {
        request,
        response: Some(r#"{"id": "x"}"#),
        from: Some(Source::Anthropic),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let got = import::import_calls(
        vec![(call, "interaction 1".to_owned())],
        Vec::new(),
        "x.yaml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        got.scenes[0]
            .unmapped
            .iter()
            .any(|u| u.contains("the response carries no usage")),
        "{:?}",
        got.scenes[0].unmapped
    );
    let e = import::exchange(&Exchange {
        request,
        timestamp: Some("yesterday"),
        from: Some(Source::Anthropic),
        ..Default::default()
    })
    .err()
    .expect("a bad time");
    assert!(e.message.contains("RFC 3339"), "{e}");
}

#[test]
fn bad_recorded_calls_get_their_position() {
    let cases = [
        (
            r#"{"request": {"messages": [{"role": "user", "content": "hi"}]},
  "response": {"id": "x"}}"#,
            (2, 15, "/response"),
            "the response has no usage",
        ),
        (
            r#"{"request": {"messages": [{"role": "user", "content": "hi"}]},
  "response_usage": {"prompt_tokens": 3}, "timestamp": "2025-13-01T00:00:00Z"}"#,
            (2, 56, "/timestamp"),
            "not an RFC 3339 date-time",
        ),
        (
            r#"{"request": {"messages": [{"role": "robot", "content": "hi"}]},
  "response_usage": {"prompt_tokens": 3}}"#,
            (1, 36, "/request/messages/0/role"),
            "unknown role \"robot\"",
        ),
        (
            r#"{"request": {"contents": [{"role": "user", "parts": [{"text": 3}]}]}}"#,
            (1, 63, "/request/contents/0/parts/0/text"),
            "expected a string",
        ),
    ];
    for (text, (line, column, pointer), message) in cases {
        let e = import::import_str(text, "x.json", false, None)
            .err()
            .unwrap_or_else(|| panic!("{text}: accepted"));
        assert_eq!(
            (e.line, e.column, e.pointer.as_str()),
            (line, column, pointer),
            "{e}"
        );
        assert!(e.message.contains(message), "{e}");
    }
}

#[test]
fn the_loader_reads_recorded_strictly() {
    let scene = |recorded: &str| {
        format!("{{\"format\": \"prompt-inspector/scene@1\",\n\"recorded\": {recorded}}}")
    };
    let ok = loaded(&scene(
        r#"{"api": "gemini", "model": "gemini-2.5-flash", "params": {"generationConfig": {"temperature": 0.10}},
            "layout": {"schema": "parameters", "input_form": "parts"},
            "cache_control": [{"at": "/tools/0", "ttl": "1h"}],
            "carried": [{"at": "/contents/1/parts/0/thoughtSignature", "value": "abc"}, {"at": "/x~1y", "value": null}],
            "usage": {"input_total": 10, "uncached": 4, "cache_read": 5, "cache_write": {"1h": 1}, "output": 3, "reasoning": 2},
            "timestamp": "2025-06-01T12:00:00.5+02:00"}"#,
    ))
    .recorded
    .expect("recorded");
    assert_eq!(ok.api, Api::Gemini);
    assert!(ok.layout.gemini_parameters);
    // Numbers keep their text.
    assert_eq!(
        ok.params["generationConfig"]["temperature"].to_string(),
        "0.10"
    );
    assert_eq!(ok.carried[1].value, Json::Null);
    let bad = [
        (
            r#"{"api": "bedrock"}"#,
            (2, 21, "recorded.api"),
            "unknown API \"bedrock\"",
        ),
        (
            r#"{"model": "x"}"#,
            (2, 13, "recorded"),
            "missing field \"api\"",
        ),
        (
            r#"{"api": "anthropic", "usage": {"input_total": 10, "uncached": 4, "cache_read": 5, "output": 1}}"#,
            (2, 43, "recorded.usage"),
            "input_total 10 is not uncached + cache_read + cache_write (4 + 5 + 0)",
        ),
        (
            r#"{"api": "anthropic", "usage": {"input_total": 1, "uncached": 1, "cache_read": 0, "output": 1, "reasoning": 2}}"#,
            (2, 43, "recorded.usage"),
            "reasoning 2 is more than output 1",
        ),
        (
            r#"{"api": "anthropic", "usage": {"input_total": -1, "uncached": 0, "cache_read": 0, "output": 0}}"#,
            (2, 59, "recorded.usage.input_total"),
            "expected a token count",
        ),
        (
            r#"{"api": "anthropic", "carried": [{"at": "messages/0", "value": 1}]}"#,
            (2, 53, "recorded.carried[0].at"),
            "is not a JSON pointer",
        ),
        (
            r#"{"api": "anthropic", "carried": [{"at": "/messages/0"}]}"#,
            (2, 46, "recorded.carried[0]"),
            "missing field \"value\"",
        ),
        (
            r#"{"api": "anthropic", "timestamp": "2025-06-01"}"#,
            (2, 47, "recorded.timestamp"),
            "not an RFC 3339 date-time",
        ),
        (
            r#"{"api": "anthropic", "layout": {"system": "messages"}}"#,
            (2, 55, "recorded.layout.system"),
            "unknown form \"messages\", expected one of: instructions, input",
        ),
        (
            r#"{"api": "anthropic", "cache_control": [{"at": "/system/0", "ttl": 5}]}"#,
            (2, 79, "recorded.cache_control[0].ttl"),
            "expected a string",
        ),
    ];
    for (recorded, (line, column, path), message) in bad {
        let e = scene::load_str(&scene(recorded))
            .err()
            .unwrap_or_else(|| panic!("{recorded}: accepted"));
        assert_eq!(
            (e.line, e.column, e.path.as_str()),
            (line, column, path),
            "{e}"
        );
        assert!(e.message.contains(message), "{e}");
    }
}
