//! Messages and tools recorded as flattened, indexed span attributes rather than one JSON value:
//! OpenInference's `llm.input_messages.{i}.message.*`, `llm.output_messages.*`, `llm.tools.{i}.tool.json_schema`,
//! `llm.invocation_parameters` and `llm.prompt_template.*`, and the deprecated form older
//! OpenLLMetry records, `gen_ai.prompt.{i}.*` / `gen_ai.completion.{i}.*` (or `gen_ai.prompt` /
//! `gen_ai.completion` as one JSON text) with `llm.request.functions.{i}.*`. Each attribute this
//! reads is named in the returned list, so the span reader lists the others as not mapped.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};

use super::draft::{image_part_from_url, text_part, tool_call, Draft, Msg, ToolDraft};
use super::node::Node;
use super::{openai_chat, otel, ImportError};
use crate::scene::Role;

/// A span attribute: its key and its value as plain JSON.
pub(super) type Attr<'n, 'a> = (&'a str, &'n Node<'a>);

/// The field names of one flattened message form.
struct Names {
    role: &'static str,
    content: &'static str,
    /// OpenInference's list of content parts (`message.contents.{j}.message_content.*`).
    contents: Option<&'static str>,
    name: &'static str,
    tool_call_id: &'static str,
    tool_calls: &'static str,
    call_id: &'static str,
    call_name: &'static str,
    call_arguments: &'static str,
    /// Tails a reply carries that say nothing of its content (`finish_reason`).
    ignored: &'static [&'static str],
}

const OPENINFERENCE: Names = Names {
    role: "message.role",
    content: "message.content",
    contents: Some("message.contents"),
    name: "message.name",
    tool_call_id: "message.tool_call_id",
    tool_calls: "message.tool_calls",
    call_id: "tool_call.id",
    call_name: "tool_call.function.name",
    call_arguments: "tool_call.function.arguments",
    ignored: &[],
};

const OPENLLMETRY: Names = Names {
    role: "role",
    content: "content",
    contents: None,
    name: "name",
    tool_call_id: "tool_call_id",
    tool_calls: "tool_calls",
    call_id: "id",
    call_name: "name",
    call_arguments: "arguments",
    ignored: &["finish_reason"],
};

/// Whether the span records its request in one of these forms.
pub(super) fn has_request(attrs: &[Attr<'_, '_>]) -> bool {
    attrs
        .iter()
        .any(|(k, _)| *k == "gen_ai.prompt" || k.starts_with("llm.input_messages."))
        || !indexed(attrs, "gen_ai.prompt").is_empty()
}

/// Reads the request (and the reply) into `draft`; returns the keys it read.
pub(super) fn read<'a>(
    attrs: &[Attr<'_, 'a>],
    draft: &mut Draft,
    params: &mut Map<String, Json>,
) -> Result<Vec<&'a str>, ImportError> {
    let mut used = Vec::new();
    // `gen_ai.prompt.name` and its like name a prompt template, not the deprecated messages.
    let deprecated = attrs.iter().any(|(k, _)| *k == "gen_ai.prompt")
        || !indexed(attrs, "gen_ai.prompt").is_empty();
    if deprecated {
        if let Some((k, v)) = attrs.iter().find(|(k, _)| *k == "gen_ai.prompt") {
            used.push(*k);
            otel::json_text(k, v, |n| chat_or_parts(n, k, draft))?;
        }
        if let Some((k, v)) = attrs.iter().find(|(k, _)| *k == "gen_ai.completion") {
            used.push(*k);
            let mut out = Draft::default();
            otel::json_text(k, v, |n| completion(n, k, &mut out))?;
            keep_reply(draft, out);
        }
        used.extend(messages(attrs, "gen_ai.prompt", &OPENLLMETRY, draft)?);
        let mut out = Draft::default();
        used.extend(messages(
            attrs,
            "gen_ai.completion",
            &OPENLLMETRY,
            &mut out,
        )?);
        keep_reply(draft, out);
        used.extend(functions(attrs, draft)?);
    } else {
        used.extend(messages(
            attrs,
            "llm.input_messages",
            &OPENINFERENCE,
            draft,
        )?);
        let mut out = Draft::default();
        used.extend(messages(
            attrs,
            "llm.output_messages",
            &OPENINFERENCE,
            &mut out,
        )?);
        keep_reply(draft, out);
        for (i, group) in indexed(attrs, "llm.tools") {
            for (tail, v, key) in group {
                if tail == "tool.json_schema" {
                    otel::json_text(key, v, |n| {
                        otel::tool_definition(n, &format!("llm.tools.{i}"), draft)
                    })?;
                    used.push(key);
                }
            }
        }
        if let Some((k, v)) = attrs
            .iter()
            .find(|(k, _)| *k == "llm.invocation_parameters")
        {
            otel::json_text(k, v, |n| {
                for (name, value) in n.members()? {
                    params.insert(name.to_owned(), value.to_json()?);
                }
                Ok(())
            })?;
            used.push(*k);
        }
    }
    Ok(used)
}

/// An attribute below an index: the key's tail after `prefix.{i}.`, the value, the whole key.
type Entry<'n, 'a> = (&'a str, &'n Node<'a>, &'a str);

/// The entries below `prefix.{i}.`, grouped by `i` in ascending order (one pass, no allocation
/// by index: an index is only a key).
fn indexed<'n, 'a>(attrs: &[Attr<'n, 'a>], prefix: &str) -> Vec<(usize, Vec<Entry<'n, 'a>>)> {
    let mut groups: BTreeMap<usize, Vec<Entry<'n, 'a>>> = BTreeMap::new();
    for (k, v) in attrs {
        let Some(rest) = k.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) else {
            continue;
        };
        let Some((index, tail)) = rest.split_once('.') else {
            continue;
        };
        if let Ok(i) = index.parse::<usize>() {
            groups.entry(i).or_default().push((tail, v, k));
        }
    }
    groups.into_iter().collect()
}

fn field<'n, 'a>(entries: &[Entry<'n, 'a>], tail: &str) -> Option<&'n Node<'a>> {
    entries
        .iter()
        .find(|(t, _, _)| *t == tail)
        .map(|(_, v, _)| *v)
}

/// `prefix.{i}.*` messages in order; returns the keys read.
fn messages<'a>(
    attrs: &[Attr<'_, 'a>],
    prefix: &str,
    names: &Names,
    draft: &mut Draft,
) -> Result<Vec<&'a str>, ImportError> {
    let mut used = Vec::new();
    for (i, entries) in indexed(attrs, prefix) {
        let Some(role_node) = field(&entries, names.role) else {
            // Not a message (`gen_ai.prompt.name` has no index): left to the caller.
            continue;
        };
        let role_name = role_node.str()?;
        let origin = format!("{prefix}.{i} ({role_name})");
        let role = match role_name {
            "system" | "developer" => Role::System,
            "user" | "human" => Role::User,
            "assistant" | "ai" | "model" => Role::Assistant,
            "tool" | "function" => Role::Tool,
            other => {
                return Err(role_node.err(format!(
                    "unknown role {other:?}: expected system, developer, user, assistant or tool"
                )))
            }
        };
        let mut parts = BTreeMap::new();
        let mut text = None;
        let mut calls: BTreeMap<usize, Map<String, Json>> = BTreeMap::new();
        for (tail, v, key) in &entries {
            used.push(*key);
            if [names.role, names.name, names.tool_call_id].contains(tail)
                || names.ignored.contains(tail)
            {
                continue;
            }
            if *tail == names.content {
                text = Some(v.str()?.to_owned());
            } else if let Some(rest) = names
                .contents
                .and_then(|c| tail.strip_prefix(c))
                .and_then(|r| r.strip_prefix('.'))
            {
                part(rest, v, key, &mut parts, draft)?;
            } else if let Some((k, call_field)) = tail
                .strip_prefix(names.tool_calls)
                .and_then(|r| r.strip_prefix('.'))
                .and_then(|r| r.split_once('.'))
                .and_then(|(k, f)| k.parse::<usize>().ok().map(|k| (k, f)))
            {
                let call = calls.entry(k).or_default();
                let slot = [
                    (names.call_id, "id"),
                    (names.call_name, "name"),
                    (names.call_arguments, "arguments"),
                ]
                .iter()
                .find(|(n, _)| *n == call_field)
                .map(|(_, s)| *s);
                match slot {
                    Some(s) => {
                        call.insert(s.to_owned(), v.to_json()?);
                    }
                    None => draft.unmapped.push(format!("{key} = {}", v.excerpt())),
                }
            } else {
                draft.unmapped.push(format!("{key} = {}", v.excerpt()));
            }
        }
        let mut parts: Vec<Json> = parts.into_values().collect();
        let content = match (text, parts.is_empty()) {
            (Some(t), true) => json!(t),
            (Some(t), false) => {
                parts.insert(0, text_part(&t));
                json!(parts)
            }
            (None, false) => json!(parts),
            (None, true) => json!(""),
        };
        let name = field(&entries, names.name)
            .map(|n| n.str().map(str::to_owned))
            .transpose()?;
        let tool_call_id = field(&entries, names.tool_call_id)
            .map(|n| n.str().map(str::to_owned))
            .transpose()?;
        if role == Role::System {
            openai_chat::system_or_message(draft, content, origin);
            continue;
        }
        let tool_calls = calls
            .into_values()
            .map(|c| {
                let s = |k: &str| c.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
                tool_call(
                    &s("id"),
                    &s("name"),
                    c.get("arguments").cloned().unwrap_or(json!("")),
                )
            })
            .collect();
        let msg = draft.message(role, content, origin);
        msg.name = name;
        msg.tool_call_id = tool_call_id;
        msg.tool_calls = tool_calls;
    }
    Ok(used)
}

/// One `message_content.*` attribute of content part `{j}`: texts and images (by URL) are parts.
fn part(
    rest: &str,
    v: &Node<'_>,
    key: &str,
    parts: &mut BTreeMap<usize, Json>,
    draft: &mut Draft,
) -> Result<(), ImportError> {
    let Some((j, tail)) = rest.split_once('.') else {
        draft.unmapped.push(format!("{key} = {}", v.excerpt()));
        return Ok(());
    };
    let Ok(j) = j.parse::<usize>() else {
        draft.unmapped.push(format!("{key} = {}", v.excerpt()));
        return Ok(());
    };
    // Parts are kept in their index order: the attributes of one part may come in any order.
    match tail {
        "message_content.type" => {}
        "message_content.text" => {
            parts.insert(j, text_part(v.str()?));
        }
        "message_content.image.image.url" => match image_part_from_url(v.str()?) {
            Some(p) => {
                parts.insert(j, p);
            }
            None => draft
                .unmapped
                .push(format!("{key}: a data: URL that is not base64")),
        },
        _ => draft.unmapped.push(format!("{key} = {}", v.excerpt())),
    }
    Ok(())
}

/// `llm.request.functions.{i}.name/description/parameters` (parameters as JSON text).
fn functions<'a>(attrs: &[Attr<'_, 'a>], draft: &mut Draft) -> Result<Vec<&'a str>, ImportError> {
    let mut used = Vec::new();
    for (i, entries) in indexed(attrs, "llm.request.functions") {
        let Some(name) = field(&entries, "name") else {
            continue;
        };
        let parameters = match field(&entries, "parameters") {
            Some(p) if p.as_str().is_some() => {
                let key = entries
                    .iter()
                    .find(|(t, _, _)| *t == "parameters")
                    .map_or("parameters", |(_, _, k)| *k);
                Some(otel::json_text(key, p, |n| n.to_json())?)
            }
            Some(p) => Some(p.to_json()?),
            None => None,
        };
        draft.tools.push(ToolDraft {
            name: name.str()?.to_owned(),
            description: field(&entries, "description")
                .map(|d| d.str().map(str::to_owned))
                .transpose()?,
            parameters,
            origin: format!("llm.request.functions.{i}"),
        });
        for (tail, _, key) in &entries {
            if ["name", "description", "parameters"].contains(tail) {
                used.push(*key);
            }
        }
    }
    Ok(used)
}

/// `gen_ai.prompt` as one JSON text: messages in the conventions' parts shape
/// (`{role, parts}`) or in chat completions' (`{role, content}`).
fn chat_or_parts(n: &Node<'_>, key: &str, draft: &mut Draft) -> Result<(), ImportError> {
    if n.items()?.iter().any(|m| m.get("parts").is_some()) {
        return otel::input_messages(n, key, draft);
    }
    for m in n.items()? {
        openai_chat::message(&m, draft)?;
    }
    Ok(())
}

/// `gen_ai.completion` as one JSON text: `{text, finish_reason}`, or messages.
fn completion(n: &Node<'_>, key: &str, out: &mut Draft) -> Result<(), ImportError> {
    if n.is_array() {
        return chat_or_parts(n, key, out);
    }
    let text = n.req_str("text")?;
    out.message(Role::Assistant, json!(text), format!("{key} (text)"));
    out.rest(n, &["text", "finish_reason"])?;
    Ok(())
}

/// Moves what `out` read of a response into `draft`'s reply.
pub(super) fn keep_reply(draft: &mut Draft, out: Draft) {
    for p in out.system {
        draft.reply.push(Msg {
            role: Role::System,
            content: json!(p.text),
            name: None,
            tool_call_id: None,
            tool_calls: Vec::new(),
            origin: p.origin,
            at: None,
        });
    }
    draft.reply.extend(out.messages);
    draft.reply.extend(out.reply);
    draft.unmapped.extend(out.unmapped);
    draft.tools.extend(out.tools);
}
