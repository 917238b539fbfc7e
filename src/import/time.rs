//! Recorded times as RFC 3339 UTC (`2024-09-16T10:12:03Z`), the form of a scene's
//! `recorded.timestamp`: an HTTP `Date` header or Ruby VCR's `recorded_at` (IMF-fixdate,
//! `Mon, 16 Sep 2024 10:12:03 GMT`), HAR's `startedDateTime` (ISO 8601 with an offset),
//! OpenTelemetry's nanoseconds and a response's `created` seconds since the Unix epoch; and back,
//! a recorded time as seconds since the epoch (what `verify` checks a cache's lifetime with).

/// An IMF-fixdate (RFC 9110 5.6.7) as RFC 3339.
pub(crate) fn from_http_date(s: &str) -> Option<String> {
    let mut words = s.split_whitespace();
    let _weekday = words.next()?;
    let day: u32 = words.next()?.parse().ok()?;
    let month_name = words.next()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as u32 + 1;
    let year: i64 = words.next()?.parse().ok()?;
    let (h, mi, se) = hms(words.next()?)?;
    let zone = words.next()?;
    if !matches!(zone, "GMT" | "UTC" | "+0000") || words.next().is_some() {
        return None;
    }
    valid(year, month, day, h, mi, se)?;
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{h:02}:{mi:02}:{se:02}Z"
    ))
}

/// An ISO 8601 date-time with a zone (`2024-03-01T10:11:12.345+01:00`, `...Z`, `...+0100`)
/// converted to UTC; fractions of a second are kept.
pub(crate) fn from_iso8601(s: &str) -> Option<String> {
    let (seconds, fraction) = parse_iso8601(s)?;
    let mut out = format_seconds(seconds);
    if let Some(f) = fraction {
        out.pop();
        out.push('.');
        out.push_str(f);
        out.push('Z');
    }
    Some(out)
}

/// Seconds since 1970-01-01T00:00:00Z of an ISO 8601 date-time with a zone, RFC 3339's among
/// them (`2025-06-01T10:15:30.250Z`, `2025-06-01 10:15:30+02:00`); `None` when `s` is not one.
pub(crate) fn seconds(s: &str) -> Option<f64> {
    let (whole, fraction) = parse_iso8601(s)?;
    let fraction = match fraction {
        Some(f) => format!("0.{f}").parse::<f64>().ok()?,
        None => 0.0,
    };
    Some(whole as f64 + fraction)
}

/// Seconds since 1970 (UTC) as RFC 3339, for years 1970 to 9999 (a response's `created`).
pub(crate) fn from_unix_seconds(seconds: i64) -> Option<String> {
    (0..253_402_300_800)
        .contains(&seconds)
        .then(|| format_seconds(seconds))
}

/// An ISO 8601 date-time with a zone as whole seconds since the epoch (UTC) and the digits of
/// its fraction of a second.
fn parse_iso8601(s: &str) -> Option<(i64, Option<&str>)> {
    let s = s.trim();
    let (date, rest) = s.split_once(['T', 't', ' '])?;
    let mut d = date.split('-');
    let year: i64 = digits(d.next()?)?;
    let month = u32::try_from(digits(d.next()?)?).ok()?;
    let day = u32::try_from(digits(d.next()?)?).ok()?;
    if d.next().is_some() {
        return None;
    }
    let zone_at = rest.find(['Z', 'z', '+', '-'])?;
    let (time, zone) = rest.split_at(zone_at);
    let (clock, fraction) = match time.split_once('.') {
        Some((c, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => (c, Some(f)),
        Some(_) => return None,
        None => (time, None),
    };
    let (h, mi, se) = hms(clock)?;
    valid(year, month, day, h, mi, se)?;
    let offset_minutes: i64 = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
            if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let hours: i64 = digits[..2].parse().ok()?;
            let minutes: i64 = digits[2..].parse().ok()?;
            sign * (hours * 60 + minutes)
        }
    };
    let seconds = days_from_civil(year, month, day) * 86_400
        + i64::from(h) * 3600
        + i64::from(mi) * 60
        + i64::from(se)
        - offset_minutes * 60;
    Some((seconds, fraction))
}

/// A field of ASCII digits only (no sign, which `parse` would take).
fn digits(s: &str) -> Option<i64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Nanoseconds since the Unix epoch (an OTLP `startTimeUnixNano`) as RFC 3339 UTC, with the
/// fraction when there is one.
pub(crate) fn from_unix_nanos(nanos: u128) -> Option<String> {
    let seconds = i64::try_from(nanos / 1_000_000_000).ok()?;
    let fraction = nanos % 1_000_000_000;
    let mut out = format_seconds(seconds);
    if fraction > 0 {
        out.pop();
        let digits = format!("{fraction:09}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
        out.push('Z');
    }
    Some(out)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn hms(s: &str) -> Option<(u32, u32, u32)> {
    let mut p = s.split(':');
    let mut field = || u32::try_from(digits(p.next()?)?).ok();
    let (h, m, sec) = (field()?, field()?, field()?);
    p.next().is_none().then_some((h, m, sec))
}

fn valid(year: i64, month: u32, day: u32, h: u32, mi: u32, se: u32) -> Option<()> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    ((0..=9999).contains(&year) && (1..=days).contains(&day) && h < 24 && mi < 60 && se <= 60)
        .then_some(())
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (the inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn format_seconds(seconds: i64) -> String {
    let (y, mo, d) = civil_from_days(seconds.div_euclid(86_400));
    let s = seconds.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s % 3600 / 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates() {
        assert_eq!(
            from_http_date("Mon, 16 Sep 2024 10:12:03 GMT").as_deref(),
            Some("2024-09-16T10:12:03Z")
        );
        assert_eq!(from_http_date("Mon, 31 Feb 2024 10:12:03 GMT"), None);
        assert_eq!(from_http_date("yesterday"), None);
    }

    #[test]
    fn iso_dates_with_offsets_become_utc() {
        assert_eq!(
            from_iso8601("2024-03-01T00:30:00.123+01:00").as_deref(),
            Some("2024-02-29T23:30:00.123Z")
        );
        assert_eq!(
            from_iso8601("2023-12-31T23:59:59-0130").as_deref(),
            Some("2024-01-01T01:29:59Z")
        );
        assert_eq!(from_iso8601("2024-03-01T10:11:12").as_deref(), None);
    }

    #[test]
    fn seconds_since_the_epoch() {
        // Reviewed by hand: 951868800 is 2000-03-01 00:00 UTC; 10:15:30+02:00 is 08:15:30 UTC.
        assert_eq!(seconds("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(seconds("2000-03-01T00:00:00Z"), Some(951_868_800.0));
        assert_eq!(seconds("2025-06-01T10:15:30+02:00"), Some(1_748_765_730.0));
        assert_eq!(seconds("2025-06-01 08:15:30.5z"), Some(1_748_765_730.5));
        for bad in [
            "",
            "2025-06-01",
            "2025-13-01T00:00:00Z",
            "2025-06-01T00:00:00",
            "+2025-06-01T00:00:00Z",
            "2025-06-01T+8:00:00Z",
            "soon",
        ] {
            assert_eq!(seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn unix_seconds() {
        // Reviewed by hand: 951782400 is 2000-02-29 (a leap day of a century leap year);
        // 1718236800 is 2024-06-13 00:00 UTC; one second before 2100-03-01.
        assert_eq!(
            from_unix_seconds(0).as_deref(),
            Some("1970-01-01T00:00:00Z")
        );
        assert_eq!(
            from_unix_seconds(951_782_400).as_deref(),
            Some("2000-02-29T00:00:00Z")
        );
        assert_eq!(
            from_unix_seconds(1_718_236_800 + 3_723).as_deref(),
            Some("2024-06-13T01:02:03Z")
        );
        assert_eq!(
            from_unix_seconds(4_107_542_399).as_deref(),
            Some("2100-02-28T23:59:59Z")
        );
        assert_eq!(from_unix_seconds(-1), None);
        assert_eq!(from_unix_seconds(253_402_300_800), None);
    }

    #[test]
    fn unix_nanos() {
        assert_eq!(
            from_unix_nanos(1_700_000_000_123_000_000).as_deref(),
            Some("2023-11-14T22:13:20.123Z")
        );
        assert_eq!(from_unix_nanos(0).as_deref(), Some("1970-01-01T00:00:00Z"));
    }
}
