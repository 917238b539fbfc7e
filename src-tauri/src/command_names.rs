// The app's commands by name, included by build.rs (each becomes a permission, `allow-<name>` with
// dashes, which the generated capability grants to the main window) and by commands.rs. One list,
// so the ACL and the handler cannot drift apart; tests/it.rs checks it against the bindings.
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
