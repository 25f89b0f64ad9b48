//! The coordinator's side of Kafka's classic group protocol (JoinGroup, SyncGroup, Heartbeat,
//! LeaveGroup) for one group, as Kafka's `GroupMetadataManager` runs a `ClassicGroup`: states,
//! generations, the leader, protocol selection, the initial rebalance delay, rebalance and
//! session timeouts, and static membership (`spec/kafka-assignors.md` §6.2).
//!
//! It is a pure state machine: no clock, no I/O. Every call takes the time in milliseconds; a
//! request is answered at once (`Some(reply)`) or parked until the join or sync phase completes,
//! and the replies a call releases for parked requests (its own included) are collected until
//! [`ClassicGroup::take_deliveries`]. [`ClassicGroup::tick`] runs the timers (initial delay,
//! join deadline, sync deadline, session expiry); [`ClassicGroup::next_deadline`] says when it
//! next needs to run. The coordinator never reads the protocols' metadata or the assignments:
//! they are the consumers' bytes (`ConsumerProtocolSubscription`/`Assignment`).
//!
//! One deliberate difference: Kafka keeps members in a `HashMap` and, where it must pick "the
//! first" member (a new leader when the leader leaves or has not rejoined), takes the first in
//! that map's iteration order, which for random member ids is arbitrary. This keeps members in
//! join order and picks the earliest joined, so a run is reproducible.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::state::GroupState;

use ClassicGroupState as State;

/// The errors of Kafka's (`Errors`) the classic protocol answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProtocolError {
    /// `COORDINATOR_NOT_AVAILABLE` (15): the group is being removed.
    CoordinatorNotAvailable,
    /// `NOT_COORDINATOR` (16): the group's coordinator is elsewhere.
    NotCoordinator,
    /// `ILLEGAL_GENERATION` (22).
    IllegalGeneration,
    /// `INCONSISTENT_GROUP_PROTOCOL` (23): another protocol type, or no protocol every member
    /// supports.
    InconsistentGroupProtocol,
    /// `INVALID_GROUP_ID` (24).
    InvalidGroupId,
    /// `UNKNOWN_MEMBER_ID` (25).
    UnknownMemberId,
    /// `INVALID_SESSION_TIMEOUT` (26): outside the coordinator's allowed range.
    InvalidSessionTimeout,
    /// `REBALANCE_IN_PROGRESS` (27).
    RebalanceInProgress,
    /// `MEMBER_ID_REQUIRED` (79): a new dynamic member gets its id and must join again with it.
    MemberIdRequired,
    /// `GROUP_MAX_SIZE_REACHED` (81).
    GroupMaxSizeReached,
    /// `FENCED_INSTANCE_ID` (82): a newer member holds this `group.instance.id`.
    FencedInstanceId,
}

impl ProtocolError {
    /// Kafka's numeric error code.
    pub fn code(self) -> i16 {
        match self {
            ProtocolError::CoordinatorNotAvailable => 15,
            ProtocolError::NotCoordinator => 16,
            ProtocolError::IllegalGeneration => 22,
            ProtocolError::InconsistentGroupProtocol => 23,
            ProtocolError::InvalidGroupId => 24,
            ProtocolError::UnknownMemberId => 25,
            ProtocolError::InvalidSessionTimeout => 26,
            ProtocolError::RebalanceInProgress => 27,
            ProtocolError::MemberIdRequired => 79,
            ProtocolError::GroupMaxSizeReached => 81,
            ProtocolError::FencedInstanceId => 82,
        }
    }
}

/// A classic group's state (Kafka's `ClassicGroupState`); the tools show it as a
/// [`GroupState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassicGroupState {
    /// No members (offsets may remain).
    Empty,
    /// Waiting for the members to join the next generation.
    PreparingRebalance,
    /// Joined; waiting for the leader's assignment.
    CompletingRebalance,
    /// Assigned; members heartbeat.
    Stable,
    /// Removed.
    Dead,
}

impl From<ClassicGroupState> for GroupState {
    fn from(state: ClassicGroupState) -> Self {
        match state {
            State::Empty => GroupState::Empty,
            State::PreparingRebalance => GroupState::PreparingRebalance,
            State::CompletingRebalance => GroupState::CompletingRebalance,
            State::Stable => GroupState::Stable,
            State::Dead => GroupState::Dead,
        }
    }
}

/// The coordinator's settings (`group.*` broker configs), in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct CoordinatorConfig {
    /// `group.initial.rebalance.delay.ms` (3 000): how long the first rebalance of an empty
    /// group waits for more members, extended by as much again while members keep coming, up
    /// to the rebalance timeout.
    pub initial_rebalance_delay_ms: i64,
    /// `group.min.session.timeout.ms` (6 000).
    pub min_session_timeout_ms: i32,
    /// `group.max.session.timeout.ms` (1 800 000).
    pub max_session_timeout_ms: i32,
    /// `group.max.size` (unbounded).
    pub max_size: usize,
}

impl Default for CoordinatorConfig {
    fn default() -> Self {
        CoordinatorConfig {
            initial_rebalance_delay_ms: 3_000,
            min_session_timeout_ms: 6_000,
            max_session_timeout_ms: 1_800_000,
            max_size: usize::MAX,
        }
    }
}

/// A JoinGroup request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinRequest {
    /// Empty for a member joining for the first time.
    pub member_id: String,
    /// `group.instance.id`: a static member.
    pub group_instance_id: Option<String>,
    /// The client's `client.id` (the prefix of a new member id).
    pub client_id: String,
    /// The client's host, as the coordinator saw it.
    pub client_host: String,
    /// `session.timeout.ms`.
    pub session_timeout_ms: i32,
    /// `max.poll.interval.ms` for consumers.
    pub rebalance_timeout_ms: i32,
    /// `consumer` for consumers.
    pub protocol_type: String,
    /// The member's protocols (assignor names) in its order of preference, each with its
    /// metadata (the subscription).
    pub protocols: Vec<(String, Vec<u8>)>,
}

/// A member as the JoinGroup response lists it to the leader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinedMember {
    /// Its member id.
    pub member_id: String,
    /// Its `group.instance.id`.
    pub group_instance_id: Option<String>,
    /// Its metadata for the selected protocol.
    pub metadata: Vec<u8>,
}

/// A JoinGroup response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinResponse {
    /// `None` on success.
    pub error: Option<ProtocolError>,
    /// The generation joined (-1 on error).
    pub generation_id: i32,
    /// The protocol type.
    pub protocol_type: Option<String>,
    /// The selected protocol (assignor).
    pub protocol_name: Option<String>,
    /// The leader's member id.
    pub leader: String,
    /// The member's id (new members learn theirs here).
    pub member_id: String,
    /// All members with their metadata, for the leader only (and not when `skip_assignment`).
    pub members: Vec<JoinedMember>,
    /// A returning static leader keeps the current assignment and must not compute one.
    pub skip_assignment: bool,
}

/// A SyncGroup response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncResponse {
    /// `None` on success.
    pub error: Option<ProtocolError>,
    /// The member's assignment bytes.
    pub assignment: Vec<u8>,
}

/// A reply for a parked request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// To a JoinGroup.
    Join(JoinResponse),
    /// To a SyncGroup.
    Sync(SyncResponse),
}

/// A reply released for the member that sent the parked request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Who parked the request (the id it joined with; empty for none).
    pub member_id: String,
    /// The reply.
    pub reply: Reply,
}

/// A member of the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its id.
    pub member_id: String,
    /// Its `group.instance.id`.
    pub group_instance_id: Option<String>,
    /// Its `client.id`.
    pub client_id: String,
    /// Its host.
    pub client_host: String,
    /// `session.timeout.ms`.
    pub session_timeout_ms: i32,
    /// `max.poll.interval.ms`.
    pub rebalance_timeout_ms: i32,
    /// Its protocols with their metadata.
    pub protocols: Vec<(String, Vec<u8>)>,
    /// Its assignment in the current generation.
    pub assignment: Vec<u8>,
    awaiting_join: bool,
    awaiting_sync: bool,
    session_deadline: i64,
}

impl Member {
    /// Its metadata for `protocol`.
    pub fn metadata(&self, protocol: &str) -> Option<&[u8]> {
        self.protocols
            .iter()
            .find(|(name, _)| name == protocol)
            .map(|(_, metadata)| metadata.as_slice())
    }
}

/// What the join phase is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JoinTimer {
    /// The first rebalance of an empty group: wait `delay`, then as long again while new
    /// members came, up to `remaining` more.
    Initial { at: i64, delay: i64, remaining: i64 },
    /// Every known member rejoins, or the deadline passes.
    Deadline(i64),
}

/// One classic group on its coordinator.
#[derive(Debug, Clone)]
pub struct ClassicGroup {
    group_id: String,
    config: CoordinatorConfig,
    state: State,
    generation_id: i32,
    protocol_type: Option<String>,
    protocol_name: Option<String>,
    leader: Option<String>,
    /// In join order.
    members: Vec<Member>,
    /// New dynamic members given an id (`MEMBER_ID_REQUIRED`), with the time they must
    /// rejoin by.
    pending_members: BTreeMap<String, i64>,
    join_timer: Option<JoinTimer>,
    new_member_added: bool,
    /// When members that have not synced are removed (CompletingRebalance).
    sync_deadline: Option<i64>,
    deliveries: Vec<Delivery>,
}

impl ClassicGroup {
    /// A new, empty group.
    pub fn new(group_id: &str, config: CoordinatorConfig) -> Self {
        ClassicGroup {
            group_id: group_id.to_string(),
            config,
            state: State::Empty,
            generation_id: 0,
            protocol_type: None,
            protocol_name: None,
            leader: None,
            members: Vec::new(),
            pending_members: BTreeMap::new(),
            join_timer: None,
            new_member_added: false,
            sync_deadline: None,
            deliveries: Vec::new(),
        }
    }

    /// An empty group that goes on from `generation_id`, as a coordinator that loads a
    /// group from `__consumer_offsets` takes it over: its members rejoin (a new coordinator
    /// has none of their sessions), and the next generation follows the stored one.
    pub fn resume(group_id: &str, config: CoordinatorConfig, generation_id: i32) -> Self {
        let mut group = ClassicGroup::new(group_id, config);
        group.generation_id = generation_id;
        group
    }

    /// The group's id.
    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    /// Its state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The current generation.
    pub fn generation_id(&self) -> i32 {
        self.generation_id
    }

    /// The selected protocol (assignor) of the current generation.
    pub fn protocol_name(&self) -> Option<&str> {
        self.protocol_name.as_deref()
    }

    /// The protocol type (`consumer`).
    pub fn protocol_type(&self) -> Option<&str> {
        self.protocol_type.as_deref()
    }

    /// The leader's member id.
    pub fn leader(&self) -> Option<&str> {
        self.leader.as_deref()
    }

    /// The members, in join order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The replies released since the last call, in the order they were released.
    pub fn take_deliveries(&mut self) -> Vec<Delivery> {
        std::mem::take(&mut self.deliveries)
    }

    /// A JoinGroup. `new_member_id` makes the id of a member joining for the first time (Kafka:
    /// `clientId + "-" + UUID`). `require_known_member_id` is JoinGroup v4+'s two-step join of
    /// dynamic members.
    pub fn join(
        &mut self,
        request: JoinRequest,
        require_known_member_id: bool,
        new_member_id: impl FnOnce(&str) -> String,
        now: i64,
    ) -> Option<JoinResponse> {
        if let Err(error) = self.validate_join(&request) {
            return Some(self.join_error(error, &request.member_id));
        }
        if request.member_id.is_empty() {
            let member_id = new_member_id(&request.client_id);
            if let Some(instance) = request.group_instance_id.clone() {
                return self.join_new_static(request, &instance, member_id, now);
            }
            if require_known_member_id {
                let deadline = now + i64::from(request.session_timeout_ms);
                self.pending_members.insert(member_id.clone(), deadline);
                return Some(self.join_error(ProtocolError::MemberIdRequired, &member_id));
            }
            return self.add_member_and_rebalance(request, member_id, now);
        }
        self.join_existing(request, now)
    }

    fn validate_join(&self, request: &JoinRequest) -> Result<(), ProtocolError> {
        if self.group_id.is_empty() {
            return Err(ProtocolError::InvalidGroupId);
        }
        if request.session_timeout_ms < self.config.min_session_timeout_ms
            || request.session_timeout_ms > self.config.max_session_timeout_ms
        {
            return Err(ProtocolError::InvalidSessionTimeout);
        }
        if self.state == State::Dead {
            return Err(ProtocolError::CoordinatorNotAvailable);
        }
        if request.protocol_type.is_empty() || request.protocols.is_empty() {
            return Err(ProtocolError::InconsistentGroupProtocol);
        }
        if !self.members.is_empty() {
            let same_type = self.protocol_type.as_deref() == Some(request.protocol_type.as_str());
            let supported = request.protocols.iter().any(|(name, _)| {
                self.members
                    .iter()
                    .filter(|m| m.member_id != request.member_id)
                    .all(|m| m.metadata(name).is_some())
            });
            if !same_type || !supported {
                return Err(ProtocolError::InconsistentGroupProtocol);
            }
        }
        let known = self.member(&request.member_id).is_some()
            || request
                .group_instance_id
                .as_deref()
                .is_some_and(|i| self.static_member(i).is_some());
        if !known && self.members.len() >= self.config.max_size {
            return Err(ProtocolError::GroupMaxSizeReached);
        }
        Ok(())
    }

    fn join_new_static(
        &mut self,
        request: JoinRequest,
        instance: &str,
        member_id: String,
        now: i64,
    ) -> Option<JoinResponse> {
        let Some(old_id) = self.static_member(instance).map(|m| m.member_id.clone()) else {
            return self.add_member_and_rebalance(request, member_id, now);
        };
        // A static member comes back under a new member id: it replaces the old one, keeps its
        // assignment, and the group rebalances only if what it asks for changed.
        let was_leader = self.leader.as_deref() == Some(old_id.as_str());
        let old_protocols = self.member(&old_id).map(|m| m.protocols.clone());
        let (old_pending, awaiting_sync) = self
            .member(&old_id)
            .map_or((false, false), |m| (m.awaiting_join, m.awaiting_sync));
        if old_pending {
            self.deliver(
                &old_id,
                Reply::Join(self.join_error(ProtocolError::FencedInstanceId, &old_id)),
            );
        }
        if awaiting_sync {
            self.deliver(
                &old_id,
                Reply::Sync(SyncResponse {
                    error: Some(ProtocolError::FencedInstanceId),
                    assignment: Vec::new(),
                }),
            );
        }
        if let Some(m) = self.member_mut(&old_id) {
            m.member_id = member_id.clone();
            m.client_id = request.client_id.clone();
            m.client_host = request.client_host.clone();
            m.session_timeout_ms = request.session_timeout_ms;
            m.rebalance_timeout_ms = request.rebalance_timeout_ms;
            m.awaiting_sync = false;
            m.session_deadline = now + i64::from(request.session_timeout_ms);
        }
        if was_leader {
            self.leader = Some(member_id.clone());
        }
        let unchanged = old_protocols.as_ref() == Some(&request.protocols);
        match self.state {
            State::Stable if unchanged => {
                // A returning static leader is told the members but keeps the assignment.
                let mut response = self.join_success(&member_id, was_leader);
                response.skip_assignment = was_leader;
                Some(response)
            }
            State::CompletingRebalance if unchanged => {
                Some(self.join_success(&member_id, was_leader))
            }
            _ => {
                if let Some(m) = self.member_mut(&member_id) {
                    m.protocols = request.protocols;
                    m.awaiting_join = true;
                }
                self.prepare_or_complete(now);
                None
            }
        }
    }

    fn join_existing(&mut self, request: JoinRequest, now: i64) -> Option<JoinResponse> {
        let member_id = request.member_id.clone();
        if self.pending_members.remove(&member_id).is_some() {
            return self.add_member_and_rebalance(request, member_id, now);
        }
        if let Some(instance) = request.group_instance_id.as_deref() {
            if let Some(current) = self.static_member(instance) {
                if current.member_id != member_id {
                    return Some(self.join_error(ProtocolError::FencedInstanceId, &member_id));
                }
            }
        }
        let Some(member) = self.member(&member_id) else {
            return Some(self.join_error(ProtocolError::UnknownMemberId, &member_id));
        };
        let unchanged = member.protocols == request.protocols;
        let is_leader = self.leader.as_deref() == Some(member_id.as_str());
        match self.state {
            State::Empty | State::Dead => {
                Some(self.join_error(ProtocolError::UnknownMemberId, &member_id))
            }
            State::CompletingRebalance if unchanged => {
                // The member lost the response: it gets the same one again.
                Some(self.join_success(&member_id, is_leader))
            }
            State::Stable if unchanged && !is_leader => {
                // A follower learning the current generation: no rebalance.
                Some(self.join_success(&member_id, false))
            }
            _ => {
                self.update_member(&member_id, request, now);
                self.prepare_or_complete(now);
                None
            }
        }
    }

    fn add_member_and_rebalance(
        &mut self,
        request: JoinRequest,
        member_id: String,
        now: i64,
    ) -> Option<JoinResponse> {
        if self.members.is_empty() {
            self.protocol_type = Some(request.protocol_type.clone());
        }
        self.members.push(Member {
            member_id: member_id.clone(),
            group_instance_id: request.group_instance_id,
            client_id: request.client_id,
            client_host: request.client_host,
            session_timeout_ms: request.session_timeout_ms,
            rebalance_timeout_ms: request.rebalance_timeout_ms,
            protocols: request.protocols,
            assignment: Vec::new(),
            awaiting_join: true,
            awaiting_sync: false,
            session_deadline: now + i64::from(request.session_timeout_ms),
        });
        if self.leader.is_none() {
            self.leader = Some(member_id);
        }
        self.new_member_added = true;
        self.prepare_or_complete(now);
        None
    }

    fn update_member(&mut self, member_id: &str, request: JoinRequest, now: i64) {
        if let Some(m) = self.member_mut(member_id) {
            m.protocols = request.protocols;
            m.client_id = request.client_id;
            m.client_host = request.client_host;
            m.session_timeout_ms = request.session_timeout_ms;
            m.rebalance_timeout_ms = request.rebalance_timeout_ms;
            m.awaiting_join = true;
            m.session_deadline = now + i64::from(m.session_timeout_ms);
        }
    }

    /// `maybePrepareRebalanceOrCompleteJoin`.
    fn prepare_or_complete(&mut self, now: i64) {
        match self.state {
            State::Stable | State::CompletingRebalance | State::Empty => {
                self.prepare_rebalance(now);
            }
            State::PreparingRebalance => self.maybe_complete_join(now),
            State::Dead => {}
        }
    }

    fn prepare_rebalance(&mut self, now: i64) {
        if self.state == State::CompletingRebalance {
            self.reset_pending_syncs(ProtocolError::RebalanceInProgress, now);
        }
        self.sync_deadline = None;
        self.join_timer = Some(if self.state == State::Empty {
            let delay = self.config.initial_rebalance_delay_ms;
            self.new_member_added = false;
            JoinTimer::Initial {
                at: now + delay,
                delay,
                remaining: (self.rebalance_timeout() - delay).max(0),
            }
        } else {
            JoinTimer::Deadline(now + self.rebalance_timeout())
        });
        self.state = State::PreparingRebalance;
        self.maybe_complete_join(now);
    }

    /// The join phase ends when every member has rejoined (not during the initial delay).
    fn maybe_complete_join(&mut self, now: i64) {
        let all_joined = self.members.iter().all(|m| m.awaiting_join);
        if self.state == State::PreparingRebalance
            && all_joined
            && matches!(self.join_timer, Some(JoinTimer::Deadline(_)))
        {
            self.complete_join(now);
        }
    }

    /// `onCompleteJoin`.
    fn complete_join(&mut self, now: i64) {
        self.join_timer = None;
        // Dynamic members that did not rejoin are dropped; static ones stay until their
        // session expires.
        self.members
            .retain(|m| m.awaiting_join || m.group_instance_id.is_some());
        if !self.members.is_empty() && self.members.iter().all(|m| !m.awaiting_join) {
            // Only static members that have not rejoined are left: wait another rebalance
            // timeout, while their sessions run out.
            self.join_timer = Some(JoinTimer::Deadline(now + self.rebalance_timeout()));
            return;
        }
        if self.members.is_empty() {
            self.generation_id += 1;
            self.state = State::Empty;
            self.protocol_name = None;
            self.leader = None;
            return;
        }
        // `maybeElectNewJoinedLeader`: a leader that has not rejoined hands over to the first
        // member that has.
        let leader_joined = self
            .leader
            .as_deref()
            .and_then(|l| self.member(l))
            .is_some_and(|m| m.awaiting_join);
        if !leader_joined {
            self.leader = self
                .members
                .iter()
                .find(|m| m.awaiting_join)
                .map(|m| m.member_id.clone());
        }
        self.generation_id += 1;
        self.protocol_name = self.select_protocol();
        self.state = State::CompletingRebalance;
        let rebalance_timeout = self.rebalance_timeout();
        self.sync_deadline = Some(now + rebalance_timeout);
        let leader = self.leader.clone().unwrap_or_default();
        let joined: Vec<String> = self
            .members
            .iter()
            .filter(|m| m.awaiting_join)
            .map(|m| m.member_id.clone())
            .collect();
        for member_id in joined {
            let response = self.join_success(&member_id, member_id == leader);
            if let Some(m) = self.member_mut(&member_id) {
                m.awaiting_join = false;
                m.awaiting_sync = false;
                m.session_deadline = now + i64::from(m.session_timeout_ms);
            }
            self.deliver(&member_id, Reply::Join(response));
        }
    }

    /// Kafka's `selectProtocol`: of the protocols every member supports, each member votes for
    /// its first; the most votes wins (ties: the first candidate in the leader's order).
    fn select_protocol(&self) -> Option<String> {
        let first = self.members.first()?;
        let candidates: Vec<&str> = first
            .protocols
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| self.members.iter().all(|m| m.metadata(name).is_some()))
            .collect();
        let mut votes: Vec<(&str, usize)> = candidates.iter().map(|c| (*c, 0)).collect();
        for m in &self.members {
            let vote = m
                .protocols
                .iter()
                .map(|(name, _)| name.as_str())
                .find(|name| candidates.contains(name));
            if let Some(slot) = votes.iter_mut().find(|(c, _)| Some(*c) == vote) {
                slot.1 += 1;
            }
        }
        let mut best: Option<(&str, usize)> = None;
        for (name, count) in votes {
            if best.is_none_or(|(_, b)| count > b) {
                best = Some((name, count));
            }
        }
        best.map(|(name, _)| name.to_string())
    }

    /// A SyncGroup. The leader's `assignments` (member id → bytes) become every member's;
    /// members it leaves out get an empty assignment.
    pub fn sync(
        &mut self,
        member_id: &str,
        generation_id: i32,
        assignments: Vec<(String, Vec<u8>)>,
        now: i64,
    ) -> Option<SyncResponse> {
        let error = |error| {
            Some(SyncResponse {
                error: Some(error),
                assignment: Vec::new(),
            })
        };
        if self.member(member_id).is_none() {
            return error(ProtocolError::UnknownMemberId);
        }
        if generation_id != self.generation_id {
            return error(ProtocolError::IllegalGeneration);
        }
        match self.state {
            State::Empty | State::Dead => error(ProtocolError::UnknownMemberId),
            State::PreparingRebalance => error(ProtocolError::RebalanceInProgress),
            State::Stable => {
                self.touch(member_id, now);
                Some(SyncResponse {
                    error: None,
                    assignment: self
                        .member(member_id)
                        .map(|m| m.assignment.clone())
                        .unwrap_or_default(),
                })
            }
            State::CompletingRebalance => {
                self.touch(member_id, now);
                if let Some(m) = self.member_mut(member_id) {
                    m.awaiting_sync = true;
                }
                if self.leader.as_deref() == Some(member_id) {
                    let mut by_member: BTreeMap<String, Vec<u8>> =
                        assignments.into_iter().collect();
                    for m in &mut self.members {
                        m.assignment = by_member.remove(&m.member_id).unwrap_or_default();
                    }
                    self.state = State::Stable;
                    self.sync_deadline = None;
                    let waiting: Vec<(String, Vec<u8>)> = self
                        .members
                        .iter()
                        .filter(|m| m.awaiting_sync)
                        .map(|m| (m.member_id.clone(), m.assignment.clone()))
                        .collect();
                    for (id, assignment) in waiting {
                        if let Some(m) = self.member_mut(&id) {
                            m.awaiting_sync = false;
                            // Answered: its session runs again from now.
                            m.session_deadline = now + i64::from(m.session_timeout_ms);
                        }
                        self.deliver(
                            &id,
                            Reply::Sync(SyncResponse {
                                error: None,
                                assignment,
                            }),
                        );
                    }
                }
                None
            }
        }
    }

    /// A Heartbeat: `None` when all is well, else what the member must do (rejoin on
    /// `RebalanceInProgress`).
    pub fn heartbeat(
        &mut self,
        member_id: &str,
        group_instance_id: Option<&str>,
        generation_id: i32,
        now: i64,
    ) -> Option<ProtocolError> {
        if let Some(instance) = group_instance_id {
            if self
                .static_member(instance)
                .is_some_and(|m| m.member_id != member_id)
            {
                return Some(ProtocolError::FencedInstanceId);
            }
        }
        if self.member(member_id).is_none() {
            return Some(ProtocolError::UnknownMemberId);
        }
        match self.state {
            State::Empty | State::Dead => Some(ProtocolError::UnknownMemberId),
            State::PreparingRebalance => {
                self.touch(member_id, now);
                Some(ProtocolError::RebalanceInProgress)
            }
            State::CompletingRebalance | State::Stable => {
                if generation_id != self.generation_id {
                    return Some(ProtocolError::IllegalGeneration);
                }
                self.touch(member_id, now);
                None
            }
        }
    }

    /// A LeaveGroup of one member (a static member leaves only when it names its instance id,
    /// which a consumer's `close()` does not).
    pub fn leave(
        &mut self,
        member_id: &str,
        group_instance_id: Option<&str>,
        now: i64,
    ) -> Option<ProtocolError> {
        if let Some(instance) = group_instance_id {
            match self.static_member(instance) {
                Some(m) if m.member_id != member_id && !member_id.is_empty() => {
                    return Some(ProtocolError::FencedInstanceId)
                }
                Some(m) => {
                    let id = m.member_id.clone();
                    self.remove_member(&id, now);
                    return None;
                }
                None => return Some(ProtocolError::UnknownMemberId),
            }
        }
        if self.pending_members.remove(member_id).is_some() {
            return None;
        }
        if self.member(member_id).is_none() {
            return Some(ProtocolError::UnknownMemberId);
        }
        self.remove_member(member_id, now);
        None
    }

    /// Runs the timers due at `now`: the join phase's end, members that did not sync in time,
    /// sessions that expired, pending member ids never used.
    pub fn tick(&mut self, now: i64) {
        self.pending_members.retain(|_, deadline| *deadline > now);
        // An extended initial delay may be due already (a delay of 0 is extended by 0).
        while let Some(JoinTimer::Initial {
            at,
            delay,
            remaining,
        }) = self.join_timer
        {
            if at > now {
                break;
            }
            if self.new_member_added && remaining > 0 {
                self.new_member_added = false;
                let step = delay.min(remaining);
                self.join_timer = Some(JoinTimer::Initial {
                    at: at + step,
                    delay,
                    remaining: remaining - step,
                });
            } else {
                self.complete_join(now);
            }
        }
        if let Some(JoinTimer::Deadline(at)) = self.join_timer {
            if at <= now {
                self.complete_join(now);
            }
        }
        if self.sync_deadline.is_some_and(|at| at <= now) {
            // Members that did not sync in time leave; the rest rebalance again.
            let late: Vec<String> = self
                .members
                .iter()
                .filter(|m| !m.awaiting_sync)
                .map(|m| m.member_id.clone())
                .collect();
            self.sync_deadline = None;
            for id in late {
                self.remove_member(&id, now);
            }
        }
        let expired: Vec<String> = self
            .members
            .iter()
            .filter(|m| !m.awaiting_join && !m.awaiting_sync && m.session_deadline <= now)
            .map(|m| m.member_id.clone())
            .collect();
        for id in expired {
            self.remove_member(&id, now);
        }
    }

    /// When [`Self::tick`] next has something to do, if ever.
    pub fn next_deadline(&self) -> Option<i64> {
        let join = self.join_timer.map(|t| match t {
            JoinTimer::Initial { at, .. } | JoinTimer::Deadline(at) => at,
        });
        let sessions = self
            .members
            .iter()
            .filter(|m| !m.awaiting_join && !m.awaiting_sync)
            .map(|m| m.session_deadline);
        join.into_iter()
            .chain(self.sync_deadline)
            .chain(sessions)
            .chain(self.pending_members.values().copied())
            .min()
    }

    /// `removeMemberAndUpdateClassicGroup`.
    fn remove_member(&mut self, member_id: &str, now: i64) {
        let Some(index) = self.members.iter().position(|m| m.member_id == member_id) else {
            return;
        };
        let member = self.members.remove(index);
        if member.awaiting_join {
            self.deliver(
                member_id,
                Reply::Join(self.join_error(ProtocolError::UnknownMemberId, member_id)),
            );
        }
        if member.awaiting_sync {
            self.deliver(
                member_id,
                Reply::Sync(SyncResponse {
                    error: Some(ProtocolError::UnknownMemberId),
                    assignment: Vec::new(),
                }),
            );
        }
        if self.leader.as_deref() == Some(member_id) {
            self.leader = self.members.first().map(|m| m.member_id.clone());
        }
        match self.state {
            State::Stable | State::CompletingRebalance => self.prepare_rebalance(now),
            State::PreparingRebalance => {
                if self.members.is_empty()
                    && !matches!(self.join_timer, Some(JoinTimer::Initial { .. }))
                {
                    self.complete_join(now);
                } else {
                    self.maybe_complete_join(now);
                }
            }
            State::Empty | State::Dead => {}
        }
    }

    fn reset_pending_syncs(&mut self, error: ProtocolError, now: i64) {
        let waiting: Vec<String> = self
            .members
            .iter()
            .filter(|m| m.awaiting_sync)
            .map(|m| m.member_id.clone())
            .collect();
        for id in waiting {
            if let Some(m) = self.member_mut(&id) {
                m.awaiting_sync = false;
                // Answered: its session runs again from now.
                m.session_deadline = now + i64::from(m.session_timeout_ms);
                m.assignment.clear();
            }
            self.deliver(
                &id,
                Reply::Sync(SyncResponse {
                    error: Some(error),
                    assignment: Vec::new(),
                }),
            );
        }
        for m in &mut self.members {
            m.assignment.clear();
        }
    }

    fn join_success(&self, member_id: &str, with_members: bool) -> JoinResponse {
        JoinResponse {
            error: None,
            generation_id: self.generation_id,
            protocol_type: self.protocol_type.clone(),
            protocol_name: self.protocol_name.clone(),
            leader: self.leader.clone().unwrap_or_default(),
            member_id: member_id.to_string(),
            members: if with_members {
                self.joined_members()
            } else {
                Vec::new()
            },
            skip_assignment: false,
        }
    }

    fn joined_members(&self) -> Vec<JoinedMember> {
        let protocol = self.protocol_name.as_deref().unwrap_or_default();
        self.members
            .iter()
            .map(|m| JoinedMember {
                member_id: m.member_id.clone(),
                group_instance_id: m.group_instance_id.clone(),
                metadata: m.metadata(protocol).map(<[u8]>::to_vec).unwrap_or_default(),
            })
            .collect()
    }

    fn join_error(&self, error: ProtocolError, member_id: &str) -> JoinResponse {
        JoinResponse {
            error: Some(error),
            generation_id: -1,
            protocol_type: None,
            protocol_name: None,
            leader: String::new(),
            member_id: member_id.to_string(),
            members: Vec::new(),
            skip_assignment: false,
        }
    }

    fn deliver(&mut self, member_id: &str, reply: Reply) {
        self.deliveries.push(Delivery {
            member_id: member_id.to_string(),
            reply,
        });
    }

    fn touch(&mut self, member_id: &str, now: i64) {
        if let Some(m) = self.member_mut(member_id) {
            m.session_deadline = now + i64::from(m.session_timeout_ms);
        }
    }

    fn rebalance_timeout(&self) -> i64 {
        self.members
            .iter()
            .map(|m| i64::from(m.rebalance_timeout_ms))
            .max()
            .unwrap_or(0)
    }

    fn member(&self, member_id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.member_id == member_id)
    }

    fn member_mut(&mut self, member_id: &str) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.member_id == member_id)
    }

    fn static_member(&self, instance: &str) -> Option<&Member> {
        self.members
            .iter()
            .find(|m| m.group_instance_id.as_deref() == Some(instance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: i32 = 10_000;
    const REBALANCE: i32 = 30_000;

    fn request(member_id: &str, instance: Option<&str>, protocols: &[&str]) -> JoinRequest {
        JoinRequest {
            member_id: member_id.to_string(),
            group_instance_id: instance.map(str::to_string),
            client_id: "console-consumer".to_string(),
            client_host: "/127.0.0.1".to_string(),
            session_timeout_ms: SESSION,
            rebalance_timeout_ms: REBALANCE,
            protocol_type: "consumer".to_string(),
            protocols: protocols
                .iter()
                .map(|p| (p.to_string(), format!("{p}-metadata").into_bytes()))
                .collect(),
        }
    }

    fn group(delay: i64) -> ClassicGroup {
        ClassicGroup::new(
            "g",
            CoordinatorConfig {
                initial_rebalance_delay_ms: delay,
                ..CoordinatorConfig::default()
            },
        )
    }

    /// A new dynamic member's two-step join; `None`: its join is parked.
    fn join_new(g: &mut ClassicGroup, id: &str, now: i64) -> Option<JoinResponse> {
        let first = g
            .join(request("", None, &["range"]), true, |_| id.to_string(), now)
            .expect("a new member is answered at once");
        assert_eq!(first.error, Some(ProtocolError::MemberIdRequired));
        assert_eq!(first.member_id, id);
        g.join(request(id, None, &["range"]), true, |_| unreachable!(), now)
    }

    fn joins(deliveries: &[Delivery]) -> Vec<(&str, &JoinResponse)> {
        deliveries
            .iter()
            .filter_map(|d| match &d.reply {
                Reply::Join(r) => Some((d.member_id.as_str(), r)),
                Reply::Sync(_) => None,
            })
            .collect()
    }

    /// Followers sync, then the leader with `assignments`; returns each member's assignment.
    fn sync_all(
        g: &mut ClassicGroup,
        assignments: &[(&str, &str)],
        now: i64,
    ) -> Vec<(String, Vec<u8>)> {
        let generation = g.generation_id();
        let leader = g.leader().expect("a leader").to_string();
        let followers: Vec<String> = g
            .members()
            .iter()
            .map(|m| m.member_id.clone())
            .filter(|id| *id != leader)
            .collect();
        for id in &followers {
            assert_eq!(
                g.sync(id, generation, Vec::new(), now),
                None,
                "followers wait"
            );
        }
        let given = assignments
            .iter()
            .map(|(m, a)| (m.to_string(), a.as_bytes().to_vec()))
            .collect();
        assert_eq!(g.sync(&leader, generation, given, now), None);
        assert_eq!(g.state(), State::Stable);
        g.take_deliveries()
            .into_iter()
            .map(|d| match d.reply {
                Reply::Sync(r) => {
                    assert_eq!(r.error, None);
                    (d.member_id, r.assignment)
                }
                Reply::Join(r) => panic!("unexpected join reply {r:?}"),
            })
            .collect()
    }

    #[test]
    fn three_members_join_the_first_leads_and_the_leaders_assignment_reaches_everyone() {
        let mut g = group(0);
        for id in ["a", "b", "c"] {
            assert_eq!(join_new(&mut g, id, 0), None);
        }
        assert_eq!(g.state(), State::PreparingRebalance);
        // The initial delay (0 here) runs out on the next tick.
        g.tick(0);
        assert_eq!(g.state(), State::CompletingRebalance);
        let deliveries = g.take_deliveries();
        let joined = joins(&deliveries);
        assert_eq!(joined.len(), 3);
        for (id, r) in &joined {
            assert_eq!(
                (r.error, r.generation_id, r.leader.as_str()),
                (None, 1, "a")
            );
            assert_eq!(r.protocol_name.as_deref(), Some("range"));
            // Only the leader is told the members and their subscriptions, in join order.
            let members: Vec<&str> = r.members.iter().map(|m| m.member_id.as_str()).collect();
            assert_eq!(
                members,
                if *id == "a" {
                    vec!["a", "b", "c"]
                } else {
                    vec![]
                }
            );
        }
        let got = sync_all(&mut g, &[("a", "p0"), ("b", "p1"), ("c", "p2")], 1);
        // Every sync is answered when the leader's arrives, in join order.
        assert_eq!(
            got,
            [
                ("a".to_string(), b"p0".to_vec()),
                ("b".to_string(), b"p1".to_vec()),
                ("c".to_string(), b"p2".to_vec())
            ]
        );
        assert_eq!(g.heartbeat("b", None, 1, 2), None);
        assert_eq!(
            g.heartbeat("b", None, 0, 2),
            Some(ProtocolError::IllegalGeneration)
        );
        assert_eq!(
            g.heartbeat("zz", None, 1, 2),
            Some(ProtocolError::UnknownMemberId)
        );
    }

    fn stable_group(ids: &[&str]) -> ClassicGroup {
        let mut g = group(0);
        for id in ids {
            join_new(&mut g, id, 0);
        }
        g.tick(0);
        g.take_deliveries();
        let assignments: Vec<(&str, &str)> = ids.iter().map(|id| (*id, "x")).collect();
        sync_all(&mut g, &assignments, 0);
        g
    }

    #[test]
    fn a_fourth_member_makes_the_others_rejoin_and_the_generation_completes_when_all_have() {
        let mut g = stable_group(&["a", "b", "c"]);
        assert_eq!(join_new(&mut g, "d", 100), None);
        assert_eq!(g.state(), State::PreparingRebalance);
        // The others learn of the rebalance from their heartbeat, then rejoin.
        for id in ["a", "b"] {
            assert_eq!(
                g.heartbeat(id, None, 1, 150),
                Some(ProtocolError::RebalanceInProgress)
            );
            assert_eq!(
                g.join(request(id, None, &["range"]), true, |_| unreachable!(), 200),
                None
            );
        }
        assert!(g.take_deliveries().is_empty(), "c has not rejoined yet");
        assert_eq!(
            g.join(
                request("c", None, &["range"]),
                true,
                |_| unreachable!(),
                300
            ),
            None
        );
        assert_eq!(g.state(), State::CompletingRebalance);
        let deliveries = g.take_deliveries();
        let joined = joins(&deliveries);
        assert_eq!(joined.len(), 4);
        assert!(joined
            .iter()
            .all(|(_, r)| r.generation_id == 2 && r.leader == "a"));
    }

    #[test]
    fn a_member_whose_session_expires_is_removed_and_the_rest_rebalance_without_it() {
        let mut g = stable_group(&["a", "b", "c"]);
        // b and c heartbeat; a (the leader) goes silent, as a process killed with -9.
        for t in [4_000, 8_000] {
            assert_eq!(g.heartbeat("b", None, 1, t), None);
            assert_eq!(g.heartbeat("c", None, 1, t), None);
        }
        assert_eq!(g.next_deadline(), Some(i64::from(SESSION)));
        g.tick(i64::from(SESSION) - 1);
        assert_eq!(g.state(), State::Stable);
        g.tick(i64::from(SESSION));
        assert_eq!(g.state(), State::PreparingRebalance);
        let ids: Vec<&str> = g.members().iter().map(|m| m.member_id.as_str()).collect();
        assert_eq!(ids, ["b", "c"]);
        assert_eq!(
            g.leader(),
            Some("b"),
            "the earliest joined member leads next"
        );
        for id in ["b", "c"] {
            g.join(
                request(id, None, &["range"]),
                true,
                |_| unreachable!(),
                10_500,
            );
        }
        let deliveries = g.take_deliveries();
        let joined = joins(&deliveries);
        assert_eq!(joined.len(), 2);
        assert!(joined
            .iter()
            .all(|(_, r)| r.generation_id == 2 && r.leader == "b"));
    }

    #[test]
    fn a_member_that_does_not_rejoin_within_the_rebalance_timeout_is_dropped() {
        let mut g = stable_group(&["a", "b"]);
        assert_eq!(join_new(&mut g, "c", 1_000), None);
        g.join(
            request("a", None, &["range"]),
            true,
            |_| unreachable!(),
            1_100,
        );
        // b keeps heartbeating (its session stays alive) but never rejoins, as a consumer
        // stuck past max.poll.interval.ms.
        for t in (5_000..i64::from(REBALANCE)).step_by(5_000) {
            assert_eq!(
                g.heartbeat("b", None, 1, t),
                Some(ProtocolError::RebalanceInProgress)
            );
            g.tick(t);
        }
        g.tick(1_000 + i64::from(REBALANCE) - 1);
        assert_eq!(g.state(), State::PreparingRebalance);
        g.tick(1_000 + i64::from(REBALANCE));
        assert_eq!(g.state(), State::CompletingRebalance);
        let ids: Vec<&str> = g.members().iter().map(|m| m.member_id.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
    }

    #[test]
    fn members_that_do_not_sync_within_the_rebalance_timeout_are_removed() {
        let mut g = group(0);
        for id in ["a", "b"] {
            join_new(&mut g, id, 0);
        }
        g.tick(0);
        g.take_deliveries();
        // b syncs; the leader never does.
        assert_eq!(g.sync("b", 1, Vec::new(), 10), None);
        g.tick(i64::from(REBALANCE));
        let ids: Vec<&str> = g.members().iter().map(|m| m.member_id.as_str()).collect();
        assert_eq!(ids, ["b"]);
        assert_eq!(g.state(), State::PreparingRebalance);
        // b's parked sync is told to rejoin.
        let deliveries = g.take_deliveries();
        assert!(deliveries.iter().any(|d| d.member_id == "b"
            && d.reply
                == Reply::Sync(SyncResponse {
                    error: Some(ProtocolError::RebalanceInProgress),
                    assignment: Vec::new()
                })));
    }

    #[test]
    fn the_initial_delay_waits_and_is_extended_while_members_keep_coming() {
        let mut g = group(3_000);
        join_new(&mut g, "a", 0);
        join_new(&mut g, "b", 1_000);
        assert_eq!(g.next_deadline(), Some(3_000));
        g.tick(2_999);
        assert_eq!(g.state(), State::PreparingRebalance);
        // b came during the delay: it is extended by the delay again.
        g.tick(3_000);
        assert_eq!(g.state(), State::PreparingRebalance);
        assert_eq!(g.next_deadline(), Some(6_000));
        g.tick(6_000);
        assert_eq!(g.state(), State::CompletingRebalance);
        assert_eq!(g.generation_id(), 1);
    }

    #[test]
    fn a_static_member_restarting_keeps_its_assignment_without_a_rebalance_and_fences_its_old_self()
    {
        let mut g = group(0);
        for (id, instance) in [("a-1", "ia"), ("b-1", "ib")] {
            let r = g.join(
                request("", Some(instance), &["range"]),
                true,
                |_| id.to_string(),
                0,
            );
            assert_eq!(r, None, "static members join in one step");
        }
        g.tick(0);
        g.take_deliveries();
        sync_all(&mut g, &[("a-1", "pa"), ("b-1", "pb")], 0);
        // b restarts: it joins with no member id and its instance id.
        let r = g
            .join(
                request("", Some("ib"), &["range"]),
                true,
                |_| "b-2".to_string(),
                500,
            )
            .expect("answered at once");
        assert_eq!(
            (r.error, r.generation_id, r.member_id.as_str()),
            (None, 1, "b-2")
        );
        assert_eq!(g.state(), State::Stable);
        assert_eq!(
            g.sync("b-2", 1, Vec::new(), 600).map(|s| s.assignment),
            Some(b"pb".to_vec())
        );
        assert_eq!(
            g.heartbeat("b-1", Some("ib"), 1, 700),
            Some(ProtocolError::FencedInstanceId)
        );
        // The leader restarting is told the members but skips the assignment.
        let r = g
            .join(
                request("", Some("ia"), &["range"]),
                true,
                |_| "a-2".to_string(),
                800,
            )
            .expect("answered at once");
        assert!(r.skip_assignment);
        assert_eq!(r.leader, "a-2");
        assert_eq!(r.members.len(), 2);
        // A static member's LeaveGroup without its instance id (a consumer's close()) is not
        // how it leaves: only its session running out removes it.
        assert_eq!(g.state(), State::Stable);
    }

    #[test]
    fn the_protocol_is_the_one_most_members_prefer_among_those_all_support() {
        let mut g = group(0);
        for (id, protocols) in [
            ("a", &["sticky", "range"][..]),
            ("b", &["range", "sticky"]),
            ("c", &["range", "roundrobin", "sticky"]),
        ] {
            g.join(
                JoinRequest {
                    member_id: String::new(),
                    ..request("", None, protocols)
                },
                false,
                |_| id.to_string(),
                0,
            );
        }
        g.tick(0);
        assert_eq!(g.protocol_name(), Some("range"));
        // A member with none of the group's protocols is refused.
        let r = g
            .join(
                request("", None, &["cooperative-sticky"]),
                false,
                |_| "d".to_string(),
                1,
            )
            .expect("refused at once");
        assert_eq!(r.error, Some(ProtocolError::InconsistentGroupProtocol));
    }

    #[test]
    fn leaving_members_hand_leadership_on_and_an_emptied_group_is_empty() {
        let mut g = stable_group(&["a", "b"]);
        assert_eq!(g.leave("a", None, 10), None);
        assert_eq!(g.leader(), Some("b"));
        assert_eq!(g.state(), State::PreparingRebalance);
        assert_eq!(g.leave("b", None, 20), None);
        assert_eq!(g.state(), State::Empty);
        assert_eq!(g.leave("b", None, 30), Some(ProtocolError::UnknownMemberId));
        assert_eq!(g.generation_id(), 2);
    }

    #[test]
    fn out_of_range_session_timeouts_and_unknown_members_are_refused() {
        let mut g = group(0);
        let mut r = request("", None, &["range"]);
        r.session_timeout_ms = 1_000;
        let answer = g.join(r, true, |_| "x".to_string(), 0).expect("refused");
        assert_eq!(answer.error, Some(ProtocolError::InvalidSessionTimeout));
        let answer = g
            .join(
                request("ghost", None, &["range"]),
                true,
                |_| unreachable!(),
                0,
            )
            .expect("refused");
        assert_eq!(answer.error, Some(ProtocolError::UnknownMemberId));
        assert_eq!(
            g.sync("ghost", 0, Vec::new(), 0).and_then(|s| s.error),
            Some(ProtocolError::UnknownMemberId)
        );
    }
}
