//! `live_times` with the system allocator: `cargo run --release --example live_times_system -- SCENE`.
include!("support/live_times_main.rs");
