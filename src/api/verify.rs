//! `verify`: recorded calls (files of one call each, or folders of them) predicted against
//! billed, as `prompt-inspector verify --format json` prints them (docs/cli.md).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::error::u32_of;
use super::{ApiError, ErrorCode};
use crate::verify::{self, InputError, Options, VerifyReport};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct VerifyRequest {
    /// Files holding one recorded call each, or folders searched recursively for them.
    pub paths: Vec<String>,
    /// Rows (`provider/family` or a model name) that price a model the table does not name, the
    /// first of the call's provider; empty: the provider's default row.
    #[serde(default)]
    pub models: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct VerifyResponse {
    pub report: VerifyReport,
    /// The files that could not be read, each with its position; the rest were verified.
    pub errors: Vec<ApiError>,
}

/// Verifies the calls under `paths` with the built-in models table.
pub fn verify(req: &VerifyRequest) -> Result<VerifyResponse, ApiError> {
    if req.paths.is_empty() {
        return Err(ApiError::invalid(
            "paths",
            "no paths: name files or folders of recorded calls",
        ));
    }
    let options = Options {
        fallback: req.models.clone(),
        ..Options::default()
    };
    let paths: Vec<PathBuf> = req.paths.iter().map(PathBuf::from).collect();
    tracing::info!(paths = paths.len(), "verifying recorded calls");
    let loaded = verify::load_paths(&paths);
    let report =
        verify::verify(&loaded.calls, &options).map_err(|e| ApiError::invalid("models", e))?;
    Ok(VerifyResponse {
        report,
        errors: loaded.errors.iter().map(api_error).collect(),
    })
}

pub(crate) fn api_error(e: &InputError) -> ApiError {
    let code = if e.line > 0 {
        ErrorCode::LoadError
    } else {
        ErrorCode::IoError
    };
    let mut out = ApiError::new(code, e.message.clone());
    out.file = Some(e.file.as_str().into());
    if e.line > 0 {
        out.line = Some(u32_of(e.line));
        out.column = Some(u32_of(e.column));
    }
    if !e.pointer.is_empty() {
        out.field = Some(e.pointer.as_str().into());
    }
    out
}
