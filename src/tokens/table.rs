//! The rank of a byte string in an encoding, from tables build.rs wrote at compile time: nothing
//! is decoded or hashed into memory at run time, and a process touches only the pages its text
//! needs.

use super::table_hash::{
    hash, inline_key, long_tag, CHECK_SHIFT, EMPTY, INLINE_MAX, LEN_SHIFT, OFFSET_BITS, RANK_BITS,
};
use super::Encoding;

// The token counts are only read by the tests.
#[cfg_attr(not(test), allow(dead_code))]
mod consts {
    include!(concat!(env!("OUT_DIR"), "/table_consts.rs"));
}

/// A rank no token has (ranks of both encodings are below 2^18).
pub(super) const NONE: u32 = u32::MAX;

/// One encoding's tables, as build.rs laid them out (see its `write_rank_table`).
pub(super) struct Table {
    /// Token bytes, concatenated in rank order.
    tokens: &'static [u8],
    /// `offsets[r]..offsets[r + 1]` (u32 each) are rank `r`'s bytes in `tokens` (only the
    /// tests go from a rank to its bytes).
    #[cfg(test)]
    offsets: &'static [u8],
    /// The rank of each two-byte string (u32 each, index `a << 8 | b`), or [`NONE`].
    pairs: &'static [u8],
    /// Open addressing, linear probing, u64 slots (table_hash.rs has their layout).
    slots: &'static [u8],
    slot_bits: u32,
    #[cfg(test)]
    len: usize,
}

static O200K: Table = Table {
    tokens: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.tokens")),
    #[cfg(test)]
    offsets: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.offsets")),
    pairs: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.pairs")),
    slots: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.slots")),
    slot_bits: consts::O200K_SLOT_BITS,
    #[cfg(test)]
    len: consts::O200K_TOKENS,
};

static CL100K: Table = Table {
    tokens: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.tokens")),
    #[cfg(test)]
    offsets: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.offsets")),
    pairs: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.pairs")),
    slots: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.slots")),
    slot_bits: consts::CL100K_SLOT_BITS,
    #[cfg(test)]
    len: consts::CL100K_TOKENS,
};

#[inline(always)]
fn word(bytes: &[u8], index: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[index * 4..index * 4 + 4]);
    u32::from_le_bytes(w)
}

impl Table {
    pub(super) fn of(encoding: Encoding) -> &'static Table {
        match encoding {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        }
    }

    /// How many ranks the encoding has (its ordinary tokens).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The bytes of the token of rank `rank` (`rank < len`).
    #[cfg(test)]
    pub(super) fn bytes(&self, rank: u32) -> &'static [u8] {
        let r = rank as usize;
        debug_assert!(r < self.len);
        let start = word(self.offsets, r) as usize;
        let end = word(self.offsets, r + 1) as usize;
        &self.tokens[start..end]
    }

    /// The rank of a two-byte string, or [`NONE`].
    #[inline(always)]
    pub(super) fn pair(&self, a: u8, b: u8) -> u32 {
        word(self.pairs, usize::from(a) << 8 | usize::from(b))
    }

    /// The rank of `bytes` if they are a token, else [`NONE`]. Inlined: merging calls it for
    /// every candidate pair, and the call itself cost a fifth of a lookup.
    #[inline(always)]
    pub(super) fn rank(&self, bytes: &[u8]) -> u32 {
        if let [a, b] = *bytes {
            return self.pair(a, b);
        }
        let h = hash(bytes);
        let mask = (1usize << self.slot_bits) - 1;
        let mut at = (h >> (64 - self.slot_bits)) as usize;
        let rank_mask = (1u64 << RANK_BITS) - 1;
        if bytes.len() <= INLINE_MAX {
            let want = inline_key(bytes, h);
            loop {
                let slot = slot(self.slots, at);
                if slot & !rank_mask == want {
                    return (slot & rank_mask) as u32;
                }
                if slot == EMPTY {
                    return NONE;
                }
                at = (at + 1) & mask;
            }
        }
        let want = (bytes.len() as u64) << LEN_SHIFT | long_tag(h) << (CHECK_SHIFT + OFFSET_BITS);
        let tag_mask = !rank_mask & !(((1u64 << OFFSET_BITS) - 1) << CHECK_SHIFT);
        loop {
            let slot = slot(self.slots, at);
            if slot & tag_mask == want {
                let start = (slot >> CHECK_SHIFT) as usize & ((1 << OFFSET_BITS) - 1);
                if same_bytes(&self.tokens[start..start + bytes.len()], bytes) {
                    return (slot & rank_mask) as u32;
                }
            }
            if slot == EMPTY {
                return NONE;
            }
            at = (at + 1) & mask;
        }
    }
}

#[inline(always)]
fn slot(bytes: &[u8], index: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[index * 8..index * 8 + 8]);
    u64::from_le_bytes(w)
}

/// `a == b`, without a call to `memcmp` for the short strings most lookups compare.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if n >= 8 {
        if n <= 16 {
            let w = |s: &[u8], at: usize| {
                let mut w = [0u8; 8];
                w.copy_from_slice(&s[at..at + 8]);
                u64::from_le_bytes(w)
            };
            return w(a, 0) == w(b, 0) && w(a, n - 8) == w(b, n - 8);
        }
        return a == b;
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}
