// The app's commands by name, included by build.rs (each becomes a permission, `allow-<name>` with
// dashes, that capabilities/main.json must grant) and by commands.rs. One list, so the ACL and the
// handler cannot drift apart; tests/it.rs checks it against the capability and the bindings.
pub const COMMANDS: [&str; 19] = [
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
    "pick_open_path",
    "pick_save_path",
    "pick_folder",
    "set_dirty",
    "app_info",
];
