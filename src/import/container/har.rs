//! HAR files (HTTP Archive 1.2, the network export of browsers and proxies): `log.entries[]`,
//! each with `startedDateTime` (the call's time), a `request` (`method`, `url`, `headers` as
//! `[{name, value}]`, `postData.text`) and a `response` (`status`, `headers`, `content.text`,
//! base64 when `content.encoding` says so, and `content.mimeType`).

use super::body::{base64, Budget, Headers};
use super::{endpoint, text_body, RecordedCall};
use crate::import::node::Node;
use crate::import::time;
use crate::import::ImportError;
use crate::json::Kind;

pub(super) fn exchanges<'a>(
    root: &Node<'a>,
    budget: &mut Budget,
    skipped: &mut Vec<String>,
) -> Result<Vec<RecordedCall<'a>>, ImportError> {
    let mut out = Vec::new();
    for (i, entry) in root
        .req("log")?
        .req("entries")?
        .items()?
        .into_iter()
        .enumerate()
    {
        let request = entry.req("request")?;
        let method = request.req_str("method")?;
        let url = request.req_str("url")?;
        let label = format!("entry {i} ({method} {url})");
        let api = match endpoint(method, url) {
            Ok(api) => api,
            Err(why) => {
                skipped.push(format!("{label}: {why}"));
                continue;
            }
        };
        let response = entry.req("response")?;
        let status = response.req("status")?;
        let code = match &status.json.kind {
            Kind::Int(c) => c.as_i64(),
            _ => return Err(status.err("expected the HTTP status code (an integer)")),
        };
        if code != Some(200) {
            skipped.push(format!(
                "{label}: HTTP {} status, not a completed call",
                code.map_or_else(|| "?".to_owned(), |c| c.to_string())
            ));
            continue;
        }
        let what = format!("entry {i}'s request body");
        let request_headers = headers(&request)?;
        let Some((text, encoded)) = request
            .get("postData")
            .map(|p| Ok::<_, ImportError>((p.get("text"), p.opt_str("encoding")?)))
            .transpose()?
            .and_then(|(t, e)| t.map(|t| (t, e)))
        else {
            skipped.push(format!("{label}: no request body recorded (postData.text)"));
            continue;
        };
        let bytes = match encoded {
            Some("base64") => base64(text.str()?).map_err(|e| text.err(format!("{what}: {e}")))?,
            _ => text.str()?.as_bytes().to_vec(),
        };
        let body = text_body(bytes, &request_headers, budget, &text, &what)?;
        let response_headers = headers(&response)?;
        let what = format!("entry {i}'s response body");
        let response_body = match response.get("content") {
            Some(content) => match content.get("text") {
                Some(t) => {
                    let bytes = match content.opt_str("encoding")? {
                        Some("base64") => {
                            base64(t.str()?).map_err(|e| t.err(format!("{what}: {e}")))?
                        }
                        _ => t.str()?.as_bytes().to_vec(),
                    };
                    (!bytes.is_empty())
                        .then(|| text_body(bytes, &response_headers, budget, &t, &what))
                        .transpose()?
                }
                None => None,
            },
            None => None,
        };
        let started = entry.req("startedDateTime")?;
        let timestamp = time::from_iso8601(started.str()?).ok_or_else(|| {
            started
                .err("expected an ISO 8601 date-time with its zone (2024-03-01T10:11:12.345+01:00)")
        })?;
        out.push(RecordedCall {
            api,
            url: url.to_owned(),
            label,
            request: body,
            response: response_body,
            timestamp: Some(timestamp),
        });
    }
    Ok(out)
}

/// `headers: [{name, value}]`, names lower-cased.
fn headers(message: &Node<'_>) -> Result<Headers, ImportError> {
    let mut out = Headers::default();
    if let Some(h) = message.get("headers") {
        for pair in h.items()? {
            out.0.push((
                pair.req_str("name")?.to_ascii_lowercase(),
                pair.req_str("value")?.to_owned(),
            ));
        }
    }
    Ok(out)
}
