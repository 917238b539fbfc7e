//! `prompt-inspector import`: each source's real-shaped payloads (`fixtures/import/<source>/`,
//! modelled on the providers' documented examples) against the scenes they must become, read
//! here as the goldens; the payloads fit the providers' published schemas; the imported
//! conversation is what `cache` reads; bad input gets a positioned error.

use std::path::PathBuf;
use std::process::Command;

use prompt_inspector::import::{self, ImportError, Source};
use prompt_inspector::inject::{self, Options};
use prompt_inspector::provider::ChatProvider;
use prompt_inspector::scene;
use prompt_inspector::segments::Family;
use serde_json::Value as Json;

use crate::support::same_as_golden;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/import")
}

#[test]
fn each_request_body_becomes_its_golden_scene() {
    let cases = [
        ("openai-chat/weather", Source::OpenaiChat),
        ("openai-responses/support", Source::OpenaiResponses),
        ("anthropic/code-review", Source::Anthropic),
        ("otel/flat", Source::Otel),
        ("otel/events", Source::Otel),
    ];
    for (case, source) in cases {
        let input = root().join(format!("{case}.json"));
        let got = import::import_file(&input, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.source, source, "{case}: detected as {:?}", got.detected);
        assert_eq!(got.scenes.len(), 1, "{case}");
        same_as_golden(
            &got.scenes[0].text,
            &root().join(format!("{case}.scene.json")),
        );
        // Told the source, the result is the same.
        let told = import::import_file(&input, Some(source)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(told.scenes[0].text, got.scenes[0].text, "{case}");
        assert!(told.detected.is_none());
    }
}

#[test]
fn several_requests_become_a_numbered_conversation() {
    for (input, dir, count) in [
        ("conversation/lisbon.jsonl", "conversation/lisbon", 3),
        ("otel/agent-trace.json", "otel/agent-trace", 2),
    ] {
        let got = import::import_file(&root().join(input), None).unwrap_or_else(|e| panic!("{e}"));
        let names = import::file_names(&got);
        assert_eq!(names.len(), count, "{input}");
        for (scene, name) in got.scenes.iter().zip(&names) {
            same_as_golden(&scene.text, &root().join(dir).join(name));
        }
    }
}

#[test]
fn the_otel_export_skips_the_tool_span_and_says_so() {
    let got = import::import_file(&root().join("otel/agent-trace.json"), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.skipped.len(), 1, "{:?}", got.skipped);
    assert!(got.skipped[0]
        .starts_with("/resourceSpans/0/scopeSpans/0/spans/1 (span \"execute_tool get_weather\")"));
}

/// The model and the body's other fields are recorded; what a scene has no place for is carried
/// at its pointer; both are listed in the scene's description.
#[test]
fn what_the_scene_has_no_place_for_is_kept_in_recorded() {
    let got = import::import_file(&root().join("openai-chat/weather.json"), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let s = &got.scenes[0];
    let loaded = scene::load_str(&s.text).unwrap_or_else(|e| panic!("{e}"));
    let recorded = loaded.recorded.clone().expect("recorded");
    assert_eq!(recorded.api.as_str(), "openai-chat");
    assert_eq!(recorded.model.as_deref(), Some("gpt-4o-2024-08-06"));
    assert_eq!(
        recorded.params.get("tool_choice"),
        Some(&serde_json::json!("auto"))
    );
    assert_eq!(
        recorded.params.get("temperature"),
        Some(&serde_json::json!(0.2))
    );
    assert!(
        recorded
            .carried
            .iter()
            .any(|c| c.at == "/tools/0/function/strict" && c.value == serde_json::json!(true)),
        "{:?}",
        recorded.carried
    );
    assert!(
        s.carried
            .iter()
            .any(|c| c == "/tools/0/function/strict = true"),
        "{:?}",
        s.carried
    );
    let description = loaded.description.unwrap_or_default();
    for u in s.carried.iter().chain(&s.unmapped) {
        assert!(
            description.contains(u.as_str()),
            "{u} not in the description"
        );
    }
}

/// Rendering the imported scene sends the recorded messages again: same roles, texts, tool
/// calls and tool results, in the same order.
#[test]
fn the_imported_chat_scene_renders_back_to_the_recorded_messages() {
    let path = root().join("openai-chat/weather.scene.json");
    let s = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        chat_provider: Some(ChatProvider::Openai),
        ..Default::default()
    };
    let report = inject::render_with(&s, Family::Chat, &options);
    let sent: Json = serde_json::to_value(&report.request).expect("request");
    let recorded: Json = serde_json::from_str(
        &std::fs::read_to_string(root().join("openai-chat/weather.json")).expect("input"),
    )
    .expect("json");
    let shape = |messages: &Json| -> Vec<String> {
        messages
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| {
                let content = match &m["content"] {
                    Json::Array(parts) => parts
                        .iter()
                        .map(|p| {
                            p.get("text")
                                .and_then(Json::as_str)
                                .unwrap_or("<image>")
                                .to_owned()
                        })
                        .collect::<Vec<_>>()
                        .join("|"),
                    other => other.as_str().unwrap_or("").to_owned(),
                };
                format!(
                    "{} {content} {} {}",
                    m["role"],
                    m["tool_call_id"],
                    m["tool_calls"].as_array().map_or(0, Vec::len)
                )
            })
            .collect()
    };
    assert_eq!(shape(&sent["messages"]), shape(&recorded["messages"]));
    assert_eq!(
        sent["tools"][0]["function"]["parameters"],
        recorded["tools"][0]["function"]["parameters"]
    );
}

fn schema_validates(spec: &str, body: &Json) -> Result<(), String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("conformance/providers/{spec}.schema.json"));
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let index = compiler
        .compile(&path.to_string_lossy(), &mut schemas)
        .map_err(|e| format!("{e:#}"))?;
    schemas.validate(body, index).map_err(|e| format!("{e:#}"))
}

/// The payloads are requests the providers accept, not guesses at their shape.
#[test]
fn the_request_fixtures_fit_the_providers_schemas() {
    let read = |p: &str| -> String {
        std::fs::read_to_string(root().join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let mut bodies: Vec<(&str, String, Json)> = vec![
        (
            "openai-chat-completions",
            "openai-chat/weather.json".into(),
            serde_json::from_str(&read("openai-chat/weather.json")).expect("json"),
        ),
        (
            "openai-responses",
            "openai-responses/support.json".into(),
            serde_json::from_str(&read("openai-responses/support.json")).expect("json"),
        ),
        (
            "anthropic-messages",
            "anthropic/code-review.json".into(),
            serde_json::from_str(&read("anthropic/code-review.json")).expect("json"),
        ),
    ];
    for (i, line) in read("conversation/lisbon.jsonl").lines().enumerate() {
        bodies.push((
            "openai-chat-completions",
            format!("lisbon.jsonl line {}", i + 1),
            serde_json::from_str(line).expect("json"),
        ));
    }
    for (spec, what, body) in &bodies {
        if let Err(e) = schema_validates(spec, body) {
            panic!("{what} does not fit {spec}: {e}");
        }
    }
    // The validator bites: a message without a role is refused.
    let broken = serde_json::json!({"model": "gpt-4o", "messages": [{"content": "hi"}]});
    assert!(schema_validates("openai-chat-completions", &broken).is_err());
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-import-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(args)
        .output()
        .expect("run prompt-inspector")
}

/// End to end: `import --out-dir` writes the numbered calls and `cache` reads them: the system
/// message and the tools stay, so every call after the first reuses a prefix.
#[test]
fn cache_reads_the_imported_conversation() {
    let dir = tempdir("cache");
    let input = root().join("conversation/lisbon.jsonl");
    let out = cli(&[
        "import",
        &input.to_string_lossy(),
        "--out-dir",
        &dir.to_string_lossy(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("read as openai-chat (detected: /messages/0/role"),
        "{stderr}"
    );
    assert!(
        stderr.contains("recorded openai-chat gpt-4o-mini, params: temperature"),
        "{stderr}"
    );
    let files: Vec<String> = (1..=3)
        .map(|i| {
            dir.join(format!("0{i}-lisbon.scene.json"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for (i, f) in files.iter().enumerate() {
        same_as_golden(
            &std::fs::read_to_string(f).expect("written"),
            &root().join(format!("conversation/lisbon/0{}-lisbon.scene.json", i + 1)),
        );
    }
    let mut args = vec!["cache", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let out = cli(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Json = serde_json::from_slice(&out.stdout).expect("cache json");
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 3);
    assert_eq!(
        steps
            .iter()
            .map(|s| s["messages"].as_u64().unwrap_or(0))
            .collect::<Vec<_>>(),
        [2, 4, 6]
    );
    for s in &steps[1..] {
        // Each call only appends: it first differs after everything the previous call sent.
        assert!(s["common_prefix_bytes"].as_u64().unwrap_or(0) > 0, "{s}");
    }
    // A second run does not overwrite without --force.
    let again = cli(&[
        "import",
        &input.to_string_lossy(),
        "--out-dir",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists; pass --force"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_conversation_needs_an_out_dir_and_one_scene_goes_to_stdout() {
    let out = cli(&[
        "import",
        &root().join("conversation/lisbon.jsonl").to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("lisbon.jsonl:2:1: a second request: stdout and -o OUT take one scene"),
        "{stderr}"
    );
    assert!(stderr.contains("pass --out-dir DIR"), "{stderr}");
    // Refused before anything was converted: no scene's summary was printed.
    assert!(!stderr.contains("read as"), "{stderr}");
    let one = cli(&[
        "import",
        &root().join("anthropic/code-review.json").to_string_lossy(),
        "--from",
        "anthropic",
    ]);
    assert!(one.status.success());
    same_as_golden(
        &String::from_utf8_lossy(&one.stdout),
        &root().join("anthropic/code-review.scene.json"),
    );
    assert!(String::from_utf8_lossy(&one.stderr).contains("read as anthropic (--from)"));
}

fn error_of(text: &str, json_lines: bool, from: Option<Source>) -> ImportError {
    match import::import_str(text, "bad.json", json_lines, from) {
        Ok(i) => panic!(
            "imported: {:?}",
            i.scenes.iter().map(|s| &s.name).collect::<Vec<_>>()
        ),
        Err(e) => e,
    }
}

#[test]
fn bad_input_gets_its_line_column_and_pointer() {
    // A JSON syntax error on the second record: that line, the column in it.
    let e = error_of("{\"messages\": []}\n{\"messages\": [}\n", true, None);
    assert_eq!((e.line, e.column), (2, 15), "{e}");
    assert!(e.message.starts_with("invalid JSON"), "{e}");

    // A role no source knows, at its value.
    let body = "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"},\n    {\"role\": \"robot\", \"content\": \"x\"}\n  ]\n}";
    let e = error_of(body, false, Some(Source::OpenaiChat));
    assert_eq!(
        (e.line, e.column, e.pointer.as_str()),
        (4, 14, "/messages/1/role"),
        "{e}"
    );
    assert!(e.message.contains("unknown role \"robot\""), "{e}");

    // A field of the wrong type.
    let e = error_of(
        "{\"messages\": {\"role\": \"user\"}}",
        false,
        Some(Source::Anthropic),
    );
    assert_eq!(
        (e.pointer.as_str(), e.message.as_str()),
        ("/messages", "expected an array, found an object")
    );

    // A missing field names the object it is missing from.
    let e = error_of(
        "{\"model\": \"m\", \"messages\": [{\"role\": \"tool\", \"content\": \"42\"}]}",
        false,
        Some(Source::OpenaiChat),
    );
    assert_eq!(
        (e.pointer.as_str(), e.message.as_str()),
        ("/messages/0", "missing field \"tool_call_id\"")
    );

    // Something that is no request at all.
    let e = error_of("{\"greeting\": \"hello\"}", false, None);
    assert!(
        e.message.starts_with("not a request this command knows"),
        "{e}"
    );
    // A request that is not chat: refused at the field that tells, even when told the source.
    let e = error_of("{\"prompt\": \"hello\"}", false, None);
    assert_eq!(e.pointer, "/prompt", "{e}");
    assert!(e.message.starts_with("a legacy completions request"), "{e}");
    for from in [None, Some(Source::OpenaiResponses)] {
        let e = error_of("{\"input\": [\"a\", \"b\"], \"model\": \"m\"}", false, from);
        assert_eq!(e.pointer, "/input", "{e}");
        assert!(
            e.message.contains("not a chat or generation request"),
            "{e}"
        );
    }
    let e = error_of(
        "{\"input\": \"hi\", \"model\": \"m\", \"dimensions\": 8}",
        false,
        None,
    );
    assert_eq!(
        (e.line, e.column, e.pointer.as_str()),
        (1, 45, "/dimensions"),
        "{e}"
    );
    let e = error_of(
        "{\"gen_ai.operation.name\": \"embeddings\", \"gen_ai.input.messages\": []}",
        false,
        None,
    );
    assert_eq!(e.pointer, "/gen_ai.operation.name", "{e}");
    assert!(e.message.contains("an embeddings call"), "{e}");
    let e = error_of("[1, 2]", false, None);
    assert_eq!(e.message, "expected an object, found an array");

    // Both providers' fields: not guessed.
    let e = error_of(
        "{\"system\": \"s\", \"messages\": [{\"role\": \"tool\", \"content\": \"x\"}]}",
        false,
        None,
    );
    assert!(e.message.contains("pass --from"), "{e}");

    // Records of different kinds in one file.
    let e = error_of(
        "{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}\n\n{\"input\": \"b\"}\n",
        true,
        None,
    );
    assert_eq!(e.line, 3, "{e}");
    assert!(
        e.message.contains("one file holds one kind of request"),
        "{e}"
    );
}

#[test]
fn bad_json_inside_an_otel_attribute_names_the_attribute() {
    let span = r#"{"name": "chat", "attributes": [
  {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
  {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\": \"user\", \"parts\": [}]"}}
]}"#;
    let e = error_of(span, false, None);
    assert_eq!(
        (e.line, e.column, e.pointer.as_str()),
        (3, 45, "/attributes/1/value"),
        "{e}"
    );
    assert!(
        e.message
            .starts_with("in the JSON text of the gen_ai.input.messages attribute"),
        "{e}"
    );

    let flat =
        "{\"gen_ai.input.messages\": [{\"role\": \"user\", \"parts\": [{\"type\": \"text\"}]}]}";
    let e = error_of(flat, false, None);
    assert_eq!(
        (e.pointer.as_str(), e.message.as_str()),
        (
            "/gen_ai.input.messages/0/parts/0",
            "missing field \"content\""
        )
    );

    let e = error_of("{\"gen_ai.request.model\": \"gpt-4o\"}", false, None);
    assert!(e.message.starts_with("no GenAI request here"), "{e}");
}

#[test]
fn only_regular_files_are_read() {
    let dir = tempdir("not-a-file");
    let e = import::import_file(&dir, None).expect_err("a folder is not imported");
    assert_eq!(e.file.as_deref(), Some(dir.as_path()));
    assert_eq!(e.line, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_conversation_for_one_scene_is_refused_before_it_is_converted() {
    // The third line is not JSON: reading the records would fail there, so an error at the
    // second line saying it is a second request shows nothing past the split into lines ran.
    let lines = "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"again\"}]}\n{not json\n";
    let e = import::import_str_one(lines, "calls.jsonl", true, None).expect_err("two requests");
    assert_eq!((e.line, e.column), (3, 1), "{e}");
    assert!(e.message.starts_with("a second request: "), "{e}");
    assert!(e.message.contains("--out-dir DIR"), "{e}");
    // Without the one-scene rule the same text gets as far as the bad line.
    let e = error_of(lines, true, None);
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.starts_with("invalid JSON"), "{e}");

    // One record is one scene.
    let one = import::import_str_one(
        "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n",
        "calls.jsonl",
        true,
        None,
    )
    .expect("one request");
    assert_eq!(one.scenes.len(), 1);

    // An export of several GenAI spans is a conversation too.
    let export = std::fs::read_to_string(root().join("otel/agent-trace.json")).expect("fixture");
    let spans = import::import_str(&export, "agent-trace.json", false, None)
        .expect("imports")
        .scenes
        .len();
    assert!(spans > 1, "the fixture has several GenAI spans");
    let e = import::import_str_one(&export, "agent-trace.json", false, None)
        .expect_err("several spans");
    assert_eq!(
        e.message,
        format!("{spans} spans with a GenAI request: stdout and -o OUT take one scene, and this file holds a conversation: pass --out-dir DIR to write its calls as numbered files")
    );
}

#[test]
fn a_number_too_large_for_a_float_keeps_its_text_and_nan_is_refused() {
    let body = |n: &str| {
        format!(
            "{{\"messages\": [{{\"role\": \"user\", \"content\": \"hi\"}}],\n \"tools\": [{{\"type\": \"function\", \"function\": {{\"name\": \"f\", \"parameters\": {{\"type\": \"number\", \"maximum\": {n}, \"minimum\": -1E+999}}}}}}]}}"
        )
    };
    let got = import::import_str(&body("1e999"), "big.json", false, Some(Source::OpenaiChat))
        .expect("imports");
    let scene: Json = serde_json::from_str(&got.scenes[0].text).expect("scene JSON");
    let params = &scene["tools"][0]["parameters"];
    // The same number, its exponent written with a sign (not null, as it once was).
    assert_eq!(params["maximum"].to_string(), "1e+999", "{params}");
    assert_eq!(params["minimum"].to_string(), "-1e+999", "{params}");
    assert!(got.scenes[0].text.contains("\"maximum\": 1e+999"));
    // The scene reads it back as the request's reader does: a float, infinite.
    let loaded = scene::load_str(&got.scenes[0].text).expect("loads");
    let tool = &loaded.tools[0];
    let Some(prompt_inspector::Value::Dict(p)) = &tool.parameters else {
        panic!("parameters: {:?}", tool.parameters)
    };
    assert_eq!(p["maximum"], prompt_inspector::Value::Float(f64::INFINITY));

    // NaN has no JSON text: refused where it is.
    let e = error_of(&body("NaN"), false, Some(Source::OpenaiChat));
    assert_eq!(
        (e.line, e.column, e.pointer.as_str()),
        (2, 103, "/tools/0/function/parameters"),
        "{e}"
    );
    assert_eq!(
        e.message,
        "NaN is not a JSON number: a scene cannot hold it as it is"
    );

    // Anthropic tool-call input and OTLP doubles alike.
    let anthropic = "{\"system\": \"s\", \"messages\": [{\"role\": \"user\", \"content\": \"go\"}, {\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"f\", \"input\": {\"x\": 2e400}}]}, {\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"t1\", \"content\": \"ok\"}]}]}";
    let got = import::import_str(anthropic, "a.json", false, None).expect("imports");
    assert!(
        got.scenes[0].text.contains("\"x\": 2e+400"),
        "{}",
        got.scenes[0].text
    );
    let span = r#"{"attributes": [
  {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\": \"user\", \"parts\": [{\"type\": \"text\", \"content\": \"hi\"}]}]"}},
  {"key": "gen_ai.request.temperature", "value": {"doubleValue": 1e999}}
]}"#;
    let got = import::import_str(span, "s.json", false, None).expect("imports");
    assert!(
        got.scenes[0]
            .unmapped
            .contains(&"gen_ai.request.temperature = 1e+999".to_owned()),
        "{:?}",
        got.scenes[0].unmapped
    );
}
