//! Python's `html.unescape`, as Jinja2's `striptags` filter calls it.

/// `html.unescape` for the entities prompt text realistically contains.
pub fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    const NAMED: &[(&str, &str)] = &[
        ("amp;", "&"),
        ("lt;", "<"),
        ("gt;", ">"),
        ("quot;", "\""),
        ("apos;", "'"),
        ("nbsp;", "\u{a0}"),
        ("copy;", "©"),
        ("reg;", "®"),
        ("hellip;", "…"),
        ("mdash;", "—"),
        ("ndash;", "–"),
        ("laquo;", "«"),
        ("raquo;", "»"),
        ("lsquo;", "‘"),
        ("rsquo;", "’"),
        ("ldquo;", "“"),
        ("rdquo;", "”"),
        ("amp", "&"),
        ("lt", "<"),
        ("gt", ">"),
        ("quot", "\""),
        ("nbsp", "\u{a0}"),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos + 1..];
        if let Some(num) = tail.strip_prefix('#') {
            let (hex, digits_src) = match num.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, num),
            };
            let n = digits_src
                .chars()
                .take_while(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_ascii_digit()
                    }
                })
                .count();
            if n > 0 {
                let digits = &digits_src[..n];
                let code = u32::from_str_radix(digits, if hex { 16 } else { 10 }).unwrap_or(0xfffd);
                out.push(
                    char::from_u32(code)
                        .filter(|_| code != 0)
                        .unwrap_or('\u{fffd}'),
                );
                let consumed = (num.len() - digits_src.len()) + n;
                let after = &num[consumed..];
                rest = after.strip_prefix(';').unwrap_or(after);
                continue;
            }
        } else if let Some((name, ch)) = NAMED.iter().find(|(n, _)| tail.starts_with(n)) {
            out.push_str(ch);
            rest = &tail[name.len()..];
            continue;
        }
        out.push('&');
        rest = tail;
    }
    out.push_str(rest);
    out
}
