//! Server-side assignors of the new consumer protocol (KIP-848): the group coordinator's
//! `UniformAssignor` (homogeneous and heterogeneous builders) and `RangeAssignor` (spec §5).
//!
//! They assign from the group's current *target* assignment, not from what members own; each
//! member then reconciles towards its target (see [`reconcile`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::java;
use super::{member_info_cmp, AssignError};
use crate::common::{TopicPartition, Uuid};

mod heterogeneous;

/// A topic in the coordinator's metadata image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTopic {
    /// The name.
    pub name: String,
    /// The partition count.
    pub partitions: i32,
    /// The topic id.
    pub id: Uuid,
}

/// A stand-in id for a topic that has none (a scenario or vector file that names no id, a
/// broker topic without `partition.metadata`): the name's bytes folded into 16 bytes, so the
/// same name always orders the same way.
pub fn id_from_name(name: &str) -> Uuid {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x8422_2325_cbf2_9ce4;
    for byte in name.bytes() {
        a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b5);
    }
    let mut bytes = [0u8; 16];
    let (hi, lo) = bytes.split_at_mut(8);
    hi.copy_from_slice(&a.to_be_bytes());
    lo.copy_from_slice(&b.to_be_bytes());
    Uuid(bytes)
}

/// One member as the server-side assignor sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerMember {
    /// The member id.
    pub id: String,
    /// `group.instance.id`.
    pub instance_id: Option<String>,
    /// `client.rack` (ignored by both assignors).
    pub rack: Option<String>,
    /// Subscribed topic names.
    pub topics: Vec<String>,
    /// The current target assignment: (topic, partitions), in map iteration order.
    pub assignment: Vec<(String, Vec<i32>)>,
}

/// `SubscriptionType`: do all members subscribe to the same topics?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionType {
    /// Every subscribed topic is subscribed by every member.
    Homogeneous,
    /// Otherwise.
    Heterogeneous,
}

/// Member id → target partitions, sorted by (topic, partition).
pub type ServerAssignment = BTreeMap<String, Vec<TopicPartition>>;

/// `ModernGroup.subscriptionType`: homogeneous iff every subscribed topic has every member.
pub fn subscription_type(members: &[ServerMember]) -> SubscriptionType {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for m in members {
        let set: HashSet<&str> = m.topics.iter().map(String::as_str).collect();
        for t in set {
            *counts.entry(t).or_insert(0) += 1;
        }
    }
    if counts.values().all(|&n| n == members.len()) {
        SubscriptionType::Homogeneous
    } else {
        SubscriptionType::Heterogeneous
    }
}

pub(crate) struct Spec<'a> {
    pub(crate) topics: HashMap<&'a str, &'a ServerTopic>,
    pub(crate) members: &'a [ServerMember],
    pub(crate) assigned: HashSet<(String, i32)>,
}

impl<'a> Spec<'a> {
    fn new(topics: &'a [ServerTopic], members: &'a [ServerMember]) -> Self {
        let mut assigned = HashSet::new();
        for m in members {
            for (t, parts) in &m.assignment {
                for &p in parts {
                    assigned.insert((t.clone(), p));
                }
            }
        }
        Spec {
            topics: topics.iter().map(|t| (t.name.as_str(), t)).collect(),
            members,
            assigned,
        }
    }

    pub(crate) fn topic(&self, name: &str) -> Result<&'a ServerTopic, AssignError> {
        self.topics.get(name).copied().ok_or_else(|| {
            AssignError::PartitionAssignor(format!(
                "Members are subscribed to topic {name} which doesn't exist in the topic metadata."
            ))
        })
    }
}

/// The iteration order of a `HashSet<Integer>` built from `parts` (`new HashSet<>(list)`).
pub(crate) fn int_set_order(parts: &[i32]) -> Vec<i32> {
    let hashes: Vec<i32> = parts.to_vec();
    let cap = java::copy_capacity(parts.len());
    java::hash_order(&hashes, cap)
        .into_iter()
        .filter_map(|i| parts.get(i).copied())
        .collect()
}

/// The iteration order of a `HashSet<Uuid>` holding the topics `names` (in insertion order).
pub(crate) fn uuid_set_order<'a>(names: &[&'a ServerTopic]) -> Vec<&'a ServerTopic> {
    let hashes: Vec<i32> = names.iter().map(|t| t.id.java_hash()).collect();
    let cap = java::copy_capacity(names.len());
    java::hash_order(&hashes, cap)
        .into_iter()
        .filter_map(|i| names.get(i).copied())
        .collect()
}

fn finish(targets: Vec<(String, Vec<(String, i32)>)>) -> ServerAssignment {
    targets
        .into_iter()
        .map(|(m, parts)| {
            let mut list: Vec<TopicPartition> = parts
                .into_iter()
                .map(|(t, p)| TopicPartition::new(t, p))
                .collect();
            list.sort();
            list.dedup();
            (m, list)
        })
        .collect()
}

/// `UniformAssignor.assign`. `members` is in `GroupSpec.memberIds()` order; `kind` overrides the
/// subscription type computed from the subscriptions (the vectors state it explicitly).
pub fn uniform(
    topics: &[ServerTopic],
    members: &[ServerMember],
    kind: Option<SubscriptionType>,
) -> Result<ServerAssignment, AssignError> {
    if members.is_empty() {
        return Ok(BTreeMap::new());
    }
    let spec = Spec::new(topics, members);
    match kind.unwrap_or_else(|| subscription_type(members)) {
        SubscriptionType::Homogeneous => uniform_homogeneous(&spec),
        SubscriptionType::Heterogeneous => heterogeneous::build(&spec),
    }
}

fn uniform_homogeneous(spec: &Spec) -> Result<ServerAssignment, AssignError> {
    let Some(first) = spec.members.first() else {
        return Ok(BTreeMap::new());
    };
    if first.topics.is_empty() {
        return Ok(BTreeMap::new());
    }
    let mut subscribed: Vec<&ServerTopic> = Vec::new();
    for name in &first.topics {
        let t = spec.topic(name)?;
        if !subscribed.iter().any(|s| s.name == t.name) {
            subscribed.push(t);
        }
    }
    let subscribed = uuid_set_order(&subscribed);
    let names: HashSet<&str> = subscribed.iter().map(|t| t.name.as_str()).collect();
    let mut unassigned: Vec<(String, i32)> = Vec::new();
    let mut total = 0usize;
    for t in &subscribed {
        for p in 0..t.partitions {
            if !spec.assigned.contains(&(t.name.clone(), p)) {
                unassigned.push((t.name.clone(), p));
            }
        }
        total += t.partitions.max(0) as usize;
    }
    let n = spec.members.len();
    let min_quota = total / n;
    let mut extra = total % n;

    let mut targets: Vec<(String, Vec<(String, i32)>)> = Vec::new();
    let mut unfilled: Vec<(usize, usize)> = Vec::new();
    for (i, m) in spec.members.iter().enumerate() {
        let mut quota = min_quota;
        if extra > 0 {
            quota += 1;
            extra -= 1;
        }
        let mut kept: Vec<(String, i32)> = Vec::new();
        for (topic, parts) in &m.assignment {
            if !names.contains(topic.as_str()) {
                continue;
            }
            if parts.len() <= quota {
                quota -= parts.len();
                kept.extend(parts.iter().map(|&p| (topic.clone(), p)));
            } else {
                for p in int_set_order(parts) {
                    if quota > 0 {
                        quota -= 1;
                        kept.push((topic.clone(), p));
                    } else {
                        unassigned.push((topic.clone(), p));
                    }
                }
            }
        }
        if quota > 0 {
            unfilled.push((i, quota));
        }
        targets.push((m.id.clone(), kept));
    }
    let mut next = 0usize;
    for (i, quota) in unfilled {
        for _ in 0..quota {
            let Some(tp) = unassigned.get(next) else {
                break;
            };
            if let Some((_, list)) = targets.get_mut(i) {
                list.push(tp.clone());
            }
            next += 1;
        }
    }
    if next < unassigned.len() {
        return Err(AssignError::PartitionAssignor(
            "Partitions were left unassigned".into(),
        ));
    }
    Ok(finish(targets))
}

/// The group coordinator's `RangeAssignor` (stateless; members in `MemberInfo` order).
pub fn range(
    topics: &[ServerTopic],
    members: &[ServerMember],
    kind: Option<SubscriptionType>,
) -> Result<ServerAssignment, AssignError> {
    if members.is_empty() {
        return Ok(BTreeMap::new());
    }
    let spec = Spec::new(topics, members);
    let mut sorted: Vec<&ServerMember> = members.iter().collect();
    sorted.sort_by(|a, b| {
        member_info_cmp(
            &a.id,
            a.instance_id.as_deref(),
            &b.id,
            b.instance_id.as_deref(),
        )
    });
    // Per topic: (partitions, subscribers, minQuota, extra, nextRange).
    let mut state: HashMap<&str, (i32, i32, i32, i32, i32)> = HashMap::new();
    let homogeneous =
        kind.unwrap_or_else(|| subscription_type(members)) == SubscriptionType::Homogeneous;
    let topics_of = |m: &ServerMember| -> Vec<String> {
        let mut seen = BTreeSet::new();
        m.topics
            .iter()
            .filter(|t| seen.insert(t.as_str()))
            .cloned()
            .collect()
    };
    let first_topics = sorted.first().map(|m| topics_of(m)).unwrap_or_default();
    for m in &sorted {
        let ts = if homogeneous {
            first_topics.clone()
        } else {
            topics_of(m)
        };
        for t in ts {
            let meta = spec.topic(&t).map_err(|_| {
                AssignError::PartitionAssignor(
                    "Member is subscribed to a non-existent topic".into(),
                )
            })?;
            let e = state
                .entry(meta.name.as_str())
                .or_insert((meta.partitions, 0, -1, -1, 0));
            e.1 += 1;
        }
    }
    let mut targets: Vec<(String, Vec<(String, i32)>)> = Vec::new();
    for m in &sorted {
        let ts = if homogeneous {
            first_topics.clone()
        } else {
            topics_of(m)
        };
        let mut list = Vec::new();
        for t in ts {
            let Some(e) = state.get_mut(t.as_str()) else {
                continue;
            };
            if e.2 == -1 {
                e.2 = e.0 / e.1.max(1);
                e.3 = e.0 % e.1.max(1);
            }
            let start = e.4;
            let mut quota = e.2;
            if e.3 > 0 {
                quota += 1;
                e.3 -= 1;
            }
            let end = (start + quota).min(e.0);
            e.4 = end;
            list.extend((start..end).map(|p| (t.clone(), p)));
        }
        targets.push((m.id.clone(), list));
    }
    Ok(finish(targets))
}

/// One member's step towards its target (`CurrentAssignmentBuilder`, spec §5.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconciliation {
    /// Partitions it keeps (current ∩ target).
    pub assigned: Vec<TopicPartition>,
    /// Partitions it must revoke before anything else (current − target).
    pub pending_revocation: Vec<TopicPartition>,
    /// Target partitions it receives now (not owned by anyone else any more).
    pub newly_assigned: Vec<TopicPartition>,
    /// Target partitions it waits for (still owned by another member).
    pub unreleased: Vec<TopicPartition>,
    /// `UNREVOKED_PARTITIONS`, `UNRELEASED_PARTITIONS` or `STABLE`.
    pub state: &'static str,
}

/// Reconciles `current` towards `target`; `held_by_other` tells whether another member still
/// owns a partition.
pub fn reconcile(
    current: &[TopicPartition],
    target: &[TopicPartition],
    held_by_other: impl Fn(&TopicPartition) -> bool,
) -> Reconciliation {
    let cur: BTreeSet<&TopicPartition> = current.iter().collect();
    let tgt: BTreeSet<&TopicPartition> = target.iter().collect();
    let assigned: Vec<TopicPartition> = cur.intersection(&tgt).map(|&t| t.clone()).collect();
    let pending_revocation: Vec<TopicPartition> =
        cur.difference(&tgt).map(|&t| t.clone()).collect();
    let (unreleased, free): (Vec<TopicPartition>, Vec<TopicPartition>) = tgt
        .difference(&cur)
        .map(|&t| t.clone())
        .partition(|t| held_by_other(t));
    if !pending_revocation.is_empty() {
        Reconciliation {
            assigned,
            pending_revocation,
            newly_assigned: Vec::new(),
            unreleased: free.into_iter().chain(unreleased).collect(),
            state: "UNREVOKED_PARTITIONS",
        }
    } else {
        let state = if unreleased.is_empty() {
            "STABLE"
        } else {
            "UNRELEASED_PARTITIONS"
        };
        Reconciliation {
            assigned,
            pending_revocation,
            newly_assigned: free,
            unreleased,
            state,
        }
    }
}
