//! `render`, `rules` and `check` as docs/cli.md fixes them: outputs and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(args)
        .output()
        .expect("run prompt-inspector")
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
        .display()
        .to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-cli-scene-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn render_json_is_the_documented_report() {
    let o = run(&["render", &fixture("default.scene.json"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert_eq!(v["llm"], "chat");
    assert_eq!(v["segments"].as_array().map(Vec::len), Some(7));
    assert_eq!(v["segments"][3]["name"], "reformat_input_prompt");
    assert_eq!(v["segments"][3]["rule"], "iron_rule_1");
    assert_eq!(v["messages"][0]["role"], "system");
    assert_eq!(v["tools"][2]["status"], "invalid");
    assert_eq!(v["metrics"]["tools_rendered"], 2);
    let piece = &v["segments"][0]["pieces"][1];
    assert_eq!(
        (piece["source"].as_str(), piece["tool"].as_str()),
        (Some("tool"), Some("tf_notes"))
    );

    let o = run(&[
        "render",
        &fixture("default.scene.json"),
        "--llm",
        "desk",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert_eq!(v["llm"], "desk");
    assert!(v.get("messages").is_none());
    assert_eq!(v["segments"][5]["name"], "purpose_prompt");
}

#[test]
fn render_text_is_readable_and_uncoloured_when_piped() {
    let o = run(&["render", &fixture("default.scene.json"), "--format", "text"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        !text.contains('\x1b'),
        "no colour codes when stdout is not a terminal"
    );
    assert!(text.contains("1. system_msg_prompt · legal"), "{text}");
    assert!(text.contains("[tool tf_notes]"), "{text}");
    assert!(text.contains("goal_rewriter            invalid"), "{text}");
    let o = run(&[
        "render",
        &fixture("default.scene.json"),
        "--format",
        "text",
        "--color",
        "always",
    ]);
    assert!(stdout(&o).contains("\x1b[32mlegal\x1b[0m"));
}

#[test]
fn render_of_an_unreadable_scene_exits_2_with_the_position() {
    let d = tempdir("unreadable");
    let p = d.join("bad.scene.json");
    std::fs::write(
        &p,
        "{\n  \"format\": \"prompt-inspector/scene@1\",\n  \"tools\": [ { \"nam\": 1 } ]\n}",
    )
    .expect("write");
    let o = run(&["render", &p.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.scene.json:3:16: tools[0].nam: unknown field \"nam\""),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn rules_lists_the_14_segments_from_the_one_table() {
    let o = run(&["rules", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let segs = v["segments"].as_array().expect("segments");
    assert_eq!(segs.len(), 14);
    let forbidden: Vec<_> = segs
        .iter()
        .filter(|s| s["legal"] == false)
        .map(|s| s["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        forbidden,
        [
            "conversation_msgs",
            "reformat_input_prompt",
            "intermediate_msgs",
            "original_desk_screenshot_prompt",
            "purpose_prompt",
            "prefix_prompt"
        ]
    );
    assert_eq!(
        v["rules"][1]["segments"],
        serde_json::json!(["original_desk_screenshot_prompt"])
    );
    let text = stdout(&run(&["rules"]));
    assert!(
        text.contains("reformat_input_prompt             forbidden: iron_rule_1"),
        "{text}"
    );
}

fn copy_fixture(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(fixture(&format!("scenes/{name}")), &to).expect("copy");
    to
}

#[test]
fn check_exit_codes_follow_the_docs() {
    assert_eq!(
        run(&["check", &fixture("")]).status.code(),
        Some(0),
        "the fixtures match their goldens"
    );

    let d = tempdir("check");
    let scene = copy_fixture(&d, "raise.scene.json");
    let o = run(&["check", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(1), "missing golden");
    assert!(stdout(&o).contains("MISSING GOLDEN"));

    let o = run(&["check", &d.display().to_string(), "--bless"]);
    assert_eq!(o.status.code(), Some(0));
    let golden = d.join("raise.golden.json");
    assert!(golden.exists());
    assert_eq!(
        run(&["check", &scene.display().to_string()]).status.code(),
        Some(0)
    );

    let text = std::fs::read_to_string(&scene).expect("read").replace(
        "You have {state[events]} events today.",
        "{state[events]} events.",
    );
    std::fs::write(&scene, text).expect("write");
    let o = run(&["check", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(1), "mismatch");
    let out = stdout(&o);
    assert!(out.contains("MISMATCH"), "{out}");
    let has = |sign: char, text: &str| out.lines().any(|l| l.starts_with(sign) && l.contains(text));
    assert!(has('-', r#""text": "You have 2 events today.""#), "{out}");
    assert!(has('+', r#""text": "2 events.""#), "{out}");
    assert!(out.contains("0 passed, 1 failed"), "{out}");

    std::fs::write(d.join("broken.scene.json"), "{").expect("write");
    assert_eq!(
        run(&["check", &d.display().to_string()]).status.code(),
        Some(2),
        "unreadable input"
    );
    assert_eq!(run(&["check", "/nonexistent/path"]).status.code(), Some(2));
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every command that reads a file names it once in its error, not once per layer.
#[test]
fn errors_name_the_path_once() {
    let d = tempdir("path-once");
    let missing = d.join("missing.scene.json").display().to_string();
    let once = |o: &Output, path: &str| {
        let all = format!("{}{}", stdout(o), stderr(o));
        assert_eq!(all.matches(path).count(), 1, "{all}");
    };
    for cmd in ["render", "run", "cache"] {
        let o = run(&[cmd, &missing]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        once(&o, &missing);
    }
    let template = d.join("t.txt");
    std::fs::write(&template, "{x}").expect("write");
    let vars = d.join("missing-vars.json").display().to_string();
    let t = template.display().to_string();
    let o = run(&[
        "template",
        "--engine",
        "fstring",
        "--template",
        &t,
        "--vars",
        &vars,
    ]);
    assert_eq!(o.status.code(), Some(1));
    once(&o, &vars);
    let o = run(&["check", &missing]);
    assert_eq!(o.status.code(), Some(2));
    once(&o, &missing);
    // A scene that does not load: one line, the path with its line and column.
    let broken = d.join("broken.scene.json");
    std::fs::write(&broken, "{\"format\": 1,}").expect("write");
    let broken = broken.display().to_string();
    let o = run(&["check", &broken]);
    assert_eq!(o.status.code(), Some(2));
    once(&o, &broken);
    assert!(
        stdout(&o).contains(&format!(
            "UNREADABLE        {broken}:1:13: invalid JSON: trailing comma"
        )),
        "{}",
        stdout(&o)
    );
}

/// A missing argument is reported where it was given, like a file in a folder that cannot be
/// read, and the other paths are still checked; the exit code is 2 at the end.
#[test]
fn check_reports_a_missing_path_and_checks_the_rest() {
    let d = tempdir("check-missing");
    let good = copy_fixture(&d, "raise.scene.json");
    assert_eq!(
        run(&["check", &good.display().to_string(), "--bless"])
            .status
            .code(),
        Some(0)
    );
    let sub = d.join("sub");
    std::fs::create_dir_all(&sub).expect("dir");
    copy_fixture(&sub, "raise.scene.json");
    run(&["check", &sub.display().to_string(), "--bless"]);
    let missing = d.join("missing.scene.json").display().to_string();
    let o = run(&[
        "check",
        &good.display().to_string(),
        &missing,
        &sub.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0].starts_with("ok ") && lines[0].ends_with("raise.scene.json"),
        "{out}"
    );
    assert!(
        lines[1].starts_with(&format!("UNREADABLE        {missing}: ")),
        "{out}"
    );
    assert!(
        lines[2].starts_with("ok ") && lines[2].contains("sub"),
        "{out}"
    );
    assert_eq!(lines[3], "2 passed, 1 failed");
    assert_eq!(out.matches(&missing).count(), 1, "{out}");

    let o = run(&[
        "check",
        "--format",
        "json",
        &missing,
        &good.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(v["scenes"][0]["status"], "unreadable");
    assert_eq!(v["scenes"][0]["error"]["file"], missing.as_str());
    assert_eq!(v["scenes"][1]["status"], "ok");
}

/// `{"a": 1,}` names the trailing comma at the comma, in a scene and in `--vars`.
#[test]
fn a_trailing_comma_is_named_with_its_position() {
    let d = tempdir("trailing-comma");
    let scene = d.join("x.scene.json");
    std::fs::write(
        &scene,
        "{\n  \"format\": \"prompt-inspector/scene@1\",\n  \"tools\": [],\n}\n",
    )
    .expect("write");
    let o = run(&["render", &scene.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "{}:3:14: invalid JSON: trailing comma before '}}'",
            scene.display()
        )),
        "{}",
        stderr(&o)
    );
    let vars = d.join("v.json");
    std::fs::write(&vars, "{\"a\": [1, 2,]}").expect("write");
    let template = d.join("t.txt");
    std::fs::write(&template, "{a}").expect("write");
    let o = run(&[
        "template",
        "--engine",
        "fstring",
        "--template",
        &template.display().to_string(),
        "--vars",
        &vars.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "{}:1:12: invalid JSON: trailing comma before ']'",
            vars.display()
        )),
        "{}",
        stderr(&o)
    );
}

/// `run --format text` wraps at 100 columns (CJK characters take two) at word boundaries: no
/// line is longer, and every word of the text is a whole word of the report (a word cut in two
/// leaves fragments the report does not have).
#[test]
fn run_text_wraps_at_word_boundaries() {
    let wide = |c: char| matches!(u32::from(c), 0x2E80..=0x9FFF | 0xFF00..=0xFF60);
    let width = |l: &str| {
        l.chars()
            .map(|c| if wide(c) { 2 } else { 1 })
            .sum::<usize>()
    };
    let words = |s: &str| -> std::collections::BTreeSet<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 3)
            .map(str::to_owned)
            .collect()
    };
    for scene in ["run/long-goal.scene.json", "run/cd-round-2.scene.json"] {
        let o = run(&["run", &fixture(scene), "--format", "text"]);
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        for l in out.lines() {
            assert!(width(l) <= 100, "{} columns: {l}", width(l));
        }
        let json: serde_json::Value =
            serde_json::from_slice(&run(&["run", &fixture(scene), "--format", "json"]).stdout)
                .expect("json");
        fn strings(v: &serde_json::Value, out: &mut String) {
            match v {
                serde_json::Value::String(s) => {
                    out.push_str(s);
                    out.push('\n');
                }
                serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
                serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
                _ => {}
            }
        }
        let mut all = String::new();
        strings(&json, &mut all);
        let known = words(&all);
        let injected: String = out
            .lines()
            .filter(|l| l.starts_with("   │ "))
            .collect::<Vec<_>>()
            .join("\n");
        for w in words(&injected) {
            assert!(
                known.contains(&w),
                "{w:?} is not a word of the report:\n{out}"
            );
        }
    }
}

/// One rule for every command that prints a report: `--format text|json` is accepted, and the
/// default is text.
#[test]
fn every_report_command_takes_format_and_defaults_to_text() {
    let scene = fixture("default.scene.json");
    let run_scene = fixture("run/cd-round-2.scene.json");
    let d = tempdir("formats");
    let golden_scene = copy_fixture(&d, "raise.scene.json");
    let checked = golden_scene.display().to_string();
    assert_eq!(run(&["check", &checked, "--bless"]).status.code(), Some(0));
    let commands: [(&str, Vec<&str>); 5] = [
        ("render", vec!["render", &scene]),
        ("run", vec!["run", &run_scene]),
        ("rules", vec!["rules"]),
        ("cache", vec!["cache", &scene, &scene]),
        ("check", vec!["check", &checked]),
    ];
    let is_json = |o: &Output| serde_json::from_slice::<serde_json::Value>(&o.stdout).is_ok();
    for (name, args) in &commands {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert!(!is_json(&o), "{name} by default:\n{}", stdout(&o));
        for (format, json) in [("json", true), ("text", false)] {
            let mut with = args.clone();
            with.extend(["--format", format]);
            let o = run(&with);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{name} --format {format}: {}",
                stderr(&o)
            );
            assert_eq!(
                is_json(&o),
                json,
                "{name} --format {format}:\n{}",
                stdout(&o)
            );
        }
    }
}

/// Numbering, the same in every form: a numbered list in text counts from 1 (`1.`, "message
/// 1"); a `#N` is the 0-based index in the scene's array, as JSON's `index` is.
#[test]
fn text_numbers_from_1_and_indices_are_0_based_as_in_json() {
    let scene = fixture("default.scene.json");
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["render", &scene, "--format", "json"]).stdout).expect("json");
    let text = stdout(&run(&["render", &scene, "--format", "text"]));
    let first = &json["messages"][0];
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("1. system")),
        "{text}"
    );
    assert_eq!(first["role"], "system");
    assert_eq!(json["segments"][0]["pieces"][0]["index"], 0);
    assert!(text.contains("[config #0]"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("1. system_msg_prompt")),
        "{text}"
    );
}

/// Only regular files are read: a FIFO named like a scene (which no one will ever write) and a
/// device are refused at once, in every command that reads a file, with the kind named.
#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_at_once() {
    let d = tempdir("fifo");
    let fifo = d.join("stuck.scene.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let fifo = fifo.display().to_string();
    let vars = d.join("vars.json");
    std::fs::write(&vars, "{}").expect("write");
    let vars = vars.display().to_string();
    let started = std::time::Instant::now();
    for (args, code) in [
        (vec!["render", fifo.as_str()], 2),
        (vec!["render", "/dev/zero"], 2),
        (vec!["run", fifo.as_str()], 2),
        (vec!["cache", fifo.as_str()], 2),
        (vec!["check", fifo.as_str()], 2),
        (vec!["check", &d.display().to_string()], 2),
        (
            vec![
                "template",
                "--engine",
                "jinja2",
                "--template",
                fifo.as_str(),
                "--vars",
                vars.as_str(),
            ],
            1,
        ),
        (
            vec![
                "template",
                "--engine",
                "fstring",
                "--template",
                "/dev/zero",
                "--vars",
                vars.as_str(),
            ],
            1,
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        let said = format!("{}{}", stdout(&o), stderr(&o));
        assert!(
            said.contains("not a regular file: only regular files are read")
                && (said.contains("a FIFO (named pipe)") || said.contains("a character device")),
            "{args:?}: {said}"
        );
    }
    // Eight processes, none of which may wait for a writer.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

/// A `--bless` that cannot write says so (not "unreadable"), exits 2 and leaves no temporary file.
#[test]
fn a_failed_bless_says_cannot_write_and_leaves_nothing_behind() {
    let d = tempdir("bless-fails");
    copy_fixture(&d, "raise.scene.json");
    // A folder where the golden would go: no write can replace it.
    std::fs::create_dir(d.join("raise.golden.json")).expect("mkdir");
    let o = run(&["check", &d.display().to_string(), "--bless"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.starts_with("CANNOT WRITE GOLDEN"), "{out}");
    assert!(out.contains("a folder, not a regular file"), "{out}");
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["raise.golden.json", "raise.scene.json"]);
}

#[test]
fn render_text_prices_the_call_with_its_tool_definitions_unless_told_not_to_count() {
    let scene = format!(
        "{}/fixtures/providers/chat.scene.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
            .arg("render")
            .arg(&scene)
            .args(args)
            .output()
            .expect("render");
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = run(&["--model", "gpt-4.1"]);
    let line = out
        .lines()
        .find(|l| l.starts_with("Its text alone, "))
        .unwrap_or_else(|| panic!("{out}"));
    // tf_notes and web_search record schemas: 70 + 138 tokens of definitions.
    assert!(line.ends_with(", 208 of tool"), "{line}");
    let price_line = out
        .lines()
        .find(|l| l.trim_start().starts_with("openai/gpt-4.1"))
        .unwrap_or_else(|| panic!("{out}"));
    let total: usize = price_line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a total");
    // gpt-4.1: $2 per million input tokens.
    assert!(
        price_line.ends_with(&format!("${:.6}", total as f64 * 2.0 / 1e6)),
        "{price_line}"
    );
    assert_eq!(
        run(&["--tokens", "--model", "gpt-4.1"]),
        out,
        "--tokens is the default"
    );
    assert!(
        !run(&["--no-tokens"]).contains("This call's input"),
        "no tokens, no price"
    );
    // The JSON report carries the same figures, for the models named, and only then.
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        serde_json::from_str(&run(&all)).expect("json")
    };
    let costs = &json(&["--model", "gpt-4.1"])["costs"];
    assert_eq!(costs.as_array().map(Vec::len), Some(1), "{costs}");
    assert_eq!(costs[0]["model"], "openai/gpt-4.1");
    assert_eq!(costs[0]["input_tokens"].as_u64(), Some(total as u64));
    assert_eq!(costs[0]["definition_tokens"], 208);
    assert!(price_line.ends_with(&format!(
        "${:.6}",
        costs[0]["cost_usd"].as_f64().unwrap_or(-1.0)
    )));
    assert!(
        json(&[]).get("costs").is_none(),
        "no --model: the report as before"
    );
}
