//! `DescribeLogDirs` on a data directory (Kafka's `kafka-log-dirs.sh`, `kafka-cli-surface.md`
//! §6.4): the partitions the directory holds, their sizes, and which are future replicas.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use super::{io_err, names, DataDir, DataDirError, Result};
use crate::common::TopicPartition;

/// One partition replica in a log directory (Kafka's `ReplicaInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaInfo {
    /// The partition.
    pub tp: TopicPartition,
    /// Bytes of its log's segments (Kafka's `UnifiedLog.size`).
    pub size: u64,
    /// How far it is behind the high watermark: 0, a one-broker directory's replicas are all
    /// leaders (a future replica's lag behind the current one is not computed: 0 too).
    pub offset_lag: i64,
    /// Whether it is a future replica (a `<topic>-<p>.<id>-future` directory, being moved here).
    pub is_future: bool,
}

/// A log directory as `DescribeLogDirs` answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDirDescription {
    /// The directory's absolute path (Kafka's `File.getAbsolutePath`).
    pub log_dir: PathBuf,
    /// The replicas it holds, by topic and partition (Kafka's order is a hash map's).
    pub replicas: Vec<ReplicaInfo>,
    /// The Java class of the error a broker answered for the directory
    /// (`org.apache.kafka.common.errors.KafkaStorageException` for an offline one), as Kafka's
    /// tool prints it; `None` for a directory read here.
    pub error: Option<String>,
}

/// The partition of a future replica's directory, `<topic>-<p>.<32 hex>-future`.
fn future_partition(name: &str) -> Option<TopicPartition> {
    let (dir, _unique) = name.strip_suffix("-future")?.rsplit_once('.')?;
    TopicPartition::from_dir_name(dir)
}

/// The data directory's replicas, of `topics` only when not empty. The KRaft metadata log
/// (`__cluster_metadata-0`) is not a replica of the log manager's and is left out, as Kafka
/// leaves it out.
pub fn describe_log_dir(datadir: &DataDir, topics: &BTreeSet<String>) -> Result<LogDirDescription> {
    let root = datadir.path();
    let log_dir = std::path::absolute(root).map_err(io_err(root))?;
    let mut replicas = Vec::new();
    for entry in fs::read_dir(root).map_err(io_err(root))? {
        let entry = entry.map_err(io_err(root))?;
        if !entry.file_type().map_err(io_err(&entry.path()))?.is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let (tp, is_future) = match TopicPartition::from_dir_name(&name) {
            Some(tp) => (tp, false),
            None => match future_partition(&name) {
                Some(tp) => (tp, true),
                None => continue,
            },
        };
        if *tp.topic == *names::CLUSTER_METADATA_TOPIC
            || (!topics.is_empty() && !topics.contains(&*tp.topic))
        {
            continue;
        }
        let size = match crate::log::log_size(&entry.path()) {
            Ok(size) => size,
            // Deleted while listed (a topic deletion renames it away): not held any more.
            Err(_) if !entry.path().is_dir() => continue,
            Err(source) => return Err(DataDirError::Log { tp, source }),
        };
        replicas.push(ReplicaInfo {
            tp,
            size,
            offset_lag: 0,
            is_future,
        });
    }
    replicas.sort_by(|a, b| (&a.tp, a.is_future).cmp(&(&b.tp, b.is_future)));
    Ok(LogDirDescription {
        log_dir,
        replicas,
        error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn future_dirs() {
        assert_eq!(
            future_partition("my-topic-3.0123456789abcdef0123456789abcdef-future"),
            Some(TopicPartition::new("my-topic", 3))
        );
        assert_eq!(future_partition("t-0"), None);
        assert_eq!(future_partition("t-0.abc-delete"), None);
    }
}
