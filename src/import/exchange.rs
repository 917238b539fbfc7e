//! A recorded call: its request body with, when it was recorded, the response (a JSON body or an
//! SSE stream), the usage it billed, the model and when. A file holds one as
//! `{"request": body, "response": body}` or in the usage corpus's form
//! `{"request": body, "response_usage": usage, "model": ..., "conversation": ..., "seq": ...}`;
//! other recordings (cassettes, HAR files) hand their bodies to [`exchange`]. The response's usage,
//! normalised by [`Usage::from_response`], goes into the scene's `recorded.usage`.

use serde_json::{json, Value as Json};

use super::draft::Draft;
use super::node::{self, Doc, Node};
use super::{ImportError, Source};
use crate::usage::{Api, Usage};

/// One call read: what its request is, why (when detected), and its draft with `recorded`
/// filled from the request and the response; [`super::import_calls`] makes scenes of calls.
pub struct Call {
    pub source: Source,
    pub detected: Option<String>,
    pub(crate) draft: Draft,
}

/// The members a recorded call's wrapper may have besides `request`.
const WRAPPER: [&str; 8] = [
    "request",
    "response",
    "response_usage",
    "model",
    "timestamp",
    "conversation",
    "seq",
    "source",
];

/// Whether a document is a recorded call's wrapper rather than a request body: a `request`
/// object and nothing a request body has at its top.
pub(crate) fn is_wrapper(root: &Node<'_>) -> bool {
    root.get("request").is_some_and(|r| r.is_object())
        && root
            .members()
            .is_ok_and(|m| m.iter().all(|(k, _)| WRAPPER.contains(k)))
}

/// Reads a wrapper: the request (its pointers the body's, errors still at the file's lines), the
/// response or the usage beside it, the model and the timestamp.
pub(crate) fn read_wrapper(root: &Node<'_>, from: Option<Source>) -> Result<Call, ImportError> {
    let request = root.req("request")?;
    let doc = Doc {
        text: root.doc.text,
        first_line: root.doc.first_line,
        host: None,
        prefix: format!("{}{}", root.doc.prefix, request.ptr),
    };
    let body = Node::root(request.json, &doc);
    let usage = match (root.get("response"), root.get("response_usage")) {
        (Some(r), _) => Some(response_usage(&r)?),
        (None, Some(u)) => {
            u.object()?;
            Some((u.to_json()?, u.clone()))
        }
        (None, None) => None,
    };
    let mut call = read_request(&body, from, usage.as_ref().map(|(u, _)| u))?;
    if let Some(m) = root.get("model") {
        let model = m.str()?;
        call.draft
            .recorded
            .entry("model")
            .or_insert_with(|| json!(model));
    }
    if let Some((usage, at)) = &usage {
        record_usage(&mut call, usage, Some(at))?;
    }
    if let Some(r) = root.get("response") {
        response_facts(&mut call.draft, &r)?;
    }
    if let Some(t) = root.get("timestamp") {
        let text = match t.as_str() {
            Some(s) => s.to_owned(),
            None => match t.json.kind {
                crate::json::Kind::Int(ref i) => {
                    super::time::from_unix_seconds(i.as_i64().unwrap_or(i64::MAX))
                        .ok_or_else(|| t.err("a timestamp in seconds since 1970 out of range"))?
                }
                _ => return Err(t.err("expected an RFC 3339 date-time or seconds since 1970")),
            },
        };
        check_timestamp(&text).map_err(|e| t.err(e))?;
        call.draft.recorded.insert("timestamp".into(), json!(text));
    }
    Ok(call)
}

/// One recorded call as a recording holds it (a cassette's interaction, a HAR entry): the
/// request body's JSON text, and what else was recorded with it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exchange<'a> {
    /// The request body, JSON.
    pub request: &'a str,
    /// The response body: JSON, a JSON array of stream chunks, or an SSE stream (`data:` lines).
    pub response: Option<&'a str>,
    /// When the call was made, RFC 3339.
    pub timestamp: Option<&'a str>,
    /// The model, when the body does not name it (Gemini's is the URL's).
    pub model: Option<&'a str>,
    /// What the request is (from its URL, say); `None` detects it from the body, and from the
    /// response's usage when the body alone does not tell.
    pub from: Option<Source>,
}

/// Reads one recorded call into a [`Call`] with its `recorded` filled: the request as its
/// source's reader reads a body, the response's usage normalised, the model (the request's, else
/// `model`, else the response's) and the time (`timestamp`, else the response's). A response
/// without usage is noted in the scene's list of what was not mapped. Errors name the line and
/// column within the request text.
pub fn exchange(ex: &Exchange<'_>) -> Result<Call, ImportError> {
    let doc = Doc {
        text: ex.request,
        first_line: 1,
        host: None,
        prefix: String::new(),
    };
    let tree = node::parse(&doc)?;
    let body = Node::root(&tree, &doc);
    body.object()?;
    let response = ex.response.map(parse_response).transpose()?;
    let usage = response.as_ref().and_then(|events| merged_usage(events));
    let mut call = read_request(&body, ex.from, usage.as_ref())?;
    match (&usage, &response) {
        (Some(u), _) => record_usage(&mut call, u, None)?,
        // A stream without a final usage (OpenAI's without `include_usage`), an error body.
        (None, Some(_)) => call.draft.unmapped.push(
            "the response carries no usage (no usage, usageMetadata, or a stream event with one)"
                .to_owned(),
        ),
        (None, None) => {}
    }
    if let Some(m) = ex.model.filter(|m| !m.trim().is_empty()) {
        call.draft
            .recorded
            .entry("model")
            .or_insert_with(|| json!(m));
    }
    if let Some(t) = ex.timestamp {
        check_timestamp(t).map_err(|e| ImportError {
            file: None,
            line: 0,
            column: 0,
            pointer: String::new(),
            message: format!("the call's timestamp: {e}"),
        })?;
        call.draft.recorded.insert("timestamp".into(), json!(t));
    }
    if let Some(events) = &response {
        for e in events {
            model_and_time(&mut call.draft, e);
        }
    }
    Ok(call)
}

/// The request read as `from` says, or as detected (with the usage's help).
fn read_request(
    body: &Node<'_>,
    from: Option<Source>,
    usage: Option<&Json>,
) -> Result<Call, ImportError> {
    let (source, detected) = match from {
        Some(s) => (s, None),
        None => {
            let (s, why) = super::detect::detect_with_usage(body, usage)?;
            (s, Some(why))
        }
    };
    let draft = super::read_body(source, body)?;
    Ok(Call {
        source,
        detected,
        draft,
    })
}

/// The usage of a response node: a JSON body, an array of stream chunks, or a string holding
/// either or an SSE stream; with the node, for errors.
fn response_usage<'a>(r: &Node<'a>) -> Result<(Json, Node<'a>), ImportError> {
    let events = match r.as_str() {
        Some(text) => parse_response(text).map_err(|e| r.err(e.message))?,
        None => match r.to_json()? {
            Json::Array(items) => items,
            other => vec![other],
        },
    };
    match merged_usage(&events) {
        Some(u) => Ok((u, r.clone())),
        None => Err(r.err(
            "the response has no usage (usage, usageMetadata, or a stream event carrying one)",
        )),
    }
}

/// A response's text as its events: one JSON body, a JSON array of chunks, or the `data:` lines
/// of an SSE stream (`[DONE]` skipped).
fn parse_response(text: &str) -> Result<Vec<Json>, ImportError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return match serde_json::from_str::<Json>(text) {
            Ok(Json::Array(items)) => Ok(items),
            Ok(v) => Ok(vec![v]),
            Err(e) => Err(response_error(format!("the response is not JSON: {e}"))),
        };
    }
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(data) = line.strip_prefix("data:") else {
            continue;
        };
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            continue;
        }
        match serde_json::from_str::<Json>(data) {
            Ok(v) => events.push(v),
            Err(e) => {
                return Err(response_error(format!(
                    "line {} of the response stream is not JSON: {e}",
                    i + 1
                )))
            }
        }
    }
    if events.is_empty() {
        return Err(response_error(
            "the response is neither JSON nor an SSE stream with data: lines",
        ));
    }
    Ok(events)
}

fn response_error(message: impl Into<String>) -> ImportError {
    ImportError {
        file: None,
        line: 0,
        column: 0,
        pointer: String::new(),
        message: message.into(),
    }
}

/// The usage a response reports: each event's usage object (`usage`, `message.usage`,
/// `response.usage`, `usageMetadata`) laid over the earlier ones, so that a stream's final figures
/// win while the figures only its first event gives (Anthropic's input and cache tokens in
/// `message_start`) stay.
fn merged_usage(events: &[Json]) -> Option<Json> {
    let mut merged: Option<serde_json::Map<String, Json>> = None;
    for e in events {
        let found = [
            e.get("usage"),
            e.get("usageMetadata"),
            e.pointer("/message/usage"),
            e.pointer("/response/usage"),
        ];
        for u in found.into_iter().flatten() {
            let Json::Object(fields) = u else { continue };
            let into = merged.get_or_insert_with(serde_json::Map::new);
            for (k, v) in fields {
                if !v.is_null() {
                    into.insert(k.clone(), v.clone());
                }
            }
        }
    }
    merged.map(Json::Object)
}

/// Normalises `usage` as the call's API reports it into `recorded.usage`. A cache write the
/// provider did not give a TTL for takes the TTL the request named (OpenAI's
/// `prompt_cache_options.ttl`).
fn record_usage(call: &mut Call, usage: &Json, at: Option<&Node<'_>>) -> Result<(), ImportError> {
    let api = api_of(call.source);
    let Some(api) = api else {
        return Ok(());
    };
    let Some(mut normal) = Usage::from_response(api, usage) else {
        let message = format!(
            "not a usage object of {}: expected {}",
            api.as_str(),
            match api {
                Api::OpenaiChat => "prompt_tokens (or input_tokens)",
                Api::OpenaiResponses | Api::Anthropic => "input_tokens",
                Api::Gemini => "promptTokenCount",
            }
        );
        return Err(match at {
            Some(n) => n.err(message),
            None => response_error(message),
        });
    };
    let ttl = call
        .draft
        .recorded
        .get("params")
        .and_then(|p| p.pointer("/prompt_cache_options/ttl"))
        .and_then(Json::as_str)
        .map(str::to_owned);
    // Only with a TTL to name: `remove` in a tuple with it would drop the write otherwise.
    if let Some(ttl) = ttl {
        if let Some(n) = normal.cache_write.remove("unspecified") {
            *normal.cache_write.entry(ttl).or_insert(0) += n;
        }
    }
    let value = serde_json::to_value(&normal).map_err(|e| response_error(e.to_string()))?;
    call.draft.recorded.insert("usage".into(), value);
    Ok(())
}

/// The API a source's requests are sent to (none for OpenTelemetry spans, which say it
/// themselves, nor for cassettes and HAR files, whose calls each say theirs).
pub(crate) fn api_of(source: Source) -> Option<Api> {
    match source {
        Source::OpenaiChat => Some(Api::OpenaiChat),
        Source::OpenaiResponses => Some(Api::OpenaiResponses),
        Source::Anthropic => Some(Api::Anthropic),
        Source::Gemini => Some(Api::Gemini),
        Source::Otel | Source::Vcr | Source::Har => None,
    }
}

/// The model and time a response body names, for what the request did not say.
fn response_facts(draft: &mut Draft, r: &Node<'_>) -> Result<(), ImportError> {
    let events = match r.as_str() {
        Some(text) => parse_response(text).map_err(|e| r.err(e.message))?,
        None => match r.to_json()? {
            Json::Array(items) => items,
            other => vec![other],
        },
    };
    for e in &events {
        model_and_time(draft, e);
    }
    Ok(())
}

fn model_and_time(draft: &mut Draft, event: &Json) {
    let body = event
        .get("response")
        .or_else(|| event.get("message"))
        .unwrap_or(event);
    if !draft.recorded.contains_key("model") {
        if let Some(m) = body
            .get("model")
            .or_else(|| body.get("modelVersion"))
            .and_then(Json::as_str)
            .filter(|m| !m.trim().is_empty())
        {
            draft.recorded.insert("model".into(), json!(m));
        }
    }
    if !draft.recorded.contains_key("timestamp") {
        let seconds = body
            .get("created")
            .or_else(|| body.get("created_at"))
            .and_then(Json::as_i64);
        let text = match seconds {
            Some(s) => super::time::from_unix_seconds(s),
            None => body
                .get("createTime")
                .and_then(Json::as_str)
                .filter(|t| check_timestamp(t).is_ok())
                .map(str::to_owned),
        };
        if let Some(t) = text {
            draft.recorded.insert("timestamp".into(), json!(t));
        }
    }
}

fn check_timestamp(text: &str) -> Result<(), String> {
    static PATTERN: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = PATTERN.get_or_init(|| regex::Regex::new(crate::scene::TIMESTAMP_PATTERN).ok());
    if re.as_ref().is_some_and(|re| re.is_match(text)) {
        Ok(())
    } else {
        Err(format!(
            "{text:?} is not an RFC 3339 date-time (2025-06-01T12:00:00Z)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_keeps_its_first_events_input_and_its_last_output() {
        // Anthropic's stream: message_start has the input and cache tokens and a placeholder
        // output count; message_delta the final output count.
        let sse = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":1100,\"cache_creation_input_tokens\":0,\"output_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":57}}\n\n";
        let events = parse_response(sse).expect("a stream");
        let usage = merged_usage(&events).expect("usage");
        let normal = Usage::from_response(Api::Anthropic, &usage).expect("anthropic usage");
        assert_eq!(
            (
                normal.input_total,
                normal.uncached,
                normal.cache_read,
                normal.output
            ),
            (1112, 12, 1100, 57)
        );
        // OpenAI's chunks carry `usage: null` until the last one.
        let sse = "data: {\"choices\":[],\"usage\":null}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":4}}\n\ndata: [DONE]\n";
        let usage = merged_usage(&parse_response(sse).expect("a stream")).expect("usage");
        assert_eq!(usage["prompt_tokens"], 30);
    }
}
