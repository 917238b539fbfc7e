//! `check --html FILE`: a run on one page. A table of every scene with its status (in words),
//! then for each scene whose reports the run kept: its mismatch side by side, its denied
//! diagnostics, and its boards. The page has a byte budget ([`MAX_PAGE_BYTES`]) whatever fails;
//! what does not fit is named in a note.

use std::fmt::Write as _;

use serde_json::Value;

use super::{anchor, escape};
use crate::check::{Checked, Outcome};

/// The most bytes a run's page may have, whatever fails: what does not fit is left out, and
/// the page says how much and where to find it (docs/cli.md, "check --html").
pub const MAX_PAGE_BYTES: usize = 8 * 1024 * 1024;

/// The share of the page the table of scenes may take; the scenes' sections get the rest.
const MAX_SUMMARY_BYTES: usize = 3 * 1024 * 1024;

/// What the page itself takes around the table and the sections (the style sheet, the header,
/// the notes), kept out of the sections' share.
const PAGE_CHROME_BYTES: usize = 64 * 1024;

/// The page of a whole run. `shard` is `I/N` when the run is one shard of a corpus. The page is
/// at most [`MAX_PAGE_BYTES`]: the scenes' sections (mismatch, diagnostics, boards) are drawn
/// in order while they fit, and the table lists only the failing scenes when every scene does
/// not fit; a note says what was left out.
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
    let (sections, drawn) = sections(results);
    push_summary(&mut body, results, &drawn);
    let kept = results.iter().filter(|c| c.reports.is_some()).count();
    if kept < results.len() {
        let _ = writeln!(
            body,
            "<p class=\"muted\">Boards are drawn for at most {kept} of the {} scenes: a large run \
             keeps only the failing scenes' reports.</p>",
            results.len()
        );
    }
    let left_out = results
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            // A scene that does not load has no boards to leave out.
            let loaded = !matches!(
                c.outcome,
                Outcome::Unreadable(_) | Outcome::PathUnreadable(_)
            );
            !c.passed() && loaded && !drawn[*i]
        })
        .count();
    if left_out > 0 {
        let _ = writeln!(
            body,
            "<p class=\"muted left-out\" role=\"note\">{left_out} failing {} left out of this \
             page to keep it under {} MB: run <code>prompt-inspector check SCENE</code> on one to \
             see its diff; <code>check --format json</code> and <code>check --junit FILE</code> \
             list every scene with its status and difference.</p>",
            if left_out == 1 {
                "scene's mismatch and boards are"
            } else {
                "scenes' mismatches and boards are"
            },
            MAX_PAGE_BYTES / (1024 * 1024)
        );
    }
    body.push_str(&sections);
    body.push_str("</main>\n");
    super::page(&format!("Check: {passed} passed, {failed} failed"), &body)
}

/// The sections of the scenes whose reports the run kept, in order, while they fit in the
/// page's share for them; and which scenes have one. Drawing stops at the first that does not
/// fit, so what is left out is the end of the run, whatever its sizes.
fn sections(results: &[Checked]) -> (String, Vec<bool>) {
    let budget = MAX_PAGE_BYTES - MAX_SUMMARY_BYTES - PAGE_CHROME_BYTES;
    let mut out = String::new();
    let mut drawn = vec![false; results.len()];
    for (i, c) in results.iter().enumerate() {
        let Some(reports) = &c.reports else { continue };
        let mut section = String::new();
        push_scene(&mut section, i, c, reports);
        if out.len() + section.len() > budget {
            break;
        }
        out.push_str(&section);
        drawn[i] = true;
    }
    (out, drawn)
}

fn scene_id(i: usize) -> String {
    format!("scene-{}", i + 1)
}

/// The status in words, and a sign, so no status is told by colour alone.
fn status_words(c: &Checked) -> (&'static str, &'static str) {
    let sign = if c.passed() { "✓" } else { "✗" };
    (sign, c.status())
}

/// The table of the run: every scene when they fit in [`MAX_SUMMARY_BYTES`], else the failing
/// ones while they fit, with a note saying how many are not listed.
fn push_summary(out: &mut String, results: &[Checked], drawn: &[bool]) {
    out.push_str(
        "<table class=\"summary\"><caption>Every scene of the run, in the order checked\
         </caption><thead><tr><th scope=\"col\">Scene</th><th scope=\"col\">Status</th>\
         <th scope=\"col\">What</th><th scope=\"col\">Seconds</th></tr></thead><tbody>\n",
    );
    let mut rows = String::new();
    let mut listed = 0;
    for (i, c) in results.iter().enumerate() {
        push_row(&mut rows, i, c, drawn[i]);
        if rows.len() > MAX_SUMMARY_BYTES {
            break;
        }
        listed += 1;
    }
    if listed < results.len() {
        // Not every scene fits: the failing ones are what the page is for.
        rows.clear();
        listed = 0;
        for (i, c) in results.iter().enumerate().filter(|(_, c)| !c.passed()) {
            let before = rows.len();
            push_row(&mut rows, i, c, drawn[i]);
            if rows.len() > MAX_SUMMARY_BYTES {
                rows.truncate(before);
                break;
            }
            listed += 1;
        }
    }
    out.push_str(&rows);
    out.push_str("</tbody></table>\n");
    if listed < results.len() {
        let _ = writeln!(
            out,
            "<p class=\"muted left-out\" role=\"note\">The table lists {listed} of the {} scenes \
             (the failing ones, to keep this page under {} MB); <code>check --format \
             json</code> and <code>check --junit FILE</code> list every scene.</p>",
            results.len(),
            MAX_PAGE_BYTES / (1024 * 1024)
        );
    }
}

fn push_row(out: &mut String, i: usize, c: &Checked, drawn: bool) {
    let path = escape(&c.path.display().to_string());
    let name = if drawn {
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
    let now = crate::check::read_report(&reports.now).unwrap_or(Value::Null);
    if let Some(before) = &reports.before {
        let before = crate::check::read_report(before).unwrap_or(Value::Null);
        out.push_str("<h3>What differs from the golden</h3>\n");
        push_cost_changes(out, &c.costs, &now);
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

/// The mismatch's cost changes (`check::costs`): a row per family and model, golden → now, each
/// with its provenance; then when and where the prices were read (the kept reports' `costs`
/// carry the rows' dates and pages).
fn push_cost_changes(out: &mut String, changes: &[crate::check::costs::CostChange], now: &Value) {
    use crate::check::costs::{delta, usd_delta};
    if changes.is_empty() {
        return;
    }
    out.push_str(
        "<table class=\"costs\"><caption>What the change costs, golden → now: each call's input as \
         its model's provider bills it, priced as a first call; the cache read is what a cache \
         holding the golden's call serves it sent again → the call now</caption><thead><tr>\
         <th scope=\"col\">Call · model</th><th scope=\"col\">Input tokens</th>\
         <th scope=\"col\">Cost</th><th scope=\"col\">Cache read</th>\
         <th scope=\"col\">Provenance</th></tr></thead><tbody>\n",
    );
    for c in changes {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{} · {}</th><td>{} → {} ({})</td><td>${:.6} → ${:.6} ({})</td>\
             <td>{} → {} ({})</td><td>{}</td></tr>",
            c.llm,
            escape(&c.model),
            c.tokens_before,
            c.tokens_after,
            escape(&delta(c.token_delta())),
            c.cost_before_usd,
            c.cost_after_usd,
            escape(&usd_delta(c.cost_delta_usd(), 6)),
            c.cache_read_before,
            c.cache_read_after,
            escape(&delta(c.cache_read_delta())),
            escape(&c.provenance.to_string()),
        );
    }
    out.push_str("</tbody></table>\n");
    let costs: Vec<Value> = ["chat", "desk"]
        .iter()
        .filter_map(|f| now.get(f)?.get("costs")?.as_array().cloned())
        .flatten()
        .collect();
    super::board::prices_read(out, &costs, "prices_read", "price_sources");
}
