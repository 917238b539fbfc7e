//! Function tools as OpenAI renders them for the model: a TypeScript namespace in the system
//! (or developer) message, not the JSON the request carries.
//!
//! ```text
//! # Tools
//!
//! ## functions
//!
//! namespace functions {
//!
//! // Get the current weather
//! type get_weather = (_: {
//! // The city, e.g. Paris
//! city: string,
//! unit?: "c" | "f", // default: "c"
//! }) => any;
//!
//! } // namespace functions
//! ```
//!
//! The layout is the one OpenAI's harmony renderer publishes for gpt-oss and the one
//! reverse-engineered for GPT-3.5 and GPT-4o (docs/models.md lists the sources); the corpus
//! fixed the details: description lines without indentation and blank ones dropped, a property `title`
//! rendered as `// Title` and `//` above the description, and a property with a title but no
//! description described by its title.

use serde_json::Value as Json;

/// One tool's share of the rendered namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ToolText {
    /// Where the tool is in the request (a JSON pointer).
    pub pointer: String,
    pub text: String,
}

/// The rendered namespace, one piece per tool; the first carries the section header and the
/// last the closing line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Namespace {
    pub tools: Vec<ToolText>,
    /// A schema construct whose rendering the corpus has not proven (`$ref`, `anyOf`, ...)
    /// was rendered.
    pub approximate: bool,
}

/// How deep schemas are followed (a `$ref` may point back at itself).
const MAX_DEPTH: usize = 16;

/// Renders function tools. `tools` are `(pointer, function)` where `function` has `name`,
/// `description` and `parameters`; `tight` opens parameter lists as `(_:{` (GPT-4o family).
pub(crate) fn namespace(tools: &[(String, &Json)], tight: bool) -> Namespace {
    let mut out = Namespace::default();
    let count = tools.len();
    for (i, (pointer, function)) in tools.iter().enumerate() {
        let mut text = String::new();
        if i == 0 {
            text.push_str("# Tools\n\n## functions\n\nnamespace functions {\n\n");
        }
        let mut r = Renderer {
            root: function.get("parameters").unwrap_or(&Json::Null),
            approximate: false,
        };
        r.function(function, tight, &mut text);
        out.approximate |= r.approximate;
        if i + 1 == count {
            text.push_str("} // namespace functions");
        }
        out.tools.push(ToolText {
            pointer: pointer.clone(),
            text,
        });
    }
    out
}

struct Renderer<'a> {
    /// The parameters schema, for `$ref`s into its `$defs`.
    root: &'a Json,
    approximate: bool,
}

impl Renderer<'_> {
    fn function(&mut self, function: &Json, tight: bool, out: &mut String) {
        let name = function.get("name").and_then(Json::as_str).unwrap_or("");
        if let Some(description) = function.get("description").and_then(Json::as_str) {
            comment_lines(description, "", out);
        }
        out.push_str("type ");
        out.push_str(name);
        out.push_str(" = ");
        let params = function.get("parameters");
        match params.filter(|p| has_properties(p)) {
            Some(params) => {
                out.push_str(if tight { "(_:{\n" } else { "(_: {\n" });
                self.properties(params, "", 0, out);
                out.push_str("}) => any;\n\n");
            }
            None => out.push_str("() => any;\n\n"),
        }
    }

    /// The properties of an object schema, one per line at `indent`.
    fn properties(&mut self, schema: &Json, indent: &str, depth: usize, out: &mut String) {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Json::as_array)
            .map(|r| r.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        let Some(props) = schema.get("properties").and_then(Json::as_object) else {
            return;
        };
        for (key, prop) in props {
            let title = prop.get("title").and_then(Json::as_str);
            let description = prop.get("description").and_then(Json::as_str);
            if let Some(title) = title {
                out.push_str(&format!("{indent}// {title}\n{indent}//\n"));
            }
            if let Some(text) = description.or(title) {
                if text.contains('\n') {
                    self.approximate = true;
                }
                for line in text.lines() {
                    out.push_str(&format!("{indent}// {line}\n"));
                }
            }
            out.push_str(indent);
            out.push_str(key);
            if !required.contains(&key.as_str()) {
                out.push('?');
            }
            out.push_str(": ");
            let ty = self.type_of(prop, indent, depth + 1);
            out.push_str(&ty);
            out.push(',');
            if let Some(default) = prop.get("default") {
                out.push_str(" // default: ");
                out.push_str(&default_text(default, prop));
            }
            out.push('\n');
        }
    }

    fn type_of(&mut self, schema: &Json, indent: &str, depth: usize) -> String {
        if depth > MAX_DEPTH {
            self.approximate = true;
            return "any".to_owned();
        }
        // A `$ref` to `#/$defs/X` or `#/definitions/X` is rendered as what it names.
        if let Some(reference) = schema.get("$ref").and_then(Json::as_str) {
            self.approximate = true;
            let target = reference
                .strip_prefix("#/$defs/")
                .map(|n| ("$defs", n))
                .or_else(|| {
                    reference
                        .strip_prefix("#/definitions/")
                        .map(|n| ("definitions", n))
                })
                .and_then(|(defs, n)| self.root.get(defs).and_then(|d| d.get(n)));
            return match target {
                Some(target) => {
                    let target = target.clone();
                    self.type_of(&target, indent, depth + 1)
                }
                None => "any".to_owned(),
            };
        }
        let mut ty = self.bare_type(schema, indent, depth);
        if schema.get("nullable").and_then(Json::as_bool) == Some(true) && !ty.contains("null") {
            ty.push_str(" | null");
        }
        ty
    }

    fn bare_type(&mut self, schema: &Json, indent: &str, depth: usize) -> String {
        for key in ["anyOf", "oneOf"] {
            if let Some(variants) = schema.get(key).and_then(Json::as_array) {
                self.approximate = true;
                return variants
                    .iter()
                    .map(|v| self.type_of(v, indent, depth + 1))
                    .collect::<Vec<_>>()
                    .join(" | ");
            }
        }
        if let Some(value) = schema.get("const") {
            return value.to_string();
        }
        if let Some(values) = schema.get("enum").and_then(Json::as_array) {
            if !values.is_empty() {
                return values
                    .iter()
                    .map(Json::to_string)
                    .collect::<Vec<_>>()
                    .join(" | ");
            }
        }
        match schema.get("type") {
            Some(Json::Array(types)) => types
                .iter()
                .filter_map(Json::as_str)
                .map(primitive)
                .collect::<Vec<_>>()
                .join(" | "),
            Some(Json::String(t)) if t == "object" => self.object(schema, indent, depth),
            Some(Json::String(t)) if t == "array" => match schema.get("items") {
                Some(items) => format!("{}[]", self.type_of(items, indent, depth + 1)),
                None => "any[]".to_owned(),
            },
            Some(Json::String(t)) => primitive(t).to_owned(),
            _ if schema.get("properties").is_some() => self.object(schema, indent, depth),
            _ => {
                if schema.get("allOf").is_some() {
                    self.approximate = true;
                }
                "any".to_owned()
            }
        }
    }

    /// A nested object: its properties two spaces in, the brace back at `indent`.
    fn object(&mut self, schema: &Json, indent: &str, depth: usize) -> String {
        if !has_properties(schema) {
            return "object".to_owned();
        }
        let inner = format!("{indent}  ");
        let mut out = String::from("{\n");
        self.properties(schema, &inner, depth, &mut out);
        out.push_str(indent);
        out.push('}');
        out
    }
}

fn has_properties(schema: &Json) -> bool {
    schema
        .get("properties")
        .and_then(Json::as_object)
        .is_some_and(|p| !p.is_empty())
}

/// TypeScript's name for a JSON Schema primitive type.
fn primitive(t: &str) -> &str {
    match t {
        "integer" => "number",
        "string" | "number" | "boolean" | "null" => t,
        "object" => "object",
        "array" => "any[]",
        _ => "any",
    }
}

/// A default as a trailing comment shows it: a string quoted unless the property is an enum.
fn default_text(default: &Json, prop: &Json) -> String {
    match default {
        Json::String(s) if prop.get("enum").is_some() => s.clone(),
        other => other.to_string(),
    }
}

/// A tool description as comment lines: each line without its indentation, blank lines dropped
/// (measured on docstring descriptions with indented and blank lines; a trailing space is kept,
/// docs/models.md).
fn comment_lines(text: &str, indent: &str, out: &mut String) {
    for line in text.lines().map(str::trim_start).filter(|l| !l.is_empty()) {
        out.push_str(indent);
        out.push_str("// ");
        out.push_str(line);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(tools: &[Json], tight: bool) -> Namespace {
        let owned: Vec<(String, &Json)> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("/tools/{i}"), t))
            .collect();
        namespace(&owned, tight)
    }

    fn text(ns: &Namespace) -> String {
        ns.tools.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn the_cookbook_weather_tool() {
        let tool = json!({"name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}},
                "required": ["location"]}});
        let ns = render(&[tool], false);
        assert_eq!(
            text(&ns),
            "# Tools\n\n## functions\n\nnamespace functions {\n\n\
             // Get the current weather in a given location\n\
             type get_current_weather = (_: {\n\
             // The city and state, e.g. San Francisco, CA\n\
             location: string,\n\
             // The unit of temperature to return\n\
             unit?: \"celsius\" | \"fahrenheit\",\n\
             }) => any;\n\n\
             } // namespace functions"
        );
        assert!(!ns.approximate);
    }

    #[test]
    fn a_tool_without_parameters_takes_none() {
        let ns = render(
            &[
                json!({"name": "ping", "description": "", "parameters": {"type": "object", "properties": {}}}),
            ],
            true,
        );
        assert!(text(&ns).contains("\ntype ping = () => any;\n\n} // namespace functions"));
    }

    #[test]
    fn docstring_descriptions_lose_indentation_and_blank_lines() {
        let ns = render(
            &[
                json!({"name": "f", "description": "Do it.\n\n    Returns:\n        Nothing.\n    "}),
            ],
            false,
        );
        assert!(text(&ns).contains("// Do it.\n// Returns:\n// Nothing.\ntype f = () => any;"));
    }

    #[test]
    fn titles_defaults_and_nesting() {
        let ns = render(
            &[
                json!({"name": "f", "parameters": {"type": "object", "required": ["a"], "properties": {
                "a": {"title": "A", "type": "integer"},
                "b": {"type": "object", "properties": {"c": {"type": "boolean", "default": false}}},
                "d": {"type": "array", "items": {"type": "string"}, "default": "x"}}}}),
            ],
            true,
        );
        assert_eq!(
            text(&ns).split("type f = ").nth(1).unwrap(),
            "(_:{\n// A\n//\n// A\na: number,\nb?: {\n  c?: boolean, // default: false\n},\n\
             d?: string[], // default: \"x\"\n}) => any;\n\n} // namespace functions"
        );
    }

    #[test]
    fn refs_are_inlined_and_marked_approximate() {
        let ns = render(
            &[json!({"name": "f", "parameters": {"type": "object",
                "$defs": {"P": {"type": "object", "properties": {"x": {"type": "string"}}}},
                "properties": {"p": {"$ref": "#/$defs/P"}}, "required": ["p"]}})],
            false,
        );
        assert!(text(&ns).contains("p: {\n  x?: string,\n},\n"));
        assert!(ns.approximate);
    }

    #[test]
    fn a_self_referencing_schema_stops() {
        let ns = render(
            &[json!({"name": "f", "parameters": {"type": "object",
                "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}},
                "properties": {"n": {"$ref": "#/$defs/N"}}}})],
            false,
        );
        assert!(ns.approximate);
        assert!(text(&ns).contains("any"));
    }
}
