//! The classic group protocol against a broker: the [`CoordinatorConnection`] of a member whose
//! group lives in a cluster (`consume --group --bootstrap-server`).
//!
//! A member's requests are the same [`Request`]s a local group's coordinator answers over its
//! Unix socket; here each becomes Kafka's request to the group's coordinator (FindCoordinator,
//! then JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch) and the
//! broker's answer the same [`Response`], so the member's join, assign, commit and revocation
//! logic ([`crate::client::group`]) is one for both. A coordinator that moved
//! (`NOT_COORDINATOR`, `COORDINATOR_NOT_AVAILABLE`, `COORDINATOR_LOAD_IN_PROGRESS`, a broken
//! connection) answers [`Response::NotCoordinator`]: the member finds it again and rejoins, as
//! Kafka's `AbstractCoordinator` does.

use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use kafka_protocol::messages::leave_group_request::MemberIdentity;
use kafka_protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kafka_protocol::messages::offset_fetch_request::OffsetFetchRequestTopic;
use kafka_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use kafka_protocol::messages::{
    ApiKey, FindCoordinatorRequest, GroupId, HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest,
    OffsetCommitRequest, OffsetFetchRequest, SyncGroupRequest, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use crate::common::TopicPartition;
use crate::group::classic::{JoinRequest, JoinResponse, JoinedMember, ProtocolError, SyncResponse};
use crate::group::describe::Coordinator;
use crate::group::host::{
    ConnectionError, CoordinatorConnection, PartitionOffset, Request, Response,
};

use super::address::Address;
use super::cluster::Cluster;
use super::config::ClientConfig;
use super::errors::KafkaError;
use super::NetError;

/// Where a group's coordinator is found: the cluster's bootstrap addresses and the client's
/// settings, from which each connection (the member's, its heartbeat thread's) is made.
#[derive(Debug, Clone)]
pub struct GroupCoordinator {
    bootstrap: Vec<Address>,
    config: ClientConfig,
    group: String,
}

impl GroupCoordinator {
    /// The coordinator of `group` in the cluster `cluster` reaches.
    pub fn new(cluster: &Cluster, group: &str) -> Self {
        GroupCoordinator {
            bootstrap: cluster.bootstrap().to_vec(),
            config: cluster.config().clone(),
            group: group.to_string(),
        }
    }

    /// The same, each call (finding the coordinator included) given up after `timeout`
    /// instead of `default.api.timeout.ms`.
    pub fn with_api_timeout(mut self, timeout: Duration) -> Self {
        self.config.api_timeout = self.config.api_timeout.min(timeout);
        self
    }

    /// A cluster of its own (its own connections), each request waiting up to `timeout` when
    /// given (a JoinGroup waits for the whole rebalance: Kafka's client gives it the rebalance
    /// timeout plus 5 s when that is longer than `request.timeout.ms`).
    pub fn cluster(&self, timeout: Option<Duration>) -> Cluster {
        let mut config = self.config.clone();
        if let Some(timeout) = timeout {
            config.request_timeout = config.request_timeout.max(timeout);
        }
        Cluster::new(self.bootstrap.clone(), config)
    }

    /// Finds the group's coordinator (FindCoordinator, retried while the broker answers
    /// `COORDINATOR_NOT_AVAILABLE` or cannot be reached, up to `default.api.timeout.ms`) and
    /// connects to it.
    pub fn connect(&self, timeout: Option<Duration>) -> Result<BrokerConnection, NetError> {
        let mut cluster = self.cluster(timeout);
        let node = find_coordinator(&mut cluster, &self.group)?.id;
        Ok(BrokerConnection { cluster, node })
    }

    /// The partition count of each of `topics` the cluster has (Metadata).
    pub fn partition_counts(&self, topics: &[&str]) -> Result<Vec<(String, i32)>, NetError> {
        let mut cluster = self.cluster(None);
        let leaders = cluster.with_retries(|c| c.leaders(topics, false, "metadata"))?;
        let mut counts: Vec<(String, i32)> = Vec::new();
        for tp in leaders.keys() {
            match counts.last_mut() {
                Some((name, count)) if name.as_str() == tp.topic() => *count += 1,
                _ => counts.push((tp.topic().to_string(), 1)),
            }
        }
        Ok(counts)
    }
}

/// FindCoordinator of `group` (key type 0), asked of any broker: the coordinator's node id,
/// host and port, with the cluster's metadata refreshed so that [`Cluster::node`] knows its
/// address.
pub fn find_coordinator(cluster: &mut Cluster, group: &str) -> Result<Coordinator, NetError> {
    let deadline = Instant::now() + cluster.config().api_timeout;
    let mut attempt = 0;
    loop {
        let answer = cluster.with_retries(|c| {
            c.metadata(Some(&[]), false, "findCoordinator")?;
            let conn = c.any("findCoordinator")?;
            let version = conn.version(ApiKey::FindCoordinator)?;
            let request = if version >= 4 {
                FindCoordinatorRequest::default()
                    .with_coordinator_keys(vec![StrBytes::from_string(group.to_string())])
            } else {
                FindCoordinatorRequest::default().with_key(StrBytes::from_string(group.to_string()))
            };
            let response = conn.call(&request)?;
            Ok(if version >= 4 {
                response.coordinators.first().map(|c| {
                    (
                        Coordinator {
                            id: c.node_id.0,
                            host: c.host.to_string(),
                            port: u16::try_from(c.port).unwrap_or(0),
                        },
                        c.error_code,
                        c.error_message.as_ref().map(StrBytes::to_string),
                    )
                })
            } else {
                Some((
                    Coordinator {
                        id: response.node_id.0,
                        host: response.host.to_string(),
                        port: u16::try_from(response.port).unwrap_or(0),
                    },
                    response.error_code,
                    response.error_message.as_ref().map(StrBytes::to_string),
                ))
            })
        })?;
        let error = match answer {
            Some((node, 0, _)) if node.id >= 0 => return Ok(node),
            Some((_, code, message)) => KafkaError {
                code: if code == 0 { 15 } else { code },
                message,
            },
            None => KafkaError {
                code: 15,
                message: None,
            },
        };
        // COORDINATOR_NOT_AVAILABLE (15), COORDINATOR_LOAD_IN_PROGRESS (14), NOT_COORDINATOR
        // (16): the group's partition has no leader yet; anything else is final.
        let wait = cluster.config().backoff(attempt);
        if !matches!(error.code, 14..=16) || Instant::now() + wait >= deadline {
            return Err(error.into());
        }
        std::thread::sleep(wait);
        attempt += 1;
    }
}

/// A connection to a group's coordinator: what a member of a group in a cluster asks through.
#[derive(Debug)]
pub struct BrokerConnection {
    cluster: Cluster,
    node: i32,
}

/// The classic protocol's errors a member handles itself; `None` for the others.
fn protocol_error(code: i16) -> Option<ProtocolError> {
    Some(match code {
        15 => ProtocolError::CoordinatorNotAvailable,
        16 => ProtocolError::NotCoordinator,
        22 => ProtocolError::IllegalGeneration,
        23 => ProtocolError::InconsistentGroupProtocol,
        24 => ProtocolError::InvalidGroupId,
        25 => ProtocolError::UnknownMemberId,
        26 => ProtocolError::InvalidSessionTimeout,
        27 => ProtocolError::RebalanceInProgress,
        79 => ProtocolError::MemberIdRequired,
        81 => ProtocolError::GroupMaxSizeReached,
        82 => ProtocolError::FencedInstanceId,
        _ => return None,
    })
}

/// A group request's error the member does not handle as a protocol error.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The coordinator moved: the member looks for it again.
    Moved,
    /// An error it cannot recover from.
    Failed(KafkaError),
}

impl From<Refusal> for Response {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Moved => Response::NotCoordinator,
            Refusal::Failed(e) => Response::Failed(e.to_string()),
        }
    }
}

/// What an error code of a group request becomes: `Ok(None)` for none, `Ok(Some)` for an
/// error of the protocol the member handles, else a [`Refusal`].
fn answer(code: i16, message: Option<&StrBytes>) -> Result<Option<ProtocolError>, Refusal> {
    match code {
        0 => Ok(None),
        14..=16 => Err(Refusal::Moved),
        code => match protocol_error(code) {
            Some(e) => Ok(Some(e)),
            None => Err(Refusal::Failed(KafkaError {
                code,
                message: message.map(StrBytes::to_string),
            })),
        },
    }
}

impl Refusal {
    /// As a cluster call's error.
    pub(crate) fn into_error(self) -> NetError {
        match self {
            Refusal::Moved => NetError::Kafka(KafkaError {
                code: 16,
                message: None,
            }),
            Refusal::Failed(e) => NetError::Kafka(e),
        }
    }
}

fn text(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

pub(crate) fn group_id(s: &str) -> GroupId {
    GroupId(text(s))
}

impl BrokerConnection {
    /// The node id of the coordinator.
    pub fn node(&self) -> i32 {
        self.node
    }

    fn version(&mut self, api: ApiKey) -> Result<i16, NetError> {
        self.cluster.node(self.node)?.version(api)
    }

    fn join(&mut self, group: &str, join: &JoinRequest) -> Result<Response, NetError> {
        let version = self.version(ApiKey::JoinGroup)?;
        if join.group_instance_id.is_some() && version < 5 {
            return Ok(Response::Failed(format!(
                "The coordinator (JoinGroup v{version}) does not support static membership (group.instance.id)"
            )));
        }
        let request = JoinGroupRequest::default()
            .with_group_id(group_id(group))
            .with_session_timeout_ms(join.session_timeout_ms)
            .with_rebalance_timeout_ms(join.rebalance_timeout_ms)
            .with_member_id(text(&join.member_id))
            .with_group_instance_id(join.group_instance_id.as_deref().map(text))
            .with_protocol_type(text(&join.protocol_type))
            .with_protocols(
                join.protocols
                    .iter()
                    .map(|(name, metadata)| {
                        JoinGroupRequestProtocol::default()
                            .with_name(text(name))
                            .with_metadata(Bytes::from(metadata.clone()))
                    })
                    .collect(),
            );
        let r = self.cluster.node(self.node)?.call(&request)?;
        let error = match answer(r.error_code, None) {
            Ok(error) => error,
            Err(refusal) => return Ok(refusal.into()),
        };
        Ok(Response::Join(JoinResponse {
            error,
            generation_id: r.generation_id,
            protocol_type: r.protocol_type.map(|s| s.to_string()),
            protocol_name: r
                .protocol_name
                .map(|s| s.to_string())
                .filter(|s| !s.is_empty()),
            leader: r.leader.to_string(),
            member_id: r.member_id.to_string(),
            members: r
                .members
                .into_iter()
                .map(|m| JoinedMember {
                    member_id: m.member_id.to_string(),
                    group_instance_id: m.group_instance_id.map(|s| s.to_string()),
                    metadata: m.metadata.to_vec(),
                })
                .collect(),
            skip_assignment: r.skip_assignment,
        }))
    }

    fn sync(
        &mut self,
        group: &str,
        member_id: &str,
        generation_id: i32,
        assignments: &[(String, Vec<u8>)],
    ) -> Result<Response, NetError> {
        let request = SyncGroupRequest::default()
            .with_group_id(group_id(group))
            .with_generation_id(generation_id)
            .with_member_id(text(member_id))
            .with_assignments(
                assignments
                    .iter()
                    .map(|(member, bytes)| {
                        SyncGroupRequestAssignment::default()
                            .with_member_id(text(member))
                            .with_assignment(Bytes::from(bytes.clone()))
                    })
                    .collect(),
            );
        let r = self.cluster.node(self.node)?.call(&request)?;
        Ok(match answer(r.error_code, None) {
            Ok(error) => Response::Sync(SyncResponse {
                error,
                assignment: r.assignment.to_vec(),
            }),
            Err(refusal) => refusal.into(),
        })
    }

    fn heartbeat(
        &mut self,
        group: &str,
        member_id: &str,
        instance: Option<&str>,
        generation_id: i32,
    ) -> Result<Response, NetError> {
        let version = self.version(ApiKey::Heartbeat)?;
        let request = HeartbeatRequest::default()
            .with_group_id(group_id(group))
            .with_generation_id(generation_id)
            .with_member_id(text(member_id))
            .with_group_instance_id(instance.filter(|_| version >= 3).map(text));
        let r = self.cluster.node(self.node)?.call(&request)?;
        Ok(match answer(r.error_code, None) {
            Ok(error) => Response::Heartbeat(error),
            Err(refusal) => refusal.into(),
        })
    }

    fn leave(
        &mut self,
        group: &str,
        member_id: &str,
        instance: Option<&str>,
    ) -> Result<Response, NetError> {
        let version = self.version(ApiKey::LeaveGroup)?;
        let request = if version >= 3 {
            LeaveGroupRequest::default()
                .with_group_id(group_id(group))
                .with_members(vec![MemberIdentity::default()
                    .with_member_id(text(member_id))
                    .with_group_instance_id(instance.map(text))])
        } else {
            LeaveGroupRequest::default()
                .with_group_id(group_id(group))
                .with_member_id(text(member_id))
        };
        let r = self.cluster.node(self.node)?.call(&request)?;
        let code = match r.error_code {
            0 => r
                .members
                .iter()
                .map(|m| m.error_code)
                .find(|c| *c != 0)
                .unwrap_or(0),
            code => code,
        };
        Ok(match answer(code, None) {
            Ok(error) => Response::Leave(error),
            Err(refusal) => refusal.into(),
        })
    }

    fn offset_commit(
        &mut self,
        group: &str,
        member_id: &str,
        generation_id: i32,
        offsets: &[PartitionOffset],
    ) -> Result<Response, NetError> {
        let code = offset_commit(
            &mut self.cluster,
            self.node,
            group,
            member_id,
            generation_id,
            offsets,
        )?;
        Ok(match answer(code, None) {
            Ok(error) => Response::OffsetCommit(error),
            Err(refusal) => refusal.into(),
        })
    }

    fn offset_fetch(
        &mut self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<Response, NetError> {
        Ok(
            match offset_fetch(&mut self.cluster, self.node, group, partitions)? {
                Ok(offsets) => Response::OffsetFetch(offsets),
                Err(refusal) => refusal.into(),
            },
        )
    }

    fn dispatch(&mut self, request: &Request) -> Result<Response, NetError> {
        match request {
            Request::Join { group, request } => self.join(group, request),
            Request::Sync {
                group,
                member_id,
                generation_id,
                assignments,
            } => self.sync(group, member_id, *generation_id, assignments),
            Request::Heartbeat {
                group,
                member_id,
                group_instance_id,
                generation_id,
            } => self.heartbeat(
                group,
                member_id,
                group_instance_id.as_deref(),
                *generation_id,
            ),
            Request::Leave {
                group,
                member_id,
                group_instance_id,
            } => self.leave(group, member_id, group_instance_id.as_deref()),
            Request::OffsetCommit {
                group,
                member_id,
                generation_id,
                offsets,
            } => self.offset_commit(group, member_id, *generation_id, offsets),
            Request::OffsetFetch { group, partitions } => self.offset_fetch(group, partitions),
            Request::Describe { .. } | Request::DeleteGroup { .. } | Request::OffsetDelete { .. } => {
                Ok(Response::Failed(
                    "the admin requests go through the cluster's admin calls, not a member's connection"
                        .to_string(),
                ))
            }
        }
    }
}

impl CoordinatorConnection for BrokerConnection {
    fn call(&mut self, request: &Request) -> Result<Response, ConnectionError> {
        match self.dispatch(request) {
            Ok(response) => Ok(response),
            // The connection broke or timed out: the coordinator is to be found again.
            Err(NetError::Disconnected { .. } | NetError::Timeout { .. }) => {
                self.cluster.drop_connection(self.node);
                Ok(Response::NotCoordinator)
            }
            Err(e) => Ok(Response::Failed(e.to_string())),
        }
    }
}

/// OffsetCommit of `offsets` for `group` by `member_id` in `generation_id` (a tool's commit
/// from outside the group: no member id, generation -1), asked of its coordinator `node`: the
/// error code (0: none; a group's error comes back on every partition, the first decides).
pub(crate) fn offset_commit(
    cluster: &mut Cluster,
    node: i32,
    group: &str,
    member_id: &str,
    generation_id: i32,
    offsets: &[PartitionOffset],
) -> Result<i16, NetError> {
    let mut topics: Vec<OffsetCommitRequestTopic> = Vec::new();
    for o in offsets {
        let partition = OffsetCommitRequestPartition::default()
            .with_partition_index(o.partition.partition)
            .with_committed_offset(o.offset)
            .with_committed_leader_epoch(o.leader_epoch)
            .with_committed_metadata(Some(text(&o.metadata)));
        match topics
            .iter_mut()
            .find(|t| t.name.0.as_str() == o.partition.topic())
        {
            Some(t) => t.partitions.push(partition),
            None => topics.push(
                OffsetCommitRequestTopic::default()
                    .with_name(TopicName(text(o.partition.topic())))
                    .with_partitions(vec![partition]),
            ),
        }
    }
    let request = OffsetCommitRequest::default()
        .with_group_id(group_id(group))
        .with_generation_id_or_member_epoch(generation_id)
        .with_member_id(text(member_id))
        .with_topics(topics);
    let r = cluster.node(node)?.call(&request)?;
    Ok(r.topics
        .iter()
        .flat_map(|t| t.partitions.iter())
        .map(|p| p.error_code)
        .find(|c| *c != 0)
        .unwrap_or(0))
}

/// OffsetFetch of `group`'s committed offsets of `partitions` (none: every partition it has
/// committed), asked of its coordinator `node`; an offset of -1 is none.
pub(crate) fn offset_fetch(
    cluster: &mut Cluster,
    node: i32,
    group: &str,
    partitions: &[TopicPartition],
) -> Result<Result<Vec<PartitionOffset>, Refusal>, NetError> {
    let mut topics: Vec<OffsetFetchRequestTopic> = Vec::new();
    for tp in partitions {
        match topics.iter_mut().find(|t| t.name.0.as_str() == tp.topic()) {
            Some(t) => t.partition_indexes.push(tp.partition),
            None => topics.push(
                OffsetFetchRequestTopic::default()
                    .with_name(TopicName(text(tp.topic())))
                    .with_partition_indexes(vec![tp.partition]),
            ),
        }
    }
    let request = OffsetFetchRequest::default()
        .with_group_id(group_id(group))
        .with_topics((!partitions.is_empty()).then_some(topics));
    let r = cluster.node(node)?.call(&request)?;
    if let Err(refusal) = answer(r.error_code, None) {
        return Ok(Err(refusal));
    }
    let mut out = Vec::new();
    for topic in r.topics {
        let name: std::sync::Arc<str> = topic.name.0.as_str().into();
        for p in topic.partitions {
            if let Err(refusal) = answer(p.error_code, None) {
                return Ok(Err(refusal));
            }
            out.push(PartitionOffset {
                partition: TopicPartition::new(name.clone(), p.partition_index),
                offset: p.committed_offset,
                leader_epoch: p.committed_leader_epoch,
                metadata: p.metadata.map(|m| m.to_string()).unwrap_or_default(),
            });
        }
    }
    Ok(Ok(out))
}
