//! `str()`, `repr()` and `ascii()` of every JSON value, as Python prints the objects
//! `json.loads` builds (`None`, `True`, `[1, 'a']`, `{'k': 2.5}`).

use super::float_repr;
use super::strings::{push_ascii_escaped, push_quoted};
use crate::value::Value;

/// Appends `repr(v)` to `out`.
pub fn write_repr(out: &mut String, v: &Value) {
    match v {
        Value::Str(s) => push_quoted(out, s, false),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Dict(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_quoted(out, k, false);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
        scalar => write_str(out, scalar),
    }
}

/// Appends `str(v)` to `out`: the text itself for strings, `repr` for containers.
pub fn write_str(out: &mut String, v: &Value) {
    match v {
        Value::None => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(i) => {
            use std::fmt::Write;
            // Writing into a String cannot fail.
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => out.push_str(s),
        Value::List(_) | Value::Dict(_) => write_repr(out, v),
    }
}

/// Appends `ascii(v)` to `out`.
pub fn write_ascii(out: &mut String, v: &Value) {
    match v {
        Value::Str(s) => push_quoted(out, s, true),
        Value::List(_) | Value::Dict(_) => push_ascii_escaped(out, &repr(v)),
        // Scalars other than strings print in pure ASCII.
        scalar => write_str(out, scalar),
    }
}

/// `repr(v)`.
pub fn repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, v);
    out
}

/// `str(v)`.
pub fn to_str(v: &Value) -> String {
    let mut out = String::new();
    write_str(&mut out, v);
    out
}

/// `ascii(v)`.
pub fn ascii(v: &Value) -> String {
    let mut out = String::new();
    write_ascii(&mut out, v);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(json: &str) -> Value {
        Value::from_json_str(json).expect("valid json")
    }

    #[test]
    fn prints_like_cpython() {
        // Each expectation printed by python3.11 for json.loads(<json>).
        let x = v(r#"[1, "a", null, true, 2.5, {"k": ["it's", "中"]}, -0.0, 1e400]"#);
        assert_eq!(
            repr(&x),
            r#"[1, 'a', None, True, 2.5, {'k': ["it's", '中']}, -0.0, inf]"#
        );
        assert_eq!(to_str(&x), repr(&x));
        assert_eq!(
            ascii(&x),
            r#"[1, 'a', None, True, 2.5, {'k': ["it's", '\u4e2d']}, -0.0, inf]"#
        );
        assert_eq!(to_str(&v(r#""中\n""#)), "中\n");
        assert_eq!(repr(&v(r#""中\n""#)), "'中\\n'");
        assert_eq!(ascii(&v(r#""é""#)), "'\\xe9'");
        assert_eq!(
            to_str(&v("123456789012345678901234567890")),
            "123456789012345678901234567890"
        );
        assert_eq!(to_str(&v("{}")), "{}");
        assert_eq!(repr(&v("null")), "None");
        assert_eq!(ascii(&v("false")), "False");
    }
}
