use super::*;
use crate::billing::predict;
use serde_json::json;

fn parts(model: &str, body: &Json) -> Vec<BilledPart> {
    messages(model, body).expect("countable").0
}

fn weather_tool() -> Json {
    json!({"name": "get_weather", "description": "Weather for a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}})
}

#[test]
fn tools_bring_the_documented_tool_use_prompt_first() {
    let body = json!({"tools": [weather_tool()], "messages": [{"role": "user", "content": "Hi"}]});
    let p = parts("claude-sonnet-4-5", &body);
    assert_eq!(p[0].kind, PartKind::ToolPrompt);
    assert_eq!(p[0].tokens, 496);
    assert_eq!(p[0].pointer, "");
    let mut any = body.clone();
    any["tool_choice"] = json!({"type": "any"});
    assert_eq!(parts("claude-sonnet-4-5", &any)[0].tokens, 588);
    let none = json!({"messages": [{"role": "user", "content": "Hi"}]});
    assert!(parts("claude-sonnet-4-5", &none)
        .iter()
        .all(|x| x.kind != PartKind::ToolPrompt));
}

#[test]
fn parts_come_in_the_cache_prefix_order_and_add_up() {
    let body = json!({
        "system": "Be brief.",
        "tools": [weather_tool()],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Sunny"}]}]});
    let p = predict(Api::Anthropic, "claude-sonnet-4-5", &body).unwrap();
    let kinds: Vec<PartKind> = p.parts.iter().map(|x| x.kind).collect();
    use PartKind::*;
    assert_eq!(
        kinds,
        [ToolPrompt, Tool, System, Message, Message, Message, Message, Framing]
    );
    let pointers: Vec<&str> = p.parts.iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(
        pointers[1..7],
        [
            "/tools/0",
            "/system",
            "/messages/0/content",
            "/messages/1/content/0",
            "/messages/1/content/1",
            "/messages/2/content/0"
        ]
    );
    assert_eq!(
        p.input_tokens,
        p.parts.iter().map(|x| x.tokens).sum::<usize>()
    );
    assert_eq!(
        p.provenance,
        Provenance::Estimate {
            bound_percent: BOUND_PERCENT
        }
    );
    // The result is rendered with the name of the call it answers.
    assert!(p.parts[6].canonical.contains("get_weather"));
}

#[test]
fn a_tool_is_rendered_as_claudes_prompt_shows_it() {
    assert_eq!(
        tool_definition(&weather_tool()),
        "<function>{\"description\": \"Weather for a city.\", \"name\": \"get_weather\", \
         \"parameters\": {\"properties\": {\"city\": {\"type\": \"string\"}}, \"type\": \"object\"}}</function>"
    );
}

#[test]
fn a_string_and_a_list_of_one_text_block_are_the_same_part_and_cache_control_is_not_text() {
    let as_string = json!({"messages": [{"role": "user", "content": "Hello there"}]});
    let as_block = json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Hello there", "cache_control": {"type": "ephemeral"}}]}]});
    let a = parts("claude-sonnet-4-5", &as_string);
    let b = parts("claude-sonnet-4-5", &as_block);
    assert_eq!(a[0].canonical, "user: Hello there");
    assert_eq!(a[0].canonical, b[0].canonical);
    assert_eq!(a[0].tokens, b[0].tokens);
    assert_eq!(a[0].breakpoint, None);
    assert_eq!(b[0].breakpoint.as_deref(), Some("5m"));
}

#[test]
fn breakpoints_follow_the_requests_cache_control_with_its_ttl() {
    let body = json!({
        "tools": [{"name": "f", "input_schema": {}, "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "system": [{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Q"}]});
    let p = parts("claude-sonnet-4-5", &body);
    let marks: Vec<(&str, Option<&str>)> = p
        .iter()
        .map(|x| (x.pointer.as_str(), x.breakpoint.as_deref()))
        .collect();
    assert_eq!(
        marks,
        [
            ("", None),
            ("/tools/0", Some("1h")),
            ("/system/0", Some("5m")),
            ("/messages/0/content", None),
            ("", None)
        ]
    );
    // Automatic caching: a top-level cache_control marks the last block.
    let mut auto = body.clone();
    auto["cache_control"] = json!({"type": "ephemeral", "ttl": "1h"});
    let p = parts("claude-sonnet-4-5", &auto);
    assert_eq!(p[3].breakpoint.as_deref(), Some("1h"));
    assert_eq!(p[4].breakpoint, None);
}

#[test]
fn deferred_tools_count_only_once_a_tool_reference_loads_them() {
    let deferred =
        json!({"name": "late", "defer_loading": true, "input_schema": {"type": "object"}});
    let before = json!({"tools": [weather_tool(), deferred],
        "messages": [{"role": "user", "content": "Hi"}]});
    let tools = |b: &Json| {
        parts("claude-sonnet-4-5", b)
            .into_iter()
            .filter(|x| x.kind == PartKind::Tool)
            .count()
    };
    assert_eq!(tools(&before), 1);
    let mut after = before.clone();
    after["messages"] = json!([
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "s", "name": "search", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s",
            "content": [{"type": "tool_reference", "tool_name": "late"}]}]}]);
    assert_eq!(tools(&after), 2);
}

#[test]
fn thinking_is_billed_only_in_the_last_turn_of_a_tool_loop() {
    let thinking = json!({"type": "thinking", "thinking": "Let me think about the weather in Paris.", "signature": "x"});
    let in_loop = json!({"messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [thinking, {"type": "tool_use", "id": "t", "name": "w", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "Sunny"}]}]});
    let reasoning = |b: &Json| {
        parts("claude-sonnet-4-5", b)
            .into_iter()
            .find(|x| x.kind == PartKind::Reasoning)
            .expect("a reasoning part")
    };
    assert!(reasoning(&in_loop).tokens > 0);
    let next_turn = json!({"messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [thinking, {"type": "text", "text": "Sunny."}]},
        {"role": "user", "content": "Thanks. And tomorrow?"}]});
    let dropped = reasoning(&next_turn);
    // Only the first block of a message carries its role header; a dropped one bills that alone.
    assert_eq!(
        dropped.tokens,
        (FITTED.per_message).round() as usize,
        "{dropped:?}"
    );
}

#[test]
fn extended_thinking_and_an_output_format_add_their_system_prompts() {
    let plain = json!({"messages": [{"role": "user", "content": "2+2?"}]});
    let total = |b: &Json| {
        predict(Api::Anthropic, "claude-sonnet-4-5", b)
            .unwrap()
            .input_tokens
    };
    let mut thinking = plain.clone();
    thinking["thinking"] = json!({"type": "enabled", "budget_tokens": 1024});
    assert_eq!(
        total(&thinking) - total(&plain),
        FITTED.thinking.round() as usize
    );
    let mut format = plain.clone();
    format["output_config"] =
        json!({"format": {"type": "json_schema", "schema": {"type": "object"}}});
    let p = parts("claude-sonnet-4-5", &format);
    let schema = p.iter().find(|x| x.kind == PartKind::Schema).unwrap();
    assert_eq!(schema.pointer, "/output_config/format");
    assert_eq!(schema.canonical, "{\"type\": \"object\"}");
}

#[test]
fn models_from_opus_4_7_count_text_with_the_newer_tokenizers_ratio() {
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(40);
    let body = json!({"messages": [{"role": "user", "content": text}]});
    let older = predict(Api::Anthropic, "claude-opus-4-6", &body)
        .unwrap()
        .input_tokens;
    let newer = predict(Api::Anthropic, "claude-opus-4-7", &body)
        .unwrap()
        .input_tokens;
    let expected = FITTED.new_tokenizer_ratio / FITTED.text_ratio;
    let seen = newer as f64 / older as f64;
    assert!((seen - expected).abs() < 0.02, "{seen} vs {expected}");
}

#[test]
fn a_pdf_counts_its_pages_and_unbounds_the_estimate() {
    let pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] >>\n\
                2 0 obj << /Type /Page >>\n3 0 obj << /Type/Page >>\n%%EOF";
    let data = base64::engine::general_purpose::STANDARD.encode(pdf);
    assert_eq!(pdf_pages(&data), 2);
    assert_eq!(pdf_pages("not base64!"), 1);
    let body = json!({"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": data}}]}]});
    let (p, provenance) = messages("claude-sonnet-4-5", &body).unwrap();
    assert_eq!(p[0].kind, PartKind::Image);
    assert_eq!(
        p[0].tokens,
        2 * PDF_TOKENS_PER_PAGE + FITTED.per_message.round() as usize
    );
    assert_eq!(provenance.bound(), 100.0);
}

#[test]
fn malformed_bodies_are_refused_with_a_pointer() {
    let pointer = |b: Json| messages("claude-sonnet-4-5", &b).unwrap_err().pointer;
    assert_eq!(pointer(json!([])), "");
    assert_eq!(pointer(json!({"messages": {}})), "/messages");
    assert_eq!(pointer(json!({"tools": "x"})), "/tools");
    assert_eq!(pointer(json!({"system": 3})), "/system");
    assert_eq!(
        pointer(json!({"messages": [{"role": "user", "content": 3}]})),
        "/messages/0/content"
    );
}
