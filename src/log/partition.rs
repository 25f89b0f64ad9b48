//! One partition's log: its segments in base-offset order, the log end offset, appending with
//! Kafka's offset assignment and roll rules, crash recovery on open, and reads by offset or
//! timestamp.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;

use super::compaction::{self, CompactionConfig, CompactionPlan};
use super::config::{CompressionPolicy, LogConfig};
use super::error::{InvalidAppend, LogError, OffsetDisorder, Result};
use super::index::TimestampOffset;
use super::reader::{SegmentReader, Stop};
use super::retention::{self, RetentionConfig, RetentionPlan};
use super::segment::{self, BatchPosition, LogSegment, SegmentAppend};
use crate::record::{self, BatchBuilder, BuiltBatch, RawBatch, TimestampType};

/// What an append wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendInfo {
    /// Offset of the first record of the batch.
    pub first_offset: i64,
    /// Offset of the last record.
    pub last_offset: i64,
    /// The broker's append time when the topic uses `LogAppendTime`, else -1.
    pub log_append_time: i64,
    /// Byte position of the batch in its segment.
    pub position: u64,
    /// Base offset of the segment that received it.
    pub segment_base_offset: i64,
}

/// A batch as [`Log::stamp`] left it.
struct Stamped {
    /// The append time written, -1 if none.
    log_append_time: i64,
    last_offset: i64,
    max_timestamp: i64,
    count: i64,
}

/// Where recovery on open started and what it cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Bytes cut from the end of the log (a torn or corrupt tail).
    pub truncated_bytes: u64,
    /// Segments deleted because they followed a truncated one.
    pub deleted_segments: usize,
}

/// A partition's log.
#[derive(Debug)]
pub struct Log {
    dir: PathBuf,
    config: LogConfig,
    /// Base offsets of every segment; only the active (last) one is kept open for writing.
    segments: Vec<i64>,
    active: Option<LogSegment>,
    log_start_offset: i64,
    log_end_offset: i64,
    /// Offset up to which everything is known to be on disk.
    recovery_point: i64,
    unflushed_messages: i64,
    last_flush_ms: i64,
    partition_leader_epoch: i32,
    recovery: RecoveryReport,
    /// The last rolled segment's flush, on its own thread as Kafka's `flush-log` task after a
    /// roll, and the offset the recovery point reaches when it is done.
    rolled_flush: Option<(i64, thread::JoinHandle<Result<()>>)>,
    /// A flush failed: what it should have synced may not be on disk, so the recovery point
    /// never moves again in this log's life (Kafka takes the log dir offline).
    flush_failed: bool,
    /// The partition directory's device and inode when the log was opened: a directory of the
    /// same name with another inode is another partition (its topic deleted and created again).
    dir_id: (u64, u64),
}

/// How a log a writer holds compares with its files ([`Log::freshness`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Nobody else wrote to it since this writer did.
    Current,
    /// Another writer appended, rolled or closed it: [`Log::refresh`] before appending.
    Stale,
    /// The partition directory is gone or is another one (its topic was deleted).
    Gone,
}

/// The device and inode of a directory, `None` when it is gone.
fn dir_identity(dir: &Path) -> Result<Option<(u64, u64)>> {
    use std::os::unix::fs::MetadataExt;
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(Some((m.dev(), m.ino()))),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LogError::io("reading", dir)(e)),
    }
}

/// Makes a directory's entries (files created, renamed or removed in it) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(LogError::io("syncing directory", dir))
}

/// Base offsets of the `.log` files in `dir`, sorted.
pub(crate) fn list_segments(dir: &Path) -> Result<Vec<i64>> {
    let mut bases = Vec::new();
    for entry in fs::read_dir(dir).map_err(LogError::io("listing", dir))? {
        let entry = entry.map_err(LogError::io("listing", dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(digits) = name.strip_suffix(".log") {
            if let Some(base) = segment::parse_base_offset(digits) {
                bases.push(base);
            }
        }
    }
    bases.sort_unstable();
    Ok(bases)
}

/// The bytes of a partition's log as Kafka counts them (`UnifiedLog.size`: the sum of its
/// segments' `.log` sizes; indexes and other files not included).
pub fn log_size(dir: &Path) -> Result<u64> {
    let mut size = 0;
    for base in list_segments(dir)? {
        let path = dir.join(segment::file_name(base, ".log"));
        match fs::metadata(&path) {
            Ok(m) => size += m.len(),
            // Removed meanwhile (retention, a delete): no longer part of the log.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LogError::io("reading", &path)(e)),
        }
    }
    Ok(size)
}

/// The offset after the last batch of the `.log` at `path` (its base offset when it has none).
fn next_offset_of(path: &Path, base: i64) -> Result<i64> {
    let mut reader = SegmentReader::open(path, 0)?;
    let mut next = base;
    while let Some((_, batch)) = reader.next_batch()? {
        next = batch.next_offset();
    }
    Ok(next)
}

/// Kafka's clean-up before loading (`LogLoader.removeTempFilesAndCollectSwapFiles` and the
/// swap passes of `LogLoader.load`): files left by an interrupted delete are removed, and so
/// are those of an interrupted clean (`.cleaned`, and the `.swap` files at or above the
/// smallest `.cleaned` base offset: a swap whose renames had not all happened). The other
/// `.swap` files are a cleaning that finished writing: the segment files they replace (every
/// file whose offset lies from the smallest swap base to the largest swap's next offset) are
/// removed and the swaps renamed into place. Then index files whose `.log` is gone are removed.
/// Returns the smallest base offset swapped in (its segments must be recovered: their indexes
/// are rebuilt from there).
fn remove_leftovers(dir: &Path) -> Result<Option<i64>> {
    const SWAP: &str = ".swap";
    let mut min_cleaned: Option<i64> = None;
    let mut swaps: Vec<(i64, PathBuf)> = Vec::new();
    for entry in fs::read_dir(dir).map_err(LogError::io("listing", dir))? {
        let entry = entry.map_err(LogError::io("listing", dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let path = entry.path();
        if name.ends_with(".deleted") || name.ends_with(".cleaned") {
            if name.ends_with(".cleaned") {
                if let Some(base) = segment::parse_base_offset(name) {
                    min_cleaned = Some(min_cleaned.map_or(base, |m: i64| m.min(base)));
                }
            }
            fs::remove_file(&path).map_err(LogError::io("removing", &path))?;
        } else if name.ends_with(SWAP) {
            if let Some(base) = segment::parse_base_offset(name) {
                swaps.push((base, path));
            }
        }
    }
    let (invalid, valid): (Vec<_>, Vec<_>) = swaps
        .into_iter()
        .partition(|(base, _)| min_cleaned.is_some_and(|m| *base >= m));
    for (_, path) in invalid {
        fs::remove_file(&path).map_err(LogError::io("removing", &path))?;
    }
    let mut swapped_from: Option<i64> = None;
    if !valid.is_empty() {
        let (mut min_swap, mut max_swap) = (i64::MAX, i64::MIN);
        for (base, path) in &valid {
            if path
                .to_str()
                .is_some_and(|p| p.ends_with(&format!(".log{SWAP}")))
            {
                min_swap = min_swap.min(*base);
                max_swap = max_swap.max(next_offset_of(path, *base)?);
            }
        }
        for entry in fs::read_dir(dir).map_err(LogError::io("listing", dir))? {
            let entry = entry.map_err(LogError::io("listing", dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.ends_with(SWAP) {
                continue;
            }
            if let Some(offset) = segment::parse_base_offset(name) {
                if offset >= min_swap && offset < max_swap {
                    let path = entry.path();
                    fs::remove_file(&path).map_err(LogError::io("removing", &path))?;
                }
            }
        }
        for (_, path) in &valid {
            if let Some(to) = path.to_str().and_then(|p| p.strip_suffix(SWAP)) {
                fs::rename(path, to).map_err(LogError::io("renaming", path))?;
            }
        }
        sync_dir(dir)?;
        swapped_from = (min_swap < i64::MAX).then_some(min_swap);
    }
    let logs: Vec<i64> = list_segments(dir)?;
    for entry in fs::read_dir(dir).map_err(LogError::io("listing", dir))? {
        let entry = entry.map_err(LogError::io("listing", dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let orphan = [".index", ".timeindex", ".txnindex"].iter().any(|suffix| {
            name.strip_suffix(suffix)
                .and_then(segment::parse_base_offset)
                .is_some_and(|base| logs.binary_search(&base).is_err())
        });
        if orphan {
            let path = entry.path();
            fs::remove_file(&path).map_err(LogError::io("removing", path))?;
        }
    }
    Ok(swapped_from)
}

/// What a log's checkpoints say when it is opened ([`Log::open`]), as a broker reads them from
/// its log dir's checkpoint files. The default is a new log: everything from offset 0 is
/// validated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogCheckpoints {
    /// Everything below is flushed (`recovery-point-offset-checkpoint`): recovery starts here.
    pub recovery_point: i64,
    /// Known intact up to here although flushed only to the recovery point (kafkit's
    /// unflushed tails); at or below the recovery point it says nothing more.
    pub intact_to: i64,
    /// The first offset kept (`log-start-offset-checkpoint`).
    pub log_start_offset: i64,
}

impl LogCheckpoints {
    /// Recovery from `recovery_point`, the log starting at 0.
    pub fn recovery_point(recovery_point: i64) -> Self {
        Self {
            recovery_point,
            intact_to: recovery_point,
            log_start_offset: 0,
        }
    }

    /// The same, with the log starting at `log_start_offset`.
    #[must_use]
    pub fn with_log_start(self, log_start_offset: i64) -> Self {
        Self {
            log_start_offset,
            ..self
        }
    }

    /// The same, the log known intact up to `intact_to`.
    #[must_use]
    pub fn with_intact_to(self, intact_to: i64) -> Self {
        Self { intact_to, ..self }
    }
}

impl Log {
    /// Opens a partition for appending, recovering it first as Kafka does after an unclean
    /// shutdown: every segment from the one holding the recovery point on is validated, a torn
    /// or corrupt tail is truncated (and the segments after it deleted), and indexes are
    /// rebuilt.
    ///
    /// When the log is known to be intact past its recovery point
    /// ([`LogCheckpoints::intact_to`]: a writer of this boot closed it there without flushing
    /// and nothing touched it since, the data directory's unflushed tails) and both offsets are
    /// in the same segment, recovery starts there instead, nothing is flushed on open and the
    /// recovery point stays where it is on disk, as in a broker that never stopped.
    ///
    /// The caller holds the partition's append lock (`datadir::PartitionWriter` takes it).
    pub fn open(
        dir: &Path,
        config: LogConfig,
        checkpoints: LogCheckpoints,
        now_ms: i64,
    ) -> Result<Self> {
        let LogCheckpoints {
            mut recovery_point,
            mut intact_to,
            log_start_offset,
        } = checkpoints;
        if !dir.is_dir() {
            fs::create_dir_all(dir).map_err(LogError::io("creating", dir))?;
            if let Some(parent) = dir.parent() {
                sync_dir(parent)?;
            }
        }
        if let Some(swapped) = remove_leftovers(dir)? {
            // Swapped-in segments are validated and their indexes rebuilt, as Kafka recovers a
            // segment whose index is missing.
            recovery_point = recovery_point.min(swapped);
            intact_to = intact_to.min(swapped);
        }
        let mut segments = list_segments(dir)?;
        let mut recovery = RecoveryReport::default();
        if segments.is_empty() {
            segments.push(log_start_offset.max(0));
        }
        // Recover from the segment holding the recovery point to the end.
        let holding = |offset: i64| segments.iter().rposition(|&base| base <= offset);
        let first = holding(recovery_point).unwrap_or(0);
        let mut trusted = intact_to > recovery_point && holding(intact_to) == Some(first);
        let from_offset = if trusted { intact_to } else { recovery_point };
        let mut i = first;
        let active = loop {
            let base = segments.get(i).copied().unwrap_or_default();
            let mut seg = LogSegment::open_writable(dir, base, &config, now_ms)?;
            let from = (i == first).then_some(from_offset);
            let cut = seg.recover(from)?;
            recovery.truncated_bytes += cut;
            if cut > 0 {
                // Everything after a truncated segment is lost, as in Kafka.
                for later in segments.drain(i + 1..) {
                    LogSegment::open_read_only(dir, later)?.delete()?;
                    recovery.deleted_segments += 1;
                }
            }
            if i + 1 >= segments.len() {
                break seg;
            }
            seg.trim()?;
            seg.flush()?;
            i += 1;
        };
        let base = active.base_offset();
        let log_end_offset = match active.read_next_offset()? {
            Some(next) => next,
            None => base,
        };
        let (segments, active, log_end_offset) = if log_start_offset > log_end_offset {
            // Everything is below the log start (records deleted up to there): Kafka deletes
            // every segment and starts a new one at the log start offset.
            drop(active);
            for base in &segments {
                LogSegment::open_read_only(dir, *base)?.delete()?;
            }
            let fresh = LogSegment::open_writable(dir, log_start_offset, &config, now_ms)?;
            sync_dir(dir)?;
            trusted = false;
            (vec![log_start_offset], fresh, log_start_offset)
        } else {
            (segments, active, log_end_offset)
        };
        let first_base = segments.first().copied().unwrap_or_default();
        let mut log = Log {
            dir: dir.to_path_buf(),
            config,
            segments,
            active: Some(active),
            log_start_offset: log_start_offset.max(first_base),
            log_end_offset,
            recovery_point: recovery_point.min(log_end_offset),
            unflushed_messages: 0,
            last_flush_ms: now_ms,
            partition_leader_epoch: 0,
            recovery,
            rolled_flush: None,
            flush_failed: false,
            dir_id: dir_identity(dir)?.unwrap_or_default(),
        };
        if trusted && recovery == RecoveryReport::default() {
            // Kafka's unflushed messages: what lies between the recovery point and the end.
            log.unflushed_messages = log_end_offset - log.recovery_point;
        } else if recovery != RecoveryReport::default() || log.recovery_point < log_end_offset {
            // What recovery changed, or validated past the recovery point, is made durable.
            log.flush()?;
        }
        Ok(log)
    }

    /// The partition directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The settings the log follows.
    pub fn config(&self) -> &LogConfig {
        &self.config
    }

    /// What recovery on open did.
    pub fn recovery(&self) -> RecoveryReport {
        self.recovery
    }

    /// Offset the next record will get.
    pub fn log_end_offset(&self) -> i64 {
        self.log_end_offset
    }

    /// First offset still in the log.
    pub fn log_start_offset(&self) -> i64 {
        self.log_start_offset
    }

    /// Kafka's `UnifiedLog.maybeIncrementLogStartOffset` (what `DeleteRecords` does): the log
    /// start offset moves up to `offset`, never down; past the high watermark (here, the log
    /// end offset: one replica, every append acknowledged) it is refused. Segments wholly
    /// below the new start stay on disk until retention removes them, as in Kafka; readers no
    /// longer see their records. The caller checkpoints the new start
    /// (`log-start-offset-checkpoint`, as `datadir::PartitionWriter` does on close). Returns the
    /// log start offset now (the partition's low watermark).
    pub fn maybe_increment_log_start_offset(&mut self, offset: i64) -> Result<i64> {
        if offset > self.log_end_offset {
            return Err(LogError::LogStartAboveHighWatermark {
                offset,
                partition: self
                    .dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                high_watermark: self.log_end_offset,
            });
        }
        self.log_start_offset = self.log_start_offset.max(offset);
        Ok(self.log_start_offset)
    }

    /// Offset up to which the log is flushed.
    pub fn recovery_point(&self) -> i64 {
        self.recovery_point
    }

    /// Base offsets of the segments, oldest first.
    pub fn segment_base_offsets(&self) -> &[i64] {
        &self.segments
    }

    /// Whether another writer of the partition changed its files since this log last did
    /// (appended, rolled, closed), or removed the partition. A few `stat`s: writers sharing a
    /// partition ask before each run of appends, under the partition's lock.
    pub fn freshness(&self) -> Result<Freshness> {
        if dir_identity(&self.dir)? != Some(self.dir_id) {
            return Ok(Freshness::Gone);
        }
        let Some(active) = &self.active else {
            return Ok(Freshness::Stale);
        };
        if !active.same_file_on_disk()? {
            // The directory was deleted and made again (its inode may be reused), or the
            // segment is gone: another partition now. kafkit's writers never replace a segment
            // file under its name.
            return Ok(Freshness::Gone);
        }
        if !active.unchanged_on_disk()? {
            return Ok(Freshness::Stale);
        }
        // A roll by another writer starts a segment at this log's end before appending to it.
        let rolled = self.log_end_offset != active.base_offset()
            && self
                .dir
                .join(segment::file_name(self.log_end_offset, ".log"))
                .exists();
        Ok(if rolled {
            Freshness::Stale
        } else {
            Freshness::Current
        })
    }

    /// Takes in what other writers of the partition appended since this log last wrote:
    /// the segments they rolled (synced, as a roll syncs them) and the active segment's new
    /// end, validated from its last
    /// offset-index entry on (a writer that died in the middle of an append leaves a torn
    /// batch there, which is cut as recovery cuts it; everything before that entry was written
    /// by writers that went on). The caller holds the partition's lock; nothing this log has
    /// mapped is touched before the files are looked at again.
    pub fn refresh(&mut self, now_ms: i64) -> Result<()> {
        let active_base = self.active_base_offset();
        // Dropping the segment unmaps its indexes and writes nothing.
        self.active = None;
        let later: Vec<i64> = list_segments(&self.dir)?
            .into_iter()
            .filter(|&base| base >= active_base)
            .collect();
        let Some(&last) = later.last() else {
            return Err(LogError::Io {
                action: "reopening",
                path: self.dir.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("the active segment {active_base} is gone"),
                ),
            });
        };
        // Segments other writers rolled (this log's old active one among them) are made durable
        // here, as a roll would have made them: this log's flushes sync only its active
        // segment, and its recovery point must not pass unsynced data.
        for &rolled in later.iter().filter(|&&base| base != last) {
            for suffix in [".log", ".index", ".timeindex"] {
                let path = self.dir.join(segment::file_name(rolled, suffix));
                match fs::File::open(&path).and_then(|file| file.sync_data()) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound && suffix != ".log" => {}
                    Err(e) => return Err(LogError::io("flushing", &path)(e)),
                }
            }
        }
        let mut active = LogSegment::open_writable(&self.dir, last, &self.config, now_ms)?;
        self.recovery.truncated_bytes += active.recover(Some(i64::MAX))?;
        self.log_end_offset = active.read_next_offset()?.unwrap_or(last);
        self.segments.retain(|&base| base < active_base);
        self.segments.extend(later);
        self.active = Some(active);
        Ok(())
    }

    /// The base offset of the active (last) segment.
    pub fn active_base_offset(&self) -> i64 {
        self.segments.last().copied().unwrap_or(self.log_end_offset)
    }

    /// The `.log` files of the segments from the one based at `base` on (those a write that
    /// began in that segment touched; rolls start new ones).
    pub fn segment_files_from(&self, base: i64) -> impl Iterator<Item = PathBuf> + '_ {
        let first = self.segments.partition_point(|&b| b < base);
        self.segments
            .get(first..)
            .unwrap_or_default()
            .iter()
            .map(|&b| self.dir.join(segment::file_name(b, ".log")))
    }

    fn active(&mut self) -> Result<&mut LogSegment> {
        self.active.as_mut().ok_or_else(|| LogError::Closed {
            dir: self.dir.clone(),
        })
    }

    /// Appends one batch as a partition leader does: checks it as Kafka's `LogValidator` does
    /// (CRC, offset range, every record), checks its size against `max.message.bytes`,
    /// recompresses it when the topic's `compression.type` asks for another codec, assigns
    /// offsets from the log end offset, stamps the leader epoch (and the append time for
    /// `LogAppendTime` topics), rolls the active segment when Kafka would, writes it and flushes
    /// when `flush.messages`/`flush.ms` say so.
    pub fn append(&mut self, batch: &[u8], now_ms: i64) -> Result<AppendInfo> {
        let mut bytes = self.conform(batch)?;
        self.append_valid(&mut bytes, now_ms)
    }

    /// The leader epoch this log stamps into the batches it appends as a leader (Kafka's
    /// `partitionLeaderEpoch`, the epoch the partition's leader holds); 0 until set.
    pub fn set_leader_epoch(&mut self, epoch: i32) {
        self.partition_leader_epoch = epoch;
    }

    /// Kafka's `UnifiedLog.truncateTo`: removes every record at or after `offset` (a follower
    /// cutting what its leader does not have). Segments that start at or after it are deleted
    /// (the first one is kept, emptied), the one holding it is cut at that batch and its
    /// indexes rebuilt; the recovery point follows. Returns whether anything was removed.
    pub fn truncate_to(&mut self, offset: i64, now_ms: i64) -> Result<bool> {
        if offset >= self.log_end_offset {
            return Ok(false);
        }
        self.finish_rolled_flush()?;
        while self.segments.len() > 1 && self.segments.last().is_some_and(|&b| b >= offset) {
            if let Some(active) = self.active.take() {
                active.delete()?;
            }
            self.segments.pop();
            let base = self.segments.last().copied().unwrap_or_default();
            let mut reopened = LogSegment::open_writable(&self.dir, base, &self.config, now_ms)?;
            reopened.recover(None)?;
            self.active = Some(reopened);
        }
        let active = self.active()?;
        active.truncate_to(offset)?;
        let end = active.read_next_offset()?.unwrap_or(active.base_offset());
        active.flush()?;
        sync_dir(&self.dir)?;
        self.log_end_offset = end;
        self.recovery_point = self.recovery_point.min(end);
        self.log_start_offset = self.log_start_offset.min(end);
        self.unflushed_messages = 0;
        Ok(true)
    }

    /// [`Self::append`] for a batch this library's [`BatchBuilder`] made (the in-process
    /// producer's). Its header is checked as any batch's is (base offset 0, an offset range that
    /// matches the count, the size limit), but its CRC and records are not decoded again: the
    /// builder wrote them, so they hold by construction (debug builds check anyway). A batch the
    /// topic must recompress, or one with offset gaps, takes the path of [`Self::append`].
    ///
    /// The batch is written from its own buffer, which stays the caller's (to reuse or to read
    /// a refused batch's records): when the log writes it as it is, the buffer then holds the
    /// offsets and stamps the log gave; a batch the log recompresses is written from a copy.
    pub fn append_built(&mut self, batch: &mut BuiltBatch, now_ms: i64) -> Result<AppendInfo> {
        if !self.takes_as_built(batch)? {
            return self.append(batch.as_bytes(), now_ms);
        }
        self.append_valid(batch.as_mut_bytes(), now_ms)
    }

    /// Whether a built batch may skip the record checks: the topic keeps its codec and its
    /// offsets have no gap (else it goes through [`Self::append`]). Its header's offset range is
    /// checked here; debug builds also run the checks it skips.
    fn takes_as_built(&self, batch: &BuiltBatch) -> Result<bool> {
        let codec_kept = match self.config.compression {
            CompressionPolicy::Fixed(codec) => codec == batch.compression(),
            CompressionPolicy::Producer => true,
        };
        if !codec_kept || !batch.has_consecutive_offsets() {
            return Ok(false);
        }
        self.check_offset_range(
            batch.base_offset(),
            batch.last_offset_delta(),
            batch.records_count(),
        )?;
        debug_assert!(
            first_batch(batch.as_bytes())
                .map_err(|source| self.corrupt_input(source))
                .and_then(|raw| self.check_records(&raw))
                .is_ok(),
            "a BatchBuilder batch fails validation"
        );
        Ok(true)
    }

    /// [`Self::append_built`] for the batches of one producer hand-off, written with one
    /// vectored write when each would take the trusted path, they all fit the active segment and
    /// its indexes (no roll), and the topic's flush policy would not flush among them: then the
    /// result is exactly that of appending them one by one. Otherwise `None`, nothing is
    /// written, and the caller appends them one by one.
    pub fn append_built_all(
        &mut self,
        batches: &mut [BuiltBatch],
        now_ms: i64,
    ) -> Result<Option<Vec<AppendInfo>>> {
        if batches.len() < 2 {
            return Ok(None);
        }
        let max_bytes = self.config.max_message_bytes as usize;
        let mut total_bytes = 0u64;
        let mut total_records = 0i64;
        let mut max_timestamp = -1i64;
        for batch in batches.iter() {
            // Anything to refuse or rewrite is left to the one-by-one path, which reports it.
            if batch.as_bytes().len() > max_bytes || !matches!(self.takes_as_built(batch), Ok(true))
            {
                return Ok(None);
            }
            total_bytes += batch.as_bytes().len() as u64;
            total_records += i64::from(batch.records_count());
            max_timestamp = max_timestamp.max(batch.max_timestamp());
        }
        if self.config.timestamp_type == TimestampType::LogAppendTime {
            max_timestamp = now_ms;
        }
        if self.unflushed_messages + total_records >= self.config.flush_messages
            || now_ms - self.last_flush_ms >= self.config.flush_ms
        {
            return Ok(None);
        }
        let last_offset = self.log_end_offset + total_records - 1;
        let config = self.config.clone();
        let active = self.active()?;
        // No batch of the group would roll in turn when: the segment already has a batch (its
        // age then counts from that one's timestamp, and an empty segment takes an oversized
        // first append that a run of appends would not fit), the group as one append would not
        // roll (for a non-empty segment `should_roll` grows with the size, the largest
        // timestamp and the last offset), and each batch can add its index entries.
        if active.size() == 0
            || active.should_roll(&config, total_bytes, max_timestamp, last_offset, now_ms)
            || active.index_room() < batches.len()
        {
            return Ok(None);
        }
        let (mut position, segment_base_offset) = (active.size(), active.base_offset());
        let mut next_offset = self.log_end_offset;
        let mut infos = Vec::with_capacity(batches.len());
        let mut appends = Vec::with_capacity(batches.len());
        for batch in batches.iter_mut() {
            let Stamped {
                log_append_time,
                last_offset: last,
                max_timestamp: max_ts,
                ..
            } = self.stamp(batch.as_mut_bytes(), next_offset, now_ms)?;
            infos.push(AppendInfo {
                first_offset: next_offset,
                last_offset: last,
                log_append_time,
                position,
                segment_base_offset,
            });
            appends.push((last, max_ts));
            position += batch.as_bytes().len() as u64;
            next_offset = last + 1;
        }
        let appends: Vec<SegmentAppend<'_>> = batches
            .iter()
            .zip(appends)
            .map(|(batch, (last, max_ts))| SegmentAppend {
                bytes: batch.as_bytes(),
                largest_offset: last,
                largest_timestamp: max_ts,
                offset_of_largest_timestamp: last,
            })
            .collect();
        self.active()?.append_all(&appends)?;
        self.log_end_offset = next_offset;
        self.unflushed_messages += total_records;
        Ok(Some(infos))
    }

    /// The leader's part of an append, for a batch that passed validation.
    fn append_valid(&mut self, bytes: &mut [u8], now_ms: i64) -> Result<AppendInfo> {
        if bytes.len() > self.config.max_message_bytes as usize {
            return Err(LogError::RecordTooLarge);
        }
        let base_offset = self.log_end_offset;
        let Stamped {
            log_append_time,
            last_offset,
            max_timestamp,
            count,
        } = self.stamp(bytes, base_offset, now_ms)?;
        self.append_at(
            bytes,
            base_offset,
            last_offset,
            max_timestamp,
            count,
            now_ms,
        )
        .map(|info| AppendInfo {
            log_append_time,
            ..info
        })
    }

    /// Appends one batch as a follower does (Kafka's `appendAsFollower`): the leader's bytes as
    /// they are, its offsets, leader epoch and timestamps kept, after the CRC check. Its
    /// offsets must come after the log end offset; a gap (a compacted leader's log) is kept,
    /// as the follower keeps it. Rolls and flushes as a leader's append does. Used by replica
    /// fetches and to copy a leader's log to a new replica byte for byte.
    pub fn append_as_follower(&mut self, batch: &[u8], now_ms: i64) -> Result<AppendInfo> {
        let raw = first_batch(batch).map_err(|source| self.corrupt_input(source))?;
        if raw.size_in_bytes() != batch.len() || raw.magic() != 2 {
            return Err(InvalidAppend::NotOneBatch.into());
        }
        raw.ensure_valid()
            .map_err(|source| self.corrupt_input(source))?;
        let base_offset = raw.base_offset();
        let last_offset = raw.last_offset();
        if base_offset < self.log_end_offset || last_offset < base_offset {
            return Err(LogError::OffsetDisorder {
                path: self.dir.clone(),
                position: 0,
                first: base_offset,
                last: last_offset,
                disorder: if last_offset < base_offset {
                    OffsetDisorder::Reversed
                } else {
                    OffsetDisorder::Backwards {
                        previous: self.log_end_offset - 1,
                    }
                },
            });
        }
        let max_timestamp = raw.max_timestamp();
        let count = i64::from(raw.records_count().unwrap_or(1));
        self.append_at(
            batch,
            base_offset,
            last_offset,
            max_timestamp,
            count,
            now_ms,
        )
    }

    /// What a leader's and a follower's append of one batch share, once its offsets are
    /// settled: roll when it does not fit, append it to the active segment (its index entries
    /// for `last_offset` and `max_timestamp`), move the log end and flush on
    /// `flush.messages`/`flush.ms`. The answer's `log_append_time` is -1 (the leader's
    /// caller fills in its own).
    fn append_at(
        &mut self,
        bytes: &[u8],
        base_offset: i64,
        last_offset: i64,
        max_timestamp: i64,
        count: i64,
        now_ms: i64,
    ) -> Result<AppendInfo> {
        self.maybe_roll(bytes.len() as u64, max_timestamp, last_offset, now_ms)?;
        let active = self.active()?;
        let position = active.size();
        let segment_base_offset = active.base_offset();
        active.append(bytes, last_offset, max_timestamp, last_offset)?;
        self.log_end_offset = last_offset + 1;
        self.unflushed_messages += count;
        if self.unflushed_messages >= self.config.flush_messages
            || now_ms - self.last_flush_ms >= self.config.flush_ms
        {
            self.flush()?;
            self.last_flush_ms = now_ms;
        }
        Ok(AppendInfo {
            first_offset: base_offset,
            last_offset,
            log_append_time: -1,
            position,
            segment_base_offset,
        })
    }

    /// What a leader writes into a batch it appends: the base offset, its leader epoch, and
    /// the append time on `LogAppendTime` topics.
    fn stamp(&self, bytes: &mut [u8], base_offset: i64, now_ms: i64) -> Result<Stamped> {
        record::set_base_offset(bytes, base_offset).map_err(|source| self.corrupt_input(source))?;
        record::set_partition_leader_epoch(bytes, self.partition_leader_epoch)
            .map_err(|source| self.corrupt_input(source))?;
        let mut log_append_time = -1;
        if self.config.timestamp_type == TimestampType::LogAppendTime {
            record::set_log_append_time(bytes, now_ms)
                .map_err(|source| self.corrupt_input(source))?;
            log_append_time = now_ms;
        }
        let raw = first_batch(bytes).map_err(|source| self.corrupt_input(source))?;
        Ok(Stamped {
            log_append_time,
            last_offset: raw.last_offset(),
            max_timestamp: raw.max_timestamp(),
            count: raw.header().map_or(1, |h| i64::from(h.records_count)),
        })
    }

    fn corrupt_input(&self, source: record::RecordError) -> LogError {
        LogError::Corrupt {
            path: self.dir.clone(),
            position: 0,
            source,
        }
    }

    /// Validates an incoming batch and rewrites it with the topic's codec when that differs.
    fn conform(&self, batch: &[u8]) -> Result<Vec<u8>> {
        let raw = first_batch(batch).map_err(|source| self.corrupt_input(source))?;
        if raw.size_in_bytes() != batch.len() || raw.magic() != 2 {
            return Err(InvalidAppend::NotOneBatch.into());
        }
        if batch.len() > self.config.max_message_bytes as usize {
            return Err(LogError::RecordTooLarge);
        }
        self.check_records(&raw)?;
        let wanted = match self.config.compression {
            CompressionPolicy::Fixed(codec) => codec,
            CompressionPolicy::Producer => return Ok(batch.to_vec()),
        };
        let current = raw
            .compression()
            .map_err(|source| self.corrupt_input(source))?;
        if current == wanted {
            return Ok(batch.to_vec());
        }
        let header = raw.header().ok_or(InvalidAppend::NotOneBatch)?;
        let records = raw.records().map_err(|source| self.corrupt_input(source))?;
        let mut builder = BatchBuilder::new(header.base_offset, wanted, raw.timestamp_type())
            .producer_id(header.producer_id)
            .producer_epoch(header.producer_epoch)
            .base_sequence(header.base_sequence)
            .transactional(header.is_transactional())
            .control(header.is_control());
        for r in &records {
            builder
                .append_with_offset(
                    r.offset,
                    r.timestamp,
                    r.key.as_deref(),
                    r.value.as_deref(),
                    &r.headers,
                )
                .map_err(|source| self.corrupt_input(source))?;
        }
        builder.build().map_err(|source| self.corrupt_input(source))
    }

    /// The CRC and [`Self::validate_offsets`].
    fn check_records(&self, raw: &RawBatch<'_>) -> Result<()> {
        raw.ensure_valid()
            .map_err(|source| self.corrupt_input(source))?;
        self.validate_offsets(raw)
    }

    /// Kafka's `LogValidator` checks of a produced batch: base offset 0, an offset range that
    /// matches the record count, a known codec, and records whose offset deltas count up from 0.
    /// Offsets are assigned from the header, so a batch that lies about them is refused rather
    /// than allowed to move the log end offset backwards or past records that do not exist.
    fn validate_offsets(&self, raw: &RawBatch<'_>) -> Result<()> {
        let header = raw.header().ok_or(InvalidAppend::NotOneBatch)?;
        self.check_offset_range(
            header.base_offset,
            header.last_offset_delta,
            header.records_count,
        )?;
        let tp = self.dir.display();
        let first = header.base_offset;
        raw.compression()
            .map_err(|source| self.corrupt_input(source))?;
        let mut records = raw
            .record_iter()
            .map_err(|source| self.corrupt_input(source))?;
        let mut expected = first;
        while let Some(offset) = records.next_offset() {
            let offset = offset.map_err(|source| self.corrupt_input(source))?;
            if offset != expected {
                return Err(InvalidAppend::RecordOffset {
                    partition: tp.to_string(),
                    offset,
                    first,
                    expected,
                }
                .into());
            }
            expected += 1;
        }
        Ok(())
    }

    /// The header checks of [`Self::validate_offsets`]: base offset 0 and lastOffsetDelta + 1
    /// records.
    fn check_offset_range(
        &self,
        base_offset: i64,
        last_offset_delta: i32,
        records_count: i32,
    ) -> Result<()> {
        let tp = self.dir.display();
        if base_offset != 0 {
            return Err(InvalidAppend::BaseOffsetNotZero {
                partition: tp.to_string(),
                base_offset,
            }
            .into());
        }
        let last = base_offset + i64::from(last_offset_delta);
        let count_from_offsets = i64::from(last_offset_delta) + 1;
        if count_from_offsets <= 0 {
            return Err(InvalidAppend::OffsetRange {
                partition: tp.to_string(),
                base_offset,
                last_offset: last,
            }
            .into());
        }
        if i64::from(records_count) != count_from_offsets {
            return Err(InvalidAppend::RecordCount {
                partition: tp.to_string(),
                base_offset,
                last_offset: last,
                records_count,
            }
            .into());
        }
        Ok(())
    }

    /// Kafka's `maybeRoll`: starts a new segment when the append would not fit the active one.
    fn maybe_roll(
        &mut self,
        size: u64,
        max_timestamp: i64,
        last_offset: i64,
        now_ms: i64,
    ) -> Result<()> {
        let config = self.config.clone();
        let leo = self.log_end_offset;
        let active = self.active()?;
        if !active.should_roll(&config, size, max_timestamp, last_offset, now_ms) {
            return Ok(());
        }
        if active.size() == 0 && active.base_offset() == leo {
            // Rolling an empty segment would only recreate it.
            return Ok(());
        }
        self.roll(now_ms)
    }

    /// Closes the active segment (final time-index entry, trimmed indexes) and starts a new one
    /// at the log end offset. The closed segment is flushed on another thread, as Kafka
    /// schedules it after a roll: appends go on meanwhile, and the recovery point moves to the
    /// new segment once that flush is done (at the next roll, flush or close at the latest).
    pub fn roll(&mut self, now_ms: i64) -> Result<()> {
        let base = self.log_end_offset;
        self.finish_rolled_flush()?;
        if let Some(mut old) = self.active.take() {
            old.trim()?;
            let flush = thread::Builder::new()
                .name("kafkit-flush".to_string())
                .spawn(move || old.flush());
            match flush {
                Ok(flush) => self.rolled_flush = Some((base, flush)),
                Err(e) => {
                    // The segment went with the closure, unsynced.
                    self.flush_failed = true;
                    return Err(LogError::io("starting the flush of", &self.dir)(e));
                }
            }
        }
        let segment = LogSegment::open_writable(&self.dir, base, &self.config, now_ms)?;
        // The new files must survive a power loss before the recovery point moves past them.
        sync_dir(&self.dir)?;
        if self.segments.last() != Some(&base) {
            self.segments.push(base);
        }
        self.active = Some(segment);
        Ok(())
    }

    /// Kafka's `deleteOldSegments` at `now_ms` ([`super::retention`]): plans which segments
    /// go and why, rolls the active segment first when every segment goes, renames the files
    /// of those that go (and their producer snapshots) to `.deleted`, oldest first, and moves
    /// the log start offset to the first segment kept. The `.deleted` files are removed at
    /// once when `file.delete.delay.ms` is 0, else left for a later pass
    /// ([`super::retention::remove_deleted_files`]) or the next open. Returns the plan taken,
    /// its records counted.
    pub fn delete_old_segments(
        &mut self,
        config: &RetentionConfig,
        now_ms: i64,
    ) -> Result<RetentionPlan> {
        let mut infos = Vec::with_capacity(self.segments.len());
        let active = self.active.as_ref().ok_or_else(|| LogError::Closed {
            dir: self.dir.clone(),
        })?;
        for &base in &self.segments {
            let info = if base == active.base_offset() {
                retention::segment_info(active)?
            } else {
                retention::segment_info(&LogSegment::open_read_only(&self.dir, base)?)?
            };
            infos.push(info);
        }
        // A single replica's high watermark is its log end.
        let leo = self.log_end_offset;
        let mut plan = retention::plan(&infos, leo, leo, self.log_start_offset, config, now_ms);
        if plan.is_empty() {
            return Ok(plan);
        }
        retention::count_records(&self.dir, &mut plan)?;
        if plan.roll {
            self.roll(now_ms)?;
        }
        for deletion in &plan.deletions {
            retention::rename_deleted(&self.dir, deletion.segment.base_offset)?;
        }
        let gone: Vec<i64> = plan
            .deletions
            .iter()
            .map(|d| d.segment.base_offset)
            .collect();
        self.segments.retain(|base| !gone.contains(base));
        let first = self.segments.first().copied().unwrap_or(leo);
        self.log_start_offset = self.log_start_offset.max(first).max(plan.log_start_offset);
        sync_dir(&self.dir)?;
        if config.file_delete_delay_ms == 0 {
            retention::remove_deleted_files(
                &retention::PartitionFiles::list(&self.dir)?,
                0,
                i64::MAX,
                true,
            )?;
        }
        Ok(plan)
    }

    /// Kafka's log cleaner on this compacted log at `now_ms`
    /// ([`super::compaction`]): when it is cleanable, rewrites the segments from
    /// its start to the end of the offset map through `.cleaned` and `.swap` files. Returns the
    /// plan and whether it cleaned (`progress` is told the bytes of each batch rewritten); after
    /// a cleaning the caller records the plan's `end_offset` in `cleaner-offset-checkpoint`.
    pub fn clean(
        &mut self,
        config: &CompactionConfig,
        cleaner_checkpoint: Option<i64>,
        file_delete_delay_ms: i64,
        now_ms: i64,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(CompactionPlan, bool)> {
        let bases = self.segments.clone();
        let (plan, cleaned) = compaction::clean(
            &self.dir,
            &bases,
            &self.config,
            self.log_start_offset,
            self.log_end_offset,
            cleaner_checkpoint,
            config,
            file_delete_delay_ms,
            now_ms,
            progress,
        )?;
        self.segments = list_segments(&self.dir)?;
        Ok((plan, cleaned))
    }

    /// Waits for the last rolled segment's flush and moves the recovery point past it.
    fn finish_rolled_flush(&mut self) -> Result<()> {
        if self.flush_failed {
            return Err(LogError::Io {
                action: "flushing",
                path: self.dir.clone(),
                source: std::io::Error::other("an earlier flush of this log failed"),
            });
        }
        if let Some((flushed_to, flush)) = self.rolled_flush.take() {
            let flushed = flush.join().unwrap_or_else(|_| {
                Err(LogError::Io {
                    action: "flushing a rolled segment of",
                    path: self.dir.clone(),
                    source: std::io::Error::other("the flushing thread panicked"),
                })
            });
            if flushed.is_err() {
                self.flush_failed = true;
            }
            flushed?;
            self.recovery_point = self.recovery_point.max(flushed_to);
        }
        Ok(())
    }

    /// Makes every appended batch durable and moves the recovery point to the log end.
    pub fn flush(&mut self) -> Result<()> {
        self.finish_rolled_flush()?;
        if let Some(active) = &mut self.active {
            if let Err(e) = active.flush() {
                self.flush_failed = true;
                return Err(e);
            }
        }
        self.recovery_point = self.log_end_offset;
        self.unflushed_messages = 0;
        Ok(())
    }

    /// Flushes, writes the active segment's final time-index entry and trims its indexes, as a
    /// broker does on a clean shutdown.
    pub fn close(mut self) -> Result<i64> {
        self.flush()?;
        if let Some(mut active) = self.active.take() {
            active.trim()?;
            active.flush()?;
        }
        Ok(self.recovery_point)
    }

    /// Closes without flushing, as `acks` 0 and 1 leave flushing to the topic's flush policy
    /// and to the operating system: writes the active segment's final time-index entry and
    /// trims its indexes, and waits for the last rolled segment's flush. The recovery point
    /// stays where the last flush left it. A topic with `flush.ms` is flushed as by
    /// [`Log::close`]: no process is left to flush it when that time has passed.
    pub fn close_unflushed(mut self) -> Result<i64> {
        if self.config.flush_ms < i64::MAX {
            return self.close();
        }
        if let Some(mut active) = self.active.take() {
            active.trim()?;
        }
        self.finish_rolled_flush()?;
        Ok(self.recovery_point)
    }
}

/// The one batch at the start of `bytes`.
fn first_batch(bytes: &[u8]) -> std::result::Result<RawBatch<'_>, record::RecordError> {
    match RawBatch::read_at(bytes, 0)? {
        Some(batch) => Ok(batch),
        None => Err(record::RecordError::Truncated {
            position: 0,
            what: "record batch",
            needed: record::HEADER_SIZE_UP_TO_MAGIC + 1,
            remaining: bytes.len(),
        }),
    }
}

/// Where a partition's log ends, as a reader finds it ([`LogReader::log_end`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEnd {
    /// The offset after the last batch.
    pub offset: i64,
    /// Bytes at the end of the active segment that were not read.
    pub skipped: Option<SkippedTail>,
}

/// Bytes at the end of the active segment that do not frame a batch, which a reader stops
/// before: what Kafka's log recovery truncates after a crash. Its text is the warning readers
/// print.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Found invalid messages in log segment {} at byte offset {position}: {reason}. The {bytes} bytes from there to the end of the active segment are not read, as Kafka's log recovery would truncate them", path.display())]
pub struct SkippedTail {
    /// The segment's `.log`.
    pub path: PathBuf,
    /// Where the unread bytes start.
    pub position: u64,
    /// How many bytes were not read.
    pub bytes: u64,
    /// What the bytes there are.
    pub reason: crate::record::RecordError,
}

impl SkippedTail {
    /// The skipped tail a checked reader of `path` stopped at, if it stopped at one.
    pub fn from_stop(path: &Path, stop: Stop) -> Option<Self> {
        match stop {
            Stop::Invalid {
                position,
                bytes,
                reason,
            } => Some(SkippedTail {
                path: path.to_path_buf(),
                position,
                bytes,
                reason,
            }),
            Stop::Clean | Stop::Trailing { .. } => None,
        }
    }
}

/// A read-only view of a partition for consumers and tools: no lock, no change to any file.
#[derive(Debug)]
pub struct LogReader {
    dir: PathBuf,
    segments: Vec<i64>,
    /// Segments read from their `.swap` files: a cleaning killed after its swap was complete,
    /// which the next writer finishes (see [`reader_view`]).
    swapped: Vec<i64>,
    cache: BTreeMap<i64, LogSegment>,
}

/// The segments a reader sees in `dir`: what the next writer's open will make of it
/// ([`remove_leftovers`]), read without changing a file. A cleaning killed after its `.swap`
/// files were all written is read from them in place of the segments they replace; one killed
/// before (a `.cleaned` file at or below it) is not there. So a reader sees the log before or
/// after a cleaning, never the old segments renamed away and the new one not yet in place.
fn reader_view(dir: &Path) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut plain = Vec::new();
    let mut swaps = Vec::new();
    let mut min_cleaned: Option<i64> = None;
    for entry in fs::read_dir(dir).map_err(LogError::io("listing", dir))? {
        let entry = entry.map_err(LogError::io("listing", dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(base) = segment::parse_base_offset(name) else {
            continue;
        };
        if name.ends_with(".log") {
            plain.push(base);
        } else if name.ends_with(".log.swap") {
            swaps.push(base);
        }
        if name.ends_with(".cleaned") {
            min_cleaned = Some(min_cleaned.map_or(base, |m: i64| m.min(base)));
        }
    }
    swaps.retain(|&b| min_cleaned.is_none_or(|m| b < m));
    plain.sort_unstable();
    if swaps.is_empty() {
        return Ok((plain, swaps));
    }
    let (mut min_swap, mut max_swap) = (i64::MAX, i64::MIN);
    for &base in &swaps {
        min_swap = min_swap.min(base);
        let path = dir.join(segment::file_name(base, ".log.swap"));
        max_swap = max_swap.max(next_offset_of(&path, base)?);
    }
    plain.retain(|&b| b < min_swap || b >= max_swap);
    plain.extend(&swaps);
    plain.sort_unstable();
    swaps.sort_unstable();
    Ok((plain, swaps))
}

impl LogReader {
    /// Opens the partition in `dir` for reading.
    pub fn open(dir: &Path) -> Result<Self> {
        let (segments, swapped) = reader_view(dir)?;
        Ok(LogReader {
            dir: dir.to_path_buf(),
            segments,
            swapped,
            cache: BTreeMap::new(),
        })
    }

    /// Base offsets of the segments, oldest first.
    pub fn segment_base_offsets(&self) -> &[i64] {
        &self.segments
    }

    /// Whether some segments are read from a cleaning's `.swap` files (a cleaning killed after
    /// its swap was complete, which the next writer finishes).
    pub fn reads_swap_files(&self) -> bool {
        !self.swapped.is_empty()
    }

    /// The segment with this base offset, opened on first use. Its readers are checked ones
    /// ([`ReadChecks`](super::ReadChecks)): a consumer's view of the log.
    pub fn segment(&mut self, base: i64) -> Result<&LogSegment> {
        if !self.cache.contains_key(&base) {
            let suffix = if self.swapped.binary_search(&base).is_ok() {
                ".swap"
            } else {
                ""
            };
            let seg = LogSegment::open_read_only_suffixed(&self.dir, base, suffix)?
                .with_read_checks(self.next_segment(base), self.segments.last() == Some(&base))?;
            self.cache.insert(base, seg);
        }
        self.cache
            .get(&base)
            .ok_or_else(|| LogError::SegmentMissing {
                base,
                dir: self.dir.clone(),
            })
    }

    /// First offset in the log (base offset of the oldest segment).
    pub fn log_start_offset(&self) -> i64 {
        self.segments.first().copied().unwrap_or(0)
    }

    /// Offset after the last batch.
    pub fn log_end_offset(&mut self) -> Result<i64> {
        Ok(self.log_end()?.offset)
    }

    /// Offset after the last batch, and what was left unread at the end of the active segment
    /// because it does not frame a batch (a torn or zero-filled tail).
    pub fn log_end(&mut self) -> Result<LogEnd> {
        let Some(&base) = self.segments.last() else {
            return Ok(LogEnd {
                offset: 0,
                skipped: None,
            });
        };
        let (next, stop) = self.segment(base)?.read_end()?;
        Ok(LogEnd {
            offset: next.unwrap_or(base),
            skipped: SkippedTail::from_stop(self.segment(base)?.log_path(), stop),
        })
    }

    /// Where a read of `offset` starts: the segment and the position of the batch holding it,
    /// found with a binary search over segments and over the segment's index — never by
    /// scanning the partition. `None` when `offset` is at or past the end.
    pub fn seek(&mut self, offset: i64) -> Result<Option<(i64, BatchPosition)>> {
        let first = self
            .segments
            .partition_point(|&base| base <= offset)
            .saturating_sub(1);
        for i in first..self.segments.len() {
            let base = self.segments.get(i).copied().unwrap_or_default();
            if let Some(found) = self.segment(base)?.translate_offset(offset)? {
                return Ok(Some((base, found)));
            }
        }
        Ok(None)
    }

    /// A reader over segment `base` from byte `position`.
    pub fn reader(&mut self, base: i64, position: u64) -> Result<SegmentReader> {
        self.segment(base)?.reader_at(position)
    }

    /// The segment after `base`, if any.
    pub fn next_segment(&self, base: i64) -> Option<i64> {
        let i = self.segments.partition_point(|&b| b <= base);
        self.segments.get(i).copied()
    }

    /// The first record whose timestamp is at least `timestamp`, its offset and timestamp
    /// (Kafka's `fetchOffsetByTimestamp` on a local log), through each segment's time index.
    pub fn offset_for_timestamp(&mut self, timestamp: i64) -> Result<Option<TimestampOffset>> {
        for i in 0..self.segments.len() {
            let base = self.segments.get(i).copied().unwrap_or_default();
            let last = i + 1 == self.segments.len();
            let seg = self.segment(base)?;
            // A closed segment's time index ends with its max timestamp; the active one's may
            // lag its data (a running writer, a crash), so it is always read.
            if !last
                && seg.time_index()?.entries() > 0
                && seg.time_index()?.last_entry()?.timestamp < timestamp
            {
                // The segment's largest timestamp is older: skip it without reading the log.
                continue;
            }
            if let Some((_, bytes)) = seg.find_batch_by_timestamp(timestamp)? {
                let batch = first_batch(&bytes).map_err(|source| LogError::Corrupt {
                    path: seg.log_path().to_path_buf(),
                    position: 0,
                    source,
                })?;
                let records = batch.records().map_err(|source| LogError::Corrupt {
                    path: seg.log_path().to_path_buf(),
                    position: 0,
                    source,
                })?;
                if let Some(r) = records.iter().find(|r| r.timestamp >= timestamp) {
                    return Ok(Some(TimestampOffset {
                        timestamp: r.timestamp,
                        offset: r.offset,
                    }));
                }
            }
        }
        Ok(None)
    }

    /// The largest timestamp in the log and the offset of its batch's last record (`-3`, max
    /// timestamp), named as [`Self::offset_for_timestamp`] names its answer.
    pub fn max_timestamp(&mut self) -> Result<Option<TimestampOffset>> {
        let mut best: Option<TimestampOffset> = None;
        for i in 0..self.segments.len() {
            let base = self.segments.get(i).copied().unwrap_or_default();
            let mut reader = self.reader(base, 0)?;
            while let Some((_, batch)) = reader.next_batch()? {
                if best.is_none_or(|b| batch.max_timestamp() > b.timestamp) {
                    best = Some(TimestampOffset {
                        timestamp: batch.max_timestamp(),
                        offset: batch.last_offset(),
                    });
                }
            }
        }
        Ok(best)
    }
}
