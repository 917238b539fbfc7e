//! `template`: one template over JSON variables, the playground of the template editor.

use serde::{Deserialize, Serialize};

use super::ApiError;
use crate::template::{Engine, Template, Vars};
use crate::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum EngineName {
    Fstring,
    Jinja2,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TemplateRequest {
    pub engine: EngineName,
    pub template: String,
    /// A JSON object; numbers keep their exact text (`1.0` stays a float).
    #[cfg_attr(feature = "specta", specta(type = specta_typescript::Unknown))]
    pub vars: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TemplateResponse {
    pub text: String,
}

pub fn template(req: &TemplateRequest) -> Result<TemplateResponse, ApiError> {
    if !req.vars.is_object() {
        return Err(ApiError::invalid(
            "vars",
            "the variables must be a JSON object",
        ));
    }
    let engine = match req.engine {
        EngineName::Fstring => Engine::Fstring,
        EngineName::Jinja2 => Engine::Jinja2,
    };
    let vars = Vars::new(Value::from_json(&req.vars));
    let text = Template::compile(engine, &req.template)?.render(&vars)?;
    Ok(TemplateResponse { text })
}
