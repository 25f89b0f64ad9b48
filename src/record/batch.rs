//! Shallow log entries: magic 2 batch headers, legacy message headers, and the segment scan.

use std::borrow::Cow;
use std::io::{self, Read};

use super::codec;
use super::cursor::{be, Cursor};
use super::legacy;
use super::record::{parse_v2_record, read_v2_record, Record, V2Context};
use super::{
    int_len, read_len, Compression, RecordError, TimestampType, HEADER_SIZE_UP_TO_MAGIC,
    LOG_OVERHEAD, MAGIC_V2, NO_PARTITION_LEADER_EPOCH, NO_TIMESTAMP, RECORD_BATCH_OVERHEAD,
    RECORD_OVERHEAD_V0,
};

// Field offsets of the v2 header (DefaultRecordBatch).
const BATCH_LENGTH_OFFSET: usize = 8;
const PARTITION_LEADER_EPOCH_OFFSET: usize = 12;
const MAGIC_OFFSET: usize = 16;
pub(crate) const CRC_OFFSET: usize = 17;
pub(crate) const ATTRIBUTES_OFFSET: usize = 21;
const LAST_OFFSET_DELTA_OFFSET: usize = 23;
const MAX_TIMESTAMP_OFFSET: usize = 35;
const PRODUCER_ID_OFFSET: usize = 43;
const RECORDS_COUNT_OFFSET: usize = 57;

// Field offsets of a legacy entry (offset + size + LegacyRecord).
const LEGACY_CRC_OFFSET: usize = 12;
const LEGACY_ATTRIBUTES_OFFSET: usize = 17;
const LEGACY_TIMESTAMP_OFFSET: usize = 18;

pub(crate) const COMPRESSION_CODEC_MASK: u8 = 0x07;
pub(crate) const TIMESTAMP_TYPE_MASK: u8 = 0x08;
pub(crate) const TRANSACTIONAL_FLAG_MASK: u8 = 0x10;
pub(crate) const CONTROL_FLAG_MASK: u8 = 0x20;
pub(crate) const DELETE_HORIZON_FLAG_MASK: u8 = 0x40;

/// Kafka's `DefaultRecordBatch.incrementSequence`: sequences wrap to 0 after `i32::MAX`.
///
/// Java's `int` arithmetic wraps silently; so does this, because corrupt batches can carry any
/// offset delta.
pub fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    if sequence > i32::MAX.wrapping_sub(increment) {
        increment
            .wrapping_sub(i32::MAX.wrapping_sub(sequence))
            .wrapping_sub(1)
    } else {
        sequence.wrapping_add(increment)
    }
}

/// Every field of a magic 2 batch header, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchHeader {
    /// Offset of the first record of the batch as first written (kept through compaction).
    pub base_offset: i64,
    /// Bytes after this field to the end of the batch; the batch is `12 + batch_length` bytes.
    pub batch_length: i32,
    /// Epoch of the leader that appended the batch (-1 until a leader stamps it); not under the CRC.
    pub partition_leader_epoch: i32,
    /// Format version, 2.
    pub magic: i8,
    /// Stored CRC-32C of bytes `[21, end)`.
    pub crc: u32,
    /// Codec, timestamp type, transactional, control and delete-horizon bits (low byte used).
    pub attributes: i16,
    /// `lastOffset - baseOffset`.
    pub last_offset_delta: i32,
    /// First record's timestamp, or the delete horizon when [`Self::has_delete_horizon`].
    pub base_timestamp: i64,
    /// Largest record timestamp (CreateTime) or the broker's append time (LogAppendTime).
    pub max_timestamp: i64,
    /// Idempotent/transactional producer id, -1 for none.
    pub producer_id: i64,
    /// Producer epoch, -1 for none.
    pub producer_epoch: i16,
    /// Sequence of the first record, -1 for none.
    pub base_sequence: i32,
    /// Number of records in the batch (before compression; may be below `last_offset_delta + 1`
    /// after compaction, even 0).
    pub records_count: i32,
}

impl BatchHeader {
    /// Reads the 61-byte header at the start of `bytes` (positions in errors count from there).
    pub fn parse(bytes: &[u8]) -> Result<Self, RecordError> {
        let mut c = Cursor::new(bytes, 0);
        Ok(Self {
            base_offset: c.i64("baseOffset")?,
            batch_length: c.i32("batchLength")?,
            partition_leader_epoch: c.i32("partitionLeaderEpoch")?,
            magic: c.i8("magic")?,
            crc: c.i32("crc")?.cast_unsigned(),
            attributes: c.i16("attributes")?,
            last_offset_delta: c.i32("lastOffsetDelta")?,
            base_timestamp: c.i64("baseTimestamp")?,
            max_timestamp: c.i64("maxTimestamp")?,
            producer_id: c.i64("producerId")?,
            producer_epoch: c.i16("producerEpoch")?,
            base_sequence: c.i32("baseSequence")?,
            records_count: c.i32("recordsCount")?,
        })
    }

    /// The header's 61 bytes, big-endian, exactly as Kafka lays them out.
    pub fn to_bytes(&self) -> [u8; RECORD_BATCH_OVERHEAD] {
        let mut out = [0u8; RECORD_BATCH_OVERHEAD];
        let mut v = Vec::with_capacity(RECORD_BATCH_OVERHEAD);
        v.extend_from_slice(&self.base_offset.to_be_bytes());
        v.extend_from_slice(&self.batch_length.to_be_bytes());
        v.extend_from_slice(&self.partition_leader_epoch.to_be_bytes());
        v.extend_from_slice(&self.magic.to_be_bytes());
        v.extend_from_slice(&self.crc.to_be_bytes());
        v.extend_from_slice(&self.attributes.to_be_bytes());
        v.extend_from_slice(&self.last_offset_delta.to_be_bytes());
        v.extend_from_slice(&self.base_timestamp.to_be_bytes());
        v.extend_from_slice(&self.max_timestamp.to_be_bytes());
        v.extend_from_slice(&self.producer_id.to_be_bytes());
        v.extend_from_slice(&self.producer_epoch.to_be_bytes());
        v.extend_from_slice(&self.base_sequence.to_be_bytes());
        v.extend_from_slice(&self.records_count.to_be_bytes());
        out.copy_from_slice(&v);
        out
    }

    fn attr(&self) -> u8 {
        // Kafka reads `(byte) getShort(21)`: the high byte is ignored.
        let [_, low] = self.attributes.to_be_bytes();
        low
    }

    /// `baseOffset + lastOffsetDelta`.
    pub fn last_offset(&self) -> i64 {
        self.base_offset
            .wrapping_add(i64::from(self.last_offset_delta))
    }

    /// `lastOffset + 1`: where the next batch starts.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }

    /// `12 + batchLength`.
    pub fn size_in_bytes(&self) -> i64 {
        i64::from(int_len(LOG_OVERHEAD)) + i64::from(self.batch_length)
    }

    /// Attribute bit 4: written by a transactional producer.
    pub fn is_transactional(&self) -> bool {
        self.attr() & TRANSACTIONAL_FLAG_MASK != 0
    }

    /// Attribute bit 5: holds control records (transaction markers, KRaft records).
    pub fn is_control(&self) -> bool {
        self.attr() & CONTROL_FLAG_MASK != 0
    }

    /// Attribute bit 6: `base_timestamp` holds the delete horizon set by the log cleaner.
    pub fn has_delete_horizon(&self) -> bool {
        self.attr() & DELETE_HORIZON_FLAG_MASK != 0
    }

    /// The delete horizon (`baseTimestamp` when bit 6 is set).
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        self.has_delete_horizon().then_some(self.base_timestamp)
    }

    /// Sequence of the last record, -1 when the batch has no base sequence.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == super::NO_SEQUENCE {
            super::NO_SEQUENCE
        } else {
            increment_sequence(self.base_sequence, self.last_offset_delta)
        }
    }

    /// The codec in attribute bits 0–2 (5–7 is an error, as in Kafka).
    pub fn compression(&self) -> Result<Compression, RecordError> {
        Compression::from_id(i32::from(self.attr() & COMPRESSION_CODEC_MASK))
    }

    /// CreateTime or LogAppendTime (attribute bit 3).
    pub fn timestamp_type(&self) -> TimestampType {
        TimestampType::from_attributes(MAGIC_V2, self.attr())
    }
}

/// One shallow log entry in a byte slice, zero-copy: a magic 2 batch, or a legacy magic 0/1
/// message (which, when compressed, wraps further messages).
///
/// Made by [`batches`] or [`RawBatch::read_at`], which guarantee the entry is complete and at
/// least as long as its header, so the field accessors are infallible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawBatch<'a> {
    position: usize,
    bytes: &'a [u8],
}

impl<'a> RawBatch<'a> {
    /// Reads the log entry starting at `position` of `buf` with Kafka's rules
    /// (`FileLogInputStream.nextBatch`): `Ok(None)` when 17 or fewer bytes remain or the entry
    /// runs past the end (a partial tail); an error for a size below 14, an unknown magic, or a
    /// magic 2 entry too short for its header.
    pub fn read_at(buf: &'a [u8], position: usize) -> Result<Option<Self>, RecordError> {
        let rest = buf.get(position..).unwrap_or_default();
        if rest.len() <= HEADER_SIZE_UP_TO_MAGIC {
            return Ok(None);
        }
        let size = i32::from_be_bytes(be(rest, BATCH_LENGTH_OFFSET));
        if read_len(size) < RECORD_OVERHEAD_V0 {
            return Err(RecordError::RecordSizeTooSmall { position, size });
        }
        let total = LOG_OVERHEAD + read_len(size);
        let Some(bytes) = rest.get(..total) else {
            return Ok(None);
        };
        let magic = i8::from_be_bytes(be(rest, MAGIC_OFFSET));
        match magic {
            0 | 1 => {}
            MAGIC_V2 if total < RECORD_BATCH_OVERHEAD => {
                return Err(RecordError::BatchTooSmall {
                    position,
                    size: total,
                })
            }
            MAGIC_V2 => {}
            _ => return Err(RecordError::UnknownMagic { position, magic }),
        }
        Ok(Some(Self { position, bytes }))
    }

    /// Where the entry starts in the slice it was read from.
    pub fn position(&self) -> usize {
        self.position
    }

    /// The whole entry: `12 + size` bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// `12 + size` (Kafka's `sizeInBytes`).
    pub fn size_in_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Format version: 0, 1 or 2.
    pub fn magic(&self) -> i8 {
        i8::from_be_bytes(be(self.bytes, MAGIC_OFFSET))
    }

    fn is_v2(&self) -> bool {
        self.magic() >= MAGIC_V2
    }

    fn i32_at(&self, at: usize) -> i32 {
        i32::from_be_bytes(be(self.bytes, at))
    }

    fn i64_at(&self, at: usize) -> i64 {
        i64::from_be_bytes(be(self.bytes, at))
    }

    /// The low attribute byte (v2: low byte of the int16; legacy: the int8).
    pub fn attributes(&self) -> u8 {
        if self.is_v2() {
            be::<2>(self.bytes, ATTRIBUTES_OFFSET)[1]
        } else {
            be::<1>(self.bytes, LEGACY_ATTRIBUTES_OFFSET)[0]
        }
    }

    /// The entry's offset field: a v2 batch's base offset; a legacy message's own offset, which
    /// for a compressed wrapper is the offset of its **last** inner message. For Kafka's
    /// `baseOffset` of a compressed legacy wrapper (its first inner offset) use
    /// [`Self::first_offset`].
    pub fn base_offset(&self) -> i64 {
        self.i64_at(0)
    }

    /// Kafka's `baseOffset()`: the header field for v2; for legacy, the offset of the first
    /// message, which for a compressed wrapper means decompressing it.
    pub fn first_offset(&self) -> Result<i64, RecordError> {
        if self.is_v2() || self.compression()? == Compression::None {
            return Ok(self.base_offset());
        }
        let records = self.records()?;
        match records.first() {
            Some(r) => Ok(r.offset),
            None => Err(RecordError::EmptyWrapper {
                position: self.position,
            }),
        }
    }

    /// Offset of the last record: `baseOffset + lastOffsetDelta` (v2) or the entry offset (legacy).
    pub fn last_offset(&self) -> i64 {
        if self.is_v2() {
            self.base_offset()
                .wrapping_add(i64::from(self.i32_at(LAST_OFFSET_DELTA_OFFSET)))
        } else {
            self.base_offset()
        }
    }

    /// `lastOffset + 1`.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }

    /// v2: the header's maxTimestamp; v1: the message timestamp; v0: -1.
    pub fn max_timestamp(&self) -> i64 {
        match self.magic() {
            0 => NO_TIMESTAMP,
            1 => self.i64_at(LEGACY_TIMESTAMP_OFFSET),
            _ => self.i64_at(MAX_TIMESTAMP_OFFSET),
        }
    }

    /// v2: the leader epoch field; legacy: -1.
    pub fn partition_leader_epoch(&self) -> i32 {
        if self.is_v2() {
            self.i32_at(PARTITION_LEADER_EPOCH_OFFSET)
        } else {
            NO_PARTITION_LEADER_EPOCH
        }
    }

    /// v2: the header's record count; legacy: `None` (Kafka's `countOrNull`).
    pub fn records_count(&self) -> Option<i32> {
        self.is_v2().then(|| self.i32_at(RECORDS_COUNT_OFFSET))
    }

    /// The stored checksum: CRC-32C for v2, CRC-32 for legacy.
    pub fn checksum(&self) -> u32 {
        if self.is_v2() {
            u32::from_be_bytes(be(self.bytes, CRC_OFFSET))
        } else {
            u32::from_be_bytes(be(self.bytes, LEGACY_CRC_OFFSET))
        }
    }

    /// The checksum computed over the bytes it covers: CRC-32C of `[21, end)` for v2, CRC-32 of
    /// the message from its magic byte for legacy.
    pub fn compute_checksum(&self) -> u32 {
        if self.is_v2() {
            super::crc32c(self.bytes.get(ATTRIBUTES_OFFSET..).unwrap_or_default())
        } else {
            crc32fast::hash(self.bytes.get(MAGIC_OFFSET..).unwrap_or_default())
        }
    }

    /// Kafka's `isValid`: the entry is at least its format's overhead and the CRC matches.
    pub fn is_valid(&self) -> bool {
        self.ensure_valid().is_ok()
    }

    /// Like [`Self::is_valid`], with the reason.
    pub fn ensure_valid(&self) -> Result<(), RecordError> {
        let min = if self.is_v2() {
            RECORD_BATCH_OVERHEAD
        } else {
            LOG_OVERHEAD + RECORD_OVERHEAD_V0
        };
        if self.size_in_bytes() < min {
            return Err(RecordError::BatchTooSmall {
                position: self.position,
                size: self.size_in_bytes(),
            });
        }
        let (stored, computed) = (self.checksum(), self.compute_checksum());
        if stored == computed {
            Ok(())
        } else {
            Err(RecordError::CrcMismatch {
                position: self.position,
                stored,
                computed,
            })
        }
    }

    /// The codec in attribute bits 0–2.
    pub fn compression(&self) -> Result<Compression, RecordError> {
        let id = i32::from(self.attributes() & COMPRESSION_CODEC_MASK);
        Compression::from_id(id).map_err(|e| e.offset_by(self.position))
    }

    /// NoTimestamp for magic 0, else attribute bit 3.
    pub fn timestamp_type(&self) -> TimestampType {
        TimestampType::from_attributes(self.magic(), self.attributes())
    }

    /// Attribute bit 4 (always false for legacy).
    pub fn is_transactional(&self) -> bool {
        self.is_v2() && self.attributes() & TRANSACTIONAL_FLAG_MASK != 0
    }

    /// Attribute bit 5 (always false for legacy).
    pub fn is_control(&self) -> bool {
        self.is_v2() && self.attributes() & CONTROL_FLAG_MASK != 0
    }

    /// v2: the producer id; legacy: -1.
    pub fn producer_id(&self) -> i64 {
        self.header()
            .map_or(super::NO_PRODUCER_ID, |h| h.producer_id)
    }

    /// v2: the producer epoch; legacy: -1.
    pub fn producer_epoch(&self) -> i16 {
        self.header()
            .map_or(super::NO_PRODUCER_EPOCH, |h| h.producer_epoch)
    }

    /// v2: the first record's sequence; legacy: -1.
    pub fn base_sequence(&self) -> i32 {
        self.header()
            .map_or(super::NO_SEQUENCE, |h| h.base_sequence)
    }

    /// v2: the last record's sequence (see [`BatchHeader::last_sequence`]); legacy: -1.
    pub fn last_sequence(&self) -> i32 {
        self.header()
            .map_or(super::NO_SEQUENCE, |h| h.last_sequence())
    }

    /// v2: the delete horizon if attribute bit 6 is set; legacy: none.
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        self.header().and_then(|h| h.delete_horizon_ms())
    }

    /// Every header field of a magic 2 batch; `None` for legacy entries.
    pub fn header(&self) -> Option<BatchHeader> {
        if self.is_v2() {
            BatchHeader::parse(self.bytes).ok()
        } else {
            None
        }
    }

    /// The records, decompressed and decoded (Kafka's deep iteration), with the default bound
    /// on decompressed size ([`DEFAULT_MAX_DECOMPRESSED_BYTES`](super::DEFAULT_MAX_DECOMPRESSED_BYTES)).
    ///
    /// The CRC is not checked (DumpLogSegments decodes invalid batches too); call
    /// [`Self::ensure_valid`] first when it matters.
    pub fn records(&self) -> Result<Vec<Record>, RecordError> {
        self.record_iter()?.collect()
    }

    /// [`Self::records`] with a caller-chosen bound on decompressed bytes.
    pub fn records_with_limit(&self, max_decompressed: usize) -> Result<Vec<Record>, RecordError> {
        self.record_iter_with_limit(max_decompressed)?.collect()
    }

    /// The records one at a time, decoded lazily; a compressed batch is decompressed as the
    /// records are read (a codec block or buffer at a time), as Kafka's readers do, so memory
    /// stays at about the largest record whatever the batch holds.
    pub fn record_iter(&self) -> Result<RecordIter<'a>, RecordError> {
        self.record_iter_with_limit(codec::DEFAULT_MAX_DECOMPRESSED_BYTES)
    }

    /// [`Self::record_iter`] with a caller-chosen bound on decompressed bytes.
    pub fn record_iter_with_limit(
        &self,
        max_decompressed: usize,
    ) -> Result<RecordIter<'a>, RecordError> {
        if !self.is_v2() {
            return Ok(Inner::Legacy(legacy::deep_records(
                self.bytes,
                self.position,
                max_decompressed,
            )?)
            .into());
        }
        Ok(Inner::v2(
            Cow::Borrowed(self.bytes),
            self.position,
            self.plan()?,
            max_decompressed,
        )?
        .into())
    }

    /// How the records of this magic 2 batch are read, checked from its header.
    fn plan(&self) -> Result<Plan, RecordError> {
        let header = BatchHeader::parse(self.bytes).map_err(|e| e.offset_by(self.position))?;
        if header.records_count < 0 {
            return Err(RecordError::InvalidRecordCount {
                position: self.position,
                count: header.records_count,
            });
        }
        let compression = header
            .compression()
            .map_err(|e| e.offset_by(self.position))?;
        let ctx = V2Context {
            base_offset: header.base_offset,
            base_timestamp: header.base_timestamp,
            log_append_time: (header.timestamp_type() == TimestampType::LogAppendTime)
                .then_some(header.max_timestamp),
            base_sequence: header.base_sequence,
            timestamp_type: header.timestamp_type(),
        };
        let count = header.records_count.cast_unsigned();
        Ok(
            if header.records_count == 0 || compression == Compression::None {
                // Kafka returns no records for a zero count without looking at the bytes.
                Plan::Plain { ctx, count }
            } else {
                Plan::Compressed {
                    ctx,
                    count,
                    compression,
                }
            },
        )
    }
}

/// How a magic 2 batch's records are read ([`RawBatch::plan`]).
enum Plan {
    /// Records stored as they are (or none).
    Plain { ctx: V2Context, count: u32 },
    /// Records behind a codec.
    Compressed {
        ctx: V2Context,
        count: u32,
        compression: Compression,
    },
}

/// The records of one batch, decoded one by one; stops after the first error.
#[derive(Debug)]
pub struct RecordIter<'a> {
    inner: Inner<'a>,
}

impl RecordIter<'static> {
    /// The records of the entry that starts `bytes` (a whole entry, as a fetch hands it out),
    /// owning them: a consumer keeps the iterator, not a borrow. Positions in errors count from
    /// the start of `bytes`.
    pub fn owned(bytes: Vec<u8>) -> Result<Self, RecordError> {
        Self::owned_with_limit(bytes, codec::DEFAULT_MAX_DECOMPRESSED_BYTES)
    }

    /// [`Self::owned`] with a caller-chosen bound on decompressed bytes.
    pub fn owned_with_limit(bytes: Vec<u8>, max_decompressed: usize) -> Result<Self, RecordError> {
        let plan = match RawBatch::read_at(&bytes, 0)? {
            Some(batch) if !batch.is_v2() => {
                let bytes: std::sync::Arc<[u8]> = bytes.into();
                return Ok(Inner::Legacy(legacy::deep_records(bytes, 0, max_decompressed)?).into());
            }
            Some(batch) => batch.plan()?,
            None => {
                return Err(RecordError::Truncated {
                    position: 0,
                    what: "batch",
                    needed: LOG_OVERHEAD + RECORD_OVERHEAD_V0,
                    remaining: bytes.len(),
                })
            }
        };
        Ok(Inner::v2(Cow::Owned(bytes), 0, plan, max_decompressed)?.into())
    }
}

/// The records of a whole batch's bytes, after its header.
struct Body<'a>(Cow<'a, [u8]>);

impl AsRef<[u8]> for Body<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0.get(RECORD_BATCH_OVERHEAD..).unwrap_or_default()
    }
}

impl<'a> From<Inner<'a>> for RecordIter<'a> {
    fn from(inner: Inner<'a>) -> Self {
        RecordIter { inner }
    }
}

enum Inner<'a> {
    /// Records in a buffer: `buf[pos..]` is at `base + pos` of the input.
    V2 {
        buf: Cow<'a, [u8]>,
        pos: usize,
        base: usize,
        remaining: u32,
        ctx: V2Context,
        done: bool,
    },
    /// Records read from a decompressing stream, one at a time into `record`.
    Stream {
        source: Box<dyn Read + Send + 'a>,
        compression: Compression,
        /// Where the compressed bytes start in the input.
        compressed_at: usize,
        /// Position of the next record in the decompressed stream.
        pos: usize,
        remaining: u32,
        ctx: V2Context,
        done: bool,
        record: Vec<u8>,
    },
    Legacy(legacy::LegacyRecords<'a>),
}

impl std::fmt::Debug for Inner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Inner::V2 { pos, remaining, .. } => f
                .debug_struct("V2")
                .field("pos", pos)
                .field("remaining", remaining)
                .finish(),
            Inner::Stream {
                compression,
                pos,
                remaining,
                ..
            } => f
                .debug_struct("Stream")
                .field("compression", compression)
                .field("pos", pos)
                .field("remaining", remaining)
                .finish(),
            Inner::Legacy(records) => f.debug_tuple("Legacy").field(records).finish(),
        }
    }
}

impl<'a> Inner<'a> {
    /// The records of the magic 2 batch `bytes` (the whole batch, found at `position` of the
    /// input), read as `plan` says.
    fn v2(
        bytes: Cow<'a, [u8]>,
        position: usize,
        plan: Plan,
        max_decompressed: usize,
    ) -> Result<Self, RecordError> {
        let records_at = position + RECORD_BATCH_OVERHEAD;
        Ok(match plan {
            Plan::Plain { ctx, count } => Inner::V2 {
                buf: bytes,
                pos: RECORD_BATCH_OVERHEAD,
                base: position,
                remaining: count,
                ctx,
                done: false,
            },
            Plan::Compressed {
                ctx,
                count,
                compression,
            } => Inner::stream(
                codec::decompressing(compression, Body(bytes), max_decompressed, MAGIC_V2)
                    .map_err(|e| e.offset_by(records_at))?,
                compression,
                records_at,
                count,
                ctx,
            ),
        })
    }

    fn stream(
        source: Box<dyn Read + Send + 'a>,
        compression: Compression,
        compressed_at: usize,
        remaining: u32,
        ctx: V2Context,
    ) -> Self {
        Inner::Stream {
            source,
            compression,
            compressed_at,
            pos: 0,
            remaining,
            ctx,
            done: false,
            record: Vec::new(),
        }
    }
}

/// Reads one record's bytes from `source` into `record` (cleared first): its length varint,
/// then as many bytes as it says, or fewer where the stream ends (the record's decoder then
/// reports the shortfall as it does for a buffer). Memory grows with the bytes that arrive,
/// never with what a length claims.
fn read_record_bytes(source: &mut dyn Read, record: &mut Vec<u8>) -> io::Result<()> {
    record.clear();
    let mut byte = [0u8; 1];
    while record.len() < 5 {
        if source.read(&mut byte)? == 0 {
            return Ok(());
        }
        record.push(byte[0]);
        if byte[0] & 0x80 == 0 {
            break;
        }
    }
    let mut c = Cursor::new(record, 0);
    let Ok(length) = c.varint("record length") else {
        return Ok(());
    };
    if let Ok(length) = u64::try_from(length) {
        source.take(length).read_to_end(record)?;
    }
    Ok(())
}

impl RecordIter<'_> {
    /// Decodes the next record with `parse`, applying the batch-level rules (count, bytes left
    /// over after the last record, positions inside decompressed data).
    fn step<T>(
        &mut self,
        parse: impl FnOnce(&mut Cursor<'_>, &V2Context) -> Result<T, RecordError>,
        legacy: impl FnOnce(Record) -> T,
    ) -> Option<Result<T, RecordError>> {
        match &mut self.inner {
            Inner::Legacy(it) => it.next().map(|record| record.map(legacy)),
            Inner::V2 {
                buf,
                pos,
                base,
                remaining,
                ctx,
                done,
            } => {
                if *done || *remaining == 0 {
                    return None;
                }
                let rest = buf.get(*pos..).unwrap_or_default();
                let mut cur = Cursor::new(rest, *base + *pos);
                let result = if rest.is_empty() {
                    Err(RecordError::PrematureEof {
                        position: cur.position(),
                    })
                } else {
                    parse(&mut cur, ctx)
                };
                *pos += cur.consumed();
                *remaining -= 1;
                let result = match result {
                    Ok(_) if *remaining == 0 && cur.remaining() > 0 => {
                        Err(RecordError::RecordsRemaining {
                            position: cur.position(),
                        })
                    }
                    other => other,
                };
                *done = result.is_err();
                Some(result)
            }
            Inner::Stream {
                source,
                compression,
                compressed_at,
                pos,
                remaining,
                ctx,
                done,
                record,
            } => {
                if *done || *remaining == 0 {
                    return None;
                }
                *done = true;
                let at = *compressed_at;
                let codec_error = |e| codec::stream_error(*compression, e).offset_by(at);
                if let Err(e) = read_record_bytes(source, record) {
                    return Some(Err(codec_error(e)));
                }
                let mut cur = Cursor::new(record, *pos);
                let result = if record.is_empty() {
                    Err(RecordError::PrematureEof { position: *pos })
                } else {
                    parse(&mut cur, ctx)
                };
                *pos += record.len();
                *remaining -= 1;
                let result = match result {
                    Ok(_) if *remaining == 0 => {
                        // Bytes after the declared count are an error, as in a buffer.
                        match source.read(&mut [0u8; 1]) {
                            Ok(0) => result,
                            Ok(_) => Err(RecordError::RecordsRemaining { position: *pos }),
                            Err(e) => return Some(Err(codec_error(e))),
                        }
                    }
                    other => other,
                };
                *done = result.is_err();
                Some(result.map_err(|e| e.in_decompressed(at)))
            }
        }
    }

    /// The next record's offset, with the record checked as fully as [`Iterator::next`] checks
    /// it but nothing copied (used to validate batches on append).
    pub fn next_offset(&mut self) -> Option<Result<i64, RecordError>> {
        self.step(
            |cur, ctx| {
                parse_v2_record(cur, |_, _| {})
                    .map(|parts| ctx.base_offset.wrapping_add(i64::from(parts.offset_delta)))
            },
            |record| record.offset,
        )
    }
}

impl RecordIter<'_> {
    /// The next record's offset, key and whether it has a value, handed to `f` without copying
    /// the record (the key borrowed from the batch, or from the decompressed record), the
    /// record checked as fully as [`Iterator::next`] checks it: what a compaction's offset map
    /// reads of each record.
    pub fn next_key(
        &mut self,
        f: impl FnOnce(i64, Option<&[u8]>, bool),
    ) -> Option<Result<(), RecordError>> {
        // One of the two closures runs; both may hold `f`.
        let f = std::cell::Cell::new(Some(f));
        self.step(
            |cur, ctx| {
                parse_v2_record(cur, |_, _| {}).map(|parts| {
                    if let Some(f) = f.take() {
                        let offset = ctx.base_offset.wrapping_add(i64::from(parts.offset_delta));
                        f(offset, parts.key, parts.value.is_some());
                    }
                })
            },
            |record| {
                if let Some(f) = f.take() {
                    f(record.offset, record.key.as_deref(), record.value.is_some());
                }
            },
        )
    }
}

impl Iterator for RecordIter<'_> {
    type Item = Result<Record, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step(read_v2_record, |record| record)
    }
}

/// Kafka's `FileLogInputStream` over a slice: the log entries front to back.
///
/// Yields `Ok` per complete entry. Stops (yields `None`) at the end or at a partial entry; yields
/// one `Err` and then stops for an entry that cannot be an entry (size below 14, unknown magic,
/// v2 batch shorter than its header). [`BatchIter::position`] then tells where the scan stopped:
/// everything before it was yielded as `Ok`, so `buf.len() - position()` is what Kafka calls
/// invalid bytes at the end.
#[derive(Debug, Clone)]
pub struct BatchIter<'a> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
}

impl BatchIter<'_> {
    /// The position of the first byte not yet yielded as part of an `Ok` entry.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = Result<RawBatch<'a>, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match RawBatch::read_at(self.buf, self.pos) {
            Ok(Some(batch)) => {
                self.pos += batch.size_in_bytes();
                Some(Ok(batch))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for BatchIter<'_> {}

/// Scans `buf` (a segment, or any run of log entries) for entries; see [`BatchIter`].
pub fn batches(buf: &[u8]) -> BatchIter<'_> {
    BatchIter {
        buf,
        pos: 0,
        done: false,
    }
}

fn patch(batch: &mut [u8], at: usize, value: &[u8], what: &'static str) -> Result<(), RecordError> {
    let len = batch.len();
    match batch.get_mut(at..at + value.len()) {
        Some(dst) => {
            dst.copy_from_slice(value);
            Ok(())
        }
        None => Err(RecordError::Truncated {
            position: at,
            what,
            needed: value.len(),
            remaining: len.saturating_sub(at),
        }),
    }
}

fn ensure_v2(batch: &[u8]) -> Result<(), RecordError> {
    if batch.len() < RECORD_BATCH_OVERHEAD {
        return Err(RecordError::BatchTooSmall {
            position: 0,
            size: batch.len(),
        });
    }
    let magic = i8::from_be_bytes(be(batch, MAGIC_OFFSET));
    if magic != MAGIC_V2 {
        return Err(RecordError::NotV2 { position: 0, magic });
    }
    Ok(())
}

/// Overwrites the entry's offset field (a v2 base offset, or a legacy message offset) in place.
/// It is outside the CRC, which is why a leader can assign offsets without recomputing it.
pub fn set_base_offset(batch: &mut [u8], base_offset: i64) -> Result<(), RecordError> {
    patch(batch, 0, &base_offset.to_be_bytes(), "baseOffset")
}

/// Overwrites a v2 batch's partitionLeaderEpoch in place (outside the CRC).
pub fn set_partition_leader_epoch(batch: &mut [u8], epoch: i32) -> Result<(), RecordError> {
    ensure_v2(batch)?;
    patch(
        batch,
        PARTITION_LEADER_EPOCH_OFFSET,
        &epoch.to_be_bytes(),
        "partitionLeaderEpoch",
    )
}

/// What a leader does to a v2 batch of a LogAppendTime topic: sets attribute bit 3 and
/// maxTimestamp to `now`, then recomputes the CRC, in place. `batch` starts with the batch;
/// bytes after its `12 + batchLength` are left alone.
pub fn set_log_append_time(batch: &mut [u8], now: i64) -> Result<(), RecordError> {
    ensure_v2(batch)?;
    let attributes =
        i16::from_be_bytes(be(batch, ATTRIBUTES_OFFSET)) | i16::from(TIMESTAMP_TYPE_MASK);
    patch(
        batch,
        ATTRIBUTES_OFFSET,
        &attributes.to_be_bytes(),
        "attributes",
    )?;
    patch(
        batch,
        MAX_TIMESTAMP_OFFSET,
        &now.to_be_bytes(),
        "maxTimestamp",
    )?;
    update_crc(batch)
}

/// What an idempotent producer's sender does to a v2 batch before it first sends it (Kafka's
/// `ProducerBatch.setProducerState`): sets producerId, producerEpoch and baseSequence, then
/// recomputes the CRC, in place.
pub fn set_producer_state(
    batch: &mut [u8],
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
) -> Result<(), RecordError> {
    ensure_v2(batch)?;
    patch(
        batch,
        PRODUCER_ID_OFFSET,
        &producer_id.to_be_bytes(),
        "producerId",
    )?;
    patch(
        batch,
        PRODUCER_ID_OFFSET + 8,
        &producer_epoch.to_be_bytes(),
        "producerEpoch",
    )?;
    patch(
        batch,
        PRODUCER_ID_OFFSET + 10,
        &base_sequence.to_be_bytes(),
        "baseSequence",
    )?;
    update_crc(batch)
}

/// Recomputes a v2 batch's CRC over `[attributes, end of the batch)`.
fn update_crc(batch: &mut [u8]) -> Result<(), RecordError> {
    let end =
        LOG_OVERHEAD.saturating_add(read_len(i32::from_be_bytes(be(batch, BATCH_LENGTH_OFFSET))));
    let Some(covered) = batch.get(ATTRIBUTES_OFFSET..end) else {
        return Err(RecordError::Truncated {
            position: 0,
            what: "batch",
            needed: end,
            remaining: batch.len(),
        });
    };
    let crc = super::crc32c(covered);
    patch(batch, CRC_OFFSET, &crc.to_be_bytes(), "crc")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{BatchBuilder, Compression, TimestampType};

    fn built(state: Option<(i64, i16, i32)>) -> Vec<u8> {
        let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        if let Some((pid, epoch, seq)) = state {
            b = b.producer_id(pid).producer_epoch(epoch).base_sequence(seq);
        }
        b.append(1, Some(b"k"), Some(b"v"), &[]);
        b.append(2, None, Some(b"w"), &[]);
        b.build().unwrap()
    }

    #[test]
    fn producer_state_set_later_is_what_the_builder_writes() {
        let mut plain = built(None);
        set_producer_state(&mut plain, 7, 3, 42).unwrap();
        assert_eq!(plain, built(Some((7, 3, 42))));
        let batch = RawBatch::read_at(&plain, 0).unwrap().unwrap();
        assert!(batch.is_valid());
        assert_eq!(
            (
                batch.producer_id(),
                batch.producer_epoch(),
                batch.base_sequence()
            ),
            (7, 3, 42)
        );
    }
}
