//! One budget of fuel and output per scene render (docs/templates.md, "Limits"): the templates
//! of a scene share it, and past it the ones still to render fail with the budget's error.

use std::process::Command;

use prompt_inspector::inject::{self, Options, RenderMemo};
use prompt_inspector::segments::Family;
use prompt_inspector::template::budget::{
    Budget, FUEL_EXHAUSTED, OUTPUT_EXHAUSTED, SCENE_FUEL, SCENE_OUTPUT_BYTES, TEMPLATE_FUEL,
};

use crate::support::scene_with_tools;

/// `n` tools whose `format_2_prompt` is the Jinja2 template `template`, in `system_msg_prompt`.
fn jinja_tools(n: usize, template: &str) -> String {
    let tools: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{ "name": "t{i}", "prompt_position": ["system_msg_prompt", null],
                     "format_2_prompt": {{ "returns": "str", "source": {{ "engine": "jinja2",
                     "templates": {{ "default": {template:?} }} }} }} }}"#
            )
        })
        .collect();
    format!("[{}]", tools.join(","))
}

/// The error messages of the tools' diagnostics, in tool order.
fn tool_errors(report: &inject::Report) -> Vec<(String, String)> {
    report
        .diagnostics
        .iter()
        .filter_map(|d| Some((d.tool.clone()?, d.message.clone())))
        .collect()
}

#[test]
fn tools_that_each_use_up_their_fuel_stop_at_the_scene_budget() {
    let scene = scene_with_tools(&jinja_tools(
        200,
        "{% for i in range(1000000) %}{% endfor %}",
    ));
    let budget = Budget::scene();
    let report = inject::render_in(
        &scene,
        Family::Chat,
        &Options::default(),
        &mut RenderMemo::default(),
        &budget,
    );
    let errors = tool_errors(&report);
    assert_eq!(errors.len(), 200, "{errors:?}");
    let per_template = (SCENE_FUEL / TEMPLATE_FUEL) as usize;
    for (i, (tool, message)) in errors.iter().enumerate() {
        assert_eq!(tool, &format!("t{i}"));
        let expected = if i < per_template {
            "the template did too much work (out of fuel)"
        } else {
            FUEL_EXHAUSTED
        };
        assert!(message.contains(expected), "tool {i}: {message}");
    }
    // The whole render did the scene's fuel of work, not 200 templates' worth.
    assert_eq!(budget.fuel_spent(), SCENE_FUEL);
    assert_eq!(budget.fuel_left(), 0);
}

#[test]
fn tools_that_each_print_16_mb_are_refused_past_the_scene_output_budget() {
    let scene = scene_with_tools(&jinja_tools(24, "{{ 'a' * 16000000 }}"));
    let budget = Budget::scene();
    let report = inject::render_in(
        &scene,
        Family::Chat,
        &Options {
            skip_tokens: true,
            ..Options::default()
        },
        &mut RenderMemo::default(),
        &budget,
    );
    let errors = tool_errors(&report);
    let fit = (SCENE_OUTPUT_BYTES / 16_000_000) as usize;
    // The tools past the first `fit` are refused when they return; the first `fit` returned their
    // text, and its render as their prompt (an fstring template) finds the budget spent.
    let expected: Vec<String> = (fit..24).chain(0..fit).map(|i| format!("t{i}")).collect();
    let tools: Vec<String> = errors.iter().map(|(t, _)| t.clone()).collect();
    assert_eq!(tools, expected);
    for (tool, message) in &errors {
        assert!(message.contains(OUTPUT_EXHAUSTED), "{tool}: {message}");
    }
    assert!(budget.output_spent() >= fit as u64 * 16_000_000);
    assert!(budget.output_spent() <= SCENE_OUTPUT_BYTES);
}

/// The whole program under a 1 GiB address-space limit: 24 tools of 16 MB each used to take
/// 1.8 GB; the scene's output budget keeps it to a few copies of 64 MiB.
#[test]
fn the_cli_renders_24_tools_of_16_mb_in_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("pi-scene-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("big.scene.json");
    let text = format!(
        r#"{{ "format": "prompt-inspector/scene@1", "name": "big",
             "context": {{ "user_input": {{ "input": "hi" }} }},
             "chat_llm": {{}}, "tools": {} }}"#,
        jinja_tools(24, "{{ 'a' * 16000000 }}")
    );
    std::fs::write(&path, text).expect("write scene");
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 1048576 && exec "$0" render "$1" --llm chat --no-tokens --format json > /dev/null"#)
        .arg(env!("CARGO_BIN_EXE_prompt-inspector"))
        .arg(&path)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{:?} {stderr}",
        out.status
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_memoised_render_takes_from_the_budget_what_a_fresh_one_does() {
    let scene = scene_with_tools(&jinja_tools(
        20,
        "{% for i in range(1000000) %}{% endfor %}",
    ));
    let options = Options::default();
    let fresh_budget = Budget::scene();
    let fresh = inject::render_in(
        &scene,
        Family::Chat,
        &options,
        &mut RenderMemo::default(),
        &fresh_budget,
    );
    let mut memo = RenderMemo::default();
    memo.next_refresh();
    let _ = inject::render_in(&scene, Family::Chat, &options, &mut memo, &Budget::scene());
    memo.next_refresh();
    let (hits_before, _) = memo.counts();
    let memo_budget = Budget::scene();
    let kept = inject::render_in(&scene, Family::Chat, &options, &mut memo, &memo_budget);
    assert_eq!(kept, fresh);
    assert_eq!(memo_budget.fuel_spent(), fresh_budget.fuel_spent());
    // The renders the budget limited were not kept; the others were.
    let (hits, _) = memo.counts();
    assert_eq!(hits - hits_before, SCENE_FUEL / TEMPLATE_FUEL);
}
