//! `prompt-inspector verify`: recorded calls, predicted against billed (docs/cli.md). Exit 0
//! verified (misses are reported, not failed), 1 a cause `--deny` names, 2 unreadable input (each
//! file that cannot be read is reported in its place and the rest are verified), an unknown
//! `--model` or a models file that cannot be used.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompt_inspector::check::github::{escape_data, escape_property};
use prompt_inspector::check::junit::escape;
use prompt_inspector::pricing::minimum::thousands;
use prompt_inspector::pricing::Table;
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::verify::{
    self, CallResult, CauseOut, ConversationResult, InputError, Options, VerifyReport,
};
use serde::Serialize;

/// What `verify` prints on stdout.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyFormat {
    /// Each call's figures and causes, each conversation's totals, and a summary.
    Text,
    /// The report: `{conversations, summary, errors}`.
    Json,
    /// JUnit XML: a test suite per conversation, a test case per call, failed by a denied cause.
    Junit,
    /// GitHub Actions workflow commands: an annotation per cause on the call's file.
    Github,
}

/// Everything `verify` was asked for.
pub struct VerifyArgs<'a> {
    pub paths: &'a [PathBuf],
    pub format: VerifyFormat,
    pub deny: &'a [DiagnosticCode],
    pub models: &'a [String],
    pub table: Option<&'a Path>,
}

/// `--format json`: the report and the files that could not be read.
#[derive(Serialize)]
struct JsonOut<'a> {
    #[serde(flatten)]
    report: &'a VerifyReport,
    errors: Vec<ErrorOut<'a>>,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    file: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    line: usize,
    #[serde(skip_serializing_if = "is_zero")]
    column: usize,
    #[serde(skip_serializing_if = "str::is_empty")]
    pointer: &'a str,
    message: &'a str,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub fn run(args: &VerifyArgs<'_>) -> ExitCode {
    let table = match args.table {
        Some(p) => match Table::load_file(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => Table::builtin(),
    };
    if !args.models.is_empty() {
        if let Err(e) = table.select(args.models) {
            eprintln!("error: --model: {e}");
            return ExitCode::from(2);
        }
    }
    let options = Options {
        table,
        fallback: args.models.to_vec(),
    };
    let loaded = verify::load_paths(args.paths);
    for e in &loaded.errors {
        eprintln!("error: {e}");
    }
    let report = match verify::verify(&loaded.calls, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let out = match args.format {
        VerifyFormat::Text => text(&report, &loaded.errors, args.deny),
        VerifyFormat::Json => crate::output::json(&JsonOut {
            report: &report,
            errors: loaded
                .errors
                .iter()
                .map(|e| ErrorOut {
                    file: &e.file,
                    line: e.line,
                    column: e.column,
                    pointer: &e.pointer,
                    message: &e.message,
                })
                .collect(),
        }),
        VerifyFormat::Junit => junit(&report, &loaded.errors, args.deny),
        VerifyFormat::Github => github(&report, &loaded.errors, args.deny),
    };
    let emitted = crate::output::emit(&out);
    if emitted != ExitCode::SUCCESS {
        return emitted;
    }
    if !loaded.errors.is_empty() {
        return ExitCode::from(2);
    }
    if denied(&report, args.deny).next().is_some() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Each call's causes that `--deny` names.
fn denied<'r>(
    report: &'r VerifyReport,
    deny: &'r [DiagnosticCode],
) -> impl Iterator<Item = (&'r CallResult, &'r CauseOut)> + 'r {
    report
        .conversations
        .iter()
        .flat_map(|c| &c.calls)
        .flat_map(|call| call.causes.iter().map(move |k| (call, k)))
        .filter(move |(_, k)| deny.contains(&k.code))
}

/// `1234` tokens as `1,234`.
fn tok(n: u32) -> String {
    thousands(n as usize)
}

fn usd(x: f64) -> String {
    if x < 0.0 {
        format!("-${:.6}", -x)
    } else {
        format!("${x:.6}")
    }
}

fn signed(n: i32) -> String {
    if n > 0 {
        format!("+{}", tok(n.unsigned_abs()))
    } else if n < 0 {
        format!("-{}", tok(n.unsigned_abs()))
    } else {
        "0".to_owned()
    }
}

/// The readable form.
fn text(report: &VerifyReport, errors: &[InputError], deny: &[DiagnosticCode]) -> String {
    let mut out = String::new();
    for conversation in &report.conversations {
        conversation_text(&mut out, conversation, deny);
    }
    summary_text(&mut out, report);
    for e in errors {
        let _ = writeln!(out, "UNREADABLE {e}");
    }
    out
}

fn conversation_text(out: &mut String, c: &ConversationResult, deny: &[DiagnosticCode]) {
    let _ = writeln!(
        out,
        "Conversation {} ({} call{})",
        c.name,
        c.calls.len(),
        if c.calls.len() == 1 { "" } else { "s" }
    );
    for call in &c.calls {
        call_text(out, call, deny);
    }
    let t = &c.totals;
    let range = |low: u32, high: u32| {
        if low == high {
            tok(low)
        } else {
            format!("{}–{}", tok(low), tok(high))
        }
    };
    let cost = if (t.predicted_low_usd - t.predicted_high_usd).abs() < 5e-7 {
        usd(t.predicted_low_usd)
    } else {
        format!("{}–{}", usd(t.predicted_low_usd), usd(t.predicted_high_usd))
    };
    let _ = writeln!(
        out,
        "  Totals: input {} predicted, {} billed; cache read {} predicted, {} billed; written {} \
         predicted, {} billed; cost {cost} predicted, {} billed; {} miss{} costing {}\n",
        tok(t.predicted_input),
        tok(t.billed_input),
        range(t.predicted_read_low, t.predicted_read_high),
        tok(t.billed_read),
        tok(t.predicted_write),
        tok(t.billed_write),
        usd(t.billed_usd),
        t.misses,
        if t.misses == 1 { "" } else { "es" },
        usd(t.miss_cost_usd)
    );
}

fn call_text(out: &mut String, call: &CallResult, deny: &[DiagnosticCode]) {
    let name = Path::new(&call.label)
        .file_name()
        .map_or_else(|| call.label.clone(), |n| n.to_string_lossy().into_owned());
    let _ = writeln!(
        out,
        "  Call {}  {name}  {} {} (priced as {})",
        call.call,
        call.api.as_str(),
        call.model,
        call.priced_as
    );
    if let Some(note) = &call.price_note {
        let _ = writeln!(out, "    note        {note}");
    }
    if let Some(e) = &call.error {
        let _ = writeln!(out, "    error       {e}");
    }
    if let Some(i) = &call.input {
        let _ = writeln!(
            out,
            "    input       predicted {:>9}  billed {:>9}  difference {} ({:+.1}%), {}",
            tok(i.predicted),
            tok(i.billed),
            signed(i.difference),
            i.error_percent,
            i.provenance
        );
    } else {
        let _ = writeln!(
            out,
            "    input       billed {}",
            thousands(call.billed.input_total as usize)
        );
    }
    if let Some(r) = &call.cache_read {
        let predicted = if r.predicted_low == r.predicted_high {
            tok(r.predicted_high)
        } else {
            format!("{}–{}", tok(r.predicted_low), tok(r.predicted_high))
        };
        let from = r
            .from_call
            .map(|j| format!(", from call {j}"))
            .unwrap_or_default();
        let verdict = match (r.reported, r.agrees) {
            (false, _) => " (the usage reports no cache reads)",
            (true, true) => "",
            (true, false) => " (disagrees)",
        };
        let _ = writeln!(
            out,
            "    cache read  predicted {predicted:>9}  billed {:>9}{from}{verdict}",
            tok(r.billed)
        );
    }
    if let Some(w) = &call.cache_write {
        let ttl: Vec<String> = w
            .predicted_by_ttl
            .iter()
            .map(|t| format!("{} {}", tok(t.tokens), t.ttl))
            .collect();
        let ttl = if ttl.len() > 1 || (w.predicted > 0 && !ttl.is_empty()) {
            format!(" ({})", ttl.join(", "))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    cache write predicted {:>9}  billed {:>9}{ttl}",
            tok(w.predicted),
            tok(w.billed)
        );
    }
    let c = &call.cost;
    match (c.predicted_low_usd, c.predicted_high_usd, c.difference_usd) {
        (Some(low), Some(high), Some(d)) => {
            let predicted = if (low - high).abs() < 5e-7 {
                usd(low)
            } else {
                format!("{}–{}", usd(low), usd(high))
            };
            let _ = writeln!(
                out,
                "    input cost  predicted {predicted}  billed {}  difference {}",
                usd(c.billed_usd),
                usd(d)
            );
        }
        _ => {
            let _ = writeln!(out, "    input cost  billed {}", usd(c.billed_usd));
        }
    }
    for k in &call.causes {
        let mark = if deny.contains(&k.code) {
            "DENIED "
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    cause       {mark}{} ({}): {}",
            k.code,
            usd(k.cost_usd),
            k.message
        );
        if let Some(d) = &k.difference {
            let _ = writeln!(
                out,
                "                before {:?}\n                now    {:?}",
                d.before, d.now
            );
        }
    }
}

fn summary_text(out: &mut String, report: &VerifyReport) {
    let s = &report.summary;
    let _ = writeln!(
        out,
        "Summary: {} calls in {} conversations{}",
        s.calls,
        s.conversations,
        if s.errors > 0 {
            format!(", {} that cannot be predicted", s.errors)
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "  Predicted input against billed:");
    for a in &s.input {
        let name = a.api.map_or("all", |api| api.as_str());
        let share = |n: u32| n as f64 * 100.0 / a.calls.max(1) as f64;
        let _ = writeln!(
            out,
            "    {name:<17} {:>4} calls  median error {:>5.1}%  within 1%: {:>3} ({:>3.0}%)  within \
             the stated bound: {:>3} ({:>3.0}%)  low {}, high {}, max error {:.1}%",
            a.calls,
            a.median_error_percent,
            a.within_1_percent,
            share(a.within_1_percent),
            a.within_bound,
            share(a.within_bound),
            a.low,
            a.high,
            a.max_error_percent
        );
    }
    let c = &s.cache;
    let pct = |a: u32, b: u32| a as f64 * 100.0 / b.max(1) as f64;
    let _ = writeln!(
        out,
        "  Cache reads: the prediction agrees on {} of {} calls that report them ({:.0}%), on {} of \
         {} that read from the cache ({:.0}%)",
        c.agreeing,
        c.reporting,
        pct(c.agreeing, c.reporting),
        c.agreeing_reading,
        c.reading,
        pct(c.agreeing_reading, c.reading)
    );
    let _ = writeln!(
        out,
        "  Misses: {}, {} of them provider side (no cause in the requests)",
        c.misses, c.unexplained
    );
    for k in &s.causes {
        let _ = writeln!(
            out,
            "    {:<24} {:>4}  {}",
            k.code.as_str(),
            k.count,
            usd(k.cost_usd)
        );
    }
    let cost = if (s.predicted_low_usd - s.predicted_high_usd).abs() < 5e-7 {
        usd(s.predicted_low_usd)
    } else {
        format!("{}–{}", usd(s.predicted_low_usd), usd(s.predicted_high_usd))
    };
    let _ = writeln!(
        out,
        "  Input cost: {cost} predicted, {} billed",
        usd(s.billed_usd)
    );
}

/// JUnit XML: one suite per conversation, one case per call; a denied cause fails its call, a
/// file that cannot be read is an error case of a suite of its own.
fn junit(report: &VerifyReport, errors: &[InputError], deny: &[DiagnosticCode]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let tests: usize = report
        .conversations
        .iter()
        .map(|c| c.calls.len())
        .sum::<usize>()
        + errors.len();
    let failures = denied(report, deny)
        .map(|(call, _)| call as *const CallResult)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let _ = writeln!(
        out,
        "<testsuites name=\"prompt-inspector verify\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{}\">",
        errors.len()
    );
    for c in &report.conversations {
        let failed = c
            .calls
            .iter()
            .filter(|call| call.causes.iter().any(|k| deny.contains(&k.code)))
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">",
            escape(&c.name),
            c.calls.len()
        );
        for call in &c.calls {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\">",
                escape(&c.name),
                escape(&format!("call {}: {}", call.call, call.label))
            );
            let mine: Vec<&CauseOut> = call
                .causes
                .iter()
                .filter(|k| deny.contains(&k.code))
                .collect();
            if !mine.is_empty() {
                let codes: Vec<&str> = mine.iter().map(|k| k.code.as_str()).collect();
                let body: String = mine
                    .iter()
                    .map(|k| format!("{}: {}\n", k.code, k.message))
                    .collect();
                let _ = write!(
                    out,
                    "\n      <failure type=\"denied\" message=\"{}\">{}</failure>",
                    escape(&format!("denied causes: {}", codes.join(", "))),
                    escape(&body)
                );
            }
            let mut figures = String::new();
            call_text(&mut figures, call, deny);
            let _ = writeln!(
                out,
                "\n      <system-out>{}</system-out>\n    </testcase>",
                escape(&figures)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    if !errors.is_empty() {
        let _ = writeln!(
            out,
            "  <testsuite name=\"unreadable\" tests=\"{0}\" failures=\"0\" errors=\"{0}\" skipped=\"0\">",
            errors.len()
        );
        for e in errors {
            let _ = writeln!(
                out,
                "    <testcase classname=\"unreadable\" name=\"{}\">\n      <error type=\"unreadable\" \
                 message=\"{}\">{}</error>\n    </testcase>",
                escape(&e.file),
                escape(&e.message),
                escape(&e.to_string())
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// GitHub Actions commands: per cause an `::error` (denied), `::warning` or `::notice` on the
/// call's file, per unreadable file an `::error` at its line; then the summary as plain lines.
fn github(report: &VerifyReport, errors: &[InputError], deny: &[DiagnosticCode]) -> String {
    let mut out = String::new();
    for call in report.conversations.iter().flat_map(|c| &c.calls) {
        let file = workspace_path(&call.label);
        for k in &call.causes {
            let level = if deny.contains(&k.code) {
                "error"
            } else {
                match k.code.level() {
                    prompt_inspector::report::Level::Warning => "warning",
                    _ => "notice",
                }
            };
            let title = if deny.contains(&k.code) {
                format!("Denied {}", k.code)
            } else {
                k.code.to_string()
            };
            let _ = writeln!(
                out,
                "::{level} file={},title={}::call {}: {} ({})",
                escape_property(&file),
                escape_property(&title),
                call.call,
                escape_data(&k.message),
                usd(k.cost_usd)
            );
        }
    }
    for e in errors {
        let at = if e.line > 0 {
            format!(",line={},col={}", e.line, e.column.max(1))
        } else {
            String::new()
        };
        let message = if e.pointer.is_empty() {
            e.message.clone()
        } else {
            format!("{}: {}", e.pointer, e.message)
        };
        let _ = writeln!(
            out,
            "::error file={}{at},title=Unreadable recorded call::{}",
            escape_property(&workspace_path(&e.file)),
            escape_data(&message)
        );
    }
    let mut summary = String::new();
    summary_text(&mut summary, report);
    // The summary holds figures, API names and codes only: no line of it starts a command.
    out.push_str(&summary);
    out
}

/// A path as GitHub resolves it against the checkout: without a leading `./`.
fn workspace_path(path: &str) -> String {
    path.strip_prefix("./").unwrap_or(path).to_owned()
}
