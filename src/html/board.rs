//! One scene's boards: for each family, its segments as cards in assembly order, then its tools,
//! diagnostics and costs.

use std::fmt::Write as _;

use serde_json::Value;

use super::{anchor, array_of, escape, str_of, usd, usize_of};
use crate::segments::{self, Family};

/// Tool hues cycle after this many tools; the label still names each.
const TOOL_CLASSES: usize = 10;
const CONFIG_CLASSES: usize = 4;

/// The boards of `reports` (`{scene, chat, desk}`), under a heading of level `level`; `id`
/// prefixes every fragment identifier, so several scenes can share a page, and `label` names the
/// scene in the families' region names (its file on a page of several, where names can repeat).
pub fn push_scene(
    out: &mut String,
    reports: &Value,
    description: Option<&str>,
    (id, label): (&str, &str),
    level: usize,
) {
    if let Some(d) = description.filter(|d| !d.is_empty()) {
        let _ = writeln!(out, "<p class=\"description\">{}</p>", escape(d));
    }
    let families: Vec<(Family, &Value)> = [Family::Chat, Family::Desk]
        .into_iter()
        .filter_map(|f| reports.get(f.as_str()).map(|r| (f, r)))
        .collect();
    let _ = write!(
        out,
        "<nav aria-label=\"Segments of {id}\" class=\"toc\"><ul>"
    );
    for (family, _) in &families {
        let _ = write!(
            out,
            "<li><a href=\"#{}\">{}</a></li>",
            anchor(&[id, family.as_str()]),
            family.class_name()
        );
    }
    out.push_str("</ul></nav>\n");
    for (family, report) in families {
        push_family(out, family, report, (id, label), level);
    }
}

/// `(id, scene)`: the page's prefix for this scene's anchors, and the scene's name, which tells
/// one scene's family regions from another's on a page of several.
fn push_family(
    out: &mut String,
    family: Family,
    report: &Value,
    (id, scene): (&str, &str),
    level: usize,
) {
    let fid = anchor(&[id, family.as_str()]);
    let _ = writeln!(
        out,
        "<section class=\"family\" aria-label=\"{} of {}\">\n<h{level} id=\"{fid}\">{}</h{level}>",
        family.class_name(),
        escape(scene),
        family.class_name()
    );
    let rate = array_of(report, "costs")
        .first()
        .and_then(|c| c.get("usd_per_mtok_input"))
        .and_then(Value::as_f64);
    let segment_costs: Vec<(&str, f64)> = array_of(report, "costs")
        .first()
        .map(|c| {
            array_of(c, "segments")
                .iter()
                .filter_map(|s| Some((str_of(s, "name")?, s.get("cost_usd")?.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    let tools: Vec<&str> = array_of(report, "tools")
        .iter()
        .filter_map(|t| str_of(t, "name"))
        .collect();
    let tokenizer = str_of(report, "tokenizer")
        .map(|t| {
            format!(
                ", tokens counted with {}{}",
                escape(t),
                text_provenance(array_of(report, "costs"))
            )
        })
        .unwrap_or_else(|| ", tokens not counted".to_owned());
    let _ = writeln!(
        out,
        "<p class=\"muted\">{} segments in assembly order{tokenizer}.</p>\n<ol class=\"board\">",
        array_of(report, "segments").len()
    );
    for (order, seg) in array_of(report, "segments").iter().enumerate() {
        let name = str_of(seg, "name").unwrap_or("");
        let cost = segment_costs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c);
        let card = Card {
            family,
            id: &fid,
            level: level + 1,
            tools: &tools,
            rate,
        };
        card.push(out, seg, order, cost, array_of(report, "messages"));
    }
    out.push_str("</ol>\n");
    push_tools(out, report, level + 1, &fid);
    push_diagnostics(out, report, level + 1, &fid);
    push_costs(out, report, level + 1, &fid);
    out.push_str("</section>\n");
}

struct Card<'a> {
    family: Family,
    id: &'a str,
    level: usize,
    tools: &'a [&'a str],
    /// USD per million input tokens of the first priced model, for the pieces' costs.
    rate: Option<f64>,
}

impl Card<'_> {
    fn push(
        &self,
        out: &mut String,
        seg: &Value,
        order: usize,
        cost: Option<f64>,
        messages: &[Value],
    ) {
        let name = str_of(seg, "name").unwrap_or("");
        let legal = seg.get("legal").and_then(Value::as_bool).unwrap_or(true);
        let level = self.level;
        let cid = anchor(&[self.id, name]);
        let _ = writeln!(
            out,
            "<li class=\"card{}\" aria-labelledby=\"{cid}\">\n<h{level} id=\"{cid}\" \
             class=\"card-head\"><span class=\"order\">{}</span> <code>{}</code></h{level}>",
            if legal { "" } else { " forbidden" },
            order + 1,
            escape(name)
        );
        let mut figures = format!("{} B", usize_of(seg, "bytes").unwrap_or(0));
        if let Some(t) = usize_of(seg, "tokens") {
            let _ = write!(figures, " · {t} tokens");
        }
        if let Some(c) = cost {
            let _ = write!(figures, " · {}", usd(c));
        }
        let _ = writeln!(out, "<p class=\"figures\">{figures}</p>");
        let rule = segments::find(self.family, name).and_then(|s| s.rule);
        match rule {
            Some(rule) if !legal => {
                let _ = writeln!(
                    out,
                    "<p class=\"badge badge-forbidden\"><strong>Forbidden to tools</strong> \
                     ({}): {}</p>",
                    escape(rule.title()),
                    escape(rule.reason())
                );
            }
            _ => out.push_str("<p class=\"badge badge-open\">Open to tools</p>\n"),
        }
        let pieces = array_of(seg, "pieces");
        let text = str_of(seg, "text").unwrap_or("");
        let own: Vec<&Value> = messages
            .iter()
            .filter(|m| str_of(m, "segment") == Some(name))
            .collect();
        if seg.get("messages").is_some() && text.is_empty() {
            self.push_messages(out, &own);
        } else if text.is_empty() {
            out.push_str("<p class=\"empty\">(empty: nothing is sent from this segment)</p>\n");
        } else {
            self.push_text(out, text, pieces);
        }
        self.push_piece_figures(out, pieces);
        out.push_str("</li>\n");
    }

    fn push_text(&self, out: &mut String, text: &str, pieces: &[Value]) {
        let mut spans: Vec<(usize, usize, &Value)> = pieces
            .iter()
            .filter_map(|p| {
                let range = p.get("range")?.as_array()?;
                let start = usize::try_from(range.first()?.as_u64()?).ok()?;
                let end = usize::try_from(range.get(1)?.as_u64()?).ok()?;
                Some((start, end, p))
            })
            .collect();
        spans.sort_by_key(|s| s.0);
        out.push_str("<div class=\"seg-text\">");
        let mut at = 0;
        for (start, end, piece) in spans {
            if start < at {
                continue;
            }
            if let Some(seam) = text.get(at..start) {
                out.push_str(&escape(seam));
            }
            let Some(body) = text.get(start..end) else {
                continue;
            };
            let (class, label) = self.source_of(piece);
            let _ = write!(
                out,
                "<span class=\"piece {class}\"><span class=\"tag\">{}</span>{}</span>",
                escape(&label),
                escape(body)
            );
            at = end;
        }
        if let Some(rest) = text.get(at..) {
            out.push_str(&escape(rest));
        }
        out.push_str("</div>\n");
    }

    fn push_messages(&self, out: &mut String, messages: &[&Value]) {
        if messages.is_empty() {
            out.push_str("<p class=\"empty\">(no messages)</p>\n");
            return;
        }
        for m in messages {
            let role = str_of(m, "role").unwrap_or("?");
            let content = match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => crate::json_out::to_string_pretty(other),
                None => String::new(),
            };
            let mut head = format!("<b>{}</b>", escape(role));
            if let Some(n) = str_of(m, "name") {
                let _ = write!(head, " {}", escape(n));
            }
            if let Some(id) = str_of(m, "tool_call_id") {
                let _ = write!(head, " <span class=\"muted\">call {}</span>", escape(id));
            }
            if let Some(t) = usize_of(m, "tokens") {
                let _ = write!(head, " <span class=\"muted\">{t} tokens</span>");
            }
            let _ = writeln!(
                out,
                "<div class=\"msg role-{}\"><p class=\"msg-head\">{head}</p>\
                 <div class=\"seg-text\">{}</div></div>",
                anchor(&[role]),
                escape(&content)
            );
        }
    }

    fn push_piece_figures(&self, out: &mut String, pieces: &[Value]) {
        if pieces.is_empty() {
            return;
        }
        out.push_str("<ul class=\"piece-figures\">");
        for p in pieces {
            let (class, label) = self.source_of(p);
            let mut figures = String::new();
            if let Some(t) = usize_of(p, "tokens") {
                let _ = write!(figures, " · {t} tokens");
                if let Some(rate) = self.rate {
                    let _ = write!(figures, " · {}", usd(t as f64 * rate / 1e6));
                }
            }
            let _ = write!(
                out,
                "<li><span class=\"swatch {class}\"></span>{}{figures}</li>",
                escape(&label)
            );
        }
        out.push_str("</ul>\n");
    }

    /// The colour class and the words for a piece's source: the tool's name, or which
    /// configured prompt it is.
    fn source_of(&self, piece: &Value) -> (String, String) {
        match str_of(piece, "tool") {
            Some(tool) => {
                let i = self.tools.iter().position(|t| *t == tool).unwrap_or(0);
                (format!("t{}", i % TOOL_CLASSES), format!("tool {tool}"))
            }
            None => {
                let i = usize_of(piece, "index").unwrap_or(0);
                (
                    format!("c{}", i % CONFIG_CLASSES),
                    format!("configured prompt {i}"),
                )
            }
        }
    }
}

/// A tool status in words and a sign, never by colour alone.
fn status_sign(status: &str) -> &'static str {
    match status {
        "injected" => "✓",
        "rendered_empty" | "empty" | "silent" => "○",
        _ => "✗",
    }
}

fn push_tools(out: &mut String, report: &Value, level: usize, id: &str) {
    let tools = array_of(report, "tools");
    let _ = writeln!(
        out,
        "<h{level} id=\"{id}-tools\">Tools ({})</h{level}>",
        tools.len()
    );
    if tools.is_empty() {
        out.push_str("<p class=\"muted\">No tools in this scene.</p>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<table class=\"tools\" aria-labelledby=\"{id}-tools\"><thead><tr><th scope=\"col\">Tool</th>\
         <th scope=\"col\">Status</th><th scope=\"col\">Position</th><th scope=\"col\">Definition</th>\
         </tr></thead><tbody>"
    );
    for t in tools {
        let status = str_of(t, "status").unwrap_or("?");
        let definition = t.get("definition").map_or_else(
            || "none".to_owned(),
            |d| {
                let mut s = format!("{} B", usize_of(d, "bytes").unwrap_or(0));
                if let Some(n) = usize_of(d, "tokens") {
                    let _ = write!(s, " · {n} tokens");
                }
                s
            },
        );
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{}</th><td class=\"status status-{}\">{} {}</td><td>{}</td><td>{definition}</td></tr>",
            escape(str_of(t, "name").unwrap_or("")),
            anchor(&[status]),
            status_sign(status),
            escape(status),
            str_of(t, "position").map_or_else(|| "none".to_owned(), |p| format!("<code>{}</code>", escape(p))),
        );
    }
    out.push_str("</tbody></table>\n");
}

fn push_diagnostics(out: &mut String, report: &Value, level: usize, id: &str) {
    let diagnostics = array_of(report, "diagnostics");
    let _ = writeln!(
        out,
        "<h{level} id=\"{id}-diagnostics\">Diagnostics ({})</h{level}>",
        diagnostics.len()
    );
    if diagnostics.is_empty() {
        out.push_str("<p class=\"muted\">None.</p>\n");
        return;
    }
    out.push_str("<ul class=\"diagnostics\">\n");
    for d in diagnostics {
        let level = str_of(d, "level").unwrap_or("info");
        let mut about = Vec::new();
        if let Some(t) = str_of(d, "tool") {
            about.push(format!("tool {}", escape(t)));
        }
        if let Some(s) = str_of(d, "segment") {
            about.push(format!("segment <code>{}</code>", escape(s)));
        }
        if let Some(l) = usize_of(d, "line") {
            about.push(format!("template line {l}"));
        }
        let about = if about.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"muted\">({})</span>", about.join(", "))
        };
        let _ = writeln!(
            out,
            "<li class=\"diag level-{}\"><strong>{}</strong> <code>{}</code>: {}{about}</li>",
            anchor(&[level]),
            escape(level),
            escape(str_of(d, "code").unwrap_or("")),
            escape(str_of(d, "message").unwrap_or("")),
        );
    }
    out.push_str("</ul>\n");
}

/// ` (exact for openai/gpt-5; estimate ±30% for anthropic/claude-sonnet-4-5)`: how far the
/// report's counts of text are from each priced model's own count; nothing when none was priced.
fn text_provenance(costs: &[Value]) -> String {
    let mut labels: Vec<(String, Vec<&str>)> = Vec::new();
    for c in costs {
        let (Some(label), Some(model)) =
            (c.get("text_provenance").map(provenance), str_of(c, "model"))
        else {
            continue;
        };
        match labels.iter_mut().find(|(l, _)| *l == label) {
            Some((_, models)) => models.push(model),
            None => labels.push((label, vec![model])),
        }
    }
    if labels.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = labels
        .iter()
        .map(|(label, models)| format!("{} for {}", escape(label), escape(&models.join(", "))))
        .collect();
    format!(" ({})", parts.join("; "))
}

/// A provenance as JSON (`{kind, bound_percent?}`) in words: `exact`, `estimate ±3%`,
/// `calibrated ±2%`; `unlabelled` for a value that is none of them.
pub(crate) fn provenance(v: &Value) -> String {
    serde_json::from_value::<crate::usage::Provenance>(v.clone())
        .map_or_else(|_| "unlabelled".to_owned(), |p| p.to_string())
}

/// `Prices as read on DATE from` and links to the pages, per date: under every table of prices.
pub(crate) fn prices_read(out: &mut String, rows: &[Value], read: &str, sources: &str) {
    let pairs: Vec<(&str, Vec<String>)> = rows
        .iter()
        .filter_map(|c| {
            let date = str_of(c, read)?;
            let pages = array_of(c, sources)
                .iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect();
            Some((date, pages))
        })
        .collect();
    let dates = crate::pricing::read_dates(pairs.iter().map(|(d, p)| (*d, p.as_slice())));
    for (date, pages) in dates {
        let links: Vec<String> = pages
            .iter()
            .map(|u| format!("<a href=\"{0}\">{0}</a>", escape(u)))
            .collect();
        let _ = writeln!(
            out,
            "<p class=\"muted prices-read\">Prices as read on {} from {}.</p>",
            escape(date),
            links.join(", ")
        );
    }
}

fn push_costs(out: &mut String, report: &Value, level: usize, id: &str) {
    let costs = array_of(report, "costs");
    if costs.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h{level} id=\"{id}-costs\">This call's input, as a first call</h{level}>\n\
         <table class=\"costs\" aria-labelledby=\"{id}-costs\"><thead><tr><th scope=\"col\">Model</th>\
         <th scope=\"col\">Input tokens, as billed</th><th scope=\"col\">Of tool definitions</th>\
         <th scope=\"col\">USD per million</th><th scope=\"col\">Cost</th></tr></thead><tbody>"
    );
    for c in costs {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{} <span class=\"provenance\">{}</span></td>\
             <td>{} <span class=\"provenance\">{}</span></td><td>{}</td><td>{} \
             <span class=\"provenance\">{}</span></td></tr>",
            escape(str_of(c, "model").unwrap_or("")),
            usize_of(c, "input_tokens").unwrap_or(0),
            escape(&c.get("provenance").map(provenance).unwrap_or_default()),
            usize_of(c, "definition_tokens").unwrap_or(0),
            escape(&c.get("text_provenance").map(provenance).unwrap_or_default()),
            c.get("usd_per_mtok_input")
                .and_then(Value::as_f64)
                .map_or_else(String::new, |r| format!("{r}")),
            c.get("cost_usd")
                .and_then(Value::as_f64)
                .map_or_else(String::new, usd),
            escape(&c.get("provenance").map(provenance).unwrap_or_default()),
        );
    }
    out.push_str("</tbody></table>\n");
    prices_read(out, costs, "prices_read", "price_sources");
}
