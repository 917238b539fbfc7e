//! `prompt-inspector cache` over calls that carry a large screenshot: the image is one part priced
//! by the size its header declares, never its base64 text; calls compare it by identity; and each
//! model's costs price it by that model's provider's rule.

use std::path::PathBuf;

use prompt_inspector::runloop::blame::CacheReport;

#[path = "../../benches/support/image_gen.rs"]
mod image_gen;

const SIX_MB: usize = 6 * 1024 * 1024;

/// What OpenAI's rule for gpt-4o (the step figures' reference) charges for a 1920×1080 image at
/// `auto` detail: fitted to a short side of 768 (1365×768), 3 × 2 tiles of 170, plus 85.
const REFERENCE_TOKENS: usize = 85 + 6 * 170;

/// Writes the scenes (one per call, `(image, replies)`) into a fresh folder and blames them.
fn blame(tag: &str, calls: &[(&[u8], usize)]) -> CacheReport {
    let dir = std::env::temp_dir().join(format!("pi-cache-images-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let paths: Vec<PathBuf> = calls
        .iter()
        .enumerate()
        .map(|(k, (image, replies))| {
            let path = dir.join(format!("{:02}.scene.json", k + 1));
            std::fs::write(&path, image_gen::scene(image, *replies)).expect("write scene");
            path
        })
        .collect();
    let table = prompt_inspector::pricing::Table::builtin();
    let models = table.select(&[]).expect("the default models");
    let report = prompt_inspector::conversation::blame_files(&paths, &models)
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    report
}

#[test]
fn two_calls_sharing_a_six_mb_screenshot_share_it_as_one_image() {
    assert_eq!(image_gen::SCREEN, (1920, 1080));
    let shot = image_gen::png(SIX_MB, 1);
    let report = blame("shared", &[(&shot, 0), (&shot, 1)]);
    let [first, second] = &report.steps[..] else {
        panic!("two steps, got {}", report.steps.len());
    };
    for s in [first, second] {
        assert_eq!((s.images, s.image_tokens), (1, REFERENCE_TOKENS));
        // The base64 text alone is over a million tokens; the request is its text and one image.
        assert!(
            s.request_tokens < 3_000,
            "{} tokens: the image was tokenized",
            s.request_tokens
        );
        // Bytes of the serialisation: the image is a marker of its identity, not its 8 MB of base64.
        assert!(s.request_bytes < 10_000, "{} bytes", s.request_bytes);
    }
    // The tokens depend on the image's declared size, not its bytes: the same call with a 1 KB
    // image of the same size.
    let small = blame("small", &[(&image_gen::png(1024, 1), 0)]);
    assert_eq!(small.steps[0].request_tokens, first.request_tokens);
    // The second call only appends a reply: everything of the first call, the image with it, is
    // shared and cached.
    let d = second.first_difference.as_ref().expect("the calls differ");
    assert_eq!(d.before, None, "the second call only appends");
    assert_eq!(second.common_prefix_tokens, Some(first.request_tokens));
    assert!(first.request_tokens > 1024 + REFERENCE_TOKENS);
    assert!(second.openai.cached_tokens > REFERENCE_TOKENS);
    assert!(second.openai.cached_tokens >= first.request_tokens - 128);
    assert_eq!(second.anthropic.cached_tokens, first.request_tokens);
}

/// Each default model prices the screenshot by its provider's documented rule: the first call's
/// input is its text plus that model's image tokens.
#[test]
fn each_model_prices_the_screenshot_by_its_rule() {
    let shot = image_gen::png(64 * 1024, 3);
    let report = blame("models", &[(&shot, 0)]);
    let step = &report.steps[0];
    let text = step.request_tokens - step.image_tokens;
    let input = |id: &str| {
        let m = report
            .models
            .iter()
            .find(|m| m.model == id)
            .unwrap_or_else(|| panic!("{id} is a default model"));
        let c = &m.calls[0];
        c.uncached_tokens + c.cache_read_tokens + c.cache_write_tokens
    };
    // GPT-5: 70 + 6 tiles × 140 (OpenAI's tile table).
    assert_eq!(input("openai/gpt-5"), text + 70 + 6 * 140);
    // Claude Sonnet 4.5: resized to 1456×819, 52 × 30 patches of 28 px (Anthropic's table gives
    // 1,560 tokens for 1920×1080).
    assert_eq!(input("anthropic/claude-sonnet-4-5"), text + 1560);
    // Gemini 2.5 Flash: 3 × 2 tiles of 768 px, 258 tokens each.
    assert_eq!(input("google/gemini-2.5-flash"), text + 6 * 258);
    // DeepSeek documents no image rule: priced as gpt-4o prices it, an estimate.
    assert_eq!(input("deepseek/deepseek-flash"), text + REFERENCE_TOKENS);
}

#[test]
fn a_different_screenshot_breaks_the_prefix_at_the_image() {
    let shot = image_gen::png(SIX_MB, 1);
    let mut other = shot.clone();
    // One byte differs, at the very end of the image.
    *other.last_mut().expect("bytes") ^= 1;
    let report = blame("different", &[(&shot, 0), (&other, 0)]);
    let [first, second] = &report.steps[..] else {
        panic!("two steps, got {}", report.steps.len());
    };
    let d = second.first_difference.as_ref().expect("the images differ");
    let now = d.now.as_ref().expect("inside the request");
    assert_eq!(
        (now.role, now.segment, now.source),
        ("user", Some("intermediate_msgs"), "message")
    );
    // Everything before the image is shared, the image is not, and nothing after it.
    let shared = second.common_prefix_tokens.expect("a second call");
    assert!(
        shared < first.request_tokens - REFERENCE_TOKENS,
        "{shared} tokens shared"
    );
    assert!(
        shared > 1024,
        "the system prompt is shared: {shared} tokens"
    );
    assert_eq!(second.request_tokens, first.request_tokens);
    assert_eq!(second.anthropic.hit.map(|[step, _]| step), Some(0));
    assert!(second.anthropic.cached_tokens < first.request_tokens - REFERENCE_TOKENS);
}
