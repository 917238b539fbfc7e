//! Every provider request body in the repository fits its provider's published schema
//! (`conformance/providers/*.schema.json`, extracted by `conformance/gen_provider_specs.py`,
//! sources in `conformance/providers/SOURCES.md`): the request of every golden in `fixtures/`
//! and `examples/`, the chat request goldens, and bodies built here for the edge cases (no
//! messages, one-image models, text-only models). Bodies the providers refuse must fail, so the
//! validator is seen to bite; boon, a general validator, must give every verdict ours gives.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use prompt_inspector::inject::{self, Options};
use prompt_inspector::provider::ChatProvider;
use prompt_inspector::scene::{self, Adapter};
use prompt_inspector::segments::Family;
use prompt_inspector::usage::Api;
use serde_json::{json, Value as Json};

use crate::json_schema::Schema;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The schema file of the API an adapter sends to.
fn spec_of(adapter: Adapter) -> &'static str {
    match adapter {
        Adapter::OpenaiDesk => "openai-responses",
        Adapter::ClaudeDesk => "anthropic-messages",
        Adapter::GeminiDesk => "gemini-generate-content",
        Adapter::OllamaDesk => "ollama-chat",
        // SGLang, DeepSeek and Tencent Cloud serve OpenAI's chat completions.
        Adapter::SglangDesk | Adapter::DeepseekDesk | Adapter::TencentDsDesk => {
            "openai-chat-completions"
        }
        Adapter::OpenaiGenDesk => "openai-completions",
    }
}

fn spec_of_api(api: Api) -> &'static str {
    match api {
        Api::OpenaiChat => "openai-chat-completions",
        Api::OpenaiResponses => "openai-responses",
        Api::Anthropic => "anthropic-messages",
        Api::Gemini => "gemini-generate-content",
    }
}

fn spec_of_chat(provider: ChatProvider) -> &'static str {
    match provider {
        ChatProvider::Openai => "openai-chat-completions",
        ChatProvider::Anthropic => "anthropic-messages",
    }
}

const SPECS: [&str; 6] = [
    "openai-chat-completions",
    "openai-responses",
    "openai-completions",
    "anthropic-messages",
    "gemini-generate-content",
    "ollama-chat",
];

/// The schemas, each read by our validator and compiled by boon.
struct Specs {
    ours: BTreeMap<&'static str, Schema>,
    boon: boon::Schemas,
    index: BTreeMap<&'static str, boon::SchemaIndex>,
}

impl Specs {
    fn load() -> Specs {
        let mut ours = BTreeMap::new();
        let mut boon = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let mut index = BTreeMap::new();
        for name in SPECS {
            let path = root().join(format!("conformance/providers/{name}.schema.json"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let json: Json =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            ours.insert(name, Schema::from_json(json));
            let i = compiler
                .compile(&path.to_string_lossy(), &mut boon)
                .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            index.insert(name, i);
        }
        Specs { ours, boon, index }
    }

    /// Our validator's errors for `body`, after checking that boon agrees on whether it is valid.
    fn errors(&self, spec: &str, body: &Json, what: &str) -> Vec<String> {
        let errors = self.ours[spec].errors(body);
        let boon = self.boon.validate(body, self.index[spec]);
        assert_eq!(
            errors.is_empty(),
            boon.is_ok(),
            "{what} against {spec}: ours says {errors:?}, boon says {:?}",
            boon.err().map(|e| format!("{e:#}"))
        );
        errors
    }

    fn assert_fits(&self, spec: &str, body: &Json, what: &str) {
        let errors = self.errors(spec, body, what);
        assert!(errors.is_empty(), "{what} does not fit {spec}: {errors:#?}");
    }

    /// The body must be refused, and for the reason meant: the part at `pointer`, checked against
    /// the definition it should fit, has an error starting with `expected` (paths in it are
    /// relative to the part). A whole body's error only says no branch of a union fits.
    fn assert_refused(
        &self,
        spec: &str,
        body: &Json,
        (def, pointer): (&str, &str),
        expected: &str,
    ) {
        let whole = self.errors(spec, body, pointer);
        assert!(
            !whole.is_empty(),
            "{spec}: the body passes, but {pointer} should not"
        );
        let part = body
            .pointer(pointer)
            .unwrap_or_else(|| panic!("the body has nothing at {pointer}"));
        let errors = self.ours[spec].errors_against(def, part);
        assert!(
            errors.iter().any(|e| e.starts_with(expected)),
            "{spec}: {pointer} against {def}: expected {expected:?}, got {errors:#?}"
        );
    }
}

fn goldens(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            goldens(&path, out);
        } else if path.to_string_lossy().ends_with(".golden.json") {
            out.push(path);
        }
    }
}

/// Every `request` member of a JSON document, with its JSON pointer.
fn requests<'a>(v: &'a Json, at: String, out: &mut Vec<(String, &'a Json)>) {
    match v {
        Json::Object(map) => {
            for (k, sub) in map {
                let here = format!("{at}/{k}");
                if k == "request" {
                    out.push((here, sub));
                } else {
                    requests(sub, here, out);
                }
            }
        }
        Json::Array(items) => {
            for (i, sub) in items.iter().enumerate() {
                requests(sub, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_golden_request_body_fits_its_providers_schema() {
    let specs = Specs::load();
    let mut files = Vec::new();
    goldens(&root().join("fixtures"), &mut files);
    goldens(&root().join("examples"), &mut files);
    files.sort();
    let mut used = BTreeMap::<&str, usize>::new();
    for golden in &files {
        let text = std::fs::read_to_string(golden).expect("golden");
        let doc: Json =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        let mut found = Vec::new();
        requests(&doc, String::new(), &mut found);
        for (at, body) in found {
            let scene_path = golden.with_file_name(
                golden
                    .file_name()
                    .and_then(|n| n.to_str())
                    .map(|n| n.replace(".golden.json", ".scene.json"))
                    .expect("a golden's name"),
            );
            let scene = scene::load_file(&scene_path).unwrap_or_else(|e| panic!("{e}"));
            // A desk report's body is its scene's adapter's; a chat report's, its recorded
            // API's (an imported call, rebuilt). Any other must be taught here, not skipped.
            let spec = match (at.as_str(), &scene.recorded) {
                ("/desk/request", _) => spec_of(scene.desk_llm.adapter),
                ("/chat/request", Some(r)) => spec_of_api(r.api),
                _ => panic!(
                    "{}: a request body at {at}: which provider's is it?",
                    golden.display()
                ),
            };
            specs.assert_fits(spec, body, &format!("{}{at}", golden.display()));
            *used.entry(spec).or_default() += 1;
        }
    }
    for p in ChatProvider::ALL {
        let path = root().join(format!(
            "fixtures/providers/chat.{}.request.json",
            p.as_str()
        ));
        let text = std::fs::read_to_string(&path).expect("chat request golden");
        let body: Json = serde_json::from_str(&text).expect("JSON");
        specs.assert_fits(spec_of_chat(p), &body, &path.display().to_string());
        *used.entry(spec_of_chat(p)).or_default() += 1;
    }
    // fixtures/providers has a scene for every adapter, so every schema checks some golden.
    assert_eq!(
        used.keys().copied().collect::<Vec<_>>().len(),
        SPECS.len(),
        "{used:?}"
    );
    assert!(used.values().sum::<usize>() >= 30, "{used:?}");
}

fn desk_body(text: &str) -> (Json, Vec<&'static str>) {
    let scene = scene::load_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let r = inject::render(&scene, Family::Desk);
    let codes = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    (r.request.expect("a desk report has a request"), codes)
}

/// A scene for `adapter` whose desk segments are the given `(segment, text)` prompts.
fn desk_scene(adapter: Adapter, prompts: &[(&str, &str)]) -> String {
    let segments: Vec<String> = prompts
        .iter()
        .map(|(seg, text)| {
            format!(
                r#""{seg}": [ {{ "kind": "normalize", "template": {{ "engine": "fstring", "templates": {{ "default": {text:?} }} }} }} ]"#
            )
        })
        .collect();
    let sep = if segments.is_empty() { "" } else { ", " };
    format!(
        r#"{{ "format": "prompt-inspector/scene@1", "desk_llm": {{ "adapter": "{}"{sep}{} }} }}"#,
        adapter.as_str(),
        segments.join(", ")
    )
}

#[test]
fn bodies_built_for_the_edge_cases_fit_too() {
    let specs = Specs::load();
    let cases: [&[(&str, &str)]; 4] = [
        &[],
        &[("system_prompt", "Act.")],
        &[("system_prompt", "  "), ("purpose_prompt", " \n ")],
        &[
            ("purpose_prompt", "Export the report"),
            ("prefix_prompt", "Next:"),
        ],
    ];
    for adapter in Adapter::ALL {
        for prompts in cases {
            let (body, codes) = desk_body(&desk_scene(adapter, prompts));
            specs.assert_fits(
                spec_of(adapter),
                &body,
                &format!("{adapter:?} {prompts:?} {codes:?}"),
            );
        }
        // The provider fixture, with the adapter's default model.
        let path = root().join(format!(
            "fixtures/providers/{}.scene.json",
            adapter.as_str().replace('_', "-")
        ));
        let mut scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        scene.desk_llm.model = None;
        let options = Options {
            base_dir: path.parent().map(Path::to_path_buf),
            ..Default::default()
        };
        let r = inject::render_with(&scene, Family::Desk, &options);
        specs.assert_fits(
            spec_of(adapter),
            &r.request.expect("request"),
            &format!("{adapter:?} fixture"),
        );
    }
    // A text-only DeepSeek model: its body is plain strings.
    let path = root().join("fixtures/providers/deepseek-desk.scene.json");
    let mut scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    scene.desk_llm.model = Some("deepseek-v4-pro".to_owned());
    let r = inject::render(&scene, Family::Desk);
    specs.assert_fits(
        "openai-chat-completions",
        &r.request.expect("request"),
        "deepseek-v4-pro",
    );
}

#[test]
fn chat_bodies_with_tool_calls_and_blank_turns_fit() {
    let specs = Specs::load();
    let text = r#"{ "format": "prompt-inspector/scene@1", "context": {
      "user_input": { "input": "next" },
      "conversation": [
        { "role": "user", "content": "   " },
        { "role": "assistant", "content": "", "tool_calls": [ { "id": "call:1", "name": "ls", "arguments": "{\"dir\": \"/\"}" } ] },
        { "role": "tool", "tool_call_id": "call:1", "content": "a.txt" },
        { "role": "assistant", "content": "Done." } ] } }"#;
    let scene = scene::load_str(text).unwrap_or_else(|e| panic!("{e}"));
    for p in ChatProvider::ALL {
        let options = Options {
            chat_provider: Some(p),
            ..Default::default()
        };
        let r = inject::render_with(&scene, Family::Chat, &options);
        specs.assert_fits(spec_of_chat(p), &r.request.expect("request"), p.as_str());
    }
}

fn golden_request(file: &str) -> Json {
    let path = root().join("fixtures/providers").join(file);
    let doc: Json =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("golden")).expect("JSON");
    doc.pointer("/desk/request")
        .cloned()
        .expect("a desk request")
}

/// The pointer of the first element of the list at `list` that `pick` chooses.
fn first(body: &Json, list: &str, pick: impl Fn(&Json) -> bool) -> String {
    let items = body.pointer(list).and_then(Json::as_array).expect("a list");
    let i = items.iter().position(pick).expect("an element to pick");
    format!("{list}/{i}")
}

fn remove(body: &mut Json, pointer: &str, key: &str) {
    body.pointer_mut(pointer)
        .and_then(Json::as_object_mut)
        .expect("an object")
        .remove(key)
        .expect("the member to remove");
}

/// Replaces the member at `pointer`, or adds it to the object it would be in.
fn set(body: &mut Json, pointer: &str, value: Json) {
    if let Some(slot) = body.pointer_mut(pointer) {
        *slot = value;
        return;
    }
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    body.pointer_mut(parent)
        .and_then(Json::as_object_mut)
        .expect("an object to add to")
        .insert(key.to_owned(), value);
}

#[test]
fn bodies_the_providers_refuse_fail() {
    let specs = Specs::load();
    let a = "anthropic-messages";

    let claude = golden_request("claude-desk.golden.json");
    let mut b = claude.clone();
    remove(&mut b, "/messages/0", "role");
    specs.assert_refused(
        a,
        &b,
        ("MessageParam", "/messages/0"),
        ": missing required \"role\"",
    );
    let mut b = claude.clone();
    set(&mut b, "/messages/0/content/0/colour", json!("red"));
    let text = ("TextBlockParam", "/messages/0/content/0");
    specs.assert_refused(a, &b, text, "/colour: not allowed here");
    let mut b = claude.clone();
    remove(&mut b, "", "max_tokens");
    let params = ("MessageCreateParamsNonStreaming", "");
    specs.assert_refused(a, &b, params, ": missing required \"max_tokens\"");
    let mut b = claude;
    let image = first(&b, "/messages/0/content", |p| {
        p["source"]["type"] == "base64"
    });
    set(
        &mut b,
        &format!("{image}/source/media_type"),
        json!("image/bmp"),
    );
    let source = ("Base64ImageSourceParam", &*format!("{image}/source"));
    specs.assert_refused(a, &b, source, "/media_type: \"image/bmp\" is not one of");

    let r = "openai-responses";
    let responses = golden_request("openai-desk.golden.json");
    let image = first(&responses, "/input/0/content", |p| {
        p["type"] == "input_image"
    });
    let mut b = responses.clone();
    remove(&mut b, &image, "detail");
    specs.assert_refused(
        r,
        &b,
        ("InputImageContent", &image),
        ": missing required \"detail\"",
    );
    let mut b = responses;
    set(&mut b, &format!("{image}/detail"), json!("ultra"));
    let part = ("InputImageContent", &*image);
    specs.assert_refused(r, &b, part, "/detail: \"ultra\" is not one of");

    let g = "gemini-generate-content";
    let gemini = golden_request("gemini-desk.golden.json");
    let part = ("Part", "/contents/0/parts/0");
    let mut b = gemini.clone();
    set(&mut b, "/contents/0/parts/0/colour", json!("red"));
    specs.assert_refused(g, &b, part, "/colour: not allowed here");
    let mut b = gemini.clone();
    let blob = json!({"mimeType": "image/png", "data": "AA=="});
    set(&mut b, "/contents/0/parts/0/inlineData", blob);
    specs.assert_refused(g, &b, part, ": fits no branch of anyOf");
    let mut b = gemini.clone();
    let snake = json!({"inline_data": {"mime_type": "image/png", "data": "AA=="}});
    set(&mut b, "/contents/0/parts/0", snake);
    specs.assert_refused(g, &b, part, "/inline_data: not allowed here");
    let mut b = gemini;
    set(&mut b, "/contents", json!([]));
    let request = ("GenerateContentRequest", "");
    specs.assert_refused(g, &b, request, "/contents: 0 items, minItems is 1");

    let c = "openai-chat-completions";
    let chat = golden_request("sglang-desk.golden.json");
    let mut b = chat.clone();
    set(&mut b, "/messages", json!([]));
    let request = ("CreateChatCompletionRequest", "");
    specs.assert_refused(c, &b, request, "/messages: 0 items, minItems is 1");
    let mut b = chat;
    set(&mut b, "/messages/1/role", json!("desk"));
    let user = ("ChatCompletionRequestUserMessage", "/messages/1");
    specs.assert_refused(c, &b, user, "/role: \"desk\" is not one of");

    let mut b = golden_request("ollama-desk.golden.json");
    remove(&mut b, "/messages/1", "content");
    let message = ("ChatMessage", "/messages/1");
    specs.assert_refused("ollama-chat", &b, message, ": missing required \"content\"");

    let mut b = golden_request("openai-gen-desk.golden.json");
    set(&mut b, "/max_tokens", json!("1024"));
    let request = ("CreateCompletionRequest", "");
    let expected = "/max_tokens: not of type integer or null";
    specs.assert_refused("openai-completions", &b, request, expected);
}

#[test]
fn every_schema_file_records_its_source() {
    for name in SPECS {
        let path = root().join(format!("conformance/providers/{name}.schema.json"));
        let doc: Json =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("schema")).expect("JSON");
        let source = &doc["x-source"];
        let commit = source["commit"].as_str().unwrap_or_default();
        assert_eq!(commit.len(), 40, "{name}: {source}");
        assert!(
            commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{name}: {source}"
        );
        assert!(
            source["repository"]
                .as_str()
                .is_some_and(|r| r.starts_with("https://github.com/")),
            "{name}: {source}"
        );
        assert!(
            source["read"].as_str().is_some_and(|d| d.len() == 10),
            "{name}: {source}"
        );
        let files = source["files"].as_array().map(Vec::len).unwrap_or(0);
        assert!(files > 0, "{name}: {source}");
    }
}
