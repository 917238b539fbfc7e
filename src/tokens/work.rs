//! Counting texts: each piece merged once, tokens attributed to byte spans by where they start,
//! and large or many texts shared between two threads.
//!
//! A text is cut for the threads only at safe splits (see `growing`), where counts are
//! additive and every token starts where it would in the whole text, so the threads' figures
//! add up to the whole text's exactly.

use std::ops::Range;

use super::bpe::Merger;
use super::growing::{is_safe_split, safe_splits};
use super::pieces::Pieces;
use super::table::Table;
use super::Encoding;

/// Below this many bytes in all, one thread counts everything (about 4 ms): a second thread
/// would save little there, and the app, which counts a scene's tokens on every keystroke up to
/// this size, keeps its second core for painting (docs/performance.md: a second core thread made
/// keystroke-to-paint slower).
pub(super) const PARALLEL_MIN: usize = 256 * 1024;

/// At most this many threads count at once. The report's texts are a few megabytes at most, a
/// second thread halves the time, and more would mostly take cores from the programs around the
/// core (the app's window paints while it works).
const MAX_THREADS: usize = 2;

/// A text to count, and the byte ranges of it whose tokens to count apart (sorted, not
/// overlapping; a token belongs to the range its first byte is in).
#[derive(Clone, Copy, Debug)]
pub struct Spanned<'a> {
    pub text: &'a str,
    pub spans: &'a [Range<usize>],
}

/// The tokens of a [`Spanned`] text: all of them, and per span those that start in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpanCounts {
    pub total: usize,
    pub spans: Vec<usize>,
}

/// Counts every text, each text seen before (or the parts of it that are) taken from the
/// process's memo of counts (`memo`): the same figures as [`count_spanned_fresh`].
pub fn count_spanned(texts: &[Spanned<'_>], encoding: Encoding) -> Vec<SpanCounts> {
    super::memo::count_spanned(texts, encoding)
}

/// Counts every text, on up to [`MAX_THREADS`] threads when there is enough to count.
pub(super) fn count_spanned_fresh(texts: &[Spanned<'_>], encoding: Encoding) -> Vec<SpanCounts> {
    debug_assert!(
        texts
            .iter()
            .all(|t| t.spans.windows(2).all(|w| w[0].end <= w[1].start)),
        "spans must be sorted and not overlap"
    );
    let bytes: usize = texts.iter().map(|t| t.text.len()).sum();
    let threads = if bytes < PARALLEL_MIN {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
    };
    let mut out: Vec<SpanCounts> = texts
        .iter()
        .map(|t| SpanCounts {
            total: 0,
            spans: vec![0; t.spans.len()],
        })
        .collect();
    let units = units(texts, threads);
    let run = |units: &[Unit]| {
        let mut merger = Merger::default();
        units
            .iter()
            .map(|u| {
                let t = &texts[u.text];
                count_unit(t, u.range.clone(), encoding, &mut merger)
            })
            .collect::<Vec<_>>()
    };
    let per_unit: Vec<SpanCounts> = if threads == 1 {
        run(&units)
    } else {
        let cut = units.partition_point(|u| u.thread == 0);
        let (first, rest) = units.split_at(cut);
        std::thread::scope(|s| {
            let others: Vec<_> = rest
                .chunk_by(|a, b| a.thread == b.thread)
                .map(|group| s.spawn(move || run(group)))
                .collect();
            let mut all = run(first);
            for h in others {
                match h.join() {
                    Ok(counts) => all.extend(counts),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            all
        })
    };
    for (u, counts) in units.iter().zip(per_unit) {
        let o = &mut out[u.text];
        o.total += counts.total;
        for (a, b) in o.spans.iter_mut().zip(counts.spans) {
            *a += b;
        }
    }
    out
}

/// A part of one text that one thread counts.
#[derive(Clone, Debug)]
struct Unit {
    text: usize,
    range: Range<usize>,
    thread: usize,
}

/// The texts as units for `threads` threads, in order, each thread's share about equal in
/// bytes: a text that straddles a share's end is cut at the safe split nearest to it, if it
/// has one (else it stays whole, and the next thread starts after it).
fn units(texts: &[Spanned<'_>], threads: usize) -> Vec<Unit> {
    let threads = threads.max(1);
    let total: usize = texts.iter().map(|t| t.text.len()).sum();
    let share = total.div_ceil(threads).max(1);
    let mut units = Vec::with_capacity(texts.len() + threads);
    let mut thread = 0;
    let mut done = 0; // bytes of the texts before the current one
    for (i, t) in texts.iter().enumerate() {
        let len = t.text.len();
        let mut from = 0;
        loop {
            while thread + 1 < threads && done + from >= (thread + 1) * share {
                thread += 1;
            }
            let share_end = (thread + 1) * share;
            let to = if thread + 1 < threads && done + len > share_end {
                nearest_split(t.text, share_end - done, from).unwrap_or(len)
            } else {
                len
            };
            units.push(Unit {
                text: i,
                range: from..to,
                thread,
            });
            if to < len {
                thread += 1; // the cut ends this thread's share
            }
            from = to;
            if from >= len {
                break;
            }
        }
        done += len;
    }
    units
}

/// The safe split of `text` nearest to `near`, after `after` and before the end.
fn nearest_split(text: &str, near: usize, after: usize) -> Option<usize> {
    let mut near = near.clamp(after, text.len());
    while !text.is_char_boundary(near) {
        near -= 1;
    }
    let ahead = safe_splits(text, near).next().map(|(at, _)| at);
    let behind = text[after..near]
        .rmatch_indices('\n')
        .map(|(i, _)| after + i + 1)
        .find(|&at| is_safe_split(text, at));
    let best = match (ahead, behind) {
        (Some(a), Some(b)) => Some(if a - near <= near - b { a } else { b }),
        (a, b) => a.or(b),
    };
    best.filter(|&at| at > after && at < text.len())
}

/// The tokens of `t.text[range]` (`range` bounded by safe splits or the text's ends), with those
/// starting in each of `t.spans`.
fn count_unit(
    t: &Spanned<'_>,
    range: Range<usize>,
    encoding: Encoding,
    merger: &mut Merger,
) -> SpanCounts {
    let table = Table::of(encoding);
    let base = range.start;
    let text = &t.text[range];
    let bytes = text.as_bytes();
    let spans = t.spans;
    let mut per_span = vec![0; spans.len()];
    let mut total = 0;
    // The first span that ends after the current piece's start.
    let mut s = spans.partition_point(|r| r.end <= base);
    for (start, end) in Pieces::new(text, encoding) {
        let piece = &bytes[start..end];
        let (from, to) = (base + start, base + end);
        while s < spans.len() && spans[s].end <= from {
            s += 1;
        }
        let inside = s < spans.len() && spans[s].start <= from && to <= spans[s].end;
        let outside = s == spans.len() || to <= spans[s].start;
        if inside || outside {
            let n = merger.count(table, piece);
            total += n;
            if inside {
                per_span[s] += n;
            }
        } else {
            // A span starts or ends inside the piece: place each token by its first byte.
            let mut k = s;
            merger.split(table, piece, |token_start, _| {
                let at = from + token_start;
                total += 1;
                while k < spans.len() && spans[k].end <= at {
                    k += 1;
                }
                if k < spans.len() && spans[k].start <= at {
                    per_span[k] += 1;
                }
            });
        }
    }
    SpanCounts {
        total,
        spans: per_span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::count;

    #[test]
    fn spans_get_the_tokens_that_start_in_them() {
        // o200k_base: "hello" " world" "\n\n" "x"; the spans cut " world" after its space.
        let text = "hello world\n\nx";
        let spans = [0..6, 6..11, 13..14];
        let got = count_spanned(
            &[Spanned {
                text,
                spans: &spans,
            }],
            Encoding::O200kBase,
        );
        assert_eq!(
            got,
            [SpanCounts {
                total: 4,
                spans: vec![2, 0, 1]
            }]
        );
    }

    #[test]
    fn units_cover_every_text_once_and_cut_only_at_safe_splits() {
        let big = "line of text\n".repeat(25_000);
        let texts = [
            Spanned {
                text: "",
                spans: &[],
            },
            Spanned {
                text: &big,
                spans: &[],
            },
            Spanned {
                text: "short",
                spans: &[],
            },
        ];
        for threads in [1, 2, 3] {
            let units = units(&texts, threads);
            for (i, t) in texts.iter().enumerate() {
                let mine: Vec<_> = units.iter().filter(|u| u.text == i).collect();
                assert_eq!(mine.first().map(|u| u.range.start), Some(0));
                assert_eq!(mine.last().map(|u| u.range.end), Some(t.text.len()));
                for w in mine.windows(2) {
                    assert_eq!(w[0].range.end, w[1].range.start);
                    let at = w[0].range.end;
                    assert!(t.text[..at].ends_with('\n'), "{at}");
                }
            }
            assert!(units.windows(2).all(|w| w[0].thread <= w[1].thread));
            assert_eq!(units.last().map(|u| u.thread), Some(threads - 1));
        }
        let counted = count_spanned(&texts, Encoding::O200kBase);
        assert_eq!(counted[1].total, count(&big, Encoding::O200kBase));
    }
}
