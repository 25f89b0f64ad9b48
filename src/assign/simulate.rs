//! The rebalance simulator: runs a [`Scenario`] under one strategy, round by round, the way
//! Kafka's group protocol runs it (spec §6).
//!
//! * **Classic eager** (`range`, `roundrobin`, `sticky`): every member revokes everything, joins,
//!   the leader assigns, SyncGroup hands the result out. One assign call per event.
//! * **Classic cooperative** (`cooperative-sticky`): members keep what they own and send it; the
//!   assignor withholds partitions that change owner, whose previous owners revoke them and rejoin
//!   at once; the follow-up rebalance hands them out.
//! * **New protocol** (`uniform`, `server-range`): the coordinator bumps the group epoch and
//!   computes a target assignment; each member reconciles towards it, releasing partitions before
//!   others may take them.
//!
//! Member ids are the names given in the scenario; the leader's subscription map and the
//! coordinator's member map are `java.util.HashMap`s in join order, as in Kafka.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::java;
use super::scenario::{Event, Scenario, ScenarioMember, ScenarioTopic};
use super::server::{self, id_from_name, ServerMember, ServerTopic};
use super::sticky::StickyAssignor;
use super::{range, roundrobin, AssignError, Assignment, Member, Strategy, Subscription};
use super::{TopicMeta, UserData};
use crate::common::TopicPartition;

/// Default `offsets.topic.num.partitions`.
pub const DEFAULT_OFFSETS_TOPIC_PARTITIONS: u32 = 50;

/// A partition changing hands within a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// The partition.
    pub partition: TopicPartition,
    /// Its owner before the round (`None`: nobody, e.g. a new partition).
    pub from: Option<String>,
    /// Its owner after the round (`None`: nobody, e.g. a deleted topic's partition).
    pub to: Option<String>,
}

/// One JoinGroup/SyncGroup (classic) or one reconciliation step (new protocol).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// The generation (classic) or group epoch (new protocol).
    pub generation: i32,
    /// What each member holds after the phase.
    pub assignment: Assignment,
    /// Partitions members gave up in this phase: (partition, member).
    pub revoked: Vec<(TopicPartition, String)>,
    /// Partitions members received in this phase: (partition, member).
    pub added: Vec<(TopicPartition, String)>,
}

/// Balance of an assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Balance {
    /// The smallest member's partition count.
    pub min: usize,
    /// The largest member's partition count.
    pub max: usize,
    /// The ideal smallest count: assignable partitions / members, rounded down.
    pub ideal_min: usize,
    /// The ideal largest count (rounded up).
    pub ideal_max: usize,
}

/// Everything that happened in one round (the initial join, or one event).
#[derive(Debug, Clone, PartialEq)]
pub struct RoundReport {
    /// 1 for the initial join, then one per event.
    pub round: usize,
    /// The event, in `--then` syntax (`None` for the initial join).
    pub event: Option<String>,
    /// The phases Kafka runs for it.
    pub phases: Vec<Phase>,
    /// The assignment at the end of the round, lists sorted.
    pub assignment: Assignment,
    /// Partitions whose owner changed.
    pub moves: Vec<Move>,
    /// Partitions nobody consumed at some point during the round.
    pub unavailable: usize,
    /// Balance at the end of the round.
    pub balance: Balance,
    /// Partitions owned at the start by members still present (and still existing).
    pub previously_owned: usize,
    /// Of those, how many the same member still owns at the end.
    pub kept: usize,
    /// The protocol trace (`--explain`).
    pub explain: Vec<String>,
    /// Kafka's exception, when the assignor throws.
    pub error: Option<String>,
}

impl RoundReport {
    /// The share of previously owned partitions kept (1.0 when nothing was owned).
    pub fn stickiness(&self) -> f64 {
        if self.previously_owned == 0 {
            1.0
        } else {
            self.kept as f64 / self.previously_owned as f64
        }
    }
}

/// Totals over a whole script.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The strategy.
    pub strategy: Strategy,
    /// Rounds run.
    pub rounds: usize,
    /// Rebalances (JoinGroup/SyncGroup generations, or reconciliation steps), follow-ups included.
    pub rebalances: usize,
    /// Partition moves over all rounds.
    pub moves: usize,
    /// Σ over rounds of partitions left unconsumed at some point in the round.
    pub unavailable: usize,
    /// Balance at the end.
    pub final_balance: Balance,
    /// Σ kept / Σ previously owned over all rounds after the first.
    pub stickiness: f64,
    /// Rounds where the assignor threw.
    pub errors: usize,
}

/// A whole simulated script.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// The strategy.
    pub strategy: Strategy,
    /// The group id.
    pub group: String,
    /// The `__consumer_offsets` partition of the group's coordinator.
    pub coordinator_partition: u32,
    /// `offsets.topic.num.partitions`.
    pub offsets_topic_partitions: u32,
    /// The rounds.
    pub rounds: Vec<RoundReport>,
    /// The totals.
    pub summary: Summary,
}

#[derive(Debug, Clone)]
struct MemberState {
    spec: ScenarioMember,
    owned: Vec<TopicPartition>,
    generation: i32,
    /// StickyAssignor's user data: the last assignment received.
    last_assignment: Option<Vec<TopicPartition>>,
}

struct Engine {
    strategy: Strategy,
    topics: Vec<ScenarioTopic>,
    members: Vec<MemberState>,
    leader: Option<String>,
    generation: i32,
    sticky: StickyAssignor,
}

/// Runs `scenario` under `strategy`. `scenario` must have passed [`Scenario::validate`].
pub fn simulate(
    scenario: &Scenario,
    strategy: Strategy,
    offsets_topic_partitions: u32,
) -> Simulation {
    let n = offsets_topic_partitions.max(1);
    let mut engine = Engine {
        strategy,
        topics: scenario.topics.clone(),
        members: Vec::new(),
        leader: None,
        generation: 0,
        sticky: if strategy == Strategy::CooperativeSticky {
            StickyAssignor::cooperative()
        } else {
            StickyAssignor::eager()
        },
    };
    let coordinator_partition = java::coordinator_partition(&scenario.group, n);
    let mut rounds = Vec::new();

    let mut head = vec![
        format!(
            "coordinator: group {:?} -> String.hashCode {} -> Utils.abs(...) % {n} = partition {coordinator_partition} of __consumer_offsets; its leader broker is the group coordinator",
            scenario.group,
            java::string_hash(&scenario.group),
        ),
    ];
    let mut joined = Vec::new();
    for m in &scenario.members {
        engine.members.push(MemberState {
            spec: m.clone(),
            owned: Vec::new(),
            generation: -1,
            last_assignment: None,
        });
        if engine.leader.is_none() && !strategy.is_server_side() {
            engine.leader = Some(m.id.clone());
        }
        joined.push(m.id.clone());
    }
    if strategy.is_server_side() {
        head.push(format!(
            "members {} send ConsumerGroupHeartbeat (group.protocol=consumer); no leader: the coordinator assigns",
            joined.join(", ")
        ));
    } else {
        head.push(format!(
            "members {} send JoinGroup in that order; {} is the leader (the first member to join)",
            joined.join(", "),
            engine.leader.clone().unwrap_or_default()
        ));
    }
    rounds.push(engine.round(1, None, head, &HashMap::new()));

    for (i, event) in scenario.events.iter().enumerate() {
        let mut explain = Vec::new();
        let departed = engine.apply(event, &mut explain);
        rounds.push(engine.round(i + 2, Some(event.describe()), explain, &departed));
    }

    let after_first: Vec<&RoundReport> = rounds.iter().skip(1).collect();
    let prev: usize = after_first.iter().map(|r| r.previously_owned).sum();
    let kept: usize = after_first.iter().map(|r| r.kept).sum();
    let summary = Summary {
        strategy,
        rounds: rounds.len(),
        rebalances: rounds.iter().map(|r| r.phases.len()).sum(),
        moves: rounds.iter().map(|r| r.moves.len()).sum(),
        unavailable: rounds.iter().map(|r| r.unavailable).sum(),
        final_balance: rounds.last().map(|r| r.balance).unwrap_or_default(),
        stickiness: if prev == 0 {
            1.0
        } else {
            kept as f64 / prev as f64
        },
        errors: rounds.iter().filter(|r| r.error.is_some()).count(),
    };
    Simulation {
        strategy,
        group: scenario.group.clone(),
        coordinator_partition,
        offsets_topic_partitions: n,
        rounds,
        summary,
    }
}

fn sorted_assignment(a: &Assignment) -> Assignment {
    a.iter()
        .map(|(m, l)| {
            let mut l = l.clone();
            l.sort();
            (m.clone(), l)
        })
        .collect()
}

fn show(list: &[TopicPartition]) -> String {
    if list.is_empty() {
        return "(nothing)".into();
    }
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Engine {
    fn topic(&self, name: &str) -> Option<&ScenarioTopic> {
        self.topics.iter().find(|t| t.name == name)
    }

    fn subscribed(&self, m: &ScenarioMember) -> Vec<String> {
        match &m.topics {
            Some(list) => list.clone(),
            None => self.topics.iter().map(|t| t.name.clone()).collect(),
        }
    }

    fn exists(&self, tp: &TopicPartition) -> bool {
        self.topic(&tp.topic)
            .is_some_and(|t| tp.partition >= 0 && tp.partition < t.partitions)
    }

    /// Applies an event; returns what departed members owned.
    fn apply(
        &mut self,
        event: &Event,
        explain: &mut Vec<String>,
    ) -> HashMap<TopicPartition, String> {
        let mut departed = HashMap::new();
        match event {
            Event::Join { member } => {
                self.members.push(MemberState {
                    spec: member.clone(),
                    owned: Vec::new(),
                    generation: -1,
                    last_assignment: None,
                });
                if self.strategy.is_server_side() {
                    explain.push(format!(
                        "{} joins with a ConsumerGroupHeartbeat (member epoch 0): the group epoch is bumped",
                        member.id
                    ));
                } else {
                    explain.push(format!(
                        "{} sends JoinGroup: the coordinator moves the group to PreparingRebalance and every member rejoins",
                        member.id
                    ));
                }
                if self.leader.is_none() && !self.strategy.is_server_side() {
                    self.leader = Some(member.id.clone());
                }
            }
            Event::Leave { member } | Event::Crash { member } => {
                if let Some(pos) = self.members.iter().position(|m| &m.spec.id == member) {
                    let gone = self.members.remove(pos);
                    for tp in gone.owned {
                        departed.insert(tp, gone.spec.id.clone());
                    }
                }
                explain.push(if matches!(event, Event::Leave { .. }) {
                    format!("{member} sends LeaveGroup: removed at once, the group rebalances")
                } else {
                    format!(
                        "{member} stops heartbeating: removed after session.timeout.ms (45000 ms by default); its partitions are unconsumed until then"
                    )
                });
                if self.leader.as_deref() == Some(member.as_str()) {
                    let ids: Vec<&str> = self.members.iter().map(|m| m.spec.id.as_str()).collect();
                    let order = java::string_map_order(&ids);
                    self.leader = order
                        .first()
                        .and_then(|&i| ids.get(i))
                        .map(|s| s.to_string());
                    // A new leader is another consumer: a fresh assignor object.
                    self.sticky = if self.strategy == Strategy::CooperativeSticky {
                        StickyAssignor::cooperative()
                    } else {
                        StickyAssignor::eager()
                    };
                    if let Some(l) = &self.leader {
                        explain.push(format!(
                            "the leader left: the new leader is {l}, the first key of the coordinator's member HashMap (a fresh assignor: maxGeneration = -1)"
                        ));
                    }
                }
            }
            Event::AddPartitions { topic, partitions } => {
                if let Some(t) = self.topics.iter_mut().find(|t| &t.name == topic) {
                    t.partitions = *partitions;
                }
                explain.push(format!(
                    "{topic} grows to {partitions} partitions: the leader sees the metadata change and triggers a rebalance"
                ));
            }
            Event::CreateTopic { topic, partitions } => {
                self.topics.push(ScenarioTopic {
                    name: topic.clone(),
                    partitions: *partitions,
                    racks: None,
                    id: None,
                });
                explain.push(format!(
                    "topic {topic} is created with {partitions} partitions"
                ));
            }
            Event::Subscribe { member, topics } => {
                if let Some(m) = self.members.iter_mut().find(|m| &m.spec.id == member) {
                    m.spec.topics = Some(topics.clone());
                }
                explain.push(format!(
                    "{member} changes its subscription to {}: it rejoins",
                    topics.join(",")
                ));
            }
            Event::DeleteTopic { topic } => {
                self.topics.retain(|t| &t.name != topic);
                explain.push(format!(
                    "topic {topic} is deleted: its partitions leave every assignment"
                ));
            }
        }
        departed
    }

    fn owners(&self) -> HashMap<TopicPartition, String> {
        let mut map = HashMap::new();
        for m in &self.members {
            for tp in &m.owned {
                map.insert(tp.clone(), m.spec.id.clone());
            }
        }
        map
    }

    fn assignable(&self) -> BTreeSet<TopicPartition> {
        // The topics first, then their partitions once each: members × partitions inserts
        // took seconds for a thousand members.
        let mut names: BTreeSet<String> = BTreeSet::new();
        for m in &self.members {
            names.extend(self.subscribed(&m.spec));
        }
        let mut all = BTreeSet::new();
        for t in names {
            if let Some(topic) = self.topic(&t) {
                let name: std::sync::Arc<str> = t.into();
                for p in 0..topic.partitions {
                    all.insert(TopicPartition::new(name.clone(), p));
                }
            }
        }
        all
    }

    fn current(&self) -> Assignment {
        self.members
            .iter()
            .map(|m| {
                let mut l = m.owned.clone();
                l.sort();
                (m.spec.id.clone(), l)
            })
            .collect()
    }

    fn round(
        &mut self,
        round: usize,
        event: Option<String>,
        mut explain: Vec<String>,
        departed: &HashMap<TopicPartition, String>,
    ) -> RoundReport {
        // Before: owners at the start of the round (departed members included).
        let mut before = self.owners();
        for (tp, m) in departed {
            before.insert(tp.clone(), m.clone());
        }
        let present: HashSet<String> = self.members.iter().map(|m| m.spec.id.clone()).collect();
        let unowned_before: usize = self
            .assignable()
            .iter()
            .filter(|tp| !before.contains_key(*tp) || departed.contains_key(*tp))
            .count();

        let mut error = None;
        let phases = match self.strategy {
            Strategy::Range | Strategy::RoundRobin | Strategy::Sticky => {
                self.run_eager(&mut explain, &mut error)
            }
            Strategy::CooperativeSticky => self.run_cooperative(&mut explain, &mut error),
            Strategy::Uniform | Strategy::ServerRange => self.run_server(&mut explain, &mut error),
        };

        let after = self.owners();
        let mut moves = Vec::new();
        let mut all: BTreeSet<&TopicPartition> = before.keys().collect();
        all.extend(after.keys());
        for tp in all {
            let (f, t) = (before.get(tp), after.get(tp));
            if f != t {
                moves.push(Move {
                    partition: tp.clone(),
                    from: f.cloned(),
                    to: t.cloned(),
                });
            }
        }
        let previously: Vec<(&TopicPartition, &String)> = before
            .iter()
            .filter(|(tp, m)| present.contains(*m) && self.exists(tp))
            .collect();
        let kept = previously
            .iter()
            .filter(|(tp, m)| after.get(*tp) == Some(*m))
            .count();
        let revoked_total: BTreeSet<&TopicPartition> = phases
            .iter()
            .flat_map(|p| p.revoked.iter().map(|(tp, _)| tp))
            .filter(|tp| self.exists(tp))
            .collect();
        let unavailable = revoked_total.len() + unowned_before;

        let assignment = self.current();
        let total = self.assignable().len();
        let n = self.members.len().max(1);
        let sizes: Vec<usize> = assignment.values().map(Vec::len).collect();
        let balance = Balance {
            min: sizes.iter().copied().min().unwrap_or(0),
            max: sizes.iter().copied().max().unwrap_or(0),
            ideal_min: total / n,
            ideal_max: total.div_ceil(n),
        };
        RoundReport {
            round,
            event,
            phases,
            assignment,
            moves,
            unavailable,
            balance,
            previously_owned: previously.len(),
            kept,
            explain,
            error,
        }
    }

    fn topic_metas(&self) -> Vec<TopicMeta> {
        let mut names: BTreeSet<String> = BTreeSet::new();
        for m in &self.members {
            names.extend(self.subscribed(&m.spec));
        }
        names
            .into_iter()
            .filter_map(|n| self.topic(&n))
            .map(|t| TopicMeta {
                name: t.name.clone(),
                partitions: t.partitions,
                racks: t.racks.clone(),
            })
            .collect()
    }

    /// The leader's subscription map, in `HashMap` iteration order.
    fn subscriptions(&self, cooperative: bool) -> Vec<Member> {
        let ids: Vec<&str> = self.members.iter().map(|m| m.spec.id.as_str()).collect();
        java::string_map_order(&ids)
            .into_iter()
            .filter_map(|i| self.members.get(i))
            .map(|m| Member {
                id: m.spec.id.clone(),
                subscription: Subscription {
                    topics: self.subscribed(&m.spec).into(),
                    owned: if cooperative {
                        m.owned.clone()
                    } else {
                        Vec::new()
                    },
                    generation: if cooperative && m.generation >= 0 {
                        Some(m.generation)
                    } else {
                        None
                    },
                    user_data: match self.strategy {
                        Strategy::Sticky => m.last_assignment.as_ref().map(|p| UserData::Sticky {
                            partitions: p.clone(),
                            generation: Some(m.generation),
                        }),
                        Strategy::CooperativeSticky => Some(UserData::Cooperative {
                            generation: m.generation,
                        }),
                        _ => None,
                    },
                    rack: m.spec.rack.clone(),
                    instance_id: m.spec.instance_id.clone(),
                },
            })
            .collect()
    }

    fn client_assign(
        &mut self,
        cooperative: bool,
    ) -> Result<(Assignment, Vec<String>), AssignError> {
        let topics = self.topic_metas();
        let subs = self.subscriptions(cooperative);
        let order: Vec<String> = subs.iter().map(|m| m.id.clone()).collect();
        let a = match self.strategy {
            Strategy::Range => range::assign(&topics, &subs, false),
            Strategy::RoundRobin => roundrobin::assign(&topics, &subs),
            _ => self.sticky.assign(&topics, &subs)?.assignment,
        };
        Ok((a, order))
    }

    fn explain_join(&self, explain: &mut Vec<String>, order: &[String], cooperative: bool) {
        let leader = self.leader.clone().unwrap_or_default();
        explain.push(format!(
            "generation {}: JoinGroup from {}; leader {leader}",
            self.generation,
            self.members
                .iter()
                .map(|m| m.spec.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        explain.push(format!(
            "protocol: every member lists {:?} ({}); it is the only candidate, so it wins the vote; rebalance protocol {}",
            self.strategy.name(),
            self.strategy.class_name(),
            if cooperative { "COOPERATIVE" } else { "EAGER" }
        ));
        explain.push(format!(
            "the leader {leader} runs the assignor over the members in its subscription HashMap order: {}",
            order.join(", ")
        ));
    }

    fn run_eager(&mut self, explain: &mut Vec<String>, error: &mut Option<String>) -> Vec<Phase> {
        self.generation += 1;
        let mut revoked = Vec::new();
        for m in &mut self.members {
            for tp in m.owned.drain(..) {
                revoked.push((tp, m.spec.id.clone()));
            }
        }
        explain.push(format!(
            "EAGER: every member revokes all it owns before rejoining ({} partitions)",
            revoked.len()
        ));
        let (a, order) = match self.client_assign(false) {
            Ok(r) => r,
            Err(e) => {
                *error = Some(e.to_string());
                explain.push(format!("the assignor throws {e}"));
                return vec![];
            }
        };
        self.explain_join(explain, &order, false);
        let mut added = Vec::new();
        for m in &mut self.members {
            let list = a.get(&m.spec.id).cloned().unwrap_or_default();
            added.extend(list.iter().map(|tp| (tp.clone(), m.spec.id.clone())));
            explain.push(format!("SyncGroup -> {}: {}", m.spec.id, show(&list)));
            m.owned = list.clone();
            m.generation = self.generation;
            m.last_assignment = Some(list);
        }
        vec![Phase {
            generation: self.generation,
            assignment: sorted_assignment(&a),
            revoked,
            added,
        }]
    }

    fn run_cooperative(
        &mut self,
        explain: &mut Vec<String>,
        error: &mut Option<String>,
    ) -> Vec<Phase> {
        let mut phases = Vec::new();
        // onJoinPrepare: revoke partitions of topics no longer subscribed (or gone).
        let mut dropped = Vec::new();
        let topics: Vec<ScenarioTopic> = self.topics.clone();
        for m in &mut self.members {
            let subscribed: Vec<String> = match &m.spec.topics {
                Some(l) => l.clone(),
                None => topics.iter().map(|t| t.name.clone()).collect(),
            };
            let id = m.spec.id.clone();
            m.owned.retain(|tp| {
                let ok = subscribed.iter().any(|t| **t == *tp.topic)
                    && topics
                        .iter()
                        .any(|t| *t.name == *tp.topic && tp.partition < t.partitions);
                if !ok {
                    dropped.push((tp.clone(), id.clone()));
                }
                ok
            });
        }
        if !dropped.is_empty() {
            explain.push(format!(
                "before rejoining, members revoke partitions they no longer subscribe to: {}",
                dropped
                    .iter()
                    .map(|(tp, m)| format!("{tp} ({m})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        for step in 0..10 {
            self.generation += 1;
            let (a, order) = match self.client_assign(true) {
                Ok(r) => r,
                Err(e) => {
                    *error = Some(e.to_string());
                    explain.push(format!("the assignor throws {e}"));
                    break;
                }
            };
            if step == 0 {
                self.explain_join(explain, &order, true);
            } else {
                explain.push(format!(
                    "generation {}: follow-up rebalance (members that revoked rejoined at once); members send owned partitions again",
                    self.generation
                ));
            }
            let mut revoked = if step == 0 {
                dropped.clone()
            } else {
                Vec::new()
            };
            let mut added = Vec::new();
            let mut any_revoked = false;
            for m in &mut self.members {
                let list = a.get(&m.spec.id).cloned().unwrap_or_default();
                let now: HashSet<&TopicPartition> = list.iter().collect();
                let before: HashSet<&TopicPartition> = m.owned.iter().collect();
                let gone: Vec<TopicPartition> = m
                    .owned
                    .iter()
                    .filter(|tp| !now.contains(tp))
                    .cloned()
                    .collect();
                let new: Vec<TopicPartition> = list
                    .iter()
                    .filter(|tp| !before.contains(tp))
                    .cloned()
                    .collect();
                explain.push(format!(
                    "SyncGroup -> {}: {}{}{}",
                    m.spec.id,
                    show(&list),
                    if gone.is_empty() {
                        String::new()
                    } else {
                        format!("; revokes {} and rejoins", show(&gone))
                    },
                    if new.is_empty() {
                        String::new()
                    } else {
                        format!("; adds {}", show(&new))
                    },
                ));
                any_revoked |= !gone.is_empty();
                revoked.extend(gone.into_iter().map(|tp| (tp, m.spec.id.clone())));
                added.extend(new.into_iter().map(|tp| (tp, m.spec.id.clone())));
                m.owned = list.clone();
                m.generation = self.generation;
                m.last_assignment = Some(list);
            }
            phases.push(Phase {
                generation: self.generation,
                assignment: sorted_assignment(&a),
                revoked,
                added,
            });
            if !any_revoked {
                break;
            }
        }
        phases
    }

    fn run_server(&mut self, explain: &mut Vec<String>, error: &mut Option<String>) -> Vec<Phase> {
        self.generation += 1;
        let epoch = self.generation;
        let topics: Vec<ServerTopic> = self
            .topics
            .iter()
            .map(|t| ServerTopic {
                name: t.name.clone(),
                partitions: t.partitions,
                id: t.id.unwrap_or_else(|| id_from_name(&t.name)),
            })
            .collect();
        // The target assignment so far is what each member was last given (its owned set
        // after reconciliation), restricted to topics that exist.
        let ids: Vec<&str> = self.members.iter().map(|m| m.spec.id.as_str()).collect();
        let members: Vec<ServerMember> = java::string_map_order(&ids)
            .into_iter()
            .filter_map(|i| self.members.get(i))
            .map(|m| {
                let mut by_topic: BTreeMap<String, Vec<i32>> = BTreeMap::new();
                for tp in &m.owned {
                    if self.exists(tp) {
                        by_topic
                            .entry(tp.topic.to_string())
                            .or_default()
                            .push(tp.partition);
                    }
                }
                ServerMember {
                    id: m.spec.id.clone(),
                    instance_id: m.spec.instance_id.clone(),
                    rack: m.spec.rack.clone(),
                    topics: self
                        .subscribed(&m.spec)
                        .into_iter()
                        .filter(|t| self.topic(t).is_some())
                        .collect(),
                    assignment: by_topic.into_iter().collect(),
                }
            })
            .collect();
        let kind = server::subscription_type(&members);
        let target = match self.strategy {
            Strategy::Uniform => server::uniform(&topics, &members, Some(kind)),
            _ => server::range(&topics, &members, Some(kind)),
        };
        let target = match target {
            Ok(t) => t,
            Err(e) => {
                *error = Some(e.to_string());
                explain.push(format!("the assignor throws {e}"));
                return vec![];
            }
        };
        explain.push(format!(
            "group epoch {epoch}: the coordinator runs the {} assignor ({:?} subscriptions) over members {}",
            self.strategy.name(),
            kind,
            members.iter().map(|m| m.id.as_str()).collect::<Vec<_>>().join(", ")
        ));
        for (m, list) in &target {
            explain.push(format!("target {m}: {}", show(list)));
        }
        // Drop partitions of deleted topics right away.
        for m in &mut self.members {
            let topics = &self.topics;
            m.owned.retain(|tp| {
                topics
                    .iter()
                    .any(|t| *t.name == *tp.topic && tp.partition < t.partitions)
            });
        }
        let mut phases = Vec::new();
        for step in 1..=10 {
            let owners = self.owners();
            let mut revoked = Vec::new();
            let mut added = Vec::new();
            let mut changed = false;
            let mut lines = Vec::new();
            let mut next: Vec<Vec<TopicPartition>> = Vec::new();
            for m in &self.members {
                let tgt = target.get(&m.spec.id).cloned().unwrap_or_default();
                let me = &m.spec.id;
                let r =
                    server::reconcile(&m.owned, &tgt, |tp| owners.get(tp).is_some_and(|o| o != me));
                lines.push(format!(
                    "  {}: {}{}{}{}",
                    m.spec.id,
                    r.state,
                    if r.pending_revocation.is_empty() {
                        String::new()
                    } else {
                        format!("; revokes {}", show(&r.pending_revocation))
                    },
                    if r.newly_assigned.is_empty() {
                        String::new()
                    } else {
                        format!("; receives {}", show(&r.newly_assigned))
                    },
                    if r.unreleased.is_empty() {
                        String::new()
                    } else {
                        format!("; waits for {}", show(&r.unreleased))
                    },
                ));
                revoked.extend(
                    r.pending_revocation
                        .iter()
                        .map(|tp| (tp.clone(), m.spec.id.clone())),
                );
                added.extend(
                    r.newly_assigned
                        .iter()
                        .map(|tp| (tp.clone(), m.spec.id.clone())),
                );
                changed |= !r.pending_revocation.is_empty() || !r.newly_assigned.is_empty();
                let mut now = r.assigned.clone();
                now.extend(r.newly_assigned.iter().cloned());
                next.push(now);
            }
            if !changed && step > 1 {
                break;
            }
            explain.push(format!("reconciliation step {step} (member epochs move to {epoch} once nothing is left to revoke):"));
            explain.extend(lines);
            for (m, now) in self.members.iter_mut().zip(next) {
                m.owned = now;
                m.generation = epoch;
            }
            phases.push(Phase {
                generation: epoch,
                assignment: self.current(),
                revoked,
                added,
            });
            if !changed {
                break;
            }
        }
        phases
    }
}
