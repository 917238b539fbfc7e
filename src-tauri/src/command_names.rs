// The app's commands by name, included by build.rs (each becomes a permission, `allow-<name>` with
// dashes, that capabilities/main.json must grant) and by commands.rs. One list, so the ACL and the
// handler cannot drift apart; tests/it.rs checks it against the capability and the bindings.
//
// `OPERATIONS` comes from the core's table of operations (src/api/operations.rs): commands.rs takes
// the core's, build.rs (which cannot depend on the core crate) includes the table and expands it.

/// What only the desktop shell does: system dialogs, the close guard's flag and the page's answer
/// to its Save, app info.
const SHELL_COMMANDS: [&str; 6] = [
    "pick_open_path",
    "pick_save_path",
    "pick_folder",
    "set_dirty",
    "close_guard_done",
    "app_info",
];

pub const COMMANDS: [&str; OPERATIONS.len() + SHELL_COMMANDS.len()] = {
    let mut all = [""; OPERATIONS.len() + SHELL_COMMANDS.len()];
    let mut i = 0;
    while i < OPERATIONS.len() {
        all[i] = OPERATIONS[i];
        i += 1;
    }
    while i < all.len() {
        all[i] = SHELL_COMMANDS[i - OPERATIONS.len()];
        i += 1;
    }
    all
};
