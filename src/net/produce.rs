//! Produce requests: record batches built by kafkit's own producer (`client::producer`, the
//! same accumulator, codecs and partitioners as for a data directory) sent to each
//! partition's leader, with `acks`, and idempotence (InitProducerId, then a producer id,
//! epoch and per-partition sequence numbers set in each batch before it is first sent).

use std::collections::BTreeMap;
use std::time::Instant;

use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{InitProducerIdRequest, ProduceRequest, ProducerId, TopicName};
use kafka_protocol::protocol::StrBytes;

use crate::record::{increment_sequence, set_producer_state, BuiltBatch};

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::NetError;

/// Where a batch went: its base offset and the broker's append time (-1: CreateTime), or
/// -1 and -1 with `acks=0`, which has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    /// The offset of the batch's first record.
    pub base_offset: i64,
    /// `LogAppendTime` topics: the broker's time, else -1.
    pub log_append_time: i64,
}

/// A topic's partitions as a producer writes them over the network.
#[derive(Debug)]
pub struct ClusterSink {
    cluster: Cluster,
    topic: String,
    partitions: i32,
    acks: i16,
    /// `(producer id, epoch)` once InitProducerId answered (`enable.idempotence`).
    producer: Option<(i64, i16)>,
    /// The next sequence number of each partition.
    sequences: BTreeMap<i32, i32>,
    leaders: BTreeMap<i32, i32>,
}

impl ClusterSink {
    /// Looks `topic` up (the broker may create it, as Kafka's `auto.create.topics.enable`
    /// does), waiting up to `max.block.ms` for it and its leaders (Kafka's `Topic <t> not
    /// present in metadata after <n> ms.`), and with `idempotent` asks for a producer id.
    pub fn open(
        mut cluster: Cluster,
        topic: &str,
        acks: i16,
        idempotent: bool,
    ) -> Result<Self, NetError> {
        let deadline = Instant::now() + cluster.config().api_timeout;
        let mut attempt = 0;
        let absent = |cluster: &Cluster| {
            format!(
                "Topic {topic} not present in metadata after {} ms.",
                cluster.config().api_timeout.as_millis()
            )
        };
        let leaders = loop {
            let found = match cluster.with_retries(|c| c.leaders(&[topic], true, "produce")) {
                Ok(found) => found,
                // Kafka's producer says what it waited for, whatever kept it waiting.
                Err(NetError::Timeout { unreachable, .. }) => {
                    return Err(NetError::Timeout {
                        message: absent(&cluster),
                        unreachable,
                    })
                }
                Err(e) => return Err(e),
            };
            let leaders: BTreeMap<i32, i32> = found
                .iter()
                .filter_map(|(tp, leader)| Some((tp.partition, (*leader)?)))
                .collect();
            if !found.is_empty() && leaders.len() == found.len() {
                break leaders;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout {
                    message: absent(&cluster),
                    unreachable: None,
                });
            }
            std::thread::sleep(cluster.config().backoff(attempt).min(left));
            attempt += 1;
        };
        let producer = if idempotent {
            let timeout =
                i32::try_from(cluster.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
            let request = InitProducerIdRequest::default()
                .with_transaction_timeout_ms(timeout)
                .with_producer_id(ProducerId(-1))
                .with_producer_epoch(-1);
            let response = cluster.with_retries(|c| c.any("initProducerId")?.call(&request))?;
            if let Some(e) = KafkaError::from_code(response.error_code, None) {
                return Err(e.into());
            }
            Some((response.producer_id.0, response.producer_epoch))
        } else {
            None
        };
        Ok(ClusterSink {
            cluster,
            topic: topic.to_string(),
            partitions: i32::try_from(leaders.len()).unwrap_or(i32::MAX),
            acks,
            producer,
            sequences: BTreeMap::new(),
            leaders,
        })
    }

    /// The topic's partition count.
    pub fn partitions(&self) -> i32 {
        self.partitions
    }

    /// Sets the producer state of a batch about to be sent for the first time (idempotence),
    /// and counts its records into the partition's sequence.
    fn stamp(&mut self, partition: i32, batch: &mut BuiltBatch) -> Result<(), NetError> {
        let Some((pid, epoch)) = self.producer else {
            return Ok(());
        };
        let next = self.sequences.entry(partition).or_insert(0);
        let records = batch.records_count();
        set_producer_state(batch.as_mut_bytes(), pid, epoch, *next).map_err(|e| {
            NetError::Encode {
                api: "Produce",
                message: e.to_string(),
            }
        })?;
        *next = increment_sequence(*next, records);
        Ok(())
    }

    /// Sends `batches` (partition, batch; a partition's in order), each partition's to its
    /// leader, one Produce request per leader, and returns each batch's outcome in the order
    /// given. A partition whose leader moved or is not known yet is sent again after a
    /// metadata refresh (with the same sequence numbers: the broker drops a duplicate) until
    /// `default.api.timeout.ms`; other errors are that batch's outcome.
    pub fn send(
        &mut self,
        batches: &mut [(i32, BuiltBatch)],
    ) -> Result<Vec<Result<Appended, KafkaError>>, NetError> {
        for (partition, batch) in batches.iter_mut() {
            self.stamp(*partition, batch)?;
        }
        let mut outcomes: Vec<Option<Result<Appended, KafkaError>>> = vec![None; batches.len()];
        let started = Instant::now();
        let deadline = started + self.cluster.config().api_timeout;
        let mut attempt = 0;
        loop {
            let pending: Vec<usize> = (0..batches.len())
                .filter(|i| !matches!(outcomes.get(*i), Some(Some(Ok(_)))))
                .collect();
            let mut retry = false;
            let mut by_leader: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
            for i in pending {
                let Some((partition, _)) = batches.get(i) else {
                    continue;
                };
                match self.leaders.get(partition) {
                    Some(leader) => by_leader.entry(*leader).or_default().push(i),
                    None => retry = true,
                }
            }
            for (leader, indexes) in by_leader {
                match self.send_to(leader, batches, &indexes) {
                    Ok(answers) => {
                        for (i, answer) in indexes.iter().zip(answers) {
                            retry |= matches!(&answer, Err(e) if e.is_metadata_retriable());
                            if let Some(slot) = outcomes.get_mut(*i) {
                                *slot = Some(answer);
                            }
                        }
                    }
                    Err(e) if e.is_retriable() => {
                        self.cluster.drop_connection(leader);
                        retry = true;
                    }
                    Err(e) => return Err(e),
                }
            }
            let unsettled = outcomes.iter().any(|o| match o {
                None => true,
                Some(Err(e)) => e.is_metadata_retriable(),
                Some(Ok(_)) => false,
            });
            if !retry && !unsettled {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(self.cluster.config().backoff(attempt).min(left));
            attempt += 1;
            let topic = self.topic.clone();
            match self
                .cluster
                .with_retries(|c| c.leaders(&[topic.as_str()], false, "produce"))
            {
                Ok(found) => {
                    self.leaders = found
                        .iter()
                        .filter_map(|(tp, leader)| Some((tp.partition, (*leader)?)))
                        .collect();
                }
                // No broker answers: what is not acknowledged expires, as in Kafka's producer.
                Err(NetError::Timeout { .. }) => break,
                Err(e) => return Err(e),
            }
        }
        // What was never answered expires, with Kafka's message.
        let waited = started.elapsed().as_millis();
        Ok(outcomes
            .into_iter()
            .zip(batches.iter())
            .map(|(outcome, (partition, batch))| match outcome {
                Some(Ok(appended)) => Ok(appended),
                Some(Err(e)) if !e.is_metadata_retriable() => Err(e),
                _ => Err(KafkaError {
                    code: 7,
                    message: Some(format!(
                        "Expiring {} record(s) for {}-{partition}:{waited} ms has passed since batch creation",
                        batch.records_count(),
                        self.topic
                    )),
                }),
            })
            .collect())
    }

    /// One Produce request to `leader` for the batches at `indexes`; their outcomes in order.
    fn send_to(
        &mut self,
        leader: i32,
        batches: &[(i32, BuiltBatch)],
        indexes: &[usize],
    ) -> Result<Vec<Result<Appended, KafkaError>>, NetError> {
        // A partition's batches travel as one records field, in order.
        let mut by_partition: BTreeMap<i32, Vec<u8>> = BTreeMap::new();
        for i in indexes {
            if let Some((partition, batch)) = batches.get(*i) {
                by_partition
                    .entry(*partition)
                    .or_default()
                    .extend_from_slice(batch.as_bytes());
            }
        }
        let timeout =
            i32::try_from(self.cluster.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let request = ProduceRequest::default()
            .with_acks(self.acks)
            .with_timeout_ms(timeout)
            .with_topic_data(vec![TopicProduceData::default()
                .with_name(TopicName(StrBytes::from_string(self.topic.clone())))
                .with_partition_data(
                    by_partition
                        .into_iter()
                        .map(|(p, bytes)| {
                            PartitionProduceData::default()
                                .with_index(p)
                                .with_records(Some(Bytes::from(bytes)))
                        })
                        .collect(),
                )]);
        let conn = self.cluster.node(leader)?;
        if self.acks == 0 {
            conn.send_oneway(&request)?;
            let none = Appended {
                base_offset: -1,
                log_append_time: -1,
            };
            return Ok(indexes.iter().map(|_| Ok(none)).collect());
        }
        let response = conn.call(&request)?;
        let mut answers: BTreeMap<i32, Result<Appended, KafkaError>> = BTreeMap::new();
        for topic in response.responses {
            for p in topic.partition_responses {
                let answer = match KafkaError::from_code(
                    p.error_code,
                    p.error_message.as_ref().map(StrBytes::as_str),
                ) {
                    Some(e) => Err(e),
                    None => Ok(Appended {
                        base_offset: p.base_offset,
                        log_append_time: p.log_append_time_ms,
                    }),
                };
                answers.insert(p.index, answer);
            }
        }
        // Each batch's offset: its partition's base offset plus the records before it in
        // the same request.
        let mut next: BTreeMap<i32, i64> = BTreeMap::new();
        Ok(indexes
            .iter()
            .filter_map(|i| batches.get(*i))
            .map(|(partition, batch)| {
                let answer = answers.get(partition).cloned().unwrap_or(Err(KafkaError {
                    code: -1,
                    message: None,
                }))?;
                let offset = next.entry(*partition).or_insert(answer.base_offset);
                let this = Appended {
                    base_offset: *offset,
                    ..answer
                };
                *offset += i64::from(batch.last_offset_delta()) + 1;
                Ok(this)
            })
            .collect())
    }
}
