//! Writes the benchmark scene to stdout:
//! `cargo run --release --example gen_scene -- [TOOLS] [MESSAGES] > big.scene.json`
//! (defaults: 300 tools, 5000 messages).

#[path = "../benches/support/scene_gen.rs"]
mod scene_gen;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let tools = args.next().and_then(Result::ok).unwrap_or(300);
    let messages = args.next().and_then(Result::ok).unwrap_or(5000);
    print!(
        "{}",
        scene_gen::scene(&scene_gen::Params { tools, messages })
    );
}
