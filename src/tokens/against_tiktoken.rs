//! Differential tests: the engine against tiktoken itself (tiktoken-rs vendors tiktoken's Rust
//! core and runs its patterns on fancy-regex), step by step: the rank tables, the pieces each
//! pattern cuts, and the token ids, on random and adversarial text, for both encodings.

use super::pieces::Pieces;
use super::table::{Table, NONE};
use super::{count, encode, Encoding};

use std::sync::OnceLock;

/// cl100k_base's pattern as tiktoken-rs 0.12 passes it to `CoreBPE::new` (it is not exported;
/// o200k_base's is, as `O200K_BASE_PAT_STR`).
const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

fn reference(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    static O200K: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    static CL100K: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    match encoding {
        Encoding::O200kBase => O200K.get_or_init(|| tiktoken_rs::o200k_base().expect("o200k")),
        Encoding::Cl100kBase => CL100K.get_or_init(|| tiktoken_rs::cl100k_base().expect("cl100k")),
    }
}

fn pattern(encoding: Encoding) -> &'static fancy_regex::Regex {
    static O200K: OnceLock<fancy_regex::Regex> = OnceLock::new();
    static CL100K: OnceLock<fancy_regex::Regex> = OnceLock::new();
    let (cell, source) = match encoding {
        Encoding::O200kBase => (&O200K, tiktoken_rs::O200K_BASE_PAT_STR),
        Encoding::Cl100kBase => (&CL100K, CL100K_PATTERN),
    };
    cell.get_or_init(|| fancy_regex::Regex::new(source).expect("tiktoken's pattern"))
}

/// tiktoken's pieces of `text`, as byte ranges.
fn reference_pieces(text: &str, encoding: Encoding) -> Vec<(usize, usize)> {
    pattern(encoding)
        .find_iter(text)
        .map(|m| {
            let m = m.expect("tiktoken's pattern matches within its limits");
            (m.start(), m.end())
        })
        .collect()
}

/// Compares pieces, ids and counts; on a difference, names the first piece that differs.
fn assert_same(text: &str, encoding: Encoding) {
    let ours: Vec<_> = Pieces::new(text, encoding).collect();
    let theirs = reference_pieces(text, encoding);
    if ours != theirs {
        let i = ours
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(theirs.len()));
        let show = |p: Option<&(usize, usize)>| p.map(|&(s, e)| &text[s..e]);
        let at = ours.get(i).or(theirs.get(i)).map_or(0, |p| p.0);
        panic!(
            "{encoding}: piece {i} is {:?}, tiktoken's {:?}, in {}",
            show(ours.get(i)),
            show(theirs.get(i)),
            excerpt(text, at)
        );
    }
    let ids = reference(encoding).encode_ordinary(text);
    let got = encode(text, encoding);
    if got != ids {
        let i = got.iter().zip(&ids).position(|(a, b)| a != b);
        panic!(
            "{encoding}: token {i:?} differs ({} against {} tokens) in {}",
            got.len(),
            ids.len(),
            excerpt(text, 0)
        );
    }
    assert_eq!(
        count(text, encoding),
        ids.len(),
        "{encoding}: {}",
        excerpt(text, 0)
    );
}

/// `text` around byte `at`, short enough to read in a failure message.
fn excerpt(text: &str, at: usize) -> String {
    if text.len() <= 240 {
        return format!("{text:?}");
    }
    let mut from = at.saturating_sub(80);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (at + 80).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    format!(
        "…{:?}… (bytes {from}..{to} of {})",
        &text[from..to],
        text.len()
    )
}

/// A deterministic generator (xorshift64), so a failure replays.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Any character: ASCII, the Basic Multilingual Plane or beyond it (the characters UTF-16
    /// writes as surrogate pairs), so every general category comes up.
    fn any_char(&mut self) -> char {
        loop {
            let cp = match self.below(4) {
                0 => self.below(0x80),
                1 => self.below(0x800),
                2 => self.below(0x1_0000),
                _ => self.below(0x11_0000),
            };
            if let Some(c) = char::from_u32(cp as u32) {
                return c;
            }
        }
    }

    fn text(&mut self, parts: usize) -> String {
        let mut s = String::new();
        for _ in 0..self.below(parts) + 1 {
            if self.below(5) == 0 {
                s.push(self.any_char());
            } else {
                s.push_str(FRAGMENTS[self.below(FRAGMENTS.len())]);
            }
        }
        s
    }
}

/// What the patterns tell apart: letters of every category (upper, lower, title case, modifier,
/// other), marks (non-spacing, spacing, enclosing), numbers (decimal, letter, other), CJK,
/// kana, Hangul, Arabic, emoji and other characters beyond the BMP (mathematical letters, ZWJ
/// sequences, flags), whitespace of every kind and `\r\n` mixes, runs of spaces before
/// letters, contractions in both cases (and the long s, which folds to `s`), `/` after
/// newlines, punctuation, controls, unassigned and private-use code points, special-token text.
const FRAGMENTS: [&str; 96] = [
    "a",
    "b",
    "z",
    "e",
    "s",
    "t",
    "x",
    "A",
    "Z",
    "S",
    "T",
    "É",
    "é",
    "ß",
    "ǅ",
    "ʰ",
    "ー",
    "ª",
    "中",
    "文",
    "あ",
    "ア",
    "한",
    "ا",
    "ש",
    "ä",
    "\u{301}",
    "\u{903}",
    "\u{20dd}",
    "\u{64b}",
    "0",
    "7",
    "٣",
    "１",
    "²",
    "Ⅻ",
    "½",
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'Re",
    "'ve",
    "'VE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'lL",
    "'d",
    "'D",
    "'\u{17f}",
    "'",
    "’",
    "'x",
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\u{a0}",
    "\u{85}",
    "\u{2028}",
    "\u{3000}",
    "\u{b}",
    "\u{c}",
    "\u{1680}",
    "\n/",
    "/",
    "//",
    ".",
    ",",
    "{",
    "}",
    "=",
    "—",
    "…",
    "€",
    "<|endoftext|>",
    "👍",
    "🏳️‍🌈",
    "🇫🇷",
    "\u{1d518}",
    "\u{10348}",
    "\u{20000}",
    "\u{0}",
    "\u{7f}",
    "\u{feff}",
    "\u{378}",
    "\u{e000}",
    "\u{ffff}",
];

#[test]
fn every_rank_has_tiktokens_bytes() {
    for encoding in Encoding::ALL {
        let table = Table::of(encoding);
        let reference = reference(encoding);
        for rank in 0..table.len() as u32 {
            let bytes = reference
                .decode_bytes(&[rank])
                .expect("a rank tiktoken has");
            assert_eq!(table.bytes(rank), bytes, "{encoding} rank {rank}");
            assert_eq!(table.rank(&bytes), rank, "{encoding} {bytes:?}");
        }
        // One past the last ordinary rank is no token of tiktoken's either (special tokens
        // start further on), so the two vocabularies are the same.
        assert!(reference.decode_bytes(&[table.len() as u32]).is_err());
        assert_eq!(table.rank(b"not a token at all"), NONE);
    }
}

#[test]
fn random_text_matches_tiktoken() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    for _ in 0..6000 {
        let text = rng.text(40);
        for encoding in Encoding::ALL {
            assert_same(&text, encoding);
        }
    }
}

#[test]
fn random_code_points_match_tiktoken() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    for _ in 0..3000 {
        let text: String = (0..rng.below(30) + 1).map(|_| rng.any_char()).collect();
        for encoding in Encoding::ALL {
            assert_same(&text, encoding);
        }
    }
}

#[test]
fn every_pair_of_fragments_matches_tiktoken() {
    for a in FRAGMENTS {
        for b in FRAGMENTS {
            for c in ["", " ", "a", "\n", "'s"] {
                let text = format!("{a}{b}{c}");
                for encoding in Encoding::ALL {
                    assert_same(&text, encoding);
                }
            }
        }
    }
}

#[test]
fn long_runs_match_tiktoken() {
    // Runs of one character or fragment, from short to long: long letter, space, newline and
    // punctuation runs are single pieces (the heap merge), digit runs are many.
    let units = [
        "a", "x", " ", "\n", "\r\n", "\t", "0", "中", "👍", ".", "'s", "ab", " a", "\u{3000}", "é",
        "\u{301}", "=-", "/\n",
    ];
    for unit in units {
        for n in [1, 2, 3, 7, 33, 99, 100, 101, 257, 1000, 20_000] {
            let run = unit.repeat(n);
            for encoding in Encoding::ALL {
                assert_same(&run, encoding);
                assert_same(&format!(" {run}x"), encoding);
                assert_same(&format!("Word{run}\n"), encoding);
            }
        }
    }
}

#[test]
fn large_mixed_text_matches_tiktoken() {
    // Longer than a thread's minimum, so `count` splits it between threads.
    let mut rng = Rng(0x3c6e_f372_fe94_f82b);
    let mut text = String::new();
    while text.len() < 300_000 {
        text.push_str(&rng.text(60));
        text.push('\n');
    }
    for encoding in Encoding::ALL {
        assert_same(&text, encoding);
    }
}
