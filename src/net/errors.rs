//! Kafka's error codes as the Java clients show them: the exception's class and the message
//! a broker's answer carries, or the code's default message (`Errors.java`).

use std::fmt;

/// An error code a broker answered with, and the message it sent, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaError {
    /// Kafka's error code.
    pub code: i16,
    /// The broker's message, or `None` for the code's default.
    pub message: Option<String>,
}

/// `(code, exception class, default message)`, from Kafka's `Errors.java`, for the codes the
/// commands meet.
const ERRORS: &[(i16, &str, &str)] = &[
    (-1, "UnknownServerException", "The server experienced an unexpected error when processing the request."),
    (1, "OffsetOutOfRangeException", "The requested offset is not within the range of offsets maintained by the server."),
    (2, "CorruptRecordException", "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt."),
    (3, "UnknownTopicOrPartitionException", "This server does not host this topic-partition."),
    (5, "LeaderNotAvailableException", "There is no leader for this topic-partition as we are in the middle of a leadership election."),
    (6, "NotLeaderOrFollowerException", "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition."),
    (7, "TimeoutException", "The request timed out."),
    (10, "RecordTooLargeException", "The request included a message larger than the max message size the server will accept."),
    (17, "InvalidTopicException", "The request attempted to perform an operation on an invalid topic."),
    (18, "RecordBatchTooLargeException", "The request included message batch larger than the configured segment size on the server."),
    (19, "NotEnoughReplicasException", "Messages are rejected since there are fewer in-sync replicas than required."),
    (21, "InvalidRequiredAcksException", "Produce request specified an invalid value for required acks."),
    (29, "TopicAuthorizationException", "Topic authorization failed."),
    (31, "ClusterAuthorizationException", "Cluster authorization failed."),
    (32, "InvalidTimestampException", "The timestamp of the message is out of acceptable range."),
    (35, "UnsupportedVersionException", "The version of API is not supported."),
    (36, "TopicExistsException", "Topic with this name already exists."),
    (37, "InvalidPartitionsException", "Number of partitions is below 1."),
    (38, "InvalidReplicationFactorException", "Replication factor is below 1 or larger than the number of available brokers."),
    (39, "InvalidReplicaAssignmentException", "Replica assignment is invalid."),
    (40, "InvalidConfigurationException", "Configuration is invalid."),
    (41, "NotControllerException", "This is not the correct controller for this cluster."),
    (42, "InvalidRequestException", "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details."),
    (44, "PolicyViolationException", "Request parameters do not satisfy the configured policy."),
    (45, "OutOfOrderSequenceException", "The broker received an out of order sequence number."),
    (46, "DuplicateSequenceException", "The broker received a duplicate sequence number."),
    (47, "InvalidProducerEpochException", "Producer attempted to produce with an old epoch."),
    (56, "KafkaStorageException", "Disk error when trying to access log file on the disk."),
    (73, "TopicDeletionDisabledException", "Topic deletion is disabled."),
    (87, "InvalidRecordException", "This record has failed the validation on broker and hence will be rejected."),
];

impl KafkaError {
    /// An error from a response's code and optional message; `None` for code 0.
    pub fn from_code(code: i16, message: Option<&str>) -> Option<Self> {
        (code != 0).then(|| KafkaError {
            code,
            message: message.filter(|m| !m.is_empty()).map(str::to_string),
        })
    }

    fn entry(&self) -> Option<&'static (i16, &'static str, &'static str)> {
        ERRORS.iter().find(|(c, _, _)| *c == self.code)
    }

    /// The Java exception's simple class name (`UnknownTopicOrPartitionException`).
    pub fn exception(&self) -> &'static str {
        self.entry().map_or("ApiException", |e| e.1)
    }

    /// What the broker said, or the code's default message.
    pub fn text(&self) -> String {
        match (&self.message, self.entry()) {
            (Some(m), _) => m.clone(),
            (None, Some(e)) => e.2.to_string(),
            (None, None) => format!("Unexpected error code: {}.", self.code),
        }
    }

    /// Whether Kafka's clients retry it after a metadata refresh (the leader moved, the
    /// topic or leader is not known yet).
    pub fn is_metadata_retriable(&self) -> bool {
        matches!(self.code, 3 | 5 | 6)
    }

    /// `UNKNOWN_TOPIC_OR_PARTITION`.
    pub fn is_unknown_topic(&self) -> bool {
        self.code == 3
    }

    /// `TOPIC_ALREADY_EXISTS`.
    pub fn is_topic_exists(&self) -> bool {
        self.code == 36
    }
}

impl fmt::Display for KafkaError {
    /// The first line of the stack trace Kafka's tools print:
    /// `org.apache.kafka.common.errors.<Exception>: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "org.apache.kafka.common.errors.{}: {}",
            self.exception(),
            self.text()
        )
    }
}

impl std::error::Error for KafkaError {}

impl super::NetError {
    /// The failure as Java's `Throwable.toString()` shows the exception Kafka's client would
    /// throw (`org.apache.kafka.common.errors.<Exception>: <message>`): what Kafka's tools
    /// print of a failed future (`ExecutionException.getMessage()`).
    pub fn java_exception(&self) -> String {
        use super::NetError;
        let class = match self {
            NetError::Kafka(e) => return e.to_string(),
            NetError::Timeout { .. } => "TimeoutException",
            NetError::Authentication { exception, .. } => exception,
            NetError::UnsupportedApi { .. } => "UnsupportedVersionException",
            NetError::Config { .. } | NetError::Security { .. } => {
                return format!("org.apache.kafka.common.config.ConfigException: {self}")
            }
            NetError::Disconnected { .. } | NetError::AuthenticationTerminated { .. } => {
                "DisconnectException"
            }
            _ => return format!("org.apache.kafka.common.KafkaException: {self}"),
        };
        format!("org.apache.kafka.common.errors.{class}: {self}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_constants_and_java_exceptions() {
        let unsupported = crate::net::NetError::UnsupportedApi {
            api: "DESCRIBE_LOG_DIRS".into(),
            min: 1,
            max: 4,
            broker: None,
        };
        assert_eq!(
            unsupported.java_exception(),
            "org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support DESCRIBE_LOG_DIRS"
        );
        let timeout = crate::net::NetError::Timeout {
            message: "Timed out waiting for a node assignment. Call: listNodes".into(),
            unreachable: None,
        };
        assert_eq!(
            timeout.java_exception(),
            "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listNodes"
        );
    }

    #[test]
    fn messages_are_the_brokers_or_kafkas_default() {
        assert_eq!(KafkaError::from_code(0, Some("x")), None);
        let e = KafkaError::from_code(36, Some("Topic 'a' already exists.")).unwrap();
        assert_eq!(
            e.to_string(),
            "org.apache.kafka.common.errors.TopicExistsException: Topic 'a' already exists."
        );
        let e = KafkaError::from_code(3, Some("")).unwrap();
        assert_eq!(e.text(), "This server does not host this topic-partition.");
        assert!(e.is_metadata_retriable());
        assert_eq!(
            KafkaError::from_code(999, None).unwrap().text(),
            "Unexpected error code: 999."
        );
    }
}
