//! Anthropic Messages (`POST /v1/messages`, `MessageCreateParams` in
//! `conformance/providers/anthropic-messages.schema.json`): `system`, `messages`, `tools`. A user
//! message's `tool_result` blocks become tool messages (before the rest of that message), an
//! assistant's `tool_use` blocks its tool calls. The model and the body's other fields are
//! recorded, `cache_control` breakpoints kept with their places, and what a scene has no place
//! for (thinking blocks, documents, `is_error`) carried.

use serde_json::{json, Value as Json};

use super::draft::{image_part_from_url, text_part, tool_call, Draft, Piece, ToolDraft};
use super::node::Node;
use super::ImportError;
use crate::scene::Role;

pub(crate) fn read(body: &Node<'_>) -> Result<Draft, ImportError> {
    let mut draft = Draft::of_body();
    draft
        .recorded
        .insert("api".into(), json!(crate::usage::Api::Anthropic.as_str()));
    if let Some(system) = body.get("system") {
        draft.layout(
            "system_form",
            if system.as_str().is_some() {
                "string"
            } else {
                "parts"
            },
        );
        if let Some(text) = system.as_str() {
            draft.system.push(Piece {
                text: text.to_owned(),
                origin: system.ptr.clone(),
            });
        } else {
            for b in system.items()? {
                draft.system.push(Piece {
                    text: b.req_str("text")?.to_owned(),
                    origin: b.ptr.clone(),
                });
                expect_type(&b, "text")?;
                draft.rest(&b, &["type", "text"])?;
            }
        }
    }
    for m in body.req("messages")?.items()? {
        message(&m, &mut draft)?;
    }
    if let Some(tools) = body.get("tools") {
        for t in tools.items()? {
            tool(&t, &mut draft)?;
        }
    }
    draft.params(body, &["system", "messages", "tools"])?;
    Ok(draft)
}

fn expect_type(b: &Node<'_>, want: &str) -> Result<(), ImportError> {
    let ty = b.req("type")?;
    if ty.str()? == want {
        Ok(())
    } else {
        Err(ty.err(format!("expected {want:?}")))
    }
}

fn message(m: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    let role_node = m.req("role")?;
    let role = match role_node.str()? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        // Anthropic's beta endpoint takes system messages between the turns.
        "system" => Role::System,
        other => {
            return Err(role_node.err(format!(
                "unknown role {other:?}: expected user or assistant (the system text is the body's \"system\")"
            )))
        }
    };
    let origin = format!("{} ({})", m.ptr, role.as_str());
    let content = m.req("content")?;
    draft.rest(m, &["role", "content"])?;
    if let Some(s) = content.as_str() {
        draft.message(role, json!(s), origin).at = Some(m.ptr.clone());
        return Ok(());
    }
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    let mut results = 0;
    for b in content.items()? {
        match b.req_str("type")? {
            "text" => {
                parts.push(text_part(b.req_str("text")?));
                draft.rest(&b, &["type", "text"])?;
            }
            "image" => {
                if let Some(part) = image(&b, draft)? {
                    parts.push(part);
                    draft.rest(&b, &["type", "source"])?;
                }
            }
            "tool_use" if role == Role::Assistant => {
                let input = b.req("input")?;
                input.object()?;
                calls.push(tool_call(b.req_str("id")?, b.req_str("name")?, input.to_json()?));
                draft.rest(&b, &["type", "id", "name", "input"])?;
            }
            "tool_result" if role == Role::User => {
                let id = b.req_str("tool_use_id")?.to_owned();
                let result = match b.get("content") {
                    None => json!(""),
                    Some(c) if c.as_str().is_some() => c.to_json()?,
                    Some(c) => {
                        let mut out = Vec::new();
                        for rb in c.items()? {
                            match rb.req_str("type")? {
                                "text" => {
                                    out.push(text_part(rb.req_str("text")?));
                                    draft.rest(&rb, &["type", "text"])?;
                                }
                                "image" => {
                                    if let Some(part) = image(&rb, draft)? {
                                        out.push(part);
                                        draft.rest(&rb, &["type", "source"])?;
                                    }
                                }
                                other => draft.unmapped_because(
                                    &rb,
                                    &format!("a {other:?} block in a tool result"),
                                )?,
                            }
                        }
                        json!(out)
                    }
                };
                results += 1;
                let origin = format!("{} (tool_result)", b.ptr);
                draft.message(Role::Tool, result, origin).tool_call_id = Some(id);
                draft.rest(&b, &["type", "tool_use_id", "content"])?;
            }
            other => draft.unmapped_because(
                &b,
                &format!(
                    "a {other:?} block in a {} message (a scene message holds text, images, tool calls and results)",
                    role.as_str()
                ),
            )?,
        }
    }
    // Tool results answer the previous turn's calls and come first; a message of only results
    // makes no message of its own. One with nothing the scene holds stays, empty, so that what
    // was carried from it has its place.
    if !(parts.is_empty() && calls.is_empty() && results > 0) {
        let msg = draft.message(role, json!(parts), origin);
        msg.tool_calls = calls;
        if results == 0 {
            msg.at = Some(m.ptr.clone());
        }
    }
    Ok(())
}

/// An image block's source: base64 data, or a URL; a file id is listed as not mapped.
fn image(b: &Node<'_>, draft: &mut Draft) -> Result<Option<Json>, ImportError> {
    let source = b.req("source")?;
    let ty = source.req_str("type")?;
    match ty {
        "base64" => {
            let part = json!({
                "type": "image",
                "data_base64": source.req_str("data")?,
                "mime_type": source.req_str("media_type")?,
            });
            draft.rest(&source, &["type", "data", "media_type"])?;
            Ok(Some(part))
        }
        "url" => {
            let url = source.req("url")?;
            let part = image_part_from_url(url.str()?);
            if part.is_none() {
                draft.unmapped_because(b, "an image whose data: URL is not base64")?;
                return Ok(None);
            }
            draft.rest(&source, &["type", "url"])?;
            Ok(part)
        }
        other => {
            draft.unmapped_because(b, &format!("an image with a source of type {other:?}"))?;
            Ok(None)
        }
    }
}

fn tool(t: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    // Server tools (`web_search_20250305`, `bash_20250124`, ...) are Anthropic's own: no schema.
    if let Some(ty) = t.opt_str("type")? {
        if ty != "custom" {
            draft.unmapped_because(
                t,
                &format!("the server tool {ty:?} (scenes hold tools with parameters)"),
            )?;
            return Ok(());
        }
    }
    let schema = t.req("input_schema")?;
    schema.object()?;
    draft.tools.push(ToolDraft {
        name: t.req_str("name")?.to_owned(),
        description: t.opt_str("description")?.map(str::to_owned),
        parameters: Some(schema.to_json()?),
        origin: t.ptr.clone(),
    });
    draft.rest(t, &["type", "name", "description", "input_schema"])?;
    Ok(())
}
