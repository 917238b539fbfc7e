//! Live documents (`api::Live`): after any sequence of edits, the tree the page builds from the
//! patches equals the tree a fresh open of the same text gives — including edits that break the
//! scene, edits inside the reused context, option changes, and non-ASCII text.

use prompt_inspector::api::{
    self, ErrorCode, Live, LiveEditRequest, LiveOpenRequest, LiveOptions, LiveUpdate, TextEdit,
};
use serde_json::Value;

// The benchmarks' deterministic generator (xorshift): a failure names a seed that reproduces it.
#[allow(dead_code)] // Only its `Rng`, `Params` and `scene` are used here.
#[path = "../../benches/support/scene_gen.rs"]
mod scene_gen;
use scene_gen::{Params, Rng};

fn tree_of(update: &LiveUpdate) -> Value {
    let mut tree = Value::Null;
    api::apply_patch(&mut tree, &update.patch).unwrap_or_else(|e| panic!("{e}"));
    tree
}

/// A fresh document's tree and load error for `text`.
fn fresh(text: &str, options: &LiveOptions) -> (Value, Option<ErrorCode>) {
    let u = Live::new()
        .open(LiveOpenRequest {
            text: text.to_owned(),
            options: options.clone(),
        })
        .unwrap_or_else(|e| panic!("open: {e}"));
    (tree_of(&u), u.load_error.map(|e| e.code))
}

/// A random edit of `text`: mostly inside string literals (keeps the JSON, changes templates,
/// context messages and names), sometimes anywhere (breaks it).
fn random_edit(rng: &mut Rng, text: &str) -> TextEdit {
    let chars: Vec<char> = text.chars().collect();
    let quotes: Vec<usize> = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == '"')
        .map(|(i, _)| i)
        .collect();
    let at = if rng.below(4) > 0 && !quotes.is_empty() {
        // After an opening quote (quotes pair up: the fixtures escape none inside strings).
        quotes[rng.below(quotes.len().div_ceil(2)) * 2] + 1
    } else {
        rng.below(chars.len() + 1)
    };
    let at = at.min(chars.len());
    let delete = if rng.below(3) == 0 {
        rng.below(4).min(chars.len() - at)
    } else {
        0
    };
    let insert = [
        "x", "{", "}", "中文", "😀", "{x}", "{{ y }}", " ", "\\n", "\"", "é",
    ][rng.below(11)];
    let units = |cs: &[char]| cs.iter().map(|c| c.len_utf16()).sum::<usize>() as u32;
    TextEdit {
        start: units(&chars[..at]),
        delete: units(&chars[at..at + delete]),
        insert: insert.to_owned(),
    }
}

/// The byte offset where the first string value after `marker` in `text` starts (just after
/// its opening quote).
fn first_string_after(text: &str, marker: &str) -> usize {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in the scene"));
    at + text[at..]
        .find(": \"")
        .unwrap_or_else(|| panic!("no string value after {marker}"))
        + 3
}

fn apply_utf16(text: &str, e: &TextEdit) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let (s, d) = (e.start as usize, e.delete as usize);
    let mut out: Vec<u16> = units[..s].to_vec();
    out.extend(e.insert.encode_utf16());
    out.extend(&units[s + d..]);
    String::from_utf16(&out).unwrap_or_else(|e| panic!("{e}"))
}

fn scenes() -> Vec<(String, String)> {
    let mut out = vec![(
        "default".to_owned(),
        prompt_inspector::scene::DEFAULT_SCENE.to_owned(),
    )];
    for entry in std::fs::read_dir("fixtures/scenes").unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.to_string_lossy().ends_with(".scene.json") {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            out.push((path.display().to_string(), text));
        }
    }
    out
}

#[test]
fn patched_trees_equal_fresh_renders_after_random_edits() {
    let options = [
        LiveOptions::default(),
        // Switching to these adds `costs` to both reports, switching back removes it.
        LiveOptions {
            provider: Some(prompt_inspector::provider::ChatProvider::Anthropic),
            tokens: true,
            models: vec!["anthropic/claude-sonnet-4-5".into(), "gpt-4.1".into()],
            ..LiveOptions::default()
        },
    ];
    let (mut compared, mut patched, mut broken) = (0, 0, 0);
    for (name, original) in scenes() {
        for seed in 1..=3u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ name.len() as u64);
            let live = Live::new();
            let mut opts = options[0].clone();
            let first = live
                .open(LiveOpenRequest {
                    text: original.clone(),
                    options: opts.clone(),
                })
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let (doc, mut revision) = (first.doc, first.revision);
            let mut tree = tree_of(&first);
            let mut text = original.clone();
            let mut loaded = first.load_error.is_none();
            for step in 0..50 {
                let edit = random_edit(&mut rng, &text);
                let new_options = (step % 13 == 12).then(|| {
                    opts = options[(step / 13) % 2].clone();
                    opts.clone()
                });
                text = apply_utf16(&text, &edit);
                let u = live
                    .edit(LiveEditRequest {
                        doc,
                        revision,
                        edit: Some(edit.clone()),
                        options: new_options,
                        defer_costs: step % 3 == 1,
                    })
                    .unwrap_or_else(|e| panic!("{name} seed {seed} step {step}: {e}"));
                revision = u.revision;
                if !loaded {
                    // Until the text first loads, the page has no tree: the first good one sets it.
                    tree = Value::Null;
                }
                api::apply_patch(&mut tree, &u.patch)
                    .unwrap_or_else(|e| panic!("{name} seed {seed} step {step}: {e}"));
                if u.costs_pending {
                    let settled = live
                        .edit(LiveEditRequest {
                            doc,
                            revision,
                            edit: None,
                            options: None,
                            defer_costs: false,
                        })
                        .unwrap_or_else(|e| panic!("{name} seed {seed} step {step}: {e}"));
                    revision = settled.revision;
                    api::apply_patch(&mut tree, &settled.patch)
                        .unwrap_or_else(|e| panic!("{name} seed {seed} step {step}: {e}"));
                }
                let (expected, error) = fresh(&text, &opts);
                assert_eq!(
                    u.load_error.map(|e| e.code),
                    error,
                    "{name} seed {seed} step {step}"
                );
                if error.is_none() {
                    loaded = true;
                    compared += 1;
                    patched += usize::from(!u.patch.is_empty());
                    assert!(
                        tree == expected,
                        "{name} seed {seed} step {step}: the patched tree differs after {edit:?}"
                    );
                } else if error == Some(ErrorCode::LoadError) && rng.below(3) > 0 {
                    broken += 1;
                    // Put the original back now and then, so later edits work on a loading scene.
                    let back = TextEdit {
                        start: 0,
                        delete: text.encode_utf16().count() as u32,
                        insert: original.clone(),
                    };
                    text.clone_from(&original);
                    let u = live
                        .edit(LiveEditRequest {
                            doc,
                            revision,
                            edit: Some(back),
                            options: None,
                            defer_costs: false,
                        })
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    revision = u.revision;
                    api::apply_patch(&mut tree, &u.patch).unwrap_or_else(|e| panic!("{e}"));
                    assert!(tree == fresh(&text, &opts).0, "{name} restored");
                }
            }
        }
    }
    // The edits must exercise both paths: many renders that changed the board, and breakage.
    eprintln!("{compared} trees compared, {patched} with changes, {broken} broken and restored");
    assert!(
        compared > 400 && patched > 350 && broken > 300,
        "{compared} {patched} {broken}"
    );
}

#[test]
fn an_edit_inside_the_context_is_seen() {
    let text = prompt_inspector::scene::DEFAULT_SCENE;
    let live = Live::new();
    let u = live
        .open(LiveOpenRequest {
            text: text.to_owned(),
            options: LiveOptions::default(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let mut tree = tree_of(&u);
    // The first string value inside the context.
    let colon = first_string_after(text, "\"context\"");
    let start = text[..colon].encode_utf16().count() as u32;
    let u = live
        .edit(LiveEditRequest {
            doc: u.doc,
            revision: u.revision,
            edit: Some(TextEdit {
                start,
                delete: 0,
                insert: "EDITED ".into(),
            }),
            options: None,
            defer_costs: false,
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !u.patch.is_empty(),
        "a context edit must change the reports"
    );
    api::apply_patch(&mut tree, &u.patch).unwrap_or_else(|e| panic!("{e}"));
    let edited = format!("{}EDITED {}", &text[..colon], &text[colon..]);
    assert!(tree == fresh(&edited, &LiveOptions::default()).0);
    assert!(serde_json::to_string(&tree)
        .unwrap_or_default()
        .contains("EDITED "));
}

#[test]
fn stale_revisions_and_unknown_documents_are_refused() {
    let live = Live::new();
    let u = live
        .open(LiveOpenRequest {
            text: prompt_inspector::scene::DEFAULT_SCENE.to_owned(),
            options: LiveOptions::default(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let edit = |doc, revision, start| LiveEditRequest {
        doc,
        revision,
        edit: Some(TextEdit {
            start,
            delete: 0,
            insert: " ".into(),
        }),
        options: None,
        defer_costs: false,
    };
    let stale = live.edit(edit(u.doc, u.revision + 1, 0)).err();
    assert_eq!(stale.map(|e| e.code), Some(ErrorCode::StaleDocument));
    let gone = live.edit(edit(u.doc + 100, u.revision, 0)).err();
    assert_eq!(gone.map(|e| e.code), Some(ErrorCode::StaleDocument));
    let past_end = live.edit(edit(u.doc, u.revision, 10_000_000)).err();
    assert_eq!(past_end.map(|e| e.code), Some(ErrorCode::StaleDocument));
    // Whitespace after the root object changes nothing the page sees.
    let end = prompt_inspector::scene::DEFAULT_SCENE
        .encode_utf16()
        .count() as u32;
    let ok = live
        .edit(edit(u.doc, u.revision, end))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(ok.patch.is_empty());
    assert_eq!(ok.revision, u.revision + 1);
    live.close(&api::LiveCloseRequest { doc: u.doc });
    assert!(live.edit(edit(u.doc, ok.revision, 0)).is_err());
}

#[test]
fn the_diff_knows_every_report_field() {
    let scene = prompt_inspector::scene::default_scene();
    for family in [
        prompt_inspector::segments::Family::Chat,
        prompt_inspector::segments::Family::Desk,
    ] {
        let options = prompt_inspector::inject::Options {
            chat_provider: Some(prompt_inspector::provider::ChatProvider::Openai),
            ..Default::default()
        };
        let mut report = prompt_inspector::inject::render_with(&scene, family, &options);
        // Costs are filled in by the caller that has the models table's rows.
        let table = prompt_inspector::pricing::Table::builtin();
        let sent = prompt_inspector::pricing::request::Sent::of(&scene, &report, None);
        report.costs = prompt_inspector::pricing::cost::input_costs(
            &report,
            &sent,
            &table.select(&[]).unwrap_or_default(),
        );
        assert!(!report.costs.is_empty());
        let value = serde_json::to_value(&report).unwrap_or_default();
        for key in value.as_object().map(|m| m.keys()).into_iter().flatten() {
            assert!(
                api::REPORT_FIELDS.contains(&key.as_str()),
                "Report field {key:?} is not diffed by src/api/live/typed.rs"
            );
        }
    }
}

#[test]
fn costs_follow_the_models_option_and_an_unknown_model_is_refused() {
    let live = Live::new();
    let text = prompt_inspector::scene::DEFAULT_SCENE.to_owned();
    let priced = LiveOptions {
        models: vec!["openai/gpt-5".into()],
        ..LiveOptions::default()
    };
    let u = live
        .open(LiveOpenRequest {
            text: text.clone(),
            options: priced.clone(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let mut tree = tree_of(&u);
    for family in ["chat", "desk"] {
        assert_eq!(
            tree[family]["costs"][0]["model"], "openai/gpt-5",
            "{family}"
        );
    }
    // Another model: the tree follows, and equals a fresh open with those options.
    let other = LiveOptions {
        models: vec!["claude-haiku-4-5".into()],
        ..LiveOptions::default()
    };
    let step = |options: Option<LiveOptions>, revision| LiveEditRequest {
        doc: u.doc,
        revision,
        edit: None,
        options,
        defer_costs: false,
    };
    let u2 = live
        .edit(step(Some(other.clone()), u.revision))
        .unwrap_or_else(|e| panic!("{e}"));
    api::apply_patch(&mut tree, &u2.patch).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tree, fresh(&text, &other).0);
    assert_eq!(
        tree["chat"]["costs"][0]["model"],
        "anthropic/claude-haiku-4-5"
    );
    // An unknown model refuses the options and leaves the document as it was.
    let bad = LiveOptions {
        models: vec!["acme/nope".into()],
        ..LiveOptions::default()
    };
    let e = live
        .edit(step(Some(bad.clone()), u2.revision))
        .expect_err("unknown model");
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(e.field.as_deref(), Some("options.models"));
    let e = live
        .open(LiveOpenRequest {
            text: text.clone(),
            options: bad,
        })
        .expect_err("unknown model");
    assert_eq!(e.field.as_deref(), Some("options.models"));
    let u3 = live
        .edit(step(Some(LiveOptions::default()), u2.revision))
        .unwrap_or_else(|e| panic!("the document is still at its revision: {e}"));
    api::apply_patch(&mut tree, &u3.patch).unwrap_or_else(|e| panic!("{e}"));
    assert!(tree["chat"].get("costs").is_none(), "no models, no costs");
    assert_eq!(tree, fresh(&text, &LiveOptions::default()).0);
}

/// The costs of a tree's chat and desk reports.
fn costs_of(tree: &Value) -> (Value, Value) {
    (tree["chat"]["costs"].clone(), tree["desk"]["costs"].clone())
}

#[test]
fn a_keystroke_on_a_large_scene_leaves_pricing_to_a_settle() {
    // Pricing a thousand messages takes milliseconds: more than the core waits for when asked.
    let text = scene_gen::scene(&Params {
        tools: 40,
        messages: 1000,
    });
    let options = LiveOptions {
        models: vec!["openai/gpt-5".into()],
        ..LiveOptions::default()
    };
    let live = Live::new();
    let first = live
        .open(LiveOpenRequest {
            text: text.clone(),
            options: options.clone(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let mut tree = tree_of(&first);
    let priced_before = costs_of(&tree);
    assert!(
        priced_before.0.is_array(),
        "the open is priced: {:?}",
        priced_before.0
    );
    let (doc, mut revision) = (first.doc, first.revision);
    // Two keystrokes at the end of the first template's text.
    let at = first_string_after(&text, "\"templates\": {");
    let mut text_now = text.clone();
    for (i, insert) in ["tokens ", "更多 "].iter().enumerate() {
        let edit = TextEdit {
            start: text_now[..at].encode_utf16().count() as u32,
            delete: 0,
            insert: (*insert).to_owned(),
        };
        text_now = apply_utf16(&text_now, &edit);
        let u = live
            .edit(LiveEditRequest {
                doc,
                revision,
                edit: Some(edit),
                options: None,
                defer_costs: true,
            })
            .unwrap_or_else(|e| panic!("{e}"));
        revision = u.revision;
        assert!(u.costs_pending, "keystroke {i} was priced at once");
        api::apply_patch(&mut tree, &u.patch).unwrap_or_else(|e| panic!("{e}"));
        let (expected, _) = fresh(&text_now, &options);
        // Everything but the costs is the new text's; the costs are still the open's.
        assert_eq!(costs_of(&tree), priced_before, "keystroke {i}");
        assert_ne!(
            costs_of(&expected),
            priced_before,
            "the edit changes the price"
        );
        let mut unpriced = tree.clone();
        let mut expected_unpriced = expected.clone();
        for t in [&mut unpriced, &mut expected_unpriced] {
            t["chat"]["costs"] = Value::Null;
            t["desk"]["costs"] = Value::Null;
        }
        assert!(
            unpriced == expected_unpriced,
            "keystroke {i}: the rest differs"
        );
    }
    // The settle: no edit, no options, no deferral.
    let u = live
        .edit(LiveEditRequest {
            doc,
            revision,
            edit: None,
            options: None,
            defer_costs: false,
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!u.costs_pending);
    assert_eq!(u.revision, revision + 1);
    let ops = u.patch.len();
    api::apply_patch(&mut tree, &u.patch).unwrap_or_else(|e| panic!("{e}"));
    assert!(tree == fresh(&text_now, &options).0, "settled tree differs");
    assert!(
        ops > 0 && ops <= 8,
        "the settle changes only the costs: {ops} ops"
    );
    // A keystroke that does not ask to defer is priced at once.
    let u = live
        .edit(LiveEditRequest {
            doc,
            revision: u.revision,
            edit: Some(TextEdit {
                start: 0,
                delete: 0,
                insert: " ".into(),
            }),
            options: None,
            defer_costs: false,
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!u.costs_pending);
    api::apply_patch(&mut tree, &u.patch).unwrap_or_else(|e| panic!("{e}"));
    assert!(tree == fresh(&format!(" {text_now}"), &options).0);
}
