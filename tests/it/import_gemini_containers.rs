//! Gemini calls in recorded traffic (docs/cli.md, `import`): a cassette and a HAR file holding a
//! Google AI `streamGenerateContent?alt=sse` call and a Vertex AI `generateContent` call, made by
//! `fixtures/import/vcr/make_constructed.py` from two Gemini pairs of `corpora/usage/` (request
//! bodies verbatim, responses built around each pair's recorded `usageMetadata`). Each call
//! imports like the other providers' through `import::exchange`: the model from the URL, the
//! usage from `usageMetadata` (a stream's last chunk, not its first), the request's parameters.

use prompt_inspector::usage::Api;

use crate::import_containers::import_dir;
use crate::support::usage;

/// The figures below are the corpus pairs' `response_usage`, normalised by hand: Gemini's
/// `promptTokenCount` is the whole input (no cached content here), the output is
/// `candidatesTokenCount + thoughtsTokenCount` and the reasoning `thoughtsTokenCount`.
fn check(file: &str, tag: &str, first_time: &str) {
    let (scenes, stderr) = import_dir(file, tag);
    assert_eq!(scenes.len(), 2, "{stderr}");
    assert!(!stderr.contains("skipped"), "{stderr}");

    // openinference/014-gemini-...: promptTokenCount 109, candidatesTokenCount 29,
    // thoughtsTokenCount 89; the stream's first chunk says 109 in all and must not win.
    let stream = scenes[0].1.recorded.clone().expect("recorded");
    assert_eq!(stream.api, Api::Gemini);
    assert_eq!(stream.model.as_deref(), Some("gemini-2.0-flash"));
    assert_eq!(
        stream.usage,
        Some(usage(109, 109, 0, &[], 29 + 89, Some(89)))
    );
    assert_eq!(stream.timestamp.as_deref(), Some(first_time));

    // otel-python-contrib/001-gemini-...: Vertex AI's numeric enums; promptTokenCount 5,
    // no candidatesTokenCount (maxOutputTokens 5 spent on thoughts), thoughtsTokenCount 4.
    let vertex = scenes[1].1.recorded.clone().expect("recorded");
    assert_eq!(vertex.api, Api::Gemini);
    assert_eq!(vertex.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(vertex.usage, Some(usage(5, 5, 0, &[], 4, Some(4))));
    let params = &vertex.params;
    assert_eq!(params["generationConfig"]["maxOutputTokens"], 5);
    assert_eq!(params["generationConfig"]["temperature"], 0.2);
}

#[test]
fn a_cassettes_gemini_calls_import_with_their_usage_and_urls_model() {
    // The time is the response's `Date` header.
    check(
        "fixtures/import/vcr/gemini-calls.yaml",
        "gemini-vcr",
        "2025-05-12T10:20:00Z",
    );
}

#[test]
fn a_har_files_gemini_calls_import_with_their_usage_and_urls_model() {
    // The time is the entry's `startedDateTime`.
    check(
        "fixtures/import/vcr/gemini-calls.har",
        "gemini-har",
        "2025-05-12T10:20:00.000Z",
    );
}
