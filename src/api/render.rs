//! `render` (the hot path of live editing) and `run`: load the text, call the core once, answer
//! with its report (docs/cli.md, docs/run-loop.md), which each front end serialises as the command line does.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::ApiError;
use crate::inject;
use crate::provider::ChatProvider;
use crate::scene;
use crate::segments::Family;
use crate::tokens::Encoding;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RenderRequest {
    /// The scene text, as in the editor.
    pub text: String,
    /// The folder relative image paths resolve against (the scene file's folder).
    #[serde(default)]
    pub base_dir: Option<String>,
    /// Which LLM family to assemble.
    pub llm: Family,
    /// A chat provider whose request body the chat report adds.
    #[serde(default)]
    pub provider: Option<ChatProvider>,
    #[serde(default)]
    pub tokenizer: Option<Encoding>,
    /// Count tokens (the default), with the default tokenizer when `tokenizer` is not set;
    /// `false` with no `tokenizer` counts none.
    #[serde(default = "crate::api::render::counts_by_default")]
    pub tokens: bool,
    /// Price the call's input for these models (row ids or model names of the built-in table,
    /// the `models` operation): the report's `costs`. Empty (the default): no costs. Prices need
    /// tokens: with tokens not counted, `costs` is left out.
    #[serde(default)]
    pub models: Vec<String>,
}

/// Tokens are counted unless a request says `tokens: false` (docs/api.md).
pub(crate) fn counts_by_default() -> bool {
    true
}

/// The JSON report (docs/cli.md). Kept as the core's value until a front end serialises it:
/// `serve` and the app write its JSON, the Python package builds Python objects from it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RenderResponse {
    pub report: crate::report::Report,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunRequest {
    pub text: String,
    /// Accepted for symmetry with `render`; the run loop reads no files.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The models to price each round for (row ids or model names of the built-in table,
    /// docs/models.md); empty: its default set, as `run` prints.
    #[serde(default)]
    pub models: Vec<String>,
}

/// The run report (docs/run-loop.md), kept as the core's value like [`RenderResponse`]'s.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunResponse {
    pub report: crate::runloop::RunReport,
    /// Every round that reads nothing, per model, with its cause (docs/app.md, "Run").
    pub zero_reads: Vec<super::explain::ZeroRead>,
    /// For each breakpoint cache among the models: the run with a breakpoint closing every
    /// request as well as xbot's one after the system message.
    pub what_if: Vec<super::explain::WhatIfPrice>,
}

/// Serialises a core value into raw JSON. The core's reports serialise plain data, so this
/// cannot fail in practice; if it ever did, it is reported rather than panicking.
pub(crate) fn raw_json<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, ApiError> {
    serde_json::to_string(value)
        .and_then(RawValue::from_string)
        .map_err(|e| ApiError::new(super::ErrorCode::Internal, format!("serialising: {e}")))
}

/// Renders the scene text for one family (`inject::render_with`).
pub fn render(req: &RenderRequest) -> Result<RenderResponse, ApiError> {
    let family = req.llm;
    if req.provider.is_some() && family == Family::Desk {
        return Err(ApiError::invalid(
            "provider",
            "provider applies to llm \"chat\"; a desk request's shape comes from the scene's desk_llm.adapter",
        ));
    }
    let rows = super::models::rows(&req.models, "models")?;
    let scene = scene::load_str(&req.text)?;
    let options = options_of(
        req.base_dir.as_deref(),
        req.provider,
        req.tokenizer,
        req.tokens,
    );
    let mut report = inject::render_with(&scene, family, &options);
    priced(&mut report, &scene, options.base_dir.as_deref(), &rows);
    Ok(RenderResponse { report })
}

/// Fills a report's `costs` for `rows` (nothing when there are none), and says which of them
/// the call is too short to be cached for (`cache_below_minimum`).
pub(crate) fn priced(
    report: &mut crate::report::Report,
    scene: &scene::Scene,
    base_dir: Option<&std::path::Path>,
    rows: &[crate::pricing::Row],
) {
    if rows.is_empty() {
        return;
    }
    let rows: Vec<&crate::pricing::Row> = rows.iter().collect();
    let sent = crate::pricing::request::Sent::of(scene, report, base_dir);
    report.costs = crate::pricing::cost::input_costs(report, &sent, &rows);
    if let Some(first) = report.costs.first() {
        let short = crate::pricing::minimum::call_below_minimum(&rows, first.input_tokens);
        report.diagnostics.extend(short);
    }
}

/// The core's render options for a request's fields.
pub(crate) fn options_of(
    base_dir: Option<&str>,
    provider: Option<ChatProvider>,
    tokenizer: Option<Encoding>,
    tokens: bool,
) -> inject::Options {
    inject::Options {
        base_dir: base_dir.map(PathBuf::from),
        chat_provider: provider,
        encoding: tokenizer.unwrap_or_default(),
        skip_tokens: tokenizer.is_none() && !tokens,
        skip_lint: false,
    }
}

/// Replays the scene's `run` loop (xbot's tool-call loop, docs/run-loop.md).
pub fn run(req: &RunRequest) -> Result<RunResponse, ApiError> {
    let scene = scene::load_str(&req.text)?;
    let Some(spec) = &scene.run else {
        return Err(ApiError::new(
            super::ErrorCode::NoRun,
            "the scene has no \"run\" field (docs/scene-format.md), so there is no loop to replay",
        ));
    };
    let models = super::models::builtin()
        .select(&req.models)
        .map_err(|e| ApiError::invalid("models", e))?;
    let mut report = crate::runloop::replay(spec);
    report.price(&models);
    let shared = run_shared(&report);
    let totals: Vec<usize> = report
        .iterations
        .iter()
        .map(|it| it.cache.request_tokens)
        .collect();
    let mut zero_reads = Vec::new();
    let mut what_if = Vec::new();
    for (row, cost) in models.iter().zip(&report.models) {
        // The run loop's requests are its own serialisation, not provider bodies: its shared
        // prefixes stay the blame's count (with the blame's provenance).
        zero_reads.extend(super::explain::zero_reads(row, cost, &shared, &[], &[]));
        what_if.extend(super::explain::with_closing_breakpoint(
            row, cost, &totals, &shared,
        ));
    }
    Ok(RunResponse {
        report,
        zero_reads,
        what_if,
    })
}

/// Each round against the one before: the loop only appends, so the shared prefix is the whole
/// previous request unless its system message changed.
fn run_shared(report: &crate::runloop::RunReport) -> Vec<super::explain::Shared> {
    let mut previous = 0;
    report
        .iterations
        .iter()
        .map(|it| {
            let c = &it.cache;
            let change = (c.system_identical == Some(false)).then(|| super::explain::Change {
                part: super::explain::ChangedPart::System,
                byte: super::error::u32_of(c.common_prefix_bytes.unwrap_or(0)),
                written_by: "the system message's parts".to_owned(),
                tool: None,
            });
            let shared = super::explain::Shared {
                tokens: c.common_prefix_tokens,
                change,
                last_message: previous,
            };
            previous = it.request_messages;
            shared
        })
        .collect()
}
