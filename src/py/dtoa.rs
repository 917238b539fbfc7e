//! `PyOS_double_to_string` (Python/pystrtod.c): the float text behind every float format type.
//!
//! CPython asks David Gay's `dtoa` for a digit string and a decimal-point position, then pads and
//! places them. Rust's `{:e}`, `{:.N e}` and `{:.N}` are correctly rounded on the exact binary
//! value (ties to even), at any precision, exactly as `dtoa` modes 0, 2 and 3 are; this module
//! derives the same digits from them and then follows `format_float_short` step by step.

/// The digits `_Py_dg_dtoa` returns for a finite, non-negative `x`: no leading or trailing zeros
/// (zero itself is `"0"` at `decpt` 1, and a fixed-mode result that rounds to zero is empty), and
/// the position of the decimal point relative to the first digit.
struct Digits {
    digits: Vec<u8>,
    decpt: i64,
}

enum Mode {
    /// Mode 0: the shortest digits that round-trip (`repr`).
    Shortest,
    /// Mode 2: `n >= 1` significant digits.
    Significant(usize),
    /// Mode 3: `n` digits after the decimal point.
    Fixed(usize),
}

fn split_exp(sci: &str) -> (&str, i64) {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    (mantissa, exp.parse().unwrap_or(0))
}

/// The shortest round-tripping digits in `d.ddde±x` form, as dtoa mode 0 picks them.
///
/// Rust's `{:e}` finds the shortest length, but when two candidates of that length both round
/// trip and the exact value lies halfway between them (902216185232470.25 between ...470.2 and
/// ...470.3), it takes the upper one where dtoa rounds half to even. Re-rounding the exact value
/// to that many digits settles ties as dtoa does; the result is kept only if it still round-trips
/// (next to a power of two the interval is lopsided and the nearest decimal may fall outside).
fn shortest(x: f64) -> String {
    let rust = format!("{x:e}");
    let n = rust
        .split('e')
        .next()
        .map_or(1, |m| m.bytes().filter(u8::is_ascii_digit).count());
    let nearest = format!("{:.*e}", n.saturating_sub(1), x);
    if nearest != rust && nearest.parse::<f64>().is_ok_and(|y| y == x) {
        nearest
    } else {
        rust
    }
}

fn dtoa(x: f64, mode: Mode) -> Digits {
    match mode {
        Mode::Shortest | Mode::Significant(_) => {
            let sci = match mode {
                Mode::Significant(n) => super::float::format_exp(x, n.saturating_sub(1)),
                _ => shortest(x),
            };
            let (mantissa, exp) = split_exp(&sci);
            let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
            while digits.len() > 1 && digits.last() == Some(&b'0') {
                digits.pop();
            }
            Digits {
                digits,
                decpt: exp + 1,
            }
        }
        Mode::Fixed(n) => {
            let fixed = super::float::format_fixed(x, n);
            let int_len = fixed.find('.').unwrap_or(fixed.len());
            let all: Vec<u8> = fixed.bytes().filter(u8::is_ascii_digit).collect();
            let lead = all.iter().take_while(|&&d| d == b'0').count();
            let mut digits = all[lead..].to_vec();
            while digits.last() == Some(&b'0') {
                digits.pop();
            }
            let decpt = if digits.is_empty() {
                // dtoa's "no digits" answer for a value that rounds to zero.
                -(n as i64)
            } else {
                int_len as i64 - lead as i64
            };
            if x == 0.0 {
                return Digits {
                    digits: vec![b'0'],
                    decpt: 1,
                };
            }
            Digits { digits, decpt }
        }
    }
}

/// Options of `PyOS_double_to_string` (the `Py_DTSF_*` flags).
#[derive(Clone, Copy, Default)]
pub struct DtoaFlags {
    /// `Py_DTSF_ADD_DOT_0`: keep a `.0` on integral values (`repr`, and format type none).
    pub add_dot_0: bool,
    /// `Py_DTSF_ALT`: the `#` flag: keep the point and trailing zeros.
    pub alt: bool,
    /// `Py_DTSF_NO_NEG_0`: the `z` flag: a result that rounds to zero loses its minus sign.
    pub no_neg_0: bool,
}

/// `PyOS_double_to_string(x, code, precision, flags)`, with `code` one of `e E f F g G r`.
/// `precision` is the value format_float_internal passes (already defaulted). Returns `None` for
/// any other code.
pub fn double_to_string(x: f64, code: char, precision: usize, flags: DtoaFlags) -> Option<String> {
    let upper = code.is_ascii_uppercase();
    let (code, mode, precision) = match code.to_ascii_lowercase() {
        'e' => ('e', Mode::Significant(precision + 1), precision + 1),
        'f' => ('f', Mode::Fixed(precision), precision),
        'g' => {
            let p = precision.max(1);
            ('g', Mode::Significant(p), p)
        }
        'r' => ('r', Mode::Shortest, 0),
        _ => return None,
    };
    let mut sign = x.is_sign_negative();
    if x.is_nan() || x.is_infinite() {
        let mut out = String::with_capacity(4);
        if sign && !x.is_nan() {
            out.push('-');
        }
        out.push_str(match (x.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        });
        return Some(out);
    }
    let Digits { digits, decpt } = dtoa(x.abs(), mode);
    if flags.no_neg_0 && sign && (digits.is_empty() || digits == b"0") {
        sign = false;
    }
    let precision = precision as i64;
    let digits_len = digits.len() as i64;
    let mut decpt = decpt;
    let mut vdigits_end = digits_len;
    let mut use_exp = false;
    match code {
        'e' => {
            use_exp = true;
            vdigits_end = precision;
        }
        'f' => vdigits_end = decpt + precision,
        'g' => {
            let limit = if flags.add_dot_0 {
                precision - 1
            } else {
                precision
            };
            if decpt <= -4 || decpt > limit {
                use_exp = true;
            }
            if flags.alt {
                vdigits_end = precision;
            }
        }
        _ => {
            if decpt <= -4 || decpt > 16 {
                use_exp = true;
            }
        }
    }
    let mut exp = 0;
    if use_exp {
        exp = decpt - 1;
        decpt = 1;
    }
    let vdigits_start = if decpt <= 0 { decpt - 1 } else { 0 };
    vdigits_end = if !use_exp && flags.add_dot_0 {
        vdigits_end.max(decpt + 1)
    } else {
        vdigits_end.max(decpt)
    };

    let zeros = |out: &mut String, n: i64| out.extend(std::iter::repeat_n('0', n.max(0) as usize));
    let digit_str = |range: std::ops::Range<i64>| -> &str {
        // Digits are ASCII, so any byte range is valid UTF-8.
        std::str::from_utf8(&digits[range.start as usize..range.end as usize]).unwrap_or("")
    };
    let mut out = String::with_capacity((vdigits_end - vdigits_start) as usize + 8);
    if sign {
        out.push('-');
    }
    if decpt <= 0 {
        zeros(&mut out, decpt - vdigits_start);
        out.push('.');
        zeros(&mut out, -decpt);
    } else {
        zeros(&mut out, -vdigits_start);
    }
    if 0 < decpt && decpt <= digits_len {
        out.push_str(digit_str(0..decpt));
        out.push('.');
        out.push_str(digit_str(decpt..digits_len));
    } else {
        out.push_str(digit_str(0..digits_len));
    }
    if digits_len < decpt {
        zeros(&mut out, decpt - digits_len);
        out.push('.');
        zeros(&mut out, vdigits_end - decpt);
    } else {
        zeros(&mut out, vdigits_end - digits_len);
    }
    if out.ends_with('.') && !flags.alt {
        out.pop();
    }
    if use_exp {
        out.push(if upper { 'E' } else { 'e' });
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(x: f64, code: char, precision: usize) -> String {
        double_to_string(x, code, precision, DtoaFlags::default()).expect("known code")
    }

    #[test]
    fn matches_cpython_digits() {
        // Each expectation is python3.11's format(x, '.<precision><code>').
        assert_eq!(fmt(0.125, 'f', 2), "0.12");
        assert_eq!(fmt(2.675, 'f', 2), "2.67");
        assert_eq!(fmt(2.5, 'f', 0), "2");
        assert_eq!(fmt(-0.04, 'f', 1), "-0.0");
        assert_eq!(
            fmt(0.1, 'e', 60),
            "1.000000000000000055511151231257827021181583404541015625000000e-01"
        );
        assert_eq!(fmt(9.999, 'e', 2), "1.00e+01");
        assert_eq!(fmt(999.5, 'g', 3), "1e+03");
        assert_eq!(fmt(1e-5, 'g', 6), "1e-05");
        assert_eq!(fmt(123456.0, 'g', 6), "123456");
        assert_eq!(fmt(1234567.0, 'g', 6), "1.23457e+06");
        assert_eq!(fmt(1e300, 'e', 0), "1e+300");
        assert_eq!(fmt(f64::NEG_INFINITY, 'F', 2), "-INF");
        assert_eq!(fmt(-f64::NAN, 'g', 2), "nan");
        let z = DtoaFlags {
            no_neg_0: true,
            ..DtoaFlags::default()
        };
        assert_eq!(double_to_string(-0.04, 'f', 1, z).as_deref(), Some("0.0"));
        let none = DtoaFlags {
            add_dot_0: true,
            ..DtoaFlags::default()
        };
        // format(2.0, '.5') == '2.0'; format(1234.5, '.3') == '1.23e+03'; repr(1e16) == '1e+16'
        assert_eq!(double_to_string(2.0, 'g', 5, none).as_deref(), Some("2.0"));
        assert_eq!(
            double_to_string(1234.5, 'g', 3, none).as_deref(),
            Some("1.23e+03")
        );
        assert_eq!(
            double_to_string(1e16, 'r', 0, none).as_deref(),
            Some("1e+16")
        );
        // repr(902216185232470.2) == '902216185232470.2' (the exact value ends in .25: a tie).
        assert_eq!(
            double_to_string(902216185232470.2, 'r', 0, none).as_deref(),
            Some("902216185232470.2")
        );
        let alt = DtoaFlags {
            alt: true,
            add_dot_0: true,
            ..DtoaFlags::default()
        };
        // format(2.0, '#.5') == '2.0000'
        assert_eq!(
            double_to_string(2.0, 'g', 5, alt).as_deref(),
            Some("2.0000")
        );
    }
}
