//! What `consumer-groups --list`, `--describe` and `--delete` ask of a cluster, as Kafka's
//! `Admin` asks it: ListGroups of every broker, then per group FindCoordinator, DescribeGroups
//! and OffsetFetch (or DeleteGroups) to its coordinator. The answers fill the same [`Group`] values a data directory's
//! `__consumer_offsets` replay gives, so the printers (`output::groups`) are one for both.
//!
//! What the broker does not say is left at what a group with only offsets has: DescribeGroups
//! carries no generation, leader, timeouts or commit times.

use std::collections::BTreeMap;

use kafka_protocol::messages::{DeleteGroupsRequest, DescribeGroupsRequest, ListGroupsRequest};

use crate::assign::java;
use crate::common::TopicPartition;
use crate::group::admin::AdminError;
use crate::group::describe::Coordinator;
use crate::group::host::OFFSETS_TOPIC_PARTITIONS;
use crate::group::{CommittedOffset, Group, GroupState, GroupType, MemberMetadata};

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::group::{find_coordinator, group_id, offset_fetch};
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
