//! Python text formatting used by filters and methods: `%` formatting, `format()` specs,
//! `str.format`, `json.dumps`, `pprint.pformat`, `textwrap.wrap` and `html.unescape`.

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::errors::{py_err, type_error, value_error};
use super::print::{py_repr, py_str, write_repr};
use super::pyops::{as_int, as_num, is_float, py_cmp};
use super::undefined::py_type_name;
use crate::py::float_repr;
use crate::template::ErrorKind;

/// A parsed format spec (`format()` mini-language; `%` conversions map onto it).
#[derive(Default, Clone)]
pub(crate) struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alt: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

/// `w` when within [`crate::py::MAX_WIDTH`], else `LimitExceeded`.
pub(crate) fn checked_width(w: usize) -> Result<usize, Error> {
    crate::py::check_width(i64::try_from(w).unwrap_or(i64::MAX))?;
    Ok(w)
}

fn group(digits: &str, sep: char, every: usize) -> String {
    let mut out = String::new();
    let n = digits.len();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// `%e`-style exponent: at least two digits with a sign.
fn fix_exp(s: &str, upper: bool) -> String {
    let Some((m, e)) = s.split_once('e') else {
        return s.to_owned();
    };
    let (sign, digits) = match e.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', e),
    };
    let e_char = if upper { 'E' } else { 'e' };
    format!("{m}{e_char}{sign}{digits:0>2}")
}

fn fmt_exp(f: f64, prec: usize, upper: bool, alt: bool) -> String {
    let s = crate::py::format_exp(f, prec);
    let mut s = fix_exp(&s, upper);
    if alt && prec == 0 {
        if let Some(pos) = s.find(['e', 'E']) {
            s.insert(pos, '.');
        }
    }
    s
}

/// C's `%g`.
fn fmt_general(f: f64, prec: usize, upper: bool, alt: bool) -> String {
    let p = if prec == 0 { 1 } else { prec };
    if f == 0.0 {
        let mut s = if alt {
            crate::py::format_fixed(0.0, p - 1)
        } else {
            "0".to_owned()
        };
        if f.is_sign_negative() {
            s.insert(0, '-');
        }
        return s;
    }
    let e_form = crate::py::format_exp(f, p - 1);
    let exp: i32 = e_form
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut s = if exp < -4 || exp >= p as i32 {
        fix_exp(&e_form, upper)
    } else {
        crate::py::format_fixed(f, (p as i32 - 1 - exp).max(0) as usize)
    };
    if !alt {
        // Strip trailing zeros of the fraction (before any exponent).
        let (mant, exp_part) = match s.find(['e', 'E']) {
            Some(pos) => (s[..pos].to_owned(), s[pos..].to_owned()),
            None => (s.clone(), String::new()),
        };
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            mant
        };
        s = mant + &exp_part;
    }
    s
}

fn special_float(f: f64, upper: bool) -> Option<String> {
    let s = if f.is_nan() {
        "nan"
    } else if f.is_infinite() {
        if f > 0.0 {
            "inf"
        } else {
            "-inf"
        }
    } else {
        return None;
    };
    Some(if upper {
        s.to_uppercase()
    } else {
        s.to_owned()
    })
}

fn pad(body: String, sign: &str, spec: &Spec, default_align: char, numeric: bool) -> String {
    let len = body.chars().count() + sign.chars().count();
    let align = spec.align.unwrap_or(if spec.zero && numeric {
        '='
    } else {
        default_align
    });
    let fill = spec
        .fill
        .unwrap_or(if spec.zero && numeric && spec.align.is_none() {
            '0'
        } else {
            ' '
        });
    if len >= spec.width {
        return format!("{sign}{body}");
    }
    let n = spec.width - len;
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    match align {
        '<' => format!("{sign}{body}{}", fills(n)),
        '^' => format!("{}{sign}{body}{}", fills(n / 2), fills(n - n / 2)),
        '=' => format!("{sign}{}{body}", fills(n)),
        _ => format!("{}{sign}{body}", fills(n)),
    }
}

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

fn format_number(v: &JValue, spec: &Spec) -> Result<String, Error> {
    let ty = spec.ty;
    let int_val = as_int(v).filter(|_| !is_float(v));
    let (neg, body) = match (ty, int_val) {
        (None | Some('d' | 'n'), Some(i)) if v.kind() != ValueKind::Bool || ty.is_some() => {
            let digits = i.unsigned_abs().to_string();
            (
                i < 0,
                match spec.grouping {
                    Some(g) => group(&digits, g, 3),
                    None => digits,
                },
            )
        }
        (None, Some(_)) => (false, py_str(v)?),
        (Some(c @ ('x' | 'X' | 'o' | 'b')), Some(i)) => {
            let a = i.unsigned_abs();
            let (digits, prefix) = match c {
                'x' => (format!("{a:x}"), "0x"),
                'X' => (format!("{a:X}"), "0X"),
                'o' => (format!("{a:o}"), "0o"),
                _ => (format!("{a:b}"), "0b"),
            };
            let digits = match spec.grouping {
                Some(g) => group(&digits, g, 4),
                None => digits,
            };
            (
                i < 0,
                if spec.alt {
                    format!("{prefix}{digits}")
                } else {
                    digits
                },
            )
        }
        (Some('c'), Some(i)) => {
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| py_err(ErrorKind::OverflowError, "%c arg not in range(0x110000)"))?;
            (false, c.to_string())
        }
        (Some(c @ ('x' | 'X' | 'o' | 'b' | 'c' | 'd')), None) => {
            return Err(value_error(format!(
                "Unknown format code '{c}' for object of type '{}'",
                py_type_name(v)
            )))
        }
        (Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%'), _) | (None, None) => {
            let f = as_num(v).ok_or_else(|| type_error("must be real number"))?;
            let upper = c_upper(c_or(ty));
            let body = if let Some(s) = special_float(f.abs(), upper) {
                s
            } else {
                let prec = spec.precision;
                match ty {
                    Some('e' | 'E') => fmt_exp(f.abs(), prec.unwrap_or(6), upper, spec.alt),
                    Some('f' | 'F') => crate::py::format_fixed(f.abs(), prec.unwrap_or(6)),
                    Some('%') => crate::py::format_fixed(f.abs() * 100.0, prec.unwrap_or(6)) + "%",
                    Some(_) => fmt_general(f.abs(), prec.unwrap_or(6), upper, spec.alt),
                    None => match prec {
                        Some(p) => {
                            let g = fmt_general(f.abs(), p, false, spec.alt);
                            if g.contains(['.', 'e', 'n', 'i']) {
                                g
                            } else {
                                g + ".0"
                            }
                        }
                        None => float_repr(f.abs()),
                    },
                }
            };
            let body = match spec.grouping {
                Some(g) if !body.contains(['e', 'n', 'i']) => {
                    let (int_part, frac) = match body.find('.') {
                        Some(p) => (&body[..p], &body[p..]),
                        None => (&body[..], ""),
                    };
                    group(int_part, g, 3) + frac
                }
                _ => body,
            };
            (f.is_sign_negative() && !f.is_nan(), body)
        }
        (Some(c), _) => {
            return Err(value_error(format!(
                "Unknown format code '{c}' for object of type '{}'",
                py_type_name(v)
            )))
        }
    };
    let sign = if neg {
        "-"
    } else {
        match spec.sign {
            Some('+') => "+",
            Some(' ') => " ",
            _ => "",
        }
    };
    Ok(pad(body, sign, spec, '>', true))
}

fn c_or(ty: Option<char>) -> char {
    ty.unwrap_or('g')
}

fn c_upper(c: char) -> bool {
    c.is_ascii_uppercase()
}

/// `fmt % tuple(args)`.
pub(crate) fn percent_format(fmt: &str, args: &[JValue]) -> Result<String, Error> {
    percent_impl(fmt, Args::Positional(args, 0))
}

/// `fmt % mapping`.
pub(crate) fn percent_format_map(fmt: &str, map: &JValue) -> Result<String, Error> {
    percent_impl(fmt, Args::Map(map))
}

enum Args<'a> {
    Positional(&'a [JValue], usize),
    Map(&'a JValue),
}

impl Args<'_> {
    fn next(&mut self) -> Result<JValue, Error> {
        match self {
            Args::Positional(args, pos) => {
                let v = args
                    .get(*pos)
                    .cloned()
                    .ok_or_else(|| type_error("not enough arguments for format string"))?;
                *pos += 1;
                Ok(v)
            }
            Args::Map(m) => Ok((*m).clone()),
        }
    }
}

fn percent_impl(fmt: &str, mut args: Args<'_>) -> Result<String, Error> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut value: Option<JValue> = None;
        if chars.get(i) == Some(&'(') {
            let mut depth = 1;
            let start = i + 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(value_error("incomplete format key"));
            }
            let key: String = chars[start..i - 1].iter().collect();
            let Args::Map(m) = &args else {
                return Err(type_error("format requires a mapping"));
            };
            let v = m.get_item(&JValue::from(key.as_str()))?;
            if v.is_undefined() {
                return Err(py_err(ErrorKind::KeyError, format!("'{key}'")));
            }
            value = Some(v);
        }
        let mut spec = Spec::default();
        let mut left = false;
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => left = true,
                '+' => spec.sign = Some('+'),
                ' ' => {
                    if spec.sign.is_none() {
                        spec.sign = Some(' ')
                    }
                }
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if chars.get(i) == Some(&'*') {
            let w = args.next()?;
            let w = as_int(&w).ok_or_else(|| type_error("* wants int"))?;
            if w < 0 {
                left = true;
            }
            spec.width = checked_width(usize::try_from(w.unsigned_abs()).unwrap_or(usize::MAX))?;
            i += 1;
        } else {
            let start = i;
            while chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
            let w: String = chars[start..i].iter().collect();
            spec.width = if w.is_empty() {
                0
            } else {
                checked_width(w.parse::<usize>().unwrap_or(usize::MAX))?
            };
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            if chars.get(i) == Some(&'*') {
                let p = args.next()?;
                spec.precision = Some(
                    as_int(&p)
                        .unwrap_or(0)
                        .clamp(0, i128::from(crate::py::MAX_WIDTH)) as usize,
                );
                i += 1;
            } else {
                let start = i;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                let p: String = chars[start..i].iter().collect();
                spec.precision = Some(if p.is_empty() {
                    0
                } else {
                    checked_width(p.parse::<usize>().unwrap_or(usize::MAX))?
                });
            }
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            return Err(value_error("incomplete format"));
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let v = match value.take() {
            Some(v) => v,
            None => args.next()?,
        };
        if left {
            spec.align = Some('<');
            spec.zero = false;
        }
        let piece = match conv {
            's' | 'r' | 'a' => {
                let mut s = if conv == 's' {
                    py_str(&v)?
                } else {
                    py_repr(&v)?
                };
                if conv == 'a' {
                    s = crate::py::ascii_str(&s);
                    s = s[1..s.len().saturating_sub(1)].to_owned();
                }
                if let Some(p) = spec.precision {
                    s = s.chars().take(p).collect();
                }
                spec.zero = false;
                pad(s, "", &spec, if left { '<' } else { '>' }, false)
            }
            'd' | 'i' | 'u'
                if v.downcast_object_ref::<super::convert::BigIntObj>()
                    .is_some() =>
            {
                let mut s = spec.clone();
                s.zero = false;
                pad(py_str(&v)?, "", &s, if left { '<' } else { '>' }, false)
            }
            'd' | 'i' | 'u' => {
                let n = number_arg(&v, conv)?;
                let n = match as_int(&n) {
                    Some(i) => JValue::from(i),
                    None => JValue::from(as_num(&n).map_or(0, |f| f.trunc() as i128)),
                };
                let mut body_spec = spec.clone();
                body_spec.ty = Some('d');
                body_spec.precision = None;
                let s = format_number(&n, &body_spec)?;
                apply_int_precision(s, spec.precision)
            }
            'x' | 'X' | 'o' => {
                let n = number_arg(&v, conv)?;
                let Some(i) = as_int(&n) else {
                    return Err(type_error(format!(
                        "%{conv} format: an integer is required, not {}",
                        py_type_name(&v)
                    )));
                };
                let mut body_spec = spec.clone();
                body_spec.ty = Some(conv);
                format_number(&JValue::from(i), &body_spec)?
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let n = number_arg(&v, conv)?;
                let f = as_num(&n).unwrap_or(0.0);
                let mut body_spec = spec.clone();
                body_spec.ty = Some(conv);
                if body_spec.precision.is_none() {
                    body_spec.precision = Some(6);
                }
                format_number(&JValue::from(f), &body_spec)?
            }
            'c' => {
                let s = match (v.as_str(), as_int(&v)) {
                    (Some(s), _) if s.chars().count() == 1 => s.to_owned(),
                    (None, Some(i)) => u32::try_from(i)
                        .ok()
                        .and_then(char::from_u32)
                        .map(String::from)
                        .ok_or_else(|| {
                            py_err(ErrorKind::OverflowError, "%c arg not in range(0x110000)")
                        })?,
                    _ => return Err(type_error("%c requires int or char")),
                };
                spec.zero = false;
                pad(s, "", &spec, '>', false)
            }
            other => {
                return Err(value_error(format!(
                    "unsupported format character '{other}' (0x{:x}) at index {}",
                    other as u32,
                    i - 1
                )))
            }
        };
        out.push_str(&piece);
    }
    if let Args::Positional(args, pos) = args {
        if pos < args.len() {
            return Err(type_error(
                "not all arguments converted during string formatting",
            ));
        }
    }
    Ok(out)
}

/// Python's `ascii(v)` (strings get their escapes; other values print ASCII already, except
/// non-ASCII text nested in containers, which stays as `repr` shows it).
fn py_ascii(v: &JValue) -> Result<String, Error> {
    match v.as_str() {
        Some(s) => Ok(crate::py::ascii_str(s)),
        None => py_repr(v),
    }
}

fn number_arg(v: &JValue, conv: char) -> Result<JValue, Error> {
    if as_num(v).is_some() {
        return Ok(v.clone());
    }
    if v.downcast_object_ref::<super::convert::BigIntObj>()
        .is_some()
    {
        return Err(py_err(
            ErrorKind::OverflowError,
            "int too large to convert to float",
        ));
    }
    let what = if matches!(conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o')
        && conv != 'd'
        && conv != 'i'
        && conv != 'u'
    {
        "an integer is required"
    } else if matches!(conv, 'e' | 'E' | 'f' | 'F' | 'g' | 'G') {
        return Err(type_error(format!(
            "must be real number, not {}",
            py_type_name(v)
        )));
    } else {
        "a real number is required"
    };
    Err(type_error(format!(
        "%{conv} format: {what}, not {}",
        py_type_name(v)
    )))
}

/// `%.3d` pads the digits with zeros to the precision.
fn apply_int_precision(s: String, precision: Option<usize>) -> String {
    let Some(p) = precision else { return s };
    let trimmed = s.trim_start();
    let lead = &s[..s.len() - trimmed.len()];
    let (sign, digits) = match trimmed.strip_prefix(['-', '+']) {
        Some(d) => (&trimmed[..1], d),
        None => ("", trimmed),
    };
    if digits.len() >= p {
        return s;
    }
    format!("{lead}{sign}{}{digits}", "0".repeat(p - digits.len()))
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

/// `json.dumps(v, sort_keys=True, indent=indent)` with Python's defaults (ASCII output).
pub(crate) fn json_dumps(v: &JValue, indent: Option<&str>) -> Result<String, Error> {
    let mut out = String::new();
    json_write(&mut out, v, indent, 0)?;
    Ok(out)
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_owned()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        float_repr(f)
    }
}

fn json_key(k: &JValue) -> Result<String, Error> {
    Ok(match k.kind() {
        ValueKind::String => k.as_str().unwrap_or_default().to_owned(),
        ValueKind::Bool => if k.is_true() { "true" } else { "false" }.to_owned(),
        ValueKind::None => "null".to_owned(),
        ValueKind::Number if is_float(k) => json_float(as_num(k).unwrap_or(0.0)),
        ValueKind::Number => py_str(k)?,
        _ => {
            return Err(type_error(format!(
                "keys must be str, int, float, bool or None, not {}",
                py_type_name(k)
            )))
        }
    })
}

fn json_write(
    out: &mut String,
    v: &JValue,
    indent: Option<&str>,
    depth: usize,
) -> Result<(), Error> {
    if depth > 200 {
        return Err(super::errors::limit("value nested too deeply for tojson"));
    }
    let newline = |out: &mut String, d: usize| {
        if let Some(ind) = indent {
            out.push('\n');
            for _ in 0..d {
                out.push_str(ind);
            }
        }
    };
    let item_sep = if indent.is_some() { "," } else { ", " };
    match v.kind() {
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if v.is_true() { "true" } else { "false" }),
        ValueKind::Number if is_float(v) => out.push_str(&json_float(as_num(v).unwrap_or(0.0))),
        ValueKind::Number => out.push_str(&py_str(v)?),
        ValueKind::String => json_str(out, v.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable if py_type_name(v) != "range" => {
            let items: Vec<JValue> = v.try_iter()?.collect();
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(out, depth + 1);
                json_write(out, item, indent, depth + 1)?;
            }
            newline(out, depth);
            out.push(']');
        }
        ValueKind::Map if py_type_name(v) == "dict" => {
            let mut pairs: Vec<(JValue, JValue)> = Vec::new();
            for k in v.try_iter()? {
                let val = v.get_item(&k)?;
                pairs.push((k, val));
            }
            if pairs.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            let mut err = None;
            pairs.sort_by(|a, b| {
                py_cmp(&a.0, &b.0).unwrap_or_else(|e| {
                    err.get_or_insert(e);
                    std::cmp::Ordering::Equal
                })
            });
            if let Some(e) = err {
                return Err(e);
            }
            out.push('{');
            for (i, (k, val)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(out, depth + 1);
                json_str(out, &json_key(k)?);
                out.push_str(": ");
                json_write(out, val, indent, depth + 1)?;
            }
            newline(out, depth);
            out.push('}');
        }
        _ => {
            let name = match v.kind() {
                ValueKind::Undefined => "Undefined",
                _ => py_type_name(v),
            };
            let short = name.rsplit('.').next().unwrap_or(name);
            return Err(type_error(format!(
                "Object of type {short} is not JSON serializable"
            )));
        }
    }
    Ok(())
}

/// `pprint.pformat(v)`: width 80, dict keys sorted.
pub(crate) fn pformat(v: &JValue) -> Result<String, Error> {
    let mut out = String::new();
    pp_format(&mut out, v, 0, 0, 1)?;
    Ok(out)
}

/// `pprint`'s `_safe_repr`: like repr but with sorted dict keys throughout.
fn safe_repr(v: &JValue, depth: usize) -> Result<String, Error> {
    if depth > 200 {
        return Err(super::errors::limit("value nested too deeply for pprint"));
    }
    match v.kind() {
        ValueKind::Map if py_type_name(v) == "dict" => {
            let items = sorted_items(v)?;
            let parts: Result<Vec<String>, Error> = items
                .iter()
                .map(|(k, val)| {
                    Ok(format!(
                        "{}: {}",
                        safe_repr(k, depth + 1)?,
                        safe_repr(val, depth + 1)?
                    ))
                })
                .collect();
            Ok(format!("{{{}}}", parts?.join(", ")))
        }
        ValueKind::Seq if py_type_name(v) == "list" || v.is_tuple() => {
            let items: Vec<JValue> = v.try_iter()?.collect();
            let parts: Result<Vec<String>, Error> =
                items.iter().map(|i| safe_repr(i, depth + 1)).collect();
            let parts = parts?;
            if v.is_tuple() {
                if parts.len() == 1 {
                    Ok(format!("({},)", parts[0]))
                } else {
                    Ok(format!("({})", parts.join(", ")))
                }
            } else {
                Ok(format!("[{}]", parts.join(", ")))
            }
        }
        _ => {
            let mut s = String::new();
            write_repr(&mut s, v, depth)?;
            Ok(s)
        }
    }
}

fn sorted_items(v: &JValue) -> Result<Vec<(JValue, JValue)>, Error> {
    let mut items = Vec::new();
    for k in v.try_iter()? {
        let val = v.get_item(&k)?;
        items.push((k, val));
    }
    // pprint's `_safe_key` falls back to ordering by type name when values do not compare.
    items.sort_by(|a, b| {
        py_cmp(&a.0, &b.0).unwrap_or_else(|_| py_type_name(&a.0).cmp(py_type_name(&b.0)))
    });
    Ok(items)
}

const WIDTH: usize = 80;

fn pp_format(
    out: &mut String,
    v: &JValue,
    indent: usize,
    allowance: usize,
    level: usize,
) -> Result<(), Error> {
    let rep = safe_repr(v, 0)?;
    let max_width = WIDTH.saturating_sub(indent).saturating_sub(allowance);
    if rep.chars().count() <= max_width || level > 100 {
        out.push_str(&rep);
        return Ok(());
    }
    match v.kind() {
        ValueKind::Map if py_type_name(v) == "dict" => {
            out.push('{');
            let items = sorted_items(v)?;
            let ind = indent + 1;
            let last_index = items.len().saturating_sub(1);
            for (i, (k, val)) in items.iter().enumerate() {
                let last = i == last_index;
                let krep = safe_repr(k, 0)?;
                out.push_str(&krep);
                out.push_str(": ");
                pp_format(
                    out,
                    val,
                    ind + krep.chars().count() + 2,
                    if last { allowance + 1 } else { 1 },
                    level + 1,
                )?;
                if !last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(ind));
                }
            }
            out.push('}');
        }
        ValueKind::Seq if py_type_name(v) == "list" || v.is_tuple() => {
            let items: Vec<JValue> = v.try_iter()?.collect();
            let (open, close) = if v.is_tuple() {
                ("(", if items.len() == 1 { ",)" } else { ")" })
            } else {
                ("[", "]")
            };
            out.push_str(open);
            let ind = indent + 1;
            let allowance = allowance + close.len();
            for (i, item) in items.iter().enumerate() {
                let last = i + 1 == items.len();
                if i > 0 {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(ind));
                }
                pp_format(out, item, ind, if last { allowance } else { 1 }, level + 1)?;
            }
            out.push_str(close);
        }
        ValueKind::String if !v.is_safe() => pp_str(
            out,
            v.as_str().unwrap_or_default(),
            indent,
            allowance,
            level,
        ),
        _ => out.push_str(&rep),
    }
    Ok(())
}

fn pp_str(out: &mut String, s: &str, indent: usize, allowance: usize, level: usize) {
    let repr = crate::py::repr_str;
    if s.is_empty() {
        out.push_str(&repr(s));
        return;
    }
    let (indent, allowance) = if level == 1 {
        (indent + 1, allowance + 1)
    } else {
        (indent, allowance)
    };
    let lines = crate::py::str_methods::splitlines(s, true);
    let max_width = WIDTH.saturating_sub(indent);
    let mut max_width1 = max_width;
    let mut chunks = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let rep = repr(line);
        if i + 1 == lines.len() {
            max_width1 = max_width1.saturating_sub(allowance);
        }
        if rep.chars().count() <= max_width1 {
            chunks.push(rep);
        } else {
            let parts = split_space_runs(line);
            let mut max_width2 = max_width;
            let mut current = String::new();
            for (j, part) in parts.iter().enumerate() {
                let candidate = format!("{current}{part}");
                if j + 1 == parts.len() && i + 1 == lines.len() {
                    max_width2 = max_width2.saturating_sub(allowance);
                }
                if repr(&candidate).chars().count() > max_width2 {
                    if !current.is_empty() {
                        chunks.push(repr(&current));
                    }
                    current = part.clone();
                } else {
                    current = candidate;
                }
            }
            if !current.is_empty() {
                chunks.push(repr(&current));
            }
        }
    }
    if chunks.len() == 1 {
        out.push_str(&chunks[0]);
        return;
    }
    if level == 1 {
        out.push('(');
    }
    for (i, c) in chunks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(c);
    }
    if level == 1 {
        out.push(')');
    }
}

/// `re.findall(r'\S*\s*', line)` without the trailing empty match.
fn split_space_runs(line: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut in_space = false;
    for c in line.chars() {
        let space = crate::py::str_methods::is_space(c);
        if !space && in_space {
            parts.push(std::mem::take(&mut cur));
            in_space = false;
        }
        if space {
            in_space = true;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}
