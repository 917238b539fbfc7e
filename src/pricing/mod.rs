//! Providers' prompt-cache rules and prices as data: one table of rows, one per provider and
//! model family (`data/models.json`, compiled in; `--models FILE` replaces it). A row says how
//! long a prefix must be to be cached, how a hit grows (fixed units, or up to explicit
//! breakpoints, or an implicit prefix), which TTLs there are, and what each kind of input token
//! costs, with the URLs it was read from and when. Updating a price is a change to the data.
//!
//! [`cost`] turns a request's cache figures into tokens and dollars for one row.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod cost;
pub mod minimum;
pub mod request;

/// The table the program ships with.
pub const DEFAULT_TABLE: &str = include_str!("../../data/models.json");

/// The `format` a models file names.
pub const FORMAT: &str = "prompt-inspector/models@1";

/// A models file is small; one larger than this is not one.
pub const MAX_TABLE_BYTES: u64 = 4 * 1024 * 1024;

/// The highest price a table may give, in USD per million tokens: a dollar a token, far above
/// any model's. With prices in `0..=MAX_USD_PER_MTOK` and token counts in a `usize`, every
/// figure [`cost`] works out (`usize::MAX` tokens at this price is about 1.8e19 dollars, summed
/// over any number of calls a machine can hold) stays a finite number: no cost is ever
/// `inf` or `NaN`.
pub const MAX_USD_PER_MTOK: f64 = 1_000_000.0;

/// A models file: `{"format": "prompt-inspector/models@1", "models": [row, ...]}`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub format: String,
    pub models: Vec<Row>,
}

/// One provider and model family.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// `provider/family`, what `--model` names: `anthropic/claude-sonnet-4-5`.
    pub id: String,
    /// The model names (API ids) the row covers.
    pub models: Vec<String>,
    /// In the set chosen when no `--model` is given.
    #[serde(default)]
    pub default: bool,
    pub cache: CacheRule,
    pub prices_per_mtok: Prices,
    /// The pages the row's facts come from.
    pub sources: Vec<String>,
    /// When they were read (`YYYY-MM-DD`).
    pub read: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// How a provider's prompt cache serves a prefix.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CacheRule {
    /// The shortest prompt (or prefix, for breakpoints) that is cached at all.
    pub min_tokens: usize,
    pub growth: Growth,
    /// For `units`: a hit is `min_tokens` plus whole units of this many tokens.
    #[serde(default)]
    pub unit_tokens: Option<usize>,
    /// For `breakpoints`: how many a request may carry.
    #[serde(default)]
    pub max_breakpoints: Option<usize>,
    /// For `breakpoints`: how many blocks before a breakpoint a hit is looked for.
    #[serde(default)]
    pub lookback_blocks: Option<usize>,
    /// The parts of a request in the order they form the cached prefix.
    pub order: Vec<String>,
    /// The lifetimes a cache entry may be written with; the first is the default.
    pub ttl: Vec<String>,
    /// Whether writing the cache costs more than ordinary input (then `cache_write` prices it).
    pub writes_charged: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Growth {
    /// Automatic: a hit is the longest shared prefix, rounded down to whole units.
    Units,
    /// Explicit `cache_control` breakpoints: a hit is a prefix an earlier request wrote at one.
    Breakpoints,
    /// Automatic, of the whole shared prefix once it is long enough.
    ImplicitPrefix,
}

/// USD per million tokens.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    pub input: f64,
    pub cached_input: f64,
    /// Per TTL, when writes are charged.
    #[serde(default)]
    pub cache_write: BTreeMap<String, f64>,
    pub output: f64,
}

impl Row {
    /// The TTL writes are priced at: the row's first.
    pub fn default_ttl(&self) -> Option<&str> {
        self.cache.ttl.first().map(String::as_str)
    }

    /// The price of writing a token to the cache with the default TTL (ordinary input when
    /// writes are not charged).
    pub fn write_price(&self) -> f64 {
        if !self.cache.writes_charged {
            return self.prices_per_mtok.input;
        }
        self.default_ttl()
            .and_then(|t| self.prices_per_mtok.cache_write.get(t))
            .copied()
            .unwrap_or(self.prices_per_mtok.input)
    }
}

/// When prices were read and from which pages, for showing beside them: `(read, sources)` of
/// each priced row in, one entry per date in order of first appearance, each page once.
pub fn read_dates<'a>(
    rows: impl IntoIterator<Item = (&'a str, &'a [String])>,
) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for (read, sources) in rows {
        let at = match out.iter().position(|(d, _)| *d == read) {
            Some(i) => i,
            None => {
                out.push((read, Vec::new()));
                out.len() - 1
            }
        };
        for s in sources {
            if !out[at].1.contains(&s.as_str()) {
                out[at].1.push(s);
            }
        }
    }
    out
}

/// A models file that cannot be used: where, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct TableError {
    pub file: String,
    /// 1-based, when the JSON itself is at fault.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TableError {}

impl Table {
    /// The table compiled in.
    pub fn builtin() -> Table {
        // The shipped table is checked by the tests; a broken one never ships.
        Table::parse(DEFAULT_TABLE, "data/models.json")
            .unwrap_or_else(|e| panic!("the built-in models table is valid: {e}"))
    }

    /// Reads a models file (a regular file, at most [`MAX_TABLE_BYTES`]).
    pub fn load_file(path: &Path) -> Result<Table, TableError> {
        let file = path.display().to_string();
        let text = crate::files::read_regular_text(path, MAX_TABLE_BYTES, "a models table")
            .map_err(|e| TableError {
                file: file.clone(),
                line: None,
                column: None,
                message: e.to_string(),
            })?;
        Table::parse(&text, &file)
    }

    /// A table from its JSON text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Table, TableError> {
        let table: Table = serde_json::from_str(text).map_err(|e| TableError {
            file: file.to_owned(),
            line: Some(e.line()),
            column: Some(e.column()),
            message: strip_position(&e.to_string()),
        })?;
        table.check().map_err(|fault| {
            let (line, column) = fault.position(text).unzip();
            TableError {
                file: file.to_owned(),
                line,
                column,
                message: fault.message,
            }
        })?;
        Ok(table)
    }

    /// What serde cannot say: the rules' fields fit their growth, prices are prices, ids unique.
    /// A price's fault carries the field's path, so its error points at the number in the file.
    fn check(&self) -> Result<(), Fault> {
        self.check_fields().map_err(Fault::unplaced)?;
        for (i, row) in self.models.iter().enumerate() {
            let p = &row.prices_per_mtok;
            let named = [
                ("input", p.input),
                ("cached_input", p.cached_input),
                ("output", p.output),
            ];
            let writes = p.cache_write.iter().map(|(ttl, &x)| (ttl.as_str(), x));
            for (field, price) in named.into_iter().chain(writes) {
                if price.is_finite() && (0.0..=MAX_USD_PER_MTOK).contains(&price) {
                    continue;
                }
                let mut path = vec![
                    Step::Key("models".into()),
                    Step::Index(i),
                    Step::Key("prices_per_mtok".into()),
                ];
                let field_path = if named.iter().any(|(n, _)| *n == field) {
                    format!("prices_per_mtok.{field}")
                } else {
                    path.push(Step::Key("cache_write".into()));
                    format!("prices_per_mtok.cache_write.{field}")
                };
                path.push(Step::Key(field.into()));
                return Err(Fault {
                    path,
                    message: format!(
                        "models[{i}] ({}).{field_path}: {price:?} is not a price: prices are USD \
                         per million tokens, from 0 to {MAX_USD_PER_MTOK}",
                        row.id
                    ),
                });
            }
        }
        Ok(())
    }

    fn check_fields(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "format: expected {FORMAT:?}, found {:?}",
                self.format
            ));
        }
        for (i, row) in self.models.iter().enumerate() {
            let at = format!("models[{i}] ({})", row.id);
            if !row.id.contains('/') {
                return Err(format!("{at}.id: expected provider/family"));
            }
            if self.models[..i].iter().any(|r| r.id == row.id) {
                return Err(format!("{at}.id: a second row with this id"));
            }
            let c = &row.cache;
            match c.growth {
                Growth::Units if c.unit_tokens.is_none_or(|u| u == 0) => {
                    return Err(format!(
                        "{at}.cache.unit_tokens: growth \"units\" needs a unit of at least 1 token"
                    ))
                }
                Growth::Breakpoints if c.max_breakpoints.is_none_or(|b| b == 0) => {
                    return Err(format!(
                        "{at}.cache.max_breakpoints: growth \"breakpoints\" needs at least 1"
                    ))
                }
                _ => {}
            }
            if c.ttl.is_empty() {
                return Err(format!("{at}.cache.ttl: at least one TTL"));
            }
            let p = &row.prices_per_mtok;
            if c.writes_charged {
                if let Some(missing) = c.ttl.iter().find(|t| !p.cache_write.contains_key(*t)) {
                    return Err(format!(
                        "{at}.prices_per_mtok.cache_write: writes are charged, but TTL {missing:?} has no price"
                    ));
                }
            }
            if row.sources.is_empty() {
                return Err(format!(
                    "{at}.sources: at least one URL the row was read from"
                ));
            }
            if !is_date(&row.read) {
                return Err(format!(
                    "{at}.read: the date the sources were read, YYYY-MM-DD"
                ));
            }
        }
        Ok(())
    }

    /// The rows `ids` name, in that order; with no ids, the default set.
    pub fn select(&self, ids: &[String]) -> Result<Vec<&Row>, String> {
        if ids.is_empty() {
            return Ok(self.models.iter().filter(|r| r.default).collect());
        }
        ids.iter()
            .map(|id| {
                self.models
                    .iter()
                    .find(|r| &r.id == id || r.models.iter().any(|m| m == id))
                    .ok_or_else(|| {
                        let known: Vec<&str> = self.models.iter().map(|r| r.id.as_str()).collect();
                        format!("no model {id:?} in the table; it has {}", known.join(", "))
                    })
            })
            .collect()
    }
}

/// A rule a table breaks, and where in the file (a path of keys and indices), when it is one
/// value's fault.
struct Fault {
    path: Vec<Step>,
    message: String,
}

enum Step {
    Key(String),
    Index(usize),
}

impl Fault {
    fn unplaced(message: String) -> Fault {
        Fault {
            path: Vec::new(),
            message,
        }
    }

    /// The 1-based line and column of the value at the fault's path in `text` (read again with
    /// the project's JSON reader, which keeps spans; only a table with a fault pays for it).
    fn position(&self, text: &str) -> Option<(usize, usize)> {
        if self.path.is_empty() {
            return None;
        }
        let json = crate::json::parse(text).ok()?;
        let mut at = &json;
        for step in &self.path {
            at = match (step, &at.kind) {
                (Step::Key(key), _) => at.get(key)?,
                (Step::Index(i), crate::json::Kind::Array(items)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(crate::json::line_col(text, at.span.start))
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// serde_json ends its messages with " at line L column C", which the error says already.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(k) => message[..k].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests;
