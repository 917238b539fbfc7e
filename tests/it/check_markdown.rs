//! `check` says what a mismatch changes in money (tokens, cost, cache read) in every output, and
//! `--format markdown` summarises a run for a pull-request comment.

use std::path::{Path, PathBuf};
use std::time::Duration;

use prompt_inspector::billing;
use prompt_inspector::check::costs::CostChange;
use prompt_inspector::check::{markdown, Checked, Outcome};
use prompt_inspector::usage::{Api, Provenance};
use serde_json::{json, Value};

use crate::support::{run, tempdir};

const SYSTEM: &str = "You are a desktop assistant. Be brief.";
const CHANGED: &str = "You are a careful desktop assistant. Be brief and precise.";
const USER: &str = "Export the report as PDF";

/// A one-row models table whose prices make the arithmetic plain: $1 a token, a cached token
/// $0.10, a cache of whole tokens from 8 up.
fn dollar_a_token_table(dir: &Path) -> PathBuf {
    let table = json!({
        "format": "prompt-inspector/models@1",
        "models": [{
            "id": "openai/dollar-a-token",
            "models": ["gpt-4o"],
            "default": true,
            "cache": {"min_tokens": 8, "growth": "units", "unit_tokens": 1,
                      "order": ["tools", "system", "messages"], "ttl": ["in_memory"],
                      "writes_charged": false},
            "prices_per_mtok": {"input": 1000000.0, "cached_input": 100000.0, "output": 1000000.0},
            "sources": ["https://example.com/prices"],
            "read": "2026-01-02"
        }]
    });
    let path = dir.join("models.json");
    std::fs::write(&path, table.to_string()).expect("table");
    path
}

/// A scene whose chat call is a system prompt and the user's input, blessed, then its system
/// prompt changed.
fn changed_scene(dir: &Path) -> PathBuf {
    let scene = |system: &str| {
        let prompt = json!([{"kind": "normalize", "template": {"engine": "fstring", "templates": {"default": system}}}]);
        json!({
            "format": "prompt-inspector/scene@1",
            "name": "priced",
            "context": {"user_input": {"input": USER}},
            "chat_llm": {"system_msg_prompt": prompt},
        })
        .to_string()
    };
    let path = dir.join("priced.scene.json");
    std::fs::write(&path, scene(SYSTEM)).expect("scene");
    let blessed = run(&["check", path.to_str().expect("path"), "--bless"]);
    assert_eq!(blessed.status.code(), Some(0));
    std::fs::write(&path, scene(CHANGED)).expect("scene");
    path
}

/// What OpenAI is sent for the call with this system prompt, written out by hand.
fn billed(system: &str) -> usize {
    let body = json!({"model": "gpt-4o", "messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": USER},
    ]});
    billing::predict(Api::OpenaiChat, "gpt-4o", &body)
        .expect("counted")
        .input_tokens
}

#[test]
fn a_mismatch_says_its_token_cost_and_cache_change_in_every_output() {
    let dir = tempdir("check-markdown", "costs");
    let scene = changed_scene(&dir);
    let table = dollar_a_token_table(&dir);
    let (scene, table) = (scene.to_str().expect("path"), table.to_str().expect("path"));
    let json_out = run(&["check", scene, "--models", table, "--format", "json"]);
    assert_eq!(json_out.status.code(), Some(1), "a mismatch");
    let report: Value = serde_json::from_slice(&json_out.stdout).expect("JSON");
    let costs = report["scenes"][0]["costs"].as_array().expect("costs");
    // The desk call has no prompt of the scene's, so only the chat call changed.
    assert_eq!(costs.len(), 1, "{costs:?}");
    let c = &costs[0];
    let (before, after) = (billed(SYSTEM), billed(CHANGED));
    assert!(after > before, "{before} → {after}: the prompt grew");
    assert_eq!(c["llm"], "chat");
    assert_eq!(c["model"], "openai/dollar-a-token");
    assert_eq!(c["tokens_before"].as_u64(), Some(before as u64));
    assert_eq!(c["tokens_after"].as_u64(), Some(after as u64));
    // $1 a token, as a first call.
    assert_eq!(c["cost_before_usd"].as_f64(), Some(before as f64));
    assert_eq!(c["cost_after_usd"].as_f64(), Some(after as f64));
    // Sent again unchanged, the golden's call is served whole from the cache (whole tokens
    // from 8 up); the system message comes first, so the call now shares nothing with it but
    // what precedes every message, fewer than 8 tokens: no read.
    assert_eq!(c["cache_read_before"].as_u64(), Some(before as u64));
    assert_eq!(c["cache_read_after"].as_u64(), Some(0));
    assert!(c["common_prefix_tokens"].as_u64() < Some(8));

    let text = String::from_utf8(run(&["check", scene, "--models", table]).stdout).expect("UTF-8");
    let provenance: Provenance = serde_json::from_value(c["provenance"].clone()).expect("label");
    let line = format!(
        "  chat · openai/dollar-a-token: {before} → {after} tokens (+{}; {provenance}) · ${:.6} → ${:.6} (+${:.6}) · cache read {before} → 0 (-{before})\n",
        after - before,
        before as f64,
        after as f64,
        (after - before) as f64
    );
    assert!(text.contains(&line), "{line}\nnot in\n{text}");
    let cost_at = text.find("Cost change, golden → now").expect("the block");
    let segments_at = text.find("Segments whose text differs").expect("segments");
    assert!(cost_at < segments_at, "the money first, then the text");

    let junit = dir.join("report.xml");
    let github = run(&[
        "check",
        scene,
        "--models",
        table,
        "--format",
        "github",
        "--junit",
        junit.to_str().expect("path"),
    ]);
    let github = String::from_utf8(github.stdout).expect("UTF-8");
    let annotation = github
        .lines()
        .find(|l| l.starts_with("::error ") && l.contains("Golden mismatch"))
        .expect("an annotation");
    assert!(
        annotation.contains("%0A  chat · openai/dollar-a-token: "),
        "{annotation}"
    );
    let xml = std::fs::read_to_string(&junit).expect("JUnit");
    assert!(xml.contains("Cost change, golden → now"), "{xml}");
    assert!(xml.contains(&line.replace('>', "&gt;")), "{xml}");

    let html = dir.join("report.html");
    run(&[
        "check",
        scene,
        "--models",
        table,
        "--html",
        html.to_str().expect("path"),
    ]);
    let page = std::fs::read_to_string(&html).expect("page");
    assert!(page.contains(&format!(
        "<tr><th scope=\"row\">chat · openai/dollar-a-token</th><td>{before} → {after} (+{})</td>",
        after - before
    )));
    assert!(
        page.contains("Prices as read on 2026-01-02 from <a href=\"https://example.com/prices\">")
    );
}

#[test]
fn markdown_is_a_pull_request_comment_made_offline() {
    let dir = tempdir("check-markdown", "cli");
    let scene = changed_scene(&dir);
    let table = dollar_a_token_table(&dir);
    let out = run(&[
        "check",
        scene.to_str().expect("path"),
        "--models",
        table.to_str().expect("path"),
        "--format",
        "markdown",
    ]);
    assert_eq!(out.status.code(), Some(1), "a mismatch still fails");
    let md = String::from_utf8(out.stdout).expect("UTF-8");
    let (before, after) = (billed(SYSTEM), billed(CHANGED));
    assert!(md.starts_with("### Prompt Inspector check: 0 passed, 1 failed\n"));
    // Per 1,000 calls at $1 a token: $1,000 a token.
    let row = format!(
        "| chat · `openai/dollar-a-token` | {before} → {after} (+{}) | ${:.4} → ${:.4} (+${:.4}) | {before} → 0 (-{before}) |",
        after - before,
        before as f64 * 1000.0,
        after as f64 * 1000.0,
        (after - before) as f64 * 1000.0,
    );
    assert!(md.contains(&row), "{row}\nnot in\n{md}");
    assert!(md.contains("Prices as read on 2026-01-02"));
    assert!(md.contains("<details><summary>"));
    assert!(md.contains(&format!("- {SYSTEM}\n+ {CHANGED}\n")), "{md}");
    let passing = crate::support::cli(&[
        "check",
        "fixtures/default.scene.json",
        "--format",
        "markdown",
    ]);
    assert_eq!(passing.status.code(), Some(0));
}

fn change(
    llm: &'static str,
    model: &str,
    tokens: (usize, usize),
    cache: (usize, usize),
) -> CostChange {
    // $2.50 per million input tokens.
    CostChange {
        llm,
        model: model.to_owned(),
        provenance: Provenance::Exact,
        tokens_before: tokens.0,
        tokens_after: tokens.1,
        cost_before_usd: tokens.0 as f64 * 2.5 / 1e6,
        cost_after_usd: tokens.1 as f64 * 2.5 / 1e6,
        common_prefix_tokens: cache.1,
        cache_read_before: cache.0,
        cache_read_after: cache.1,
    }
}

fn checked(path: &str, outcome: Outcome, costs: Vec<CostChange>) -> Checked {
    Checked {
        path: PathBuf::from(path),
        outcome,
        denied: Vec::new(),
        difference: None,
        costs,
        denied_at: Vec::new(),
        elapsed: Duration::ZERO,
        reports: None,
    }
}

#[test]
fn the_markdown_summary_of_a_run() {
    let diff = "Segments whose text differs (- golden, + now):\n  chat · system_msg_prompt\n    - You are a desktop assistant.\n    + You are a careful `desktop` assistant.\n      Note: the user prefers | pipes.\nTools whose outcome differs (golden → now):\n  chat · tf_notes: injected at system_msg_prompt → error at system_msg_prompt\n--- a.golden.json (golden)\n+++ a.golden.json (now)\n@@ -1 +1 @@\n-x\n+y\n";
    let results = vec![
        checked("scenes/ok.scene.json", Outcome::Match, Vec::new()),
        checked(
            "scenes/a|b.scene.json",
            Outcome::Mismatch(diff.to_owned()),
            vec![
                change("chat", "openai/gpt-4o", (1_408, 1_536), (1_408, 1_024)),
                CostChange {
                    provenance: Provenance::Estimate { bound_percent: 3.0 },
                    ..change(
                        "desk",
                        "anthropic/claude-sonnet-4-5",
                        (2_000, 1_990),
                        (2_000, 2_000),
                    )
                },
            ],
        ),
        checked(
            "scenes/tokens-only.scene.json",
            Outcome::Mismatch("--- t.golden.json (golden)\n+++ t.golden.json (now)\n".to_owned()),
            Vec::new(),
        ),
        checked("scenes/new.scene.json", Outcome::MissingGolden, Vec::new()),
    ];
    insta::assert_snapshot!(markdown::summary(&results, Some("1/2"), &["2026-12-01"]));
}
