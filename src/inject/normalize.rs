//! `BaseTool.format_2_prompt`: the framework method that runs the tool's `_format_2_prompt` and
//! normalises what it returns (docs/injection.md), in its six states.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::scene::{Prompt, Returns, TemplateSpec, Tool};
use crate::template::{escape_fstring, Engine, Vars};

use super::render::{render_template, PromptError};

/// What `format_2_prompt` gives the collector.
#[derive(Clone, Debug, PartialEq)]
pub enum Normalized {
    /// A prompt to merge into the segment: the tool's own, or its string wrapped.
    Prompt(Prompt),
    /// `""` or `None`: nothing this time.
    Empty,
    /// The tool raised: skipped, logged at ERROR.
    Raised(String),
    /// Its string source failed to render: as [`Normalized::Raised`], with where the error is.
    Failed(PromptError),
    /// The tool returned something that is neither `str`, a prompt nor `None`.
    ProtocolError(String),
}

/// Wraps a tool's literal string as TFRobot's `_wrap_str_as_normalize_prompt` does: the one
/// place braces are escaped, so the text renders back to exactly itself.
pub fn wrap_str(text: &str) -> Prompt {
    let mut templates = IndexMap::new();
    templates.insert("default".to_owned(), escape_fstring(text));
    Prompt::Normalize {
        template: TemplateSpec {
            engine: Engine::Fstring,
            templates,
            active_language: Some("default".to_owned()),
            spans: IndexMap::new(),
        },
        attachments: Vec::new(),
    }
}

/// Runs the tool's `_format_2_prompt` over `ctx` and normalises the result. A tool without an
/// override returns `Empty` (the base method returns `None`).
pub fn format_2_prompt(tool: &Tool, ctx: &Arc<Vars>) -> Normalized {
    format_2_prompt_by(tool, ctx, render_template)
}

/// [`format_2_prompt`], with the string source rendered by `render` (the collector passes one
/// that keeps renders between keystrokes: [`super::memo`]).
pub(crate) fn format_2_prompt_by(
    tool: &Tool,
    ctx: &Arc<Vars>,
    render: impl FnOnce(&TemplateSpec, &Vars) -> Result<String, PromptError>,
) -> Normalized {
    let Some(returns) = &tool.format_2_prompt else {
        return Normalized::Empty;
    };
    match returns {
        Returns::None => Normalized::Empty,
        Returns::Prompt(p) => Normalized::Prompt(p.clone()),
        Returns::Raise { error } => Normalized::Raised(error.clone()),
        Returns::Invalid { value } => Normalized::ProtocolError(format!(
            "Tool {}._format_2_prompt() must return str | BasePrompt | None, got {}",
            tool.name,
            value.type_name()
        )),
        Returns::Str { source } => {
            let vars = Vars::compose(vec![
                (Arc::from("state"), Arc::new(Vars::new(tool.state.clone()))),
                (Arc::from("ctx"), ctx.clone()),
            ]);
            match render(source, &vars) {
                Ok(text) if text.is_empty() => Normalized::Empty,
                Ok(text) => Normalized::Prompt(wrap_str(&text)),
                Err(e) => Normalized::Failed(e),
            }
        }
    }
}
