//! One pass of a broker's log-retention and log-cleaner schedulers over a data directory, at a
//! moment the caller names: what `kafkit log-cleaner` runs.
//!
//! A broker deletes old segments every `log.retention.check.interval.ms` and removes `.deleted`
//! files `file.delete.delay.ms` after it renamed them; kafkit does both when asked. Each pass
//! removes the `.deleted` files whose delay has passed by then (their rename time, the files'
//! status-change time, against the pass's time), then applies retention
//! ([`crate::log::retention`]) to every partition of the topics chosen. A partition is looked
//! at read-only first; only one with segments to delete is opened by the pass's
//! [`PartitionWriter`] (under its partition lock, so a producer appending meanwhile waits for
//! the deletion, and the directory's `.lock`, so a broker's directory is refused), planned again
//! on the log it holds, and changed. Its log start offset and recovery point reach the root
//! checkpoints when the writer closes, and its `leader-epoch-checkpoint` loses the epochs that
//! start below the new log start as Kafka's `LeaderEpochFileCache.truncateFromStart` does.
//!
//! A partition holding what an interrupted cleaning left (`.cleaned`, `.swap`: kafkit's or a
//! broker's) is opened too, and the open finishes or undoes that cleaning as Kafka's
//! `LogLoader` does.
//!
//! A compacted partition (`cleanup.policy` with `compact`) gets retention's log-start-offset
//! rule (all three with `compact,delete`), then Kafka's cleaner when it is cleanable
//! ([`crate::log::compaction`]), under its partition lock; `cleaner-offset-checkpoint` then
//! moves to where the cleaning ended. One whose log holds transactional, control or legacy
//! batches is not cleaned, and its report says so.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::checkpoint::{
    CLEANER_OFFSET_CHECKPOINT, LEADER_EPOCH_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT,
};
use super::config::{ConfigValue, TopicConfigs};
use super::{
    names, DataDir, DataDirError, EpochEntry, LeaderEpochCheckpoint, OffsetCheckpoint,
    PartitionWriter, Result, Topic, TopicFilter, TopicSource,
};
use crate::common::TopicPartition;
use crate::log::compaction::{self, CompactionConfig, CompactionPlan};
use crate::log::retention::{self, RetentionConfig, RetentionPlan};

/// A topic's `cleanup.policy`, as the cleaner reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CleanupPolicy {
    /// It contains `delete`: retention by size and time.
    pub delete: bool,
    /// It contains `compact`.
    pub compact: bool,
}

impl CleanupPolicy {
    /// The policy of a topic's configs.
    pub fn of(configs: &TopicConfigs) -> Self {
        let words = match configs.value("cleanup.policy") {
            Some(ConfigValue::List(words)) => words,
            Some(ConfigValue::String(word)) => vec![word],
            _ => vec!["delete".to_string()],
        };
        CleanupPolicy {
            delete: words.iter().any(|w| w.trim() == "delete"),
            compact: words.iter().any(|w| w.trim() == "compact"),
        }
    }

    /// The policy as Kafka lists it (`delete`, `compact`, `compact,delete`, or empty).
    pub fn name(self) -> &'static str {
        match (self.compact, self.delete) {
            (true, true) => "compact,delete",
            (true, false) => "compact",
            (false, true) => "delete",
            (false, false) => "",
        }
    }
}

/// The retention settings of a topic's configs.
pub fn retention_config(configs: &TopicConfigs) -> RetentionConfig {
    let long = |name: &str, default: i64| {
        configs
            .value(name)
            .and_then(|v| v.as_i64())
            .unwrap_or(default)
    };
    let defaults = RetentionConfig::default();
    RetentionConfig {
        delete: CleanupPolicy::of(configs).delete,
        retention_ms: long("retention.ms", defaults.retention_ms),
        retention_bytes: long("retention.bytes", defaults.retention_bytes),
        file_delete_delay_ms: long("file.delete.delay.ms", defaults.file_delete_delay_ms),
    }
}

/// The compaction settings of a topic's configs, with the broker's dedupe buffer.
pub fn compaction_config(configs: &TopicConfigs, dedupe_buffer_size: usize) -> CompactionConfig {
    let defaults = CompactionConfig::default();
    let long = |name: &str, default: i64| {
        configs
            .value(name)
            .and_then(|v| v.as_i64())
            .unwrap_or(default)
    };
    let ratio = match configs.value("min.cleanable.dirty.ratio") {
        Some(ConfigValue::Double(r)) => r,
        _ => defaults.min_cleanable_dirty_ratio,
    };
    CompactionConfig {
        min_cleanable_dirty_ratio: ratio,
        min_compaction_lag_ms: long("min.compaction.lag.ms", defaults.min_compaction_lag_ms),
        max_compaction_lag_ms: long("max.compaction.lag.ms", defaults.max_compaction_lag_ms),
        delete_retention_ms: long("delete.retention.ms", defaults.delete_retention_ms),
        dedupe_buffer_size,
    }
}

/// A topic's configs as the cleaner applies them: a broker's directory does not say what its
/// controller holds, but Kafka always makes `__consumer_offsets` and `__transaction_state`
/// compacted (`offsets.topic`/`transaction.state.log` configs), so such a topic without an
/// override is compacted here too.
pub fn effective_configs(topic: &Topic) -> TopicConfigs {
    let internal = topic.name == "__consumer_offsets" || topic.name == "__transaction_state";
    if internal
        && topic.source == TopicSource::Broker
        && !topic.configs.overrides().contains_key("cleanup.policy")
    {
        if let Ok(configs) = TopicConfigs::new([("cleanup.policy", "compact")]) {
            return configs;
        }
    }
    topic.configs.clone()
}

/// What a pass does.
#[derive(Debug, Clone)]
pub struct CleanerOptions {
    /// Only the topics this matches (all when `None`).
    pub topic: Option<TopicFilter>,
    /// The pass's time, in milliseconds since the epoch: every rule is judged at it.
    pub now_ms: i64,
    /// Plan only: no file changes, no lock.
    pub dry_run: bool,
    /// The broker's `log.cleaner.dedupe.buffer.size`: the compaction analysis's offset map.
    pub dedupe_buffer_size: usize,
}

/// What the pass did (or, dry, would do) to one partition.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionReport {
    /// The partition.
    pub tp: TopicPartition,
    /// Its topic's `cleanup.policy`.
    pub policy: CleanupPolicy,
    /// The segments deleted and why.
    pub retention: RetentionPlan,
    /// `.deleted` files removed, their delay past.
    pub removed_files: Vec<PathBuf>,
    /// A compacted topic's partition: what a cleaning would do (a dry run) or did.
    pub compaction: Option<CompactionPlan>,
    /// The partition was cleaned.
    pub cleaned: bool,
}

impl PartitionReport {
    /// Whether the pass had nothing to do here.
    pub fn is_empty(&self) -> bool {
        self.retention.is_empty() && self.removed_files.is_empty()
    }
}

/// Every partition's report, in topic and partition order.
#[derive(Debug, Clone, Default)]
pub struct CleanerSummary {
    /// Partitions looked at.
    pub partitions: usize,
    /// Segments deleted.
    pub segments: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Their records.
    pub records: u64,
    /// `.deleted` files removed.
    pub removed_files: usize,
    /// Partitions compacted.
    pub cleaned: usize,
}

/// Kafka's `truncateFromStart`: epochs starting at or below `start` are dropped, the last of
/// them kept from `start` on. `None` when nothing changes.
fn truncate_epochs_from_start(entries: &[EpochEntry], start: i64) -> Option<Vec<EpochEntry>> {
    let below = entries.iter().filter(|e| e.start_offset <= start).count();
    let last_below = entries.get(below.checked_sub(1)?)?;
    if last_below.start_offset == start && below == 1 {
        return None;
    }
    let mut out = vec![EpochEntry {
        epoch: last_below.epoch,
        start_offset: start,
    }];
    out.extend(entries.iter().skip(below).copied());
    Some(out)
}

/// The pass's writer, made under its lock on first use.
fn open_writer(
    datadir: &DataDir,
    lock: &mut Option<super::DirLock>,
    writer: &mut Option<PartitionWriter>,
) -> Result<()> {
    if writer.is_none() {
        if let Some(lock) = lock.take() {
            *writer = Some(PartitionWriter::withlock(datadir, lock)?);
        }
    }
    Ok(())
}

/// One pass over `datadir` at `options.now_ms`: reports each partition to `report` when it is
/// done (in topic and partition order, every partition looked at), tells `progress` how many
/// bytes of `.log` it went through so far (a partition's when it is done, and a compaction's
/// batch by batch: [`pass_log_bytes`] is the whole), and returns the totals.
pub fn run_pass(
    datadir: &DataDir,
    options: &CleanerOptions,
    report: &mut dyn FnMut(&PartitionReport) -> Result<()>,
    progress: &mut dyn FnMut(u64),
) -> Result<CleanerSummary> {
    let topics: Vec<_> = datadir
        .topics()?
        .into_iter()
        .filter(|t| options.topic.as_ref().is_none_or(|f| f.matches(&t.name)))
        .collect();
    // The directory's lock is taken at once (a broker's directory is refused even when there is
    // nothing to do); the writer, which checkpoints every log it opened when it closes, only
    // when a partition needs it.
    let mut lock = if options.dry_run {
        None
    } else {
        Some(datadir.lock()?)
    };
    let mut writer: Option<PartitionWriter> = None;
    let log_starts: BTreeMap<TopicPartition, i64> =
        OffsetCheckpoint::read(&datadir.root_file(LOG_START_OFFSET_CHECKPOINT))?;
    let cleaner_offsets: BTreeMap<TopicPartition, i64> =
        OffsetCheckpoint::read(&datadir.root_file(CLEANER_OFFSET_CHECKPOINT))?;
    let mut summary = CleanerSummary::default();
    let mut cleaned_to: BTreeMap<TopicPartition, i64> = BTreeMap::new();
    let mut done_bytes = 0u64;
    let now = options.now_ms;
    for topic in &topics {
        if topic.name == names::CLUSTER_METADATA_TOPIC {
            // The KRaft metadata log: its raft client trims it by snapshots, not the cleaner.
            continue;
        }
        let configs = effective_configs(topic);
        let policy = CleanupPolicy::of(&configs);
        let config = retention_config(&configs);
        let compaction_config = compaction_config(&configs, options.dedupe_buffer_size);
        for tp in topic.topic_partitions() {
            let dir = datadir.partition_dir(&tp);
            if !dir.is_dir() {
                continue;
            }
            let log_err = |source| DataDirError::Log {
                tp: tp.clone(),
                source,
            };
            let files = retention::PartitionFiles::list(&dir).map_err(log_err)?;
            let files_bytes = log_bytes(&dir, &files);
            let removed_files = retention::remove_deleted_files(
                &files,
                config.file_delete_delay_ms,
                now,
                !options.dry_run,
            )
            .map_err(log_err)?;
            let start = log_starts.get(&tp).copied().unwrap_or(0);
            let mut plan =
                retention::plan_read_only(&dir, &files, start, &config, now).map_err(log_err)?;
            let unfinished = files.unfinished_clean;
            if !options.dry_run && (!plan.is_empty() || unfinished || policy.compact) {
                open_writer(datadir, &mut lock, &mut writer)?;
            }
            if let (Some(writer), true) = (writer.as_mut(), !plan.is_empty() || unfinished) {
                // Opening the log finishes (or undoes) an interrupted cleaning first.
                let log = writer.log(topic, tp.partition)?;
                plan = log.delete_old_segments(&config, now).map_err(log_err)?;
                writer.release()?;
                if !plan.is_empty() {
                    let path = dir.join(LEADER_EPOCH_CHECKPOINT);
                    let epochs = LeaderEpochCheckpoint::read(&path)?;
                    if let Some(kept) = truncate_epochs_from_start(&epochs, plan.log_start_offset) {
                        LeaderEpochCheckpoint::write(&path, &kept)?;
                    }
                }
            }
            let checkpoint = cleaner_offsets.get(&tp).copied();
            let (compaction, cleaned) = match (policy.compact, writer.as_mut()) {
                (false, _) => (None, false),
                (true, None) => {
                    let start = plan.log_start_offset;
                    let c = compaction::plan_read_only(
                        &dir,
                        start,
                        checkpoint,
                        &compaction_config,
                        now,
                    )
                    .map_err(log_err)?;
                    (Some(c), false)
                }
                (true, Some(writer)) => {
                    let log = writer.log(topic, tp.partition)?;
                    let delay = config.file_delete_delay_ms;
                    let mut at = done_bytes;
                    let mut moved = |bytes: u64| {
                        at += bytes;
                        progress(at);
                    };
                    let (c, cleaned) = log
                        .clean(&compaction_config, checkpoint, delay, now, &mut moved)
                        .map_err(log_err)?;
                    writer.release()?;
                    if cleaned {
                        cleaned_to.insert(tp.clone(), c.end_offset);
                    }
                    (Some(c), cleaned)
                }
            };
            let partition = PartitionReport {
                tp: tp.clone(),
                policy,
                retention: plan,
                removed_files,
                compaction,
                cleaned,
            };
            summary.partitions += 1;
            summary.segments += partition.retention.deletions.len();
            summary.bytes += partition.retention.bytes();
            summary.records += partition.retention.records();
            summary.removed_files += partition.removed_files.len();
            summary.cleaned += usize::from(partition.cleaned);
            report(&partition)?;
            done_bytes += files_bytes;
            progress(done_bytes);
        }
    }
    if let Some(writer) = writer {
        writer.close()?;
    }
    if !cleaned_to.is_empty() {
        // Kafka's `doneCleaning`: where the next cleaning's dirty part starts.
        let path = datadir.root_file(CLEANER_OFFSET_CHECKPOINT);
        let lock = datadir.lock()?;
        let _meta = lock.meta(super::DEFAULT_LOCK_WAIT)?;
        let mut on_disk = OffsetCheckpoint::read(&path)?;
        on_disk.extend(cleaned_to);
        OffsetCheckpoint::write(&path, &on_disk)?;
    }
    Ok(summary)
}

/// The bytes of a partition's `.log` files as listed.
fn log_bytes(dir: &std::path::Path, files: &retention::PartitionFiles) -> u64 {
    files
        .segments
        .iter()
        .filter_map(|&base| {
            std::fs::metadata(dir.join(crate::log::segment::file_name(base, ".log"))).ok()
        })
        .map(|m| m.len())
        .sum()
}

/// How many partitions a pass over the topics `topic` matches goes through, and the bytes of
/// their `.log` files (what its progress counts to).
pub fn pass_log_bytes(datadir: &DataDir, topic: Option<&TopicFilter>) -> Result<(u64, u64)> {
    let (mut partitions, mut bytes) = (0, 0);
    for t in datadir.topics()? {
        if topic.is_some_and(|f| !f.matches(&t.name)) || t.name == names::CLUSTER_METADATA_TOPIC {
            continue;
        }
        for tp in t.topic_partitions() {
            let dir = datadir.partition_dir(&tp);
            if let Ok(files) = retention::PartitionFiles::list(&dir) {
                partitions += 1;
                bytes += log_bytes(&dir, &files);
            }
        }
    }
    Ok((partitions, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::datadir::checkpoint::EpochEntry as E;

    #[test]
    fn epochs_below_the_log_start_are_dropped_the_last_one_kept_from_it() {
        let epochs = [E::new(0, 0), E::new(2, 50), E::new(5, 120)];
        assert_eq!(
            truncate_epochs_from_start(&epochs, 60),
            Some(vec![E::new(2, 60), E::new(5, 120)])
        );
        assert_eq!(
            truncate_epochs_from_start(&epochs, 120),
            Some(vec![E::new(5, 120)])
        );
        assert_eq!(truncate_epochs_from_start(&[E::new(0, 0)], 0), None);
        assert_eq!(truncate_epochs_from_start(&[], 10), None);
    }

    #[test]
    fn policies() {
        let of = |v: &str| CleanupPolicy::of(&TopicConfigs::new([("cleanup.policy", v)]).unwrap());
        assert_eq!(of("compact").name(), "compact");
        assert_eq!(of("delete,compact").name(), "compact,delete");
        assert_eq!(CleanupPolicy::of(&TopicConfigs::default()).name(), "delete");
    }
}
