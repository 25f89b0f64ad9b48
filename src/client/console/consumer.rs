//! Kafka's `ConsoleConsumer`: the records of a topic's partitions (or of the topics a pattern
//! matches), printed as they come, without the data directory's lock.
//!
//! Each partition is read by its own [`PartitionConsumer`], positioned where the run starts
//! ([`StartOffset`], or `auto.offset.reset` where that is out of range). The loop takes up to
//! 500 records of each partition in turn (Kafka's `max.poll.records`), prints them as
//! [`RecordOutput`] says, and follows the partitions as they grow until `max_messages`
//! records were printed, no record came for `timeout`, every partition is at its end
//! (`exit_at_end`) or a stop is requested. A subscription looks for new partitions (and, by
//! pattern, new topics) every `metadata.max.age.ms`, as Kafka's consumer refreshes its
//! metadata.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Diagnostics;
use crate::client::consumer::{ConsumeError, IsolationLevel, PartitionConsumer};
use crate::client::group::{
    GroupClientError, GroupConfig, GroupMember, PartitionOffset, RebalanceEvent,
};
use crate::client::offsets::{list_offset, offset_range, OffsetSpec};
use crate::datadir::checkpoint::LOG_START_OFFSET_CHECKPOINT;
use crate::datadir::{DataDir, DataDirError, OffsetCheckpoint, TopicFilter, TopicPartition};
use crate::log::LogError;
use crate::output::format::RecordFormat;
use crate::output::json::write_event;
use crate::output::log4j;
use crate::output::message::{ConsumeEvent, FormatError, Formatter, MessageView};
use crate::output::progress::Progress;

/// The logger of Kafka's console consumer, as its log lines name it.
pub const CONSOLE_CONSUMER: &str = "org.apache.kafka.tools.consumer.ConsoleConsumer";

/// How many records of one partition a round takes before the next partition's (Kafka's
/// `max.poll.records` default).
const MAX_POLL_RECORDS: usize = 500;

/// How long a consumer that caught up sleeps before it looks again.
const NAP: Duration = Duration::from_millis(50);

/// Where a partition starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartOffset {
    /// The log start.
    Earliest,
    /// The log end: only records written from now on.
    Latest,
    /// This offset (out of range: `auto.offset.reset` decides).
    At(i64),
    /// The first record whose timestamp is at least this (ms), else the end (Kafka's
    /// `offsetsForTimes`, through the `.timeindex`).
    Time(i64),
}

/// The partitions a console consumer reads.
#[derive(Debug, Clone)]
pub enum Subscription {
    /// `--topic`: every partition of the topic, and those added to it later; with `partition`
    /// (`--partition`) that one alone (Kafka's assign mode).
    Topic {
        /// The topic.
        name: String,
        /// The one partition to read, if one is named.
        partition: Option<i32>,
    },
    /// `--include`: every partition of the topics the pattern matches (internal topics only
    /// with `exclude.internal.topics=false`, as Kafka's `IncludeList`), and of the matching
    /// topics created later.
    Pattern(TopicFilter),
}

/// How each record is printed.
#[derive(Debug, Clone)]
pub enum RecordOutput {
    /// A [`ConsumeEvent::Record`] JSON line (`--output json`).
    Json,
    /// kcat's format string (`--format`).
    Format(RecordFormat),
    /// Kafka's formatter (`--formatter`, `DefaultMessageFormatter` by default).
    Formatter(Formatter),
}

/// What a console consumer reads and when it stops.
#[derive(Debug, Clone)]
pub struct ConsoleConsumerConfig {
    /// The partitions.
    pub subscription: Subscription,
    /// Where the partitions start. A subscription without a named partition and without a
    /// time starts where `reset` says: it has no group, so no committed offsets.
    pub start: StartOffset,
    /// `auto.offset.reset`: where a partition without a valid position starts; `None` is the
    /// policy `none` (an error).
    pub reset: Option<StartOffset>,
    /// `isolation.level`.
    pub isolation: IsolationLevel,
    /// `check.crcs`: a batch whose checksum does not match ends the run.
    pub check_crcs: bool,
    /// `metadata.max.age.ms`: how often a subscription looks for partitions added to its topics
    /// (and, by pattern, for new topics that match).
    pub metadata_max_age: Duration,
    /// `exclude.internal.topics`: a pattern leaves out `__consumer_offsets` and the other
    /// internal topics (Kafka's default), unless this is false.
    pub exclude_internal: bool,
    /// `--max-messages`: stop after this many records (`None`: no limit).
    pub max_messages: Option<u64>,
    /// `--timeout-ms`: stop once no record came for this long (`None`: no limit).
    pub timeout: Option<Duration>,
    /// `--exit-at-end`: stop once every partition is read to its end.
    pub exit_at_end: bool,
    /// `--skip-message-on-error`: a record the formatter cannot print is logged and skipped
    /// instead of ending the run.
    pub skip_message_on_error: bool,
    /// `--group`: the partitions of the subscription are shared with the group's other members
    /// and read from the group's committed offsets.
    pub group: Option<ConsumerGroup>,
}

/// How a console consumer takes part in a group.
#[derive(Debug, Clone)]
pub struct ConsumerGroup {
    /// The member's settings.
    pub member: GroupConfig,
    /// `enable.auto.commit` (true): commit what was printed every `auto_commit_interval` and
    /// before partitions are revoked; false: only at the end of the run.
    pub enable_auto_commit: bool,
    /// `auto.commit.interval.ms` (5 000).
    pub auto_commit_interval: Duration,
}

/// The logger of the group's rebalance lines (Kafka's).
pub const CONSUMER_COORDINATOR: &str =
    "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator";

/// Why a console consumer stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleConsumeError {
    /// `--topic` names no topic of the data directory (or of the cluster).
    #[error("Topic {topic} does not exist in {place}")]
    UnknownTopic {
        /// The topic.
        topic: String,
        /// The data directory's path, or the cluster's bootstrap servers.
        place: String,
    },
    /// `--partition` names no partition of the topic.
    #[error("Partition {partition} of topic {topic} does not exist (the topic has {partitions} partitions)")]
    UnknownPartition {
        /// The topic.
        topic: String,
        /// The partition named.
        partition: i32,
        /// The topic's partition count.
        partitions: usize,
    },
    /// A position outside the partition's log (below its log start or past its end) with
    /// `auto.offset.reset=none`: Kafka's fetcher raises it to the application.
    #[error("org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position {} is out of range for partition {tp}", fetch_position(*.offset, *.node))]
    OffsetOutOfRange {
        /// The partition.
        tp: TopicPartition,
        /// The position asked.
        offset: i64,
        /// The partition's leader: the data directory's node.
        node: i32,
    },
    /// Partitions whose start is out of range with `auto.offset.reset=none`.
    #[error("org.apache.kafka.clients.consumer.NoOffsetForPartitionException: Undefined offset with no reset policy for partitions: [{}]", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    NoOffset(Vec<TopicPartition>),
    /// The data directory failed.
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    /// A partition's log could not be read for where to start.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A partition could not be read on (gone, replaced, unreadable).
    #[error(transparent)]
    Consume(ConsumeError),
    /// What Kafka's consumer throws from `poll()` for a batch or record that is invalid, as the
    /// exception's lines (`org.apache.kafka.common.KafkaException: ...`, and the cause).
    #[error("{}", kafka_exception(.0))]
    Invalid(ConsumeError),
    /// What the formatter's deserializer threw for a record (without
    /// `skip_message_on_error`): the exception's lines.
    #[error("{0}")]
    Deserialize(FormatError),
    /// The group failed.
    #[error(transparent)]
    Group(Box<GroupClientError>),
    /// The cluster failed (`--bootstrap-server`).
    #[cfg(feature = "net")]
    #[error(transparent)]
    Network(#[from] crate::net::NetError),
    /// Writing the output failed (a closed pipe ends a consumer as Kafka's ends).
    #[error(transparent)]
    Output(#[from] io::Error),
}

impl From<GroupClientError> for ConsoleConsumeError {
    fn from(error: GroupClientError) -> Self {
        #[cfg(feature = "net")]
        if let GroupClientError::Network(e) = error {
            return ConsoleConsumeError::Network(e);
        }
        ConsoleConsumeError::Group(Box::new(error))
    }
}

impl ConsoleConsumeError {
    /// Whether this is the output closing under the consumer (`| head`): the end of the run,
    /// not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ConsoleConsumeError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// The exception Kafka's console consumer logs for an invalid batch or record.
fn kafka_exception(e: &ConsumeError) -> String {
    let mut exception = format!("org.apache.kafka.common.KafkaException: {e}");
    if let ConsumeError::Record { source, offset, .. } = e {
        exception.push_str(&format!(
            "\nCaused by: {source} (in the batch at offset {offset})"
        ));
    }
    exception
}

/// Kafka's console consumer over the partitions of a data directory.
#[derive(Debug)]
pub struct ConsoleConsumer {
    origin: Origin,
    config: ConsoleConsumerConfig,
    consumers: Vec<(TopicPartition, PartitionConsumer)>,
    /// The records from each partition's start to its end when opened, or `max_messages` if
    /// fewer.
    expected: u64,
    /// The records printed (or skipped), counted before each is written, as Kafka counts.
    consumed: u64,
    /// The group membership (`--group`).
    member: Option<GroupMember>,
    /// The topics the group member subscribes to (refreshed with the metadata).
    group_topics: Vec<String>,
    last_commit: Instant,
    /// Positions found out of range and reset, to log before the next records.
    resets: Vec<Reset>,
}

/// A position outside its partition's log that `auto.offset.reset` moved (Kafka's fetcher
/// logs both steps at INFO).
#[derive(Debug, Clone)]
struct Reset {
    tp: TopicPartition,
    from: i64,
    to: i64,
}

/// Kafka's `FetchPosition.toString()` of a position on the data directory's node (the leader
/// of every partition, at epoch 0, at Kafka's default listener).
fn fetch_position(offset: i64, node: i32) -> String {
    format!("FetchPosition{{offset={offset}, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{{leader=Optional[localhost:9092 (id: {node} rack: null isFenced: false)], epoch=0}}}}")
}

/// The consumer's log prefix (Kafka's `LogContext`): `[Consumer clientId=C, groupId=G] `, or
/// without a group `[Consumer clientId=console-consumer] ` (Kafka's console consumer makes up
/// a random group id there; kafkit has none).
fn log_prefix(config: &ConsoleConsumerConfig) -> String {
    match &config.group {
        Some(group) => format!(
            "[Consumer clientId={}, groupId={}] ",
            group.member.client_id, group.member.group_id
        ),
        None => "[Consumer clientId=console-consumer] ".to_string(),
    }
}

const FETCH_COLLECTOR: &str = "org.apache.kafka.clients.consumer.internals.FetchCollector";
const SUBSCRIPTION_STATE: &str = "org.apache.kafka.clients.consumer.internals.SubscriptionState";

impl ConsoleConsumer {
    /// Logs the positions reset since the last call, as Kafka's consumer logs them.
    fn log_resets(&mut self, diagnostics: &dyn Diagnostics) {
        let prefix = log_prefix(&self.config);
        // Resets are noted on a data directory only (`open_partitions`), whose node leads.
        let node = match &self.origin {
            Origin::Dir(datadir) => datadir.node_id(),
            Origin::Leaders(_) => return,
            #[cfg(feature = "net")]
            Origin::Cluster(_) => return,
        };
        for reset in std::mem::take(&mut self.resets) {
            diagnostics.print(&log4j::line(
                "INFO",
                &format!(
                    "{prefix}Fetch position {} is out of range for partition {}, resetting offset",
                    fetch_position(reset.from, node),
                    reset.tp
                ),
                FETCH_COLLECTOR,
            ));
            diagnostics.print(&log4j::line(
                "INFO",
                &format!(
                    "{prefix}Resetting offset for partition {} to position {}.",
                    reset.tp,
                    fetch_position(reset.to, node)
                ),
                SUBSCRIPTION_STATE,
            ));
        }
    }

    /// Finds the subscription's partitions in `datadir` and positions a consumer on each.
    pub fn open(
        datadir: DataDir,
        config: ConsoleConsumerConfig,
    ) -> Result<Self, ConsoleConsumeError> {
        Self::open_at(Origin::Dir(datadir), config)
    }

    /// [`Self::open`] on a local cluster (`cluster init`): each partition is read from its
    /// leader's directory up to the leader's high watermark.
    pub fn open_local_cluster(
        cluster: crate::cluster::replication::LocalCluster,
        config: ConsoleConsumerConfig,
    ) -> Result<Self, ConsoleConsumeError> {
        Self::open_at(Origin::Leaders(cluster), config)
    }

    /// Finds the subscription's partitions in a cluster's metadata and positions a consumer
    /// on each (ListOffsets), whose batches come from Fetch requests to the leaders. Kafka's
    /// assign mode, a subscription without a group, and a group's member (the classic
    /// protocol with the broker FindCoordinator names, [`crate::net::group`]).
    #[cfg(feature = "net")]
    pub fn open_cluster(
        cluster: crate::net::Cluster,
        config: ConsoleConsumerConfig,
    ) -> Result<Self, ConsoleConsumeError> {
        let fetches = crate::net::fetch::Fetches::new(cluster, config.isolation, config.check_crcs);
        Self::open_at(Origin::Cluster(fetches), config)
    }

    fn open_at(origin: Origin, config: ConsoleConsumerConfig) -> Result<Self, ConsoleConsumeError> {
        let assigned = matches!(
            config.subscription,
            Subscription::Topic {
                partition: Some(_),
                ..
            }
        );
        let start = match config.start {
            StartOffset::Time(ms) => StartOffset::Time(ms),
            start if assigned => start,
            // Subscribe mode without a group: no committed offsets, the reset policy decides.
            _ => config.reset.unwrap_or(StartOffset::At(-1)),
        };
        let mut backlog = 0;
        let mut resets = Vec::new();
        let partitions = subscribed(&origin, &config)?;
        let mut group_topics: Vec<String> =
            partitions.iter().map(|tp| tp.topic.to_string()).collect();
        group_topics.dedup();
        let (consumers, member) = match &config.group {
            // The group decides which partitions this member reads.
            Some(group) => (Vec::new(), Some(origin.member(group.member.clone())?)),
            None => (
                open_partitions(
                    partitions.into_iter().map(|tp| (tp, start)).collect(),
                    &origin,
                    &config,
                    &mut backlog,
                    &mut resets,
                )?,
                None,
            ),
        };
        // The records to read up to the partitions' ends as they are now (an upper bound:
        // offsets of control records and compacted-away records count), or --max-messages if
        // fewer.
        let expected = match config.max_messages {
            Some(limit) => limit.min(backlog),
            None => backlog,
        };
        Ok(Self {
            origin,
            config,
            consumers,
            expected,
            consumed: 0,
            member,
            group_topics,
            last_commit: Instant::now(),
            resets,
        })
    }

    /// How many records the run will print at most, as far as the partitions' ends when they
    /// were opened say (what a progress bar measures).
    pub fn expected_records(&self) -> u64 {
        self.expected
    }

    /// How many records were printed (or skipped) so far: Kafka's `Processed a total of N
    /// messages`.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Prints records to `out` as `output` says until the run's end: `max_messages`, `timeout`
    /// without a record, every partition at its end with `exit_at_end`, or `stop` (looked at
    /// between rounds). Diagnostics (skipped tails, skipped records, the timeout) go to
    /// `diagnostics` after `out` is flushed, so the two streams stay in order. `progress`
    /// counts records up to [`Self::expected_records`], and finishes when the consumer first
    /// catches up or the run ends.
    pub fn run<W: Write>(
        &mut self,
        output: &RecordOutput,
        out: &mut W,
        mut progress: Option<&mut dyn Progress>,
        stop: &AtomicBool,
        diagnostics: &dyn Diagnostics,
    ) -> Result<(), ConsoleConsumeError> {
        let outcome = self
            .consume(output, out, &mut progress, stop, diagnostics)
            .and_then(|()| Ok(out.flush()?));
        // Kafka's close(): what was printed is committed (when stdout took it), then the
        // member leaves.
        let outcome = match self.member.take() {
            Some(mut member) => {
                let committed = if outcome.is_ok() {
                    let offsets = self.positions();
                    member.commit(&offsets).or_else(|e| match e {
                        GroupClientError::CommitFailed => Ok(()),
                        e => Err(e),
                    })
                } else {
                    Ok(())
                };
                let closed = member.close();
                outcome
                    .and(committed.map_err(Into::into))
                    .and(closed.map_err(Into::into))
            }
            None => outcome,
        };
        if let Some(progress) = progress {
            progress.finish();
        }
        outcome
    }

    /// Prints records, partition after partition (at most [`MAX_POLL_RECORDS`] each per round),
    /// until the run's end.
    fn consume<W: Write>(
        &mut self,
        output: &RecordOutput,
        out: &mut W,
        progress: &mut Option<&mut dyn Progress>,
        stop: &AtomicBool,
        diagnostics: &dyn Diagnostics,
    ) -> Result<(), ConsoleConsumeError> {
        let limit = self.config.max_messages;
        let reached = |total: u64| limit.is_some_and(|max| total >= max);
        let (pattern, assigned) = match &self.config.subscription {
            Subscription::Pattern(_) => (true, false),
            Subscription::Topic { partition, .. } => (false, partition.is_some()),
        };
        let mut last_record = Instant::now();
        let mut last_refresh = Instant::now();
        loop {
            if stop.load(Ordering::Relaxed) || reached(self.consumed) {
                return Ok(());
            }
            if !assigned && last_refresh.elapsed() >= self.config.metadata_max_age {
                if self.member.is_some() {
                    let mut topics: Vec<String> = subscribed(&self.origin, &self.config)?
                        .into_iter()
                        .map(|tp| tp.topic.to_string())
                        .collect();
                    topics.dedup();
                    self.group_topics = topics;
                } else {
                    self.add_new_partitions()?;
                }
                last_refresh = Instant::now();
            }
            if self.member.is_some() {
                self.group_round(out, diagnostics)?;
            }
            if !self.resets.is_empty() {
                out.flush()?;
                self.log_resets(diagnostics);
            }
            let mut got = 0u64;
            let mut gone: Vec<TopicPartition> = Vec::new();
            for (tp, consumer) in self.consumers.iter_mut() {
                for _ in 0..MAX_POLL_RECORDS {
                    if reached(self.consumed) {
                        return Ok(());
                    }
                    let record = match consumer.next_record() {
                        Ok(Some(record)) => record,
                        Ok(None) => break,
                        // A topic the pattern matched leaves the subscription when it is
                        // deleted, as in Kafka's consumer; created again, it is matched at the
                        // next refresh as a new topic, positioned by auto.offset.reset (never
                        // read on from the old topic's position). Each partition leaves when it
                        // finds itself gone, so a partition of the new topic taken in meanwhile
                        // stays. A topic named by --topic stops the run instead.
                        Err(ConsumeError::Deleted { .. } | ConsumeError::Replaced { .. })
                            if pattern =>
                        {
                            gone.push(tp.clone());
                            break;
                        }
                        // Kafka's consumer throws these from poll(), and the console consumer
                        // logs them as it ends.
                        Err(
                            e @ (ConsumeError::Corrupt { .. }
                            | ConsumeError::CorruptRecord { .. }
                            | ConsumeError::Record { .. }),
                        ) => {
                            out.flush()?;
                            return Err(ConsoleConsumeError::Invalid(e));
                        }
                        Err(e) => return Err(ConsoleConsumeError::Consume(e)),
                    };
                    let r = &record.record;
                    let view = MessageView {
                        topic: &tp.topic,
                        partition: tp.partition,
                        offset: r.offset,
                        timestamp: r.timestamp,
                        timestamp_type: r.timestamp_type,
                        key: r.key.as_deref(),
                        value: r.value.as_deref(),
                        headers: &r.headers,
                        // Kafka's console consumer hands the formatter a copy of each record made
                        // without its leader epoch (and without a delivery count), so
                        // `print.epoch=true` always shows `Epoch:NOT_PRESENT`.
                        leader_epoch: None,
                        delivery_count: None,
                    };
                    // Counted before it is written, as Kafka's console consumer counts it.
                    self.consumed += 1;
                    got += 1;
                    match output {
                        RecordOutput::Json => write_event(out, &ConsumeEvent::record(&view))?,
                        RecordOutput::Format(format) => format.write(out, &view)?,
                        RecordOutput::Formatter(formatter) => match formatter.write(out, &view) {
                            Ok(()) => {}
                            Err(FormatError::Io(e)) => return Err(e.into()),
                            Err(exception) if self.config.skip_message_on_error => {
                                // The records before it are shown first, as on Kafka's stdout.
                                out.flush()?;
                                diagnostics.print(&log4j::error_lines(
                                    "Error processing message, skipping this message: ",
                                    CONSOLE_CONSUMER,
                                    &exception.to_string(),
                                ));
                            }
                            Err(exception) => {
                                // What the formatter wrote of the record stays; after the count.
                                out.flush()?;
                                return Err(ConsoleConsumeError::Deserialize(exception));
                            }
                        },
                    }
                }
                // Moved once a round of up to 500 records, not per record.
                if let Some(progress) = progress {
                    progress.set_position(self.consumed);
                }
            }
            if !gone.is_empty() {
                self.consumers.retain(|(tp, _)| !gone.contains(tp));
            }
            for (_, consumer) in self.consumers.iter_mut() {
                if let Some(tail) = consumer.take_skipped() {
                    out.flush()?;
                    diagnostics.print(&log4j::line("WARN", &tail.to_string(), log4j::LOG_READER));
                }
            }
            if got > 0 {
                last_record = Instant::now();
                continue;
            }
            // Caught up: show what was printed, then wait for more or give up. The range the
            // progress measured is read.
            out.flush()?;
            if let Some(progress) = progress.take() {
                progress.finish();
            }
            if self.config.exit_at_end {
                // Every partition is at its end (a round found nothing in any of them).
                return Ok(());
            }
            let waited = last_record.elapsed();
            match self.config.timeout {
                Some(timeout) if waited >= timeout => {
                    diagnostics.print(&log4j::error_lines(
                        "Error processing message, terminating consumer process: ",
                        CONSOLE_CONSUMER,
                        "org.apache.kafka.common.errors.TimeoutException",
                    ));
                    return Ok(());
                }
                Some(timeout) => std::thread::sleep((timeout - waited).min(NAP)),
                None => std::thread::sleep(NAP),
            }
        }
    }

    /// The next offset of every partition read, for a commit.
    /// What the consumer would commit: each partition's position and its leader epoch.
    fn positions(&self) -> Vec<PartitionOffset> {
        self.consumers
            .iter()
            .map(|(tp, c)| {
                PartitionOffset::new(tp.clone(), c.position()).with_leader_epoch(c.position_epoch())
            })
            .collect()
    }

    /// The group's part of a round: rejoin when the group rebalances (revoked partitions are
    /// committed first with auto-commit, then dropped; assigned ones start at the group's
    /// committed offset or where `auto.offset.reset` says), and the auto-commit. Nothing is
    /// committed that was not first flushed to `out` (at-least-once, even under `kill -9`).
    fn group_round<W: Write>(
        &mut self,
        out: &mut W,
        diagnostics: &dyn Diagnostics,
    ) -> Result<(), ConsoleConsumeError> {
        let Some(group) = self.config.group.clone() else {
            return Ok(());
        };
        let prefix = log_prefix(&self.config);
        let due =
            group.enable_auto_commit && self.last_commit.elapsed() >= group.auto_commit_interval;
        if due {
            self.commit(out, diagnostics, &prefix, &self.positions())?;
            self.last_commit = Instant::now();
        }
        let topics = self.group_topics.clone();
        let events = match self.member.as_mut() {
            Some(member) => member.poll(&topics)?,
            None => return Ok(()),
        };
        for event in events {
            match event {
                // Kafka invokes `onPartitionsLost` only with something lost.
                RebalanceEvent::Lost(partitions) if partitions.is_empty() => {}
                RebalanceEvent::Revoked(partitions) => {
                    let names = joined(&partitions);
                    diagnostics.print(&log4j::line(
                        "INFO",
                        &format!("{prefix}Revoke previously assigned partitions {names}"),
                        CONSUMER_COORDINATOR,
                    ));
                    if group.enable_auto_commit {
                        let offsets: Vec<_> = self
                            .positions()
                            .into_iter()
                            .filter(|o| partitions.contains(&o.partition))
                            .collect();
                        self.commit(out, diagnostics, &prefix, &offsets)?;
                    }
                    self.drop_partitions(&partitions);
                }
                RebalanceEvent::Lost(partitions) => {
                    diagnostics.print(&log4j::line(
                        "INFO",
                        &format!(
                            "{prefix}Lost previously assigned partitions {}",
                            joined(&partitions)
                        ),
                        CONSUMER_COORDINATOR,
                    ));
                    self.drop_partitions(&partitions);
                }
                RebalanceEvent::Assigned(partitions) => {
                    diagnostics.print(&log4j::line(
                        "INFO",
                        &format!(
                            "{prefix}Adding newly assigned partitions: {}",
                            joined(&partitions)
                        ),
                        CONSUMER_COORDINATOR,
                    ));
                    self.take_partitions(&partitions)?;
                }
            }
        }
        Ok(())
    }

    fn drop_partitions(&mut self, partitions: &[TopicPartition]) {
        self.consumers.retain(|(tp, _)| !partitions.contains(tp));
    }

    /// Positions newly assigned partitions at the group's committed offsets (the reset policy
    /// where there is none or it is out of range).
    fn take_partitions(
        &mut self,
        partitions: &[TopicPartition],
    ) -> Result<(), ConsoleConsumeError> {
        let Some(member) = self.member.as_mut() else {
            return Ok(());
        };
        let committed = member.committed(partitions)?;
        let mut undefined = Vec::new();
        let mut starts = Vec::new();
        for c in &committed {
            let start = match c.offset {
                offset if offset >= 0 => StartOffset::At(offset),
                _ => match self.config.reset {
                    Some(reset) => reset,
                    None => {
                        undefined.push(c.partition.clone());
                        continue;
                    }
                },
            };
            starts.push((c.partition.clone(), start));
        }
        let opened = open_partitions(starts, &self.origin, &self.config, &mut 0, &mut self.resets)?;
        // Starting at the committed offset, the position has its committed leader epoch
        // (Kafka's `seek` to an OffsetAndMetadata); a reset position has none.
        self.consumers
            .extend(opened.into_iter().map(|(tp, consumer)| {
                match committed.iter().find(|c| c.partition == tp) {
                    Some(c) if c.offset >= 0 && consumer.position() == c.offset => {
                        let epoch = (c.leader_epoch >= 0).then_some(c.leader_epoch);
                        (tp, consumer.with_position_epoch(epoch))
                    }
                    _ => (tp, consumer),
                }
            }));
        if !undefined.is_empty() {
            return Err(ConsoleConsumeError::NoOffset(undefined));
        }
        Ok(())
    }

    /// Flushes what was printed, then commits `offsets` (a commit the rebalance made stale is
    /// logged and skipped: the next owner reads those records again).
    fn commit<W: Write>(
        &mut self,
        out: &mut W,
        diagnostics: &dyn Diagnostics,
        prefix: &str,
        offsets: &[PartitionOffset],
    ) -> Result<(), ConsoleConsumeError> {
        out.flush()?;
        let Some(member) = self.member.as_mut() else {
            return Ok(());
        };
        match member.commit(offsets) {
            Ok(()) => Ok(()),
            Err(GroupClientError::CommitFailed) => {
                diagnostics.print(&log4j::line(
                    "WARN",
                    &format!(
                        "{prefix}Asynchronous auto-commit of offsets failed: {}",
                        GroupClientError::CommitFailed
                    ),
                    CONSUMER_COORDINATOR,
                ));
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A subscription's refresh (Kafka's metadata refresh, every metadata.max.age.ms):
    /// partitions added to its topics since, and by pattern topics created since that match,
    /// join it, positioned by auto.offset.reset as Kafka positions a newly assigned partition
    /// without a committed offset.
    fn add_new_partitions(&mut self) -> Result<(), ConsoleConsumeError> {
        let new: Vec<TopicPartition> = subscribed(&self.origin, &self.config)?
            .into_iter()
            .filter(|tp| !self.consumers.iter().any(|(known, _)| known == tp))
            .collect();
        if !new.is_empty() {
            // Positioned by auto.offset.reset, as Kafka positions a partition assigned later
            // (a time named where the partitions known at the start begin).
            let start = self.config.reset.unwrap_or(StartOffset::At(-1));
            let opened = open_partitions(
                new.into_iter().map(|tp| (tp, start)).collect(),
                &self.origin,
                &self.config,
                &mut 0,
                &mut self.resets,
            )?;
            self.consumers.extend(opened);
        }
        Ok(())
    }
}

/// Partitions as Kafka's logs list them: `t-0, t-1`.
fn joined(partitions: &[TopicPartition]) -> String {
    partitions
        .iter()
        .map(TopicPartition::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a console consumer's partitions are.
#[derive(Debug)]
enum Origin {
    /// A data directory.
    Dir(DataDir),
    /// A local cluster (`cluster init`): each partition's leader, up to its high watermark.
    Leaders(crate::cluster::replication::LocalCluster),
    /// A cluster, through one consumer's fetches.
    #[cfg(feature = "net")]
    Cluster(crate::net::fetch::Fetches),
}

impl Origin {
    /// A member of a group whose coordinator is the data directory's or the cluster's.
    fn member(&self, config: GroupConfig) -> Result<GroupMember, ConsoleConsumeError> {
        Ok(match self {
            Origin::Dir(datadir) => GroupMember::new(datadir, config)?,
            Origin::Leaders(cluster) => {
                return Err(DataDirError::ClusterDir(cluster.root().to_path_buf()).into())
            }
            #[cfg(feature = "net")]
            Origin::Cluster(fetches) => {
                fetches.with_cluster(|cluster| GroupMember::in_cluster(cluster, config))?
            }
        })
    }

    /// Every topic: whether it is internal, and its partitions (a broker's directory may
    /// hold only some of a topic's).
    fn topics(&self) -> Result<Vec<(bool, Vec<TopicPartition>)>, ConsoleConsumeError> {
        Ok(match self {
            Origin::Dir(datadir) => datadir
                .topics()?
                .into_iter()
                .map(|t| (t.is_internal(), t.topic_partitions()))
                .collect(),
            Origin::Leaders(cluster) => cluster
                .topics()
                .into_iter()
                .map(|(name, numbers)| {
                    let internal = crate::datadir::names::is_internal(&name);
                    let name: std::sync::Arc<str> = name.into();
                    let partitions = numbers
                        .into_iter()
                        .map(|p| TopicPartition::new(name.clone(), p))
                        .collect();
                    (internal, partitions)
                })
                .collect(),
            #[cfg(feature = "net")]
            Origin::Cluster(fetches) => fetches
                .with_cluster(|c| c.describe_topics())?
                .into_iter()
                .map(|t| {
                    let internal = crate::datadir::names::is_internal(&t.name);
                    let name: std::sync::Arc<str> = t.name.into();
                    let partitions = t
                        .partitions
                        .iter()
                        .map(|p| TopicPartition::new(name.clone(), p.partition))
                        .collect();
                    (internal, partitions)
                })
                .collect(),
        })
    }

    /// The topic's partition count and partitions, or `None` when there is no such topic.
    fn partitions(
        &self,
        topic: &str,
    ) -> Result<Option<(usize, Vec<TopicPartition>)>, ConsoleConsumeError> {
        match self {
            Origin::Dir(datadir) => Ok(datadir
                .topic(topic)?
                .map(|t| (t.partition_count(), t.topic_partitions()))),
            #[cfg(feature = "net")]
            Origin::Cluster(_) => self.listed_partitions(topic),
            Origin::Leaders(_) => self.listed_partitions(topic),
        }
    }

    /// [`Self::partitions`] from [`Self::topics`].
    fn listed_partitions(
        &self,
        topic: &str,
    ) -> Result<Option<(usize, Vec<TopicPartition>)>, ConsoleConsumeError> {
        Ok(self
            .topics()?
            .into_iter()
            .map(|(_, partitions)| partitions)
            .find(|partitions| partitions.first().is_some_and(|tp| tp.topic() == topic))
            .map(|partitions| (partitions.len(), partitions)))
    }

    /// What "does not exist in" names.
    fn place(&self) -> String {
        match self {
            Origin::Dir(datadir) => datadir.path().display().to_string(),
            Origin::Leaders(cluster) => cluster.root().display().to_string(),
            #[cfg(feature = "net")]
            Origin::Cluster(_) => "the cluster".to_string(),
        }
    }
}

/// The partitions to read: one in assign mode, else every partition of the matching topics.
fn subscribed(
    origin: &Origin,
    config: &ConsoleConsumerConfig,
) -> Result<Vec<TopicPartition>, ConsoleConsumeError> {
    let mut partitions: Vec<TopicPartition> = Vec::new();
    match &config.subscription {
        Subscription::Topic { name, partition } => {
            let (count, all) =
                origin
                    .partitions(name)?
                    .ok_or_else(|| ConsoleConsumeError::UnknownTopic {
                        topic: name.clone(),
                        place: origin.place(),
                    })?;
            match *partition {
                Some(p) if p < 0 || p as usize >= count => {
                    return Err(ConsoleConsumeError::UnknownPartition {
                        topic: name.clone(),
                        partition: p,
                        partitions: count,
                    })
                }
                Some(p) => partitions.push(TopicPartition::new(name.clone(), p)),
                None => partitions.extend(all),
            }
        }
        Subscription::Pattern(filter) => {
            for (internal, all) in origin.topics()? {
                // Kafka's IncludeList: internal topics only with exclude.internal.topics=false.
                let matches = all.first().is_some_and(|tp| filter.matches(tp.topic()));
                if matches && !(config.exclude_internal && internal) {
                    partitions.extend(all);
                }
            }
        }
    }
    Ok(partitions)
}

/// A consumer for each of `partitions`, positioned at its start (the reset policy where that
/// is out of range: below the log start offset or past the end, each such reset noted in
/// `resets`; without a policy, Kafka's `OffsetOutOfRangeException`). `backlog` grows by the
/// records from each consumer's start to its partition's end.
fn open_partitions(
    partitions: Vec<(TopicPartition, StartOffset)>,
    origin: &Origin,
    config: &ConsoleConsumerConfig,
    backlog: &mut u64,
    resets: &mut Vec<Reset>,
) -> Result<Vec<(TopicPartition, PartitionConsumer)>, ConsoleConsumeError> {
    #[cfg_attr(not(feature = "net"), allow(clippy::infallible_destructuring_match))]
    let datadir = match origin {
        Origin::Dir(datadir) => datadir,
        Origin::Leaders(cluster) => {
            return open_leader_partitions(partitions, cluster, config, backlog, resets)
        }
        #[cfg(feature = "net")]
        Origin::Cluster(fetches) => {
            return open_cluster_partitions(partitions, fetches, config, backlog)
        }
    };
    let log_starts =
        OffsetCheckpoint::read(&datadir.root_file(LOG_START_OFFSET_CHECKPOINT)).unwrap_or_default();
    let mut consumers = Vec::new();
    let mut undefined: Vec<TopicPartition> = Vec::new();
    for (tp, start) in partitions {
        let dir = datadir.partition_dir(&tp);
        let checkpointed = log_starts.get(&tp).copied().unwrap_or(0);
        let range = offset_range(&dir, checkpointed)?;
        // An end that cannot be read (a corrupt last batch) is needed only to start there: a
        // read from before it serves the records up to the damage, then reports it.
        let end = range.end.as_ref().ok().copied();
        let at_time =
            |ms| list_offset(&dir, OffsetSpec::Timestamp(ms), checkpointed).map(|l| l.offset);
        let position = start_offset(start, config.reset, range.start, range.end, at_time)?;
        let Some(offset) = position.resolve(&tp, datadir.node_id(), resets)? else {
            undefined.push(tp);
            continue;
        };
        if let Some(end) = end {
            *backlog += u64::try_from(end - offset).unwrap_or(0);
        }
        let consumer = PartitionConsumer::new(dir, offset, config.isolation)
            .with_check_crcs(config.check_crcs);
        consumers.push((tp, consumer));
    }
    if !undefined.is_empty() {
        return Err(ConsoleConsumeError::NoOffset(undefined));
    }
    Ok(consumers)
}

/// [`open_partitions`] in a local cluster: each partition read from its leader's directory,
/// its end the leader's high watermark (Kafka's ListOffsets `latest` for a consumer).
fn open_leader_partitions(
    partitions: Vec<(TopicPartition, StartOffset)>,
    cluster: &crate::cluster::replication::LocalCluster,
    config: &ConsoleConsumerConfig,
    backlog: &mut u64,
    resets: &mut Vec<Reset>,
) -> Result<Vec<(TopicPartition, PartitionConsumer)>, ConsoleConsumeError> {
    let mut consumers = Vec::new();
    let mut undefined: Vec<TopicPartition> = Vec::new();
    let io = |e: crate::cluster::replication::ReplicationError| DataDirError::Io {
        path: cluster.root().to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    };
    for (tp, start) in partitions {
        let (Some(dir), Some(leader)) = (cluster.leader_dir(&tp), cluster.leader(&tp)) else {
            // No leader: nothing to read until one is elected.
            continue;
        };
        let hw = cluster.high_watermark(&tp).map_err(io)?;
        let range = offset_range(&dir, 0)?;
        let end = range.end.as_ref().ok().map(|&e| e.min(hw));
        let at_time = |ms| list_offset(&dir, OffsetSpec::Timestamp(ms), 0).map(|l| l.offset);
        let position = start_offset(
            start,
            config.reset,
            range.start,
            Ok::<i64, LogError>(hw),
            at_time,
        )?;
        let Some(offset) = position.resolve(&tp, leader, resets)? else {
            undefined.push(tp);
            continue;
        };
        if let Some(end) = end {
            *backlog += u64::try_from(end - offset).unwrap_or(0);
        }
        let Some(source) = cluster.source(&tp, offset) else {
            continue;
        };
        let consumer = PartitionConsumer::from_source(
            tp.to_string(),
            Box::new(source),
            offset,
            config.isolation,
        );
        consumers.push((tp, consumer));
    }
    if !undefined.is_empty() {
        return Err(ConsoleConsumeError::NoOffset(undefined));
    }
    Ok(consumers)
}

/// Where a partition starts (Kafka's `seek`, `offsetsForTimes` and reset rules, for a
/// directory and a cluster).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// At this offset.
    At(i64),
    /// A position outside the log (below its start or past its end: the fetcher's
    /// OFFSET_OUT_OF_RANGE), moved by `auto.offset.reset`.
    Reset { from: i64, to: i64 },
    /// A position outside the log with `auto.offset.reset=none`.
    OutOfRange(i64),
    /// No position, and `auto.offset.reset=none`.
    Undefined,
}

impl Start {
    /// The offset to start at, a reset noted in `resets`; `None`: undefined (Kafka's
    /// `NoOffsetForPartitionException`, raised for all such partitions at once).
    fn resolve(
        self,
        tp: &TopicPartition,
        node: i32,
        resets: &mut Vec<Reset>,
    ) -> Result<Option<i64>, ConsoleConsumeError> {
        match self {
            Start::At(offset) => Ok(Some(offset)),
            Start::Reset { from, to } => {
                resets.push(Reset {
                    tp: tp.clone(),
                    from,
                    to,
                });
                Ok(Some(to))
            }
            Start::OutOfRange(offset) => Err(ConsoleConsumeError::OffsetOutOfRange {
                tp: tp.clone(),
                offset,
                node,
            }),
            Start::Undefined => Ok(None),
        }
    }
}

/// Where a partition starts, from its first offset, its end, and (for a time) the first
/// offset whose timestamp is at least it.
fn start_offset<E: Into<ConsoleConsumeError>>(
    start: StartOffset,
    reset: Option<StartOffset>,
    earliest: i64,
    end: Result<i64, E>,
    at_time: impl FnOnce(i64) -> Result<Option<i64>, E>,
) -> Result<Start, ConsoleConsumeError> {
    let in_range = |n: i64| n >= earliest && end.as_ref().map_or(true, |&end| n <= end);
    Ok(match (start, reset) {
        (StartOffset::Earliest, _) => Start::At(earliest),
        // Kafka's offsetsForTimes: the first offset whose timestamp is at least the time;
        // none (every record is older), the end, as kcat then starts.
        (StartOffset::Time(ms), _) => Start::At(match at_time(ms).map_err(Into::into)? {
            Some(offset) => offset.max(earliest),
            None => end.map_err(Into::into)?,
        }),
        (StartOffset::At(n), _) if in_range(n) => Start::At(n),
        (StartOffset::At(n), reset) if n >= 0 => match reset {
            Some(StartOffset::Earliest) => Start::Reset {
                from: n,
                to: earliest,
            },
            Some(_) => Start::Reset {
                from: n,
                to: end.map_err(Into::into)?,
            },
            None => Start::OutOfRange(n),
        },
        (StartOffset::At(_), Some(StartOffset::Earliest)) => Start::At(earliest),
        // Latest, or no position with auto.offset.reset latest.
        (StartOffset::Latest, _) | (StartOffset::At(_), Some(_)) => {
            Start::At(end.map_err(Into::into)?)
        }
        (StartOffset::At(_), None) => Start::Undefined,
    })
}

/// [`open_partitions`] of a cluster: the partitions' first offsets and ends (and offsets for
/// a time) from ListOffsets, their batches from the consumer's fetches.
#[cfg(feature = "net")]
fn open_cluster_partitions(
    partitions: Vec<(TopicPartition, StartOffset)>,
    fetches: &crate::net::fetch::Fetches,
    config: &ConsoleConsumerConfig,
    backlog: &mut u64,
) -> Result<Vec<(TopicPartition, PartitionConsumer)>, ConsoleConsumeError> {
    use crate::net::NetError;
    use std::collections::BTreeMap;
    let all: Vec<TopicPartition> = partitions.iter().map(|(tp, _)| tp.clone()).collect();
    // The partitions to look up by time, by time (one ListOffsets each).
    let mut by_time: BTreeMap<i64, Vec<TopicPartition>> = BTreeMap::new();
    for (tp, start) in &partitions {
        if let StartOffset::Time(ms) = start {
            by_time.entry(*ms).or_default().push(tp.clone());
        }
    }
    let (earliest, latest, times) = fetches.with_cluster(|c| {
        let earliest = c.list_offsets(&all, -2)?;
        let latest = c.list_offsets(&all, -1)?;
        let mut times = BTreeMap::new();
        for (ms, tps) in &by_time {
            times.insert(*ms, c.list_offsets(tps, *ms)?);
        }
        Ok::<_, NetError>((earliest, latest, times))
    })?;
    let answer = |answers: &std::collections::BTreeMap<
        TopicPartition,
        crate::net::offsets::ListedOffset,
    >,
                  tp: &TopicPartition|
     -> Result<Option<i64>, NetError> {
        match answers.get(tp) {
            Some(Ok(offset)) => Ok(*offset),
            Some(Err(e)) => Err(e.clone().into()),
            None => Ok(None),
        }
    };
    let mut consumers = Vec::new();
    let mut undefined: Vec<TopicPartition> = Vec::new();
    for (tp, start) in partitions {
        let first = answer(&earliest, &tp)?.unwrap_or(0);
        let end = answer(&latest, &tp).map(|o| o.unwrap_or(first));
        let known_end = end.as_ref().ok().copied();
        let at_time = |ms| match times.get(&ms) {
            Some(times) => answer(times, &tp),
            None => Ok(None),
        };
        // A position out of range starts where auto.offset.reset says, unlogged (Kafka's line
        // names the leader, unknown here), and without a policy fails as an undefined one.
        let offset = match start_offset(start, config.reset, first, end, at_time)? {
            Start::At(offset) | Start::Reset { to: offset, .. } => offset,
            Start::OutOfRange(_) | Start::Undefined => {
                undefined.push(tp);
                continue;
            }
        };
        if let Some(end) = known_end {
            *backlog += u64::try_from(end - offset).unwrap_or(0);
        }
        let source = fetches.partition(tp.clone(), offset);
        let consumer =
            PartitionConsumer::from_source(tp.to_string(), source, offset, config.isolation);
        consumers.push((tp, consumer));
    }
    if !undefined.is_empty() {
        return Err(ConsoleConsumeError::NoOffset(undefined));
    }
    Ok(consumers)
}
