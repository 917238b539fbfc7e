//! TFRobot's test tables: one test per row of the BaseTool unit table and of the LLM injection
//! integration table, each named after its row.

use std::sync::Arc;

use prompt_inspector::inject::{
    self, format_2_prompt, validate, wrap_str, Normalized, Report, Source, Status,
};
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::scene::{Prompt, Tool};
use prompt_inspector::segments::Family;
use prompt_inspector::{Value, Vars};

use crate::support::{capture_errors, scene_with_tools, str_tool};

fn tool(json: &str) -> Tool {
    scene_with_tools(&format!("[{json}]")).tools.remove(0)
}

fn status(r: &Report, name: &str) -> Status {
    match r.tools.iter().find(|t| t.name == name) {
        Some(t) => t.status,
        None => panic!("no tool {name} in the report"),
    }
}

fn segment<'r>(r: &'r Report, name: &str) -> &'r prompt_inspector::inject::SegmentOut {
    match r.segments.iter().find(|s| s.name == name) {
        Some(s) => s,
        None => panic!("no segment {name}"),
    }
}

fn ctx() -> Arc<Vars> {
    Arc::new(Vars::new(
        Value::from_json_str(r#"{"user_input": {"input": "hi"}}"#).expect("json"),
    ))
}

fn err_of(json: &str) -> validate::Invalid {
    validate::validate(&tool(json)).expect_err("should be invalid")
}

// ---- BaseTool unit table -------------------------------------------------------------------------

#[test]
fn r8_1_default_subclass_without_position_or_override_imports_ok() {
    assert_eq!(validate::validate(&tool(r#"{ "name": "plain" }"#)), Ok(()));
    let r = inject::render(&scene_with_tools(r#"[{ "name": "plain" }]"#), Family::Chat);
    assert_eq!(status(&r, "plain"), Status::Undeclared);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn r8_1_override_without_position_raises_type_error() {
    let e = err_of(r#"{ "name": "t", "format_2_prompt": { "returns": "none" } }"#);
    assert_eq!(e.exception, "TypeError");
    assert_eq!(e.reason.code(), "override_without_position");
}

#[test]
fn r8_1_wrong_chat_position_raises_value_error() {
    let e = err_of(
        r#"{ "name": "t", "prompt_position": ["WRONG", "system_prompt"], "format_2_prompt": { "returns": "none" } }"#,
    );
    assert_eq!(e.exception, "ValueError");
    assert_eq!(e.reason.code(), "unknown");
    assert!(
        e.message.contains("prompt_position[0]=\"WRONG\""),
        "{}",
        e.message
    );
}

#[test]
fn r8_1_purpose_prompt_raises_value_error_iron_rule_1() {
    let e = err_of(
        r#"{ "name": "t", "prompt_position": ["system_msg_prompt", "purpose_prompt"], "format_2_prompt": { "returns": "none" } }"#,
    );
    assert_eq!(
        (e.exception, e.reason.code()),
        ("ValueError", "iron_rule_1")
    );
}

#[test]
fn r8_1_original_desk_screenshot_raises_value_error_iron_rule_2() {
    let e = err_of(
        r#"{ "name": "t", "prompt_position": ["system_msg_prompt", "original_desk_screenshot_prompt"], "format_2_prompt": { "returns": "none" } }"#,
    );
    assert_eq!(
        (e.exception, e.reason.code()),
        ("ValueError", "iron_rule_2")
    );
}

#[test]
fn r8_1_none_none_raises_value_error() {
    let e = err_of(
        r#"{ "name": "t", "prompt_position": [null, null], "format_2_prompt": { "returns": "none" } }"#,
    );
    assert_eq!(
        (e.exception, e.reason.code()),
        ("ValueError", "both_sides_null")
    );
}

#[test]
fn r8_1_chat_only_position_injects_in_chat_and_desk_never_calls_format_2_prompt() {
    // The tool raises when asked: a call under DeskLLM would show as an error.
    let t = r#"[{ "name": "memo", "prompt_position": ["system_msg_prompt", null], "format_2_prompt": { "returns": "raise", "error": "asked" } }]"#;
    let scene = scene_with_tools(t);
    let (desk, logged) = capture_errors(|| inject::render(&scene, Family::Desk));
    assert_eq!(status(&desk, "memo"), Status::Silent);
    assert!(desk.diagnostics.is_empty() && logged.is_empty());
    let chat = inject::render(&scene, Family::Chat);
    assert_eq!(
        status(&chat, "memo"),
        Status::Error,
        "chat does ask the tool"
    );
    let ok = scene_with_tools(&format!(
        "[{}]",
        str_tool("memo", "system_msg_prompt", "null", "note")
    ));
    assert_eq!(
        segment(&inject::render(&ok, Family::Chat), "system_msg_prompt").text,
        "SYS\nnote"
    );
}

#[test]
fn r8_1_desk_only_position_injects_in_desk_and_chat_never_calls_format_2_prompt() {
    let t = r#"[{ "name": "win", "prompt_position": [null, "system_prompt"], "format_2_prompt": { "returns": "raise", "error": "asked" } }]"#;
    let scene = scene_with_tools(t);
    let (chat, logged) = capture_errors(|| inject::render(&scene, Family::Chat));
    assert_eq!(status(&chat, "win"), Status::Silent);
    assert!(chat.diagnostics.is_empty() && logged.is_empty());
    let ok = scene_with_tools(&format!(
        "[{}]",
        str_tool("win", "null", "system_prompt", "window")
    ));
    assert_eq!(
        segment(&inject::render(&ok, Family::Desk), "system_prompt").text,
        "DESK-SYS\nwindow"
    );
}

#[test]
fn r8_1_position_without_override_raises_type_error() {
    let e = err_of(r#"{ "name": "t", "prompt_position": ["system_msg_prompt", "system_prompt"] }"#);
    assert_eq!(
        (e.exception, e.reason.code()),
        ("TypeError", "position_without_override")
    );
}

#[test]
fn r8_1_default_format_2_prompt_returns_none() {
    assert_eq!(
        format_2_prompt(&tool(r#"{ "name": "plain" }"#), &ctx()),
        Normalized::Empty
    );
}

#[test]
fn r8_1_str_hello_becomes_normalize_prompt_with_default_fstring_template() {
    let t = tool(&str_tool(
        "t",
        "system_msg_prompt",
        "system_prompt",
        "hello",
    ));
    let Normalized::Prompt(Prompt::Normalize {
        template,
        attachments,
    }) = format_2_prompt(&t, &ctx())
    else {
        panic!("expected a NormalizePrompt")
    };
    assert_eq!(template.engine, prompt_inspector::Engine::Fstring);
    assert_eq!(
        template.templates.get("default").map(String::as_str),
        Some("hello")
    );
    assert_eq!(template.templates.len(), 1);
    assert!(attachments.is_empty());
}

#[test]
fn r8_1_literal_braces_are_escaped_and_render_unchanged() {
    let t = tool(&str_tool(
        "t",
        "system_msg_prompt",
        "system_prompt",
        "代码 {x: 1}",
    ));
    let Normalized::Prompt(p) = format_2_prompt(&t, &ctx()) else {
        panic!("expected a prompt")
    };
    assert_eq!(p, wrap_str("代码 {x: 1}"));
    assert_eq!(p.template().templates["default"], "代码 {{x: 1}}");
    let rendered = inject::RenderVars::new(ctx().value().clone()).render_prompt(&p);
    assert_eq!(rendered, Ok("代码 {x: 1}".to_owned()));
}

#[test]
fn r8_1_empty_str_returns_none() {
    let t = tool(&str_tool("t", "system_msg_prompt", "system_prompt", ""));
    assert_eq!(format_2_prompt(&t, &ctx()), Normalized::Empty);
}

#[test]
fn r8_1_none_passes_through_as_none() {
    let t = tool(
        r#"{ "name": "t", "prompt_position": ["system_msg_prompt", null], "format_2_prompt": { "returns": "none" } }"#,
    );
    assert_eq!(format_2_prompt(&t, &ctx()), Normalized::Empty);
}

#[test]
fn r8_1_base_prompt_passes_through_unchanged() {
    let t = tool(
        r#"{ "name": "t", "prompt_position": ["system_msg_prompt", null], "format_2_prompt": { "returns": "prompt",
             "prompt": { "kind": "normalize", "template": { "engine": "jinja2", "templates": { "en": "{{ x }}", "zh": "{{ y }}" }, "active_language": "zh" } } } }"#,
    );
    let Some(prompt_inspector::scene::Returns::Prompt(original)) = &t.format_2_prompt else {
        panic!("prompt")
    };
    assert_eq!(
        format_2_prompt(&t, &ctx()),
        Normalized::Prompt(original.clone())
    );
}

#[test]
fn r8_1_raising_tool_degrades_to_none_with_error_log() {
    let scene = scene_with_tools(
        r#"[{ "name": "boom", "prompt_position": ["system_msg_prompt", null], "format_2_prompt": { "returns": "raise", "error": "KeyError: 'notes'" } }]"#,
    );
    let (r, logged) = capture_errors(|| inject::render(&scene, Family::Chat));
    assert_eq!(status(&r, "boom"), Status::Error);
    assert_eq!(segment(&r, "system_msg_prompt").text, "SYS");
    assert_eq!(
        logged,
        ["Tool boom format_2_prompt failed, falling back to None: KeyError: 'notes'"]
    );
    let d = &r.diagnostics[0];
    assert_eq!(
        (d.code, d.tool.as_deref()),
        (DiagnosticCode::ToolRaised, Some("boom"))
    );
    assert_eq!(d.level, inject::Level::Error);
}

#[test]
fn r8_1_invalid_return_type_raises_protocol_error() {
    let t = tool(
        r#"{ "name": "t", "prompt_position": ["system_msg_prompt", null], "format_2_prompt": { "returns": "invalid", "value": {"a": 1} } }"#,
    );
    assert_eq!(
        format_2_prompt(&t, &ctx()),
        Normalized::ProtocolError(
            "Tool t._format_2_prompt() must return str | BasePrompt | None, got dict".to_owned()
        )
    );
    let r = inject::render(
        &scene_with_tools(&format!(
            "[{}]",
            r#"{ "name": "t", "prompt_position": ["system_msg_prompt", null], "format_2_prompt": { "returns": "invalid", "value": "text" } }"#
        )),
        Family::Chat,
    );
    assert_eq!(
        status(&r, "t"),
        Status::ProtocolError,
        "an invalid return is a protocol error whatever the value"
    );
    assert_eq!(r.diagnostics[0].code, DiagnosticCode::ToolFormat2Prompt);
}

// ---- LLM injection integration table ---------------------------------------------------------------

#[test]
fn r8_2_single_tool_chat_and_single_tool_desk_inject_at_their_positions() {
    let scene = scene_with_tools(&format!(
        "[{}]",
        str_tool("notes", "system_msg_prompt", "instruction_prompt", "N")
    ));
    let chat = inject::render(&scene, Family::Chat);
    assert_eq!(segment(&chat, "system_msg_prompt").text, "SYS\nN");
    let desk = inject::render(&scene, Family::Desk);
    assert_eq!(segment(&desk, "instruction_prompt").text, "N");
    assert_eq!(segment(&desk, "system_prompt").text, "DESK-SYS");
    let piece = &segment(&desk, "instruction_prompt").pieces[0];
    assert_eq!(
        (piece.source, piece.tool.as_deref()),
        (Source::Tool, Some("notes"))
    );
}

#[test]
fn r8_2_none_return_keeps_segment_prompts_unchanged() {
    let none = r#"[{ "name": "t", "prompt_position": ["system_msg_prompt", "system_prompt"], "format_2_prompt": { "returns": "none" } }]"#;
    let with_tool = inject::render(&scene_with_tools(none), Family::Chat);
    let without = inject::render(&scene_with_tools("[]"), Family::Chat);
    assert_eq!(with_tool.segments, without.segments);
    assert_eq!(with_tool.messages, without.messages);
    assert_eq!(status(&with_tool, "t"), Status::Empty);
}

#[test]
fn r8_2_several_tools_in_one_position_merge_in_tools_order() {
    let tools = [
        str_tool("zeta", "system_msg_prompt", "system_prompt", "Z"),
        str_tool("alpha", "system_msg_prompt", "system_prompt", "A"),
        str_tool("mid", "system_msg_prompt", "system_prompt", "M"),
    ];
    let r = inject::render(
        &scene_with_tools(&format!("[{}]", tools.join(","))),
        Family::Chat,
    );
    let seg = segment(&r, "system_msg_prompt");
    assert_eq!(seg.text, "SYS\nZ\nA\nM");
    let sources: Vec<_> = seg
        .pieces
        .iter()
        .map(|p| p.tool.as_deref().unwrap_or("config"))
        .collect();
    assert_eq!(sources, ["config", "zeta", "alpha", "mid"]);
    assert_eq!(seg.pieces[3].range, [8, 9]);
}

#[test]
fn r8_2_tool_not_in_active_tools_is_never_called() {
    // The context's tool view (PromptTool) lists `spy`, but the call's tools do not: the
    // injector reads only the tools argument (the collector's design), so `spy` is never asked.
    let mut scene = scene_with_tools(&format!(
        "[{}, {}]",
        r#"{ "name": "spy", "prompt_position": ["system_msg_prompt", "system_prompt"], "format_2_prompt": { "returns": "raise", "error": "called" } }"#,
        str_tool("active", "system_msg_prompt", "system_prompt", "A")
    ));
    scene.tools.retain(|t| t.name != "spy");
    let (r, logged) = capture_errors(|| inject::render(&scene, Family::Chat));
    assert!(logged.is_empty());
    assert!(r.tools.iter().all(|t| t.name != "spy"));
    assert_eq!(segment(&r, "system_msg_prompt").text, "SYS\nA");
}

#[test]
fn r8_2_raising_tool_is_skipped_and_others_still_inject() {
    let scene = scene_with_tools(&format!(
        "[{}, {}, {}]",
        str_tool("before", "system_msg_prompt", "system_prompt", "B"),
        r#"{ "name": "boom", "prompt_position": ["system_msg_prompt", "system_prompt"], "format_2_prompt": { "returns": "raise", "error": "x" } }"#,
        str_tool("after", "system_msg_prompt", "system_prompt", "C")
    ));
    let (r, _) = capture_errors(|| inject::render(&scene, Family::Desk));
    assert_eq!(segment(&r, "system_prompt").text, "DESK-SYS\nB\nC");
    assert_eq!(
        r.tools.iter().map(|t| t.status).collect::<Vec<_>>(),
        [Status::Injected, Status::Error, Status::Injected]
    );
}

#[test]
fn r8_2_system_and_after_input_tools_land_in_their_own_segments() {
    let scene = scene_with_tools(&format!(
        "[{}, {}]",
        str_tool("s", "system_msg_prompt", "system_prompt", "S-TOOL"),
        str_tool(
            "a",
            "after_input_msg_prompt",
            "intermediate_prompt",
            "A-TOOL"
        )
    ));
    let r = inject::render(&scene, Family::Chat);
    assert_eq!(segment(&r, "system_msg_prompt").text, "SYS\nS-TOOL");
    assert_eq!(segment(&r, "after_input_msg_prompt").text, "AFTER\nA-TOOL");
    let roles: Vec<_> = r
        .messages
        .iter()
        .flatten()
        .map(|m| (m.role, m.segment.unwrap_or("")))
        .collect();
    assert_eq!(
        roles,
        [
            ("system", "system_msg_prompt"),
            ("user", "reformat_input_prompt"),
            ("system", "after_input_msg_prompt")
        ]
    );
    assert_eq!(r.metrics.positions.get("system_msg_prompt"), Some(&1));
    assert_eq!(r.metrics.positions.get("after_input_msg_prompt"), Some(&1));
}

#[test]
fn r8_2_configured_prompt_lists_unchanged_after_rendering() {
    let scene = scene_with_tools(&format!(
        "[{}, {}]",
        str_tool("s", "system_msg_prompt", "system_prompt", "S"),
        str_tool(
            "p",
            "after_input_msg_prompt",
            "current_desk_screenshot_prompt",
            "P"
        )
    ));
    let before = scene.clone();
    for family in [Family::Chat, Family::Desk] {
        let _ = inject::render(&scene, family);
        let _ = inject::render(&scene, family);
    }
    assert_eq!(scene, before);
    assert_eq!(scene.chat_llm.system_msg_prompt.len(), 1);
    assert_eq!(scene.desk_llm.purpose_prompt.len(), 1);
}

#[test]
fn r8_2_base_prompt_with_multimodal_attachments_is_collected() {
    let scene = scene_with_tools(
        r#"[{ "name": "shot", "prompt_position": ["system_msg_prompt", "current_desk_screenshot_prompt"], "format_2_prompt": { "returns": "prompt",
             "prompt": { "kind": "normalize", "template": { "engine": "fstring", "templates": { "default": "See the screenshot." } },
                         "attachments": [ { "type": "image", "path": "shot.png", "mime_type": "image/png" } ] } } }]"#,
    );
    for (family, seg) in [
        (Family::Chat, "system_msg_prompt"),
        (Family::Desk, "current_desk_screenshot_prompt"),
    ] {
        let r = inject::render(&scene, family);
        let s = segment(&r, seg);
        let piece = s.pieces.last().expect("tool piece");
        assert_eq!(
            &*piece.text, "See the screenshot.",
            "attachments never change the text"
        );
        assert_eq!(
            serde_json::to_string(&piece.attachments).expect("json"),
            r#"[{"type":"image","path":"shot.png","mime_type":"image/png"}]"#
        );
    }
}
