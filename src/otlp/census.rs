//! Counts the values of an export before it is decoded, without allocating: a body of tiny
//! values (an empty attribute is 2 bytes of protobuf or 3 of JSON, and tens of bytes once decoded)
//! would otherwise turn 32 MiB into gigabytes. Protobuf is walked with prost's own field decoding
//! over the trace messages' shapes (which fields hold nested messages), skipping everything else;
//! JSON with serde_json's deserializer, each value counted and dropped.

use prost::bytes::Buf;
use prost::encoding::{skip_field, DecodeContext, WireType};
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::MAX_VALUES;

/// The messages of an `ExportTraceServiceRequest` that hold other messages (the fields of any
/// other are skipped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Request,
    ResourceSpans,
    Resource,
    ScopeSpans,
    Scope,
    Span,
    Event,
    Link,
    KeyValue,
    AnyValue,
    ArrayValue,
    KeyValueList,
}

impl Shape {
    /// The shape of field `tag` when it holds a message that holds others.
    fn field(self, tag: u32) -> Option<Shape> {
        use Shape::*;
        Some(match (self, tag) {
            (Request, 1) => ResourceSpans,
            (ResourceSpans, 1) => Resource,
            (ResourceSpans, 2) => ScopeSpans,
            (Resource, 1) | (Scope, 3) | (Span, 9) | (Event, 3) | (Link, 5) => KeyValue,
            (ScopeSpans, 1) => Scope,
            (ScopeSpans, 2) => Span,
            (Span, 11) => Event,
            (Span, 13) => Link,
            (KeyValue, 2) | (ArrayValue, 1) => AnyValue,
            (AnyValue, 5) => ArrayValue,
            (AnyValue, 6) => KeyValueList,
            (KeyValueList, 1) => KeyValue,
            _ => return None,
        })
    }
}

/// A walk of one message, carrying the count of the whole body so far.
#[derive(Debug)]
struct Walk {
    shape: Shape,
    values: usize,
}

impl prost::Message for Walk {
    fn encode_raw(&self, _: &mut impl prost::bytes::BufMut) {}

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        self.values += 1;
        // Past the bound the rest is only skipped: the count already refuses the body.
        let nested = self.shape.field(tag).filter(|_| self.values <= MAX_VALUES);
        match nested {
            Some(shape) if wire_type == WireType::LengthDelimited => {
                let mut inner = Walk {
                    shape,
                    values: self.values,
                };
                prost::encoding::message::merge(wire_type, &mut inner, buf, ctx)?;
                self.values = inner.values;
                Ok(())
            }
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        0
    }

    fn clear(&mut self) {}
}

/// The fields of a protobuf export, nested ones included (stops counting past [`MAX_VALUES`]).
pub(super) fn protobuf(body: &[u8]) -> Result<usize, prost::DecodeError> {
    let mut walk = Walk {
        shape: Shape::Request,
        values: 0,
    };
    prost::Message::merge(&mut walk, body)?;
    Ok(walk.values)
}

/// The values of a JSON document (every scalar, array, object and key); an error past
/// [`MAX_VALUES`] or for JSON that does not parse.
pub(super) fn json(body: &[u8]) -> Result<usize, serde_json::Error> {
    let mut values = 0;
    let mut de = serde_json::Deserializer::from_slice(body);
    Count(&mut values).deserialize(&mut de)?;
    de.end()?;
    Ok(values)
}

struct Count<'a>(&'a mut usize);

impl Count<'_> {
    fn one<E: serde::de::Error>(&mut self) -> Result<(), E> {
        *self.0 += 1;
        if *self.0 > MAX_VALUES {
            return Err(E::custom(format!("more than {MAX_VALUES} values")));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! scalar {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: serde::de::Error>(mut self, _: $ty) -> Result<(), E> {
            self.one()
        })*
    };
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    scalar!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: serde::de::Error>(mut self) -> Result<(), E> {
        self.one()
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.one()?;
        while seq.next_element_seed(Count(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.one()?;
        while map.next_key_seed(Count(&mut *self.0))?.is_some() {
            map.next_value_seed(Count(&mut *self.0))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_are_counted_and_refused_past_the_bound() {
        assert_eq!(
            json(br#"{"a": [1, "x", null, true, {"b": 2}]}"#).ok(),
            Some(10),
            "two objects, two keys, an array and five scalars"
        );
        // With serde_json's arbitrary precision a float arrives as a map of one key and its text:
        // three values, so a body of floats is bounded sooner, never later.
        assert_eq!(json(b"[2.5]").ok(), Some(4));
        let many = format!("[{}{{}}]", "{},".repeat(MAX_VALUES));
        let e = json(many.as_bytes()).expect_err("too many");
        assert!(e.to_string().contains("more than"), "{e}");
    }

    #[test]
    fn protobuf_fields_are_counted_through_nested_values() {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, ArrayValue, KeyValue};
        use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
        use prost::Message;
        let values = (0..10).map(|_| AnyValue::default()).collect();
        let kv = KeyValue {
            key: "k".into(),
            value: Some(AnyValue {
                value: Some(any_value::Value::ArrayValue(ArrayValue { values })),
            }),
            ..KeyValue::default()
        };
        let request = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                scope_spans: vec![ScopeSpans {
                    spans: vec![Span {
                        attributes: vec![kv],
                        ..Span::default()
                    }],
                    ..ScopeSpans::default()
                }],
                ..ResourceSpans::default()
            }],
        };
        // resource_spans, scope_spans, spans, attributes, key, value, array_value, 10 values.
        assert_eq!(protobuf(&request.encode_to_vec()).ok(), Some(17));
    }
}
