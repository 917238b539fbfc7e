//! `prompt-inspector template` as docs/cli.md fixes it.

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
        .args([
            "template",
            "--engine",
            "mustache",
            "--template",
            "a",
            "--vars",
            "b",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown template engine"));
}

fn run_template(tag: &str, engine: &str, template: &str, vars: &str) -> std::process::Output {
    let d = tempdir(tag);
    let t = write(&d, "t.txt", template);
    let v = write(&d, "v.json", vars);
    bin()
        .args(["template", "--engine", engine, "--template"])
        .arg(&t)
        .arg("--vars")
        .arg(&v)
        .output()
        .expect("run")
}

#[test]
fn fstring_renders_to_stdout_without_a_newline() {
    let out = run_template(
        "fok",
        "fstring",
        "Hello {user[name]}! {n:,} {{literal}}",
        r#"{"user": {"name": "Ada"}, "n": 123456789012345678901234567890}"#,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Hello Ada! 123,456,789,012,345,678,901,234,567,890 {literal}"
    );
}

#[test]
fn fstring_error_names_class_and_position_on_stderr() {
    let out = run_template("ferr", "fstring", "line one\nHello {user[name]}!", "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: KeyError: 'user'\n"), "{err}");
    assert!(err.contains("t.txt:2:7"), "{err}");
    assert!(err.contains("Hello {user[name]}!"), "{err}");
}

#[test]
fn jinja2_renders_python_style_values() {
    let out = run_template(
        "jok",
        "jinja2",
        "{{ d }} {{ n is none }} {% for m in ms %}{{ loop.index }}={{ m }};{% endfor %}\n",
        r#"{"d": {"a": [1, 2.0, null, true]}, "n": null, "ms": ["x", "y"]}"#,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Jinja2 prints Python reprs inside containers and drops one trailing newline.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{'a': [1, 2.0, None, True]} True 1=x;2=y;"
    );
}

#[test]
fn jinja2_syntax_error_names_line() {
    let out = run_template("jerr", "jinja2", "ok\n{% if x %}\nno end", r#"{"x": 1}"#);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: TemplateSyntaxError: "), "{err}");
    assert!(err.contains("t.txt:"), "{err}");
}
