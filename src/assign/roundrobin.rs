//! `RoundRobinAssignor`: every partition of every subscribed topic (topics by name, partitions
//! ascending) goes to the next member, in `MemberInfo` order, that subscribes to its topic.

use std::collections::{BTreeSet, HashMap};

use super::{member_info_cmp, Assignment, Member, TopicMeta};
use crate::common::TopicPartition;

/// Kafka's `RoundRobinAssignor.assign`. Racks and owned partitions are ignored.
pub fn assign(topics: &[TopicMeta], members: &[Member]) -> Assignment {
    let mut out: Assignment = members.iter().map(|m| (m.id.clone(), Vec::new())).collect();
    if members.is_empty() {
        return out;
    }
    let mut order: Vec<&Member> = members.iter().collect();
    order.sort_by(|a, b| {
        member_info_cmp(
            &a.id,
            a.subscription.instance_id.as_deref(),
            &b.id,
            b.subscription.instance_id.as_deref(),
        )
    });
    let counts: HashMap<&str, i32> = topics
        .iter()
        .map(|t| (t.name.as_str(), t.partitions))
        .collect();
    let subscribed: BTreeSet<&str> = members
        .iter()
        .flat_map(|m| m.subscription.topics.iter().map(String::as_str))
        .collect();
    let mut head = 0usize;
    let n = order.len();
    for topic in subscribed {
        let Some(&count) = counts.get(topic) else {
            continue;
        };
        for p in 0..count {
            // Some member subscribes to `topic` (it came from a subscription), so this ends.
            while !order
                .get(head % n)
                .is_some_and(|m| m.subscription.topics.iter().any(|t| t == topic))
            {
                head += 1;
            }
            if let Some(m) = order.get(head % n) {
                if let Some(list) = out.get_mut(&m.id) {
                    list.push(TopicPartition::new(topic, p));
                }
            }
            head += 1;
        }
    }
    out
}
