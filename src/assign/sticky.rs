//! The sticky family: `StickyAssignor` (eager) and `CooperativeStickyAssignor`, both built on
//! Kafka's `AbstractStickyAssignor` (spec §4).
//!
//! Two algorithms share the work. When every member subscribes to the same topics the
//! *constrained* path keeps owned partitions up to the quotas and deals the rest round-robin.
//! Otherwise the *general* path keeps what it can, hands unassigned partitions to the least
//! loaded members, then moves partitions until the assignment is balanced, preferring to give a
//! partition back to its previous owner and never moving one back and forth.
//!
//! Internally topics are numbered in name order and partitions get a global index, so the
//! million-partition cases of Kafka's tests run in a fraction of a second.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::fast::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::java::{self, HashSetEmu};
use super::{AssignError, Assignment, Member, Subscription, TopicMeta, UserData};
use crate::common::TopicPartition;

/// Kafka's `DEFAULT_GENERATION`.
pub const DEFAULT_GENERATION: i32 = -1;

/// One sticky assignor instance. Like Kafka's object it remembers `maxGeneration` across calls.
#[derive(Debug, Clone)]
pub struct StickyAssignor {
    /// `CooperativeStickyAssignor` (true) or `StickyAssignor` (false).
    pub cooperative: bool,
    /// `AbstractStickyAssignor.maxGeneration`: never reset.
    pub max_generation: i32,
    /// The test-only `preferRackAwareLogic` knob.
    pub prefer_rack_aware: bool,
    /// `isSticky()` of the last general-path run (true after a constrained run).
    pub last_is_sticky: bool,
}

/// What one `assign` call returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StickyOutcome {
    /// The assignment (for the cooperative assignor, already without transferring partitions).
    pub assignment: Assignment,
    /// `partitionsTransferringOwnership` as the base class left it: `None` after the general
    /// path (the cooperative assignor then derives its own set from owned versus assigned).
    pub transferring: Option<BTreeMap<TopicPartition, String>>,
}

/// Owned partitions and generation as the assignor reads them (`memberData`).
struct MemberData<'a> {
    partitions: Cow<'a, [TopicPartition]>,
    generation: Option<i32>,
}

impl StickyAssignor {
    /// A fresh `StickyAssignor`.
    pub fn eager() -> Self {
        Self {
            cooperative: false,
            max_generation: DEFAULT_GENERATION,
            prefer_rack_aware: false,
            last_is_sticky: true,
        }
    }

    /// A fresh `CooperativeStickyAssignor`.
    pub fn cooperative() -> Self {
        Self {
            cooperative: true,
            ..Self::eager()
        }
    }

    fn member_data<'a>(&self, s: &'a Subscription) -> MemberData<'a> {
        if self.cooperative {
            if s.generation.is_some() {
                return MemberData {
                    partitions: Cow::Borrowed(&s.owned),
                    generation: s.generation,
                };
            }
            let generation = match &s.user_data {
                None => None,
                Some(UserData::Cooperative { generation }) => Some(*generation),
                // The int32 read from a sticky struct is its topic-array length.
                Some(UserData::Sticky { partitions, .. }) => {
                    let topics: HashSet<&str> = partitions.iter().map(|p| &*p.topic).collect();
                    Some(topics.len() as i32)
                }
                Some(UserData::Invalid) => Some(DEFAULT_GENERATION),
            };
            MemberData {
                partitions: Cow::Borrowed(&s.owned),
                generation,
            }
        } else {
            match &s.user_data {
                None => MemberData {
                    partitions: Cow::Borrowed(&[]),
                    generation: None,
                },
                Some(UserData::Sticky {
                    partitions,
                    generation,
                }) => MemberData {
                    partitions: Cow::Owned(serialized_order(partitions)),
                    generation: *generation,
                },
                Some(UserData::Cooperative { .. }) | Some(UserData::Invalid) => MemberData {
                    partitions: Cow::Borrowed(&[]),
                    generation: Some(DEFAULT_GENERATION),
                },
            }
        }
    }

    /// The assignment in compact form (what [`StickyAssignor::assign`] computes before it
    /// spells out member ids and topic names).
    pub fn assign_indexed(
        &mut self,
        topics: &[TopicMeta],
        members: &[Member],
    ) -> Result<IndexedOutcome, AssignError> {
        let ctx = Ctx::new(topics);
        let data: Vec<MemberData> = members
            .iter()
            .map(|m| self.member_data(&m.subscription))
            .collect();

        // allSubscriptionsEqual: validates owned partitions, updates maxGeneration.
        let mut equal = true;
        let mut first: HashSet<&str> = HashSet::default();
        let mut first_list: &[String] = &[];
        let mut owned: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
        let anything_owned = data.iter().any(|d| !d.partitions.is_empty());
        let mut previous_owner: Vec<u32> = if anything_owned {
            vec![NONE; ctx.total as usize]
        } else {
            Vec::new()
        };
        let mut multi: HashSet<u32> = HashSet::default();
        let mut lookup = Lookup::default();
        for (i, m) in members.iter().enumerate() {
            let topics = &m.subscription.topics;
            if first.is_empty() {
                first.extend(topics.iter().map(String::as_str));
                first_list = topics;
            } else if equal
                && !same_list(topics, first_list)
                && !(topics.len() == first.len()
                    && topics.iter().all(|t| first.contains(t.as_str())))
            {
                equal = false;
            }
            let md = &data[i];
            let gen = md.generation.unwrap_or(DEFAULT_GENERATION);
            self.max_generation = self.max_generation.max(gen);
            for tp in md.partitions.iter() {
                let Some(g) = lookup.global(&ctx, tp) else {
                    continue;
                };
                let Some(slot) = previous_owner.get_mut(g as usize) else {
                    continue;
                };
                if *slot == NONE {
                    owned[i].push(g);
                    *slot = i as u32;
                    continue;
                }
                let other = *slot as usize;
                let other_gen = members[other]
                    .subscription
                    .generation
                    .unwrap_or(DEFAULT_GENERATION);
                if gen == other_gen {
                    multi.insert(g);
                    remove_first(&mut owned[other], g);
                    *slot = i as u32;
                } else if gen > other_gen {
                    owned[i].push(g);
                    remove_first(&mut owned[other], g);
                    *slot = i as u32;
                }
            }
        }

        let racks = RackInfo::new(&ctx, topics, members, self.prefer_rack_aware);
        let (lists, transferring) = if equal {
            let mut b = Constrained::new(&ctx, &racks, members, owned, multi);
            b.build()?;
            self.last_is_sticky = true;
            (b.assignment, Some(b.transferring))
        } else {
            let mut b = General::new(&ctx, &racks, members, owned);
            b.build(self.max_generation, &data)?;
            self.last_is_sticky = b.movements.is_sticky();
            (b.current, None)
        };

        let mut lists = lists;
        if self.cooperative {
            let moving: Vec<(u32, usize)> = match &transferring {
                Some(map) => map.iter().map(|(&g, &c)| (g, c)).collect(),
                None => transferring_from_owned(&ctx, members, &lists),
            };
            for (g, c) in moving {
                if let Some(list) = lists.get_mut(c) {
                    remove_first(list, g);
                }
            }
        }
        Ok(IndexedOutcome {
            ctx,
            lists,
            transferring,
        })
    }

    /// `assignPartitions(partitionsPerTopic, subscriptions)`: `topics` is `partitionsPerTopic`
    /// (the subscribed topics that exist), `members` the subscription map in iteration order.
    pub fn assign(
        &mut self,
        topics: &[TopicMeta],
        members: &[Member],
    ) -> Result<StickyOutcome, AssignError> {
        Ok(self.assign_indexed(topics, members)?.into_outcome(members))
    }
}

/// An assignment in compact form: per member (in input order) a list of partition indices.
/// [`IndexedOutcome::into_outcome`] turns it into member ids and [`TopicPartition`]s.
pub struct IndexedOutcome {
    ctx: Ctx,
    lists: Vec<Vec<u32>>,
    transferring: Option<BTreeMap<u32, usize>>,
}

impl IndexedOutcome {
    /// The number of members.
    pub fn len(&self) -> usize {
        self.lists.len()
    }

    /// True when the group has no members.
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Member `i`'s partitions as (topic, partition), in Kafka's list order.
    pub fn partitions(&self, i: usize) -> impl Iterator<Item = (&str, i32)> + '_ {
        self.lists.get(i).into_iter().flatten().map(move |&g| {
            let t = self.ctx.topic_of(g);
            (
                self.ctx.names.get(t).map_or("", |n| &**n),
                self.ctx.partition_of(g),
            )
        })
    }

    /// Member `i`'s partition count.
    pub fn count(&self, i: usize) -> usize {
        self.lists.get(i).map_or(0, Vec::len)
    }

    /// The assignment keyed by member id, with [`TopicPartition`]s.
    pub fn into_outcome(self, members: &[Member]) -> StickyOutcome {
        let ctx = &self.ctx;
        let assignment = members
            .iter()
            .zip(self.lists)
            .map(|(m, list)| (m.id.clone(), list.into_iter().map(|g| ctx.tp(g)).collect()))
            .collect();
        let transferring = self.transferring.map(|map| {
            map.into_iter()
                .filter_map(|(g, c)| members.get(c).map(|m| (ctx.tp(g), m.id.clone())))
                .collect()
        });
        StickyOutcome {
            assignment,
            transferring,
        }
    }
}

/// The order in which `StickyAssignor` reads back its user data: the client serialized its
/// partitions grouped by topic through `CollectionUtils.groupPartitionsByTopic`, a `HashMap`,
/// so topics come back in that map's iteration order.
pub fn serialized_order(partitions: &[TopicPartition]) -> Vec<TopicPartition> {
    let mut topics: Vec<&str> = Vec::new();
    for tp in partitions {
        if !topics.contains(&&*tp.topic) {
            topics.push(&tp.topic);
        }
    }
    let mut out = Vec::with_capacity(partitions.len());
    for i in java::string_map_order(&topics) {
        if let Some(t) = topics.get(i) {
            out.extend(partitions.iter().filter(|tp| &*tp.topic == *t).cloned());
        }
    }
    out
}

/// `CooperativeStickyAssignor.computePartitionsTransferringOwnership`: partitions added to a
/// member that some member lost (compared with the raw `ownedPartitions`).
fn transferring_from_owned(ctx: &Ctx, members: &[Member], lists: &[Vec<u32>]) -> Vec<(u32, usize)> {
    let total = ctx.total as usize;
    let mut assigned_to = vec![NONE; total];
    for (c, list) in lists.iter().enumerate() {
        for &g in list {
            if let Some(slot) = assigned_to.get_mut(g as usize) {
                *slot = c as u32;
            }
        }
    }
    // `stamp[g] == c` while member c's owned partitions are being looked at.
    let mut stamp = vec![NONE; total];
    let mut revoked = vec![false; total];
    let mut added: Vec<(u32, usize)> = Vec::new();
    for (c, list) in lists.iter().enumerate() {
        let mut lookup = Lookup::default();
        for tp in members
            .get(c)
            .map_or(&[][..], |m| m.subscription.owned.as_slice())
        {
            let Some(g) = lookup.global(ctx, tp) else {
                continue;
            };
            let g = g as usize;
            stamp[g] = c as u32;
            if assigned_to[g] != c as u32 {
                revoked[g] = true;
            }
        }
        added.extend(
            list.iter()
                .filter(|&&g| stamp[g as usize] != c as u32)
                .map(|&g| (g, c)),
        );
    }
    added.retain(|&(g, _)| revoked[g as usize]);
    added
}

fn remove_first(list: &mut Vec<u32>, g: u32) -> bool {
    if let Some(pos) = list.iter().position(|&x| x == g) {
        list.remove(pos);
        true
    } else {
        false
    }
}

/// Two topic lists with the same names in the same order. Topic names are short, and a group
/// of thousands of members subscribed to hundreds of topics compares a million of them, so this
/// avoids a `memcmp` call per name.
fn same_list(a: &[String], b: &[String]) -> bool {
    // Members usually share one list (`Subscription::topics` is an `Rc`).
    if std::ptr::eq(a, b) {
        return true;
    }
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (x, y) = (x.as_bytes(), y.as_bytes());
            if x.len() != y.len() {
                return false;
            }
            let (cx, cy) = (x.chunks_exact(8), y.chunks_exact(8));
            let tail = cx
                .remainder()
                .iter()
                .zip(cy.remainder())
                .all(|(p, q)| p == q);
            tail && cx.zip(cy).all(|(p, q)| {
                let mut u = [0u8; 8];
                let mut v = [0u8; 8];
                u.copy_from_slice(p);
                v.copy_from_slice(q);
                u64::from_ne_bytes(u) == u64::from_ne_bytes(v)
            })
        })
}

/// "No member" / "no partition" in the index arrays.
const NONE: u32 = u32::MAX;

/// Topic-name lookups with a one-entry cache: owned lists come grouped by topic.
#[derive(Default)]
struct Lookup<'a> {
    last: Option<(&'a str, u32)>,
}

impl<'a> Lookup<'a> {
    fn global(&mut self, ctx: &Ctx, tp: &'a TopicPartition) -> Option<u32> {
        let t = match self.last {
            Some((name, t)) if name == &*tp.topic => t,
            _ => {
                let t = *ctx.index.get(&*tp.topic)?;
                self.last = Some((&*tp.topic, t));
                t
            }
        };
        let n = *ctx.counts.get(t as usize)?;
        if tp.partition < 0 || tp.partition as u32 >= n {
            return None;
        }
        Some(ctx.offsets.get(t as usize)? + tp.partition as u32)
    }
}

/// Topics numbered in name order; a partition's global index is its topic's offset plus its id.
pub(crate) struct Ctx {
    names: Vec<std::sync::Arc<str>>,
    counts: Vec<u32>,
    offsets: Vec<u32>,
    hashes: Vec<i32>,
    index: HashMap<String, u32>,
    part_topic: Vec<u32>,
    total: u32,
}

impl Ctx {
    pub(crate) fn new(topics: &[TopicMeta]) -> Self {
        let mut sorted: Vec<&TopicMeta> = topics.iter().collect();
        sorted.sort_by(|a, b| java::compare_strings(&a.name, &b.name));
        sorted.dedup_by(|a, b| a.name == b.name);
        let mut ctx = Ctx {
            names: Vec::new(),
            counts: Vec::new(),
            offsets: Vec::new(),
            hashes: Vec::new(),
            index: HashMap::default(),
            part_topic: Vec::new(),
            total: 0,
        };
        for (i, t) in sorted.iter().enumerate() {
            let n = t.partitions.max(0) as u32;
            ctx.index.insert(t.name.clone(), i as u32);
            ctx.names.push(std::sync::Arc::from(t.name.as_str()));
            ctx.hashes.push(java::string_hash(&t.name));
            ctx.offsets.push(ctx.total);
            ctx.counts.push(n);
            ctx.part_topic
                .extend(std::iter::repeat_n(i as u32, n as usize));
            ctx.total += n;
        }
        ctx
    }

    fn topics(&self) -> usize {
        self.names.len()
    }

    fn topic_of(&self, g: u32) -> usize {
        self.part_topic.get(g as usize).copied().unwrap_or(0) as usize
    }

    fn partition_of(&self, g: u32) -> i32 {
        let t = self.topic_of(g);
        (g - self.offsets.get(t).copied().unwrap_or(0)) as i32
    }

    fn tp(&self, g: u32) -> TopicPartition {
        let t = self.topic_of(g);
        TopicPartition::new(
            self.names
                .get(t)
                .cloned()
                .unwrap_or_else(|| std::sync::Arc::from("")),
            self.partition_of(g),
        )
    }

    fn java_hash(&self, g: u32) -> i32 {
        let t = self.topic_of(g);
        java::topic_partition_hash(
            self.hashes.get(t).copied().unwrap_or(0),
            self.partition_of(g),
        )
    }

    fn topic_partitions(&self, t: usize) -> std::ops::Range<u32> {
        let start = self.offsets.get(t).copied().unwrap_or(0);
        start..start + self.counts.get(t).copied().unwrap_or(0)
    }
}

/// `AbstractStickyAssignor.RackInfo`.
struct RackInfo {
    /// Member racks, only when rack-aware assignment is on.
    consumer_rack: Vec<Option<u32>>,
    aware: bool,
    /// Replica racks per partition (rack ids), only when rack-aware.
    partition_racks: Vec<Vec<u32>>,
    /// Σ over a partition's racks of the members on that rack (when any member has a rack).
    consumers_by_partition: Option<Vec<u32>>,
}

impl RackInfo {
    fn new(ctx: &Ctx, topics: &[TopicMeta], members: &[Member], prefer: bool) -> Self {
        let mut rack_ids: HashMap<&str, u32> = HashMap::default();
        let mut member_rack: Vec<Option<u32>> = Vec::with_capacity(members.len());
        let mut consumers_on_rack: HashMap<u32, u32> = HashMap::default();
        for m in members {
            let r = m.subscription.rack.as_deref().filter(|r| !r.is_empty());
            let id = r.map(|r| {
                let n = rack_ids.len() as u32;
                *rack_ids.entry(r).or_insert(n)
            });
            if let Some(id) = id {
                *consumers_on_rack.entry(id).or_insert(0) += 1;
            }
            member_rack.push(id);
        }
        if consumers_on_rack.is_empty() {
            return RackInfo {
                consumer_rack: vec![None; members.len()],
                aware: false,
                partition_racks: Vec::new(),
                consumers_by_partition: None,
            };
        }
        let by_name: HashMap<&str, &TopicMeta> =
            topics.iter().map(|t| (t.name.as_str(), t)).collect();
        let mut next = rack_ids.len() as u32;
        let mut partition_racks: Vec<Vec<u32>> = Vec::with_capacity(ctx.total as usize);
        for t in 0..ctx.topics() {
            let meta = ctx.names.get(t).and_then(|n| by_name.get(&**n));
            for g in ctx.topic_partitions(t) {
                let p = ctx.partition_of(g) as usize;
                let mut set: Vec<u32> = Vec::new();
                if let Some(list) = meta.and_then(|m| m.racks.as_ref()).and_then(|r| r.get(p)) {
                    for r in list {
                        let id = *rack_ids.entry(r.as_str()).or_insert_with(|| {
                            next += 1;
                            next - 1
                        });
                        if !set.contains(&id) {
                            set.push(id);
                        }
                    }
                }
                partition_racks.push(set);
            }
        }
        let consumer_racks: HashSet<u32> = member_rack.iter().flatten().copied().collect();
        let all_partition_racks: HashSet<u32> = partition_racks.iter().flatten().copied().collect();
        let aware = if consumer_racks.is_disjoint(&all_partition_racks) {
            false
        } else if prefer {
            true
        } else {
            !partition_racks.iter().all(|s| {
                s.len() == all_partition_racks.len()
                    && s.iter().all(|r| all_partition_racks.contains(r))
            })
        };
        let consumers_by_partition = partition_racks
            .iter()
            .map(|s| {
                s.iter()
                    .map(|r| consumers_on_rack.get(r).copied().unwrap_or(0))
                    .sum()
            })
            .collect();
        RackInfo {
            consumer_rack: if aware {
                member_rack
            } else {
                vec![None; members.len()]
            },
            aware,
            partition_racks: if aware { partition_racks } else { Vec::new() },
            consumers_by_partition: Some(consumers_by_partition),
        }
    }

    fn mismatch(&self, c: usize, g: u32) -> bool {
        match self.consumer_rack.get(c).copied().flatten() {
            None => false,
            Some(r) => !self
                .partition_racks
                .get(g as usize)
                .is_some_and(|s| s.contains(&r)),
        }
    }

    fn racks_of(&self, g: u32) -> &[u32] {
        self.partition_racks
            .get(g as usize)
            .map_or(&[], |v| v.as_slice())
    }

    /// `nextRackConsumer`: the first index, rotating from `first`, whose member's rack holds `g`.
    fn next_rack_consumer(&self, g: u32, list: &[usize], first: usize) -> Option<usize> {
        let racks = self.racks_of(g);
        if racks.is_empty() || list.is_empty() {
            return None;
        }
        (0..list.len())
            .map(|i| (first + i) % list.len())
            .find(|&idx| {
                list.get(idx)
                    .and_then(|&c| self.consumer_rack.get(c).copied().flatten())
                    .is_some_and(|r| racks.contains(&r))
            })
    }
}

/// The constrained path (all subscriptions equal).
struct Constrained<'a> {
    ctx: &'a Ctx,
    racks: &'a RackInfo,
    members: &'a [Member],
    owned: Vec<Vec<u32>>,
    multi: HashSet<u32>,
    /// Partition → the member it may be revoked from (`NONE`: none).
    maybe_revoked: Vec<u32>,
    under: Vec<usize>,
    exactly_min: std::collections::VecDeque<usize>,
    min_quota: usize,
    max_quota: usize,
    expected_over: usize,
    current_over: usize,
    assignment: Vec<Vec<u32>>,
    transferring: BTreeMap<u32, usize>,
}

impl<'a> Constrained<'a> {
    fn new(
        ctx: &'a Ctx,
        racks: &'a RackInfo,
        members: &'a [Member],
        owned: Vec<Vec<u32>>,
        multi: HashSet<u32>,
    ) -> Self {
        let n = members.len().max(1);
        let total = ctx.total as usize;
        Constrained {
            ctx,
            racks,
            members,
            owned,
            multi,
            // Filled on demand: a first assignment revokes nothing.
            maybe_revoked: Vec::new(),
            under: Vec::new(),
            exactly_min: Default::default(),
            min_quota: total / n,
            max_quota: total.div_ceil(n),
            expected_over: total % n,
            current_over: 0,
            assignment: vec![Vec::new(); members.len()],
            transferring: BTreeMap::new(),
        }
    }

    fn mark_revoked(&mut self, g: u32, c: usize) {
        if self.maybe_revoked.is_empty() {
            self.maybe_revoked = vec![NONE; self.ctx.total as usize];
        }
        if let Some(slot) = self.maybe_revoked.get_mut(g as usize) {
            *slot = c as u32;
        }
    }

    fn name(&self, c: usize) -> &str {
        self.members.get(c).map_or("", |m| m.id.as_str())
    }

    fn build(&mut self) -> Result<(), AssignError> {
        let mut assigned = vec![false; self.ctx.total as usize];
        // consumerToOwnedPartitions is a fresh HashMap keyed by member id.
        let ids: Vec<&str> = self.members.iter().map(|m| m.id.as_str()).collect();
        for c in java::string_map_order(&ids) {
            let mut own: Vec<u32> = Vec::new();
            let owned = self
                .owned
                .get_mut(c)
                .map(std::mem::take)
                .unwrap_or_default();
            for g in owned {
                if self.racks.mismatch(c, g) {
                    self.mark_revoked(g, c);
                } else {
                    own.push(g);
                }
            }
            let ctx = self.ctx;
            own.sort_by(|&a, &b| {
                ctx.partition_of(a)
                    .cmp(&ctx.partition_of(b))
                    .then(ctx.topic_of(a).cmp(&ctx.topic_of(b)))
            });
            own.retain(|g| !self.multi.contains(g));
            let keep = if own.len() < self.min_quota {
                self.under.push(c);
                own.len()
            } else if own.len() >= self.max_quota && self.current_over < self.expected_over {
                self.current_over += 1;
                if self.current_over == self.expected_over {
                    self.exactly_min.clear();
                }
                self.max_quota
            } else {
                if self.current_over < self.expected_over {
                    self.exactly_min.push_back(c);
                }
                self.min_quota
            };
            for (k, &g) in own.iter().enumerate() {
                if k < keep {
                    if let Some(list) = self.assignment.get_mut(c) {
                        list.push(g);
                    }
                    if let Some(a) = assigned.get_mut(g as usize) {
                        *a = true;
                    }
                } else {
                    self.mark_revoked(g, c);
                }
            }
        }

        let mut unassigned: Vec<u32> = (0..self.ctx.total)
            .filter(|&g| !assigned.get(g as usize).copied().unwrap_or(true))
            .collect();
        let members = self.members;
        let by_id = |a: &usize, b: &usize| {
            java::compare_strings(
                members.get(*a).map_or("", |m| m.id.as_str()),
                members.get(*b).map_or("", |m| m.id.as_str()),
            )
        };
        self.under.sort_by(by_id);
        self.exactly_min.make_contiguous().sort_by(by_id);
        if let Some(counts) = &self.racks.consumers_by_partition {
            if !counts.is_empty() {
                unassigned.sort_by_key(|&g| counts.get(g as usize).copied().unwrap_or(0));
            }
        }
        if self.racks.aware {
            self.rack_aware_round_robin(&mut unassigned);
        }
        self.round_robin(&unassigned)?;
        self.verify_unfilled()
    }

    fn assign_new(&mut self, g: u32, c: usize) -> usize {
        let len = match self.assignment.get_mut(c) {
            Some(list) => {
                list.push(g);
                list.len()
            }
            None => 0,
        };
        let revoked_from_other = self
            .maybe_revoked
            .get(g as usize)
            .is_some_and(|&o| o != NONE && o != c as u32);
        if revoked_from_other || (!self.multi.is_empty() && self.multi.contains(&g)) {
            self.transferring.insert(g, c);
        }
        len
    }

    fn size(&self, c: usize) -> usize {
        self.assignment.get(c).map_or(0, Vec::len)
    }

    fn rack_aware_round_robin(&mut self, unassigned: &mut Vec<u32>) {
        let mut next_index = 0usize;
        let mut remaining = Vec::with_capacity(unassigned.len());
        for &g in unassigned.iter() {
            let mut consumer = None;
            if let Some(mut idx) = self.racks.next_rack_consumer(g, &self.under, next_index) {
                let c = self.under.get(idx).copied().unwrap_or(0);
                consumer = Some(c);
                let count = self.size(c) + 1;
                if count >= self.min_quota {
                    self.under.retain(|&x| x != c);
                    if count < self.max_quota && self.current_over < self.expected_over {
                        self.exactly_min.push_back(c);
                    }
                } else {
                    idx += 1;
                }
                next_index = if self.under.is_empty() {
                    0
                } else {
                    idx % self.under.len()
                };
            } else if !self.exactly_min.is_empty() {
                let list: Vec<usize> = self.exactly_min.iter().copied().collect();
                if let Some(first) = self.racks.next_rack_consumer(g, &list, 0) {
                    let c = list.get(first).copied().unwrap_or(0);
                    consumer = Some(c);
                    if self.size(c) + 1 == self.max_quota {
                        self.exactly_min.remove(first);
                        self.current_over += 1;
                        if self.current_over == self.expected_over {
                            self.exactly_min.clear();
                        }
                    }
                }
            }
            match consumer {
                Some(c) => {
                    self.assign_new(g, c);
                }
                None => remaining.push(g),
            }
        }
        *unassigned = remaining;
    }

    fn round_robin(&mut self, unassigned: &[u32]) -> Result<(), AssignError> {
        // A cursor over `under` that behaves like Java's LinkedList iterator.
        let mut cursor = 0usize;
        for &g in unassigned {
            let c;
            let mut from_iter = true;
            if cursor < self.under.len() {
                c = self.under.get(cursor).copied().unwrap_or(0);
                cursor += 1;
            } else if self.under.is_empty() && self.exactly_min.is_empty() {
                return Err(AssignError::IllegalState(
                    "No more unfilled consumers to be assigned.".into(),
                ));
            } else if self.under.is_empty() {
                c = self.exactly_min.pop_front().unwrap_or(0);
                from_iter = false;
            } else {
                cursor = 0;
                c = self.under.first().copied().unwrap_or(0);
                cursor += 1;
            }
            let count = self.assign_new(g, c);
            if count == self.min_quota {
                if from_iter && cursor > 0 {
                    self.under.remove(cursor - 1);
                    cursor -= 1;
                }
                self.exactly_min.push_back(c);
            } else if count == self.max_quota {
                self.current_over += 1;
            }
        }
        Ok(())
    }

    fn verify_unfilled(&self) -> Result<(), AssignError> {
        if self.under.is_empty() {
            return Ok(());
        }
        if self.current_over != self.expected_over {
            return Err(AssignError::IllegalState(
                "We haven't reached the expected number of members with more than the minQuota partitions, but no more partitions to be assigned".into(),
            ));
        }
        for &c in &self.under {
            if self.size(c) != self.min_quota {
                return Err(AssignError::IllegalState(format!(
                    "Consumer: [{}] doesn't reach minQuota partitions, and no more partitions to be assigned",
                    self.name(c)
                )));
            }
        }
        Ok(())
    }
}

/// `PartitionMovements`: per-topic moves as (source → destination) pairs.
#[derive(Default)]
pub(crate) struct Movements {
    moves: HashMap<u32, (usize, usize)>,
    by_pair: HashMap<(usize, usize, usize), HashSetEmu<u32>>,
    pairs_per_topic: HashMap<usize, usize>,
}

impl Movements {
    fn remove_record(&mut self, ctx: &Ctx, g: u32) -> Option<(usize, usize)> {
        let pair = self.moves.remove(&g)?;
        let t = ctx.topic_of(g);
        let key = (t, pair.0, pair.1);
        let now_empty = match self.by_pair.get_mut(&key) {
            Some(set) => {
                set.remove(&g);
                set.is_empty()
            }
            None => false,
        };
        if now_empty {
            self.by_pair.remove(&key);
            if let Some(n) = self.pairs_per_topic.get_mut(&t) {
                *n -= 1;
                if *n == 0 {
                    self.pairs_per_topic.remove(&t);
                }
            }
        }
        Some(pair)
    }

    fn add_record(&mut self, ctx: &Ctx, g: u32, pair: (usize, usize)) {
        self.moves.insert(g, pair);
        let t = ctx.topic_of(g);
        let key = (t, pair.0, pair.1);
        let set = self.by_pair.entry(key).or_insert_with(|| {
            *self.pairs_per_topic.entry(t).or_insert(0) += 1;
            HashSetEmu::new()
        });
        set.insert(g, ctx.java_hash(g));
    }

    fn move_partition(&mut self, ctx: &Ctx, g: u32, old: usize, new: usize) {
        if self.moves.contains_key(&g) {
            if let Some(existing) = self.remove_record(ctx, g) {
                if existing.0 != new {
                    self.add_record(ctx, g, (existing.0, new));
                }
            }
        } else {
            self.add_record(ctx, g, (old, new));
        }
    }

    fn actual_partition_to_move(&self, ctx: &Ctx, g: u32, old: usize, new: usize) -> u32 {
        let t = ctx.topic_of(g);
        if !self.pairs_per_topic.contains_key(&t) {
            return g;
        }
        let old = self.moves.get(&g).map_or(old, |p| p.0);
        match self.by_pair.get(&(t, new, old)) {
            Some(set) => set.first().unwrap_or(g),
            None => g,
        }
    }

    /// `isSticky()`: no topic has moves in both directions between two members.
    pub(crate) fn is_sticky(&self) -> bool {
        !self
            .by_pair
            .keys()
            .any(|&(t, a, b)| self.by_pair.contains_key(&(t, b, a)))
    }
}

/// Kafka's `sortedCurrentSubscriptions`: members ordered by (assignment size, member id).
///
/// Sizes change by one at a time and take few distinct values, so members sit in one bitset (over
/// their id rank) per size: insert, remove and "first member that subscribes to t" are cheap
/// where a balanced tree would cost a rebalancing per move.
struct SortedMembers {
    /// Rank → member index.
    by_rank: Vec<usize>,
    words: usize,
    buckets: BTreeMap<usize, Vec<u64>>,
}

impl SortedMembers {
    fn new(rank: Vec<usize>) -> Self {
        let mut by_rank = vec![0; rank.len()];
        for (m, &r) in rank.iter().enumerate() {
            if let Some(slot) = by_rank.get_mut(r) {
                *slot = m;
            }
        }
        SortedMembers {
            words: rank.len().div_ceil(64).max(1),
            by_rank,
            buckets: BTreeMap::new(),
        }
    }

    fn insert(&mut self, (size, rank, _): (usize, usize, usize)) {
        let words = self.words;
        let bits = self.buckets.entry(size).or_insert_with(|| vec![0; words]);
        if let Some(w) = bits.get_mut(rank / 64) {
            *w |= 1 << (rank % 64);
        }
    }

    fn remove(&mut self, &(size, rank, _): &(usize, usize, usize)) {
        let empty = match self.buckets.get_mut(&size) {
            Some(bits) => {
                if let Some(w) = bits.get_mut(rank / 64) {
                    *w &= !(1 << (rank % 64));
                }
                bits.iter().all(|&w| w == 0)
            }
            None => false,
        };
        if empty {
            self.buckets.remove(&size);
        }
    }

    fn key(&self, size: usize, rank: usize) -> (usize, usize, usize) {
        (size, rank, self.by_rank.get(rank).copied().unwrap_or(0))
    }

    fn first(&self) -> Option<(usize, usize, usize)> {
        let (&size, bits) = self.buckets.iter().next()?;
        let (i, w) = bits.iter().enumerate().find(|(_, w)| **w != 0)?;
        Some(self.key(size, i * 64 + w.trailing_zeros() as usize))
    }

    fn last(&self) -> Option<(usize, usize, usize)> {
        let (&size, bits) = self.buckets.iter().next_back()?;
        let (i, w) = bits.iter().enumerate().rev().find(|(_, w)| **w != 0)?;
        Some(self.key(size, i * 64 + 63 - w.leading_zeros() as usize))
    }

    fn iter(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        self.buckets.iter().flat_map(move |(&size, bits)| {
            bits.iter().enumerate().flat_map(move |(i, &w)| {
                let mut w = w;
                std::iter::from_fn(move || {
                    if w == 0 {
                        return None;
                    }
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    Some(self.key(size, i * 64 + b))
                })
            })
        })
    }
}

/// The general path (unequal subscriptions).
struct General<'a> {
    ctx: &'a Ctx,
    racks: &'a RackInfo,
    members: &'a [Member],
    /// Member order by id (`String.compareTo`), for the sorted-set tie-break.
    rank: Vec<usize>,
    topic_consumers: Vec<Vec<usize>>,
    consumer_topics: Vec<Vec<usize>>,
    /// Per member, a bitset of subscribed topic indices (`words` u64 each).
    subscribed: Vec<u64>,
    words: usize,
    current: Vec<Vec<u32>>,
    fixed: Vec<bool>,
    owner: Vec<Option<usize>>,
    sorted_all: Vec<u32>,
    sorted: SortedMembers,
    revocation_required: bool,
    movements: Movements,
}

impl<'a> General<'a> {
    fn new(ctx: &'a Ctx, racks: &'a RackInfo, members: &'a [Member], owned: Vec<Vec<u32>>) -> Self {
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.sort_by(|&a, &b| java::compare_strings(&members[a].id, &members[b].id));
        let mut rank = vec![0; members.len()];
        for (r, &m) in order.iter().enumerate() {
            rank[m] = r;
        }
        let rank_for_sorted = rank.clone();
        let mut topic_consumers = vec![Vec::new(); ctx.topics()];
        let mut consumer_topics = Vec::with_capacity(members.len());
        let words = ctx.topics().div_ceil(64).max(1);
        let mut subscribed = vec![0u64; words * members.len()];
        for (c, m) in members.iter().enumerate() {
            let mut ts = Vec::new();
            for name in m.subscription.topics.iter() {
                if let Some(&t) = ctx.index.get(name) {
                    ts.push(t as usize);
                    if let Some(list) = topic_consumers.get_mut(t as usize) {
                        list.push(c);
                    }
                }
            }
            for &t in &ts {
                if let Some(w) = subscribed.get_mut(c * words + t / 64) {
                    *w |= 1 << (t % 64);
                }
            }
            consumer_topics.push(ts);
        }
        let mut owner = vec![None; ctx.total as usize];
        for (c, list) in owned.iter().enumerate() {
            for &g in list {
                if let Some(o) = owner.get_mut(g as usize) {
                    *o = Some(c);
                }
            }
        }
        let mut topic_order: Vec<usize> = (0..ctx.topics()).collect();
        topic_order.sort_by(|&a, &b| {
            topic_consumers[a]
                .len()
                .cmp(&topic_consumers[b].len())
                .then_with(|| java::compare_strings(&ctx.names[a], &ctx.names[b]))
        });
        let sorted_all = topic_order
            .iter()
            .flat_map(|&t| ctx.topic_partitions(t))
            .collect();
        General {
            ctx,
            racks,
            members,
            rank,
            topic_consumers,
            consumer_topics,
            subscribed,
            words,
            current: owned,
            fixed: vec![false; members.len()],
            owner,
            sorted_all,
            sorted: SortedMembers::new(rank_for_sorted),
            revocation_required: false,
            movements: Movements::default(),
        }
    }

    fn size(&self, c: usize) -> usize {
        self.current.get(c).map_or(0, Vec::len)
    }

    fn key(&self, c: usize) -> (usize, usize, usize) {
        (self.size(c), self.rank.get(c).copied().unwrap_or(0), c)
    }

    fn subscribes(&self, c: usize, t: usize) -> bool {
        self.subscribed
            .get(c * self.words + t / 64)
            .is_some_and(|w| w & (1 << (t % 64)) != 0)
    }

    fn build(&mut self, max_generation: i32, data: &[MemberData]) -> Result<(), AssignError> {
        // prepopulateCurrentAssignments: previous owners of an older generation.
        let mut prev: HashMap<u32, (usize, i32)> = HashMap::default();
        for (c, md) in data.iter().enumerate() {
            let gen = match md.generation {
                Some(g) if g < max_generation => g,
                None if max_generation > DEFAULT_GENERATION => DEFAULT_GENERATION,
                _ => continue,
            };
            let mut lookup = Lookup::default();
            for tp in md.partitions.iter() {
                let Some(g) = lookup.global(self.ctx, tp) else {
                    continue;
                };
                match prev.get(&g) {
                    Some(&(_, pg)) if gen <= pg => {}
                    _ => {
                        prev.insert(g, (c, gen));
                    }
                }
            }
        }

        // assignOwnedPartitions.
        let mut assigned = vec![false; self.ctx.total as usize];
        for c in 0..self.current.len() {
            let list = std::mem::take(&mut self.current[c]);
            let mut kept = Vec::with_capacity(list.len());
            for g in list {
                let t = self.ctx.topic_of(g);
                // The partition's topic exists, so "subscribes to its name" is "to its index".
                let subscribed = self.subscribes(c, t);
                if !subscribed || self.racks.mismatch(c, g) {
                    self.revocation_required = true;
                } else {
                    if let Some(a) = assigned.get_mut(g as usize) {
                        *a = true;
                    }
                    kept.push(g);
                }
            }
            self.current[c] = kept;
        }
        let mut unassigned: Vec<u32> = self
            .sorted_all
            .iter()
            .copied()
            .filter(|&g| !assigned.get(g as usize).copied().unwrap_or(false))
            .collect();
        for c in 0..self.members.len() {
            self.sorted.insert(self.key(c));
        }
        self.balance(&prev, &mut unassigned)
    }

    fn maybe_assign_partition(&mut self, g: u32, rack_aware: bool) -> bool {
        let t = self.ctx.topic_of(g);
        let found = self.sorted.iter().find(|&(_, _, c)| {
            self.subscribes(c, t) && (!rack_aware || !self.racks.mismatch(c, g))
        });
        match found {
            Some(key) => {
                let c = key.2;
                self.sorted.remove(&key);
                if let Some(list) = self.current.get_mut(c) {
                    list.push(g);
                }
                if let Some(o) = self.owner.get_mut(g as usize) {
                    *o = Some(c);
                }
                self.sorted.insert(self.key(c));
                true
            }
            None => false,
        }
    }

    fn max_assignment_size(&self, c: usize) -> usize {
        let topics = self
            .consumer_topics
            .get(c)
            .map_or(&[][..], |v| v.as_slice());
        if topics.len() == self.ctx.topics() {
            self.ctx.total as usize
        } else {
            topics
                .iter()
                .map(|&t| self.ctx.counts.get(t).copied().unwrap_or(0) as usize)
                .sum()
        }
    }

    fn can_consumer_participate(&self, c: usize) -> bool {
        if self.size(c) < self.max_assignment_size(c) {
            return true;
        }
        self.current.get(c).is_some_and(|list| {
            list.iter().any(|&g| {
                self.topic_consumers
                    .get(self.ctx.topic_of(g))
                    .is_some_and(|v| v.len() >= 2)
            })
        })
    }

    fn balance(
        &mut self,
        prev: &HashMap<u32, (usize, i32)>,
        unassigned: &mut Vec<u32>,
    ) -> Result<(), AssignError> {
        let initializing = self.sorted.last().is_none_or(|(_, _, c)| self.size(c) == 0);

        if self.racks.aware {
            let mut left = Vec::with_capacity(unassigned.len());
            for &g in unassigned.iter() {
                let t = self.ctx.topic_of(g);
                if self.topic_consumers.get(t).is_none_or(Vec::is_empty) {
                    left.push(g);
                    continue;
                }
                if !self.maybe_assign_partition(g, true) {
                    left.push(g);
                }
            }
            for g in left {
                let t = self.ctx.topic_of(g);
                if self.topic_consumers.get(t).is_some_and(|v| !v.is_empty()) {
                    self.maybe_assign_partition(g, false);
                }
            }
        } else {
            for &g in unassigned.iter() {
                let t = self.ctx.topic_of(g);
                if self.topic_consumers.get(t).is_some_and(|v| !v.is_empty()) {
                    self.maybe_assign_partition(g, false);
                }
            }
        }

        // Topics with fewer than two potential consumers cannot move.
        let movable_topic: Vec<bool> = self.topic_consumers.iter().map(|v| v.len() >= 2).collect();
        let ctx = self.ctx;
        let movable = |g: &u32| {
            movable_topic
                .get(ctx.topic_of(*g))
                .copied()
                .unwrap_or(false)
        };
        self.sorted_all.retain(movable);
        unassigned.retain(movable);

        for c in 0..self.members.len() {
            if !self.can_consumer_participate(c) {
                let key = self.key(c);
                self.sorted.remove(&key);
                self.fixed[c] = true;
            }
        }

        let pre_current = self.current.clone();
        let pre_owner = self.owner.clone();

        if !self.revocation_required {
            let list = unassigned.clone();
            self.perform_reassignments(&list, prev)?;
        }
        let list = self.sorted_all.clone();
        let performed = self.perform_reassignments(&list, prev)?;

        if !initializing
            && performed
            && self.balance_score(&self.current) >= self.balance_score(&pre_current)
        {
            self.current = pre_current;
            self.owner = pre_owner;
        }
        Ok(())
    }

    fn balance_score(&self, lists: &[Vec<u32>]) -> i64 {
        let mut sizes: Vec<i64> = lists
            .iter()
            .enumerate()
            .filter(|(c, _)| !self.fixed.get(*c).copied().unwrap_or(false))
            .map(|(_, l)| l.len() as i64)
            .collect();
        sizes.sort_unstable();
        let mut score = 0i64;
        let mut prefix = 0i64;
        for (i, s) in sizes.iter().enumerate() {
            score += s * i as i64 - prefix;
            prefix += s;
        }
        score
    }

    fn is_balanced(&self) -> bool {
        let (Some(first), Some(last)) = (self.sorted.first(), self.sorted.last()) else {
            return true;
        };
        let min = self.size(first.2);
        let max = self.size(last.2);
        if min + 1 >= max {
            return true;
        }
        // The largest owner of any partition of each topic (among non-fixed members).
        let mut topic_max = vec![0usize; self.ctx.topics()];
        for (c, list) in self.current.iter().enumerate() {
            if self.fixed.get(c).copied().unwrap_or(false) {
                continue;
            }
            let s = list.len();
            for &g in list {
                if let Some(m) = topic_max.get_mut(self.ctx.topic_of(g)) {
                    *m = (*m).max(s);
                }
            }
        }
        for (size, _, c) in self.sorted.iter() {
            if size == self.max_assignment_size(c) {
                continue;
            }
            let topics = self
                .consumer_topics
                .get(c)
                .map_or(&[][..], |v| v.as_slice());
            if topics
                .iter()
                .any(|&t| topic_max.get(t).copied().unwrap_or(0) > size + 1)
            {
                return false;
            }
        }
        true
    }

    fn perform_reassignments(
        &mut self,
        list: &[u32],
        prev: &HashMap<u32, (usize, i32)>,
    ) -> Result<bool, AssignError> {
        let mut performed = false;
        loop {
            let mut modified = false;
            for &g in list {
                if self.is_balanced() {
                    break;
                }
                let t = self.ctx.topic_of(g);
                let Some(c) = self.owner.get(g as usize).copied().flatten() else {
                    return Err(AssignError::IllegalState(format!(
                        "NullPointerException: partition {} has no owner",
                        self.ctx.tp(g)
                    )));
                };
                if let Some(&(p, _)) = prev.get(&g) {
                    if self.fixed.get(p).copied().unwrap_or(false) {
                        return Err(AssignError::IllegalState(
                            "NullPointerException: previous owner is not reassignable".into(),
                        ));
                    }
                    if self.size(c) > self.size(p) + 1 {
                        self.reassign_to(g, p);
                        performed = true;
                        modified = true;
                        continue;
                    }
                }
                let mut found_rack = false;
                if let Some(cr) = self.racks.consumer_rack.get(c).copied().flatten() {
                    let racks = self.racks.racks_of(g);
                    if !racks.is_empty() && racks.contains(&cr) {
                        let others = self.topic_consumers.get(t).cloned().unwrap_or_default();
                        for o in others {
                            let orack = self.racks.consumer_rack.get(o).copied().flatten();
                            if !orack.is_some_and(|r| racks.contains(&r)) {
                                continue;
                            }
                            if self.size(c) > self.size(o) + 1 {
                                self.reassign(g);
                                performed = true;
                                modified = true;
                                found_rack = true;
                                break;
                            }
                        }
                    }
                }
                if !found_rack {
                    let others = self
                        .topic_consumers
                        .get(t)
                        .map_or(&[][..], |v| v.as_slice());
                    if others.iter().any(|&o| self.size(c) > self.size(o) + 1) {
                        self.reassign(g);
                        performed = true;
                        modified = true;
                    }
                }
            }
            if !modified {
                return Ok(performed);
            }
        }
    }

    fn reassign(&mut self, g: u32) {
        let t = self.ctx.topic_of(g);
        let target = self
            .sorted
            .iter()
            .find(|&(_, _, c)| self.subscribes(c, t))
            .map(|k| k.2);
        if let Some(new) = target {
            self.reassign_to(g, new);
        }
    }

    fn reassign_to(&mut self, g: u32, new: usize) {
        let Some(old) = self.owner.get(g as usize).copied().flatten() else {
            return;
        };
        let moved = self
            .movements
            .actual_partition_to_move(self.ctx, g, old, new);
        let Some(old) = self.owner.get(moved as usize).copied().flatten() else {
            return;
        };
        let (ko, kn) = (self.key(old), self.key(new));
        self.sorted.remove(&ko);
        self.sorted.remove(&kn);
        self.movements.move_partition(self.ctx, moved, old, new);
        if let Some(list) = self.current.get_mut(old) {
            remove_first(list, moved);
        }
        if let Some(list) = self.current.get_mut(new) {
            list.push(moved);
        }
        if let Some(o) = self.owner.get_mut(moved as usize) {
            *o = Some(new);
        }
        self.sorted.insert(self.key(new));
        self.sorted.insert(self.key(old));
    }
}
