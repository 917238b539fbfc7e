//! Python semantics for values: truthiness, iteration, equality, ordering and the conversions
//! filters need, raising the exceptions Python raises.

use std::cmp::Ordering;

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::errors::type_error;
use super::print::as_f64;
use super::undefined::py_type_name;

/// Python's `bool(v)` (Undefined is falsy).
pub(crate) fn truthy(v: &JValue) -> bool {
    v.is_true()
}

/// Whether `v` is a Python `int` (not `bool`).
pub(crate) fn is_int(v: &JValue) -> bool {
    v.kind() == ValueKind::Number && v.is_integer()
}

pub(crate) fn is_float(v: &JValue) -> bool {
    v.kind() == ValueKind::Number && !v.is_integer()
}

/// A number as `i128` if it is an integral Python number (bools count as 0/1).
pub(crate) fn as_int(v: &JValue) -> Option<i128> {
    match v.kind() {
        ValueKind::Bool => Some(i128::from(v.is_true())),
        ValueKind::Number if v.is_integer() => i128::try_from(v.clone()).ok(),
        _ => None,
    }
}

/// A number (int, float or bool) as `f64`.
pub(crate) fn as_num(v: &JValue) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(if v.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => as_f64(v),
        _ => None,
    }
}

/// An argument that Python would use as an index (`int` or `bool`).
pub(crate) fn index_arg(v: &JValue, what: &str) -> Result<i64, Error> {
    match as_int(v) {
        Some(i) => {
            i64::try_from(i).map_err(|_| type_error("Python int too large to convert to C ssize_t"))
        }
        None if is_float(v) => Err(type_error(format!(
            "'float' object cannot be interpreted as an integer{what}"
        ))),
        None => Err(type_error(format!(
            "'{}' object cannot be interpreted as an integer{what}",
            py_type_name(v)
        ))),
    }
}

/// `list(v)`: strings give characters, dicts their keys, Undefined nothing.
pub(crate) fn py_list(v: &JValue) -> Result<Vec<JValue>, Error> {
    match v.kind() {
        ValueKind::Undefined => Ok(Vec::new()),
        ValueKind::String => Ok(v
            .as_str()
            .unwrap_or_default()
            .chars()
            .map(JValue::from)
            .collect()),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => Ok(v.try_iter()?.collect()),
        _ => Err(not_iterable(v)),
    }
}

pub(crate) fn not_iterable(v: &JValue) -> Error {
    type_error(format!("'{}' object is not iterable", py_type_name(v)))
}

/// The bytes `a == b` touches, for `work.rs`: a fixed cost per comparison, the strings' bytes
/// when their lengths are equal (else they differ at once), a slot per item of two containers.
pub(crate) fn eq_cost(a: &JValue, b: &JValue) -> usize {
    const COMPARE: usize = 32;
    match (a.as_str(), b.as_str()) {
        (Some(x), Some(y)) if x.len() == y.len() => COMPARE + x.len(),
        (Some(_), Some(_)) => COMPARE,
        _ => match (a.kind(), b.kind()) {
            (ValueKind::Seq | ValueKind::Map, ValueKind::Seq | ValueKind::Map) => {
                let n = a.len().unwrap_or(0).min(b.len().unwrap_or(0));
                COMPARE.saturating_mul(n.saturating_add(1))
            }
            _ => COMPARE,
        },
    }
}

/// Python `==`: numbers compare by value across int/float/bool, containers element-wise.
/// Charged to the render's work meter; once that is over its limit, `false` without comparing
/// (the render then fails).
pub(crate) fn py_eq(a: &JValue, b: &JValue) -> bool {
    if !super::work::note(eq_cost(a, b)) {
        return false;
    }
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        if let (Some(i), Some(j)) = (as_int(a), as_int(b)) {
            return i == j;
        }
        return x == y;
    }
    a == b
}

/// Python's `<` ordering, raising TypeError for types Python does not order.
pub(crate) fn py_cmp(a: &JValue, b: &JValue) -> Result<Ordering, Error> {
    if let (Some(i), Some(j)) = (as_int(a), as_int(b)) {
        return Ok(i.cmp(&j));
    }
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        // NaN compares false both ways in Python; sorting then keeps the order it has.
        return Ok(x.partial_cmp(&y).unwrap_or(Ordering::Equal));
    }
    match (a.kind(), b.kind()) {
        (ValueKind::String, ValueKind::String) => {
            let (x, y) = (
                a.as_str().unwrap_or_default(),
                b.as_str().unwrap_or_default(),
            );
            super::work::touch(32 + x.len().min(y.len()))?;
            Ok(x.cmp(y))
        }
        (ValueKind::Seq, ValueKind::Seq) if a.is_tuple() == b.is_tuple() => {
            let xs: Vec<JValue> = a.try_iter()?.collect();
            let ys: Vec<JValue> = b.try_iter()?.collect();
            for (x, y) in xs.iter().zip(ys.iter()) {
                if !py_eq(x, y) {
                    return py_cmp(x, y);
                }
            }
            Ok(xs.len().cmp(&ys.len()))
        }
        _ => Err(type_error(format!(
            "'<' not supported between instances of '{}' and '{}'",
            py_type_name(a),
            py_type_name(b)
        ))),
    }
}

/// Sorts like Python's `sorted` (stable), surfacing the first comparison error.
pub(crate) fn py_sort_by_key(items: &mut [(JValue, JValue)]) -> Result<(), Error> {
    let mut err = None;
    items.sort_by(|(ka, _), (kb, _)| match py_cmp(ka, kb) {
        Ok(o) => o,
        Err(e) => {
            if err.is_none() {
                err = Some(e);
            }
            Ordering::Equal
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Python's `len(v)`.
pub(crate) fn py_len(v: &JValue) -> Result<usize, Error> {
    match v.kind() {
        ValueKind::Undefined => Ok(0),
        ValueKind::String => Ok(v.as_str().unwrap_or_default().chars().count()),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => match v.len() {
            Some(n) => Ok(n),
            None => Ok(v.try_iter()?.count()),
        },
        _ => Err(type_error(format!(
            "object of type '{}' has no len()",
            py_type_name(v)
        ))),
    }
}

/// `environment.getitem(obj, part)` as Jinja2's attribute getters use it: item lookup first,
/// then attribute; a miss gives Undefined.
pub(crate) fn getitem(obj: &JValue, part: &JValue) -> JValue {
    if obj.is_undefined() {
        return JValue::UNDEFINED;
    }
    if let Ok(v) = obj.get_item(part) {
        if !v.is_undefined() {
            return v;
        }
    }
    if let Some(name) = part.as_str() {
        if let Ok(v) = obj.get_attr(name) {
            return v;
        }
    }
    JValue::UNDEFINED
}

/// Jinja2's `_prepare_attribute_parts`: `"a.0.b"` → `["a", 0, "b"]`.
pub(crate) fn attribute_parts(attr: &JValue) -> Vec<JValue> {
    match attr.as_str() {
        Some(s) => s
            .split('.')
            .map(|p| {
                if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) {
                    p.parse::<i64>()
                        .map_or_else(|_| JValue::from(p), JValue::from)
                } else {
                    JValue::from(p)
                }
            })
            .collect(),
        None if attr.is_none() || attr.is_undefined() => Vec::new(),
        None => vec![attr.clone()],
    }
}

pub(crate) fn lookup_path(item: &JValue, parts: &[JValue], default: Option<&JValue>) -> JValue {
    let mut cur = item.clone();
    for part in parts {
        cur = getitem(&cur, part);
        if let Some(d) = default {
            if cur.is_undefined() {
                cur = d.clone();
            }
        }
    }
    cur
}

/// Jinja2's `ignore_case`: lowercases strings, leaves the rest. Charged to the render's work
/// meter; once that is over its limit, the value as it is (the render then fails).
pub(crate) fn ignore_case(v: JValue) -> JValue {
    if !super::work::note(v.as_str().map_or(0, str::len)) {
        return v;
    }
    match v.as_str() {
        Some(s) if !v.is_safe() => JValue::from(s.to_lowercase()),
        Some(s) => JValue::from_safe_string(s.to_lowercase()),
        None => v,
    }
}
