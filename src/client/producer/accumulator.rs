//! The accumulator (Kafka's `RecordAccumulator` and its `ProducerBatch`es): one open batch per
//! partition on the producer's thread, sealed when the next record would not fit `batch.size`
//! or once it has waited `linger.ms`, and the sealed batches gathered into hand-off groups for
//! the sender.
//!
//! Everything here runs on the caller's thread, under no lock: the builder alone knows a
//! record's size in its batch ([`BatchBuilder::try_append_sized`], Kafka's
//! `ProducerBatch.tryAppend`). Buffers of written batches come back from the sender through a
//! channel and start the next batches (Kafka's `BufferPool`); the compression-ratio estimate
//! is shared with the sender, which moves it as it compresses batches.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::record::{
    BatchBuilder, BuiltBatch, Compression, Header, RecordError, TimestampType, MAX_RECORD_OVERHEAD,
    RECORD_BATCH_OVERHEAD,
};

use super::{ProduceError, ProducerConfig};

/// Kafka's `buffer.memory` default: the bytes of sealed batches that may wait for the sender.
const BUFFER_MEMORY: usize = 32 * 1024 * 1024;

/// Sealed batches go to the sender in groups of up to about this many bytes, gathered for at
/// most [`HANDOFF_DELAY`] (or less, when a flush asks): waking the sender thread for each 16 KiB
/// batch of a bulk load cost more than writing it, and a slow stream still has each full batch
/// written as soon as it is sealed.
pub(super) const HANDOFF_BYTES: usize = 1 << 20;
const HANDOFF_DELAY: Duration = Duration::from_millis(1);

/// A batch's buffer is allocated up front up to this size (larger `batch.size`s grow as
/// records come, so a producer of a few small records does not hold megabytes).
const BATCH_PREALLOCATION_LIMIT: usize = 1 << 20;

/// An open batch and what must be reported once it is written.
#[derive(Debug)]
pub(super) struct Open {
    builder: BatchBuilder,
    /// The most bytes the batch may hold before compression ([`compressed_batch_room`]).
    room: usize,
    /// The batch's write limit: the batch size, or more when its first record needs more (the
    /// buffer Kafka's `RecordAccumulator` allocates is `max(batch.size, upper bound of the
    /// first record)`, and later records may fill it).
    limit: usize,
    /// Each record's timestamp, kept only when written records are reported.
    timestamps: Option<Vec<i64>>,
    /// When the batch was started: it is sent once it has waited `linger.ms` from then.
    created: Instant,
}

impl Open {
    /// Appends the record, of [`crate::record::fields_size`] `fields`, if the batch stays within
    /// its limit and its room before compression (an empty batch takes any record).
    #[inline(always)]
    pub(super) fn try_append(
        &mut self,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> bool {
        let taken = self
            .builder
            .try_append_sized(
                self.limit, self.room, fields, timestamp, key, value, headers,
            )
            .is_some();
        if taken {
            if let Some(timestamps) = &mut self.timestamps {
                timestamps.push(timestamp);
            }
        }
        taken
    }

    /// [`BatchBuilder::append_values`] within this batch's limits.
    fn append_values<'a>(
        &mut self,
        max_fields: usize,
        timestamp: i64,
        values: &mut impl Iterator<Item = Option<&'a [u8]>>,
    ) -> Option<Option<&'a [u8]>> {
        let before = self.builder.record_count();
        let refused = self
            .builder
            .append_values(self.limit, self.room, max_fields, timestamp, values);
        if let Some(timestamps) = &mut self.timestamps {
            let appended = self.builder.record_count().wrapping_sub(before);
            timestamps.extend(std::iter::repeat_n(timestamp, appended as usize));
        }
        refused
    }
}

/// A full batch on its way to the sender thread ([`Closing`] says who finishes it).
#[derive(Debug)]
pub(super) struct Sealed {
    pub(super) partition: i32,
    pub(super) batch: Closing,
    /// Present when the written records are to be reported.
    pub(super) timestamps: Option<Vec<i64>>,
}

/// A sealed batch as it goes to the sender: an uncompressed one finished (header and CRC) by
/// the producer while its bytes are still in the cache of the core that wrote them, a
/// compressed one still to be finished by the sender, which compresses it as Kafka's sender
/// closes a `ProducerBatch` when it drains it.
#[derive(Debug)]
pub(super) enum Closing {
    Built(BuiltBatch),
    ToCompress(BatchBuilder),
}

/// The open batches of a topic's partitions and the sealed ones not handed to the sender yet.
#[derive(Debug)]
pub(super) struct Accumulator {
    compression: Compression,
    /// `linger.ms`.
    linger: Duration,
    /// A batch is sealed before its estimated size would exceed this: `batch.size`, and never
    /// more than the topic's `max.message.bytes` (Kafka splits such batches and resends;
    /// sealing earlier gives the same records in the log).
    limit: usize,
    /// The topic's `max.message.bytes`.
    max_message: usize,
    /// The most bytes a batch may hold before compression ([`compressed_batch_room`]; no
    /// bound without compression).
    room: usize,
    /// Kafka's `CompressionRatioEstimator` for this topic and codec, as f32 bits: the sender
    /// thread updates it as it compresses batches, each new batch starts from it.
    compression_estimate: Arc<AtomicU32>,
    /// Buffers of written batches, given back by the sender (Kafka's `BufferPool`).
    free: mpsc::Receiver<Vec<u8>>,
    open: Vec<Option<Open>>,
    /// Sealed batches not handed to the sender yet, and their bytes.
    sealed: Vec<Sealed>,
    sealed_bytes: usize,
    /// Records in the batch last sealed: the capacity the next one's timestamps start with.
    last_count: usize,
    /// Whether each record's timestamp is kept, for reporting it once written.
    report_written: bool,
    /// When sealed batches were last handed to the sender.
    last_hand_off: Instant,
    /// Bytes of each partition's batches that `linger.ms` sent before they were full since the
    /// sticky partitioner last moved on from it: at `batch.size` it moves on, as Kafka's
    /// built-in partitioner moves on after `batch.size` bytes.
    lingered_bytes: Vec<usize>,
}

impl Accumulator {
    /// The batches of `partitions` partitions of a topic whose `max.message.bytes` is
    /// `max_message`, starting in the buffers `free` gives back.
    pub(super) fn new(
        partitions: usize,
        config: &ProducerConfig,
        max_message: usize,
        free: mpsc::Receiver<Vec<u8>>,
    ) -> Self {
        let room = match config.compression {
            Compression::None => usize::MAX,
            _ => compressed_batch_room(max_message),
        };
        Self {
            compression: config.compression,
            linger: config.linger,
            limit: config.batch_size.min(max_message).max(1),
            max_message,
            room,
            compression_estimate: Arc::new(AtomicU32::new(1.0f32.to_bits())),
            free,
            open: (0..partitions).map(|_| None).collect(),
            sealed: Vec::new(),
            sealed_bytes: 0,
            last_count: 0,
            report_written: false,
            // As if a hand-off had just gone: the first sealed batch goes at once.
            last_hand_off: Instant::now()
                .checked_sub(HANDOFF_DELAY)
                .unwrap_or_else(Instant::now),
            lingered_bytes: vec![0; partitions],
        }
    }

    /// The compression-ratio estimate, for the sender to move.
    pub(super) fn compression_estimate(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.compression_estimate)
    }

    /// How many hand-off groups may wait for the sender: about `buffer.memory`.
    pub(super) fn in_flight_groups(&self) -> usize {
        (BUFFER_MEMORY / self.limit.max(HANDOFF_BYTES)).max(1)
    }

    /// Keeps each record's timestamp from the next batch on, to report it once written.
    pub(super) fn set_report_written(&mut self, on: bool) {
        self.report_written = on;
    }

    /// The number of partitions.
    pub(super) fn partitions(&self) -> usize {
        self.open.len()
    }

    /// Whether partition `p` has an open batch.
    pub(super) fn has_open(&self, p: usize) -> bool {
        self.open.get(p).is_some_and(Option::is_some)
    }

    /// Appends the record to the open batch of partition `p` if there is one with room for it.
    #[inline(always)]
    pub(super) fn try_append(
        &mut self,
        p: usize,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> bool {
        match self.open.get_mut(p) {
            Some(Some(open)) => open.try_append(fields, timestamp, key, value, headers),
            _ => false,
        }
    }

    /// Appends values to the open batch of partition `p` while they fit
    /// ([`BatchBuilder::append_values`]); returns the first that did not, `None` when all did
    /// or no batch is open.
    pub(super) fn append_values<'a>(
        &mut self,
        p: usize,
        max_fields: usize,
        timestamp: i64,
        values: &mut impl Iterator<Item = Option<&'a [u8]>>,
    ) -> Option<Option<&'a [u8]>> {
        match self.open.get_mut(p) {
            Some(Some(open)) => open.append_values(max_fields, timestamp, values),
            _ => None,
        }
    }

    /// Starts a batch for partition `p`, for a first record of [`crate::record::fields_size`]
    /// `fields`, in a buffer the sender gave back or a new one. An empty batch takes any
    /// record; Kafka's `estimateSizeInBytesUpperBound` sizes its buffer: a batch of this record
    /// alone, its length and deltas counted at their longest.
    pub(super) fn open_batch(
        &mut self,
        p: usize,
        fields: usize,
    ) -> Result<&mut Open, ProduceError> {
        let upper_bound = RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD + fields;
        let buffer = self
            .free
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(self.limit.min(BATCH_PREALLOCATION_LIMIT)));
        let mut builder =
            BatchBuilder::with_buffer(0, self.compression, TimestampType::CreateTime, buffer);
        if self.compression != Compression::None {
            // As Kafka's ProducerBatch: each new batch starts from the running estimate.
            builder.set_estimated_compression_ratio(f32::from_bits(
                self.compression_estimate.load(Ordering::Relaxed),
            ));
        }
        let open = Open {
            builder,
            // Never past the topic's max.message.bytes, as the batch size (a Kafka producer
            // splits a batch the broker refuses as too large).
            limit: self.limit.max(upper_bound.min(self.max_message)),
            room: self.room,
            timestamps: self
                .report_written
                .then(|| Vec::with_capacity(self.last_count)),
            created: Instant::now(),
        };
        let slot = self
            .open
            .get_mut(p)
            .ok_or_else(|| ProduceError::InvalidPartition(format!("no partition {p}")))?;
        Ok(slot.insert(open))
    }

    /// Takes the open batch of partition `p` out, to be sealed.
    pub(super) fn take_open(&mut self, p: usize) -> Option<Open> {
        self.open.get_mut(p).and_then(Option::take)
    }

    /// Closes `open`, partition `p`'s batch, to new records and queues it for the sender:
    /// an uncompressed batch is finished here, a compressed one by the sender. Returns whether
    /// the sealed batches are due to be handed over ([`HANDOFF_BYTES`], [`HANDOFF_DELAY`]).
    pub(super) fn seal(&mut self, p: usize, open: Open) -> Result<bool, RecordError> {
        self.last_count = open.builder.record_count() as usize;
        // The buffer as it is held until the sender compresses it.
        self.sealed_bytes += open.builder.uncompressed_size_in_bytes();
        let batch = if self.compression == Compression::None {
            // Finishing an uncompressed batch fails only in its compressor: it has none.
            Closing::Built(open.builder.seal()?)
        } else {
            Closing::ToCompress(open.builder)
        };
        self.sealed.push(Sealed {
            partition: p as i32,
            batch,
            timestamps: open.timestamps,
        });
        Ok(self.sealed_bytes >= HANDOFF_BYTES || self.last_hand_off.elapsed() >= HANDOFF_DELAY)
    }

    /// The sealed batches, to hand to the sender now; `None` when there are none.
    pub(super) fn drain(&mut self) -> Option<Vec<Sealed>> {
        if self.sealed.is_empty() {
            return None;
        }
        self.sealed_bytes = 0;
        self.last_hand_off = Instant::now();
        Some(std::mem::take(&mut self.sealed))
    }

    /// When the first of the open batches will have waited `linger.ms`, `None` when no batch
    /// is open (or the wait is past any clock).
    pub(super) fn linger_deadline(&self) -> Option<Instant> {
        self.open
            .iter()
            .flatten()
            .filter_map(|open| open.created.checked_add(self.linger))
            .min()
    }

    /// The bytes of partition `p`'s open batch if it has waited `linger.ms` by `now`.
    pub(super) fn lingered(&self, p: usize, now: Instant) -> Option<usize> {
        let Some(Some(open)) = self.open.get(p) else {
            return None;
        };
        (now.saturating_duration_since(open.created) >= self.linger)
            .then(|| open.builder.uncompressed_size_in_bytes())
    }

    /// Counts `bytes` of partition `p` sent by linger before its batch was full; true when they
    /// reach `batch.size` since the sticky partitioner last moved on from it (Kafka's built-in
    /// partitioner moves on after `batch.size` bytes, full batches or not).
    pub(super) fn count_lingered(&mut self, p: usize, bytes: usize) -> bool {
        let Some(lingered) = self.lingered_bytes.get_mut(p) else {
            return false;
        };
        *lingered += bytes;
        if *lingered >= self.limit {
            *lingered = 0;
            return true;
        }
        false
    }

    /// The sticky partitioner moved on from partition `p`: its lingered bytes count from 0.
    pub(super) fn reset_lingered(&mut self, p: usize) {
        if let Some(bytes) = self.lingered_bytes.get_mut(p) {
            *bytes = 0;
        }
    }
}

/// Kafka's `CompressionRatioEstimator.updateEstimation`: a batch that compressed worse than
/// the estimate raises it at once (by 0.05 at least), one that compressed better lowers it
/// slowly (by 0.005 at most).
pub(super) fn updated_compression_estimate(current: f32, observed: f32) -> f32 {
    if observed > current {
        (current + 0.05).max(observed)
    } else if observed < current {
        (current - 0.005).max(observed)
    } else {
        current
    }
}

/// The largest batch, counted before compression, whose compressed form stays within
/// `max_message` bytes whatever the data. Kafka's codecs expand data that does not compress by
/// at most a sixth plus their framing (snappy's worst case: n/6 + 32 bytes a 32 KiB block, 4
/// bytes of block length and a 16-byte stream header; gzip, lz4 and zstd add less). A Kafka
/// producer splits a batch the broker refuses as too large and sends the halves; sizing the
/// batch so that it cannot be refused writes the same records. It also bounds a batch that
/// would compress far below the limit, which Kafka may fill further: with max.message.bytes
/// at its default of 1 MiB, only a compression estimate below about 2% reaches this bound.
fn compressed_batch_room(max_message: usize) -> usize {
    let framing = 64 + 40 * (max_message / 32_768 + 1);
    RECORD_BATCH_OVERHEAD + max_message.saturating_sub(RECORD_BATCH_OVERHEAD + framing) / 7 * 6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compression_estimate_moves_as_kafkas() {
        // The cases of Kafka's CompressionRatioEstimatorTest, with the values its rule gives:
        // worse than estimated raises the estimate by 0.05 or to the observed ratio, better
        // lowers it by 0.005 at most and never below the observed ratio.
        for (current, observed, expected) in [
            (0.8f32, 0.84f32, 0.85f32),
            (0.6, 0.7, 0.7),
            (0.6, 0.4, 0.595),
            (0.004, 0.001, 0.001),
            (0.5, 0.5, 0.5),
        ] {
            let next = updated_compression_estimate(current, observed);
            assert!(
                (next - expected).abs() < 1e-6,
                "{current} {observed}: {next}"
            );
            assert!(next >= observed);
        }
    }

    #[test]
    fn a_compressed_batch_room_holds_the_worst_expansion() {
        // Snappy's worst case for n bytes that do not compress: n + n/6 + 32 a 32 KiB block,
        // 4 bytes of block length, a 16-byte stream header.
        for max_message in [1_000usize, 4_000, 100_000, 1_048_588, 8 << 20] {
            let room = compressed_batch_room(max_message);
            let n = room - RECORD_BATCH_OVERHEAD;
            let blocks = n.div_ceil(32 * 1024);
            let worst = RECORD_BATCH_OVERHEAD + n + n / 6 + 36 * blocks + 16;
            assert!(worst <= max_message, "{max_message}: {worst}");
        }
    }
}
