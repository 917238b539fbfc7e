//! `format(value, spec)`: the `__format__` of each JSON type (int, bool, float, str, and
//! `object.__format__` for None, list and dict), with CPython's outputs and error messages.

pub mod fields;
mod number;
mod spec;

use num_traits::Signed;

pub(crate) use self::number::{write_number, Number};
pub(crate) use self::spec::c_char;
use self::spec::parse;
pub(crate) use self::spec::{Grouping, Spec};
use super::dtoa::{double_to_string, DtoaFlags};
use super::error::{check_width, PyError};
use super::value_repr::write_str;
use crate::value::{PyInt, Value};

pub(super) fn push_fill(out: &mut String, fill: char, n: i64) {
    if n > 0 {
        out.extend(std::iter::repeat_n(fill, n as usize));
    }
}

fn value_error(message: impl Into<String>) -> PyError {
    PyError::value_error(message)
}

/// `unknown_presentation_type`.
fn unknown_type(ty: char, type_name: &str) -> PyError {
    value_error(format!(
        "Unknown format code '{}' for object of type '{type_name}'",
        c_char(ty)
    ))
}

/// `object.__format__` of an object that has no formatting of its own: `str(obj)` for an empty
/// spec, else a TypeError naming the type (`NoneType`, `list`, `dict`, `type`, ...).
pub fn format_object(
    out: &mut String,
    text: &str,
    type_name: &str,
    spec: &str,
) -> Result<(), PyError> {
    if !spec.is_empty() {
        return Err(PyError::type_error(format!(
            "unsupported format string passed to {type_name}.__format__"
        )));
    }
    out.push_str(text);
    Ok(())
}

/// Appends `format(v, spec)` to `out`.
pub fn write_format(out: &mut String, v: &Value, spec: &str) -> Result<(), PyError> {
    if spec.is_empty() {
        // Every type's __format__ with an empty spec is str(v) (bool prints 'True', not '1').
        write_str(out, v);
        return Ok(());
    }
    match v {
        Value::Str(s) => format_str(out, s, spec),
        Value::Int(i) => format_int(out, i, "int", spec),
        Value::Bool(b) => format_int(out, &PyInt::Small(i64::from(*b)), "bool", spec),
        Value::Float(x) => {
            let parsed = parse(spec, "float", '\0', '>')?;
            match parsed.ty {
                '\0' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%' => {
                    format_float(out, *x, &parsed)
                }
                t => Err(unknown_type(t, "float")),
            }
        }
        Value::None | Value::List(_) | Value::Dict(_) => {
            format_object(out, "", v.type_name(), spec)
        }
    }
}

/// `format(v, spec)`.
pub fn format(v: &Value, spec: &str) -> Result<String, PyError> {
    let mut out = String::new();
    write_format(&mut out, v, spec)?;
    Ok(out)
}

/// `str.__format__` (`format_string_internal`).
pub fn format_str(out: &mut String, s: &str, spec: &str) -> Result<(), PyError> {
    if spec.is_empty() {
        out.push_str(s);
        return Ok(());
    }
    let spec = parse(spec, "str", 's', '<')?;
    if spec.ty != 's' {
        return Err(unknown_type(spec.ty, "str"));
    }
    if spec.sign == ' ' {
        return Err(value_error("Space not allowed in string format specifier"));
    }
    if spec.sign != '\0' {
        return Err(value_error("Sign not allowed in string format specifier"));
    }
    if spec.no_neg_0 {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in string format specifier",
        ));
    }
    if spec.alternate {
        return Err(value_error(
            "Alternate form (#) not allowed in string format specifier",
        ));
    }
    if spec.align == '=' {
        return Err(value_error(
            "'=' alignment not allowed in string format specifier",
        ));
    }
    // Truncate to `precision` code points, then pad to `width` code points.
    let (text, len) = if spec.precision >= 0 {
        match s.char_indices().nth(spec.precision as usize) {
            Some((cut, _)) => (&s[..cut], spec.precision),
            None => (s, s.chars().count() as i64),
        }
    } else {
        (s, s.chars().count() as i64)
    };
    pad_str(out, text, len, spec.fill, spec.align, spec.width)
}

/// Appends `text` (`len` code points) padded with `fill` to `width` code points: on the left
/// for `align` `>`, on both sides for `^`, else on the right.
pub(crate) fn pad_str(
    out: &mut String,
    text: &str,
    len: i64,
    fill: char,
    align: char,
    width: i64,
) -> Result<(), PyError> {
    let total = width.max(len);
    let lpad = match align {
        '>' => total - len,
        '^' => (total - len) / 2,
        _ => 0,
    };
    let rpad = total - len - lpad;
    if lpad + rpad > 0 {
        check_width(width)?;
    }
    push_fill(out, fill, lpad);
    out.push_str(text);
    push_fill(out, fill, rpad);
    Ok(())
}

/// `int.__format__` (and bool's, which is int's with `type_name` `bool`).
fn format_int(out: &mut String, i: &PyInt, type_name: &str, spec: &str) -> Result<(), PyError> {
    let spec = parse(spec, type_name, 'd', '>')?;
    match spec.ty {
        'b' | 'c' | 'd' | 'o' | 'x' | 'X' | 'n' => format_long(out, i, &spec),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' => format_float(out, int_to_float(i)?, &spec),
        t => Err(unknown_type(t, type_name)),
    }
}

/// `float(int)`: correctly rounded (ties to even), OverflowError past the largest float.
pub fn int_to_float(i: &PyInt) -> Result<f64, PyError> {
    let x = match i {
        PyInt::Small(v) => *v as f64,
        // Decimal text parsing is correctly rounded, exactly like CPython's int-to-float.
        PyInt::Big(b) => b.to_string().parse::<f64>().unwrap_or(f64::INFINITY),
    };
    if x.is_infinite() {
        return Err(PyError::overflow_error("int too large to convert to float"));
    }
    Ok(x)
}

/// `format_long_internal`.
fn format_long(out: &mut String, i: &PyInt, spec: &Spec) -> Result<(), PyError> {
    if spec.precision != -1 {
        return Err(value_error(
            "Precision not allowed in integer format specifier",
        ));
    }
    if spec.no_neg_0 {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in integer format specifier",
        ));
    }
    if spec.ty == 'c' {
        if spec.sign != '\0' {
            return Err(value_error(
                "Sign not allowed with integer format specifier 'c'",
            ));
        }
        if spec.alternate {
            return Err(value_error(
                "Alternate form (#) not allowed with integer format specifier 'c'",
            ));
        }
        let Some(code) = i.as_i64() else {
            return Err(PyError::overflow_error(
                "Python int too large to convert to C long",
            ));
        };
        if !(0..=0x10ffff).contains(&code) {
            return Err(PyError::overflow_error("%c arg not in range(0x110000)"));
        }
        // A lone surrogate (U+D800..U+DFFF) cannot live in a Rust string; CPython would produce
        // one (and fail to encode it later). We print U+FFFD instead.
        let c = char::from_u32(code as u32).unwrap_or('\u{fffd}');
        let mut buf = [0u8; 4];
        let n = Number {
            negative: false,
            prefix: "",
            digits: "",
            has_decimal: false,
            remainder: c.encode_utf8(&mut buf),
        };
        return write_number(out, &n, spec, None, false);
    }
    let (base, prefix) = match spec.ty {
        'b' => (2, "0b"),
        'o' => (8, "0o"),
        'x' | 'X' => (16, "0x"),
        _ => (10, ""),
    };
    let (negative, digits) = match i {
        PyInt::Small(v) => {
            let m = v.unsigned_abs();
            let d = match base {
                2 => format!("{m:b}"),
                8 => format!("{m:o}"),
                16 => format!("{m:x}"),
                _ => m.to_string(),
            };
            (*v < 0, d)
        }
        PyInt::Big(b) => (b.is_negative(), b.magnitude().to_str_radix(base)),
    };
    let n = Number {
        negative,
        prefix: if spec.alternate { prefix } else { "" },
        digits: &digits,
        has_decimal: false,
        remainder: "",
    };
    // 'n' uses the current locale, which is "C" in a Python that never called setlocale: no
    // grouping.
    let sep = if spec.ty == 'n' {
        None
    } else {
        spec.grouping.separator()
    };
    write_number(out, &n, spec, sep, spec.ty == 'X')
}

/// `format_float_internal`.
fn format_float(out: &mut String, x: f64, spec: &Spec) -> Result<(), PyError> {
    if spec.precision > i64::from(i32::MAX) {
        return Err(value_error("precision too big"));
    }
    check_width(spec.precision)?;
    let mut flags = DtoaFlags {
        alt: spec.alternate,
        no_neg_0: spec.no_neg_0,
        add_dot_0: false,
    };
    let mut ty = spec.ty;
    let mut default_precision = 6;
    if ty == '\0' {
        flags.add_dot_0 = true;
        ty = 'r';
        default_precision = 0;
    }
    if ty == 'n' {
        ty = 'g';
    }
    let mut x = x;
    let add_pct = ty == '%';
    if add_pct {
        ty = 'f';
        x *= 100.0;
    }
    let precision = if spec.precision < 0 {
        default_precision
    } else {
        if ty == 'r' {
            ty = 'g';
        }
        spec.precision as usize
    };
    let mut buf = double_to_string(x, ty, precision, flags).unwrap_or_default();
    if add_pct {
        buf.push('%');
    }
    if spec.sign != '+'
        && spec.sign != ' '
        && spec.width == -1
        && spec.ty != 'n'
        && spec.grouping == Grouping::None
    {
        out.push_str(&buf);
        return Ok(());
    }
    let (negative, body) = match buf.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, buf.as_str()),
    };
    let n = Number::float(negative, body);
    let sep = if spec.ty == 'n' {
        None
    } else {
        spec.grouping.separator()
    };
    write_number(out, &n, spec, sep, false)
}

#[cfg(test)]
mod tests;
