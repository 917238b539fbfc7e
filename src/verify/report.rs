//! What `verify` answers (`prompt-inspector verify --format json`, the app's `verify`
//! operation): per call the predicted and billed figures with their provenance and the causes of
//! its cache miss, per conversation the totals, and a summary of how close the predictions are.
//! Counts are `u32` and money `f64` USD, so the app's TypeScript reads them as numbers.

use serde::Serialize;

use crate::report::{DiagnosticCode, Level};
use crate::usage::{Api, Provenance, Usage};

/// Everything `verify` found.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct VerifyReport {
    pub conversations: Vec<ConversationResult>,
    pub summary: Summary,
}

/// One conversation: its calls in order, and their totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConversationResult {
    /// The recorded conversation id, or the file of a call on its own.
    pub name: String,
    pub calls: Vec<CallResult>,
    pub totals: Totals,
}

/// One call, predicted against billed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallResult {
    /// The call's file.
    pub label: String,
    /// Its 1-based place in the conversation.
    pub call: u32,
    pub api: Api,
    pub model: String,
    /// The models-table row that prices it.
    pub priced_as: String,
    /// Why that row, when it does not name the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_note: Option<String>,
    /// What the provider billed, normalised (docs/models.md, "Usage").
    pub billed: Usage,
    /// `null` when the body cannot be predicted (`error` says why).
    pub input: Option<InputFigure>,
    pub cache_read: Option<ReadFigure>,
    pub cache_write: Option<WriteFigure>,
    pub cost: CostFigure,
    /// A recorded cache miss: a call after the first that reads nothing, or less than the call
    /// before it left in the cache.
    pub miss: bool,
    /// The cause of a recorded cache miss, or of a cache figure the prediction does not agree
    /// with (docs/diagnostics.md, "Predicted against billed").
    pub causes: Vec<CauseOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Input tokens, predicted against billed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct InputFigure {
    pub predicted: u32,
    pub billed: u32,
    /// `predicted - billed`.
    pub difference: i32,
    /// `difference` in percent of `billed` (0 when both are 0).
    pub error_percent: f64,
    pub provenance: Provenance,
    /// Whether `billed` is within the provenance's bound of `predicted`.
    pub within_bound: bool,
}

/// Tokens read from the prompt cache, predicted against billed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReadFigure {
    /// The prediction is a range for an automatic cache (a hit is not guaranteed), one figure
    /// (`low == high`) for explicit breakpoints.
    pub predicted_low: u32,
    pub predicted_high: u32,
    pub billed: u32,
    /// Whether the billed read is what was predicted, within the token counts' bound.
    pub agrees: bool,
    /// Whether the provider caches automatically (the range) or at the request's breakpoints.
    pub automatic: bool,
    /// The earlier call (1-based) whose prefix the prediction reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_call: Option<u32>,
    /// Whether the recorded usage reports cache reads at all.
    pub reported: bool,
    pub provenance: Provenance,
}

/// Tokens written to the prompt cache.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct WriteFigure {
    pub predicted: u32,
    pub billed: u32,
    /// The predicted write by TTL (`5m`, `1h`, ...), in the order of the request's breakpoints.
    pub predicted_by_ttl: Vec<TtlTokens>,
    pub provenance: Provenance,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TtlTokens {
    pub ttl: String,
    pub tokens: u32,
}

/// The input's cost in USD (output is not predicted, so not priced).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CostFigure {
    /// The cost with the most the cache may read, and with the least (equal unless the read is
    /// a range); `null` when the body cannot be predicted.
    pub predicted_low_usd: Option<f64>,
    pub predicted_high_usd: Option<f64>,
    pub billed_usd: f64,
    /// Billed minus predicted: 0 inside the predicted range, else the distance to its nearer end.
    pub difference_usd: Option<f64>,
}

/// One cause of a miss or a disagreement.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CauseOut {
    pub code: DiagnosticCode,
    pub level: Level,
    pub message: String,
    /// Tokens the call did not read from the cache because of it (for `read_warmed_outside`,
    /// the tokens it read that no recorded call wrote).
    pub tokens: u32,
    /// What that cost at the model's prices: the input price less the cache-read price per
    /// token (negative for `read_warmed_outside`: what the unforeseen read saved).
    pub cost_usd: f64,
    /// The earlier call (1-based) the call is compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_call: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
}

/// Where a request first differs from the earlier one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Difference {
    /// JSON pointer of the first differing value in the request body.
    pub pointer: String,
    /// Byte of that string where they differ.
    pub byte: u32,
    pub before: String,
    pub now: String,
    /// Who wrote the text there (a role, or a segment and tool for a call made from a scene).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
    /// The first differing byte of the two bodies as sent, when both are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_byte: Option<u32>,
}

/// A conversation's figures added up (calls that cannot be predicted count billed only).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Totals {
    pub calls: u32,
    pub predicted_input: u32,
    pub billed_input: u32,
    pub predicted_read_low: u32,
    pub predicted_read_high: u32,
    pub billed_read: u32,
    pub predicted_write: u32,
    pub billed_write: u32,
    pub predicted_low_usd: f64,
    pub predicted_high_usd: f64,
    pub billed_usd: f64,
    /// Recorded misses, and what their causes cost.
    pub misses: u32,
    pub miss_cost_usd: f64,
}

/// How close the predictions are, over every call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Summary {
    pub calls: u32,
    pub conversations: u32,
    /// Calls whose body could not be predicted.
    pub errors: u32,
    /// Predicted input against billed, per API, then over all of them (`api` null).
    pub input: Vec<ApiSummary>,
    pub cache: CacheAgreement,
    /// Each cause found, how often and what it cost.
    pub causes: Vec<CauseCount>,
    pub predicted_low_usd: f64,
    pub predicted_high_usd: f64,
    pub billed_usd: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ApiSummary {
    pub api: Option<Api>,
    pub calls: u32,
    /// The median of `|predicted - billed| / billed`, in percent.
    pub median_error_percent: f64,
    pub max_error_percent: f64,
    pub within_1_percent: u32,
    /// Calls whose billed input is within the prediction's stated bound.
    pub within_bound: u32,
    /// Calls predicted low, and high.
    pub low: u32,
    pub high: u32,
}

/// Predicted cache reads against recorded ones.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CacheAgreement {
    /// Calls whose usage reports cache reads, and those where the prediction agrees.
    pub reporting: u32,
    pub agreeing: u32,
    /// Calls that read from the cache, and those where the prediction agrees.
    pub reading: u32,
    pub agreeing_reading: u32,
    /// Recorded misses (a later call reading nothing, or less than the call before left), and
    /// those whose cause is `miss_provider_side` (the data names no other).
    pub misses: u32,
    pub unexplained: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CauseCount {
    pub code: DiagnosticCode,
    pub count: u32,
    pub cost_usd: f64,
}

/// A count for a transport type (saturating).
pub fn n32(n: impl TryInto<u32>) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

/// The summary of `conversations`.
pub fn summarise(conversations: &[ConversationResult]) -> Summary {
    let calls: Vec<&CallResult> = conversations.iter().flat_map(|c| &c.calls).collect();
    let mut input: Vec<ApiSummary> = Api::ALL
        .iter()
        .filter_map(|&api| api_summary(Some(api), calls.iter().filter(|c| c.api == api)))
        .collect();
    if let Some(all) = api_summary(None, calls.iter()) {
        input.push(all);
    }
    let reads: Vec<&ReadFigure> = calls
        .iter()
        .filter_map(|c| c.cache_read.as_ref())
        .filter(|r| r.reported)
        .collect();
    let reading: Vec<&&ReadFigure> = reads.iter().filter(|r| r.billed > 0).collect();
    let mut causes: Vec<CauseCount> = Vec::new();
    for cause in calls.iter().flat_map(|c| &c.causes) {
        match causes.iter_mut().find(|c| c.code == cause.code) {
            Some(c) => {
                c.count += 1;
                c.cost_usd += cause.cost_usd;
            }
            None => causes.push(CauseCount {
                code: cause.code,
                count: 1,
                cost_usd: cause.cost_usd,
            }),
        }
    }
    causes.sort_by_key(|c| c.code);
    let misses: Vec<&&CallResult> = calls.iter().filter(|c| c.miss).collect();
    Summary {
        calls: n32(calls.len()),
        conversations: n32(conversations.len()),
        errors: n32(calls.iter().filter(|c| c.error.is_some()).count()),
        input,
        cache: CacheAgreement {
            reporting: n32(reads.len()),
            agreeing: n32(reads.iter().filter(|r| r.agrees).count()),
            reading: n32(reading.len()),
            agreeing_reading: n32(reading.iter().filter(|r| r.agrees).count()),
            misses: n32(misses.len()),
            unexplained: n32(misses
                .iter()
                .filter(|c| {
                    c.causes
                        .iter()
                        .any(|k| k.code == DiagnosticCode::MissProviderSide)
                })
                .count()),
        },
        causes,
        predicted_low_usd: conversations
            .iter()
            .map(|c| c.totals.predicted_low_usd)
            .sum(),
        predicted_high_usd: conversations
            .iter()
            .map(|c| c.totals.predicted_high_usd)
            .sum(),
        billed_usd: conversations.iter().map(|c| c.totals.billed_usd).sum(),
    }
}

fn api_summary<'a>(
    api: Option<Api>,
    calls: impl Iterator<Item = &'a &'a CallResult>,
) -> Option<ApiSummary> {
    let figures: Vec<&InputFigure> = calls.filter_map(|c| c.input.as_ref()).collect();
    if figures.is_empty() {
        return None;
    }
    let mut errors: Vec<f64> = figures.iter().map(|f| f.error_percent.abs()).collect();
    errors.sort_by(f64::total_cmp);
    let mid = errors.len() / 2;
    let median = if errors.len() % 2 == 1 {
        errors[mid]
    } else {
        (errors[mid - 1] + errors[mid]) / 2.0
    };
    Some(ApiSummary {
        api,
        calls: n32(figures.len()),
        median_error_percent: median,
        max_error_percent: errors.last().copied().unwrap_or(0.0),
        within_1_percent: n32(errors.iter().filter(|e| **e <= 1.0).count()),
        within_bound: n32(figures.iter().filter(|f| f.within_bound).count()),
        low: n32(figures.iter().filter(|f| f.difference < 0).count()),
        high: n32(figures.iter().filter(|f| f.difference > 0).count()),
    })
}
