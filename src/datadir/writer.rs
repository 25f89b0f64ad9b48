//! Writing to partitions: the data directory's lock, the logs a writer has open, and the
//! checkpoint files that tell the next writer where recovery must start.
//!
//! A broker keeps `recovery-point-offset-checkpoint` (everything below each offset is flushed)
//! and `log-start-offset-checkpoint` at the root of each log dir. kafkit does the same: a
//! partition opened here recovers from its checkpointed recovery point, and closing the writer
//! ([`PartitionWriter::close`]) flushes every log and checkpoints the new recovery points. A
//! writer that dies in between leaves the old recovery points, so the next one validates (and
//! if torn, truncates) what the dead one wrote after them. A writer closed without flushing
//! ([`PartitionWriter::close_unflushed`]) keeps the old recovery points too, and records where
//! it left each log in the unflushed tails (`tails`), so that the next writer of the same boot
//! validates only what comes after.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use super::checkpoint::{LOG_START_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT};
use super::tails::{UnflushedTails, UNFLUSHED_TAILS};
use super::{DataDir, DataDirError, DirLock, OffsetCheckpoint, Result, Topic, TopicPartition};
use crate::log::Log;

/// Milliseconds since the Unix epoch, by the system clock.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The holder of a data directory's lock and of the partition logs it has opened.
#[derive(Debug)]
pub struct PartitionWriter {
    datadir: DataDir,
    lock: DirLock,
    logs: BTreeMap<TopicPartition, Log>,
    recovery_points: BTreeMap<TopicPartition, i64>,
    log_start_offsets: BTreeMap<TopicPartition, i64>,
    tails: UnflushedTails,
}

impl PartitionWriter {
    /// Takes the data directory's lock (waiting for another writer as [`DataDir::lock`] does)
    /// and reads the checkpoints.
    pub fn new(datadir: &DataDir) -> Result<Self> {
        let lock = datadir.lock()?;
        Self::withlock(datadir, lock)
    }

    /// A writer under a lock already taken.
    pub fn withlock(datadir: &DataDir, lock: DirLock) -> Result<Self> {
        let recovery_points =
            OffsetCheckpoint::read(&datadir.root_file(RECOVERY_POINT_CHECKPOINT))?;
        let log_start_offsets =
            OffsetCheckpoint::read(&datadir.root_file(LOG_START_OFFSET_CHECKPOINT))?;
        let tails = UnflushedTails::read(&datadir.root_file(UNFLUSHED_TAILS));
        Ok(PartitionWriter {
            datadir: datadir.clone(),
            lock,
            logs: BTreeMap::new(),
            recovery_points,
            log_start_offsets,
            tails,
        })
    }

    /// The data directory's lock, for metadata changes made while writing.
    pub fn dirlock(&self) -> &DirLock {
        &self.lock
    }

    /// The partition's log, opened (and recovered) on first use with the topic's configs.
    pub fn log(&mut self, topic: &Topic, partition: i32) -> Result<&mut Log> {
        let tp = TopicPartition::new(topic.name.clone(), partition);
        if !self.logs.contains_key(&tp) {
            if partition < 0 || partition as usize >= topic.partition_count() {
                return Err(DataDirError::UnknownPartition(tp.to_string()));
            }
            let dir = self.datadir.partition_dir(&tp);
            let recovery_point = self.recovery_points.get(&tp).copied().unwrap_or(0);
            let log_start = self.log_start_offsets.get(&tp).copied().unwrap_or(0);
            let intact_to = self.tails.intact_to(&tp, &dir).unwrap_or(recovery_point);
            let log = Log::open_intact(
                &dir,
                topic.log_config(),
                recovery_point,
                intact_to,
                log_start,
                now_ms(),
            )
            .map_err(|source| DataDirError::Log {
                tp: tp.clone(),
                source,
            })?;
            self.logs.insert(tp.clone(), log);
        }
        self.logs
            .get_mut(&tp)
            .ok_or_else(|| DataDirError::UnknownPartition(tp.to_string()))
    }

    /// Flushes every open log and checkpoints the recovery points reached so far, keeping the
    /// writer open (used after each acknowledged batch with `acks=all`).
    pub fn checkpoint(&mut self) -> Result<()> {
        for (tp, log) in &mut self.logs {
            log.flush().map_err(|source| DataDirError::Log {
                tp: tp.clone(),
                source,
            })?;
            self.recovery_points
                .insert(tp.clone(), log.recovery_point());
        }
        self.write_recovery_points()
    }

    fn write_recovery_points(&self) -> Result<()> {
        OffsetCheckpoint::write(
            &self.datadir.root_file(RECOVERY_POINT_CHECKPOINT),
            &self.recovery_points,
        )?;
        Ok(())
    }

    /// Closes every log (flushed, indexes trimmed) and checkpoints their recovery points.
    pub fn close(self) -> Result<()> {
        self.close_logs(true)
    }

    /// Closes every log without flushing it (indexes trimmed), as `acks` 0 and 1 leave flushing
    /// to the topic's flush policy and to the operating system: the recovery points stay where
    /// the last flushes left them, so after a crash of the machine the next writer validates
    /// (and if torn, truncates) what was written since. Until the machine restarts, the next
    /// writer trusts each log up to where this one closed it (the unflushed tails).
    pub fn close_unflushed(self) -> Result<()> {
        self.close_logs(false)
    }

    fn close_logs(mut self, flush: bool) -> Result<()> {
        let logs = std::mem::take(&mut self.logs);
        let mut first_error: Option<DataDirError> = None;
        for (tp, log) in logs {
            // Kafka checkpoints a log start offset only when it is above the first segment's
            // base offset (records deleted inside a segment).
            let first_base = log.segment_base_offsets().first().copied().unwrap_or(0);
            if log.log_start_offset() > first_base {
                self.log_start_offsets
                    .insert(tp.clone(), log.log_start_offset());
            } else {
                self.log_start_offsets.remove(&tp);
            }
            let end = log.log_end_offset();
            let segment = log.segment_base_offsets().last().copied().unwrap_or(end);
            let dir = log.dir().to_path_buf();
            let closed = if flush {
                log.close()
            } else {
                log.close_unflushed()
            };
            match closed {
                Ok(recovery_point) => {
                    if recovery_point < end {
                        self.tails.closed_unflushed(&tp, &dir, end, segment);
                    } else {
                        self.tails.forget(&tp);
                    }
                    self.recovery_points.insert(tp, recovery_point);
                }
                Err(source) => {
                    self.tails.forget(&tp);
                    first_error.get_or_insert(DataDirError::Log { tp, source });
                }
            }
        }
        self.write_recovery_points()?;
        OffsetCheckpoint::write(
            &self.datadir.root_file(LOG_START_OFFSET_CHECKPOINT),
            &self.log_start_offsets,
        )?;
        // A cache: failing to write it only costs the next writer a longer recovery.
        let _ = self.tails.write(&self.datadir.root_file(UNFLUSHED_TAILS));
        match first_error {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }
}
