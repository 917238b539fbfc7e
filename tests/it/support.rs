//! Shared helpers for the integration tests: scenes from JSON snippets, and a capture of
//! `tracing` events.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use prompt_inspector::scene::{self, Scene};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// A scene with the given `tools` array (JSON text) and a small fixed configuration: one
/// configured prompt in `system_msg_prompt`, `after_input_msg_prompt`, `system_prompt` and
/// `purpose_prompt`, so tests can see tool pieces land after the configured ones.
pub fn scene_with_tools(tools: &str) -> Scene {
    let text = format!(
        r#"{{
  "format": "prompt-inspector/scene@1",
  "name": "test",
  "context": {{ "user_input": {{ "input": "hello" }} }},
  "chat_llm": {{
    "system_msg_prompt": [ {{ "kind": "normalize", "template": {{ "engine": "fstring", "templates": {{ "default": "SYS" }} }} }} ],
    "after_input_msg_prompt": [ {{ "kind": "normalize", "template": {{ "engine": "fstring", "templates": {{ "default": "AFTER" }} }} }} ]
  }},
  "desk_llm": {{
    "system_prompt": [ {{ "kind": "normalize", "template": {{ "engine": "fstring", "templates": {{ "default": "DESK-SYS" }} }} }} ],
    "purpose_prompt": [ {{ "kind": "normalize", "template": {{ "engine": "fstring", "templates": {{ "default": "PURPOSE" }} }} }} ]
  }},
  "tools": {tools}
}}"#
    );
    match scene::load_str(&text) {
        Ok(s) => s,
        Err(e) => panic!("test scene does not load: {e}\n{text}"),
    }
}

/// A tool entry returning a literal string.
pub fn str_tool(name: &str, chat: &str, desk: &str, text: &str) -> String {
    let quote = |s: &str| {
        if s == "null" {
            "null".to_owned()
        } else {
            format!("{s:?}")
        }
    };
    format!(
        r#"{{ "name": {name:?}, "prompt_position": [{}, {}],
            "format_2_prompt": {{ "returns": "str", "source": {{ "engine": "fstring", "templates": {{ "default": {:?} }} }} }} }}"#,
        quote(chat),
        quote(desk),
        prompt_inspector::template::escape_fstring(text)
    )
}

/// Runs `f` and returns the ERROR events it logged, as `target: message`.
pub fn capture_errors<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let layer = Capture(events.clone());
    let subscriber = tracing_subscriber::registry().with(layer);
    let out = tracing::subscriber::with_default(subscriber, f);
    let got = events.lock().map(|v| v.clone()).unwrap_or_default();
    (out, got)
}

struct Capture(Arc<Mutex<Vec<String>>>);

struct MessageVisitor(String);

impl Visit for MessageVisitor {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if *event.metadata().level() == tracing::Level::ERROR {
            let mut v = MessageVisitor(String::new());
            event.record(&mut v);
            if let Ok(mut events) = self.0.lock() {
                events.push(v.0);
            }
        }
    }
}

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The command line run with `args` in the test's working directory.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(args)
        .output()
        .expect("run prompt-inspector")
}

/// The command line run with `args` from the repository's root (relative fixture paths).
pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("run prompt-inspector")
}

/// A fresh, empty scratch folder for one test, named by its module and tag so tests running at
/// once never share one.
pub fn tempdir(module: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-{module}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A normalised usage: input total, uncached, cache read, cache writes (TTL, tokens), output,
/// reasoning.
pub fn usage(
    input_total: u64,
    uncached: u64,
    cache_read: u64,
    cache_write: &[(&str, u64)],
    output: u64,
    reasoning: Option<u64>,
) -> prompt_inspector::usage::Usage {
    prompt_inspector::usage::Usage {
        input_total,
        uncached,
        cache_read,
        cache_write: cache_write
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect(),
        output,
        reasoning,
    }
}

/// Fails with a unified diff when `now` is not the golden file's text.
pub fn same_as_golden(now: &str, golden: &std::path::Path) {
    let want =
        std::fs::read_to_string(golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    assert!(
        want == now,
        "{}",
        prompt_inspector::check::unified_diff(&want, now, &golden.display().to_string())
    );
}
