//! Every count says what it is: render's `costs` rows priced as each row's provider bills the
//! call (its own request body, framing included), with the provenance of each figure and the
//! date and pages of the prices, in JSON, text and HTML; `cache`'s figures labelled the same way;
//! and the bounds those labels state, recomputed on the recorded usage corpus.

use prompt_inspector::billing;
use prompt_inspector::pricing::request::{OPENAI_SERIALISATION_BOUND_PERCENT, TEXT_BOUND_PERCENT};
use prompt_inspector::pricing::Table;
use prompt_inspector::tokens::{count, Encoding};
use prompt_inspector::usage::{Api, Provenance, Usage};
use serde_json::{json, Value};

use crate::support::{cli, root, run, tempdir};

const SYSTEM: &str = "You are a desktop assistant. Be brief.";
const USER: &str = "Export the report as PDF";

/// A chat call of two messages, a system prompt and the user's input; the desk call has the
/// same system prompt.
fn two_message_scene(dir: &std::path::Path) -> std::path::PathBuf {
    let prompt = json!([{"kind": "normalize", "template": {"engine": "fstring", "templates": {"default": SYSTEM}}}]);
    let scene = json!({
        "format": "prompt-inspector/scene@1",
        "name": "two-messages",
        "context": {"user_input": {"input": USER}},
        "chat_llm": {"system_msg_prompt": prompt},
        "desk_llm": {"system_prompt": prompt},
    });
    let path = dir.join("two.scene.json");
    std::fs::write(&path, serde_json::to_string_pretty(&scene).expect("json")).expect("scene");
    path
}

fn stdout_of(out: std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

const MODELS: [&str; 4] = [
    "openai/gpt-5",
    "anthropic/claude-sonnet-4-5",
    "google/gemini-2.5-flash",
    "deepseek/deepseek-flash",
];

fn render_json(scene: &std::path::Path, llm: &str) -> Value {
    let mut args = vec!["render", scene.to_str().expect("path"), "--llm", llm];
    args.extend(["--format", "json"]);
    for m in MODELS {
        args.extend(["--model", m]);
    }
    serde_json::from_str(&stdout_of(run(&args))).expect("a JSON report")
}

fn provenance(v: &Value) -> Provenance {
    serde_json::from_value(v.clone()).expect("a provenance")
}

#[test]
fn each_chat_row_is_the_call_as_its_provider_is_sent_it_with_framing_and_labels() {
    let dir = tempdir("costs-provenance", "chat");
    let report = render_json(&two_message_scene(&dir), "chat");
    let content: usize = [SYSTEM, USER]
        .iter()
        .map(|t| count(t, Encoding::O200kBase))
        .sum();
    // The bodies each provider is sent for these two messages, written out by hand.
    let openai = |model: &str| {
        json!({"model": model, "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER},
        ]})
    };
    let expected = [
        (Api::OpenaiChat, "gpt-5", openai("gpt-5")),
        (
            Api::Anthropic,
            "claude-sonnet-4-5",
            json!({"model": "claude-sonnet-4-5", "max_tokens": 4096,
                "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
                "messages": [{"role": "user", "content": [{"type": "text", "text": USER}]}]}),
        ),
        (
            Api::Gemini,
            "gemini-2.5-flash",
            json!({"systemInstruction": {"parts": [{"text": SYSTEM}]},
                "contents": [{"role": "user", "parts": [{"text": USER}]}]}),
        ),
        (Api::OpenaiChat, "deepseek-flash", openai("deepseek-flash")),
    ];
    let table = Table::builtin();
    let costs = report["costs"].as_array().expect("costs");
    assert_eq!(costs.len(), 4);
    for ((row, (api, model, body)), id) in costs.iter().zip(&expected).zip(MODELS) {
        assert_eq!(row["model"], id);
        assert_eq!(row["api"], api.as_str(), "{id}");
        let billed = billing::predict(*api, model, body).expect("counted");
        assert_eq!(
            row["input_tokens"].as_u64(),
            Some(billed.input_tokens as u64),
            "{id}: the row is its provider's body as billed"
        );
        assert_eq!(provenance(&row["provenance"]), billed.provenance, "{id}");
        assert_eq!(row["content_tokens"].as_u64(), Some(content as u64), "{id}");
        assert!(
            billed.input_tokens > content,
            "{id}: the request's framing is billed on top of its text"
        );
        let text = provenance(&row["text_provenance"]);
        if id.starts_with("openai/") {
            assert_eq!(
                text,
                Provenance::Exact,
                "OpenAI counts text with o200k_base"
            );
        } else {
            assert_eq!(
                text,
                Provenance::Estimate {
                    bound_percent: TEXT_BOUND_PERCENT
                },
                "{id}"
            );
        }
        if id == "openai/gpt-5" && billed.provenance == Provenance::Exact {
            // OpenAI's chat framing: 4 tokens per message and 3 priming the reply.
            assert_eq!(billed.input_tokens, content + 4 * 2 + 3);
        }
        let source = table
            .models
            .iter()
            .find(|r| r.id == id)
            .expect("a built-in row");
        assert_eq!(row["prices_read"], source.read.as_str());
        assert_eq!(row["price_sources"], json!(source.sources));
        let cost = row["cost_usd"].as_f64().expect("cost");
        let price = row["usd_per_mtok_input"].as_f64().expect("price");
        assert!((cost - billed.input_tokens as f64 * price / 1e6).abs() < 1e-8);
    }
}

#[test]
fn each_desk_row_is_sent_through_its_providers_desk_adapter() {
    let dir = tempdir("costs-provenance", "desk");
    let report = render_json(&two_message_scene(&dir), "desk");
    let apis: Vec<&str> = report["costs"]
        .as_array()
        .expect("costs")
        .iter()
        .map(|c| c["api"].as_str().expect("api"))
        .collect();
    // openai_desk (Responses), claude_desk, gemini_desk, deepseek_desk (chat completions).
    assert_eq!(
        apis,
        ["openai-responses", "anthropic", "gemini", "openai-chat"]
    );
    for c in report["costs"].as_array().expect("costs") {
        let segments: u64 = report["segments"]
            .as_array()
            .expect("segments")
            .iter()
            .filter_map(|s| s["tokens"].as_u64())
            .sum();
        assert_eq!(c["content_tokens"].as_u64(), Some(segments));
        assert!(
            c["input_tokens"].as_u64() >= c["content_tokens"].as_u64(),
            "{c}: the call is billed at least for its text"
        );
    }
}

#[test]
fn render_text_labels_every_figure_and_says_when_prices_were_read() {
    let dir = tempdir("costs-provenance", "text");
    let scene = two_message_scene(&dir);
    let json = render_json(&scene, "chat");
    let mut args = vec!["render", scene.to_str().expect("path")];
    for m in MODELS {
        args.extend(["--model", m]);
    }
    let text = stdout_of(run(&args));
    for row in json["costs"].as_array().expect("costs") {
        let id = row["model"].as_str().expect("id");
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(id))
            .unwrap_or_else(|| panic!("{id} in\n{text}"));
        let label = provenance(&row["provenance"]).to_string();
        assert!(
            line.contains(&format!("{} tokens", row["input_tokens"])),
            "{line}"
        );
        assert!(line.contains(&label), "{line} lacks {label}");
        assert!(
            line.ends_with(&format!("${:.6}", row["cost_usd"].as_f64().expect("cost"))),
            "{line}"
        );
    }
    assert!(text.contains("  exact for openai/gpt-5\n"), "{text}");
    assert!(
        text.contains(
            "  estimate ±30% for anthropic/claude-sonnet-4-5, google/gemini-2.5-flash, deepseek/deepseek-flash\n"
        ),
        "{text}"
    );
    let read = text
        .split("Prices as read on 2026-12-01 from:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no price date in\n{text}"));
    for source in Table::builtin()
        .models
        .iter()
        .filter(|r| MODELS.contains(&r.id.as_str()))
        .flat_map(|r| &r.sources)
    {
        assert!(read.contains(&format!("  {source}\n")), "{source}");
    }
}

#[test]
fn the_html_board_labels_costs_and_text_counts_and_links_the_price_pages() {
    let dir = tempdir("costs-provenance", "html");
    let scene = two_message_scene(&dir);
    let page = stdout_of(run(&[
        "render",
        scene.to_str().expect("path"),
        "--format",
        "html",
        "--model",
        "gpt-5",
        "--model",
        "claude-sonnet-4-5",
    ]));
    let json = render_json(&scene, "chat");
    let anthropic = provenance(&json["costs"][1]["provenance"]).to_string();
    assert!(
        page.contains(&format!("<span class=\"provenance\">{anthropic}</span>")),
        "the Anthropic row's label"
    );
    assert!(page.contains(
        "tokens counted with o200k_base (exact for openai/gpt-5; estimate ±30% for anthropic/claude-sonnet-4-5)"
    ));
    assert!(page.contains(
        "Prices as read on 2026-12-01 from <a href=\"https://developers.openai.com/api/docs/guides/prompt-caching\">"
    ));
}

#[test]
fn cache_labels_each_models_figures_and_says_when_prices_were_read() {
    let scenes: Vec<String> = std::fs::read_dir(root().join("fixtures/cache/late-notes"))
        .expect("fixtures")
        .filter_map(|e| {
            let p = e.ok()?.path();
            p.to_string_lossy()
                .ends_with(".scene.json")
                .then(|| p.to_string_lossy().into_owned())
        })
        .collect();
    let mut sorted = scenes.clone();
    sorted.sort();
    let mut args = vec!["cache", "--model", "gpt-5", "--model", "claude-sonnet-4-5"];
    args.extend(sorted.iter().map(String::as_str));
    let text = stdout_of(cli(&args));
    assert!(text.contains("\nopenai/gpt-5 (estimate ±3%)\n"), "{text}");
    assert!(
        text.contains("\nanthropic/claude-sonnet-4-5, writes at the 5m TTL (estimate ±30%)\n"),
        "{text}"
    );
    assert!(text.contains("Prices as read on 2026-12-01 from:\n"));
    args.extend(["--format", "json"]);
    let json: Value = serde_json::from_str(&stdout_of(cli(&args))).expect("JSON");
    assert_eq!(
        json["models"][0]["provenance"],
        json!({"kind": "estimate", "bound_percent": OPENAI_SERIALISATION_BOUND_PERCENT})
    );
    assert_eq!(json["models"][1]["prices_read"], "2026-12-01");
}

/// A recorded call: its API, its messages as `(role, text)`, and the input it was billed.
type Call = (Api, Vec<(String, String)>, u64);

/// The corpus's calls of plain text (no tools, images, files, schemas or carried reasoning).
fn plain_text_calls() -> Vec<Call> {
    let corpus = root().join("corpora/usage");
    let selection: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("selection.json")).expect("selection"),
    )
    .expect("JSON");
    let skip = [
        "tools",
        "tool_history",
        "format",
        "reasoning_in_input",
        "file",
        "image",
    ];
    let mut out = Vec::new();
    for entry in selection {
        let flags = entry["flags"].as_array().cloned().unwrap_or_default();
        if flags
            .iter()
            .any(|f| skip.contains(&f.as_str().unwrap_or("")))
        {
            continue;
        }
        let file: Value = serde_json::from_str(
            &std::fs::read_to_string(corpus.join(entry["file"].as_str().expect("file")))
                .expect("pair"),
        )
        .expect("JSON");
        let api = Api::parse(entry["endpoint"].as_str().expect("endpoint")).expect("api");
        let Some(usage) = Usage::from_response(api, &file["response_usage"]) else {
            continue;
        };
        if let Some(messages) = texts_of(api, &file["request"]) {
            out.push((api, messages, usage.input_total));
        }
    }
    out
}

/// The text of each message (`None` when a part is not text).
fn texts_of(api: Api, request: &Value) -> Option<Vec<(String, String)>> {
    fn text(content: &Value) -> Option<String> {
        match content {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => parts
                .iter()
                .map(|p| p.get("text").and_then(Value::as_str).map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(|t| t.join("\n")),
            _ => None,
        }
    }
    let mut out = Vec::new();
    let role = |m: &Value| m["role"].as_str().unwrap_or("user").to_owned();
    match api {
        Api::OpenaiChat => {
            for m in request["messages"].as_array()? {
                out.push((role(m), text(&m["content"])?));
            }
        }
        Api::OpenaiResponses => {
            if let Some(i) = request["instructions"].as_str() {
                out.push(("system".to_owned(), i.to_owned()));
            }
            match &request["input"] {
                Value::String(s) => out.push(("user".to_owned(), s.clone())),
                items => {
                    for m in items.as_array()? {
                        out.push((role(m), text(&m["content"])?));
                    }
                }
            }
        }
        Api::Anthropic => {
            if !request["system"].is_null() {
                out.push(("system".to_owned(), text(&request["system"])?));
            }
            for m in request["messages"].as_array()? {
                out.push((role(m), text(&m["content"])?));
            }
        }
        Api::Gemini => {
            if let Some(parts) = request["systemInstruction"].get("parts") {
                out.push(("system".to_owned(), text(parts)?));
            }
            for c in request["contents"].as_array()? {
                out.push((role(c), text(&c["parts"])?));
            }
        }
    }
    Some(out)
}

fn error_percent(counted: usize, billed: u64) -> f64 {
    (counted as f64 - billed as f64).abs() / billed as f64 * 100.0
}

#[test]
fn the_text_bound_holds_on_anthropics_recorded_calls_of_plain_text() {
    let calls: Vec<(usize, u64)> = plain_text_calls()
        .into_iter()
        .filter(|(api, _, billed)| *api == Api::Anthropic && *billed >= 1000)
        .map(|(_, messages, billed)| {
            let text: usize = messages
                .iter()
                .map(|(_, t)| count(t, Encoding::O200kBase))
                .sum();
            (text, billed)
        })
        .collect();
    assert!(calls.len() >= 6, "docs/models.md names six such calls");
    for (text, billed) in calls {
        let e = error_percent(text, billed);
        assert!(
            e <= TEXT_BOUND_PERCENT,
            "{text} counted, {billed} billed: {e:.1}%"
        );
    }
}

#[test]
fn the_serialisation_bound_holds_on_openais_recorded_calls_of_plain_text() {
    let calls: Vec<(usize, u64)> = plain_text_calls()
        .into_iter()
        .filter(|(api, _, billed)| {
            matches!(api, Api::OpenaiChat | Api::OpenaiResponses) && *billed >= 400
        })
        .map(|(_, messages, billed)| {
            let serialised = prompt_inspector::runloop::cache::serialize(
                messages.iter().map(|(r, t)| (r.as_str(), t.as_str())),
            );
            (count(&serialised, Encoding::O200kBase), billed)
        })
        .collect();
    assert!(calls.len() >= 5, "docs/models.md names five such calls");
    for (counted, billed) in calls {
        let e = error_percent(counted, billed);
        assert!(
            e <= OPENAI_SERIALISATION_BOUND_PERCENT,
            "{counted} counted, {billed} billed: {e:.1}%"
        );
    }
}

#[test]
fn a_gemini_chat_body_names_tool_results_after_their_calls_and_merges_turns() {
    use prompt_inspector::report::MessageOut;
    use prompt_inspector::Value as V;
    let message = |role: &'static str, content: &str| MessageOut {
        role,
        content: V::Str(content.into()),
        segment: None,
        name: None,
        tool_call_id: None,
        tool_calls: None,
        tokens: None,
    };
    let mut call = message("assistant", "Looking.");
    call.tool_calls = Some(V::from_json(&json!([
        {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"pdf\"}"}}
    ])));
    let mut result = message("tool", "two hits");
    result.tool_call_id = Some("call_1".to_owned());
    let messages = vec![
        message("system", "Be brief."),
        message("user", "Find it."),
        message("user", "Quickly."),
        call,
        result,
        message("system", "Answer now."),
    ];
    let mut diagnostics = Vec::new();
    let body = prompt_inspector::provider::gemini_chat_request(
        &messages,
        &[],
        &[],
        None,
        &mut diagnostics,
    );
    assert_eq!(
        body,
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Find it."}, {"text": "Quickly."}]},
                {"role": "model", "parts": [
                    {"text": "Looking."},
                    {"functionCall": {"name": "search", "args": {"q": "pdf"}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "search", "response": {"output": "two hits"}}},
                    {"text": "Answer now."}
                ]}
            ]
        })
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}
