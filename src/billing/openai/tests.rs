//! Each framing rule on a small body. Expected counts are what OpenAI billed for the same body
//! (recorded in corpora/usage, named per test) or figures OpenAI's cookbook publishes; none
//! comes from running this code.

use serde_json::{json, Value as Json};

use super::{chat, responses};
use crate::usage::Provenance;

fn chat_tokens(model: &str, body: Json) -> (usize, Provenance) {
    let (parts, provenance) = chat(model, &body).unwrap();
    (parts.iter().map(|p| p.tokens).sum(), provenance)
}

fn responses_tokens(model: &str, body: Json) -> (usize, Provenance) {
    let (parts, provenance) = responses(model, &body).unwrap();
    (parts.iter().map(|p| p.tokens).sum(), provenance)
}

#[test]
fn plain_messages_cost_four_tokens_each_plus_three() {
    // openinference test_token_counts (gpt-4o-mini): billed 9.
    let body = json!({"messages": [{"role": "user", "content": "Hello!"}]});
    assert_eq!(chat_tokens("gpt-4o-mini", body), (9, Provenance::Exact));
    // otel-python-contrib test_async_chat_completion_streaming (gpt-4, cl100k_base): billed 12.
    let body = json!({"messages": [{"role": "user", "content": "Say this is a test"}]});
    assert_eq!(chat_tokens("gpt-4", body).0, 12);
}

#[test]
fn reasoning_models_prime_the_reply_with_two_tokens() {
    // pydantic-ai test_openai_responses_thinking_part_iter (o3-mini): billed 13.
    let body = json!({"input": [{"content": "How do I cross the street?", "role": "user"}],
        "reasoning": {"effort": "high", "summary": "detailed"}});
    assert_eq!(responses_tokens("o3-mini", body).0, 13);
    // pydantic-ai test_bedrock_model_thinking_part_from_other_model (gpt-5): billed 23.
    let body = json!({"input": [{"content": "You are a helpful assistant.", "role": "system"},
        {"content": "How do I cross the street?", "role": "user"}]});
    assert_eq!(responses_tokens("gpt-5", body), (23, Provenance::Exact));
}

fn cookbook_weather_body() -> Json {
    json!({
        "messages": [
            {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
            {"role": "user", "content": "What's the weather like in San Francisco?"}
        ],
        "tools": [{"type": "function", "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}},
                "required": ["location"]}}}]
    })
}

#[test]
fn tools_are_billed_as_a_typescript_namespace() {
    // OpenAI cookbook "How to count tokens with tiktoken", tool example: the API counted 101
    // prompt tokens on gpt-4o and 105 on gpt-3.5-turbo and gpt-4.
    assert_eq!(
        chat_tokens("gpt-4o", cookbook_weather_body()),
        (101, Provenance::Exact)
    );
    assert_eq!(chat_tokens("gpt-3.5-turbo", cookbook_weather_body()).0, 105);
    assert_eq!(chat_tokens("gpt-4", cookbook_weather_body()).0, 105);
}

#[test]
fn a_tool_without_a_system_message_gets_one() {
    // openinference test_agent_run_component_spans_true (gpt-4o-mini): billed 48.
    let body = json!({"messages": [{"role": "user", "content": "Search for Python tutorials"}],
        "tools": [{"type": "function", "function": {"name": "search", "description": "Search documents",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"},
                "user_context": {"type": "string"}}, "required": ["query"]}}}]});
    assert_eq!(chat_tokens("gpt-4o-mini", body).0, 48);
}

#[test]
fn chat_tool_calls_and_results() {
    // openllmetry test_agent_with_tools (gpt-4o-mini): billed 79.
    let body = json!({"messages": [
        {"role": "user", "content": "Add 5 and 7"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"arguments": "{\"a\":5,\"b\":7}", "name": "add_numbers"}}]},
        {"role": "tool", "content": "12", "tool_call_id": "call_1"}],
        "tools": [{"type": "function", "function": {"name": "add_numbers", "description": "Add two numbers together.",
            "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]}}}]});
    assert_eq!(chat_tokens("gpt-4o-mini", body).0, 79);
    // openllmetry test_chat_pydantic_based_tool_calls (gpt-3.5-turbo, no tools): billed 40;
    // the spaced arguments are billed compact.
    let body = json!({"messages": [
        {"role": "assistant", "tool_calls": [{"id": "1", "type": "function",
            "function": {"arguments": "{\"location\": \"San Francisco\"}", "name": "get_current_weather"}}]},
        {"role": "tool", "tool_call_id": "1", "content": "The weather in San Francisco is 70 degrees and sunny."}]});
    assert_eq!(chat_tokens("gpt-3.5-turbo", body).0, 40);
}

#[test]
fn responses_function_calls_and_titles() {
    // openllmetry test_tool_call_and_result_attributes (gpt-4o): billed 72, then 121 with the
    // call and its output.
    let tool = json!({"name": "get_city_info", "type": "function", "strict": true,
        "description": "Get detailed information about a city.",
        "parameters": {"properties": {"city_name": {"title": "City Name", "type": "string"}},
            "required": ["city_name"], "title": "get_city_info_args", "type": "object",
            "additionalProperties": false}});
    let instructions = "You help users get information about cities using the get_city_info tool.";
    let first = json!({"instructions": instructions, "tools": [tool.clone()],
        "input": [{"content": "Tell me about London", "role": "user"}]});
    assert_eq!(responses_tokens("gpt-4o", first), (72, Provenance::Exact));
    let second = json!({"instructions": instructions, "tools": [tool],
        "input": [{"content": "Tell me about London", "role": "user"},
            {"type": "function_call", "call_id": "c1", "name": "get_city_info",
             "arguments": "{\"city_name\":\"London\"}"},
            {"type": "function_call_output", "call_id": "c1",
             "output": "City: London, Population: 9000000, Country: United Kingdom, Description: Capital city with rich history"}]});
    assert_eq!(responses_tokens("gpt-4o", second).0, 121);
}

#[test]
fn responses_input_string_and_instructions() {
    // openinference test_responses_simple_input (gpt-4.1): billed 19.
    let body = json!({"input": "Write a poem about a boy and his first pet dog."});
    assert_eq!(responses_tokens("gpt-4.1", body).0, 19);
    // otel-python-contrib test_responses_create_captures_content (gpt-4o-mini, a `text`
    // format, which adds nothing): billed 22.
    let body = json!({"input": "Say this is a test", "instructions": "You are a helpful assistant.",
        "text": {"format": {"type": "text"}}});
    assert_eq!(responses_tokens("gpt-4o-mini", body).0, 22);
}

#[test]
fn gpt5_assistant_turns_carry_a_channel_and_finished_reasoning_is_dropped() {
    // openinference test_responses_input_typed_reasoning_item (gpt-5-mini): billed 20 (its
    // encrypted reasoning, about 200 tokens by size, was not billed).
    let body = json!({"input": [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "A".repeat(1124)},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "4"}]},
        {"role": "user", "content": "Now multiply that by 10."}]});
    let (tokens, _) = responses_tokens("gpt-5-mini", body);
    assert_eq!(tokens, 20);
}

#[test]
fn non_strict_output_schemas_are_compact_json_without_constraints() {
    // pydantic-ai test_openai_native_output (gpt-4o): billed 71.
    let body = json!({"messages": [{"content": "What is the largest city in the user country?", "role": "user"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "result", "strict": false,
            "schema": {"properties": {"city": {"type": "string"}, "country": {"type": "string"}},
                "required": ["city", "country"], "type": "object"}}},
        "tools": [{"type": "function", "function": {"description": "", "name": "get_user_country",
            "parameters": {"additionalProperties": false, "properties": {}, "type": "object"}}}]});
    assert_eq!(chat_tokens("gpt-4o", body), (71, Provenance::Exact));
}

#[test]
fn parts_are_in_prompt_order_with_pointers() {
    let (parts, _) = chat("gpt-4o", &cookbook_weather_body()).unwrap();
    let pointers: Vec<&str> = parts.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/messages/0/content", "/tools/0", "/messages/1/content", ""]
    );
    assert!(parts[0]
        .canonical
        .starts_with("<|im_start|>system<|im_sep|>You are"));
    assert!(parts[1]
        .canonical
        .starts_with("\n\n# Tools\n\n## functions"));
    assert!(parts[1]
        .canonical
        .ends_with("} // namespace functions<|im_end|>"));
}

#[test]
fn what_cannot_be_counted_exactly_says_so() {
    let file = json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Summarise"},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBER", "filename": "a.pdf"}}]}]});
    assert!(matches!(
        chat_tokens("gpt-4o", file).1,
        Provenance::Estimate { .. }
    ));
    let foreign = json!({"messages": [{"role": "user", "content": "hi"}]});
    assert!(matches!(
        chat_tokens("deepseek-chat", foreign).1,
        Provenance::Estimate { .. }
    ));
}
