//! The sender thread of a producer writing to a cluster (`--bootstrap-server`): the batches
//! the accumulator sealed, finished as for a log ([`super::sender::finish`]), go to the
//! partitions' leaders through a [`ClusterSink`], which keeps up to
//! `max.in.flight.requests.per.connection` Produce requests in flight on each connection;
//! what each broker answered comes back, group by group in the order sent, as the same
//! [`Event`]s a log's writes give.

use std::collections::VecDeque;
use std::sync::atomic::AtomicU32;
use std::sync::mpsc::{self, TryRecvError};
use std::sync::Arc;

use crate::common::TopicPartition;
use crate::net::produce::{Answered, ClusterSink};

use super::accumulator::Sealed;
use super::sender::{finish, record_sizes, Reply, Request};
use super::{Callback, Event, ProduceError, RecordMetadata, SendFailure};

pub(super) struct RemoteSender {
    pub(super) sink: ClusterSink,
    pub(super) topic: String,
    pub(super) replies: mpsc::Sender<Reply>,
    pub(super) free: mpsc::Sender<Vec<u8>>,
    pub(super) compression_estimate: Arc<AtomicU32>,
    pub(super) callback: Option<Callback>,
}

/// Each in-flight group's records' timestamps (when they are reported), in the order sent.
type Timestamps = VecDeque<Vec<Option<Vec<i64>>>>;

impl RemoteSender {
    /// Serves requests until the producer hangs up. While groups are in flight, a request
    /// not there yet is no reason to wait: the oldest group's answers are read meanwhile.
    /// After a fatal error (the cluster cannot be reached) batches are dropped, never
    /// acknowledged.
    pub(super) fn run(mut self, requests: mpsc::Receiver<Request>) -> Result<(), ProduceError> {
        let mut failed = false;
        let mut timestamps: Timestamps = VecDeque::new();
        loop {
            let request = if failed || self.sink.in_flight() == 0 {
                match requests.recv() {
                    Ok(request) => request,
                    Err(_) => break,
                }
            } else {
                match requests.try_recv() {
                    Ok(request) => request,
                    Err(TryRecvError::Empty) => {
                        if let Err(e) = self.complete_one(&mut timestamps) {
                            failed = true;
                            if self.replies.send(Reply::Fatal(e)).is_err() {
                                break;
                            }
                        }
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => break,
                }
            };
            let reply = match request {
                Request::Append(_) if failed => continue,
                Request::Append(group) => match self.submit(group, &mut timestamps) {
                    Ok(()) => continue,
                    Err(e) => {
                        failed = true;
                        Reply::Fatal(e)
                    }
                },
                // Nothing was sent since the failure was reported.
                Request::Sync if failed => Reply::Synced,
                Request::Sync => match self.complete_all(&mut timestamps) {
                    Ok(()) => Reply::Synced,
                    Err(e) => {
                        failed = true;
                        Reply::Fatal(e)
                    }
                },
                Request::RecoveryPoint(_) => Reply::RecoveryPoint(Err(ProduceError::Sender(
                    "a cluster's partitions have no recovery point a client can read".into(),
                ))),
            };
            if self.replies.send(reply).is_err() {
                return Ok(());
            }
        }
        // The producer hung up: what is in flight is still answered and reported.
        if !failed {
            if let Err(e) = self.complete_all(&mut timestamps) {
                let _ = self.replies.send(Reply::Fatal(e));
            }
        }
        Ok(())
    }

    /// Finishes the group's batches and sends them.
    fn submit(
        &mut self,
        group: Vec<Sealed>,
        timestamps: &mut Timestamps,
    ) -> Result<(), ProduceError> {
        let mut batches = Vec::with_capacity(group.len());
        let mut times = Vec::with_capacity(group.len());
        for sealed in group {
            let partition = sealed.partition;
            let tp = || TopicPartition::new(self.topic.as_str(), partition);
            batches.push((
                partition,
                finish(sealed.batch, tp, &self.compression_estimate)?,
            ));
            times.push(sealed.timestamps);
        }
        timestamps.push_back(times);
        self.sink.submit(batches)?;
        Ok(())
    }

    /// Waits for every group in flight and reports them.
    fn complete_all(&mut self, timestamps: &mut Timestamps) -> Result<(), ProduceError> {
        while self.sink.in_flight() > 0 {
            self.complete_one(timestamps)?;
        }
        Ok(())
    }

    /// Waits for the oldest group in flight and reports what became of its records.
    fn complete_one(&mut self, timestamps: &mut Timestamps) -> Result<(), ProduceError> {
        let Some(answered) = self.sink.complete()? else {
            return Ok(());
        };
        let times = timestamps.pop_front().unwrap_or_default();
        self.report(answered, times);
        Ok(())
    }

    fn report(&mut self, answered: Answered, timestamps: Vec<Option<Vec<i64>>>) {
        let mut events = Vec::new();
        let mut timestamps = timestamps.into_iter();
        for (partition, batch, outcome) in answered {
            let timestamps = timestamps.next().flatten();
            match outcome {
                Ok(appended) => {
                    for (i, ts) in (0..).zip(timestamps.iter().flatten()) {
                        events.push(Event::Written(RecordMetadata {
                            partition,
                            offset: if appended.base_offset < 0 {
                                -1
                            } else {
                                appended.base_offset + i
                            },
                            timestamp: if appended.log_append_time >= 0 {
                                appended.log_append_time
                            } else {
                                *ts
                            },
                        }));
                    }
                }
                Err(error) => {
                    for (key_size, value_size) in record_sizes(batch.as_bytes()) {
                        events.push(Event::Failed(SendFailure {
                            partition,
                            key_size,
                            value_size,
                            error: error.to_string(),
                        }));
                    }
                }
            }
            // The producer may be gone (dropped): the buffer is then simply freed.
            let _ = self.free.send(batch.into_bytes());
        }
        match &mut self.callback {
            Some(callback) => {
                if !events.is_empty() {
                    callback(&events);
                }
            }
            None => {
                for event in events {
                    let _ = self.replies.send(Reply::Event(event));
                }
            }
        }
    }
}
