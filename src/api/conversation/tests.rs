use super::*;
use crate::api::ErrorCode;
use crate::report::DiagnosticCode;
use crate::usage::Provenance;

fn open(name: &str, models: &[&str]) -> ConversationResponse {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cache")
        .join(name);
    conversation(&ConversationRequest {
        folder: folder.display().to_string(),
        models: models.iter().map(|m| (*m).to_owned()).collect(),
        scenes: None,
    })
    .expect("the conversation opens")
}

const SONNET: &str = "anthropic/claude-sonnet-4-5";

/// `system-notes`: tf_notes writes into the system message, which changes every call, so no call
/// reads; the what-if that moves it names the fix.
#[test]
fn a_tool_in_the_system_message_explains_every_miss() {
    let c = open("system-notes", &[SONNET, "openai/gpt-5"]);
    let scenes: Vec<&str> = c.calls.iter().map(|k| k.scene.as_str()).collect();
    assert_eq!(scenes, ["01.scene.json", "02.scene.json", "03.scene.json"]);
    let sonnet: Vec<&ZeroRead> = c.zero_reads.iter().filter(|z| z.model == SONNET).collect();
    let causes: Vec<Option<DiagnosticCode>> = sonnet.iter().map(|z| z.cause).collect();
    assert_eq!(
        causes,
        [
            None,
            Some(DiagnosticCode::MissSystemChanged),
            Some(DiagnosticCode::MissSystemChanged)
        ]
    );
    let change = sonnet[1].change.as_ref().expect("where it changed");
    assert_eq!(change.tool.as_deref(), Some("tf_notes"));
    assert!(
        change.written_by.starts_with("tool tf_notes (message 1"),
        "{}",
        change.written_by
    );
    // Counted as billed: Anthropic's cache matches whole blocks and the system prompt is the
    // request's first, so nothing before the change is shared; OpenAI's matches tokens, counted
    // exactly (o200k with the chat framing), within the 3% the blame's count of the serialised
    // messages is bound to.
    assert_eq!(sonnet[1].shared_tokens, 0);
    let gpt: Vec<&ZeroRead> = c
        .zero_reads
        .iter()
        .filter(|z| z.model == "openai/gpt-5")
        .collect();
    assert_eq!(gpt.len(), 3);
    for (z, call) in gpt[1..].iter().zip(&c.calls[1..]) {
        assert_eq!(z.shared_provenance, Provenance::Exact);
        let blame = f64::from(call.common_prefix_tokens.expect("shared"));
        let billed = f64::from(z.shared_tokens);
        assert!(
            billed > 0.0 && (billed - blame).abs() <= 0.03 * blame,
            "{billed} {blame}"
        );
    }
    let moved = c
        .what_if
        .iter()
        .find(|w| w.model == SONNET && w.tool.as_deref() == Some("tf_notes"))
        .expect("the what-if for tf_notes");
    assert_eq!(moved.to.as_deref(), Some("after_intermediate_msg_prompt"));
    assert!(moved.saving_usd > 0.0, "{moved:?}");
    let fix = sonnet[1].fix.as_deref().expect("a fix");
    assert!(
        fix.starts_with("move tf_notes's text from system_msg_prompt"),
        "{fix}"
    );
    // The bill agrees: nothing read on any call, for either model.
    for m in &c.models {
        assert!(
            m.calls.iter().all(|k| k.cache_read_tokens == 0),
            "{}",
            m.model
        );
    }
    assert_eq!(c.zero_reads.len(), 6);
}

/// `late-notes`: the tool writes late, so every call after the first reads: only the first is
/// explained.
#[test]
fn a_conversation_that_reads_explains_only_its_first_call() {
    let c = open("late-notes", &[SONNET]);
    assert_eq!(c.zero_reads.len(), 1);
    assert_eq!(c.zero_reads[0].cause, None);
    assert!(c.models[0].calls[1..]
        .iter()
        .all(|k| k.cache_read_tokens > 0));
}

/// `schema-change`: a tool definition changes, and the calls are short anyway.
#[test]
fn a_changed_definition_is_tools_changed() {
    let c = open("schema-change", &[SONNET]);
    let z = &c.zero_reads[1];
    assert_eq!(z.cause, Some(DiagnosticCode::MissToolsChanged));
    let change = z.change.as_ref().expect("where");
    assert_eq!(change.part, ChangedPart::Tools);
    assert_eq!(change.written_by, "web_search's tool definition");
    assert!(c
        .diagnostics
        .iter()
        .any(|d| d.call == Some(1) && d.diagnostic.code.to_string() == "cache_prefix_changed"));
}

#[test]
fn a_folder_without_scenes_or_missing_is_an_error() {
    let empty = std::env::temp_dir().join(format!("pi-conversation-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("scratch folder");
    let err = conversation(&ConversationRequest {
        folder: empty.display().to_string(),
        models: vec![],
        scenes: None,
    })
    .expect_err("no scenes");
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert_eq!(err.field.as_deref(), Some("folder"));
    assert!(
        err.message.contains("no *.scene.json files"),
        "{}",
        err.message
    );
    let _ = std::fs::remove_dir(&empty);
    let err = conversation(&ConversationRequest {
        folder: empty.join("nope").display().to_string(),
        models: vec![],
        scenes: None,
    })
    .expect_err("missing");
    assert_eq!(err.code, ErrorCode::IoError);
    let err = conversation(&ConversationRequest {
        folder: Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/cache/late-notes")
            .display()
            .to_string(),
        models: vec!["no-such-model".to_owned()],
        scenes: None,
    })
    .expect_err("unknown model");
    assert_eq!(err.field.as_deref(), Some("models"));
}
