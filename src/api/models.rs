//! `models`: the built-in models table (data/models.json, docs/models.md) as the app's model
//! picker shows it, and the rows a request's `models` field names, for `render`, `run` and live
//! documents.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::error::u32_of;
use super::ApiError;
use crate::pricing::{Growth, Row, Table};

/// The built-in table, parsed once per process: live documents resolve their models on every
/// open and every change of options.
pub(crate) fn builtin() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::builtin)
}

/// The rows `ids` name (row ids or model names), in that order; an unknown one is
/// `invalid_argument` naming `field`. No ids, no rows: a render prices nothing unless asked.
pub(crate) fn rows(ids: &[String], field: &str) -> Result<Vec<Row>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = builtin()
        .select(ids)
        .map_err(|e| ApiError::invalid(field, e))?;
    Ok(rows.into_iter().cloned().collect())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelsResponse {
    /// The table's rows in its order (OpenAI, Anthropic, Google, DeepSeek).
    pub models: Vec<ModelInfo>,
}

/// One row of the table: what a request's `models` names and what its prices and cache rule are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelInfo {
    /// `provider/family` (`anthropic/claude-sonnet-4-5`): what `models` fields take.
    pub id: String,
    /// The part of `id` before the `/`.
    pub provider: String,
    /// The API model names the row covers (`models` fields take these too).
    pub names: Vec<String>,
    /// In the set `run` prices when it is given no models.
    pub default: bool,
    pub prices_per_mtok: ModelPrices,
    pub cache: CacheSummary,
    /// The pages the row's facts come from, each with the date it was read.
    pub sources: Vec<ModelSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// USD per million tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelPrices {
    pub input: f64,
    /// A token read from the prompt cache.
    pub cached_input: f64,
    /// A token written to the cache, per TTL, when the provider charges writes (empty otherwise).
    pub cache_write: Vec<TtlPrice>,
    pub output: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TtlPrice {
    pub ttl: String,
    pub usd: f64,
}

/// How the provider's prompt cache serves a prefix (docs/models.md, "A row").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CacheSummary {
    /// The shortest prompt (automatic caches) or prefix at a breakpoint that is cached at all.
    pub min_tokens: u32,
    pub growth: CacheGrowth,
    /// For `units`: a hit is `min_tokens` plus whole units of this many tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_tokens: Option<u32>,
    /// For `breakpoints`: how many a request may carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_breakpoints: Option<u32>,
    /// The lifetimes a cache entry may be written with; writes are priced at the first.
    pub ttl: Vec<String>,
    pub writes_charged: bool,
    /// The rule in a few words, as docs/models.md's table says it: `units of 128`,
    /// `≤ 4 breakpoints`, `implicit prefix`, each from the minimum on.
    pub summary: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum CacheGrowth {
    Units,
    Breakpoints,
    ImplicitPrefix,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelSource {
    pub url: String,
    /// When it was read (`YYYY-MM-DD`).
    pub read: String,
}

/// The built-in table's rows (never fails: the table is checked when it is built).
pub fn models() -> ModelsResponse {
    ModelsResponse {
        models: builtin().models.iter().map(info).collect(),
    }
}

fn info(row: &Row) -> ModelInfo {
    let c = &row.cache;
    let p = &row.prices_per_mtok;
    let growth = match c.growth {
        Growth::Units => CacheGrowth::Units,
        Growth::Breakpoints => CacheGrowth::Breakpoints,
        Growth::ImplicitPrefix => CacheGrowth::ImplicitPrefix,
    };
    let rule = match c.growth {
        Growth::Units => format!("units of {}", c.unit_tokens.unwrap_or(1)),
        Growth::Breakpoints => format!("≤ {} breakpoints", c.max_breakpoints.unwrap_or(1)),
        Growth::ImplicitPrefix => "implicit prefix".to_owned(),
    };
    ModelInfo {
        id: row.id.clone(),
        provider: row.id.split('/').next().unwrap_or_default().to_owned(),
        names: row.models.clone(),
        default: row.default,
        prices_per_mtok: ModelPrices {
            input: p.input,
            cached_input: p.cached_input,
            // In the row's TTL order (the first is the one writes are priced at), not the map's.
            cache_write: c
                .ttl
                .iter()
                .filter_map(|ttl| {
                    p.cache_write.get(ttl).map(|&usd| TtlPrice {
                        ttl: ttl.clone(),
                        usd,
                    })
                })
                .collect(),
            output: p.output,
        },
        cache: CacheSummary {
            min_tokens: u32_of(c.min_tokens),
            growth,
            unit_tokens: c.unit_tokens.map(u32_of),
            max_breakpoints: c.max_breakpoints.map(u32_of),
            ttl: c.ttl.clone(),
            writes_charged: c.writes_charged,
            summary: format!("{rule}, from {} tokens", c.min_tokens),
        },
        sources: row
            .sources
            .iter()
            .map(|url| ModelSource {
                url: url.clone(),
                read: row.read.clone(),
            })
            .collect(),
        notes: row.notes.clone(),
    }
}
