//! OpenAI's chat completions and Responses requests as billed.

use serde_json::Value as Json;

use super::{array_parts, json_part, BilledPart, BillingError, PartKind};
use crate::usage::Provenance;

pub(super) fn chat(
    _model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let mut parts = array_parts(body, "tools", PartKind::Tool);
    parts.extend(array_parts(body, "messages", PartKind::Message));
    Ok((
        parts,
        Provenance::Estimate {
            bound_percent: 100.0,
        },
    ))
}

pub(super) fn responses(
    _model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let mut parts = array_parts(body, "tools", PartKind::Tool);
    if let Some(instructions) = body.get("instructions") {
        parts.push(json_part(
            PartKind::System,
            "/instructions".to_owned(),
            instructions,
        ));
    }
    parts.extend(array_parts(body, "input", PartKind::Message));
    Ok((
        parts,
        Provenance::Estimate {
            bound_percent: 100.0,
        },
    ))
}
