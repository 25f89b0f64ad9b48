//! Stopping and starting a local cluster's brokers as its controller records it, and the
//! cluster's replication status.
//!
//! Stopping a broker is its fencing (Kafka's `ReplicationControlManager.handleBrokerFenced`):
//! it leaves the ISR of every partition that has it, each partition it led elects a new leader
//! by the controller's rules ([`super::whatif::remove_from_isr`], `unclean.leader.election.enable`
//! honoured, the leader epoch bumped), written as `PartitionChangeRecord`s, then a
//! `BrokerRegistrationChangeRecord` fences it. Each new leader records its epoch's start at its
//! log end in its `leader-epoch-checkpoint` (Kafka's `makeLeader`). Starting it again unfences
//! it (`handleBrokerUnfenced`: a `BrokerRegistrationChangeRecord`, then a leader for the
//! partitions that had none and keep it in their ISR), and a replication step runs: its
//! replicas truncate as their leaders' epochs say, catch up and rejoin the ISR.

use std::collections::BTreeMap;
use std::path::Path;

use super::election::unclean_enabled;
use super::image::{MetadataImage, Partition, METADATA_PARTITION};
use super::init::append_records;
use super::records::{MetadataRecord, PartitionChange, NO_LEADER};
use super::replication::{
    assign_leader_epoch, broker_dir, high_watermarks, log_end_offset, replicate_held,
    reset_caught_up, ReplicationError, ReplicationReport, Step,
};
use super::whatif::{min_isr, remove_from_isr};
use crate::common::{TopicPartition, Uuid};
use crate::datadir::now_ms;

/// Why a broker could not be stopped or started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrokerError {
    /// No such broker.
    #[error("broker {0} is not registered in the cluster's metadata")]
    Unknown(i32),
    /// Stopping a stopped broker.
    #[error("broker {0} is already stopped")]
    AlreadyStopped(i32),
    /// Starting a running broker.
    #[error("broker {0} is already running")]
    AlreadyRunning(i32),
    /// Reading or writing the cluster failed.
    #[error(transparent)]
    Replication(#[from] ReplicationError),
}

type Result<T> = std::result::Result<T, BrokerError>;

/// The controller lock, as this module's error.
fn controller(cluster: &Path) -> Result<super::Controller> {
    super::controller(cluster)
        .map_err(|e| ReplicationError::from(crate::datadir::DataDirError::from(e)).into())
}

/// A partition whose leader or ISR a broker's stop or start changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LeaderChange {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// Its leader before (-1: none).
    pub leader_before: i32,
    /// Its leader after (-1: none).
    pub leader_after: i32,
    /// Its leader epoch after.
    pub leader_epoch: i32,
    /// Its ISR after.
    pub isr: Vec<i32>,
    /// Whether the new leader came from outside the ISR.
    pub unclean: bool,
}

/// What stopping or starting a broker did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BrokerChange {
    /// The broker.
    pub broker: i32,
    /// The partitions whose leader or ISR changed.
    pub partitions: Vec<LeaderChange>,
    /// The replication step a start ran (truncations, fetches, ISR joins).
    pub replication: Option<ReplicationReport>,
}

fn load(cluster: &Path) -> Result<MetadataImage> {
    Ok(MetadataImage::load(&cluster.join(METADATA_PARTITION)).map_err(ReplicationError::from)?)
}

/// The `PartitionChangeRecord` that takes a partition from `before` to `after`, or `None`.
fn change_record(
    topic_id: Uuid,
    partition: i32,
    before: &Partition,
    after: &Partition,
) -> Option<PartitionChange> {
    let mut change = PartitionChange::none(topic_id, partition);
    let mut any = false;
    if after.leader != before.leader {
        change.leader = after.leader;
        any = true;
    }
    if after.isr != before.isr {
        change.isr = Some(after.isr.clone());
        any = true;
    }
    if after.elr != before.elr || after.last_known_elr != before.last_known_elr {
        change.eligible_leader_replicas = Some(after.elr.clone());
        change.last_known_elr = Some(after.last_known_elr.clone());
        any = true;
    }
    if after.leader_recovery_state != before.leader_recovery_state {
        change.leader_recovery_state = after.leader_recovery_state;
        any = true;
    }
    any.then_some(change)
}

/// Records what the new leaders of `changes` start their epochs at.
fn record_new_leaders(cluster: &Path, changes: &[LeaderChange]) -> Result<()> {
    for c in changes {
        if c.leader_after == NO_LEADER || c.leader_after == c.leader_before {
            continue;
        }
        let tp = TopicPartition::new(c.topic.clone(), c.partition);
        let dir = broker_dir(cluster, c.leader_after).join(tp.to_string());
        let end = log_end_offset(cluster, c.leader_after, &tp)?;
        assign_leader_epoch(&dir, c.leader_epoch, end)?;
        reset_caught_up(cluster, &tp, &c.isr, now_ms())?;
    }
    Ok(())
}

/// Stops (fences) `broker`, as the controller records it; returns the partitions changed.
pub fn stop_broker(cluster: &Path, broker: i32) -> Result<BrokerChange> {
    let _controller = controller(cluster)?;
    let image = load(cluster)?;
    let registration = image
        .brokers
        .get(&broker)
        .ok_or(BrokerError::Unknown(broker))?;
    if registration.fenced {
        return Err(BrokerError::AlreadyStopped(broker));
    }
    let active = |r: i32| r != broker && image.brokers.get(&r).is_some_and(|b| b.is_active());
    let mut records = Vec::new();
    let mut partitions = Vec::new();
    for (name, t) in &image.topics {
        for (&number, p) in &t.partitions {
            if !p.isr.contains(&broker) {
                continue;
            }
            let mut after = p.clone();
            let unclean = remove_from_isr(&image, name, &mut after, broker, &active);
            if let Some(change) = change_record(t.id, number, p, &after) {
                records.push(MetadataRecord::PartitionChange(change));
                partitions.push(LeaderChange {
                    topic: name.clone(),
                    partition: number,
                    leader_before: p.leader,
                    leader_after: after.leader,
                    leader_epoch: after.leader_epoch,
                    isr: after.isr.clone(),
                    unclean,
                });
            }
        }
    }
    records.push(MetadataRecord::BrokerRegistrationChange {
        broker_id: broker,
        broker_epoch: registration.epoch,
        fenced: 1,
        in_controlled_shutdown: 0,
    });
    append_records(&cluster.join(METADATA_PARTITION), &records, now_ms())
        .map_err(ReplicationError::from)?;
    record_new_leaders(cluster, &partitions)?;
    Ok(BrokerChange {
        broker,
        partitions,
        replication: None,
    })
}

/// Starts (unfences) `broker`: partitions without a leader that keep it in their ISR elect it,
/// then a replication step brings its replicas up to date (truncating first what their
/// leaders do not have).
pub fn start_broker(cluster: &Path, broker: i32) -> Result<BrokerChange> {
    let _controller = controller(cluster)?;
    let image = load(cluster)?;
    let registration = image
        .brokers
        .get(&broker)
        .ok_or(BrokerError::Unknown(broker))?;
    if !registration.fenced {
        return Err(BrokerError::AlreadyRunning(broker));
    }
    let mut records = vec![MetadataRecord::BrokerRegistrationChange {
        broker_id: broker,
        broker_epoch: registration.epoch,
        fenced: -1,
        in_controlled_shutdown: 0,
    }];
    let active = |r: i32| r == broker || image.brokers.get(&r).is_some_and(|b| b.is_active());
    let mut partitions = Vec::new();
    for (name, t) in &image.topics {
        for (&number, p) in &t.partitions {
            // Kafka's `electAnyLeader` for an offline partition: the first replica in the ISR
            // that is active (the returning broker, as the last ISR member).
            if p.leader != NO_LEADER {
                continue;
            }
            let clean = p
                .replicas
                .iter()
                .find(|&&r| p.isr.contains(&r) && active(r));
            let mut change = PartitionChange::none(t.id, number);
            let (leader, isr, unclean) = match clean {
                Some(&leader) => (leader, p.isr.clone(), false),
                // No in-sync replica runs: with unclean.leader.election.enable the
                // controller's periodic check elects the returning replica, alone in the
                // ISR, recovering (Kafka's `electUncleanLeaders`); the leader then reports its
                // recovery done (AlterPartition), a second change.
                None if p.replicas.contains(&broker) && unclean_enabled(&image, name) => {
                    change.isr = Some(vec![broker]);
                    change.leader_recovery_state = 1;
                    (broker, vec![broker], true)
                }
                None => continue,
            };
            change.leader = leader;
            records.push(MetadataRecord::PartitionChange(change));
            if unclean {
                let mut recovered = PartitionChange::none(t.id, number);
                recovered.leader_recovery_state = 0;
                records.push(MetadataRecord::PartitionChange(recovered));
            }
            partitions.push(LeaderChange {
                topic: name.clone(),
                partition: number,
                leader_before: NO_LEADER,
                leader_after: leader,
                leader_epoch: p.leader_epoch.saturating_add(1),
                isr,
                unclean,
            });
        }
    }
    append_records(&cluster.join(METADATA_PARTITION), &records, now_ms())
        .map_err(ReplicationError::from)?;
    record_new_leaders(cluster, &partitions)?;
    let replication = replicate_held(
        cluster,
        None,
        &Step {
            fetch: true,
            now: now_ms(),
            stuck: Vec::new(),
        },
    )?;
    Ok(BrokerChange {
        broker,
        partitions,
        replication: Some(replication),
    })
}

/// A broker in the status.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BrokerStatus {
    /// Its id.
    pub id: i32,
    /// Running (unfenced) or stopped.
    pub up: bool,
    /// Its rack.
    pub rack: Option<String>,
}

/// One replica in the status.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReplicaStatus {
    /// Its broker.
    pub broker: i32,
    /// Its log end offset.
    pub log_end_offset: i64,
    /// The high watermark its broker checkpointed.
    pub high_watermark: i64,
}

/// One partition in the status.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PartitionStatus {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// Its leader (-1: none).
    pub leader: i32,
    /// Its leader epoch.
    pub leader_epoch: i32,
    /// Its ISR.
    pub isr: Vec<i32>,
    /// Its `min.insync.replicas`.
    pub min_isr: usize,
    /// The leader's high watermark (consumers read below it); -1 without a leader.
    pub high_watermark: i64,
    /// Each replica, in replica order.
    pub replicas: Vec<ReplicaStatus>,
}

/// The cluster's replication status.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ClusterStatus {
    /// Every registered broker.
    pub brokers: Vec<BrokerStatus>,
    /// Every partition, by topic and number.
    pub partitions: Vec<PartitionStatus>,
}

/// The brokers (up or down) and each partition's leader, ISR, high watermark and replicas'
/// log end offsets.
pub fn status(cluster: &Path) -> Result<ClusterStatus> {
    let image = load(cluster)?;
    let mut hws = BTreeMap::new();
    for &id in image.brokers.keys() {
        hws.insert(id, high_watermarks(cluster, id)?);
    }
    let hw = |broker: i32, tp: &TopicPartition| {
        hws.get(&broker)
            .and_then(|m| m.get(tp))
            .copied()
            .unwrap_or(0)
    };
    let mut partitions = Vec::new();
    for (name, t) in &image.topics {
        for (&number, p) in &t.partitions {
            let tp = TopicPartition::new(name.clone(), number);
            let mut replicas = Vec::new();
            for &r in &p.replicas {
                replicas.push(ReplicaStatus {
                    broker: r,
                    log_end_offset: log_end_offset(cluster, r, &tp)?,
                    high_watermark: hw(r, &tp),
                });
            }
            partitions.push(PartitionStatus {
                topic: name.clone(),
                partition: number,
                leader: p.leader,
                leader_epoch: p.leader_epoch,
                isr: p.isr.clone(),
                min_isr: min_isr(&image, name),
                high_watermark: if p.leader == NO_LEADER {
                    -1
                } else {
                    hw(p.leader, &tp)
                },
                replicas,
            });
        }
    }
    Ok(ClusterStatus {
        brokers: image
            .brokers
            .values()
            .map(|b| BrokerStatus {
                id: b.id,
                up: !b.fenced,
                rack: b.rack.clone(),
            })
            .collect(),
        partitions,
    })
}
