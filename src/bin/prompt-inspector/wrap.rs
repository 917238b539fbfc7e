//! Wrapping the explained text forms at word boundaries, for a reader at a terminal.
//!
//! Lines break at spaces; CJK text has none, so a break is also allowed before and after a wide
//! (CJK) character, except before closing punctuation (`。`, `，`, `）`...), which stays with the
//! character it follows. A word wider than the line is split between characters, never inside
//! one. A wrapped line's continuations keep its indentation (and its `│ ` gutter).

/// The columns the text forms are wrapped to.
pub const WIDTH: usize = 100;

/// Continuations get at least this many columns, however deep the indentation.
const MIN_COLUMNS: usize = 10;

/// East Asian wide and fullwidth characters take two terminal columns.
fn is_wide(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD)
}

/// Punctuation that must not start a line (it closes what comes before it).
fn closes(c: char) -> bool {
    matches!(
        c,
        '、' | '。'
            | '，'
            | '．'
            | '：'
            | '；'
            | '！'
            | '？'
            | '）'
            | '」'
            | '』'
            | '】'
            | '〉'
            | '》'
            | '”'
            | '’'
    )
}

pub fn width_of(s: &str) -> usize {
    s.chars().map(|c| if is_wide(c) { 2 } else { 1 }).sum()
}

/// The unbreakable pieces of `text` and the spaces before each: words, and single wide
/// characters (with any closing punctuation after them).
fn atoms(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        let (space, after) = rest.split_at(spaces);
        if after.is_empty() {
            out.push(("", space));
            break;
        }
        let mut end = 0;
        for (i, c) in after.char_indices() {
            let wide = is_wide(c) && !closes(c);
            if c == ' ' || (i > 0 && wide) {
                break;
            }
            end = i + c.len_utf8();
            if wide {
                // A wide character is an atom of its own, with the closing punctuation after it.
                let tail = &after[end..];
                let punct = tail.len() - tail.trim_start_matches(closes).len();
                end += punct;
                break;
            }
        }
        let (atom, tail) = after.split_at(end);
        out.push((atom, space));
        rest = tail;
    }
    out
}

/// The indentation a wrapped line's continuations repeat: leading spaces, and a `│ ` gutter
/// with the spaces after it.
fn indentation(line: &str) -> &str {
    let rest = line.trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix("│ ").unwrap_or(rest);
    let rest = rest.trim_start_matches([' ', '\t']);
    &line[..line.len() - rest.len()]
}

/// `line` (without a newline) as lines of at most `width` columns where it can break.
pub fn wrap_line(line: &str, width: usize) -> Vec<String> {
    if width_of(line) <= width {
        return vec![line.to_owned()];
    }
    let indent = indentation(line);
    let avail = width.saturating_sub(width_of(indent)).max(MIN_COLUMNS);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_w = 0;
    for (atom, space) in atoms(&line[indent.len()..]) {
        let (aw, sw) = (width_of(atom), width_of(space));
        if atom.is_empty() {
            // Trailing spaces: kept when they fit, as the line has them.
            if cur_w + sw <= avail {
                cur.push_str(space);
            }
            break;
        }
        if cur_w > 0 && cur_w + sw + aw <= avail {
            cur.push_str(space);
            cur.push_str(atom);
            cur_w += sw + aw;
            continue;
        }
        if cur_w > 0 {
            lines.push(std::mem::take(&mut cur));
            cur_w = 0;
        }
        // At the start of a line: a word wider than the line is split between characters.
        for c in atom.chars() {
            let cw = if is_wide(c) { 2 } else { 1 };
            if cur_w > 0 && cur_w + cw > avail {
                lines.push(std::mem::take(&mut cur));
                cur_w = 0;
            }
            cur.push(c);
            cur_w += cw;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines.into_iter().map(|l| format!("{indent}{l}")).collect()
}

/// Every line of `text` wrapped to `width` columns.
pub fn wrap_text(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let wrapped = wrap_line(line, width);
        out.push_str(&wrapped.join("\n"));
    }
    out
}

/// At most `width` columns of the first line of `s` that holds text (leading blank lines and the
/// line's own indentation are skipped: a message that starts with a newline still says what it is),
/// cut at a break with ` …` when anything is left out (more of the line, or more lines).
pub fn summary(s: &str, width: usize) -> String {
    let s = s.trim_start();
    let line = s.lines().next().unwrap_or("");
    let more = line.len() < s.trim_end().len();
    if width_of(line) <= width && !more {
        return line.to_owned();
    }
    let budget = width.saturating_sub(2);
    let mut out = String::new();
    let mut w = 0;
    for (atom, space) in atoms(line) {
        let (aw, sw) = (width_of(atom), width_of(space));
        if w + sw + aw > budget {
            if w == 0 {
                // One word wider than the budget: as much of it as fits.
                for c in atom.chars() {
                    let cw = if is_wide(c) { 2 } else { 1 };
                    if w + cw > budget {
                        break;
                    }
                    out.push(c);
                    w += cw;
                }
            }
            return format!("{out} …");
        }
        if !atom.is_empty() {
            if w > 0 {
                out.push_str(space);
            }
            out.push_str(atom);
            w += sw + aw;
        }
    }
    format!("{out} …")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_left_alone() {
        assert_eq!(wrap_line("   a b  ", 10), vec!["   a b  "]);
        assert_eq!(wrap_text("a\n\nb", 5), "a\n\nb");
    }

    #[test]
    fn breaks_at_spaces_and_keeps_the_indentation() {
        assert_eq!(
            wrap_line("   the quick brown fox jumps", 15),
            vec!["   the quick", "   brown fox", "   jumps"]
        );
        // The gutter and the spaces after it are repeated; no line ends with the space it broke at.
        assert_eq!(
            wrap_line("   │   - one two three four", 17),
            vec!["   │   - one two", "   │   three four"]
        );
    }

    #[test]
    fn trailing_spaces_are_kept_when_they_fit_and_dropped_at_a_break() {
        assert_eq!(wrap_line("aaaa bbbb   ", 10), vec!["aaaa bbbb"]);
        assert_eq!(wrap_line("aaaa bbbb cc  ", 11), vec!["aaaa bbbb", "cc  "]);
        // Many spaces between words at a break disappear with the break.
        assert_eq!(wrap_line("aaaa      bbbb", 8), vec!["aaaa", "bbbb"]);
    }

    #[test]
    fn a_word_longer_than_the_line_is_split_between_characters() {
        let long = "x".repeat(25);
        assert_eq!(
            wrap_line(&format!("ab {long}"), 20),
            vec!["ab".to_owned(), "x".repeat(20), "x".repeat(5)]
        );
        // Multi-byte characters are never split: é is two bytes.
        let lines = wrap_line(&"é".repeat(45), 20);
        assert_eq!(
            lines.iter().map(|l| l.chars().count()).collect::<Vec<_>>(),
            [20, 20, 5]
        );
    }

    #[test]
    fn chinese_breaks_between_characters_counting_two_columns_each() {
        let lines = wrap_line("切换后所有命令在新目录执行并且记录结果", 20);
        assert_eq!(lines, ["切换后所有命令在新目", "录执行并且记录结果"]);
        assert!(lines.iter().all(|l| width_of(l) <= 20));
        // Closing punctuation stays with the character before it, never starts a line.
        let lines = wrap_line("一二三四五六七八九。十一", 18);
        assert_eq!(lines, ["一二三四五六七八", "九。十一"]);
        // Mixed with Latin words: a break before and after a CJK character, and at spaces.
        let lines = wrap_line(
            "   - 当前目录已切换为：/work/repo/docs，切换后所有 Shell 命令",
            30,
        );
        for l in &lines {
            assert!(width_of(l) <= 30, "{l:?}");
            assert!(l.starts_with("   "), "{l:?}");
        }
        assert_eq!(
            lines.concat().replace("   ", "").replace(' ', ""),
            "-当前目录已切换为：/work/repo/docs，切换后所有Shell命令"
        );
    }

    #[test]
    fn summaries_cut_at_a_break_and_say_so() {
        assert_eq!(summary("short", 20), "short");
        assert_eq!(summary("one\ntwo", 20), "one …");
        assert_eq!(
            summary("\n  请帮我重构日志模块\n", 20),
            "请帮我重构日志模块"
        );
        assert_eq!(summary("\n\n  first\nsecond", 20), "first …");
        assert_eq!(summary("alpha beta gamma delta", 14), "alpha beta …");
        assert_eq!(
            summary("你是一个在终端里工作的编程助手", 12),
            "你是一个在 …"
        );
        assert_eq!(summary(&"y".repeat(30), 10), format!("{} …", "y".repeat(8)));
    }
}
