//! Recorded traffic in, scenes out (`prompt-inspector import`, docs/cli.md): an OpenAI
//! chat-completions or Responses request body, an Anthropic Messages request body, a Gemini
//! `generateContent` request body, or an OpenTelemetry GenAI span becomes a scene; a request
//! with its response (`exchange.rs`) also brings the usage it billed. A JSON-lines file of
//! successive calls, an export of several spans, or a VCR cassette or HAR file of recorded calls
//! with their responses (`container/`) becomes a conversation of scenes, one per call, that
//! `prompt-inspector cache` reads. One file per source reads it into a neutral draft
//! (`draft.rs`), which becomes the scene; what the request held beyond the scene's prompts and
//! tools is kept in the scene's `recorded` (the model, parameters, cache breakpoints, and each
//! value with its place), and what is kept nowhere is listed, in the scene's description and in
//! [`ImportedScene::unmapped`], never dropped unsaid. Each scene is checked by loading it with
//! the scene loader before it is returned.

mod anthropic;
mod container;
mod detect;
mod draft;
mod error;
mod exchange;
mod gemini;
mod node;
mod openai_chat;
mod openai_responses;
mod otel;
mod otel_events;
mod otel_flat;
mod otel_recorded;
mod otel_usage;
pub(crate) mod time;

pub(crate) use draft::Draft;
pub use exchange::{exchange, Call, Exchange};
pub use otel::PROVIDER_ATTRIBUTES;

use std::path::Path;

pub use error::ImportError;
use node::{Doc, Node};

/// Input files larger than this are refused before reading: a recorded request is kilobytes,
/// a day of traffic megabytes, and the reader keeps every value's position in memory.
pub const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;

/// What a recorded request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Gemini,
    Otel,
    /// A VCR cassette: recorded requests with their responses.
    Vcr,
    /// A HAR file: a browser's or proxy's network export.
    Har,
}

impl Source {
    pub const ALL: [Source; 7] = [
        Source::OpenaiChat,
        Source::OpenaiResponses,
        Source::Anthropic,
        Source::Gemini,
        Source::Otel,
        Source::Vcr,
        Source::Har,
    ];

    /// The name `--from` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::OpenaiChat => "openai-chat",
            Source::OpenaiResponses => "openai-responses",
            Source::Anthropic => "anthropic",
            Source::Gemini => "gemini",
            Source::Otel => "otel",
            Source::Vcr => "vcr",
            Source::Har => "har",
        }
    }

    pub fn parse(s: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|x| x.as_str() == s)
    }

    fn describe(self) -> &'static str {
        match self {
            Source::OpenaiChat => "an OpenAI chat-completions request body",
            Source::OpenaiResponses => "an OpenAI Responses request body",
            Source::Anthropic => "an Anthropic Messages request body",
            Source::Gemini => "a Gemini generateContent request body",
            Source::Otel => "an OpenTelemetry GenAI span",
            Source::Vcr => "a VCR cassette",
            Source::Har => "a HAR file",
        }
    }
}

/// The scenes one input file became.
#[derive(Debug)]
pub struct Import {
    pub source: Source,
    /// Why the source was taken to be what it is, when `--from` did not say.
    pub detected: Option<String>,
    /// In call order (records in file order, spans in export order).
    pub scenes: Vec<ImportedScene>,
    /// Spans of an export that hold no GenAI request, and recorded calls of a cassette or HAR
    /// file that are not LLM calls, each with why.
    pub skipped: Vec<String>,
    /// The input file's name without its extension, which names the scenes.
    pub stem: String,
}

#[derive(Debug)]
pub struct ImportedScene {
    pub name: String,
    /// The scene file's text (pretty JSON, ending in a newline); it loads.
    pub text: String,
    /// Where in the input it came from (`line 3`, `span "chat" at /resourceSpans/0/...`).
    pub from: String,
    /// What the scene keeps nowhere, `pointer: what` (also in its description).
    pub unmapped: Vec<String>,
    /// What the scene keeps in `recorded.carried`, `pointer: what` (also in its description).
    pub carried: Vec<String>,
    /// The scene's `recorded`: the API, model, parameters and usage.
    pub recorded: Option<crate::scene::Recorded>,
}

/// Whether a file is read as JSON lines (one request per line) rather than one document.
pub fn is_json_lines(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"))
}

/// Whether a file is read as YAML (a VCR cassette) rather than JSON.
pub fn is_yaml(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// Reads and imports a file: JSON lines when it ends in `.jsonl` or `.ndjson`, YAML when it
/// ends in `.yaml` or `.yml`, else one JSON document. `from` says what it holds; `None` detects it (and says why in [`Import::detected`]).
pub fn import_file(path: &Path, from: Option<Source>) -> Result<Import, ImportError> {
    let text = crate::files::read_regular_text(path, MAX_IMPORT_BYTES, "an import")
        .map_err(|e| ImportError::io(path, e.to_string()))?;
    let file_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    import_str(&text, &file_name, is_json_lines(path), from).map_err(|e| e.in_file(path))
}

/// [`import_file`] for one scene (stdout or `-o OUT`): a second request is refused before any
/// is converted, at its line for JSON lines (the file is only split into lines first) or at the
/// export for several GenAI spans, so a conversation sent to the wrong place costs no more than
/// finding its second record.
pub fn import_file_one(path: &Path, from: Option<Source>) -> Result<Import, ImportError> {
    let text = crate::files::read_regular_text(path, MAX_IMPORT_BYTES, "an import")
        .map_err(|e| ImportError::io(path, e.to_string()))?;
    let file_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    import_text(&text, &file_name, is_json_lines(path), from, true).map_err(|e| e.in_file(path))
}

/// [`import_file`] on text already read; `file_name` names the scenes and their description.
pub fn import_str(
    text: &str,
    file_name: &str,
    json_lines: bool,
    from: Option<Source>,
) -> Result<Import, ImportError> {
    import_text(text, file_name, json_lines, from, false)
}

/// What an unreadable last line of JSON lines without a newline after it most likely is.
const CUT_SHORT: &str =
    " (the file's last line, with no newline after it: cut short while it was written?)";

/// [`import_str_one`]'s refusal of a second request.
const ONE_SCENE: &str = "stdout and -o OUT take one scene, and this file holds a conversation: pass --out-dir DIR to write its calls as numbered files";

/// [`import_file_one`] on text already read.
pub fn import_str_one(
    text: &str,
    file_name: &str,
    json_lines: bool,
    from: Option<Source>,
) -> Result<Import, ImportError> {
    import_text(text, file_name, json_lines, from, true)
}

fn import_text(
    text: &str,
    file_name: &str,
    json_lines: bool,
    from: Option<Source>,
    one: bool,
) -> Result<Import, ImportError> {
    let records: Vec<(usize, &str)> = if json_lines {
        text.split('\n')
            .enumerate()
            .map(|(i, line)| (i + 1, line.strip_suffix('\r').unwrap_or(line)))
            .filter(|(_, line)| !line.trim().is_empty())
            .collect()
    } else {
        vec![(1, text)]
    };
    if records.is_empty() {
        return Err(ImportError {
            file: None,
            line: 0,
            column: 0,
            pointer: String::new(),
            message: "no requests: the file has no JSON lines".to_owned(),
        });
    }
    if let (true, Some((line, _))) = (one, records.get(1)) {
        return Err(ImportError {
            file: None,
            line: *line,
            column: 1,
            pointer: String::new(),
            message: format!("a second request: {ONE_SCENE}"),
        });
    }
    let mut source = from;
    let mut detected = None;
    let mut drafts = Vec::new();
    let mut skipped = Vec::new();
    for (line, record) in &records {
        let doc = Doc {
            text: record,
            first_line: *line,
            host: None,
            prefix: String::new(),
        };
        let (tree, binary) = if is_yaml(file_name) && !json_lines {
            let y = container::yaml::parse(record)
                .map_err(|e| doc.error_at(e.offset, "", format!("invalid YAML: {}", e.message)))?;
            (y.root, y.binary)
        } else {
            let tree = node::parse(&doc).map_err(|mut e| {
                if json_lines
                    && Some(line) == records.last().map(|(l, _)| l)
                    && !text.ends_with('\n')
                {
                    e.message.push_str(CUT_SHORT);
                }
                e
            })?;
            (tree, Default::default())
        };
        let root = Node::root(&tree, &doc);
        root.object()?;
        let at = json_lines.then_some(*line);
        if exchange::is_wrapper(&root) {
            let call = exchange::read_wrapper(&root, from)?;
            agree(
                &root,
                &mut source,
                &mut detected,
                call.source,
                call.detected,
            )?;
            drafts.push((call.draft, at, None));
            continue;
        }
        let this = match from {
            Some(s) => s,
            None => {
                let (s, why) = detect::detect(&root)?;
                agree(&root, &mut source, &mut detected, s, Some(why))?;
                s
            }
        };
        source = Some(this);
        match this {
            Source::Otel => {
                let spans = otel::read(&root, &mut skipped)?;
                if one && spans.len() > 1 {
                    return Err(root.err(format!(
                        "{} spans with a GenAI request: {ONE_SCENE}",
                        spans.len()
                    )));
                }
                let several = spans.len() > 1;
                for s in spans {
                    let label = (several || !s.label.is_empty()).then_some(s.label);
                    drafts.push((s.draft, at, label));
                }
            }
            Source::Vcr | Source::Har => {
                let container = if this == Source::Vcr {
                    container::Container::Vcr
                } else {
                    container::Container::Har
                };
                let calls = container::read(container, &root, &binary, &mut skipped)?;
                if one && calls.len() > 1 {
                    return Err(
                        root.err(format!("{} recorded LLM calls: {ONE_SCENE}", calls.len()))
                    );
                }
                for (draft, label) in calls {
                    drafts.push((draft, at, Some(label)));
                }
            }
            _ => drafts.push((read_body(this, &root)?, at, None)),
        }
    }
    let source = source.unwrap_or(Source::OpenaiChat);
    scenes(source, detected, drafts, skipped, file_name)
}

/// Checks that a record reads as the file's first did (one file holds one kind of request),
/// and notes why the first was read as it was.
fn agree(
    root: &Node<'_>,
    source: &mut Option<Source>,
    detected: &mut Option<String>,
    this: Source,
    why: Option<String>,
) -> Result<(), ImportError> {
    match *source {
        Some(first) if first != this => Err(root.err(format!(
            "this record reads as {}, the first as {}: one file holds one kind of request (pass --from to read them all as one)",
            this.describe(),
            first.describe()
        ))),
        Some(_) => Ok(()),
        None => {
            *source = Some(this);
            *detected = why;
            Ok(())
        }
    }
}

/// The scenes of recorded calls read by [`exchange`] (the interactions of a cassette, the
/// entries of a HAR file), each with where in `file_name` it came from (`interaction 3`), in
/// call order; `skipped` names the entries that held no call. All calls must be of one source.
pub fn import_calls(
    calls: Vec<(Call, String)>,
    skipped: Vec<String>,
    file_name: &str,
) -> Result<Import, ImportError> {
    let mut source = None;
    let mut detected = None;
    let mut drafts = Vec::with_capacity(calls.len());
    for (call, label) in calls {
        match source {
            Some(first) if first != call.source => {
                return Err(ImportError {
                    file: None,
                    line: 0,
                    column: 0,
                    pointer: String::new(),
                    message: format!(
                        "{label} reads as {}, the first call as {}: one file holds one kind of request (pass --from to read them all as one)",
                        call.source.describe(),
                        Source::describe(first)
                    ),
                })
            }
            Some(_) => {}
            None => {
                source = Some(call.source);
                detected = call.detected;
            }
        }
        drafts.push((call.draft, None, Some(label)));
    }
    if drafts.is_empty() {
        return Err(ImportError {
            file: None,
            line: 0,
            column: 0,
            pointer: String::new(),
            message: format!("no calls: {}", skipped.join("; ")),
        });
    }
    scenes(
        source.unwrap_or(Source::OpenaiChat),
        detected,
        drafts,
        skipped,
        file_name,
    )
}

/// A request body read by its source's reader (OpenTelemetry data is read by `otel`).
pub(crate) fn read_body(source: Source, body: &Node<'_>) -> Result<Draft, ImportError> {
    // Told the source or not, an embeddings or completions body is never read as a request.
    if matches!(source, Source::OpenaiResponses | Source::OpenaiChat) {
        if let Some(refusal) = detect::not_a_chat_request(body) {
            return Err(refusal);
        }
    }
    match source {
        Source::OpenaiChat => openai_chat::read(body),
        Source::OpenaiResponses => openai_responses::read(body),
        Source::Anthropic => anthropic::read(body),
        Source::Gemini => gemini::read(body),
        Source::Otel => Err(body
            .err("an OpenTelemetry span is not a request body: pass its export or span to import")),
        Source::Vcr | Source::Har => {
            Err(body.err("a cassette or HAR file is not a request body: pass the file to import"))
        }
    }
}

/// The scenes of a file's drafts, each with the line it came from (JSON lines) and a label
/// (which span), named after the file: one scene `<stem>`, or a conversation
/// `<stem>-01`, `<stem>-02`, ... in call order. Each scene is loaded before it is returned.
pub(crate) fn scenes(
    source: Source,
    detected: Option<String>,
    drafts: Vec<(Draft, Option<usize>, Option<String>)>,
    skipped: Vec<String>,
    file_name: &str,
) -> Result<Import, ImportError> {
    let stem = stem(file_name);
    let count = drafts.len();
    let mut scenes = Vec::with_capacity(count);
    for (i, (d, line, label)) in drafts.into_iter().enumerate() {
        let name = if count == 1 {
            stem.to_owned()
        } else {
            format!("{stem}-{:0width$}", i + 1, width = number_width(count))
        };
        let unmapped = d.unmapped.clone();
        let carried = d.carried_notes.clone();
        let from_text = match (line, &label) {
            (Some(l), Some(s)) => format!("line {l}, {s}"),
            (Some(l), None) => format!("line {l}"),
            (None, Some(s)) => s.clone(),
            (None, None) => "the document".to_owned(),
        };
        let provenance = draft::Provenance {
            what: source.describe(),
            file: file_name,
            line,
            detail: label,
        };
        let doc = draft::scene(d, &name, &provenance);
        let mut text = crate::json_out::to_string_pretty(&doc);
        text.push('\n');
        let loaded = crate::scene::load_str(&text).map_err(|e| ImportError {
            file: None,
            line: line.unwrap_or(0),
            column: 0,
            pointer: String::new(),
            message: format!("the scene made from {from_text} does not load (an import bug): {e}"),
        })?;
        tracing::debug!(scene = %name, unmapped = unmapped.len(), carried = carried.len(), "imported");
        scenes.push(ImportedScene {
            name,
            text,
            from: from_text,
            unmapped,
            carried,
            recorded: loaded.recorded,
        });
    }
    Ok(Import {
        source,
        detected,
        scenes,
        skipped,
        stem: stem.to_owned(),
    })
}

/// The file's name without its last extension (`calls.jsonl` → `calls`).
fn stem(file_name: &str) -> &str {
    match file_name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => file_name,
    }
}

/// Digits of the numbers of a conversation's files: at least two, so they sort.
pub fn number_width(count: usize) -> usize {
    count.to_string().len().max(2)
}

/// The file names of an import's scenes in a folder: `NN-<name>.scene.json` for a
/// conversation (numbered in call order, as `cache` takes them), `<name>.scene.json` for one.
pub fn file_names(import: &Import) -> Vec<String> {
    let count = import.scenes.len();
    if count == 1 {
        return vec![format!("{}.scene.json", import.scenes[0].name)];
    }
    let width = number_width(count);
    (1..=count)
        .map(|i| format!("{i:0width$}-{}.scene.json", import.stem))
        .collect()
}
