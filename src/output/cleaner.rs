//! `kafkit log-cleaner`: what a pass did or would do, as JSON Lines events (`docs/json.md`,
//! "log-cleaner") and as the words both forms share (why a segment goes).

use serde::Serialize;

use crate::datadir::cleaner::PartitionReport;
use crate::log::compaction::Cleanability;
use crate::log::retention::{RetentionConfig, RetentionRule, SegmentDeletion};

/// One JSON Lines object of `kafkit log-cleaner --output json`, in the order and with the
/// fields of its table in `docs/json.md`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CleanerEvent<'a> {
    /// A segment deleted (or, dry, that would be).
    Segment {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The segment's base offset.
        base_offset: i64,
        /// The offset after it.
        next_offset: i64,
        /// Its records.
        records: u64,
        /// Its `.log` size.
        bytes: u64,
        /// Its largest timestamp (or `.log` mtime when it has none).
        largest_timestamp: i64,
        /// The rule: `log-start-offset`, `retention.bytes` or `retention.ms`.
        rule: &'static str,
        /// Why, in words.
        reason: String,
        /// A dry run: nothing was deleted.
        dry_run: bool,
    },
    /// A partition that lost segments: where it starts now.
    Partition {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// Its topic's `cleanup.policy`.
        policy: &'static str,
        /// Segments deleted.
        segments: usize,
        /// Their bytes.
        bytes: u64,
        /// Their records.
        records: u64,
        /// The log start offset after the pass.
        log_start_offset: i64,
        /// Whether the active segment was rolled first (every segment went).
        rolled: bool,
        /// A dry run: nothing was deleted.
        dry_run: bool,
    },
    /// A `.deleted` file removed, its `file.delete.delay.ms` past.
    RemovedFile {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The file's path.
        file: String,
        /// A dry run: nothing was removed.
        dry_run: bool,
    },
    /// A dry run's analysis of a compacted partition: what a cleaning would do now.
    Compaction {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// Where the dirty part starts.
        first_dirty_offset: i64,
        /// Where cleaning must stop (the active segment, or `min.compaction.lag.ms`).
        first_uncleanable_offset: i64,
        /// Bytes of the clean part.
        clean_bytes: u64,
        /// Bytes of the cleanable dirty part.
        dirty_bytes: u64,
        /// dirty / (clean + dirty).
        dirty_ratio: f64,
        /// Whether a cleaning would run now.
        cleanable: bool,
        /// Whether this pass cleaned it (never with `--dry-run`).
        cleaned: bool,
        /// Why (or why not): `dirty-ratio`, `max-compaction-lag`, `not-dirty-enough`.
        why: &'static str,
        /// Where the cleaning would end (the offset map's end).
        end_offset: i64,
        /// Distinct keys of the dirty part the map holds.
        keys: usize,
        /// Records of the segments it would rewrite (a dry run) or rewrote.
        records: u64,
        /// Records a later one of the same key supersedes.
        superseded: u64,
        /// Records without a key.
        without_key: u64,
        /// Tombstones past their delete horizon.
        tombstones_removed: u64,
        /// Tombstones kept, their batches given a delete horizon.
        tombstones_marked: u64,
        /// Records of aborted transactions.
        aborted: u64,
        /// Transaction markers past their delete horizon, their transactions' data gone.
        markers_removed: u64,
    },
    /// The last line.
    Summary {
        /// Partitions looked at.
        partitions: usize,
        /// Segments deleted.
        segments: usize,
        /// Their bytes.
        bytes: u64,
        /// Their records.
        records: u64,
        /// `.deleted` files removed.
        removed_files: usize,
        /// Partitions compacted.
        cleaned: usize,
        /// A dry run: nothing was changed.
        dry_run: bool,
    },
}

/// How a [`Cleanability`] is named in output.
pub fn cleanability_name(c: Cleanability) -> &'static str {
    match c {
        Cleanability::DirtyRatio => "dirty-ratio",
        Cleanability::MaxCompactionLag => "max-compaction-lag",
        Cleanability::NotDirtyEnough => "not-dirty-enough",
    }
}

/// Why a segment goes, in words: the rule and the numbers it compared.
pub fn deletion_reason(
    deletion: &SegmentDeletion,
    config: &RetentionConfig,
    log_start_offset: i64,
    now_ms: i64,
) -> String {
    match deletion.rule {
        RetentionRule::LogStartOffset => format!(
            "the log start offset {log_start_offset} is at or past its end {}",
            deletion.next_offset
        ),
        RetentionRule::RetentionBytes => format!(
            "the log stays at least retention.bytes={} without it",
            config.retention_bytes
        ),
        RetentionRule::RetentionMs => format!(
            "its largest timestamp {} is {} ms old, past retention.ms={}",
            deletion.segment.largest_timestamp,
            now_ms.saturating_sub(deletion.segment.largest_timestamp),
            config.retention_ms
        ),
    }
}

/// The events of one partition's report, in the order they are printed: its segments, its
/// partition line, its removed files, its skipped compaction.
pub fn partition_events<'a>(
    report: &'a PartitionReport,
    config: &RetentionConfig,
    now_ms: i64,
    dry_run: bool,
) -> Vec<CleanerEvent<'a>> {
    let topic: &str = &report.tp.topic;
    let partition = report.tp.partition;
    let plan = &report.retention;
    let mut events: Vec<CleanerEvent<'a>> = plan
        .deletions
        .iter()
        .map(|d| CleanerEvent::Segment {
            topic,
            partition,
            base_offset: d.segment.base_offset,
            next_offset: d.next_offset,
            records: d.records,
            bytes: d.segment.size,
            largest_timestamp: d.segment.largest_timestamp,
            rule: d.rule.name(),
            reason: deletion_reason(d, config, plan.log_start_offset, now_ms),
            dry_run,
        })
        .collect();
    if !plan.is_empty() {
        events.push(CleanerEvent::Partition {
            topic,
            partition,
            policy: report.policy.name(),
            segments: plan.deletions.len(),
            bytes: plan.bytes(),
            records: plan.records(),
            log_start_offset: plan.log_start_offset,
            rolled: plan.roll,
            dry_run,
        });
    }
    for file in &report.removed_files {
        events.push(CleanerEvent::RemovedFile {
            topic,
            partition,
            file: file.display().to_string(),
            dry_run,
        });
    }
    if let Some(c) = &report.compaction {
        events.push(CleanerEvent::Compaction {
            topic,
            partition,
            first_dirty_offset: c.first_dirty_offset,
            first_uncleanable_offset: c.first_uncleanable_offset,
            clean_bytes: c.clean_bytes,
            dirty_bytes: c.dirty_bytes,
            dirty_ratio: c.dirty_ratio,
            cleanable: matches!(
                c.cleanability,
                Cleanability::DirtyRatio | Cleanability::MaxCompactionLag
            ),
            cleaned: report.cleaned,
            why: cleanability_name(c.cleanability),
            end_offset: c.end_offset,
            keys: c.keys,
            records: c.records,
            superseded: c.superseded,
            without_key: c.without_key,
            tombstones_removed: c.tombstones_removed,
            tombstones_marked: c.tombstones_marked,
            aborted: c.aborted,
            markers_removed: c.markers_removed,
        });
    }
    events
}
