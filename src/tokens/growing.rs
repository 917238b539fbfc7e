//! Token counts of a text that grows at its end, each count costing only the new text.
//!
//! A tool-call loop sends requests that each begin with the whole previous one, so counting every
//! request afresh is quadratic in the number of rounds. Byte-pair encoding is not additive in
//! general (pieces merge across a cut), but it is at a *safe split*: a position `p` where
//! `text[p - 1]` is `\n` and `text[p]` is neither whitespace nor `/`.
//!
//! Why: both encodings first cut the text into pieces with one pattern, then encode each piece
//! alone. No alternative of either pattern (`o200k_base`, `cl100k_base`) that takes a newline
//! goes on past a character that is not whitespace, `\r`, `\n` or `/`, and no alternative
//! crosses a newline in any other way, so a piece ends at `p`, the piece at `p` starts afresh
//! (the patterns have no look-behind), and no piece before `p` looks further than `text[p]`
//! (the one look-ahead, `\s+(?!\S)`, is never reached for a run of spaces that ends in a newline:
//! `\s*[\r\n]+` comes first and matches it). Hence `count(text) == count(text[..p]) +
//! count(text[p..])`, and a text that shares `text[..p]` and the character at `p` shares the
//! count of `text[..p]`. The tests check both claims on random text against whole counts.

use super::{count, Encoding};

/// Chunks encoded at once are at least this long (when the text has splits that far apart), so
/// the split list stays short.
const MIN_CHUNK: usize = 2048;

/// A point up to which a count is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Split {
    /// The byte position of the split.
    at: usize,
    /// Tokens of the text before `at`.
    tokens_before: usize,
    /// The split holds for a text that shares this many leading bytes (`at` plus the character
    /// there, which the pieces before `at` look at).
    needs_shared: usize,
}

/// Counts the tokens of successive texts, each sharing a prefix with the one before.
#[derive(Clone, Debug)]
pub struct GrowingCount {
    encoding: Encoding,
    min_chunk: usize,
    /// Splits of the text last counted, in increasing position.
    splits: Vec<Split>,
}

impl GrowingCount {
    pub fn new(encoding: Encoding) -> GrowingCount {
        GrowingCount::with_min_chunk(encoding, MIN_CHUNK)
    }

    fn with_min_chunk(encoding: Encoding, min_chunk: usize) -> GrowingCount {
        GrowingCount {
            encoding,
            min_chunk: min_chunk.max(1),
            splits: Vec::new(),
        }
    }

    /// The tokens of `text`, whose first `shared` bytes are those of the text this counter
    /// counted last (pass 0 for an unrelated text). Only the text after the last split within
    /// the shared bytes is encoded; the splits found in it are kept for the next call.
    pub fn count(&mut self, text: &str, shared: usize) -> usize {
        self.forget_unshared(shared.min(text.len()));
        let (mut start, mut total) = self
            .splits
            .last()
            .map_or((0, 0), |s| (s.at, s.tokens_before));
        for (at, needs_shared) in safe_splits(text, start) {
            if at - start >= self.min_chunk {
                total += count(&text[start..at], self.encoding);
                self.splits.push(Split {
                    at,
                    tokens_before: total,
                    needs_shared,
                });
                start = at;
            }
        }
        total + count(&text[start..], self.encoding)
    }

    /// The tokens of `text[..end]` (`end` cut back to a character boundary), where `text` shares
    /// its first `shared` bytes with the text counted last; the counter is not changed.
    pub fn count_prefix(&self, text: &str, shared: usize, end: usize) -> usize {
        let mut end = end.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let usable = shared.min(end);
        let known = self
            .splits
            .iter()
            .rev()
            .find(|s| s.needs_shared <= usable)
            .map_or((0, 0), |s| (s.at, s.tokens_before));
        known.1 + count(&text[known.0..end], self.encoding)
    }

    fn forget_unshared(&mut self, shared: usize) {
        while self.splits.last().is_some_and(|s| s.needs_shared > shared) {
            self.splits.pop();
        }
    }
}

/// The safe splits of `text` after byte `from`: `(position, bytes a text must share for it)`.
pub(super) fn safe_splits(text: &str, from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    text[from..].match_indices('\n').filter_map(move |(i, _)| {
        let at = from + i + 1;
        let next = text[at..].chars().next()?;
        (!next.is_whitespace() && next != '/').then(|| (at, at + next.len_utf8()))
    })
}

/// Whether `at` (a character boundary of `text`) is a safe split.
pub(super) fn is_safe_split(text: &str, at: usize) -> bool {
    at > 0
        && text.as_bytes()[at - 1] == b'\n'
        && text[at..]
            .chars()
            .next()
            .is_some_and(|next| !next.is_whitespace() && next != '/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Characters that stress the pieces: newlines, `\r`, spaces of several kinds (U+0085 and
    /// U+2028 are whitespace, U+00A0 too), `/`, letters in both cases, a combining mark,
    /// apostrophes for the contractions, digits, punctuation, CJK.
    const ALPHABET: [&str; 24] = [
        "\n", "\n", "\r", " ", "  ", "\t", "/", "a", "A", "'s", "'", "1", "23", "{", ".", "中",
        "\u{300}", "\u{a0}", "\u{3000}", "é", "\u{85}", "\u{2028}", "x\n", "\n\n",
    ];

    /// A small deterministic generator (xorshift64), so failures replay.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn text(&mut self, max_parts: usize) -> String {
            let parts = self.below(max_parts) + 1;
            (0..parts)
                .map(|_| ALPHABET[self.below(ALPHABET.len())])
                .collect()
        }
    }

    #[test]
    fn counts_add_up_at_every_safe_split() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut splits_seen = 0;
        for _ in 0..3000 {
            let text = rng.text(60);
            for e in Encoding::ALL {
                let whole = count(&text, e);
                for (at, _) in safe_splits(&text, 0) {
                    splits_seen += 1;
                    let parts = count(&text[..at], e) + count(&text[at..], e);
                    assert_eq!(parts, whole, "{e} split at {at} of {text:?}");
                }
            }
        }
        assert!(splits_seen > 10_000, "{splits_seen}");
    }

    #[test]
    fn growing_texts_count_as_whole_texts() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for e in Encoding::ALL {
            for min_chunk in [1, 7, MIN_CHUNK] {
                let mut counter = GrowingCount::with_min_chunk(e, min_chunk);
                let mut text = String::new();
                for step in 0..400 {
                    // Mostly growth; now and then the end is cut away or the text replaced.
                    let (next, shared) = match rng.below(10) {
                        0 => (rng.text(40), 0),
                        1 => {
                            let mut cut = rng.below(text.len() + 1);
                            while !text.is_char_boundary(cut) {
                                cut -= 1;
                            }
                            let mut t = text[..cut].to_owned();
                            t.push_str(&rng.text(20));
                            (t, cut)
                        }
                        _ => (format!("{text}{}", rng.text(30)), text.len()),
                    };
                    text = next;
                    let got = counter.count(&text, shared);
                    assert_eq!(got, count(&text, e), "{e} step {step} of {text:?}");
                    let end = rng.below(text.len() + 1);
                    let mut cut = end;
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    let prefix = counter.count_prefix(&text, text.len(), end);
                    assert_eq!(
                        prefix,
                        count(&text[..cut], e),
                        "{e} prefix {end} of {text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_shared_prefix_is_not_encoded_again() {
        let line = "tool\nran ls in /tmp and found 3 files\n";
        let mut counter = GrowingCount::new(Encoding::O200kBase);
        let mut text = String::new();
        for _ in 0..200 {
            let shared = text.len();
            text.push_str(line);
            counter.count(&text, shared);
        }
        // The splits cover all but the last chunk: the next count encodes at most that chunk
        // and the new text.
        let last = counter.splits.last().map_or(0, |s| s.at);
        assert!(
            text.len() - last < MIN_CHUNK + line.len(),
            "{last} of {}",
            text.len()
        );
        assert_eq!(
            counter.count(&text, text.len()),
            count(&text, Encoding::O200kBase)
        );
    }
}
