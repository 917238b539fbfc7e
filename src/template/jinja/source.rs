//! Source-level differences between Jinja2's lexer and minijinja's, fixed before compiling:
//! Jinja2 turns `\r\n` and `\r` into `\n` everywhere (we do the same and map error positions
//! back), and accepts unary `+`, which minijinja's parser does not (we blank it out: `+x` is
//! `x` for every number).

use minijinja::machinery::{tokenize, Token};

use crate::template::TemplateError;

pub(crate) struct Normalized {
    text: Box<str>,
    /// Positions (in `text`) right after each `\r\n` that lost its `\r`, ascending.
    removed: Vec<usize>,
}

impl Normalized {
    pub(crate) fn new(source: &str) -> Normalized {
        let mut n = Normalized::newlines(source);
        n.blank_unary_plus();
        n
    }

    fn newlines(source: &str) -> Normalized {
        if !source.contains('\r') {
            return Normalized {
                text: source.into(),
                removed: Vec::new(),
            };
        }
        let mut text = String::with_capacity(source.len());
        let mut removed = Vec::new();
        let mut chars = source.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\r' {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                    removed.push(text.len());
                }
                text.push('\n');
            } else {
                text.push(c);
            }
        }
        Normalized {
            text: text.into_boxed_str(),
            removed,
        }
    }

    /// Replaces each unary `+` with a space (same length, so positions stay valid).
    fn blank_unary_plus(&mut self) {
        if !self.text.contains('+') {
            return;
        }
        let mut unary = Vec::new();
        let syntax = super::env::base().syntax().clone();
        let mut prev_operand = false;
        for item in tokenize(&self.text, false, syntax) {
            let Ok((token, span)) = item else {
                // The parser reports the error with its own position.
                break;
            };
            if matches!(token, Token::Plus) && !prev_operand {
                unary.push(span.start_offset as usize);
            }
            prev_operand = match token {
                Token::Ident(name) => !matches!(
                    name,
                    "and" | "or" | "not" | "in" | "is" | "if" | "else" | "elif" | "for" | "set"
                ),
                Token::Str(_)
                | Token::String(_)
                | Token::Int(_)
                | Token::Int128(_)
                | Token::Float(_)
                | Token::ParenClose
                | Token::BracketClose
                | Token::BraceClose => true,
                _ => false,
            };
        }
        if unary.is_empty() {
            return;
        }
        let mut bytes = self.text.as_bytes().to_vec();
        for pos in unary {
            if bytes.get(pos) == Some(&b'+') {
                bytes[pos] = b' ';
            }
        }
        // Only ASCII `+` bytes were swapped for ASCII spaces, so this stays valid UTF-8.
        if let Ok(text) = String::from_utf8(bytes) {
            self.text = text.into_boxed_str();
        }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    fn original_offset(&self, pos: usize) -> usize {
        pos + self.removed.partition_point(|&r| r <= pos)
    }

    /// Moves an error's byte range from the normalized text to the original one.
    pub(crate) fn fix_range(&self, err: TemplateError) -> TemplateError {
        match err.range() {
            Some(r) if !self.removed.is_empty() => {
                let range = self.original_offset(r.start)..self.original_offset(r.end);
                err.with_range(range)
            }
            _ => err,
        }
    }
}
