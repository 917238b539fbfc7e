//! The prediction-only repeats on made-up Anthropic conversations: the shared prefix counts the
//! tool definitions and the system prompt as billed, and each cause comes from the same facts as
//! a recorded miss's.

use serde_json::{json, Value as Json};

use super::*;
use crate::pricing::Table;

fn long(seed: &str) -> String {
    (0..600)
        .map(|i| format!("{seed} clause {i} of the standing instructions."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One tool, a system prompt (with a breakpoint when `marked`), one user turn.
fn body(system: &str, marked: bool, user: &str) -> Json {
    let mut block = json!({"type": "text", "text": system});
    if marked {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "tools": [{"name": "lookup", "description": "Looks a word up.",
                   "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}}}],
        "system": [block],
        "messages": [{"role": "user", "content": user}]
    })
}

fn request(body: Json) -> Request {
    Request {
        api: Api::Anthropic,
        model: "claude-sonnet-4-5".to_owned(),
        body,
    }
}

fn sonnet() -> Row {
    let table = Table::builtin();
    table
        .select(&["anthropic/claude-sonnet-4-5".to_owned()])
        .expect("the table has Sonnet 4.5")[0]
        .clone()
}

/// The billed tokens before the first message: tool definitions, tool-use prompt, system.
fn through_system(body: &Json) -> usize {
    billing::predict(Api::Anthropic, "claude-sonnet-4-5", body)
        .expect("predicts")
        .parts
        .iter()
        .take_while(|p| !p.pointer.starts_with("/messages"))
        .map(|p| p.tokens)
        .sum()
}

fn second(row: &Row, a: Json, b: Json) -> Repeat {
    let out = repeats(row, &[request(a), request(b)]);
    assert_eq!(out[0], None, "the first call repeats nothing");
    out[1].clone().expect("predicted")
}

#[test]
fn the_shared_prefix_counts_tools_and_system_as_billed() {
    let row = sonnet();
    let a = body(&long("alpha"), true, "first question");
    let b = body(&long("alpha"), true, "second question");
    let expected = through_system(&a);
    let r = second(&row, a, b.clone());
    assert_eq!(r.tokens, expected);
    let predicted = billing::predict(Api::Anthropic, "claude-sonnet-4-5", &b).expect("predicts");
    assert_eq!(r.provenance, predicted.provenance);
    // Intact and caught by a breakpoint: a zero read is the provider's.
    assert_eq!(r.cause, DiagnosticCode::MissProviderSide);
}

#[test]
fn each_cause_is_the_verify_rules() {
    let row = sonnet();
    let changed = second(
        &row,
        body(&long("alpha"), true, "q"),
        body(&long("beta"), true, "q"),
    );
    assert_eq!(changed.cause, DiagnosticCode::MissSystemChanged);

    let unmarked = body(&long("alpha"), false, "first question");
    let tokens = through_system(&unmarked);
    let r = second(&row, unmarked, body(&long("alpha"), false, "second"));
    assert_eq!(
        (r.cause, r.tokens),
        (DiagnosticCode::MissNoBreakpoint, tokens)
    );
    assert!(tokens >= row.cache.min_tokens, "{tokens}");

    let short = second(
        &row,
        body("Be brief.", true, "first question"),
        body("Be brief.", true, "second"),
    );
    assert_eq!(short.cause, DiagnosticCode::MissBelowMinimum);
    assert!(short.tokens < row.cache.min_tokens, "{short:?}");
}

#[test]
fn a_request_that_cannot_be_predicted_has_no_repeat() {
    let row = sonnet();
    let broken = request(json!({"messages": "not a list"}));
    let out = repeats(&row, &[request(body("x", false, "q")), broken]);
    assert_eq!(out, [None, None]);
}
