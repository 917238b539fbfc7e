//! What a mismatch means for the model: the segments whose text changed between a golden and
//! the scene's report now, each with a line diff of its text, and the tools whose outcome
//! changed. Printed before the golden's JSON diff (`check`, the app's Replay view, the pytest plugin).
//!
//! Both sides are read as JSON values: the golden is whatever file is on disk, so a side that is
//! not a golden (or an older shape) just gives no segment section. They are read with the
//! project's JSON reader ([`read_report`]), not `serde_json::from_str`, whose 128-level limit is
//! shallower than the scenes the loader accepts.

use std::fmt::Write as _;

use serde_json::Value;

/// A golden's (or a kept report's) text as a JSON value: nesting up to
/// [`crate::json::MAX_REPORT_DEPTH`] levels, deep enough for a report of any scene the loader
/// accepts; `None` for text that is not JSON or nests deeper.
pub fn read_report(text: &str) -> Option<Value> {
    // serde_json reads the usual report fastest; past its 128 levels (or at text it refuses,
    // such as Python's `NaN`), the project's reader takes over.
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    let value = crate::json::parse_report_value(text).ok()?;
    serde_json::to_value(&value).ok()
}

/// The families' reports in a golden, in the order they are printed.
const FAMILIES: [&str; 2] = ["chat", "desk"];

/// The segment section of a mismatch, or `None` when neither a segment's text nor a tool's
/// outcome differs (the change is elsewhere: tokens, diagnostics, the run loop).
pub fn segment_section(before: &str, now: &str) -> Option<String> {
    let before = read_report(before)?;
    let now = read_report(now)?;
    let mut out = String::new();
    for family in FAMILIES {
        let (Some(b), Some(n)) = (before.get(family), now.get(family)) else {
            continue;
        };
        for name in segment_names(b, n) {
            let old = segment_text(b, &name);
            let new = segment_text(n, &name);
            if old != new {
                let _ = writeln!(out, "  {family} · {name}");
                push_line_diff(&mut out, old.as_deref(), new.as_deref());
            }
        }
    }
    let mut tools = String::new();
    for family in FAMILIES {
        let (Some(b), Some(n)) = (before.get(family), now.get(family)) else {
            continue;
        };
        for (name, old, new) in tool_changes(b, n) {
            let _ = writeln!(tools, "  {family} · {name}: {old} → {new}");
        }
    }
    if out.is_empty() && tools.is_empty() {
        return None;
    }
    let mut section = String::new();
    if !out.is_empty() {
        section.push_str("Segments whose text differs (- golden, + now):\n");
        section.push_str(&out);
    }
    if !tools.is_empty() {
        section.push_str("Tools whose outcome differs (golden → now):\n");
        section.push_str(&tools);
    }
    Some(section)
}

/// The first segment whose text differs (chat, then desk, in assembly order), with the piece
/// of it that differs first as `(tool, configured prompt index)`: now's piece, or the golden's
/// when the report no longer has one there. `None` when no segment's text differs.
#[allow(clippy::type_complexity)]
pub fn first_changed(
    before: &str,
    now: &str,
) -> Option<(
    &'static str,
    String,
    Option<(Option<String>, Option<usize>)>,
)> {
    let before = read_report(before)?;
    let now = read_report(now)?;
    for family in FAMILIES {
        let (Some(b), Some(n)) = (before.get(family), now.get(family)) else {
            continue;
        };
        for name in segment_names(b, n) {
            if segment_text(b, &name) == segment_text(n, &name) {
                continue;
            }
            let pieces = |report: &Value| -> Vec<Value> {
                array(report, "segments")
                    .iter()
                    .find(|s| s.get("name").and_then(Value::as_str) == Some(&name))
                    .map(|s| array(s, "pieces").to_vec())
                    .unwrap_or_default()
            };
            let (old, new) = (pieces(b), pieces(n));
            let key = |p: &Value| ["text", "source", "tool", "index"].map(|k| p.get(k).cloned());
            let differing = (0..old.len().max(new.len()))
                .find(|&i| old.get(i).map(key) != new.get(i).map(key))
                .and_then(|i| new.get(i).or_else(|| old.get(i)))
                .map(|p| {
                    let tool = p.get("tool").and_then(Value::as_str).map(str::to_owned);
                    let index = p
                        .get("index")
                        .and_then(Value::as_u64)
                        .and_then(|i| usize::try_from(i).ok());
                    (tool, index)
                });
            return Some((family, name, differing));
        }
    }
    None
}

/// Each segment whose text differs between two goldens' values, in print order:
/// `(family, segment, golden's text, now's text)`, a side `None` where that report has no such
/// segment (the HTML report's side-by-side diff).
pub fn changed_segments(
    before: &Value,
    now: &Value,
) -> Vec<(&'static str, String, Option<String>, Option<String>)> {
    let mut out = Vec::new();
    for family in FAMILIES {
        let (Some(b), Some(n)) = (before.get(family), now.get(family)) else {
            continue;
        };
        for name in segment_names(b, n) {
            let (old, new) = (segment_text(b, &name), segment_text(n, &name));
            if old != new {
                out.push((family, name, old, new));
            }
        }
    }
    out
}

/// The segment names of both reports: `before`'s order, then any only `now` has.
fn segment_names(before: &Value, now: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for report in [before, now] {
        for segment in array(report, "segments") {
            if let Some(name) = segment.get("name").and_then(Value::as_str) {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
        }
    }
    names
}

/// What the model sees of a segment: its text, or for a message stream (whose text is empty;
/// its messages carry its name), one line per message. `None` when the report has no
/// such segment.
fn segment_text(report: &Value, name: &str) -> Option<String> {
    let segment = array(report, "segments")
        .iter()
        .find(|s| s.get("name").and_then(Value::as_str) == Some(name))?;
    let text = segment.get("text").and_then(Value::as_str).unwrap_or("");
    let messages: Vec<String> = array(report, "messages")
        .iter()
        .filter(|m| m.get("segment").and_then(Value::as_str) == Some(name))
        .map(message_line)
        .collect();
    if text.is_empty() && !messages.is_empty() {
        Some(messages.join("\n"))
    } else {
        Some(text.to_owned())
    }
}

fn message_line(message: &Value) -> String {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
    let content = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    format!("[{role}] {content}")
}

/// `(tool, golden outcome, outcome now)` for each tool whose status or position changed.
fn tool_changes(before: &Value, now: &Value) -> Vec<(String, String, String)> {
    let outcome = |report: &Value, name: &str| -> String {
        array(report, "tools")
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
            .map_or_else(
                || "absent".to_owned(),
                |t| {
                    let status = t.get("status").and_then(Value::as_str).unwrap_or("?");
                    match t.get("position").and_then(Value::as_str) {
                        Some(position) => format!("{status} at {position}"),
                        None => status.to_owned(),
                    }
                },
            )
    };
    let mut names: Vec<&str> = Vec::new();
    for report in [before, now] {
        for tool in array(report, "tools") {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
        .into_iter()
        .filter_map(|name| {
            let (old, new) = (outcome(before, name), outcome(now, name));
            (old != new).then(|| (name.to_owned(), old, new))
        })
        .collect()
}

fn array<'a>(report: &'a Value, field: &str) -> &'a [Value] {
    report
        .get(field)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The changed lines of a segment's text with one line of context, indented under its name.
fn push_line_diff(out: &mut String, old: Option<&str>, new: Option<&str>) {
    match (old, new) {
        (None, _) => out.push_str("    (a segment the golden does not have)\n"),
        (_, None) => out.push_str("    (a segment the report no longer has)\n"),
        (Some(old), Some(new)) => {
            // A final newline on both sides, so the last line compares as a line.
            let (old, new) = (format!("{old}\n"), format!("{new}\n"));
            let diff = similar::TextDiff::from_lines(&old, &new);
            for (i, group) in diff.grouped_ops(1).iter().enumerate() {
                if i > 0 {
                    out.push_str("    …\n");
                }
                for op in group {
                    for change in diff.iter_changes(op) {
                        let sign = match change.tag() {
                            similar::ChangeTag::Delete => '-',
                            similar::ChangeTag::Insert => '+',
                            similar::ChangeTag::Equal => ' ',
                        };
                        let line = change.value().strip_suffix('\n').unwrap_or(change.value());
                        let _ = writeln!(out, "    {sign} {line}");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
