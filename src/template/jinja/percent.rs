//! Python's `%` formatting (`fmt % args`, and Jinja2's `format` filter): the conversion flags
//! laid out by printf's rules, which differ from the format-spec mini-language that
//! `crate::py::format` implements (`%.3d` pads the digits to the precision, `%05s` pads with
//! spaces, `*` takes a width from the arguments).

use minijinja::value::Value as JValue;
use minijinja::Error;

use super::errors::{checked_width, py_err, type_error, value_error};
use super::print::{py_repr, py_str};
use super::pyops::{as_int, as_num, is_float};
use super::undefined::py_type_name;
use crate::py::{double_to_string, DtoaFlags};
use crate::template::ErrorKind;

/// The flags, width, precision and type of one `%` conversion.
#[derive(Default, Clone)]
pub(crate) struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
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

/// One numeric conversion `ty` (`d x X o c e E f F g G`) of `v`, signed and padded per `spec`.
fn format_number(v: &JValue, spec: &Spec, ty: char) -> Result<String, Error> {
    let int_val = as_int(v).filter(|_| !is_float(v));
    let (neg, body) = match (ty, int_val) {
        ('d', Some(i)) => (i < 0, i.unsigned_abs().to_string()),
        (c @ ('x' | 'X' | 'o' | 'b'), Some(i)) => {
            let a = i.unsigned_abs();
            let (digits, prefix) = match c {
                'x' => (format!("{a:x}"), "0x"),
                'X' => (format!("{a:X}"), "0X"),
                'o' => (format!("{a:o}"), "0o"),
                _ => (format!("{a:b}"), "0b"),
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
        ('c', Some(i)) => {
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| py_err(ErrorKind::OverflowError, "%c arg not in range(0x110000)"))?;
            (false, c.to_string())
        }
        (c @ ('e' | 'E' | 'f' | 'F' | 'g' | 'G'), _) => {
            let f = as_num(v).ok_or_else(|| type_error("must be real number"))?;
            // CPython's `%` formats floats with the same PyOS_double_to_string as format().
            let flags = DtoaFlags {
                alt: spec.alt,
                ..DtoaFlags::default()
            };
            let precision = spec.precision.unwrap_or(6);
            let body = double_to_string(f.abs(), c, precision, flags).unwrap_or_default();
            (f.is_sign_negative() && !f.is_nan(), body)
        }
        (c, _) => {
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
                body_spec.precision = None;
                let s = format_number(&n, &body_spec, 'd')?;
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
                format_number(&JValue::from(i), &spec, conv)?
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let n = number_arg(&v, conv)?;
                let f = as_num(&n).unwrap_or(0.0);
                format_number(&JValue::from(f), &spec, conv)?
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
