//! `check --format markdown`: a run as a pull-request comment (docs/cli.md). A table of the
//! scenes that fail, with what each mismatch changes in tokens, in cost per 1,000 calls and in
//! the prompt cache's read, per family and model; then each mismatch's segment diff folded in
//! a `<details>` block. Made offline from the run's results: no API key, nothing fetched.
//!
//! A comment is at most 65,536 characters on GitHub: the diffs are added while they fit in
//! [`MAX_COMMENT_BYTES`], each cut to [`MAX_DIFF_LINES`] lines, and a note says what was left
//! out.

use std::fmt::Write as _;

use super::costs::{delta, thousands, usd_delta, CostChange};
use super::{Checked, Outcome};

/// What the comment may take, under GitHub's 65,536 characters with room for a bot's header.
pub const MAX_COMMENT_BYTES: usize = 60_000;

/// The most lines of one scene's segment diff in the comment.
pub const MAX_DIFF_LINES: usize = 120;

/// The Markdown summary of a run. `shard` is `I/N` when the run is one shard of a corpus;
/// `prices_read` the dates the models' prices were read (`pricing::read_dates`).
pub fn summary(results: &[Checked], shard: Option<&str>, prices_read: &[&str]) -> String {
    let failed: Vec<&Checked> = results.iter().filter(|c| !c.passed()).collect();
    let passed = results.len() - failed.len();
    let mut out = String::new();
    let shard = shard.map(|s| format!(" (shard {s})")).unwrap_or_default();
    let _ = writeln!(
        out,
        "### Prompt Inspector check{shard}: {passed} passed, {} failed\n",
        failed.len()
    );
    if failed.is_empty() {
        let _ = writeln!(out, "Every scene ({}) matches its golden.", results.len());
        return out;
    }
    out.push_str(
        "| Scene | Status | Call · model | Input tokens | Cost per 1,000 calls | Cache read | Provenance |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for c in &failed {
        push_rows(&mut out, c);
    }
    let dates = if prices_read.is_empty() {
        String::new()
    } else {
        format!(
            " Prices as read on {} (docs/models.md).",
            prices_read.join(", ")
        )
    };
    let _ = writeln!(
        out,
        "\nGolden → now. Input tokens: the call's input as the model's provider bills it; cost: \
         that input as a first call, nothing cached; cache read: what a prompt cache holding the \
         golden's call serves that call sent again → the call now (smaller when the change is \
         early in the request).{dates}\n"
    );
    push_diffs(&mut out, &failed);
    out
}

/// The table rows of one failing scene: one per family and model its mismatch changes, or one
/// that says why there are none.
fn push_rows(out: &mut String, c: &Checked) {
    let scene = cell(&c.path.display().to_string());
    let status = c.status().replace('_', " ");
    if c.costs.is_empty() {
        let why = match &c.outcome {
            Outcome::Mismatch(_) => "no change to what is sent",
            Outcome::MissingGolden => "no golden yet: write it with `--bless`, then review it",
            Outcome::Match | Outcome::Blessed => "a denied diagnostic",
            _ => "cannot be read: the check's own log says why",
        };
        let _ = writeln!(out, "| {scene} | {status} | {why} | | | | |");
        return;
    }
    for (i, change) in c.costs.iter().enumerate() {
        let (scene, status) = if i == 0 {
            (scene.as_str(), status.as_str())
        } else {
            ("", "")
        };
        let _ = writeln!(
            out,
            "| {scene} | {status} | {} · `{}` | {} | {} | {} | {} |",
            change.llm,
            change.model,
            tokens(change),
            per_thousand(change),
            cache(change),
            change.provenance
        );
    }
}

fn tokens(c: &CostChange) -> String {
    counts(c.tokens_before, c.tokens_after, c.token_delta())
}

fn per_thousand(c: &CostChange) -> String {
    let (before, after) = (c.cost_before_usd * 1000.0, c.cost_after_usd * 1000.0);
    format!(
        "${before:.4} → ${after:.4} ({})",
        usd_delta(after - before, 4)
    )
}

fn cache(c: &CostChange) -> String {
    counts(
        c.cache_read_before,
        c.cache_read_after,
        c.cache_read_delta(),
    )
}

/// `1,200 → 1,350 (+150)`.
fn counts(before: usize, after: usize, change: i64) -> String {
    format!(
        "{} → {} ({})",
        thousands(before as i64),
        thousands(after as i64),
        delta(change)
    )
}

/// A table cell's text: in code, with what would end the cell or the code escaped.
fn cell(text: &str) -> String {
    let escaped = html_escape(text).replace('|', "&#124;");
    format!("<code>{escaped}</code>")
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace(['\n', '\r'], " ")
}

/// Each mismatch's segment diff in a folded block, while the comment has room.
fn push_diffs(out: &mut String, failed: &[&Checked]) {
    let mut left_out = 0;
    for c in failed {
        let Outcome::Mismatch(diff) = &c.outcome else {
            continue;
        };
        let Some(section) = segment_section(diff) else {
            continue;
        };
        let block = details(&c.path.display().to_string(), section);
        if out.len() + block.len() > MAX_COMMENT_BYTES {
            left_out += 1;
            continue;
        }
        out.push_str(&block);
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n{left_out} more segment diffs are left out to keep the comment under GitHub's \
             size limit: the check's own log has them."
        );
    }
}

/// The segment section at the head of a mismatch's diff (`check::mismatch_diff`): the lines
/// before the golden's unified diff, whose first line starts with `--- `.
fn segment_section(diff: &str) -> Option<&str> {
    let end = if diff.starts_with("--- ") {
        0
    } else {
        diff.find("\n--- ").map_or(diff.len(), |i| i + 1)
    };
    let section = &diff[..end];
    (!section.trim().is_empty()).then_some(section)
}

/// `<details>` with the scene as its summary and the diff in a fence longer than any run of
/// backticks in it.
fn details(scene: &str, section: &str) -> String {
    let lines: Vec<String> = as_diff(section);
    let mut body = lines
        .iter()
        .take(MAX_DIFF_LINES)
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > MAX_DIFF_LINES {
        let _ = write!(
            body,
            "\n… {} more lines (the check's own log has them)",
            lines.len() - MAX_DIFF_LINES
        );
    }
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "<details><summary>{}: segments that differ</summary>\n\n{fence}diff\n{body}\n{fence}\n\n</details>\n",
        cell(scene)
    )
}

/// The segment section's lines as a diff GitHub colours: each changed line starts with its
/// sign, each segment's heading is a hunk header (`@@ chat · system_msg_prompt @@`).
fn as_diff(section: &str) -> Vec<String> {
    let mut in_segments = false;
    section
        .lines()
        .map(|line| {
            if line.starts_with("Segments whose text differs") {
                in_segments = true;
                return line.to_owned();
            }
            if line.starts_with("Tools whose outcome differs") {
                in_segments = false;
                return line.to_owned();
            }
            match line.strip_prefix("    ") {
                Some(rest) if in_segments => rest.to_owned(),
                _ if in_segments && line.starts_with("  ") => format!("@@ {} @@", line.trim()),
                _ => line.to_owned(),
            }
        })
        .collect()
}
