//! The JSON Lines events of `kafkit reassign-partitions` and `kafkit leader-election`
//! (`docs/json.md`, "reassign-partitions" and "leader-election").

use serde::Serialize;

/// One JSON Lines object of `kafkit reassign-partitions --output json`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReassignEvent<'a> {
    /// A partition's replicas now (`--generate`, `--execute`: Kafka's "Current partition
    /// replica assignment").
    Current {
        /// The topic.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// Its replicas.
        replicas: &'a [i32],
    },
    /// A partition's proposed replicas (`--generate`).
    Proposed {
        /// The topic.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// The proposed replicas.
        replicas: &'a [i32],
    },
    /// A partition's reassignment (`--execute`: what was done; `--verify`: where it stands).
    Reassignment {
        /// The topic.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// `completed`, `in_progress`, or (`--verify`) `differs`: no reassignment in
        /// progress, but other replicas than the target.
        state: &'static str,
        /// Its replicas now (empty: no such partition).
        replicas: &'a [i32],
        /// The target replicas.
        target: &'a [i32],
    },
}

/// One JSON Lines object of `kafkit leader-election --output json`: one per partition answered.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ElectionEvent<'a> {
    /// A partition's election.
    Election {
        /// The topic.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// `PREFERRED` or `UNCLEAN`.
        election_type: &'static str,
        /// Kafka's error name (`ELECTION_NOT_NEEDED`, `PREFERRED_LEADER_NOT_AVAILABLE`, ...),
        /// or `null` when the leader was elected.
        error: Option<&'static str>,
        /// Kafka's error text, or `null`.
        message: Option<String>,
    },
}
