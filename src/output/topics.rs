//! `kafkit topics --output json`: the JSON Lines events of `kafka-topics.sh`'s actions
//! (`docs/json.md`, "topics"). The text form is Kafka's own lines, printed by the binary.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::common::Uuid;
use crate::datadir::{Topic, TopicSource};

/// One JSON Lines object of `kafkit topics --output json`, in the order and with the fields
/// of its table in `docs/json.md`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TopicsEvent<'a> {
    /// `create` made the topic.
    Created {
        /// The topic name.
        topic: &'a str,
        /// Its new id.
        topic_id: Option<Uuid>,
        /// Its partition count.
        partitions: usize,
        /// Its replication factor.
        replication_factor: usize,
        /// Its config overrides, name → value.
        configs: &'a BTreeMap<String, String>,
    },
    /// `list`: one per topic, by name.
    Listed {
        /// The topic name.
        topic: &'a str,
        /// Whether it is one of Kafka's internal topics.
        internal: bool,
    },
    /// `describe`: a topic's line.
    Topic {
        /// The topic name.
        name: &'a str,
        /// Its id; `None` for a broker's topic without `partition.metadata`.
        topic_id: Option<Uuid>,
        /// Its partition count.
        partition_count: usize,
        /// Its replication factor.
        replication_factor: usize,
        /// Its config overrides, name → value.
        configs: &'a BTreeMap<String, String>,
        /// Whether it is one of Kafka's internal topics.
        internal: bool,
        /// Where its description comes from.
        source: TopicSource,
    },
    /// `describe`: one per partition shown.
    Partition {
        /// The topic name.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// The leader's broker id; `None` when no replica is on this broker.
        leader: Option<i32>,
        /// The replicas' broker ids, preferred leader first.
        replicas: &'a [i32],
        /// The in-sync replicas.
        isr: &'a [i32],
        /// The eligible leader replicas (KIP-966): none on one broker.
        elr: &'a [i32],
        /// The last known eligible leader replicas: none on one broker.
        last_known_elr: &'a [i32],
    },
    /// `alter`: one per altered topic.
    Altered {
        /// The topic name.
        topic: &'a str,
        /// Its new partition count.
        partitions: usize,
    },
    /// `delete`: one per deleted topic.
    Deleted {
        /// The topic name.
        topic: &'a str,
    },
    /// One of Kafka's warnings (a name that may collide in metric names, a deprecated config).
    Warning {
        /// Kafka's text.
        message: &'a str,
    },
}

impl<'a> TopicsEvent<'a> {
    /// `created` for a topic `create` made.
    pub fn created(topic: &'a Topic) -> Self {
        TopicsEvent::Created {
            topic: &topic.name,
            topic_id: topic.id,
            partitions: topic.partition_count(),
            replication_factor: topic.replication_factor(),
            configs: topic.configs.overrides(),
        }
    }

    /// `listed` for one topic of `list`.
    pub fn listed(topic: &'a Topic) -> Self {
        TopicsEvent::Listed {
            topic: &topic.name,
            internal: topic.is_internal(),
        }
    }

    /// `topic`, the topic line of `describe` (the zero id, which Kafka leaves out of its line,
    /// is `null`).
    pub fn described(topic: &'a Topic) -> Self {
        TopicsEvent::Topic {
            name: &topic.name,
            topic_id: topic.id.filter(|id| !id.is_zero()),
            partition_count: topic.partition_count(),
            replication_factor: topic.replication_factor(),
            configs: topic.configs.overrides(),
            internal: topic.is_internal(),
            source: topic.source,
        }
    }

    /// `altered` for a topic after `alter`.
    pub fn altered(topic: &'a Topic) -> Self {
        TopicsEvent::Altered {
            topic: &topic.name,
            partitions: topic.partition_count(),
        }
    }
}
