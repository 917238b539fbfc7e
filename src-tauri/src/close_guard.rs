//! The close guard: a close request (the title bar's close button, the window manager's) while the
//! open scene has unsaved edits asks first, in a system dialog with three buttons: "Save" (the
//! focused one, so Enter saves: a reflex key never throws edits away), "Don't Save" and "Cancel"
//! (also Escape and closing the dialog).
//!
//! The text lives in the page, so the shell cannot save it: on "Save" it asks the page to
//! ([`SaveBeforeClose`]), the page runs its own Save and answers with the `close_guard_done(saved)`
//! command, which closes the window when the page saved and keeps it open otherwise.
//!
//! One dialog at a time: [`Guard`] is busy from the moment the dialog opens until the outcome is
//! final (Cancel, Don't Save, or the page's answer to Save), and a close request while it is busy is
//! prevented and does nothing else. The page answers every [`SaveBeforeClose`] (saved or not, even
//! when its save throws), so only a hung or vanished page never does; a guard waiting for it forever
//! would leave a window no close request can shut, so after [`PAGE_ANSWER_TIMEOUT`] of silence the
//! next close request asks again (and "Don't Save" gets the person out). A late answer then finds
//! the guard no longer waiting and is ignored: only the answer to a pending Save can close the window.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tauri::{Manager, Runtime, Window};
use tauri_plugin_dialog::{
    DialogExt, MessageDialogButtons, MessageDialogKind, MessageDialogResult,
};
use tauri_specta::Event as _;

use crate::commands::AppState;

/// The dialog's buttons, in the order GTK shows them (the first one has the focus).
pub const SAVE: &str = "Save";
pub const DONT_SAVE: &str = "Don't Save";
pub const CANCEL: &str = "Cancel";
/// The dialog's window title (the real-window journey finds the dialog by it).
pub const TITLE: &str = "Unsaved changes";

/// How long the guard waits for the page's answer to a Save before a close request may ask again.
/// Saving a file takes milliseconds; only a save-as dialog the person lingers in takes longer, and a
/// close request then (unusual: the window is behind that dialog) only shows the question again.
pub const PAGE_ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the guard is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// No dialog, no save under way.
    #[default]
    Idle,
    /// The "Unsaved changes" dialog is on screen.
    Asking,
    /// The person chose Save: the page is saving (perhaps in its save-as dialog) and will answer
    /// with `close_guard_done`.
    Saving { since: Instant },
}

/// What to do with a close request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// No unsaved edits: let the window close.
    Close,
    /// The guard is busy (its dialog is open, or the page is saving at its request): prevent the
    /// close and do nothing else.
    Ignore,
    /// Unsaved edits: prevent the close and show the dialog (the guard is now [`Phase::Asking`]).
    /// `page_silent` is how long the page has left an earlier Save unanswered, when it has.
    Ask { page_silent: Option<Duration> },
}

/// What the person chose in the dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Save,
    DontSave,
    Cancel,
}

impl Choice {
    /// The dialog's result as a choice. On Linux tauri-plugin-dialog reports the custom buttons by
    /// their labels (rfd answers Yes/No/Cancel and the plugin maps them back, Escape and closing the
    /// dialog included, as the Cancel label); other platforms may answer Yes/No/Cancel directly.
    /// Anything else keeps the edits: only an explicit "Don't Save" throws them away.
    pub fn of(result: &MessageDialogResult) -> Self {
        match result {
            MessageDialogResult::Custom(label) if label == SAVE => Self::Save,
            MessageDialogResult::Custom(label) if label == DONT_SAVE => Self::DontSave,
            MessageDialogResult::Yes => Self::Save,
            MessageDialogResult::No => Self::DontSave,
            _ => Self::Cancel,
        }
    }
}

/// The guard's phase. One lock for the whole state, so a transition (checking the phase and the
/// unsaved flag, then moving on) cannot interleave with another: close requests arrive on the main
/// thread, the dialog's answer on a thread of its own, the page's answer on the async runtime.
#[derive(Debug, Default)]
pub struct Guard(Mutex<Phase>);

impl Guard {
    fn lock(&self) -> MutexGuard<'_, Phase> {
        // The critical sections only assign a `Copy` value: a panic elsewhere while it was held
        // cannot have left it half-written.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn phase(&self) -> Phase {
        *self.lock()
    }

    /// Decides about a close request at `now`, given whether there are unsaved edits.
    pub fn close_requested(&self, dirty: bool, now: Instant) -> Request {
        let mut phase = self.lock();
        let page_silent = match *phase {
            Phase::Idle => None,
            Phase::Asking => return Request::Ignore,
            Phase::Saving { since } => {
                let waited = now.saturating_duration_since(since);
                if waited < PAGE_ANSWER_TIMEOUT {
                    return Request::Ignore;
                }
                Some(waited)
            }
        };
        if dirty {
            *phase = Phase::Asking;
            Request::Ask { page_silent }
        } else {
            *phase = Phase::Idle;
            Request::Close
        }
    }

    /// The dialog's answer: Save waits for the page; Don't Save and Cancel end the guard.
    pub fn answered(&self, choice: Choice, now: Instant) {
        *self.lock() = match choice {
            Choice::Save => Phase::Saving { since: now },
            Choice::DontSave | Choice::Cancel => Phase::Idle,
        };
    }

    /// The page's answer to Save: whether the guard was waiting for it (it is idle afterwards).
    pub fn page_answered(&self) -> bool {
        let mut phase = self.lock();
        let waiting = matches!(*phase, Phase::Saving { .. });
        if waiting {
            *phase = Phase::Idle;
        }
        waiting
    }
}

/// Sent to the page when the person chose Save in the close guard: save the open scene as the
/// Save button does, then call `close_guard_done` with whether it was saved.
#[derive(Clone, Debug, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct SaveBeforeClose;

/// `WindowEvent::CloseRequested`: whether to prevent the close (then the guard has taken over).
pub fn on_close_requested<R: Runtime>(window: &Window<R>) -> bool {
    let state = window.state::<AppState>();
    let dirty = state.dirty.load(std::sync::atomic::Ordering::SeqCst);
    // The real-window journey (e2e/journey.mjs) looks for these lines in the log.
    match state.close_guard.close_requested(dirty, Instant::now()) {
        Request::Close => {
            tracing::info!("close requested: no unsaved changes, closing");
            false
        }
        Request::Ignore => {
            tracing::info!("close requested while the close guard is open: ignored");
            true
        }
        Request::Ask { page_silent } => {
            if let Some(waited) = page_silent {
                tracing::warn!(
                    waited_s = waited.as_secs(),
                    "the page never answered the close guard's save: asking again"
                );
            }
            tracing::info!("close requested with unsaved changes: asking first");
            ask(window.clone());
            true
        }
    }
}

/// The scene's name in a window title set by `set_dirty` ("● journey.scene.json — Prompt
/// Inspector", ui/src/lib/title.ts), if the title has that shape.
pub fn scene_label(title: &str) -> Option<&str> {
    let name = title
        .strip_suffix(" — Prompt Inspector")?
        .trim_start_matches('●')
        .trim();
    (!name.is_empty()).then_some(name)
}

/// Shows the dialog; its answer arrives on a thread of the dialog plugin.
fn ask<R: Runtime>(window: Window<R>) {
    let title = window.title().unwrap_or_default();
    let what = scene_label(&title).map_or_else(
        || "The open scene has".to_owned(),
        |name| format!("“{name}” has"),
    );
    let message = format!(
        "{what} unsaved changes. Save them before closing the window?\n\n\
         “{DONT_SAVE}” closes it and throws the changes away."
    );
    window
        .dialog()
        .message(message)
        .title(TITLE)
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::YesNoCancelCustom(
            SAVE.into(),
            DONT_SAVE.into(),
            CANCEL.into(),
        ))
        .parent(&window)
        .show_with_result(move |result| answered(&window, Choice::of(&result)));
}

fn answered<R: Runtime>(window: &Window<R>, choice: Choice) {
    let state = window.state::<AppState>();
    state.close_guard.answered(choice, Instant::now());
    match choice {
        Choice::Save => {
            tracing::info!("close guard: saving before closing");
            if let Err(e) = SaveBeforeClose.emit_to(window, window.label()) {
                // Nothing will answer: the guard must not wait for it.
                tracing::error!("could not ask the page to save: {e}; the window stays open");
                state.close_guard.page_answered();
            }
        }
        Choice::DontSave => {
            tracing::info!("closing with unsaved changes discarded");
            close(window, &state);
        }
        Choice::Cancel => tracing::info!("close cancelled: the unsaved changes are kept"),
    }
}

/// Closes the window for good: clean first, so nothing asks again.
pub fn close<R: Runtime>(window: &Window<R>, state: &AppState) {
    state
        .dirty
        .store(false, std::sync::atomic::Ordering::SeqCst);
    if let Err(e) = window.destroy() {
        tracing::error!("could not close the window: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn later(t: Instant, d: Duration) -> Instant {
        t.checked_add(d).unwrap_or(t)
    }

    #[test]
    fn the_dialog_answers_map_to_choices() {
        let custom = |s: &str| MessageDialogResult::Custom(s.into());
        assert_eq!(Choice::of(&custom(SAVE)), Choice::Save);
        assert_eq!(Choice::of(&custom(DONT_SAVE)), Choice::DontSave);
        assert_eq!(Choice::of(&custom(CANCEL)), Choice::Cancel);
        assert_eq!(Choice::of(&MessageDialogResult::Yes), Choice::Save);
        assert_eq!(Choice::of(&MessageDialogResult::No), Choice::DontSave);
        // Escape, closing the dialog, or anything unexpected keeps the edits.
        assert_eq!(Choice::of(&MessageDialogResult::Cancel), Choice::Cancel);
        assert_eq!(Choice::of(&MessageDialogResult::Ok), Choice::Cancel);
        assert_eq!(Choice::of(&custom("Discard")), Choice::Cancel);
    }

    #[test]
    fn one_dialog_at_a_time() {
        let g = Guard::default();
        let t = Instant::now();
        assert_eq!(g.close_requested(false, t), Request::Close);
        assert_eq!(
            g.close_requested(true, t),
            Request::Ask { page_silent: None }
        );
        // While the dialog is open, and while the page saves, a close request does nothing.
        assert_eq!(g.close_requested(true, t), Request::Ignore);
        assert_eq!(g.close_requested(false, t), Request::Ignore);
        g.answered(Choice::Save, t);
        assert_eq!(g.phase(), Phase::Saving { since: t });
        assert_eq!(
            g.close_requested(true, later(t, Duration::from_secs(5))),
            Request::Ignore
        );
        // The page's answer ends it; a second answer finds nothing pending.
        assert!(g.page_answered());
        assert!(!g.page_answered());
        assert_eq!(g.phase(), Phase::Idle);
        // Cancel and Don't Save end it at once.
        assert!(matches!(g.close_requested(true, t), Request::Ask { .. }));
        g.answered(Choice::Cancel, t);
        assert_eq!(g.phase(), Phase::Idle);
        assert!(!g.page_answered(), "no save pending after Cancel");
    }

    #[test]
    fn a_page_that_never_answers_does_not_lock_the_window() {
        let g = Guard::default();
        let t = Instant::now();
        assert!(matches!(g.close_requested(true, t), Request::Ask { .. }));
        g.answered(Choice::Save, t);
        let late = later(t, PAGE_ANSWER_TIMEOUT);
        assert_eq!(
            g.close_requested(true, late),
            Request::Ask {
                page_silent: Some(PAGE_ANSWER_TIMEOUT)
            }
        );
        // The silent page's late answer is not taken for an answer to the new question.
        assert!(!g.page_answered());
        assert_eq!(g.phase(), Phase::Asking);
        // Silent, and clean meanwhile (the page saved but never said so): the window just closes.
        g.answered(Choice::Save, t);
        assert_eq!(g.close_requested(false, late), Request::Close);
        assert_eq!(g.phase(), Phase::Idle);
    }

    #[test]
    fn the_scene_name_comes_from_the_title() {
        assert_eq!(
            scene_label("● journey.scene.json — Prompt Inspector"),
            Some("journey.scene.json")
        );
        assert_eq!(
            scene_label("default scene — Prompt Inspector"),
            Some("default scene")
        );
        assert_eq!(scene_label("Prompt Inspector"), None);
        assert_eq!(scene_label(""), None);
    }
}
