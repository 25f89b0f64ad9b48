//! The properties Kafka's assignor tests check (spec §7): validity, balance, stickiness.

use std::collections::{HashMap, HashSet};

use super::{Assignment, Member, TopicMeta, TopicPartition};

/// Every partition of a subscribed, existing topic belongs to exactly one member, and only to a
/// subscriber of its topic.
pub fn check_valid(
    assignment: &Assignment,
    topics: &[TopicMeta],
    members: &[Member],
) -> Result<(), String> {
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
            return Err(format!("{m} is not a member"));
        };
        for tp in list {
            if !s.contains(&*tp.topic) {
                return Err(format!(
                    "{m} got {tp} but does not subscribe to {}",
                    tp.topic
                ));
            }
            if let Some(o) = owner.insert(tp, m) {
                return Err(format!("{tp} is assigned to both {o} and {m}"));
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
            let tp = TopicPartition::new(t.name.clone(), p);
            if !owner.contains_key(&tp) {
                return Err(format!("{tp} is not assigned"));
            }
        }
    }
    Ok(())
}

/// Kafka's `verifyValidityAndBalance` balance rule: for every pair of members whose sizes differ
/// by more than one, the larger holds no partition of a topic the smaller subscribes to.
pub fn check_balanced(assignment: &Assignment, members: &[Member]) -> Result<(), String> {
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
                    return Err(format!(
                        "{a} has {} partitions and {b} has {}, yet {b} holds {tp} which {a} could take",
                        la.len(),
                        lb.len()
                    ));
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
