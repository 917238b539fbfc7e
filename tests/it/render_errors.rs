//! A template that fails to render says where (locale, line, column, byte range) and, for a name
//! it did not find, what exists in its own syntax: in the diagnostic's own fields, the message
//! kept as it was (docs/diagnostics.md, "Where a template failed"). Expected positions are
//! counted by hand from the template texts below.

use prompt_inspector::inject;
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::scene;
use prompt_inspector::segments::Family;

const SCENE: &str = r#"{
  "format": "prompt-inspector/scene@1",
  "name": "render-errors",
  "context": { "user_input": { "input": "hello", "additional_info": { "deadline": "Friday" } }, "project": "Q3" },
  "chat_llm": {
    "system_msg_prompt": [
      { "kind": "normalize", "template": { "engine": "jinja2", "templates": { "default": "Plan\n{{ user_inptu.input }}" } } },
      { "kind": "additional_info", "template": { "engine": "fstring", "templates": { "default": "Due {dedline}" } } }
    ]
  },
  "tools": [
    { "name": "notes", "prompt_position": ["after_input_msg_prompt", null],
      "format_2_prompt": { "returns": "str", "source": { "engine": "fstring",
        "templates": { "default": "Notes\nYou: {ctx[user_input][inptu]!r:>9}", "zh": "笔记\n你：{user_input[input]}" }, "active_language": "zh" } } },
    { "name": "raising", "prompt_position": ["after_input_msg_prompt", null],
      "format_2_prompt": { "returns": "raise", "error": "KeyError: 'x'" } }
  ]
}"#;

fn report() -> inject::Report {
    let s = scene::load_str(SCENE).expect("loads");
    inject::render(&s, Family::Chat)
}

fn find<'r>(r: &'r inject::Report, code: DiagnosticCode, who: &str) -> &'r inject::Diagnostic {
    r.diagnostics
        .iter()
        .find(|d| {
            d.code == code
                && (d.tool.as_deref() == Some(who)
                    || d.prompt.map(|p| p.to_string()).as_deref() == Some(who))
        })
        .unwrap_or_else(|| panic!("no {code:?} for {who}: {:#?}", r.diagnostics))
}

#[test]
fn an_fstring_key_error_in_a_tool_source_says_where_and_what_exists() {
    let r = report();
    let d = find(&r, DiagnosticCode::ToolRaised, "notes");
    // zh renders (active_language): "笔记\n你：{user_input[input]}". Line 2; "你：" is two
    // characters, so the field is at column 3; bytes: 笔记 6 + \n 1 + 你： 6 = 13, and the field
    // `{user_input[input]}` is 19 bytes long.
    assert_eq!(
        d.message,
        "Tool notes format_2_prompt failed, falling back to None: [zh] KeyError: 'user_input' (line 2, column 3)"
    );
    assert_eq!(d.locale.as_deref(), Some("zh"));
    assert_eq!(
        (d.line, d.column, d.range),
        (Some(2), Some(3), Some([13, 32]))
    );
    // A tool's source reads `state` and `ctx`: the context's key is under `ctx`.
    assert_eq!(d.suggestions, ["ctx[user_input][input]"]);
}

#[test]
fn a_jinja2_undefined_error_in_a_configured_prompt_says_where_in_jinja_syntax() {
    let r = report();
    let d = find(&r, DiagnosticCode::PromptRenderFailed, "0");
    // "Plan\n{{ user_inptu.input }}": the path `user_inptu.input` is bytes 8 to 24 ("Plan\n{{ "
    // is 8 bytes), line 2, column 4.
    assert_eq!(d.locale.as_deref(), Some("default"));
    assert_eq!(
        (d.line, d.column, d.range),
        (Some(2), Some(4), Some([8, 24])),
        "{d:?}"
    );
    assert!(d.message.contains("UndefinedError"), "{}", d.message);
    // A normalize prompt reads the context's keys themselves.
    assert_eq!(d.suggestions, ["user_input.input"]);
}

#[test]
fn an_additional_info_prompt_suggests_its_own_keys() {
    let r = report();
    let d = find(&r, DiagnosticCode::PromptRenderFailed, "1");
    // "Due {dedline}": the field at column 5, bytes 4..13.
    assert_eq!(
        (d.line, d.column, d.range),
        (Some(1), Some(5), Some([4, 13]))
    );
    assert_eq!(d.suggestions, ["deadline"]);
}

#[test]
fn a_raising_tool_has_no_position() {
    let r = report();
    let d = find(&r, DiagnosticCode::ToolRaised, "raising");
    assert_eq!(
        (d.line, d.column, d.range, d.locale.as_deref()),
        (None, None, None, None)
    );
    assert!(d.suggestions.is_empty());
}

#[test]
fn the_new_fields_are_added_to_the_json_and_left_out_when_unknown() {
    let r = report();
    let json = serde_json::to_value(find(&r, DiagnosticCode::ToolRaised, "notes")).expect("json");
    assert_eq!(json["range"], serde_json::json!([13, 32]));
    assert_eq!(json["column"], 3);
    assert_eq!(json["locale"], "zh");
    assert_eq!(
        json["suggestions"],
        serde_json::json!(["ctx[user_input][input]"])
    );
    let raised =
        serde_json::to_value(find(&r, DiagnosticCode::ToolRaised, "raising")).expect("json");
    let keys: Vec<&str> = raised
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["level", "code", "message", "tool"]);
}

#[test]
fn the_command_line_says_what_exists_under_the_finding() {
    let dir = crate::support::tempdir("render_errors", "cli");
    let path = dir.join("errors.scene.json");
    std::fs::write(&path, SCENE).expect("write");
    let out = crate::support::run(&["render", &path.to_string_lossy(), "--llm", "chat"]);
    let text = String::from_utf8_lossy(&out.stdout);
    // Under each finding with suggestions, in the template's own syntax.
    assert!(
        text.contains("did you mean `ctx[user_input][input]`?"),
        "{text}"
    );
    assert!(text.contains("did you mean `user_input.input`?"), "{text}");
    assert!(text.contains("did you mean `deadline`?"), "{text}");
}
