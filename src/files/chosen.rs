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
//! nor a link inside a chosen folder leads out of it.
//!
//! The confinement belongs to the thread that runs the operation, and in a program that confines
//! (the desktop app declares so at start-up, [`require_confinement`]) it fails closed: on a thread
//! with none, every file access is refused, unless the code says so for the program's own files
//! ([`unconfined`]: the app's recent list). A thread an operation spawns carries its spawner's
//! confinement: take it with [`inherit`] and run the thread's work under [`Inherited::run`]. The
//! command line, `serve` and the Python package read and write the paths they are given and
//! confine nothing.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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

/// The refusal of file access on a thread that has no confinement, in a program that did not
/// declare itself unconfined: a thread spawned without its spawner's confinement.
#[derive(Debug)]
pub struct NoConfinement;

impl fmt::Display for NoConfinement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "file access refused: this thread runs with no confinement (a thread an operation \
             spawns must run under its spawner's, `files::inherit`)",
        )
    }
}

impl std::error::Error for NoConfinement {}

/// How a thread's file access is confined.
#[derive(Clone, Debug)]
enum Confinement {
    /// To the paths a person chose.
    To(Arc<Chosen>),
    /// Not at all, by the code's explicit choice.
    Unconfined,
}

thread_local! {
    static CONFINED: RefCell<Option<Confinement>> = const { RefCell::new(None) };
}

/// Whether the program confines file access (the desktop app): then a thread with no confinement
/// is refused every file access.
static CONFINEMENT_REQUIRED: AtomicBool = AtomicBool::new(false);

/// Declares, once at start-up, that this program confines file access to paths a person chose:
/// from then on a thread with no confinement set (one spawned without [`inherit`], say) is
/// refused every file access instead of reaching any path. The desktop app calls it before it
/// runs any operation; it cannot be taken back.
pub fn require_confinement() {
    CONFINEMENT_REQUIRED.store(true, Ordering::Release);
}

/// Runs `f` with this thread's confinement set to `c` (restored after, even on panic).
fn within<T>(c: Option<Confinement>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Confinement>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CONFINED.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CONFINED.with(|slot| std::mem::replace(&mut *slot.borrow_mut(), c));
    let _restore = Restore(previous);
    f()
}

/// Runs `f` with this thread's file access confined to `chosen` (restored after, even on panic).
pub fn confined<T>(chosen: Arc<Chosen>, f: impl FnOnce() -> T) -> T {
    within(Some(Confinement::To(chosen)), f)
}

/// Runs `f` with this thread's file access unconfined: for a program's own files (the app's
/// recent list in its data folder), never for a path a request names.
pub fn unconfined<T>(f: impl FnOnce() -> T) -> T {
    within(Some(Confinement::Unconfined), f)
}

/// This thread's confinement, to hand to a thread it spawns.
#[derive(Clone, Debug)]
pub struct Inherited(Option<Confinement>);

impl Inherited {
    /// Runs `f` on the current thread under the confinement this was taken from.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        within(self.0.clone(), f)
    }
}

/// This thread's confinement, for the threads it spawns: `let c = inherit();` before spawning,
/// `c.run(|| …)` inside the new thread.
pub fn inherit() -> Inherited {
    Inherited(CONFINED.with(|c| c.borrow().clone()))
}

/// Whether `access` to `path` is allowed under `confinement`, in a program that declared itself
/// unconfined or not.
fn decide(
    confinement: Option<&Confinement>,
    process_unconfined: bool,
    path: &Path,
    access: Access,
) -> io::Result<()> {
    match confinement {
        Some(Confinement::To(chosen)) if chosen.allows(path, access) => Ok(()),
        Some(Confinement::To(_)) => Err(io::Error::new(io::ErrorKind::PermissionDenied, NotChosen)),
        Some(Confinement::Unconfined) => Ok(()),
        None if process_unconfined => Ok(()),
        None => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            NoConfinement,
        )),
    }
}

/// `Ok` when this thread's confinement allows the access: [`NotChosen`] for a path outside it,
/// [`NoConfinement`] on a thread with none in a program that did not declare itself unconfined.
pub fn check(path: &Path, access: Access) -> io::Result<()> {
    let process_unconfined = !CONFINEMENT_REQUIRED.load(Ordering::Acquire);
    CONFINED.with(|c| decide(c.borrow().as_ref(), process_unconfined, path, access))
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
        // Outside the closure the thread is as before: here, the unit tests' unconfined
        // program.
        assert!(check(&dir.join("elsewhere/real.scene.json"), Access::Read).is_ok());
    }

    #[test]
    fn a_thread_with_no_confinement_is_refused_in_a_program_that_confines() {
        let dir = scratch("closed");
        let file = dir.join("elsewhere/real.scene.json");
        std::fs::write(&file, "{}").expect("write");
        let e = decide(None, false, &file, Access::Read).expect_err("fails closed");
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(
            e.get_ref().is_some_and(|inner| inner.is::<NoConfinement>()),
            "{e}"
        );
        assert!(e.to_string().starts_with("file access refused"), "{e}");
        for access in [Access::Write, Access::Look, Access::Image] {
            assert!(decide(None, false, &file, access).is_err());
        }
        assert!(decide(None, true, &file, Access::Read).is_ok());
        // An explicit choice holds whatever the program declared.
        assert!(decide(Some(&Confinement::Unconfined), false, &file, Access::Write).is_ok());
        let nothing = Confinement::To(Arc::new(Chosen::default()));
        assert!(decide(Some(&nothing), true, &file, Access::Read).is_err());
    }

    #[test]
    fn a_thread_spawned_inside_confined_carries_the_confinement() {
        let dir = scratch("spawned");
        std::fs::write(dir.join("elsewhere/real.scene.json"), "{}").expect("write");
        let mut chosen = Chosen::default();
        chosen.add_folder(&dir.join("scenes"));
        let (inside, outside) = confined(Arc::new(chosen), || {
            let c = inherit();
            std::thread::scope(|s| {
                s.spawn(|| {
                    c.run(|| {
                        (
                            crate::files::read_regular(
                                &dir.join("elsewhere/real.scene.json"),
                                10,
                                "a scene",
                            ),
                            check(&dir.join("scenes/a.scene.json"), Access::Write),
                        )
                    })
                })
                .join()
                .expect("the thread")
            })
        });
        let e = inside.expect_err("not chosen, so refused on the spawned thread");
        assert!(is_not_chosen(&e), "{e}");
        assert!(outside.is_ok());
        // Without its spawner's confinement the thread has none: in a program that did not
        // declare itself unconfined (the app), refused.
        let bare = std::thread::spawn(|| CONFINED.with(|c| c.borrow().is_none()))
            .join()
            .expect("the thread");
        assert!(bare);
    }
}
