//! A golden's call rebuilt for pricing (`check::costs`): a family's report read back from the
//! golden's JSON as far as a request body is built from it, and tool definitions read back from
//! a request body.

use serde_json::Value as Json;

use crate::provider::ToolDef;
use crate::report::{MessageOut, PieceOut, Report, SegmentOut, Source};

/// Tool definitions read back from a request body in any of the shapes `provider` writes
/// (chat completions, Responses, Anthropic, Gemini).
pub fn tool_defs_of_request(body: &Json) -> Vec<ToolDef> {
    let Some(tools) = body.get("tools").and_then(Json::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in tools {
        if let Some(declarations) = t.get("functionDeclarations").and_then(Json::as_array) {
            out.extend(declarations.iter().filter_map(|d| {
                def(d, "parametersJsonSchema").map(|mut def| {
                    // Gemini's body writes an absent description as "".
                    def.description = def.description.filter(|s| !s.is_empty());
                    def
                })
            }));
            continue;
        }
        let f = t.get("function").unwrap_or(t);
        if let Some(d) = def(f, "parameters").or_else(|| def(f, "input_schema")) {
            out.push(d);
        }
    }
    out
}

fn def(f: &Json, schema_key: &str) -> Option<ToolDef> {
    Some(ToolDef {
        name: f.get("name")?.as_str()?.to_owned(),
        description: f
            .get("description")
            .and_then(Json::as_str)
            .map(str::to_owned),
        parameters: f.get(schema_key)?.clone(),
    })
}

/// A family's report in a golden, as far as a request is built from it: its messages and its
/// segments' text and attachments. `None` for a value that is not a report.
pub fn report_of(value: &Json) -> Option<Report> {
    let llm = match value.get("llm")?.as_str()? {
        "chat" => "chat",
        "desk" => "desk",
        _ => return None,
    };
    let tokenizer = value
        .get("tokenizer")
        .and_then(Json::as_str)
        .and_then(|t| crate::tokens::Encoding::parse(t).ok());
    let segments = value
        .get("segments")?
        .as_array()?
        .iter()
        .filter_map(segment_of)
        .collect();
    let messages = value
        .get("messages")
        .and_then(Json::as_array)
        .map(|ms| ms.iter().filter_map(message_of).collect());
    Some(Report {
        llm,
        tokenizer,
        messages,
        request: None,
        segments,
        tools: Vec::new(),
        diagnostics: Vec::new(),
        metrics: Default::default(),
        costs: Vec::new(),
    })
}

fn str_at<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Json::as_str)
}

fn segment_of(s: &Json) -> Option<SegmentOut> {
    let name = crate::segments::find_any(str_at(s, "name")?)?.name;
    let pieces = s
        .get("pieces")
        .and_then(Json::as_array)
        .map(|ps| ps.iter().map(piece_of).collect())
        .unwrap_or_default();
    Some(SegmentOut {
        name,
        legal: true,
        rule: None,
        text: str_at(s, "text").unwrap_or("").to_owned(),
        bytes: 0,
        tokens: None,
        messages: s
            .get("messages")
            .and_then(Json::as_u64)
            .and_then(|n| usize::try_from(n).ok()),
        pieces,
    })
}

fn piece_of(p: &Json) -> PieceOut {
    PieceOut {
        source: if str_at(p, "source") == Some("tool") {
            Source::Tool
        } else {
            Source::Config
        },
        tool: str_at(p, "tool").map(str::to_owned),
        index: p
            .get("index")
            .and_then(Json::as_u64)
            .and_then(|n| usize::try_from(n).ok()),
        text: str_at(p, "text").unwrap_or("").into(),
        attachments: p
            .get("attachments")
            .and_then(Json::as_array)
            .map(|a| a.iter().map(crate::value::Value::from_json).collect())
            .unwrap_or_default(),
        range: [0, 0],
        tokens: None,
    }
}

fn message_of(m: &Json) -> Option<MessageOut> {
    let role = match str_at(m, "role")? {
        "system" => "system",
        "user" => "user",
        "assistant" => "assistant",
        "tool" => "tool",
        _ => return None,
    };
    Some(MessageOut {
        role,
        content: m
            .get("content")
            .map_or(crate::value::Value::None, crate::value::Value::from_json),
        segment: str_at(m, "segment")
            .and_then(crate::segments::find_any)
            .map(|s| s.name),
        name: str_at(m, "name").map(str::to_owned),
        tool_call_id: str_at(m, "tool_call_id").map(str::to_owned),
        tool_calls: m.get("tool_calls").map(crate::value::Value::from_json),
        tokens: None,
    })
}
