//! Templates made of one very long chain (`x|abs|abs|...`) once overflowed the stack and aborted
//! the process; the real CLI now refuses them with a positioned error and goes on
//! (docs/templates.md, "Limits on untrusted templates").

use std::path::PathBuf;
use std::process::Output;

use crate::support::run;

fn tempdir(tag: &str) -> PathBuf {
    crate::support::tempdir("chains", tag)
}

/// `{{ x|abs|abs|... }}`, `n` filters long.
fn chain(n: usize) -> String {
    format!("{{{{ x{} }}}}", "|abs".repeat(n))
}

/// A scene whose chat system prompt is the Jinja2 template `template`.
fn scene(template: &str) -> String {
    serde_json::json!({
        "format": "prompt-inspector/scene@1",
        "name": "chain",
        "context": { "x": -3 },
        "chat_llm": {
            "system_msg_prompt": [
                { "kind": "normalize", "template": { "engine": "jinja2", "templates": { "default": template } } }
            ]
        }
    })
    .to_string()
}

/// Exited with a status of its own, not killed by a signal (SIGABRT on a stack overflow).
fn exited(o: &Output) -> i32 {
    o.status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {:?}", o.status))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn template_refuses_a_60000_long_chain_with_its_position() {
    let d = tempdir("template");
    let t = d.join("t.txt");
    std::fs::write(&t, format!("line one\n{}", chain(60_000))).expect("write");
    let v = d.join("v.json");
    std::fs::write(&v, r#"{"x": -3}"#).expect("write");
    let o = run(&[
        "template",
        "--engine",
        "jinja2",
        "--template",
        &t.display().to_string(),
        "--vars",
        &v.display().to_string(),
    ]);
    assert_eq!(exited(&o), 1, "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: LimitExceeded: "), "{err}");
    assert!(err.contains("t.txt:2:1"), "{err}");
}

#[test]
fn render_refuses_a_60000_long_chain() {
    let d = tempdir("render");
    let s = d.join("chain.scene.json");
    std::fs::write(&s, scene(&chain(60_000))).expect("write");
    let o = run(&["render", &s.display().to_string(), "--format", "json"]);
    exited(&o);
    assert!(text(&o).contains("LimitExceeded"), "{}", text(&o));
}

#[test]
fn check_reports_a_chain_scene_and_still_writes_junit() {
    let d = tempdir("check");
    std::fs::write(d.join("a-fine.scene.json"), scene("{{ x|abs }}")).expect("write");
    let o = run(&["check", "--bless", &d.display().to_string()]);
    assert_eq!(exited(&o), 0, "{}", text(&o));
    std::fs::write(d.join("b-chain.scene.json"), scene(&chain(60_000))).expect("write");
    std::fs::write(d.join("c-fine.scene.json"), scene("{{ x }}")).expect("write");
    let xml = d.join("report.xml");
    let o = run(&[
        "check",
        &d.display().to_string(),
        "--jobs",
        "2",
        "--junit",
        &xml.display().to_string(),
    ]);
    assert_ne!(exited(&o), 0, "{}", text(&o));
    let xml = std::fs::read_to_string(&xml).expect("the JUnit file is written");
    for name in ["a-fine", "b-chain", "c-fine"] {
        assert!(xml.contains(name), "{name} in {xml}");
    }
    // The other scenes are reported: one matches, one has no golden yet.
    let out = text(&o);
    assert!(out.contains("a-fine"), "{out}");
    assert!(out.contains("c-fine"), "{out}");
}
