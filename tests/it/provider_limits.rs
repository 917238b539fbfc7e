//! What the providers' limits do to request bodies (docs/providers.md): a request with no
//! messages, a model that takes one image or none, images over a provider's size limits.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use prompt_inspector::inject::{self, Options, Report};
use prompt_inspector::scene::{self, Adapter, Scene};
use prompt_inspector::segments::Family;
use serde_json::{json, Value as Json};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/providers")
}

fn render_in(scene: &Scene, dir: &Path) -> Report {
    // The bodies' own diagnostics only: the cache-safety lint has tests/it/lint.rs.
    let options = Options {
        base_dir: Some(dir.to_path_buf()),
        skip_lint: true,
        ..Default::default()
    };
    inject::render_with(scene, Family::Desk, &options)
}

fn codes(r: &Report) -> Vec<&'static str> {
    r.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn scene_of(adapter: Adapter, system: Option<&str>) -> Scene {
    let system = system.map_or(String::new(), |t| {
        format!(
            r#", "system_prompt": [ {{ "kind": "normalize", "template": {{ "engine": "fstring", "templates": {{ "default": {t:?} }} }} }} ]"#
        )
    });
    let text = format!(
        r#"{{ "format": "prompt-inspector/scene@1", "desk_llm": {{ "adapter": "{}"{system} }} }}"#,
        adapter.as_str()
    );
    scene::load_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_desk_with_nothing_in_it_sends_what_each_api_requires_and_says_so() {
    let empty_user = json!([{"role": "user", "content": ""}]);
    let placeholder = json!([{"role": "user", "content": [{"type": "text", "text": "."}]}]);
    for adapter in Adapter::ALL {
        let r = inject::render(&scene_of(adapter, None), Family::Desk);
        assert_eq!(codes(&r), ["request_without_messages"], "{adapter:?}");
        let message = &r.diagnostics[0].message;
        assert!(message.starts_with(adapter.as_str()), "{message}");
        let body = r.request.clone().expect("request");
        match adapter {
            Adapter::OpenaiDesk => {
                assert_eq!(body["input"], json!([]));
                assert!(message.contains("`input: []`"), "{message}");
            }
            Adapter::ClaudeDesk => {
                assert_eq!(body["messages"], placeholder);
                assert!(body.get("system").is_none());
            }
            Adapter::GeminiDesk => {
                assert_eq!(
                    body["contents"],
                    json!([{"role": "user", "parts": [{"text": "."}]}])
                );
            }
            Adapter::OpenaiGenDesk => assert_eq!(body["prompt"], ""),
            _ => assert_eq!(body["messages"], empty_user, "{adapter:?}"),
        }
    }
}

#[test]
fn instructions_alone_are_a_request_for_chat_completions_but_not_for_anthropic_or_gemini() {
    for adapter in Adapter::ALL {
        let r = inject::render(&scene_of(adapter, Some("Act.")), Family::Desk);
        let body = r.request.clone().expect("request");
        let needs_a_turn = matches!(
            adapter,
            Adapter::OpenaiDesk | Adapter::ClaudeDesk | Adapter::GeminiDesk
        );
        let expected: &[&str] = if needs_a_turn {
            &["request_without_messages"]
        } else {
            &[]
        };
        assert_eq!(codes(&r), expected, "{adapter:?}");
        match adapter {
            Adapter::ClaudeDesk => {
                assert_eq!(body["system"][0]["text"], "Act.");
                assert_eq!(body["messages"][0]["content"][0]["text"], ".");
            }
            Adapter::GeminiDesk => {
                assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Act.");
                assert_eq!(body["contents"][0]["parts"][0]["text"], ".");
            }
            Adapter::OpenaiDesk => {
                assert_eq!(body["instructions"], "Act.");
                assert_eq!(body["input"], json!([]));
            }
            Adapter::OpenaiGenDesk => assert_eq!(body["prompt"], "Act."),
            _ => assert_eq!(
                body["messages"],
                json!([{"role": "system", "content": "Act."}]),
                "{adapter:?}"
            ),
        }
    }
}

#[test]
fn anthropic_gets_no_system_block_of_only_whitespace() {
    let r = inject::render(&scene_of(Adapter::ClaudeDesk, Some(" \n ")), Family::Desk);
    let body = r.request.clone().expect("request");
    assert!(body.get("system").is_none(), "{body}");
    assert_eq!(codes(&r), ["request_without_messages"]);
}

fn fixture(file: &str, model: Option<&str>) -> Report {
    let mut scene = scene::load_file(&fixtures().join(file)).unwrap_or_else(|e| panic!("{e}"));
    scene.desk_llm.model = model.map(str::to_owned);
    render_in(&scene, &fixtures())
}

fn b64(file: &str) -> String {
    let bytes = std::fs::read(fixtures().join(file)).expect("fixture image");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn a_one_image_model_gets_the_current_screenshot_and_the_others_are_reported() {
    for model in [None, Some("llama3.2-vision:11b")] {
        let r = fixture("ollama-desk.scene.json", model);
        let body = r.request.clone().expect("request");
        assert_eq!(
            body["messages"][1]["images"],
            json!([b64("screen.png")]),
            "{model:?}"
        );
        assert_eq!(
            codes(&r),
            [
                "image_url_unsupported",
                "images_over_model_limit",
                "images_over_model_limit"
            ]
        );
        let dropped: Vec<_> = r.diagnostics[1..].iter().map(|d| d.segment).collect();
        assert_eq!(
            dropped,
            [
                Some("original_desk_screenshot_prompt"),
                Some("current_desk_screenshot_prompt")
            ]
        );
        assert!(r.diagnostics[1].message.contains("one image per message"));
    }
    // A model that takes several gets all three base64 images.
    let r = fixture("ollama-desk.scene.json", Some("qwen2.5vl:7b"));
    let images = r.request.expect("request")["messages"][1]["images"].clone();
    assert_eq!(images.as_array().map(Vec::len), Some(3));
}

#[test]
fn deepseek_flash_sees_the_screenshots_and_v4_pro_does_not() {
    let r = fixture("deepseek-desk.scene.json", None);
    let body = r.request.clone().expect("request");
    assert_eq!(body["model"], "deepseek-flash");
    let parts = body["messages"][1]["content"]
        .as_array()
        .expect("content parts");
    let urls: Vec<&str> = parts
        .iter()
        .filter_map(|p| p["image_url"]["url"].as_str())
        .collect();
    assert_eq!(urls.len(), 4, "{urls:?}");
    assert_eq!(
        urls[0],
        format!("data:image/jpeg;base64,{}", b64("start.jpg"))
    );
    assert_eq!(urls[1], "https://example.com/desk/step-2.png");
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));

    let r = fixture("deepseek-desk.scene.json", Some("deepseek-v4-pro"));
    assert!(r.request.clone().expect("request")["messages"][1]["content"].is_string());
    assert_eq!(codes(&r), ["image_dropped"; 4]);
    assert!(r.diagnostics[0].message.contains("\"deepseek-v4-pro\""));
}

/// A folder of PNG files of the given sizes (a PNG signature, then zeros: sparse, so nothing
/// that size is written), `0.png`, `1.png`, ...
fn pngs(tag: &str, sizes: &[u64]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pi-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (i, size) in sizes.iter().enumerate() {
        let path = dir.join(format!("{i}.png"));
        std::fs::write(&path, b"\x89PNG\r\n\x1a\n").expect("write");
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_len(*size).expect("set_len");
    }
    dir
}

fn screenshots_scene(adapter: Adapter, count: usize) -> Scene {
    let attachments: Vec<String> = (0..count)
        .map(|i| format!(r#"{{ "type": "image", "path": "{i}.png" }}"#))
        .collect();
    let text = format!(
        r#"{{ "format": "prompt-inspector/scene@1", "desk_llm": {{ "adapter": "{}",
  "current_desk_screenshot_prompt": [ {{ "kind": "normalize",
    "template": {{ "engine": "fstring", "templates": {{ "default": "The desk now:" }} }},
    "attachments": [ {} ] }} ] }} }}"#,
        adapter.as_str(),
        attachments.join(", ")
    );
    scene::load_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

const MIB: u64 = 1024 * 1024;

#[test]
fn an_image_over_anthropics_per_image_limit_is_left_out() {
    // 8 MiB of bytes is 10.7 MiB of base64: over the 10 MiB Anthropic takes per image.
    let dir = pngs("one", &[8 * MIB, 1024]);
    let r = render_in(&screenshots_scene(Adapter::ClaudeDesk, 2), &dir);
    assert_eq!(codes(&r), ["image_over_provider_limit"]);
    let message = &r.diagnostics[0].message;
    let base64_len = (8 * MIB).div_ceil(3) * 4;
    assert!(
        message.contains(&format!("{base64_len} bytes")),
        "{message}"
    );
    assert!(message.contains("10485760"), "{message}");
    assert_eq!(
        r.diagnostics[0].segment,
        Some("current_desk_screenshot_prompt")
    );
    let content = &r.request.expect("request")["messages"][0]["content"];
    let images: Vec<&Json> = content
        .as_array()
        .expect("content")
        .iter()
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(images.len(), 1, "the small image still goes");
    // Other APIs have no per-image limit: OpenAI's Responses takes both.
    let r = render_in(&screenshots_scene(Adapter::OpenaiDesk, 2), &dir);
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_request_over_anthropics_32_mb_is_kept_whole_and_reported() {
    // Four images of 7 MiB: each 9.3 MiB of base64, under the per-image limit, 37 MiB together.
    let dir = pngs("many", &[7 * MIB; 4]);
    let r = render_in(&screenshots_scene(Adapter::ClaudeDesk, 4), &dir);
    assert_eq!(codes(&r), ["request_too_large"]);
    let body = r.request.clone().expect("request");
    let size = serde_json::to_string(&body).expect("JSON").len();
    let message = &r.diagnostics[0].message;
    assert!(message.contains(&format!("{size} bytes")), "{message}");
    assert!(message.contains("33554432"), "{message}");
    let images = body["messages"][0]["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|b| b["type"] == "image")
        .count();
    assert_eq!(images, 4, "every image is still in the body");
    // OpenAI takes 512 MB and Gemini 100 MB: the same images are no problem there.
    for adapter in [Adapter::OpenaiDesk, Adapter::GeminiDesk] {
        let r = render_in(&screenshots_scene(adapter, 4), &dir);
        assert!(codes(&r).is_empty(), "{adapter:?}: {:?}", codes(&r));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
