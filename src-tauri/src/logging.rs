//! `tracing` for the app: one subscriber writing to a log file in the app's log folder and sending
//! each event to the UI's diagnostics panel as a [`LogEvent`]. The level comes from
//! `PROMPT_INSPECTOR_LOG` (as for `prompt-inspector serve`), `info` by default.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::{EnvFilter, Layer};

/// One log line as the diagnostics panel shows it.
#[derive(Clone, Debug, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct LogEvent {
    /// `ERROR`, `WARN`, `INFO`, `DEBUG` or `TRACE`.
    pub level: String,
    /// The module that logged it (`prompt_inspector::api`, `prompt_inspector_app::commands`, ...).
    pub target: String,
    /// The message followed by the event's other fields as `name=value`.
    pub message: String,
    /// Milliseconds since the Unix epoch.
    pub time_ms: f64,
}

type Sink = Box<dyn Fn(&LogEvent) + Send + Sync>;

/// Where events go once the app is up (set in `setup`): emitting to the web view.
static SINK: OnceLock<Sink> = OnceLock::new();
static LOG_FILE: OnceLock<PathBuf> = OnceLock::new();
/// The last lines, so a panel that attaches late still sees how the session started.
static RECENT: Mutex<VecDeque<LogEvent>> = Mutex::new(VecDeque::new());
const RECENT_MAX: usize = 200;

/// Installs the global subscriber: a file in `log_dir` (created if missing) and the UI layer.
/// Called once from `setup`; a second call (tests build several apps) keeps the first subscriber.
pub fn init(log_dir: Option<&Path>, sink: Sink) {
    // The whole installation happens once, under one lock: two apps starting at once (the tests
    // build several, on parallel threads) could otherwise leave the log file `log_file()` names
    // different from the one the installed subscriber writes to.
    static INIT: Once = Once::new();
    INIT.call_once(|| install(log_dir, sink));
}

fn install(log_dir: Option<&Path>, sink: Sink) {
    let _ = SINK.set(sink);
    let filter = || {
        EnvFilter::try_from_env("PROMPT_INSPECTOR_LOG").unwrap_or_else(|_| EnvFilter::new("info"))
    };
    let file = log_dir.and_then(|dir| match open_log_file(dir) {
        Ok((path, file)) => {
            let _ = LOG_FILE.set(path);
            Some(file)
        }
        Err(e) => {
            // No log file is no reason not to start: the panel still gets every event.
            record(&LogEvent {
                level: "WARN".into(),
                target: module_path!().into(),
                message: format!("no log file in {}: {e}", dir.display()),
                time_ms: now_ms(),
            });
            None
        }
    });
    let file_layer = file.map(|file| {
        tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(Mutex::new(file))
            .with_filter(filter())
    });
    let subscriber = tracing_subscriber::registry()
        .with(file_layer)
        .with(PanelLayer.with_filter(filter()));
    if tracing::subscriber::set_global_default(subscriber).is_err() {
        tracing::debug!("a tracing subscriber was already installed; keeping it");
    }
    if let Some(path) = LOG_FILE.get() {
        tracing::info!(log_file = %path.display(), "Prompt Inspector {} started", env!("CARGO_PKG_VERSION"));
    }
}

fn open_log_file(dir: &Path) -> std::io::Result<(PathBuf, File)> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("prompt-inspector.log");
    let file = OpenOptions::new().create(true).append(true).open(&path)?;
    Ok((path, file))
}

/// The log file of this session, if one could be opened.
pub fn log_file() -> Option<PathBuf> {
    LOG_FILE.get().cloned()
}

/// The most recent events, oldest first.
pub fn recent() -> Vec<LogEvent> {
    RECENT
        .lock()
        .map(|r| r.iter().cloned().collect())
        .unwrap_or_default()
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn record(event: &LogEvent) {
    if let Ok(mut recent) = RECENT.lock() {
        if recent.len() == RECENT_MAX {
            recent.pop_front();
        }
        recent.push_back(event.clone());
    }
    if let Some(sink) = SINK.get() {
        sink(event);
    }
}

/// Sends every event to the diagnostics panel.
struct PanelLayer;

impl<S: tracing::Subscriber> Layer<S> for PanelLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let mut text = MessageText::default();
        event.record(&mut text);
        record(&LogEvent {
            level: meta.level().to_string(),
            target: meta.target().to_owned(),
            message: text.finish(),
            time_ms: now_ms(),
        });
    }
}

/// Collects `message` first, then the other fields as `name=value`.
#[derive(Default)]
struct MessageText {
    message: String,
    fields: String,
}

impl MessageText {
    fn finish(self) -> String {
        match (self.message.is_empty(), self.fields.is_empty()) {
            (_, true) => self.message,
            (true, false) => self.fields,
            (false, false) => format!("{} {}", self.message, self.fields),
        }
    }
}

impl Visit for MessageText {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.push_field(field, format_args!("{value}"));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.push_field(field, format_args!("{value:?}"));
        }
    }
}

impl MessageText {
    fn push_field(&mut self, field: &Field, value: std::fmt::Arguments<'_>) {
        if !self.fields.is_empty() {
            self.fields.push(' ');
        }
        let _ = write!(self.fields, "{}={}", field.name(), value);
    }
}
