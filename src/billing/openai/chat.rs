//! A chat completions body (`messages`, `tools` or legacy `functions`, `response_format`)
//! reduced to turns.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::formats;
use super::turns::{bound, breakpoint_ttl, compact_arguments, Content, Turn, Turns};
use crate::billing::BillingError;
use crate::usage::Api;

pub(crate) fn turns<'a>(model: &str, body: &'a Json) -> Result<Turns<'a>, BillingError> {
    let messages = body
        .get("messages")
        .and_then(Json::as_array)
        .ok_or_else(|| {
            BillingError::at(
                "/messages",
                "a chat completions body needs a `messages` array",
            )
        })?;
    let mut out = Turns::default();
    let mut names: HashMap<&str, &str> = HashMap::new();
    let ttl = breakpoint_ttl(body);
    for (i, message) in messages.iter().enumerate() {
        let at = format!("/messages/{i}");
        let role = message.get("role").and_then(Json::as_str).ok_or_else(|| {
            BillingError::at(&format!("{at}/role"), "a message needs a `role` string")
        })?;
        let content = Content {
            api: Api::OpenaiChat,
            model,
            ttl: &ttl,
        };
        let pieces = content.pieces(message.get("content"), &at, role, &mut out.estimates);
        match role {
            "tool" | "function" => {
                let name = message
                    .get("tool_call_id")
                    .and_then(Json::as_str)
                    .and_then(|id| names.get(id).copied())
                    .or_else(|| message.get("name").and_then(Json::as_str))
                    .unwrap_or("tool");
                out.turns.push(Turn::Result {
                    name: name.to_owned(),
                    pieces,
                    chat: true,
                });
            }
            "assistant" => {
                let calls = message.get("tool_calls").and_then(Json::as_array);
                let legacy = message.get("function_call").filter(|c| c.is_object());
                let has_text = pieces
                    .iter()
                    .any(|p| !p.text.is_empty() || p.extra_tokens > 0);
                if has_text || (calls.is_none_or(Vec::is_empty) && legacy.is_none()) {
                    out.turns.push(Turn::Message {
                        role: role.to_owned(),
                        name: None,
                        commentary: false,
                        pieces,
                    });
                }
                let calls = calls.map(Vec::as_slice).unwrap_or_default();
                let parallel = calls.len() > 1;
                if parallel {
                    out.estimates.bound(bound::PARALLEL_CALLS);
                }
                for (j, call) in calls.iter().enumerate() {
                    let function = call.get("function").unwrap_or(&Json::Null);
                    let name = function.get("name").and_then(Json::as_str).unwrap_or("");
                    if let Some(id) = call.get("id").and_then(Json::as_str) {
                        names.insert(id, name);
                    }
                    out.turns.push(Turn::Call {
                        name: name.to_owned(),
                        arguments: arguments(function),
                        pointer: format!("{at}/tool_calls/{j}"),
                        parallel,
                    });
                }
                if let Some(call) = legacy {
                    out.turns.push(Turn::Call {
                        name: call
                            .get("name")
                            .and_then(Json::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        arguments: arguments(call),
                        pointer: format!("{at}/function_call"),
                        parallel: false,
                    });
                }
            }
            _ => {
                out.turns.push(Turn::Message {
                    role: role.to_owned(),
                    name: message
                        .get("name")
                        .and_then(Json::as_str)
                        .map(str::to_owned),
                    commentary: false,
                    pieces,
                });
            }
        }
    }
    collect_tools(body, &mut out);
    if let Some(format) = body.get("response_format") {
        let kind = format.get("type").and_then(Json::as_str);
        let schema = format.get("json_schema").unwrap_or(&Json::Null);
        if let Some(text) = formats::section(Api::OpenaiChat, kind, schema) {
            out.format = Some(("/response_format".to_owned(), text));
        }
    }
    Ok(out)
}

fn arguments(function: &Json) -> String {
    match function.get("arguments") {
        Some(Json::String(s)) => compact_arguments(s),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// `tools` (`{type: "function", function: {...}}`) or the legacy `functions` list; tools of
/// other types are counted as their JSON text, as an estimate.
fn collect_tools<'a>(body: &'a Json, out: &mut Turns<'a>) {
    if let Some(tools) = body.get("tools").and_then(Json::as_array) {
        for (i, tool) in tools.iter().enumerate() {
            match tool.get("function") {
                Some(function) if function.is_object() => {
                    out.tools.push((format!("/tools/{i}"), function));
                }
                _ => out.estimates.bound(bound::UNKNOWN_ITEM),
            }
        }
    }
    if let Some(functions) = body.get("functions").and_then(Json::as_array) {
        for (i, function) in functions.iter().enumerate() {
            out.tools.push((format!("/functions/{i}"), function));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_results_are_named_by_their_call() {
        let body = json!({"messages": [
            {"role": "user", "content": "Add 5 and 7"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "add", "arguments": "{\"a\": 5}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "12"}]});
        let t = turns("gpt-4o", &body).unwrap();
        assert_eq!(t.turns.len(), 3);
        assert!(matches!(&t.turns[1], Turn::Call { name, arguments, .. }
            if name == "add" && arguments == "{\"a\":5}"));
        assert!(matches!(&t.turns[2], Turn::Result { name, chat: true, .. } if name == "add"));
    }

    #[test]
    fn a_missing_messages_array_is_an_error_naming_it() {
        let err = turns("gpt-4o", &json!({"model": "gpt-4o"})).unwrap_err();
        assert_eq!(err.pointer, "/messages");
    }

    #[test]
    fn several_calls_at_once_are_an_estimate() {
        let body = json!({"messages": [{"role": "assistant", "tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "function": {"name": "g", "arguments": "{}"}}]}]});
        let t = turns("gpt-4o", &body).unwrap();
        assert_eq!(t.estimates.bounds, [bound::PARALLEL_CALLS]);
    }
}
