//! Strict reading of a scene's `run` (docs/scene-format.md) into [`Run`], with the manners of the rest of
//! the loader: unknown fields and wrong types are errors naming line, column and field path
//! (`run.iterations[2].assistant.tool_calls[0]`).

use indexmap::IndexMap;

use super::{join, FieldPath, Reader};
use crate::json::{Json, Kind};
use crate::scene::run::{CallForm, Iteration, Run, RunMessage, ToolCall};
use crate::scene::{keys, Role, SceneError};
use crate::value::Value;

impl Reader<'_> {
    pub(super) fn run(&self, j: &Json) -> Result<Run, SceneError> {
        let p = &FieldPath::Key(&FieldPath::Root, "run");
        let o = self.object(j, p, keys::RUN)?;
        let mut system_parts = IndexMap::new();
        if let Some(sp) = o.get("system_parts") {
            let sp_path = join(p, "system_parts");
            let Kind::Object(members) = &sp.kind else {
                return Err(self.expected(sp, &sp_path, "an object of part name → text"));
            };
            let names: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
            // Any part name is allowed; `object` is only used for its duplicate check.
            self.object(sp, &sp_path, &names)?;
            for m in members {
                let text = self.string(&m.value, &join(&sp_path, &m.key))?;
                system_parts.insert(m.key.clone(), text);
            }
        }
        let user_j = self.required(&o, j, p, "user_message")?;
        Ok(Run {
            initial_cwd: self.opt_string(&o, p, "initial_cwd")?.unwrap_or_default(),
            system_parts,
            history: self.list(&o, p, "history", Self::run_message)?,
            user_message: self.user_message(user_j, &join(p, "user_message"))?,
            iterations: self.list(&o, p, "iterations", Self::iteration)?,
        })
    }

    /// A string is the content of a user message; an object is the message itself, role `user`.
    fn user_message(&self, j: &Json, path: &FieldPath) -> Result<RunMessage, SceneError> {
        if let Kind::Object(_) = j.kind {
            let message = self.run_message(j, path)?;
            if message.role != Role::User {
                return Err(self.err(j, path, "the user message must have role \"user\""));
            }
            return Ok(message);
        }
        let content = self
            .string(j, path)
            .map_err(|_| self.expected(j, path, "a string or a message with role \"user\""))?;
        Ok(RunMessage::new(Role::User, content))
    }

    fn iteration(&self, j: &Json, path: &FieldPath) -> Result<Iteration, SceneError> {
        let o = self.object(j, path, keys::ITERATION)?;
        let a = self.required(&o, j, path, "assistant")?;
        let a_path = join(path, "assistant");
        let assistant = self.run_message(a, &a_path)?;
        if assistant.role != Role::Assistant {
            return Err(self.err(
                a,
                &a_path,
                "the assistant turn must have role \"assistant\"",
            ));
        }
        Ok(Iteration {
            assistant,
            tool_results: self.list(&o, path, "tool_results", Self::run_message)?,
            cwd_after: self.opt_string(&o, path, "cwd_after")?,
            todo: self.opt_string(&o, path, "todo")?,
        })
    }

    fn run_message(&self, j: &Json, path: &FieldPath) -> Result<RunMessage, SceneError> {
        let o = self.object(j, path, keys::RUN_MESSAGE)?;
        let role = self.role(&o, j, path)?;
        Ok(RunMessage {
            role,
            // Run messages have string content (docs/scene-format.md); absent or null reads as "".
            content: self.opt_string(&o, path, "content")?.unwrap_or_default(),
            name: self.opt_string(&o, path, "name")?,
            tool_call_id: self.opt_string(&o, path, "tool_call_id")?,
            tool_calls: self.list(&o, path, "tool_calls", Self::tool_call)?,
            cache_hint: None,
        })
    }

    /// `{id, name, arguments}` or OpenAI's `{id, type?, function: {name, arguments}}`.
    fn tool_call(&self, j: &Json, path: &FieldPath) -> Result<ToolCall, SceneError> {
        let Kind::Object(_) = j.kind else {
            return Err(self.expected(j, path, "a tool call object"));
        };
        let id = |o: &super::Obj| {
            self.opt_string(o, path, "id")
                .map(Option::unwrap_or_default)
        };
        if let Some(f) = j.get("function") {
            let o = self.object(j, path, keys::TOOL_CALL_OPENAI)?;
            if let Some(t) = o.get("type") {
                let t_path = join(path, "type");
                if self.string(t, &t_path)? != "function" {
                    return Err(self.err(t, &t_path, "expected \"function\""));
                }
            }
            let f_path = join(path, "function");
            let fo = self.object(f, &f_path, keys::TOOL_CALL_FUNCTION)?;
            Ok(ToolCall {
                id: id(&o)?,
                name: self.call_name(&fo, f, &f_path)?,
                arguments: self.arguments(&fo, &f_path)?,
                form: CallForm::OpenAi,
            })
        } else {
            let o = self.object(j, path, keys::TOOL_CALL_FLAT)?;
            Ok(ToolCall {
                id: id(&o)?,
                name: self.call_name(&o, j, path)?,
                arguments: self.arguments(&o, path)?,
                form: CallForm::Flat,
            })
        }
    }

    fn call_name(&self, o: &super::Obj, j: &Json, path: &FieldPath) -> Result<String, SceneError> {
        let n = self.required(o, j, path, "name")?;
        let n_path = join(path, "name");
        let name = self.string(n, &n_path)?;
        if name.is_empty() {
            return Err(self.err(n, &n_path, "a tool call's name must not be empty"));
        }
        Ok(name)
    }

    /// Arguments as written: a JSON string (OpenAI) or an object; absent reads as `"{}"`.
    fn arguments(&self, o: &super::Obj, path: &FieldPath) -> Result<Value, SceneError> {
        match o.get("arguments") {
            None => Ok(Value::str("{}")),
            Some(
                a @ Json {
                    kind: Kind::Str(_) | Kind::Object(_),
                    ..
                },
            ) => Ok(a.to_value()),
            Some(a) => Err(self.expected(a, &join(path, "arguments"), "a string or an object")),
        }
    }
}
