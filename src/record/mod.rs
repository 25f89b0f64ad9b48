//! Kafka's record format: bytes to batches and records and back. No files, no CLI.
#![deny(clippy::indexing_slicing)]

/// A batch's compression codec (attribute bits 0–2).
///
/// Placeholder until the codec module lands; the ids are Kafka's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// 0: no compression.
    None,
    /// 1: gzip.
    Gzip,
    /// 2: snappy.
    Snappy,
    /// 3: lz4 (frame format).
    Lz4,
    /// 4: zstd.
    Zstd,
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
