//! A request's provenance where it holds images (docs/models.md, "Images"): `billing::image`
//! states an image's bound in percent of the image's own figure, a prediction's provenance in
//! percent of the billed input. Each provider's prediction must convert one into the other:
//! images that may be off by `m` tokens in a request predicted at `p` tokens leave the billed
//! input within `m / (p - m)` of the prediction, so a small image beside a long text barely
//! widens the bound and an image that is most of the request widens it past its own.

use base64::Engine as _;
use prompt_inspector::billing::image::{self, ImageRef};
use prompt_inspector::billing::{self, anthropic, gemini};
use prompt_inspector::usage::{Api, Provenance};
use serde_json::{json, Value as Json};

/// The bound a request predicted at `predicted` tokens gets from images worth `tokens` within
/// `image_bound` percent of themselves, worked out by the formula above.
fn converted(predicted: usize, tokens: usize, image_bound: f64) -> f64 {
    let margin = image_bound / 100.0 * tokens as f64;
    (margin / (predicted as f64 - margin) * 100.0).ceil()
}

/// A PNG's first bytes: the signature and an IHDR chunk naming the size (all a size reader needs).
fn png(width: u32, height: u32) -> String {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(width.to_be_bytes());
    b.extend(height.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn long_text() -> String {
    "The quick brown fox jumps over the lazy dog. ".repeat(1_500)
}

fn predict(api: Api, model: &str, body: &Json) -> billing::Prediction {
    billing::predict(api, model, body).expect("a body the billing reads")
}

#[test]
fn openai_converts_an_images_own_bound_to_the_inputs() {
    // An image by URL: its size unknown, the midpoint of what the rule allows.
    let (tokens, own) = image::tokens(Api::OpenaiChat, "gpt-4o", &ImageRef::default());
    assert!(own.bound() > 50.0, "{own:?}");
    let body = |text: &str| {
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]})
    };
    // Beside a long text the image is a small share of the input: the text is exact, so the
    // bound is the image's margin over the rest, far below the image's own.
    let p = predict(Api::OpenaiChat, "gpt-4o", &body(&long_text()));
    let want = converted(p.input_tokens, tokens, own.bound());
    assert!(want < 10.0, "{want}");
    assert_eq!(
        p.provenance,
        Provenance::Estimate {
            bound_percent: want
        }
    );
    // Alone, the image is the request: the bound exceeds the image's own.
    let p = predict(Api::OpenaiChat, "gpt-4o", &body("Describe."));
    let want = converted(p.input_tokens, tokens, own.bound());
    assert!(want > own.bound(), "{want} vs {own:?}");
    assert_eq!(p.provenance.bound(), want);
}

#[test]
fn anthropic_converts_an_images_own_bound_to_the_inputs() {
    let model = "claude-sonnet-4-5";
    let (tokens, own) = image::tokens(Api::Anthropic, model, &ImageRef::default());
    assert!(own.bound() > anthropic::BOUND_PERCENT, "{own:?}");
    let body = |text: &str| {
        json!({"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}]}]})
    };
    // A small share: the text's own estimate bound is the looser, not the image's.
    let p = predict(Api::Anthropic, model, &body(&long_text()));
    assert!(converted(p.input_tokens, tokens, own.bound()) < anthropic::BOUND_PERCENT);
    assert_eq!(p.provenance.bound(), anthropic::BOUND_PERCENT);
    // Most of the request: the image's margin over the rest.
    let p = predict(Api::Anthropic, model, &body("Describe."));
    let want = converted(p.input_tokens, tokens, own.bound());
    assert!(want > anthropic::BOUND_PERCENT, "{want}");
    assert_eq!(p.provenance.bound(), want);
}

#[test]
fn gemini_converts_an_images_own_bound_to_the_inputs() {
    let model = "gemini-2.0-flash";
    // Past 384 px Gemini 2's tiling is undocumented: the image is an estimate of itself.
    let data = png(1_000, 1_000);
    let (tokens, own) = image::tokens(
        Api::Gemini,
        model,
        &ImageRef {
            size: Some((1_000, 1_000)),
            ..Default::default()
        },
    );
    assert!(own.bound() > gemini::BOUND_PERCENT, "{own:?}");
    let body = |text: &str| {
        json!({"contents": [{"role": "user", "parts": [
            {"text": text},
            {"inlineData": {"mimeType": "image/png", "data": data}}]}]})
    };
    let p = predict(Api::Gemini, model, &body(&long_text()));
    assert!(converted(p.input_tokens, tokens, own.bound()) < gemini::BOUND_PERCENT);
    assert_eq!(p.provenance.bound(), gemini::BOUND_PERCENT);
    let p = predict(Api::Gemini, model, &body("Describe."));
    let want = converted(p.input_tokens, tokens, own.bound());
    assert!(want > own.bound(), "{want} vs {own:?}");
    assert_eq!(p.provenance.bound(), want);
}
