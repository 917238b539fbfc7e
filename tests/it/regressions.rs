//! Inputs the fuzzers found, kept as tests (docs/fuzzing.md).

use prompt_inspector::{Engine, Template, Value, Vars};

fn render(engine: Engine, template: &str, vars: &str) -> Result<String, String> {
    let vars = Vars::new(Value::from_json_str(vars).map_err(|e| e.to_string())?);
    Template::compile(engine, template)
        .and_then(|t| t.render(&vars))
        .map_err(|e| e.to_string())
}

#[test]
fn precision_past_rusts_formatter_limit() {
    // fuzz/artifacts/fstring/crash-7e4cceeb: Rust's `format!` panics on precisions above 65535,
    // CPython prints them (digits past the exact expansion are zeros).
    let out = render(Engine::Fstring, "{x:.303330f}", r#"{"x": 1.5}"#).expect("renders");
    assert_eq!(out.len(), 303_332);
    assert!(out.starts_with("1.50000") && out.ends_with("00"));
    let out = render(Engine::Fstring, "{x:.70000e}", r#"{"x": 1.5}"#).expect("renders");
    assert!(out.starts_with("1.5000") && out.ends_with("0e+00") && out.len() == 70_006);
    let out = render(
        Engine::Jinja2,
        "{{ '%.70000f|%0100000d' % (x, 7) }}",
        r#"{"x": 1.5}"#,
    )
    .expect("renders");
    assert_eq!(out.len(), 70_002 + 1 + 100_000);
    assert!(out.ends_with("0007"));
}
