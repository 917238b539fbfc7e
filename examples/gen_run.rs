//! Writes a long `run` scene to stdout:
//! `cargo run --release --example gen_run -- [ROUNDS] > long.scene.json` (default 1000 rounds).

#[path = "../benches/support/run_gen.rs"]
mod run_gen;

fn main() {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(1000);
    print!("{}", run_gen::run_scene(rounds));
}
