//! The cache-safety lint across the calls of a conversation (docs/diagnostics.md, "Cache-safety
//! lint"): text of a cached-prefix segment that changes from one call to the next
//! (`cache_prefix_changed`, naming the tool or configured prompt and the template line), and
//! calls too short for a chosen model's cache (`cache_below_minimum`).

use crate::inject::lint::{line_referencing, template_of, written_by};
use crate::inject::{Diagnostic, DiagnosticCode, Level, PieceOut, Report, Source};
use crate::pricing::minimum::below_minimum;
use crate::pricing::Row;
use crate::runloop::blame::{CacheReport, CallFinding};
use crate::segments::{Family, SegmentKind};
use crate::value::Value;

use super::Call;

/// The lint's findings for calls rendered as `reports` (chat, in call order) and blamed in
/// `blamed`, for `models`.
pub fn findings(
    calls: &[Call],
    reports: &[(String, Report)],
    definitions: &[Vec<(String, String)>],
    blamed: &CacheReport,
    models: &[&Row],
) -> Vec<CallFinding> {
    let mut out: Vec<CallFinding> = Vec::new();
    // Each call's own findings (`inject::lint`), once: a tool that writes into the prefix in
    // every call is one finding, at the first call that has it.
    for (k, (label, report)) in reports.iter().enumerate() {
        for d in report.diagnostics.iter().filter(|d| d.code.is_cache_lint()) {
            let seen = out.iter().any(|f| {
                let e = &f.diagnostic;
                (e.code, &e.tool, e.segment, e.prompt, e.line)
                    == (d.code, &d.tool, d.segment, d.prompt, d.line)
            });
            if !seen {
                out.push(CallFinding {
                    call: Some(k),
                    scene: Some(label.clone()),
                    diagnostic: d.clone(),
                });
            }
        }
    }
    for k in 1..definitions.len().min(reports.len()) {
        for d in definition_changes(&definitions[k - 1], &definitions[k]) {
            out.push(CallFinding {
                call: Some(k),
                scene: Some(reports[k].0.clone()),
                diagnostic: d,
            });
        }
    }
    for k in 1..calls.len().min(reports.len()) {
        for d in prefix_changes(&calls[k - 1], &reports[k - 1].1, &calls[k], &reports[k].1) {
            out.push(CallFinding {
                call: Some(k),
                scene: Some(reports[k].0.clone()),
                diagnostic: d,
            });
        }
    }
    let sizes: Vec<(String, usize)> = blamed
        .steps
        .iter()
        .map(|s| (s.scene.clone(), s.request_tokens))
        .collect();
    for row in models {
        if let Some(d) = below_minimum(row, &sizes) {
            out.push(CallFinding {
                call: None,
                scene: None,
                diagnostic: d,
            });
        }
    }
    out
}

/// Tool definitions that differ between two successive calls. They come first in the cached
/// prefix, so a change there leaves nothing of the call to the cache.
fn definition_changes(before: &[(String, String)], now: &[(String, String)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let diagnostic = |tool: &str, what: &str| Diagnostic {
        tool: Some(tool.to_owned()),
        ..Diagnostic::new(
            Level::Warning,
            DiagnosticCode::CachePrefixChanged,
            format!(
            "{tool}'s definition {what} since the call before: the tool definitions come first in \
             the cached prefix, so the cache serves at most the definitions before it and none of \
             the messages"
        ),
        )
    };
    for (i, (name, text)) in now.iter().enumerate() {
        match before.iter().position(|(n, _)| n == name) {
            Some(j) if before[j].1 != *text => out.push(diagnostic(name, "changed")),
            Some(j) if j != i => out.push(diagnostic(name, "moved")),
            Some(_) => {}
            None => out.push(diagnostic(name, "appeared")),
        }
    }
    for (name, _) in before {
        if !now.iter().any(|(n, _)| n == name) {
            out.push(diagnostic(name, "disappeared"));
        }
    }
    out
}

/// The pieces of the prefix segments whose text differs between two successive calls.
fn prefix_changes(before: &Call, was: &Report, now: &Call, is: &Report) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for seg in Family::Chat.segments() {
        if !seg.cached_prefix || seg.kind != SegmentKind::Prompts {
            continue;
        }
        let (Some(a), Some(b)) = (
            was.segments.iter().find(|s| s.name == seg.name),
            is.segments.iter().find(|s| s.name == seg.name),
        ) else {
            continue;
        };
        if a.text == b.text {
            continue;
        }
        let same = |p: &PieceOut, q: &PieceOut| {
            p.source == q.source && p.tool == q.tool && p.index == q.index
        };
        let mut named = false;
        for p in &b.pieces {
            let old = a.pieces.iter().find(|q| same(p, q));
            if old.is_some_and(|q| q.text == p.text) {
                continue;
            }
            named = true;
            let line = changed_line(before, now, seg.name, old, p);
            let what = if old.is_some() { "changed" } else { "appeared" };
            let byte = p.range[0] + old.map_or(0, |q| common_prefix(&q.text, &p.text));
            out.push(changed(seg.name, p, what, line, byte));
        }
        for q in &a.pieces {
            if !b.pieces.iter().any(|p| same(p, q)) {
                named = true;
                out.push(changed(seg.name, q, "disappeared", None, q.range[0]));
            }
        }
        if !named {
            // Same pieces with the same texts, so only the joining changed; say so at least.
            out.push(Diagnostic {
                segment: Some(seg.name),
                ..Diagnostic::new(
                    Level::Warning,
                    DiagnosticCode::CachePrefixChanged,
                    format!(
                        "{} changed since the call before, in the cached prefix",
                        seg.name
                    ),
                )
            });
        }
    }
    out
}

fn changed(
    segment: &'static str,
    piece: &PieceOut,
    what: &str,
    line: Option<usize>,
    byte: usize,
) -> Diagnostic {
    let by = written_by(segment, piece, line);
    Diagnostic {
        tool: piece.tool.clone(),
        segment: Some(segment),
        prompt: piece.index,
        line,
        ..Diagnostic::new(
            Level::Warning,
            DiagnosticCode::CachePrefixChanged,
            format!(
                "{by} {what} since the call before, in the cached prefix: from byte {byte} of \
             {segment} on, the cache serves nothing and everything after is billed again"
            ),
        )
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The template line that made a piece change: the first line where the template itself
/// differs, else the first one reading a context (or tool state) key whose value changed.
fn changed_line(
    before: &Call,
    now: &Call,
    segment: &str,
    old: Option<&PieceOut>,
    piece: &PieceOut,
) -> Option<usize> {
    let template = template_of(&now.scene, Family::Chat, segment, piece)?;
    if let Some(previous) = old.and_then(|q| template_of(&before.scene, Family::Chat, segment, q)) {
        if previous != template {
            let a: Vec<&str> = previous.lines().collect();
            let b: Vec<&str> = template.lines().collect();
            let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
            return Some(i + 1);
        }
    }
    let mut names = Vec::new();
    changed_keys(&before.scene.context, &now.scene.context, &mut names);
    if let (Some(name), Source::Tool) = (&piece.tool, &piece.source) {
        let state = |c: &Call| {
            c.scene
                .tools
                .iter()
                .find(|t| &t.name == name)
                .map(|t| t.state.clone())
        };
        if let (Some(a), Some(b)) = (state(before), state(now)) {
            changed_keys(&a, &b, &mut names);
        }
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    line_referencing(template, &names)
}

/// The keys on the way to every value that differs between `a` and `b`, deepest first.
fn changed_keys(a: &Value, b: &Value, out: &mut Vec<String>) {
    let (Value::Dict(a), Value::Dict(b)) = (a, b) else {
        return;
    };
    for (k, va) in a.iter() {
        match b.get(k) {
            Some(vb) if vb == va => {}
            Some(vb) => {
                changed_keys(va, vb, out);
                out.push(k.to_string());
            }
            None => out.push(k.to_string()),
        }
    }
    for k in b.keys() {
        if !a.contains_key(k) {
            out.push(k.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_keys_go_deepest_first() {
        let parse = |s: &str| Value::from_json(&serde_json::from_str(s).expect("json"));
        let a = parse(r#"{"user": {"name": "Ann", "now": "10:00:00"}, "same": 1, "gone": 2}"#);
        let b = parse(r#"{"user": {"name": "Ann", "now": "10:00:05"}, "same": 1, "new": 3}"#);
        let mut names = Vec::new();
        changed_keys(&a, &b, &mut names);
        assert_eq!(names, ["now", "user", "gone", "new"]);
    }
}
