//! `live_calls`: the LLM calls the OTLP receiver has taken in (src/otlp/), after a sequence
//! number, for the app's Live view to poll.

use serde::{Deserialize, Serialize};

use super::{ApiError, Live};
use crate::otlp::CallsPage;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LiveCallsRequest {
    /// The last sequence number seen (`next` of the previous answer); 0 for every call kept.
    #[serde(default)]
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub after: u64,
    /// Forget every call kept before answering (the Live view's "clear").
    #[serde(default)]
    pub clear: bool,
}

/// The calls after `after` (at most 200, and 8 MiB of them as JSON but always one; ask again
/// from `next`), how many were dropped to stay within the store's bounds, and whether the
/// receiver is listening.
pub type LiveCallsResponse = CallsPage;

pub fn live_calls(live: &Live, req: &LiveCallsRequest) -> Result<LiveCallsResponse, ApiError> {
    if req.clear {
        live.received().clear();
    }
    Ok(live.received().after(req.after))
}
