//! Partition reassignment on a cluster made by `cluster init` (Kafka's
//! `kafka-reassign-partitions.sh`, `ReassignPartitionsCommand`, and the controller's side of
//! `AlterPartitionReassignments`).
//!
//! `--generate` proposes, for each topic, Kafka's classic placement
//! (`AdminUtils.assignReplicasToBrokers`, random start as in Kafka) over the listed brokers.
//! `--execute` writes what the controller writes: first a `PartitionChangeRecord` that starts
//! the reassignment (replicas = target then the removed ones, `addingReplicas`,
//! `removingReplicas`; Kafka's `PartitionReassignmentReplicas`); then each new replica gets the
//! leader's log copied batch for batch, byte for byte, as its replica fetcher would
//! ([`Log::append_as_follower`]), and joins the ISR (one `PartitionChangeRecord` per replica, as
//! the leader's `AlterPartition` adds them); the last one completes the reassignment
//! (`completeReassignmentIfNeeded`: replicas = target, ISR without the removed, a new leader
//! when the old one is removed, the leader epoch bumped when replicas go). The removed
//! replicas' directories are renamed `-delete` and removed, as a broker told to stop a replica
//! does. A reassignment that only removes or reorders replicas completes in its first record.
//! A partition without a leader cannot be copied: its reassignment stays in progress.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::election::{active_in, elect, elr_enabled, Elected, Election, Target};
use super::image::{MetadataImage, Partition, METADATA_PARTITION};
use super::init::{append_records, InitError};
use super::records::{MetadataRecord, PartitionChange, NO_LEADER};
use super::ImageError;
use crate::common::TopicPartition;
use crate::datadir::delete_records::{field, int, object, OffsetJsonError};
use crate::datadir::meta::write_partition_metadata;
use crate::datadir::placement::{assign_replicas_to_brokers, BrokerInfo, PlacementError};
use crate::datadir::{delete_partition_dir, DataDirError, TopicConfigs};
use crate::log::partition::LogCheckpoints;
use crate::log::{Log, LogConfig, LogError, LogReader};

/// `log_dirs` entry meaning "any log directory".
pub const ANY_LOG_DIR: &str = "any";

/// Kafka's refusal of `--execute` while a reassignment is in progress.
pub const CANNOT_EXECUTE_BECAUSE_OF_EXISTING: &str = "Cannot execute because there is an existing partition assignment.  Use --additional to override this and create a new partition assignment in addition to the existing one. The --additional flag can also be used to change the throttle by resubmitting the current reassignment.";

/// Partitions and their replicas, sorted by topic then partition.
pub type Assignment = BTreeMap<TopicPartition, Vec<i32>>;

/// Why a reassignment command failed; displays as Kafka's message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReassignError {
    /// The JSON file's shape (Kafka's `Json` mapping messages).
    #[error(transparent)]
    Json(#[from] OffsetJsonError),
    /// `log_dirs` and `replicas` of different lengths.
    #[error("Size of replicas list [{}] is different from size of log dirs list [{}] for partition {tp}", join(.replicas, ", "), .log_dirs.join(", "))]
    LogDirsSize {
        /// The partition.
        tp: TopicPartition,
        /// Its replicas.
        replicas: Vec<i32>,
        /// Its log dirs.
        log_dirs: Vec<String>,
    },
    /// A log directory other than `any`: each kafkit broker has one.
    #[error("Partition {tp} names log dir {log_dir} for broker {broker}: each broker of a kafkit cluster has one log directory, so only \"any\" is accepted")]
    LogDir {
        /// The partition.
        tp: TopicPartition,
        /// The broker.
        broker: i32,
        /// The directory named.
        log_dir: String,
    },
    /// No partition in the file.
    #[error("Partition reassignment list cannot be empty")]
    EmptyList,
    /// A partition with no replicas.
    #[error("Partition replica list cannot be empty")]
    EmptyReplicas,
    /// A partition named twice.
    #[error("Partition reassignment contains duplicate topic partitions: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))]
    DuplicatePartitions(Vec<TopicPartition>),
    /// A replica named twice in a partition.
    #[error("Partition replica lists may not contain duplicate entries: {}", .0.iter().map(|(tp, d)| format!("{tp} contains multiple entries for {}", join(d, ","))).collect::<Vec<_>>().join(". "))]
    DuplicateReplicas(Vec<(TopicPartition, Vec<i32>)>),
    /// `--broker-list` names a broker twice.
    #[error("Broker list contains duplicate entries: [{}]", join(.0, ", "))]
    DuplicateBrokers(Vec<i32>),
    /// The topics file names a topic twice.
    #[error("List of topics to reassign contains duplicate entries: [{}]", .0.join(", "))]
    DuplicateTopics(Vec<String>),
    /// A `--broker-list` entry that is not an int.
    #[error("For input string: \"{0}\"")]
    NotANumber(String),
    /// A replica on a broker the cluster does not have.
    #[error("Unknown broker id {0}")]
    UnknownBroker(i32),
    /// A topic the cluster does not have.
    #[error(
        "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic {0} not found."
    )]
    UnknownTopic(String),
    /// Partitions the cluster does not have.
    #[error("org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Unable to find partition: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    UnknownPartitions(Vec<TopicPartition>),
    /// A reassignment in progress and no `--additional`.
    #[error("{CANNOT_EXECUTE_BECAUSE_OF_EXISTING}")]
    Existing,
    /// Racks on some of the brokers only.
    #[error("Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information.")]
    PartialRacks,
    /// The placement is impossible (more replicas than brokers...).
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// The metadata log could not be read.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The metadata log could not be written.
    #[error(transparent)]
    Write(#[from] InitError),
    /// A replica's log could not be copied.
    #[error("copying the log of {tp} from broker {from} to broker {to}: {source}")]
    Copy {
        /// The partition.
        tp: TopicPartition,
        /// The leader.
        from: i32,
        /// The new replica.
        to: i32,
        /// The cause.
        source: LogError,
    },
    /// The controller's refusal to revert a reassignment (`InvalidReplicaAssignmentException`).
    #[error("Error cancelling partition reassignment for:\n{0}")]
    Revert(String),
    /// A partition directory could not be made or removed.
    #[error(transparent)]
    Dir(#[from] DataDirError),
}

impl ReassignError {
    /// Whether Kafka prints the message alone (its `TerseException`); else `Error: ` precedes it.
    pub fn is_terse(&self) -> bool {
        matches!(self, ReassignError::Existing | ReassignError::Revert(_))
    }
}

fn join(list: &[i32], sep: &str) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// The elements of `list` seen more than once, in first-seen order (Kafka's
/// `ToolsUtils.duplicates`).
fn duplicates<T: Ord + Clone>(list: &[T]) -> Vec<T> {
    let mut seen = BTreeSet::new();
    let mut dups = Vec::new();
    for x in list {
        if !seen.insert(x.clone()) && !dups.contains(x) {
            dups.push(x.clone());
        }
    }
    dups
}

/// The version of a reassignment or topics JSON (absent: 1); only 1 is known.
fn version(root: &serde_json::Map<String, Value>) -> Result<(), OffsetJsonError> {
    let version = root.get("version").map(int).transpose()?.unwrap_or(1);
    if version != 1 {
        return Err(OffsetJsonError::UnsupportedVersion(version));
    }
    Ok(())
}

fn array(value: &Value) -> Result<&Vec<Value>, OffsetJsonError> {
    value
        .as_array()
        .ok_or_else(|| OffsetJsonError::NotContainer {
            expected: "array",
            received: value.to_string(),
        })
}

fn string(value: &Value) -> Result<String, OffsetJsonError> {
    value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| OffsetJsonError::WrongType {
            expected: "String",
            received: value.to_string(),
        })
}

/// `--topics-to-move-json-file`: `{"topics":[{"topic":"foo"}],"version":1}`.
pub fn parse_topics_json(text: &str) -> Result<Vec<String>, OffsetJsonError> {
    let json: Value = serde_json::from_str(text).map_err(|_| OffsetJsonError::NotJson)?;
    let root = object(&json)?;
    version(root)?;
    let Some(topics) = root.get("topics") else {
        return Ok(Vec::new());
    };
    array(topics)?
        .iter()
        .map(|t| string(field(object(t)?, "topic")?))
        .collect()
}

/// `--broker-list 1,2,3`, and the topics, checked for duplicates as `--generate` checks them.
pub fn parse_generate_args(
    topics_json: &str,
    broker_list: &str,
) -> Result<(Vec<i32>, Vec<String>), ReassignError> {
    let brokers = broker_list
        .split(',')
        .map(|b| {
            b.parse::<i32>()
                .map_err(|_| ReassignError::NotANumber(b.to_string()))
        })
        .collect::<Result<Vec<i32>, _>>()?;
    let dups = duplicates(&brokers);
    if !dups.is_empty() {
        return Err(ReassignError::DuplicateBrokers(dups));
    }
    let topics = parse_topics_json(topics_json)?;
    let dups = duplicates(&topics);
    if !dups.is_empty() {
        return Err(ReassignError::DuplicateTopics(dups));
    }
    Ok((brokers, topics))
}

/// `--reassignment-json-file`: the partitions and their target replicas, in file order
/// (duplicates kept, for [`check_execute`]). `log_dirs` other than `any` are refused: each
/// broker of a kafkit cluster has one log directory.
pub fn parse_reassignment_json(
    text: &str,
) -> Result<Vec<(TopicPartition, Vec<i32>)>, ReassignError> {
    let json: Value = serde_json::from_str(text).map_err(|_| OffsetJsonError::NotJson)?;
    let root = object(&json)?;
    version(root)?;
    let Some(partitions) = root.get("partitions") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in array(partitions)? {
        let entry = object(entry)?;
        let topic = string(field(entry, "topic")?)?;
        let partition = int(field(entry, "partition")?)?;
        let replicas = array(field(entry, "replicas")?)?
            .iter()
            .map(int)
            .collect::<Result<Vec<i32>, _>>()?;
        let tp = TopicPartition::new(topic, partition);
        if let Some(dirs) = entry.get("log_dirs") {
            let dirs = array(dirs)?
                .iter()
                .map(string)
                .collect::<Result<Vec<String>, _>>()?;
            if dirs.len() != replicas.len() {
                return Err(ReassignError::LogDirsSize {
                    tp,
                    replicas,
                    log_dirs: dirs,
                });
            }
            if let Some((broker, dir)) = replicas
                .iter()
                .zip(&dirs)
                .find(|(_, d)| d.as_str() != ANY_LOG_DIR)
            {
                return Err(ReassignError::LogDir {
                    tp,
                    broker: *broker,
                    log_dir: dir.clone(),
                });
            }
        }
        out.push((tp, replicas));
    }
    Ok(out)
}

/// `--execute`'s checks of the file (`parseExecuteAssignmentArgs`): not empty, no empty
/// replica list, no partition twice, no replica twice in a partition.
pub fn check_execute(entries: &[(TopicPartition, Vec<i32>)]) -> Result<Assignment, ReassignError> {
    if entries.is_empty() {
        return Err(ReassignError::EmptyList);
    }
    if entries.iter().any(|(_, r)| r.is_empty()) {
        return Err(ReassignError::EmptyReplicas);
    }
    let tps: Vec<TopicPartition> = entries.iter().map(|(tp, _)| tp.clone()).collect();
    let dups = duplicates(&tps);
    if !dups.is_empty() {
        return Err(ReassignError::DuplicatePartitions(dups));
    }
    let dup_replicas: Vec<(TopicPartition, Vec<i32>)> = entries
        .iter()
        .map(|(tp, r)| (tp.clone(), duplicates(r)))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    if !dup_replicas.is_empty() {
        return Err(ReassignError::DuplicateReplicas(dup_replicas));
    }
    Ok(entries.iter().cloned().collect())
}

/// Kafka's reassignment JSON (`formatAsReassignmentJson`): compact, partitions sorted by topic
/// then partition, `log_dirs` `any` for each replica.
pub fn format_json(assignment: &Assignment) -> String {
    let mut out = String::from("{\"version\":1,\"partitions\":[");
    for (i, (tp, replicas)) in assignment.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let topic = serde_json::to_string(&*tp.topic).unwrap_or_default();
        let dirs = vec![format!("\"{ANY_LOG_DIR}\""); replicas.len()].join(",");
        let _ = write!(
            out,
            "{{\"topic\":{topic},\"partition\":{},\"replicas\":[{}],\"log_dirs\":[{dirs}]}}",
            tp.partition,
            join(replicas, ",")
        );
    }
    out.push_str("]}");
    out
}

/// The replicas of every partition of `topics` (`getReplicaAssignmentForTopics`).
pub fn topics_assignment(
    image: &MetadataImage,
    topics: &[String],
) -> Result<Assignment, ReassignError> {
    let mut out = Assignment::new();
    for name in topics {
        let topic = image
            .topics
            .get(name)
            .ok_or_else(|| ReassignError::UnknownTopic(name.clone()))?;
        for (&p, partition) in &topic.partitions {
            out.insert(
                TopicPartition::new(name.as_str(), p),
                partition.replicas.clone(),
            );
        }
    }
    Ok(out)
}

/// `--generate`: the current assignment of `topics` and a proposal over `brokers` (those of
/// them the cluster has, unfenced, by id), each topic placed by Kafka's classic placement
/// with its partition count and the replica count of its partition 0.
pub fn generate(
    image: &MetadataImage,
    topics: &[String],
    brokers: &[i32],
    rack_aware: bool,
) -> Result<(Assignment, Assignment), ReassignError> {
    let current = topics_assignment(image, topics)?;
    let infos: Vec<BrokerInfo> = image
        .brokers
        .values()
        .filter(|b| !b.fenced && brokers.contains(&b.id))
        .map(|b| BrokerInfo {
            id: b.id,
            rack: b.rack.clone().filter(|_| rack_aware),
        })
        .collect();
    let rackless = infos.iter().filter(|b| b.rack.is_none()).count();
    if rack_aware && rackless != 0 && rackless != infos.len() {
        return Err(ReassignError::PartialRacks);
    }
    let mut proposed = Assignment::new();
    for name in topics {
        let Some(topic) = image.topics.get(name) else {
            continue;
        };
        let count = i32::try_from(topic.partitions.len()).unwrap_or(i32::MAX);
        let rf = topic
            .partitions
            .values()
            .next()
            .map_or(0, |p| i32::try_from(p.replicas.len()).unwrap_or(i32::MAX));
        for (p, replicas) in assign_replicas_to_brokers(&infos, count, rf, -1, -1)? {
            proposed.insert(TopicPartition::new(name.as_str(), p), replicas);
        }
    }
    Ok((current, proposed))
}

/// Whether a partition is being reassigned (`listPartitionReassignments` lists it).
pub fn in_progress(p: &Partition) -> bool {
    !p.adding_replicas.is_empty() || !p.removing_replicas.is_empty()
}

/// `--execute`'s checks against the cluster, before anything is written: no reassignment in
/// progress (unless `additional`), every replica on a registered unfenced broker, every
/// partition there. Returns the current replicas of the partitions (`Current partition
/// replica assignment`).
pub fn plan_execute(
    image: &MetadataImage,
    target: &Assignment,
    additional: bool,
) -> Result<Assignment, ReassignError> {
    let ongoing = image
        .topics
        .values()
        .any(|t| t.partitions.values().any(in_progress));
    if ongoing && !additional {
        return Err(ReassignError::Existing);
    }
    let brokers: BTreeSet<i32> = target.values().flatten().copied().collect();
    if let Some(&unknown) = brokers
        .iter()
        .find(|b| image.brokers.get(b).is_none_or(|b| b.fenced))
    {
        return Err(ReassignError::UnknownBroker(unknown));
    }
    let mut current = Assignment::new();
    let mut missing = Vec::new();
    for tp in target.keys() {
        let topic = image
            .topics
            .get(&*tp.topic)
            .ok_or_else(|| ReassignError::UnknownTopic(tp.topic.to_string()))?;
        match topic.partitions.get(&tp.partition) {
            Some(p) => {
                current.insert(tp.clone(), p.replicas.clone());
            }
            None => missing.push(tp.clone()),
        }
    }
    if !missing.is_empty() {
        return Err(ReassignError::UnknownPartitions(missing));
    }
    Ok(current)
}

/// The record that starts a reassignment of `p` to `target` (the controller's
/// `changePartitionReassignment`), completed at once when no replica is added; `None` when
/// the target is the current assignment.
fn start_change(
    image: &MetadataImage,
    tp: &TopicPartition,
    p: &Partition,
    target: &[i32],
) -> Option<PartitionChange> {
    let topic_id = image.topics.get(&*tp.topic)?.id;
    let removing: Vec<i32> = p
        .replicas
        .iter()
        .copied()
        .filter(|r| !target.contains(r))
        .collect();
    let adding: Vec<i32> = target
        .iter()
        .copied()
        .filter(|r| !p.replicas.contains(r))
        .collect();
    if adding.is_empty() {
        // Nothing to copy: the reassignment completes in this record.
        return complete(image, topic_id, tp.partition, p, target, &p.isr);
    }
    let mut replicas = target.to_vec();
    replicas.extend(&removing);
    let mut change = PartitionChange::none(topic_id, tp.partition);
    change.replicas = Some(replicas.clone());
    change.directories = Some(directories(image, &replicas));
    if !removing.is_empty() {
        change.removing_replicas = Some(removing);
    }
    change.adding_replicas = Some(adding);
    Some(change)
}

/// Each replica's log directory id, as the records name them.
fn directories(image: &MetadataImage, replicas: &[i32]) -> Vec<crate::common::Uuid> {
    replicas
        .iter()
        .map(|r| {
            image
                .brokers
                .get(r)
                .and_then(|b| b.log_dirs.first().copied())
                .unwrap_or(crate::common::Uuid::ZERO)
        })
        .collect()
}

/// The controller's election for `p` changed to `replicas` and `isr`: the leader stays if it
/// still can lead, else the first of `replicas` in `isr` that is alive.
fn elect_online(image: &MetadataImage, p: &Partition, replicas: &[i32], isr: &[i32]) -> Elected {
    let active = active_in(image);
    let target = Target {
        replicas,
        isr,
        elr: &p.elr,
        use_elr: elr_enabled(image),
    };
    elect(p.leader, target, Election::Online, &active)
}

/// The change to ISR `isr` once every added replica is in it: the reassignment completes
/// (`PartitionReassignmentReplicas.maybeCompleteReassignment`): replicas = target, the ISR
/// without the removed replicas, the leader re-elected when it is removed, and the leader
/// epoch bumped when replicas leave. `None` when nothing changes.
fn complete(
    image: &MetadataImage,
    topic_id: crate::common::Uuid,
    partition: i32,
    p: &Partition,
    target: &[i32],
    isr: &[i32],
) -> Option<PartitionChange> {
    let new_isr: Vec<i32> = isr.iter().copied().filter(|r| target.contains(r)).collect();
    if new_isr.is_empty() {
        return None;
    }
    let elected = elect_online(image, p, target, &new_isr);
    let mut change = PartitionChange::none(topic_id, partition);
    if target != p.replicas.as_slice() {
        change.replicas = Some(target.to_vec());
        change.directories = Some(directories(image, target));
    }
    if new_isr != p.isr {
        change.isr = Some(new_isr);
    }
    if !p.removing_replicas.is_empty() {
        change.removing_replicas = Some(Vec::new());
    }
    if !p.adding_replicas.is_empty() {
        change.adding_replicas = Some(Vec::new());
    }
    let replicas_removed = !p.replicas.iter().all(|r| target.contains(r));
    if elected.leader != p.leader || replicas_removed {
        change.leader = elected.leader;
    }
    (change != PartitionChange::none(topic_id, partition)).then_some(change)
}

/// What `--execute` did to one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Executed {
    /// The target is the current assignment: nothing written.
    Unchanged,
    /// Started and completed: the new replicas hold the leader's log, the removed ones are gone.
    Completed,
    /// Started, but the partition has no leader to copy from: still in progress.
    Started,
}

/// `--execute` on the cluster at `dir` (after [`plan_execute`]): the start records of every
/// partition in one batch, then, partition by partition, the new replicas' logs copied from
/// the leader and the records of their joining the ISR (the last completing the
/// reassignment) in one batch, then the removed replicas' directories deleted.
pub fn execute(
    dir: &Path,
    target: &Assignment,
    now_ms: i64,
) -> Result<BTreeMap<TopicPartition, Executed>, ReassignError> {
    let _controller = super::controller(dir).map_err(DataDirError::from)?;
    let metadata_dir = dir.join(METADATA_PARTITION);
    let mut image = MetadataImage::load(&metadata_dir)?;
    let mut records = Vec::new();
    let mut results = BTreeMap::new();
    let mut before = BTreeMap::new();
    for (tp, replicas) in target {
        let Some(p) = partition(&image, tp) else {
            return Err(ReassignError::UnknownPartitions(vec![tp.clone()]));
        };
        before.insert(tp.clone(), p.replicas.clone());
        match start_change(&image, tp, p, replicas) {
            Some(change) => records.push(MetadataRecord::PartitionChange(change)),
            None => {
                results.insert(tp.clone(), Executed::Unchanged);
            }
        }
    }
    append_records(&metadata_dir, &records, now_ms)?;
    for record in records {
        image
            .apply(record)
            .map_err(|source| ImageError::Inconsistent {
                path: metadata_dir.clone(),
                offset: -1,
                source,
            })?;
    }
    for (tp, replicas) in target {
        if results.contains_key(tp) {
            continue;
        }
        let Some(p) = partition(&image, tp).cloned() else {
            continue;
        };
        if !in_progress(&p) {
            // Completed in its first record: only replicas removed or reordered.
            let removed: Vec<i32> = before
                .get(tp)
                .into_iter()
                .flatten()
                .copied()
                .filter(|r| !replicas.contains(r))
                .collect();
            remove_replicas(dir, tp, &removed)?;
            results.insert(tp.clone(), Executed::Completed);
            continue;
        }
        if p.leader == NO_LEADER {
            results.insert(tp.clone(), Executed::Started);
            continue;
        }
        let config = topic_log_config(&image, &tp.topic)?;
        for &to in &p.adding_replicas {
            copy_log(dir, tp, p.leader, to, &config, now_ms)?;
        }
        let topic_id = image
            .topics
            .get(&*tp.topic)
            .map_or(crate::common::Uuid::ZERO, |t| t.id);
        let mut changes = Vec::new();
        let mut isr = p.isr.clone();
        let mut state = p.clone();
        for (i, &added) in p.adding_replicas.iter().enumerate() {
            isr.push(added);
            let change = if i + 1 == p.adding_replicas.len() {
                complete(&image, topic_id, tp.partition, &state, replicas, &isr)
            } else {
                let mut c = PartitionChange::none(topic_id, tp.partition);
                c.isr = Some(isr.clone());
                Some(c)
            };
            if let Some(change) = change {
                state.merge(change.clone());
                changes.push(MetadataRecord::PartitionChange(change));
            }
        }
        append_records(&metadata_dir, &changes, now_ms)?;
        remove_replicas(dir, tp, &p.removing_replicas)?;
        for change in changes {
            image
                .apply(change)
                .map_err(|source| ImageError::Inconsistent {
                    path: metadata_dir.clone(),
                    offset: -1,
                    source,
                })?;
        }
        results.insert(tp.clone(), Executed::Completed);
    }
    Ok(results)
}

fn partition<'a>(image: &'a MetadataImage, tp: &TopicPartition) -> Option<&'a Partition> {
    image
        .topics
        .get(&*tp.topic)
        .and_then(|t| t.partitions.get(&tp.partition))
}

/// A replica's partition directory.
pub fn replica_dir(dir: &Path, broker: i32, tp: &TopicPartition) -> PathBuf {
    dir.join(format!("broker-{broker}")).join(tp.to_string())
}

/// Copies the leader's log of `tp` to broker `to`'s new replica, batch by batch as a replica
/// fetcher does: the new log (with the topic's settings) starts at the leader's log start and
/// takes each batch's bytes as they are ([`Log::append_as_follower`]).
fn copy_log(
    dir: &Path,
    tp: &TopicPartition,
    from: i32,
    to: i32,
    config: &LogConfig,
    now_ms: i64,
) -> Result<(), ReassignError> {
    let err = |source| ReassignError::Copy {
        tp: tp.clone(),
        from,
        to,
        source,
    };
    let source_dir = replica_dir(dir, from, tp);
    let target_dir = replica_dir(dir, to, tp);
    let topic_id =
        crate::datadir::meta::read_partition_metadata(&source_dir).map_err(DataDirError::from)?;
    let mut reader = LogReader::open(&source_dir).map_err(err)?;
    let start = reader.log_start_offset();
    let mut log = Log::open(
        &target_dir,
        config.clone(),
        LogCheckpoints::default().with_log_start(start),
        now_ms,
    )
    .map_err(err)?;
    if let Some(id) = topic_id {
        write_partition_metadata(&target_dir, id).map_err(DataDirError::from)?;
    }
    let bases: Vec<i64> = reader.segment_base_offsets().to_vec();
    for base in bases {
        let mut segment = reader.reader(base, 0).map_err(err)?;
        while let Some((_, batch)) = segment.next_batch().map_err(err)? {
            log.append_as_follower(batch.as_bytes(), now_ms)
                .map_err(err)?;
        }
    }
    log.close().map_err(err)?;
    Ok(())
}

/// The log settings of a topic's replicas: its config overrides over Kafka's defaults (the
/// follower rolls its segments by them).
fn topic_log_config(image: &MetadataImage, topic: &str) -> Result<LogConfig, ReassignError> {
    let overrides = image.topic_configs.get(topic).into_iter().flatten();
    let configs = TopicConfigs::new(overrides.map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(DataDirError::from)?;
    Ok(configs.log_config())
}

/// Deletes the directories of the replicas a reassignment removed (a broker's `StopReplica`
/// with deletion), those still on disk.
fn remove_replicas(dir: &Path, tp: &TopicPartition, removed: &[i32]) -> Result<(), ReassignError> {
    for &broker in removed {
        let path = replica_dir(dir, broker, tp);
        if path.is_dir() {
            let parent = dir.join(format!("broker-{broker}"));
            delete_partition_dir(&parent, &path, &tp.topic, tp.partition)?;
        }
    }
    Ok(())
}

/// The state of one partition for `--verify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyState {
    /// Being reassigned.
    InProgress,
    /// Not being reassigned; its replicas now (empty: no such partition).
    Done {
        /// Its replicas.
        current: Vec<i32>,
    },
}

/// `--verify`: each partition's state against its target, and whether any reassignment is in
/// progress in the cluster.
pub fn verify(
    image: &MetadataImage,
    target: &Assignment,
) -> (BTreeMap<TopicPartition, VerifyState>, bool) {
    let ongoing = image
        .topics
        .values()
        .any(|t| t.partitions.values().any(in_progress));
    let states = target
        .keys()
        .map(|tp| {
            let state = match partition(image, tp) {
                Some(p) if in_progress(p) => VerifyState::InProgress,
                Some(p) => VerifyState::Done {
                    current: p.replicas.clone(),
                },
                None => VerifyState::Done {
                    current: Vec::new(),
                },
            };
            (tp.clone(), state)
        })
        .collect();
    (states, ongoing)
}

/// Kafka's `--verify` lines for the partitions (`partitionReassignmentStatesToString`).
pub fn verify_text(states: &BTreeMap<TopicPartition, VerifyState>, target: &Assignment) -> String {
    let mut lines = vec!["Status of partition reassignment:".to_string()];
    for (tp, state) in states {
        let wanted = target.get(tp).map(Vec::as_slice).unwrap_or_default();
        lines.push(match state {
            VerifyState::InProgress => {
                format!("Reassignment of partition {tp} is still in progress.")
            }
            VerifyState::Done { current } if current == wanted => {
                format!("Reassignment of partition {tp} is completed.")
            }
            VerifyState::Done { current } => format!(
                "There is no active reassignment of partition {tp}, but replica set is {} rather than {}.",
                join(current, ","),
                join(wanted, ",")
            ),
        });
    }
    lines.join("\n")
}

/// Why a reassignment cannot be cancelled.
pub const UNCLEAN_REVERT: &str = "because it would require an unclean leader election.";

/// The partitions of `target` whose reassignment `--cancel` cancels: those in progress whose
/// adding replicas are none or whose removing replicas are some (Kafka's tool's test).
pub fn cancellable(image: &MetadataImage, target: &Assignment) -> Vec<TopicPartition> {
    target
        .keys()
        .filter(|tp| {
            partition(image, tp).is_some_and(|p| {
                in_progress(p) && (p.adding_replicas.is_empty() || !p.removing_replicas.is_empty())
            })
        })
        .cloned()
        .collect()
}

/// The record that reverts a reassignment in progress (`PartitionReassignmentRevert`): the
/// adding replicas leave the replicas and the ISR, adding and removing are cleared, and a
/// leader is elected if the current one was an adding replica.
fn revert_change(
    image: &MetadataImage,
    topic_id: crate::common::Uuid,
    partition: i32,
    p: &Partition,
) -> Option<PartitionChange> {
    let without_adding = |list: &[i32]| -> Vec<i32> {
        list.iter()
            .copied()
            .filter(|r| !p.adding_replicas.contains(r))
            .collect()
    };
    let replicas = without_adding(&p.replicas);
    let isr = without_adding(&p.isr);
    if isr.is_empty() {
        return None;
    }
    let elected = elect_online(image, p, &replicas, &isr);
    let mut change = PartitionChange::none(topic_id, partition);
    if replicas != p.replicas {
        change.directories = Some(directories(image, &replicas));
        change.replicas = Some(replicas);
    }
    if isr != p.isr {
        change.isr = Some(isr);
    }
    change.removing_replicas = Some(Vec::new());
    change.adding_replicas = Some(Vec::new());
    if elected.leader != p.leader {
        change.leader = elected.leader;
    }
    Some(change)
}

/// `--cancel` on the cluster at `dir`: the reverting records of `partitions` (from
/// [`cancellable`]) in one batch, then the adding replicas' directories, if any, removed.
pub fn cancel(dir: &Path, partitions: &[TopicPartition], now_ms: i64) -> Result<(), ReassignError> {
    let _controller = super::controller(dir).map_err(DataDirError::from)?;
    let metadata_dir = dir.join(METADATA_PARTITION);
    let image = MetadataImage::load(&metadata_dir)?;
    let mut records = Vec::new();
    let mut added = Vec::new();
    for tp in partitions {
        let Some(p) = partition(&image, tp) else {
            return Err(ReassignError::UnknownPartitions(vec![tp.clone()]));
        };
        let topic_id = image
            .topics
            .get(&*tp.topic)
            .map_or(crate::common::Uuid::ZERO, |t| t.id);
        let change = revert_change(&image, topic_id, tp.partition, p).ok_or_else(|| {
            ReassignError::Revert(format!(
                "{tp}: Unable to revert partition assignment for {}:{} {UNCLEAN_REVERT}",
                tp.topic, tp.partition
            ))
        })?;
        records.push(MetadataRecord::PartitionChange(change));
        added.push((tp.clone(), p.adding_replicas.clone()));
    }
    append_records(&metadata_dir, &records, now_ms)?;
    for (tp, adding) in added {
        remove_replicas(dir, &tp, &adding)?;
    }
    Ok(())
}
