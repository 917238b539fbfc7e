//! The paths a person chose, and the confinement of file access to them.
//!
//! In the desktop app, script in the web view can call every command, so a path in a request
//! proves nothing. The shell keeps what the person chose (a file in the Open or Save dialog, a
//! folder in the folder dialog, an entry of the recent list) and runs each operation
//! [`confined`] to it: every read, write, listing and image the operation reaches through this
//! module is checked first, and a path outside gets [`NotChosen`], the same error whether or not
//! the file exists, so a refusal reveals nothing of it.
//!
//! What a chosen path gives:
//! - a chosen **file**: reading and writing it;
//! - a chosen **folder** (a folder dialog's answer, or the folder of a chosen scene file): below
//!   it, reading and writing scene and golden files (`*.scene.json`, `*.golden.json`), listing
//!   folders, and reading images (which are used only when their bytes are an image's).
//!
//! Paths are compared resolved (absolute, `..` and symbolic links resolved), so neither `..`
//! nor a link inside a chosen folder leads out of it. The confinement belongs to the thread that
//! runs the operation; the core's operations do all their file work on the calling thread.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What an operation does with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// Listing a folder, or asking what a path is (file or folder, size, time).
    Look,
    /// Reading an image attachment.
    Image,
}

/// Files in a chosen folder that may be read and written: scenes and goldens.
const FOLDER_FILE_SUFFIXES: [&str; 2] = [".scene.json", ".golden.json"];

/// The paths a person chose, resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chosen {
    files: BTreeSet<PathBuf>,
    folders: BTreeSet<PathBuf>,
}

impl Chosen {
    /// Adds a file the person chose (it may not exist yet: a Save dialog's answer).
    pub fn add_file(&mut self, path: &Path) {
        if let Some(p) = resolve(path) {
            self.files.insert(p);
        }
    }

    /// Adds a folder the person chose: what is below it, as the module says.
    pub fn add_folder(&mut self, path: &Path) {
        if let Some(p) = resolve(path) {
            self.folders.insert(p);
        }
    }

    /// Adds the folder of a scene file the person opened or saved: both the folder the path
    /// names and, for a symbolic link, its target's (relative image paths start at the first,
    /// goldens sit beside the second).
    pub fn add_scene_folder(&mut self, scene: &Path) {
        if let Some(parent) = absolute(scene).parent() {
            self.add_folder(parent);
        }
        if let Some(parent) = resolve(scene).as_deref().and_then(Path::parent) {
            self.folders.insert(parent.to_owned());
        }
    }

    /// Whether `access` to `path` is allowed.
    pub fn allows(&self, path: &Path, access: Access) -> bool {
        let Some(p) = resolve(path) else {
            return false;
        };
        if self.files.contains(&p) {
            return true;
        }
        if !self.folders.iter().any(|f| p.starts_with(f)) {
            return false;
        }
        match access {
            Access::Look | Access::Image => true,
            Access::Read | Access::Write => {
                let name = p.file_name().map(|n| n.to_string_lossy());
                name.is_some_and(|n| FOLDER_FILE_SUFFIXES.iter().any(|s| n.ends_with(s)))
            }
        }
    }

    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(PathBuf::as_path)
    }

    pub fn folders(&self) -> impl Iterator<Item = &Path> {
        self.folders.iter().map(PathBuf::as_path)
    }
}

/// `path` made absolute against the working folder, without touching the file system.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// `path` absolute with every link and `..` resolved; for a path that does not exist yet, its
/// folder resolved and the name appended. `None` when not even the folder exists.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let path = absolute(path);
    let name = path.file_name()?;
    if name == ".." {
        return None;
    }
    let parent = std::fs::canonicalize(path.parent()?).ok()?;
    Some(parent.join(name))
}

/// The refusal of a path the person did not choose.
#[derive(Debug)]
pub struct NotChosen;

impl fmt::Display for NotChosen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "not a path you chose in this window: choose it in a dialog (Open, Save as, Browse…) \
             or from the recent list first",
        )
    }
}

impl std::error::Error for NotChosen {}

/// Whether `e` is the refusal of a path the person did not choose.
pub fn is_not_chosen(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<NotChosen>())
}

thread_local! {
    static CONFINED: RefCell<Option<Arc<Chosen>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's file access confined to `chosen` (restored after, even on panic).
pub fn confined<T>(chosen: Arc<Chosen>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<Chosen>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CONFINED.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CONFINED.with(|c| c.borrow_mut().replace(chosen));
    let _restore = Restore(previous);
    f()
}

/// `Ok` when this thread is not confined or `chosen` allows the access; else [`NotChosen`].
pub fn check(path: &Path, access: Access) -> io::Result<()> {
    let allowed = CONFINED.with(|c| c.borrow().as_ref().is_none_or(|ch| ch.allows(path, access)));
    if allowed {
        Ok(())
    } else {
        Err(io::Error::new(io::ErrorKind::PermissionDenied, NotChosen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pi-chosen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("scenes/sub")).expect("scratch");
        std::fs::create_dir_all(dir.join("elsewhere")).expect("scratch");
        dir
    }

    #[test]
    fn a_chosen_file_and_a_chosen_folder_give_what_they_say() {
        let dir = scratch("rules");
        let mut chosen = Chosen::default();
        chosen.add_file(&dir.join("elsewhere/notes.txt"));
        chosen.add_folder(&dir.join("scenes"));
        let allows = |p: &str, a| chosen.allows(&dir.join(p), a);
        // The file itself, in every way, even before it exists.
        assert!(allows("elsewhere/notes.txt", Access::Read));
        assert!(allows("elsewhere/notes.txt", Access::Write));
        assert!(!allows("elsewhere/other.scene.json", Access::Read));
        // Below the folder: scenes and goldens, at any depth; images; listings.
        assert!(allows("scenes/a.scene.json", Access::Write));
        assert!(allows("scenes/sub/a.golden.json", Access::Read));
        assert!(allows("scenes/sub/cat.png", Access::Image));
        assert!(allows("scenes/sub", Access::Look));
        // Nothing else there, and no way out by `..`.
        assert!(!allows("scenes/.bashrc", Access::Write));
        assert!(!allows("scenes/secret.txt", Access::Read));
        assert!(!allows("scenes/../elsewhere/x.scene.json", Access::Read));
        assert!(!allows(
            "scenes/sub/../../elsewhere/x.scene.json",
            Access::Write
        ));
        assert!(!allows("elsewhere", Access::Look));
        assert!(!Chosen::default().allows(&dir.join("scenes/a.scene.json"), Access::Read));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_inside_a_chosen_folder_does_not_lead_out_of_it() {
        let dir = scratch("links");
        std::fs::write(dir.join("elsewhere/x.scene.json"), "{}").expect("write");
        std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("scenes/out")).expect("link");
        std::os::unix::fs::symlink(
            dir.join("elsewhere/x.scene.json"),
            dir.join("scenes/x.scene.json"),
        )
        .expect("link");
        let mut chosen = Chosen::default();
        chosen.add_folder(&dir.join("scenes"));
        assert!(!chosen.allows(&dir.join("scenes/out/x.scene.json"), Access::Read));
        assert!(!chosen.allows(&dir.join("scenes/x.scene.json"), Access::Read));
        assert!(!chosen.allows(&dir.join("scenes/out"), Access::Look));
        // Opening the link as a scene (a dialog's answer) gives its target's folder too.
        chosen.add_file(&dir.join("scenes/x.scene.json"));
        chosen.add_scene_folder(&dir.join("scenes/x.scene.json"));
        assert!(chosen.allows(&dir.join("scenes/x.scene.json"), Access::Write));
        assert!(chosen.allows(&dir.join("elsewhere/x.golden.json"), Access::Write));
    }

    #[test]
    fn confinement_holds_for_the_closure_only_and_refuses_alike_whether_or_not_a_file_exists() {
        let dir = scratch("confined");
        std::fs::write(dir.join("elsewhere/real.scene.json"), "{}").expect("write");
        let mut chosen = Chosen::default();
        chosen.add_folder(&dir.join("scenes"));
        let refusals = confined(Arc::new(chosen), || {
            assert!(check(&dir.join("scenes/a.scene.json"), Access::Read).is_ok());
            [
                check(&dir.join("elsewhere/real.scene.json"), Access::Read),
                check(&dir.join("elsewhere/missing.scene.json"), Access::Read),
                check(Path::new("/no/such/folder/x.scene.json"), Access::Read),
            ]
            .map(|r| r.map_err(|e| (is_not_chosen(&e), e.kind(), e.to_string())))
        });
        let first = refusals[0].clone().expect_err("refused");
        assert!(first.0, "{first:?}");
        assert_eq!(first.1, io::ErrorKind::PermissionDenied);
        for r in &refusals {
            assert_eq!(r.clone().expect_err("refused"), first);
        }
        // Outside the closure the thread is free again.
        assert!(check(&dir.join("elsewhere/real.scene.json"), Access::Read).is_ok());
    }
}
