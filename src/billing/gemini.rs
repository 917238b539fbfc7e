//! Gemini's `generateContent` requests as billed.

use serde_json::Value as Json;

use super::{array_parts, json_part, BilledPart, BillingError, PartKind};
use crate::usage::Provenance;

pub(super) fn generate_content(
    _model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let mut parts = array_parts(body, "tools", PartKind::Tool);
    if let Some(system) = body
        .get("systemInstruction")
        .or_else(|| body.get("system_instruction"))
    {
        parts.push(json_part(
            PartKind::System,
            "/systemInstruction".to_owned(),
            system,
        ));
    }
    parts.extend(array_parts(body, "contents", PartKind::Message));
    Ok((
        parts,
        Provenance::Estimate {
            bound_percent: 100.0,
        },
    ))
}
