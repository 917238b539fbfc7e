use super::*;
use crate::pricing::Table;
use crate::report::DiagnosticCode;

fn row(id: &str) -> Row {
    let table = Table::builtin();
    let found = table.select(&[id.to_owned()]).expect("a built-in row");
    found[0].clone()
}

/// A bill of calls with the given reads (the rest uncached).
fn bill(row: &Row, calls: &[(usize, usize)]) -> ModelCost {
    let calls = calls
        .iter()
        .map(|&(total, read)| CallCost::of(row, total, read, 0))
        .collect();
    ModelCost::new(row, calls)
}

fn shared(tokens: Option<usize>, change: Option<Change>, last_message: usize) -> Shared {
    Shared {
        tokens,
        change,
        last_message,
    }
}

fn tool_change(part: ChangedPart) -> Change {
    Change {
        part,
        byte: 1834,
        written_by: "tool tf_notes (message 1, system_msg_prompt)".to_owned(),
        tool: Some("tf_notes".to_owned()),
    }
}

#[test]
fn calls_that_read_are_not_explained() {
    let r = row("openai/gpt-5");
    let cost = bill(&r, &[(1300, 0), (1400, 1280), (1500, 1408)]);
    let s = vec![
        shared(None, None, 0),
        shared(Some(1300), None, 4),
        shared(Some(1400), None, 6),
    ];
    let out = zero_reads(&r, &cost, &s, &[], &[]);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].call, out[0].cause), (0, None));
    assert_eq!(out[0].missed_usd, 0.0);
}

#[test]
fn an_intact_prefix_under_the_minimum_is_below_minimum() {
    let r = row("anthropic/claude-sonnet-4-5");
    let cost = bill(&r, &[(700, 0), (900, 0)]);
    let s = vec![shared(None, None, 0), shared(Some(700), None, 4)];
    let out = zero_reads(&r, &cost, &s, &[], &[]);
    assert_eq!(out[1].cause, Some(DiagnosticCode::MissBelowMinimum));
    assert!(
        out[1].why.contains("700 shared tokens are under the 1024"),
        "{}",
        out[1].why
    );
    // 700 tokens at $3 instead of $0.30 a million.
    assert!((out[1].missed_usd - 700.0 * 2.7 / 1e6).abs() < 1e-12);
}

#[test]
fn a_long_repeated_prefix_with_no_breakpoint_says_where_one_goes() {
    let r = row("anthropic/claude-sonnet-4-5");
    let cost = bill(&r, &[(1060, 0), (1450, 0)]);
    let s = vec![shared(None, None, 0), shared(Some(1060), None, 6)];
    let out = zero_reads(&r, &cost, &s, &[], &[]);
    assert_eq!(out[1].cause, Some(DiagnosticCode::MissNoBreakpoint));
    let fix = out[1].fix.as_deref().expect("a fix");
    assert!(fix.contains("end of message 6"), "{fix}");
    assert!(fix.contains("1060 tokens"), "{fix}");
}

#[test]
fn an_automatic_cache_that_should_have_read_is_the_providers() {
    let r = row("openai/gpt-5");
    let cost = bill(&r, &[(1300, 0), (1400, 0)]);
    let s = vec![shared(None, None, 0), shared(Some(1300), None, 4)];
    assert_eq!(
        zero_reads(&r, &cost, &s, &[], &[])[1].cause,
        Some(DiagnosticCode::MissProviderSide)
    );
}

#[test]
fn a_rewrite_names_its_part_and_who_wrote_it() {
    let r = row("openai/gpt-5");
    let cost = bill(&r, &[(1300, 0), (1400, 0), (1500, 0), (1600, 0)]);
    let defs = Change {
        part: ChangedPart::Tools,
        byte: 162,
        written_by: "web_search's tool definition".to_owned(),
        tool: Some("web_search".to_owned()),
    };
    let s = vec![
        shared(None, None, 0),
        shared(Some(361), Some(tool_change(ChangedPart::System)), 4),
        shared(Some(35), Some(defs), 6),
        shared(Some(900), Some(tool_change(ChangedPart::Messages)), 8),
    ];
    let out = zero_reads(&r, &cost, &s, &[], &[]);
    let causes: Vec<Option<DiagnosticCode>> = out.iter().map(|z| z.cause).collect();
    assert_eq!(
        causes,
        [
            None,
            Some(DiagnosticCode::MissSystemChanged),
            Some(DiagnosticCode::MissToolsChanged),
            Some(DiagnosticCode::MissMessagesRewritten)
        ]
    );
    assert!(
        out[1].why.contains("byte 1834, written by tool tf_notes"),
        "{}",
        out[1].why
    );
    assert!(out[2].why.starts_with("the tool definitions changed"));
    // No what-if to point at: keep the text stable or move what changes to the end.
    assert!(out[1]
        .fix
        .as_deref()
        .unwrap_or("")
        .contains("after the stable prefix"));
}

#[test]
fn a_tools_rewrite_points_at_its_what_if() {
    let r = row("anthropic/claude-sonnet-4-5");
    let cost = bill(&r, &[(1260, 0), (1310, 0)]);
    let moved = WhatIfPrice {
        model: r.id.clone(),
        what: "tf_notes's text moved".to_owned(),
        tool: Some("tf_notes".to_owned()),
        from: Some("system_msg_prompt".to_owned()),
        to: Some("after_intermediate_msg_prompt".to_owned()),
        cost_usd: 0.014708,
        what_if_usd: 0.006,
        saving_usd: 0.008708,
    };
    let s = vec![
        shared(None, None, 0),
        shared(Some(361), Some(tool_change(ChangedPart::System)), 4),
    ];
    let out = zero_reads(&r, &cost, &s, &[], std::slice::from_ref(&moved));
    let fix = out[1].fix.as_deref().expect("a fix");
    assert!(
        fix.starts_with(
            "move tf_notes's text from system_msg_prompt to after_intermediate_msg_prompt"
        ),
        "{fix}"
    );
    assert!(fix.contains("$0.0087"), "{fix}");
}

/// A breakpoint closing each request: the rounds after one long enough read the whole previous
/// request. Figures worked out by hand from the row's prices ($3 input, $0.30 read, $3.75 write).
#[test]
fn a_closing_breakpoint_reads_each_previous_request() {
    let r = row("anthropic/claude-sonnet-4-5");
    let totals = [356, 706, 1060, 1450];
    let cost = bill(&r, &[(356, 0), (706, 0), (1060, 0), (1450, 0)]);
    let s = vec![
        shared(None, None, 0),
        shared(Some(356), None, 2),
        shared(Some(706), None, 4),
        shared(Some(1060), None, 6),
    ];
    let w = with_closing_breakpoint(&r, &cost, &totals, &s).expect("a breakpoint cache");
    let now = 3572.0 * 3.0 / 1e6;
    let then = (356.0 * 3.0 + 706.0 * 3.0 + 1060.0 * 3.75 + 1060.0 * 0.3 + 390.0 * 3.75) / 1e6;
    assert!((w.cost_usd - now).abs() < 1e-9, "{}", w.cost_usd);
    assert!((w.what_if_usd - then).abs() < 1e-9, "{}", w.what_if_usd);
    assert!((w.saving_usd - (now - then)).abs() < 1e-9);
    assert!(with_closing_breakpoint(&row("openai/gpt-5"), &cost, &totals, &s).is_none());
}

fn run_fixture(name: &str, models: &[&str]) -> crate::api::RunResponse {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/run")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the fixture");
    crate::api::run(&crate::api::RunRequest {
        text,
        base_dir: None,
        models: models.iter().map(|m| (*m).to_owned()).collect(),
    })
    .expect("the run replays")
}

/// long-goal's round 4 repeats round 3's 1,060 tokens, enough for Sonnet, but xbot's one
/// breakpoint is on a system message far shorter: the run view says where a breakpoint goes.
#[test]
fn the_run_explains_a_long_shared_prefix_with_no_breakpoint() {
    let r = run_fixture("long-goal.scene.json", &["anthropic/claude-sonnet-4-5"]);
    assert!(r.report.models[0]
        .calls
        .iter()
        .all(|c| c.cache_read_tokens == 0));
    let causes: Vec<Option<DiagnosticCode>> = r.zero_reads.iter().map(|z| z.cause).collect();
    assert_eq!(
        causes,
        [
            None,
            Some(DiagnosticCode::MissBelowMinimum),
            Some(DiagnosticCode::MissBelowMinimum),
            Some(DiagnosticCode::MissNoBreakpoint)
        ]
    );
    let last = &r.zero_reads[3];
    assert_eq!(last.shared_tokens, 1060);
    assert_eq!(r.report.iterations[2].request_messages, 6);
    assert!(last
        .fix
        .as_deref()
        .unwrap_or("")
        .contains("end of message 6"));
    let w = &r.what_if[0];
    assert_eq!(w.model, "anthropic/claude-sonnet-4-5");
    assert!(w.saving_usd > 0.0, "{w:?}");
}

/// stable-prefix's system message is over Sonnet's minimum: request 1 writes it, every later
/// request reads it, so only the first round is explained.
#[test]
fn the_stable_prefix_fixture_reads_on_the_default_claude_model() {
    let r = run_fixture("stable-prefix.scene.json", &["anthropic/claude-sonnet-4-5"]);
    let system = crate::tokens::count(
        &r.report.messages[0].content,
        crate::tokens::Encoding::O200kBase,
    );
    assert!(system >= 1024, "{system}");
    let calls = &r.report.models[0].calls;
    assert_eq!(calls[0].cache_write_tokens, system);
    assert!(calls[1..].iter().all(|c| c.cache_read_tokens == system));
    assert_eq!(r.zero_reads.len(), 1);
    assert_eq!(r.zero_reads[0].cause, None);
}

/// A rewrite after a prefix long enough for a breakpoint cache: the missing breakpoint is the
/// cause, and the fix says where one goes and what to keep stable.
#[test]
fn a_late_rewrite_on_a_breakpoint_cache_is_a_missing_breakpoint() {
    let r = row("anthropic/claude-sonnet-4-5");
    let cost = bill(&r, &[(1500, 0), (1600, 0)]);
    let s = vec![
        shared(None, None, 0),
        shared(Some(1200), Some(tool_change(ChangedPart::Messages)), 6),
    ];
    let z = &zero_reads(&r, &cost, &s, &[], &[])[1];
    assert_eq!(z.cause, Some(DiagnosticCode::MissNoBreakpoint));
    assert!(
        z.why.contains("share 1200 tokens before tool tf_notes"),
        "{}",
        z.why
    );
    let fix = z.fix.as_deref().unwrap_or("");
    assert!(fix.contains("ends before byte 1834"), "{fix}");
}
