//! Consumer groups as Kafka stores them: the records of `__consumer_offsets`, and the groups a
//! data directory holds.
//!
//! A group's coordinator keeps everything about the group in one partition of
//! `__consumer_offsets` (partition `abs(javaHash(group)) % 50`,
//! [`coordinator_partition`](crate::assign::java::coordinator_partition)): every offset commit
//! and, for classic groups, the group's metadata after each rebalance (generation, protocol,
//! leader, members with their subscriptions and assignments).
//!
//! * [`records`]: those records, typed, read and written byte for byte as brokers write them;
//! * [`protocol`]: the consumer protocol's subscription and assignment, which group metadata
//!   carries as bytes;
//! * [`state`]: the groups of a data directory, replayed from its `__consumer_offsets`
//!   partitions as a coordinator loads them (latest record per key, tombstones, transactional
//!   commits);
//! * [`describe`]: what `kafka-consumer-groups.sh --describe` shows of a group (rows, log ends,
//!   lag), as data; `output::groups` prints it;
//! * [`admin`]: what the admin tools ask a group's coordinator (describe, commit from outside
//!   the group, delete a group or some offsets), asked of the running one or of one hosted for
//!   the command;
//! * [`reset`]: the offsets `--reset-offsets` computes for a group (Kafka's scenarios, clamped
//!   to the partitions' logs);
//! * [`liveness`]: when each coordinator host was last alive, so that the members of a group
//!   that died with their host are read as expired once their sessions end;
//! * [`classic`]: the coordinator's side of the classic protocol (JoinGroup, SyncGroup,
//!   Heartbeat, LeaveGroup) for one group, as a pure state machine over explicit time.
//!
//! This layer sits beside `client`: it reads partitions through [`crate::log`] and
//! [`crate::datadir`], and its record bytes go through [`crate::record`].

#![deny(clippy::indexing_slicing)]

pub mod admin;
pub mod classic;
pub mod describe;
pub mod host;
pub mod liveness;
pub mod protocol;
pub mod records;
pub mod reset;
pub mod state;
mod wire;

pub use records::{
    CoordinatorRecord, GroupMetadataKey, GroupMetadataValue, MemberMetadata, Message,
    OffsetCommitKey, OffsetCommitValue, ReadError, RecordReadError, Versioned, WriteError,
};
pub use state::{CommittedOffset, Group, GroupError, GroupState, GroupType, Groups};
pub use wire::RawTaggedField;
