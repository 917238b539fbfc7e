//! Anthropic's rule (docs/models.md, "Images"): an image costs one visual token per 28×28 pixel
//! patch, `⌈width / 28⌉ × ⌈height / 28⌉`, after Claude resizes it to the largest aspect-preserving
//! size within the model's longest edge and visual-token budget.

use super::Bounds;

/// A model's image limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Limits {
    /// Neither side, padded up to whole patches, may exceed this.
    pub max_edge: u32,
    /// Nor may the image cost more visual tokens than this.
    pub max_tokens: u64,
}

/// Claude Opus 4.7 and later models (Opus 4.8, the Claude 5 models).
const HIGH_RESOLUTION: Limits = Limits {
    max_edge: 2576,
    max_tokens: 4784,
};
/// Every other model.
const STANDARD: Limits = Limits {
    max_edge: 1568,
    max_tokens: 1568,
};

const PATCH: u64 = 28;

/// The limits of `model`: high resolution for Claude Opus 4.7 and 4.8 and for every model of
/// generation 5 or later (`claude-<name>-<5+>`), standard for the rest (Claude 3 names such as
/// `claude-3-5-sonnet-20240620` included).
pub(super) fn limits(model: &str) -> Limits {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let Some(rest) = name.strip_prefix("claude-") else {
        return STANDARD;
    };
    let mut parts = rest.split('-');
    let family = parts.next().unwrap_or("");
    if family.chars().all(|c| c.is_ascii_digit()) {
        return STANDARD;
    }
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(major), _) if major >= 5 => HIGH_RESOLUTION,
        (Some(4), Some(minor)) if family == "opus" && (7..100).contains(&minor) => HIGH_RESOLUTION,
        _ => STANDARD,
    }
}

/// Visual tokens of an image of `w`×`h` pixels.
fn cost(w: u64, h: u64) -> u64 {
    w.div_ceil(PATCH) * h.div_ceil(PATCH)
}

/// The tokens an image of `size` costs on a model with `limits`.
pub(super) fn tokens(limits: Limits, (w, h): (u32, u32)) -> usize {
    let (w, h) = resized(u64::from(w), u64::from(h), limits);
    cost(w, h) as usize
}

/// The fewest and most tokens any image costs.
pub(super) fn bounds(limits: Limits) -> Bounds {
    Bounds {
        min: 1,
        max: limits.max_tokens as usize,
    }
}

/// The size Claude resizes an image to (before padding), as Anthropic's reference
/// implementation computes it: unchanged if it fits; otherwise the longest long edge, found by
/// bisection, whose aspect-preserving size (the short side rounded half to even) fits.
fn resized(w: u64, h: u64, limits: Limits) -> (u64, u64) {
    let fits = |w: u64, h: u64| {
        let edge = u64::from(limits.max_edge);
        w.div_ceil(PATCH) * PATCH <= edge
            && h.div_ceil(PATCH) * PATCH <= edge
            && cost(w, h) <= limits.max_tokens
    };
    if fits(w, h) {
        return (w, h);
    }
    if h > w {
        let (rh, rw) = resized(h, w, limits);
        return (rw, rh);
    }
    let aspect = w as f64 / h as f64;
    let short = |long: u64| ((long as f64 / aspect).round_ties_even() as u64).max(1);
    let (mut lo, mut hi) = (1, w);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if fits(mid, short(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, short(lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anthropic's tables (vision guide, "Calculate image costs"), for Claude Sonnet 4.6 and
    /// for Claude Opus 4.7 / 4.8.
    #[test]
    fn the_guides_examples() {
        let sonnet = limits("claude-sonnet-4-6");
        let opus = limits("claude-opus-4-7");
        for (size, standard, high) in [
            ((200, 200), 64, 64),
            ((1000, 1000), 1296, 1296),
            ((1092, 1092), 1521, 1521),
            ((1920, 1080), 1560, 2691),
            ((2000, 1500), 1564, 3888),
            ((3840, 2160), 1560, 4784),
        ] {
            assert_eq!(tokens(sonnet, size), standard, "{size:?} on Sonnet 4.6");
            assert_eq!(tokens(opus, size), high, "{size:?} on Opus 4.7");
        }
    }

    /// The guide's resized sizes: 1920×1080 to 1456×819, 2000×1500 to 1270×952, 3840×2160 to
    /// 2576×1449 on Opus 4.7, and the A4 scan 1075×1520 (within the edge, over the token budget)
    /// to 924×1307.
    #[test]
    fn the_guides_resizes() {
        assert_eq!(resized(1920, 1080, STANDARD), (1456, 819));
        assert_eq!(resized(2000, 1500, STANDARD), (1270, 952));
        assert_eq!(resized(3840, 2160, STANDARD), (1456, 819));
        assert_eq!(resized(3840, 2160, HIGH_RESOLUTION), (2576, 1449));
        assert_eq!(resized(1075, 1520, STANDARD), (924, 1307));
    }

    #[test]
    fn models_have_their_limits() {
        for model in [
            "claude-opus-4-7",
            "claude-opus-4-8",
            "claude-opus-5",
            "claude-sonnet-5",
            "claude-fable-5",
            "claude-mythos-5",
            "anthropic/claude-opus-4-7",
        ] {
            assert_eq!(limits(model), HIGH_RESOLUTION, "{model}");
        }
        for model in [
            "claude-sonnet-4-6",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-5",
            "claude-opus-4-20250514",
            "claude-haiku-4-5",
            "claude-3-5-sonnet-20240620",
            "claude-3-7-sonnet-20250219",
            "some-model",
        ] {
            assert_eq!(limits(model), STANDARD, "{model}");
        }
    }

    /// Extreme shapes stay within the limits and cost at least a token.
    #[test]
    fn extreme_shapes_are_bounded() {
        for limits in [STANDARD, HIGH_RESOLUTION] {
            for size in [(1, 1), (1, 8000), (8000, 1), (8000, 8000), (u32::MAX, 3)] {
                let t = tokens(limits, size);
                let b = bounds(limits);
                assert!(b.min <= t && t <= b.max, "{size:?}: {t}");
            }
        }
    }
}
