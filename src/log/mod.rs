//! One partition on disk: segments, offset and time indexes, append, read, roll and recovery;
//! and the formats of the other files a broker keeps beside them, which kafkit reads:
//! producer-state snapshots ([`producer_state`]) and transaction indexes ([`txn_index`]).
//!
//! A partition directory holds segments named by their 20-digit base offset. Only the last
//! segment (the *active* one) is appended to; its indexes are memory-mapped and preallocated to
//! `segment.index.bytes`, and trimmed to their entries when it rolls or the log closes. Offsets
//! are found by a binary search over segment base offsets, then over the segment's `.index`,
//! then a short forward scan of the `.log`: O(log n) in the size of the log.
#![deny(clippy::indexing_slicing)]
// Bytes from disk become positions and offsets here: a cast that drops bits or a sign is spelled
// out (`cast_unsigned`, `try_from`, a mask) or allowed where it is with the reason.
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

mod chunks;
pub mod compaction;
pub mod config;
pub mod error;
pub mod index;
// Memory maps, sync_file_range and getrlimit: the storage code's calls std does not wrap.
#[allow(unsafe_code)]
pub(crate) mod os;
pub mod partition;
pub mod producer_state;
pub mod reader;
pub mod retention;
pub mod segment;
pub mod txn_index;

pub use config::{CompressionPolicy, LogConfig};
pub use error::{InvalidAppend, LogError, OffsetDisorder};
pub use index::{OffsetIndex, OffsetPosition, TimeIndex, TimestampOffset};
pub use partition::{
    log_size, AppendInfo, Freshness, Log, LogCheckpoints, LogEnd, LogReader, RecoveryReport,
    SkippedTail,
};
pub use producer_state::{
    parse_snapshot, read_snapshot, snapshot_bytes, BatchMetadata, CorruptSnapshot,
    ProducerStateEntry,
};
pub use reader::{ReadChecks, SegmentReader, Stop};
pub use retention::{RetentionConfig, RetentionPlan, RetentionRule};
pub use segment::{LogSegment, SegmentAppend};
pub use txn_index::{AbortedTxn, TransactionIndex};
