//! Generates the Tauri context and the ACL of the app's own commands. Listing the commands in an app
//! manifest makes each one a permission (`allow-render`, ...) that capabilities/main.json must grant:
//! a command left out of the capability cannot be called from the web view at all.

// The core's table of operations (`for_each_operation!`), expanded here into `OPERATIONS`: the
// same names the core and commands.rs get from it.
include!("../src/api/operations.rs");

macro_rules! operation_names {
    ([] $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
        const OPERATIONS: [&str; [$(stringify!($name)),*].len()] = [$(stringify!($name)),*];
    };
}

for_each_operation!([operation_names]);

include!("src/command_names.rs");

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&COMMANDS);
    if let Err(e) = tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)) {
        // A build script reports failure by panicking; the message names the problem (a missing
        // ui/dist, a bad tauri.conf.json) so the build log says what to fix.
        panic!("tauri-build: {e:#}");
    }
}
