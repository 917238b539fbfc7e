//! Python's `format(value, spec)` and `str.format(*args, **kwargs)` on Jinja values.

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::errors::{py_err, value_error};
use super::print::{py_repr, py_str};
use super::pyops::{as_int, as_num, is_float};
use super::undefined::py_type_name;
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

/// Python's `str.format(*args, **kwargs)` for `{}`, `{0}`, `{name}`, `{x.attr}`, `{x[0]}`,
/// conversions `!r`/`!s` and format specs.
pub(crate) fn str_format(
    fmt: &str,
    args: &[JValue],
    kwargs: Option<&JValue>,
) -> Result<String, Error> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut auto = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            if chars.get(i + 1) == Some(&'{') {
                out.push('{');
                i += 2;
                continue;
            }
            let start = i + 1;
            let mut depth = 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(value_error("expected '}' before end of string"));
            }
            let field: String = chars[start..i - 1].iter().collect();
            let (field, spec) = match field.find(':') {
                Some(p) => (field[..p].to_owned(), field[p + 1..].to_owned()),
                None => (field, String::new()),
            };
            let (field, conv) = match field.find('!') {
                Some(p) => (field[..p].to_owned(), Some(field[p + 1..].to_owned())),
                None => (field, None),
            };
            let spec = if spec.contains('{') {
                str_format(&spec, args, kwargs)?
            } else {
                spec
            };
            let name_end = field.find(['.', '[']).unwrap_or(field.len());
            let name = &field[..name_end];
            let mut v = if name.is_empty() {
                let v = args.get(auto).cloned().ok_or_else(|| {
                    py_err(
                        ErrorKind::IndexError,
                        format!("Replacement index {auto} out of range for positional args tuple"),
                    )
                })?;
                auto += 1;
                v
            } else if let Ok(idx) = name.parse::<usize>() {
                args.get(idx).cloned().ok_or_else(|| {
                    py_err(
                        ErrorKind::IndexError,
                        format!("Replacement index {idx} out of range for positional args tuple"),
                    )
                })?
            } else {
                let v = kwargs
                    .map(|k| k.get_item(&JValue::from(name)))
                    .transpose()?
                    .unwrap_or_default();
                if v.is_undefined() {
                    return Err(py_err(ErrorKind::KeyError, format!("'{name}'")));
                }
                v
            };
            let mut rest = &field[name_end..];
            while !rest.is_empty() {
                if let Some(r) = rest.strip_prefix('.') {
                    let end = r.find(['.', '[']).unwrap_or(r.len());
                    let attr = &r[..end];
                    let next = v.get_attr(attr).unwrap_or_default();
                    if next.is_undefined() {
                        return Err(py_err(
                            ErrorKind::AttributeError,
                            format!("'{}' object has no attribute '{attr}'", py_type_name(&v)),
                        ));
                    }
                    v = next;
                    rest = &r[end..];
                } else if let Some(r) = rest.strip_prefix('[') {
                    let end = r
                        .find(']')
                        .ok_or_else(|| value_error("Missing ']' in format string"))?;
                    let key = &r[..end];
                    let k = key
                        .parse::<i64>()
                        .map_or_else(|_| JValue::from(key), JValue::from);
                    let next = v.get_item(&k).unwrap_or_default();
                    if next.is_undefined() {
                        return Err(py_err(ErrorKind::KeyError, py_repr(&k)?));
                    }
                    v = next;
                    rest = &r[end + 1..];
                } else {
                    break;
                }
            }
            let v = match conv.as_deref() {
                Some("r") => JValue::from(py_repr(&v)?),
                Some("s") => JValue::from(py_str(&v)?),
                Some("a") => JValue::from(py_ascii(&v)?),
                Some(other) => {
                    return Err(value_error(format!("Unknown conversion specifier {other}")))
                }
                None => v,
            };
            out.push_str(&format_value(&v, &spec)?);
        } else if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(value_error("Single '}' encountered in format string"));
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}
