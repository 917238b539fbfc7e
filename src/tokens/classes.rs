//! The class (`char_class`) of the character at a byte position, from the two-level table
//! build.rs wrote from regex-syntax's Unicode tables.

pub(super) use super::char_class::*;

static STAGE1: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/classes.stage1"));
static STAGE2: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/classes.stage2"));

/// Classes of the ASCII characters, the common case, without the table.
static ASCII: [u8; 128] = {
    let mut t = [OTHER; 128];
    let mut c = 0;
    while c < 128 {
        t[c] = match c as u8 {
            b'A'..=b'Z' => UPPER,
            b'a'..=b'z' => LOWER,
            b'0'..=b'9' => NUMBER,
            b'\r' | b'\n' => NEWLINE,
            b' ' | b'\t' | 0x0b | 0x0c => SPACE,
            _ => OTHER,
        };
        c += 1;
    }
    t
};

/// The bit of a class, for testing membership in a set of classes.
#[inline(always)]
pub(super) const fn bit(class: u8) -> u8 {
    1 << class
}

/// The class of the character starting at `text[at]` and its length in bytes. `text` is UTF-8
/// (it comes from a `str`) and `at` a character boundary before its end.
#[inline(always)]
pub(super) fn class_at(text: &[u8], at: usize) -> (u8, usize) {
    let b0 = text[at];
    if b0 < 0x80 {
        return (ASCII[usize::from(b0)], 1);
    }
    let (cp, len) = decode(text, at, b0);
    let block = usize::from(u16::from_le_bytes([
        STAGE1[cp >> 8 << 1],
        STAGE1[(cp >> 8 << 1) + 1],
    ]));
    (STAGE2[block << 8 | (cp & 0xff)], len)
}

/// The code point of a multi-byte UTF-8 sequence starting with `b0`, and its length.
#[inline(always)]
fn decode(text: &[u8], at: usize, b0: u8) -> (usize, usize) {
    let cont = |i: usize| usize::from(text[at + i] & 0x3f);
    if b0 < 0xe0 {
        ((usize::from(b0 & 0x1f) << 6) | cont(1), 2)
    } else if b0 < 0xf0 {
        ((usize::from(b0 & 0x0f) << 12) | cont(1) << 6 | cont(2), 3)
    } else {
        (
            (usize::from(b0 & 0x07) << 18) | cont(1) << 12 | cont(2) << 6 | cont(3),
            4,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table against the `regex` crate itself (which tiktoken's patterns run on), for every
    /// code point: each class's pattern must match exactly the characters of that class.
    #[test]
    fn every_code_point_has_its_regex_class() {
        let all: String = (0..=0x10_ffffu32).filter_map(char::from_u32).collect();
        let patterns: [(&str, u8); 7] = [
            (r"[\p{Lu}\p{Lt}]", UPPER),
            (r"\p{Ll}", LOWER),
            (r"[\p{Lm}\p{Lo}]", CASELESS),
            (r"\p{M}", MARK),
            (r"\p{N}", NUMBER),
            (r"[\s--[\r\n]]", SPACE),
            (r"[\r\n]", NEWLINE),
        ];
        let bytes = all.as_bytes();
        let mut expected = vec![OTHER; bytes.len()];
        for (pattern, class) in patterns {
            let re = regex::Regex::new(pattern).expect("pattern");
            for m in re.find_iter(&all) {
                expected[m.start()] = class;
            }
        }
        let mut at = 0;
        let mut checked = 0;
        while at < bytes.len() {
            let (class, len) = class_at(bytes, at);
            let c = all[at..].chars().next().map_or(0, u32::from);
            assert_eq!(class, expected[at], "U+{c:04X}");
            assert_eq!(len, all[at..].chars().next().map_or(0, char::len_utf8));
            at += len;
            checked += 1;
        }
        assert_eq!(checked, 0x11_0000 - 0x800);
    }
}
