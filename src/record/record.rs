//! Records: magic 2 `DefaultRecord` encoding and decoding, and the decoded form shared with
//! legacy messages.

use super::batch::increment_sequence;
use super::cursor::Cursor;
use super::varint::{size_of_varint, size_of_varlong, write_varint};
use super::{int_len, read_len, RecordError, TimestampType, NO_SEQUENCE};

/// A record header: a UTF-8 key and an optional value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Header {
    /// The key. Kafka decodes header keys with Java's `new String(bytes, UTF_8)`, which replaces
    /// malformed sequences with U+FFFD; this reader does the same rather than failing, so a
    /// batch Kafka can read is never refused here.
    pub key: String,
    /// The value; `None` is Kafka's null (length -1).
    pub value: Option<Vec<u8>>,
}

impl Header {
    /// A header with a key and a value.
    pub fn new(key: impl Into<String>, value: Option<&[u8]>) -> Self {
        Self {
            key: key.into(),
            value: value.map(<[u8]>::to_vec),
        }
    }
}

/// One decoded record, from a magic 2 batch or a legacy magic 0/1 message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Absolute offset.
    pub offset: i64,
    /// The record's timestamp: base + delta (CreateTime), the batch maxTimestamp (LogAppendTime),
    /// the message timestamp (v1), or -1 (v0).
    pub timestamp: i64,
    /// The timestamp type the record carries (for v2 and v1 wrappers: the batch's).
    pub timestamp_type: TimestampType,
    /// The key; `None` is null (length -1), `Some(vec![])` is empty.
    pub key: Option<Vec<u8>>,
    /// The value; `None` is null (a tombstone), `Some(vec![])` is empty.
    pub value: Option<Vec<u8>>,
    /// Record headers (v2 only; empty for legacy).
    pub headers: Vec<Header>,
    /// `baseSequence + offsetDelta` with wrap-around, or -1 (always -1 for legacy).
    pub sequence: i32,
    /// The record's attribute byte (unused in v2, always 0 there; the message's for legacy).
    pub attributes: i8,
    /// The format the record was stored in: 0, 1 (a legacy message) or 2.
    pub magic: i8,
    /// Legacy messages: the stored CRC-32. `None` for v2 (the CRC is per batch).
    pub crc: Option<u32>,
    /// Legacy messages: whether the stored CRC matches. Always true for v2 (Kafka's
    /// `DefaultRecord.isValid`).
    pub is_valid: bool,
    /// Bytes the record occupies (v2: length varint + body; legacy: the message without its
    /// offset and size fields).
    pub size_in_bytes: usize,
}

impl Record {
    /// Key length as Kafka reports it: -1 for null.
    pub fn key_size(&self) -> i32 {
        self.key.as_ref().map_or(-1, |k| int_len(k.len()))
    }

    /// Value length as Kafka reports it: -1 for null.
    pub fn value_size(&self) -> i32 {
        self.value.as_ref().map_or(-1, |v| int_len(v.len()))
    }
}

/// Batch-level values every record of a v2 batch is decoded against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct V2Context {
    pub(crate) base_offset: i64,
    pub(crate) base_timestamp: i64,
    pub(crate) log_append_time: Option<i64>,
    pub(crate) base_sequence: i32,
    pub(crate) timestamp_type: TimestampType,
}

fn read_nullable<'a>(
    c: &mut Cursor<'a>,
    what: &'static str,
) -> Result<Option<&'a [u8]>, RecordError> {
    let len = c.varint(what)?;
    if len < 0 {
        // Kafka treats every negative length as null, not only -1.
        return Ok(None);
    }
    c.take(read_len(len), what).map(Some)
}

/// The fields of one magic 2 record, borrowed from the batch's bytes.
pub(crate) struct RecordParts<'a> {
    pub(crate) attributes: i8,
    pub(crate) timestamp_delta: i64,
    pub(crate) offset_delta: i32,
    pub(crate) key: Option<&'a [u8]>,
    pub(crate) value: Option<&'a [u8]>,
    /// Bytes of the record including its length varint.
    pub(crate) size_in_bytes: usize,
}

/// Kafka's `DefaultRecord.readFrom` without copying: checks the whole record structure (lengths,
/// header count, every header) and hands each header to `header` as it is read.
pub(crate) fn parse_v2_record<'a>(
    c: &mut Cursor<'a>,
    mut header: impl FnMut(&'a [u8], Option<&'a [u8]>),
) -> Result<RecordParts<'a>, RecordError> {
    let start = c.position();
    let length = c.varint("record length")?;
    let length_size = c.consumed();
    if length < 0 || read_len(length) > c.remaining() {
        return Err(RecordError::InvalidRecordSize {
            position: start,
            expected: length,
            remaining: c.remaining(),
        });
    }
    let body_at = c.position();
    let body = c.take(read_len(length), "record")?;
    let mut b = Cursor::new(body, body_at);
    let attributes = b.i8("record attributes")?;
    let timestamp_delta = b.varlong("timestampDelta")?;
    let offset_delta = b.varint("offsetDelta")?;
    let key = read_nullable(&mut b, "key")?;
    let value = read_nullable(&mut b, "value")?;
    let count_at = b.position();
    let header_count = b.varint("headers count")?;
    if header_count < 0 || read_len(header_count) > b.remaining() {
        return Err(RecordError::InvalidHeaderCount {
            position: count_at,
            count: header_count,
        });
    }
    for _ in 0..header_count {
        let key_at = b.position();
        let key_len = b.varint("header key length")?;
        if key_len < 0 {
            return Err(RecordError::InvalidHeaderKeySize {
                position: key_at,
                size: key_len,
            });
        }
        let key = b.take(read_len(key_len), "header key")?;
        let value = read_nullable(&mut b, "header value")?;
        header(key, value);
    }
    if b.remaining() != 0 {
        return Err(RecordError::RecordSizeMismatch {
            position: start,
            expected: read_len(length),
            read: b.consumed(),
        });
    }
    Ok(RecordParts {
        attributes,
        timestamp_delta,
        offset_delta,
        key,
        value,
        size_in_bytes: length_size + read_len(length),
    })
}

/// Kafka's `DefaultRecord.readFrom`: one record at the cursor.
pub(crate) fn read_v2_record(c: &mut Cursor<'_>, ctx: &V2Context) -> Result<Record, RecordError> {
    let mut headers = Vec::new();
    let parts = parse_v2_record(c, |key, value| {
        headers.push(Header {
            key: crate::java::utf8_string(key).into_owned(),
            value: value.map(<[u8]>::to_vec),
        });
    })?;
    let timestamp = ctx
        .log_append_time
        .unwrap_or(ctx.base_timestamp.wrapping_add(parts.timestamp_delta));
    let sequence = if ctx.base_sequence >= 0 {
        increment_sequence(ctx.base_sequence, parts.offset_delta)
    } else {
        NO_SEQUENCE
    };
    Ok(Record {
        offset: ctx.base_offset.wrapping_add(i64::from(parts.offset_delta)),
        timestamp,
        timestamp_type: ctx.timestamp_type,
        key: parts.key.map(<[u8]>::to_vec),
        value: parts.value.map(<[u8]>::to_vec),
        headers,
        sequence,
        attributes: parts.attributes,
        magic: super::MAGIC_V2,
        crc: None,
        is_valid: true,
        size_in_bytes: parts.size_in_bytes,
    })
}

fn nullable_size(bytes: Option<&[u8]>) -> usize {
    match bytes {
        Some(b) => size_of_varint(int_len(b.len())) + b.len(),
        None => 1,
    }
}

/// Bytes of a record's key, value and headers fields, with their length varints: the part of
/// its size that does not depend on where the record goes in a batch.
#[inline]
pub(crate) fn fields_size(key: Option<&[u8]>, value: Option<&[u8]>, headers: &[Header]) -> usize {
    let mut size =
        nullable_size(key) + nullable_size(value) + size_of_varint(int_len(headers.len()));
    for h in headers {
        size +=
            size_of_varint(int_len(h.key.len())) + h.key.len() + nullable_size(h.value.as_deref());
    }
    size
}

/// A record's size after its length prefix: attributes, the two deltas and the fields.
#[inline]
pub(crate) fn body_size(fields: usize, offset_delta: i32, timestamp_delta: i64) -> usize {
    1 + size_of_varlong(timestamp_delta) + size_of_varint(offset_delta) + fields
}

fn write_nullable(bytes: Option<&[u8]>, out: &mut Vec<u8>) {
    match bytes {
        Some(b) => {
            write_varint(int_len(b.len()), out);
            out.extend_from_slice(b);
        }
        None => write_varint(-1, out),
    }
}

/// Kafka's `DefaultRecord.writeTo`: appends one record of [`body_size`] `body_len` to `out`.
#[inline(always)]
pub(crate) fn write_v2_record(
    out: &mut Vec<u8>,
    body_len: usize,
    offset_delta: i32,
    timestamp_delta: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[Header],
) {
    // One capacity check for the whole record; the fields before the key are gathered on the
    // stack and copied at once, then the key, the value-length field, the value.
    out.reserve(size_of_varint(int_len(body_len)) + body_len);
    // At most 5 (length) + 1 (attributes) + 10 (timestamp delta) + 5 (offset delta) + 5 (key
    // length) bytes, or 1 + 5 for a null key and the value length.
    let mut head = [0u8; 32];
    let mut at = put_varint(&mut head, 0, int_len(body_len));
    at = put_byte(&mut head, at, 0); // attributes: unused
    at = put_unsigned(&mut head, at, zigzag64(timestamp_delta));
    at = put_varint(&mut head, at, offset_delta);
    match key {
        Some(key) => {
            at = put_varint(&mut head, at, int_len(key.len()));
            append_head(out, &head, at);
            out.extend_from_slice(key);
            at = 0;
        }
        None => at = put_varint(&mut head, at, -1),
    }
    at = put_varint(&mut head, at, value.map_or(-1, |v| int_len(v.len())));
    debug_assert!(at <= head.len(), "record header of {at} bytes");
    append_head(out, &head, at);
    out.extend_from_slice(value.unwrap_or_default());
    if headers.is_empty() {
        out.push(0);
    } else {
        write_varint(int_len(headers.len()), out);
        for h in headers {
            write_varint(int_len(h.key.len()), out);
            out.extend_from_slice(h.key.as_bytes());
            write_nullable(h.value.as_deref(), out);
        }
    }
}

/// A varint of at most two bytes: its bytes as a little-endian word, and how many there are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShortVarint {
    bytes: u64,
    len: usize,
}

impl ShortVarint {
    /// The zigzag varint of `value`, if it takes at most two bytes (|value| below 8192).
    #[inline(always)]
    pub(crate) fn of(value: i64) -> Option<Self> {
        let z = zigzag64(value);
        match z {
            0..0x80 => Some(Self { bytes: z, len: 1 }),
            0x80..0x4000 => Some(Self {
                bytes: (z & 0x7f) | 0x80 | (z >> 7) << 8,
                len: 2,
            }),
            _ => None,
        }
    }
}

/// The head of a record with a null key and no headers whose length, offset delta, timestamp
/// delta and value length each take at most two varint bytes (nearly every record a console
/// producer writes): the fields before the value, as two words, so that [`write_v2_record`]'s
/// byte-by-byte head is not needed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShortValueHead {
    /// Length, attributes, timestamp delta, offset delta: at most 7 bytes.
    first: u64,
    first_len: usize,
    /// Key length (-1) and value length: at most 3 bytes.
    second: u64,
    second_len: usize,
    /// The record's size after its length prefix ([`body_size`]).
    pub(crate) body: usize,
    /// The record's size with its length prefix.
    pub(crate) size: usize,
    /// Its key, value and headers fields with their lengths ([`fields_size`]).
    pub(crate) fields: usize,
}

impl ShortValueHead {
    /// The head of a record with `timestamp_delta` (as [`ShortVarint::of`] it) at
    /// `offset_delta`, of a value of `value_len` bytes; `None` when a field needs a longer
    /// varint.
    #[inline(always)]
    pub(crate) fn new(
        timestamp_delta: ShortVarint,
        offset_delta: i32,
        value_len: usize,
    ) -> Option<Self> {
        let offset = ShortVarint::of(i64::from(offset_delta))?;
        let value = ShortVarint::of(i64::try_from(value_len).ok()?)?;
        // The null key, the value length, the value, no headers.
        let fields = 1 + value.len + value_len + 1;
        // Attributes, the deltas, the fields.
        let body = 1 + timestamp_delta.len + offset.len + fields;
        let length = ShortVarint::of(i64::try_from(body).ok()?)?;
        // The attributes byte is 0: nothing to set between the length and the timestamp delta.
        let at_timestamp = 8 * (length.len + 1);
        let at_offset = at_timestamp + 8 * timestamp_delta.len;
        Some(Self {
            first: length.bytes | timestamp_delta.bytes << at_timestamp | offset.bytes << at_offset,
            first_len: length.len + 1 + timestamp_delta.len + offset.len,
            // The null key's length, -1, is the varint 1.
            second: 1 | value.bytes << 8,
            second_len: 1 + value.len,
            body,
            size: length.len + body,
            fields,
        })
    }

    /// Appends the record with `value` (of the length the head was made for) to `out`.
    #[inline(always)]
    pub(crate) fn write(&self, out: &mut Vec<u8>, value: &[u8]) {
        let start = out.len();
        out.reserve(16 + self.body);
        // Each word is stored whole and the bytes past the field cut off again.
        out.extend_from_slice(&self.first.to_le_bytes());
        out.truncate(start + self.first_len);
        out.extend_from_slice(&self.second.to_le_bytes());
        out.truncate(start + self.first_len + self.second_len);
        out.extend_from_slice(value);
        out.push(0);
    }
}

/// Appends the first `len` bytes of `head` to `out`. Most record heads are under 16 bytes: with
/// room for 16, they are copied as 16 fixed bytes and the excess cut off, cheaper than a copy of
/// a length known only at run time.
#[inline(always)]
fn append_head(out: &mut Vec<u8>, head: &[u8; 32], len: usize) {
    let start = out.len();
    match head.first_chunk::<16>() {
        Some(fixed) if len <= 16 && out.capacity() - start >= 16 => {
            out.extend_from_slice(fixed);
            out.truncate(start + len);
        }
        _ => out.extend_from_slice(head.get(..len).unwrap_or_default()),
    }
}

/// Writes `byte` at `at` of `buf` (the mask keeps the index in range without a check; a record
/// head is at most 27 bytes); returns the next position.
#[inline(always)]
fn put_byte(buf: &mut [u8; 32], at: usize, byte: u8) -> usize {
    if let Some(slot) = buf.get_mut(at & 31) {
        *slot = byte;
    }
    at + 1
}

/// Writes `v` as an unsigned varint at `at` of `buf`; returns the next position.
#[inline(always)]
fn put_unsigned(buf: &mut [u8; 32], mut at: usize, mut v: u64) -> usize {
    // Most of a record's varints take one or two bytes: those without the loop.
    if v < 0x80 {
        return put_byte(buf, at, (v & 0x7f) as u8);
    }
    if v < 0x4000 {
        at = put_byte(buf, at, (v & 0x7f) as u8 | 0x80);
        return put_byte(buf, at, ((v >> 7) & 0x7f) as u8);
    }
    while v >= 0x80 {
        at = put_byte(buf, at, (v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    put_byte(buf, at, (v & 0x7f) as u8)
}

#[inline(always)]
fn put_varint(buf: &mut [u8; 32], at: usize, value: i32) -> usize {
    put_unsigned(
        buf,
        at,
        u64::from(((value << 1) ^ (value >> 31)).cast_unsigned()),
    )
}

#[inline(always)]
fn zigzag64(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)).cast_unsigned()
}
