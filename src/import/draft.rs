//! What a recorded request says, in one neutral shape every source reads into, and the scene it
//! becomes: system text as configured system prompts, the turns before the last user turn as the
//! conversation, that turn as the input, the turns after it as intermediate messages, the tools
//! with their parameters. Each piece's origin and everything not mapped go into the description.

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
    /// `pointer: what`, for each thing a scene has no place for.
    pub unmapped: Vec<String>,
    /// The scene's `recorded` object (docs/scene-format.md): the API, model, request
    /// parameters, billed usage and timestamp. Left out of the scene when empty.
    pub recorded: Map<String, Json>,
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
}

pub(crate) struct ToolDraft {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Option<Json>,
    pub origin: String,
}

impl Draft {
    /// Lists `node` as not mapped, with its value.
    pub fn unmapped(&mut self, node: &Node<'_>) {
        self.unmapped
            .push(format!("{} = {}", node.ptr, node.excerpt()));
    }

    /// Lists `node` as not mapped, saying why.
    pub fn unmapped_because(&mut self, node: &Node<'_>, why: &str) {
        self.unmapped.push(format!("{}: {why}", node.ptr));
    }

    /// Lists every member of `node` not named in `known`.
    pub fn rest(&mut self, node: &Node<'_>, known: &[&str]) -> Result<(), super::ImportError> {
        for (key, member) in node.members()? {
            if !known.contains(&key) && !member.is_null() {
                self.unmapped(&member);
            }
        }
        Ok(())
    }

    pub fn message(&mut self, role: Role, content: Json, origin: String) -> &mut Msg {
        self.messages.push(Msg {
            role,
            content,
            name: None,
            tool_call_id: None,
            tool_calls: Vec::new(),
            origin,
        });
        let last = self.messages.len() - 1;
        &mut self.messages[last]
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

/// The scene's text of a message content: the string, or its text parts joined with `\n`.
fn text_of(content: &Json) -> (String, usize, usize) {
    match content {
        Json::String(s) => (s.clone(), 1, 0),
        Json::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Json::as_str))
                .collect();
            let images = parts.len() - texts.len();
            (texts.join("\n"), texts.len(), images)
        }
        _ => (String::new(), 0, 0),
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

    let input_at = messages.iter().rposition(|m| m.role == Role::User);
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
    let input_text = match input {
        Some(m) => {
            let (text, texts, images) = text_of(&m.content);
            let joined = if texts > 1 {
                format!(", its {texts} text parts joined with a newline")
            } else {
                String::new()
            };
            origins.push(format!("context.user_input.input ← {}{joined}", m.origin));
            if images > 0 {
                unmapped.push(format!(
                    "{}: {images} image part(s) of the input turn (user_input.input holds its text only)",
                    m.origin
                ));
            }
            if let Some(n) = &m.name {
                unmapped.push(format!("{}: the input turn's name {n:?}", m.origin));
            }
            text
        }
        None => {
            origins.push("context.user_input.input ← nothing: the request has no user turn".into());
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
    if !system_prompts.is_empty() {
        doc.insert(
            "chat_llm".into(),
            json!({"system_msg_prompt": system_prompts}),
        );
    }
    doc.insert("tools".into(), Json::Array(tools));
    if !recorded.is_empty() {
        doc.insert("recorded".into(), Json::Object(recorded));
    }
    Json::Object(doc)
}

/// `{id, name, arguments}`: a tool call as scenes hold it (arguments as recorded: OpenAI's JSON
/// text, or the object Anthropic and OpenTelemetry record).
pub(crate) fn tool_call(id: &str, name: &str, arguments: Json) -> Json {
    json!({"id": id, "name": name, "arguments": arguments})
}
