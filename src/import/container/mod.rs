//! Recorded traffic that holds requests with their responses: VCR cassettes (`vcr.rs`, YAML or
//! JSON, as vcrpy and pytest-recording write them) and HAR files (`har.rs`, the network export of
//! browsers and proxies). Each recorded provider LLM call becomes a [`RecordedCall`]: its request
//! body, its response body and when it was made, decoded from however the recording stored them
//! (`body.rs`); [`super::exchange`] reads the request by its API's reader and the usage the
//! response billed into the scene's `recorded`. Every other recorded call (embeddings,
//! authentication, other hosts, errors) is skipped and listed with why.

pub(crate) mod body;
mod har;
mod vcr;
pub(crate) mod yaml;

use std::collections::HashSet;

use super::draft::Draft;
use super::node::{Host, Node};
use super::{ImportError, Source};
use crate::json::{self, Json as Tree, Kind};
use crate::usage::Api;

/// What holds the recorded calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Container {
    Vcr,
    Har,
}

/// One recorded LLM call, its bodies as the recording holds them.
pub(crate) struct RecordedCall<'a> {
    pub api: Api,
    /// The request's URL (Gemini names the model there).
    pub url: String,
    /// Where it is (`interaction 3 (POST https://api.openai.com/v1/chat/completions)`).
    pub label: String,
    pub request: Body<'a>,
    pub response: Option<Body<'a>>,
    /// RFC 3339.
    pub timestamp: Option<String>,
}

/// A recorded body and where it sits in the container, for errors.
pub(crate) enum Body<'a> {
    /// A value of the container itself (pydantic-ai records bodies already parsed).
    Tree(Node<'a>),
    /// The body's text, decoded, and the container's string it came from.
    Text { text: String, host: Host<'a> },
}

/// The LLM calls of a cassette or HAR file, in recorded order, each as a draft with its label;
/// `skipped` gets every other recorded call with why. `binary` holds where the YAML text has
/// `!!binary` scalars.
pub(crate) fn read(
    container: Container,
    root: &Node<'_>,
    binary: &HashSet<usize>,
    skipped: &mut Vec<String>,
) -> Result<Vec<(Draft, String)>, ImportError> {
    let mut budget = body::Budget::default();
    let exchanges = match container {
        Container::Vcr => vcr::exchanges(root, binary, &mut budget, skipped)?,
        Container::Har => har::exchanges(root, &mut budget, skipped)?,
    };
    if exchanges.is_empty() {
        let what = match container {
            Container::Vcr => "interaction of this cassette",
            Container::Har => "entry of this HAR file",
        };
        let shown: Vec<&str> = skipped.iter().take(5).map(String::as_str).collect();
        return Err(root.err(format!(
            "no {what} is an LLM call this command reads (a 200 POST to OpenAI's /v1/chat/completions or /v1/responses, Anthropic's /v1/messages or Gemini's :generateContent); skipped: {}",
            if shown.is_empty() { "nothing recorded".to_owned() } else { shown.join("; ") }
        )));
    }
    exchanges.into_iter().map(call).collect()
}

/// A recorded call read by [`super::exchange`]: the request by its API's reader, the response's
/// usage and model, the model the URL named (Gemini's), the time.
fn call(recorded: RecordedCall<'_>) -> Result<(Draft, String), ImportError> {
    let RecordedCall {
        api,
        url,
        label,
        request,
        response,
        timestamp,
    } = recorded;
    let request_text = body_text(&request)?;
    let response_text = response.as_ref().map(body_text).transpose()?;
    let model = gemini_model(api, &url);
    let call = super::exchange(&super::Exchange {
        request: &request_text,
        response: response_text.as_deref(),
        timestamp: timestamp.as_deref(),
        model: model.as_deref(),
        from: Some(source_of(api)),
    })
    .map_err(|e| match (e.line, &response) {
        // Errors without a position are the response's (or the time's).
        (0, Some(r)) => relocate(r, e),
        _ => relocate(&request, e),
    })?;
    Ok((call.draft, label))
}

/// The request source of an API.
fn source_of(api: Api) -> Source {
    match api {
        Api::OpenaiChat => Source::OpenaiChat,
        Api::OpenaiResponses => Source::OpenaiResponses,
        Api::Anthropic => Source::Anthropic,
        Api::Gemini => Source::Gemini,
    }
}

/// The model a Gemini call names in its URL (`.../models/gemini-2.5-flash:generateContent`).
fn gemini_model(api: Api, url: &str) -> Option<String> {
    if api != Api::Gemini {
        return None;
    }
    let (_, path) = split_url(url)?;
    let tail = &path[path.rfind("/models/")? + "/models/".len()..];
    let model = &tail[..tail.find(':')?];
    (!model.is_empty()).then(|| model.to_owned())
}

/// A body as JSON text: the decoded text, or a parsed body written compactly.
fn body_text(b: &Body<'_>) -> Result<String, ImportError> {
    match b {
        Body::Text { text, .. } => Ok(text.clone()),
        Body::Tree(node) => Ok(node.to_json()?.to_string()),
    }
}

/// An error of [`super::exchange`], whose positions are within the body's own text, moved to
/// where the body is in the container: a parsed body's value at the error's pointer, or the
/// string the text came from, with the position inside it in the message.
fn relocate(b: &Body<'_>, e: ImportError) -> ImportError {
    match b {
        Body::Tree(node) => {
            let offset = find(node.json, &e.pointer).map_or(node.json.span.start, |t| t.span.start);
            node.doc
                .error_at(offset, &format!("{}{}", node.ptr, e.pointer), e.message)
        }
        Body::Text { host, .. } => {
            let (line, column) = json::line_col(host.text, host.offset);
            let inner = match (e.line, e.pointer.as_str()) {
                (0, "") => String::new(),
                (0, p) => format!(" at {p}"),
                (l, "") => format!(" (its line {l}, column {})", e.column),
                (l, p) => format!(" at {p} (its line {l}, column {})", e.column),
            };
            ImportError {
                file: None,
                line: host.first_line + line - 1,
                column,
                pointer: host.pointer.clone(),
                message: format!("in {}{inner}: {}", host.what, e.message),
            }
        }
    }
}

/// The value at a JSON pointer (RFC 6901) below `tree`.
fn find<'t>(tree: &'t Tree, pointer: &str) -> Option<&'t Tree> {
    let mut at = tree;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        at = match &at.kind {
            Kind::Object(members) => &members.iter().rev().find(|m| m.key == token)?.value,
            Kind::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Which API a recorded call is, or why it is not an LLM call this command reads. Hosts are
/// the providers' own (and Azure OpenAI's and DeepSeek's for OpenAI's request shapes), so that
/// an application's own `/v1/messages` in a browser's HAR file is not taken for Anthropic's.
pub(crate) fn endpoint(method: &str, url: &str) -> Result<Api, String> {
    let (host, path) = split_url(url).ok_or_else(|| format!("{url:?} is not an http(s) URL"))?;
    let openai_host = host == "api.openai.com"
        || host.ends_with(".openai.azure.com")
        || host == "api.deepseek.com";
    let google_host =
        host == "generativelanguage.googleapis.com" || host.ends_with("aiplatform.googleapis.com");
    let api = if openai_host && path.ends_with("/chat/completions") {
        Api::OpenaiChat
    } else if openai_host && path.ends_with("/responses") {
        Api::OpenaiResponses
    } else if host == "api.anthropic.com" && path == "/v1/messages" {
        Api::Anthropic
    } else if google_host
        && (path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent"))
    {
        Api::Gemini
    } else if openai_host || google_host || host == "api.anthropic.com" {
        return Err(format!("{path} is not an LLM call this command reads"));
    } else {
        return Err(format!(
            "{host} is not a provider's API host (api.openai.com, api.anthropic.com, generativelanguage.googleapis.com, ...)"
        ));
    };
    if !method.eq_ignore_ascii_case("POST") {
        return Err(format!("a {method} request, not a call"));
    }
    Ok(api)
}

/// The host (lower case, no port or credentials) and path (no query) of an http(s) URL.
fn split_url(url: &str) -> Option<(String, &str)> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host.rfind(':') {
        Some(i) if !host.ends_with(']') => &host[..i],
        _ => host,
    };
    let path = &rest[end..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    Some((
        host.to_ascii_lowercase(),
        if path.is_empty() { "/" } else { path },
    ))
}

/// A recorded body's bytes, decoded, as text; `node` is the container's value they came from,
/// `what` names the body (`interaction 3's request body`).
pub(crate) fn text_body<'a>(
    bytes: Vec<u8>,
    headers: &body::Headers,
    budget: &mut body::Budget,
    node: &Node<'a>,
    what: &str,
) -> Result<Body<'a>, ImportError> {
    let (bytes, _) =
        body::decode(bytes, headers, budget).map_err(|e| node.err(format!("{what}: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        node.err(format!(
            "{what} is not UTF-8 text (byte {} of the decoded body)",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(Body::Text {
        text,
        host: Host {
            text: node.doc.text,
            first_line: node.doc.first_line,
            offset: node.json.span.start,
            pointer: format!("{}{}", node.doc.prefix, node.ptr),
            what: what.to_owned(),
        },
    })
}

/// A string value's bytes: base64 decoded when the YAML tagged it `!!binary`.
pub(crate) fn string_bytes(
    node: &Node<'_>,
    binary: &HashSet<usize>,
    what: &str,
) -> Result<Vec<u8>, ImportError> {
    let s = node.str()?;
    if binary.contains(&node.json.span.start) {
        return body::base64(s).map_err(|e| node.err(format!("{what} (!!binary): {e}")));
    }
    Ok(s.as_bytes().to_vec())
}

#[cfg(test)]
mod tests;
