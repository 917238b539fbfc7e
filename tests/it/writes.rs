#![cfg(unix)]

//! Writes never follow a link to something else: every command that writes a file (`check
//! --bless`, `--junit`, `--html`, `import -o --force`) refuses a link to a FIFO, a folder, or
//! nothing, and leaves the target as it was; a link to a regular file is written through, the
//! link kept and the file's mode kept (docs/cli.md, "Files"). Serve's `save` and `golden` are in
//! serve.rs.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::run;

fn tempdir(tag: &str) -> PathBuf {
    crate::support::tempdir("writes", tag)
}

pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

pub fn is_fifo(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

fn link(from: &Path, to: &Path) {
    std::os::unix::fs::symlink(to, from).expect("symlink");
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A folder with one scene, `s.scene.json`, whose golden path is free.
fn one_scene(tag: &str) -> PathBuf {
    let d = tempdir(tag);
    std::fs::write(
        d.join("s.scene.json"),
        prompt_inspector::scene::DEFAULT_SCENE,
    )
    .expect("scene");
    d
}

#[test]
fn check_bless_refuses_a_golden_linked_to_a_fifo_a_folder_or_nothing() {
    let d = one_scene("bless-refused");
    let golden = d.join("s.golden.json");
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    let folder = d.join("folder");
    std::fs::create_dir(&folder).expect("folder");
    for (to, says) in [
        (fifo.clone(), "which is a FIFO (named pipe)"),
        (folder.clone(), "which is a folder"),
        (d.join("missing"), "which does not resolve"),
    ] {
        let _ = std::fs::remove_file(&golden);
        link(&golden, &to);
        let o = run(&["check", "--bless", &d.display().to_string()]);
        let out = text(&o);
        assert_ne!(o.status.code(), Some(0), "{out}");
        assert!(out.contains("CANNOT WRITE GOLDEN"), "{out}");
        assert!(
            out.contains(&format!("a symbolic link to {}", to.display())),
            "{out}"
        );
        assert!(out.contains(says), "{out}");
        assert!(
            std::fs::symlink_metadata(&golden)
                .expect("link")
                .file_type()
                .is_symlink(),
            "the link was replaced"
        );
    }
    assert!(is_fifo(&fifo), "the FIFO was replaced");
    assert_eq!(std::fs::read_dir(&folder).expect("list").count(), 0);
    assert!(!d.join("missing").exists());
    // Only what the test made is there: no temporary file left.
    assert_eq!(std::fs::read_dir(&d).expect("list").count(), 4);
}

#[test]
fn check_bless_writes_through_a_link_to_a_regular_file_keeping_the_link_and_the_mode() {
    let d = one_scene("bless-through");
    std::fs::create_dir(d.join("real")).expect("folder");
    let real = d.join("real/kept.json");
    std::fs::write(&real, "old").expect("write");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let golden = d.join("s.golden.json");
    link(&golden, &real);
    let o = run(&["check", "--bless", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let written = std::fs::read_to_string(&real).expect("read");
    assert!(written.starts_with('{') && written.len() > 100, "{written}");
    assert!(std::fs::symlink_metadata(&golden)
        .expect("link")
        .file_type()
        .is_symlink());
    let mode = std::fs::metadata(&real).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    assert_eq!(std::fs::read_dir(d.join("real")).expect("list").count(), 1);
    // And the blessed golden now matches.
    let o = run(&["check", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn junit_and_html_reports_refuse_a_link_to_a_fifo() {
    let d = one_scene("reports");
    let o = run(&["check", "--bless", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    for (flag, name, what) in [
        ("--junit", "report.xml", "the JUnit report"),
        ("--html", "report.html", "the HTML report"),
    ] {
        let l = d.join(name);
        link(&l, &fifo);
        let o = run(&[
            "check",
            flag,
            &l.display().to_string(),
            &d.display().to_string(),
        ]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains(&format!(
                "error: cannot write {what} to {}: a symbolic link to {}, which is a FIFO",
                l.display(),
                fifo.display()
            )),
            "{out}"
        );
        assert!(is_fifo(&fifo), "{flag}: the FIFO was replaced");
    }
}

#[test]
fn import_force_refuses_an_output_linked_to_a_fifo() {
    let d = tempdir("import");
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    let l = d.join("out.scene.json");
    link(&l, &fifo);
    let input = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/anthropic/code-review.json");
    let o = run(&[
        "import",
        &input.display().to_string(),
        "--from",
        "anthropic",
        "-o",
        &l.display().to_string(),
        "--force",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains(&format!(
            "a symbolic link to {}, which is a FIFO",
            fifo.display()
        )),
        "{out}"
    );
    assert!(is_fifo(&fifo));
    assert!(std::fs::symlink_metadata(&l)
        .expect("link")
        .file_type()
        .is_symlink());
}
