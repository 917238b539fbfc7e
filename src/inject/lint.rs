//! The cache-safety lint of one rendered scene (docs/diagnostics.md, "Cache-safety lint"): what in
//! the cached prefix (`segments::Segment::cached_prefix`) would stop a prompt cache from reusing
//! it on the next call. Two findings need only this one call:
//!
//! - `cache_prefix_injection`: a tool writes into a prefix segment; whenever its text changes,
//!   everything after it is billed again;
//! - `cache_volatile_value`: text in a prefix segment that by its nature changes on every call
//!   (a time of day, a Unix timestamp, a UUID, a counter from the context).
//!
//! The findings that compare calls (`cache_prefix_changed`, `cache_below_minimum`) are in
//! `conversation` and the run loop; they share [`template_of`] and [`line_referencing`] to name
//! the template line that produced a piece of text.

use crate::report::{Diagnostic, DiagnosticCode, Level, PieceOut, Report, Source, Status};
use std::collections::HashMap;

use crate::scene::{Prompt, Returns, Scene, TemplateSpec, Tool};
use crate::segments::{self, Family};
use crate::value::Value;

/// The lint's findings for one render of `scene` (`report`), in segment and piece order.
pub fn scene_findings(scene: &Scene, family: Family, report: &Report) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let later = segments::first_legal_after_prefix(family).name;
    // Looked up once per piece and tool: a scene of hundreds of tools must not make this
    // quadratic (it runs on every keystroke of the app).
    let mut tool_tokens: HashMap<(&str, &str), usize> = HashMap::new();
    for seg in &report.segments {
        for piece in &seg.pieces {
            if let (Some(tool), Some(n)) = (piece.tool.as_deref(), piece.tokens) {
                *tool_tokens.entry((seg.name, tool)).or_default() += n;
            }
        }
    }
    let mut tools: HashMap<&str, &Tool> = HashMap::new();
    for tool in &scene.tools {
        // The first of a name, as the render takes it.
        tools.entry(tool.name.as_str()).or_insert(tool);
    }
    for tool in &report.tools {
        let Some(position) = &tool.position else {
            continue;
        };
        let in_prefix = segments::find(family, position).is_some_and(|s| s.cached_prefix);
        if tool.status != Status::Injected || !in_prefix {
            continue;
        }
        let tokens = tool_tokens
            .get(&(position.as_str(), tool.name.as_str()))
            .copied()
            .unwrap_or(0);
        let size = if report.tokenizer.is_some() {
            format!("{tokens} tokens")
        } else {
            "its text".to_owned()
        };
        out.push(Diagnostic {
            tool: Some(tool.name.clone()),
            segment: segments::find(family, position).map(|s| s.name),
            ..Diagnostic::new(
                Level::Info,
                DiagnosticCode::CachePrefixInjection,
                format!(
                    "{} writes {size} into {position}, in the cached prefix: whenever that text \
                 changes from one call to the next, everything after it is billed again. {later} \
                 is the first segment open to tools after the prefix (`prompt-inspector cache` \
                 prices the move)",
                    tool.name
                ),
            )
        });
    }
    let context = &scene.context;
    let context_counters = counters(context);
    for seg in &report.segments {
        let Some(def) = segments::find(family, seg.name) else {
            continue;
        };
        // The user's input changes every turn by design; what it says is the user's.
        if !def.cached_prefix || def.kind == segments::SegmentKind::UserInput {
            continue;
        }
        for piece in &seg.pieces {
            let tool = piece.tool.as_deref().and_then(|n| tools.get(n).copied());
            let template = match &piece.tool {
                Some(_) => tool
                    .and_then(tool_template)
                    .and_then(TemplateSpec::select)
                    .map(|(_, text)| text),
                None => template_of(scene, family, seg.name, piece),
            };
            let state = tool.map(|t| &t.state);
            for v in volatile_values(&piece.text) {
                let line = template.and_then(|t| {
                    line_of_literal(t, v.text).or_else(|| {
                        let names = keys_holding(context, v.text)
                            .into_iter()
                            .chain(state.map_or_else(Vec::new, |s| keys_holding(s, v.text)))
                            .collect::<Vec<_>>();
                        line_referencing(t, &names)
                    })
                });
                out.push(volatile(seg.name, piece, v.kind, v.text, line));
            }
            if let Some(t) = template {
                for (name, n) in context_counters
                    .iter()
                    .cloned()
                    .chain(state.map_or_else(Vec::new, counters))
                {
                    if let Some(line) = line_referencing(t, &[name.as_str()]) {
                        let shown = format!("{name} = {n}");
                        out.push(volatile(seg.name, piece, "counter", &shown, Some(line)));
                    }
                }
            }
        }
    }
    out
}

fn volatile(
    segment: &'static str,
    piece: &PieceOut,
    kind: &str,
    value: &str,
    line: Option<usize>,
) -> Diagnostic {
    let by = written_by(segment, piece, line);
    Diagnostic {
        tool: piece.tool.clone(),
        segment: Some(segment),
        prompt: piece.index,
        line,
        ..Diagnostic::new(
            Level::Warning,
            DiagnosticCode::CacheVolatileValue,
            format!(
                "{by}, in the cached prefix, holds {} `{value}`, which changes on every call: \
             no call can reuse the cache past it. Move it to a segment after the prefix, or \
             leave it out",
                article(kind)
            ),
        )
    }
}

/// Who wrote a piece and where, for a message: `tracer's text in after_input_msg_prompt
/// (template line 2)`, `system_msg_prompt[0]`.
pub fn written_by(segment: &str, piece: &PieceOut, line: Option<usize>) -> String {
    let by = match (&piece.source, &piece.tool, piece.index) {
        (Source::Tool, Some(tool), _) => format!("{tool}'s text in {segment}"),
        (_, _, Some(i)) => format!("{segment}[{i}]"),
        _ => segment.to_owned(),
    };
    match line {
        Some(l) => format!("{by} (template line {l})"),
        None => by,
    }
}

fn article(kind: &str) -> String {
    match kind {
        "uuid" => "a UUID".to_owned(),
        "time" => "a time of day".to_owned(),
        "timestamp" => "a Unix timestamp".to_owned(),
        "counter" => "a counter".to_owned(),
        other => format!("a {other}"),
    }
}

/// The template a piece was rendered from: the configured prompt's, or the tool's
/// (`format_2_prompt`'s string source or the prompt it returns), in its active language.
pub fn template_of<'s>(
    scene: &'s Scene,
    family: Family,
    segment: &str,
    piece: &PieceOut,
) -> Option<&'s str> {
    template_spec_of(scene, family, segment, piece.tool.as_deref(), piece.index)?
        .select()
        .map(|(_, text)| text)
}

/// The template spec behind a tool's text (`tool`) or a segment's configured prompt (`index`):
/// its texts per language and where they sit in the scene file (`check --format github` points
/// there).
pub fn template_spec_of<'s>(
    scene: &'s Scene,
    family: Family,
    segment: &str,
    tool: Option<&str>,
    index: Option<usize>,
) -> Option<&'s TemplateSpec> {
    match (tool, index) {
        (Some(name), _) => tool_template(scene.tools.iter().find(|t| t.name == name)?),
        (None, Some(i)) => {
            let prompts = match family {
                Family::Chat => scene.chat_llm.prompts(segment),
                Family::Desk => scene.desk_llm.prompts(segment),
            };
            prompts.get(i).map(Prompt::template)
        }
        (None, None) => None,
    }
}

/// The template a tool's text comes from: `format_2_prompt`'s string source or the prompt it
/// returns.
fn tool_template(tool: &Tool) -> Option<&TemplateSpec> {
    match tool.format_2_prompt.as_ref()? {
        Returns::Str { source } => Some(source),
        Returns::Prompt(p) => Some(p.template()),
        _ => None,
    }
}

/// The first line (1-based) of `template` that holds `text` as written.
fn line_of_literal(template: &str, text: &str) -> Option<usize> {
    template
        .lines()
        .position(|l| l.contains(text))
        .map(|i| i + 1)
}

/// The first line (1-based) of `template` whose `{…}` field or expression names one of `names`
/// as a whole identifier (`{now}`, `{ctx[now]}`, `{{ state.turn }}`).
pub fn line_referencing(template: &str, names: &[&str]) -> Option<usize> {
    if names.is_empty() {
        return None;
    }
    for (i, line) in template.lines().enumerate() {
        let mut depth = 0usize;
        let mut word_start: Option<usize> = None;
        let bytes = line.as_bytes();
        for (j, &b) in bytes.iter().enumerate() {
            let ident = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
            if ident {
                word_start.get_or_insert(j);
                continue;
            }
            if let Some(start) = word_start.take() {
                if depth > 0 && names.contains(&&line[start..j]) {
                    return Some(i + 1);
                }
            }
            match b {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if let Some(start) = word_start {
            if depth > 0 && names.contains(&&line[start..]) {
                return Some(i + 1);
            }
        }
    }
    None
}

/// The keys on the paths to the string leaves of `value` that contain `text`, leaf first.
fn keys_holding<'v>(value: &'v Value, text: &str) -> Vec<&'v str> {
    fn walk<'v>(v: &'v Value, text: &str, path: &mut Vec<&'v str>, out: &mut Vec<&'v str>) {
        match v {
            Value::Str(s) if s.contains(text) => out.extend(path.iter().rev()),
            Value::Int(i) if i.to_string() == text => out.extend(path.iter().rev()),
            Value::Float(f) if f.to_string() == text => out.extend(path.iter().rev()),
            Value::Dict(d) => {
                for (k, child) in d.iter() {
                    path.push(k);
                    walk(child, text, path, out);
                    path.pop();
                }
            }
            Value::List(items) => {
                for child in items.iter() {
                    walk(child, text, path, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, text, &mut Vec::new(), &mut out);
    out
}

/// Integer values of `value` (two levels deep) under keys that name a count of calls or steps.
fn counters(value: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Value::Dict(top) = value else {
        return out;
    };
    let mut visit = |k: &str, v: &Value| {
        if let Value::Int(n) = v {
            if counter_like(k) {
                out.push((k.to_owned(), n.to_string()));
            }
        }
    };
    for (k, v) in top.iter() {
        visit(k, v);
        if let Value::Dict(inner) = v {
            for (k2, v2) in inner.iter() {
                visit(k2, v2);
            }
        }
    }
    out
}

/// A key such as `turn`, `step_count`, `n_calls`, `iteration`, `request_number`.
fn counter_like(key: &str) -> bool {
    const WORDS: [&str; 12] = [
        "count",
        "counter",
        "iteration",
        "iterations",
        "step",
        "steps",
        "turn",
        "turns",
        "round",
        "rounds",
        "calls",
        "attempt",
    ];
    key.to_ascii_lowercase()
        .split(['_', '-'])
        .any(|w| WORDS.contains(&w))
}

/// A value found in text that changes on every call by its nature.
#[derive(Debug, PartialEq, Eq)]
pub struct Volatile<'t> {
    /// `time` (a date with a time of day, or a time with seconds), `timestamp` (Unix seconds or
    /// milliseconds of the years 2001–2036) or `uuid`.
    pub kind: &'static str,
    pub text: &'t str,
}

/// The volatile values in `text`, each once per kind and text, in order.
pub fn volatile_values(text: &str) -> Vec<Volatile<'_>> {
    let b = text.as_bytes();
    let mut out: Vec<Volatile> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let found = if boundary {
            uuid_at(b, i)
                .map(|n| ("uuid", n))
                .or_else(|| date_time_at(b, i).map(|n| ("time", n)))
                .or_else(|| clock_at(b, i).map(|n| ("time", n)))
                .or_else(|| epoch_at(b, i).map(|n| ("timestamp", n)))
        } else {
            None
        };
        match found {
            Some((kind, n)) => {
                let v = Volatile {
                    kind,
                    text: &text[i..i + n],
                };
                if !out.contains(&v) {
                    out.push(v);
                }
                i += n;
            }
            None => i += 1,
        }
    }
    out
}

fn digits(b: &[u8], at: usize, n: usize) -> bool {
    b.len() >= at + n && b[at..at + n].iter().all(u8::is_ascii_digit)
}

fn ends_word(b: &[u8], at: usize) -> bool {
    b.get(at).is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// `8-4-4-4-12` hex digits.
fn uuid_at(b: &[u8], at: usize) -> Option<usize> {
    let groups = [8, 4, 4, 4, 12];
    let mut i = at;
    for (g, n) in groups.iter().enumerate() {
        if b.len() < i + n || !b[i..i + n].iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        i += n;
        if g < 4 {
            if b.get(i) != Some(&b'-') {
                return None;
            }
            i += 1;
        }
    }
    ends_word(b, i).then_some(i - at)
}

/// `YYYY-MM-DD[T ]HH:MM`, with seconds, fractions and a zone when present.
fn date_time_at(b: &[u8], at: usize) -> Option<usize> {
    let date = digits(b, at, 4)
        && b.get(at + 4) == Some(&b'-')
        && digits(b, at + 5, 2)
        && b.get(at + 7) == Some(&b'-')
        && digits(b, at + 8, 2)
        && matches!(b.get(at + 10), Some(b'T' | b' '));
    if !date {
        return None;
    }
    let time = at + 11;
    if !(digits(b, time, 2) && b.get(time + 2) == Some(&b':') && digits(b, time + 3, 2)) {
        return None;
    }
    let mut i = time + 5;
    if b.get(i) == Some(&b':') && digits(b, i + 1, 2) {
        i += 3;
        if b.get(i) == Some(&b'.') {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    }
    if b.get(i) == Some(&b'Z') {
        i += 1;
    } else if matches!(b.get(i), Some(b'+' | b'-')) && digits(b, i + 1, 2) {
        i += 3;
        if b.get(i) == Some(&b':') && digits(b, i + 1, 2) {
            i += 3;
        }
    }
    ends_word(b, i).then_some(i - at)
}

/// `HH:MM:SS` (a time of day with seconds; `HH:MM` alone is as often a ratio or a verse).
fn clock_at(b: &[u8], at: usize) -> Option<usize> {
    let ok = digits(b, at, 2)
        && b.get(at + 2) == Some(&b':')
        && digits(b, at + 3, 2)
        && b.get(at + 5) == Some(&b':')
        && digits(b, at + 6, 2)
        && ends_word(b, at + 8)
        && b[at..at + 2] <= b"23"[..];
    ok.then_some(8)
}

/// Ten digits (Unix seconds) or thirteen (milliseconds), from 1,000,000,000 (2001) to
/// 2,099,999,999 (2036), not part of a longer number.
fn epoch_at(b: &[u8], at: usize) -> Option<usize> {
    let mut n = 0;
    while b.get(at + n).is_some_and(u8::is_ascii_digit) {
        n += 1;
    }
    if (n != 10 && n != 13) || !ends_word(b, at + n) {
        return None;
    }
    if at > 0 && matches!(b[at - 1], b'.' | b',') {
        return None;
    }
    matches!(b[at], b'1' | b'2')
        .then_some(())
        .filter(|()| b[at] == b'1' || b[at + 1] == b'0')
        .map(|()| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&'static str, &str)> {
        volatile_values(text)
            .into_iter()
            .map(|v| (v.kind, v.text))
            .collect()
    }

    #[test]
    fn finds_times_timestamps_and_uuids() {
        assert_eq!(
            kinds("Now: 2026-12-01T10:15:30.250Z; at 1764584130 (id 3f2b8c1e-9a4d-4e2f-8b6a-1c2d3e4f5a6b)"),
            [
                ("time", "2026-12-01T10:15:30.250Z"),
                ("timestamp", "1764584130"),
                ("uuid", "3f2b8c1e-9a4d-4e2f-8b6a-1c2d3e4f5a6b")
            ]
        );
        assert_eq!(
            kinds("at 2026-12-01 10:15 sharp"),
            [("time", "2026-12-01 10:15")]
        );
        assert_eq!(
            kinds("at 2026-12-01T10:15+08:00."),
            [("time", "2026-12-01T10:15+08:00")]
        );
        assert_eq!(kinds("epoch 1764584130.5"), [("timestamp", "1764584130")]);
        assert_eq!(kinds("the clock says 23:59:01."), [("time", "23:59:01")]);
        assert_eq!(kinds("ms 1764584130123"), [("timestamp", "1764584130123")]);
    }

    #[test]
    fn leaves_stable_look_alikes_alone() {
        // A date alone changes once a day; a ratio, a phone number, a version, a price, a
        // longer number and a timestamp-length number outside 2001-2036 are not per-call.
        for text in [
            "Today is 2026-12-01.",
            "ratio 16:9, verse 3:16",
            "call 0123456789",
            "v1.2.3 build 20261201, 0.1764584130",
            "12345678901",
            "3000000000",
            "x1764584130",
            "99:99:99",
            "deadbeef-dead-beef-dead-beefdeadbee",
        ] {
            assert_eq!(kinds(text), [], "{text}");
        }
    }

    #[test]
    fn names_the_line_whose_field_reads_a_key() {
        let t = "You are helpful.\nThe time is {now}.\nUser: {ctx[user][name]}";
        assert_eq!(line_referencing(t, &["now"]), Some(2));
        assert_eq!(line_referencing(t, &["name"]), Some(3));
        assert_eq!(line_referencing(t, &["time"]), None, "outside a field");
        assert_eq!(line_referencing(t, &["no"]), None, "whole identifiers only");
        let j = "{% for m in memos %}\n- {{ m }} at {{ state.turn }}\n{% endfor %}";
        assert_eq!(line_referencing(j, &["turn"]), Some(2));
    }

    #[test]
    fn counter_keys() {
        for k in [
            "turn",
            "step_count",
            "n_calls",
            "iteration",
            "Round",
            "retry-attempt",
        ] {
            assert!(counter_like(k), "{k}");
        }
        for k in ["account", "stepper", "name", "user_id", "discount"] {
            assert!(!counter_like(k), "{k}");
        }
    }
}
