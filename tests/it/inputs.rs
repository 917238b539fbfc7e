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
