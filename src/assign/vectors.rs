//! The assignor test-vector schema (`spec/vectors/assignors/README.md`) and its replay.
//!
//! A vector file lists rounds, each an explicit assign call (members in the leader's map
//! iteration order, with owned partitions, generations and user data), run in order on one
//! assignor instance, with Kafka's own answer. [`replay`] runs them through this crate and
//! [`RoundReplay::check`] compares member by member.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::java::Uuid;
use super::server::{self, ServerMember, ServerTopic, SubscriptionType};
use super::sticky::StickyAssignor;
use super::{range, roundrobin, AssignError, Assignment, Member, Strategy, Subscription};
use super::{TopicMeta, TopicPartition, UserData};

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

/// A partition as `["topic", 3]`.
pub type TpJson = (String, i32);

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
    pub topic_ids: BTreeMap<String, String>,
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
#[derive(Debug, Clone, Deserialize)]
pub struct RoundMember {
    /// Member id.
    pub id: String,
    /// Subscribed topics.
    #[serde(default)]
    pub topics: Vec<String>,
    /// `group.instance.id`.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// `client.rack`.
    #[serde(default)]
    pub rack: Option<String>,
    /// `Subscription.ownedPartitions`.
    #[serde(default)]
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
    #[serde(default)]
    pub partitions: Vec<TpJson>,
    /// The generation.
    #[serde(default)]
    pub generation: Option<i32>,
}

fn tps(list: &[TpJson]) -> Vec<TopicPartition> {
    list.iter()
        .map(|(t, p)| TopicPartition::new(t.clone(), *p))
        .collect()
}

fn to_assignment(map: &BTreeMap<String, Vec<TpJson>>) -> Assignment {
    map.iter().map(|(m, l)| (m.clone(), tps(l))).collect()
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
        self.members
            .iter()
            .map(|m| Member {
                id: m.id.clone(),
                subscription: Subscription {
                    topics: m.topics.clone(),
                    owned: tps(&m.owned),
                    generation: m.generation,
                    user_data: m.user_data.as_ref().map(|u| match u.kind.as_str() {
                        "sticky" => UserData::Sticky {
                            partitions: tps(&u.partitions),
                            generation: u.generation,
                        },
                        "cooperative" => UserData::Cooperative {
                            generation: u.generation.unwrap_or(-1),
                        },
                        _ => UserData::Invalid,
                    }),
                    rack: m.rack.clone(),
                    instance_id: m.instance_id.clone(),
                },
            })
            .collect()
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
                    .and_then(|s| Uuid::parse(s))
                    .unwrap_or_else(|| Uuid::from_name(name)),
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
                topics: m.topics.clone(),
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
                let mut list = tps(&m.owned);
                if list.is_empty() {
                    if let Some(u) = &m.user_data {
                        list = tps(&u.partitions);
                    }
                }
                for (t, parts) in &m.assignment {
                    list.extend(parts.iter().map(|&p| TopicPartition::new(t.clone(), p)));
                }
                (m.id.clone(), list)
            })
            .collect()
    }

    /// Kafka's answer: `kafka_java_result` when present (kafka-python cases), else `expected`.
    pub fn kafka_expected(&self) -> Option<Assignment> {
        self.kafka_java_result
            .as_ref()
            .or(self.expected.as_ref())
            .map(to_assignment)
    }
}

/// One replayed round.
#[derive(Debug, Clone)]
pub struct RoundReplay {
    /// The round's input.
    pub round: Round,
    /// This crate's answer.
    pub result: Result<Assignment, AssignError>,
    /// `partitionsTransferringOwnership` (sticky family): `None` after the general path.
    pub transferring: Option<Option<BTreeMap<TopicPartition, String>>>,
}

impl RoundReplay {
    /// Compares with Kafka's answer member by member; `Err` describes every difference.
    pub fn check(&self, server_side: bool) -> Result<(), String> {
        let mut problems = Vec::new();
        match (
            &self.result,
            self.round.kafka_expected(),
            &self.round.expected_error,
        ) {
            (Err(e), _, Some(kind)) if e.kind() == kind => {}
            (Err(e), _, _) => problems.push(format!("error {e}")),
            (Ok(_), _, Some(kind)) => problems.push(format!("expected {kind}, got an assignment")),
            (Ok(_), None, None) => problems.push("no expected result".into()),
            (Ok(got), Some(want), None) => {
                let mut ids: Vec<&String> = got.keys().chain(want.keys()).collect();
                ids.sort();
                ids.dedup();
                for id in ids {
                    let mut g = got.get(id).cloned().unwrap_or_default();
                    let mut w = want.get(id).cloned().unwrap_or_default();
                    if server_side {
                        g.sort();
                        w.sort();
                    }
                    if g != w {
                        problems.push(format!("{id}: got {} want {}", show(&g), show(&w)));
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
                problems.push(format!(
                    "partitionsTransferringOwnership: got {got:?} want {want:?}"
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

fn show(list: &[TopicPartition]) -> String {
    let parts: Vec<String> = list.iter().map(|tp| tp.to_string()).collect();
    format!("[{}]", parts.join(","))
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
    Ok(serde_json::from_str(text)?)
}

/// The strategy a vector file exercises.
pub fn strategy_of(file: &VectorFile) -> Result<Strategy, VectorError> {
    Strategy::parse(&file.assignor)
        .ok_or_else(|| VectorError::UnknownAssignor(file.assignor.clone()))
}

/// Replays every round of `file` on one assignor instance.
pub fn replay(file: &VectorFile) -> Result<Vec<RoundReplay>, VectorError> {
    let strategy = strategy_of(file)?;
    let prefer = file.options.prefer_rack_aware_logic;
    let mut sticky = match strategy {
        Strategy::CooperativeSticky => StickyAssignor::cooperative(),
        _ => StickyAssignor::eager(),
    };
    sticky.prefer_rack_aware = prefer;
    let mut out = Vec::new();
    for round in &file.rounds {
        let (result, transferring) = match strategy {
            Strategy::Range => (
                Ok(range::assign(
                    &round.topic_metas(),
                    &round.client_members(),
                    prefer,
                )),
                None,
            ),
            Strategy::RoundRobin => (
                Ok(roundrobin::assign(
                    &round.topic_metas(),
                    &round.client_members(),
                )),
                None,
            ),
            Strategy::Sticky | Strategy::CooperativeSticky => {
                match sticky.assign(&round.topic_metas(), &round.client_members()) {
                    Ok(o) => (Ok(o.assignment), Some(o.transferring)),
                    Err(e) => (Err(e), None),
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
                let members = round.server_members();
                let r = if strategy == Strategy::Uniform {
                    server::uniform(&topics, &members, kind)
                } else {
                    server::range(&topics, &members, kind)
                };
                (r, None)
            }
        };
        out.push(RoundReplay {
            round: round.clone(),
            result,
            transferring,
        });
    }
    Ok(out)
}
