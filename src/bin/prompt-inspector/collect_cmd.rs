//! `prompt-inspector collect --out DIR [--otlp ADDR]`: the OTLP receiver (src/otlp/) without the
//! app. Each received LLM call is written as a scene in its conversation's folder
//! (`DIR/<conversation>/0001-<name>.scene.json`, numbered in arrival order, as `cache` takes
//! them) and appended, as its span on one line written whole and synced, to that folder's
//! `calls.jsonl` (what `import` and `verify` read); stdout gets one line per call, once it is on
//! disk. SIGINT or SIGTERM stops it, exit 0: an export is acknowledged only once its calls are on
//! disk, and the exports in flight are finished first.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use prompt_inspector::otlp::{receiver, ReceivedCall};
use sha2::Digest;

/// The JSON-lines file of each conversation folder.
pub const JSON_LINES: &str = "calls.jsonl";

pub fn run(out: &Path, otlp: Option<SocketAddr>) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn"))
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
    let Some(addr) = otlp else {
        eprintln!("error: collect is a receiver: --otlp off leaves it nothing to do");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("error: {}: {e}", out.display());
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the receiver's runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(collect(out.to_owned(), addr))
}

async fn collect(out: PathBuf, addr: SocketAddr) -> ExitCode {
    // Signals are watched before the address is announced, so a stop sent as soon as the line
    // is read is not lost.
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: cannot watch for SIGTERM: {e}");
                return ExitCode::from(1);
            }
        };
    let listener = match receiver::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {addr}: {e}");
            return ExitCode::from(1);
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    eprintln!(
        "collecting on {} into {}",
        receiver::endpoint(bound),
        out.display()
    );
    let writer = Arc::new(Mutex::new(Writer {
        out,
        conversations: HashMap::new(),
        written: 0,
    }));
    let sink_writer = Arc::clone(&writer);
    let sink: receiver::Sink = Arc::new(move |calls| {
        let mut w = sink_writer.lock().unwrap_or_else(PoisonError::into_inner);
        calls.iter().try_for_each(|call| w.write(call))
    });
    let (stop, shutdown) = tokio::sync::watch::channel(false);
    let server = tokio::spawn(receiver::serve(listener, sink, shutdown));
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    let _ = stop.send(true);
    let _ = server.await;
    let w = writer.lock().unwrap_or_else(PoisonError::into_inner);
    eprintln!(
        "stopped: {} call(s) in {} conversation(s) written to {}",
        w.written,
        w.conversations.len(),
        w.out.display()
    );
    ExitCode::SUCCESS
}

struct Writer {
    out: PathBuf,
    /// By conversation id: its folder and how many scenes it holds.
    conversations: HashMap<String, (PathBuf, usize)>,
    written: usize,
}

impl Writer {
    fn write(&mut self, call: &ReceivedCall) -> Result<(), String> {
        let (folder, count) = match self.conversations.get_mut(&call.conversation) {
            Some(entry) => entry,
            None => {
                let folder = self.out.join(folder_name(&call.conversation));
                std::fs::create_dir_all(&folder)
                    .map_err(|e| format!("{}: {e}", folder.display()))?;
                // A folder from an earlier run goes on from its last number.
                let existing = scenes_in(&folder);
                self.conversations
                    .entry(call.conversation.clone())
                    .or_insert((folder, existing))
            }
        };
        *count += 1;
        let path = folder.join(format!("{:04}-{}.scene.json", count, call.scene_name));
        prompt_inspector::files::write_atomic(&path, call.scene.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let lines = folder.join(JSON_LINES);
        append_line(&lines, &call.span_json).map_err(|e| format!("{}: {e}", lines.display()))?;
        self.written += 1;
        let shown = path.strip_prefix(&self.out).unwrap_or(&path);
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{}  {}", shown.display(), summary(call));
        let _ = stdout.flush();
        Ok(())
    }
}

/// Appends `line` and its newline to `path` in one write, synced before it returns, so the line
/// printed on stdout after it names a line that is on disk whole. A write that fails part way (a
/// full disk) is cut back to where the file ended: no torn line is left for `import` or `verify`
/// to meet. Only a power loss in the middle of the write can still leave one, and they name it
/// by its file and line.
fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    let mut record = Vec::with_capacity(line.len() + 1);
    record.extend_from_slice(line.as_bytes());
    record.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    // The sink's lock is held: no other line is appended meanwhile.
    let end = file.metadata()?.len();
    match file.write_all(&record).and_then(|()| file.sync_data()) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = file.set_len(end).and_then(|()| file.sync_data());
            Err(e)
        }
    }
}

/// `model gpt-4o · provider openai · input 1,234 (cache read 1,024) · output 56`.
fn summary(call: &ReceivedCall) -> String {
    let mut parts = vec![
        format!("model {}", call.model.as_deref().unwrap_or("(none named)")),
        format!(
            "provider {}",
            call.provider.as_deref().unwrap_or("(none named)")
        ),
    ];
    match &call.usage {
        Some(u) => {
            parts.push(format!(
                "input {} (cache read {})",
                u.input_total, u.cache_read
            ));
            parts.push(format!("output {}", u.output));
        }
        None => parts.push("no usage recorded".to_owned()),
    }
    parts.join(" · ")
}

/// A conversation id as a folder name: letters, digits, `.`, `_` and `-`; an id that had to be
/// changed (or is too long) gets a digest of itself, so two ids never share a folder.
fn folder_name(conversation: &str) -> String {
    let safe: String = conversation
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    if safe == conversation && !safe.is_empty() {
        return safe;
    }
    let digest = sha2::Sha256::digest(conversation.as_bytes());
    let tag: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{}-{tag}", safe.trim_matches('-'))
        .trim_start_matches('-')
        .to_owned()
}

fn scenes_in(folder: &Path) -> usize {
    std::fs::read_dir(folder).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".scene.json"))
            .count()
    })
}
