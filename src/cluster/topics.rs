//! Creating a topic in a cluster made by `cluster init`, as its KRaft controller would: checks,
//! replica placement with Kafka's `StripedReplicaPlacer` (`datadir::placement::striped`) over
//! the brokers not in controlled shutdown (fenced ones only as followers), from an unseeded
//! `Random` or, when the cluster has a `placement.seed`, Kafka's `MockRandom(seed)`; then one
//! batch of `TopicRecord`, `PartitionRecord`s (ISR = the replicas on active brokers, the first
//! of them leads; each replica's log directory id) and `ConfigRecord`s appended to the metadata log, and each
//! replica's partition directory (with `partition.metadata`) in its broker's log directory.
//!
//! `--alter --partitions` adds `PartitionRecord`s the same way (placed as Kafka places added
//! partitions); `--delete` appends a `RemoveTopicRecord` and each broker renames its replicas
//! `-delete` and removes them.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::image::{MetadataImage, Partition, METADATA_PARTITION};
use super::init::{append_records, placement_seed, InitError};
use super::records::{resource_type, MetadataRecord, PartitionRecord};
use super::ImageError;
use crate::assign::java::{capacity_after, hash_order};
use crate::common::Uuid;
pub use crate::datadir::is_cluster_dir;
use crate::datadir::meta::write_partition_metadata;
use crate::datadir::placement::striped::{self, JavaRandom, MockRandom, Random, UsableBroker};
use crate::datadir::placement::{assign_replicas_to_brokers, BrokerInfo};
use crate::datadir::{
    delete_partition_dir, validate_manual_assignment, DataDir, DataDirError,
    MAX_PARTITIONS_PER_REQUEST,
};

/// Why a topic could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CreateTopicError {
    /// Kafka's refusals (name, existence, replication factor), in its words.
    #[error(transparent)]
    Refused(#[from] DataDirError),
    /// The metadata log could not be read.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The metadata log could not be written.
    #[error(transparent)]
    Write(#[from] InitError),
    /// A partition directory could not be made.
    #[error("making {}: {source}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// A topic to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClusterTopic {
    /// Its name.
    pub name: String,
    /// Its partition count.
    pub partitions: i32,
    /// Its replication factor.
    pub replication_factor: i32,
    /// Its config overrides.
    pub configs: BTreeMap<String, String>,
    /// The replicas of each partition, when given (`--replica-assignment`); else placed.
    pub assignment: Option<Vec<Vec<i32>>>,
}

/// Creates `new` in the cluster at `dir`; returns its id and each partition's replicas.
pub fn create_topic(
    dir: &Path,
    new: &NewClusterTopic,
    now_ms: i64,
) -> Result<(Uuid, Vec<Vec<i32>>), CreateTopicError> {
    let _controller = super::controller(dir).map_err(DataDirError::from)?;
    DataDir::check_new_topic_name(&new.name)?;
    let metadata_dir = dir.join(METADATA_PARTITION);
    let image = MetadataImage::load(&metadata_dir)?;
    if image.topics.contains_key(&new.name) {
        return Err(DataDirError::TopicExists(new.name.clone()).into());
    }
    let count = new
        .assignment
        .as_ref()
        .map_or(i64::from(new.partitions), |a| {
            i64::try_from(a.len()).unwrap_or(i64::MAX)
        });
    if count > i64::from(MAX_PARTITIONS_PER_REQUEST) {
        return Err(DataDirError::PolicyViolation(
            "Excessively large number of partitions per request.",
        )
        .into());
    }
    if new.partitions <= 0 {
        return Err(DataDirError::InvalidPartitions(
            "Number of partitions was set to an invalid non-positive value.".into(),
        )
        .into());
    }
    let assignment = match &new.assignment {
        Some(assignment) if assignment.is_empty() => {
            return Err(DataDirError::InvalidReplicaAssignment(
                "partitions should be a consecutive 0-based integer sequence".into(),
            )
            .into())
        }
        Some(assignment) => {
            let ids: Vec<i32> = image.brokers.keys().copied().collect();
            let rf = assignment.first().map(Vec::len);
            for replicas in assignment {
                validate_manual_assignment(&ids, replicas, rf)?;
            }
            assignment.clone()
        }
        None => {
            let count = usize::try_from(new.partitions).unwrap_or(0);
            place(&image, dir, count, new.replication_factor)?
        }
    };
    let topic_id = Uuid::random();
    let partitions = partition_records(&image, topic_id, &assignment, 0);
    if partitions.iter().any(|p| p.partition.isr.is_empty()) {
        // ReplicationControlManager's refusals: a manual assignment, or a placement whose
        // replicas are all unable to lead.
        let why = match &new.assignment {
            Some(_) => {
                "All brokers specified in the partition assignment are currently fenced.".into()
            }
            None => format!(
                "Unable to replicate the partition {} time(s): All brokers are currently fenced or in controlled shutdown.",
                new.replication_factor
            ),
        };
        return Err(DataDirError::InvalidReplicationFactor(why).into());
    }
    let mut records = vec![MetadataRecord::Topic {
        name: new.name.clone(),
        topic_id,
    }];
    records.extend(partitions.into_iter().map(MetadataRecord::Partition));
    for (name, value) in &new.configs {
        records.push(MetadataRecord::Config {
            resource_type: resource_type::TOPIC,
            resource_name: new.name.clone(),
            name: name.clone(),
            value: Some(value.clone()),
        });
    }
    append_records(&metadata_dir, &records, now_ms)?;
    make_replica_dirs(dir, &new.name, topic_id, &assignment, 0)?;
    Ok((topic_id, assignment))
}

/// The `PartitionRecord`s of new partitions numbered from `first`: the ISR is the replicas on
/// active brokers (a fenced one or one in controlled shutdown is left out), the first of them
/// leads; each replica's log directory id.
fn partition_records(
    image: &MetadataImage,
    topic_id: Uuid,
    assignment: &[Vec<i32>],
    first: i32,
) -> Vec<PartitionRecord> {
    let directory = |id: i32| {
        image
            .brokers
            .get(&id)
            .and_then(|b| b.log_dirs.first().copied())
            .unwrap_or(Uuid::ZERO)
    };
    assignment
        .iter()
        .zip(first..)
        .map(|(replicas, partition_id)| {
            let isr: Vec<i32> = replicas
                .iter()
                .copied()
                .filter(|id| image.brokers.get(id).is_some_and(|b| b.is_active()))
                .collect();
            PartitionRecord {
                partition_id,
                topic_id,
                partition: Partition {
                    replicas: replicas.clone(),
                    leader: isr.first().copied().unwrap_or(-1),
                    isr,
                    removing_replicas: Vec::new(),
                    adding_replicas: Vec::new(),
                    leader_recovery_state: 0,
                    leader_epoch: 0,
                    partition_epoch: 0,
                    elr: Vec::new(),
                    last_known_elr: Vec::new(),
                },
                directories: replicas.iter().map(|&r| directory(r)).collect(),
            }
        })
        .collect()
}

/// Each replica's partition directory (with `partition.metadata`) in its broker's log
/// directory, for partitions numbered from `first`.
fn make_replica_dirs(
    dir: &Path,
    name: &str,
    topic_id: Uuid,
    assignment: &[Vec<i32>],
    first: i32,
) -> Result<(), CreateTopicError> {
    for (replicas, partition) in assignment.iter().zip(first..) {
        for broker in replicas {
            let path = dir
                .join(format!("broker-{broker}"))
                .join(format!("{name}-{partition}"));
            fs::create_dir_all(&path).map_err(|source| CreateTopicError::Dir {
                path: path.clone(),
                source,
            })?;
            write_partition_metadata(&path, topic_id).map_err(DataDirError::from)?;
        }
    }
    Ok(())
}

/// The unfenced brokers placement may use, with their racks when every one has a rack
/// (Kafka's classic placement refuses a partial rack map, where the KRaft controller places
/// anyway, so kafkit ignores it then).
fn placement_brokers(image: &MetadataImage) -> Vec<BrokerInfo> {
    let alive: Vec<_> = image.brokers.values().filter(|b| !b.fenced).collect();
    let all_racked = alive.iter().all(|b| b.rack.is_some());
    alive
        .iter()
        .map(|b| BrokerInfo {
            id: b.id,
            rack: b.rack.clone().filter(|_| all_racked),
        })
        .collect()
}

/// Raises the partition count of `name` in the cluster at `dir` to `count` (Kafka's
/// CreatePartitions), with the controller's checks and messages: the new partitions take
/// `assignment` (one entry per new partition) or are placed as Kafka places added
/// partitions (`AdminZkClient.createNewPartitionsAssignment`: brokers by id, the start at
/// the first broker whose id is at least partition 0's first replica, partitions numbered on
/// from the current count, partition 0's replica count). One batch of `PartitionRecord`s.
/// Returns the new partitions' replicas.
pub fn create_partitions(
    dir: &Path,
    name: &str,
    count: i32,
    assignment: Option<&[Vec<i32>]>,
    now_ms: i64,
) -> Result<Vec<Vec<i32>>, CreateTopicError> {
    let _controller = super::controller(dir).map_err(DataDirError::from)?;
    let metadata_dir = dir.join(METADATA_PARTITION);
    let image = MetadataImage::load(&metadata_dir)?;
    let topic = image
        .topics
        .get(name)
        .ok_or_else(|| DataDirError::UnknownTopic(name.to_string()))?;
    let current = i32::try_from(topic.partitions.len()).unwrap_or(i32::MAX);
    if count == current {
        return Err(DataDirError::InvalidPartitions(format!(
            "Topic already has {current} partition(s)."
        ))
        .into());
    }
    if count < current {
        return Err(DataDirError::InvalidPartitions(format!(
            "The topic {name} currently has {current} partition(s); {count} would not be an increase."
        ))
        .into());
    }
    if count - current > MAX_PARTITIONS_PER_REQUEST {
        return Err(DataDirError::PolicyViolation(
            "Unable to perform excessively large batch operation.",
        )
        .into());
    }
    let additional = usize::try_from(count - current).unwrap_or(0);
    let first = topic.partitions.values().next();
    let rf = first.map_or(1, |p| p.replicas.len());
    let new_replicas = match assignment {
        Some(assignment) => {
            if assignment.len() != additional {
                return Err(DataDirError::InvalidReplicaAssignment(format!(
                    "Attempted to add {additional} additional partition(s), but only {} assignment(s) were specified.",
                    assignment.len()
                ))
                .into());
            }
            let ids: Vec<i32> = image.brokers.keys().copied().collect();
            for replicas in assignment {
                validate_manual_assignment(&ids, replicas, Some(rf))?;
            }
            assignment.to_vec()
        }
        None => {
            let brokers = placement_brokers(&image);
            let leader = first.and_then(|p| p.replicas.first()).copied().unwrap_or(0);
            let start = brokers.iter().position(|b| b.id >= leader).unwrap_or(0);
            let rf = i32::try_from(rf).unwrap_or(i32::MAX);
            let placed = assign_replicas_to_brokers(
                &brokers,
                count - current,
                rf,
                i32::try_from(start).unwrap_or(0),
                current,
            )
            .map_err(|e| DataDirError::InvalidReplicationFactor(e.to_string()))?;
            placed.into_values().collect()
        }
    };
    let records: Vec<MetadataRecord> = partition_records(&image, topic.id, &new_replicas, current)
        .into_iter()
        .map(MetadataRecord::Partition)
        .collect();
    append_records(&metadata_dir, &records, now_ms)?;
    make_replica_dirs(dir, name, topic.id, &new_replicas, current)?;
    Ok(new_replicas)
}

/// Deletes `name` from the cluster at `dir`: a `RemoveTopicRecord` (its configs go with it
/// when replayed), then each replica's directory renamed `-delete` and removed, as each broker
/// does when the topic leaves its metadata.
pub fn delete_topic(dir: &Path, name: &str, now_ms: i64) -> Result<(), CreateTopicError> {
    let _controller = super::controller(dir).map_err(DataDirError::from)?;
    let metadata_dir = dir.join(METADATA_PARTITION);
    let image = MetadataImage::load(&metadata_dir)?;
    let topic = image
        .topics
        .get(name)
        .ok_or_else(|| DataDirError::UnknownTopic(name.to_string()))?;
    append_records(
        &metadata_dir,
        &[MetadataRecord::RemoveTopic { topic_id: topic.id }],
        now_ms,
    )?;
    for (&partition, p) in &topic.partitions {
        for broker in &p.replicas {
            let parent = dir.join(format!("broker-{broker}"));
            let path = parent.join(format!("{name}-{partition}"));
            if path.is_dir() {
                delete_partition_dir(&parent, &path, name, partition)?;
            }
        }
    }
    Ok(())
}

/// The KRaft controller's placement of `count` partitions: `StripedReplicaPlacer` over the
/// usable brokers (registered, not in controlled shutdown) in the order its heartbeat manager's
/// `HashMap<Integer, _>` iterates them, drawing from Kafka's `MockRandom(seed)` when the
/// cluster has a `placement.seed`, else from a `java.util.Random` seeded at random as
/// `new Random()` is. The placer's refusals come wrapped as the controller wraps them.
fn place(
    image: &MetadataImage,
    dir: &Path,
    count: usize,
    rf: i32,
) -> Result<Vec<Vec<i32>>, CreateTopicError> {
    let registered: Vec<_> = image
        .brokers
        .values()
        .filter(|b| !b.in_controlled_shutdown)
        .collect();
    let hashes: Vec<i32> = registered.iter().map(|b| b.id).collect();
    let usable: Vec<UsableBroker> = hash_order(&hashes, capacity_after(16, hashes.len()))
        .into_iter()
        .filter_map(|i| registered.get(i))
        .map(|b| UsableBroker {
            id: b.id,
            rack: b.rack.clone(),
            fenced: b.fenced,
        })
        .collect();
    let mut random: Box<dyn JavaRandom> = match placement_seed(dir)? {
        Some(seed) => Box::new(MockRandom::new(seed)),
        None => Box::new(Random::new(rand::random())),
    };
    striped::place(random.as_mut(), &usable, count, rf).map_err(|e| {
        DataDirError::InvalidReplicationFactor(format!(
            "Unable to replicate the partition {rf} time(s): {e}"
        ))
        .into()
    })
}
