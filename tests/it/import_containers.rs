//! `prompt-inspector import` of recorded traffic with responses (docs/cli.md, `import`): VCR
//! cassettes (YAML, vcrpy's JSON) and HAR files through the real command line, each LLM call a
//! scene whose `recorded.usage` is the usage its recorded response billed (the numbers below
//! were read by hand from the cassettes in `fixtures/import/vcr/`, PROVENANCE.md there); the
//! other recorded calls skipped with why; gzip, chunked and event-stream bodies; positioned
//! errors; size limits; OpenTelemetry spans' usage.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use prompt_inspector::scene;
use prompt_inspector::usage::Api;

use crate::support::{cli, root, tempdir, usage};

/// Runs `import FILE --out-dir DIR`; returns the scenes written (in file-name order) and stderr.
pub(crate) fn import_dir(input: &str, tag: &str) -> (Vec<(String, scene::Scene)>, String) {
    let dir = tempdir("import-containers", tag);
    let out = cli(&["import", input, "--out-dir", &dir.to_string_lossy()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{input}: {stderr}");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("out dir")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    let scenes = names
        .iter()
        .map(|p| {
            let s = scene::load_file(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                s,
            )
        })
        .collect();
    (scenes, stderr)
}

/// The import's exit code and stderr.
fn import_fails(input: &Path) -> (Option<i32>, String) {
    let out = cli(&["import", &input.to_string_lossy()]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

#[test]
fn a_cassette_becomes_a_conversation_with_each_calls_billed_usage_and_time() {
    let (scenes, stderr) = import_dir(
        "fixtures/import/vcr/anthropic-prompt-caching.yaml",
        "caching",
    );
    assert!(
        stderr.contains("read as vcr (detected: a VCR cassette"),
        "{stderr}"
    );
    let names: Vec<&str> = scenes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "01-anthropic-prompt-caching.scene.json",
            "02-anthropic-prompt-caching.scene.json"
        ]
    );
    let rec: Vec<&scene::Recorded> = scenes
        .iter()
        .map(|(_, s)| s.recorded.as_ref().expect("recorded"))
        .collect();
    // Interaction 0: input_tokens 4, cache_creation_input_tokens 1163, output_tokens 187.
    assert_eq!(
        rec[0].usage,
        Some(usage(1167, 4, 0, &[("unspecified", 1163)], 187, None))
    );
    // Interaction 1: input_tokens 4, cache_read_input_tokens 1163, output_tokens 202.
    assert_eq!(rec[1].usage, Some(usage(1167, 4, 1163, &[], 202, None)));
    assert_eq!(rec[0].timestamp.as_deref(), Some("2025-03-15T09:40:00Z"));
    assert_eq!(rec[1].timestamp.as_deref(), Some("2025-03-15T09:40:04Z"));
    for r in &rec {
        assert_eq!(r.api, Api::Anthropic);
        assert_eq!(r.model.as_deref(), Some("claude-3-5-sonnet-20240620"));
        assert_eq!(r.params.get("max_tokens"), Some(&serde_json::json!(1024)));
        // The request's own breakpoint, on the first content block.
        assert_eq!(r.cache_control.len(), 1);
        assert_eq!(r.cache_control[0].at, "/messages/0/content/0");
    }
    let description = scenes[1].1.description.clone().unwrap_or_default();
    assert!(
        description.starts_with("Imported from a VCR cassette (anthropic-prompt-caching.yaml, interaction 1 (POST https://api.anthropic.com/v1/messages))"),
        "{description}"
    );
}

/// prompt_tokens 24, completion_tokens 11, reasoning_tokens 0 in a gzip body; the chunked copy
/// has the same gzip bytes in chunked framing.
#[test]
fn gzip_and_chunked_bodies_are_decoded() {
    for (input, tag) in [
        ("fixtures/import/vcr/openai-chat-gzip.yaml", "gzip"),
        ("fixtures/import/vcr/openai-chat-chunked.yaml", "chunked"),
    ] {
        let (scenes, _) = import_dir(input, tag);
        assert_eq!(scenes.len(), 1, "{input}");
        let r = scenes[0].1.recorded.clone().expect("recorded");
        assert_eq!(r.usage, Some(usage(24, 24, 0, &[], 11, Some(0))), "{input}");
        assert_eq!(r.model.as_deref(), Some("gpt-4o"), "{input}");
        assert_eq!(
            r.timestamp.as_deref(),
            Some("2025-05-12T16:58:24Z"),
            "{input}"
        );
    }
}

#[test]
fn streamed_responses_give_the_usage_of_their_last_event() {
    let cases = [
        // The final chunk (stream_options.include_usage): prompt 12, completion 5; YAML and
        // vcrpy's JSON serializer.
        (
            "openai-chat-stream.yaml",
            Api::OpenaiChat,
            usage(12, 12, 0, &[], 5, Some(0)),
        ),
        (
            "openai-chat-stream.json",
            Api::OpenaiChat,
            usage(12, 12, 0, &[], 5, Some(0)),
        ),
        // message_start: input 14 (output 6 so far); message_delta: output 11.
        (
            "anthropic-stream.yaml",
            Api::Anthropic,
            usage(14, 14, 0, &[], 11, None),
        ),
        // A parsed_body request; message_delta: output 5.
        (
            "anthropic-parsed-body-stream.yaml",
            Api::Anthropic,
            usage(20, 20, 0, &[], 5, None),
        ),
        // response.completed: input 53, output 469 of which 448 reasoning.
        (
            "openai-responses-stream.yaml",
            Api::OpenaiResponses,
            usage(53, 53, 0, &[], 469, Some(448)),
        ),
    ];
    for (i, (name, api, want)) in cases.into_iter().enumerate() {
        let (scenes, _) = import_dir(
            &format!("fixtures/import/vcr/{name}"),
            &format!("stream{i}"),
        );
        assert_eq!(scenes.len(), 1, "{name}");
        let r = scenes[0].1.recorded.clone().expect("recorded");
        assert_eq!(r.api, api, "{name}");
        assert_eq!(r.usage, Some(want), "{name}");
    }
}

#[test]
fn other_recorded_calls_are_skipped_and_named_with_why() {
    let (scenes, stderr) = import_dir("fixtures/import/vcr/anthropic-count-tokens.yaml", "count");
    assert_eq!(scenes.len(), 1);
    assert!(
        stderr.contains("skipped interaction 0 (POST https://api.anthropic.com/v1/messages/count_tokens?beta=true): /v1/messages/count_tokens is not an LLM call this command reads"),
        "{stderr}"
    );
    // The Messages call's parsed response: input 19, output 77.
    let r = scenes[0].1.recorded.clone().expect("recorded");
    assert_eq!(r.usage, Some(usage(19, 19, 0, &[], 77, None)));

    let (scenes, stderr) = import_dir("fixtures/import/vcr/openai-chat-other-host.yaml", "host");
    assert_eq!(scenes.len(), 1);
    assert!(
        stderr.contains("skipped interaction 0 (POST https://eu.i.posthog.com/batch/): eu.i.posthog.com is not a provider's API host"),
        "{stderr}"
    );

    // countTokens skipped; generateContent: prompt 12, candidates 109, thoughts 806; the
    // model is the URL's.
    let (scenes, stderr) = import_dir("fixtures/import/vcr/gemini-count-tokens.yaml", "gemini");
    assert!(
        stderr.contains(":countTokens is not an LLM call"),
        "{stderr}"
    );
    let r = scenes[0].1.recorded.clone().expect("recorded");
    assert_eq!(r.api, Api::Gemini);
    assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(r.usage, Some(usage(12, 12, 0, &[], 915, Some(806))));

    // Nothing to import: the error lists what was skipped.
    let (code, stderr) = import_fails(&root().join("fixtures/import/vcr/openai-chat-401.yaml"));
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("openai-chat-401.yaml:1:1: no interaction of this cassette is an LLM call"),
        "{stderr}"
    );
    assert!(stderr.contains("HTTP 401 status"), "{stderr}");
}

#[test]
fn a_har_file_gives_its_calls_with_their_start_times() {
    let (scenes, stderr) = import_dir("fixtures/import/vcr/calls.har", "har");
    assert!(
        stderr.contains("read as har (detected: a HAR file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("skipped entry 2 (POST https://eu.i.posthog.com/batch/)"),
        "{stderr}"
    );
    let rec: Vec<scene::Recorded> = scenes
        .iter()
        .map(|(_, s)| s.recorded.clone().expect("recorded"))
        .collect();
    let times: Vec<&str> = rec.iter().filter_map(|r| r.timestamp.as_deref()).collect();
    assert_eq!(
        times,
        [
            "2025-03-15T09:40:00.000Z",
            "2025-03-15T09:40:04.000Z",
            "2024-11-13T00:04:11.000Z",
            "2025-05-12T16:58:24.000Z"
        ]
    );
    assert_eq!(rec[1].usage, Some(usage(1167, 4, 1163, &[], 202, None)));
    assert_eq!(rec[2].usage, Some(usage(12, 12, 0, &[], 5, Some(0))));
    // Its content stored as base64.
    assert_eq!(rec[3].usage, Some(usage(24, 24, 0, &[], 11, Some(0))));
}

/// The conventions' attributes on a real example span (semconv's simple chat): input 52,
/// output 47, provider openai, model gpt-4.
#[test]
fn an_opentelemetry_span_keeps_its_usage() {
    let (scenes, _) = import_dir("corpora/traffic/semconv/001-flat-simple-chat.json", "otel");
    let r = scenes[0].1.recorded.clone().expect("recorded");
    assert_eq!(r.api, Api::OpenaiChat);
    assert_eq!(r.model.as_deref(), Some("gpt-4"));
    assert_eq!(r.usage, Some(usage(52, 52, 0, &[], 47, None)));
    let description = scenes[0].1.description.clone().unwrap_or_default();
    assert!(!description.contains("gen_ai.usage"), "{description}");
}

#[test]
fn broken_recordings_get_their_file_line_and_column() {
    let dir = tempdir("import-containers", "broken");
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            write(
                &dir,
                "broken.yaml",
                b"interactions:\n- request: {method: POST\n  response: 1\n",
            ),
            "broken.yaml:3:",
        ),
        (
            write(
                &dir,
                "broken.json",
                b"{\"interactions\": [\n  {\"request\": }\n]}\n",
            ),
            "broken.json:2:15: invalid JSON",
        ),
        (
            write(
                &dir,
                "nodate.har",
                br#"{"log": {"entries": [
  {"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
               "postData": {"text": "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"}},
   "response": {"status": 200, "content": {"text": "{}"}},
   "startedDateTime": "yesterday"}
]}}
"#,
            ),
            "nodate.har:5:23: /log/entries/0/startedDateTime: expected an ISO 8601 date-time",
        ),
    ];
    for (path, want) in cases {
        let (code, stderr) = import_fails(&path);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(want), "{want:?} not in {stderr}");
    }
    // A request body that is not JSON: the body's place in the cassette, the interaction, and
    // the place within the body.
    let good = std::fs::read_to_string(root().join("fixtures/import/vcr/openai-chat-gzip.yaml"))
        .expect("fixture");
    let bad = good.replace("\"model\": \"gpt-4o\"}'", "\"model\": \"gpt-4o\"'");
    assert_ne!(bad, good);
    let path = write(&dir, "badbody.yaml", bad.as_bytes());
    let (_, stderr) = import_fails(&path);
    assert!(
        stderr.contains("badbody.yaml:3:11: /interactions/0/request/body: in interaction 0's request body (its line 1, column "),
        "{stderr}"
    );
    // A stream event that is not JSON, in the response.
    let good = std::fs::read_to_string(root().join("fixtures/import/vcr/anthropic-stream.yaml"))
        .expect("fixture");
    let bad = good.replace("data: {\"type\":\"message_stop\"   }", "data: {\"type\":");
    assert_ne!(bad, good);
    let path = write(&dir, "badstream.yaml", bad.as_bytes());
    let (_, stderr) = import_fails(&path);
    assert!(
        stderr.contains("/interactions/0/response/body/string: in interaction 0's response body: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("of the response stream is not JSON"),
        "{stderr}"
    );
}

/// A cassette with one gzip body of 256 MiB of zeros (a quarter of a MiB compressed) is refused
/// by the decoded-size limit, quickly and without holding the inflated body.
#[test]
fn a_gzip_bomb_is_refused_by_the_decoded_size_limit() {
    let dir = tempdir("import-containers", "bomb");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1024 * 1024];
    for _ in 0..256 {
        gz.write_all(&zeros).expect("compress");
    }
    let bomb = gz.finish().expect("gzip");
    assert!(bomb.len() < 1024 * 1024, "{}", bomb.len());
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &bomb);
    let cassette = format!(
        "interactions:\n- request:\n    body: '{{\"messages\": [{{\"role\": \"user\", \"content\": \"hi\"}}]}}'\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n  response:\n    headers:\n      content-encoding:\n      - gzip\n    status:\n      code: 200\n    body:\n      string: !!binary |\n        {b64}\n"
    );
    let path = write(&dir, "bomb.yaml", cassette.as_bytes());
    let started = Instant::now();
    let (code, stderr) = import_fails(&path);
    let took = started.elapsed();
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("bomb.yaml:13:15: /interactions/0/response/body/string: interaction 0's response body: gzip body: decompresses to more than 64 MiB: refused"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_cassette_larger_than_the_import_limit_is_refused_before_reading() {
    let dir = tempdir("import-containers", "large");
    let path = dir.join("large.yaml");
    let f = std::fs::File::create(&path).expect("create");
    f.set_len(prompt_inspector::import::MAX_IMPORT_BYTES + 1)
        .expect("size");
    let (code, stderr) = import_fails(&path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("large.yaml"), "{stderr}");
    assert!(
        stderr.contains("the file has more than the 67108864 bytes an import may have"),
        "{stderr}"
    );
}

#[test]
fn one_scene_destinations_refuse_a_cassette_of_several_calls() {
    let out = cli(&[
        "import",
        "fixtures/import/vcr/anthropic-prompt-caching.yaml",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("2 recorded LLM calls: stdout and -o OUT take one scene"),
        "{stderr}"
    );
}
