//! Snapshot tests over `tests/inputs/*.{fstring,jinja2}.txt` (minijinja's manner): each file is a
//! JSON line of variables, a `---` line, then the template. The snapshot holds the output, or the
//! error as the command line shows it (class, message, position and the underlined line).

use std::path::Path;

use prompt_inspector::{Engine, Template, Value, Vars};

fn run(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read input");
    let (vars, template) = text.split_once("\n---\n").expect("vars line, then ---");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let engine = if name.ends_with(".jinja2.txt") {
        Engine::Jinja2
    } else {
        Engine::Fstring
    };
    let vars = Vars::new(Value::from_json_str(vars).expect("vars are JSON"));
    let result = Template::compile(engine, template).and_then(|t| t.render(&vars));
    match result {
        Ok(out) => format!("ok:\n{out}"),
        Err(e) => format!("error:\n{}", e.excerpt(template, &name)),
    }
}

#[test]
fn inputs() {
    insta::glob!("../inputs", "*.txt", |path| {
        insta::assert_snapshot!(run(path));
    });
}

/// The syntax errors about a template's block structure (a block left open at the end, a tag
/// the parser does not know or does not expect there, an unclosed comment or raw block) say
/// exactly what Jinja2 says: the conformance data recorded its messages.
#[test]
fn block_structure_errors_match_jinja2_word_for_word() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/jinja2.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    let cases = data["cases"].as_array().expect("cases");
    let mut checked = 0;
    for case in cases {
        let want = case["expected"]["message"].as_str().unwrap_or_default();
        let structural = [
            "Unexpected end of template.",
            "Encountered unknown tag",
            "Missing end of",
        ];
        if !structural.iter().any(|p| want.starts_with(p)) {
            continue;
        }
        let template = case["template"].as_str().expect("template");
        let Err(e) = Template::compile(Engine::Jinja2, template) else {
            panic!("{template:?} compiles");
        };
        assert_eq!(e.message(), want, "{}", case["id"]);
        assert_eq!(
            e.line(),
            case["expected"]["line"].as_u64().map(|l| l as usize),
            "{}",
            case["id"]
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} cases");
}
