//! A whole `check` run: the scenes of a corpus split into shards (`--shard I/N`), checked on
//! several threads, and handed back in discovery order, so every output form (text, JSON,
//! JUnit, GitHub annotations, HTML) is the same whatever the number of threads.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Finding, Found, Outcome};
use crate::scene::Scene;
use crate::segments::Family;

/// One entry of a run: a scene file (or a path that could not be read) and what became of it.
#[derive(Debug)]
pub struct Checked {
    pub path: PathBuf,
    pub outcome: Outcome,
    /// The diagnostics `--deny` names that the scene's reports have; any fails the scene.
    pub denied: Vec<Finding>,
    /// For a mismatch: the first segment whose text differs, and where its text comes from.
    pub difference: Option<Difference>,
    /// For a mismatch: what it changes in tokens, cost and cache reads, per family whose call
    /// changed and per model of the run (`RunOptions::models`).
    pub costs: Vec<super::costs::CostChange>,
    /// Where in the scene file each denied finding's template sits, in `denied`'s order.
    pub denied_at: Vec<Option<FilePosition>>,
    pub elapsed: Duration,
    /// The reports, when the run keeps them (`RunOptions::keep`; the HTML report draws them).
    pub reports: Option<Reports>,
}

/// A checked scene's reports as goldens hold them.
#[derive(Clone, Debug)]
pub struct Reports {
    /// The golden text of the scene now.
    pub now: String,
    /// The golden on disk, when it differs.
    pub before: Option<String>,
    pub description: Option<String>,
}

/// The most report text (the golden now and on disk) a run keeps for the HTML page, in the
/// run's order: the page draws far less than this (docs/cli.md, "check --html"), so what a run
/// of many failing scenes holds in memory is bounded whatever fails. Past it, scenes keep no
/// reports, and the page counts them among the scenes it leaves out.
pub const MAX_KEPT_REPORT_BYTES: usize = 32 * 1024 * 1024;

/// Which scenes' reports a run keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    #[default]
    None,
    /// Those of scenes that fail.
    Failing,
    All,
}

impl Checked {
    /// The status word of `check --format json`: the outcome's, or `denied` when the golden
    /// matches but `--deny` names a diagnostic the scene has.
    pub fn status(&self) -> &'static str {
        match self.outcome.status() {
            "ok" if !self.denied.is_empty() => "denied",
            status => status,
        }
    }

    /// Input that could not be read (exit status 2) rather than a failed comparison.
    pub fn unreadable(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Unreadable(_)
                | Outcome::PathUnreadable(_)
                | Outcome::GoldenUnreadable(_)
                | Outcome::GoldenUnwritable(_)
        )
    }

    pub fn passed(&self) -> bool {
        self.outcome.ok() && self.denied.is_empty()
    }
}

/// A 1-based line and column in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FilePosition {
    pub line: usize,
    pub column: usize,
}

/// The first segment of a mismatch whose text differs (chat first, then desk, in assembly
/// order), and the piece of it that differs first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub llm: &'static str,
    pub segment: String,
    /// The tool whose text differs first, when a tool wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The configured prompt's index, when the differing piece is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<usize>,
    /// Where that piece's template text starts in the scene file (templates are JSON strings
    /// of the scene), when the piece comes from a template.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template_at: Option<FilePosition>,
}

/// How a run is split and how many threads it uses.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub bless: bool,
    pub deny: Vec<crate::report::DiagnosticCode>,
    /// Threads checking scenes at once (at least 1).
    pub jobs: usize,
    pub keep: Keep,
    /// The models a mismatch's cost changes (and the kept reports' costs) are priced for; none:
    /// no cost changes.
    pub models: Vec<crate::pricing::Row>,
}

/// A slice `index` of `count` (`--shard 2/4` is index 1 of 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N`, 1-based: `1/4` … `4/4`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard: expected I/N with 1 <= I <= N, such as 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if n == 0 || i == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }
}

impl Shard {
    /// Whether this shard checks `path`. The split hashes the path as discovered (FNV-1a of its
    /// text, separators as `/`), not its place in the list: adding or removing a scene moves no
    /// other scene to another shard, so per-shard timings and caches stay put. A path argument
    /// that cannot be read is reported by every shard, so no shard passes over it.
    pub fn takes(&self, found: &Found) -> bool {
        match found {
            Found::Scene(path) => shard_of(path, self.count) == self.index,
            Found::Unreadable(_) => true,
        }
    }
}

fn shard_of(path: &Path, count: usize) -> usize {
    let text = path.to_string_lossy();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        let b = if b == b'\\' { b'/' } else { b };
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // A 64-bit remainder below `count` fits a usize.
    (hash % count as u64) as usize
}

/// Checks every entry of `found`, `options.jobs` at a time, and calls `done` with each result
/// in `found`'s order as soon as it and every one before it are done (the text form streams;
/// a slow scene holds back only the lines after it). Returns the results in that order.
pub fn check_all(
    found: &[Found],
    options: &RunOptions,
    mut done: impl FnMut(usize, &Checked),
) -> Vec<Checked> {
    let jobs = options.jobs.clamp(1, found.len().max(1));
    let mut results: Vec<Option<Checked>> = Vec::with_capacity(found.len());
    results.resize_with(found.len(), || None);
    let mut next_out = 0;
    // Counted in the run's order, so which scenes keep their reports does not depend on the
    // number of threads.
    let (mut kept_bytes, mut kept_full) = (0usize, false);
    let mut emit = |results: &mut Vec<Option<Checked>>, next_out: &mut usize| {
        while let Some(Some(c)) = results.get_mut(*next_out) {
            if let Some(r) = &c.reports {
                let size = r.now.len() + r.before.as_ref().map_or(0, String::len);
                kept_full |= kept_bytes + size > MAX_KEPT_REPORT_BYTES;
                if kept_full {
                    c.reports = None;
                } else {
                    kept_bytes += size;
                }
            }
            done(*next_out, c);
            *next_out += 1;
        }
    };
    if jobs == 1 {
        for (i, f) in found.iter().enumerate() {
            results[i] = Some(check_found(f, options));
            emit(&mut results, &mut next_out);
        }
    } else {
        let next_in = AtomicUsize::new(0);
        let (send, receive) = mpsc::channel::<(usize, Checked)>();
        // Each worker reads and writes files under the confinement of the thread that asked,
        // and the caller's cancellation (serve's client gone) reaches the scenes on the workers.
        let confinement = crate::files::inherit();
        let cancel = crate::template::budget::current_cancel();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                let send = send.clone();
                let next_in = &next_in;
                let confinement = &confinement;
                let cancel = cancel.clone();
                scope.spawn(move || {
                    let work = || loop {
                        let i = next_in.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = found.get(i) else { break };
                        if send.send((i, check_found(f, options))).is_err() {
                            break;
                        }
                    };
                    confinement.run(|| match cancel {
                        Some(flag) => crate::template::budget::with_cancel(flag, work),
                        None => work(),
                    })
                });
            }
            drop(send);
            for (i, c) in receive {
                results[i] = Some(c);
                emit(&mut results, &mut next_out);
            }
        });
    }
    results.into_iter().flatten().collect()
}

fn check_found(found: &Found, options: &RunOptions) -> Checked {
    let started = Instant::now();
    match found {
        Found::Unreadable(e) => Checked {
            path: e.path.clone(),
            outcome: Outcome::PathUnreadable(super::PathError {
                path: e.path.clone(),
                error: std::io::Error::new(e.error.kind(), e.error.to_string()),
            }),
            denied: Vec::new(),
            difference: None,
            costs: Vec::new(),
            denied_at: Vec::new(),
            elapsed: started.elapsed(),
            reports: None,
        },
        Found::Scene(path) => {
            let mut c = contained(path, || super::check_scene(path, options));
            c.elapsed = started.elapsed();
            c
        }
    }
}

/// Runs `check`, the checking of the scene at `path`; a panic in it becomes that scene's failure
/// (unreadable, with the panic's message), so the run goes on and its reports are written.
fn contained(path: &Path, check: impl FnOnce() -> Checked) -> Checked {
    // Unwind safety: a scene's check shares nothing mutable with the others but the compile
    // cache, whose lock is taken past poisoning.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        tracing::error!(path = %path.display(), panic = what, "checking a scene panicked");
        Checked {
            path: path.to_owned(),
            outcome: Outcome::Unreadable(crate::scene::SceneError {
                file: Some(path.to_owned()),
                line: 0,
                column: 0,
                offset: 0,
                path: String::new(),
                message: format!(
                    "checking this scene failed inside the core ({what}); this is a bug"
                ),
            }),
            denied: Vec::new(),
            difference: None,
            costs: Vec::new(),
            denied_at: Vec::new(),
            elapsed: Duration::ZERO,
            reports: None,
        }
    })
}

/// The first differing segment of a golden (`before`) and the report now, and where the piece
/// that differs first comes from in `scene` (read from `scene_text`, the file's text).
pub fn first_difference(
    before: &str,
    now: &str,
    scene: &Scene,
    scene_text: Option<&str>,
) -> Option<Difference> {
    let (llm, segment, piece) = super::segment_diff::first_changed(before, now)?;
    let family = match llm {
        "desk" => Family::Desk,
        _ => Family::Chat,
    };
    let (tool, prompt) = piece.unwrap_or_default();
    let template_at =
        crate::inject::lint::template_spec_of(scene, family, &segment, tool.as_deref(), prompt)
            .and_then(|spec| {
                let language = spec.select()?.0;
                let offset = spec.spans.get(language)?.start;
                let (line, column) = crate::json::line_col(scene_text?, offset);
                Some(FilePosition { line, column })
            });
    Some(Difference {
        llm,
        segment,
        tool,
        prompt,
        template_at,
    })
}

/// Where the template behind a diagnostic (its tool's, or its configured prompt's) starts in
/// the scene file.
pub fn finding_position(
    finding: &Finding,
    scene: &Scene,
    scene_text: &str,
) -> Option<FilePosition> {
    let d = &finding.diagnostic;
    let family = if finding.llm == "desk" {
        Family::Desk
    } else {
        Family::Chat
    };
    let position = |span: std::ops::Range<usize>| {
        let (line, column) = crate::json::line_col(scene_text, span.start);
        FilePosition { line, column }
    };
    let spec = crate::inject::lint::template_spec_of(
        scene,
        family,
        d.segment.unwrap_or(""),
        d.tool.as_deref(),
        d.prompt,
    );
    match spec {
        Some(spec) => {
            let language = spec.select()?.0;
            spec.spans.get(language).cloned().map(position)
        }
        None => {
            let tool = scene
                .tools
                .iter()
                .find(|t| Some(&t.name) == d.tool.as_ref())?;
            Some(position(tool.span.clone()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_checking_one_scene_is_that_scenes_failure() {
        let path = Path::new("corpus/boom.json");
        let c = contained(path, || panic!("index out of range"));
        assert_eq!(c.path, path);
        assert_eq!(c.status(), "unreadable");
        assert!(!c.passed() && c.unreadable());
        let Outcome::Unreadable(e) = &c.outcome else {
            panic!("{:?}", c.outcome)
        };
        assert_eq!(
            e.to_string(),
            "corpus/boom.json: checking this scene failed inside the core (index out of range); \
             this is a bug"
        );
    }

    use std::sync::Arc;

    #[test]
    fn worker_threads_carry_the_confinement_of_the_thread_that_asked() {
        let dir =
            std::env::temp_dir().join(format!("pi-check-run-confined-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        let found: Vec<Found> = (0..4)
            .map(|i| {
                let p = dir.join(format!("s{i}.scene.json"));
                std::fs::write(&p, crate::scene::DEFAULT_SCENE).expect("scene");
                Found::Scene(p)
            })
            .collect();
        let options = RunOptions {
            bless: true,
            deny: Vec::new(),
            jobs: 2,
            keep: Keep::None,
            models: Vec::new(),
        };
        // Nothing chosen: every scene is refused, on whichever worker checks it.
        let results = crate::files::confined(Arc::new(crate::files::Chosen::default()), || {
            check_all(&found, &options, |_, _| {})
        });
        assert_eq!(results.len(), 4);
        for c in &results {
            match &c.outcome {
                Outcome::Unreadable(e) => {
                    assert!(e.to_string().contains("not a path you chose"), "{e}");
                }
                other => panic!("{}: {other}", c.path.display()),
            }
        }
        let goldens = std::fs::read_dir(&dir)
            .expect("list")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".golden.json"))
            })
            .count();
        assert_eq!(
            goldens, 0,
            "a worker wrote a golden outside the confinement"
        );
    }
}
