//! What `kafka-consumer-groups.sh --describe` shows of a group, as data: the partitions with
//! their committed offsets, log ends and lag (`--offsets`), the members (`--members`), and
//! the group's state line (`--state`). The rows follow Kafka's `ConsumerGroupCommand`: members
//! with an assignment first (more partitions first; members in id order where Kafka's order is
//! a hash map's), each member's partitions by topic and partition, then the committed
//! partitions no member owns.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::records::{MemberMetadata, ReadError};
use super::state::Group;
use crate::datadir::log_ends::LogEndCache;
use crate::datadir::{DataDir, TopicPartition};
use crate::log::{LogError, SkippedTail};

/// Why a member's subscription or assignment bytes are not the consumer protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "group '{group}', member '{member}': its {what} is not a consumer-protocol {what}: {error}"
)]
pub struct MemberBytesError {
    /// The group.
    pub group: String,
    /// The member id.
    pub member: String,
    /// `subscription` or `assignment`.
    pub what: &'static str,
    /// What is wrong.
    pub error: ReadError,
}

/// One member and what it was assigned, partitions sorted by topic and number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberAssignment<'a> {
    /// The member as the coordinator wrote it.
    pub member: &'a MemberMetadata,
    /// Its assigned partitions.
    pub partitions: Vec<TopicPartition>,
}

/// The members of a consumer group (protocol type `consumer`) with their assignments, in
/// member-id order.
pub fn member_assignments(group: &Group) -> Result<Vec<MemberAssignment<'_>>, MemberBytesError> {
    group
        .members
        .iter()
        .map(|member| {
            let assignment = member
                .decode_assignment()
                .map_err(|error| MemberBytesError {
                    group: group.id.clone(),
                    member: member.member_id.clone(),
                    what: "assignment",
                    error,
                })?;
            let mut partitions: Vec<TopicPartition> = assignment
                .partitions()
                .map(|(t, p)| TopicPartition::new(t, p))
                .collect();
            partitions.sort();
            partitions.dedup();
            Ok(MemberAssignment { member, partitions })
        })
        .collect()
}

/// One row of `--describe --offsets`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetRow<'a> {
    /// The partition.
    pub partition: TopicPartition,
    /// The committed offset, if any.
    pub committed: Option<&'a super::state::CommittedOffset>,
    /// The partition's log end, when its log is in the data directory.
    pub log_end_offset: Option<i64>,
    /// The member that owns it, if any.
    pub member: Option<&'a MemberMetadata>,
}

impl OffsetRow<'_> {
    /// `LOG-END-OFFSET − CURRENT-OFFSET`, when both are known (Kafka's `getLag`: a committed
    /// offset of -1 has no lag).
    pub fn lag(&self) -> Option<i64> {
        let offset = self.committed.map(|c| c.offset).filter(|&o| o != -1)?;
        Some(self.log_end_offset? - offset)
    }
}

/// The rows of `--describe --offsets`: each member's partitions (members with more partitions
/// first), then the committed partitions no member owns; `log_end` gives a partition's log end.
pub fn offset_rows<'a>(
    group: &'a Group,
    assignments: &[MemberAssignment<'a>],
    mut log_end: impl FnMut(&TopicPartition) -> Option<i64>,
) -> Vec<OffsetRow<'a>> {
    let mut owners: Vec<&MemberAssignment<'a>> = assignments
        .iter()
        .filter(|a| !a.partitions.is_empty())
        .collect();
    owners.sort_by_key(|a| std::cmp::Reverse(a.partitions.len()));
    let mut rows = Vec::new();
    let mut owned = BTreeSet::new();
    for owner in owners {
        for tp in &owner.partitions {
            owned.insert(tp);
            rows.push(OffsetRow {
                committed: group.offsets.get(tp),
                log_end_offset: log_end(tp),
                member: Some(owner.member),
                partition: tp.clone(),
            });
        }
    }
    for (tp, committed) in &group.offsets {
        if owned.contains(tp) {
            continue;
        }
        rows.push(OffsetRow {
            partition: tp.clone(),
            committed: Some(committed),
            log_end_offset: log_end(tp),
            member: None,
        });
    }
    rows
}

/// The partitions whose log ends `offset_rows` will ask for.
pub fn partitions_of<'a>(
    group: &'a Group,
    assignments: &'a [MemberAssignment<'a>],
) -> BTreeSet<&'a TopicPartition> {
    assignments
        .iter()
        .flat_map(|a| a.partitions.iter())
        .chain(group.offsets.keys())
        .collect()
}

/// The log end offsets of partitions, read from their logs in `datadir` (Kafka's ListOffsets
/// with `latest`); a partition without a directory has none. A log that cannot be read is left
/// out of the answer and its error returned beside it.
#[derive(Debug, Default)]
pub struct LogEnds {
    /// Log end by partition (`None`: no log in the data directory).
    pub ends: FxHashMap<TopicPartition, Option<i64>>,
    /// Partitions whose log could not be read, and why.
    pub errors: Vec<(TopicPartition, LogError)>,
    /// Bytes at the end of an active segment that do not frame a batch, not read.
    pub skipped: Vec<SkippedTail>,
}

impl LogEnds {
    /// Reads the log end of each partition, on as many threads as there are cores (each
    /// partition costs a few system calls: two `statx` when the data directory's log-end cache
    /// ([`LogEndCache`]) holds it unchanged, else listing its directory, opening and reading the
    /// end of its active segment), and records what it read in the cache.
    pub fn read<'a>(
        datadir: &DataDir,
        partitions: impl IntoIterator<Item = &'a TopicPartition>,
    ) -> Self {
        Self::read_with(LogEndCache::load(datadir.path()), partitions)
    }

    /// [`LogEnds::read`] through the data directory's log-end cache as loaded before (on
    /// another thread while the groups were read, say).
    pub fn read_with<'a>(
        cache: LogEndCache,
        partitions: impl IntoIterator<Item = &'a TopicPartition>,
    ) -> Self {
        let partitions: Vec<&TopicPartition> = partitions.into_iter().collect();
        // Each partition's log end when its lookup was a plain one (`Some`: the common case of
        // an unchanged partition, in 16 bytes); the other answers (read from the log, with
        // something to record, a skipped tail or an error) apart, by index.
        let mut plain: Vec<Option<Option<i64>>> = vec![None; partitions.len()];
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Threads are worth starting only for many partitions.
        let chunk = partitions.len().div_ceil(threads).max(256);
        let read_chunk =
            |first: usize, chunk: &[&TopicPartition], plain: &mut [Option<Option<i64>>]| {
                let mut name = String::new();
                let mut others = Vec::new();
                for (i, (tp, slot)) in chunk.iter().zip(plain).enumerate() {
                    name.clear();
                    let _ = write!(name, "{tp}");
                    match cache.log_end(&name) {
                        Ok(found) if found.is_plain() => *slot = Some(found.end.map(|e| e.offset)),
                        found => others.push((first + i, found)),
                    }
                }
                others
            };
        let others: Vec<_> = std::thread::scope(|scope| {
            let mut chunks = partitions.chunks(chunk).zip(plain.chunks_mut(chunk));
            let (first, first_plain) = chunks.next().unwrap_or_default();
            let spawned: Vec<_> = chunks
                .enumerate()
                .map(|(n, (c, p))| scope.spawn(move || read_chunk((n + 1) * chunk, c, p)))
                .collect();
            let mut all = read_chunk(0, first, first_plain);
            for handle in spawned {
                match handle.join() {
                    Ok(found) => all.extend(found),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            all
        });
        cache.save(others.iter().filter_map(|(_, r)| r.as_ref().ok()));
        let mut errors = Vec::new();
        let mut ends_skipped = Vec::new();
        for (i, found) in others {
            let Some(tp) = partitions.get(i) else {
                continue;
            };
            match found {
                Ok(found) => {
                    let (end, skipped) = match found.end {
                        Some(end) => (Some(end.offset), end.skipped),
                        None => (None, None),
                    };
                    if let Some(slot) = plain.get_mut(i) {
                        *slot = Some(end);
                    }
                    ends_skipped.extend(skipped);
                }
                Err(error) => errors.push(((*tp).clone(), error)),
            }
        }
        let mut ends = LogEnds {
            ends: FxHashMap::default(),
            errors,
            skipped: ends_skipped,
        };
        ends.ends.reserve(partitions.len());
        for (tp, end) in partitions.into_iter().zip(plain) {
            if let Some(end) = end {
                ends.ends.insert(tp.clone(), end);
            }
        }
        ends
    }

    /// The log end of `tp`, when known.
    pub fn get(&self, tp: &TopicPartition) -> Option<i64> {
        self.ends.get(tp).copied().flatten()
    }
}

/// The broker that coordinates a data directory's groups, as `--describe --state` shows it
/// (`host:port  (id)`): the directory stands for a one-broker cluster, so every group's
/// coordinator is its node (`node.id` of `meta.properties`, else 0), at Kafka's default
/// listener, `localhost:9092`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Coordinator {
    /// The broker id.
    pub id: i32,
    /// Its host.
    pub host: String,
    /// Its port.
    pub port: u16,
}

impl Coordinator {
    /// The coordinator of `datadir`'s groups.
    pub fn of(datadir: &DataDir) -> Self {
        Coordinator {
            id: datadir.node_id(),
            host: "localhost".to_string(),
            port: 9092,
        }
    }
}

impl std::fmt::Display for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Two spaces, as Kafka's Java tool prints it (its Scala tool printed one).
        write!(f, "{}:{}  ({})", self.host, self.port, self.id)
    }
}
