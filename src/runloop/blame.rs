//! Cache blame across successive TFRobot calls: for each step, the first byte of the chat
//! request that differs from the previous step, which segment and source (configured prompt or
//! tool) it falls in, and what OpenAI's and Anthropic's prompt caches can reuse.

use serde::Serialize;

use super::cache::{
    self, Marker, Prefix, Serialised, ANTHROPIC_LOOKBACK_BLOCKS, ANTHROPIC_MIN_TOKENS,
};
use crate::pricing::cost::{automatic_read, CallCost, ModelCost, WhatIf};
use crate::pricing::{Growth, Row};
use crate::provider::image;
use crate::report::{Report, Source};
use crate::value::Value;

/// What `prompt-inspector cache --format json` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheReport {
    pub steps: Vec<StepOut>,
    /// Each chosen model's tokens and cost per call (input only), by its cache rule and prices
    /// (`pricing`, data/models.json).
    pub models: Vec<ModelCost>,
    /// For each tool that injects before the latest legal chat segment: the same calls with its
    /// text moved there (filled by `conversation::blame_files`, which can re-render the scenes).
    pub what_if: Vec<WhatIf>,
    /// The cache-safety lint's findings (docs/diagnostics.md), filled by
    /// `conversation::blame_files` like `what_if`.
    pub diagnostics: Vec<CallFinding>,
}

/// A finding of one call (`call` is 0-based; `scene` its label). Findings about the whole
/// conversation (`cache_below_minimum`) name no call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallFinding {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    #[serde(flatten)]
    pub diagnostic: crate::report::Diagnostic,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepOut {
    /// The step's label (its scene file name).
    pub scene: String,
    pub messages: usize,
    /// Bytes of the serialised request, each image part in it a marker naming the image.
    pub request_bytes: usize,
    pub request_tokens: usize,
    /// The image parts of the request, each one part priced by its size, never through the
    /// tokenizer.
    #[serde(skip_serializing_if = "is_zero")]
    pub images: usize,
    /// The share of `request_tokens` that is images, priced as
    /// [`REFERENCE_IMAGE_MODEL`](cache::REFERENCE_IMAGE_MODEL) prices them; each model's costs
    /// (`models`) price them by the model's own provider's rule.
    #[serde(skip_serializing_if = "is_zero")]
    pub image_tokens: usize,
    /// Where this request first differs from the previous step's (`null` for the first step, and
    /// when the two requests are identical).
    pub first_difference: Option<Difference>,
    /// Bytes and tokens shared with the previous step's request (`null` for the first step).
    pub common_prefix_bytes: Option<usize>,
    pub common_prefix_tokens: Option<usize>,
    pub openai: OpenAiOut,
    pub anthropic: AnthropicOut,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// Byte offset in the serialised request.
    pub byte: usize,
    /// Where that byte falls in this request (`null`: this request ends there).
    pub now: Option<Location>,
    /// Where it falls in the previous request (`null`: the previous request ended there, so this
    /// one only appends).
    pub before: Option<Location>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Location {
    /// Index of the message in the request; `null` in the tool definitions, which providers
    /// cache before the messages (`source` `definition`).
    pub message: Option<usize>,
    pub role: &'static str,
    pub segment: Option<&'static str>,
    /// `role` (the byte is in the `role + "\n"` header), `config` (a configured prompt, with
    /// `index`), `tool` (with `tool`), `message` (a recorded message of a stream, with `index` in
    /// its stream), `user_input` (the user's input as given) or `definition` (the tool
    /// definitions, with the `tool` whose definition it is).
    pub source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Byte offset inside the message's content (0 for the header).
    pub offset: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenAiOut {
    /// Tokens served from the automatic cache (1,024 then 128-token steps of the common prefix).
    pub cached_tokens: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnthropicOut {
    /// The `cache_control` breakpoints placed on this request (at most 4).
    pub breakpoints: Vec<Breakpoint>,
    /// Tokens read from the cache: the longest prefix written by an earlier step's breakpoint
    /// that this request repeats message for message.
    pub cached_tokens: usize,
    /// The earlier breakpoint that hit: `[step, message]` (0-based), when one did.
    pub hit: Option<[usize; 2]>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Breakpoint {
    /// The breakpoint sits on the last block of this message.
    pub message: usize,
    /// Why it is placed there.
    pub reason: &'static str,
    pub prefix_tokens: usize,
    /// `false` when the prefix is under 1,024 tokens: Anthropic does not cache it.
    pub cacheable: bool,
}

/// One message as the serialisation sees it, or the block of tool definitions before them.
struct Flat<'r> {
    role: &'static str,
    content: String,
    /// Its image parts' markers, their byte ranges in `content` ([`cache::Serialised`]).
    images: Vec<Marker>,
    segment: Option<&'static str>,
    report: &'r Report,
    /// The message's index in the request; `None` for the tool definitions.
    message: Option<usize>,
    /// For the definitions block: each tool's name and the byte its line ends at.
    definitions: Vec<(String, usize)>,
}

/// A call's chat request as the caches see it: the tool definitions first (`definitions`, each
/// tool's name and its neutral JSON, one per line), as the providers order a cached prefix (tools,
/// system, messages; data/models.json `order`), then the messages.
fn flatten<'r>(report: &'r Report, definitions: &[(String, String)]) -> Vec<Flat<'r>> {
    let mut out = Vec::with_capacity(report.messages.as_ref().map_or(0, Vec::len) + 1);
    if !definitions.is_empty() {
        let mut content = String::new();
        let mut ends = Vec::with_capacity(definitions.len());
        for (name, text) in definitions {
            content.push_str(text);
            content.push('\n');
            ends.push((name.clone(), content.len()));
        }
        out.push(Flat {
            role: "tools",
            content,
            images: Vec::new(),
            segment: None,
            report,
            message: None,
            definitions: ends,
        });
    }
    out.extend(report.messages.iter().flatten().enumerate().map(|(i, m)| {
        let (content, images) = match &m.content {
            Value::Str(s) => (s.to_string(), Vec::new()),
            Value::List(parts) => parts_json(parts),
            // Any other content counts as its JSON.
            other => (serde_json::to_string(other).unwrap_or_default(), Vec::new()),
        };
        Flat {
            role: m.role,
            content,
            images,
            segment: m.segment,
            report,
            message: Some(i),
            definitions: Vec::new(),
        }
    }));
    out
}

/// A content of parts as its compact JSON, except that each image part is written as the marker
/// `{"type":"image","image":"<identity>"}` (`provider::image::identity`: a hash of its bytes), never
/// its data; with the markers' byte ranges and the images' pixel sizes
/// (`provider::image::pixel_size`).
fn parts_json(parts: &[Value]) -> (String, Vec<Marker>) {
    let mut out = String::from("[");
    let mut images = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if image::is_image_part(part) {
            let start = out.len();
            out.push_str("{\"type\":\"image\",\"image\":");
            out.push_str(&serde_json::to_string(&image::identity(part)).unwrap_or_default());
            out.push('}');
            images.push(Marker {
                range: start..out.len(),
                size: image::pixel_size(part),
            });
        } else {
            out.push_str(&serde_json::to_string(part).unwrap_or_default());
        }
    }
    out.push(']');
    (out, images)
}

fn serialize(flat: &[Flat]) -> Serialised {
    let mut out = Serialised::default();
    for m in flat {
        out.push(m.role, &m.content, &m.images);
    }
    out
}

/// Where byte `at` of the serialisation falls; `None` past the end.
fn locate(flat: &[Flat], at: usize) -> Option<Location> {
    let mut start = 0;
    for (i, m) in flat.iter().enumerate() {
        let header = m.role.len() + 1;
        let end = start + header + m.content.len();
        if at < end {
            let mut loc = Location {
                message: m.message,
                role: m.role,
                segment: m.segment,
                source: "role",
                tool: None,
                index: None,
                offset: 0,
            };
            if at >= start + header {
                loc.offset = at - start - header;
                source_of(flat, i, &mut loc);
            }
            return Some(loc);
        }
        start = end;
    }
    None
}

/// Fills the source of a content byte: the piece of the segment it falls in, or the message of a
/// stream.
fn source_of(flat: &[Flat], i: usize, loc: &mut Location) {
    let m = &flat[i];
    if m.message.is_none() {
        loc.source = "definition";
        loc.tool = m
            .definitions
            .iter()
            .find(|(_, end)| loc.offset < *end)
            .map(|(name, _)| name.clone());
        return;
    }
    let seg = m
        .segment
        .and_then(|name| m.report.segments.iter().find(|s| s.name == name));
    match seg {
        Some(seg) if seg.messages.is_some() => {
            loc.source = "message";
            loc.index = Some(flat[..i].iter().filter(|p| p.segment == m.segment).count());
        }
        Some(seg) if !seg.pieces.is_empty() => {
            // A byte of the `\n` joining two pieces belongs to the piece after it.
            let piece = seg
                .pieces
                .iter()
                .find(|p| loc.offset < p.range[1])
                .or(seg.pieces.last());
            if let Some(p) = piece {
                match p.source {
                    Source::Config => {
                        loc.source = "config";
                        loc.index = p.index;
                    }
                    Source::Tool => {
                        loc.source = "tool";
                        loc.tool.clone_from(&p.tool);
                    }
                }
            }
        }
        _ => loc.source = "user_input",
    }
}

/// Breakpoints for a TFRobot request, at most 4, chosen in this order of priority and then
/// sorted by position:
/// 1. the end of the leading system message: the configured instructions, the same every call
///    as long as no tool injects into `system_msg_prompt`;
/// 2. the end of the user's input: the next turn repeats everything up to here as its history
///    (then appends the reply), so this is the prefix the next call can read back;
/// 3. the end of the intermediate messages: the next call of the same turn repeats them;
/// 4. the end of the request: an identical retry reads all of it;
/// 5. the end of the recorded conversation, when a slot is left.
fn place_breakpoints(flat: &[Flat], prefix_tokens: &dyn Fn(usize) -> usize) -> Vec<Breakpoint> {
    place_breakpoints_up_to(
        flat,
        prefix_tokens,
        cache::ANTHROPIC_MAX_BREAKPOINTS,
        ANTHROPIC_MIN_TOKENS,
    )
}

fn place_breakpoints_up_to(
    flat: &[Flat],
    prefix_tokens: &dyn Fn(usize) -> usize,
    max: usize,
    min_tokens: usize,
) -> Vec<Breakpoint> {
    let last_of = |seg: &str| flat.iter().rposition(|m| m.segment == Some(seg));
    let candidates = [
        (
            flat.iter()
                .position(|m| m.message.is_some())
                .filter(|&i| flat[i].segment == Some("system_msg_prompt")),
            "end of the system message (configured instructions)",
        ),
        (
            last_of("reformat_input_prompt"),
            "end of the user's input (the next turn's history ends here)",
        ),
        (
            last_of("intermediate_msgs"),
            "end of the intermediate messages (the next call of this turn repeats them)",
        ),
        (
            flat.len().checked_sub(1),
            "end of the request (an identical retry)",
        ),
        (
            last_of("conversation_msgs"),
            "end of the recorded conversation",
        ),
    ];
    let mut at: Vec<(usize, &'static str)> = Vec::new();
    for (pos, reason) in candidates {
        if let Some(i) = pos {
            if at.len() < max && !at.iter().any(|(j, _)| *j == i) {
                at.push((i, reason));
            }
        }
    }
    at.sort_by_key(|(i, _)| *i);
    at.into_iter()
        .map(|(message, reason)| {
            let tokens = prefix_tokens(message + 1);
            Breakpoint {
                message,
                reason,
                prefix_tokens: tokens,
                cacheable: tokens >= min_tokens,
            }
        })
        .collect()
}

/// Blames each step against the previous one and prices the calls for each of `models`. `steps`
/// are (label, chat report) in call order; `definitions`, per step, the tool definitions its
/// request carries (name and neutral JSON, `provider::ToolDef::text`), empty when none.
pub fn blame(
    steps: &[(String, Report)],
    definitions: &[Vec<(String, String)>],
    models: &[&Row],
) -> CacheReport {
    let flats: Vec<Vec<Flat>> = steps
        .iter()
        .enumerate()
        .map(|(k, (_, r))| flatten(r, definitions.get(k).map_or(&[], Vec::as_slice)))
        .collect();
    let mut out: Vec<StepOut> = Vec::with_capacity(steps.len());
    // What each model's costs need of each step, its images repriced for the model.
    let mut shapes: Vec<StepShape> = Vec::with_capacity(steps.len());
    for (k, ((label, _), flat)) in steps.iter().zip(&flats).enumerate() {
        let text = serialize(flat);
        let reference = text.reference_image_tokens();
        // Where each message ends in `text`: the first n messages are `text`'s first ends[n] bytes.
        let ends: Vec<usize> = std::iter::once(0)
            .chain(flat.iter().scan(0, |end, m| {
                *end += m.role.len() + 1 + m.content.len();
                Some(*end)
            }))
            .collect();
        // The first n messages as a prefix, for the n breakpoints look at.
        let memo = std::cell::RefCell::new(std::collections::BTreeMap::new());
        let prefix_tokens = |n: usize| {
            memo.borrow_mut()
                .entry(n)
                .or_insert_with(|| text.prefix(ends[n.min(flat.len())]))
                .tokens(&reference)
        };
        let breakpoints = place_breakpoints(flat, &prefix_tokens);
        if models.iter().any(|m| m.cache.growth == Growth::Breakpoints) {
            // Every candidate position's prefix, for the models' own numbers of breakpoints.
            place_breakpoints_up_to(flat, &prefix_tokens, usize::MAX, 0);
        }
        let (mut difference, mut common_bytes, mut common, mut common_tokens, mut openai) =
            (None, None, None, None, 0);
        if k > 0 {
            let before = serialize(&flats[k - 1]);
            let bytes = cache::common_prefix_bytes(&before.text, &text.text);
            let prefix = text.prefix(bytes);
            let tokens = prefix.tokens(&reference);
            common = Some(prefix);
            if before.text != text.text {
                difference = Some(Difference {
                    byte: bytes,
                    now: locate(flat, bytes),
                    before: locate(&flats[k - 1], bytes),
                });
            }
            common_bytes = Some(bytes);
            common_tokens = Some(tokens);
            openai = cache::openai_cached_tokens(tokens);
        }
        let (cached_tokens, hit) = anthropic_hit(&out, &flats, k, flat, &breakpoints);
        let whole = text.whole();
        shapes.push(StepShape {
            whole,
            common,
            prefixes: memo.into_inner(),
            images: text.images,
        });
        out.push(StepOut {
            scene: label.clone(),
            messages: flat.iter().filter(|m| m.message.is_some()).count(),
            request_bytes: text.text.len(),
            request_tokens: whole.tokens(&reference),
            images: reference.len(),
            image_tokens: reference.iter().sum(),
            first_difference: difference,
            common_prefix_bytes: common_bytes,
            common_prefix_tokens: common_tokens,
            openai: OpenAiOut {
                cached_tokens: openai,
            },
            anthropic: AnthropicOut {
                breakpoints,
                cached_tokens,
                hit,
            },
        });
    }
    let models = models
        .iter()
        .map(|row| price_calls(row, &flats, &shapes))
        .collect();
    // Breakpoints were placed on the serialisation's items; the report numbers request messages,
    // which come after the definitions block when there is one.
    let shift = |flat: &[Flat]| usize::from(flat.first().is_some_and(|m| m.message.is_none()));
    for (k, step) in out.iter_mut().enumerate() {
        let by = shift(&flats[k]);
        for bp in &mut step.anthropic.breakpoints {
            bp.message = bp.message.saturating_sub(by);
        }
        if let Some([j, m]) = step.anthropic.hit.as_mut() {
            *m = m.saturating_sub(shift(&flats[*j]));
        }
    }
    CacheReport {
        steps: out,
        models,
        what_if: Vec::new(),
        diagnostics: Vec::new(),
    }
}

/// What a model's costs need of a step: its request, the prefix it shares with the step before,
/// and its first n messages (for the breakpoints), as text tokens and images, and its images, so
/// that each model prices them by its own provider's rule.
struct StepShape {
    whole: Prefix,
    common: Option<Prefix>,
    prefixes: std::collections::BTreeMap<usize, Prefix>,
    images: Vec<Marker>,
}

/// One model's tokens and cost per step, its images priced by its provider's rule
/// (`cache::image_model`). Automatic caches read what the shared prefix gives them; a breakpoint
/// cache reads the longest prefix an earlier call wrote at one of its breakpoints (as
/// [`anthropic_hit`], with the row's minimum, number of breakpoints and lookback), and writes, at
/// this call's breakpoints, what it did not read.
fn price_calls(row: &Row, flats: &[Vec<Flat>], steps: &[StepShape]) -> ModelCost {
    let rule = &row.cache;
    let (api, model) = cache::image_model(row);
    let mut written: Vec<Vec<Breakpoint>> = Vec::with_capacity(steps.len());
    let mut calls = Vec::with_capacity(steps.len());
    for (k, step) in steps.iter().enumerate() {
        let images = cache::image_tokens(&step.images, api, model);
        let total = step.whole.tokens(&images);
        let (read, write) = match rule.growth {
            Growth::Breakpoints => {
                let tokens_at = |n: usize| step.prefixes.get(&n).map_or(0, |p| p.tokens(&images));
                let now = place_breakpoints_up_to(
                    &flats[k],
                    &tokens_at,
                    rule.max_breakpoints.unwrap_or(1),
                    rule.min_tokens,
                );
                let lookback = rule.lookback_blocks.unwrap_or(ANTHROPIC_LOOKBACK_BLOCKS);
                let read = breakpoint_read(&written, flats, k, &now, lookback);
                let longest = now
                    .iter()
                    .filter(|b| b.cacheable)
                    .map(|b| b.prefix_tokens)
                    .max()
                    .unwrap_or(0);
                written.push(now);
                (read, longest.saturating_sub(read))
            }
            Growth::Units | Growth::ImplicitPrefix => {
                let read = step
                    .common
                    .map_or(0, |common| automatic_read(row, common.tokens(&images)));
                let write = if rule.writes_charged {
                    automatic_read(row, total).saturating_sub(read)
                } else {
                    0
                };
                (read, write)
            }
        };
        calls.push(CallCost::of(row, total, read, write));
    }
    ModelCost::new(row, calls)
}

/// The longest prefix written at an earlier call's cacheable breakpoint that call `k` repeats
/// message for message and reaches back to from one of its own breakpoints.
fn breakpoint_read(
    written: &[Vec<Breakpoint>],
    flats: &[Vec<Flat>],
    k: usize,
    now: &[Breakpoint],
    lookback: usize,
) -> usize {
    let same = |a: &Flat, b: &Flat| a.role == b.role && a.content == b.content;
    let flat = &flats[k];
    let mut best = 0;
    for (j, bps) in written.iter().enumerate().take(k) {
        for bp in bps.iter().filter(|b| b.cacheable) {
            let n = bp.message + 1;
            let repeated =
                n <= flat.len() && flats[j][..n].iter().zip(flat).all(|(a, b)| same(a, b));
            let reached = now
                .iter()
                .any(|b| b.message >= bp.message && b.message - bp.message <= lookback);
            if repeated && reached {
                best = best.max(bp.prefix_tokens);
            }
        }
    }
    best
}

/// The longest prefix cached by an earlier step's breakpoint that step `k` repeats message for
/// message, and that one of step `k`'s own breakpoints reaches back to (within the lookback).
fn anthropic_hit(
    earlier: &[StepOut],
    flats: &[Vec<Flat>],
    k: usize,
    flat: &[Flat],
    now: &[Breakpoint],
) -> (usize, Option<[usize; 2]>) {
    let same = |a: &Flat, b: &Flat| a.role == b.role && a.content == b.content;
    let mut best = (0, None);
    for (j, step) in earlier.iter().enumerate().take(k) {
        for bp in step.anthropic.breakpoints.iter().filter(|b| b.cacheable) {
            let n = bp.message + 1;
            let repeated =
                n <= flat.len() && flats[j][..n].iter().zip(flat).all(|(a, b)| same(a, b));
            let reached = now.iter().any(|b| {
                b.message >= bp.message && b.message - bp.message <= ANTHROPIC_LOOKBACK_BLOCKS
            });
            if repeated && reached && bp.prefix_tokens > best.0 {
                best = (bp.prefix_tokens, Some([j, bp.message]));
            }
        }
    }
    best
}
