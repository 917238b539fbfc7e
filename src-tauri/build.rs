//! Generates the Tauri context and the ACL of the app's own commands. Listing the commands in an app
//! manifest makes each one a permission (`allow-render`, ...); the one capability, written here,
//! grants the main window those the UI calls (`GRANTED`, src/command_names.rs: the web view's
//! operations and the shell's commands) and event listening. A command left out of the capability
//! cannot be called from the web view at all.

// The core's table of operations (`for_each_operation!`), expanded here into `OPERATIONS`: the
// same names the core and commands.rs get from it.
include!("../src/api/operations.rs");

macro_rules! operation_names {
    ([] $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
        const OPERATIONS: [&str; [$(stringify!($name)),*].len()] = [$(stringify!($name)),*];
    };
}

for_each_operation!([operation_names]);

include!("src/shell_commands.rs");
include!("src/command_names.rs");

/// The main window's capability: the app's commands the UI calls and app events, local origin
/// only. No plugin command is reachable from the web view: open/save dialogs are shown by Rust
/// commands, so no dialog or file-system permission is granted to it, and nothing remote may call
/// in.
fn main_capability() -> serde_json::Value {
    let mut permissions = vec![
        "core:event:allow-listen".to_owned(),
        "core:event:allow-unlisten".to_owned(),
    ];
    permissions.extend(
        GRANTED
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-"))),
    );
    serde_json::json!({
        "identifier": "main",
        "description": "The main window's local UI: the app's own commands and app events.",
        "windows": ["main"],
        "local": true,
        "permissions": permissions,
    })
}

/// Writes the capability into OUT_DIR (tests/it.rs reads it from there) and returns the glob
/// tauri-build reads capabilities from.
fn write_capabilities() -> Result<&'static str, String> {
    let out_dir = std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?;
    let dir = std::path::Path::new(&out_dir).join("capabilities");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("main.json");
    let text = serde_json::to_string_pretty(&main_capability()).map_err(|e| e.to_string())?;
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    // The pattern must outlive the build attributes, which keep a `&'static str`.
    Ok(Box::leak(
        format!("{}/*.json", dir.display()).into_boxed_str(),
    ))
}

/// Every operation the web view is granted is one of the core's table: a misspelt or removed name
/// would grant a permission that does not exist, which tauri-build reports without saying where the
/// name comes from.
fn check_webview_operations() -> Result<(), String> {
    match WEBVIEW_OPERATIONS
        .iter()
        .find(|op| !OPERATIONS.contains(op))
    {
        Some(op) => Err(format!(
            "src-tauri/src/command_names.rs: WEBVIEW_OPERATIONS names `{op}`, which is not an \
             operation of src/api/operations.rs"
        )),
        None => Ok(()),
    }
}

fn main() {
    // tauri-build declares the files it reads, which stops cargo from rerunning this script on any
    // other change: the tables included above are declared too, or a name added to them would
    // leave the capability without its grant.
    for table in [
        "build.rs",
        "../src/api/operations.rs",
        "src/shell_commands.rs",
        "src/command_names.rs",
    ] {
        println!("cargo::rerun-if-changed={table}");
    }
    if let Err(e) = check_webview_operations() {
        panic!("{e}");
    }
    let capabilities = match write_capabilities() {
        Ok(pattern) => pattern,
        Err(e) => panic!("writing the capability: {e}"),
    };
    let manifest = tauri_build::AppManifest::new().commands(&COMMANDS);
    let attributes = tauri_build::Attributes::new()
        .app_manifest(manifest)
        .capabilities_path_pattern(capabilities);
    if let Err(e) = tauri_build::try_build(attributes) {
        // A build script reports failure by panicking; the message names the problem (a missing
        // ui/dist, a bad tauri.conf.json) so the build log says what to fix.
        panic!("tauri-build: {e:#}");
    }
}
