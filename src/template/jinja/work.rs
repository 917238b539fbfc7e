//! The work our own operators, filters and tests do on data, charged by the bytes they touch.
//!
//! minijinja's fuel counts instructions and the values made; it cannot see a comparison of two
//! 4 MB strings, `in` over one, or the hashing `unique` does: such a scan is one instruction
//! however long the string. Those scans are counted here instead, at one fuel per 64 bytes
//! ([`BYTES_PER_FUEL`], minijinja's own rate for data), against a meter a render installs for its
//! duration ([`Meter`]). The meter allows as much fuel as the render was given, so a render does
//! at most twice its fuel of work; what it counted is taken off the scene's budget with the rest.
//!
//! Where a scan cannot fail (`py_eq` answers a `bool`), it is counted with [`note`]; once the meter
//! is over its limit the scans give up early, and the render fails when it ends (or sooner, at the
//! next [`touch`] or [`check`]).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use minijinja::{Error, ErrorKind as MjKind, State};

/// Bytes scanned for one fuel.
pub(crate) const BYTES_PER_FUEL: u64 = 64;

thread_local! {
    static BYTES: Cell<u64> = const { Cell::new(0) };
    static LIMIT: Cell<u64> = const { Cell::new(u64::MAX) };
    static OVER: Cell<bool> = const { Cell::new(false) };
    static CANCELLED: Cell<bool> = const { Cell::new(false) };
    /// The most fuel minijinja had counted the last time one of our functions looked.
    static SEEN: Cell<u64> = const { Cell::new(0) };
    static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
    /// Bytes `{{ ... }}` may still print in this render (the scene's output budget).
    static PRINT_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    static PRINT_OVER: Cell<bool> = const { Cell::new(false) };
}

/// Counts `bytes` printed by `{{ ... }}`; fails once past what the scene's output budget has left,
/// so a render stops before it builds output the budget would refuse.
pub(crate) fn print(bytes: usize) -> Result<(), Error> {
    let left = PRINT_LEFT.get();
    if bytes as u64 > left {
        PRINT_OVER.set(true);
        return Err(Error::new(
            MjKind::WriteFailure,
            "output size limit exceeded",
        ));
    }
    PRINT_LEFT.set(left - bytes as u64);
    Ok(())
}

fn out_of_fuel() -> Error {
    Error::from(MjKind::OutOfFuel)
}

fn cancelled() -> bool {
    if CANCELLED.get() {
        return true;
    }
    let now = CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    });
    if now {
        CANCELLED.set(true);
    }
    now
}

/// Counts a scan of `bytes`; fails once the render's meter is over its limit or the render was
/// cancelled.
pub(crate) fn touch(bytes: usize) -> Result<(), Error> {
    if note(bytes) && !cancelled() {
        Ok(())
    } else {
        Err(out_of_fuel())
    }
}

/// Counts a scan of `bytes`; `false` once the meter is over its limit (the caller may stop).
pub(crate) fn note(bytes: usize) -> bool {
    let total = BYTES.get().saturating_add(bytes as u64);
    BYTES.set(total);
    if total > LIMIT.get() {
        OVER.set(true);
    }
    !OVER.get()
}

/// Fails when the meter is over its limit or the render was cancelled.
pub(crate) fn check() -> Result<(), Error> {
    if OVER.get() || cancelled() {
        Err(out_of_fuel())
    } else {
        Ok(())
    }
}

/// Remembers how much fuel minijinja has counted, for a render that fails before it can say.
pub(crate) fn observe(state: &State) {
    if let Some((consumed, _)) = state.fuel_levels() {
        SEEN.set(SEEN.get().max(consumed));
    }
}

/// The meter of one render, installed on this thread while it lives.
pub(crate) struct Meter {
    saved: (
        u64,
        u64,
        bool,
        bool,
        u64,
        Option<Arc<AtomicBool>>,
        u64,
        bool,
    ),
}

/// What a render's meter counted.
pub(crate) struct Counted {
    /// Fuel for the bytes scanned.
    pub fuel: u64,
    pub over: bool,
    pub cancelled: bool,
    /// minijinja's fuel as last seen.
    pub seen: u64,
    /// `{{ ... }}` printed past the output allowance.
    pub print_over: bool,
}

impl Meter {
    /// A meter allowing `fuel` worth of scans and `output` bytes printed, stopped by `cancel`.
    pub(crate) fn install(fuel: u64, output: u64, cancel: Option<Arc<AtomicBool>>) -> Meter {
        let saved = (
            BYTES.replace(0),
            LIMIT.replace(fuel.saturating_mul(BYTES_PER_FUEL)),
            OVER.replace(false),
            CANCELLED.replace(false),
            SEEN.replace(0),
            CANCEL.with(|c| c.replace(cancel)),
            PRINT_LEFT.replace(output),
            PRINT_OVER.replace(false),
        );
        Meter { saved }
    }

    pub(crate) fn counted(&self) -> Counted {
        let _ = cancelled();
        Counted {
            fuel: BYTES.get() / BYTES_PER_FUEL,
            over: OVER.get(),
            cancelled: CANCELLED.get(),
            seen: SEEN.get(),
            print_over: PRINT_OVER.get(),
        }
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        let (bytes, limit, over, cancelled, seen, cancel, print_left, print_over) =
            self.saved.clone();
        PRINT_LEFT.set(print_left);
        PRINT_OVER.set(print_over);
        BYTES.set(bytes);
        LIMIT.set(limit);
        OVER.set(over);
        CANCELLED.set(cancelled);
        SEEN.set(seen);
        CANCEL.with(|c| c.replace(cancel));
    }
}
