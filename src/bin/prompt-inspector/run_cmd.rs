//! `prompt-inspector run`: replays a scene's `run` loop (docs/run-loop.md) and prints each request, the
//! blocks injected after it and the cache figures, as JSON or as a text that explains itself.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use prompt_inspector::pricing::Row;
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::runloop::{self, cache, IterationOut, RunMessage, RunReport, WholeRequests};

pub fn run(
    path: &Path,
    (as_json, shared): (bool, bool),
    (ids, table): (&[String], Option<&Path>),
    deny: &[DiagnosticCode],
) -> ExitCode {
    let (rows, scene) = match crate::models_arg::rows_and_scene((ids, table), path) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let models: Vec<&Row> = rows.iter().collect();
    let Some(spec) = &scene.run else {
        eprintln!(
            "error: {}: the scene has no \"run\" field (docs/scene-format.md), so there is no loop to replay",
            path.display()
        );
        return ExitCode::from(2);
    };
    let mut report = runloop::replay(spec);
    report.price(&models);
    let emitted = match (as_json, shared) {
        (true, true) => crate::output::emit_json(&report),
        // Each request whole, as docs/run-loop.md shows them: written out as it is serialised, so
        // memory stays linear in the rounds even though the output is not.
        (true, false) => crate::output::emit_json(&WholeRequests::new(&report)),
        (false, _) => crate::output::emit(&crate::wrap::wrap_text(
            &text(&scene.name, &report),
            crate::wrap::WIDTH,
        )),
    };
    crate::output::deny_exit(emitted, deny, &report.diagnostics)
}

fn indented(out: &mut String, gutter: &str, body: &str) {
    for line in body.split('\n') {
        let _ = writeln!(out, "{gutter}{line}");
    }
}

/// The first line of a message, cut at a word (or CJK character) to fit the listing's line.
fn first_line(s: &str) -> String {
    // The listing puts 30 columns before it: `   12. tool (call_1)            `.
    crate::wrap::summary(s, crate::wrap::WIDTH - 30)
}

fn describe(m: &RunMessage) -> String {
    let id = m
        .tool_call_id
        .as_deref()
        .map(|id| format!(" ({id})"))
        .unwrap_or_default();
    format!("{}{id}", m.role.as_str())
}

/// The readable form: what each block is and why it was (or was not) injected, and what the
/// prefix figures mean for a provider's prompt cache.
pub fn text(name: &str, r: &RunReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Run loop of {name:?} (xbot's design, docs/run-loop.md)\n"
    );
    let sys = &r.system;
    let _ =
        writeln!(
        out,
        "System message: built once from the parts {} (sorted by key, joined with a newline){}.",
        if sys.parts.is_empty() { "(none)".to_owned() } else { sys.parts.join(", ") },
        if sys.skipped.is_empty() {
            String::new()
        } else {
            format!("; empty parts skipped: {}", sys.skipped.join(", "))
        }
    );
    let _ = writeln!(
        out,
        "It is marked cache_hint={} and never rebuilt inside the loop, so every request starts with \
         the same bytes and a provider's prompt cache can keep serving them. Changes are reported \
         instead by appending blocks to the newest message.",
        sys.cache_hint
    );
    if r.dropped_system_messages > 0 {
        let _ = writeln!(
            out,
            "{} system message(s) of the history were dropped: the pipeline's system message replaces them.",
            r.dropped_system_messages
        );
    }
    out.push('\n');
    let _ = writeln!(out, "Initial directory: {}\n", show_dir(&r.initial_cwd));
    let mut prev_cwd = r.initial_cwd.as_str();
    let mut prev = None;
    for (i, it) in r.iterations.iter().enumerate() {
        round(&mut out, i + 1, r, it, prev_cwd, prev);
        prev_cwd = &it.cwd;
        prev = Some((it.request_messages, it.cache.request_bytes));
    }
    if let Some(next) = r.next_request_messages {
        let _ = writeln!(
            out,
            "The recording ends after a round with tool calls: the next request ({next} messages) would \
             carry the blocks injected after the last round; the model's answer to it is not recorded.\n"
        );
    }
    if r.ignored_iterations > 0 {
        let _ = writeln!(
            out,
            "{} recorded round(s) after the first answer without tool calls are never reached: the loop \
             ends as soon as the model answers with text only.\n",
            r.ignored_iterations
        );
    }
    crate::models_arg::costs(&mut out, &r.models, "round");
    for d in &r.diagnostics {
        let _ = writeln!(out, "[{}] {}", d.code, d.message);
    }
    out
}

fn round(
    out: &mut String,
    n: usize,
    r: &RunReport,
    it: &IterationOut,
    prev_cwd: &str,
    prev: Option<(usize, usize)>,
) {
    let c = &it.cache;
    let _ = writeln!(
        out,
        "── Round {n} ── request: {} messages, {} bytes, {} tokens (o200k_base)",
        it.request_messages, c.request_bytes, c.request_tokens
    );
    let prev_bytes = prev.map(|(_, bytes)| bytes);
    // Only the messages new in this request are listed: the loop only appends.
    let repeated = prev.map_or(0, |(messages, _)| messages);
    if repeated > 0 {
        let _ = writeln!(
            out,
            "  {:>3}. {:<22} unchanged: the loop only appends",
            format!("1–{repeated}"),
            format!("request {}", n - 1)
        );
    }
    let request = r.first_messages(it.request_messages);
    for (k, m) in request.iter().enumerate().skip(repeated) {
        let shown = if m.content.is_empty() && !m.tool_calls.is_empty() {
            let names: Vec<&str> = m.tool_calls.iter().map(|c| c.name.as_str()).collect();
            format!("(calls {})", names.join(", "))
        } else {
            first_line(&m.content)
        };
        let _ = writeln!(out, "   {:>2}. {:<22} {shown}", k + 1, describe(m));
    }
    cache_text(out, n, it, prev_bytes);
    if it.tools.is_empty() {
        let _ = writeln!(
            out,
            "   The model answered without tool calls: the loop ends here and nothing is injected.\n"
        );
        indented(out, "   │ ", &it.assistant.content);
        out.push('\n');
        return;
    }
    let _ = writeln!(out, "   The model called: {}", it.tools.join(", "));
    let last = match it.appended_to {
        Some("tool") => "the last tool result".to_owned(),
        Some(role) => {
            format!("the newest message, role {role}: the round recorded no tool results")
        }
        None => "none".to_owned(),
    };
    let why = match it.dynamic_context {
        Some("baseline") if it.cwd != prev_cwd => format!(
            "not injected: the directory changed from {} to {} in this round, but the \
             injector's first call (a first call again whenever its last directory is empty) only \
             records the baseline, {}, so this change is never reported",
            show_dir(prev_cwd),
            show_dir(&it.cwd),
            show_dir(&it.cwd)
        ),
        Some("baseline") => format!(
            "not injected: the injector's first call (a first call again whenever its last \
             directory is empty) only records the baseline directory: {}",
            show_dir(&it.cwd)
        ),
        Some("unchanged") => format!(
            "not injected: the directory is still {}, as after the previous round",
            show_dir(&it.cwd)
        ),
        Some("changed") => format!(
            "injected: the directory changed from {} to {}; the system message still names \
             the old one, so the model is told here",
            show_dir(prev_cwd),
            show_dir(&it.cwd)
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "   Dynamic context (<dynamic-context>, facts that changed): {why}"
    );
    let _ = writeln!(
        out,
        "   Appended to the last message ({last}), each after a blank line:"
    );
    for block in &it.injected {
        indented(out, "   │ ", block);
    }
    out.push('\n');
}

fn show_dir(d: &str) -> String {
    if d.is_empty() {
        "(empty)".to_owned()
    } else {
        d.to_owned()
    }
}

fn cache_text(out: &mut String, n: usize, it: &IterationOut, prev_bytes: Option<usize>) {
    let c = &it.cache;
    let (Some(same_sys), Some(bytes), Some(tokens)) = (
        c.system_identical,
        c.common_prefix_bytes,
        c.common_prefix_tokens,
    ) else {
        let _ = writeln!(
            out,
            "   Cache: the first request, nothing to reuse yet (a provider caches it for the next ones)."
        );
        return;
    };
    let repeated = if prev_bytes == Some(bytes) {
        format!("the whole previous request ({bytes} bytes, {tokens} tokens) is repeated at its start: the loop only appends")
    } else {
        format!("the first {bytes} bytes ({tokens} tokens) are identical to the previous request")
    };
    let _ = writeln!(
        out,
        "   Cache against round {}'s request: system message {}; {repeated}. \
         A prompt cache reuses only such a common prefix: OpenAI serves {} tokens from its cache \
         (automatic from {} matching tokens, in {}-token steps); Anthropic, with xbot's one \
         breakpoint on the static system message, serves {} (a cached prefix needs at least {} tokens).",
        n - 1,
        if same_sys { "identical" } else { "CHANGED (nothing can be reused)" },
        c.openai_cached_tokens.unwrap_or(0),
        cache::OPENAI_MIN_TOKENS,
        cache::OPENAI_STEP_TOKENS,
        c.anthropic_cached_tokens.unwrap_or(0),
        cache::ANTHROPIC_MIN_TOKENS,
    );
    if prev_bytes == Some(bytes) && tokens < cache::OPENAI_MIN_TOKENS {
        let _ = writeln!(
            out,
            "   (Nothing is served only because the shared prefix is under {} tokens; the prefix itself \
             is intact, so a longer session would be served from the cache.)",
            cache::OPENAI_MIN_TOKENS
        );
    }
}
