//! `parse_internal_render_format_spec` (Python/formatter_unicode.c): the format-spec
//! mini-language `[[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type]`.

use crate::py::decimal_value;
use crate::py::error::PyError;

/// Thousands separators requested by the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grouping {
    None,
    /// `,`: every three digits.
    Comma,
    /// `_`: every three digits, or every four for `b o x X`.
    Underscore,
    UnderscoreFour,
}

impl Grouping {
    /// The separator and group size `get_locale_info` picks.
    pub(crate) fn separator(self) -> Option<(char, i64)> {
        match self {
            Grouping::None => None,
            Grouping::Comma => Some((',', 3)),
            Grouping::Underscore => Some(('_', 3)),
            Grouping::UnderscoreFour => Some(('_', 4)),
        }
    }
}

/// A parsed spec. Widths and precisions are `Py_ssize_t` in CPython, so `i64` here; `-1` means
/// "not given", as in CPython, to keep the ported arithmetic identical.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    pub fill: char,
    pub align: char,
    pub alternate: bool,
    pub no_neg_0: bool,
    /// `'+'`, `'-'`, `' '` or `'\0'`.
    pub sign: char,
    pub width: i64,
    pub grouping: Grouping,
    pub precision: i64,
    /// The presentation type, `'\0'` when absent and the type has no default.
    pub ty: char,
}

fn value_error(message: impl Into<String>) -> PyError {
    PyError::value_error(message)
}

/// `%c` of a code point in CPython's messages: the character when printable ASCII, else `\xNN`.
pub(crate) fn c_char(c: char) -> String {
    let u = c as u32;
    if u > 32 && u < 128 {
        c.to_string()
    } else {
        format!("\\x{u:x}")
    }
}

/// `get_integer`: reads Unicode decimal digits at `pos`; `Ok(None)` when there are none.
fn get_integer(chars: &[char], pos: &mut usize) -> Result<Option<i64>, PyError> {
    let mut acc: i64 = 0;
    let start = *pos;
    while let Some(d) = chars.get(*pos).and_then(|&c| decimal_value(c)) {
        let d = i64::from(d);
        if acc > (i64::MAX - d) / 10 {
            return Err(value_error("Too many decimal digits in format string"));
        }
        acc = acc * 10 + d;
        *pos += 1;
    }
    Ok((*pos > start).then_some(acc))
}

fn is_align(c: char) -> bool {
    matches!(c, '<' | '>' | '=' | '^')
}

/// Parses `spec` for an object of Python type `type_name`, whose `__format__` defaults to
/// `default_type` (`'\0'` for none) and `default_align`.
pub(super) fn parse(
    spec: &str,
    type_name: &str,
    default_type: char,
    default_align: char,
) -> Result<Spec, PyError> {
    // Specs are short: decode into a stack buffer, falling back to the heap for long ones.
    let mut buf = ['\0'; 32];
    let heap: Vec<char>;
    let mut n = 0;
    for c in spec.chars() {
        if n == buf.len() {
            n = usize::MAX;
            break;
        }
        buf[n] = c;
        n += 1;
    }
    let chars: &[char] = if n == usize::MAX {
        heap = spec.chars().collect();
        &heap
    } else {
        &buf[..n]
    };
    let end = chars.len();
    let mut pos = 0;
    let mut out = Spec {
        fill: ' ',
        align: default_align,
        alternate: false,
        no_neg_0: false,
        sign: '\0',
        width: -1,
        grouping: Grouping::None,
        precision: -1,
        ty: default_type,
    };
    let mut fill_specified = false;
    let mut align_specified = false;
    let at = |i: usize| chars.get(i).copied();

    if end >= 2 && is_align(chars[1]) {
        out.align = chars[1];
        out.fill = chars[0];
        fill_specified = true;
        align_specified = true;
        pos = 2;
    } else if end >= 1 && is_align(chars[0]) {
        out.align = chars[0];
        align_specified = true;
        pos = 1;
    }
    if let Some(s @ ('+' | '-' | ' ')) = at(pos) {
        out.sign = s;
        pos += 1;
    }
    if at(pos) == Some('z') {
        out.no_neg_0 = true;
        pos += 1;
    }
    if at(pos) == Some('#') {
        out.alternate = true;
        pos += 1;
    }
    if !fill_specified && at(pos) == Some('0') {
        out.fill = '0';
        if !align_specified && default_align == '>' {
            out.align = '=';
        }
        pos += 1;
    }
    if let Some(w) = get_integer(chars, &mut pos)? {
        out.width = w;
    }
    if at(pos) == Some(',') {
        out.grouping = Grouping::Comma;
        pos += 1;
    }
    if at(pos) == Some('_') {
        if out.grouping != Grouping::None {
            return Err(value_error("Cannot specify both ',' and '_'."));
        }
        out.grouping = Grouping::Underscore;
        pos += 1;
    }
    if at(pos) == Some(',') && out.grouping == Grouping::Underscore {
        return Err(value_error("Cannot specify both ',' and '_'."));
    }
    if at(pos) == Some('.') {
        pos += 1;
        match get_integer(chars, &mut pos)? {
            Some(p) => out.precision = p,
            None => return Err(value_error("Format specifier missing precision")),
        }
    }
    if end - pos > 1 {
        return Err(value_error(format!(
            "Invalid format specifier '{spec}' for object of type '{type_name}'"
        )));
    }
    if let Some(t) = at(pos) {
        out.ty = t;
    }
    if out.grouping != Grouping::None {
        match out.ty {
            'd' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F' | '\0' => {}
            'b' | 'o' | 'x' | 'X' if out.grouping == Grouping::Underscore => {
                out.grouping = Grouping::UnderscoreFour;
            }
            t => {
                let sep = if out.grouping == Grouping::Comma {
                    ','
                } else {
                    '_'
                };
                return Err(value_error(format!(
                    "Cannot specify '{sep}' with '{}'.",
                    c_char(t)
                )));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(spec: &str, ty: &str, default: char) -> String {
        parse(spec, ty, default, '>')
            .expect_err("invalid spec")
            .message
    }

    #[test]
    fn parse_errors_match_cpython() {
        // Messages printed by python3.11 for format(1, spec) / format('a', spec).
        assert_eq!(err(",_", "int", 'd'), "Cannot specify both ',' and '_'.");
        assert_eq!(err("_,", "int", 'd'), "Cannot specify both ',' and '_'.");
        assert_eq!(err(".f", "int", 'd'), "Format specifier missing precision");
        assert_eq!(
            err(">5d5", "int", 'd'),
            "Invalid format specifier '>5d5' for object of type 'int'"
        );
        assert_eq!(err(",", "str", 's'), "Cannot specify ',' with 's'.");
        assert_eq!(err("_c", "int", 'd'), "Cannot specify '_' with 'c'.");
        assert_eq!(
            err("99999999999999999999", "int", 'd'),
            "Too many decimal digits in format string"
        );
    }

    #[test]
    fn unicode_digits_are_widths() {
        // python3.11: format(1, '٣') == '  1'
        let s = parse("٣", "int", 'd', '>').expect("valid");
        assert_eq!(s.width, 3);
        // format(1, '0=5') keeps the explicit fill, format(1, '05') implies '='.
        assert_eq!(parse("05", "int", 'd', '>').expect("valid").align, '=');
        assert_eq!(parse("05", "str", 's', '<').expect("valid").align, '<');
    }
}
