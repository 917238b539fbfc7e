//! Single-file HTML reports (`render --format html`, `check --html FILE`): the segment board as
//! the app draws it (pieces coloured by source and labelled with it, forbidden segments hatched
//! and badged with the rule's reason, tokens and cost, tool statuses, diagnostics), and for a
//! mismatch the changed segments side by side.
//!
//! The file stands alone: no script, no external resource, and a Content-Security-Policy that
//! allows nothing but its own style sheet (by hash) and `data:` images, so opening it makes no
//! network request even if a scene's text holds markup (all text is escaped anyway). Native
//! elements and headings make it keyboard navigable and readable by a screen reader; a print
//! style keeps the colours and breaks pages between cards.
//!
//! Reports are read as JSON values, the shape goldens hold, so a golden from disk and a report
//! rendered now draw alike.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;
use sha2::Digest as _;

mod board;
mod diff;
mod run;

pub use run::{check_report, MAX_PAGE_BYTES};

const STYLE: &str = include_str!("report.css");

/// The report of one scene: both families' boards. `reports` is `{scene, chat, desk}` as a
/// golden holds it (with `costs` in each report when models were priced).
pub fn scene_report(reports: &Value, description: Option<&str>) -> String {
    let name = reports.get("scene").and_then(Value::as_str).unwrap_or("");
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header><h1>Scene <q>{}</q></h1>{}</header>",
        escape(name),
        generated_by()
    );
    body.push_str("<main id=\"main\">\n");
    board::push_scene(&mut body, reports, description, ("s0", name), 2);
    body.push_str("</main>\n");
    page(&format!("{name} · Prompt Inspector"), &body)
}

fn generated_by() -> String {
    format!(
        "<p class=\"muted\">Prompt Inspector {}: the prompt as the model sees it, segment by \
         segment. Colours mark each piece's source; its label says the same in words.</p>",
        env!("CARGO_PKG_VERSION")
    )
}

/// The whole file around `body`: the policy, the style, a skip link.
fn page(title: &str, body: &str) -> String {
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(STYLE));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'sha256-{hash}'; img-src data:; base-uri 'none'; form-action 'none'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"prompt-inspector {}\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#main\">Skip to the report</a>\n{body}</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        escape(title),
    )
}

/// Text as HTML: `&`, `<`, `>`, `"` and `'` escaped (safe in elements and quoted attributes).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than tab and newline cannot be shown; the replacement character
            // marks where one was.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A fragment identifier made of `[a-z0-9-]` only.
fn anchor(parts: &[&str]) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            out.push('-');
        }
        for ch in part.chars() {
            if ch.is_ascii_alphanumeric() {
                out.push(ch.to_ascii_lowercase());
            } else if !out.ends_with('-') {
                out.push('-');
            }
        }
    }
    out
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn array_of<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn usize_of(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// US dollars as the app shows them: more decimals for small sums.
fn usd(amount: f64) -> String {
    if amount == 0.0 {
        "$0".to_owned()
    } else if amount < 0.01 {
        format!("${amount:.6}")
    } else {
        format!("${amount:.4}")
    }
}

#[cfg(test)]
mod tests;
