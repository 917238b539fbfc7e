//! The hash of a token's bytes that places it in the rank table. The build script (build.rs)
//! fills the table with this same file, so the two can never disagree.
//!
//! Tokens are 1 to 128 bytes. Short ones are read as one or two overlapping words, longer ones
//! 16 bytes at a time, and the words are mixed by a folded multiply (the full 128-bit product's
//! halves XORed). Nothing here is secret or adversarial: a collision only costs a probe.

const K0: u64 = 0x243f_6a88_85a3_08d3;
const K1: u64 = 0x1319_8a2e_0370_7344;
const K2: u64 = 0xa409_3822_299f_31d0;

#[inline(always)]
fn fold(x: u64, y: u64) -> u64 {
    let p = u128::from(x) * u128::from(y);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn word8(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn word4(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// The hash of `bytes` (any length; the table holds lengths 1 to 128).
#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let (a, b) = if len <= 16 {
        if len >= 8 {
            (word8(bytes, 0), word8(bytes, len - 8))
        } else if len >= 4 {
            (word4(bytes, 0), word4(bytes, len - 4))
        } else if len > 0 {
            let three = u64::from(bytes[0])
                | u64::from(bytes[len / 2]) << 8
                | u64::from(bytes[len - 1]) << 16;
            (three, 0)
        } else {
            (0, 0)
        }
    } else {
        let mut acc = K2;
        let mut at = 0;
        while at + 16 < len {
            acc = fold(word8(bytes, at) ^ K0, word8(bytes, at + 8) ^ acc);
            at += 16;
        }
        (word8(bytes, len - 16) ^ acc, word8(bytes, len - 8))
    };
    fold(a ^ K0, b ^ K1 ^ len as u64)
}

/// A rank table slot (u64): bits 0..18 the rank, 18..26 the token's length, 26..64 a check.
/// For a token of up to [`INLINE_MAX`] bytes the check is the bytes themselves (little-endian)
/// and 6 bits of the hash, so a lookup compares one word; for a longer one, where its bytes
/// start in the table's byte string (21 bits) and 17 bits of the hash, which most lookups of
/// other strings fail before reading the bytes.
pub const RANK_BITS: u32 = 18;
pub const LEN_SHIFT: u32 = 18;
pub const CHECK_SHIFT: u32 = 26;
pub const INLINE_MAX: usize = 4;
pub const OFFSET_BITS: u32 = 21;
/// No token: the length field is 255, longer than any token.
pub const EMPTY: u64 = u64::MAX;

/// The slot bits above the rank that a token of these bytes must have, for an inline token.
#[inline(always)]
pub fn inline_key(bytes: &[u8], h: u64) -> u64 {
    // By length, not with a copy: a copy of a variable length is a call to `memcpy`.
    let word = match *bytes {
        [a] => u32::from(a),
        [a, b] => u32::from_le_bytes([a, b, 0, 0]),
        [a, b, c] => u32::from_le_bytes([a, b, c, 0]),
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    };
    let check = u64::from(word) | (h & 0x3f) << 32;
    (bytes.len() as u64) << LEN_SHIFT | check << CHECK_SHIFT
}

/// The hash bits kept in the check of a longer token.
#[inline(always)]
pub fn long_tag(h: u64) -> u64 {
    h & 0x1_ffff
}
