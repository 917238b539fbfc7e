//! `prompt-inspector template` as contract §4 fixes it.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn bad_vars_json_names_file_line_and_column() {
    let d = tempdir("badvars");
    let t = write(&d, "t.txt", "hi {x}");
    let v = write(&d, "v.json", "{\n  \"x\": 1,\n  oops\n}");
    let out = bin()
        .args(["template", "--engine", "fstring", "--template"])
        .arg(&t)
        .arg("--vars")
        .arg(&v)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("v.json:3:3"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn vars_must_be_an_object() {
    let d = tempdir("notobj");
    let t = write(&d, "t.txt", "hi");
    let v = write(&d, "v.json", "[1]");
    let out = bin()
        .args(["template", "--engine", "jinja2", "--template"])
        .arg(&t)
        .arg("--vars")
        .arg(&v)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be a JSON object, found list"));
}

#[test]
fn unknown_engine_is_a_usage_error() {
    let out = bin()
        .args(["template", "--engine", "mustache", "--template", "a", "--vars", "b"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown template engine"));
}
