//! The engine on made-up conversations, one per cause: each request pair differs in one way, and
//! the billed usage is what the provider would bill for it.

use serde_json::{json, Value as Json};

use super::*;
use crate::billing;
use crate::report::DiagnosticCode;

/// Text long enough for any model's minimum (about 3,000 tokens however it is counted).
fn long(seed: &str) -> String {
    (0..600)
        .map(|i| format!("{seed} clause {i} of the standing instructions."))
        .collect::<Vec<_>>()
        .join(" ")
}

fn anthropic_usage(uncached: u64, read: u64, written: u64) -> Usage {
    Usage::from_response(
        Api::Anthropic,
        &json!({"input_tokens": uncached, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written, "output_tokens": 10}),
    )
    .expect("usage")
}

fn call(n: u32, model: &str, body: Json, usage: Usage) -> Call {
    Call {
        label: format!("c{n}.json"),
        conversation: Some("test".to_owned()),
        seq: Some(n),
        api: Api::Anthropic,
        model: model.to_owned(),
        body,
        raw: None,
        usage,
        cache_reported: true,
        timestamp: None,
        who: Vec::new(),
    }
}

/// An Anthropic body: a long system prompt with a breakpoint, one tool, one user turn.
fn body(system: &str, tool_schema: Json, user: &str) -> Json {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "tools": [{"name": "lookup", "description": "Looks a word up.", "input_schema": tool_schema}],
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": user}]
    })
}

fn schema() -> Json {
    json!({"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]})
}

fn run(calls: &[Call]) -> VerifyReport {
    verify(calls, &Options::default()).expect("verifies")
}

fn codes(r: &VerifyReport, call: usize) -> Vec<DiagnosticCode> {
    r.conversations[0].calls[call]
        .causes
        .iter()
        .map(|c| c.code)
        .collect()
}

/// The first call writes its system prompt (about 3,000 tokens) and the second, repeating it,
/// reads it: what the provider bills for a hit.
fn hit_pair(second: Json) -> Vec<Call> {
    let first = body(&long("alpha"), schema(), "first question");
    vec![
        call(1, "claude-sonnet-4-5", first, anthropic_usage(10, 0, 3000)),
        call(2, "claude-sonnet-4-5", second, anthropic_usage(10, 0, 3000)),
    ]
}

#[test]
fn a_repeated_prefix_is_predicted_as_read_and_a_hit_needs_no_cause() {
    let first = body(&long("alpha"), schema(), "first question");
    let second = body(&long("alpha"), schema(), "second question");
    let p = billing::predict(Api::Anthropic, "claude-sonnet-4-5", &first).expect("predicts");
    let through_system: usize = p
        .parts
        .iter()
        .take_while(|part| !part.pointer.starts_with("/messages"))
        .map(|part| part.tokens)
        .sum();
    let calls = vec![
        call(1, "claude-sonnet-4-5", first, anthropic_usage(10, 0, 3000)),
        call(2, "claude-sonnet-4-5", second, anthropic_usage(10, 3000, 0)),
    ];
    let r = run(&calls);
    let c1 = &r.conversations[0].calls[0];
    let c2 = &r.conversations[0].calls[1];
    let w = c1.cache_write.as_ref().expect("write");
    assert_eq!(
        w.predicted as usize, through_system,
        "written up to the breakpoint"
    );
    let read = c2.cache_read.as_ref().expect("read");
    assert_eq!(
        (read.predicted_low as usize, read.predicted_high as usize),
        (through_system, through_system)
    );
    assert_eq!(read.from_call, Some(1));
    assert!(!read.automatic);
    assert!(c2.causes.is_empty(), "{:?}", c2.causes);
    assert_eq!(r.summary.cache.misses, 0);
}

#[test]
fn a_changed_system_prompt_is_named_with_its_first_differing_byte() {
    let mut edited = long("alpha");
    edited.replace_range(20..21, "X");
    let r = run(&hit_pair(body(&edited, schema(), "second question")));
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissSystemChanged]);
    let cause = &r.conversations[0].calls[1].causes[0];
    let d = cause.difference.as_ref().expect("a difference");
    assert_eq!(d.pointer, "/system/0/text");
    assert_eq!(d.byte, 20);
    assert_eq!(cause.against_call, Some(1));
    assert_eq!(cause.tokens, 3000, "what call 1 left in the cache");
    // $3 a million uncached against $0.30 read, on claude-sonnet-4-5.
    assert!((cause.cost_usd - 3000.0 * 2.7 / 1e6).abs() < 1e-12);
    assert_eq!(r.conversations[0].totals.misses, 1);
}

#[test]
fn a_changed_tool_is_tools_changed() {
    let other = json!({"type": "object", "properties": {"term": {"type": "string"}}});
    let r = run(&hit_pair(body(&long("alpha"), other, "second question")));
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissToolsChanged]);
}

#[test]
fn the_same_schema_with_a_number_written_otherwise_is_byte_instability() {
    let bounded = |n: &str| -> Json {
        serde_json::from_str(&format!(
            r#"{{"type": "object", "properties": {{"word": {{"type": "string", "maxLength": {n}}}}}}}"#
        ))
        .expect("json")
    };
    let first = body(&long("alpha"), bounded("10"), "first question");
    let calls = vec![
        call(1, "claude-sonnet-4-5", first, anthropic_usage(10, 0, 3000)),
        call(
            2,
            "claude-sonnet-4-5",
            body(&long("alpha"), bounded("10.0"), "second question"),
            anthropic_usage(10, 0, 3000),
        ),
    ];
    let r = run(&calls);
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissByteInstability]);
    let d = r.conversations[0].calls[1].causes[0]
        .difference
        .as_ref()
        .expect("where");
    assert_eq!(d.pointer, "/tools/0");
}

#[test]
fn another_model_is_model_changed() {
    let mut calls = hit_pair(body(&long("alpha"), schema(), "second question"));
    calls[1].model = "claude-sonnet-4-6".to_owned();
    let r = run(&calls);
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissModelChanged]);
    assert_eq!(
        r.conversations[0].calls[1].priced_as,
        "anthropic/claude-sonnet-4-6"
    );
}

#[test]
fn an_edited_earlier_turn_is_messages_rewritten_by_its_author() {
    let turns = |first: &str| {
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "messages": [
                {"role": "user", "content": first},
                {"role": "assistant", "content": "An answer."},
                {"role": "user", "content": [{"type": "text", "text": "Go on.",
                    "cache_control": {"type": "ephemeral"}}]}
            ]
        })
    };
    let text = long("beta");
    let mut edited = text.clone();
    edited.replace_range(100..101, "#");
    let calls = vec![
        call(
            1,
            "claude-sonnet-4-5",
            turns(&text),
            anthropic_usage(3, 0, 3000),
        ),
        call(
            2,
            "claude-sonnet-4-5",
            turns(&edited),
            anthropic_usage(3, 0, 3000),
        ),
    ];
    let r = run(&calls);
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissMessagesRewritten]);
    let d = r.conversations[0].calls[1].causes[0]
        .difference
        .as_ref()
        .expect("where");
    assert_eq!((d.pointer.as_str(), d.byte), ("/messages/0/content", 100));
    assert_eq!(d.who.as_deref(), Some("the user"));
}

#[test]
fn the_recorded_authorship_names_who_wrote_the_byte() {
    let mut edited = long("alpha");
    edited.replace_range(20..21, "X");
    let mut calls = hit_pair(body(&edited, schema(), "second question"));
    calls[1].who = vec![Author {
        pointer: "/system/0/text".to_owned(),
        range: 0..50,
        who: "tool clock in system_msg_prompt".to_owned(),
    }];
    let r = run(&calls);
    let d = r.conversations[0].calls[1].causes[0]
        .difference
        .as_ref()
        .expect("where");
    assert_eq!(d.who.as_deref(), Some("tool clock in system_msg_prompt"));
}

#[test]
fn timestamps_past_the_breakpoints_ttl_are_ttl_expired() {
    let mut calls = hit_pair(body(&long("alpha"), schema(), "second question"));
    calls[0].timestamp = Some("2025-06-01T10:00:00Z".to_owned());
    calls[1].timestamp = Some("2025-06-01T10:07:30Z".to_owned());
    let r = run(&calls);
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissTtlExpired]);
    let cause = &r.conversations[0].calls[1].causes[0];
    assert!(
        cause
            .message
            .starts_with("this call came 7m 30s after call 1, past the 5m"),
        "{}",
        cause.message
    );
    let read = r.conversations[0].calls[1]
        .cache_read
        .as_ref()
        .expect("read");
    assert_eq!(
        read.predicted_high, 0,
        "the prediction knows the entry expired"
    );
    assert!(read.agrees);
    // Within the TTL the same pair is predicted to hit, so the billed miss is the provider's.
    calls[1].timestamp = Some("2025-06-01T10:04:00Z".to_owned());
    assert_eq!(codes(&run(&calls), 1), [DiagnosticCode::MissProviderSide]);
}

#[test]
fn a_prefix_with_no_breakpoint_is_no_breakpoint_and_a_short_one_below_minimum() {
    let plain = |system: &str, user: &str| {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "system": system,
               "messages": [{"role": "user", "content": user}]})
    };
    let calls = vec![
        call(
            1,
            "claude-sonnet-4-5",
            plain(&long("gamma"), "one"),
            anthropic_usage(3000, 0, 0),
        ),
        call(
            2,
            "claude-sonnet-4-5",
            plain(&long("gamma"), "two"),
            anthropic_usage(3000, 0, 0),
        ),
    ];
    let r = run(&calls);
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissNoBreakpoint]);
    assert!(r.conversations[0].calls[1].causes[0].cost_usd > 0.0);
    let short = vec![
        call(
            1,
            "claude-sonnet-4-5",
            plain("Be brief.", "one"),
            anthropic_usage(20, 0, 0),
        ),
        call(
            2,
            "claude-sonnet-4-5",
            plain("Be brief.", "two"),
            anthropic_usage(20, 0, 0),
        ),
    ];
    let r = run(&short);
    assert_eq!(codes(&r, 1), [DiagnosticCode::MissBelowMinimum]);
    assert_eq!(r.conversations[0].calls[1].causes[0].cost_usd, 0.0);
}

#[test]
fn a_first_call_that_reads_was_warmed_outside_the_recording() {
    let first = body(&long("alpha"), schema(), "first question");
    let r = run(&[call(
        1,
        "claude-sonnet-4-5",
        first,
        anthropic_usage(10, 3000, 0),
    )]);
    assert_eq!(codes(&r, 0), [DiagnosticCode::ReadWarmedOutside]);
    let cause = &r.conversations[0].calls[0].causes[0];
    assert!(cause.cost_usd < 0.0, "an unforeseen read saves money");
    assert_eq!(r.summary.cache.misses, 0, "not a miss");
}

#[test]
fn an_automatic_cache_predicts_a_range_and_a_repeat_it_does_not_serve_is_the_providers() {
    let text = long("delta");
    let chat = json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]});
    let usage = |read: u64| {
        Usage::from_response(
            Api::OpenaiChat,
            &json!({"prompt_tokens": 3000, "prompt_tokens_details": {"cached_tokens": read},
                    "completion_tokens": 5}),
        )
        .expect("usage")
    };
    let calls: Vec<Call> = [0, 2944, 0]
        .into_iter()
        .enumerate()
        .map(|(i, read)| Call {
            api: Api::OpenaiChat,
            ..call(i as u32 + 1, "gpt-4o-mini", chat.clone(), usage(read))
        })
        .collect();
    let r = run(&calls);
    let c = &r.conversations[0].calls;
    let second = c[1].cache_read.as_ref().expect("read");
    assert!(second.automatic);
    assert_eq!(second.predicted_low, 0);
    let high = second.predicted_high as usize;
    assert!(
        high >= 1024 && (high - 1024).is_multiple_of(128),
        "{high}: 1,024 and whole units of 128"
    );
    assert!(c[1].causes.is_empty(), "{:?}", c[1].causes);
    assert_eq!(codes(&r, 2), [DiagnosticCode::MissProviderSide]);
    assert!(
        c[2].cache_read.as_ref().is_some_and(|r| r.agrees),
        "0 is in the range"
    );
    let cost = &c[1].cost;
    assert!(cost.predicted_low_usd < cost.predicted_high_usd);
}

#[test]
fn calls_group_by_conversation_in_seq_order_and_alone_without_one() {
    let b = json!({"model": "m", "messages": []});
    let mut calls = vec![
        call(2, "claude-sonnet-4-5", b.clone(), anthropic_usage(1, 0, 0)),
        call(1, "claude-sonnet-4-5", b.clone(), anthropic_usage(1, 0, 0)),
        call(3, "claude-sonnet-4-5", b, anthropic_usage(1, 0, 0)),
    ];
    calls[2].conversation = None;
    let r = run(&calls);
    assert_eq!(r.conversations.len(), 2);
    let first: Vec<&str> = r.conversations[0]
        .calls
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(first, ["c1.json", "c2.json"]);
    assert_eq!(r.conversations[1].name, "c3.json");
}
