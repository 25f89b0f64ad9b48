//! `meta.properties` (data directory root) and `partition.metadata` (partition directory), in
//! Kafka's exact formats (`kafka-disk-format.md` §11).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::atomic::write_atomic;
use super::properties;
use super::uuid::Uuid;

/// File name of the data directory's identity file.
pub const META_PROPERTIES: &str = "meta.properties";
/// File name of a partition's topic-id file.
pub const PARTITION_METADATA: &str = "partition.metadata";

/// A metadata file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum MetaError {
    /// The file system failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file's content breaks its format.
    #[error("{message} ({})", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, in Kafka's words where it has them.
        message: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> MetaError + '_ {
    move |source| MetaError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The identity of a data directory (`meta.properties`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProperties {
    /// 0: ZooKeeper era (`broker.id`); 1: KRaft (`node.id`).
    pub version: i32,
    /// The broker/node id (`node.id`, or `broker.id` in version 0).
    pub node_id: i32,
    /// `cluster.id`, when present.
    pub cluster_id: Option<String>,
    /// `directory.id`, when present.
    pub directory_id: Option<Uuid>,
}

impl MetaProperties {
    /// A fresh KRaft-style identity for node 0 with random cluster and directory ids.
    pub fn new_v1() -> Self {
        MetaProperties {
            version: 1,
            node_id: 0,
            cluster_id: Some(Uuid::random().to_string()),
            directory_id: Some(Uuid::random()),
        }
    }

    /// Reads `meta.properties` in any key order; version 0 (`broker.id`) and 1 (`node.id`).
    pub fn read(path: &Path) -> Result<Self, MetaError> {
        let text = fs::read_to_string(path).map_err(io_error(path))?;
        let props: BTreeMap<String, String> = properties::parse(&text)
            .map_err(|e| MetaError::Invalid {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?
            .into_iter()
            .collect();
        let invalid = |message: String| MetaError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let int = |key: &str| -> Result<Option<i32>, MetaError> {
            props
                .get(key)
                .map(|v| {
                    v.trim()
                        .parse()
                        .map_err(|_| invalid(format!("Unable to parse {key} as an integer: {v}")))
                })
                .transpose()
        };
        let version = int("version")?
            .ok_or_else(|| invalid("Failed to find required property version.".into()))?;
        let node_id = match version {
            0 => int("broker.id")?.unwrap_or(0),
            1 => int("node.id")?
                .ok_or_else(|| invalid("Failed to find required property node.id.".into()))?,
            v => return Err(invalid(format!("Unknown meta.properties version {v}"))),
        };
        let directory_id = props
            .get("directory.id")
            .map(|v| {
                v.parse::<Uuid>()
                    .map_err(|e| invalid(format!("Invalid directory.id: {e}")))
            })
            .transpose()?;
        Ok(MetaProperties {
            version,
            node_id,
            cluster_id: props.get("cluster.id").cloned(),
            directory_id,
        })
    }

    /// The file as Java's `Properties.store(writer, "")` writes it (JDK 9–17 key order).
    pub fn to_text(&self, now: SystemTime) -> String {
        let mut text = format!("#\n#{}\n", java_date(now));
        let id_key = if self.version == 0 {
            "broker.id"
        } else {
            "node.id"
        };
        text.push_str(&format!("{id_key}={}\n", self.node_id));
        if let Some(dir) = self.directory_id {
            text.push_str(&format!("directory.id={dir}\n"));
        }
        text.push_str(&format!("version={}\n", self.version));
        if let Some(cluster) = &self.cluster_id {
            text.push_str(&format!(
                "cluster.id={}\n",
                properties::escape(cluster, false)
            ));
        }
        text
    }

    /// Writes the file atomically (`meta.properties.tmp`, sync, rename).
    pub fn write(&self, path: &Path) -> Result<(), MetaError> {
        write_atomic(path, self.to_text(SystemTime::now()).as_bytes()).map_err(io_error(path))
    }
}

/// `java.util.Date.toString()` in UTC, e.g. `Wed May 08 10:23:45 UTC 2024`.
pub fn java_date(now: SystemTime) -> String {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let weekday = WEEKDAYS
        .get(usize::try_from(days.rem_euclid(7)).unwrap_or(0))
        .copied()
        .unwrap_or("Thu");
    let month = MONTHS
        .get(usize::try_from(m - 1).unwrap_or(0))
        .copied()
        .unwrap_or("Jan");
    format!(
        "{weekday} {month} {d:02} {:02}:{:02}:{:02} UTC {y}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month 1..12, day 1..31) (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The exact bytes of a `partition.metadata` file: no trailing newline.
pub fn partition_metadata_bytes(topic_id: Uuid) -> Vec<u8> {
    format!("version: 0\ntopic_id: {topic_id}").into_bytes()
}

/// Writes a partition's `partition.metadata` atomically.
pub fn write_partition_metadata(partition_dir: &Path, topic_id: Uuid) -> Result<(), MetaError> {
    let path = partition_dir.join(PARTITION_METADATA);
    write_atomic(&path, &partition_metadata_bytes(topic_id)).map_err(io_error(&path))
}

/// Reads a partition's topic id from `partition.metadata` (`PartitionMetadataReadBuffer`);
/// `Ok(None)` when the file does not exist.
pub fn read_partition_metadata(partition_dir: &Path) -> Result<Option<Uuid>, MetaError> {
    let path = partition_dir.join(PARTITION_METADATA);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let invalid = |message: String| MetaError::Invalid {
        path: path.clone(),
        message,
    };
    let malformed =
        |line: &str| invalid(format!("Malformed line in partition metadata file: {line}"));
    let mut lines = text.lines();
    let version_line = lines.next().unwrap_or("");
    let version = split_colon(version_line).ok_or_else(|| malformed(version_line))?;
    let version: i32 = version.parse().map_err(|_| malformed(version_line))?;
    if version != 0 {
        return Err(invalid(format!(
            "Unrecognized version of partition metadata file: {version}"
        )));
    }
    let id_line = lines.next().unwrap_or("");
    let id = split_colon(id_line).ok_or_else(|| malformed(id_line))?;
    let id: Uuid = id.parse().map_err(|_| malformed(id_line))?;
    if id.is_zero() {
        return Err(invalid(
            "Invalid topic ID in partition metadata file".into(),
        ));
    }
    Ok(Some(id))
}

/// `line.split(":\\s+")` with exactly two parts: the second.
fn split_colon(line: &str) -> Option<&str> {
    let (_, rest) = line.split_once(':')?;
    let value = rest.trim_start();
    (value.len() < rest.len() && !value.is_empty() && !value.contains(':')).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn java_dates() {
        let t = UNIX_EPOCH + Duration::from_secs(1_715_163_825);
        assert_eq!(java_date(t), "Wed May 08 10:23:45 UTC 2024");
        assert_eq!(java_date(UNIX_EPOCH), "Thu Jan 01 00:00:00 UTC 1970");
    }
}
