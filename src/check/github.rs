//! `check --format github`: GitHub Actions workflow commands. Each failing scene gets an
//! `::error` annotation on its scene file; a mismatch whose first differing segment comes from
//! a template gets a second one on the line of the scene file where that template is written,
//! and a denied diagnostic is annotated on its template's line. The diff follows in a collapsed
//! `::group::`, so the log stays short, then the scene's status line.
//!
//! The runner acts on any line that starts (after leading whitespace) with `::` or `##[`, and a
//! scene's text, its file name or its golden's can hold such a line. So every line printed here
//! is a command we mean, with its properties and message escaped as GitHub's toolkit escapes
//! them, or a plain line with no line break of its own; the diff, which is raw text, is printed
//! between `::stop-commands::TOKEN` and `::TOKEN::`, where the runner acts on nothing, with a
//! token drawn from the OS's random source for each run, so no text written before the run can
//! end the block.

use std::fmt::Write as _;

use super::{Checked, FilePosition, Outcome};

/// The token that ends a `::stop-commands::` block: 128 bits from the OS's random source, drawn
/// once per run.
#[derive(Clone, Debug)]
pub struct StopToken(String);

impl StopToken {
    /// A new token; an error when the OS's random source cannot be read.
    pub fn new() -> std::io::Result<StopToken> {
        let mut bytes = [0u8; 16];
        os_random(&mut bytes)?;
        let hex = bytes.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        Ok(StopToken(format!("pi-{hex}")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Fills `bytes` from the kernel's random source (not a file a person names, so not one of
/// `files`' reads).
#[cfg(unix)]
fn os_random(bytes: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read as _;
    std::fs::File::open("/dev/urandom")?.read_exact(bytes)
}

#[cfg(not(unix))]
fn os_random(_: &mut [u8]) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "no random source for the stop-commands token on this system",
    ))
}

/// What `check --format github` prints for one scene: its annotations, its diff in a
/// stop-commands block inside a collapsed group, and its status line.
pub fn annotations(c: &Checked, token: &StopToken) -> String {
    let file = workspace_path(&c.path);
    let mut out = String::new();
    let mut error = |at: Option<FilePosition>, title: &str, message: &str| {
        out.push_str(&command("error", &file, at, title, message));
    };
    match &c.outcome {
        Outcome::Match | Outcome::Blessed => {}
        Outcome::Mismatch(_) => {
            let golden = super::golden_path(&c.path);
            let message = format!(
                "{} ({})\n{}",
                super::junit::mismatch_message(c),
                golden.display(),
                super::costs::text(&c.costs)
            );
            error(None, "Golden mismatch", message.trim_end());
            if let Some(d) = &c.difference {
                if let Some(at) = d.template_at {
                    let whose = match (&d.tool, d.prompt) {
                        (Some(tool), _) => format!("{tool}'s template"),
                        (None, Some(i)) => format!("the template of {}[{i}]", d.segment),
                        (None, None) => "this template".to_owned(),
                    };
                    let message = format!(
                        "{whose} renders {} · {} differently from the golden",
                        d.llm, d.segment
                    );
                    error(Some(at), "Golden mismatch: template", &message);
                }
            }
        }
        Outcome::MissingGolden => error(
            None,
            "Missing golden",
            &format!(
                "no golden at {} (write it with --bless, then review it)",
                super::golden_path(&c.path).display()
            ),
        ),
        Outcome::Unreadable(e) => {
            let at = (e.line > 0).then_some(FilePosition {
                line: e.line,
                column: e.column.max(1),
            });
            let file = e
                .file
                .as_ref()
                .map_or_else(|| file.clone(), |f| workspace_path(f));
            out.push_str(&command(
                "error",
                &file,
                at,
                "Scene does not load",
                &e.to_string(),
            ));
        }
        Outcome::PathUnreadable(e)
        | Outcome::GoldenUnreadable(e)
        | Outcome::GoldenUnwritable(e) => {
            let title = match c.outcome {
                Outcome::PathUnreadable(_) => "Unreadable path",
                Outcome::GoldenUnreadable(_) => "Golden unreadable",
                _ => "Cannot write golden",
            };
            out.push_str(&command(
                "error",
                &workspace_path(&e.path),
                None,
                title,
                &e.to_string(),
            ));
        }
    }
    for (i, f) in c.denied.iter().enumerate() {
        let at = c.denied_at.get(i).copied().flatten();
        // The lint's messages name the template line themselves.
        let message = format!("{}: {}", f.llm, f.diagnostic.message);
        out.push_str(&command(
            "error",
            &file,
            at,
            &format!("Denied {}", f.diagnostic.code),
            &message,
        ));
    }
    if let Outcome::Mismatch(diff) = &c.outcome {
        let _ = writeln!(out, "::group::Diff of {}", escape_data(&file));
        let _ = writeln!(out, "::stop-commands::{}", token.as_str());
        out.push_str(diff);
        if !diff.ends_with('\n') {
            out.push('\n');
        }
        let _ = writeln!(out, "::{}::", token.as_str());
        out.push_str("::endgroup::\n");
    }
    // The plain line the text form prints too; a line break in the path would start a line of
    // its own, so it is escaped like a message.
    let _ = writeln!(
        out,
        "{:<17} {}",
        c.outcome.to_string(),
        escape_data(&c.path.display().to_string())
    );
    out
}

/// A path as GitHub resolves it against the checkout: without a leading `./`.
fn workspace_path(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    match text.strip_prefix("./") {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// One workflow command line: `::error file=…,line=…,col=…,title=…::message`.
fn command(
    level: &str,
    file: &str,
    at: Option<FilePosition>,
    title: &str,
    message: &str,
) -> String {
    let mut properties = format!("file={}", escape_property(file));
    if let Some(at) = at {
        let _ = write!(properties, ",line={},col={}", at.line, at.column);
    }
    let _ = write!(properties, ",title={}", escape_property(title));
    format!("::{level} {properties}::{}\n", escape_data(message))
}

/// A command's message: `%`, CR and LF are escaped (GitHub's toolkit `escapeData`).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: as [`escape_data`], and `:` and `,`, which end a property (`escapeProperty`).
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
