//! What `topics` asks of a cluster, as Kafka's `Admin` asks it: topics and their partitions
//! from Metadata, config overrides from DescribeConfigs, CreateTopics and DeleteTopics to the
//! controller.

use kafka_protocol::messages::create_partitions_request::{
    CreatePartitionsAssignment, CreatePartitionsTopic,
};
use kafka_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use kafka_protocol::messages::delete_topics_request::DeleteTopicState;
use kafka_protocol::messages::{
    BrokerId, CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use crate::common::Uuid;

use super::cluster::Cluster;
use super::configs::ConfigResource;
use super::errors::KafkaError;
use super::NetError;

/// A topic as a cluster's metadata describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicDescription {
    /// The name.
    pub name: String,
    /// The id (zero when the broker has none).
    pub id: Uuid,
    /// Whether the broker calls it internal.
    pub internal: bool,
    /// Its partitions, by number.
    pub partitions: Vec<PartitionDescription>,
}

/// A partition's leader, replicas and in-sync replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionDescription {
    /// The partition number.
    pub partition: i32,
    /// The leader, `None` when there is none.
    pub leader: Option<i32>,
    /// The replicas.
    pub replicas: Vec<i32>,
    /// The in-sync replicas.
    pub isr: Vec<i32>,
    /// The eligible leader replicas (KIP-966); empty where the source has none.
    pub elr: Vec<i32>,
    /// The last known eligible leader replicas (KIP-966); empty where the source has none.
    pub last_known_elr: Vec<i32>,
}

/// A topic to create (`-1`: the broker's default).
#[derive(Debug, Clone, Default)]
pub struct CreateTopic {
    /// The name.
    pub name: String,
    /// The partition count, or -1.
    pub partitions: i32,
    /// The replication factor, or -1.
    pub replication_factor: i16,
    /// Replicas by partition (partition 0 first), instead of the two counts.
    pub assignment: Option<Vec<Vec<i32>>>,
    /// Config overrides.
    pub configs: Vec<(String, String)>,
}

/// A per-topic answer's error code and message as a result.
fn answered(code: i16, message: Option<&StrBytes>) -> Result<(), NetError> {
    match KafkaError::from_code(code, message.map(StrBytes::as_str)) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

fn name(s: &str) -> TopicName {
    TopicName(StrBytes::from_string(s.to_string()))
}

impl Cluster {
    /// Every topic (internal ones too), sorted by name: Kafka's `listTopics` and
    /// `describeTopics`, from one Metadata request.
    pub fn describe_topics(&mut self) -> Result<Vec<TopicDescription>, NetError> {
        let response = self.with_retries(|c| c.metadata(None, false, "listTopics"))?;
        let mut out = Vec::new();
        for topic in response.topics {
            let Some(topic_name) = topic.name else {
                continue;
            };
            if let Some(e) = KafkaError::from_code(topic.error_code, None) {
                if e.is_unknown_topic() {
                    continue;
                }
                return Err(e.into());
            }
            let mut partitions: Vec<PartitionDescription> = topic
                .partitions
                .iter()
                .map(|p| PartitionDescription {
                    partition: p.partition_index,
                    leader: Some(p.leader_id.0).filter(|l| *l >= 0),
                    replicas: p.replica_nodes.iter().map(|b| b.0).collect(),
                    isr: p.isr_nodes.iter().map(|b| b.0).collect(),
                    // Metadata answers carry no ELR (DescribeTopicPartitions does).
                    elr: Vec::new(),
                    last_known_elr: Vec::new(),
                })
                .collect();
            partitions.sort_by_key(|p| p.partition);
            out.push(TopicDescription {
                name: topic_name.0.as_str().to_string(),
                id: Uuid(*topic.topic_id.as_bytes()),
                internal: topic.is_internal,
                partitions,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// A topic's config overrides (DescribeConfigs, the entries whose source is the topic's
    /// own config), sorted by name.
    pub fn topic_configs(&mut self, topic: &str) -> Result<Vec<(String, String)>, NetError> {
        let resource = ConfigResource::Topic(topic.to_string());
        Ok(self
            .describe_configs(&resource, false)?
            .into_iter()
            .filter(|c| c.source == resource.dynamic_source() && !c.sensitive)
            .map(|c| (c.name, c.value))
            .collect())
    }

    /// Creates a topic on the controller; the broker's error (`Topic 'x' already exists.`)
    /// comes back as it is.
    pub fn create_topic(&mut self, topic: &CreateTopic) -> Result<(), NetError> {
        let mut creatable = CreatableTopic::default()
            .with_name(name(&topic.name))
            .with_num_partitions(topic.partitions)
            .with_replication_factor(topic.replication_factor)
            .with_configs(
                topic
                    .configs
                    .iter()
                    .map(|(k, v)| {
                        CreatableTopicConfig::default()
                            .with_name(StrBytes::from_string(k.clone()))
                            .with_value(Some(StrBytes::from_string(v.clone())))
                    })
                    .collect(),
            );
        if let Some(assignment) = &topic.assignment {
            creatable = creatable
                .with_num_partitions(-1)
                .with_replication_factor(-1)
                .with_assignments(
                    assignment
                        .iter()
                        .zip(0..)
                        .map(|(brokers, p)| {
                            CreatableReplicaAssignment::default()
                                .with_partition_index(p)
                                .with_broker_ids(brokers.iter().map(|b| BrokerId(*b)).collect())
                        })
                        .collect(),
                );
        }
        let timeout = i32::try_from(self.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let request = CreateTopicsRequest::default()
            .with_topics(vec![creatable])
            .with_timeout_ms(timeout);
        let response = self.with_retries(|c| {
            if c.controller("createTopics").is_err() {
                c.metadata(Some(&[]), false, "createTopics")?;
            }
            c.controller("createTopics")?.call(&request)
        })?;
        response
            .topics
            .iter()
            .try_for_each(|r| answered(r.error_code, r.error_message.as_ref()))
    }

    /// Deletes a topic on the controller.
    pub fn delete_topic(&mut self, topic: &str) -> Result<(), NetError> {
        let timeout = i32::try_from(self.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let response = self.with_retries(|c| {
            let conn = c.controller("deleteTopics")?;
            // v6 names topics in `topics` (by name or id), earlier versions in `topic_names`.
            let request = if conn.version(kafka_protocol::messages::ApiKey::DeleteTopics)? >= 6 {
                DeleteTopicsRequest::default().with_topics(vec![
                    DeleteTopicState::default().with_name(Some(name(topic)))
                ])
            } else {
                DeleteTopicsRequest::default().with_topic_names(vec![name(topic)])
            };
            conn.call(&request.with_timeout_ms(timeout))
        })?;
        response
            .responses
            .iter()
            .try_for_each(|r| answered(r.error_code, r.error_message.as_ref()))
    }

    /// Raises `topic`'s partition count to `count` on the controller (CreatePartitions), the
    /// new partitions' replicas given by `assignment` (new partitions only, in order) or
    /// placed by the controller. A broker without the API is [`NetError::UnsupportedApi`]
    /// (Kafka's `The node does not support CREATE_PARTITIONS`); its refusal (fewer
    /// partitions than now) comes back as it is.
    pub fn create_partitions(
        &mut self,
        topic: &str,
        count: i32,
        assignment: Option<&[Vec<i32>]>,
    ) -> Result<(), NetError> {
        let timeout = i32::try_from(self.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let request = CreatePartitionsRequest::default()
            .with_topics(vec![CreatePartitionsTopic::default()
                .with_name(name(topic))
                .with_count(count)
                .with_assignments(assignment.map(|a| {
                    a.iter()
                        .map(|brokers| {
                            CreatePartitionsAssignment::default()
                                .with_broker_ids(brokers.iter().map(|b| BrokerId(*b)).collect())
                        })
                        .collect()
                }))])
            .with_timeout_ms(timeout);
        let response = self.with_retries(|c| {
            if c.controller("createPartitions").is_err() {
                c.metadata(Some(&[]), false, "createPartitions")?;
            }
            c.controller("createPartitions")?.call(&request)
        })?;
        response
            .results
            .iter()
            .try_for_each(|r| answered(r.error_code, r.error_message.as_ref()))
    }
}
