// No console window on Windows release builds; the app logs to its log file instead.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    prompt_inspector_app::run();
}
