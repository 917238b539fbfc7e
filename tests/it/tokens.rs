//! The report's `tokens` fields (issue 4): every piece, segment and message of every fixture,
//! checked against `tokens::count` of the text it stands for, in both encodings; a piece's
//! tokens are those that start in its byte range of the segment (every byte counted once),
//! which the tests find on their own from tiktoken-rs's tokens and their lengths.

use std::path::PathBuf;

use prompt_inspector::inject::{self, MessageOut, Options, Report, SegmentOut};
use prompt_inspector::scene;
use prompt_inspector::segments::Family;
use prompt_inspector::tokens::{count, Encoding};
use prompt_inspector::Value;

fn fixture_scenes() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    prompt_inspector::check::discover(&[root]).expect("fixtures")
}

/// The message's text as the model reads it: the string, or its text parts joined with `\n`.
fn message_text(m: &MessageOut) -> String {
    match &m.content {
        Value::Str(s) => s.to_string(),
        Value::List(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::Dict(d) => match d.get("text") {
                    Some(Value::Str(s)) => Some(s.to_string()),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Where each token of `text` starts, from tiktoken-rs (the reference the engine is tested
/// against): the ids, and the bytes each stands for.
fn token_starts(text: &str, encoding: Encoding) -> Vec<usize> {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    let mut at = 0;
    let mut starts = Vec::new();
    for id in bpe.encode_ordinary(text) {
        starts.push(at);
        at += bpe
            .decode_bytes(&[id])
            .expect("a token tiktoken made")
            .len();
    }
    assert_eq!(at, text.len());
    starts
}

/// A prompt segment's pieces each hold the tokens starting in their range; the tokens starting
/// on a seam are no piece's, and pieces plus seams are the segment. Returns the seam tokens.
fn assert_pieces_share_the_segment(seg: &SegmentOut, encoding: Encoding, what: &str) -> usize {
    let starts = token_starts(&seg.text, encoding);
    assert_eq!(
        seg.tokens,
        Some(starts.len()),
        "{what}: segment {}",
        seg.name
    );
    let mut in_pieces = 0;
    for p in &seg.pieces {
        let [from, to] = p.range;
        let expected = starts.iter().filter(|&&s| from <= s && s < to).count();
        assert_eq!(
            p.tokens,
            Some(expected),
            "{what}: piece {p:?} of {}",
            seg.name
        );
        in_pieces += expected;
    }
    let seams = starts.len() - in_pieces;
    let pieces: usize = seg.pieces.iter().filter_map(|p| p.tokens).sum();
    assert_eq!(pieces + seams, starts.len(), "{what}: {}", seg.name);
    // A seam is one "\n": at most one token starts on it.
    assert!(seams < seg.pieces.len().max(1), "{what}: {}", seg.name);
    seams
}

fn assert_counts(report: &Report, encoding: Encoding, what: &str) {
    assert_eq!(report.tokenizer, Some(encoding), "{what}");
    let messages = report.messages.as_deref().unwrap_or_default();
    for seg in &report.segments {
        if seg.messages.is_some() {
            let expected = messages
                .iter()
                .filter(|m| m.segment == Some(seg.name))
                .map(|m| count(&message_text(m), encoding))
                .sum();
            assert_eq!(seg.tokens, Some(expected), "{what}: segment {}", seg.name);
        } else {
            assert_eq!(seg.tokens, Some(count(&seg.text, encoding)), "{what}");
            assert_pieces_share_the_segment(seg, encoding, what);
        }
    }
    for m in messages {
        assert_eq!(
            m.tokens,
            Some(count(&message_text(m), encoding)),
            "{what}: message {m:?}"
        );
    }
}

#[test]
fn every_fixture_counts_pieces_segments_and_messages() {
    let scenes = fixture_scenes();
    assert!(scenes.len() > 10, "{scenes:?}");
    for path in scenes {
        let scene = scene::load_file(&path).expect("fixture loads");
        for encoding in Encoding::ALL {
            for family in [Family::Chat, Family::Desk] {
                let options = Options {
                    encoding,
                    ..Options::default()
                };
                let report = inject::render_with(&scene, family, &options);
                let what = format!("{} {} {encoding}", path.display(), family.as_str());
                assert_counts(&report, encoding, &what);
            }
        }
    }
}

#[test]
fn known_counts_in_the_default_scene() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenes/one-sided.scene.json");
    let scene = scene::load_file(&path).expect("fixture loads");
    let report = inject::render(&scene, Family::Chat);
    let json = serde_json::to_value(&report).expect("report serialises");
    assert_eq!(json["tokenizer"], "o200k_base");
    // "Chat assistant." is Chat / assistant / . in both encodings.
    assert_eq!(json["segments"][0]["text"], "Chat assistant.");
    assert_eq!(json["segments"][0]["tokens"], 3);
    assert_eq!(json["segments"][0]["pieces"][0]["tokens"], 3);
    assert_eq!(json["messages"][0]["tokens"], 3);
    // An empty segment costs nothing; a message stream without messages sums to 0.
    assert_eq!(json["segments"][1]["tokens"], 0);
    assert_eq!(json["segments"][2]["tokens"], 0);
}

#[test]
fn a_joined_segment_is_counted_whole() {
    // Pieces joined with "\n": the seam can merge ("." + "\n" is one token in o200k_base), so
    // the segment is encoded whole and its tokens shared out by where they start.
    let tools = [
        crate::support::str_tool("a", "system_msg_prompt", "system_prompt", "First."),
        crate::support::str_tool("b", "system_msg_prompt", "system_prompt", "Second."),
    ];
    let scene = crate::support::scene_with_tools(&format!("[{}]", tools.join(",")));
    let report = inject::render(&scene, Family::Chat);
    let seg = &report.segments[0];
    assert_eq!(seg.name, "system_msg_prompt");
    assert!(seg.text.ends_with("First.\nSecond."), "{:?}", seg.text);
    assert_eq!(seg.tokens, Some(count(&seg.text, Encoding::O200kBase)));
    // tiktoken: "SYS\nFirst.\nSecond." is [83122, 198, 7127, 558, 17422, 13], with ".\n" as 558.
    assert_eq!(seg.text, "SYS\nFirst.\nSecond.");
    assert_eq!(seg.tokens, Some(6));
    assert_eq!(count(".\n", Encoding::O200kBase), 1);
    // "SYS" | "\n" on the seam | "First" ".\n" (starts in the piece) | "Second" ".".
    let pieces: Vec<_> = seg.pieces.iter().map(|p| p.tokens).collect();
    assert_eq!(pieces, [Some(1), Some(2), Some(2)]);
    assert_eq!(
        assert_pieces_share_the_segment(seg, Encoding::O200kBase, "joined"),
        1
    );
}

#[test]
fn pieces_and_seams_add_up_in_the_default_scene() {
    let scene = scene::load_str(scene::DEFAULT_SCENE).expect("the default scene loads");
    let mut joined = 0;
    for encoding in Encoding::ALL {
        for family in [Family::Chat, Family::Desk] {
            let options = Options {
                encoding,
                ..Options::default()
            };
            let report = inject::render_with(&scene, family, &options);
            for seg in report.segments.iter().filter(|s| s.messages.is_none()) {
                let what = format!("default scene {} {encoding}", family.as_str());
                assert_pieces_share_the_segment(seg, encoding, &what);
                let pieces: usize = seg.pieces.iter().filter_map(|p| p.tokens).sum();
                assert!(pieces <= seg.tokens.unwrap_or_default());
                joined += usize::from(seg.pieces.len() > 1);
            }
        }
    }
    // The scene joins pieces in both families, so the sums were tested across seams.
    assert!(joined >= 4, "{joined}");
}

#[test]
fn skip_tokens_leaves_the_fields_out() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/default.scene.json");
    let scene = scene::load_file(&path).expect("fixture loads");
    let options = Options {
        skip_tokens: true,
        ..Options::default()
    };
    let report = inject::render_with(&scene, Family::Chat, &options);
    assert_eq!(report.tokenizer, None);
    let json = serde_json::to_string(&report).expect("report serialises");
    assert!(!json.contains("\"tokens\""), "{json}");
    assert!(!json.contains("\"tokenizer\""), "{json}");
}

#[test]
fn cli_counts_unless_told_not_to() {
    let scene =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenes/one-sided.scene.json");
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
            .arg("render")
            .arg(&scene)
            .args(args)
            .output()
            .expect("run prompt-inspector");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, plain, _) = run(&["--format", "json", "--no-tokens"]);
    assert_eq!(code, Some(0));
    assert!(!plain.contains("\"tokens\""), "{plain}");
    let (code, counted, _) = run(&["--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&counted).expect("json report");
    assert_eq!(v["tokenizer"], "o200k_base");
    assert_eq!(v["messages"][0]["tokens"], 3);
    assert_eq!(run(&["--format", "json", "--tokens"]).1, counted);
    let (code, _, err) = run(&["--tokens", "--no-tokens"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot be used with"), "{err}");
    let (code, text, _) = run(&["--format", "text", "--color", "never"]);
    assert_eq!(code, Some(0));
    assert!(
        text.contains("1. system_msg_prompt · legal · 15 bytes · 3 tokens"),
        "{text}"
    );
    assert!(text.contains("[config #0] 15 bytes · 3 tokens"), "{text}");
    assert!(text.contains("Tokens counted with: o200k_base"), "{text}");
    let (code, json, _) = run(&["--tokenizer", "cl100k_base", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).expect("json report");
    assert_eq!(v["tokenizer"], "cl100k_base");
    assert_eq!(v["messages"][0]["tokens"], 3);
    let (code, _, err) = run(&["--tokenizer", "gpt2"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown tokenizer \"gpt2\""), "{err}");
}
