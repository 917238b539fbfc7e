//! Recorded timestamps (RFC 3339) as seconds since the Unix epoch, and cache lifetimes (`5m`,
//! `1h`, ...) as seconds: what a TTL is checked with.

/// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 date-time (`2025-06-01T10:15:30.250Z`,
/// `2025-06-01 10:15:30+02:00`); `None` when `text` is not one.
pub fn seconds(text: &str) -> Option<f64> {
    let b = text.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let s = b.get(range)?;
        if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(s).ok()?.parse().ok()
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut at = 19;
    let mut fraction = 0.0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return None;
        }
        fraction = std::str::from_utf8(&b[start - 1..at])
            .ok()?
            .parse::<f64>()
            .ok()?;
    }
    let offset = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if at + 6 == b.len() && b[at + 3] == b':' => {
            let minutes = num(at + 1..at + 3)? * 60 + num(at + 4..at + 6)?;
            if sign == b'+' {
                minutes * 60
            } else {
                -minutes * 60
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let whole = days * 86_400 + hour * 3_600 + minute * 60 + second - offset;
    Some(whole as f64 + fraction)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A cache lifetime as the tables and requests write it (`5m`, `1h`, `30m`, `24h`) in seconds;
/// `None` for one that is not a duration (`in_memory`, `implicit`).
pub fn ttl_seconds(ttl: &str) -> Option<f64> {
    let unit = ttl.chars().last()?;
    let n: f64 = ttl[..ttl.len() - unit.len_utf8()].parse().ok()?;
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let unit = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3_600.0,
        'd' => 86_400.0,
        _ => return None,
    };
    Some(n * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_date_times() {
        assert_eq!(seconds("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(seconds("2000-03-01T00:00:00Z"), Some(951_868_800.0));
        assert_eq!(seconds("2025-06-01T10:15:30+02:00"), Some(1_748_765_730.0));
        assert_eq!(seconds("2025-06-01 08:15:30.5z"), Some(1_748_765_730.5));
        for bad in [
            "",
            "2025-06-01",
            "2025-13-01T00:00:00Z",
            "2025-06-01T00:00:00",
            "soon",
        ] {
            assert_eq!(seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn lifetimes() {
        assert_eq!(ttl_seconds("5m"), Some(300.0));
        assert_eq!(ttl_seconds("1h"), Some(3_600.0));
        assert_eq!(ttl_seconds("in_memory"), None);
        assert_eq!(ttl_seconds(""), None);
        assert_eq!(ttl_seconds("5é"), None);
        assert_eq!(ttl_seconds("NaNm"), None);
    }
}
