//! Anthropic's Messages requests as billed.

use serde_json::Value as Json;

use super::{array_parts, json_part, BilledPart, BillingError, PartKind};
use crate::usage::Provenance;

pub(super) fn messages(
    _model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    let mut parts = array_parts(body, "tools", PartKind::Tool);
    if let Some(system) = body.get("system") {
        parts.push(json_part(PartKind::System, "/system".to_owned(), system));
    }
    parts.extend(array_parts(body, "messages", PartKind::Message));
    Ok((
        parts,
        Provenance::Estimate {
            bound_percent: 100.0,
        },
    ))
}
