//! The `prompt-inspector` command line (docs/cli.md): a thin layer over the core library that
//! reads files, calls the core and prints.

mod cache_cmd;
mod calibrate_cmd;
mod check_cmd;
mod collect_cmd;
mod import_cmd;
mod models_arg;
mod output;
mod progress;
mod render_cmd;
mod rules_cmd;
mod run_cmd;
mod serve;
mod style;
mod template_cmd;
mod verify_cmd;
mod wrap;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};
use prompt_inspector::check;
use prompt_inspector::provider::ChatProvider;
use prompt_inspector::report::{DiagnosticCode, UnknownCode};
use prompt_inspector::segments::Family;
use prompt_inspector::tokens::Encoding;
use prompt_inspector::Engine;

#[derive(Parser)]
#[command(
    name = "prompt-inspector",
    version,
    about = "Inspect how tools inject prompts into LLM segments",
    long_about = "Inspect how tools inject prompts into the 7 ChatLLM and 7 DeskLLM segments of a \
                  recorded call site (a scene file), which positions the rules forbid and why."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `render`'s output: the common two, or one self-contained HTML file of both families' boards.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RenderFormat {
    Json,
    Text,
    Html,
}

/// The output of every command that prints a report (docs/cli.md, "Output formats"): `text`
/// unless `--format json` is given, for every command alike.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Json,
    Text,
}

#[derive(Subcommand)]
enum Command {
    /// Render one scene: segments, pieces and their sources, tool statuses, diagnostics, metrics.
    Render {
        /// The scene file (`*.scene.json`).
        scene: PathBuf,
        /// Which LLM family to assemble.
        #[arg(long, default_value = "chat", value_parser = one_of(Family::ALL, Family::as_str))]
        llm: Family,
        /// `text`: a readable summary; `json`: the JSON report (docs/cli.md); `html`: one
        /// self-contained page with both families' boards (`--llm` does not apply).
        #[arg(long, value_enum, default_value = "text")]
        format: RenderFormat,
        /// Colour in the text form: auto (when stdout is a terminal and NO_COLOR is unset).
        #[arg(long, value_enum, default_value = "auto")]
        color: style::ColorChoice,
        /// With `--llm chat`: add this provider's request body (`request`). Desk requests come
        /// from the scene's adapter.
        #[arg(long, value_parser = one_of(ChatProvider::ALL, ChatProvider::as_str))]
        provider: Option<ChatProvider>,
        /// Count tokens per piece, segment, message and tool definition with this tokenizer:
        /// `o200k_base` (GPT-4o and later, the default) or `cl100k_base` (GPT-4).
        #[arg(long, value_name = "NAME", value_parser = parse_tokenizer, conflicts_with = "no_tokens")]
        tokenizer: Option<Encoding>,
        /// With tokens counted: price this call's input for this model (`provider/family` or
        /// a model name; repeatable). Default: the rows the table marks `default`.
        #[arg(long = "model", value_name = "ID")]
        models: Vec<String>,
        /// A models table (data/models.json's format) instead of the built-in one.
        #[arg(long = "models", value_name = "FILE")]
        table: Option<PathBuf>,
        /// Count tokens (the default; kept so that older command lines still work).
        #[arg(long, conflicts_with = "no_tokens")]
        tokens: bool,
        /// Do not count tokens: no `tokens` fields in the report, and no call cost.
        #[arg(long)]
        no_tokens: bool,
        /// Add each `--model`'s predicted billed input for this call, scaled by this calibration
        /// file (`calibrate` writes it; docs/models.md): `predicted_input` in JSON.
        #[arg(long, value_name = "FILE")]
        calibration: Option<PathBuf>,
    },
    /// Replay scenes (files or folders, recursively) against the goldens beside them.
    Check {
        /// Scene files or folders holding `*.scene.json`.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Write the goldens instead of comparing (review the diff before committing them).
        #[arg(long)]
        bless: bool,
        /// `text`: a line per scene and a diff per mismatch; `json`: `{passed, failed, scenes}`;
        /// `github`: GitHub Actions `::error` annotations on the scene files and templates;
        /// `markdown`: a summary for a pull-request comment (the failing scenes' token, cost and
        /// cache changes, their segment diffs folded).
        #[arg(long, value_enum, default_value = "text")]
        format: check_cmd::CheckFormat,
        /// Fail a scene whose chat or desk report has a diagnostic with this code, such as the
        /// cache-safety lint's `cache_volatile_value` (repeatable; docs/diagnostics.md).
        #[arg(long, value_name = "CODE", value_parser = parse_code)]
        deny: Vec<DiagnosticCode>,
        /// Also write the run as JUnit XML to this file (one test case per scene).
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Also write the run as one self-contained HTML file (the boards, and each mismatch's
        /// segment diff side by side).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Check only shard I of N (1-based, such as `2/4`): N runs with 1/N … N/N check every
        /// scene exactly once, each scene always in the same shard.
        #[arg(long, value_name = "I/N")]
        shard: Option<check::Shard>,
        /// Scenes checked at once (default: one per core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
        jobs: Option<u16>,
        /// Price each mismatch's token, cost and cache change for this model (`provider/family`
        /// or a model name; repeatable). Default: the rows the table marks `default`
        /// (docs/models.md).
        #[arg(long = "model", value_name = "ID")]
        models: Vec<String>,
        /// A models table (data/models.json's format) instead of the built-in one.
        #[arg(long = "models", value_name = "FILE")]
        table: Option<PathBuf>,
    },
    /// Render one template with JSON variables; stdout is the text only, no newline added.
    Template {
        /// Template engine: `fstring` (Python str.format_map) or `jinja2` (Jinja2 3.x).
        #[arg(long, value_parser = parse_engine)]
        engine: Engine,
        /// File holding the template text (UTF-8).
        #[arg(long = "template", value_name = "FILE")]
        template: PathBuf,
        /// File holding the variables as a JSON object.
        #[arg(long, value_name = "FILE")]
        vars: PathBuf,
    },
    /// The 14 segments: legal or forbidden, and the rule with its reason (docs/rules.md).
    Rules {
        /// `text`: the table explained; `json`: `{segments, rules}`.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Replay a scene's `run` loop (xbot's tool-call loop, docs/run-loop.md): each request, the
    /// blocks injected after it, and what a provider's prompt cache can reuse.
    Run {
        /// The scene file (`*.scene.json`) with a `run` field.
        scene: PathBuf,
        /// `json`: the run report (docs/run-loop.md); `text`: an explained walk through the rounds.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// With `--format json`: each message once (`messages`, and `request_messages` per
        /// round, the first that many), as goldens hold the run, instead of every request whole.
        #[arg(long, requires = "format")]
        shared: bool,
        /// Price each round's input for this model (`provider/family` or a model name;
        /// repeatable). Default: the rows the table marks `default` (docs/models.md).
        #[arg(long = "model", value_name = "ID")]
        models: Vec<String>,
        /// A models table (data/models.json's format) instead of the built-in one.
        #[arg(long = "models", value_name = "FILE")]
        table: Option<PathBuf>,
        /// Exit 1 when a round is below a model's cacheable minimum (`cache_below_minimum`,
        /// repeatable with other codes; docs/diagnostics.md).
        #[arg(long, value_name = "CODE", value_parser = parse_code)]
        deny: Vec<DiagnosticCode>,
    },
    /// Cache blame across successive calls (one scene per call, in call order; docs/run-loop.md).
    Cache {
        /// The scene files, in call order.
        #[arg(required = true)]
        scenes: Vec<PathBuf>,
        /// `text`: each call explained; `json`: the steps with their figures.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Price the calls for this model (`provider/family` or a model name; repeatable).
        /// Default: the rows the table marks `default` (docs/models.md).
        #[arg(long = "model", value_name = "ID")]
        models: Vec<String>,
        /// A models table (data/models.json's format) instead of the built-in one.
        #[arg(long = "models", value_name = "FILE")]
        table: Option<PathBuf>,
        /// Exit 1 when the cache-safety lint finds this code (repeatable; docs/diagnostics.md).
        #[arg(long, value_name = "CODE", value_parser = parse_code)]
        deny: Vec<DiagnosticCode>,
        /// Add each call's predicted billed input per model, scaled by this calibration file
        /// (`calibrate` writes it; docs/models.md): `predicted_input` in JSON.
        #[arg(long, value_name = "FILE")]
        calibration: Option<PathBuf>,
    },
    /// Learn billed / predicted input ratios per model family from recorded calls (JSON files
    /// with a request and its recorded usage) and write a calibration file (docs/models.md).
    Calibrate {
        /// The folder of recorded calls, read recursively.
        dir: PathBuf,
        /// Write the calibration file here (default: stdout, with the summary on stderr).
        #[arg(short = 'o', long = "out", value_name = "FILE")]
        out: Option<PathBuf>,
        /// `text`: the ratios explained; `json`: `{calibration, records, skipped}`.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Turn a recorded request (OpenAI chat completions or Responses, Anthropic Messages, Gemini
    /// generateContent, an OpenTelemetry GenAI span), alone or with its response, a JSON-lines
    /// file of successive ones, or a VCR cassette or HAR file of recorded calls with their billed
    /// usage, into scenes that keep what was recorded.
    Import {
        /// The request file (`.jsonl` / `.ndjson`: one call per line, a conversation;
        /// `.yaml` / `.yml`: a VCR cassette).
        file: PathBuf,
        /// What the file holds; detected from its fields when absent (stderr says how).
        #[arg(long, value_parser = parse_source)]
        from: Option<prompt_inspector::import::Source>,
        /// Write the one scene to this file (default: stdout).
        #[arg(
            short = 'o',
            long = "out",
            value_name = "OUT",
            conflicts_with = "out_dir"
        )]
        out: Option<PathBuf>,
        /// Write the scenes into this folder: `NN-<name>.scene.json` in call order for a
        /// conversation, which `cache` reads.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Replace scene files that exist.
        #[arg(long)]
        force: bool,
    },
    /// Recorded calls, predicted against billed: input, cache read and write, cost, and the
    /// cause of every cache miss (docs/cli.md).
    Verify {
        /// Recorded calls: files of one call each (`{request, response_usage, model,
        /// conversation, seq}`), or folders searched recursively for them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// `text`: each call and conversation explained, then a summary; `json`: the report;
        /// `junit`: JUnit XML, a test case per call; `github`: GitHub Actions annotations.
        #[arg(long, value_enum, default_value = "text")]
        format: verify_cmd::VerifyFormat,
        /// Exit 1 when a call has a cause with this code, such as `miss_tools_changed`
        /// (repeatable; docs/diagnostics.md).
        #[arg(long, value_name = "CODE", value_parser = parse_code)]
        deny: Vec<DiagnosticCode>,
        /// Price a call whose model the table does not name with this row (`provider/family`
        /// or a model name; repeatable, the first of the call's provider is used). Default: the
        /// provider's default row.
        #[arg(long = "model", value_name = "ID")]
        models: Vec<String>,
        /// A models table (data/models.json's format) instead of the built-in one.
        #[arg(long = "models", value_name = "FILE")]
        table: Option<PathBuf>,
    },
    /// Serve the app API (docs/api.md) and the browser UI on 127.0.0.1, behind a per-launch token.
    Serve {
        /// The port to listen on; 0 picks a free one (the printed URL names it).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// The built UI to serve at `/` (default: `ui/dist` when it exists).
        #[arg(long, value_name = "DIR")]
        ui: Option<PathBuf>,
        /// Operations run at once (default: the number of cores); more wait their turn.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        max_operations: Option<u16>,
        /// Seconds an operation waits for its turn before it is answered `503 busy`.
        #[arg(long, value_name = "SECONDS", default_value_t = 30)]
        queue_timeout: u64,
        /// The OTLP/HTTP trace receiver: `off`, a port, or a loopback HOST:PORT (0: a free port;
        /// the second line printed names it). Its calls reach the app through `live_calls`.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:4318", value_parser = parse_otlp)]
        otlp: OtlpAddr,
    },
    /// Receive OpenTelemetry traces (OTLP/HTTP) from running agents and write each LLM call as a
    /// scene, each conversation in a folder of its own; until SIGINT or SIGTERM (docs/cli.md).
    Collect {
        /// The folder to write into (created when missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Where to listen: a port, or a loopback HOST:PORT (0: a free port; stderr names it).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:4318", value_parser = parse_otlp)]
        otlp: OtlpAddr,
    },
}

/// `--otlp ADDR`: an address, or `None` for `off`.
#[derive(Clone, Copy, Debug)]
struct OtlpAddr(Option<std::net::SocketAddr>);

fn parse_otlp(s: &str) -> Result<OtlpAddr, String> {
    prompt_inspector::otlp::receiver::parse_addr(s).map(OtlpAddr)
}

fn parse_engine(s: &str) -> Result<Engine, String> {
    s.parse()
}

/// A diagnostic code (docs/diagnostics.md); an unknown one is a usage error listing the codes (a
/// typo would deny nothing and pass CI unnoticed).
fn parse_code(s: &str) -> Result<DiagnosticCode, UnknownCode> {
    s.parse()
}

/// The parser of an argument that takes one of the core enum's `values`, spelt by `name`: the
/// help and a refusal list the spellings, as clap's `ValueEnum` would (clap stays out of the
/// core, so the core's enums do not implement it).
fn one_of<T: Copy + Send + Sync + 'static, const N: usize>(
    values: [T; N],
    name: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(values.map(name)).try_map(move |s| {
        values
            .into_iter()
            .find(|&v| name(v) == s)
            .ok_or_else(|| format!("{s:?} is none of the values"))
    })
}

fn parse_source(s: &str) -> Result<prompt_inspector::import::Source, String> {
    prompt_inspector::import::Source::parse(s).ok_or_else(|| {
        let names: Vec<&str> = prompt_inspector::import::Source::ALL
            .iter()
            .map(|x| x.as_str())
            .collect();
        format!("unknown source {s:?}; expected one of {}", names.join(", "))
    })
}

fn parse_tokenizer(s: &str) -> Result<Encoding, String> {
    Encoding::parse(s).map_err(|e| e.to_string())
}

// The core allocates and frees many small values (docs/performance.md has what mimalloc saves);
// the library itself leaves the allocator to the program.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Logging is off unless asked for; building the filter costs start-up time on every run.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("PROMPT_INSPECTOR_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .with_writer(std::io::stderr)
            .init();
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Render {
            scene,
            llm,
            format,
            color,
            provider,
            tokenizer,
            tokens: _,
            no_tokens,
            models,
            table,
            calibration,
        } => {
            let tokenizer = (!no_tokens).then(|| tokenizer.unwrap_or_default());
            let models = (models.as_slice(), table.as_deref(), calibration.as_deref());
            match format {
                RenderFormat::Html if calibration.is_some() => {
                    eprintln!("error: --calibration applies to --format text and json");
                    ExitCode::from(2)
                }
                RenderFormat::Html => render_cmd::html(&scene, tokenizer, (models.0, models.1)),
                RenderFormat::Json | RenderFormat::Text => render_cmd::run(
                    &scene,
                    llm,
                    format == RenderFormat::Json,
                    color,
                    provider,
                    tokenizer,
                    models,
                ),
            }
        }
        Command::Check {
            paths,
            bless,
            format,
            deny,
            junit,
            html,
            shard,
            jobs,
            models,
            table,
        } => check_cmd::run(&check_cmd::CheckArgs {
            paths,
            bless,
            format,
            deny,
            junit,
            html,
            shard,
            jobs: jobs.map(usize::from),
            models: (models, table),
        }),
        Command::Template {
            engine,
            template,
            vars,
        } => template_cmd::run(engine, &template, &vars),
        Command::Rules { format } => rules_cmd::run(format == Format::Json),
        Command::Run {
            scene,
            format,
            shared,
            models,
            table,
            deny,
        } => run_cmd::run(
            &scene,
            (format == Format::Json, shared),
            (&models, table.as_deref()),
            &deny,
        ),
        Command::Cache {
            scenes,
            format,
            models,
            table,
            deny,
            calibration,
        } => cache_cmd::run(
            &scenes,
            format == Format::Json,
            (&models, table.as_deref(), calibration.as_deref()),
            &deny,
        ),
        Command::Calibrate { dir, out, format } => {
            calibrate_cmd::run(&dir, out.as_deref(), format == Format::Json)
        }
        Command::Import {
            file,
            from,
            out,
            out_dir,
            force,
        } => {
            let out = match (out, out_dir) {
                (Some(path), _) => import_cmd::Out::File(path),
                (None, Some(dir)) => import_cmd::Out::Dir(dir),
                (None, None) => import_cmd::Out::Stdout,
            };
            import_cmd::run(&file, from, out, force)
        }
        Command::Verify {
            paths,
            format,
            deny,
            models,
            table,
        } => verify_cmd::run(&verify_cmd::VerifyArgs {
            paths: &paths,
            format,
            deny: &deny,
            models: &models,
            table: table.as_deref(),
        }),
        Command::Serve {
            port,
            ui,
            max_operations,
            queue_timeout,
            otlp,
        } => serve::run(
            port,
            ui,
            serve::Limits::new(max_operations, queue_timeout),
            otlp.0,
        ),
        Command::Collect { out, otlp } => collect_cmd::run(&out, otlp.0),
    }
}
