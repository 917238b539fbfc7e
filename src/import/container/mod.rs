//! Recorded traffic that holds requests with their responses: VCR cassettes (`vcr.rs`, YAML or
//! JSON, as vcrpy and pytest-recording write them) and HAR files (`har.rs`, the network export of
//! browsers and proxies). Each recorded provider LLM call becomes an [`Exchange`]: its request
//! body, the usage its response reports and when it was made; the request is read by the
//! request body's own reader and the rest goes into the scene's `recorded` object. Every other
//! recorded call (embeddings, authentication, other hosts, errors) is skipped and listed with why.

pub(crate) mod body;
mod har;
mod response;
pub(crate) mod time;
mod vcr;
pub(crate) mod yaml;

use std::collections::HashSet;

use serde_json::json;

use super::draft::Draft;
use super::node::{self, Doc, Host, Node};
use super::{anthropic, openai_chat, openai_responses, ImportError};
use crate::usage::{Api, Usage};

/// What holds the recorded calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Container {
    Vcr,
    Har,
}

/// One recorded LLM call.
pub(crate) struct Exchange<'a> {
    pub api: Api,
    /// Where it is (`interaction 3 (POST https://api.openai.com/v1/chat/completions)`).
    pub label: String,
    pub request: Request<'a>,
    pub usage: Option<Usage>,
    /// RFC 3339.
    pub timestamp: Option<String>,
}

/// A recorded request body.
pub(crate) enum Request<'a> {
    /// A value of the container itself (pydantic-ai records the body already parsed).
    Tree(Node<'a>),
    /// The body's text, decoded, and the container's string it came from.
    Text { text: String, host: Host<'a> },
}

/// A call read into a draft, with where it came from.
pub(crate) struct Call {
    pub draft: Draft,
    pub label: String,
}

/// The LLM calls of a cassette or HAR file, in recorded order; `skipped` gets every other
/// recorded call with why. `binary` holds where the YAML text has `!!binary` scalars.
pub(crate) fn read(
    container: Container,
    root: &Node<'_>,
    binary: &HashSet<usize>,
    skipped: &mut Vec<String>,
) -> Result<Vec<Call>, ImportError> {
    let mut budget = body::Budget::default();
    let mut exchanges = match container {
        Container::Vcr => vcr::exchanges(root, binary, &mut budget, skipped)?,
        Container::Har => har::exchanges(root, &mut budget, skipped)?,
    };
    exchanges.retain(|e| {
        let read = reads(e.api);
        if !read {
            skipped.push(format!(
                "{}: a Gemini call, whose request body this version does not read",
                e.label
            ));
        }
        read
    });
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

/// An exchange's request read by its API's reader, with the recorded usage and time.
fn call(exchange: Exchange<'_>) -> Result<Call, ImportError> {
    let Exchange {
        api,
        mut label,
        request,
        usage,
        timestamp,
    } = exchange;
    let mut draft = match &request {
        Request::Tree(node) => read_request(api, node)?,
        Request::Text { text, host } => {
            let doc = Doc {
                text,
                first_line: 1,
                host: Some(host.clone()),
                prefix: String::new(),
            };
            let tree = node::parse(&doc)?;
            read_request(api, &Node::root(&tree, &doc))?
        }
    };
    match usage {
        Some(u) => {
            draft
                .recorded
                .insert("usage".into(), serde_json::to_value(u).unwrap_or(json!(null)));
        }
        None => label.push_str(", no usage in its response"),
    }
    if let Some(t) = timestamp {
        draft.recorded.insert("timestamp".into(), json!(t));
    }
    Ok(Call { draft, label })
}

/// Whether an API's request bodies have a reader.
fn reads(api: Api) -> bool {
    api != Api::Gemini
}

fn read_request(api: Api, body: &Node<'_>) -> Result<Draft, ImportError> {
    body.object()?;
    match api {
        Api::OpenaiChat => openai_chat::read(body),
        Api::OpenaiResponses => openai_responses::read(body),
        Api::Anthropic => anthropic::read(body),
        Api::Gemini => Err(body.err("a Gemini request body, which this version does not read")),
    }
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
    Some((host.to_ascii_lowercase(), if path.is_empty() { "/" } else { path }))
}

/// A recorded response body's bytes, decoded, as the usage it reports. `host` is the container's
/// value the body came from, `what` names it for errors (`interaction 3's response body`).
pub(crate) fn usage_of_body(
    api: Api,
    bytes: Vec<u8>,
    headers: &body::Headers,
    budget: &mut body::Budget,
    host: &Node<'_>,
    what: &str,
) -> Result<Option<Usage>, ImportError> {
    let text = text_of(bytes, headers, budget, host, what)?;
    let trimmed = text.trim_start();
    let stream = headers.content_type_is("text/event-stream")
        || trimmed.starts_with("data:")
        || trimmed.starts_with("event:");
    if stream {
        return response::of_stream(api, &text).map_err(|(line, message)| {
            host.err(format!("{what} (an event stream), its line {line}: {message}"))
        });
    }
    let doc = Doc {
        text: &text,
        first_line: 1,
        host: Some(host_of(host, what)),
        prefix: String::new(),
    };
    let tree = node::parse(&doc)?;
    usage_of_tree(api, &Node::root(&tree, &doc))
}

/// The usage of a response body already parsed (a tree of the container or of its text).
pub(crate) fn usage_of_tree(api: Api, body: &Node<'_>) -> Result<Option<Usage>, ImportError> {
    let Some(found) = response::usage_node(api, body.json) else {
        return Ok(None);
    };
    let value = node::tree_to_json(found, body.doc.text)
        .map_err(|(offset, what)| body.doc.error_at(offset, &body.ptr, format!("{what} is not a JSON number")))?;
    Ok(Usage::from_response(api, &value))
}

/// A recorded request body's bytes, decoded, as the text the request reader reads.
pub(crate) fn request_text<'a>(
    bytes: Vec<u8>,
    headers: &body::Headers,
    budget: &mut body::Budget,
    host: &Node<'a>,
    what: &str,
) -> Result<Request<'a>, ImportError> {
    let text = text_of(bytes, headers, budget, host, what)?;
    Ok(Request::Text {
        text,
        host: host_of(host, what),
    })
}

fn text_of(
    bytes: Vec<u8>,
    headers: &body::Headers,
    budget: &mut body::Budget,
    host: &Node<'_>,
    what: &str,
) -> Result<String, ImportError> {
    let (bytes, _) =
        body::decode(bytes, headers, budget).map_err(|e| host.err(format!("{what}: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        host.err(format!(
            "{what} is not UTF-8 text (byte {} of the decoded body)",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Where a body's text sits in the container, for errors inside that text.
fn host_of<'a>(node: &Node<'a>, what: &str) -> Host<'a> {
    match &node.doc.host {
        Some(outer) => outer.clone(),
        None => Host {
            text: node.doc.text,
            first_line: node.doc.first_line,
            offset: node.json.span.start,
            pointer: format!("{}{}", node.doc.prefix, node.ptr),
            what: what.to_owned(),
        },
    }
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
