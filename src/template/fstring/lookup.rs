//! Field-name lookups (`obj[key]`, `obj[0]`, `obj.attr`) over JSON values, with the results and
//! exceptions of the Python objects `json.loads` builds. Lookups borrow from the variables; only
//! computed results (a character of a string, `x.imag`, a bound method) are owned.

use std::fmt::Write;
use std::sync::Arc;

use crate::py::attrs::{self, Attr};
use crate::py::format::fields::{Conversion, FieldValue};
use crate::py::{self, format::format_object, repr_str};
use crate::template::{ErrorKind, TemplateError};
use crate::value::{PyInt, Value};

/// CPython prints a bound method with the address of its `self`, which differs on every run. We
/// print this fixed, plausible address instead; such output is never byte-identical to CPython.
const FAKE_ADDRESS: &str = "0x7f3a5c2e1d80";

/// A Python object reached by a field name.
pub(super) enum Obj<'a> {
    Ref(&'a Value),
    Owned(Value),
    /// A bound built-in method or method-wrapper of an instance.
    Method {
        name: &'static str,
        owner: &'static str,
        wrapper: bool,
    },
    /// A class, reached through `__class__`.
    Class(&'static str),
}

fn type_error(message: String) -> TemplateError {
    TemplateError::new(ErrorKind::TypeError, message)
}

fn attribute_error(type_name: &str, name: &str) -> TemplateError {
    TemplateError::new(
        ErrorKind::AttributeError,
        format!("'{type_name}' object has no attribute '{name}'"),
    )
}

impl<'a> Obj<'a> {
    fn type_name(&self) -> &'static str {
        match self {
            Obj::Ref(v) => v.type_name(),
            Obj::Owned(v) => v.type_name(),
            Obj::Method { wrapper: true, .. } => "method-wrapper",
            Obj::Method { wrapper: false, .. } => "builtin_function_or_method",
            Obj::Class(_) => "type",
        }
    }

    /// `str(obj)`; for methods and classes also their `repr` and `ascii`.
    fn describe(&self) -> String {
        match self {
            Obj::Method {
                name,
                owner,
                wrapper: false,
            } => format!("<built-in method {name} of {owner} object at {FAKE_ADDRESS}>"),
            Obj::Method { name, owner, .. } => {
                format!("<method-wrapper '{name}' of {owner} object at {FAKE_ADDRESS}>")
            }
            Obj::Class(name) => format!("<class '{name}'>"),
            Obj::Ref(v) => py::to_str(v),
            Obj::Owned(v) => py::to_str(v),
        }
    }

    fn value(&self) -> Option<&Value> {
        match self {
            Obj::Ref(v) => Some(v),
            Obj::Owned(v) => Some(v),
            _ => None,
        }
    }

    /// Runs `f` on the value, keeping the result borrowed from the variables when it is.
    fn map_value(
        self,
        f: impl for<'b> FnOnce(&'b Value) -> Result<Obj<'b>, TemplateError>,
    ) -> Result<Obj<'a>, TemplateError> {
        match self {
            Obj::Ref(v) => f(v),
            Obj::Owned(v) => f(&v).map(Obj::into_owned),
            other => Err(other.not_a_value()),
        }
    }

    fn into_owned<'b>(self) -> Obj<'b> {
        match self {
            Obj::Ref(v) => Obj::Owned(v.clone()),
            Obj::Owned(v) => Obj::Owned(v),
            Obj::Method {
                name,
                owner,
                wrapper,
            } => Obj::Method {
                name,
                owner,
                wrapper,
            },
            Obj::Class(c) => Obj::Class(c),
        }
    }

    fn not_a_value(&self) -> TemplateError {
        // Only reached for methods and classes, which `map_value` callers handle themselves.
        type_error(format!(
            "'{}' object is not subscriptable",
            self.type_name()
        ))
    }

    /// `obj[key]` with a string key (`getitem_str`).
    fn get_key(self, key: &str) -> Result<Obj<'a>, TemplateError> {
        if let Some(e) = self.non_value_subscript() {
            return Err(e);
        }
        self.map_value(|v| get_key(v, key))
    }

    /// `obj[index]` with an all-digits key (`getitem_sequence` or `getitem_idx`).
    fn get_index(self, index: i64) -> Result<Obj<'a>, TemplateError> {
        if let Some(e) = self.non_value_subscript() {
            return Err(e);
        }
        self.map_value(|v| get_index(v, index))
    }

    fn non_value_subscript(&self) -> Option<TemplateError> {
        match self {
            // `int[0]` is "type 'int' is not subscriptable"; `list[0]` and `dict[0]` would build
            // a `types.GenericAlias`, which we do not model.
            Obj::Class(name) => Some(type_error(format!("type '{name}' is not subscriptable"))),
            Obj::Method { .. } => Some(self.not_a_value()),
            _ => None,
        }
    }

    /// `getattr(obj, name)`.
    fn get_attr(self, name: &str) -> Result<Obj<'a>, TemplateError> {
        match self {
            Obj::Method {
                name: method,
                wrapper,
                ..
            } => match name {
                "__name__" => Ok(Obj::Owned(Value::str(method))),
                "__class__" => Ok(Obj::Class(if wrapper {
                    "method-wrapper"
                } else {
                    "builtin_function_or_method"
                })),
                // Other attributes of methods (`__doc__`, `__self__`, ...) are not modelled.
                _ => Err(attribute_error(self.type_name(), name)),
            },
            Obj::Class(class) => match name {
                "__name__" | "__qualname__" => Ok(Obj::Owned(Value::str(class))),
                "__module__" => Ok(Obj::Owned(Value::str("builtins"))),
                "__class__" => Ok(Obj::Class("type")),
                // Class attributes (methods, `__doc__`, ...) are not modelled beyond the names.
                _ => Err(TemplateError::new(
                    ErrorKind::AttributeError,
                    format!("type object '{class}' has no attribute '{name}'"),
                )),
            },
            other => other.map_value(|v| get_attr(v, name)),
        }
    }
}

impl FieldValue for Obj<'_> {
    type Error = TemplateError;

    fn get_attr(self, name: &str) -> Result<Self, TemplateError> {
        Obj::get_attr(self, name)
    }

    fn get_key(self, key: &str) -> Result<Self, TemplateError> {
        Obj::get_key(self, key)
    }

    fn get_index(self, index: i64) -> Result<Self, TemplateError> {
        Obj::get_index(self, index)
    }

    fn convert(&self, conversion: Conversion) -> Result<String, TemplateError> {
        let Some(v) = self.value() else {
            // Methods and classes print the same in str, repr and ascii (their text is ASCII).
            return Ok(self.describe());
        };
        Ok(match conversion {
            Conversion::Str => py::to_str(v),
            Conversion::Repr => py::repr(v),
            Conversion::Ascii => py::ascii(v),
        })
    }

    fn format_into(&self, out: &mut String, spec: &str) -> Result<(), TemplateError> {
        let result = match self.value() {
            Some(v) => py::write_format(out, v, spec),
            None => format_object(out, &self.describe(), self.type_name(), spec),
        };
        result.map_err(TemplateError::from)
    }
}

/// `vars[key]`, `dict[key]`, and what other types do with a string subscript.
pub(super) fn get_key<'b>(v: &'b Value, key: &str) -> Result<Obj<'b>, TemplateError> {
    match v {
        Value::Dict(map) => match map.get(key) {
            Some(item) => Ok(Obj::Ref(item)),
            // str(KeyError(key)) is repr(key).
            None => Err(TemplateError::new(ErrorKind::KeyError, repr_str(key))),
        },
        Value::List(_) => Err(type_error(
            "list indices must be integers or slices, not str".to_owned(),
        )),
        Value::Str(_) => Err(type_error(
            "string indices must be integers, not 'str'".to_owned(),
        )),
        other => Err(type_error(format!(
            "'{}' object is not subscriptable",
            other.type_name()
        ))),
    }
}

fn get_index(v: &Value, index: i64) -> Result<Obj<'_>, TemplateError> {
    match v {
        Value::List(items) => usize::try_from(index)
            .ok()
            .and_then(|i| items.get(i))
            .map(Obj::Ref)
            .ok_or_else(|| TemplateError::new(ErrorKind::IndexError, "list index out of range")),
        Value::Str(s) => usize::try_from(index)
            .ok()
            .and_then(|i| s.chars().nth(i))
            .map(|c| {
                let mut buf = [0u8; 4];
                Obj::Owned(Value::Str(Arc::from(&*c.encode_utf8(&mut buf))))
            })
            .ok_or_else(|| TemplateError::new(ErrorKind::IndexError, "string index out of range")),
        // A dict is not a sequence: the index becomes an int key, which no JSON key equals.
        Value::Dict(_) => {
            let mut message = String::new();
            let _ = write!(message, "{index}");
            Err(TemplateError::new(ErrorKind::KeyError, message))
        }
        other => Err(type_error(format!(
            "'{}' object is not subscriptable",
            other.type_name()
        ))),
    }
}

fn get_attr<'b>(v: &'b Value, name: &str) -> Result<Obj<'b>, TemplateError> {
    let type_name = v.type_name();
    let Some((name, attr)) = attrs::lookup(type_name, name) else {
        return Err(attribute_error(type_name, name));
    };
    Ok(match attr {
        Attr::Method(owner) => Obj::Method {
            name,
            owner,
            wrapper: false,
        },
        Attr::MethodWrapper(owner) => Obj::Method {
            name,
            owner,
            wrapper: true,
        },
        Attr::Class => Obj::Class(type_name),
        Attr::Doc => match attrs::doc(type_name) {
            Some(d) => Obj::Owned(Value::str(d)),
            None => Obj::Owned(Value::None),
        },
        Attr::NoneValue => Obj::Owned(Value::None),
        Attr::Data => data_attr(v, name),
    })
}

/// `real`, `imag`, `numerator`, `denominator` of numbers (bool's are plain ints).
fn data_attr<'b>(v: &'b Value, name: &str) -> Obj<'b> {
    let int = |i: i64| Obj::Owned(Value::Int(PyInt::Small(i)));
    match (v, name) {
        (Value::Bool(b), "real" | "numerator") => int(i64::from(*b)),
        (Value::Int(_) | Value::Float(_), "real") | (Value::Int(_), "numerator") => Obj::Ref(v),
        (Value::Float(_), "imag") => Obj::Owned(Value::Float(0.0)),
        (_, "denominator") => int(1),
        _ => int(0),
    }
}
