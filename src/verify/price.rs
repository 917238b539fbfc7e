//! Which row of the models table prices a call, and what its input costs: by the model the
//! request named (exactly, or without a snapshot date), else a fallback row that says so.

use crate::pricing::{Row, Table};
use crate::usage::{Api, Usage};

/// The row a call is priced with, and why that one.
#[derive(Clone, Debug)]
pub struct Priced<'t> {
    pub row: &'t Row,
    /// `None` when the row names the model; else why the row stands in for it.
    pub fallback: Option<String>,
}

/// The rows `--model` names, in order (an unknown id is an error listing the table's).
pub fn fallback_rows<'t>(table: &'t Table, ids: &[String]) -> Result<Vec<&'t Row>, String> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    table.select(ids).map_err(|e| format!("--model: {e}"))
}

/// The row for `model` sent to `api`: the row naming it, or naming it without its snapshot date
/// (`gpt-4o-mini-2024-07-18` is `gpt-4o-mini`); else the first `--model` row of the API's
/// provider, else the provider's default row, else the table's first row of the provider.
pub fn row_for<'t>(table: &'t Table, fallback: &[&'t Row], api: Api, model: &str) -> Priced<'t> {
    let named = |name: &str| {
        table
            .models
            .iter()
            .find(|r| r.models.iter().any(|m| m == name))
    };
    if let Some(row) = named(model).or_else(|| undated(model).and_then(named)) {
        return Priced {
            row,
            fallback: None,
        };
    }
    let provider = provider_of(api, model);
    let of_provider = |r: &&Row| r.id.split('/').next() == Some(provider);
    let chosen = fallback
        .iter()
        .copied()
        .find(|r| of_provider(r))
        .map(|r| (r, "--model"))
        .or_else(|| {
            table
                .models
                .iter()
                .filter(of_provider)
                .find(|r| r.default)
                .map(|r| (r, "the provider's default row"))
        })
        .or_else(|| {
            table
                .models
                .iter()
                .find(of_provider)
                .map(|r| (r, "the provider's first row"))
        })
        .or_else(|| table.models.first().map(|r| (r, "the table's first row")));
    match chosen {
        Some((row, how)) => Priced {
            row,
            fallback: Some(format!(
                "the table has no row for {model:?}: priced as {} ({how})",
                row.id
            )),
        },
        // `Table::parse` accepts an empty `models` list; verification needs a row.
        None => Priced {
            row: empty_row(),
            fallback: Some("the models table has no rows: priced at zero".to_owned()),
        },
    }
}

/// A row with no prices and no cache, for a table without rows.
fn empty_row() -> &'static Row {
    static EMPTY: std::sync::OnceLock<Row> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| Row {
        id: "none/none".to_owned(),
        models: Vec::new(),
        default: false,
        cache: crate::pricing::CacheRule {
            min_tokens: usize::MAX,
            growth: crate::pricing::Growth::ImplicitPrefix,
            unit_tokens: None,
            max_breakpoints: None,
            lookback_blocks: None,
            order: Vec::new(),
            ttl: vec!["none".to_owned()],
            writes_charged: false,
        },
        prices_per_mtok: crate::pricing::Prices {
            input: 0.0,
            cached_input: 0.0,
            cache_write: Default::default(),
            output: 0.0,
        },
        sources: Vec::new(),
        read: "1970-01-01".to_owned(),
        notes: None,
    })
}

/// The provider whose rows price `api` (DeepSeek speaks OpenAI's chat API).
fn provider_of(api: Api, model: &str) -> &'static str {
    match api {
        Api::OpenaiChat if model.to_ascii_lowercase().starts_with("deepseek") => "deepseek",
        Api::OpenaiChat | Api::OpenaiResponses => "openai",
        Api::Anthropic => "anthropic",
        Api::Gemini => "google",
    }
}

/// `model` without a trailing snapshot date (`-2024-07-18` or `-20240718`), when it has one.
fn undated(model: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((stem, date)) = model.rsplit_once('-') {
        if date.len() == 8 && digits(date) {
            return Some(stem);
        }
    }
    let parts: Vec<&str> = model.rsplitn(4, '-').collect();
    if let [d, m, y, stem] = parts[..] {
        if y.len() == 4 && m.len() == 2 && d.len() == 2 && digits(y) && digits(m) && digits(d) {
            return Some(stem);
        }
    }
    None
}

/// USD for `tokens` at `per_mtok`.
fn usd(tokens: u64, per_mtok: f64) -> f64 {
    tokens as f64 * per_mtok / 1e6
}

/// The price of writing one token with `ttl` (the row's write price when it has none for that
/// TTL; ordinary input when writes are not charged).
fn write_price(row: &Row, ttl: &str) -> f64 {
    if !row.cache.writes_charged {
        return row.prices_per_mtok.input;
    }
    row.prices_per_mtok
        .cache_write
        .get(ttl)
        .copied()
        .unwrap_or_else(|| row.write_price())
}

/// What a billed usage's input cost: uncached at the input price, reads at the cached price,
/// writes at their TTL's write price.
pub fn billed_cost(row: &Row, usage: &Usage) -> f64 {
    let p = &row.prices_per_mtok;
    let writes: f64 = usage
        .cache_write
        .iter()
        .map(|(ttl, &n)| usd(n, write_price(row, ttl)))
        .sum();
    usd(usage.uncached, p.input) + usd(usage.cache_read, p.cached_input) + writes
}

/// What `total` input tokens cost when `read` come from the cache and `write` are written to it
/// with `ttl`.
pub fn predicted_cost(row: &Row, total: u64, read: u64, write: u64, ttl: &str) -> f64 {
    let read = read.min(total);
    let write = write.min(total - read);
    let p = &row.prices_per_mtok;
    usd(total - read - write, p.input)
        + usd(read, p.cached_input)
        + usd(write, write_price(row, ttl))
}

/// What reading `tokens` from the cache instead of sending them uncached saves.
pub fn read_saving(row: &Row, tokens: u64) -> f64 {
    let p = &row.prices_per_mtok;
    usd(tokens, (p.input - p.cached_input).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_by_name_by_undated_name_and_named_fallbacks() {
        let table = Table::builtin();
        let p = row_for(&table, &[], Api::OpenaiChat, "gpt-4o-mini");
        assert_eq!(
            (p.row.id.as_str(), p.fallback),
            ("openai/gpt-4o-mini", None)
        );
        let p = row_for(&table, &[], Api::OpenaiChat, "gpt-4o-mini-2024-07-18");
        assert_eq!(p.row.id, "openai/gpt-4o-mini");
        assert_eq!(p.fallback, None, "a snapshot is its model");
        let p = row_for(&table, &[], Api::Anthropic, "claude-3-5-sonnet-20240620");
        assert_eq!(p.row.id, "anthropic/claude-sonnet-4-5");
        assert_eq!(
            p.fallback.as_deref(),
            Some(
                "the table has no row for \"claude-3-5-sonnet-20240620\": priced as \
                 anthropic/claude-sonnet-4-5 (the provider's default row)"
            )
        );
        let haiku = table
            .select(&["anthropic/claude-haiku-4-5".to_owned()])
            .expect("row");
        let p = row_for(&table, &haiku, Api::Anthropic, "claude-3-7-sonnet-20250219");
        assert_eq!(p.row.id, "anthropic/claude-haiku-4-5");
        assert!(p.fallback.is_some_and(|f| f.ends_with("(--model)")));
        let p = row_for(&table, &haiku, Api::OpenaiChat, "o3-mini");
        assert_eq!(
            p.row.id, "openai/gpt-5",
            "--model rows of another provider are skipped"
        );
    }

    #[test]
    fn billed_input_priced_per_kind_of_token() {
        let table = Table::builtin();
        let sonnet = row_for(&table, &[], Api::Anthropic, "claude-sonnet-4-5").row;
        let usage = Usage::from_response(
            Api::Anthropic,
            &serde_json::json!({"input_tokens": 3, "cache_read_input_tokens": 1111,
                "cache_creation_input_tokens": 418,
                "cache_creation": {"ephemeral_5m_input_tokens": 418, "ephemeral_1h_input_tokens": 0}}),
        )
        .expect("usage");
        // $3 per million uncached, $0.30 read, $3.75 written for 5 minutes.
        let want = (3.0 * 3.0 + 1111.0 * 0.3 + 418.0 * 3.75) / 1e6;
        assert!((billed_cost(sonnet, &usage) - want).abs() < 1e-12);
        assert!((predicted_cost(sonnet, 1532, 1111, 418, "5m") - want).abs() < 1e-12);
        assert!((read_saving(sonnet, 1000) - 2.7e-3).abs() < 1e-12);
    }
}
