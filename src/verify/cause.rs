//! The cause of each recorded cache miss (a call after the first that reads nothing, or less
//! than the call before it left in the cache) and of each cache read the prediction does not
//! agree with.
//!
//! A miss is explained against the call before it, first by what the request changed inside the
//! prefix that call had cached (model, tools, system, messages, or the same value as other
//! bytes), then by what kept the prefix from being cached or read (under the minimum, no
//! breakpoint), then by time (the TTL, from the recorded timestamps); what is left is the
//! provider's side. A read no recorded call can account for was warmed outside the recording.

use serde_json::Value as Json;

use super::cache::{self, Predicted, Prepared};
use super::diff::{first_difference, same_value};
use super::figures::count_scale;
use super::price;
use super::report::{n32, CauseOut, Difference};
use super::rule::{self, Changed, Facts};
use super::{prefix, time, Call};
use crate::billing::PartKind;
use crate::pricing::cost::automatic_read;
use crate::pricing::minimum::thousands;
use crate::pricing::Growth;
use crate::report::DiagnosticCode;

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

/// Whether call `i` is a recorded miss, and the causes of its miss or disagreement.
pub fn causes(
    i: usize,
    prepared: &[Option<Prepared<'_>>],
    predicted: &Predicted,
    agrees: bool,
) -> (bool, Vec<CauseOut>) {
    let Some(now) = prepared[i].as_ref() else {
        return (false, Vec::new());
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
        let min = now.row.cache.min_tokens as u64;
        if now.call.usage.input_total < min {
            return (miss, vec![impossible_read(now, read)]);
        }
        return (miss, vec![warmed_outside(now, recorded, read)]);
    }
    if !miss && agrees {
        return (false, Vec::new());
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
        Some((j, b)) => (miss, vec![explain(j, b, now, predicted)]),
        None => (miss, vec![unforeseen(now, predicted, read)]),
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

/// A read the recording accounts for but the prediction does not: the requests do not say why.
fn unforeseen(now: &Prepared<'_>, predicted: &Predicted, read: u64) -> CauseOut {
    let expected = predicted.read_high as u64;
    CauseOut {
        code: DiagnosticCode::MissProviderSide,
        level: DiagnosticCode::MissProviderSide.level(),
        message: format!(
            "read {} tokens from the cache where the requests' breakpoints and prefixes predict {}: \
             nothing in them explains the difference",
            thousands(read as usize),
            thousands(expected as usize)
        ),
        tokens: n32(read.abs_diff(expected)),
        cost_usd: price::read_saving(now.row, expected.saturating_sub(read))
            - price::read_saving(now.row, read.saturating_sub(expected)),
        against_call: None,
        difference: None,
    }
}

/// A read the provider's own rule rules out: the whole prompt is under the model's minimum.
fn impossible_read(now: &Prepared<'_>, read: u64) -> CauseOut {
    CauseOut {
        code: DiagnosticCode::MissProviderSide,
        level: DiagnosticCode::MissProviderSide.level(),
        message: format!(
            "read {} tokens from the cache, though the whole prompt ({} tokens) is under {}'s \
             minimum of {}: no cache serves such a prompt, so the recorded usage is not what the \
             rule bills (an edited recording, or a rule the table does not know)",
            thousands(read as usize),
            thousands(now.call.usage.input_total as usize),
            now.row.id,
            thousands(now.row.cache.min_tokens)
        ),
        tokens: n32(read),
        cost_usd: -price::read_saving(now.row, read),
        against_call: None,
        difference: None,
    }
}

/// The cause of call `now` reading less than `before` (call `j`) left in the cache: the facts
/// worked out first, the cause named by the one rule (`rule::cause`), then put in words.
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
    // The repeated prefix in billed tokens: predicted, scaled by how call `before`'s billed input
    // compares with its predicted one (the recording corrects the count).
    let ratio = count_scale(
        before.call.usage.input_total,
        before.prediction.input_tokens,
    );
    let repeated = prefix::repeated(j, before, now, predicted.automatic, ratio);
    let (stable, extent, reach, change) = (
        repeated.stable,
        repeated.extent,
        repeated.reach,
        repeated.change,
    );
    let expiry = expired(before, now, extent, predicted.automatic, j + 1);
    let code = rule::cause(&Facts {
        expired: expiry.is_some(),
        ..repeated.facts
    });
    match code {
        DiagnosticCode::MissModelChanged => {
            let left = if held > 0 {
                format!(
                    ", so the {} tokens call {against} left are not read",
                    thousands(held as usize)
                )
            } else {
                String::new()
            };
            let message = format!(
                "the model changed from {} (call {against}) to {}: a cache is kept per model{left}",
                before.call.model, now.call.model
            );
            cause(code, message, lost_from(held), None)
        }
        _ if change.is_some() => {
            let (_, message, difference) =
                change.unwrap_or((Changed::Messages, String::new(), None));
            cause(code, message, lost_from(held), difference)
        }
        DiagnosticCode::MissBelowMinimum => {
            let message = format!(
                "the prefix this call repeats from call {against} is about {} tokens, under {}'s \
                 minimum of {}: no part of it can be cached",
                thousands(stable),
                row.id,
                thousands(min)
            );
            cause(code, message, 0, None)
        }
        DiagnosticCode::MissNoBreakpoint => {
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
            cause(code, message, lost_from((stable as u64).max(held)), None)
        }
        DiagnosticCode::MissTtlExpired => cause(
            code,
            expiry.unwrap_or_default(),
            lost_from(held.max(stable as u64)),
            None,
        ),
        _ => provider_side(against, before, now, predicted, stable, extent, &cause),
    }
}

type MakeCause<'f> = dyn Fn(DiagnosticCode, String, u64, Option<Difference>) -> CauseOut + 'f;

/// Nothing in the requests explains the miss.
fn provider_side(
    against: u32,
    before: &Prepared<'_>,
    now: &Prepared<'_>,
    predicted: &Predicted,
    stable: usize,
    extent: usize,
    cause: &MakeCause<'_>,
) -> CauseOut {
    let row = now.row;
    let read = now.call.usage.cache_read;
    let held = cached_after(before);
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
        expected.saturating_sub(read),
        None,
    )
}

/// The part, the words and the difference when `now` differs from `before` at block `d`, inside what `before` had cached.
pub(super) fn changed(
    j: usize,
    before: &Prepared<'_>,
    now: &Prepared<'_>,
    d: usize,
) -> (Changed, String, Option<Difference>) {
    let against = j + 1;
    let held = cached_after(before);
    let (Some(was), Some(is)) = (before.blocks.get(d), now.blocks.get(d)) else {
        let message = format!(
            "this call has {} of the {} blocks call {against} cached: the conversation was cut \
             short, so the prefix is not read",
            now.blocks.len(),
            prefix::cached_extent(before)
        );
        return (Changed::Messages, message, None);
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
            return (Changed::SameValue, message, Some(difference));
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
        (Changed::Tools, "the tool definitions")
    } else if kinds
        .iter()
        .any(|k| matches!(k, PartKind::System | PartKind::Framing))
    {
        (Changed::System, "the system prompt")
    } else {
        (Changed::Messages, "an earlier message")
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
    (code, message, difference)
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
