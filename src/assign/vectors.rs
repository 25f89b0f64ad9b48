//! The assignor test-vector schema (`spec/vectors/assignors/README.md`) and its replay.
//!
//! A vector file lists rounds, each an explicit assign call (members in the leader's map
//! iteration order, with owned partitions, generations and user data), run in order on one
//! assignor instance, with Kafka's own answer. [`Replayer`] runs them through this crate one at
//! a time (so a caller can print a round and drop it before the next) and
//! [`RoundReplay::check`] compares member by member.
//!
//! Files can be large (Kafka's large sticky case has 2,000 members reporting a million owned
//! partitions): [`parse`] reads them into typed structs in one pass, and every partition's topic
//! name is shared (interned `Arc<str>`, as [`TopicPartition`] holds it) rather than allocated
//! once per partition.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use super::fast::{FxHashMap, FxHashSet};
use super::server::{self, id_from_name, ServerMember, ServerTopic, SubscriptionType};
use super::sticky::StickyAssignor;
use super::{range, roundrobin, AssignError, Assignment, Member, Strategy, Subscription};
use super::{TopicMeta, UserData};
use crate::common::{TopicPartition, Uuid};

/// Topic names seen by a [`parse`]: each is allocated once and shared.
type Names = FxHashMap<Box<str>, Arc<str>>;

thread_local! {
    /// The names of the [`parse`] running on this thread.
    static NAMES: RefCell<Names> = RefCell::new(Names::default());
    /// The last member's topic list, which the next member most likely repeats.
    static LAST_TOPICS: RefCell<Rc<[String]>> = RefCell::new(Rc::from(Vec::new()));
}

fn intern(names: &mut Names, name: &str) -> Arc<str> {
    if let Some(shared) = names.get(name) {
        return shared.clone();
    }
    let shared: Arc<str> = Arc::from(name);
    names.insert(Box::from(name), shared.clone());
    shared
}

/// A partition as `["topic", 3]`, its topic name shared with every other partition of the
/// topic in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TpJson(pub TopicPartition);

impl std::borrow::Borrow<TopicPartition> for TpJson {
    fn borrow(&self) -> &TopicPartition {
        &self.0
    }
}

/// Deserializes one `["topic", 3]` with the names at hand.
struct TpSeed<'n>(&'n mut Names);

impl<'de> de::DeserializeSeed<'de> for TpSeed<'_> {
    type Value = TpJson;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TpJson, D::Error> {
        d.deserialize_seq(self)
    }
}

/// A topic name, interned.
struct NameSeed<'n>(&'n mut Names);

impl<'de> de::DeserializeSeed<'de> for NameSeed<'_> {
    type Value = Arc<str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Arc<str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NameSeed<'_> {
    type Value = Arc<str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a topic name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Arc<str>, E> {
        Ok(intern(self.0, v))
    }
}

impl<'de> Visitor<'de> for TpSeed<'_> {
    type Value = TpJson;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a partition as [\"topic\", number]")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TpJson, A::Error> {
        let topic = seq
            .next_element_seed(NameSeed(self.0))?
            .ok_or_else(|| de::Error::invalid_length(0, &"a partition as [\"topic\", number]"))?;
        let partition: i32 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &"a partition as [\"topic\", number]"))?;
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(
                3,
                &"a partition as [\"topic\", number]",
            ));
        }
        Ok(TpJson(TopicPartition { topic, partition }))
    }
}

impl<'de> Deserialize<'de> for TpJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        NAMES.with(|names| {
            let mut names = names.take();
            let tp = de::DeserializeSeed::deserialize(TpSeed(&mut names), d);
            NAMES.with(|n| n.replace(names));
            tp
        })
    }
}

/// A list of partitions: the names are taken out of the thread's table once per list, not once
/// per partition.
fn tp_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TpJson>, D::Error> {
    struct List;
    impl<'de> Visitor<'de> for List {
        type Value = Vec<TpJson>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of partitions")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<TpJson>, A::Error> {
            let mut names = NAMES.with(RefCell::take);
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            let result = loop {
                match seq.next_element_seed(TpSeed(&mut names)) {
                    Ok(Some(tp)) => out.push(tp),
                    Ok(None) => break Ok(out),
                    Err(e) => break Err(e),
                }
            };
            NAMES.with(|n| n.replace(names));
            result
        }
    }
    d.deserialize_seq(List)
}

/// A member's topic list, shared with the previous member's when it is the same list.
fn shared_topics<'de, D: Deserializer<'de>>(d: D) -> Result<Rc<[String]>, D::Error> {
    /// One name, compared with the name at the same place in the previous list.
    struct Same<'a>(Option<&'a String>);
    impl<'de> de::DeserializeSeed<'de> for Same<'_> {
        type Value = Option<String>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
            d.deserialize_str(self)
        }
    }
    impl Visitor<'_> for Same<'_> {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a topic name")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<String>, E> {
            Ok(if self.0.is_some_and(|s| s == v) {
                None
            } else {
                Some(v.to_string())
            })
        }
    }
    struct List;
    impl<'de> Visitor<'de> for List {
        type Value = Rc<[String]>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of topic names")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rc<[String]>, A::Error> {
            let last = LAST_TOPICS.with(|l| l.borrow().clone());
            // `same` names so far equal the previous list's; `own` once one differs.
            let mut same = 0usize;
            let mut own: Option<Vec<String>> = None;
            loop {
                let i = same + own.as_ref().map_or(0, Vec::len);
                let prev = if own.is_none() { last.get(i) } else { None };
                match seq.next_element_seed(Same(prev))? {
                    None => break,
                    Some(None) => same += 1,
                    Some(Some(name)) => own
                        .get_or_insert_with(|| last.get(..same).unwrap_or_default().to_vec())
                        .push(name),
                }
            }
            let list: Rc<[String]> = match own {
                None if same == last.len() => return Ok(last),
                None => Rc::from(last.get(..same).unwrap_or_default()),
                Some(v) => Rc::from(v),
            };
            LAST_TOPICS.with(|l| l.replace(list.clone()));
            Ok(list)
        }
    }
    d.deserialize_seq(List)
}

fn tps(list: Vec<TpJson>) -> Vec<TopicPartition> {
    list.into_iter().map(|t| t.0).collect()
}

fn tps_ref(list: &[TpJson]) -> Vec<TopicPartition> {
    list.iter().map(|t| t.0.clone()).collect()
}

/// A whole vector file.
#[derive(Debug, Clone, Deserialize)]
pub struct VectorFile {
    /// The case id (file name without `.json`).
    #[serde(default)]
    pub id: String,
    /// `range`, `roundrobin`, `sticky`, `cooperative-sticky`, `server-uniform`, `server-range`.
    pub assignor: String,
    /// What the case shows.
    #[serde(default)]
    pub description: String,
    /// Test-only knobs.
    #[serde(default)]
    pub options: Options,
    /// The rounds, executed in order on one assignor instance.
    pub rounds: Vec<Round>,
}

/// `options` of a vector file.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Options {
    /// `AbstractPartitionAssignor.preferRackAwareLogic`.
    #[serde(default)]
    pub prefer_rack_aware_logic: bool,
}

/// One assign call.
#[derive(Debug, Clone, Deserialize)]
pub struct Round {
    /// Topic → partition count.
    pub topics: BTreeMap<String, i32>,
    /// Topic → replica racks per partition.
    #[serde(default)]
    pub partition_racks: BTreeMap<String, Vec<Vec<String>>>,
    /// Topic → Kafka topic id (server-side assignors).
    #[serde(default)]
    pub topic_ids: BTreeMap<String, Uuid>,
    /// `HOMOGENEOUS` or `HETEROGENEOUS` (server-side assignors).
    #[serde(default)]
    pub subscription_type: Option<String>,
    /// The members, in the map's iteration order.
    pub members: Vec<RoundMember>,
    /// Kafka's answer: member → partitions, in Kafka's list order.
    #[serde(default)]
    pub expected: Option<BTreeMap<String, Vec<TpJson>>>,
    /// Kafka Java's answer for a kafka-python case (the reference where they differ).
    #[serde(default)]
    pub kafka_java_result: Option<BTreeMap<String, Vec<TpJson>>>,
    /// The exception Kafka throws instead.
    #[serde(default)]
    pub expected_error: Option<String>,
    /// `partitionsTransferringOwnership` after the call: `"topic:p"` → member; `null` after the
    /// general path; absent when not recorded.
    #[serde(default, deserialize_with = "present")]
    pub expected_partitions_transferring_ownership: Option<Option<BTreeMap<String, String>>>,
    /// A remark (e.g. "cooperative follow-up rebalance").
    #[serde(default)]
    pub note: Option<String>,
}

fn present<'de, D>(d: D) -> Result<Option<Option<BTreeMap<String, String>>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Option::<BTreeMap<String, String>>::deserialize(d).map(Some)
}

/// One member of a round.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RoundMember {
    /// Member id.
    pub id: String,
    /// Subscribed topics (shared with the previous member's list when equal).
    #[serde(default, deserialize_with = "shared_topics")]
    pub topics: Rc<[String]>,
    /// `group.instance.id`.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// `client.rack`.
    #[serde(default)]
    pub rack: Option<String>,
    /// `Subscription.ownedPartitions`.
    #[serde(default, deserialize_with = "tp_list")]
    pub owned: Vec<TpJson>,
    /// `Subscription.generationId`.
    #[serde(default)]
    pub generation: Option<i32>,
    /// Decoded `userData`.
    #[serde(default)]
    pub user_data: Option<UserDataJson>,
    /// Server side: the current target assignment, `[topic, [partitions]]` in map order.
    #[serde(default)]
    pub assignment: Vec<(String, Vec<i32>)>,
}

/// Decoded user data.
#[derive(Debug, Clone, Deserialize)]
pub struct UserDataJson {
    /// `sticky` or `cooperative`.
    pub kind: String,
    /// Sticky: the previous assignment.
    #[serde(default, deserialize_with = "tp_list")]
    pub partitions: Vec<TpJson>,
    /// The generation.
    #[serde(default)]
    pub generation: Option<i32>,
}

fn to_assignment(map: &BTreeMap<String, Vec<TpJson>>) -> Assignment {
    map.iter().map(|(m, l)| (m.clone(), tps_ref(l))).collect()
}

fn user_data(u: UserDataJson) -> UserData {
    match u.kind.as_str() {
        "sticky" => UserData::Sticky {
            partitions: tps(u.partitions),
            generation: u.generation,
        },
        "cooperative" => UserData::Cooperative {
            generation: u.generation.unwrap_or(-1),
        },
        _ => UserData::Invalid,
    }
}

fn client_member(m: RoundMember) -> Member {
    Member {
        id: m.id,
        subscription: Subscription {
            topics: m.topics,
            owned: tps(m.owned),
            generation: m.generation,
            user_data: m.user_data.map(user_data),
            rack: m.rack,
            instance_id: m.instance_id,
        },
    }
}

/// What a client-side member held before the round: its owned partitions, else those of its
/// sticky user data.
fn member_before(s: &Subscription) -> Vec<TopicPartition> {
    match (&s.user_data, s.owned.is_empty()) {
        (Some(UserData::Sticky { partitions, .. }), true) => partitions.clone(),
        _ => s.owned.clone(),
    }
}

impl Round {
    /// The topics as client-side assignor metadata.
    pub fn topic_metas(&self) -> Vec<TopicMeta> {
        self.topics
            .iter()
            .map(|(name, &n)| TopicMeta {
                name: name.clone(),
                partitions: n,
                racks: self.partition_racks.get(name).cloned(),
            })
            .collect()
    }

    /// The members as client-side subscriptions, in map order.
    pub fn client_members(&self) -> Vec<Member> {
        self.members.iter().cloned().map(client_member).collect()
    }

    /// The members as client-side subscriptions, in map order, moved out of the round (which
    /// keeps their ids only).
    pub fn take_client_members(&mut self) -> Vec<Member> {
        self.members
            .iter_mut()
            .map(|m| {
                client_member(RoundMember {
                    id: m.id.clone(),
                    ..std::mem::take(m)
                })
            })
            .collect()
    }

    /// True when every member subscribes to the same topics and none has a rack: the sticky
    /// assignors then take their constrained path and `uniform` its homogeneous one, whose work
    /// grows with partitions + members rather than their product.
    pub fn is_uniform_without_racks(&self) -> bool {
        let mut members = self.members.iter();
        let Some(first) = members.next() else {
            return true;
        };
        if first.rack.is_some() {
            return false;
        }
        let set: FxHashSet<&str> = first.topics.iter().map(String::as_str).collect();
        members.all(|m| {
            m.rack.is_none()
                && (Rc::ptr_eq(&m.topics, &first.topics)
                    || m.topics == first.topics
                    || (m.topics.len() >= set.len()
                        && m.topics.iter().all(|t| set.contains(t.as_str()))
                        && m.topics
                            .iter()
                            .map(String::as_str)
                            .collect::<FxHashSet<_>>()
                            == set))
        })
    }

    /// The topics as the coordinator's metadata (ids from `topic_ids`, else derived from names).
    pub fn server_topics(&self) -> Vec<ServerTopic> {
        self.topics
            .iter()
            .map(|(name, &n)| ServerTopic {
                name: name.clone(),
                partitions: n,
                id: self
                    .topic_ids
                    .get(name)
                    .copied()
                    .unwrap_or_else(|| id_from_name(name)),
            })
            .collect()
    }

    /// The members as server-side members, in `memberIds()` order.
    pub fn server_members(&self) -> Vec<ServerMember> {
        self.members
            .iter()
            .map(|m| ServerMember {
                id: m.id.clone(),
                instance_id: m.instance_id.clone(),
                rack: m.rack.clone(),
                topics: m.topics.to_vec(),
                assignment: m.assignment.clone(),
            })
            .collect()
    }

    /// What each member held before the round: owned partitions (client side, falling back to
    /// sticky user data) or the current target (server side).
    pub fn before(&self) -> Assignment {
        self.members
            .iter()
            .map(|m| {
                let mut list = tps_ref(&m.owned);
                if list.is_empty() {
                    if let Some(u) = &m.user_data {
                        list = tps_ref(&u.partitions);
                    }
                }
                for (t, parts) in &m.assignment {
                    let t: Arc<str> = Arc::from(t.as_str());
                    list.extend(parts.iter().map(|&p| TopicPartition::new(t.clone(), p)));
                }
                (m.id.clone(), list)
            })
            .collect()
    }

    /// Kafka's answer: `kafka_java_result` when present (kafka-python cases), else `expected`.
    pub fn kafka_expected(&self) -> Option<Assignment> {
        self.kafka_expected_lists().map(to_assignment)
    }

    /// [`Round::kafka_expected`] as the file holds it.
    pub fn kafka_expected_lists(&self) -> Option<&BTreeMap<String, Vec<TpJson>>> {
        self.kafka_java_result.as_ref().or(self.expected.as_ref())
    }

    /// True when the file says what Kafka answers for this round (an assignment or an error).
    pub fn has_expectation(&self) -> bool {
        self.kafka_java_result.is_some() || self.expected.is_some() || self.expected_error.is_some()
    }
}

/// One replayed round.
#[derive(Debug, Clone)]
pub struct RoundReplay {
    /// The round's input (for the client-side assignors its members keep only their ids: the
    /// rest moved into [`RoundReplay::members`]).
    pub round: Round,
    /// Client-side assignors: the members as the assignor saw them (empty on the server side).
    pub members: Vec<Member>,
    /// This crate's answer.
    pub result: Result<Assignment, AssignError>,
    /// `partitionsTransferringOwnership` (sticky family): `None` after the general path.
    pub transferring: Option<Option<BTreeMap<TopicPartition, String>>>,
}

impl RoundReplay {
    /// What each client-side member held before the round, borrowed (`None` on the server side:
    /// see [`RoundReplay::before`]).
    pub fn before_borrowed(&self) -> Option<BTreeMap<&str, &[TopicPartition]>> {
        if self.members.is_empty() {
            return None;
        }
        Some(
            self.members
                .iter()
                .map(|m| {
                    let s = &m.subscription;
                    let list = match (&s.user_data, s.owned.is_empty()) {
                        (Some(UserData::Sticky { partitions, .. }), true) => partitions,
                        _ => &s.owned,
                    };
                    (m.id.as_str(), list.as_slice())
                })
                .collect(),
        )
    }

    /// What each member held before the round (see [`Round::before`]).
    pub fn before(&self) -> Assignment {
        if self.members.is_empty() {
            return self.round.before();
        }
        self.members
            .iter()
            .map(|m| (m.id.clone(), member_before(&m.subscription)))
            .collect()
    }

    /// Compares with Kafka's answer member by member; `Err` lists every difference.
    pub fn check(&self, server_side: bool) -> Result<(), Mismatch> {
        let mut problems = Vec::new();
        // Compared in place: a large round's lists are not copied.
        match (
            &self.result,
            self.round.kafka_expected_lists(),
            &self.round.expected_error,
        ) {
            (Err(e), _, Some(kind)) if e.kind() == kind => {}
            (Err(e), _, _) => problems.push(Difference::Threw(e.clone())),
            (Ok(_), _, Some(kind)) => problems.push(Difference::DidNotThrow(kind.clone())),
            (Ok(_), None, None) => problems.push(Difference::NoExpectation),
            (Ok(got), Some(want), None) => {
                let mut ids: Vec<&String> = got.keys().chain(want.keys()).collect();
                ids.sort();
                ids.dedup();
                for id in ids {
                    let mut g: Vec<&TopicPartition> =
                        got.get(id).map(|l| l.iter().collect()).unwrap_or_default();
                    let mut w: Vec<&TopicPartition> = want
                        .get(id)
                        .map(|l| l.iter().map(|t| &t.0).collect())
                        .unwrap_or_default();
                    if server_side {
                        g.sort();
                        w.sort();
                    }
                    if g != w {
                        problems.push(Difference::Member {
                            member: id.clone(),
                            got: show(&g),
                            want: show(&w),
                        });
                    }
                }
            }
        }
        if let (Some(want), Some(got)) = (
            &self.round.expected_partitions_transferring_ownership,
            &self.transferring,
        ) {
            let got: Option<BTreeMap<String, String>> = got.as_ref().map(|m| {
                m.iter()
                    .map(|(tp, c)| (format!("{}:{}", tp.topic, tp.partition), c.clone()))
                    .collect()
            });
            if &got != want {
                problems.push(Difference::Transferring {
                    got,
                    want: want.clone(),
                });
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Mismatch(problems))
        }
    }
}

/// How a replayed round differs from Kafka's answer: every difference found, in order
/// (displayed joined by `; `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", join(.0))]
pub struct Mismatch(pub Vec<Difference>);

fn join(differences: &[Difference]) -> String {
    let texts: Vec<String> = differences.iter().map(ToString::to_string).collect();
    texts.join("; ")
}

/// One difference between a replayed round and Kafka's answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Difference {
    /// This crate's assignor threw where Kafka's did not, or threw another exception.
    #[error("error {0}")]
    Threw(AssignError),
    /// Kafka throws this exception; this crate's assignor returned an assignment.
    #[error("expected {0}, got an assignment")]
    DidNotThrow(String),
    /// The round gives neither an assignment nor an exception to compare with.
    #[error("no expected result")]
    NoExpectation,
    /// A member's list differs (each shown as `[t-0,t-1]`, cut after 100 partitions).
    #[error("{member}: got {got} want {want}")]
    Member {
        /// The member id.
        member: String,
        /// This crate's list.
        got: String,
        /// Kafka's list.
        want: String,
    },
    /// `partitionsTransferringOwnership` differs (`"topic:p"` → member; `None` after the
    /// general path).
    #[error("partitionsTransferringOwnership: got {got:?} want {want:?}")]
    Transferring {
        /// This crate's map.
        got: Option<BTreeMap<String, String>>,
        /// Kafka's map.
        want: Option<BTreeMap<String, String>>,
    },
}

fn show(list: &[&TopicPartition]) -> String {
    /// A difference names this many partitions of a list at most (a list may hold millions).
    const SHOWN: usize = 100;
    let parts: Vec<String> = list.iter().take(SHOWN).map(|tp| tp.to_string()).collect();
    if list.len() > SHOWN {
        format!("[{},... ({} in all)]", parts.join(","), list.len())
    } else {
        format!("[{}]", parts.join(","))
    }
}

/// Why a vector file cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// Not JSON in the vector schema.
    #[error("not an assignor vector file: {0}")]
    Parse(#[from] serde_json::Error),
    /// An assignor this crate does not know.
    #[error("unknown assignor {0:?} (expected range, roundrobin, sticky, cooperative-sticky, server-uniform or server-range)")]
    UnknownAssignor(String),
}

/// Parses a vector file.
pub fn parse(text: &str) -> Result<VectorFile, VectorError> {
    let file = serde_json::from_str(text);
    NAMES.with(|names| names.borrow_mut().clear());
    LAST_TOPICS.with(|l| l.replace(Rc::from(Vec::new())));
    Ok(file?)
}

/// The strategy a vector file exercises.
pub fn strategy_of(file: &VectorFile) -> Result<Strategy, VectorError> {
    Strategy::parse(&file.assignor)
        .ok_or_else(|| VectorError::UnknownAssignor(file.assignor.clone()))
}

/// Replays rounds in order on one assignor instance (the sticky assignors keep
/// `maxGeneration` from one call to the next, as Kafka's object does).
#[derive(Debug, Clone)]
pub struct Replayer {
    strategy: Strategy,
    prefer: bool,
    sticky: StickyAssignor,
}

impl Replayer {
    /// A fresh assignor instance for the file's strategy and options.
    pub fn new(file: &VectorFile) -> Result<Self, VectorError> {
        let strategy = strategy_of(file)?;
        let prefer = file.options.prefer_rack_aware_logic;
        let mut sticky = match strategy {
            Strategy::CooperativeSticky => StickyAssignor::cooperative(),
            _ => StickyAssignor::eager(),
        };
        sticky.prefer_rack_aware = prefer;
        Ok(Self {
            strategy,
            prefer,
            sticky,
        })
    }

    /// Runs the next round.
    pub fn replay(&mut self, mut round: Round) -> RoundReplay {
        let prefer = self.prefer;
        let strategy = self.strategy;
        let mut members = Vec::new();
        let (result, transferring) = match strategy {
            Strategy::Range
            | Strategy::RoundRobin
            | Strategy::Sticky
            | Strategy::CooperativeSticky => {
                let topics = round.topic_metas();
                members = round.take_client_members();
                match strategy {
                    Strategy::Range => (Ok(range::assign(&topics, &members, prefer)), None),
                    Strategy::RoundRobin => (Ok(roundrobin::assign(&topics, &members)), None),
                    _ => match self.sticky.assign(&topics, &members) {
                        Ok(o) => (Ok(o.assignment), Some(o.transferring)),
                        Err(e) => (Err(e), None),
                    },
                }
            }
            Strategy::Uniform | Strategy::ServerRange => {
                let kind = round.subscription_type.as_deref().map(|s| {
                    if s.eq_ignore_ascii_case("HOMOGENEOUS") {
                        SubscriptionType::Homogeneous
                    } else {
                        SubscriptionType::Heterogeneous
                    }
                });
                let topics = round.server_topics();
                let server_members = round.server_members();
                let r = if strategy == Strategy::Uniform {
                    server::uniform(&topics, &server_members, kind)
                } else {
                    server::range(&topics, &server_members, kind)
                };
                (r, None)
            }
        };
        RoundReplay {
            round,
            members,
            result,
            transferring,
        }
    }
}

/// Replays every round of `file` on one assignor instance.
pub fn replay(file: &VectorFile) -> Result<Vec<RoundReplay>, VectorError> {
    let mut replayer = Replayer::new(file)?;
    Ok(file
        .rounds
        .iter()
        .map(|round| replayer.replay(round.clone()))
        .collect())
}
