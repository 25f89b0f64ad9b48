//! Groups as a coordinator knows them right after loading `__consumer_offsets`: every
//! `__consumer_offsets-N` partition of a data directory is read front to back and replayed as
//! Kafka's group coordinator replays it on load (`GroupMetadataManager` before 4.0,
//! `GroupCoordinatorShard.replay` since):
//!
//! * the latest record of a key wins and a tombstone deletes (a compacted log reads the same);
//! * an offset committed inside a transaction counts only once the transaction's COMMIT marker
//!   follows, and then only if no later plain commit of the same partition exists (Kafka
//!   compares the records' offsets); an ABORT drops it; a tombstone drops pending commits of its
//!   partition too;
//! * a group's state is what the loaded log says: **Stable** when its last metadata has members,
//!   **Empty** without members or when the group has only committed offsets (a simple consumer,
//!   or a group whose metadata was deleted while offsets remain); a group whose metadata was
//!   deleted and that has no offsets does not exist (Kafka's **Dead**).
//!
//! What only a running coordinator does is not done here: members are not expired after their
//! session timeout (a group copied from a broker with members still shows them as Stable; the
//! members of a group whose kafkit host died with them are expired by
//! [`Groups::expire_unhosted`], `group::liveness`), and offsets are not expired after
//! `offsets.retention.minutes`.
//!
//! Record types of the new consumer protocol (KIP-848) and share groups are skipped and
//! counted ([`Groups::unread_records`]); their groups are not listed yet.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::records::{
    CoordinatorRecord, GroupMetadataValue, MemberMetadata, OffsetCommitKey, OffsetCommitValue,
    RecordReadError, Versioned,
};
use crate::datadir::{DataDir, TopicPartition};
use crate::log::{LogError, LogReader, SkippedTail};
use crate::record::{ControlRecordType, RecordError};

/// The topic that holds committed offsets and group metadata.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A group's state, with Kafka's names (`ConsumerGroupState` / `GroupState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupState {
    /// Members joining (classic protocol).
    PreparingRebalance,
    /// Waiting for the leader's assignment (classic protocol).
    CompletingRebalance,
    /// Members consuming their assignment.
    Stable,
    /// No group (deleted, or never made).
    Dead,
    /// No members; committed offsets may remain.
    Empty,
    /// The new protocol's target assignment is being computed.
    Assigning,
    /// The new protocol's members are moving to their target.
    Reconciling,
    /// A state the tool does not know.
    Unknown,
}

impl GroupState {
    /// The states a consumer group can be in, in Kafka's order (what `--list --state` accepts
    /// and its error lists).
    pub const CONSUMER_STATES: [GroupState; 7] = [
        GroupState::PreparingRebalance,
        GroupState::CompletingRebalance,
        GroupState::Stable,
        GroupState::Dead,
        GroupState::Empty,
        GroupState::Assigning,
        GroupState::Reconciling,
    ];

    /// Kafka's name (`Stable`, `PreparingRebalance`, ...).
    pub fn name(self) -> &'static str {
        match self {
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
            GroupState::Dead => "Dead",
            GroupState::Empty => "Empty",
            GroupState::Assigning => "Assigning",
            GroupState::Reconciling => "Reconciling",
            GroupState::Unknown => "Unknown",
        }
    }

    /// Kafka's `parse`: a name in any case; anything else is [`GroupState::Unknown`].
    pub fn parse(name: &str) -> GroupState {
        Self::CONSUMER_STATES
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
            .unwrap_or(GroupState::Unknown)
    }
}

impl std::fmt::Display for GroupState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which protocol a group speaks (`GroupType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupType {
    /// The classic protocol: JoinGroup/SyncGroup, a leader member assigns.
    Classic,
    /// The new consumer protocol (KIP-848): the coordinator assigns.
    Consumer,
}

impl GroupType {
    /// Both types, in the order `--type`'s error lists them.
    pub const ALL: [GroupType; 2] = [GroupType::Classic, GroupType::Consumer];

    /// Kafka's name (`Classic`, `Consumer`).
    pub fn name(self) -> &'static str {
        match self {
            GroupType::Classic => "Classic",
            GroupType::Consumer => "Consumer",
        }
    }

    /// A type by name, in any case.
    pub fn parse(name: &str) -> Option<GroupType> {
        Self::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }
}

impl std::fmt::Display for GroupType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An offset a group committed for a partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedOffset {
    /// The next offset the group will read.
    pub offset: i64,
    /// The leader epoch of the last record read, when the committer gave one.
    pub leader_epoch: Option<i32>,
    /// The committer's metadata string.
    pub metadata: String,
    /// When it was committed (ms since the epoch).
    pub commit_timestamp: i64,
    /// When it expires, when the commit said (value version 1).
    pub expire_timestamp: Option<i64>,
    /// The offset of its record in `__consumer_offsets`.
    pub record_offset: i64,
}

impl CommittedOffset {
    fn new(value: &OffsetCommitValue, record_offset: i64) -> Self {
        CommittedOffset {
            offset: value.offset,
            leader_epoch: (value.leader_epoch >= 0).then_some(value.leader_epoch),
            metadata: value.metadata.clone(),
            commit_timestamp: value.commit_timestamp,
            expire_timestamp: (value.expire_timestamp >= 0).then_some(value.expire_timestamp),
            record_offset,
        }
    }
}

/// A group read from `__consumer_offsets`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The group id.
    pub id: String,
    /// The `__consumer_offsets` partition its latest record was read from.
    pub partition: i32,
    /// Its state after loading (Stable or Empty; see the module's documentation).
    pub state: GroupState,
    /// The classic protocol or the new one.
    pub group_type: GroupType,
    /// The protocol type (`consumer`, `connect`, ...); empty for a group with only offsets.
    pub protocol_type: String,
    /// The generation (0 for a group with only offsets).
    pub generation: i32,
    /// The chosen protocol (for consumers, the assignor).
    pub protocol: Option<String>,
    /// The leader's member id.
    pub leader: Option<String>,
    /// When the group entered its state (ms since the epoch), when recorded.
    pub current_state_timestamp: Option<i64>,
    /// The members, as last written, by member id.
    pub members: Vec<MemberMetadata>,
    /// Committed offsets by partition.
    pub offsets: BTreeMap<TopicPartition, CommittedOffset>,
    /// The version of the group metadata value it was read from (`None`: only offsets).
    pub metadata_version: Option<i16>,
}

impl Group {
    fn with_offsets_only(id: &str, partition: i32) -> Self {
        Group {
            id: id.to_string(),
            partition,
            state: GroupState::Empty,
            group_type: GroupType::Classic,
            protocol_type: String::new(),
            generation: 0,
            protocol: None,
            leader: None,
            current_state_timestamp: None,
            members: Vec::new(),
            offsets: BTreeMap::new(),
            metadata_version: None,
        }
    }

    fn from_metadata(id: &str, partition: i32, value: Versioned<GroupMetadataValue>) -> Self {
        let Versioned { version, message } = value;
        let mut members = message.members;
        // Version 0 has no rebalance timeout: Kafka's loader uses the session timeout.
        for m in members.iter_mut().filter(|m| m.rebalance_timeout < 0) {
            m.rebalance_timeout = m.session_timeout;
        }
        members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
        Group {
            id: id.to_string(),
            partition,
            state: if members.is_empty() {
                GroupState::Empty
            } else {
                GroupState::Stable
            },
            group_type: GroupType::Classic,
            protocol_type: message.protocol_type,
            generation: message.generation,
            protocol: message.protocol,
            leader: message.leader,
            current_state_timestamp: (message.current_state_timestamp >= 0)
                .then_some(message.current_state_timestamp),
            members,
            offsets: BTreeMap::new(),
            metadata_version: Some(version),
        }
    }

    /// The GroupMetadata value Kafka's coordinator writes once every member's session has
    /// expired, at `at` (ms since the epoch): a rebalance with no member left
    /// (`initNextGeneration`) gives the next generation, Empty, with no protocol, leader or
    /// members; the protocol type stays. `None` for a group without members.
    pub fn expired_metadata(&self, at: i64) -> Option<GroupMetadataValue> {
        if self.members.is_empty() {
            return None;
        }
        Some(GroupMetadataValue {
            protocol_type: self.protocol_type.clone(),
            generation: self.generation.saturating_add(1),
            protocol: None,
            leader: None,
            current_state_timestamp: at,
            members: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        })
    }

    /// The group once every member's session has expired, at `at`, as
    /// [`Group::expired_metadata`] records it; the committed offsets stay. A group without
    /// members is left as it is.
    pub fn expire_members(&mut self, at: i64) {
        let Some(value) = self.expired_metadata(at) else {
            return;
        };
        self.state = GroupState::Empty;
        self.generation = value.generation;
        self.protocol = value.protocol;
        self.leader = value.leader;
        self.members = value.members;
        self.current_state_timestamp = Some(at);
    }

    /// When its members' sessions all end if none of them is heard from after `last_alive`
    /// (ms since the epoch): the latest of `last_alive` and the time its state was recorded,
    /// plus the longest session timeout. `None` for a group without members.
    pub fn sessions_end(&self, last_alive: i64) -> Option<i64> {
        let longest = self.members.iter().map(|m| m.session_timeout).max()?;
        let heard = last_alive.max(self.current_state_timestamp.unwrap_or(i64::MIN));
        Some(heard.saturating_add(i64::from(longest.max(0))))
    }

    /// Whether Kafka's consumer-group tools show it: protocol type `consumer`, or none (a
    /// group with only offsets). Connect workers' groups (`connect`) and others are not
    /// consumer groups.
    pub fn is_consumer_group(&self) -> bool {
        self.protocol_type.is_empty() || self.protocol_type == "consumer"
    }
}

/// Why groups could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// The data directory could not be listed.
    #[error("listing {}: {error}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        error: io::Error,
    },
    /// A `__consumer_offsets` partition could not be read.
    #[error("reading {}: {error}", dir.display())]
    Log {
        /// The partition directory.
        dir: PathBuf,
        /// The cause.
        error: LogError,
    },
    /// A batch's records could not be read.
    #[error("{}: the batch at offset {offset}: {error}", dir.display())]
    Batch {
        /// The partition directory.
        dir: PathBuf,
        /// The batch's base offset.
        offset: i64,
        /// The cause.
        error: RecordError,
    },
    /// A record without a key (every `__consumer_offsets` record has one).
    #[error("{}: the record at offset {offset} has no key (every record of {OFFSETS_TOPIC} has one)", dir.display())]
    NullKey {
        /// The partition directory.
        dir: PathBuf,
        /// The record's offset.
        offset: i64,
    },
    /// A record whose key or value is not a valid group record.
    #[error("{}: the record at offset {offset}: {error}", dir.display())]
    Record {
        /// The partition directory.
        dir: PathBuf,
        /// The record's offset.
        offset: i64,
        /// What is wrong.
        error: RecordReadError,
    },
}

/// The groups of a data directory, by group id.
#[derive(Debug, Clone, Default)]
pub struct Groups {
    groups: BTreeMap<String, Group>,
    unread: usize,
    skipped: Vec<SkippedTail>,
}

/// What replaying one partition leaves: group metadata (or its tombstone) and offsets by group.
///
/// (Its maps hash with `FxHash`: a partition of a large group holds tens of thousands of
/// commits, and SipHash was a fifth of `--describe`'s time.)
#[derive(Default)]
struct Replay {
    /// Latest group metadata per group: `None` is a tombstone.
    metadata: FxHashMap<String, Option<Versioned<GroupMetadataValue>>>,
    /// Committed offsets per group.
    offsets: FxHashMap<String, FxHashMap<TopicPartition, CommittedOffset>>,
    /// Offsets committed in open transactions, per producer id.
    pending: FxHashMap<i64, FxHashMap<(String, TopicPartition), CommittedOffset>>,
    /// The last topic name seen, shared by the next commits of that topic.
    topic: Option<std::sync::Arc<str>>,
    /// How many records the batch being read holds (its header's count, bounded by its size):
    /// the size a group's first commits make its map, grown once rather than doubling.
    batch_records: usize,
    unread: usize,
}

impl Replay {
    fn offset_commit(
        &mut self,
        producer: Option<i64>,
        key: OffsetCommitKey,
        value: Option<&OffsetCommitValue>,
        record_offset: i64,
    ) {
        let topic = match &self.topic {
            Some(last) if **last == *key.topic => last.clone(),
            _ => self.topic.insert(std::sync::Arc::from(key.topic)).clone(),
        };
        let tp = TopicPartition {
            topic,
            partition: key.partition,
        };
        match (value, producer) {
            (Some(value), None) => {
                let offsets = self.offsets.entry(key.group).or_default();
                if offsets.is_empty() {
                    offsets.reserve(self.batch_records);
                }
                offsets.insert(tp, CommittedOffset::new(value, record_offset));
            }
            (Some(value), Some(producer)) => {
                self.pending
                    .entry(producer)
                    .or_default()
                    .insert((key.group, tp), CommittedOffset::new(value, record_offset));
            }
            (None, _) => {
                if let Some(group) = self.offsets.get_mut(&key.group) {
                    group.remove(&tp);
                }
                let pending_key = (key.group, tp);
                for commits in self.pending.values_mut() {
                    commits.remove(&pending_key);
                }
            }
        }
    }

    fn end_transaction(&mut self, producer: i64, committed: bool) {
        let Some(commits) = self.pending.remove(&producer) else {
            return;
        };
        if !committed {
            return;
        }
        for ((group, tp), commit) in commits {
            let offsets = self.offsets.entry(group).or_default();
            // The most recent commit wins, transactional or not (compaction keeps that one).
            if offsets
                .get(&tp)
                .is_none_or(|existing| commit.record_offset > existing.record_offset)
            {
                offsets.insert(tp, commit);
            }
        }
    }
}

impl Groups {
    /// Reads every `__consumer_offsets-N` partition of `datadir`.
    pub fn load(datadir: &DataDir) -> Result<Groups, GroupError> {
        let root = datadir.path();
        let io = |error| GroupError::Io {
            path: root.to_path_buf(),
            error,
        };
        let mut partitions = Vec::new();
        for entry in fs::read_dir(root).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name();
            // Most names of a large directory are other topics' partitions: only those that
            // start as this topic's do are parsed.
            if !name
                .as_encoded_bytes()
                .starts_with(OFFSETS_TOPIC.as_bytes())
            {
                continue;
            }
            let Some(tp) = name.to_str().and_then(TopicPartition::from_dir_name) else {
                continue;
            };
            if &*tp.topic == OFFSETS_TOPIC && entry.path().is_dir() {
                partitions.push((tp.partition, entry.path()));
            }
        }
        partitions.sort();
        Self::load_partitions(&partitions)
    }

    /// Reads the groups `ids` as their coordinators do: each from its own `__consumer_offsets`
    /// partition ([`coordinator_partition`](crate::assign::java::coordinator_partition) of 50,
    /// where kafkit's coordinators and a broker with Kafka's default partition count write a
    /// group), without listing the data directory. When one of them is not there (no such
    /// group, or a copy of a broker whose offsets topic has another partition count) or its
    /// partition cannot be read, it is [`Groups::load`]: every partition, as before.
    ///
    /// So the other partitions are not read when every group is found in its own: damage
    /// there is not reported, their skipped tails and unread records are not counted, and a
    /// group that also has records in another partition (written under another partition
    /// count) is what its coordinator partition says, as the coordinator that owns it sees it.
    pub fn load_groups(datadir: &DataDir, ids: &[&str]) -> Result<Groups, GroupError> {
        let mut partitions: Vec<(i32, PathBuf)> = ids
            .iter()
            .map(|id| {
                let partition = crate::assign::java::coordinator_partition(
                    id,
                    super::host::OFFSETS_TOPIC_PARTITIONS,
                );
                let tp = TopicPartition::new(
                    OFFSETS_TOPIC,
                    i32::try_from(partition).unwrap_or(i32::MAX),
                );
                (tp.partition, datadir.partition_dir(&tp))
            })
            .collect();
        partitions.sort();
        partitions.dedup();
        if !ids.is_empty() {
            if let Ok(groups) = Self::load_partitions(&partitions) {
                if ids.iter().all(|id| groups.get(id).is_some()) {
                    return Ok(groups);
                }
            }
        }
        Self::load(datadir)
    }

    /// Reads the given `__consumer_offsets` partitions (number and directory), in that order.
    pub fn load_partitions(partitions: &[(i32, PathBuf)]) -> Result<Groups, GroupError> {
        let mut groups = Groups::default();
        for (partition, dir) in partitions {
            let replay = groups.replay_partition(dir)?;
            groups.unread += replay.unread;
            groups.merge(*partition, replay);
        }
        Ok(groups)
    }

    fn replay_partition(&mut self, dir: &Path) -> Result<Replay, GroupError> {
        let log_err = |error| GroupError::Log {
            dir: dir.to_path_buf(),
            error,
        };
        let mut log = LogReader::open(dir).map_err(log_err)?;
        let mut replay = Replay::default();
        let bases = log.segment_base_offsets().to_vec();
        for base in bases {
            let mut reader = log.reader(base, 0).map_err(log_err)?;
            while let Some((_, batch)) = reader.next_batch().map_err(log_err)? {
                let batch_err = |error| GroupError::Batch {
                    dir: dir.to_path_buf(),
                    offset: batch.base_offset(),
                    error,
                };
                let producer = batch.is_transactional().then(|| batch.producer_id());
                if batch.is_control() {
                    let Some(producer) = producer else { continue };
                    if let Some(record) = batch.record_iter().map_err(batch_err)?.next() {
                        let record = record.map_err(batch_err)?;
                        match ControlRecordType::of_record(&record).map_err(batch_err)? {
                            ControlRecordType::Commit => replay.end_transaction(producer, true),
                            ControlRecordType::Abort => replay.end_transaction(producer, false),
                            _ => {}
                        }
                    }
                    continue;
                }
                replay.batch_records = batch.records_count().map_or(0, |count| {
                    usize::try_from(count)
                        .unwrap_or(0)
                        .min(batch.size_in_bytes() / 8)
                });
                for record in batch.record_iter().map_err(batch_err)? {
                    let record = record.map_err(batch_err)?;
                    let Some(key) = record.key.as_deref() else {
                        return Err(GroupError::NullKey {
                            dir: dir.to_path_buf(),
                            offset: record.offset,
                        });
                    };
                    let decoded = CoordinatorRecord::decode(key, record.value.as_deref()).map_err(
                        |error| GroupError::Record {
                            dir: dir.to_path_buf(),
                            offset: record.offset,
                            error,
                        },
                    )?;
                    match decoded {
                        CoordinatorRecord::OffsetCommit { key, value } => replay.offset_commit(
                            producer,
                            key.message,
                            value.as_ref().map(|v| &v.message),
                            record.offset,
                        ),
                        CoordinatorRecord::GroupMetadata { key, value } => {
                            replay.metadata.insert(key.message.group, value);
                        }
                        CoordinatorRecord::Other { .. } => replay.unread += 1,
                    }
                }
            }
            if let Some(tail) = SkippedTail::from_stop(reader.path(), reader.stop()) {
                self.skipped.push(tail);
            }
        }
        Ok(replay)
    }

    fn merge(&mut self, partition: i32, replay: Replay) {
        let Replay {
            metadata,
            mut offsets,
            ..
        } = replay;
        for (id, value) in metadata {
            match value {
                Some(value) => {
                    self.groups
                        .insert(id.clone(), Group::from_metadata(&id, partition, value));
                }
                None => {
                    self.groups.remove(&id);
                }
            }
        }
        for (id, commits) in offsets.drain() {
            if commits.is_empty() {
                continue;
            }
            let group = self
                .groups
                .entry(id.clone())
                .or_insert_with(|| Group::with_offsets_only(&id, partition));
            if group.offsets.is_empty() {
                // Built at once from the commits sorted in place (the map's own sort then finds
                // them in order), not key by key.
                let mut commits: Vec<_> = commits.into_iter().collect();
                commits.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                group.offsets = commits.into_iter().collect();
            } else {
                group.offsets.extend(commits);
            }
        }
    }

    /// The group with this id.
    pub fn get(&self, id: &str) -> Option<&Group> {
        self.groups.get(id)
    }

    /// Expires the members of every group whose sessions have all ended by `now` (ms since
    /// the epoch) when nothing was heard from them after `last_alive(partition)` (`None`: they
    /// may still be alive, leave the group as recorded). See [`super::liveness`].
    pub fn expire_where(&mut self, now: i64, mut last_alive: impl FnMut(i32) -> Option<i64>) {
        for group in self.groups.values_mut() {
            if group.members.is_empty() {
                continue;
            }
            let Some(alive) = last_alive(group.partition) else {
                continue;
            };
            if let Some(end) = group.sessions_end(alive).filter(|&end| end <= now) {
                group.expire_members(end);
            }
        }
    }

    /// Every group, by group id.
    pub fn iter(&self) -> impl Iterator<Item = &Group> {
        self.groups.values()
    }

    /// The number of groups.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Whether there is no group.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Records of types kafkit does not read yet (the new consumer protocol's and share
    /// groups'), skipped.
    pub fn unread_records(&self) -> usize {
        self.unread
    }

    /// Bytes at the end of a partition's active segment that do not frame a batch and were not
    /// read (what Kafka's recovery would truncate).
    pub fn skipped_tails(&self) -> &[SkippedTail] {
        &self.skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(group: &str, topic: &str, partition: i32) -> OffsetCommitKey {
        OffsetCommitKey {
            group: group.into(),
            topic: topic.into(),
            partition,
        }
    }

    /// Commits `offset` at record offset `at` (in a transaction of `producer`, ended as `end`
    /// says) and returns the group's committed offset of `t-0` after it.
    fn commit(
        r: &mut Replay,
        producer: Option<i64>,
        offset: i64,
        at: i64,
        end: Option<bool>,
    ) -> Option<i64> {
        let value = OffsetCommitValue::new(offset, 1);
        r.offset_commit(producer, key("g", "t", 0), Some(&value), at);
        if let (Some(p), Some(committed)) = (producer, end) {
            r.end_transaction(p, committed);
        }
        committed(r)
    }

    /// The group's committed offset of `t-0`.
    fn committed(r: &Replay) -> Option<i64> {
        let tp = TopicPartition::new("t", 0);
        r.offsets.get("g")?.get(&tp).map(|c| c.offset)
    }

    #[test]
    fn transactional_commits_count_once_committed_and_the_latest_record_wins() {
        let mut r = Replay::default();
        assert_eq!(commit(&mut r, Some(7), 10, 5, None), None);
        assert_eq!(commit(&mut r, None, 20, 6, None), Some(20));
        // Committed after the plain commit at record offset 6, but written before it.
        r.end_transaction(7, true);
        assert_eq!(committed(&r), Some(20));
        assert_eq!(commit(&mut r, Some(8), 30, 9, Some(true)), Some(30));
        assert_eq!(commit(&mut r, Some(9), 40, 10, Some(false)), Some(30));
        assert_eq!(commit(&mut r, Some(11), 50, 11, None), Some(30));
        // A tombstone drops the committed offset and pending ones.
        r.offset_commit(None, key("g", "t", 0), None, 12);
        r.end_transaction(11, true);
        assert_eq!(committed(&r), None);
    }

    /// A group of partition `partition` recorded Stable at generation 4 at time 1,000, with
    /// members whose session timeouts are `sessions`.
    fn stable(id: &str, partition: i32, sessions: &[i32]) -> Group {
        let members = sessions
            .iter()
            .enumerate()
            .map(|(i, &session_timeout)| MemberMetadata {
                member_id: format!("m{i}"),
                group_instance_id: None,
                client_id: "c".into(),
                client_host: "/127.0.0.1".into(),
                rebalance_timeout: 300_000,
                session_timeout,
                subscription: vec![1],
                assignment: vec![2],
                unknown_tagged_fields: Vec::new(),
            })
            .collect();
        let value = GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation: 4,
            protocol: Some("range".into()),
            leader: Some("m0".into()),
            current_state_timestamp: 1_000,
            members,
            unknown_tagged_fields: Vec::new(),
        };
        Group::from_metadata(id, partition, Versioned::new(3, value))
    }

    #[test]
    fn members_expire_once_every_session_has_ended_since_the_host_was_last_alive() {
        let mut groups = Groups::default();
        for group in [
            stable("a", 0, &[2_000, 5_000]),
            stable("b", 1, &[2_000]),
            stable("never-hosted", 2, &[2_000]),
            Group::with_offsets_only("offsets-only", 0),
        ] {
            groups.groups.insert(group.id.clone(), group);
        }
        // Partition 0's host was last alive at 10,000, partition 1's at 500 (before the group's
        // own state time, 1,000, when its members were alive); partition 2 never had one.
        let last_alive = |p: i32| match p {
            0 => Some(10_000),
            1 => Some(500),
            _ => None,
        };
        let view = |now: i64| {
            let mut groups = groups.clone();
            groups.expire_where(now, last_alive);
            groups
        };
        // "a" ends with its longest session (10,000 + 5,000), "b" with its own (1,000 + 2,000).
        let at = view(14_999);
        assert_eq!(at.get("a").map(|g| g.state), Some(GroupState::Stable));
        let b = at.get("b").expect("b");
        assert_eq!(b.state, GroupState::Empty);
        assert_eq!(
            (
                b.generation,
                b.protocol.as_deref(),
                b.leader.as_deref(),
                b.members.len()
            ),
            (5, None, None, 0)
        );
        assert_eq!(b.current_state_timestamp, Some(3_000));
        assert_eq!(b.protocol_type, "consumer");
        let at = view(15_000);
        let a = at.get("a").expect("a");
        assert_eq!((a.state, a.generation), (GroupState::Empty, 5));
        assert_eq!(a.current_state_timestamp, Some(15_000));
        // Recorded as Kafka writes it after the expiry.
        let value = groups
            .get("a")
            .and_then(|a| a.expired_metadata(15_000))
            .expect("metadata");
        assert_eq!(
            (
                value.generation,
                value.protocol,
                value.leader,
                value.members.len()
            ),
            (5, None, None, 0)
        );
        assert_eq!(value.current_state_timestamp, 15_000);
        assert_eq!(value.protocol_type, "consumer");
        // Never hosted (a broker's copy): as recorded, however late.
        let later = view(i64::MAX);
        assert_eq!(
            later.get("never-hosted").map(|g| g.state),
            Some(GroupState::Stable)
        );
        assert_eq!(later.get("offsets-only"), groups.get("offsets-only"));
        assert_eq!(
            groups
                .get("offsets-only")
                .and_then(|g| g.expired_metadata(15_000)),
            None
        );
    }

    #[test]
    fn state_names_parse_in_any_case() {
        assert_eq!(GroupState::parse("stable"), GroupState::Stable);
        assert_eq!(
            GroupState::parse("PREPARINGREBALANCE"),
            GroupState::PreparingRebalance
        );
        assert_eq!(GroupState::parse("nope"), GroupState::Unknown);
        assert_eq!(GroupType::parse("CLASSIC"), Some(GroupType::Classic));
        assert_eq!(GroupType::parse("share"), None);
    }
}
