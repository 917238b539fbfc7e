//! The one place every front end (serve, the Tauri shell, the Python package) runs an
//! operation: a panic inside it becomes that request's `internal` error, and the process goes on
//! serving the next one. Shared state stays usable: the live documents and the compile cache
//! take their locks past poisoning.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{ApiError, ErrorCode};

/// Runs `f`, the operation `operation`; a panic answers with an [`ErrorCode::Internal`] error
/// that names the operation and the panic's message (also logged at error level).
pub fn guarded<T>(operation: &str, f: impl FnOnce() -> Result<T, ApiError>) -> Result<T, ApiError> {
    // Unwind safety: what a request can leave half-done is a live document, which each
    // operation takes under its lock and which the next `live_open` replaces.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = panic_message(payload.as_ref());
        tracing::error!(operation, panic = what, "an operation panicked");
        Err(ApiError::new(
            ErrorCode::Internal,
            format!("the operation {operation:?} failed inside the core ({what}); this is a bug"),
        ))
    })
}

/// The message a panic was raised with (`panic!` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_the_requests_internal_error() {
        let e = guarded::<()>("render", || panic!("index out of range: {}", 7))
            .expect_err("a panic is an error");
        assert_eq!(e.code, ErrorCode::Internal);
        assert_eq!(
            e.message,
            "the operation \"render\" failed inside the core (index out of range: 7); this is a bug"
        );
        let e = guarded::<()>("stat", || std::panic::panic_any(3_u8)).expect_err("any payload");
        assert!(
            e.message.contains("a panic without a message"),
            "{}",
            e.message
        );
    }

    #[test]
    fn answers_pass_through_and_the_next_call_runs() {
        let _ = guarded::<()>("render", || panic!("boom"));
        assert_eq!(guarded("about", || Ok(5)), Ok(5));
        let err = ApiError::new(ErrorCode::BadRequest, "no");
        assert_eq!(guarded::<()>("about", || Err(err.clone())), Err(err));
    }

    /// `dispatch` through the guard: what every front end calls.
    #[test]
    fn dispatch_runs_under_the_guard() {
        let live = super::super::Live::new();
        let about = guarded("about", || super::super::dispatch(&live, "about", "{}"));
        assert!(about.is_ok_and(|json| json.starts_with('{')));
    }
}
