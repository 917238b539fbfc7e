//! Inputs that were superlinear, at doubling sizes: each row should take about twice the time of
//! the one before (docs/performance.md records the figures and the command).
//!
//! - `wordwrap` of one long word (splitting it copied the rest of the word at every line);
//! - a scene whose context holds one huge integer (now refused at CPython's 4,300 digits, after
//!   a linear scan of the digits);
//! - a `run` replay of many rounds, with the report as goldens and the app hold it (every
//!   request used to be copied and its tokens counted whole).

#[path = "support/run_gen.rs"]
mod run_gen;

use divan::{black_box, Bencher};
use prompt_inspector::{Engine, Template, Value, Vars};

fn main() {
    divan::main();
}

#[divan::bench(args = [25_000, 50_000, 100_000, 200_000])]
fn wordwrap_one_long_word(bencher: Bencher, len: usize) {
    let template = Template::compile(Engine::Jinja2, "{{ s|wordwrap(40) }}").expect("compiles");
    let vars = Vars::new(
        Value::from_json_str(&format!("{{\"s\": \"{}\"}}", "x".repeat(len))).expect("vars"),
    );
    bencher.bench(|| template.render(black_box(&vars)).map(|s| s.len()));
}

#[divan::bench(args = [1_000_000, 2_000_000, 4_000_000])]
fn scene_with_a_huge_integer(bencher: Bencher, digits: usize) {
    let scene = format!(
        "{{\"format\": \"prompt-inspector/scene@1\", \"context\": {{\"n\": {}}}}}",
        "7".repeat(digits)
    );
    bencher.bench(|| prompt_inspector::scene::load_str(black_box(&scene)).is_err());
}

#[divan::bench(args = [250, 500, 1000, 2000])]
fn run_replay_and_report(bencher: Bencher, rounds: usize) {
    let scene = prompt_inspector::scene::load_str(&run_gen::run_scene(rounds)).expect("loads");
    let run = scene.run.expect("a run");
    bencher.bench(|| {
        let report = prompt_inspector::runloop::replay(black_box(&run));
        prompt_inspector::json_out::to_string_pretty(&report).len()
    });
}

/// A template comparing two strings of `len` bytes 50 times: charged by the bytes compared, it
/// grows with `len` (and a longer string runs out of fuel instead of running for minutes).
#[divan::bench(args = [200_000, 400_000, 800_000])]
fn string_scan_template(bencher: Bencher, len: usize) {
    let template = Template::compile(
        Engine::Jinja2,
        "{% for i in range(50) %}{% if b in [a] %}{% endif %}{% endfor %}",
    )
    .expect("compiles");
    let s = "x".repeat(len);
    let vars = Vars::new(
        Value::from_json_str(&format!("{{\"a\": \"{s}\", \"b\": \"{s}\"}}")).expect("vars"),
    );
    bencher.bench(|| template.render(black_box(&vars)).map(|s| s.len()));
}

/// A scene of `tools` tools that each use up their fuel: the scene's budget stops the render after
/// sixteen templates' worth, so more tools add only their refusals.
#[divan::bench(args = [50, 100, 200])]
fn scene_of_tools_past_the_budget(bencher: Bencher, tools: usize) {
    let tool = |i: usize| {
        format!(
            r#"{{ "name": "t{i}", "prompt_position": ["system_msg_prompt", null],
                 "format_2_prompt": {{ "returns": "str", "source": {{ "engine": "jinja2",
                 "templates": {{ "default": "{{% for i in range(1000000) %}}{{% endfor %}}" }} }} }} }}"#
        )
    };
    let list: Vec<String> = (0..tools).map(tool).collect();
    let scene = prompt_inspector::scene::load_str(&format!(
        r#"{{ "format": "prompt-inspector/scene@1", "context": {{}}, "tools": [{}] }}"#,
        list.join(",")
    ))
    .expect("loads");
    bencher.bench(|| {
        let report = prompt_inspector::inject::render(
            black_box(&scene),
            prompt_inspector::segments::Family::Chat,
        );
        report.diagnostics.len()
    });
}
