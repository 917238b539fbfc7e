//! A request's input tokens split the way a provider bills them, and their price: read from the
//! cache, written to it, and the rest at the ordinary input price. Output tokens are not part of
//! a recorded request, so they are not priced here.

use serde::Serialize;

use super::request::{self, Provider, Sent, TEXT_BOUND_PERCENT};
use super::{Growth, Row};
use crate::report::{DefinitionCost, InputCost, Report, SegmentCost};
use crate::usage::Provenance;

/// The tokens the cache serves when a request shares `common` leading tokens with an earlier
/// one, for the automatic caches: nothing below the minimum, then (for `units`) the minimum
/// plus whole units, or (for an implicit prefix) all of it. Breakpoint caches are worked out
/// from their breakpoints instead (`runloop::blame`), so this gives them 0.
pub fn automatic_read(row: &Row, common: usize) -> usize {
    let rule = &row.cache;
    if common < rule.min_tokens {
        return 0;
    }
    match rule.growth {
        Growth::Units => {
            let unit = rule.unit_tokens.unwrap_or(1).max(1);
            rule.min_tokens + (common - rule.min_tokens) / unit * unit
        }
        Growth::ImplicitPrefix => common,
        Growth::Breakpoints => 0,
    }
}

/// One call's input for one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallCost {
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub uncached_tokens: usize,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub cache_read_tokens: usize,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub cache_write_tokens: usize,
    /// What the call's input costs with caching, in USD.
    pub cost_usd: f64,
    /// What it would cost with no caching at all.
    pub uncached_cost_usd: f64,
}

impl CallCost {
    /// Prices `total` input tokens of which `read` come from the cache and `write` are written
    /// to it (a write of tokens the cache serves is not counted twice).
    pub fn of(row: &Row, total: usize, read: usize, write: usize) -> CallCost {
        let read = read.min(total);
        let write = write.min(total - read);
        let uncached = total - read - write;
        let p = &row.prices_per_mtok;
        let per_token = |n: usize, price: f64| n as f64 * price / 1e6;
        let written = if row.cache.writes_charged {
            per_token(write, row.write_price())
        } else {
            per_token(write, p.input)
        };
        CallCost {
            uncached_tokens: uncached,
            cache_read_tokens: read,
            cache_write_tokens: if row.cache.writes_charged { write } else { 0 },
            cost_usd: round_usd(
                per_token(uncached, p.input) + per_token(read, p.cached_input) + written,
            ),
            uncached_cost_usd: round_usd(per_token(total, p.input)),
        }
    }
}

/// What a rendered call's input costs for each of `rows` as a first call (nothing cached yet):
/// the request body the row's provider is sent (`request::body`: its chat body, or its desk
/// adapter's) counted as that provider bills it (`billing::predict`, framing included), every
/// token at the row's input price; and, as text counts with the report's tokenizer, each
/// segment and each definition on its own. The one place the command line's render text, its
/// JSON report and the app get these figures from. Empty when the report counted no tokens.
///
/// A chat call sends messages, not segments: a segment's count is its own text, so the segments'
/// figures need not add up to the call's (the user's input sent in place of an empty reformat
/// prompt, for one, belongs to no segment, and framing belongs to none).
pub fn input_costs(report: &Report, sent: &Sent, rows: &[&Row]) -> Vec<InputCost> {
    let Some(encoding) = report.tokenizer else {
        return Vec::new();
    };
    let content_tokens: usize = match &report.messages {
        Some(messages) => messages.iter().filter_map(|m| m.tokens).sum(),
        None => report.segments.iter().filter_map(|s| s.tokens).sum(),
    };
    let definitions: Vec<(&str, usize)> = report
        .tools
        .iter()
        .filter_map(|t| Some((t.name.as_str(), t.definition.as_ref()?.tokens?)))
        .collect();
    let definition_tokens: usize = definitions.iter().map(|(_, n)| n).sum();
    rows.iter()
        .map(|row| {
            let first_call = |tokens: usize| CallCost::of(row, tokens, 0, 0).cost_usd;
            let provider = Provider::of_row(row);
            let text_provenance = provider.map_or(
                Provenance::Estimate {
                    bound_percent: TEXT_BOUND_PERCENT,
                },
                |p| p.text_provenance(encoding),
            );
            let (api, input_tokens, provenance) = match request::billed(report, sent, row) {
                // A provider the table does not know is priced as an OpenAI-compatible call,
                // whose count of its text is no better than an estimate.
                Ok(p) if provider.is_none() => (
                    Some(p.api),
                    p.input_tokens,
                    p.provenance.combine(&text_provenance),
                ),
                Ok(p) => (Some(p.api), p.input_tokens, p.provenance),
                Err(e) => {
                    tracing::warn!(model = %row.id, "the call's body cannot be counted: {e}");
                    (
                        None,
                        content_tokens + definition_tokens,
                        text_provenance.combine(&Provenance::Estimate {
                            bound_percent: TEXT_BOUND_PERCENT,
                        }),
                    )
                }
            };
            InputCost {
                model: row.id.clone(),
                api,
                usd_per_mtok_input: row.prices_per_mtok.input,
                input_tokens,
                provenance,
                content_tokens,
                definition_tokens,
                text_provenance,
                cost_usd: first_call(input_tokens),
                prices_read: row.read.clone(),
                price_sources: row.sources.clone(),
                segments: report
                    .segments
                    .iter()
                    .filter_map(|s| {
                        let tokens = s.tokens?;
                        Some(SegmentCost {
                            name: s.name,
                            tokens,
                            cost_usd: first_call(tokens),
                        })
                    })
                    .collect(),
                definitions: definitions
                    .iter()
                    .map(|&(tool, tokens)| DefinitionCost {
                        tool: tool.to_owned(),
                        tokens,
                        cost_usd: first_call(tokens),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The calls of a conversation for one model, and their sum.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelCost {
    /// The row's id (`anthropic/claude-sonnet-4-5`).
    pub model: String,
    /// The TTL cache writes are priced at, for a cache that charges them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
    pub calls: Vec<CallCost>,
    pub total: Total,
    /// How far the token figures (and so the costs) can be from what the row's provider bills:
    /// they are counted on the provider-neutral serialisation (docs/run-loop.md).
    pub provenance: Provenance,
    /// When the row's prices were read (`YYYY-MM-DD`), and the pages they were read from.
    pub prices_read: String,
    pub price_sources: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Total {
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub uncached_tokens: usize,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub cache_read_tokens: usize,
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub cache_write_tokens: usize,
    pub cost_usd: f64,
    pub uncached_cost_usd: f64,
    /// `uncached_cost_usd - cost_usd`: what caching saves (negative when writes cost more than
    /// the reads save).
    pub saving_usd: f64,
}

impl ModelCost {
    pub fn new(row: &Row, calls: Vec<CallCost>) -> ModelCost {
        let mut total = Total::default();
        let (mut cost, mut uncached) = (0.0, 0.0);
        for c in &calls {
            total.uncached_tokens += c.uncached_tokens;
            total.cache_read_tokens += c.cache_read_tokens;
            total.cache_write_tokens += c.cache_write_tokens;
            cost += c.cost_usd;
            uncached += c.uncached_cost_usd;
        }
        total.cost_usd = round_usd(cost);
        total.uncached_cost_usd = round_usd(uncached);
        total.saving_usd = round_usd(uncached - cost);
        ModelCost {
            model: row.id.clone(),
            ttl: row
                .cache
                .writes_charged
                .then(|| row.default_ttl().map(str::to_owned))
                .flatten(),
            calls,
            total,
            provenance: request::serialisation_provenance(row),
            prices_read: row.read.clone(),
            price_sources: row.sources.clone(),
        }
    }
}

/// What one tool's placement costs: the same calls with its chat text moved to the latest
/// segment a tool may write (where it no longer shifts the prefix before it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIf {
    pub tool: String,
    /// The chat segment it injects into now.
    pub from: String,
    pub to: &'static str,
    pub models: Vec<WhatIfCost>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIfCost {
    pub model: String,
    /// The conversation's input cost as recorded, and with the tool moved.
    pub cost_usd: f64,
    pub moved_cost_usd: f64,
    /// `cost_usd - moved_cost_usd`: what injecting where it does costs.
    pub placement_cost_usd: f64,
}

/// Dollars to a millionth of a cent: enough for one token of the cheapest model, and a JSON
/// report whose figures do not change with the order of a float sum's last bits.
pub fn round_usd(x: f64) -> f64 {
    (x * 1e8).round() / 1e8
}

#[cfg(test)]
mod tests;
