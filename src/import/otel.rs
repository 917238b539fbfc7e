//! OpenTelemetry GenAI spans (the semantic conventions' `gen_ai.*` attributes): an OTLP/JSON
//! export (`resourceSpans`), one span (`attributes` as OTLP key-values or a map), or a flat
//! attribute map. `gen_ai.system_instructions`, `gen_ai.input.messages` and
//! `gen_ai.tool.definitions` are read as their JSON schemas in the conventions describe them;
//! without `gen_ai.input.messages`, OpenInference's or older OpenLLMetry's flattened attributes
//! (`otel_flat.rs`) or the older message events (`otel_events.rs`) are. `gen_ai.output.messages`
//! is the reply, `gen_ai.prompt.name` / `.version` / `.variable.*` the prompt template. When the
//! span names its provider, the API, model, usage counts (`otel_usage.rs`), the reply, the
//! template and the span's start time go into the scene's `recorded` object. A span whose
//! operation is not chat or generation (embeddings, a tool's execution) is refused, or skipped in
//! an export. Every other attribute and event is listed as not mapped.

use serde_json::{json, Value as Json};

use super::draft::{image_part_from_url, text_part, tool_call, Draft, Piece, ToolDraft};
use super::node::{self, Doc, Host, Node};
use super::openai_chat;
use super::otel_events::{self, EVENTS, EVENTS_ATTRIBUTE};
use super::otel_flat;
use super::otel_recorded::Recording;
use super::otel_usage;
use super::time;
use super::ImportError;
use crate::json::{Json as Tree, Kind, Member};
use crate::scene::Role;
use crate::value::PyInt;

/// The span attributes that name the provider, first found first: the conventions'
/// `gen_ai.provider.name`, else the older `gen_ai.system`, else OpenInference's.
pub const PROVIDER_ATTRIBUTES: [&str; 4] = [
    "gen_ai.provider.name",
    "gen_ai.system",
    "llm.provider",
    "llm.system",
];

const INPUT: &str = "gen_ai.input.messages";
const SYSTEM: &str = "gen_ai.system_instructions";
const TOOLS: &str = "gen_ai.tool.definitions";

/// One span's request, and a label for it (`span "chat gpt-4o" at /resourceSpans/0/...`).
pub(crate) struct SpanDraft {
    pub draft: Draft,
    pub label: String,
}

/// Whether a document looks like OpenTelemetry data rather than a request body.
pub(crate) fn looks_like(root: &Node<'_>) -> bool {
    root.get("resourceSpans").is_some()
        || root.get("attributes").is_some()
        || root.members().is_ok_and(|m| {
            m.iter().any(|(k, _)| {
                k.starts_with("gen_ai.") || k.starts_with("llm.") || k.starts_with("openinference.")
            })
        })
}

/// Operations of the conventions' `gen_ai.operation.name` that are not a chat or generation
/// call, and what each is.
const NOT_CHAT: [(&str, &str); 5] = [
    ("embeddings", "an embeddings call"),
    ("execute_tool", "a tool's execution"),
    ("retrieval", "a retrieval"),
    ("create_agent", "an agent's creation"),
    ("moderation", "a moderation call"),
];

/// Why a span is not an LLM call this reads, by its `gen_ai.operation.name` (or OpenInference's
/// `openinference.span.kind`), with the attribute to point at.
fn not_chat<'n, 'a>(pairs: &'n [(&'a str, Node<'a>)]) -> Option<(&'n Node<'a>, String)> {
    for (key, v) in pairs {
        let value = match &v.json.kind {
            Kind::Str(s) => s.as_str(),
            _ => v.get("stringValue").and_then(|s| s.as_str()).unwrap_or(""),
        };
        let what = match *key {
            "gen_ai.operation.name" => NOT_CHAT
                .iter()
                .find(|(op, _)| *op == value)
                .map(|(_, w)| *w),
            "openinference.span.kind" => match value {
                "EMBEDDING" => Some("an embeddings call"),
                "TOOL" => Some("a tool's execution"),
                "RETRIEVER" | "RERANKER" => Some("a retrieval"),
                _ => None,
            },
            _ => None,
        };
        if let Some(what) = what {
            return Some((
                v,
                format!("{key} = {value:?}: {what}, not a chat or generation request, which is all this command reads"),
            ));
        }
    }
    None
}

/// The spans with a GenAI request in the document, in file order; `skipped` gets the others.
pub(crate) fn read(
    root: &Node<'_>,
    skipped: &mut Vec<String>,
) -> Result<Vec<SpanDraft>, ImportError> {
    let mut out = Vec::new();
    if let Some(resource_spans) = root.get("resourceSpans") {
        for rs in resource_spans.items()? {
            for ss in rs.req("scopeSpans")?.items()? {
                for span in ss.req("spans")?.items()? {
                    let pairs = key_values(&span.req("attributes")?)?;
                    if let Some((_, why)) = not_chat(&pairs) {
                        skipped.push(format!(
                            "{} (span {:?}): {why}",
                            span.ptr,
                            span.opt_str("name")?.unwrap_or("")
                        ));
                        continue;
                    }
                    match read_span(&span)? {
                        Some(d) => out.push(d),
                        None => skipped.push(format!(
                            "{} (span {:?}): no gen_ai input messages, system instructions, tool definitions or message events",
                            span.ptr,
                            span.opt_str("name")?.unwrap_or("")
                        )),
                    }
                }
            }
        }
        if out.is_empty() {
            return Err(root.err(format!(
                "no span of this export has a GenAI request (gen_ai.input.messages, gen_ai.system_instructions, gen_ai.tool.definitions, gen_ai.*.message events, llm.input_messages.* or gen_ai.prompt): {}",
                skipped.join("; ")
            )));
        }
        return Ok(out);
    }
    let pairs = match root.get("attributes") {
        Some(a) => key_values(&a)?,
        None => root.members()?,
    };
    if let Some((at, why)) = not_chat(&pairs) {
        return Err(at.err(why));
    }
    let span = if root.get("attributes").is_some() {
        read_span(root)?
    } else {
        read_attributes(root, &root.members()?, None, None)?
    };
    match span {
        Some(d) => Ok(vec![d]),
        None => Err(root.err("no GenAI request here: expected gen_ai.input.messages, gen_ai.system_instructions, gen_ai.tool.definitions, gen_ai.*.message events, OpenInference's llm.input_messages.* or the deprecated gen_ai.prompt")),
    }
}

fn read_span(span: &Node<'_>) -> Result<Option<SpanDraft>, ImportError> {
    let attributes = span.req("attributes")?;
    let events = span.get("events");
    let pairs = key_values(&attributes)?;
    let name = span.opt_str("name")?;
    // The start as RFC 3339: the call's recorded time.
    let start = start_time(span)?;
    let Some(mut d) = read_attributes(&attributes, &pairs, events.as_ref(), start.as_deref())?
    else {
        return Ok(None);
    };
    if let Some(n) = name {
        d.label = format!(
            "span {n:?} at {}",
            if span.ptr.is_empty() {
                "the top"
            } else {
                &span.ptr
            }
        );
    }
    Ok(Some(d))
}

/// When the span started, as RFC 3339: OTLP's `startTimeUnixNano` (a decimal string or a
/// number), or the `start_time` (ISO 8601) of the OpenTelemetry SDKs' JSON form of a span.
fn start_time(span: &Node<'_>) -> Result<Option<String>, ImportError> {
    if let Some(n) = span.get("startTimeUnixNano") {
        let nanos = match &n.json.kind {
            Kind::Str(s) => s.trim().parse::<u128>().ok(),
            Kind::Int(i) => i.as_i64().and_then(|i| u128::try_from(i).ok()),
            _ => None,
        };
        return nanos
            .and_then(time::from_unix_nanos)
            .map(Some)
            .ok_or_else(|| n.err("expected nanoseconds since the Unix epoch (a decimal string)"));
    }
    match span.get("start_time") {
        Some(t) => time::from_iso8601(t.str()?)
            .map(Some)
            .ok_or_else(|| t.err("expected an ISO 8601 date-time with its zone")),
        None => Ok(None),
    }
}

/// The attributes as (key, value) pairs: OTLP's `[{key, value: AnyValue}]` with each value
/// converted to JSON, or a map as it is.
pub(super) fn key_values<'a>(
    attributes: &Node<'a>,
) -> Result<Vec<(&'a str, Node<'a>)>, ImportError> {
    if attributes.is_object() {
        return attributes.members();
    }
    let mut out = Vec::new();
    for kv in attributes.items()? {
        let key = kv.req_str("key")?;
        let value = kv.req("value")?;
        value.object()?;
        out.push((key, value));
    }
    Ok(out)
}

/// An OTLP `AnyValue` as the JSON it stands for (spans kept, so errors still point into the
/// file); a plain JSON value (a map's) as it is.
pub(super) fn any_value(v: &Node<'_>, otlp: bool) -> Result<Tree, ImportError> {
    if !otlp {
        return Ok(v.json.clone());
    }
    let members = v.members()?;
    let Some((key, inner)) = members.into_iter().next() else {
        return Ok(Tree {
            span: v.json.span.clone(),
            kind: Kind::Null,
        });
    };
    // A number keeps the span of its own text (a float too large for f64 is written as it).
    let span = match inner.json.kind {
        Kind::Int(_) | Kind::Float(_) => inner.json.span.clone(),
        _ => v.json.span.clone(),
    };
    let kind = match key {
        "stringValue" | "bytesValue" => Kind::Str(inner.str()?.to_owned()),
        "boolValue" => match inner.json.kind {
            Kind::Bool(b) => Kind::Bool(b),
            _ => return Err(inner.err("expected a boolean")),
        },
        // OTLP/JSON writes 64-bit integers as strings.
        "intValue" => match &inner.json.kind {
            Kind::Int(i) => Kind::Int(i.clone()),
            Kind::Str(s) => Kind::Int(
                PyInt::parse(s).ok_or_else(|| inner.err("expected an integer (as a number or a decimal string)"))?,
            ),
            _ => return Err(inner.err("expected an integer (as a number or a decimal string)")),
        },
        "doubleValue" => match &inner.json.kind {
            Kind::Float(f) => Kind::Float(*f),
            Kind::Int(i) => Kind::Int(i.clone()),
            _ => return Err(inner.err("expected a number")),
        },
        "arrayValue" => {
            let values = inner.get("values").map(|n| n.items()).transpose()?.unwrap_or_default();
            Kind::Array(values.iter().map(|n| any_value(n, true)).collect::<Result<_, _>>()?)
        }
        "kvlistValue" => {
            let values = inner.get("values").map(|n| n.items()).transpose()?.unwrap_or_default();
            let mut members = Vec::with_capacity(values.len());
            for kv in values {
                let key = kv.req("key")?;
                members.push(Member {
                    key: key.str()?.to_owned(),
                    key_span: key.json.span.clone(),
                    value: any_value(&kv.req("value")?, true)?,
                });
            }
            Kind::Object(members)
        }
        other => {
            return Err(v.err(format!(
                "unknown AnyValue field {other:?}: expected stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue or bytesValue"
            )))
        }
    };
    Ok(Tree { span, kind })
}

/// Runs `f` on a structured attribute's JSON: the value itself, or the JSON text of a string
/// (errors inside that text name the attribute and the position within it).
pub(super) fn structured<T>(
    key: &str,
    value: &Node<'_>,
    otlp: bool,
    f: impl FnOnce(&Node<'_>) -> Result<T, ImportError>,
) -> Result<T, ImportError> {
    let tree = any_value(value, otlp)?;
    let Kind::Str(text) = &tree.kind else {
        // Pointers below are relative to the attribute, as they are inside a JSON string.
        let doc = Doc {
            text: value.doc.text,
            first_line: value.doc.first_line,
            host: None,
            prefix: value.ptr.clone(),
        };
        return f(&Node::root(&tree, &doc));
    };
    let host = match &value.doc.host {
        Some(outer) => outer.clone(),
        None => Host {
            text: value.doc.text,
            first_line: value.doc.first_line,
            offset: value.json.span.start,
            pointer: value.ptr.clone(),
            what: format!("the {key} attribute"),
        },
    };
    let doc = Doc {
        text,
        first_line: 1,
        host: Some(host),
        prefix: String::new(),
    };
    let inner = node::parse(&doc)?;
    f(&Node::root(&inner, &doc))
}

/// Runs `f` on an attribute's JSON (a plain value): the value itself, or the JSON text of a
/// string, errors inside which name the attribute and the position within it.
pub(super) fn json_text<T>(
    key: &str,
    value: &Node<'_>,
    f: impl FnOnce(&Node<'_>) -> Result<T, ImportError>,
) -> Result<T, ImportError> {
    structured(key, value, false, f)
}

const OUTPUT: &str = "gen_ai.output.messages";

fn read_attributes(
    holder: &Node<'_>,
    pairs: &[(&str, Node<'_>)],
    events: Option<&Node<'_>>,
    start: Option<&str>,
) -> Result<Option<SpanDraft>, ImportError> {
    let otlp = holder.is_array();
    // Every value as plain JSON, each still pointing at its attribute.
    let trees = pairs
        .iter()
        .map(|(_, v)| any_value(v, otlp))
        .collect::<Result<Vec<_>, _>>()?;
    let attrs: Vec<(&str, Node<'_>)> = pairs
        .iter()
        .zip(&trees)
        .map(|((k, v), t)| {
            (
                *k,
                Node {
                    json: t,
                    doc: v.doc,
                    ptr: v.ptr.clone(),
                },
            )
        })
        .collect();
    let flat: Vec<otel_flat::Attr<'_, '_>> = attrs.iter().map(|(k, v)| (*k, v)).collect();
    let find = |k: &str| attrs.iter().find(|(key, _)| *key == k).map(|(_, v)| v);
    let event_messages = match events {
        Some(e) => e.items()?.iter().any(|ev| {
            ev.opt_str("name")
                .ok()
                .flatten()
                .is_some_and(|n| EVENTS.iter().any(|(e, _)| *e == n))
        }),
        None => false,
    };
    let flat_request = otel_flat::has_request(&flat);
    if !(find(INPUT).is_some()
        || find(SYSTEM).is_some()
        || find(TOOLS).is_some()
        || event_messages
        || flat_request
        || find(EVENTS_ATTRIBUTE).is_some())
    {
        return Ok(None);
    }
    let mut draft = Draft::default();
    // A set: a flattened span has an attribute per field, each looked up once below.
    let mut used: std::collections::HashSet<&str> = [INPUT, SYSTEM, TOOLS].into_iter().collect();
    let mut invocation = serde_json::Map::new();
    if let Some(v) = find(SYSTEM) {
        json_text(SYSTEM, v, |n| system_instructions(n, &mut draft))?;
    }
    if let Some(v) = find(INPUT) {
        json_text(INPUT, v, |n| input_messages(n, INPUT, &mut draft))?;
        if let Some(e) = events {
            if event_messages {
                draft.unmapped_because(
                    e,
                    "message events: the span's gen_ai.input.messages was read instead",
                )?;
            }
        }
    } else if flat_request {
        used.extend(otel_flat::read(&flat, &mut draft, &mut invocation)?);
    } else if let Some(e) = events.filter(|_| event_messages) {
        for ev in e.items()? {
            otel_events::event(&ev, &mut draft)?;
        }
    } else if let Some(v) = find(EVENTS_ATTRIBUTE) {
        json_text(EVENTS_ATTRIBUTE, v, |list| {
            otel_events::events_attribute(list, &mut draft)
        })?;
        used.insert(EVENTS_ATTRIBUTE);
    } else if let Some(e) = events {
        for ev in e.items()? {
            otel_events::event(&ev, &mut draft)?;
        }
    }
    if let Some(v) = find(OUTPUT) {
        let mut out = Draft::default();
        json_text(OUTPUT, v, |n| input_messages(n, OUTPUT, &mut out))?;
        otel_flat::keep_reply(&mut draft, out);
        used.insert(OUTPUT);
    }
    if let Some(v) = find(TOOLS) {
        json_text(TOOLS, v, |n| tool_definitions(n, &mut draft))?;
    }
    used.extend(prompt_template(&attrs, &mut draft)?);
    let provider = PROVIDER_ATTRIBUTES
        .iter()
        .find_map(|name| find(name))
        .and_then(|v| node::tree_to_json(v.json, v.doc.text).ok());
    let mut recording = Recording::new(provider.as_ref());
    // The usage counts go into `recorded` when the provider says which API the call was (Anthropic
    // counts cached tokens apart from `input_tokens`, the others within it); they are listed as
    // not mapped otherwise.
    let mut facts = Vec::new();
    for (key, v) in &attrs {
        if used.contains(key) {
            continue;
        }
        let tree = v.json.clone();
        let usage_key = otel_usage::is_usage_key(key);
        if usage_key || otel_usage::is_provider_key(key) {
            facts.push((*key, tree.clone(), v.clone()));
        }
        if usage_key {
            continue;
        }
        if let (Some(r), Ok(value)) = (&mut recording, node::tree_to_json(&tree, v.doc.text)) {
            if r.take(key, &value) {
                continue;
            }
        }
        draft
            .unmapped
            .push(format!("{key} = {}", node::tree_excerpt(&tree, v.doc.text)));
    }
    if !invocation.is_empty() {
        match &mut recording {
            Some(r) => r.invocation_parameters(invocation),
            None => draft.unmapped.push(format!(
                "llm.invocation_parameters = {}",
                node::excerpt(&Json::Object(invocation))
            )),
        }
    }
    let usage = match &recording {
        Some(_) => otel_usage::read(&facts)?,
        None => None,
    };
    match usage {
        Some(usage) => {
            let usage = serde_json::to_value(usage).unwrap_or(Json::Null);
            draft.recorded.insert("usage".into(), usage);
        }
        None => {
            for (key, tree, v) in &facts {
                if otel_usage::is_usage_key(key) {
                    draft
                        .unmapped
                        .push(format!("{key} = {}", node::tree_excerpt(tree, v.doc.text)));
                }
            }
        }
    }
    if let Some(r) = recording {
        r.finish(&mut draft, start);
    }
    Ok(Some(SpanDraft {
        draft,
        label: String::new(),
    }))
}

/// The prompt template the span names: the conventions' `gen_ai.prompt.name`, `.version` and
/// `.variable.<name>`, or OpenInference's `llm.prompt_template.template`, `.version` and
/// `.variables` (a JSON object); returns the keys read.
fn prompt_template<'a>(
    attrs: &[(&'a str, Node<'_>)],
    draft: &mut Draft,
) -> Result<Vec<&'a str>, ImportError> {
    let mut used = Vec::new();
    let mut variables = serde_json::Map::new();
    for (key, v) in attrs {
        let slot = match *key {
            "gen_ai.prompt.name" => "name",
            "gen_ai.prompt.version" | "llm.prompt_template.version" => "version",
            "llm.prompt_template.template" => "template",
            "llm.prompt_template.variables" => {
                json_text(key, v, |n| {
                    for (name, value) in n.members()? {
                        variables.insert(name.to_owned(), value.to_json()?);
                    }
                    Ok(())
                })?;
                used.push(*key);
                continue;
            }
            _ => match key.strip_prefix("gen_ai.prompt.variable.") {
                Some(name) => {
                    variables.insert(name.to_owned(), v.to_json()?);
                    used.push(*key);
                    continue;
                }
                None => continue,
            },
        };
        let text = match v.as_str() {
            Some(s) => s.to_owned(),
            None => v.to_json()?.to_string(),
        };
        draft.prompt.insert(slot.to_owned(), json!(text));
        used.push(*key);
    }
    if !variables.is_empty() {
        draft
            .prompt
            .insert("variables".to_owned(), Json::Object(variables));
    }
    Ok(used)
}

fn system_instructions(n: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    for p in n.items()? {
        match p.req_str("type")? {
            "text" => {
                draft.system.push(Piece {
                    text: p.req_str("content")?.to_owned(),
                    origin: format!("{SYSTEM}{}", p.ptr),
                });
                draft.rest(&p, &["type", "content"])?;
            }
            other => draft
                .unmapped
                .push(format!("{SYSTEM}{}: a {other:?} part", p.ptr)),
        }
    }
    Ok(())
}

/// Messages in the conventions' parts shape (`gen_ai.input.messages`, `gen_ai.output.messages`,
/// the deprecated `gen_ai.prompt` text), read from the attribute `key`.
pub(super) fn input_messages(
    n: &Node<'_>,
    key: &str,
    draft: &mut Draft,
) -> Result<(), ImportError> {
    for m in n.items()? {
        let role_node = m.req("role")?;
        let role = match role_node.str()? {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => {
                return Err(role_node.err(format!(
                    "unknown role {other:?}: expected system, user, assistant or tool"
                )))
            }
        };
        let origin = format!("{key}{} ({})", m.ptr, role.as_str());
        let mut parts = Vec::new();
        let mut calls = Vec::new();
        let mut responses = 0;
        for p in m.req("parts")?.items()? {
            match p.req_str("type")? {
                "text" => {
                    parts.push(text_part(p.req_str("content")?));
                    draft.rest(&p, &["type", "content"])?;
                }
                "tool_call" => {
                    let arguments = p.get("arguments").map_or(Ok(Json::Null), |a| a.to_json())?;
                    calls.push(tool_call(p.req_str("id")?, p.req_str("name")?, arguments));
                    draft.rest(&p, &["type", "id", "name", "arguments"])?;
                }
                "tool_call_response" => {
                    responses += 1;
                    // The conventions name the payload `response` (earlier drafts: `result`).
                    let result = p.get("response").or_else(|| p.get("result"));
                    let content = match &result {
                        Some(r) => match r.as_str() {
                            Some(s) => json!(s),
                            None => json!(r.to_json()?.to_string()),
                        },
                        None => json!(""),
                    };
                    let as_text = result.as_ref().is_some_and(|r| r.as_str().is_none());
                    let origin = format!(
                        "{key}{} (tool_call_response{})",
                        p.ptr,
                        if as_text { ", its JSON result as text" } else { "" }
                    );
                    let id = p.opt_str("id")?.map(str::to_owned);
                    // pydantic-ai names the tool that answered.
                    let name = p.opt_str("name")?.map(str::to_owned);
                    let msg = draft.message(Role::Tool, content, origin);
                    msg.tool_call_id = id;
                    msg.name = name;
                    draft.rest(&p, &["type", "id", "name", "response", "result"])?;
                }
                "blob" | "uri" if p.opt_str("modality")? == Some("image") => {
                    let part = if p.opt_str("type")? == Some("blob") {
                        let mut part = json!({"type": "image", "data_base64": p.req_str("content")?});
                        if let Some(mime) = p.opt_str("mime_type")? {
                            part["mime_type"] = json!(mime);
                        }
                        Some(part)
                    } else {
                        image_part_from_url(p.req_str("uri")?)
                    };
                    match part {
                        Some(part) => parts.push(part),
                        None => draft.unmapped.push(format!("{key}{}: a data: URI that is not base64", p.ptr)),
                    }
                    draft.rest(&p, &["type", "modality", "mime_type", "content", "uri"])?;
                }
                other => draft.unmapped.push(format!(
                    "{key}{}: a {other:?} part (a scene message holds text, images, tool calls and results)",
                    p.ptr
                )),
            }
        }
        let name = m.opt_str("name")?.map(str::to_owned);
        if role == Role::System {
            openai_chat::system_or_message(draft, json!(parts), origin);
        } else if !(parts.is_empty() && calls.is_empty() && responses > 0) {
            let msg = draft.message(role, json!(parts), origin);
            msg.tool_calls = calls;
            msg.name = name;
        }
        // A reply's `finish_reason` says why the model stopped, not what it said.
        draft.rest(&m, &["role", "parts", "name", "finish_reason"])?;
    }
    Ok(())
}

fn tool_definitions(n: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    for t in n.items()? {
        tool_definition(&t, &format!("{TOOLS}{}", t.ptr), draft)?;
    }
    Ok(())
}

/// One tool definition: the conventions' `{type, name, description, parameters}`, chat
/// completions' nested `{type: "function", function: {name, ...}}` (as the Microsoft Agent
/// Framework and OpenInference record them), or Anthropic's `{name, input_schema}`.
pub(super) fn tool_definition(
    t: &Node<'_>,
    origin: &str,
    draft: &mut Draft,
) -> Result<(), ImportError> {
    let ty = t.opt_str("type")?.unwrap_or("function");
    if ty != "function" && ty != "custom" {
        let name = t.opt_str("name")?.unwrap_or("");
        draft.unmapped.push(format!(
            "{origin}: the {ty:?} tool {name:?} (scenes hold function tools) = {}",
            t.excerpt()
        ));
        return Ok(());
    }
    let (f, outer) = match t.get("function").filter(|f| f.is_object()) {
        Some(f) => (f, true),
        None => (t.clone(), false),
    };
    let schema_key = if f.get("input_schema").is_some() {
        "input_schema"
    } else {
        "parameters"
    };
    draft.tools.push(ToolDraft {
        name: f.req_str("name")?.to_owned(),
        description: f.opt_str("description")?.map(str::to_owned),
        parameters: f.get(schema_key).map(|p| p.to_json()).transpose()?,
        origin: origin.to_owned(),
    });
    draft.rest(&f, &["type", "name", "description", schema_key])?;
    if outer {
        draft.rest(t, &["type", "function"])?;
    }
    Ok(())
}
