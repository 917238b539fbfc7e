//! Gemini `generateContent` / `streamGenerateContent` request bodies (`GenerateContentRequest` of
//! the Gemini API and Vertex AI): `systemInstruction`, `contents` (roles `user` and `model`;
//! parts `text`, `inlineData`, `fileData`, `functionCall`, `functionResponse`) and
//! `tools[].functionDeclarations` (`parameters` or `parametersJsonSchema`). The body's other
//! fields (`generationConfig`, `toolConfig`, `safetySettings`, ...) are recorded; the model is the
//! URL's, so it comes from the recording around the body when there is one. Google's JSON reads
//! field names in lowerCamelCase and in snake_case alike (`function_call`), and so does this.
//! Parts and fields a scene has no place for (thought signatures, audio and documents, thoughts)
//! are carried.

use serde_json::json;

use super::draft::{text_part, tool_call, Draft, Piece, ToolDraft};
use super::node::Node;
use super::ImportError;
use crate::scene::Role;

/// `fileData` → `file_data`: the snake_case spelling Google's JSON also reads.
pub(crate) fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The member `camel` under either spelling.
fn field<'a>(n: &Node<'a>, camel: &str) -> Option<Node<'a>> {
    n.get(camel).or_else(|| n.get(&snake(camel)))
}

fn req_field<'a>(n: &Node<'a>, camel: &str) -> Result<Node<'a>, ImportError> {
    n.object()?;
    field(n, camel).ok_or_else(|| n.err(format!("missing field {camel:?}")))
}

/// The names in `camel` and their snake_case spellings, for [`Draft::rest`].
fn spellings(camel: &[&str]) -> Vec<String> {
    camel
        .iter()
        .flat_map(|c| [(*c).to_owned(), snake(c)])
        .collect()
}

fn rest(draft: &mut Draft, n: &Node<'_>, camel: &[&str]) -> Result<(), ImportError> {
    let names = spellings(camel);
    let known: Vec<&str> = names.iter().map(String::as_str).collect();
    draft.rest(n, &known)
}

pub(crate) fn read(body: &Node<'_>) -> Result<Draft, ImportError> {
    let mut draft = Draft::of_body();
    draft
        .recorded
        .insert("api".into(), json!(crate::usage::Api::Gemini.as_str()));
    if let Some(si) = field(body, "systemInstruction") {
        for p in req_field(&si, "parts")?.items()? {
            match field(&p, "text") {
                Some(t) if field(&p, "thought").is_none() => {
                    draft.system.push(Piece {
                        text: t.str()?.to_owned(),
                        origin: p.ptr.clone(),
                    });
                    rest(&mut draft, &p, &["text"])?;
                }
                _ => draft.unmapped_because(&p, "a system instruction part that is not text")?,
            }
        }
        rest(&mut draft, &si, &["parts"])?;
    }
    for c in req_field(body, "contents")?.items()? {
        content(&c, &mut draft)?;
    }
    if let Some(tools) = field(body, "tools") {
        for t in tools.items()? {
            tool(&t, &mut draft)?;
        }
    }
    let names = spellings(&["systemInstruction", "contents", "tools"]);
    let known: Vec<&str> = names.iter().map(String::as_str).collect();
    draft.params(body, &known)?;
    Ok(draft)
}

fn content(c: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    c.object()?;
    let role = match c.get("role") {
        None => Role::User,
        Some(r) => match r.str()? {
            "user" | "function" => Role::User,
            "model" => Role::Assistant,
            other => {
                return Err(r.err(format!(
                    "unknown role {other:?}: expected user or model (the system text is the body's \"systemInstruction\")"
                )))
            }
        },
    };
    let origin = format!(
        "{} ({})",
        c.ptr,
        if role == Role::User { "user" } else { "model" }
    );
    if let Some(r) = c.get("role").filter(|r| r.as_str() == Some("function")) {
        draft.carry(&r, "the function role (the scene holds user)")?;
    }
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    let mut results = 0;
    for p in req_field(c, "parts")?.items()? {
        p.object()?;
        if field(&p, "thought").is_some() {
            draft.unmapped_because(&p, "a thought (the model's reasoning, sent back)")?;
        } else if let Some(t) = field(&p, "text") {
            parts.push(text_part(t.str()?));
            rest(draft, &p, &["text"])?;
        } else if let Some(d) = field(&p, "inlineData") {
            let mime = req_field(&d, "mimeType")?.str()?;
            if mime.starts_with("image/") {
                parts.push(json!({"type": "image", "data_base64": req_field(&d, "data")?.str()?, "mime_type": mime}));
                rest(draft, &d, &["mimeType", "data"])?;
                rest(draft, &p, &["inlineData"])?;
            } else {
                draft
                    .unmapped_because(&p, &format!("inline {mime} data (a scene holds images)"))?;
            }
        } else if let Some(f) = field(&p, "fileData") {
            let mime = field(&f, "mimeType").and_then(|m| m.as_str().map(str::to_owned));
            match mime {
                Some(mime) if mime.starts_with("image/") => {
                    let uri = req_field(&f, "fileUri")?.str()?;
                    parts.push(json!({"type": "image", "url": uri, "mime_type": mime}));
                    rest(draft, &f, &["mimeType", "fileUri"])?;
                    rest(draft, &p, &["fileData"])?;
                }
                _ => draft
                    .unmapped_because(&p, "a file that is not an image (a scene holds images)")?,
            }
        } else if let Some(fc) = field(&p, "functionCall").filter(|_| role == Role::Assistant) {
            let args = match field(&fc, "args") {
                Some(a) => {
                    a.object()?;
                    a.to_json()?
                }
                None => json!({}),
            };
            let id = field(&fc, "id").map(|i| i.str()).transpose()?.unwrap_or("");
            calls.push(tool_call(id, req_field(&fc, "name")?.str()?, args));
            rest(draft, &fc, &["id", "name", "args"])?;
            rest(draft, &p, &["functionCall"])?;
        } else if let Some(fr) = field(&p, "functionResponse").filter(|_| role == Role::User) {
            let response = req_field(&fr, "response")?;
            response.object()?;
            // The scene's tool message holds the response object as its JSON text.
            let text = response.to_json()?.to_string();
            let origin = format!("{} (functionResponse, its response as JSON text)", p.ptr);
            let name = req_field(&fr, "name")?.str()?.to_owned();
            let id = field(&fr, "id")
                .map(|i| i.str())
                .transpose()?
                .map(str::to_owned);
            let msg = draft.message(Role::Tool, json!(text), origin);
            msg.name = Some(name);
            msg.tool_call_id = id;
            results += 1;
            rest(draft, &fr, &["id", "name", "response"])?;
            rest(draft, &p, &["functionResponse"])?;
        } else {
            draft.unmapped_because(
                &p,
                "a part a scene has no place for (executable code, its result, or an unknown kind)",
            )?;
        }
    }
    rest(draft, c, &["role", "parts"])?;
    // Function responses answer the previous turn's calls and come first; a turn of only
    // responses makes no message of its own, one with nothing the scene holds stays, empty.
    if !(parts.is_empty() && calls.is_empty() && results > 0) {
        let msg = draft.message(role, json!(parts), origin);
        msg.tool_calls = calls;
        if results == 0 {
            msg.at = Some(c.ptr.clone());
        }
    }
    Ok(())
}

fn tool(t: &Node<'_>, draft: &mut Draft) -> Result<(), ImportError> {
    let Some(declarations) = field(t, "functionDeclarations") else {
        return draft.unmapped_because(
            t,
            "a built-in tool (Google Search, code execution, ...: scenes hold function tools)",
        );
    };
    for d in declarations.items()? {
        if field(&d, "parameters").is_some() {
            draft.layout("schema", "parameters");
        }
        let schema = field(&d, "parametersJsonSchema").or_else(|| field(&d, "parameters"));
        let Some(schema) = schema else {
            draft.unmapped_because(&d, "a function declaration without parameters")?;
            continue;
        };
        schema.object()?;
        draft.tools.push(ToolDraft {
            name: req_field(&d, "name")?.str()?.to_owned(),
            description: field(&d, "description")
                .map(|x| x.str().map(str::to_owned))
                .transpose()?,
            parameters: Some(schema.to_json()?),
            origin: d.ptr.clone(),
        });
        rest(
            draft,
            &d,
            &["name", "description", "parameters", "parametersJsonSchema"],
        )?;
    }
    rest(draft, t, &["functionDeclarations"])
}
