//! A JSON Schema validator for exactly the keywords of `conformance/providers/*.schema.json`
//! (written by `conformance/gen_provider_specs.py`), used by `provider_specs`.
//!
//! It panics on a keyword it does not implement, both when a schema is loaded (every subschema
//! is walked) and when one is met while validating, so a constraint it cannot check can never
//! let a body pass silently. Teach it a keyword together with the script.

use serde_json::{Map, Value as Json};

/// Keywords that constrain an instance, all implemented below.
const KEYWORDS: [&str; 18] = [
    "$ref",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "allOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "maxProperties",
    "pattern",
    "propertyNames",
];

/// Keywords of the document root that constrain nothing.
const ROOT_ANNOTATIONS: [&str; 4] = ["$schema", "$comment", "x-source", "$defs"];

/// A loaded schema document: a root with `$defs`, refs of the form `#/$defs/<name>`.
pub struct Schema {
    root: Json,
    defs: Map<String, Json>,
}

impl Schema {
    pub fn from_json(root: Json) -> Schema {
        let defs = root
            .get("$defs")
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_default();
        let schema = Schema { root, defs };
        for (name, def) in &schema.defs {
            walk(def, &format!("#/$defs/{name}"));
        }
        let mut root_only = schema.root.clone();
        if let Json::Object(map) = &mut root_only {
            for key in ROOT_ANNOTATIONS {
                map.remove(key);
            }
        }
        walk(&root_only, "#");
        schema
    }

    /// The errors of `instance` against the schema, each with the instance path; none if valid.
    pub fn errors(&self, instance: &Json) -> Vec<String> {
        let mut out = Vec::new();
        self.check(instance, &self.root, "", 0, &mut out, true);
        out
    }

    /// The errors of `instance` against one definition (`$defs/<name>`), paths from there.
    pub fn errors_against(&self, name: &str, instance: &Json) -> Vec<String> {
        let mut out = Vec::new();
        let def = self.def(&format!("#/$defs/{name}"));
        self.check(instance, def, "", 0, &mut out, false);
        out
    }

    fn def(&self, reference: &str) -> &Json {
        let name = reference
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("unimplemented $ref form {reference:?}"));
        self.defs
            .get(name)
            .unwrap_or_else(|| panic!("$ref {reference:?} names no definition"))
    }

    fn check(
        &self,
        inst: &Json,
        schema: &Json,
        at: &str,
        depth: usize,
        out: &mut Vec<String>,
        root: bool,
    ) {
        assert!(depth < 256, "{at}: $ref recursion without progress");
        let map = match schema {
            Json::Bool(true) => return,
            Json::Bool(false) => return out.push(format!("{at}: not allowed here")),
            Json::Object(map) => map,
            other => panic!("{at}: a schema must be an object or a boolean, not {other}"),
        };
        for (key, value) in map {
            match key.as_str() {
                "$ref" => {
                    let target = self.def(value.as_str().expect("$ref is a string"));
                    self.check(inst, target, at, depth + 1, out, false);
                }
                "type" => {
                    let names: Vec<&str> = match value {
                        Json::String(s) => vec![s.as_str()],
                        Json::Array(a) => a.iter().map(|t| t.as_str().expect("type")).collect(),
                        other => panic!("{at}: type {other}"),
                    };
                    if !names.iter().any(|t| is_type(inst, t)) {
                        out.push(format!("{at}: not of type {}", names.join(" or ")));
                    }
                }
                "properties" => {
                    if let Json::Object(obj) = inst {
                        for (name, sub) in value.as_object().expect("properties") {
                            if let Some(v) = obj.get(name) {
                                self.check(v, sub, &format!("{at}/{name}"), depth, out, false);
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    if let Json::Object(obj) = inst {
                        let declared = map.get("properties").and_then(Json::as_object);
                        for (name, v) in obj {
                            if !declared.is_some_and(|d| d.contains_key(name)) {
                                let sub = format!("{at}/{name}");
                                self.check(v, value, &sub, depth, out, false);
                            }
                        }
                    }
                }
                "required" => {
                    if let Json::Object(obj) = inst {
                        for name in value.as_array().expect("required") {
                            let name = name.as_str().expect("required names");
                            if !obj.contains_key(name) {
                                out.push(format!("{at}: missing required {name:?}"));
                            }
                        }
                    }
                }
                "items" => {
                    if let Json::Array(items) = inst {
                        for (i, v) in items.iter().enumerate() {
                            self.check(v, value, &format!("{at}/{i}"), depth, out, false);
                        }
                    }
                }
                "enum" => {
                    let options = value.as_array().expect("enum");
                    if !options.contains(inst) {
                        out.push(format!("{at}: {} is not one of {value}", short(inst)));
                    }
                }
                "anyOf" => {
                    let mut failures = Vec::new();
                    for branch in value.as_array().expect("anyOf") {
                        let mut errs = Vec::new();
                        self.check(inst, branch, at, depth + 1, &mut errs, false);
                        if errs.is_empty() {
                            failures.clear();
                            break;
                        }
                        failures.push(errs);
                    }
                    if !failures.is_empty() {
                        // The branch that got deepest into the instance says most about what
                        // is wrong (the others usually fail on a `type` tag at the top).
                        let reach = |e: &Vec<String>| {
                            e.iter()
                                .map(|m| m.split(": ").next().unwrap_or("").len())
                                .max()
                                .unwrap_or(0)
                        };
                        let best = failures
                            .iter()
                            .max_by_key(|e| reach(e))
                            .map(|e| e.join("; "))
                            .unwrap_or_default();
                        out.push(format!("{at}: fits no branch of anyOf (closest: {best})"));
                    }
                }
                "allOf" => {
                    for branch in value.as_array().expect("allOf") {
                        self.check(inst, branch, at, depth + 1, out, false);
                    }
                }
                "minimum" | "maximum" => {
                    if let (Some(n), Some(bound)) = (number(inst), value.as_f64()) {
                        let ok = if key == "minimum" {
                            n >= bound
                        } else {
                            n <= bound
                        };
                        if !ok {
                            out.push(format!("{at}: {n} is outside {key} {bound}"));
                        }
                    }
                }
                "minItems" | "maxItems" => {
                    if let Json::Array(items) = inst {
                        let bound = count(value);
                        let ok = if key == "minItems" {
                            items.len() >= bound
                        } else {
                            items.len() <= bound
                        };
                        if !ok {
                            out.push(format!("{at}: {} items, {key} is {bound}", items.len()));
                        }
                    }
                }
                "minLength" | "maxLength" => {
                    if let Json::String(s) = inst {
                        let (len, bound) = (s.chars().count(), count(value));
                        let ok = if key == "minLength" {
                            len >= bound
                        } else {
                            len <= bound
                        };
                        if !ok {
                            out.push(format!("{at}: {len} characters, {key} is {bound}"));
                        }
                    }
                }
                "maxProperties" => {
                    if let Json::Object(obj) = inst {
                        if obj.len() > count(value) {
                            out.push(format!("{at}: more than {value} properties"));
                        }
                    }
                }
                "pattern" => {
                    if let Json::String(s) = inst {
                        let source = value.as_str().expect("pattern");
                        let re = regex::Regex::new(source)
                            .unwrap_or_else(|e| panic!("{at}: pattern {source:?}: {e}"));
                        if !re.is_match(s) {
                            out.push(format!("{at}: {} does not match {source:?}", short(inst)));
                        }
                    }
                }
                "propertyNames" => {
                    if let Json::Object(obj) = inst {
                        for name in obj.keys() {
                            let name_json = Json::String(name.clone());
                            let sub = format!("{at}/{name} (name)");
                            self.check(&name_json, value, &sub, depth, out, false);
                        }
                    }
                }
                k if root && ROOT_ANNOTATIONS.contains(&k) => {}
                k => panic!("{at}: unimplemented JSON Schema keyword {k:?}"),
            }
        }
    }
}

/// Panics on any keyword of `schema` (and of its subschemas) the validator does not implement.
fn walk(schema: &Json, at: &str) {
    let map = match schema {
        Json::Bool(_) => return,
        Json::Object(map) => map,
        other => panic!("{at}: a schema must be an object or a boolean, not {other}"),
    };
    for (key, value) in map {
        assert!(
            KEYWORDS.contains(&key.as_str()),
            "{at}: unimplemented JSON Schema keyword {key:?}"
        );
        match key.as_str() {
            "properties" => {
                for (name, sub) in value.as_object().expect("properties") {
                    walk(sub, &format!("{at}/properties/{name}"));
                }
            }
            "anyOf" | "allOf" => {
                for (i, sub) in value.as_array().expect("a list").iter().enumerate() {
                    walk(sub, &format!("{at}/{key}/{i}"));
                }
            }
            "items" | "additionalProperties" | "propertyNames" => {
                walk(value, &format!("{at}/{key}"))
            }
            _ => {}
        }
    }
}

fn is_type(inst: &Json, name: &str) -> bool {
    match name {
        "object" => inst.is_object(),
        "array" => inst.is_array(),
        "string" => inst.is_string(),
        "boolean" => inst.is_boolean(),
        "null" => inst.is_null(),
        "number" => inst.is_number(),
        // JSON Schema counts 2.0 as an integer: a number with no fractional part.
        "integer" => match inst {
            Json::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        other => panic!("unimplemented type name {other:?}"),
    }
}

fn number(inst: &Json) -> Option<f64> {
    inst.as_f64()
}

fn count(value: &Json) -> usize {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or_else(|| panic!("a count must be a non-negative integer, not {value}"))
}

/// An instance for a message: strings cut to 60 characters (base64 images are long).
fn short(inst: &Json) -> String {
    let text = inst.to_string();
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(defs: Json) -> Schema {
        Schema::from_json(json!({"$ref": "#/$defs/A", "$defs": defs}))
    }

    #[test]
    fn each_keyword_refuses_what_it_should() {
        let s = schema(json!({"A": {
            "type": "object",
            "required": ["n"],
            "additionalProperties": false,
            "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 3},
                "s": {"type": "string", "minLength": 1, "maxLength": 2, "pattern": "^[a-z]+$"},
                "e": {"enum": ["x", null]},
                "l": {"type": "array", "minItems": 1, "maxItems": 1, "items": {"$ref": "#/$defs/B"}},
                "o": {"type": "object", "maxProperties": 1, "propertyNames": {"maxLength": 1}},
                "u": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "b": false
            },
            "allOf": [{"properties": {"n": {"type": "number"}}}]
        }, "B": {"type": ["boolean", "null"]}}));
        assert_eq!(
            s.errors(
                &json!({"n": 2.0, "s": "ab", "e": null, "l": [true], "o": {"k": 1}, "u": "x"})
            ),
            Vec::<String>::new()
        );
        let cases = [
            (json!({}), ": missing required \"n\""),
            (json!({"n": 1, "z": 0}), "/z: not allowed here"),
            (json!({"n": 1.5}), "/n: not of type integer"),
            (json!({"n": 4}), "/n: 4 is outside maximum 3"),
            (json!({"n": 0}), "/n: 0 is outside minimum 1"),
            (json!({"n": 1, "s": ""}), "/s: 0 characters, minLength is 1"),
            (
                json!({"n": 1, "s": "abc"}),
                "/s: 3 characters, maxLength is 2",
            ),
            (json!({"n": 1, "s": "A"}), "/s: \"A\" does not match"),
            (json!({"n": 1, "e": "y"}), "/e: \"y\" is not one of"),
            (json!({"n": 1, "l": []}), "/l: 0 items, minItems is 1"),
            (json!({"n": 1, "l": [1, 2]}), "/l: 2 items, maxItems is 1"),
            (
                json!({"n": 1, "l": [1]}),
                "/l/0: not of type boolean or null",
            ),
            (
                json!({"n": 1, "o": {"a": 1, "b": 2}}),
                "/o: more than 1 properties",
            ),
            (
                json!({"n": 1, "o": {"ab": 1}}),
                "/o/ab (name): 2 characters",
            ),
            (json!({"n": 1, "u": 1}), "/u: fits no branch of anyOf"),
            (json!({"n": 1, "b": 1}), "/b: not allowed here"),
            (json!({"n": "1"}), "/n: not of type number"),
        ];
        for (inst, expected) in cases {
            let errs = s.errors(&inst);
            assert!(
                errs.iter().any(|e| e.starts_with(expected)),
                "{inst}: expected {expected:?}, got {errs:?}"
            );
        }
    }

    #[test]
    #[should_panic(expected = "unimplemented JSON Schema keyword \"const\"")]
    fn an_unknown_keyword_panics_when_loaded() {
        schema(json!({"A": {"anyOf": [{"properties": {"x": {"const": 1}}}]}}));
    }

    #[test]
    #[should_panic(expected = "unimplemented JSON Schema keyword \"format\"")]
    fn an_unknown_keyword_panics_while_validating() {
        // Built by hand so the load-time walk is bypassed, as a schema built in a test might be.
        let s = Schema {
            root: json!({"format": "uri"}),
            defs: Map::new(),
        };
        let _ = s.errors(&json!("x"));
    }
}
