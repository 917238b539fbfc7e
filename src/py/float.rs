//! `repr(float)` as CPython 3 writes it (`float_repr_style == 'short'`).

use super::dtoa::{double_to_string, DtoaFlags};

/// `repr(x)` (equal to `str(x)` in Python 3): the shortest digits that round-trip, in fixed
/// notation when the decimal exponent is in `-4 <= exp < 16`, else `d.ddde±XX`. This is
/// `PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0)`.
pub fn float_repr(x: f64) -> String {
    let flags = DtoaFlags {
        add_dot_0: true,
        ..DtoaFlags::default()
    };
    double_to_string(x, 'r', 0, flags).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::float_repr;

    #[test]
    fn matches_cpython_repr() {
        // Each pair was printed by CPython 3.11's repr().
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (3.25159, "3.25159"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (9999999999999998.0, "9999999999999998.0"),
            (0.3, "0.3"),
            (100.0, "100.0"),
            (902216185232470.2, "902216185232470.2"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(*x), *want, "repr({x:e})");
        }
    }
}

/// Fractional digits that always cover the exact decimal expansion of an `f64` (the smallest
/// subnormal has 1074); every digit past it is a zero.
const EXACT_FIXED: usize = 1100;
/// Significant digits that always cover an `f64`'s exact expansion (at most 767).
const EXACT_SIGNIFICANT: usize = 800;

/// `format!("{x:.prec$}")` for any precision. Rust's formatter refuses precisions past
/// `u16::MAX` (it panics); Python takes them, so the digits past the exact expansion are added
/// as the zeros they are.
pub fn format_fixed(x: f64, prec: usize) -> String {
    if prec <= EXACT_FIXED || !x.is_finite() {
        let p = prec.min(EXACT_FIXED);
        return format!("{x:.p$}");
    }
    let mut s = format!("{x:.EXACT_FIXED$}");
    s.extend(std::iter::repeat_n('0', prec - EXACT_FIXED));
    s
}

/// `format!("{x:.prec$e}")` for any precision (see [`format_fixed`]).
pub fn format_exp(x: f64, prec: usize) -> String {
    if prec <= EXACT_SIGNIFICANT || !x.is_finite() {
        let p = prec.min(EXACT_SIGNIFICANT);
        return format!("{x:.p$e}");
    }
    let s = format!("{x:.EXACT_SIGNIFICANT$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let zeros = "0".repeat(prec - EXACT_SIGNIFICANT);
    format!("{mantissa}{zeros}e{exp}")
}

#[cfg(test)]
mod precision_tests {
    use super::{format_exp, format_fixed};

    #[test]
    fn any_precision_matches_the_exact_expansion() {
        // Within Rust's range the helpers are Rust's formatter.
        assert_eq!(format_fixed(0.1, 30), format!("{:.30}", 0.1));
        assert_eq!(format_exp(0.1, 30), format!("{:.30e}", 0.1));
        // Past it they keep going with zeros, as CPython does ('%.70000f' % 1.5).
        let f = format_fixed(1.5, 70_000);
        assert_eq!(f.len(), 2 + 70_000);
        assert!(f.starts_with("1.5000") && f.ends_with('0'));
        let tiny = format_fixed(5e-324, 2000);
        assert_eq!(
            &tiny[..tiny.len() - (2000 - 1100)],
            format!("{:.1100}", 5e-324)
        );
        let e = format_exp(1.0 / 3.0, 70_000);
        assert!(
            e.ends_with("0e-1") && e.len() == 70_000 + 5,
            "{}",
            &e[e.len() - 8..]
        );
        assert_eq!(&e[..802], &format!("{:.800e}", 1.0 / 3.0)[..802]);
        assert_eq!(format_fixed(f64::INFINITY, 100_000), "inf");
    }
}
