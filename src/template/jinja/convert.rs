//! Our JSON [`Value`] into minijinja values, plus the one value type minijinja cannot hold:
//! integers past `i128`/`u128`.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use minijinja::value::{DynObject, Enumerator, Object, ObjectExt, ObjectRepr, Value as JValue};
use num_bigint::BigInt;

use crate::value::{Dict, PyInt, Value};

/// Converts a value for the Jinja2 engine. Containers are converted lazily: a list or dict
/// becomes an object that converts an element when a template reaches it. A scene's context can
/// hold thousands of messages of which a template reads a few, and converting (and later
/// freeing) all of them up front was most of the cost of rendering a large scene.
pub(crate) fn to_jinja_value(v: &Value) -> JValue {
    match v {
        Value::None => JValue::from(()),
        Value::Bool(b) => JValue::from(*b),
        Value::Int(PyInt::Small(i)) => JValue::from(*i),
        Value::Int(PyInt::Big(b)) => bigint_value(b),
        Value::Float(f) => JValue::from(*f),
        Value::Str(s) => JValue::from(s.clone()),
        Value::List(items) => JValue::from_object(LazyList(items.clone())),
        Value::Dict(map) => JValue::from_object(LazyDict(map.clone())),
    }
}

/// A JSON array seen by templates as a Python list; elements convert on access.
#[derive(Debug)]
pub(crate) struct LazyList(Arc<Vec<Value>>);

impl Object for LazyList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        let index = usize::try_from(key.clone()).ok()?;
        self.0.get(index).map(to_jinja_value)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.0.len())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.0.len())
    }
}

/// A JSON object seen by templates as a Python dict (insertion order); values convert on
/// access.
#[derive(Debug)]
pub(crate) struct LazyDict(Arc<Dict>);

impl Object for LazyDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        self.0.get(key.as_str()?).map(to_jinja_value)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_enumerator(|this| Box::new(this.0.keys().map(|k| JValue::from(k.clone()))))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An integer as minijinja holds it when it fits `i128`/`u128`, else a [`BigInt`] object.
pub(crate) fn bigint_value(b: &BigInt) -> JValue {
    if let Ok(v) = i128::try_from(b) {
        return JValue::from(v);
    }
    if let Ok(v) = u128::try_from(b) {
        return JValue::from(v);
    }
    JValue::from_object(BigIntObj(Arc::new(b.clone())))
}

/// An integer too large for minijinja's number types. It prints its exact digits and compares
/// with other big integers; arithmetic on it is not supported (Jinja2 would do it exactly).
#[derive(Debug)]
pub(crate) struct BigIntObj(pub(crate) Arc<BigInt>);

impl Object for BigIntObj {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn is_true(self: &Arc<Self>) -> bool {
        // Only integers beyond i128 land here, never zero.
        true
    }

    fn custom_cmp(self: &Arc<Self>, other: &DynObject) -> Option<Ordering> {
        let other = other.downcast_ref::<Self>()?;
        Some(self.0.cmp(&other.0))
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
