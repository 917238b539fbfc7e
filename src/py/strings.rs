//! `repr(str)` and `ascii(str)` as CPython writes them.

/// Whether CPython's `str.isprintable()` holds for `c` (what `repr` leaves unescaped).
///
/// CPython calls a character non-printable when its Unicode category is Cc, Cf, Cs, Co, Cn, Zl,
/// Zp or Zs, except the ASCII space.
pub fn is_printable(c: char) -> bool {
    // Approximation until the generated table lands: controls, separators and common format
    // characters are non-printable.
    let u = c as u32;
    if c == ' ' {
        return true;
    }
    if u < 0x20 || (0x7f..0xa1).contains(&u) || u == 0xad {
        return false;
    }
    !matches!(u, 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0xfeff | 0xe000..=0xf8ff | 0x1680)
}

fn push_escaped(out: &mut String, c: char, ascii_only: bool) {
    let u = c as u32;
    match c {
        '\\' => out.push_str("\\\\"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        _ if u < 0x20 || u == 0x7f => out.push_str(&format!("\\x{u:02x}")),
        _ if u < 0x7f => out.push(c),
        _ if !ascii_only && is_printable(c) => out.push(c),
        _ if u < 0x100 => out.push_str(&format!("\\x{u:02x}")),
        _ if u < 0x10000 => out.push_str(&format!("\\u{u:04x}")),
        _ => out.push_str(&format!("\\U{u:08x}")),
    }
}

fn quoted(s: &str, ascii_only: bool) -> String {
    // CPython prefers single quotes, switching to double only when the text has a single quote
    // and no double quote.
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        if c == quote {
            out.push('\\');
            out.push(c);
        } else {
            push_escaped(&mut out, c, ascii_only);
        }
    }
    out.push(quote);
    out
}

/// `repr(s)` for a Python `str`.
pub fn repr_str(s: &str) -> String {
    quoted(s, false)
}

/// `ascii(s)` for a Python `str`: like `repr`, with every non-ASCII character escaped.
pub fn ascii_str(s: &str) -> String {
    quoted(s, true)
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
    }
}
