//! How a consumed record is shown: Kafka's `DefaultMessageFormatter` text
//! (`kafka-cli-surface.md` §5.3) and the JSON Lines object of `consume --output json`.

use std::io::{self, Write};

use serde_json::{json, Value};

use super::json::{bytes_value, headers_value};
use crate::record::{Header, TimestampType};

/// A record with the facts the formatter can print.
#[derive(Debug, Clone, Copy)]
pub struct MessageView<'a> {
    /// The topic.
    pub topic: &'a str,
    /// The partition.
    pub partition: i32,
    /// The offset.
    pub offset: i64,
    /// The timestamp.
    pub timestamp: i64,
    /// The timestamp type.
    pub timestamp_type: TimestampType,
    /// The key, `None` for null.
    pub key: Option<&'a [u8]>,
    /// The value, `None` for null.
    pub value: Option<&'a [u8]>,
    /// The headers.
    pub headers: &'a [Header],
    /// The leader epoch, if known.
    pub leader_epoch: Option<i32>,
    /// The delivery count (share groups only; always `None` here).
    pub delivery_count: Option<i32>,
}

/// Kafka's `DefaultMessageFormatter` properties (`--property name=value`).
#[derive(Debug, Clone)]
pub struct MessageFormatter {
    print_timestamp: bool,
    print_key: bool,
    print_value: bool,
    print_partition: bool,
    print_offset: bool,
    print_headers: bool,
    print_epoch: bool,
    print_delivery: bool,
    key_separator: Vec<u8>,
    line_separator: Vec<u8>,
    headers_separator: Vec<u8>,
    null_literal: Vec<u8>,
}

impl Default for MessageFormatter {
    fn default() -> Self {
        Self {
            print_timestamp: false,
            print_key: false,
            print_value: true,
            print_partition: false,
            print_offset: false,
            print_headers: false,
            print_epoch: false,
            print_delivery: false,
            key_separator: b"\t".to_vec(),
            line_separator: b"\n".to_vec(),
            headers_separator: b",".to_vec(),
            null_literal: b"null".to_vec(),
        }
    }
}

fn is_true(value: &str) -> bool {
    value.trim().eq_ignore_ascii_case("true")
}

impl MessageFormatter {
    /// The formatter the properties describe; unknown properties are ignored, as Kafka does.
    pub fn from_properties<'p>(props: impl IntoIterator<Item = (&'p str, &'p str)>) -> Self {
        let mut f = Self::default();
        for (name, value) in props {
            match name {
                "print.timestamp" => f.print_timestamp = is_true(value),
                "print.key" => f.print_key = is_true(value),
                "print.value" => f.print_value = is_true(value),
                "print.partition" => f.print_partition = is_true(value),
                "print.offset" => f.print_offset = is_true(value),
                "print.headers" => f.print_headers = is_true(value),
                "print.epoch" => f.print_epoch = is_true(value),
                "print.delivery" => f.print_delivery = is_true(value),
                "key.separator" => f.key_separator = value.as_bytes().to_vec(),
                "line.separator" => f.line_separator = value.as_bytes().to_vec(),
                "headers.separator" => f.headers_separator = value.as_bytes().to_vec(),
                "null.literal" => f.null_literal = value.as_bytes().to_vec(),
                _ => {}
            }
        }
        f
    }

    /// Whether only the value is printed (the default): the fast path of `consume`.
    pub fn value_only(&self) -> bool {
        self.print_value
            && !(self.print_timestamp
                || self.print_key
                || self.print_partition
                || self.print_offset
                || self.print_headers
                || self.print_epoch
                || self.print_delivery)
    }

    fn separator(&self, out: &mut impl Write, more: bool) -> io::Result<()> {
        out.write_all(if more {
            &self.key_separator
        } else {
            &self.line_separator
        })
    }

    fn bytes(&self, out: &mut impl Write, bytes: Option<&[u8]>) -> io::Result<()> {
        out.write_all(bytes.unwrap_or(&self.null_literal))
    }

    /// Writes one record exactly as Kafka's formatter does: fields in the order timestamp,
    /// partition, offset, delivery, epoch, headers, key, value; each followed by
    /// `key.separator` when a later field is printed, else by `line.separator`.
    pub fn write(&self, out: &mut impl Write, m: &MessageView<'_>) -> io::Result<()> {
        let value = self.print_value;
        let key = self.print_key || value;
        let headers = self.print_headers || key;
        let epoch = self.print_epoch || headers;
        let delivery = self.print_delivery || epoch;
        let offset = self.print_offset || delivery;
        let partition = self.print_partition || offset;
        if self.print_timestamp {
            match m.timestamp_type {
                TimestampType::NoTimestamp => out.write_all(b"NO_TIMESTAMP")?,
                t => write!(out, "{}:{}", t.name(), m.timestamp)?,
            }
            self.separator(out, partition)?;
        }
        if self.print_partition {
            write!(out, "Partition:{}", m.partition)?;
            self.separator(out, offset)?;
        }
        if self.print_offset {
            write!(out, "Offset:{}", m.offset)?;
            self.separator(out, delivery)?;
        }
        if self.print_delivery {
            match m.delivery_count {
                Some(n) => write!(out, "Delivery:{n}")?,
                None => out.write_all(b"Delivery:NOT_PRESENT")?,
            }
            self.separator(out, epoch)?;
        }
        if self.print_epoch {
            match m.leader_epoch {
                Some(e) => write!(out, "Epoch:{e}")?,
                None => out.write_all(b"Epoch:NOT_PRESENT")?,
            }
            self.separator(out, headers)?;
        }
        if self.print_headers {
            if m.headers.is_empty() {
                out.write_all(b"NO_HEADERS")?;
            } else {
                for (i, h) in m.headers.iter().enumerate() {
                    if i > 0 {
                        out.write_all(&self.headers_separator)?;
                    }
                    out.write_all(h.key.as_bytes())?;
                    out.write_all(b":")?;
                    self.bytes(out, h.value.as_deref())?;
                }
            }
            self.separator(out, key)?;
        }
        if self.print_key {
            self.bytes(out, m.key)?;
            self.separator(out, value)?;
        }
        if self.print_value {
            self.bytes(out, m.value)?;
            out.write_all(&self.line_separator)?;
        }
        Ok(())
    }
}

/// The JSON Lines object of one consumed record: `type` `record` first, then the fields sorted
/// by name (`headers key offset partition timestamp timestampType topic value`), keys, values
/// and header values under the shared byte rules (UTF-8 string, null, or `{"base64": ...}`).
pub fn record_json(m: &MessageView<'_>) -> Value {
    json!({
        "type": "record",
        "topic": m.topic,
        "partition": m.partition,
        "offset": m.offset,
        "timestamp": m.timestamp,
        "timestampType": m.timestamp_type.name(),
        "key": bytes_value(m.key),
        "value": bytes_value(m.value),
        "headers": headers_value(m.headers),
    })
}
