//! Tool definitions in request bodies: a scene tool's `parameters` (its argument schema, as the
//! model is shown it) in each API's own tool shape. docs/providers.md, "Tool definitions", has the
//! shapes and where each API documents them.
//!
//! Only the distinct valid tools that record `parameters` are defined: a tool whose class
//! definition fails does not exist in TFRobot, and a schema the scene does not record is not
//! guessed.

use serde_json::{json, Value as Json};

use super::Sink;
use crate::report::DiagnosticCode;
use crate::scene::{Adapter, Tool};

/// One tool's definition, provider-neutral: what every shape is made from.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: Option<String>,
    /// A JSON Schema object, as the scene wrote it (key order kept).
    pub parameters: Json,
}

impl ToolDef {
    /// The definitions of `tools` (already distinct and valid), in order.
    pub fn of(tools: &[&Tool]) -> Vec<ToolDef> {
        tools
            .iter()
            .filter_map(|t| {
                let parameters = serde_json::to_value(t.parameters.as_ref()?).ok()?;
                Some(ToolDef {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters,
                })
            })
            .collect()
    }

    /// The neutral form `{name, description?, parameters}` as compact JSON: what the report
    /// measures a definition by (each API wraps it a little differently, and providers render
    /// definitions into the prompt in ways they do not publish).
    pub fn text(&self) -> String {
        Json::Object(function(&[], self, "parameters")).to_string()
    }
}

/// The tool shape of one API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `tools: [{type: function, function: {name, description, parameters}}]` (OpenAI chat
    /// completions and the compatible servers, Ollama's `/api/chat`).
    ChatCompletions,
    /// `tools: [{type: function, name, description, parameters, strict}]` (OpenAI Responses).
    Responses,
    /// `tools: [{name, description, input_schema}]` (Anthropic Messages).
    Anthropic,
    /// `tools: [{functionDeclarations: [{name, description, parametersJsonSchema}]}]` (Gemini).
    Gemini,
    /// An API that takes no tools (legacy completions): the definitions are left out.
    NoTools(&'static str),
}

impl Shape {
    pub(crate) fn of_adapter(adapter: Adapter) -> Shape {
        match adapter {
            Adapter::OpenaiDesk => Shape::Responses,
            Adapter::ClaudeDesk => Shape::Anthropic,
            Adapter::GeminiDesk => Shape::Gemini,
            Adapter::OllamaDesk
            | Adapter::SglangDesk
            | Adapter::DeepseekDesk
            | Adapter::TencentDsDesk => Shape::ChatCompletions,
            Adapter::OpenaiGenDesk => Shape::NoTools("OpenAI's legacy completions API"),
        }
    }
}

/// Adds `tools` to a request body (at its end) in the API's shape; nothing when there are no
/// definitions.
pub(crate) fn attach(body: &mut Json, shape: Shape, defs: &[ToolDef], sink: &mut Sink) {
    if defs.is_empty() {
        return;
    }
    for d in defs {
        check_schema(d, sink);
    }
    let tools: Vec<Json> = match shape {
        Shape::NoTools(api) => {
            let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
            sink.warn(
                DiagnosticCode::ToolDefinitionsDropped,
                format!(
                    "{api} takes no tool definitions, so the request leaves out those of {}",
                    names.join(", ")
                ),
                None,
                None,
            );
            return;
        }
        Shape::ChatCompletions => defs
            .iter()
            .map(|d| json!({"type": "function", "function": function(&[], d, "parameters")}))
            .collect(),
        // Responses enforces strict schemas unless told not to, and a recorded schema is rarely
        // written for strict mode (every property required, no extra keys).
        Shape::Responses => defs
            .iter()
            .map(|d| {
                let mut f = function(&[("type", json!("function"))], d, "parameters");
                f.insert("strict".into(), json!(false));
                Json::Object(f)
            })
            .collect(),
        Shape::Anthropic => defs
            .iter()
            .map(|d| Json::Object(function(&[], d, "input_schema")))
            .collect(),
        Shape::Gemini => {
            let declarations: Vec<Json> = defs
                .iter()
                .map(|d| {
                    json!({
                        "name": d.name,
                        "description": d.description.as_deref().unwrap_or(""),
                        "parametersJsonSchema": d.parameters,
                    })
                })
                .collect();
            vec![json!({"functionDeclarations": declarations})]
        }
    };
    if let Json::Object(map) = body {
        map.insert("tools".into(), Json::Array(tools));
    }
}

/// `{first..., name, description?, <schema_key>: parameters}`: the fields every shape shares.
fn function(
    first: &[(&str, Json)],
    d: &ToolDef,
    schema_key: &str,
) -> serde_json::Map<String, Json> {
    let mut f = serde_json::Map::new();
    for (k, v) in first {
        f.insert((*k).into(), v.clone());
    }
    f.insert("name".into(), json!(d.name));
    if let Some(desc) = &d.description {
        f.insert("description".into(), json!(desc));
    }
    f.insert(schema_key.into(), d.parameters.clone());
    f
}

/// Function names every API here accepts (OpenAI's rule is the narrowest).
fn name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_schema(d: &ToolDef, sink: &mut Sink) {
    if !name_ok(&d.name) {
        sink.warn(
            DiagnosticCode::ToolNameInvalid,
            format!(
                "the tool name {:?} is refused by the providers' APIs as a function name: 1 to 64 characters of a-z, A-Z, 0-9, _ and -",
                d.name
            ),
            None,
            Some(&d.name),
        );
    }
    if d.parameters.get("type").and_then(Json::as_str) != Some("object") {
        sink.warn(
            DiagnosticCode::ToolParametersNotObject,
            format!(
                "the parameters of tool {} do not say \"type\": \"object\"; the providers take a function's arguments as one JSON object and refuse other schemas",
                d.name
            ),
            None,
            Some(&d.name),
        );
    }
}

#[cfg(test)]
mod tests;
