//! Google's rules (docs/models.md, "Images"). Gemini 3 allocates an image a fixed number of
//! tokens by its `media_resolution` (high when none is given). Gemini 2 counts an image with both
//! sides at most 384 px as 258 tokens and a larger one as 768×768 tiles of 258 tokens each; a
//! request-wide `mediaResolution` of low or medium makes it 64 or 256 tokens.

use super::Bounds;

/// Tokens of a Gemini 2 tile, and of a small image.
const TILE_TOKENS: usize = 258;
const SMALL_SIDE: u32 = 384;
const TILE_SIDE: u32 = 768;
/// The largest side assumed for an image whose size is unknown: Gemini scales larger images
/// down to fit 3072×3072 (docs/models.md, "Images").
const LARGEST_SIDE: u32 = 3072;

/// How a model counts images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Generation {
    /// Gemini 1.5 and 2.x: per image or per tile.
    Tiles,
    /// Gemini 3 and later: by `media_resolution`.
    Resolution,
}

pub(super) fn generation(model: &str) -> Generation {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let major = name
        .strip_prefix("gemini-")
        .and_then(|rest| rest.split(['.', '-']).next())
        .and_then(|n| n.parse::<u32>().ok());
    match major {
        Some(m) if m >= 3 => Generation::Resolution,
        _ => Generation::Tiles,
    }
}

/// A `media_resolution` level (`MEDIA_RESOLUTION_HIGH`, `media_resolution_high` and `high` alike).
fn level(media_resolution: Option<&str>) -> Option<String> {
    let r = media_resolution?.to_ascii_lowercase();
    let r = r.strip_prefix("media_resolution_").unwrap_or(&r).to_owned();
    (r != "unspecified").then_some(r)
}

/// Gemini 3's tokens for an image at a resolution: low 280, medium 560, high (the default for
/// images) 1120, ultra high 2240.
fn by_resolution(media_resolution: Option<&str>) -> usize {
    match level(media_resolution).as_deref() {
        Some("low") => 280,
        Some("medium") => 560,
        Some("ultra_high") => 2240,
        _ => 1120,
    }
}

/// Gemini 2's count for a request-wide resolution that fixes it: low 64, medium 256 (high and
/// none count tiles).
fn fixed_tiles(media_resolution: Option<&str>) -> Option<usize> {
    match level(media_resolution).as_deref() {
        Some("low") => Some(64),
        Some("medium") => Some(256),
        _ => None,
    }
}

/// Whether the count depends on the image's size at all.
pub(super) fn needs_size(generation: Generation, media_resolution: Option<&str>) -> bool {
    generation == Generation::Tiles && fixed_tiles(media_resolution).is_none()
}

/// The tokens of an image of `size` (ignored where the count does not depend on it).
pub(super) fn tokens(
    generation: Generation,
    media_resolution: Option<&str>,
    (w, h): (u32, u32),
) -> usize {
    match generation {
        Generation::Resolution => by_resolution(media_resolution),
        Generation::Tiles => fixed_tiles(media_resolution).unwrap_or_else(|| tiles(w, h)),
    }
}

fn tiles(w: u32, h: u32) -> usize {
    if w <= SMALL_SIDE && h <= SMALL_SIDE {
        return TILE_TOKENS;
    }
    // An image larger than the largest side is scaled down to it first.
    let long = w.max(h);
    let (w, h) = if long > LARGEST_SIDE {
        let scale = f64::from(LARGEST_SIDE) / f64::from(long);
        (
            ((f64::from(w) * scale).floor() as u32).max(1),
            ((f64::from(h) * scale).floor() as u32).max(1),
        )
    } else {
        (w, h)
    };
    (w.div_ceil(TILE_SIDE) * h.div_ceil(TILE_SIDE)) as usize * TILE_TOKENS
}

/// The fewest and most tokens any image costs.
pub(super) fn bounds(generation: Generation, media_resolution: Option<&str>) -> Bounds {
    match generation {
        Generation::Resolution => Bounds::exact(by_resolution(media_resolution)),
        Generation::Tiles => match fixed_tiles(media_resolution) {
            Some(n) => Bounds::exact(n),
            None => Bounds {
                min: TILE_TOKENS,
                max: tiles(LARGEST_SIDE, LARGEST_SIDE),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Google's token guide: "Images with both dimensions <= 384 pixels are counted as 258
    /// tokens. Images larger in one or both dimensions are cropped and scaled as needed into
    /// tiles of 768x768 pixels, each counted as 258 tokens."
    #[test]
    fn gemini_2_counts_images_and_tiles() {
        let g = generation("gemini-2.5-flash");
        assert_eq!(g, Generation::Tiles);
        assert_eq!(tokens(g, None, (384, 384)), 258);
        assert_eq!(tokens(g, None, (1, 1)), 258);
        assert_eq!(tokens(g, None, (385, 100)), 258);
        assert_eq!(tokens(g, None, (768, 768)), 258);
        assert_eq!(tokens(g, None, (1536, 768)), 2 * 258);
        assert_eq!(tokens(g, None, (1920, 1080)), 3 * 2 * 258);
        assert_eq!(tokens(g, Some("MEDIA_RESOLUTION_LOW"), (1920, 1080)), 64);
        assert_eq!(
            tokens(g, Some("MEDIA_RESOLUTION_MEDIUM"), (1920, 1080)),
            256
        );
        assert_eq!(
            tokens(g, Some("MEDIA_RESOLUTION_HIGH"), (1920, 1080)),
            6 * 258
        );
    }

    /// Google's media resolution guide, "Token counts" for Gemini 3 images: low 280, medium 560,
    /// high 1120, ultra high 2240, high when unspecified; the size does not matter.
    #[test]
    fn gemini_3_counts_by_resolution() {
        let g = generation("gemini-3.1-pro-preview");
        assert_eq!(g, Generation::Resolution);
        assert_eq!(
            generation("models/gemini-3-flash-preview"),
            Generation::Resolution
        );
        for (resolution, expected) in [
            (None, 1120),
            (Some("MEDIA_RESOLUTION_UNSPECIFIED"), 1120),
            (Some("MEDIA_RESOLUTION_LOW"), 280),
            (Some("media_resolution_medium"), 560),
            (Some("high"), 1120),
            (Some("MEDIA_RESOLUTION_ULTRA_HIGH"), 2240),
        ] {
            assert_eq!(
                tokens(g, resolution, (4000, 3000)),
                expected,
                "{resolution:?}"
            );
            assert_eq!(tokens(g, resolution, (10, 10)), expected, "{resolution:?}");
        }
        assert!(!needs_size(g, None));
        assert!(needs_size(generation("gemini-2.0-flash"), None));
        assert_eq!(generation("gemini-1.5-pro"), Generation::Tiles);
    }

    #[test]
    fn huge_images_are_scaled_to_the_largest_side() {
        let g = Generation::Tiles;
        assert_eq!(tokens(g, None, (30_000, 30_000)), 16 * 258);
        assert_eq!(tokens(g, None, (u32::MAX, 1)), 4 * 258);
        let b = bounds(g, None);
        assert_eq!((b.min, b.max), (258, 16 * 258));
    }
}
