//! Structured-output schemas (`response_format` in chat, `text.format` in Responses) as the
//! model reads them: a `# Response Formats` section of the system message.
//!
//! ```text
//! # Response Formats
//!
//! ## {name}
//!
//! // {description}
//! {"type":"object","properties":{"city":{"type":"string"}}}
//! ```
//!
//! The schema is compact JSON in the request's key order without `required` and
//! `additionalProperties` (a leaked GPT-4.1 system message shows this form; harmony's format
//! docs show the section). That is exact on the corpus for non-strict chat schemas and, without
//! the `## {name}` line, for strict Responses ones; strict chat schemas were billed 4 tokens over
//! it, which the public material does not explain (docs/models.md).

use serde_json::{Map, Value as Json};

use super::turns::bound;
use crate::usage::Api;

/// A rendered format section.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FormatText {
    pub text: String,
    /// How far the count can be off, when it is not exact (percent).
    pub bound: Option<f64>,
}

/// The section for a `json_schema` format object (`{name, description?, schema, strict?}`);
/// `None` for other formats (`text`, `json_object`), which add nothing.
pub(crate) fn section(api: Api, kind: Option<&str>, format: &Json) -> Option<FormatText> {
    if kind != Some("json_schema") {
        return None;
    }
    let strict = format.get("strict").and_then(Json::as_bool) == Some(true);
    let name = format.get("name").and_then(Json::as_str).unwrap_or("");
    let mut text = "# Response Formats\n\n".to_owned();
    // Three strict Responses formats were billed exactly this section without the name line
    // (3 and 4 tokens under it), though a leaked GPT-4.1 prompt shows the line.
    let (named, bound) = match (api, strict) {
        (Api::OpenaiResponses, true) => (false, None),
        (Api::OpenaiResponses, false) => (false, Some(bound::FORMAT)),
        (_, true) => (true, Some(bound::STRICT_CHAT_FORMAT)),
        (_, false) => (true, None),
    };
    if named {
        text.push_str(&format!("## {name}\n\n"));
    }
    if let Some(description) = format.get("description").and_then(Json::as_str) {
        text.push_str("// ");
        text.push_str(description);
        text.push('\n');
    }
    let schema = format
        .get("schema")
        .map(without_constraints)
        .unwrap_or_default();
    text.push_str(&schema.to_string());
    Some(FormatText { text, bound })
}

/// A schema without `required` and `additionalProperties`, wherever a schema can be (not in
/// `properties` maps, whose keys are property names).
fn without_constraints(schema: &Json) -> Json {
    let Json::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "required" | "additionalProperties" => {}
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                let inner = match value {
                    Json::Object(props) => Json::Object(
                        props
                            .iter()
                            .map(|(k, v)| (k.clone(), without_constraints(v)))
                            .collect(),
                    ),
                    other => other.clone(),
                };
                out.insert(key.clone(), inner);
            }
            "items" | "not" | "if" | "then" | "else" => {
                out.insert(key.clone(), without_constraints(value));
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                let inner = match value {
                    Json::Array(items) => {
                        Json::Array(items.iter().map(without_constraints).collect())
                    }
                    other => other.clone(),
                };
                out.insert(key.clone(), inner);
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Json::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_leaked_gpt_4_1_form() {
        // The system message GPT-4.1 repeated for this format (a published leak, docs/models.md):
        // `# Response Formats\n\n## str_response\n\n{"type":"object","properties":{"output":
        // {"type":"string"}}}`.
        let format = json!({"type": "json_schema", "name": "str_response", "strict": true,
            "schema": {"type": "object", "properties": {"output": {"type": "string"}},
                "additionalProperties": false, "required": ["output"]}});
        let s = section(Api::OpenaiChat, Some("json_schema"), &format).unwrap();
        assert_eq!(
            s.text,
            "# Response Formats\n\n## str_response\n\n\
             {\"type\":\"object\",\"properties\":{\"output\":{\"type\":\"string\"}}}"
        );
        assert!(s.bound.is_some(), "strict chat schemas are estimates");
        let s = section(Api::OpenaiResponses, Some("json_schema"), &format).unwrap();
        assert_eq!(
            s.text,
            "# Response Formats\n\n{\"type\":\"object\",\"properties\":{\"output\":{\"type\":\"string\"}}}"
        );
        assert_eq!(s.bound, None);
    }

    #[test]
    fn a_property_named_required_is_kept() {
        let format = json!({"name": "n", "schema": {"properties": {"required": {"type": "boolean"}},
            "required": ["required"]}});
        let s = section(Api::OpenaiChat, Some("json_schema"), &format).unwrap();
        assert!(s
            .text
            .ends_with("{\"properties\":{\"required\":{\"type\":\"boolean\"}}}"));
        assert_eq!(s.bound, None);
    }

    #[test]
    fn the_description_is_a_comment_line() {
        let format = json!({"name": "final_result", "description": "The final response",
            "schema": {"type": "object"}});
        let s = section(Api::OpenaiChat, Some("json_schema"), &format).unwrap();
        assert!(s
            .text
            .ends_with("## final_result\n\n// The final response\n{\"type\":\"object\"}"));
    }

    #[test]
    fn other_formats_add_nothing() {
        let api = Api::OpenaiChat;
        assert_eq!(section(api, Some("json_object"), &json!({})), None);
        assert_eq!(section(api, Some("text"), &json!({})), None);
        assert_eq!(section(api, None, &json!({})), None);
    }
}
