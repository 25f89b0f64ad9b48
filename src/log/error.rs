//! Errors of the storage layer: each names the file and, where it applies, the offset or byte
//! position.

use std::io;
use std::path::PathBuf;

use super::producer_state::CorruptSnapshot;
use crate::record::RecordError;

/// What can go wrong while reading or writing a partition on disk.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// An I/O call failed on a file.
    #[error("{action} {path}: {source}")]
    Io {
        /// What kafkit was doing.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// An index file breaks its invariants (Kafka's `CorruptIndexException` texts).
    #[error("{0}")]
    CorruptIndex(String),
    /// An index append out of order (Kafka's `InvalidOffsetException` text).
    #[error("{0}")]
    InvalidOffset(String),
    /// An index has no free slot left.
    #[error("Attempt to append to a full index (size = {entries}) in {path}")]
    IndexFull {
        /// Entries in the index.
        entries: usize,
        /// The index file.
        path: PathBuf,
    },
    /// Bytes of a segment do not decode.
    #[error("{path} at byte {position}: {source}")]
    Corrupt {
        /// The `.log` file.
        path: PathBuf,
        /// Byte position of the entry in the file.
        position: u64,
        /// What the record decoder found.
        #[source]
        source: RecordError,
    },
    /// A batch whose offsets break the log's order: corruption the CRC does not cover (a
    /// batch's base offset is outside it), found by a consumer's checked read.
    #[error("{path} at byte {position}: the batch of offsets {first} to {last} {disorder}")]
    OffsetDisorder {
        /// The `.log` file.
        path: PathBuf,
        /// Byte position of the batch in the file.
        position: u64,
        /// The batch's first offset (for a legacy entry, its own offset).
        first: i64,
        /// The batch's last offset.
        last: i64,
        /// Which rule it breaks.
        disorder: OffsetDisorder,
    },
    /// A log entry whose size field is larger than any batch Kafka writes (see
    /// [`MAX_ENTRY_BYTES`](super::reader::MAX_ENTRY_BYTES)).
    #[error("{path} at byte {position}: a log entry of {size} bytes, larger than the {limit} bytes kafkit reads at once (and than any batch Kafka writes)")]
    EntryTooLarge {
        /// The `.log` file.
        path: PathBuf,
        /// Byte position of the entry in the file.
        position: u64,
        /// The entry's size with its offset and size fields.
        size: usize,
        /// The largest entry read.
        limit: usize,
    },
    /// An offset that is not in the log.
    #[error("Offset {offset} is out of range for {dir}: the log holds [{log_start}, {log_end})")]
    OffsetOutOfRange {
        /// The requested offset.
        offset: i64,
        /// The log start offset.
        log_start: i64,
        /// The log end offset.
        log_end: i64,
        /// The partition directory.
        dir: PathBuf,
    },
    /// A log start offset past the high watermark (Kafka's `OffsetOutOfRangeException` from
    /// `UnifiedLog.maybeIncrementLogStartOffset`); with one replica the high watermark is the
    /// log end offset.
    #[error("Cannot increment the log start offset to {offset} of partition {partition} since it is larger than the high watermark {high_watermark}")]
    LogStartAboveHighWatermark {
        /// The log start offset asked for.
        offset: i64,
        /// The partition, `topic-partition` (its directory's name).
        partition: String,
        /// The high watermark.
        high_watermark: i64,
    },
    /// A batch larger than `max.message.bytes` (Kafka's `RecordTooLargeException` text).
    #[error(
        "The request included a message larger than the max message size the server will accept."
    )]
    RecordTooLarge,
    /// An append that breaks Kafka's rules for a batch.
    #[error(transparent)]
    InvalidAppend(#[from] InvalidAppend),
    /// A write to a segment or index opened for reading only.
    #[error("{}{} is open read-only", kind.map(|k| format!("{k} ")).unwrap_or_default(), path.display())]
    ReadOnly {
        /// The index kind, for an index; `None` for a segment.
        kind: Option<&'static str>,
        /// The file.
        path: PathBuf,
    },
    /// An append to a log already closed.
    #[error("{} is closed", dir.display())]
    Closed {
        /// The partition directory.
        dir: PathBuf,
    },
    /// An offset more than an int above its segment's base offset (Kafka's
    /// `LogSegmentOffsetOverflowException`).
    #[error("Detected offset overflow at offset {offset} in segment {}", path.display())]
    OffsetOverflow {
        /// The offset.
        offset: i64,
        /// The segment's `.log`.
        path: PathBuf,
    },
    /// A byte position past what a 4-byte index entry holds.
    #[error("position {position} of {} does not fit an index entry", path.display())]
    PositionOverflow {
        /// The position.
        position: u64,
        /// The segment's `.log`.
        path: PathBuf,
    },
    /// A time-index entry older than the last (Kafka's `InvalidOffsetException` text).
    #[error("Attempt to append a timestamp ({timestamp}) to slot {slot} no larger than the last timestamp appended ({last}) to {}.", path.display())]
    TimestampDisorder {
        /// The timestamp appended.
        timestamp: i64,
        /// The slot it would take.
        slot: usize,
        /// The last timestamp in the index.
        last: i64,
        /// The time index.
        path: PathBuf,
    },
    /// A segment the reader listed is gone from its cache (a bug, never the data's fault).
    #[error("segment {base} of {} vanished", dir.display())]
    SegmentMissing {
        /// The segment's base offset.
        base: i64,
        /// The partition directory.
        dir: PathBuf,
    },
    /// A producer-state snapshot Kafka would refuse (its `CorruptSnapshotException`).
    #[error("{}: {source}", path.display())]
    CorruptSnapshot {
        /// The `.snapshot` file.
        path: PathBuf,
        /// What is wrong, in Kafka's words.
        #[source]
        source: CorruptSnapshot,
    },
    /// A producer-state snapshot larger than kafkit reads.
    #[error("{} is {len} bytes, too large for a producer snapshot (at most {limit})", path.display())]
    SnapshotTooLarge {
        /// The `.snapshot` file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The largest read.
        limit: u64,
    },
    /// A transaction-index entry of a version Kafka does not know (its `KafkaException` text).
    #[error("Unexpected aborted transaction version {version} in transaction index {}, current version is 0", path.display())]
    AbortedTxnVersion {
        /// The version the entry gives.
        version: i16,
        /// The `.txnindex` file, as opened.
        path: PathBuf,
        /// Byte position of the entry.
        position: u64,
    },
}

/// An append that breaks Kafka's rules for a batch, in the words of the broker's
/// `InvalidRecordException` (`LogValidator`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidAppend {
    /// Not one whole batch of magic 2.
    #[error("an append takes exactly one record batch of magic 2")]
    NotOneBatch,
    /// A producer's batch must be based at 0 (the log assigns its offsets).
    #[error("The baseOffset of the record batch in the append to {partition} should be 0, but it is {base_offset}")]
    BaseOffsetNotZero {
        /// The partition directory, as displayed.
        partition: String,
        /// The base offset found.
        base_offset: i64,
    },
    /// A last offset delta below 0.
    #[error("Batch has an invalid offset range: [{base_offset}, {last_offset}] in topic partition {partition}.")]
    OffsetRange {
        /// The partition directory, as displayed.
        partition: String,
        /// The base offset.
        base_offset: i64,
        /// The last offset the header gives.
        last_offset: i64,
    },
    /// A record count that disagrees with the offset range.
    #[error("Inconsistent batch offset range [{base_offset}, {last_offset}] and count of records {records_count} in topic partition {partition}.")]
    RecordCount {
        /// The partition directory, as displayed.
        partition: String,
        /// The base offset.
        base_offset: i64,
        /// The last offset the header gives.
        last_offset: i64,
        /// The record count the header gives.
        records_count: i32,
    },
    /// A record whose offset delta is not its place in the batch.
    #[error("Record offset {offset} in a batch based at {first} should be {expected} in topic partition {partition}.")]
    RecordOffset {
        /// The partition directory, as displayed.
        partition: String,
        /// The record's offset.
        offset: i64,
        /// The batch's base offset.
        first: i64,
        /// The offset it should have.
        expected: i64,
    },
}

impl LogError {
    /// Wraps an I/O error with the action and the file.
    pub fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| LogError::Io {
            action,
            path,
            source,
        }
    }
}

/// The storage layer's result type.
pub type Result<T, E = LogError> = std::result::Result<T, E>;

/// How a batch's offsets break the order of a log (see [`LogError::OffsetDisorder`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OffsetDisorder {
    /// Its last offset is below its base offset.
    #[error("ends before it starts")]
    Reversed,
    /// It starts at or below the previous batch's last offset.
    #[error("does not follow the previous batch, which ended at offset {previous}")]
    Backwards {
        /// The previous batch's last offset.
        previous: i64,
    },
    /// It is below the segment's base offset, or more than an int above it (Kafka's
    /// `IndexOffsetOverflowException`).
    #[error("is outside its segment, whose offsets run from {base_offset} to {}", base_offset.saturating_add(i64::from(i32::MAX)))]
    OutsideSegment {
        /// The segment's base offset.
        base_offset: i64,
    },
    /// It reaches the next segment's base offset.
    #[error("reaches the next segment, which starts at offset {next}")]
    PastNextSegment {
        /// The next segment's base offset.
        next: i64,
    },
}
