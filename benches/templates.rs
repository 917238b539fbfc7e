//! Parse and render cost of a 10 KB template with 200 fields, for both engines.
//!
//! `bench/templates.sh` runs this next to the same work in CPython and Jinja2 and prints ratios;
//! the figures are recorded in docs/performance.md.

use divan::{black_box, Bencher};
use prompt_inspector::{Engine, Template, Value, Vars};

/// Field kinds cycled through the template: plain, nested lookup, spec, conversion, index.
const FSTRING_FIELDS: [&str; 5] = [
    "{user[name]}",
    "{count:>8,}",
    "{price:.2f}",
    "{items[2]!r}",
    "{msg}",
];
const JINJA_FIELDS: [&str; 5] = [
    "{{ user.name }}",
    "{{ count }}",
    "{{ price | round(2) }}",
    "{{ items[2] }}",
    "{{ msg }}",
];

/// Builds the benchmark template: 200 fields, each after about 45 bytes of mixed-language text.
pub fn template(fields: &[&str; 5]) -> String {
    let mut out = String::with_capacity(11_000);
    for i in 0..200 {
        out.push_str(&format!("Line {i:03}: the tool notes 工作笔记 for item — "));
        out.push_str(fields[i % 5]);
        out.push('\n');
    }
    out
}

fn vars() -> Vars {
    let json = r#"{"user": {"name": "Ada 洛芙莱斯", "id": 7}, "count": 1234567, "price": 3.14159,
        "items": ["a", "b", "c'd", "e"], "msg": "记录工作笔记 and carry on"}"#;
    Vars::new(Value::from_json_str(json).expect("valid bench vars"))
}

fn main() {
    divan::main();
}

#[divan::bench(args = [Engine::Fstring, Engine::Jinja2])]
fn parse(bencher: Bencher, engine: Engine) {
    let src = match engine {
        Engine::Fstring => template(&FSTRING_FIELDS),
        Engine::Jinja2 => template(&JINJA_FIELDS),
    };
    bencher.bench(|| Template::compile(engine, black_box(&src)).map(|t| t.source().len()));
}

#[divan::bench(args = [Engine::Fstring, Engine::Jinja2])]
fn render(bencher: Bencher, engine: Engine) {
    let src = match engine {
        Engine::Fstring => template(&FSTRING_FIELDS),
        Engine::Jinja2 => template(&JINJA_FIELDS),
    };
    let t = Template::compile(engine, &src).expect("bench template compiles");
    let vars = vars();
    bencher.bench(|| t.render(black_box(&vars)));
}
