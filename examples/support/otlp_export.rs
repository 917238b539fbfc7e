//! OTLP trace exports built with the `opentelemetry-proto` messages, as an instrumented agent's
//! SDK sends them: shared by `examples/otlp_throughput.rs` and `tests/it/otlp.rs` (each includes
//! this file with `#[path]`).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};

/// The instrumentation scope of opentelemetry-instrumentation-openai-v2.
pub const OPENAI_V2_SCOPE: &str = "opentelemetry.instrumentation.openai_v2";

pub fn text(s: &str) -> Option<AnyValue> {
    Some(AnyValue {
        value: Some(any_value::Value::StringValue(s.to_owned())),
    })
}

pub fn int(i: i64) -> Option<AnyValue> {
    Some(AnyValue {
        value: Some(any_value::Value::IntValue(i)),
    })
}

pub fn kv(key: &str, value: Option<AnyValue>) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value,
        ..KeyValue::default()
    }
}

/// One export of `spans` from the service `service`, in the openai-v2 instrumentation's scope.
pub fn export(service: &str, spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![kv("service.name", text(service))],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: OPENAI_V2_SCOPE.to_owned(),
                    ..InstrumentationScope::default()
                }),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}
