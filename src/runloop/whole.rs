//! The run report with every request written out whole: what `run --format json` prints, in the
//! shape docs/run-loop.md gives (`iterations[].request`, each a list of messages). It borrows the
//! shared report, so only the writing grows with the square of the rounds, never the memory.

use serde::Serialize;

use super::cache::Figures;
use super::replay::{RunReport, SystemOut};
use crate::pricing::cost::ModelCost;
use crate::scene::run::RunMessage;

/// [`RunReport`] with each request whole; the fields keep the order they had before the report
/// shared its messages, so the printed JSON is unchanged.
#[derive(Serialize)]
pub struct WholeRequests<'a> {
    pub initial_cwd: &'a str,
    pub system: &'a SystemOut,
    pub iterations: Vec<WholeIteration<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_request: Option<&'a [RunMessage]>,
    pub ignored_iterations: usize,
    pub dropped_system_messages: usize,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub models: &'a [ModelCost],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub diagnostics: &'a [crate::report::Diagnostic],
}

#[derive(Serialize)]
pub struct WholeIteration<'a> {
    pub request: &'a [RunMessage],
    pub injected: &'a [String],
    pub cache: &'a Figures,
    pub assistant: &'a RunMessage,
    pub tools: &'a [String],
    pub cwd: &'a str,
    pub dynamic_context: Option<&'static str>,
    pub appended_to: Option<&'static str>,
}

impl<'a> WholeRequests<'a> {
    pub fn new(report: &'a RunReport) -> WholeRequests<'a> {
        WholeRequests {
            initial_cwd: &report.initial_cwd,
            system: &report.system,
            iterations: report
                .iterations
                .iter()
                .map(|it| WholeIteration {
                    request: report.first_messages(it.request_messages),
                    injected: &it.injected,
                    cache: &it.cache,
                    assistant: &it.assistant,
                    tools: &it.tools,
                    cwd: &it.cwd,
                    dynamic_context: it.dynamic_context,
                    appended_to: it.appended_to,
                })
                .collect(),
            next_request: report.next_request(),
            ignored_iterations: report.ignored_iterations,
            dropped_system_messages: report.dropped_system_messages,
            models: &report.models,
            diagnostics: &report.diagnostics,
        }
    }
}
