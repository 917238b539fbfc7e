//! Rendering one prompt: pick the locale's template, compile it, render it over the right
//! variables (the whole context for `normalize`, `user_input.additional_info` for
//! `additional_info`).

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::report::Diagnostic;
use crate::scene::{Prompt, TemplateSpec};
use crate::template::{Budget, Template, TemplateError, Vars};
use crate::value::Value;

use super::memo::{RenderMemo, RenderedOver};
use crate::context;

/// Why a prompt rendered as `""`.
#[derive(Clone, Debug, PartialEq)]
pub enum PromptError {
    /// Neither the active language nor `default` has a template.
    NoTemplate { active: String },
    Template {
        locale: String,
        error: TemplateError,
    },
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptError::NoTemplate { active } => write!(
                f,
                "no template for the active language {active:?} and no \"default\" to fall back to"
            ),
            PromptError::Template { locale, error } => write!(f, "[{locale}] {error}"),
        }
    }
}

impl PromptError {
    /// `d` with where in the template the error is (locale, line, column, range, suggestions),
    /// when it is a template error.
    pub fn locate_in(&self, d: Diagnostic) -> Diagnostic {
        match self {
            PromptError::Template { locale, error } => d.at_template_error(locale, error),
            PromptError::NoTemplate { .. } => d,
        }
    }
}

/// Renders a template spec over `vars`, on its own (a scene render's budget to itself).
pub fn render_template(spec: &TemplateSpec, vars: &Vars) -> Result<String, PromptError> {
    render_template_in(spec, vars, &Budget::scene())
}

/// Renders a template spec over `vars` as one of a scene render's templates, within `budget`.
pub fn render_template_in(
    spec: &TemplateSpec,
    vars: &Vars,
    budget: &Budget,
) -> Result<String, PromptError> {
    let (locale, source) = spec.select().ok_or_else(|| PromptError::NoTemplate {
        active: spec
            .active_language
            .clone()
            .unwrap_or_else(|| "default".to_owned()),
    })?;
    let wrap = |error| PromptError::Template {
        locale: locale.to_owned(),
        error,
    };
    let template = Template::compile_shared(spec.engine, source).map_err(wrap)?;
    template.render_with(vars, budget).map_err(wrap)
}

/// The variables of one render, converted once and shared by every prompt.
pub struct RenderVars {
    pub ctx: Arc<Vars>,
    additional_info: OnceLock<Vars>,
}

impl RenderVars {
    pub fn new(ctx: Value) -> RenderVars {
        RenderVars {
            ctx: Arc::new(Vars::new(ctx)),
            additional_info: OnceLock::new(),
        }
    }

    /// `context.user_input.additional_info` (what `AdditionalInfoPrompt` renders over).
    fn additional_info(&self) -> &Vars {
        self.additional_info.get_or_init(|| {
            let v = context::get(self.ctx.value(), "user_input")
                .and_then(|ui| context::get(ui, "additional_info"))
                .cloned()
                .unwrap_or(Value::None);
            Vars::new(v)
        })
    }

    pub fn render_prompt(&self, prompt: &Prompt) -> Result<String, PromptError> {
        self.render_prompt_with(prompt, &mut RenderMemo::off(), &Budget::scene())
    }

    /// [`Self::render_prompt`], through `memo` (a live document's renders between keystrokes).
    pub(crate) fn render_prompt_with(
        &self,
        prompt: &Prompt,
        memo: &mut RenderMemo,
        budget: &Budget,
    ) -> Result<String, PromptError> {
        match prompt {
            Prompt::Normalize { template, .. } => {
                memo.render(template, RenderedOver::Context, budget, || {
                    render_template_in(template, &self.ctx, budget)
                })
            }
            Prompt::AdditionalInfo { template } => {
                memo.render(template, RenderedOver::AdditionalInfo, budget, || {
                    render_template_in(template, self.additional_info(), budget)
                })
            }
        }
    }
}
