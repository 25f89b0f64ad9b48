//! `UniformHeterogeneousAssignmentBuilder` (Kafka 4.0 rewrite, spec §5.3): keep every owned
//! partition of a still-subscribed topic, deal unassigned partitions to the least loaded
//! subscribers topic by topic, then move partitions from the most to the least loaded
//! subscribers of each topic until no topic can improve (at most 16 passes).

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

use super::{AssignError, ServerAssignment, ServerTopic, Spec};

const MAX_ITERATION_COUNT: usize = 16;

struct Builder<'a> {
    /// Topics in the builder, with their subscribers (member indices, ascending).
    topics: Vec<(&'a ServerTopic, Vec<usize>)>,
    sizes: Vec<i64>,
    /// Per topic, the owner of each partition (member index) or `None`.
    owners: Vec<Vec<Option<usize>>>,
}

/// `MemberAssignmentBalancer`: walks the least-loaded range upward and the most-loaded range
/// downward of one topic's subscribers.
struct Balancer {
    sorted: Vec<usize>,
    least_end: usize,
    least_count: i64,
    next_least: usize,
    most_start: usize,
    most_end: usize,
    most_count: i64,
    next_most: isize,
}

impl Balancer {
    fn new() -> Self {
        Balancer {
            sorted: Vec::new(),
            least_end: 0,
            least_count: -1,
            next_least: 0,
            most_start: 0,
            most_end: 0,
            most_count: 1,
            next_most: -1,
        }
    }

    fn size(sizes: &[i64], m: usize) -> i64 {
        sizes.get(m).copied().unwrap_or(0)
    }

    fn at(&self, i: usize) -> usize {
        self.sorted.get(i).copied().unwrap_or(0)
    }

    fn initialize(&mut self, sizes: &[i64], members: &[usize]) -> i64 {
        self.sorted.clear();
        self.sorted.extend_from_slice(members);
        self.sorted.sort_by(|&a, &b| {
            Self::size(sizes, a)
                .cmp(&Self::size(sizes, b))
                .then(a.cmp(&b))
        });
        let first = self.at(0);
        let last = self.at(self.sorted.len().saturating_sub(1));
        self.least_end = 0;
        self.least_count = Self::size(sizes, first) - 1;
        self.next_least = 0;
        self.most_start = self.sorted.len();
        self.most_end = self.sorted.len();
        self.most_count = Self::size(sizes, last) + 1;
        self.next_most = self.sorted.len() as isize - 1;
        Self::size(sizes, last) - Self::size(sizes, first)
    }

    fn next_least_loaded(&mut self, sizes: &[i64]) -> usize {
        if self.next_least >= self.least_end {
            self.least_count += 1;
            while self.least_end < self.sorted.len()
                && Self::size(sizes, self.at(self.least_end)) == self.least_count
            {
                self.least_end += 1;
            }
            self.next_least = 0;
        }
        let m = self.at(self.next_least);
        self.next_least += 1;
        m
    }

    fn next_most_loaded(&mut self, sizes: &[i64]) -> Option<usize> {
        if self.next_most < self.most_start as isize {
            if self.most_end <= self.most_start && self.most_start > 0 {
                self.most_count = Self::size(sizes, self.at(self.most_start - 1));
            } else {
                self.most_count -= 1;
            }
            while self.most_start > 0
                && Self::size(sizes, self.at(self.most_start - 1)) == self.most_count
            {
                self.most_start -= 1;
            }
            self.next_most = self.most_end as isize - 1;
        }
        if self.next_most < 0 {
            return None;
        }
        let m = self.at(self.next_most as usize);
        self.next_most -= 1;
        Some(m)
    }

    fn exclude_most_loaded(&mut self) {
        let i = (self.next_most + 1) as usize;
        let j = self.most_end.saturating_sub(1);
        if i < self.sorted.len() && j < self.sorted.len() {
            self.sorted.swap(i, j);
        }
        self.most_end = self.most_end.saturating_sub(1);
    }

    fn is_balanced(&self) -> bool {
        self.most_count - self.least_count <= 1
    }
}

impl Builder<'_> {
    fn topic_cmp(&self, a: usize, b: usize) -> Ordering {
        let (ta, sa) = &self.topics[a];
        let (tb, sb) = &self.topics[b];
        let ra = f64::from(ta.partitions) / sa.len() as f64;
        let rb = f64::from(tb.partitions) / sb.len() as f64;
        rb.total_cmp(&ra)
            .then(sa.len().cmp(&sb.len()))
            .then(ta.id.java_cmp(&tb.id))
    }

    fn sorted_topics(&self, which: &[usize]) -> Vec<usize> {
        let mut v = which.to_vec();
        v.sort_by(|&a, &b| self.topic_cmp(a, b));
        v
    }

    fn assign_partition(&mut self, t: usize, p: usize, m: usize) {
        if let Some(owner) = self.owners.get_mut(t).and_then(|o| o.get_mut(p)) {
            if let Some(old) = owner.take() {
                if let Some(s) = self.sizes.get_mut(old) {
                    *s -= 1;
                }
            }
            *owner = Some(m);
            if let Some(s) = self.sizes.get_mut(m) {
                *s += 1;
            }
        }
    }

    fn balance_topic(&mut self, t: usize, b: &mut Balancer) -> usize {
        let mut moved = 0;
        let subscribers = self.topics[t].1.clone();
        if b.initialize(&self.sizes, &subscribers) <= 1 {
            return 0;
        }
        let owners = self.owners[t].clone();
        let key = |p: usize| owners.get(p).copied().flatten().map_or(-1, |o| o as i64);
        let mut partitions: Vec<usize> = (0..owners.len()).collect();
        partitions.sort_by_key(|&p| (key(p), p));
        let mut start: HashMap<i64, usize> = HashMap::new();
        let mut end: HashMap<i64, usize> = HashMap::new();
        for (i, &p) in partitions.iter().enumerate() {
            start.entry(key(p)).or_insert(i);
            end.insert(key(p), i + 1);
        }
        while !b.is_balanced() {
            let mut most = None;
            while let Some(m) = b.next_most_loaded(&self.sizes) {
                let k = m as i64;
                let has = match (end.get(&k), start.get(&k)) {
                    (Some(&e), Some(&s)) => e > s,
                    _ => false,
                };
                if !has {
                    b.exclude_most_loaded();
                    continue;
                }
                most = Some(m);
                break;
            }
            let Some(m) = most else { break };
            let k = m as i64;
            let e = end.get(&k).copied().unwrap_or(0);
            let partition = partitions.get(e.saturating_sub(1)).copied().unwrap_or(0);
            end.insert(k, e.saturating_sub(1));
            let least = b.next_least_loaded(&self.sizes);
            if b.is_balanced() {
                break;
            }
            self.assign_partition(t, partition, least);
            moved += 1;
        }
        moved
    }

    fn balance_topics(&mut self, which: &[usize]) {
        let sorted = self.sorted_topics(which);
        let mut last: Option<usize> = None;
        let mut b = Balancer::new();
        for _ in 0..MAX_ITERATION_COUNT {
            for (i, &t) in sorted.iter().enumerate() {
                if last == Some(i) {
                    return;
                }
                let moved = self.balance_topic(t, &mut b);
                if moved > 0 || last.is_none() {
                    last = Some(i);
                }
            }
        }
    }
}

pub(crate) fn build(spec: &Spec) -> Result<ServerAssignment, AssignError> {
    let members = spec.members;
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut topics: Vec<(&ServerTopic, Vec<usize>)> = Vec::new();
    for (m, member) in members.iter().enumerate() {
        let mut seen = BTreeSet::new();
        for name in &member.topics {
            if !seen.insert(name.as_str()) {
                continue;
            }
            let t = spec.topic(name)?;
            let i = *index.entry(t.name.as_str()).or_insert_with(|| {
                topics.push((t, Vec::new()));
                topics.len() - 1
            });
            if let Some(entry) = topics.get_mut(i) {
                entry.1.push(m);
            }
        }
    }
    let mut out: ServerAssignment = members.iter().map(|m| (m.id.clone(), Vec::new())).collect();
    if topics.is_empty() {
        return Ok(out);
    }
    let owners = topics
        .iter()
        .map(|(t, _)| vec![None; t.partitions.max(0) as usize])
        .collect();
    let mut b = Builder {
        topics,
        sizes: vec![0; members.len()],
        owners,
    };

    // maybeRevokePartitions: keep owned partitions of still-subscribed topics.
    for (m, member) in members.iter().enumerate() {
        for (topic, parts) in &member.assignment {
            if !member.topics.contains(topic) {
                continue;
            }
            let Some(&t) = index.get(topic.as_str()) else {
                continue;
            };
            if let Some(s) = b.sizes.get_mut(m) {
                *s += parts.len() as i64;
            }
            for &p in parts {
                if let Some(o) = b
                    .owners
                    .get_mut(t)
                    .and_then(|o| o.get_mut(p.max(0) as usize))
                {
                    *o = Some(m);
                }
            }
        }
    }

    // assignRemainingPartitions.
    let with_unassigned: Vec<usize> = (0..b.topics.len())
        .filter(|&t| b.owners[t].iter().any(Option::is_none))
        .collect();
    let mut balancer = Balancer::new();
    for t in b.sorted_topics(&with_unassigned) {
        let subscribers = b.topics[t].1.clone();
        balancer.initialize(&b.sizes, &subscribers);
        let free: Vec<usize> = (0..b.owners[t].len())
            .filter(|&p| b.owners[t][p].is_none())
            .collect();
        for p in free {
            let m = balancer.next_least_loaded(&b.sizes);
            b.assign_partition(t, p, m);
        }
    }

    // balance: topics with at least two subscribers.
    let movable: Vec<usize> = (0..b.topics.len())
        .filter(|&t| b.topics[t].1.len() >= 2)
        .collect();
    if !movable.is_empty() {
        b.balance_topics(&movable);
    }

    for (t, (topic, _)) in b.topics.iter().enumerate() {
        for (p, owner) in b.owners[t].iter().enumerate() {
            if let Some(m) = owner.and_then(|m| members.get(m)) {
                if let Some(list) = out.get_mut(&m.id) {
                    list.push(crate::common::TopicPartition::new(
                        topic.name.clone(),
                        p as i32,
                    ));
                }
            }
        }
    }
    for list in out.values_mut() {
        list.sort();
    }
    Ok(out)
}
