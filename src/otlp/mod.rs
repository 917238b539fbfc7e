//! OpenTelemetry traces received live (OTLP/HTTP, `POST /v1/traces`): each span that records a
//! GenAI request becomes a received call, its scene made by `import` (the same reading as
//! `prompt-inspector import` of an OTLP/JSON export), kept in a bounded [`CallStore`] for the app
//! and `serve`, or written to disk by `collect` (docs/cli.md).
//!
//! The store and the call type are plain Rust; decoding a body (protobuf through the
//! `opentelemetry-proto` messages, proto3 JSON, gzip) and the HTTP listener need the `otlp`
//! feature. Every limit is a constant here or in [`receiver`], listed in docs/security.md.

pub mod calls;
#[cfg(feature = "otlp")]
mod census;
#[cfg(feature = "otlp")]
pub mod decode;
#[cfg(feature = "otlp")]
mod proto_json;
#[cfg(feature = "otlp")]
pub mod receiver;
pub mod store;

use serde::Serialize;

pub use calls::{received_calls, Received, SpanIn};
pub use store::{CallStore, CallsPage, ReceiverStatus};

/// A request body (as sent, compressed or not) larger than this is refused with 413.
pub const MAX_BODY_BYTES: u64 = 20 * 1024 * 1024;

/// A gzip body may expand to this much at most; more is refused with 413 (a gzip bomb stops here,
/// not in memory).
pub const MAX_DECODED_BYTES: usize = 32 * 1024 * 1024;

/// Values in one export (protobuf fields, JSON values), counted before it is decoded: a value
/// decodes to tens of bytes whatever its size on the wire, so this bounds the memory of an export
/// of many tiny values (about 100 bytes each at most: some 50 MiB).
pub const MAX_VALUES: usize = 500_000;

/// Attributes on one span, and on one of its events; a span with more is rejected (counted in
/// `partial_success`) while the other spans of the export are kept.
pub const MAX_ATTRIBUTES: usize = 1024;

/// Events on one span; more rejects the span.
pub const MAX_EVENTS: usize = 1024;

/// One LLM call a receiver took in: its scene and what the span says about it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReceivedCall {
    /// Its place among the calls received since start, from 1 ([`CallStore::after`]).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub seq: u64,
    /// When the export arrived (RFC 3339, UTC).
    pub received_at: String,
    /// `gen_ai.conversation.id` when the span has one, else the trace id (32 hex digits).
    pub conversation: String,
    pub trace_id: String,
    pub span_id: String,
    pub span_name: String,
    /// The scene's name (from the span's name).
    pub scene_name: String,
    /// `gen_ai.provider.name` (or the older `gen_ai.system`, or `llm.provider`).
    pub provider: Option<String>,
    /// The API the scene records (`openai-chat`, `anthropic`, ...), when the provider names one.
    pub api: Option<String>,
    /// The model the response or the request names.
    pub model: Option<String>,
    /// The usage the span recorded (billed), normalised; for a span whose provider names no API
    /// the token counts of `gen_ai.usage.*` as they are.
    pub usage: Option<crate::usage::Usage>,
    /// The scene file's text (it loads).
    pub scene: String,
    /// What the scene keeps nowhere (also in its description).
    pub unmapped: Vec<String>,
    /// The span alone as an OTLP/JSON export on one line: what `import` and `verify` read back
    /// from a JSON-lines file.
    pub span_json: String,
}

impl ReceivedCall {
    /// The bytes this call holds, as the store counts them.
    pub fn size(&self) -> usize {
        self.scene.len() + self.span_json.len()
    }
}
