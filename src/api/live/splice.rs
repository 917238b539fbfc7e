//! Applying the page's text edits: JavaScript counts UTF-16 code units, Rust strings are UTF-8.

use super::TextEdit;
use crate::api::{ApiError, ErrorCode};

/// A document's text with its length in UTF-16 code units, so an edit near the end (a tool, after
/// the long recorded context) is located from the end instead of decoding the whole text.
#[derive(Debug)]
pub struct Text {
    pub text: String,
    units: usize,
}

impl Text {
    pub fn new(text: String) -> Text {
        let units = utf16_len(&text);
        Text { text, units }
    }

    /// Replaces the edited range and returns it in bytes (before the edit). An edit past the end
    /// or inside a character (half a surrogate pair) is a `stale_document` error: the page's text
    /// is not the core's.
    pub fn apply(&mut self, edit: &TextEdit) -> Result<std::ops::Range<usize>, ApiError> {
        let (start, delete) = (edit.start as usize, edit.delete as usize);
        let Some(tail) = self.units.checked_sub(start + delete) else {
            return Err(mismatch(edit.start, "range"));
        };
        let range = if tail < start {
            let end = back(&self.text, self.text.len(), tail)
                .ok_or_else(|| mismatch(edit.start + edit.delete, "end"))?;
            let start =
                back(&self.text, end, delete).ok_or_else(|| mismatch(edit.start, "start"))?;
            start..end
        } else {
            let start =
                forward(&self.text, 0, start).ok_or_else(|| mismatch(edit.start, "start"))?;
            let end = forward(&self.text, start, delete)
                .ok_or_else(|| mismatch(edit.start + edit.delete, "end"))?;
            start..end
        };
        self.text.replace_range(range.clone(), &edit.insert);
        self.units = self.units - delete + utf16_len(&edit.insert);
        Ok(range)
    }
}

fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

fn mismatch(at: u32, what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::StaleDocument,
        format!(
            "the edit's {what} (UTF-16 offset {at}) is not a character boundary of the document"
        ),
    )
}

/// The byte offset `units` UTF-16 code units after byte `from`. Scenes are mostly ASCII, where
/// units and bytes agree: that case is checked first, without decoding.
fn forward(text: &str, from: usize, units: usize) -> Option<usize> {
    let rest = text.get(from..)?;
    if rest.len() >= units && rest.as_bytes()[..units].is_ascii() {
        return Some(from + units);
    }
    let mut left = units;
    for (i, c) in rest.char_indices() {
        if left == 0 {
            return Some(from + i);
        }
        left = left.checked_sub(c.len_utf16())?;
    }
    (left == 0).then_some(text.len())
}

/// The byte offset `units` UTF-16 code units before byte `to`.
fn back(text: &str, to: usize, units: usize) -> Option<usize> {
    let head = text.get(..to)?;
    if head.len() >= units && head.as_bytes()[to - units..].is_ascii() {
        return Some(to - units);
    }
    let mut left = units;
    let mut at = to;
    for c in head.chars().rev() {
        if left == 0 {
            return Some(at);
        }
        left = left.checked_sub(c.len_utf16())?;
        at -= c.len_utf8();
    }
    (left == 0).then_some(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, start: u32, delete: u32, insert: &str) -> Result<String, ApiError> {
        let mut t = Text::new(text.to_owned());
        t.apply(&TextEdit {
            start,
            delete,
            insert: insert.to_owned(),
        })?;
        assert_eq!(t.units, utf16_len(&t.text));
        Ok(t.text)
    }

    #[test]
    fn offsets_are_utf16_code_units_from_either_end() {
        assert_eq!(edit("abc", 1, 1, "XY").ok().as_deref(), Some("aXYc"));
        // "é" is one unit and two bytes; "😀" is two units and four bytes.
        assert_eq!(edit("é😀z", 3, 1, "!").ok().as_deref(), Some("é😀!"));
        assert_eq!(edit("é😀z", 1, 2, "").ok().as_deref(), Some("éz"));
        assert_eq!(edit("ab", 2, 0, "c").ok().as_deref(), Some("abc"));
        assert_eq!(
            edit("😀aé😀bb", 1 + 2, 1, "-").ok().as_deref(),
            Some("😀a-😀bb")
        );
        assert_eq!(edit("xxxxxx😀é", 6, 2, "").ok().as_deref(), Some("xxxxxxé"));
        assert_eq!(edit("é😀xxxxxx", 1, 2, "").ok().as_deref(), Some("éxxxxxx"));
    }

    #[test]
    fn edits_off_the_text_or_inside_a_pair_are_refused() {
        assert!(edit("ab", 3, 0, "").is_err());
        assert!(edit("ab", 1, 5, "").is_err());
        assert!(edit("😀", 1, 0, "x").is_err());
        assert!(edit("abcd😀", 5, 0, "x").is_err());
    }
}
