//! The controller's leader election (Kafka's `PartitionChangeBuilder.electLeader`), one function
//! for every caller: `cluster what-if` (a broker leaving the ISR), `leader-election` (preferred
//! and unclean elections asked for by an operator) and `reassign-partitions` (a leader removed
//! from the replicas).
//!
//! A replica is a valid new leader when it is in the target ISR (or, with eligible leader
//! replicas on, in the target ELR) and active (unfenced, not in controlled shutdown).
//!
//! - `Online` (`electAnyLeader`): the current leader if still valid, else the first valid replica
//!   in replica order, else, when the election may be unclean, the first active replica
//!   (unclean: the ISR becomes that replica alone), else none.
//! - `Preferred` (`electPreferredLeader`): the first replica if valid, else the current leader
//!   if valid, else the first valid replica after the first, else none. Never unclean.
//! - `Unclean`: `Online` that may end unclean.
//!
//! `leader-election`'s own rules (`ReplicationControlManager.electLeader`): a preferred
//! election of a partition led by its first replica, or an unclean one of a partition with a
//! leader, is `ELECTION_NOT_NEEDED`; an election that changes nothing is
//! `PREFERRED_LEADER_NOT_AVAILABLE` (preferred) or `ELIGIBLE_LEADERS_NOT_AVAILABLE` (unclean).

use std::collections::BTreeMap;
use std::path::Path;

use super::image::{MetadataImage, Partition};
use super::init::{append_records, InitError};
use super::records::{MetadataRecord, PartitionChange, NO_LEADER};
use super::{ImageError, METADATA_PARTITION};
use crate::common::Uuid;

/// Which election the controller runs (`PartitionChangeBuilder.Election`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Election {
    /// The preferred replica (the first) if it can lead.
    Preferred,
    /// Any replica in the ISR; the current leader stays if it can.
    Online,
    /// As `Online`, then any active replica (data may be lost).
    Unclean,
}

/// What an election chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elected {
    /// The leader, or [`NO_LEADER`].
    pub leader: i32,
    /// Whether it came from outside the ISR.
    pub unclean: bool,
}

/// The state a change aims at, from which the leader is elected.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The replicas, preferred first.
    pub replicas: &'a [i32],
    /// The ISR after the change.
    pub isr: &'a [i32],
    /// The ELR after the change (empty without the feature).
    pub elr: &'a [i32],
    /// Whether eligible leader replicas are on.
    pub use_elr: bool,
}

/// Elects a leader for a partition whose current leader is `current`, by the controller's
/// rules (see the module's documentation).
pub fn elect(
    current: i32,
    target: Target<'_>,
    election: Election,
    active: &dyn Fn(i32) -> bool,
) -> Elected {
    let valid = |r: i32| {
        (target.isr.contains(&r) || (target.use_elr && target.elr.contains(&r))) && active(r)
    };
    let clean = |leader| Elected {
        leader,
        unclean: false,
    };
    if election == Election::Preferred {
        let first = target.replicas.first().copied().unwrap_or(NO_LEADER);
        if valid(first) {
            return clean(first);
        }
        if valid(current) {
            return clean(current);
        }
        let next = target.replicas.iter().skip(1).copied().find(|&r| valid(r));
        return clean(next.unwrap_or(NO_LEADER));
    }
    if valid(current) {
        return clean(current);
    }
    if let Some(r) = target.replicas.iter().copied().find(|&r| valid(r)) {
        return clean(r);
    }
    if election == Election::Unclean {
        if let Some(r) = target.replicas.iter().copied().find(|&r| active(r)) {
            return Elected {
                leader: r,
                unclean: true,
            };
        }
    }
    clean(NO_LEADER)
}

/// Whether a broker of the image may lead (registered and `isActive`).
pub fn active_in(image: &MetadataImage) -> impl Fn(i32) -> bool + '_ {
    |r| image.brokers.get(&r).is_some_and(|b| b.is_active())
}

/// Whether a topic allows unclean leader election (its config, else the cluster default).
pub fn unclean_enabled(image: &MetadataImage, topic: &str) -> bool {
    image
        .topic_config(topic, "unclean.leader.election.enable")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Whether the image's cluster has eligible leader replicas on.
pub fn elr_enabled(image: &MetadataImage) -> bool {
    image
        .features
        .get("eligible.leader.replicas.version")
        .is_some_and(|&level| level >= 1)
}

/// The election type of `kafka-leader-election.sh --election-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElectionType {
    /// `PREFERRED`.
    Preferred,
    /// `UNCLEAN`.
    Unclean,
}

impl ElectionType {
    /// Kafka's name (`ElectionType.toString`).
    pub fn as_str(self) -> &'static str {
        match self {
            ElectionType::Preferred => "PREFERRED",
            ElectionType::Unclean => "UNCLEAN",
        }
    }
}

/// Why the controller made no election for a partition: Kafka's error code, name and message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ElectionError {
    /// `ELECTION_NOT_NEEDED` (84): the leader is already the one asked for.
    #[error("org.apache.kafka.common.errors.ElectionNotNeededException: Leader election not needed for topic partition.")]
    NotNeeded,
    /// `PREFERRED_LEADER_NOT_AVAILABLE` (80).
    #[error("org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: The preferred leader was not available.")]
    PreferredLeaderNotAvailable,
    /// `ELIGIBLE_LEADERS_NOT_AVAILABLE` (83).
    #[error("org.apache.kafka.common.errors.EligibleLeadersNotAvailableException: Eligible topic partition leaders are not available.")]
    EligibleLeadersNotAvailable,
    /// `UNKNOWN_TOPIC_OR_PARTITION` (3).
    #[error("org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.")]
    UnknownTopicOrPartition,
}

impl ElectionError {
    /// Kafka's error code.
    pub fn code(self) -> i16 {
        match self {
            ElectionError::NotNeeded => 84,
            ElectionError::PreferredLeaderNotAvailable => 80,
            ElectionError::EligibleLeadersNotAvailable => 83,
            ElectionError::UnknownTopicOrPartition => 3,
        }
    }

    /// Kafka's error name.
    pub fn name(self) -> &'static str {
        match self {
            ElectionError::NotNeeded => "ELECTION_NOT_NEEDED",
            ElectionError::PreferredLeaderNotAvailable => "PREFERRED_LEADER_NOT_AVAILABLE",
            ElectionError::EligibleLeadersNotAvailable => "ELIGIBLE_LEADERS_NOT_AVAILABLE",
            ElectionError::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
        }
    }
}

/// The controller's answer to an election request for one partition
/// (`ReplicationControlManager.electLeader`): the record it writes, or why none.
pub fn elect_leader(
    image: &MetadataImage,
    topic: &str,
    partition: i32,
    election_type: ElectionType,
) -> Result<PartitionChange, ElectionError> {
    let t = image
        .topics
        .get(topic)
        .ok_or(ElectionError::UnknownTopicOrPartition)?;
    let p = t
        .partitions
        .get(&partition)
        .ok_or(ElectionError::UnknownTopicOrPartition)?;
    let not_needed = match election_type {
        ElectionType::Preferred => p.replicas.first() == Some(&p.leader),
        ElectionType::Unclean => p.leader != NO_LEADER,
    };
    if not_needed {
        return Err(ElectionError::NotNeeded);
    }
    let election = match election_type {
        ElectionType::Preferred => Election::Preferred,
        ElectionType::Unclean => Election::Unclean,
    };
    let active = active_in(image);
    let elected = elect(
        p.leader,
        Target {
            replicas: &p.replicas,
            isr: &p.isr,
            elr: &p.elr,
            use_elr: elr_enabled(image),
        },
        election,
        &active,
    );
    if elected.leader == p.leader {
        return Err(match election_type {
            ElectionType::Preferred => ElectionError::PreferredLeaderNotAvailable,
            ElectionType::Unclean => ElectionError::EligibleLeadersNotAvailable,
        });
    }
    Ok(leader_change(t.id, partition, p, elected))
}

/// The record of a new leader: the leader, and after an unclean election the ISR of the new
/// leader alone, recovering (`LeaderRecoveryState.RECOVERING`).
pub fn leader_change(
    topic_id: Uuid,
    partition: i32,
    p: &Partition,
    elected: Elected,
) -> PartitionChange {
    let mut change = PartitionChange::none(topic_id, partition);
    if elected.leader != p.leader {
        change.leader = elected.leader;
    }
    if elected.unclean {
        change.isr = Some(vec![elected.leader]);
        change.leader_recovery_state = 1;
    }
    change
}

/// What `leader-election` did for each partition asked about, by topic and partition.
pub type ElectionResults = BTreeMap<(String, i32), Result<(), ElectionError>>;

/// The partitions an election over the whole cluster (`--all-topic-partitions`) considers:
/// every partition; those that need no election are left out of the answer, as the
/// controller leaves them out of its response.
pub fn all_partitions(image: &MetadataImage) -> Vec<(String, i32)> {
    image
        .topics
        .values()
        .flat_map(|t| t.partitions.keys().map(|&p| (t.name.clone(), p)))
        .collect()
}

/// Why an election request could not be carried out at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ElectLeadersError {
    /// The metadata log could not be read.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The metadata log could not be written.
    #[error(transparent)]
    Write(#[from] InitError),
    /// Another process held the cluster's controller lock.
    #[error(transparent)]
    Lock(#[from] crate::datadir::LockError),
}

/// Runs an election request on the cluster at `dir` (Kafka's `ElectLeaders`): for each
/// partition asked about (`None`: every partition, leaving out those that need no election),
/// the controller's answer; the records of the elections made are appended in one batch.
pub fn elect_leaders(
    dir: &Path,
    partitions: Option<&[(String, i32)]>,
    election_type: ElectionType,
    now_ms: i64,
) -> Result<ElectionResults, ElectLeadersError> {
    let _controller = super::controller(dir)?;
    let metadata_dir = dir.join(METADATA_PARTITION);
    let image = MetadataImage::load(&metadata_dir)?;
    let all = partitions.is_none();
    let asked = match partitions {
        Some(p) => p.to_vec(),
        None => all_partitions(&image),
    };
    let mut results = ElectionResults::new();
    let mut records = Vec::new();
    for (topic, partition) in asked {
        let result = match elect_leader(&image, &topic, partition, election_type) {
            Ok(change) => {
                records.push(MetadataRecord::PartitionChange(change));
                Ok(())
            }
            Err(ElectionError::NotNeeded) if all => continue,
            Err(e) => Err(e),
        };
        results.insert((topic, partition), result);
    }
    append_records(&metadata_dir, &records, now_ms)?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target<'a>(replicas: &'a [i32], isr: &'a [i32]) -> Target<'a> {
        Target {
            replicas,
            isr,
            elr: &[],
            use_elr: false,
        }
    }

    #[test]
    fn the_controllers_elections() {
        let all = |_: i32| true;
        let not_2 = |r: i32| r != 2;
        let (replicas, isr) = ([1, 2, 3], [2, 3]);
        let run = |current, election, active: &dyn Fn(i32) -> bool| {
            elect(current, target(&replicas, &isr), election, active)
        };
        let clean = |leader| Elected {
            leader,
            unclean: false,
        };
        // Preferred: the first replica is out of the ISR, so the valid current leader stays...
        assert_eq!(run(3, Election::Preferred, &all), clean(3));
        // ...and without a valid current leader, the first valid replica after the first.
        assert_eq!(run(NO_LEADER, Election::Preferred, &all), clean(2));
        assert_eq!(run(NO_LEADER, Election::Preferred, &not_2), clean(3));
        // Online: the current leader if valid, else the first valid replica in replica order.
        assert_eq!(run(3, Election::Online, &all), clean(3));
        assert_eq!(run(1, Election::Online, &all), clean(2));
        // No valid replica: none, unless unclean, which takes the first live replica.
        let only_1 = |r: i32| r == 1;
        assert_eq!(run(2, Election::Online, &only_1), clean(NO_LEADER));
        assert_eq!(
            run(2, Election::Unclean, &only_1),
            Elected {
                leader: 1,
                unclean: true
            }
        );
        // With ELR on, an ELR member is as valid as an ISR one.
        let elr = Target {
            replicas: &replicas,
            isr: &[],
            elr: &[3],
            use_elr: true,
        };
        assert_eq!(elect(NO_LEADER, elr, Election::Online, &all), clean(3));
    }
}
