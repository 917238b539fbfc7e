//! Python's `textwrap.wrap`, as Jinja2's `wordwrap` filter calls it.

/// `textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False, ...)`.
pub fn wrap(text: &str, width: usize, break_long: bool, hyphens: bool) -> Vec<String> {
    let is_ws = |c: char| matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ');
    // Chunks: runs of whitespace, and words (split after hyphens between letters).
    let mut chunks: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_ws = false;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let ws = is_ws(c);
        if !cur.is_empty() && ws != cur_ws {
            chunks.push(std::mem::take(&mut cur));
        }
        cur_ws = ws;
        cur.push(c);
        if hyphens && c == '-' && !ws {
            let before: Vec<char> = cur.chars().rev().skip(1).take(2).collect();
            let letters_before = before.len() == 2 && before.iter().all(|c| c.is_alphabetic());
            let after_ok = chars.get(i + 1).is_some_and(|c| c.is_alphabetic());
            if letters_before && after_ok {
                chunks.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    let len = |s: &str| s.chars().count();
    chunks.reverse();
    let mut lines: Vec<String> = Vec::new();
    while !chunks.is_empty() {
        let mut cur_line: Vec<String> = Vec::new();
        let mut cur_len = 0;
        if chunks
            .last()
            .is_some_and(|c| c.trim_matches(is_ws).is_empty())
            && !lines.is_empty()
        {
            chunks.pop();
        }
        while let Some(chunk) = chunks.last() {
            let l = len(chunk);
            if cur_len + l <= width {
                cur_len += l;
                cur_line.push(chunks.pop().unwrap_or_default());
            } else {
                break;
            }
        }
        if chunks.last().is_some_and(|c| len(c) > width) {
            let space_left = if width < 1 { 1 } else { width - cur_len };
            if break_long {
                if let Some(chunk) = chunks.pop() {
                    let cs: Vec<char> = chunk.chars().collect();
                    let mut end = space_left.min(cs.len());
                    if hyphens && cs.len() > space_left {
                        if let Some(h) = cs[..space_left.min(cs.len())]
                            .iter()
                            .rposition(|c| *c == '-')
                        {
                            if h > 0 && cs[..h].iter().any(|c| *c != '-') {
                                end = h + 1;
                            }
                        }
                    }
                    cur_line.push(cs[..end].iter().collect());
                    chunks.push(cs[end..].iter().collect());
                }
            } else if cur_line.is_empty() {
                if let Some(chunk) = chunks.pop() {
                    cur_line.push(chunk);
                }
            }
        }
        if cur_line
            .last()
            .is_some_and(|c| c.trim_matches(is_ws).is_empty())
        {
            cur_line.pop();
        }
        if !cur_line.is_empty() {
            lines.push(cur_line.concat());
        }
    }
    lines
}
