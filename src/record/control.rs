//! Control records (spec §4): the key names the type; COMMIT/ABORT values are
//! end-transaction markers.

use super::record::Record;
use super::{BatchBuilder, Compression, RecordError, TimestampType};

/// The version Kafka writes in control record keys and marker values.
const CURRENT_VERSION: i16 = 0;
/// Bytes of an end-transaction marker value v0: int16 version + int32 coordinatorEpoch.
const END_TXN_MARKER_VALUE_SIZE: usize = 6;
const CONTROL_KEY_SIZE: usize = 4;

/// The type in a control record's key (`ControlRecordType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlRecordType {
    /// 0: a transaction was aborted.
    Abort,
    /// 1: a transaction was committed.
    Commit,
    /// 2: KRaft leader change.
    LeaderChange,
    /// 3: KRaft snapshot header.
    SnapshotHeader,
    /// 4: KRaft snapshot footer.
    SnapshotFooter,
    /// 5: KRaft version record.
    KraftVersion,
    /// 6: KRaft voters record.
    KraftVoters,
    /// Any other type id (Kafka's `UNKNOWN`), with the id as stored.
    Unknown(i16),
}

impl ControlRecordType {
    /// The type id stored in the key.
    pub const fn id(self) -> i16 {
        match self {
            Self::Abort => 0,
            Self::Commit => 1,
            Self::LeaderChange => 2,
            Self::SnapshotHeader => 3,
            Self::SnapshotFooter => 4,
            Self::KraftVersion => 5,
            Self::KraftVoters => 6,
            Self::Unknown(id) => id,
        }
    }

    /// The type for a stored id; unknown ids are kept in [`Self::Unknown`].
    pub const fn from_id(id: i16) -> Self {
        match id {
            0 => Self::Abort,
            1 => Self::Commit,
            2 => Self::LeaderChange,
            3 => Self::SnapshotHeader,
            4 => Self::SnapshotFooter,
            5 => Self::KraftVersion,
            6 => Self::KraftVoters,
            other => Self::Unknown(other),
        }
    }

    /// Kafka's enum constant name, as DumpLogSegments prints it (`controlType: NAME(id)`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Abort => "ABORT",
            Self::Commit => "COMMIT",
            Self::LeaderChange => "LEADER_CHANGE",
            Self::SnapshotHeader => "SNAPSHOT_HEADER",
            Self::SnapshotFooter => "SNAPSHOT_FOOTER",
            Self::KraftVersion => "KRAFT_VERSION",
            Self::KraftVoters => "KRAFT_VOTERS",
            Self::Unknown(_) => "UNKNOWN",
        }
    }

    /// Kafka's `ControlRecordType.parse`: the type named by a control record key
    /// (`int16 version` + `int16 type`). Versions above 0 are read as 0; a negative version or a
    /// key shorter than 4 bytes (or null) is an error at position 0 of the key.
    pub fn parse_key(key: Option<&[u8]>) -> Result<Self, RecordError> {
        let key = key.unwrap_or_default();
        let size = i32::try_from(key.len()).unwrap_or(i32::MAX);
        let (Some(version), Some(type_id)) = (be_i16(key, 0), be_i16(key, 2)) else {
            return Err(RecordError::InvalidControlKey { position: 0, size });
        };
        if version < 0 {
            return Err(RecordError::NegativeControlVersion {
                position: 0,
                what: "control record",
                version,
            });
        }
        Ok(Self::from_id(type_id))
    }

    /// The type of a decoded record of a control batch.
    pub fn of_record(record: &Record) -> Result<Self, RecordError> {
        if record.key.is_none() {
            return Err(RecordError::InvalidControlKey {
                position: 0,
                size: -1,
            });
        }
        Self::parse_key(record.key.as_deref())
    }

    /// The 4-byte key Kafka writes for this type (version 0).
    pub fn encode_key(self) -> [u8; CONTROL_KEY_SIZE] {
        let mut out = [0u8; CONTROL_KEY_SIZE];
        out[..2].copy_from_slice(&CURRENT_VERSION.to_be_bytes());
        out[2..].copy_from_slice(&self.id().to_be_bytes());
        out
    }
}

fn be_i16(bytes: &[u8], at: usize) -> Option<i16> {
    let b = bytes.get(at..at + 2)?;
    Some(i16::from_be_bytes([*b.first()?, *b.get(1)?]))
}

/// A COMMIT or ABORT marker (`EndTransactionMarker`), the one record of a transaction marker
/// batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EndTransactionMarker {
    /// [`ControlRecordType::Commit`] or [`ControlRecordType::Abort`].
    pub control_type: ControlRecordType,
    /// Epoch of the transaction coordinator that wrote the marker.
    pub coordinator_epoch: i32,
}

impl EndTransactionMarker {
    /// A COMMIT marker.
    pub fn commit(coordinator_epoch: i32) -> Self {
        Self {
            control_type: ControlRecordType::Commit,
            coordinator_epoch,
        }
    }

    /// An ABORT marker.
    pub fn abort(coordinator_epoch: i32) -> Self {
        Self {
            control_type: ControlRecordType::Abort,
            coordinator_epoch,
        }
    }

    /// Whether the transaction committed.
    pub fn is_commit(&self) -> bool {
        self.control_type == ControlRecordType::Commit
    }

    /// Kafka's `EndTransactionMarker.deserialize`: reads a marker from a control record's key
    /// and value. Higher value versions are read as v0, as Kafka does.
    pub fn decode(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<Self, RecordError> {
        let control_type = ControlRecordType::parse_key(key)?;
        if !matches!(
            control_type,
            ControlRecordType::Commit | ControlRecordType::Abort
        ) {
            return Err(RecordError::NotEndTxnMarker {
                position: 0,
                type_id: control_type.id(),
            });
        }
        let size = value.map_or(-1, |v| i32::try_from(v.len()).unwrap_or(i32::MAX));
        let value = value.unwrap_or_default();
        let version = be_i16(value, 0);
        if let Some(version) = version.filter(|v| *v < 0) {
            return Err(RecordError::NegativeControlVersion {
                position: 0,
                what: "end transaction marker",
                version,
            });
        }
        let epoch = value
            .get(2..END_TXN_MARKER_VALUE_SIZE)
            .and_then(|b| b.try_into().ok())
            .map(i32::from_be_bytes);
        match (version, epoch) {
            (Some(_), Some(coordinator_epoch)) => Ok(Self {
                control_type,
                coordinator_epoch,
            }),
            _ => Err(RecordError::InvalidEndTxnMarker { position: 0, size }),
        }
    }

    /// Reads the marker of a decoded control record.
    pub fn from_record(record: &Record) -> Result<Self, RecordError> {
        Self::decode(record.key.as_deref(), record.value.as_deref())
    }

    /// The record key: version 0 + type id.
    pub fn encode_key(&self) -> [u8; CONTROL_KEY_SIZE] {
        self.control_type.encode_key()
    }

    /// The record value: version 0 + coordinator epoch.
    pub fn encode_value(&self) -> [u8; END_TXN_MARKER_VALUE_SIZE] {
        let mut out = [0u8; END_TXN_MARKER_VALUE_SIZE];
        out[..2].copy_from_slice(&CURRENT_VERSION.to_be_bytes());
        out[2..].copy_from_slice(&self.coordinator_epoch.to_be_bytes());
        out
    }

    /// A marker batch as Kafka's `MemoryRecords.withEndTransactionMarker` writes it:
    /// transactional + control, uncompressed, CreateTime, baseSequence -1, one record.
    pub fn build_batch(
        &self,
        base_offset: i64,
        timestamp: i64,
        producer_id: i64,
        producer_epoch: i16,
        partition_leader_epoch: i32,
    ) -> Result<Vec<u8>, RecordError> {
        let mut b = BatchBuilder::new(base_offset, Compression::None, TimestampType::CreateTime)
            .producer_id(producer_id)
            .producer_epoch(producer_epoch)
            .partition_leader_epoch(partition_leader_epoch)
            .transactional(true)
            .control(true);
        b.append(
            timestamp,
            Some(&self.encode_key()),
            Some(&self.encode_value()),
            &[],
        );
        b.build()
    }
}
