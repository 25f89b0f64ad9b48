//! Java's `.properties` format, read as `java.util.Properties.load` reads it and written as
//! `store` writes it: `meta.properties`, and the `--producer.config`/`--consumer.config`-style
//! files of the tools.
//!
//! Reading follows `Properties.load`'s `LineReader` and `loadConvert`:
//! - a natural line ends at `\n`, `\r` or `\r\n`; its leading blanks (space, tab, form feed) are
//!   skipped; a line then empty, or starting with `#` or `!`, is a blank or comment line;
//! - a line ending in an odd number of backslashes continues on the next natural line, whose
//!   leading blanks are skipped (a continued line is never a comment line);
//! - the key ends at the first unescaped `=`, `:` or blank; blanks, then one `=` or `:`, then
//!   blanks separate it from the value (`key value`, `key=value`, `key : value`);
//! - escapes: `\t`, `\n`, `\r`, `\f`, `\uXXXX` (exactly four hex digits: anything else is
//!   Java's `Malformed \uxxxx encoding.`; a UTF-16 surrogate pair makes one character, a lone
//!   surrogate becomes U+FFFD since a Rust string cannot hold it); any other `\c` is `c`.
//!
//! Text is read as UTF-8. (Java's `load(InputStream)`, which Kafka uses, reads ISO-8859-1; the
//! two differ only for bytes above 127, which files written by Java's `store` escape as
//! `\uXXXX`.)

use std::fmt::Write as _;

/// A `.properties` text Java would refuse to load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Malformed \\uxxxx encoding. (line {line})")]
pub struct PropertiesError {
    /// The 1-based line where the bad escape's logical line starts.
    pub line: usize,
}

/// A boolean property of Kafka's tools (the console producer's reader, the console consumer's
/// formatter): true only for `true`, trimmed, in any case (`getProperty(k).trim()
/// .equalsIgnoreCase("true")`); anything else is false, never an error.
pub fn property_is_true(value: &str) -> bool {
    value.trim().eq_ignore_ascii_case("true")
}

/// Reads properties text into `(key, value)` pairs in file order. A key that appears twice
/// appears twice here: as in `Properties`, the later one wins for whoever looks it up.
pub fn parse(text: &str) -> Result<Vec<(String, String)>, PropertiesError> {
    let mut out = Vec::new();
    let mut logical = String::new();
    let mut start_line = 0;
    let mut continuing = false;
    for (number, natural) in natural_lines(text) {
        let line = natural.trim_start_matches(is_blank);
        if !continuing {
            if line.is_empty() || line.starts_with(['#', '!']) {
                continue;
            }
            start_line = number;
        }
        let backslashes = line.len() - line.trim_end_matches('\\').len();
        if backslashes % 2 == 1 {
            logical.push_str(line.strip_suffix('\\').unwrap_or(line));
            continuing = true;
            continue;
        }
        logical.push_str(line);
        continuing = false;
        out.push(split(&logical, start_line)?);
        logical.clear();
    }
    if continuing {
        // The text ended inside a continued line: Java keeps what it read.
        out.push(split(&logical, start_line)?);
    }
    Ok(out)
}

/// The natural lines of `text` with their 1-based numbers: ended by `\n`, `\r` or `\r\n`.
fn natural_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text;
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        number += 1;
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let (line, tail) = rest.split_at(end);
        rest = tail
            .strip_prefix("\r\n")
            .or_else(|| tail.strip_prefix(['\n', '\r']))
            .unwrap_or(tail);
        Some((number, line))
    })
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

/// Splits a logical line into its unescaped key and value.
fn split(line: &str, number: usize) -> Result<(String, String), PropertiesError> {
    let mut key_end = line.len();
    let mut escaped = false;
    for (at, c) in line.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '=' || c == ':' || is_blank(c) {
            key_end = at;
            break;
        }
    }
    let (key, rest) = line.split_at(key_end);
    let rest = rest.trim_start_matches(is_blank);
    let rest = rest
        .strip_prefix(['=', ':'])
        .map_or(rest, |r| r.trim_start_matches(is_blank));
    Ok((unescape(key, number)?, unescape(rest, number)?))
}

/// Java's `loadConvert`, with UTF-16 surrogate pairs joined.
fn unescape(s: &str, line: usize) -> Result<String, PropertiesError> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    let mut high_surrogate: Option<u32> = None;
    while let Some(c) = chars.next() {
        let unit = if c == '\\' {
            match chars.next() {
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if hex.len() != 4 || !hex.chars().all(|h| h.is_ascii_hexdigit()) {
                        return Err(PropertiesError { line });
                    }
                    u32::from_str_radix(&hex, 16).map_err(|_| PropertiesError { line })?
                }
                Some('t') => u32::from('\t'),
                Some('n') => u32::from('\n'),
                Some('r') => u32::from('\r'),
                Some('f') => 0x0c,
                Some(other) => u32::from(other),
                None => continue,
            }
        } else {
            u32::from(c)
        };
        match (high_surrogate.take(), unit) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let code = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00);
                out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            (previous, _) => {
                if previous.is_some() {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
                if (0xD800..=0xDBFF).contains(&unit) {
                    high_surrogate = Some(unit);
                } else {
                    out.push(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
            }
        }
    }
    if high_surrogate.is_some() {
        out.push(char::REPLACEMENT_CHARACTER);
    }
    Ok(out)
}

/// Java's `saveConvert` as `Properties.store(OutputStream, ...)` runs it: `\`, `=`, `:`, `#`,
/// `!` escaped; tab, newline, return and form feed as `\t`, `\n`, `\r`, `\f`; other characters
/// outside printable ASCII as `\uXXXX` (a character beyond the BMP as its UTF-16 surrogate
/// pair); a space escaped in a key, and at the start of a value.
pub fn escape(s: &str, is_key: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        match c {
            ' ' if is_key || i == 0 => out.push_str("\\ "),
            '\\' | '=' | ':' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x0c' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04X}");
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String)> {
        parse(text).unwrap()
    }

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn separators_comments_and_blank_lines() {
        assert_eq!(
            pairs("#c\n  ! x\n\n a = b\nk:v\nkey value\nk2 : v2\nempty\nx\\=y=z\n\tt\x0c=\x0c w\n"),
            [
                pair("a", "b"),
                pair("k", "v"),
                pair("key", "value"),
                pair("k2", "v2"),
                pair("empty", ""),
                pair("x=y", "z"),
                pair("t", "w"),
            ]
        );
        // Only one separator is eaten: a second `=` belongs to the value.
        assert_eq!(pairs("a==b\nc :=d"), [pair("a", "=b"), pair("c", "=d")]);
    }

    #[test]
    fn continuations_and_line_terminators() {
        assert_eq!(
            pairs("a = b\\\n   c\\\r\n d\rk=v\\\\\nnext=1\\"),
            [pair("a", "bcd"), pair("k", "v\\"), pair("next", "1")]
        );
        // A continued line is never a comment line.
        assert_eq!(pairs("a=1\\\n#2"), [pair("a", "1#2")]);
        // A comment line does not continue.
        assert_eq!(pairs("#x\\\na=1"), [pair("a", "1")]);
    }

    #[test]
    fn escapes_as_java_reads_them() {
        assert_eq!(
            pairs("k\\ ey=\\t\\n\\r\\f\\q\\u00e9\\u20AC\\uD83D\\uDE00\n"),
            [pair("k ey", "\t\n\r\x0cqé€😀")]
        );
        assert_eq!(pairs("a=\\uD83Dx"), [pair("a", "\u{FFFD}x")]);
        assert_eq!(
            parse("ok=1\n\nbad=\\u12G4"),
            Err(PropertiesError { line: 3 })
        );
        assert_eq!(parse("bad=\\u12"), Err(PropertiesError { line: 1 }));
    }

    #[test]
    fn what_escape_writes_parse_reads_back() {
        for (k, v) in [
            ("a key", " leading space"),
            ("x=y:z#!", "tab\there\nnew line"),
            ("é", "€ and 😀"),
            ("k", ""),
        ] {
            let text = format!("{}={}\n", escape(k, true), escape(v, false));
            assert_eq!(pairs(&text), [pair(k, v)], "{text}");
        }
        assert_eq!(escape("😀", false), "\\uD83D\\uDE00");
        assert_eq!(escape("a b", false), "a b");
    }
}
