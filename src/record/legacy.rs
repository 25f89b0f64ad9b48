//! Legacy message sets, magic 0 and 1 (`LegacyRecord`, `AbstractLegacyRecordBatch`): read only.

use super::batch::{RawBatch, COMPRESSION_CODEC_MASK};
use super::codec;
use super::cursor::Cursor;
use super::record::Record;
use super::{
    Compression, RecordError, TimestampType, LOG_OVERHEAD, NO_SEQUENCE, NO_TIMESTAMP,
    RECORD_OVERHEAD_V0,
};

/// One legacy message, borrowed.
struct Message<'a> {
    crc: u32,
    magic: i8,
    attributes: u8,
    timestamp: i64,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    value_at: usize,
    is_valid: bool,
    size: usize,
}

fn nullable<'a>(c: &mut Cursor<'a>, what: &'static str) -> Result<Option<&'a [u8]>, RecordError> {
    let len = c.i32(what)?;
    if len < 0 {
        return Ok(None);
    }
    c.take(len as usize, what).map(Some)
}

/// Reads a message (from its crc field) filling all of `bytes`; `base` is where it starts.
fn parse_message(bytes: &[u8], base: usize) -> Result<Message<'_>, RecordError> {
    let mut c = Cursor::new(bytes, base);
    let crc = c.i32("message crc")? as u32;
    let magic_at = c.position();
    let magic = c.i8("magic")?;
    if !(0..=1).contains(&magic) {
        return Err(RecordError::UnknownMagic {
            position: magic_at,
            magic,
        });
    }
    let attributes = c.i8("message attributes")? as u8;
    let timestamp = if magic == 0 {
        NO_TIMESTAMP
    } else {
        c.i64("message timestamp")?
    };
    let key = nullable(&mut c, "message key")?;
    let value_at = c.position() + 4;
    let value = nullable(&mut c, "message value")?;
    Ok(Message {
        crc,
        magic,
        attributes,
        timestamp,
        key,
        value,
        value_at,
        is_valid: crc32fast::hash(bytes.get(4..).unwrap_or_default()) == crc,
        size: bytes.len(),
    })
}

fn to_record(
    m: &Message<'_>,
    offset: i64,
    timestamp: i64,
    timestamp_type: TimestampType,
) -> Record {
    Record {
        offset,
        timestamp,
        timestamp_type,
        key: m.key.map(<[u8]>::to_vec),
        value: m.value.map(<[u8]>::to_vec),
        headers: Vec::new(),
        sequence: NO_SEQUENCE,
        attributes: m.attributes as i8,
        magic: m.magic,
        crc: Some(m.crc),
        is_valid: m.is_valid,
        size_in_bytes: m.size,
    }
}

/// Deep iteration of a legacy entry: the message itself when uncompressed, else the inner
/// messages of the wrapper with Kafka's offset and timestamp rules (spec §6).
pub(crate) fn deep_records(batch: &RawBatch<'_>, limit: usize) -> Result<Vec<Record>, RecordError> {
    let message_at = batch.position() + LOG_OVERHEAD;
    let wrapper = parse_message(
        batch.as_bytes().get(LOG_OVERHEAD..).unwrap_or_default(),
        message_at,
    )?;
    let wrapper_offset = batch.base_offset();
    let compression = batch.compression()?;
    if compression == Compression::None {
        let ts_type = TimestampType::from_attributes(wrapper.magic, wrapper.attributes);
        return Ok(vec![to_record(
            &wrapper,
            wrapper_offset,
            wrapper.timestamp,
            ts_type,
        )]);
    }
    if compression == Compression::Zstd {
        return Err(RecordError::InvalidWrapperCompression {
            position: batch.position(),
            magic: wrapper.magic,
        });
    }
    let Some(value) = wrapper.value else {
        return Err(RecordError::NullWrapperValue {
            position: batch.position(),
            magic: wrapper.magic,
        });
    };
    let inner = codec::decompress(compression, value, limit, wrapper.magic)
        .map_err(|e| e.offset_by(wrapper.value_at))?;
    let messages = inner_messages(&inner).map_err(|e| e.in_decompressed(wrapper.value_at))?;
    let Some((last_inner, _)) = messages.last() else {
        return Err(RecordError::EmptyWrapper {
            position: batch.position(),
        });
    };
    let last_inner = *last_inner;
    let wrapper_type = TimestampType::from_attributes(wrapper.magic, wrapper.attributes);
    let shift = if wrapper.magic == 0 || wrapper_offset == 0 {
        // v0 inner offsets are absolute; some librdkafka versions wrote v1 wrappers at offset 0.
        0
    } else if wrapper_offset < last_inner {
        return Err(RecordError::InvalidWrapperOffset {
            position: batch.position(),
            wrapper_offset,
            last_inner_offset: last_inner,
        });
    } else {
        wrapper_offset.wrapping_sub(last_inner)
    };
    Ok(messages
        .iter()
        .map(|(offset, m)| {
            let (timestamp, ts_type) = if m.magic == 0 {
                (NO_TIMESTAMP, TimestampType::NoTimestamp)
            } else if wrapper.magic > 0 && wrapper_type == TimestampType::LogAppendTime {
                (wrapper.timestamp, wrapper_type)
            } else if wrapper.magic > 0 {
                (m.timestamp, wrapper_type)
            } else {
                (
                    m.timestamp,
                    TimestampType::from_attributes(m.magic, m.attributes),
                )
            };
            to_record(m, offset.wrapping_add(shift), timestamp, ts_type)
        })
        .collect())
}

/// The entries of a decompressed inner message set. A truncated trailing entry ends the set
/// quietly, as Kafka's `DataLogInputStream` does.
fn inner_messages(inner: &[u8]) -> Result<Vec<(i64, Message<'_>)>, RecordError> {
    let mut out = Vec::new();
    let mut c = Cursor::new(inner, 0);
    while c.remaining() >= LOG_OVERHEAD {
        let at = c.position();
        let offset = c.i64("inner offset")?;
        let size = c.i32("inner size")?;
        if size < RECORD_OVERHEAD_V0 as i32 {
            return Err(RecordError::RecordSizeTooSmall { position: at, size });
        }
        if c.remaining() < size as usize {
            break;
        }
        let body_at = c.position();
        let m = parse_message(c.take(size as usize, "inner message")?, body_at)?;
        if m.attributes & COMPRESSION_CODEC_MASK != 0 {
            return Err(RecordError::CompressedInnerMessage { position: at });
        }
        out.push((offset, m));
    }
    Ok(out)
}
