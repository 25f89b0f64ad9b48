//! The producer: per-partition batch accumulators that seal a batch when the next record would
//! not fit `batch.size` (Kafka's `RecordAccumulator`), partition choice through a
//! [`Partitioner`], and a sender thread that appends the sealed batches to the partition logs
//! under each partition's append lock (Kafka's `Sender`), with `acks=all` beside a flushing
//! thread that makes them durable a group at a time (group commit).
//!
//! There is no network and no linger timer thread: a sealed batch goes to the sender at once,
//! or with the next batches sealed within a millisecond, or when the caller is about to wait
//! ([`Producer::hand_off`]). An open batch goes once it has waited `linger.ms`
//! ([`ProducerConfig::linger`]), as in Kafka, but the open batches belong to the caller's
//! thread, so the caller says when: [`Producer::send_lingered`] before it waits (the console
//! producer calls it before each read of its input, and waits for input no longer than
//! [`Producer::linger_deadline`]). Every open batch is written by [`Producer::flush`] (called at
//! the end of the input). What the sender learns of each write can go to a callback run as each
//! write is acknowledged ([`Producer::with_callback`], Kafka's send callbacks, which run on its
//! sender thread too; with `acks=all` on the flushing thread, once the fsync is done).
//!
//! The pieces, along Kafka's seams:
//!
//! * `accumulator.rs` (`RecordAccumulator`, `ProducerBatch`): the open batch of each partition
//!   and the sealed ones waiting to be handed over, on the caller's thread.
//! * `sender.rs` (`Sender`): the thread that owns the partition logs and drains the sealed
//!   batches into them, one partition lock at a time, released before it acknowledges.
//! * `flusher.rs`: with `acks=all`, the thread that fsyncs what the sender wrote a group at a
//!   time and then acknowledges it (group commit).
//!
//! Where callbacks run: on the sender thread with `acks` 0 or 1 and `--sync`, on the flushing
//! thread with `acks=all`; never under a partition lock (the sender releases the partition
//! before it acknowledges, so a callback that blocks on a full stdout holds no other writer).

mod accumulator;
mod flusher;
#[cfg(feature = "net")]
mod remote;
mod sender;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::datadir::{DataDirError, PartitionWriter, Topic, TopicPartition};
use crate::log::LogError;
use crate::record::varint::size_of_varint;
use crate::record::{fields_size, Compression, Header, MAX_RECORD_OVERHEAD, RECORD_BATCH_OVERHEAD};

use self::accumulator::Accumulator;
use self::sender::{Reply, Request, Sender};
use super::partitioner::{Partitioner, RecordRef};

/// The Java producer's `batch.size` default.
pub const DEFAULT_BATCH_SIZE: usize = 16_384;
/// The Java producer's `max.request.size` default.
pub const DEFAULT_MAX_REQUEST_SIZE: usize = 1_048_576;

/// When a write counts as done (`acks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Acks {
    /// `0`: written to the page cache, no wait.
    None,
    /// `1`: written by the leader (the page cache; the topic's flush policy decides fsync).
    Leader,
    /// `all` / `-1` (Kafka's default): a record is acknowledged once an fsync covers it. The
    /// fsyncs run on their own thread while appends go on, each covering every batch written
    /// while the one before ran (group commit).
    #[default]
    All,
}

impl Acks {
    /// Kafka's spellings: `0`, `1`, `all`, `-1`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "0" => Some(Acks::None),
            "1" => Some(Acks::Leader),
            "all" | "-1" => Some(Acks::All),
            _ => None,
        }
    }
}

/// How the producer batches and how durably it writes.
#[derive(Debug, Clone)]
pub struct ProducerConfig {
    /// `batch.size` in bytes: a batch is sealed when the next record would exceed it.
    pub batch_size: usize,
    /// The codec batches are written with.
    pub compression: Compression,
    /// `acks`.
    pub acks: Acks,
    /// `--sync`: every batch is durable before the next is appended, whatever `acks` says.
    pub sync: bool,
    /// `max.request.size`: a record larger than this (as one batch) is refused before batching.
    pub max_request_size: usize,
    /// `linger.ms`: how long an open batch waits for more records before
    /// [`Producer::send_lingered`] sends it (default 0, the Java producer's at the Kafka commit
    /// read; the console producer's `--timeout` defaults to 1000 ms).
    pub linger: Duration,
}

impl Default for ProducerConfig {
    fn default() -> Self {
        Self {
            batch_size: DEFAULT_BATCH_SIZE,
            compression: Compression::None,
            acks: Acks::All,
            sync: false,
            max_request_size: DEFAULT_MAX_REQUEST_SIZE,
            linger: Duration::ZERO,
        }
    }
}

/// Where a record went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordMetadata {
    /// The partition.
    pub partition: i32,
    /// The offset the log assigned.
    pub offset: i64,
    /// The stored timestamp: the create time, or the append time on `LogAppendTime` topics.
    pub timestamp: i64,
}

/// A record the log refused (Kafka reports these through the send callback and goes on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendFailure {
    /// The partition it was meant for (-1 when refused before a partition was chosen).
    pub partition: i32,
    /// Key size, -1 for null.
    pub key_size: i32,
    /// Value size, -1 for null.
    pub value_size: i32,
    /// Kafka's exception, e.g.
    /// `org.apache.kafka.common.errors.RecordTooLargeException: The request included ...`.
    pub error: String,
}

/// What happened to sent records, in the order the producer learnt it: a record refused by
/// [`Producer::send`] itself (`max.request.size`) is reported at once, before the records of
/// batches still on their way to the log, as Kafka's `send` throws before earlier callbacks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A record is written (only reported when [`Producer::report_written`] is on).
    Written(RecordMetadata),
    /// A record was refused.
    Failed(SendFailure),
}

/// What the producer's calls fail with. A refused record ([`ProduceError::InvalidPartition`],
/// [`ProduceError::InvalidTimestamp`]) leaves the producer as it was; the others stop it.
#[derive(Debug, thiserror::Error)]
pub enum ProduceError {
    /// The data directory failed (lock, topic, checkpoint).
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    /// A partition's log failed.
    #[error("{tp}: {source}")]
    Log {
        /// The partition.
        tp: TopicPartition,
        /// What went wrong.
        #[source]
        source: LogError,
    },
    /// A partition number out of range: the first line of what the Java client throws
    /// ([`partition_error`]).
    #[error("{0}")]
    InvalidPartition(String),
    /// A negative timestamp, refused as the Java client's `ProducerRecord` refuses it.
    #[error("java.lang.IllegalArgumentException: Invalid timestamp: {0}. Timestamp should always be non-negative or null.")]
    InvalidTimestamp(i64),
    /// The sender thread failed (its first error) or stopped.
    #[error("{0}")]
    Sender(String),
    /// An fsync of written records failed: they are not acknowledged, and nothing after them.
    #[error("flushing {}: {source}", path.display())]
    Flush {
        /// The segment file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The cluster could not be reached or answered wrongly (`--bootstrap-server`).
    #[cfg(feature = "net")]
    #[error(transparent)]
    Network(#[from] crate::net::NetError),
    /// The codec failed to compress.
    #[error("compressing a batch for {tp}: {source}")]
    Compress {
        /// The partition.
        tp: TopicPartition,
        /// The codec's error.
        #[source]
        source: crate::record::RecordError,
    },
}

/// A callback run with the events of each acknowledged write: the records of a batch once it
/// is written and as durable as `acks` asks (or of the batches written with one write, or
/// covered by one flush), and the records the log refused. It runs on the sender thread, as
/// Kafka runs its send callbacks, or with `acks=all` on the thread whose flush made the
/// records durable.
pub type Callback = Box<dyn FnMut(&[Event]) + Send>;

/// Where a producer's batches go: a data directory's partition logs, through the writer that
/// holds its lock, or a cluster's partition leaders (`--bootstrap-server`).
#[derive(Debug)]
// One destination per producer, moved once into its sender thread: its size costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Destination {
    /// The data directory's logs.
    Log(PartitionWriter),
    /// A local cluster's partition leaders (`cluster init`), each in its broker's directory.
    Leaders(crate::cluster::replication::LeaderWriters),
    /// The cluster's brokers.
    #[cfg(feature = "net")]
    Cluster(crate::net::produce::ClusterSink),
}

impl From<PartitionWriter> for Destination {
    fn from(writer: PartitionWriter) -> Self {
        Destination::Log(writer)
    }
}

impl From<crate::cluster::replication::LeaderWriters> for Destination {
    fn from(writers: crate::cluster::replication::LeaderWriters) -> Self {
        Destination::Leaders(writers)
    }
}

#[cfg(feature = "net")]
impl From<crate::net::produce::ClusterSink> for Destination {
    fn from(sink: crate::net::produce::ClusterSink) -> Self {
        Destination::Cluster(sink)
    }
}

/// The sender thread's first error, as the producer holds it.
#[derive(Debug)]
enum Fatal {
    None,
    /// Not returned to the caller yet.
    Pending(ProduceError),
    /// Returned once; later calls get its message.
    Reported(String),
}

/// A producer for one topic of a data directory.
///
/// As in the Java producer, [`Producer::send`] only adds the record to its partition's open
/// batch on the caller's thread; sealed batches go to a sender thread that appends them to the
/// logs, so building batches and writing them overlap. [`Producer::flush`] waits for every
/// batch to be written, [`Producer::close`] also closes the logs, and written records and
/// refused ones come back as [`Event`]s.
pub struct Producer {
    topic: Topic,
    /// An internal topic (`__consumer_offsets`, ...): a broker refuses clients' records for it.
    internal: bool,
    partitions: i32,
    partitioner: Box<dyn Partitioner>,
    config: ProducerConfig,
    /// The open batches and the sealed ones not handed over yet.
    accumulator: Accumulator,
    /// A batch went to the sender since [`Self::take_events`] last looked at its replies.
    sealed_since_poll: bool,
    events: Vec<Event>,
    sender: Sender,
    /// The sender's fatal error: returned as it is by the first call after it arrives, by its
    /// message after that.
    fatal: Fatal,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer")
            .field("topic", &self.topic.name)
            .field("partitions", &self.partitions)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// What the Java producer throws for a record's partition among `partitions`, as the first
/// line of its stack trace, or `None` when the partition exists. `forced`: the record names it
/// (`ProducerRecord`'s check, then the metadata's); otherwise the partitioner chose it
/// (`KafkaProducer.partition`).
#[cold]
pub fn partition_error(partition: i32, partitions: i32, forced: bool) -> Option<String> {
    if partition < 0 {
        return Some(if forced {
            format!("java.lang.IllegalArgumentException: Invalid partition: {partition}. Partition number should always be non-negative or null.")
        } else {
            format!("java.lang.IllegalArgumentException: The partitioner generated an invalid partition number: {partition}. Partition number should always be non-negative.")
        });
    }
    (partition >= partitions).then(|| {
        kafka_exception(&format!(
            "Invalid partition given with record: {partition} is not in the range [0...{partitions})."
        ))
    })
}

/// The first line of the stack trace the Java tools print for a `KafkaException`.
pub fn kafka_exception(message: &str) -> String {
    format!("org.apache.kafka.common.KafkaException: {message}")
}

impl Producer {
    /// A producer writing `topic` through `writer` (which holds the data directory's lock)
    /// from a sender thread it starts.
    pub fn new(
        writer: impl Into<Destination>,
        topic: Topic,
        partitioner: Box<dyn Partitioner>,
        config: ProducerConfig,
    ) -> Self {
        Self::with_callback(writer, topic, partitioner, config, None)
    }

    /// [`Self::new`], with the events the sender thread learns (written records when
    /// [`Self::report_written`] is on, records the log refused) going to `callback`, run on the
    /// sender thread (with `acks=all` the flushing thread) as each write is acknowledged,
    /// outside any partition lock, instead of to [`Self::take_events`] (which
    /// then has the records [`Self::send`] itself refused). The callback has run for every
    /// write when [`Self::flush`] or [`Self::close`] returns.
    pub fn with_callback(
        writer: impl Into<Destination>,
        topic: Topic,
        partitioner: Box<dyn Partitioner>,
        config: ProducerConfig,
        callback: Option<Callback>,
    ) -> Self {
        let partitions = topic.partition_count() as i32;
        let max_message = topic.log_config().max_message_bytes as usize;
        let (free_sender, free) = mpsc::channel();
        let accumulator = Accumulator::new(
            usize::try_from(partitions).unwrap_or(0),
            &config,
            max_message,
            free,
        );
        let (sender, error) = Sender::start(
            writer.into(),
            &topic,
            &config,
            callback,
            accumulator.compression_estimate(),
            free_sender,
            accumulator.in_flight_groups(),
        );
        Self {
            internal: topic.is_internal(),
            partitions,
            partitioner,
            accumulator,
            sealed_since_poll: false,
            events: Vec::new(),
            sender,
            fatal: error.map_or(Fatal::None, |e| Fatal::Reported(e.to_string())),
            topic,
            config,
        }
    }

    /// Reports every written record as [`Event::Written`] (for `--output json`), from the
    /// next batch on.
    #[must_use]
    pub fn report_written(mut self, on: bool) -> Self {
        self.accumulator.set_report_written(on);
        self
    }

    /// The topic's partition count.
    pub fn partitions(&self) -> i32 {
        self.partitions
    }

    /// Whether [`Self::take_events`] may have something: cheap enough to ask after every
    /// record.
    #[inline]
    pub fn may_have_events(&self) -> bool {
        self.sealed_since_poll || !self.events.is_empty()
    }

    /// Takes the events gathered since the last call, with those the sender thread has
    /// reported by now.
    ///
    /// The sender's replies are looked at only when a batch was sealed since the last call (so
    /// calling this after every record costs nothing); the rest come with [`Self::flush`] and
    /// [`Self::close`].
    #[inline]
    pub fn take_events(&mut self) -> std::vec::Drain<'_, Event> {
        if std::mem::take(&mut self.sealed_since_poll) {
            self.poll_replies();
        }
        self.events.drain(..)
    }

    fn poll_replies(&mut self) {
        while let Some(reply) = self.sender.try_reply() {
            self.take_reply(reply);
        }
    }

    /// Keeps an event or a fatal error; returns what else the sender answered.
    fn take_reply(&mut self, reply: Reply) -> Option<Reply> {
        match reply {
            Reply::Event(event) => self.events.push(event),
            Reply::Fatal(e) => {
                if matches!(self.fatal, Fatal::None) {
                    self.fatal = Fatal::Pending(e);
                }
            }
            other => return Some(other),
        }
        None
    }

    fn check_fatal(&mut self) -> Result<(), ProduceError> {
        match std::mem::replace(&mut self.fatal, Fatal::None) {
            Fatal::None => Ok(()),
            Fatal::Pending(error) => {
                self.fatal = Fatal::Reported(error.to_string());
                Err(error)
            }
            Fatal::Reported(message) => {
                self.fatal = Fatal::Reported(message.clone());
                Err(ProduceError::Sender(message))
            }
        }
    }

    /// When the first of the open batches will have waited `linger.ms`
    /// ([`ProducerConfig::linger`]), `None` when no batch is open (or the wait is past any
    /// clock): a caller about to wait for input waits no longer, then calls
    /// [`Self::send_lingered`].
    pub fn linger_deadline(&self) -> Option<Instant> {
        self.accumulator.linger_deadline()
    }

    /// Hands the sealed batches to the sender thread with every open batch that has waited
    /// `linger.ms` (Kafka's sender sends a batch once it is full or has waited that long), and
    /// returns [`Self::linger_deadline`] of the batches still open. Call it before waiting (for
    /// input): the open batches belong to the caller's thread, there is no timer thread.
    pub fn send_lingered(&mut self) -> Result<Option<Instant>, ProduceError> {
        let now = Instant::now();
        for p in 0..self.accumulator.partitions() {
            let Some(bytes) = self.accumulator.lingered(p, now) else {
                continue;
            };
            self.seal(p)?;
            // Kafka's built-in partitioner moves on after batch.size bytes, full batches or not.
            if self.partitioner.sticky_for_unkeyed() && self.accumulator.count_lingered(p, bytes) {
                self.partitioner
                    .on_new_batch(&self.topic.name, self.partitions, p as i32);
            }
        }
        self.hand_off()?;
        Ok(self.linger_deadline())
    }

    /// Hands the batches sealed so far to the sender thread now, instead of with the next ones
    /// (call it before waiting for more input: [`crate::client::Lines::advance_with`]).
    pub fn hand_off(&mut self) -> Result<(), ProduceError> {
        match self.accumulator.drain() {
            Some(group) => self.send_request(Request::Append(group)),
            None => Ok(()),
        }
    }

    /// Sends a request to the sender thread after the batches sealed before it.
    fn request(&mut self, request: Request) -> Result<(), ProduceError> {
        self.hand_off()?;
        self.send_request(request)
    }

    /// Sends a request to the sender thread, waiting while `buffer.memory` is full.
    fn send_request(&mut self, request: Request) -> Result<(), ProduceError> {
        self.check_fatal()?;
        if !self.sender.send(request) {
            // The thread is gone: it failed, and its last reply says why.
            self.wait_for(|_| None::<()>)?;
            return Err(ProduceError::Sender(
                "the sender thread stopped".to_string(),
            ));
        }
        Ok(())
    }

    /// Waits for the sender's answer that `want` picks, keeping events on the way.
    fn wait_for<T>(&mut self, want: impl Fn(Reply) -> Option<T>) -> Result<T, ProduceError> {
        while let Some(reply) = self.sender.reply() {
            if let Some(answer) = self.take_reply(reply).and_then(&want) {
                return Ok(answer);
            }
            self.check_fatal()?;
        }
        self.check_fatal()?;
        Err(ProduceError::Sender(
            "the sender thread stopped".to_string(),
        ))
    }

    /// The index of `partition`, or Kafka's error for it: `forced` when the caller named it
    /// (else the partitioner chose it).
    fn check_partition(&self, partition: i32, forced: bool) -> Result<usize, ProduceError> {
        // The range test on every record; the message only for a partition out of it.
        if (0..self.partitions).contains(&partition) {
            return Ok(partition as usize);
        }
        let message = partition_error(partition, self.partitions, forced).unwrap_or_default();
        Err(ProduceError::InvalidPartition(message))
    }

    /// Adds a record to its partition's batch; a full batch is sealed and queued for the sender
    /// thread.
    /// `partition` forces a partition; otherwise the partitioner chooses. A negative `timestamp`
    /// is refused ([`ProduceError::InvalidTimestamp`]).
    pub fn send(
        &mut self,
        partition: Option<i32>,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Result<(), ProduceError> {
        // The timestamp, then a named partition are checked first, as the Java client does
        // (ProducerRecord's constructor, then the metadata) before it measures the record.
        if timestamp < 0 {
            return Err(ProduceError::InvalidTimestamp(timestamp));
        }
        let forced = partition
            .map(|p| self.check_partition(p, true))
            .transpose()?;
        let fields = fields_size(key, value, headers);
        // Kafka's estimateSizeInBytesUpperBound: a batch of this record alone, its length and
        // deltas counted at their longest.
        let upper_bound = RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD + fields;
        // Kafka's ensureValidRecordSize.
        if upper_bound > self.config.max_request_size {
            self.refuse_too_large(partition, size_of(key), size_of(value), upper_bound);
            return Ok(());
        }
        // A broker refuses a client's records for an internal topic (ReplicaManager's
        // appendToLocalLog), as the Java producer's callback then reports them.
        if self.internal {
            let error = format!(
                "org.apache.kafka.common.errors.InvalidTopicException: Cannot append to internal topic {}",
                self.topic.name
            );
            self.refuse(partition, size_of(key), size_of(value), error);
            return Ok(());
        }
        // The partitioner is asked only for a record that is sent (as the built-in sticky
        // choice is made in Kafka's accumulator), so a refused record moves no partitioner.
        let p = match forced {
            Some(p) => p,
            None => self.choose_partition(key, value)?,
        };
        self.place(
            p,
            partition.is_none(),
            fields,
            timestamp,
            key,
            value,
            headers,
        )?;
        Ok(())
    }

    /// [`Self::send`] of unkeyed records without headers: the records are the same as those of
    /// a `send` per value (with the timestamps `clock` gives), for less work per record. With a
    /// named partition or a sticky partitioner ([`Partitioner::sticky_for_unkeyed`]) each batch
    /// is filled in one call of [`crate::record::BatchBuilder::append_values`], and the clock is read once for
    /// each batch the values start (the Java producer reads it at each `send`); a partitioner
    /// asked for each record gets a reading for each. The console producer sends the lines of
    /// each block it reads this way.
    pub fn send_values<'a>(
        &mut self,
        partition: Option<i32>,
        mut clock: impl FnMut() -> i64,
        values: impl IntoIterator<Item = Option<&'a [u8]>>,
    ) -> Result<(), ProduceError> {
        let mut values = values.into_iter();
        let fills_batches = partition.is_some() || self.partitioner.sticky_for_unkeyed();
        // The largest fields a record within max.request.size may have.
        let max_fields = self
            .config
            .max_request_size
            .saturating_sub(RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD);
        let mut next = None;
        while let Some(value) = next.take().or_else(|| values.next()) {
            let timestamp = clock();
            let fields = fields_size(None, value, &[]);
            if timestamp < 0 || self.internal || fields > max_fields {
                // Refused, or failed, as `send` refuses it.
                self.send(partition, timestamp, None, value, &[])?;
                continue;
            }
            let chosen = match partition {
                Some(p) => self.check_partition(p, true)?,
                None => self.choose_partition(None, value)?,
            };
            let p = self.place(
                chosen,
                partition.is_none(),
                fields,
                timestamp,
                None,
                value,
                &[],
            )?;
            if fills_batches {
                // The records after it go to the same batch while they fit; the first that
                // does not (or is too large to send) takes the way above.
                next = self
                    .accumulator
                    .append_values(p, max_fields, timestamp, &mut values);
            }
        }
        Ok(())
    }

    /// Appends a record of [`fields_size`] `fields`, that `send` accepted, to partition `p`'s
    /// batch, sealing the open batch when it is full. `chosen` when the partitioner chose `p`:
    /// it may then choose again for the new batch. Returns the partition the record went to.
    #[allow(clippy::too_many_arguments)] // the record's fields, where and how it was placed
    fn place(
        &mut self,
        mut p: usize,
        chosen: bool,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Result<usize, ProduceError> {
        if self
            .accumulator
            .try_append(p, fields, timestamp, key, value, headers)
        {
            return Ok(p);
        }
        if self.accumulator.has_open(p) {
            // The open batch is full.
            self.seal(p)?;
            if chosen {
                // Kafka's abortOnNewBatch: the sticky partitioner may move on before a new
                // batch, and the record then goes to the open batch of the partition chosen.
                self.partitioner
                    .on_new_batch(&self.topic.name, self.partitions, p as i32);
                self.accumulator.reset_lingered(p);
                p = self.choose_partition(key, value)?;
                if self
                    .accumulator
                    .try_append(p, fields, timestamp, key, value, headers)
                {
                    return Ok(p);
                }
                self.seal(p)?;
            }
        }
        let taken = self
            .accumulator
            .open_batch(p, fields)?
            .try_append(fields, timestamp, key, value, headers);
        debug_assert!(taken, "an empty batch refused a record");
        Ok(p)
    }

    fn choose_partition(
        &mut self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Result<usize, ProduceError> {
        let record = RecordRef {
            topic: &self.topic.name,
            key,
            value,
        };
        let chosen = self.partitioner.partition(&record, self.partitions);
        self.check_partition(chosen, false)
    }

    /// Reports a record as refused (not sent) with Kafka's exception `error`.
    #[cold]
    fn refuse(&mut self, partition: Option<i32>, key_size: i32, value_size: i32, error: String) {
        self.events.push(Event::Failed(SendFailure {
            partition: partition.unwrap_or(-1),
            key_size,
            value_size,
            error,
        }));
    }

    /// Refuses a record whose batch alone would take `upper_bound` bytes, more than
    /// `max.request.size`, with Kafka's message.
    fn refuse_too_large(
        &mut self,
        partition: Option<i32>,
        key_size: i32,
        value_size: i32,
        upper_bound: usize,
    ) {
        let error = format!(
            "org.apache.kafka.common.errors.RecordTooLargeException: The message is {upper_bound} bytes when serialized which is larger than {}, which is the value of the max.request.size configuration.",
            self.config.max_request_size
        );
        self.refuse(partition, key_size, value_size, error);
    }

    /// Refuses, as [`Self::send`] refuses a record too large, a record of no key, no headers
    /// and a value of `length` bytes that was never read into memory: a line of input longer
    /// than `max.request.size` allows ([`crate::client::Lines::with_max_line`]).
    pub fn refuse_unread_value(&mut self, partition: Option<i32>, length: u64) {
        let length = usize::try_from(length).unwrap_or(usize::MAX);
        let value_size = i32::try_from(length).unwrap_or(i32::MAX);
        // fields_size of a null key, this value and no headers.
        let fields = 1usize
            .saturating_add(size_of_varint(value_size))
            .saturating_add(length)
            .saturating_add(1);
        let upper_bound = (RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD).saturating_add(fields);
        self.refuse_too_large(partition, -1, value_size, upper_bound);
    }

    /// Closes the open batch of partition `p` to new records, if there is one, and queues it for
    /// the sender thread.
    fn seal(&mut self, p: usize) -> Result<(), ProduceError> {
        let Some(open) = self.accumulator.take_open(p) else {
            return Ok(());
        };
        self.sealed_since_poll = true;
        self.check_fatal()?;
        let due = self.accumulator.seal(p, open).map_err(|source| {
            let tp = TopicPartition::new(self.topic.name.clone(), p as i32);
            ProduceError::Compress { tp, source }
        })?;
        if due {
            self.hand_off()?;
        }
        Ok(())
    }

    /// The recovery point of a partition's log once every sealed batch is written: everything
    /// below it is fsynced (by `acks=all`, `--sync`, or the topic's `flush.messages` /
    /// `flush.ms`).
    pub fn recovery_point(&mut self, partition: i32) -> Result<i64, ProduceError> {
        self.check_partition(partition, true)?;
        self.request(Request::RecoveryPoint(partition))?;
        self.wait_for(|reply| match reply {
            Reply::RecoveryPoint(result) => Some(result),
            _ => None,
        })?
    }

    /// Writes every open batch and waits until the logs have them (the end of linger; Kafka's
    /// `KafkaProducer.flush`).
    pub fn flush(&mut self) -> Result<(), ProduceError> {
        for p in 0..self.accumulator.partitions() {
            self.seal(p)?;
        }
        self.request(Request::Sync)?;
        self.wait_for(|reply| matches!(reply, Reply::Synced).then_some(()))
    }

    /// Writes every open batch, then stops the sender thread, which closes the logs (indexes
    /// trimmed; fsynced with `acks=all` or `--sync`, left to the operating system with `acks` 0
    /// and 1 as a broker leaves them) and checkpoints their recovery points.
    /// Returns the events not taken yet; on an error they are dropped, so a caller that must
    /// report every record calls [`Self::flush`] and [`Self::take_events`] first. When both the
    /// last writes and the closing fail, the error says both.
    pub fn close(mut self) -> Result<Vec<Event>, ProduceError> {
        let flushed = self.flush();
        let stopped = self.stop();
        match (flushed, stopped) {
            (Ok(()), Ok(())) => Ok(std::mem::take(&mut self.events)),
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
            (Err(first), Err(then)) => Err(ProduceError::Sender(format!("{first}\n{then}"))),
        }
    }

    /// Hands over the sealed batches, hangs up on the sender thread and waits for it to close
    /// the logs.
    fn stop(&mut self) -> Result<(), ProduceError> {
        let handed = self.hand_off();
        let Some(closed) = self.sender.stop() else {
            return Ok(());
        };
        self.poll_replies();
        handed.and(closed)
    }
}

impl Drop for Producer {
    /// A producer dropped without [`Producer::close`] still writes its sealed batches and
    /// closes its logs, so what it wrote stays intact and indexed (batches still open, not full
    /// yet, are dropped, as an unflushed Java producer's).
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// A key's or value's size as Kafka's callback reports it: -1 for null.
fn size_of(bytes: Option<&[u8]>) -> i32 {
    bytes.map_or(-1, |b| i32::try_from(b.len()).unwrap_or(i32::MAX))
}
