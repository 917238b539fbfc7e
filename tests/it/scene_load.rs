//! Loading scenes: every malformed input is rejected with file, line, column, field path and what
//! was expected, and nothing is half-loaded.

use prompt_inspector::scene::{self, load_str, SceneError};

fn err(text: &str) -> SceneError {
    match load_str(text) {
        Ok(_) => panic!("should not load:\n{text}"),
        Err(e) => e,
    }
}

fn at(e: &SceneError) -> (usize, usize, &str) {
    (e.line, e.column, e.path.as_str())
}

const HEAD: &str = r#"{ "format": "prompt-inspector/scene@1""#;

#[test]
fn bad_json_names_line_and_column() {
    let e = err("{\n  \"format\": \"prompt-inspector/scene@1\",\n  \"tools\": [1,]\n}");
    // At the comma, named as what it is.
    assert_eq!(at(&e), (3, 14, ""));
    let message = "invalid JSON: trailing comma before ']': JSON allows no comma after the last item of an array";
    assert_eq!(e.message, message);
    assert_eq!(e.to_string(), format!("<scene>:3:14: {message}"));
}

#[test]
fn unknown_or_missing_format_is_rejected() {
    let e = err(r#"{ "format": "prompt-inspector/scene@2" }"#);
    assert_eq!(at(&e), (1, 13, "format"));
    assert!(
        e.message
            .contains("unsupported scene format \"prompt-inspector/scene@2\""),
        "{}",
        e.message
    );
    let e = err(r#"{ "name": "x" }"#);
    assert_eq!(e.message, "missing field \"format\"");
}

#[test]
fn unknown_fields_name_the_alternatives() {
    let e = err(&format!("{HEAD},\n \"tool\": [] }}"));
    assert_eq!(at(&e), (2, 2, "tool"));
    assert!(
        e.message
            .starts_with("unknown field \"tool\", expected one of: format, name"),
        "{}",
        e.message
    );
}

#[test]
fn unknown_adapter_and_engine_are_rejected_with_their_path() {
    let e = err(&format!(
        r#"{HEAD}, "desk_llm": {{ "adapter": "gpt_desk" }} }}"#
    ));
    assert_eq!(e.path, "desk_llm.adapter");
    assert!(
        e.message
            .contains("expected one of: openai_desk, claude_desk"),
        "{}",
        e.message
    );
    let e = err(&format!(
        r#"{HEAD}, "chat_llm": {{ "system_msg_prompt": [ {{ "kind": "normalize", "template": {{ "engine": "mustache", "templates": {{}} }} }} ] }} }}"#
    ));
    assert_eq!(e.path, "chat_llm.system_msg_prompt[0].template.engine");
    assert!(e.message.contains("unknown template engine \"mustache\""));
}

#[test]
fn wrong_types_say_what_was_expected() {
    let e = err(&format!(
        r#"{HEAD}, "tools": [ {{ "name": "t", "prompt_position": ["system_msg_prompt", 3] }} ] }}"#
    ));
    assert_eq!(e.path, "tools[0].prompt_position[1]");
    assert_eq!(
        e.message,
        "expected a segment name or null, found an integer"
    );
    let e = err(&format!(
        r#"{HEAD}, "tools": [ {{ "name": "t", "prompt_position": ["system_msg_prompt"] }} ] }}"#
    ));
    assert_eq!(
        e.message,
        "expected a pair [chat position or null, desk position or null], found 1 items"
    );
    let e = err(&format!(r#"{HEAD}, "context": [] }}"#));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("context", "expected an object, found an array")
    );
    let e = err(&format!(
        r#"{HEAD}, "intermediate_msgs": [ {{ "role": "robot", "content": "x" }} ] }}"#
    ));
    assert_eq!(e.path, "intermediate_msgs[0].role");
}

#[test]
fn returns_and_prompt_kinds_are_checked() {
    let e = err(&format!(
        r#"{HEAD}, "tools": [ {{ "name": "t", "format_2_prompt": {{ "returns": "bytes" }} }} ] }}"#
    ));
    assert_eq!(e.path, "tools[0].format_2_prompt.returns");
    assert!(e
        .message
        .contains("expected one of: str, prompt, none, raise, invalid"));
    let e = err(&format!(
        r#"{HEAD}, "tools": [ {{ "name": "t", "format_2_prompt": {{ "returns": "str" }} }} ] }}"#
    ));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("tools[0].format_2_prompt", "missing field \"source\"")
    );
    let e = err(&format!(r#"{HEAD}, "tools": [ {{ "name": "" }} ] }}"#));
    assert_eq!(e.message, "a tool name must not be empty");
}

#[test]
fn duplicate_fields_are_rejected_but_context_keys_follow_python() {
    let e = err(&format!(r#"{HEAD}, "name": "a", "name": "b" }}"#));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("name", "duplicate field \"name\"")
    );
    let s = load_str(&format!(
        r#"{HEAD}, "context": {{ "b": 1, "a": 2, "b": 3 }} }}"#
    ))
    .expect("loads");
    assert_eq!(
        s.context,
        prompt_inspector::Value::from_json_str(r#"{"b": 3, "a": 2}"#).expect("json")
    );
}

#[test]
fn files_name_themselves_in_errors() {
    let dir = std::env::temp_dir().join(format!("pi-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let p = dir.join("bad.scene.json");
    std::fs::write(
        &p,
        b"{\"format\": \"prompt-inspector/scene@1\", \"name\": \"\xff\"}",
    )
    .expect("write");
    let e = scene::load_file(&p).expect_err("invalid UTF-8");
    assert!(
        e.to_string()
            .contains("bad.scene.json:1:49: the file is not valid UTF-8"),
        "{e}"
    );
    let missing = scene::load_file(&dir.join("nope.scene.json")).expect_err("missing");
    assert!(
        missing.to_string().contains("nope.scene.json: "),
        "{missing}"
    );
}

#[test]
fn hostile_inputs_fail_cleanly() {
    for text in [
        "",
        "[",
        "{\"format\"",
        &"[".repeat(10_000),
        "\u{feff}{}",
        "null",
        "{\"format\": \"prompt-inspector/scene@1\", \"tools\": {}}",
    ] {
        let e = err(text);
        assert!(e.line >= 1, "{text:?} → {e}");
    }
}

#[test]
fn tool_parameters_are_a_schema_object_kept_as_written() {
    let e = err(&format!(
        "{HEAD},\n \"tools\": [{{\"name\": \"t\", \"parameters\": [\"q\"]}}] }}"
    ));
    assert_eq!(at(&e), (2, 40, "tools[0].parameters"));
    assert!(e.message.contains("a JSON Schema object"), "{}", e.message);
    let scene = load_str(&format!(
        r#"{HEAD}, "tools": [{{"name": "t", "parameters": {{"type": "object", "properties": {{"z": {{}}, "a": {{"maximum": 12345678901234567890123}}}}}}}}, {{"name": "u", "parameters": null}}] }}"#
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let written = serde_json::to_string(&scene.tools[0].parameters).unwrap_or_default();
    assert_eq!(
        written,
        r#"{"type":"object","properties":{"z":{},"a":{"maximum":12345678901234567890123}}}"#
    );
    assert!(scene.tools[1].parameters.is_none(), "null reads as absent");
}
