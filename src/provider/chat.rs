//! A chat report's messages in provider-neutral form ([`Turn`]): content parts read, images
//! resolved, tool calls in one shape whichever of the two recorded shapes they came in.

use std::path::Path;

use super::{image, Block, Sink, ToolCall, Turn};
use crate::context;
use crate::report::DiagnosticCode;
use crate::report::{MessageOut, SegmentOut};
use crate::value::Value;

/// The messages as turns. A message made from a prompt segment also carries the attachments of
/// that segment's pieces, after its text (the message itself holds only the text): images, and
/// text parts as text blocks of their own.
pub(crate) fn turns(
    messages: &[MessageOut],
    segments: &[SegmentOut],
    base_dir: Option<&Path>,
    sink: &mut Sink,
) -> Vec<Turn> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| Turn {
            role: m.role,
            blocks: {
                let mut b = blocks(i, m, base_dir, sink);
                b.extend(attachments(i, m, segments, base_dir, sink));
                b
            },
            segment: m.segment,
            name: m.name.clone(),
            tool_call_id: m.tool_call_id.clone(),
            tool_calls: m
                .tool_calls
                .as_ref()
                .map(|tc| tool_calls(i, tc, m.segment, sink))
                .unwrap_or_default(),
        })
        .collect()
}

fn attachments(
    i: usize,
    m: &MessageOut,
    segments: &[SegmentOut],
    base_dir: Option<&Path>,
    sink: &mut Sink,
) -> Vec<Block> {
    let Some(seg) = m.segment.and_then(|name| {
        segments
            .iter()
            .find(|s| s.name == name && s.messages.is_none())
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for piece in &seg.pieces {
        for (j, att) in piece.attachments.iter().enumerate() {
            // A text attachment is one more text block of the message (an imported input turn's
            // later text parts), after its text.
            if str_of(att, "type").as_deref() == Some("text") {
                out.push(Block::Text(str_of(att, "text").unwrap_or_default()));
                continue;
            }
            match image::resolve(att, base_dir) {
                Ok(img) => out.push(Block::Image(img)),
                Err(p) => sink.warn(
                    p.code,
                    format!(
                        "attachment {j} of a {} piece (messages[{i}]) is left out of the request: {}",
                        seg.name, p.message
                    ),
                    Some(seg.name),
                    piece.tool.as_deref(),
                ),
            }
        }
    }
    out
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    match context::get(v, key) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn blocks(i: usize, m: &MessageOut, base_dir: Option<&Path>, sink: &mut Sink) -> Vec<Block> {
    let parts = match &m.content {
        Value::Str(s) if s.is_empty() => return Vec::new(),
        Value::Str(s) => return vec![Block::Text(s.to_string())],
        Value::None => return Vec::new(),
        Value::List(parts) => parts,
        // A recorded conversation may hold anything; Python would send its str().
        other => return vec![Block::Text(crate::py::to_str(other))],
    };
    let mut out = Vec::with_capacity(parts.len());
    for (j, part) in parts.iter().enumerate() {
        match str_of(part, "type").as_deref() {
            Some("text") => out.push(Block::Text(str_of(part, "text").unwrap_or_default())),
            Some("image") => match image::resolve(part, base_dir) {
                Ok(img) => out.push(Block::Image(img)),
                Err(p) => sink.warn(
                    p.code,
                    format!(
                        "messages[{i}] part {j} is left out of the request: {}",
                        p.message
                    ),
                    m.segment,
                    None,
                ),
            },
            other => sink.warn(
                DiagnosticCode::MessagePartUnknown,
                format!(
                    "messages[{i}] part {j} has type {other:?}, not \"text\" or \"image\"; left out of the request"
                ),
                m.segment,
                None,
            ),
        }
    }
    out
}

/// `{id, name, arguments}` or OpenAI's `{id, type?, function: {name, arguments}}`; arguments as
/// a JSON string or an object (kept as JSON text).
fn tool_calls(
    i: usize,
    calls: &Value,
    segment: Option<&'static str>,
    sink: &mut Sink,
) -> Vec<ToolCall> {
    let Value::List(items) = calls else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for (j, call) in items.iter().enumerate() {
        let inner = context::get(call, "function").unwrap_or(call);
        let (Some(id), Some(name)) = (str_of(call, "id"), str_of(inner, "name")) else {
            sink.warn(
                DiagnosticCode::ToolCallInvalid,
                format!("messages[{i}].tool_calls[{j}] has no string \"id\" and \"name\"; left out of the request"),
                segment,
                None,
            );
            continue;
        };
        let arguments = match context::get(inner, "arguments") {
            Some(Value::Str(s)) => s.to_string(),
            None | Some(Value::None) => "{}".to_owned(),
            Some(other) => serde_json::to_string(other).unwrap_or_else(|_| "{}".to_owned()),
        };
        out.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    out
}
