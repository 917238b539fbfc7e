//! Calibration: a ratio per model family, billed input over predicted input, learnt from
//! recorded calls (`prompt-inspector calibrate DIR`) and applied to later estimates, whose figures
//! then say `calibrated` (docs/models.md, "Calibration files").
//!
//! A calibration file is JSON, `{"format": "prompt-inspector/calibration@1", "families": [...]}`,
//! one entry per API and model family (the model's name without its date or `-latest`), and one
//! per API with family `*` pooling all of its calls, used for a family the file does not name.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::{predict, BillingError, Prediction};
use crate::usage::{Api, Provenance, Usage};

/// The format tag a calibration file starts with.
pub const FORMAT: &str = "prompt-inspector/calibration@1";

/// The largest calibration file read (a file of thousands of families is a few hundred kB).
const FILE_LIMIT: u64 = 16 << 20;
/// The largest recorded-call file read while learning.
const RECORD_LIMIT: u64 = 64 << 20;
/// Files looked at while walking a folder of recorded calls, and the depth walked.
const WALK_FILES: usize = 100_000;
const WALK_DEPTH: usize = 16;
/// A family learnt from fewer calls keeps at least the estimate's own bound.
pub const MIN_CALLS: usize = 5;

/// Ratios learnt from recorded calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Always [`FORMAT`].
    pub format: String,
    pub families: Vec<FamilyRatio>,
}

/// One model family's ratio.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyRatio {
    pub api: Api,
    /// The model family (`claude-sonnet-4-5`), or `*` for every call of the API.
    pub family: String,
    /// The median of billed / predicted input over the family's calls: what estimates are
    /// multiplied by.
    pub ratio: f64,
    /// How far a calibrated figure was off: the largest relative error after scaling (the 90th
    /// percentile from 10 calls on), rounded up to a whole percent, at least 1; from fewer than
    /// [`MIN_CALLS`] calls, no less than the estimate's own bound.
    pub bound_percent: f64,
    /// The recorded calls the ratio was learnt from.
    pub calls: usize,
    /// The smallest and largest billed / predicted ratio among them: the spread.
    pub min_ratio: f64,
    pub max_ratio: f64,
}

/// One recorded call: what was sent, and what the provider billed.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Where it was read from (a file name).
    pub source: String,
    pub api: Api,
    pub model: String,
    pub body: Json,
    pub usage: Usage,
}

/// Why a calibration file was refused: the file and the line and column, or the JSON pointer of
/// the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalibrationError {
    pub file: String,
    /// 1-based line and column, for a file that is not valid JSON of the right shape.
    pub position: Option<(usize, usize)>,
    /// The field, for a value the format does not allow.
    pub pointer: Option<String>,
    pub message: String,
}

impl fmt::Display for CalibrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.position, &self.pointer) {
            (Some((line, column)), _) => {
                write!(f, "{}:{line}:{column}: {}", self.file, self.message)
            }
            (None, Some(pointer)) => write!(f, "{}: {pointer}: {}", self.file, self.message),
            (None, None) => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for CalibrationError {}

/// The family a model belongs to: its name in lower case without a provider prefix, a date
/// (`-20250929`, `-2024-07-18`) or `-latest`.
pub fn family(model: &str) -> String {
    let mut name = model.to_ascii_lowercase();
    if let Some((_, rest)) = name.split_once('/') {
        name = rest.to_owned();
    }
    loop {
        let before = name.len();
        for suffix in ["-latest"] {
            if let Some(rest) = name.strip_suffix(suffix) {
                name = rest.to_owned();
            }
        }
        if let Some((rest, last)) = name.rsplit_once('-') {
            if last.len() == 8 && last.bytes().all(|b| b.is_ascii_digit()) {
                name = rest.to_owned();
            }
        }
        let dashed_date = name.len() > 11 && {
            let tail = &name.as_bytes()[name.len() - 11..];
            tail[0] == b'-'
                && tail[5] == b'-'
                && tail[8] == b'-'
                && [1, 2, 3, 4, 6, 7, 9, 10]
                    .iter()
                    .all(|&i| tail[i].is_ascii_digit())
        };
        if dashed_date {
            name.truncate(name.len() - 11);
        }
        if name.len() == before {
            return name;
        }
    }
}

/// [`predict`], then scaled by `calibration`'s ratio for the model's family when the prediction
/// is an estimate (an exact count is left as it is).
pub fn predict_calibrated(
    api: Api,
    model: &str,
    body: &Json,
    calibration: Option<&Calibration>,
) -> Result<Prediction, BillingError> {
    let mut prediction = predict(api, model, body)?;
    if let Some(c) = calibration {
        c.apply(&mut prediction);
    }
    Ok(prediction)
}

impl Calibration {
    /// The ratio for `api` and `model`: its family's, else the API's pooled one.
    pub fn ratio_for(&self, api: Api, model: &str) -> Option<&FamilyRatio> {
        let family = family(model);
        let of = |name: &str| {
            self.families
                .iter()
                .find(|f| f.api == api && f.family == name)
        };
        of(&family).or_else(|| of("*"))
    }

    /// Scales an estimated prediction's parts by its family's ratio (their sum stays the
    /// prediction's total) and labels it `calibrated`. An exact prediction, or one whose family
    /// and API the calibration does not know, is left as it is.
    pub fn apply(&self, p: &mut Prediction) {
        if p.provenance == Provenance::Exact {
            return;
        }
        let Some(f) = self.ratio_for(p.api, &p.model) else {
            return;
        };
        let total = (p.input_tokens as f64 * f.ratio).round() as usize;
        for part in &mut p.parts {
            part.tokens = (part.tokens as f64 * f.ratio).round() as usize;
        }
        let sum: usize = p.parts.iter().map(|x| x.tokens).sum();
        if let Some(largest) = p.parts.iter_mut().max_by_key(|x| x.tokens) {
            largest.tokens = (largest.tokens + total).saturating_sub(sum);
        }
        p.input_tokens = p.parts.iter().map(|x| x.tokens).sum();
        // Media of unknown length stay unbounded: the ratio was not learnt on them.
        let bound = if p.provenance.bound() >= 100.0 {
            p.provenance.bound()
        } else {
            f.bound_percent
        };
        p.provenance = Provenance::Calibrated {
            ratio: f.ratio,
            bound_percent: bound,
        };
    }

    /// Reads and checks a calibration file.
    pub fn load(path: &Path) -> Result<Calibration, CalibrationError> {
        let file = path.display().to_string();
        let text = crate::files::read_regular_text(path, FILE_LIMIT, "a calibration file")
            .map_err(|e| CalibrationError {
                file: file.clone(),
                position: None,
                pointer: None,
                message: e.to_string(),
            })?;
        Calibration::parse(&text, &file)
    }

    /// Parses and checks a calibration file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Calibration, CalibrationError> {
        let c: Calibration = serde_json::from_str(text).map_err(|e| CalibrationError {
            file: file.to_owned(),
            position: Some((e.line(), e.column())),
            pointer: None,
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or("")
                .to_owned(),
        })?;
        let refuse = |pointer: String, message: &str| CalibrationError {
            file: file.to_owned(),
            position: None,
            pointer: Some(pointer),
            message: message.to_owned(),
        };
        if c.format != FORMAT {
            return Err(refuse("/format".into(), &format!("expected {FORMAT:?}")));
        }
        for (i, f) in c.families.iter().enumerate() {
            let at = |field: &str| format!("/families/{i}/{field}");
            if f.family.is_empty() {
                return Err(refuse(at("family"), "a family name is not empty"));
            }
            for (field, v) in [
                ("ratio", f.ratio),
                ("min_ratio", f.min_ratio),
                ("max_ratio", f.max_ratio),
            ] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(refuse(at(field), "a ratio is a positive number"));
                }
            }
            if !(f.bound_percent.is_finite() && f.bound_percent >= 0.0) {
                return Err(refuse(
                    at("bound_percent"),
                    "a bound is a percentage, 0 or more",
                ));
            }
            let earlier = c.families[..i]
                .iter()
                .any(|g| g.api == f.api && g.family == f.family);
            if earlier {
                return Err(refuse(
                    at("family"),
                    "this API and family are already listed",
                ));
            }
        }
        Ok(c)
    }

    /// The file's text: pretty JSON and a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// What [`learn`] did with one recorded call it could not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub source: String,
    pub reason: String,
}

/// Learns a ratio per API and model family from `records`: each call's prediction against its
/// billed input. Calls predicted exactly teach nothing and are skipped, as are calls whose body
/// cannot be counted or that billed no input.
pub fn learn(records: &[Record]) -> (Calibration, Vec<Skipped>) {
    let mut ratios: BTreeMap<(&str, String), (Api, Vec<f64>, f64)> = BTreeMap::new();
    let mut skipped = Vec::new();
    for r in records {
        let skip = |reason: String| Skipped {
            source: r.source.clone(),
            reason,
        };
        let p = match predict(r.api, &r.model, &r.body) {
            Ok(p) => p,
            Err(e) => {
                skipped.push(skip(format!("cannot be counted: {e}")));
                continue;
            }
        };
        if p.provenance == Provenance::Exact {
            skipped.push(skip("predicted exactly: nothing to calibrate".into()));
            continue;
        }
        if p.input_tokens == 0 || r.usage.input_total == 0 {
            skipped.push(skip("no input predicted or billed".into()));
            continue;
        }
        let ratio = r.usage.input_total as f64 / p.input_tokens as f64;
        for name in [family(&r.model), "*".to_owned()] {
            let entry = ratios
                .entry((r.api.as_str(), name))
                .or_insert_with(|| (r.api, Vec::new(), 0.0));
            entry.1.push(ratio);
            entry.2 = entry.2.max(p.provenance.bound());
        }
    }
    let families = ratios
        .into_iter()
        .map(|((_, name), (api, mut rs, estimate_bound))| {
            rs.sort_by(f64::total_cmp);
            let ratio = round3(rs[rs.len() / 2]);
            let mut errors: Vec<f64> = rs.iter().map(|r| (r / ratio - 1.0).abs() * 100.0).collect();
            errors.sort_by(f64::total_cmp);
            let at = if errors.len() >= 10 {
                (errors.len() * 9).div_ceil(10) - 1
            } else {
                errors.len() - 1
            };
            let measured = errors[at].ceil().max(1.0);
            FamilyRatio {
                api,
                family: name,
                ratio,
                // Too few calls to measure a spread: no tighter than the estimate was.
                bound_percent: if rs.len() < MIN_CALLS {
                    measured.max(estimate_bound)
                } else {
                    measured
                },
                calls: rs.len(),
                min_ratio: round3(rs[0]),
                max_ratio: round3(rs[rs.len() - 1]),
            }
        })
        .collect();
    (
        Calibration {
            format: FORMAT.to_owned(),
            families,
        },
        skipped,
    )
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The recorded calls in the JSON files under `dir` (recursively, in name order), and the
/// files that held none. Each file goes through [`record_of`].
pub fn records_in(dir: &Path) -> std::io::Result<(Vec<Record>, Vec<Skipped>)> {
    let mut files = Vec::new();
    walk(dir, 0, &mut files)?;
    files.sort();
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for path in files {
        let source = path.display().to_string();
        let parsed = crate::files::read_regular_text(&path, RECORD_LIMIT, "a recorded call")
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Json>(&t).map_err(|e| e.to_string()));
        match parsed.map(|v| record_of(&source, &v)) {
            Ok(Some(r)) => records.push(r),
            Ok(None) => skipped.push(Skipped {
                source,
                reason: "no request with recorded usage".into(),
            }),
            Err(e) => skipped.push(Skipped { source, reason: e }),
        }
    }
    Ok((records, skipped))
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if depth > WALK_DEPTH {
        return Ok(());
    }
    for entry in crate::files::read_dir(dir)? {
        if out.len() >= WALK_FILES {
            break;
        }
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, depth + 1, out)?;
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// The one place that knows the shapes a recorded call comes in: a one-call file
/// `{"model", "request", "response_usage", "api"?}` (the usage corpus's form). `None` for any
/// other JSON.
pub fn record_of(source: &str, v: &Json) -> Option<Record> {
    let body = v.get("request").filter(|b| b.is_object())?;
    let usage_json = v.get("response_usage")?;
    let model = v
        .get("model")
        .or_else(|| body.get("model"))
        .and_then(Json::as_str)?
        .to_owned();
    let api = v
        .get("api")
        .and_then(Json::as_str)
        .and_then(Api::parse)
        .unwrap_or_else(|| api_of(&model, body, usage_json));
    let usage = Usage::from_response(api, usage_json)?;
    Some(Record {
        source: source.to_owned(),
        api,
        model,
        body: body.clone(),
        usage,
    })
}

/// The API a request body was sent to, from its shape, model and usage.
fn api_of(model: &str, body: &Json, usage: &Json) -> Api {
    if body.get("contents").is_some() || usage.get("promptTokenCount").is_some() {
        Api::Gemini
    } else if body.get("messages").is_none() {
        Api::OpenaiResponses
    } else if usage.get("prompt_tokens").is_some() {
        Api::OpenaiChat
    } else if model.starts_with("claude") || usage.get("cache_creation_input_tokens").is_some() {
        Api::Anthropic
    } else {
        Api::OpenaiChat
    }
}

#[cfg(test)]
mod tests;
