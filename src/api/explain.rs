//! Why a call reads nothing from the prompt cache, and what a change would save: the Run and
//! Conversation views' explanations (docs/app.md). A cause comes from one fixed vocabulary (the
//! one `verify` gives recorded misses, docs/diagnostics.md); here it is worked out from the
//! prediction alone: the first byte that differs from the previous call (`runloop::blame`), and
//! the tokens the two calls share with the cause they give, counted as the model's provider bills
//! the two requests by `verify`'s own prefix rule (`verify::prefix`).

use serde::{Deserialize, Serialize};

use super::error::u32_of;
use crate::pricing::cost::{round_usd, CallCost, ModelCost};
use crate::pricing::request::serialisation_provenance;
use crate::pricing::{Growth, Row};
use crate::report::DiagnosticCode;
use crate::usage::Provenance;
use crate::verify::prefix::Repeat;
use crate::verify::rule::{self, Changed, Facts};

/// Where a call first differs from the one before it (a rewrite, not an append).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Change {
    pub part: ChangedPart,
    /// Byte offset in the serialised request (docs/run-loop.md).
    pub byte: u32,
    /// Who wrote that byte, in words: `tool tf_notes`, `configured prompt 0`, `the user's input`.
    pub written_by: String,
    /// A tool that wrote it, when one did (the what-if that moves it names the same tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum ChangedPart {
    Tools,
    System,
    Messages,
}

/// What one call shares with the call before it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    /// Tokens of the common prefix (`None` for the first call).
    pub tokens: Option<usize>,
    /// The first difference, when the call rewrites the previous request rather than appending.
    pub change: Option<Change>,
    /// The 1-based message the common prefix ends with (where a breakpoint would catch it).
    pub last_message: usize,
}

/// What a call repeats of the one before, as its provider bills the two requests.
#[derive(Clone, Debug, PartialEq)]
pub struct Billed {
    pub repeat: Repeat,
    /// The request is the one the scene records as sent: its own breakpoints are the cache's,
    /// and `verify`'s cause stands. Otherwise the bill places breakpoints itself (docs/run-loop.md,
    /// TFRobot's placement), so the cause is worked out with them, on the billed tokens.
    pub as_sent: bool,
}

/// One call that reads nothing, for one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ZeroRead {
    /// 0-based.
    pub call: u32,
    pub model: String,
    /// The cause, a `miss_…` code as `verify` gives a recorded miss (docs/diagnostics.md);
    /// `null` for the first call, which has nothing cached to read and is no miss.
    pub cause: Option<DiagnosticCode>,
    /// The cause in a sentence.
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// Where a breakpoint or the injection should go; `null` when nothing is to be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Tokens the call shares with the one before: what a cache could have served. The
    /// Conversation view counts them as the provider bills the two requests (tools, system and
    /// framing included); the Run view on its own serialisation of the requests.
    pub shared_tokens: u32,
    /// How far `shared_tokens` can be from the billed figure.
    pub shared_provenance: Provenance,
    /// What the call would cost less with those tokens read from the cache.
    pub missed_usd: f64,
}

/// A change priced over the whole run or conversation for one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct WhatIfPrice {
    pub model: String,
    /// The change, in words.
    pub what: String,
    /// A tool moved: its name and the chat segments from and to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The input cost as it is, and with the change.
    pub cost_usd: f64,
    pub what_if_usd: f64,
    /// `cost_usd - what_if_usd`: what the change saves (negative: what it costs).
    pub saving_usd: f64,
}

/// The calls of `cost` (one model's bill) that read nothing, each with its cause. `shared[k]`
/// is call `k` against call `k - 1` as the byte blame places its first difference, `repeats[k]`
/// the same as the row's provider bills it (the tokens and the cause, `verify::prefix::repeats`;
/// without one, the blame's count of the chat messages and its cause); `moves` the what-ifs that
/// move a tool, to point a tool's rewrite at its fix.
pub fn zero_reads(
    row: &Row,
    cost: &ModelCost,
    shared: &[Shared],
    repeats: &[Option<Billed>],
    moves: &[WhatIfPrice],
) -> Vec<ZeroRead> {
    cost.calls
        .iter()
        .zip(shared)
        .enumerate()
        .filter(|(_, (c, _))| c.cache_read_tokens == 0)
        .map(|(k, (_, s))| {
            let billed = repeats.get(k).and_then(Option::as_ref);
            explain(row, k, s, billed, moves)
        })
        .collect()
}

fn explain(
    row: &Row,
    k: usize,
    s: &Shared,
    billed: Option<&Billed>,
    moves: &[WhatIfPrice],
) -> ZeroRead {
    let min = row.cache.min_tokens;
    let tokens = billed.map_or(s.tokens.unwrap_or(0), |b| b.repeat.tokens);
    let shared_provenance = match (billed, s.tokens) {
        (Some(b), _) => b.repeat.provenance.clone(),
        (None, Some(_)) => serialisation_provenance(row),
        (None, None) => Provenance::Exact,
    };
    let breakpoints = row.cache.growth == Growth::Breakpoints;
    let p = &row.prices_per_mtok;
    let mut out = ZeroRead {
        call: u32_of(k),
        model: row.id.clone(),
        cause: None,
        why: String::new(),
        change: s.change.clone(),
        fix: None,
        shared_tokens: u32_of(tokens),
        shared_provenance,
        missed_usd: round_usd(tokens as f64 * (p.input - p.cached_input) / 1e6),
    };
    let breakpoint_fix = || {
        format!(
            "a cache_control breakpoint at the end of message {} (the last message this call \
             repeats) would read those {tokens} tokens",
            s.last_message
        )
    };
    if s.tokens.is_none() {
        out.why = if breakpoints {
            "the first call: nothing is cached yet; its breakpoints write what the next call reads"
        } else {
            "the first call: nothing is cached yet; the provider caches it for the calls after"
        }
        .to_owned();
        return out;
    }
    // A breakpoint cache that reads nothing cached nothing the call could read: a change after
    // a prefix long enough to cache is one no breakpoint caught, not a change inside the cache.
    let inside = s
        .change
        .as_ref()
        .filter(|_| !(breakpoints && tokens >= min));
    let code = match billed {
        Some(b) if b.as_sent => b.repeat.cause,
        _ => rule::cause(&Facts {
            changed: inside.map(|c| changed_of(c.part)),
            repeated_tokens: tokens,
            min_tokens: min,
            no_breakpoint: breakpoints,
            ..Facts::default()
        }),
    };
    out.cause = Some(code);
    match (code, &s.change) {
        (
            DiagnosticCode::MissToolsChanged
            | DiagnosticCode::MissSystemChanged
            | DiagnosticCode::MissMessagesRewritten,
            Some(c),
        ) => {
            let part = match c.part {
                ChangedPart::Tools => "the tool definitions",
                ChangedPart::System => "the system message",
                ChangedPart::Messages => "a message the previous call sent",
            };
            out.why = format!(
                "{part} changed at byte {}, written by {}: the {tokens} tokens before it are all \
                 the calls share, under the {min} {} caches",
                c.byte, c.written_by, row.id
            );
            if tokens >= min {
                // An automatic cache that still read nothing: the rule says it should have.
                out.why = format!(
                    "{part} changed at byte {}, written by {}, after {tokens} shared tokens",
                    c.byte, c.written_by
                );
            }
            out.fix = Some(
                match moves.iter().find(|m| m.tool == c.tool && c.tool.is_some()) {
                    Some(m) => format!(
                        "move {}'s text from {} to {}: the what-if saves {} on {} over these calls",
                        m.tool.as_deref().unwrap_or_default(),
                        m.from.as_deref().unwrap_or_default(),
                        m.to.as_deref().unwrap_or_default(),
                        usd(m.saving_usd),
                        m.model
                    ),
                    None => format!(
                        "keep what {} writes the same from call to call, or put what changes \
                         after the stable prefix (at the end of the request)",
                        c.written_by
                    ),
                },
            );
        }
        (
            DiagnosticCode::MissToolsChanged
            | DiagnosticCode::MissSystemChanged
            | DiagnosticCode::MissMessagesRewritten
            | DiagnosticCode::MissByteInstability,
            _,
        ) => {
            out.why = format!(
                "the request differs from the previous one inside the {tokens} tokens its \
                 breakpoints cached ({}), so none of them is read",
                code.as_str()
            );
            out.fix = Some(
                "keep the request the same from call to call up to its last breakpoint, or put \
                 what changes after it"
                    .to_owned(),
            );
        }
        (DiagnosticCode::MissNoBreakpoint, Some(c)) => {
            out.why = format!(
                "the calls share {tokens} tokens before {} changed at byte {}, enough for {} \
                 (from {min}), but no breakpoint ends inside them",
                c.written_by, c.byte, row.id
            );
            out.fix = Some(format!(
                "a cache_control breakpoint on the last message that ends before byte {} would \
                 read the tokens up to it; keep what {} writes the same from call to call to \
                 read all {tokens}",
                c.byte, c.written_by
            ));
        }
        (DiagnosticCode::MissBelowMinimum, _) => {
            out.why = format!(
                "the prefix is intact, but the {tokens} shared tokens are under the {min} {} \
                 caches",
                row.id
            );
            out.fix = Some(format!(
                "nothing to move: a longer stable prefix (at least {min} tokens, e.g. more fixed \
                 instructions first) would be read"
            ));
        }
        (DiagnosticCode::MissNoBreakpoint, None) => {
            out.why = format!(
                "the call repeats the previous one's {tokens} tokens, enough for {} (from {min}), \
                 but no breakpoint ends after them",
                row.id
            );
            out.fix = Some(breakpoint_fix());
        }
        _ => {
            out.why = format!(
                "the call repeats {tokens} tokens, over the {min} {} caches: by its rule some are \
                 read; a hit is not guaranteed, so this one is the provider's",
                row.id
            );
        }
    }
    out
}

/// The calls priced with one more breakpoint, at the end of each request: what a breakpoint
/// cache reads when every call marks its own end (Anthropic's "automatic" placement).
pub fn with_closing_breakpoint(
    row: &Row,
    cost: &ModelCost,
    totals: &[usize],
    shared: &[Shared],
) -> Option<WhatIfPrice> {
    if row.cache.growth != Growth::Breakpoints {
        return None;
    }
    let min = row.cache.min_tokens;
    let calls: Vec<CallCost> = cost
        .calls
        .iter()
        .zip(totals)
        .zip(shared)
        .map(|((now, &total), s)| {
            // A breakpoint at the end of the previous request hits when it is repeated whole.
            let rolling = match (&s.change, s.tokens) {
                (None, Some(t)) if t >= min => t,
                _ => 0,
            };
            let read = now.cache_read_tokens.max(rolling);
            let write = if total >= min {
                total - read.min(total)
            } else {
                0
            };
            CallCost::of(row, total, read, write)
        })
        .collect();
    let then = ModelCost::new(row, calls);
    Some(WhatIfPrice {
        model: row.id.clone(),
        what: "a cache_control breakpoint at the end of every request".to_owned(),
        tool: None,
        from: None,
        to: None,
        cost_usd: cost.total.cost_usd,
        what_if_usd: then.total.cost_usd,
        saving_usd: round_usd(cost.total.cost_usd - then.total.cost_usd),
    })
}

fn changed_of(part: ChangedPart) -> Changed {
    match part {
        ChangedPart::Tools => Changed::Tools,
        ChangedPart::System => Changed::System,
        ChangedPart::Messages => Changed::Messages,
    }
}

/// Dollars in a sentence: enough decimals for a fraction of a cent.
fn usd(x: f64) -> String {
    if x.abs() >= 0.01 {
        format!("${x:.4}")
    } else {
        format!("${x:.6}")
    }
}

#[cfg(test)]
mod tests;
