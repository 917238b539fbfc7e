//! The app's Tauri commands: one per operation of `prompt_inspector::api` (docs/api.md), generated
//! from the core's table of operations (same names, same JSON), plus the few things only a desktop
//! shell does (system dialogs, the unsaved-edits guard).
//!
//! They live in a module rather than lib.rs because a `#[tauri::command]` defined in the crate root
//! collides with the macro's own helper (E0255). Every core call runs on the blocking thread pool:
//! rendering a large scene must never stall the event loop that paints the window.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use prompt_inspector::api;
// The operations' request and response types, which the table names bare; the commands defined
// here shadow the core's functions of the same names.
use prompt_inspector::api::*;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_plugin_dialog::DialogExt;

use crate::close_guard;
use crate::logging::{self, LogEvent};
use crate::reach::{self, Reach};

/// What the shell remembers about the UI: whether the open scene has unsaved edits (the close guard
/// reads it).
#[derive(Default)]
pub struct AppState {
    pub dirty: AtomicBool,
    /// Where the close guard is: idle, asking, or waiting for the page to save (close_guard.rs).
    pub close_guard: close_guard::Guard,
    /// The window's live documents (`live_open`, `live_edit`): the scene stays in the core between
    /// keystrokes.
    pub live: Arc<Live>,
    /// The paths the person chose, which the commands may reach, and the recent files.
    pub reach: Arc<Reach>,
}

// `COMMANDS`: the names of the commands below (the operations, then the shell's), shared with
// build.rs.
include!("command_names.rs");

/// When set, the file dialogs show nothing and answer with this path. Only the real-window
/// end-to-end test sets it: WebDriver cannot drive a GTK file chooser. Web content cannot set a
/// process's environment, so this opens no door to it.
pub const DIALOG_PATH_ENV: &str = "PROMPT_INSPECTOR_E2E_DIALOG_PATH";

/// Runs a core operation on the blocking pool and hands its result back to the async command.
async fn off_ui_thread<T, F>(operation: &'static str, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
{
    let started = std::time::Instant::now();
    // A panic in the operation is caught on the pool's thread and answers this command with an
    // `internal` error (`api::guarded`); the app goes on.
    let result = tauri::async_runtime::spawn_blocking(move || api::guarded(operation, f))
        .await
        .unwrap_or_else(|e| {
            // The pool shut down: a bug, reported like serve's 500s.
            Err(ApiError::new(
                ErrorCode::Internal,
                format!("{operation} failed inside the app: {e}"),
            ))
        });
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match &result {
        Ok(_) => tracing::debug!(operation, ms, "operation done"),
        // A bug, or a file the person chose that cannot be read or written: worth the panel's eye.
        Err(e) if e.code == ErrorCode::Internal => tracing::error!(operation, ms, "{e}"),
        Err(e) if e.code == ErrorCode::IoError => tracing::warn!(operation, ms, "{e}"),
        // Scene and template errors come with every keystroke of a half-typed edit and are shown
        // where they are; logging each at info would drown the panel.
        Err(e) => tracing::debug!(operation, ms, code = ?e.code, "{e}"),
    }
    result
}

// One command per operation of the core's table (src/api/operations.rs): same name, the request
// as the argument `req`, the core's `api::op::<name>` run off the UI thread and confined to the
// paths the person chose (reach.rs).
macro_rules! operation_commands {
    ([] $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
        $( operation_commands!(@command $name ($($req)?) -> $resp); )*
    };
    (@command $name:ident () -> $resp:ty) => {
        #[tauri::command]
        #[specta::specta]
        pub async fn $name(state: State<'_, AppState>) -> Result<$resp, ApiError> {
            let live = Arc::clone(&state.live);
            let chosen = state.reach.chosen();
            off_ui_thread(stringify!($name), move || {
                prompt_inspector::files::confined(chosen, || api::op::$name(&live))
            })
            .await
        }
    };
    (@command $name:ident ($req:ty) -> $resp:ty) => {
        #[tauri::command]
        #[specta::specta]
        pub async fn $name(state: State<'_, AppState>, req: $req) -> Result<$resp, ApiError> {
            let live = Arc::clone(&state.live);
            let chosen = state.reach.chosen();
            let scene = reach::scene_of(stringify!($name), &req);
            let result = off_ui_thread(stringify!($name), move || {
                prompt_inspector::files::confined(chosen, || api::op::$name(&live, req))
            })
            .await;
            if let (Ok(_), Some(scene)) = (&result, scene) {
                state.reach.opened_scene(&scene);
            }
            result
        }
    };
}

prompt_inspector::for_each_operation!([operation_commands]);

/// Which system dialog to show.
#[derive(Clone, Copy)]
enum Dialog {
    OpenFile,
    SaveFile,
    Folder,
}

/// Shows a file dialog (or, under the e2e test, answers with [`DIALOG_PATH_ENV`]); `None` when the
/// person cancels.
async fn pick<R: Runtime>(
    app: AppHandle<R>,
    dialog: Dialog,
    suggested: Option<String>,
) -> Result<Option<String>, ApiError> {
    let reach = Arc::clone(&app.state::<AppState>().reach);
    let picked = show(app, dialog, suggested).await?;
    if let Some(path) = &picked {
        // The person's answer: from now on the commands may reach it.
        match dialog {
            Dialog::OpenFile | Dialog::SaveFile => reach.choose_file(Path::new(path)),
            Dialog::Folder => reach.choose_folder(Path::new(path)),
        }
    }
    Ok(picked)
}

async fn show<R: Runtime>(
    app: AppHandle<R>,
    dialog: Dialog,
    suggested: Option<String>,
) -> Result<Option<String>, ApiError> {
    if let Some(path) = std::env::var_os(DIALOG_PATH_ENV) {
        return Ok(Some(PathBuf::from(path).display().to_string()));
    }
    off_ui_thread("dialog", move || {
        let mut builder = app.dialog().file();
        if !matches!(dialog, Dialog::Folder) {
            builder = builder.add_filter("Scene", &["json"]);
        }
        if let Some(window) = app.get_webview_window("main") {
            builder = builder.set_parent(&window);
        }
        if let Some(suggested) = suggested.as_deref().map(PathBuf::from) {
            if let Some(dir) = suggested.parent().filter(|d| d.is_dir()) {
                builder = builder.set_directory(dir);
            }
            if let Some(name) = suggested.file_name() {
                builder = builder.set_file_name(name.to_string_lossy());
            }
        }
        // The blocking forms wait for the main thread to show the dialog; this closure runs on
        // the blocking pool, so the wait never holds up the event loop.
        let picked = match dialog {
            Dialog::OpenFile => builder.blocking_pick_file(),
            Dialog::SaveFile => builder.blocking_save_file(),
            Dialog::Folder => builder.blocking_pick_folder(),
        };
        picked
            .map(|p| {
                p.into_path()
                    .map(|p| p.display().to_string())
                    .map_err(|e| ApiError::new(ErrorCode::IoError, e.to_string()))
            })
            .transpose()
    })
    .await
}

/// The system "open" dialog for a scene file, starting from `suggested` (a path typed, or one
/// the app may not open until the person picks it here) when given; `null` when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_open_path<R: Runtime>(
    app: AppHandle<R>,
    suggested: Option<String>,
) -> Result<Option<String>, ApiError> {
    pick(app, Dialog::OpenFile, suggested).await
}

/// The system "save as" dialog, starting from `suggested` (the open file's path) when given.
#[tauri::command]
#[specta::specta]
pub async fn pick_save_path<R: Runtime>(
    app: AppHandle<R>,
    suggested: Option<String>,
) -> Result<Option<String>, ApiError> {
    pick(app, Dialog::SaveFile, suggested).await
}

/// The system folder dialog (the replay view's folder of scenes).
#[tauri::command]
#[specta::specta]
pub async fn pick_folder<R: Runtime>(app: AppHandle<R>) -> Result<Option<String>, ApiError> {
    pick(app, Dialog::Folder, None).await
}

/// The UI says whether the open scene has unsaved edits (closing the window then asks first) and
/// gives the window title that goes with it (ui/src/lib/title.ts: the file's name, "● " when
/// unsaved). One command for both, so the flag and the title the person sees never disagree.
#[tauri::command]
#[specta::specta]
pub fn set_dirty<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    dirty: bool,
    title: String,
) {
    if state.dirty.swap(dirty, Ordering::SeqCst) != dirty {
        tracing::debug!(dirty, "unsaved edits marker");
    }
    let title = match title.trim() {
        "" => "Prompt Inspector",
        t => t,
    };
    if let Some(window) = app.get_webview_window("main") {
        if let Err(e) = window.set_title(title) {
            tracing::warn!("could not set the window title: {e}");
        }
    }
}

/// The page's answer to the close guard's `SaveBeforeClose` event: `saved` when it saved the scene
/// (the window then closes and the app ends), `false` when the save failed or the person cancelled
/// its save-as dialog (the window stays open with the edits; the page shows why). Ignored unless
/// the guard is waiting for this answer, so no other call can close the window.
#[tauri::command]
#[specta::specta]
// Async, so it runs off the main thread: the window is destroyed through the event loop, not from
// inside the IPC callback of the web view being destroyed.
pub async fn close_guard_done<R: Runtime>(window: tauri::Window<R>, saved: bool) {
    let state = window.state::<AppState>();
    if !state.close_guard.page_answered() {
        tracing::warn!(
            saved,
            "close_guard_done without a pending close guard save: ignored"
        );
        return;
    }
    if saved {
        tracing::info!("saved; closing");
        close_guard::close(&window, &state);
    } else {
        tracing::info!("close guard: not saved, kept open");
    }
}

/// The recent scene files, newest first: opened or saved in the app (kept by the shell, in the
/// app's data folder).
#[tauri::command]
#[specta::specta]
pub fn recent_files<R: Runtime>(app: AppHandle<R>) -> Vec<String> {
    app.state::<AppState>().reach.recent()
}

/// Empties the recent list.
#[tauri::command]
#[specta::specta]
pub fn clear_recent<R: Runtime>(app: AppHandle<R>) {
    app.state::<AppState>().reach.clear_recent();
}

/// About the running app, for the diagnostics panel.
#[derive(Clone, Debug, Serialize, Deserialize, specta::Type)]
pub struct AppInfo {
    pub version: String,
    /// The log file this session writes, when one could be opened.
    pub log_file: Option<String>,
    /// The most recent log lines (the panel shows them before its listener was attached).
    pub recent_logs: Vec<LogEvent>,
}

#[tauri::command]
#[specta::specta]
pub fn app_info<R: Runtime>(app: AppHandle<R>) -> AppInfo {
    AppInfo {
        // The version tauri.conf.json gives the bundle.
        version: app.package_info().version.to_string(),
        log_file: logging::log_file().map(|p| p.display().to_string()),
        recent_logs: logging::recent(),
    }
}
