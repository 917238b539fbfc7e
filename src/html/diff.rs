//! A mismatch side by side: each segment whose text differs, the golden's lines on the left and
//! now's on the right, aligned; removed and added lines carry a `−`/`+` sign as well as a colour.

use std::fmt::Write as _;

use serde_json::Value;

use super::escape;

/// The changed segments of `before` (the golden) against `now`, as tables. Nothing when no
/// segment's text differs.
pub fn push_segment_diff(out: &mut String, before: &Value, now: &Value, level: usize) {
    let changed = crate::check::changed_segments(before, now);
    if changed.is_empty() {
        out.push_str(
            "<p>No segment's text differs: the change is elsewhere (tokens, tool outcomes, \
             diagnostics or the run loop; the golden's diff below has it).</p>\n",
        );
        return;
    }
    for (family, name, old, new) in changed {
        let _ = writeln!(
            out,
            "<h{level}>{family} · <code>{}</code></h{level}>",
            escape(&name)
        );
        let _ = writeln!(
            out,
            "<table class=\"side-by-side\"><caption>{family} · {}: the golden on the left, the \
             report now on the right; − marks a line only the golden has, + a line only now has\
             </caption><thead><tr><th scope=\"col\">Golden</th><th scope=\"col\">Now</th></tr>\
             </thead><tbody>",
            escape(&name)
        );
        match (old, new) {
            (Some(old), Some(new)) => push_rows(out, &old, &new),
            (None, Some(new)) => {
                for line in new.lines() {
                    push_row(out, None, Some(line));
                }
            }
            (Some(old), None) => {
                for line in old.lines() {
                    push_row(out, Some(line), None);
                }
            }
            (None, None) => {}
        }
        out.push_str("</tbody></table>\n");
    }
}

fn push_rows(out: &mut String, old: &str, new: &str) {
    let (old, new) = (format!("{old}\n"), format!("{new}\n"));
    let diff = similar::TextDiff::from_lines(&old, &new);
    for (i, group) in diff.grouped_ops(2).iter().enumerate() {
        if i > 0 {
            out.push_str("<tr class=\"gap\"><td>…</td><td>…</td></tr>\n");
        }
        for op in group {
            // A replaced run pairs its lines up, so a changed line sits beside its new form.
            let (_, old_range, new_range) = op.as_tag_tuple();
            let left: Vec<String> = old_range
                .filter_map(|i| diff.old_slice(i))
                .map(without_newline)
                .collect();
            let right: Vec<String> = new_range
                .filter_map(|i| diff.new_slice(i))
                .map(without_newline)
                .collect();
            let equal = matches!(op.tag(), similar::DiffTag::Equal);
            for j in 0..left.len().max(right.len()) {
                let (l, r) = (left.get(j), right.get(j));
                if equal {
                    push_same(out, l.map_or("", String::as_str));
                } else {
                    push_row(out, l.map(String::as_str), r.map(String::as_str));
                }
            }
        }
    }
}

fn push_same(out: &mut String, line: &str) {
    let line = escape(line);
    let _ = writeln!(
        out,
        "<tr><td class=\"same\"><span class=\"sign\">&#160;</span>{line}</td>\
         <td class=\"same\"><span class=\"sign\">&#160;</span>{line}</td></tr>"
    );
}

fn push_row(out: &mut String, old: Option<&str>, new: Option<&str>) {
    let cell = |line: Option<&str>, class: &str, sign: &str| match line {
        Some(l) => format!(
            "<td class=\"{class}\"><span class=\"sign\">{sign}</span>{}</td>",
            escape(l)
        ),
        None => "<td class=\"blank\"></td>".to_owned(),
    };
    let _ = writeln!(
        out,
        "<tr>{}{}</tr>",
        cell(old, "del", "−"),
        cell(new, "ins", "+")
    );
}

fn without_newline(line: &str) -> String {
    line.strip_suffix('\n').unwrap_or(line).to_owned()
}
