//! Builds the token counters' tables at compile time, so a process does no work to start counting
//! (src/tokens.rs): for each encoding, the token bytes and an open-addressing hash table over
//! them, and one table of the character classes the pre-tokenizers test. Everything is written
//! to OUT_DIR as little-endian arrays that src/tokens/table.rs and src/tokens/classes.rs include
//! with `include_bytes!`.
//!
//! The ranks come from the rank files checked in under src/tokens/ranks/ (their origin and the
//! SHA-256 tiktoken pins are in the README there): reading ~5 MB of text is fast and needs no
//! network and no build-time copy of a tokenizer crate, so builds stay quick and reproducible
//! offline. The character classes come from regex-syntax, the crate behind the `regex` engine
//! tiktoken's patterns run on, so `\p{L}`, `\p{N}`, `\s`... are exactly the sets tiktoken's
//! regular expressions match (same crate, same version: Cargo.lock pins one).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/tokens/table_hash.rs"]
mod table_hash;

#[allow(dead_code)]
#[path = "src/tokens/char_class.rs"]
mod char_class;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/ranks");
    println!("cargo::rerun-if-changed=src/tokens/table_hash.rs");
    println!("cargo::rerun-if-changed=src/tokens/char_class.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut consts = String::new();
    for name in ["o200k_base", "cl100k_base"] {
        let path = Path::new("src/tokens/ranks").join(format!("{name}.tiktoken"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let tokens = parse_ranks(&text, name);
        let bits = write_rank_table(&out, name, &tokens);
        let upper = name.split('_').next().unwrap_or(name).to_uppercase();
        writeln!(consts, "pub const {upper}_SLOT_BITS: u32 = {bits};").ok();
        writeln!(
            consts,
            "pub const {upper}_TOKENS: usize = {};",
            tokens.len()
        )
        .ok();
    }
    write(&out.join("table_consts.rs"), consts.as_bytes());
    write_classes(&out);
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn le32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The token bytes of a `.tiktoken` file (`base64 rank` per line), indexed by rank. The file
/// must give every rank from 0 up once, every single byte as a token (byte-pair merging starts
/// from bytes) and distinct tokens of at most 254 bytes; anything else stops the build.
fn parse_ranks(text: &str, name: &str) -> Vec<Vec<u8>> {
    let mut tokens = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let (b64, rank) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{name} line {}: expected `base64 rank`", n + 1));
        let rank: usize = rank
            .parse()
            .unwrap_or_else(|_| panic!("{name} line {}: bad rank {rank:?}", n + 1));
        assert_eq!(rank, n, "{name}: ranks must be 0, 1, 2... in file order");
        let bytes = base64(b64).unwrap_or_else(|| panic!("{name} line {}: bad base64", n + 1));
        assert!(
            (1..255).contains(&bytes.len()),
            "{name} line {}: token of {} bytes",
            n + 1,
            bytes.len()
        );
        tokens.push(bytes);
    }
    assert!(
        tokens.len() < 1 << table_hash::RANK_BITS,
        "{name}: {} ranks do not fit the slot layout",
        tokens.len()
    );
    let mut sorted: Vec<&[u8]> = tokens.iter().map(Vec::as_slice).collect();
    sorted.sort_unstable();
    assert!(
        sorted.windows(2).all(|w| w[0] != w[1]),
        "{name}: a token appears twice"
    );
    for b in 0..=255u8 {
        assert!(
            sorted.binary_search(&&[b][..]).is_ok(),
            "{name}: byte {b} is not a token"
        );
    }
    tokens
}

/// Standard base64 with padding, as the rank files are written.
fn base64(s: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let s = s.as_bytes();
    if s.is_empty() || !s.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    for quad in s.chunks(4) {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return None;
        }
        let mut word = 0u32;
        for &c in &quad[..4 - pad] {
            word = word << 6 | digit(c)?;
        }
        word <<= 6 * pad as u32;
        let bytes = word.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

/// Writes `NAME.tokens` (the token bytes, concatenated in rank order), `NAME.offsets` (where
/// each rank's bytes start, and the end), `NAME.pairs` (the rank of every two-byte string, or
/// `u32::MAX`: byte-pair merging starts with these) and `NAME.slots`, the hash table, its slots
/// laid out as src/tokens/table_hash.rs describes. Returns the table's size in bits: at most
/// 40% full, so probes stay short.
fn write_rank_table(out: &Path, name: &str, tokens: &[Vec<u8>]) -> u32 {
    use table_hash::*;
    let mut bytes = Vec::new();
    let mut offsets = Vec::with_capacity(tokens.len() + 1);
    let mut pairs = vec![u32::MAX; 1 << 16];
    for (rank, t) in tokens.iter().enumerate() {
        offsets.push(bytes.len() as u32);
        bytes.extend_from_slice(t);
        if let [a, b] = t[..] {
            pairs[usize::from(a) << 8 | usize::from(b)] = rank as u32;
        }
    }
    offsets.push(bytes.len() as u32);
    assert!(
        bytes.len() < 1 << OFFSET_BITS,
        "{name}: the token bytes outgrow the slot layout"
    );
    let mut bits = 1;
    while (1usize << bits) * 2 < tokens.len() * 5 {
        bits += 1;
    }
    let mask = (1usize << bits) - 1;
    let mut slots = vec![EMPTY; 1 << bits];
    for (rank, t) in tokens.iter().enumerate() {
        let h = hash(t);
        let slot = rank as u64
            | if t.len() <= INLINE_MAX {
                inline_key(t, h)
            } else {
                let check = u64::from(offsets[rank]) | long_tag(h) << OFFSET_BITS;
                (t.len() as u64) << LEN_SHIFT | check << CHECK_SHIFT
            };
        let mut at = (h >> (64 - bits)) as usize;
        while slots[at] != EMPTY {
            at = (at + 1) & mask;
        }
        slots[at] = slot;
    }
    write(&out.join(format!("{name}.tokens")), &bytes);
    write(&out.join(format!("{name}.offsets")), &le32(&offsets));
    write(&out.join(format!("{name}.pairs")), &le32(&pairs));
    let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    write(&out.join(format!("{name}.slots")), &slots);
    bits
}

/// The code points of a regex class, as regex-syntax parses it.
fn class_ranges(pattern: &str) -> Vec<(u32, u32)> {
    use regex_syntax::hir::{Class, HirKind};
    let hir = regex_syntax::parse(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        HirKind::Literal(_) | HirKind::Class(_) => {
            // A one-character set parses as a literal; read it back from the pattern's class.
            let hir = regex_syntax::parse(&format!("[{pattern}]")).expect("a class");
            match hir.kind() {
                HirKind::Class(Class::Unicode(c)) => c
                    .ranges()
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end())))
                    .collect(),
                other => panic!("{pattern}: not a class: {other:?}"),
            }
        }
        other => panic!("{pattern}: not a class: {other:?}"),
    }
}

/// Writes `classes.stage1` (for each block of 256 code points, the index of its class block,
/// little-endian u16) and `classes.stage2` (the distinct blocks, one class byte per code point).
///
/// Also checks what the pre-tokenizers assume of Unicode: the classes do not overlap, and the
/// case-insensitive letters of the contractions (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`)
/// fold to their ASCII pair only, except `s`, which also folds to U+017F (long s).
fn write_classes(out: &Path) {
    use char_class::*;
    const UNSET: u8 = u8::MAX;
    let mut class = vec![UNSET; 0x11_0000];
    let sets: [(&str, u8); 8] = [
        (r"\p{Lu}", UPPER),
        (r"\p{Lt}", UPPER),
        (r"\p{Ll}", LOWER),
        (r"\p{Lm}", CASELESS),
        (r"\p{Lo}", CASELESS),
        (r"\p{M}", MARK),
        (r"\p{N}", NUMBER),
        (r"\s", SPACE),
    ];
    for (pattern, id) in sets {
        for (lo, hi) in class_ranges(pattern) {
            for cp in lo..=hi {
                let c = &mut class[cp as usize];
                assert_eq!(*c, UNSET, "U+{cp:04X} is in {pattern} and another class");
                *c = id;
            }
        }
    }
    // `\p{L}` must be exactly the five letter categories above.
    for (lo, hi) in class_ranges(r"\p{L}") {
        for cp in lo..=hi {
            assert!(
                matches!(class[cp as usize], UPPER | LOWER | CASELESS),
                "U+{cp:04X}"
            );
        }
    }
    for c in &mut class {
        if *c == UNSET {
            *c = OTHER;
        }
    }
    class['\r' as usize] = NEWLINE;
    class['\n' as usize] = NEWLINE;
    for letter in ['s', 't', 'r', 'e', 'v', 'm', 'l', 'd'] {
        let mut want = vec![letter.to_ascii_uppercase() as u32, letter as u32];
        if letter == 's' {
            want.push(0x17f);
        }
        let got: Vec<u32> = class_ranges(&format!("(?i:{letter})"))
            .into_iter()
            .flat_map(|(lo, hi)| lo..=hi)
            .collect();
        assert_eq!(
            got, want,
            "case folding of {letter:?} changed: update src/tokens/pieces.rs"
        );
    }
    let mut blocks: Vec<&[u8]> = Vec::new();
    let mut stage1 = Vec::new();
    for block in class.chunks(256) {
        let at = blocks.iter().position(|b| *b == block).unwrap_or_else(|| {
            blocks.push(block);
            blocks.len() - 1
        });
        stage1.extend_from_slice(&(at as u16).to_le_bytes());
    }
    write(&out.join("classes.stage1"), &stage1);
    write(&out.join("classes.stage2"), &blocks.concat());
}
