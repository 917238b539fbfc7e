//! The injection engine of seed 000: validate tools, ask each for its prompt
//! (`format_2_prompt`), collect contributions per segment in `tools` order, render every segment
//! and assemble the messages, reporting where every byte came from.

mod memo;
mod normalize;
mod render;
mod tokens;
pub mod validate;

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;

pub use crate::report::{
    Diagnostic, Level, MessageOut, Metrics, PieceOut, Report, SegmentOut, Source, Status, ToolOut,
};
pub use memo::RenderMemo;
pub use normalize::{format_2_prompt, wrap_str, Normalized};
pub use render::{render_template, PromptError, RenderVars};

use crate::context;
use crate::scene::{Content, Message, Part, Prompt, Role, Scene, Tool};
use crate::segments::{Family, Segment, SegmentKind};
use crate::value::Value;

/// How to render, beyond the scene itself. Each field's default is what `render` uses.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The folder of the scene file: relative image paths are resolved against it.
    pub base_dir: Option<std::path::PathBuf>,
    /// For chat: also build this provider's request body (`Report::request`).
    pub chat_provider: Option<crate::provider::ChatProvider>,
    /// The tokenizer for the report's `tokens` fields (default `o200k_base`).
    pub encoding: crate::tokens::Encoding,
    /// Leave the `tokens` fields out. Building an encoder takes ~150 ms and counting a megabyte
    /// ~50 ms, many times a whole render, so the CLI counts only when asked.
    pub skip_tokens: bool,
}

/// Renders a scene for one LLM family with default options (see [`render_with`]).
pub fn render(scene: &Scene, family: Family) -> Report {
    render_with(scene, family, &Options::default())
}

/// Renders a scene for one LLM family. Never fails: problems become diagnostics, as TFRobot keeps
/// the LLM call going when a tool or a prompt misbehaves. The scene is not changed.
pub fn render_with(scene: &Scene, family: Family, options: &Options) -> Report {
    render_with_memo(scene, family, options, &mut RenderMemo::off())
}

/// [`render_with`], keeping template renders in `memo` for the next render of the same context
/// (the other family, the next keystroke of a live document). The report is the same as
/// [`render_with`]'s: the memo only skips renders whose inputs are unchanged.
pub fn render_with_memo(
    scene: &Scene,
    family: Family,
    options: &Options,
    memo: &mut RenderMemo,
) -> Report {
    let span = tracing::info_span!(
        "render",
        llm = family.as_str(),
        tools_total = tracing::field::Empty,
        tools_rendered = tracing::field::Empty,
        bytes = tracing::field::Empty,
    );
    let _entered = span.enter();
    let mut r = Run {
        family,
        diagnostics: Vec::new(),
        memo,
    };

    let tools = r.distinct_tools(&scene.tools);
    let verdicts: Vec<Result<(), validate::Invalid>> =
        tools.iter().map(|t| validate::validate(t)).collect();
    let valid: Vec<&Tool> = tools
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.is_ok())
        .map(|(t, _)| *t)
        .collect();
    let ctx = context::effective(&scene.context, &valid);
    r.memo.context(&ctx);
    let vars = RenderVars::new(ctx);

    // The collector (`_collect_dynamic_prompts`): its three short-circuits, then normalisation.
    let mut statuses: Vec<Option<Status>> = Vec::with_capacity(tools.len());
    let mut buckets: IndexMap<&str, Vec<(usize, Prompt)>> = IndexMap::new();
    for (i, (tool, verdict)) in tools.iter().zip(&verdicts).enumerate() {
        statuses.push(match verdict {
            Err(invalid) => {
                r.diag(
                    Level::Error,
                    "tool_invalid",
                    invalid.to_string(),
                    Some(&tool.name),
                    None,
                );
                Some(Status::Invalid)
            }
            Ok(()) => r.collect(tool, i, &vars, &mut buckets),
        });
    }

    let conversation = match family {
        Family::Chat => r.conversation(&vars),
        Family::Desk => Vec::new(),
    };
    let mut segments = Vec::new();
    let mut metrics = Metrics::default();
    for seg in family.segments() {
        let out = match seg.kind {
            SegmentKind::Prompts | SegmentKind::UserInput => r.prompt_segment(
                scene,
                seg,
                &vars,
                buckets.get(seg.name),
                &tools,
                &mut statuses,
                &mut metrics,
            ),
            SegmentKind::Messages => message_segment(scene, seg, &conversation),
        };
        segments.push(out);
    }

    metrics.tools_total = valid.iter().filter(|t| t.prompt_position.is_some()).count();
    metrics.tools_rendered = statuses
        .iter()
        .filter(|s| **s == Some(Status::Injected))
        .count();
    span.record("tools_total", metrics.tools_total);
    span.record("tools_rendered", metrics.tools_rendered);
    span.record("bytes", metrics.bytes);

    let tools_out = tools
        .iter()
        .zip(statuses)
        .map(|(t, s)| ToolOut {
            name: t.name.clone(),
            status: s.unwrap_or(Status::RenderedEmpty),
            position: t
                .prompt_position
                .as_ref()
                .and_then(|p| side(p, family).clone()),
        })
        .collect();
    let mut messages = match family {
        Family::Chat => Some(chat_messages(scene, &segments, conversation, &vars)),
        Family::Desk => None,
    };
    let tokenizer = (!options.skip_tokens).then(|| {
        tokens::annotate(&mut segments, messages.as_deref_mut(), options.encoding);
        options.encoding
    });
    // Request bodies are built last: their diagnostics follow the rendering ones.
    let base_dir = options.base_dir.as_deref();
    let request = match (family, &messages, options.chat_provider) {
        (Family::Desk, _, _) => Some(crate::provider::desk_request(
            &scene.desk_llm,
            &segments,
            base_dir,
            &mut r.diagnostics,
        )),
        (Family::Chat, Some(messages), Some(provider)) => Some(crate::provider::chat_request(
            provider,
            messages,
            &segments,
            base_dir,
            &mut r.diagnostics,
        )),
        (Family::Chat, _, _) => None,
    };
    Report {
        llm: family.as_str(),
        tokenizer,
        messages,
        request,
        segments,
        tools: tools_out,
        diagnostics: r.diagnostics,
        metrics,
    }
}

fn side(p: &crate::scene::Position, family: Family) -> &Option<String> {
    match family {
        Family::Chat => &p.chat,
        Family::Desk => &p.desk,
    }
}

struct Run<'m> {
    family: Family,
    diagnostics: Vec<Diagnostic>,
    memo: &'m mut RenderMemo,
}

/// A rendered piece before it is placed in its segment's text.
struct Piece {
    source: Source,
    tool: Option<usize>,
    index: Option<usize>,
    text: Arc<str>,
    attachments: Vec<Value>,
}

impl Run<'_> {
    fn diag(
        &mut self,
        level: Level,
        code: &'static str,
        message: String,
        tool: Option<&str>,
        segment: Option<&'static str>,
    ) {
        self.diagnostics.push(Diagnostic {
            level,
            code,
            message,
            tool: tool.map(str::to_owned),
            segment,
            prompt: None,
        });
    }

    /// The tools as the call passes them; a name seen before is the same tool (first wins).
    fn distinct_tools<'s>(&mut self, tools: &'s [Tool]) -> Vec<&'s Tool> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for t in tools {
            if seen.insert(t.name.as_str()) {
                out.push(t);
            } else {
                self.diag(
                    Level::Warning,
                    "tool_duplicate",
                    format!("tool {:?} is listed more than once; the first entry is the tool, later ones are ignored", t.name),
                    Some(&t.name),
                    None,
                );
            }
        }
        out
    }

    /// Asks one valid tool for its contribution. `None` means "decided when its piece renders".
    fn collect<'a>(
        &mut self,
        tool: &'a Tool,
        index: usize,
        vars: &RenderVars,
        buckets: &mut IndexMap<&'a str, Vec<(usize, Prompt)>>,
    ) -> Option<Status> {
        let Some(position) = &tool.prompt_position else {
            return Some(Status::Undeclared);
        };
        let Some(segment) = side(position, self.family) else {
            return Some(Status::Silent);
        };
        let memo = &mut *self.memo;
        let normalized = normalize::format_2_prompt_by(tool, &vars.ctx, |source, v| {
            memo.render(source, memo::Over::State(tool.state.clone()), || {
                render_template(source, v)
            })
        });
        match normalized {
            Normalized::Prompt(p) => {
                buckets
                    .entry(segment.as_str())
                    .or_default()
                    .push((index, p));
                None
            }
            Normalized::Empty => Some(Status::Empty),
            Normalized::Raised(error) => {
                let message = format!(
                    "Tool {} format_2_prompt failed, falling back to None: {error}",
                    tool.name
                );
                tracing::error!(tool = %tool.name, "{message}");
                self.diag(Level::Error, "tool_raised", message, Some(&tool.name), None);
                Some(Status::Error)
            }
            Normalized::ProtocolError(message) => {
                self.diag(
                    Level::Error,
                    "tool_format_2_prompt",
                    format!("TFProtocolError: {message}"),
                    Some(&tool.name),
                    None,
                );
                Some(Status::ProtocolError)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn prompt_segment(
        &mut self,
        scene: &Scene,
        seg: &'static Segment,
        vars: &RenderVars,
        contributions: Option<&Vec<(usize, Prompt)>>,
        tools: &[&Tool],
        statuses: &mut [Option<Status>],
        metrics: &mut Metrics,
    ) -> SegmentOut {
        let configured = match self.family {
            Family::Chat => scene.chat_llm.prompts(seg.name),
            Family::Desk => scene.desk_llm.prompts(seg.name),
        };
        let mut pieces = Vec::new();
        for (i, prompt) in configured.iter().enumerate() {
            let text = vars
                .render_prompt_with(prompt, self.memo)
                .unwrap_or_else(|e| {
                    self.diagnostics.push(Diagnostic {
                        level: Level::Warning,
                        code: "prompt_render_failed",
                        message: format!("{}[{i}] renders as \"\": {e}", seg.name),
                        tool: None,
                        segment: Some(seg.name),
                        prompt: Some(i),
                    });
                    String::new()
                });
            pieces.push(Piece {
                source: Source::Config,
                tool: None,
                index: Some(i),
                text: Arc::from(text),
                attachments: attachments(prompt),
            });
        }
        // Tool pieces go after the configured ones, in `tools` order (the bucket's order).
        for (t, prompt) in contributions.into_iter().flatten() {
            let name = &tools[*t].name;
            let text = vars
                .render_prompt_with(prompt, self.memo)
                .unwrap_or_else(|e| {
                    self.diag(
                        Level::Warning,
                        "prompt_render_failed",
                        format!(
                            "the prompt of tool {name} in {} renders as \"\": {e}",
                            seg.name
                        ),
                        Some(name),
                        Some(seg.name),
                    );
                    String::new()
                });
            if text.is_empty() {
                statuses[*t] = Some(Status::RenderedEmpty);
            } else {
                statuses[*t] = Some(Status::Injected);
                metrics.bytes += text.len();
                *metrics.positions.entry(seg.name.to_owned()).or_default() += 1;
            }
            pieces.push(Piece {
                source: Source::Tool,
                tool: Some(*t),
                index: None,
                text: Arc::from(text),
                attachments: attachments(prompt),
            });
        }
        place(seg, pieces, tools)
    }

    /// `context.conversation` as messages; entries that are not messages are reported, skipped.
    fn conversation(&mut self, vars: &RenderVars) -> Vec<MessageOut> {
        let Some(Value::List(items)) = context::get(vars.ctx.value(), "conversation") else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let role = context::get(item, "role").and_then(|r| match r {
                Value::Str(s) => Role::parse(s),
                _ => None,
            });
            let Some(role) = role else {
                self.diag(
                    Level::Warning,
                    "conversation_message_invalid",
                    format!("context.conversation[{i}] is not a message with a role of system, user, assistant or tool; left out"),
                    None,
                    Some("conversation_msgs"),
                );
                continue;
            };
            let str_field = |k: &str| match context::get(item, k) {
                Some(Value::Str(s)) => Some(s.to_string()),
                _ => None,
            };
            out.push(MessageOut {
                role: role.as_str(),
                content: context::get(item, "content")
                    .cloned()
                    .unwrap_or(Value::str("")),
                segment: Some("conversation_msgs"),
                name: str_field("name"),
                tool_call_id: str_field("tool_call_id"),
                tool_calls: context::get(item, "tool_calls")
                    .filter(|v| **v != Value::None)
                    .cloned(),
                tokens: None,
            });
        }
        out
    }
}

fn message_segment(
    scene: &Scene,
    seg: &'static Segment,
    conversation: &[MessageOut],
) -> SegmentOut {
    let (count, bytes) = match seg.name {
        "conversation_msgs" => (
            conversation.len(),
            conversation
                .iter()
                .map(|m| content_text(&m.content).len())
                .sum(),
        ),
        _ => (
            scene.intermediate_msgs.len(),
            scene
                .intermediate_msgs
                .iter()
                .map(|m| m.content.text().len())
                .sum(),
        ),
    };
    SegmentOut {
        name: seg.name,
        legal: seg.legal(),
        rule: seg.rule.map(|r| r.id()),
        text: String::new(),
        bytes,
        tokens: None,
        messages: Some(count),
        pieces: Vec::new(),
    }
}

/// Contract §2's chat message order.
fn chat_messages(
    scene: &Scene,
    segments: &[SegmentOut],
    conversation: Vec<MessageOut>,
    vars: &RenderVars,
) -> Vec<MessageOut> {
    let text_of = |name: &str| {
        segments
            .iter()
            .find(|s| s.name == name)
            .map_or("", |s| s.text.as_str())
    };
    let system = |name: &'static str| {
        let text = text_of(name);
        (!text.is_empty()).then(|| MessageOut {
            role: "system",
            content: Value::str(text),
            segment: Some(name),
            name: None,
            tool_call_id: None,
            tool_calls: None,
            tokens: None,
        })
    };
    // Sized up front: a long conversation would otherwise be copied at every doubling.
    let mut out = Vec::with_capacity(conversation.len() + scene.intermediate_msgs.len() + 5);
    out.extend(system("system_msg_prompt"));
    out.extend(conversation);
    out.extend(system("before_input_msg_prompt"));
    let reformatted = text_of("reformat_input_prompt");
    let input = if reformatted.is_empty() {
        user_input(vars.ctx.value())
    } else {
        reformatted.to_owned()
    };
    if !input.is_empty() {
        out.push(MessageOut {
            role: "user",
            content: Value::str(&input),
            segment: Some("reformat_input_prompt"),
            name: None,
            tool_call_id: None,
            tool_calls: None,
            tokens: None,
        });
    }
    out.extend(system("after_input_msg_prompt"));
    out.extend(scene.intermediate_msgs.iter().map(message_out));
    out.extend(system("after_intermediate_msg_prompt"));
    out
}

/// Drops empty pieces, joins the rest with `\n` and records each piece's byte range.
fn place(seg: &'static Segment, pieces: Vec<Piece>, tools: &[&Tool]) -> SegmentOut {
    let mut text = String::new();
    let mut out = Vec::new();
    for p in pieces.into_iter().filter(|p| !p.text.is_empty()) {
        if !text.is_empty() {
            text.push('\n');
        }
        let start = text.len();
        text.push_str(&p.text);
        out.push(PieceOut {
            source: p.source,
            tool: p.tool.map(|t| tools[t].name.clone()),
            index: p.index,
            text: p.text,
            attachments: p.attachments,
            range: [start, text.len()],
            tokens: None,
        });
    }
    SegmentOut {
        name: seg.name,
        legal: seg.legal(),
        rule: seg.rule.map(|r| r.id()),
        bytes: text.len(),
        tokens: None,
        messages: None,
        text,
        pieces: out,
    }
}

fn attachments(prompt: &Prompt) -> Vec<Value> {
    match prompt {
        Prompt::Normalize { attachments, .. } => attachments.iter().map(part_value).collect(),
        Prompt::AdditionalInfo { .. } => Vec::new(),
    }
}

/// `user_input.input` as the user message's text (Python `str()` of a non-string).
fn user_input(ctx: &Value) -> String {
    match context::get(ctx, "user_input").and_then(|ui| context::get(ui, "input")) {
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::None) | None => String::new(),
        Some(other) => crate::py::to_str(other),
    }
}

/// The text a message contributes to its segment: the string, or its text parts joined.
fn content_text(content: &Value) -> Arc<str> {
    match content {
        Value::Str(s) => s.clone(),
        Value::List(parts) => parts
            .iter()
            .filter_map(|p| match context::get(p, "text") {
                Some(Value::Str(s)) => Some(s.to_string()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
            .into(),
        _ => Arc::from(""),
    }
}

fn message_out(m: &Message) -> MessageOut {
    MessageOut {
        role: m.role.as_str(),
        content: content_value(&m.content),
        segment: Some("intermediate_msgs"),
        name: m.name.clone(),
        tool_call_id: m.tool_call_id.clone(),
        tool_calls: m.tool_calls.clone(),
        tokens: None,
    }
}

/// A typed message content back in its JSON shape.
pub fn content_value(c: &Content) -> Value {
    use std::sync::Arc;
    match c {
        Content::Text(s) => Value::str(s),
        Content::Parts(parts) => Value::List(Arc::new(parts.iter().map(part_value).collect())),
    }
}

fn part_value(p: &Part) -> Value {
    use crate::scene::ImageSource;
    use std::sync::Arc;
    let mut m = crate::value::Dict::default();
    let mut put = |k: &str, v: &str| {
        m.insert(Arc::from(k), Value::str(v));
    };
    match p {
        Part::Text(t) => {
            put("type", "text");
            put("text", t);
        }
        Part::Image(img) => {
            put("type", "image");
            match &img.source {
                ImageSource::Url(u) => put("url", u),
                ImageSource::Path(p) => put("path", p),
                ImageSource::DataBase64(d) => put("data_base64", d),
            }
            if let Some(mt) = &img.mime_type {
                put("mime_type", mt);
            }
        }
    }
    Value::Dict(Arc::new(m))
}
