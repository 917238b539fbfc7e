//! A YAML document (a VCR cassette as vcrpy and pytest-recording write it) read into the same
//! tree as JSON (`crate::json::Json`), each value with its byte span in the YAML text, so every
//! later error names the file's line and column exactly as for a JSON input.
//!
//! Scalars are resolved by YAML 1.2's core schema (plain `null`, `true`, `12`, `1.5`, `.inf`;
//! anything quoted or in a block is a string). A `!!binary` scalar (how PyYAML writes a body
//! that is bytes) is kept as its base64 text and its position listed in [`Yaml::binary`].
//! Aliases are expanded, within [`MAX_ALIAS_NODES`] values in all, so a few lines cannot make a
//! tree of billions ("billion laughs").

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};

use crate::json::{Json, Kind, Member, MAX_DEPTH, MAX_INT_DIGITS};
use crate::value::PyInt;

/// The most values that aliases may add to a document by repeating what their anchors hold.
pub(crate) const MAX_ALIAS_NODES: usize = 100_000;

/// A document read, and where its `!!binary` scalars start.
pub(crate) struct Yaml {
    pub root: Json,
    pub binary: HashSet<usize>,
}

/// A syntax error at a byte offset of the text.
#[derive(Debug)]
pub(crate) struct YamlError {
    pub offset: usize,
    pub message: String,
}

enum Frame {
    Seq {
        start: usize,
        anchor: usize,
        items: Vec<Json>,
    },
    Map {
        start: usize,
        anchor: usize,
        members: Vec<Member>,
        key: Option<(String, Range<usize>)>,
    },
}

/// Byte offsets of the parser's character positions: positions only move forward while a
/// document is read, so one cursor walks the text once.
struct Offsets<'t> {
    text: &'t str,
    chars: usize,
    bytes: usize,
}

impl Offsets<'_> {
    fn byte(&mut self, char_index: usize) -> usize {
        if char_index >= self.chars {
            for c in self.text[self.bytes..].chars() {
                if self.chars == char_index {
                    break;
                }
                self.bytes += c.len_utf8();
                self.chars += 1;
            }
        } else {
            for c in self.text[..self.bytes].chars().rev() {
                if self.chars == char_index {
                    break;
                }
                self.bytes -= c.len_utf8();
                self.chars -= 1;
            }
        }
        self.bytes
    }

    fn span(&mut self, span: &Span) -> Range<usize> {
        let start = self.byte(span.start.index());
        let end = self.byte(span.end.index()).max(start);
        start..end
    }
}

/// Parses `text` as one YAML document.
pub(crate) fn parse(text: &str) -> Result<Yaml, YamlError> {
    let mut offsets = Offsets {
        text,
        chars: 0,
        bytes: 0,
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, Json> = HashMap::new();
    let mut binary = HashSet::new();
    let mut aliased = 0usize;
    let mut root: Option<Json> = None;
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| YamlError {
            offset: offsets.byte(e.marker().index()),
            message: e.info().to_owned(),
        })?;
        let at = offsets.span(&span);
        let value = match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(_) => {
                if root.is_some() {
                    return Err(YamlError {
                        offset: at.start,
                        message: "a second YAML document: a cassette is one document".into(),
                    });
                }
                continue;
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if matches!(stack.last(), Some(Frame::Map { key: None, .. })) {
                    return Err(YamlError {
                        offset: at.start,
                        message: "a mapping key that is a collection: keys must be scalars".into(),
                    });
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(YamlError {
                        offset: at.start,
                        message: format!("nested deeper than {MAX_DEPTH} levels"),
                    });
                }
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Frame::Seq {
                        start: at.start,
                        anchor,
                        items: Vec::new(),
                    }
                } else {
                    Frame::Map {
                        start: at.start,
                        anchor,
                        members: Vec::new(),
                        key: None,
                    }
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (json, anchor) = match stack.pop() {
                    Some(Frame::Seq {
                        start,
                        anchor,
                        items,
                    }) => (
                        Json {
                            span: start..at.end.max(start),
                            kind: Kind::Array(items),
                        },
                        anchor,
                    ),
                    Some(Frame::Map {
                        start,
                        anchor,
                        members,
                        ..
                    }) => (
                        Json {
                            span: start..at.end.max(start),
                            kind: Kind::Object(members),
                        },
                        anchor,
                    ),
                    None => continue,
                };
                if anchor > 0 {
                    anchors.insert(anchor, json.clone());
                }
                json
            }
            Event::Alias(id) => {
                let Some(json) = anchors.get(&id) else {
                    return Err(YamlError {
                        offset: at.start,
                        message: "an alias of an anchor not defined before it".into(),
                    });
                };
                aliased += count(json);
                if aliased > MAX_ALIAS_NODES {
                    return Err(YamlError {
                        offset: at.start,
                        message: format!(
                            "aliases repeat more than {MAX_ALIAS_NODES} values: refused as a likely expansion bomb"
                        ),
                    });
                }
                json.clone()
            }
            Event::Scalar(value, style, anchor, tag) => {
                // A key is kept as its text, whatever it would resolve to.
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = stack.last_mut()
                {
                    *key = Some((value.into_owned(), at));
                    continue;
                }
                let is_binary = tag.as_ref().is_some_and(|t| is_core(t, "binary"));
                let json = scalar(value, style, tag.as_deref(), at.clone())?;
                if is_binary {
                    binary.insert(at.start);
                }
                if anchor > 0 {
                    anchors.insert(anchor, json.clone());
                }
                json
            }
        };
        match stack.last_mut() {
            None => root = Some(value),
            Some(Frame::Seq { items, .. }) => items.push(value),
            Some(Frame::Map { members, key, .. }) => {
                if let Some((key, key_span)) = key.take() {
                    members.push(Member {
                        key,
                        key_span,
                        value,
                    });
                } else {
                    // An alias in a key's place.
                    return Err(YamlError {
                        offset: value.span.start,
                        message: "a mapping key that is an alias: keys must be scalars".into(),
                    });
                }
            }
        }
    }
    match root {
        Some(root) => Ok(Yaml { root, binary }),
        None => Err(YamlError {
            offset: 0,
            message: "an empty YAML document".into(),
        }),
    }
}

/// The values in a tree (an alias costs what it repeats).
fn count(json: &Json) -> usize {
    1 + match &json.kind {
        Kind::Array(items) => items.iter().map(count).sum(),
        Kind::Object(members) => members.iter().map(|m| count(&m.value)).sum(),
        _ => 0,
    }
}

fn is_core(tag: &Tag, suffix: &str) -> bool {
    tag.is_yaml_core_schema() && tag.suffix == suffix
}

/// A scalar's value: by its tag when it has a core one, else a plain scalar by the core schema
/// and any other a string.
fn scalar(
    value: Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
    span: Range<usize>,
) -> Result<Json, YamlError> {
    let text = value.as_ref();
    let resolve = match tag {
        Some(t) if t.is_yaml_core_schema() => t.suffix != "str" && t.suffix != "binary",
        // Local and unknown tags say nothing the import uses: read the value as written.
        _ => style == ScalarStyle::Plain,
    };
    let kind = if resolve {
        match resolve_plain(text) {
            Some(Ok(kind)) => kind,
            Some(Err(message)) => {
                return Err(YamlError {
                    offset: span.start,
                    message,
                })
            }
            None => Kind::Str(value.into_owned()),
        }
    } else {
        Kind::Str(value.into_owned())
    };
    Ok(Json { span, kind })
}

/// A plain scalar by YAML 1.2's core schema: `None` for a string.
fn resolve_plain(text: &str) -> Option<Result<Kind, String>> {
    Some(Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => Kind::Null,
        "true" | "True" | "TRUE" => Kind::Bool(true),
        "false" | "False" | "FALSE" => Kind::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Kind::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Kind::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Kind::Float(f64::NAN),
        _ => {
            let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                if digits.len() > MAX_INT_DIGITS {
                    return Some(Err(format!(
                        "an integer of more than {MAX_INT_DIGITS} digits"
                    )));
                }
                return PyInt::parse(text).map(|i| Ok(Kind::Int(i)));
            }
            if is_float(digits) {
                return text.parse::<f64>().ok().map(|f| Ok(Kind::Float(f)));
            }
            return None;
        }
    }))
}

/// `1.5`, `.5`, `1.`, `1e3`, `1.5E-3` (without the sign).
fn is_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = all_digits(int)
        && frac.is_none_or(all_digits)
        && (!int.is_empty() || frac.is_some_and(|f| !f.is_empty()));
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok && (frac.is_some() || exponent.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj<'a>(j: &'a Json, key: &str) -> &'a Json {
        j.get(key).unwrap_or_else(|| panic!("no {key}"))
    }

    #[test]
    fn reads_a_cassette_shape_with_positions() {
        let text = "interactions:\n- request:\n    body: '{\"a\": 1}'\n    method: POST\n  response:\n    status:\n      code: 200\n    body:\n      string: !!binary |\n        H4sIAAAA\n";
        let y = parse(text).expect("parses");
        let it = match &obj(&y.root, "interactions").kind {
            Kind::Array(items) => &items[0],
            k => panic!("{k:?}"),
        };
        let body = obj(obj(it, "request"), "body");
        assert_eq!(body.kind, Kind::Str("{\"a\": 1}".into()));
        assert_eq!(&text[body.span.clone()], "'{\"a\": 1}'");
        let code = obj(obj(obj(it, "response"), "status"), "code");
        assert_eq!(code.kind, Kind::Int(PyInt::Small(200)));
        let string = obj(obj(obj(it, "response"), "body"), "string");
        assert_eq!(string.kind, Kind::Str("H4sIAAAA\n".into()));
        assert!(y.binary.contains(&string.span.start));
        assert_eq!(crate::json::line_col(text, string.span.start), (9, 15));
    }

    #[test]
    fn resolves_plain_scalars_by_the_core_schema() {
        let y = parse("[1, -2, 1.5, .5, 1e3, .inf, null, ~, true, 'true', \"3\", 0x10, yes, 1_0]")
            .expect("parses");
        let Kind::Array(items) = y.root.kind else {
            panic!()
        };
        let kinds: Vec<String> = items.iter().map(|i| format!("{:?}", i.kind)).collect();
        assert_eq!(
            kinds,
            [
                "Int(Small(1))",
                "Int(Small(-2))",
                "Float(1.5)",
                "Float(0.5)",
                "Float(1000.0)",
                "Float(inf)",
                "Null",
                "Null",
                "Bool(true)",
                "Str(\"true\")",
                "Str(\"3\")",
                "Str(\"0x10\")",
                "Str(\"yes\")",
                "Str(\"1_0\")"
            ]
        );
    }

    #[test]
    fn positions_follow_multibyte_text() {
        let text = "a: 'é€😀'\nb: [x, {c: 1}]\n";
        let y = parse(text).expect("parses");
        let b = obj(&y.root, "b");
        assert_eq!(&text[b.span.start..b.span.start + 1], "[");
        let Kind::Array(items) = &b.kind else {
            panic!()
        };
        assert_eq!(&text[items[0].span.clone()], "x");
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let text = "interactions:\n- request: {body: 'x'\n  response: 1\n";
        let e = parse(text).err().expect("fails");
        let (line, _) = crate::json::line_col(text, e.offset);
        assert!(line >= 2, "{e:?}");
        let e = parse("a: 1\n---\nb: 2\n").err().expect("two documents");
        assert!(e.message.contains("second YAML document"), "{e:?}");
        assert!(parse("").is_err());
    }

    #[test]
    fn an_alias_bomb_is_refused_and_small_aliases_expand() {
        let y = parse("a: &x [1, 2]\nb: *x\n").expect("parses");
        assert_eq!(obj(&y.root, "b").kind, obj(&y.root, "a").kind);
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = format!("*a{}", i - 1);
            let list = [prev.as_str(); 10].join(", ");
            bomb.push_str(&format!("a{i}: &a{i} [{list}]\n"));
        }
        let e = parse(&bomb).err().expect("refused");
        assert!(e.message.contains("expansion bomb"), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let e = parse(&deep).err().expect("refused");
        assert!(
            e.message.contains("nested deeper") || e.message.contains("recursion"),
            "{e:?}"
        );
    }
}
