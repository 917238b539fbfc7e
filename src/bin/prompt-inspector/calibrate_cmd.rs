//! `prompt-inspector calibrate DIR`: learns billed / predicted input ratios per model family from
//! recorded calls and writes a calibration file; `--calibration FILE` on `render` and `cache`
//! applies one to the predicted billed input they print (docs/models.md, "Calibration files").

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use prompt_inspector::billing::calibration::{self, Calibration, Record, Skipped};
use prompt_inspector::inject;
use prompt_inspector::pricing::Row;
use prompt_inspector::provider::ChatProvider;
use prompt_inspector::scene::Scene;
use prompt_inspector::segments::Family;
use prompt_inspector::usage::{Api, Provenance};
use serde::Serialize;

/// Where recorded calls come from: the JSON files under `dir` that hold a request and its
/// recorded usage (the usage corpus's one-call files), and the scenes whose `recorded` field
/// holds usage (what `import` writes), their request rebuilt in the recorded API's shape.
fn records(dir: &Path) -> Result<(Vec<Record>, Vec<Skipped>), String> {
    let (mut records, skipped) =
        calibration::records_in(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut rest = Vec::new();
    for s in skipped {
        match scene_record(Path::new(&s.source)) {
            Some(r) => records.push(r),
            None => rest.push(s),
        }
    }
    records.sort_by(|a, b| a.source.cmp(&b.source));
    Ok((records, rest))
}

/// A scene with recorded usage as a recorded call: the body its render rebuilds.
fn scene_record(path: &Path) -> Option<Record> {
    let scene = prompt_inspector::scene::load_file(path).ok()?;
    let usage = scene.recorded.as_ref()?.usage.clone()?;
    let options = inject::Options {
        base_dir: path.parent().map(Path::to_path_buf),
        chat_provider: None,
        encoding: Default::default(),
        skip_tokens: true,
        skip_lint: true,
    };
    let report = inject::render_with(&scene, Family::Chat, &options);
    let rebuilt =
        prompt_inspector::provider::recorded_request(&scene, &report, path.parent())?.ok()?;
    Some(Record {
        source: path.display().to_string(),
        api: rebuilt.api,
        model: rebuilt.model,
        body: rebuilt.body,
        usage,
    })
}

pub fn run(dir: &Path, out: Option<&Path>, as_json: bool) -> ExitCode {
    let (records, mut skipped) = match records(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (learnt, not_used) = calibration::learn(&records);
    skipped.extend(not_used);
    if learnt.families.is_empty() {
        eprintln!(
            "error: {}: no recorded call with an estimated prediction ({} files skipped)",
            dir.display(),
            skipped.len()
        );
        return ExitCode::from(2);
    }
    let file_text = learnt.to_json();
    if let Some(path) = out {
        if let Err(e) = prompt_inspector::files::write_atomic(path, file_text.as_bytes()) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let report = if as_json {
        #[derive(Serialize)]
        struct Out<'a> {
            calibration: &'a Calibration,
            records: usize,
            skipped: Vec<[&'a str; 2]>,
        }
        crate::output::json(&Out {
            calibration: &learnt,
            records: records.len(),
            skipped: skipped
                .iter()
                .map(|s| [s.source.as_str(), s.reason.as_str()])
                .collect(),
        })
    } else if out.is_none() {
        // Without `--out` the file itself is the output; the summary goes to stderr.
        eprint!("{}", summary(&learnt, records.len(), &skipped));
        file_text
    } else {
        summary(&learnt, records.len(), &skipped)
    };
    crate::output::emit(&report)
}

fn summary(c: &Calibration, records: usize, skipped: &[Skipped]) -> String {
    let mut s = format!(
        "{records} recorded calls read, {} not used for calibration.\n\
         Billed / predicted input per model family (docs/models.md):\n",
        skipped.len()
    );
    for f in &c.families {
        let _ = writeln!(
            s,
            "  {:<17} {:<28} ratio {:.3} (from {:.3} to {:.3} over {} calls), calibrated ±{}%",
            f.api.as_str(),
            f.family,
            f.ratio,
            f.min_ratio,
            f.max_ratio,
            f.calls,
            f.bound_percent
        );
    }
    s
}

/// The calibration `--calibration` names, checked: exit 2 with the file's line and column or
/// the offending field when it cannot be used.
pub fn load(path: Option<&Path>) -> Result<Option<Calibration>, ExitCode> {
    let Some(path) = path else {
        return Ok(None);
    };
    Calibration::load(path).map(Some).map_err(|e| {
        eprintln!("error: --calibration: {e}");
        ExitCode::from(2)
    })
}

/// A call's input as a model's provider would bill it, calibrated.
#[derive(Serialize)]
pub struct PredictedInput {
    /// The models table's row id.
    pub model: String,
    pub api: Api,
    pub input_tokens: usize,
    pub provenance: Provenance,
}

/// The scene's chat request rebuilt for each row's provider (OpenAI chat completions or
/// Anthropic Messages) and predicted with `calibration` applied. Rows of other providers are
/// left out.
pub fn predicted(
    path: &Path,
    scene: &Scene,
    rows: &[&Row],
    calibration: &Calibration,
) -> Vec<PredictedInput> {
    let mut out = Vec::new();
    for row in rows {
        let (provider_name, name) = row.id.split_once('/').unwrap_or(("", row.id.as_str()));
        let (provider, api) = match provider_name {
            "openai" => (ChatProvider::Openai, Api::OpenaiChat),
            "anthropic" => (ChatProvider::Anthropic, Api::Anthropic),
            _ => continue,
        };
        let options = inject::Options {
            base_dir: path.parent().map(Path::to_path_buf),
            chat_provider: Some(provider),
            encoding: Default::default(),
            skip_tokens: true,
            skip_lint: true,
        };
        let report = inject::render_with(scene, Family::Chat, &options);
        let Some(body) = report.request else {
            continue;
        };
        let model = row.models.first().map(String::as_str).unwrap_or(name);
        match calibration::predict_calibrated(api, model, &body, Some(calibration)) {
            Ok(p) => out.push(PredictedInput {
                model: row.id.clone(),
                api,
                input_tokens: p.input_tokens,
                provenance: p.provenance,
            }),
            Err(e) => tracing::warn!(model = %row.id, error = %e, "request not counted"),
        }
    }
    out
}

/// The text lines for [`predicted`]'s rows.
pub fn predicted_text(out: &mut String, rows: &[PredictedInput], label: &str) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nPredicted billed input{label}, as each model's provider bills it (docs/models.md):"
    );
    for r in rows {
        let ratio = match r.provenance {
            Provenance::Calibrated { ratio, .. } => format!(", ratio {ratio}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:<32} {:>8} tokens ({}{ratio})",
            r.model, r.input_tokens, r.provenance
        );
    }
}
