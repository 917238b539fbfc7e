//! Every fixture scene: loads, renders without changing the scene, and matches its golden.

use std::path::PathBuf;

use prompt_inspector::check::{self, Outcome};
use prompt_inspector::inject;
use prompt_inspector::scene;
use prompt_inspector::segments::Family;

fn fixture_scenes() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let scenes = check::discover(&[root]).expect("fixtures folder");
    assert!(
        scenes.len() >= 13,
        "expected the fixture scenes, found {}",
        scenes.len()
    );
    scenes
}

#[test]
fn rendering_never_changes_the_scene() {
    for path in fixture_scenes() {
        let scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let before = scene.clone();
        for family in [Family::Chat, Family::Desk] {
            let first = inject::render(&scene, family);
            let second = inject::render(&scene, family);
            assert_eq!(
                first,
                second,
                "{}: rendering is not repeatable",
                path.display()
            );
        }
        assert_eq!(
            scene,
            before,
            "{}: rendering changed the scene",
            path.display()
        );
    }
}

#[test]
fn every_fixture_matches_its_golden() {
    let mut failures = Vec::new();
    for path in fixture_scenes() {
        match check::check_one(&path, false) {
            Outcome::Match => {}
            Outcome::Mismatch(diff) => failures.push(format!("{}:\n{diff}", path.display())),
            other => failures.push(format!("{}: {other}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_embedded_default_scene_is_the_fixture_and_shows_the_rules() {
    let scene = scene::default_scene();
    let on_disk = scene::load_file(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/default.scene.json"),
    )
    .expect("default fixture");
    assert_eq!(scene, on_disk);
    let chat = inject::render(&scene, Family::Chat);
    let statuses: Vec<_> = chat
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.status.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("tf_notes", "injected"),
            ("chat_memo", "injected"),
            ("goal_rewriter", "invalid")
        ]
    );
    let desk = inject::render(&scene, Family::Desk);
    assert_eq!(desk.tools[1].status.as_str(), "silent");
    assert!(chat.diagnostics[0].message.contains("iron_rule_1"));
}
