//! The run loop of xbot: a fixed, cache-static system message, and changes reported by
//! appending blocks to the newest message instead of rebuilding the prefix. Replays a scene's
//! `run` (docs/run-loop.md) and measures what a provider's prompt cache can reuse between requests;
//! [`blame`] measures the same across successive TFRobot renders.

pub mod blame;
pub mod cache;
pub mod dynamic_context;
pub mod reminder;
mod replay;
mod whole;

pub use crate::scene::run::{CallForm, Iteration, Run, RunMessage, ToolCall};
pub use replay::{replay, system_message, IterationOut, RunReport, SystemOut};
pub use whole::{WholeIteration, WholeRequests};
