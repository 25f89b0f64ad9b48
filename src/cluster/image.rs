//! The cluster's metadata image (Kafka's `MetadataImage`), replayed from a `__cluster_metadata-0`
//! directory as a broker loads it: the newest snapshot (`<end offset>-<epoch>.checkpoint`) if
//! any, then the log's records from the snapshot's end offset on.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::records::{
    resource_type, Endpoint, MetadataRecord, PartitionChange, RecordFieldError, RegisterBroker,
    NO_LEADER_CHANGE,
};
use crate::common::Uuid;
use crate::decode::jvalue::JValue;
use crate::log::segment::parse_base_offset;
use crate::log::{LogError, SegmentReader, Stop};
use crate::record::{ControlRecordType, RecordError};

/// The metadata log's partition directory name.
pub const METADATA_PARTITION: &str = "__cluster_metadata-0";

/// Why a metadata directory could not be replayed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// The directory could not be listed.
    #[error("reading the directory {}: {source}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Neither a snapshot nor a log segment in the directory.
    #[error("{} holds no KRaft snapshot (.checkpoint) and no log segment (.log)", path.display())]
    Empty {
        /// The directory.
        path: PathBuf,
    },
    /// A file could not be read or framed.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A batch or record that does not decode (bad CRC, cut record, ...).
    #[error("{} at byte {position}: {source}", path.display())]
    Batch {
        /// The file.
        path: PathBuf,
        /// The batch's byte position.
        position: u64,
        /// What the decoder found.
        source: RecordError,
    },
    /// A metadata record that does not decode.
    #[error("{} offset {offset}: {source}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// The record's offset.
        offset: i64,
        /// What is wrong.
        source: RecordFieldError,
    },
    /// A record naming what the image does not have (a partition of an unknown topic, ...).
    #[error("{} offset {offset}: {source}", path.display())]
    Inconsistent {
        /// The file.
        path: PathBuf,
        /// The record's offset.
        offset: i64,
        /// What it names.
        source: Inconsistency,
    },
    /// The log starts after the snapshot ends (or after 0 without a snapshot): records are
    /// missing between them.
    #[error("{}: the log starts at offset {log_start} but the image needs the records from offset {needed}", path.display())]
    Gap {
        /// The directory.
        path: PathBuf,
        /// The first offset of the log.
        log_start: i64,
        /// Where the snapshot ends (0 without one).
        needed: i64,
    },
}

type Result<T> = std::result::Result<T, ImageError>;

/// A record that cannot be applied: it names what the image does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Inconsistency {
    /// A partition (or its change) of a topic id without a `TopicRecord`.
    #[error("a partition of topic id {0}, which does not exist")]
    UnknownTopicId(Uuid),
    /// A change of a partition the topic does not have.
    #[error("a change of partition {topic}-{partition}, which does not exist")]
    UnknownPartition {
        /// The topic.
        topic: String,
        /// The partition number.
        partition: i32,
    },
    /// The removal of a topic id that does not exist.
    #[error("the removal of topic id {0}, which does not exist")]
    RemoveUnknownTopic(Uuid),
    /// A `ClearElrRecord` of a topic that does not exist.
    #[error("the clearing of the ELRs of topic {0}, which does not exist")]
    ClearElrOfUnknownTopic(String),
    /// A change of a broker that is not registered.
    #[error("a change of broker {0}, which is not registered")]
    UnknownBroker(i32),
    /// A change of a broker at another epoch than its registration's.
    #[error("a change of broker {broker} at epoch {epoch}, registered at epoch {registered}")]
    BrokerEpoch {
        /// The broker.
        broker: i32,
        /// The epoch the record names.
        epoch: i64,
        /// The registration's epoch.
        registered: i64,
    },
}

/// A registered broker (Kafka's `BrokerRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    /// The broker id.
    pub id: i32,
    /// Its epoch.
    pub epoch: i64,
    /// Its incarnation id.
    pub incarnation_id: Uuid,
    /// Its listeners.
    pub endpoints: Vec<Endpoint>,
    /// `broker.rack`.
    pub rack: Option<String>,
    /// Fenced: not serving (not alive in metadata responses).
    pub fenced: bool,
    /// In controlled shutdown.
    pub in_controlled_shutdown: bool,
    /// Its log directories' ids.
    pub log_dirs: Vec<Uuid>,
}

impl Broker {
    /// Kafka's `isActive`: unfenced and not shutting down; only such brokers may lead.
    pub fn is_active(&self) -> bool {
        !self.fenced && !self.in_controlled_shutdown
    }
}

/// A partition's state (Kafka's `PartitionRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// Replicas, preferred leader first.
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// Replicas a reassignment removes.
    pub removing_replicas: Vec<i32>,
    /// Replicas a reassignment adds.
    pub adding_replicas: Vec<i32>,
    /// The leader; -1 for none.
    pub leader: i32,
    /// 0 recovered, 1 recovering.
    pub leader_recovery_state: i8,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch.
    pub partition_epoch: i32,
    /// Eligible leader replicas (KIP-966).
    pub elr: Vec<i32>,
    /// Last known eligible leader replicas.
    pub last_known_elr: Vec<i32>,
}

impl Partition {
    /// Kafka's `PartitionRegistration.merge`: what the record sets replaces, a new leader
    /// (even the same one) bumps the leader epoch, every change bumps the partition epoch.
    pub fn merge(&mut self, c: PartitionChange) {
        let set = |slot: &mut Vec<i32>, new: Option<Vec<i32>>| {
            if let Some(new) = new {
                *slot = new;
            }
        };
        set(&mut self.replicas, c.replicas);
        set(&mut self.isr, c.isr);
        set(&mut self.removing_replicas, c.removing_replicas);
        set(&mut self.adding_replicas, c.adding_replicas);
        set(&mut self.elr, c.eligible_leader_replicas);
        set(&mut self.last_known_elr, c.last_known_elr);
        if c.leader != NO_LEADER_CHANGE {
            self.leader = c.leader;
            self.leader_epoch = self.leader_epoch.saturating_add(1);
        }
        if c.leader_recovery_state >= 0 {
            self.leader_recovery_state = c.leader_recovery_state;
        }
        self.partition_epoch = self.partition_epoch.saturating_add(1);
    }
}

/// A topic and its partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// The name.
    pub name: String,
    /// The id.
    pub id: Uuid,
    /// Its partitions by number.
    pub partitions: BTreeMap<i32, Partition>,
}

/// Where an image was read from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Provenance {
    /// The snapshot loaded, if any.
    pub snapshot: Option<PathBuf>,
    /// The offset after the last record applied (the image's offset, exclusive).
    pub end_offset: i64,
    /// Records read (snapshot and log), control records left out.
    pub records: u64,
    /// Record types read and passed over, with their counts.
    pub skipped: BTreeMap<&'static str, u64>,
    /// What was not applied and why: a torn log tail, an unfinished transaction.
    pub warnings: Vec<String>,
}

/// The cluster's state as its metadata log says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataImage {
    /// Registered brokers by id.
    pub brokers: BTreeMap<i32, Broker>,
    /// Topics by name.
    pub topics: BTreeMap<String, Topic>,
    /// Topic names by id.
    topic_names: HashMap<Uuid, String>,
    /// Topic configs by topic name, then name → value.
    pub topic_configs: BTreeMap<String, BTreeMap<String, String>>,
    /// Broker configs by broker id (`""`: the cluster default), then name → value.
    pub broker_configs: BTreeMap<String, BTreeMap<String, String>>,
    /// Finalized feature levels.
    pub features: BTreeMap<String, i16>,
    /// The active controller, from the log's last `LeaderChange` control record.
    pub controller: Option<i32>,
    /// Where the image comes from.
    pub provenance: Provenance,
}

/// A record applied, or what it names that the image lacks.
type Applied = std::result::Result<(), Inconsistency>;

impl MetadataImage {
    /// The topic of an id.
    pub fn topic_by_id(&self, id: Uuid) -> Option<&Topic> {
        self.topic_names.get(&id).and_then(|n| self.topics.get(n))
    }

    /// A config of a topic as the controller resolves it: the topic's, else the cluster-wide
    /// broker default (`""`); a broker's own static `server.properties` is not in the log.
    pub fn topic_config(&self, topic: &str, name: &str) -> Option<&str> {
        self.topic_configs
            .get(topic)
            .and_then(|c| c.get(name))
            .or_else(|| self.broker_configs.get("").and_then(|c| c.get(name)))
            .map(String::as_str)
    }

    /// Applies one record (Kafka's `MetadataDelta.replay`).
    pub fn apply(&mut self, record: MetadataRecord) -> Applied {
        match record {
            MetadataRecord::RegisterBroker(r) => self.register(r),
            MetadataRecord::UnregisterBroker {
                broker_id,
                broker_epoch,
            } => {
                if self.brokers.get(&broker_id).map(|b| b.epoch) == Some(broker_epoch) {
                    self.brokers.remove(&broker_id);
                }
            }
            MetadataRecord::Topic { name, topic_id } => {
                self.topic_names.insert(topic_id, name.clone());
                self.topics.insert(
                    name.clone(),
                    Topic {
                        name,
                        id: topic_id,
                        partitions: BTreeMap::new(),
                    },
                );
            }
            MetadataRecord::Partition(r) => {
                let topic = self.topic_mut(r.topic_id)?;
                topic.partitions.insert(r.partition_id, r.partition);
            }
            MetadataRecord::PartitionChange(c) => {
                let topic = self.topic_mut(c.topic_id)?;
                let id = c.partition_id;
                let Some(partition) = topic.partitions.get_mut(&id) else {
                    return Err(Inconsistency::UnknownPartition {
                        topic: topic.name.clone(),
                        partition: id,
                    });
                };
                partition.merge(c);
            }
            MetadataRecord::RemoveTopic { topic_id } => {
                let Some(name) = self.topic_names.remove(&topic_id) else {
                    return Err(Inconsistency::RemoveUnknownTopic(topic_id));
                };
                self.topics.remove(&name);
                self.topic_configs.remove(&name);
            }
            MetadataRecord::Config {
                resource_type,
                resource_name,
                name,
                value,
            } => {
                let configs = match resource_type {
                    resource_type::TOPIC => &mut self.topic_configs,
                    resource_type::BROKER => &mut self.broker_configs,
                    _ => return Ok(()),
                };
                match value {
                    Some(value) => {
                        configs
                            .entry(resource_name)
                            .or_default()
                            .insert(name, value);
                    }
                    None => {
                        if let Some(c) = configs.get_mut(&resource_name) {
                            c.remove(&name);
                            if c.is_empty() {
                                configs.remove(&resource_name);
                            }
                        }
                    }
                }
            }
            MetadataRecord::FenceBroker { id, epoch } => {
                self.change_broker(id, epoch, Some(true), None)?
            }
            MetadataRecord::UnfenceBroker { id, epoch } => {
                self.change_broker(id, epoch, Some(false), None)?;
            }
            MetadataRecord::BrokerRegistrationChange {
                broker_id,
                broker_epoch,
                fenced,
                in_controlled_shutdown,
            } => {
                let fenced = match fenced {
                    1 => Some(true),
                    -1 => Some(false),
                    _ => None,
                };
                let shutdown = (in_controlled_shutdown == 1).then_some(true);
                self.change_broker(broker_id, broker_epoch, fenced, shutdown)?;
            }
            MetadataRecord::ClearElr { topic_name } => {
                if !topic_name.is_empty() && !self.topics.contains_key(&topic_name) {
                    return Err(Inconsistency::ClearElrOfUnknownTopic(topic_name));
                }
                // Kafka's `TopicDelta.replay(ClearElrRecord)`: a change (a new partition
                // epoch) for each partition that has an ELR or a last known ELR.
                let topics = self
                    .topics
                    .values_mut()
                    .filter(|t| topic_name.is_empty() || t.name == topic_name);
                for topic in topics {
                    for (&partition_id, p) in &mut topic.partitions {
                        if p.elr.is_empty() && p.last_known_elr.is_empty() {
                            continue;
                        }
                        p.merge(PartitionChange {
                            eligible_leader_replicas: Some(Vec::new()),
                            last_known_elr: Some(Vec::new()),
                            ..PartitionChange::none(topic.id, partition_id)
                        });
                    }
                }
            }
            MetadataRecord::FeatureLevel { name, level } => {
                if level == 0 {
                    self.features.remove(&name);
                } else {
                    self.features.insert(name, level);
                }
            }
            MetadataRecord::BeginTransaction
            | MetadataRecord::EndTransaction
            | MetadataRecord::AbortTransaction => {}
            MetadataRecord::Skipped(s) => {
                *self.provenance.skipped.entry(s.0).or_default() += 1;
            }
        }
        Ok(())
    }

    fn register(&mut self, r: RegisterBroker) {
        self.brokers.insert(
            r.broker_id,
            Broker {
                id: r.broker_id,
                epoch: r.broker_epoch,
                incarnation_id: r.incarnation_id,
                endpoints: r.endpoints,
                rack: r.rack,
                fenced: r.fenced,
                in_controlled_shutdown: r.in_controlled_shutdown,
                log_dirs: r.log_dirs,
            },
        );
    }

    fn topic_mut(&mut self, id: Uuid) -> std::result::Result<&mut Topic, Inconsistency> {
        self.topic_names
            .get(&id)
            .and_then(|name| self.topics.get_mut(name))
            .ok_or(Inconsistency::UnknownTopicId(id))
    }

    fn change_broker(
        &mut self,
        id: i32,
        epoch: i64,
        fenced: Option<bool>,
        in_controlled_shutdown: Option<bool>,
    ) -> Applied {
        let Some(broker) = self.brokers.get_mut(&id) else {
            return Err(Inconsistency::UnknownBroker(id));
        };
        if broker.epoch != epoch {
            return Err(Inconsistency::BrokerEpoch {
                broker: id,
                epoch,
                registered: broker.epoch,
            });
        }
        if let Some(fenced) = fenced {
            broker.fenced = fenced;
        }
        if let Some(shutdown) = in_controlled_shutdown {
            broker.in_controlled_shutdown = shutdown;
        }
        Ok(())
    }

    /// Replays a `__cluster_metadata-0` directory: the newest snapshot, then the log's records
    /// from its end offset on. Records in a metadata transaction apply at its end record; an
    /// aborted one is dropped, an unfinished one left out with a warning.
    pub fn load(dir: &Path) -> Result<MetadataImage> {
        let (snapshots, segments) = list(dir)?;
        let mut image = MetadataImage::default();
        let mut replay = Replay::default();
        let mut needed = 0;
        if let Some((end_offset, path)) = snapshots.into_iter().max() {
            replay.file(&mut image, &path, None)?;
            replay.finish(&mut image);
            image.provenance.snapshot = Some(path);
            image.provenance.end_offset = end_offset;
            needed = end_offset;
        }
        if let Some(&(first, _)) = segments.first() {
            if first > needed {
                return Err(ImageError::Gap {
                    path: dir.to_path_buf(),
                    log_start: first,
                    needed,
                });
            }
        } else if image.provenance.snapshot.is_none() {
            return Err(ImageError::Empty {
                path: dir.to_path_buf(),
            });
        }
        for (_, path) in &segments {
            replay.file(&mut image, path, Some(needed))?;
        }
        replay.finish(&mut image);
        Ok(image)
    }
}

/// `<20-digit end offset>-<10-digit epoch>.checkpoint` → (end offset, epoch): a KRaft
/// snapshot's name.
pub fn parse_snapshot_name(name: &str) -> Option<(i64, i32)> {
    let stem = name.strip_suffix(".checkpoint")?;
    let (offset, epoch) = stem.split_once('-')?;
    if offset.len() != 20 || epoch.len() != 10 {
        return None;
    }
    if !offset
        .bytes()
        .chain(epoch.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((offset.parse().ok()?, epoch.parse().ok()?))
}

/// The snapshots (by end offset, then epoch) and log segments (by base offset) of a directory.
type Listing = (Vec<(i64, PathBuf)>, Vec<(i64, PathBuf)>);

fn list(dir: &Path) -> Result<Listing> {
    let io = |source| ImageError::Dir {
        path: dir.to_path_buf(),
        source,
    };
    let mut snapshots = Vec::new();
    let mut segments = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some((offset, _epoch)) = parse_snapshot_name(name) {
            snapshots.push((offset, entry.path()));
        } else if let Some(base) = name
            .strip_suffix(".log")
            .and_then(|_| parse_base_offset(name))
        {
            segments.push((base, entry.path()));
        }
    }
    segments.sort();
    Ok((snapshots, segments))
}

/// The replay's state across files: the records of an open metadata transaction.
#[derive(Default)]
struct Replay {
    pending: Option<Vec<(PathBuf, i64, MetadataRecord)>>,
}

impl Replay {
    /// Applies the data records of one file (from offset `from` on, when given).
    fn file(&mut self, image: &mut MetadataImage, path: &Path, from: Option<i64>) -> Result<()> {
        let mut reader = SegmentReader::open(path, 0)?;
        while let Some((position, batch)) = reader.next_batch()? {
            let corrupt = |source| ImageError::Batch {
                path: path.to_path_buf(),
                position,
                source,
            };
            if from.is_some_and(|from| batch.last_offset() < from) {
                continue;
            }
            batch.ensure_valid().map_err(corrupt)?;
            let control = batch.is_control();
            for record in batch.record_iter().map_err(corrupt)? {
                let record = record.map_err(corrupt)?;
                if from.is_some_and(|from| record.offset < from) {
                    continue;
                }
                image.provenance.end_offset = record.offset + 1;
                if control {
                    self.control(image, &record);
                    continue;
                }
                let value = record.value.as_deref().unwrap_or_default();
                let typed = MetadataRecord::read(value).map_err(|source| ImageError::Record {
                    path: path.to_path_buf(),
                    offset: record.offset,
                    source,
                })?;
                image.provenance.records += 1;
                self.record(image, path, record.offset, typed)?;
            }
        }
        if let Stop::Trailing { position, bytes } = reader.stop() {
            image.provenance.warnings.push(format!(
                "{} ends with {bytes} bytes at byte {position} that are not a whole batch (a torn write, left out as Kafka's recovery would)",
                path.display()
            ));
        }
        Ok(())
    }

    fn control(&mut self, image: &mut MetadataImage, record: &crate::record::Record) {
        if ControlRecordType::of_record(record).ok() != Some(ControlRecordType::LeaderChange) {
            return;
        }
        let leader =
            crate::decode::kraft_control(ControlRecordType::LeaderChange, record.value.as_deref())
                .and_then(std::result::Result::ok)
                .and_then(|(_, json)| match json.get("leaderId") {
                    Some(JValue::Int(id)) => i32::try_from(*id).ok(),
                    _ => None,
                });
        if let Some(leader) = leader.filter(|&id| id >= 0) {
            image.controller = Some(leader);
        }
    }

    fn record(
        &mut self,
        image: &mut MetadataImage,
        path: &Path,
        offset: i64,
        record: MetadataRecord,
    ) -> Result<()> {
        match (&mut self.pending, record) {
            (_, MetadataRecord::BeginTransaction) => {
                self.pending = Some(Vec::new());
            }
            (Some(_), MetadataRecord::AbortTransaction) => self.pending = None,
            (Some(_), MetadataRecord::EndTransaction) => {
                for (path, offset, record) in self.pending.take().unwrap_or_default() {
                    apply(image, &path, offset, record)?;
                }
            }
            (Some(pending), record) => pending.push((path.to_path_buf(), offset, record)),
            (None, record) => apply(image, path, offset, record)?,
        }
        Ok(())
    }

    /// The end of the records: a transaction still open is left out.
    fn finish(&mut self, image: &mut MetadataImage) {
        if let Some(pending) = self.pending.take() {
            image.provenance.warnings.push(format!(
                "a metadata transaction of {} records has not ended; they are left out",
                pending.len()
            ));
        }
    }
}

fn apply(
    image: &mut MetadataImage,
    path: &Path,
    offset: i64,
    record: MetadataRecord,
) -> Result<()> {
    image
        .apply(record)
        .map_err(|source| ImageError::Inconsistent {
            path: path.to_path_buf(),
            offset,
            source,
        })
}
