//! The cache-safety lint (docs/diagnostics.md, "Cache-safety lint"): each code fires on the
//! fixture made for it, with the tool or prompt and the template line it names, stays quiet on
//! the clean fixtures, stays out of goldens, and `--deny` turns a finding into a failure.

use std::process::Output;

use serde_json::Value as Json;

use crate::support::{cli, root};

fn json_of(o: &Output) -> Json {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// `(code, tool, segment, prompt, line)` of a lint finding.
type Found = (String, Option<String>, String, Option<u64>, Option<u64>);

/// `(call, code, tool, prompt, line)` of a finding of `cache`.
type CallFound<'a> = (
    Option<u64>,
    &'a str,
    Option<&'a str>,
    Option<u64>,
    Option<u64>,
);

/// Each lint finding of a render.
fn findings(scene: &str, llm: &str) -> Vec<Found> {
    let report = json_of(&cli(&["render", scene, "--llm", llm, "--format", "json"]));
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"].as_str().is_some_and(|c| c.starts_with("cache_")))
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_owned(),
                d["tool"].as_str().map(str::to_owned),
                d["segment"].as_str().unwrap_or("").to_owned(),
                d["prompt"].as_u64(),
                d["line"].as_u64(),
            )
        })
        .collect()
}

fn f(
    code: &str,
    tool: Option<&str>,
    segment: &str,
    prompt: Option<u64>,
    line: Option<u64>,
) -> Found {
    (
        code.into(),
        tool.map(Into::into),
        segment.into(),
        prompt,
        line,
    )
}

#[test]
fn a_tool_writing_into_the_prefix_is_named_in_each_family() {
    let scene = "fixtures/lint/prefix-injection.scene.json";
    assert_eq!(
        findings(scene, "chat"),
        [f(
            "cache_prefix_injection",
            Some("house_style"),
            "system_msg_prompt",
            None,
            None
        )]
    );
    // late_hint writes after the prefix in both families: not a finding.
    assert_eq!(
        findings(scene, "desk"),
        [f(
            "cache_prefix_injection",
            Some("house_style"),
            "instruction_prompt",
            None,
            None
        )]
    );
}

#[test]
fn volatile_values_in_the_prefix_name_their_template_line() {
    let found = findings("fixtures/lint/volatile-values.scene.json", "chat");
    assert_eq!(
        found,
        [
            f(
                "cache_prefix_injection",
                Some("tracer"),
                "after_input_msg_prompt",
                None,
                None
            ),
            // "The time is {now}." is the second line of the system prompt.
            f(
                "cache_volatile_value",
                None,
                "system_msg_prompt",
                Some(0),
                Some(2)
            ),
            // "This is turn {{ session.turn }} ..." reads the counter.
            f(
                "cache_volatile_value",
                None,
                "before_input_msg_prompt",
                Some(0),
                Some(2)
            ),
            // "Request id: {ctx[request_id]}" is the tool's second line.
            f(
                "cache_volatile_value",
                Some("tracer"),
                "after_input_msg_prompt",
                None,
                Some(2)
            ),
        ]
    );
    let report = json_of(&cli(&[
        "render",
        "fixtures/lint/volatile-values.scene.json",
        "--format",
        "json",
    ]));
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    for shown in [
        "a time of day `2026-12-01T10:15:30Z`",
        "a counter `turn = 7`",
        "a UUID `3f2b8c1e-9a4d-4e2f-8b6a-1c2d3e4f5a6b`",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(shown)),
            "{shown}: {messages:?}"
        );
    }
}

#[test]
fn the_lint_is_quiet_on_clean_scenes() {
    for llm in ["chat", "desk"] {
        assert_eq!(findings("fixtures/lint/clean.scene.json", llm), [], "{llm}");
    }
    // No other fixture holds a per-call value in its prefix.
    let out = cli(&[
        "check",
        "fixtures/",
        "examples/python/",
        "--deny",
        "cache_volatile_value",
        "--format",
        "json",
    ]);
    let summary = json_of(&out);
    let denied: Vec<&Json> = summary["scenes"]
        .as_array()
        .expect("scenes")
        .iter()
        .filter(|s| s["status"] == "denied")
        .collect();
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(
        denied[0]["path"],
        "fixtures/lint/volatile-values.scene.json"
    );
    assert_eq!(denied[0]["denied"].as_array().map(Vec::len), Some(3));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn goldens_hold_no_lint_findings_and_deny_fails_the_scene() {
    let golden: Json = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/lint/volatile-values.golden.json"))
            .expect("golden"),
    )
    .expect("golden json");
    assert_eq!(golden["chat"]["diagnostics"], serde_json::json!([]));
    let scene = "fixtures/lint/volatile-values.scene.json";
    assert_eq!(cli(&["check", scene]).status.code(), Some(0));
    let denied = cli(&["check", scene, "--deny", "cache_volatile_value"]);
    assert_eq!(denied.status.code(), Some(1));
    let text = String::from_utf8_lossy(&denied.stdout);
    assert!(
        text.contains("DENIED chat cache_volatile_value: tracer's text"),
        "{text}"
    );
    assert_eq!(
        cli(&[
            "check",
            "fixtures/lint/clean.scene.json",
            "--deny",
            "cache_volatile_value"
        ])
        .status
        .code(),
        Some(0)
    );
    let typo = cli(&["check", scene, "--deny", "cache_volatile"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&typo.stderr)
            .contains("unknown diagnostic code \"cache_volatile\""),
        "a misspelt code must not pass CI silently"
    );
}

#[test]
fn a_prefix_that_changes_between_calls_names_the_tool_prompt_and_line() {
    let calls = [
        "fixtures/lint/prefix-changed/01.scene.json",
        "fixtures/lint/prefix-changed/02.scene.json",
        "fixtures/lint/prefix-changed/03.scene.json",
    ];
    let mut args = vec![
        "cache",
        "--format",
        "json",
        "--model",
        "anthropic/claude-haiku-4-5",
    ];
    args.extend(calls);
    let report = json_of(&cli(&args));
    let found: Vec<CallFound> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["call"].as_u64(),
                d["code"].as_str().unwrap_or(""),
                d["tool"].as_str(),
                d["prompt"].as_u64(),
                d["line"].as_u64(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (Some(0), "cache_prefix_injection", Some("todo"), None, None),
            // The list grows: line 2 of the tool's template loops over state.todo.
            (Some(1), "cache_prefix_changed", Some("todo"), None, Some(2)),
            // Call 3's system prompt was edited on its second line, and the list grew again.
            (Some(2), "cache_prefix_changed", None, Some(0), Some(2)),
            (Some(2), "cache_prefix_changed", Some("todo"), None, Some(2)),
            (None, "cache_below_minimum", None, None, None),
        ]
    );
    let minimum = report["diagnostics"][4]["message"].as_str().unwrap_or("");
    assert!(
        minimum
            .contains("needs 4,096 tokens, none of the 3 requests reaches it (01.scene.json has"),
        "{minimum}"
    );
    let mut deny = vec!["cache", "--deny", "cache_prefix_changed"];
    deny.extend(calls);
    assert_eq!(cli(&deny).status.code(), Some(1));
    // The late-notes conversation writes after the prefix: nothing changes in it.
    let late = cli(&[
        "cache",
        "--deny",
        "cache_prefix_changed",
        "--deny",
        "cache_prefix_injection",
        "fixtures/cache/late-notes/01.scene.json",
        "fixtures/cache/late-notes/02.scene.json",
        "fixtures/cache/late-notes/03.scene.json",
    ]);
    assert_eq!(
        late.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&late.stderr)
    );
}

#[test]
fn run_names_the_rounds_below_a_models_minimum() {
    let scene = "fixtures/run/long-goal.scene.json";
    let out = cli(&[
        "run",
        scene,
        "--format",
        "json",
        "--model",
        "anthropic/claude-haiku-4-5",
    ]);
    let report = json_of(&out);
    let d = &report["diagnostics"][0];
    assert_eq!(d["code"], "cache_below_minimum");
    assert!(
        d["message"]
            .as_str()
            .unwrap_or("")
            .contains("needs 4,096 tokens"),
        "{d}"
    );
    let denied = cli(&[
        "run",
        scene,
        "--model",
        "anthropic/claude-haiku-4-5",
        "--deny",
        "cache_below_minimum",
    ]);
    assert_eq!(denied.status.code(), Some(1));
    // A model whose minimum the rounds pass is no finding.
    let deepseek = json_of(&cli(&[
        "run",
        scene,
        "--format",
        "json",
        "--model",
        "deepseek/deepseek-flash",
    ]));
    assert!(deepseek.get("diagnostics").is_none(), "{deepseek}");
}

#[test]
fn render_names_the_chosen_models_a_call_is_too_short_for() {
    let scene = "fixtures/lint/clean.scene.json";
    let codes = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["render", scene, "--format", "json"];
        all.extend(args);
        json_of(&cli(&all))["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    d["code"].as_str().unwrap_or(""),
                    d["message"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(
        codes(&[]),
        Vec::<String>::new(),
        "no model chosen, no minimum"
    );
    let found = codes(&[
        "--model",
        "anthropic/claude-haiku-4-5",
        "--model",
        "deepseek/deepseek-flash",
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("cache_below_minimum anthropic/claude-haiku-4-5's cache needs 4,096 tokens, this request has "),
        "{found:?}"
    );
}

#[test]
fn tool_definitions_come_first_in_the_cached_prefix() {
    let out = cli(&[
        "cache",
        "--format",
        "json",
        "fixtures/cache/schema-change/01.scene.json",
        "fixtures/cache/schema-change/02.scene.json",
    ]);
    let report = json_of(&out);
    let step = &report["steps"][1];
    // Call 2 changed only web_search's parameters; the system message and the messages are
    // the same, yet the first difference is before them all.
    let now = &step["first_difference"]["now"];
    assert_eq!(now["source"], "definition", "{step}");
    assert_eq!(now["tool"], "web_search");
    assert_eq!(now["message"], Json::Null);
    assert_eq!(step["messages"], 4, "the definitions are not a message");
    assert_eq!(
        step["anthropic"]["breakpoints"][0]["message"], 0,
        "the system message is still message 0"
    );
    let changed: Vec<&Json> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "cache_prefix_changed")
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0]["tool"], "web_search");
    assert_eq!(changed[0]["call"], 1);
    // The definitions are part of what each call sends, so of what it costs.
    let first = report["steps"][0]["request_tokens"].as_u64().unwrap_or(0);
    let rendered = json_of(&cli(&[
        "render",
        "fixtures/cache/schema-change/01.scene.json",
        "--format",
        "json",
    ]));
    let definitions: u64 = rendered["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["definition"]["tokens"].as_u64())
        .sum();
    assert!(definitions > 20, "{definitions}");
    assert!(
        first > definitions,
        "{first} tokens with {definitions} of definitions"
    );
}
