//! The sender (Kafka's `Sender`): a thread that owns the partition logs and drains the batches
//! the accumulator sealed into them, in the order they were sealed, each run of batches for one
//! partition under that partition's append lock (`PartitionWriter::log` to `release`).
//!
//! Lock order: the sender holds at most one partition lock at a time, and releases it before it
//! acknowledges what it wrote, so a callback that blocks (a full stdout) never holds other
//! writers of the partition. With `acks` 0 or 1 (and `--sync`) the producer's [`Callback`] runs
//! here, as Kafka runs send callbacks on its sender thread; with `acks=all` the written groups
//! go to the flushing thread ([`super::flusher`]), which runs it once an fsync covers them.
//! Written batches' buffers go back to the accumulator for the next batches (Kafka's
//! `BufferPool`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;

use crate::cluster::replication::LeaderWriters;
use crate::datadir::{now_ms, DataDirError, PartitionWriter, Topic, TopicPartition};
use crate::log::{AppendInfo, Log, LogError};
use crate::record::{BuiltBatch, Compression, RawBatch};

use super::accumulator::{updated_compression_estimate, Closing, Sealed};
use super::flusher::Flusher;
use super::{
    Acks, Callback, Destination, Event, ProduceError, ProducerConfig, RecordMetadata, SendFailure,
};

/// What the producer asks of its sender thread.
#[derive(Debug)]
pub(super) enum Request {
    /// Append batches to their partitions' logs, in order.
    Append(Vec<Sealed>),
    /// Answer [`Reply::Synced`] once every earlier request is done.
    Sync,
    /// Answer with the partition's recovery point.
    RecoveryPoint(i32),
}

/// What the sender thread tells the producer, in order.
#[derive(Debug)]
pub(super) enum Reply {
    Event(Event),
    /// The sender failed and appends nothing more; the error ends the producer.
    Fatal(ProduceError),
    Synced,
    /// The recovery point, or why the log could not be opened (not fatal: nothing was lost).
    RecoveryPoint(Result<i64, ProduceError>),
}

/// The producer's end of its sender thread.
#[derive(Debug)]
pub(super) struct Sender {
    requests: Option<mpsc::SyncSender<Request>>,
    replies: mpsc::Receiver<Reply>,
    thread: Option<thread::JoinHandle<Result<(), ProduceError>>>,
}

impl Sender {
    /// Starts the sender thread (and with `acks=all` its flushing thread) writing `topic`
    /// through `writer`: up to `in_flight` hand-off groups may wait for it (about
    /// `buffer.memory`), written batches' buffers go back through `free`, and `callback`, if
    /// any, has the events. A thread that cannot start is said by the error returned beside a
    /// sender that refuses every request.
    pub(super) fn start(
        destination: Destination,
        topic: &Topic,
        config: &ProducerConfig,
        callback: Option<Callback>,
        compression_estimate: Arc<AtomicU32>,
        free: mpsc::Sender<Vec<u8>>,
        in_flight: usize,
    ) -> (Self, Option<ProduceError>) {
        let (requests, inbox) = mpsc::sync_channel(in_flight);
        let (replies, outbox) = mpsc::channel();
        #[cfg(feature = "net")]
        type Remote = crate::net::produce::ClusterSink;
        #[cfg(not(feature = "net"))]
        type Remote = std::convert::Infallible;
        let local: Result<Writers, Remote> = match destination {
            Destination::Log(writer) => Ok(Writers::One(Box::new(writer))),
            Destination::Leaders(writers) => Ok(Writers::Leaders(writers)),
            #[cfg(feature = "net")]
            Destination::Cluster(sink) => Err(sink),
        };
        let started = match local {
            Ok(writer) => {
                let durability = Durability::of(config);
                let (flusher, callback) = match durability {
                    Durability::GroupCommit => match Flusher::start(callback, replies.clone()) {
                        Ok(flusher) => (Ok(Some(flusher)), None),
                        Err(e) => (Err(e), None),
                    },
                    Durability::Written | Durability::EachBatch => (Ok(None), callback),
                };
                flusher.and_then(|flusher| {
                    let sender = SenderThread {
                        writer,
                        topic: topic.clone(),
                        durability,
                        flusher,
                        touched: BTreeSet::new(),
                        replies,
                        free,
                        compression_estimate,
                        callback,
                        acknowledged: Vec::new(),
                    };
                    spawn(move || sender.run(inbox))
                })
            }
            #[cfg(feature = "net")]
            Err(sink) => {
                let sender = super::remote::RemoteSender {
                    sink,
                    topic: topic.name.clone(),
                    replies,
                    free,
                    compression_estimate,
                    callback,
                };
                spawn(move || sender.run(inbox))
            }
        };
        let (thread, error) = match started {
            Ok(handle) => (Some(handle), None),
            Err(e) => (None, Some(e)),
        };
        let sender = Sender {
            requests: Some(requests),
            replies: outbox,
            thread,
        };
        (sender, error)
    }

    /// Queues a request, waiting while `buffer.memory` is full; false when the thread is gone.
    pub(super) fn send(&self, request: Request) -> bool {
        self.requests
            .as_ref()
            .is_some_and(|r| r.send(request).is_ok())
    }

    /// A reply that has come, without waiting.
    pub(super) fn try_reply(&self) -> Option<Reply> {
        self.replies.try_recv().ok()
    }

    /// The next reply; `None` once the thread has ended and every reply was taken.
    pub(super) fn reply(&self) -> Option<Reply> {
        self.replies.recv().ok()
    }

    /// Hangs up on the thread and waits for it to close the logs; `None` when it was stopped
    /// before (or never started).
    pub(super) fn stop(&mut self) -> Option<Result<(), ProduceError>> {
        drop(self.requests.take());
        let thread = self.thread.take()?;
        Some(
            thread
                .join()
                .unwrap_or_else(|_| Err(ProduceError::Sender("the sender thread panicked".into()))),
        )
    }
}

/// The sender thread's stack: it appends, compresses and sends batches, none of it
/// recursive (the codecs keep their tables on the heap). Less than std's 2 MiB default, so
/// a producer's address space stays small (`tests/memory.rs` runs it under a ceiling).
const SENDER_STACK: usize = 1 << 20;

/// Starts the sender thread running `body`.
fn spawn(
    body: impl FnOnce() -> Result<(), ProduceError> + Send + 'static,
) -> Result<thread::JoinHandle<Result<(), ProduceError>>, ProduceError> {
    thread::Builder::new()
        .name("kafkit-producer-sender".to_string())
        .stack_size(SENDER_STACK)
        .spawn(body)
        .map_err(|e| ProduceError::Sender(format!("starting the producer's sender thread: {e}")))
}

/// The producer's I/O thread (Kafka's `Sender`): it owns the partition logs, appends the
/// batches the producer seals in the order they were sealed, makes them durable as `acks` and
/// `--sync` ask, reports what happened to each record, and hands the batches' buffers back for
/// reuse (Kafka's `BufferPool`).
/// The logs a local sender writes: a data directory's, or a local cluster's leaders'.
#[derive(Debug)]
enum Writers {
    One(Box<PartitionWriter>),
    Leaders(LeaderWriters),
}

impl Writers {
    fn log(&mut self, topic: &Topic, partition: i32) -> Result<&mut Log, DataDirError> {
        match self {
            Writers::One(w) => w.log(topic, partition),
            Writers::Leaders(w) => w.log(topic, partition),
        }
    }

    fn release(&mut self) -> Result<(), DataDirError> {
        match self {
            Writers::One(w) => w.release(),
            Writers::Leaders(w) => w.release(),
        }
    }

    fn checkpoint(&mut self) -> Result<(), DataDirError> {
        match self {
            Writers::One(w) => w.checkpoint(),
            Writers::Leaders(w) => w.checkpoint(),
        }
    }

    fn close(self) -> Result<(), DataDirError> {
        match self {
            Writers::One(w) => w.close(),
            Writers::Leaders(w) => w.close(),
        }
    }

    fn close_unflushed(self) -> Result<(), DataDirError> {
        match self {
            Writers::One(w) => w.close_unflushed(),
            Writers::Leaders(w) => w.close_unflushed(),
        }
    }

    /// Why the partition's leader refuses records (a local cluster's partition without a
    /// leader, or with `acks=all` under `min.insync.replicas`).
    fn refusal(&self, partition: i32) -> Option<String> {
        match self {
            Writers::One(_) => None,
            Writers::Leaders(w) => w.refusal(partition).map(str::to_string),
        }
    }
}

struct SenderThread {
    writer: Writers,
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

impl SenderThread {
    /// Serves requests until the producer hangs up, then closes the logs. After a fatal error
    /// appends are dropped (they were never acknowledged) but the logs are still closed, so
    /// everything written before stays intact and indexed.
    fn run(mut self, requests: mpsc::Receiver<Request>) -> Result<(), ProduceError> {
        let mut failed = false;
        for request in requests {
            failed |= self.flusher.as_ref().is_some_and(Flusher::has_failed);
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
            if flusher.has_failed() {
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
            flusher.submit(
                std::mem::take(&mut self.touched),
                std::mem::take(&mut self.acknowledged),
            );
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
                batches.push(finish(sealed.batch, tp, &self.compression_estimate)?);
                timestamps.push(sealed.timestamps);
            }
            if let Some(error) = self.writer.refusal(partition) {
                for batch in batches {
                    for (key_size, value_size) in record_sizes(batch.as_bytes()) {
                        self.report(Event::Failed(SendFailure {
                            partition,
                            key_size,
                            value_size,
                            error: error.clone(),
                        }));
                    }
                    self.give_back(batch);
                }
                self.acknowledge();
                continue;
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

/// A sealed batch finished for sending: compressed if it is still to be (as Kafka's sender
/// closes a `ProducerBatch`), the compression-ratio estimate moved by what it achieved.
pub(super) fn finish(
    batch: Closing,
    tp: impl Fn() -> TopicPartition,
    compression_estimate: &AtomicU32,
) -> Result<BuiltBatch, ProduceError> {
    let batch = match batch {
        Closing::Built(batch) => batch,
        Closing::ToCompress(builder) => builder
            .seal()
            .map_err(|source| ProduceError::Compress { tp: tp(), source })?,
    };
    if batch.compression() != Compression::None {
        let current = f32::from_bits(compression_estimate.load(Ordering::Relaxed));
        let next = updated_compression_estimate(current, batch.compression_ratio());
        compression_estimate.store(next.to_bits(), Ordering::Relaxed);
    }
    Ok(batch)
}

/// Key and value sizes (-1 for null) of each record of a batch, for failure reports.
pub(super) fn record_sizes(batch: &[u8]) -> Vec<(i32, i32)> {
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
