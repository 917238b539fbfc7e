//! Rendering cost on the generated scene (300 tools, 5,000 messages): load, then render each
//! family. Rendering must be O(context + output), so doubling the tools must not double the cost
//! of the context work: the `tools` argument shows it.

#[path = "support/scene_gen.rs"]
mod scene_gen;

use divan::{black_box, Bencher};
use prompt_inspector::tokens::Encoding;
use prompt_inspector::{inject, scene, segments::Family};

fn main() {
    divan::main();
}

/// Rendering alone, as `prompt-inspector render` does by default (no token counts).
fn no_tokens() -> inject::Options {
    inject::Options {
        skip_tokens: true,
        ..Default::default()
    }
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
    let options = no_tokens();
    bencher.bench(|| inject::render_with(black_box(&s), Family::Chat, &options));
}

/// A chat render with every piece, segment and message counted (`render --tokenizer NAME`): the
/// token tables are static data, so there is nothing to build or warm up first.
#[divan::bench(args = [Encoding::O200kBase, Encoding::Cl100kBase])]
fn render_chat_tokens(bencher: Bencher, encoding: Encoding) {
    let s = scene::load_str(&text(300, 5000)).expect("generated scene loads");
    let options = inject::Options {
        encoding,
        ..Default::default()
    };
    bencher.bench(|| inject::render_with(black_box(&s), Family::Chat, &options));
}

#[divan::bench(args = [(300, 5000)])]
fn render_desk(bencher: Bencher, (tools, messages): (usize, usize)) {
    let s = scene::load_str(&text(tools, messages)).expect("generated scene loads");
    let options = no_tokens();
    bencher.bench(|| inject::render_with(black_box(&s), Family::Desk, &options));
}
