//! `check --html FILE`: a run on one page. A table of every scene with its status (in words),
//! then for each scene whose reports the run kept: its mismatch side by side, its denied
//! diagnostics, and its boards.

use std::fmt::Write as _;

use serde_json::Value;

use super::{anchor, escape};
use crate::check::{Checked, Outcome};

/// The page of a whole run. `shard` is `I/N` when the run is one shard of a corpus.
pub fn check_report(results: &[Checked], shard: Option<&str>) -> String {
    let failed = results.iter().filter(|c| !c.passed()).count();
    let passed = results.len() - failed;
    let mut body = String::new();
    let shard_note = shard
        .map(|s| format!(" (shard {})", escape(s)))
        .unwrap_or_default();
    let _ = writeln!(
        body,
        "<header><h1>Check: {passed} passed, {failed} failed{shard_note}</h1>{}</header>",
        super::generated_by()
    );
    body.push_str("<main id=\"main\">\n");
    push_summary(&mut body, results);
    let drawn = results.iter().filter(|c| c.reports.is_some()).count();
    if drawn < results.len() {
        let _ = writeln!(
            body,
            "<p class=\"muted\">Boards are drawn for {drawn} of the {} scenes: a large run keeps \
             only the failing scenes' reports.</p>",
            results.len()
        );
    }
    for (i, c) in results.iter().enumerate() {
        if let Some(reports) = &c.reports {
            push_scene(&mut body, i, c, reports);
        }
    }
    body.push_str("</main>\n");
    super::page(&format!("Check: {passed} passed, {failed} failed"), &body)
}

fn scene_id(i: usize) -> String {
    format!("scene-{}", i + 1)
}

/// The status in words, and a sign, so no status is told by colour alone.
fn status_words(c: &Checked) -> (&'static str, &'static str) {
    let sign = if c.passed() { "✓" } else { "✗" };
    (sign, c.status())
}

fn push_summary(out: &mut String, results: &[Checked]) {
    out.push_str(
        "<table class=\"summary\"><caption>Every scene of the run, in the order checked\
         </caption><thead><tr><th scope=\"col\">Scene</th><th scope=\"col\">Status</th>\
         <th scope=\"col\">What</th><th scope=\"col\">Seconds</th></tr></thead><tbody>\n",
    );
    for (i, c) in results.iter().enumerate() {
        let path = escape(&c.path.display().to_string());
        let name = if c.reports.is_some() {
            format!("<a href=\"#{}\">{path}</a>", scene_id(i))
        } else {
            path
        };
        let (sign, status) = status_words(c);
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{name}</th><td class=\"status status-{}\">{sign} {status}</td>\
             <td>{}</td><td>{:.3}</td></tr>",
            anchor(&[status]),
            escape(&what(c)),
            c.elapsed.as_secs_f64()
        );
    }
    out.push_str("</tbody></table>\n");
}

/// One line on why a scene failed.
fn what(c: &Checked) -> String {
    let denied = || {
        c.denied
            .iter()
            .map(|f| format!("denied {} ({})", f.diagnostic.code, f.llm))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match &c.outcome {
        Outcome::Match | Outcome::Blessed => denied(),
        Outcome::Mismatch(_) => crate::check::junit::mismatch_message(c),
        Outcome::MissingGolden => "no golden beside the scene".to_owned(),
        Outcome::Unreadable(e) => e.to_string(),
        Outcome::PathUnreadable(e)
        | Outcome::GoldenUnreadable(e)
        | Outcome::GoldenUnwritable(e) => e.to_string(),
    }
}

fn push_scene(out: &mut String, i: usize, c: &Checked, reports: &crate::check::Reports) {
    let id = scene_id(i);
    let (sign, status) = status_words(c);
    let _ = writeln!(
        out,
        "<section class=\"scene\" aria-labelledby=\"{id}\">\n<h2 id=\"{id}\">{} \
         <span class=\"status status-{}\">{sign} {status}</span></h2>",
        escape(&c.path.display().to_string()),
        anchor(&[status]),
    );
    let now: Value = match serde_json::from_str(&reports.now) {
        Ok(v) => v,
        Err(_) => Value::Null,
    };
    if let Some(before) = &reports.before {
        let before: Value = serde_json::from_str(before).unwrap_or(Value::Null);
        out.push_str("<h3>What differs from the golden</h3>\n");
        super::diff::push_segment_diff(out, &before, &now, 4);
        if let Outcome::Mismatch(diff) = &c.outcome {
            let _ = writeln!(
                out,
                "<details><summary>The golden's whole diff</summary><pre class=\"json-diff\">{}</pre></details>",
                escape(diff)
            );
        }
    }
    if !c.denied.is_empty() {
        out.push_str("<h3>Denied diagnostics</h3>\n<ul class=\"diagnostics\">\n");
        for f in &c.denied {
            let _ = writeln!(
                out,
                "<li><strong>{}</strong> <code>{}</code> ({}): {}</li>",
                escape(f.diagnostic.level.as_str()),
                escape(f.diagnostic.code.as_str()),
                f.llm,
                escape(&f.diagnostic.message)
            );
        }
        out.push_str("</ul>\n");
    }
    if now.is_object() {
        let label = c.path.display().to_string();
        super::board::push_scene(out, &now, reports.description.as_deref(), (&id, &label), 3);
    }
    out.push_str("</section>\n");
}
