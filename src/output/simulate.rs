//! `kafkit simulate-assignment --output json`: the JSON Lines events of a simulated script and
//! of a replayed assignor-vector file (`docs/json.md`, "simulate-assignment"). The text form
//! (tables) is the binary's.
//!
//! A vector round can hold a million partitions (Kafka's large sticky case): every list is
//! serialized in place from the assignor's result, never copied into a JSON tree.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt::Display;

use serde::ser::{SerializeMap, SerializeSeq, SerializeTuple};
use serde::{Serialize, Serializer};

use crate::assign::simulate::{Balance, Move, Phase, RoundReport, Simulation};
use crate::assign::vectors::{Mismatch, RoundReplay};
use crate::assign::{AssignError, Strategy};
use crate::common::TopicPartition;

/// One JSON Lines object of `kafkit simulate-assignment --output json`, in the order and with
/// the fields of its table in `docs/json.md`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SimulateEvent<'a> {
    /// A round of a script (the initial join, then one per event) under one strategy.
    Round {
        /// The strategy's short name.
        strategy: &'static str,
        /// The round's number, from 1.
        round: usize,
        /// The event in `--then` syntax; `None` for the initial join.
        event: Option<&'a str>,
        /// Member → partitions at the end of the round, sorted.
        assignment: Lists<'a, TopicPartition>,
        /// Partitions whose owner changed.
        moves: Seq<'a, Move>,
        /// One per JoinGroup/SyncGroup generation, or per reconciliation step.
        phases: Seq<'a, Phase>,
        /// Partitions revoked in the round, all phases.
        revoked: usize,
        /// Partitions nobody consumed at some point in the round.
        unavailable: usize,
        /// The members' partition counts at the end.
        balance: BalanceJson,
        /// What members kept of what they owned.
        stickiness: Stickiness,
        /// Kafka's exception as `Class: message`, when the assignor throws.
        error: Option<&'a str>,
        /// The protocol trace; only with `--explain`.
        #[serde(skip_serializing_if = "Option::is_none")]
        explain: Option<&'a [String]>,
    },
    /// The totals of a script under one strategy, after its rounds.
    Summary {
        /// The strategy's short name.
        strategy: &'static str,
        /// The group id.
        group: &'a str,
        /// The `__consumer_offsets` partition of the group's coordinator.
        coordinator_partition: u32,
        /// `offsets.topic.num.partitions`.
        offsets_topic_partitions: u32,
        /// Rounds run.
        rounds: usize,
        /// Generations (classic) or reconciliation steps (new protocol), follow-ups included.
        rebalances: usize,
        /// Partition moves over all rounds.
        moves: usize,
        /// Partitions left unconsumed at some point, summed over the rounds.
        unavailable: usize,
        /// The balance at the end.
        final_balance: BalanceJson,
        /// Kept / previously owned over the rounds after the first.
        stickiness: f64,
        /// Rounds where the assignor threw.
        errors: usize,
    },
    /// A round of an assignor-vector file, replayed and compared with Kafka's answer.
    VectorRound {
        /// The round's number, from 1.
        round: usize,
        /// The strategy's short name.
        strategy: &'static str,
        /// Member → partitions in Kafka's list order; absent when the assignor throws.
        #[serde(skip_serializing_if = "Option::is_none")]
        assignment: Option<Lists<'a, TopicPartition>>,
        /// The exception's class, when the assignor throws.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'static str>,
        /// The exception as `Class: message`, when the assignor throws.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<Text<'a, AssignError>>,
        /// Kafka's answer, when the file gives one.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected: Option<Lists<'a, ExpectedPartition>>,
        /// The exception Kafka throws, when the file says so.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected_error: Option<&'a str>,
        /// `partitionsTransferringOwnership` after the round (sticky family, constrained path):
        /// `"topic-p"` → member, in partition order.
        #[serde(skip_serializing_if = "Option::is_none")]
        partitions_transferring_ownership: Option<Transferring<'a>>,
        /// Whether the round matches Kafka's answer; `None` when the file gives none.
        matches_kafka: Option<bool>,
        /// How it differs, when it does not match.
        #[serde(skip_serializing_if = "Option::is_none")]
        differences: Option<Text<'a, Mismatch>>,
    },
    /// The totals of a vector file, after its rounds.
    VectorSummary {
        /// The file's id.
        vector: &'a str,
        /// The strategy's short name.
        strategy: &'static str,
        /// Rounds replayed.
        rounds: usize,
        /// Rounds with an expected result.
        checked: usize,
        /// Of those, rounds that match it.
        matching: usize,
    },
}

impl<'a> SimulateEvent<'a> {
    /// `round` for one round of `sim`; `explain` adds the protocol trace.
    pub fn round(sim: &Simulation, r: &'a RoundReport, explain: bool) -> Self {
        SimulateEvent::Round {
            strategy: sim.strategy.name(),
            round: r.round,
            event: r.event.as_deref(),
            assignment: Lists(&r.assignment),
            moves: Seq(&r.moves),
            phases: Seq(&r.phases),
            revoked: r.phases.iter().map(|p| p.revoked.len()).sum(),
            unavailable: r.unavailable,
            balance: BalanceJson(r.balance),
            stickiness: Stickiness {
                kept: r.kept,
                previously_owned: r.previously_owned,
                share: r.stickiness(),
            },
            error: r.error.as_deref(),
            explain: explain.then_some(r.explain.as_slice()),
        }
    }

    /// `summary` for `sim`.
    pub fn summary(sim: &'a Simulation) -> Self {
        let s = &sim.summary;
        SimulateEvent::Summary {
            strategy: sim.strategy.name(),
            group: &sim.group,
            coordinator_partition: sim.coordinator_partition,
            offsets_topic_partitions: sim.offsets_topic_partitions,
            rounds: s.rounds,
            rebalances: s.rebalances,
            moves: s.moves,
            unavailable: s.unavailable,
            final_balance: BalanceJson(s.final_balance),
            stickiness: s.stickiness,
            errors: s.errors,
        }
    }

    /// `vector_round` for round `number` of a vector file; `check` is the comparison with
    /// Kafka's answer (`None`: the file gives none).
    pub fn vector_round(
        r: &'a RoundReplay,
        number: usize,
        strategy: Strategy,
        check: Option<&'a Result<(), Mismatch>>,
    ) -> Self {
        SimulateEvent::VectorRound {
            round: number,
            strategy: strategy.name(),
            assignment: r.result.as_ref().ok().map(Lists),
            error: r.result.as_ref().err().map(AssignError::kind),
            message: r.result.as_ref().err().map(Text),
            expected: r.round.kafka_expected_lists().map(Lists),
            expected_error: r.round.expected_error.as_deref(),
            partitions_transferring_ownership: r
                .transferring
                .as_ref()
                .and_then(Option::as_ref)
                .map(Transferring),
            matches_kafka: check.map(Result::is_ok),
            differences: check.and_then(|c| c.as_ref().err()).map(Text),
        }
    }
}

/// A value printed as its `Display` text.
#[derive(Debug)]
pub struct Text<'a, T>(pub &'a T);

impl<T: Display> Serialize for Text<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

/// A partition as `[topic, partition]`.
struct Partition<'a>(&'a TopicPartition);

impl Serialize for Partition<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut pair = serializer.serialize_tuple(2)?;
        pair.serialize_element(&*self.0.topic)?;
        pair.serialize_element(&self.0.partition)?;
        pair.end()
    }
}

/// A partition of a vector file's expected answer (as the file holds it).
pub type ExpectedPartition = crate::assign::vectors::TpJson;

/// Member → list of partitions (`[topic, partition]`), members in id order.
#[derive(Debug)]
pub struct Lists<'a, T>(pub &'a BTreeMap<String, Vec<T>>);

impl<T: Borrow<TopicPartition>> Serialize for Lists<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct List<'a, T>(&'a [T]);
        impl<T: Borrow<TopicPartition>> Serialize for List<'_, T> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.iter().map(|tp| Partition(tp.borrow())))
            }
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (member, list) in self.0 {
            map.serialize_entry(member, &List(list))?;
        }
        map.end()
    }
}

/// A list of moves or phases, each as its object.
#[derive(Debug)]
pub struct Seq<'a, T>(pub &'a [T]);

impl Serialize for Seq<'_, Move> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct MoveJson<'a> {
            partition: Partition<'a>,
            from: Option<&'a str>,
            to: Option<&'a str>,
        }
        serializer.collect_seq(self.0.iter().map(|m| MoveJson {
            partition: Partition(&m.partition),
            from: m.from.as_deref(),
            to: m.to.as_deref(),
        }))
    }
}

impl Serialize for Seq<'_, Phase> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// `[topic, partition, member]`.
        struct Owned<'a>(&'a [(TopicPartition, String)]);
        impl Serialize for Owned<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for (tp, member) in self.0 {
                    seq.serialize_element(&(&*tp.topic, tp.partition, member))?;
                }
                seq.end()
            }
        }
        #[derive(Serialize)]
        struct PhaseJson<'a> {
            generation: i32,
            revoked: Owned<'a>,
            assigned: Owned<'a>,
            assignment: Lists<'a, TopicPartition>,
        }
        serializer.collect_seq(self.0.iter().map(|p| PhaseJson {
            generation: p.generation,
            revoked: Owned(&p.revoked),
            assigned: Owned(&p.added),
            assignment: Lists(&p.assignment),
        }))
    }
}

/// An assignment's balance: `{"min", "max", "ideal_min", "ideal_max"}`.
#[derive(Debug)]
pub struct BalanceJson(pub Balance);

impl Serialize for BalanceJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields {
            min: usize,
            max: usize,
            ideal_min: usize,
            ideal_max: usize,
        }
        let b = self.0;
        Fields {
            min: b.min,
            max: b.max,
            ideal_min: b.ideal_min,
            ideal_max: b.ideal_max,
        }
        .serialize(serializer)
    }
}

/// What members kept: `{"kept", "previously_owned", "share"}`.
#[derive(Debug, Serialize)]
pub struct Stickiness {
    /// Partitions the same member owns after the round.
    pub kept: usize,
    /// Partitions owned at the start by members still present.
    pub previously_owned: usize,
    /// `kept / previously_owned` (1.0 when nothing was owned).
    pub share: f64,
}

/// `partitionsTransferringOwnership`: `"topic-p"` → member.
#[derive(Debug)]
pub struct Transferring<'a>(pub &'a BTreeMap<TopicPartition, String>);

impl Serialize for Transferring<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (tp, member) in self.0 {
            map.serialize_entry(&Text(tp), member)?;
        }
        map.end()
    }
}
