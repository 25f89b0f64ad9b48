//! `DeleteRecords` on a data directory (Kafka's `kafka-delete-records.sh`, `kafka-cli-surface.md`
//! §6.3): each partition's log start offset moves up to the offset asked, as a broker's
//! `ReplicaManager.deleteRecords` moves it, and `log-start-offset-checkpoint` records it.
//!
//! Nothing is removed from disk here: segments wholly below the new log start stay until
//! retention deletes them (Kafka leaves that to its `kafka-log-retention` task too). Readers
//! stop seeing the records at once: consumers start at the log start, `get-offsets --time -2`
//! answers it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{DataDir, DataDirError, PartitionWriter, Result};
use crate::common::TopicPartition;

/// `offset` in the JSON file meaning "up to the high watermark" (`DeleteRecordsRequest.HIGH_WATERMARK`).
pub const HIGH_WATERMARK: i64 = -1;

/// An `--offset-json-file` that Kafka's `DeleteRecordsCommand` refuses; displays as its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OffsetJsonError {
    /// Not JSON at all.
    #[error("The input string is not a valid JSON")]
    NotJson,
    /// No `partitions` field.
    #[error("Missing partitions field")]
    MissingPartitions,
    /// A `version` other than 1.
    #[error("Not supported version field value {0}")]
    UnsupportedVersion(i32),
    /// An entry without one of its fields.
    #[error("No such field exists: `{0}`")]
    MissingField(&'static str),
    /// A value of the wrong JSON type (Jackson's `JsonMappingException` text).
    #[error("Expected `{expected}` value, received {received}")]
    WrongType {
        /// What was expected: `Integer`, `Long`, `String`.
        expected: &'static str,
        /// The JSON found, compact.
        received: String,
    },
    /// Not an object or an array where one is due.
    #[error("Expected JSON {expected}, received {received}")]
    NotContainer {
        /// `object` or `array`.
        expected: &'static str,
        /// The JSON found, compact.
        received: String,
    },
    /// A partition named twice.
    #[error("Offset json file contains duplicate topic partitions: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))]
    Duplicates(Vec<TopicPartition>),
}

/// The JSON object `value` is, or Kafka's mapping error.
pub(crate) fn object(value: &Value) -> Result<&serde_json::Map<String, Value>, OffsetJsonError> {
    value
        .as_object()
        .ok_or_else(|| OffsetJsonError::NotContainer {
            expected: "object",
            received: value.to_string(),
        })
}

/// The int32 `value` is, or Kafka's mapping error.
pub(crate) fn int(value: &Value) -> Result<i32, OffsetJsonError> {
    value
        .as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| OffsetJsonError::WrongType {
            expected: "Integer",
            received: value.to_string(),
        })
}

/// The field `name` of `entry`, or Kafka's missing-field error.
pub(crate) fn field<'a>(
    entry: &'a serde_json::Map<String, Value>,
    name: &'static str,
) -> Result<&'a Value, OffsetJsonError> {
    entry.get(name).ok_or(OffsetJsonError::MissingField(name))
}

/// Parses an `--offset-json-file` as `DeleteRecordsCommand` does:
/// `{"partitions":[{"topic":"foo","partition":1,"offset":1}],"version":1}` (`version`
/// optional), each partition at most once. The partitions come back sorted.
pub fn parse_offset_json(text: &str) -> Result<BTreeMap<TopicPartition, i64>, OffsetJsonError> {
    let json: Value = serde_json::from_str(text).map_err(|_| OffsetJsonError::NotJson)?;
    let root = object(&json)?;
    let version = match root.get("version") {
        Some(v) => int(v)?,
        None => 1,
    };
    if version != 1 {
        return Err(OffsetJsonError::UnsupportedVersion(version));
    }
    let partitions = root
        .get("partitions")
        .ok_or(OffsetJsonError::MissingPartitions)?;
    let partitions = partitions
        .as_array()
        .ok_or_else(|| OffsetJsonError::NotContainer {
            expected: "array",
            received: partitions.to_string(),
        })?;
    let mut offsets = BTreeMap::new();
    let mut duplicates = Vec::new();
    for entry in partitions {
        let entry = object(entry)?;
        let topic = field(entry, "topic")?;
        let topic = topic.as_str().ok_or_else(|| OffsetJsonError::WrongType {
            expected: "String",
            received: topic.to_string(),
        })?;
        let partition = int(field(entry, "partition")?)?;
        let offset = field(entry, "offset")?;
        let offset = offset.as_i64().ok_or_else(|| OffsetJsonError::WrongType {
            expected: "Long",
            received: offset.to_string(),
        })?;
        let tp = TopicPartition::new(topic, partition);
        if offsets.insert(tp.clone(), offset).is_some() && !duplicates.contains(&tp) {
            duplicates.push(tp);
        }
    }
    if !duplicates.is_empty() {
        duplicates.sort();
        return Err(OffsetJsonError::Duplicates(duplicates));
    }
    Ok(offsets)
}

/// Why one partition's records were not deleted; displays as the Java exception Kafka's tool
/// prints (`<class>: <message>`).
#[derive(Debug, thiserror::Error)]
pub enum DeleteRecordsError {
    /// No such topic or partition.
    #[error("org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.")]
    UnknownTopicOrPartition,
    /// The topic's `cleanup.policy` lacks `delete`.
    #[error("org.apache.kafka.common.errors.PolicyViolationException: Records of partition {0} can not be deleted due to the configured policy")]
    Policy(TopicPartition),
    /// A negative offset other than -1.
    #[error("org.apache.kafka.common.errors.OffsetOutOfRangeException: The offset {offset} for partition {tp} is not valid")]
    InvalidOffset {
        /// The offset asked.
        offset: i64,
        /// The partition.
        tp: TopicPartition,
    },
    /// An offset past the high watermark.
    #[error("org.apache.kafka.common.errors.OffsetOutOfRangeException: {0}")]
    AboveHighWatermark(crate::log::LogError),
    /// The partition could not be opened or written.
    #[error("org.apache.kafka.common.errors.KafkaStorageException: {0}")]
    Storage(DataDirError),
}

/// Moves each partition's log start offset up to its offset (`-1`: the high watermark, here
/// the log end offset), checked as a broker checks `DeleteRecords`: the partition exists, its
/// topic's `cleanup.policy` has `delete`, the offset is not negative and not past the high
/// watermark. A log start already higher stays. Each partition gets its own answer (its low
/// watermark, the log start offset now), in the order given; the log start offsets are
/// checkpointed when the writer closes, under the metadata lock.
pub fn delete_records(
    datadir: &DataDir,
    offsets: &BTreeMap<TopicPartition, i64>,
) -> Result<Vec<(TopicPartition, Result<i64, DeleteRecordsError>)>> {
    let topics = datadir.topics()?;
    let mut writer = PartitionWriter::new(datadir)?;
    let mut results = Vec::new();
    for (tp, &offset) in offsets {
        let result = (|| {
            let topic = topics
                .iter()
                .find(|t| *t.name == *tp.topic)
                .filter(|t| t.partitions.iter().any(|p| p.id == tp.partition))
                .ok_or(DeleteRecordsError::UnknownTopicOrPartition)?;
            let policy = topic.configs.value("cleanup.policy");
            let deletes = matches!(&policy, Some(super::config::ConfigValue::List(items)) if items.iter().any(|i| i == "delete"));
            if !deletes {
                return Err(DeleteRecordsError::Policy(tp.clone()));
            }
            let log = match writer.log(topic, tp.partition) {
                Ok(log) => log,
                Err(
                    DataDirError::UnknownTopicOrPartition(_) | DataDirError::UnknownPartition(_),
                ) => return Err(DeleteRecordsError::UnknownTopicOrPartition),
                Err(e) => return Err(DeleteRecordsError::Storage(e)),
            };
            let offset = if offset == HIGH_WATERMARK {
                log.log_end_offset()
            } else {
                offset
            };
            if offset < 0 {
                return Err(DeleteRecordsError::InvalidOffset {
                    offset,
                    tp: tp.clone(),
                });
            }
            log.maybe_increment_log_start_offset(offset)
                .map_err(DeleteRecordsError::AboveHighWatermark)
        })();
        results.push((tp.clone(), result));
    }
    writer.release()?;
    writer.close()?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_offset_json(text).unwrap_err().to_string()
    }

    #[test]
    fn kafka_json_rules() {
        let parsed =
            parse_offset_json(r#"{"partitions":[{"topic":"t","partition":1,"offset":-1},{"topic":"t","partition":0,"offset":5}]}"#)
                .unwrap();
        assert_eq!(
            parsed.into_iter().collect::<Vec<_>>(),
            [
                (TopicPartition::new("t", 0), 5),
                (TopicPartition::new("t", 1), -1)
            ]
        );
        assert_eq!(err("nope"), "The input string is not a valid JSON");
        assert_eq!(err(r#"{"version":1}"#), "Missing partitions field");
        assert_eq!(
            err(r#"{"version":2,"partitions":[]}"#),
            "Not supported version field value 2"
        );
        assert_eq!(
            err(r#"{"partitions":[{"topic":"t","offset":1}]}"#),
            "No such field exists: `partition`"
        );
        assert_eq!(
            err(r#"{"partitions":[{"topic":"t","partition":"0","offset":1}]}"#),
            "Expected `Integer` value, received \"0\""
        );
        assert_eq!(
            err(
                r#"{"partitions":[{"topic":"t","partition":0,"offset":1},{"topic":"t","partition":0,"offset":2},{"topic":"a","partition":3,"offset":2},{"topic":"a","partition":3,"offset":2}]}"#
            ),
            "Offset json file contains duplicate topic partitions: a-3,t-0"
        );
    }
}
