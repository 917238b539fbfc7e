//! `repr(str)` and `ascii(str)` as CPython writes them, and the Unicode properties they need.

use super::printable_table::{DECIMAL_ZEROS, NON_PRINTABLE};

/// Whether CPython's `str.isprintable()` holds for `c` (what `repr` leaves unescaped).
///
/// CPython calls a character non-printable when its Unicode category is Cc, Cf, Cs, Co, Cn, Zl,
/// Zp or Zs, except the ASCII space; the table is generated from Python 3.11's `unicodedata` by
/// `conformance/gen_printable.py`, so it follows that Unicode version exactly.
pub fn is_printable(c: char) -> bool {
    let u = c as u32;
    // ASCII is by far the common case and needs no search.
    if u < 0x7f {
        return u >= 0x20;
    }
    let i = NON_PRINTABLE.partition_point(|&(_, end)| end < u);
    NON_PRINTABLE.get(i).is_none_or(|&(start, _)| start > u)
}

/// `Py_UNICODE_TODECIMAL`: the value of a Unicode decimal digit (category Nd), as CPython's
/// format-string parser reads indexes, widths and precisions (`{l[٣]}` is `l[3]`).
pub fn decimal_value(c: char) -> Option<u32> {
    let u = c as u32;
    if c.is_ascii_digit() {
        return Some(u - u32::from(b'0'));
    }
    if u < 0x80 {
        return None;
    }
    let i = DECIMAL_ZEROS.partition_point(|&zero| zero <= u);
    let zero = *DECIMAL_ZEROS.get(i.checked_sub(1)?)?;
    (u - zero < 10).then_some(u - zero)
}

/// Appends the escape CPython's `repr` uses for a character it does not print as is.
fn push_code_escape(out: &mut String, u: u32) {
    use std::fmt::Write;
    // Writing into a String cannot fail.
    let _ = if u < 0x100 {
        write!(out, "\\x{u:02x}")
    } else if u < 0x10000 {
        write!(out, "\\u{u:04x}")
    } else {
        write!(out, "\\U{u:08x}")
    };
}

fn push_escaped(out: &mut String, c: char, ascii_only: bool) {
    let u = c as u32;
    match c {
        '\\' => out.push_str("\\\\"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        _ if u < 0x20 || u == 0x7f => push_code_escape(out, u),
        _ if u < 0x7f => out.push(c),
        _ if !ascii_only && is_printable(c) => out.push(c),
        _ => push_code_escape(out, u),
    }
}

/// Appends `repr(s)` (or `ascii(s)` when `ascii_only`) to `out`.
pub(crate) fn push_quoted(out: &mut String, s: &str, ascii_only: bool) {
    // CPython prefers single quotes, switching to double only when the text has a single quote
    // and no double quote.
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.reserve(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        if c == quote {
            out.push('\\');
            out.push(c);
        } else {
            push_escaped(out, c, ascii_only);
        }
    }
    out.push(quote);
}

/// Appends `text` with every non-ASCII character escaped as `ascii()` does: `ascii(x)` is
/// `repr(x)` passed through the `backslashreplace` error handler.
pub(crate) fn push_ascii_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            push_code_escape(out, c as u32);
        }
    }
}

/// `repr(s)` for a Python `str`.
pub fn repr_str(s: &str) -> String {
    let mut out = String::new();
    push_quoted(&mut out, s, false);
    out
}

/// `ascii(s)` for a Python `str`: like `repr`, with every non-ASCII character escaped.
pub fn ascii_str(s: &str) -> String {
    let mut out = String::new();
    push_quoted(&mut out, s, true);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_escapes_like_cpython() {
        assert_eq!(repr_str("abc"), "'abc'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("'\""), "'\\'\"'");
        assert_eq!(repr_str("a\nb\t\\"), "'a\\nb\\t\\\\'");
        assert_eq!(repr_str("\u{7f}\u{1}"), "'\\x7f\\x01'");
        assert_eq!(repr_str("你好"), "'你好'");
        assert_eq!(ascii_str("你好é😀"), "'\\u4f60\\u597d\\xe9\\U0001f600'");
        assert_eq!(repr_str("\u{a0}"), "'\\xa0'");
        // Checked with python3.11: repr('\u200b\u2028\ufeff\U000e0001\u0378') escapes all five
        // (Cf, Zl, Cf, Cf, Cn); '\u0378' is unassigned in Unicode 14.
        assert_eq!(
            repr_str("\u{200b}\u{2028}\u{feff}\u{e0001}\u{378}"),
            "'\\u200b\\u2028\\ufeff\\U000e0001\\u0378'"
        );
        // python3.11: repr('\U0001fae8') == "'\\U0001fae8'" (assigned only in Unicode 15).
        assert_eq!(repr_str("\u{1fae8}"), "'\\U0001fae8'");
    }

    #[test]
    fn decimal_digits_follow_unicode() {
        // python3.11: unicodedata.decimal('٣') == 3, decimal('𝟗') == 9, decimal('½') fails.
        assert_eq!(decimal_value('٣'), Some(3));
        assert_eq!(decimal_value('𝟗'), Some(9));
        assert_eq!(decimal_value('7'), Some(7));
        assert_eq!(decimal_value('½'), None);
        assert_eq!(decimal_value('a'), None);
    }

    /// Compares every code point with the digest `gen_printable.py --check` writes. Run once
    /// after regenerating: `cargo test printable_table_matches_python -- --ignored`.
    #[test]
    fn printable_table_matches_python() {
        // Every code point's class as CPython 3.11 gives it (conformance/gen_printable.py).
        let runs = include_str!("testdata/unicode_classes.txt");
        let mut digest = Vec::with_capacity(0x110000);
        for line in runs.lines() {
            let (count, class) = line.split_at(line.len() - 1);
            let count: usize = count.parse().expect("run length");
            digest.extend(std::iter::repeat_n(class.as_bytes()[0], count));
        }
        assert_eq!(digest.len(), 0x110000);
        for (u, &want) in digest.iter().enumerate() {
            let Some(c) = char::from_u32(u as u32) else {
                assert_eq!(want, b'n', "surrogate {u:#x}");
                continue;
            };
            let (printable, decimal) = match want {
                b'p' => (true, None),
                b'n' => (false, None),
                d => (true, Some(u32::from(d - b'0'))),
            };
            assert_eq!(is_printable(c), printable, "isprintable({u:#x})");
            assert_eq!(decimal_value(c), decimal, "decimal({u:#x})");
        }
    }
}
