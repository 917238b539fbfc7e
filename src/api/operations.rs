/// The operations, by the names `POST /api/<operation>` and the Tauri commands use.
pub const OPERATIONS: [&str; 14] = [
    "default_scene",
    "open",
    "save",
    "stat",
    "render",
    "validate",
    "rules",
    "run",
    "check",
    "approve",
    "template",
    "live_open",
    "live_edit",
    "live_close",
];
