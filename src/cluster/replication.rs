//! Replication in a local cluster (`cluster init`): producers write to each partition's leader,
//! followers copy the leader's batches byte for byte as Kafka's replica fetchers do, and the
//! high watermark, `leader-epoch-checkpoint` and `replication-offset-checkpoint` are kept as a
//! broker keeps them.
//!
//! When followers fetch is a decision of this module, so that what replication does is
//! deterministic and visible ([`replicate`]): a produce with `acks=all` runs the fetchers of
//! the topic's in-sync followers before the command ends (the records are on every ISR replica
//! and under the high watermark when it succeeds); with `acks` 0 or 1 the followers stay behind
//! until a replication step runs them (`kafkit cluster replicate`, or `start-broker`), and the
//! high watermark, the end of what consumers see, stays where the slowest ISR member is.
//!
//! A fetch (Kafka's `AbstractFetcherThread`): the follower first asks the leader for the end
//! offset of its own latest leader epoch (OffsetsForLeaderEpoch, answered from the leader's
//! `leader-epoch-checkpoint` as `LeaderEpochFileCache.endOffsetFor` does) and truncates what
//! lies past it; then it appends the leader's batches from its log end offset on, as they
//! are ([`Log::append_as_follower`]), recording each new epoch it meets in its own
//! checkpoint. A follower outside the ISR that reaches the high watermark rejoins it (the
//! leader's AlterPartition, which the controller writes as a `PartitionChangeRecord`). The
//! leader's high watermark is then the lowest log end offset of the ISR (never moving back);
//! a follower's is the leader's, bounded by its own log end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::image::{MetadataImage, Partition, METADATA_PARTITION};
use super::init::{append_records, InitError};
use super::records::{MetadataRecord, PartitionChange, NO_LEADER};
use super::whatif::min_isr;
use super::ImageError;
use crate::client::consumer::{BatchSource, ConsumeError, Fetcher};
use crate::common::TopicPartition;
use crate::datadir::checkpoint::{LEADER_EPOCH_CHECKPOINT, REPLICATION_OFFSET_CHECKPOINT};
use crate::datadir::{
    now_ms, DataDir, DataDirError, EpochEntry, LeaderEpochCheckpoint, OffsetCheckpoint,
    PartitionInfo, PartitionWriter, Topic, TopicConfigs, TopicSource,
};
use crate::log::{Log, LogError, LogReader};

/// What the console producer prints for a record a leader refuses because its ISR is smaller
/// than `min.insync.replicas` with `acks=all` (`Errors.NOT_ENOUGH_REPLICAS`, code 19; the
/// broker sends no message of its own, so the client shows the code's).
pub const NOT_ENOUGH_REPLICAS: &str = "org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required.";

/// Why replication could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplicationError {
    /// The metadata log could not be read.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The metadata log could not be written.
    #[error(transparent)]
    Write(#[from] InitError),
    /// A broker's directory could not be opened or written.
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    /// A partition's log failed.
    #[error("{tp}: {source}")]
    Log {
        /// The partition.
        tp: TopicPartition,
        /// The cause.
        source: LogError,
    },
    /// The topic does not exist in the cluster.
    #[error("Topic {0} not present in metadata: it does not exist in the cluster")]
    UnknownTopic(String),
}

type Result<T> = std::result::Result<T, ReplicationError>;

/// A broker's log directory in a cluster's directory.
pub fn broker_dir(cluster: &Path, broker: i32) -> PathBuf {
    cluster.join(format!("broker-{broker}"))
}

/// The data-directory view of a cluster's topic: its partitions and replicas, and its config
/// overrides from the metadata log (the log's partitions take them when opened).
pub fn datadir_topic(
    image: &MetadataImage,
    name: &str,
) -> std::result::Result<Option<Topic>, crate::datadir::config::ConfigError> {
    let Some(t) = image.topics.get(name) else {
        return Ok(None);
    };
    let overrides = image.topic_configs.get(name);
    let configs = TopicConfigs::new(
        overrides
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    )?;
    Ok(Some(Topic {
        name: t.name.clone(),
        id: Some(t.id),
        partitions: t
            .partitions
            .iter()
            .map(|(&id, p)| PartitionInfo {
                id,
                replicas: p.replicas.clone(),
            })
            .collect(),
        configs,
        source: TopicSource::Metadata,
    }))
}

fn topic_of(image: &MetadataImage, name: &str) -> Result<Topic> {
    datadir_topic(image, name)
        .map_err(DataDirError::from)?
        .ok_or_else(|| ReplicationError::UnknownTopic(name.to_string()))
}

/// Kafka's `LeaderEpochFileCache.endOffsetFor`: the largest epoch at or below `requested` the
/// cache knows and the offset its records end at (the start of the next epoch, or the log end
/// offset for the latest one); `(-1, -1)` when the cache has no epoch at or above it.
pub fn end_offset_for_epoch(entries: &[EpochEntry], log_end: i64, requested: i32) -> (i32, i64) {
    let Some(latest) = entries.last() else {
        return (-1, -1);
    };
    if requested == latest.epoch {
        return (requested, log_end);
    }
    let Some(higher) = entries.iter().find(|e| e.epoch > requested) else {
        return (-1, -1);
    };
    match entries.iter().rev().find(|e| e.epoch <= requested) {
        Some(floor) => (floor.epoch, higher.start_offset),
        None => (requested, higher.start_offset),
    }
}

/// Kafka's `LeaderEpochFileCache.assign`: `epoch` starts at `start`; entries it supersedes
/// (a later or equal epoch, or a start at or after it) go. Returns whether anything changed.
pub fn assign_epoch(entries: &mut Vec<EpochEntry>, epoch: i32, start: i64) -> bool {
    if entries
        .last()
        .is_some_and(|e| e.epoch == epoch && e.start_offset <= start)
    {
        return false;
    }
    entries.retain(|e| e.epoch < epoch && e.start_offset < start);
    entries.push(EpochEntry {
        epoch,
        start_offset: start,
    });
    true
}

/// Where a follower must truncate before fetching (KIP-101/279, Kafka's
/// `AbstractFetcherThread`): asks the leader for the end of its own latest epoch, cuts there
/// when the leader has that epoch, else goes back to the leader's floor epoch and asks again.
/// A follower without epochs keeps what it has up to its high watermark.
pub fn truncation_offset(
    follower: &[EpochEntry],
    follower_end: i64,
    follower_hw: i64,
    leader: &[EpochEntry],
    leader_end: i64,
) -> i64 {
    let Some(mut requested) = follower.last().map(|e| e.epoch) else {
        return follower_end.min(follower_hw.max(0)).min(leader_end);
    };
    loop {
        let (leader_epoch, leader_offset) = end_offset_for_epoch(leader, leader_end, requested);
        if leader_offset < 0 {
            return follower_end.min(follower_hw.max(0));
        }
        let (follower_epoch, follower_offset) =
            end_offset_for_epoch(follower, follower_end, leader_epoch);
        if follower_offset < 0 {
            return follower_end.min(leader_offset);
        }
        if follower_epoch == leader_epoch {
            return follower_end.min(leader_offset).min(follower_offset);
        }
        if follower_epoch >= requested {
            return follower_end.min(follower_offset).min(leader_offset);
        }
        requested = follower_epoch;
    }
}

fn epoch_file(dir: &Path) -> PathBuf {
    dir.join(LEADER_EPOCH_CHECKPOINT)
}

/// A partition's `leader-epoch-checkpoint` entries.
pub fn read_epochs(partition_dir: &Path) -> Result<Vec<EpochEntry>> {
    Ok(LeaderEpochCheckpoint::read(&epoch_file(partition_dir)).map_err(DataDirError::from)?)
}

fn write_epochs(partition_dir: &Path, entries: &[EpochEntry]) -> Result<()> {
    LeaderEpochCheckpoint::write(&epoch_file(partition_dir), entries)
        .map_err(DataDirError::from)?;
    Ok(())
}

/// Records that the leader of the partition in `partition_dir` leads from `epoch` on, at its
/// log end offset (Kafka's `makeLeader`), when its checkpoint does not say so yet.
pub fn assign_leader_epoch(partition_dir: &Path, epoch: i32, log_end: i64) -> Result<()> {
    let mut entries = read_epochs(partition_dir)?;
    if entries.last().is_some_and(|e| e.epoch >= epoch) {
        return Ok(());
    }
    if assign_epoch(&mut entries, epoch, log_end) {
        write_epochs(partition_dir, &entries)?;
    }
    Ok(())
}

/// The high watermarks a broker has checkpointed (`replication-offset-checkpoint`).
pub fn high_watermarks(cluster: &Path, broker: i32) -> Result<BTreeMap<TopicPartition, i64>> {
    let path = broker_dir(cluster, broker).join(REPLICATION_OFFSET_CHECKPOINT);
    Ok(OffsetCheckpoint::read(&path).map_err(DataDirError::from)?)
}

/// Where a broker keeps, per partition it follows, the last time its replica was caught up
/// to the leader's log end (Kafka keeps `lastCaughtUpTimeMs` in the leader's memory; a local
/// cluster has no process to hold it, so the follower's directory does, in the format of
/// `replication-offset-checkpoint`).
pub const REPLICA_CAUGHT_UP_CHECKPOINT: &str = "replica-caught-up-checkpoint";

/// Kafka's default `replica.lag.time.max.ms`.
pub const DEFAULT_REPLICA_LAG_TIME_MAX_MS: i64 = 30_000;

/// The topic's `replica.lag.time.max.ms` (its override, else the cluster's, else 30000).
pub fn replica_lag_time_max_ms(image: &MetadataImage, topic: &str) -> i64 {
    image
        .topic_config(topic, "replica.lag.time.max.ms")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_REPLICA_LAG_TIME_MAX_MS)
}

/// The last caught-up times (ms) a broker's follower replicas have recorded.
pub fn caught_up_times(cluster: &Path, broker: i32) -> Result<BTreeMap<TopicPartition, i64>> {
    let path = broker_dir(cluster, broker).join(REPLICA_CAUGHT_UP_CHECKPOINT);
    Ok(OffsetCheckpoint::read(&path).map_err(DataDirError::from)?)
}

/// Every ISR member of `tp` but its leader counts as caught up at `now` (a new leader's
/// `makeLeader` resets its followers' state so).
pub fn reset_caught_up(cluster: &Path, tp: &TopicPartition, isr: &[i32], now: i64) -> Result<()> {
    for &broker in isr {
        let update = BTreeMap::from([(tp.clone(), now)]);
        merge_checkpoint(cluster, broker, REPLICA_CAUGHT_UP_CHECKPOINT, &update)?;
    }
    Ok(())
}

fn write_high_watermarks(
    cluster: &Path,
    broker: i32,
    updates: &BTreeMap<TopicPartition, i64>,
) -> Result<()> {
    merge_checkpoint(cluster, broker, REPLICATION_OFFSET_CHECKPOINT, updates)
}

fn merge_checkpoint(
    cluster: &Path,
    broker: i32,
    file: &str,
    updates: &BTreeMap<TopicPartition, i64>,
) -> Result<()> {
    if updates.is_empty() {
        return Ok(());
    }
    let path = broker_dir(cluster, broker).join(file);
    let mut all = OffsetCheckpoint::read(&path).map_err(DataDirError::from)?;
    all.extend(updates.iter().map(|(tp, &hw)| (tp.clone(), hw)));
    OffsetCheckpoint::write(&path, &all).map_err(DataDirError::from)?;
    Ok(())
}

/// The log end offset of a replica (0 when its directory holds no log yet).
pub fn log_end_offset(cluster: &Path, broker: i32, tp: &TopicPartition) -> Result<i64> {
    let dir = broker_dir(cluster, broker).join(tp.to_string());
    if !dir.is_dir() {
        return Ok(0);
    }
    let mut reader = LogReader::open(&dir).map_err(|source| ReplicationError::Log {
        tp: tp.clone(),
        source,
    })?;
    reader
        .log_end_offset()
        .map_err(|source| ReplicationError::Log {
            tp: tp.clone(),
            source,
        })
}

/// The writers of a cluster's brokers, one [`PartitionWriter`] per broker directory, opened
/// on first use: the same writer, locks and checkpoints as any data directory's.
#[derive(Debug)]
pub struct Brokers {
    cluster: PathBuf,
    writers: BTreeMap<i32, PartitionWriter>,
}

impl Brokers {
    /// No writer open yet.
    pub fn new(cluster: &Path) -> Self {
        Brokers {
            cluster: cluster.to_path_buf(),
            writers: BTreeMap::new(),
        }
    }

    fn writer(&mut self, broker: i32) -> std::result::Result<&mut PartitionWriter, DataDirError> {
        if !self.writers.contains_key(&broker) {
            let datadir = DataDir::open(broker_dir(&self.cluster, broker))?;
            self.writers.insert(broker, PartitionWriter::new(&datadir)?);
        }
        self.writers
            .get_mut(&broker)
            .ok_or_else(|| DataDirError::Missing(broker_dir(&self.cluster, broker)))
    }

    /// `broker`'s log of the partition, under its append lock ([`PartitionWriter::log`]).
    pub fn log(
        &mut self,
        broker: i32,
        topic: &Topic,
        partition: i32,
    ) -> std::result::Result<&mut Log, DataDirError> {
        self.writer(broker)?.log(topic, partition)
    }

    /// Releases every partition lock held.
    pub fn release(&mut self) -> std::result::Result<(), DataDirError> {
        self.writers
            .values_mut()
            .try_for_each(PartitionWriter::release)
    }

    /// Checkpoints every writer's recovery points.
    pub fn checkpoint(&mut self) -> std::result::Result<(), DataDirError> {
        self.writers
            .values_mut()
            .try_for_each(PartitionWriter::checkpoint)
    }

    /// Flushes and closes every writer ([`PartitionWriter::close`]).
    pub fn close(self) -> std::result::Result<(), DataDirError> {
        self.writers
            .into_values()
            .try_for_each(PartitionWriter::close)
    }

    /// Closes every writer without flushing ([`PartitionWriter::close_unflushed`]).
    pub fn close_unflushed(self) -> std::result::Result<(), DataDirError> {
        self.writers
            .into_values()
            .try_for_each(PartitionWriter::close_unflushed)
    }
}

/// Where a producer's batch for a partition goes: its leader, at its epoch, or a refusal.
#[derive(Debug, Clone)]
struct Route {
    leader: i32,
    epoch: i32,
    refusal: Option<String>,
    epoch_recorded: bool,
}

/// A producer's destination in a local cluster: each partition's leader's log, stamped with
/// the partition's leader epoch, through the leader broker's writer; with `acks=all`, a
/// partition whose ISR is smaller than `min.insync.replicas` refuses (NOT_ENOUGH_REPLICAS).
#[derive(Debug)]
pub struct LeaderWriters {
    brokers: Brokers,
    routes: BTreeMap<i32, Route>,
}

impl LeaderWriters {
    /// The leaders of `topic` in the cluster at `cluster`, and the topic as the producer sees
    /// it. `acks_all`: whether the producer asks every in-sync replica.
    pub fn open(cluster: &Path, topic: &str, acks_all: bool) -> Result<(Self, Topic)> {
        let image = MetadataImage::load(&cluster.join(METADATA_PARTITION))?;
        let described = topic_of(&image, topic)?;
        let min = min_isr(&image, topic);
        let mut routes = BTreeMap::new();
        if let Some(t) = image.topics.get(topic) {
            for (&id, p) in &t.partitions {
                let up = image.brokers.get(&p.leader).is_some_and(|b| b.is_active());
                let refusal = if p.leader == NO_LEADER || !up {
                    Some(format!(
                        "org.apache.kafka.common.errors.TimeoutException: Expiring record(s) for {topic}-{id}: the partition has no leader"
                    ))
                } else if acks_all && p.isr.len() < min {
                    Some(NOT_ENOUGH_REPLICAS.to_string())
                } else {
                    None
                };
                routes.insert(
                    id,
                    Route {
                        leader: p.leader,
                        epoch: p.leader_epoch,
                        refusal,
                        epoch_recorded: false,
                    },
                );
            }
        }
        Ok((
            LeaderWriters {
                brokers: Brokers::new(cluster),
                routes,
            },
            described,
        ))
    }

    /// Why the partition's leader refuses records, as the console producer reports it.
    pub fn refusal(&self, partition: i32) -> Option<&str> {
        self.routes.get(&partition)?.refusal.as_deref()
    }

    /// The partition's leader's log, set to stamp the leader epoch; on first use, the epoch's
    /// start is recorded in the leader's `leader-epoch-checkpoint`.
    pub fn log(
        &mut self,
        topic: &Topic,
        partition: i32,
    ) -> std::result::Result<&mut Log, DataDirError> {
        let tp = || TopicPartition::new(topic.name.clone(), partition);
        let route = self
            .routes
            .get_mut(&partition)
            .ok_or_else(|| DataDirError::UnknownPartition(tp().to_string()))?;
        let log = self.brokers.log(route.leader, topic, partition)?;
        log.set_leader_epoch(route.epoch);
        if !route.epoch_recorded {
            let dir = log.dir().to_path_buf();
            assign_leader_epoch(&dir, route.epoch, log.log_end_offset()).map_err(|e| match e {
                ReplicationError::DataDir(e) => e,
                other => DataDirError::Io {
                    path: dir.clone(),
                    source: std::io::Error::other(other.to_string()),
                },
            })?;
            route.epoch_recorded = true;
        }
        Ok(log)
    }

    /// See [`Brokers::release`].
    pub fn release(&mut self) -> std::result::Result<(), DataDirError> {
        self.brokers.release()
    }

    /// See [`Brokers::checkpoint`].
    pub fn checkpoint(&mut self) -> std::result::Result<(), DataDirError> {
        self.brokers.checkpoint()
    }

    /// See [`Brokers::close`].
    pub fn close(self) -> std::result::Result<(), DataDirError> {
        self.brokers.close()
    }

    /// See [`Brokers::close_unflushed`].
    pub fn close_unflushed(self) -> std::result::Result<(), DataDirError> {
        self.brokers.close_unflushed()
    }
}

/// What a replication step did to one follower replica.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FollowerReport {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The follower's broker.
    pub broker: i32,
    /// Where it was truncated to before fetching, if it had records the leader does not.
    pub truncated_to: Option<i64>,
    /// Records removed by that truncation (offsets).
    pub truncated: i64,
    /// Records fetched (offsets copied).
    pub fetched: i64,
    /// Its log end offset after.
    pub log_end_offset: i64,
    /// It joined the ISR.
    pub joined_isr: bool,
    /// It left the ISR: not caught up to the leader's log end for more than the topic's
    /// `replica.lag.time.max.ms` (Kafka's `Partition.maybeShrinkIsr`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub left_isr: bool,
}

/// What a replication step did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReplicationReport {
    /// Each follower replica of an active broker, by topic, partition, broker.
    pub followers: Vec<FollowerReport>,
    /// Each partition's high watermark after, by topic and partition.
    pub high_watermarks: BTreeMap<String, BTreeMap<i32, i64>>,
}

/// One replication step over `topics` (every topic when `None`): for each partition with an
/// active leader, each follower on an active broker truncates as its leader says, fetches
/// up to the leader's log end, rejoins the ISR once caught up; then the high watermarks move.
/// ISR changes are appended to the metadata log as `PartitionChangeRecord`s. Without
/// `fetch`, no follower fetches: the high watermarks move by where the replicas already are
/// (what a produce with `acks` 0 or 1 does).
pub fn replicate(
    cluster: &Path,
    topics: Option<&[String]>,
    fetch: bool,
) -> Result<ReplicationReport> {
    replicate_at(
        cluster,
        topics,
        &Step {
            fetch,
            now: now_ms(),
            stuck: Vec::new(),
        },
    )
}

/// How a replication step runs ([`replicate_at`]).
#[derive(Debug, Clone, Default)]
pub struct Step {
    /// Whether followers fetch; a fetching step also shrinks the ISR of its partitions.
    pub fetch: bool,
    /// The step's clock (ms since the epoch).
    pub now: i64,
    /// Brokers whose fetchers do not run in this step (a stuck fetcher): their replicas stay
    /// where they are and fall behind.
    pub stuck: Vec<i32>,
}

/// [`replicate`] at the clock `step.now`: after fetching, each ISR follower that is not at
/// the leader's log end and was last caught up more than `replica.lag.time.max.ms` before
/// leaves the ISR (Kafka's `getOutOfSyncReplicas`; never the leader), written as a
/// `PartitionChangeRecord`, and the high watermark is recomputed without it.
pub fn replicate_at(
    cluster: &Path,
    topics: Option<&[String]>,
    step: &Step,
) -> Result<ReplicationReport> {
    let _controller = super::controller(cluster).map_err(DataDirError::from)?;
    replicate_held(cluster, topics, step)
}

/// [`replicate_at`] by a caller that holds the controller lock.
pub(crate) fn replicate_held(
    cluster: &Path,
    topics: Option<&[String]>,
    step: &Step,
) -> Result<ReplicationReport> {
    let image = MetadataImage::load(&cluster.join(METADATA_PARTITION))?;
    let Step {
        fetch,
        now,
        ref stuck,
    } = *step;
    let mut brokers = Brokers::new(cluster);
    let mut report = ReplicationReport::default();
    let mut changes = Vec::new();
    let mut hws: BTreeMap<i32, BTreeMap<TopicPartition, i64>> = BTreeMap::new();
    let mut caught_up: BTreeMap<i32, BTreeMap<TopicPartition, i64>> = BTreeMap::new();
    let active = |b: i32| image.brokers.get(&b).is_some_and(|b| b.is_active());
    for (name, t) in &image.topics {
        if topics.is_some_and(|wanted| !wanted.iter().any(|w| w == name)) {
            continue;
        }
        let topic = topic_of(&image, name)?;
        for (&partition, p) in &t.partitions {
            if p.leader == NO_LEADER || !active(p.leader) {
                continue;
            }
            let tp = TopicPartition::new(name.clone(), partition);
            let run = Run {
                cluster,
                active: &active,
                fetch,
                now,
                stuck,
                max_lag: replica_lag_time_max_ms(&image, name),
            };
            let step = run.partition(&mut brokers, &topic, &tp, p)?;
            let left = |b: i32| step.followers.iter().any(|f| f.broker == b && f.left_isr);
            let mut isr: Vec<i32> = p.isr.iter().copied().filter(|&b| !left(b)).collect();
            for f in &step.followers {
                if f.joined_isr {
                    isr.push(f.broker);
                }
            }
            for (&broker, &time) in &step.caught_up {
                caught_up
                    .entry(broker)
                    .or_default()
                    .insert(tp.clone(), time);
            }
            if isr != p.isr {
                let mut change = PartitionChange::none(t.id, partition);
                change.isr = Some(isr);
                changes.push(MetadataRecord::PartitionChange(change));
            }
            for (&broker, &hw) in &step.high_watermarks {
                hws.entry(broker).or_default().insert(tp.clone(), hw);
            }
            if let Some(&hw) = step.high_watermarks.get(&p.leader) {
                report
                    .high_watermarks
                    .entry(name.clone())
                    .or_default()
                    .insert(partition, hw);
            }
            report.followers.extend(step.followers);
        }
    }
    brokers.close()?;
    for (broker, updates) in &hws {
        write_high_watermarks(cluster, *broker, updates)?;
    }
    for (broker, updates) in &caught_up {
        merge_checkpoint(cluster, *broker, REPLICA_CAUGHT_UP_CHECKPOINT, updates)?;
    }
    if !changes.is_empty() {
        append_records(&cluster.join(METADATA_PARTITION), &changes, now)?;
    }
    Ok(report)
}

struct PartitionStep {
    followers: Vec<FollowerReport>,
    /// Each active replica's high watermark after.
    high_watermarks: BTreeMap<i32, i64>,
    /// The followers' last caught-up times to record (a fetching step only).
    caught_up: BTreeMap<i32, i64>,
}

fn log_err(tp: &TopicPartition) -> impl Fn(LogError) -> ReplicationError + '_ {
    move |source| ReplicationError::Log {
        tp: tp.clone(),
        source,
    }
}

/// The leader's batches from `from` to its log end, as they are on disk.
fn leader_bytes(dir: &Path, tp: &TopicPartition, from: i64) -> Result<Vec<u8>> {
    let mut reader = LogReader::open(dir).map_err(log_err(tp))?;
    let mut out = Vec::new();
    let Some((mut base, found)) = reader.seek(from).map_err(log_err(tp))? else {
        return Ok(out);
    };
    let mut position = found.position;
    loop {
        let mut segment = reader.reader(base, position).map_err(log_err(tp))?;
        while let Some((_, batch)) = segment.next_batch().map_err(log_err(tp))? {
            if batch.last_offset() >= from {
                out.extend_from_slice(batch.as_bytes());
            }
        }
        match reader.next_segment(base) {
            Some(next) => {
                base = next;
                position = 0;
            }
            None => return Ok(out),
        }
    }
}

/// One replication step's settings.
struct Run<'a> {
    cluster: &'a Path,
    /// Which brokers run.
    active: &'a dyn Fn(i32) -> bool,
    /// Whether followers fetch.
    fetch: bool,
    now: i64,
    /// Brokers whose fetchers do not run.
    stuck: &'a [i32],
    /// The topic's `replica.lag.time.max.ms`.
    max_lag: i64,
}

impl Run<'_> {
    fn partition(
        &self,
        brokers: &mut Brokers,
        topic: &Topic,
        tp: &TopicPartition,
        p: &Partition,
    ) -> Result<PartitionStep> {
        let Run {
            cluster,
            active,
            fetch,
            now,
            stuck,
            max_lag,
        } = *self;
        let leader_dir = broker_dir(cluster, p.leader).join(tp.to_string());
        let leader_end = brokers.log(p.leader, topic, tp.partition)?.log_end_offset();
        // Under the leader's partition lock: another process's step or producer may be
        // rewriting the same checkpoint.
        assign_leader_epoch(&leader_dir, p.leader_epoch, leader_end)?;
        brokers.release()?;
        let leader_epochs = read_epochs(&leader_dir)?;
        let old_hw = high_watermarks(cluster, p.leader)?
            .get(tp)
            .copied()
            .unwrap_or(0)
            .min(leader_end);
        let mut followers = Vec::new();
        let mut ends = BTreeMap::from([(p.leader, leader_end)]);
        for &broker in p.replicas.iter().filter(|&&b| b != p.leader && active(b)) {
            let dir = broker_dir(cluster, broker).join(tp.to_string());
            let follower_hw = high_watermarks(cluster, broker)?
                .get(tp)
                .copied()
                .unwrap_or(0);
            let log = brokers.log(broker, topic, tp.partition)?;
            let start_end = log.log_end_offset();
            if !fetch || stuck.contains(&broker) {
                brokers.release()?;
                ends.insert(broker, start_end);
                followers.push(FollowerReport {
                    topic: tp.topic.to_string(),
                    partition: tp.partition,
                    broker,
                    truncated_to: None,
                    truncated: 0,
                    fetched: 0,
                    log_end_offset: start_end,
                    joined_isr: false,
                    left_isr: false,
                });
                continue;
            }
            let mut epochs = read_epochs(&dir)?;
            let cut =
                truncation_offset(&epochs, start_end, follower_hw, &leader_epochs, leader_end);
            let truncated_to = if cut < start_end {
                log.truncate_to(cut, now).map_err(log_err(tp))?;
                epochs.retain(|e| e.start_offset < cut);
                write_epochs(&dir, &epochs)?;
                Some(cut)
            } else {
                None
            };
            let from = log.log_end_offset();
            let bytes = leader_bytes(&leader_dir, tp, from)?;
            let mut changed = false;
            let mut rest = bytes.as_slice();
            while let Ok(Some(batch)) = crate::record::RawBatch::read_at(rest, 0) {
                changed |= assign_epoch_if_newer(
                    &mut epochs,
                    batch.partition_leader_epoch(),
                    batch.base_offset(),
                );
                let (one, next) = rest.split_at(batch.size_in_bytes().min(rest.len()));
                log.append_as_follower(one, now).map_err(log_err(tp))?;
                rest = next;
            }
            if !rest.is_empty() {
                // Not a batch: the append says what is wrong with it.
                log.append_as_follower(rest, now).map_err(log_err(tp))?;
            }
            if changed {
                write_epochs(&dir, &epochs)?;
            }
            let end = log.log_end_offset();
            brokers.release()?;
            // Kafka's `isFollowerInSync` for an ISR expansion: caught up to the high watermark
            // and into the leader's current epoch.
            let epoch_start = leader_epochs.last().map_or(0, |e| e.start_offset);
            let joined = !p.isr.contains(&broker)
                && end >= old_hw
                && end >= epoch_start
                && end == leader_end;
            ends.insert(broker, end);
            followers.push(FollowerReport {
                topic: tp.topic.to_string(),
                partition: tp.partition,
                broker,
                truncated_to,
                truncated: start_end - truncated_to.unwrap_or(start_end),
                fetched: end - from,
                log_end_offset: end,
                joined_isr: joined,
                left_isr: false,
            });
        }
        let mut caught_up = BTreeMap::new();
        if fetch {
            // Kafka's `Replica.isCaughtUp`: at the leader's log end, or caught up there no
            // more than replica.lag.time.max.ms ago. A follower never seen caught up (the
            // partition's first step) counts as caught up now.
            for f in &mut followers {
                let last = if f.log_end_offset == leader_end {
                    now
                } else {
                    caught_up_times(cluster, f.broker)?
                        .get(tp)
                        .copied()
                        .unwrap_or(now)
                };
                caught_up.insert(f.broker, last);
                f.left_isr = p.isr.contains(&f.broker) && now.saturating_sub(last) > max_lag;
            }
        }
        let isr_end = p
            .isr
            .iter()
            .filter(|b| !followers.iter().any(|f| f.broker == **b && f.left_isr))
            .chain(followers.iter().filter(|f| f.joined_isr).map(|f| &f.broker))
            .filter_map(|b| ends.get(b))
            .min()
            .copied()
            .unwrap_or(leader_end);
        let hw = old_hw.max(isr_end).min(leader_end);
        let mut high_watermarks = BTreeMap::from([(p.leader, hw)]);
        for f in &followers {
            high_watermarks.insert(f.broker, hw.min(f.log_end_offset));
        }
        Ok(PartitionStep {
            followers,
            high_watermarks,
            caught_up,
        })
    }
}

/// A local cluster as its consumers see it: each partition read from its leader's directory,
/// up to the leader's high watermark (Kafka's fetches from consumers stop there).
#[derive(Debug, Clone)]
pub struct LocalCluster {
    root: PathBuf,
    image: MetadataImage,
}

impl LocalCluster {
    /// The cluster at `root`, its metadata image replayed.
    pub fn open(root: &Path) -> Result<Self> {
        Ok(LocalCluster {
            root: root.to_path_buf(),
            image: MetadataImage::load(&root.join(METADATA_PARTITION))?,
        })
    }

    /// The cluster's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every topic and its partition numbers.
    pub fn topics(&self) -> Vec<(String, Vec<i32>)> {
        self.image
            .topics
            .iter()
            .map(|(name, t)| (name.clone(), t.partitions.keys().copied().collect()))
            .collect()
    }

    /// The partition's leader, when it has one that runs.
    pub fn leader(&self, tp: &TopicPartition) -> Option<i32> {
        let p = self
            .image
            .topics
            .get(tp.topic())?
            .partitions
            .get(&tp.partition)?;
        self.image
            .brokers
            .get(&p.leader)
            .filter(|b| b.is_active())
            .map(|b| b.id)
    }

    /// The partition's directory on its leader.
    pub fn leader_dir(&self, tp: &TopicPartition) -> Option<PathBuf> {
        self.leader(tp)
            .map(|l| broker_dir(&self.root, l).join(tp.to_string()))
    }

    /// The leader's high watermark of the partition (0 without a leader or a checkpoint).
    pub fn high_watermark(&self, tp: &TopicPartition) -> Result<i64> {
        match self.leader(tp) {
            Some(leader) => Ok(high_watermarks(&self.root, leader)?
                .get(tp)
                .copied()
                .unwrap_or(0)),
            None => Ok(0),
        }
    }

    /// A consumer's source of the partition's batches from `offset`: the leader's log, up to
    /// its high watermark as the leader checkpointed it (looked at again once reached, so a
    /// consumer that waits sees it move).
    pub fn source(&self, tp: &TopicPartition, offset: i64) -> Option<HighWatermarkSource> {
        let leader = self.leader(tp)?;
        Some(HighWatermarkSource {
            fetcher: Fetcher::new(broker_dir(&self.root, leader).join(tp.to_string()), offset),
            checkpoint: broker_dir(&self.root, leader).join(REPLICATION_OFFSET_CHECKPOINT),
            tp: tp.clone(),
            end: 0,
        })
    }
}

/// The batches of a leader's partition below its high watermark ([`LocalCluster::source`]).
/// The high watermark is at a batch boundary (followers copy whole batches), so a batch is
/// handed out whole or not at all.
#[derive(Debug)]
pub struct HighWatermarkSource {
    fetcher: Fetcher,
    checkpoint: PathBuf,
    tp: TopicPartition,
    end: i64,
}

impl BatchSource for HighWatermarkSource {
    fn next_batch(&mut self) -> std::result::Result<Option<Vec<u8>>, ConsumeError> {
        if self.fetcher.position() >= self.end {
            let hws = OffsetCheckpoint::read(&self.checkpoint).map_err(|e| {
                ConsumeError::Log(LogError::io("reading", &self.checkpoint)(
                    std::io::Error::other(e.to_string()),
                ))
            })?;
            self.end = hws.get(&self.tp).copied().unwrap_or(0);
            if self.fetcher.position() >= self.end {
                return Ok(None);
            }
        }
        self.fetcher.next_batch()
    }

    fn take_skipped(&mut self) -> Option<crate::log::SkippedTail> {
        self.fetcher.take_skipped()
    }
}

/// A follower's cache update for a fetched batch (Kafka's `maybeAssignEpochStartOffset`).
fn assign_epoch_if_newer(entries: &mut Vec<EpochEntry>, epoch: i32, start: i64) -> bool {
    if entries.last().is_some_and(|e| e.epoch >= epoch) {
        return false;
    }
    assign_epoch(entries, epoch, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::datadir::checkpoint::EpochEntry as E;

    #[test]
    fn end_offset_for_epoch_as_kafka_answers_it() {
        let cache = [E::new(0, 0), E::new(2, 10), E::new(5, 20)];
        assert_eq!(end_offset_for_epoch(&cache, 30, 5), (5, 30));
        assert_eq!(end_offset_for_epoch(&cache, 30, 2), (2, 20));
        // An epoch the cache skipped: the floor epoch, ending where the next one starts.
        assert_eq!(end_offset_for_epoch(&cache, 30, 3), (2, 20));
        assert_eq!(end_offset_for_epoch(&cache, 30, 6), (-1, -1));
        assert_eq!(end_offset_for_epoch(&[], 30, 0), (-1, -1));
        assert_eq!(end_offset_for_epoch(&[E::new(3, 7)], 30, 1), (1, 7));
    }

    #[test]
    fn a_follower_ahead_in_an_old_epoch_truncates_to_where_the_leader_moved_on() {
        // The old leader wrote 0..8 in epoch 0; the new leader had 0..5 when it took epoch 1.
        let follower = [E::new(0, 0)];
        let leader = [E::new(0, 0), E::new(1, 5)];
        assert_eq!(truncation_offset(&follower, 8, 5, &leader, 9), 5);
        // A follower behind the leader keeps everything.
        assert_eq!(truncation_offset(&follower, 3, 3, &leader, 9), 3);
        // Same epoch: nothing to cut.
        assert_eq!(
            truncation_offset(&[E::new(0, 0), E::new(1, 5)], 7, 5, &leader, 9),
            7
        );
    }

    #[test]
    fn a_follower_whose_latest_epoch_the_leader_never_had_goes_back_an_epoch() {
        // The follower led epoch 2 alone (records 6..10); the leader went from 1 to 3 at 6.
        let follower = [E::new(0, 0), E::new(1, 4), E::new(2, 6)];
        let leader = [E::new(0, 0), E::new(1, 4), E::new(3, 6)];
        assert_eq!(truncation_offset(&follower, 10, 6, &leader, 12), 6);
    }

    #[test]
    fn assign_drops_what_the_new_epoch_supersedes() {
        let mut cache = vec![E::new(0, 0), E::new(1, 5), E::new(2, 9)];
        assert!(assign_epoch(&mut cache, 2, 7));
        assert_eq!(cache, vec![E::new(0, 0), E::new(1, 5), E::new(2, 7)]);
        assert!(!assign_epoch(&mut cache, 2, 8));
    }

    #[cfg(feature = "net")]
    #[test]
    fn not_enough_replicas_is_the_client_exception_of_code_19() {
        let error = crate::net::errors::KafkaError::from_code(19, None).map(|e| e.to_string());
        assert_eq!(error.as_deref(), Some(NOT_ENOUGH_REPLICAS));
    }
}
