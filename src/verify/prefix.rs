//! What a call repeats of the call before it, counted as its provider bills both requests
//! (`billing::predict`'s parts, compared in their canonical form by `cache::shared`), and the
//! facts `rule::cause` names a miss from. `cause` works them out for a recorded miss; the app's
//! prediction-only zero-read explanations (`api::explain`) get them from [`repeats`], for
//! requests no usage was recorded for.

use serde_json::Value as Json;

use super::cache::{self, Prepared, Simulation};
use super::cause::changed;
use super::report::Difference;
use super::rule::{self, Changed, Facts};
use super::Call;
use crate::billing::{self, Prediction};
use crate::pricing::{Growth, Row};
use crate::report::DiagnosticCode;
use crate::usage::{Api, Provenance, Usage};

/// What `now` repeats of `before` and what kept it from reading more, but for time.
pub(super) struct Repeated {
    /// `expired` is left false: only the recorded timestamps tell it.
    pub facts: Facts,
    /// Tokens of the repeated prefix, scaled by the ratio given.
    pub stable: usize,
    /// Leading blocks `before` had cached (by the prediction).
    pub extent: usize,
    /// How many blocks back from a breakpoint the cache is looked up.
    pub reach: usize,
    /// The first difference inside what `before` had cached: its part, in words, where.
    pub change: Option<(Changed, String, Option<Difference>)>,
}

/// `now` against `before` (call `j`, 0-based). `automatic`: the row's cache needs no breakpoints;
/// `ratio` scales the predicted tokens to billed ones (1 without a recording).
pub(super) fn repeated(
    j: usize,
    before: &Prepared<'_>,
    now: &Prepared<'_>,
    automatic: bool,
    ratio: f64,
) -> Repeated {
    let extent = cached_extent(before);
    let blocks = cache::shared(before, now, false);
    let change = (blocks.blocks < extent).then(|| changed(j, before, now, blocks.blocks));
    let predicted_stable = if automatic {
        cache::shared(before, now, true).tokens
    } else {
        blocks.tokens
    };
    let stable = (predicted_stable as f64 * ratio).round() as usize;
    let reach = now.row.cache.lookback_blocks.unwrap_or(1).max(1);
    let reaches = extent > 0
        && now
            .blocks
            .iter()
            .enumerate()
            .any(|(k, b)| b.breakpoint.is_some() && k + 1 >= extent && k < extent - 1 + reach);
    Repeated {
        facts: Facts {
            model_changed: !cache::same_model(before, now),
            changed: change.as_ref().map(|c| c.0),
            repeated_tokens: stable,
            min_tokens: now.row.cache.min_tokens,
            no_breakpoint: !automatic && !reaches,
            expired: false,
        },
        stable,
        extent,
        reach,
        change,
    }
}

/// How many leading blocks of `p` its cache held after it (by the prediction): up to its last
/// breakpoint that reaches the minimum, or the whole prompt of an automatic cache that does.
pub(super) fn cached_extent(p: &Prepared<'_>) -> usize {
    let min = p.row.cache.min_tokens;
    match p.row.cache.growth {
        Growth::Breakpoints => p
            .blocks
            .iter()
            .rposition(|b| b.breakpoint.is_some() && b.end >= min)
            .map_or(0, |k| k + 1),
        Growth::Units | Growth::ImplicitPrefix => {
            if p.end_of(p.blocks.len()) >= min {
                p.blocks.len()
            } else {
                0
            }
        }
    }
}

/// A request as its provider is sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub api: Api,
    pub model: String,
    pub body: Json,
}

/// One call against the call before it, predicted for one models-table row.
#[derive(Clone, Debug, PartialEq)]
pub struct Repeat {
    /// Tokens of the prefix the call repeats from the call before, counted as the provider bills
    /// them (tools, system and framing included).
    pub tokens: usize,
    /// How far `tokens` can be from the billed figure: the call's prediction's.
    pub provenance: Provenance,
    /// The cause `verify` gives the call when it reads nothing: the same facts and the same rule,
    /// without the recording's corrections (token ratio, timestamps).
    pub cause: DiagnosticCode,
}

/// One request as `row`'s provider bills it, in a conversation: its input, what `verify`'s cache
/// simulation has it read from and write to the prompt cache, and what it repeats of the call
/// before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bill {
    /// `billing::predict`'s input tokens for the request.
    pub input_tokens: usize,
    /// How far `input_tokens` can be from the billed figure.
    pub provenance: Provenance,
    /// Tokens read from the cache: the most the simulation gives (an automatic cache's hit is
    /// not guaranteed, so it reads between 0 and this).
    pub read: usize,
    /// Tokens written to the cache, every TTL together.
    pub write: usize,
    /// Against the call before it; `None` for the first call and when that one is not predicted.
    pub repeat: Option<Repeat>,
}

/// Each of a conversation's requests (in call order) as `row`'s provider bills it; `None` for a
/// request that cannot be predicted (its error is in the tracing log). The cache is simulated as
/// `verify` simulates it, on the requests' own breakpoints.
pub fn bills(row: &Row, requests: &[Request]) -> Vec<Option<Bill>> {
    let predictions: Vec<Option<Prediction>> = requests
        .iter()
        .enumerate()
        .map(|(k, r)| match billing::predict(r.api, &r.model, &r.body) {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::debug!(call = k, row = %row.id, error = %e, "request not predicted");
                None
            }
        })
        .collect();
    let calls: Vec<Call> = requests
        .iter()
        .enumerate()
        .map(|(k, r)| Call {
            label: format!("call {}", k + 1),
            conversation: None,
            seq: None,
            api: r.api,
            model: r.model.clone(),
            body: r.body.clone(),
            raw: None,
            usage: Usage::default(),
            cache_reported: false,
            timestamp: None,
            who: Vec::new(),
        })
        .collect();
    let prepared: Vec<Option<Prepared<'_>>> = calls
        .iter()
        .zip(&predictions)
        .map(|(c, p)| p.as_ref().map(|p| Prepared::new(c, row, p)))
        .collect();
    let automatic = row.cache.growth != Growth::Breakpoints;
    let mut simulation = Simulation::default();
    (0..prepared.len())
        .map(|k| {
            let cache = simulation.step(&prepared, k);
            let now = prepared[k].as_ref()?;
            let cache = cache?;
            let repeat = k
                .checked_sub(1)
                .and_then(|j| prepared[j].as_ref())
                .map(|before| {
                    let r = repeated(k - 1, before, now, automatic, 1.0);
                    Repeat {
                        tokens: r.stable,
                        provenance: now.prediction.provenance.clone(),
                        cause: rule::cause(&r.facts),
                    }
                });
            Some(Bill {
                input_tokens: now.prediction.input_tokens,
                provenance: now.prediction.provenance.clone(),
                read: cache.read_high,
                write: cache.write_total(),
                repeat,
            })
        })
        .collect()
}

/// Each of a conversation's requests (in call order) against the one before it, as `row`'s
/// provider bills them; `None` for the first call and for a call either of whose requests cannot
/// be predicted (its error is in the tracing log).
pub fn repeats(row: &Row, requests: &[Request]) -> Vec<Option<Repeat>> {
    bills(row, requests)
        .into_iter()
        .map(|b| b.and_then(|b| b.repeat))
        .collect()
}

#[cfg(test)]
mod tests;
