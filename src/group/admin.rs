//! What `kafka-consumer-groups.sh` asks a group coordinator through Kafka's admin client
//! (DescribeGroups, OffsetCommit from outside the group, DeleteGroups, OffsetDelete), asked of
//! the coordinators of a data directory.
//!
//! A group's coordinator is the process hosting its `__consumer_offsets` partition
//! ([`super::host`]). Every change goes through a coordinator, which checks the group's state
//! and writes in one step on its own thread, so a change never races a live group: when a
//! member process hosts the partition, the request goes to it over its socket; when none does,
//! [`GroupAdmin`] hosts the partition itself for the length of the command (taking its
//! coordinator lock, loading its groups as any new coordinator does) and asks that host. A
//! member started meanwhile finds the tool's host and joins there; one started afterwards loads
//! what the tool wrote.
//!
//! Reading needs no coordinator: when none is running no member is alive (every member talks
//! to its group's coordinator), so a group is what a coordinator taking over would load: Empty
//! with its committed offsets, or unknown.

use std::collections::HashMap;
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::classic::{CoordinatorConfig, ProtocolError};
use super::host::{
    ConnectionError, CoordinatorConnection, CoordinatorHost, HostError, PartitionOffset, Request,
    Response, SocketConnection, OFFSETS_TOPIC_PARTITIONS,
};
use super::state::{GroupState, Groups};
use crate::assign::java::coordinator_partition;
use crate::datadir::{DataDir, TopicPartition};

/// The errors of Kafka's (`Errors`) a coordinator answers the admin requests with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdminError {
    /// `GROUP_ID_NOT_FOUND` (69).
    GroupIdNotFound,
    /// `NON_EMPTY_GROUP` (68).
    NonEmptyGroup,
    /// `GROUP_SUBSCRIBED_TO_TOPIC` (86).
    GroupSubscribedToTopic,
    /// `UNKNOWN_TOPIC_OR_PARTITION` (3).
    UnknownTopicOrPartition,
    /// `UNSUPPORTED_VERSION` (35) of a broker without OffsetDelete: the admin client's
    /// `UnsupportedVersionException` from `NodeApiVersions.latestUsableVersion`.
    OffsetDeleteUnsupported,
}

impl AdminError {
    /// The Java exception Kafka's admin client raises for it.
    pub fn exception(self) -> &'static str {
        match self {
            AdminError::GroupIdNotFound => {
                "org.apache.kafka.common.errors.GroupIdNotFoundException"
            }
            AdminError::NonEmptyGroup => "org.apache.kafka.common.errors.GroupNotEmptyException",
            AdminError::GroupSubscribedToTopic => {
                "org.apache.kafka.common.errors.GroupSubscribedToTopicException"
            }
            AdminError::UnknownTopicOrPartition => {
                "org.apache.kafka.common.errors.UnknownTopicOrPartitionException"
            }
            AdminError::OffsetDeleteUnsupported => {
                "org.apache.kafka.common.errors.UnsupportedVersionException"
            }
        }
    }

    /// Kafka's message for it (`Errors.message`).
    pub fn message(self) -> &'static str {
        match self {
            AdminError::GroupIdNotFound => "The group id does not exist.",
            AdminError::NonEmptyGroup => "The group is not empty.",
            AdminError::GroupSubscribedToTopic => {
                "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it."
            }
            AdminError::UnknownTopicOrPartition => "This server does not host this topic-partition.",
            AdminError::OffsetDeleteUnsupported => "The node does not support OFFSET_DELETE",
        }
    }

    /// Kafka's name (`GROUP_ID_NOT_FOUND`, ...).
    pub fn name(self) -> &'static str {
        match self {
            AdminError::GroupIdNotFound => "GROUP_ID_NOT_FOUND",
            AdminError::NonEmptyGroup => "NON_EMPTY_GROUP",
            AdminError::GroupSubscribedToTopic => "GROUP_SUBSCRIBED_TO_TOPIC",
            AdminError::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            AdminError::OffsetDeleteUnsupported => "UNSUPPORTED_VERSION",
        }
    }
}

impl std::fmt::Display for AdminError {
    /// Java's `Throwable.toString` of the exception: `class: message`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.exception(), self.message())
    }
}

/// A group as the admin tools see it (Kafka's `ConsumerGroupDescription`, what the tools use).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupSummary {
    /// Kafka's state name (`Stable`, `Empty`, ...).
    pub state: String,
    /// The protocol type (`consumer`), when known.
    pub protocol_type: Option<String>,
    /// How many members it has.
    pub members: usize,
    /// The topics its members subscribe to, when known: a consumer group with members, a
    /// chosen protocol and subscriptions that parse.
    pub subscribed: Option<Vec<String>>,
}

impl GroupSummary {
    /// Its state.
    pub fn group_state(&self) -> GroupState {
        GroupState::parse(&self.state)
    }
}

/// Why a coordinator could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum AdminCallError {
    /// Hosting the coordinator failed.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The coordinator's connection failed.
    #[error(transparent)]
    Connection(#[from] ConnectionError),
    /// No coordinator could be reached or hosted in time.
    #[error("the coordinator of __consumer_offsets-{partition} could not be reached")]
    Unreachable {
        /// The partition.
        partition: u32,
    },
    /// The coordinator could not write (its error's text).
    #[error("the group coordinator failed: {0}")]
    Coordinator(String),
    /// An answer that does not fit the request.
    #[error("the group coordinator answered a {0} request with something else")]
    Unexpected(&'static str),
}

/// Each partition's result of an OffsetDelete (`None`: deleted, or nothing to delete), or the
/// group's error.
pub type OffsetDeletion = Result<Vec<(TopicPartition, Option<AdminError>)>, AdminError>;

/// The outcome of committing offsets from outside a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Written.
    Committed,
    /// The group has members (it became active meanwhile): nothing was written.
    Active(GroupSummary),
}

/// The admin client of a data directory's group coordinators.
pub struct GroupAdmin<'a> {
    datadir: &'a DataDir,
    loaded: &'a Groups,
    conns: HashMap<u32, SocketConnection>,
    hosts: Vec<CoordinatorHost>,
}

impl std::fmt::Debug for GroupAdmin<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupAdmin")
            .field("datadir", &self.datadir.path())
            .field("hosted", &self.hosts.len())
            .finish()
    }
}

impl<'a> GroupAdmin<'a> {
    /// An admin client of `datadir`, whose groups as loaded from disk are `loaded`.
    pub fn new(datadir: &'a DataDir, loaded: &'a Groups) -> Self {
        GroupAdmin {
            datadir,
            loaded,
            conns: HashMap::new(),
            hosts: Vec::new(),
        }
    }

    fn partition(group: &str) -> u32 {
        coordinator_partition(group, OFFSETS_TOPIC_PARTITIONS)
    }

    /// A connection to the running coordinator of `partition`, if one runs.
    fn live(&mut self, partition: u32) -> Option<&mut SocketConnection> {
        if !self.conns.contains_key(&partition) {
            let conn = SocketConnection::connect(self.datadir.path(), partition).ok()?;
            self.conns.insert(partition, conn);
        }
        self.conns.get_mut(&partition)
    }

    /// A connection to the coordinator of `partition`: the running one, or one hosted here.
    fn coordinator(&mut self, partition: u32) -> Result<&mut SocketConnection, AdminCallError> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.live(partition).is_none() {
            let hosted =
                CoordinatorHost::try_start(self.datadir, partition, CoordinatorConfig::default())?;
            match hosted {
                Some(host) => self.hosts.push(host),
                // Another process holds the lock and is about to listen.
                None if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                None => return Err(AdminCallError::Unreachable { partition }),
            }
        }
        self.conns
            .get_mut(&partition)
            .ok_or(AdminCallError::Unreachable { partition })
    }

    fn call(&mut self, group: &str, request: &Request) -> Result<Response, AdminCallError> {
        let partition = Self::partition(group);
        let response = self.coordinator(partition)?.call(request);
        match response {
            Ok(Response::Failed(text)) => Err(AdminCallError::Coordinator(text)),
            Ok(response) => Ok(response),
            Err(e) => {
                self.conns.remove(&partition);
                Err(e.into())
            }
        }
    }

    /// The group as its coordinator has it when one runs, else as one would load it (Empty
    /// with its committed offsets); `None`: it does not exist (Kafka's Dead).
    pub fn describe(&mut self, group: &str) -> Result<Option<GroupSummary>, AdminCallError> {
        let request = Request::Describe {
            group: group.to_string(),
        };
        let partition = Self::partition(group);
        let Some(conn) = self.live(partition) else {
            return Ok(self.loaded.get(group).map(|g| GroupSummary {
                state: GroupState::Empty.name().to_string(),
                protocol_type: Some(g.protocol_type.clone()).filter(|p| !p.is_empty()),
                members: 0,
                subscribed: None,
            }));
        };
        match conn.call(&request) {
            Ok(Response::Describe(summary)) => Ok(summary),
            Ok(_) => Err(AdminCallError::Unexpected("Describe")),
            Err(e) => {
                self.conns.remove(&partition);
                Err(e.into())
            }
        }
    }

    /// The group as its coordinator has it, hosting the coordinator here when none runs (what
    /// a write asks first, so that the state it checks is the writer's).
    pub fn describe_hosted(&mut self, group: &str) -> Result<Option<GroupSummary>, AdminCallError> {
        let request = Request::Describe {
            group: group.to_string(),
        };
        match self.call(group, &request)? {
            Response::Describe(summary) => Ok(summary),
            _ => Err(AdminCallError::Unexpected("Describe")),
        }
    }

    /// Commits `offsets` for `group` from outside it (Kafka's `alterConsumerGroupOffsets`:
    /// no member id, generation -1), through its coordinator, which refuses while the group
    /// has members.
    pub fn commit(
        &mut self,
        group: &str,
        offsets: &[(TopicPartition, i64)],
    ) -> Result<CommitOutcome, AdminCallError> {
        let request = Request::OffsetCommit {
            group: group.to_string(),
            member_id: String::new(),
            generation_id: -1,
            offsets: offsets
                .iter()
                .map(|(tp, offset)| PartitionOffset::new(tp.clone(), *offset))
                .collect(),
        };
        match self.call(group, &request)? {
            Response::OffsetCommit(None) => Ok(CommitOutcome::Committed),
            Response::OffsetCommit(Some(ProtocolError::UnknownMemberId)) => {
                let summary = self.describe(group)?.unwrap_or(GroupSummary {
                    state: GroupState::Unknown.name().to_string(),
                    protocol_type: None,
                    members: 0,
                    subscribed: None,
                });
                Ok(CommitOutcome::Active(summary))
            }
            _ => Err(AdminCallError::Unexpected("OffsetCommit")),
        }
    }

    /// Deletes `group` (DeleteGroups): `Some` error when its coordinator refused.
    pub fn delete_group(&mut self, group: &str) -> Result<Option<AdminError>, AdminCallError> {
        let request = Request::DeleteGroup {
            group: group.to_string(),
        };
        match self.call(group, &request)? {
            Response::DeleteGroup(outcome) => Ok(outcome),
            _ => Err(AdminCallError::Unexpected("DeleteGroups")),
        }
    }

    /// Deletes `group`'s committed offsets of `partitions` (OffsetDelete): each partition's
    /// result, or the group's error.
    pub fn delete_offsets(
        &mut self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<OffsetDeletion, AdminCallError> {
        let request = Request::OffsetDelete {
            group: group.to_string(),
            partitions: partitions
                .iter()
                .map(|tp| (tp.topic.to_string(), tp.partition))
                .collect(),
        };
        match self.call(group, &request)? {
            Response::OffsetDelete(outcome) => Ok(outcome.map(|results| {
                results
                    .into_iter()
                    .map(|(topic, partition, error)| (TopicPartition::new(topic, partition), error))
                    .collect()
            })),
            _ => Err(AdminCallError::Unexpected("OffsetDelete")),
        }
    }
}
