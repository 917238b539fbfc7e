//! Image parts (`{type: image, url|path|data_base64, mime_type?}`) resolved into what a provider
//! can take: a URL it fetches itself, or bytes sent inline as base64 with their media type.
//!
//! Files are read with a size limit and their type is taken from their first bytes, so a
//! screenshot saved with the wrong extension still goes out with the media type providers check.

use std::io::Read;
use std::path::Path;

use base64::Engine as _;

use crate::context;
use crate::report::DiagnosticCode;
use crate::value::{PyInt, Value};

/// The largest image read from a file or decoded from base64 (providers refuse far smaller ones;
/// this only keeps a wrong path from pulling a huge file into the report).
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// The image types every provider here takes, by their magic bytes.
const KNOWN: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// A resolved image.
#[derive(Clone, Debug, PartialEq)]
pub enum Img {
    /// A remote image the provider fetches; its type when known (declared or from the extension).
    Url { url: String, mime: Option<String> },
    /// Bytes to send inline: the media type and the standard base64 (with padding).
    Inline { mime: &'static str, data: String },
}

impl Img {
    /// The image as one URL string: the URL itself, or a `data:` URL for inline bytes.
    pub fn as_url(&self) -> String {
        match self {
            Img::Url { url, .. } => url.clone(),
            Img::Inline { mime, data } => format!("data:{mime};base64,{data}"),
        }
    }

    /// The media type, when known.
    pub fn mime(&self) -> Option<&str> {
        match self {
            Img::Url { mime, .. } => mime.as_deref(),
            Img::Inline { mime, .. } => Some(mime),
        }
    }
}

/// Why an image could not be resolved: a stable diagnostic code and a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub code: DiagnosticCode,
    pub message: String,
}

fn problem(code: DiagnosticCode, message: String) -> Problem {
    Problem { code, message }
}

/// Resolves an image part. `base_dir` is the scene file's folder (relative paths start there).
pub fn resolve(part: &Value, base_dir: Option<&Path>) -> Result<Img, Problem> {
    let field = |k: &str| match context::get(part, k) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    let declared = field("mime_type");
    if let Some(url) = field("url") {
        if let Some(rest) = url.strip_prefix("data:") {
            return data_url(rest);
        }
        let mime = declared.or_else(|| by_extension(&url).map(str::to_owned));
        return Ok(Img::Url { url, mime });
    }
    if let Some(path) = field("path") {
        let bytes = read_limited(&path, base_dir)?;
        return inline(bytes, declared.as_deref(), &format!("file {path:?}"));
    }
    if let Some(data) = field("data_base64") {
        // A data URL written into `data_base64` is accepted too: recordings often hold one.
        if let Some(rest) = data.strip_prefix("data:") {
            return data_url(rest);
        }
        let bytes = decode(&data)?;
        return inline(bytes, declared.as_deref(), "the data_base64 image");
    }
    Err(problem(
        DiagnosticCode::ImageDataInvalid,
        "an image part needs one of \"url\", \"path\", \"data_base64\"".to_owned(),
    ))
}

/// The field an identified image part holds its identity in ([`identified`]).
pub const IDENTITY_FIELD: &str = "image";

/// Whether a message part is an image part (`"type": "image"`).
pub fn is_image_part(part: &Value) -> bool {
    matches!(context::get(part, "type"), Some(Value::Str(t)) if &**t == "image")
}

/// What a prompt cache knows an image part by, in place of its data, so that comparing or
/// counting a request never reads an image as text: `sha256:<hex>`, the SHA-256 of its bytes
/// (decoded base64 or `data:` URL; a file image once [`identified`] has read it), the same
/// however the bytes were written; `url:<hex>`, of a remote image's URL, which the provider
/// fetches itself; `path:<hex>`, of a file image's path when the file was not read; `text:<hex>`,
/// of data that is not valid base64. A part that [`identified`] wrote keeps its identity. Every
/// identity has the same length for its kind, 64 hex digits after the kind.
pub fn identity(part: &Value) -> String {
    let field = |k: &str| match context::get(part, k) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    };
    if let Some(id) = field(IDENTITY_FIELD) {
        return id.to_string();
    }
    let of_data = |data: &str| {
        let bytes = match data.strip_prefix("data:") {
            Some(rest) => data_url_bytes(rest).map(|(_, bytes)| bytes),
            None => decode(data),
        };
        match bytes {
            Ok(bytes) => hashed("sha256", &bytes),
            Err(_) => hashed("text", data.as_bytes()),
        }
    };
    if let Some(url) = field("url") {
        return if url.starts_with("data:") {
            of_data(&url)
        } else {
            hashed("url", url.as_bytes())
        };
    }
    if let Some(data) = field("data_base64") {
        return of_data(&data);
    }
    let path = field("path").unwrap_or_default();
    hashed("path", path.as_bytes())
}

/// An image part as a prompt cache compares it: `{"type": "image", "image": <identity>}`, with
/// `width` and `height` when its bytes give its size (what providers price it by). A file
/// image is read (relative paths start at `base_dir`, the size limited as for a request) so that
/// its identity is that of its bytes; a file that cannot be read is known by its path.
pub fn identified(part: &Value, base_dir: Option<&Path>) -> Value {
    let (id, size) = match context::get(part, "path") {
        Some(Value::Str(path)) if context::get(part, IDENTITY_FIELD).is_none() => {
            match read_limited(path, base_dir) {
                Ok(bytes) => (
                    hashed("sha256", &bytes),
                    crate::billing::image::pixel_size(&bytes),
                ),
                Err(_) => (identity(part), None),
            }
        }
        _ => (identity(part), pixel_size(part)),
    };
    let mut m = crate::value::Dict::default();
    m.insert("type".into(), Value::str("image"));
    m.insert(IDENTITY_FIELD.into(), Value::str(&id));
    if let Some((w, h)) = size {
        m.insert(WIDTH_FIELD.into(), Value::Int(PyInt::Small(i64::from(w))));
        m.insert(HEIGHT_FIELD.into(), Value::Int(PyInt::Small(i64::from(h))));
    }
    Value::Dict(std::sync::Arc::new(m))
}

/// The fields an [`identified`] image part keeps its pixel size in.
pub const WIDTH_FIELD: &str = "width";
pub const HEIGHT_FIELD: &str = "height";

/// An image part's width and height in pixels, without reading a file: the size an
/// [`identified`] part carries, else the header of its base64 data or `data:` URL (only the
/// header is decoded). `None` for a remote URL, an unread file, or bytes that are no image.
pub fn pixel_size(part: &Value) -> Option<(u32, u32)> {
    let field = |k: &str| match context::get(part, k) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let side = |k: &str| match context::get(part, k) {
        Some(Value::Int(PyInt::Small(n))) => u32::try_from(*n).ok().filter(|n| *n > 0),
        _ => None,
    };
    if let (Some(w), Some(h)) = (side(WIDTH_FIELD), side(HEIGHT_FIELD)) {
        return Some((w, h));
    }
    let data = field("data_base64").or_else(|| field("url").filter(|u| u.starts_with("data:")))?;
    crate::billing::image::pixel_size_base64(&data)
}

/// `<kind>:` and the SHA-256 of `bytes` in lowercase hex.
fn hashed(kind: &str, bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let digest = sha2::Sha256::digest(bytes);
    let mut out = String::with_capacity(kind.len() + 1 + 64);
    out.push_str(kind);
    out.push(':');
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `data:<mime>;base64,<data>` (after the `data:`).
fn data_url(rest: &str) -> Result<Img, Problem> {
    let (declared, bytes) = data_url_bytes(rest)?;
    inline(
        bytes,
        Some(declared).filter(|d| !d.is_empty()),
        "the data: URL image",
    )
}

/// A `data:` URL's declared type and decoded bytes.
fn data_url_bytes(rest: &str) -> Result<(&str, Vec<u8>), Problem> {
    let Some((head, data)) = rest.split_once(',') else {
        return Err(problem(
            DiagnosticCode::ImageDataInvalid,
            "a data: URL without a ',' before its data".to_owned(),
        ));
    };
    let Some(declared) = head.strip_suffix(";base64") else {
        return Err(problem(
            DiagnosticCode::ImageDataInvalid,
            format!("the data: URL {head:?} is not base64 (only ;base64 data URLs are read)"),
        ));
    };
    Ok((declared, decode(data)?))
}

fn decode(data: &str) -> Result<Vec<u8>, Problem> {
    // Line breaks are common in pasted base64 and carry no data.
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    // Base64 is 4 characters per 3 bytes: refuse an oversized image before decoding it.
    let decoded_len = compact.len() as u64 / 4 * 3;
    if decoded_len > MAX_IMAGE_BYTES {
        return Err(too_large("the base64 image", decoded_len));
    }
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| {
            problem(
                DiagnosticCode::ImageDataInvalid,
                format!("invalid base64 image data: {e}"),
            )
        })
}

fn too_large(what: &str, len: u64) -> Problem {
    problem(
        DiagnosticCode::ImageTooLarge,
        format!("{what} has {len} bytes, more than the {MAX_IMAGE_BYTES} an image may have"),
    )
}

fn read_limited(path: &str, base_dir: Option<&Path>) -> Result<Vec<u8>, Problem> {
    let full = match base_dir {
        Some(dir) if Path::new(path).is_relative() => dir.join(path),
        _ => Path::new(path).to_path_buf(),
    };
    let unreadable = |e: std::io::Error| {
        problem(
            DiagnosticCode::ImageUnreadable,
            format!("cannot read the image {}: {e}", full.display()),
        )
    };
    let file = crate::files::open_image(&full).map_err(unreadable)?;
    let len = file.metadata().map_err(unreadable)?.len();
    if len > MAX_IMAGE_BYTES {
        return Err(too_large(&format!("file {path:?}"), len));
    }
    // `take` keeps the limit even if the file grows between the size check and the read.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(MAX_IMAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        return Err(too_large(&format!("file {path:?}"), bytes.len() as u64));
    }
    Ok(bytes)
}

/// Inline bytes: the type comes from the bytes; a declared type is only used in the message.
fn inline(bytes: Vec<u8>, declared: Option<&str>, what: &str) -> Result<Img, Problem> {
    let Some(mime) = sniff(&bytes) else {
        let declared = declared.map_or(String::new(), |d| format!(" (declared {d:?})"));
        return Err(problem(
            DiagnosticCode::ImageTypeUnknown,
            format!(
                "{what}{declared} is not a PNG, JPEG, GIF or WebP image, the types every provider takes"
            ),
        ));
    };
    Ok(Img::Inline {
        mime,
        data: base64::engine::general_purpose::STANDARD.encode(&bytes),
    })
}

/// The image type from the magic bytes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(KNOWN[0])
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(KNOWN[1])
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(KNOWN[2])
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(KNOWN[3])
    } else {
        None
    }
}

/// The type of a remote image from its URL's extension (query and fragment ignored).
fn by_extension(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "png" => Some(KNOWN[0]),
        "jpg" | "jpeg" => Some(KNOWN[1]),
        "gif" => Some(KNOWN[2]),
        "webp" => Some(KNOWN[3]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(json: &str) -> Value {
        Value::from_json_str(json).expect("test part is JSON")
    }

    const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";

    #[test]
    fn base64_is_sniffed_and_reencoded() {
        let img = resolve(&part(&format!(r#"{{"data_base64": "{PNG_1X1}"}}"#)), None);
        assert_eq!(
            img,
            Ok(Img::Inline {
                mime: "image/png",
                data: PNG_1X1.to_owned()
            })
        );
    }

    #[test]
    fn the_bytes_decide_the_type_not_the_declaration() {
        let img = resolve(
            &part(&format!(
                r#"{{"data_base64": "{PNG_1X1}", "mime_type": "image/jpeg"}}"#
            )),
            None,
        )
        .expect("resolves");
        assert_eq!(img.mime(), Some("image/png"));
        assert!(img.as_url().starts_with("data:image/png;base64,iVBOR"));
    }

    #[test]
    fn bad_data_is_a_problem_not_a_panic() {
        let e = resolve(&part(r#"{"data_base64": "not base64!"}"#), None).expect_err("invalid");
        assert_eq!(e.code, DiagnosticCode::ImageDataInvalid);
        let e = resolve(&part(r#"{"data_base64": "aGVsbG8="}"#), None).expect_err("text");
        assert_eq!(e.code, DiagnosticCode::ImageTypeUnknown);
        let e = resolve(&part(r#"{"url": "data:image/png,abc"}"#), None).expect_err("not b64");
        assert_eq!(e.code, DiagnosticCode::ImageDataInvalid);
    }

    #[test]
    fn missing_files_are_unreadable() {
        let e = resolve(
            &part(r#"{"path": "no/such/image.png"}"#),
            Some(Path::new("/nonexistent")),
        )
        .expect_err("missing");
        assert_eq!(e.code, DiagnosticCode::ImageUnreadable);
        assert!(e.message.contains("/nonexistent/no/such/image.png"));
    }

    #[test]
    fn urls_stay_urls_with_the_type_of_their_extension() {
        let img = resolve(&part(r#"{"url": "https://x.test/a/shot.JPG?w=2"}"#), None);
        assert_eq!(
            img,
            Ok(Img::Url {
                url: "https://x.test/a/shot.JPG?w=2".to_owned(),
                mime: Some("image/jpeg".to_owned())
            })
        );
        let img = resolve(
            &part(&format!(r#"{{"url": "data:;base64,{PNG_1X1}"}}"#)),
            None,
        )
        .expect("data url");
        assert_eq!(img.mime(), Some("image/png"));
    }

    /// The same bytes have one identity however they are written, and one changed byte another.
    #[test]
    fn images_are_known_by_their_bytes() {
        let wrapped = format!("{}\n{}", &PNG_1X1[..40], &PNG_1X1[40..]);
        let ids: Vec<String> = [
            format!(r#"{{"type": "image", "data_base64": "{PNG_1X1}"}}"#),
            format!(r#"{{"type": "image", "data_base64": {wrapped:?}}}"#),
            format!(r#"{{"type": "image", "url": "data:image/png;base64,{PNG_1X1}"}}"#),
        ]
        .iter()
        .map(|json| identity(&part(json)))
        .collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(PNG_1X1)
            .expect("test image is base64");
        let expected = {
            use sha2::Digest as _;
            let digest = sha2::Sha256::digest(&bytes);
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            format!("sha256:{hex}")
        };
        assert_eq!(ids, [expected.clone(), expected.clone(), expected.clone()]);
        let mut other = bytes.clone();
        other[20] ^= 1;
        let other = base64::engine::general_purpose::STANDARD.encode(&other);
        let changed = identity(&part(&format!(r#"{{"data_base64": "{other}"}}"#)));
        assert_ne!(changed, expected);
        assert!(changed.starts_with("sha256:") && changed.len() == expected.len());
        // A file image read from disk has the identity of its bytes, and keeps it once identified.
        let dir = std::env::temp_dir().join(format!("pi-image-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("shot.png"), &bytes).expect("write image");
        let read = identified(
            &part(r#"{"type": "image", "path": "shot.png"}"#),
            Some(&dir),
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(identity(&read), expected);
        assert!(is_image_part(&read));
        assert_eq!(identity(&identified(&read, None)), expected);
    }

    /// An identified part carries the pixel size its bytes give, read from a file or the
    /// header of its base64 data; a remote image has none.
    #[test]
    fn identified_parts_carry_their_pixel_size() {
        let data = part(&format!(
            r#"{{"type": "image", "data_base64": "{PNG_1X1}"}}"#
        ));
        assert_eq!(pixel_size(&data), Some((1, 1)));
        let id = identified(&data, None);
        assert_eq!(pixel_size(&id), Some((1, 1)));
        assert_eq!(identity(&id), identity(&data));
        let dir = std::env::temp_dir().join(format!("pi-image-size-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let screen = include_bytes!("../../fixtures/providers/screen.png");
        std::fs::write(dir.join("screen.png"), screen).expect("write image");
        let file = identified(
            &part(r#"{"type": "image", "path": "screen.png"}"#),
            Some(&dir),
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(pixel_size(&file), Some((16, 10)));
        let url = part(r#"{"type": "image", "url": "https://x.test/a.png"}"#);
        assert_eq!(pixel_size(&identified(&url, None)), None);
        assert_eq!(pixel_size(&part(r#"{"data_base64": "aGVsbG8="}"#)), None);
    }

    #[test]
    fn urls_paths_and_bad_data_have_identities_of_their_text() {
        let url = identity(&part(r#"{"url": "https://x.test/a.png"}"#));
        assert!(url.starts_with("url:") && url.len() == "url:".len() + 64);
        assert_ne!(url, identity(&part(r#"{"url": "https://x.test/b.png"}"#)));
        // A file that is not read (or cannot be) is known by its path.
        let unread = identity(&part(r#"{"path": "no/such.png"}"#));
        assert!(unread.starts_with("path:"));
        let missing = identified(
            &part(r#"{"path": "no/such.png"}"#),
            Some(Path::new("/nonexistent")),
        );
        assert_eq!(identity(&missing), unread);
        let bad = identity(&part(r#"{"data_base64": "not base64!"}"#));
        assert!(bad.starts_with("text:"));
    }

    #[test]
    fn sniffs_the_four_types() {
        assert_eq!(sniff(b"GIF89a...."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVE"), None);
    }
}
