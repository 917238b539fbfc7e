//! What the printing code of `py` needs to know about a Python value, whatever engine holds it:
//! `%`-formatting ([`super::percent`]), `json.dumps` ([`super::json_dumps`]) and
//! `pprint.pformat` ([`super::pprint`]) walk values through [`PyObject`], which each engine
//! implements for its own values.

use std::cmp::Ordering;

use super::error::PyError;
use crate::value::{PyInt, Value};

/// The built-in type a value is, with the scalar it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind<'a> {
    None,
    Bool(bool),
    /// An `int` within `i128`.
    Int(i128),
    /// An `int` beyond `i128`; its digits are its `str()`.
    BigInt,
    Float(f64),
    /// A `str`, or an instance of a subclass of it ([`PyObject::type_name`] tells which).
    Str(&'a str),
    List,
    Tuple,
    /// Another iterable that is no sequence (a generator).
    Iterable,
    Dict,
    /// Anything else (`Undefined`, `range`, a dict view, ...): known by its type name, `str`
    /// and `repr`.
    Other,
}

/// A Python value of one of the engines.
pub trait PyObject: Sized {
    /// The engine's error; every [`PyError`] converts into it.
    type Error: From<PyError>;

    fn kind(&self) -> Kind<'_>;
    /// `type(v).__name__`, module-qualified for types outside `builtins`
    /// (`markupsafe.Markup`).
    fn type_name(&self) -> &'static str;
    /// The elements of a list, tuple or other iterable.
    fn items(&self) -> Result<Vec<Self>, Self::Error>;
    /// The items of a dict, in its order.
    fn dict_items(&self) -> Result<Vec<(Self, Self)>, Self::Error>;
    /// `mapping[key]` for a str key; `None` when missing.
    fn get_str_key(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// Appends `str(v)`.
    fn write_str(&self, out: &mut String) -> Result<(), Self::Error>;
    /// Appends `repr(v)`, `depth` containers deep.
    fn write_repr(&self, out: &mut String, depth: usize) -> Result<(), Self::Error>;
    /// `a < b` as an ordering, for sorting (`TypeError` between types that do not compare).
    fn compare(&self, other: &Self) -> Result<Ordering, Self::Error>;
}

/// `str(v)`.
pub fn str_of<V: PyObject>(v: &V) -> Result<String, V::Error> {
    let mut out = String::new();
    v.write_str(&mut out)?;
    Ok(out)
}

/// `repr(v)`.
pub fn repr_of<V: PyObject>(v: &V) -> Result<String, V::Error> {
    let mut out = String::new();
    v.write_repr(&mut out, 0)?;
    Ok(out)
}

/// The JSON values of [`crate::value`], as `json.loads` builds them.
impl PyObject for Value {
    type Error = PyError;

    fn kind(&self) -> Kind<'_> {
        match self {
            Value::None => Kind::None,
            Value::Bool(b) => Kind::Bool(*b),
            Value::Int(PyInt::Small(i)) => Kind::Int(i128::from(*i)),
            Value::Int(PyInt::Big(b)) => match i128::try_from(&**b) {
                Ok(i) => Kind::Int(i),
                Err(_) => Kind::BigInt,
            },
            Value::Float(f) => Kind::Float(*f),
            Value::Str(s) => Kind::Str(s),
            Value::List(_) => Kind::List,
            Value::Dict(_) => Kind::Dict,
        }
    }

    fn type_name(&self) -> &'static str {
        Value::type_name(self)
    }

    fn items(&self) -> Result<Vec<Value>, PyError> {
        Ok(match self {
            Value::List(items) => items.to_vec(),
            _ => Vec::new(),
        })
    }

    fn dict_items(&self) -> Result<Vec<(Value, Value)>, PyError> {
        Ok(match self {
            Value::Dict(d) => d
                .iter()
                .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
                .collect(),
            _ => Vec::new(),
        })
    }

    fn get_str_key(&self, key: &str) -> Result<Option<Value>, PyError> {
        Ok(match self {
            Value::Dict(d) => d.get(key).cloned(),
            _ => None,
        })
    }

    fn write_str(&self, out: &mut String) -> Result<(), PyError> {
        super::write_str(out, self);
        Ok(())
    }

    fn write_repr(&self, out: &mut String, _depth: usize) -> Result<(), PyError> {
        super::write_repr(out, self);
        Ok(())
    }

    fn compare(&self, other: &Value) -> Result<Ordering, PyError> {
        let number = |v: &Value| match v {
            Value::Bool(b) => Some(Err(f64::from(u8::from(*b)))),
            Value::Int(i) => Some(Ok(i.to_bigint())),
            Value::Float(f) => Some(Err(*f)),
            _ => None,
        };
        match (self, other) {
            (Value::Str(a), Value::Str(b)) => Ok(a.cmp(b)),
            (Value::List(a), Value::List(b)) => {
                for (x, y) in a.iter().zip(b.iter()) {
                    if x != y {
                        return x.compare(y);
                    }
                }
                Ok(a.len().cmp(&b.len()))
            }
            _ => match (number(self), number(other)) {
                (Some(Ok(a)), Some(Ok(b))) => Ok(a.cmp(&b)),
                (Some(a), Some(b)) => {
                    let f = |n: Result<num_bigint::BigInt, f64>| match n {
                        Ok(i) => i.to_string().parse::<f64>().unwrap_or(f64::INFINITY),
                        Err(f) => f,
                    };
                    // NaN compares false both ways; sorting then keeps the order it has.
                    Ok(f(a).partial_cmp(&f(b)).unwrap_or(Ordering::Equal))
                }
                _ => Err(PyError::type_error(format!(
                    "'<' not supported between instances of '{}' and '{}'",
                    self.type_name(),
                    other.type_name()
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests;
