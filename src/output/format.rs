//! kcat's format strings for records (`consume --format '%t %p %o %k %s\n'`).
//!
//! The placeholders are kcat's (`-f`): `%s` value, `%S` value size, `%R` value size as a
//! big-endian 32-bit integer (binary), `%k` key, `%K` key size (-1 for null), `%t` topic, `%p`
//! partition, `%o` offset, `%T` timestamp (ms), `%h` headers (`name=value` joined by `,`), `%%`
//! a `%`. In the text between them `\n`, `\r`, `\t`, `\\`, `\xHH` (hex) and `\NNN` (decimal)
//! stand for their byte, as in kcat. Keys, values and header values are written as their
//! bytes, null as nothing. With [`FormatEscape::Json`] the text placeholders (`%s`, `%k`, `%t`,
//! `%h`) are written as JSON values instead, with their quotes, so that a template such as
//! `{"key":%k,"value":%s}` makes a JSON line whatever the bytes: a string, `null`, or
//! `{"base64": ...}` for bytes that are not UTF-8 (the rule of `--output json`), and `%h` a
//! list of `{"key", "value"}` objects.

use std::io::{self, Write};

use crate::output::json::{JsonBytes, JsonHeaders};
use crate::output::message::MessageView;

/// How [`RecordFormat`] writes the text placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatEscape {
    /// Bytes as they are (kcat's way).
    #[default]
    None,
    /// JSON values: strings with their quotes, `null`, `{"base64": ...}`.
    Json,
}

/// One piece of a format string.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(Vec<u8>),
    Value,
    ValueSize,
    ValueSizeBinary,
    Key,
    KeySize,
    Topic,
    Partition,
    Offset,
    Timestamp,
    Headers,
}

/// What is wrong with a format string (kcat's words for a bad placeholder).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatStringError {
    /// A `%` at the end.
    #[error("Empty formatter: a % ends the format")]
    TrailingPercent,
    /// A placeholder that does not exist.
    #[error(
        "Unsupported formatter: %{0} (the placeholders are %s %S %R %k %K %t %p %o %T %h and %%)"
    )]
    Unsupported(char),
    /// `\x` without a hex digit after it.
    #[error("\\x needs one or two hex digits in {0:?}")]
    Hex(String),
    /// A decimal escape above 255.
    #[error("\\{number} is not a byte (0 to 255) in {format:?}")]
    Octet {
        /// The escape's digits.
        number: String,
        /// The whole format.
        format: String,
    },
}

/// A parsed format string.
#[derive(Debug, Clone)]
pub struct RecordFormat {
    parts: Vec<Part>,
    escape: FormatEscape,
}

impl RecordFormat {
    /// Parses `format`, or says what is wrong with it (kcat's words for a bad placeholder).
    pub fn parse(format: &str, escape: FormatEscape) -> Result<Self, FormatStringError> {
        let mut parts = Vec::new();
        let mut text = Vec::new();
        let bytes = format.as_bytes();
        let mut i = 0;
        while let Some(&c) = bytes.get(i) {
            i += 1;
            match c {
                b'%' => {
                    let part = match bytes.get(i) {
                        None => return Err(FormatStringError::TrailingPercent),
                        Some(b'%') => {
                            text.push(b'%');
                            i += 1;
                            continue;
                        }
                        Some(b's') => Part::Value,
                        Some(b'S') => Part::ValueSize,
                        Some(b'R') => Part::ValueSizeBinary,
                        Some(b'k') => Part::Key,
                        Some(b'K') => Part::KeySize,
                        Some(b't') => Part::Topic,
                        Some(b'p') => Part::Partition,
                        Some(b'o') => Part::Offset,
                        Some(b'T') => Part::Timestamp,
                        Some(b'h') => Part::Headers,
                        Some(_) => {
                            let other = format[i..].chars().next().unwrap_or('%');
                            return Err(FormatStringError::Unsupported(other));
                        }
                    };
                    i += 1;
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    parts.push(part);
                }
                b'\\' => match bytes.get(i) {
                    None => text.push(b'\\'),
                    Some(&e) => {
                        i += 1;
                        match e {
                            b'n' => text.push(b'\n'),
                            b'r' => text.push(b'\r'),
                            b't' => text.push(b'\t'),
                            b'x' => {
                                let digits = count_while(
                                    bytes.get(i..).unwrap_or_default(),
                                    2,
                                    u8::is_ascii_hexdigit,
                                );
                                let hex = &format[i..i + digits];
                                let byte = u8::from_str_radix(hex, 16)
                                    .map_err(|_| FormatStringError::Hex(format.to_string()))?;
                                text.push(byte);
                                i += digits;
                            }
                            b'0'..=b'9' => {
                                let digits = count_while(
                                    bytes.get(i - 1..).unwrap_or_default(),
                                    3,
                                    u8::is_ascii_digit,
                                );
                                let number = &format[i - 1..i - 1 + digits];
                                let byte =
                                    number.parse::<u8>().map_err(|_| FormatStringError::Octet {
                                        number: number.to_string(),
                                        format: format.to_string(),
                                    })?;
                                text.push(byte);
                                i += digits - 1;
                            }
                            other => text.push(other),
                        }
                    }
                },
                other => text.push(other),
            }
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Self { parts, escape })
    }

    /// Writes one record as the format says.
    pub fn write(&self, out: &mut impl Write, record: &MessageView<'_>) -> io::Result<()> {
        let json = self.escape == FormatEscape::Json;
        let size = |bytes: Option<&[u8]>| bytes.map_or(-1, |b| b.len() as i64);
        for part in &self.parts {
            match part {
                Part::Text(text) => out.write_all(text)?,
                Part::Value | Part::Key => {
                    let bytes = if *part == Part::Value {
                        record.value
                    } else {
                        record.key
                    };
                    if json {
                        serde_json::to_writer(&mut *out, &JsonBytes(bytes))?;
                    } else {
                        out.write_all(bytes.unwrap_or_default())?;
                    }
                }
                Part::ValueSize => write!(out, "{}", size(record.value))?,
                Part::KeySize => write!(out, "{}", size(record.key))?,
                Part::ValueSizeBinary => {
                    let n = i32::try_from(size(record.value)).unwrap_or(i32::MAX);
                    out.write_all(&n.to_be_bytes())?;
                }
                Part::Topic if json => serde_json::to_writer(&mut *out, record.topic)?,
                Part::Topic => out.write_all(record.topic.as_bytes())?,
                Part::Partition => write!(out, "{}", record.partition)?,
                Part::Offset => write!(out, "{}", record.offset)?,
                Part::Timestamp => write!(out, "{}", record.timestamp)?,
                Part::Headers if json => {
                    serde_json::to_writer(&mut *out, &JsonHeaders(record.headers))?
                }
                Part::Headers => {
                    for (n, header) in record.headers.iter().enumerate() {
                        if n > 0 {
                            out.write_all(b",")?;
                        }
                        out.write_all(header.key.as_bytes())?;
                        out.write_all(b"=")?;
                        out.write_all(header.value.as_deref().unwrap_or_default())?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// How many of the first `max` bytes of `bytes` pass `test`.
fn count_while(bytes: &[u8], max: usize, test: impl Fn(&u8) -> bool) -> usize {
    bytes.iter().take(max).take_while(|b| test(b)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Header, TimestampType};

    fn render(
        format: &str,
        escape: FormatEscape,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Vec<u8> {
        let headers = [
            Header {
                key: "h1".into(),
                value: Some(b"v1".to_vec()),
            },
            Header {
                key: "h2".into(),
                value: None,
            },
        ];
        let view = MessageView {
            topic: "orders",
            partition: 2,
            offset: 7,
            timestamp: 1_700_000_000_123,
            timestamp_type: TimestampType::CreateTime,
            key,
            value,
            headers: &headers,
            leader_epoch: None,
            delivery_count: None,
        };
        let mut out = Vec::new();
        RecordFormat::parse(format, escape)
            .unwrap()
            .write(&mut out, &view)
            .unwrap();
        out
    }

    #[test]
    fn every_placeholder_and_escape() {
        let got = render(
            r"%t %p %o %T %k=%K %s=%S [%h] 100%% \t\x41\66\\\q\n",
            FormatEscape::None,
            Some(b"key"),
            Some(b"value"),
        );
        assert_eq!(
            got,
            b"orders 2 7 1700000000123 key=3 value=5 [h1=v1,h2=] 100% \tAB\\q\n"
        );
        assert_eq!(
            render("%R%S %K%k.", FormatEscape::None, None, None),
            b"\xff\xff\xff\xff-1 -1."
        );
        assert_eq!(
            render("%R", FormatEscape::None, None, Some(b"abc")),
            [0, 0, 0, 3]
        );
    }

    #[test]
    fn json_escaping_makes_json_whatever_the_bytes() {
        let got = render(
            r#"{"topic":%t,"key":%k,"value":%s,"headers":%h,"offset":%o}\n"#,
            FormatEscape::Json,
            None,
            Some(b"a \"quoted\"\n\xff"),
        );
        let line = String::from_utf8(got).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"topic": "orders", "key": null, "value": {"base64": "YSAicXVvdGVkIgr/"}, "headers": [{"key": "h1", "value": "v1"}, {"key": "h2", "value": null}], "offset": 7})
        );
        let got = render("%s", FormatEscape::Json, None, Some(b"tab\there"));
        assert_eq!(got, br#""tab\there""#);
    }

    #[test]
    fn bad_formats_are_named() {
        for (format, says) in [
            ("%", "Empty formatter"),
            ("%x", "Unsupported formatter: %x"),
            ("%é", "Unsupported formatter: %é"),
            (r"\xg", "\\x needs one or two hex digits"),
            (r"\300", "\\300 is not a byte"),
        ] {
            let err = RecordFormat::parse(format, FormatEscape::None)
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{format}: {err}");
        }
    }
}
