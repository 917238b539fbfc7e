//! Times the phases of one render in a fresh process (where first-touch page faults count):
//! `cargo run --release --example phase_times -- SCENE`.

use std::time::Instant;

use prompt_inspector::{inject, scene, segments::Family};

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/bench/generated.scene.json".to_owned());
    let t = Instant::now();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let read = t.elapsed();
    let t = Instant::now();
    let s = match scene::load_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let load = t.elapsed();
    let conv = jinja_conversion(s.context.clone());
    let t = Instant::now();
    let r = inject::render(&s, Family::Chat);
    let render = t.elapsed();
    let t = Instant::now();
    let out = serde_json::to_string_pretty(&r).unwrap_or_default();
    let ser = t.elapsed();
    eprintln!("jinja conversion {conv:?}");
    eprintln!(
        "read {read:?} load {load:?} render {render:?} serialise {ser:?} ({} bytes)",
        out.len()
    );
}

/// How long the Jinja2 engine's one-time conversion of the context takes (first render).
fn jinja_conversion(ctx: prompt_inspector::Value) -> std::time::Duration {
    use prompt_inspector::{Engine, Template, Vars};
    let vars = Vars::new(ctx);
    let t = Template::compile(Engine::Jinja2, "{{ 1 }}").ok();
    let start = Instant::now();
    let _ = t.map(|t| t.render(&vars));
    start.elapsed()
}
