//! Rendering cost on the generated scene (300 tools, 5,000 messages): load, then render each
//! family. Rendering must be O(context + output), so doubling the tools must not double the cost
//! of the context work: the `tools` argument shows it.

#[path = "support/scene_gen.rs"]
mod scene_gen;

use divan::{black_box, Bencher};
use prompt_inspector::{inject, scene, segments::Family};

fn main() {
    divan::main();
}

fn text(tools: usize, messages: usize) -> String {
    scene_gen::scene(&scene_gen::Params { tools, messages })
}

#[divan::bench(args = [(300, 5000), (600, 5000), (300, 10000)])]
fn load(bencher: Bencher, (tools, messages): (usize, usize)) {
    let t = text(tools, messages);
    bencher.bench(|| scene::load_str(black_box(&t)).map(|s| s.tools.len()));
}

#[divan::bench(args = [(300, 5000), (600, 5000), (300, 10000)])]
fn render_chat(bencher: Bencher, (tools, messages): (usize, usize)) {
    let s = scene::load_str(&text(tools, messages)).expect("generated scene loads");
    bencher.bench(|| inject::render(black_box(&s), Family::Chat));
}

#[divan::bench(args = [(300, 5000)])]
fn render_desk(bencher: Bencher, (tools, messages): (usize, usize)) {
    let s = scene::load_str(&text(tools, messages)).expect("generated scene loads");
    bencher.bench(|| inject::render(black_box(&s), Family::Desk));
}
