//! Strict reading of a scene's `recorded` (docs/scene-format.md) into [`Recorded`]: the API,
//! model, parameters, cache breakpoints, carried items, usage and timestamp of an imported call,
//! with the loader's positioned errors (`recorded.usage.cache_read`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::{join, FieldPath, Reader};
use crate::json::{Json, Kind};
use crate::scene::{keys, Breakpoint, Carried, Form, Layout, PromptTemplate, Recorded, SceneError};
use crate::usage::{Api, Usage};

/// RFC 3339's `date-time`, with each field in its range. The schema's `pattern` is this text.
pub const TIMESTAMP_PATTERN: &str = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$";

/// A JSON pointer (RFC 6901) below the root: `/`-separated tokens, `~` only as `~0` or `~1`.
pub const POINTER_PATTERN: &str = r"^(/([^~/]|~[01])*)+$";

fn regex(cell: &'static OnceLock<regex::Regex>, pattern: &str) -> &'static regex::Regex {
    cell.get_or_init(|| {
        regex::Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
    })
}

impl Reader<'_> {
    pub(super) fn recorded(&self, j: &Json) -> Result<Recorded, SceneError> {
        let p = &FieldPath::Key(&FieldPath::Root, "recorded");
        let o = self.object(j, p, keys::RECORDED)?;
        let api_j = self.required(&o, j, p, "api")?;
        let api_path = join(p, "api");
        let api_name = self.string(api_j, &api_path)?;
        let api = Api::parse(&api_name).ok_or_else(|| {
            let all: Vec<&str> = Api::ALL.iter().map(|a| a.as_str()).collect();
            self.err(
                api_j,
                &api_path,
                format!(
                    "unknown API {api_name:?}, expected one of: {}",
                    all.join(", ")
                ),
            )
        })?;
        let model = self.opt_string(&o, p, "model")?;
        if let (Some(m), Some(mj)) = (&model, o.get("model")) {
            if m.trim().is_empty() {
                return Err(self.err(mj, &join(p, "model"), "a model name must not be empty"));
            }
        }
        let params = match o.get("params") {
            None => serde_json::Map::new(),
            Some(pj) => match self.free_json(pj, &join(p, "params"))? {
                serde_json::Value::Object(map) => map,
                _ => return Err(self.expected(pj, &join(p, "params"), "an object")),
            },
        };
        let layout = match o.get("layout") {
            None => Layout::default(),
            Some(lj) => self.layout(lj, &join(p, "layout"))?,
        };
        let timestamp = self.opt_string(&o, p, "timestamp")?;
        if let (Some(t), Some(tj)) = (&timestamp, o.get("timestamp")) {
            static TIMESTAMP: OnceLock<regex::Regex> = OnceLock::new();
            if !regex(&TIMESTAMP, TIMESTAMP_PATTERN).is_match(t) {
                return Err(self.err(
                    tj,
                    &join(p, "timestamp"),
                    format!("{t:?} is not an RFC 3339 date-time (2025-06-01T12:00:00Z)"),
                ));
            }
        }
        Ok(Recorded {
            api,
            model,
            params,
            layout,
            cache_control: self.list(&o, p, "cache_control", Self::breakpoint)?,
            carried: self.list(&o, p, "carried", Self::carried)?,
            usage: o
                .get("usage")
                .map(|u| self.usage(u, &join(p, "usage")))
                .transpose()?,
            timestamp,
            prompt: o
                .get("prompt")
                .map(|t| self.prompt_template(t, &join(p, "prompt")))
                .transpose()?,
            reply: self.list(&o, p, "reply", Self::message)?,
        })
    }

    fn prompt_template(&self, j: &Json, path: &FieldPath) -> Result<PromptTemplate, SceneError> {
        let o = self.object(j, path, keys::PROMPT_TEMPLATE)?;
        let variables = match o.get("variables") {
            None => serde_json::Map::new(),
            Some(v) => match self.free_json(v, &join(path, "variables"))? {
                serde_json::Value::Object(map) => map,
                _ => return Err(self.expected(v, &join(path, "variables"), "an object")),
            },
        };
        Ok(PromptTemplate {
            name: self.opt_string(&o, path, "name")?,
            version: self.opt_string(&o, path, "version")?,
            template: self.opt_string(&o, path, "template")?,
            variables,
        })
    }

    fn layout(&self, j: &Json, path: &FieldPath) -> Result<Layout, SceneError> {
        let o = self.object(j, path, keys::LAYOUT)?;
        let mut layout = Layout::default();
        for (key, forms) in keys::LAYOUT_FORMS {
            let Some(v) = o.get(key) else { continue };
            let vpath = join(path, key);
            let form = self.string(v, &vpath)?;
            let second = match forms.iter().position(|f| *f == form) {
                Some(i) => i == 1,
                None => {
                    return Err(self.err(
                        v,
                        &vpath,
                        format!(
                            "unknown form {form:?}, expected one of: {}",
                            forms.join(", ")
                        ),
                    ))
                }
            };
            let text_form = if second { Form::Parts } else { Form::String };
            match *key {
                "system" => layout.system_in_input = second,
                "input" => layout.input_string = second,
                "schema" => layout.gemini_parameters = second,
                "system_form" => layout.system_form = Some(text_form),
                _ => layout.input_form = Some(text_form),
            }
        }
        Ok(layout)
    }

    fn pointer(&self, o: &super::Obj, j: &Json, path: &FieldPath) -> Result<String, SceneError> {
        let at_j = self.required(o, j, path, "at")?;
        let at_path = join(path, "at");
        let at = self.string(at_j, &at_path)?;
        static POINTER: OnceLock<regex::Regex> = OnceLock::new();
        if !regex(&POINTER, POINTER_PATTERN).is_match(&at) {
            return Err(self.err(
                at_j,
                &at_path,
                format!("{at:?} is not a JSON pointer into the request (/messages/2/content/0)"),
            ));
        }
        Ok(at)
    }

    fn breakpoint(&self, j: &Json, path: &FieldPath) -> Result<Breakpoint, SceneError> {
        let o = self.object(j, path, keys::BREAKPOINT)?;
        let at = self.pointer(&o, j, path)?;
        let ttl = self.opt_string(&o, path, "ttl")?;
        if let (Some(t), Some(tj)) = (&ttl, o.get("ttl")) {
            if t.trim().is_empty() {
                return Err(self.err(tj, &join(path, "ttl"), "a TTL must not be empty"));
            }
        }
        Ok(Breakpoint { at, ttl })
    }

    fn carried(&self, j: &Json, path: &FieldPath) -> Result<Carried, SceneError> {
        let o = self.object(j, path, keys::CARRIED)?;
        let at = self.pointer(&o, j, path)?;
        // `null` is a value here (a member sent as null), so it is read raw.
        let value = match o.get_raw("value") {
            Some(v) => self.free_json(v, &join(path, "value"))?,
            None => return Err(self.err(j, path, "missing field \"value\"")),
        };
        Ok(Carried { at, value })
    }

    fn count(&self, j: &Json, path: &FieldPath) -> Result<u64, SceneError> {
        match &j.kind {
            Kind::Int(i) => i
                .as_i64()
                .and_then(|n| u64::try_from(n).ok())
                .ok_or_else(|| self.err(j, path, "expected a token count (0 or more)")),
            _ => Err(self.expected(j, path, "a token count (an integer, 0 or more)")),
        }
    }

    fn usage(&self, j: &Json, path: &FieldPath) -> Result<Usage, SceneError> {
        let o = self.object(j, path, keys::USAGE)?;
        let field = |key: &str| -> Result<u64, SceneError> {
            let v = self.required(&o, j, path, key)?;
            self.count(v, &join(path, key))
        };
        let input_total = field("input_total")?;
        let uncached = field("uncached")?;
        let cache_read = field("cache_read")?;
        let output = field("output")?;
        let mut cache_write = BTreeMap::new();
        if let Some(w) = o.get("cache_write") {
            let w_path = join(path, "cache_write");
            let Kind::Object(members) = &w.kind else {
                return Err(self.expected(w, &w_path, "an object of TTL → tokens"));
            };
            let ttls: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
            // Any TTL name is allowed; `object` is only used for its duplicate check.
            self.object(w, &w_path, &ttls)?;
            for m in members {
                cache_write.insert(m.key.clone(), self.count(&m.value, &join(&w_path, &m.key))?);
            }
        }
        let reasoning = o
            .get("reasoning")
            .map(|r| self.count(r, &join(path, "reasoning")))
            .transpose()?;
        let written: u64 = cache_write.values().sum();
        let parts = uncached
            .checked_add(cache_read)
            .and_then(|n| n.checked_add(written));
        if parts != Some(input_total) {
            return Err(self.err(
                j,
                path,
                format!(
                    "input_total {input_total} is not uncached + cache_read + cache_write ({uncached} + {cache_read} + {written}): no cached token is counted twice or left out"
                ),
            ));
        }
        if let Some(r) = reasoning {
            if r > output {
                return Err(self.err(
                    j,
                    path,
                    format!("reasoning {r} is more than output {output}, which includes it"),
                ));
            }
        }
        Ok(Usage {
            input_total,
            uncached,
            cache_read,
            cache_write,
            output,
            reasoning,
        })
    }

    /// Free JSON as written (params, a carried value): numbers keep their text, so a scene's
    /// `0.10` or `2.0` is sent again as it was; `NaN` and `Infinity`, which are not JSON, are
    /// refused.
    pub(super) fn free_json(
        &self,
        j: &Json,
        path: &FieldPath,
    ) -> Result<serde_json::Value, SceneError> {
        use serde_json::Value as J;
        Ok(match &j.kind {
            Kind::Null => J::Null,
            Kind::Bool(b) => J::Bool(*b),
            Kind::Int(_) | Kind::Float(_) => {
                let text = self.text.get(j.span.clone()).unwrap_or("").trim();
                match text.parse::<serde_json::Number>() {
                    Ok(n) if text.bytes().any(|b| b.is_ascii_digit()) => J::Number(n),
                    _ => return Err(self.err(j, path, format!("{text} is not a JSON number"))),
                }
            }
            Kind::Str(s) => J::String(s.clone()),
            Kind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.push(self.free_json(item, &FieldPath::Index(path, i))?);
                }
                J::Array(out)
            }
            Kind::Object(members) => {
                let mut map = serde_json::Map::with_capacity(members.len());
                for m in members {
                    // A repeated key keeps its last value, as `json.loads` does.
                    map.insert(
                        m.key.clone(),
                        self.free_json(&m.value, &join(path, &m.key))?,
                    );
                }
                J::Object(map)
            }
            Kind::Kept => return Err(self.err(j, path, "an item kept from an earlier reading")),
            Kind::Value(v) => {
                serde_json::to_value(v).map_err(|e| self.err(j, path, format!("not JSON: {e}")))?
            }
        })
    }
}
