//! `prompt-inspector check`: scenes against their goldens; exit 0 all match, 1 a mismatch or a
//! missing golden, 2 unreadable input (a path or scene that cannot be read: reported in its
//! place, and everything else is still checked).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompt_inspector::api::ApiError;
use prompt_inspector::check::{self, Found, Outcome};
use serde::Serialize;

/// One line of `check --format json`.
#[derive(Serialize)]
struct Entry {
    path: String,
    /// `ok`, `mismatch`, `missing_golden`, `unreadable`, `golden_unreadable`, `golden_unwritable`,
    /// `blessed`, or `denied` (the golden matches, but `--deny` names a diagnostic the scene has).
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    golden_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// Why the scene (or the path, or its golden) cannot be read: the app API's error shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ApiError>,
    /// The diagnostics `--deny` names that the scene's reports have; any fails the scene.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    denied: Vec<check::Finding>,
}

#[derive(Serialize)]
struct Summary {
    passed: usize,
    failed: usize,
    scenes: Vec<Entry>,
}

pub fn run(paths: &[PathBuf], bless: bool, as_json: bool, deny: &[String]) -> ExitCode {
    let found = check::discover_all(paths);
    if found.is_empty() {
        eprintln!("error: no *.scene.json files under the given paths");
        return ExitCode::from(2);
    }
    let (mut failed, mut unreadable) = (0, 0);
    let mut entries = Vec::with_capacity(found.len());
    // The text form goes out scene by scene (a corpus takes a while); JSON once, at the end.
    let say = |line: &str| {
        if !as_json {
            print!("{line}");
        }
    };
    for f in &found {
        let entry = match f {
            Found::Unreadable(e) => {
                unreadable += 1;
                let path = e.path.display().to_string();
                say(&format!("{:<17} {e}\n", "UNREADABLE"));
                Entry {
                    path,
                    status: "unreadable",
                    golden_path: None,
                    diff: None,
                    error: Some(ApiError::io(&e.path, &e.error)),
                    denied: Vec::new(),
                }
            }
            Found::Scene(path) => {
                let (outcome, denied) = check::check_denying(path, bless, deny);
                say(&outcome_text(path, &outcome));
                say(&denied_text(&denied));
                match &outcome {
                    Outcome::Unreadable(_)
                    | Outcome::GoldenUnreadable(_)
                    | Outcome::GoldenUnwritable(_) => unreadable += 1,
                    o if !o.ok() || !denied.is_empty() => failed += 1,
                    _ => {}
                }
                let mut e = entry(path, outcome);
                if !denied.is_empty() && e.status == "ok" {
                    e.status = "denied";
                }
                e.denied = denied;
                e
            }
        };
        entries.push(entry);
    }
    let passed = found.len() - failed - unreadable;
    let out = if as_json {
        crate::output::json(&Summary {
            passed,
            failed: failed + unreadable,
            scenes: entries,
        })
    } else {
        format!("{passed} passed, {} failed\n", failed + unreadable)
    };
    let emitted = crate::output::emit(&out);
    if emitted != ExitCode::SUCCESS {
        emitted
    } else if unreadable > 0 {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The text form of one scene: a status line, then what explains it. A scene that does not
/// load is one line: the error names the file (with its line and column) itself.
fn outcome_text(path: &Path, outcome: &Outcome) -> String {
    let status = outcome.to_string();
    match outcome {
        Outcome::Unreadable(e) => format!("{status:<17} {e}\n"),
        Outcome::Mismatch(diff) => format!("{status:<17} {}\n{diff}", path.display()),
        Outcome::MissingGolden => format!(
            "{status:<17} {}\n  no golden at {} (write it with --bless, then review it)\n",
            path.display(),
            check::golden_path(path).display()
        ),
        Outcome::GoldenUnreadable(e) | Outcome::GoldenUnwritable(e) => {
            format!("{status:<17} {}\n  {e}\n", path.display())
        }
        Outcome::Match | Outcome::Blessed => format!("{status:<17} {}\n", path.display()),
    }
}

/// Under a scene's status line: each denied diagnostic, as `DENIED llm code: message`.
fn denied_text(denied: &[check::Finding]) -> String {
    denied
        .iter()
        .map(|f| {
            format!(
                "  DENIED {} {}: {}\n",
                f.llm, f.diagnostic.code, f.diagnostic.message
            )
        })
        .collect()
}

fn entry(path: &Path, outcome: Outcome) -> Entry {
    let mut e = Entry {
        path: path.display().to_string(),
        status: "ok",
        golden_path: Some(check::golden_path(path).display().to_string()),
        diff: None,
        error: None,
        denied: Vec::new(),
    };
    match outcome {
        Outcome::Match => {}
        Outcome::Blessed => e.status = "blessed",
        Outcome::Mismatch(diff) => {
            e.status = "mismatch";
            e.diff = Some(diff);
        }
        Outcome::MissingGolden => e.status = "missing_golden",
        Outcome::Unreadable(err) => {
            e.status = "unreadable";
            e.error = Some(err.into());
        }
        Outcome::GoldenUnreadable(err) => {
            e.status = "golden_unreadable";
            e.error = Some(ApiError::io(&err.path, &err.error));
        }
        Outcome::GoldenUnwritable(err) => {
            e.status = "golden_unwritable";
            e.error = Some(ApiError::io(&err.path, &err.error));
        }
    }
    e
}
