//! The collector (TFRobot's `_collect_dynamic_prompts`): the tools as the call passes them, and
//! each valid tool asked for its prompt, with the three short-circuits (no position, a null side,
//! nothing returned) and `format_2_prompt`'s normalisation.

use std::collections::HashSet;

use indexmap::IndexMap;

use super::memo::RenderedOver;
use super::normalize::{self, Normalized};
use super::render::PromptError;
use super::{render_template_in, side, RenderVars, Renderer, Status};
use crate::report::{Diagnostic, DiagnosticCode};
use crate::scene::{Prompt, Tool};

/// Each segment's tool prompts, in `tools` order: `(index of the tool, its prompt)`.
pub(super) type Contributions<'a> = IndexMap<&'a str, Vec<(usize, Prompt)>>;

impl Renderer<'_> {
    /// The tools as the call passes them; a name seen before is the same tool (first wins).
    pub(super) fn distinct_tools<'s>(&mut self, tools: &'s [Tool]) -> Vec<&'s Tool> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for t in tools {
            if seen.insert(t.name.as_str()) {
                out.push(t);
            } else {
                self.diag(
                    DiagnosticCode::ToolDuplicate,
                    format!("tool {:?} is listed more than once; the first entry is the tool, later ones are ignored", t.name),
                    Some(&t.name),
                    None,
                );
            }
        }
        out
    }

    /// Asks one valid tool for its contribution. `None` means "decided when its piece renders".
    pub(super) fn collect<'a>(
        &mut self,
        tool: &'a Tool,
        index: usize,
        vars: &RenderVars,
        contributions: &mut Contributions<'a>,
    ) -> Option<Status> {
        let Some(position) = &tool.prompt_position else {
            return Some(Status::Undeclared);
        };
        let Some(segment) = side(position, self.family) else {
            return Some(Status::Silent);
        };
        let memo = &mut *self.memo;
        let budget = self.budget;
        let normalized = normalize::format_2_prompt_by(tool, &vars.ctx, |source, v| {
            memo.render(
                source,
                RenderedOver::State(tool.state.clone()),
                budget,
                || render_template_in(source, v, budget),
            )
        });
        match normalized {
            Normalized::Prompt(p) => {
                contributions
                    .entry(segment.as_str())
                    .or_default()
                    .push((index, p));
                None
            }
            Normalized::Empty => Some(Status::Empty),
            Normalized::Raised(error) => {
                self.raised(tool, &error, None);
                Some(Status::Error)
            }
            Normalized::Failed(error) => {
                self.raised(tool, &error.to_string(), Some(&error));
                Some(Status::Error)
            }
            Normalized::ProtocolError(message) => {
                self.diag(
                    DiagnosticCode::ToolFormat2Prompt,
                    format!("TFProtocolError: {message}"),
                    Some(&tool.name),
                    None,
                );
                Some(Status::ProtocolError)
            }
        }
    }

    /// `_format_2_prompt` raised (or its string source failed to render: `failed`, which says
    /// where): the tool is skipped, with an ERROR log line as TFRobot writes it.
    fn raised(&mut self, tool: &Tool, error: &str, failed: Option<&PromptError>) {
        let message = format!(
            "Tool {} format_2_prompt failed, falling back to None: {error}",
            tool.name
        );
        tracing::error!(tool = %tool.name, "{message}");
        let code = DiagnosticCode::ToolRaised;
        let mut d = Diagnostic::new(code.level(), code, message);
        d.tool = Some(tool.name.clone());
        if let Some(e) = failed {
            d = e.locate_in(d);
        }
        self.diagnostics.push(d);
    }
}
