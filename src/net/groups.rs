//! What `consumer-groups` asks of a cluster, as Kafka's `Admin` asks it: ListGroups of every
//! broker, then per group FindCoordinator, DescribeGroups and OffsetFetch (or DeleteGroups,
//! OffsetCommit from outside the group for `--reset-offsets --execute`, OffsetDelete) to its
//! coordinator. The answers fill the same [`Group`] values a data directory's
//! `__consumer_offsets` replay gives, so the printers (`output::groups`) are one for both;
//! `--reset-offsets` plans with the directory's [`Planner`](crate::group::reset::Planner)
//! over [`ClusterOffsets`] (ListOffsets).
//!
//! What the broker does not say is left at what a group with only offsets has: DescribeGroups
//! carries no generation, leader, timeouts or commit times.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kafka_protocol::messages::offset_delete_request::{
    OffsetDeleteRequestPartition, OffsetDeleteRequestTopic,
};
use kafka_protocol::messages::{
    ApiKey, DeleteGroupsRequest, DescribeGroupsRequest, ListGroupsRequest, OffsetDeleteRequest,
    TopicName,
};
use kafka_protocol::protocol::StrBytes;

use crate::assign::java;
use crate::client::offsets::OffsetSpec;
use crate::common::TopicPartition;
use crate::group::admin::{AdminError, CommitOutcome, GroupSummary, OffsetDeletion};
use crate::group::describe::Coordinator;
use crate::group::host::{PartitionOffset, OFFSETS_TOPIC_PARTITIONS};
use crate::group::reset::{LogOffsets, Notice, ResetError};
use crate::group::{CommittedOffset, Group, GroupState, GroupType, MemberMetadata};
use crate::net::offsets::ListedOffset;

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::group::{find_coordinator, group_id, offset_commit, offset_fetch};
use super::NetError;

/// A group as ListGroups names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedGroup {
    /// The group id.
    pub id: String,
    /// Its protocol type (`consumer`; empty for a group with only offsets).
    pub protocol_type: String,
}

impl Cluster {
    /// Every group of every broker (ListGroups to each broker of the metadata), sorted by id.
    pub fn list_groups(&mut self) -> Result<Vec<ListedGroup>, NetError> {
        self.with_retries(|c| c.metadata(Some(&[]), false, "listGroups"))?;
        let nodes = self.broker_ids();
        let mut out: BTreeMap<String, ListedGroup> = BTreeMap::new();
        for node in nodes {
            let response =
                self.with_retries(|c| c.node(node)?.call(&ListGroupsRequest::default()))?;
            if let Some(e) = KafkaError::from_code(response.error_code, None) {
                return Err(e.into());
            }
            for g in response.groups {
                let id = g.group_id.0.to_string();
                out.insert(
                    id.clone(),
                    ListedGroup {
                        id,
                        protocol_type: g.protocol_type.to_string(),
                    },
                );
            }
        }
        Ok(out.into_values().collect())
    }

    /// A group as its coordinator describes it (DescribeGroups, then OffsetFetch of every
    /// committed partition), with the coordinator; `None` for a group the coordinator does
    /// not know (Kafka's `Dead` with no offsets).
    pub fn describe_group(&mut self, id: &str) -> Result<(Option<Group>, Coordinator), NetError> {
        let coordinator = find_coordinator(self, id)?;
        let node = coordinator.id;
        let request = DescribeGroupsRequest::default().with_groups(vec![group_id(id)]);
        let response = self.with_retries(|c| c.node(node)?.call(&request))?;
        let Some(described) = response.groups.into_iter().next() else {
            return Ok((None, coordinator));
        };
        if let Some(e) = KafkaError::from_code(
            described.error_code,
            described.error_message.as_ref().map(|m| m.as_str()),
        ) {
            if e.code != 69 {
                return Err(e.into());
            }
        }
        let offsets = match offset_fetch(self, node, id, &[]) {
            // Tansu 0.6 answers an OffsetFetch of every partition (topics null) with a null
            // array where the schema has none: ask for every partition of every topic.
            Err(NetError::Protocol { .. }) => {
                let all: Vec<TopicPartition> = self
                    .describe_topics()?
                    .into_iter()
                    .flat_map(|t| {
                        let name: std::sync::Arc<str> = t.name.into();
                        t.partitions
                            .into_iter()
                            .map(move |p| TopicPartition::new(name.clone(), p.partition))
                    })
                    .collect();
                if all.is_empty() {
                    Ok(Vec::new())
                } else {
                    offset_fetch(self, node, id, &all)?
                }
            }
            other => other?,
        }
        .map_err(|r| r.into_error())?;
        let state = GroupState::parse(described.group_state.as_str());
        let offsets: BTreeMap<TopicPartition, CommittedOffset> = offsets
            .into_iter()
            .filter(|o| o.offset >= 0)
            .map(|o| {
                (
                    o.partition,
                    CommittedOffset {
                        offset: o.offset,
                        leader_epoch: (o.leader_epoch >= 0).then_some(o.leader_epoch),
                        metadata: o.metadata,
                        commit_timestamp: -1,
                        expire_timestamp: None,
                        record_offset: -1,
                    },
                )
            })
            .collect();
        if (state == GroupState::Dead || described.error_code == 69) && offsets.is_empty() {
            return Ok((None, coordinator));
        }
        let partition = java::coordinator_partition(id, OFFSETS_TOPIC_PARTITIONS);
        let protocol = Some(described.protocol_data.to_string()).filter(|p| !p.is_empty());
        let mut members: Vec<MemberMetadata> = described
            .members
            .into_iter()
            .map(|m| MemberMetadata {
                member_id: m.member_id.to_string(),
                group_instance_id: m.group_instance_id.map(|s| s.to_string()),
                client_id: m.client_id.to_string(),
                client_host: m.client_host.to_string(),
                rebalance_timeout: -1,
                session_timeout: -1,
                subscription: m.member_metadata.to_vec(),
                assignment: m.member_assignment.to_vec(),
                unknown_tagged_fields: Vec::new(),
            })
            .collect();
        members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
        let group = Group {
            id: id.to_string(),
            partition: i32::try_from(partition).unwrap_or(0),
            state: if state == GroupState::Dead {
                GroupState::Empty
            } else {
                state
            },
            group_type: GroupType::Classic,
            protocol_type: described.protocol_type.to_string(),
            generation: 0,
            protocol,
            leader: None,
            current_state_timestamp: None,
            members,
            offsets,
            metadata_version: None,
        };
        Ok((Some(group), coordinator))
    }

    /// Deletes `id` (DeleteGroups to its coordinator): `Some` error when the coordinator
    /// refused as Kafka's tool reports it (the group does not exist, or has members).
    pub fn delete_group(&mut self, id: &str) -> Result<Option<AdminError>, NetError> {
        let node = find_coordinator(self, id)?.id;
        let request = DeleteGroupsRequest::default().with_groups_names(vec![group_id(id)]);
        let response = self.with_retries(|c| c.node(node)?.call(&request))?;
        let code = response
            .results
            .iter()
            .find(|r| r.group_id.0.as_str() == id)
            .map_or(0, |r| r.error_code);
        match code {
            0 => Ok(None),
            69 => Ok(Some(AdminError::GroupIdNotFound)),
            68 => Ok(Some(AdminError::NonEmptyGroup)),
            code => Err(KafkaError {
                code,
                message: None,
            }
            .into()),
        }
    }
}

/// A cluster's partitions as a reset [`Planner`](crate::group::reset::Planner) reads them:
/// ListOffsets to each partition's leader, the partitions a topic has from Metadata (asked
/// once a topic), as Kafka's `ConsumerGroupCommand` asks its admin client; what a plan will
/// ask is asked ahead, one ListOffsets per leader and timestamp
/// ([`LogOffsets::prefetch`]).
#[derive(Debug)]
pub struct ClusterOffsets<'c> {
    cluster: &'c mut Cluster,
    /// The partitions of the topics asked about so far.
    partitions: BTreeSet<TopicPartition>,
    topics: BTreeSet<String>,
    /// Answers asked ahead, by partition and ListOffsets timestamp.
    answers: HashMap<(TopicPartition, i64), ListedOffset>,
}

impl<'c> ClusterOffsets<'c> {
    /// The partitions of the cluster `cluster` reaches.
    pub fn new(cluster: &'c mut Cluster) -> Self {
        ClusterOffsets {
            cluster,
            partitions: BTreeSet::new(),
            topics: BTreeSet::new(),
            answers: HashMap::new(),
        }
    }

    /// Learns the partitions of `topic` (once a topic).
    fn learn(&mut self, topic: &str) -> Result<(), ResetError> {
        if self.topics.contains(topic) {
            return Ok(());
        }
        let leaders = self
            .cluster
            .with_retries(|c| c.leaders(&[topic], false, "listOffsets"))
            .map_err(|e| ResetError::Listing(Box::new(e)))?;
        self.partitions.extend(leaders.into_keys());
        self.topics.insert(topic.to_string());
        Ok(())
    }

    /// ListOffsets of `tp` at `timestamp` (the answer asked ahead, if there is one): `None`
    /// when no record answers it.
    fn offset(&mut self, tp: &TopicPartition, timestamp: i64) -> Result<Option<i64>, ResetError> {
        let listing = |e: NetError| ResetError::Listing(Box::new(e));
        self.learn(tp.topic())?;
        if !self.partitions.contains(tp) {
            return Err(ResetError::UnknownPartition(tp.clone()));
        }
        let answer = match self.answers.get(&(tp.clone(), timestamp)) {
            Some(answer) => Some(answer.clone()),
            None => self
                .cluster
                .list_offsets(std::slice::from_ref(tp), timestamp)
                .map_err(listing)?
                .remove(tp),
        };
        match answer {
            Some(Ok(offset)) => Ok(offset),
            Some(Err(e)) if e.is_unknown_topic() => Err(ResetError::UnknownPartition(tp.clone())),
            Some(Err(e)) => Err(listing(e.into())),
            None => Err(ResetError::UnknownPartition(tp.clone())),
        }
    }
}

impl LogOffsets for ClusterOffsets<'_> {
    fn list(
        &mut self,
        tp: &TopicPartition,
        spec: OffsetSpec,
        _notices: &mut Vec<Notice>,
    ) -> Result<Option<i64>, ResetError> {
        self.offset(tp, spec.kafka_timestamp())
    }

    fn range(&mut self, tp: &TopicPartition) -> Result<(i64, i64), ResetError> {
        let mut bound = |spec: OffsetSpec| {
            self.offset(tp, spec.kafka_timestamp())?
                .ok_or_else(|| ResetError::UnknownPartition(tp.clone()))
        };
        let start = bound(OffsetSpec::Earliest)?;
        let end = bound(OffsetSpec::Latest)?;
        Ok((start, end))
    }

    /// Asks ahead only what can be answered: a topic or a request that fails here is asked
    /// again partition by partition, which reports it as before.
    fn prefetch(
        &mut self,
        partitions: &[TopicPartition],
        specs: &[OffsetSpec],
    ) -> Result<(), ResetError> {
        let mut topics: Vec<&str> = partitions.iter().map(TopicPartition::topic).collect();
        topics.sort_unstable();
        topics.dedup();
        for topic in topics {
            let _ = self.learn(topic);
        }
        let known: Vec<TopicPartition> = partitions
            .iter()
            .filter(|tp| self.partitions.contains(*tp))
            .cloned()
            .collect();
        if known.len() < 2 {
            return Ok(());
        }
        for spec in specs {
            let timestamp = spec.kafka_timestamp();
            if let Ok(answers) = self.cluster.list_offsets(&known, timestamp) {
                for (tp, answer) in answers.into_iter().filter(|(_, a)| a.is_ok()) {
                    self.answers.insert((tp, timestamp), answer);
                }
            }
        }
        Ok(())
    }
}

impl Cluster {
    /// Commits `offsets` for `group` from outside it, as Kafka's admin client
    /// `alterConsumerGroupOffsets` does (OffsetCommit to its coordinator with no member id
    /// and generation -1); a coordinator that refuses because the group has members
    /// (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS) is
    /// [`CommitOutcome::Active`], with the group as it describes it then.
    pub fn commit_offsets(
        &mut self,
        group: &str,
        offsets: &[(TopicPartition, i64)],
    ) -> Result<CommitOutcome, NetError> {
        let node = find_coordinator(self, group)?.id;
        let offsets: Vec<PartitionOffset> = offsets
            .iter()
            .map(|(tp, offset)| PartitionOffset::new(tp.clone(), *offset))
            .collect();
        let code = self.with_retries(|c| offset_commit(c, node, group, "", -1, &offsets))?;
        match code {
            0 => Ok(CommitOutcome::Committed),
            22 | 25 | 27 => {
                let (described, _) = self.describe_group(group)?;
                Ok(CommitOutcome::Active(GroupSummary {
                    state: described
                        .as_ref()
                        .map_or(GroupState::Dead, |g| g.state)
                        .name()
                        .to_string(),
                    protocol_type: described
                        .as_ref()
                        .map(|g| g.protocol_type.clone())
                        .filter(|p| !p.is_empty()),
                    members: described.as_ref().map_or(0, |g| g.members.len()),
                    subscribed: None,
                }))
            }
            code => Err(KafkaError {
                code,
                message: None,
            }
            .into()),
        }
    }

    /// Deletes `group`'s committed offsets of `partitions` (OffsetDelete, api key 47, to its
    /// coordinator): each partition's result, or the group's error. A broker without
    /// OffsetDelete in its ApiVersions is [`AdminError::OffsetDeleteUnsupported`], the
    /// admin client's `UnsupportedVersionException`, for the whole request.
    pub fn delete_offsets(
        &mut self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<OffsetDeletion, NetError> {
        let node = find_coordinator(self, group)?.id;
        match self.node(node)?.version(ApiKey::OffsetDelete) {
            Err(NetError::UnsupportedApi { .. }) => {
                return Ok(Err(AdminError::OffsetDeleteUnsupported))
            }
            other => other?,
        };
        let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for tp in partitions {
            topics.entry(tp.topic()).or_default().push(tp.partition);
        }
        let request = OffsetDeleteRequest::default()
            .with_group_id(group_id(group))
            .with_topics(
                topics
                    .into_iter()
                    .map(|(name, ps)| {
                        OffsetDeleteRequestTopic::default()
                            .with_name(TopicName(StrBytes::from_string(name.to_string())))
                            .with_partitions(
                                ps.into_iter()
                                    .map(|p| {
                                        OffsetDeleteRequestPartition::default()
                                            .with_partition_index(p)
                                    })
                                    .collect(),
                            )
                    })
                    .collect(),
            );
        let response = self.with_retries(|c| c.node(node)?.call(&request))?;
        let admin_error = |code: i16| match code {
            69 => Some(AdminError::GroupIdNotFound),
            68 => Some(AdminError::NonEmptyGroup),
            86 => Some(AdminError::GroupSubscribedToTopic),
            3 => Some(AdminError::UnknownTopicOrPartition),
            _ => None,
        };
        if response.error_code != 0 {
            return match admin_error(response.error_code) {
                Some(e) => Ok(Err(e)),
                None => Err(KafkaError {
                    code: response.error_code,
                    message: None,
                }
                .into()),
            };
        }
        let mut out = Vec::new();
        for topic in response.topics {
            for p in topic.partitions {
                let tp = TopicPartition::new(topic.name.0.as_str(), p.partition_index);
                let error = match (p.error_code, admin_error(p.error_code)) {
                    (0, _) => None,
                    (_, Some(e)) => Some(e),
                    (code, None) => {
                        return Err(KafkaError {
                            code,
                            message: None,
                        }
                        .into())
                    }
                };
                out.push((tp, error));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Ok(out))
    }
}
