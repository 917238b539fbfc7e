//! `prompt-inspector verify` on the usage corpus (corpora/usage): the causes of the recorded
//! conversations' cache misses, checked by hand against the requests and their billed usage;
//! the cache-read agreement; each output format; `--deny`; bad input with its position.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::{cli, tempdir};

fn corpus_json() -> Value {
    let o = cli(&["verify", "corpora/usage", "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("the JSON report")
}

/// The causes of each call of each conversation of corpora/usage/PROVENANCE.md's table, as read
/// from the requests and their usage:
/// - a first call reads nothing and needs no cause, unless it reads (then a call outside the
///   recording warmed the cache: pydantic-ai's test ran before it was recorded);
/// - the tool-search and agent conversations are under their model's minimum (1,024 tokens)
///   wherever the prefix a call repeats is: billed 761 to 1,010 tokens, except
///   `test-tool-search-eval-anthropic#1` call 4, which repeats call 3's 1,122 tokens but no
///   request marks a `cache_control` breakpoint;
/// - `test-openai-prompt-caching` sends one request four times: call 2 reads 1,024, calls 3 and
///   4 nothing, which the requests do not explain (OpenAI's cache does not guarantee a hit).
fn expected() -> BTreeMap<&'static str, Vec<Vec<&'static str>>> {
    let below = "miss_below_minimum";
    let mut m = BTreeMap::new();
    m.insert(
        "openllmetry:test-anthropic-prompt-caching-legacy",
        vec![vec![], vec![]],
    );
    m.insert(
        "openinference:test-anthropic-instrumentation-messages-token-counts",
        vec![vec![], vec![]],
    );
    m.insert(
        "pydantic-ai:test-anthropic-cache-real-api",
        vec![vec!["read_warmed_outside"], vec![]],
    );
    m.insert(
        "pydantic-ai:test-inline-system-prompt-cache-prefix-is-reused",
        vec![vec![], vec![]],
    );
    m.insert(
        "pydantic-ai:test-tool-search-eval-anthropic#0",
        vec![vec![], vec![below], vec![below]],
    );
    m.insert(
        "pydantic-ai:test-tool-search-eval-anthropic#1",
        vec![vec![], vec![below], vec![below], vec!["miss_no_breakpoint"]],
    );
    m.insert(
        "pydantic-ai:test-tool-search-eval-anthropic#2",
        vec![vec![], vec![below]],
    );
    m.insert(
        "pydantic-ai:test-tool-search-eval-anthropic#3",
        vec![vec![], vec![below]],
    );
    m.insert(
        "pydantic-ai:test-anthropic-mixed-strict-tool-run",
        vec![vec![], vec![below], vec![below]],
    );
    m.insert(
        "openllmetry:test-openai-prompt-caching",
        vec![
            vec![],
            vec![],
            vec!["miss_provider_side"],
            vec!["miss_provider_side"],
        ],
    );
    m.insert("openinference:test-cached-tokens", vec![vec![], vec![]]);
    m.insert(
        "pydantic-ai:test-openai-chat-prompt-cache-e2e",
        vec![vec![], vec![]],
    );
    m.insert(
        "pydantic-ai:test-tool-search-eval-openai-chat#0",
        vec![vec![], vec![below], vec![below]],
    );
    m.insert(
        "pydantic-ai:test-tool-search-eval-openai-chat#1",
        vec![vec![], vec![below], vec![below]],
    );
    m.insert(
        "pydantic-ai:test-openai-responses-prompt-cache-e2e",
        vec![vec![], vec![]],
    );
    m.insert(
        "pydantic-ai:test-openai-responses-thinking-with-tool-calls",
        vec![vec![], vec![]],
    );
    m.insert(
        "openllmetry:test-recipe-workflow-agent-handoffs-with-function-tools",
        vec![vec![], vec![below], vec![below]],
    );
    m.insert(
        "openllmetry:test-tool-call-and-result-attributes",
        vec![vec![], vec![below], vec![below], vec![below]],
    );
    m
}

fn causes(call: &Value) -> Vec<String> {
    call["causes"]
        .as_array()
        .expect("causes")
        .iter()
        .map(|c| c["code"].as_str().expect("code").to_owned())
        .collect()
}

#[test]
fn the_corpus_conversations_have_their_hand_checked_causes() {
    let report = corpus_json();
    let conversations = report["conversations"].as_array().expect("conversations");
    let found: BTreeMap<&str, &Value> = conversations
        .iter()
        .map(|c| (c["name"].as_str().expect("name"), c))
        .collect();
    let expected = expected();
    assert_eq!(expected.len(), 18, "PROVENANCE.md's table");
    for (name, want) in &expected {
        let c = found
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not a conversation of the report"));
        let got: Vec<Vec<String>> = c["calls"]
            .as_array()
            .expect("calls")
            .iter()
            .map(causes)
            .collect();
        assert_eq!(&got, want, "{name}");
    }
    // The calls on their own: two read a cache no call of the corpus wrote.
    let alone: BTreeMap<&str, Vec<String>> = conversations
        .iter()
        .filter(|c| !expected.contains_key(c["name"].as_str().unwrap_or("")))
        .flat_map(|c| c["calls"].as_array().into_iter().flatten())
        .filter(|call| !causes(call).is_empty())
        .map(|call| {
            let label = call["label"].as_str().expect("label");
            let file = label.rsplit('/').next().unwrap_or(label);
            (file, causes(call))
        })
        .collect();
    let want: BTreeMap<&str, Vec<String>> = [
        // A copy of the four-call test run after it: its first request reads the 1,024 tokens.
        (
            "033-openai-chat-test-openai-prompt-caching-async-with-events-with-no-content.json",
            vec!["read_warmed_outside".to_owned()],
        ),
        // 9 tokens billed, 2 read and 1 written: under any minimum, so not what a provider bills.
        (
            "011-anthropic-testtokencounts-test-anthropic.json",
            vec!["miss_provider_side".to_owned()],
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(alone, want);
}

#[test]
fn every_corpus_miss_has_a_cause_and_only_repeats_the_provider_drops_are_unknown() {
    let report = corpus_json();
    let mut misses = 0;
    for call in report["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .flat_map(|c| c["calls"].as_array().into_iter().flatten())
    {
        if call["miss"] == true {
            misses += 1;
            assert_eq!(causes(call).len(), 1, "{call}");
            let cause = &call["causes"][0];
            assert!(cause["message"].as_str().is_some_and(|m| !m.is_empty()));
            assert!(
                cause["cost_usd"].as_f64().is_some_and(|x| x >= 0.0),
                "{cause}"
            );
        }
    }
    let cache = &report["summary"]["cache"];
    assert_eq!(cache["misses"], misses);
    assert_eq!(cache["misses"], 20);
    assert_eq!(
        cache["unexplained"], 2,
        "only test-openai-prompt-caching's calls 3 and 4 repeat a cached prompt unread"
    );
}

#[test]
fn predicted_cache_reads_agree_with_the_recorded_ones() {
    let report = corpus_json();
    let cache = &report["summary"]["cache"];
    let share =
        |a: &str, b: &str| cache[a].as_f64().expect(a) / cache[b].as_f64().expect(b).max(1.0);
    assert_eq!(
        cache["reporting"], 146,
        "the corpus calls whose usage reports reads"
    );
    assert!(share("agreeing", "reporting") >= 0.9, "{cache}");
    // Of the 12 calls that read, three read what no recorded call wrote (a cache warmed before
    // the recording, and an edited one); the prediction agrees on every other.
    assert_eq!(cache["reading"], 12);
    assert_eq!(cache["agreeing_reading"], 9, "{cache}");
    let warmed = report["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .flat_map(|c| c["calls"].as_array().into_iter().flatten())
        .filter(|call| call["cache_read"]["billed"].as_u64() > Some(0))
        .filter(|call| call["cache_read"]["agrees"] == false)
        .map(causes)
        .collect::<Vec<_>>();
    assert_eq!(warmed.len(), 3);
    assert!(warmed
        .iter()
        .all(|c| c == &["read_warmed_outside"] || c == &["miss_provider_side"]));
}

#[test]
fn the_text_form_explains_each_call_and_sums_up() {
    let o = cli(&["verify", "corpora/usage/openllmetry"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Conversation openllmetry:test-openai-prompt-caching (4 calls)"),
        "{text}"
    );
    for line in [
        "    input       predicted",
        "    cache read  predicted",
        "    cache write predicted",
        "    input cost  predicted",
        "    cause       miss_provider_side ($0.000077): this call repeats",
        "  Totals: input ",
        "Summary: 46 calls in ",
        "  Cache reads: the prediction agrees on ",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn junit_has_a_suite_per_conversation_and_fails_denied_calls() {
    let o = cli(&[
        "verify",
        "corpora/usage/openllmetry",
        "--format",
        "junit",
        "--deny",
        "miss_provider_side",
    ]);
    assert_eq!(o.status.code(), Some(1), "a denied cause");
    let xml = String::from_utf8_lossy(&o.stdout);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    assert!(xml.contains("failures=\"2\""), "{xml}");
    assert!(
        xml.contains(
            "<testsuite name=\"openllmetry:test-openai-prompt-caching\" tests=\"4\" failures=\"2\""
        ),
        "{xml}"
    );
    assert!(xml.contains("<failure type=\"denied\" message=\"denied causes: miss_provider_side\">"));
    assert_eq!(xml.matches("<testcase ").count(), 46);
}

#[test]
fn github_annotates_each_cause_on_its_file() {
    let o = cli(&[
        "verify",
        "corpora/usage/openllmetry",
        "--format",
        "github",
        "--deny",
        "miss_below_minimum",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.contains("005-openai-chat-test-openai-prompt-caching-c3.json"))
        .expect("an annotation for call 3");
    assert!(
        line.starts_with(
            "::notice file=corpora/usage/openllmetry/005-openai-chat-test-openai-prompt-caching-c3.json,title=miss_provider_side::call 3: "
        ),
        "{line}"
    );
    assert!(
        out.contains(",title=Denied miss_below_minimum::call 2: "),
        "{out}"
    );
    assert!(out.contains("\nSummary: 46 calls in "), "{out}");
    // No line of ours starts a workflow command by accident: only the annotations do.
    for l in out.lines().filter(|l| l.starts_with("::")) {
        assert!(
            l.starts_with("::error ") || l.starts_with("::warning ") || l.starts_with("::notice "),
            "{l}"
        );
    }
}

#[test]
fn deny_fails_only_on_a_cause_found() {
    let ok = cli(&[
        "verify",
        "corpora/usage/pydantic-ai",
        "--deny",
        "miss_tools_changed",
    ]);
    assert_eq!(ok.status.code(), Some(0), "no call has it");
    let denied = cli(&[
        "verify",
        "corpora/usage/pydantic-ai",
        "--deny",
        "read_warmed_outside",
    ]);
    assert_eq!(denied.status.code(), Some(1));
    let text = String::from_utf8_lossy(&denied.stdout);
    assert_eq!(
        text.matches("DENIED read_warmed_outside").count(),
        1,
        "{text}"
    );
}

#[test]
fn bad_input_names_the_file_line_column_and_field() {
    let dir = tempdir("verify", "bad");
    let bad_seq = dir.join("seq.json");
    std::fs::write(
        &bad_seq,
        "{\n  \"model\": \"gpt-4o\",\n  \"request\": {\"messages\": []},\n  \"response_usage\": {\"prompt_tokens\": 3},\n  \"seq\": -1\n}\n",
    )
    .expect("write");
    let not_json = dir.join("broken.json");
    std::fs::write(&not_json, "{\"request\": {\n  \"messages\": [,]}}").expect("write");
    let good = dir.join("good.json");
    std::fs::write(
        &good,
        r#"{"model": "gpt-4o", "request": {"messages": [{"role": "user", "content": "hi"}]},
            "response_usage": {"prompt_tokens": 8, "prompt_tokens_details": {"cached_tokens": 0}}}"#,
    )
    .expect("write");
    let o = cli(&["verify", dir.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "unreadable input");
    let err = String::from_utf8_lossy(&o.stderr);
    let seq = format!(
        "{}:5:10: /seq: expected the call's 1-based place, found -1",
        bad_seq.display()
    );
    assert!(err.contains(&seq), "{err}");
    let broken = format!("{}:2:16: expected value", not_json.display());
    assert!(err.contains(&broken), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("the report of the rest");
    assert_eq!(v["summary"]["calls"], 1, "the good file is verified");
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["errors"][1]["pointer"], "/seq");
    assert_eq!(v["errors"][1]["line"], 5);
    let missing = cli(&["verify", "no/such/file.json"]);
    assert_eq!(missing.status.code(), Some(2));
    let unknown = cli(&["verify", "corpora/usage", "--deny", "miss_tool_changed"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("miss_tools_changed"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_api_operation_answers_the_report_and_the_errors() {
    let live = prompt_inspector::api::Live::new();
    let root = crate::support::root();
    let folder = root.join("corpora/usage/openinference");
    let body = serde_json::json!({
        "paths": [folder.display().to_string(), root.join("no-such.json").display().to_string()]
    });
    let out = prompt_inspector::api::dispatch(&live, "verify", &body.to_string()).expect("answers");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["report"]["summary"]["calls"], 29);
    let names: Vec<&str> = v["report"]["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"openinference:test-cached-tokens"),
        "{names:?}"
    );
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["errors"][0]["code"], "io_error");
    let e =
        prompt_inspector::api::dispatch(&live, "verify", r#"{"paths": []}"#).expect_err("no paths");
    assert_eq!(e.field.as_deref(), Some("paths"));
}

/// The two calls of a recorded Anthropic conversation imported as scenes into a fresh folder:
/// call 1 writes 1,163 tokens (system prompt and the user's text, up to its breakpoint), call 2
/// reads them.
fn imported(tag: &str) -> std::path::PathBuf {
    let dir = tempdir("verify", tag);
    let o = cli(&[
        "import",
        "fixtures/import/vcr/anthropic-prompt-caching.yaml",
        "--out-dir",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    dir
}

fn edit_scene(path: &std::path::Path, edit: impl FnOnce(&mut Value)) {
    let mut scene: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("scene")).expect("json");
    edit(&mut scene);
    std::fs::write(path, serde_json::to_string_pretty(&scene).expect("json")).expect("write");
}

fn verify_json(path: &std::path::Path) -> Value {
    let o = cli(&["verify", path.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("json")
}

#[test]
fn imported_scenes_and_the_cassette_itself_verify_alike() {
    let dir = imported("scenes");
    let from_scenes = verify_json(&dir);
    let from_cassette = verify_json(std::path::Path::new(
        "fixtures/import/vcr/anthropic-prompt-caching.yaml",
    ));
    for v in [&from_scenes, &from_cassette] {
        let calls = &v["conversations"][0]["calls"];
        assert_eq!(calls.as_array().map(Vec::len), Some(2), "{v}");
        assert_eq!(calls[0]["cache_write"]["billed"], 1163);
        assert_eq!(calls[1]["cache_read"]["billed"], 1163);
        assert_eq!(calls[1]["cache_read"]["agrees"], true, "{}", calls[1]);
        assert_eq!(calls[1]["cache_read"]["from_call"], 1);
        assert_eq!(calls[1]["causes"], serde_json::json!([]));
    }
    assert_eq!(
        from_scenes["conversations"][0]["name"],
        dir.display().to_string(),
        "a folder of scenes is one conversation"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_scene_conversation_names_the_configured_prompt_that_broke_the_prefix() {
    let dir = imported("who");
    edit_scene(&dir.join("02-anthropic-prompt-caching.scene.json"), |s| {
        let text = &mut s["chat_llm"]["system_msg_prompt"][0]["template"]["templates"]["default"];
        *text = Value::String(format!("Briefly. {}", text.as_str().expect("text")));
        s["recorded"]["usage"] = serde_json::json!({"input_total": 1170, "uncached": 4,
            "cache_read": 0, "cache_write": {"5m": 1166}, "output": 202});
    });
    let v = verify_json(&dir);
    let call = &v["conversations"][0]["calls"][1];
    assert_eq!(call["miss"], true);
    assert_eq!(causes(call), ["miss_system_changed"]);
    let d = &call["causes"][0]["difference"];
    assert_eq!(d["pointer"], "/system/0/text");
    assert_eq!(d["byte"], 0);
    assert_eq!(d["who"], "the configured prompt system_msg_prompt[0]");
    assert_eq!(call["causes"][0]["tokens"], 1163, "what call 1 wrote");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recorded_timestamps_past_the_ttl_are_the_cause() {
    let dir = imported("ttl");
    edit_scene(&dir.join("02-anthropic-prompt-caching.scene.json"), |s| {
        s["recorded"]["timestamp"] = Value::String("2025-03-15T09:52:04Z".to_owned());
        s["recorded"]["usage"] = serde_json::json!({"input_total": 1167, "uncached": 4,
            "cache_read": 0, "cache_write": {"5m": 1163}, "output": 202});
    });
    let v = verify_json(&dir);
    let call = &v["conversations"][0]["calls"][1];
    assert_eq!(causes(call), ["miss_ttl_expired"], "{call}");
    let message = call["causes"][0]["message"].as_str().expect("message");
    assert!(
        message.contains("past the 5m the cache keeps a prefix"),
        "{message}"
    );
    assert_eq!(
        call["cache_read"]["predicted_high"], 0,
        "predicted expired too"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
