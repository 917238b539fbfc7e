//! The pre-tokenizers: the pieces tiktoken's pattern cuts a text into before byte-pair merging
//! each piece on its own. Hand-written scanners that give exactly the matches of the patterns as
//! tiktoken has them (leftmost-first, the backtracking order of each alternative), verified
//! against tiktoken-rs by the differential tests (tests/it/tokens_tiktoken.rs) and written from
//! this reading of the patterns:
//!
//! o200k_base, with `U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]`,
//! `P = [^\r\n\p{L}\p{N}]`, `Q = [^\s\p{L}\p{N}]` and `C = (?i:'s|'t|'re|'ve|'m|'ll|'d)`:
//!
//! ```text
//! P?U*W+C? | P?U+W*C? | \p{N}{1,3} | ' '?Q+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//! ```
//!
//! cl100k_base (its possessive quantifiers change nothing: no alternative could match by giving
//! back what they took):
//!
//! ```text
//! '(?i:[sdmt]|ll|ve|re) | P?\p{L}+ | \p{N}{1,3} | ' '?Q+[\r\n]* | \s+$ | \s*[\r\n] | \s+(?!\S) | \s
//! ```
//!
//! Every character starts a match of some alternative, so the pieces tile the text. How each
//! alternative resolves:
//! - `P?U*W+C?`: `P?` takes a character when it can; then `U*` takes the longest run of `U` and
//!   gives back until a `W` follows. So the match ends after the run of `W` that follows the
//!   `U` run if a `\p{Ll}` follows it; otherwise after the last `U` run character that is also
//!   in `W` (`\p{Lm}`, `\p{Lo}`, `\p{M}`: the `W+` then takes that one character, as what follows
//!   it is `\p{Lu}`/`\p{Lt}` or not in `W` at all); otherwise the alternative fails with `P?`
//!   taking nothing the same way, and `P?U+W*C?` is tried.
//! - `\s*[\r\n]+` and `\s*[\r\n]` both end just after the last `\r` or `\n` of the run of
//!   whitespace (`\s*` gives back until one comes, and what follows it is not `\r`/`\n`).
//! - `\s+(?!\S)` is the `regex` crate's missing look-ahead: the run of whitespace, less its last
//!   character when a non-space follows and the run has two characters or more; with one, the
//!   last alternative (`\s+` or `\s`) takes that character.

use super::classes::{bit, class_at, CASELESS, LOWER, MARK, NEWLINE, NUMBER, OTHER, SPACE, UPPER};
use super::Encoding;

const LETTER: u8 = bit(UPPER) | bit(LOWER) | bit(CASELESS);
const O200K_U: u8 = bit(UPPER) | bit(CASELESS) | bit(MARK);
const O200K_W: u8 = bit(LOWER) | bit(CASELESS) | bit(MARK);
/// `[^\r\n\p{L}\p{N}]`.
const P: u8 = bit(OTHER) | bit(MARK) | bit(SPACE);
/// `[^\s\p{L}\p{N}]`.
const Q: u8 = bit(OTHER) | bit(MARK);
const WHITE: u8 = bit(SPACE) | bit(NEWLINE);

/// The pieces of a text, as `(start, end)` byte ranges in order.
pub(super) struct Pieces<'a> {
    text: &'a [u8],
    at: usize,
    encoding: Encoding,
}

impl<'a> Pieces<'a> {
    pub(super) fn new(text: &'a str, encoding: Encoding) -> Pieces<'a> {
        Pieces {
            text: text.as_bytes(),
            at: 0,
            encoding,
        }
    }
}

impl Iterator for Pieces<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let start = self.at;
        if start >= self.text.len() {
            return None;
        }
        let end = match self.encoding {
            Encoding::O200kBase => o200k(self.text, start),
            Encoding::Cl100kBase => cl100k(self.text, start),
        };
        debug_assert!(end > start);
        self.at = end;
        Some((start, end))
    }
}

/// The end of the run of characters in `set` from `at`.
#[inline(always)]
fn run(text: &[u8], mut at: usize, set: u8) -> usize {
    while at < text.len() {
        let (class, len) = class_at(text, at);
        if bit(class) & set == 0 {
            break;
        }
        at += len;
    }
    at
}

/// The end of o200k_base's piece starting at `at` (`at < text.len()`).
fn o200k(text: &[u8], at: usize) -> usize {
    let (c0, len0) = class_at(text, at);
    // The two letter alternatives, each first with `P?` taking the first character.
    let after_p = (bit(c0) & P != 0).then_some(at + len0);
    for from in after_p.into_iter().chain([at]) {
        if let Some(end) = o200k_lower_ending(text, from) {
            return o200k_contraction(text, end);
        }
    }
    for from in after_p.into_iter().chain([at]) {
        if from < text.len() && bit(class_at(text, from).0) & O200K_U != 0 {
            let end = run(text, run(text, from, O200K_U), O200K_W);
            return o200k_contraction(text, end);
        }
    }
    if c0 == NUMBER {
        return numbers(text, at);
    }
    if let Some(end) = punctuation(text, at, c0, b"\r\n/") {
        return end;
    }
    whitespace(text, at, false)
}

/// `U*W+` from `from`: where it ends, if it matches.
#[inline(always)]
fn o200k_lower_ending(text: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    // The end of the last character of the `U` run that is also in `W`.
    let mut last_both = None;
    while at < text.len() {
        let (class, len) = class_at(text, at);
        if bit(class) & O200K_U == 0 {
            if class == LOWER {
                return Some(run(text, at, O200K_W));
            }
            break;
        }
        at += len;
        if class != UPPER {
            last_both = Some(at);
        }
    }
    last_both
}

/// `end` moved past o200k_base's `(?i:'s|'t|'re|'ve|'m|'ll|'d)` if one follows.
#[inline(always)]
fn o200k_contraction(text: &[u8], end: usize) -> usize {
    if text.get(end) != Some(&b'\'') {
        return end;
    }
    let rest = &text[end + 1..];
    let one = match rest {
        [b's' | b'S' | b't' | b'T' | b'm' | b'M' | b'd' | b'D', ..] => 1,
        // U+017F LATIN SMALL LETTER LONG S folds to `s`.
        [0xc5, 0xbf, ..] => 2,
        [b'r' | b'R' | b'v' | b'V', b'e' | b'E', ..] | [b'l' | b'L', b'l' | b'L', ..] => 2,
        _ => return end,
    };
    end + 1 + one
}

/// The end of cl100k_base's piece starting at `at` (`at < text.len()`).
fn cl100k(text: &[u8], at: usize) -> usize {
    if text[at] == b'\'' {
        let n = match &text[at + 1..] {
            [b's' | b'S' | b'd' | b'D' | b'm' | b'M' | b't' | b'T', ..] => 1,
            [0xc5, 0xbf, ..] => 2,
            [b'l' | b'L', b'l' | b'L', ..] | [b'v' | b'V' | b'r' | b'R', b'e' | b'E', ..] => 2,
            _ => 0,
        };
        if n > 0 {
            return at + 1 + n;
        }
    }
    let (c0, len0) = class_at(text, at);
    if bit(c0) & LETTER != 0 {
        return run(text, at, LETTER);
    }
    if bit(c0) & P != 0 && at + len0 < text.len() && bit(class_at(text, at + len0).0) & LETTER != 0
    {
        return run(text, at + len0, LETTER);
    }
    if c0 == NUMBER {
        return numbers(text, at);
    }
    if let Some(end) = punctuation(text, at, c0, b"\r\n") {
        return end;
    }
    whitespace(text, at, true)
}

/// `\p{N}{1,3}` from a number at `at`.
#[inline(always)]
fn numbers(text: &[u8], mut at: usize) -> usize {
    for _ in 0..3 {
        if at >= text.len() {
            break;
        }
        let (class, len) = class_at(text, at);
        if class != NUMBER {
            break;
        }
        at += len;
    }
    at
}

/// ` ?Q+[TAIL]*` at `at`, whose class is `c0`, if it matches.
#[inline(always)]
fn punctuation(text: &[u8], at: usize, c0: u8, tail: &[u8]) -> Option<usize> {
    let from = if bit(c0) & Q != 0 {
        at
    } else if text[at] == b' ' && at + 1 < text.len() && bit(class_at(text, at + 1).0) & Q != 0 {
        at + 1
    } else {
        return None;
    };
    let mut end = run(text, from, Q);
    while end < text.len() && tail.contains(&text[end]) {
        end += 1;
    }
    Some(end)
}

/// The whitespace alternatives at `at` (whitespace): up to the last `\r`/`\n` of the run if it
/// has one, else the run less its last character if a non-space follows and it has two or more.
/// `to_end` is cl100k_base's `\s+$`, tried first: a run that reaches the end is one piece.
#[inline(always)]
fn whitespace(text: &[u8], at: usize, to_end: bool) -> usize {
    let mut end = at;
    let mut last_newline_end = None;
    let mut last_start = at;
    while end < text.len() {
        let (class, len) = class_at(text, end);
        if bit(class) & WHITE == 0 {
            break;
        }
        if class == NEWLINE {
            last_newline_end = Some(end + len);
        }
        last_start = end;
        end += len;
    }
    if end == at {
        // Not reached (every other class matched an alternative before); one character keeps
        // the scan moving all the same.
        return at + class_at(text, at).1;
    }
    if end == text.len() && to_end {
        return end;
    }
    if let Some(nl) = last_newline_end {
        return nl;
    }
    if end < text.len() && last_start > at {
        return last_start;
    }
    end
}
