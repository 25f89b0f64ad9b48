//! JSON Lines: the one printer every command's events go through, and the byte rules they share
//! for keys, values and headers.
//!
//! Each command family has one serde-derived event enum, tagged by `type` (`#[serde(tag =
//! "type", rename_all = "snake_case")]`, fields in snake_case). [`write_event`] prints an event
//! as one line: `type` first, the variant's fields in declaration order (the order of their
//! table in `docs/json.md`), and `schema` ([`SCHEMA_VERSION`]) last. The line is what
//! `serde_json::to_writer` writes, written by a serializer of its own (`compact`) that appends
//! to a buffer and copies strings that need no escape whole: serde_json's cost per token and
//! per byte was most of a record dump's time.
//!
//! Bytes that are valid UTF-8 print as a JSON string, null as `null`, anything else as
//! `{"base64": "..."}` (standard alphabet, padded), so a script can always get the exact bytes
//! back ([`JsonBytes`]).

use std::io::{self, Write};

use base64::Engine as _;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::record::Header;

mod compact;

/// The version of the JSON Lines schema of `docs/json.md`. Every object carries it as its last
/// field, `"schema"`; it changes when a field is renamed or removed or changes meaning (adding
/// an event type or a field does not change it).
pub const SCHEMA_VERSION: u32 = 1;

/// What ends every line: `"schema":` [`SCHEMA_VERSION`], the object's brace, the newline.
const SCHEMA_FIELD: &[u8] = b"\"schema\":1}\n";

/// Prints one event as one JSON line: its `type` and fields, then `"schema"`.
///
/// `event` is a command family's event enum, internally tagged by `type`.
pub fn write_event<E: Serialize + ?Sized>(out: &mut impl Write, event: &E) -> io::Result<()> {
    let mut line = Vec::with_capacity(256);
    push_event(&mut line, event)?;
    out.write_all(&line)
}

/// [`write_event`] appended to a buffer the caller keeps (what a printer of millions of events
/// does: its lines go to its writer many at a time). On an error nothing is appended.
pub fn push_event<E: Serialize + ?Sized>(line: &mut Vec<u8>, event: &E) -> io::Result<()> {
    let start = line.len();
    let pushed = compact::to_vec(line, event).map_err(io::Error::other);
    // `schema` goes in before the object's closing brace (serde's `flatten` into a wrapper
    // costs a map entry per field).
    let object = line.get(start) == Some(&b'{') && line.last() == Some(&b'}');
    if pushed.is_err() || !object {
        line.truncate(start);
        return pushed.and(Err(io::Error::other("an event is not a JSON object")));
    }
    line.pop();
    if line.len() > start + 1 {
        line.push(b',');
    }
    line.extend_from_slice(SCHEMA_FIELD);
    Ok(())
}

/// The object every command prints last when it fails (`docs/json.md`, "Errors").
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ErrorEvent<'a> {
    /// The run failed.
    Error {
        /// The exit code.
        code: u8,
        /// The text printed on stderr, without its final newline.
        message: &'a str,
    },
}

/// A key, value or header value, serialized by the byte rule without building a [`Value`].
#[derive(Debug, Clone, Copy)]
pub struct JsonBytes<'a>(pub Option<&'a [u8]>);

impl Serialize for JsonBytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => serializer.serialize_none(),
            Some(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => serializer.serialize_str(text),
                Err(_) => {
                    let mut map = serializer.serialize_map(Some(1))?;
                    map.serialize_entry(
                        "base64",
                        &base64::engine::general_purpose::STANDARD.encode(bytes),
                    )?;
                    map.end()
                }
            },
        }
    }
}

/// Record headers as a list of `{"key", "value"}` objects in record order, serialized in place.
#[derive(Debug, Clone, Copy)]
pub struct JsonHeaders<'a>(pub &'a [Header]);

impl Serialize for JsonHeaders<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for header in self.0 {
            #[derive(Serialize)]
            struct Entry<'a> {
                key: &'a str,
                value: JsonBytes<'a>,
            }
            seq.serialize_element(&Entry {
                key: &header.key,
                value: JsonBytes(header.value.as_deref()),
            })?;
        }
        seq.end()
    }
}

/// A JSON value that is not bytes by the byte rule ([`bytes_from_value`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BytesError {
    /// `{"base64": ...}` that is not base64.
    #[error("invalid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// An object other than `{"base64": "..."}`.
    #[error("expected a string, null or {{\"base64\": \"...\"}}")]
    Object,
    /// A number, a boolean or a list.
    #[error("expected a string, null or {{\"base64\": \"...\"}}, found {0}")]
    Other(String),
}

/// The inverse of [`JsonBytes`]: the bytes of a key, value or header value read from JSON,
/// `None` for `null`, or what is wrong.
pub fn bytes_from_value(value: &Value) -> Result<Option<Vec<u8>>, BytesError> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text.as_bytes().to_vec())),
        Value::Object(map) => match map.get("base64") {
            Some(Value::String(b64)) if map.len() == 1 => {
                Ok(Some(base64::engine::general_purpose::STANDARD.decode(b64)?))
            }
            _ => Err(BytesError::Object),
        },
        other => Err(BytesError::Other(other.to_string())),
    }
}

/// Writes one JSON object as one line.
pub fn write_line(out: &mut impl Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The byte rule as a `Value`, built the plain way, to check [`JsonBytes`] against.
    /// A key, value or header value as JSON.
    fn bytes_value(bytes: Option<&[u8]>) -> Value {
        match bytes {
            None => Value::Null,
            Some(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => Value::String(text.to_owned()),
                Err(_) => {
                    json!({ "base64": base64::engine::general_purpose::STANDARD.encode(bytes) })
                }
            },
        }
    }

    #[test]
    fn bytes_round_trip_through_json() {
        for bytes in [
            None,
            Some(&b""[..]),
            Some(b"text"),
            Some(&[0xff, 0x00, 0x80][..]),
        ] {
            let v = bytes_value(bytes);
            assert_eq!(bytes_from_value(&v).unwrap().as_deref(), bytes);
        }
        assert_eq!(bytes_value(Some(&[0xff])), json!({"base64": "/w=="}));
        assert_eq!(
            bytes_from_value(&json!(3)),
            Err(BytesError::Other("3".to_string()))
        );
        assert_eq!(
            bytes_from_value(&json!({"base64": "/w==", "x": 1})),
            Err(BytesError::Object)
        );
        assert!(matches!(
            bytes_from_value(&json!({"base64": "!"})),
            Err(BytesError::Base64(_))
        ));
    }

    #[test]
    fn typed_bytes_and_headers_serialize_as_the_values_do() {
        for bytes in [None, Some(&b""[..]), Some(b"text"), Some(&[0xff, 0x00][..])] {
            assert_eq!(
                serde_json::to_value(JsonBytes(bytes)).unwrap(),
                bytes_value(bytes)
            );
        }
        let headers = [
            Header {
                key: "a".into(),
                value: Some(vec![0xff]),
            },
            Header {
                key: "b".into(),
                value: None,
            },
        ];
        assert_eq!(
            serde_json::to_value(JsonHeaders(&headers)).unwrap(),
            json!([{"key": "a", "value": {"base64": "/w=="}}, {"key": "b", "value": null}])
        );
    }

    #[test]
    fn the_schema_field_names_the_schema_version() {
        assert_eq!(
            SCHEMA_FIELD,
            format!("\"schema\":{SCHEMA_VERSION}}}\n").as_bytes()
        );
    }

    #[test]
    fn an_event_prints_type_first_then_its_fields_in_order_then_the_schema() {
        #[derive(Serialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Demo<'a> {
            Produced { topic: &'a str, partition: i32 },
            Done,
        }
        let mut out = Vec::new();
        write_event(
            &mut out,
            &Demo::Produced {
                topic: "t",
                partition: 3,
            },
        )
        .unwrap();
        write_event(&mut out, &Demo::Done).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"type\":\"produced\",\"topic\":\"t\",\"partition\":3,\"schema\":1}\n\
             {\"type\":\"done\",\"schema\":1}\n"
        );
    }
}
