//! `validate`: what an editor underlines. Every template text in the scene with its JSON path and
//! its compile or syntax error (found without rendering), and each tool's class-definition
//! verdict (`inject::validate`).

use serde::{Deserialize, Serialize};

use super::error::u32_of;
use super::ApiError;
use crate::inject::validate::{self, Reason};
use crate::scene::{self, Prompt, Returns, Scene, TemplateSpec, Tool};
use crate::template::Template;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ValidateRequest {
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ValidateResponse {
    /// Set when the text does not load; the lists are then empty.
    pub load_error: Option<ApiError>,
    pub templates: Vec<TemplateCheck>,
    pub tools: Vec<ToolCheck>,
}

/// Whether a template belongs to the LLM's configuration or to a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Owner {
    Config,
    Tool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TemplateCheck {
    /// JSON path of the template text (`tools[0].format_2_prompt.source.templates.default`).
    pub path: String,
    pub owner: Owner,
    /// For tool templates: the tool's name.
    pub tool: Option<String>,
    /// For configured prompts: the segment list it sits in.
    pub segment: Option<String>,
    /// `fstring` or `jinja2`.
    pub engine: String,
    pub locale: String,
    /// Byte range of the template's JSON string literal (quotes included) in the scene text.
    pub span: [u32; 2],
    pub error: Option<TemplateProblem>,
}

/// A template's compile or syntax error; positions are in the template text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TemplateProblem {
    /// The Python exception name (`TemplateSyntaxError`, `ValueError`).
    pub kind: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[u32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// One entry of the scene's `tools` array and the error TFRobot raises at class definition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolCheck {
    /// Position in the scene's `tools` array.
    pub index: u32,
    pub name: String,
    pub valid: bool,
    /// `TypeError` or `ValueError`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// `position_without_override`, `override_without_position`, `both_sides_null`, `unknown`,
    /// or the rule id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_reason: Option<String>,
    /// `chat` or `desk`, for an error about one side of the position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

pub fn validate(req: &ValidateRequest) -> ValidateResponse {
    let scene = match scene::load_str(&req.text) {
        Ok(s) => s,
        Err(e) => {
            return ValidateResponse {
                load_error: Some(e.into()),
                templates: Vec::new(),
                tools: Vec::new(),
            }
        }
    };
    validate_scene(&scene)
}

/// `validate` for a scene that loaded.
pub(crate) fn validate_scene(scene: &Scene) -> ValidateResponse {
    ValidateResponse {
        load_error: None,
        templates: templates(scene),
        tools: scene.tools.iter().enumerate().map(tool_check).collect(),
    }
}

/// Every template of the scene, in file order of its parts.
fn templates(scene: &Scene) -> Vec<TemplateCheck> {
    let mut out = Vec::new();
    for field in scene::ChatConfig::FIELDS {
        let base = format!("chat_llm.{field}");
        prompts(&mut out, &base, scene.chat_llm.prompts(field), Some(field));
    }
    for field in scene::DeskConfig::FIELDS {
        let base = format!("desk_llm.{field}");
        prompts(&mut out, &base, scene.desk_llm.prompts(field), Some(field));
    }
    for (i, tool) in scene.tools.iter().enumerate() {
        let base = format!("tools[{i}].format_2_prompt");
        let owner = Some(tool.name.as_str());
        match &tool.format_2_prompt {
            Some(Returns::Str { source }) => spec(
                &mut out,
                &format!("{base}.source"),
                source,
                Owner::Tool,
                owner,
            ),
            Some(Returns::Prompt(p)) => spec(
                &mut out,
                &format!("{base}.prompt.template"),
                p.template(),
                Owner::Tool,
                owner,
            ),
            _ => {}
        }
    }
    out
}

fn prompts(out: &mut Vec<TemplateCheck>, base: &str, list: &[Prompt], segment: Option<&str>) {
    for (i, p) in list.iter().enumerate() {
        let path = format!("{base}[{i}].template");
        spec(out, &path, p.template(), Owner::Config, segment);
    }
}

/// One entry per locale of a template. `name` is the tool (tool templates) or the segment.
fn spec(
    out: &mut Vec<TemplateCheck>,
    base: &str,
    t: &TemplateSpec,
    owner: Owner,
    name: Option<&str>,
) {
    for (locale, source) in &t.templates {
        let span = t
            .spans
            .get(locale)
            .map_or([0, 0], |r| [u32_of(r.start), u32_of(r.end)]);
        let error = match Template::compile_shared(t.engine, source) {
            Ok(compiled) => compiled.syntax_error(),
            Err(e) => Some(e),
        };
        out.push(TemplateCheck {
            path: format!("{base}.templates.{locale}"),
            owner,
            tool: name.filter(|_| owner == Owner::Tool).map(str::to_owned),
            segment: name.filter(|_| owner == Owner::Config).map(str::to_owned),
            engine: t.engine.as_str().to_owned(),
            locale: locale.clone(),
            span,
            error: error.map(|e| TemplateProblem {
                kind: e.kind().python_name().to_owned(),
                message: e.message().to_owned(),
                range: e.range().map(|r| [u32_of(r.start), u32_of(r.end)]),
                line: e.line().map(u32_of),
                column: e.column().map(u32_of),
            }),
        });
    }
}

fn tool_check((index, tool): (usize, &Tool)) -> ToolCheck {
    let mut check = ToolCheck {
        index: u32_of(index),
        name: tool.name.clone(),
        valid: true,
        exception: None,
        reason: None,
        rule: None,
        rule_reason: None,
        family: None,
        message: None,
    };
    if let Err(invalid) = validate::validate(tool) {
        check.valid = false;
        check.exception = Some(invalid.exception.to_owned());
        check.reason = Some(invalid.reason.code().to_owned());
        check.rule = invalid.reason.rule().map(|r| r.id().to_owned());
        check.rule_reason = invalid.reason.rule().map(|r| r.reason().to_owned());
        check.family = match invalid.reason {
            Reason::Forbidden(f, _) | Reason::Unknown(f) => Some(f.as_str().to_owned()),
            _ => None,
        };
        check.message = Some(invalid.message);
    }
    check
}
