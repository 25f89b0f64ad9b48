//! Kafka's consumer-group assignors and the rebalance simulator: pure functions over plain data.
//!
//! A consumer group shares the partitions of the topics its members subscribe to. On every
//! rebalance one party computes who gets what:
//!
//! * with the **classic protocol** the group *leader* (a consumer) runs a client-side assignor:
//!   [`range`](range::assign) (the default, with KIP-881 rack awareness),
//!   [`roundrobin`](roundrobin::assign), or the sticky family ([`sticky::StickyAssignor`]: eager
//!   `sticky` and `cooperative-sticky`);
//! * with the **new protocol** (KIP-848) the group coordinator runs a server-side assignor
//!   ([`server::uniform`] or [`server::range`]) and each member reconciles towards its target.
//!
//! Everything here is exact: results equal Kafka's member by member, including where only
//! `java.util.HashMap` iteration order decides (emulated in [`java`]). The reference is
//! `spec/kafka-assignors.md`; the proof is the replay of `spec/vectors/assignors/` ([`vectors`]).

use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

pub mod fast;
pub mod java;
pub mod limits;
pub mod props;
pub mod range;
pub mod roundrobin;
pub mod scenario;
pub mod server;
pub mod simulate;
pub mod sticky;
pub mod vectors;

/// The partition type of every assignor's input and output (Kafka's `TopicPartition`).
pub use crate::common::TopicPartition;

/// A topic as the assignor sees it in metadata: a name, a partition count and, optionally, the
/// racks of each partition's replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMeta {
    /// The topic name.
    pub name: String,
    /// The number of partitions (ids `0..partitions`).
    pub partitions: i32,
    /// The replica racks of each partition (index = partition id), when known.
    pub racks: Option<Vec<Vec<String>>>,
}

impl TopicMeta {
    /// A topic without rack information.
    pub fn new(name: impl Into<String>, partitions: i32) -> Self {
        Self {
            name: name.into(),
            partitions,
            racks: None,
        }
    }
}

/// The opaque `Subscription.userData`, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserData {
    /// `StickyAssignor` user data: the previous assignment and (schema V1) the generation.
    Sticky {
        /// The member's previous assignment.
        partitions: Vec<TopicPartition>,
        /// The generation (absent in schema V0).
        generation: Option<i32>,
    },
    /// `CooperativeStickyAssignor` user data: the generation of the last assignment.
    Cooperative {
        /// The generation.
        generation: i32,
    },
    /// Bytes the assignor cannot parse.
    Invalid,
}

/// What a member sends in JoinGroup: `ConsumerPartitionAssignor.Subscription`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subscription {
    /// Subscribed topics. Shared: in a large group most members list the same topics (a
    /// thousand members × a thousand topics would otherwise be a million names).
    pub topics: Rc<[String]>,
    /// `ownedPartitions` (protocol v1+).
    pub owned: Vec<TopicPartition>,
    /// `generationId` (protocol v2+).
    pub generation: Option<i32>,
    /// `userData`.
    pub user_data: Option<UserData>,
    /// `client.rack`.
    pub rack: Option<String>,
    /// `group.instance.id` (static membership).
    pub instance_id: Option<String>,
}

/// One member of the group as the leader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member id.
    pub id: String,
    /// Its subscription.
    pub subscription: Subscription,
}

/// Member id → assigned partitions, in the order the assignor produced them.
pub type Assignment = BTreeMap<String, Vec<TopicPartition>>;

/// Why an assignor could not produce an assignment (Kafka throws).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssignError {
    /// `IllegalStateException` in the sticky assignors.
    #[error("IllegalStateException: {0}")]
    IllegalState(String),
    /// `PartitionAssignorException` in the server-side assignors.
    #[error("PartitionAssignorException: {0}")]
    PartitionAssignor(String),
}

impl AssignError {
    /// The Java exception class name Kafka throws.
    pub fn kind(&self) -> &'static str {
        match self {
            AssignError::IllegalState(_) => "IllegalStateException",
            AssignError::PartitionAssignor(_) => "PartitionAssignorException",
        }
    }
}

/// The assignment strategies, by Kafka's short names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strategy {
    /// `RangeAssignor` (classic protocol, client side, eager).
    Range,
    /// `RoundRobinAssignor` (classic, eager).
    RoundRobin,
    /// `StickyAssignor` (classic, eager).
    Sticky,
    /// `CooperativeStickyAssignor` (classic, cooperative).
    CooperativeSticky,
    /// `UniformAssignor` (new consumer protocol, server side).
    Uniform,
    /// The group coordinator's `RangeAssignor` (new protocol, server side).
    ServerRange,
}

impl Strategy {
    /// Every strategy, in a fixed order.
    pub const ALL: [Strategy; 6] = [
        Strategy::Range,
        Strategy::RoundRobin,
        Strategy::Sticky,
        Strategy::CooperativeSticky,
        Strategy::Uniform,
        Strategy::ServerRange,
    ];

    /// The short name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Range => "range",
            Strategy::RoundRobin => "roundrobin",
            Strategy::Sticky => "sticky",
            Strategy::CooperativeSticky => "cooperative-sticky",
            Strategy::Uniform => "uniform",
            Strategy::ServerRange => "server-range",
        }
    }

    /// Kafka's class name.
    pub fn class_name(self) -> &'static str {
        match self {
            Strategy::Range => "org.apache.kafka.clients.consumer.RangeAssignor",
            Strategy::RoundRobin => "org.apache.kafka.clients.consumer.RoundRobinAssignor",
            Strategy::Sticky => "org.apache.kafka.clients.consumer.StickyAssignor",
            Strategy::CooperativeSticky => {
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
            }
            Strategy::Uniform => "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
            Strategy::ServerRange => "org.apache.kafka.coordinator.group.assignor.RangeAssignor",
        }
    }

    /// Parses a short name, an alias or a Kafka class name.
    pub fn parse(s: &str) -> Option<Strategy> {
        let t = s.trim();
        Strategy::ALL
            .into_iter()
            .find(|st| st.name() == t || st.class_name() == t)
            .or(match t {
                "round-robin" | "RoundRobinAssignor" => Some(Strategy::RoundRobin),
                "RangeAssignor" => Some(Strategy::Range),
                "StickyAssignor" => Some(Strategy::Sticky),
                "cooperative" | "CooperativeStickyAssignor" => Some(Strategy::CooperativeSticky),
                "UniformAssignor" | "server-uniform" => Some(Strategy::Uniform),
                _ => None,
            })
    }

    /// True for the cooperative (incremental) protocols: cooperative-sticky and both
    /// server-side assignors (whose members reconcile one partition release at a time).
    pub fn is_cooperative(self) -> bool {
        matches!(
            self,
            Strategy::CooperativeSticky | Strategy::Uniform | Strategy::ServerRange
        )
    }

    /// True for the new consumer protocol (KIP-848).
    pub fn is_server_side(self) -> bool {
        matches!(self, Strategy::Uniform | Strategy::ServerRange)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Orders members as `AbstractPartitionAssignor.MemberInfo.compareTo` does: both static → by
/// instance id; a static member before a dynamic one; otherwise by member id.
pub fn member_info_cmp(
    a_id: &str,
    a_instance: Option<&str>,
    b_id: &str,
    b_instance: Option<&str>,
) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a_instance, b_instance) {
        (Some(x), Some(y)) => java::compare_strings(x, y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => java::compare_strings(a_id, b_id),
    }
}
