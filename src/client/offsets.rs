//! Kafka's `ListOffsets` on a local partition: the offsets `kafka-get-offsets` prints.

use std::path::Path;

use crate::log::{LogError, LogReader};

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

/// The offset `spec` names in the partition at `dir` (`log_start` from the log-start-offset
/// checkpoint), or `None` when there is no answer (an empty log for `-3`, a timestamp newer
/// than every record). A partition without a directory is an empty log.
pub fn list_offset(dir: &Path, spec: OffsetSpec, log_start: i64) -> Result<Option<i64>, LogError> {
    let empty = match spec {
        OffsetSpec::Latest | OffsetSpec::Earliest => Some(log_start),
        _ => None,
    };
    read_or_empty(dir, empty, |log| {
        Ok(match spec {
            OffsetSpec::Latest => Some(log.log_end_offset()?),
            OffsetSpec::Earliest => Some(log.log_start_offset().max(log_start)),
            OffsetSpec::LatestTiered => None,
            OffsetSpec::Timestamp(ts) => log.offset_for_timestamp(ts)?.map(|(offset, _)| offset),
            OffsetSpec::MaxTimestamp => max_timestamp_offset(log)?,
        })
    })
}

/// The offsets a consumer may start at in the partition at `dir`: (log start, log end). The log
/// start is the first segment's base or the checkpointed log start offset, whichever is higher;
/// a partition without a directory is empty.
pub fn offset_range(dir: &Path, checkpointed_start: i64) -> Result<(i64, i64), LogError> {
    let empty = (checkpointed_start, checkpointed_start);
    read_or_empty(dir, empty, |log| {
        let end = log.log_end_offset()?;
        Ok((log.log_start_offset().max(checkpointed_start).min(end), end))
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
    let Some((max_ts, last_offset)) = log.max_timestamp()? else {
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
