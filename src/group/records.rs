//! The records of `__consumer_offsets` that classic groups use, typed, read and written as
//! Kafka's brokers do: offset commits (`OffsetCommitKey` versions 0–1, `OffsetCommitValue`
//! versions 0–4) and group metadata (`GroupMetadataKey` version 2, `GroupMetadataValue` versions
//! 0–4, with each member's consumer-protocol subscription and assignment as bytes).
//!
//! A record's key starts with an int16 that is both its type and its key's version (0 and 1:
//! an offset commit, 2: group metadata, 3 and up: the new consumer protocol's and share groups'
//! records), its value with the value's int16 version; a null value is a tombstone. Brokers
//! write key version 1 and value version 3 for offset commits (value version 1 when the commit
//! carries an expire timestamp), key version 2 and value version 3 for group metadata
//! ([`CoordinatorRecord::offset_commit`], [`CoordinatorRecord::group_metadata`]).
//!
//! Reading a message at a version and writing it at the same version gives back the same bytes,
//! unknown tagged fields of flexible versions included. Writing at a version that lacks a field
//! leaves the field out, as Kafka does for these fields (all of them are ignorable).

use super::wire::{RawTaggedField, Reader, Writer};

/// Why bytes could not be read as a message. Positions count from the start of the key or value
/// (its 2-byte version included).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Fewer bytes remain than a field needs.
    #[error("truncated {what} at byte {position}: needs {needed} bytes, {remaining} remain")]
    Truncated {
        /// The field being read.
        what: &'static str,
        /// Where it starts.
        position: usize,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left from `position`.
        remaining: usize,
    },
    /// A length or count that is negative (other than null's -1), longer than a string may be,
    /// or larger than the bytes left.
    #[error("{what} at byte {position} has the invalid length {length}")]
    InvalidLength {
        /// The field.
        what: &'static str,
        /// Where its length starts.
        position: usize,
        /// The length as stored.
        length: i64,
    },
    /// Null where the field cannot be null.
    #[error("{what} at byte {position} is null, which it cannot be")]
    Null {
        /// The field.
        what: &'static str,
        /// Where it starts.
        position: usize,
    },
    /// An unsigned varint whose 5th byte has its high bit set.
    #[error("{what} at byte {position} is a varint longer than 5 bytes")]
    VarintTooLong {
        /// The field.
        what: &'static str,
        /// Where it starts.
        position: usize,
    },
    /// A version the message does not have (Kafka's `Can't read version V of Name`).
    #[error("{message} has no version {version} (its versions are {lowest} to {highest})")]
    UnsupportedVersion {
        /// The message (`OffsetCommitValue`).
        message: &'static str,
        /// The version found.
        version: i16,
        /// Its lowest version.
        lowest: i16,
        /// Its highest version.
        highest: i16,
    },
}

impl ReadError {
    /// The same error with its position moved by `by` bytes (a message read after a prefix).
    pub(crate) fn offset_by(self, by: usize) -> Self {
        match self {
            ReadError::Truncated {
                what,
                position,
                needed,
                remaining,
            } => ReadError::Truncated {
                what,
                position: position + by,
                needed,
                remaining,
            },
            ReadError::InvalidLength {
                what,
                position,
                length,
            } => ReadError::InvalidLength {
                what,
                position: position + by,
                length,
            },
            ReadError::Null { what, position } => ReadError::Null {
                what,
                position: position + by,
            },
            ReadError::VarintTooLong { what, position } => ReadError::VarintTooLong {
                what,
                position: position + by,
            },
            other @ ReadError::UnsupportedVersion { .. } => other,
        }
    }
}

/// Why a message could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A string, bytes or array longer than its length field can say.
    #[error("{what} is {length} long, more than the {limit} its length field can hold")]
    TooLong {
        /// The field.
        what: &'static str,
        /// Its length (bytes, or elements for an array).
        length: usize,
        /// The most its length field holds.
        limit: usize,
    },
    /// A version the message does not have.
    #[error("{message} has no version {version} (its versions are {lowest} to {highest})")]
    UnsupportedVersion {
        /// The message.
        message: &'static str,
        /// The version asked for.
        version: i16,
        /// Its lowest version.
        lowest: i16,
        /// Its highest version.
        highest: i16,
    },
    /// A record kafkit reads only as its type (see [`CoordinatorRecord::Other`]).
    #[error("record type {0} is not one kafkit writes")]
    NotWritable(i16),
}

/// One of Kafka's versioned messages, read and written without its version prefix.
pub trait Message: Sized {
    /// Kafka's name for it.
    const NAME: &'static str;
    /// Its lowest and highest versions.
    const VERSIONS: (i16, i16);
    /// The first flexible version (compact lengths, tagged fields), if any.
    const FLEXIBLE_FROM: Option<i16>;

    /// Reads the message at `version` from the start of `bytes`; returns it and the number of
    /// bytes it took.
    fn read(bytes: &[u8], version: i16) -> Result<(Self, usize), ReadError> {
        check_version::<Self>(version).map_err(|(lowest, highest)| {
            ReadError::UnsupportedVersion {
                message: Self::NAME,
                version,
                lowest,
                highest,
            }
        })?;
        let mut r = Reader::new(bytes);
        let message = Self::read_from(&mut r, version, is_flexible::<Self>(version))?;
        Ok((message, r.position()))
    }

    /// Appends the message at `version` to `out`.
    fn write(&self, version: i16, out: &mut Vec<u8>) -> Result<(), WriteError> {
        check_version::<Self>(version).map_err(|(lowest, highest)| {
            WriteError::UnsupportedVersion {
                message: Self::NAME,
                version,
                lowest,
                highest,
            }
        })?;
        self.write_to(&mut Writer::new(out), version, is_flexible::<Self>(version))
    }

    #[doc(hidden)]
    fn read_from(r: &mut Reader<'_>, version: i16, flexible: bool) -> Result<Self, ReadError>;

    #[doc(hidden)]
    fn write_to(&self, w: &mut Writer<'_>, version: i16, flexible: bool) -> Result<(), WriteError>;
}

fn check_version<M: Message>(version: i16) -> Result<(), (i16, i16)> {
    let (lowest, highest) = M::VERSIONS;
    if (lowest..=highest).contains(&version) {
        Ok(())
    } else {
        Err((lowest, highest))
    }
}

fn is_flexible<M: Message>(version: i16) -> bool {
    M::FLEXIBLE_FROM.is_some_and(|from| version >= from)
}

/// A message with the version it is (or is to be) written at: the bytes of a key or value are
/// the int16 version, then the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioned<M> {
    /// The version.
    pub version: i16,
    /// The message.
    pub message: M,
}

impl<M: Message> Versioned<M> {
    /// A message to write at `version`.
    pub fn new(version: i16, message: M) -> Self {
        Versioned { version, message }
    }

    /// Reads the version, then the message at it. Bytes after the message are not read (Kafka's
    /// readers leave them).
    pub fn decode(bytes: &[u8]) -> Result<Self, ReadError> {
        Self::decode_as(bytes, Ok)
    }

    /// Reads the version, then the message at the version `read_as` maps it to (or its error).
    pub(crate) fn decode_as(
        bytes: &[u8],
        read_as: impl FnOnce(i16) -> Result<i16, ReadError>,
    ) -> Result<Self, ReadError> {
        let version = Reader::new(bytes).i16("version")?;
        let rest = bytes.get(2..).unwrap_or_default();
        let (message, _) = M::read(rest, read_as(version)?).map_err(|e| e.offset_by(2))?;
        Ok(Versioned { version, message })
    }

    /// The version, then the message.
    pub fn encode(&self) -> Result<Vec<u8>, WriteError> {
        let mut out = self.version.to_be_bytes().to_vec();
        self.message.write(self.version, &mut out)?;
        Ok(out)
    }
}

/// The key of an offset commit: versions 0 and 1 are the same fields (the version is the record
/// type; brokers write 1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetCommitKey {
    /// The group id.
    pub group: String,
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
}

impl Message for OffsetCommitKey {
    const NAME: &'static str = "OffsetCommitKey";
    const VERSIONS: (i16, i16) = (0, 1);
    const FLEXIBLE_FROM: Option<i16> = None;

    fn read_from(r: &mut Reader<'_>, _version: i16, flexible: bool) -> Result<Self, ReadError> {
        Ok(OffsetCommitKey {
            group: r.string("group", flexible)?,
            topic: r.string("topic", flexible)?,
            partition: r.i32("partition")?,
        })
    }

    fn write_to(
        &self,
        w: &mut Writer<'_>,
        _version: i16,
        flexible: bool,
    ) -> Result<(), WriteError> {
        w.string("group", &self.group, flexible)?;
        w.string("topic", &self.topic, flexible)?;
        w.i32(self.partition);
        Ok(())
    }
}

/// A committed offset: versions 0–4 (4 flexible). `leader_epoch` exists from version 3,
/// `expire_timestamp` only in version 1; elsewhere they hold their default, -1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitValue {
    /// The next offset the group will read.
    pub offset: i64,
    /// The leader epoch of the last record read, or -1.
    pub leader_epoch: i32,
    /// The committer's metadata string.
    pub metadata: String,
    /// When the offset was committed (ms since the epoch).
    pub commit_timestamp: i64,
    /// When it expires (version 1 only), or -1.
    pub expire_timestamp: i64,
    /// Tagged fields of version 4 that kafkit does not know.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl OffsetCommitValue {
    /// An offset commit as a consumer makes it: no leader epoch, no expiry, no metadata.
    pub fn new(offset: i64, commit_timestamp: i64) -> Self {
        OffsetCommitValue {
            offset,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp,
            expire_timestamp: -1,
            unknown_tagged_fields: Vec::new(),
        }
    }

    /// The version a broker writes this commit at: 1 when it carries an expire timestamp, else 3
    /// (`GroupCoordinatorRecordHelpers.newOffsetCommitRecord`).
    pub fn broker_version(&self) -> i16 {
        if self.expire_timestamp == -1 {
            3
        } else {
            1
        }
    }
}

impl Message for OffsetCommitValue {
    const NAME: &'static str = "OffsetCommitValue";
    const VERSIONS: (i16, i16) = (0, 4);
    const FLEXIBLE_FROM: Option<i16> = Some(4);

    fn read_from(r: &mut Reader<'_>, version: i16, flexible: bool) -> Result<Self, ReadError> {
        let offset = r.i64("offset")?;
        let leader_epoch = if version >= 3 {
            r.i32("leaderEpoch")?
        } else {
            -1
        };
        let metadata = r.string("metadata", flexible)?;
        let commit_timestamp = r.i64("commitTimestamp")?;
        let expire_timestamp = if version == 1 {
            r.i64("expireTimestamp")?
        } else {
            -1
        };
        let unknown_tagged_fields = r.tagged_fields(flexible)?;
        Ok(OffsetCommitValue {
            offset,
            leader_epoch,
            metadata,
            commit_timestamp,
            expire_timestamp,
            unknown_tagged_fields,
        })
    }

    fn write_to(&self, w: &mut Writer<'_>, version: i16, flexible: bool) -> Result<(), WriteError> {
        w.i64(self.offset);
        if version >= 3 {
            w.i32(self.leader_epoch);
        }
        w.string("metadata", &self.metadata, flexible)?;
        w.i64(self.commit_timestamp);
        if version == 1 {
            w.i64(self.expire_timestamp);
        }
        w.tagged_fields(&self.unknown_tagged_fields, flexible)?;
        Ok(())
    }
}

/// The key of a group's metadata (version 2, the record type).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupMetadataKey {
    /// The group id.
    pub group: String,
}

impl Message for GroupMetadataKey {
    const NAME: &'static str = "GroupMetadataKey";
    const VERSIONS: (i16, i16) = (2, 2);
    const FLEXIBLE_FROM: Option<i16> = None;

    fn read_from(r: &mut Reader<'_>, _version: i16, flexible: bool) -> Result<Self, ReadError> {
        Ok(GroupMetadataKey {
            group: r.string("group", flexible)?,
        })
    }

    fn write_to(
        &self,
        w: &mut Writer<'_>,
        _version: i16,
        flexible: bool,
    ) -> Result<(), WriteError> {
        w.string("group", &self.group, flexible)
    }
}

/// A classic group as its coordinator last wrote it: versions 0–4 (4 flexible);
/// `current_state_timestamp` exists from version 2 (else -1). An Empty group is written with
/// `protocol` and `leader` null and no members, its generation kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMetadataValue {
    /// `consumer` for consumers (and Kafka Streams), `connect` for Connect workers, ...
    pub protocol_type: String,
    /// The generation.
    pub generation: i32,
    /// The chosen protocol: for consumers, the assignor (`range`, `cooperative-sticky`, ...).
    pub protocol: Option<String>,
    /// The leader's member id.
    pub leader: Option<String>,
    /// When the group entered its state (ms since the epoch), or -1.
    pub current_state_timestamp: i64,
    /// The members.
    pub members: Vec<MemberMetadata>,
    /// Tagged fields of version 4 that kafkit does not know.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl GroupMetadataValue {
    /// The version brokers write (`GroupCoordinatorRecordHelpers.newGroupMetadataRecord`).
    pub const BROKER_VERSION: i16 = 3;
}

/// One member of a classic group (`MemberMetadata`): `group_instance_id` exists from version 3
/// (else `None`), `rebalance_timeout` from version 1 (else -1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberMetadata {
    /// The member id.
    pub member_id: String,
    /// `group.instance.id` of a static member.
    pub group_instance_id: Option<String>,
    /// The client id.
    pub client_id: String,
    /// The client's host, as the broker saw it (`/127.0.0.1`).
    pub client_host: String,
    /// `max.poll.interval.ms` for consumers (ms), or -1.
    pub rebalance_timeout: i32,
    /// `session.timeout.ms` (ms).
    pub session_timeout: i32,
    /// The subscription the member sent for the chosen protocol (for protocol type
    /// `consumer`: a [`Subscription`](super::protocol::Subscription)).
    pub subscription: Vec<u8>,
    /// What the leader assigned it (for `consumer`: an
    /// [`Assignment`](super::protocol::Assignment)); empty while none is.
    pub assignment: Vec<u8>,
    /// Tagged fields of version 4 that kafkit does not know.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

fn read_member(
    r: &mut Reader<'_>,
    version: i16,
    flexible: bool,
) -> Result<MemberMetadata, ReadError> {
    let member_id = r.string("memberId", flexible)?;
    let group_instance_id = if version >= 3 {
        r.nullable_string("groupInstanceId", flexible)?
    } else {
        None
    };
    let client_id = r.string("clientId", flexible)?;
    let client_host = r.string("clientHost", flexible)?;
    let rebalance_timeout = if version >= 1 {
        r.i32("rebalanceTimeout")?
    } else {
        -1
    };
    Ok(MemberMetadata {
        member_id,
        group_instance_id,
        client_id,
        client_host,
        rebalance_timeout,
        session_timeout: r.i32("sessionTimeout")?,
        subscription: r.bytes("subscription", flexible)?,
        assignment: r.bytes("assignment", flexible)?,
        unknown_tagged_fields: r.tagged_fields(flexible)?,
    })
}

fn write_member(
    m: &MemberMetadata,
    w: &mut Writer<'_>,
    version: i16,
    flexible: bool,
) -> Result<(), WriteError> {
    w.string("memberId", &m.member_id, flexible)?;
    if version >= 3 {
        w.nullable_string("groupInstanceId", m.group_instance_id.as_deref(), flexible)?;
    }
    w.string("clientId", &m.client_id, flexible)?;
    w.string("clientHost", &m.client_host, flexible)?;
    if version >= 1 {
        w.i32(m.rebalance_timeout);
    }
    w.i32(m.session_timeout);
    w.nullable_bytes("subscription", Some(&m.subscription), flexible)?;
    w.nullable_bytes("assignment", Some(&m.assignment), flexible)?;
    w.tagged_fields(&m.unknown_tagged_fields, flexible)?;
    Ok(())
}

impl Message for GroupMetadataValue {
    const NAME: &'static str = "GroupMetadataValue";
    const VERSIONS: (i16, i16) = (0, 4);
    const FLEXIBLE_FROM: Option<i16> = Some(4);

    fn read_from(r: &mut Reader<'_>, version: i16, flexible: bool) -> Result<Self, ReadError> {
        let protocol_type = r.string("protocolType", flexible)?;
        let generation = r.i32("generation")?;
        let protocol = r.nullable_string("protocol", flexible)?;
        let leader = r.nullable_string("leader", flexible)?;
        let current_state_timestamp = if version >= 2 {
            r.i64("currentStateTimestamp")?
        } else {
            -1
        };
        let count = r.array_len("members", flexible)?;
        let members = (0..count)
            .map(|_| read_member(r, version, flexible))
            .collect::<Result<_, _>>()?;
        let unknown_tagged_fields = r.tagged_fields(flexible)?;
        Ok(GroupMetadataValue {
            protocol_type,
            generation,
            protocol,
            leader,
            current_state_timestamp,
            members,
            unknown_tagged_fields,
        })
    }

    fn write_to(&self, w: &mut Writer<'_>, version: i16, flexible: bool) -> Result<(), WriteError> {
        w.string("protocolType", &self.protocol_type, flexible)?;
        w.i32(self.generation);
        w.nullable_string("protocol", self.protocol.as_deref(), flexible)?;
        w.nullable_string("leader", self.leader.as_deref(), flexible)?;
        if version >= 2 {
            w.i64(self.current_state_timestamp);
        }
        w.array_len("members", self.members.len(), flexible)?;
        for member in &self.members {
            write_member(member, w, version, flexible)?;
        }
        w.tagged_fields(&self.unknown_tagged_fields, flexible)?;
        Ok(())
    }
}

/// The key or the value of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordPart {
    /// The key.
    Key,
    /// The value.
    Value,
}

impl std::fmt::Display for RecordPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RecordPart::Key => "key",
            RecordPart::Value => "value",
        })
    }
}

/// Why a `__consumer_offsets` record could not be read: which part, and what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("in the record's {part}: {error}")]
pub struct RecordReadError {
    /// The key or the value.
    pub part: RecordPart,
    /// What was wrong.
    pub error: ReadError,
}

/// A record of `__consumer_offsets`, typed by its key's record type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoordinatorRecord {
    /// An offset commit (record types 0 and 1); `None`: the offset was deleted or expired.
    OffsetCommit {
        /// The key, at version 0 or 1.
        key: Versioned<OffsetCommitKey>,
        /// The committed offset, or `None` for a tombstone.
        value: Option<Versioned<OffsetCommitValue>>,
    },
    /// A classic group's metadata (record type 2); `None`: the group was deleted.
    GroupMetadata {
        /// The key.
        key: Versioned<GroupMetadataKey>,
        /// The group, or `None` for a tombstone.
        value: Option<Versioned<GroupMetadataValue>>,
    },
    /// Any other record type: the new consumer protocol's (3–8) and share groups' (9–15)
    /// records, which kafkit does not read yet, and types Kafka does not define (its loader
    /// skips those too).
    Other {
        /// The record type (the key's first two bytes).
        record_type: i16,
    },
}

impl CoordinatorRecord {
    /// An offset commit as a broker writes it (key version 1, value version 3, or 1 with an
    /// expire timestamp).
    pub fn offset_commit(key: OffsetCommitKey, value: OffsetCommitValue) -> Self {
        let version = value.broker_version();
        CoordinatorRecord::OffsetCommit {
            key: Versioned::new(1, key),
            value: Some(Versioned::new(version, value)),
        }
    }

    /// The tombstone that deletes a committed offset.
    pub fn offset_tombstone(key: OffsetCommitKey) -> Self {
        CoordinatorRecord::OffsetCommit {
            key: Versioned::new(1, key),
            value: None,
        }
    }

    /// A group's metadata as a broker writes it (key version 2, value version 3).
    pub fn group_metadata(group: impl Into<String>, value: GroupMetadataValue) -> Self {
        CoordinatorRecord::GroupMetadata {
            key: Versioned::new(
                2,
                GroupMetadataKey {
                    group: group.into(),
                },
            ),
            value: Some(Versioned::new(GroupMetadataValue::BROKER_VERSION, value)),
        }
    }

    /// The tombstone that deletes a group.
    pub fn group_tombstone(group: impl Into<String>) -> Self {
        CoordinatorRecord::GroupMetadata {
            key: Versioned::new(
                2,
                GroupMetadataKey {
                    group: group.into(),
                },
            ),
            value: None,
        }
    }

    /// Reads a record from its key and value bytes.
    pub fn decode(key: &[u8], value: Option<&[u8]>) -> Result<Self, RecordReadError> {
        let in_key = |error| RecordReadError {
            part: RecordPart::Key,
            error,
        };
        let in_value = |error| RecordReadError {
            part: RecordPart::Value,
            error,
        };
        let record_type = Reader::new(key).i16("record type").map_err(in_key)?;
        Ok(match record_type {
            0 | 1 => CoordinatorRecord::OffsetCommit {
                key: Versioned::decode(key).map_err(in_key)?,
                value: value.map(Versioned::decode).transpose().map_err(in_value)?,
            },
            2 => CoordinatorRecord::GroupMetadata {
                key: Versioned::decode(key).map_err(in_key)?,
                value: value.map(Versioned::decode).transpose().map_err(in_value)?,
            },
            record_type => CoordinatorRecord::Other { record_type },
        })
    }

    /// The key's and the value's bytes (`None`: a tombstone).
    pub fn encode(&self) -> Result<(Vec<u8>, Option<Vec<u8>>), WriteError> {
        match self {
            CoordinatorRecord::OffsetCommit { key, value } => Ok((
                key.encode()?,
                value.as_ref().map(Versioned::encode).transpose()?,
            )),
            CoordinatorRecord::GroupMetadata { key, value } => Ok((
                key.encode()?,
                value.as_ref().map(Versioned::encode).transpose()?,
            )),
            CoordinatorRecord::Other { record_type } => Err(WriteError::NotWritable(*record_type)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn the_vectors_group_metadata_v3_reads_and_writes_back() {
        // consumer_offsets_records.json, GroupMetadata key 2 / value 3.
        let key = hex("0002000867726f75702d6964");
        let value = hex("00030008636f6e73756d657200000001000572616e676500066c656164657200000000000004d20000000100086d656d6265722d31001067726f75702d696e7374616e63652d310008636c69656e742d310006686f73742d31000003e8000005dc000000020001000000020102");
        let record = CoordinatorRecord::decode(&key, Some(&value)).unwrap();
        let CoordinatorRecord::GroupMetadata {
            key: k,
            value: Some(v),
        } = &record
        else {
            panic!("{record:?}")
        };
        assert_eq!(k.message.group, "group-id");
        assert_eq!(v.version, 3);
        let m = v.message.members.first().unwrap();
        assert_eq!(m.group_instance_id.as_deref(), Some("group-instance-1"));
        assert_eq!((m.rebalance_timeout, m.session_timeout), (1000, 1500));
        assert_eq!(
            (&m.subscription[..], &m.assignment[..]),
            (&[0, 1][..], &[1, 2][..])
        );
        assert_eq!(record.encode().unwrap(), (key, Some(value)));
    }

    #[test]
    fn brokers_versions() {
        let key = OffsetCommitKey {
            group: "g".into(),
            topic: "t".into(),
            partition: 0,
        };
        let mut value = OffsetCommitValue::new(5, 1);
        let CoordinatorRecord::OffsetCommit { key: k, value: v } =
            CoordinatorRecord::offset_commit(key.clone(), value.clone())
        else {
            unreachable!()
        };
        assert_eq!((k.version, v.map(|v| v.version)), (1, Some(3)));
        value.expire_timestamp = 9;
        assert_eq!(value.broker_version(), 1);
    }

    #[test]
    fn bad_bytes_are_typed_errors_with_positions() {
        assert_eq!(
            CoordinatorRecord::decode(&[0], None),
            Err(RecordReadError {
                part: RecordPart::Key,
                error: ReadError::Truncated {
                    what: "record type",
                    position: 0,
                    needed: 2,
                    remaining: 1
                }
            })
        );
        // An offset key whose topic claims 9 bytes where 1 is left.
        let key = [0, 1, 0, 1, b'g', 0, 9, b't'];
        let err = CoordinatorRecord::decode(&key, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "in the record's key: truncated topic at byte 7: needs 9 bytes, 1 remain"
        );
        // A value version Kafka does not define.
        let key = [0, 2, 0, 1, b'g'];
        let err = CoordinatorRecord::decode(&key, Some(&[0, 9])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "in the record's value: GroupMetadataValue has no version 9 (its versions are 0 to 4)"
        );
        // A member count larger than the bytes left.
        let mut value = vec![0, 0, 0, 1, b'c', 0, 0, 0, 1, 255, 255, 255, 255];
        value.extend_from_slice(&1000i32.to_be_bytes());
        let err = CoordinatorRecord::decode(&key, Some(&value)).unwrap_err();
        assert_eq!(
            err.error,
            ReadError::InvalidLength {
                what: "members",
                position: 13,
                length: 1000
            }
        );
        // A null group id.
        assert!(matches!(
            CoordinatorRecord::decode(&[0, 2, 255, 255], None)
                .unwrap_err()
                .error,
            ReadError::Null {
                what: "group",
                position: 2
            }
        ));
    }

    #[test]
    fn other_record_types_are_kept_as_their_type() {
        assert_eq!(
            CoordinatorRecord::decode(&[0, 5, 1, 2, 3], Some(&[9])),
            Ok(CoordinatorRecord::Other { record_type: 5 })
        );
        assert_eq!(
            CoordinatorRecord::Other { record_type: 5 }.encode(),
            Err(WriteError::NotWritable(5))
        );
    }

    #[test]
    fn a_string_too_long_for_its_field_is_refused() {
        let key = OffsetCommitKey {
            group: "g".repeat(40_000),
            topic: "t".into(),
            partition: 0,
        };
        assert!(matches!(
            Versioned::new(1, key).encode(),
            Err(WriteError::TooLong { what: "group", .. })
        ));
    }

    fn text() -> impl Strategy<Value = String> {
        "[a-z0-9./-]{0,12}"
    }

    fn tagged() -> impl Strategy<Value = Vec<RawTaggedField>> {
        proptest::collection::vec(
            (0u32..1000, proptest::collection::vec(any::<u8>(), 0..5))
                .prop_map(|(tag, data)| RawTaggedField { tag, data }),
            0..2,
        )
    }

    fn member(version: i16) -> impl Strategy<Value = MemberMetadata> {
        (
            (text(), proptest::option::of(text()), text(), text()),
            (any::<i32>(), any::<i32>()),
            proptest::collection::vec(any::<u8>(), 0..20),
            proptest::collection::vec(any::<u8>(), 0..20),
            tagged(),
        )
            .prop_map(
                move |((id, instance, client, host), (rebalance, session), sub, asg, tags)| {
                    MemberMetadata {
                        member_id: id,
                        group_instance_id: instance.filter(|_| version >= 3),
                        client_id: client,
                        client_host: host,
                        rebalance_timeout: if version >= 1 { rebalance } else { -1 },
                        session_timeout: session,
                        subscription: sub,
                        assignment: asg,
                        unknown_tagged_fields: if version >= 4 { tags } else { Vec::new() },
                    }
                },
            )
    }

    fn group_value() -> impl Strategy<Value = Versioned<GroupMetadataValue>> {
        (0i16..=4).prop_flat_map(|version| {
            (
                text(),
                any::<i32>(),
                proptest::option::of(text()),
                proptest::option::of(text()),
                any::<i64>(),
                proptest::collection::vec(member(version), 0..3),
                tagged(),
            )
                .prop_map(
                    move |(pt, generation, protocol, leader, ts, members, tags)| {
                        Versioned::new(
                            version,
                            GroupMetadataValue {
                                protocol_type: pt,
                                generation,
                                protocol,
                                leader,
                                current_state_timestamp: if version >= 2 { ts } else { -1 },
                                members,
                                unknown_tagged_fields: if version >= 4 { tags } else { Vec::new() },
                            },
                        )
                    },
                )
        })
    }

    fn offset_value() -> impl Strategy<Value = Versioned<OffsetCommitValue>> {
        (
            0i16..=4,
            any::<i64>(),
            any::<i32>(),
            text(),
            any::<i64>(),
            any::<i64>(),
            tagged(),
        )
            .prop_map(|(version, offset, epoch, metadata, commit, expire, tags)| {
                Versioned::new(
                    version,
                    OffsetCommitValue {
                        offset,
                        leader_epoch: if version >= 3 { epoch } else { -1 },
                        metadata,
                        commit_timestamp: commit,
                        expire_timestamp: if version == 1 { expire } else { -1 },
                        unknown_tagged_fields: if version >= 4 { tags } else { Vec::new() },
                    },
                )
            })
    }

    proptest! {
        /// Every version: what is written reads back as the same value, and the bytes read
        /// write back as the same bytes.
        #[test]
        fn offset_commits_round_trip(
            key_version in 0i16..=1,
            group in text(),
            topic in text(),
            partition in any::<i32>(),
            value in proptest::option::of(offset_value()),
        ) {
            let record = CoordinatorRecord::OffsetCommit {
                key: Versioned::new(key_version, OffsetCommitKey { group, topic, partition }),
                value,
            };
            let (k, v) = record.encode().unwrap();
            let back = CoordinatorRecord::decode(&k, v.as_deref()).unwrap();
            prop_assert_eq!(&back, &record);
            prop_assert_eq!(back.encode().unwrap(), (k, v));
        }

        #[test]
        fn group_metadata_round_trips(group in text(), value in proptest::option::of(group_value())) {
            let record = CoordinatorRecord::GroupMetadata {
                key: Versioned::new(2, GroupMetadataKey { group }),
                value,
            };
            let (k, v) = record.encode().unwrap();
            let back = CoordinatorRecord::decode(&k, v.as_deref()).unwrap();
            prop_assert_eq!(&back, &record);
            prop_assert_eq!(back.encode().unwrap(), (k, v));
        }

        /// Arbitrary bytes never panic the reader: they read, or say what is wrong.
        #[test]
        fn any_bytes_read_or_fail(
            record_type in 0i16..4,
            key in proptest::collection::vec(any::<u8>(), 0..40),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..80)),
        ) {
            let key: Vec<u8> = record_type.to_be_bytes().into_iter().chain(key).collect();
            let _ = CoordinatorRecord::decode(&key, value.as_deref());
        }
    }
}
