// The app's commands by name, included by build.rs (each becomes a permission, `allow-<name>` with
// dashes; the generated capability grants the main window those of `GRANTED`) and by commands.rs.
// One list, so the ACL and the handler cannot drift apart; tests/it.rs checks it against the
// bindings.
//
// `OPERATIONS` comes from the core's table of operations (src/api/operations.rs): commands.rs takes
// the core's, build.rs (which cannot depend on the core crate) includes the table and expands it.

// `for_each_shell_command!` (src/shell_commands.rs) lists the shell's own commands.
macro_rules! shell_command_names {
    ([] $($name:ident)*) => {
        const SHELL_COMMANDS: [&str; [$(stringify!($name)),*].len()] = [$(stringify!($name)),*];
    };
}

for_each_shell_command!([shell_command_names]);

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

/// The operations the web view calls (ui/src/api/api.ts, `createApi`), the only ones its capability
/// grants: every operation is a command and has a binding (the UI's types come from them), but one
/// the UI does not call is refused to the page, so a script injected into it reaches no more of the
/// core than the UI needs. The list is checked both ways: build.rs refuses a name that is not an
/// operation, the UI's typecheck refuses a call to one not listed (the generated
/// `WebviewOperation`), and ui/test/operations.test.ts fails for one listed that the UI never calls.
pub const WEBVIEW_OPERATIONS: [&str; 16] = [
    "default_scene",
    "open",
    "save",
    "stat",
    "render",
    "rules",
    "models",
    "about",
    "run",
    "conversation",
    "check",
    "approve",
    "live_open",
    "live_edit",
    "live_close",
    "live_calls",
];

/// What the main window's capability grants (`allow-<name>`): the web view's operations, then every
/// shell command (each is the shell's answer to something only the page asks for).
pub const GRANTED: [&str; WEBVIEW_OPERATIONS.len() + SHELL_COMMANDS.len()] = {
    let mut all = [""; WEBVIEW_OPERATIONS.len() + SHELL_COMMANDS.len()];
    let mut i = 0;
    while i < WEBVIEW_OPERATIONS.len() {
        all[i] = WEBVIEW_OPERATIONS[i];
        i += 1;
    }
    while i < all.len() {
        all[i] = SHELL_COMMANDS[i - WEBVIEW_OPERATIONS.len()];
        i += 1;
    }
    all
};
