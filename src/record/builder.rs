//! Writing one magic 2 batch, as the Java producer's `MemoryRecordsBuilder` does.

use super::batch::{
    BatchHeader, ATTRIBUTES_OFFSET, COMPRESSION_CODEC_MASK, CONTROL_FLAG_MASK, CRC_OFFSET,
    DELETE_HORIZON_FLAG_MASK, TIMESTAMP_TYPE_MASK, TRANSACTIONAL_FLAG_MASK,
};
use super::record::{body_size, fields_size, write_v2_record, Header, ShortValueHead, ShortVarint};
use super::varint::size_of_varint;
use crate::java::long_to_int;

use super::{
    codec, int_len, Compression, RecordError, TimestampType, LOG_OVERHEAD, MAGIC_V2,
    MAX_RECORD_OVERHEAD, NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE,
    NO_TIMESTAMP, RECORD_BATCH_OVERHEAD,
};

/// Kafka's `MemoryRecordsBuilder.COMPRESSION_RATE_ESTIMATION_FACTOR`: the margin on the
/// estimated compressed size of a batch being filled.
const COMPRESSION_RATE_ESTIMATION_FACTOR: f32 = 1.05;

/// Builds one magic 2 batch: header fields set up front, records appended with consecutive
/// (or, through [`Self::append_with_offset`], increasing) offsets, compression and the CRC
/// applied by [`Self::build`].
///
/// As in Kafka: baseTimestamp is the first record's timestamp, each record stores its delta from
/// it (possibly negative); maxTimestamp is the largest record timestamp (starting from -1), or
/// the log-append time for [`TimestampType::LogAppendTime`]. [`TimestampType::NoTimestamp`] does
/// not exist for magic 2 and is written as CreateTime.
#[derive(Debug, Clone)]
pub struct BatchBuilder {
    base_offset: i64,
    compression: Compression,
    timestamp_type: TimestampType,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    partition_leader_epoch: i32,
    transactional: bool,
    control: bool,
    log_append_time: Option<i64>,
    delete_horizon_ms: Option<i64>,
    /// The batch being written: [`RECORD_BATCH_OVERHEAD`] bytes kept for the header, then the
    /// records, so an uncompressed batch is finished in place.
    buf: Vec<u8>,
    count: i32,
    last_offset: Option<i64>,
    /// Every offset so far was the next one (no gap from [`Self::append_with_offset`]).
    dense: bool,
    /// The last offset the header names when it is not the last record's
    /// ([`Self::override_last_offset`]).
    last_offset_override: Option<i64>,
    base_timestamp: Option<i64>,
    max_timestamp: i64,
    /// What the records are expected to compress to, as a fraction (Kafka's
    /// `estimatedCompressionRatio`; 1 until a producer sets its running estimate).
    estimated_compression_ratio: f32,
}

impl BatchBuilder {
    /// An empty batch starting at `base_offset`, without producer id/epoch/sequence and with
    /// partitionLeaderEpoch -1, as a non-idempotent producer writes it.
    pub fn new(base_offset: i64, compression: Compression, timestamp_type: TimestampType) -> Self {
        Self::with_capacity(base_offset, compression, timestamp_type, 0)
    }

    /// [`Self::new`] with room for `capacity` bytes of batch before any reallocation (a
    /// producer passes its `batch.size`).
    pub fn with_capacity(
        base_offset: i64,
        compression: Compression,
        timestamp_type: TimestampType,
        capacity: usize,
    ) -> Self {
        Self::with_buffer(
            base_offset,
            compression,
            timestamp_type,
            Vec::with_capacity(capacity),
        )
    }

    /// [`Self::new`] writing into `buffer`'s allocation (its contents are discarded): a
    /// producer reuses the buffers of batches already written, as Kafka's `BufferPool` does.
    pub fn with_buffer(
        base_offset: i64,
        compression: Compression,
        timestamp_type: TimestampType,
        mut buf: Vec<u8>,
    ) -> Self {
        buf.clear();
        buf.resize(RECORD_BATCH_OVERHEAD, 0);
        Self {
            base_offset,
            compression,
            timestamp_type,
            producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            base_sequence: NO_SEQUENCE,
            partition_leader_epoch: NO_PARTITION_LEADER_EPOCH,
            transactional: false,
            control: false,
            log_append_time: None,
            delete_horizon_ms: None,
            buf,
            count: 0,
            last_offset: None,
            dense: true,
            last_offset_override: None,
            base_timestamp: None,
            max_timestamp: NO_TIMESTAMP,
            estimated_compression_ratio: 1.0,
        }
    }

    /// Sets the producer id (idempotent or transactional producers).
    #[must_use]
    pub fn producer_id(mut self, producer_id: i64) -> Self {
        self.producer_id = producer_id;
        self
    }

    /// Sets the producer epoch.
    #[must_use]
    pub fn producer_epoch(mut self, producer_epoch: i16) -> Self {
        self.producer_epoch = producer_epoch;
        self
    }

    /// Sets the sequence number of the first record.
    #[must_use]
    pub fn base_sequence(mut self, base_sequence: i32) -> Self {
        self.base_sequence = base_sequence;
        self
    }

    /// Sets partitionLeaderEpoch (a leader stamps it on append).
    #[must_use]
    pub fn partition_leader_epoch(mut self, epoch: i32) -> Self {
        self.partition_leader_epoch = epoch;
        self
    }

    /// Marks the batch transactional (attribute bit 4).
    #[must_use]
    pub fn transactional(mut self, transactional: bool) -> Self {
        self.transactional = transactional;
        self
    }

    /// Marks the batch as a control batch (attribute bit 5).
    #[must_use]
    pub fn control(mut self, control: bool) -> Self {
        self.control = control;
        self
    }

    /// The broker time written as maxTimestamp when the timestamp type is LogAppendTime
    /// (without it, the largest record timestamp is used).
    #[must_use]
    pub fn log_append_time(mut self, now: i64) -> Self {
        self.log_append_time = Some(now);
        self
    }

    /// Sets the delete horizon (attribute bit 6). Kafka's cleaner stores it as baseTimestamp,
    /// so record timestamp deltas count from it: set it before the first append.
    #[must_use]
    pub fn delete_horizon_ms(mut self, horizon: i64) -> Self {
        self.delete_horizon_ms = Some(horizon);
        self.base_timestamp = Some(horizon);
        self
    }

    /// Makes the header name `last` as the batch's last offset whatever the last record's is
    /// (Kafka's `MemoryRecordsBuilder.overrideLastOffset`: a cleaned batch keeps its original
    /// last offset, and with it its producer's last sequence).
    #[must_use]
    pub fn override_last_offset(mut self, last: i64) -> Self {
        self.last_offset_override = Some(last);
        self
    }

    /// Sets the fraction the records are expected to compress to, for
    /// [`Self::estimated_size_in_bytes`] (Kafka's `setEstimatedCompressionRatio`; a producer
    /// gives each new batch its running estimate).
    pub fn set_estimated_compression_ratio(&mut self, ratio: f32) {
        self.estimated_compression_ratio = ratio;
    }

    /// The offset the next [`Self::append`] assigns.
    pub fn next_offset(&self) -> i64 {
        self.last_offset
            .map_or(self.base_offset, |o| o.wrapping_add(1))
    }

    /// Records appended so far.
    pub fn record_count(&self) -> i32 {
        self.count
    }

    /// No record appended yet.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Appends a record at the next offset and returns that offset.
    pub fn append(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> i64 {
        let offset = self.next_offset();
        let fields = fields_size(key, value, headers);
        self.push(offset, None, fields, timestamp, key, value, headers);
        offset
    }

    /// Appends a record at `offset`, which must be above the previous one and within
    /// `i32::MAX` of the base offset (gaps are allowed, as in compacted batches).
    pub fn append_with_offset(
        &mut self,
        offset: i64,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Result<i64, RecordError> {
        let delta = offset.checked_sub(self.base_offset);
        let above_last = self.last_offset.is_none_or(|last| offset > last);
        if !above_last || !delta.is_some_and(|d| (0..=i64::from(i32::MAX)).contains(&d)) {
            return Err(RecordError::InvalidAppendOffset {
                position: 0,
                offset,
                base_offset: self.base_offset,
                last_offset: self.last_offset,
            });
        }
        let fields = fields_size(key, value, headers);
        self.push(offset, None, fields, timestamp, key, value, headers);
        Ok(offset)
    }

    /// Appends a record at the next offset if the batch's [`Self::estimated_size_in_bytes`]
    /// then stays within `limit` bytes (the exact size without compression), as Kafka's
    /// `ProducerBatch.tryAppend`: returns its offset, or `None` (nothing written) when it would
    /// not fit. An empty batch takes any record, however large.
    pub fn try_append(
        &mut self,
        limit: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Option<i64> {
        let fields = fields_size(key, value, headers);
        self.try_append_sized(limit, usize::MAX, fields, timestamp, key, value, headers)
    }

    /// [`Self::try_append`] of a record whose [`fields_size`] the caller already has, which
    /// also keeps the records within `room` bytes before compression ([`Self::has_room_for`]).
    #[allow(clippy::too_many_arguments)] // the record's four fields, its size and the bounds
    #[inline(always)]
    pub(crate) fn try_append_sized(
        &mut self,
        limit: usize,
        room: usize,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Option<i64> {
        let offset = self.next_offset();
        self.push(
            offset,
            Some((limit, room)),
            fields,
            timestamp,
            key,
            value,
            headers,
        )
        .then_some(offset)
    }

    /// Appends records of a null key, no headers and `timestamp`, one for each value `values`
    /// yields, at the next offsets, as [`Self::try_append`] would one by one: while each fits
    /// within `limit`, the records stay within `room` bytes before compression (each counted
    /// at its longest, [`MAX_RECORD_OVERHEAD`] besides its fields; `usize::MAX` for no such
    /// bound), and each record's key, value and headers fields, with their lengths, take at
    /// most `max_fields` bytes. Returns the first value that did not fit (not appended), or
    /// `None` once `values` has run out.
    ///
    /// What holds for the whole run (the timestamp delta) is worked out once, not per record,
    /// and a record whose varints take at most two bytes is written from two words: the
    /// console producer appends its lines this way.
    pub fn append_values<'a>(
        &mut self,
        limit: usize,
        room: usize,
        max_fields: usize,
        timestamp: i64,
        values: &mut impl Iterator<Item = Option<&'a [u8]>>,
    ) -> Option<Option<&'a [u8]>> {
        let base_timestamp = self.base_timestamp.unwrap_or(timestamp);
        let timestamp_delta = timestamp.wrapping_sub(base_timestamp);
        let short_timestamp = ShortVarint::of(timestamp_delta);
        let mut offset = self.next_offset();
        let mut appended = false;
        let mut refused = None;
        for value in values {
            let offset_delta = long_to_int(offset.wrapping_sub(self.base_offset));
            let short = match (short_timestamp, value) {
                (Some(t), Some(v)) => ShortValueHead::new(t, offset_delta, v.len()),
                _ => None,
            };
            let (size, fields) = match &short {
                Some(head) => (head.size, head.fields),
                None => {
                    let fields = fields_size(None, value, &[]);
                    let body = body_size(fields, offset_delta, timestamp_delta);
                    (size_of_varint(int_len(body)) + body, fields)
                }
            };
            if fields > max_fields || !self.has_room_for(size, fields, limit, room) {
                refused = Some(value);
                break;
            }
            match (short, value) {
                (Some(head), Some(value)) => head.write(&mut self.buf, value),
                _ => write_v2_record(
                    &mut self.buf,
                    body_size(fields, offset_delta, timestamp_delta),
                    offset_delta,
                    timestamp_delta,
                    None,
                    value,
                    &[],
                ),
            }
            self.count = self.count.wrapping_add(1);
            offset = offset.wrapping_add(1);
            appended = true;
        }
        if appended {
            self.base_timestamp = Some(base_timestamp);
            self.last_offset = Some(offset.wrapping_sub(1));
            self.max_timestamp = self.max_timestamp.max(timestamp);
        }
        refused
    }

    /// Kafka's `hasRoomFor`, with the room before compression the producer keeps: whether a
    /// record of `size` bytes (its length prefix included) and [`fields_size`] `fields` keeps
    /// the batch's estimated size ([`Self::estimated_size_in_bytes`], the record counted
    /// uncompressed: "be conservative") within `limit`, and the records within `room` bytes
    /// before compression, each counted at its longest ([`MAX_RECORD_OVERHEAD`] besides its
    /// fields). An empty batch takes any record.
    #[inline(always)]
    fn has_room_for(&self, size: usize, fields: usize, limit: usize, room: usize) -> bool {
        self.count == 0
            || (self.estimated_size_in_bytes() + size <= limit
                && self.buf.len() + MAX_RECORD_OVERHEAD + fields <= room)
    }

    /// Writes a record of [`fields_size`] `fields` at `offset`, its size computed once for the
    /// check and the writer. With `bounds` (limit, room), only if [`Self::has_room_for`] says
    /// it fits; false when it does not (nothing written).
    #[allow(clippy::too_many_arguments)] // the record's four fields, where and against what
    #[inline(always)]
    fn push(
        &mut self,
        offset: i64,
        bounds: Option<(usize, usize)>,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> bool {
        let offset_delta = long_to_int(offset.wrapping_sub(self.base_offset));
        let base_timestamp = self.base_timestamp.unwrap_or(timestamp);
        let timestamp_delta = timestamp.wrapping_sub(base_timestamp);
        let body = body_size(fields, offset_delta, timestamp_delta);
        if let Some((limit, room)) = bounds {
            if !self.has_room_for(size_of_varint(int_len(body)) + body, fields, limit, room) {
                return false;
            }
        }
        self.dense &= offset == self.next_offset();
        self.base_timestamp = Some(base_timestamp);
        write_v2_record(
            &mut self.buf,
            body,
            offset_delta,
            timestamp_delta,
            key,
            value,
            headers,
        );
        if timestamp > self.max_timestamp {
            self.max_timestamp = timestamp;
        }
        self.count = self.count.wrapping_add(1);
        self.last_offset = Some(offset);
        true
    }

    /// Kafka's `estimatedBytesWritten`: the batch's size if built now, exact without
    /// compression; with it, the header and the records' bytes times the estimated compression
    /// ratio and a 5% margin (`COMPRESSION_RATE_ESTIMATION_FACTOR`), in Java's float arithmetic.
    pub fn estimated_size_in_bytes(&self) -> usize {
        match self.compression {
            Compression::None => self.buf.len(),
            _ => {
                let records = self.buf.len().saturating_sub(RECORD_BATCH_OVERHEAD);
                // Java's `(int) (float * float * float)` of a size and two positive factors:
                // the float estimate is what Kafka rounds (down) too.
                #[allow(
                    clippy::cast_precision_loss,
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss
                )]
                let estimate = (records as f32
                    * self.estimated_compression_ratio
                    * COMPRESSION_RATE_ESTIMATION_FACTOR) as usize;
                RECORD_BATCH_OVERHEAD + estimate
            }
        }
    }

    /// The batch's size before compression: the header and the records as written.
    pub fn uncompressed_size_in_bytes(&self) -> usize {
        self.buf.len()
    }

    fn attributes(&self) -> i16 {
        let [id, ..] = self.compression.id().to_le_bytes();
        let mut a = id & COMPRESSION_CODEC_MASK;
        if self.timestamp_type == TimestampType::LogAppendTime {
            a |= TIMESTAMP_TYPE_MASK;
        }
        if self.transactional {
            a |= TRANSACTIONAL_FLAG_MASK;
        }
        if self.control {
            a |= CONTROL_FLAG_MASK;
        }
        if self.delete_horizon_ms.is_some() {
            a |= DELETE_HORIZON_FLAG_MASK;
        }
        i16::from(a)
    }

    /// The finished batch: header, records (compressed as asked), CRC-32C computed last.
    ///
    /// A builder with no records gives a valid empty batch (count 0, both timestamps -1).
    /// Fails only if the compressor does.
    pub fn build(self) -> Result<Vec<u8>, RecordError> {
        self.seal().map(BuiltBatch::into_bytes)
    }

    /// [`Self::build`], keeping what the builder knows of the batch (a log can append it
    /// without decoding it again: see [`BuiltBatch`]). An uncompressed batch is finished in the
    /// builder's buffer, without a copy.
    pub fn seal(mut self) -> Result<BuiltBatch, RecordError> {
        let attributes = self.attributes();
        let uncompressed_records = self.buf.len().saturating_sub(RECORD_BATCH_OVERHEAD);
        let mut bytes = match self.compression {
            Compression::None => std::mem::take(&mut self.buf),
            codec => {
                let records = self.buf.get(RECORD_BATCH_OVERHEAD..).unwrap_or_default();
                let payload = codec::compress(codec, records)?;
                let mut bytes = Vec::with_capacity(RECORD_BATCH_OVERHEAD + payload.len());
                bytes.resize(RECORD_BATCH_OVERHEAD, 0);
                bytes.extend_from_slice(&payload);
                bytes
            }
        };
        let max_timestamp = match (self.timestamp_type, self.log_append_time) {
            (TimestampType::LogAppendTime, Some(now)) => now,
            _ => self.max_timestamp,
        };
        let last_offset_delta = self
            .last_offset_override
            .or(self.last_offset)
            .map_or(0, |last| long_to_int(last.wrapping_sub(self.base_offset)));
        if self
            .last_offset_override
            .is_some_and(|o| Some(o) != self.last_offset)
        {
            self.dense = false;
        }
        let batch_length =
            i32::try_from(bytes.len() - LOG_OVERHEAD).map_err(|_| RecordError::BatchTooLarge {
                position: 0,
                size: bytes.len(),
            })?;
        let header = BatchHeader {
            base_offset: self.base_offset,
            batch_length,
            partition_leader_epoch: self.partition_leader_epoch,
            magic: MAGIC_V2,
            crc: 0,
            attributes,
            last_offset_delta,
            base_timestamp: self
                .delete_horizon_ms
                .or(self.base_timestamp)
                .unwrap_or(NO_TIMESTAMP),
            max_timestamp,
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            base_sequence: self.base_sequence,
            records_count: self.count,
        };
        if let Some(dst) = bytes.get_mut(..RECORD_BATCH_OVERHEAD) {
            dst.copy_from_slice(&header.to_bytes());
        }
        let crc = super::crc32c(bytes.get(ATTRIBUTES_OFFSET..).unwrap_or_default());
        if let Some(dst) = bytes.get_mut(CRC_OFFSET..CRC_OFFSET + 4) {
            dst.copy_from_slice(&crc.to_be_bytes());
        }
        Ok(BuiltBatch {
            bytes,
            compression: self.compression,
            records_count: self.count,
            base_offset: self.base_offset,
            last_offset_delta,
            max_timestamp,
            dense: self.dense,
            uncompressed_records,
        })
    }
}

/// A batch made by [`BatchBuilder`]: its bytes, and the facts a log checks before appending,
/// which it can take from here instead of decoding the records again. Only the builder makes
/// one, so its CRC is right and every record's length and offset delta are as the builder
/// wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltBatch {
    bytes: Vec<u8>,
    compression: Compression,
    records_count: i32,
    base_offset: i64,
    last_offset_delta: i32,
    max_timestamp: i64,
    dense: bool,
    /// Bytes of the records before compression.
    uncompressed_records: usize,
}

impl BuiltBatch {
    /// Kafka's `actualCompressionRatio`: the records' bytes after compression over before (1
    /// for an uncompressed or empty batch).
    pub fn compression_ratio(&self) -> f32 {
        if self.compression == Compression::None || self.uncompressed_records == 0 {
            return 1.0;
        }
        let compressed = self.bytes.len().saturating_sub(RECORD_BATCH_OVERHEAD);
        compressed as f32 / self.uncompressed_records as f32
    }

    /// The batch's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The batch's bytes, for a log to stamp offsets and times into (outside the records, so
    /// the facts kept here stay true).
    pub(crate) fn as_mut_bytes(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// The batch's bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The codec of its records.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// How many records it holds.
    pub fn records_count(&self) -> i32 {
        self.records_count
    }

    /// The base offset it was built with.
    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    /// Its lastOffsetDelta.
    pub fn last_offset_delta(&self) -> i32 {
        self.last_offset_delta
    }

    /// Its maxTimestamp.
    pub fn max_timestamp(&self) -> i64 {
        self.max_timestamp
    }

    /// Whether its records' offset deltas are exactly `0, 1, ..., count - 1` (every record was
    /// added with [`BatchBuilder::append`], none with a gap).
    pub fn has_consecutive_offsets(&self) -> bool {
        self.dense
    }
}
