//! An image's width and height read from the header of its bytes: PNG (`IHDR`), JPEG (the first
//! start-of-frame marker, other segments skipped by their lengths), GIF (the logical screen) and
//! WebP (`VP8 `, `VP8L`, `VP8X`). Nothing else of the image is read or decoded.
//!
//! The bytes may be hostile: every offset is checked, a JPEG's segment walk stops after
//! [`MAX_JPEG_SEGMENTS`] segments, and base64 data is decoded only as far as the header needs and
//! never past [`MAX_HEADER_BYTES`].

use base64::Engine as _;

/// The most bytes of base64 data decoded to find a header: a JPEG's metadata segments (EXIF with
/// its thumbnail, ICC profiles, XMP) come before its frame header and are each at most 64 KiB.
pub const MAX_HEADER_BYTES: usize = 1024 * 1024;

/// The most JPEG segments walked before the frame header; real files have a few dozen.
pub const MAX_JPEG_SEGMENTS: usize = 4096;

/// What a prefix of an image's bytes says about its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Header {
    Size(u32, u32),
    /// The header goes on past the prefix: at least this many bytes are needed.
    Need(usize),
    /// Not an image of a known type, or a broken one.
    Invalid,
}

/// The width and height of a PNG, JPEG, GIF or WebP image, from its header.
pub fn pixel_size(bytes: &[u8]) -> Option<(u32, u32)> {
    match parse(bytes) {
        Header::Size(w, h) => Some((w, h)),
        Header::Need(_) | Header::Invalid => None,
    }
}

/// [`pixel_size`] of base64 data (standard alphabet; whitespace ignored; a `data:` URL's
/// `data:<type>;base64,` prefix skipped), decoding only the leading bytes the header needs.
pub fn pixel_size_base64(data: &str) -> Option<(u32, u32)> {
    let payload = match data.strip_prefix("data:") {
        Some(rest) => rest.split_once(',')?.1,
        None => data,
    };
    let mut source = Base64Prefix::new(payload);
    // Every header but a JPEG's fits in 30 bytes.
    let mut want = 32;
    loop {
        source.fill(want)?;
        match parse(&source.decoded) {
            Header::Size(w, h) => return Some((w, h)),
            Header::Invalid => return None,
            Header::Need(n) => {
                if source.exhausted || n > MAX_HEADER_BYTES {
                    return None;
                }
                // Grow at least geometrically, so a walk over many small segments decodes in
                // few rounds.
                want = n.max(source.decoded.len() * 2).min(MAX_HEADER_BYTES);
            }
        }
    }
}

/// Base64 text decoded from its start, as far as asked.
struct Base64Prefix<'a> {
    rest: std::slice::Iter<'a, u8>,
    /// Characters read but not yet decoded (a group cut by the end of a round).
    pending: Vec<u8>,
    decoded: Vec<u8>,
    exhausted: bool,
}

impl<'a> Base64Prefix<'a> {
    fn new(text: &'a str) -> Self {
        Base64Prefix {
            rest: text.as_bytes().iter(),
            pending: Vec::new(),
            decoded: Vec::new(),
            exhausted: false,
        }
    }

    /// Decodes until at least `want` bytes are decoded or the text ends; `None` on text that is
    /// not base64.
    fn fill(&mut self, want: usize) -> Option<()> {
        while self.decoded.len() < want && !self.exhausted {
            let chars = (want - self.decoded.len()).div_ceil(3) * 4;
            while self.pending.len() < chars {
                match self.rest.next() {
                    Some(c) if c.is_ascii_whitespace() => {}
                    Some(&c) => self.pending.push(c),
                    None => {
                        self.exhausted = true;
                        break;
                    }
                }
            }
            // Whole groups of 4 decode on their own; the last group may carry padding.
            let whole = if self.exhausted {
                self.pending.len()
            } else {
                self.pending.len() / 4 * 4
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&self.pending[..whole])
                .ok()?;
            self.decoded.extend_from_slice(&bytes);
            self.pending.drain(..whole);
        }
        Some(())
    }
}

fn parse(b: &[u8]) -> Header {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if b.len() < 12 {
        // Too short to tell the type unless what there is already rules every type out.
        let could_be = |sig: &[u8]| sig.starts_with(&b[..b.len().min(sig.len())]);
        let maybe = [PNG, b"\xff\xd8\xff", b"GIF8", b"RIFF"]
            .iter()
            .any(|sig| could_be(sig));
        return if maybe {
            Header::Need(12)
        } else {
            Header::Invalid
        };
    }
    if b.starts_with(PNG) {
        png(b)
    } else if b.starts_with(&[0xFF, 0xD8]) {
        jpeg(b)
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        dimensions(u32::from(le16(b, 6)), u32::from(le16(b, 8)))
    } else if &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        webp(b)
    } else {
        Header::Invalid
    }
}

/// A size of two non-zero sides.
fn dimensions(w: u32, h: u32) -> Header {
    if w == 0 || h == 0 {
        Header::Invalid
    } else {
        Header::Size(w, h)
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le24(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], 0])
}

/// The `IHDR` chunk comes first (after Apple's `CgBI` chunk in iOS-optimised files).
fn png(b: &[u8]) -> Header {
    let mut chunk = 8;
    for _ in 0..2 {
        if b.len() < chunk + 16 {
            return Header::Need(chunk + 16);
        }
        let kind = &b[chunk + 4..chunk + 8];
        if kind == b"IHDR" {
            return dimensions(be32(b, chunk + 8), be32(b, chunk + 12));
        }
        if kind != b"CgBI" {
            return Header::Invalid;
        }
        let len = be32(b, chunk) as usize;
        chunk = match chunk.checked_add(12).and_then(|c| c.checked_add(len)) {
            Some(next) => next,
            None => return Header::Invalid,
        };
    }
    Header::Invalid
}

/// Walks the segments before the image data to the first start-of-frame marker, whose header
/// holds the height then the width.
fn jpeg(b: &[u8]) -> Header {
    let mut at = 2;
    for _ in 0..MAX_JPEG_SEGMENTS {
        if b.len() < at + 2 {
            return Header::Need(at + 2);
        }
        if b[at] != 0xFF {
            return Header::Invalid;
        }
        let marker = b[at + 1];
        match marker {
            // Fill bytes before a marker.
            0xFF => at += 1,
            // Markers without a length: TEM, RSTn, and a repeated SOI.
            0x01 | 0xD0..=0xD8 => at += 2,
            // The image data or its end before any frame header.
            0xD9 | 0xDA => return Header::Invalid,
            _ => {
                if b.len() < at + 4 {
                    return Header::Need(at + 4);
                }
                let len = usize::from(be16(b, at + 2));
                if len < 2 {
                    return Header::Invalid;
                }
                // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
                if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                    if len < 7 {
                        return Header::Invalid;
                    }
                    if b.len() < at + 9 {
                        return Header::Need(at + 9);
                    }
                    return dimensions(u32::from(be16(b, at + 7)), u32::from(be16(b, at + 5)));
                }
                at += 2 + len;
            }
        }
    }
    Header::Invalid
}

fn webp(b: &[u8]) -> Header {
    if b.len() < 30 {
        return Header::Need(30);
    }
    match &b[12..16] {
        // Lossy: a key frame's start code, then 14-bit width and height (2 bits of scale above).
        b"VP8 " => {
            if b[23..26] != [0x9D, 0x01, 0x2A] {
                return Header::Invalid;
            }
            dimensions(
                u32::from(le16(b, 26) & 0x3FFF),
                u32::from(le16(b, 28) & 0x3FFF),
            )
        }
        // Lossless: a signature byte, then width - 1 and height - 1 in 14 bits each.
        b"VP8L" => {
            if b[20] != 0x2F {
                return Header::Invalid;
            }
            let bits = u32::from_le_bytes([b[21], b[22], b[23], b[24]]);
            dimensions((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        // Extended: the canvas's width - 1 and height - 1 in 24 bits each.
        b"VP8X" => dimensions(le24(b, 24) + 1, le24(b, 27) + 1),
        _ => Header::Invalid,
    }
}

#[cfg(test)]
#[path = "header_tests.rs"]
mod tests;
