//! Kafka's shared value types, as in Kafka's `org.apache.kafka.common` package: a
//! [`TopicPartition`] and a [`Uuid`]. A leaf module: it depends on no other part of the crate,
//! and every other part (data directory, logs, clients, assignors, output) names a partition
//! or an id with these.

mod topic_partition;
mod uuid;

pub use topic_partition::TopicPartition;
pub use uuid::{Uuid, UuidError};
