//! An OTLP/HTTP trace export's body to spans: `application/x-protobuf` through the
//! `opentelemetry-proto` messages, `application/json` as proto3 JSON (ids in hex, base64 ids
//! tolerated, enums as integers or names, unknown fields ignored), either one gzip-compressed.
//! A body that is not an export is an error for the whole request; a span that cannot be read
//! (a bad id, too many attributes) is rejected alone, with where and why.

use std::io::Read;

use base64::Engine as _;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use serde_json::{json, Value as Json};

use super::calls::SpanIn;
use super::{census, proto_json, MAX_ATTRIBUTES, MAX_DECODED_BYTES, MAX_EVENTS, MAX_VALUES};

/// How a body is encoded, from its `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

impl Encoding {
    /// `application/x-protobuf` or `application/json`, parameters allowed; anything else (a
    /// browser's simple types above all) is not an export.
    pub fn of_content_type(content_type: &str) -> Option<Encoding> {
        let media = content_type.split(';').next().unwrap_or("").trim();
        if media.eq_ignore_ascii_case("application/x-protobuf") {
            Some(Encoding::Protobuf)
        } else if media.eq_ignore_ascii_case("application/json") {
            Some(Encoding::Json)
        } else {
            None
        }
    }
}

/// Why a body is refused as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Larger than a limit (413).
    TooLarge(String),
    /// Not an export (400).
    Invalid(String),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::TooLarge(m) | BodyError::Invalid(m) => f.write_str(m),
        }
    }
}

/// The spans of an export, and the spans that could not be read, each with where and why.
#[derive(Debug, Default)]
pub struct Decoded {
    pub spans: Vec<SpanIn>,
    pub rejected: Vec<String>,
}

/// A gzip body expanded, reading at most [`MAX_DECODED_BYTES`] of its output.
pub fn gunzip(body: &[u8]) -> Result<Vec<u8>, BodyError> {
    let limit = MAX_DECODED_BYTES as u64;
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(body)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| BodyError::Invalid(format!("the gzip body does not expand: {e}")))?;
    if out.len() as u64 > limit {
        return Err(BodyError::TooLarge(format!(
            "the body expands to more than {MAX_DECODED_BYTES} bytes"
        )));
    }
    Ok(out)
}

pub fn decode(body: &[u8], encoding: Encoding) -> Result<Decoded, BodyError> {
    if body.len() > MAX_DECODED_BYTES {
        return Err(BodyError::TooLarge(format!(
            "the body is larger than {MAX_DECODED_BYTES} bytes"
        )));
    }
    match encoding {
        Encoding::Protobuf => protobuf(body),
        Encoding::Json => json_export(body),
    }
}

fn too_many_values() -> BodyError {
    BodyError::TooLarge(format!("the export holds more than {MAX_VALUES} values"))
}

fn protobuf(body: &[u8]) -> Result<Decoded, BodyError> {
    // The walk stops descending past the bound; a body it cannot walk is left to prost's own
    // decoding below, which says why.
    if census::protobuf(body).is_ok_and(|n| n > MAX_VALUES) {
        return Err(too_many_values());
    }
    let request = ExportTraceServiceRequest::decode(body).map_err(|e| {
        BodyError::Invalid(format!(
            "not an OTLP ExportTraceServiceRequest in protobuf: {e}"
        ))
    })?;
    let mut out = Decoded::default();
    for (i, rs) in request.resource_spans.iter().enumerate() {
        let at = format!("resource_spans[{i}].resource");
        shared_attributes(rs.resource.as_ref().map_or(0, |r| r.attributes.len()), &at)?;
        let resource = proto_json::resource(rs.resource.as_ref());
        for (j, ss) in rs.scope_spans.iter().enumerate() {
            let at = format!("resource_spans[{i}].scope_spans[{j}].scope");
            shared_attributes(ss.scope.as_ref().map_or(0, |s| s.attributes.len()), &at)?;
            let scope = proto_json::scope(ss.scope.as_ref());
            for (k, span) in ss.spans.iter().enumerate() {
                let at = format!(
                    "resource_spans[{i}].scope_spans[{j}].spans[{k}] {:?}",
                    span.name
                );
                let counts = std::iter::once(span.attributes.len())
                    .chain(span.events.iter().map(|e| e.attributes.len()));
                let checked = bounded(span.events.len(), counts).and_then(|()| {
                    Ok((
                        id_bytes(&span.trace_id, 16, "trace_id")?,
                        id_bytes(&span.span_id, 8, "span_id")?,
                    ))
                });
                match checked {
                    Ok((trace_id, span_id)) => out.spans.push(SpanIn {
                        export: export_of(
                            &resource,
                            &scope,
                            proto_json::span(span, &trace_id, &span_id),
                        ),
                        trace_id,
                        span_id,
                        name: span.name.clone(),
                    }),
                    Err(why) => out.rejected.push(format!("{at}: {why}")),
                }
            }
        }
    }
    Ok(out)
}

fn json_export(body: &[u8]) -> Result<Decoded, BodyError> {
    // serde_json refuses nesting deeper than 128 with an error, before the stack is at risk; the
    // count walks the text once without keeping anything.
    if let Err(e) = census::json(body) {
        if e.to_string()
            .contains(&format!("more than {MAX_VALUES} values"))
        {
            return Err(too_many_values());
        }
    }
    let root: Json = serde_json::from_slice(body).map_err(|e| {
        BodyError::Invalid(format!(
            "not an OTLP ExportTraceServiceRequest in JSON: {e}"
        ))
    })?;
    let Some(root) = root.as_object() else {
        return Err(BodyError::Invalid(
            "expected an ExportTraceServiceRequest object ({\"resourceSpans\": [...]})".to_owned(),
        ));
    };
    let mut out = Decoded::default();
    for (i, rs) in list(root.get("resourceSpans"), "/resourceSpans")?
        .iter()
        .enumerate()
    {
        let at = format!("/resourceSpans/{i}");
        let resource = object_or_empty(rs.get("resource"), &format!("{at}/resource"))?;
        for (j, ss) in list(rs.get("scopeSpans"), &format!("{at}/scopeSpans"))?
            .iter()
            .enumerate()
        {
            let at = format!("{at}/scopeSpans/{j}");
            let scope = object_or_empty(ss.get("scope"), &format!("{at}/scope"))?;
            for (k, span) in list(ss.get("spans"), &format!("{at}/spans"))?
                .iter()
                .enumerate()
            {
                let at = format!("{at}/spans/{k}");
                let name = span.get("name").and_then(Json::as_str).unwrap_or("");
                match json_span(span) {
                    Ok((trace_id, span_id, span)) => out.spans.push(SpanIn {
                        export: export_of(&resource, &scope, span),
                        trace_id,
                        span_id,
                        name: name.to_owned(),
                    }),
                    Err(why) => out.rejected.push(format!("{at} {name:?}: {why}")),
                }
            }
        }
    }
    Ok(out)
}

/// A span with its ids in hex (read from hex or base64), its counts within bounds.
fn json_span(span: &Json) -> Result<(String, String, Json), String> {
    let Some(fields) = span.as_object() else {
        return Err("expected a span object".to_owned());
    };
    let attributes = json_list(fields.get("attributes"), "attributes")?;
    let events = json_list(fields.get("events"), "events")?;
    let mut counts = vec![attributes.len()];
    for e in events {
        counts.push(json_list(e.get("attributes"), "events[].attributes")?.len());
    }
    bounded(events.len(), counts.into_iter())?;
    let trace_id = json_id(fields.get("traceId"), 16, "traceId")?;
    let span_id = json_id(fields.get("spanId"), 8, "spanId")?;
    let mut normalised = fields.clone();
    normalised.insert("traceId".into(), json!(trace_id));
    normalised.insert("spanId".into(), json!(span_id));
    match fields.get("parentSpanId") {
        Some(Json::String(p)) if !p.is_empty() => {
            normalised.insert(
                "parentSpanId".into(),
                json!(json_id(Some(&json!(p)), 8, "parentSpanId")?),
            );
        }
        _ => {}
    }
    Ok((trace_id, span_id, Json::Object(normalised)))
}

/// Refuses a span over [`MAX_EVENTS`] events or [`MAX_ATTRIBUTES`] attributes on itself or an
/// event.
fn bounded(events: usize, mut attribute_counts: impl Iterator<Item = usize>) -> Result<(), String> {
    if events > MAX_EVENTS {
        return Err(format!(
            "{events} events, more than the {MAX_EVENTS} a span may have here"
        ));
    }
    match attribute_counts.find(|n| *n > MAX_ATTRIBUTES) {
        Some(n) => Err(format!(
            "{n} attributes, more than the {MAX_ATTRIBUTES} a span or event may have here"
        )),
        None => Ok(()),
    }
}

fn id_bytes(bytes: &[u8], len: usize, field: &str) -> Result<String, String> {
    if bytes.len() != len || bytes.iter().all(|b| *b == 0) {
        return Err(format!("{field}: expected {len} bytes, not all zero"));
    }
    Ok(proto_json::hex(bytes))
}

/// An id written in hex (`2 * len` digits) or, as some exporters do, in base64.
fn json_id(value: Option<&Json>, len: usize, field: &str) -> Result<String, String> {
    let text = value.and_then(Json::as_str).unwrap_or("").trim();
    let wrong = || {
        format!(
            "{field}: expected {} hex digits (or base64 of {len} bytes)",
            2 * len
        )
    };
    if text.len() == 2 * len && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        let hex = text.to_ascii_lowercase();
        return if hex.bytes().all(|b| b == b'0') {
            Err(wrong())
        } else {
            Ok(hex)
        };
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| wrong())?;
    id_bytes(&bytes, len, field).map_err(|_| wrong())
}

/// A resource or scope goes with each of its spans: more than [`MAX_ATTRIBUTES`] on one refuses
/// the export.
fn shared_attributes(count: usize, at: &str) -> Result<(), BodyError> {
    if count > MAX_ATTRIBUTES {
        return Err(BodyError::Invalid(format!(
            "{at}: {count} attributes, more than the {MAX_ATTRIBUTES} a resource or scope may have here"
        )));
    }
    Ok(())
}

/// A list of the export's structure: absent or null is empty, anything but an array an error.
fn list<'a>(value: Option<&'a Json>, at: &str) -> Result<&'a [Json], BodyError> {
    match value {
        None | Some(Json::Null) => Ok(&[]),
        Some(Json::Array(items)) => Ok(items),
        Some(_) => Err(BodyError::Invalid(format!("{at}: expected an array"))),
    }
}

/// A span's own list: absent or null is empty, anything but an array rejects the span.
fn json_list<'a>(value: Option<&'a Json>, field: &str) -> Result<&'a [Json], String> {
    match value {
        None | Some(Json::Null) => Ok(&[]),
        Some(Json::Array(items)) => Ok(items),
        Some(_) => Err(format!("{field}: expected an array")),
    }
}

/// A resource or scope: absent or null is empty; its attributes within [`MAX_ATTRIBUTES`].
fn object_or_empty(value: Option<&Json>, at: &str) -> Result<Json, BodyError> {
    match value {
        None | Some(Json::Null) => Ok(json!({})),
        Some(v @ Json::Object(_)) => {
            let count = v
                .get("attributes")
                .and_then(Json::as_array)
                .map_or(0, Vec::len);
            shared_attributes(count, &format!("{at}/attributes"))?;
            Ok(v.clone())
        }
        Some(_) => Err(BodyError::Invalid(format!("{at}: expected an object"))),
    }
}

fn export_of(resource: &Json, scope: &Json, span: Json) -> Json {
    json!({"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": scope, "spans": [span]}]}]})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_span(span: Json) -> Vec<u8> {
        json!({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn json_ids_in_hex_or_base64_become_hex_and_unknown_fields_pass() {
        // 16 bytes 0x01..0x10 and 8 bytes 0xff in base64, as some exporters write them.
        let decoded = decode(
            &one_span(
                json!({"traceId": "AQIDBAUGBwgJCgsMDQ4PEA==", "spanId": "//////////8=",
                "name": "chat", "kind": 3, "futureField": [1, 2]}),
            ),
            Encoding::Json,
        )
        .expect("decodes");
        assert!(decoded.rejected.is_empty(), "{:?}", decoded.rejected);
        let span = &decoded.spans[0];
        assert_eq!(span.trace_id, "0102030405060708090a0b0c0d0e0f10");
        assert_eq!(span.span_id, "ffffffffffffffff");
        let kept = &span.export["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
        assert_eq!(kept["traceId"], "0102030405060708090a0b0c0d0e0f10");
        assert_eq!(kept["kind"], 3);

        let upper = decode(
            &one_span(json!({"traceId": "0102030405060708090A0B0C0D0E0F10", "spanId": "FFFFFFFFFFFFFFFF"})),
            Encoding::Json,
        )
        .expect("decodes");
        assert_eq!(upper.spans[0].span_id, "ffffffffffffffff");
    }

    #[test]
    fn a_bad_or_zero_id_rejects_only_its_span() {
        for bad in ["", "00000000000000000000000000000000", "xyz", "AQID"] {
            let decoded = decode(
                &one_span(json!({"traceId": bad, "spanId": "0102030405060708"})),
                Encoding::Json,
            )
            .expect("the export is read");
            assert!(decoded.spans.is_empty(), "{bad}");
            assert!(
                decoded.rejected[0].contains("traceId: expected 32 hex digits"),
                "{bad}: {:?}",
                decoded.rejected
            );
            assert!(decoded.rejected[0].starts_with("/resourceSpans/0/scopeSpans/0/spans/0"));
        }
    }

    #[test]
    fn a_structure_that_is_not_an_export_is_refused_whole() {
        for (body, wanted) in [
            ("[]", "expected an ExportTraceServiceRequest object"),
            (
                r#"{"resourceSpans": {}}"#,
                "/resourceSpans: expected an array",
            ),
            (
                r#"{"resourceSpans": [{"scopeSpans": [{"spans": 3}]}]}"#,
                "/resourceSpans/0/scopeSpans/0/spans: expected an array",
            ),
        ] {
            match decode(body.as_bytes(), Encoding::Json) {
                Err(BodyError::Invalid(m)) => assert!(m.contains(wanted), "{m}"),
                other => panic!("{body}: {other:?}"),
            }
        }
        let crowded: Vec<Json> = (0..1025)
            .map(|i| json!({"key": format!("r{i}"), "value": {}}))
            .collect();
        let body = json!({"resourceSpans": [{"resource": {"attributes": crowded}}]}).to_string();
        assert!(
            matches!(decode(body.as_bytes(), Encoding::Json), Err(BodyError::Invalid(m)) if m.contains("1025 attributes"))
        );
    }

    #[test]
    fn gzip_is_expanded_up_to_the_limit_only() {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&vec![0u8; MAX_DECODED_BYTES]).unwrap();
        let at_limit = e.finish().unwrap();
        assert_eq!(gunzip(&at_limit).map(|b| b.len()), Ok(MAX_DECODED_BYTES));
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&vec![0u8; MAX_DECODED_BYTES + 1]).unwrap();
        assert!(matches!(
            gunzip(&e.finish().unwrap()),
            Err(BodyError::TooLarge(_))
        ));
        assert!(matches!(gunzip(b"not gzip"), Err(BodyError::Invalid(_))));
    }

    #[test]
    fn content_types_are_the_two_of_otlp() {
        assert_eq!(
            Encoding::of_content_type("application/x-protobuf"),
            Some(Encoding::Protobuf)
        );
        assert_eq!(
            Encoding::of_content_type("Application/JSON; charset=utf-8"),
            Some(Encoding::Json)
        );
        for t in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "",
        ] {
            assert_eq!(Encoding::of_content_type(t), None, "{t}");
        }
    }
}
