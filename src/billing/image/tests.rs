use super::*;

fn sized(w: u32, h: u32) -> ImageRef<'static> {
    ImageRef {
        size: Some((w, h)),
        ..ImageRef::default()
    }
}

#[test]
fn each_api_has_its_rule() {
    // OpenAI, gpt-4o: 85 + 4 tiles × 170.
    assert_eq!(
        tokens(Api::OpenaiChat, "gpt-4o", &sized(1024, 1024)),
        (765, Provenance::Exact)
    );
    assert_eq!(
        tokens(Api::OpenaiResponses, "gpt-4o", &sized(1024, 1024)),
        (765, Provenance::Exact)
    );
    // Anthropic: 36 × 36 patches of 28 px.
    assert_eq!(
        tokens(Api::Anthropic, "claude-sonnet-4-6", &sized(1000, 1000)),
        (1296, Provenance::Exact)
    );
    // Gemini 2: a small image is one 258-token unit; Gemini 3 counts by resolution.
    assert_eq!(
        tokens(Api::Gemini, "gemini-2.5-flash", &sized(300, 300)),
        (258, Provenance::Exact)
    );
    let low = ImageRef {
        media_resolution: Some("MEDIA_RESOLUTION_LOW"),
        ..ImageRef::default()
    };
    assert_eq!(
        tokens(Api::Gemini, "gemini-3.1-pro-preview", &low),
        (280, Provenance::Exact)
    );
}

#[test]
fn detail_low_needs_no_size() {
    let low = ImageRef {
        detail: Some("low"),
        ..ImageRef::default()
    };
    assert_eq!(
        tokens(Api::OpenaiChat, "gpt-4o", &low),
        (85, Provenance::Exact)
    );
    assert_eq!(tokens(Api::OpenaiChat, "o3", &low), (75, Provenance::Exact));
}

#[test]
fn inferred_and_disputed_rules_are_estimates() {
    let (n, p) = tokens(Api::OpenaiChat, "gpt-5-mini", &sized(1024, 1024));
    assert_eq!(n, 1659);
    assert_eq!(
        p,
        Provenance::Estimate {
            bound_percent: 35.0
        }
    );
    let (_, p) = tokens(Api::OpenaiChat, "some-new-model", &sized(1024, 1024));
    assert_eq!(
        p,
        Provenance::Estimate {
            bound_percent: 100.0
        }
    );
    let (n, p) = tokens(Api::Gemini, "gemini-2.5-flash", &sized(1920, 1080));
    assert_eq!(n, 6 * 258);
    assert_eq!(
        p,
        Provenance::Estimate {
            bound_percent: 100.0
        }
    );
}

/// An image given by URL: the midpoint of what the rule allows, with a bound reaching both ends.
#[test]
fn url_images_are_bounded_estimates() {
    let url = ImageRef::default();
    // gpt-4o: between 1 tile (255) and 8 tiles (1445).
    let (n, p) = tokens(Api::OpenaiChat, "gpt-4o", &url);
    assert_eq!(n, 850);
    assert_eq!(
        p,
        Provenance::Estimate {
            bound_percent: 70.0
        }
    );
    // The usage corpus's URL image (800×400, billed as 2 tiles: 425) is within it.
    assert!(n.abs_diff(425) as f64 <= p.bound() / 100.0 * n as f64);
    // Anthropic: 1 to 1,568 tokens on most models, 4,784 on Opus 4.7 and later.
    assert_eq!(tokens(Api::Anthropic, "claude-sonnet-4-5", &url).0, 785);
    assert_eq!(tokens(Api::Anthropic, "claude-opus-4-7", &url).0, 2393);
    // Gemini 3's count does not depend on the size.
    assert_eq!(
        tokens(Api::Gemini, "gemini-3.1-pro-preview", &url),
        (1120, Provenance::Exact)
    );
    let (n, p) = tokens(Api::Gemini, "gemini-2.5-pro", &url);
    assert_eq!(n, (258 + 16 * 258) / 2);
    assert!(p.bound() < 100.0);
}

#[test]
fn estimates_cover_their_range() {
    for (min, max) in [(1, 1568), (255, 1445), (2, 36_000), (258, 4128), (7, 8)] {
        let (mid, p) = Bounds { min, max }.estimate();
        for end in [min, max] {
            assert!(
                mid.abs_diff(end) as f64 <= p.bound() / 100.0 * mid as f64,
                "{end} outside {mid} ±{}%",
                p.bound()
            );
        }
    }
    assert_eq!(
        Bounds { min: 85, max: 85 }.estimate(),
        (85, Provenance::Exact)
    );
}
