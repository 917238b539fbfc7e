//! Python's `str` methods that templates call (as Jinja2 filters or as methods), with Python's
//! notion of whitespace and line boundaries rather than Rust's.

/// `str.isspace()` of one character: Unicode whitespace plus the ASCII separators
/// U+001C..U+001F, which Python counts as whitespace and Rust does not.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.splitlines()` boundaries.
pub fn splitlines(s: &str, keepends: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\x0b'
                | '\x0c'
                | '\x1c'
                | '\x1d'
                | '\x1e'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if is_break {
            let mut end = String::from(c);
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
                end.push('\n');
            }
            if keepends {
                cur.push_str(&end);
            }
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `str.upper()`.
pub fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// `str.lower()`.
pub fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Python's `str.capitalize()` (first character upper, the rest lower).
pub fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => {
            let mut out: String = first.to_uppercase().collect();
            out.push_str(&chars.as_str().to_lowercase());
            out
        }
        None => String::new(),
    }
}

/// `str.strip(chars)` (`lstrip` with `left` only, `rstrip` with `right` only); `None` strips
/// whitespace.
pub fn strip<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        Some(set) => set.contains(c),
        None => is_space(c),
    };
    let mut out = s;
    if left {
        out = out.trim_start_matches(pred);
    }
    if right {
        out = out.trim_end_matches(pred);
    }
    out
}

/// Python's `str.replace(old, new, count)`; an empty `old` inserts between characters.
pub fn replace(s: &str, old: &str, new: &str, count: i64) -> String {
    let limit = if count < 0 {
        usize::MAX
    } else {
        count as usize
    };
    if old.is_empty() {
        let mut out = String::new();
        let mut n = 0;
        for c in s.chars() {
            if n < limit {
                out.push_str(new);
                n += 1;
            }
            out.push(c);
        }
        if n < limit {
            out.push_str(new);
        }
        return out;
    }
    s.replacen(old, new, limit)
}

/// `str.center(width, fill)`, with CPython's choice of the side that gets the odd fill.
pub fn center(s: &str, width: i64, fill: char) -> String {
    let len = s.chars().count() as i64;
    let marg = width - len;
    if marg <= 0 {
        return s.to_owned();
    }
    let left = marg / 2 + (marg & width & 1);
    let right = marg - left;
    let mut out = String::new();
    out.extend(std::iter::repeat_n(fill, left as usize));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, right as usize));
    out
}
