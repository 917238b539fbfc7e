//! The typed `run` field of a scene (docs/run-loop.md): the tool-call loop to replay, as the scene
//! loader reads it. Run messages have string content; `tool_calls` keep the form they were
//! written in, so the request the loop prints looks like the recording.

use indexmap::IndexMap;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::Role;
use crate::value::Value;

/// `run`: the pipeline's system parts, the history, the user message and the recorded rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The directory the run starts in (xbot's `cfg.InitialCWD`); `""` when not recorded.
    pub initial_cwd: String,
    /// The pipeline's named parts (`00_base`, `10_skills`, ...), in file order; the loop sorts them.
    pub system_parts: IndexMap<String, String>,
    pub history: Vec<RunMessage>,
    /// The user's turn: written as a string (the content) or as a message with role `user`, as
    /// xbot's `ChatMessage` is (a `name` is sent with it).
    pub user_message: RunMessage,
    pub iterations: Vec<Iteration>,
}

/// One round: the assistant's turn, the results of its tool calls, and what changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    pub assistant: RunMessage,
    pub tool_results: Vec<RunMessage>,
    /// The session's directory after this round's tools ran (a `Cd`); unchanged when absent.
    pub cwd_after: Option<String>,
    /// The TODO summary the reminder shows after this round.
    pub todo: Option<String>,
}

/// A message of the loop: string content only (docs/scene-format.md).
#[derive(Clone, Debug, PartialEq)]
pub struct RunMessage {
    pub role: Role,
    pub content: String,
    pub name: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// xbot's `CacheHint`: `static` on the pipeline's system message; never read from a scene.
    pub cache_hint: Option<&'static str>,
}

impl RunMessage {
    pub fn new(role: Role, content: impl Into<String>) -> RunMessage {
        RunMessage {
            role,
            content: content.into(),
            name: None,
            tool_call_id: None,
            tool_calls: Vec::new(),
            cache_hint: None,
        }
    }
}

/// One entry of `tool_calls`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// As written: usually a JSON string (OpenAI), sometimes an object.
    pub arguments: Value,
    /// Which of the two accepted shapes the entry was written in.
    pub form: CallForm,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallForm {
    /// `{id, name, arguments}` (xbot's own `llm.ToolCall`).
    Flat,
    /// OpenAI's `{id, type?: "function", function: {name, arguments}}`.
    OpenAi,
}

impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        match self.form {
            CallForm::Flat => {
                m.serialize_entry("name", &self.name)?;
                m.serialize_entry("arguments", &self.arguments)?;
            }
            CallForm::OpenAi => {
                m.serialize_entry("type", "function")?;
                m.serialize_entry(
                    "function",
                    &FunctionOut {
                        name: &self.name,
                        arguments: &self.arguments,
                    },
                )?;
            }
        }
        m.end()
    }
}

#[derive(Serialize)]
struct FunctionOut<'a> {
    name: &'a str,
    arguments: &'a Value,
}

impl Serialize for RunMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("role", self.role.as_str())?;
        m.serialize_entry("content", &self.content)?;
        if let Some(name) = &self.name {
            m.serialize_entry("name", name)?;
        }
        if let Some(id) = &self.tool_call_id {
            m.serialize_entry("tool_call_id", id)?;
        }
        if !self.tool_calls.is_empty() {
            m.serialize_entry("tool_calls", &self.tool_calls)?;
        }
        if let Some(hint) = self.cache_hint {
            m.serialize_entry("cache_hint", hint)?;
        }
        m.end()
    }
}

/// The JSON shapes the hand-written `Serialize` impls above produce, declared for the app's
/// TypeScript types only (feature `specta`): a run message, and a tool call in either form.
#[cfg(feature = "specta")]
pub mod wire {
    #[derive(specta::Type)]
    #[allow(dead_code)]
    pub struct RunMessageJson {
        /// `system`, `user`, `assistant` or `tool`.
        pub role: String,
        pub content: String,
        #[specta(optional)]
        pub name: Option<String>,
        #[specta(optional)]
        pub tool_call_id: Option<String>,
        /// Present when the message calls tools, in the form they were recorded in.
        #[specta(optional)]
        pub tool_calls: Option<Vec<ToolCallJson>>,
        /// `static` on the pipeline's system message.
        #[specta(optional)]
        pub cache_hint: Option<String>,
    }

    #[derive(specta::Type, serde::Serialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    pub enum ToolCallJson {
        /// `{id, name, arguments}` (xbot's own `llm.ToolCall`).
        Flat {
            id: String,
            name: String,
            #[specta(type = specta_typescript::Unknown)]
            arguments: (),
        },
        /// OpenAI's `{id, type: "function", function: {name, arguments}}`.
        OpenAi {
            id: String,
            r#type: String,
            function: FunctionJson,
        },
    }

    #[derive(specta::Type, serde::Serialize)]
    #[allow(dead_code)]
    pub struct FunctionJson {
        pub name: String,
        #[specta(type = specta_typescript::Unknown)]
        pub arguments: (),
    }
}
