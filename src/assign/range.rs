//! `RangeAssignor` (client side), with KIP-881 rack awareness.
//!
//! Per topic, the subscribers sorted by `MemberInfo` order each take a contiguous range; the
//! first `P % C` take one more. With racks, a pre-pass first hands out rack-aligned partitions
//! (co-partitioned topics together) within the same per-topic quotas.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::java;
use super::{member_info_cmp, Assignment, Member, TopicMeta};
use crate::common::TopicPartition;

struct TopicState<'a> {
    topic: &'a str,
    /// Subscribers in `MemberInfo` order, with their non-empty rack.
    consumers: Vec<(usize, Option<&'a str>)>,
    needs_rack_aware: bool,
    /// Replica racks per partition; empty when no subscriber has a rack.
    partition_racks: Vec<HashSet<&'a str>>,
    unassigned: BTreeSet<i32>,
    num_assigned: HashMap<usize, i32>,
    per_consumer: i32,
    remaining_extra: i32,
}

impl TopicState<'_> {
    fn racks_match(&self, consumer: usize, p: i32) -> bool {
        let rack = self
            .consumers
            .iter()
            .find(|(c, _)| *c == consumer)
            .and_then(|(_, r)| *r);
        match rack {
            None => true,
            Some(r) => usize::try_from(p)
                .ok()
                .and_then(|i| self.partition_racks.get(i))
                .is_some_and(|set| set.contains(r)),
        }
    }

    fn max_assignable(&self, consumer: usize) -> i32 {
        let n = self.num_assigned.get(&consumer).copied().unwrap_or(0);
        (self.per_consumer + i32::from(self.remaining_extra > 0) - n).max(0)
    }

    fn on_assigned(&mut self, consumer: usize, parts: &[i32]) {
        let n = self.num_assigned.entry(consumer).or_insert(0);
        *n += parts.len() as i32;
        if *n > self.per_consumer {
            self.remaining_extra -= 1;
        }
        for p in parts {
            self.unassigned.remove(p);
        }
    }
}

/// Kafka's `RangeAssignor.assignPartitions`. `members` is the leader's subscription map in
/// iteration order; `topics` the metadata of (at least) the subscribed topics.
pub fn assign(topics: &[TopicMeta], members: &[Member], prefer_rack_aware: bool) -> Assignment {
    let mut out: Vec<Vec<TopicPartition>> = vec![Vec::new(); members.len()];
    let consumer_racks: Vec<Option<&str>> = members
        .iter()
        .map(|m| m.subscription.rack.as_deref().filter(|r| !r.is_empty()))
        .collect();

    // partitionsPerTopic is a HashMap keyed by topic name: its order only affects the order of
    // each member's list, which we reproduce anyway.
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    let mut states: Vec<TopicState> = Vec::new();
    for i in java::string_map_order(&names) {
        let Some(t) = topics.get(i) else { continue };
        if t.partitions <= 0 {
            continue;
        }
        let mut subs: Vec<usize> = (0..members.len())
            .filter(|&m| {
                members
                    .get(m)
                    .is_some_and(|mm| mm.subscription.topics.contains(&t.name))
            })
            .collect();
        subs.sort_by(|&a, &b| {
            let (ma, mb) = (&members[a], &members[b]);
            member_info_cmp(
                &ma.id,
                ma.subscription.instance_id.as_deref(),
                &mb.id,
                mb.subscription.instance_id.as_deref(),
            )
        });
        let consumers: Vec<(usize, Option<&str>)> = subs
            .iter()
            .map(|&c| (c, consumer_racks.get(c).copied().flatten()))
            .collect();
        let all_consumer_racks: HashSet<&str> = consumers.iter().filter_map(|(_, r)| *r).collect();
        let mut all_partition_racks: HashSet<&str> = HashSet::new();
        let mut partition_racks: Vec<HashSet<&str>> = Vec::new();
        if !all_consumer_racks.is_empty() {
            for p in 0..t.partitions {
                let set: HashSet<&str> = t
                    .racks
                    .as_ref()
                    .and_then(|r| r.get(p as usize))
                    .map(|v| v.iter().map(String::as_str).collect())
                    .unwrap_or_default();
                all_partition_racks.extend(set.iter().copied());
                partition_racks.push(set);
            }
        }
        let needs_rack_aware = use_rack_aware(
            &all_consumer_racks,
            &all_partition_racks,
            &partition_racks,
            prefer_rack_aware,
        );
        let n = consumers.len() as i32;
        states.push(TopicState {
            topic: &t.name,
            num_assigned: consumers.iter().map(|(c, _)| (*c, 0)).collect(),
            per_consumer: if n == 0 { 0 } else { t.partitions / n },
            remaining_extra: if n == 0 { 0 } else { t.partitions % n },
            consumers,
            needs_rack_aware,
            partition_racks,
            unassigned: (0..t.partitions).collect(),
        });
    }

    let use_rack = states.iter().any(|s| s.needs_rack_aware);
    if use_rack {
        assign_with_rack_matching(&mut states, &mut out);
    }
    for s in &mut states {
        assign_ranges(s, false, &mut out);
    }
    if use_rack {
        for list in &mut out {
            list.sort();
        }
    }
    members
        .iter()
        .zip(out)
        .map(|(m, list)| (m.id.clone(), list))
        .collect()
}

/// `AbstractPartitionAssignor.useRackAwareAssignment`.
pub(crate) fn use_rack_aware(
    consumer_racks: &HashSet<&str>,
    partition_racks: &HashSet<&str>,
    per_partition: &[HashSet<&str>],
    prefer: bool,
) -> bool {
    if consumer_racks.is_empty() || consumer_racks.is_disjoint(partition_racks) {
        false
    } else if prefer {
        true
    } else {
        !per_partition.iter().all(|s| s == partition_racks)
    }
}

fn assign_ranges(state: &mut TopicState, rack_match: bool, out: &mut [Vec<TopicPartition>]) {
    let consumers: Vec<usize> = state.consumers.iter().map(|(c, _)| *c).collect();
    for c in consumers {
        if state.unassigned.is_empty() {
            break;
        }
        let limit = state.max_assignable(c) as usize;
        let parts: Vec<i32> = state
            .unassigned
            .iter()
            .copied()
            .filter(|&p| !rack_match || state.racks_match(c, p))
            .take(limit)
            .collect();
        if parts.is_empty() {
            continue;
        }
        give(state, c, &parts, out);
    }
}

fn give(state: &mut TopicState, c: usize, parts: &[i32], out: &mut [Vec<TopicPartition>]) {
    if let Some(list) = out.get_mut(c) {
        list.extend(parts.iter().map(|&p| TopicPartition::new(state.topic, p)));
    }
    state.on_assigned(c, parts);
}

/// (subscribers with racks, partition count seen by the rack logic, topic states).
type RackGroup<'a> = (Vec<(usize, Option<&'a str>)>, usize, Vec<usize>);

fn assign_with_rack_matching(states: &mut [TopicState], out: &mut [Vec<TopicPartition>]) {
    // Group by (subscribers with racks), then by the partition count seen by the rack logic.
    let mut groups: Vec<RackGroup> = Vec::new();
    for (i, s) in states.iter().enumerate() {
        let key_consumers: Vec<(usize, Option<&str>)> = s.consumers.clone();
        let np = s.partition_racks.len();
        if let Some(g) = groups
            .iter_mut()
            .find(|(c, n, _)| *c == key_consumers && *n == np)
        {
            g.2.push(i);
        } else {
            groups.push((key_consumers, np, vec![i]));
        }
    }
    for (consumers, num_partitions, idx) in groups {
        if idx.len() > 1 {
            co_partitioned(states, &consumers, num_partitions, &idx, out);
        } else if let Some(&i) = idx.first() {
            if let Some(s) = states.get_mut(i) {
                if s.needs_rack_aware {
                    assign_ranges(s, true, out);
                }
            }
        }
    }
}

fn co_partitioned(
    states: &mut [TopicState],
    consumers: &[(usize, Option<&str>)],
    num_partitions: usize,
    idx: &[usize],
    out: &mut [Vec<TopicPartition>],
) {
    let mut remaining: Vec<usize> = consumers.iter().map(|(c, _)| *c).collect();
    for p in 0..num_partitions as i32 {
        let found = remaining.iter().copied().find(|&c| {
            idx.iter().all(|&i| {
                states
                    .get(i)
                    .is_some_and(|t| t.racks_match(c, p) && t.max_assignable(c) > 0)
            })
        });
        if let Some(c) = found {
            for &i in idx {
                if let Some(t) = states.get_mut(i) {
                    give(t, c, &[p], out);
                }
            }
            let done = idx
                .iter()
                .all(|&i| states.get(i).is_none_or(|t| t.max_assignable(c) <= 0));
            if done {
                remaining.retain(|&x| x != c);
                if remaining.is_empty() {
                    break;
                }
            }
        }
    }
}
