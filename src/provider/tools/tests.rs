use serde_json::json;

use super::super::Sink;
use super::{attach, Shape, ToolDef};
use crate::report::{Diagnostic, DiagnosticCode};

fn search() -> ToolDef {
    ToolDef {
        name: "web_search".into(),
        description: Some("Search the web.".into()),
        parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
    }
}

fn shaped(shape: Shape, defs: &[ToolDef]) -> (serde_json::Value, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut body = json!({"model": "m", "messages": []});
    attach(
        &mut body,
        shape,
        defs,
        &mut Sink {
            out: &mut diagnostics,
        },
    );
    (body, diagnostics)
}

#[test]
fn each_api_gets_its_own_shape_with_the_schema_as_written() {
    let schema = search().parameters;
    let (body, d) = shaped(Shape::ChatCompletions, &[search()]);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {"name": "web_search", "description": "Search the web.", "parameters": schema}}])
    );
    let (body, _) = shaped(Shape::Responses, &[search()]);
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "name": "web_search", "description": "Search the web.", "parameters": schema, "strict": false}])
    );
    let (body, _) = shaped(Shape::Anthropic, &[search()]);
    assert_eq!(
        body["tools"],
        json!([{"name": "web_search", "description": "Search the web.", "input_schema": schema}])
    );
    let (body, _) = shaped(Shape::Gemini, &[search()]);
    assert_eq!(
        body["tools"],
        json!([{"functionDeclarations": [{"name": "web_search", "description": "Search the web.", "parametersJsonSchema": schema}]}])
    );
    // The tools come last, after what the body had.
    let keys: Vec<&String> = body
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["model", "messages", "tools"]);
}

#[test]
fn no_definitions_add_nothing() {
    let (body, d) = shaped(Shape::Anthropic, &[]);
    assert_eq!(body, json!({"model": "m", "messages": []}));
    assert!(d.is_empty());
}

#[test]
fn an_api_without_tools_leaves_them_out_and_says_so() {
    let (body, d) = shaped(
        Shape::NoTools("OpenAI's legacy completions API"),
        &[search()],
    );
    assert!(body.get("tools").is_none());
    let [only] = d.as_slice() else {
        panic!("{d:?}")
    };
    assert_eq!(only.code, DiagnosticCode::ToolDefinitionsDropped);
    assert!(only.message.contains("web_search"), "{}", only.message);
}

#[test]
fn names_and_schemas_the_providers_refuse_are_warned_about() {
    let bad = ToolDef {
        name: "web search!".into(),
        description: None,
        parameters: json!({"type": "string"}),
    };
    let (body, d) = shaped(Shape::ChatCompletions, &[bad]);
    let codes: Vec<DiagnosticCode> = d.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            DiagnosticCode::ToolNameInvalid,
            DiagnosticCode::ToolParametersNotObject
        ]
    );
    // Still sent as recorded: the inspector shows what the agent would send.
    assert_eq!(body["tools"][0]["function"]["name"], "web search!");
    assert!(body["tools"][0]["function"].get("description").is_none());
}

#[test]
fn the_neutral_text_is_compact_json_in_order() {
    assert_eq!(
        search().text(),
        r#"{"name":"web_search","description":"Search the web.","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}"#
    );
}
