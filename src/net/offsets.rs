//! Offsets from a cluster: ListOffsets to each partition's leader (what `get-offsets` and a
//! consumer's `auto.offset.reset` ask), with Kafka's retries when a leader moved or is not
//! known yet.

use std::collections::BTreeMap;
use std::time::Instant;

use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_protocol::messages::{BrokerId, ListOffsetsRequest, TopicName};
use kafka_protocol::protocol::StrBytes;

use crate::common::TopicPartition;

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::NetError;

/// What ListOffsets answered for one partition: an offset, none (`-1`: no record matches the
/// timestamp), or the partition's error.
pub type ListedOffset = Result<Option<i64>, KafkaError>;

impl Cluster {
    /// The leaders of `topics`' partitions, by partition (`None`: no leader now), and the
    /// partition counts; a topic the cluster does not know is absent.
    pub fn leaders(
        &mut self,
        topics: &[&str],
        auto_create: bool,
        call: &str,
    ) -> Result<BTreeMap<TopicPartition, Option<i32>>, NetError> {
        let response = self.metadata(Some(topics), auto_create, call)?;
        let mut out = BTreeMap::new();
        for topic in response.topics {
            let Some(name) = topic.name else { continue };
            if topic.error_code != 0 {
                continue;
            }
            for p in topic.partitions {
                let leader = (p.error_code == 0 || p.error_code == 9)
                    .then_some(p.leader_id.0)
                    .filter(|l| *l >= 0);
                out.insert(
                    TopicPartition::new(name.0.as_str(), p.partition_index),
                    leader,
                );
            }
        }
        Ok(out)
    }

    /// ListOffsets for each partition at `timestamp` (Kafka's: -1 latest, -2 earliest, -3
    /// max timestamp, -4 earliest local, -5 latest tiered, else the first offset whose
    /// timestamp is at least it), each asked of its leader. A partition whose leader is
    /// unknown or moved is asked again after a metadata refresh and a backoff, until
    /// `default.api.timeout.ms`; then it answers its last error.
    pub fn list_offsets(
        &mut self,
        partitions: &[TopicPartition],
        timestamp: i64,
    ) -> Result<BTreeMap<TopicPartition, ListedOffset>, NetError> {
        let deadline = Instant::now() + self.config().api_timeout;
        let mut out: BTreeMap<TopicPartition, ListedOffset> = BTreeMap::new();
        let mut pending: Vec<TopicPartition> = partitions.to_vec();
        let mut attempt = 0;
        while !pending.is_empty() {
            let mut topics: Vec<&str> = pending.iter().map(TopicPartition::topic).collect();
            topics.sort_unstable();
            topics.dedup();
            let leaders = self.with_retries(|c| c.leaders(&topics, false, "listOffsets"))?;
            let mut by_leader: BTreeMap<i32, Vec<TopicPartition>> = BTreeMap::new();
            let mut retry = Vec::new();
            for tp in pending.drain(..) {
                match leaders.get(&tp) {
                    Some(Some(leader)) => by_leader.entry(*leader).or_default().push(tp),
                    Some(None) => {
                        out.insert(
                            tp.clone(),
                            Err(KafkaError {
                                code: 5,
                                message: None,
                            }),
                        );
                        retry.push(tp);
                    }
                    None => {
                        out.insert(
                            tp.clone(),
                            Err(KafkaError {
                                code: 3,
                                message: None,
                            }),
                        );
                        retry.push(tp);
                    }
                }
            }
            for (leader, tps) in by_leader {
                match self.list_offsets_at(leader, &tps, timestamp) {
                    Ok(answers) => {
                        for (tp, answer) in answers {
                            if matches!(&answer, Err(e) if e.is_metadata_retriable()) {
                                retry.push(tp.clone());
                            }
                            out.insert(tp, answer);
                        }
                    }
                    Err(e) if e.is_retriable() => {
                        self.drop_connection(leader);
                        retry.extend(tps);
                    }
                    Err(e) => return Err(e),
                }
            }
            let wait = self.config().backoff(attempt);
            if retry.is_empty() || Instant::now() + wait >= deadline {
                break;
            }
            std::thread::sleep(wait);
            attempt += 1;
            pending = retry;
        }
        Ok(out)
    }

    fn list_offsets_at(
        &mut self,
        leader: i32,
        partitions: &[TopicPartition],
        timestamp: i64,
    ) -> Result<Vec<(TopicPartition, ListedOffset)>, NetError> {
        let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for tp in partitions {
            topics.entry(tp.topic()).or_default().push(tp.partition);
        }
        let timeout = i32::try_from(self.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let request = ListOffsetsRequest::default()
            .with_replica_id(BrokerId(-1))
            .with_timeout_ms(timeout)
            .with_topics(
                topics
                    .iter()
                    .map(|(name, ps)| {
                        ListOffsetsTopic::default()
                            .with_name(TopicName(StrBytes::from_string((*name).to_string())))
                            .with_partitions(
                                ps.iter()
                                    .map(|p| {
                                        ListOffsetsPartition::default()
                                            .with_partition_index(*p)
                                            .with_current_leader_epoch(-1)
                                            .with_timestamp(timestamp)
                                    })
                                    .collect(),
                            )
                    })
                    .collect(),
            );
        let response = self.node(leader)?.call(&request)?;
        let mut out = Vec::new();
        for topic in response.topics {
            for p in topic.partitions {
                let tp = TopicPartition::new(topic.name.0.as_str(), p.partition_index);
                let answer = match KafkaError::from_code(p.error_code, None) {
                    Some(e) => Err(e),
                    None => Ok(Some(p.offset).filter(|o| *o >= 0)),
                };
                out.push((tp, answer));
            }
        }
        Ok(out)
    }
}
