//! What each call of a conversation should read from and write to the provider's prompt cache,
//! given the calls before it, by the cache rule of its models-table row (data/models.json):
//!
//! - `breakpoints` (Anthropic, OpenAI's explicit mode): a call writes the prefix up to each of its
//!   own breakpoints that reaches the minimum (`cache_control`, `prompt_cache_breakpoint`, or a
//!   top-level `cache_control`, which marks the last block); it reads the longest prefix an
//!   earlier call wrote that it repeats up to one of its breakpoints, looked for at that
//!   breakpoint and up to `lookback_blocks` blocks before it, while the entry's TTL (refreshed by
//!   each read) has not run out. The figure is exact up to the token counts.
//! - `units` and `implicit_prefix` (OpenAI's and Gemini's automatic caches): the longest prefix
//!   shared with an earlier call of the same model, from the minimum on (in whole units for
//!   `units`); a hit is not guaranteed, so the prediction is the range from 0 to that.
//!
//! Prefixes are compared in the provider's canonical form (`BilledPart.canonical`), never as the
//! JSON bytes: a user turn sent as a string and later as one text block is the same prefix when
//! the provider bills it as one.

use serde_json::Value as Json;

use super::time;
use super::Call;
use crate::billing::{BilledPart, PartKind, Prediction};
use crate::pricing::cost::automatic_read;
use crate::pricing::{Growth, Row};
use crate::tokens::{self, Encoding};

/// How long an automatic cache holds a prefix at most when its TTL is not a duration: OpenAI
/// keeps an in-memory prefix for 5 to 10 idle minutes and never more than an hour.
const AUTOMATIC_MAX_SECONDS: f64 = 3_600.0;

/// A call ready to be compared: its prediction's parts as cache blocks.
pub struct Prepared<'a> {
    pub call: &'a Call,
    pub row: &'a Row,
    pub prediction: &'a Prediction,
    /// The parts a later call can share, in cache-prefix order: every part but the framing at
    /// the very end (reply priming), which is never part of a cached prefix.
    pub blocks: Vec<Block<'a>>,
    /// When the call was made, in seconds, when recorded.
    pub time: Option<f64>,
}

/// One part of a call's prefix.
pub struct Block<'a> {
    pub part: &'a BilledPart,
    /// Tokens of the request up to and including this part.
    pub end: usize,
    /// The request marks a breakpoint here, with this TTL.
    pub breakpoint: Option<String>,
}

impl<'a> Prepared<'a> {
    pub fn new(call: &'a Call, row: &'a Row, prediction: &'a Prediction) -> Prepared<'a> {
        let parts = &prediction.parts;
        let last = parts
            .iter()
            .rposition(|p| p.kind != PartKind::Framing)
            .map_or(0, |i| i + 1);
        let default_ttl = row.default_ttl().unwrap_or("5m");
        let mut end = 0;
        let mut blocks: Vec<Block<'a>> = parts[..last]
            .iter()
            .map(|part| {
                end += part.tokens;
                Block {
                    part,
                    end,
                    breakpoint: part
                        .breakpoint
                        .clone()
                        .or_else(|| marked(&call.body, &part.pointer, default_ttl)),
                }
            })
            .collect();
        // A top-level `cache_control` (Anthropic's automatic caching) marks the last block.
        if let Some(cc) = call.body.get("cache_control").filter(|v| v.is_object()) {
            if let Some(b) = blocks
                .iter_mut()
                .rev()
                .find(|b| b.part.kind != PartKind::Framing)
            {
                b.breakpoint.get_or_insert_with(|| ttl_of(cc, default_ttl));
            }
        }
        Prepared {
            call,
            row,
            prediction,
            blocks,
            time: call.timestamp.as_deref().and_then(time::seconds),
        }
    }

    /// Tokens up to and including block `k` (0 before the first).
    pub fn end_of(&self, blocks: usize) -> usize {
        blocks
            .checked_sub(1)
            .and_then(|k| self.blocks.get(k))
            .map_or(0, |b| b.end)
    }
}

/// The breakpoint the request marks at the end of the part at `pointer`, when it does: a
/// `cache_control` on the part itself, on its last marked content block or system block, or
/// OpenAI's `prompt_cache_breakpoint` on a content part (a marker inside a part counts at the
/// part's end).
fn marked(body: &Json, pointer: &str, default_ttl: &str) -> Option<String> {
    let value = if pointer.is_empty() {
        return None;
    } else {
        body.pointer(pointer)?
    };
    let explicit_ttl = || {
        body.pointer("/prompt_cache_options/ttl")
            .and_then(Json::as_str)
            .unwrap_or(default_ttl)
            .to_owned()
    };
    if let Some(cc) = value.get("cache_control").filter(|v| v.is_object()) {
        return Some(ttl_of(cc, default_ttl));
    }
    if value.get("prompt_cache_breakpoint").is_some() {
        return Some(explicit_ttl());
    }
    let blocks = match value {
        Json::Array(items) => Some(items),
        _ => value.get("content").and_then(Json::as_array),
    }?;
    blocks.iter().rev().find_map(|b| {
        if let Some(cc) = b.get("cache_control").filter(|v| v.is_object()) {
            return Some(ttl_of(cc, default_ttl));
        }
        b.get("prompt_cache_breakpoint").map(|_| explicit_ttl())
    })
}

fn ttl_of(cache_control: &Json, default_ttl: &str) -> String {
    cache_control
        .get("ttl")
        .and_then(Json::as_str)
        .unwrap_or(default_ttl)
        .to_owned()
}

/// What a call should read and write.
#[derive(Clone, Debug, PartialEq)]
pub struct Predicted {
    /// The read is between these (equal for explicit breakpoints).
    pub read_low: usize,
    pub read_high: usize,
    /// Tokens written, by TTL.
    pub write: Vec<(String, usize)>,
    /// The earlier call (index in the conversation) whose prefix the read comes from.
    pub from: Option<usize>,
    /// Whether the read is a range because the cache is automatic.
    pub automatic: bool,
}

impl Predicted {
    pub fn write_total(&self) -> usize {
        self.write.iter().map(|(_, n)| n).sum()
    }
}

/// A prefix an earlier call left in a breakpoint cache.
struct Entry {
    call: usize,
    /// The last block of the prefix.
    upto: usize,
    expires: Option<f64>,
}

/// The cache of one conversation as the calls go by.
#[derive(Default)]
pub struct Simulation {
    entries: Vec<Entry>,
}

impl Simulation {
    /// Predicts call `i` of `calls` (each earlier one already predicted) and records what it
    /// leaves in the cache.
    pub fn step(&mut self, calls: &[Option<Prepared<'_>>], i: usize) -> Option<Predicted> {
        let now = calls.get(i)?.as_ref()?;
        match now.row.cache.growth {
            Growth::Breakpoints => Some(self.explicit(calls, i, now)),
            Growth::Units | Growth::ImplicitPrefix => Some(automatic(calls, i, now)),
        }
    }

    fn explicit(
        &mut self,
        calls: &[Option<Prepared<'_>>],
        i: usize,
        now: &Prepared<'_>,
    ) -> Predicted {
        let rule = &now.row.cache;
        let lookback = rule.lookback_blocks.unwrap_or(1).max(1);
        let breakpoints: Vec<usize> = (0..now.blocks.len())
            .filter(|&k| now.blocks[k].breakpoint.is_some())
            .collect();
        let mut read = 0;
        let mut from = None;
        let mut hit = None;
        for &b in &breakpoints {
            for k in (b.saturating_sub(lookback - 1)..=b).rev() {
                let found = self.entries.iter().position(|e| {
                    e.upto == k
                        && e.expires.is_none_or(|t| now.time.is_none_or(|n| n <= t))
                        && calls[e.call].as_ref().is_some_and(|before| {
                            same_model(before, now) && same_blocks(before, now, k + 1)
                        })
                });
                if let Some(e) = found {
                    if now.blocks[k].end > read {
                        read = now.blocks[k].end;
                        from = Some(self.entries[e].call);
                        hit = Some(e);
                    }
                    break;
                }
            }
        }
        if let (Some(e), Some(t)) = (hit, now.time) {
            let entry = &mut self.entries[e];
            let ttl = entry_ttl(calls, entry);
            entry.expires = ttl.map(|s| t + s);
        }
        let mut write = Vec::new();
        let mut written_to = read;
        for &b in &breakpoints {
            let block = &now.blocks[b];
            if block.end < rule.min_tokens || block.end <= read {
                continue;
            }
            let ttl = block.breakpoint.clone().unwrap_or_default();
            if block.end > written_to {
                write.push((ttl.clone(), block.end - written_to));
                written_to = block.end;
            }
            let expires = now.time.zip(time::ttl_seconds(&ttl)).map(|(t, s)| t + s);
            self.entries.push(Entry {
                call: i,
                upto: b,
                expires,
            });
        }
        Predicted {
            read_low: read,
            read_high: read,
            write: merge(write),
            from,
            automatic: false,
        }
    }
}

/// The TTL of the breakpoint that wrote `entry`, in seconds.
fn entry_ttl(calls: &[Option<Prepared<'_>>], entry: &Entry) -> Option<f64> {
    let writer = calls.get(entry.call)?.as_ref()?;
    let ttl = writer.blocks.get(entry.upto)?.breakpoint.as_deref()?;
    time::ttl_seconds(ttl)
}

/// Writes of one TTL added up, in the order their TTLs first come.
fn merge(writes: Vec<(String, usize)>) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (ttl, n) in writes {
        match out.iter_mut().find(|(t, _)| *t == ttl) {
            Some((_, m)) => *m += n,
            None => out.push((ttl, n)),
        }
    }
    out
}

/// An automatic cache: from 0 to the longest prefix shared with an earlier call that has not
/// expired, as the row's rule rounds it.
fn automatic(calls: &[Option<Prepared<'_>>], i: usize, now: &Prepared<'_>) -> Predicted {
    let lifetime = now
        .row
        .default_ttl()
        .and_then(time::ttl_seconds)
        .unwrap_or(AUTOMATIC_MAX_SECONDS);
    let mut best = 0;
    let mut from = None;
    for (j, before) in calls[..i].iter().enumerate() {
        let Some(before) = before else { continue };
        if !same_model(before, now) {
            continue;
        }
        if let (Some(t0), Some(t1)) = (before.time, now.time) {
            if t1 - t0 > lifetime {
                continue;
            }
        }
        let read = automatic_read(now.row, shared(before, now, true).tokens);
        if read > best {
            best = read;
            from = Some(j);
        }
    }
    Predicted {
        read_low: 0,
        read_high: best,
        write: Vec::new(),
        from,
        automatic: true,
    }
}

/// Two calls are cached for the same model.
pub fn same_model(a: &Prepared<'_>, b: &Prepared<'_>) -> bool {
    a.call.model == b.call.model && a.row.id == b.row.id
}

/// The first `n` blocks of both calls are the same.
fn same_blocks(a: &Prepared<'_>, b: &Prepared<'_>, n: usize) -> bool {
    a.blocks.len() >= n
        && b.blocks.len() >= n
        && a.blocks[..n]
            .iter()
            .zip(&b.blocks[..n])
            .all(|(x, y)| x.part.canonical == y.part.canonical)
}

/// The prefix `now` shares with `before`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shared {
    /// Leading blocks that are the same.
    pub blocks: usize,
    /// Tokens of `now` they hold, with the common start of the first block that differs when
    /// `partial` was asked for (automatic caches match tokens, not blocks).
    pub tokens: usize,
}

/// What `now` shares with `before`. With `partial`, also the tokens of the common start of the
/// first differing block, and, when `now` repeats all of `before` and goes on with `before`'s
/// own output (its assistant turn, reasoning and tool calls, as the provider generated them into
/// the same cache), those tokens up to `before`'s billed output.
pub fn shared(before: &Prepared<'_>, now: &Prepared<'_>, partial: bool) -> Shared {
    let n = before
        .blocks
        .iter()
        .zip(&now.blocks)
        .take_while(|(x, y)| x.part.canonical == y.part.canonical)
        .count();
    let mut tokens = now.end_of(n);
    if !partial {
        return Shared { blocks: n, tokens };
    }
    match (before.blocks.get(n), now.blocks.get(n)) {
        (Some(x), Some(y)) => tokens += partial_tokens(&x.part.canonical, y.part),
        (None, Some(_)) => {
            let output: usize = now.blocks[n..]
                .iter()
                .take_while(|b| is_model_output(&now.call.body, b.part))
                .map(|b| b.part.tokens)
                .sum();
            let billed = usize::try_from(before.call.usage.output).unwrap_or(usize::MAX);
            tokens += output.min(billed);
        }
        _ => {}
    }
    Shared { blocks: n, tokens }
}

/// The tokens of `now`'s part that its common start with `before` holds: that start's share of
/// the part's text, in proportion to the part's billed tokens, less the one token at the border.
fn partial_tokens(before: &str, now: &BilledPart) -> usize {
    let common = super::diff::common_prefix(before, &now.canonical);
    if common == 0 {
        return 0;
    }
    let whole = tokens::count(&now.canonical, Encoding::O200kBase);
    if whole == 0 {
        return 0;
    }
    let start = tokens::count(&now.canonical[..common], Encoding::O200kBase);
    (now.tokens * start / whole).saturating_sub(1)
}

/// Whether a part is what a model generated: an assistant (or Gemini `model`) turn, a
/// reasoning item, a tool call item.
fn is_model_output(body: &Json, part: &BilledPart) -> bool {
    if part.kind == PartKind::Reasoning {
        return true;
    }
    if part.kind != PartKind::Message || part.pointer.is_empty() {
        return false;
    }
    let Some(value) = body.pointer(&part.pointer) else {
        return false;
    };
    let role = value.get("role").and_then(Json::as_str);
    let kind = value.get("type").and_then(Json::as_str);
    matches!(role, Some("assistant" | "model"))
        || matches!(
            kind,
            Some("function_call" | "reasoning" | "custom_tool_call" | "tool_call")
        )
}
