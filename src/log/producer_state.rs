//! Producer-state snapshots (`<offset>.snapshot`), as Kafka's
//! `ProducerStateManager.readSnapshot` and `writeSnapshot` read and write them.
//!
//! A broker snapshots the state of every idempotent and transactional producer of a partition
//! when it rolls a segment, shuts down cleanly or recovers, so that a restart need not replay
//! the log: the file is named by the log end offset it was taken at. Its layout is Kafka's
//! `ProducerSnapshot` message, version 1, the only one there is:
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | int16 version (1) |
//! | 2..6 | uint32 CRC-32C of every byte after it |
//! | 6..10 | int32 number of entries |
//! | 10.. | the entries, 46 bytes each: int64 producerId, int16 epoch, int32 lastSequence, int64 lastOffset, int32 offsetDelta, int64 timestamp, int32 coordinatorEpoch, int64 currentTxnFirstOffset |
//!
//! A `lastOffset` of -1 means the producer has no batch metadata (Kafka writes -1 as the last
//! sequence and 0 as the offset delta then), a `currentTxnFirstOffset` of -1 no open
//! transaction.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::error::{LogError, Result};
use crate::record::crc32c;

/// The snapshot version Kafka writes and reads (`ProducerSnapshot.json`'s only version).
pub const PRODUCER_SNAPSHOT_VERSION: i16 = 1;

/// Bytes of one producer entry.
const ENTRY_SIZE: usize = 46;

/// Where the entry count starts: the bytes the CRC covers start here too.
const COUNT_OFFSET: usize = 6;

/// Where the entries start.
const ENTRIES_OFFSET: usize = 10;

/// The largest snapshot read: 23 M producers, far more than a partition has. Kafka reads the
/// whole file into memory without a bound; kafkit refuses a larger one before reading it.
pub const MAX_PRODUCER_SNAPSHOT_BYTES: u64 = 1 << 30;

/// Kafka's `RecordBatch.NO_SEQUENCE`, the last sequence written for a producer without batch
/// metadata.
const NO_SEQUENCE: i32 = -1;

/// One producer's state (Kafka's `ProducerStateEntry`, as a snapshot holds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerStateEntry {
    /// The producer id.
    pub producer_id: i64,
    /// The producer epoch.
    pub producer_epoch: i16,
    /// The epoch of the transaction coordinator that last wrote a marker for it (-1: none).
    pub coordinator_epoch: i32,
    /// The timestamp of its last batch.
    pub last_timestamp: i64,
    /// The first offset of its open transaction, if one is open.
    pub current_txn_first_offset: Option<i64>,
    /// Its last batch, when the snapshot records one (a producer that has only written
    /// transaction markers has none).
    pub last_batch: Option<BatchMetadata>,
}

/// A producer's last batch (Kafka's `BatchMetadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMetadata {
    /// The batch's last sequence number.
    pub last_seq: i32,
    /// The batch's last offset.
    pub last_offset: i64,
    /// Its last offset minus its base offset.
    pub offset_delta: i32,
    /// Its timestamp.
    pub timestamp: i64,
}

impl BatchMetadata {
    /// The batch's first sequence number (sequences wrap at `i32::MAX`).
    pub fn first_seq(&self) -> i32 {
        decrement_sequence(self.last_seq, self.offset_delta)
    }
}

/// Kafka's `DefaultRecordBatch.decrementSequence`: `sequence - decrement`, wrapping below 0
/// to `i32::MAX` as sequence numbers do.
pub fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    if sequence < decrement {
        i32::MAX
            .wrapping_sub(decrement.wrapping_sub(sequence))
            .wrapping_add(1)
    } else {
        sequence.wrapping_sub(decrement)
    }
}

/// Why Kafka would refuse a snapshot (`CorruptSnapshotException`), in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CorruptSnapshot {
    /// A version other than 1.
    #[error("Snapshot failed schema validation: Snapshot contained an unknown file version {0}")]
    UnknownVersion(i16),
    /// The file ends inside its header or an entry (Java's `BufferUnderflowException`, whose
    /// message is `null`).
    #[error("Snapshot failed schema validation: null")]
    Truncated,
    /// A negative entry count.
    #[error("Snapshot failed schema validation: non-nullable field producerEntries was serialized as null")]
    NullEntries,
    /// More entries than bytes left.
    #[error("Snapshot failed schema validation: Tried to allocate a collection of size {count}, but there are only {remaining} bytes remaining.")]
    TooManyEntries {
        /// The entry count the file gives.
        count: i32,
        /// Bytes after the count.
        remaining: usize,
    },
    /// The checksum does not match the bytes.
    #[error("Snapshot is corrupt (CRC is no longer valid). Stored crc: {stored}. Computed crc: {computed}")]
    CrcMismatch {
        /// The CRC the file holds.
        stored: u32,
        /// The CRC of its bytes.
        computed: u32,
    },
}

fn be_i16(bytes: &[u8], at: usize) -> Option<i16> {
    Some(i16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn be_i32(bytes: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be_i64(bytes: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_be_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// One 46-byte entry.
fn entry(e: &[u8]) -> Option<ProducerStateEntry> {
    let last_offset = be_i64(e, 14)?;
    let timestamp = be_i64(e, 26)?;
    let current_txn_first_offset = be_i64(e, 38)?;
    Some(ProducerStateEntry {
        producer_id: be_i64(e, 0)?,
        producer_epoch: be_i16(e, 8)?,
        coordinator_epoch: be_i32(e, 34)?,
        last_timestamp: timestamp,
        current_txn_first_offset: (current_txn_first_offset >= 0)
            .then_some(current_txn_first_offset),
        last_batch: match last_offset >= 0 {
            true => Some(BatchMetadata {
                last_seq: be_i32(e, 10)?,
                last_offset,
                offset_delta: be_i32(e, 22)?,
                timestamp,
            }),
            false => None,
        },
    })
}

/// The producers of a snapshot's bytes, in file order (Kafka's `readSnapshot`, with its
/// checks in its order: version, entries, CRC).
pub fn parse_snapshot(bytes: &[u8]) -> Result<Vec<ProducerStateEntry>, CorruptSnapshot> {
    let version = be_i16(bytes, 0).ok_or(CorruptSnapshot::Truncated)?;
    if version != PRODUCER_SNAPSHOT_VERSION {
        return Err(CorruptSnapshot::UnknownVersion(version));
    }
    let stored = be_i32(bytes, 2)
        .ok_or(CorruptSnapshot::Truncated)?
        .cast_unsigned();
    let stored_count = be_i32(bytes, COUNT_OFFSET).ok_or(CorruptSnapshot::Truncated)?;
    let Ok(count) = usize::try_from(stored_count) else {
        return Err(CorruptSnapshot::NullEntries);
    };
    let remaining = bytes.len().saturating_sub(ENTRIES_OFFSET);
    if count > remaining {
        return Err(CorruptSnapshot::TooManyEntries {
            count: stored_count,
            remaining,
        });
    }
    let entries = (0..count)
        .map(|i| {
            let at = ENTRIES_OFFSET + i * ENTRY_SIZE;
            bytes.get(at..at + ENTRY_SIZE).and_then(entry)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or(CorruptSnapshot::Truncated)?;
    let computed = crc32c(bytes.get(COUNT_OFFSET..).unwrap_or_default());
    if stored != computed {
        return Err(CorruptSnapshot::CrcMismatch { stored, computed });
    }
    Ok(entries)
}

/// The producers of the snapshot file at `path` (Kafka's `ProducerStateManager.readSnapshot`).
///
/// Errors: [`LogError::Io`] when it cannot be read, [`LogError::SnapshotTooLarge`] past
/// [`MAX_PRODUCER_SNAPSHOT_BYTES`], [`LogError::CorruptSnapshot`] when Kafka would refuse it.
pub fn read_snapshot(path: &Path) -> Result<Vec<ProducerStateEntry>> {
    let mut file = File::open(path).map_err(LogError::io("opening producer snapshot", path))?;
    let len = file
        .metadata()
        .map_err(LogError::io("reading the size of", path))?
        .len();
    if len > MAX_PRODUCER_SNAPSHOT_BYTES {
        return Err(LogError::SnapshotTooLarge {
            path: path.to_path_buf(),
            len,
            limit: MAX_PRODUCER_SNAPSHOT_BYTES,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)
        .map_err(LogError::io("reading producer snapshot", path))?;
    parse_snapshot(&bytes).map_err(|source| LogError::CorruptSnapshot {
        path: path.to_path_buf(),
        source,
    })
}

/// The bytes of a snapshot of `entries`, as Kafka's `writeSnapshot` lays them out (a writer
/// puts them in a temporary file, syncs it and renames it over `<offset>.snapshot`).
pub fn snapshot_bytes(entries: &[ProducerStateEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ENTRIES_OFFSET + entries.len() * ENTRY_SIZE);
    out.extend_from_slice(&PRODUCER_SNAPSHOT_VERSION.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    let count = i32::try_from(entries.len()).unwrap_or(i32::MAX);
    out.extend_from_slice(&count.to_be_bytes());
    for e in entries {
        let (last_seq, last_offset, offset_delta) = match &e.last_batch {
            Some(b) => (b.last_seq, b.last_offset, b.offset_delta),
            None => (NO_SEQUENCE, -1, 0),
        };
        out.extend_from_slice(&e.producer_id.to_be_bytes());
        out.extend_from_slice(&e.producer_epoch.to_be_bytes());
        out.extend_from_slice(&last_seq.to_be_bytes());
        out.extend_from_slice(&last_offset.to_be_bytes());
        out.extend_from_slice(&offset_delta.to_be_bytes());
        out.extend_from_slice(&e.last_timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.unwrap_or(-1).to_be_bytes());
    }
    let crc = crc32c(out.get(COUNT_OFFSET..).unwrap_or_default());
    if let Some(slot) = out.get_mut(2..COUNT_OFFSET) {
        slot.copy_from_slice(&crc.to_be_bytes());
    }
    out
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)] // a test's panic is its failure
mod tests {
    use super::*;

    fn producers() -> Vec<ProducerStateEntry> {
        vec![
            ProducerStateEntry {
                producer_id: 1004,
                producer_epoch: 0,
                coordinator_epoch: -1,
                last_timestamp: 1_706_471_404_037,
                current_txn_first_offset: None,
                last_batch: Some(BatchMetadata {
                    last_seq: 371,
                    last_offset: 371,
                    offset_delta: 1,
                    timestamp: 1_706_471_404_037,
                }),
            },
            ProducerStateEntry {
                producer_id: 7,
                producer_epoch: 3,
                coordinator_epoch: 2,
                last_timestamp: 55,
                current_txn_first_offset: Some(100),
                last_batch: None,
            },
        ]
    }

    #[test]
    fn a_snapshot_reads_back_what_was_written() {
        let bytes = snapshot_bytes(&producers());
        assert_eq!(bytes.len(), 10 + 2 * 46);
        assert_eq!(parse_snapshot(&bytes), Ok(producers()));
        assert_eq!(producers()[0].last_batch.map(|b| b.first_seq()), Some(370));
    }

    #[test]
    fn damage_is_refused_in_kafkas_words() {
        let good = snapshot_bytes(&producers());
        let mut flipped = good.clone();
        flipped[20] ^= 1;
        let err = parse_snapshot(&flipped).unwrap_err();
        assert!(matches!(err, CorruptSnapshot::CrcMismatch { .. }), "{err}");
        assert!(err
            .to_string()
            .starts_with("Snapshot is corrupt (CRC is no longer valid). Stored crc: "));
        let mut version = good.clone();
        version[1] = 9;
        assert_eq!(
            parse_snapshot(&version).unwrap_err().to_string(),
            "Snapshot failed schema validation: Snapshot contained an unknown file version 9"
        );
        assert_eq!(parse_snapshot(&good[..3]), Err(CorruptSnapshot::Truncated));
        assert_eq!(parse_snapshot(&good[..60]), Err(CorruptSnapshot::Truncated));
        let mut negative = good.clone();
        negative[6] = 0xff;
        assert_eq!(parse_snapshot(&negative), Err(CorruptSnapshot::NullEntries));
        let mut many = good;
        many[7] = 0x7f;
        assert_eq!(
            parse_snapshot(&many).unwrap_err().to_string(),
            "Snapshot failed schema validation: Tried to allocate a collection of size 8323074, but there are only 92 bytes remaining."
        );
    }

    #[test]
    fn sequences_wrap() {
        assert_eq!(decrement_sequence(5, 2), 3);
        assert_eq!(decrement_sequence(0, 1), i32::MAX);
        assert_eq!(decrement_sequence(i32::MIN, i32::MAX), i32::MIN + 1);
    }
}
