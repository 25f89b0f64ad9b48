//! `kafkit cluster init`: a local cluster laid out as Kafka's would be, in Kafka's formats.
//!
//! ```text
//! <dir>/
//!   __cluster_metadata-0/        the cluster's KRaft metadata log (the truth)
//!   broker-1/meta.properties     one log directory per broker: version 1, node.id,
//!   broker-2/meta.properties       the shared cluster.id, its own directory.id
//!   ...
//! ```
//!
//! The log holds what a controller writes when brokers of a new cluster register: a
//! `LeaderChange` control record naming the controller (the first broker, as in a combined
//! node), the `metadata.version` feature level, and per broker a `RegisterBrokerRecord`
//! (listener `PLAINTEXT` on `localhost`, port 9092 for the first broker and one more for each
//! next one, its rack, its log directory's id, fenced) then an `UnfenceBrokerRecord`. Each
//! broker's epoch is the offset of its registration, as in Kafka. Cluster-wide broker configs
//! (`--config`) follow as `ConfigRecord`s of the default broker resource. The whole layout is made in
//! a temporary directory beside `<dir>` and renamed into place: a crash leaves no cluster or
//! the whole one.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::image::METADATA_PARTITION;
use super::records::{resource_type, Endpoint, MetadataRecord, RegisterBroker};
use crate::common::Uuid;
use crate::datadir::meta::{MetaError, MetaProperties, META_PROPERTIES};
use crate::datadir::sync_dir;
use crate::decode::jvalue::JValue;
use crate::decode::schema::{schema, EncodeError};
use crate::log::partition::LogCheckpoints;
use crate::log::{Log, LogConfig, LogError};
use crate::record::{BatchBuilder, Compression, ControlRecordType, RecordError, TimestampType};

/// `metadata.version` 4.0-IV3, Kafka 4.0's latest.
pub const METADATA_VERSION: i16 = 25;
/// The lowest `metadata.version` a Kafka 4.0 broker supports (3.3-IV3).
pub const MIN_METADATA_VERSION: i16 = 7;
/// The first broker's port; the next ones count up from it.
pub const FIRST_PORT: u16 = 9092;
/// The most brokers `init` makes.
pub const MAX_BROKERS: i32 = 1000;
/// kafkit's own controller settings in a cluster's directory (no Kafka file): `placement.seed`.
pub const CONTROLLER_PROPERTIES: &str = "controller.properties";
/// The property that makes the controller's replica placement repeatable.
pub const PLACEMENT_SEED: &str = "placement.seed";

/// Why a cluster could not be made or its metadata log written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// A broker count out of range.
    #[error("--brokers must be between 1 and {MAX_BROKERS}, not {0}")]
    BrokerCount(i32),
    /// A rack for a broker the cluster does not have.
    #[error("--rack names broker {0}, but the brokers are 1 to {1}")]
    RackBroker(i32, i32),
    /// The directory exists and is not empty.
    #[error("{} exists and is not empty: a cluster is made in a new or empty directory", .0.display())]
    NotEmpty(PathBuf),
    /// `controller.properties` holds a `placement.seed` that is not a number.
    #[error("{}: {PLACEMENT_SEED} must be a non-negative integer, not {value:?}", path.display())]
    PlacementSeed {
        /// The file.
        path: PathBuf,
        /// What it holds.
        value: String,
    },
    /// The file system failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What kafkit was doing.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `meta.properties` could not be written.
    #[error(transparent)]
    Meta(#[from] MetaError),
    /// The metadata log could not be written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A batch could not be built.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A record could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> InitError + 'a {
    move |source| InitError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// A broker `init` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitBroker {
    /// Its id.
    pub id: i32,
    /// Its log directory.
    pub dir: PathBuf,
    /// Its log directory's id.
    pub directory_id: Uuid,
    /// Its rack.
    pub rack: Option<String>,
    /// Its listener's port on localhost.
    pub port: u16,
}

/// What `init` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitReport {
    /// The cluster id every broker's `meta.properties` holds.
    pub cluster_id: String,
    /// The brokers, by id.
    pub brokers: Vec<InitBroker>,
    /// The metadata log's directory.
    pub metadata_dir: PathBuf,
}

/// Appends `records` to the metadata log in `dir` as one batch (creating the log when absent)
/// and returns the offset of the first. Offsets are the log's next ones.
pub fn append_records(
    dir: &Path,
    records: &[MetadataRecord],
    now_ms: i64,
) -> Result<i64, InitError> {
    let mut log = Log::open(dir, LogConfig::default(), LogCheckpoints::default(), now_ms)?;
    let first = log.log_end_offset();
    if !records.is_empty() {
        let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        for record in records {
            batch.append(now_ms, None, Some(&record.encode()?), &[]);
        }
        log.append(&batch.build()?, now_ms)?;
    }
    log.close()?;
    Ok(first)
}

/// Appends a `LeaderChange` control record naming `leader` the controller, voted by itself.
fn append_leader_change(dir: &Path, leader: i32, now_ms: i64) -> Result<(), InitError> {
    let voter = |id: i32| JValue::Obj(vec![("voterId".into(), JValue::Int(i64::from(id)))]);
    let message = JValue::Obj(vec![
        ("version".into(), JValue::Int(0)),
        ("leaderId".into(), JValue::Int(i64::from(leader))),
        ("voters".into(), JValue::Arr(vec![voter(leader)])),
        ("grantingVoters".into(), JValue::Arr(vec![voter(leader)])),
    ]);
    // The message carries its own version field; the value is the message alone.
    let value = schema("LeaderChangeMessage")
        .map_err(|_| EncodeError::UnsupportedVersion {
            version: 0,
            message: "LeaderChangeMessage".into(),
        })?
        .write(&message, 0)?;
    let key = ControlRecordType::LeaderChange.encode_key();
    let mut batch =
        BatchBuilder::new(0, Compression::None, TimestampType::CreateTime).control(true);
    batch.append(now_ms, Some(&key), Some(&value), &[]);
    let mut log = Log::open(dir, LogConfig::default(), LogCheckpoints::default(), now_ms)?;
    log.append(&batch.build()?, now_ms)?;
    log.close()?;
    Ok(())
}

/// Makes a cluster of `brokers` brokers (ids 1 to N) in `dir`, with `racks` (broker id →
/// rack) and cluster-wide broker `configs` (`ConfigRecord`s of the default broker resource,
/// `""`, as `kafka-configs.sh --entity-default` writes them). A `placement_seed` is kept in
/// [`CONTROLLER_PROPERTIES`]: see [`placement_seed`].
pub fn init(
    dir: &Path,
    brokers: i32,
    racks: &BTreeMap<i32, String>,
    configs: &BTreeMap<String, String>,
    placement_seed: Option<u64>,
    now_ms: i64,
) -> Result<InitReport, InitError> {
    if !(1..=MAX_BROKERS).contains(&brokers) {
        return Err(InitError::BrokerCount(brokers));
    }
    if let Some((&id, _)) = racks.iter().find(|(&id, _)| !(1..=brokers).contains(&id)) {
        return Err(InitError::RackBroker(id, brokers));
    }
    if dir.exists() {
        let mut entries = fs::read_dir(dir).map_err(io("reading", dir))?;
        if entries.next().is_some() {
            return Err(InitError::NotEmpty(dir.to_path_buf()));
        }
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cluster".into());
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = parent.join(format!(".{name}.init-{}", std::process::id()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(io("removing", &tmp))?;
    }
    fs::create_dir(&tmp).map_err(io("creating", &tmp))?;
    let made = lay_out(&tmp, brokers, racks, configs, placement_seed, now_ms);
    let report = match made {
        Ok(report) => report,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    // rename(2) replaces an empty directory.
    fs::rename(&tmp, dir).map_err(io("renaming into place", dir))?;
    sync_dir(&parent).map_err(io("syncing", &parent))?;
    let moved = |p: &Path| dir.join(p.strip_prefix(&tmp).unwrap_or(p));
    Ok(InitReport {
        cluster_id: report.cluster_id,
        metadata_dir: moved(&report.metadata_dir),
        brokers: report
            .brokers
            .into_iter()
            .map(|b| InitBroker {
                dir: moved(&b.dir),
                ..b
            })
            .collect(),
    })
}

/// The seed the cluster's controller places replicas with, from `<dir>/controller.properties`
/// (`cluster init --placement-seed`): each `topics --create` then draws from Kafka's
/// `MockRandom(seed)`. `None` (no file, or no such property): a random placement, as Kafka's
/// controller's unseeded `Random` makes.
pub fn placement_seed(dir: &Path) -> Result<Option<u64>, InitError> {
    let path = dir.join(CONTROLLER_PROPERTIES);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(InitError::Io {
                action: "reading",
                path,
                source,
            })
        }
    };
    let seed = text.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        (name.trim() == PLACEMENT_SEED).then(|| value.trim().to_string())
    });
    seed.map(|value| {
        value
            .parse()
            .map_err(|_| InitError::PlacementSeed { path, value })
    })
    .transpose()
}

fn lay_out(
    root: &Path,
    brokers: i32,
    racks: &BTreeMap<i32, String>,
    configs: &BTreeMap<String, String>,
    placement_seed: Option<u64>,
    now_ms: i64,
) -> Result<InitReport, InitError> {
    if let Some(seed) = placement_seed {
        let path = root.join(CONTROLLER_PROPERTIES);
        let text = format!(
            "# kafkit's controller settings (not a Kafka file): topics --create draws replica\n\
             # placement from Kafka's MockRandom with this seed.\n{PLACEMENT_SEED}={seed}\n"
        );
        fs::write(&path, text).map_err(io("writing", &path))?;
    }
    let cluster_id = Uuid::random().to_string();
    let mut made = Vec::new();
    for id in 1..=brokers {
        let dir = root.join(format!("broker-{id}"));
        fs::create_dir(&dir).map_err(io("creating", &dir))?;
        let directory_id = Uuid::random();
        MetaProperties {
            version: 1,
            node_id: id,
            cluster_id: Some(cluster_id.clone()),
            directory_id: Some(directory_id),
        }
        .write(&dir.join(META_PROPERTIES))?;
        let port = u16::try_from(id - 1)
            .ok()
            .and_then(|i| FIRST_PORT.checked_add(i))
            .unwrap_or(u16::MAX);
        made.push(InitBroker {
            id,
            dir,
            directory_id,
            rack: racks.get(&id).cloned(),
            port,
        });
    }
    let metadata_dir = root.join(METADATA_PARTITION);
    append_leader_change(&metadata_dir, 1, now_ms)?;
    // The registrations follow the feature level: broker i's record is at offset first + i.
    let first = Log::open(
        &metadata_dir,
        LogConfig::default(),
        LogCheckpoints::default(),
        now_ms,
    )?
    .close()?;
    let mut records = vec![MetadataRecord::FeatureLevel {
        name: "metadata.version".into(),
        level: METADATA_VERSION,
    }];
    let mut epoch = first + 1;
    for b in &made {
        records.push(MetadataRecord::RegisterBroker(RegisterBroker {
            broker_id: b.id,
            incarnation_id: Uuid::random(),
            broker_epoch: epoch,
            endpoints: vec![Endpoint {
                name: "PLAINTEXT".into(),
                host: "localhost".into(),
                port: b.port,
                security_protocol: 0,
            }],
            features: vec![(
                "metadata.version".into(),
                MIN_METADATA_VERSION,
                METADATA_VERSION,
            )],
            rack: b.rack.clone(),
            fenced: true,
            in_controlled_shutdown: false,
            log_dirs: vec![b.directory_id],
        }));
        epoch += 1;
    }
    let epochs = (first + 1)..epoch;
    for (b, epoch) in made.iter().zip(epochs) {
        records.push(MetadataRecord::UnfenceBroker { id: b.id, epoch });
    }
    for (name, value) in configs {
        records.push(MetadataRecord::Config {
            resource_type: resource_type::BROKER,
            resource_name: String::new(),
            name: name.clone(),
            value: Some(value.clone()),
        });
    }
    append_records(&metadata_dir, &records, now_ms)?;
    sync_dir(root).map_err(io("syncing", root))?;
    Ok(InitReport {
        cluster_id,
        brokers: made,
        metadata_dir,
    })
}
