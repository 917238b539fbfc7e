//! The app API (docs/api.md): thin operations over the core for the desktop shell and
//! `prompt-inspector serve`, in the manner of GitButler's: one request struct in, one response
//! struct or an [`ApiError`] out, all plain JSON.
//!
//! Transport types are separate from the domain types: reports travel as the JSON text the core
//! wrote (contract §4/§5), so the app sees exactly what `render --format json` prints. With the
//! `specta` feature every transport type derives `specta::Type` for TypeScript bindings.

mod error;
mod files;
mod live;
mod playground;
mod render;
mod replay;
mod rules;
mod validate;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use error::{ApiError, ErrorCode};
pub use files::{default_scene, open, save, stat, FileStat, PathRequest, SaveRequest, SceneText};
pub use live::{
    apply as apply_patch, diff as diff_trees, Live, LiveCloseRequest, LiveEditRequest,
    LiveOpenRequest, LiveOptions, LiveUpdate, PatchOp, PathStep, TextEdit, REPORT_FIELDS,
};
pub use playground::{template, EngineName, TemplateRequest, TemplateResponse};
pub use render::{
    render, run, Llm, Provider, RenderRequest, RenderResponse, RunRequest, RunResponse, Tokenizer,
};
pub use replay::{
    approve, check, ApproveRequest, ApproveResponse, CheckRequest, CheckResponse, CheckStatus,
    CheckedScene,
};
pub use rules::{rules, RuleInfo, RulesResponse, SegmentInfo};
pub use validate::{
    validate, Owner, TemplateCheck, TemplateProblem, ToolCheck, ValidateRequest, ValidateResponse,
};

// `OPERATIONS`: the operations by name. Its own file, so that the app's build script, which
// cannot depend on the core, lists the same names (src-tauri/src/command_names.rs).
include!("operations.rs");

/// Calls an operation by name with its request as JSON text, returning the response as JSON
/// text. Used by `prompt-inspector serve`; a bad body is `bad_request`, an unknown name
/// `unknown_operation`. Operations without a request ignore the body. The `live_*` operations
/// work on the documents of `live`.
pub fn dispatch(live: &Live, operation: &str, body: &str) -> Result<String, ApiError> {
    match operation {
        "live_open" => to_json(&live.open(parse(body)?)?),
        "live_edit" => to_json(&live.edit(parse(body)?)?),
        "live_close" => {
            live.close(&parse(body)?);
            to_json(&())
        }
        "default_scene" => to_json(&default_scene()),
        "open" => to_json(&open(&parse(body)?)?),
        "save" => to_json(&save(&parse(body)?)?),
        "stat" => to_json(&stat(&parse(body)?)?),
        "render" => to_json(&render(&parse(body)?)?),
        "validate" => to_json(&validate(&parse(body)?)),
        "rules" => to_json(&rules()),
        "run" => to_json(&run(&parse(body)?)?),
        "check" => to_json(&check(&parse(body)?)?),
        "approve" => to_json(&approve(&parse(body)?)?),
        "template" => to_json(&template(&parse(body)?)?),
        other => Err(ApiError::new(
            ErrorCode::UnknownOperation,
            format!(
                "no operation {other:?}; the operations are {}",
                OPERATIONS.join(", ")
            ),
        )),
    }
}

fn parse<T: DeserializeOwned>(body: &str) -> Result<T, ApiError> {
    serde_json::from_str(body).map_err(|e| {
        let mut err = ApiError::new(ErrorCode::BadRequest, format!("request body: {e}"));
        if e.line() > 0 {
            err.line = Some(error::u32_of(e.line()));
            err.column = Some(error::u32_of(e.column()));
        }
        err
    })
}

fn to_json<T: Serialize>(value: &T) -> Result<String, ApiError> {
    serde_json::to_string(value).map_err(|e| {
        ApiError::new(
            ErrorCode::Internal,
            format!("serialising the response: {e}"),
        )
    })
}

/// The transport types export to TypeScript (the Tauri shell's bindings): no `serde_json::Value`
/// or 64-bit integer slips through unannotated, which would panic the export.
#[cfg(all(test, feature = "specta"))]
mod specta_export {
    use std::borrow::Cow;

    use specta::datatype::DataType;
    use specta::{FormatError, Types};

    /// Exports the types as declared (the shell applies specta-serde's renames on top).
    struct AsDeclared;

    impl specta::Format for AsDeclared {
        fn map_types(&'_ self, types: &Types) -> Result<Cow<'_, Types>, FormatError> {
            Ok(Cow::Owned(types.clone()))
        }
        fn map_type(&'_ self, _: &Types, dt: &DataType) -> Result<Cow<'_, DataType>, FormatError> {
            Ok(Cow::Owned(dt.clone()))
        }
    }

    #[test]
    fn every_transport_type_exports() {
        use super::*;
        let types = Types::default()
            .register::<ApiError>()
            .register::<SceneText>()
            .register::<PathRequest>()
            .register::<SaveRequest>()
            .register::<FileStat>()
            .register::<RenderRequest>()
            .register::<RenderResponse>()
            .register::<RunRequest>()
            .register::<RunResponse>()
            .register::<ValidateRequest>()
            .register::<ValidateResponse>()
            .register::<RulesResponse>()
            .register::<CheckRequest>()
            .register::<CheckResponse>()
            .register::<ApproveRequest>()
            .register::<ApproveResponse>()
            .register::<TemplateRequest>()
            .register::<TemplateResponse>()
            .register::<LiveOpenRequest>()
            .register::<LiveEditRequest>()
            .register::<LiveCloseRequest>()
            .register::<LiveUpdate>();
        let ts = specta_typescript::Typescript::default()
            .export(&types, AsDeclared)
            .unwrap_or_else(|e| panic!("export failed: {e}"));
        assert!(ts.contains("export type RenderResponse"), "{ts}");
        // The reports cross as the core's JSON text but are typed as the core's own types.
        assert!(ts.contains("report: Report"), "{ts}");
        assert!(ts.contains("report: RunReport"), "{ts}");
        assert!(ts.contains("export type SegmentOut"), "{ts}");
        assert!(ts.contains("export type IterationOut"), "{ts}");
    }
}
