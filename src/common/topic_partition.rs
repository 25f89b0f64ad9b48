//! Kafka's `TopicPartition`: a topic name and a partition number.

use std::fmt;
use std::sync::Arc;

/// A partition of a topic, e.g. `orders-0`; ordered by topic name (bytes), then partition.
///
/// The name is shared (`Arc<str>`), as a Java `TopicPartition` holds a reference to its
/// `String`: a clone costs a count, not a copy, so an assignment of a million partitions holds
/// a few hundred names, not a million, and a writer's map of open logs copies no name.
///
/// With serde it is `{"topic": name, "partition": number}` (how a group member and the member
/// hosting its coordinator name partitions to each other).
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct TopicPartition {
    /// The topic name.
    pub topic: Arc<str>,
    /// The partition number.
    pub partition: i32,
}

impl TopicPartition {
    /// A topic partition. A `String` or `&str` name is copied once into the shared name; an
    /// `Arc<str>` is shared as it is.
    pub fn new(topic: impl Into<Arc<str>>, partition: i32) -> Self {
        TopicPartition {
            topic: topic.into(),
            partition,
        }
    }

    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.topic
    }
}

/// `TopicPartition.toString`: `topic-partition`.
impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_and_orders_as_kafka_names_them() {
        let a = TopicPartition::new("orders", 10);
        let b = TopicPartition::new(String::from("orders"), 9);
        let c = TopicPartition::new(Arc::<str>::from("orders-x"), 0);
        assert_eq!(a.to_string(), "orders-10");
        assert_eq!(a.topic(), "orders");
        assert!(b < a && a < c);
        let shared = a.clone();
        assert!(Arc::ptr_eq(&shared.topic, &a.topic));
    }
}
