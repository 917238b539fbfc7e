//! Recorded timestamps (RFC 3339) as seconds since the Unix epoch (read by import's
//! `time::seconds`), and cache lifetimes (`5m`, `1h`, ...) as seconds: what a TTL is checked with.

pub(crate) use crate::import::time::seconds;

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
    fn lifetimes() {
        assert_eq!(ttl_seconds("5m"), Some(300.0));
        assert_eq!(ttl_seconds("1h"), Some(3_600.0));
        assert_eq!(ttl_seconds("in_memory"), None);
        assert_eq!(ttl_seconds(""), None);
        assert_eq!(ttl_seconds("5é"), None);
        assert_eq!(ttl_seconds("NaNm"), None);
    }
}
