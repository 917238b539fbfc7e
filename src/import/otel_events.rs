//! The message events of the older GenAI conventions on a span (`gen_ai.system.message`,
//! `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`, and `gen_ai.choice`,
//! the reply), and older pydantic-ai's `events` attribute that holds their bodies as one JSON text.
//! An event's body is its `gen_ai.event.content` attribute's JSON or its own attributes, in chat
//! completions' message shape.

use serde_json::json;

use super::draft::Draft;
use super::node::{self, Node};
use super::openai_chat;
use super::otel::{any_value, json_text, key_values, structured};
use super::otel_flat;
use super::ImportError;
use crate::json::{Json as Tree, Kind, Member};
use crate::scene::Role;

/// The event names of the older conventions and the role of the message each records.
pub(super) const EVENTS: [(&str, Role); 4] = [
    ("gen_ai.system.message", Role::System),
    ("gen_ai.user.message", Role::User),
    ("gen_ai.assistant.message", Role::Assistant),
    ("gen_ai.tool.message", Role::Tool),
];

/// One span event of the older conventions: its body is the `gen_ai.event.content` attribute's
/// JSON (as Azure's and other instrumentations record it) or the event's own attributes
/// (`content`, `tool_calls`, `id`), in chat completions' message shape.
pub(super) fn event(ev: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    let name_node = ev.req("name")?;
    let name = name_node.str()?;
    // `gen_ai.choice` records the response: the assistant's reply.
    let choice = name == CHOICE;
    let role = match EVENTS.iter().find(|(e, _)| *e == name) {
        Some((_, role)) => *role,
        None if choice => Role::Assistant,
        None => {
            draft.unmapped_because(ev, &format!("the event {name:?}"))?;
            return Ok(());
        }
    };
    if !choice {
        return event_into(ev, &name_node, role, false, draft);
    }
    // The reply is not the request: one that cannot be read is listed, not refused.
    let mut reply = Draft::default();
    match event_into(ev, &name_node, role, true, &mut reply) {
        Ok(()) => otel_flat::keep_reply(draft, reply),
        Err(e) => draft
            .unmapped
            .push(format!("{}: the reply, unread: {e}", ev.ptr)),
    }
    Ok(())
}

/// An event's message read into `target` (a choice's: its reply).
fn event_into(
    ev: &Node<'_>,
    name_node: &Node<'_>,
    role: Role,
    choice: bool,
    target: &mut Draft,
) -> Result<(), ImportError> {
    let name = name_node.str()?;
    let attributes = match ev.get("attributes") {
        Some(a) => a,
        None => {
            return Err(ev.err(format!(
                "the {name} event has no attributes: its message is not recorded"
            )))
        }
    };
    let otlp = attributes.is_array();
    let pairs = key_values(&attributes)?;
    let origin = format!("{} ({name})", ev.ptr);
    let body_attr = pairs.iter().find(|(k, _)| *k == "gen_ai.event.content");
    match body_attr {
        Some((_, v)) => {
            structured("gen_ai.event.content", v, otlp, |body| {
                body.object()?;
                if choice {
                    choice_message(body, name_node, origin, target)
                } else {
                    event_message(body, role, name_node, origin, target)
                }
            })?;
            for (key, v) in &pairs {
                if *key != "gen_ai.event.content" {
                    let tree = any_value(v, otlp)?;
                    target.unmapped.push(format!(
                        "{}: {key} = {}",
                        ev.ptr,
                        node::tree_excerpt(&tree, v.doc.text)
                    ));
                }
            }
        }
        None => {
            // The attributes themselves are the body: build it as one object. `tool_calls` and
            // a choice's `message` may be JSON text, read apart so that errors in it point
            // into it.
            let mut members = Vec::with_capacity(pairs.len());
            let mut texts = Vec::new();
            for (key, v) in &pairs {
                let value = any_value(v, otlp)?;
                if matches!(*key, "tool_calls" | "message") && matches!(value.kind, Kind::Str(_)) {
                    texts.push((*key, v, value));
                    continue;
                }
                members.push(Member {
                    key: (*key).to_owned(),
                    key_span: v.json.span.clone(),
                    value,
                });
            }
            let tree = Tree {
                span: attributes.json.span.clone(),
                kind: Kind::Object(members),
            };
            let body = Node {
                json: &tree,
                doc: attributes.doc,
                ptr: attributes.ptr.clone(),
            };
            let message_text = texts.iter().find(|(k, _, _)| *k == "message");
            match (choice, message_text) {
                (true, Some((key, v, value))) => {
                    let text = Node {
                        json: value,
                        doc: v.doc,
                        ptr: v.ptr.clone(),
                    };
                    json_text(key, &text, |m| {
                        m.object()?;
                        event_message(m, role, name_node, origin, target)
                    })?;
                    target.rest(&body, &["index", "finish_reason"])?;
                }
                (true, None) => choice_message(&body, name_node, origin, target)?,
                (false, _) => event_message(&body, role, name_node, origin, target)?,
            }
            if let Some((key, v, value)) = texts.iter().find(|(k, _, _)| *k == "tool_calls") {
                let text = Node {
                    json: value,
                    doc: v.doc,
                    ptr: v.ptr.clone(),
                };
                let mut calls = Vec::new();
                json_text(key, &text, |n| {
                    for c in n.items()? {
                        calls.extend(openai_chat::call(&c, target)?);
                    }
                    Ok(())
                })?;
                match target.messages.last_mut() {
                    Some(m) if m.role == Role::Assistant => m.tool_calls.extend(calls),
                    _ => target
                        .unmapped
                        .push(format!("{}: tool calls on a {name} event", v.ptr)),
                }
            }
        }
    }
    Ok(())
}

const CHOICE: &str = "gen_ai.choice";

/// Older pydantic-ai records the message events as one JSON text in an `events` attribute.
pub(super) const EVENTS_ATTRIBUTE: &str = "events";

/// The bodies of an `events` attribute, each naming its event in `event.name`.
pub(super) fn events_attribute(list: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    for body in list.items()? {
        let name_node = body.req("event.name")?;
        let name = name_node.str()?;
        let origin = format!("{EVENTS_ATTRIBUTE}{} ({name})", body.ptr);
        if name == CHOICE {
            let mut reply = Draft::default();
            choice_message(&body, &name_node, origin, &mut reply)?;
            otel_flat::keep_reply(draft, reply);
        } else if let Some((_, role)) = EVENTS.iter().find(|(e, _)| *e == name) {
            event_message(&body, *role, &name_node, origin, draft)?;
        } else {
            draft.unmapped.push(format!(
                "{EVENTS_ATTRIBUTE}{}: the event {name:?}",
                body.ptr
            ));
        }
    }
    Ok(())
}

/// A `gen_ai.choice` body: `{index, finish_reason, message: {content, tool_calls}}`.
fn choice_message(
    body: &Node<'_>,
    name_node: &Node<'_>,
    origin: String,
    out: &mut Draft,
) -> Result<(), ImportError> {
    match body.get("message") {
        Some(m) => {
            m.object()?;
            event_message(&m, Role::Assistant, name_node, origin, out)?;
            out.rest(body, &["index", "finish_reason", "message"])
        }
        None => {
            out.unmapped
                .push(format!("{origin}: a choice without a message"));
            Ok(())
        }
    }
}

fn event_message(
    body: &Node<'_>,
    role: Role,
    name_node: &Node<'_>,
    origin: String,
    draft: &mut Draft,
) -> Result<(), ImportError> {
    if role == Role::Tool {
        let content = match body.get("content") {
            Some(c) => openai_chat::content(&c, draft)?,
            None => json!(""),
        };
        let id = body
            .opt_str("id")?
            .or(body.opt_str("tool_call_id")?)
            .map(str::to_owned);
        draft.message(Role::Tool, content, origin).tool_call_id = id;
        draft.rest(body, &["role", "content", "id", "tool_call_id"])?;
        return Ok(());
    }
    if role != Role::Assistant && body.get("content").is_none() {
        return Err(body.err("missing field \"content\""));
    }
    openai_chat::message_as(body, role.as_str(), name_node, origin, draft)
}
