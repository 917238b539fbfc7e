//! The conversation's recorded calls put against their prediction by `verify`'s engine, so the
//! Conversation view shows the figures and causes `prompt-inspector verify` prints, not a second
//! reckoning of them.

use std::path::PathBuf;

use crate::api::verify::api_error;
use crate::api::ApiError;
use crate::verify::{self, CallResult, ConversationResult, Options, Totals};

/// What `verify` found for the scenes that record their usage.
pub struct Verified {
    conversation: Option<ConversationResult>,
    pub errors: Vec<ApiError>,
}

/// Verifies the scenes at `paths` (one conversation, in order) that record the usage their
/// provider billed; `models` price a model the table does not name.
pub fn verify(paths: &[PathBuf], models: &[String]) -> Verified {
    verify_loaded(verify::load_scenes(paths), models)
}

/// [`verify`] of scene texts, each with its label.
pub fn verify_texts(texts: &[(String, String)], models: &[String]) -> Verified {
    verify_loaded(verify::input::load_scene_texts(texts), models)
}

fn verify_loaded(loaded: verify::input::Loaded, models: &[String]) -> Verified {
    let mut errors: Vec<ApiError> = loaded.errors.iter().map(api_error).collect();
    if loaded.calls.is_empty() {
        return Verified {
            conversation: None,
            errors,
        };
    }
    let options = Options {
        fallback: models.to_vec(),
        ..Options::default()
    };
    let conversation = match verify::verify(&loaded.calls, &options) {
        // The calls are one folder's, so one conversation.
        Ok(report) => report.conversations.into_iter().next(),
        Err(e) => {
            errors.push(ApiError::invalid("models", e));
            None
        }
    };
    tracing::debug!(
        recorded = loaded.calls.len(),
        errors = errors.len(),
        "verified the conversation's recorded calls"
    );
    Verified {
        conversation,
        errors,
    }
}

impl Verified {
    /// The result for the scene labelled `label` (its path, or its place), when it records its
    /// usage.
    pub fn call(&self, label: &str) -> Option<CallResult> {
        self.conversation
            .as_ref()?
            .calls
            .iter()
            .find(|c| c.label == label)
            .cloned()
    }

    pub fn totals(&self) -> Option<Totals> {
        self.conversation.as_ref().map(|c| c.totals.clone())
    }
}
