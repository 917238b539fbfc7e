//! The traffic corpus (`corpora/traffic/`, real request bodies and OpenTelemetry spans from
//! public repositories, `manifest.json` and `PROVENANCE.md` there) through `import`: every payload
//! of a claimed format imports, every payload that is not a chat or generation request is refused
//! with exit 2 and a position, and each import is faithful. Faithful is checked against an
//! extractor written here, which walks each payload's raw JSON by its format's documented field
//! names (never the import code) and collects every system text, user and assistant text, tool
//! call (name and arguments), tool result and tool definition name, and the response's texts;
//! each must be in the scene (its prompts, turns, tools, `recorded`), or, for a reply a span
//! cannot keep, named in the scene's "Not mapped" list, as must every span attribute and body
//! field the scene keeps nowhere else.

use std::path::{Path, PathBuf};
use std::process::Command;

use prompt_inspector::import;
use serde_json::{Map, Value as Json};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/traffic")
}

fn read_json(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What a payload says, collected from its raw JSON.
#[derive(Default, Debug)]
struct Want {
    systems: Vec<String>,
    texts: Vec<String>,
    calls: Vec<(String, Json)>,
    results: Vec<Json>,
    tools: Vec<String>,
    /// Texts and tool-call names of the response recorded with the request.
    replies: Vec<String>,
    /// Where the reply was recorded (an attribute or event name), which the "Not mapped" list
    /// names when the scene cannot keep it.
    reply_from: Vec<String>,
    /// Span attributes and body fields whose values are none of the above: each is in
    /// `recorded` or named in the "Not mapped" list.
    other_fields: Vec<String>,
}

impl Want {
    fn text(&mut self, role: &str, text: &str) {
        if text.is_empty() {
            return;
        }
        match role {
            "system" | "developer" => self.systems.push(text.to_owned()),
            _ => self.texts.push(text.to_owned()),
        }
    }
}

/// A string that is JSON text, parsed; anything else as it is.
fn parsed(v: &Json) -> Option<Json> {
    match v {
        Json::String(s) => serde_json::from_str(s).ok(),
        other => Some(other.clone()),
    }
}

/// The texts of a content: a string, or the `text` of its text parts (chat's `text`, the
/// Responses API's `input_text` / `output_text`, Anthropic's `text` blocks).
fn content_texts(content: &Json) -> Vec<String> {
    match content {
        Json::String(s) => vec![s.clone()],
        Json::Array(parts) => parts
            .iter()
            .filter(|p| {
                matches!(
                    p.get("type").and_then(Json::as_str),
                    Some("text" | "input_text" | "output_text")
                )
            })
            .filter_map(|p| p.get("text").and_then(Json::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn str_of<'j>(v: &'j Json, key: &str) -> &'j str {
    v.get(key).and_then(Json::as_str).unwrap_or("")
}

fn items(v: Option<&Json>) -> &[Json] {
    v.and_then(Json::as_array).map_or(&[], Vec::as_slice)
}

// ---- request bodies ----

fn openai_chat(body: &Json, want: &mut Want) {
    for m in items(body.get("messages")) {
        let role = str_of(m, "role");
        let content = m.get("content").cloned().unwrap_or(Json::Null);
        if role == "tool" || role == "function" {
            for t in content_texts(&content) {
                want.results.push(Json::String(t));
            }
            continue;
        }
        for t in content_texts(&content) {
            want.text(role, &t);
        }
        for c in items(m.get("tool_calls")) {
            let f = &c["function"];
            want.calls
                .push((str_of(f, "name").to_owned(), f["arguments"].clone()));
        }
    }
    for t in items(body.get("tools")) {
        if let Some(name) = t
            .get("function")
            .and_then(|f| f.get("name"))
            .and_then(Json::as_str)
        {
            want.tools.push(name.to_owned());
        }
    }
    body_fields(body, &["messages", "tools"], want);
}

fn openai_responses(body: &Json, want: &mut Want) {
    if let Some(i) = body.get("instructions").and_then(Json::as_str) {
        want.text("system", i);
    }
    match body.get("input") {
        Some(Json::String(s)) => want.text("user", s),
        Some(Json::Array(list)) => {
            for item in list {
                let ty = item.get("type").and_then(Json::as_str).unwrap_or("message");
                match ty {
                    "message" => {
                        for t in content_texts(&item["content"]) {
                            want.text(str_of(item, "role"), &t);
                        }
                    }
                    "function_call" => want
                        .calls
                        .push((str_of(item, "name").to_owned(), item["arguments"].clone())),
                    "function_call_output" => match &item["output"] {
                        Json::String(s) => want.results.push(Json::String(s.clone())),
                        other => {
                            for t in content_texts(other) {
                                want.results.push(Json::String(t));
                            }
                        }
                    },
                    _ => {}
                }
            }
        }
        _ => {}
    }
    for t in items(body.get("tools")) {
        if let Some(name) = t.get("name").and_then(Json::as_str) {
            want.tools.push(name.to_owned());
        }
    }
    body_fields(body, &["instructions", "input", "tools"], want);
}

fn anthropic(body: &Json, want: &mut Want) {
    for t in body.get("system").map(content_texts).unwrap_or_default() {
        want.text("system", &t);
    }
    for m in items(body.get("messages")) {
        let role = str_of(m, "role");
        let content = &m["content"];
        for t in content_texts(content) {
            want.text(role, &t);
        }
        for b in items(Some(content)) {
            match str_of(b, "type") {
                "tool_use" | "server_tool_use" | "mcp_tool_use" => want
                    .calls
                    .push((str_of(b, "name").to_owned(), b["input"].clone())),
                "tool_result" => match b.get("content") {
                    Some(Json::String(s)) => want.results.push(Json::String(s.clone())),
                    Some(other) => {
                        for t in content_texts(other) {
                            want.results.push(Json::String(t));
                        }
                    }
                    None => {}
                },
                _ => {}
            }
        }
    }
    for t in items(body.get("tools")) {
        if let Some(name) = t.get("name").and_then(Json::as_str) {
            want.tools.push(name.to_owned());
        }
    }
    body_fields(body, &["system", "messages", "tools"], want);
}

/// A body's top-level fields beyond its content: each must be recorded or listed.
fn body_fields(body: &Json, content: &[&str], want: &mut Want) {
    for (key, v) in body.as_object().into_iter().flatten() {
        let empty = matches!(v, Json::String(s) if s.is_empty())
            || matches!(v, Json::Array(a) if a.is_empty());
        if !content.contains(&key.as_str()) || empty {
            want.other_fields.push(key.clone());
        }
    }
}

// ---- OpenTelemetry spans ----

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: &Json) -> Json {
    let Some((kind, inner)) = v.as_object().and_then(|o| o.iter().next()) else {
        return Json::Null;
    };
    match kind.as_str() {
        "arrayValue" => Json::Array(items(inner.get("values")).iter().map(any_value).collect()),
        "kvlistValue" => Json::Object(key_values(inner.get("values"))),
        _ => inner.clone(),
    }
}

fn key_values(list: Option<&Json>) -> Map<String, Json> {
    items(list)
        .iter()
        .map(|kv| (str_of(kv, "key").to_owned(), any_value(&kv["value"])))
        .collect()
}

/// Attributes as a list of OTLP key-values or as a map, as a map of plain values.
fn attributes(a: Option<&Json>) -> Map<String, Json> {
    match a {
        Some(Json::Object(map)) => map.clone(),
        Some(list @ Json::Array(_)) => key_values(Some(list)),
        _ => Map::new(),
    }
}

/// The spans of a document: (attributes, events as (name, attributes)).
type Span = (Map<String, Json>, Vec<(String, Map<String, Json>)>);

fn spans(doc: &Json) -> Vec<Span> {
    let events = |span: &Json| {
        items(span.get("events"))
            .iter()
            .map(|e| {
                (
                    str_of(e, "name").to_owned(),
                    attributes(e.get("attributes")),
                )
            })
            .collect::<Vec<_>>()
    };
    if let Some(rs) = doc.get("resourceSpans") {
        let mut out = Vec::new();
        for r in items(Some(rs)) {
            for s in items(r.get("scopeSpans")) {
                for span in items(s.get("spans")) {
                    out.push((attributes(span.get("attributes")), events(span)));
                }
            }
        }
        return out;
    }
    if doc.get("attributes").is_some() {
        return vec![(attributes(doc.get("attributes")), events(doc))];
    }
    vec![(doc.as_object().cloned().unwrap_or_default(), Vec::new())]
}

/// Messages in the conventions' parts shape (`{role, parts: [{type, content | ...}]}`).
fn parts_messages(list: &Json, want: &mut Want, reply: bool) {
    for m in items(Some(list)) {
        let role = str_of(m, "role");
        for p in items(m.get("parts")) {
            match str_of(p, "type") {
                "text" => {
                    let text = str_of(p, "content");
                    if reply {
                        want.replies.push(text.to_owned());
                    } else {
                        want.text(role, text);
                    }
                }
                "tool_call" if reply => want.replies.push(str_of(p, "name").to_owned()),
                "tool_call" => want.calls.push((
                    str_of(p, "name").to_owned(),
                    p.get("arguments").cloned().unwrap_or(Json::Null),
                )),
                "tool_call_response" if !reply => {
                    if let Some(r) = p.get("response").or_else(|| p.get("result")) {
                        want.results.push(r.clone());
                    }
                }
                _ => {}
            }
        }
    }
}

/// Messages in chat completions' shape (`{role, content, tool_calls}`).
fn chat_messages(list: &Json, want: &mut Want, reply: bool) {
    if items(Some(list)).iter().any(|m| m.get("parts").is_some()) {
        return parts_messages(list, want, reply);
    }
    for m in items(Some(list)) {
        if reply {
            want.replies.extend(content_texts(&m["content"]));
        } else if str_of(m, "role") == "tool" {
            want.results.push(m["content"].clone());
        } else {
            for t in content_texts(&m["content"]) {
                want.text(str_of(m, "role"), &t);
            }
        }
    }
}

fn tool_name(def: &Json) -> Option<String> {
    def.get("name")
        .or_else(|| def.get("function").and_then(|f| f.get("name")))
        .and_then(Json::as_str)
        .map(str::to_owned)
}

/// Indexed flat keys `prefix.{i}.tail`, grouped by `i` in order, each with its tails.
fn indexed(attrs: &Map<String, Json>, prefix: &str) -> Vec<Map<String, Json>> {
    let mut groups: std::collections::BTreeMap<usize, Map<String, Json>> = Default::default();
    for (k, v) in attrs {
        let Some(rest) = k.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) else {
            continue;
        };
        let Some((i, tail)) = rest.split_once('.') else {
            continue;
        };
        if let Ok(i) = i.parse::<usize>() {
            groups
                .entry(i)
                .or_default()
                .insert(tail.to_owned(), v.clone());
        }
    }
    groups.into_values().collect()
}

/// OpenInference's `message.*` or OpenLLMetry's flat message fields of one indexed message.
fn flat_message(m: &Map<String, Json>, names: (&str, &str, &str), want: &mut Want, reply: bool) {
    let (role_key, content_key, calls_prefix) = names;
    let role = m.get(role_key).and_then(Json::as_str).unwrap_or("");
    let mut texts = Vec::new();
    if let Some(c) = m.get(content_key).and_then(Json::as_str) {
        texts.push(c.to_owned());
    }
    for part in indexed(m, "message.contents") {
        if let Some(t) = part.get("message_content.text").and_then(Json::as_str) {
            texts.push(t.to_owned());
        }
    }
    for call in indexed(m, calls_prefix) {
        let name = call
            .get("tool_call.function.name")
            .or_else(|| call.get("name"))
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned();
        let args = call
            .get("tool_call.function.arguments")
            .or_else(|| call.get("arguments"))
            .cloned()
            .unwrap_or(Json::Null);
        if reply {
            want.replies.push(name);
        } else {
            want.calls.push((name, args));
        }
    }
    for t in texts {
        if reply {
            want.replies.push(t);
        } else if role == "tool" {
            want.results.push(Json::String(t));
        } else {
            want.text(role, &t);
        }
    }
}

/// Attribute keys whose values the checks above account for, or that the documented mapping
/// puts into `recorded` when the span names its provider.
fn content_key(key: &str) -> bool {
    [
        "gen_ai.input.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.output.messages",
        "gen_ai.prompt",
        "gen_ai.completion",
        "llm.invocation_parameters",
        "events",
    ]
    .contains(&key)
        || [
            "gen_ai.prompt.",
            "gen_ai.completion.",
            "llm.input_messages.",
            "llm.output_messages.",
        ]
        .iter()
        .chain(&[
            "llm.tools.",
            "llm.request.functions.",
            "llm.prompt_template.",
        ])
        .any(|p| key.starts_with(p))
}

fn recorded_key(key: &str) -> bool {
    [
        "gen_ai.provider.name",
        "gen_ai.system",
        "llm.provider",
        "llm.system",
        "llm.model_name",
        "gen_ai.response.model",
    ]
    .contains(&key)
        || key.starts_with("gen_ai.request.")
        || key.starts_with("gen_ai.usage.")
        || key.starts_with("llm.token_count.")
}

fn otel_span(span: &Span, want: &mut Want) {
    let (attrs, span_events) = span;
    // Older pydantic-ai: the events' bodies as one JSON text, each naming itself in `event.name`.
    let mut events = span_events.clone();
    for body in items(attrs.get("events").and_then(parsed).as_ref()) {
        if let Some(o) = body.as_object() {
            events.push((str_of(body, "event.name").to_owned(), o.clone()));
        }
    }
    // A span that records no request (a tool's execution, an HTTP call) becomes no scene.
    let message_events = events
        .iter()
        .any(|(n, _)| n.starts_with("gen_ai.") && n.ends_with(".message"));
    let request_attribute = attrs
        .keys()
        .any(|k| content_key(k) && !k.starts_with("gen_ai.prompt."))
        || !indexed(attrs, "gen_ai.prompt").is_empty();
    if !(message_events || request_attribute) {
        return;
    }
    let get = |k: &str| attrs.get(k).and_then(parsed);
    if let Some(list) = get("gen_ai.system_instructions") {
        for p in items(Some(&list)) {
            if str_of(p, "type") == "text" {
                want.text("system", str_of(p, "content"));
            }
        }
    }
    let input = get("gen_ai.input.messages");
    if let Some(list) = &input {
        parts_messages(list, want, false);
    }
    if let Some(list) = get("gen_ai.output.messages") {
        parts_messages(&list, want, true);
        want.reply_from.push("gen_ai.output.messages".into());
    }
    for def in items(get("gen_ai.tool.definitions").as_ref()) {
        if let Some(name) = tool_name(def) {
            want.tools.push(name);
        }
    }
    // OpenInference.
    for m in indexed(attrs, "llm.input_messages") {
        flat_message(
            &m,
            ("message.role", "message.content", "message.tool_calls"),
            want,
            false,
        );
    }
    for m in indexed(attrs, "llm.output_messages") {
        flat_message(
            &m,
            ("message.role", "message.content", "message.tool_calls"),
            want,
            true,
        );
        want.reply_from.push("llm.output_messages".into());
    }
    for t in indexed(attrs, "llm.tools") {
        if let Some(name) = t
            .get("tool.json_schema")
            .and_then(parsed)
            .as_ref()
            .and_then(tool_name)
        {
            want.tools.push(name);
        }
    }
    // The deprecated forms of older OpenLLMetry.
    if let Some(list) = get("gen_ai.prompt") {
        chat_messages(&list, want, false);
    }
    for m in indexed(attrs, "gen_ai.prompt") {
        flat_message(&m, ("role", "content", "tool_calls"), want, false);
    }
    if let Some(c) = get("gen_ai.completion") {
        match c.get("text").and_then(Json::as_str) {
            Some(t) => want.replies.push(t.to_owned()),
            None => chat_messages(&c, want, true),
        }
        want.reply_from.push("gen_ai.completion".into());
    }
    for m in indexed(attrs, "gen_ai.completion") {
        flat_message(&m, ("role", "content", "tool_calls"), want, true);
        want.reply_from.push("gen_ai.completion".into());
    }
    for f in indexed(attrs, "llm.request.functions") {
        if let Some(name) = f.get("name").and_then(Json::as_str) {
            want.tools.push(name.to_owned());
        }
    }
    // The older message events, read when the span has no gen_ai.input.messages.
    if input.is_none() {
        for (name, ev) in &events {
            let body = match ev.get("gen_ai.event.content") {
                Some(c) => match parsed(c) {
                    Some(b) => b,
                    // A documented body with its JSON broken: nothing to expect from it.
                    None => continue,
                },
                None => Json::Object(ev.clone()),
            };
            let role = match name.as_str() {
                "gen_ai.system.message" => "system",
                "gen_ai.user.message" => "user",
                "gen_ai.assistant.message" => "assistant",
                "gen_ai.tool.message" => "tool",
                "gen_ai.choice" => {
                    let message = body.get("message").and_then(parsed).unwrap_or(Json::Null);
                    want.replies.extend(content_texts(&message["content"]));
                    want.reply_from.push("gen_ai.choice".into());
                    continue;
                }
                _ => continue,
            };
            if role == "tool" {
                want.results.push(body["content"].clone());
                continue;
            }
            for t in content_texts(&body["content"]) {
                want.text(role, &t);
            }
            for c in items(body.get("tool_calls").and_then(parsed).as_ref()) {
                let f = &c["function"];
                want.calls
                    .push((str_of(f, "name").to_owned(), f["arguments"].clone()));
            }
        }
    }
    for key in attrs.keys() {
        if !content_key(key) {
            want.other_fields.push(key.clone());
        }
    }
}

// ---- the scene side ----

/// Every string of the scene outside its description, and every value (for tool calls and
/// results that are not strings).
fn strings(v: &Json, out: &mut Vec<String>) {
    match v {
        Json::String(s) => out.push(s.clone()),
        Json::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Json::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn values<'j>(v: &'j Json, out: &mut Vec<&'j Json>) {
    out.push(v);
    match v {
        Json::Array(a) => a.iter().for_each(|x| values(x, out)),
        Json::Object(o) => o.values().for_each(|x| values(x, out)),
        _ => {}
    }
}

/// Two tool-call arguments alike: equal, or one the JSON text of the other.
fn same_arguments(a: &Json, b: &Json) -> bool {
    a == b || parsed(a).is_some_and(|x| Some(x) == parsed(b))
}

struct Got {
    hay: Vec<String>,
    body: Vec<Json>,
    descriptions: String,
    recorded: Vec<Json>,
}

impl Got {
    fn has_text(&self, t: &str) -> bool {
        let escaped = t.replace('{', "{{").replace('}', "}}");
        self.hay.iter().any(|h| h == t || h == &escaped)
    }

    fn has_value(&self, v: &Json) -> bool {
        if let Json::String(s) = v {
            if self.has_text(s) {
                return true;
            }
        }
        self.body.iter().any(|scene| {
            let mut all = Vec::new();
            values(scene, &mut all);
            all.iter()
                .any(|x| *x == v || (x.is_string() && parsed(x).as_ref() == Some(v)))
        })
    }

    fn has_call(&self, name: &str, args: &Json) -> bool {
        self.body.iter().any(|scene| {
            let mut all = Vec::new();
            values(scene, &mut all);
            all.iter().any(|x| {
                x.get("name").and_then(Json::as_str) == Some(name)
                    && ["arguments", "input"]
                        .iter()
                        .any(|k| x.get(k).is_some_and(|a| same_arguments(a, args)))
            })
        })
    }

    fn not_mapped_names(&self, what: &str) -> bool {
        self.descriptions
            .split("\nNot mapped:")
            .skip(1)
            .any(|list| list.contains(what))
    }
}

fn got(scenes: &[import::ImportedScene]) -> Got {
    let mut hay = Vec::new();
    let mut body = Vec::new();
    let mut descriptions = String::new();
    let mut recorded = Vec::new();
    for s in scenes {
        let mut doc: Json = serde_json::from_str(&s.text).expect("scene JSON");
        if let Some(Json::String(d)) = doc.as_object_mut().and_then(|o| o.remove("description")) {
            descriptions.push_str(&d);
            descriptions.push('\n');
        }
        strings(&doc, &mut hay);
        if let Some(r) = doc.get("recorded") {
            recorded.push(r.clone());
        }
        body.push(doc);
    }
    Got {
        hay,
        body,
        descriptions,
        recorded,
    }
}

/// What of `want` the scenes lack, one line each.
fn missing(want: &Want, got: &Got, otel: bool) -> Vec<String> {
    let mut out = Vec::new();
    for t in &want.systems {
        if !got.has_text(t) {
            out.push(format!("system text {:?}", cut(t)));
        }
    }
    for t in &want.texts {
        if !got.has_text(t) {
            out.push(format!("turn text {:?}", cut(t)));
        }
    }
    for (name, args) in &want.calls {
        if !got.has_call(name, args) {
            out.push(format!("tool call {name} {}", cut(&args.to_string())));
        }
    }
    for r in &want.results {
        if !got.has_value(r) {
            out.push(format!("tool result {}", cut(&r.to_string())));
        }
    }
    for t in &want.tools {
        // A built-in tool of a span (no body to carry it in) is listed by its name.
        if !(got.has_text(t) || otel && got.not_mapped_names(&format!("{t:?}"))) {
            out.push(format!("tool definition {t}"));
        }
    }
    let reply_listed = want.reply_from.iter().any(|r| got.not_mapped_names(r));
    for t in &want.replies {
        if !t.is_empty() && !got.has_text(t) && !reply_listed {
            out.push(format!("reply {:?}", cut(t)));
        }
    }
    for key in &want.other_fields {
        let in_recorded = if otel {
            recorded_key(key) && !got.recorded.is_empty()
        } else {
            got.recorded.iter().any(|r| {
                r.get("params").and_then(|p| p.get(key)).is_some()
                    || (key == "model" && r.get("model").is_some())
            })
        };
        let named = if otel {
            got.not_mapped_names(&format!("{key} = "))
        } else {
            got.descriptions.contains(&format!("/{key}"))
        };
        if !(in_recorded || named) {
            out.push(format!(
                "field {key}: neither recorded nor listed as not mapped"
            ));
        }
    }
    out
}

fn cut(s: &str) -> String {
    s.chars().take(60).collect()
}

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(args)
        .output()
        .expect("run prompt-inspector")
}

#[test]
fn the_traffic_corpus_imports_faithfully_and_what_is_not_chat_is_refused() {
    let manifest = read_json(&corpus().join("manifest.json"));
    let files = manifest["files"].as_object().expect("manifest files");
    let mut supported = 0;
    let mut faithful = 0;
    let mut refused = 0;
    let mut problems = Vec::new();
    let mut checked = [0usize; 6];
    // Payloads in a form the manifest does not claim, read all the same.
    let mut beyond = 0;
    let mut beyond_faithful = 0;
    for (file, entry) in files {
        let path = corpus().join(file);
        let format = entry["format"].as_str().expect("format");
        if entry.get("expect").and_then(Json::as_str) == Some("refuse") {
            let out = cli(&["import", &path.to_string_lossy()]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            // `error: FILE:LINE:COLUMN: ...`
            let positioned = stderr
                .split_once(&format!("{file}:"))
                .and_then(|(_, rest)| {
                    let mut it = rest.splitn(3, ':');
                    let line = it.next()?.parse::<usize>().ok()?;
                    let column = it.next()?.parse::<usize>().ok()?;
                    Some(line > 0 && column > 0)
                })
                .unwrap_or(false);
            if out.status.code() == Some(2)
                && positioned
                && stderr.contains("not a chat or generation request")
            {
                refused += 1;
            } else {
                problems.push(format!(
                    "{file}: expected a refusal with exit 2 and a position, got {:?}: {stderr}",
                    out.status.code()
                ));
            }
            continue;
        }
        let claimed = entry["supported"] == Json::Bool(true);
        if claimed {
            supported += 1;
        } else {
            beyond += 1;
        }
        let imported = match import::import_file(&path, None) {
            Ok(i) => i,
            Err(e) => {
                problems.push(format!("{file}: does not import: {e}"));
                continue;
            }
        };
        let text = std::fs::read_to_string(&path).expect("read");
        let records: Vec<Json> = if file.ends_with(".jsonl") {
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).expect("JSON line"))
                .collect()
        } else {
            vec![serde_json::from_str(&text).expect("JSON")]
        };
        let otel = matches!(format, "otel" | "openinference" | "otel-deprecated-flat");
        let mut lacking = Vec::new();
        if file.ends_with(".jsonl") {
            assert_eq!(
                records.len(),
                imported.scenes.len(),
                "{file}: one scene per line"
            );
        }
        let per_record: Vec<(&Json, &[import::ImportedScene])> = if file.ends_with(".jsonl") {
            records.iter().zip(imported.scenes.chunks(1)).collect()
        } else {
            vec![(&records[0], &imported.scenes[..])]
        };
        for (record, scenes) in per_record {
            let mut want = Want::default();
            match format {
                "openai-chat" => openai_chat(record, &mut want),
                "openai-responses" => openai_responses(record, &mut want),
                "anthropic" => anthropic(record, &mut want),
                _ => spans(record).iter().for_each(|s| otel_span(s, &mut want)),
            }
            for (n, list) in checked.iter_mut().zip([
                want.systems.len(),
                want.texts.len(),
                want.calls.len(),
                want.results.len(),
                want.tools.len(),
                want.replies.len(),
            ]) {
                *n += list;
            }
            lacking.extend(missing(&want, &got(scenes), otel));
        }
        if lacking.is_empty() {
            if claimed {
                faithful += 1;
            } else {
                beyond_faithful += 1;
            }
        } else {
            problems.push(format!("{file}: {}", lacking.join("; ")));
        }
    }
    eprintln!(
        "{faithful}/{supported} supported payloads faithful ({beyond_faithful}/{beyond} more in a form not claimed); {refused} payloads refused as not chat; checked {} system texts, {} turn texts, {} tool calls, {} tool results, {} tool definitions, {} reply items",
        checked[0], checked[1], checked[2], checked[3], checked[4], checked[5]
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The corpus as its manifest describes it: none skipped by accident.
    assert_eq!((supported, refused, beyond), (92, 3, 1));
    // The extractor finds something of every kind in the corpus.
    assert!(checked.iter().all(|n| *n > 0), "{checked:?}");
}

/// The check bites: a scene that lacks a payload's texts, calls, results and tools is
/// reported for each, and one that has them is not.
#[test]
fn the_fidelity_check_reports_what_a_scene_lacks() {
    let body = serde_json::json!({
        "model": "gpt-4o",
        "temperature": 0.2,
        "messages": [
            {"role": "system", "content": "Be {brief}."},
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "rainy"}
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    });
    let mut want = Want::default();
    openai_chat(&body, &mut want);
    assert_eq!(
        (
            want.systems.len(),
            want.texts.len(),
            want.calls.len(),
            want.results.len(),
            want.tools.len()
        ),
        (1, 1, 1, 1, 1)
    );
    let lacking = missing(&want, &got(&[]), false);
    for what in [
        "system text",
        "turn text",
        "tool call",
        "tool result",
        "tool definition",
        "field temperature",
    ] {
        assert!(
            lacking.iter().any(|l| l.starts_with(what)),
            "{what}: {lacking:?}"
        );
    }
    let imported =
        import::import_str(&body.to_string(), "weather.json", false, None).expect("imports");
    assert_eq!(
        missing(&want, &got(&imported.scenes), false),
        Vec::<String>::new()
    );
    // A call whose arguments differ is not the call.
    want.calls[0].1 = Json::String("{\"city\":\"Lyon\"}".into());
    assert_eq!(missing(&want, &got(&imported.scenes), false).len(), 1);
}

/// The scenes of one payload of each newly read form, as written (reviewed by eye): an
/// OpenInference span, the deprecated `gen_ai.prompt` / `gen_ai.completion` form, a span whose
/// events hold their tool calls as JSON text, and the Microsoft Agent Framework's nested tool
/// definitions.
#[test]
fn the_new_span_forms_become_these_scenes() {
    for file in [
        "openinference/018-openinference-llm-span.json",
        "openinference/016-otel-flat-deprecated-prompt.json",
        "semconv/011-span-events-own-attributes.json",
        "langfuse/002-flat-ms-agent-nested-tool-defs.json",
    ] {
        let imported =
            import::import_file(&corpus().join(file), None).unwrap_or_else(|e| panic!("{e}"));
        let texts: Vec<&str> = imported.scenes.iter().map(|s| s.text.as_str()).collect();
        insta::assert_snapshot!(file.replace(['/', '.'], "_"), texts.join("\n"));
    }
}

/// Older OpenLLMetry's flat indexed attributes, with its function definitions and a prompt
/// template's name, version and variables: each lands where docs/cli.md says.
#[test]
fn the_flat_deprecated_form_and_a_prompt_template_are_read() {
    let span = serde_json::json!({
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.prompt.name": "weather-agent",
        "gen_ai.prompt.version": "3",
        "gen_ai.prompt.variable.city": "Paris",
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "You report {weather}.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "Weather in Paris?",
        "gen_ai.prompt.2.role": "assistant",
        "gen_ai.prompt.2.tool_calls.0.id": "c1",
        "gen_ai.prompt.2.tool_calls.0.name": "get_weather",
        "gen_ai.prompt.2.tool_calls.0.arguments": "{\"city\": \"Paris\"}",
        "gen_ai.prompt.3.role": "tool",
        "gen_ai.prompt.3.tool_call_id": "c1",
        "gen_ai.prompt.3.content": "rainy",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": "It is rainy.",
        "gen_ai.completion.0.finish_reason": "stop",
        "llm.request.functions.0.name": "get_weather",
        "llm.request.functions.0.description": "The weather in a city.",
        "llm.request.functions.0.parameters": "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}"
    });
    let imported = import::import_str(&span.to_string(), "span.json", false, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let scene: Json = serde_json::from_str(&imported.scenes[0].text).expect("scene");
    assert_eq!(
        scene["chat_llm"]["system_msg_prompt"][0]["template"]["templates"]["default"],
        "You report {{weather}}."
    );
    assert_eq!(scene["context"]["user_input"]["input"], "Weather in Paris?");
    assert_eq!(
        scene["intermediate_msgs"][0]["tool_calls"][0],
        serde_json::json!({"id": "c1", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"})
    );
    assert_eq!(
        scene["intermediate_msgs"][1],
        serde_json::json!({"role": "tool", "content": "rainy", "tool_call_id": "c1"})
    );
    assert_eq!(
        scene["tools"][0],
        serde_json::json!({"name": "get_weather", "description": "The weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}})
    );
    let recorded = &scene["recorded"];
    assert_eq!(recorded["model"], "gpt-4o");
    assert_eq!(
        recorded["prompt"],
        serde_json::json!({"name": "weather-agent", "version": "3", "variables": {"city": "Paris"}})
    );
    assert_eq!(
        recorded["reply"],
        serde_json::json!([{"role": "assistant", "content": "It is rainy."}])
    );
    assert!(
        imported.scenes[0].unmapped.is_empty(),
        "{:?}",
        imported.scenes[0].unmapped
    );
    // The loaded scene keeps them too.
    let loaded = imported.scenes[0].recorded.as_ref().expect("recorded");
    let prompt = loaded.prompt.as_ref().expect("prompt");
    assert_eq!(
        (prompt.name.as_deref(), prompt.version.as_deref()),
        (Some("weather-agent"), Some("3"))
    );
    assert_eq!(loaded.reply.len(), 1);

    // Bad JSON text inside an attribute is pointed at by the attribute.
    let bad = "{\"gen_ai.system\": \"openai\",\n \"gen_ai.prompt.0.role\": \"user\", \"gen_ai.prompt.0.content\": \"hi\",\n \"llm.request.functions.0.name\": \"f\", \"llm.request.functions.0.parameters\": \"{oops\"}";
    let e = import::import_str(bad, "bad.json", false, None).expect_err("bad JSON");
    assert_eq!(
        (e.line, e.pointer.as_str()),
        (3, "/llm.request.functions.0.parameters"),
        "{e}"
    );
    assert!(
        e.message
            .starts_with("in the JSON text of the llm.request.functions.0.parameters attribute"),
        "{e}"
    );
}

/// The reply is shown, never sent: the request rebuilt from an imported OpenInference span is the
/// recorded turns, with the request's model, and without the reply's text.
#[test]
fn a_recorded_reply_is_not_part_of_the_rebuilt_request() {
    use prompt_inspector::inject::{self, Options};
    use prompt_inspector::provider::ChatProvider;
    use prompt_inspector::segments::Family;

    let file = corpus().join("openinference/018-openinference-llm-span.json");
    let imported = import::import_file(&file, None).unwrap_or_else(|e| panic!("{e}"));
    let s = prompt_inspector::scene::load_str(&imported.scenes[0].text)
        .unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        chat_provider: Some(ChatProvider::Openai),
        ..Default::default()
    };
    let report = inject::render_with(&s, Family::Chat, &options);
    let sent = serde_json::to_value(&report.request).expect("request");
    let text = sent.to_string();
    // The span's values (corpora/traffic/openinference/018-openinference-llm-span.json).
    assert_eq!(sent["model"], "gpt-4", "{text}");
    assert!(text.contains("Weather in Paris?"), "{text}");
    assert!(text.contains("rainy, 57°F"), "{text}");
    assert!(
        !text.contains("currently rainy"),
        "the reply was sent: {text}"
    );
    assert_eq!(sent["messages"].as_array().map(Vec::len), Some(3), "{text}");
}

/// An event attribute holding broken JSON text is refused at that attribute, with the position
/// inside the text.
#[test]
fn broken_json_in_an_event_attribute_is_pointed_at() {
    let span = "{\"name\": \"chat\", \"attributes\": {\"gen_ai.system\": \"openai\"},\n \"events\": [{\"name\": \"gen_ai.user.message\", \"attributes\": {\"content\": \"hi\"}},\n  {\"name\": \"gen_ai.assistant.message\", \"attributes\": {\"tool_calls\": \"[{\\\"id\\\": 1,\"}}]}";
    let e = import::import_str(span, "span.json", false, None).expect_err("broken JSON");
    assert_eq!(
        (e.line, e.pointer.as_str()),
        (3, "/events/1/attributes/tool_calls"),
        "{e}"
    );
    assert!(
        e.message.starts_with(
            "in the JSON text of the tool_calls attribute, at the top (its line 1, column 11)"
        ),
        "{e}"
    );
}

/// An export whose only span is an embeddings call is refused, saying so; beside a chat span it
/// is skipped and named.
#[test]
fn an_embeddings_span_is_refused_or_skipped_with_why() {
    let span = |name: &str, op: &str| {
        serde_json::json!({"name": name, "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": op}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\": \"user\", \"parts\": [{\"type\": \"text\", \"content\": \"hi\"}]}]"}}
        ]})
    };
    let export = |spans: Vec<Json>| {
        serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
    };
    let e = import::import_str(
        &export(vec![span("embeddings m", "embeddings")]),
        "t.json",
        false,
        None,
    )
    .expect_err("only an embeddings span");
    assert!(
        e.message.contains("gen_ai.operation.name = \"embeddings\": an embeddings call, not a chat or generation request"),
        "{e}"
    );
    let got = import::import_str(
        &export(vec![
            span("embeddings m", "embeddings"),
            span("chat m", "chat"),
        ]),
        "t.json",
        false,
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.scenes.len(), 1);
    assert_eq!(got.skipped.len(), 1, "{:?}", got.skipped);
    assert!(
        got.skipped[0].contains("(span \"embeddings m\"): gen_ai.operation.name = \"embeddings\""),
        "{:?}",
        got.skipped
    );
}

/// An OpenInference span with a prompt template (its own `llm.prompt_template.*`, and the
/// conventions' `gen_ai.prompt.name`, which is not the deprecated messages).
#[test]
fn an_openinference_prompt_template_is_kept() {
    let span = serde_json::json!({
        "llm.provider": "anthropic",
        "llm.model_name": "claude-sonnet-4-5",
        "gen_ai.prompt.name": "greeter",
        "llm.prompt_template.template": "Greet {name}.",
        "llm.prompt_template.version": "v2",
        "llm.prompt_template.variables": "{\"name\": \"Ada\"}",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "Be kind.",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.contents.0.message_content.type": "text",
        "llm.input_messages.1.message.contents.0.message_content.text": "Greet Ada.",
        "llm.tools.0.tool.json_schema": "{\"name\": \"wave\", \"input_schema\": {\"type\": \"object\"}}"
    });
    let imported = import::import_str(&span.to_string(), "span.json", false, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let scene: Json = serde_json::from_str(&imported.scenes[0].text).expect("scene");
    assert_eq!(scene["context"]["user_input"]["input"], "Greet Ada.");
    assert_eq!(
        scene["chat_llm"]["system_msg_prompt"][0]["template"]["templates"]["default"],
        "Be kind."
    );
    assert_eq!(
        scene["tools"],
        serde_json::json!([{"name": "wave", "parameters": {"type": "object"}}])
    );
    assert_eq!(scene["recorded"]["api"], "anthropic");
    assert_eq!(
        scene["recorded"]["prompt"],
        serde_json::json!({"name": "greeter", "version": "v2", "template": "Greet {name}.",
            "variables": {"name": "Ada"}})
    );
    assert!(
        imported.scenes[0].unmapped.is_empty(),
        "{:?}",
        imported.scenes[0].unmapped
    );
}

/// Each request body of the corpus imported, rendered and rebuilt for its recorded API is the body
/// that was sent, up to the differences no provider bills (`recorded_fidelity::normalise`): a
/// body whose tools are all built-in gets its `tools` list back.
#[test]
fn the_corpus_request_bodies_are_rebuilt_as_they_were_sent() {
    use crate::recorded_fidelity::{first_difference, normalise};
    use prompt_inspector::inject::{self, Options};
    use prompt_inspector::segments::Family;

    let manifest = read_json(&corpus().join("manifest.json"));
    let mut bodies = 0;
    let mut same = 0;
    let mut differences = Vec::new();
    for (file, entry) in manifest["files"].as_object().expect("files") {
        let body_format = ["openai-chat", "openai-responses", "anthropic"]
            .contains(&entry["format"].as_str().unwrap_or(""));
        if !body_format || file.ends_with(".jsonl") {
            continue;
        }
        bodies += 1;
        let path = corpus().join(file);
        let sent = read_json(&path);
        let imported = import::import_file(&path, None).unwrap_or_else(|e| panic!("{e}"));
        let s = prompt_inspector::scene::load_str(&imported.scenes[0].text)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let report = inject::render_with(&s, Family::Chat, &Options::default());
        let rebuilt = prompt_inspector::provider::recorded_request(&s, &report, None)
            .unwrap_or_else(|| panic!("{file}: no recorded request"))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        match first_difference(
            &normalise(&rebuilt.body, false),
            &normalise(&sent, false),
            "",
        ) {
            None => same += 1,
            Some(d) => differences.push(format!("{file}: {d}")),
        }
    }
    eprintln!("{same}/{bodies} request bodies rebuilt as sent");
    // Each reviewed: what the recording sent is not what its bytes are.
    let exceptions = [
        // The request declares image/png for JPEG bytes; a rebuilt body sends the type the bytes have.
        "openinference/007-anthropic-image-base64.json: /messages/0/content/1/source/media_type",
        // The data: URL holds text (a robots notice a server returned), not an image; rendering
        // leaves it out with an image_type_unknown warning.
        "openllmetry/004-chat-image-data-url.json: /messages/0/content",
    ];
    let unexpected: Vec<&String> = differences
        .iter()
        .filter(|d| !exceptions.iter().any(|e| d.starts_with(e)))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert_eq!((same, bodies), (67, 69), "{differences:#?}");
}
