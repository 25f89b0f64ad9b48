//! The properties Kafka's assignor tests check (spec §7): validity, balance, stickiness.

use std::collections::{HashMap, HashSet};

use super::{Assignment, Member, TopicMeta};
use crate::common::TopicPartition;

/// An assignment that breaks one of the properties Kafka's assignor tests check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// A list for a member the group does not have.
    #[error("{member} is not a member")]
    NotAMember {
        /// The member id.
        member: String,
    },
    /// A partition of a topic its member does not subscribe to.
    #[error("{member} got {partition} but does not subscribe to {}", partition.topic)]
    NotSubscribed {
        /// The member id.
        member: String,
        /// The partition.
        partition: TopicPartition,
    },
    /// A partition in two members' lists.
    #[error("{partition} is assigned to both {first} and {second}")]
    AssignedTwice {
        /// The partition.
        partition: TopicPartition,
        /// The member listed first (by id).
        first: String,
        /// The other member.
        second: String,
    },
    /// A partition of a subscribed topic that nobody got.
    #[error("{partition} is not assigned")]
    Unassigned {
        /// The partition.
        partition: TopicPartition,
    },
    /// Sizes more than one apart although the larger member holds a partition the smaller
    /// could take.
    #[error("{smaller} has {smaller_count} partitions and {larger} has {larger_count}, yet {larger} holds {partition} which {smaller} could take")]
    Unbalanced {
        /// The member with fewer partitions.
        smaller: String,
        /// Its partition count.
        smaller_count: usize,
        /// The member with more.
        larger: String,
        /// Its partition count.
        larger_count: usize,
        /// A partition of the larger that the smaller subscribes to.
        partition: TopicPartition,
    },
}

/// Every partition of a subscribed, existing topic belongs to exactly one member, and only to a
/// subscriber of its topic.
pub fn check_valid(
    assignment: &Assignment,
    topics: &[TopicMeta],
    members: &[Member],
) -> Result<(), Violation> {
    let subs: HashMap<&str, HashSet<&str>> = members
        .iter()
        .map(|m| {
            (
                m.id.as_str(),
                m.subscription.topics.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    let mut owner: HashMap<&TopicPartition, &str> = HashMap::new();
    for (m, list) in assignment {
        let Some(s) = subs.get(m.as_str()) else {
            return Err(Violation::NotAMember { member: m.clone() });
        };
        for tp in list {
            if !s.contains(&*tp.topic) {
                return Err(Violation::NotSubscribed {
                    member: m.clone(),
                    partition: tp.clone(),
                });
            }
            if let Some(o) = owner.insert(tp, m) {
                return Err(Violation::AssignedTwice {
                    partition: tp.clone(),
                    first: o.to_string(),
                    second: m.clone(),
                });
            }
        }
    }
    for t in topics {
        let subscribed = members
            .iter()
            .any(|m| m.subscription.topics.contains(&t.name));
        if !subscribed {
            continue;
        }
        for p in 0..t.partitions {
            let tp = TopicPartition::new(t.name.as_str(), p);
            if !owner.contains_key(&tp) {
                return Err(Violation::Unassigned { partition: tp });
            }
        }
    }
    Ok(())
}

/// Kafka's `verifyValidityAndBalance` balance rule: for every pair of members whose sizes differ
/// by more than one, the larger holds no partition of a topic the smaller subscribes to.
pub fn check_balanced(assignment: &Assignment, members: &[Member]) -> Result<(), Violation> {
    let subs: HashMap<&str, &[String]> = members
        .iter()
        .map(|m| (m.id.as_str(), &m.subscription.topics[..]))
        .collect();
    for (a, la) in assignment {
        for (b, lb) in assignment {
            if la.len() + 1 < lb.len() {
                let small = subs.get(a.as_str()).copied();
                if let Some(tp) = lb
                    .iter()
                    .find(|tp| small.is_some_and(|s| s.iter().any(|t| **t == *tp.topic)))
                {
                    return Err(Violation::Unbalanced {
                        smaller: a.clone(),
                        smaller_count: la.len(),
                        larger: b.clone(),
                        larger_count: lb.len(),
                        partition: tp.clone(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// max − min ≤ 1.
pub fn fully_balanced(assignment: &Assignment) -> bool {
    let sizes: Vec<usize> = assignment.values().map(Vec::len).collect();
    match (sizes.iter().min(), sizes.iter().max()) {
        (Some(min), Some(max)) => max - min <= 1,
        _ => true,
    }
}
