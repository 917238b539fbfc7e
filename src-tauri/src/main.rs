// No console window on Windows release builds; the app logs to its log file instead.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// The core allocates and frees many small values per live edit; mimalloc makes an edit of the
// large generated scene about a third faster than the system allocator (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    prompt_inspector_app::run();
}
