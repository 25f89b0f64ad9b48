//! What taking brokers down would do to a cluster, by the controller's rules.
//!
//! A broker that goes down (a controlled shutdown for maintenance, or a fenced broker) is
//! handled by Kafka's controller as `ReplicationControlManager.generateLeaderAndIsrUpdates`
//! does for each partition with the broker in its ISR: the broker leaves the target ISR, then
//! `PartitionChangeBuilder` elects a leader. Election (`electAnyLeader`): the current leader
//! stays if it is still in the target ISR (or ELR) and active; else the first replica, in
//! replica order, that is in the target ISR (or, when the `eligible.leader.replicas.version`
//! feature is on, in the ELR) and active; else, when `unclean.leader.election.enable` holds for
//! the topic (its config, else the cluster-wide broker default), the first active replica, and
//! the ISR becomes that replica alone; else no leader. Without ELR an ISR never becomes empty:
//! the last member stays in it (Kafka keeps it so that it can lead again when it returns).
//! With ELR, an ISR below `min.insync.replicas` hands its leaving members to the ELR (a clean
//! shutdown).
//!
//! Brokers go down one after another in the order given, as the controller handles them: with
//! ISR `[2,3]`, `--down 2,3` leaves `[3]` (the last member) and `--down 3,2` leaves `[2]`.
//! An unclean election with `unclean.leader.election.enable` happens at once here; Kafka 4.0's
//! controller makes it on its next periodic check, which ends in the same state.

use std::collections::{BTreeMap, BTreeSet};

use super::election::{elect, elr_enabled, unclean_enabled, Elected, Election, Target};
use super::image::{MetadataImage, Partition};
use super::records::NO_LEADER;

/// Kafka's default `min.insync.replicas`.
pub const DEFAULT_MIN_ISR: usize = 1;

/// Why a what-if question cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WhatIfError {
    /// A broker to take down that the image does not have.
    #[error("broker {0} is not registered in the cluster's metadata")]
    UnknownBroker(i32),
    /// The same broker twice.
    #[error("broker {0} is named twice")]
    Duplicate(i32),
    /// No broker named.
    #[error("no broker to take down")]
    NoBroker,
}

/// A partition's state for producers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    /// A leader and at least `min.insync.replicas` in the ISR.
    Online,
    /// A leader, but fewer in-sync replicas than `min.insync.replicas`: producers with
    /// `acks=all` get NOT_ENOUGH_REPLICAS.
    UnderMinIsr,
    /// No leader: nothing can be produced or consumed.
    Offline,
}

impl Health {
    /// The state of a partition with this leader and ISR size.
    pub fn of(leader: i32, isr: usize, min_isr: usize) -> Health {
        if leader == NO_LEADER {
            Health::Offline
        } else if isr < min_isr {
            Health::UnderMinIsr
        } else {
            Health::Online
        }
    }

    /// The word the text output shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Online => "online",
            Health::UnderMinIsr => "under-min-isr",
            Health::Offline => "offline",
        }
    }
}

/// What happens to one partition with a replica on a broker taken down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionOutcome {
    /// The topic.
    pub topic: String,
    /// The partition number.
    pub partition: i32,
    /// Its replicas.
    pub replicas: Vec<i32>,
    /// Its leader now.
    pub leader_before: i32,
    /// Its leader after (-1: none).
    pub leader_after: i32,
    /// Its ISR now.
    pub isr_before: Vec<i32>,
    /// Its ISR after.
    pub isr_after: Vec<i32>,
    /// Its ELR after (empty without the ELR feature).
    pub elr_after: Vec<i32>,
    /// Whether the new leader came from outside the ISR (data loss possible).
    pub unclean: bool,
    /// The `min.insync.replicas` in force.
    pub min_isr: usize,
    /// Its state now.
    pub before: Health,
    /// Its state after.
    pub after: Health,
}

/// How many partitions a broker leads, before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Leadership {
    /// Partitions it leads now.
    pub before: usize,
    /// Partitions it leads after.
    pub after: usize,
}

/// The answer: every partition with a replica on a broker taken down, and the totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhatIf {
    /// The brokers taken down, in order.
    pub down: Vec<i32>,
    /// The partitions with a replica on one of them, by topic and number.
    pub partitions: Vec<PartitionOutcome>,
    /// Leadership per registered broker.
    pub leadership: BTreeMap<i32, Leadership>,
    /// Partitions in the cluster.
    pub total_partitions: usize,
    /// Partitions without a leader after.
    pub offline: usize,
    /// Partitions with a leader but under `min.insync.replicas` after.
    pub under_min_isr: usize,
    /// Partitions whose leader moves to another broker.
    pub leaders_moved: usize,
    /// Unclean elections among those.
    pub unclean: usize,
}

/// A topic's `min.insync.replicas`: its config, else the cluster default, else 1.
pub fn min_isr(image: &MetadataImage, topic: &str) -> usize {
    image
        .topic_config(topic, "min.insync.replicas")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MIN_ISR)
}

/// The controller's handling of `broker` going down for one partition (its ISR holds it).
struct Change<'a> {
    partition: &'a mut Partition,
    min_isr: usize,
    elr: bool,
    unclean_allowed: bool,
}

impl Change<'_> {
    /// Returns whether the election was unclean.
    fn remove(&mut self, broker: i32, active: &dyn Fn(i32) -> bool) -> bool {
        let p = &mut *self.partition;
        let target_isr: Vec<i32> = p.isr.iter().copied().filter(|&r| r != broker).collect();
        let mut target_elr = p.elr.clone();
        if self.elr {
            if target_isr.len() >= self.min_isr {
                target_elr.clear();
                p.last_known_elr.clear();
            } else {
                let candidates: BTreeSet<i32> = p.elr.iter().chain(&p.isr).copied().collect();
                target_elr = candidates
                    .into_iter()
                    .filter(|r| !target_isr.contains(r))
                    .collect();
                p.last_known_elr
                    .retain(|r| !target_isr.contains(r) && !target_elr.contains(r));
            }
        }
        let election = if self.unclean_allowed {
            Election::Unclean
        } else {
            Election::Online
        };
        let target = Target {
            replicas: &p.replicas,
            isr: &target_isr,
            elr: &target_elr,
            use_elr: self.elr,
        };
        let Elected { leader, unclean } = elect(p.leader, target, election, active);
        if leader != p.leader {
            p.leader = leader;
            p.leader_epoch = p.leader_epoch.saturating_add(1);
        }
        if unclean {
            p.isr = vec![leader];
            p.leader_recovery_state = 1;
        } else if (self.elr || !target_isr.is_empty()) && target_isr != p.isr {
            p.isr = target_isr;
        }
        if self.elr {
            p.elr = target_elr;
        }
        unclean
    }
}

/// The controller's handling of `broker` going down for one partition of `topic` whose ISR
/// holds it (what [`what_if`] applies): `active` tells which brokers may lead. Returns whether
/// the election was unclean.
pub fn remove_from_isr(
    image: &MetadataImage,
    topic: &str,
    partition: &mut Partition,
    broker: i32,
    active: &dyn Fn(i32) -> bool,
) -> bool {
    Change {
        partition,
        min_isr: min_isr(image, topic),
        elr: elr_enabled(image),
        unclean_allowed: unclean_enabled(image, topic),
    }
    .remove(broker, active)
}

/// What taking `down` (in that order) would do to the cluster of `image`.
pub fn what_if(image: &MetadataImage, down: &[i32]) -> Result<WhatIf, WhatIfError> {
    if down.is_empty() {
        return Err(WhatIfError::NoBroker);
    }
    let mut seen = BTreeSet::new();
    for &b in down {
        if !image.brokers.contains_key(&b) {
            return Err(WhatIfError::UnknownBroker(b));
        }
        if !seen.insert(b) {
            return Err(WhatIfError::Duplicate(b));
        }
    }
    let elr = elr_enabled(image);
    let mut leadership: BTreeMap<i32, Leadership> = image
        .brokers
        .keys()
        .map(|&id| (id, Leadership::default()))
        .collect();
    let mut answer = WhatIf {
        down: down.to_vec(),
        partitions: Vec::new(),
        leadership: BTreeMap::new(),
        total_partitions: 0,
        offline: 0,
        under_min_isr: 0,
        leaders_moved: 0,
        unclean: 0,
    };
    for topic in image.topics.values() {
        let min_isr = min_isr(image, &topic.name);
        let unclean_allowed = unclean_enabled(image, &topic.name);
        for (&number, partition) in &topic.partitions {
            answer.total_partitions += 1;
            let mut after = partition.clone();
            let mut unclean = false;
            let mut gone = BTreeSet::new();
            for &broker in down {
                gone.insert(broker);
                if !after.isr.contains(&broker) {
                    continue;
                }
                let active = |r: i32| {
                    !gone.contains(&r) && image.brokers.get(&r).is_some_and(|b| b.is_active())
                };
                let mut change = Change {
                    partition: &mut after,
                    min_isr,
                    elr,
                    unclean_allowed,
                };
                unclean |= change.remove(broker, &active);
            }
            if let Some(l) = leadership.get_mut(&partition.leader) {
                l.before += 1;
            }
            if let Some(l) = leadership.get_mut(&after.leader) {
                l.after += 1;
            }
            let health_after = Health::of(after.leader, after.isr.len(), min_isr);
            match health_after {
                Health::Offline => answer.offline += 1,
                Health::UnderMinIsr => answer.under_min_isr += 1,
                Health::Online => {}
            }
            if !partition.replicas.iter().any(|r| down.contains(r)) {
                continue;
            }
            if after.leader != partition.leader && after.leader != NO_LEADER {
                answer.leaders_moved += 1;
            }
            answer.unclean += usize::from(unclean);
            answer.partitions.push(PartitionOutcome {
                topic: topic.name.clone(),
                partition: number,
                replicas: partition.replicas.clone(),
                leader_before: partition.leader,
                leader_after: after.leader,
                isr_before: partition.isr.clone(),
                isr_after: after.isr,
                elr_after: after.elr,
                unclean,
                min_isr,
                before: Health::of(partition.leader, partition.isr.len(), min_isr),
                after: health_after,
            });
        }
    }
    answer.leadership = leadership;
    Ok(answer)
}
