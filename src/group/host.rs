//! The group coordinator hosted by a member process: with no broker, the process that holds the
//! coordinator lock of `__consumer_offsets-<n>` ([`crate::datadir::DirLock::try_coordinator`])
//! serves every group of that partition to the members of every process over a Unix socket.
//!
//! The socket is a Linux *abstract* socket ([`socket_name`]: the canonical data-directory path,
//! hashed, and `n`): it has no file, so a host killed with `kill -9` leaves nothing stale
//! behind, and the kernel frees the name with the lock when the process dies. A member that
//! finds nobody listening takes the lock and hosts; one that loses its connection does the same
//! and rejoins (failover).
//!
//! The host feeds [`ClassicGroup`] the requests and the time (a timer on
//! [`ClassicGroup::next_deadline`]) and delivers parked replies as soon as they are released.
//! What it answers it has written first, as Kafka's coordinator does: the group's
//! GroupMetadata record when a generation becomes stable or the group empties (before the
//! SyncGroup replies go), OffsetCommit records before a commit is acknowledged, both to
//! `__consumer_offsets-<n>` through the ordinary writer and fsynced. On taking over it loads the
//! partition's groups ([`Groups`]); their members rejoin (their sessions were with the old
//! host), the generation goes on from the stored one, and OffsetFetch answers from memory.
//!
//! Between member and host: frames of a 4-byte big-endian length and a JSON [`Request`] or
//! [`Response`], one request in flight per connection. Members only see the
//! [`CoordinatorConnection`] trait, so a broker connection can take the socket's place.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::admin::{AdminError, GroupSummary};
use super::classic::{
    ClassicGroup, ClassicGroupState, CoordinatorConfig, JoinRequest, JoinResponse, ProtocolError,
    Reply, SyncResponse,
};
use super::liveness::{StampWriter, STAMP_INTERVAL};
use super::protocol::{self, Subscription};
use super::records::{
    CoordinatorRecord, GroupMetadataValue, MemberMetadata, OffsetCommitKey, OffsetCommitValue,
    WriteError,
};
use super::state::{GroupError, GroupState, Groups, OFFSETS_TOPIC};
use crate::common::Uuid;
use crate::datadir::now_ms;
use crate::datadir::{
    CoordinatorLock, DataDir, DataDirError, NewTopic, PartitionWriter, Topic, TopicConfigs,
    TopicPartition,
};
use crate::log::LogError;
use crate::record::{BatchBuilder, Compression, RecordError, TimestampType};

/// Kafka's `offsets.topic.num.partitions` (the simulator's default, one number for both).
pub const OFFSETS_TOPIC_PARTITIONS: u32 = crate::assign::simulate::DEFAULT_OFFSETS_TOPIC_PARTITIONS;

/// A frame larger than this is refused (a JoinGroup of a thousand members' subscriptions is far
/// below it).
const MAX_FRAME: usize = 64 << 20;

/// One committed (or fetched) offset of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionOffset {
    /// The partition.
    pub partition: TopicPartition,
    /// The next offset to read; -1 in an OffsetFetch answer: nothing committed.
    pub offset: i64,
    /// The leader epoch of the last record read before it (the batch's partitionLeaderEpoch),
    /// -1 when unknown: what Kafka's consumer commits and fetches back with the offset.
    pub leader_epoch: i32,
    /// The committer's metadata string.
    pub metadata: String,
}

impl PartitionOffset {
    /// `offset` of `partition`, no leader epoch, no metadata (a commit from a tool).
    pub fn new(partition: TopicPartition, offset: i64) -> Self {
        PartitionOffset {
            partition,
            offset,
            leader_epoch: -1,
            metadata: String::new(),
        }
    }

    /// The same, with the leader epoch of the last record read (`None`: unknown).
    pub fn with_leader_epoch(mut self, leader_epoch: Option<i32>) -> Self {
        self.leader_epoch = leader_epoch.unwrap_or(-1);
        self
    }
}

/// What a member asks its coordinator (the classic protocol's requests).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// JoinGroup (v4+: a new dynamic member gets `MEMBER_ID_REQUIRED` and joins again).
    Join {
        /// The group.
        group: String,
        /// The request.
        request: JoinRequest,
    },
    /// SyncGroup: the leader's assignments, or none from a follower.
    Sync {
        /// The group.
        group: String,
        /// The member.
        member_id: String,
        /// Its generation.
        generation_id: i32,
        /// Member id → assignment bytes (the leader's).
        assignments: Vec<(String, Vec<u8>)>,
    },
    /// Heartbeat.
    Heartbeat {
        /// The group.
        group: String,
        /// The member.
        member_id: String,
        /// `group.instance.id`.
        group_instance_id: Option<String>,
        /// Its generation.
        generation_id: i32,
    },
    /// LeaveGroup.
    Leave {
        /// The group.
        group: String,
        /// The member.
        member_id: String,
        /// `group.instance.id` (a static member leaves only when it names it).
        group_instance_id: Option<String>,
    },
    /// OffsetCommit (member id empty and generation -1: a commit from outside the group).
    OffsetCommit {
        /// The group.
        group: String,
        /// The member.
        member_id: String,
        /// Its generation.
        generation_id: i32,
        /// The offsets.
        offsets: Vec<PartitionOffset>,
    },
    /// OffsetFetch of some partitions (none: every committed partition of the group).
    OffsetFetch {
        /// The group.
        group: String,
        /// The partitions.
        partitions: Vec<TopicPartition>,
    },
    /// DescribeGroups of one group (the admin tools' view: state, members, subscriptions).
    Describe {
        /// The group.
        group: String,
    },
    /// DeleteGroups of one group: only an Empty group is deleted.
    DeleteGroup {
        /// The group.
        group: String,
    },
    /// OffsetDelete: some partitions' committed offsets.
    OffsetDelete {
        /// The group.
        group: String,
        /// `(topic, partition)`s.
        partitions: Vec<(String, i32)>,
    },
}

impl Request {
    fn group(&self) -> &str {
        match self {
            Request::Join { group, .. }
            | Request::Sync { group, .. }
            | Request::Heartbeat { group, .. }
            | Request::Leave { group, .. }
            | Request::OffsetCommit { group, .. }
            | Request::OffsetFetch { group, .. }
            | Request::Describe { group }
            | Request::DeleteGroup { group }
            | Request::OffsetDelete { group, .. } => group,
        }
    }
}

/// The coordinator's answers, one per request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    /// To a JoinGroup.
    Join(JoinResponse),
    /// To a SyncGroup.
    Sync(SyncResponse),
    /// To a Heartbeat.
    Heartbeat(Option<ProtocolError>),
    /// To a LeaveGroup.
    Leave(Option<ProtocolError>),
    /// To an OffsetCommit.
    OffsetCommit(Option<ProtocolError>),
    /// To an OffsetFetch.
    OffsetFetch(Vec<PartitionOffset>),
    /// To a Describe: the group, or `None` when it does not exist (Kafka's Dead).
    Describe(Option<GroupSummary>),
    /// To a DeleteGroup.
    DeleteGroup(Option<AdminError>),
    /// To an OffsetDelete: each partition's result, or the group's error.
    OffsetDelete(Result<Vec<(String, i32, Option<AdminError>)>, AdminError>),
    /// Any request to a coordinator that does not serve the group.
    NotCoordinator,
    /// The coordinator could not write what it would have answered (the text of its error).
    Failed(String),
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    /// The connection failed or closed (the coordinator went away: Kafka's
    /// `NOT_COORDINATOR`/disconnect).
    #[error("the group coordinator's connection failed: {0}")]
    Io(#[from] io::Error),
    /// A frame was not a message of this protocol.
    #[error("the group coordinator sent a malformed frame: {0}")]
    Malformed(#[from] serde_json::Error),
}

/// A member's connection to its group coordinator.
pub trait CoordinatorConnection: Send {
    /// Sends one request and waits for its answer (a JoinGroup or SyncGroup waits until its
    /// phase completes).
    fn call(&mut self, request: &Request) -> Result<Response, ConnectionError>;
}

/// A connection to a coordinator hosted by a member process, over its Unix socket.
#[derive(Debug)]
pub struct SocketConnection {
    stream: UnixStream,
}

impl SocketConnection {
    /// Connects to the coordinator of `__consumer_offsets-<partition>` of the data directory
    /// at `dir`: fails (connection refused) when no process hosts it.
    pub fn connect(dir: &Path, partition: u32) -> io::Result<Self> {
        let name = socket_name(dir, partition)?;
        let stream = connect_abstract(&name)?;
        Ok(SocketConnection { stream })
    }
}

impl CoordinatorConnection for SocketConnection {
    fn call(&mut self, request: &Request) -> Result<Response, ConnectionError> {
        write_frame(&mut self.stream, request)?;
        let bytes = read_frame(&mut self.stream)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        Ok(serde_json::from_slice(&bytes)?)
    }
}

/// The abstract socket name of the coordinator of `__consumer_offsets-<partition>` of the data
/// directory at `dir`: `kafkit-coordinator-<FNV-1a of the canonical path>-<partition>`, so every
/// process names one directory alike however it spells its path.
pub fn socket_name(dir: &Path, partition: u32) -> io::Result<String> {
    let canonical = dir.canonicalize()?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in canonical.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(format!("kafkit-coordinator-{hash:016x}-{partition}"))
}

#[cfg(target_os = "linux")]
fn bind_abstract(name: &str) -> io::Result<UnixListener> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    UnixListener::bind_addr(&addr)
}

#[cfg(target_os = "linux")]
fn connect_abstract(name: &str) -> io::Result<UnixStream> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    UnixStream::connect_addr(&addr)
}

#[cfg(not(target_os = "linux"))]
fn bind_abstract(_name: &str) -> io::Result<UnixListener> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "live consumer groups need Linux abstract sockets",
    ))
}

#[cfg(not(target_os = "linux"))]
fn connect_abstract(_name: &str) -> io::Result<UnixStream> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "live consumer groups need Linux abstract sockets",
    ))
}

/// Binds the socket; the name of a host that just stopped in this process can outlive its lock
/// for a moment (its accept thread is ending), so a busy name is tried again for a second.
fn bind_retrying(name: &str) -> io::Result<UnixListener> {
    let mut tries = 0;
    loop {
        match bind_abstract(name) {
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && tries < 100 => {
                tries += 1;
                thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

fn write_frame(out: &mut impl Write, message: &impl Serialize) -> Result<(), ConnectionError> {
    let bytes = serde_json::to_vec(message)?;
    let len = u32::try_from(bytes.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame too large"))?;
    let mut frame = Vec::with_capacity(bytes.len() + 4);
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(&bytes);
    out.write_all(&frame)?;
    Ok(())
}

/// One frame's bytes; `None` at a clean end of the stream.
fn read_frame(input: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes (at most {MAX_FRAME})"),
        ));
    }
    let mut bytes = vec![0u8; len];
    input.read_exact(&mut bytes)?;
    Ok(Some(bytes))
}

/// Why the coordinator could not be hosted or could not write.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The data directory (lock, topic, writer) failed.
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    /// The groups of the partition could not be loaded.
    #[error(transparent)]
    Groups(#[from] GroupError),
    /// The partition's log failed.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A record could not be encoded.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A batch could not be built.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The socket could not be made.
    #[error("could not listen on the coordinator socket {name}: {source}")]
    Socket {
        /// The abstract name.
        name: String,
        /// The cause.
        source: io::Error,
    },
}

enum Event {
    Connected(u64, UnixStream),
    Request(u64, Request),
    Disconnected(u64),
    Stop,
}

/// A running coordinator of one `__consumer_offsets` partition, served on its socket until it
/// is dropped (or the process dies).
#[derive(Debug)]
pub struct CoordinatorHost {
    partition: u32,
    name: String,
    events: Sender<Event>,
    accept: Option<JoinHandle<()>>,
    coordinator: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Event")
    }
}

impl CoordinatorHost {
    /// Hosts the coordinator of `__consumer_offsets-<partition>` if no other process (or host
    /// of this one) does: `Ok(None)` when its lock is held.
    pub fn try_start(
        datadir: &DataDir,
        partition: u32,
        config: CoordinatorConfig,
    ) -> Result<Option<CoordinatorHost>, HostError> {
        let dir_lock = datadir.lock()?;
        let Some(lock) = dir_lock
            .try_coordinator(partition)
            .map_err(DataDirError::from)?
        else {
            return Ok(None);
        };
        let topic = offsets_topic(datadir)?;
        let tp = TopicPartition::new(OFFSETS_TOPIC, partition_i32(partition));
        let partition_dir = datadir.partition_dir(&tp);
        let groups = if partition_dir.is_dir() {
            Groups::load_partitions(&[(tp.partition, partition_dir)])?
        } else {
            Groups::default()
        };
        let name = socket_name(datadir.path(), partition).map_err(|source| HostError::Socket {
            name: datadir.path().display().to_string(),
            source,
        })?;
        let listener = bind_retrying(&name).map_err(|source| HostError::Socket {
            name: name.clone(),
            source,
        })?;
        let writer = PartitionWriter::withlock(datadir, dir_lock)?;
        let mut coordinator = Coordinator {
            partition,
            config,
            topic,
            writer,
            groups: BTreeMap::new(),
            conns: HashMap::new(),
            stamps: StampWriter::open(datadir.path(), partition).ok(),
            next_stamp: 0,
            _lock: lock,
        };
        coordinator.load(&groups)?;
        coordinator.stamp(now_ms());
        let (events, rx) = mpsc::channel();
        let accept_events = events.clone();
        let accept = thread::Builder::new()
            .name(format!("coordinator-{partition}-accept"))
            .spawn(move || accept_loop(&listener, &accept_events))
            .map_err(|source| HostError::Socket {
                name: name.clone(),
                source,
            })?;
        let coordinator = thread::Builder::new()
            .name(format!("coordinator-{partition}"))
            .spawn(move || coordinator.run(&rx))
            .map_err(|source| HostError::Socket {
                name: name.clone(),
                source,
            })?;
        Ok(Some(CoordinatorHost {
            partition,
            name,
            events,
            accept: Some(accept),
            coordinator: Some(coordinator),
        }))
    }

    /// The `__consumer_offsets` partition served.
    pub fn partition(&self) -> u32 {
        self.partition
    }

    /// The abstract socket's name.
    pub fn socket_name(&self) -> &str {
        &self.name
    }
}

impl Drop for CoordinatorHost {
    /// Stops serving: every connection closes (members see their coordinator go, as when its
    /// process dies), then the socket and the lock are released.
    fn drop(&mut self) {
        let _ = self.events.send(Event::Stop);
        if let Some(coordinator) = self.coordinator.take() {
            let _ = coordinator.join();
        }
        // The coordinator closed the listener's side through its stop flag; wake `accept`.
        let _ = connect_abstract(&self.name);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn partition_i32(partition: u32) -> i32 {
    i32::try_from(partition).unwrap_or(i32::MAX)
}

/// The configs a broker gives `__consumer_offsets` (`GroupCoordinator.offsetsTopicConfigs`):
/// compacted, with `offsets.topic.segment.bytes`, keeping the producer's compression.
pub const OFFSETS_TOPIC_CONFIGS: [(&str, &str); 3] = [
    ("cleanup.policy", "compact"),
    ("compression.type", "producer"),
    ("segment.bytes", "104857600"),
];

/// The `__consumer_offsets` topic, made with Kafka's partition count and configs when the
/// directory has none yet (as a broker makes it on the first FindCoordinator).
fn offsets_topic(datadir: &DataDir) -> Result<Topic, HostError> {
    if let Some(topic) = datadir.topic(OFFSETS_TOPIC)? {
        return Ok(topic);
    }
    let lock = datadir.lock()?;
    let new = NewTopic {
        name: OFFSETS_TOPIC.to_string(),
        partitions: Some(partition_i32(OFFSETS_TOPIC_PARTITIONS)),
        configs: TopicConfigs::new(OFFSETS_TOPIC_CONFIGS).map_err(DataDirError::from)?,
        ..NewTopic::default()
    };
    match datadir.create_topic(&lock, &new) {
        Ok(topic) => Ok(topic),
        // Another host made it meanwhile.
        Err(DataDirError::TopicExists(_)) => datadir
            .topic(OFFSETS_TOPIC)?
            .ok_or_else(|| HostError::DataDir(DataDirError::TopicExists(OFFSETS_TOPIC.into()))),
        Err(e) => Err(e.into()),
    }
}

fn accept_loop(listener: &UnixListener, events: &Sender<Event>) {
    let mut next_id = 0u64;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let Ok(reader) = stream.try_clone() else {
            continue;
        };
        next_id += 1;
        let id = next_id;
        if events.send(Event::Connected(id, stream)).is_err() {
            return;
        }
        let events = events.clone();
        let spawned = thread::Builder::new()
            .name(format!("coordinator-conn-{id}"))
            .spawn(move || read_loop(id, reader, &events));
        if spawned.is_err() {
            return;
        }
    }
}

fn read_loop(id: u64, mut stream: UnixStream, events: &Sender<Event>) {
    loop {
        let request = match read_frame(&mut stream) {
            Ok(Some(bytes)) => serde_json::from_slice::<Request>(&bytes).ok(),
            Ok(None) | Err(_) => None,
        };
        let Some(request) = request else {
            let _ = events.send(Event::Disconnected(id));
            return;
        };
        if events.send(Event::Request(id, request)).is_err() {
            return;
        }
    }
}

/// One hosted group.
struct HostedGroup {
    group: ClassicGroup,
    offsets: BTreeMap<TopicPartition, PartitionOffset>,
    /// Members whose JoinGroup or SyncGroup is parked, and the connection it came on.
    parked: HashMap<String, u64>,
    /// The generation and state last written as GroupMetadata.
    written: Option<(i32, ClassicGroupState)>,
}

struct Coordinator {
    partition: u32,
    config: CoordinatorConfig,
    topic: Topic,
    writer: PartitionWriter,
    groups: BTreeMap<String, HostedGroup>,
    conns: HashMap<u64, UnixStream>,
    /// This host's slot of the data directory's host stamps (`group::liveness`).
    stamps: Option<StampWriter>,
    /// When to stamp next (ms since the epoch).
    next_stamp: i64,
    _lock: CoordinatorLock,
}

impl Coordinator {
    /// Takes over the groups stored in the partition. This host has heard from none of their
    /// members, so it starts every group Empty; a group stored with members is first written
    /// as Kafka's coordinator writes it when their sessions expire (the next generation,
    /// Empty), so that the log says what the host answers. Members still alive rejoin.
    fn load(&mut self, groups: &Groups) -> Result<(), HostError> {
        let now = now_ms();
        let mut expired = Vec::new();
        for stored in groups.iter() {
            let value = stored.expired_metadata(now);
            let generation = value.as_ref().map_or(stored.generation, |v| v.generation);
            expired.extend(value.map(|v| CoordinatorRecord::group_metadata(&stored.id, v)));
            let group = ClassicGroup::resume(&stored.id, self.config, generation);
            let offsets = stored
                .offsets
                .iter()
                .map(|(tp, committed)| {
                    (
                        tp.clone(),
                        PartitionOffset {
                            partition: tp.clone(),
                            offset: committed.offset,
                            leader_epoch: committed.leader_epoch.unwrap_or(-1),
                            metadata: committed.metadata.clone(),
                        },
                    )
                })
                .collect();
            self.groups.insert(
                stored.id.clone(),
                HostedGroup {
                    group,
                    offsets,
                    parked: HashMap::new(),
                    written: Some((generation, ClassicGroupState::Empty)),
                },
            );
        }
        self.write(&expired, now)
    }

    /// Records that this host is alive at `now` (see `group::liveness`); a stamp that cannot be
    /// written only leaves the groups to be read as recorded should this host die.
    fn stamp(&mut self, now: i64) {
        if let Some(stamps) = &self.stamps {
            let _ = stamps.stamp(now);
        }
        let interval = i64::try_from(STAMP_INTERVAL.as_millis()).unwrap_or(i64::MAX);
        self.next_stamp = now.saturating_add(interval);
    }

    fn run(mut self, events: &Receiver<Event>) {
        loop {
            let now = now_ms();
            let next = self
                .groups
                .values()
                .filter_map(|g| g.group.next_deadline())
                .fold(self.next_stamp, i64::min);
            let wait = Duration::from_millis(u64::try_from(next - now).unwrap_or(0));
            let event = match events.recv_timeout(wait) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            match event {
                Some(Event::Stop) => {
                    for conn in self.conns.values() {
                        let _ = conn.shutdown(std::net::Shutdown::Both);
                    }
                    return;
                }
                Some(Event::Connected(id, stream)) => {
                    self.conns.insert(id, stream);
                }
                Some(Event::Disconnected(id)) => {
                    self.conns.remove(&id);
                    for g in self.groups.values_mut() {
                        g.parked.retain(|_, conn| *conn != id);
                    }
                }
                Some(Event::Request(id, request)) => self.handle(id, request),
                None => {}
            }
            let now = now_ms();
            if now >= self.next_stamp {
                self.stamp(now);
            }
            let ids: Vec<String> = self.groups.keys().cloned().collect();
            for id in ids {
                if let Some(g) = self.groups.get_mut(&id) {
                    if g.group.next_deadline().is_some_and(|at| at <= now) {
                        g.group.tick(now);
                    }
                }
                self.settle(&id);
            }
        }
    }

    fn reply(&mut self, conn: u64, response: &Response) {
        if let Some(stream) = self.conns.get_mut(&conn) {
            if write_frame(stream, response).is_err() {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    fn group_mut(&mut self, id: &str) -> &mut HostedGroup {
        let config = self.config;
        self.groups
            .entry(id.to_string())
            .or_insert_with(|| HostedGroup {
                group: ClassicGroup::new(id, config),
                offsets: BTreeMap::new(),
                parked: HashMap::new(),
                written: None,
            })
    }

    fn handle(&mut self, conn: u64, request: Request) {
        let group_id = request.group().to_string();
        let owner = crate::assign::java::coordinator_partition(&group_id, OFFSETS_TOPIC_PARTITIONS);
        if owner != self.partition {
            self.reply(conn, &Response::NotCoordinator);
            return;
        }
        let now = now_ms();
        let response = match request {
            Request::Join { request, .. } => {
                let g = self.group_mut(&group_id);
                let mut new_id = None;
                let answer = g.group.join(
                    request.clone(),
                    true,
                    |client| {
                        let id = format!("{client}-{}", Uuid::random().to_java_uuid_string());
                        new_id = Some(id.clone());
                        id
                    },
                    now,
                );
                match answer {
                    Some(answer) => Some(Response::Join(answer)),
                    None => {
                        let member = new_id.unwrap_or(request.member_id);
                        g.parked.insert(member, conn);
                        None
                    }
                }
            }
            Request::Sync {
                member_id,
                generation_id,
                assignments,
                ..
            } => {
                let g = self.group_mut(&group_id);
                match g.group.sync(&member_id, generation_id, assignments, now) {
                    Some(answer) => Some(Response::Sync(answer)),
                    None => {
                        g.parked.insert(member_id, conn);
                        None
                    }
                }
            }
            Request::Heartbeat {
                member_id,
                group_instance_id,
                generation_id,
                ..
            } => {
                let g = self.group_mut(&group_id);
                Some(Response::Heartbeat(g.group.heartbeat(
                    &member_id,
                    group_instance_id.as_deref(),
                    generation_id,
                    now,
                )))
            }
            Request::Leave {
                member_id,
                group_instance_id,
                ..
            } => {
                let g = self.group_mut(&group_id);
                Some(Response::Leave(g.group.leave(
                    &member_id,
                    group_instance_id.as_deref(),
                    now,
                )))
            }
            Request::OffsetCommit {
                member_id,
                generation_id,
                offsets,
                ..
            } => Some(self.commit(&group_id, &member_id, generation_id, offsets, now)),
            Request::OffsetFetch { partitions, .. } => {
                let g = self.group_mut(&group_id);
                let fetched = if partitions.is_empty() {
                    g.offsets.values().cloned().collect()
                } else {
                    partitions
                        .into_iter()
                        .map(|partition| {
                            g.offsets
                                .get(&partition)
                                .cloned()
                                .unwrap_or(PartitionOffset::new(partition, -1))
                        })
                        .collect()
                };
                Some(Response::OffsetFetch(fetched))
            }
            Request::Describe { .. } => Some(Response::Describe(self.describe(&group_id))),
            Request::DeleteGroup { .. } => Some(self.delete_group(&group_id, now)),
            Request::OffsetDelete { partitions, .. } => {
                Some(self.delete_offsets(&group_id, &partitions, now))
            }
        };
        if let Some(response) = response {
            self.reply(conn, &response);
        }
    }

    /// `validateOffsetCommit` of a classic group, then the records, written and fsynced before
    /// the answer.
    fn commit(
        &mut self,
        group_id: &str,
        member_id: &str,
        generation_id: i32,
        offsets: Vec<PartitionOffset>,
        now: i64,
    ) -> Response {
        let g = self.group_mut(group_id);
        let from_member = !member_id.is_empty() || generation_id >= 0;
        if from_member {
            if !g.group.members().iter().any(|m| m.member_id == member_id) {
                return Response::OffsetCommit(Some(ProtocolError::UnknownMemberId));
            }
            if generation_id != g.group.generation_id() {
                return Response::OffsetCommit(Some(ProtocolError::IllegalGeneration));
            }
            if g.group.state() == ClassicGroupState::CompletingRebalance {
                return Response::OffsetCommit(Some(ProtocolError::RebalanceInProgress));
            }
        } else if !g.group.members().is_empty() {
            return Response::OffsetCommit(Some(ProtocolError::UnknownMemberId));
        }
        let records: Vec<CoordinatorRecord> = offsets
            .iter()
            .map(|o| {
                let mut value = OffsetCommitValue::new(o.offset, now);
                value.leader_epoch = o.leader_epoch;
                value.metadata.clone_from(&o.metadata);
                CoordinatorRecord::offset_commit(
                    OffsetCommitKey {
                        group: group_id.to_string(),
                        topic: o.partition.topic.to_string(),
                        partition: o.partition.partition,
                    },
                    value,
                )
            })
            .collect();
        if let Err(e) = self.write(&records, now) {
            return Response::Failed(e.to_string());
        }
        let g = self.group_mut(group_id);
        for o in offsets {
            g.offsets.insert(o.partition.clone(), o);
        }
        Response::OffsetCommit(None)
    }

    /// The admin tools' view of a group; `None` when it does not exist: never seen, deleted, or
    /// an Empty group this host made for a request and that has neither offsets nor metadata.
    fn describe(&self, group_id: &str) -> Option<GroupSummary> {
        let g = self.groups.get(group_id)?;
        let state = GroupState::from(g.group.state());
        if state == GroupState::Dead
            || (state == GroupState::Empty && g.offsets.is_empty() && g.written.is_none())
        {
            return None;
        }
        // Kafka's `computeSubscribedTopics`: known only for a consumer group with members, a
        // chosen protocol and subscriptions that parse.
        let members = g.group.members();
        let subscribed = match g.group.protocol_name() {
            Some(protocol)
                if g.group.protocol_type() == Some("consumer") && !members.is_empty() =>
            {
                members
                    .iter()
                    .map(|m| {
                        m.metadata(protocol)
                            .and_then(|bytes| protocol::decode::<Subscription>(bytes).ok())
                            .map(|s| s.message.topics)
                    })
                    .collect::<Option<Vec<Vec<String>>>>()
                    .map(|topics| {
                        let mut topics: Vec<String> = topics.into_iter().flatten().collect();
                        topics.sort();
                        topics.dedup();
                        topics
                    })
            }
            _ => None,
        };
        Some(GroupSummary {
            state: state.name().to_string(),
            protocol_type: g.group.protocol_type().map(str::to_string),
            members: g.group.members().len(),
            subscribed,
        })
    }

    /// Kafka's DeleteGroups of a classic group (`validateDeleteGroup`): a Dead or unknown group
    /// is `GROUP_ID_NOT_FOUND`, one with members `NON_EMPTY_GROUP`; else a tombstone for every
    /// committed offset and one for the group's metadata, written before the answer.
    fn delete_group(&mut self, group_id: &str, now: i64) -> Response {
        let Some(summary) = self.describe(group_id) else {
            return Response::DeleteGroup(Some(AdminError::GroupIdNotFound));
        };
        if summary.members > 0 {
            return Response::DeleteGroup(Some(AdminError::NonEmptyGroup));
        }
        let mut records: Vec<CoordinatorRecord> = self
            .groups
            .get(group_id)
            .map(|g| {
                g.offsets
                    .keys()
                    .map(|tp| {
                        CoordinatorRecord::offset_tombstone(OffsetCommitKey {
                            group: group_id.to_string(),
                            topic: tp.topic.to_string(),
                            partition: tp.partition,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        records.push(CoordinatorRecord::group_tombstone(group_id));
        if let Err(e) = self.write(&records, now) {
            return Response::Failed(e.to_string());
        }
        self.groups.remove(group_id);
        Response::DeleteGroup(None)
    }

    /// Kafka's OffsetDelete (`OffsetMetadataManager.deleteOffsets`): a Dead or unknown group is
    /// `GROUP_ID_NOT_FOUND`; a group with members that is not a consumer group
    /// `NON_EMPTY_GROUP`; the partitions of a topic its members subscribe to
    /// `GROUP_SUBSCRIBED_TO_TOPIC`; every other partition succeeds, with a tombstone when it
    /// has a committed offset.
    fn delete_offsets(
        &mut self,
        group_id: &str,
        partitions: &[(String, i32)],
        now: i64,
    ) -> Response {
        let Some(summary) = self.describe(group_id) else {
            return Response::OffsetDelete(Err(AdminError::GroupIdNotFound));
        };
        if summary.members > 0 && summary.protocol_type.as_deref() != Some("consumer") {
            return Response::OffsetDelete(Err(AdminError::NonEmptyGroup));
        }
        // Kafka's `isSubscribedToTopic`: a consumer group with members whose subscriptions are
        // not known (no protocol chosen yet) counts as subscribed to every topic.
        let consumer_with_members =
            summary.members > 0 && summary.protocol_type.as_deref() == Some("consumer");
        let subscribed = |topic: &str| match &summary.subscribed {
            Some(topics) => topics.iter().any(|t| t == topic),
            None => consumer_with_members,
        };
        let mut results = Vec::new();
        let mut records = Vec::new();
        let mut deleted = Vec::new();
        let committed = self.groups.get(group_id).map(|g| &g.offsets);
        for (topic, partition) in partitions {
            if subscribed(topic) {
                results.push((
                    topic.clone(),
                    *partition,
                    Some(AdminError::GroupSubscribedToTopic),
                ));
                continue;
            }
            results.push((topic.clone(), *partition, None));
            let key = TopicPartition::new(topic.as_str(), *partition);
            if committed.is_some_and(|c| c.contains_key(&key)) {
                records.push(CoordinatorRecord::offset_tombstone(OffsetCommitKey {
                    group: group_id.to_string(),
                    topic: topic.clone(),
                    partition: *partition,
                }));
                deleted.push(key);
            }
        }
        if !records.is_empty() {
            if let Err(e) = self.write(&records, now) {
                return Response::Failed(e.to_string());
            }
        }
        if let Some(g) = self.groups.get_mut(group_id) {
            for key in &deleted {
                g.offsets.remove(key);
            }
        }
        Response::OffsetDelete(Ok(results))
    }

    /// Writes the group's metadata when a generation became stable or the group emptied, then
    /// delivers the replies the group released.
    fn settle(&mut self, group_id: &str) {
        let now = now_ms();
        let Some(g) = self.groups.get_mut(group_id) else {
            return;
        };
        let state = g.group.state();
        let generation = g.group.generation_id();
        let due = match state {
            ClassicGroupState::Stable => g.written != Some((generation, state)),
            ClassicGroupState::Empty => g
                .written
                .is_some_and(|(_, s)| s != ClassicGroupState::Empty),
            _ => false,
        };
        let mut failure = None;
        if due {
            let record = CoordinatorRecord::group_metadata(group_id, metadata_of(&g.group, now));
            match self.write(&[record], now) {
                Ok(()) => {
                    if let Some(g) = self.groups.get_mut(group_id) {
                        g.written = Some((generation, state));
                    }
                }
                Err(e) => failure = Some(e.to_string()),
            }
        }
        let Some(g) = self.groups.get_mut(group_id) else {
            return;
        };
        let deliveries = g.group.take_deliveries();
        let mut out = Vec::new();
        for delivery in deliveries {
            let Some(conn) = g.parked.remove(&delivery.member_id) else {
                continue;
            };
            let response = match (&failure, delivery.reply) {
                (Some(text), _) => Response::Failed(text.clone()),
                (None, Reply::Join(join)) => Response::Join(join),
                (None, Reply::Sync(sync)) => Response::Sync(sync),
            };
            out.push((conn, response));
        }
        for (conn, response) in out {
            self.reply(conn, &response);
        }
    }

    /// Appends `records` as one batch; nothing at all (a log takes no empty batch) when there
    /// are none, as for a commit or deletion of no partition.
    fn write(&mut self, records: &[CoordinatorRecord], now: i64) -> Result<(), HostError> {
        if records.is_empty() {
            return Ok(());
        }
        let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        for record in records {
            let (key, value) = record.encode()?;
            batch.append(now, Some(&key), value.as_deref(), &[]);
        }
        let bytes = batch.build()?;
        let log = self
            .writer
            .log(&self.topic, partition_i32(self.partition))?;
        let appended = log.append(&bytes, now).and_then(|_| log.flush());
        self.writer.release()?;
        appended?;
        Ok(())
    }
}

/// The GroupMetadata value of a group as it stands (an Empty group: no protocol, leader or
/// members, its generation kept).
fn metadata_of(group: &ClassicGroup, now: i64) -> GroupMetadataValue {
    let protocol = group.protocol_name().map(str::to_string);
    let members = group
        .members()
        .iter()
        .map(|m| MemberMetadata {
            member_id: m.member_id.clone(),
            group_instance_id: m.group_instance_id.clone(),
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            rebalance_timeout: m.rebalance_timeout_ms,
            session_timeout: m.session_timeout_ms,
            subscription: protocol
                .as_deref()
                .and_then(|p| m.metadata(p))
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
            assignment: m.assignment.clone(),
            unknown_tagged_fields: Vec::new(),
        })
        .collect();
    GroupMetadataValue {
        protocol_type: group.protocol_type().unwrap_or("consumer").to_string(),
        generation: group.generation_id(),
        protocol,
        leader: group.leader().map(str::to_string),
        current_state_timestamp: now,
        members,
        unknown_tagged_fields: Vec::new(),
    }
}

/// The `__consumer_offsets` partition directory of `datadir` a group's records go to.
pub fn coordinator_dir(datadir: &DataDir, group: &str) -> PathBuf {
    let partition = crate::assign::java::coordinator_partition(group, OFFSETS_TOPIC_PARTITIONS);
    datadir.partition_dir(&TopicPartition::new(
        OFFSETS_TOPIC,
        partition_i32(partition),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_directory_has_one_socket_name_per_partition_however_its_path_is_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let plain = socket_name(dir.path(), 7).unwrap();
        let dotted = socket_name(&dir.path().join(".").join("."), 7).unwrap();
        assert_eq!(plain, dotted);
        assert_ne!(plain, socket_name(dir.path(), 8).unwrap());
        let other = tempfile::tempdir().unwrap();
        assert_ne!(plain, socket_name(other.path(), 7).unwrap());
        assert!(socket_name(&dir.path().join("missing"), 7).is_err());
    }

    #[test]
    fn the_admin_requests_follow_kafkas_state_rules() {
        let dir = tempfile::tempdir().unwrap();
        let datadir = DataDir::create(dir.path().join("data")).unwrap();
        let group = "admin-g";
        let partition = crate::assign::java::coordinator_partition(group, OFFSETS_TOPIC_PARTITIONS);
        let _host = CoordinatorHost::try_start(&datadir, partition, CoordinatorConfig::default())
            .unwrap()
            .unwrap();
        let mut conn = SocketConnection::connect(datadir.path(), partition).unwrap();
        let mut call = |request: Request| conn.call(&request).unwrap();
        let g = || group.to_string();
        assert_eq!(
            call(Request::Describe { group: g() }),
            Response::Describe(None)
        );
        assert_eq!(
            call(Request::DeleteGroup { group: g() }),
            Response::DeleteGroup(Some(AdminError::GroupIdNotFound))
        );
        assert_eq!(
            call(Request::OffsetDelete {
                group: g(),
                partitions: vec![("t".into(), 0)]
            }),
            Response::OffsetDelete(Err(AdminError::GroupIdNotFound))
        );
        // A commit from outside the group makes it: Empty, with its offsets.
        let offsets = [0, 1]
            .map(|p| PartitionOffset::new(TopicPartition::new("t", p), 5))
            .to_vec();
        assert_eq!(
            call(Request::OffsetCommit {
                group: g(),
                member_id: String::new(),
                generation_id: -1,
                offsets,
            }),
            Response::OffsetCommit(None)
        );
        let Response::Describe(Some(summary)) = call(Request::Describe { group: g() }) else {
            panic!("no group");
        };
        assert_eq!((summary.state.as_str(), summary.members), ("Empty", 0));
        assert_eq!(
            call(Request::OffsetDelete {
                group: g(),
                partitions: vec![("t".into(), 1), ("t".into(), 7)]
            }),
            Response::OffsetDelete(Ok(vec![("t".into(), 1, None), ("t".into(), 7, None)]))
        );
        let Response::OffsetFetch(left) = call(Request::OffsetFetch {
            group: g(),
            partitions: Vec::new(),
        }) else {
            panic!("no offsets");
        };
        assert_eq!(
            left.iter()
                .map(|o| o.partition.partition)
                .collect::<Vec<_>>(),
            [0]
        );
        assert_eq!(
            call(Request::DeleteGroup { group: g() }),
            Response::DeleteGroup(None)
        );
        assert_eq!(
            call(Request::Describe { group: g() }),
            Response::Describe(None)
        );
        // What was written, replayed as a new coordinator loads it: nothing left of the group.
        let tp = TopicPartition::new(OFFSETS_TOPIC, partition_i32(partition));
        let groups =
            Groups::load_partitions(&[(tp.partition, datadir.partition_dir(&tp))]).unwrap();
        assert!(groups.get(group).is_none());
    }

    #[test]
    fn frames_round_trip_and_oversized_or_cut_ones_are_refused() {
        let request = Request::OffsetFetch {
            group: "g".into(),
            partitions: vec![TopicPartition::new("t", 0)],
        };
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &request).unwrap();
        let back = read_frame(&mut bytes.as_slice()).unwrap().unwrap();
        assert_eq!(serde_json::from_slice::<Request>(&back).unwrap(), request);
        assert!(read_frame(&mut &[][..]).unwrap().is_none());
        bytes.pop();
        assert!(read_frame(&mut bytes.as_slice()).is_err());
        let huge = u32::try_from(MAX_FRAME + 1).unwrap().to_be_bytes();
        let error = read_frame(&mut &huge[..]).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    }
}
