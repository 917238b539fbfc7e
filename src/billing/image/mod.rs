//! Images priced by each provider's documented rule (docs/models.md, "Images"): their pixel size
//! read from the bytes ([`pixel_size`]), then OpenAI's tiles or patches by model and `detail`,
//! Anthropic's 28 px patches after its resize, Gemini's per-image or per-tile counts or its
//! `media_resolution`. An image whose size is unknown (given by URL) is an estimate halfway
//! between the fewest and most tokens the rule allows, with the bound that covers both.

mod anthropic;
mod gemini;
mod header;
mod openai;

pub use header::{pixel_size, pixel_size_base64, MAX_HEADER_BYTES, MAX_JPEG_SEGMENTS};

use crate::usage::{Api, Provenance};

/// An image in a request: its pixel size when the bytes are in the body, the `detail` it asks
/// for (OpenAI: `low`, `high`, `original`, `auto`) and its `media_resolution` (Gemini, the
/// part's own or the request's; `MEDIA_RESOLUTION_LOW` and `low` alike).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageRef<'a> {
    pub size: Option<(u32, u32)>,
    pub detail: Option<&'a str>,
    pub media_resolution: Option<&'a str>,
}

/// The fewest and most tokens an image can cost under a rule, whatever its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub min: usize,
    pub max: usize,
}

impl Bounds {
    fn exact(n: usize) -> Bounds {
        Bounds { min: n, max: n }
    }

    /// The figure for an image of unknown size: the midpoint, with the bound (in percent of the
    /// figure) that reaches both ends, so every count the rule allows is within it.
    pub fn estimate(self) -> (usize, Provenance) {
        if self.min == self.max {
            return (self.min, Provenance::Exact);
        }
        let mid = (self.min + self.max).div_ceil(2);
        let spread = (self.max - mid).max(mid - self.min) as f64;
        let bound = (spread / mid as f64 * 100.0).ceil();
        (
            mid,
            Provenance::Estimate {
                bound_percent: bound,
            },
        )
    }
}

/// Tokens an image is billed as by `api` for `model`, and how sure that is: exact where the
/// provider documents the count for the size, an estimate with the family's bound where the rule
/// is inferred or disputed, and for an image of unknown size the midpoint of what the rule
/// allows with the bound that covers it.
pub fn tokens(api: Api, model: &str, image: &ImageRef<'_>) -> (usize, Provenance) {
    match api {
        Api::OpenaiChat | Api::OpenaiResponses => {
            let family = openai::family(model);
            let Some(size) = image.size else {
                return openai::bounds(family.rule, image.detail).estimate();
            };
            let n = openai::tokens(family.rule, image.detail, size);
            (n, provenance(family.bound_percent))
        }
        Api::Anthropic => {
            let limits = anthropic::limits(model);
            match image.size {
                Some(size) => (anthropic::tokens(limits, size), Provenance::Exact),
                None => anthropic::bounds(limits).estimate(),
            }
        }
        Api::Gemini => {
            let generation = gemini::generation(model);
            let resolution = image.media_resolution;
            match image.size {
                _ if !gemini::needs_size(generation, resolution) => (
                    gemini::tokens(generation, resolution, (1, 1)),
                    Provenance::Exact,
                ),
                // Up to 384×384 the count is documented; past it, how the image is cut into
                // tiles is not, so the tile count can be off by the whole of it.
                Some((w, h)) if w <= 384 && h <= 384 => (
                    gemini::tokens(generation, resolution, (w, h)),
                    Provenance::Exact,
                ),
                Some(size) => (
                    gemini::tokens(generation, resolution, size),
                    provenance(GEMINI_TILES_BOUND),
                ),
                None => gemini::bounds(generation, resolution).estimate(),
            }
        }
    }
}

/// How far a request's images and documents may be off, kept apart from its provenance because
/// the two are in different units: an image's bound is in percent of its own figure, the
/// request's ([`Provenance`]) in percent of the billed input.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Margin {
    /// Tokens the media may be off by, either way.
    pub tokens: f64,
    /// A bound already in percent of the input (media whose length the body does not give).
    pub input_percent: f64,
}

impl Margin {
    /// Adds a figure of `tokens` that is within `provenance`'s bound of its own size.
    pub fn add(&mut self, tokens: usize, provenance: &Provenance) {
        self.tokens += provenance.bound() / 100.0 * tokens as f64;
    }

    /// The margin as a bound on a request predicted at `predicted` tokens in all: the billed
    /// input can be as low as `predicted - tokens`, so the bound is tokens / (predicted - tokens).
    pub fn provenance(&self, predicted: usize) -> Provenance {
        let media = if self.tokens > 0.0 {
            let lowest = (predicted as f64 - self.tokens).max(1.0);
            (self.tokens / lowest * 100.0).ceil()
        } else {
            0.0
        };
        provenance(media.max(self.input_percent))
    }
}

/// How far Gemini 2's tile count can be off for an image over 384 px: Google's guide says such
/// an image is "cropped and scaled as needed" into 768 px tiles without saying how.
const GEMINI_TILES_BOUND: f64 = 100.0;

fn provenance(bound_percent: f64) -> Provenance {
    if bound_percent == 0.0 {
        Provenance::Exact
    } else {
        Provenance::Estimate { bound_percent }
    }
}

#[cfg(test)]
mod tests;
