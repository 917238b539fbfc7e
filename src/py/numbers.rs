//! Python's `int(str, base)`, `float(str)` and `round(float, ndigits)`.

use super::str_methods::is_space;

/// Python's `int(str, base)` parsing (whitespace, sign, underscores between digits).
pub fn parse_int(s: &str, base: u32) -> Option<i128> {
    let t = s.trim_matches(is_space);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let mut base = base;
    let mut digits = digits;
    let lower = digits.to_ascii_lowercase();
    for (prefix, b) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if lower.starts_with(prefix) && (base == b || base == 0) {
            base = b;
            digits = &digits[2..];
            digits = digits.strip_prefix('_').unwrap_or(digits);
        }
    }
    if base == 0 {
        base = 10;
    }
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let v = i128::from_str_radix(&clean, base).ok()?;
    Some(if neg { -v } else { v })
}

/// Python's `float(str)`.
pub fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(is_space);
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity" | "nan") {
        let v = if unsigned == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Some(if lower.starts_with('-') { -v } else { v });
    }
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    if !clean
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    clean.parse::<f64>().ok()
}

/// Python's `round(float, ndigits)`: correctly rounded, ties to even on the exact value.
pub fn round(f: f64, ndigits: i64) -> f64 {
    if !f.is_finite() {
        return f;
    }
    if ndigits >= 0 {
        let n = ndigits.min(400) as usize;
        let s = format!("{f:.n$}");
        return s.parse::<f64>().unwrap_or(f);
    }
    let scale = 10f64.powi((-ndigits).min(400) as i32);
    let y = f / scale;
    let r = y.round();
    let r = if (y - y.trunc()).abs() == 0.5 {
        2.0 * (y / 2.0).round()
    } else {
        r
    };
    r * scale
}
