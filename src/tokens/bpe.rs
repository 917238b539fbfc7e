//! Byte-pair merging of one piece, as tiktoken's `byte_pair_merge` does it: start from the
//! piece's bytes, and repeatedly merge the adjacent pair whose joined bytes have the lowest rank,
//! the leftmost one on ties, until no adjacent pair joins into a token. A piece that is a token
//! as a whole is that one token (tiktoken looks it up before merging, and so do we: merging
//! would not always end there).
//!
//! Short pieces (almost all) keep their parts in one small array and scan it for the lowest
//! pair, as tiktoken does; from [`LARGE`] bytes on a tournament tree holds each token's pair
//! with the next, so a long piece (a megabyte of one letter) costs O(n log n), not O(n²). A tree
//! rather than tiktoken's binary heap: a heap of a megabyte's candidates spends its time in cache
//! misses, while the tree's updates after a merge touch neighbouring leaves and their shared
//! ancestors, and it holds no stale entries.

use super::table::{Table, NONE};

/// Pieces of at least this many bytes are merged with the tree. Both ways give the same tokens
/// (tested); from here on the tree costs fewer instructions per merge than the scan (measured on
/// the generated scene's Chinese runs; tiktoken switches to its heap at 100).
pub(super) const LARGE: usize = 32;

/// The longest token of either encoding, in bytes: longer pieces are never one token.
const LONGEST_TOKEN: usize = 128;

/// Scratch space for merging, kept between pieces so they allocate nothing.
pub(super) struct Merger {
    /// The short-piece merge's parts: where each starts (the last entry is the piece's end),
    /// and the rank of each joined with the next, or [`NONE`]. `parts` of them are in use.
    starts: [u32; LARGE + 1],
    ranks: [u32; LARGE + 1],
    parts: usize,
    /// Per byte position, the token starting there (see [`Merger::merge_large`]).
    nodes: Vec<Node>,
    /// The tournament tree: leaf `size + s` is the merge of the token starting at `s` with the
    /// next as `rank << 32 | s` (`u64::MAX` for none), each inner node the least of its two
    /// children, so the root is the lowest rank, then the leftmost.
    tree: Vec<u64>,
}

impl Default for Merger {
    fn default() -> Merger {
        Merger {
            starts: [0; LARGE + 1],
            ranks: [NONE; LARGE + 1],
            parts: 0,
            nodes: Vec::new(),
            tree: Vec::new(),
        }
    }
}

#[derive(Clone, Copy)]
struct Node {
    /// Where the token before this one starts (`u32::MAX` for the first).
    prev: u32,
    /// Where this token ends.
    end: u32,
}

impl Merger {
    /// How many tokens `piece` (not empty) is.
    #[inline]
    pub(super) fn count(&mut self, table: &Table, piece: &[u8]) -> usize {
        if piece.len() == 1 || (piece.len() <= LONGEST_TOKEN && table.rank(piece) != NONE) {
            return 1;
        }
        if piece.len() < LARGE {
            self.merge_small(table, piece);
            self.parts - 1
        } else {
            self.merge_large(table, piece);
            self.large_starts().count()
        }
    }

    /// Calls `token(start, end)` for each token of `piece` (not empty), in order, with byte
    /// offsets in `piece`.
    pub(super) fn split(
        &mut self,
        table: &Table,
        piece: &[u8],
        mut token: impl FnMut(usize, usize),
    ) {
        self.split_with(table, piece, LARGE, &mut token);
    }

    fn split_with(
        &mut self,
        table: &Table,
        piece: &[u8],
        large: usize,
        token: &mut impl FnMut(usize, usize),
    ) {
        if piece.len() == 1 || (piece.len() <= LONGEST_TOKEN && table.rank(piece) != NONE) {
            token(0, piece.len());
        } else if piece.len() < large.min(LARGE) {
            self.merge_small(table, piece);
            for w in self.starts[..self.parts].windows(2) {
                token(w[0] as usize, w[1] as usize);
            }
        } else {
            self.merge_large(table, piece);
            let mut at = 0;
            while at < piece.len() {
                let end = self.nodes[at].end as usize;
                token(at, end);
                at = end;
            }
        }
    }

    /// tiktoken's `_byte_pair_merge` (`piece` shorter than [`LARGE`], at least 2 bytes): the
    /// parts end as the token starts and the piece's end.
    fn merge_small(&mut self, table: &Table, piece: &[u8]) {
        let n = piece.len();
        debug_assert!((2..LARGE).contains(&n));
        let (starts, ranks) = (&mut self.starts, &mut self.ranks);
        for i in 0..n - 1 {
            starts[i] = i as u32;
            ranks[i] = table.pair(piece[i], piece[i + 1]);
        }
        starts[n - 1] = n as u32 - 1;
        starts[n] = n as u32;
        ranks[n - 1] = NONE;
        ranks[n] = NONE;
        let mut len = n + 1;
        // The rank of parts `i` and `i + 1` joined, before `i + 1` is removed (hence `i + 3`).
        let joined = |starts: &[u32], len: usize, i: usize| {
            if i + 3 < len {
                table.rank(&piece[starts[i] as usize..starts[i + 3] as usize])
            } else {
                NONE
            }
        };
        loop {
            let (mut min, mut i) = (NONE, 0);
            for (j, &r) in ranks[..len - 1].iter().enumerate() {
                if r < min {
                    (min, i) = (r, j);
                }
            }
            if min == NONE {
                break;
            }
            if i > 0 {
                ranks[i - 1] = joined(starts, len, i - 1);
            }
            ranks[i] = joined(starts, len, i);
            starts.copy_within(i + 2..len, i + 1);
            ranks.copy_within(i + 2..len, i + 1);
            len -= 1;
        }
        self.parts = len;
    }

    /// The same merges, the lowest pair found at the root of the tournament tree: tiktoken's
    /// `_byte_pair_merge_large` with the tree for its heap. `nodes[s]` describes the token
    /// starting at `s`.
    fn merge_large(&mut self, table: &Table, piece: &[u8]) {
        let n = piece.len();
        let size = n.next_power_of_two();
        let nodes = &mut self.nodes;
        let tree = &mut self.tree;
        nodes.clear();
        // Exactly: a megabyte's piece needs 24 MB here, and doubling growth would leave more.
        nodes.reserve_exact(n);
        tree.clear();
        tree.resize(2 * size, u64::MAX);
        for i in 0..n {
            if i + 1 < n {
                tree[size + i] = candidate(table.pair(piece[i], piece[i + 1]), i);
            }
            nodes.push(Node {
                prev: if i == 0 { u32::MAX } else { i as u32 - 1 },
                end: i as u32 + 1,
            });
        }
        for at in (1..size).rev() {
            tree[at] = tree[2 * at].min(tree[2 * at + 1]);
        }
        while tree[1] != u64::MAX {
            let left = tree[1] as u32 as usize;
            let right = nodes[left].end as usize;
            let right_end = nodes[right].end as usize;
            nodes[left].end = right_end as u32;
            set(tree, size, right, u64::MAX);
            if right_end < n {
                nodes[right_end].prev = left as u32;
            }
            // The joined token's pair with the next one, and the previous token's pair with it.
            let rank = if right_end < n {
                table.rank(&piece[left..nodes[right_end].end as usize])
            } else {
                NONE
            };
            set(tree, size, left, candidate(rank, left));
            let prev = nodes[left].prev;
            if prev != u32::MAX {
                let p = prev as usize;
                set(
                    tree,
                    size,
                    p,
                    candidate(table.rank(&piece[p..right_end]), p),
                );
            }
        }
    }

    fn large_starts(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.nodes.len();
        let mut at = 0;
        std::iter::from_fn(move || {
            (at < n).then(|| {
                let start = at;
                at = self.nodes[at].end as usize;
                start
            })
        })
    }
}

/// A tree leaf: lowest rank first, then the leftmost start; no merge is `u64::MAX`.
#[inline(always)]
fn candidate(rank: u32, start: usize) -> u64 {
    if rank == NONE {
        u64::MAX
    } else {
        u64::from(rank) << 32 | start as u64
    }
}

/// Sets leaf `i` and the inner nodes above it, as far up as their least value changes.
#[inline(always)]
fn set(tree: &mut [u64], size: usize, i: usize, key: u64) {
    let mut at = size + i;
    tree[at] = key;
    while at > 1 {
        let least = tree[at].min(tree[at ^ 1]);
        at /= 2;
        if tree[at] == least {
            break;
        }
        tree[at] = least;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    fn tokens(merger: &mut Merger, table: &Table, piece: &[u8], large: usize) -> Vec<usize> {
        let mut ends = Vec::new();
        merger.split_with(table, piece, large, &mut |_, end| ends.push(end));
        ends
    }

    /// The tree merge and the scan give the same tokens, on pieces the merges fight over (the
    /// tree on longer pieces is compared with tiktoken in `against_tiktoken`).
    #[test]
    fn tree_and_scan_agree() {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let alphabet: [&[u8]; 12] = [
            b"a",
            b"b",
            b"e",
            b"r",
            b"th",
            b" ",
            b"ing",
            "中".as_bytes(),
            "文".as_bytes(),
            "\u{1f600}".as_bytes(),
            b"=",
            &[0xff],
        ];
        let mut merger = Merger::default();
        for encoding in Encoding::ALL {
            let table = Table::of(encoding);
            for _ in 0..3000 {
                let mut piece = Vec::new();
                for _ in 0..next(40) + 2 {
                    piece.extend_from_slice(alphabet[next(alphabet.len())]);
                }
                // The scan holds pieces shorter than `LARGE`.
                piece.truncate(LARGE - 1);
                let scan = tokens(&mut merger, table, &piece, usize::MAX);
                let tree = tokens(&mut merger, table, &piece, 0);
                assert_eq!(scan, tree, "{encoding} {piece:?}");
                assert_eq!(scan.last(), Some(&piece.len()));
            }
        }
    }
}
