//! Our JSON [`Value`] into minijinja values, plus the one value type minijinja cannot hold:
//! integers past `i128`/`u128`.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use minijinja::value::{DynObject, Object, ObjectRepr, Value as JValue};
use num_bigint::BigInt;

use crate::value::{PyInt, Value};

/// Converts once per set of variables; containers become native minijinja lists and (ordered)
/// maps so every builtin operation applies to them.
pub(crate) fn to_jinja_value(v: &Value) -> JValue {
    match v {
        Value::None => JValue::from(()),
        Value::Bool(b) => JValue::from(*b),
        Value::Int(PyInt::Small(i)) => JValue::from(*i),
        Value::Int(PyInt::Big(b)) => bigint_value(b),
        Value::Float(f) => JValue::from(*f),
        Value::Str(s) => JValue::from(s.clone()),
        Value::List(items) => items.iter().map(to_jinja_value).collect(),
        Value::Dict(map) => JValue::from_pairs(
            map.iter()
                .map(|(k, v)| (JValue::from(k.clone()), to_jinja_value(v))),
        ),
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
