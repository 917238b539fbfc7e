//! `cache_below_minimum` (docs/diagnostics.md, "Cache-safety lint"): calls too short for a
//! model's cache to take anything, however stable their prefix.

use crate::report::{Diagnostic, DiagnosticCode, Level};

use super::Row;

/// One finding for `row` when any of `calls` (label, input tokens) is under its minimum
/// cacheable length; `None` when every call reaches it or the row has no minimum.
pub fn below_minimum(row: &Row, calls: &[(String, usize)]) -> Option<Diagnostic> {
    let min = row.cache.min_tokens;
    let short: Vec<&(String, usize)> = calls.iter().filter(|(_, n)| *n < min).collect();
    if min == 0 || short.is_empty() {
        return None;
    }
    let listed = short
        .iter()
        .take(5)
        .map(|(label, n)| format!("{label} has {}", thousands(*n)))
        .collect::<Vec<_>>()
        .join(", ");
    let more = if short.len() > 5 {
        format!(" and {} more", short.len() - 5)
    } else {
        String::new()
    };
    let which = if short.len() == calls.len() && calls.len() > 1 {
        format!("none of the {} requests reaches it", calls.len())
    } else {
        format!("{} of {} below it", short.len(), calls.len())
    };
    Some(Diagnostic::new(
        Level::Info,
        DiagnosticCode::CacheBelowMinimum,
        format!(
            "{}'s cache needs {} tokens, {which} ({listed}{more}): such a call is billed in full \
             however stable its prefix",
            row.id,
            thousands(min)
        ),
    ))
}

/// The findings for one call priced for `rows` (`render --model`, the app's picker): each model
/// whose minimum the call's input (`input_tokens`, messages or segments and tool definitions)
/// does not reach.
pub fn call_below_minimum(rows: &[&Row], input_tokens: usize) -> Vec<Diagnostic> {
    rows.iter()
        .filter(|row| input_tokens < row.cache.min_tokens)
        .map(|row| {
            Diagnostic::new(
                Level::Info,
                DiagnosticCode::CacheBelowMinimum,
                format!(
                "{}'s cache needs {} tokens, this request has {}: it is billed in full however \
                 stable its prefix",
                row.id,
                thousands(row.cache.min_tokens),
                thousands(input_tokens)
            ),
            )
        })
        .collect()
}

/// `4096` → `4,096`, as the providers' documents write token counts.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pricing::Table;

    fn row(id: &str) -> Row {
        let table = Table::builtin();
        let rows = table.select(&[id.to_owned()]).expect("a built-in row");
        rows[0].clone()
    }

    #[test]
    fn says_what_the_model_needs_and_what_each_short_call_has() {
        let haiku = row("anthropic/claude-haiku-4-5");
        assert_eq!(haiku.cache.min_tokens, 4096, "data/models.json");
        let calls = vec![("call 1".to_owned(), 3870), ("call 2".to_owned(), 5000)];
        let d = below_minimum(&haiku, &calls).expect("call 1 is short");
        assert_eq!(d.code, DiagnosticCode::CacheBelowMinimum);
        assert!(
            d.message
                .contains("needs 4,096 tokens, 1 of 2 below it (call 1 has 3,870)"),
            "{}",
            d.message
        );
        let long = vec![("call 1".to_owned(), 4096)];
        assert_eq!(
            below_minimum(&haiku, &long),
            None,
            "the minimum itself is enough"
        );
    }

    #[test]
    fn one_call_says_needs_and_has() {
        let haiku = row("anthropic/claude-haiku-4-5");
        let sonnet = row("anthropic/claude-sonnet-4-5");
        let found = call_below_minimum(&[&haiku, &sonnet], 3870);
        assert_eq!(found.len(), 1, "Sonnet 4.5 caches from 1,024");
        assert!(
            found[0].message.starts_with(
                "anthropic/claude-haiku-4-5's cache needs 4,096 tokens, this request has 3,870"
            ),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn thousands_separators() {
        for (n, s) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (4096, "4,096"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), s);
        }
    }
}
