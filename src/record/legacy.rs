//! Legacy message sets, magic 0 and 1 (`LegacyRecord`, `AbstractLegacyRecordBatch`): read only.

use std::io::{self, Read};

use super::batch::COMPRESSION_CODEC_MASK;
use super::codec;
use super::cursor::Cursor;
use super::record::Record;
use super::{
    read_len, Compression, RecordError, TimestampType, LOG_OVERHEAD, NO_SEQUENCE, NO_TIMESTAMP,
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
    c.take(read_len(len), what).map(Some)
}

/// Reads a message (from its crc field) filling all of `bytes`; `base` is where it starts.
fn parse_message(bytes: &[u8], base: usize) -> Result<Message<'_>, RecordError> {
    let mut c = Cursor::new(bytes, base);
    let crc = c.i32("message crc")?.cast_unsigned();
    let magic_at = c.position();
    let magic = c.i8("magic")?;
    if !(0..=1).contains(&magic) {
        return Err(RecordError::UnknownMagic {
            position: magic_at,
            magic,
        });
    }
    let attributes = c.i8("message attributes")?.cast_unsigned();
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
        attributes: m.attributes.cast_signed(),
        magic: m.magic,
        crc: Some(m.crc),
        is_valid: m.is_valid,
        size_in_bytes: m.size,
    }
}

/// Deep iteration of a legacy entry (its whole bytes `entry`, found at `position` of the input):
/// the message itself when uncompressed, else the inner messages of the wrapper with Kafka's
/// offset and timestamp rules (spec §6).
///
/// A compressed wrapper is read twice through its codec, never held decompressed: once here to
/// check every inner message and find the last inner offset (a v1 wrapper's offsets are
/// relative to it), then again as the records are taken. Memory stays at about one message.
pub(crate) fn deep_records<'a, D>(
    entry: D,
    position: usize,
    limit: usize,
) -> Result<LegacyRecords<'a>, RecordError>
where
    D: AsRef<[u8]> + Clone + Send + 'a,
{
    let bytes = entry.as_ref();
    let wrapper = parse_message(
        bytes.get(LOG_OVERHEAD..).unwrap_or_default(),
        position + LOG_OVERHEAD,
    )?;
    let wrapper_offset = i64::from_be_bytes(super::cursor::be(bytes, 0));
    let compression = Compression::from_id(i32::from(wrapper.attributes & COMPRESSION_CODEC_MASK))
        .map_err(|e| e.offset_by(position))?;
    let wrapper_type = TimestampType::from_attributes(wrapper.magic, wrapper.attributes);
    if compression == Compression::None {
        return Ok(LegacyRecords::One(Some(to_record(
            &wrapper,
            wrapper_offset,
            wrapper.timestamp,
            wrapper_type,
        ))));
    }
    if compression == Compression::Zstd {
        return Err(RecordError::InvalidWrapperCompression {
            position,
            magic: wrapper.magic,
        });
    }
    let Some(value) = wrapper.value else {
        return Err(RecordError::NullWrapperValue {
            position,
            magic: wrapper.magic,
        });
    };
    let start = wrapper.value_at - position;
    let value = Part {
        data: entry.clone(),
        start,
        end: start + value.len(),
    };
    let mut inner = Inner {
        compression,
        value_at: wrapper.value_at,
        wrapper_magic: wrapper.magic,
        wrapper_type,
        wrapper_timestamp: wrapper.timestamp,
        shift: 0,
        source: codec::decompressing(compression, value.clone(), limit, wrapper.magic)
            .map_err(|e| e.offset_by(wrapper.value_at))?,
        pos: 0,
        buf: Vec::new(),
    };
    // The first pass: every message checked, the last inner offset found.
    let mut last_inner = None;
    while let Some((offset, _)) = inner.next_message()? {
        last_inner = Some(offset);
    }
    let Some(last_inner) = last_inner else {
        return Err(RecordError::EmptyWrapper { position });
    };
    inner.shift = if wrapper.magic == 0 || wrapper_offset == 0 {
        // v0 inner offsets are absolute; some librdkafka versions wrote v1 wrappers at offset 0.
        0
    } else if wrapper_offset < last_inner {
        return Err(RecordError::InvalidWrapperOffset {
            position,
            wrapper_offset,
            last_inner_offset: last_inner,
        });
    } else {
        wrapper_offset.wrapping_sub(last_inner)
    };
    inner.source = codec::decompressing(compression, value, limit, inner.wrapper_magic)
        .map_err(|e| e.offset_by(inner.value_at))?;
    inner.pos = 0;
    Ok(LegacyRecords::Deep {
        inner: Box::new(inner),
        done: false,
    })
}

/// The records of a legacy entry, one at a time ([`deep_records`]).
pub(crate) enum LegacyRecords<'a> {
    /// An uncompressed message: itself.
    One(Option<Record>),
    /// The inner messages of a compressed wrapper.
    Deep { inner: Box<Inner<'a>>, done: bool },
}

impl std::fmt::Debug for LegacyRecords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LegacyRecords::One(record) => f.debug_tuple("One").field(record).finish(),
            LegacyRecords::Deep { inner, done } => f
                .debug_struct("Deep")
                .field("pos", &inner.pos)
                .field("done", done)
                .finish(),
        }
    }
}

impl Iterator for LegacyRecords<'_> {
    type Item = Result<Record, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            LegacyRecords::One(record) => record.take().map(Ok),
            LegacyRecords::Deep { inner, done } => {
                if *done {
                    return None;
                }
                let next = inner.next_record().transpose();
                *done = !matches!(next, Some(Ok(_)));
                next
            }
        }
    }
}

/// A slice of `data`, owned or borrowed as `data` is: the wrapper's value inside its entry.
#[derive(Clone)]
struct Part<D> {
    data: D,
    start: usize,
    end: usize,
}

impl<D: AsRef<[u8]>> AsRef<[u8]> for Part<D> {
    fn as_ref(&self) -> &[u8] {
        self.data
            .as_ref()
            .get(self.start..self.end)
            .unwrap_or_default()
    }
}

/// A compressed wrapper's inner messages, read from its codec stream.
pub(crate) struct Inner<'a> {
    compression: Compression,
    /// Where the compressed value starts in the input.
    value_at: usize,
    wrapper_magic: i8,
    wrapper_type: TimestampType,
    wrapper_timestamp: i64,
    /// Added to the inner offsets (see [`deep_records`]).
    shift: i64,
    source: Box<dyn Read + Send + 'a>,
    /// Position of the next inner entry in the decompressed stream.
    pos: usize,
    /// The current inner message (from its crc field).
    buf: Vec<u8>,
}

impl Inner<'_> {
    /// The next inner message into `buf`, with its offset and where it starts in the
    /// decompressed stream; `None` at the end. A truncated trailing entry ends the set quietly,
    /// as Kafka's `DataLogInputStream` does.
    fn next_message(&mut self) -> Result<Option<(i64, usize)>, RecordError> {
        let at = self.pos;
        let mut head = [0u8; LOG_OVERHEAD];
        if read_full(&mut self.source, &mut head).map_err(|e| self.codec_error(e))? < LOG_OVERHEAD {
            return Ok(None);
        }
        let offset = i64::from_be_bytes(super::cursor::be(&head, 0));
        let size = i32::from_be_bytes(super::cursor::be(&head, 8));
        if read_len(size) < RECORD_OVERHEAD_V0 {
            return Err(RecordError::RecordSizeTooSmall { position: at, size }
                .in_decompressed(self.value_at));
        }
        self.buf.clear();
        (&mut self.source)
            .take(u64::from(size.unsigned_abs()))
            .read_to_end(&mut self.buf)
            .map_err(|e| self.codec_error(e))?;
        if self.buf.len() < read_len(size) {
            return Ok(None);
        }
        self.pos += LOG_OVERHEAD + self.buf.len();
        let m = parse_message(&self.buf, at + LOG_OVERHEAD)
            .map_err(|e| e.in_decompressed(self.value_at))?;
        if m.attributes & COMPRESSION_CODEC_MASK != 0 {
            return Err(
                RecordError::CompressedInnerMessage { position: at }.in_decompressed(self.value_at)
            );
        }
        Ok(Some((offset, at)))
    }

    /// The next inner message as a record.
    fn next_record(&mut self) -> Result<Option<Record>, RecordError> {
        let Some((offset, at)) = self.next_message()? else {
            return Ok(None);
        };
        let m = parse_message(&self.buf, at + LOG_OVERHEAD)
            .map_err(|e| e.in_decompressed(self.value_at))?;
        let (timestamp, ts_type) = if m.magic == 0 {
            (NO_TIMESTAMP, TimestampType::NoTimestamp)
        } else if self.wrapper_magic > 0 && self.wrapper_type == TimestampType::LogAppendTime {
            (self.wrapper_timestamp, self.wrapper_type)
        } else if self.wrapper_magic > 0 {
            (m.timestamp, self.wrapper_type)
        } else {
            (
                m.timestamp,
                TimestampType::from_attributes(m.magic, m.attributes),
            )
        };
        Ok(Some(to_record(
            &m,
            offset.wrapping_add(self.shift),
            timestamp,
            ts_type,
        )))
    }

    fn codec_error(&self, error: io::Error) -> RecordError {
        codec::stream_error(self.compression, error).offset_by(self.value_at)
    }
}

/// Reads until `buf` is full or the stream ends; how many bytes were read.
fn read_full(source: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|rest| !rest.is_empty()) {
        match source.read(rest)? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}
