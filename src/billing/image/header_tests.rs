use base64::Engine as _;
use proptest::prelude::*;

use super::*;

/// Images written by ImageMagick (`fixtures/images/`), with the sizes it was asked for.
const FIXTURES: [(&[u8], (u32, u32)); 6] = [
    (
        include_bytes!("../../../fixtures/images/lossy.webp"),
        (300, 200),
    ),
    (
        include_bytes!("../../../fixtures/images/lossless.webp"),
        (300, 200),
    ),
    (
        include_bytes!("../../../fixtures/images/alpha.webp"),
        (301, 199),
    ),
    (
        include_bytes!("../../../fixtures/images/progressive.jpg"),
        (333, 177),
    ),
    (
        include_bytes!("../../../fixtures/images/baseline.jpg"),
        (640, 480),
    ),
    (include_bytes!("../../../fixtures/images/anim.gif"), (7, 5)),
];

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn reads_the_size_of_each_type() {
    for (bytes, size) in FIXTURES {
        assert_eq!(pixel_size(bytes), Some(size), "{size:?}");
        assert_eq!(pixel_size_base64(&b64(bytes)), Some(size), "{size:?}");
    }
    let png = include_bytes!("../../../fixtures/providers/screen.png");
    assert_eq!(pixel_size(png), Some((16, 10)));
    let jpg = include_bytes!("../../../fixtures/providers/start.jpg");
    assert_eq!(pixel_size(jpg), Some((16, 10)));
    let icon = include_bytes!("../../../src-tauri/icons/icon.png");
    assert_eq!(pixel_size(icon), Some((512, 512)));
}

#[test]
fn base64_may_be_a_data_url_and_wrapped() {
    let png = include_bytes!("../../../fixtures/providers/screen.png");
    let data = b64(png);
    assert_eq!(
        pixel_size_base64(&format!("data:image/png;base64,{data}")),
        Some((16, 10))
    );
    let wrapped: String = data
        .as_bytes()
        .chunks(7)
        .map(|c| format!("{}\n ", std::str::from_utf8(c).expect("ascii")))
        .collect();
    assert_eq!(pixel_size_base64(&wrapped), Some((16, 10)));
    assert_eq!(pixel_size_base64("not base64!"), None);
    assert_eq!(pixel_size_base64("data:image/png;base64"), None);
    assert_eq!(pixel_size_base64(""), None);
}

/// A JPEG whose frame header comes after `segments` comment segments of `len` bytes each.
fn jpeg_after(segments: usize, len: u16, size: (u16, u16)) -> Vec<u8> {
    let mut b = vec![0xFF, 0xD8];
    for _ in 0..segments {
        b.extend_from_slice(&[0xFF, 0xFE]);
        b.extend_from_slice(&len.to_be_bytes());
        b.extend(std::iter::repeat_n(b'x', usize::from(len) - 2));
    }
    // Fill bytes before a marker are allowed.
    b.extend_from_slice(&[0xFF, 0xFF, 0xC2, 0x00, 0x11, 0x08]);
    b.extend_from_slice(&size.1.to_be_bytes());
    b.extend_from_slice(&size.0.to_be_bytes());
    b.extend_from_slice(&[3; 12]);
    b.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x02]);
    b
}

#[test]
fn jpeg_frames_after_large_metadata_are_found() {
    // Five 64 KiB segments: the base64 reader decodes about 320 KiB of the data, no more.
    let jpeg = jpeg_after(5, u16::MAX, (4000, 3000));
    assert_eq!(pixel_size(&jpeg), Some((4000, 3000)));
    assert_eq!(pixel_size_base64(&b64(&jpeg)), Some((4000, 3000)));
    // Past the decoding limit the base64 reader gives up; the bytes themselves are still read.
    let far = jpeg_after(20, u16::MAX, (4000, 3000));
    assert!(far.len() > MAX_HEADER_BYTES);
    assert_eq!(pixel_size(&far), Some((4000, 3000)));
    assert_eq!(pixel_size_base64(&b64(&far)), None);
    // The walk is bounded in segments too.
    assert_eq!(pixel_size(&jpeg_after(MAX_JPEG_SEGMENTS, 2, (9, 9))), None);
    assert_eq!(pixel_size(&jpeg_after(100, 2, (9, 9))), Some((9, 9)));
}

/// Base64 data is decoded only as far as the header: a valid header followed by megabytes of
/// characters that are not base64 still gives its size.
#[test]
fn base64_decodes_only_the_header() {
    let png = include_bytes!("../../../src-tauri/icons/icon.png");
    let mut data = b64(&png[..48]);
    data.push_str(&"!".repeat(8 * 1024 * 1024));
    assert_eq!(pixel_size_base64(&data), Some((512, 512)));
}

#[test]
fn broken_headers_are_none() {
    let png = include_bytes!("../../../fixtures/providers/screen.png");
    for cut in 0..24 {
        assert_eq!(pixel_size(&png[..cut]), None, "cut at {cut}");
    }
    let mut zero = png.to_vec();
    zero[16..20].copy_from_slice(&[0; 4]);
    assert_eq!(pixel_size(&zero), None, "zero width");
    let mut chunk = png.to_vec();
    chunk[12..16].copy_from_slice(b"IDAT");
    assert_eq!(pixel_size(&chunk), None, "IHDR must come first");
    // Image data before any frame header, and a segment length below its own size.
    assert_eq!(pixel_size(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]), None);
    assert_eq!(
        pixel_size(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 0, 0, 0, 0]),
        None
    );
    assert_eq!(
        pixel_size(b"RIFF\0\0\0\0WEBPVP8Z\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"),
        None
    );
    assert_eq!(pixel_size(b"plain text, not an image"), None);
}

/// A PNG header of the given size followed by `tail`.
fn png_header(w: u32, h: u32, tail: &[u8]) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(tail);
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes at all: no panic, and the base64 reader agrees with the byte reader.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let size = pixel_size(&bytes);
        prop_assert_eq!(pixel_size_base64(&b64(&bytes)), size);
        if let Some((w, h)) = size {
            prop_assert!(w > 0 && h > 0);
        }
    }

    /// Bytes that start like each type, then anything: the walk over what follows never panics.
    #[test]
    fn typed_prefixes_never_panic(
        kind in 0usize..4,
        tail in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let head: &[u8] = [
            &b"\x89PNG\r\n\x1a\n"[..],
            &[0xFF, 0xD8, 0xFF],
            b"GIF89a",
            b"RIFF\0\0\0\0WEBP",
        ][kind];
        let mut bytes = head.to_vec();
        bytes.extend_from_slice(&tail);
        let size = pixel_size(&bytes);
        prop_assert_eq!(pixel_size_base64(&b64(&bytes)), size);
    }

    /// A PNG header of any size is read back whatever follows it.
    #[test]
    fn png_sizes_round_trip(
        w in 1u32..=u32::MAX,
        h in 1u32..=u32::MAX,
        tail in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        prop_assert_eq!(pixel_size(&png_header(w, h, &tail)), Some((w, h)));
    }
}
