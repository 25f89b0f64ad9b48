//! Consumer groups: the coordinator's side of Kafka's group protocols.
//!
//! * [`classic`] runs one group of the classic protocol (JoinGroup, SyncGroup, Heartbeat,
//!   LeaveGroup) as Kafka's coordinator does, as a pure state machine over explicit time.

pub mod classic;
