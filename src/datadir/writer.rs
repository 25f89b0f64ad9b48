//! Writing to partitions: the data directory's shared lock and the partitions' append locks
//! ([`super::lock`]), the logs a writer has open, and the checkpoint files that tell the next
//! writer where recovery must start (each writer merges what it knows of the partitions it
//! opened into them, under the metadata lock).
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

use std::collections::{BTreeMap, BTreeSet};
use std::time::{SystemTime, UNIX_EPOCH};

use super::checkpoint::{LOG_START_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT};
use super::tails::{UnflushedTails, UNFLUSHED_TAILS};
use super::{
    DataDir, DataDirError, DirLock, OffsetCheckpoint, PartitionLocks, Result, Topic,
    DEFAULT_LOCK_WAIT,
};
use crate::common::TopicPartition;
use crate::log::{Freshness, Log, LogCheckpoints};

/// Milliseconds since the Unix epoch, by the system clock.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How many partition logs a writer keeps open at most (three files each): past it the least
/// recently used are closed, so a topic of thousands of partitions stays within the open-file
/// limit. A quarter of the limit, less 64 files for everything else, within 8 and 1,024 (the
/// default limit of 1,024 gives 240).
pub fn max_open_logs() -> usize {
    let limit = crate::log::os::open_file_limit().unwrap_or(65_536);
    (limit.saturating_sub(64) / 4).clamp(8, 1024) as usize
}

/// A writer of a data directory: it holds the directory's shared lock and the partition logs
/// it has opened, and shares the directory with other writers (other processes, or other
/// writers of this one). Appends to a partition happen under its partition lock, taken by
/// [`Self::log`] and released by [`Self::release`]; a log another writer appended to meanwhile
/// is brought up to date first ([`Log::refresh`]).
#[derive(Debug)]
pub struct PartitionWriter {
    datadir: DataDir,
    lock: DirLock,
    appends: PartitionLocks,
    logs: BTreeMap<TopicPartition, Log>,
    /// When each open log was last used (a counter), to close the least recently used.
    last_used: BTreeMap<TopicPartition, u64>,
    uses: u64,
    /// Partitions whose append lock this writer holds now.
    held: BTreeSet<TopicPartition>,
    /// `max_open_logs()` when the writer was made.
    max_open_logs: usize,
    /// Partitions this writer opened: what it writes to the root checkpoints is about these
    /// alone, merged into what the files say of the others.
    opened: BTreeSet<TopicPartition>,
    recovery_points: BTreeMap<TopicPartition, i64>,
    log_start_offsets: BTreeMap<TopicPartition, i64>,
    /// The first segment's base offset of each log closed here: a checkpointed log start at or
    /// below it says nothing and is dropped, as Kafka drops it.
    first_bases: BTreeMap<TopicPartition, i64>,
    tails: UnflushedTails,
}

impl PartitionWriter {
    /// Takes the data directory's lock (shared with other writers, see [`DataDir::lock`]) and
    /// reads the checkpoints.
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
        let appends = lock.partition_locks()?;
        Ok(PartitionWriter {
            datadir: datadir.clone(),
            lock,
            appends,
            logs: BTreeMap::new(),
            last_used: BTreeMap::new(),
            uses: 0,
            held: BTreeSet::new(),
            max_open_logs: max_open_logs(),
            opened: BTreeSet::new(),
            recovery_points,
            log_start_offsets,
            first_bases: BTreeMap::new(),
            tails,
        })
    }

    /// The partition's log, ready for appends: the partition's append lock is taken (waiting
    /// while another writer appends to it; any other partition's lock this writer holds is
    /// released first) and held until [`Self::release`] or the next partition; the log is opened
    /// (and recovered) on first use with the topic's configs, or brought up to date with what
    /// other writers appended since this one last held it. A partition whose directory is gone
    /// (its topic deleted) is [`DataDirError::UnknownTopicOrPartition`]: nothing is created.
    pub fn log(&mut self, topic: &Topic, partition: i32) -> Result<&mut Log> {
        let tp = TopicPartition::new(topic.name.clone(), partition);
        // A broker's topic may hold some partitions only (`__consumer_offsets-39` alone).
        if !topic.partitions.iter().any(|p| p.id == partition) {
            return Err(DataDirError::UnknownPartition(tp.to_string()));
        }
        match self.bring_up_to_date(&tp)? {
            Some(Freshness::Current | Freshness::Stale) => {}
            Some(Freshness::Gone) => return Err(DataDirError::UnknownTopicOrPartition(tp)),
            None => {
                let dir = self.datadir.partition_dir(&tp);
                if !dir.is_dir() {
                    self.forget(&tp);
                    return Err(DataDirError::UnknownTopicOrPartition(tp));
                }
                let recovery_point = self.recovery_points.get(&tp).copied().unwrap_or(0);
                let log_start = self.log_start_offsets.get(&tp).copied().unwrap_or(0);
                let intact_to = self.tails.intact_to(&tp, &dir).unwrap_or(recovery_point);
                let open = |checkpoints| {
                    Log::open(&dir, topic.log_config(), checkpoints, now_ms()).map_err(|source| {
                        DataDirError::Log {
                            tp: tp.clone(),
                            source,
                        }
                    })
                };
                let mut log = open(
                    LogCheckpoints::recovery_point(recovery_point)
                        .with_intact_to(intact_to)
                        .with_log_start(log_start),
                )?;
                if log.log_end_offset() < recovery_point {
                    // The checkpoint was read before the topic was deleted and created again:
                    // its recovery point is the old log's, so the new one is validated whole.
                    drop(log);
                    log = open(LogCheckpoints::default())?;
                }
                self.logs.insert(tp.clone(), log);
                self.opened.insert(tp.clone());
            }
        }
        self.uses += 1;
        self.last_used.insert(tp.clone(), self.uses);
        self.logs
            .get_mut(&tp)
            .ok_or_else(|| DataDirError::UnknownPartition(tp.to_string()))
    }

    /// Lets other writers append to the partitions this one appended to since the last call,
    /// and closes the least recently used logs past `max_open_logs()` (without flushing, as
    /// [`Self::close_unflushed`] closes them).
    pub fn release(&mut self) -> Result<()> {
        for tp in std::mem::take(&mut self.held) {
            self.appends.unlock(&tp.to_string())?;
        }
        while self.logs.len() > self.max_open_logs {
            let Some(oldest) = self
                .last_used
                .iter()
                .filter(|(tp, _)| self.logs.contains_key(*tp))
                .min_by_key(|(_, used)| **used)
                .map(|(tp, _)| tp.clone())
            else {
                break;
            };
            self.close_log(&oldest, false)?;
            self.unlock(&oldest)?;
        }
        Ok(())
    }

    /// Takes a partition's append lock, releasing any other held first: a writer never waits
    /// for a partition while it holds another, so no two writers can deadlock.
    fn hold(&mut self, tp: &TopicPartition) -> Result<()> {
        if self.held.contains(tp) {
            return Ok(());
        }
        for other in std::mem::take(&mut self.held) {
            self.appends.unlock(&other.to_string())?;
        }
        self.appends.lock(&tp.to_string())?;
        self.held.insert(tp.clone());
        Ok(())
    }

    /// Releases one partition's append lock, if held.
    fn unlock(&mut self, tp: &TopicPartition) -> Result<()> {
        if self.held.remove(tp) {
            self.appends.unlock(&tp.to_string())?;
        }
        Ok(())
    }

    /// Forgets what this writer knew of a partition that is gone.
    fn forget(&mut self, tp: &TopicPartition) {
        self.opened.remove(tp);
        self.last_used.remove(tp);
        self.recovery_points.remove(tp);
        self.log_start_offsets.remove(tp);
        self.first_bases.remove(tp);
        self.tails.forget(tp);
    }

    /// Flushes every open log and checkpoints the recovery points reached so far, keeping the
    /// writer open (`--sync` after each batch, `acks=all` at each flush of the producer).
    pub fn checkpoint(&mut self) -> Result<()> {
        let partitions: Vec<TopicPartition> = self.logs.keys().cloned().collect();
        for tp in partitions {
            let Some(log) = self.current(&tp)? else {
                continue;
            };
            log.flush().map_err(|source| DataDirError::Log {
                tp: tp.clone(),
                source,
            })?;
            let recovery_point = log.recovery_point();
            self.recovery_points.insert(tp.clone(), recovery_point);
            self.unlock(&tp)?;
        }
        self.release()?;
        self.write_checkpoints(false)
    }

    /// A log this writer has open, under its partition lock and up to date; `None` when it
    /// has none open or the partition is gone.
    fn current(&mut self, tp: &TopicPartition) -> Result<Option<&mut Log>> {
        Ok(match self.bring_up_to_date(tp)? {
            Some(Freshness::Current | Freshness::Stale) => self.logs.get_mut(tp),
            Some(Freshness::Gone) | None => None,
        })
    }

    /// Takes the partition's append lock and, when this writer has its log open, takes in
    /// what other writers changed since ([`Log::refresh`]); a partition found gone is dropped
    /// and forgotten, nothing of it written back. Returns how the log was found (`None`: not
    /// open here).
    fn bring_up_to_date(&mut self, tp: &TopicPartition) -> Result<Option<Freshness>> {
        self.hold(tp)?;
        let Some(log) = self.logs.get_mut(tp) else {
            return Ok(None);
        };
        let log_err = |source| DataDirError::Log {
            tp: tp.clone(),
            source,
        };
        let freshness = log.freshness().map_err(log_err)?;
        match freshness {
            Freshness::Current => {}
            Freshness::Stale => log.refresh(now_ms()).map_err(log_err)?,
            Freshness::Gone => {
                self.logs.remove(tp);
                self.forget(tp);
            }
        }
        Ok(Some(freshness))
    }

    /// Writes this writer's recovery points (and log start offsets) into the root checkpoint
    /// files, under the metadata lock: each file is read again and only the partitions this
    /// writer opened change in it. A recovery point never goes back (another writer's flush may
    /// have covered more of the log than this one's).
    fn write_checkpoints(&mut self, with_log_starts: bool) -> Result<()> {
        let _meta = self.lock.meta(DEFAULT_LOCK_WAIT)?;
        let path = self.datadir.root_file(RECOVERY_POINT_CHECKPOINT);
        let mut on_disk = OffsetCheckpoint::read(&path)?;
        for tp in &self.opened {
            if let Some(&mine) = self.recovery_points.get(tp) {
                let point = on_disk.entry(tp.clone()).or_insert(mine);
                *point = (*point).max(mine);
            }
        }
        OffsetCheckpoint::write(&path, &on_disk)?;
        if with_log_starts {
            let path = self.datadir.root_file(LOG_START_OFFSET_CHECKPOINT);
            let mut on_disk = OffsetCheckpoint::read(&path)?;
            for tp in &self.opened {
                // A log start only rises: another writer (`delete-records`) may have moved it
                // since this one opened the log.
                let start = match (self.log_start_offsets.get(tp), on_disk.get(tp)) {
                    (Some(&mine), Some(&theirs)) => mine.max(theirs),
                    (Some(&mine), None) => mine,
                    (None, Some(&theirs)) => theirs,
                    (None, None) => continue,
                };
                let first_base = self.first_bases.get(tp).copied().unwrap_or(0);
                if start > first_base {
                    on_disk.insert(tp.clone(), start);
                } else {
                    on_disk.remove(tp);
                }
            }
            OffsetCheckpoint::write(&path, &on_disk)?;
            // A cache: failing to write it only costs the next writer a longer recovery.
            let path = self.datadir.root_file(UNFLUSHED_TAILS);
            let mut on_disk = UnflushedTails::read(&path);
            self.tails.merge_into(&mut on_disk, &self.opened);
            let _ = on_disk.write(&path);
        }
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
        let partitions: Vec<TopicPartition> = self.logs.keys().cloned().collect();
        let mut first_error: Option<DataDirError> = None;
        for tp in partitions {
            if let Err(e) = self.close_log(&tp, flush).and_then(|()| self.unlock(&tp)) {
                first_error.get_or_insert(e);
            }
        }
        let released = self.release();
        let written = self.write_checkpoints(true);
        match first_error {
            Some(err) => Err(err),
            None => released.and(written),
        }
    }

    /// Closes one log (brought up to date first, under its partition lock, which stays held
    /// until [`Self::release`]), noting its recovery point, log start offset and unflushed tail
    /// for the checkpoints.
    fn close_log(&mut self, tp: &TopicPartition, flush: bool) -> Result<()> {
        if self.current(tp)?.is_none() {
            return Ok(());
        }
        let Some(log) = self.logs.remove(tp) else {
            return Ok(());
        };
        self.last_used.remove(tp);
        // Kafka checkpoints a log start offset only when it is above the first segment's
        // base offset (records deleted inside a segment).
        let first_base = log.segment_base_offsets().first().copied().unwrap_or(0);
        self.first_bases.insert(tp.clone(), first_base);
        if log.log_start_offset() > first_base {
            self.log_start_offsets
                .insert(tp.clone(), log.log_start_offset());
        } else {
            self.log_start_offsets.remove(tp);
        }
        let end = log.log_end_offset();
        let segment = log.active_base_offset();
        let dir = log.dir().to_path_buf();
        let closed = if flush {
            log.close()
        } else {
            log.close_unflushed()
        };
        match closed {
            Ok(recovery_point) => {
                if recovery_point < end {
                    self.tails.closed_unflushed(tp, &dir, end, segment);
                } else {
                    self.tails.forget(tp);
                }
                self.recovery_points.insert(tp.clone(), recovery_point);
                Ok(())
            }
            Err(source) => {
                self.tails.forget(tp);
                Err(DataDirError::Log {
                    tp: tp.clone(),
                    source,
                })
            }
        }
    }
}
