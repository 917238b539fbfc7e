//! Counts kept by content, so that counting a text again costs only what changed in it.
//!
//! A live document counts the whole scene on every keystroke: each message, each tool
//! definition, each segment, and each request body as its provider bills it. An edit changes one
//! template, so almost all of those texts are the ones counted a keystroke before. Every count
//! therefore goes through a memo keyed by the text itself (with the encoding and the spans whose
//! tokens are counted apart): a text seen before is not encoded again.
//!
//! A long text (a segment with every tool's prompt in it) is cut into chunks at *safe splits*
//! (`growing`): there no piece of the pre-tokenization crosses the cut, the piece after it starts
//! afresh and the pieces before it end as they would at the end of the text, so each chunk has,
//! counted alone, exactly the tokens of the whole text that start in it. The cuts are chosen by
//! the bytes around them (one safe split in [`CUT_ONE_IN`], by a hash of the [`WINDOW`] bytes
//! on each side), not by their distance from another cut, so an edit moves only the cuts next to
//! it: the chunks before and after it are the same texts as before and are found in the memo.
//! Only where the hash chooses no cut for [`MAX_CHUNK`] bytes (a text of one line repeated) is
//! the next safe split taken anyway; the cuts after an edit fall back on the same splits as soon
//! as one of them does. Any choice of safe splits gives the same counts as counting whole texts,
//! exactly; the tests compare them over random texts and random edits.
//!
//! The memo is bounded: two generations of at most [`GENERATION_BYTES`] each. When the current
//! one is full it becomes the previous one and the old previous one is dropped; a count found in
//! the previous generation moves to the current one. What one keystroke counts (a few megabytes
//! on a large scene) stays; texts not counted for a while go.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;
use std::sync::{LazyLock, Mutex, PoisonError};

use super::growing::safe_splits;
use super::work::{count_spanned_fresh, SpanCounts, Spanned};
use super::Encoding;

/// Texts shorter than this are counted without the memo: encoding them costs less than looking
/// them up.
pub(super) const MEMO_MIN: usize = 32;

/// Texts at least this long are cut into chunks.
const CHUNK_FROM: usize = 2048;

/// One safe split in this many (by the hash of the bytes before it) ends a chunk.
const CUT_ONE_IN: u64 = 8;

/// How many bytes before a safe split decide whether it ends a chunk.
const WINDOW: usize = 16;

/// A chunk longer than this ends at the next safe split whatever the hash says.
const MAX_CHUNK: usize = 8192;

/// The most one generation of the memo holds (texts, spans and counts, with a fixed overhead per
/// entry); the memo holds at most two.
const GENERATION_BYTES: usize = 16 << 20;

/// The bookkeeping bytes counted per entry beyond its text, spans and counts.
const ENTRY_OVERHEAD: usize = 96;

static MEMO: LazyLock<Mutex<Memo>> = LazyLock::new(|| Mutex::new(Memo::new(Params::DEFAULT)));

/// Counts every text as [`count_spanned_fresh`] does, through the process's memo.
pub(super) fn count_spanned(texts: &[Spanned<'_>], encoding: Encoding) -> Vec<SpanCounts> {
    count_with(&MEMO, texts, encoding)
}

/// How texts are cut and how much is kept (the tests use small ones).
#[derive(Clone, Copy, Debug)]
struct Params {
    memo_min: usize,
    chunk_from: usize,
    cut_one_in: u64,
    generation_bytes: usize,
}

impl Params {
    const DEFAULT: Params = Params {
        memo_min: MEMO_MIN,
        chunk_from: CHUNK_FROM,
        cut_one_in: CUT_ONE_IN,
        generation_bytes: GENERATION_BYTES,
    };
}

/// A chunk's counts as kept: the key (encoding, text, spans relative to the chunk) and the
/// counts.
#[derive(Debug)]
struct Entry {
    encoding: Encoding,
    text: Box<str>,
    spans: Box<[Range<usize>]>,
    counts: SpanCounts,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.text.len()
            + self.spans.len() * std::mem::size_of::<Range<usize>>()
            + self.counts.spans.len() * std::mem::size_of::<usize>()
            + ENTRY_OVERHEAD
    }

    fn is(&self, encoding: Encoding, text: &str, spans: &[Range<usize>]) -> bool {
        self.encoding == encoding && *self.text == *text && *self.spans == *spans
    }
}

type Hashed = foldhash::fast::FixedState;

#[derive(Debug, Default)]
struct Generation {
    entries: HashMap<u64, Vec<Entry>, Hashed>,
    bytes: usize,
}

impl Generation {
    fn take(
        &mut self,
        hash: u64,
        encoding: Encoding,
        text: &str,
        spans: &[Range<usize>],
    ) -> Option<Entry> {
        let list = self.entries.get_mut(&hash)?;
        let i = list.iter().position(|e| e.is(encoding, text, spans))?;
        let entry = list.swap_remove(i);
        if list.is_empty() {
            self.entries.remove(&hash);
        }
        self.bytes -= entry.bytes();
        Some(entry)
    }
}

#[derive(Debug)]
struct Memo {
    params: Params,
    current: Generation,
    previous: Generation,
    /// Bytes of text encoded (not found in the memo), for the tests.
    encoded: usize,
}

impl Memo {
    fn new(params: Params) -> Memo {
        Memo {
            params,
            current: Generation::default(),
            previous: Generation::default(),
            encoded: 0,
        }
    }

    fn get(
        &mut self,
        hash: u64,
        encoding: Encoding,
        text: &str,
        spans: &[Range<usize>],
    ) -> Option<SpanCounts> {
        if let Some(list) = self.current.entries.get(&hash) {
            if let Some(e) = list.iter().find(|e| e.is(encoding, text, spans)) {
                return Some(e.counts.clone());
            }
        }
        let entry = self.previous.take(hash, encoding, text, spans)?;
        let counts = entry.counts.clone();
        self.put(hash, entry);
        Some(counts)
    }

    fn put(&mut self, hash: u64, entry: Entry) {
        let bytes = entry.bytes();
        // Too large to keep, or kept meanwhile by another thread counting the same text.
        let kept = self.current.entries.get(&hash).is_some_and(|list| {
            list.iter()
                .any(|e| e.is(entry.encoding, &entry.text, &entry.spans))
        });
        if bytes > self.params.generation_bytes || kept {
            return;
        }
        if self.current.bytes + bytes > self.params.generation_bytes {
            self.previous = std::mem::take(&mut self.current);
        }
        self.current.bytes += bytes;
        self.current.entries.entry(hash).or_default().push(entry);
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.current.bytes + self.previous.bytes
    }
}

/// A part of one of the texts being counted, between two cuts.
struct Chunk<'a> {
    text: usize,
    slice: &'a str,
    /// The text's spans that overlap the chunk, relative to it (empty overlaps left out), and
    /// which of the text's spans each is.
    spans: Vec<Range<usize>>,
    span_of: Vec<usize>,
    hash: u64,
}

fn count_with(memo: &Mutex<Memo>, texts: &[Spanned<'_>], encoding: Encoding) -> Vec<SpanCounts> {
    let params = memo.lock().unwrap_or_else(PoisonError::into_inner).params;
    let mut out: Vec<SpanCounts> = texts
        .iter()
        .map(|t| SpanCounts {
            total: 0,
            spans: vec![0; t.spans.len()],
        })
        .collect();
    // Small texts are encoded at once, with the misses.
    let mut direct: Vec<usize> = Vec::new();
    let mut chunks: Vec<Chunk<'_>> = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        if t.text.len() < params.memo_min {
            direct.push(i);
        } else {
            chunk(i, t, encoding, &params, &mut chunks);
        }
    }
    let found: Vec<Option<SpanCounts>> = {
        let mut m = memo.lock().unwrap_or_else(PoisonError::into_inner);
        chunks
            .iter()
            .map(|c| m.get(c.hash, encoding, c.slice, &c.spans))
            .collect()
    };
    let missed: Vec<usize> = (0..chunks.len()).filter(|&i| found[i].is_none()).collect();
    let fresh_texts: Vec<Spanned<'_>> = direct
        .iter()
        .map(|&i| texts[i])
        .chain(missed.iter().map(|&i| Spanned {
            text: chunks[i].slice,
            spans: &chunks[i].spans,
        }))
        .collect();
    let mut fresh = count_spanned_fresh(&fresh_texts, encoding).into_iter();
    for (&i, counts) in direct.iter().zip(fresh.by_ref()) {
        out[i] = counts;
    }
    let fresh: Vec<SpanCounts> = fresh.collect();
    {
        let mut m = memo.lock().unwrap_or_else(PoisonError::into_inner);
        m.encoded += direct.iter().map(|&i| texts[i].text.len()).sum::<usize>();
        for (&i, counts) in missed.iter().zip(&fresh) {
            let c = &chunks[i];
            m.encoded += c.slice.len();
            m.put(
                c.hash,
                Entry {
                    encoding,
                    text: c.slice.into(),
                    spans: c.spans.clone().into_boxed_slice(),
                    counts: counts.clone(),
                },
            );
        }
    }
    let mut fresh = fresh.into_iter();
    for (c, found) in chunks.iter().zip(found) {
        let Some(counts) = found.or_else(|| fresh.next()) else {
            continue;
        };
        let o = &mut out[c.text];
        o.total += counts.total;
        for (&s, n) in c.span_of.iter().zip(counts.spans) {
            o.spans[s] += n;
        }
    }
    out
}

/// Cuts text `i` into chunks (see the module documentation) and adds them to `chunks`.
fn chunk<'a>(
    i: usize,
    t: &Spanned<'a>,
    encoding: Encoding,
    params: &Params,
    chunks: &mut Vec<Chunk<'a>>,
) {
    let text = t.text;
    let mut cuts = vec![0];
    if text.len() >= params.chunk_from {
        for (at, _) in safe_splits(text, 0) {
            let last = cuts.last().copied().unwrap_or(0);
            if at - last >= MAX_CHUNK || cut_here(text.as_bytes(), at, params.cut_one_in) {
                cuts.push(at);
            }
        }
    }
    cuts.push(text.len());
    let mut s = 0;
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mut spans = Vec::new();
        let mut span_of = Vec::new();
        while s < t.spans.len() && t.spans[s].end <= a {
            s += 1;
        }
        let mut k = s;
        while k < t.spans.len() && t.spans[k].start < b {
            let r = &t.spans[k];
            let (from, to) = (r.start.max(a), r.end.min(b));
            if from < to {
                spans.push(from - a..to - a);
                span_of.push(k);
            }
            k += 1;
        }
        let slice = &text[a..b];
        chunks.push(Chunk {
            text: i,
            slice,
            hash: hash_of(encoding, slice, &spans),
            spans,
            span_of,
        });
    }
}

/// Whether the safe split at `at` ends a chunk: decided by the bytes around it alone.
fn cut_here(bytes: &[u8], at: usize, one_in: u64) -> bool {
    let mut h = Hashed::with_seed(0x6375_7473).build_hasher();
    h.write(&bytes[at.saturating_sub(WINDOW)..(at + WINDOW).min(bytes.len())]);
    h.finish().is_multiple_of(one_in.max(1))
}

fn hash_of(encoding: Encoding, text: &str, spans: &[Range<usize>]) -> u64 {
    let mut h = Hashed::with_seed(0x746f_6b65_6e73).build_hasher();
    h.write_u8(encoding as u8);
    h.write(text.as_bytes());
    for r in spans {
        h.write_usize(r.start);
        h.write_usize(r.end);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64), so failures replay.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }

        /// Text with many safe splits and the characters that stress the pieces near them.
        fn text(&mut self, parts: usize) -> String {
            const ALPHABET: [&str; 22] = [
                "\n", "\n", "\r", " ", "  ", "\t", "/", "a", "A", "'s", "1", "23", "{", ".",
                "中文", "\u{300}", "\u{a0}", "\u{3000}", "\u{85}", "x\n", "\n\n", "word ",
            ];
            (0..parts)
                .map(|_| ALPHABET[self.below(ALPHABET.len())])
                .collect()
        }

        fn boundary(&mut self, text: &str) -> usize {
            let mut at = self.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        }

        /// Sorted, non-overlapping spans of `text` (some empty, some touching).
        fn spans(&mut self, text: &str) -> Vec<Range<usize>> {
            let mut points: Vec<usize> = (0..self.below(8) * 2)
                .map(|_| self.boundary(text))
                .collect();
            points.sort_unstable();
            points.chunks(2).map(|p| p[0]..p[1]).collect()
        }
    }

    fn small() -> Params {
        Params {
            memo_min: 4,
            chunk_from: 16,
            cut_one_in: 2,
            generation_bytes: 1 << 20,
        }
    }

    #[test]
    fn counts_through_the_memo_are_whole_counts_over_random_edits() {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        for params in [small(), Params::DEFAULT] {
            for e in Encoding::ALL {
                let memo = Mutex::new(Memo::new(params));
                let mut texts: Vec<String> = (0..4).map(|_| rng.text(200)).collect();
                texts.push(rng.text(2000));
                for step in 0..150 {
                    // Edit one text: insert, delete or replace a run at a random place.
                    let i = rng.below(texts.len());
                    let t = &mut texts[i];
                    let a = rng.boundary(t);
                    let b = a.max(rng.boundary(t));
                    let insert = if rng.below(3) == 0 {
                        String::new()
                    } else {
                        rng.text(5)
                    };
                    t.replace_range(a..b, &insert);
                    let spans: Vec<Vec<Range<usize>>> =
                        texts.iter().map(|t| rng.spans(t)).collect();
                    let batch: Vec<Spanned<'_>> = texts
                        .iter()
                        .zip(&spans)
                        .map(|(text, spans)| Spanned { text, spans })
                        .collect();
                    let got = count_with(&memo, &batch, e);
                    let whole = count_spanned_fresh(&batch, e);
                    assert_eq!(got, whole, "{e} step {step}: {batch:?}");
                }
            }
        }
    }

    #[test]
    fn an_edit_encodes_only_the_chunks_it_touched() {
        let memo = Mutex::new(Memo::new(Params::DEFAULT));
        let line = |n: usize| format!("Tool {n}: reads the file and reports 用户的输入 in /tmp.\n");
        let mut text: String = (0..2000).map(line).collect();
        let e = Encoding::O200kBase;
        let count = |memo: &Mutex<Memo>, text: &str| {
            let before = memo.lock().map(|m| m.encoded).unwrap_or(0);
            let got = count_with(memo, &[Spanned { text, spans: &[] }], e);
            let after = memo.lock().map(|m| m.encoded).unwrap_or(0);
            (got[0].total, after - before)
        };
        let (first, encoded) = count(&memo, &text);
        assert_eq!(encoded, text.len());
        assert_eq!(
            first,
            count_spanned_fresh(
                &[Spanned {
                    text: &text,
                    spans: &[]
                }],
                e
            )[0]
            .total
        );
        // Inside the word "Tool" of a line in the middle.
        let middle = (0..1000).map(|n| line(n).len()).sum::<usize>() + 2;
        text.insert(middle, 'x');
        let (second, encoded) = count(&memo, &text);
        assert_eq!(
            second,
            count_spanned_fresh(
                &[Spanned {
                    text: &text,
                    spans: &[]
                }],
                e
            )[0]
            .total
        );
        // About CUT_ONE_IN lines around the edit, not the text's 120 KB.
        assert!(
            encoded < 3_000,
            "{encoded} of {} bytes encoded again",
            text.len()
        );
        let (_, again) = count(&memo, &text);
        assert_eq!(again, 0);
        // One line repeated: the hash cuts everywhere or nowhere; long chunks are cut anyway.
        let mut same = "the same line, again and again\n".repeat(4000);
        let _ = count(&memo, &same);
        same.insert(same.len() / 2, 'x');
        let (n, encoded) = count(&memo, &same);
        assert_eq!(
            n,
            count_spanned_fresh(
                &[Spanned {
                    text: &same,
                    spans: &[]
                }],
                e
            )[0]
            .total
        );
        assert!(
            encoded <= 2 * MAX_CHUNK,
            "{encoded} of {} bytes encoded again",
            same.len()
        );
    }

    #[test]
    fn the_memo_stays_within_two_generations() {
        let params = Params {
            generation_bytes: 64 * 1024,
            ..Params::DEFAULT
        };
        let memo = Mutex::new(Memo::new(params));
        let mut rng = Rng(7);
        for _ in 0..2000 {
            let text = rng.text(100);
            let _ = count_with(
                &memo,
                &[Spanned {
                    text: &text,
                    spans: &[],
                }],
                Encoding::O200kBase,
            );
            let bytes = memo.lock().map(|m| m.bytes()).unwrap_or(usize::MAX);
            assert!(bytes <= 2 * params.generation_bytes, "{bytes}");
        }
        // What was counted last is still there.
        let text = "a text counted twice, found the second time";
        let _ = count_with(&memo, &[Spanned { text, spans: &[] }], Encoding::O200kBase);
        let before = memo.lock().map(|m| m.encoded).unwrap_or(0);
        let _ = count_with(&memo, &[Spanned { text, spans: &[] }], Encoding::O200kBase);
        assert_eq!(memo.lock().map(|m| m.encoded).unwrap_or(0), before);
    }
}
