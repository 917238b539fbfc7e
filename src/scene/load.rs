//! Strict reading of a scene from its JSON tree: unknown fields, wrong types and unknown names are
//! errors at the offending line and column, naming the field path and what was expected.

use std::path::Path;

use indexmap::IndexMap;

use super::{
    keys, Adapter, ChatConfig, Content, DeskConfig, Image, ImageSource, Message, Part, Position,
    Prompt, Returns, Role, Scene, SceneError, TemplateSpec, Tool, FORMAT,
};
use crate::json::{self, Json, Kind, Member};
use crate::template::Engine;
use crate::value::Value;

// The `run` and `recorded` fields' readers (docs/scene-format.md), kept in their own files.
mod recorded;
mod run;

pub use recorded::{POINTER_PATTERN, TIMESTAMP_PATTERN};

/// Scene files larger than this are refused before reading (a recording gone wrong, not a scene).
pub const MAX_SCENE_BYTES: u64 = 512 * 1024 * 1024;

/// Reads and loads a scene file. Nothing is kept from a scene that fails to load.
pub fn load_file(path: &Path) -> Result<Scene, SceneError> {
    let bytes = crate::files::read_regular(path, MAX_SCENE_BYTES, "a scene")
        .map_err(|e| SceneError::io(path, crate::files::io_words(&e, "file")))?;
    match simdutf8::basic::from_utf8(&bytes) {
        Ok(text) => load_str(text).map_err(|e| e.in_file(path)),
        Err(_) => {
            // The fast check only says no; std says where.
            let offset = std::str::from_utf8(&bytes)
                .err()
                .map_or(0, |e| e.valid_up_to());
            let text = String::from_utf8_lossy(&bytes);
            Err(SceneError::at(&text, offset, "", "the file is not valid UTF-8").in_file(path))
        }
    }
}

/// Loads a scene from its text.
pub fn load_str(text: &str) -> Result<Scene, SceneError> {
    load_reusing(text, None).map(|(scene, _)| scene)
}

/// A scene's parsed `context` and the byte range of its text: a live document's edits rarely
/// touch the recorded context, which is most of a large scene, so it is not parsed again.
#[derive(Clone, Debug)]
pub struct ContextText {
    pub span: std::ops::Range<usize>,
    pub value: Value,
}

/// [`load_str`], taking the context from `reuse` when its text is still at `reuse.span` (the
/// caller vouches that those bytes did not change). Also returns where the context is now.
pub fn load_reusing(
    text: &str,
    reuse: Option<&ContextText>,
) -> Result<(Scene, Option<ContextText>), SceneError> {
    load_keeping(text, reuse, &[])
}

/// [`load_reusing`], also taking each tool of `tools` (sorted by `span.start`) instead of reading
/// the `tools` entry at its span: the caller vouches that each one was read from the text now at
/// its span (a live document moves the spans of the tools an edit left alone).
pub fn load_keeping(
    text: &str,
    reuse: Option<&ContextText>,
    tools: &[Tool],
) -> Result<(Scene, Option<ContextText>), SceneError> {
    let reuse = reuse.map(|r| json::Reuse {
        key: "context",
        span: r.span.clone(),
        value: r.value.clone(),
    });
    let spans: Vec<std::ops::Range<usize>> = tools.iter().map(|t| t.span.clone()).collect();
    let keep = json::KeepItems {
        key: "tools",
        spans: &spans,
    };
    let keep = (!spans.is_empty()).then_some(&keep);
    let root = json::parse_scene_reusing(text, &["context"], reuse.as_ref(), keep)
        .map_err(|e| SceneError::at(text, e.offset, "", format!("invalid JSON: {}", e.message)))?;
    let scene = Reader { text, kept: tools }.scene(&root)?;
    let context = match &root.kind {
        Kind::Object(members) => members
            .iter()
            .rev()
            .find(|m| m.key == "context")
            .and_then(|m| match &m.value.kind {
                Kind::Value(v) => Some(ContextText {
                    span: m.value.span.clone(),
                    value: v.clone(),
                }),
                _ => None,
            }),
        _ => None,
    };
    Ok((scene, context))
}

struct Reader<'t> {
    text: &'t str,
    /// Tools read before, by span (see [`load_keeping`]).
    kept: &'t [Tool],
}

/// An object's members after checking for unknown and duplicate keys.
struct Obj<'j> {
    members: &'j [Member],
}

impl<'j> Obj<'j> {
    /// The member's value; JSON `null` reads as absent, as Python's `None` default would.
    fn get(&self, key: &str) -> Option<&'j Json> {
        self.members
            .iter()
            .find(|m| m.key == key)
            .map(|m| &m.value)
            .filter(|v| v.kind != Kind::Null)
    }

    /// The member's value including an explicit `null`.
    fn get_raw(&self, key: &str) -> Option<&'j Json> {
        self.members.iter().find(|m| m.key == key).map(|m| &m.value)
    }
}

/// The path of a field (`tools[2].prompt_position[0]`), built on the stack as the reader descends
/// and formatted only when an error needs it.
#[derive(Clone, Copy)]
enum FieldPath<'a> {
    Root,
    Key(&'a FieldPath<'a>, &'a str),
    Index(&'a FieldPath<'a>, usize),
}

impl std::fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldPath::Root => Ok(()),
            FieldPath::Key(FieldPath::Root, key) => f.write_str(key),
            FieldPath::Key(parent, key) => write!(f, "{parent}.{key}"),
            FieldPath::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn join<'a>(path: &'a FieldPath<'a>, key: &'a str) -> FieldPath<'a> {
    FieldPath::Key(path, key)
}

impl Reader<'_> {
    fn err(&self, j: &Json, path: &FieldPath, message: impl Into<String>) -> SceneError {
        SceneError::at(self.text, j.span.start, path, message)
    }

    fn expected(&self, j: &Json, path: &FieldPath, what: &str) -> SceneError {
        self.err(
            j,
            path,
            format!("expected {what}, found {}", j.kind.describe()),
        )
    }

    fn object<'j>(
        &self,
        j: &'j Json,
        path: &FieldPath,
        allowed: &[&str],
    ) -> Result<Obj<'j>, SceneError> {
        let Kind::Object(members) = &j.kind else {
            return Err(self.expected(j, path, "an object"));
        };
        for (i, m) in members.iter().enumerate() {
            if !allowed.contains(&m.key.as_str()) {
                return Err(SceneError::at(
                    self.text,
                    m.key_span.start,
                    join(path, &m.key),
                    format!(
                        "unknown field {:?}, expected one of: {}",
                        m.key,
                        allowed.join(", ")
                    ),
                ));
            }
            if members[..i].iter().any(|p| p.key == m.key) {
                return Err(SceneError::at(
                    self.text,
                    m.key_span.start,
                    join(path, &m.key),
                    format!("duplicate field {:?}", m.key),
                ));
            }
        }
        Ok(Obj { members })
    }

    fn string(&self, j: &Json, path: &FieldPath) -> Result<String, SceneError> {
        match &j.kind {
            Kind::Str(s) => Ok(s.clone()),
            _ => Err(self.expected(j, path, "a string")),
        }
    }

    fn opt_string(
        &self,
        o: &Obj,
        path: &FieldPath,
        key: &str,
    ) -> Result<Option<String>, SceneError> {
        o.get(key)
            .map(|j| self.string(j, &join(path, key)))
            .transpose()
    }

    fn required<'j>(
        &self,
        o: &Obj<'j>,
        parent: &Json,
        path: &FieldPath,
        key: &str,
    ) -> Result<&'j Json, SceneError> {
        o.get(key)
            .ok_or_else(|| self.err(parent, path, format!("missing field {key:?}")))
    }

    fn array<'j>(&self, j: &'j Json, path: &FieldPath) -> Result<&'j [Json], SceneError> {
        match &j.kind {
            Kind::Array(items) => Ok(items),
            _ => Err(self.expected(j, path, "an array")),
        }
    }

    fn list<T>(
        &self,
        o: &Obj,
        path: &FieldPath,
        key: &str,
        item: impl Fn(&Self, &Json, &FieldPath) -> Result<T, SceneError>,
    ) -> Result<Vec<T>, SceneError> {
        let Some(j) = o.get(key) else {
            return Ok(Vec::new());
        };
        let path = join(path, key);
        self.array(j, &path)?
            .iter()
            .enumerate()
            .map(|(i, x)| item(self, x, &FieldPath::Index(&path, i)))
            .collect()
    }

    fn scene(&self, root: &Json) -> Result<Scene, SceneError> {
        let o = self.object(root, &FieldPath::Root, keys::SCENE)?;
        // `$schema` only points editors at a JSON Schema: checked as a string, otherwise ignored.
        self.opt_string(&o, &FieldPath::Root, "$schema")?;
        let format = self.required(&o, root, &FieldPath::Root, "format")?;
        let format_text = self.string(format, &FieldPath::Key(&FieldPath::Root, "format"))?;
        if format_text != FORMAT {
            return Err(self.err(
                format,
                &FieldPath::Key(&FieldPath::Root, "format"),
                format!("unsupported scene format {format_text:?}: this build reads {FORMAT:?}"),
            ));
        }
        let context = match o.get("context") {
            None => Value::Dict(Default::default()),
            Some(
                j @ Json {
                    kind: Kind::Object(_) | Kind::Value(Value::Dict(_)),
                    ..
                },
            ) => j.to_value(),
            Some(j) => {
                return Err(self.expected(
                    j,
                    &FieldPath::Key(&FieldPath::Root, "context"),
                    "an object",
                ))
            }
        };
        Ok(Scene {
            name: self
                .opt_string(&o, &FieldPath::Root, "name")?
                .unwrap_or_default(),
            description: self.opt_string(&o, &FieldPath::Root, "description")?,
            context,
            intermediate_msgs: self.list(
                &o,
                &FieldPath::Root,
                "intermediate_msgs",
                Self::message,
            )?,
            chat_llm: match o.get("chat_llm") {
                Some(j) => self.chat(j)?,
                None => ChatConfig::default(),
            },
            desk_llm: match o.get("desk_llm") {
                Some(j) => self.desk(j)?,
                None => DeskConfig::default(),
            },
            tools: self.list(&o, &FieldPath::Root, "tools", Self::tool)?,
            run: o.get("run").map(|j| self.run(j)).transpose()?,
            recorded: o.get("recorded").map(|j| self.recorded(j)).transpose()?,
        })
    }

    /// A message's `role`, one of the four roles docs/scene-format.md lists.
    fn role(&self, o: &Obj, j: &Json, path: &FieldPath) -> Result<Role, SceneError> {
        let role_j = self.required(o, j, path, "role")?;
        let role_path = join(path, "role");
        let text = self.string(role_j, &role_path)?;
        match Role::parse(&text) {
            Some(role) => Ok(role),
            None => Err(self.err(
                role_j,
                &role_path,
                format!(
                    "unknown role {text:?}, expected one of: {}",
                    keys::ROLES.join(", ")
                ),
            )),
        }
    }

    pub(super) fn message(&self, j: &Json, path: &FieldPath) -> Result<Message, SceneError> {
        let o = self.object(j, path, keys::MESSAGE)?;
        let role = self.role(&o, j, path)?;
        let content = match o.get_raw("content") {
            None => Content::Text(String::new()),
            Some(Json {
                kind: Kind::Null, ..
            }) => Content::Text(String::new()),
            Some(Json {
                kind: Kind::Str(s), ..
            }) => Content::Text(s.clone()),
            Some(Json {
                kind: Kind::Array(items),
                ..
            }) => {
                let cpath = join(path, "content");
                Content::Parts(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, p)| self.part(p, &FieldPath::Index(&cpath, i)))
                        .collect::<Result<_, _>>()?,
                )
            }
            Some(other) => {
                return Err(self.expected(
                    other,
                    &join(path, "content"),
                    "a string or an array of parts",
                ))
            }
        };
        let tool_calls = match o.get("tool_calls") {
            None => None,
            Some(
                tc @ Json {
                    kind: Kind::Array(_),
                    ..
                },
            ) => Some(tc.to_value()),
            Some(other) => return Err(self.expected(other, &join(path, "tool_calls"), "an array")),
        };
        Ok(Message {
            role,
            content,
            name: self.opt_string(&o, path, "name")?,
            tool_call_id: self.opt_string(&o, path, "tool_call_id")?,
            tool_calls,
        })
    }

    fn part(&self, j: &Json, path: &FieldPath) -> Result<Part, SceneError> {
        let Kind::Object(_) = j.kind else {
            return Err(self.expected(j, path, "a part object"));
        };
        let ty_j = j
            .get("type")
            .ok_or_else(|| self.err(j, path, "missing field \"type\""))?;
        let ty_path = join(path, "type");
        match self.string(ty_j, &ty_path)?.as_str() {
            "text" => {
                let o = self.object(j, path, keys::TEXT_PART)?;
                let text = self.required(&o, j, path, "text")?;
                Ok(Part::Text(self.string(text, &join(path, "text"))?))
            }
            "image" => {
                let o = self.object(j, path, keys::IMAGE_PART)?;
                let mut sources = Vec::new();
                for (key, make) in [
                    ("url", ImageSource::Url as fn(String) -> ImageSource),
                    ("path", ImageSource::Path),
                    ("data_base64", ImageSource::DataBase64),
                ] {
                    if let Some(v) = o.get(key) {
                        sources.push(make(self.string(v, &join(path, key))?));
                    }
                }
                if sources.len() != 1 {
                    return Err(self.err(
                        j,
                        path,
                        "an image part needs exactly one of \"url\", \"path\", \"data_base64\"",
                    ));
                }
                Ok(Part::Image(Image {
                    source: sources.remove(0),
                    mime_type: self.opt_string(&o, path, "mime_type")?,
                }))
            }
            other => Err(self.err(
                ty_j,
                &ty_path,
                format!("unknown part type {other:?}, expected \"text\" or \"image\""),
            )),
        }
    }

    fn template(&self, j: &Json, path: &FieldPath) -> Result<TemplateSpec, SceneError> {
        let o = self.object(j, path, keys::TEMPLATE)?;
        let engine_j = self.required(&o, j, path, "engine")?;
        let engine_path = join(path, "engine");
        let engine: Engine = self
            .string(engine_j, &engine_path)?
            .parse()
            .map_err(|e: String| self.err(engine_j, &engine_path, e))?;
        let templates_j = self.required(&o, j, path, "templates")?;
        let tpath = join(path, "templates");
        let Kind::Object(members) = &templates_j.kind else {
            return Err(self.expected(templates_j, &tpath, "an object of locale → template text"));
        };
        let mut templates = IndexMap::new();
        let mut spans = IndexMap::new();
        for m in members {
            let mpath = join(&tpath, &m.key);
            if templates.contains_key(&m.key) {
                return Err(SceneError::at(
                    self.text,
                    m.key_span.start,
                    mpath,
                    format!("duplicate locale {:?}", m.key),
                ));
            }
            templates.insert(m.key.clone(), self.string(&m.value, &mpath)?);
            spans.insert(m.key.clone(), m.value.span.clone());
        }
        Ok(TemplateSpec {
            engine,
            templates,
            active_language: self.opt_string(&o, path, "active_language")?,
            spans,
        })
    }

    pub(super) fn prompt(&self, j: &Json, path: &FieldPath) -> Result<Prompt, SceneError> {
        let Kind::Object(_) = j.kind else {
            return Err(self.expected(j, path, "a prompt object"));
        };
        let kind_j = j
            .get("kind")
            .ok_or_else(|| self.err(j, path, "missing field \"kind\""))?;
        let kind_path = join(path, "kind");
        match self.string(kind_j, &kind_path)?.as_str() {
            "normalize" => {
                let o = self.object(j, path, keys::NORMALIZE_PROMPT)?;
                let t = self.required(&o, j, path, "template")?;
                Ok(Prompt::Normalize {
                    template: self.template(t, &join(path, "template"))?,
                    attachments: self.list(&o, path, "attachments", Self::part)?,
                })
            }
            "additional_info" => {
                let o = self.object(j, path, keys::ADDITIONAL_INFO_PROMPT)?;
                let t = self.required(&o, j, path, "template")?;
                Ok(Prompt::AdditionalInfo {
                    template: self.template(t, &join(path, "template"))?,
                })
            }
            other => Err(self.err(
                kind_j,
                &kind_path,
                format!(
                    "unknown prompt kind {other:?}, expected \"normalize\" or \"additional_info\""
                ),
            )),
        }
    }

    fn chat(&self, j: &Json) -> Result<ChatConfig, SceneError> {
        let p = &FieldPath::Key(&FieldPath::Root, "chat_llm");
        let o = self.object(j, p, keys::CHAT_LLM)?;
        Ok(ChatConfig {
            system_msg_prompt: self.list(&o, p, "system_msg_prompt", Self::prompt)?,
            before_input_msg_prompt: self.list(&o, p, "before_input_msg_prompt", Self::prompt)?,
            reformat_input_prompt: self.list(&o, p, "reformat_input_prompt", Self::prompt)?,
            after_input_msg_prompt: self.list(&o, p, "after_input_msg_prompt", Self::prompt)?,
            after_intermediate_msg_prompt: self.list(
                &o,
                p,
                "after_intermediate_msg_prompt",
                Self::prompt,
            )?,
        })
    }

    fn desk(&self, j: &Json) -> Result<DeskConfig, SceneError> {
        let p = &FieldPath::Key(&FieldPath::Root, "desk_llm");
        let o = self.object(j, p, keys::DESK_LLM)?;
        let adapter_path = FieldPath::Key(p, "adapter");
        let adapter = match o.get("adapter") {
            None => Adapter::OpenaiDesk,
            Some(a) => {
                let name = self.string(a, &adapter_path)?;
                Adapter::parse(&name).ok_or_else(|| {
                    let all: Vec<_> = Adapter::ALL.iter().map(|a| a.as_str()).collect();
                    self.err(
                        a,
                        &adapter_path,
                        format!(
                            "unknown adapter {name:?}, expected one of: {}",
                            all.join(", ")
                        ),
                    )
                })?
            }
        };
        let model = self.opt_string(&o, p, "model")?;
        if let (Some(m), Some(j)) = (&model, o.get("model")) {
            if m.trim().is_empty() {
                return Err(self.err(
                    j,
                    &FieldPath::Key(p, "model"),
                    "a model name must not be empty",
                ));
            }
        }
        Ok(DeskConfig {
            adapter,
            model,
            system_prompt: self.list(&o, p, "system_prompt", Self::prompt)?,
            instruction_prompt: self.list(&o, p, "instruction_prompt", Self::prompt)?,
            original_desk_screenshot_prompt: self.list(
                &o,
                p,
                "original_desk_screenshot_prompt",
                Self::prompt,
            )?,
            intermediate_prompt: self.list(&o, p, "intermediate_prompt", Self::prompt)?,
            current_desk_screenshot_prompt: self.list(
                &o,
                p,
                "current_desk_screenshot_prompt",
                Self::prompt,
            )?,
            purpose_prompt: self.list(&o, p, "purpose_prompt", Self::prompt)?,
            prefix_prompt: self.list(&o, p, "prefix_prompt", Self::prompt)?,
        })
    }

    fn tool(&self, j: &Json, path: &FieldPath) -> Result<Tool, SceneError> {
        if j.kind == Kind::Kept {
            let found = self
                .kept
                .binary_search_by_key(&j.span.start, |t| t.span.start);
            return match found {
                Ok(i) => Ok(self.kept[i].clone()),
                Err(_) => Err(self.err(j, path, "a tool kept from an earlier reading is missing")),
            };
        }
        let o = self.object(j, path, keys::TOOL)?;
        let name_j = self.required(&o, j, path, "name")?;
        let name = self.string(name_j, &join(path, "name"))?;
        if name.is_empty() {
            return Err(self.err(name_j, &join(path, "name"), "a tool name must not be empty"));
        }
        let prompt_position = match o.get("prompt_position") {
            None => None,
            Some(pp) => Some(self.position(pp, &join(path, "prompt_position"))?),
        };
        let parameters = match o.get("parameters") {
            None => None,
            Some(p) => match p.kind {
                Kind::Object(_) => Some(p.to_value()),
                _ => {
                    return Err(self.expected(
                        p,
                        &join(path, "parameters"),
                        "a JSON Schema object (the tool's argument schema)",
                    ))
                }
            },
        };
        Ok(Tool {
            name,
            description: self.opt_string(&o, path, "description")?,
            parameters,
            prompt_position,
            state: o.get_raw("state").map_or(Value::None, Json::to_value),
            format_2_prompt: o
                .get("format_2_prompt")
                .map(|r| self.returns(r, &join(path, "format_2_prompt")))
                .transpose()?,
            span: j.span.clone(),
        })
    }

    fn position(&self, j: &Json, path: &FieldPath) -> Result<Position, SceneError> {
        let items = self.array(j, path)?;
        if items.len() != 2 {
            return Err(self.err(
                j,
                path,
                format!("expected a pair [chat position or null, desk position or null], found {} items", items.len()),
            ));
        }
        let side = |k: usize| -> Result<Option<String>, SceneError> {
            match &items[k].kind {
                Kind::Null => Ok(None),
                Kind::Str(s) => Ok(Some(s.clone())),
                _ => Err(self.expected(
                    &items[k],
                    &FieldPath::Index(path, k),
                    "a segment name or null",
                )),
            }
        };
        Ok(Position {
            chat: side(0)?,
            desk: side(1)?,
        })
    }

    fn returns(&self, j: &Json, path: &FieldPath) -> Result<Returns, SceneError> {
        let Kind::Object(_) = j.kind else {
            return Err(self.expected(j, path, "an object with \"returns\""));
        };
        let r_j = j
            .get("returns")
            .ok_or_else(|| self.err(j, path, "missing field \"returns\""))?;
        let r_path = join(path, "returns");
        match self.string(r_j, &r_path)?.as_str() {
            "str" => {
                let o = self.object(j, path, keys::RETURNS_STR)?;
                let s = self.required(&o, j, path, "source")?;
                Ok(Returns::Str {
                    source: self.template(s, &join(path, "source"))?,
                })
            }
            "prompt" => {
                let o = self.object(j, path, keys::RETURNS_PROMPT)?;
                let p = self.required(&o, j, path, "prompt")?;
                Ok(Returns::Prompt(self.prompt(p, &join(path, "prompt"))?))
            }
            "none" => {
                self.object(j, path, keys::RETURNS_NONE)?;
                Ok(Returns::None)
            }
            "raise" => {
                let o = self.object(j, path, keys::RETURNS_RAISE)?;
                Ok(Returns::Raise {
                    error: self.opt_string(&o, path, "error")?.unwrap_or_default(),
                })
            }
            "invalid" => {
                let o = self.object(j, path, keys::RETURNS_INVALID)?;
                Ok(Returns::Invalid {
                    value: o.get_raw("value").map_or(Value::None, Json::to_value),
                })
            }
            other => Err(self.err(
                r_j,
                &r_path,
                format!(
                    "unknown return kind {other:?}, expected one of: {}",
                    keys::RETURNS_KINDS.join(", ")
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_tools_load_as_tools_read_from_the_text() {
        let text = crate::scene::DEFAULT_SCENE;
        let first = load_str(text).expect("the default scene loads");
        assert!(first.tools.len() > 2, "the default scene has tools");
        // The same text after five more bytes: every span moves by five.
        let later = format!("\n    {text}");
        let read = load_str(&later).expect("loads");
        let mut kept = first.tools.clone();
        for tool in &mut kept {
            tool.move_spans(5);
        }
        let (scene, _) = load_keeping(&later, None, &kept).expect("loads");
        assert_eq!(scene, read);
        // Only some kept (those an edit left alone): the others are read.
        let (scene, _) = load_keeping(&later, None, &kept[1..2]).expect("loads");
        assert_eq!(scene, read);
        // A kept tool is taken, not read again: one that differs from the text shows through.
        kept[0].name = "kept, not read".into();
        let (scene, _) = load_keeping(&later, None, &kept).expect("loads");
        assert_eq!(scene.tools[0].name, "kept, not read");
        assert_eq!(scene.tools[1..], read.tools[1..]);
    }
}
