//! Anthropic's Messages requests as billed: an estimate, since no tokenizer of Claude 3 or later
//! is public (docs/models.md, "Predicted billed input: Anthropic, Gemini, DeepSeek").
//!
//! Each piece is counted with `o200k_base` and scaled by a ratio for its kind (prose, or
//! structured text such as tool definitions and calls), plus the framing Claude's prompt format
//! adds per message, tool, tool call and request. Documented figures are added as they are: the
//! tool-use system prompt per model and `tool_choice`, images by `image`, PDF pages. The ratios
//! and framing constants ([`FITTED`]) are fitted on the recorded calls in `corpora/usage`
//! (`cargo run --example billed_estimates` refits them and prints the error figures).

mod model;

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::Value as Json;

use super::estimate::{o200k, plain_text, sorted_json};
use super::image::{self, ImageRef, Margin};
use super::{BilledPart, BillingError, PartKind};
use crate::usage::{Api, Provenance};

/// What a request's estimate is made of, before the coefficients are applied.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// `o200k_base` tokens of prose: text blocks, the system prompt, tool results, thinking
    /// kept in a tool-use loop.
    pub text: usize,
    /// `o200k_base` tokens of structured pieces: tool definitions as Claude's prompt renders
    /// them, tool calls' names and inputs, output schemas.
    pub structured: usize,
    pub messages: usize,
    pub tools: usize,
    /// `tool_use` and `tool_result` blocks.
    pub calls: usize,
    /// 1: the framing every request has.
    pub requests: usize,
    /// 1 when extended thinking is enabled (`thinking.type` `enabled`).
    pub thinking: usize,
    /// 1 when the request sets an output format (structured outputs).
    pub formats: usize,
    /// 1 when the request sets a task budget (`output_config.task_budget`).
    pub budgets: usize,
    /// Tokens from documented figures, not fitted: the tool-use system prompt, images, PDF
    /// pages, Anthropic-defined tools.
    pub documented: usize,
}

/// The estimate's ratios and framing constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// Claude tokens per `o200k_base` token of prose (models before Opus 4.7).
    pub text_ratio: f64,
    /// The same for structured text.
    pub structured_ratio: f64,
    /// The ratio for both kinds on Opus 4.7 and later, which use a newer tokenizer.
    pub new_tokenizer_ratio: f64,
    pub per_message: f64,
    pub per_tool: f64,
    pub per_call: f64,
    pub per_request: f64,
    /// The system prompt extended thinking adds.
    pub thinking: f64,
    /// The system prompt an output format adds (its schema is counted as structured text).
    pub output_format: f64,
    pub task_budget: f64,
}

/// The coefficients fitted on `corpora/usage` (weighted least squares on the relative error;
/// examples/billed_estimates.rs).
pub const FITTED: Coefficients = Coefficients {
    text_ratio: 1.112,
    structured_ratio: 1.018,
    new_tokenizer_ratio: 1.316,
    per_message: 3.72,
    per_tool: 2.99,
    per_call: 25.73,
    per_request: 3.16,
    thinking: 28.0,
    output_format: 125.65,
    task_budget: 36.91,
};

/// How far an estimate is off on at least 90% of the recorded calls (docs/models.md).
pub const BOUND_PERCENT: f64 = 12.0;

/// Anthropic counts a PDF page as its text and an image of the page: 1,500 to 3,000 tokens a
/// page by its documentation. The low end, as the bound of such a request says.
const PDF_TOKENS_PER_PAGE: usize = 1500;

/// Anthropic-defined tools' documented definition sizes, by the start of their `type`.
const DEFINED_TOOLS: &[(&str, usize)] =
    &[("bash_", 245), ("text_editor_", 700), ("computer_", 735)];

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.text += o.text;
        self.structured += o.structured;
        self.messages += o.messages;
        self.tools += o.tools;
        self.calls += o.calls;
        self.requests += o.requests;
        self.thinking += o.thinking;
        self.formats += o.formats;
        self.budgets += o.budgets;
        self.documented += o.documented;
    }

    /// The estimated tokens, unrounded.
    pub fn tokens(&self, c: &Coefficients, new_tokenizer: bool) -> f64 {
        let (text, structured) = if new_tokenizer {
            (c.new_tokenizer_ratio, c.new_tokenizer_ratio)
        } else {
            (c.text_ratio, c.structured_ratio)
        };
        let estimated = text * self.text as f64
            + structured * self.structured as f64
            + c.per_message * self.messages as f64
            + c.per_tool * self.tools as f64
            + c.per_call * self.calls as f64
            + c.per_request * self.requests as f64
            + c.thinking * self.thinking as f64
            + c.output_format * self.formats as f64
            + c.task_budget * self.budgets as f64;
        estimated.max(0.0) + self.documented as f64
    }
}

/// One piece before its tokens are estimated.
struct Draft {
    kind: PartKind,
    pointer: String,
    canonical: String,
    tally: Tally,
    breakpoint: Option<String>,
}

impl Draft {
    fn new(kind: PartKind, pointer: String, canonical: String, tally: Tally) -> Draft {
        Draft {
            kind,
            pointer,
            canonical,
            tally,
            breakpoint: None,
        }
    }
}

/// A request's whole tally, and whether `model` uses the newer tokenizer: what the fit in
/// examples/billed_estimates.rs works on.
pub fn tally(model: &str, body: &Json) -> Result<(Tally, bool), BillingError> {
    let (drafts, _) = drafts(model, body)?;
    let mut total = Tally::default();
    for d in &drafts {
        total.add(&d.tally);
    }
    Ok((total, new_tokenizer(model)))
}

fn new_tokenizer(model: &str) -> bool {
    model::Claude::parse(model).is_some_and(|c| c.new_tokenizer())
}

pub(super) fn messages(
    model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let (drafts, media) = drafts(model, body)?;
    let newer = new_tokenizer(model);
    let parts: Vec<BilledPart> = drafts
        .into_iter()
        .map(|d| BilledPart {
            kind: d.kind,
            tokens: d.tally.tokens(&FITTED, newer).round() as usize,
            pointer: d.pointer,
            canonical: d.canonical,
            breakpoint: d.breakpoint,
        })
        .collect();
    let estimate = Provenance::Estimate {
        bound_percent: BOUND_PERCENT,
    };
    let predicted: usize = parts.iter().map(|p| p.tokens).sum();
    Ok((parts, estimate.combine(&media.provenance(predicted))))
}

/// The request's pieces in Anthropic's cache-prefix order (tools, system, messages), and the
/// provenance of the documented figures among them (images, PDF pages).
fn drafts(model: &str, body: &Json) -> Result<(Vec<Draft>, Margin), BillingError> {
    if !body.is_object() {
        return Err(BillingError::at(
            "",
            "a Messages request body is a JSON object",
        ));
    }
    let mut out = Vec::new();
    let mut media = Margin::default();
    let referenced = referenced_tools(body);
    tools(model, body, &referenced, &mut out)?;
    system(body, &mut out)?;
    settings(body, &mut out);
    let messages = match body.get("messages") {
        None => &[][..],
        Some(Json::Array(items)) => items.as_slice(),
        Some(_) => {
            return Err(BillingError::at(
                "/messages",
                "expected an array of messages",
            ))
        }
    };
    let keep_thinking = thinking_kept_at(messages);
    let names = tool_names(messages);
    for (i, message) in messages.iter().enumerate() {
        let ctx = Message {
            model,
            keep_thinking: keep_thinking == Some(i),
            names: &names,
        };
        message_drafts(&ctx, message, i, &mut out, &mut media)?;
    }
    // Automatic caching: a top-level `cache_control` marks the end of the last block.
    if let Some(ttl) = ttl_of(body) {
        if let Some(last) = out.iter_mut().rev().find(|d| d.kind != PartKind::Framing) {
            last.breakpoint.get_or_insert(ttl);
        }
    }
    let tally = Tally {
        requests: 1,
        ..Tally::default()
    };
    out.push(Draft::new(
        PartKind::Framing,
        String::new(),
        "assistant:".to_owned(),
        tally,
    ));
    Ok((out, media))
}

/// The TTL of a value's `cache_control` (`5m` unless it says `1h`).
fn ttl_of(v: &Json) -> Option<String> {
    let cc = v.get("cache_control")?.as_object()?;
    Some(
        cc.get("ttl")
            .and_then(Json::as_str)
            .unwrap_or("5m")
            .to_owned(),
    )
}

/// Tools deferred with `defer_loading` stay out of the prompt until a `tool_reference` in a
/// tool result loads them.
fn referenced_tools(body: &Json) -> Vec<String> {
    let mut names = Vec::new();
    for m in body
        .get("messages")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        for b in m
            .get("content")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            for r in b
                .get("content")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                if r.get("type").and_then(Json::as_str) == Some("tool_reference") {
                    if let Some(name) = r.get("tool_name").and_then(Json::as_str) {
                        names.push(name.to_owned());
                    }
                }
            }
        }
    }
    names
}

fn tools(
    model: &str,
    body: &Json,
    referenced: &[String],
    out: &mut Vec<Draft>,
) -> Result<(), BillingError> {
    let tools = match body.get("tools") {
        None | Some(Json::Null) => return Ok(()),
        Some(Json::Array(t)) => t,
        Some(_) => {
            return Err(BillingError::at(
                "/tools",
                "expected an array of tool definitions",
            ))
        }
    };
    if tools.is_empty() {
        return Ok(());
    }
    let choice = body
        .pointer("/tool_choice/type")
        .and_then(Json::as_str)
        .unwrap_or("auto");
    out.push(Draft::new(
        PartKind::ToolPrompt,
        String::new(),
        format!("tool-use system prompt ({choice})"),
        Tally {
            documented: model::tool_prompt_tokens(model, choice),
            ..Tally::default()
        },
    ));
    for (i, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Json::as_str).unwrap_or("");
        let deferred = tool.get("defer_loading").and_then(Json::as_bool) == Some(true);
        if deferred && !referenced.iter().any(|r| r == name) {
            continue;
        }
        let kind = tool.get("type").and_then(Json::as_str).unwrap_or("custom");
        let defined = DEFINED_TOOLS
            .iter()
            .find(|(prefix, _)| kind.starts_with(prefix));
        let (canonical, tally) = match defined {
            Some(&(_, tokens)) => (
                format!("<tool type={kind:?} name={name:?}>"),
                Tally {
                    documented: tokens,
                    ..Tally::default()
                },
            ),
            None => {
                let rendered = tool_definition(tool);
                let tally = Tally {
                    structured: o200k(&rendered),
                    tools: 1,
                    ..Tally::default()
                };
                (rendered, tally)
            }
        };
        let mut d = Draft::new(PartKind::Tool, format!("/tools/{i}"), canonical, tally);
        d.breakpoint = ttl_of(tool);
        out.push(d);
    }
    Ok(())
}

/// A tool definition as Claude's prompt renders it: `<function>` around a JSON object of its
/// description, name and input schema as `parameters`, keys sorted.
fn tool_definition(tool: &Json) -> String {
    let mut def = serde_json::Map::new();
    let field = |k: &str| tool.get(k).cloned();
    def.insert(
        "description".to_owned(),
        field("description").unwrap_or(Json::String(String::new())),
    );
    def.insert("name".to_owned(), field("name").unwrap_or(Json::Null));
    def.insert(
        "parameters".to_owned(),
        field("input_schema").unwrap_or_else(|| Json::Object(Default::default())),
    );
    format!("<function>{}</function>", sorted_json(&Json::Object(def)))
}

fn system(body: &Json, out: &mut Vec<Draft>) -> Result<(), BillingError> {
    match body.get("system") {
        None | Some(Json::Null) => {}
        Some(Json::String(s)) => {
            if !s.is_empty() {
                out.push(text_draft(PartKind::System, "/system".to_owned(), s));
            }
        }
        Some(Json::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                let text = b.get("text").and_then(Json::as_str).unwrap_or("");
                let mut d = text_draft(PartKind::System, format!("/system/{i}"), text);
                d.breakpoint = ttl_of(b);
                out.push(d);
            }
        }
        Some(_) => {
            return Err(BillingError::at(
                "/system",
                "expected a string or an array of text blocks",
            ))
        }
    }
    Ok(())
}

fn text_draft(kind: PartKind, pointer: String, text: &str) -> Draft {
    let tally = Tally {
        text: o200k(text),
        ..Tally::default()
    };
    Draft::new(kind, pointer, text.to_owned(), tally)
}

/// The system prompts Anthropic adds for the request's settings: extended thinking, an output
/// format (with its schema), a task budget.
fn settings(body: &Json, out: &mut Vec<Draft>) {
    if body.pointer("/thinking/type").and_then(Json::as_str) == Some("enabled") {
        let tally = Tally {
            thinking: 1,
            ..Tally::default()
        };
        out.push(Draft::new(
            PartKind::Framing,
            "/thinking".to_owned(),
            "extended thinking".to_owned(),
            tally,
        ));
    }
    let format = [("/output_format", "/output_format/schema")]
        .into_iter()
        .chain([("/output_config/format", "/output_config/format/schema")])
        .find(|(at, _)| body.pointer(at).is_some_and(Json::is_object));
    if let Some((at, schema_at)) = format {
        let schema = body.pointer(schema_at).map(sorted_json).unwrap_or_default();
        let tally = Tally {
            structured: o200k(&schema),
            formats: 1,
            ..Tally::default()
        };
        out.push(Draft::new(PartKind::Schema, at.to_owned(), schema, tally));
    }
    if body
        .pointer("/output_config/task_budget")
        .is_some_and(|b| !b.is_null())
    {
        let tally = Tally {
            budgets: 1,
            ..Tally::default()
        };
        out.push(Draft::new(
            PartKind::Framing,
            "/output_config/task_budget".to_owned(),
            "task budget".to_owned(),
            tally,
        ));
    }
}

/// Thinking blocks of earlier turns are dropped from the prompt, except in the last assistant
/// message of a tool-use loop (the request ends with that message's tool results).
fn thinking_kept_at(messages: &[Json]) -> Option<usize> {
    let last = messages.last()?;
    let ends_with_results = last
        .get("content")
        .and_then(Json::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|b| b.get("type").and_then(Json::as_str) == Some("tool_result"))
        });
    if !ends_with_results || messages.len() < 2 {
        return None;
    }
    let i = messages.len() - 2;
    (messages[i].get("role").and_then(Json::as_str) == Some("assistant")).then_some(i)
}

/// Each `tool_use` block's id and tool name, so that a result can be rendered with its name.
fn tool_names(messages: &[Json]) -> HashMap<&str, &str> {
    let mut names = HashMap::new();
    for m in messages {
        for b in m
            .get("content")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(id), Some(name)) = (
                b.get("id").and_then(Json::as_str),
                b.get("name").and_then(Json::as_str),
            ) {
                names.insert(id, name);
            }
        }
    }
    names
}

struct Message<'a> {
    model: &'a str,
    keep_thinking: bool,
    names: &'a HashMap<&'a str, &'a str>,
}

fn message_drafts(
    ctx: &Message<'_>,
    message: &Json,
    i: usize,
    out: &mut Vec<Draft>,
    media: &mut Margin,
) -> Result<(), BillingError> {
    let at = format!("/messages/{i}");
    let role = message.get("role").and_then(Json::as_str).unwrap_or("user");
    let start = out.len();
    match message.get("content") {
        Some(Json::String(text)) => {
            out.push(text_draft(PartKind::Message, format!("{at}/content"), text))
        }
        Some(Json::Array(blocks)) => {
            for (j, b) in blocks.iter().enumerate() {
                block_drafts(ctx, b, format!("{at}/content/{j}"), out, media);
            }
        }
        None | Some(Json::Null) => {}
        Some(_) => {
            return Err(BillingError::at(
                &format!("{at}/content"),
                "expected a string or an array of content blocks",
            ))
        }
    }
    if out.len() == start {
        out.push(Draft::new(
            PartKind::Message,
            at,
            String::new(),
            Tally::default(),
        ));
    }
    // The message's role header belongs to its first block.
    let first = &mut out[start];
    first.tally.messages += 1;
    first.canonical = format!("{role}: {}", first.canonical);
    Ok(())
}

fn block_drafts(ctx: &Message<'_>, b: &Json, at: String, out: &mut Vec<Draft>, media: &mut Margin) {
    let kind = b.get("type").and_then(Json::as_str).unwrap_or("text");
    let start = out.len();
    match kind {
        "text" => {
            let text = b.get("text").and_then(Json::as_str).unwrap_or("");
            out.push(text_draft(PartKind::Message, at, text));
        }
        "tool_use" | "server_tool_use" => {
            let name = b.get("name").and_then(Json::as_str).unwrap_or("");
            let input = b.get("input").map(sorted_json).unwrap_or_default();
            let canonical = format!("<invoke name={name:?}>{input}</invoke>");
            let tally = Tally {
                structured: o200k(name) + o200k(&input),
                calls: 1,
                ..Tally::default()
            };
            out.push(Draft::new(PartKind::Message, at, canonical, tally));
        }
        "tool_result" => {
            let id = b.get("tool_use_id").and_then(Json::as_str).unwrap_or("");
            let name = ctx.names.get(id).copied().unwrap_or("");
            let content = b.get("content").unwrap_or(&Json::Null);
            let text = result_text(content);
            let tally = Tally {
                text: o200k(&text),
                calls: 1,
                ..Tally::default()
            };
            let canonical = format!("<result name={name:?}>{text}</result>");
            out.push(Draft::new(PartKind::Message, at.clone(), canonical, tally));
            // Images and documents inside a result are priced as their own pieces.
            for (k, inner) in content.as_array().into_iter().flatten().enumerate() {
                if matches!(
                    inner.get("type").and_then(Json::as_str),
                    Some("image" | "document")
                ) {
                    let inner_at = format!("{at}/content/{k}");
                    media_draft(ctx.model, inner, inner_at, out, media);
                }
            }
        }
        "thinking" | "redacted_thinking" => {
            let text = b.get("thinking").and_then(Json::as_str).unwrap_or("");
            let kept = ctx.keep_thinking && kind == "thinking";
            let tally = Tally {
                text: if kept { o200k(text) } else { 0 },
                ..Tally::default()
            };
            let canonical = if kept { text.to_owned() } else { String::new() };
            out.push(Draft::new(PartKind::Reasoning, at, canonical, tally));
        }
        "image" | "document" => media_draft(ctx.model, b, at, out, media),
        _ => {
            // A block this estimate has no rule for: its JSON, as structured text.
            let mut rest = b.clone();
            if let Some(obj) = rest.as_object_mut() {
                obj.remove("cache_control");
            }
            let text = sorted_json(&rest);
            let tally = Tally {
                structured: o200k(&text),
                ..Tally::default()
            };
            out.push(Draft::new(PartKind::Message, at, text, tally));
        }
    }
    if let (Some(ttl), Some(d)) = (ttl_of(b), out.get_mut(start)) {
        d.breakpoint = Some(ttl);
    }
}

/// A tool result's text: a string, or its text blocks and text documents.
fn result_text(content: &Json) -> String {
    match content {
        Json::Array(blocks) => blocks
            .iter()
            .filter_map(|b| match b.get("type").and_then(Json::as_str) {
                Some("document") if b.pointer("/source/type") == Some(&"text".into()) => {
                    b.pointer("/source/data").and_then(Json::as_str)
                }
                Some("tool_reference") => b.get("tool_name").and_then(Json::as_str),
                _ => b.get("text").and_then(Json::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => plain_text(other),
    }
}

/// An image (priced by `image`) or a document: a text document is its text; a PDF is its pages
/// at the documented low end of a page's tokens.
fn media_draft(model: &str, b: &Json, at: String, out: &mut Vec<Draft>, media: &mut Margin) {
    let source_type = b.pointer("/source/type").and_then(Json::as_str);
    let data = b.pointer("/source/data").and_then(Json::as_str);
    let is_image = b.get("type").and_then(Json::as_str) == Some("image");
    if is_image {
        let size = match (source_type, data) {
            (Some("base64"), Some(data)) => image::pixel_size_base64(data),
            _ => None,
        };
        let (tokens, p) = image::tokens(
            Api::Anthropic,
            model,
            &ImageRef {
                size,
                ..Default::default()
            },
        );
        media.add(tokens, &p);
        let canonical = format!("<image {}>", media_identity(b));
        let tally = Tally {
            documented: tokens,
            ..Tally::default()
        };
        out.push(Draft::new(PartKind::Image, at, canonical, tally));
        return;
    }
    match (source_type, data) {
        (Some("text"), Some(text)) => out.push(text_draft(PartKind::Message, at, text)),
        (Some("content"), _) => {
            let text = plain_text(b.pointer("/source/content").unwrap_or(&Json::Null));
            out.push(text_draft(PartKind::Message, at, &text));
        }
        _ => {
            let pages = data.map(pdf_pages).unwrap_or(1);
            let tokens = pages * PDF_TOKENS_PER_PAGE;
            // The low end of a page's tokens: the pages may cost up to twice as much, which
            // leaves the billed input at most twice the prediction.
            media.input_percent = media.input_percent.max(100.0);
            let canonical = format!("<document {}>", media_identity(b));
            let tally = Tally {
                documented: tokens,
                ..Tally::default()
            };
            out.push(Draft::new(PartKind::Image, at, canonical, tally));
        }
    }
}

/// What names a media block's content in its canonical form: a digest of its data, or its URL.
fn media_identity(b: &Json) -> String {
    use sha2::Digest as _;
    if let Some(data) = b.pointer("/source/data").and_then(Json::as_str) {
        let digest = sha2::Sha256::digest(data.as_bytes());
        let hex: String = digest[..8].iter().map(|x| format!("{x:02x}")).collect();
        return format!("sha256:{hex}");
    }
    b.pointer("/source/url")
        .or_else(|| b.pointer("/source/file_id"))
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The pages of a base64 PDF: its `/Type /Page` objects (at least one).
fn pdf_pages(data: &str) -> usize {
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data.trim()) else {
        return 1;
    };
    let mut pages = 0;
    for (i, _) in bytes.windows(5).enumerate().filter(|(_, w)| w == b"/Type") {
        let rest = &bytes[i + 5..];
        let rest = &rest[rest.iter().take_while(|c| c.is_ascii_whitespace()).count()..];
        if rest.starts_with(b"/Page") && !rest.starts_with(b"/Pages") {
            pages += 1;
        }
    }
    pages.max(1)
}

#[cfg(test)]
mod tests;
