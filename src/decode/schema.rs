//! An interpreter for message layouts (kafkit's table in `messages.txt`: for each message of
//! Kafka's internal topics, its versions and per field the type and version ranges Kafka's
//! protocol gives it), enough to read any of them at any version and print it as Kafka's
//! generated `*JsonConverter.write` does.
//!
//! Rules followed (Kafka's `MessageGenerator`): a field exists in a version when its `versions`
//! range holds it; flexible versions use compact (unsigned varint length + 1) strings, bytes and
//! arrays and end every struct with tagged fields; a tagged field is read from that section and,
//! as the JSON converter does, printed only when it differs from its default. JSON names are the
//! field names with a lower-case first letter; UUIDs print as URL-safe base64 without padding.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::jvalue::JValue;

/// Why bytes could not be read as a message; the texts are Kafka's exception messages, which
/// the dump tool prints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The bytes ran out inside a field (a Java `BufferUnderflowException`, whose message is
    /// `null`).
    #[error("null")]
    Underflow,
    /// A bytes, string or tagged field longer than the bytes left (`ByteBufferAccessor`).
    #[error("Error reading byte array of {needed} byte(s): only {remaining} byte(s) available")]
    ByteArrayTooShort {
        /// The field's length.
        needed: usize,
        /// The bytes left.
        remaining: usize,
    },
    /// An unsigned varint whose 5th byte has its high bit set.
    #[error("Varint is too long, the most significant bit in the 5th byte is set, converted value: {value:x}")]
    VarintTooLong {
        /// The bits read.
        value: u32,
    },
    /// A version the message does not have.
    #[error("Can't read version {version} of {message}")]
    UnsupportedVersion {
        /// The version.
        version: i16,
        /// The message.
        message: String,
    },
    /// A string longer than a string can be.
    #[error("string field {field} had invalid length {length}")]
    InvalidStringLength {
        /// The field.
        field: String,
        /// Its length as stored.
        length: i64,
    },
    /// Null in a field that cannot be null.
    #[error("non-nullable field {field} was serialized as null")]
    NullField {
        /// The field.
        field: String,
    },
    /// An array count larger than the bytes left.
    #[error("Tried to allocate a collection of size {size}, but there are only {remaining} bytes remaining.")]
    CollectionTooLarge {
        /// The count as stored.
        size: i64,
        /// The bytes left.
        remaining: usize,
    },
    /// A record whose value is null where a message was expected.
    #[error("null value")]
    NullValue,
    /// No message of that name in the layout table.
    #[error("no schema for {0}")]
    NoSchema(String),
    /// A line of the layout table that does not parse.
    #[error("bad layout table line {line:?}: {why}")]
    BadLayout {
        /// The line.
        line: String,
        /// What is wrong with it.
        why: String,
    },
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

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// One line of the layout table: its nesting depth (two spaces a level) and its text.
type Line<'a> = (usize, &'a str);

fn bad(line: &str, why: &str) -> DecodeError {
    DecodeError::BadLayout {
        line: line.to_string(),
        why: why.to_string(),
    }
}

/// `key=value` words of a line, after its leading words.
fn words<'a>(rest: &'a str, line: &str) -> Result<HashMap<&'a str, &'a str>, DecodeError> {
    rest.split_whitespace()
        .map(|w| {
            w.split_once('=')
                .ok_or_else(|| bad(line, "expected key=value"))
        })
        .collect()
}

/// A field line: `Name type v=<versions> [null=<v>] [tagged=<v>] [tag=<n>] [default=<json>]`.
fn parse_field(text: &str) -> Result<Field, DecodeError> {
    let (head, default) = match text.split_once(" default=") {
        Some((head, json)) => (
            head,
            Some(serde_json::from_str(json).map_err(|e| bad(text, &e.to_string()))?),
        ),
        None => (text, None),
    };
    let mut parts = head.splitn(3, ' ');
    let name = parts.next().ok_or_else(|| bad(text, "no name"))?;
    let ty = parts.next().ok_or_else(|| bad(text, "no type"))?;
    let kv = words(parts.next().unwrap_or_default(), text)?;
    Ok(Field {
        json_name: lower_first(name),
        ty: Ty::parse(ty),
        versions: Versions::parse(kv.get("v").copied()),
        nullable: Versions::parse(kv.get("null").copied()),
        tagged: Versions::parse(kv.get("tagged").copied()),
        tag: kv.get("tag").and_then(|t| t.parse().ok()),
        default,
        fields: Vec::new(),
    })
}

/// The fields at `depth` from line `*i` on, each with the deeper lines after it as its own
/// fields; stops at a shallower line or a `struct` line.
fn parse_fields(
    lines: &[Line<'_>],
    i: &mut usize,
    depth: usize,
) -> Result<Vec<Field>, DecodeError> {
    let mut fields = Vec::new();
    while let Some(&(d, text)) = lines.get(*i) {
        if d != depth || text.starts_with("struct ") {
            break;
        }
        let mut field = parse_field(text)?;
        *i += 1;
        field.fields = parse_fields(lines, i, depth + 1)?;
        fields.push(field);
    }
    Ok(fields)
}

/// Parses the layout table: `message` lines at depth 0 with their fields below, and the
/// message's shared structures as `struct <Name>` lines at depth 1.
fn parse_table(text: &str) -> Result<Vec<Schema>, DecodeError> {
    let lines: Vec<Line<'_>> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let trimmed = l.trim_start();
            ((l.len() - trimmed.len()) / 2, trimmed.trim_end())
        })
        .collect();
    let mut schemas = Vec::new();
    let mut i = 0;
    while let Some(&(depth, text)) = lines.get(i) {
        let rest = text
            .strip_prefix("message ")
            .filter(|_| depth == 0)
            .ok_or_else(|| bad(text, "expected a message line"))?;
        let (name, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let kv = words(rest, text)?;
        i += 1;
        let fields = parse_fields(&lines, &mut i, 1)?;
        let mut common = HashMap::new();
        while let Some(&(1, line)) = lines.get(i) {
            let Some(struct_name) = line.strip_prefix("struct ") else {
                return Err(bad(line, "expected a struct line"));
            };
            i += 1;
            common.insert(struct_name.to_string(), parse_fields(&lines, &mut i, 2)?);
        }
        schemas.push(Schema {
            name: name.to_string(),
            api_key: kv.get("key").and_then(|k| k.parse().ok()),
            kind: kv.get("kind").copied().unwrap_or_default().to_string(),
            valid: Versions::parse(kv.get("valid").copied()),
            flexible: Versions::parse(kv.get("flexible").copied()),
            fields,
            common,
        });
    }
    Ok(schemas)
}

impl Schema {
    /// Whether `version` is one of this schema's versions.
    pub fn supports(&self, version: i16) -> bool {
        self.valid.contains(version)
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
            return Err(DecodeError::UnsupportedVersion {
                version,
                message: self.name.clone(),
            });
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
            Ty::Uuid => JValue::Str(crate::common::Uuid(r.fixed()?).to_string()),
            Ty::Str => {
                let len = if flexible {
                    i64::from(r.uvarint()?) - 1
                } else {
                    i64::from(i16::from_be_bytes(r.fixed()?))
                };
                // A negative length is null.
                let Ok(size) = usize::try_from(len) else {
                    return null_or(nullable, name);
                };
                if len > 0x7fff {
                    return Err(DecodeError::InvalidStringLength {
                        field: name.clone(),
                        length: len,
                    });
                }
                JValue::Str(crate::java::utf8_string(r.array(size)?).into_owned())
            }
            Ty::Bytes => {
                let len = if flexible {
                    i64::from(r.uvarint()?) - 1
                } else {
                    i64::from(i32::from_be_bytes(r.fixed()?))
                };
                let Ok(size) = usize::try_from(len) else {
                    return null_or(nullable, name);
                };
                JValue::Bytes(r.array(size)?.to_vec())
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
                let Ok(size) = usize::try_from(len) else {
                    return null_or(nullable, name);
                };
                let remaining = r.buf.len().saturating_sub(r.pos);
                if size > remaining {
                    return Err(DecodeError::CollectionTooLarge {
                        size: len,
                        remaining,
                    });
                }
                let mut items = Vec::with_capacity(size);
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

/// Why a value could not be written as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A version the message does not have.
    #[error("Can't write version {version} of {message}")]
    UnsupportedVersion {
        /// The version.
        version: i16,
        /// The message.
        message: String,
    },
    /// A field's value does not fit its type (or is null where it cannot be).
    #[error("field {field} of {message}: {why}")]
    Field {
        /// The message.
        message: String,
        /// The field's JSON name.
        field: String,
        /// What is wrong.
        why: &'static str,
    },
}

impl Schema {
    /// Writes `value` (an object with the JSON names [`Self::read`] gives) as the message at
    /// `version`, as Kafka's generated `write` does: fields absent from `value` are written at
    /// their defaults, tagged fields only when they differ from theirs, in tag order.
    pub fn write(&self, value: &JValue, version: i16) -> Result<Vec<u8>, EncodeError> {
        if !self.valid.contains(version) {
            return Err(EncodeError::UnsupportedVersion {
                version,
                message: self.name.clone(),
            });
        }
        let mut out = Vec::new();
        let flexible = self.flexible.contains(version);
        self.write_struct(&mut out, &self.fields, value, version, flexible)?;
        Ok(out)
    }

    fn field_error(&self, field: &Field, why: &'static str) -> EncodeError {
        EncodeError::Field {
            message: self.name.clone(),
            field: field.json_name.clone(),
            why,
        }
    }

    fn write_struct(
        &self,
        out: &mut Vec<u8>,
        fields: &[Field],
        value: &JValue,
        version: i16,
        flexible: bool,
    ) -> Result<(), EncodeError> {
        let mut tagged: Vec<(u32, Vec<u8>)> = Vec::new();
        for field in fields {
            if !field.versions.contains(version) {
                continue;
            }
            let v = value.get(&field.json_name).cloned();
            if field.tagged.contains(version) {
                let Some(v) = v.filter(|v| !is_default(field, v)) else {
                    continue;
                };
                let tag = field
                    .tag
                    .ok_or_else(|| self.field_error(field, "a tagged field without a tag"))?;
                let mut data = Vec::new();
                self.write_field(&mut data, field, &field.ty, &v, version, flexible)?;
                tagged.push((tag, data));
                continue;
            }
            let v = match v {
                Some(v) => v,
                None => default_value(field),
            };
            self.write_field(out, field, &field.ty, &v, version, flexible)?;
        }
        if flexible {
            tagged.sort_by_key(|(tag, _)| *tag);
            write_uvarint(out, len_u32(tagged.len()));
            for (tag, data) in tagged {
                write_uvarint(out, tag);
                write_uvarint(out, len_u32(data.len()));
                out.extend_from_slice(&data);
            }
        }
        Ok(())
    }

    fn write_len(out: &mut Vec<u8>, len: Option<usize>, flexible: bool, wide: bool) {
        match (len, flexible) {
            (None, true) => out.push(0),
            (Some(n), true) => write_uvarint(out, len_u32(n).saturating_add(1)),
            (None, false) if wide => out.extend_from_slice(&(-1i32).to_be_bytes()),
            (None, false) => out.extend_from_slice(&(-1i16).to_be_bytes()),
            (Some(n), false) if wide => {
                out.extend_from_slice(&i32::try_from(n).unwrap_or(i32::MAX).to_be_bytes());
            }
            (Some(n), false) => {
                out.extend_from_slice(&i16::try_from(n).unwrap_or(i16::MAX).to_be_bytes());
            }
        }
    }

    fn write_field(
        &self,
        out: &mut Vec<u8>,
        field: &Field,
        ty: &Ty,
        v: &JValue,
        version: i16,
        flexible: bool,
    ) -> Result<(), EncodeError> {
        let nullable = field.nullable.contains(version);
        if matches!(v, JValue::Null) && !nullable {
            return Err(self.field_error(field, "null in a field that cannot be null"));
        }
        let int = |v: &JValue| match v {
            JValue::Int(n) => Ok(*n),
            _ => Err(self.field_error(field, "not an integer")),
        };
        let range = || self.field_error(field, "out of its type's range");
        match ty {
            Ty::Bool => match v {
                JValue::Bool(b) => out.push(u8::from(*b)),
                _ => return Err(self.field_error(field, "not a boolean")),
            },
            Ty::Int8 => put(out, int(v)?, i8::to_be_bytes).ok_or_else(range)?,
            Ty::Int16 => put(out, int(v)?, i16::to_be_bytes).ok_or_else(range)?,
            Ty::Uint16 => put(out, int(v)?, u16::to_be_bytes).ok_or_else(range)?,
            Ty::Int32 => put(out, int(v)?, i32::to_be_bytes).ok_or_else(range)?,
            Ty::Uint32 => put(out, int(v)?, u32::to_be_bytes).ok_or_else(range)?,
            Ty::Int64 => out.extend_from_slice(&int(v)?.to_be_bytes()),
            Ty::Float64 => match v {
                JValue::Float(f) => out.extend_from_slice(&f.to_be_bytes()),
                JValue::Int(n) => {
                    #[allow(clippy::cast_precision_loss)] // a whole number given for a double
                    out.extend_from_slice(&(*n as f64).to_be_bytes());
                }
                _ => return Err(self.field_error(field, "not a number")),
            },
            Ty::Uuid => match v {
                JValue::Str(s) => {
                    let id: crate::common::Uuid = s
                        .parse()
                        .map_err(|_| self.field_error(field, "not a UUID"))?;
                    out.extend_from_slice(&id.0);
                }
                _ => return Err(self.field_error(field, "not a UUID")),
            },
            Ty::Str => match v {
                JValue::Null => Self::write_len(out, None, flexible, false),
                JValue::Str(s) => {
                    if s.len() > 0x7fff {
                        return Err(range());
                    }
                    Self::write_len(out, Some(s.len()), flexible, false);
                    out.extend_from_slice(s.as_bytes());
                }
                _ => return Err(self.field_error(field, "not a string")),
            },
            Ty::Bytes => match v {
                JValue::Null => Self::write_len(out, None, flexible, true),
                JValue::Bytes(b) => {
                    Self::write_len(out, Some(b.len()), flexible, true);
                    out.extend_from_slice(b);
                }
                _ => return Err(self.field_error(field, "not bytes")),
            },
            Ty::Struct(sname) => {
                if nullable {
                    if matches!(v, JValue::Null) {
                        out.extend_from_slice(&(-1i8).to_be_bytes());
                        return Ok(());
                    }
                    out.push(1);
                }
                self.write_struct(out, self.struct_fields(field, sname), v, version, flexible)?;
            }
            Ty::Array(inner) => match v {
                JValue::Null => Self::write_len(out, None, flexible, true),
                JValue::Arr(items) => {
                    Self::write_len(out, Some(items.len()), flexible, true);
                    let plain = Field {
                        nullable: Versions::NONE,
                        ..field.clone()
                    };
                    for item in items {
                        match inner.as_ref() {
                            Ty::Struct(sname) => self.write_struct(
                                out,
                                self.struct_fields(field, sname),
                                item,
                                version,
                                flexible,
                            )?,
                            other => {
                                self.write_field(out, &plain, other, item, version, flexible)?
                            }
                        }
                    }
                }
                _ => return Err(self.field_error(field, "not an array")),
            },
        }
        Ok(())
    }
}

/// The value a field takes when the caller gives none: its declared default, else zero, false,
/// an empty string or array, or null for a nullable string.
fn default_value(field: &Field) -> JValue {
    match (&field.ty, &field.default) {
        (Ty::Str, Some(serde_json::Value::String(s))) if s == "null" => JValue::Null,
        (Ty::Str, Some(serde_json::Value::String(s))) => JValue::Str(s.clone()),
        (Ty::Str, _) => JValue::Str(String::new()),
        (Ty::Uuid, _) => JValue::Str(crate::common::Uuid::ZERO.to_string()),
        (Ty::Bool, Some(serde_json::Value::String(s))) => JValue::Bool(s == "true"),
        (Ty::Bool, Some(serde_json::Value::Bool(b))) => JValue::Bool(*b),
        (Ty::Bool, _) => JValue::Bool(false),
        (Ty::Array(_), Some(serde_json::Value::String(s))) if s == "null" => JValue::Null,
        (Ty::Array(_), _) => JValue::Arr(Vec::new()),
        (Ty::Bytes, _) => JValue::Bytes(Vec::new()),
        (Ty::Struct(_), _) => JValue::Obj(Vec::new()),
        (Ty::Float64, _) => JValue::Float(0.0),
        (_, Some(serde_json::Value::Number(n))) => JValue::Int(n.as_i64().unwrap_or(0)),
        (_, Some(serde_json::Value::String(s))) => JValue::Int(s.parse().unwrap_or(0)),
        _ => JValue::Int(0),
    }
}

/// Appends `n` as the integer type `T` (big-endian, by `to_bytes`); `None` when it does not fit.
fn put<T: TryFrom<i64>, const N: usize>(
    out: &mut Vec<u8>,
    n: i64,
    to_bytes: fn(T) -> [u8; N],
) -> Option<()> {
    out.extend_from_slice(&to_bytes(T::try_from(n).ok()?));
    Some(())
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Kafka's `ByteUtils.writeUnsignedVarint`.
pub fn write_uvarint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push(u8::try_from(value & 0x7f).unwrap_or(0) | 0x80);
        value >>= 7;
    }
    out.push(u8::try_from(value).unwrap_or(0));
}

fn null_or(nullable: bool, name: &str) -> Result<JValue, DecodeError> {
    if nullable {
        Ok(JValue::Null)
    } else {
        Err(DecodeError::NullField {
            field: name.to_string(),
        })
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
        JValue::Arr(items) => items.is_empty() && d != "null",
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
            None => Err(DecodeError::Underflow),
        }
    }

    /// Kafka's `ByteBufferAccessor.readArray`, with its message.
    fn array(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let remaining = self.buf.len().saturating_sub(self.pos);
        if n > remaining {
            return Err(DecodeError::ByteArrayTooShort {
                needed: n,
                remaining,
            });
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
        Err(DecodeError::VarintTooLong { value })
    }
}

/// kafkit's table of the layouts of Kafka's internal-topic messages (`messages.txt`): for each
/// message its versions and, per field, type and version ranges, as Kafka's protocol defines
/// them. The format is described at the top of the file.
const TABLE: &str = include_str!("messages.txt");

/// The layout table, parsed once, by message name.
pub fn registry() -> &'static HashMap<String, Schema> {
    static REGISTRY: OnceLock<HashMap<String, Schema>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        parse_table(TABLE)
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s.name.clone(), s))
            .collect()
    })
}

/// The schema named `name` (`"GroupMetadataValue"`).
pub fn schema(name: &str) -> Result<&'static Schema, DecodeError> {
    registry()
        .get(name)
        .ok_or_else(|| DecodeError::NoSchema(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_table_parses_whole() {
        let parsed = parse_table(TABLE).expect("table");
        let messages = TABLE.lines().filter(|l| l.starts_with("message ")).count();
        assert_eq!(parsed.len(), messages);
        assert_eq!(registry().len(), messages);
        assert!(messages >= 60);
    }

    #[test]
    fn versions_parse() {
        assert!(Versions::parse(Some("0+")).contains(7));
        assert!(!Versions::parse(Some("none")).contains(0));
        assert!(Versions::parse(Some("1-3")).contains(3));
        assert!(!Versions::parse(Some("1-3")).contains(4));
    }
}
