//! xbot's `DynamicContextInjector` (`agent/dynamic_context.go`): after a round with tool calls it
//! compares the current directory with the last one it saw and, when it changed, appends a
//! `<dynamic-context>` block to the newest message, so the system message (and the provider's
//! cached prefix) never has to change.

use crate::scene::run::RunMessage;

/// What one call of the injector did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The last directory was empty (the first call, or an empty directory since): the current
    /// one is recorded as the baseline and nothing is injected. This is why a change made in the
    /// first round is never reported: the first call already sees the new directory.
    Baseline,
    /// Same directory as last time: nothing injected.
    Unchanged,
    /// The directory changed: the block was appended (when there was a message to append to).
    Changed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Baseline => "baseline",
            Outcome::Unchanged => "unchanged",
            Outcome::Changed => "changed",
        }
    }
}

/// Keeps only the last directory seen, exactly as xbot does (`lastCWD string`).
#[derive(Clone, Debug, Default)]
pub struct Injector {
    last_cwd: String,
}

/// The block xbot appends for a directory change.
pub fn block(cwd: &str) -> String {
    format!(
        "<dynamic-context>\n环境变化:\n- 当前目录已切换为：{cwd}，切换后所有 Shell 命令在新目录执行\n</dynamic-context>"
    )
}

impl Injector {
    pub fn new() -> Injector {
        Injector::default()
    }

    /// xbot's `InjectIfNeeded`: `current` is what `getCWD()` returns now. On a change the block is
    /// appended to the last message (whatever its role) after `\n\n`; with no message the change
    /// is still recorded and reported, as xbot returns `true` without touching anything.
    pub fn inject_if_needed(&mut self, messages: &mut [RunMessage], current: &str) -> Outcome {
        // xbot tests `lastCWD == ""`, not "never called": an empty directory is a first call again.
        if self.last_cwd.is_empty() {
            current.clone_into(&mut self.last_cwd);
            return Outcome::Baseline;
        }
        if current == self.last_cwd {
            return Outcome::Unchanged;
        }
        if let Some(last) = messages.last_mut() {
            last.content.push_str("\n\n");
            last.content.push_str(&block(current));
        }
        current.clone_into(&mut self.last_cwd);
        Outcome::Changed
    }
}
