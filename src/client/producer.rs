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

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use crate::datadir::{now_ms, DataDirError, PartitionWriter, Topic, TopicPartition};
use crate::log::{AppendInfo, LogError};
use crate::record::varint::size_of_varint;
use crate::record::{
    fields_size, BatchBuilder, BuiltBatch, Compression, Header, RawBatch, TimestampType,
    MAX_RECORD_OVERHEAD, RECORD_BATCH_OVERHEAD,
};

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

/// An open batch and what must be reported once it is written.
#[derive(Debug)]
struct Open {
    builder: BatchBuilder,
    /// The most bytes the batch may hold before compression ([`compressed_batch_room`]).
    room: usize,
    /// The batch's write limit: the batch size, or more when its first record needs more (the
    /// buffer Kafka's `RecordAccumulator` allocates is `max(batch.size, upper bound of the
    /// first record)`, and later records may fill it).
    limit: usize,
    /// Each record's timestamp, kept only when written records are reported.
    timestamps: Option<Vec<i64>>,
    /// When the batch was started: it is sent once it has waited `linger.ms` from then.
    created: Instant,
}

impl Open {
    /// Appends the record, of [`fields_size`] `fields`, if the batch stays within its limit and
    /// its room before compression (an empty batch takes any record).
    #[inline(always)]
    fn try_append(
        &mut self,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> bool {
        let taken = self
            .builder
            .try_append_sized(
                self.limit, self.room, fields, timestamp, key, value, headers,
            )
            .is_some();
        if taken {
            if let Some(timestamps) = &mut self.timestamps {
                timestamps.push(timestamp);
            }
        }
        taken
    }

    /// [`BatchBuilder::append_values`] within this batch's limits.
    fn append_values<'a>(
        &mut self,
        max_fields: usize,
        timestamp: i64,
        values: &mut impl Iterator<Item = Option<&'a [u8]>>,
    ) -> Option<Option<&'a [u8]>> {
        let before = self.builder.record_count();
        let refused = self
            .builder
            .append_values(self.limit, self.room, max_fields, timestamp, values);
        if let Some(timestamps) = &mut self.timestamps {
            let appended = self.builder.record_count().wrapping_sub(before);
            timestamps.extend(std::iter::repeat_n(timestamp, appended as usize));
        }
        refused
    }
}

/// A full batch on its way to the sender thread ([`Closing`] says who finishes it).
#[derive(Debug)]
struct Sealed {
    partition: i32,
    batch: Closing,
    /// Present when the written records are to be reported.
    timestamps: Option<Vec<i64>>,
}

/// A sealed batch as it goes to the sender: an uncompressed one finished (header and CRC) by
/// the producer while its bytes are still in the cache of the core that wrote them, a
/// compressed one still to be finished by the sender, which compresses it as Kafka's sender
/// closes a `ProducerBatch` when it drains it.
#[derive(Debug)]
enum Closing {
    Built(BuiltBatch),
    ToCompress(BatchBuilder),
}

/// What the producer asks of its sender thread.
#[derive(Debug)]
enum Request {
    /// Append batches to their partitions' logs, in order.
    Append(Vec<Sealed>),
    /// Answer [`Reply::Synced`] once every earlier request is done.
    Sync,
    /// Answer with the partition's recovery point.
    RecoveryPoint(i32),
}

/// What the sender thread tells the producer, in order.
#[derive(Debug)]
enum Reply {
    Event(Event),
    /// The sender failed and appends nothing more; the error ends the producer.
    Fatal(ProduceError),
    Synced,
    /// The recovery point, or why the log could not be opened (not fatal: nothing was lost).
    RecoveryPoint(Result<i64, ProduceError>),
}

/// The producer's I/O thread (Kafka's `Sender`): it owns the partition logs, appends the
/// batches the producer seals in the order they were sealed, makes them durable as `acks` and
/// `--sync` ask, reports what happened to each record, and hands the batches' buffers back for
/// reuse (Kafka's `BufferPool`).
struct SenderThread {
    writer: PartitionWriter,
    topic: Topic,
    durability: Durability,
    /// The group commit's flushing thread ([`Durability::GroupCommit`]).
    flusher: Option<Flusher>,
    /// The segment files written since the last flush was asked for.
    touched: BTreeSet<PathBuf>,
    replies: mpsc::Sender<Reply>,
    free: mpsc::Sender<Vec<u8>>,
    /// The producer's compression-ratio estimate, updated with each batch compressed here (as
    /// Kafka's sender does when it closes a batch).
    compression_estimate: Arc<AtomicU32>,
    /// Where events go as writes are acknowledged, instead of back to the producer.
    callback: Option<Callback>,
    /// The events of the write being acknowledged, for the callback.
    acknowledged: Vec<Event>,
}

/// A callback run with the events of each acknowledged write: the records of a batch once it
/// is written and as durable as `acks` asks (or of the batches written with one write, or
/// covered by one flush), and the records the log refused. It runs on the sender thread, as
/// Kafka runs its send callbacks, or with `acks=all` on the thread whose flush made the
/// records durable.
pub type Callback = Box<dyn FnMut(&[Event]) + Send>;

/// When the sender acknowledges a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// `acks` 0 and 1: once written (to the page cache); flushing is left to the topic's flush
    /// policy and to the operating system.
    Written,
    /// `acks=all`: once an fsync covers it. A flushing thread syncs the segment files written
    /// since its last flush while the sender goes on appending, so one fsync covers every
    /// batch written while the one before ran (group commit).
    GroupCommit,
    /// `--sync`: each batch is flushed and checkpointed before the next is appended.
    EachBatch,
}

impl Durability {
    fn of(config: &ProducerConfig) -> Self {
        match (config.sync, config.acks) {
            (true, _) => Durability::EachBatch,
            (false, Acks::All) => Durability::GroupCommit,
            (false, Acks::None | Acks::Leader) => Durability::Written,
        }
    }
}

/// Written records waiting for an fsync, and the files that must be synced for them.
struct FlushJob {
    files: BTreeSet<PathBuf>,
    events: Vec<Event>,
    /// Told once this job and every one before it are synced and acknowledged.
    done: Option<mpsc::Sender<()>>,
}

/// The group commit's flushing thread, as the sender sees it.
struct Flusher {
    jobs: mpsc::SyncSender<FlushJob>,
    thread: thread::JoinHandle<()>,
    /// Set by the flushing thread when an fsync failed: nothing written after is ever
    /// acknowledged, so the sender stops appending.
    failed: Arc<AtomicBool>,
}

/// How many written groups may wait for their fsync before the sender waits too (a group is
/// up to [`HANDOFF_BYTES`] or one linger's records).
const FLUSH_BACKLOG: usize = 64;

impl Flusher {
    /// Starts the flushing thread; it reports events through `callback` or `replies`.
    fn start(
        callback: Option<Callback>,
        replies: mpsc::Sender<Reply>,
    ) -> Result<Self, ProduceError> {
        let (jobs, inbox) = mpsc::sync_channel(FLUSH_BACKLOG);
        let failed = Arc::new(AtomicBool::new(false));
        let flushing = FlushingThread {
            callback,
            replies,
            failed: Arc::clone(&failed),
        };
        let thread = thread::Builder::new()
            .name("kafkit-group-commit".to_string())
            .spawn(move || flushing.run(inbox))
            .map_err(|e| ProduceError::Sender(format!("starting the flushing thread: {e}")))?;
        Ok(Flusher {
            jobs,
            thread,
            failed,
        })
    }

    /// Waits until everything submitted so far is synced and acknowledged.
    fn barrier(&self) {
        let (done, wait) = mpsc::channel();
        let job = FlushJob {
            files: BTreeSet::new(),
            events: Vec::new(),
            done: Some(done),
        };
        // The thread ends only when the sender hangs up: no answer means it died.
        if self.jobs.send(job).is_err() || wait.recv().is_err() {
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Hangs up and waits for the last acknowledgements; returns whether a flush failed (or the
    /// thread died).
    fn finish(self) -> bool {
        drop(self.jobs);
        // A panic of the flushing thread leaves records unacknowledged, never lost.
        let panicked = self.thread.join().is_err();
        panicked || self.failed.load(Ordering::Acquire)
    }
}

/// The thread that syncs written segment files and acknowledges what they hold.
struct FlushingThread {
    callback: Option<Callback>,
    replies: mpsc::Sender<Reply>,
    failed: Arc<AtomicBool>,
}

impl FlushingThread {
    fn run(mut self, inbox: mpsc::Receiver<FlushJob>) {
        while let Ok(first) = inbox.recv() {
            // Every job that came while the last fsync ran is covered by the next one.
            let mut jobs = vec![first];
            jobs.extend(inbox.try_iter());
            let mut files = BTreeSet::new();
            for job in &mut jobs {
                files.append(&mut job.files);
            }
            if !self.failed.load(Ordering::Acquire) {
                if let Err(e) = sync_files(&files) {
                    self.failed.store(true, Ordering::Release);
                    let _ = self.replies.send(Reply::Fatal(e));
                }
            }
            let synced = !self.failed.load(Ordering::Acquire);
            for job in jobs {
                if synced {
                    self.acknowledge(job.events);
                }
                if let Some(done) = job.done {
                    let _ = done.send(());
                }
            }
        }
    }

    fn acknowledge(&mut self, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        match &mut self.callback {
            Some(callback) => callback(&events),
            None => {
                for event in events {
                    // The producer is gone only when it is being dropped: nobody is left to tell.
                    let _ = self.replies.send(Reply::Event(event));
                }
            }
        }
    }
}

/// Makes the written data of `files` durable (`fdatasync`; appends change a file's size, which
/// it syncs too). A file that is gone fails: its topic was deleted, which is reported as the
/// writer reports it (Kafka's UnknownTopicOrPartition).
fn sync_files(files: &BTreeSet<PathBuf>) -> Result<(), ProduceError> {
    for path in files {
        std::fs::File::open(path)
            .and_then(|file| file.sync_data())
            .map_err(|source| {
                let gone = path
                    .parent()
                    .and_then(|dir| dir.file_name())
                    .and_then(|name| TopicPartition::from_dir_name(&name.to_string_lossy()))
                    .filter(|_| source.kind() == std::io::ErrorKind::NotFound);
                match gone {
                    Some(tp) => DataDirError::UnknownTopicOrPartition(tp).into(),
                    None => ProduceError::Flush {
                        path: path.clone(),
                        source,
                    },
                }
            })?;
    }
    Ok(())
}

impl SenderThread {
    /// Serves requests until the producer hangs up, then closes the logs. After a fatal error
    /// appends are dropped (they were never acknowledged) but the logs are still closed, so
    /// everything written before stays intact and indexed.
    fn run(mut self, requests: mpsc::Receiver<Request>) -> Result<(), ProduceError> {
        let mut failed = false;
        for request in requests {
            failed |= self
                .flusher
                .as_ref()
                .is_some_and(|f| f.failed.load(Ordering::Acquire));
            let reply = match request {
                Request::Append(_) if failed => continue,
                Request::Append(group) => {
                    let appended = self.append_group(group);
                    if appended.is_err() {
                        // Other writers must not wait for a producer that stopped appending.
                        let _ = self.writer.release();
                    }
                    // What was written before a failure is acknowledged all the same.
                    self.acknowledge();
                    match appended {
                        Ok(()) => continue,
                        Err(e) => {
                            failed = true;
                            Reply::Fatal(e)
                        }
                    }
                }
                Request::Sync => match self.settle() {
                    Ok(()) => Reply::Synced,
                    Err(e) => {
                        failed = true;
                        Reply::Fatal(e)
                    }
                },
                Request::RecoveryPoint(p) => Reply::RecoveryPoint(self.settle().and_then(|()| {
                    let point = self
                        .writer
                        .log(&self.topic, p)
                        .map(|log| log.recovery_point());
                    let released = self.writer.release();
                    Ok(released.and(point)?)
                })),
            };
            if self.replies.send(reply).is_err() {
                break;
            }
        }
        let mut flush_failed = false;
        if let Some(flusher) = self.flusher.take() {
            flush_failed = flusher.finish();
        }
        // With acks 0 or 1 flushing is left to the topic's flush policy and to the operating
        // system, at the end of the run too (`PartitionWriter::close_unflushed`). After a failed
        // fsync nothing is flushed again: a later fsync may succeed where the kernel dropped
        // the pages that failed, and the recovery points must not move past them.
        match self.durability {
            Durability::Written => self.writer.close_unflushed()?,
            Durability::GroupCommit if flush_failed => self.writer.close_unflushed()?,
            Durability::GroupCommit | Durability::EachBatch => self.writer.close()?,
        }
        Ok(())
    }

    /// Waits until every write so far is acknowledged; with group commit the logs are then
    /// flushed whole (indexes too) and their recovery points checkpointed, as at a flush of
    /// Kafka's log.
    fn settle(&mut self) -> Result<(), ProduceError> {
        if let Some(flusher) = &self.flusher {
            flusher.barrier();
            if flusher.failed.load(Ordering::Acquire) {
                return Err(ProduceError::Sender(
                    "an earlier flush failed: nothing after it is acknowledged".to_string(),
                ));
            }
            self.writer.checkpoint()?;
        }
        Ok(())
    }

    fn report(&mut self, event: Event) {
        if self.callback.is_some() || self.flusher.is_some() {
            self.acknowledged.push(event);
            return;
        }
        // The producer is gone only when it is being dropped: nobody is left to tell.
        let _ = self.replies.send(Reply::Event(event));
    }

    /// Acknowledges the write just done: runs the callback with its events, or with group
    /// commit hands them to the flushing thread with the files to sync first.
    fn acknowledge(&mut self) {
        if let Some(flusher) = &self.flusher {
            if self.acknowledged.is_empty() && self.touched.is_empty() {
                return;
            }
            let job = FlushJob {
                files: std::mem::take(&mut self.touched),
                events: std::mem::take(&mut self.acknowledged),
                done: None,
            };
            // The thread ends only when the sender hangs up: a refused job means it died, and
            // nothing is acknowledged from now on.
            if flusher.jobs.send(job).is_err() {
                flusher.failed.store(true, Ordering::Release);
            }
            return;
        }
        if let Some(callback) = &mut self.callback {
            if !self.acknowledged.is_empty() {
                callback(&self.acknowledged);
                self.acknowledged.clear();
            }
        }
    }

    /// Appends a hand-off group: each run of batches for one partition with one write when the
    /// log can take them so ([`crate::log::Log::append_built_all`]), else one by one, under
    /// the partition's lock.
    fn append_group(&mut self, group: Vec<Sealed>) -> Result<(), ProduceError> {
        let mut group = group.into_iter().peekable();
        while let Some(first) = group.next() {
            let partition = first.partition;
            let tp = || TopicPartition::new(self.topic.name.clone(), partition);
            let mut batches = Vec::new();
            let mut timestamps = Vec::new();
            for sealed in std::iter::once(first).chain(std::iter::from_fn(|| {
                group.next_if(|next| next.partition == partition)
            })) {
                let batch = match sealed.batch {
                    Closing::Built(batch) => batch,
                    Closing::ToCompress(builder) => builder
                        .seal()
                        .map_err(|source| ProduceError::Compress { tp: tp(), source })?,
                };
                if batch.compression() != Compression::None {
                    let current = f32::from_bits(self.compression_estimate.load(Ordering::Relaxed));
                    let next = updated_compression_estimate(current, batch.compression_ratio());
                    self.compression_estimate
                        .store(next.to_bits(), Ordering::Relaxed);
                }
                batches.push(batch);
                timestamps.push(sealed.timestamps);
            }
            let written = if self.durability == Durability::EachBatch {
                // Each batch is made durable before the next is appended: one at a time.
                None
            } else {
                let log = self.writer.log(&self.topic, partition)?;
                let from = log.active_base_offset();
                let written = log
                    .append_built_all(&mut batches, now_ms())
                    .map_err(|source| ProduceError::Log { tp: tp(), source })?;
                if self.flusher.is_some() {
                    self.touched.extend(log.segment_files_from(from));
                }
                written
            };
            match written {
                Some(infos) => {
                    for ((info, timestamps), batch) in infos.iter().zip(timestamps).zip(batches) {
                        self.report_written(partition, info, timestamps);
                        self.give_back(batch);
                    }
                }
                None => {
                    for (batch, timestamps) in batches.into_iter().zip(timestamps) {
                        self.append(partition, batch, timestamps)?;
                        if self.durability == Durability::EachBatch {
                            // Acknowledged once durable, before the next is appended.
                            self.writer.release()?;
                            self.acknowledge();
                        }
                    }
                }
            }
            // Other writers of the partition append between two runs of batches. The lock
            // goes before the acknowledgement: a callback that blocks (a full stdout) must
            // never hold other writers of the partition.
            self.writer.release()?;
            self.acknowledge();
        }
        Ok(())
    }

    fn append(
        &mut self,
        partition: i32,
        mut batch: BuiltBatch,
        timestamps: Option<Vec<i64>>,
    ) -> Result<(), ProduceError> {
        let log = self.writer.log(&self.topic, partition)?;
        let from = log.active_base_offset();
        let appended = log.append_built(&mut batch, now_ms());
        if appended.is_ok() && self.flusher.is_some() {
            self.touched.extend(log.segment_files_from(from));
        }
        match appended {
            Ok(info) => {
                if self.durability == Durability::EachBatch {
                    self.writer.checkpoint()?;
                }
                self.report_written(partition, &info, timestamps);
            }
            Err(LogError::RecordTooLarge) => {
                for (key_size, value_size) in record_sizes(batch.as_bytes()) {
                    self.report(Event::Failed(SendFailure {
                        partition,
                        key_size,
                        value_size,
                        error: format!(
                            "org.apache.kafka.common.errors.RecordTooLargeException: {}",
                            LogError::RecordTooLarge
                        ),
                    }));
                }
            }
            Err(source) => {
                let tp = TopicPartition::new(self.topic.name.clone(), partition);
                return Err(ProduceError::Log { tp, source });
            }
        }
        self.give_back(batch);
        Ok(())
    }

    /// Reports the written records of a batch, when they are to be reported.
    fn report_written(&mut self, partition: i32, info: &AppendInfo, timestamps: Option<Vec<i64>>) {
        for (i, ts) in timestamps.iter().flatten().enumerate() {
            self.report(Event::Written(RecordMetadata {
                partition,
                offset: info.first_offset + i as i64,
                timestamp: if info.log_append_time >= 0 {
                    info.log_append_time
                } else {
                    *ts
                },
            }));
        }
    }

    /// Returns a written batch's buffer to the producer for a next batch.
    fn give_back(&self, batch: BuiltBatch) {
        // The producer may be gone (dropped): the buffer is then simply freed.
        let _ = self.free.send(batch.into_bytes());
    }
}

/// Key and value sizes (-1 for null) of each record of a batch, for failure reports.
fn record_sizes(batch: &[u8]) -> Vec<(i32, i32)> {
    let size = |b: &Option<Vec<u8>>| b.as_ref().map_or(-1, |b| b.len() as i32);
    match RawBatch::read_at(batch, 0) {
        Ok(Some(raw)) => raw
            .records()
            .map(|records| {
                records
                    .iter()
                    .map(|r| (size(&r.key), size(&r.value)))
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
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

/// The producer's end of its sender thread.
#[derive(Debug)]
struct Sender {
    requests: Option<mpsc::SyncSender<Request>>,
    replies: mpsc::Receiver<Reply>,
    free: mpsc::Receiver<Vec<u8>>,
    thread: Option<thread::JoinHandle<Result<(), ProduceError>>>,
}

/// Kafka's `buffer.memory` default: the bytes of sealed batches that may wait for the sender.
const BUFFER_MEMORY: usize = 32 * 1024 * 1024;

/// Sealed batches go to the sender in groups of up to about this many bytes, gathered for at
/// most [`HANDOFF_DELAY`] (or less, when a flush asks): waking the sender thread for each 16 KiB
/// batch of a bulk load cost more than writing it, and a slow stream still has each full batch
/// written as soon as it is sealed.
const HANDOFF_BYTES: usize = 1 << 20;
const HANDOFF_DELAY: Duration = Duration::from_millis(1);

/// A batch's buffer is allocated up front up to this size (larger `batch.size`s grow as
/// records come, so a producer of a few small records does not hold megabytes).
const BATCH_PREALLOCATION_LIMIT: usize = 1 << 20;

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
    /// A batch is sealed before its estimated size would exceed this: `batch.size`, and never
    /// more than the topic's `max.message.bytes` (Kafka splits such batches and resends;
    /// sealing earlier gives the same records in the log).
    limit: usize,
    /// The topic's `max.message.bytes`.
    max_message: usize,
    /// The most bytes a batch may hold before compression ([`compressed_batch_room`]; no
    /// bound without compression).
    room: usize,
    /// Kafka's `CompressionRatioEstimator` for this topic and codec, as f32 bits: the sender
    /// thread updates it as it compresses batches, each new batch starts from it.
    compression_estimate: Arc<AtomicU32>,
    open: Vec<Option<Open>>,
    /// Sealed batches not handed to the sender yet, and their bytes.
    sealed: Vec<Sealed>,
    sealed_bytes: usize,
    /// Records in the batch last sealed: the capacity the next one's timestamps start with.
    last_count: usize,
    /// A batch went to the sender since [`Self::take_events`] last looked at its replies.
    sealed_since_poll: bool,
    report_written: bool,
    events: Vec<Event>,
    sender: Sender,
    /// The sender's fatal error: returned as it is by the first call after it arrives, by its
    /// message after that.
    fatal: Fatal,
    /// When sealed batches were last handed to the sender.
    last_hand_off: Instant,
    /// Bytes of each partition's batches that `linger.ms` sent before they were full since the
    /// sticky partitioner last moved on from it: at `batch.size` it moves on, as Kafka's
    /// built-in partitioner moves on after `batch.size` bytes.
    lingered_bytes: Vec<usize>,
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

/// Kafka's `CompressionRatioEstimator.updateEstimation`: a batch that compressed worse than
/// the estimate raises it at once (by 0.05 at least), one that compressed better lowers it
/// slowly (by 0.005 at most).
fn updated_compression_estimate(current: f32, observed: f32) -> f32 {
    if observed > current {
        (current + 0.05).max(observed)
    } else if observed < current {
        (current - 0.005).max(observed)
    } else {
        current
    }
}

/// The largest batch, counted before compression, whose compressed form stays within
/// `max_message` bytes whatever the data. Kafka's codecs expand data that does not compress by
/// at most a sixth plus their framing (snappy's worst case: n/6 + 32 bytes a 32 KiB block, 4
/// bytes of block length and a 16-byte stream header; gzip, lz4 and zstd add less). A Kafka
/// producer splits a batch the broker refuses as too large and sends the halves; sizing the
/// batch so that it cannot be refused writes the same records. It also bounds a batch that
/// would compress far below the limit, which Kafka may fill further: with max.message.bytes
/// at its default of 1 MiB, only a compression estimate below about 2% reaches this bound.
fn compressed_batch_room(max_message: usize) -> usize {
    let framing = 64 + 40 * (max_message / 32_768 + 1);
    RECORD_BATCH_OVERHEAD + max_message.saturating_sub(RECORD_BATCH_OVERHEAD + framing) / 7 * 6
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
        writer: PartitionWriter,
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
        writer: PartitionWriter,
        topic: Topic,
        partitioner: Box<dyn Partitioner>,
        config: ProducerConfig,
        callback: Option<Callback>,
    ) -> Self {
        let partitions = topic.partition_count() as i32;
        let max_message = topic.log_config().max_message_bytes as usize;
        let limit = config.batch_size.min(max_message).max(1);
        let room = match config.compression {
            Compression::None => usize::MAX,
            _ => compressed_batch_room(max_message),
        };
        let compression_estimate = Arc::new(AtomicU32::new(1.0f32.to_bits()));
        let (requests, inbox) =
            mpsc::sync_channel((BUFFER_MEMORY / limit.max(HANDOFF_BYTES)).max(1));
        let (replies, outbox) = mpsc::channel();
        let (free_sender, free) = mpsc::channel();
        let durability = Durability::of(&config);
        let (flusher, callback) = match durability {
            Durability::GroupCommit => match Flusher::start(callback, replies.clone()) {
                Ok(flusher) => (Ok(Some(flusher)), None),
                Err(e) => (Err(e), None),
            },
            Durability::Written | Durability::EachBatch => (Ok(None), callback),
        };
        let started = flusher.and_then(|flusher| {
            let sender = SenderThread {
                writer,
                topic: topic.clone(),
                durability,
                flusher,
                touched: BTreeSet::new(),
                replies,
                free: free_sender,
                compression_estimate: Arc::clone(&compression_estimate),
                callback,
                acknowledged: Vec::new(),
            };
            thread::Builder::new()
                .name("kafkit-producer-sender".to_string())
                .spawn(move || sender.run(inbox))
                .map_err(|e| {
                    ProduceError::Sender(format!("starting the producer's sender thread: {e}"))
                })
        });
        let (thread, fatal) = match started {
            Ok(handle) => (Some(handle), Fatal::None),
            Err(e) => (None, Fatal::Reported(e.to_string())),
        };
        Self {
            internal: topic.is_internal(),
            partitions,
            partitioner,
            limit,
            max_message,
            room,
            compression_estimate,
            open: (0..partitions).map(|_| None).collect(),
            sealed: Vec::new(),
            sealed_bytes: 0,
            last_count: 0,
            sealed_since_poll: false,
            report_written: false,
            events: Vec::new(),
            sender: Sender {
                requests: Some(requests),
                replies: outbox,
                free,
                thread,
            },
            fatal,
            // As if a hand-off had just gone: the first sealed batch goes at once.
            last_hand_off: Instant::now()
                .checked_sub(HANDOFF_DELAY)
                .unwrap_or_else(Instant::now),
            lingered_bytes: vec![0; partitions.max(0) as usize],
            topic,
            config,
        }
    }

    /// Reports every written record as [`Event::Written`] (for `--output json`), from the
    /// next batch on.
    #[must_use]
    pub fn report_written(mut self, on: bool) -> Self {
        self.report_written = on;
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
        while let Ok(reply) = self.sender.replies.try_recv() {
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
        self.open
            .iter()
            .flatten()
            .filter_map(|open| open.created.checked_add(self.config.linger))
            .min()
    }

    /// Hands the sealed batches to the sender thread with every open batch that has waited
    /// `linger.ms` (Kafka's sender sends a batch once it is full or has waited that long), and
    /// returns [`Self::linger_deadline`] of the batches still open. Call it before waiting (for
    /// input): the open batches belong to the caller's thread, there is no timer thread.
    pub fn send_lingered(&mut self) -> Result<Option<Instant>, ProduceError> {
        let now = Instant::now();
        for p in 0..self.open.len() {
            let Some(Some(open)) = self.open.get(p) else {
                continue;
            };
            if now.saturating_duration_since(open.created) < self.config.linger {
                continue;
            }
            let bytes = open.builder.uncompressed_size_in_bytes();
            self.seal(p)?;
            // Kafka's built-in partitioner moves on after batch.size bytes, full batches or not.
            if self.partitioner.sticky_for_unkeyed() {
                if let Some(lingered) = self.lingered_bytes.get_mut(p) {
                    *lingered += bytes;
                    if *lingered >= self.limit {
                        *lingered = 0;
                        self.partitioner
                            .on_new_batch(&self.topic.name, self.partitions, p as i32);
                    }
                }
            }
        }
        self.hand_off()?;
        Ok(self.linger_deadline())
    }

    /// Hands the batches sealed so far to the sender thread now, instead of with the next ones
    /// (call it before waiting for more input: [`crate::client::Lines::advance_with`]).
    pub fn hand_off(&mut self) -> Result<(), ProduceError> {
        if self.sealed.is_empty() {
            return Ok(());
        }
        self.sealed_bytes = 0;
        self.last_hand_off = Instant::now();
        let group = std::mem::take(&mut self.sealed);
        self.send_request(Request::Append(group))
    }

    /// Sends a request to the sender thread after the batches sealed before it.
    fn request(&mut self, request: Request) -> Result<(), ProduceError> {
        self.hand_off()?;
        self.send_request(request)
    }

    /// Sends a request to the sender thread, waiting while `buffer.memory` is full.
    fn send_request(&mut self, request: Request) -> Result<(), ProduceError> {
        self.check_fatal()?;
        let sent = self
            .sender
            .requests
            .as_ref()
            .is_some_and(|r| r.send(request).is_ok());
        if !sent {
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
        while let Ok(reply) = self.sender.replies.recv() {
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
    /// is filled in one call of [`BatchBuilder::append_values`], and the clock is read once for
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
                if let Some(Some(open)) = self.open.get_mut(p) {
                    next = open.append_values(max_fields, timestamp, &mut values);
                }
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
        if self.try_append(p, fields, timestamp, key, value, headers) {
            return Ok(p);
        }
        if self.open.get(p).is_some_and(Option::is_some) {
            // The open batch is full.
            self.seal(p)?;
            if chosen {
                // Kafka's abortOnNewBatch: the sticky partitioner may move on before a new
                // batch, and the record then goes to the open batch of the partition chosen.
                self.partitioner
                    .on_new_batch(&self.topic.name, self.partitions, p as i32);
                if let Some(bytes) = self.lingered_bytes.get_mut(p) {
                    *bytes = 0;
                }
                p = self.choose_partition(key, value)?;
                if self.try_append(p, fields, timestamp, key, value, headers) {
                    return Ok(p);
                }
                self.seal(p)?;
            }
        }
        // An empty batch takes any record; Kafka's estimateSizeInBytesUpperBound sizes its
        // buffer: a batch of this record alone, its length and deltas counted at their longest.
        let upper_bound = RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD + fields;
        let taken = self
            .open_batch(p, upper_bound)?
            .try_append(fields, timestamp, key, value, headers);
        debug_assert!(taken, "an empty batch refused a record");
        Ok(p)
    }

    /// Appends the record to the open batch of partition `p` if there is one with room for it.
    #[inline(always)]
    fn try_append(
        &mut self,
        p: usize,
        fields: usize,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> bool {
        match self.open.get_mut(p) {
            Some(Some(open)) => open.try_append(fields, timestamp, key, value, headers),
            _ => false,
        }
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

    /// Starts a batch for partition `p` in a buffer the sender gave back, or a new one, for a
    /// first record whose batch alone takes at most `upper_bound` bytes.
    fn open_batch(&mut self, p: usize, upper_bound: usize) -> Result<&mut Open, ProduceError> {
        let buffer = self
            .sender
            .free
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(self.limit.min(BATCH_PREALLOCATION_LIMIT)));
        let mut builder = BatchBuilder::with_buffer(
            0,
            self.config.compression,
            TimestampType::CreateTime,
            buffer,
        );
        if self.config.compression != Compression::None {
            // As Kafka's ProducerBatch: each new batch starts from the running estimate.
            builder.set_estimated_compression_ratio(f32::from_bits(
                self.compression_estimate.load(Ordering::Relaxed),
            ));
        }
        let open = Open {
            builder,
            // Never past the topic's max.message.bytes, as the batch size (a Kafka producer
            // splits a batch the broker refuses as too large).
            limit: self.limit.max(upper_bound.min(self.max_message)),
            room: self.room,
            timestamps: self
                .report_written
                .then(|| Vec::with_capacity(self.last_count)),
            created: Instant::now(),
        };
        let slot = self
            .open
            .get_mut(p)
            .ok_or_else(|| ProduceError::InvalidPartition(format!("no partition {p}")))?;
        Ok(slot.insert(open))
    }

    /// Closes the open batch of partition `p` to new records, if there is one, and queues it for
    /// the sender thread.
    fn seal(&mut self, p: usize) -> Result<(), ProduceError> {
        let Some(open) = self.open.get_mut(p).and_then(Option::take) else {
            return Ok(());
        };
        self.last_count = open.builder.record_count() as usize;
        self.sealed_since_poll = true;
        self.check_fatal()?;
        // The buffer as it is held until the sender compresses it.
        self.sealed_bytes += open.builder.uncompressed_size_in_bytes();
        let batch = if self.config.compression == Compression::None {
            // Finishing an uncompressed batch fails only in its compressor: it has none.
            let tp = || TopicPartition::new(self.topic.name.clone(), p as i32);
            Closing::Built(
                open.builder
                    .seal()
                    .map_err(|source| ProduceError::Compress { tp: tp(), source })?,
            )
        } else {
            Closing::ToCompress(open.builder)
        };
        self.sealed.push(Sealed {
            partition: p as i32,
            batch,
            timestamps: open.timestamps,
        });
        if self.sealed_bytes >= HANDOFF_BYTES || self.last_hand_off.elapsed() >= HANDOFF_DELAY {
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
        for p in 0..self.open.len() {
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
        drop(self.sender.requests.take());
        let Some(thread) = self.sender.thread.take() else {
            return Ok(());
        };
        let closed = thread
            .join()
            .unwrap_or_else(|_| Err(ProduceError::Sender("the sender thread panicked".into())));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn written(offset: i64) -> Event {
        Event::Written(RecordMetadata {
            partition: 0,
            offset,
            timestamp: 0,
        })
    }

    #[test]
    fn group_commit_acknowledges_only_what_a_successful_fsync_covers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let present = dir.path().join("00000000000000000000.log");
        std::fs::write(&present, b"x").expect("segment");
        let acked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&acked);
        let (replies, outbox) = mpsc::channel();
        let callback: Callback = Box::new(move |events: &[Event]| {
            seen.lock().expect("lock").extend_from_slice(events);
        });
        let flusher = Flusher::start(Some(callback), replies).expect("start");
        let job = |file: &std::path::Path, offset| FlushJob {
            files: BTreeSet::from([file.to_path_buf()]),
            events: vec![written(offset)],
            done: None,
        };
        flusher.jobs.send(job(&present, 0)).expect("send");
        flusher.barrier();
        assert_eq!(*acked.lock().expect("lock"), vec![written(0)]);
        // The file is gone (say its topic was deleted): the fsync fails, its records and every
        // later one stay unacknowledged, and the producer is told why.
        flusher
            .jobs
            .send(job(&dir.path().join("gone.log"), 1))
            .expect("send");
        flusher.jobs.send(job(&present, 2)).expect("send");
        flusher.barrier();
        assert!(flusher.failed.load(Ordering::Acquire));
        assert_eq!(*acked.lock().expect("lock"), vec![written(0)]);
        flusher.finish();
        let fatal: Vec<String> = outbox
            .try_iter()
            .filter_map(|reply| match reply {
                Reply::Fatal(e) => Some(e.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(fatal.len(), 1, "{fatal:?}");
        assert!(fatal[0].starts_with("flushing ") && fatal[0].contains("gone.log"));
    }

    #[test]
    fn the_compression_estimate_moves_as_kafkas() {
        // The cases of Kafka's CompressionRatioEstimatorTest, with the values its rule gives:
        // worse than estimated raises the estimate by 0.05 or to the observed ratio, better
        // lowers it by 0.005 at most and never below the observed ratio.
        for (current, observed, expected) in [
            (0.8f32, 0.84f32, 0.85f32),
            (0.6, 0.7, 0.7),
            (0.6, 0.4, 0.595),
            (0.004, 0.001, 0.001),
            (0.5, 0.5, 0.5),
        ] {
            let next = updated_compression_estimate(current, observed);
            assert!(
                (next - expected).abs() < 1e-6,
                "{current} {observed}: {next}"
            );
            assert!(next >= observed);
        }
    }

    #[test]
    fn a_compressed_batch_room_holds_the_worst_expansion() {
        // Snappy's worst case for n bytes that do not compress: n + n/6 + 32 a 32 KiB block,
        // 4 bytes of block length, a 16-byte stream header.
        for max_message in [1_000usize, 4_000, 100_000, 1_048_588, 8 << 20] {
            let room = compressed_batch_room(max_message);
            let n = room - RECORD_BATCH_OVERHEAD;
            let blocks = n.div_ceil(32 * 1024);
            let worst = RECORD_BATCH_OVERHEAD + n + n / 6 + 36 * blocks + 16;
            assert!(worst <= max_message, "{max_message}: {worst}");
        }
    }
}
