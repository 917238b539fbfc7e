//! `prompt-inspector check`: scenes against their goldens; exit 0 all match, 1 a mismatch or a
//! missing golden, 2 unreadable input (a path or scene that cannot be read: reported in its
//! place, and everything else is still checked). Scenes are checked on every core; the output
//! is in discovery order whatever the number of threads.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use prompt_inspector::api::ApiError;
use prompt_inspector::check::{self, Checked, Outcome, RunOptions, Shard};
use prompt_inspector::report::DiagnosticCode;
use serde::Serialize;

use crate::progress::Progress;

/// What `check` prints on stdout.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// A line per scene and a diff per mismatch.
    Text,
    /// `{passed, failed, scenes}` with each scene's status.
    Json,
    /// GitHub Actions workflow commands: `::error` annotations on the scene files and templates.
    Github,
    /// A summary for a pull-request comment: the failing scenes' token, cost and cache changes
    /// in a table, their segment diffs folded.
    Markdown,
}

/// Everything `check` was asked for.
pub struct CheckArgs {
    pub paths: Vec<PathBuf>,
    pub bless: bool,
    pub format: CheckFormat,
    pub deny: Vec<DiagnosticCode>,
    pub junit: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub shard: Option<Shard>,
    pub jobs: Option<usize>,
    /// `--model` and `--models`: the rows a mismatch's cost change is priced for.
    pub models: (Vec<String>, Option<PathBuf>),
}

/// Above this many scenes, `--html` draws the boards of the failing scenes only.
const HTML_BOARDS_UP_TO: usize = 50;

/// One scene of `check --format json`.
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
    /// For a mismatch: the first segment whose text differs, and the tool or prompt behind it.
    #[serde(skip_serializing_if = "Option::is_none")]
    difference: Option<check::Difference>,
    /// For a mismatch: per family whose call changed and per model, the tokens, cost and cache
    /// read in the golden and now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    costs: Vec<check::costs::CostChange>,
    /// Why the scene (or the path, or its golden) cannot be read: the app API's error shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ApiError>,
    /// The diagnostics `--deny` names that the scene's reports have; any fails the scene.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    denied: Vec<check::Finding>,
    /// Seconds this scene took.
    seconds: f64,
}

#[derive(Serialize)]
struct Summary {
    passed: usize,
    failed: usize,
    /// `I/N` when the run is one shard of a corpus.
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
    scenes: Vec<Entry>,
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let started = Instant::now();
    let rows = match crate::models_arg::chosen(&args.models.0, args.models.1.as_deref()) {
        Ok(rows) => rows,
        Err(code) => return code,
    };
    let found = check::discover_all(&args.paths);
    if found.is_empty() {
        eprintln!("error: no *.scene.json files under the given paths");
        return ExitCode::from(2);
    }
    let found: Vec<check::Found> = match args.shard {
        Some(shard) => found.into_iter().filter(|f| shard.takes(f)).collect(),
        None => found,
    };
    let options = RunOptions {
        bless: args.bless,
        deny: args.deny.clone(),
        jobs: args.jobs.unwrap_or_else(default_jobs),
        // A page of boards for every scene of a large corpus would be too big to open.
        keep: match &args.html {
            None => check::Keep::None,
            Some(_) if found.len() > HTML_BOARDS_UP_TO => check::Keep::Failing,
            Some(_) => check::Keep::All,
        },
        models: rows,
    };
    let token = match args.format {
        CheckFormat::Github => match check::github::StopToken::new() {
            Ok(token) => Some(token),
            Err(e) => {
                eprintln!("error: cannot draw the token that fences raw text off GitHub: {e}");
                return ExitCode::from(2);
            }
        },
        CheckFormat::Text | CheckFormat::Json | CheckFormat::Markdown => None,
    };
    let mut progress = Progress::on_terminal(found.len());
    let mut stdout = std::io::stdout().lock();
    let mut closed = false;
    let results = check::check_all(&found, &options, |i, c| {
        let text = match args.format {
            CheckFormat::Text => outcome_text(c),
            CheckFormat::Github => token
                .as_ref()
                .map_or_else(String::new, |t| check::github::annotations(c, t)),
            CheckFormat::Json | CheckFormat::Markdown => String::new(),
        };
        if !text.is_empty() && !closed {
            progress.clear();
            closed = stdout.write_all(text.as_bytes()).is_err();
        }
        progress.advance(i + 1, !c.passed());
    });
    progress.clear();
    let failed = results.iter().filter(|c| !c.passed()).count();
    let passed = results.len() - failed;
    let unreadable = results.iter().filter(|c| c.unreadable()).count();
    let shard = args.shard.map(|s| format!("{}/{}", s.index + 1, s.count));
    let mut written = !closed;
    if let Some(path) = &args.junit {
        let suite = match &shard {
            Some(s) => format!("prompt-inspector check (shard {s})"),
            None => "prompt-inspector check".to_owned(),
        };
        let xml = check::junit::junit_xml(&results, &suite, started.elapsed());
        written &= write_report(path, &xml, "the JUnit report");
    }
    if let Some(path) = &args.html {
        let html = prompt_inspector::html::check_report(&results, shard.as_deref());
        written &= write_report(path, &html, "the HTML report");
    }
    let dates: Vec<&str> = prompt_inspector::pricing::read_dates(
        options
            .models
            .iter()
            .map(|r| (r.read.as_str(), r.sources.as_slice())),
    )
    .into_iter()
    .map(|(date, _)| date)
    .collect();
    let out = match args.format {
        CheckFormat::Markdown => check::markdown::summary(&results, shard.as_deref(), &dates),
        CheckFormat::Json => crate::output::json(&Summary {
            passed,
            failed,
            shard,
            scenes: results.into_iter().map(entry).collect(),
        }),
        CheckFormat::Text | CheckFormat::Github => format!("{passed} passed, {failed} failed\n"),
    };
    drop(stdout);
    let emitted = if written {
        crate::output::emit(&out)
    } else {
        ExitCode::from(1)
    };
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

/// Both cores by default (`--jobs 1` checks one scene at a time).
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Writes a report file atomically; says why on stderr when it cannot.
fn write_report(path: &Path, text: &str, what: &str) -> bool {
    match prompt_inspector::files::write_atomic(path, text.as_bytes()) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: cannot write {what} to {}: {e}", path.display());
            false
        }
    }
}

/// The text form of one scene: a status line, then what explains it. A scene that does not
/// load is one line: the error names the file (with its line and column) itself.
fn outcome_text(c: &Checked) -> String {
    let status = c.outcome.to_string();
    let path = &c.path;
    let head = match &c.outcome {
        Outcome::Unreadable(e) => format!("{status:<17} {e}\n"),
        Outcome::PathUnreadable(e) => format!("{status:<17} {e}\n"),
        Outcome::Mismatch(diff) => format!(
            "{status:<17} {}\n{}{diff}",
            path.display(),
            check::costs::text(&c.costs)
        ),
        Outcome::MissingGolden => format!(
            "{status:<17} {}\n  no golden at {} (write it with --bless, then review it)\n",
            path.display(),
            check::golden_path(path).display()
        ),
        Outcome::GoldenUnreadable(e) | Outcome::GoldenUnwritable(e) => {
            format!("{status:<17} {}\n  {e}\n", path.display())
        }
        Outcome::Match | Outcome::Blessed => format!("{status:<17} {}\n", path.display()),
    };
    head + &denied_text(&c.denied)
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

fn entry(c: Checked) -> Entry {
    let status = c.status();
    let mut e = Entry {
        path: c.path.display().to_string(),
        status,
        golden_path: None,
        diff: None,
        difference: c.difference,
        costs: c.costs,
        error: None,
        denied: c.denied,
        seconds: (c.elapsed.as_secs_f64() * 1e4).round() / 1e4,
    };
    if !matches!(c.outcome, Outcome::PathUnreadable(_)) {
        e.golden_path = Some(check::golden_path(&c.path).display().to_string());
    }
    match c.outcome {
        Outcome::Match | Outcome::Blessed | Outcome::MissingGolden => {}
        Outcome::Mismatch(diff) => e.diff = Some(diff),
        Outcome::Unreadable(err) => e.error = Some(err.into()),
        Outcome::PathUnreadable(err)
        | Outcome::GoldenUnreadable(err)
        | Outcome::GoldenUnwritable(err) => e.error = Some(ApiError::io(&err.path, &err.error)),
    }
    e
}
