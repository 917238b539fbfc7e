//! Python's `textwrap.wrap`, as Jinja2's `wordwrap` filter calls it (`expand_tabs=False`,
//! `replace_whitespace=False`, no indents, `drop_whitespace=True`).
//!
//! Chunks are ranges of one array of the text's characters, so splitting a long word costs the
//! piece split off, not the rest of the word: wrapping is linear in the text.

use std::ops::Range;

use super::str_methods::is_space;

/// `textwrap`'s whitespace: ASCII only (`_whitespace = '\t\n\x0b\x0c\r '`).
fn is_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ')
}

/// `\w` of Python's `re` on str: alphanumeric or `_`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `letter = r'[^\d\W]'`: a word character that is not a decimal digit.
fn is_letter(c: char) -> bool {
    is_word(c) && super::decimal_value(c).is_none()
}

/// `word_punct = r'[\w!"\'&.,?]'`.
fn is_word_punct(c: char) -> bool {
    is_word(c) || matches!(c, '!' | '"' | '\'' | '&' | '.' | ',' | '?')
}

/// A chunk: its characters, and the last of them that is not whitespace by `str.strip()` (a
/// chunk, or what is left of one after a long word is split, is blank when it starts past that).
#[derive(Clone)]
struct Chunk {
    range: Range<usize>,
    last_solid: Option<usize>,
}

impl Chunk {
    fn new(chars: &[char], range: Range<usize>) -> Chunk {
        let last_solid = range.clone().rev().find(|&i| !is_space(chars[i]));
        Chunk { range, last_solid }
    }

    fn len(&self) -> usize {
        self.range.len()
    }

    /// `chunk.strip() == ''`.
    fn blank(&self) -> bool {
        self.last_solid.is_none_or(|i| i < self.range.start)
    }
}

/// `TextWrapper._split`: `wordsep_re.split(text)` with `break_on_hyphens`, else
/// `wordsep_simple_re.split(text)` (whitespace runs and the rest), empty pieces dropped. The
/// pattern always matches where the last match ended, so the pieces are exactly its matches.
fn split(chars: &[char], hyphens: bool) -> Vec<Range<usize>> {
    let n = chars.len();
    let at = |i: usize| chars.get(i).copied();
    let hyphen_run = |i: usize| chars[i.min(n)..].iter().take_while(|c| **c == '-').count();
    let mut chunks = Vec::new();
    let mut pos = 0;
    while pos < n {
        let ws_run = chars[pos..].iter().take_while(|c| is_ws(**c)).count();
        if ws_run > 0 {
            chunks.push(pos..pos + ws_run);
            pos += ws_run;
            continue;
        }
        if !hyphens {
            let word = chars[pos..].iter().take_while(|c| !is_ws(**c)).count();
            chunks.push(pos..pos + word);
            pos += word;
            continue;
        }
        // An em-dash between words: `(?<=word_punct) -{2,} (?=\w)`.
        // (The run of hyphens is counted only after a word character, so each run is counted
        // once: the scan stays linear.)
        if pos > 0 && is_word_punct(chars[pos - 1]) {
            let dashes = hyphen_run(pos);
            if dashes >= 2 && at(pos + dashes).is_some_and(is_word) {
                chunks.push(pos..pos + dashes);
                pos += dashes;
                continue;
            }
        }
        // A word, possibly hyphenated: the shortest run of non-whitespace followed by one of
        // the three endings, tried in the pattern's order at each length.
        let letter = |i: usize| at(i).is_some_and(is_letter);
        let mut end = pos + 1;
        loop {
            // `-(?: (?<=letter{2}-) | (?<=letter-letter-)) (?= letter -? letter)`
            if at(end) == Some('-')
                && ((end >= 2 && letter(end - 2) && letter(end - 1))
                    || (end >= 3 && letter(end - 3) && at(end - 2) == Some('-') && letter(end - 1)))
                && letter(end + 1)
                && (letter(end + 2) || (at(end + 2) == Some('-') && letter(end + 3)))
            {
                end += 1;
                break;
            }
            // The end of the word: `(?=whitespace|\Z)`.
            if at(end).is_none_or(is_ws) {
                break;
            }
            // Before an em-dash: `(?<=word_punct) (?=-{2,}\w)`.
            if is_word_punct(chars[end - 1]) && at(end) == Some('-') {
                let dashes = hyphen_run(end);
                if dashes >= 2 && at(end + dashes).is_some_and(is_word) {
                    break;
                }
            }
            end += 1;
        }
        chunks.push(pos..end);
        pos = end;
    }
    chunks
}

/// `textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False, break_long_words,
/// break_on_hyphens)`; `width` is at least 1 (the filter refuses less, as `TextWrapper` does).
pub fn wrap(text: &str, width: usize, break_long: bool, hyphens: bool) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut chunks: Vec<Chunk> = split(&chars, hyphens)
        .into_iter()
        .rev()
        .map(|r| Chunk::new(&chars, r))
        .collect();
    let mut lines: Vec<String> = Vec::new();
    while !chunks.is_empty() {
        let mut cur_line: Vec<Chunk> = Vec::new();
        let mut cur_len = 0;
        if chunks.last().is_some_and(Chunk::blank) && !lines.is_empty() {
            chunks.pop();
        }
        while let Some(chunk) = chunks.last() {
            if cur_len + chunk.len() <= width {
                cur_len += chunk.len();
                cur_line.extend(chunks.pop());
            } else {
                break;
            }
        }
        if chunks.last().is_some_and(|c| c.len() > width) {
            // `_handle_long_word`
            let space_left = if width < 1 { 1 } else { width - cur_len };
            if break_long {
                if let Some(chunk) = chunks.last_mut() {
                    let cs = &chars[chunk.range.clone()];
                    let mut end = space_left.min(cs.len());
                    if hyphens && cs.len() > space_left {
                        // After the last hyphen before the limit, if a non-hyphen precedes it.
                        if let Some(h) = cs[..end].iter().rposition(|c| *c == '-') {
                            if h > 0 && cs[..h].iter().any(|c| *c != '-') {
                                end = h + 1;
                            }
                        }
                    }
                    let split_at = chunk.range.start + end;
                    cur_line.push(Chunk::new(&chars, chunk.range.start..split_at));
                    chunk.range.start = split_at;
                }
            } else if cur_line.is_empty() {
                cur_line.extend(chunks.pop());
            }
        }
        if cur_line.last().is_some_and(Chunk::blank) {
            cur_line.pop();
        }
        if !cur_line.is_empty() {
            lines.push(
                cur_line
                    .iter()
                    .flat_map(|c| &chars[c.range.clone()])
                    .collect(),
            );
        }
    }
    lines
}
