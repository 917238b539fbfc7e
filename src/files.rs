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
pub use chosen::{confined, is_not_chosen, Access, Chosen};

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

/// Where a write to `path` lands: the file itself, or for a symlink the file it points to (so the
/// link stays a link). A dangling link is refused rather than replaced by a file.
fn write_target(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("a symbolic link whose target cannot be resolved: {e}"),
            )
        }),
        Ok(meta) if !meta.is_file() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}, not a regular file: only regular files are written",
                kind_of(meta.file_type()).unwrap_or("not a regular file")
            ),
        )),
        Ok(_) => Ok(path.to_owned()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(path.to_owned()),
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

/// Writes `bytes` to `path` atomically: through a new temporary file in the same folder (created
/// exclusively, so never through a link planted there), given the original file's permissions,
/// synced, renamed over the target, and the folder synced after. A reader sees the old file or
/// the new one, never half of one; two writers at once both succeed, the last rename wins; a
/// failed write leaves the old file and no temporary file. A symlink is written through to its
/// target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    chosen::check(path, Access::Write)?;
    let target = write_target(path)?;
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
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
