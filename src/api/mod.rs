//! The app API (docs/api.md): thin operations over the core for the desktop shell and
//! `prompt-inspector serve`, in the manner of GitButler's: one request struct in, one response
//! struct or an [`ApiError`] out, all plain JSON.
//!
//! Transport types are separate from the domain types: reports travel as the JSON text the core
//! wrote (docs/cli.md, docs/run-loop.md), so the app sees exactly what `render --format json` prints. With the
//! `specta` feature every transport type derives `specta::Type` for TypeScript bindings.

mod about;
mod conversation;
mod error;
mod explain;
mod files;
mod guard;
mod live;
mod models;
mod playground;
mod received;
mod render;
mod replay;
mod rules;
mod validate;
mod verify;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use about::{about, AboutResponse};
pub use conversation::{
    conversation, Basis, CallDiagnostic, CallFigures, CallOut, ConversationRequest,
    ConversationResponse, ModelFigures,
};
pub use error::{ApiError, ErrorCode};
pub use explain::{Change, ChangedPart, WhatIfPrice, ZeroRead};
pub use files::{default_scene, open, save, stat, FileStat, PathRequest, SaveRequest, SceneText};
pub use guard::{guarded, panic_message};
pub use live::{
    apply as apply_patch, diff as diff_trees, Live, LiveCloseRequest, LiveEditRequest,
    LiveOpenRequest, LiveOptions, LiveUpdate, PatchOp, PathStep, TextEdit, REPORT_FIELDS,
};
pub use models::{
    models, CacheGrowth, CacheSummary, ModelInfo, ModelPrices, ModelSource, ModelsResponse,
    TtlPrice,
};
pub use playground::{template, EngineName, TemplateRequest, TemplateResponse};
pub use received::{live_calls, LiveCallsRequest, LiveCallsResponse};
pub use render::{render, run, RenderRequest, RenderResponse, RunRequest, RunResponse};
pub use replay::{
    approve, check, golden, ApproveRequest, ApproveResponse, CheckRequest, CheckResponse,
    CheckStatus, CheckedScene, GoldenRequest, GoldenResponse,
};
pub use rules::{rules, RuleInfo, RulesResponse, SegmentInfo};
pub use validate::{
    validate, Owner, TemplateCheck, TemplateProblem, ToolCheck, ValidateRequest, ValidateResponse,
};
pub use verify::{verify, VerifyRequest, VerifyResponse};

#[macro_use]
mod operations;

// The core's expansion of the operations table (operations.rs): `op`, `OPERATIONS`, `dispatch`.
macro_rules! core_operations {
    ([] $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
        /// Every operation with the one signature the front ends call: the shared state (the live
        /// documents), the request if it has one, and the response or an [`ApiError`]. Generated
        /// from the table in `src/api/operations.rs` (`for_each_operation!`).
        pub mod op {
            use super::*;
            $( core_operations!(@op $(#[$doc])* $name ($($req)?) -> $resp = $handler); )*
        }

        /// The operations, by the names `POST /api/<operation>` and the Tauri commands use.
        pub const OPERATIONS: [&str; [$(stringify!($name)),*].len()] = [$(stringify!($name)),*];

        /// Calls an operation by name with its request as JSON text, returning the response as
        /// JSON text. Used by `prompt-inspector serve`; a bad body is `bad_request`, an unknown
        /// name `unknown_operation`. Operations without a request ignore the body.
        pub fn dispatch(live: &Live, operation: &str, body: &str) -> Result<String, ApiError> {
            match operation {
                $( stringify!($name) => to_json(&core_operations!(@call live body $name ($($req)?))?), )*
                other => Err(ApiError::new(
                    ErrorCode::UnknownOperation,
                    format!(
                        "no operation {other:?}; the operations are {}",
                        OPERATIONS.join(", ")
                    ),
                )),
            }
        }
    };
    (@op $(#[$doc:meta])* $name:ident () -> $resp:ty = $handler:expr) => {
        $(#[$doc])*
        pub fn $name(live: &Live) -> Result<$resp, ApiError> {
            let handler: fn(&Live) -> Result<$resp, ApiError> = $handler;
            handler(live)
        }
    };
    (@op $(#[$doc:meta])* $name:ident ($req:ty) -> $resp:ty = $handler:expr) => {
        $(#[$doc])*
        pub fn $name(live: &Live, req: $req) -> Result<$resp, ApiError> {
            let handler: fn(&Live, $req) -> Result<$resp, ApiError> = $handler;
            handler(live, req)
        }
    };
    (@call $live:ident $body:ident $name:ident ()) => { op::$name($live) };
    (@call $live:ident $body:ident $name:ident ($req:ty)) => { op::$name($live, parse($body)?) };
}

for_each_operation!([core_operations]);

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

    // Registers every request and response type of the operations table.
    macro_rules! register_operation_types {
        ([$types:expr] $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
            $types $( $( .register::<$req>() )? .register::<$resp>() )*
        };
    }

    #[test]
    fn every_transport_type_exports() {
        use super::*;
        let types =
            for_each_operation!([register_operation_types] Types::default().register::<ApiError>());
        let ts = specta_typescript::Typescript::default()
            .export(&types, AsDeclared)
            .unwrap_or_else(|e| panic!("export failed: {e}"));
        assert!(ts.contains("export type RenderResponse"), "{ts}");
        // The reports cross as the core's JSON text but are typed as the core's own types.
        assert!(ts.contains("report: Report"), "{ts}");
        assert!(ts.contains("report: RunReport"), "{ts}");
        assert!(ts.contains("export type SegmentOut"), "{ts}");
        assert!(ts.contains("export type IterationOut"), "{ts}");
        for t in [
            "SceneText",
            "FileStat",
            "LiveCloseRequest",
            "TemplateResponse",
        ] {
            assert!(ts.contains(&format!("export type {t} ")), "{t}: {ts}");
        }
    }
}

/// The table drives the core's lists: `OPERATIONS` and `op` have its names, in its order, and
/// `dispatch` routes each of them and nothing else.
#[cfg(test)]
mod table {
    macro_rules! names {
        ([] $( $(#[$doc:meta])* $name:ident ( $($req:ty)? ) -> $resp:ty = $handler:expr ; )*) => {
            [$(stringify!($name)),*]
        };
    }

    #[test]
    fn operations_dispatch_and_op_follow_the_table() {
        let declared = for_each_operation!([names]);
        assert_eq!(super::OPERATIONS, declared);
        assert_eq!(declared.len(), 20);
        let live = super::Live::new();
        for op in declared {
            let e = super::dispatch(&live, op, "[]").err();
            assert_ne!(
                e.map(|e| e.code),
                Some(super::ErrorCode::UnknownOperation),
                "{op}"
            );
        }
        for name in ["nope", "op", "dispatch", "Open", "live"] {
            let e = super::dispatch(&live, name, "{}").expect_err(name);
            assert_eq!(e.code, super::ErrorCode::UnknownOperation, "{name}");
        }
    }
}
