//! The character classes the two pre-tokenizer patterns tell apart, numbered as the build script
//! (build.rs) writes them into the class table and `tokens::pieces` reads them. Each class is one
//! bit, so a pattern's character set is a mask of classes.
//!
//! The classes partition Unicode: `\p{L}` is split by case as o200k_base's pattern needs it,
//! `\p{M}` and `\p{N}` are their general categories, `\s` (Unicode White_Space) is split into
//! `\r`/`\n` and the rest; everything else (punctuation, symbols, controls, unassigned) is
//! `OTHER`. build.rs checks that the sets it reads from regex-syntax do not overlap.

/// Not a letter, mark, number or whitespace.
pub const OTHER: u8 = 0;
/// `\p{Lu}` and `\p{Lt}`: upper and title case letters.
pub const UPPER: u8 = 1;
/// `\p{Ll}`: lower case letters.
pub const LOWER: u8 = 2;
/// `\p{Lm}` and `\p{Lo}`: modifier and other letters (CJK, kana, Hangul...), in both of
/// o200k_base's letter sets.
pub const CASELESS: u8 = 3;
/// `\p{M}`: combining marks.
pub const MARK: u8 = 4;
/// `\p{N}`: digits and other numbers.
pub const NUMBER: u8 = 5;
/// White space other than `\r` and `\n`.
pub const SPACE: u8 = 6;
/// `\r` and `\n`.
pub const NEWLINE: u8 = 7;
