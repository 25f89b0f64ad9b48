//! The producer: per-partition batch accumulators that seal a batch when the next record would
//! not fit `batch.size` (Kafka's `RecordAccumulator`), partition choice through a
//! [`Partitioner`], and appends to the partition logs under the data directory's lock.
//!
//! There is no network and no linger: a batch is written when it is sealed, and every open batch
//! is written by [`Producer::flush`] (the console producer calls it at the end of its input).

use crate::datadir::{now_ms, DataDirError, PartitionWriter, Topic, TopicPartition};
use crate::log::LogError;
use crate::record::varint::{size_of_varint, size_of_varlong};
use crate::record::{BatchBuilder, Compression, Header, TimestampType, RECORD_BATCH_OVERHEAD};

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
    /// `all` / `-1` (Kafka's default): each batch is fsynced and checkpointed before the next
    /// one is accepted.
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
    /// `--sync`: every batch is durable before the next is accepted, whatever `acks` says.
    pub sync: bool,
    /// `max.request.size`: a record larger than this (as one batch) is refused before batching.
    pub max_request_size: usize,
}

impl Default for ProducerConfig {
    fn default() -> Self {
        Self {
            batch_size: DEFAULT_BATCH_SIZE,
            compression: Compression::None,
            acks: Acks::All,
            sync: false,
            max_request_size: DEFAULT_MAX_REQUEST_SIZE,
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

/// What happened to sent records, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A record is written (only reported when [`Producer::report_written`] is on).
    Written(RecordMetadata),
    /// A record was refused.
    Failed(SendFailure),
}

/// Errors that stop the producer.
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
    /// A partition number out of range (Kafka's `KafkaException` text).
    #[error("{0}")]
    InvalidPartition(String),
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

/// Exact size of a magic 2 record (Kafka's `DefaultRecord.sizeInBytes`).
pub fn record_size(
    offset_delta: i32,
    timestamp_delta: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[Header],
) -> usize {
    sized(
        fields_size(key, value, headers),
        offset_delta,
        timestamp_delta,
    )
}

/// Bytes of a record's key, value and headers fields (with their length varints).
fn fields_size(key: Option<&[u8]>, value: Option<&[u8]>, headers: &[Header]) -> usize {
    #[inline]
    fn bytes(b: Option<&[u8]>) -> usize {
        match b {
            None => 1,
            Some(b) => size_of_varint(b.len() as i32) + b.len(),
        }
    }
    let mut size = bytes(key) + bytes(value) + size_of_varint(headers.len() as i32);
    for h in headers {
        size += size_of_varint(h.key.len() as i32) + h.key.len() + bytes(h.value.as_deref());
    }
    size
}

/// The record's size given its fields' size and its deltas: attributes, deltas, length prefix.
#[inline]
fn sized(fields: usize, offset_delta: i32, timestamp_delta: i64) -> usize {
    let body = 1 + size_of_varlong(timestamp_delta) + size_of_varint(offset_delta) + fields;
    size_of_varint(body as i32) + body
}

/// An open batch and what must be reported once it is written.
#[derive(Debug)]
struct Open {
    builder: BatchBuilder,
    first_timestamp: i64,
    timestamps: Vec<i64>,
    sizes: Vec<(i32, i32)>,
}

/// A producer for one topic of a data directory.
pub struct Producer<'d> {
    writer: PartitionWriter<'d>,
    topic: Topic,
    partitions: i32,
    partitioner: Box<dyn Partitioner>,
    config: ProducerConfig,
    /// A batch is sealed before it would exceed this: `batch.size`, and never more than the
    /// topic's `max.message.bytes` (Kafka splits such batches and resends; sealing earlier
    /// gives the same records in the log).
    limit: usize,
    open: Vec<Option<Open>>,
    report_written: bool,
    events: Vec<Event>,
}

impl std::fmt::Debug for Producer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer")
            .field("topic", &self.topic.name)
            .field("partitions", &self.partitions)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<'d> Producer<'d> {
    /// A producer writing `topic` through `writer` (which holds the data directory's lock).
    pub fn new(
        writer: PartitionWriter<'d>,
        topic: Topic,
        partitioner: Box<dyn Partitioner>,
        config: ProducerConfig,
    ) -> Self {
        let partitions = topic.partition_count() as i32;
        let max_message = topic.log_config().max_message_bytes as usize;
        let limit = config.batch_size.min(max_message).max(1);
        Self {
            writer,
            partitions,
            partitioner,
            limit,
            open: (0..partitions).map(|_| None).collect(),
            report_written: false,
            events: Vec::new(),
            topic,
            config,
        }
    }

    /// Reports every written record as [`Event::Written`] (for `--output json`).
    #[must_use]
    pub fn report_written(mut self, on: bool) -> Self {
        self.report_written = on;
        self
    }

    /// The topic's partition count.
    pub fn partitions(&self) -> i32 {
        self.partitions
    }

    /// Takes the events gathered since the last call.
    pub fn take_events(&mut self) -> std::vec::Drain<'_, Event> {
        self.events.drain(..)
    }

    fn check_partition(&self, partition: i32) -> Result<usize, ProduceError> {
        if partition < 0 {
            return Err(ProduceError::InvalidPartition(format!(
                "The partitioner generated an invalid partition number: {partition}. Partition number should always be non-negative."
            )));
        }
        if partition >= self.partitions {
            return Err(ProduceError::InvalidPartition(format!(
                "Invalid partition given with record: {partition} is not in the range [0...{}).",
                self.partitions
            )));
        }
        Ok(partition as usize)
    }

    /// Adds a record to its partition's batch, sealing and writing batches as they fill up.
    /// `partition` forces a partition; otherwise the partitioner chooses.
    pub fn send(
        &mut self,
        partition: Option<i32>,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Result<(), ProduceError> {
        let sizes = (
            key.map_or(-1, |k| k.len() as i32),
            value.map_or(-1, |v| v.len() as i32),
        );
        let fields = fields_size(key, value, headers);
        let upper_bound = RECORD_BATCH_OVERHEAD + sized(fields, i32::MAX, i64::MAX);
        if upper_bound > self.config.max_request_size {
            self.events.push(Event::Failed(SendFailure {
                partition: partition.unwrap_or(-1),
                key_size: sizes.0,
                value_size: sizes.1,
                error: format!(
                    "org.apache.kafka.common.errors.RecordTooLargeException: The message is {upper_bound} bytes when serialized which is larger than {}, which is the value of the max.request.size configuration.",
                    self.config.max_request_size
                ),
            }));
            return Ok(());
        }
        let record = RecordRef {
            topic: &self.topic.name,
            key,
            value,
        };
        let mut p = match partition {
            Some(p) => self.check_partition(p)?,
            None => {
                let chosen = self.partitioner.partition(&record, self.partitions);
                self.check_partition(chosen)?
            }
        };
        if partition.is_none() && !self.fits(p, timestamp, fields) {
            // Kafka's abortOnNewBatch: the sticky partitioner may move on before a new batch.
            self.seal(p)?;
            self.partitioner
                .on_new_batch(&self.topic.name, self.partitions, p as i32);
            let record = RecordRef {
                topic: &self.topic.name,
                key,
                value,
            };
            let chosen = self.partitioner.partition(&record, self.partitions);
            p = self.check_partition(chosen)?;
        }
        if !self.fits(p, timestamp, fields) {
            self.seal(p)?;
        }
        let compression = self.config.compression;
        let slot = self
            .open
            .get_mut(p)
            .ok_or_else(|| ProduceError::InvalidPartition(format!("no partition {p}")))?;
        let open = slot.get_or_insert_with(|| Open {
            builder: BatchBuilder::new(0, compression, TimestampType::CreateTime),
            first_timestamp: timestamp,
            timestamps: Vec::new(),
            sizes: Vec::new(),
        });
        open.builder.append(timestamp, key, value, headers);
        open.timestamps.push(timestamp);
        open.sizes.push(sizes);
        Ok(())
    }

    /// Whether the record fits the open batch of `p` (an empty batch takes any record).
    fn fits(&self, p: usize, timestamp: i64, fields: usize) -> bool {
        let Some(Some(open)) = self.open.get(p) else {
            return true;
        };
        let size = sized(
            fields,
            open.builder.record_count(),
            timestamp.wrapping_sub(open.first_timestamp),
        );
        open.builder.estimated_size_in_bytes() + size <= self.limit
    }

    /// Builds and writes the open batch of partition `p`, if any.
    fn seal(&mut self, p: usize) -> Result<(), ProduceError> {
        let Some(open) = self.open.get_mut(p).and_then(Option::take) else {
            return Ok(());
        };
        let tp = TopicPartition::new(self.topic.name.clone(), p as i32);
        let bytes = open
            .builder
            .build()
            .map_err(|source| ProduceError::Compress {
                tp: tp.clone(),
                source,
            })?;
        let log = self.writer.log(&self.topic, p as i32)?;
        let info = match log.append(&bytes, now_ms()) {
            Ok(info) => info,
            Err(LogError::RecordTooLarge) => {
                for (key_size, value_size) in open.sizes {
                    self.events.push(Event::Failed(SendFailure {
                        partition: p as i32,
                        key_size,
                        value_size,
                        error: format!(
                            "org.apache.kafka.common.errors.RecordTooLargeException: {}",
                            LogError::RecordTooLarge
                        ),
                    }));
                }
                return Ok(());
            }
            Err(source) => return Err(ProduceError::Log { tp, source }),
        };
        if self.config.sync || self.config.acks == Acks::All {
            self.writer.checkpoint()?;
        }
        if self.report_written {
            for (i, ts) in open.timestamps.iter().enumerate() {
                self.events.push(Event::Written(RecordMetadata {
                    partition: p as i32,
                    offset: info.first_offset + i as i64,
                    timestamp: if info.log_append_time >= 0 {
                        info.log_append_time
                    } else {
                        *ts
                    },
                }));
            }
        }
        Ok(())
    }

    /// The recovery point of a partition's log: everything below it is fsynced (by `acks=all`,
    /// `--sync`, or the topic's `flush.messages` / `flush.ms`).
    pub fn recovery_point(&mut self, partition: i32) -> Result<i64, ProduceError> {
        Ok(self.writer.log(&self.topic, partition)?.recovery_point())
    }

    /// Writes every open batch (the end of linger).
    pub fn flush(&mut self) -> Result<(), ProduceError> {
        for p in 0..self.open.len() {
            self.seal(p)?;
        }
        Ok(())
    }

    /// Writes every open batch, then closes the logs (flushed, indexes trimmed) and checkpoints
    /// their recovery points.
    /// Returns the events not taken yet.
    pub fn close(mut self) -> Result<Vec<Event>, ProduceError> {
        self.flush()?;
        let Producer { writer, events, .. } = self;
        writer.close()?;
        Ok(events)
    }
}
