//! A strict JSON reader that keeps the byte span of every value and key.
//!
//! Scene files are written by people and by recorders; every mistake must be reported at its line
//! and column with the path of the field (`tools[2].prompt_position[0]`). serde's positions are
//! approximate inside tagged enums and lost after buffering, so the scene loader reads this tree
//! instead. Numbers are read as Python's `json.loads` reads them (exact integers of any size,
//! `NaN`/`Infinity` accepted as Python writes them).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// The most digits an integer may have: CPython's default limit on int/str conversion
/// (`sys.int_info.default_max_str_digits`), which `json.loads` and `json.dumps` apply.
pub const MAX_INT_DIGITS: usize = 4300;

use crate::value::{PyInt, Value};

/// String values up to this many bytes are interned when read into a `Value`.
const SHORT_STRING: usize = 16;

/// Nesting deeper than this is refused rather than risking the stack.
pub const MAX_DEPTH: usize = 256;

/// The nesting a report read back may have: a report wraps what a scene holds (a tool's schema
/// sits a few levels deeper in a golden than in its scene), so it may be a little deeper than
/// a scene may be, never without bound.
pub const MAX_REPORT_DEPTH: usize = MAX_DEPTH + 64;

#[derive(Clone, Debug, PartialEq)]
pub struct Json {
    pub span: Range<usize>,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Int(PyInt),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<Member>),
    /// A subtree read straight into a [`Value`] (see [`parse_scene`]): no spans inside it.
    Value(Value),
    /// An array item the caller kept from an earlier reading of the same text ([`KeepItems`]):
    /// skipped, not read. Only the caller that asked for it sees one.
    Kept,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_span: Range<usize>,
    pub value: Json,
}

/// A syntax error at a byte offset (with its 1-based line and column in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for JsonError {}

impl Kind {
    /// What the value is, for "expected X, found Y" messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) => "an integer",
            Kind::Float(_) => "a number",
            Kind::Str(_) => "a string",
            Kind::Array(_) => "an array",
            Kind::Object(_) => "an object",
            Kind::Kept => "an item kept from an earlier reading",
            Kind::Value(v) => match v {
                Value::None => "null",
                Value::Bool(_) => "a boolean",
                Value::Int(_) => "an integer",
                Value::Float(_) => "a number",
                Value::Str(_) => "a string",
                Value::List(_) => "an array",
                Value::Dict(_) => "an object",
            },
        }
    }
}

impl Json {
    /// The value as Python would hold it after `json.loads`: duplicate keys keep their first
    /// position and their last value.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            Kind::Null => Value::None,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::Int(i.clone()),
            Kind::Float(f) => Value::Float(*f),
            Kind::Str(s) => Value::str(s),
            Kind::Array(items) => Value::List(Arc::new(items.iter().map(Json::to_value).collect())),
            Kind::Object(members) => {
                let mut map =
                    crate::value::Dict::with_capacity_and_hasher(members.len(), Default::default());
                for m in members {
                    map.insert(Arc::from(m.key.as_str()), m.value.to_value());
                }
                Value::Dict(Arc::new(map))
            }
            Kind::Value(v) => v.clone(),
            // Never converted: the caller that kept the item has its own reading of it.
            Kind::Kept => Value::None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match &self.kind {
            Kind::Object(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| &m.value),
            _ => None,
        }
    }
}

/// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
pub fn parse(text: &str) -> Result<Json, JsonError> {
    parse_scene(text, &[])
}

/// Like [`parse`], but the members of the top-level object named in `direct` are read straight
/// into [`Value`]s (`Kind::Value`). A scene's context is most of its bytes and needs no spans
/// inside it: reading it directly halves the memory a large scene touches.
pub fn parse_scene(text: &str, direct: &[&str]) -> Result<Json, JsonError> {
    with_position(text, direct, None, Parser::value)
}

/// A direct member's value from an earlier parse, and the byte range its unchanged text has in
/// the text being parsed now: the parser skips that range instead of reading it again.
#[derive(Clone, Debug)]
pub struct Reuse<'a> {
    pub key: &'a str,
    pub span: Range<usize>,
    pub value: Value,
}

/// The items of a top-level array member the caller has already read, by their byte ranges in
/// the text being parsed now (sorted by start): each is skipped and comes back as [`Kind::Kept`].
#[derive(Clone, Debug)]
pub struct KeepItems<'a> {
    pub key: &'a str,
    pub spans: &'a [Range<usize>],
}

/// [`parse_scene`], taking one direct member from an earlier parse when it starts at `reuse.span`,
/// and skipping the items of `keep`. The caller vouches that the text in each of those ranges is
/// the text it read before.
pub fn parse_scene_reusing(
    text: &str,
    direct: &[&str],
    reuse: Option<&Reuse<'_>>,
    keep: Option<&KeepItems<'_>>,
) -> Result<Json, JsonError> {
    with_position_keeping(text, direct, reuse, keep, Parser::value)
}

/// Parses one JSON document straight into a [`Value`].
pub fn parse_value(text: &str) -> Result<Value, JsonError> {
    with_position(text, &[], None, Parser::value_direct)
}

/// [`parse_value`] for a report read back (a golden, a report kept by a run): nesting up to
/// [`MAX_REPORT_DEPTH`] levels.
pub fn parse_report_value(text: &str) -> Result<Value, JsonError> {
    with_position(text, &[], None, |p| {
        p.max_depth = MAX_REPORT_DEPTH;
        p.value_direct()
    })
}

fn with_position<'a, T>(
    text: &'a str,
    direct: &'a [&'a str],
    reuse: Option<&'a Reuse<'a>>,
    f: impl FnOnce(&mut Parser<'a>) -> Result<T, JsonError>,
) -> Result<T, JsonError> {
    with_position_keeping(text, direct, reuse, None, f)
}

fn with_position_keeping<'a, T>(
    text: &'a str,
    direct: &'a [&'a str],
    reuse: Option<&'a Reuse<'a>>,
    keep: Option<&'a KeepItems<'a>>,
    f: impl FnOnce(&mut Parser<'a>) -> Result<T, JsonError>,
) -> Result<T, JsonError> {
    let mut p = Parser {
        src: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
        max_depth: MAX_DEPTH,
        direct,
        reuse,
        keep,
        keys: HashMap::default(),
    };
    let result = (|| {
        p.skip_ws();
        let value = f(&mut p)?;
        p.skip_ws();
        if p.pos < p.src.len() {
            return Err(p.err("unexpected text after the JSON value"));
        }
        Ok(value)
    })();
    result.map_err(|mut e| {
        (e.line, e.column) = line_col(text, e.offset);
        e
    })
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, text[start..offset].chars().count() + 1)
}

struct Parser<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    /// The deepest nesting read ([`MAX_DEPTH`] unless the caller allows more).
    max_depth: usize,
    /// Top-level keys whose values are read straight into `Value`s.
    direct: &'a [&'a str],
    reuse: Option<&'a Reuse<'a>>,
    keep: Option<&'a KeepItems<'a>>,
    /// Interned object keys for direct values: a conversation repeats `role` and `content`
    /// thousands of times, and each would otherwise be its own allocation.
    keys: HashMap<Box<str>, Arc<str>, foldhash::fast::RandomState>,
}

impl Parser<'_> {
    fn err(&self, message: impl Into<String>) -> JsonError {
        self.err_at(self.pos, message)
    }

    fn err_at(&self, offset: usize, message: impl Into<String>) -> JsonError {
        // Line and column are filled in by `parse`, which has the whole text.
        JsonError {
            offset,
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn found(&self) -> String {
        match self.text[self.pos..].chars().next() {
            None => "the end of the file".to_owned(),
            Some(c) => format!("{c:?}"),
        }
    }

    fn value(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        let kind = match self.peek() {
            Some(b'{') => self.nested(Self::object)?,
            Some(b'[') => self.nested(Self::array)?,
            Some(b'"') => Kind::Str(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't') => self.literal("true", Kind::Bool(true))?,
            Some(b'f') => self.literal("false", Kind::Bool(false))?,
            Some(b'n') => self.literal("null", Kind::Null)?,
            // Python's json.dumps writes these for non-finite floats, and json.loads reads them.
            Some(b'N') => self.literal("NaN", Kind::Float(f64::NAN))?,
            Some(b'I') => self.literal("Infinity", Kind::Float(f64::INFINITY))?,
            _ => return Err(self.err(format!("expected a JSON value, found {}", self.found()))),
        };
        Ok(Json {
            span: start..self.pos,
            kind,
        })
    }

    /// Runs `f` one nesting level deeper, refusing to go past `max_depth`.
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, JsonError>,
    ) -> Result<T, JsonError> {
        if self.depth >= self.max_depth {
            let max = self.max_depth;
            return Err(self.err(format!("nesting deeper than {max} levels")));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Steps over a `,` between members; one right before the container's `close` is named as
    /// what it is (Python writes none, but hand-edited scenes often have one), at the comma.
    fn comma(&mut self, close: u8) -> Result<(), JsonError> {
        let at = self.pos;
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(close) {
            let what = if close == b']' { "array" } else { "object" };
            return Err(self.err_at(
                at,
                format!(
                    "trailing comma before '{}': JSON allows no comma after the last {} of an {what}",
                    char::from(close),
                    if close == b']' { "item" } else { "member" }
                ),
            ));
        }
        Ok(())
    }

    /// The punctuation of an array (at its `[`): calls `item` for each element.
    fn array_items(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            item(self)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.comma(b']')?,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err(format!("expected ',' or ']', found {}", self.found()))),
            }
        }
    }

    /// The punctuation of an object (at its `{`): `key` reads each key (at its `"`), then
    /// `value` reads the value that follows the `:`.
    fn object_members<K>(
        &mut self,
        mut key: impl FnMut(&mut Self) -> Result<K, JsonError>,
        mut value: impl FnMut(&mut Self, K) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.err(format!("expected a string key, found {}", self.found())));
            }
            let k = key(self)?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.err(format!(
                    "expected ':' after the key, found {}",
                    self.found()
                )));
            }
            self.pos += 1;
            self.skip_ws();
            value(self, k)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.comma(b'}')?,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err(format!("expected ',' or '}}', found {}", self.found()))),
            }
        }
    }

    /// Reads a value straight into a [`Value`], with the same grammar and errors as `value`.
    fn value_direct(&mut self) -> Result<Value, JsonError> {
        match self.peek() {
            Some(b'[') => self.nested(|p| {
                let mut items = Vec::new();
                p.array_items(|p| {
                    items.push(p.value_direct()?);
                    Ok(())
                })?;
                Ok(Value::List(Arc::new(items)))
            }),
            Some(b'{') => self.nested(|p| {
                let mut map = crate::value::Dict::default();
                // Python's dict: a repeated key keeps its first position and takes the last value.
                p.object_members(Self::key_arc, |p, k| {
                    map.insert(k, p.value_direct()?);
                    Ok(())
                })?;
                Ok(Value::Dict(Arc::new(map)))
            }),
            Some(b'"') => Ok(Value::Str(self.string_arc()?)),
            _ => Ok(match self.value()?.kind {
                Kind::Null => Value::None,
                Kind::Bool(b) => Value::Bool(b),
                Kind::Int(i) => Value::Int(i),
                Kind::Float(f) => Value::Float(f),
                // Containers and strings were handled above.
                other => Json {
                    span: 0..0,
                    kind: other,
                }
                .to_value(),
            }),
        }
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<Kind, JsonError> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.err(format!("expected a JSON value, found {}", self.found())))
        }
    }

    fn array(&mut self) -> Result<Kind, JsonError> {
        let mut items = Vec::new();
        self.array_items(|p| {
            items.push(p.value()?);
            Ok(())
        })?;
        Ok(Kind::Array(items))
    }

    /// An array whose items at the starts of `kept` are skipped to their ends (`Kind::Kept`).
    fn array_keeping(&mut self, kept: &[Range<usize>]) -> Result<Kind, JsonError> {
        let mut items = Vec::new();
        self.array_items(|p| {
            let found = kept.binary_search_by_key(&p.pos, |r| r.start).ok();
            match found.map(|i| kept[i].clone()) {
                Some(r) if r.start < r.end && p.text.is_char_boundary(r.end) => {
                    p.pos = r.end;
                    items.push(Json {
                        span: r,
                        kind: Kind::Kept,
                    });
                }
                _ => items.push(p.value()?),
            }
            Ok(())
        })?;
        Ok(Kind::Array(items))
    }

    fn object(&mut self) -> Result<Kind, JsonError> {
        let mut members = Vec::new();
        let key = |p: &mut Self| {
            let start = p.pos;
            let key = p.string()?;
            Ok((key, start..p.pos))
        };
        self.object_members(key, |p, (key, key_span): (String, Range<usize>)| {
            let reused = p
                .reuse
                .filter(|r| p.depth == 1 && r.key == key && r.span.start == p.pos);
            let value = if let Some(r) = reused {
                p.pos = r.span.end;
                Json {
                    span: r.span.clone(),
                    kind: Kind::Value(r.value.clone()),
                }
            } else if let Some(keep) = p
                .keep
                .filter(|k| p.depth == 1 && k.key == key && p.peek() == Some(b'['))
            {
                let start = p.pos;
                let kind = p.nested(|p| p.array_keeping(keep.spans))?;
                Json {
                    span: start..p.pos,
                    kind,
                }
            } else if p.depth == 1 && p.direct.contains(&key.as_str()) {
                let start = p.pos;
                let v = p.value_direct()?;
                Json {
                    span: start..p.pos,
                    kind: Kind::Value(v),
                }
            } else {
                p.value()?
            };
            members.push(Member {
                key,
                key_span,
                value,
            });
            Ok(())
        })?;
        Ok(Kind::Object(members))
    }

    /// Skips plain string bytes (not `"`, `\\` or a control character) from the current position.
    fn plain_run(&mut self) {
        self.pos = self.plain_end(self.pos);
    }

    /// The end of the run of plain string bytes starting at `from`. Checks eight bytes at a time
    /// (long conversation texts are most of a scene's bytes).
    fn plain_end(&self, from: usize) -> usize {
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
        let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
        let mut i = from;
        while let Some(chunk) = self.src.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_ne_bytes(word);
            let quote = has_zero(x ^ (ONES * u64::from(b'"')));
            let backslash = has_zero(x ^ (ONES * u64::from(b'\\')));
            // Bytes below 0x20: subtracting 0x20 borrows into the high bit.
            let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
            if quote | backslash | control != 0 {
                break;
            }
            i += 8;
        }
        let rest = &self.src[i..];
        i + rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(rest.len())
    }

    /// An object key, interned: parsed without allocating when it has no escapes.
    fn key_arc(&mut self) -> Result<Arc<str>, JsonError> {
        let start = self.pos + 1;
        let end = self.plain_end(start);
        if self.src.get(end) == Some(&b'"') {
            self.pos = end + 1;
            let text = self.text;
            return Ok(self.intern(&text[start..end]));
        }
        let key = self.string()?;
        Ok(self.intern(&key))
    }

    fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(k) = self.keys.get(s) {
            return k.clone();
        }
        let k: Arc<str> = Arc::from(s);
        self.keys.insert(Box::from(s), k.clone());
        k
    }

    /// A string as an `Arc<str>`: one copy straight from the text when it has no escapes.
    fn string_arc(&mut self) -> Result<Arc<str>, JsonError> {
        let start = self.pos + 1;
        let end = self.plain_end(start);
        if self.src.get(end) == Some(&b'"') {
            self.pos = end + 1;
            let text = &self.text[start..end];
            // Short values repeat (roles, flags, names): share them like keys.
            if text.len() <= SHORT_STRING {
                return Ok(self.intern(text));
            }
            return Ok(Arc::from(text));
        }
        self.string().map(Arc::from)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            // Copy the run of plain characters in one go.
            let run_start = self.pos;
            self.plain_run();
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                None => return Err(self.err_at(open, "unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => {
                    return Err(self
                        .err("control character in a string (write it as an escape such as \\n)"))
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let at = self.pos - 1;
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let hi = self.hex4()?;
                let c =
                    if (0xD800..0xDC00).contains(&hi) {
                        if !self.src[self.pos..].starts_with(b"\\u") {
                            return Err(self
                                .err_at(at, "lone surrogate escape (not representable in UTF-8)"));
                        }
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return Err(self
                                .err_at(at, "lone surrogate escape (not representable in UTF-8)"));
                        }
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                    } else {
                        char::from_u32(hi)
                    };
                out.push(c.ok_or_else(|| {
                    self.err_at(at, "lone surrogate escape (not representable in UTF-8)")
                })?);
                return Ok(());
            }
            _ => return Err(self.err_at(at, format!("invalid escape, found \\{}", self.found()))),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .src
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.err("expected 4 hex digits"))?;
        let mut v = 0u32;
        for d in digits {
            let n = (*d as char)
                .to_digit(16)
                .ok_or_else(|| self.err("expected 4 hex digits"))?;
            v = v * 16 + n;
        }
        self.pos += 4;
        Ok(v)
    }

    fn number(&mut self) -> Result<Kind, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.src[self.pos..].starts_with(b"Infinity") {
                self.pos += "Infinity".len();
                return Ok(Kind::Float(f64::NEG_INFINITY));
            }
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err(format!("expected a digit, found {}", self.found()))),
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            float = true;
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err(format!(
                    "expected a digit after '.', found {}",
                    self.found()
                )));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            float = true;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err(format!(
                    "expected a digit in the exponent, found {}",
                    self.found()
                )));
            }
            self.digits();
        }
        let text = &self.text[start..self.pos];
        if float {
            // Correctly rounded like CPython's float(); overflow gives ±inf as json.loads does.
            text.parse::<f64>()
                .map(Kind::Float)
                .map_err(|_| self.err_at(start, "invalid number"))
        } else {
            let digits = text.trim_start_matches('-').len();
            if digits > MAX_INT_DIGITS {
                // Converting more digits is quadratic, and CPython refuses it too: no Python tool
                // could have recorded such a number (json.dumps raises the same error).
                return Err(self.err_at(
                    start,
                    format!(
                        "an integer of {digits} digits: Python's json and int() refuse more than \
                         {MAX_INT_DIGITS} (sys.get_int_max_str_digits())"
                    ),
                ));
            }
            PyInt::parse(text)
                .map(Kind::Int)
                .ok_or_else(|| self.err_at(start, "invalid number"))
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }
}

// In the JSON reader rather than in `value`, so that `value` stays below `json` (docs/architecture.md).
impl Value {
    /// Parses JSON text the way Python's `json.loads` does: a number with `.`, `e` or `E` is a
    /// float (overflowing to infinity), any other number an exact integer; `NaN` and `Infinity`
    /// are read as Python writes them; object keys keep their first position and the last value,
    /// as a Python dict built from the pairs would.
    pub fn from_json_str(text: &str) -> Result<Value, JsonError> {
        parse_value(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> (usize, usize, String) {
        let e = parse(text).expect_err("should fail");
        let (l, c) = line_col(text, e.offset);
        (l, c, e.message)
    }

    #[test]
    fn spans_point_at_values_and_keys() {
        let text = r#"{"a": [1, "x"], "b": {"c": null}}"#;
        let j = parse(text).expect("valid");
        let Kind::Object(m) = &j.kind else {
            panic!("object")
        };
        assert_eq!(&text[m[0].key_span.clone()], "\"a\"");
        assert_eq!(&text[m[0].value.span.clone()], "[1, \"x\"]");
        assert_eq!(&text[m[1].value.span.clone()], "{\"c\": null}");
    }

    #[test]
    fn numbers_read_as_python_does() {
        let j = parse("[1, 1.0, 1e400, -0.0, 123456789012345678901234567890, NaN, -Infinity, 2E2]")
            .expect("valid");
        let v = j.to_value();
        let Value::List(items) = v else {
            panic!("list")
        };
        assert_eq!(items[0], Value::Int(PyInt::Small(1)));
        assert_eq!(items[1], Value::Float(1.0));
        assert_eq!(items[2], Value::Float(f64::INFINITY));
        assert!(matches!(items[3], Value::Float(z) if z == 0.0 && z.is_sign_negative()));
        assert!(matches!(items[4], Value::Int(PyInt::Big(_))));
        assert!(matches!(items[5], Value::Float(n) if n.is_nan()));
        assert_eq!(items[6], Value::Float(f64::NEG_INFINITY));
        assert_eq!(items[7], Value::Float(200.0));
    }

    #[test]
    fn integers_stop_at_cpythons_digit_limit() {
        let at_limit = format!("[-{}]", "9".repeat(MAX_INT_DIGITS));
        assert!(parse(&at_limit).is_ok());
        let past = format!("{{\n  \"n\": {}}}", "1".repeat(MAX_INT_DIGITS + 1));
        assert_eq!(
            err(&past),
            (
                2,
                8,
                "an integer of 4301 digits: Python's json and int() refuse more than 4300 \
                 (sys.get_int_max_str_digits())"
                    .to_owned()
            )
        );
        // Past the limit as a float is a float, as in json.loads.
        assert!(parse(&format!("{}.0", "1".repeat(MAX_INT_DIGITS + 1))).is_ok());
    }

    #[test]
    fn strings_decode_escapes_and_surrogate_pairs() {
        let j = parse(r#""a\n\u4f60\ud83d\ude00\/""#).expect("valid");
        assert_eq!(j.kind, Kind::Str("a\n你😀/".to_owned()));
        assert_eq!(
            err(r#""\ud800x""#).2,
            "lone surrogate escape (not representable in UTF-8)"
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            err("{\n  \"a\": 1 }x"),
            (2, 11, "unexpected text after the JSON value".to_owned())
        );
        assert_eq!(
            err("{\"a\" 1, }"),
            (1, 6, "expected ':' after the key, found '1'".to_owned())
        );
        assert_eq!(
            err("[1 2]"),
            (1, 4, "expected ',' or ']', found '2'".to_owned())
        );
        assert_eq!(
            err("{\"a\" 1}"),
            (1, 6, "expected ':' after the key, found '1'".to_owned())
        );
        assert_eq!(
            err("[01]"),
            (1, 3, "expected ',' or ']', found '1'".to_owned())
        );
        assert_eq!(err("\"abc"), (1, 1, "unterminated string".to_owned()));
        assert_eq!(
            err("[1] x"),
            (1, 5, "unexpected text after the JSON value".to_owned())
        );
        assert_eq!(
            err(""),
            (
                1,
                1,
                "expected a JSON value, found the end of the file".to_owned()
            )
        );
        assert_eq!(
            err("[tru]"),
            (1, 2, "expected a JSON value, found 't'".to_owned())
        );
        assert_eq!(
            err("\"a\tb\"").2,
            "control character in a string (write it as an escape such as \\n)"
        );
    }

    #[test]
    fn a_trailing_comma_is_named_at_the_comma() {
        assert_eq!(
            err("{\n  \"a\": 1,\n}"),
            (
                2,
                9,
                "trailing comma before '}': JSON allows no comma after the last member of an object"
                    .to_owned()
            )
        );
        assert_eq!(
            err("[1, 2 , ]"),
            (
                1,
                7,
                "trailing comma before ']': JSON allows no comma after the last item of an array"
                    .to_owned()
            )
        );
        // Columns count characters, so a comma after CJK text is where an editor shows it.
        assert_eq!(err("[\"你好\",]").1, 6);
        // Read straight into values (the context) the same way.
        let e = parse_value("{\"k\": [1,\n]}").expect_err("trailing comma");
        assert_eq!((e.line, e.column), (1, 9));
        assert!(
            e.message.starts_with("trailing comma before ']'"),
            "{}",
            e.message
        );
        // Two commas are not a trailing one.
        assert_eq!(err("[1,,2]").2, "expected a JSON value, found ','");
    }

    #[test]
    fn word_at_a_time_scan_agrees_with_a_byte_scan() {
        // Every stop byte at every offset of a word, among ASCII and multi-byte UTF-8.
        let fillers = ["abcdefgh", "你好世界", "é~\u{7f}ü", "\u{80}\u{ff}zz"];
        for filler in fillers {
            for stop in ['"', '\\', '\n', '\u{1f}', '\0'] {
                for at in 0..20 {
                    let mut text: String = filler.repeat(4).chars().take(at).collect();
                    text.push(stop);
                    text.push_str(filler);
                    let p = Parser {
                        src: text.as_bytes(),
                        text: &text,
                        pos: 0,
                        depth: 0,
                        max_depth: MAX_DEPTH,
                        direct: &[],
                        reuse: None,
                        keep: None,
                        keys: HashMap::default(),
                    };
                    let naive = text
                        .bytes()
                        .position(|b| b == b'"' || b == b'\\' || b < 0x20)
                        .unwrap_or(text.len());
                    assert_eq!(p.plain_end(0), naive, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = "[".repeat(100_000);
        assert!(err(&text).2.starts_with("nesting deeper than"));
    }

    #[test]
    fn duplicate_keys_keep_first_position_last_value() {
        let v = parse(r#"{"b": 1, "a": 2, "b": 3}"#)
            .expect("valid")
            .to_value();
        assert_eq!(
            v,
            Value::from_json_str(r#"{"b": 3, "a": 2}"#).expect("valid")
        );
    }
}
