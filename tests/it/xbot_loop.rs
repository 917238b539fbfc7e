//! xbot's run loop: the dynamic-context injector and the system reminder mirror xbot's
//! own tests (`agent/dynamic_context_test.go`, the reminder's parts), then the loop, the strict
//! `run` reader, the cache figures and the cache-blame goldens.

use std::path::PathBuf;
use std::process::Command;

use prompt_inspector::runloop::{self, cache, dynamic_context, reminder, RunMessage};
use prompt_inspector::scene::{self, Role};

fn tool_msg(content: &str) -> RunMessage {
    RunMessage::new(Role::Tool, content)
}

fn user(content: &str) -> RunMessage {
    RunMessage::new(Role::User, content)
}

// ── The injector, as xbot tests it ──

#[test]
fn first_call_records_the_baseline_and_injects_nothing() {
    let mut inj = dynamic_context::Injector::new();
    let mut msgs = vec![tool_msg("some tool result")];
    assert_eq!(
        inj.inject_if_needed(&mut msgs, "/workspace"),
        dynamic_context::Outcome::Baseline
    );
    assert_eq!(msgs[0].content, "some tool result");
}

#[test]
fn no_change_injects_nothing() {
    let mut inj = dynamic_context::Injector::new();
    inj.inject_if_needed(&mut [], "/workspace");
    let mut msgs = vec![tool_msg("tool result")];
    assert_eq!(
        inj.inject_if_needed(&mut msgs, "/workspace"),
        dynamic_context::Outcome::Unchanged
    );
    assert_eq!(msgs[0].content, "tool result");
}

#[test]
fn a_change_appends_the_block_to_the_last_message() {
    let mut inj = dynamic_context::Injector::new();
    inj.inject_if_needed(&mut [], "/workspace");
    let mut msgs = vec![user("q"), tool_msg("changed directory")];
    assert_eq!(
        inj.inject_if_needed(&mut msgs, "/workspace/subdir"),
        dynamic_context::Outcome::Changed
    );
    assert_eq!(msgs[0].content, "q");
    assert_eq!(
        msgs[1].content,
        "changed directory\n\n<dynamic-context>\n环境变化:\n- 当前目录已切换为：/workspace/subdir，切换后所有 Shell 命令在新目录执行\n</dynamic-context>"
    );
}

#[test]
fn several_changes_each_inject_the_latest_directory() {
    let mut inj = dynamic_context::Injector::new();
    inj.inject_if_needed(&mut [], "/workspace");
    let mut m1 = vec![tool_msg("result1")];
    assert_eq!(
        inj.inject_if_needed(&mut m1, "/workspace/a"),
        dynamic_context::Outcome::Changed
    );
    let mut m2 = vec![tool_msg("result2")];
    assert_eq!(
        inj.inject_if_needed(&mut m2, "/workspace/a"),
        dynamic_context::Outcome::Unchanged
    );
    assert_eq!(m2[0].content, "result2");
    let mut m3 = vec![tool_msg("result3")];
    assert_eq!(
        inj.inject_if_needed(&mut m3, "/workspace/a/b"),
        dynamic_context::Outcome::Changed
    );
    assert!(m3[0].content.contains("当前目录已切换为：/workspace/a/b，"));
}

#[test]
fn an_empty_message_list_still_reports_the_change() {
    let mut inj = dynamic_context::Injector::new();
    inj.inject_if_needed(&mut [], "/workspace");
    assert_eq!(
        inj.inject_if_needed(&mut [], "/workspace/changed"),
        dynamic_context::Outcome::Changed
    );
    // The change was recorded: the same directory again is no change.
    assert_eq!(
        inj.inject_if_needed(&mut [], "/workspace/changed"),
        dynamic_context::Outcome::Unchanged
    );
}

#[test]
fn a_sub_agent_with_only_an_initial_directory_never_injects() {
    let mut inj = dynamic_context::Injector::new();
    let mut msgs = vec![tool_msg("result")];
    inj.inject_if_needed(&mut msgs, "/workspace/project");
    assert_eq!(
        inj.inject_if_needed(&mut msgs, "/workspace/project"),
        dynamic_context::Outcome::Unchanged
    );
    assert_eq!(msgs[0].content, "result");
}

#[test]
fn an_empty_directory_counts_as_a_first_call_every_time() {
    let mut inj = dynamic_context::Injector::new();
    let mut msgs = vec![tool_msg("r")];
    assert_eq!(
        inj.inject_if_needed(&mut msgs, ""),
        dynamic_context::Outcome::Baseline
    );
    assert_eq!(
        inj.inject_if_needed(&mut msgs, ""),
        dynamic_context::Outcome::Baseline
    );
    assert_eq!(
        inj.inject_if_needed(&mut msgs, "/a"),
        dynamic_context::Outcome::Baseline
    );
    assert_eq!(msgs[0].content, "r");
    assert_eq!(
        inj.inject_if_needed(&mut msgs, "/b"),
        dynamic_context::Outcome::Changed
    );
}

// ── The reminder's parts ──

#[test]
fn the_reminder_counts_every_tool_message_and_names_this_rounds_tools() {
    let msgs = vec![
        RunMessage::new(Role::System, "sys"),
        user("fix the bug"),
        RunMessage::new(Role::Assistant, ""),
        tool_msg("a"),
        tool_msg("b"),
        RunMessage::new(Role::Assistant, ""),
        tool_msg("c"),
    ];
    let text = reminder::build(&msgs, &["Read", "Shell"], None);
    assert_eq!(
        text,
        "<system-reminder>\n用户原始需求: fix the bug\n已完成 3 次工具调用\n本轮使用: Read, Shell\n\
         行为提醒:\n- 优先编辑已有文件，避免创建新文件\n- 修改后运行测试验证\n- 错误时先分析根因再修改\n</system-reminder>"
    );
}

#[test]
fn the_reminder_shows_the_todo_only_when_there_is_one() {
    let msgs = vec![user("x"), tool_msg("r")];
    assert!(reminder::build(&msgs, &["A"], Some("[ ] step 2"))
        .contains("\n本轮使用: A\nTODO: [ ] step 2\n行为提醒:\n"));
    assert!(!reminder::build(&msgs, &["A"], Some("")).contains("TODO"));
    assert!(!reminder::build(&msgs, &["A"], None).contains("TODO"));
}

#[test]
fn the_goal_is_the_first_non_empty_user_message_trimmed_and_cut_at_500_characters() {
    let long = "目".repeat(499) + "标X" + "尾巴";
    let msgs = vec![user("   \n "), user(&format!("  {long}  ")), user("later")];
    let goal = reminder::goal(&msgs).expect("a goal");
    assert_eq!(goal.chars().count(), 503);
    assert_eq!(goal, "目".repeat(499) + "标...");
    // Exactly 500 characters: no cut.
    let exact = "a".repeat(500);
    assert_eq!(reminder::goal(&[user(&exact)]), Some(exact));
    // No user message: no goal line at all.
    let text = reminder::build(&[tool_msg("r")], &["A"], None);
    assert!(text.starts_with("<system-reminder>\n已完成 1 次工具调用\n"));
}

// ── The loop ──

fn run_scene(run: &str) -> prompt_inspector::scene::Scene {
    let text = format!(r#"{{ "format": "prompt-inspector/scene@1", "run": {run} }}"#);
    scene::load_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn the_system_message_sorts_parts_as_strings_skips_empty_ones_and_history_systems_are_dropped() {
    let s = run_scene(
        r#"{ "system_parts": { "9_z": "nine", "10_a": "ten", "05_e": "" },
             "history": [ { "role": "system", "content": "old" }, { "role": "user", "content": "h" } ],
             "user_message": "u",
             "iterations": [ { "assistant": { "role": "assistant", "content": "done" } } ] }"#,
    );
    let r = runloop::replay(s.run.as_ref().expect("run"));
    let req = r.request(0);
    assert_eq!(req[0].content, "ten\nnine");
    assert_eq!(req[0].cache_hint, Some("static"));
    assert_eq!(r.system.skipped, ["05_e"]);
    assert_eq!(r.dropped_system_messages, 1);
    let roles: Vec<_> = req.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["system", "user", "user"]);
}

#[test]
fn the_loop_ends_at_the_first_round_without_tool_calls() {
    let s = run_scene(
        r#"{ "initial_cwd": "/a", "system_parts": { "00_base": "S" }, "user_message": "go",
             "iterations": [
               { "assistant": { "role": "assistant", "content": "", "tool_calls": [ { "id": "1", "name": "Cd", "arguments": "{}" } ] },
                 "tool_results": [ { "role": "tool", "content": "ok", "tool_call_id": "1" } ], "cwd_after": "/b" },
               { "assistant": { "role": "assistant", "content": "",
                   "tool_calls": [ { "id": "2", "type": "function", "function": { "name": "Cd", "arguments": "{}" } } ] },
                 "tool_results": [ { "role": "tool", "content": "ok2", "tool_call_id": "2" } ], "cwd_after": "/c" },
               { "assistant": { "role": "assistant", "content": "text answer" } },
               { "assistant": { "role": "assistant", "content": "", "tool_calls": [ { "id": "3", "name": "X" } ] } }
             ] }"#,
    );
    let r = runloop::replay(s.run.as_ref().expect("run"));
    assert_eq!(r.iterations.len(), 3);
    assert_eq!(r.ignored_iterations, 1);
    assert!(r.next_request().is_none());
    // Round 1's change to /b is the baseline; round 2's change to /c is reported.
    assert_eq!(r.iterations[0].dynamic_context, Some("baseline"));
    assert_eq!(r.iterations[0].injected.len(), 1);
    assert_eq!(r.iterations[1].dynamic_context, Some("changed"));
    assert_eq!(r.iterations[1].injected[0], dynamic_context::block("/c"));
    assert!(r.iterations[2].injected.is_empty());
    assert_eq!(r.iterations[2].dynamic_context, None);
    // The blocks land on the last tool result, dynamic context first, each after "\n\n".
    let last = &r.request(2).last().expect("messages").content;
    assert_eq!(
        *last,
        format!(
            "ok2\n\n{}\n\n{}",
            r.iterations[1].injected[0], r.iterations[1].injected[1]
        )
    );
    // The loop only appends: each request starts with the whole previous one.
    for w in r.iterations.windows(2) {
        assert_eq!(
            w[1].cache.common_prefix_bytes,
            Some(w[0].cache.request_bytes)
        );
        assert_eq!(w[1].cache.system_identical, Some(true));
    }
    assert_eq!(r.iterations[0].cache.common_prefix_bytes, None);
}

#[test]
fn blocks_go_to_the_assistant_turn_when_a_round_has_no_tool_results() {
    let s = run_scene(
        r#"{ "system_parts": {}, "user_message": "go",
             "iterations": [ { "assistant": { "role": "assistant", "content": "calling", "tool_calls": [ { "id": "1", "name": "T" } ] } } ] }"#,
    );
    let r = runloop::replay(s.run.as_ref().expect("run"));
    assert_eq!(r.iterations[0].appended_to, Some("assistant"));
    let next = r
        .next_request()
        .expect("the recording ends after a tool round");
    assert!(next[2].content.starts_with(
        "calling\n\n<system-reminder>\n用户原始需求: go\n已完成 0 次工具调用\n本轮使用: T\n"
    ));
}

// ── The strict reader ──

#[test]
fn run_errors_name_the_line_column_and_field_path() {
    let text = "{ \"format\": \"prompt-inspector/scene@1\", \"run\": { \"user_message\": \"u\", \"iterations\": [\n\
        { \"assistant\": { \"role\": \"assistant\" } },\n\
        { \"assistant\": { \"role\": \"assistant\" } },\n\
        { \"assistant\": { \"role\": \"assistant\", \"tool_calls\": [ 7 ] } } ] } }";
    let e = scene::load_str(text).expect_err("a number is not a tool call");
    assert_eq!(e.path, "run.iterations[2].assistant.tool_calls[0]");
    assert_eq!((e.line, e.column), (4, 55));
    assert!(e.message.contains("expected a tool call object"), "{e}");

    let unknown = r#"{ "format": "prompt-inspector/scene@1", "run": { "user_message": "u", "iterations": [ { "assistant": { "role": "assistant" }, "cwd": "/x" } ] } }"#;
    let e = scene::load_str(unknown).expect_err("unknown field");
    assert_eq!(e.path, "run.iterations[0].cwd");
    assert!(e.message.contains("unknown field \"cwd\""), "{e}");

    let parts = r#"{ "format": "prompt-inspector/scene@1", "run": { "user_message": "u", "system_parts": { "00_base": ["x"] } } }"#;
    let e = scene::load_str(parts).expect_err("a part is text");
    assert_eq!(e.path, "run.system_parts.00_base");

    let content = r#"{ "format": "prompt-inspector/scene@1", "run": { "user_message": "u", "history": [ { "role": "user", "content": [] } ] } }"#;
    let e = scene::load_str(content).expect_err("run messages have string content");
    assert_eq!(e.path, "run.history[0].content");

    let missing = r#"{ "format": "prompt-inspector/scene@1", "run": { } }"#;
    let e = scene::load_str(missing).expect_err("user_message is required");
    assert!(e.message.contains("missing field \"user_message\""), "{e}");
}

// ── Cache figures and blame ──

#[test]
fn openai_caches_from_1024_tokens_in_128_token_steps() {
    assert_eq!(cache::openai_cached_tokens(1023), 0);
    assert_eq!(cache::openai_cached_tokens(1024), 1024);
    assert_eq!(cache::openai_cached_tokens(1151), 1024);
    assert_eq!(cache::openai_cached_tokens(1152), 1152);
    assert_eq!(cache::common_prefix_bytes("system\nabc", "system\nabd"), 9);
    // A byte prefix cut inside a character is tokenized up to the character before it.
    assert_eq!(cache::prefix_text("日本", 4), "日");
}

fn cache_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cache")
        .join(name)
}

fn steps(name: &str) -> Vec<PathBuf> {
    let dir = cache_dir(name);
    let mut v: Vec<PathBuf> =
        prompt_inspector::check::discover(std::slice::from_ref(&dir)).expect("cache fixtures");
    v.sort();
    v
}

/// The conversation of `fixtures/cache/<name>/`, priced for the built-in default models.
fn blame(name: &str) -> prompt_inspector::runloop::blame::CacheReport {
    let table = prompt_inspector::pricing::Table::builtin();
    let models = table.select(&[]).expect("the default models");
    prompt_inspector::conversation::blame_files(&steps(name), &models)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The cache conversations' goldens: `fixtures/cache/<name>/cache.golden.json` holds the output of
/// `prompt-inspector cache --format json` over the folder's scenes in file order. Regenerate with
/// that command after a reviewed change.
#[test]
fn the_cache_conversations_match_their_goldens() {
    for name in ["system-notes", "late-notes", "schema-change"] {
        let report = blame(name);
        let mut now = prompt_inspector::json_out::to_string_pretty(&report);
        now.push('\n');
        let golden_path = cache_dir(name).join("cache.golden.json");
        let golden = std::fs::read_to_string(&golden_path).expect("cache golden");
        assert!(
            golden == now,
            "{}",
            prompt_inspector::check::unified_diff(
                &golden,
                &now,
                &golden_path.display().to_string()
            )
        );
    }
}

#[test]
fn a_tool_in_the_system_segment_breaks_the_prefix_and_a_late_one_keeps_it() {
    let early = blame("system-notes");
    let late = blame("late-notes");
    for s in &early.steps[1..] {
        let now = s
            .first_difference
            .as_ref()
            .and_then(|d| d.now.as_ref())
            .expect("a difference");
        assert_eq!(
            (now.message, now.source, now.tool.as_deref()),
            (Some(0), "tool", Some("tf_notes"))
        );
        assert_eq!(s.openai.cached_tokens, 0);
        assert_eq!(s.anthropic.cached_tokens, 0);
    }
    for s in &late.steps[1..] {
        assert!(s.common_prefix_tokens.unwrap_or(0) >= 1024);
        assert!(s.openai.cached_tokens >= 1024);
        assert!(s.anthropic.cached_tokens >= 1024);
        assert!(s.anthropic.breakpoints.len() <= 4);
    }
}

/// The money side of the same two conversations: with the tool in the system message nothing is
/// read back after the first call (for the caches that charge writes it costs more than no
/// caching), with it late the prefix is read back; and the what-if of the early tool is the late
/// conversation's cost, which the tool's placement adds.
#[test]
fn the_early_tool_costs_money_and_its_what_if_says_how_much() {
    let early = blame("system-notes");
    let late = blame("late-notes");
    let ids: Vec<&str> = early.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(
        ids,
        [
            "openai/gpt-5",
            "anthropic/claude-sonnet-4-5",
            "google/gemini-2.5-flash",
            "deepseek/deepseek-flash"
        ]
    );
    let anthropic = |r: &prompt_inspector::runloop::blame::CacheReport| r.models[1].clone();
    let (e, l) = (anthropic(&early), anthropic(&late));
    assert_eq!(
        e.total.cache_read_tokens, 0,
        "the system message changes every call"
    );
    assert!(
        e.total.cost_usd > e.total.uncached_cost_usd,
        "writes that are never read back cost more than no caching"
    );
    assert!(l.total.cache_read_tokens > 0);
    assert!(l.total.saving_usd > 0.0);
    // Each call's input is split exactly into read, written and uncached tokens.
    for (m, report) in [(&e, &early), (&l, &late)] {
        for (c, s) in m.calls.iter().zip(&report.steps) {
            assert_eq!(
                c.cache_read_tokens + c.cache_write_tokens + c.uncached_tokens,
                s.request_tokens
            );
        }
    }
    assert!(
        late.what_if.is_empty(),
        "the late tool is already as late as it can be"
    );
    let [w] = early.what_if.as_slice() else {
        panic!("one early tool: {:?}", early.what_if)
    };
    assert_eq!(
        (w.tool.as_str(), w.from.as_str(), w.to),
        (
            "tf_notes",
            "system_msg_prompt",
            "after_intermediate_msg_prompt"
        )
    );
    for (m, cost) in w.models.iter().zip(&early.models) {
        assert_eq!(m.cost_usd, cost.total.cost_usd);
        assert_eq!(
            m.placement_cost_usd,
            prompt_inspector::pricing::cost::round_usd(m.cost_usd - m.moved_cost_usd)
        );
    }
    assert!(
        w.models[0].placement_cost_usd > 0.0,
        "OpenAI: the early tool costs"
    );
    assert!(
        w.models[1].placement_cost_usd > 0.0,
        "Anthropic: the early tool costs"
    );
}

#[test]
fn run_without_a_run_field_exits_2() {
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenes/empty.scene.json");
    let o = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["run", &scene.display().to_string()])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no \"run\" field"));
    let run = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/run/cd-round-2.scene.json");
    let o = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["run", &run.display().to_string(), "--format", "text"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0));
    // The text is wrapped for a terminal: compare it with its line breaks as spaces.
    let text = String::from_utf8_lossy(&o.stdout);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("injected: the directory changed from /work/repo to /work/repo/docs"),
        "{text}"
    );
}

/// `user_message` is a string or a message, as xbot's `ChatMessage` is: the message is sent as
/// written (its name too), gives the reminder its goal, and any role but `user` is refused with
/// the field named.
#[test]
fn the_user_message_may_be_a_message_with_role_user() {
    let as_text = run_scene(
        r#"{ "system_parts": { "00_base": "S" }, "user_message": "  go  ",
             "iterations": [ { "assistant": { "role": "assistant", "content": "done" } } ] }"#,
    );
    let as_message = run_scene(
        r#"{ "system_parts": { "00_base": "S" },
             "user_message": { "role": "user", "content": "  go  ", "name": "alice" },
             "iterations": [ { "assistant": { "role": "assistant", "content": "done" } } ] }"#,
    );
    let text = runloop::replay(as_text.run.as_ref().expect("run"));
    let message = runloop::replay(as_message.run.as_ref().expect("run"));
    let (sent_text, sent_message) = (&text.request(0)[1], &message.request(0)[1]);
    assert_eq!(sent_message.role, Role::User);
    assert_eq!(sent_message.content, sent_text.content);
    assert_eq!(sent_message.name.as_deref(), Some("alice"));
    assert_eq!(sent_text.name, None);

    let wrong = r#"{ "format": "prompt-inspector/scene@1", "run": { "user_message": { "role": "assistant", "content": "x" } } }"#;
    let e = scene::load_str(wrong).expect_err("an assistant turn is not the user's message");
    assert!(
        e.message.contains("must have role \"user\"") && e.to_string().contains("run.user_message"),
        "{e}"
    );
    let number = r#"{ "format": "prompt-inspector/scene@1", "run": { "user_message": 3 } }"#;
    let e = scene::load_str(number).expect_err("a number is no message");
    assert!(e.message.contains("a string or a message"), "{e}");
}

#[test]
fn cache_refuses_an_unknown_model_and_a_bad_models_table_before_rendering() {
    let scenes: Vec<String> = steps("late-notes")
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let cache = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
            .arg("cache")
            .args(extra)
            .args(&scenes)
            .output()
            .expect("cache")
    };
    let o = cache(&["--model", "acme/none"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no model \"acme/none\" in the table"), "{err}");
    let dir = std::env::temp_dir().join(format!("pi-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("models.json");
    std::fs::write(
        &bad,
        "{\n  \"format\": \"prompt-inspector/models@1\",\n  \"models\": [1]\n}\n",
    )
    .expect("write");
    let o = cache(&["--models", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("models.json:3:14: invalid type: integer `1`, expected struct Row"),
        "{err}"
    );
    // A table of its own, chosen by a model name, prices with its own numbers.
    let own = r#"{"format": "prompt-inspector/models@1", "models": [{"id": "acme/a1", "models": ["a1"],
      "cache": {"min_tokens": 1024, "growth": "units", "unit_tokens": 128, "order": ["messages"], "ttl": ["auto"], "writes_charged": false},
      "prices_per_mtok": {"input": 1000000.0, "cached_input": 0.0, "output": 0.0},
      "sources": ["https://example.com"], "read": "2026-12-01"}]}"#;
    std::fs::write(&bad, own).expect("write");
    let o = cache(&[
        "--models",
        &bad.display().to_string(),
        "--model",
        "a1",
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let first = &report["models"][0]["calls"][0];
    assert_eq!(report["models"][0]["model"], "acme/a1");
    // $1 per token: the first call costs as many dollars as it has tokens.
    assert_eq!(
        first["cost_usd"].as_f64(),
        first["uncached_tokens"].as_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// xbot's one breakpoint on its static system message: a breakpoint cache writes the system
/// message on the first round and reads it back on every later one (it never changes), and an
/// automatic cache reads each request's whole predecessor; every round's input is split exactly.
#[test]
fn a_run_is_priced_round_by_round_for_each_cache_rule() {
    let table = prompt_inspector::pricing::Table::parse(
        r#"{"format": "prompt-inspector/models@1", "models": [
          {"id": "t/bp", "models": [], "cache": {"min_tokens": 1, "growth": "breakpoints", "max_breakpoints": 4,
            "order": ["system", "messages"], "ttl": ["5m"], "writes_charged": true},
           "prices_per_mtok": {"input": 1.0, "cached_input": 0.1, "cache_write": {"5m": 1.25}, "output": 0.0},
           "sources": ["https://example.com"], "read": "2026-12-01"},
          {"id": "t/auto", "models": [], "cache": {"min_tokens": 1, "growth": "implicit_prefix",
            "order": ["system", "messages"], "ttl": ["auto"], "writes_charged": false},
           "prices_per_mtok": {"input": 1.0, "cached_input": 0.1, "output": 0.0},
           "sources": ["https://example.com"], "read": "2026-12-01"}]}"#,
        "t.json",
    )
    .expect("table");
    let models: Vec<&prompt_inspector::pricing::Row> = table.models.iter().collect();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/run/long-goal.scene.json");
    let scene = prompt_inspector::scene::load_file(&path).expect("loads");
    let mut report = prompt_inspector::runloop::replay(scene.run.as_ref().expect("a run"));
    report.price(&models);
    let [bp, auto] = report.models.as_slice() else {
        panic!("two models")
    };
    let system = report.iterations[0].cache.system_tokens;
    assert!(system > 0);
    assert_eq!(bp.calls[0].cache_write_tokens, system);
    assert_eq!(bp.calls[0].cache_read_tokens, 0);
    for c in &bp.calls[1..] {
        assert_eq!((c.cache_read_tokens, c.cache_write_tokens), (system, 0));
    }
    for (i, (c, it)) in auto.calls.iter().zip(&report.iterations).enumerate() {
        assert_eq!(
            c.cache_read_tokens,
            it.cache.common_prefix_tokens.unwrap_or(0),
            "round {i}"
        );
        assert_eq!(
            c.cache_read_tokens + c.uncached_tokens,
            it.cache.request_tokens
        );
    }
}
