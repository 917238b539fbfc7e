//! A recorded HTTP body as the bytes the application saw: base64 undone (YAML `!!binary`,
//! `base64_string`, HAR's `encoding: base64`), `transfer-encoding: chunked` framing removed and
//! `content-encoding: gzip` or `deflate` inflated, all within a size budget that is checked
//! while inflating, so a small compressed body cannot make a large allocation.
//!
//! Recorders differ in what they keep: vcrpy keeps the compressed bytes with their
//! `content-encoding` header, or (with `decode_compressed_response`) the decoded text beside a
//! header that still says gzip; HAR keeps decoded text. So a coding is undone only when the bytes
//! are in it (gzip's magic number, a zlib header, chunk-size lines), never on the header alone.

use std::io::Read;

use base64::Engine;

/// The most bytes one decoded body may have: a recorded call's body is kilobytes, a long
/// conversation's a few megabytes.
pub(crate) const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// The most bytes all the decoded bodies of one input may have together.
pub(crate) const MAX_TOTAL_BYTES: u64 = 4 * MAX_BODY_BYTES;

/// What is left of an input's decoded-size allowance.
pub(crate) struct Budget {
    left: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            left: MAX_TOTAL_BYTES,
        }
    }
}

impl Budget {
    #[cfg(test)]
    pub fn with(left: u64) -> Budget {
        Budget { left }
    }

    fn spend(&mut self, bytes: usize) -> Result<(), String> {
        let bytes = bytes as u64;
        if bytes > self.left {
            return Err(format!(
                "the decoded bodies of this file exceed {} MiB in all: refused",
                MAX_TOTAL_BYTES / (1024 * 1024)
            ));
        }
        self.left -= bytes;
        Ok(())
    }

    /// The most one more body may decode to.
    fn limit(&self) -> u64 {
        self.left.min(MAX_BODY_BYTES)
    }
}

/// A message's headers, names lower-cased, in recorded order.
#[derive(Default)]
pub(crate) struct Headers(pub Vec<(String, String)>);

impl Headers {
    /// The header's values joined with `, ` (as HTTP folds repeated headers).
    pub fn get(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .0
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }
}

/// Base64 text (line breaks and spaces allowed, as YAML's `!!binary` folds it) as bytes.
pub(crate) fn base64(text: &str) -> Result<Vec<u8>, String> {
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .map_err(|e| format!("invalid base64: {e}"))
}

/// The body as the application received it, and the steps taken (`chunked`, `gzip`).
pub(crate) fn decode(
    mut bytes: Vec<u8>,
    headers: &Headers,
    budget: &mut Budget,
) -> Result<(Vec<u8>, Vec<&'static str>), String> {
    let mut steps = Vec::new();
    let chunked = headers
        .get("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        if let Some(joined) = dechunk(&bytes) {
            bytes = joined;
            steps.push("chunked");
        }
    }
    if let Some(codings) = headers.get("content-encoding") {
        // Codings apply in the order listed, so they are undone from the last.
        for coding in codings.rsplit(',').map(|c| c.trim().to_ascii_lowercase()) {
            match coding.as_str() {
                "gzip" | "x-gzip" if bytes.starts_with(&[0x1f, 0x8b]) => {
                    bytes = inflate(flate2::read::MultiGzDecoder::new(&bytes[..]), budget)
                        .map_err(|e| format!("gzip body: {e}"))?;
                    steps.push("gzip");
                }
                "deflate" if is_zlib(&bytes) => {
                    bytes = inflate(flate2::read::ZlibDecoder::new(&bytes[..]), budget)
                        .map_err(|e| format!("deflate body: {e}"))?;
                    steps.push("deflate");
                }
                "deflate" if !looks_like_text(&bytes) => {
                    // Some servers send raw deflate without zlib's header.
                    bytes = inflate(flate2::read::DeflateDecoder::new(&bytes[..]), budget)
                        .map_err(|e| format!("deflate body: {e}"))?;
                    steps.push("deflate");
                }
                "br" | "zstd" | "compress" if !looks_like_text(&bytes) => {
                    return Err(format!(
                        "a body in content-encoding {coding}, which this command does not decode (gzip and deflate only)"
                    ))
                }
                _ => {}
            }
        }
    }
    if steps.is_empty() || steps == ["chunked"] {
        budget.spend(bytes.len())?;
    }
    Ok((bytes, steps))
}

/// Reads a decoder to its end, refusing output beyond the budget before allocating it.
fn inflate(decoder: impl Read, budget: &mut Budget) -> Result<Vec<u8>, String> {
    let limit = budget.limit();
    let mut out = Vec::new();
    decoder
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.len() as u64 > limit {
        return Err(format!(
            "decompresses to more than {} MiB: refused (a compression bomb, or a body too large to import)",
            limit / (1024 * 1024)
        ));
    }
    budget.spend(out.len())?;
    Ok(out)
}

/// A zlib stream's two-byte header (RFC 1950: deflate method, check bits).
fn is_zlib(b: &[u8]) -> bool {
    b.len() >= 2 && b[0] & 0x0f == 8 && (u16::from(b[0]) << 8 | u16::from(b[1])) % 31 == 0
}

/// Bytes that already read as the JSON or event-stream text of an LLM call.
fn looks_like_text(b: &[u8]) -> bool {
    let start = b.iter().find(|c| !c.is_ascii_whitespace());
    matches!(
        start,
        None | Some(b'{' | b'[' | b'"' | b'd' | b'e' | b':' | b'i')
    ) && std::str::from_utf8(&b[..b.len().min(64)]).is_ok()
}

/// The payload of a chunked body (RFC 9112 7.1): `None` when the bytes are not in that framing
/// (a recorder that kept the header but joined the chunks).
fn dechunk(b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len());
    let mut at = 0;
    loop {
        let line_end = at + b.get(at..)?.iter().position(|&c| c == b'\n')?;
        let line = b[at..line_end]
            .strip_suffix(b"\r")
            .unwrap_or(&b[at..line_end]);
        let size_text = line.split(|&c| c == b';').next()?;
        let size_text = std::str::from_utf8(size_text).ok()?.trim();
        if size_text.is_empty() || size_text.len() > 15 {
            return None;
        }
        let size = usize::from_str_radix(size_text, 16).ok()?;
        at = line_end + 1;
        if size == 0 {
            // Trailer fields, if any, end with an empty line; nothing else may follow.
            let rest = &b[at..];
            let trailer_ok = rest.is_empty()
                || rest == b"\r\n"
                || rest == b"\n"
                || rest.ends_with(b"\r\n\r\n")
                || rest.ends_with(b"\n\n");
            return trailer_ok.then_some(out);
        }
        out.extend_from_slice(b.get(at..at.checked_add(size)?)?);
        at += size;
        if b.get(at..at + 2) == Some(b"\r\n") {
            at += 2;
        } else if b.get(at) == Some(&b'\n') {
            at += 1;
        } else {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn headers(pairs: &[(&str, &str)]) -> Headers {
        Headers(
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).expect("write");
        e.finish().expect("finish")
    }

    #[test]
    fn gzip_is_inflated_only_when_the_bytes_are_gzip() {
        let h = headers(&[("content-encoding", "gzip")]);
        let (out, steps) =
            decode(gzip(b"{\"usage\": {}}"), &h, &mut Budget::default()).expect("decodes");
        assert_eq!(out, b"{\"usage\": {}}");
        assert_eq!(steps, ["gzip"]);
        // The recorder already decoded it and kept the header.
        let (out, steps) =
            decode(b"{\"a\": 1}".to_vec(), &h, &mut Budget::default()).expect("as is");
        assert_eq!(out, b"{\"a\": 1}");
        assert!(steps.is_empty());
    }

    #[test]
    fn deflate_with_and_without_the_zlib_header() {
        let h = headers(&[("content-encoding", "deflate")]);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b"{\"x\": 2}").expect("write");
        let (out, _) = decode(z.finish().expect("zlib"), &h, &mut Budget::default()).expect("zlib");
        assert_eq!(out, b"{\"x\": 2}");
        let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        d.write_all(b"{\"x\": 3}").expect("write");
        let (out, _) = decode(d.finish().expect("raw"), &h, &mut Budget::default()).expect("raw");
        assert_eq!(out, b"{\"x\": 3}");
    }

    #[test]
    fn chunked_framing_is_removed_when_present() {
        let h = headers(&[("transfer-encoding", "chunked")]);
        let framed = b"7\r\n{\"a\": 1\r\n1;ext=1\r\n}\r\n0\r\n\r\n".to_vec();
        let (out, steps) = decode(framed, &h, &mut Budget::default()).expect("decodes");
        assert_eq!(out, b"{\"a\": 1}");
        assert_eq!(steps, ["chunked"]);
        let joined = b"{\"a\": 1}".to_vec();
        let (out, steps) = decode(joined.clone(), &h, &mut Budget::default()).expect("as is");
        assert_eq!(out, joined);
        assert!(steps.is_empty());
        // A size larger than what follows is not this framing.
        assert!(dechunk(b"ff\r\nabc\r\n0\r\n\r\n").is_none());
    }

    #[test]
    fn a_gzip_bomb_is_refused_at_the_limit() {
        let bomb = gzip(&vec![0u8; 3 * 1024 * 1024]);
        let h = headers(&[("content-encoding", "gzip")]);
        let e = decode(bomb, &h, &mut Budget::with(1024 * 1024)).expect_err("refused");
        assert!(e.contains("more than 1 MiB"), "{e}");
    }

    #[test]
    fn unknown_compression_is_an_error_unless_already_text() {
        let h = headers(&[("content-encoding", "br")]);
        assert!(decode(vec![0x8b, 0x02, 0x80], &h, &mut Budget::default()).is_err());
        assert!(decode(b"{}".to_vec(), &h, &mut Budget::default()).is_ok());
    }

    #[test]
    fn base64_allows_folded_lines() {
        assert_eq!(
            base64("eyJh\nIjog\n MX0=\n").expect("decodes"),
            b"{\"a\": 1}"
        );
        assert!(base64("not base64!").is_err());
    }
}
