//! Pretty JSON output, byte-identical to `serde_json::to_writer_pretty` (two-space indent), but
//! writing each newline and its indentation as one slice. serde_json's pretty formatter writes
//! the indent one level at a time; on a large report those tiny writes were a tenth of the run.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::Formatter;

/// A newline followed by enough spaces for 64 levels of nesting.
const NL_SPACES: &[u8; 129] = b"\n                                                                                                                                ";

struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    fn newline<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        let mut spaces = self.depth * 2;
        let first = spaces.min(NL_SPACES.len() - 1);
        w.write_all(&NL_SPACES[..=first])?;
        spaces -= first;
        while spaces > 0 {
            let n = spaces.min(NL_SPACES.len() - 1);
            w.write_all(&NL_SPACES[1..=n])?;
            spaces -= n;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline(w)?;
        }
        w.write_all(bracket)
    }

    fn item<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }
}

impl Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Writes `value` as pretty JSON (two-space indent, no trailing newline).
pub fn write_pretty<W: Write, T: ?Sized + Serialize>(w: W, value: &T) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(
        w,
        Pretty {
            depth: 0,
            has_value: false,
        },
    );
    value.serialize(&mut ser)
}

/// [`write_pretty`] into a string.
pub fn to_string_pretty<T: ?Sized + Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing plain data into memory cannot fail, and serde_json writes valid UTF-8.
    let _ = write_pretty(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_serde_json_pretty_byte_for_byte() {
        let deep = (0..70).fold(serde_json::json!(1), |acc, _| serde_json::json!([acc, {}]));
        let samples = [
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!({"a": [], "b": {}, "c": [1, {"d": "é\n\"x\""}], "e": null}),
            serde_json::json!([[[[]]], {"k": [true, false, 1.5, -2]}]),
            deep,
        ];
        for v in samples {
            let ours = to_string_pretty(&v);
            let theirs = serde_json::to_string_pretty(&v).expect("serialise");
            assert_eq!(ours, theirs);
        }
    }
}
