//! A Responses body (`instructions`, `input`, flat `tools`, `text.format`) reduced to turns.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::formats;
use super::prompt::{digest, Piece};
use super::turns::{
    bound, breakpoint_ttl, compact_arguments, part_text, reasoning_tokens, Content, Turn, Turns,
};
use crate::billing::{BillingError, PartKind};
use crate::usage::Api;

pub(crate) fn turns<'a>(model: &str, body: &'a Json) -> Result<Turns<'a>, BillingError> {
    let mut out = Turns::default();
    let ttl = breakpoint_ttl(body);
    let content = Content {
        api: Api::OpenaiResponses,
        model,
        ttl: &ttl,
    };
    match body.get("instructions") {
        // Instructions are billed trimmed: a recorded body whose instructions began and ended
        // with blank lines and indentation was billed as the trimmed text.
        Some(Json::String(text)) => out.turns.push(Turn::Message {
            role: "system".to_owned(),
            name: None,
            commentary: false,
            pieces: vec![Piece::text(PartKind::System, "/instructions", text.trim())],
        }),
        Some(Json::Array(items)) => items_into(&content, items, "/instructions", &mut out)?,
        Some(Json::Null) | None => {}
        Some(_) => {
            return Err(BillingError::at(
                "/instructions",
                "`instructions` must be a string or a list of input items",
            ))
        }
    }
    match body.get("input") {
        Some(Json::String(text)) => out.turns.push(Turn::Message {
            role: "user".to_owned(),
            name: None,
            commentary: false,
            pieces: vec![Piece::text(PartKind::Message, "/input", text.clone())],
        }),
        Some(Json::Array(items)) => items_into(&content, items, "/input", &mut out)?,
        Some(Json::Null) | None => {}
        Some(_) => {
            return Err(BillingError::at(
                "/input",
                "`input` must be a string or a list of input items",
            ))
        }
    }
    if let Some(tools) = body.get("tools").and_then(Json::as_array) {
        for (i, tool) in tools.iter().enumerate() {
            if tool.get("type").and_then(Json::as_str) == Some("function") {
                if is_bare(tool) {
                    out.estimates.bound(bound::BARE_RESPONSES_TOOL);
                }
                out.tools.push((format!("/tools/{i}"), tool));
            } else {
                out.estimates.bound(bound::UNKNOWN_ITEM);
            }
        }
    }
    if let Some(format) = body.get("text").and_then(|t| t.get("format")) {
        let kind = format.get("type").and_then(Json::as_str);
        if let Some(text) = formats::section(Api::OpenaiResponses, kind, format) {
            out.format = Some(("/text/format".to_owned(), text));
        }
    }
    drop_finished_reasoning(&mut out.turns);
    Ok(out)
}

/// A tool with neither a description nor parameters.
fn is_bare(tool: &Json) -> bool {
    let described = tool
        .get("description")
        .and_then(Json::as_str)
        .is_some_and(|d| !d.trim().is_empty());
    let has_parameters = tool
        .get("parameters")
        .and_then(|p| p.get("properties"))
        .and_then(Json::as_object)
        .is_some_and(|p| !p.is_empty());
    !described && !has_parameters
}

fn items_into(
    content: &Content<'_>,
    items: &[Json],
    at: &str,
    out: &mut Turns<'_>,
) -> Result<(), BillingError> {
    let mut names: HashMap<String, String> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("{at}/{i}");
        let kind = item.get("type").and_then(Json::as_str).unwrap_or("message");
        match kind {
            "message" => {
                let role = item.get("role").and_then(Json::as_str).ok_or_else(|| {
                    BillingError::at(
                        &format!("{pointer}/role"),
                        "a message item needs a `role` string",
                    )
                })?;
                let pieces =
                    content.pieces(item.get("content"), &pointer, role, &mut out.estimates);
                let empty = pieces
                    .iter()
                    .all(|p| p.text.is_empty() && p.extra_tokens == 0);
                // An empty assistant message is not billed (a recorded body with one was billed
                // as the same conversation without it).
                if role == "assistant" && empty {
                    continue;
                }
                out.turns.push(Turn::Message {
                    role: role.to_owned(),
                    name: None,
                    commentary: item.get("phase").and_then(Json::as_str) == Some("commentary"),
                    pieces,
                });
            }
            "function_call" => {
                let name = item.get("name").and_then(Json::as_str).unwrap_or("");
                if let Some(id) = item.get("call_id").and_then(Json::as_str) {
                    names.insert(id.to_owned(), name.to_owned());
                }
                let arguments = item.get("arguments").and_then(Json::as_str).unwrap_or("");
                let parallel = matches!(out.turns.last(), Some(Turn::Call { .. }))
                    || items
                        .get(i + 1)
                        .and_then(|n| n.get("type"))
                        .and_then(Json::as_str)
                        == Some("function_call");
                if parallel {
                    out.estimates.bound(bound::PARALLEL_CALLS);
                }
                out.turns.push(Turn::Call {
                    name: name.to_owned(),
                    arguments: compact_arguments(arguments),
                    pointer,
                    parallel,
                });
            }
            "function_call_output" => {
                let name = item
                    .get("call_id")
                    .and_then(Json::as_str)
                    .and_then(|id| names.get(id).cloned())
                    .unwrap_or_else(|| "tool".to_owned());
                let output = item.get("output");
                let pieces = match output {
                    Some(Json::String(text)) => {
                        vec![Piece::text(
                            PartKind::Message,
                            format!("{pointer}/output"),
                            text.clone(),
                        )]
                    }
                    other => content.pieces(other, &pointer, "tool", &mut out.estimates),
                };
                out.turns.push(Turn::Result {
                    name,
                    pieces,
                    chat: false,
                });
            }
            "reasoning" => {
                out.estimates.bound(bound::REASONING);
                let tokens = match item.get("encrypted_content").and_then(Json::as_str) {
                    Some(encrypted) => reasoning_tokens(encrypted),
                    None => item
                        .get("content")
                        .and_then(Json::as_array)
                        .map(|parts| {
                            let text: String = parts.iter().filter_map(part_text).collect();
                            crate::tokens::count(&text, crate::tokens::Encoding::O200kBase)
                        })
                        .unwrap_or(0),
                };
                let id = item
                    .get("id")
                    .and_then(Json::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| digest(item.to_string().as_bytes()));
                out.turns.push(Turn::Reasoning {
                    pointer,
                    tokens,
                    id,
                });
            }
            _ => {
                out.estimates.bound(bound::UNKNOWN_ITEM);
                out.turns.push(Turn::Message {
                    role: "user".to_owned(),
                    name: None,
                    commentary: false,
                    pieces: vec![Piece::text(PartKind::Message, pointer, item.to_string())],
                });
            }
        }
    }
    Ok(())
}

/// Reasoning from a turn that ended in an assistant answer is not shown to the model again:
/// harmony's format guide drops earlier chain of thought once the assistant ended in a message to
/// the `final` channel (a recorded GPT-5-mini body carrying one was billed without it). A
/// `commentary` message, a preamble before tool calls, does not end the turn, so the reasoning
/// before it stays (a recorded gpt-5.5 body with reasoning, a preamble and a call was billed 27
/// tokens over the body without its reasoning; with it, 7 under).
fn drop_finished_reasoning(turns: &mut Vec<Turn>) {
    let last_answer = turns.iter().rposition(
        |t| matches!(t, Turn::Message { role, commentary: false, .. } if role == "assistant"),
    );
    if let Some(last) = last_answer {
        let mut i = 0;
        turns.retain(|t| {
            let keep = i > last || !matches!(t, Turn::Reasoning { .. });
            i += 1;
            keep
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn instructions_are_trimmed() {
        let body = json!({"instructions": "\n   Be brief.\n   ", "input": "hi"});
        let t = turns("gpt-4o", &body).unwrap();
        assert!(
            matches!(&t.turns[0], Turn::Message { pieces, .. } if pieces[0].text == "Be brief.")
        );
    }

    #[test]
    fn finished_reasoning_is_dropped_and_pending_reasoning_kept() {
        let body = json!({"input": [
            {"type": "reasoning", "encrypted_content": "x", "summary": []},
            {"role": "assistant", "content": [{"type": "output_text", "text": "4"}]},
            {"role": "user", "content": "times 10?"},
            {"type": "reasoning", "encrypted_content": "y", "summary": []},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]});
        let t = turns("gpt-5", &body).unwrap();
        let reasoning = t
            .turns
            .iter()
            .filter(|t| matches!(t, Turn::Reasoning { .. }))
            .count();
        assert_eq!(reasoning, 1);
        assert!(matches!(t.turns[2], Turn::Reasoning { .. }));
    }

    #[test]
    fn reasoning_before_a_preamble_is_kept() {
        // The turn goes on after a `commentary` message (a preamble) with a tool call: harmony
        // drops chain of thought only after a `final` answer.
        let body = json!({"input": [
            {"role": "user", "content": "q"},
            {"type": "reasoning", "encrypted_content": "x", "summary": []},
            {"role": "assistant", "phase": "commentary",
                "content": [{"type": "output_text", "text": "Checking."}]},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "ok"}]});
        let t = turns("gpt-5.5", &body).unwrap();
        assert!(matches!(t.turns[1], Turn::Reasoning { .. }));
        assert_eq!(t.turns.len(), 5);
    }

    #[test]
    fn an_empty_assistant_message_is_dropped() {
        let body = json!({"input": [{"role": "user", "content": "q"}, {"role": "assistant", "content": ""}]});
        assert_eq!(turns("gpt-4o", &body).unwrap().turns.len(), 1);
    }

    #[test]
    fn input_of_the_wrong_type_names_its_pointer() {
        let err = turns("gpt-4o", &json!({"input": 3})).unwrap_err();
        assert_eq!(err.pointer, "/input");
    }
}
