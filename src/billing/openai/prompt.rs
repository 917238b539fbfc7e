//! A prompt as an OpenAI model reads it: messages, each a header and a content, the content
//! made of pieces that each come from one place in the request; counted into billed parts.
//!
//! A message costs its special tokens, its header runs (each encoded alone: special tokens sit
//! between them) and its content, encoded as one text. A piece's tokens are those that start in
//! its bytes, so text that merges across two pieces (`.\n\n#`) is counted once; the message's
//! header and opening special tokens go to its first piece, its end token to its last, so the
//! tokens up to a piece are the prompt's prefix there (a recorded explicit breakpoint after a
//! message's first part wrote exactly that many tokens to the cache).

use std::ops::Range;

use super::family::{Format, Model};
use crate::billing::image::Margin;
use crate::billing::{BilledPart, PartKind};
use crate::tokens::{count, count_spanned, Spanned};
use crate::usage::Provenance;

/// One piece of a message's content.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Piece {
    pub kind: PartKind,
    pub pointer: String,
    /// The text the model reads for this piece (empty for an image).
    pub text: String,
    /// Tokens that are not text: an image, a carried reasoning item.
    pub extra_tokens: usize,
    /// What stands for the piece in [`BilledPart::canonical`] when it is not its text.
    pub canonical: Option<String>,
    /// The request marks an explicit cache breakpoint after this piece, with this TTL.
    pub breakpoint: Option<String>,
}

impl Piece {
    pub fn text(kind: PartKind, pointer: impl Into<String>, text: impl Into<String>) -> Piece {
        Piece {
            kind,
            pointer: pointer.into(),
            text: text.into(),
            extra_tokens: 0,
            canonical: None,
            breakpoint: None,
        }
    }

    /// Tokens that are not text, shown as `canonical`.
    pub fn opaque(
        kind: PartKind,
        pointer: impl Into<String>,
        tokens: usize,
        canonical: String,
    ) -> Piece {
        Piece {
            kind,
            pointer: pointer.into(),
            text: String::new(),
            extra_tokens: tokens,
            canonical: Some(canonical),
            breakpoint: None,
        }
    }
}

/// The header of a message: what is between its start token and its content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// Text runs, each encoded alone.
    pub runs: Vec<String>,
    /// Special tokens of the message (start, separators, end).
    pub specials: usize,
    /// How the header and end look in [`BilledPart::canonical`].
    pub open: String,
    pub close: String,
}

impl Header {
    /// A header of one text run (`user`, `assistant to=functions.f`).
    pub fn plain(format: Format, author: &str) -> Header {
        match format {
            Format::ChatMl => Header {
                runs: vec![author.to_owned()],
                specials: 3,
                open: format!("<|im_start|>{author}<|im_sep|>"),
                close: "<|im_end|>".to_owned(),
            },
            Format::Harmony => Header {
                runs: vec![author.to_owned()],
                specials: 3,
                open: format!("<|start|>{author}<|message|>"),
                close: "<|end|>".to_owned(),
            },
        }
    }

    /// A harmony header: author (with recipient), channel, and content type (`json` after a
    /// `<|constrain|>` token); `end` is `<|end|>` or `<|call|>`.
    pub fn harmony(author: &str, channel: &str, constrain: Option<&str>, end: &str) -> Header {
        let mut runs = vec![author.to_owned(), channel.to_owned()];
        let mut specials = 4;
        let mut open = format!("<|start|>{author}<|channel|>{channel}");
        if let Some(kind) = constrain {
            runs.push(" ".to_owned());
            runs.push(kind.to_owned());
            specials += 1;
            open.push_str(&format!(" <|constrain|>{kind}"));
        }
        open.push_str("<|message|>");
        Header {
            runs,
            specials,
            open,
            close: end.to_owned(),
        }
    }
}

/// One message of the prompt.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Message {
    pub header: Header,
    pub pieces: Vec<Piece>,
}

/// The prompt, in the order the model reads it.
#[derive(Clone, Debug)]
pub(crate) struct Prompt {
    pub model: Model,
    pub messages: Vec<Message>,
    /// Tokens of the reply priming, and how it looks.
    pub priming: (usize, String),
    /// How far the count can be off, in percent of the billed input.
    pub provenance: Provenance,
    /// How far the images can be off, on top.
    pub image_margin: Margin,
}

impl Prompt {
    pub fn new(model: Model) -> Prompt {
        Prompt {
            model,
            messages: Vec::new(),
            priming: (0, String::new()),
            provenance: Provenance::Exact,
            image_margin: Margin::default(),
        }
    }

    /// Widens the provenance to at least `bound_percent`.
    pub fn estimate(&mut self, bound_percent: f64) {
        self.provenance = self
            .provenance
            .combine(&Provenance::Estimate { bound_percent });
    }

    pub fn push(&mut self, header: Header, pieces: Vec<Piece>) {
        self.messages.push(Message { header, pieces });
    }

    /// The billed parts: each message's pieces in order, then the reply priming.
    pub fn into_parts(self) -> Vec<BilledPart> {
        let encoding = self.model.encoding;
        let contents: Vec<(String, Vec<Range<usize>>)> = self
            .messages
            .iter()
            .map(|m| {
                let mut text = String::new();
                let mut spans = Vec::with_capacity(m.pieces.len());
                for piece in &m.pieces {
                    let start = text.len();
                    text.push_str(&piece.text);
                    spans.push(start..text.len());
                }
                (text, spans)
            })
            .collect();
        let spanned: Vec<Spanned<'_>> = contents
            .iter()
            .map(|(text, spans)| Spanned { text, spans })
            .collect();
        let counts = count_spanned(&spanned, encoding);
        let mut parts = Vec::new();
        for (message, counts) in self.messages.into_iter().zip(counts) {
            // The end token (`<|im_end|>`, `<|end|>`, `<|call|>`) closes the last piece.
            let opening = message.header.specials - 1
                + message
                    .header
                    .runs
                    .iter()
                    .map(|r| count(r, encoding))
                    .sum::<usize>();
            let last = message.pieces.len().saturating_sub(1);
            if message.pieces.is_empty() {
                parts.push(BilledPart {
                    kind: PartKind::Message,
                    pointer: String::new(),
                    canonical: format!("{}{}", message.header.open, message.header.close),
                    tokens: opening + 1,
                    breakpoint: None,
                });
                continue;
            }
            for (i, (piece, tokens)) in message.pieces.into_iter().zip(counts.spans).enumerate() {
                let mut canonical = piece.canonical.unwrap_or(piece.text);
                let mut tokens = tokens + piece.extra_tokens;
                if i == 0 {
                    canonical.insert_str(0, &message.header.open);
                    tokens += opening;
                }
                if i == last {
                    canonical.push_str(&message.header.close);
                    tokens += 1;
                }
                parts.push(BilledPart {
                    kind: piece.kind,
                    pointer: piece.pointer,
                    canonical,
                    tokens,
                    breakpoint: piece.breakpoint,
                });
            }
        }
        parts.push(BilledPart {
            kind: PartKind::Framing,
            pointer: String::new(),
            canonical: self.priming.1,
            tokens: self.priming.0,
            breakpoint: None,
        });
        parts
    }
}

/// A short stable digest of bytes (FNV-1a), to tell images apart in canonical text without
/// carrying their data.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::super::family::model;
    use super::*;

    fn user(text: &str) -> Vec<Piece> {
        vec![Piece::text(PartKind::Message, "/messages/0/content", text)]
    }

    #[test]
    fn a_chatml_message_is_its_text_plus_three_specials_and_its_role() {
        // Recorded: a user "Hello!" (2 tokens) on gpt-4o-mini was billed 9 = 2 + 3 specials +
        // 1 for the role + 3 reply priming (corpora/usage openinference test_token_counts).
        let m = model("gpt-4o-mini");
        let mut p = Prompt::new(m);
        p.push(Header::plain(Format::ChatMl, "user"), user("Hello!"));
        p.priming = (3, "<|im_start|>assistant<|im_sep|>".into());
        let parts = p.into_parts();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].tokens, 6);
        assert_eq!(
            parts[0].canonical,
            "<|im_start|>user<|im_sep|>Hello!<|im_end|>"
        );
        assert_eq!(parts[1].tokens, 3);
    }

    #[test]
    fn tokens_merging_across_pieces_are_counted_once() {
        let mut p = Prompt::new(model("gpt-4o"));
        p.push(
            Header::plain(Format::ChatMl, "system"),
            vec![
                Piece::text(PartKind::System, "/messages/0", "Be brief."),
                Piece::text(PartKind::Tool, "/tools/0", "\n\n# Tools"),
            ],
        );
        let parts = p.into_parts();
        let whole = count("Be brief.\n\n# Tools", crate::tokens::Encoding::O200kBase);
        assert_eq!(parts[0].tokens + parts[1].tokens, whole + 4);
    }

    #[test]
    fn a_harmony_tool_call_header_has_channel_and_constrain_tokens() {
        // harmony format docs: <|start|>assistant<|channel|>commentary to=functions.f
        // <|constrain|>json<|message|>{}<|call|>
        let h = Header::harmony(
            "assistant to=functions.f",
            "commentary",
            Some("json"),
            "<|call|>",
        );
        assert_eq!(h.specials, 5);
        assert_eq!(
            h.runs,
            ["assistant to=functions.f", "commentary", " ", "json"]
        );
    }

    #[test]
    fn digests_differ_for_different_bytes() {
        assert_ne!(digest(b"a"), digest(b"b"));
        assert_eq!(digest(b"a").len(), 16);
    }
}
