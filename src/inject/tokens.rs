//! The report's `tokens` fields: pieces, segments and messages counted with one encoding
//! (see [`crate::tokens`]). Each distinct text is encoded once where the report repeats it.

use crate::provider::ToolDef;
use crate::report::{MessageOut, SegmentOut, ToolOut};
use crate::tokens::{count, Encoding};

/// Fills `tokens` on every piece, segment and message.
///
/// A prompt segment is counted as a whole (joining pieces with `\n` can merge tokens across the
/// seam, so the sum of its pieces is not its count), except when its only piece is its text. A
/// message built from a prompt segment (the system messages, the reformatted user input) reuses
/// that segment's count. A message stream's count is the sum over its messages.
pub(super) fn annotate(
    segments: &mut [SegmentOut],
    messages: Option<&mut [MessageOut]>,
    encoding: Encoding,
) {
    for seg in segments.iter_mut().filter(|s| s.messages.is_none()) {
        for piece in &mut seg.pieces {
            piece.tokens = Some(count(&piece.text, encoding));
        }
        seg.tokens = match seg.pieces.as_slice() {
            [only] if *only.text == *seg.text => only.tokens,
            _ => Some(count(&seg.text, encoding)),
        };
    }
    let Some(messages) = messages else {
        return;
    };
    for m in messages.iter_mut() {
        let text = super::assemble::content_text(&m.content);
        let same_text = m.segment.and_then(|name| {
            segments
                .iter()
                .find(|s| s.name == name && s.messages.is_none() && *s.text == *text)
                .and_then(|s| s.tokens)
        });
        m.tokens = Some(same_text.unwrap_or_else(|| count(&text, encoding)));
    }
    for seg in segments.iter_mut().filter(|s| s.messages.is_some()) {
        let sum = messages
            .iter()
            .filter(|m| m.segment == Some(seg.name))
            .filter_map(|m| m.tokens)
            .sum();
        seg.tokens = Some(sum);
    }
}

/// Fills `tokens` on every tool definition: the tokens of its neutral JSON.
pub(super) fn annotate_definitions(tools: &mut [ToolOut], defs: &[ToolDef], encoding: Encoding) {
    for tool in tools {
        let Some(definition) = tool.definition.as_mut() else {
            continue;
        };
        if let Some(def) = defs.iter().find(|d| d.name == tool.name) {
            definition.tokens = Some(count(&def.text(), encoding));
        }
    }
}
