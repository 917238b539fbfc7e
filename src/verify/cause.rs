//! One conversation verified: each call's figures, and the cause of each recorded cache miss (a
//! call after the first that reads nothing, or less than the call before it left in the cache)
//! and of each cache figure the prediction does not agree with.
//!
//! A miss is explained against the call before it, first by what the request changed inside the
//! prefix that call had cached (model, tools, system, messages, or the same value as other
//! bytes), then by what kept the prefix from being cached or read (under the minimum, no
//! breakpoint), then by time (the TTL, from the recorded timestamps); what is left is the
//! provider's side.

use serde_json::Value as Json;

use super::cache::{self, Predicted, Prepared, Simulation};
use super::diff::{first_difference, same_value};
use super::price::{self, Priced};
use super::report::{
    n32, CallResult, CauseOut, ConversationResult, CostFigure, Difference, InputFigure, ReadFigure,
    Totals, TtlTokens, WriteFigure,
};
use super::{time, Call};
use crate::billing::{self, PartKind, Prediction};
use crate::pricing::cost::automatic_read;
use crate::pricing::minimum::thousands;
use crate::pricing::Growth;
use crate::report::DiagnosticCode;
use crate::usage::Provenance;

/// How far a predicted cache read (scaled to the billed input) may be from the billed one and
/// still agree, in percent of the billed read.
const AGREEMENT_PERCENT: f64 = 2.0;

/// The most the top of an automatic cache's predicted range may be off and still agree, in
/// percent of the billed read.
const MAX_RANGE_SLACK_PERCENT: f64 = 10.0;

/// Verifies one conversation's calls (in order), each priced with its row.
pub fn conversation(name: String, calls: &[&Call], priced: &[Priced<'_>]) -> ConversationResult {
    let predictions: Vec<Result<Prediction, billing::BillingError>> = calls
        .iter()
        .map(|c| billing::predict(c.api, &c.model, &c.body))
        .collect();
    let prepared: Vec<Option<Prepared<'_>>> = calls
        .iter()
        .zip(priced)
        .zip(&predictions)
        .map(|((c, p), pred)| pred.as_ref().ok().map(|pred| Prepared::new(c, p.row, pred)))
        .collect();
    let mut simulation = Simulation::default();
    let mut out = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let predicted = simulation.step(&prepared, i);
        let error = predictions[i]
            .as_ref()
            .err()
            .map(|e| format!("the request cannot be predicted: /request{e}"));
        out.push(call_result(
            i,
            call,
            &priced[i],
            &prepared,
            predicted.as_ref(),
            error,
        ));
    }
    let totals = totals(&out);
    ConversationResult {
        name,
        calls: out,
        totals,
    }
}

fn call_result(
    i: usize,
    call: &Call,
    priced: &Priced<'_>,
    prepared: &[Option<Prepared<'_>>],
    predicted: Option<&Predicted>,
    error: Option<String>,
) -> CallResult {
    let row = priced.row;
    let billed_cost = price::billed_cost(row, &call.usage);
    let mut result = CallResult {
        label: call.label.clone(),
        call: n32(i + 1),
        api: call.api,
        model: call.model.clone(),
        priced_as: row.id.clone(),
        price_note: priced.fallback.clone(),
        billed: call.usage.clone(),
        input: None,
        cache_read: None,
        cache_write: None,
        cost: CostFigure {
            predicted_low_usd: None,
            predicted_high_usd: None,
            billed_usd: billed_cost,
            difference_usd: None,
        },
        causes: Vec::new(),
        error,
    };
    let (Some(now), Some(predicted)) = (prepared[i].as_ref(), predicted) else {
        return result;
    };
    let provenance = &now.prediction.provenance;
    let total = now.prediction.input_tokens as u64;
    let billed = call.usage.input_total;
    let difference = total as i64 - billed as i64;
    let error_percent = if billed == 0 {
        if total == 0 {
            0.0
        } else {
            100.0
        }
    } else {
        difference as f64 * 100.0 / billed as f64
    };
    result.input = Some(InputFigure {
        predicted: n32(total),
        billed: n32(billed),
        difference: i32::try_from(difference).unwrap_or(if difference < 0 {
            i32::MIN
        } else {
            i32::MAX
        }),
        error_percent,
        provenance: provenance.clone(),
        within_bound: error_percent.abs() <= provenance.bound() + 1e-9,
    });
    let scale = count_scale(billed, now.prediction.input_tokens);
    let agrees = agrees(predicted, call.usage.cache_read, scale, provenance);
    result.cache_read = Some(ReadFigure {
        predicted_low: n32(predicted.read_low),
        predicted_high: n32(predicted.read_high),
        billed: n32(call.usage.cache_read),
        agrees,
        automatic: predicted.automatic,
        from_call: predicted.from.map(|j| n32(j + 1)),
        reported: call.cache_reported,
        provenance: provenance.clone(),
    });
    let ttl = predicted
        .write
        .first()
        .map(|(t, _)| t.clone())
        .or_else(|| row.default_ttl().map(str::to_owned))
        .unwrap_or_default();
    let write = predicted.write_total() as u64;
    result.cache_write = Some(WriteFigure {
        predicted: n32(write),
        billed: n32(call.usage.cache_write_total()),
        predicted_by_ttl: predicted
            .write
            .iter()
            .map(|(ttl, n)| TtlTokens {
                ttl: ttl.clone(),
                tokens: n32(*n),
            })
            .collect(),
        provenance: provenance.clone(),
    });
    let low = price::predicted_cost(row, total, predicted.read_high as u64, write, &ttl);
    let high = price::predicted_cost(row, total, predicted.read_low as u64, write, &ttl);
    result.cost.predicted_low_usd = Some(low);
    result.cost.predicted_high_usd = Some(high);
    result.cost.difference_usd = Some(if billed_cost < low {
        billed_cost - low
    } else if billed_cost > high {
        billed_cost - high
    } else {
        0.0
    });
    result.causes = causes(i, prepared, predicted, agrees);
    result
}

/// Whether the billed read is the predicted one. For explicit breakpoints, the predicted
/// figure scaled by the call's billed-to-predicted input (the read prefix is part of the same
/// request, so its count error, reported on the input line, is not counted twice) within
/// [`AGREEMENT_PERCENT`] of the billed read. For an automatic cache, whose reads come in units of
/// the true count, the billed read anywhere from 0 to the top of the range, which may be off by
/// the prediction's bound (from [`AGREEMENT_PERCENT`] to [`MAX_RANGE_SLACK_PERCENT`]). At least a
/// token either way.
fn agrees(predicted: &Predicted, billed: u64, scale: f64, provenance: &Provenance) -> bool {
    let billed = billed as f64;
    if predicted.automatic {
        if billed == 0.0 {
            return true;
        }
        let share = provenance
            .bound()
            .clamp(AGREEMENT_PERCENT, MAX_RANGE_SLACK_PERCENT);
        let slack = (billed * share / 100.0).max(1.0);
        return billed <= predicted.read_high as f64 + slack && predicted.read_high > 0;
    }
    let slack = (billed * AGREEMENT_PERCENT / 100.0).max(1.0);
    (predicted.read_high as f64 * scale - billed).abs() <= slack
}

/// The billed input over the predicted one (1 when either is 0).
fn count_scale(billed: u64, predicted: usize) -> f64 {
    if billed == 0 || predicted == 0 {
        1.0
    } else {
        billed as f64 / predicted as f64
    }
}

/// What the cache held after call `p`, by its billed usage: for breakpoints what it read and
/// wrote, for an automatic cache its prompt as the rule rounds it.
fn cached_after(p: &Prepared<'_>) -> u64 {
    let usage = &p.call.usage;
    match p.row.cache.growth {
        Growth::Breakpoints => usage.cache_read + usage.cache_write_total(),
        Growth::Units | Growth::ImplicitPrefix => automatic_read(
            p.row,
            usize::try_from(usage.input_total).unwrap_or(usize::MAX),
        ) as u64,
    }
}

fn causes(
    i: usize,
    prepared: &[Option<Prepared<'_>>],
    predicted: &Predicted,
    agrees: bool,
) -> Vec<CauseOut> {
    let Some(now) = prepared[i].as_ref() else {
        return Vec::new();
    };
    let read = now.call.usage.cache_read;
    let before = i
        .checked_sub(1)
        .and_then(|p| prepared[p].as_ref().map(|b| (p, b)));
    let miss = i > 0 && before.is_some_and(|(_, b)| read == 0 || read < cached_after(b));
    // More than any recorded call left in the cache: a call outside the recording wrote it.
    let recorded = prepared[..i]
        .iter()
        .flatten()
        .filter(|b| cache::same_model(b, now))
        .map(cached_after)
        .max()
        .unwrap_or(0);
    if read > recorded && !(agrees && predicted.read_high > 0) {
        return vec![warmed_outside(now, recorded, read)];
    }
    if !miss && agrees {
        return Vec::new();
    }
    // A miss against the call before; a read short of the prediction against the call it
    // predicted the read from.
    let reference = if miss {
        before
    } else {
        predicted
            .from
            .and_then(|j| prepared[j].as_ref().map(|b| (j, b)))
    };
    match reference {
        Some((j, b)) => vec![explain(j, b, now, predicted)],
        None => Vec::new(),
    }
}

fn warmed_outside(now: &Prepared<'_>, recorded: u64, read: u64) -> CauseOut {
    let extra = read - recorded;
    let expected = if recorded == 0 {
        "no earlier call of the recording wrote them".to_owned()
    } else {
        format!(
            "the calls before it left at most {} in the cache",
            thousands(recorded as usize)
        )
    };
    CauseOut {
        code: DiagnosticCode::ReadWarmedOutside,
        level: DiagnosticCode::ReadWarmedOutside.level(),
        message: format!(
            "read {} tokens from the cache, but {expected}: the cache was warmed by a call outside \
             the recording (an earlier run, another process of the same account)",
            thousands(read as usize)
        ),
        tokens: n32(extra),
        cost_usd: -price::read_saving(now.row, extra),
        against_call: None,
        difference: None,
    }
}

/// The cause of call `now` reading less than `before` (call `j`) left in the cache.
fn explain(j: usize, before: &Prepared<'_>, now: &Prepared<'_>, predicted: &Predicted) -> CauseOut {
    let read = now.call.usage.cache_read;
    let against = n32(j + 1);
    let row = now.row;
    let min = row.cache.min_tokens;
    let held = cached_after(before);
    let lost_from = |tokens: u64| tokens.saturating_sub(read);
    let cause = |code: DiagnosticCode,
                 message: String,
                 lost: u64,
                 difference: Option<Difference>| CauseOut {
        code,
        level: code.level(),
        message,
        tokens: n32(lost),
        cost_usd: price::read_saving(row, lost),
        against_call: Some(against),
        difference,
    };
    if !cache::same_model(before, now) {
        let message = format!(
            "the model changed from {} (call {against}) to {}: a cache is kept per model, so the \
             {} tokens call {against} left are not read",
            before.call.model,
            now.call.model,
            thousands(held as usize)
        );
        return cause(
            DiagnosticCode::MissModelChanged,
            message,
            lost_from(held),
            None,
        );
    }
    let extent = cached_extent(before);
    let blocks = cache::shared(before, now, false);
    if blocks.blocks < extent {
        return changed(j, before, now, blocks.blocks, held, &cause);
    }
    // The repeated prefix in billed tokens: predicted, scaled by how call `before`'s billed input
    // compares with its predicted one (the recording corrects the count).
    let predicted_stable = if predicted.automatic {
        cache::shared(before, now, true).tokens
    } else {
        blocks.tokens
    };
    let ratio = count_scale(
        before.call.usage.input_total,
        before.prediction.input_tokens,
    );
    let stable = (predicted_stable as f64 * ratio).round() as usize;
    if stable < min {
        let message = format!(
            "the prefix this call repeats from call {against} is about {} tokens, under {}'s \
             minimum of {}: no part of it can be cached",
            thousands(stable),
            row.id,
            thousands(min)
        );
        return cause(DiagnosticCode::MissBelowMinimum, message, 0, None);
    }
    if !predicted.automatic {
        let reach = row.cache.lookback_blocks.unwrap_or(1).max(1);
        let reaches =
            extent > 0
                && now.blocks.iter().enumerate().any(|(k, b)| {
                    b.breakpoint.is_some() && k + 1 >= extent && k < extent - 1 + reach
                });
        if extent == 0 || !reaches {
            let message = if extent == 0 {
                format!(
                    "call {against} marks no cache breakpoint (cache_control) at or after the \
                     {}-token prefix this call repeats, so nothing was written for it to read",
                    thousands(stable)
                )
            } else {
                format!(
                    "this call marks no cache breakpoint at or within {reach} blocks after the end of \
                     the {}-token prefix call {against} cached, so the cache is not looked up there",
                    thousands(before.end_of(extent))
                )
            };
            return cause(
                DiagnosticCode::MissNoBreakpoint,
                message,
                lost_from((stable as u64).max(held)),
                None,
            );
        }
    }
    if let Some(message) = expired(before, now, extent, predicted.automatic, j + 1) {
        return cause(
            DiagnosticCode::MissTtlExpired,
            message,
            lost_from(held.max(stable as u64)),
            None,
        );
    }
    let message = if predicted.automatic {
        format!(
            "this call repeats {} tokens of call {against}'s prompt ({} cacheable) yet read {}: the \
             automatic cache does not guarantee a hit (the request routed to a server that did not \
             hold the prefix)",
            thousands(stable),
            thousands(automatic_read(row, stable)),
            thousands(read as usize)
        )
    } else {
        format!(
            "this call repeats the {}-token prefix call {against} cached, up to a breakpoint, yet \
             read {}: nothing in the requests explains it (the provider's side)",
            thousands(before.end_of(extent)),
            thousands(read as usize)
        )
    };
    let expected = if predicted.automatic {
        automatic_read(row, stable) as u64
    } else {
        held
    };
    cause(
        DiagnosticCode::MissProviderSide,
        message,
        lost_from(expected),
        None,
    )
}

/// How many leading blocks of `p` its cache held after it (by the prediction): up to its last
/// breakpoint that reaches the minimum, or the whole prompt of an automatic cache that does.
fn cached_extent(p: &Prepared<'_>) -> usize {
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

type MakeCause<'f> = dyn Fn(DiagnosticCode, String, u64, Option<Difference>) -> CauseOut + 'f;

/// The cause when `now` differs from `before` at block `d`, inside what `before` had cached.
fn changed(
    j: usize,
    before: &Prepared<'_>,
    now: &Prepared<'_>,
    d: usize,
    held: u64,
    cause: &MakeCause<'_>,
) -> CauseOut {
    let against = j + 1;
    let lost = held.saturating_sub(now.call.usage.cache_read);
    let (Some(was), Some(is)) = (before.blocks.get(d), now.blocks.get(d)) else {
        let message = format!(
            "this call has {} of the {} blocks call {against} cached: the conversation was cut \
             short, so the prefix is not read",
            now.blocks.len(),
            cached_extent(before)
        );
        return cause(DiagnosticCode::MissMessagesRewritten, message, lost, None);
    };
    let value = |p: &Prepared<'_>, pointer: &str| -> Option<Json> {
        if pointer.is_empty() {
            None
        } else {
            p.call.body.pointer(pointer).cloned()
        }
    };
    let (old, new) = (
        value(before, &was.part.pointer),
        value(now, &is.part.pointer),
    );
    let raw_byte = before
        .call
        .raw
        .as_deref()
        .zip(now.call.raw.as_deref())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| n32(super::diff::common_prefix(a, b)));
    if let (Some(o), Some(n)) = (&old, &new) {
        if was.part.pointer == is.part.pointer && same_value(o, n) {
            let message = format!(
                "{} holds the same JSON value as in call {against} but is sent as other bytes (key \
                 order, whitespace or number format), so the provider sees a different prefix from \
                 there on",
                is.part.pointer
            );
            let difference = Difference {
                pointer: is.part.pointer.clone(),
                byte: n32(super::diff::common_prefix(
                    &was.part.canonical,
                    &is.part.canonical,
                )),
                before: excerpt_at(&was.part.canonical, &is.part.canonical).0,
                now: excerpt_at(&was.part.canonical, &is.part.canonical).1,
                who: who_wrote(now.call, &is.part.pointer, 0),
                raw_byte,
            };
            return cause(
                DiagnosticCode::MissByteInstability,
                message,
                lost,
                Some(difference),
            );
        }
    }
    let difference = match (&old, &new) {
        (Some(o), Some(n)) if was.part.pointer == is.part.pointer => {
            first_difference(o, n, &is.part.pointer)
        }
        _ => first_difference(
            old.as_ref().unwrap_or(&Json::Null),
            new.as_ref().unwrap_or(&Json::Null),
            &is.part.pointer,
        ),
    }
    .map(|d| Difference {
        who: who_wrote(now.call, &d.pointer, d.byte)
            .or_else(|| who_wrote(now.call, &is.part.pointer, 0)),
        pointer: d.pointer,
        byte: n32(d.byte),
        before: d.before,
        now: d.now,
        raw_byte,
    });
    let kinds = [was.part.kind, is.part.kind];
    let (code, what) = if kinds
        .iter()
        .any(|k| matches!(k, PartKind::Tool | PartKind::ToolPrompt | PartKind::Schema))
    {
        (DiagnosticCode::MissToolsChanged, "the tool definitions")
    } else if kinds
        .iter()
        .any(|k| matches!(k, PartKind::System | PartKind::Framing))
    {
        (DiagnosticCode::MissSystemChanged, "the system prompt")
    } else {
        (DiagnosticCode::MissMessagesRewritten, "an earlier message")
    };
    let at = difference.as_ref().map_or_else(String::new, |d| {
        let who = d
            .who
            .as_ref()
            .map(|w| format!(", written by {w}"))
            .unwrap_or_default();
        format!(" at {} byte {}{who}", d.pointer, thousands(d.byte as usize))
    });
    let message = format!(
        "{what} differs from call {against}'s{at}: the {} tokens call {against} left in the cache \
         are not read past it",
        thousands(held as usize)
    );
    cause(code, message, lost, difference)
}

/// A few characters of both texts from where they start to differ.
fn excerpt_at(before: &str, now: &str) -> (String, String) {
    let k = super::diff::common_prefix(before, now);
    let cut = |s: &str| s[k..].chars().take(40).collect::<String>();
    (cut(before), cut(now))
}

/// Who wrote the text at `pointer` (byte `byte` of it): the call's recorded authorship when it
/// has one, else the role of the message holding it.
fn who_wrote(call: &Call, pointer: &str, byte: usize) -> Option<String> {
    if let Some(a) = call
        .who
        .iter()
        .find(|a| a.pointer == pointer && a.range.contains(&byte))
    {
        return Some(a.who.clone());
    }
    // The message: the pointer's first two steps (`/messages/3`, `/input/2`, `/contents/1`).
    let mut steps = pointer.splitn(4, '/');
    let (_, list, index) = (steps.next(), steps.next()?, steps.next()?);
    let message = call.body.pointer(&format!("/{list}/{index}"))?;
    let kind = message.get("type").and_then(Json::as_str);
    let role = message.get("role").and_then(Json::as_str);
    let tool_result = |m: &Json| {
        m.get("content")
            .and_then(Json::as_array)
            .is_some_and(|blocks| {
                blocks
                    .iter()
                    .any(|b| b.get("type").and_then(Json::as_str) == Some("tool_result"))
            })
    };
    let who = match (list, role, kind) {
        ("tools", _, _) => "the tool definitions".to_owned(),
        (_, _, Some("function_call_output")) | (_, Some("tool"), _) => "a tool result".to_owned(),
        (_, _, Some("function_call")) => "the model (a tool call)".to_owned(),
        (_, _, Some("reasoning")) => "the model (reasoning)".to_owned(),
        (_, Some("user"), _) if tool_result(message) => "a tool result".to_owned(),
        (_, Some("assistant" | "model"), _) => "the model (an assistant turn)".to_owned(),
        (_, Some(role), _) => format!("the {role}"),
        _ => return None,
    };
    Some(who)
}

/// Why the entry `before` left had run out when `now` came, when the timestamps say so.
fn expired(
    before: &Prepared<'_>,
    now: &Prepared<'_>,
    extent: usize,
    automatic: bool,
    against: usize,
) -> Option<String> {
    let (t0, t1) = (before.time?, now.time?);
    let ttl = if automatic {
        before.row.default_ttl().unwrap_or("in_memory").to_owned()
    } else {
        before
            .blocks
            .get(extent.checked_sub(1)?)?
            .breakpoint
            .clone()?
    };
    let lifetime = time::ttl_seconds(&ttl).unwrap_or(3_600.0);
    let gap = t1 - t0;
    (gap > lifetime).then(|| {
        format!(
            "this call came {} after call {against}, past the {ttl} the cache keeps a prefix{}",
            duration(gap),
            if time::ttl_seconds(&ttl).is_none() {
                " (at most an hour)"
            } else {
                ""
            }
        )
    })
}

/// `7m 30s`, `2h 5m`, `45s`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match (s / 3_600, (s % 3_600) / 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, sec) => format!("{m}m {sec}s"),
        (h, m, _) => format!("{h}h {m}m"),
    }
}

fn totals(calls: &[CallResult]) -> Totals {
    let mut t = Totals {
        calls: n32(calls.len()),
        ..Totals::default()
    };
    for c in calls {
        t.billed_input = t.billed_input.saturating_add(n32(c.billed.input_total));
        t.billed_read = t.billed_read.saturating_add(n32(c.billed.cache_read));
        t.billed_write = t
            .billed_write
            .saturating_add(n32(c.billed.cache_write_total()));
        t.billed_usd += c.cost.billed_usd;
        if let Some(input) = &c.input {
            t.predicted_input = t.predicted_input.saturating_add(input.predicted);
        }
        if let Some(r) = &c.cache_read {
            t.predicted_read_low = t.predicted_read_low.saturating_add(r.predicted_low);
            t.predicted_read_high = t.predicted_read_high.saturating_add(r.predicted_high);
        }
        if let Some(w) = &c.cache_write {
            t.predicted_write = t.predicted_write.saturating_add(w.predicted);
        }
        t.predicted_low_usd += c.cost.predicted_low_usd.unwrap_or(0.0);
        t.predicted_high_usd += c.cost.predicted_high_usd.unwrap_or(0.0);
        let misses: Vec<&CauseOut> = c
            .causes
            .iter()
            .filter(|k| k.code != DiagnosticCode::ReadWarmedOutside)
            .collect();
        if !misses.is_empty() {
            t.misses += 1;
            t.miss_cost_usd += misses.iter().map(|k| k.cost_usd).sum::<f64>();
        }
    }
    t
}
