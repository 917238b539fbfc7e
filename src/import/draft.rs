//! What a recorded request says, in one neutral shape every source reads into, and the scene it
//! becomes: system text as configured system prompts, the turns before the last user turn as the
//! conversation, that turn as the input, the turns after it as intermediate messages, the tools
//! with their parameters. What the request held beyond that is kept in the scene's `recorded`
//! (docs/scene-format.md): the model and parameters, the request's own cache breakpoints, and each
//! value a scene has no place for, at its JSON pointer (`carried`), so that the body rebuilt from
//! the scene is the one that was sent. Each piece's origin, what was carried and anything not kept
//! at all go into the description.

use serde_json::{json, Map, Value as Json};

use super::node::Node;
use crate::scene::Role;
use crate::template::escape_fstring;

/// One request, read.
#[derive(Default)]
pub(crate) struct Draft {
    pub system: Vec<Piece>,
    pub messages: Vec<Msg>,
    pub tools: Vec<ToolDraft>,
    /// `pointer: what`, for each thing the scene does not keep at all.
    pub unmapped: Vec<String>,
    /// The scene's `recorded` object (docs/scene-format.md): the API, model, request
    /// parameters, billed usage and timestamp. Left out of the scene when empty;
    /// `cache_control` and `carried` below are added to it.
    pub recorded: Map<String, Json>,
    /// Whether node pointers are the request body's, so that values can be carried at them (not
    /// for OpenTelemetry attributes, which hold no body).
    pub carries: bool,
    /// `recorded.cache_control`: `{at, ttl?}` in request order.
    pub cache_control: Vec<Json>,
    /// `recorded.carried`: `{at, value}` in request order.
    pub carried: Vec<Json>,
    /// `pointer: what` for each carried value, for the description.
    pub carried_notes: Vec<String>,
    /// The response's messages as recorded with the request (`recorded.reply`).
    pub reply: Vec<Msg>,
    /// The prompt template the request was made from (`recorded.prompt`: name, version,
    /// variables), as an instrumentation recorded it.
    pub prompt: Map<String, Json>,
}

/// A system text and where it came from (`/messages/0`).
pub(crate) struct Piece {
    pub text: String,
    pub origin: String,
}

pub(crate) struct Msg {
    pub role: Role,
    /// A string, or scene parts (`{type: text, text}`, `{type: image, url | data_base64, ...}`).
    pub content: Json,
    pub name: Option<String>,
    pub tool_call_id: Option<String>,
    /// `{id, name, arguments}` entries.
    pub tool_calls: Vec<Json>,
    pub origin: String,
    /// The message's JSON pointer in the request body, when it is one message there.
    pub at: Option<String>,
}

pub(crate) struct ToolDraft {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Option<Json>,
    pub origin: String,
}

impl Draft {
    /// A draft of a request body, whose values can be carried at their pointers.
    pub fn of_body() -> Draft {
        Draft {
            carries: true,
            ..Draft::default()
        }
    }

    /// Lists `node` as not mapped, with its value.
    pub fn unmapped(&mut self, node: &Node<'_>) {
        self.unmapped
            .push(format!("{} = {}", place(node), node.excerpt()));
    }

    /// A value the scene has no place for: carried at its pointer when the draft is a body's
    /// (the rebuilt body puts it back), else listed as not mapped; `why` says what it is.
    pub fn unmapped_because(
        &mut self,
        node: &Node<'_>,
        why: &str,
    ) -> Result<(), super::ImportError> {
        if self.carries {
            self.carry(node, why)
        } else {
            self.unmapped.push(format!("{}: {why}", place(node)));
            Ok(())
        }
    }

    /// Keeps `node` in `recorded.carried` at its pointer.
    pub fn carry(&mut self, node: &Node<'_>, why: &str) -> Result<(), super::ImportError> {
        self.carried
            .push(json!({"at": node.ptr, "value": node.to_json()?}));
        self.carried_notes.push(format!("{}: {why}", node.ptr));
        Ok(())
    }

    /// Every member of `node` not named in `known`: a `cache_control` is a breakpoint; the rest
    /// are carried (a body's) or listed as not mapped.
    pub fn rest(&mut self, node: &Node<'_>, known: &[&str]) -> Result<(), super::ImportError> {
        for (key, member) in node.members()? {
            if known.contains(&key) || member.is_null() {
                continue;
            }
            if key == "cache_control" && self.carries {
                self.breakpoint(node, &member)?;
            } else if self.carries {
                self.carried
                    .push(json!({"at": member.ptr, "value": member.to_json()?}));
                self.carried_notes
                    .push(format!("{} = {}", member.ptr, member.excerpt()));
            } else {
                self.unmapped(&member);
            }
        }
        Ok(())
    }

    /// `cache_control` on `holder`: a breakpoint at the holder, with its TTL. One that is not the
    /// `{type: ephemeral, ttl?}` the APIs define is carried as it is.
    fn breakpoint(&mut self, holder: &Node<'_>, cc: &Node<'_>) -> Result<(), super::ImportError> {
        let known = cc.is_object()
            && cc.members()?.iter().all(|(k, v)| match *k {
                "type" => v.as_str() == Some("ephemeral"),
                "ttl" => v.as_str().is_some_and(|t| !t.trim().is_empty()),
                _ => false,
            })
            && cc.get("type").is_some();
        if !known {
            return self.carry(cc, "a cache_control that is not {type: ephemeral, ttl?}");
        }
        let mut b = Map::new();
        b.insert("at".into(), json!(holder.ptr));
        if let Some(ttl) = cc.get("ttl").and_then(|t| t.as_str().map(str::to_owned)) {
            b.insert("ttl".into(), json!(ttl));
        }
        self.cache_control.push(Json::Object(b));
        Ok(())
    }

    /// The request's top-level members not in `known` (nor `model`, which is recorded on its
    /// own) as `recorded.params`, in the order sent. A known member sent empty (`"system": ""`,
    /// `"tools": []`) is one too: the scene holds nothing of it, and a rebuilt body that has
    /// nothing there either sends it as it was.
    pub fn params(&mut self, body: &Node<'_>, known: &[&str]) -> Result<(), super::ImportError> {
        let mut params = Map::new();
        for (key, member) in body.members()? {
            let empty = match &member.json.kind {
                crate::json::Kind::Str(s) => s.is_empty(),
                crate::json::Kind::Array(a) => a.is_empty(),
                _ => false,
            };
            if key == "model" {
                self.recorded.insert("model".into(), json!(member.str()?));
            } else if (!known.contains(&key) || empty) && !member.is_null() {
                params.insert(key.to_owned(), member.to_json()?);
            }
        }
        if !params.is_empty() {
            self.recorded.insert("params".into(), Json::Object(params));
        }
        Ok(())
    }

    /// Notes a form of the request that the API allows more than one of
    /// (`recorded.layout`, docs/scene-format.md).
    pub fn layout(&mut self, key: &str, value: &str) {
        let layout = self
            .recorded
            .entry("layout")
            .or_insert_with(|| Json::Object(Map::new()));
        if let Json::Object(map) = layout {
            map.insert(key.to_owned(), json!(value));
        }
    }

    pub fn message(&mut self, role: Role, content: Json, origin: String) -> &mut Msg {
        self.messages.push(Msg {
            role,
            content,
            name: None,
            tool_call_id: None,
            tool_calls: Vec::new(),
            origin,
            at: None,
        });
        let last = self.messages.len() - 1;
        &mut self.messages[last]
    }
}

/// Where a node is, for the lists of what was not mapped (span attributes: a body's values are
/// carried instead): its pointer, and inside the JSON text of a span attribute, which attribute
/// (`/3/parts/0/name in the gen_ai.input.messages attribute`).
fn place(node: &Node<'_>) -> String {
    match &node.doc.host {
        Some(host) => format!("{} in {}", node.ptr, host.what),
        // A structured attribute value: its pointers are below the attribute's.
        None => format!("{}{}", node.doc.prefix, node.ptr),
    }
}

/// A text part of a scene message.
pub(crate) fn text_part(text: &str) -> Json {
    json!({"type": "text", "text": text})
}

/// An image part of a scene message from a URL: a `data:` URL becomes inline base64 with its
/// media type, anything else stays a URL. `None` for a `data:` URL that is not base64.
pub(crate) fn image_part_from_url(url: &str) -> Option<Json> {
    let Some(rest) = url.strip_prefix("data:") else {
        return Some(json!({"type": "image", "url": url}));
    };
    let (head, data) = rest.split_once(',')?;
    let mime = head.strip_suffix(";base64")?;
    let mut part = json!({"type": "image", "data_base64": data});
    if !mime.is_empty() {
        part["mime_type"] = json!(mime);
    }
    Some(part)
}

/// The input turn split for the scene: the text of its first text part (the input), and the
/// parts after it (texts and images, in order: the attachments the user message carries after
/// that text). `None` when the content has no text to be the input, or holds a part the scene
/// cannot carry before its first text.
fn split_input(content: &Json) -> Option<(String, Vec<Json>)> {
    match content {
        Json::String(s) if !s.is_empty() => Some((s.clone(), Vec::new())),
        Json::Array(parts) => {
            let first = parts.first()?;
            let text = first.get("text").and_then(Json::as_str)?;
            (!text.is_empty()).then(|| (text.to_owned(), parts[1..].to_vec()))
        }
        _ => None,
    }
}

fn message_json(m: &Msg) -> Json {
    let mut out = Map::new();
    out.insert("role".into(), json!(m.role.as_str()));
    out.insert("content".into(), m.content.clone());
    if let Some(name) = &m.name {
        out.insert("name".into(), json!(name));
    }
    if let Some(id) = &m.tool_call_id {
        out.insert("tool_call_id".into(), json!(id));
    }
    if !m.tool_calls.is_empty() {
        out.insert("tool_calls".into(), Json::Array(m.tool_calls.clone()));
    }
    Json::Object(out)
}

/// Where a scene came from, for its description.
pub(crate) struct Provenance<'a> {
    /// "an OpenAI chat-completions request body".
    pub what: &'a str,
    pub file: &'a str,
    /// The file's line of a JSON-lines record.
    pub line: Option<usize>,
    /// Any more words on where (`span "chat gpt-4o"`).
    pub detail: Option<String>,
}

/// The scene document for `draft`, named `name`.
pub(crate) fn scene(draft: Draft, name: &str, from: &Provenance<'_>) -> Json {
    let Draft {
        system,
        messages,
        tools,
        mut unmapped,
        recorded,
        carries,
        cache_control,
        mut carried,
        mut carried_notes,
        reply,
        prompt,
    } = draft;
    let mut origins = Vec::new();

    let system_prompts: Vec<Json> = system
        .iter()
        .enumerate()
        .map(|(i, p)| {
            origins.push(format!("chat_llm.system_msg_prompt[{i}] ← {}", p.origin));
            json!({"kind": "normalize",
                   "template": {"engine": "fstring", "templates": {"default": escape_fstring(&p.text)}}})
        })
        .collect();

    // The input is the last user turn that starts with text; a later user turn without text (a
    // file, a document) stays a message where it is.
    let input_at = messages
        .iter()
        .rposition(|m| m.role == Role::User && split_input(&m.content).is_some());
    let (before, input, after) = match input_at {
        Some(k) => (&messages[..k], Some(&messages[k]), &messages[k + 1..]),
        None => (&messages[..], None, &messages[..0]),
    };
    let conversation: Vec<Json> = before
        .iter()
        .enumerate()
        .map(|(i, m)| {
            origins.push(format!("context.conversation[{i}] ← {}", m.origin));
            message_json(m)
        })
        .collect();
    let mut reformat = Vec::new();
    let mut input_form = None;
    let input_text = match input.map(|m| (m, split_input(&m.content))) {
        Some((m, Some((text, rest)))) => {
            input_form = Some(if m.content.is_string() {
                "string"
            } else {
                "parts"
            });
            if rest.is_empty() {
                origins.push(format!("context.user_input.input ← {}", m.origin));
            } else {
                origins.push(format!(
                    "context.user_input.input ← {}, its first part",
                    m.origin
                ));
                origins.push(format!(
                    "chat_llm.reformat_input_prompt[0] ← {}: the input, then its other {} part(s) as attachments",
                    m.origin,
                    rest.len()
                ));
                reformat.push(json!({
                    "kind": "normalize",
                    "template": {"engine": "fstring", "templates": {"default": "{user_input[input]}"}},
                    "attachments": rest,
                }));
            }
            if let Some(n) = &m.name {
                match (&m.at, carries) {
                    (Some(at), true) => {
                        let at = format!("{at}/name");
                        carried_notes.push(format!("{at}: the input turn's name {n:?}"));
                        carried.push(json!({"at": at, "value": n}));
                    }
                    _ => unmapped.push(format!("{}: the input turn's name {n:?}", m.origin)),
                }
            }
            text
        }
        _ => {
            origins.push("context.user_input.input ← nothing: the request has no user turn that starts with text".into());
            String::new()
        }
    };
    let intermediate: Vec<Json> = after
        .iter()
        .enumerate()
        .map(|(i, m)| {
            origins.push(format!("intermediate_msgs[{i}] ← {}", m.origin));
            message_json(m)
        })
        .collect();
    let tools: Vec<Json> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            origins.push(format!("tools[{i}] {} ← {}", t.name, t.origin));
            let mut out = Map::new();
            out.insert("name".into(), json!(t.name));
            if let Some(d) = &t.description {
                out.insert("description".into(), json!(d));
            }
            if let Some(p) = &t.parameters {
                out.insert("parameters".into(), p.clone());
            }
            Json::Object(out)
        })
        .collect();

    let mut recorded = recorded;
    // `recorded` names its API; a span without one keeps the reply and the prompt nowhere.
    let has_api = recorded.contains_key("api");
    for (i, m) in reply.iter().enumerate() {
        if has_api {
            origins.push(format!("recorded.reply[{i}] ← {}", m.origin));
        } else {
            unmapped.push(format!(
                "{}: the reply ({} message): {}",
                m.origin,
                m.role.as_str(),
                super::node::excerpt(&message_json(m))
            ));
        }
    }
    if !reply.is_empty() && has_api {
        recorded.insert(
            "reply".into(),
            Json::Array(reply.iter().map(message_json).collect()),
        );
    }
    if !prompt.is_empty() {
        if has_api {
            recorded.insert("prompt".into(), Json::Object(prompt));
        } else {
            unmapped.push(format!(
                "the prompt template: {}",
                super::node::excerpt(&Json::Object(prompt))
            ));
        }
    }
    let mut description = format!("Imported from {} ({}", from.what, from.file);
    if let Some(line) = from.line {
        description.push_str(&format!(", line {line}"));
    }
    if let Some(d) = &from.detail {
        description.push_str(&format!(", {d}"));
    }
    description.push_str(").\nOrigins:");
    for o in &origins {
        description.push_str("\n- ");
        description.push_str(o);
    }
    if !carried_notes.is_empty() {
        description.push_str(
            "\nKept in recorded.carried (sent again where they were, not shown as prompts):",
        );
        for c in &carried_notes {
            description.push_str("\n- ");
            description.push_str(c);
        }
    }
    description.push_str("\nNot mapped:");
    if unmapped.is_empty() {
        description.push_str(" nothing.");
    }
    for u in &unmapped {
        description.push_str("\n- ");
        description.push_str(u);
    }

    let mut doc = Map::new();
    doc.insert("format".into(), json!(crate::scene::FORMAT));
    doc.insert("name".into(), json!(name));
    doc.insert("description".into(), json!(description));
    doc.insert(
        "context".into(),
        json!({
            "user_input": {"input": input_text, "additional_info": {}},
            "conversation": conversation,
            "runtime_vars": {},
            "neural": {}
        }),
    );
    if !intermediate.is_empty() {
        doc.insert("intermediate_msgs".into(), Json::Array(intermediate));
    }
    let mut chat = Map::new();
    if !system_prompts.is_empty() {
        chat.insert("system_msg_prompt".into(), Json::Array(system_prompts));
    }
    if !reformat.is_empty() {
        chat.insert("reformat_input_prompt".into(), Json::Array(reformat));
    }
    if !chat.is_empty() {
        doc.insert("chat_llm".into(), Json::Object(chat));
    }
    doc.insert("tools".into(), Json::Array(tools));
    if let (Some(form), true) = (input_form, carries) {
        if let Json::Object(layout) = recorded
            .entry("layout")
            .or_insert_with(|| Json::Object(Map::new()))
        {
            layout.insert("input_form".into(), json!(form));
        }
    }
    let recorded = recorded_object(recorded, cache_control, carried);
    if !recorded.is_empty() {
        doc.insert("recorded".into(), Json::Object(recorded));
    }
    Json::Object(doc)
}

/// The scene's `recorded` object, its keys in the documented order.
fn recorded_object(
    mut from: Map<String, Json>,
    cache_control: Vec<Json>,
    carried: Vec<Json>,
) -> Map<String, Json> {
    if !cache_control.is_empty() {
        from.insert("cache_control".into(), Json::Array(cache_control));
    }
    if !carried.is_empty() {
        from.insert("carried".into(), Json::Array(carried));
    }
    let mut out = Map::new();
    for key in crate::scene::keys::RECORDED {
        if let Some(v) = from.remove(*key) {
            out.insert((*key).to_owned(), v);
        }
    }
    // Anything else a reader put here is kept after them (the loader says if it is unknown).
    out.extend(from);
    out
}

/// `{id, name, arguments}`: a tool call as scenes hold it (arguments as recorded: OpenAI's JSON
/// text, or the object Anthropic and OpenTelemetry record).
pub(crate) fn tool_call(id: &str, name: &str, arguments: Json) -> Json {
    json!({"id": id, "name": name, "arguments": arguments})
}
