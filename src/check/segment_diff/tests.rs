use super::segment_section;
use crate::check::golden_text;
use crate::scene;

fn golden_of(text: &str) -> String {
    golden_text(&scene::load_str(text).expect("the scene loads"))
}

fn default_scene() -> String {
    scene::DEFAULT_SCENE.to_owned()
}

#[test]
fn a_changed_prompt_names_its_segment_with_the_changed_line() {
    let before = default_scene();
    let now = before.replacen(
        "careful research assistant",
        "careless research assistant",
        1,
    );
    let section = segment_section(&golden_of(&before), &golden_of(&now)).expect("a section");
    assert!(
        section.starts_with("Segments whose text differs (- golden, + now):\n"),
        "{section}"
    );
    assert!(
        section.contains("  chat · system_msg_prompt\n"),
        "{section}"
    );
    assert!(
        section.contains("    - You are TFRobot, a careful research assistant.\n"),
        "{section}"
    );
    assert!(
        section.contains("    + You are TFRobot, a careless research assistant.\n"),
        "{section}"
    );
    // Only the changed line and one line of context: the tool's lines after it are not all
    // repeated.
    assert!(!section.contains("花括号"), "{section}");
    // The prompt is the chat family's; desk's segments are the same.
    assert!(!section.contains("desk · "), "{section}");
    assert!(!section.contains("Tools whose outcome"), "{section}");
}

#[test]
fn a_tool_that_moves_shows_as_a_changed_outcome_and_in_both_segments() {
    let before = default_scene();
    let now = before.replacen(
        r#""prompt_position": ["system_msg_prompt", "system_prompt"]"#,
        r#""prompt_position": ["after_input_msg_prompt", "system_prompt"]"#,
        1,
    );
    assert_ne!(
        before, now,
        "the default scene has a tool at system_msg_prompt"
    );
    let section = segment_section(&golden_of(&before), &golden_of(&now)).expect("a section");
    assert!(
        section.contains("  chat · system_msg_prompt\n"),
        "{section}"
    );
    assert!(
        section.contains("  chat · after_input_msg_prompt\n"),
        "{section}"
    );
    assert!(
        section.contains("Tools whose outcome differs (golden → now):\n"),
        "{section}"
    );
    assert!(
        section.contains("at system_msg_prompt → ")
            && section.contains("at after_input_msg_prompt"),
        "{section}"
    );
}

#[test]
fn a_change_outside_the_segments_gives_no_section() {
    let before = default_scene();
    let now = before.replacen("\"description\": \"", "\"description\": \"x", 1);
    let (b, n) = (golden_of(&before), golden_of(&now));
    assert_eq!(b, n, "the description is not in the golden");
    let renamed = b.replacen("\"scene\": \"", "\"scene\": \"renamed-", 1);
    assert_ne!(renamed, b);
    assert_eq!(segment_section(&b, &renamed), None);
}

#[test]
fn a_golden_that_is_not_json_gives_no_section() {
    let now = golden_of(&default_scene());
    assert_eq!(segment_section("not json", &now), None);
    assert_eq!(segment_section("{}", &now), None);
}

#[test]
fn message_streams_compare_their_messages() {
    let before = r#"{"chat": {"segments": [{"name": "conversation_msgs", "text": ""}],
        "messages": [{"role": "user", "content": "hello", "segment": "conversation_msgs"}]}}"#;
    let now = before.replace("hello", "hullo");
    let section = segment_section(before, &now).expect("a section");
    assert_eq!(
        section,
        "Segments whose text differs (- golden, + now):\n  chat · conversation_msgs\n    - [user] hello\n    + [user] hullo\n"
    );
}

#[test]
fn reports_are_read_back_as_deep_as_a_report_may_nest_on_a_workers_stack() {
    let nested = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    let deepest = crate::json::MAX_REPORT_DEPTH;
    // A thread with the standard library's default stack, as `check`'s workers have.
    let (ok, refused) = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let ok = super::read_report(&nested(deepest));
            let refused = super::read_report(&nested(deepest + 1));
            (ok.is_some(), refused.is_none())
        })
        .expect("spawn")
        .join()
        .expect("no overflow");
    assert!(ok, "{deepest} levels are read");
    assert!(refused, "deeper is refused");
    assert!(deepest > crate::json::MAX_DEPTH, "a report wraps a scene");
}
