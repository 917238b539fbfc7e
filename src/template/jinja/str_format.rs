//! Python's `format(value, spec)` and `str.format(*args, **kwargs)` on Jinja values.

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::errors::{py_err, type_error};
use super::print::{py_repr, py_str};
use super::pyops::{as_int, as_num, is_float};
use super::undefined::py_type_name;
use crate::py::attrs::{self, Attr};
use crate::py::format::fields::{self, Args, Conversion, FieldValue};
use crate::py::Locate;
use crate::template::ErrorKind;

/// Python's `format(value, spec)`, by the one format-spec mini-language in [`crate::py::format`]:
/// a str, number, bool or None formats as the JSON value it is; any other object has only
/// `object.__format__`.
pub(crate) fn format_value(v: &JValue, spec: &str) -> Result<String, Error> {
    let mut out = String::new();
    match as_py_scalar(v)? {
        Some(scalar) => crate::py::write_format(&mut out, &scalar, spec)?,
        None => crate::py::format::format_object(&mut out, &py_str(v)?, py_type_name(v), spec)?,
    }
    Ok(out)
}

/// `v` as the [`crate::value::Value`] it stands for, when it is a str, number, bool or None.
fn as_py_scalar(v: &JValue) -> Result<Option<crate::value::Value>, Error> {
    use crate::value::{PyInt, Value};
    if let Some(big) = v.downcast_object_ref::<super::convert::BigIntObj>() {
        return Ok(Some(Value::Int(PyInt::Big(big.0.clone()))));
    }
    Ok(match v.kind() {
        ValueKind::None => Some(Value::None),
        ValueKind::Bool => Some(Value::Bool(v.is_true())),
        ValueKind::String => Some(Value::Str(v.as_str().unwrap_or_default().into())),
        ValueKind::Number if is_float(v) => Some(Value::Float(as_num(v).unwrap_or(0.0))),
        ValueKind::Number => {
            let int = match as_int(v).map(i64::try_from) {
                Some(Ok(small)) => PyInt::Small(small),
                // Past i64 (and past i128, for a u128), the decimal text is the exact value.
                _ => match py_str(v)?.parse::<num_bigint::BigInt>() {
                    Ok(big) => PyInt::Big(std::sync::Arc::new(big)),
                    Err(_) => return Ok(None),
                },
            };
            Some(Value::Int(int))
        }
        _ => None,
    })
}

/// Python's `ascii(v)` (strings get their escapes; other values print ASCII already, except
/// non-ASCII text nested in containers, which stays as `repr` shows it).
fn py_ascii(v: &JValue) -> Result<String, Error> {
    match v.as_str() {
        Some(s) => Ok(crate::py::ascii_str(s)),
        None => py_repr(v),
    }
}

/// Strings built by `str.format` longer than this fail with `LimitExceeded`, as other strings
/// a template builds do (`*`, `+`, `replace`).
const MAX_FORMATTED: usize = 32 * 1024 * 1024;

/// `format`'s arguments: the positional ones and the keyword arguments, if any.
struct FormatArgs<'a> {
    positional: &'a [JValue],
    kwargs: Option<&'a JValue>,
}

impl Args for FormatArgs<'_> {
    type Value = JValue;

    fn keyword(&self, name: &str) -> Result<JValue, Error> {
        let v = match self.kwargs {
            Some(k) => k.get_item(&JValue::from(name))?,
            None => JValue::UNDEFINED,
        };
        if v.is_undefined() {
            return Err(py_err(ErrorKind::KeyError, crate::py::repr_str(name)));
        }
        Ok(v)
    }

    fn positional_count(&self) -> Option<usize> {
        Some(self.positional.len())
    }

    fn positional(&self, index: usize) -> JValue {
        self.positional.get(index).cloned().unwrap_or_default()
    }
}

/// Jinja2 leaves positions to the template; a format string's byte range means nothing there.
impl Locate for Error {
    fn or_at(self, _range: std::ops::Range<usize>) -> Error {
        self
    }
}

/// `real`, `imag`, `numerator`, `denominator` of a bool, int or float (a bool's are its int's).
fn number_attr(v: &JValue, name: &str) -> JValue {
    let as_int = || {
        if v.kind() == ValueKind::Bool {
            JValue::from(i64::from(v.is_true()))
        } else {
            v.clone()
        }
    };
    match name {
        "imag" if is_float(v) => JValue::from(0.0),
        "imag" => JValue::from(0),
        "denominator" => JValue::from(1),
        _ => as_int(),
    }
}

fn not_subscriptable(v: &JValue) -> Error {
    type_error(format!("'{}' object is not subscriptable", py_type_name(v)))
}

/// The lookups of a field name on the Python objects Jinja2 passes to `str.format`.
impl FieldValue for JValue {
    type Error = Error;

    /// `getattr`, not Jinja2's attribute-or-item: `'{0.name}'.format(d)` is an `AttributeError`
    /// for a dict with a key `name`, as in Python. The JSON types have exactly the attributes
    /// CPython gives them (`py::attrs`, the table the fstring engine uses); other objects keep
    /// minijinja's attribute lookup.
    fn get_attr(self, name: &str) -> Result<JValue, Error> {
        let type_name = py_type_name(&self);
        let no_attribute = || {
            py_err(
                ErrorKind::AttributeError,
                format!("'{type_name}' object has no attribute '{name}'"),
            )
        };
        if matches!(
            type_name,
            "NoneType" | "bool" | "int" | "float" | "str" | "list" | "dict"
        ) {
            let Some((name, attr)) = attrs::lookup(type_name, name) else {
                return Err(no_attribute());
            };
            return Ok(match attr {
                Attr::Data => number_attr(&self, name),
                Attr::Class => JValue::from(format!("<class '{type_name}'>")),
                Attr::Doc => attrs::doc(type_name).map_or(JValue::from(()), JValue::from),
                Attr::NoneValue => JValue::from(()),
                Attr::Method(_) | Attr::MethodWrapper(_) => {
                    match super::bound::method_of(&self, name) {
                        Some(method) => method,
                        // A method the bound-method table does not model (`int.bit_length`):
                        // what minijinja finds, if anything.
                        None => match JValue::get_attr(&self, name) {
                            Ok(v) if !v.is_undefined() && type_name != "dict" => v,
                            _ => return Err(no_attribute()),
                        },
                    }
                }
            });
        }
        let next = JValue::get_attr(&self, name).unwrap_or_default();
        if next.is_undefined() {
            return Err(no_attribute());
        }
        Ok(next)
    }

    fn get_key(self, key: &str) -> Result<JValue, Error> {
        match self.kind() {
            ValueKind::Seq => Err(type_error(format!(
                "{} indices must be integers or slices, not str",
                py_type_name(&self)
            ))),
            ValueKind::String => Err(type_error("string indices must be integers, not 'str'")),
            ValueKind::None | ValueKind::Bool | ValueKind::Number => Err(not_subscriptable(&self)),
            _ => {
                let next = self.get_item(&JValue::from(key)).unwrap_or_default();
                if next.is_undefined() {
                    return Err(py_err(ErrorKind::KeyError, crate::py::repr_str(key)));
                }
                Ok(next)
            }
        }
    }

    fn get_index(self, index: i64) -> Result<JValue, Error> {
        let out_of_range =
            |what: &str| py_err(ErrorKind::IndexError, format!("{what} index out of range"));
        match self.kind() {
            ValueKind::Seq => {
                let len = self.len().unwrap_or(0);
                match usize::try_from(index) {
                    Ok(i) if i < len => Ok(self.get_item(&JValue::from(i))?),
                    _ => Err(out_of_range(py_type_name(&self))),
                }
            }
            ValueKind::String => {
                let s = self.as_str().unwrap_or_default();
                usize::try_from(index)
                    .ok()
                    .and_then(|i| s.chars().nth(i))
                    .map(|c| JValue::from(c.to_string()))
                    .ok_or_else(|| out_of_range("string"))
            }
            ValueKind::None | ValueKind::Bool | ValueKind::Number => Err(not_subscriptable(&self)),
            _ => {
                let next = self.get_item(&JValue::from(index)).unwrap_or_default();
                if next.is_undefined() {
                    return Err(py_err(ErrorKind::KeyError, index.to_string()));
                }
                Ok(next)
            }
        }
    }

    fn convert(&self, conversion: Conversion) -> Result<String, Error> {
        match conversion {
            Conversion::Str => py_str(self),
            Conversion::Repr => py_repr(self),
            Conversion::Ascii => py_ascii(self),
        }
    }

    fn format_into(&self, out: &mut String, spec: &str) -> Result<(), Error> {
        out.push_str(&format_value(self, spec)?);
        Ok(())
    }
}

/// Python's `str.format(*args, **kwargs)`, by the one format-string implementation in
/// [`crate::py::format::fields`].
pub(crate) fn str_format(
    fmt: &str,
    args: &[JValue],
    kwargs: Option<&JValue>,
) -> Result<String, Error> {
    let args = FormatArgs {
        positional: args,
        kwargs,
    };
    fields::format(fmt, &args, MAX_FORMATTED)
}
