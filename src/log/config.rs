//! The topic settings a partition's storage obeys (a subset of Kafka's `LogConfig`).
//!
//! The data directory validates and stores every topic config; it hands the log these typed
//! values. Defaults are Kafka's (`kafka-disk-format.md` §13.4).

use crate::record::{Compression, TimestampType};

/// What the log does with the compression of produced batches (`compression.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompressionPolicy {
    /// Keep whatever codec the producer used (`producer`, the default).
    #[default]
    Producer,
    /// Always store batches with this codec (`uncompressed` maps to [`Compression::None`]).
    Fixed(Compression),
}

/// Storage settings of one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogConfig {
    /// `segment.bytes`: the largest a segment's `.log` may grow before a roll.
    pub segment_bytes: u32,
    /// `segment.ms`: the age after which the active segment rolls.
    pub segment_ms: i64,
    /// `segment.index.bytes`: the size indexes are preallocated to while active.
    pub segment_index_bytes: u32,
    /// `index.interval.bytes`: bytes appended between two offset-index entries.
    pub index_interval_bytes: u32,
    /// `max.message.bytes`: the largest batch (record-batch size) the log accepts.
    pub max_message_bytes: u32,
    /// `message.timestamp.type`: `CreateTime` or `LogAppendTime`.
    pub timestamp_type: TimestampType,
    /// `compression.type`.
    pub compression: CompressionPolicy,
    /// `flush.messages`: fsync after this many records (`i64::MAX`: leave it to the OS).
    pub flush_messages: i64,
    /// `flush.ms`: fsync when the last flush is older than this (`i64::MAX`: never by time).
    pub flush_ms: i64,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            segment_bytes: 1_073_741_824,
            segment_ms: 604_800_000,
            segment_index_bytes: 10_485_760,
            index_interval_bytes: 4096,
            max_message_bytes: 1_048_588,
            timestamp_type: TimestampType::CreateTime,
            compression: CompressionPolicy::Producer,
            flush_messages: i64::MAX,
            flush_ms: i64::MAX,
        }
    }
}
