//! Times a live edit (`api::Live`) on a scene with the allocator the app and the command line use
//! (mimalloc): `cargo run --release --example live_times -- SCENE`. `live_times_system` is the
//! same with the system allocator, for a side-by-side comparison.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

include!("support/live_times_main.rs");
