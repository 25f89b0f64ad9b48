//! What `delete-records` and `log-dirs` ask of a cluster, as Kafka's `Admin` asks it:
//! DeleteRecords to each partition's leader (`deleteRecords`: the leaders from Metadata, one
//! request per leader, Kafka's `DeleteRecordsHandler` retries), and DescribeLogDirs to each
//! broker (`describeLogDirs`), answered as the data directory's
//! [`crate::datadir::log_dirs::LogDirDescription`]s so that one printer
//! shows both.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

use kafka_protocol::messages::delete_records_request::{
    DeleteRecordsPartition, DeleteRecordsTopic,
};
use kafka_protocol::messages::{
    DeleteRecordsRequest, DeleteRecordsResponse, DescribeLogDirsRequest, DescribeLogDirsResponse,
    TopicName,
};
use kafka_protocol::protocol::StrBytes;

use crate::common::TopicPartition;
use crate::datadir::log_dirs::{LogDirDescription, ReplicaInfo};

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::NetError;

/// What DeleteRecords answered for one partition: its low watermark (log start offset) now,
/// or why not (Kafka's exception: the error code's default message, as Kafka's admin client
/// makes it; a timeout when its leader could not be found in time).
pub type DeletedRecords = Result<i64, NetError>;

/// The Admin client's call names, which its timeout message shows.
const LOOKUP_CALL: &str = "deleteRecords(api=METADATA)";
const DELETE_CALL: &str = "deleteRecords(api=DELETE_RECORDS)";

/// Where a partition of a DeleteRecords stands between rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Its leader is to be looked up (again).
    Lookup,
    /// Its leader answered a retriable error, or the connection to it broke: the request is
    /// to be sent to it again.
    Resend(i32),
}

/// Kafka's `InvalidMetadataException`s: the partition's leader is to be looked up again.
fn invalid_metadata(code: i16) -> bool {
    // UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
    // KAFKA_STORAGE_ERROR, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH.
    matches!(code, 3 | 5 | 6 | 56 | 74 | 76)
}

/// Kafka's other `RetriableException`s: the same leader is asked again.
fn retriable(code: i16) -> bool {
    // REQUEST_TIMED_OUT, NETWORK_EXCEPTION, NOT_ENOUGH_REPLICAS(_AFTER_APPEND).
    matches!(code, 7 | 13 | 19 | 20)
}

/// Each partition's answer in a DeleteRecords response: its low watermark, or its error code
/// as Kafka's client shows it (`Errors.exception()`: the code's default message, since the
/// answer carries none).
fn answers(response: DeleteRecordsResponse) -> BTreeMap<TopicPartition, Result<i64, KafkaError>> {
    let mut out = BTreeMap::new();
    for topic in response.topics {
        for p in topic.partitions {
            let tp = TopicPartition::new(topic.name.0.as_str(), p.partition_index);
            let answer = match KafkaError::from_code(p.error_code, None) {
                Some(e) => Err(e),
                None => Ok(p.low_watermark),
            };
            out.insert(tp, answer);
        }
    }
    out
}

fn topic_name(s: &str) -> TopicName {
    TopicName(StrBytes::from_string(s.to_string()))
}

impl Cluster {
    /// Deletes the records of each partition below its offset (`-1`: the high watermark, which
    /// the broker resolves), as Kafka's `Admin.deleteRecords` does: each partition's leader
    /// from Metadata, one DeleteRecords per leader; a partition whose leader is unknown (its
    /// topic or partition does not exist, no leader now) or moved is looked up again after a
    /// backoff, and one whose leader answered a retriable error is asked again, until
    /// `default.api.timeout.ms`, when it fails with Kafka's `Timed out waiting for a node
    /// assignment. Call: deleteRecords(api=METADATA)`. Each partition gets its own answer.
    ///
    /// The error is a failure of the whole call (no broker reachable, a refused login), which
    /// Kafka's client reports for every partition.
    pub fn delete_records(
        &mut self,
        offsets: &BTreeMap<TopicPartition, i64>,
    ) -> Result<BTreeMap<TopicPartition, DeletedRecords>, NetError> {
        let deadline = Instant::now() + self.config().api_timeout;
        let mut out: BTreeMap<TopicPartition, DeletedRecords> = BTreeMap::new();
        let mut pending: BTreeMap<TopicPartition, Stage> = offsets
            .keys()
            .map(|tp| (tp.clone(), Stage::Lookup))
            .collect();
        let mut attempt = 0;
        loop {
            let mut by_leader: BTreeMap<i32, Vec<TopicPartition>> = BTreeMap::new();
            let lookups: Vec<&TopicPartition> = pending
                .iter()
                .filter(|(_, s)| **s == Stage::Lookup)
                .map(|(tp, _)| tp)
                .collect();
            if !lookups.is_empty() {
                let mut topics: Vec<&str> = lookups.iter().map(|tp| tp.topic()).collect();
                topics.sort_unstable();
                topics.dedup();
                match self.leaders(&topics, false, LOOKUP_CALL) {
                    Ok(leaders) => {
                        for tp in lookups {
                            if let Some(Some(leader)) = leaders.get(tp) {
                                by_leader.entry(*leader).or_default().push(tp.clone());
                            }
                        }
                    }
                    Err(e) if e.is_retriable() => {}
                    Err(e) => return Err(e),
                }
            }
            for (tp, stage) in &pending {
                if let Stage::Resend(leader) = stage {
                    by_leader.entry(*leader).or_default().push(tp.clone());
                }
            }
            for (leader, tps) in by_leader {
                let answers = match self.delete_records_at(leader, &tps, offsets) {
                    Ok(answers) => answers,
                    // A broken connection: Kafka's call is sent to the same broker again
                    // (on a new connection) after a backoff.
                    Err(e) if e.is_retriable() => {
                        self.drop_connection(leader);
                        for tp in tps {
                            pending.insert(tp, Stage::Resend(leader));
                        }
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                for tp in tps {
                    let stage = match answers.get(&tp) {
                        Some(Ok(low_watermark)) => {
                            pending.remove(&tp);
                            out.insert(tp, Ok(*low_watermark));
                            continue;
                        }
                        Some(Err(e)) if invalid_metadata(e.code) => Stage::Lookup,
                        Some(Err(e)) if retriable(e.code) => Stage::Resend(leader),
                        Some(Err(e)) => {
                            pending.remove(&tp);
                            out.insert(tp, Err(NetError::Kafka(e.clone())));
                            continue;
                        }
                        None => {
                            pending.remove(&tp);
                            out.insert(
                                tp.clone(),
                                Err(NetError::Protocol {
                                    api: "DeleteRecords",
                                    node: leader,
                                    message: format!(
                                        "The response from broker {leader} did not contain a result for topic partition {tp}"
                                    ),
                                }),
                            );
                            continue;
                        }
                    };
                    pending.insert(tp, stage);
                }
            }
            if pending.is_empty() {
                return Ok(out);
            }
            let wait = self.config().backoff(attempt);
            if Instant::now() + wait >= deadline {
                for (tp, stage) in pending {
                    let call = match stage {
                        Stage::Lookup => LOOKUP_CALL,
                        Stage::Resend(_) => DELETE_CALL,
                    };
                    out.insert(
                        tp,
                        Err(NetError::Timeout {
                            message: format!(
                                "Timed out waiting for a node assignment. Call: {call}"
                            ),
                            unreachable: None,
                        }),
                    );
                }
                return Ok(out);
            }
            std::thread::sleep(wait);
            attempt += 1;
        }
    }

    /// One DeleteRecords to `leader` for `partitions`: each partition's low watermark or
    /// error code (DeleteRecords answers carry no message: Kafka's client shows the code's).
    fn delete_records_at(
        &mut self,
        leader: i32,
        partitions: &[TopicPartition],
        offsets: &BTreeMap<TopicPartition, i64>,
    ) -> Result<BTreeMap<TopicPartition, Result<i64, KafkaError>>, NetError> {
        let mut topics: BTreeMap<&str, Vec<DeleteRecordsPartition>> = BTreeMap::new();
        for tp in partitions {
            topics.entry(tp.topic()).or_default().push(
                DeleteRecordsPartition::default()
                    .with_partition_index(tp.partition)
                    .with_offset(offsets.get(tp).copied().unwrap_or(-1)),
            );
        }
        let timeout = i32::try_from(self.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let request = DeleteRecordsRequest::default()
            .with_timeout_ms(timeout)
            .with_topics(
                topics
                    .into_iter()
                    .map(|(name, ps)| {
                        DeleteRecordsTopic::default()
                            .with_name(topic_name(name))
                            .with_partitions(ps)
                    })
                    .collect(),
            );
        Ok(answers(self.node(leader)?.call(&request)?))
    }

    /// The ids of the cluster's brokers, sorted (Kafka's `describeCluster().nodes()`, a call
    /// named `listNodes`), from a Metadata request of no topics.
    pub fn broker_nodes(&mut self) -> Result<Vec<i32>, NetError> {
        self.with_retries(|c| c.metadata(Some(&[]), false, "listNodes"))?;
        Ok(self.broker_ids())
    }

    /// Broker `broker`'s log directories (DescribeLogDirs of every topic, as Kafka's
    /// `describeLogDirs` asks), sorted by path, each with its replicas of `topics` (all when
    /// empty; filtered here, as Kafka's tool filters) sorted by partition. A broker without
    /// DescribeLogDirs is [`NetError::UnsupportedApi`], Kafka's `UnsupportedVersionException`;
    /// a broker that describes no directory refuses the caller, Kafka's
    /// `ClusterAuthorizationException` (or the answer's own error, from v3).
    pub fn describe_log_dirs(
        &mut self,
        broker: i32,
        topics: &BTreeSet<String>,
    ) -> Result<Vec<LogDirDescription>, NetError> {
        let request = DescribeLogDirsRequest::default().with_topics(None);
        let response = self.with_retries(|c| c.node(broker)?.call(&request))?;
        log_dirs(response, topics)
    }
}

/// A DescribeLogDirs answer as the data directory's descriptions: the directories sorted by
/// path, each one's replicas of `topics` (all when empty) by partition, a directory's error
/// as the Java class Kafka's tool prints. No directory at all is the answer's error (v3 on),
/// or Kafka's `ClusterAuthorizationException` (the caller may not describe the cluster).
fn log_dirs(
    response: DescribeLogDirsResponse,
    topics: &BTreeSet<String>,
) -> Result<Vec<LogDirDescription>, NetError> {
    if response.results.is_empty() {
        let code = if response.error_code == 0 {
            31
        } else {
            response.error_code
        };
        return Err(NetError::Kafka(KafkaError {
            code,
            message: None,
        }));
    }
    let mut dirs: Vec<LogDirDescription> = response
        .results
        .into_iter()
        .map(|result| {
            let mut replicas: Vec<ReplicaInfo> = result
                .topics
                .iter()
                .filter(|t| topics.is_empty() || topics.contains(t.name.0.as_str()))
                .flat_map(|t| {
                    t.partitions.iter().map(|p| ReplicaInfo {
                        tp: TopicPartition::new(t.name.0.as_str(), p.partition_index),
                        size: u64::try_from(p.partition_size).unwrap_or(0),
                        offset_lag: p.offset_lag,
                        is_future: p.is_future_key,
                    })
                })
                .collect();
            replicas.sort_by(|a, b| (&a.tp, a.is_future).cmp(&(&b.tp, b.is_future)));
            LogDirDescription {
                log_dir: PathBuf::from(result.log_dir.as_str()),
                replicas,
                error: KafkaError::from_code(result.error_code, None)
                    .map(|e| format!("org.apache.kafka.common.errors.{}", e.exception())),
            }
        })
        .collect();
    dirs.sort_by(|a, b| a.log_dir.cmp(&b.log_dir));
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_protocol::messages::delete_records_response::{
        DeleteRecordsPartitionResult, DeleteRecordsTopicResult,
    };

    /// What kafkit prints for each answer a Kafka broker gives (Tansu 0.6 cannot give them: its
    /// in-memory storage panics on DeleteRecords): the low watermark, or the code's default
    /// message as Kafka's `DeleteRecordsHandler` makes it (`error.exception()`).
    #[test]
    fn a_brokers_answers_as_kafkas_client_shows_them() {
        let partition = |index: i32, low_watermark: i64, error_code: i16| {
            DeleteRecordsPartitionResult::default()
                .with_partition_index(index)
                .with_low_watermark(low_watermark)
                .with_error_code(error_code)
        };
        let response =
            DeleteRecordsResponse::default().with_topics(vec![DeleteRecordsTopicResult::default()
                .with_name(topic_name("t"))
                .with_partitions(vec![
                    partition(0, 4, 0),
                    partition(1, -1, 1),
                    partition(2, -1, 44),
                ])]);
        let shown: Vec<(String, Result<i64, String>)> = answers(response)
            .into_iter()
            .map(|(tp, r)| {
                (
                    tp.to_string(),
                    r.map_err(|e| NetError::Kafka(e).java_exception()),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("t-0".to_string(), Ok(4)),
                (
                    "t-1".to_string(),
                    Err("org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.".to_string())
                ),
                (
                    "t-2".to_string(),
                    Err("org.apache.kafka.common.errors.PolicyViolationException: Request parameters do not satisfy the configured policy.".to_string())
                ),
            ]
        );
        assert!(invalid_metadata(6) && invalid_metadata(3) && !invalid_metadata(1));
        assert!(retriable(7) && !retriable(1));
    }

    /// A Kafka broker's DescribeLogDirs answer (Tansu 0.6 has none), printed by the printer a
    /// data directory's description goes through: Kafka's JSON line, its directories and
    /// partitions sorted, the offline directory's error class, the topic filter applied.
    #[test]
    fn a_brokers_log_dirs_print_as_kafkas_tool_prints_them() {
        use kafka_protocol::messages::describe_log_dirs_response::{
            DescribeLogDirsPartition, DescribeLogDirsResult, DescribeLogDirsTopic,
        };
        let partition = |index: i32, size: i64, lag: i64, future: bool| {
            DescribeLogDirsPartition::default()
                .with_partition_index(index)
                .with_partition_size(size)
                .with_offset_lag(lag)
                .with_is_future_key(future)
        };
        let response = DescribeLogDirsResponse::default().with_results(vec![
            DescribeLogDirsResult::default()
                .with_log_dir(StrBytes::from_static_str("/var/kafka/b"))
                .with_topics(vec![
                    DescribeLogDirsTopic::default()
                        .with_name(topic_name("t"))
                        .with_partitions(vec![
                            partition(1, 70, 2, false),
                            partition(0, 140, 0, false),
                        ]),
                    DescribeLogDirsTopic::default()
                        .with_name(topic_name("other"))
                        .with_partitions(vec![partition(0, 1, 0, false)]),
                ]),
            DescribeLogDirsResult::default()
                .with_log_dir(StrBytes::from_static_str("/var/kafka/a"))
                .with_error_code(56),
        ]);
        let dirs = log_dirs(response, &BTreeSet::from(["t".to_string()])).unwrap();
        assert_eq!(
            crate::output::log_dirs::kafka_json_line(&[(3, dirs)]).unwrap(),
            r#"{"brokers":[{"broker":3,"logDirs":[{"partitions":[],"error":"org.apache.kafka.common.errors.KafkaStorageException","logDir":"/var/kafka/a"},{"partitions":[{"partition":"t-0","size":140,"offsetLag":0,"isFuture":false},{"partition":"t-1","size":70,"offsetLag":2,"isFuture":false}],"error":null,"logDir":"/var/kafka/b"}]}],"version":1}"#
        );
        // No directory: the caller may not describe the cluster.
        let refused = log_dirs(DescribeLogDirsResponse::default(), &BTreeSet::new()).unwrap_err();
        assert_eq!(
            refused.java_exception(),
            "org.apache.kafka.common.errors.ClusterAuthorizationException: Cluster authorization failed."
        );
    }
}
