//! Reading and writing the files a person names: only regular files are read, never past a limit
//! chosen before reading, and a write replaces the file whole or not at all.
//!
//! The size a file's metadata gives is not a bound: it is 0 for `/dev/zero`, a pipe or a FIFO, and
//! a FIFO's `open` blocks until a writer comes. So the kind of file is checked before opening it,
//! it is opened without blocking, checked again on the open handle (the name may have been swapped
//! in between), and read through a reader that stops one byte past the limit.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

pub mod chosen;
pub use chosen::{
    confined, inherit, is_not_chosen, require_confinement, unconfined, Access, Chosen, Inherited,
};

/// What a path names, in words, when it is not a regular file.
fn kind_of(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

fn not_regular(what: &str) -> io::Error {
    let message = if what == "not a regular file" {
        "not a regular file: only regular files are read".to_owned()
    } else {
        format!("{what}, not a regular file: only regular files are read")
    };
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// An I/O error in words, for a person: `no such file` (or `no such folder`, `no such file or
/// folder`, as `what` says), `permission denied`, and otherwise the system's description without
/// its `(os error N)` tail, which names nothing a reader can act on. Errors this module makes up
/// (a FIFO, a file too large) carry their own words and are kept as they are.
pub fn io_words(err: &io::Error, what: &str) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => format!("no such {what}"),
        io::ErrorKind::PermissionDenied if err.raw_os_error().is_some() => {
            "permission denied".to_owned()
        }
        _ if err.raw_os_error().is_some() => {
            let text = err.to_string();
            let bare = text
                .rsplit_once(" (os error ")
                .map_or(text.as_str(), |(d, _)| d);
            let mut chars = bare.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_lowercase().chain(chars).collect::<String>()
            })
        }
        _ => err.to_string(),
    }
}

/// The error of a file past its limit; `what` names the kind of file ("a scene", "an image").
pub fn too_large(what: &str, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("the file has more than the {limit} bytes {what} may have"),
    )
}

/// Opens `path` for reading if it is a regular file (following symlinks), without blocking on a
/// FIFO swapped in after the check.
pub fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    open_regular_for(path, Access::Read)
}

/// [`open_regular`] for an image attachment (which a confined thread may read anywhere in a
/// chosen folder).
pub fn open_image(path: &Path) -> io::Result<std::fs::File> {
    open_regular_for(path, Access::Image)
}

fn open_regular_for(path: &Path, access: Access) -> io::Result<std::fs::File> {
    chosen::check(path, access)?;
    if let Some(what) = kind_of(std::fs::metadata(path)?.file_type()) {
        return Err(not_regular(what));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Only what is not a regular file blocks on open; for a regular file the flag does nothing.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if let Some(what) = kind_of(file.metadata()?.file_type()) {
        return Err(not_regular(what));
    }
    Ok(file)
}

/// The bytes of the regular file `path`, refused when it has more than `limit` bytes; `what`
/// names the file's kind in that error ("a scene").
pub fn read_regular(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(too_large(what, limit));
    }
    // The metadata's length presizes the buffer; `take` keeps the limit if the file grows.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(what, limit));
    }
    Ok(bytes)
}

/// Like [`read_regular`], for UTF-8 text; a file that is not UTF-8 is `InvalidData` naming the byte
/// offset.
pub fn read_regular_text(path: &Path, limit: u64, what: &str) -> io::Result<String> {
    let bytes = read_regular(path, limit, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not valid UTF-8 (byte offset {at})"),
        )
    })
}

/// Where a write to `path` lands, and what was there when it was looked at: the file itself,
/// or for a symbolic link the regular file it resolves to through every hop (so the link stays
/// a link). Anything else is refused before a byte is written: a path that is not a regular
/// file, and a link that is dangling, loops, or ends at a folder, FIFO, device or socket. The
/// check looks at what the link points at, not at the link, because replacing the target is what
/// the write does.
fn write_target(path: &Path) -> io::Result<(PathBuf, Option<std::fs::Permissions>)> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let pointed = std::fs::read_link(path)
                .map_or_else(|_| "?".to_owned(), |p| p.display().to_string());
            let target = std::fs::canonicalize(path).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "a symbolic link to {pointed}, which does not resolve to a file ({e}): \
                         a link is written through only to an existing regular file"
                    ),
                )
            })?;
            // The canonical path has no link left in it, so this looks at the file itself.
            let meta = std::fs::symlink_metadata(&target)?;
            if let Some(what) = kind_of(meta.file_type()) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "a symbolic link to {}, which is {what}, not a regular file: a link is \
                         written through only to a regular file",
                        target.display()
                    ),
                ));
            }
            Ok((target, Some(meta.permissions())))
        }
        Ok(meta) if !meta.is_file() => Err(not_writable(meta.file_type())),
        Ok(meta) => Ok((path.to_owned(), Some(meta.permissions()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((path.to_owned(), None)),
        Err(e) => Err(e),
    }
}

fn not_writable(file_type: std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{}, not a regular file: only regular files are written",
            kind_of(file_type).unwrap_or("not a regular file")
        ),
    )
}

/// Looks at the target again just before the rename replaces it: something that is not a
/// regular file swapped in since [`write_target`] looked is refused. (A regular file swapped in
/// is replaced, as a concurrent save's is: the last rename wins.)
fn still_regular(target: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(target) {
        Ok(now) if !now.is_file() => Err(not_writable(now.file_type())),
        Ok(_) => Ok(()),
        // Gone since: the rename creates it, as it would have.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// A name no other writer (of this or another process) picks: process id, a per-process counter
/// and 64 bits from the OS-seeded hasher keys std draws for every `RandomState`.
fn temporary_name(name: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(n);
    format!(
        ".{name}.{}.{n}.{:016x}.tmp",
        std::process::id(),
        hasher.finish()
    )
}

/// Writes `bytes` to `path` atomically: through a new temporary file in the target's folder
/// (created exclusively, so never through a link planted there), given the target's
/// permissions, synced, renamed over the target, and the folder synced after. A reader sees the
/// old file or the new one, never half of one; two writers at once both succeed, the last rename
/// wins; a failed write leaves the old file and no temporary file.
///
/// Only regular files are written. A symbolic link is written through when it resolves, through
/// every hop, to an existing regular file: that file's contents are replaced and the link stays a
/// link. A link to a folder, FIFO, device or socket, a dangling link, and a path that is itself
/// not a regular file are refused, naming what was found. The target is looked at again just
/// before the rename; what remains is the instant between that look and the rename, in which only
/// someone who may already change the target's folder can swap the entry, and the rename then
/// replaces the entry they put there rather than writing into it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    chosen::check(path, Access::Write)?;
    let (target, permissions) = write_target(path)?;
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(temporary_name(&name));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Some(permissions) = permissions {
            f.set_permissions(permissions)?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        still_regular(&target)?;
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    // The rename is durable only once the folder's entry is on disk.
    #[cfg(unix)]
    if let Ok(folder) = std::fs::File::open(dir) {
        if let Err(e) = folder.sync_all() {
            tracing::debug!(folder = %dir.display(), "folder sync after save failed: {e}");
        }
    }
    Ok(())
}

/// `std::fs::metadata`, for a path the thread may look at.
pub fn metadata(path: &Path) -> io::Result<std::fs::Metadata> {
    chosen::check(path, Access::Look)?;
    std::fs::metadata(path)
}

/// The entries of the folder `path`, for a folder the thread may look at.
pub fn read_dir(path: &Path) -> io::Result<Vec<std::fs::DirEntry>> {
    chosen::check(path, Access::Look)?;
    std::fs::read_dir(path)?.collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn io_errors_speak_words_not_os_error_numbers() {
        let dir = std::env::temp_dir().join(format!("pi-io-words-{}", std::process::id()));
        let missing = dir.join("missing.scene.json");
        let e = read_regular(&missing, 10, "a scene").expect_err("missing");
        assert_eq!(io_words(&e, "file"), "no such file");
        assert_eq!(io_words(&e, "folder"), "no such folder");
        let listing = read_dir(&dir.join("nope")).expect_err("missing folder");
        assert_eq!(io_words(&listing, "folder"), "no such folder");
        // Another OS error keeps its description, lower-cased, without the number.
        let other = io::Error::from_raw_os_error(21);
        let words = io_words(&other, "file");
        assert!(!words.contains("os error"), "{words}");
        assert!(words.starts_with(|c: char| c.is_lowercase()), "{words}");
        // This module's own errors are kept whole.
        let own = too_large("a scene", 3);
        assert_eq!(io_words(&own, "file"), own.to_string());
    }

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pi-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        dir
    }

    #[test]
    fn devices_and_folders_are_refused_before_reading() {
        let e = read_regular(Path::new("/dev/zero"), 10, "a scene").expect_err("/dev/zero");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().starts_with("a character device"), "{e}");
        let e = read_regular(Path::new("/"), 10, "a scene").expect_err("a folder");
        assert!(e.to_string().starts_with("a folder"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = scratch("fifo");
        let fifo = dir.join("x.scene.json");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let e = read_regular(&fifo, 10, "a scene").expect_err("a FIFO");
        assert!(e.to_string().starts_with("a FIFO"), "{e}");
        // Opening it as the check does, without the kind check, must not block either.
        let e = open_regular(&fifo).expect_err("a FIFO");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn the_limit_holds() {
        let dir = scratch("limit");
        let file = dir.join("big");
        std::fs::write(&file, b"0123456789").expect("write");
        assert_eq!(
            read_regular(&file, 10, "a scene")
                .expect("at the limit")
                .len(),
            10
        );
        let e = read_regular(&file, 9, "a scene").expect_err("past the limit");
        assert_eq!(
            e.to_string(),
            "the file has more than the 9 bytes a scene may have"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_save_keeps_the_mode_writes_through_a_link_and_leaves_no_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("save");
        let target = dir.join("real.json");
        std::fs::write(&target, "old").expect("write");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        write_atomic(&link, b"new").expect("save through the link");
        assert!(std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        let mode = std::fs::metadata(&target)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let dangling = dir.join("dangling.json");
        std::os::unix::fs::symlink(dir.join("missing"), &dangling).expect("symlink");
        write_atomic(&dangling, b"x").expect_err("a dangling link is refused");
        assert!(!dir.join("missing").exists());
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo");
        assert!(status.success());
    }

    #[cfg(unix)]
    fn is_fifo(path: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::symlink_metadata(path)
            .expect("still there")
            .file_type()
            .is_fifo()
    }

    #[cfg(unix)]
    #[test]
    fn a_save_through_links_of_several_hops_replaces_the_regular_file_at_the_end() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("hops");
        std::fs::create_dir_all(dir.join("real")).expect("folder");
        let target = dir.join("real/golden.json");
        std::fs::write(&target, "old").expect("write");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o604)).expect("chmod");
        std::os::unix::fs::symlink(&target, dir.join("hop1")).expect("symlink");
        std::os::unix::fs::symlink("hop1", dir.join("hop2")).expect("symlink");
        write_atomic(&dir.join("hop2"), b"new").expect("save through two links");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        for link in ["hop1", "hop2"] {
            assert!(std::fs::symlink_metadata(dir.join(link))
                .expect("link")
                .file_type()
                .is_symlink());
        }
        let mode = std::fs::metadata(&target)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o604);
        // The temporary file was made beside the target, and is gone.
        assert_eq!(
            std::fs::read_dir(dir.join("real")).expect("list").count(),
            1
        );
        assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 3);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_anything_but_a_regular_file_is_refused_and_the_target_left_as_it_was() {
        let dir = scratch("refused");
        let fifo = dir.join("pipe");
        mkfifo(&fifo);
        let folder = dir.join("folder");
        std::fs::create_dir(&folder).expect("folder");
        let link = |name: &str, to: &Path| {
            let l = dir.join(name);
            std::os::unix::fs::symlink(to, &l).expect("symlink");
            l
        };
        let to_fifo = link("to-fifo.golden.json", &fifo);
        let via = link("via.golden.json", &to_fifo);
        let to_folder = link("to-folder.golden.json", &folder);
        let dangling = link("dangling.golden.json", &dir.join("missing"));
        for (l, says) in [
            (
                &to_fifo,
                format!("{}, which is a FIFO (named pipe)", fifo.display()),
            ),
            (
                &via,
                format!("{}, which is a FIFO (named pipe)", fifo.display()),
            ),
            (
                &to_folder,
                format!("{}, which is a folder", folder.display()),
            ),
            (
                &dangling,
                format!("{}, which does not resolve", dir.join("missing").display()),
            ),
        ] {
            let e = write_atomic(l, b"x").expect_err("refused");
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
            assert!(e.to_string().starts_with("a symbolic link to "), "{e}");
            assert!(e.to_string().contains(&says), "{e} lacks {says}");
        }
        assert!(is_fifo(&fifo), "the FIFO was replaced");
        assert!(std::fs::metadata(&folder).expect("folder").is_dir());
        assert_eq!(std::fs::read_dir(&folder).expect("list").count(), 0);
        assert!(!dir.join("missing").exists());
        // A FIFO named directly is refused as before, and stays a FIFO.
        let e = write_atomic(&fifo, b"x").expect_err("a FIFO");
        assert!(
            e.to_string()
                .starts_with("a FIFO (named pipe), not a regular file"),
            "{e}"
        );
        assert!(is_fifo(&fifo));
        // Nothing else was left in the folder: no temporary file.
        assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 6);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_swapped_in_for_the_target_before_the_rename_is_not_replaced() {
        let dir = scratch("swap");
        let fifo = dir.join("pipe");
        mkfifo(&fifo);
        let e = still_regular(&fifo).expect_err("a FIFO");
        assert!(e.to_string().starts_with("a FIFO"), "{e}");
        still_regular(&dir.join("absent")).expect("absent: the rename creates it");
    }

    #[test]
    fn concurrent_saves_of_one_path_all_succeed_and_readers_see_whole_files() {
        let dir = scratch("concurrent");
        let file = dir.join("scene.json");
        let texts: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 200_000]).collect();
        write_atomic(&file, &texts[0]).expect("first save");
        std::thread::scope(|s| {
            for text in &texts {
                let file = &file;
                s.spawn(move || {
                    for _ in 0..5 {
                        write_atomic(file, text).expect("a concurrent save");
                    }
                });
            }
            s.spawn(|| {
                for _ in 0..50 {
                    let now = std::fs::read(&file).expect("read while saving");
                    assert_eq!(now.len(), 200_000);
                    assert!(now.iter().all(|b| *b == now[0]), "a half-written file");
                }
            });
        });
        let names = std::fs::read_dir(&dir).expect("list").count();
        assert_eq!(names, 1, "a temporary file was left behind");
    }
}
