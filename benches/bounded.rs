//! Inputs that were superlinear, at doubling sizes: each row should take about twice the time of
//! the one before (docs/performance.md records the figures and the command).
//!
//! - `wordwrap` of one long word (splitting it copied the rest of the word at every line);
//! - a scene whose context holds one huge integer (now refused at CPython's 4,300 digits, after
//!   a linear scan of the digits);
//! - a `run` replay of many rounds, with the report as goldens and the app hold it (every
//!   request used to be copied and its tokens counted whole);
//! - `cache` over two calls sharing a screenshot of N MB (its base64 was tokenized as text): now
//!   only loading, decoding and hashing the image grow with its bytes, the token counts do not.

#[path = "support/image_gen.rs"]
mod image_gen;
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

/// A chat body of `n` messages with nothing only one API has, so detection reads them all
/// (each message's string content once cost a scan of the text up to it).
fn chat_body(n: usize) -> String {
    let messages: Vec<String> = (0..=n)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            format!("{{\"role\": \"{role}\", \"content\": \"message {i}\"}}")
        })
        .collect();
    format!(
        "{{\"model\": \"m\", \"messages\": [\n{}\n]}}",
        messages.join(",\n")
    )
}

#[divan::bench(args = [5_000, 10_000, 20_000])]
fn import_detect_source(bencher: Bencher, messages: usize) {
    let body = chat_body(messages);
    bencher.bench(|| {
        prompt_inspector::import::import_str(black_box(&body), "b.json", false, None)
            .map(|i| i.scenes.len())
    });
}

/// An OTLP export of `n` spans whose `gen_ai.input.messages` is JSON text (each attribute's
/// position was once counted from the top of the file).
fn otlp_export(n: usize) -> String {
    let spans: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{{\"name\": \"chat {i}\", \"attributes\": [\n {{\"key\": \"gen_ai.input.messages\", \"value\": {{\"stringValue\": \"[{{\\\"role\\\": \\\"user\\\", \\\"parts\\\": [{{\\\"type\\\": \\\"text\\\", \\\"content\\\": \\\"hi {i}\\\"}}]}}]\"}}}}\n]}}"
            )
        })
        .collect();
    format!(
        "{{\"resourceSpans\": [{{\"scopeSpans\": [{{\"spans\": [\n{}\n]}}]}}]}}",
        spans.join(",\n")
    )
}

#[divan::bench(args = [1_000, 2_000, 4_000])]
fn import_otlp_json_text_attributes(bencher: Bencher, spans: usize) {
    let export = otlp_export(spans);
    bencher.bench(|| {
        prompt_inspector::import::import_str(black_box(&export), "t.json", false, None)
            .map(|i| i.scenes.len())
    });
}

#[divan::bench(args = [2, 4, 8])]
fn cache_two_calls_sharing_an_image(bencher: Bencher, megabytes: usize) {
    let dir =
        std::env::temp_dir().join(format!("pi-bench-image-{megabytes}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = image_gen::png(megabytes * 1024 * 1024, 1);
    let paths: Vec<std::path::PathBuf> = (0..2)
        .map(|k| {
            let path = dir.join(format!("{k}.scene.json"));
            std::fs::write(&path, image_gen::scene(&shot, k)).expect("write scene");
            path
        })
        .collect();
    let table = prompt_inspector::pricing::Table::builtin();
    let models = table.select(&[]).expect("the default models");
    bencher.bench(|| {
        let report = prompt_inspector::conversation::blame_files(black_box(&paths), &models)
            .expect("blames");
        report.steps[1].request_tokens
    });
    let _ = std::fs::remove_dir_all(&dir);
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
