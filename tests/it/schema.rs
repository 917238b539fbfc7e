//! `schemas/scene.schema.json` against the loader: the keys of every object are the loader's own
//! key lists (`scene::keys`), the enums are the segments, adapters and engines of the code, every
//! fixture scene validates, and for hundreds of mutations of two complete scenes the schema and
//! the loader agree on what is a scene. A schema that drifts from the loader fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use prompt_inspector::check;
use prompt_inspector::inject;
use prompt_inspector::scene::{self, keys, Adapter, ChatConfig, DeskConfig};
use prompt_inspector::segments::{Family, SegmentKind};
use prompt_inspector::Engine;
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema_path() -> PathBuf {
    root().join("schemas/scene.schema.json")
}

fn schema_json() -> Value {
    let path = schema_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The compiled schema. Compiling also checks it against the draft 2020-12 meta-schema.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn new() -> Validator {
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let path = schema_path();
        let index = compiler
            .compile(&path.to_string_lossy(), &mut schemas)
            .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        Validator { schemas, index }
    }

    fn check(&self, scene: &Value) -> Result<(), String> {
        self.schemas
            .validate(scene, self.index)
            .map_err(|e| format!("{e:#}"))
    }
}

/// The schema object that describes a loader object (`""` is the scene document itself).
fn def<'a>(schema: &'a Value, name: &str) -> &'a Value {
    if name.is_empty() {
        schema
    } else {
        schema
            .pointer(&format!("/$defs/{name}"))
            .unwrap_or_else(|| panic!("the schema has no $defs/{name}"))
    }
}

fn property_names(obj: &Value) -> BTreeSet<String> {
    obj.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected an array, found {v}"))
        .iter()
        .map(|x| {
            x.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| panic!("{x}"))
        })
        .collect()
}

fn enum_at(schema: &Value, pointer: &str) -> Vec<String> {
    strings(
        schema
            .pointer(pointer)
            .unwrap_or_else(|| panic!("the schema has nothing at {pointer}")),
    )
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn every_closed_object_has_the_loaders_keys() {
    let schema = schema_json();
    for (name, loader_keys) in keys::OBJECTS {
        let obj = def(&schema, name);
        let want: BTreeSet<String> = loader_keys.iter().map(|k| (*k).to_owned()).collect();
        assert_eq!(
            property_names(obj),
            want,
            "$defs/{name}: the schema's properties differ from the keys the loader accepts"
        );
        assert_eq!(
            obj.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "$defs/{name}: the loader rejects unknown keys, so must the schema"
        );
    }
    // And the other way: every closed object of the schema is one the loader reads.
    let mut closed = vec![String::new()];
    for (name, d) in schema["$defs"].as_object().expect("$defs") {
        if d.get("additionalProperties") == Some(&Value::Bool(false)) {
            closed.push(name.clone());
        }
    }
    let known: Vec<String> = keys::OBJECTS.iter().map(|(n, _)| (*n).to_owned()).collect();
    for name in closed {
        assert!(
            known.contains(&name),
            "$defs/{name} is closed but the loader has no key list for it"
        );
    }
}

#[test]
fn the_context_and_the_open_maps_keep_any_key() {
    let schema = schema_json();
    let context = &schema["properties"]["context"];
    assert_eq!(context.get("additionalProperties"), None);
    assert_eq!(
        property_names(context),
        owned(&[
            "user_input",
            "conversation",
            "runtime_vars",
            "neural",
            "tools"
        ])
        .into_iter()
        .collect()
    );
    for pointer in [
        "/$defs/Template/properties/templates/additionalProperties",
        "/$defs/Run/properties/system_parts/additionalProperties",
    ] {
        assert_eq!(
            schema.pointer(pointer),
            Some(&json!({"type": "string"})),
            "{pointer}"
        );
    }
}

#[test]
fn enums_are_the_codes_segments_adapters_engines_and_kinds() {
    let schema = schema_json();
    let names = |f: Family| -> Vec<String> { f.segments().map(|s| s.name.to_owned()).collect() };
    assert_eq!(
        enum_at(&schema, "/$defs/ChatSegment/enum"),
        names(Family::Chat)
    );
    assert_eq!(
        enum_at(&schema, "/$defs/DeskSegment/enum"),
        names(Family::Desk)
    );
    let adapters: Vec<String> = Adapter::ALL.iter().map(|a| a.as_str().to_owned()).collect();
    assert_eq!(enum_at(&schema, "/$defs/Adapter/enum"), adapters);
    assert_eq!(
        schema.pointer("/$defs/DeskLlm/properties/adapter/default"),
        Some(&json!(DeskConfig::default().adapter.as_str()))
    );
    let engines: Vec<String> = Engine::ALL.iter().map(|e| e.as_str().to_owned()).collect();
    assert_eq!(enum_at(&schema, "/$defs/Engine/enum"), engines);
    for e in &engines {
        assert!(e.parse::<Engine>().is_ok(), "{e}");
    }
    assert!("jinja".parse::<Engine>().is_err());

    let roles = owned(keys::ROLES);
    assert_eq!(
        enum_at(&schema, "/$defs/Message/properties/role/enum"),
        roles
    );
    assert_eq!(
        enum_at(&schema, "/$defs/RunMessage/properties/role/enum"),
        roles
    );
    assert_eq!(
        enum_at(&schema, "/$defs/Part/properties/type/enum"),
        owned(keys::PART_TYPES)
    );
    assert_eq!(
        enum_at(&schema, "/$defs/Prompt/properties/kind/enum"),
        owned(keys::PROMPT_KINDS)
    );
    assert_eq!(
        enum_at(&schema, "/$defs/Returns/properties/returns/enum"),
        owned(keys::RETURNS_KINDS)
    );
    let sources: Vec<String> = schema["$defs"]["ImagePart"]["oneOf"]
        .as_array()
        .expect("ImagePart.oneOf")
        .iter()
        .flat_map(|alt| strings(&alt["required"]))
        .collect();
    assert_eq!(sources, owned(keys::IMAGE_SOURCES));
    assert_eq!(
        schema.pointer("/properties/format/const"),
        Some(&json!(scene::FORMAT))
    );
    assert_eq!(
        schema.get("$schema"),
        Some(&json!("https://json-schema.org/draft/2020-12/schema"))
    );
    assert!(schema.get("$id").and_then(Value::as_str).is_some());
}

#[test]
fn prompt_lists_follow_the_segment_table_in_order() {
    let schema = schema_json();
    let prompt_segments = |f: Family| -> Vec<String> {
        f.segments()
            .filter(|s| s.kind != SegmentKind::Messages)
            .map(|s| s.name.to_owned())
            .collect()
    };
    let listed = |name: &str| -> Vec<String> {
        schema["$defs"][name]["properties"]
            .as_object()
            .expect("properties")
            .iter()
            .filter(|(_, p)| p["items"] == json!({"$ref": "#/$defs/Prompt"}))
            .map(|(k, _)| k.clone())
            .collect()
    };
    assert_eq!(listed("ChatLlm"), prompt_segments(Family::Chat));
    assert_eq!(listed("ChatLlm"), owned(&ChatConfig::FIELDS));
    assert_eq!(listed("DeskLlm"), prompt_segments(Family::Desk));
    assert_eq!(listed("DeskLlm"), owned(&DeskConfig::FIELDS));
}

#[test]
fn every_property_and_definition_has_a_title_and_a_description() {
    // Editors show these on hover and in completion lists.
    fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    for (k, p) in props {
                        let has = |key: &str| p.get(key).and_then(Value::as_str).is_some();
                        // A bare `$ref` shows its definition's title and description.
                        let bare_ref =
                            p.as_object().is_some_and(|m| m.len() == 1) && p.get("$ref").is_some();
                        let described = has("title") && has("description");
                        if !bare_ref && !described {
                            missing.push(format!("{at}/properties/{k}"));
                        }
                    }
                }
                for (k, x) in o {
                    // Conditions (`if`, the image part's `oneOf`) only select a branch.
                    if k != "if" && k != "oneOf" {
                        walk(x, &format!("{at}/{k}"), missing);
                    }
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    let schema = schema_json();
    let mut missing = Vec::new();
    walk(&schema, "#", &mut missing);
    for (name, d) in schema["$defs"].as_object().expect("$defs") {
        for key in ["title", "description"] {
            if d.get(key).and_then(Value::as_str).is_none() {
                missing.push(format!("#/$defs/{name} ({key})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "without a title or description: {missing:#?}"
    );
}

fn fixture_scenes() -> Vec<PathBuf> {
    let scenes = check::discover(&[root().join("fixtures")]).expect("fixtures folder");
    assert!(
        scenes.len() >= 30,
        "found only {} fixture scenes",
        scenes.len()
    );
    assert!(scenes
        .iter()
        .any(|p| p.ends_with("fixtures/default.scene.json")));
    scenes
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_fixture_scene_validates() {
    let v = Validator::new();
    let mut failures = Vec::new();
    for path in fixture_scenes() {
        if let Err(e) = v.check(&read_json(&path)) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn malformed_scenes_fail_validation() {
    let v = Validator::new();
    let base = json!({
        "format": "prompt-inspector/scene@1",
        "tools": [{ "name": "t", "prompt_position": ["system_msg_prompt", null],
                    "format_2_prompt": { "returns": "none" } }]
    });
    assert_eq!(v.check(&base), Ok(()));
    let cases = [
        ("missing format", "/format", None),
        (
            "another format version",
            "/format",
            Some(json!("prompt-inspector/scene@2")),
        ),
        (
            "wrong adapter",
            "/desk_llm",
            Some(json!({ "adapter": "gpt_desk" })),
        ),
        (
            "wrong engine",
            "/chat_llm",
            Some(json!({ "system_msg_prompt": [
            { "kind": "normalize", "template": { "engine": "mustache", "templates": {} } } ] })),
        ),
        (
            "wrong returns kind",
            "/tools/0/format_2_prompt",
            Some(json!({ "returns": "bytes" })),
        ),
        ("wrong type: tools is an object", "/tools", Some(json!({}))),
        ("wrong type: a name is a number", "/name", Some(json!(7))),
        (
            "prompt_position of three",
            "/tools/0/prompt_position",
            Some(json!([null, null, null])),
        ),
        ("unknown top-level key", "/tool", Some(json!([]))),
        ("$schema is not a string", "/$schema", Some(json!(1))),
    ];
    for (what, pointer, value) in cases {
        let mut scene = base.clone();
        set(&mut scene, pointer, value);
        assert!(
            v.check(&scene).is_err(),
            "{what}: the schema accepts {scene}"
        );
        let text = scene.to_string();
        assert!(
            scene::load_str(&text).is_err(),
            "{what}: the loader accepts {text}"
        );
    }
}

/// Sets (or, with `None`, removes) the member at a JSON pointer whose parent exists.
fn set(doc: &mut Value, pointer: &str, value: Option<Value>) {
    let (parent, last) = pointer.rsplit_once('/').expect("a pointer");
    let last = last.replace("~1", "/").replace("~0", "~");
    let parent = doc
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("nothing at {parent}"));
    match (parent, value) {
        (Value::Object(o), Some(v)) => {
            o.insert(last, v);
        }
        (Value::Object(o), None) => {
            o.shift_remove(&last);
        }
        (Value::Array(a), Some(v)) => {
            let i: usize = last.parse().expect("an index");
            a[i] = v;
        }
        (Value::Array(a), None) => {
            let i: usize = last.parse().expect("an index");
            a.remove(i);
        }
        (other, _) => panic!("{pointer}: the parent is {other}"),
    }
}

/// A scene with every object the loader reads and every field of each.
const EVERYTHING: &str = r#"{
  "$schema": "../schemas/scene.schema.json",
  "format": "prompt-inspector/scene@1",
  "name": "everything",
  "description": "every field",
  "context": {
    "user_input": { "input": "hi", "additional_info": { "who": "Ada" } },
    "conversation": [ { "role": "user", "content": "earlier" } ],
    "runtime_vars": { "big": 123456789012345678901234567890, "huge": 1e400, "exact": 0.10000000000000000000001 },
    "neural": {},
    "custom": [1, 2, 3]
  },
  "intermediate_msgs": [
    { "role": "assistant", "content": "", "name": "bot",
      "tool_calls": [ { "id": "c1", "type": "function", "function": { "name": "ls", "arguments": "{}" } } ] },
    { "role": "tool", "tool_call_id": "c1", "content": [
      { "type": "text", "text": "a.txt" },
      { "type": "image", "url": "https://example.com/a.png", "mime_type": "image/png" },
      { "type": "image", "path": "a.png" },
      { "type": "image", "data_base64": "iVBORw0KGgo=" } ] }
  ],
  "chat_llm": {
    "system_msg_prompt": [ { "kind": "normalize", "template": { "engine": "fstring", "templates": { "default": "SYS {user_input[input]}", "zh": "系统" }, "active_language": "en" },
                             "attachments": [ { "type": "image", "path": "b.png" } ] } ],
    "before_input_msg_prompt": [ { "kind": "additional_info", "template": { "engine": "jinja2", "templates": { "default": "{{ who }}" } } } ],
    "reformat_input_prompt": [],
    "after_input_msg_prompt": [],
    "after_intermediate_msg_prompt": []
  },
  "desk_llm": {
    "adapter": "claude_desk",
    "model": "claude-x",
    "system_prompt": [ { "kind": "normalize", "template": { "engine": "fstring", "templates": { "default": "DESK" } } } ],
    "instruction_prompt": [],
    "original_desk_screenshot_prompt": [],
    "intermediate_prompt": [],
    "current_desk_screenshot_prompt": [],
    "purpose_prompt": [],
    "prefix_prompt": []
  },
  "tools": [
    { "name": "s", "description": "str", "prompt_position": ["system_msg_prompt", "system_prompt"], "state": { "n": 1 },
      "format_2_prompt": { "returns": "str", "source": { "engine": "fstring", "templates": { "default": "{state[n]}" } } } },
    { "name": "p", "prompt_position": [null, "current_desk_screenshot_prompt"],
      "format_2_prompt": { "returns": "prompt", "prompt": { "kind": "normalize", "template": { "engine": "jinja2", "templates": { "default": "now" } } } } },
    { "name": "n", "prompt_position": ["after_input_msg_prompt", null], "format_2_prompt": { "returns": "none" } },
    { "name": "r", "prompt_position": ["after_input_msg_prompt", null], "format_2_prompt": { "returns": "raise", "error": "boom" } },
    { "name": "i", "prompt_position": ["after_input_msg_prompt", null], "format_2_prompt": { "returns": "invalid", "value": [1] } },
    { "name": "u" }
  ],
  "run": {
    "initial_cwd": "/w",
    "system_parts": { "00_base": "You are an agent.", "10_tools": "" },
    "history": [ { "role": "system", "content": "old" }, { "role": "user", "content": "hello" } ],
    "user_message": "do it",
    "iterations": [
      { "assistant": { "role": "assistant", "content": "",
          "tool_calls": [ { "id": "a", "name": "cd", "arguments": { "dir": "x" } },
                          { "id": "b", "type": "function", "function": { "name": "ls", "arguments": "{}" } } ] },
        "tool_results": [ { "role": "tool", "tool_call_id": "a", "name": "cd", "content": "ok" } ],
        "cwd_after": "/w/x", "todo": "- [ ] rest" },
      { "assistant": { "role": "assistant", "content": "done" } }
    ]
  }
}"#;

/// The whole scenes shown in docs/scene-format.md: every ```json block that names the format.
fn docs_examples() -> Vec<String> {
    let path = root().join("docs/scene-format.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let blocks: Vec<String> = doc
        .split("```json\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("\n```").map(|(block, _)| block.to_owned()))
        .filter(|block| block.contains(r#""format": "prompt-inspector/scene@1""#))
        .collect();
    assert!(
        blocks.len() >= 3,
        "{}: expected the complete example, the run example and the $schema snippet",
        path.display()
    );
    blocks
}

/// The complete scenes every field of which the mutation test spoils.
fn complete_scenes() -> Vec<(String, String)> {
    let mut out = vec![("EVERYTHING".to_owned(), EVERYTHING.to_owned())];
    for (i, text) in docs_examples().into_iter().enumerate() {
        out.push((format!("docs/scene-format.md example {}", i + 1), text));
    }
    out
}

#[test]
fn the_complete_scenes_load_and_validate() {
    let v = Validator::new();
    for (what, text) in complete_scenes() {
        if let Err(e) = scene::load_str(&text) {
            panic!("{what} does not load: {e}\n{text}");
        }
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(v.check(&value), Ok(()), "{what}");
    }
}

/// Every way to spoil one member: gone, null, each JSON type, an unknown name, an extra key.
fn mutations(doc: &Value) -> Vec<(String, Value)> {
    fn pointers(v: &Value, at: String, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    let key = k.replace('~', "~0").replace('/', "~1");
                    let p = format!("{at}/{key}");
                    out.push((p.clone(), x.clone()));
                    // Free JSON is accepted whatever it holds: its inside needs no mutating.
                    if !["context", "state", "value", "arguments"].contains(&k.as_str()) {
                        pointers(x, p, out);
                    }
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    let p = format!("{at}/{i}");
                    out.push((p.clone(), x.clone()));
                    pointers(x, p, out);
                }
            }
            _ => {}
        }
    }
    let mut members = Vec::new();
    pointers(doc, String::new(), &mut members);
    let replacements = [
        json!(null),
        json!(12345),
        json!(1.5),
        json!(true),
        json!(""),
        json!("   "),
        json!("no_such_name"),
        json!([]),
        json!([null]),
        json!({}),
    ];
    let mut out = Vec::new();
    let mut push = |what: String, f: &dyn Fn(&mut Value)| {
        let mut m = doc.clone();
        f(&mut m);
        out.push((what, m));
    };
    for (p, original) in &members {
        push(format!("remove {p}"), &|m| set(m, p, None));
        for r in &replacements {
            push(format!("{p} = {r}"), &|m| set(m, p, Some(r.clone())));
        }
        if original.is_object() {
            push(format!("{p} + unknown key"), &|m| {
                set(m, &format!("{p}/zz_unknown"), Some(json!(1)))
            });
        }
    }
    push("root + unknown key".to_owned(), &|m| {
        set(m, "/zz_unknown", Some(json!(1)))
    });
    out
}

#[test]
fn the_schema_and_the_loader_agree_on_every_mutation() {
    let v = Validator::new();
    let mut disagreements = Vec::new();
    let mut total = 0;
    for (_, text) in complete_scenes() {
        let doc: Value = serde_json::from_str(&text).expect("the base scene");
        for (what, m) in mutations(&doc) {
            total += 1;
            let text = serde_json::to_string(&m).expect("serialises");
            let loader = scene::load_str(&text);
            let schema = v.check(&m);
            // The two checks on `recorded.usage` the schema cannot express (docs/scene-format.md,
            // "Usage"): the loader alone refuses figures that do not add up.
            let beyond_the_schema = loader.as_ref().err().is_some_and(|e| {
                e.path.starts_with("recorded.usage")
                    && (e
                        .message
                        .contains("is not uncached + cache_read + cache_write")
                        || e.message.contains("is more than output"))
            });
            if beyond_the_schema && schema.is_ok() {
                continue;
            }
            if loader.is_ok() != schema.is_ok() {
                disagreements.push(format!(
                    "{what}: loader {}, schema {}",
                    loader.map_or_else(|e| format!("rejects ({e})"), |_| "accepts".to_owned()),
                    schema.map_or_else(|e| format!("rejects ({e})"), |_| "accepts".to_owned()),
                ));
            }
        }
    }
    assert!(total > 1000, "only {total} mutations");
    assert!(
        disagreements.is_empty(),
        "{} of {total} mutations:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn dollar_schema_loads_and_renders_as_without() {
    let with = scene::load_str(EVERYTHING).unwrap_or_else(|e| panic!("{e}"));
    let mut doc: Value = serde_json::from_str(EVERYTHING).expect("json");
    set(&mut doc, "/$schema", None);
    let without_text = serde_json::to_string_pretty(&doc).expect("json");
    let without = scene::load_str(&without_text).unwrap_or_else(|e| panic!("{e}"));
    for family in [Family::Chat, Family::Desk] {
        let a = serde_json::to_string(&inject::render(&with, family)).expect("report");
        let b = serde_json::to_string(&inject::render(&without, family)).expect("report");
        assert_eq!(a, b, "{family}");
        assert!(
            !a.contains("$schema") && !a.contains("scene.schema.json"),
            "{a}"
        );
    }

    // A `$schema` that is not a string is a load error naming the field.
    let e = scene::load_str(r#"{ "format": "prompt-inspector/scene@1", "$schema": 3 }"#)
        .expect_err("a number is not a schema reference");
    assert_eq!((e.line, e.column, e.path.as_str()), (1, 52, "$schema"));
    assert_eq!(e.message, "expected a string, found an integer");
}

#[test]
fn dollar_schema_survives_the_apps_save_and_open() {
    use prompt_inspector::api;
    let dir = std::env::temp_dir().join(format!("pi-schema-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("x.scene.json").to_string_lossy().into_owned();
    api::save(&api::SaveRequest {
        path: path.clone(),
        text: EVERYTHING.to_owned(),
        recording: false,
    })
    .unwrap_or_else(|e| panic!("save refused a scene with $schema: {e:?}"));
    let opened = api::open(&api::PathRequest { path: path.clone() })
        .unwrap_or_else(|e| panic!("open refused a scene with $schema: {e:?}"));
    assert_eq!(opened.text, EVERYTHING);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_fixture_that_names_the_schema_points_at_it() {
    // Editors resolve `$schema` relative to the scene file: it must reach the schema.
    let mut named = 0;
    for path in fixture_scenes() {
        if let Some(rel) = read_json(&path).get("$schema").and_then(Value::as_str) {
            named += 1;
            let target = path.parent().expect("a folder").join(rel);
            assert_eq!(
                std::fs::canonicalize(&target).ok(),
                std::fs::canonicalize(schema_path()).ok(),
                "{}: $schema {rel:?} does not reach schemas/scene.schema.json",
                path.display()
            );
        }
    }
    assert!(named >= 1, "no fixture names the schema");
}
