//! What a dump finds, as typed events: the dump walks the files and hands each event to a
//! printer ([`super::text`] writes Kafka's lines, [`super::printer::JsonPrinter`] one JSON
//! object per event). The JSON shape is `docs/json.md`'s `dump-log-segments` section: fields
//! in declaration order, snake_case, `type` first.

use std::borrow::Cow;

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::decode::jvalue::JValue;
use crate::output::json::{JsonBytes, JsonHeaders};
use crate::record::{ControlRecordType, RawBatch, Record};

/// One event of a dump, in the order found.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DumpEvent<'a> {
    /// A file begins (Kafka's `Dumping <file>`).
    File {
        /// The path as given, Java-normalised (duplicate and trailing `/` removed).
        file: &'a str,
        /// What the file is, by its suffix.
        kind: FileKind,
        /// The absolute path, as Kafka's summaries name the file.
        #[serde(skip)]
        absolute: &'a str,
    },
    /// What Kafka prints before the batches of a `.log` or `.checkpoint`.
    Header(Header),
    /// A batch (or a legacy entry) of a `.log` or `.checkpoint`.
    Batch(Batch),
    /// An offset-index entry.
    IndexEntry {
        /// The offset the entry names.
        offset: i64,
        /// The byte position it gives in the `.log` (as Kafka reads it: an int).
        position: i32,
        /// The last offset of the batch found at `position`, `None` when none could be read.
        log_offset: Option<i64>,
    },
    /// A time-index entry.
    TimeIndexEntry {
        /// The entry's timestamp.
        timestamp: i64,
        /// The offset it names.
        offset: i64,
    },
    /// A line Kafka prints about a whole index.
    IndexStatus {
        /// Which.
        status: IndexStatus,
        /// Kafka's line.
        text: String,
    },
    /// A producer of a `.snapshot`.
    ProducerSnapshotEntry(ProducerEntry),
    /// An entry of a `.txnindex`.
    AbortedTxn {
        /// The entry's version.
        version: i16,
        /// The producer.
        producer_id: i64,
        /// The transaction's first offset.
        first_offset: i64,
        /// The offset of its ABORT marker.
        last_offset: i64,
        /// The last stable offset when it was aborted.
        last_stable_offset: i64,
    },
    /// A file of a kind Kafka's tool does not dump.
    Ignored {
        /// The path as given.
        file: &'a str,
    },
    /// Something wrong, as found.
    Problem(Problem<'a>),
    /// The last event: what the dump read and found.
    Summary(Summary),
    /// A record, with deep iteration. Its struct writes its own `type`, first, with the other
    /// field names: constants all, where serde's tag of a newtype variant costs a tenth of a
    /// record's JSON. (Serde wants such variants last.)
    #[serde(untagged)]
    Record(RecordEvent<'a>),
}

/// The `type` of a record event.
#[derive(Debug, Clone, Copy)]
pub struct RecordType;

impl Serialize for RecordType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("record")
    }
}

/// A file's kind, by its suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// `.log`: a segment.
    Log,
    /// `.checkpoint`: a KRaft snapshot.
    Checkpoint,
    /// `.index`: an offset index.
    Index,
    /// `.timeindex`: a time index.
    #[serde(rename = "timeindex")]
    TimeIndex,
    /// `.snapshot`: a producer-state snapshot.
    Snapshot,
    /// `.txnindex`: a transaction index.
    #[serde(rename = "txnindex")]
    TxnIndex,
    /// Anything else.
    Unknown,
}

impl FileKind {
    /// The kind of a file named `name`, by the suffix from its last `.` (Kafka's rule).
    pub fn of(name: &str) -> Self {
        match name.rfind('.').and_then(|i| name.get(i..)).unwrap_or("") {
            ".log" => FileKind::Log,
            ".checkpoint" => FileKind::Checkpoint,
            ".index" => FileKind::Index,
            ".timeindex" => FileKind::TimeIndex,
            ".snapshot" => FileKind::Snapshot,
            ".txnindex" => FileKind::TxnIndex,
            _ => FileKind::Unknown,
        }
    }
}

/// The line before the batches: `Log starting offset: 0`, `Snapshot end offset: 14459, epoch:
/// 1` or `KRaft bootstrap snapshot`.
#[derive(Debug, Serialize)]
pub struct Header {
    /// Kafka's line.
    pub text: String,
    /// A `.log`'s base offset, from its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_offset: Option<i64>,
    /// A KRaft snapshot's end offset, from its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<i64>,
    /// A KRaft snapshot's epoch, from its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<i32>,
}

/// A batch: the fields of Kafka's batch line, in its order.
#[derive(Debug, Serialize)]
pub struct Batch {
    /// The header's base offset; a legacy entry's own offset.
    pub base_offset: i64,
    /// The last offset.
    pub last_offset: i64,
    /// The header's record count; `None` for a legacy entry.
    pub count: Option<i32>,
    /// The first record's sequence (-1 for legacy).
    pub base_sequence: i32,
    /// The last record's sequence (-1 for legacy).
    pub last_sequence: i32,
    /// The producer id (-1 for legacy).
    pub producer_id: i64,
    /// The producer epoch (-1 for legacy).
    pub producer_epoch: i16,
    /// The partition leader epoch (-1 for legacy).
    pub partition_leader_epoch: i32,
    /// Attribute bit 4.
    pub is_transactional: bool,
    /// Attribute bit 5.
    pub is_control: bool,
    /// The delete horizon, when attribute bit 6 is set.
    pub delete_horizon_ms: Option<i64>,
    /// Byte position in the file.
    pub position: u64,
    /// `CreateTime`, `LogAppendTime` or `NoTimestampType`.
    pub timestamp_type: &'static str,
    /// The batch's max timestamp.
    pub max_timestamp: i64,
    /// Bytes, with the offset and size fields.
    pub size: usize,
    /// The format version.
    pub magic: i8,
    /// The codec's name, or `unknown(<id>)`.
    pub compression: Cow<'static, str>,
    /// The stored checksum.
    pub crc: u32,
    /// Whether the checksum matches.
    pub is_valid: bool,
}

impl Batch {
    /// The batch `b` at file `position`; `is_valid` is passed in so the CRC is computed once.
    pub fn of(position: u64, b: &RawBatch<'_>, is_valid: bool) -> Self {
        let h = b.header();
        Batch {
            base_offset: h.map_or(b.base_offset(), |h| h.base_offset),
            last_offset: b.last_offset(),
            count: b.records_count(),
            base_sequence: b.base_sequence(),
            last_sequence: b.last_sequence(),
            producer_id: b.producer_id(),
            producer_epoch: b.producer_epoch(),
            partition_leader_epoch: b.partition_leader_epoch(),
            is_transactional: b.is_transactional(),
            is_control: b.is_control(),
            delete_horizon_ms: b.delete_horizon_ms(),
            position,
            timestamp_type: b.timestamp_type().name(),
            max_timestamp: b.max_timestamp(),
            size: b.size_in_bytes(),
            magic: b.magic(),
            compression: match b.compression() {
                Ok(c) => Cow::Borrowed(c.name()),
                Err(_) => Cow::Owned(format!("unknown({})", b.attributes() & 0x07)),
            },
            crc: b.checksum(),
            is_valid,
        }
    }
}

/// A record: the fields of Kafka's record line, then the bytes, then what a decoder made of
/// them.
#[derive(Debug, Serialize)]
pub struct RecordEvent<'a> {
    /// `"record"`.
    #[serde(rename = "type")]
    pub kind: RecordType,
    /// The record's offset.
    pub offset: i64,
    /// The record's timestamp (the batch's max timestamp under `LogAppendTime`).
    pub timestamp: i64,
    /// The batch's timestamp type.
    pub timestamp_type: &'static str,
    /// Key length, -1 for null.
    pub key_size: i32,
    /// Value length, -1 for null.
    pub value_size: i32,
    /// The record's sequence (-1 for legacy records).
    pub sequence: i32,
    /// A legacy record's own CRC check; `None` for magic 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_valid: Option<bool>,
    /// A legacy record's stored CRC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crc: Option<u32>,
    /// What a control record says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control: Option<&'a Control>,
    /// The headers.
    pub headers: JsonHeaders<'a>,
    /// The key's bytes.
    pub key: JsonBytes<'a>,
    /// The value's bytes.
    pub value: JsonBytes<'a>,
    /// The key and value as printed (`--print-data-log`); in JSON `decoded`, for decoders
    /// other than the string one.
    #[serde(rename = "decoded", skip_serializing_if = "Contents::is_bytes_only")]
    pub contents: Contents<'a>,
}

impl<'a> RecordEvent<'a> {
    /// Record `r` of a batch of `magic` whose timestamp type is `timestamp_type`.
    #[inline]
    pub fn of(
        r: &'a Record,
        magic: i8,
        timestamp_type: &'static str,
        control: Option<&'a Control>,
        contents: Contents<'a>,
    ) -> Self {
        let legacy = magic < 2;
        RecordEvent {
            kind: RecordType,
            offset: r.offset,
            timestamp: r.timestamp,
            timestamp_type,
            key_size: r.key_size(),
            value_size: r.value_size(),
            sequence: r.sequence,
            is_valid: legacy.then_some(r.is_valid),
            crc: if legacy { r.crc } else { None },
            control,
            headers: JsonHeaders(&r.headers),
            key: JsonBytes(r.key.as_deref()),
            value: JsonBytes(r.value.as_deref()),
            contents,
        }
    }
}

/// What a control record says.
#[derive(Debug)]
pub enum Control {
    /// A transaction marker (`COMMIT`, `ABORT`).
    EndTxn {
        /// Which.
        marker: ControlRecordType,
        /// The coordinator's epoch.
        coordinator_epoch: i32,
    },
    /// A KRaft control record, decoded.
    Kraft {
        /// Which.
        kind: ControlRecordType,
        /// The label Kafka prints before it (`SnapshotHeader`, `LeaderChange:`, ...).
        label: &'static str,
        /// The decoded message, printed as Kafka prints it.
        data: JValue,
    },
    /// A control type Kafka's tool does not decode.
    Other {
        /// Which.
        kind: ControlRecordType,
    },
}

impl Serialize for Control {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        match self {
            Control::EndTxn {
                marker,
                coordinator_epoch,
            } => {
                map.serialize_entry("type", marker.name())?;
                map.serialize_entry("coordinator_epoch", coordinator_epoch)?;
            }
            Control::Kraft { kind, data, .. } => {
                map.serialize_entry("type", kind.name())?;
                map.serialize_entry("data", &data.to_json())?;
            }
            Control::Other { kind } => {
                map.serialize_entry("type", kind.name())?;
                map.serialize_entry("id", &kind.id())?;
            }
        }
        map.end()
    }
}

/// A record's key and value as the text line prints them.
#[derive(Debug, Clone, Copy, Default)]
pub enum Contents<'a> {
    /// Not printed (no `--print-data-log`, or a control record).
    #[default]
    Hidden,
    /// Kafka's `StringDecoder` on the key and value bytes (the JSON has the bytes already).
    Strings,
    /// Texts of the `--key-decoder`/`--value-decoder`; in JSON `{"key", "value"}`.
    Texts {
        /// The key's text, if the key is not null.
        key: Option<&'a str>,
        /// The value's text, if the value is not null.
        payload: Option<&'a str>,
    },
    /// An internal-topic decoder's texts, and its JSON of the message (or the error).
    Message {
        /// Kafka's text after `key: `.
        key: Option<&'a str>,
        /// Kafka's text after `payload: `.
        payload: Option<&'a str>,
        /// `{"key": ..., "value": ...}` or `{"error": ...}`.
        json: &'a Value,
    },
}

impl Contents<'_> {
    /// True when the JSON has nothing to add to the bytes.
    pub fn is_bytes_only(&self) -> bool {
        matches!(self, Contents::Hidden | Contents::Strings)
    }
}

impl Serialize for Contents<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Contents::Hidden | Contents::Strings => s.serialize_none(),
            Contents::Texts { key, payload } => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("key", key)?;
                map.serialize_entry("value", payload)?;
                map.end()
            }
            Contents::Message { json, .. } => json.serialize(s),
        }
    }
}

/// A line about a whole index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexStatus {
    /// `<file> is empty.`
    Empty,
    /// `<file> passed sanity check.`
    SanityCheckPassed,
}

/// A producer of a `.snapshot`.
#[derive(Debug, Serialize)]
pub struct ProducerEntry {
    /// The producer id.
    pub producer_id: i64,
    /// Its epoch.
    pub producer_epoch: i16,
    /// The coordinator epoch.
    pub coordinator_epoch: i32,
    /// The first offset of its open transaction.
    pub current_txn_first_offset: Option<i64>,
    /// Its last timestamp.
    pub last_timestamp: i64,
    /// Its last batch's first sequence (with `last_sequence`, `last_offset` and
    /// `offset_delta`: `None` when the snapshot has no batch for it).
    pub first_sequence: Option<i32>,
    /// Its last batch's last sequence.
    pub last_sequence: Option<i32>,
    /// Its last batch's last offset.
    pub last_offset: Option<i64>,
    /// Its last batch's offset delta.
    pub offset_delta: Option<i32>,
}

impl From<&crate::log::ProducerStateEntry> for ProducerEntry {
    fn from(e: &crate::log::ProducerStateEntry) -> Self {
        let batch = e.last_batch.as_ref();
        ProducerEntry {
            producer_id: e.producer_id,
            producer_epoch: e.producer_epoch,
            coordinator_epoch: e.coordinator_epoch,
            current_txn_first_offset: e.current_txn_first_offset,
            last_timestamp: e.last_timestamp,
            first_sequence: batch.map(|b| b.first_seq()),
            last_sequence: batch.map(|b| b.last_seq),
            last_offset: batch.map(|b| b.last_offset),
            offset_delta: batch.map(|b| b.offset_delta),
        }
    }
}

/// Something wrong.
#[derive(Debug)]
pub struct Problem<'a> {
    /// The file, as given.
    pub file: &'a str,
    /// What, with the numbers of the kinds that have some.
    pub kind: ProblemKind,
    /// The byte position in the file, where known.
    pub position: Option<u64>,
    /// What is wrong, in words (Kafka's where it has them).
    pub message: String,
    /// Whether Kafka's own tool fails here (the dump then exits with 1).
    pub fatal: bool,
}

/// The kinds of problem (`docs/json.md` lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// A batch whose CRC does not match.
    BadCrc,
    /// Bytes after the last batch that are not one.
    InvalidTrailingBytes,
    /// Entry framing that cannot be: the rest of the file is not read.
    CorruptBatch,
    /// The records or compression of a batch cannot be read.
    BadRecords,
    /// Compression ids 5-7.
    UnknownCompression,
    /// A control record that does not decode.
    BadControlRecord,
    /// A record a decoder cannot read.
    Undecodable,
    /// An offset-index entry naming another batch than the one at its position.
    IndexMismatch {
        /// The entry's offset.
        index_offset: i64,
        /// The last offset of the batch at its position.
        log_offset: i64,
    },
    /// An offset-index entry whose position holds no batch.
    IndexEntryNotInLog,
    /// A time-index timestamp that is not its batch's largest.
    TimeIndexMismatch {
        /// The entry's timestamp.
        index_timestamp: i64,
        /// The batch's largest record timestamp.
        log_timestamp: i64,
    },
    /// A time-index timestamp not above the previous entry's.
    TimeIndexOutOfOrder {
        /// The entry's timestamp.
        index_timestamp: i64,
        /// The previous entry's.
        previous_timestamp: i64,
    },
    /// A time-index offset that is no batch's last offset.
    TimeIndexOffsetNotFound {
        /// The entry's offset.
        index_offset: i64,
        /// The last offset of the batch found instead, -1 for none.
        log_offset: i64,
    },
    /// Records whose offsets do not follow each other.
    NonConsecutiveOffsets {
        /// The offset before the gap (-1 at the start of the file).
        previous_offset: i64,
        /// The offset after it.
        offset: i64,
        /// Whether the log looks compacted (gaps are then normal).
        compacted: bool,
    },
    /// An index Kafka's sanity check refuses.
    CorruptIndex,
    /// A producer snapshot Kafka refuses.
    CorruptSnapshot,
    /// A transaction index Kafka refuses.
    CorruptTxnIndex,
    /// A segment over 2 GiB.
    SegmentTooLarge,
    /// A file name without the offset Kafka parses from it.
    BadFileName,
    /// A file that cannot be read.
    Io,
}

impl ProblemKind {
    /// The name in JSON (`kind`).
    pub fn name(&self) -> &'static str {
        match self {
            ProblemKind::BadCrc => "bad_crc",
            ProblemKind::InvalidTrailingBytes => "invalid_trailing_bytes",
            ProblemKind::CorruptBatch => "corrupt_batch",
            ProblemKind::BadRecords => "bad_records",
            ProblemKind::UnknownCompression => "unknown_compression",
            ProblemKind::BadControlRecord => "bad_control_record",
            ProblemKind::Undecodable => "undecodable",
            ProblemKind::IndexMismatch { .. } => "index_mismatch",
            ProblemKind::IndexEntryNotInLog => "index_entry_not_in_log",
            ProblemKind::TimeIndexMismatch { .. } => "time_index_mismatch",
            ProblemKind::TimeIndexOutOfOrder { .. } => "time_index_out_of_order",
            ProblemKind::TimeIndexOffsetNotFound { .. } => "time_index_offset_not_found",
            ProblemKind::NonConsecutiveOffsets { .. } => "non_consecutive_offsets",
            ProblemKind::CorruptIndex => "corrupt_index",
            ProblemKind::CorruptSnapshot => "corrupt_snapshot",
            ProblemKind::CorruptTxnIndex => "corrupt_txn_index",
            ProblemKind::SegmentTooLarge => "segment_too_large",
            ProblemKind::BadFileName => "bad_file_name",
            ProblemKind::Io => "io",
        }
    }
}

impl Serialize for Problem<'_> {
    /// `file`, `kind`, `position` (where known), `message`, `fatal`, then the kind's numbers
    /// in the order `docs/json.md` lists them.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Problem", 8)?;
        st.serialize_field("file", self.file)?;
        st.serialize_field("kind", self.kind.name())?;
        match self.position {
            Some(p) => st.serialize_field("position", &p)?,
            None => st.skip_field("position")?,
        }
        st.serialize_field("message", &self.message)?;
        st.serialize_field("fatal", &self.fatal)?;
        match self.kind {
            ProblemKind::IndexMismatch {
                index_offset,
                log_offset,
            }
            | ProblemKind::TimeIndexOffsetNotFound {
                index_offset,
                log_offset,
            } => {
                st.serialize_field("index_offset", &index_offset)?;
                st.serialize_field("log_offset", &log_offset)?;
            }
            ProblemKind::TimeIndexMismatch {
                index_timestamp,
                log_timestamp,
            } => {
                st.serialize_field("index_timestamp", &index_timestamp)?;
                st.serialize_field("log_timestamp", &log_timestamp)?;
            }
            ProblemKind::TimeIndexOutOfOrder {
                index_timestamp,
                previous_timestamp,
            } => {
                st.serialize_field("index_timestamp", &index_timestamp)?;
                st.serialize_field("previous_timestamp", &previous_timestamp)?;
            }
            ProblemKind::NonConsecutiveOffsets {
                previous_offset,
                offset,
                compacted,
            } => {
                st.serialize_field("previous_offset", &previous_offset)?;
                st.serialize_field("offset", &offset)?;
                st.serialize_field("compacted", &compacted)?;
            }
            _ => {}
        }
        st.end()
    }
}

/// What the dump read and found.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    /// Files dumped.
    pub files: u64,
    /// Batches read.
    pub batches: u64,
    /// Records read.
    pub records: u64,
    /// Bytes of the batches read.
    pub bytes: u64,
    /// Problems reported (index and time-index errors and offset gaps are counted apart).
    pub problems: u64,
    /// Offset-index entries that name another batch.
    pub index_mismatches: u64,
    /// Time-index errors (mismatches, disorder, offsets not found).
    pub time_index_errors: u64,
    /// Gaps between record offsets.
    pub non_consecutive_offsets: u64,
    /// Nothing was found wrong.
    pub ok: bool,
}
