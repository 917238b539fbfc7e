//! `--models FILE` and `--model ID`: the models table a command prices with, and its rows.

use std::path::Path;
use std::process::ExitCode;

use std::fmt::Write as _;

use prompt_inspector::pricing::cost::ModelCost;
use prompt_inspector::pricing::{Row, Table};

/// The rows `--model` names (the default set without one) of the table `--models` names (the
/// built-in one without it). A bad table or an unknown model is reported here: exit 2.
pub fn chosen(ids: &[String], path: Option<&Path>) -> Result<Vec<Row>, ExitCode> {
    let table = match path {
        Some(p) => Table::load_file(p).map_err(|e| e.to_string()),
        None => Ok(Table::builtin()),
    };
    let rows = table.and_then(|t| {
        t.select(ids)
            .map(|rows| rows.into_iter().cloned().collect())
            .map_err(|e| format!("--model: {e}"))
    });
    rows.map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

/// The models chosen and the scene file read, as `render` and `run` start: exit 2 with the
/// reason on stderr when either cannot be had.
pub fn rows_and_scene(
    (ids, table): (&[String], Option<&Path>),
    path: &Path,
) -> Result<(Vec<Row>, prompt_inspector::scene::Scene), ExitCode> {
    let rows = chosen(ids, table)?;
    let scene = prompt_inspector::scene::load_file(path).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    Ok((rows, scene))
}

/// Each chosen model's bill for the input of each call (or round), by its cache rule
/// (data/models.json).
pub fn costs(out: &mut String, models: &[ModelCost], unit: &str) {
    if models.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "Input cost per {unit} (USD; output is not priced). Tokens read from the cache, written\n\
         to it (where the provider charges writes) and sent uncached, counted with o200k_base on\n\
         the provider-neutral serialisation (each model's figures say how far they can be off):\n"
    );
    for m in models {
        let ttl = m
            .ttl
            .as_deref()
            .map(|t| format!(", writes at the {t} TTL"))
            .unwrap_or_default();
        let _ = writeln!(out, "{}{ttl} ({})", m.model, m.provenance);
        for (i, c) in m.calls.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {unit} {:<3} read {:>7}  written {:>7}  uncached {:>7}   ${:.6}  (uncached ${:.6})",
                i + 1,
                c.cache_read_tokens,
                c.cache_write_tokens,
                c.uncached_tokens,
                c.cost_usd,
                c.uncached_cost_usd
            );
        }
        let t = &m.total;
        let _ = writeln!(
            out,
            "  {:<w$} read {:>7}  written {:>7}  uncached {:>7}   ${:.6}  (uncached ${:.6})\n  {}\n",
            "total",
            t.cache_read_tokens,
            t.cache_write_tokens,
            t.uncached_tokens,
            t.cost_usd,
            t.uncached_cost_usd,
            if t.saving_usd < 0.0 {
                format!(
                    "caching costs ${:.6} more (cache writes that are not read back)",
                    -t.saving_usd
                )
            } else {
                format!("caching saves ${:.6}", t.saving_usd)
            },
            w = unit.len() + 4
        );
    }
    out.push_str(&crate::render_cmd::prices_read(
        models
            .iter()
            .map(|m| (m.prices_read.as_str(), m.price_sources.as_slice())),
    ));
    out.push('\n');
}
