//! Retention: Kafka's `UnifiedLog.deleteOldSegments` over explicit time.
//!
//! Three rules, in Kafka's order, each over the segments the previous one left
//! (`kafka-disk-format.md` §13.3): the log start offset (a segment whose next segment starts at
//! or below it), `retention.bytes` (the oldest segments while the log stays at least that big
//! without them) and `retention.ms` (a segment whose largest timestamp, or `.log` mtime when it
//! has none, is older than that). Only the first applies when `cleanup.policy` lacks `delete`.
//! Segments go oldest first and a rule stops at the first one that may not go; a segment goes
//! only below the high watermark (a single replica's is its log end), and a last segment that
//! is empty never goes. When every segment would go, the active one is rolled first, so a log
//! always keeps one.
//!
//! [`plan`] is the decision, a pure function of the segments' sizes and timestamps;
//! [`Log::delete_old_segments`](super::Log::delete_old_segments) takes it on a log its writer
//! holds, and [`plan_read_only`] on a directory without changing it (a dry run, and the check
//! that spares a pass from opening logs with nothing to delete). Deleting renames a segment's
//! files to `.deleted` (its `.log` first, so a crash between two renames leaves index files
//! without a `.log`, which the next open removes as orphans) and, with the segment, the
//! producer snapshot at its base offset; a crash between two segments leaves the oldest ones
//! deleted and the rest whole, a log that starts later. The `.deleted` files are removed after
//! `file.delete.delay.ms` ([`remove_deleted_files`]), or by the next writer that opens the log
//! (as Kafka's `LogLoader` removes them at startup).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::error::{LogError, Result};
use super::segment::{self, LogSegment};

/// The suffix a deleted file gets until it is removed.
pub const DELETED_SUFFIX: &str = ".deleted";

/// The topic settings retention obeys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionConfig {
    /// `cleanup.policy` contains `delete`: the size and time rules apply.
    pub delete: bool,
    /// `retention.ms` (-1: forever).
    pub retention_ms: i64,
    /// `retention.bytes` (-1: no limit).
    pub retention_bytes: i64,
    /// `file.delete.delay.ms`: how long `.deleted` files stay.
    pub file_delete_delay_ms: i64,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        Self {
            delete: true,
            retention_ms: 604_800_000,
            retention_bytes: -1,
            file_delete_delay_ms: 60_000,
        }
    }
}

/// Why a segment goes: Kafka's `SegmentDeletionReason`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RetentionRule {
    /// Every offset of it is below the log start offset.
    LogStartOffset,
    /// The log is larger than `retention.bytes` with it.
    RetentionBytes,
    /// Its largest timestamp is older than `retention.ms`.
    RetentionMs,
}

impl RetentionRule {
    /// How the rule is named in output: the config it applies, or `log-start-offset`.
    pub fn name(self) -> &'static str {
        match self {
            RetentionRule::LogStartOffset => "log-start-offset",
            RetentionRule::RetentionBytes => "retention.bytes",
            RetentionRule::RetentionMs => "retention.ms",
        }
    }
}

/// What retention knows of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Its base offset.
    pub base_offset: i64,
    /// Its `.log` size in bytes.
    pub size: u64,
    /// Its largest record timestamp, or its `.log` mtime when it has none (Kafka's
    /// `LogSegment.largestTimestamp`).
    pub largest_timestamp: i64,
}

/// One segment a plan deletes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentDeletion {
    /// The segment.
    pub segment: SegmentInfo,
    /// The offset after it: the next segment's base offset (or the log end for the last one).
    pub next_offset: i64,
    /// Its records (counted from its batch headers; 0 until counted).
    pub records: u64,
    /// The rule that deletes it.
    pub rule: RetentionRule,
}

/// What a retention pass does to one partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetentionPlan {
    /// The segments that go, oldest first.
    pub deletions: Vec<SegmentDeletion>,
    /// Whether the active segment is rolled first (every segment goes).
    pub roll: bool,
    /// The log start offset after the pass.
    pub log_start_offset: i64,
}

impl RetentionPlan {
    /// Whether the pass changes nothing.
    pub fn is_empty(&self) -> bool {
        self.deletions.is_empty()
    }

    /// Bytes of the segments that go.
    pub fn bytes(&self) -> u64 {
        self.deletions.iter().map(|d| d.segment.size).sum()
    }

    /// Records of the segments that go.
    pub fn records(&self) -> u64 {
        self.deletions.iter().map(|d| d.records).sum()
    }
}

/// Kafka's `deleteOldSegments` as a decision: which of `segments` (oldest first, the last one
/// active) go and why, for a log ending at `log_end_offset` with `high_watermark` and
/// `log_start_offset`, at `now_ms`.
pub fn plan(
    segments: &[SegmentInfo],
    log_end_offset: i64,
    high_watermark: i64,
    log_start_offset: i64,
    config: &RetentionConfig,
    now_ms: i64,
) -> RetentionPlan {
    let mut remaining: Vec<SegmentInfo> = segments.to_vec();
    let mut out = RetentionPlan {
        log_start_offset,
        ..RetentionPlan::default()
    };
    let rules: &[RetentionRule] = if config.delete {
        &[
            RetentionRule::LogStartOffset,
            RetentionRule::RetentionBytes,
            RetentionRule::RetentionMs,
        ]
    } else {
        &[RetentionRule::LogStartOffset]
    };
    for &rule in rules {
        let total: u64 = remaining.iter().map(|s| s.size).sum();
        let mut excess: i64 = match rule {
            RetentionRule::RetentionBytes => {
                let total = i64::try_from(total).unwrap_or(i64::MAX);
                if config.retention_bytes < 0 || total < config.retention_bytes {
                    continue;
                }
                total - config.retention_bytes
            }
            RetentionRule::RetentionMs if config.retention_ms < 0 => continue,
            _ => 0,
        };
        let start = out.log_start_offset;
        let mut deletable = 0;
        for (i, seg) in remaining.iter().enumerate() {
            let next = remaining.get(i + 1);
            let upper = next.map_or(log_end_offset, |n| n.base_offset);
            // Kafka evaluates the high-watermark bound before the rule, and the rule (which
            // for retention.bytes counts the segment off the excess) before the empty-last check.
            let breached = high_watermark >= upper
                && match rule {
                    RetentionRule::LogStartOffset => next.is_some_and(|n| n.base_offset <= start),
                    RetentionRule::RetentionBytes => {
                        let size = i64::try_from(seg.size).unwrap_or(i64::MAX);
                        if excess - size >= 0 {
                            excess -= size;
                            true
                        } else {
                            false
                        }
                    }
                    RetentionRule::RetentionMs => {
                        now_ms.saturating_sub(seg.largest_timestamp) > config.retention_ms
                    }
                };
            let last_and_empty = next.is_none() && seg.size == 0;
            if !breached || last_and_empty {
                break;
            }
            deletable += 1;
        }
        if deletable == 0 {
            continue;
        }
        let mut upto = deletable;
        if deletable == remaining.len() {
            // A log keeps one segment: a new one at the log end is rolled first.
            out.roll = true;
            remaining.push(SegmentInfo {
                base_offset: log_end_offset,
                size: 0,
                largest_timestamp: now_ms,
            });
            if remaining.get(deletable - 1).map(|s| s.base_offset) == Some(log_end_offset) {
                upto -= 1;
            }
        }
        for i in 0..upto {
            if let Some(&segment) = remaining.get(i) {
                let next_offset = remaining
                    .get(i + 1)
                    .map_or(log_end_offset, |n| n.base_offset);
                out.deletions.push(SegmentDeletion {
                    segment,
                    next_offset,
                    records: 0,
                    rule,
                });
            }
        }
        remaining.drain(..upto);
        if let Some(first) = remaining.first() {
            out.log_start_offset = out.log_start_offset.max(first.base_offset);
        }
    }
    out
}

/// A `.log`'s mtime in milliseconds since the epoch (0 when the file system has none).
fn mtime_ms(path: &Path) -> Result<i64> {
    let modified = fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(LogError::io("reading the mtime of", path))?;
    Ok(modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)))
}

/// What retention needs of a segment: its size, and its largest timestamp from its time index
/// (the one it keeps in memory when it is the active segment of a writer) or its mtime.
pub(crate) fn segment_info(segment: &LogSegment) -> Result<SegmentInfo> {
    Ok(SegmentInfo {
        base_offset: segment.base_offset(),
        size: segment.size(),
        largest_timestamp: largest_or_mtime(segment.largest_timestamp()?, segment.log_path())?,
    })
}

/// A segment's age stamp, as Kafka's `LogSegment.largestTimestamp`: its largest record
/// timestamp (`largest`, -1 when none), else its `.log`'s mtime.
fn largest_or_mtime(largest: i64, log: &Path) -> Result<i64> {
    if largest >= 0 {
        Ok(largest)
    } else {
        mtime_ms(log)
    }
}

/// Counts the records of each deletion from its segment's batch headers (nothing is
/// decompressed).
pub(crate) fn count_records(dir: &Path, plan: &mut RetentionPlan) -> Result<()> {
    for deletion in &mut plan.deletions {
        let seg = LogSegment::open_read_only(dir, deletion.segment.base_offset)?;
        let mut reader = seg.reader_at(0)?;
        let mut records = 0u64;
        while let Some((_, batch)) = reader.next_batch()? {
            records += batch
                .records_count()
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(1);
        }
        deletion.records = records;
    }
    Ok(())
}

/// What one listing of a partition directory shows: its segments, its `.deleted` files (with
/// the time they were renamed) and whether an interrupted cleaning left files there.
#[derive(Debug, Clone, Default)]
pub struct PartitionFiles {
    /// Base offsets of the `.log` files, sorted.
    pub segments: Vec<i64>,
    /// `.deleted` files and their status-change time (the rename), in ms.
    pub deleted: Vec<(PathBuf, i64)>,
    /// `.cleaned` or `.swap` files are there.
    pub unfinished_clean: bool,
}

impl PartitionFiles {
    /// Lists `dir` once.
    pub fn list(dir: &Path) -> Result<Self> {
        use std::os::unix::fs::MetadataExt;
        let mut out = PartitionFiles::default();
        for entry in fs::read_dir(dir).map_err(LogError::io("listing", dir))? {
            let entry = entry.map_err(LogError::io("listing", dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(base) = segment::parse_base_offset(name) else {
                continue;
            };
            if name.ends_with(".log") {
                out.segments.push(base);
            } else if name.ends_with(DELETED_SUFFIX) {
                let path = entry.path();
                match fs::symlink_metadata(&path) {
                    Ok(meta) => {
                        let renamed_ms = meta
                            .ctime()
                            .saturating_mul(1000)
                            .saturating_add(meta.ctime_nsec() / 1_000_000);
                        out.deleted.push((path, renamed_ms));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(LogError::io("reading", path)(e)),
                }
            } else if name.ends_with(".cleaned") || name.ends_with(".swap") {
                out.unfinished_clean = true;
            }
        }
        out.segments.sort_unstable();
        out.deleted.sort();
        Ok(out)
    }
}

/// A segment's size and largest timestamp from its `.log`'s metadata and the last entry of its
/// `.timeindex`, without reading the `.log`. For the active segment of a running writer the
/// index may lag or hold preallocated zeros: the timestamp then reads older than it is, never
/// newer, so a plan made from it goes too far at worst, which the writer's own plan corrects.
fn segment_info_light(dir: &Path, base: i64) -> Result<SegmentInfo> {
    let log = dir.join(segment::file_name(base, ".log"));
    let meta = fs::metadata(&log).map_err(LogError::io("reading", &log))?;
    let time_index = dir.join(segment::file_name(base, ".timeindex"));
    let largest = if time_index.exists() {
        super::index::TimeIndex::open_read_only(&time_index, base)?
            .last_entry()?
            .timestamp
    } else {
        -1
    };
    Ok(SegmentInfo {
        base_offset: base,
        size: meta.len(),
        largest_timestamp: largest_or_mtime(largest, &log)?,
    })
}

/// The plan of a pass over the partition in `dir` (listed as `files`) now, read without a
/// lock and without changing a file: the segments as they are on disk; the log end (the high
/// watermark of a single replica) is read from the last segment only when the plan reaches
/// it. Records are counted.
pub fn plan_read_only(
    dir: &Path,
    files: &PartitionFiles,
    log_start_offset: i64,
    config: &RetentionConfig,
    now_ms: i64,
) -> Result<RetentionPlan> {
    let bases = &files.segments;
    let infos = bases
        .iter()
        .map(|&base| segment_info_light(dir, base))
        .collect::<Result<Vec<_>>>()?;
    let first = bases.first().copied().unwrap_or(0);
    let start = log_start_offset.max(first);
    // With the log end unknown, only the last segment's bound and the roll depend on it.
    let mut plan = plan(&infos, i64::MAX, i64::MAX, start, config, now_ms);
    let last = bases.last().copied();
    if plan.roll || plan.deletions.last().map(|d| d.segment.base_offset) == last {
        let log_end_offset = match last {
            Some(base) => LogSegment::open_read_only(dir, base)?
                .read_next_offset()?
                .unwrap_or(base),
            None => 0,
        };
        plan = super::retention::plan(
            &infos,
            log_end_offset,
            log_end_offset,
            start,
            config,
            now_ms,
        );
    }
    count_records(dir, &mut plan)?;
    Ok(plan)
}

/// The files of a segment that go with it: its `.log` first, then its indexes and its
/// producer snapshot.
const SEGMENT_SUFFIXES: [&str; 5] = [".log", ".index", ".timeindex", ".txnindex", ".snapshot"];

/// Renames a deleted segment's files to `.deleted` (Kafka's `changeFileSuffixes`), `.log`
/// first. Files it does not have are skipped.
pub(crate) fn rename_deleted(dir: &Path, base_offset: i64) -> Result<()> {
    for suffix in SEGMENT_SUFFIXES {
        let from = dir.join(segment::file_name(base_offset, suffix));
        let to = dir.join(segment::file_name(
            base_offset,
            &format!("{suffix}{DELETED_SUFFIX}"),
        ));
        match fs::rename(&from, &to) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LogError::io("renaming", from)(e)),
        }
    }
    Ok(())
}

/// Removes the `.deleted` files of a partition renamed at least `delay_ms` before `now_ms`
/// (by their status-change time, which the rename set): Kafka's delayed delete of
/// `file.delete.delay.ms`, run by the pass that finds them due. Returns the files removed (with
/// `remove` false, those that would be, and nothing is removed).
pub fn remove_deleted_files(
    files: &PartitionFiles,
    delay_ms: i64,
    now_ms: i64,
    remove: bool,
) -> Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for (path, renamed_ms) in &files.deleted {
        if now_ms.saturating_sub(*renamed_ms) < delay_ms {
            continue;
        }
        if !remove {
            removed.push(path.clone());
            continue;
        }
        match fs::remove_file(path) {
            Ok(()) => removed.push(path.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LogError::io("removing", path)(e)),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3_600_000;

    fn seg(base_offset: i64, size: u64, largest_timestamp: i64) -> SegmentInfo {
        SegmentInfo {
            base_offset,
            size,
            largest_timestamp,
        }
    }

    fn rules(plan: &RetentionPlan) -> Vec<(i64, RetentionRule)> {
        plan.deletions
            .iter()
            .map(|d| (d.segment.base_offset, d.rule))
            .collect()
    }

    #[test]
    fn time_rule_deletes_oldest_first_and_stops_at_the_first_young_segment() {
        let segments = [
            seg(0, 100, HOUR),
            seg(10, 100, 5 * HOUR),
            seg(20, 100, 2 * HOUR),
            seg(30, 100, 6 * HOUR),
        ];
        let config = RetentionConfig {
            retention_ms: 3 * HOUR,
            ..RetentionConfig::default()
        };
        let plan = plan(&segments, 40, 40, 0, &config, 7 * HOUR);
        // 20 is old enough too, but 10 stops the rule before it.
        assert_eq!(rules(&plan), [(0, RetentionRule::RetentionMs)]);
        assert_eq!(plan.log_start_offset, 10);
        assert!(!plan.roll);
        assert_eq!(plan.deletions.first().unwrap().next_offset, 10);
    }

    #[test]
    fn every_segment_breaching_rolls_the_active_one_first() {
        let segments = [seg(0, 100, HOUR), seg(10, 50, HOUR)];
        let config = RetentionConfig {
            retention_ms: HOUR,
            ..RetentionConfig::default()
        };
        let plan = plan(&segments, 17, 17, 0, &config, 3 * HOUR);
        assert!(plan.roll);
        assert_eq!(rules(&plan).len(), 2);
        assert_eq!(plan.deletions.get(1).unwrap().next_offset, 17);
        assert_eq!(plan.log_start_offset, 17);
        assert_eq!(plan.bytes(), 150);
    }

    #[test]
    fn an_empty_active_segment_never_goes() {
        let segments = [seg(0, 100, HOUR), seg(10, 0, HOUR)];
        let config = RetentionConfig {
            retention_ms: HOUR,
            ..RetentionConfig::default()
        };
        let plan = plan(&segments, 10, 10, 0, &config, 3 * HOUR);
        assert_eq!(rules(&plan), [(0, RetentionRule::RetentionMs)]);
        assert!(!plan.roll);
    }

    #[test]
    fn size_rule_keeps_the_log_at_least_retention_bytes() {
        let segments = [
            seg(0, 100, 0),
            seg(10, 100, 0),
            seg(20, 100, 0),
            seg(30, 30, 0),
        ];
        let config = RetentionConfig {
            retention_ms: -1,
            retention_bytes: 150,
            ..RetentionConfig::default()
        };
        // 330 bytes, 180 too many: one segment of 100 goes, a second would leave 130 < 150.
        let plan = plan(&segments, 33, 33, 0, &config, 0);
        assert_eq!(rules(&plan), [(0, RetentionRule::RetentionBytes)]);
        // Exactly at the limit: nothing more goes.
        let config = RetentionConfig {
            retention_bytes: 330,
            ..config
        };
        assert!(super::plan(&segments, 33, 33, 0, &config, 0).is_empty());
    }

    #[test]
    fn log_start_rule_applies_without_delete_and_before_the_others() {
        let segments = [
            seg(0, 100, HOUR),
            seg(10, 100, HOUR),
            seg(20, 100, 9 * HOUR),
        ];
        let compact = RetentionConfig {
            delete: false,
            retention_ms: HOUR,
            ..RetentionConfig::default()
        };
        let plan = plan(&segments, 30, 30, 15, &compact, 10 * HOUR);
        assert_eq!(rules(&plan), [(0, RetentionRule::LogStartOffset)]);
        assert_eq!(plan.log_start_offset, 15);
        let delete = RetentionConfig {
            delete: true,
            ..compact
        };
        let plan = super::plan(&segments, 30, 30, 15, &delete, 10 * HOUR);
        assert_eq!(
            rules(&plan),
            [
                (0, RetentionRule::LogStartOffset),
                (10, RetentionRule::RetentionMs)
            ]
        );
        assert_eq!(plan.log_start_offset, 20);
    }

    #[test]
    fn nothing_at_or_past_the_high_watermark_goes() {
        let segments = [seg(0, 100, HOUR), seg(10, 100, HOUR), seg(20, 100, HOUR)];
        let config = RetentionConfig {
            retention_ms: HOUR,
            ..RetentionConfig::default()
        };
        let plan = plan(&segments, 30, 15, 0, &config, 3 * HOUR);
        assert_eq!(rules(&plan), [(0, RetentionRule::RetentionMs)]);
    }

    #[test]
    fn infinite_retention_keeps_everything() {
        let segments = [seg(0, 1 << 40, 0), seg(10, 100, 0)];
        let config = RetentionConfig {
            retention_ms: -1,
            retention_bytes: -1,
            ..RetentionConfig::default()
        };
        assert!(plan(&segments, 20, 20, 0, &config, i64::MAX).is_empty());
    }
}
