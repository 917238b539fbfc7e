//! `prompt-inspector render`: the JSON report (docs/cli.md), or a readable text form.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use prompt_inspector::inject::{self, Level, Report, Source, Status};
use prompt_inspector::pricing::cost::input_costs;
use prompt_inspector::pricing::request::Sent;
use prompt_inspector::pricing::Row;
use prompt_inspector::provider::ChatProvider;
use prompt_inspector::report::InputCost;
use prompt_inspector::segments::{self, Family};
use prompt_inspector::tokens::Encoding;
use prompt_inspector::Value;

use crate::style::{ColorChoice, Style};

pub fn run(
    path: &Path,
    family: Family,
    as_json: bool,
    color: ColorChoice,
    provider: Option<ChatProvider>,
    tokenizer: Option<Encoding>,
    (ids, table, calibration): (&[String], Option<&Path>, Option<&Path>),
) -> ExitCode {
    if provider.is_some() && family == Family::Desk {
        eprintln!("error: --provider applies to --llm chat; a desk request's shape comes from the scene's desk_llm.adapter");
        return ExitCode::from(2);
    }
    let (rows, scene) = match crate::models_arg::rows_and_scene((ids, table), path) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let calibration = match crate::calibrate_cmd::load(calibration) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let models: Vec<&Row> = rows.iter().collect();
    let options = render_options(path, provider, tokenizer);
    let mut report = inject::render_with(&scene, family, &options);
    let predicted = match (&calibration, family) {
        (Some(c), Family::Chat) => crate::calibrate_cmd::predicted(path, &scene, &models, c),
        _ => Vec::new(),
    };
    // The JSON report carries costs only for models named on the command line: without
    // `--model`, it stays what it was (and what goldens hold). The text form prices the
    // table's default rows then.
    let mut costs = if as_json && ids.is_empty() {
        Vec::new()
    } else {
        input_costs(&report, &Sent::of(&scene, &report, path.parent()), &models)
    };
    if !ids.is_empty() {
        if let Some(first) = costs.first() {
            let short =
                prompt_inspector::pricing::minimum::call_below_minimum(&models, first.input_tokens);
            report.diagnostics.extend(short);
        }
        if as_json {
            report.costs = std::mem::take(&mut costs);
        }
    }
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // Streamed: a large scene's report is megabytes, and building it as one string first would
    // double the memory the process touches.
    let written = if as_json && !predicted.is_empty() {
        // With a calibration, the report gains `predicted_input` (a small scene's report: the
        // whole value is built once).
        let mut value = serde_json::to_value(&report).unwrap_or_default();
        if let (Some(obj), Ok(rows)) = (value.as_object_mut(), serde_json::to_value(&predicted)) {
            obj.insert("predicted_input".to_owned(), rows);
        }
        prompt_inspector::json_out::write_pretty(&mut stdout, &value)
            .map_err(std::io::Error::from)
            .and_then(|()| stdout.write_all(b"\n"))
    } else if as_json {
        prompt_inspector::json_out::write_pretty(&mut stdout, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| stdout.write_all(b"\n"))
    } else {
        let mut body = text(&scene.name, &report, Style::new(color));
        body.push_str(&call_cost(&costs, report.tokenizer));
        crate::calibrate_cmd::predicted_text(&mut body, &predicted, " (calibrated)");
        stdout.write_all(body.as_bytes())
    };
    let flushed = written.and_then(|()| stdout.flush());
    // The process ends here: the OS takes the memory back at once, while dropping the scene and
    // the report would free every small map of a large context one by one.
    std::mem::forget(report);
    std::mem::forget(scene);
    match flushed {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}

/// The render options of a scene file: images relative to its folder, tokens unless turned off.
fn render_options(
    path: &Path,
    chat_provider: Option<ChatProvider>,
    tokenizer: Option<Encoding>,
) -> inject::Options {
    inject::Options {
        base_dir: path.parent().map(Path::to_path_buf),
        chat_provider,
        encoding: tokenizer.unwrap_or_default(),
        skip_tokens: tokenizer.is_none(),
        skip_lint: false,
    }
}

/// What this call's input costs for each model, as a first call (nothing cached yet): the tokens
/// its provider bills (framing included) with how sure they are, the text's own count, and when
/// and where the prices were read. Nothing when tokens were not counted.
fn call_cost(costs: &[InputCost], tokenizer: Option<Encoding>) -> String {
    let (Some(first), Some(encoding)) = (costs.first(), tokenizer) else {
        return String::new();
    };
    let mut out = String::from(
        "\nThis call's input as each model's provider bills it (framing included),\n\
         as a first call with nothing cached (docs/models.md):\n",
    );
    for c in costs {
        let tokens = format!("{} tokens", c.input_tokens);
        let _ = writeln!(
            out,
            "  {:<32} {tokens:>14}  {:<18} ${:.6}",
            c.model,
            c.provenance.to_string(),
            c.cost_usd
        );
    }
    let _ = writeln!(
        out,
        "Its text alone, counted with {encoding}: {} tokens of messages or segments, {} of tool\n\
         definitions; as each provider counts text, that is",
        first.content_tokens, first.definition_tokens,
    );
    let mut labels: Vec<(String, Vec<&str>)> = Vec::new();
    for c in costs {
        let label = c.text_provenance.to_string();
        match labels.iter_mut().find(|(l, _)| *l == label) {
            Some((_, models)) => models.push(&c.model),
            None => labels.push((label, vec![&c.model])),
        }
    }
    for (label, models) in labels {
        let _ = writeln!(out, "  {label} for {}", models.join(", "));
    }
    out.push_str(&prices_read(
        costs
            .iter()
            .map(|c| (c.prices_read.as_str(), c.price_sources.as_slice())),
    ));
    out
}

/// `Prices as read on DATE from:` and the pages, for each date the rows' prices were read.
pub fn prices_read<'a>(rows: impl IntoIterator<Item = (&'a str, &'a [String])>) -> String {
    let mut out = String::new();
    for (date, sources) in prompt_inspector::pricing::read_dates(rows) {
        let _ = writeln!(out, "Prices as read on {date} from:");
        for s in sources {
            let _ = writeln!(out, "  {s}");
        }
    }
    out
}

/// ` · N tokens` when tokens were counted, nothing otherwise.
fn tokens_suffix(tokens: Option<usize>) -> String {
    tokens.map(|n| format!(" · {n} tokens")).unwrap_or_default()
}

/// Indents every line of `body` under a gutter.
fn indented(out: &mut String, gutter: &str, body: &str) {
    for line in body.split('\n') {
        let _ = writeln!(out, "{gutter}{line}");
    }
}

fn status_colored(st: Style, s: Status) -> String {
    let name = s.as_str();
    match s {
        Status::Injected => st.green(name),
        Status::Invalid | Status::Error | Status::ProtocolError => st.red(name),
        Status::RenderedEmpty | Status::Empty => st.yellow(name),
        Status::Silent | Status::Undeclared => st.dim(name),
    }
}

/// The readable form: each segment with its pieces and where they came from, then messages,
/// tools, diagnostics and the injection metrics.
pub fn text(name: &str, r: &Report, st: Style) -> String {
    let mut out = String::new();
    let family = if r.llm == "desk" {
        Family::Desk
    } else {
        Family::Chat
    };
    let injected = r
        .tools
        .iter()
        .filter(|t| t.status == Status::Injected)
        .count();
    let _ = writeln!(
        out,
        "{} {}: {} tools, {injected} injected\n",
        st.bold(family.class_name()),
        st.bold(&format!("{name:?}")),
        r.tools.len()
    );
    for (i, seg) in r.segments.iter().enumerate() {
        let verdict = match seg.rule {
            None => st.green("legal"),
            Some(rule) => st.red(&format!("forbidden to tools: {rule}")),
        };
        let _ = writeln!(
            out,
            "{} · {verdict} · {} bytes{}",
            st.bold(&format!("{}. {}", i + 1, seg.name)),
            seg.bytes,
            tokens_suffix(seg.tokens)
        );
        if let Some(count) = seg.messages {
            // A message stream: its messages are listed under "Messages sent".
            let _ = writeln!(out, "   {}", st.dim(&format!("{count} recorded messages")));
        } else if seg.pieces.is_empty() {
            let _ = writeln!(out, "   {}", st.dim("(empty)"));
        }
        for p in &seg.pieces {
            let label = match (p.source, &p.tool, p.index) {
                (Source::Tool, Some(tool), _) => st.magenta(&format!("tool {tool}")),
                (Source::Config, _, Some(i)) => st.cyan(&format!("config #{i}")),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "   [{label}] {} bytes{}",
                p.text.len(),
                tokens_suffix(p.tokens)
            );
            indented(&mut out, "   │ ", &p.text);
        }
        out.push('\n');
    }
    if let Some(messages) = &r.messages {
        let _ = writeln!(out, "{}", st.bold("Messages sent:"));
        for (i, m) in messages.iter().enumerate() {
            let content = match &m.content {
                Value::Str(s) => s.to_string(),
                other => serde_json::to_string(other).unwrap_or_default(),
            };
            let first = content.lines().next().unwrap_or("");
            let more = if content.contains('\n') { " …" } else { "" };
            let tokens = m
                .tokens
                .map(|n| st.dim(&format!("{n:>6} tok ")))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:>2}. {:<9} {:<30} {tokens}{first}{more}",
                i + 1,
                m.role,
                st.dim(&format!("({})", m.segment.unwrap_or("")))
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", st.bold("Tools (in call order):"));
    if r.tools.is_empty() {
        let _ = writeln!(out, "  {}", st.dim("(none)"));
    }
    for t in &r.tools {
        let target = match &t.position {
            Some(p) => {
                let rule = segments::find(family, p).and_then(|s| s.rule);
                match rule {
                    Some(rule) => format!("→ {p} ({})", st.red(rule.id())),
                    None => format!("→ {p}"),
                }
            }
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:<24} {:<16} {target}",
            t.name,
            status_colored(st, t.status)
        );
        if let Some(d) = &t.definition {
            let tokens = d
                .tokens
                .map(|n| format!(" · {n} tokens"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<24} {}",
                "",
                st.dim(&format!(
                    "definition in the request: {} bytes{tokens}",
                    d.bytes
                ))
            );
        }
    }
    out.push('\n');
    let _ = writeln!(out, "{}", st.bold("Diagnostics:"));
    if r.diagnostics.is_empty() {
        let _ = writeln!(out, "  {}", st.dim("(none)"));
    }
    for d in &r.diagnostics {
        let level = match d.level {
            Level::Error => st.red("error"),
            Level::Warning => st.yellow("warning"),
            Level::Info => st.dim("info"),
        };
        let _ = writeln!(out, "  {level} [{}] {}", d.code, d.message);
        if !d.suggestions.is_empty() {
            let names: Vec<String> = d.suggestions.iter().map(|s| format!("`{s}`")).collect();
            let _ = writeln!(out, "    did you mean {}?", names.join(" or "));
        }
    }
    out.push('\n');
    if let Some(request) = &r.request {
        let _ = writeln!(out, "{}", st.bold("Request body:"));
        let pretty = prompt_inspector::json_out::to_string_pretty(request);
        indented(&mut out, "  ", &pretty);
        out.push('\n');
    }
    let m = &r.metrics;
    let positions: Vec<String> = m
        .positions
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    // The app's injection-metrics panel uses the same words.
    let _ = writeln!(
        out,
        "{} {} tools in the call · {} declaring a position · {} rendered text · {} bytes injected · \
         tools injected per position: {}",
        st.bold("Injection metrics:"),
        r.tools.len(),
        m.tools_total,
        m.tools_rendered,
        m.bytes,
        if positions.is_empty() { "none".to_owned() } else { positions.join(", ") }
    );
    if let Some(encoding) = r.tokenizer {
        let _ = writeln!(out, "{} {encoding}", st.bold("Tokens counted with:"));
    }
    out
}

/// `render --format html`: both families' boards on one self-contained page, each call's
/// input priced for the models asked for (the table's default rows without `--model`).
pub fn html(
    path: &Path,
    tokenizer: Option<Encoding>,
    (ids, table): (&[String], Option<&Path>),
) -> ExitCode {
    let (rows, scene) = match crate::models_arg::rows_and_scene((ids, table), path) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let models: Vec<&Row> = rows.iter().collect();
    let options = render_options(path, None, tokenizer);
    let mut memo = inject::RenderMemo::default();
    let mut reports = Vec::new();
    for family in [Family::Chat, Family::Desk] {
        let mut report = inject::render_with_memo(&scene, family, &options, &mut memo);
        let sent = Sent::of(&scene, &report, path.parent());
        let costs = input_costs(&report, &sent, &models);
        if let Some(first) = costs.first() {
            let short =
                prompt_inspector::pricing::minimum::call_below_minimum(&models, first.input_tokens);
            report.diagnostics.extend(short);
        }
        report.costs = costs;
        reports.push(report);
    }
    let value = serde_json::json!({
        "scene": scene.name,
        "chat": reports[0],
        "desk": reports[1],
    });
    let page = prompt_inspector::html::scene_report(&value, scene.description.as_deref());
    crate::output::emit(&page)
}
