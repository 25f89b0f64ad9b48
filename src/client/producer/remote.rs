//! The sender thread of a producer writing to a cluster (`--bootstrap-server`): the batches
//! the accumulator sealed, finished as for a log ([`super::sender::finish`]), go to the
//! partitions' leaders through a [`ClusterSink`], one hand-off group at a time; what each
//! broker answered comes back as the same [`Event`]s a log's writes give.

use std::sync::atomic::AtomicU32;
use std::sync::{mpsc, Arc};

use crate::common::TopicPartition;
use crate::net::produce::ClusterSink;

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

impl RemoteSender {
    /// Serves requests until the producer hangs up. After a fatal error (the cluster cannot
    /// be reached) batches are dropped, never acknowledged.
    pub(super) fn run(mut self, requests: mpsc::Receiver<Request>) -> Result<(), ProduceError> {
        let mut failed = false;
        for request in requests {
            let reply = match request {
                Request::Append(_) if failed => continue,
                Request::Append(group) => match self.send_group(group) {
                    Ok(()) => continue,
                    Err(e) => {
                        failed = true;
                        Reply::Fatal(e)
                    }
                },
                // Every group was answered before the next request was read.
                Request::Sync => Reply::Synced,
                Request::RecoveryPoint(_) => Reply::RecoveryPoint(Err(ProduceError::Sender(
                    "a cluster's partitions have no recovery point a client can read".into(),
                ))),
            };
            if self.replies.send(reply).is_err() {
                break;
            }
        }
        Ok(())
    }

    fn send_group(&mut self, group: Vec<Sealed>) -> Result<(), ProduceError> {
        let mut batches = Vec::with_capacity(group.len());
        let mut timestamps = Vec::with_capacity(group.len());
        for sealed in group {
            let partition = sealed.partition;
            let tp = || TopicPartition::new(self.topic.as_str(), partition);
            batches.push((
                partition,
                finish(sealed.batch, tp, &self.compression_estimate)?,
            ));
            timestamps.push(sealed.timestamps);
        }
        let outcomes = self.sink.send(&mut batches)?;
        let mut events = Vec::new();
        for (((partition, batch), timestamps), outcome) in
            batches.into_iter().zip(timestamps).zip(outcomes)
        {
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
        Ok(())
    }
}
