//! The injection engine (TFRobot's design, docs/rules.md): validate tools, ask each for its prompt
//! (`format_2_prompt`), collect contributions per segment in `tools` order, render every segment
//! and assemble the messages, reporting where every byte came from. One file per step of
//! docs/architecture.md: `validate`, `collect`, `segment` (render), `assemble`; this file runs them
//! in order and fills the report.

mod assemble;
mod collect;
pub mod lint;
mod memo;
mod normalize;
mod render;
mod segment;
mod tokens;
pub mod validate;

pub use crate::report::{
    DefinitionOut, Diagnostic, DiagnosticCode, Level, MessageOut, Metrics, PieceOut, Report,
    SegmentOut, Source, Status, ToolOut,
};
pub use memo::RenderMemo;
pub use normalize::{format_2_prompt, wrap_str, Normalized};
pub use render::{render_template, render_template_in, PromptError, RenderVars};

pub use assemble::content_value;

use crate::scene::{Scene, Tool};
use crate::segments::{Family, SegmentKind};
use crate::template::Budget;
use segment::Tally;

/// How to render, beyond the scene itself. Each field's default is what `render` uses.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The folder of the scene file: relative image paths are resolved against it.
    pub base_dir: Option<std::path::PathBuf>,
    /// For chat: also build this provider's request body (`Report::request`). A scene with
    /// `recorded` gets its recorded API's body without one (and with one of the same API).
    pub chat_provider: Option<crate::provider::ChatProvider>,
    /// The tokenizer for the report's `tokens` fields (default `o200k_base`).
    pub encoding: crate::tokens::Encoding,
    /// Leave the `tokens` fields out (`--no-tokens`).
    pub skip_tokens: bool,
    /// Leave out the cache-safety lint's findings (`lint::scene_findings`).
    pub skip_lint: bool,
}

/// Renders a scene for one LLM family with default options (see [`render_with`]).
pub fn render(scene: &Scene, family: Family) -> Report {
    render_with(scene, family, &Options::default())
}

/// Renders a scene for one LLM family. Never fails: problems become diagnostics, as TFRobot keeps
/// the LLM call going when a tool or a prompt misbehaves. The scene is not changed.
///
/// All the templates of the render share one budget of fuel and output ([`Budget::scene`],
/// docs/templates.md): past it, the templates still to render fail with `LimitExceeded`, which
/// the report shows as their diagnostics.
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
    render_in(scene, family, options, memo, &Budget::scene())
}

/// [`render_with_memo`] within `budget`, which the render's templates take what they use from.
pub fn render_in(
    scene: &Scene,
    family: Family,
    options: &Options,
    memo: &mut RenderMemo,
    budget: &Budget,
) -> Report {
    let span = tracing::info_span!(
        "render",
        llm = family.as_str(),
        tools_total = tracing::field::Empty,
        tools_rendered = tracing::field::Empty,
        bytes = tracing::field::Empty,
        fuel = tracing::field::Empty,
    );
    let _entered = span.enter();
    let mut r = Renderer {
        family,
        diagnostics: Vec::new(),
        memo,
        budget,
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
    let ctx = r.memo.effective(&scene.context, &valid);
    r.memo.context(&ctx);
    let vars = RenderVars::new(ctx);

    // The collector (`_collect_dynamic_prompts`): its three short-circuits, then normalisation.
    let mut tally = Tally::new(tools);
    for (i, verdict) in verdicts.iter().enumerate() {
        let tool = tally.tools[i];
        let status = match verdict {
            Err(invalid) => {
                r.diag(
                    DiagnosticCode::ToolInvalid,
                    invalid.to_string(),
                    Some(&tool.name),
                    None,
                );
                Some(Status::Invalid)
            }
            Ok(()) => r.collect(tool, i, &vars, &mut tally.contributions),
        };
        tally.statuses.push(status);
    }

    let conversation = match family {
        Family::Chat => r.conversation(&vars),
        Family::Desk => Vec::new(),
    };
    let mut segments = Vec::new();
    for seg in family.segments() {
        let out = match seg.kind {
            SegmentKind::Prompts | SegmentKind::UserInput => {
                r.prompt_segment(scene, seg, &vars, &mut tally)
            }
            SegmentKind::Messages => segment::message_segment(scene, seg, &conversation),
        };
        segments.push(out);
    }

    let Tally {
        tools,
        statuses,
        mut metrics,
        ..
    } = tally;
    metrics.tools_total = valid.iter().filter(|t| t.prompt_position.is_some()).count();
    metrics.tools_rendered = statuses
        .iter()
        .filter(|s| **s == Some(Status::Injected))
        .count();
    span.record("tools_total", metrics.tools_total);
    span.record("tools_rendered", metrics.tools_rendered);
    span.record("bytes", metrics.bytes);
    span.record("fuel", budget.fuel_spent());

    let tool_defs = crate::provider::ToolDef::of(&valid);
    let mut tools_out: Vec<ToolOut> = tools
        .iter()
        .zip(statuses)
        .map(|(t, s)| ToolOut {
            name: t.name.clone(),
            status: s.unwrap_or(Status::RenderedEmpty),
            position: t
                .prompt_position
                .as_ref()
                .and_then(|p| side(p, family).clone()),
            definition: tool_defs
                .iter()
                .find(|d| d.name == t.name)
                .map(|d| DefinitionOut {
                    bytes: d.text().len(),
                    tokens: None,
                }),
        })
        .collect();
    let mut messages = match family {
        Family::Chat => Some(assemble::chat_messages(
            scene,
            &segments,
            conversation,
            &vars,
        )),
        Family::Desk => None,
    };
    let tokenizer = (!options.skip_tokens).then(|| {
        let kept = r.memo.kept_counts();
        tokens::annotate(
            &mut segments,
            messages.as_deref_mut(),
            options.encoding,
            kept,
        );
        tokens::annotate_definitions(&mut tools_out, &tool_defs, options.encoding);
        options.encoding
    });
    // Request bodies are built last: their diagnostics follow the rendering ones.
    let base_dir = options.base_dir.as_deref();
    let request = match (family, &messages, options.chat_provider) {
        (Family::Desk, _, _) => Some(crate::provider::desk_request(
            &scene.desk_llm,
            &segments,
            &tool_defs,
            base_dir,
            &mut r.diagnostics,
        )),
        // A recorded call is rebuilt in its own API's shape, with what was recorded, unless
        // another provider's body is asked for.
        (Family::Chat, Some(messages), provider)
            if scene.recorded.as_ref().is_some_and(|rec| {
                provider.is_none_or(|p| crate::provider::chat_api(p) == rec.api)
            }) =>
        {
            scene.recorded.as_ref().map(|rec| {
                crate::provider::build_recorded(
                    scene,
                    rec,
                    messages,
                    &segments,
                    &tools_out,
                    base_dir,
                    &mut r.diagnostics,
                )
            })
        }
        (Family::Chat, Some(messages), Some(provider)) => Some(crate::provider::chat_request(
            provider,
            messages,
            &segments,
            &tool_defs,
            base_dir,
            &mut r.diagnostics,
        )),
        (Family::Chat, _, _) => None,
    };
    let mut report = Report {
        llm: family.as_str(),
        tokenizer,
        messages,
        request,
        segments,
        tools: tools_out,
        diagnostics: r.diagnostics,
        metrics,
        // Prices need the models table, which the caller picks (`pricing::cost::input_costs`).
        costs: Vec::new(),
    };
    if !options.skip_lint {
        let findings = lint::scene_findings(scene, family, &report);
        report.diagnostics.extend(findings);
    }
    report
}

fn side(p: &crate::scene::Position, family: Family) -> &Option<String> {
    match family {
        Family::Chat => &p.chat,
        Family::Desk => &p.desk,
    }
}

/// What one render carries from step to step: the family, the diagnostics so far (in the order
/// the steps raise them) and the template renders kept between renders.
struct Renderer<'m> {
    family: Family,
    diagnostics: Vec<Diagnostic>,
    memo: &'m mut RenderMemo,
    /// The one budget of fuel and output all the render's templates share.
    budget: &'m Budget,
}

impl Renderer<'_> {
    fn diag(
        &mut self,
        code: DiagnosticCode,
        message: String,
        tool: Option<&str>,
        segment: Option<&'static str>,
    ) {
        self.diagnostics.push(Diagnostic {
            tool: tool.map(str::to_owned),
            segment,
            ..Diagnostic::new(code.level(), code, message)
        });
    }
}
