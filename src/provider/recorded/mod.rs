//! The request a scene with `recorded` (docs/scene-format.md) stands for, in the recorded API's
//! own shape: chat completions, Responses, Anthropic Messages or Gemini `generateContent`, with
//! the recorded model and parameters, the request's own cache breakpoints and the values it held
//! that a scene has no place for, each put back where it was. Built from a rendered chat report,
//! so an edited scene gives the body its edits would send. docs/providers.md, "Rebuilt bodies",
//! lists what is rebuilt how.

mod anthropic;
mod gemini;
mod openai;
mod place;

use std::path::Path;

use serde_json::{json, Map, Value as Json};

use super::{chat, Block, Sink, Turn};
use crate::report::{Diagnostic, DiagnosticCode, MessageOut, Report, SegmentOut, Status, ToolOut};
use crate::scene::{Form, Recorded, Scene};
use crate::usage::Api;

/// A request body rebuilt from a scene's rendered messages and its `recorded`.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    pub api: Api,
    /// The recorded model, or the API's default when none was recorded.
    pub model: String,
    /// The body as the API takes it (Gemini's names no model: it is the URL's).
    pub body: Json,
    /// Warnings from building it: images that could not be read, carried values and
    /// breakpoints that found no place (the scene was edited around them).
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a body cannot be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedError {
    pub message: String,
}

impl std::fmt::Display for RecordedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecordedError {}

/// The body the recorded call would send now: `None` for a scene without `recorded`, an error
/// for a report that is not a chat report (a desk render has no chat messages). `base_dir` is
/// the scene file's folder, against which image paths are read.
pub fn recorded_request(
    scene: &Scene,
    report: &Report,
    base_dir: Option<&Path>,
) -> Option<Result<RecordedRequest, RecordedError>> {
    let recorded = scene.recorded.as_ref()?;
    let Some(messages) = &report.messages else {
        return Some(Err(RecordedError {
            message: format!(
                "the report is a {} render: the recorded request is rebuilt from a chat render's messages",
                report.llm
            ),
        }));
    };
    let mut diagnostics = Vec::new();
    let body = build(
        scene,
        recorded,
        messages,
        &report.segments,
        &report.tools,
        base_dir,
        &mut diagnostics,
    );
    Some(Ok(RecordedRequest {
        api: recorded.api,
        model: model(recorded).to_owned(),
        body,
        diagnostics,
    }))
}

/// The recorded model, or the default of the API's chat body.
pub fn model(recorded: &Recorded) -> &str {
    recorded.model.as_deref().unwrap_or(match recorded.api {
        Api::OpenaiChat | Api::OpenaiResponses => super::ChatProvider::Openai.default_model(),
        Api::Anthropic => super::ChatProvider::Anthropic.default_model(),
        Api::Gemini => super::default_model(crate::scene::Adapter::GeminiDesk),
    })
}

/// [`recorded_request`]'s body from a render's parts, its warnings in `diagnostics`.
pub(crate) fn build(
    scene: &Scene,
    recorded: &Recorded,
    messages: &[MessageOut],
    segments: &[SegmentOut],
    tools: &[ToolOut],
    base_dir: Option<&Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Json {
    let mut sink = Sink { out: diagnostics };
    let turns = chat::turns(messages, segments, base_dir, &mut sink);
    let layout = &recorded.layout;
    let content = Content {
        system: system_pieces(segments),
        system_listed: layout.system_form.map(|f| f == Form::Parts),
        turns: turns
            .into_iter()
            .zip(messages)
            .filter(|(t, _)| t.segment != Some("system_msg_prompt"))
            .map(|(turn, m)| {
                let listed = if turn.segment == Some("reformat_input_prompt") {
                    layout.input_form == Some(Form::Parts)
                } else {
                    matches!(m.content, crate::value::Value::List(_))
                };
                Message { turn, listed }
            })
            .collect(),
        tools: tool_defs(scene, tools),
    };
    let model = model(recorded);
    let mut body = match recorded.api {
        Api::OpenaiChat => openai::chat(model, &content),
        Api::OpenaiResponses => openai::responses(model, &content, &recorded.layout),
        Api::Anthropic => anthropic::messages(model, &content, &recorded.params),
        Api::Gemini => gemini::generate_content(&content, &recorded.layout),
    };
    if let Json::Object(map) = &mut body {
        for (k, v) in &recorded.params {
            if !map.contains_key(k) {
                map.insert(k.clone(), v.clone());
            }
        }
    }
    for miss in place::carried(&mut body, recorded) {
        sink.warn(DiagnosticCode::RecordedUnplaced, miss, None, None);
    }
    for miss in place::breakpoints(&mut body, recorded) {
        sink.warn(DiagnosticCode::RecordedUnplaced, miss, None, None);
    }
    body
}

/// What every API's body is made of.
pub(crate) struct Content {
    /// The system prompts' texts, one per non-empty piece of `system_msg_prompt` (each was one
    /// system message, block or part of the recorded request).
    pub system: Vec<String>,
    /// Whether the system texts were sent as lists of text parts (`None`: not recorded).
    pub system_listed: Option<bool>,
    /// The other messages, in order.
    pub turns: Vec<Message>,
    pub tools: Vec<Def>,
}

/// A message, and whether its content was a list of parts in the scene (for the input turn:
/// in the recorded request), so that one text goes out in the form it came in.
pub(crate) struct Message {
    pub turn: Turn,
    pub listed: bool,
}

/// A tool's definition as recorded: its parameters when it has them.
pub(crate) struct Def {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Option<Json>,
}

impl Def {
    /// `{name, description, <schema_key>: parameters}`, `default` standing for parameters that
    /// were not recorded; each API wraps it its own way.
    pub(crate) fn declaration(&self, schema_key: &str, default: Option<Json>) -> Map<String, Json> {
        let declared = object(vec![
            ("name", Some(json!(self.name))),
            ("description", self.description.as_ref().map(|x| json!(x))),
            (schema_key, self.parameters.clone().or(default)),
        ]);
        match declared {
            Json::Object(m) => m,
            _ => Map::new(),
        }
    }
}

impl Content {
    /// The tools, each as `define` makes it; `None` when there are none, so that the body
    /// leaves the key out.
    pub(crate) fn tool_list(&self, define: impl Fn(&Def) -> Json) -> Option<Json> {
        (!self.tools.is_empty()).then(|| Json::Array(self.tools.iter().map(define).collect()))
    }
}

fn system_pieces(segments: &[SegmentOut]) -> Vec<String> {
    segments
        .iter()
        .find(|s| s.name == "system_msg_prompt")
        .map(|s| {
            s.pieces
                .iter()
                .filter(|p| !p.text.is_empty())
                .map(|p| p.text.to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The scene's tools that take part (the first of a name, unless it is invalid), in order.
fn tool_defs(scene: &Scene, tools: &[ToolOut]) -> Vec<Def> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for t in &scene.tools {
        if seen.contains(&t.name.as_str()) {
            continue;
        }
        seen.push(&t.name);
        let invalid = tools
            .iter()
            .any(|o| o.name == t.name && o.status == Status::Invalid);
        if invalid {
            continue;
        }
        out.push(Def {
            name: t.name.clone(),
            description: t.description.clone(),
            parameters: t
                .parameters
                .as_ref()
                .and_then(|p| serde_json::to_value(p).ok()),
        });
    }
    out
}

/// The text blocks of a turn and its images, in order, as `text` and `image` callbacks make them.
pub(crate) fn parts(
    blocks: &[Block],
    text: impl Fn(&str) -> Json,
    image: impl Fn(&super::Img) -> Json,
) -> Vec<Json> {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => text(t),
            Block::Image(img) => image(img),
        })
        .collect()
}

/// Content in the form it came in: one text (or none) as a string unless it was `listed`,
/// anything else as a list of parts.
pub(crate) fn string_or_parts(
    blocks: &[Block],
    listed: bool,
    text: impl Fn(&str) -> Json,
    image: impl Fn(&super::Img) -> Json,
) -> Json {
    match blocks {
        [Block::Text(t)] if !listed => json!(t),
        [] if !listed => json!(""),
        _ => Json::Array(parts(blocks, text, image)),
    }
}

/// `{key: value}` with the keys in order, leaving out `None`s.
pub(crate) fn object(fields: Vec<(&str, Option<Json>)>) -> Json {
    let mut m = Map::new();
    for (k, v) in fields {
        if let Some(v) = v {
            m.insert(k.to_owned(), v);
        }
    }
    Json::Object(m)
}

/// A tool call's arguments as the object Anthropic and Gemini take (OpenAI's JSON text parsed);
/// `{}` when they are not an object.
pub(crate) fn arguments_object(arguments: &str) -> Json {
    match serde_json::from_str::<Json>(arguments) {
        Ok(v @ Json::Object(_)) => v,
        _ => json!({}),
    }
}
