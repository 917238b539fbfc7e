//! `render`, `rules` and `check` as contract §4 fixes them: outputs and exit codes.

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
fn render_json_is_the_contract_report() {
    let o = run(&["render", &fixture("default.scene.json")]);
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

    let o = run(&["render", &fixture("default.scene.json"), "--llm", "desk"]);
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
fn check_exit_codes_follow_the_contract() {
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
