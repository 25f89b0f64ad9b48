//! Creating a topic in a cluster made by `cluster init`, as its KRaft controller would: checks,
//! replica placement with Kafka's `StripedReplicaPlacer` (`datadir::placement::striped`) over
//! the brokers not in controlled shutdown (fenced ones only as followers), from an unseeded
//! `Random` or, when the cluster has a `placement.seed`, Kafka's `MockRandom(seed)`; then one
//! batch of `TopicRecord`, `PartitionRecord`s (ISR = the replicas on active brokers, the first
//! of them leads; each replica's log directory id) and `ConfigRecord`s appended to the metadata log, and each
//! replica's partition directory (with `partition.metadata`) in its broker's log directory.

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
use crate::datadir::{
    validate_manual_assignment, DataDir, DataDirError, MAX_PARTITIONS_PER_REQUEST,
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
    let active = |id: &i32| image.brokers.get(id).is_some_and(|b| b.is_active());
    let isrs: Vec<Vec<i32>> = assignment
        .iter()
        .map(|replicas| replicas.iter().copied().filter(active).collect())
        .collect();
    if isrs.iter().any(Vec::is_empty) {
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
    let topic_id = Uuid::random();
    let directory = |id: i32| {
        image
            .brokers
            .get(&id)
            .and_then(|b| b.log_dirs.first().copied())
            .unwrap_or(Uuid::ZERO)
    };
    let mut records = vec![MetadataRecord::Topic {
        name: new.name.clone(),
        topic_id,
    }];
    for ((replicas, isr), partition_id) in assignment.iter().zip(&isrs).zip(0..) {
        records.push(MetadataRecord::Partition(PartitionRecord {
            partition_id,
            topic_id,
            partition: Partition {
                replicas: replicas.clone(),
                isr: isr.clone(),
                removing_replicas: Vec::new(),
                adding_replicas: Vec::new(),
                leader: isr.first().copied().unwrap_or(-1),
                leader_recovery_state: 0,
                leader_epoch: 0,
                partition_epoch: 0,
                elr: Vec::new(),
                last_known_elr: Vec::new(),
            },
            directories: replicas.iter().map(|&r| directory(r)).collect(),
        }));
    }
    for (name, value) in &new.configs {
        records.push(MetadataRecord::Config {
            resource_type: resource_type::TOPIC,
            resource_name: new.name.clone(),
            name: name.clone(),
            value: Some(value.clone()),
        });
    }
    append_records(&metadata_dir, &records, now_ms)?;
    for (replicas, partition) in assignment.iter().zip(0..) {
        for broker in replicas {
            let path = dir
                .join(format!("broker-{broker}"))
                .join(format!("{}-{partition}", new.name));
            fs::create_dir_all(&path).map_err(|source| CreateTopicError::Dir {
                path: path.clone(),
                source,
            })?;
            write_partition_metadata(&path, topic_id).map_err(DataDirError::from)?;
        }
    }
    Ok((topic_id, assignment))
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
