//! A data directory: topics, partitions, configs, name rules, the lock and metadata files.
//!
//! A data directory is laid out like one of a broker's `log.dirs` (`kafka-disk-format.md` §12):
//!
//! ```text
//! <dir>/
//!   meta.properties  .lock  recovery-point-offset-checkpoint  log-start-offset-checkpoint ...
//!   <topic>-<partition>/     partition.metadata, segments (the log's business)
//!   .kafkit-topics.json      kafkit's topic metadata (see below)
//!   .kafkit-unflushed.json   where logs were closed unflushed, trusted until a restart (`tails`)
//!   .kafkit-log-ends         log ends readers found, trusted while their files are unchanged (`log_ends`)
//!   .kafkit-coordinators     when each group coordinator host was last alive (`group::liveness`)
//! ```
//!
//! A broker keeps topic metadata in its controller; kafkit keeps it in one JSON file at the
//! root. It is a plain file on purpose: a broker's `LogManager` only looks at directories, and
//! would refuse to start on a directory whose name is not `<topic>-<partition>`.
//!
//! ```json
//! {"version": 1,
//!  "topics": {"demo": {"topic_id": "NPmZHyhbR9y00wMglMH2sg",
//!                      "replica_assignment": [[0], [0], [0]],
//!                      "configs": {"cleanup.policy": "compact"}}},
//!  "pending": {}}
//! ```
//!
//! `replica_assignment[p]` lists partition `p`'s replicas (leader first); its length is the
//! partition count. `configs` holds the overrides only. `pending` holds topics being created or
//! deleted. The file is replaced atomically (`.kafkit-topics.json.tmp`, sync, rename, sync dir),
//! so readers always see one consistent state without taking the lock.
//!
//! **Crash safety.** Writers hold the `.lock`. A create records the topic under `pending`,
//! makes the partition directories with their `partition.metadata`, then moves the topic to
//! `topics` — the commit point. A delete moves the topic from `topics` to `pending` in one
//! write (from then on it is gone), renames each partition directory to
//! `<topic>-<p>.<32 hex>-delete` as Kafka does, removes them, and clears `pending`. Readers
//! ignore partition directories of pending topics; the next writer to take the lock removes
//! what a crashed writer left.
//!
//! **Broker data directories.** Partition directories that the file does not mention (a real
//! broker's `log.dirs`) are listed as topics too: partitions come from the directory names (the
//! text after the last `-`), the id from `partition.metadata` when present, configs are Kafka's
//! defaults.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::log::LogConfig;
use checkpoint::{LOG_START_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT};

mod atomic;
pub mod checkpoint;
pub mod cleaner;
pub mod config;
pub mod delete_records;
// fcntl's open-file-description record locks have no safe wrapper in std.
#[allow(unsafe_code)]
pub mod lock;
pub mod log_dirs;
pub mod log_ends;
pub mod meta;
pub mod names;
pub mod placement;
pub mod properties;
mod stamp;
mod tails;
mod writer;

pub use atomic::{sync_dir, write_atomic, write_atomic_via};

pub use crate::common::{TopicPartition, Uuid};
pub use checkpoint::{CheckpointError, EpochEntry, LeaderEpochCheckpoint, OffsetCheckpoint};
pub use config::{ConfigError, TopicConfigs};
pub use lock::{CoordinatorLock, DirLock, LockError, MetaLock, PartitionLocks, DEFAULT_LOCK_WAIT};
pub use meta::{MetaError, MetaProperties};
pub use names::{InvalidTopicFilter, InvalidTopicName, TopicFilter};
pub use tails::UNFLUSHED_TAILS;

/// Kafka's `Uuid`, now [`crate::common::Uuid`]; this path stays for the code that names it so.
pub mod uuid {
    pub use crate::common::{Uuid, UuidError};
}
pub use writer::{now_ms, PartitionWriter};

/// The most partitions one request may make, as Kafka's controller allows
/// (`ReplicationControlManager.MAX_PARTITIONS_PER_BATCH`): a larger create or increase is a
/// `PolicyViolationException`, and so never a run that makes directories without end.
pub const MAX_PARTITIONS_PER_REQUEST: i32 = 10_000;

/// Kafka's hard limit on a replication factor (a Java `short`).
pub const MAX_REPLICATION_FACTOR: i32 = 32767;

/// Partition directories: the data directory's side of [`TopicPartition`] (Kafka's
/// `UnifiedLog.parseTopicPartitionName`, which lives in its storage code, not in `common`).
impl TopicPartition {
    /// Parses a partition directory name as Kafka does: the text after the last `-` is the
    /// partition. Names with a `-delete`, `-future` or `-stray` suffix and hidden names are not
    /// partition directories.
    pub fn from_dir_name(name: &str) -> Option<Self> {
        if name.starts_with('.')
            || ["-delete", "-future", "-stray"]
                .iter()
                .any(|s| name.ends_with(s))
        {
            return None;
        }
        let (topic, partition) = name.rsplit_once('-')?;
        let partition: i32 = partition.parse().ok()?;
        if partition < 0 || !partition.to_string().eq(name.rsplit('-').next()?) {
            return None;
        }
        names::validate_topic_name(topic).ok()?;
        Some(TopicPartition::new(topic, partition))
    }
}

/// Where a topic's description comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TopicSource {
    /// kafkit's metadata file.
    Kafkit,
    /// Only partition directories, as a broker leaves them.
    Broker,
    /// A cluster's metadata (`--bootstrap-server`).
    Cluster,
    /// A cluster's KRaft metadata log (`cluster init`).
    Metadata,
}

/// One partition of a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// The partition number.
    pub id: i32,
    /// Its replicas, preferred leader first.
    pub replicas: Vec<i32>,
}

/// A topic as the data directory describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    /// The topic name.
    pub name: String,
    /// The topic id (`None` for a broker topic without `partition.metadata`).
    pub id: Option<Uuid>,
    /// The partitions, by partition number.
    pub partitions: Vec<PartitionInfo>,
    /// The config overrides.
    pub configs: TopicConfigs,
    /// Where this description comes from.
    pub source: TopicSource,
}

impl Topic {
    /// The number of partitions.
    pub fn partition_count(&self) -> usize {
        self.partitions.len()
    }

    /// The replica count of the first partition (what Kafka reports as the topic's).
    pub fn replication_factor(&self) -> usize {
        self.partitions.first().map_or(0, |p| p.replicas.len())
    }

    /// Whether Kafka treats the topic as internal.
    pub fn is_internal(&self) -> bool {
        names::is_internal(&self.name)
    }

    /// The storage settings the topic's partitions obey.
    pub fn log_config(&self) -> LogConfig {
        self.configs.log_config()
    }

    /// The topic partitions, in order.
    pub fn topic_partitions(&self) -> Vec<TopicPartition> {
        self.partitions
            .iter()
            .map(|p| TopicPartition::new(self.name.clone(), p.id))
            .collect()
    }
}

/// A topic to create.
#[derive(Debug, Clone, Default)]
pub struct NewTopic {
    /// Its name (used literally, not as a regex).
    pub name: String,
    /// The partition count; `None` or -1: the broker default `num.partitions` = 1.
    pub partitions: Option<i32>,
    /// The replication factor; `None` or -1: the broker default `default.replication.factor` = 1.
    pub replication_factor: Option<i32>,
    /// A manual replica assignment (partition `p` = entry `p`), instead of the two above.
    pub assignment: Option<Vec<Vec<i32>>>,
    /// Validated config overrides.
    pub configs: TopicConfigs,
}

/// Why a data-directory operation failed. Messages are Kafka's where Kafka has one.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    /// The file system failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The data directory does not exist.
    #[error("data directory {} does not exist", .0.display())]
    Missing(PathBuf),
    /// A new data directory's parent does not exist: only the last component of a path is
    /// made, as `mkdir` (without `-p`) makes it, so that a mistyped path creates nothing.
    #[error(
        "cannot create data directory {}: {} does not exist (only the last directory of the path is created, as by mkdir)",
        path.display(),
        parent.display()
    )]
    ParentMissing {
        /// The data directory asked for.
        path: PathBuf,
        /// Its first ancestor that does not exist.
        parent: PathBuf,
    },
    /// The data directory's path names a file (or a device...), not a directory.
    #[error("{} is {kind}, not a directory", path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
        /// What it is: `a file`, `a character device`, ... ([`file_kind`]).
        kind: &'static str,
    },
    /// A directory to write into that holds something a data directory does not, and no
    /// `meta.properties` or [`TOPICS_FILE`]: kafkit does not mix Kafka's files with others.
    #[error(
        "{} is not a Kafka data directory: it holds {entry:?} and no {} or {TOPICS_FILE}; kafkit writes only into a data directory, an empty directory or a new one",
        path.display(),
        meta::META_PROPERTIES
    )]
    NotADataDir {
        /// The directory.
        path: PathBuf,
        /// The first entry found that a data directory does not hold.
        entry: String,
    },
    /// The `.lock` is held by someone else, or failed.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// `meta.properties` or `partition.metadata` is unreadable.
    #[error(transparent)]
    Meta(#[from] MetaError),
    /// A checkpoint file is unreadable.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// An illegal topic name.
    #[error(transparent)]
    InvalidTopicName(#[from] InvalidTopicName),
    /// A rejected topic config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The topic exists already.
    #[error("Topic '{0}' already exists.")]
    TopicExists(String),
    /// The KRaft metadata log's name: Kafka's controller refuses to create it.
    #[error("Creation of internal topic {0} is prohibited.")]
    CreationProhibited(String),
    /// The name differs from an existing topic's only by `.` versus `_`.
    #[error("Topic '{topic}' collides with existing topic: {existing}")]
    Collision {
        /// The new topic.
        topic: String,
        /// The existing topic.
        existing: String,
    },
    /// No such topic.
    #[error("Topic '{0}' does not exist.")]
    UnknownTopic(String),
    /// A partition number outside the topic.
    #[error("Partition {0} does not exist.")]
    UnknownPartition(String),
    /// The partition went away under a writer: its topic was deleted (and maybe created
    /// again) by another process (the error a Kafka broker answers then).
    #[error("{0}: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.")]
    UnknownTopicOrPartition(TopicPartition),
    /// A partition's log failed.
    #[error("partition {tp}: {source}")]
    Log {
        /// The partition.
        tp: TopicPartition,
        /// What the log reported.
        #[source]
        source: crate::log::LogError,
    },
    /// A cluster's directory (`cluster init`), where a broker's data directory is expected.
    #[error("{} is a cluster's directory (kafkit cluster init), not a broker's data directory: this command works in one of its brokers' directories, such as --data-dir {}", .0.display(), .0.join("broker-1").display())]
    ClusterDir(PathBuf),
    /// A bad partition count (Kafka's `InvalidPartitionsException`).
    #[error("{0}")]
    InvalidPartitions(String),
    /// A request larger than Kafka's controller takes at once (its `PolicyViolationException`):
    /// more than [`MAX_PARTITIONS_PER_REQUEST`] partitions to make.
    #[error("{0}")]
    PolicyViolation(&'static str),
    /// A bad replication factor (Kafka's `InvalidReplicationFactorException`).
    #[error("{0}")]
    InvalidReplicationFactor(String),
    /// A bad manual assignment (Kafka's `InvalidReplicaAssignmentException`).
    #[error("{0}")]
    InvalidReplicaAssignment(String),
    /// A kafkit metadata file that cannot be parsed.
    #[error("corrupt topic metadata file {}: {message}", path.display())]
    CorruptTopicFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Shorthand for data-directory results.
pub type Result<T, E = DataDirError> = std::result::Result<T, E>;

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DataDirError + '_ {
    move |source| DataDirError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The name of kafkit's topic metadata file at the data directory root.
pub const TOPICS_FILE: &str = ".kafkit-topics.json";

/// File name of the group coordinator hosts' stamps, when each was last alive
/// (`group::liveness`).
pub const COORDINATOR_STAMPS: &str = ".kafkit-coordinators";

/// The on-disk form of [`TOPICS_FILE`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct TopicsFile {
    version: u32,
    #[serde(default)]
    topics: BTreeMap<String, TopicEntry>,
    #[serde(default)]
    pending: BTreeMap<String, TopicEntry>,
}

/// One topic in [`TopicsFile`].
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TopicEntry {
    topic_id: Uuid,
    replica_assignment: Vec<Vec<i32>>,
    #[serde(default)]
    configs: BTreeMap<String, String>,
}

impl TopicEntry {
    fn from_topic(topic: &Topic, id: Uuid) -> Self {
        TopicEntry {
            topic_id: id,
            replica_assignment: topic
                .partitions
                .iter()
                .map(|p| p.replicas.clone())
                .collect(),
            configs: topic.configs.overrides().clone(),
        }
    }

    fn to_topic(&self, name: &str, path: &Path) -> Result<Topic> {
        let configs = TopicConfigs::new(self.configs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(|e| DataDirError::CorruptTopicFile {
                path: path.to_path_buf(),
                message: format!("topic {name}: {e}"),
            })?;
        let partitions = self
            .replica_assignment
            .iter()
            .zip(0..)
            .map(|(replicas, id)| PartitionInfo {
                id,
                replicas: replicas.clone(),
            })
            .collect();
        Ok(Topic {
            name: name.to_string(),
            id: Some(self.topic_id),
            partitions,
            configs,
            source: TopicSource::Kafkit,
        })
    }
}

/// What a file system entry is, for messages: `a file`, `a directory`, `a character device`...
pub fn file_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() {
        "a file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// The files a log directory's root holds (`kafka-disk-format.md` §11-12) and kafkit's own; each
/// may also appear as `<name>.tmp` while it is replaced.
const ROOT_FILES: [&str; 12] = [
    meta::META_PROPERTIES,
    lock::LOCK_FILE,
    checkpoint::RECOVERY_POINT_CHECKPOINT,
    checkpoint::REPLICATION_OFFSET_CHECKPOINT,
    checkpoint::LOG_START_OFFSET_CHECKPOINT,
    checkpoint::CLEANER_OFFSET_CHECKPOINT,
    ".kafka_cleanshutdown",
    "bootstrap.checkpoint",
    TOPICS_FILE,
    UNFLUSHED_TAILS,
    log_ends::LOG_END_CACHE,
    COORDINATOR_STAMPS,
];

/// Whether a log directory's root may hold an entry of this name: one of [`ROOT_FILES`], or a
/// directory named as a partition (also one being deleted, moved or found stray).
fn is_data_dir_entry(name: &str, is_dir: impl FnOnce() -> bool) -> bool {
    let file = name.strip_suffix(".tmp").unwrap_or(name);
    ROOT_FILES.contains(&file)
        || (is_dir()
            && (TopicPartition::from_dir_name(name).is_some()
                || ["-delete", "-future", "-stray"]
                    .iter()
                    .any(|s| name.ends_with(s))))
}

/// Whether `dir` is a cluster's directory as `cluster init` lays it out: the KRaft metadata
/// log `__cluster_metadata-0`, no `meta.properties` of its own (a broker's data directory,
/// which may hold that log too, has one) and a broker's log directory `broker-<id>/` with its
/// `meta.properties`.
pub fn is_cluster_dir(dir: &Path) -> bool {
    if !dir
        .join(format!("{}-0", names::CLUSTER_METADATA_TOPIC))
        .is_dir()
        || dir.join(meta::META_PROPERTIES).exists()
    {
        return false;
    }
    fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let name = entry.file_name();
            name.to_str()
                .and_then(|n| n.strip_prefix("broker-"))
                .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
                && entry.path().join(meta::META_PROPERTIES).is_file()
        })
    })
}

/// Refuses to write into an existing directory that is not a data directory: one without
/// `meta.properties` or [`TOPICS_FILE`] that holds an entry no data directory holds (a home
/// directory, `/`, a project folder). Kafka says the same of its log directories: they "should
/// only contain Kafka topic data". An empty directory passes.
fn check_writable(path: &Path) -> Result<()> {
    if path.join(meta::META_PROPERTIES).exists() || path.join(TOPICS_FILE).exists() {
        return Ok(());
    }
    // The first foreign entry by name, so that the message does not depend on directory order.
    let mut foreign: Option<String> = None;
    for entry in fs::read_dir(path).map_err(io_err(path))? {
        let entry = entry.map_err(io_err(path))?;
        let name = entry.file_name();
        let known = name
            .to_str()
            .is_some_and(|n| is_data_dir_entry(n, || entry.path().is_dir()));
        if !known {
            let name = name.to_string_lossy().into_owned();
            if foreign.as_ref().is_none_or(|f| name < *f) {
                foreign = Some(name);
            }
        }
    }
    match foreign {
        None => Ok(()),
        Some(entry) => Err(DataDirError::NotADataDir {
            path: path.to_path_buf(),
            entry,
        }),
    }
}

/// The highest ancestor of `path` that does not exist (its parent does), for the message of
/// [`DataDirError::ParentMissing`]; the parent itself when nothing else can be said.
fn first_missing_ancestor(path: &Path) -> PathBuf {
    let mut missing = path.parent().unwrap_or(path).to_path_buf();
    while let Some(up) = missing.parent() {
        if up.as_os_str().is_empty() || up.exists() {
            break;
        }
        missing = up.to_path_buf();
    }
    missing
}

/// A data directory (one of a broker's `log.dirs`), acting as a one-broker cluster.
#[derive(Debug, Clone)]
pub struct DataDir {
    path: PathBuf,
    meta: Option<MetaProperties>,
    /// Whether [`DataDir::create`] made the directory itself (it did not exist).
    created: bool,
}

impl DataDir {
    /// Opens an existing data directory for reading. `meta.properties` is read when present
    /// (a broker's directory may lack it); nothing is written.
    pub fn open(path: impl Into<PathBuf>) -> Result<DataDir> {
        let path = path.into();
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Ok(m) => {
                return Err(DataDirError::NotADirectory {
                    kind: file_kind(&m.file_type()),
                    path,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(DataDirError::Missing(path))
            }
            Err(e) => return Err(io_err(&path)(e)),
        }
        if is_cluster_dir(&path) {
            return Err(DataDirError::ClusterDir(path));
        }
        let meta_path = path.join(meta::META_PROPERTIES);
        let meta = if meta_path.exists() {
            Some(MetaProperties::read(&meta_path)?)
        } else {
            None
        };
        Ok(DataDir {
            path,
            meta,
            created: false,
        })
    }

    /// Opens a data directory for writing, creating it and its `meta.properties` (KRaft style,
    /// node 0) when absent. An existing directory must be a data directory or empty (see
    /// [`DataDirError::NotADataDir`]). Only the directory itself is made, never its parents
    /// ([`DataDirError::ParentMissing`]): a mistyped `--data-dir /nonexistent/dir` creates
    /// nothing. [`DataDir::was_created`] tells whether this call made it.
    pub fn create(path: impl Into<PathBuf>) -> Result<DataDir> {
        let path = path.into();
        let mut created = false;
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() && is_cluster_dir(&path) => {
                return Err(DataDirError::ClusterDir(path))
            }
            Ok(m) if m.is_dir() => check_writable(&path)?,
            Ok(m) => {
                return Err(DataDirError::NotADirectory {
                    kind: file_kind(&m.file_type()),
                    path,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(&path) {
                Ok(()) => created = true,
                // Made meanwhile by another writer: an empty directory or its data directory.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {
                    check_writable(&path)?
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(DataDirError::ParentMissing {
                        parent: first_missing_ancestor(&path),
                        path,
                    })
                }
                Err(e) => return Err(io_err(&path)(e)),
            },
            Err(e) => return Err(io_err(&path)(e)),
        }
        let meta_path = path.join(meta::META_PROPERTIES);
        if !meta_path.exists() {
            let lock = lock::lock_dir(&path, DEFAULT_LOCK_WAIT)?;
            let _meta = lock.meta(DEFAULT_LOCK_WAIT)?;
            if !meta_path.exists() {
                MetaProperties::new_v1().write(&meta_path)?;
            }
        }
        let mut dir = DataDir::open(path)?;
        dir.created = created;
        Ok(dir)
    }

    /// Whether [`DataDir::create`] made the directory (it did not exist before the call).
    pub fn was_created(&self) -> bool {
        self.created
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `meta.properties`, when the directory has one.
    pub fn meta(&self) -> Option<&MetaProperties> {
        self.meta.as_ref()
    }

    /// The id of the one broker this directory stands for (`node.id`/`broker.id`, else 0).
    pub fn node_id(&self) -> i32 {
        self.meta.as_ref().map_or(0, |m| m.node_id)
    }

    /// A partition's directory, `<dir>/<topic>-<partition>`.
    pub fn partition_dir(&self, tp: &TopicPartition) -> PathBuf {
        self.path.join(tp.to_string())
    }

    /// A file at the directory root, e.g. [`checkpoint::RECOVERY_POINT_CHECKPOINT`].
    pub fn root_file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Takes the directory's `.lock` for writing (shared with other kafkit writers, refused
    /// while a broker holds it: [`lock`]), waiting up to [`DEFAULT_LOCK_WAIT`], then finishes
    /// any create or delete a crashed writer left behind.
    pub fn lock(&self) -> Result<DirLock> {
        self.lock_wait(DEFAULT_LOCK_WAIT)
    }

    /// [`DataDir::lock`] with a chosen wait (zero: fail at once when held). Like
    /// [`DataDir::create`], refuses a directory that is not a data directory (taking the lock
    /// writes `.lock` into it).
    pub fn lock_wait(&self, wait: Duration) -> Result<DirLock> {
        check_writable(&self.path)?;
        let guard = lock::lock_dir(&self.path, wait)?;
        let meta = guard.meta(wait.max(DEFAULT_LOCK_WAIT))?;
        self.recover(&meta)?;
        Ok(guard)
    }

    fn topics_path(&self) -> PathBuf {
        self.path.join(TOPICS_FILE)
    }

    fn read_topics_file(&self) -> Result<TopicsFile> {
        let path = self.topics_path();
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(TopicsFile {
                    version: 1,
                    ..TopicsFile::default()
                })
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        let corrupt = |message: String| DataDirError::CorruptTopicFile {
            path: path.clone(),
            message,
        };
        let file: TopicsFile =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
        if file.version != 1 {
            return Err(corrupt(format!("unsupported version {}", file.version)));
        }
        Ok(file)
    }

    fn write_topics_file(&self, file: &TopicsFile) -> Result<()> {
        let path = self.topics_path();
        let mut text =
            serde_json::to_string_pretty(file).map_err(|e| DataDirError::CorruptTopicFile {
                path: path.clone(),
                message: e.to_string(),
            })?;
        text.push('\n');
        write_atomic(&path, text.as_bytes()).map_err(io_err(&path))
    }

    /// Partition directories at the root, grouped by topic.
    fn partition_dirs(&self) -> Result<BTreeMap<String, BTreeSet<i32>>> {
        let mut out: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
        for entry in fs::read_dir(&self.path).map_err(io_err(&self.path))? {
            let entry = entry.map_err(io_err(&self.path))?;
            if !entry.file_type().map_err(io_err(&entry.path()))?.is_dir() {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(tp) = TopicPartition::from_dir_name(&name) {
                out.entry(tp.topic.to_string())
                    .or_default()
                    .insert(tp.partition);
            }
        }
        Ok(out)
    }

    fn broker_topic(&self, name: &str, partitions: &BTreeSet<i32>) -> Topic {
        let node = self.node_id();
        let id = partitions.iter().find_map(|p| {
            meta::read_partition_metadata(&self.partition_dir(&TopicPartition::new(name, *p)))
                .ok()
                .flatten()
        });
        Topic {
            name: name.to_string(),
            id,
            partitions: partitions
                .iter()
                .map(|p| PartitionInfo {
                    id: *p,
                    replicas: vec![node],
                })
                .collect(),
            configs: TopicConfigs::default(),
            source: TopicSource::Broker,
        }
    }

    /// Every topic, sorted by name. Safe without the lock: the metadata file changes by
    /// atomic renames.
    pub fn topics(&self) -> Result<Vec<Topic>> {
        let path = self.topics_path();
        let file = self.read_topics_file()?;
        let mut topics: BTreeMap<String, Topic> = BTreeMap::new();
        for (name, entry) in &file.topics {
            topics.insert(name.clone(), entry.to_topic(name, &path)?);
        }
        let mut again: Option<TopicsFile> = None;
        for (name, partitions) in self.partition_dirs()? {
            if file.topics.contains_key(&name)
                || file.pending.contains_key(&name)
                || name == names::CLUSTER_METADATA_TOPIC
            {
                continue;
            }
            // A writer may have started a create after we read the file: look again.
            if again.is_none() {
                again = Some(self.read_topics_file()?);
            }
            let later = again.as_ref();
            if let Some(entry) = later.and_then(|f| f.topics.get(&name)) {
                topics.insert(name.clone(), entry.to_topic(&name, &path)?);
            } else if later.is_some_and(|f| !f.pending.contains_key(&name)) {
                let topic = self.broker_topic(&name, &partitions);
                topics.insert(name, topic);
            }
        }
        Ok(topics.into_values().collect())
    }

    /// One topic by name.
    pub fn topic(&self, name: &str) -> Result<Option<Topic>> {
        Ok(self.topics()?.into_iter().find(|t| t.name == name))
    }

    /// One topic by id.
    pub fn topic_by_id(&self, id: Uuid) -> Result<Option<Topic>> {
        Ok(self.topics()?.into_iter().find(|t| t.id == Some(id)))
    }

    /// Finishes what a crashed writer left: pending topics lose their partition directories,
    /// `-delete` directories and partitions an interrupted alter made are removed, and the
    /// metadata file's temporary too.
    fn recover(&self, _meta: &MetaLock) -> Result<()> {
        remove_file_if_exists(&atomic::temp_path(&self.topics_path()))?;
        let mut file = self.read_topics_file()?;
        if !file.pending.is_empty() {
            for (name, entry) in &file.pending {
                self.remove_partition_dirs(name, entry.topic_id, 0)?;
            }
            file.pending.clear();
            self.write_topics_file(&file)?;
        }
        for (name, entry) in &file.topics {
            let count = i32::try_from(entry.replica_assignment.len()).unwrap_or(i32::MAX);
            self.remove_partition_dirs(name, entry.topic_id, count)?;
        }
        self.remove_delete_dirs()
    }

    fn remove_delete_dirs(&self) -> Result<()> {
        for entry in fs::read_dir(&self.path).map_err(io_err(&self.path))? {
            let entry = entry.map_err(io_err(&self.path))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with("-delete") && entry.path().is_dir() {
                fs::remove_dir_all(entry.path()).map_err(io_err(&entry.path()))?;
            }
        }
        Ok(())
    }

    /// Removes the `<name>-<p>` directories with `p >= from` that belong to the topic with
    /// `id` (or carry no id).
    fn remove_partition_dirs(&self, name: &str, id: Uuid, from: i32) -> Result<()> {
        let dirs = self.partition_dirs()?;
        for p in dirs.get(name).into_iter().flatten().filter(|p| **p >= from) {
            let dir = self.partition_dir(&TopicPartition::new(name, *p));
            match meta::read_partition_metadata(&dir) {
                Ok(Some(found)) if found != id => continue,
                _ => self.delete_partition_dir(&dir, name, *p)?,
            }
        }
        self.remove_delete_dirs()
    }

    /// Renames a partition directory to `<topic>-<p>.<32 hex>-delete` and removes it:
    /// [`delete_partition_dir`].
    fn delete_partition_dir(&self, dir: &Path, topic: &str, partition: i32) -> Result<()> {
        delete_partition_dir(&self.path, dir, topic, partition)
    }

    fn broker_ids(&self) -> Vec<i32> {
        vec![self.node_id()]
    }

    /// KRaft's checks of a manual assignment: [`validate_manual_assignment`].
    fn validate_manual(&self, replicas: &[i32], rf: Option<usize>) -> Result<()> {
        validate_manual_assignment(&self.broker_ids(), replicas, rf)
    }

    /// Places `count` partitions from `start` on with `rf` replicas on the registered
    /// brokers (with one broker every partition lands on it): [`place_on`].
    fn place(&self, count: usize, rf: i32, start: i32) -> Result<Vec<Vec<i32>>> {
        let infos: Vec<placement::BrokerInfo> = self
            .broker_ids()
            .iter()
            .map(|id| placement::BrokerInfo {
                id: *id,
                rack: None,
            })
            .collect();
        place_on(&infos, count, rf, start)
    }

    /// The assignment for a new topic, checked as the KRaft controller checks it.
    fn new_assignment(&self, new: &NewTopic) -> Result<Vec<Vec<i32>>> {
        let too_many =
            DataDirError::PolicyViolation("Excessively large number of partitions per request.");
        if let Some(assignment) = &new.assignment {
            if assignment.len() > MAX_PARTITIONS_PER_REQUEST as usize {
                return Err(too_many);
            }
            let rf = assignment.first().map(Vec::len);
            for replicas in assignment {
                self.validate_manual(replicas, rf)?;
            }
            if assignment.is_empty() {
                return Err(DataDirError::InvalidReplicaAssignment(
                    "partitions should be a consecutive 0-based integer sequence".into(),
                ));
            }
            return Ok(assignment.clone());
        }
        let rf = new.replication_factor.unwrap_or(-1);
        if rf == 0 || rf < -1 {
            return Err(DataDirError::InvalidReplicationFactor(
                "Replication factor must be larger than 0, or -1 to use the default value.".into(),
            ));
        }
        let partitions = new.partitions.unwrap_or(-1);
        if partitions == 0 || partitions < -1 {
            return Err(DataDirError::InvalidPartitions(
                "Number of partitions was set to an invalid non-positive value.".into(),
            ));
        }
        let rf = if rf == -1 { 1 } else { rf };
        let partitions = if partitions == -1 { 1 } else { partitions };
        if partitions > MAX_PARTITIONS_PER_REQUEST {
            return Err(too_many);
        }
        self.place(usize::try_from(partitions).unwrap_or(0), rf, 0)
    }

    /// The controller's first checks of a topic to create, which need no data directory:
    /// Kafka's name rules, and never `__cluster_metadata` (a KRaft broker's data directory
    /// holds its `-0` log, which is the controller's).
    pub fn check_new_topic_name(name: &str) -> Result<()> {
        names::validate_topic_name(name)?;
        if name == names::CLUSTER_METADATA_TOPIC {
            return Err(DataDirError::CreationProhibited(name.to_string()));
        }
        Ok(())
    }

    /// Creates a topic: checks name, existence, collisions and placement in the KRaft
    /// controller's order, makes the partition directories with `partition.metadata`, then
    /// commits the topic file. No segment is created (the log does that on first open).
    pub fn create_topic(&self, lock: &DirLock, new: &NewTopic) -> Result<Topic> {
        debug_assert_eq!(lock.dir(), self.path.as_path());
        let _meta = lock.meta(DEFAULT_LOCK_WAIT)?;
        Self::check_new_topic_name(&new.name)?;
        let existing = self.topics()?;
        if existing.iter().any(|t| t.name == new.name) {
            return Err(DataDirError::TopicExists(new.name.clone()));
        }
        if names::has_collision_chars(&new.name) {
            if let Some(other) = existing
                .iter()
                .find(|t| names::has_collision(&t.name, &new.name))
            {
                return Err(DataDirError::Collision {
                    topic: new.name.clone(),
                    existing: other.name.clone(),
                });
            }
        }
        let assignment = self.new_assignment(new)?;
        let id = Uuid::random();
        let topic = Topic {
            name: new.name.clone(),
            id: Some(id),
            partitions: assignment
                .into_iter()
                .zip(0..)
                .map(|(replicas, id)| PartitionInfo { id, replicas })
                .collect(),
            configs: new.configs.clone(),
            source: TopicSource::Kafkit,
        };
        let entry = TopicEntry::from_topic(&topic, id);
        let mut file = self.read_topics_file()?;
        file.pending.insert(topic.name.clone(), entry.clone());
        self.write_topics_file(&file)?;
        for tp in topic.topic_partitions() {
            self.make_partition_dir(&tp, id)?;
        }
        sync_dir(&self.path).map_err(io_err(&self.path))?;
        file.pending.remove(&topic.name);
        file.topics.insert(topic.name.clone(), entry);
        self.write_topics_file(&file)?;
        Ok(topic)
    }

    fn make_partition_dir(&self, tp: &TopicPartition, id: Uuid) -> Result<()> {
        let dir = self.partition_dir(tp);
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        meta::write_partition_metadata(&dir, id)?;
        Ok(())
    }

    /// Raises a topic's partition count to `count` (Kafka's CreatePartitions), placing the new
    /// partitions or taking `assignment` (one entry per new partition).
    pub fn create_partitions(
        &self,
        lock: &DirLock,
        name: &str,
        count: i32,
        assignment: Option<&[Vec<i32>]>,
    ) -> Result<Topic> {
        debug_assert_eq!(lock.dir(), self.path.as_path());
        let _meta = lock.meta(DEFAULT_LOCK_WAIT)?;
        let mut topic = self
            .topic(name)?
            .ok_or_else(|| DataDirError::UnknownTopic(name.to_string()))?;
        let current = i32::try_from(topic.partition_count()).unwrap_or(i32::MAX);
        if count == current {
            return Err(DataDirError::InvalidPartitions(format!(
                "Topic already has {current} partition(s)."
            )));
        }
        if count < current {
            return Err(DataDirError::InvalidPartitions(format!(
                "The topic {name} currently has {current} partition(s); {count} would not be an increase."
            )));
        }
        if topic.partitions.iter().zip(0..).any(|(p, i)| p.id != i) {
            return Err(DataDirError::InvalidPartitions(format!(
                "The partitions of topic {name} in this directory are not numbered 0..{current}; cannot add partitions."
            )));
        }
        if count - current > MAX_PARTITIONS_PER_REQUEST {
            // Each new partition is a record of the controller's, which takes at most 10000
            // records for one operation (its BoundedListTooLongException).
            return Err(DataDirError::PolicyViolation(
                "Unable to perform excessively large batch operation.",
            ));
        }
        let additional = usize::try_from(count - current).unwrap_or(0);
        let rf = topic.replication_factor();
        let new_replicas = match assignment {
            Some(assignment) => {
                if assignment.len() != additional {
                    return Err(DataDirError::InvalidReplicaAssignment(format!(
                        "Attempted to add {additional} additional partition(s), but only {} assignment(s) were specified.",
                        assignment.len()
                    )));
                }
                for replicas in assignment {
                    self.validate_manual(replicas, Some(rf))?;
                }
                assignment.to_vec()
            }
            None => self.place(additional, i32::try_from(rf.max(1)).unwrap_or(1), current)?,
        };
        let id = topic.id.unwrap_or_else(Uuid::random);
        for (replicas, p) in new_replicas.into_iter().zip(current..) {
            self.make_partition_dir(&TopicPartition::new(name, p), id)?;
            topic.partitions.push(PartitionInfo { id: p, replicas });
        }
        if topic.id.is_none() {
            for tp in topic.topic_partitions() {
                meta::write_partition_metadata(&self.partition_dir(&tp), id)?;
            }
        }
        topic.id = Some(id);
        sync_dir(&self.path).map_err(io_err(&self.path))?;
        let mut file = self.read_topics_file()?;
        file.topics
            .insert(name.to_string(), TopicEntry::from_topic(&topic, id));
        self.write_topics_file(&file)?;
        topic.source = TopicSource::Kafkit;
        Ok(topic)
    }

    /// Changes a topic's config overrides as Kafka's `IncrementalAlterConfigs` does
    /// ([`TopicConfigs::altered`]: deletes, then sets, validated whole), and stores them where
    /// this layout keeps them: the topic's `configs` in [`TOPICS_FILE`], replaced atomically
    /// under the metadata lock. A topic only a broker's partition directories describe gets an
    /// entry there (and, when its partitions carry no id, a new one in `partition.metadata`).
    /// Logs opened from then on follow the new configs.
    pub fn alter_topic_configs(
        &self,
        lock: &DirLock,
        name: &str,
        set: &[(String, String)],
        delete: &[String],
    ) -> Result<Topic> {
        debug_assert_eq!(lock.dir(), self.path.as_path());
        let _meta = lock.meta(DEFAULT_LOCK_WAIT)?;
        let mut topic = self
            .topic(name)?
            .ok_or_else(|| DataDirError::UnknownTopic(name.to_string()))?;
        topic.configs = topic.configs.altered(set, delete)?;
        let id = match topic.id {
            Some(id) => id,
            None => {
                let count = topic.partition_count();
                if topic.partitions.iter().zip(0..).any(|(p, i)| p.id != i) {
                    return Err(DataDirError::InvalidPartitions(format!(
                        "The partitions of topic {name} in this directory are not numbered 0..{count}; cannot store its configs."
                    )));
                }
                let id = Uuid::random();
                for tp in topic.topic_partitions() {
                    meta::write_partition_metadata(&self.partition_dir(&tp), id)?;
                }
                id
            }
        };
        topic.id = Some(id);
        let mut file = self.read_topics_file()?;
        file.topics
            .insert(name.to_string(), TopicEntry::from_topic(&topic, id));
        self.write_topics_file(&file)?;
        topic.source = TopicSource::Kafkit;
        Ok(topic)
    }

    /// Deletes a topic: the topic file goes first (the commit point), then each partition
    /// directory is renamed to `…-delete` and removed, between two appends of any writer of
    /// the partition (under its partition lock). A writer then finds the partition gone.
    pub fn delete_topic(&self, lock: &DirLock, name: &str) -> Result<()> {
        debug_assert_eq!(lock.dir(), self.path.as_path());
        let _meta = lock.meta(DEFAULT_LOCK_WAIT)?;
        let appends = lock.partition_locks()?;
        let topic = self
            .topic(name)?
            .ok_or_else(|| DataDirError::UnknownTopic(name.to_string()))?;
        let id = topic.id.unwrap_or(Uuid::ZERO);
        let mut file = self.read_topics_file()?;
        file.topics.remove(name);
        file.pending
            .insert(name.to_string(), TopicEntry::from_topic(&topic, id));
        self.write_topics_file(&file)?;
        for tp in topic.topic_partitions() {
            let dir = self.partition_dir(&tp);
            if dir.exists() {
                let tp_name = tp.to_string();
                appends.lock(&tp_name)?;
                self.delete_partition_dir(&dir, name, tp.partition)?;
                appends.unlock(&tp_name)?;
            }
        }
        file.pending.remove(name);
        self.write_topics_file(&file)?;
        self.forget_checkpoints(&topic.topic_partitions())
    }

    /// Drops the root checkpoints' entries for partitions that are gone (a deleted topic), so
    /// that a topic created again under the name starts from nothing: a recovery point left
    /// from the old one would have its new log trusted past what was ever flushed. Called
    /// under the metadata lock.
    fn forget_checkpoints(&self, gone: &[TopicPartition]) -> Result<()> {
        for name in [RECOVERY_POINT_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT] {
            let path = self.root_file(name);
            if !path.exists() {
                continue;
            }
            let mut entries = OffsetCheckpoint::read(&path)?;
            let before = entries.len();
            for tp in gone {
                entries.remove(tp);
            }
            if entries.len() != before {
                OffsetCheckpoint::write(&path, &entries)?;
            }
        }
        // A cache: an entry left behind fails its file check, it is only tidier gone.
        let path = self.root_file(tails::UNFLUSHED_TAILS);
        let mut tails = tails::UnflushedTails::read(&path);
        for tp in gone {
            tails.forget(tp);
        }
        let _ = tails.write(&path);
        Ok(())
    }
}

fn remove_file_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Renames the partition directory `dir` (in the log directory `parent`) to
/// `<topic>-<p>.<32 hex>-delete` (as a broker does, so a crash never leaves a half-removed
/// partition under its real name), then removes it.
pub fn delete_partition_dir(parent: &Path, dir: &Path, topic: &str, partition: i32) -> Result<()> {
    let unique = Uuid::random()
        .0
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    let suffix = format!("-{partition}.{unique}-delete");
    // Kafka truncates the topic part so the whole name fits in 255 bytes.
    let keep = topic.len().min(255usize.saturating_sub(suffix.len()));
    let name = format!("{}{suffix}", topic.get(..keep).unwrap_or(topic));
    let target = parent.join(name);
    fs::rename(dir, &target).map_err(io_err(dir))?;
    sync_dir(parent).map_err(io_err(parent))?;
    fs::remove_dir_all(&target).map_err(io_err(&target))
}

/// KRaft's checks of a manual assignment (`validateManualPartitionAssignment`) of `replicas`
/// over the registered `brokers`, `rf` the previous partitions' replica count.
pub fn validate_manual_assignment(
    brokers: &[i32],
    replicas: &[i32],
    rf: Option<usize>,
) -> Result<()> {
    let bad = |m: String| Err(DataDirError::InvalidReplicaAssignment(m));
    if replicas.is_empty() {
        return bad("The manual partition assignment includes an empty replica list.".into());
    }
    let mut sorted = replicas.to_vec();
    sorted.sort_unstable();
    let mut prev = None;
    for b in &sorted {
        if !brokers.contains(b) {
            return bad(format!(
                "The manual partition assignment includes broker {b}, but no such broker is registered."
            ));
        }
        if prev == Some(*b) {
            return bad(format!(
                "The manual partition assignment includes the broker {b} more than once."
            ));
        }
        prev = Some(*b);
    }
    if let Some(rf) = rf {
        if sorted.len() != rf {
            return bad(format!(
                "The manual partition assignment includes a partition with {} replica(s), but this is not consistent with previous partitions, which have {rf} replica(s).",
                sorted.len()
            ));
        }
    }
    Ok(())
}

/// Places `count` partitions from `start` on with `rf` replicas on `brokers`: the KRaft
/// controller's checks and messages, then Kafka's classic placement
/// ([`placement::assign_replicas_to_brokers`], rack-aware when every broker has a rack).
pub fn place_on(
    brokers: &[placement::BrokerInfo],
    count: usize,
    rf: i32,
    start: i32,
) -> Result<Vec<Vec<i32>>> {
    let unable = |why: String| {
        DataDirError::InvalidReplicationFactor(format!(
            "Unable to replicate the partition {rf} time(s): {why}"
        ))
    };
    if rf <= 0 {
        return Err(unable(format!(
            "Invalid replication factor {rf}: the replication factor must be positive."
        )));
    }
    if usize::try_from(rf).unwrap_or(usize::MAX) > brokers.len() {
        return Err(unable(format!(
            "The target replication factor of {rf} cannot be reached because only {} broker(s) are registered.",
            brokers.len()
        )));
    }
    let count = i32::try_from(count).unwrap_or(i32::MAX);
    let placed = placement::assign_replicas_to_brokers(brokers, count, rf, -1, start)
        .map_err(|e| DataDirError::InvalidReplicationFactor(e.to_string()))?;
    Ok(placed.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_dir_names() {
        assert_eq!(
            TopicPartition::from_dir_name("my-topic-12"),
            Some(TopicPartition::new("my-topic", 12))
        );
        assert_eq!(TopicPartition::from_dir_name("golden"), None);
        assert_eq!(TopicPartition::from_dir_name("t-01"), None);
        assert_eq!(
            TopicPartition::from_dir_name("t--1"),
            Some(TopicPartition::new("t-", 1))
        );
        assert_eq!(
            TopicPartition::from_dir_name("t-0.0123456789abcdef0123456789abcdef-delete"),
            None
        );
        assert_eq!(TopicPartition::from_dir_name(".kafkit"), None);
    }
}
