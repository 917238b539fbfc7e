//! The app API (docs/api.md): every operation, and its errors with the positions an editor needs.

use std::path::{Path, PathBuf};

use prompt_inspector::api::{self, ApiError, CheckStatus, ErrorCode, Owner};
use prompt_inspector::provider::ChatProvider;
use prompt_inspector::segments::Family;
use prompt_inspector::tokens::Encoding;
use serde_json::Value as Json;

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-api-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// The default scene with one replacement applied (the replaced text must occur).
fn default_with(from: &str, to: &str) -> String {
    let text = prompt_inspector::scene::DEFAULT_SCENE;
    assert!(text.contains(from), "{from:?} is not in the default scene");
    text.replacen(from, to, 1)
}

/// A scene that fails to load: `name` must be a string, found on line 3.
fn bad_scene() -> String {
    default_with(r#""name": "tf-notes-demo""#, r#""name": 42"#)
}

fn render_req(text: String, llm: Family) -> api::RenderRequest {
    api::RenderRequest {
        text,
        base_dir: None,
        llm,
        provider: None,
        tokenizer: None,
        tokens: false,
        models: Vec::new(),
    }
}

#[test]
fn a_request_that_says_nothing_about_tokens_counts_them() {
    let text = api::default_scene().text;
    let req: api::RenderRequest =
        serde_json::from_value(serde_json::json!({"text": text, "llm": "chat"})).expect("request");
    assert!(req.tokens);
    let report = json_of(&api::render(&req).expect("renders").report);
    assert_eq!(report["tokenizer"], "o200k_base");
    assert!(
        report["segments"][0]["tokens"].is_u64(),
        "{}",
        report["segments"][0]
    );
    let opened: api::LiveOpenRequest =
        serde_json::from_value(serde_json::json!({"text": "{}"})).expect("live_open request");
    assert!(opened.options.tokens, "live documents count by default too");
    let off: api::RenderRequest =
        serde_json::from_value(serde_json::json!({"text": "{}", "llm": "chat", "tokens": false}))
            .expect("request");
    assert!(!off.tokens);
}

fn json_of<T: serde::Serialize>(v: &T) -> Json {
    serde_json::to_value(v).expect("serialise")
}

fn assert_load_error(e: &ApiError, line: u32, field: &str) {
    assert_eq!(e.code, ErrorCode::LoadError, "{e:?}");
    assert_eq!(e.line, Some(line), "{e:?}");
    assert!(e.column.is_some_and(|c| c > 0), "{e:?}");
    assert_eq!(e.field.as_deref(), Some(field), "{e:?}");
}

#[test]
fn default_scene_is_the_embedded_text_without_a_path() {
    let s = api::default_scene();
    assert_eq!(s.path, None);
    assert_eq!(s.text, prompt_inspector::scene::DEFAULT_SCENE);
    assert_eq!(json_of(&s)["path"], Json::Null, "path is present as null");
}

#[test]
fn open_returns_the_text_or_the_load_error_with_its_position() {
    let dir = tempdir("open");
    let good = dir.join("good.scene.json");
    std::fs::write(&good, api::default_scene().text).expect("write");
    let opened = api::open(&api::PathRequest {
        path: path_str(&good),
    })
    .expect("opens");
    assert_eq!(opened.path.as_deref(), Some(path_str(&good).as_str()));
    assert_eq!(opened.text, prompt_inspector::scene::DEFAULT_SCENE);

    let bad = dir.join("bad.scene.json");
    std::fs::write(&bad, bad_scene()).expect("write");
    let e = api::open(&api::PathRequest {
        path: path_str(&bad),
    })
    .expect_err("refused");
    assert_load_error(&e, 3, "name");
    assert_eq!(e.file.as_deref(), Some(path_str(&bad).as_str()));
    let shown = json_of(&e);
    assert_eq!(shown["code"], "load_error");
    assert!(
        shown.get("range").is_none(),
        "absent fields are left out: {shown}"
    );

    let latin1 = dir.join("latin1.scene.json");
    std::fs::write(&latin1, b"{\n  \"name\": \"caf\xe9\"\n}").expect("write");
    let e = api::open(&api::PathRequest {
        path: path_str(&latin1),
    })
    .expect_err("not UTF-8");
    assert_eq!(
        (e.code, e.line, e.column),
        (ErrorCode::LoadError, Some(2), Some(15)),
        "{e:?}"
    );

    let missing = dir.join("missing.scene.json");
    let e = api::open(&api::PathRequest {
        path: path_str(&missing),
    })
    .expect_err("missing");
    assert_eq!(e.code, ErrorCode::IoError);
    assert_eq!(e.file.as_deref(), Some(path_str(&missing).as_str()));
}

#[test]
fn save_is_atomic_and_refuses_text_that_does_not_load() {
    let dir = tempdir("save");
    let file = dir.join("a.scene.json");
    let first = api::default_scene().text;
    let stat = api::save(&api::SaveRequest {
        path: path_str(&file),
        text: first.clone(),
        recording: false,
    })
    .expect("saved");
    assert_eq!(stat.size, first.len() as f64);
    assert!(stat.modified_ms > 0.0);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), first);

    // A text that does not load is refused with its position, and the old file stays.
    let e = api::save(&api::SaveRequest {
        path: path_str(&file),
        text: bad_scene(),
        recording: false,
    })
    .expect_err("refused");
    assert_load_error(&e, 3, "name");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), first);

    // A write that fails (the target is a directory) leaves it, and no temporary file behind.
    let blocked = dir.join("blocked.scene.json");
    std::fs::create_dir_all(blocked.join("inside")).expect("dir");
    let e = api::save(&api::SaveRequest {
        path: path_str(&blocked),
        text: first.clone(),
        recording: false,
    })
    .expect_err("cannot replace a directory");
    assert_eq!(e.code, ErrorCode::IoError);
    assert!(blocked.join("inside").is_dir());
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");

    // Saving new text replaces the file and its stat changes with it.
    let second = first.replacen("tf-notes-demo", "renamed", 1);
    let after = api::save(&api::SaveRequest {
        path: path_str(&file),
        text: second.clone(),
        recording: false,
    })
    .expect("saved");
    assert_eq!(after.size, second.len() as f64);
    assert_eq!(
        api::stat(&api::PathRequest {
            path: path_str(&file)
        })
        .expect("stat"),
        after
    );
}

#[test]
fn stat_of_a_missing_file_is_an_io_error() {
    let e = api::stat(&api::PathRequest {
        path: "/nonexistent/x.scene.json".into(),
    })
    .expect_err("missing");
    assert_eq!(e.code, ErrorCode::IoError);
    assert_eq!(e.file.as_deref(), Some("/nonexistent/x.scene.json"));
}

#[test]
fn render_returns_the_cli_report_unchanged() {
    let out = api::render(&render_req(api::default_scene().text, Family::Chat)).expect("renders");
    let ours: Json = serde_json::to_value(&out.report).expect("json");
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args([
            "render",
            &path_str(&fixture("default.scene.json")),
            "--format",
            "json",
            "--no-tokens",
        ])
        .output()
        .expect("run cli");
    let theirs: Json = serde_json::from_slice(&cli.stdout).expect("cli json");
    assert_eq!(ours, theirs);
    assert_eq!(ours["llm"], "chat");
    assert!(ours.get("tokenizer").is_none(), "tokens: false counts none");

    let desk = api::render(&api::RenderRequest {
        tokens: true,
        ..render_req(api::default_scene().text, Family::Desk)
    })
    .expect("renders");
    let desk: Json = serde_json::to_value(&desk.report).expect("json");
    assert_eq!(desk["llm"], "desk");
    assert_eq!(desk["tokenizer"], "o200k_base");
    assert!(desk["request"].is_object(), "the adapter's request body");
    let tools = desk["tools"].as_array().expect("tools");
    assert_eq!(tools[2]["name"], "goal_rewriter");
    assert_eq!(tools[2]["status"], "invalid");

    let chat = api::render(&api::RenderRequest {
        provider: Some(ChatProvider::Anthropic),
        tokenizer: Some(Encoding::Cl100kBase),
        ..render_req(api::default_scene().text, Family::Chat)
    })
    .expect("renders");
    let chat: Json = serde_json::to_value(&chat.report).expect("json");
    assert_eq!(chat["tokenizer"], "cl100k_base");
    assert!(
        chat["request"]["messages"].is_array(),
        "{}",
        chat["request"]
    );
}

/// The built-in table's row `id`, read from data/models.json itself (not from the API under test).
fn table_row(id: &str) -> Json {
    let table: Json = serde_json::from_str(include_str!("../../data/models.json")).expect("json");
    table["models"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["id"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("no row {id}"))
}

#[test]
fn render_prices_the_call_for_the_models_asked_for() {
    let text = std::fs::read_to_string(fixture("providers/chat.scene.json")).expect("fixture");
    let asked = |llm, models: &[&str], tokens| {
        api::render(&api::RenderRequest {
            tokens,
            models: models.iter().map(|m| (*m).to_owned()).collect(),
            ..render_req(text.clone(), llm)
        })
        .map(|r| json_of(&r.report))
    };
    let plain = asked(Family::Chat, &[], true).expect("renders");
    assert!(plain.get("costs").is_none(), "no models, no costs: {plain}");

    // By row id and by model name; each in the order asked.
    let report =
        asked(Family::Chat, &["openai/gpt-4.1", "claude-opus-4-5"], true).expect("renders");
    let costs = report["costs"].as_array().expect("costs");
    let ids: Vec<&str> = costs.iter().filter_map(|c| c["model"].as_str()).collect();
    assert_eq!(ids, ["openai/gpt-4.1", "anthropic/claude-opus-4-5"]);
    let messages: u64 = report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["tokens"].as_u64())
        .sum();
    let definitions: u64 = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["definition"]["tokens"].as_u64())
        .sum();
    // tf_notes and web_search record schemas (the render text's test says 70 + 138 tokens).
    assert_eq!(definitions, 208);
    for c in costs {
        let price = table_row(c["model"].as_str().expect("id"))["prices_per_mtok"]["input"]
            .as_f64()
            .expect("price");
        assert_eq!(c["usd_per_mtok_input"].as_f64(), Some(price));
        assert_eq!(c["content_tokens"].as_u64(), Some(messages));
        assert_eq!(c["definition_tokens"].as_u64(), Some(definitions));
        // The call as the row's provider bills it (tests/it/costs_provenance.rs has the bodies),
        // with how sure that is and where the price comes from.
        let input = c["input_tokens"].as_u64().expect("input tokens");
        assert!(c["provenance"]["kind"].is_string(), "{c}");
        assert!(c["text_provenance"]["kind"].is_string(), "{c}");
        assert_eq!(
            c["prices_read"],
            table_row(c["model"].as_str().expect("id"))["read"]
        );
        let usd = |tokens: u64| (tokens as f64 * price / 1e6 * 1e8).round() / 1e8;
        assert_eq!(c["cost_usd"].as_f64(), Some(usd(input)));
        let segments = c["segments"].as_array().expect("segments");
        assert_eq!(
            segments.len(),
            report["segments"].as_array().map_or(0, Vec::len)
        );
        for (s, seg) in segments
            .iter()
            .zip(report["segments"].as_array().expect("segments"))
        {
            assert_eq!(s["name"], seg["name"]);
            assert_eq!(s["tokens"], seg["tokens"]);
            assert_eq!(
                s["cost_usd"].as_f64(),
                seg["tokens"].as_u64().map(usd),
                "{s}"
            );
        }
        let defs: Vec<(&str, u64)> = c["definitions"]
            .as_array()
            .expect("definitions")
            .iter()
            .map(|d| {
                (
                    d["tool"].as_str().unwrap_or(""),
                    d["tokens"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(defs, [("tf_notes", 70), ("web_search", 138)]);
    }

    // The desk call is its segments.
    let desk = asked(Family::Desk, &["gpt-4.1"], true).expect("renders");
    let segments: u64 = desk["segments"]
        .as_array()
        .expect("segments")
        .iter()
        .filter_map(|s| s["tokens"].as_u64())
        .sum();
    assert_eq!(desk["costs"][0]["content_tokens"].as_u64(), Some(segments));

    // Prices need tokens; an unknown model is refused, naming the field.
    let uncounted = asked(Family::Chat, &["gpt-4.1"], false).expect("renders");
    assert!(uncounted.get("costs").is_none(), "{uncounted}");
    let e = asked(Family::Chat, &["gpt-4.1", "acme/nope"], true).expect_err("unknown model");
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(e.field.as_deref(), Some("models"));
    assert!(e.message.contains("\"acme/nope\""), "{e}");
}

#[test]
fn models_lists_the_built_in_table_for_the_picker() {
    let table: Json = serde_json::from_str(include_str!("../../data/models.json")).expect("json");
    let rows = table["models"].as_array().expect("rows");
    let out = json_of(&api::models());
    let models = out["models"].as_array().expect("models");
    assert_eq!(models.len(), rows.len());
    for (m, row) in models.iter().zip(rows) {
        assert_eq!(m["id"], row["id"]);
        assert_eq!(
            Some(m["provider"].as_str().unwrap_or("")),
            row["id"].as_str().and_then(|id| id.split('/').next())
        );
        assert_eq!(m["names"], row["models"]);
        assert_eq!(
            m["default"],
            row.get("default").cloned().unwrap_or(Json::Bool(false))
        );
        for k in ["input", "cached_input", "output"] {
            assert_eq!(
                m["prices_per_mtok"][k], row["prices_per_mtok"][k],
                "{} {k}",
                m["id"]
            );
        }
        let c = &row["cache"];
        assert_eq!(m["cache"]["min_tokens"], c["min_tokens"]);
        assert_eq!(m["cache"]["growth"], c["growth"]);
        assert_eq!(m["cache"]["ttl"], c["ttl"]);
        let urls: Vec<&Json> = m["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .map(|s| &s["url"])
            .collect();
        assert_eq!(
            Json::Array(urls.into_iter().cloned().collect()),
            row["sources"]
        );
        assert!(m["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .all(|s| s["read"] == row["read"]));
        // Writes, in TTL order, priced as the row prices them.
        let writes = m["prices_per_mtok"]["cache_write"]
            .as_array()
            .expect("writes");
        if c["writes_charged"] == Json::Bool(true) {
            let ttls: Vec<&Json> = writes.iter().map(|w| &w["ttl"]).collect();
            assert_eq!(Json::Array(ttls.into_iter().cloned().collect()), c["ttl"]);
            for w in writes {
                let ttl = w["ttl"].as_str().expect("ttl");
                assert_eq!(w["usd"], row["prices_per_mtok"]["cache_write"][ttl]);
            }
        }
    }
    // The summary says the rule as docs/models.md's table does.
    let by_id = |id: &str| models.iter().find(|m| m["id"] == id).expect(id).clone();
    assert_eq!(
        by_id("openai/gpt-5")["cache"]["summary"],
        "units of 128, from 1024 tokens"
    );
    assert_eq!(
        by_id("anthropic/claude-opus-4-5")["cache"]["summary"],
        "≤ 4 breakpoints, from 4096 tokens"
    );
    assert_eq!(
        by_id("google/gemini-2.5-flash")["cache"]["summary"],
        "implicit prefix, from 2048 tokens"
    );
    // The picker's default, the table's first default row.
    let first_default = rows
        .iter()
        .find(|r| r["default"] == Json::Bool(true))
        .expect("a default");
    assert_eq!(
        models
            .iter()
            .find(|m| m["default"] == Json::Bool(true))
            .map(|m| &m["id"]),
        Some(&first_default["id"])
    );
    let dispatched: Json =
        serde_json::from_str(&api::dispatch(&api::Live::new(), "models", "").expect("models"))
            .expect("json");
    assert_eq!(dispatched, out);
}

#[test]
fn render_errors_carry_positions() {
    let e = api::render(&render_req(bad_scene(), Family::Chat)).expect_err("does not load");
    assert_load_error(&e, 3, "name");
    assert_eq!(e.file, None, "the text came from the editor, not a file");

    let e = api::render(&api::RenderRequest {
        provider: Some(ChatProvider::Openai),
        ..render_req(api::default_scene().text, Family::Desk)
    })
    .expect_err("provider is for chat");
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(e.field.as_deref(), Some("provider"));
}

#[test]
fn validate_lists_every_template_and_tool_verdict() {
    let v = api::validate(&api::ValidateRequest {
        text: api::default_scene().text,
    });
    assert!(v.load_error.is_none());
    let paths: Vec<&str> = v.templates.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "chat_llm.system_msg_prompt[0].template.templates.default",
            "chat_llm.after_input_msg_prompt[0].template.templates.default",
            "desk_llm.system_prompt[0].template.templates.default",
            "desk_llm.current_desk_screenshot_prompt[0].template.templates.default",
            "desk_llm.purpose_prompt[0].template.templates.default",
            "tools[0].format_2_prompt.source.templates.default",
            "tools[1].format_2_prompt.source.templates.default",
            "tools[2].format_2_prompt.source.templates.default",
        ]
    );
    assert!(v.templates.iter().all(|t| t.error.is_none()));
    let notes = &v.templates[5];
    assert_eq!(
        (notes.owner, notes.tool.as_deref()),
        (Owner::Tool, Some("tf_notes"))
    );
    assert_eq!(notes.engine, "jinja2");
    let text = api::default_scene().text;
    let span = &text[notes.span[0] as usize..notes.span[1] as usize];
    assert!(
        span.starts_with("\"# 工作笔记"),
        "the span is the JSON string: {span}"
    );
    let config = &v.templates[0];
    assert_eq!(config.segment.as_deref(), Some("system_msg_prompt"));
    assert_eq!(config.tool, None);

    assert_eq!(v.tools.len(), 3);
    assert!(v.tools[0].valid && v.tools[1].valid);
    let bad = &v.tools[2];
    assert!(!bad.valid);
    assert_eq!(bad.exception.as_deref(), Some("ValueError"));
    assert_eq!(bad.rule.as_deref(), Some("iron_rule_1"));
    assert_eq!(bad.reason.as_deref(), Some("iron_rule_1"));
    assert_eq!(
        bad.family.as_deref(),
        Some("desk"),
        "purpose_prompt, its desk side"
    );
    assert!(bad.rule_reason.as_deref().is_some_and(|r| !r.is_empty()));
}

#[test]
fn validate_points_at_template_syntax_errors() {
    // An fstring syntax error on the second line, and a Jinja2 one.
    let text = default_with(
        r#""default": "Memo: {state}""#,
        r#""default": "Memo:\n  {state!x}""#,
    )
    .replacen("{% for n in state.notes %}", "{% for n in %}", 1);
    let v = api::validate(&api::ValidateRequest { text });
    let memo = v
        .templates
        .iter()
        .find(|t| t.path == "tools[1].format_2_prompt.source.templates.default")
        .expect("memo template");
    let e = memo.error.as_ref().expect("syntax error");
    assert_eq!(e.kind, "ValueError");
    // The whole replacement field is underlined, as CPython names the field.
    assert_eq!((e.line, e.column), (Some(2), Some(3)), "{e:?}");
    let source = "Memo:\n  {state!x}";
    let range = e.range.expect("range");
    assert_eq!(
        &source[range[0] as usize..range[1] as usize],
        "{state!x}",
        "{e:?}"
    );

    let notes = v
        .templates
        .iter()
        .find(|t| t.tool.as_deref() == Some("tf_notes"));
    let e = notes.and_then(|t| t.error.as_ref()).expect("jinja2 error");
    assert_eq!(e.kind, "TemplateSyntaxError");
    assert_eq!(e.line, Some(3));
    assert!(e.range.is_some());
}

#[test]
fn validate_reports_a_scene_that_does_not_load() {
    let v = api::validate(&api::ValidateRequest { text: bad_scene() });
    let e = v.load_error.expect("load error");
    assert_load_error(&e, 3, "name");
    assert!(v.templates.is_empty() && v.tools.is_empty());
}

#[test]
fn rules_are_the_fourteen_segments_and_three_rules() {
    let r = api::rules();
    assert_eq!(r.segments.len(), 14);
    assert_eq!(r.rules.len(), 3);
    let purpose = r
        .segments
        .iter()
        .find(|s| s.name == "purpose_prompt")
        .expect("segment");
    assert!(!purpose.legal);
    assert_eq!(purpose.rule.as_deref(), Some("iron_rule_1"));
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["rules", "--format", "json"])
        .output()
        .expect("run cli");
    let theirs: Json = serde_json::from_slice(&cli.stdout).expect("cli json");
    assert_eq!(json_of(&r), theirs);
}

#[test]
fn run_replays_the_loop_or_says_there_is_none() {
    let scene = fixture("run/cd-round-1.scene.json");
    let text = std::fs::read_to_string(&scene).expect("fixture");
    let out = api::run(&api::RunRequest {
        text,
        base_dir: None,
        models: Vec::new(),
    })
    .expect("runs");
    let mut report: Json = serde_json::to_value(&out.report).expect("json");
    // The API prices the rounds for the default models, as `run` prints; the golden holds the
    // loop without prices.
    let models = report
        .as_object_mut()
        .and_then(|o| o.remove("models"))
        .expect("priced");
    let ids: Vec<&str> = models
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["model"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert_eq!(models[0]["calls"].as_array().map(Vec::len), Some(3));
    // The rounds are short: each default model with a minimum (all but DeepSeek's, which caches
    // from the first token) has a finding, and only when priced.
    let lint = report
        .as_object_mut()
        .and_then(|o| o.remove("diagnostics"))
        .expect("the lint's findings");
    assert_eq!(lint.as_array().map(Vec::len), Some(ids.len() - 1), "{lint}");
    assert!(lint
        .as_array()
        .into_iter()
        .flatten()
        .all(|d| d["code"] == "cache_below_minimum"));
    let golden: Json = serde_json::from_str(
        &std::fs::read_to_string(fixture("run/cd-round-1.golden.json")).expect("golden"),
    )
    .expect("json");
    assert_eq!(report, golden["run"]);

    let e = api::run(&api::RunRequest {
        text: api::default_scene().text,
        base_dir: None,
        models: Vec::new(),
    })
    .expect_err("no run");
    assert_eq!(e.code, ErrorCode::NoRun);
    let e = api::run(&api::RunRequest {
        text: bad_scene(),
        base_dir: None,
        models: Vec::new(),
    })
    .expect_err("bad");
    assert_load_error(&e, 3, "name");
}

#[test]
fn check_then_approve_then_check_ok() {
    let dir = tempdir("check");
    let scene = dir.join("a.scene.json");
    std::fs::write(&scene, api::default_scene().text).expect("write");
    std::fs::write(dir.join("broken.scene.json"), bad_scene()).expect("write");
    let folder = api::CheckRequest {
        folder: path_str(&dir),
    };

    let first = api::check(&folder).expect("checks");
    assert_eq!((first.passed, first.failed), (0, 2));
    let a = &first.scenes[0];
    assert_eq!(a.status, CheckStatus::MissingGolden);
    assert!(a.golden.is_none() && a.current.is_some());
    let broken = &first.scenes[1];
    assert_eq!(broken.status, CheckStatus::Unreadable);
    assert_load_error(broken.error.as_ref().expect("why"), 3, "name");

    let approved = api::approve(&api::ApproveRequest {
        scene_path: path_str(&scene),
    })
    .expect("approves");
    let golden = dir.join("a.golden.json");
    assert_eq!(approved.golden_path, path_str(&golden));
    assert!(golden.is_file());

    let second = api::check(&folder).expect("checks");
    assert_eq!(second.scenes[0].status, CheckStatus::Ok);
    assert_eq!(second.passed, 1);

    // Change the scene: a mismatch with both documents and the diff.
    let changed = default_with("You are TFRobot", "You are TFBot");
    std::fs::write(&scene, changed).expect("write");
    let third = api::check(&folder).expect("checks");
    let a = &third.scenes[0];
    assert_eq!(a.status, CheckStatus::Mismatch);
    let diff = a.diff.as_deref().expect("diff");
    assert!(
        diff.contains("-") && diff.contains("+") && diff.contains("TFBot"),
        "{diff}"
    );
    let before: Json =
        serde_json::from_str(a.golden.as_ref().expect("golden").get()).expect("json");
    let now: Json = serde_json::from_str(a.current.as_ref().expect("current").get()).expect("json");
    assert_eq!(before["scene"], "tf-notes-demo");
    assert_ne!(before["chat"], now["chat"]);
    assert_eq!(json_of(&third)["scenes"][0]["status"], "mismatch");

    let e = api::approve(&api::ApproveRequest {
        scene_path: path_str(&dir.join("broken.scene.json")),
    })
    .expect_err("does not load");
    assert_load_error(&e, 3, "name");
}

#[test]
fn check_refuses_an_empty_or_missing_folder() {
    let dir = tempdir("check-empty");
    let e = api::check(&api::CheckRequest {
        folder: path_str(&dir),
    })
    .expect_err("empty");
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(e.field.as_deref(), Some("folder"));
    let e = api::check(&api::CheckRequest {
        folder: path_str(&dir.join("nope")),
    })
    .expect_err("missing");
    assert_eq!(e.code, ErrorCode::IoError);
}

#[test]
fn template_playground_renders_or_points_at_the_error() {
    let ok = api::template(&api::TemplateRequest {
        engine: api::EngineName::Fstring,
        template: "Hi {name!r}, {n}".into(),
        vars: serde_json::from_str(r#"{"name": "Ada", "n": 1.0}"#).expect("json"),
    })
    .expect("renders");
    assert_eq!(ok.text, "Hi 'Ada', 1.0", "floats keep Python's repr");

    let e = api::template(&api::TemplateRequest {
        engine: api::EngineName::Jinja2,
        template: "line one\n{{ x + }}".into(),
        vars: serde_json::json!({}),
    })
    .expect_err("syntax error");
    assert_eq!(e.code, ErrorCode::TemplateError);
    assert_eq!(e.kind.as_deref(), Some("TemplateSyntaxError"));
    assert_eq!(e.line, Some(2));
    assert!(e.range.is_some() && e.column.is_some(), "{e:?}");

    let e = api::template(&api::TemplateRequest {
        engine: api::EngineName::Fstring,
        template: "{missing}".into(),
        vars: serde_json::json!({}),
    })
    .expect_err("key error");
    assert_eq!(e.kind.as_deref(), Some("KeyError"));
    assert_eq!(e.range, Some([0, 9]));

    let e = api::template(&api::TemplateRequest {
        engine: api::EngineName::Fstring,
        template: "x".into(),
        vars: serde_json::json!([1]),
    })
    .expect_err("not an object");
    assert_eq!(e.field.as_deref(), Some("vars"));
}

#[test]
fn dispatch_names_every_operation_and_refuses_bad_bodies() {
    for op in api::OPERATIONS {
        let e = api::dispatch(&api::Live::new(), op, "{not json");
        if matches!(op, "default_scene" | "rules" | "models" | "about") {
            assert!(e.is_ok(), "{op} takes no request");
        } else {
            let e = e.expect_err("bad body");
            assert_eq!(e.code, ErrorCode::BadRequest, "{op}");
            assert_eq!(e.line, Some(1), "{op}");
        }
    }
    let e = api::dispatch(&api::Live::new(), "nope", "{}").expect_err("unknown");
    assert_eq!(e.code, ErrorCode::UnknownOperation);
    let body = serde_json::json!({"text": api::default_scene().text, "llm": "desk"}).to_string();
    let out: Json =
        serde_json::from_str(&api::dispatch(&api::Live::new(), "render", &body).expect("renders"))
            .expect("json");
    assert_eq!(out["report"]["llm"], "desk");
    let e = api::dispatch(
        &api::Live::new(),
        "render",
        r#"{"text": "{}", "llm": "both"}"#,
    )
    .expect_err("bad llm");
    assert_eq!(e.code, ErrorCode::BadRequest);
}

/// I/O errors carry the path in `file` only: `Display` (and the UI's `errorText`) put `file`
/// before the message, so a message naming it too said it twice (`x: x: No such file ...`).
#[test]
fn io_errors_name_the_path_once() {
    let dir = tempdir("path-once");
    let missing = dir.join("missing.scene.json");
    let shown = path_str(&missing);
    let once = |e: &ApiError| {
        assert_eq!(e.code, ErrorCode::IoError, "{e:?}");
        assert_eq!(e.file.as_deref(), Some(shown.as_str()), "{e:?}");
        assert!(!e.message.contains(&shown), "{e:?}");
        let text = e.to_string();
        assert_eq!(text.matches(&shown).count(), 1, "{text}");
        assert!(text.starts_with(&format!("{shown}: ")), "{text}");
    };
    let request = || api::PathRequest {
        path: shown.clone(),
    };
    once(&api::open(&request()).expect_err("missing"));
    once(&api::stat(&request()).expect_err("missing"));
    let folder = dir.join("nope");
    let e = api::check(&api::CheckRequest {
        folder: path_str(&folder),
    })
    .expect_err("missing folder");
    assert_eq!(e.to_string().matches(&path_str(&folder)).count(), 1, "{e}");
    // In words, not the system's number.
    assert_eq!(e.message, "no such folder", "{e:?}");
    for e in [
        api::open(&request()).expect_err("missing"),
        api::stat(&request()).expect_err("missing"),
    ] {
        assert_eq!(e.message, "no such file", "{e:?}");
    }
    let e = api::save(&api::SaveRequest {
        path: path_str(&folder.join("x.scene.json")),
        text: prompt_inspector::scene::DEFAULT_SCENE.to_owned(),
        recording: false,
    })
    .expect_err("no folder to write in");
    assert_eq!(e.message, "no such folder to write it in", "{e:?}");
}

/// `fixtures/rules.json` is what the core's `rules` operation answers (the UI's tests adopt the
/// segment and adapter lists from it, as the app does from the operation at start-up).
#[test]
fn the_rules_fixture_is_the_cores_answer() {
    let path = fixture("rules.json");
    let on_disk: Json =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixtures/rules.json"))
            .expect("JSON");
    let now = serde_json::to_value(api::rules()).expect("rules serialise");
    assert_eq!(
        on_disk, now,
        "fixtures/rules.json is stale: regenerate it with `prompt-inspector rules --format json > fixtures/rules.json`"
    );
    let adapters: Vec<&str> = now["adapters"]
        .as_array()
        .expect("adapters")
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    assert_eq!(adapters.first(), Some(&"openai_desk"), "the default first");
    assert_eq!(adapters.len(), 8);
}

#[test]
fn golden_compares_scene_text_with_a_golden_anywhere_as_check_does() {
    let dir = tempdir("golden");
    let text = api::default_scene().text;
    let golden_path = dir.join("notes.golden.json");
    let req = |text: &str, bless: bool| api::GoldenRequest {
        text: text.to_owned(),
        base_dir: None,
        golden_path: golden_path.display().to_string(),
        bless,
    };
    let missing = api::golden(&req(&text, false)).expect("compares");
    assert_eq!(missing.status, CheckStatus::MissingGolden);
    assert!(!golden_path.exists());
    let written = api::golden(&req(&text, true)).expect("blesses");
    assert!(written.written);
    // The golden is the one `check` writes for the same scene.
    let scene = prompt_inspector::scene::load_str(&text).expect("loads");
    assert_eq!(
        std::fs::read_to_string(&golden_path).expect("written"),
        prompt_inspector::check::golden_text(&scene)
    );
    assert_eq!(
        api::golden(&req(&text, false)).expect("ok").status,
        CheckStatus::Ok
    );
    let renamed = text.replacen("\"tf-notes-demo\"", "\"renamed\"", 1);
    let mismatch = api::golden(&req(&renamed, false)).expect("compares");
    assert_eq!(mismatch.status, CheckStatus::Mismatch);
    let diff = mismatch.diff.expect("a diff");
    assert!(diff.contains("-  \"scene\": \"tf-notes-demo\","), "{diff}");
    assert!(diff.contains("+  \"scene\": \"renamed\","), "{diff}");
    let bad = api::golden(&req("{", false)).expect_err("does not load");
    assert_eq!(bad.code, ErrorCode::LoadError);
}

/// The `version` of a Cargo.toml's `[package]` table, read as text (an independent source for
/// the version the code reports).
fn package_version(manifest: &Path) -> String {
    let text = std::fs::read_to_string(manifest).expect("read the manifest");
    // Each table starts a line; the first one may start the file.
    let package = format!("\n{text}")
        .split("\n[")
        .find(|table| table.starts_with("package]"))
        .expect("a [package] table")
        .to_owned();
    package
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("a version line")
        .to_owned()
}

/// `about` names the core and its Cargo.toml version, over dispatch (serve) as in Rust, and it is
/// the version the command line prints.
#[test]
fn about_names_the_core_and_its_version() {
    let version = package_version(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let about = api::about();
    assert_eq!(about.name, "prompt-inspector");
    assert_eq!(about.version, version);
    let answered: Json =
        serde_json::from_str(&api::dispatch(&api::Live::new(), "about", "").expect("about"))
            .expect("json");
    assert_eq!(
        answered,
        serde_json::json!({"name": "prompt-inspector", "version": version})
    );
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .arg("--version")
        .output()
        .expect("run prompt-inspector --version");
    assert_eq!(
        String::from_utf8_lossy(&cli.stdout).trim(),
        format!("prompt-inspector {version}")
    );
}

/// The Live view saves received calls as JSON lines through `save`: a recording `import` reads is
/// written (and reads back as its calls), anything else is refused and nothing is written.
#[test]
fn save_writes_a_recording_that_imports_and_refuses_one_that_does_not() {
    let dir = tempdir("save-recording");
    let export: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            crate::support::root().join("fixtures/import/otel/agent-trace.json"),
        )
        .expect("fixture"),
    )
    .expect("JSON");
    let text = format!("{export}\n");
    let file = dir.join("calls.jsonl");
    api::save(&api::SaveRequest {
        path: path_str(&file),
        text: text.clone(),
        recording: true,
    })
    .expect("a recording is saved");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), text);
    let imported = prompt_inspector::import::import_file(&file, None).expect("it imports back");
    assert!(!imported.scenes.is_empty());

    let refused = dir.join("refused.jsonl");
    let e = api::save(&api::SaveRequest {
        path: path_str(&refused),
        text: "{\"not\": \"a recording\"}\n".to_owned(),
        recording: true,
    })
    .expect_err("not a recording");
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(e.field.as_deref(), Some("text"));
    assert!(e.message.starts_with("refused.jsonl: "), "{}", e.message);
    assert!(!refused.exists());
}
