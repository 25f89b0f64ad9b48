//! How a consumed record is shown: Kafka's `DefaultMessageFormatter` text
//! (`kafka-cli-surface.md` §5.3) and the JSON Lines object of `consume --output json`
//! ([`ConsumeEvent`]).

use std::io::{self, Write};

use serde::Serialize;

use super::deserializer::{DeserializeError, Deserializer, DeserializerClass};
use super::json::{JsonBytes, JsonHeaders};
use crate::datadir::properties::property_is_true;
use crate::decode::{InternalFormatter, RecordDecodeError};
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
    key_deserializer: Option<Deserializer>,
    value_deserializer: Option<Deserializer>,
    headers_deserializer: Option<Deserializer>,
    issues: Vec<DeserializerIssue>,
}

/// A `key.deserializer`, `value.deserializer` or `headers.deserializer` property the formatter
/// does not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeserializerIssue {
    /// A class Kafka's formatter cannot make a deserializer of: it logs `Unable to instantiate
    /// a deserializer from <class>` and the exception, and prints the bytes as they are, and so
    /// does this one.
    NotLoaded {
        /// The class name given.
        class: String,
        /// The first line of the exception.
        exception: String,
    },
    /// One of Kafka's deserializers that kafkit cannot print as Kafka does; why.
    Unavailable(String),
}

/// Why a record could not be written.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A deserializer refused the bytes: the first line of the exception Kafka's would throw
    /// (`org.apache.kafka.common.errors.SerializationException: Size of data ...`). What the
    /// formatter wrote before the failing field stays written, as in Kafka.
    #[error(transparent)]
    Deserialize(#[from] DeserializeError),
    /// An internal topic's formatter (`--formatter` of `__consumer_offsets`,
    /// `__transaction_state`) could not read a record.
    #[error("Could not read record at offset {offset} of {topic}-{partition}: {source}")]
    Internal {
        /// The record's offset.
        offset: i64,
        /// Its topic.
        topic: String,
        /// Its partition.
        partition: i32,
        /// Why.
        source: RecordDecodeError,
    },
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
            key_deserializer: None,
            value_deserializer: None,
            headers_deserializer: None,
            issues: Vec::new(),
        }
    }
}

impl MessageFormatter {
    /// The formatter the properties describe; unknown properties are ignored, as Kafka does. A
    /// deserializer class it does not apply is listed in [`Self::deserializer_issues`].
    pub fn from_properties<'p>(props: impl IntoIterator<Item = (&'p str, &'p str)>) -> Self {
        let mut f = Self::default();
        let mut deserializers: [Option<&str>; 3] = [None; 3];
        for (name, value) in props {
            match name {
                "print.timestamp" => f.print_timestamp = property_is_true(value),
                "print.key" => f.print_key = property_is_true(value),
                "print.value" => f.print_value = property_is_true(value),
                "print.partition" => f.print_partition = property_is_true(value),
                "print.offset" => f.print_offset = property_is_true(value),
                "print.headers" => f.print_headers = property_is_true(value),
                "print.epoch" => f.print_epoch = property_is_true(value),
                "print.delivery" => f.print_delivery = property_is_true(value),
                "key.separator" => f.key_separator = value.as_bytes().to_vec(),
                "line.separator" => f.line_separator = value.as_bytes().to_vec(),
                "headers.separator" => f.headers_separator = value.as_bytes().to_vec(),
                "null.literal" => f.null_literal = value.as_bytes().to_vec(),
                "key.deserializer" => deserializers[0] = Some(value),
                "value.deserializer" => deserializers[1] = Some(value),
                "headers.deserializer" => deserializers[2] = Some(value),
                _ => {}
            }
        }
        let [key, value, headers] = deserializers.map(|class| {
            let class = class?;
            match Deserializer::for_class(class) {
                DeserializerClass::Available(d) => Some(d),
                DeserializerClass::Unavailable(why) => {
                    f.issues.push(DeserializerIssue::Unavailable(why));
                    None
                }
                DeserializerClass::NotLoaded { exception } => {
                    f.issues.push(DeserializerIssue::NotLoaded {
                        class: class.to_string(),
                        exception,
                    });
                    None
                }
            }
        });
        f.key_deserializer = key;
        f.value_deserializer = value;
        f.headers_deserializer = headers;
        f
    }

    /// The deserializer properties this formatter does not apply, in the order key, value,
    /// headers.
    pub fn deserializer_issues(&self) -> &[DeserializerIssue] {
        &self.issues
    }

    fn separator(&self, out: &mut impl Write, more: bool) -> io::Result<()> {
        out.write_all(if more {
            &self.key_separator
        } else {
            &self.line_separator
        })
    }

    /// A key, value or header value: a null is `null.literal`, and a deserializer is handed
    /// the bytes printed (for a null, the literal's bytes, as Kafka's formatter hands them).
    fn bytes(
        &self,
        out: &mut impl Write,
        bytes: Option<&[u8]>,
        deserializer: Option<Deserializer>,
    ) -> Result<(), FormatError> {
        let bytes = bytes.unwrap_or(&self.null_literal);
        match deserializer {
            None => out.write_all(bytes)?,
            Some(d) => {
                let mut shown = Vec::new();
                d.write(bytes, &mut shown)?;
                out.write_all(&shown)?;
            }
        }
        Ok(())
    }

    /// Writes one record exactly as Kafka's formatter does: fields in the order timestamp,
    /// partition, offset, delivery, epoch, headers, key, value; each followed by
    /// `key.separator` when a later field is printed, else by `line.separator`.
    pub fn write(&self, out: &mut impl Write, m: &MessageView<'_>) -> Result<(), FormatError> {
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
                    self.bytes(out, h.value.as_deref(), self.headers_deserializer)?;
                }
            }
            self.separator(out, key)?;
        }
        if self.print_key {
            self.bytes(out, m.key, self.key_deserializer)?;
            self.separator(out, value)?;
        }
        if self.print_value {
            self.bytes(out, m.value, self.value_deserializer)?;
            out.write_all(&self.line_separator)?;
        }
        Ok(())
    }
}

/// The console consumer's `--formatter` classes (`org.apache.kafka.tools.consumer.<Name>`) that
/// kafkit has.
#[derive(Debug, Clone)]
pub enum Formatter {
    /// `DefaultMessageFormatter`, and `LoggingMessageFormatter`: it writes what the default one
    /// does and logs the record at INFO, below the WARN level Kafka's tools log at.
    Default(MessageFormatter),
    /// `NoOpMessageFormatter`: writes nothing.
    NoOp,
    /// The formatters of internal topics ([`InternalFormatter`]); they take no properties.
    Internal(InternalFormatter),
}

impl Formatter {
    /// The formatter classes kafkit has, by their simple names (in
    /// `org.apache.kafka.tools.consumer`).
    pub const CLASSES: [&'static str; 6] = [
        "DefaultMessageFormatter",
        "LoggingMessageFormatter",
        "NoOpMessageFormatter",
        "OffsetsMessageFormatter",
        "GroupMetadataMessageFormatter",
        "TransactionLogMessageFormatter",
    ];

    /// The formatter of class `class` (a full name, as Kafka's `Class.forName` takes it) with
    /// the properties, or `None` for a class kafkit does not have.
    pub fn new<'p>(
        class: &str,
        props: impl IntoIterator<Item = (&'p str, &'p str)>,
    ) -> Option<Self> {
        let simple = class.strip_prefix("org.apache.kafka.tools.consumer.")?;
        Some(match simple {
            "DefaultMessageFormatter" | "LoggingMessageFormatter" => {
                Self::Default(MessageFormatter::from_properties(props))
            }
            "NoOpMessageFormatter" => Self::NoOp,
            other => Self::Internal(InternalFormatter::named(other)?),
        })
    }

    /// The deserializer properties the formatter does not apply ([`MessageFormatter`]'s).
    pub fn deserializer_issues(&self) -> &[DeserializerIssue] {
        match self {
            Self::Default(f) => f.deserializer_issues(),
            Self::NoOp | Self::Internal(_) => &[],
        }
    }

    /// Writes one record as the formatter does.
    pub fn write(&self, out: &mut impl Write, m: &MessageView<'_>) -> Result<(), FormatError> {
        match self {
            Self::Default(f) => f.write(out, m),
            Self::NoOp => Ok(()),
            Self::Internal(f) => {
                let text = f
                    .format(m.key, m.value)
                    .map_err(|source| FormatError::Internal {
                        offset: m.offset,
                        topic: m.topic.to_string(),
                        partition: m.partition,
                        source,
                    })?;
                if let Some(text) = text {
                    out.write_all(text.as_bytes())?;
                }
                Ok(())
            }
        }
    }
}

/// What `consume --output json` prints (`docs/json.md`, "consume"), written by
/// [`super::json::write_event`]: keys, values and header values by the byte rule (UTF-8 string,
/// null, or `{"base64": ...}`), serialized from the record in place.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConsumeEvent<'a> {
    /// A record is consumed.
    Record {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The offset.
        offset: i64,
        /// The timestamp (-1 for magic-0 records).
        timestamp: i64,
        /// `CreateTime`, `LogAppendTime` or `NoTimestampType`.
        timestamp_type: &'static str,
        /// The key.
        key: JsonBytes<'a>,
        /// The value.
        value: JsonBytes<'a>,
        /// The headers, in record order.
        headers: JsonHeaders<'a>,
    },
}

impl<'a> ConsumeEvent<'a> {
    /// The `record` object of a consumed record.
    pub fn record(m: &MessageView<'a>) -> Self {
        ConsumeEvent::Record {
            topic: m.topic,
            partition: m.partition,
            offset: m.offset,
            timestamp: m.timestamp,
            timestamp_type: m.timestamp_type.name(),
            key: JsonBytes(m.key),
            value: JsonBytes(m.value),
            headers: JsonHeaders(m.headers),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes the usage error lists are the classes `Formatter::new` makes, and no other.
    #[test]
    fn the_listed_formatter_classes_are_the_ones_made() {
        for class in Formatter::CLASSES {
            let full = format!("org.apache.kafka.tools.consumer.{class}");
            assert!(Formatter::new(&full, []).is_some(), "{class}");
        }
        assert!(
            Formatter::new("org.apache.kafka.tools.consumer.XmlMessageFormatter", []).is_none()
        );
    }
}
