//! Decoders for Kafka's internal topics and KRaft control records: pure bytes → values.
//!
//! * [`offsets`]: `__consumer_offsets` records (group coordinator keys and values, every version
//!   in Kafka 4.0's schemas), with the consumer subscription and assignment embedded in group
//!   metadata decoded as well;
//! * [`transaction_log`]: `__transaction_state` records, in Kafka 4.x's JSON form;
//! * [`cluster_metadata`]: `__cluster_metadata` records (every metadata record type);
//! * [`kraft_control`]: the JSON of KRaft control records (snapshot header and footer, KRaft
//!   version, voters, leader change).
//!
//! Messages are read by interpreting kafkit's layout table of these messages
//! ([`schema`](mod@schema), `messages.txt`: Kafka 4.0's versions, fields and types); the text
//! forms are what Kafka's DumpLogSegments prints.

#![deny(clippy::indexing_slicing)]
// Bytes from disk become lengths and versions here: a cast that drops bits or a sign is spelled
// out (`cast_unsigned`, `try_from`, a mask) or allowed where it is with the reason.
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

pub mod jvalue;
pub mod schema;

use jvalue::JValue;
use schema::{schema, DecodeError};

use crate::record::ControlRecordType;

/// What a decoder makes of one record: the texts DumpLogSegments prints after ` key: ` and
/// ` payload: ` (each may be absent), the decoded JSON for JSON Lines output, and whether the
/// record could not be decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// Text after `key: `, if any.
    pub key: Option<String>,
    /// Text after `payload: `, if any.
    pub payload: Option<String>,
    /// The decoded key and value (`{"key": ..., "value": ...}`), or the error.
    pub json: serde_json::Value,
    /// True when the record could not be decoded (the texts then carry Kafka's skip message).
    pub failed: bool,
}

impl Decoded {
    fn error(key: Option<String>, payload: Option<String>, message: String) -> Self {
        Decoded {
            key,
            payload,
            json: serde_json::json!({ "error": message }),
            failed: true,
        }
    }
}

fn read_i16(bytes: &[u8]) -> Option<(i16, &[u8])> {
    let (head, rest) = (bytes.get(..2)?, bytes.get(2..)?);
    Some((i16::from_be_bytes([*head.first()?, *head.get(1)?]), rest))
}

/// Which key and value schemas a coordinator record type uses.
type Lookup = fn(i16) -> Option<(&'static str, &'static str)>;

fn group_record(t: i16) -> Option<(&'static str, &'static str)> {
    Some(match t {
        0 | 1 => ("OffsetCommitKey", "OffsetCommitValue"),
        2 => ("GroupMetadataKey", "GroupMetadataValue"),
        3 => ("ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue"),
        4 => (
            "ConsumerGroupPartitionMetadataKey",
            "ConsumerGroupPartitionMetadataValue",
        ),
        5 => (
            "ConsumerGroupMemberMetadataKey",
            "ConsumerGroupMemberMetadataValue",
        ),
        6 => (
            "ConsumerGroupTargetAssignmentMetadataKey",
            "ConsumerGroupTargetAssignmentMetadataValue",
        ),
        7 => (
            "ConsumerGroupTargetAssignmentMemberKey",
            "ConsumerGroupTargetAssignmentMemberValue",
        ),
        8 => (
            "ConsumerGroupCurrentMemberAssignmentKey",
            "ConsumerGroupCurrentMemberAssignmentValue",
        ),
        9 => (
            "ShareGroupPartitionMetadataKey",
            "ShareGroupPartitionMetadataValue",
        ),
        10 => (
            "ShareGroupMemberMetadataKey",
            "ShareGroupMemberMetadataValue",
        ),
        11 => ("ShareGroupMetadataKey", "ShareGroupMetadataValue"),
        12 => (
            "ShareGroupTargetAssignmentMetadataKey",
            "ShareGroupTargetAssignmentMetadataValue",
        ),
        13 => (
            "ShareGroupTargetAssignmentMemberKey",
            "ShareGroupTargetAssignmentMemberValue",
        ),
        14 => (
            "ShareGroupCurrentMemberAssignmentKey",
            "ShareGroupCurrentMemberAssignmentValue",
        ),
        15 => (
            "ShareGroupStatePartitionMetadataKey",
            "ShareGroupStatePartitionMetadataValue",
        ),
        _ => return None,
    })
}

fn transaction_record(t: i16) -> Option<(&'static str, &'static str)> {
    (t == 0).then_some(("TransactionLogKey", "TransactionLogValue"))
}

/// `--offsets-decoder`: a `__consumer_offsets` record at `offset`.
pub fn offsets(key: Option<&[u8]>, value: Option<&[u8]>, offset: i64) -> Decoded {
    coordinator(key, value, offset, group_record, true)
}

/// `--transaction-log-decoder`: a `__transaction_state` record at `offset` (Kafka 4.x JSON form).
pub fn transaction_log(key: Option<&[u8]>, value: Option<&[u8]>, offset: i64) -> Decoded {
    coordinator(key, value, offset, transaction_record, false)
}

/// Why the key or value of an internal topic's record could not be read; the texts are the
/// ones Kafka's tools print.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordDecodeError {
    /// Shorter than the 2-byte version the dump tool's decoders read first.
    #[error("Could not read version from {part}'s buffer.")]
    NoVersion {
        /// `key` or `value`.
        part: &'static str,
    },
    /// Shorter than the 2-byte version, as the console formatters say it.
    #[error("the {part} is shorter than its 2-byte version")]
    ShorterThanVersion {
        /// `key` or `value`.
        part: &'static str,
    },
    /// The message after the version could not be read.
    #[error("Could not read record with version {version} from {part}'s buffer due to: {error}.")]
    Body {
        /// The version.
        version: i16,
        /// `key` or `value`.
        part: &'static str,
        /// What went wrong.
        error: DecodeError,
    },
    /// The message's layout is not in the table.
    #[error("{0}")]
    Schema(DecodeError),
}

enum CoordError {
    Unknown(i16),
    Read(RecordDecodeError),
}

fn read_message(
    name: &str,
    bytes: &[u8],
    version: i16,
    part: &'static str,
) -> Result<JValue, RecordDecodeError> {
    let schema = schema(name).map_err(RecordDecodeError::Schema)?;
    schema
        .read(bytes, version)
        .map(|(v, _)| v)
        .map_err(|error| RecordDecodeError::Body {
            version,
            part,
            error,
        })
}

fn coordinator(
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    offset: i64,
    lookup: Lookup,
    group: bool,
) -> Decoded {
    let Some(key) = key else {
        let msg = format!(
            "Failed to decode message at offset {offset} using the specified decoder (message had a missing key)"
        );
        return Decoded::error(Some(msg.clone()), None, msg);
    };
    let result = (|| {
        let (record_type, key_rest) =
            read_i16(key).ok_or(CoordError::Read(RecordDecodeError::NoVersion {
                part: "key",
            }))?;
        let (key_schema, value_schema) =
            lookup(record_type).ok_or(CoordError::Unknown(record_type))?;
        let key_json =
            read_message(key_schema, key_rest, record_type, "key").map_err(CoordError::Read)?;
        let key_json = JValue::Obj(vec![
            ("type".into(), JValue::Str(record_type.to_string())),
            ("data".into(), key_json),
        ]);
        let Some(value) = value else {
            return Ok((key_json, None));
        };
        let (version, value_rest) =
            read_i16(value).ok_or(CoordError::Read(RecordDecodeError::NoVersion {
                part: "value",
            }))?;
        let mut data =
            read_message(value_schema, value_rest, version, "value").map_err(CoordError::Read)?;
        if group && value_schema == "GroupMetadataValue" {
            decode_embedded_consumer_protocol(&mut data);
        }
        let value_json = JValue::Obj(vec![
            ("version".into(), JValue::Str(version.to_string())),
            ("data".into(), data),
        ]);
        Ok((key_json, Some(value_json)))
    })();
    match result {
        Ok((k, v)) => Decoded {
            key: Some(k.to_kafka_string()),
            payload: Some(
                v.as_ref()
                    .map_or_else(|| "<DELETE>".to_string(), JValue::to_kafka_string),
            ),
            json: serde_json::json!({
                "key": k.to_json(),
                "value": v.as_ref().map_or(serde_json::Value::Null, JValue::to_json),
            }),
            failed: false,
        },
        Err(CoordError::Unknown(t)) => {
            let msg = format!("Unknown record type {t} at offset {offset}, skipping.");
            Decoded::error(Some(msg.clone()), None, msg)
        }
        Err(CoordError::Read(e)) => {
            let msg = format!("Error at offset {offset}, skipping. {e}");
            Decoded::error(Some(msg.clone()), None, msg)
        }
    }
}

/// The console consumer's formatters for internal topics (`--formatter
/// org.apache.kafka.tools.consumer.<Name>`), as `ApiMessageFormatter` writes them on Kafka's 4.0
/// line at the reference commit (1eb7644, which the dump goldens come from):
/// `{"key":{"version":V,"data":{...}},"value":{"version":V,"data":{...}}}` (a null key or value
/// as `null`, a version the formatter does not read as `"data":"unknown"`), with no newline
/// after it. (Kafka later labels the key's version `"type"` and leaves unknown records out.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalFormatter {
    /// `OffsetsMessageFormatter`: `__consumer_offsets` offset commits; group metadata records are
    /// left out.
    Offsets,
    /// `GroupMetadataMessageFormatter`: `__consumer_offsets` group metadata (members'
    /// subscription and assignment as base64 bytes); offset commits are left out.
    GroupMetadata,
    /// `TransactionLogMessageFormatter`: `__transaction_state` records.
    TransactionLog,
}

impl InternalFormatter {
    /// The formatter of that simple class name.
    pub fn named(name: &str) -> Option<Self> {
        Some(match name {
            "OffsetsMessageFormatter" => Self::Offsets,
            "GroupMetadataMessageFormatter" => Self::GroupMetadata,
            "TransactionLogMessageFormatter" => Self::TransactionLog,
            _ => return None,
        })
    }

    /// The key and value schemas of the records this formatter prints, and the key schema of
    /// the topic's other record kind, which it leaves out.
    fn schemas(self) -> (&'static str, &'static str, Option<&'static str>) {
        match self {
            Self::Offsets => (
                "OffsetCommitKey",
                "OffsetCommitValue",
                Some("GroupMetadataKey"),
            ),
            Self::GroupMetadata => (
                "GroupMetadataKey",
                "GroupMetadataValue",
                Some("OffsetCommitKey"),
            ),
            Self::TransactionLog => ("TransactionLogKey", "TransactionLogValue", None),
        }
    }

    /// The JSON text of a record, `Ok(None)` for a record this formatter leaves out, or why the
    /// record's bytes could not be read (Kafka's formatter throws then). A key or value is read
    /// with the schema whose versions hold its 2-byte version prefix, as Kafka's formatters
    /// check `LOWEST_SUPPORTED_VERSION..=HIGHEST_SUPPORTED_VERSION`.
    pub fn format(
        self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Result<Option<String>, RecordDecodeError> {
        let (key_schema, value_schema, other_key_schema) = self.schemas();
        let key_schemas: &[&str] = match other_key_schema {
            Some(other) => &[key_schema, other],
            None => &[key_schema],
        };
        let key_json = match key
            .map(|k| read_versioned(k, key_schemas, "key"))
            .transpose()?
        {
            None => JValue::Null,
            Some((version, Some((0, data)))) => versioned(version, data),
            // The other record kind of the topic: read (its bytes may fail, as in Kafka), then
            // left out.
            Some((_, Some(_))) => return Ok(None),
            Some((version, None)) => versioned(version, JValue::Str("unknown".into())),
        };
        let value_json = match value
            .map(|v| read_versioned(v, &[value_schema], "value"))
            .transpose()?
        {
            None => JValue::Null,
            Some((version, Some((_, data)))) => versioned(version, data),
            Some((version, None)) => versioned(version, JValue::Str("unknown".into())),
        };
        let record = JValue::Obj(vec![("key".into(), key_json), ("value".into(), value_json)]);
        Ok(Some(record.to_kafka_string()))
    }
}

/// The 2-byte version at the start of a key or value (`what`), and the rest read with the first
/// of `schemas` that holds that version (its index and the data), or `None` when none does.
fn read_versioned(
    bytes: &[u8],
    schemas: &[&str],
    part: &'static str,
) -> Result<(i16, Option<(usize, JValue)>), RecordDecodeError> {
    let (version, rest) = read_i16(bytes).ok_or(RecordDecodeError::ShorterThanVersion { part })?;
    let found = schemas
        .iter()
        .enumerate()
        .find(|(_, name)| schema(name).is_ok_and(|s| s.supports(version)));
    match found {
        Some((i, name)) => Ok((version, Some((i, read_message(name, rest, version, part)?)))),
        None => Ok((version, None)),
    }
}

fn versioned(version: i16, data: JValue) -> JValue {
    JValue::Obj(vec![
        ("version".into(), JValue::Int(i64::from(version))),
        ("data".into(), data),
    ])
}

/// Kafka's `prepareGroupMetadataValue`: for groups of protocol type `consumer`, each member's
/// `subscription` and `assignment` bytes are replaced by their decoded form when they decode
/// (`int16 version` + ConsumerProtocolSubscription / ConsumerProtocolAssignment), else kept.
fn decode_embedded_consumer_protocol(data: &mut JValue) {
    if !matches!(data.get("protocolType"), Some(JValue::Str(t)) if t == "consumer") {
        return;
    }
    let JValue::Obj(fields) = data else { return };
    let Some((_, JValue::Arr(members))) = fields.iter_mut().find(|(k, _)| k == "members") else {
        return;
    };
    for member in members {
        for (field, schema_name) in [
            ("subscription", "ConsumerProtocolSubscription"),
            ("assignment", "ConsumerProtocolAssignment"),
        ] {
            let Some(JValue::Bytes(bytes)) = member.get(field) else {
                continue;
            };
            let decoded = read_i16(bytes).and_then(|(version, rest)| {
                let schema = schema(schema_name).ok()?;
                // Kafka reads newer versions of the consumer protocol with the newest format it
                // knows (its comment: "new versions cannot remove or reorder any of the existing
                // fields"); the generated reader itself refuses them, and so does this one.
                schema.read(rest, version).ok().map(|(v, _)| v)
            });
            if let Some(v) = decoded {
                member.replace(field, v);
            }
        }
    }
}

/// `MetadataRecordType` enum name from a schema name: `TopicRecord` → `TOPIC_RECORD`.
fn metadata_type_name(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

fn metadata_schema(api_key: i16) -> Option<&'static schema::Schema> {
    schema::registry()
        .values()
        .find(|s| s.kind == "metadata" && s.api_key == Some(api_key))
}

/// Why a `__cluster_metadata` record could not be read; the texts are Kafka's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataRecordError {
    /// The record has no value.
    #[error("null")]
    NullValue,
    /// The value ends inside a varint (a `BufferUnderflowException`).
    #[error("null")]
    Underflow,
    /// A varint above the int16 it stands for.
    #[error("Value for {what} was too large.")]
    TooLarge {
        /// The frame version, type or version.
        what: &'static str,
    },
    /// An unsigned varint whose 5th byte has its high bit set.
    #[error("Varint is too long, the most significant bit in the 5th byte is set, converted value: {value:x}")]
    VarintTooLong {
        /// The bits read.
        value: u32,
    },
    /// Frame version 0 (KRaft's 2.8 preview).
    #[error("Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported.")]
    FrameVersionZero,
    /// A frame version other than 0 and 1.
    #[error("Could not deserialize metadata record due to unknown frame version {0}(only frame version 1 is supported)")]
    UnknownFrameVersion(i16),
    /// A record type the table does not have.
    #[error("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {0}")]
    UnknownType(i16),
    /// The message of that type could not be read.
    #[error("Failed to deserialize record with type {0}")]
    Body(i16),
    /// Bytes after the message.
    #[error("Found {garbage} byte(s) of garbage after {api_key}")]
    Garbage {
        /// How many.
        garbage: usize,
        /// The record type.
        api_key: i16,
    },
}

fn uvarint(bytes: &[u8], pos: &mut usize, what: &'static str) -> Result<i16, MetadataRecordError> {
    let mut value: u32 = 0;
    for i in 0..5 {
        let Some(&b) = bytes.get(*pos) else {
            return Err(MetadataRecordError::Underflow);
        };
        *pos += 1;
        value |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return i16::try_from(value).map_err(|_| MetadataRecordError::TooLarge { what });
        }
    }
    Err(MetadataRecordError::VarintTooLong { value })
}

/// `--cluster-metadata-decoder`: a `__cluster_metadata` record value at `offset`. The payload
/// text is `{"type":"TOPIC_RECORD","version":0,"data":{...}}` or Kafka's skip message.
pub fn cluster_metadata(value: Option<&[u8]>, offset: i64) -> Decoded {
    let result = value
        .ok_or(MetadataRecordError::NullValue)
        .and_then(metadata_record)
        .map(|(schema, version, data)| {
            JValue::Obj(vec![
                ("type".into(), JValue::Str(metadata_type_name(&schema.name))),
                ("version".into(), JValue::Int(i64::from(version))),
                ("data".into(), data),
            ])
        });
    match result {
        Ok(v) => Decoded {
            key: None,
            payload: Some(v.to_kafka_string()),
            json: serde_json::json!({ "key": null, "value": v.to_json() }),
            failed: false,
        },
        Err(e) => {
            let msg = format!("Error at {offset}, skipping. {e}");
            Decoded::error(None, Some(msg.clone()), msg)
        }
    }
}

/// A `__cluster_metadata` record's value as Kafka's `MetadataRecordSerde` reads it: the frame
/// version (1), the record type and its version as unsigned varints, then the message, which
/// must fill the rest. Returns the message's layout, version and fields.
pub fn metadata_record(
    value: &[u8],
) -> Result<(&'static schema::Schema, i16, JValue), MetadataRecordError> {
    let mut pos = 0;
    let frame = uvarint(value, &mut pos, "frame version")?;
    if frame == 0 {
        return Err(MetadataRecordError::FrameVersionZero);
    } else if frame != 1 {
        return Err(MetadataRecordError::UnknownFrameVersion(frame));
    }
    let api_key = uvarint(value, &mut pos, "type")?;
    let version = uvarint(value, &mut pos, "version")?;
    let schema = metadata_schema(api_key).ok_or(MetadataRecordError::UnknownType(api_key))?;
    let rest = value.get(pos..).unwrap_or_default();
    let (data, used) = schema
        .read(rest, version)
        .map_err(|_: DecodeError| MetadataRecordError::Body(api_key))?;
    let garbage = rest.len() - used;
    if garbage > 0 {
        return Err(MetadataRecordError::Garbage { garbage, api_key });
    }
    Ok((schema, version, data))
}

/// A `__cluster_metadata` record's value as Kafka's `MetadataRecordSerde` writes it: frame
/// version 1, the type of the schema `name` and `version` as unsigned varints, then `data`
/// written at that version. The inverse of [`metadata_record`].
pub fn encode_metadata_record(
    name: &str,
    version: i16,
    data: &JValue,
) -> Result<Vec<u8>, schema::EncodeError> {
    let unknown = || schema::EncodeError::UnsupportedVersion {
        version,
        message: name.to_string(),
    };
    let schema = schema(name).map_err(|_| unknown())?;
    let api_key = schema
        .api_key
        .filter(|_| schema.kind == "metadata")
        .and_then(|k| u32::try_from(k).ok())
        .ok_or_else(unknown)?;
    let version_bits = u32::try_from(version).map_err(|_| unknown())?;
    let mut out = Vec::new();
    schema::write_uvarint(&mut out, 1);
    schema::write_uvarint(&mut out, api_key);
    schema::write_uvarint(&mut out, version_bits);
    out.extend_from_slice(&schema.write(data, version)?);
    Ok(out)
}

/// The JSON of a KRaft control record's value, and the label DumpLogSegments prints before it
/// (`SnapshotHeader`, `SnapshotFooter`, `KRaftVersion`, `KRaftVoters`, `LeaderChange:`);
/// `None` for types without one (transaction markers, unknown types).
pub fn kraft_control(
    control_type: ControlRecordType,
    value: Option<&[u8]>,
) -> Option<Result<(&'static str, JValue), DecodeError>> {
    let (label, name) = match control_type {
        ControlRecordType::SnapshotHeader => ("SnapshotHeader", "SnapshotHeaderRecord"),
        ControlRecordType::SnapshotFooter => ("SnapshotFooter", "SnapshotFooterRecord"),
        ControlRecordType::KraftVersion => ("KRaftVersion", "KRaftVersionRecord"),
        ControlRecordType::KraftVoters => ("KRaftVoters", "VotersRecord"),
        ControlRecordType::LeaderChange => ("LeaderChange:", "LeaderChangeMessage"),
        _ => return None,
    };
    Some((|| {
        let value = value.ok_or(DecodeError::NullValue)?;
        // Kafka reads these at the current version (0) and prints them at the version the
        // record names in its own `version` field.
        let (json, _) = schema(name)?.read(value, 0)?;
        Ok((label, json))
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s16(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&i16::try_from(s.len()).unwrap().to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    fn compact(out: &mut Vec<u8>, s: Option<&[u8]>) {
        match s {
            None => out.push(0),
            Some(b) => {
                out.push(u8::try_from(b.len() + 1).unwrap());
                out.extend_from_slice(b);
            }
        }
    }

    /// ConsumerProtocol.serializeSubscription(topics [foo], owned foo-0, generation 0, rack),
    /// version 3, and serializeAssignment([foo-0]), version 3.
    fn consumer_protocol() -> (Vec<u8>, Vec<u8>) {
        let mut sub = 3i16.to_be_bytes().to_vec();
        sub.extend_from_slice(&1i32.to_be_bytes());
        s16(&mut sub, "foo");
        sub.extend_from_slice(&(-1i32).to_be_bytes());
        sub.extend_from_slice(&1i32.to_be_bytes());
        s16(&mut sub, "foo");
        sub.extend_from_slice(&1i32.to_be_bytes());
        sub.extend_from_slice(&0i32.to_be_bytes());
        sub.extend_from_slice(&0i32.to_be_bytes());
        s16(&mut sub, "rack");
        let mut asg = 3i16.to_be_bytes().to_vec();
        asg.extend_from_slice(&1i32.to_be_bytes());
        s16(&mut asg, "foo");
        asg.extend_from_slice(&1i32.to_be_bytes());
        asg.extend_from_slice(&0i32.to_be_bytes());
        asg.extend_from_slice(&(-1i32).to_be_bytes());
        (sub, asg)
    }

    /// TransactionLogMessageFormatterTest's key and value (at any version prefix: the bytes are
    /// v0's key and v1's value).
    fn txn_key(version: i16) -> Vec<u8> {
        let mut k = version.to_be_bytes().to_vec();
        s16(&mut k, "TXNID");
        k
    }

    fn txn_value(version: i16) -> Vec<u8> {
        let mut v = version.to_be_bytes().to_vec();
        v.extend_from_slice(&100i64.to_be_bytes());
        v.extend_from_slice(&50i16.to_be_bytes());
        v.extend_from_slice(&500i32.to_be_bytes());
        v.push(4);
        v.push(1); // no partitions (compact array)
        v.extend_from_slice(&1000i64.to_be_bytes());
        v.extend_from_slice(&750i64.to_be_bytes());
        v.push(0); // tagged fields
        v
    }

    #[test]
    fn the_transaction_log_formatter_prints_kafkas_test_strings() {
        let value = r#"{"version":1,"data":{"producerId":100,"producerEpoch":50,"transactionTimeoutMs":500,"transactionStatus":4,"transactionPartitions":[],"transactionLastUpdateTimestampMs":1000,"transactionStartTimestampMs":750}}"#;
        let key = r#"{"version":0,"data":{"transactionalId":"TXNID"}}"#;
        for (k, v, expected) in [
            (
                Some(txn_key(10)),
                Some(txn_value(10)),
                r#"{"key":{"version":10,"data":"unknown"},"value":{"version":10,"data":"unknown"}}"#
                    .to_string(),
            ),
            (
                Some(txn_key(0)),
                Some(txn_value(1)),
                format!(r#"{{"key":{key},"value":{value}}}"#),
            ),
            (
                Some(txn_key(0)),
                Some(txn_value(5)),
                format!(r#"{{"key":{key},"value":{{"version":5,"data":"unknown"}}}}"#),
            ),
            (
                Some(txn_key(1)),
                Some(txn_value(1)),
                format!(r#"{{"key":{{"version":1,"data":"unknown"}},"value":{value}}}"#),
            ),
            (
                Some(txn_key(0)),
                None,
                format!(r#"{{"key":{key},"value":null}}"#),
            ),
            (
                None,
                Some(txn_value(1)),
                format!(r#"{{"key":null,"value":{value}}}"#),
            ),
            (None, None, r#"{"key":null,"value":null}"#.to_string()),
        ] {
            let printed = InternalFormatter::TransactionLog.format(k.as_deref(), v.as_deref());
            assert_eq!(printed, Ok(Some(expected)));
        }
    }

    proptest::proptest! {
        /// Random keys and values (a real record kind's version prefix, then junk) never make
        /// an internal-topic formatter panic: they print, leave out, or say what failed.
        #[test]
        fn internal_formatters_take_any_bytes(
            key_version in 0i16..4,
            value_version in 0i16..6,
            key in proptest::collection::vec(proptest::num::u8::ANY, 0..60),
            value in proptest::collection::vec(proptest::num::u8::ANY, 0..120),
        ) {
            let key: Vec<u8> = key_version.to_be_bytes().into_iter().chain(key).collect();
            let value: Vec<u8> = value_version.to_be_bytes().into_iter().chain(value).collect();
            for f in [
                InternalFormatter::Offsets,
                InternalFormatter::GroupMetadata,
                InternalFormatter::TransactionLog,
            ] {
                let _ = f.format(Some(&key), Some(&value));
                let _ = f.format(None, Some(&value));
                let _ = f.format(Some(&key), None);
            }
        }
    }

    #[test]
    fn offsets_and_group_metadata_formatters_print_records() {
        // OffsetMessageFormatterTest's v1 key and v3 value.
        let mut key = 1i16.to_be_bytes().to_vec();
        s16(&mut key, "group-id");
        s16(&mut key, "foo");
        key.extend_from_slice(&1i32.to_be_bytes());
        let mut value = 3i16.to_be_bytes().to_vec();
        value.extend_from_slice(&100i64.to_be_bytes());
        value.extend_from_slice(&10i32.to_be_bytes());
        s16(&mut value, "metadata");
        value.extend_from_slice(&1234i64.to_be_bytes());
        assert_eq!(
            InternalFormatter::Offsets.format(Some(&key), Some(&value)),
            Ok(Some(r#"{"key":{"version":1,"data":{"group":"group-id","topic":"foo","partition":1}},"value":{"version":3,"data":{"offset":100,"leaderEpoch":10,"metadata":"metadata","commitTimestamp":1234}}}"#.to_string()))
        );
        assert_eq!(
            InternalFormatter::GroupMetadata.format(Some(&key), Some(&value)),
            Ok(None)
        );
        // Group metadata: the members' subscription and assignment stay bytes (base64), where
        // the dump tool decodes them.
        let printed = InternalFormatter::GroupMetadata
            .format(
                Some(&group_key()),
                Some(&group_metadata_v4(b"Subscription", b"Assignment")),
            )
            .expect("reads")
            .expect("printed");
        assert!(printed.starts_with(r#"{"key":{"version":2,"data":{"group":"group"}},"value":{"version":4,"data":{"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","#), "{printed}");
        assert!(
            printed.ends_with(
                r#""subscription":"U3Vic2NyaXB0aW9u","assignment":"QXNzaWdubWVudA=="}]}}}"#
            ),
            "{printed}"
        );
    }

    #[test]
    fn offsets_formatter_versions_it_does_not_read_and_bytes_it_cannot() {
        let mut unknown_key = 7i16.to_be_bytes().to_vec();
        s16(&mut unknown_key, "group");
        let value = 9i16.to_be_bytes().to_vec();
        assert_eq!(
            InternalFormatter::Offsets.format(Some(&unknown_key), Some(&value)),
            Ok(Some(
                r#"{"key":{"version":7,"data":"unknown"},"value":{"version":9,"data":"unknown"}}"#
                    .to_string()
            ))
        );
        // Shorter than the version, or a group key cut short: errors, as Kafka's reads throw;
        // the group key is read before it is left out.
        let error = |f: InternalFormatter, key: Option<&[u8]>, value: Option<&[u8]>| {
            f.format(key, value).map_err(|e| e.to_string())
        };
        assert_eq!(
            error(InternalFormatter::Offsets, Some(&[0]), None),
            Err("the key is shorter than its 2-byte version".to_string())
        );
        assert_eq!(
            InternalFormatter::GroupMetadata.format(None, Some(&[0])),
            Err(RecordDecodeError::ShorterThanVersion { part: "value" })
        );
        assert_eq!(
            error(InternalFormatter::Offsets, Some(&[0, 2, 0, 9, b'g']), None),
            Err("Could not read record with version 2 from key's buffer due to: Error reading byte array of 9 byte(s): only 1 byte(s) available.".to_string())
        );
        assert_eq!(
            InternalFormatter::Offsets.format(Some(&group_key()), None),
            Ok(None)
        );
    }

    /// GroupMetadataValue v4 (flexible) with one member, as Kafka's DumpLogSegmentsTest builds it.
    fn group_metadata_v4(subscription: &[u8], assignment: &[u8]) -> Vec<u8> {
        let mut v = 4i16.to_be_bytes().to_vec();
        compact(&mut v, Some(b"consumer"));
        v.extend_from_slice(&10i32.to_be_bytes());
        compact(&mut v, Some(b"range"));
        compact(&mut v, Some(b"member"));
        v.extend_from_slice(&(-1i64).to_be_bytes());
        v.push(2); // one member
        compact(&mut v, Some(b"member"));
        compact(&mut v, Some(b"instance"));
        compact(&mut v, Some(b"client"));
        compact(&mut v, Some(b"host"));
        v.extend_from_slice(&1000i32.to_be_bytes());
        v.extend_from_slice(&100i32.to_be_bytes());
        compact(&mut v, Some(subscription));
        compact(&mut v, Some(assignment));
        v.push(0); // member tagged fields
        v.push(0); // message tagged fields
        v
    }

    fn group_key() -> Vec<u8> {
        let mut k = 2i16.to_be_bytes().to_vec();
        s16(&mut k, "group");
        k
    }

    #[test]
    fn group_metadata_with_the_consumer_protocol_decoded_as_in_kafkas_test() {
        let (sub, asg) = consumer_protocol();
        let d = offsets(Some(&group_key()), Some(&group_metadata_v4(&sub, &asg)), 0);
        assert_eq!(
            d.key.as_deref(),
            Some(r#"{"type":"2","data":{"group":"group"}}"#)
        );
        assert_eq!(
            d.payload.as_deref(),
            Some(
                r#"{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":null}}]}}"#
            )
        );
        // Malformed embedded bytes stay base64.
        let d = offsets(
            Some(&group_key()),
            Some(&group_metadata_v4(b"Subscription", b"Assignment")),
            0,
        );
        assert!(d
            .payload
            .unwrap_or_default()
            .contains(r#""subscription":"U3Vic2NyaXB0aW9u","assignment":"QXNzaWdubWVudA==""#));
    }

    #[test]
    fn consumer_group_records_tombstones_and_errors_as_in_kafkas_test() {
        let mut key = 3i16.to_be_bytes().to_vec();
        s16(&mut key, "group");
        let mut value = 0i16.to_be_bytes().to_vec();
        value.extend_from_slice(&10i32.to_be_bytes());
        value.push(0);
        let d = offsets(Some(&key), Some(&value), 0);
        assert_eq!(
            d.key.as_deref(),
            Some(r#"{"type":"3","data":{"groupId":"group"}}"#)
        );
        assert_eq!(
            d.payload.as_deref(),
            Some(r#"{"version":"0","data":{"epoch":10}}"#)
        );
        let d = offsets(Some(&key), None, 0);
        assert_eq!(d.payload.as_deref(), Some("<DELETE>"));
        let mut unknown = i16::MAX.to_be_bytes().to_vec();
        unknown.extend_from_slice(key.get(2..).unwrap_or_default());
        let d = offsets(Some(&unknown), Some(&value), 0);
        assert_eq!(
            d.key.as_deref(),
            Some("Unknown record type 32767 at offset 0, skipping.")
        );
        assert_eq!(d.payload, None);
        // A tagged field claiming more bytes than there are.
        let mut bad = 0i16.to_be_bytes().to_vec();
        bad.extend_from_slice(&10i32.to_be_bytes());
        bad.extend_from_slice(&[1, 0, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00]);
        let d = offsets(Some(&key), Some(&bad), 0);
        assert_eq!(
            d.key.as_deref(),
            Some("Error at offset 0, skipping. Could not read record with version 0 from value's buffer due to: Error reading byte array of 536870911 byte(s): only 1 byte(s) available.")
        );
    }

    #[test]
    fn kraft_control_records() {
        // SnapshotHeaderRecord v0: version, lastContainedLogTimestamp, no tagged fields.
        let mut v = 0i16.to_be_bytes().to_vec();
        v.extend_from_slice(&10_000i64.to_be_bytes());
        v.push(0);
        let (label, json) = kraft_control(ControlRecordType::SnapshotHeader, Some(&v))
            .unwrap()
            .unwrap();
        assert_eq!(label, "SnapshotHeader");
        assert_eq!(
            json.to_kafka_string(),
            r#"{"version":0,"lastContainedLogTimestamp":10000}"#
        );
        // LeaderChangeMessage v0: leader 1, voters [1, 2], granting [1].
        let mut v = 0i16.to_be_bytes().to_vec();
        v.extend_from_slice(&1i32.to_be_bytes());
        v.push(3);
        for id in [1i32, 2] {
            v.extend_from_slice(&id.to_be_bytes());
            v.push(0);
        }
        v.push(2);
        v.extend_from_slice(&1i32.to_be_bytes());
        v.push(0);
        v.push(0);
        let (label, json) = kraft_control(ControlRecordType::LeaderChange, Some(&v))
            .unwrap()
            .unwrap();
        assert_eq!(label, "LeaderChange:");
        assert_eq!(
            json.to_kafka_string(),
            r#"{"version":0,"leaderId":1,"voters":[{"voterId":1},{"voterId":2}],"grantingVoters":[{"voterId":1}]}"#
        );
        assert!(kraft_control(ControlRecordType::Commit, Some(&v)).is_none());
        assert!(
            kraft_control(ControlRecordType::KraftVoters, Some(&[0, 0, 9]))
                .unwrap()
                .is_err()
        );
    }

    #[test]
    fn metadata_type_names() {
        assert_eq!(metadata_type_name("TopicRecord"), "TOPIC_RECORD");
        assert_eq!(
            metadata_type_name("ZkMigrationStateRecord"),
            "ZK_MIGRATION_STATE_RECORD"
        );
    }

    #[test]
    fn unknown_and_broken_coordinator_records_are_skipped() {
        let d = offsets(Some(&[0, 99]), Some(&[0, 0]), 7);
        assert_eq!(
            d.key.as_deref(),
            Some("Unknown record type 99 at offset 7, skipping.")
        );
        assert!(d.failed);
        let d = offsets(Some(&[0]), None, 3);
        assert_eq!(
            d.key.as_deref(),
            Some("Error at offset 3, skipping. Could not read version from key's buffer.")
        );
        let d = cluster_metadata(Some(&[1, 99, 0]), 5);
        assert!(d
            .payload
            .unwrap_or_default()
            .starts_with("Error at 5, skipping."));
    }
}
