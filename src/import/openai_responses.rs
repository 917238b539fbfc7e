//! OpenAI Responses (`POST /v1/responses`, `CreateResponse` in
//! `conformance/providers/openai-responses.schema.json`): `instructions`, `input` (a string, or
//! message, `function_call` and `function_call_output` items), function `tools`. The model and
//! the body's other fields are recorded; other items (reasoning, built-in tools' calls), parts
//! (files) and fields of items (ids, status) are carried.

use serde_json::{json, Value as Json};

use super::draft::{image_part_from_url, text_part, tool_call, Draft, Piece, ToolDraft};
use super::node::Node;
use super::openai_chat::system_or_message;
use super::ImportError;
use crate::scene::Role;

pub(crate) fn read(body: &Node<'_>) -> Result<Draft, ImportError> {
    let mut draft = Draft::of_body();
    draft.recorded.insert(
        "api".into(),
        json!(crate::usage::Api::OpenaiResponses.as_str()),
    );
    let instructions = body.get("instructions");
    if let Some(instructions) = &instructions {
        draft.system.push(Piece {
            text: instructions.str()?.to_owned(),
            origin: instructions.ptr.clone(),
        });
    }
    if let Some(previous) = body.get("previous_response_id") {
        draft.unmapped.push(format!(
            "{}: {} names a stored response: the turns before it are not in this body",
            previous.ptr,
            previous.excerpt()
        ));
    }
    let input = body.req("input")?;
    if let Some(text) = input.as_str() {
        draft
            .message(Role::User, json!(text), format!("{} (a string)", input.ptr))
            .at = Some(input.ptr.clone());
        draft.layout("input", "string");
    } else {
        // Consecutive function calls are one assistant turn, as chat completions send them.
        let mut calling = false;
        for item in input.items()? {
            calling = self::item(&item, calling, instructions.is_some(), &mut draft)?;
        }
        if instructions.is_none() && !draft.system.is_empty() {
            draft.layout("system", "input");
        }
    }
    if let Some(tools) = body.get("tools") {
        for t in tools.items()? {
            tool(&t, &mut draft)?;
        }
    }
    draft.params(body, &["instructions", "input", "tools"])?;
    Ok(draft)
}

/// One input item; returns whether it was a function call (so the next one joins its turn).
/// With `instructions`, system messages stay messages (the system prompts are the instructions).
fn item(
    item: &Node<'_>,
    calling: bool,
    instructions: bool,
    draft: &mut Draft,
) -> Result<bool, ImportError> {
    item.object()?;
    // An easy input message has no type.
    let ty = item.opt_str("type")?.unwrap_or("message");
    match ty {
        "message" => {
            message(item, instructions, draft)?;
            Ok(false)
        }
        "function_call" => {
            let arguments = item.req("arguments")?;
            arguments.str()?;
            let call = tool_call(
                item.req_str("call_id")?,
                item.req_str("name")?,
                arguments.to_json()?,
            );
            let joins = calling
                && draft
                    .messages
                    .last()
                    .is_some_and(|m| m.role == Role::Assistant);
            match draft.messages.last_mut() {
                Some(last) if joins => {
                    last.tool_calls.push(call);
                    last.origin
                        .push_str(&format!(", {} (function_call)", item.ptr));
                }
                _ => {
                    let origin = format!("{} (function_call)", item.ptr);
                    draft.message(Role::Assistant, json!(""), origin).tool_calls = vec![call];
                }
            }
            draft.rest(item, &["type", "call_id", "name", "arguments"])?;
            Ok(true)
        }
        "function_call_output" => {
            let output = item.req("output")?;
            let content = if output.as_str().is_some() {
                output.to_json()?
            } else {
                parts(&output, draft)?
            };
            let origin = format!("{} (function_call_output)", item.ptr);
            let msg = draft.message(Role::Tool, content, origin);
            msg.tool_call_id = Some(item.req_str("call_id")?.to_owned());
            msg.at = Some(item.ptr.clone());
            draft.rest(item, &["type", "call_id", "output"])?;
            Ok(false)
        }
        other => {
            draft.unmapped_because(
                item,
                &format!(
                    "a {other:?} item (a scene holds messages, function calls and their outputs)"
                ),
            )?;
            Ok(calling)
        }
    }
}

fn message(m: &Node<'_>, instructions: bool, draft: &mut Draft) -> Result<(), ImportError> {
    let role_node = m.req("role")?;
    let role_name = role_node.str()?;
    let c = m.req("content")?;
    let content = if c.as_str().is_some() {
        c.to_json()?
    } else {
        parts(&c, draft)?
    };
    let count = draft.messages.len();
    match role_name {
        "system" | "developer" => {
            let origin = if role_name == "developer" {
                draft.carry(
                    &role_node,
                    "the developer role (the scene holds it as system)",
                )?;
                format!("{} (developer, sent as system)", m.ptr)
            } else {
                format!("{} (system)", m.ptr)
            };
            if instructions {
                draft.message(Role::System, content, origin);
            } else {
                system_or_message(draft, content, origin);
            }
        }
        "user" => {
            draft.message(Role::User, content, format!("{} (user)", m.ptr));
        }
        "assistant" => {
            draft.message(Role::Assistant, content, format!("{} (assistant)", m.ptr));
        }
        other => {
            return Err(role_node.err(format!(
                "unknown role {other:?}: expected user, assistant, system or developer"
            )))
        }
    }
    if draft.messages.len() == count + 1 {
        if let Some(last) = draft.messages.last_mut() {
            last.at = Some(m.ptr.clone());
        }
    }
    // `type: message` is optional: carried when sent, so the rebuilt item has it too.
    draft.rest(m, &["role", "content"])?;
    Ok(())
}

/// Content parts: `input_text` and `output_text` as text, `input_image` with a URL as an image;
/// the rest listed as not mapped.
fn parts(c: &Node<'_>, draft: &mut Draft) -> Result<Json, ImportError> {
    let mut out = Vec::new();
    for p in c.items()? {
        match p.req_str("type")? {
            "input_text" => {
                out.push(text_part(p.req_str("text")?));
                draft.rest(&p, &["type", "text"])?;
            }
            "output_text" => {
                out.push(text_part(p.req_str("text")?));
                draft.rest(&p, &["type", "text"])?;
            }
            "input_image" => match p.get("image_url") {
                Some(url) => match image_part_from_url(url.str()?) {
                    Some(part) => {
                        out.push(part);
                        draft.rest(&p, &["type", "image_url"])?;
                    }
                    None => draft.unmapped_because(&p, "an image whose data: URL is not base64")?,
                },
                None => {
                    draft.unmapped_because(&p, "an input_image without image_url (a file id)")?
                }
            },
            other => draft.unmapped_because(
                &p,
                &format!("a {other:?} part (a scene message holds text and images)"),
            )?,
        }
    }
    Ok(json!(out))
}

fn tool(t: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    let ty = t.req_str("type")?;
    if ty != "function" {
        draft.unmapped_because(
            t,
            &format!("the built-in tool {ty:?} (scenes hold function tools)"),
        )?;
        return Ok(());
    }
    draft.tools.push(ToolDraft {
        name: t.req_str("name")?.to_owned(),
        description: t.opt_str("description")?.map(str::to_owned),
        parameters: t.get("parameters").map(|p| p.to_json()).transpose()?,
        origin: t.ptr.clone(),
    });
    draft.rest(t, &["type", "name", "description", "parameters"])?;
    Ok(())
}
