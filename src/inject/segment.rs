//! Rendering a segment: each configured prompt, then each tool's, rendered over the context; the
//! pieces that render empty dropped, the rest joined with `\n`, every piece's source and byte range
//! recorded. Message segments (the conversation, the intermediate messages) only count.

use std::sync::Arc;

use super::assemble::{content_text_len, part_value};
use super::collect::Contributions;
use super::{
    Diagnostic, Level, Metrics, PieceOut, RenderVars, Renderer, SegmentOut, Source, Status,
};
use crate::report::DiagnosticCode;
use crate::report::MessageOut;
use crate::scene::{Prompt, Scene, Tool};
use crate::segments::{Family, Segment};
use crate::value::Value;

/// What the steps record about the tools as segments render: their prompts per segment, each
/// one's status (`None` until its piece renders), and the injection metrics.
pub(super) struct Tally<'a> {
    pub tools: Vec<&'a Tool>,
    pub contributions: Contributions<'a>,
    pub statuses: Vec<Option<Status>>,
    pub metrics: Metrics,
}

impl<'a> Tally<'a> {
    pub fn new(tools: Vec<&'a Tool>) -> Self {
        Tally {
            statuses: Vec::with_capacity(tools.len()),
            tools,
            contributions: Contributions::new(),
            metrics: Metrics::default(),
        }
    }
}

/// A rendered piece before it is placed in its segment's text.
struct Piece {
    source: Source,
    tool: Option<usize>,
    index: Option<usize>,
    text: Arc<str>,
    attachments: Vec<Value>,
}

impl Renderer<'_> {
    /// A prompt segment: its configured prompts, then the tools' prompts, rendered; the tools'
    /// statuses and the metrics recorded in `tally`.
    pub(super) fn prompt_segment(
        &mut self,
        scene: &Scene,
        seg: &'static Segment,
        vars: &RenderVars,
        tally: &mut Tally,
    ) -> SegmentOut {
        let configured = match self.family {
            Family::Chat => scene.chat_llm.prompts(seg.name),
            Family::Desk => scene.desk_llm.prompts(seg.name),
        };
        let mut pieces = Vec::new();
        for (i, prompt) in configured.iter().enumerate() {
            let text = vars
                .render_prompt_with(prompt, self.memo, self.budget)
                .unwrap_or_else(|e| {
                    let mut d = Diagnostic::new(
                        Level::Warning,
                        DiagnosticCode::PromptRenderFailed,
                        format!("{}[{i}] renders as \"\": {e}", seg.name),
                    );
                    d.segment = Some(seg.name);
                    d.prompt = Some(i);
                    self.diagnostics.push(e.locate_in(d));
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
        let contributions = tally.contributions.get(seg.name);
        for (t, prompt) in contributions.into_iter().flatten() {
            let name = &tally.tools[*t].name;
            let text = vars
                .render_prompt_with(prompt, self.memo, self.budget)
                .unwrap_or_else(|e| {
                    let code = DiagnosticCode::PromptRenderFailed;
                    let mut d = Diagnostic::new(
                        code.level(),
                        code,
                        format!(
                            "the prompt of tool {name} in {} renders as \"\": {e}",
                            seg.name
                        ),
                    );
                    d.tool = Some(name.clone());
                    d.segment = Some(seg.name);
                    self.diagnostics.push(e.locate_in(d));
                    String::new()
                });
            if text.is_empty() {
                tally.statuses[*t] = Some(Status::RenderedEmpty);
            } else {
                tally.statuses[*t] = Some(Status::Injected);
                tally.metrics.bytes += text.len();
                *tally
                    .metrics
                    .positions
                    .entry(seg.name.to_owned())
                    .or_default() += 1;
            }
            pieces.push(Piece {
                source: Source::Tool,
                tool: Some(*t),
                index: None,
                text: Arc::from(text),
                attachments: attachments(prompt),
            });
        }
        place(seg, pieces, &tally.tools)
    }
}

pub(super) fn message_segment(
    scene: &Scene,
    seg: &'static Segment,
    conversation: &[MessageOut],
) -> SegmentOut {
    let (count, bytes) = match seg.name {
        "conversation_msgs" => (
            conversation.len(),
            conversation
                .iter()
                .map(|m| content_text_len(&m.content))
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
