//! A member of a live consumer group: the client side of the classic protocol, as Kafka's
//! `ConsumerCoordinator` runs it.
//!
//! [`GroupMember`] finds its coordinator (connects to the process hosting
//! `__consumer_offsets-<n>`, or, when nobody does, takes the lock and hosts it itself:
//! [`crate::group::host`]), joins in two steps (JoinGroup v4+: `MEMBER_ID_REQUIRED`, then again
//! with the id), runs the selected assignor when it is the leader (the `assign` module's, over
//! the members' subscriptions in the leader's `HashMap` order, so a live group settles where
//! `simulate-assignment` says), syncs, and heartbeats from a thread every
//! `heartbeat.interval.ms`. A lost connection is a lost coordinator: the member finds or becomes
//! the next one and rejoins (failover).
//!
//! Revocation follows the rebalance protocol the configured assignors share: with an eager one
//! in the list (Kafka's default `[range, cooperative-sticky]`) every owned partition is revoked
//! before rejoining; with cooperative ones only, the member keeps what it owns, gives up what
//! the new assignment moves and rejoins at once, so the moved partitions reach their new owner
//! in a second round (KIP-429). The changes come out as [`RebalanceEvent`]s.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::assign::{self, java, range, roundrobin, sticky::StickyAssignor, Strategy, TopicMeta};
use crate::common::TopicPartition;
use crate::datadir::{DataDir, DataDirError};
use crate::group::classic::{CoordinatorConfig, JoinRequest, ProtocolError};
use crate::group::host::{
    ConnectionError, CoordinatorConnection, CoordinatorHost, HostError, Request, Response,
    SocketConnection, OFFSETS_TOPIC_PARTITIONS,
};
use crate::group::protocol::{Assignment, StickyUserData, Subscription, TopicPartitions};

pub use crate::group::host::PartitionOffset;
use crate::group::{ReadError, Versioned, WriteError};

/// How long a member keeps looking for its coordinator (connecting, or retrying one that went
/// away while the next takes over) before it gives up.
const COORDINATOR_TIMEOUT: Duration = Duration::from_secs(30);

/// A member's settings (Kafka's consumer configs of the same names).
#[derive(Debug, Clone)]
pub struct GroupConfig {
    /// `group.id`.
    pub group_id: String,
    /// `client.id` (the prefix of the member id).
    pub client_id: String,
    /// `group.instance.id`: a static member.
    pub group_instance_id: Option<String>,
    /// `session.timeout.ms` (45 000).
    pub session_timeout_ms: i32,
    /// `max.poll.interval.ms` (300 000), also the rebalance timeout.
    pub max_poll_interval_ms: i32,
    /// `heartbeat.interval.ms` (3 000).
    pub heartbeat_interval_ms: u64,
    /// `partition.assignment.strategy`, in order of preference.
    pub strategies: Vec<Strategy>,
    /// The coordinator's settings when this member hosts it (`group.initial.rebalance.delay.ms`,
    /// `group.min.session.timeout.ms`, ...).
    pub coordinator: CoordinatorConfig,
}

impl GroupConfig {
    /// Kafka's defaults for a group.
    pub fn new(group_id: &str) -> Self {
        GroupConfig {
            group_id: group_id.to_string(),
            client_id: format!("console-consumer-{group_id}"),
            group_instance_id: None,
            session_timeout_ms: 45_000,
            max_poll_interval_ms: 300_000,
            heartbeat_interval_ms: 3_000,
            strategies: vec![Strategy::Range, Strategy::CooperativeSticky],
            coordinator: CoordinatorConfig::default(),
        }
    }

    /// The rebalance protocol every configured assignor supports: cooperative only when all
    /// are (Kafka's `ConsumerCoordinator` picks the highest common one).
    pub fn cooperative(&self) -> bool {
        !self.strategies.is_empty() && self.strategies.iter().all(|s| s.is_cooperative())
    }
}

/// What a rebalance changed for this member, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebalanceEvent {
    /// Partitions given up (before rejoining with an eager protocol; those that moved with the
    /// cooperative one).
    Revoked(Vec<TopicPartition>),
    /// Partitions newly assigned (with the eager protocol: the whole assignment).
    Assigned(Vec<TopicPartition>),
    /// Partitions lost without a chance to commit (the member was dropped from the group).
    Lost(Vec<TopicPartition>),
}

/// Why a member could not take part in its group.
#[derive(Debug, thiserror::Error)]
pub enum GroupClientError {
    /// Hosting the coordinator failed.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The data directory failed.
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    /// The coordinator answered with an error the member cannot recover from.
    #[error("the group coordinator refused {request} of group {group}: {error:?} (error code {})", error.code())]
    Refused {
        /// The request.
        request: &'static str,
        /// The group.
        group: String,
        /// Kafka's error.
        error: ProtocolError,
    },
    /// A commit failed because the group rebalanced (Kafka's `CommitFailedException`).
    #[error("Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member.")]
    CommitFailed,
    /// The coordinator could not write what it would have answered.
    #[error("the group coordinator failed: {0}")]
    Coordinator(String),
    /// The coordinator answered a request with another request's answer.
    #[error("the group coordinator answered {0} with something else")]
    Unexpected(&'static str),
    /// A subscription or assignment could not be read or written.
    #[error("a consumer protocol message of group {group} is malformed: {error}")]
    Protocol {
        /// The group.
        group: String,
        /// The cause.
        error: String,
    },
    /// The assignor failed.
    #[error(transparent)]
    Assign(#[from] assign::AssignError),
    /// An assignor kafkit has but live groups do not run yet.
    #[error("the assignor {0} is not supported by live groups (use range, roundrobin, sticky or cooperative-sticky)")]
    UnsupportedStrategy(&'static str),
    /// The cluster failed (`--bootstrap-server`): finding the coordinator, or the topics'
    /// metadata.
    #[cfg(feature = "net")]
    #[error(transparent)]
    Network(#[from] crate::net::NetError),
    /// No coordinator could be reached or hosted in time.
    #[error("no coordinator for group {group} could be reached: {source}")]
    Unreachable {
        /// The group.
        group: String,
        /// The last cause.
        source: ConnectionError,
    },
}

impl From<ReadError> for GroupClientError {
    fn from(error: ReadError) -> Self {
        GroupClientError::Protocol {
            group: String::new(),
            error: error.to_string(),
        }
    }
}

impl From<WriteError> for GroupClientError {
    fn from(error: WriteError) -> Self {
        GroupClientError::Protocol {
            group: String::new(),
            error: error.to_string(),
        }
    }
}

/// What the heartbeat thread and the member share.
#[derive(Debug, Default)]
struct Shared {
    member_id: String,
    generation: i32,
    /// A generation is in place: heartbeats go.
    active: bool,
    /// The coordinator asked for a rejoin, or forgot the member.
    rejoin: bool,
    /// The member was dropped (unknown member, fenced generation): what it owns is lost.
    lost: bool,
    last_poll: Option<Instant>,
}

/// Where a member's coordinator is: hosted by a process of the data directory, or a broker
/// of a cluster.
enum Place {
    /// A data directory: the process holding `__consumer_offsets-<n>`'s coordinator lock
    /// serves the group over its Unix socket.
    Dir(DataDir),
    /// A cluster: the broker FindCoordinator names (`--bootstrap-server`).
    #[cfg(feature = "net")]
    Cluster(crate::net::group::GroupCoordinator),
}

/// What the heartbeat thread connects with (its own connection, as the member's may be
/// waiting on a JoinGroup).
type Connector = Box<dyn FnMut() -> Option<Box<dyn CoordinatorConnection>> + Send>;

impl Place {
    #[cfg_attr(not(feature = "net"), allow(unused_variables))]
    fn heartbeat_connector(&self, partition: u32, interval: Duration) -> Connector {
        match self {
            Place::Dir(datadir) => {
                let dir = datadir.path().to_path_buf();
                Box::new(move || {
                    SocketConnection::connect(&dir, partition)
                        .ok()
                        .map(|c| Box::new(c) as Box<dyn CoordinatorConnection>)
                })
            }
            #[cfg(feature = "net")]
            Place::Cluster(coordinator) => {
                // One attempt a beat: a broker that is gone must not hold the thread (and the
                // member's close, which joins it) for `default.api.timeout.ms`.
                let coordinator = coordinator.clone().with_api_timeout(interval);
                Box::new(move || {
                    coordinator
                        .connect(None)
                        .ok()
                        .map(|c| Box::new(c) as Box<dyn CoordinatorConnection>)
                })
            }
        }
    }

    /// The partition counts of the topics of `names` that exist.
    fn partition_counts(&self, names: &[&str]) -> Result<Vec<(String, i32)>, GroupClientError> {
        match self {
            Place::Dir(datadir) => {
                let mut out = Vec::new();
                for name in names {
                    if let Some(topic) = datadir.topic(name)? {
                        let count = i32::try_from(topic.partition_count()).unwrap_or(i32::MAX);
                        out.push(((*name).to_string(), count));
                    }
                }
                Ok(out)
            }
            #[cfg(feature = "net")]
            Place::Cluster(coordinator) => Ok(coordinator.partition_counts(names)?),
        }
    }
}

/// A member of one group.
pub struct GroupMember {
    place: Place,
    config: GroupConfig,
    partition: u32,
    conn: Option<Box<dyn CoordinatorConnection>>,
    host: Option<CoordinatorHost>,
    shared: Arc<Mutex<Shared>>,
    heartbeat: Option<(Sender<()>, JoinHandle<()>)>,
    owned: Vec<TopicPartition>,
    topics: Vec<String>,
    protocol: Option<String>,
    closed: Arc<AtomicBool>,
    /// The last assignment received and its generation: the eager `sticky` assignor's user
    /// data (Kafka's `StickyAssignor` keeps it from `onAssignment`; the eager protocol has
    /// revoked `owned` by the time the member rejoins).
    last_assignment: Option<(Vec<TopicPartition>, i32)>,
}

impl std::fmt::Debug for GroupMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupMember")
            .field("group", &self.config.group_id)
            .field("owned", &self.owned)
            .finish_non_exhaustive()
    }
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl GroupMember {
    /// A member of `config.group_id` in `datadir`, not joined yet.
    pub fn new(datadir: &DataDir, config: GroupConfig) -> Result<Self, GroupClientError> {
        Self::at(Place::Dir(datadir.clone()), config)
    }

    /// A member of `config.group_id` in the cluster `cluster` reaches, not joined yet: the
    /// group's coordinator is the broker FindCoordinator names.
    #[cfg(feature = "net")]
    pub fn in_cluster(
        cluster: &crate::net::Cluster,
        config: GroupConfig,
    ) -> Result<Self, GroupClientError> {
        let coordinator = crate::net::group::GroupCoordinator::new(cluster, &config.group_id);
        Self::at(Place::Cluster(coordinator), config)
    }

    fn at(place: Place, config: GroupConfig) -> Result<Self, GroupClientError> {
        if let Some(s) = config
            .strategies
            .iter()
            .find(|s| matches!(s, Strategy::Uniform | Strategy::ServerRange))
        {
            return Err(GroupClientError::UnsupportedStrategy(s.name()));
        }
        let partition = java::coordinator_partition(&config.group_id, OFFSETS_TOPIC_PARTITIONS);
        Ok(GroupMember {
            place,
            config,
            partition,
            conn: None,
            host: None,
            shared: Arc::new(Mutex::new(Shared {
                generation: -1,
                ..Shared::default()
            })),
            heartbeat: None,
            owned: Vec::new(),
            topics: Vec::new(),
            protocol: None,
            closed: Arc::new(AtomicBool::new(false)),
            last_assignment: None,
        })
    }

    /// The member id (empty before the first join).
    pub fn member_id(&self) -> String {
        lock(&self.shared).member_id.clone()
    }

    /// The current generation (-1 before the first).
    pub fn generation(&self) -> i32 {
        lock(&self.shared).generation
    }

    /// The partitions this member owns now.
    pub fn owned(&self) -> &[TopicPartition] {
        &self.owned
    }

    /// The assignor of the current generation.
    pub fn protocol(&self) -> Option<&str> {
        self.protocol.as_deref()
    }

    /// Whether this process hosts the group's coordinator.
    pub fn hosts_coordinator(&self) -> bool {
        self.host.is_some()
    }

    /// Kafka's `poll` as far as the group goes: subscribes to `topics`, joins (or rejoins when
    /// the coordinator asked, the subscription changed or the coordinator moved) until this
    /// member has a stable generation, and returns what changed for it. Called often: it is
    /// also what tells the heartbeat thread the member is alive (`max.poll.interval.ms`).
    pub fn poll(&mut self, topics: &[String]) -> Result<Vec<RebalanceEvent>, GroupClientError> {
        let mut topics = topics.to_vec();
        topics.sort();
        topics.dedup();
        let mut events = Vec::new();
        {
            let mut shared = lock(&self.shared);
            shared.last_poll = Some(Instant::now());
            if shared.lost {
                shared.lost = false;
                shared.rejoin = true;
                shared.member_id.clear();
                shared.generation = -1;
                if !self.owned.is_empty() {
                    events.push(RebalanceEvent::Lost(std::mem::take(&mut self.owned)));
                }
            }
            if topics != self.topics {
                shared.rejoin = true;
            }
            if shared.active && !shared.rejoin {
                return Ok(events);
            }
        }
        self.topics = topics;
        self.ensure_heartbeat();
        self.join(&mut events)?;
        Ok(events)
    }

    /// Commits `offsets` (the next offset to read of each partition, with the leader epoch of
    /// the last record read) as a member of the current generation, waiting until the
    /// coordinator has written them.
    pub fn commit(&mut self, offsets: &[PartitionOffset]) -> Result<(), GroupClientError> {
        if offsets.is_empty() {
            return Ok(());
        }
        let (member_id, generation_id) = {
            let shared = lock(&self.shared);
            (shared.member_id.clone(), shared.generation)
        };
        let request = Request::OffsetCommit {
            group: self.config.group_id.clone(),
            member_id,
            generation_id,
            offsets: offsets.to_vec(),
        };
        match self.call(&request)? {
            Response::OffsetCommit(None) => Ok(()),
            Response::OffsetCommit(Some(
                ProtocolError::RebalanceInProgress
                | ProtocolError::IllegalGeneration
                | ProtocolError::UnknownMemberId
                | ProtocolError::FencedInstanceId,
            )) => {
                lock(&self.shared).rejoin = true;
                Err(GroupClientError::CommitFailed)
            }
            Response::OffsetCommit(Some(error)) => Err(self.refused("OffsetCommit", error)),
            other => Err(self.unexpected("OffsetCommit", other)),
        }
    }

    /// The group's committed offsets of `partitions` (`offset` -1: none), with their leader
    /// epochs.
    pub fn committed(
        &mut self,
        partitions: &[TopicPartition],
    ) -> Result<Vec<PartitionOffset>, GroupClientError> {
        let request = Request::OffsetFetch {
            group: self.config.group_id.clone(),
            partitions: partitions.to_vec(),
        };
        match self.call(&request)? {
            Response::OffsetFetch(offsets) => Ok(offsets),
            other => Err(self.unexpected("OffsetFetch", other)),
        }
    }

    /// Leaves the group (a dynamic member; a static one stays until its session expires, as
    /// Kafka's `close()`), stops heartbeating and, if it hosted the coordinator, stops hosting.
    pub fn close(mut self) -> Result<(), GroupClientError> {
        self.stop_heartbeat();
        let (member_id, active) = {
            let shared = lock(&self.shared);
            (shared.member_id.clone(), !shared.member_id.is_empty())
        };
        // A member of a cluster's group whose coordinator connection is gone (the broker went
        // away, or the run failed finding it) does not look for it again only to leave: the
        // coordinator forgets it when its session expires.
        #[cfg(feature = "net")]
        let active = active && !(matches!(self.place, Place::Cluster(_)) && self.conn.is_none());
        if active && self.config.group_instance_id.is_none() {
            let request = Request::Leave {
                group: self.config.group_id.clone(),
                member_id,
                group_instance_id: None,
            };
            // A coordinator that went away has forgotten the member already.
            let _ = self.call_once(&request);
        }
        Ok(())
    }

    /// Stops without a word: no LeaveGroup, no commit; heartbeats stop and a coordinator hosted
    /// here goes. The group learns of it when the member's session expires, as after `kill -9`
    /// (for failure drills and tests).
    pub fn abandon(mut self) {
        self.stop_heartbeat();
        self.conn = None;
        self.host = None;
    }

    fn refused(&self, request: &'static str, error: ProtocolError) -> GroupClientError {
        GroupClientError::Refused {
            request,
            group: self.config.group_id.clone(),
            error,
        }
    }

    fn unexpected(&self, request: &'static str, response: Response) -> GroupClientError {
        match response {
            Response::Failed(text) => GroupClientError::Coordinator(text),
            _ => GroupClientError::Unexpected(request),
        }
    }

    /// A connection to the coordinator: the one held, or a new one to whoever hosts it, or a
    /// coordinator hosted here when nobody does.
    fn connection(&mut self) -> Result<&mut Box<dyn CoordinatorConnection>, GroupClientError> {
        let deadline = Instant::now() + COORDINATOR_TIMEOUT;
        loop {
            if self.conn.is_some() {
                break;
            }
            // Without `net` the data directory is the only place.
            #[cfg_attr(not(feature = "net"), allow(clippy::infallible_destructuring_match))]
            let datadir = match &self.place {
                Place::Dir(datadir) => datadir,
                #[cfg(feature = "net")]
                Place::Cluster(coordinator) => {
                    // A JoinGroup waits for the rebalance: Kafka's client gives it the
                    // rebalance timeout plus 5 s.
                    let rebalance = u64::try_from(self.config.max_poll_interval_ms).unwrap_or(0);
                    let timeout = Duration::from_millis(rebalance + 5_000);
                    self.conn = Some(Box::new(coordinator.connect(Some(timeout))?));
                    break;
                }
            };
            match SocketConnection::connect(datadir.path(), self.partition) {
                Ok(conn) => {
                    self.conn = Some(Box::new(conn));
                    break;
                }
                Err(error) => {
                    if self.host.is_none() {
                        self.host = CoordinatorHost::try_start(
                            datadir,
                            self.partition,
                            self.config.coordinator,
                        )?;
                    }
                    if self.host.is_none() {
                        if Instant::now() >= deadline {
                            return Err(GroupClientError::Unreachable {
                                group: self.config.group_id.clone(),
                                source: error.into(),
                            });
                        }
                        // Another process holds the lock and is about to listen.
                        thread::sleep(Duration::from_millis(20));
                    }
                }
            }
        }
        self.conn
            .as_mut()
            .ok_or(GroupClientError::Unexpected("connect"))
    }

    fn call_once(&mut self, request: &Request) -> Result<Response, GroupClientError> {
        let conn = self.connection()?;
        match conn.call(request) {
            Ok(Response::NotCoordinator) | Err(_) => {
                self.conn = None;
                Err(GroupClientError::Coordinator(
                    "the coordinator went away".into(),
                ))
            }
            Ok(response) => Ok(response),
        }
    }

    /// A request, sent again to the next coordinator when the connection fails (which makes
    /// the member rejoin: the next coordinator does not know it). As Kafka's client retries a
    /// coordinator that moved, for as long as a takeover may take (the next host loads the
    /// partition's groups before it answers; slow on a loaded machine), not a number of times.
    fn call(&mut self, request: &Request) -> Result<Response, GroupClientError> {
        let deadline = Instant::now() + COORDINATOR_TIMEOUT;
        loop {
            let conn = self.connection()?;
            match conn.call(request) {
                Ok(Response::NotCoordinator) | Err(_) if Instant::now() < deadline => {
                    self.conn = None;
                    lock(&self.shared).rejoin = true;
                    thread::sleep(Duration::from_millis(20));
                }
                Err(source) => {
                    return Err(GroupClientError::Unreachable {
                        group: self.config.group_id.clone(),
                        source,
                    })
                }
                Ok(response) => return Ok(response),
            }
        }
    }

    fn subscription(
        &self,
        strategy: Strategy,
        generation: i32,
    ) -> Result<Vec<u8>, GroupClientError> {
        let user_data = match (strategy, &self.last_assignment) {
            (Strategy::CooperativeSticky, _) => Some(generation.to_be_bytes().to_vec()),
            (Strategy::Sticky, Some(last)) => Some(sticky_user_data(last)?),
            _ => None,
        };
        let subscription = Subscription {
            topics: self.topics.clone(),
            user_data,
            owned_partitions: topic_partitions(&self.owned),
            generation_id: generation,
            rack_id: None,
        };
        Ok(Versioned::new(3, subscription).encode()?)
    }

    /// `onJoinPrepare`, JoinGroup (two steps), the leader's assignment, SyncGroup,
    /// `onJoinComplete`; again while the coordinator asks for it.
    fn join(&mut self, events: &mut Vec<RebalanceEvent>) -> Result<(), GroupClientError> {
        let cooperative = self.config.cooperative();
        // Kafka's `needsJoinPrepare`: `onJoinPrepare` runs once per rebalance, not again when a
        // join or sync is retried (REBALANCE_IN_PROGRESS, MEMBER_ID_REQUIRED...), and again
        // after `onJoinComplete`.
        let mut needs_join_prepare = true;
        loop {
            {
                let mut shared = lock(&self.shared);
                shared.active = false;
                shared.rejoin = false;
            }
            if std::mem::take(&mut needs_join_prepare) {
                self.prepare_join(cooperative, events);
            }
            let (member_id, generation) = {
                let shared = lock(&self.shared);
                (shared.member_id.clone(), shared.generation)
            };
            let protocols = self
                .config
                .strategies
                .iter()
                .map(|s| Ok((s.name().to_string(), self.subscription(*s, generation)?)))
                .collect::<Result<Vec<_>, GroupClientError>>()?;
            let request = Request::Join {
                group: self.config.group_id.clone(),
                request: JoinRequest {
                    member_id: member_id.clone(),
                    group_instance_id: self.config.group_instance_id.clone(),
                    client_id: self.config.client_id.clone(),
                    client_host: "/127.0.0.1".to_string(),
                    session_timeout_ms: self.config.session_timeout_ms,
                    rebalance_timeout_ms: self.config.max_poll_interval_ms,
                    protocol_type: "consumer".to_string(),
                    protocols,
                },
            };
            let join = match self.call(&request)? {
                Response::Join(join) => join,
                other => return Err(self.unexpected("JoinGroup", other)),
            };
            match join.error {
                None => {}
                Some(ProtocolError::MemberIdRequired) => {
                    lock(&self.shared).member_id = join.member_id;
                    continue;
                }
                Some(ProtocolError::UnknownMemberId | ProtocolError::IllegalGeneration) => {
                    self.reset_member(events);
                    continue;
                }
                Some(ProtocolError::RebalanceInProgress) => continue,
                Some(error) => return Err(self.refused("JoinGroup", error)),
            }
            {
                let mut shared = lock(&self.shared);
                shared.member_id.clone_from(&join.member_id);
                shared.generation = join.generation_id;
            }
            self.protocol.clone_from(&join.protocol_name);
            let assignments = if join.leader == join.member_id && !join.skip_assignment {
                self.assign(&join)?
            } else {
                Vec::new()
            };
            let request = Request::Sync {
                group: self.config.group_id.clone(),
                member_id: join.member_id.clone(),
                generation_id: join.generation_id,
                assignments,
            };
            let sync = match self.call(&request)? {
                Response::Sync(sync) => sync,
                other => return Err(self.unexpected("SyncGroup", other)),
            };
            match sync.error {
                None => {}
                Some(ProtocolError::RebalanceInProgress) => continue,
                Some(ProtocolError::UnknownMemberId | ProtocolError::IllegalGeneration) => {
                    self.reset_member(events);
                    continue;
                }
                Some(error) => return Err(self.refused("SyncGroup", error)),
            }
            let assignment: Assignment = if sync.assignment.is_empty() {
                Assignment::default()
            } else {
                crate::group::protocol::decode::<Assignment>(&sync.assignment)?.message
            };
            let assigned: Vec<TopicPartition> = assignment
                .partitions()
                .map(|(t, p)| TopicPartition::new(t, p))
                .collect();
            let assigned_set: BTreeSet<&TopicPartition> = assigned.iter().collect();
            let owned_set: BTreeSet<&TopicPartition> = self.owned.iter().collect();
            let revoked: Vec<TopicPartition> = self
                .owned
                .iter()
                .filter(|p| !assigned_set.contains(p))
                .cloned()
                .collect();
            let added: Vec<TopicPartition> = assigned
                .iter()
                .filter(|p| !owned_set.contains(p))
                .cloned()
                .collect();
            if !revoked.is_empty() {
                events.push(RebalanceEvent::Revoked(revoked.clone()));
            }
            self.last_assignment = Some((assigned.clone(), join.generation_id));
            self.owned = assigned;
            // `onJoinComplete` calls the listener with what was added, even nothing.
            events.push(RebalanceEvent::Assigned(added));
            let mut shared = lock(&self.shared);
            shared.active = true;
            if cooperative && !revoked.is_empty() {
                // KIP-429: what moved goes to its new owner in the next round.
                shared.rejoin = true;
            }
            if !shared.rejoin {
                return Ok(());
            }
            needs_join_prepare = true;
        }
    }

    /// `onJoinPrepare`: eager, a member of a generation revokes everything, even nothing (Kafka
    /// logs the empty list too), while a new or reset member has nothing (what a reset member
    /// held went as lost); cooperative, only the partitions of topics no longer subscribed.
    fn prepare_join(&mut self, cooperative: bool, events: &mut Vec<RebalanceEvent>) {
        if !cooperative {
            let in_generation = {
                let shared = lock(&self.shared);
                shared.generation >= 0 || !shared.member_id.is_empty()
            };
            if in_generation {
                events.push(RebalanceEvent::Revoked(std::mem::take(&mut self.owned)));
            }
        } else {
            let (keep, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut self.owned)
                .into_iter()
                .partition(|tp| self.topics.iter().any(|t| *t == *tp.topic));
            self.owned = keep;
            if !gone.is_empty() {
                events.push(RebalanceEvent::Revoked(gone));
            }
        }
    }

    fn reset_member(&mut self, events: &mut Vec<RebalanceEvent>) {
        {
            let mut shared = lock(&self.shared);
            shared.member_id.clear();
            shared.generation = -1;
        }
        if !self.owned.is_empty() {
            events.push(RebalanceEvent::Lost(std::mem::take(&mut self.owned)));
        }
    }

    /// The leader's part: the selected assignor over every member's subscription.
    fn assign(
        &self,
        join: &crate::group::classic::JoinResponse,
    ) -> Result<Vec<(String, Vec<u8>)>, GroupClientError> {
        let strategy = join
            .protocol_name
            .as_deref()
            .and_then(Strategy::parse)
            .ok_or(GroupClientError::Unexpected("JoinGroup (no protocol)"))?;
        let mut members = Vec::new();
        let mut subscribed = BTreeSet::new();
        for m in &join.members {
            let s = crate::group::protocol::decode::<Subscription>(&m.metadata)?.message;
            subscribed.extend(s.topics.iter().cloned());
            let generation = (s.generation_id >= 0).then_some(s.generation_id);
            members.push(assign::Member {
                id: m.member_id.clone(),
                subscription: assign::Subscription {
                    topics: s.topics.into(),
                    owned: flattened(&s.owned_partitions),
                    generation,
                    user_data: match (strategy, s.user_data.as_deref()) {
                        (Strategy::CooperativeSticky, Some(bytes)) => {
                            Some(match <[u8; 4]>::try_from(bytes) {
                                Ok(b) => assign::UserData::Cooperative {
                                    generation: i32::from_be_bytes(b),
                                },
                                Err(_) => assign::UserData::Invalid,
                            })
                        }
                        // Kafka's `StickyAssignor.memberData`: no bytes, no previous assignment.
                        (Strategy::Sticky, Some(bytes)) if !bytes.is_empty() => {
                            Some(match StickyUserData::decode(bytes) {
                                Some(data) => assign::UserData::Sticky {
                                    partitions: flattened(&data.previous_assignment),
                                    generation: data.generation,
                                },
                                None => assign::UserData::Invalid,
                            })
                        }
                        _ => None,
                    },
                    rack: s.rack_id,
                    instance_id: m.group_instance_id.clone(),
                },
            });
        }
        let ids: Vec<&str> = members.iter().map(|m| m.id.as_str()).collect();
        let order = java::string_map_order(&ids);
        let members: Vec<assign::Member> = order
            .into_iter()
            .filter_map(|i| members.get(i).cloned())
            .collect();
        let names: Vec<&str> = subscribed.iter().map(String::as_str).collect();
        let topics: Vec<TopicMeta> = self
            .place
            .partition_counts(&names)?
            .into_iter()
            .map(|(name, count)| TopicMeta::new(name, count))
            .collect();
        let assignment = match strategy {
            Strategy::Range => range::assign(&topics, &members, false),
            Strategy::RoundRobin => roundrobin::assign(&topics, &members),
            Strategy::Sticky => {
                StickyAssignor::eager()
                    .assign(&topics, &members)?
                    .assignment
            }
            Strategy::CooperativeSticky => {
                StickyAssignor::cooperative()
                    .assign(&topics, &members)?
                    .assignment
            }
            other => return Err(GroupClientError::UnsupportedStrategy(other.name())),
        };
        members
            .iter()
            .map(|m| {
                let partitions: &[TopicPartition] =
                    assignment.get(&m.id).map_or(&[], |tps| tps.as_slice());
                let bytes = Versioned::new(
                    3,
                    Assignment {
                        assigned_partitions: topic_partitions(partitions),
                        user_data: None,
                    },
                )
                .encode()?;
                Ok((m.id.clone(), bytes))
            })
            .collect()
    }

    fn ensure_heartbeat(&mut self) {
        if self.heartbeat.is_some() {
            return;
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::clone(&self.shared);
        let closed = Arc::clone(&self.closed);
        let interval = Duration::from_millis(self.config.heartbeat_interval_ms.max(1));
        let mut connect = self.place.heartbeat_connector(self.partition, interval);
        let group = self.config.group_id.clone();
        let instance = self.config.group_instance_id.clone();
        let max_poll = Duration::from_millis(
            u64::try_from(self.config.max_poll_interval_ms).unwrap_or(u64::MAX),
        );
        let handle = thread::spawn(move || {
            let mut conn: Option<Box<dyn CoordinatorConnection>> = None;
            loop {
                match stopped.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
                if closed.load(Ordering::Relaxed) {
                    return;
                }
                let (member_id, generation_id, active, stalled) = {
                    let s = lock(&shared);
                    let stalled = s.last_poll.is_some_and(|t| t.elapsed() > max_poll);
                    (s.member_id.clone(), s.generation, s.active, stalled)
                };
                if !active || member_id.is_empty() {
                    continue;
                }
                if conn.is_none() {
                    conn = connect();
                }
                let Some(c) = conn.as_mut() else {
                    // Nobody serves the group: the member finds or becomes the next
                    // coordinator when it rejoins.
                    lock(&shared).rejoin = true;
                    continue;
                };
                let request = if stalled {
                    // `max.poll.interval.ms` passed without a poll: leave, as Kafka's
                    // heartbeat thread does, and rejoin at the next poll.
                    Request::Leave {
                        group: group.clone(),
                        member_id,
                        group_instance_id: None,
                    }
                } else {
                    Request::Heartbeat {
                        group: group.clone(),
                        member_id,
                        group_instance_id: instance.clone(),
                        generation_id,
                    }
                };
                match c.call(&request) {
                    Ok(Response::Heartbeat(None)) => {}
                    Ok(Response::Heartbeat(Some(ProtocolError::RebalanceInProgress))) => {
                        lock(&shared).rejoin = true;
                    }
                    Ok(Response::Heartbeat(Some(_)) | Response::Leave(_)) => {
                        let mut s = lock(&shared);
                        s.lost = true;
                        s.active = false;
                    }
                    Ok(_) | Err(_) => {
                        conn = None;
                        lock(&shared).rejoin = true;
                    }
                }
            }
        });
        self.heartbeat = Some((stop, handle));
    }

    fn stop_heartbeat(&mut self) {
        self.closed.store(true, Ordering::Relaxed);
        if let Some((stop, handle)) = self.heartbeat.take() {
            drop(stop);
            let _ = handle.join();
        }
    }
}

impl Drop for GroupMember {
    fn drop(&mut self) {
        self.stop_heartbeat();
    }
}

/// `StickyAssignor.subscriptionUserData`: the last assignment, in the order it came, grouped by
/// topic as `CollectionUtils.groupPartitionsByTopic` groups it (a `HashMap`: topics in its
/// iteration order), and the generation it was assigned in.
fn sticky_user_data(last: &(Vec<TopicPartition>, i32)) -> Result<Vec<u8>, WriteError> {
    let (partitions, generation) = last;
    let mut by_topic: Vec<TopicPartitions> = Vec::new();
    for tp in partitions {
        match by_topic.iter_mut().find(|t| *t.topic == *tp.topic) {
            Some(t) => t.partitions.push(tp.partition),
            None => by_topic.push(TopicPartitions {
                topic: tp.topic.to_string(),
                partitions: vec![tp.partition],
            }),
        }
    }
    let names: Vec<&str> = by_topic.iter().map(|t| t.topic.as_str()).collect();
    let previous_assignment = java::string_map_order(&names)
        .into_iter()
        .filter_map(|i| by_topic.get(i).cloned())
        .collect();
    StickyUserData {
        previous_assignment,
        generation: Some(*generation),
    }
    .encode()
}

/// Every partition of `topics`, in the order given.
fn flattened(topics: &[TopicPartitions]) -> Vec<TopicPartition> {
    topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| TopicPartition::new(t.topic.as_str(), *p))
        })
        .collect()
}

/// Partitions grouped by topic, topics and partitions in order.
fn topic_partitions(partitions: &[TopicPartition]) -> Vec<TopicPartitions> {
    let mut out: Vec<TopicPartitions> = Vec::new();
    let mut sorted: Vec<&TopicPartition> = partitions.iter().collect();
    sorted.sort();
    for tp in sorted {
        match out.last_mut() {
            Some(last) if *last.topic == *tp.topic => last.partitions.push(tp.partition),
            _ => out.push(TopicPartitions {
                topic: tp.topic.to_string(),
                partitions: vec![tp.partition],
            }),
        }
    }
    out
}
