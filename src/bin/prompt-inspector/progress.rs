//! A progress bar on stderr for long runs (`check` over a corpus), drawn only when stderr is a
//! terminal: piped or redirected output (CI logs, files) never gets one, nor its escape codes.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Redrawing more often than this costs more than it tells.
const REDRAW_EVERY: Duration = Duration::from_millis(100);
const WIDTH: usize = 30;

pub struct Progress {
    total: usize,
    failed: usize,
    drawn: bool,
    last: Option<Instant>,
    enabled: bool,
}

impl Progress {
    /// A bar for `total` items, or one that draws nothing when stderr is not a terminal or the
    /// run is too small to need one.
    pub fn on_terminal(total: usize) -> Progress {
        Progress {
            total,
            failed: 0,
            drawn: false,
            last: None,
            enabled: total > 1 && std::io::stderr().is_terminal(),
        }
    }

    /// `done` items are finished; `failed` says whether the latest one failed.
    pub fn advance(&mut self, done: usize, failed: bool) {
        self.failed += usize::from(failed);
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if done < self.total && self.last.is_some_and(|t| now - t < REDRAW_EVERY) {
            return;
        }
        self.last = Some(now);
        let filled = WIDTH * done / self.total.max(1);
        let bar = format!("{}{}", "#".repeat(filled), "-".repeat(WIDTH - filled));
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K[{bar}] {done}/{} scenes, {} failed",
            self.total, self.failed
        );
        let _ = err.flush();
        self.drawn = true;
    }

    /// Erases the bar, so a line printed next starts clean (it is drawn again on the next
    /// [`advance`](Self::advance)).
    pub fn clear(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.drawn = false;
            self.last = None;
        }
    }
}
