//! `conversation`: a folder of numbered scenes, one per call in call order (what
//! `prompt-inspector cache` reads), blamed as `conversation::blame_files` does and priced as each
//! model's provider bills the requests (`billed`), with each call that reads nothing explained and
//! each tool's what-if (docs/api.md).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::u32_of;
use super::explain::{self, Billed, Change, ChangedPart, Shared, WhatIfPrice, ZeroRead};
use super::ApiError;
use crate::pricing::cost::ModelCost;
use crate::pricing::Row;
use crate::runloop::blame::{CacheReport, Location, StepOut};
use crate::usage::Provenance;
use billed::CallBill;

/// A conversation longer than this is refused: each tool's what-if renders every call again.
pub const MAX_CALLS: usize = 1000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConversationRequest {
    /// A folder whose `*.scene.json` files, in name order, are the calls (`01.scene.json`, ...).
    /// With `scenes`, only the name the answer gives the conversation.
    #[serde(default)]
    pub folder: String,
    /// The models to price the calls for (row ids or model names, docs/models.md); empty: the
    /// table's default set.
    #[serde(default)]
    pub models: Vec<String>,
    /// The calls' scene texts in call order, instead of a folder's files (the Live view's received
    /// calls, not saved anywhere): each is labelled `call N`, and a file image in one does not
    /// resolve.
    #[serde(default)]
    pub scenes: Option<Vec<String>>,
}

/// Where the calls come from.
enum Input {
    Files(Vec<PathBuf>),
    /// Each text with its label.
    Texts(Vec<(String, String)>),
}

impl Input {
    fn of(req: &ConversationRequest) -> Result<Input, ApiError> {
        let Some(texts) = &req.scenes else {
            return scene_files(Path::new(&req.folder)).map(Input::Files);
        };
        if texts.is_empty() || texts.len() > MAX_CALLS {
            return Err(ApiError::invalid(
                "scenes",
                format!(
                    "{} scenes: a conversation has from 1 to {MAX_CALLS}",
                    texts.len()
                ),
            ));
        }
        Ok(Input::Texts(
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("call {}", i + 1), t.clone()))
                .collect(),
        ))
    }

    fn load(&self) -> Result<Vec<crate::conversation::Call>, crate::scene::SceneError> {
        match self {
            Input::Files(paths) => crate::conversation::load(paths),
            Input::Texts(texts) => crate::conversation::load_texts(texts),
        }
    }

    /// Each call's path, or its label when it has none.
    fn labels(&self) -> Vec<String> {
        match self {
            Input::Files(paths) => paths.iter().map(|p| p.display().to_string()).collect(),
            Input::Texts(texts) => texts.iter().map(|(label, _)| label.clone()).collect(),
        }
    }

    fn verify(&self, models: &[String]) -> recorded::Verified {
        match self {
            Input::Files(paths) => recorded::verify(paths, models),
            Input::Texts(texts) => recorded::verify_texts(texts, models),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConversationResponse {
    pub folder: String,
    pub calls: Vec<CallOut>,
    /// Each model's tokens and cost per call, in the order asked for: as its provider bills the
    /// calls' requests where `figures` says `billed`, else on the chat messages alone.
    pub models: Vec<ModelCost>,
    /// Each model's input and shared prefix per call, in `models`' order, with what they are
    /// counted on.
    pub figures: Vec<ModelFigures>,
    /// Every call that reads nothing, per model, with its cause.
    pub zero_reads: Vec<ZeroRead>,
    /// Each tool that injects early, moved to the latest segment a tool may write, per model.
    pub what_if: Vec<WhatIfPrice>,
    /// The cache-safety lint's findings (docs/diagnostics.md).
    pub diagnostics: Vec<CallDiagnostic>,
    /// The recorded calls' figures added up, predicted against billed, when any scene records
    /// the usage its provider billed (`recorded.usage`); each call's own are on the call.
    pub recorded_totals: Option<crate::verify::Totals>,
    /// Scenes whose recorded call could not be verified, each with its position.
    pub recorded_errors: Vec<ApiError>,
}

/// One call's chat request as the caches see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallOut {
    /// The scene's file name.
    pub scene: String,
    pub path: String,
    pub messages: u32,
    pub request_bytes: u32,
    /// The chat messages alone, in o200k (the byte blame's count; a model's billed figures are in
    /// `figures`).
    pub request_tokens: u32,
    /// Tokens of the chat messages shared with the previous call (`null` for the first), in o200k.
    pub common_prefix_tokens: Option<u32>,
    /// Where it first differs from the previous call, when it rewrites rather than appends.
    pub change: Option<Change>,
    /// Predicted against billed, as the `verify` operation gives it, when the scene records the
    /// usage its provider billed; the cause of a recorded miss is among its `causes`.
    pub recorded: Option<crate::verify::CallResult>,
}

/// One model's per-call figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelFigures {
    pub model: String,
    pub basis: Basis,
    pub calls: Vec<CallFigures>,
}

/// What a model's figures are counted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Basis {
    /// The request its provider is sent (the recorded one when the scene has it), as the
    /// provider bills it (`billing::predict`).
    Billed,
    /// The chat messages alone, in o200k: some request could not be predicted, or a breakpoint
    /// cache's requests are built rather than recorded (the blame places their breakpoints).
    ChatMessages,
}

/// One call's input and shared prefix, for one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallFigures {
    pub input_tokens: u32,
    /// Tokens shared with the previous call (`null` for the first).
    pub shared_tokens: Option<u32>,
    /// How far the figures can be from the billed ones.
    pub provenance: Provenance,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallDiagnostic {
    /// 0-based; `null` for a finding about the whole conversation.
    pub call: Option<u32>,
    pub diagnostic: crate::report::Diagnostic,
}

/// Blames the folder's calls for the chosen models.
pub fn conversation(req: &ConversationRequest) -> Result<ConversationResponse, ApiError> {
    tracing::info!(folder = %req.folder, texts = req.scenes.as_ref().map(Vec::len), "opening a conversation");
    let input = Input::of(req)?;
    let labels = input.labels();
    let rows = super::models::builtin()
        .select(&req.models)
        .map_err(|e| ApiError::invalid("models", e))?;
    let report = crate::conversation::blame_calls(&input.load().map_err(ApiError::from)?, &rows);
    let shared: Vec<Shared> = report
        .steps
        .iter()
        .enumerate()
        .map(shared_of(&report))
        .collect();
    let what_if: Vec<WhatIfPrice> = report
        .what_if
        .iter()
        .flat_map(|w| {
            w.models.iter().map(|m| WhatIfPrice {
                model: m.model.clone(),
                what: format!("{}'s text moved from {} to {}", w.tool, w.from, w.to),
                tool: Some(w.tool.clone()),
                from: Some(w.from.clone()),
                to: Some(w.to.to_owned()),
                cost_usd: m.cost_usd,
                what_if_usd: m.moved_cost_usd,
                saving_usd: m.placement_cost_usd,
            })
        })
        .collect();
    let bills = billed::bills(input.load(), labels.len(), &rows);
    let repeats: Vec<Vec<Option<Billed>>> = bills.iter().map(|b| billed::repeats(b)).collect();
    let (models, figures): (Vec<ModelCost>, Vec<ModelFigures>) = rows
        .iter()
        .zip(&report.models)
        .zip(&bills)
        .map(|((row, counted), bills)| figures_of(row, counted, bills, &report))
        .unzip();
    let zero_reads = rows
        .iter()
        .zip(&models)
        .zip(&repeats)
        .flat_map(|((row, cost), repeats)| {
            let moves: Vec<WhatIfPrice> = what_if
                .iter()
                .filter(|w| w.model == row.id)
                .cloned()
                .collect();
            explain::zero_reads(row, cost, &shared, repeats, &moves)
        })
        .collect();
    let verified = input.verify(&req.models);
    Ok(ConversationResponse {
        folder: req.folder.clone(),
        calls: report
            .steps
            .iter()
            .zip(&labels)
            .zip(&shared)
            .map(|((s, label), sh)| CallOut {
                scene: s.scene.clone(),
                path: label.clone(),
                messages: u32_of(s.messages),
                request_bytes: u32_of(s.request_bytes),
                request_tokens: u32_of(s.request_tokens),
                common_prefix_tokens: s.common_prefix_tokens.map(u32_of),
                change: sh.change.clone(),
                recorded: verified.call(label),
            })
            .collect(),
        models,
        figures,
        zero_reads,
        what_if,
        diagnostics: report
            .diagnostics
            .iter()
            .map(|f| CallDiagnostic {
                call: f.call.map(u32_of),
                diagnostic: f.diagnostic.clone(),
            })
            .collect(),
        recorded_totals: verified.totals(),
        recorded_errors: verified.errors,
    })
}

/// The row's bill and per-call figures: as its provider bills the requests when
/// `billed::model_cost` can price them, else the blame's count of the chat messages.
fn figures_of(
    row: &Row,
    counted: &ModelCost,
    bills: &[Option<CallBill>],
    report: &CacheReport,
) -> (ModelCost, ModelFigures) {
    if let Some(cost) = billed::model_cost(row, bills) {
        let calls = bills
            .iter()
            .flatten()
            .map(|c| CallFigures {
                input_tokens: u32_of(c.bill.input_tokens),
                shared_tokens: c.bill.repeat.as_ref().map(|r| u32_of(r.tokens)),
                provenance: c.bill.provenance.clone(),
            })
            .collect();
        let figures = ModelFigures {
            model: row.id.clone(),
            basis: Basis::Billed,
            calls,
        };
        return (cost, figures);
    }
    let calls = report
        .steps
        .iter()
        .map(|s| CallFigures {
            input_tokens: u32_of(s.request_tokens),
            shared_tokens: s.common_prefix_tokens.map(u32_of),
            provenance: counted.provenance.clone(),
        })
        .collect();
    let figures = ModelFigures {
        model: row.id.clone(),
        basis: Basis::ChatMessages,
        calls,
    };
    (counted.clone(), figures)
}

/// The folder's `*.scene.json` files in name order (not its subfolders: one folder, one
/// conversation).
fn scene_files(folder: &Path) -> Result<Vec<PathBuf>, ApiError> {
    let entries = crate::files::read_dir(folder).map_err(|e| ApiError::io(folder, &e))?;
    let mut paths: Vec<PathBuf> = entries
        .iter()
        .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
        .map(std::fs::DirEntry::path)
        .filter(|p| p.to_string_lossy().ends_with(crate::check::SCENE_SUFFIX))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(ApiError::invalid(
            "folder",
            format!(
                "{} has no *.scene.json files: a conversation is a folder of one scene per call",
                folder.display()
            ),
        ));
    }
    if paths.len() > MAX_CALLS {
        return Err(ApiError::invalid(
            "folder",
            format!(
                "{} has {} scenes; a conversation has at most {MAX_CALLS}",
                folder.display(),
                paths.len()
            ),
        ));
    }
    Ok(paths)
}

/// Call `k` against call `k - 1`, as the explanations read it.
fn shared_of(report: &CacheReport) -> impl Fn((usize, &StepOut)) -> Shared + '_ {
    move |(k, s)| Shared {
        tokens: s.common_prefix_tokens,
        change: s.first_difference.as_ref().and_then(|d| {
            // `before` is null when the previous request ends there: this one only appends.
            let at = d.before.as_ref()?;
            let loc = d.now.as_ref().unwrap_or(at);
            Some(change_at(u32_of(d.byte), loc))
        }),
        last_message: k.checked_sub(1).map_or(0, |j| report.steps[j].messages),
    }
}

fn change_at(byte: u32, l: &Location) -> Change {
    let part = match (l.message, l.role) {
        (None, _) => ChangedPart::Tools,
        (Some(_), "system") => ChangedPart::System,
        _ => ChangedPart::Messages,
    };
    Change {
        part,
        byte,
        written_by: written_by(l),
        tool: (l.source == "tool" || l.source == "definition")
            .then(|| l.tool.clone())
            .flatten(),
    }
}

/// Who wrote a byte, in words (as `prompt-inspector cache` says it).
pub(crate) fn written_by(l: &Location) -> String {
    let Some(message) = l.message else {
        return match &l.tool {
            Some(t) => format!("{t}'s tool definition"),
            None => "the tool definitions".to_owned(),
        };
    };
    let what = match (l.source, &l.tool, l.index) {
        ("role", _, _) => "a different message (its role header)".to_owned(),
        ("tool", Some(t), _) => format!("tool {t}"),
        ("config", _, Some(i)) => format!("configured prompt {i}"),
        ("message", _, Some(i)) => format!("recorded message #{i}"),
        ("user_input", _, _) => "the user's input".to_owned(),
        (s, _, _) => s.to_owned(),
    };
    let segment = l.segment.map(|s| format!(", {s}")).unwrap_or_default();
    format!("{what} (message {}{segment})", message + 1)
}

mod billed;
mod recorded;
#[cfg(test)]
mod tests;
