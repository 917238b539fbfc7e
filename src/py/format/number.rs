//! `calc_number_widths` and `fill_number` (Python/formatter_unicode.c) with
//! `_PyUnicode_InsertThousandsGrouping`: laying out sign, prefix, grouped digits, decimal point,
//! remainder and padding, including the zero padding that `0` pushes *into* the digit groups
//! (`format(1234, '08,')` is `'0,001,234'`).

use std::borrow::Cow;

use super::push_fill;
use super::spec::Spec;
use crate::py::error::{check_width, PyError};

/// A number already rendered as text, split the way CPython splits it.
pub(crate) struct Number<'a> {
    /// Whether the number is negative (a `-` sign is written).
    pub negative: bool,
    /// `0x`, `0o`, `0b` (alternate form), else empty.
    pub prefix: &'a str,
    /// The integer digits, grouped by the separator (ASCII).
    pub digits: &'a str,
    /// Whether a decimal point follows the digits.
    pub has_decimal: bool,
    /// Everything after the point (or after the digits): fraction, exponent, `%`, `inf`, a `c`
    /// character.
    pub remainder: &'a str,
}

impl<'a> Number<'a> {
    /// A float's digits as `double_to_string` (or `repr`) wrote them, unsigned: the integer
    /// digits, the point, and the rest (fraction, exponent, `%`, `inf`, `nan`).
    pub(crate) fn float(negative: bool, body: &'a str) -> Number<'a> {
        let n_digits = body.bytes().take_while(u8::is_ascii_digit).count();
        let (digits, rest) = body.split_at(n_digits);
        let (has_decimal, remainder) = match rest.strip_prefix('.') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        Number {
            negative,
            prefix: "",
            digits,
            has_decimal,
            remainder,
        }
    }
}

/// `_PyUnicode_InsertThousandsGrouping`: the digits grouped (and zero-extended to `min_width`).
fn group_digits(digits: &[u8], min_width: i64, sep: Option<(char, i64)>) -> String {
    let mut min_width = min_width.max(0);
    let mut remaining = digits.len() as i64;
    // CPython fills right to left; collect pieces right to left, then reverse.
    let mut rev: Vec<char> = Vec::with_capacity(digits.len().max(min_width as usize) + 8);
    let mut digits_end = digits.len();
    let mut fill = |rev: &mut Vec<char>, use_sep: Option<char>, n_chars: i64, n_zeros: i64| {
        if let Some(s) = use_sep {
            rev.push(s);
        }
        let start = digits_end - n_chars as usize;
        rev.extend(
            digits[start..digits_end]
                .iter()
                .rev()
                .map(|&b| char::from(b)),
        );
        digits_end = start;
        rev.extend(std::iter::repeat_n('0', n_zeros as usize));
    };
    let mut use_sep = None;
    let mut broken = false;
    if let Some((sep_char, group)) = sep {
        loop {
            let len = group.min(remaining.max(min_width).max(1));
            let n_zeros = (len - remaining).max(0);
            let n_chars = remaining.min(len).max(0);
            fill(&mut rev, use_sep, n_chars, n_zeros);
            use_sep = Some(sep_char);
            remaining -= n_chars;
            min_width -= len;
            if remaining <= 0 && min_width <= 0 {
                broken = true;
                break;
            }
            min_width -= 1;
        }
    }
    if !broken {
        let len = remaining.max(min_width).max(1);
        let n_zeros = (len - remaining).max(0);
        let n_chars = remaining.min(len).max(0);
        fill(&mut rev, use_sep, n_chars, n_zeros);
    }
    rev.iter().rev().collect()
}

/// Appends `n` laid out per `spec` (with `sep` the grouping in effect), upper-casing the prefix
/// and digits when `upper` (type `X`).
pub(crate) fn write_number(
    out: &mut String,
    n: &Number<'_>,
    spec: &Spec,
    sep: Option<(char, i64)>,
    upper: bool,
) -> Result<(), PyError> {
    let (n_sign, sign) = match (spec.sign, n.negative) {
        (_, true) => (1, '-'),
        ('+', false) => (1, '+'),
        (' ', false) => (1, ' '),
        _ => (0, '\0'),
    };
    let n_prefix = n.prefix.chars().count() as i64;
    let n_decimal = i64::from(n.has_decimal);
    let n_remainder = n.remainder.chars().count() as i64;
    let non_digit = n_sign + n_prefix + n_decimal + n_remainder;
    let min_width = if spec.fill == '0' && spec.align == '=' {
        check_width(spec.width)?;
        spec.width - non_digit
    } else {
        0
    };
    let grouped: Cow<'_, str> = if n.digits.is_empty() {
        // Only for 'c': the grouping code always wants at least one digit.
        Cow::Borrowed("")
    } else if sep.is_none() && min_width <= n.digits.len() as i64 {
        Cow::Borrowed(n.digits)
    } else {
        Cow::Owned(group_digits(n.digits.as_bytes(), min_width, sep))
    };
    // Grouped digits are ASCII.
    let n_grouped = grouped.len() as i64;
    let padding = spec.width - (non_digit + n_grouped);
    let (mut lpad, mut spad, mut rpad) = (0, 0, 0);
    if padding > 0 {
        check_width(spec.width)?;
        match spec.align {
            '<' => rpad = padding,
            '^' => {
                lpad = padding / 2;
                rpad = padding - lpad;
            }
            '=' => spad = padding,
            _ => lpad = padding,
        }
    }
    push_fill(out, spec.fill, lpad);
    if n_sign == 1 {
        out.push(sign);
    }
    if upper {
        out.push_str(&n.prefix.to_ascii_uppercase());
    } else {
        out.push_str(n.prefix);
    }
    push_fill(out, spec.fill, spad);
    if upper {
        out.push_str(&grouped.to_ascii_uppercase());
    } else {
        out.push_str(&grouped);
    }
    if n.has_decimal {
        out.push('.');
    }
    out.push_str(n.remainder);
    push_fill(out, spec.fill, rpad);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_padding_is_grouped() {
        // python3.11: format(1234, '08,') == '0,001,234' (one longer than asked, as CPython).
        assert_eq!(group_digits(b"1234", 8, Some((',', 3))), "0,001,234");
        // format(1234, '012,') == '0,000,001,234'
        assert_eq!(group_digits(b"1234", 12, Some((',', 3))), "0,000,001,234");
        // format(48879, '#012_x') == '0x0_0000_beef': 10 digits' worth after the prefix.
        assert_eq!(group_digits(b"beef", 10, Some(('_', 4))), "0_0000_beef");
        assert_eq!(group_digits(b"42", 5, None), "00042");
        assert_eq!(group_digits(b"1234567", 0, Some((',', 3))), "1,234,567");
    }
}
