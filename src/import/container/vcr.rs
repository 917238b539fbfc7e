//! VCR cassettes: `interactions[]`, each a `request` (`method`, `uri`, `headers`, `body` as a
//! string, `!!binary` bytes or `{string | base64_string}`, or pydantic-ai's already parsed
//! `parsed_body`) and a `response` (`status.code`, `headers`, `body.string` /
//! `body.base64_string`, or `parsed_body`). vcrpy and pytest-recording write them as YAML (or
//! JSON with vcrpy's JSON serializer); Ruby's VCR writes the same shape under
//! `http_interactions`, with `recorded_at`.
//! The call's time is `recorded_at` when there is one, else the response's `Date` header.

use std::collections::HashSet;

use super::body::{Budget, Headers};
use super::{endpoint, string_bytes, text_body, Body, RecordedCall};
use crate::import::node::Node;
use crate::import::time;
use crate::import::ImportError;
use crate::json::Kind;

pub(super) fn exchanges<'a>(
    root: &Node<'a>,
    binary: &HashSet<usize>,
    budget: &mut Budget,
    skipped: &mut Vec<String>,
) -> Result<Vec<RecordedCall<'a>>, ImportError> {
    let mut out = Vec::new();
    let interactions = match root.get("http_interactions") {
        Some(ruby) => ruby,
        None => root.req("interactions")?,
    };
    for (i, it) in interactions.items()?.into_iter().enumerate() {
        let request = it.req("request")?;
        let method = request.req_str("method")?;
        let uri = request.req_str("uri")?;
        let label = format!("interaction {i} ({method} {uri})");
        let api = match endpoint(method, uri) {
            Ok(api) => api,
            Err(why) => {
                skipped.push(format!("{label}: {why}"));
                continue;
            }
        };
        let response = it.req("response")?;
        let code = status(&response)?;
        if code != Some(200) {
            let code = code.map_or_else(|| "no".to_owned(), |c| c.to_string());
            skipped.push(format!("{label}: HTTP {code} status, not a completed call"));
            continue;
        }
        let request_headers = headers(&request)?;
        let what = format!("interaction {i}'s request body");
        let body = match request.get("parsed_body") {
            Some(parsed) => Body::Tree(parsed),
            None => match body_bytes(request.get("body"), binary, &what)? {
                Some((node, bytes)) => text_body(bytes, &request_headers, budget, &node, &what)?,
                None => {
                    skipped.push(format!("{label}: no request body recorded"));
                    continue;
                }
            },
        };
        let response_headers = headers(&response)?;
        let what = format!("interaction {i}'s response body");
        let response_body = match response.get("parsed_body") {
            Some(parsed) if parsed.as_str().is_none() => Some(Body::Tree(parsed)),
            _ => match body_bytes(response.get("body"), binary, &what)? {
                Some((node, bytes)) => {
                    Some(text_body(bytes, &response_headers, budget, &node, &what)?)
                }
                None => None,
            },
        };
        let timestamp = match it.get("recorded_at") {
            Some(at) => Some(time::from_http_date(at.str()?).ok_or_else(|| {
                at.err("recorded_at: expected an HTTP date (Mon, 16 Sep 2024 10:12:03 GMT)")
            })?),
            // A malformed Date header is the server's, not the recording's: left out.
            None => response_headers
                .get("date")
                .and_then(|d| time::from_http_date(&d)),
        };
        out.push(RecordedCall {
            api,
            url: uri.to_owned(),
            label,
            request: body,
            response: response_body,
            timestamp,
        });
    }
    Ok(out)
}

/// `status: {code: 200, message: OK}` (or a bare code).
fn status(response: &Node<'_>) -> Result<Option<i64>, ImportError> {
    let Some(s) = response.get("status") else {
        return Ok(None);
    };
    let code = if s.is_object() {
        s.get("code")
    } else {
        Some(s)
    };
    Ok(code.and_then(|c| match &c.json.kind {
        Kind::Int(i) => i.as_i64(),
        Kind::Str(t) => t.trim().parse().ok(),
        _ => None,
    }))
}

/// `headers: {Name: [values]}` (a single value may be a bare string), names lower-cased.
fn headers(message: &Node<'_>) -> Result<Headers, ImportError> {
    let mut out = Headers::default();
    let Some(h) = message.get("headers") else {
        return Ok(out);
    };
    for (name, values) in h.members()? {
        let name = name.to_ascii_lowercase();
        match values.array() {
            Some(items) => {
                for v in items {
                    out.0.push((name.clone(), scalar_text(&v)?));
                }
            }
            None => out.0.push((name, scalar_text(&values)?)),
        }
    }
    Ok(out)
}

/// A header value as text (YAML may have read `content-length: 12` as a number).
fn scalar_text(v: &Node<'_>) -> Result<String, ImportError> {
    Ok(match &v.json.kind {
        Kind::Str(s) => s.clone(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) => f.to_string(),
        Kind::Bool(b) => b.to_string(),
        _ => return Err(v.err("expected a header value (a string)")),
    })
}

/// A body's bytes and the node they were read from: a string (or `!!binary`), or
/// `{string}` / `{base64_string}`; `None` when nothing was recorded.
fn body_bytes<'a>(
    body: Option<Node<'a>>,
    binary: &HashSet<usize>,
    what: &str,
) -> Result<Option<(Node<'a>, Vec<u8>)>, ImportError> {
    let Some(body) = body else {
        return Ok(None);
    };
    if body.is_object() {
        if let Some(b64) = body.get("base64_string") {
            let bytes =
                super::body::base64(b64.str()?).map_err(|e| b64.err(format!("{what}: {e}")))?;
            return Ok(Some((b64, bytes)));
        }
        return match body.get("string") {
            Some(s) => {
                let bytes = string_bytes(&s, binary, what)?;
                Ok((!bytes.is_empty()).then_some((s, bytes)))
            }
            None => Ok(None),
        };
    }
    let bytes = string_bytes(&body, binary, what)?;
    Ok((!bytes.is_empty()).then_some((body, bytes)))
}
