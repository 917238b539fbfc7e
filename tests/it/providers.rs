//! Provider request bodies (docs/providers.md): the 8 desk adapters and the two chat providers on
//! the fixtures in `fixtures/providers/`, image problems as diagnostics, the scene's `model`.
//!
//! The chat request goldens (`chat.<provider>.request.json`) are checked here; rewrite them with
//! `PROMPT_INSPECTOR_BLESS=1 cargo test providers` and review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

use prompt_inspector::inject::{self, Options, Report};
use prompt_inspector::provider::{self, ChatProvider, MAX_IMAGE_BYTES};
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::scene::{self, Adapter};
use prompt_inspector::segments::Family;
use serde_json::Value as Json;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/providers")
}

fn render(file: &str, family: Family, chat_provider: Option<ChatProvider>) -> Report {
    let path = dir().join(file);
    let scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    // The bodies' own diagnostics only: the cache-safety lint has tests/it/lint.rs.
    let options = Options {
        base_dir: Some(dir()),
        chat_provider,
        skip_lint: true,
        ..Default::default()
    };
    inject::render_with(&scene, family, &options)
}

fn desk(adapter: Adapter) -> (Json, Vec<&'static str>) {
    let file = format!("{}.scene.json", adapter.as_str().replace('_', "-"));
    let r = render(&file, Family::Desk, None);
    let codes = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    (r.request.expect("a desk report has a request"), codes)
}

fn b64(file: &str) -> String {
    use base64::Engine as _;
    let bytes = std::fs::read(dir().join(file)).expect("fixture image");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Every fixture sends these texts, in this order, in the user turn.
const USER_TEXTS: [&str; 5] = [
    "The desk when the task started:",
    "Actions so far: click(40, 12); click(52, 80)",
    "The desk now:\nFocused window: Excel (cursor zoom attached)",
    "Task: Export the report as PDF",
    "Next action:",
];

const SYSTEM: &str =
    "You operate a desktop computer. Answer with exactly one action.\nNote: the user prefers keyboard shortcuts.";
const INSTRUCTION: &str = "Example: to open a menu, answer click(x, y) with the menu's centre.";

fn texts_of(parts: &Json, key: &str) -> Vec<String> {
    parts
        .as_array()
        .expect("parts")
        .iter()
        .filter_map(|p| p[key].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn openai_desk_is_a_responses_body() {
    let (r, codes) = desk(Adapter::OpenaiDesk);
    assert_eq!(r["model"], "gpt-4.1");
    assert_eq!(r["instructions"], format!("{SYSTEM}\n\n{INSTRUCTION}"));
    let input = r["input"].as_array().expect("input items");
    assert_eq!(input.len(), 1);
    assert_eq!(input[0]["role"], "user");
    let content = &input[0]["content"];
    let types: Vec<_> = content
        .as_array()
        .expect("content")
        .iter()
        .map(|p| p["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        types,
        [
            "input_text",
            "input_image",
            "input_text",
            "input_image",
            "input_text",
            "input_image",
            "input_image",
            "input_text",
            "input_text"
        ]
    );
    assert_eq!(texts_of(content, "text"), USER_TEXTS);
    assert_eq!(
        content[1]["image_url"],
        format!("data:image/jpeg;base64,{}", b64("start.jpg"))
    );
    assert_eq!(
        content[3]["image_url"],
        "https://example.com/desk/step-2.png"
    );
    assert_eq!(
        content[5]["image_url"],
        format!("data:image/png;base64,{}", b64("screen.png"))
    );
    assert!(codes.is_empty(), "{codes:?}");
}

#[test]
fn claude_desk_has_system_blocks_and_base64_image_blocks() {
    let (r, codes) = desk(Adapter::ClaudeDesk);
    assert_eq!(r["model"], "claude-sonnet-4-5");
    assert!(r["max_tokens"].as_u64().is_some_and(|n| n > 0));
    let system = r["system"].as_array().expect("system is a list of blocks");
    assert_eq!(system.len(), 2);
    assert!(system.iter().all(|b| b["type"] == "text"));
    assert_eq!(texts_of(&r["system"], "text"), [SYSTEM, INSTRUCTION]);
    // Only the last block is the cache breakpoint.
    assert!(system[0].get("cache_control").is_none());
    assert_eq!(system[1]["cache_control"]["type"], "ephemeral");
    let messages = r["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    let content = &messages[0]["content"];
    assert_eq!(texts_of(content, "text"), USER_TEXTS);
    let images: Vec<&Json> = content
        .as_array()
        .expect("blocks")
        .iter()
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(images.len(), 4);
    assert_eq!(images[0]["source"]["type"], "base64");
    assert_eq!(images[0]["source"]["media_type"], "image/jpeg");
    assert_eq!(images[0]["source"]["data"], b64("start.jpg"));
    assert_eq!(images[1]["source"]["type"], "url");
    assert_eq!(images[2]["source"]["media_type"], "image/png");
    assert_eq!(images[2]["source"]["data"], b64("screen.png"));
    assert!(codes.is_empty(), "{codes:?}");
}

#[test]
fn gemini_desk_has_system_instruction_and_user_parts() {
    let (r, codes) = desk(Adapter::GeminiDesk);
    // The model is in Gemini's URL, not the body.
    assert!(r.get("model").is_none());
    assert_eq!(
        texts_of(&r["systemInstruction"]["parts"], "text"),
        [SYSTEM, INSTRUCTION]
    );
    let contents = r["contents"].as_array().expect("contents");
    assert!(contents
        .iter()
        .all(|c| c["role"] == "user" || c["role"] == "model"));
    let parts = &contents[0]["parts"];
    assert_eq!(texts_of(parts, "text"), USER_TEXTS);
    let inline: Vec<&Json> = parts
        .as_array()
        .expect("parts")
        .iter()
        .filter_map(|p| p.get("inlineData"))
        .collect();
    assert_eq!(inline.len(), 3);
    assert_eq!(inline[0]["mimeType"], "image/jpeg");
    assert_eq!(inline[0]["data"], b64("start.jpg"));
    assert_eq!(parts[3]["fileData"]["mimeType"], "image/png");
    assert_eq!(
        parts[3]["fileData"]["fileUri"],
        "https://example.com/desk/step-2.png"
    );
    assert!(codes.is_empty(), "{codes:?}");
}

#[test]
fn text_only_adapters_drop_the_screenshots_and_say_so() {
    // DeepSeek's own default takes images; provider_limits has it with a text-only model.
    let (r, codes) = desk(Adapter::TencentDsDesk);
    assert_eq!(r["model"], "deepseek-r1-0528");
    let m = r["messages"].as_array().expect("messages");
    assert_eq!(m.len(), 2);
    assert_eq!(m[0]["role"], "system");
    assert_eq!(m[0]["content"], format!("{SYSTEM}\n\n{INSTRUCTION}"));
    assert_eq!(m[1]["role"], "user");
    assert_eq!(m[1]["content"], USER_TEXTS.join("\n\n"));
    assert!(!r.to_string().contains("base64"), "sends an image");
    assert_eq!(codes, ["image_dropped"; 4]);
    let (r, codes) = desk(Adapter::OpenaiGenDesk);
    assert_eq!(r["model"], "gpt-5.4-mini");
    let prompt = r["prompt"].as_str().expect("one prompt string");
    assert!(prompt.starts_with(SYSTEM));
    assert!(
        prompt.ends_with("\n\nNext action:"),
        "prefix_prompt ends it"
    );
    // The legacy completions API has no tools: the three definitions are left out, once.
    assert!(r.get("tools").is_none());
    assert_eq!(
        codes,
        [
            "image_dropped",
            "image_dropped",
            "image_dropped",
            "image_dropped",
            "tool_definitions_dropped"
        ]
    );
}

/// The names of the tools a body defines, in its API's shape.
fn defined_tools(body: &serde_json::Value) -> Vec<String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let names = tools.iter().flat_map(|t| {
        if let Some(decls) = t["functionDeclarations"].as_array() {
            decls.iter().map(|d| d["name"].clone()).collect::<Vec<_>>()
        } else if t["function"].is_object() {
            vec![t["function"]["name"].clone()]
        } else {
            vec![t["name"].clone()]
        }
    });
    names
        .map(|n| n.as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn every_body_that_takes_tools_defines_the_scenes_tools_with_their_schemas() {
    let expected = ["window_list", "tf_notes", "web_search"];
    for adapter in Adapter::ALL {
        if adapter == Adapter::OpenaiGenDesk {
            continue;
        }
        let (r, _) = desk(adapter);
        assert_eq!(defined_tools(&r), expected, "{adapter:?}");
        // The schema travels as written, whatever the shape calls it.
        let text = r["tools"].to_string();
        assert!(
            text.contains(r#""freshness":{"type":"string","enum":["day","week","month","any"],"default":"any"}"#),
            "{adapter:?}: {text}"
        );
    }
}

#[test]
fn ollama_takes_base64_images_beside_the_text_but_no_urls() {
    let (r, codes) = desk(Adapter::OllamaDesk);
    assert_eq!(r["model"], "qwen2.5vl:7b", "the scene's model wins");
    assert_eq!(r["stream"], false);
    let user = &r["messages"][1];
    assert_eq!(user["role"], "user");
    assert_eq!(user["content"], USER_TEXTS.join("\n\n"));
    let images = user["images"].as_array().expect("images");
    assert_eq!(images[0], b64("start.jpg"));
    assert_eq!(images.len(), 3);
    assert_eq!(codes, ["image_url_unsupported"]);
}

#[test]
fn sglang_is_chat_completions_with_image_url_parts() {
    let (r, codes) = desk(Adapter::SglangDesk);
    assert_eq!(r["messages"][0]["role"], "system");
    let content = &r["messages"][1]["content"];
    assert_eq!(texts_of(content, "text"), USER_TEXTS);
    assert_eq!(
        content[1]["image_url"]["url"],
        format!("data:image/jpeg;base64,{}", b64("start.jpg"))
    );
    assert!(codes.is_empty(), "{codes:?}");
}

#[test]
fn every_adapter_has_a_fixture_and_a_default_model() {
    for a in Adapter::ALL {
        let (r, _) = desk(a);
        assert!(r.is_object(), "{a:?}");
        assert!(!provider::default_model(a).is_empty());
    }
}

/// Compares (or, with PROMPT_INSPECTOR_BLESS=1, writes) a request golden.
fn golden(name: &str, request: &Json) {
    let path = dir().join(name);
    let mut now = serde_json::to_string_pretty(request).expect("json");
    now.push('\n');
    if std::env::var_os("PROMPT_INSPECTOR_BLESS").is_some() {
        std::fs::write(&path, &now).expect("write golden");
        return;
    }
    let before = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (bless with PROMPT_INSPECTOR_BLESS=1)",
            path.display()
        )
    });
    assert!(
        before == now,
        "{}",
        prompt_inspector::check::unified_diff(&before, &now, &path.display().to_string())
    );
}

#[test]
fn chat_requests_match_their_goldens() {
    for p in ChatProvider::ALL {
        let r = render("chat.scene.json", Family::Chat, Some(p));
        let request = r.request.expect("asked for");
        golden(&format!("chat.{}.request.json", p.as_str()), &request);
    }
    assert!(render("chat.scene.json", Family::Chat, None)
        .request
        .is_none());
}

#[test]
fn openai_chat_keeps_roles_and_converts_tool_calls() {
    let r = render("chat.scene.json", Family::Chat, Some(ChatProvider::Openai));
    let req = r.request.expect("request");
    let m = req["messages"].as_array().expect("messages");
    let roles: Vec<_> = m.iter().map(|x| x["role"].as_str().unwrap_or("")).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "system"
        ]
    );
    // The reformatted input carries its prompt's attachment as an image_url part.
    assert_eq!(m[4]["content"][1]["type"], "image_url");
    // Both recorded tool-call shapes become OpenAI's, arguments as JSON text.
    assert_eq!(m[5]["content"], Json::Null);
    assert_eq!(
        m[5]["tool_calls"][0]["function"]["arguments"],
        r#"{"region":"full"}"#
    );
    assert_eq!(m[7]["tool_calls"][0]["type"], "function");
    // A tool message takes no image in chat completions: dropped, with the reason.
    assert_eq!(m[6]["content"], "Captured the full screen.");
    let codes: Vec<_> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["image_dropped"]);
}

#[test]
fn anthropic_chat_alternates_roles_and_caches_the_system_prompt() {
    let r = render(
        "chat.scene.json",
        Family::Chat,
        Some(ChatProvider::Anthropic),
    );
    let req = r.request.expect("request");
    let system = req["system"].as_array().expect("system blocks");
    assert_eq!(system.len(), 1);
    assert_eq!(system[0]["type"], "text");
    assert_eq!(
        system[0]["cache_control"],
        serde_json::json!({"type": "ephemeral"})
    );
    let m = req["messages"].as_array().expect("messages");
    for pair in m.windows(2) {
        assert_ne!(pair[0]["role"], pair[1]["role"], "roles alternate");
    }
    assert!(m
        .iter()
        .all(|x| x["role"] == "user" || x["role"] == "assistant"));
    assert_eq!(m[3]["content"][0]["type"], "tool_use");
    assert_eq!(m[3]["content"][0]["input"]["region"], "full");
    let result = &m[4]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "call_1");
    assert_eq!(result["content"][1]["source"]["media_type"], "image/jpeg");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

fn temp_scene(tag: &str, attachments: &str) -> (PathBuf, scene::Scene) {
    let d = std::env::temp_dir().join(format!("pi-providers-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    let text = format!(
        r#"{{ "format": "prompt-inspector/scene@1", "desk_llm": {{ "adapter": "claude_desk",
  "current_desk_screenshot_prompt": [ {{ "kind": "normalize",
    "template": {{ "engine": "fstring", "templates": {{ "default": "now" }} }},
    "attachments": {attachments} }} ] }} }}"#
    );
    let scene = scene::load_str(&text).unwrap_or_else(|e| panic!("{e}"));
    (d, scene)
}

fn desk_in(d: &Path, scene: &scene::Scene) -> Report {
    let options = Options {
        base_dir: Some(d.to_path_buf()),
        ..Default::default()
    };
    inject::render_with(scene, Family::Desk, &options)
}

#[test]
fn unreadable_oversized_and_unknown_images_are_diagnostics() {
    let (d, scene) = temp_scene(
        "bad",
        r#"[ {"type": "image", "path": "missing.png"}, {"type": "image", "path": "huge.png"},
            {"type": "image", "path": "notes.txt"}, {"type": "image", "path": "ok.png"} ]"#,
    );
    // A sparse file: its size is over the limit without writing 20 MiB.
    let huge = std::fs::File::create(d.join("huge.png")).expect("create");
    huge.set_len(MAX_IMAGE_BYTES + 1).expect("set_len");
    std::fs::write(d.join("notes.txt"), "not an image").expect("write");
    std::fs::copy(dir().join("screen.png"), d.join("ok.png")).expect("copy");
    let r = desk_in(&d, &scene);
    let codes: Vec<_> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        ["image_unreadable", "image_too_large", "image_type_unknown"]
    );
    assert!(r
        .diagnostics
        .iter()
        .all(|x| x.segment == Some("current_desk_screenshot_prompt")));
    // The good image still goes out.
    let content = &r.request.expect("request")["messages"][0]["content"];
    assert_eq!(content.as_array().map(Vec::len), Some(2));
    assert_eq!(content[1]["source"]["data"], b64("screen.png"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn images_on_the_system_side_are_dropped_with_the_reason() {
    let text = r#"{ "format": "prompt-inspector/scene@1", "desk_llm": { "adapter": "openai_desk",
      "system_prompt": [ { "kind": "normalize",
        "template": { "engine": "fstring", "templates": { "default": "sys" } },
        "attachments": [ { "type": "image", "url": "https://x.test/a.png" } ] } ] } }"#;
    let scene = scene::load_str(text).unwrap_or_else(|e| panic!("{e}"));
    let r = inject::render(&scene, Family::Desk);
    let codes: Vec<_> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    // The user turn is empty too: the Responses API takes that, and the report says so.
    assert_eq!(codes, ["image_dropped", "request_without_messages"]);
    assert!(r.diagnostics[0].message.contains("text only"));
    let req = r.request.expect("request");
    assert_eq!(req["instructions"], "sys");
    assert_eq!(req["input"], serde_json::json!([]));
}

#[test]
fn the_model_field_is_strict() {
    let scene_with = |model: &str| {
        scene::load_str(&format!(
            r#"{{ "format": "prompt-inspector/scene@1",
  "desk_llm": {{ "adapter": "deepseek_desk", "model": {model} }} }}"#
        ))
    };
    let s = scene_with(r#""deepseek-reasoner""#).expect("loads");
    assert_eq!(s.desk_llm.model.as_deref(), Some("deepseek-reasoner"));
    let r = inject::render(&s, Family::Desk);
    assert_eq!(r.request.expect("request")["model"], "deepseek-reasoner");
    let e = scene_with("42")
        .expect_err("a number is no model")
        .to_string();
    assert!(e.contains("desk_llm.model") && e.contains(":2:"), "{e}");
    let e = scene_with(r#""  ""#).expect_err("blank").to_string();
    assert!(e.contains("must not be empty"), "{e}");
}

#[test]
fn cli_shows_the_request_and_refuses_provider_for_desk() {
    let scene = dir().join("chat.scene.json").display().to_string();
    let bin = env!("CARGO_BIN_EXE_prompt-inspector");
    let o = Command::new(bin)
        .args([
            "render",
            &scene,
            "--provider",
            "anthropic",
            "--format",
            "text",
            "--color",
            "never",
        ])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Request body:"), "{text}");
    assert!(text.contains("\"cache_control\""), "{text}");
    let o = Command::new(bin)
        .args(["render", &scene, "--llm", "desk", "--provider", "openai"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn anthropic_gets_no_blank_text_blocks_and_tool_use_ids_it_takes_paired_with_their_results() {
    let text = r#"{ "format": "prompt-inspector/scene@1", "context": {
      "user_input": { "input": "next" },
      "conversation": [
        { "role": "user", "content": "   \n\t" },
        { "role": "assistant", "content": " ", "tool_calls": [ { "id": "call:1/a", "name": "ls", "arguments": "{}" } ] },
        { "role": "tool", "tool_call_id": "call:1/a", "content": "a.txt" },
        { "role": "assistant", "content": "", "tool_calls": [ { "id": "call_2", "name": "ls", "arguments": "{}" } ] },
        { "role": "tool", "tool_call_id": "call_2", "content": "b.txt" } ] } }"#;
    let scene = scene::load_str(text).unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        chat_provider: Some(ChatProvider::Anthropic),
        ..Default::default()
    };
    let r = inject::render_with(&scene, Family::Chat, &options);
    let body = r.request.expect("request");
    let all = body.to_string();
    assert!(
        !all.contains(r#""text":"   \n\t""#) && !all.contains(r#""text":" ""#),
        "{all}"
    );
    let blocks: Vec<&Json> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .collect();
    let uses: Vec<&str> = blocks
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .filter_map(|b| b["id"].as_str())
        .collect();
    let results: Vec<&str> = blocks
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .filter_map(|b| b["tool_use_id"].as_str())
        .collect();
    assert_eq!(uses, ["call_3a1_2fa", "call_2"]);
    assert_eq!(results, uses, "each result still names its call");
    let mapped: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::ToolCallIdMapped)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(mapped.len(), 2, "{mapped:?}");
    assert!(mapped[0].contains(r#""call:1/a""#), "{mapped:?}");
}

#[test]
fn responses_images_say_their_detail_and_completions_ask_for_more_than_16_tokens() {
    let (r, _) = desk(Adapter::OpenaiDesk);
    let images: Vec<&Json> = r["input"][0]["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|p| p["type"] == "input_image")
        .collect();
    assert!(!images.is_empty());
    assert!(images.iter().all(|p| p["detail"] == "auto"));
    let (r, _) = desk(Adapter::OpenaiGenDesk);
    assert_eq!(r["max_tokens"], 1024);
}
