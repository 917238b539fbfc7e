//! Assembling the chat messages from the rendered segments, the conversation and the intermediate
//! messages, and the conversions between the scene's typed messages and their JSON shape.

use std::sync::Arc;

use super::{RenderVars, Renderer};
use crate::context;
use crate::report::DiagnosticCode;
use crate::report::{MessageOut, SegmentOut};
use crate::scene::{Content, Message, Part, Role, Scene};
use crate::value::Value;

impl Renderer<'_> {
    /// `context.conversation` as messages; entries that are not messages are reported, skipped.
    /// A live document's conversation is usually the very list it was last time (the parsed
    /// context is reused between keystrokes): then the messages and findings are the kept ones.
    pub(super) fn conversation(&mut self, vars: &RenderVars) -> Vec<MessageOut> {
        let Some(Value::List(items)) = context::get(vars.ctx.value(), "conversation") else {
            return Vec::new();
        };
        if let Some((messages, findings)) = self.memo.kept_conversation(items) {
            self.diagnostics.extend_from_slice(findings);
            return messages.to_vec();
        }
        let findings_from = self.diagnostics.len();
        let messages = self.conversation_of(items);
        self.memo
            .keep_conversation(items, &messages, &self.diagnostics[findings_from..]);
        messages
    }

    fn conversation_of(&mut self, items: &[Value]) -> Vec<MessageOut> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let role = context::get(item, "role").and_then(|r| match r {
                Value::Str(s) => Role::parse(s),
                _ => None,
            });
            let Some(role) = role else {
                self.diag(
                    DiagnosticCode::ConversationMessageInvalid,
                    format!("context.conversation[{i}] is not a message with a role of system, user, assistant or tool; left out"),
                    None,
                    Some("conversation_msgs"),
                );
                continue;
            };
            let str_field = |k: &str| match context::get(item, k) {
                Some(Value::Str(s)) => Some(s.to_string()),
                _ => None,
            };
            out.push(MessageOut {
                role: role.as_str(),
                content: context::get(item, "content")
                    .cloned()
                    .unwrap_or(Value::str("")),
                segment: Some("conversation_msgs"),
                name: str_field("name"),
                tool_call_id: str_field("tool_call_id"),
                tool_calls: context::get(item, "tool_calls")
                    .filter(|v| **v != Value::None)
                    .cloned(),
                tokens: None,
            });
        }
        out
    }
}

/// The chat messages in their order (docs/rules.md): system(system_msg_prompt), the conversation,
/// system(before_input_msg_prompt), the user message, system(after_input_msg_prompt), the
/// intermediate messages, system(after_intermediate_msg_prompt); a segment with no text makes none.
pub(super) fn chat_messages(
    scene: &Scene,
    segments: &[SegmentOut],
    conversation: Vec<MessageOut>,
    vars: &RenderVars,
) -> Vec<MessageOut> {
    let text_of = |name: &str| {
        segments
            .iter()
            .find(|s| s.name == name)
            .map_or("", |s| s.text.as_str())
    };
    let system = |name: &'static str| {
        let text = text_of(name);
        (!text.is_empty()).then(|| MessageOut {
            role: "system",
            content: Value::str(text),
            segment: Some(name),
            name: None,
            tool_call_id: None,
            tool_calls: None,
            tokens: None,
        })
    };
    // Sized up front: a long conversation would otherwise be copied at every doubling.
    let mut out = Vec::with_capacity(conversation.len() + scene.intermediate_msgs.len() + 5);
    out.extend(system("system_msg_prompt"));
    out.extend(conversation);
    out.extend(system("before_input_msg_prompt"));
    let reformatted = text_of("reformat_input_prompt");
    let input = if reformatted.is_empty() {
        user_input(vars.ctx.value())
    } else {
        reformatted.to_owned()
    };
    if !input.is_empty() {
        out.push(MessageOut {
            role: "user",
            content: Value::str(&input),
            segment: Some("reformat_input_prompt"),
            name: None,
            tool_call_id: None,
            tool_calls: None,
            tokens: None,
        });
    }
    out.extend(system("after_input_msg_prompt"));
    out.extend(scene.intermediate_msgs.iter().map(message_out));
    out.extend(system("after_intermediate_msg_prompt"));
    out
}

/// `user_input.input` as the user message's text (Python `str()` of a non-string).
fn user_input(ctx: &Value) -> String {
    match context::get(ctx, "user_input").and_then(|ui| context::get(ui, "input")) {
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::None) | None => String::new(),
        Some(other) => crate::py::to_str(other),
    }
}

/// The text a message contributes to its segment: the string, or its text parts joined.
pub(super) fn content_text(content: &Value) -> Arc<str> {
    match content {
        Value::Str(s) => s.clone(),
        Value::List(parts) => parts
            .iter()
            .filter_map(|p| match context::get(p, "text") {
                Some(Value::Str(s)) => Some(s.to_string()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
            .into(),
        _ => Arc::from(""),
    }
}

/// The length in bytes of [`content_text`], without building it.
pub(super) fn content_text_len(content: &Value) -> usize {
    match content {
        Value::Str(s) => s.len(),
        Value::List(parts) => {
            let texts = parts.iter().filter_map(|p| match context::get(p, "text") {
                Some(Value::Str(s)) => Some(s.len()),
                _ => None,
            });
            let (count, bytes) = texts.fold((0usize, 0), |(n, b), len| (n + 1, b + len));
            bytes + count.saturating_sub(1)
        }
        _ => 0,
    }
}

fn message_out(m: &Message) -> MessageOut {
    MessageOut {
        role: m.role.as_str(),
        content: content_value(&m.content),
        segment: Some("intermediate_msgs"),
        name: m.name.clone(),
        tool_call_id: m.tool_call_id.clone(),
        tool_calls: m.tool_calls.clone(),
        tokens: None,
    }
}

/// A typed message content back in its JSON shape.
pub fn content_value(c: &Content) -> Value {
    use std::sync::Arc;
    match c {
        Content::Text(s) => Value::str(s),
        Content::Parts(parts) => Value::List(Arc::new(parts.iter().map(part_value).collect())),
    }
}

pub(super) fn part_value(p: &Part) -> Value {
    use crate::scene::ImageSource;
    use std::sync::Arc;
    let mut m = crate::value::Dict::default();
    let mut put = |k: &str, v: &str| {
        m.insert(Arc::from(k), Value::str(v));
    };
    match p {
        Part::Text(t) => {
            put("type", "text");
            put("text", t);
        }
        Part::Image(img) => {
            put("type", "image");
            match &img.source {
                ImageSource::Url(u) => put("url", u),
                ImageSource::Path(p) => put("path", p),
                ImageSource::DataBase64(d) => put("data_base64", d),
            }
            if let Some(mt) = &img.mime_type {
                put("mime_type", mt);
            }
        }
    }
    Value::Dict(Arc::new(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_text_len_is_the_length_of_content_text() {
        let contents = [
            "\"plain\"",
            "\"\"",
            "[]",
            "[{\"type\": \"text\", \"text\": \"one\"}]",
            "[{\"type\": \"text\", \"text\": \"一\"}, {\"type\": \"image\", \"url\": \"u\"}, {\"type\": \"text\", \"text\": \"three\"}]",
            "[{\"type\": \"text\", \"text\": \"\"}, {\"type\": \"text\", \"text\": \"\"}]",
            "null",
        ];
        for json in contents {
            let v = Value::from_json_str(json).expect("valid json");
            assert_eq!(content_text_len(&v), content_text(&v).len(), "{json}");
        }
    }
}
