//! The report's `tokens` fields: pieces, segments and messages counted with one encoding
//! (see [`crate::tokens`]), every byte encoded once.
//!
//! A prompt segment is encoded as a whole, and each of its pieces gets the tokens that start in
//! its byte range of the segment's text, so the pieces and the seams between them add up to
//! the segment's count exactly. A seam is the `\n` that joins two pieces: a token that starts on
//! it (the newline alone, or the newline merged with what follows) is the segment's and no
//! piece's; a token that starts in a piece and runs on over the seam (`.\n`) is that piece's.
//! A message built from a prompt segment (the system messages, the reformatted user input)
//! reuses that segment's count. A message stream's count is the sum over its messages. All the
//! texts are counted in one batch, which `tokens` shares between two threads when it is large.

use std::ops::Range;
use std::sync::Arc;

use crate::provider::ToolDef;
use crate::report::{MessageOut, SegmentOut, ToolOut};
use crate::tokens::{count_spanned, Encoding, Spanned};

/// The message counts of a live document's last chat render, each beside the very text it was
/// counted on. From one keystroke to the next the conversation is the same shared strings (the
/// parsed context is reused), so a message whose text is the same allocation as the one at its
/// place last time has the same count: found with a pointer comparison, where the memo of counts
/// would hash and compare the whole text. Holding the texts keeps their addresses from being
/// reused for other texts.
#[derive(Debug, Default)]
pub(super) struct KeptCounts {
    encoding: Option<Encoding>,
    /// Per message: its text and count, or `None` for a message that reused a segment's count.
    messages: Vec<Option<(Arc<str>, usize)>>,
}

impl KeptCounts {
    /// The kept count of each text that is, by address, the text at its place last time; places
    /// are matched from the start and from the end, so messages added or removed at either end
    /// or in one run in between leave the others found.
    fn found(&self, texts: &[Option<Arc<str>>], encoding: Encoding) -> Vec<Option<usize>> {
        let mut found = vec![None; texts.len()];
        if self.encoding != Some(encoding) {
            return found;
        }
        let same = |kept: &Option<(Arc<str>, usize)>, text: &Option<Arc<str>>| match (kept, text) {
            (Some((k, _)), Some(t)) => Arc::ptr_eq(k, t),
            (None, None) => true,
            _ => false,
        };
        let head = self
            .messages
            .iter()
            .zip(texts)
            .take_while(|(k, t)| same(k, t))
            .count();
        let most = self.messages.len().min(texts.len()) - head;
        let tail = self
            .messages
            .iter()
            .rev()
            .zip(texts.iter().rev())
            .take(most)
            .take_while(|(k, t)| same(k, t))
            .count();
        let places = (0..head)
            .map(|i| (i, i))
            .chain((0..tail).map(|j| (texts.len() - 1 - j, self.messages.len() - 1 - j)));
        for (at, kept) in places {
            found[at] = self.messages[kept].as_ref().map(|(_, n)| *n);
        }
        found
    }

    fn keep(&mut self, messages: &[MessageOut], texts: Vec<Option<Arc<str>>>, encoding: Encoding) {
        self.encoding = Some(encoding);
        self.messages = texts
            .into_iter()
            .zip(messages)
            .map(|(text, m)| Some((text?, m.tokens?)))
            .collect();
    }
}

/// Fills `tokens` on every piece, segment and message; with `kept`, messages are first looked
/// up there (and `kept` then holds this render's).
pub(super) fn annotate(
    segments: &mut [SegmentOut],
    messages: Option<&mut [MessageOut]>,
    encoding: Encoding,
    kept: Option<&mut KeptCounts>,
) {
    let is_prompt = |s: &SegmentOut| s.messages.is_none();
    let spans: Vec<Vec<Range<usize>>> = segments
        .iter()
        .filter(|s| is_prompt(s))
        .map(|s| s.pieces.iter().map(|p| p.range[0]..p.range[1]).collect())
        .collect();
    // A message's text, unless it is a prompt segment's text (then that count is reused).
    let message_texts: Vec<Option<Arc<str>>> = messages
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|m| {
            let text = super::assemble::content_text(&m.content);
            let same = m.segment.is_some_and(|name| {
                segments
                    .iter()
                    .any(|s| s.name == name && is_prompt(s) && *s.text == *text)
            });
            (!same).then_some(text)
        })
        .collect();
    let known = match &kept {
        Some(kept) => kept.found(&message_texts, encoding),
        None => vec![None; message_texts.len()],
    };
    let mut texts: Vec<Spanned<'_>> = segments
        .iter()
        .filter(|s| is_prompt(s))
        .zip(&spans)
        .map(|(s, spans)| Spanned {
            text: &s.text,
            spans,
        })
        .collect();
    texts.extend(
        message_texts
            .iter()
            .zip(&known)
            .filter(|(_, known)| known.is_none())
            .filter_map(|(t, _)| t.as_deref())
            .map(|text| Spanned { text, spans: &[] }),
    );
    let mut counts = count_spanned(&texts, encoding).into_iter();
    drop(texts);
    for seg in segments.iter_mut().filter(|s| is_prompt(s)) {
        let c = counts.next().unwrap_or_default();
        for (piece, n) in seg.pieces.iter_mut().zip(c.spans) {
            piece.tokens = Some(n);
        }
        seg.tokens = Some(c.total);
    }
    let Some(messages) = messages else {
        return;
    };
    for ((m, text), known) in messages.iter_mut().zip(&message_texts).zip(known) {
        m.tokens = match text {
            Some(_) if known.is_some() => known,
            Some(_) => counts.next().map(|c| c.total),
            None => m.segment.and_then(|name| {
                segments
                    .iter()
                    .find(|s| s.name == name && is_prompt(s))
                    .and_then(|s| s.tokens)
            }),
        };
    }
    for seg in segments.iter_mut().filter(|s| s.messages.is_some()) {
        let sum = messages
            .iter()
            .filter(|m| m.segment == Some(seg.name))
            .filter_map(|m| m.tokens)
            .sum();
        seg.tokens = Some(sum);
    }
    if let Some(kept) = kept {
        kept.keep(messages, message_texts, encoding);
    }
}

/// Fills `tokens` on every tool definition: the tokens of its neutral JSON (one batch, like the
/// report's texts).
pub(super) fn annotate_definitions(tools: &mut [ToolOut], defs: &[ToolDef], encoding: Encoding) {
    let texts: Vec<Option<String>> = tools
        .iter()
        .map(|tool| {
            tool.definition.as_ref()?;
            defs.iter().find(|d| d.name == tool.name).map(ToolDef::text)
        })
        .collect();
    let batch: Vec<Spanned<'_>> = texts
        .iter()
        .flatten()
        .map(|text| Spanned { text, spans: &[] })
        .collect();
    let mut counts = count_spanned(&batch, encoding).into_iter();
    for (tool, text) in tools.iter_mut().zip(&texts) {
        if let (Some(definition), Some(_)) = (tool.definition.as_mut(), text) {
            definition.tokens = counts.next().map(|c| c.total);
        }
    }
}
