//! `check --junit FILE`: the run as JUnit XML, the shape CI servers read (Jenkins, GitLab,
//! GitHub's test reporters). It follows Jenkins' `junit-10.xsd`, the schema pytest validates its
//! own `--junitxml` against: `<testsuites>` holding one `<testsuite>`, one `<testcase>` per
//! scene (`classname` its folder, `name` its file name), a `<failure>` for a mismatch, a missing
//! golden or a denied diagnostic (the body is what the text form prints: the segment diff, then
//! the golden's diff), and an `<error>` for input that cannot be read.

use std::fmt::Write as _;
use std::time::Duration;

use super::{Checked, Outcome};

/// The JUnit XML of a run. `suite` names the suite (the CLI adds the shard to it).
pub fn junit_xml(results: &[Checked], suite: &str, total: Duration) -> String {
    let failures = results
        .iter()
        .filter(|c| !c.passed() && !c.unreadable())
        .count();
    let errors = results.iter().filter(|c| c.unreadable()).count();
    let tests = results.len();
    let time = seconds(total);
    let suite = escape(suite);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{suite}\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{errors}\" time=\"{time}\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{suite}\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{errors}\" skipped=\"0\" time=\"{time}\">"
    );
    for c in results {
        push_case(&mut out, c);
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

fn push_case(out: &mut String, c: &Checked) {
    let name = c
        .path
        .file_name()
        .map_or_else(|| c.path.to_string_lossy(), |n| n.to_string_lossy());
    let class = c
        .path
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".to_owned());
    let _ = write!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
        escape(&class),
        escape(&name),
        seconds(c.elapsed)
    );
    let Some((element, kind, message, body)) = problem(c) else {
        out.push_str("/>\n");
        return;
    };
    let _ = writeln!(
        out,
        ">\n      <{element} type=\"{kind}\" message=\"{}\">{}</{element}>\n    </testcase>",
        escape(&message),
        escape(&body)
    );
}

/// `(element, type, message, body)` of a scene that did not pass.
fn problem(c: &Checked) -> Option<(&'static str, &'static str, String, String)> {
    let status = c.status();
    let failure = |message: String, body: String| Some(("failure", status, message, body));
    let error = |message: String| Some(("error", status, message.clone(), message));
    match &c.outcome {
        Outcome::Match | Outcome::Blessed if c.denied.is_empty() => None,
        Outcome::Match | Outcome::Blessed => {
            let body: String = c
                .denied
                .iter()
                .map(|f| {
                    format!(
                        "{} {}: {}\n",
                        f.llm, f.diagnostic.code, f.diagnostic.message
                    )
                })
                .collect();
            let codes: Vec<&str> = c
                .denied
                .iter()
                .map(|f| f.diagnostic.code.as_str())
                .collect();
            failure(format!("denied diagnostics: {}", codes.join(", ")), body)
        }
        Outcome::Mismatch(diff) => failure(
            mismatch_message(c),
            format!("{}{diff}", super::costs::text(&c.costs)),
        ),
        Outcome::MissingGolden => {
            let message = format!(
                "no golden at {} (write it with --bless, then review it)",
                super::golden_path(&c.path).display()
            );
            failure(message.clone(), message)
        }
        Outcome::Unreadable(e) => error(e.to_string()),
        Outcome::PathUnreadable(e)
        | Outcome::GoldenUnreadable(e)
        | Outcome::GoldenUnwritable(e) => error(e.to_string()),
    }
}

/// One line on what differs first: the segment, and the tool or configured prompt behind it.
pub fn mismatch_message(c: &Checked) -> String {
    match &c.difference {
        Some(d) => {
            let by = match (&d.tool, d.prompt) {
                (Some(tool), _) => format!(" ({tool}'s text)"),
                (None, Some(i)) => format!(" ({}[{i}])", d.segment),
                (None, None) => String::new(),
            };
            format!("the golden differs: first in {} · {}{by}", d.llm, d.segment)
        }
        None => "the golden differs (not in a segment's text: see the diff)".to_owned(),
    }
}

/// Seconds with three decimals, as `junit-10.xsd`'s `SUREFIRE_TIME` allows.
fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// Text for an XML 1.0 attribute or element: the five special characters escaped, and the
/// characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates cannot occur in a
/// `str`, U+FFFE and U+FFFF) replaced by U+FFFD, so a scene's odd bytes cannot break the file.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(ch),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
