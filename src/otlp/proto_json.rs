//! The `opentelemetry-proto` messages of a span, its scope and resource as OTLP/JSON (the form
//! `import` reads): ids in hex, 64-bit integers as decimal strings, enums as integers, bytes in
//! base64. Nesting is bounded before this runs: prost refuses messages nested deeper than 100.

use base64::Engine as _;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{json, Map, Value as Json};

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn span(span: &Span, trace_id: &str, span_id: &str) -> Json {
    let mut out = Map::new();
    out.insert("traceId".into(), json!(trace_id));
    out.insert("spanId".into(), json!(span_id));
    if !span.parent_span_id.is_empty() {
        out.insert("parentSpanId".into(), json!(hex(&span.parent_span_id)));
    }
    out.insert("name".into(), json!(span.name));
    out.insert("kind".into(), json!(span.kind));
    out.insert(
        "startTimeUnixNano".into(),
        json!(span.start_time_unix_nano.to_string()),
    );
    out.insert(
        "endTimeUnixNano".into(),
        json!(span.end_time_unix_nano.to_string()),
    );
    out.insert("attributes".into(), key_values(&span.attributes));
    let events: Vec<Json> = span
        .events
        .iter()
        .map(|e| {
            json!({
                "timeUnixNano": e.time_unix_nano.to_string(),
                "name": e.name,
                "attributes": key_values(&e.attributes),
            })
        })
        .collect();
    if !events.is_empty() {
        out.insert("events".into(), Json::Array(events));
    }
    if let Some(status) = &span.status {
        out.insert(
            "status".into(),
            json!({"code": status.code, "message": status.message}),
        );
    }
    Json::Object(out)
}

pub(super) fn resource(resource: Option<&Resource>) -> Json {
    json!({"attributes": resource.map_or(Json::Array(Vec::new()), |r| key_values(&r.attributes))})
}

pub(super) fn scope(scope: Option<&InstrumentationScope>) -> Json {
    match scope {
        Some(s) => json!({
            "name": s.name,
            "version": s.version,
            "attributes": key_values(&s.attributes),
        }),
        None => json!({}),
    }
}

fn key_values(kvs: &[KeyValue]) -> Json {
    Json::Array(
        kvs.iter()
            .map(|kv| json!({"key": kv.key, "value": any(kv.value.as_ref())}))
            .collect(),
    )
}

fn any(value: Option<&AnyValue>) -> Json {
    use any_value::Value;
    let Some(value) = value.and_then(|v| v.value.as_ref()) else {
        return json!({});
    };
    match value {
        Value::StringValue(s) => json!({"stringValue": s}),
        Value::BoolValue(b) => json!({"boolValue": b}),
        Value::IntValue(i) => json!({"intValue": i.to_string()}),
        // JSON has no NaN nor infinity; proto3 JSON writes them as strings.
        Value::DoubleValue(f) if f.is_finite() => json!({"doubleValue": f}),
        Value::DoubleValue(f) => json!({"doubleValue": f.to_string()}),
        Value::ArrayValue(a) => {
            let values: Vec<Json> = a.values.iter().map(|v| any(Some(v))).collect();
            json!({"arrayValue": {"values": values}})
        }
        Value::KvlistValue(kv) => json!({"kvlistValue": {"values": key_values(&kv.values)}}),
        Value::BytesValue(b) => {
            json!({"bytesValue": base64::engine::general_purpose::STANDARD.encode(b)})
        }
        // An index into a dictionary OTLP profiles keep; traces never use it.
        Value::StringValueStrindex(_) => json!({}),
    }
}
