//! What the person chose: the paths the window's commands may touch, and the recent files.
//!
//! Script in the web view can call every command with any path, so the shell, not the page,
//! decides which paths a command may reach: those the person answered a dialog with, the recent
//! files (and the folders of all of these scenes), kept here. Every core operation runs
//! confined to them (`prompt_inspector::files::confined`); the rules are in the core's
//! `files::chosen`. The recent list lives here too, in the app's data folder, because a list the
//! page kept could be written by the page.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use prompt_inspector::api::{PathRequest, SaveRequest};
use prompt_inspector::files::{self, Chosen};
use serde::{Deserialize, Serialize};

/// How many recent files are kept.
pub const MAX_RECENT: usize = 10;
/// The recent list's file in the app's data folder.
const RECENT_FILE: &str = "recent.json";
/// A recent list bigger than this is not read (it is a few paths).
const MAX_RECENT_BYTES: u64 = 1 << 20;

#[derive(Default, Serialize, Deserialize)]
struct RecentStore {
    files: Vec<String>,
}

#[derive(Default)]
struct Inner {
    /// Shared with running operations; replaced (not changed) when something is added.
    chosen: Arc<Chosen>,
    /// Newest first.
    recent: Vec<String>,
}

/// The window's chosen paths and recent files.
#[derive(Default)]
pub struct Reach {
    inner: Mutex<Inner>,
    /// Where the recent list is kept; unset (nothing kept) until the app's setup sets it.
    store: OnceLock<PathBuf>,
}

impl Reach {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind; keep using it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What operations may reach now.
    pub fn chosen(&self) -> Arc<Chosen> {
        Arc::clone(&self.lock().chosen)
    }

    fn change(&self, f: impl FnOnce(&mut Chosen)) {
        let mut inner = self.lock();
        f(Arc::make_mut(&mut inner.chosen));
    }

    /// A file the person answered a dialog with.
    pub fn choose_file(&self, path: &Path) {
        tracing::debug!(path = %path.display(), "chosen in a dialog");
        self.change(|c| c.add_file(path));
    }

    /// A folder the person answered the folder dialog with.
    pub fn choose_folder(&self, path: &Path) {
        tracing::debug!(path = %path.display(), "folder chosen in a dialog");
        self.change(|c| c.add_folder(path));
    }

    /// A scene that was opened or saved: its folder becomes reachable and it heads the recent
    /// list. Only called after the operation succeeded on a path it was allowed to reach.
    pub fn opened_scene(&self, path: &Path) {
        let shown = path.display().to_string();
        let recent = {
            let mut inner = self.lock();
            let chosen = Arc::make_mut(&mut inner.chosen);
            chosen.add_file(path);
            chosen.add_scene_folder(path);
            inner.recent.retain(|p| *p != shown);
            inner.recent.insert(0, shown);
            inner.recent.truncate(MAX_RECENT);
            inner.recent.clone()
        };
        self.save_recent(recent);
    }

    pub fn recent(&self) -> Vec<String> {
        self.lock().recent.clone()
    }

    /// Empties the recent list. What was chosen stays reachable until the app ends.
    pub fn clear_recent(&self) {
        self.lock().recent.clear();
        self.save_recent(Vec::new());
    }

    /// Reads the recent list kept in `dir` (the app's data folder) and keeps it there from now
    /// on; each recent scene and its folder become reachable.
    pub fn load(&self, dir: &Path) {
        let file = dir.join(RECENT_FILE);
        // The app's own file, not one a request names.
        let stored = match files::unconfined(|| {
            files::read_regular(&file, MAX_RECENT_BYTES, "the recent list")
        }) {
            Ok(bytes) => serde_json::from_slice::<RecentStore>(&bytes).unwrap_or_else(|e| {
                tracing::warn!(file = %file.display(), "the recent list is not readable, starting afresh: {e}");
                RecentStore::default()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => RecentStore::default(),
            Err(e) => {
                tracing::warn!(file = %file.display(), "cannot read the recent list: {e}");
                RecentStore::default()
            }
        };
        if self.store.set(file).is_err() {
            tracing::warn!("the recent list was already loaded; kept the first");
            return;
        }
        let mut inner = self.lock();
        let chosen = Arc::make_mut(&mut inner.chosen);
        let mut recent = Vec::new();
        for p in stored.files.into_iter().take(MAX_RECENT) {
            chosen.add_file(Path::new(&p));
            chosen.add_scene_folder(Path::new(&p));
            if !recent.contains(&p) {
                recent.push(p);
            }
        }
        inner.recent = recent;
    }

    fn save_recent(&self, files_list: Vec<String>) {
        let Some(file) = self.store.get() else {
            return;
        };
        let text = match serde_json::to_vec_pretty(&RecentStore { files: files_list }) {
            Ok(t) => t,
            Err(e) => return tracing::warn!("cannot write the recent list: {e}"),
        };
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| files::unconfined(|| files::write_atomic(file, &text)));
        if let Err(e) = written {
            tracing::warn!(file = %file.display(), "cannot write the recent list: {e}");
        }
    }
}

/// The scene file an operation opens or saves, if it is one that does: it joins the recent list
/// once the operation succeeds.
pub fn scene_of(operation: &str, request: &dyn Any) -> Option<PathBuf> {
    match operation {
        "open" => request
            .downcast_ref::<PathRequest>()
            .map(|r| PathBuf::from(&r.path)),
        "save" => request
            .downcast_ref::<SaveRequest>()
            .filter(|r| !r.recording)
            .map(|r| PathBuf::from(&r.path)),
        _ => None,
    }
}
