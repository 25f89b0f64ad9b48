//! An interpreter for Kafka's message schemas (the JSON files Kafka generates its message classes
//! from), enough to read any of them at any version and print it as Kafka's generated
//! `*JsonConverter.write` does.
//!
//! Rules followed (Kafka's `MessageGenerator`): a field exists in a version when its `versions`
//! range holds it; flexible versions use compact (unsigned varint length + 1) strings, bytes and
//! arrays and end every struct with tagged fields; a tagged field is read from that section and,
//! as the JSON converter does, printed only when it differs from its default. JSON names are the
//! field names with a lower-case first letter; UUIDs print as URL-safe base64 without padding.

use std::collections::HashMap;
use std::sync::OnceLock;

use base64::Engine as _;

use super::jvalue::JValue;

/// Why bytes could not be read as a message; the text follows Kafka's exceptions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, DecodeError> {
    Err(DecodeError(msg.into()))
}

/// An inclusive version range; empty when `lo > hi` (Kafka's `none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Versions {
    lo: i32,
    hi: i32,
}

impl Versions {
    const NONE: Versions = Versions { lo: 1, hi: 0 };

    fn parse(text: Option<&str>) -> Versions {
        let Some(text) = text.map(str::trim) else {
            return Versions::NONE;
        };
        if text == "none" || text.is_empty() {
            return Versions::NONE;
        }
        if let Some(lo) = text.strip_suffix('+') {
            return Versions {
                lo: lo.trim().parse().unwrap_or(0),
                hi: i32::from(i16::MAX),
            };
        }
        if let Some((lo, hi)) = text.split_once('-') {
            return Versions {
                lo: lo.trim().parse().unwrap_or(0),
                hi: hi.trim().parse().unwrap_or(-1),
            };
        }
        match text.parse() {
            Ok(v) => Versions { lo: v, hi: v },
            Err(_) => Versions::NONE,
        }
    }

    fn contains(self, v: i16) -> bool {
        let v = i32::from(v);
        self.lo <= v && v <= self.hi
    }
}

#[derive(Debug, Clone)]
enum Ty {
    Bool,
    Int8,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Int64,
    Float64,
    Str,
    Bytes,
    Uuid,
    Struct(String),
    Array(Box<Ty>),
}

impl Ty {
    fn parse(text: &str) -> Ty {
        if let Some(inner) = text.strip_prefix("[]") {
            return Ty::Array(Box::new(Ty::parse(inner)));
        }
        match text {
            "bool" => Ty::Bool,
            "int8" => Ty::Int8,
            "int16" => Ty::Int16,
            "uint16" => Ty::Uint16,
            "int32" => Ty::Int32,
            "uint32" => Ty::Uint32,
            "int64" => Ty::Int64,
            "float64" => Ty::Float64,
            "string" => Ty::Str,
            "bytes" | "records" => Ty::Bytes,
            "uuid" => Ty::Uuid,
            other => Ty::Struct(other.to_string()),
        }
    }
}

#[derive(Debug, Clone)]
struct Field {
    json_name: String,
    ty: Ty,
    versions: Versions,
    nullable: Versions,
    tagged: Versions,
    tag: Option<u32>,
    default: Option<serde_json::Value>,
    /// Inline struct fields (for `Foo` / `[]Foo` types declared in place).
    fields: Vec<Field>,
}

/// One message schema: its fields, common structs and versions.
#[derive(Debug, Clone)]
pub struct Schema {
    /// The message name (`GroupMetadataValue`).
    pub name: String,
    /// `apiKey` when the schema has one (metadata records, coordinator keys).
    pub api_key: Option<i16>,
    /// The schema's `type`: `metadata`, `data`, `coordinator-key`, ...
    pub kind: String,
    valid: Versions,
    flexible: Versions,
    fields: Vec<Field>,
    common: HashMap<String, Vec<Field>>,
}

/// Removes `//` comments (outside strings) from Kafka's commented JSON.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    out.push('\n');
                    break;
                }
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn parse_fields(list: Option<&serde_json::Value>) -> Vec<Field> {
    let Some(serde_json::Value::Array(items)) = list else {
        return Vec::new();
    };
    items
        .iter()
        .map(|f| {
            let s = |k: &str| f.get(k).and_then(|v| v.as_str());
            let tag = f.get("tag").and_then(|t| match t {
                serde_json::Value::Number(n) => n.as_u64().map(|n| n as u32),
                serde_json::Value::String(s) => s.parse().ok(),
                _ => None,
            });
            Field {
                json_name: lower_first(s("name").unwrap_or_default()),
                ty: Ty::parse(s("type").unwrap_or("int8")),
                versions: Versions::parse(s("versions")),
                nullable: Versions::parse(s("nullableVersions")),
                tagged: Versions::parse(s("taggedVersions")),
                tag,
                default: f.get("default").cloned(),
                fields: parse_fields(f.get("fields")),
            }
        })
        .collect()
}

impl Schema {
    /// Parses one schema file (Kafka's JSON with `//` comments).
    pub fn parse(text: &str) -> Result<Schema, DecodeError> {
        let v: serde_json::Value = serde_json::from_str(&strip_comments(text))
            .map_err(|e| DecodeError(format!("bad schema: {e}")))?;
        let name = v
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or_default()
            .to_string();
        let mut common = HashMap::new();
        if let Some(serde_json::Value::Array(structs)) = v.get("commonStructs") {
            for s in structs {
                if let Some(n) = s.get("name").and_then(|n| n.as_str()) {
                    common.insert(n.to_string(), parse_fields(s.get("fields")));
                }
            }
        }
        Ok(Schema {
            name,
            api_key: v
                .get("apiKey")
                .and_then(|k| k.as_i64())
                .and_then(|k| i16::try_from(k).ok()),
            kind: v
                .get("type")
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_string(),
            valid: Versions::parse(v.get("validVersions").and_then(|s| s.as_str())),
            flexible: Versions::parse(v.get("flexibleVersions").and_then(|s| s.as_str())),
            fields: parse_fields(v.get("fields")),
            common,
        })
    }

    /// The highest version this schema knows.
    pub fn highest_version(&self) -> i16 {
        i16::try_from(self.valid.hi).unwrap_or(i16::MAX)
    }

    /// Reads the message at `version` from the start of `bytes`; returns the JSON form and the
    /// number of bytes read. Versions above the highest known one fail as in Kafka
    /// (`Can't read version V of Name`).
    pub fn read(&self, bytes: &[u8], version: i16) -> Result<(JValue, usize), DecodeError> {
        if !self.valid.contains(version) {
            return err(format!("Can't read version {version} of {}", self.name));
        }
        let mut r = Reader { buf: bytes, pos: 0 };
        let flexible = self.flexible.contains(version);
        let value = self.read_struct(&mut r, &self.fields, version, flexible)?;
        Ok((value, r.pos))
    }

    fn struct_fields<'a>(&'a self, field: &'a Field, name: &str) -> &'a [Field] {
        if field.fields.is_empty() {
            self.common.get(name).map(Vec::as_slice).unwrap_or(&[])
        } else {
            &field.fields
        }
    }

    fn read_struct(
        &self,
        r: &mut Reader<'_>,
        fields: &[Field],
        version: i16,
        flexible: bool,
    ) -> Result<JValue, DecodeError> {
        let mut values: Vec<Option<JValue>> = vec![None; fields.len()];
        for (slot, field) in values.iter_mut().zip(fields) {
            if field.tagged.contains(version) || !field.versions.contains(version) {
                continue;
            }
            *slot = Some(self.read_field(r, field, &field.ty, version, flexible)?);
        }
        if flexible {
            let count = r.uvarint()?;
            for _ in 0..count {
                let tag = r.uvarint()?;
                let size = r.uvarint()? as usize;
                let data = r.array(size)?;
                let found = fields
                    .iter()
                    .position(|f| f.tag == Some(tag) && f.tagged.contains(version));
                if let (Some(i), Some(field)) = (found, found.and_then(|i| fields.get(i))) {
                    let mut sub = Reader { buf: data, pos: 0 };
                    let v = self.read_field(&mut sub, field, &field.ty, version, flexible)?;
                    if !is_default(field, &v) {
                        if let Some(slot) = values.get_mut(i) {
                            *slot = Some(v);
                        }
                    }
                }
            }
        }
        Ok(JValue::Obj(
            fields
                .iter()
                .zip(values)
                .filter_map(|(f, v)| v.map(|v| (f.json_name.clone(), v)))
                .collect(),
        ))
    }

    fn read_field(
        &self,
        r: &mut Reader<'_>,
        field: &Field,
        ty: &Ty,
        version: i16,
        flexible: bool,
    ) -> Result<JValue, DecodeError> {
        let nullable = field.nullable.contains(version);
        let name = &field.json_name;
        Ok(match ty {
            Ty::Bool => JValue::Bool(r.fixed::<1>()?[0] != 0),
            Ty::Int8 => JValue::Int(i64::from(i8::from_be_bytes(r.fixed()?))),
            Ty::Int16 => JValue::Int(i64::from(i16::from_be_bytes(r.fixed()?))),
            Ty::Uint16 => JValue::Int(i64::from(u16::from_be_bytes(r.fixed()?))),
            Ty::Int32 => JValue::Int(i64::from(i32::from_be_bytes(r.fixed()?))),
            Ty::Uint32 => JValue::Int(i64::from(u32::from_be_bytes(r.fixed()?))),
            Ty::Int64 => JValue::Int(i64::from_be_bytes(r.fixed()?)),
            Ty::Float64 => JValue::Float(f64::from_be_bytes(r.fixed()?)),
            Ty::Uuid => {
                let b: [u8; 16] = r.fixed()?;
                JValue::Str(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b))
            }
            Ty::Str => {
                let len = if flexible {
                    i64::from(r.uvarint()?) - 1
                } else {
                    i64::from(i16::from_be_bytes(r.fixed()?))
                };
                if len < 0 {
                    return null_or(nullable, name);
                }
                if len > 0x7fff {
                    return err(format!("string field {name} had invalid length {len}"));
                }
                JValue::Str(String::from_utf8_lossy(r.array(len as usize)?).into_owned())
            }
            Ty::Bytes => {
                let len = if flexible {
                    i64::from(r.uvarint()?) - 1
                } else {
                    i64::from(i32::from_be_bytes(r.fixed()?))
                };
                if len < 0 {
                    return null_or(nullable, name);
                }
                JValue::Bytes(r.array(len as usize)?.to_vec())
            }
            Ty::Struct(sname) => {
                // A nullable struct field is preceded by an int8 presence marker.
                if nullable && i8::from_be_bytes(r.fixed()?) < 0 {
                    return Ok(JValue::Null);
                }
                self.read_struct(r, self.struct_fields(field, sname), version, flexible)?
            }
            Ty::Array(inner) => {
                let len = if flexible {
                    i64::from(r.uvarint()?) - 1
                } else {
                    i64::from(i32::from_be_bytes(r.fixed()?))
                };
                if len < 0 {
                    return null_or(nullable, name);
                }
                let remaining = r.buf.len().saturating_sub(r.pos);
                if len as usize > remaining {
                    return err(format!(
                        "Tried to allocate a collection of size {len}, but there are only {remaining} bytes remaining."
                    ));
                }
                let mut items = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    let item = match inner.as_ref() {
                        Ty::Struct(sname) => self.read_struct(
                            r,
                            self.struct_fields(field, sname),
                            version,
                            flexible,
                        )?,
                        other => {
                            // Array elements are never null.
                            let plain = Field {
                                nullable: Versions::NONE,
                                ..field.clone()
                            };
                            self.read_field(r, &plain, other, version, flexible)?
                        }
                    };
                    items.push(item);
                }
                JValue::Arr(items)
            }
        })
    }
}

fn null_or(nullable: bool, name: &str) -> Result<JValue, DecodeError> {
    if nullable {
        Ok(JValue::Null)
    } else {
        err(format!("non-nullable field {name} was serialized as null"))
    }
}

/// Whether a tagged field's value equals its declared default (then the converter omits it).
fn is_default(field: &Field, v: &JValue) -> bool {
    let d = match &field.default {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        Some(serde_json::Value::Bool(b)) => b.to_string(),
        Some(serde_json::Value::Null) => "null".into(),
        _ => String::new(),
    };
    match v {
        JValue::Null => d == "null" || d.is_empty(),
        JValue::Bool(b) => *b == (d == "true"),
        JValue::Int(n) => {
            let parsed = if let Some(hex) = d.strip_prefix("0x") {
                i64::from_str_radix(hex, 16).ok()
            } else {
                d.parse::<i64>().ok()
            };
            *n == parsed.unwrap_or(0)
        }
        JValue::Float(f) => *f == d.parse::<f64>().unwrap_or(0.0),
        JValue::Str(s) => d != "null" && *s == d,
        JValue::Bytes(b) => b.is_empty() && d != "null",
        JValue::Arr(items) => items.is_empty(),
        JValue::Obj(_) => false,
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.buf.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            // A Java ByteBuffer underflow carries no message.
            None => err("null"),
        }
    }

    /// Kafka's `ByteBufferAccessor.readArray`, with its message.
    fn array(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let remaining = self.buf.len().saturating_sub(self.pos);
        if n > remaining {
            return err(format!(
                "Error reading byte array of {n} byte(s): only {remaining} byte(s) available"
            ));
        }
        self.take(n)
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn uvarint(&mut self) -> Result<u32, DecodeError> {
        let mut value: u32 = 0;
        for i in 0..5 {
            let b = self.fixed::<1>()?[0];
            value |= u32::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        err(format!(
            "Varint is too long, the most significant bit in the 5th byte is set, converted value: {value:x}"
        ))
    }
}

macro_rules! schemas {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("schemas/", $name, ".json")))),*]
    };
}

/// Every embedded schema file (copied unchanged from Apache Kafka 4.0, Apache-2.0).
const SOURCES: &[(&str, &str)] = schemas!(
    "AbortTransactionRecord",
    "AccessControlEntryRecord",
    "BeginTransactionRecord",
    "BrokerRegistrationChangeRecord",
    "ClientQuotaRecord",
    "ConfigRecord",
    "ConsumerGroupCurrentMemberAssignmentKey",
    "ConsumerGroupCurrentMemberAssignmentValue",
    "ConsumerGroupMemberMetadataKey",
    "ConsumerGroupMemberMetadataValue",
    "ConsumerGroupMetadataKey",
    "ConsumerGroupMetadataValue",
    "ConsumerGroupPartitionMetadataKey",
    "ConsumerGroupPartitionMetadataValue",
    "ConsumerGroupTargetAssignmentMemberKey",
    "ConsumerGroupTargetAssignmentMemberValue",
    "ConsumerGroupTargetAssignmentMetadataKey",
    "ConsumerGroupTargetAssignmentMetadataValue",
    "ConsumerProtocolAssignment",
    "ConsumerProtocolSubscription",
    "DelegationTokenRecord",
    "EndTransactionRecord",
    "FeatureLevelRecord",
    "FenceBrokerRecord",
    "GroupMetadataKey",
    "GroupMetadataValue",
    "KRaftVersionRecord",
    "LeaderChangeMessage",
    "NoOpRecord",
    "OffsetCommitKey",
    "OffsetCommitValue",
    "PartitionChangeRecord",
    "PartitionRecord",
    "ProducerIdsRecord",
    "RegisterBrokerRecord",
    "RegisterControllerRecord",
    "RemoveAccessControlEntryRecord",
    "RemoveDelegationTokenRecord",
    "RemoveTopicRecord",
    "RemoveUserScramCredentialRecord",
    "ShareGroupCurrentMemberAssignmentKey",
    "ShareGroupCurrentMemberAssignmentValue",
    "ShareGroupMemberMetadataKey",
    "ShareGroupMemberMetadataValue",
    "ShareGroupMetadataKey",
    "ShareGroupMetadataValue",
    "ShareGroupPartitionMetadataKey",
    "ShareGroupPartitionMetadataValue",
    "ShareGroupStatePartitionMetadataKey",
    "ShareGroupStatePartitionMetadataValue",
    "ShareGroupTargetAssignmentMemberKey",
    "ShareGroupTargetAssignmentMemberValue",
    "ShareGroupTargetAssignmentMetadataKey",
    "ShareGroupTargetAssignmentMetadataValue",
    "SnapshotFooterRecord",
    "SnapshotHeaderRecord",
    "TopicRecord",
    "TransactionLogKey",
    "TransactionLogValue",
    "UnfenceBrokerRecord",
    "UnregisterBrokerRecord",
    "UserScramCredentialRecord",
    "VotersRecord",
    "ZkMigrationRecord",
);

/// The embedded schemas, parsed once, by message name.
pub fn registry() -> &'static HashMap<String, Schema> {
    static REGISTRY: OnceLock<HashMap<String, Schema>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        SOURCES
            .iter()
            .filter_map(|(_, text)| Schema::parse(text).ok())
            .map(|s| (s.name.clone(), s))
            .collect()
    })
}

/// The schema named `name` (`"GroupMetadataValue"`).
pub fn schema(name: &str) -> Result<&'static Schema, DecodeError> {
    registry()
        .get(name)
        .ok_or_else(|| DecodeError(format!("no schema for {name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_schema_parses() {
        assert_eq!(registry().len(), SOURCES.len());
    }

    #[test]
    fn versions_parse() {
        assert!(Versions::parse(Some("0+")).contains(7));
        assert!(!Versions::parse(Some("none")).contains(0));
        assert!(Versions::parse(Some("1-3")).contains(3));
        assert!(!Versions::parse(Some("1-3")).contains(4));
    }
}
