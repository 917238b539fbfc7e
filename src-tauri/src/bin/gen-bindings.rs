//! Writes the TypeScript bindings of the app's commands and events, and the typed map of the core's
//! operations the UI's transports carry, to `ui/src/api/bindings.ts` (or to the path given as the
//! only argument). CI runs it and then `git diff --exit-code` on the file, so a change to a command,
//! an operation or a transport type without regenerated bindings fails.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            // The repository root is the app crate's parent folder.
            crate_dir
                .parent()
                .unwrap_or(crate_dir)
                .join("ui/src/api/bindings.ts")
        });
    let exporter = prompt_inspector_app::bindings_exporter();
    match prompt_inspector_app::specta_builder().export(exporter, &path) {
        Ok(()) => {
            eprintln!("wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-bindings: {e}");
            ExitCode::FAILURE
        }
    }
}
