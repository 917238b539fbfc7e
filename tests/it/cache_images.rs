//! `prompt-inspector cache` over calls that carry a large screenshot: the image counts as one image
//! part of `IMAGE_TOKENS`, never as its base64 text, and calls compare it by identity.

use std::path::PathBuf;

use prompt_inspector::runloop::blame::CacheReport;
use prompt_inspector::runloop::cache::IMAGE_TOKENS;

#[path = "../../benches/support/image_gen.rs"]
mod image_gen;

const SIX_MB: usize = 6 * 1024 * 1024;

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
    let shot = image_gen::png(SIX_MB, 1);
    let report = blame("shared", &[(&shot, 0), (&shot, 1)]);
    let [first, second] = &report.steps[..] else {
        panic!("two steps, got {}", report.steps.len());
    };
    for s in [first, second] {
        assert_eq!((s.images, s.image_tokens), (1, IMAGE_TOKENS));
        // The base64 text alone is over a million tokens; the request is its text and one image.
        assert!(
            s.request_tokens < 3_000,
            "{} tokens: the image was tokenized",
            s.request_tokens
        );
        // Bytes of the serialisation: the image is a marker of its identity, not its 8 MB of base64.
        assert!(s.request_bytes < 10_000, "{} bytes", s.request_bytes);
    }
    // The tokens do not depend on the image's size: the same call with a 1 KB image.
    let small = blame("small", &[(&image_gen::png(1024, 1), 0)]);
    assert_eq!(small.steps[0].request_tokens, first.request_tokens);
    // The second call only appends a reply: everything of the first call, the image with it, is
    // shared and cached.
    let d = second.first_difference.as_ref().expect("the calls differ");
    assert_eq!(d.before, None, "the second call only appends");
    assert_eq!(second.common_prefix_tokens, Some(first.request_tokens));
    assert!(first.request_tokens > 1024 + IMAGE_TOKENS);
    assert!(second.openai.cached_tokens > IMAGE_TOKENS);
    assert!(second.openai.cached_tokens >= first.request_tokens - 128);
    assert_eq!(second.anthropic.cached_tokens, first.request_tokens);
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
        shared < first.request_tokens - IMAGE_TOKENS,
        "{shared} tokens shared"
    );
    assert!(
        shared > 1024,
        "the system prompt is shared: {shared} tokens"
    );
    assert_eq!(second.request_tokens, first.request_tokens);
    assert_eq!(second.anthropic.hit.map(|[step, _]| step), Some(0));
    assert!(second.anthropic.cached_tokens < first.request_tokens - IMAGE_TOKENS);
}
