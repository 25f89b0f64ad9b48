//! Kafka's `ListOffsets` on a local partition: the offsets `kafka-get-offsets` prints.

use std::path::Path;

use crate::log::{LogError, LogReader, SkippedTail, TimestampOffset};

/// Which offset to look up (`--time`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetSpec {
    /// `-1`: the log end offset.
    Latest,
    /// `-2` / `-4`: the log start offset.
    Earliest,
    /// `-3`: the offset of the record with the largest timestamp (the first such record, as
    /// Kafka does since KAFKA-16310).
    MaxTimestamp,
    /// `-5`: the last offset in tiered storage; a local log has none, so there is no answer.
    LatestTiered,
    /// The first offset whose timestamp is at least this, through the `.timeindex`.
    Timestamp(i64),
}

impl OffsetSpec {
    /// The timestamp a ListOffsets request carries for it (Kafka's `ListOffsetsRequest`
    /// constants: -1 latest, -2 earliest, -3 max timestamp, -5 latest tiered).
    pub fn kafka_timestamp(self) -> i64 {
        match self {
            OffsetSpec::Latest => -1,
            OffsetSpec::Earliest => -2,
            OffsetSpec::MaxTimestamp => -3,
            OffsetSpec::LatestTiered => -5,
            OffsetSpec::Timestamp(t) => t,
        }
    }
}

/// What `get-offsets --output json` prints (`docs/json.md`, "get-offsets"), written by
/// [`crate::output::json::write_event`].
#[derive(Debug, Clone, Copy, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OffsetEvent<'a> {
    /// A partition's offset for the time asked.
    Offset {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The offset.
        offset: i64,
    },
}

/// What [`list_offset`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedOffset {
    /// The offset, or `None` when there is no answer.
    pub offset: Option<i64>,
    /// Bytes at the end of the active segment that do not frame a batch and were not read: the
    /// answer is what the log holds before them (what Kafka's recovery would leave).
    pub skipped: Option<SkippedTail>,
}

/// The offset `spec` names in the partition at `dir` (`log_start` from the log-start-offset
/// checkpoint), or `None` when there is no answer (an empty log for `-3`, a timestamp newer
/// than every record). A partition without a directory is an empty log.
pub fn list_offset(dir: &Path, spec: OffsetSpec, log_start: i64) -> Result<ListedOffset, LogError> {
    let empty = ListedOffset {
        offset: match spec {
            OffsetSpec::Latest | OffsetSpec::Earliest => Some(log_start),
            _ => None,
        },
        skipped: None,
    };
    read_or_empty(dir, empty, |log| {
        let end = log.log_end()?;
        let offset = match spec {
            OffsetSpec::Latest => Some(end.offset),
            OffsetSpec::Earliest => Some(log.log_start_offset().max(log_start)),
            OffsetSpec::LatestTiered => None,
            OffsetSpec::Timestamp(ts) => log.offset_for_timestamp(ts)?.map(|found| found.offset),
            OffsetSpec::MaxTimestamp => max_timestamp_offset(log)?,
        };
        Ok(ListedOffset {
            offset,
            skipped: end.skipped,
        })
    })
}

/// The offsets a consumer may start at in a partition ([`offset_range`]).
#[derive(Debug)]
pub struct OffsetRange {
    /// The log start: the first segment's base or the checkpointed log start offset,
    /// whichever is higher (and not past the end, when the end is known).
    pub start: i64,
    /// The log end, or why it could not be found (a corrupt last batch): a consumer that
    /// starts before it reads the records up to the damage and reports the damage there.
    pub end: Result<i64, LogError>,
}

/// The offsets a consumer may start at in the partition at `dir`; a partition without a
/// directory is empty.
pub fn offset_range(dir: &Path, checkpointed_start: i64) -> Result<OffsetRange, LogError> {
    let empty = OffsetRange {
        start: checkpointed_start,
        end: Ok(checkpointed_start),
    };
    read_or_empty(dir, empty, |log| {
        let start = log.log_start_offset().max(checkpointed_start);
        Ok(match log.log_end_offset() {
            Ok(end) => OffsetRange {
                start: start.min(end),
                end: Ok(end),
            },
            Err(error) => OffsetRange {
                start,
                end: Err(error),
            },
        })
    })
}

/// What `read` finds in the partition at `dir`, or `empty` when it has no directory: none at
/// all, or one removed while it was read (its topic deleted), whose files vanished under the
/// reader.
fn read_or_empty<T>(
    dir: &Path,
    empty: T,
    read: impl FnOnce(&mut LogReader) -> Result<T, LogError>,
) -> Result<T, LogError> {
    if !dir.is_dir() {
        return Ok(empty);
    }
    match LogReader::open(dir).and_then(|mut log| read(&mut log)) {
        Err(_) if !dir.is_dir() => Ok(empty),
        found => found,
    }
}

fn max_timestamp_offset(log: &mut LogReader) -> Result<Option<i64>, LogError> {
    let Some(TimestampOffset {
        timestamp: max_ts,
        offset: last_offset,
    }) = log.max_timestamp()?
    else {
        return Ok(None);
    };
    if max_ts < 0 {
        return Ok(None);
    }
    // The batch holding that timestamp: the first record that has it.
    let Some((base, found)) = log.seek(last_offset)? else {
        return Ok(Some(last_offset));
    };
    let mut reader = log.reader(base, found.position)?;
    if let Some((position, batch)) = reader.next_batch()? {
        let records = batch.records().map_err(|source| LogError::Corrupt {
            path: dir_log(log, base),
            position,
            source,
        })?;
        if let Some(r) = records.iter().find(|r| r.timestamp == max_ts) {
            return Ok(Some(r.offset));
        }
    }
    Ok(Some(last_offset))
}

fn dir_log(log: &mut LogReader, base: i64) -> std::path::PathBuf {
    log.segment(base)
        .map(|s| s.log_path().to_path_buf())
        .unwrap_or_default()
}
