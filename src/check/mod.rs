//! Replaying scenes against goldens (docs/cli.md, `check`): `x.scene.json` is checked against
//! `x.golden.json` beside it, which holds the chat and desk reports of the scene (and the replayed
//! `run` loop when the scene has one).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::inject::{self, Report};
use crate::pricing::request::Sent;
use crate::report::DiagnosticCode;
use crate::scene::{self, SceneError};
use crate::segments::Family;

pub mod costs;
pub mod github;
pub mod junit;
pub mod markdown;
mod rebuild;
mod run;
mod segment_diff;

pub use segment_diff::{changed_segments, read_report};

pub use run::{
    check_all, finding_position, first_difference, Checked, Difference, FilePosition, Keep,
    Reports, RunOptions, Shard, MAX_KEPT_REPORT_BYTES,
};

pub const SCENE_SUFFIX: &str = ".scene.json";
pub const GOLDEN_SUFFIX: &str = ".golden.json";

/// What a golden file holds: both families' reports of one scene.
#[derive(Serialize)]
pub struct Golden<'a> {
    pub scene: &'a str,
    pub chat: Report,
    pub desk: Report,
    /// The replayed `run` loop (docs/run-loop.md), for scenes that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<crate::runloop::RunReport>,
}

/// The golden text of a loaded scene: pretty JSON, two-space indent, trailing newline.
pub fn golden_text(scene: &scene::Scene) -> String {
    golden_text_in(scene, None)
}

/// [`golden_text`] for a scene read from a file in `base_dir`, which relative image paths
/// (attachments, message image parts) are resolved against.
pub fn golden_text_in(scene: &scene::Scene, base_dir: Option<&Path>) -> String {
    golden_and_findings(scene, base_dir).0
}

/// A diagnostic of one family's report, for `check --deny`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub llm: &'static str,
    #[serde(flatten)]
    pub diagnostic: inject::Diagnostic,
}

/// The golden text and every diagnostic of both reports. Goldens hold what the model is sent and
/// the rendering's own diagnostics, not the cache-safety lint's advice (`DiagnosticCode::is_cache_lint`):
/// a lint that learns a new pattern must not make every golden stale. Its findings are in the
/// second part with the others, for `--deny`.
pub fn golden_and_findings(
    scene: &scene::Scene,
    base_dir: Option<&Path>,
) -> (String, Vec<Finding>) {
    let (golden, findings) = golden_reports(scene, base_dir);
    let mut text = crate::json_out::to_string_pretty(&golden);
    text.push('\n');
    (text, findings)
}

/// [`golden_and_findings`] before the golden is written out.
fn golden_reports<'s>(
    scene: &'s scene::Scene,
    base_dir: Option<&Path>,
) -> (Golden<'s>, Vec<Finding>) {
    let options = inject::Options {
        base_dir: base_dir.map(Path::to_path_buf),
        ..Default::default()
    };
    // The two families render the same tool prompts: once each, through one memo.
    let mut memo = inject::RenderMemo::default();
    let mut golden = Golden {
        scene: &scene.name,
        chat: inject::render_with_memo(scene, Family::Chat, &options, &mut memo),
        desk: inject::render_with_memo(scene, Family::Desk, &options, &mut memo),
        run: scene.run.as_ref().map(crate::runloop::replay),
    };
    let mut findings = Vec::new();
    for report in [&mut golden.chat, &mut golden.desk] {
        let llm = report.llm;
        findings.extend(report.diagnostics.iter().map(|d| Finding {
            llm,
            diagnostic: d.clone(),
        }));
        report.diagnostics.retain(|d| !d.code.is_cache_lint());
    }
    (golden, findings)
}

/// `x.scene.json` → `x.golden.json`.
pub fn golden_path(scene_path: &Path) -> PathBuf {
    let name = scene_path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let stem = name.strip_suffix(SCENE_SUFFIX).unwrap_or(&name);
    scene_path.with_file_name(format!("{stem}{GOLDEN_SUFFIX}"))
}

/// A path given to [`discover`] (or a folder below it) that could not be read.
#[derive(Debug)]
pub struct PathError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A path given to `check` may be a scene file or a folder of them.
        let words = crate::files::io_words(&self.error, "file or folder");
        write!(f, "{}: {words}", self.path.display())
    }
}

impl std::error::Error for PathError {}

/// One entry of [`discover_all`]: a scene file to check, or a path that could not be read.
#[derive(Debug)]
pub enum Found {
    Scene(PathBuf),
    Unreadable(PathError),
}

/// The scene files under the given paths: files as given, folders searched recursively for
/// `*.scene.json`, in sorted order. The first path that cannot be read is the error; see
/// [`discover_all`] to go on past it.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, PathError> {
    discover_all(paths)
        .into_iter()
        .map(|f| match f {
            Found::Scene(p) => Ok(p),
            Found::Unreadable(e) => Err(e),
        })
        .collect()
}

/// Like [`discover`], but a path that cannot be read (a missing argument, a folder that cannot
/// be listed) is an entry of its own where it was met, and the rest are still searched: `check`
/// reports it as it reports a scene file that cannot be read.
pub fn discover_all(paths: &[PathBuf]) -> Vec<Found> {
    let mut out = Vec::new();
    for p in paths {
        match crate::files::metadata(p) {
            Ok(meta) if meta.is_dir() => walk(p, &mut out),
            Ok(_) => out.push(Found::Scene(p.clone())),
            Err(error) => out.push(Found::Unreadable(PathError {
                path: p.clone(),
                error,
            })),
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<Found>) {
    let unreadable = |path: &Path, error| {
        Found::Unreadable(PathError {
            path: path.to_owned(),
            error,
        })
    };
    let mut entries = match crate::files::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return out.push(unreadable(dir, e)),
    };
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        match e.file_type() {
            Ok(ty) if ty.is_dir() => walk(&path, out),
            Ok(_) if path.to_string_lossy().ends_with(SCENE_SUFFIX) => {
                out.push(Found::Scene(path));
            }
            Ok(_) => {}
            Err(err) => out.push(unreadable(&path, err)),
        }
    }
}

/// How one scene compares with its golden.
#[derive(Debug)]
pub enum Outcome {
    Match,
    /// A unified diff, golden (`-`) to now (`+`).
    Mismatch(String),
    MissingGolden,
    /// The scene does not load.
    Unreadable(SceneError),
    /// A path given (or a folder below it) cannot be read.
    PathUnreadable(PathError),
    /// The golden exists but cannot be read.
    GoldenUnreadable(PathError),
    /// `--bless` could not write the golden (nothing else was changed: no temporary file is left).
    GoldenUnwritable(PathError),
    /// `--bless` wrote the golden.
    Blessed,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        matches!(self, Outcome::Match | Outcome::Blessed)
    }

    /// The status word of `check --format json` (and the JUnit and HTML reports).
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Match => "ok",
            Outcome::Mismatch(_) => "mismatch",
            Outcome::MissingGolden => "missing_golden",
            Outcome::Unreadable(_) | Outcome::PathUnreadable(_) => "unreadable",
            Outcome::GoldenUnreadable(_) => "golden_unreadable",
            Outcome::GoldenUnwritable(_) => "golden_unwritable",
            Outcome::Blessed => "blessed",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Match => "ok",
            Outcome::Mismatch(_) => "MISMATCH",
            Outcome::MissingGolden => "MISSING GOLDEN",
            Outcome::Unreadable(_) | Outcome::PathUnreadable(_) => "UNREADABLE",
            Outcome::GoldenUnreadable(_) => "GOLDEN UNREADABLE",
            Outcome::GoldenUnwritable(_) => "CANNOT WRITE GOLDEN",
            Outcome::Blessed => "blessed",
        })
    }
}

/// Checks (or, with `bless`, writes) the golden of one scene file.
pub fn check_one(scene_path: &Path, bless: bool) -> Outcome {
    check_denying(scene_path, bless, &[]).0
}

/// [`check_one`], with the diagnostics of both reports whose code is in `deny` (`check --deny`).
pub fn check_denying(
    scene_path: &Path,
    bless: bool,
    deny: &[DiagnosticCode],
) -> (Outcome, Vec<Finding>) {
    let options = RunOptions {
        bless,
        deny: deny.to_vec(),
        jobs: 1,
        keep: Keep::None,
        models: Vec::new(),
    };
    let c = check_scene(scene_path, &options);
    (c.outcome, c.denied)
}

/// One scene of a `check` run: its outcome, the findings `deny` names, and for a mismatch the
/// first differing segment; for a finding or a difference that comes from a template, where
/// that template sits in the scene file (`check --format github` annotates it there).
pub fn check_scene(scene_path: &Path, options: &RunOptions) -> Checked {
    let (bless, deny) = (options.bless, &options.deny);
    let checked = |outcome, denied| Checked {
        path: scene_path.to_owned(),
        outcome,
        denied,
        difference: None,
        costs: Vec::new(),
        denied_at: Vec::new(),
        elapsed: std::time::Duration::ZERO,
        reports: None,
    };
    let scene = match scene::load_file(scene_path) {
        Ok(s) => s,
        Err(e) => return checked(Outcome::Unreadable(e), Vec::new()),
    };
    let (mut golden, mut findings) = golden_reports(&scene, scene_path.parent());
    let mut now = crate::json_out::to_string_pretty(&golden);
    now.push('\n');
    findings.retain(|f| deny.contains(&f.diagnostic.code));
    let (outcome, before) = golden_outcome(scene_path, &now, bless);
    let located = matches!(outcome, Outcome::Mismatch(_)) || !findings.is_empty();
    // Positions need the file's text again; only a failing scene pays for reading it.
    let text = located
        .then(|| {
            crate::files::read_regular_text(scene_path, scene::MAX_SCENE_BYTES, "a scene").ok()
        })
        .flatten();
    let mut c = checked(outcome, findings);
    if let (Outcome::Mismatch(_), Some(before)) = (&c.outcome, &before) {
        c.difference = first_difference(before, &now, &scene, text.as_deref());
        if !options.models.is_empty() {
            let base_dir = scene_path.parent();
            let chat = Sent::of(&scene, &golden.chat, base_dir);
            let desk = Sent::of(&scene, &golden.desk, base_dir);
            c.costs = costs::changes(
                before,
                [(&golden.chat, &chat), (&golden.desk, &desk)],
                base_dir,
                &options.models,
            );
        }
    }
    let keep = match options.keep {
        Keep::None => false,
        Keep::Failing => !c.passed(),
        Keep::All => true,
    };
    if keep {
        // What the page draws is the golden priced with the run's models (the golden itself
        // holds no money: prices change, what is sent does not).
        let rows: Vec<&crate::pricing::Row> = options.models.iter().collect();
        for report in [&mut golden.chat, &mut golden.desk] {
            let sent = Sent::of(&scene, report, scene_path.parent());
            report.costs = crate::pricing::cost::input_costs(report, &sent, &rows);
        }
        c.reports = Some(Reports {
            description: scene.description.clone(),
            before,
            now: crate::json_out::to_string_pretty(&golden),
        });
    }
    if let Some(text) = &text {
        c.denied_at = c
            .denied
            .iter()
            .map(|f| finding_position(f, &scene, text))
            .collect();
    }
    c
}

/// The outcome, and the golden's text when it was read and differs.
fn golden_outcome(scene_path: &Path, now: &str, bless: bool) -> (Outcome, Option<String>) {
    let golden = golden_path(scene_path);
    if bless {
        let outcome = match crate::files::write_atomic(&golden, now.as_bytes()) {
            Ok(()) => Outcome::Blessed,
            Err(error) => Outcome::GoldenUnwritable(PathError {
                path: golden,
                error,
            }),
        };
        return (outcome, None);
    }
    match read_golden(&golden) {
        Ok(before) if before == now => (Outcome::Match, None),
        Ok(before) => {
            let diff = mismatch_diff(&before, now, &golden.display().to_string());
            (Outcome::Mismatch(diff), Some(before))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Outcome::MissingGolden, None),
        Err(error) => (
            Outcome::GoldenUnreadable(PathError {
                path: golden,
                error,
            }),
            None,
        ),
    }
}

/// A golden is the report of a scene, so it may be larger than the scene, but not without bound.
pub const MAX_GOLDEN_BYTES: u64 = 2 * crate::scene::MAX_SCENE_BYTES;

/// The text of a golden file: a regular file, UTF-8, bounded.
pub fn read_golden(path: &Path) -> std::io::Result<String> {
    crate::files::read_regular_text(path, MAX_GOLDEN_BYTES, "a golden")
}

/// What `check` prints for a golden that differs from the scene's report now: the segments
/// whose text changed, each with its line diff, and the tools whose outcome changed
/// (`segment_diff`), then the golden's unified diff.
pub fn mismatch_diff(before: &str, now: &str, name: &str) -> String {
    let json = unified_diff(before, now, name);
    match segment_diff::segment_section(before, now) {
        Some(section) => format!("{section}{json}"),
        None => json,
    }
}

/// A unified diff with 3 lines of context.
pub fn unified_diff(before: &str, after: &str, name: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name} (golden)"), &format!("{name} (now)"))
        .to_string()
}
