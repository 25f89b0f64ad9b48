//! Kafka's record format: bytes to batches and records and back. No files, no CLI.
//!
//! A log segment is a run of *log entries*, each `int64 offset` + `int32 size` + `size` bytes.
//! Since Kafka 0.11 an entry is a [record batch](BatchHeader) (magic 2): a 61-byte header and a
//! possibly compressed run of records. Older segments hold magic 0/1 *messages*, where a
//! compressed message (a "wrapper") holds further messages in its value. Both are read through
//! the same shallow view, [`RawBatch`], found by [`batches`]; [`RawBatch::records`] goes deep.
//!
//! Every reader here takes untrusted bytes: nothing panics, and every error is a
//! [`RecordError`] naming the byte position where reading failed.
//!
//! ```
//! use kafkit::record::{batches, BatchBuilder, Compression, Header, TimestampType};
//!
//! let mut builder = BatchBuilder::new(0, Compression::Lz4, TimestampType::CreateTime);
//! builder.append(1_700_000_000_000, Some(b"key"), Some(b"value"), &[Header::new("h", None)]);
//! builder.append(1_700_000_000_005, None, None, &[]); // a tombstone
//! let segment = builder.build()?;
//!
//! let mut scan = batches(&segment);
//! for batch in scan.by_ref() {
//!     let batch = batch?;
//!     assert!(batch.is_valid());
//!     for record in batch.records()? {
//!         println!("{} {} {:?}", record.offset, record.timestamp, record.value);
//!     }
//! }
//! assert_eq!(scan.position(), segment.len()); // no trailing bytes
//! # Ok::<(), kafkit::record::RecordError>(())
//! ```
#![deny(clippy::indexing_slicing)]
// Bytes from disk become lengths and offsets here: a cast that drops bits or a sign is spelled
// out (`cast_unsigned`, `try_from`, a mask) or allowed where it is with the reason.
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

mod batch;
mod builder;
mod codec;
mod control;
mod cursor;
mod error;
mod legacy;
#[allow(clippy::module_inception)]
mod record;
pub mod varint;

pub use batch::{
    batches, increment_sequence, set_base_offset, set_log_append_time, set_partition_leader_epoch,
    set_producer_state, BatchHeader, BatchIter, RawBatch, RecordIter,
};
pub use builder::{BatchBuilder, BuiltBatch};
pub use codec::{compress, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES};
pub use control::{ControlRecordType, EndTransactionMarker};
pub use error::RecordError;
pub(crate) use record::fields_size;
pub use record::{Header, Record};

/// CRC-32C (Castagnoli), the checksum of magic 2 batches (and of Kafka's snapshot and
/// checkpoint-like files that use it).
///
/// Computed with `crc-fast`, which folds with carry-less multiplication (VPCLMULQDQ where the
/// CPU has it) instead of the `crc32` instruction's 8 bytes per cycle: about 4x faster on a
/// 16 KiB batch here (BENCHMARKS.md).
#[inline]
pub fn crc32c(bytes: &[u8]) -> u32 {
    // A CRC-32's 32 bits, widened by crc-fast's API to u64: the cast keeps all of them.
    #[allow(clippy::cast_possible_truncation)]
    let crc = crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, bytes) as u32;
    crc
}

/// A length or count the format stores in an `int` (a key, a value, a header, a record, a
/// compressed chunk), as that `int`. Everything written is inside one batch, and a batch is at
/// most `i32::MAX` bytes ([`BatchBuilder::seal`] refuses a larger one), so a length that would
/// saturate here never reaches a file.
#[inline]
pub(crate) fn int_len(len: usize) -> i32 {
    i32::try_from(len).unwrap_or(i32::MAX)
}

/// A length or count read from an `int`, which the caller has already refused when negative.
#[inline]
pub(crate) fn read_len(len: i32) -> usize {
    usize::try_from(len).unwrap_or(0)
}

/// Bytes before every log entry's payload: `int64 offset` + `int32 size` (Kafka's `LOG_OVERHEAD`).
pub const LOG_OVERHEAD: usize = 12;
/// Size of a magic v2 batch header, records excluded (Kafka's `RECORD_BATCH_OVERHEAD`).
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// The most a magic v2 record takes besides its key, value and headers fields: the length,
/// attributes, timestamp delta and offset delta at their longest, 5 + 1 + 10 + 5 bytes (Kafka's
/// `DefaultRecord.MAX_RECORD_OVERHEAD`, behind the producer's size upper bound).
pub const MAX_RECORD_OVERHEAD: usize = 21;
/// Bytes of any entry up to and including its magic byte, which sits at the same place in every
/// format version (Kafka's `HEADER_SIZE_UP_TO_MAGIC`).
pub const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
/// Smallest legal legacy message, and the smallest entry size `batches()` accepts
/// (Kafka's `LegacyRecord.RECORD_OVERHEAD_V0`).
pub const RECORD_OVERHEAD_V0: usize = 14;
/// Smallest legal magic 1 message (Kafka's `LegacyRecord.RECORD_OVERHEAD_V1`).
pub const RECORD_OVERHEAD_V1: usize = 22;
/// The current batch format.
pub const MAGIC_V2: i8 = 2;
/// `producerId` of a batch written without idempotence.
pub const NO_PRODUCER_ID: i64 = -1;
/// `producerEpoch` of a batch written without idempotence.
pub const NO_PRODUCER_EPOCH: i16 = -1;
/// `baseSequence` of a batch written without idempotence.
pub const NO_SEQUENCE: i32 = -1;
/// `partitionLeaderEpoch` before a leader has stamped the batch.
pub const NO_PARTITION_LEADER_EPOCH: i32 = -1;
/// A timestamp that is absent (magic 0, or an empty batch's base timestamp).
pub const NO_TIMESTAMP: i64 = -1;

/// A batch's compression codec (attribute bits 0–2). The ids and names are Kafka's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// 0: no compression.
    None,
    /// 1: gzip.
    Gzip,
    /// 2: snappy (xerial-framed when written).
    Snappy,
    /// 3: lz4 (frame format).
    Lz4,
    /// 4: zstd (magic 2 only).
    Zstd,
}

impl Compression {
    /// Every codec, in id order.
    pub const ALL: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    /// Kafka's numeric id, as stored in attribute bits 0–2.
    pub const fn id(self) -> i32 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// The codec with Kafka id `id`; 5–7 (or anything else) is
    /// [`RecordError::UnknownCompression`] at position 0.
    pub fn from_id(id: i32) -> Result<Self, RecordError> {
        match id {
            0 => Ok(Compression::None),
            1 => Ok(Compression::Gzip),
            2 => Ok(Compression::Snappy),
            3 => Ok(Compression::Lz4),
            4 => Ok(Compression::Zstd),
            _ => Err(RecordError::UnknownCompression { position: 0, id }),
        }
    }

    /// Kafka's lowercase name (`CompressionType.name`), as printed by DumpLogSegments and used
    /// in `compression.type`.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }

    /// The codec called `name` (exact lowercase, as Kafka's `CompressionType.forName`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which clock a batch's timestamps come from (attribute bit 3; -1 for magic 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Magic 0 messages carry no timestamp.
    NoTimestamp,
    /// The producer's clock.
    CreateTime,
    /// The broker's clock at append.
    LogAppendTime,
}

impl TimestampType {
    /// Kafka's id: -1, 0 or 1.
    pub const fn id(self) -> i32 {
        match self {
            TimestampType::NoTimestamp => -1,
            TimestampType::CreateTime => 0,
            TimestampType::LogAppendTime => 1,
        }
    }

    /// The type with Kafka id `id`; anything but -1, 0, 1 is
    /// [`RecordError::UnknownTimestampType`] at position 0.
    pub fn from_id(id: i32) -> Result<Self, RecordError> {
        match id {
            -1 => Ok(TimestampType::NoTimestamp),
            0 => Ok(TimestampType::CreateTime),
            1 => Ok(TimestampType::LogAppendTime),
            _ => Err(RecordError::UnknownTimestampType { position: 0, id }),
        }
    }

    /// Kafka's display name (`TimestampType.name`, what `toString` and DumpLogSegments print):
    /// `NoTimestampType`, `CreateTime`, `LogAppendTime`. (`NO_TIMESTAMP_TYPE` is only the Java
    /// constant's identifier, never printed.)
    pub const fn name(self) -> &'static str {
        match self {
            TimestampType::NoTimestamp => "NoTimestampType",
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        }
    }

    /// The type an attribute byte names: bit 3 for magic 1 and 2, always none for magic 0.
    pub const fn from_attributes(magic: i8, attributes: u8) -> Self {
        if magic == 0 {
            TimestampType::NoTimestamp
        } else if attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }
}

impl std::fmt::Display for TimestampType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
