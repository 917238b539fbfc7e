//! `prompt-inspector cache`: cache blame across successive TFRobot calls (one scene per call):
//! where each request first differs from the previous one, which segment and source wrote that
//! byte, and what OpenAI's and Anthropic's prompt caches can reuse.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompt_inspector::pricing::Row;
use prompt_inspector::report::DiagnosticCode;
use prompt_inspector::runloop::blame::{CacheReport, Location, StepOut};
use prompt_inspector::runloop::cache;

pub fn run(
    paths: &[PathBuf],
    as_json: bool,
    (ids, table, calibration): (&[String], Option<&Path>, Option<&Path>),
    deny: &[DiagnosticCode],
) -> ExitCode {
    let rows = match crate::models_arg::chosen(ids, table) {
        Ok(rows) => rows,
        Err(code) => return code,
    };
    let calibration = match crate::calibrate_cmd::load(calibration) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let models: Vec<&Row> = rows.iter().collect();
    let report = match prompt_inspector::conversation::blame_files(paths, &models) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let predicted = calibration
        .as_ref()
        .map(|c| predicted_per_call(paths, &models, c))
        .unwrap_or_default();
    let out = if as_json && !predicted.is_empty() {
        let mut value = serde_json::to_value(&report).unwrap_or_default();
        if let (Some(obj), Ok(calls)) = (value.as_object_mut(), serde_json::to_value(&predicted)) {
            obj.insert("predicted_input".to_owned(), calls);
        }
        crate::output::json(&value)
    } else if as_json {
        crate::output::json(&report)
    } else {
        let mut out = text(&report);
        for (i, rows) in predicted.iter().enumerate() {
            let label = format!(" of call {} (calibrated)", i + 1);
            crate::calibrate_cmd::predicted_text(&mut out, rows, &label);
        }
        out
    };
    let emitted = crate::output::emit(&out);
    crate::output::deny_exit(
        emitted,
        deny,
        report.diagnostics.iter().map(|f| &f.diagnostic),
    )
}

/// Each call's predicted billed input per model, calibrated (the scenes were read once
/// already, so a scene that cannot be read here is left out).
fn predicted_per_call(
    paths: &[PathBuf],
    models: &[&Row],
    calibration: &prompt_inspector::billing::calibration::Calibration,
) -> Vec<Vec<crate::calibrate_cmd::PredictedInput>> {
    paths
        .iter()
        .filter_map(|p| {
            let scene = prompt_inspector::scene::load_file(p).ok()?;
            Some(crate::calibrate_cmd::predicted(
                p,
                &scene,
                models,
                calibration,
            ))
        })
        .collect()
}

fn place(l: &Location) -> String {
    let Some(message) = l.message else {
        return match &l.tool {
            Some(t) => format!("the tool definitions (sent before the messages), {t}'s"),
            None => "the tool definitions (sent before the messages)".to_owned(),
        };
    };
    let seg = l.segment.unwrap_or("?");
    let what = match (l.source, &l.tool, l.index) {
        ("role", _, _) => "its role header (a different message starts here)".to_owned(),
        ("tool", Some(t), _) => format!("text written by tool {t}"),
        ("config", _, Some(i)) => format!("configured prompt {i}"),
        ("message", _, Some(i)) => format!("recorded message #{i} of the stream"),
        ("user_input", _, _) => "the user's input".to_owned(),
        (s, _, _) => s.to_owned(),
    };
    format!(
        "message {} ({}, segment {seg}), {what}",
        message + 1,
        l.role
    )
}

/// The readable form, explaining the figures for someone new to prompt caching.
pub fn text(r: &CacheReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Prompt-cache blame over {} successive chat calls (docs/run-loop.md)\n\n\
         A provider's prompt cache reuses only a prefix that a request shares, byte for byte, with an\n\
         earlier one. Below, each call is compared with the one before it: the first byte that differs\n\
         and who wrote it (a configured prompt, a tool, or a recorded message), then what each provider\n\
         serves from its cache. Tokens are counted with o200k_base on the provider-neutral\n\
         serialisation: an estimate, within {}% of what OpenAI bills for a call long enough to be\n\
         cached and within {}% for the other providers (docs/models.md, \"Provenance of the\n\
         figures\"); an image is one part priced by its size as {} prices it (each model's costs\n\
         below price it by that model's provider's rule; an image given by URL is an estimate), and calls\n\
         share it when its bytes are the same.\n\
         OpenAI caches automatically from {} tokens, hits growing in {}-token steps. Anthropic caches\n\
         only at explicit breakpoints (at most {}), each prefix at least {} tokens; they are placed at\n\
         the end of the system message, of the user's input (the next turn's history ends there), of\n\
         the intermediate messages and of the request: the points after which the chat layout\n\
         starts changing from call to call.\n",
        r.steps.len(),
        prompt_inspector::pricing::request::OPENAI_SERIALISATION_BOUND_PERCENT,
        prompt_inspector::pricing::request::TEXT_BOUND_PERCENT,
        cache::REFERENCE_IMAGE_MODEL.1,
        cache::OPENAI_MIN_TOKENS,
        cache::OPENAI_STEP_TOKENS,
        cache::ANTHROPIC_MAX_BREAKPOINTS,
        cache::ANTHROPIC_MIN_TOKENS,
    );
    for (i, s) in r.steps.iter().enumerate() {
        step(&mut out, i, s);
    }
    crate::models_arg::costs(&mut out, &r.models, "call");
    what_ifs(&mut out, r);
    lint(&mut out, r);
    out
}

/// The cache-safety lint's findings (docs/diagnostics.md), each under the call it concerns.
fn lint(out: &mut String, r: &CacheReport) {
    let _ = writeln!(out, "Cache-safety lint (docs/diagnostics.md):");
    if r.diagnostics.is_empty() {
        let _ = writeln!(out, "  (nothing found)");
    }
    for f in &r.diagnostics {
        let call = match (f.call, &f.scene) {
            (Some(k), Some(scene)) => format!("call {} ({scene}) ", k + 1),
            _ => String::new(),
        };
        let level = match f.diagnostic.level {
            prompt_inspector::inject::Level::Error => "error",
            prompt_inspector::inject::Level::Warning => "warning",
            prompt_inspector::inject::Level::Info => "info",
        };
        let _ = writeln!(
            out,
            "  {call}{level} [{}] {}",
            f.diagnostic.code, f.diagnostic.message
        );
    }
}

/// What each early injection costs: the same calls with the tool's text moved to the latest
/// segment tools may write.
fn what_ifs(out: &mut String, r: &CacheReport) {
    if r.what_if.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "What each tool's placement costs: the same calls with its chat text moved to the latest\n\
         segment a tool may write (positive: the placement costs that much more):\n"
    );
    for w in &r.what_if {
        let _ = writeln!(out, "{}: {} → {}", w.tool, w.from, w.to);
        for m in &w.models {
            let _ = writeln!(
                out,
                "  {:<32} ${:.6} as recorded, ${:.6} moved: {}${:.6}",
                m.model,
                m.cost_usd,
                m.moved_cost_usd,
                if m.placement_cost_usd < 0.0 { "-" } else { "+" },
                m.placement_cost_usd.abs()
            );
        }
        out.push('\n');
    }
}

fn step(out: &mut String, i: usize, s: &StepOut) {
    let images = match s.images {
        0 => String::new(),
        1 => format!(
            " (1 image, {} tokens as {} counts it)",
            s.image_tokens,
            cache::REFERENCE_IMAGE_MODEL.1
        ),
        n => format!(
            " ({n} images, {} tokens as {} counts them)",
            s.image_tokens,
            cache::REFERENCE_IMAGE_MODEL.1
        ),
    };
    let _ = writeln!(
        out,
        "── Call {} ({}) ── {} messages, {} bytes, {} tokens{images}",
        i + 1,
        s.scene,
        s.messages,
        s.request_bytes,
        s.request_tokens
    );
    match (
        &s.first_difference,
        s.common_prefix_bytes,
        s.common_prefix_tokens,
    ) {
        (_, None, _) | (_, _, None) => {
            let _ = writeln!(out, "   The first call: nothing is cached yet.");
        }
        (None, Some(_), Some(_)) => {
            let _ = writeln!(
                out,
                "   Identical to the previous call: all of it can be reused."
            );
        }
        (Some(d), Some(bytes), Some(tokens)) => {
            let _ = writeln!(
                out,
                "   First difference at byte {} ({bytes} bytes, {tokens} tokens shared):",
                d.byte
            );
            match &d.now {
                Some(l) => {
                    let _ = writeln!(out, "     now:    {}", place(l));
                }
                None => {
                    let _ = writeln!(out, "     now:    the request ends here (it is shorter)");
                }
            }
            match &d.before {
                Some(l) => {
                    let _ = writeln!(out, "     before: {}", place(l));
                }
                None => {
                    let _ = writeln!(
                        out,
                        "     before: the previous request ended here: this call only appends"
                    );
                }
            }
            let blame = if tokens < cache::OPENAI_MIN_TOKENS {
                format!(
                    " (under {} shared tokens: no cache hit)",
                    cache::OPENAI_MIN_TOKENS
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "   OpenAI: {} of {} tokens from the cache{blame}.",
                s.openai.cached_tokens, s.request_tokens
            );
        }
    }
    let a = &s.anthropic;
    let hit = match a.hit {
        Some([step, msg]) => format!(
            "{} of {} tokens from the cache (call {}'s breakpoint after message {} is repeated exactly)",
            a.cached_tokens,
            s.request_tokens,
            step + 1,
            msg + 1
        ),
        None if i == 0 => "nothing to read yet".to_owned(),
        None => format!(
            "0 of {} tokens from the cache (no earlier cached prefix is repeated message for message)",
            s.request_tokens
        ),
    };
    let _ = writeln!(out, "   Anthropic: {hit}. Breakpoints on this call:");
    for b in &a.breakpoints {
        let _ = writeln!(
            out,
            "     after message {:<3} {:>6} tokens  {}  — {}",
            b.message + 1,
            b.prefix_tokens,
            if b.cacheable {
                "cached "
            } else {
                "too short, not cached"
            },
            b.reason
        );
    }
    out.push('\n');
}
