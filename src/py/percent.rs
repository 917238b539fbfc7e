//! Python's `%` formatting (`fmt % args`, and Jinja2's `format` filter) over any engine's values
//! ([`PyObject`]): printf's conversion flags, which differ from the format-spec mini-language
//! (`%.3d` pads the digits to the precision, `%05s` pads with spaces, `*` takes a width from
//! the arguments), laid out by the same padding code as `format()` ([`super::format`]).

use num_bigint::BigInt;
use num_traits::FromPrimitive;

use super::dtoa::{double_to_string, DtoaFlags};
use super::error::{check_width, PyError, PyErrorKind, MAX_WIDTH};
use super::format::{pad_str, write_number, Grouping, Number, Spec};
use super::object::{repr_of, str_of, Kind, PyObject};
use super::strings::{push_ascii_escaped, repr_str};

/// The right operand of `%`: a tuple's items, or a mapping for `%(key)s`.
pub enum PercentArgs<'a, V> {
    Tuple(&'a [V]),
    Mapping(&'a V),
}

/// `fmt % args`.
pub fn percent_format<V: PyObject + Clone>(
    fmt: &str,
    args: PercentArgs<'_, V>,
) -> Result<String, V::Error> {
    let mut args = Args { args, pos: 0 };
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut value: Option<V> = None;
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
                return Err(PyError::value_error("incomplete format key").into());
            }
            let key: String = chars[start..i - 1].iter().collect();
            let PercentArgs::Mapping(m) = &args.args else {
                return Err(PyError::type_error("format requires a mapping").into());
            };
            match m.get_str_key(&key)? {
                Some(v) => value = Some(v),
                None => return Err(PyError::new(PyErrorKind::KeyError, repr_str(&key)).into()),
            }
        }
        let mut flags = Flags::default();
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => flags.left = true,
                '+' => flags.sign = '+',
                ' ' => {
                    if flags.sign == '\0' {
                        flags.sign = ' '
                    }
                }
                '#' => flags.alt = true,
                '0' => flags.zero = true,
                _ => break,
            }
            i += 1;
        }
        if chars.get(i) == Some(&'*') {
            let w = args.next()?;
            let w = as_int(&w.kind()).ok_or_else(|| PyError::type_error("* wants int"))?;
            if w < 0 {
                flags.left = true;
            }
            flags.width = checked(i64::try_from(w.unsigned_abs()).unwrap_or(i64::MAX))?;
            i += 1;
        } else {
            let start = i;
            while chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
            flags.width = read_number(&chars[start..i])?;
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            if chars.get(i) == Some(&'*') {
                let p = args.next()?;
                let p = as_int(&p.kind()).unwrap_or(0);
                flags.precision = Some(p.clamp(0, i128::from(MAX_WIDTH)) as i64);
                i += 1;
            } else {
                let start = i;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                flags.precision = Some(read_number(&chars[start..i])?);
            }
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            return Err(PyError::value_error("incomplete format").into());
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
        if flags.left {
            flags.zero = false;
        }
        match conv {
            's' | 'r' | 'a' => {
                let s = if conv == 's' {
                    str_of(&v)?
                } else {
                    repr_of(&v)?
                };
                let s = if conv == 'a' {
                    let mut escaped = String::with_capacity(s.len());
                    push_ascii_escaped(&mut escaped, &s);
                    escaped
                } else {
                    s
                };
                flags.write_text(&mut out, &s)?;
            }
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                let int = int_arg(&v, conv)?;
                flags.write_int(&mut out, &int, conv)?;
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let x = float_arg(&v)?;
                flags.write_float(&mut out, x, conv)?;
            }
            'c' => {
                let s = match v.kind() {
                    Kind::Str(s) if s.chars().count() == 1 => s.to_owned(),
                    Kind::Str(_) => {
                        return Err(PyError::type_error("%c requires int or char").into())
                    }
                    k => match as_int(&k) {
                        Some(i) => u32::try_from(i)
                            .ok()
                            .and_then(char::from_u32)
                            .map(String::from)
                            .ok_or_else(|| {
                                PyError::overflow_error("%c arg not in range(0x110000)")
                            })?,
                        None if k == Kind::BigInt => {
                            return Err(
                                PyError::overflow_error("%c arg not in range(0x110000)").into()
                            )
                        }
                        None => return Err(PyError::type_error("%c requires int or char").into()),
                    },
                };
                flags.precision = None;
                flags.write_text(&mut out, &s)?;
            }
            other => {
                return Err(PyError::value_error(format!(
                    "unsupported format character '{other}' (0x{:x}) at index {}",
                    other as u32,
                    i - 1
                ))
                .into())
            }
        }
    }
    if let PercentArgs::Tuple(items) = args.args {
        if args.pos < items.len() {
            return Err(PyError::type_error(
                "not all arguments converted during string formatting",
            )
            .into());
        }
    }
    Ok(out)
}

struct Args<'a, V> {
    args: PercentArgs<'a, V>,
    pos: usize,
}

impl<V: PyObject + Clone> Args<'_, V> {
    fn next(&mut self) -> Result<V, PyError> {
        match &self.args {
            PercentArgs::Tuple(items) => {
                let v = items
                    .get(self.pos)
                    .cloned()
                    .ok_or_else(|| PyError::type_error("not enough arguments for format string"))?;
                self.pos += 1;
                Ok(v)
            }
            // Every conversion without a key formats the mapping itself.
            PercentArgs::Mapping(m) => Ok((*m).clone()),
        }
    }
}

fn checked(n: i64) -> Result<i64, PyError> {
    check_width(n)?;
    Ok(n)
}

/// A width or precision written in the format (`0` when empty).
fn read_number(digits: &[char]) -> Result<i64, PyError> {
    if digits.is_empty() {
        return Ok(0);
    }
    let text: String = digits.iter().collect();
    checked(text.parse::<i64>().unwrap_or(i64::MAX))
}

/// An `int` or `bool` as `i128`.
fn as_int(k: &Kind<'_>) -> Option<i128> {
    match *k {
        Kind::Bool(b) => Some(i128::from(b)),
        Kind::Int(i) => Some(i),
        _ => None,
    }
}

/// The flags, width and precision of one conversion.
#[derive(Default)]
struct Flags {
    left: bool,
    /// `'+'`, `' '` or `'\0'`.
    sign: char,
    alt: bool,
    zero: bool,
    width: i64,
    precision: Option<i64>,
}

impl Flags {
    /// The layout `format()` would use: numbers zero-padded after the sign with `0`, left
    /// aligned with `-`, else right aligned.
    fn spec(&self, numeric: bool) -> Spec {
        let zero = self.zero && numeric;
        Spec {
            fill: if zero { '0' } else { ' ' },
            align: if self.left {
                '<'
            } else if zero {
                '='
            } else {
                '>'
            },
            alternate: false,
            no_neg_0: false,
            sign: if numeric { self.sign } else { '\0' },
            width: self.width,
            grouping: Grouping::None,
            precision: -1,
            ty: '\0',
        }
    }

    /// `%s`, `%r`, `%a`, `%c`: truncated to the precision, padded with spaces.
    fn write_text(&self, out: &mut String, s: &str) -> Result<(), PyError> {
        let text = match self
            .precision
            .and_then(|p| s.char_indices().nth(p as usize))
        {
            Some((cut, _)) => &s[..cut],
            None => s,
        };
        let spec = self.spec(false);
        let len = text.chars().count() as i64;
        pad_str(out, text, len, spec.fill, spec.align, spec.width)
    }

    /// `%d %i %u %x %X %o`: the digits zero-extended to the precision, then laid out.
    fn write_int(&self, out: &mut String, int: &BigInt, conv: char) -> Result<(), PyError> {
        let (radix, prefix) = match conv {
            'x' => (16, "0x"),
            'X' => (16, "0X"),
            'o' => (8, "0o"),
            _ => (10, ""),
        };
        let mut digits = int.magnitude().to_str_radix(radix);
        if conv == 'X' {
            digits.make_ascii_uppercase();
        }
        if let Some(p) = self.precision {
            let p = usize::try_from(p).unwrap_or(0);
            if digits.len() < p {
                digits.insert_str(0, &"0".repeat(p - digits.len()));
            }
        }
        let n = Number {
            negative: int.sign() == num_bigint::Sign::Minus,
            prefix: if self.alt { prefix } else { "" },
            digits: &digits,
            has_decimal: false,
            remainder: "",
        };
        write_number(out, &n, &self.spec(true), None, false)
    }

    /// `%e %E %f %F %g %G`, by the same `PyOS_double_to_string` as `format()`.
    fn write_float(&self, out: &mut String, x: f64, conv: char) -> Result<(), PyError> {
        let flags = DtoaFlags {
            alt: self.alt,
            ..DtoaFlags::default()
        };
        let precision = self.precision.map_or(6, |p| p as usize);
        let body = double_to_string(x.abs(), conv, precision, flags).unwrap_or_default();
        let n = Number::float(x.is_sign_negative() && !x.is_nan(), &body);
        write_number(out, &n, &self.spec(true), None, false)
    }
}

/// The integer a `%d`-like conversion formats: an int as it is, a float truncated
/// (`%d`/`%i`/`%u` only), with Python's errors for anything else.
fn int_arg<V: PyObject>(v: &V, conv: char) -> Result<BigInt, V::Error> {
    let decimal = matches!(conv, 'd' | 'i' | 'u');
    Ok(match v.kind() {
        Kind::Bool(b) => BigInt::from(u8::from(b)),
        Kind::Int(i) => BigInt::from(i),
        Kind::BigInt => {
            let text = str_of(v)?;
            text.parse::<BigInt>()
                .map_err(|_| PyError::value_error(format!("invalid int {text}")))?
        }
        Kind::Float(x) if decimal => {
            if x.is_nan() {
                return Err(PyError::value_error("cannot convert float NaN to integer").into());
            }
            BigInt::from_f64(x.trunc()).ok_or_else(|| {
                PyError::overflow_error("cannot convert float infinity to integer")
            })?
        }
        Kind::Float(_) => {
            return Err(PyError::type_error(format!(
                "%{conv} format: an integer is required, not float"
            ))
            .into())
        }
        _ => {
            let what = if decimal {
                "a real number is required"
            } else {
                "an integer is required"
            };
            return Err(PyError::type_error(format!(
                "%{conv} format: {what}, not {}",
                v.type_name()
            ))
            .into());
        }
    })
}

/// `float(v)` for the float conversions.
fn float_arg<V: PyObject>(v: &V) -> Result<f64, V::Error> {
    Ok(match v.kind() {
        Kind::Bool(b) => f64::from(u8::from(b)),
        Kind::Int(i) => i as f64,
        Kind::Float(x) => x,
        Kind::BigInt => {
            // Decimal text parsing is correctly rounded, as CPython's int-to-float is.
            let x = str_of(v)?.parse::<f64>().unwrap_or(f64::INFINITY);
            if x.is_infinite() {
                return Err(PyError::overflow_error("int too large to convert to float").into());
            }
            x
        }
        _ => {
            return Err(
                PyError::type_error(format!("must be real number, not {}", v.type_name())).into(),
            )
        }
    })
}
