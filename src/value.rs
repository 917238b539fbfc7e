//! The value model templates render over: JSON as Python's `json.loads` sees it.
//!
//! Scenes are recorded from Python (`model_dump(mode="json")`), so a template must see exactly what
//! Python would: integers of any size (never rounded through `f64`), floats, and objects whose keys
//! keep their file order (Python dicts preserve insertion order, and `{ctx!r}` prints them in it).

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;
use num_bigint::BigInt;

/// A Python integer: `i64` when it fits, otherwise arbitrary precision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PyInt {
    Small(i64),
    Big(Arc<BigInt>),
}

impl PyInt {
    /// Builds the canonical form: `Small` whenever the value fits in `i64`.
    pub fn from_bigint(b: BigInt) -> PyInt {
        match i64::try_from(&b) {
            Ok(v) => PyInt::Small(v),
            Err(_) => PyInt::Big(Arc::new(b)),
        }
    }

    pub fn to_bigint(&self) -> BigInt {
        match self {
            PyInt::Small(v) => BigInt::from(*v),
            PyInt::Big(b) => (**b).clone(),
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            PyInt::Small(v) => Some(*v),
            PyInt::Big(_) => None,
        }
    }

    /// Parses a decimal integer literal as JSON writes it (optional `-`, digits).
    pub fn parse(text: &str) -> Option<PyInt> {
        if let Ok(v) = text.parse::<i64>() {
            return Some(PyInt::Small(v));
        }
        text.parse::<BigInt>().ok().map(PyInt::from_bigint)
    }
}

impl fmt::Display for PyInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PyInt::Small(v) => write!(f, "{v}"),
            PyInt::Big(b) => write!(f, "{b}"),
        }
    }
}

/// A Python dict of a JSON object: insertion-ordered, hashed with a fast per-process randomised
/// hasher (SipHash dominated loading a long conversation).
pub type Dict = IndexMap<Arc<str>, Value, foldhash::fast::RandomState>;

/// A JSON value with Python's reading of it. Cheap to clone (shared containers).
#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(PyInt),
    Float(f64),
    Str(Arc<str>),
    List(Arc<Vec<Value>>),
    Dict(Arc<Dict>),
}

/// Structural equality. Two strings that are one shared allocation are equal without reading
/// them: the standard library compares an `Arc<str>` byte by byte even then (its shortcut needs a
/// sized `Eq` type), and a live document compares thousands of reused message texts per edit.
/// Lists and dicts are still compared element by element: a float inside may be NaN.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::None, Value::None) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => Arc::ptr_eq(a, b) || a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Dict(a), Value::Dict(b)) => a == b,
            _ => false,
        }
    }
}

impl Value {
    /// Python's type name (`type(v).__name__`), used in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
        }
    }

    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }

    /// Converts an already parsed `serde_json::Value` (parsed with `arbitrary_precision`).
    pub fn from_json(raw: &serde_json::Value) -> Value {
        match raw {
            serde_json::Value::Null => Value::None,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => number_from_text(&n.to_string()),
            serde_json::Value::String(s) => Value::str(s),
            serde_json::Value::Array(items) => {
                Value::List(Arc::new(items.iter().map(Value::from_json).collect()))
            }
            serde_json::Value::Object(map) => Value::Dict(Arc::new(
                map.iter()
                    .map(|(k, v)| (Arc::from(k.as_str()), Value::from_json(v)))
                    .collect(),
            )),
        }
    }
}

/// JSON number text to a Python int or float. serde_json has already validated the syntax.
fn number_from_text(text: &str) -> Value {
    if text.contains(['.', 'e', 'E']) {
        // Rust's parse is correctly rounded like CPython's, and yields ±inf on overflow as
        // `float('1e400')` does.
        Value::Float(text.parse::<f64>().unwrap_or(f64::NAN))
    } else {
        match PyInt::parse(text) {
            Some(i) => Value::Int(i),
            None => Value::Float(f64::NAN),
        }
    }
}

/// Serialises as JSON: big integers stay exact (serde_json's arbitrary-precision numbers);
/// non-finite floats, which JSON cannot hold, become `null`.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Value::None => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(PyInt::Small(i)) => s.serialize_i64(*i),
            Value::Int(PyInt::Big(b)) => match b.to_string().parse::<serde_json::Number>() {
                Ok(n) => n.serialize(s),
                Err(_) => s.serialize_str(&b.to_string()),
            },
            Value::Float(f) if f.is_finite() => s.serialize_f64(*f),
            Value::Float(_) => s.serialize_unit(),
            Value::Str(v) => s.serialize_str(v),
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Dict(map) => {
                let mut m = s.serialize_map(Some(map.len()))?;
                for (k, v) in map.iter() {
                    m.serialize_entry(&**k, v)?;
                }
                m.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_is_by_value_whatever_the_allocation() {
        let shared = Value::str("the same text");
        assert_eq!(shared, shared.clone());
        assert_eq!(shared, Value::str("the same text"));
        assert_ne!(shared, Value::str("another text"));
        assert_ne!(Value::str("1"), Value::Int(PyInt::Small(1)));
        assert_eq!(Value::Int(PyInt::Small(1)), Value::Int(PyInt::Small(1)));
        assert_ne!(Value::Bool(true), Value::Int(PyInt::Small(1)));
        // A NaN is unequal to itself, inside a shared list too.
        assert_ne!(Value::Float(f64::NAN), Value::Float(f64::NAN));
        let list = Value::List(Arc::new(vec![Value::Float(f64::NAN)]));
        assert_ne!(list, list.clone());
        let dict = Value::from_json_str(r#"{"a": [1, "x"], "b": null}"#).expect("valid json");
        let same = Value::from_json_str(r#"{"a": [1, "x"], "b": null}"#).expect("valid json");
        let other = Value::from_json_str(r#"{"a": [1, "y"], "b": null}"#).expect("valid json");
        assert_eq!(dict, same);
        assert_ne!(dict, other);
    }

    #[test]
    fn big_integers_stay_exact() {
        let v = Value::from_json_str("[123456789012345678901234567890, -9223372036854775808]")
            .expect("valid json");
        let Value::List(items) = v else {
            panic!("expected a list")
        };
        assert_eq!(
            items[0],
            Value::Int(PyInt::parse("123456789012345678901234567890").expect("int"))
        );
        assert!(matches!(items[0], Value::Int(PyInt::Big(_))));
        assert_eq!(items[1], Value::Int(PyInt::Small(i64::MIN)));
    }

    #[test]
    fn floats_follow_json_loads() {
        let v = Value::from_json_str("[1.0, 1e400, -0.0, 2E3]").expect("valid json");
        let Value::List(items) = v else {
            panic!("expected a list")
        };
        assert_eq!(items[0], Value::Float(1.0));
        assert_eq!(items[1], Value::Float(f64::INFINITY));
        assert!(matches!(items[2], Value::Float(z) if z == 0.0 && z.is_sign_negative()));
        assert_eq!(items[3], Value::Float(2000.0));
    }

    #[test]
    fn keys_keep_file_order_and_last_value_wins() {
        let v = Value::from_json_str(r#"{"b": 1, "a": 2, "b": 3}"#).expect("valid json");
        let Value::Dict(map) = v else {
            panic!("expected a dict")
        };
        let keys: Vec<&str> = map.keys().map(|k| &**k).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(map["b"], Value::Int(PyInt::Small(3)));
    }
}
