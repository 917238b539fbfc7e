//! What the providers' limits do to request bodies (docs/providers.md): a request with no
//! messages.

use prompt_inspector::inject::{self, Report};
use prompt_inspector::scene::{self, Adapter, Scene};
use prompt_inspector::segments::Family;
use serde_json::json;

fn codes(r: &Report) -> Vec<&'static str> {
    r.diagnostics.iter().map(|d| d.code).collect()
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
