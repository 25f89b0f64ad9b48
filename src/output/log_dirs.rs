//! `kafkit log-dirs`: Kafka's `kafka-log-dirs.sh --describe` output (`kafka-cli-surface.md`
//! §6.4), whose third line is itself JSON (Jackson over Java hash maps, in the key order Java
//! gives), and the JSON Lines events of `--output json` (`docs/json.md`, "log-dirs").

use serde::Serialize;

use crate::datadir::log_dirs::LogDirDescription;

/// The first line.
pub const QUERYING: &str = "Querying brokers for log directories information";

/// The second line: `Received log directory information from brokers 0`.
pub fn received_line(brokers: &[i32]) -> String {
    let ids: Vec<String> = brokers.iter().map(ToString::to_string).collect();
    format!(
        "Received log directory information from brokers {}",
        ids.join(",")
    )
}

#[derive(Serialize)]
struct KafkaReplica {
    partition: String,
    size: u64,
    #[serde(rename = "offsetLag")]
    offset_lag: i64,
    #[serde(rename = "isFuture")]
    is_future: bool,
}

#[derive(Serialize)]
struct KafkaLogDir {
    partitions: Vec<KafkaReplica>,
    error: Option<String>,
    #[serde(rename = "logDir")]
    log_dir: String,
}

#[derive(Serialize)]
struct KafkaBroker {
    broker: i32,
    #[serde(rename = "logDirs")]
    log_dirs: Vec<KafkaLogDir>,
}

#[derive(Serialize)]
struct KafkaDescription {
    brokers: Vec<KafkaBroker>,
    version: i32,
}

/// The third line: every broker's log directories as Kafka's tool prints them,
/// `{"brokers":[{"broker":0,"logDirs":[{"partitions":[...],"error":null,"logDir":"..."}]}],"version":1}`,
/// in the order given (Kafka's is its hash maps': brokers, directories and partitions come
/// sorted here).
pub fn kafka_json_line(
    brokers: &[(i32, Vec<LogDirDescription>)],
) -> Result<String, serde_json::Error> {
    let description = KafkaDescription {
        brokers: brokers
            .iter()
            .map(|(broker, dirs)| KafkaBroker {
                broker: *broker,
                log_dirs: dirs
                    .iter()
                    .map(|dir| KafkaLogDir {
                        partitions: dir
                            .replicas
                            .iter()
                            .map(|r| KafkaReplica {
                                partition: r.tp.to_string(),
                                size: r.size,
                                offset_lag: r.offset_lag,
                                is_future: r.is_future,
                            })
                            .collect(),
                        error: dir.error.clone(),
                        log_dir: dir.log_dir.to_string_lossy().into_owned(),
                    })
                    .collect(),
            })
            .collect(),
        version: 1,
    };
    serde_json::to_string(&description)
}

/// One JSON Lines object of `kafkit log-dirs --output json`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogDirsEvent<'a> {
    /// A broker's log directory.
    LogDir {
        /// The broker id.
        broker: i32,
        /// The directory's absolute path.
        log_dir: &'a str,
        /// The Java class of the error a broker answered for the directory (Kafka's
        /// `KafkaStorageException` for an offline one); `null` for a directory that answered,
        /// and always for a data directory (kafkit reads only directories it can).
        error: Option<&'a str>,
    },
    /// A partition replica in it.
    Replica {
        /// The broker id.
        broker: i32,
        /// The log directory.
        log_dir: &'a str,
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// Bytes of its log segments.
        size: u64,
        /// Lag behind the high watermark (0).
        offset_lag: i64,
        /// Whether it is a future replica (`-future` directory).
        is_future: bool,
    },
}
