//! Token counts with OpenAI's byte-pair encodings, `o200k_base` (GPT-4o and later; the default)
//! and `cl100k_base` (GPT-4, GPT-3.5), exactly as tiktoken computes them.
//!
//! Our own engine, with nothing built at run time: build.rs turns the rank files (checked in
//! under src/tokens/ranks/, as tiktoken publishes them) into static hash tables and the Unicode
//! classes into a static table, which the binary includes. A process starts counting at once and
//! touches only the table pages its text needs. Each encoding's pattern is a hand-written scanner
//! (`pieces`), each piece merged as tiktoken's `byte_pair_merge` does (`bpe`), and large or many
//! texts are counted on two threads (`work`). Counts are kept by content in a bounded memo
//! (`memo`), long texts by chunks cut where counts add up exactly, so that counting a scene again
//! after an edit encodes only what the edit changed. The tests compare every step with
//! tiktoken-rs.
//!
//! Prompt text is data, never control: text that looks like a special token (`<|endoftext|>`) is
//! encoded as the ordinary characters it is, like tiktoken's `encode_ordinary`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[cfg(test)]
mod against_tiktoken;
mod bpe;
mod char_class;
mod classes;
mod growing;
mod memo;
mod pieces;
mod table;
mod table_hash;
mod work;

pub use growing::GrowingCount;
pub use work::{count_spanned, SpanCounts, Spanned};

/// A byte-pair encoding to count tokens with, by tiktoken's name (in JSON, the API's
/// `tokenizer`); the TypeScript bindings call the type `Tokenizer`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename = "Tokenizer")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the `o` series.
    #[default]
    #[serde(rename = "o200k_base")]
    O200kBase,
    /// GPT-4 and GPT-3.5-turbo.
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
}

impl Encoding {
    /// Every encoding, in the order the CLI lists them.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The name tiktoken gives the encoding (`o200k_base`, `cl100k_base`).
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The encoding named `name` (tiktoken's names, exactly).
    pub fn parse(name: &str) -> Result<Encoding, UnknownEncoding> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.as_str() == name)
            .ok_or_else(|| UnknownEncoding(name.to_owned()))
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Encoding {
    type Err = UnknownEncoding;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::parse(s)
    }
}

/// A tokenizer name that is not one of [`Encoding::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownEncoding(pub String);

impl fmt::Display for UnknownEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown tokenizer {:?} (expected one of: o200k_base, cl100k_base)",
            self.0
        )
    }
}

impl std::error::Error for UnknownEncoding {}

/// The token ids of `text`, special-token text encoded as ordinary text.
pub fn encode(text: &str, encoding: Encoding) -> Vec<u32> {
    let table = table::Table::of(encoding);
    let mut merger = bpe::Merger::default();
    let mut ids = Vec::with_capacity(text.len() / 3);
    let bytes = text.as_bytes();
    for (start, end) in pieces::Pieces::new(text, encoding) {
        let piece = &bytes[start..end];
        merger.split(table, piece, |s, e| ids.push(table.rank(&piece[s..e])));
    }
    ids
}

/// How many tokens `text` is in `encoding` (special-token text counted as ordinary text). A
/// large text is counted on two threads; a text counted before (or the parts of it that were)
/// is taken from the process's memo of counts (`memo`).
pub fn count(text: &str, encoding: Encoding) -> usize {
    if text.len() >= memo::MEMO_MIN {
        let whole = Spanned { text, spans: &[] };
        return count_spanned(&[whole], encoding)
            .first()
            .map_or(0, |c| c.total);
    }
    let table = table::Table::of(encoding);
    let mut merger = bpe::Merger::default();
    let bytes = text.as_bytes();
    pieces::Pieces::new(text, encoding)
        .map(|(start, end)| merger.count(table, &bytes[start..end]))
        .sum()
}

#[cfg(test)]
mod tests {
    //! Reference values: the ids asserted by tiktoken's own tests (openai/tiktoken
    //! `tests/test_encoding.py`: `test_simple`, `test_basic_encode`, `test_simple_regex`,
    //! `test_encode_surrogate_pairs`), and for o200k_base, Chinese and mixed text, the ids that
    //! tiktoken 0.14.0 (Python) printed with `encode_ordinary` over the same rank files (their
    //! SHA-256 matches the `expected_hash` tiktoken pins).

    use super::*;

    const O200K: Encoding = Encoding::O200kBase;
    const CL100K: Encoding = Encoding::Cl100kBase;

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(Encoding::parse(e.as_str()), Ok(e));
            assert_eq!(e.as_str().parse::<Encoding>(), Ok(e));
        }
        assert_eq!(Encoding::default(), O200K);
        assert_eq!(
            serde_json::to_string(&CL100K).ok().as_deref(),
            Some("\"cl100k_base\"")
        );
        let err = Encoding::parse("gpt2").unwrap_err();
        assert!(err.to_string().contains("o200k_base, cl100k_base"), "{err}");
    }

    #[test]
    fn tiktoken_test_suite_cl100k() {
        // test_simple / test_basic_encode
        assert_eq!(encode("hello world", CL100K), [15339, 1917]);
        assert_eq!(encode(" \u{85}0", CL100K), [220, 126, 227, 15]);
        // test_simple_regex
        assert_eq!(encode("rer", CL100K), [38149]);
        assert_eq!(encode("'rer", CL100K), [2351, 81]);
        assert_eq!(encode("today\n ", CL100K), [31213, 198, 220]);
        assert_eq!(encode("today\n \n", CL100K), [31213, 27907]);
        assert_eq!(encode("today\n  \n", CL100K), [31213, 14211]);
        // test_encode_surrogate_pairs
        assert_eq!(encode("👍", CL100K), [9468, 239, 235]);
        // test_encode_empty
        assert_eq!(encode("", CL100K), Vec::<u32>::new());
        assert_eq!(count("", O200K), 0);
    }

    #[test]
    fn tiktoken_reference_o200k() {
        assert_eq!(encode("hello world", O200K), [24912, 2375]);
        assert_eq!(encode("rer", O200K), [27653]);
        assert_eq!(encode("'rer", O200K), [15770, 259]);
        assert_eq!(encode("today\n ", O200K), [58744, 198, 220]);
        assert_eq!(encode("today\n \n", O200K), [58744, 47812]);
        assert_eq!(encode("today\n  \n", O200K), [58744, 31835]);
        assert_eq!(encode(" \u{85}0", O200K), [220, 126, 227, 15]);
        assert_eq!(encode("👍", O200K), [82514]);
        assert_eq!(encode("hello  ", O200K), [24912, 256]);
        assert_eq!(encode(" hello  ", O200K), [40617, 256]);
    }

    #[test]
    fn digits_split_in_threes() {
        // Both encodings split digit runs into groups of at most three (`\p{N}{1,3}`).
        let o200k: [&[u32]; 6] = [
            &[15],
            &[504],
            &[1302],
            &[1302, 15],
            &[1302, 504],
            &[1302, 1302],
        ];
        let cl100k: [&[u32]; 6] = [&[15], &[410], &[931], &[931, 15], &[931, 410], &[931, 931]];
        for (n, (o, c)) in o200k.iter().zip(cl100k).enumerate() {
            let zeros = "0".repeat(n + 1);
            assert_eq!(encode(&zeros, O200K), *o, "{zeros}");
            assert_eq!(encode(&zeros, CL100K), c, "{zeros}");
        }
    }

    #[test]
    fn chinese_and_mixed_text() {
        let cases: [(&str, &[u32], &[u32]); 4] = [
            (
                "请考试我的软件！12345",
                &[10394, 111782, 61932, 9941, 3393, 7633, 2548],
                &[15225, 78698, 42421, 98711, 65372, 14558, 6447, 4513, 1774],
            ),
            (
                "我想分析这份 PDF 的目录结构。",
                &[
                    7522, 18165, 32648, 8327, 26180, 13479, 42905, 91520, 92106, 788,
                ],
                &[
                    37046, 33565, 111, 17620, 98871, 44388, 70542, 11612, 44689, 30832, 24580,
                    37985, 78935, 1811,
                ],
            ),
            (
                "Please extract the table of contents from the PDF.",
                &[8256, 13424, 290, 3293, 328, 15825, 591, 290, 13479, 13],
                &[5618, 8819, 279, 2007, 315, 8970, 505, 279, 11612, 13],
            ),
            (
                "The quick brown fox's friends didn't jump; they'll RUN!\r\n\tTabs\u{a0}and NBSP.",
                &[
                    976, 4853, 19705, 68347, 885, 5664, 9289, 13843, 26, 57956, 68725, 99074,
                    19767, 6071, 5310, 427, 68568, 6657, 13,
                ],
                &[
                    791, 4062, 14198, 39935, 596, 4885, 3287, 956, 7940, 26, 814, 3358, 31860,
                    46726, 10473, 3518, 4194, 438, 36079, 4695, 13,
                ],
            ),
        ];
        for (text, o, c) in cases {
            assert_eq!(encode(text, O200K), o, "{text}");
            assert_eq!(encode(text, CL100K), c, "{text}");
            assert_eq!(count(text, O200K), o.len());
        }
        let mixed =
            "先抽取目录，再逐章总结。 Summarise the discussion so far in five bullet points.";
        assert_eq!(count(mixed, O200K), 21);
        assert_eq!(count(mixed, CL100K), 26);
        let scripts = "Ünïcödé naïve café — “quotes” … 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 こんにちは世界 안녕하세요 مرحبا";
        assert_eq!(count(scripts, O200K), 42);
        assert_eq!(count(scripts, CL100K), 50);
    }

    #[test]
    fn special_token_text_is_ordinary_text() {
        // tiktoken's `encode(..., allowed_special="all")` gives [15339, 220, 100257]; prompt text
        // is data, so the marker is spelled out instead (tiktoken's `encode_ordinary`).
        assert_eq!(
            encode("hello <|endoftext|>", CL100K),
            [15339, 83739, 8862, 728, 428, 91, 29]
        );
        assert_eq!(
            encode("hello <|endoftext|>", O200K),
            [24912, 464, 91, 419, 1440, 919, 91, 29]
        );
        let text = "<|endoftext|> hello <|fim_prefix|> there <|fim_middle|>";
        for e in Encoding::ALL {
            let ids = encode(text, e);
            assert!(!ids.iter().any(|&t| t >= 100_257 && e == CL100K), "{ids:?}");
            assert!(!ids.contains(&199_999), "{ids:?}");
        }
        assert_eq!(count(text, O200K), 21);
        assert_eq!(count(text, CL100K), 21);
    }

    #[test]
    fn catastrophically_repetitive() {
        // tiktoken's test_catastrophically_repetitive strings (c * 10_000, with a leading space,
        // then a trailing newline); counts from tiktoken 0.14.0.
        let expected: [(&str, [usize; 3], [usize; 3]); 6] = [
            ("^", [1250, 1253, 1254], [2500, 2502, 2503]),
            ("0", [3334, 3335, 3336], [3334, 3335, 3336]),
            ("a", [1250, 1252, 1253], [1250, 1252, 1253]),
            ("'s", [10000, 10001, 10002], [10000, 10001, 10002]),
            (" ", [79, 79, 79], [79, 79, 79]),
            ("\n", [625, 627, 627], [313, 314, 315]),
        ];
        for (c, o, cl) in expected {
            let big = c.repeat(10_000);
            let spaced = format!(" {big}");
            let ended = format!("{spaced}\n");
            let got = |e| [count(&big, e), count(&spaced, e), count(&ended, e)];
            assert_eq!(got(O200K), o, "{c:?}");
            assert_eq!(got(CL100K), cl, "{c:?}");
        }
    }

    #[test]
    fn large_repeated() {
        // tiktoken's test_large_repeated: a megabyte of one letter encodes without trouble.
        assert_eq!(count(&"x".repeat(1_000_000), O200K), 125_000);
    }

    #[test]
    fn shared_across_threads() {
        let counts: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| count("hello world", O200K)))
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        assert_eq!(counts, [2, 2, 2, 2]);
    }
}
