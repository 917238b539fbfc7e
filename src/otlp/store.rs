//! The calls a receiver has taken in, newest last: at most a number of calls and of bytes, the
//! oldest dropped first and counted, each with a sequence number so a client asks for what came
//! after the last one it saw.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::ReceivedCall;

/// Calls kept when no capacity is given.
pub const DEFAULT_CAPACITY: usize = 1000;

/// Bytes of scene text kept at most, whatever the count: a thousand calls of a long agent can
/// each carry megabytes of context.
pub const MAX_STORE_BYTES: usize = 256 * 1024 * 1024;

/// One answer holds at most this many calls; the client asks again from `next`.
pub const MAX_CALLS_PER_PAGE: usize = 200;

/// One answer holds at most this many bytes of calls as JSON (a call's texts are escaped, so
/// this counts them as sent), except that it always holds the first call after the cursor,
/// however large, so paging goes on; the client asks again from `next`. Without it, 200 calls
/// of a long agent's context made one answer of hundreds of megabytes.
pub const MAX_PAGE_BYTES: usize = 8 * 1024 * 1024;

/// Whether the receiver is listening, and where or why not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReceiverStatus {
    /// `http://127.0.0.1:4318/v1/traces` when listening.
    pub endpoint: Option<String>,
    /// Why it is not listening: turned off, or the address could not be bound.
    pub error: Option<String>,
}

/// The calls after a sequence number.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallsPage {
    /// Oldest first.
    pub calls: Vec<Arc<ReceivedCall>>,
    /// Calls dropped since the start to stay within the bounds (the oldest go first).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub dropped: u64,
    /// The sequence number to ask after next time (the last call's, or the request's).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub next: u64,
    pub receiver: ReceiverStatus,
}

pub struct CallStore {
    capacity: usize,
    max_bytes: usize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    calls: VecDeque<Arc<ReceivedCall>>,
    /// The last sequence number given; the first call is 1.
    last_seq: u64,
    dropped: u64,
    bytes: usize,
    receiver: ReceiverStatus,
}

impl Default for CallStore {
    fn default() -> CallStore {
        CallStore::new(DEFAULT_CAPACITY, MAX_STORE_BYTES)
    }
}

impl CallStore {
    /// Keeps at most `capacity` calls (at least one) and `max_bytes` of scene text.
    pub fn new(capacity: usize, max_bytes: usize) -> CallStore {
        CallStore {
            capacity: capacity.max(1),
            max_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves whole calls behind: the queue is still valid.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds calls in the order given, numbering them; returns the numbers.
    pub fn push(&self, calls: Vec<ReceivedCall>) -> Vec<u64> {
        let mut inner = self.lock();
        let mut seqs = Vec::with_capacity(calls.len());
        for mut call in calls {
            inner.last_seq += 1;
            call.seq = inner.last_seq;
            seqs.push(call.seq);
            inner.bytes += call.size();
            inner.calls.push_back(Arc::new(call));
            while inner.calls.len() > self.capacity
                || (inner.bytes > self.max_bytes && inner.calls.len() > 1)
            {
                if let Some(old) = inner.calls.pop_front() {
                    inner.bytes -= old.size();
                    inner.dropped += 1;
                }
            }
        }
        seqs
    }

    /// The calls numbered after `after`, oldest first, at most [`MAX_CALLS_PER_PAGE`] and
    /// [`MAX_PAGE_BYTES`] of them (at least one).
    pub fn after(&self, after: u64) -> CallsPage {
        let inner = self.lock();
        // Sequence numbers are consecutive, so the first wanted call's index is arithmetic.
        let first_kept = inner.calls.front().map_or(inner.last_seq + 1, |c| c.seq);
        let skip = usize::try_from((after + 1).saturating_sub(first_kept)).unwrap_or(usize::MAX);
        let mut calls: Vec<Arc<ReceivedCall>> = inner
            .calls
            .iter()
            .skip(skip)
            .take(MAX_CALLS_PER_PAGE)
            .cloned()
            .collect();
        let (last_seq, dropped, receiver) = (inner.last_seq, inner.dropped, inner.receiver.clone());
        // Measured outside the lock: the receiver goes on pushing meanwhile.
        drop(inner);
        calls.truncate(fitting(&calls, MAX_PAGE_BYTES));
        let next = calls.last().map_or(after.min(last_seq), |c| c.seq);
        CallsPage {
            calls,
            dropped,
            next,
            receiver,
        }
    }

    /// Forgets every call (the numbering goes on).
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.calls.clear();
        inner.bytes = 0;
    }

    pub fn set_receiver(&self, status: ReceiverStatus) {
        self.lock().receiver = status;
    }
}

/// How many of `calls`, from the first, fit in `budget` bytes of JSON; at least one.
fn fitting(calls: &[Arc<ReceivedCall>], budget: usize) -> usize {
    let mut used = 0usize;
    for (i, call) in calls.iter().enumerate() {
        used = used.saturating_add(json_len(call));
        if used > budget {
            return i.max(1);
        }
    }
    calls.len()
}

/// The length of a call as JSON, counted without building the text.
fn json_len(call: &ReceivedCall) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(bytes.len());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serialising a call cannot fail (strings, numbers and options only); were it to, its
    // texts' own length stands in.
    match serde_json::to_writer(&mut count, call) {
        Ok(()) => count.0,
        Err(_) => call.size(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(scene: &str) -> ReceivedCall {
        ReceivedCall {
            scene: scene.to_owned(),
            ..ReceivedCall::default()
        }
    }

    #[test]
    fn keeps_the_last_n_and_counts_the_dropped() {
        let store = CallStore::new(3, usize::MAX);
        let seqs = store.push((0..5).map(|i| call(&i.to_string())).collect());
        assert_eq!(seqs, [1, 2, 3, 4, 5]);
        let page = store.after(0);
        let kept: Vec<&str> = page.calls.iter().map(|c| c.scene.as_str()).collect();
        assert_eq!(kept, ["2", "3", "4"]);
        assert_eq!((page.dropped, page.next), (2, 5));
        let page = store.after(4);
        assert_eq!(page.calls.len(), 1);
        assert_eq!(page.calls[0].seq, 5);
        let page = store.after(5);
        assert!(page.calls.is_empty());
        assert_eq!(page.next, 5);
        // A client that asks beyond the last number is told the last one.
        assert_eq!(store.after(99).next, 5);
    }

    #[test]
    fn the_byte_bound_drops_the_oldest_but_keeps_the_newest() {
        let store = CallStore::new(100, 10);
        store.push(vec![
            call("aaaaaa"),
            call("bbbbbb"),
            call("cccccccccccccccc"),
        ]);
        let page = store.after(0);
        assert_eq!(page.calls.len(), 1);
        assert_eq!(page.calls[0].scene, "cccccccccccccccc");
        assert_eq!(page.dropped, 2);
    }

    #[test]
    fn a_page_is_bounded_and_the_next_one_follows() {
        let store = CallStore::new(1000, usize::MAX);
        store.push((0..450).map(|_| call("x")).collect());
        let first = store.after(0);
        assert_eq!(first.calls.len(), MAX_CALLS_PER_PAGE);
        let second = store.after(first.next);
        assert_eq!(second.calls[0].seq, first.next + 1);
        store.clear();
        let after_clear = store.after(0);
        assert!(after_clear.calls.is_empty());
        assert_eq!(after_clear.next, 0);
    }

    /// Twenty calls of 512 KiB of quotes are 1 MiB each as JSON (every quote escaped): a page
    /// holds what fits in 8 MiB as sent, the next page goes on from it, and every call comes
    /// back once, in order; a call larger than a page still comes, alone.
    #[test]
    fn a_page_is_bounded_by_its_bytes_as_json() {
        let store = CallStore::new(1000, usize::MAX);
        let quotes = "\"".repeat(512 * 1024);
        store.push((0..20).map(|_| call(&quotes)).collect());
        let mut seen = Vec::new();
        let mut after = 0;
        loop {
            let page = store.after(after);
            if page.calls.is_empty() {
                break;
            }
            let sent = serde_json::to_string(&page).expect("a page as JSON").len();
            assert!(sent <= MAX_PAGE_BYTES, "a page of {sent} bytes");
            assert!(page.calls.len() < 8, "{} calls of 1 MiB", page.calls.len());
            seen.extend(page.calls.iter().map(|c| c.seq));
            after = page.next;
        }
        assert_eq!(seen, (1..=20).collect::<Vec<u64>>());

        store.push(vec![call(&quotes.repeat(20))]);
        let page = store.after(20);
        assert_eq!(page.calls.len(), 1);
        assert_eq!((page.calls[0].seq, page.next), (21, 21));
    }
}
