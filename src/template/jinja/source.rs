//! Source-level differences between Jinja2's lexer and minijinja's, fixed before compiling:
//! Jinja2 turns `\r\n` and `\r` into `\n` everywhere (we do the same and map error positions
//! back), and accepts unary `+`, which minijinja's parser does not (we blank it out: `+x` is
//! `x` for every number). Jinja2 also accepts a `{% block %}` inside a macro or call block and
//! renders it where it stands each time the macro runs; minijinja's parser refuses it, so such
//! a block's tags become `{% if 1 %}` and `{% endif %}` (padded to the same length).

use super::machinery::{tokenize, Token};

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
        n.inline_macro_blocks();
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

    /// Turns the tags of blocks inside macros into `if 1` / `endif` of the same length.
    fn inline_macro_blocks(&mut self) {
        if !self.text.contains("block")
            || !self.text.contains("macro") && !self.text.contains("call")
        {
            return;
        }
        let syntax = super::env::base().syntax().clone();
        // (start, end) of the tag's words, and the words to put there.
        let mut swaps: Vec<(usize, usize, &str)> = Vec::new();
        // Open macros and call blocks, and for each open block whether it is being inlined.
        let mut macros = 0usize;
        let mut blocks: Vec<bool> = Vec::new();
        let mut tag_start: Option<(usize, &str)> = None;
        let mut after_block_start = false;
        for item in tokenize(&self.text, false, syntax) {
            let Ok((token, span)) = item else {
                break;
            };
            match token {
                Token::BlockStart => {
                    after_block_start = true;
                    continue;
                }
                Token::Ident(word) if after_block_start => match word {
                    "macro" | "call" => macros += 1,
                    "endmacro" | "endcall" => macros = macros.saturating_sub(1),
                    "block" => {
                        blocks.push(macros > 0);
                        if macros > 0 {
                            tag_start = Some((span.start_offset as usize, "if 1"));
                        }
                    }
                    "endblock" if blocks.pop() == Some(true) => {
                        tag_start = Some((span.start_offset as usize, "endif"));
                    }
                    _ => {}
                },
                Token::BlockEnd => {
                    if let Some((start, words)) = tag_start.take() {
                        swaps.push((start, span.start_offset as usize, words));
                    }
                }
                _ => {}
            }
            after_block_start = false;
        }
        if swaps.is_empty() {
            return;
        }
        let mut text = self.text.to_string();
        for (start, end, words) in swaps {
            if end >= start + words.len()
                && text.is_char_boundary(start)
                && text.is_char_boundary(end)
            {
                let fill = " ".repeat(end - start - words.len());
                text.replace_range(start..end, &format!("{words}{fill}"));
            }
        }
        self.text = text.into_boxed_str();
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
