//! OpenAI chat completions (`POST /v1/chat/completions`, `CreateChatCompletionRequest` in
//! `conformance/providers/openai-chat-completions.schema.json`): `messages`, `tools`; the model
//! and the body's other fields are recorded, and what a scene has no place for is carried.

use serde_json::{json, Value as Json};

use super::draft::{image_part_from_url, text_part, tool_call, Draft, Piece, ToolDraft};
use super::node::Node;
use super::ImportError;
use crate::scene::Role;

pub(crate) fn read(body: &Node<'_>) -> Result<Draft, ImportError> {
    let mut draft = Draft::of_body();
    draft
        .recorded
        .insert("api".into(), json!(crate::usage::Api::OpenaiChat.as_str()));
    for m in body.req("messages")?.items()? {
        message(&m, &mut draft)?;
    }
    if let Some(tools) = body.get("tools") {
        for t in tools.items()? {
            tool(&t, &mut draft)?;
        }
    }
    draft.params(body, &["messages", "tools"])?;
    Ok(draft)
}

/// One message of `messages` (also the body of an older OpenTelemetry message event, which
/// records it in this shape; `role` then comes from the event's name).
pub(crate) fn message(m: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    let role_node = m.req("role")?;
    let role_name = role_node.str()?;
    let origin = format!("{} ({role_name})", m.ptr);
    message_as(m, role_name, &role_node, origin, draft)
}

pub(crate) fn message_as(
    m: &Node<'_>,
    role_name: &str,
    role_node: &Node<'_>,
    origin: String,
    draft: &mut Draft,
) -> Result<(), ImportError> {
    let count = draft.messages.len();
    match role_name {
        "system" | "developer" => {
            let origin = if role_name == "developer" {
                if draft.carries {
                    draft.carry(
                        role_node,
                        "the developer role (the scene holds it as system)",
                    )?;
                }
                format!("{} (developer, sent as system)", m.ptr)
            } else {
                origin
            };
            let content = content(&m.req("content")?, draft)?;
            system_or_message(draft, content, origin);
            draft.rest(m, &["role", "content"])?;
        }
        "user" => {
            let content = content(&m.req("content")?, draft)?;
            let name = m.opt_str("name")?.map(str::to_owned);
            draft.message(Role::User, content, origin).name = name;
            draft.rest(m, &["role", "content", "name"])?;
        }
        "assistant" => {
            let content = match m.get("content") {
                Some(c) => content(&c, draft)?,
                None => {
                    // No content, or `null`: the scene holds "", and the null is carried (a
                    // member that is null is one that is not there).
                    if draft.carries {
                        draft
                            .carried
                            .push(json!({"at": format!("{}/content", m.ptr), "value": null}));
                        draft
                            .carried_notes
                            .push(format!("{}/content: no content (null)", m.ptr));
                    }
                    json!("")
                }
            };
            let mut calls = Vec::new();
            if let Some(tc) = m.get("tool_calls") {
                for c in tc.items()? {
                    if let Some(call) = call(&c, draft)? {
                        calls.push(call);
                    }
                }
            }
            let name = m.opt_str("name")?.map(str::to_owned);
            let msg = draft.message(Role::Assistant, content, origin);
            msg.name = name;
            msg.tool_calls = calls;
            draft.rest(m, &["role", "content", "tool_calls", "name"])?;
        }
        "tool" => {
            let content = content(&m.req("content")?, draft)?;
            let id = m.req_str("tool_call_id")?.to_owned();
            draft.message(Role::Tool, content, origin).tool_call_id = Some(id);
            draft.rest(m, &["role", "content", "tool_call_id"])?;
        }
        // The deprecated function-calling role: a tool result named by its function.
        "function" => {
            let content = content(&m.req("content")?, draft)?;
            let name = m.req_str("name")?.to_owned();
            let origin = format!(
                "{} (function, sent as a tool result without a call id)",
                m.ptr
            );
            if draft.carries {
                draft.carry(
                    role_node,
                    "the deprecated function role (the scene holds a tool message)",
                )?;
            }
            draft.message(Role::Tool, content, origin).name = Some(name);
            draft.rest(m, &["role", "content", "name"])?;
        }
        other => {
            return Err(role_node.err(format!(
            "unknown role {other:?}: expected system, developer, user, assistant, tool or function"
        )))
        }
    }
    // A message read as one scene message is at its pointer (a leading system text is a prompt).
    if draft.messages.len() == count + 1 {
        if let Some(last) = draft.messages.last_mut() {
            last.at = Some(m.ptr.clone());
        }
    }
    Ok(())
}

/// A leading system text becomes a configured system prompt (one per text part); one after the
/// first turn stays a system message where it was.
pub(crate) fn system_or_message(draft: &mut Draft, content: Json, origin: String) {
    if !draft.messages.is_empty() {
        draft.message(Role::System, content, origin);
        return;
    }
    if draft.carries {
        let form = if content.is_string() {
            "string"
        } else {
            "parts"
        };
        draft.layout("system_form", form);
    }
    match content {
        Json::String(text) => draft.system.push(Piece { text, origin }),
        Json::Array(parts) => {
            let count = parts.len();
            for (j, p) in parts.into_iter().enumerate() {
                match p.get("text").and_then(Json::as_str) {
                    Some(text) => draft.system.push(Piece {
                        text: text.to_owned(),
                        origin: if count > 1 {
                            format!("{origin}, part {j}")
                        } else {
                            origin.clone()
                        },
                    }),
                    None => draft
                        .unmapped
                        .push(format!("{origin}, part {j}: an image in a system text")),
                }
            }
        }
        _ => {}
    }
}

/// A message's `content`: a string, or the parts a scene can carry (text, images); other parts
/// are listed as not mapped.
pub(crate) fn content(c: &Node<'_>, draft: &mut Draft) -> Result<Json, ImportError> {
    if let Some(s) = c.as_str() {
        return Ok(json!(s));
    }
    let mut parts = Vec::new();
    for p in c.items()? {
        let ty = p.req_str("type")?;
        match ty {
            "text" => {
                parts.push(text_part(p.req_str("text")?));
                draft.rest(&p, &["type", "text"])?;
            }
            "image_url" => {
                let image = p.req("image_url")?;
                let url = image.req("url")?;
                match image_part_from_url(url.str()?) {
                    Some(part) => {
                        parts.push(part);
                        draft.rest(&image, &["url"])?;
                        draft.rest(&p, &["type", "image_url"])?;
                    }
                    None => draft.unmapped_because(&p, "an image whose data: URL is not base64")?,
                }
            }
            other => draft.unmapped_because(
                &p,
                &format!("a {other:?} part (a scene message holds text and images)"),
            )?,
        }
    }
    Ok(json!(parts))
}

/// A `tool_calls` entry; a call that is not a function call is listed and left out.
pub(crate) fn call(c: &Node<'_>, draft: &mut Draft) -> Result<Option<Json>, ImportError> {
    let ty = c.opt_str("type")?.unwrap_or("function");
    if ty != "function" {
        draft.unmapped_because(
            c,
            &format!("a {ty:?} tool call (scenes hold function calls)"),
        )?;
        return Ok(None);
    }
    let id = c.req_str("id")?;
    let f = c.req("function")?;
    let name = f.req_str("name")?;
    let arguments = f.req("arguments")?;
    arguments.str()?;
    draft.rest(&f, &["name", "arguments"])?;
    draft.rest(c, &["id", "type", "function"])?;
    Ok(Some(tool_call(id, name, arguments.to_json()?)))
}

fn tool(t: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    let ty = t.req_str("type")?;
    if ty != "function" {
        draft.unmapped_because(t, &format!("a {ty:?} tool (scenes hold function tools)"))?;
        return Ok(());
    }
    let f = t.req("function")?;
    draft.tools.push(ToolDraft {
        name: f.req_str("name")?.to_owned(),
        description: f.opt_str("description")?.map(str::to_owned),
        parameters: f.get("parameters").map(|p| p.to_json()).transpose()?,
        origin: t.ptr.clone(),
    });
    draft.rest(&f, &["name", "description", "parameters"])?;
    draft.rest(t, &["type", "function"])?;
    Ok(())
}
