//! Kafka-exact lines of `kafka-dump-log.sh` (DumpLogSegments) and their JSON Lines counterparts.
//!
//! The text follows Kafka's Java port of the tool (`org.apache.kafka.tools.DumpLogSegments`),
//! which differs from the 4.0 Scala tool only in small fixes (see `docs/json.md` and the golden
//! tests). Every function appends to a caller-owned buffer so a dump allocates nothing per line.

mod files;

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::decode;
use crate::record::{ControlRecordType, EndTransactionMarker, RawBatch, Record};

pub use files::{dump_files, BytesDecoder, DumpOptions, Outcome};

/// The order of a segment's files when a directory is dumped: the log, then its indexes, then
/// the producer snapshot and the transaction index.
const SEGMENT_FILE_ORDER: [&str; 6] = [
    ".log",
    ".index",
    ".timeindex",
    ".snapshot",
    ".txnindex",
    ".checkpoint",
];

/// `files` as given to `--files`, a directory (a partition's, as `topic-0`) standing for the
/// segment files in it: sorted by base offset, each segment's `.log` first, then `.index`,
/// `.timeindex`, `.snapshot`, `.txnindex` (and KRaft's `.checkpoint` snapshots). Other files of
/// the directory (`partition.metadata`, leftovers) are left out; a directory without segment
/// files, or one that cannot be read, stays as given (the dump then reports it as Kafka's tool
/// reports a file it does not know).
pub fn expand_directories(files: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for &file in files {
        let found = std::fs::read_dir(file)
            .map(|entries| segment_files(file, entries))
            .unwrap_or_default();
        if found.is_empty() {
            out.push(file.to_string());
        } else {
            out.extend(found);
        }
    }
    out
}

/// The segment files of directory `dir`, in dump order.
fn segment_files(dir: &str, entries: std::fs::ReadDir) -> Vec<String> {
    let mut found: Vec<(i64, usize, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let base = crate::log::segment::parse_base_offset(&name)?;
            let kind = SEGMENT_FILE_ORDER
                .iter()
                .position(|suffix| name.ends_with(suffix))?;
            Some((base, kind, name))
        })
        .collect();
    found.sort();
    let dir = dir.trim_end_matches('/');
    found
        .into_iter()
        .map(|(_, _, name)| format!("{dir}/{name}"))
        .collect()
}

/// Kafka's `OptionalLong.toString`.
pub fn optional_long(v: Option<i64>) -> String {
    match v {
        Some(v) => format!("OptionalLong[{v}]"),
        None => "OptionalLong.empty".to_string(),
    }
}

/// The compression name Kafka prints, or `unknown(<id>)` for ids 5–7 (where Kafka stops with
/// `Unknown compression type id`).
pub fn codec_name(b: &RawBatch<'_>) -> String {
    match b.compression() {
        Ok(c) => c.name().to_string(),
        Err(_) => format!("unknown({})", b.attributes() & 0x07),
    }
}

/// Appends the batch line (§16.1 / §16.2, no newline) of the entry at file `position`.
/// `is_valid` is passed in so the caller computes the CRC once.
pub fn batch_line(out: &mut String, position: u64, b: &RawBatch<'_>, is_valid: bool) {
    if let Some(h) = b.header() {
        let _ = write!(
            out,
            "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {}",
            h.base_offset,
            h.last_offset(),
            h.records_count,
            h.base_sequence,
            h.last_sequence(),
            h.producer_id,
            h.producer_epoch,
            h.partition_leader_epoch,
            h.is_transactional(),
            h.is_control(),
            optional_long(h.delete_horizon_ms()),
        );
    } else {
        let _ = write!(out, "offset: {}", b.last_offset());
    }
    let _ = write!(
        out,
        " position: {position} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {is_valid}",
        b.timestamp_type().name(),
        b.max_timestamp(),
        b.size_in_bytes(),
        b.magic(),
        codec_name(b),
        b.checksum(),
    );
}

/// The text DumpLogSegments prints for a control record after its metadata
/// (` endTxnMarker: COMMIT coordinatorEpoch: 0`, ` SnapshotHeader {...}`, ...), and its JSON.
pub fn control_record(r: &Record) -> Result<(String, Value), String> {
    let control_type = ControlRecordType::of_record(r).map_err(|e| e.to_string())?;
    match control_type {
        ControlRecordType::Commit | ControlRecordType::Abort => {
            let m = EndTransactionMarker::from_record(r).map_err(|e| e.to_string())?;
            Ok((
                format!(
                    " endTxnMarker: {} coordinatorEpoch: {}",
                    control_type.name(),
                    m.coordinator_epoch
                ),
                json!({"type": control_type.name(), "coordinatorEpoch": m.coordinator_epoch}),
            ))
        }
        other => match decode::kraft_control(other, r.value.as_deref()) {
            Some(Ok((label, v))) => Ok((
                format!(" {label} {}", v.to_kafka_string()),
                json!({"type": other.name(), "data": v.to_json()}),
            )),
            Some(Err(e)) => Err(format!(
                "cannot decode {} control record: {e}",
                other.name()
            )),
            None => Ok((
                format!(" controlType: {}({})", other.name(), other.id()),
                json!({"type": other.name(), "id": other.id()}),
            )),
        },
    }
}

/// Appends the decimal form of `v` (what `write!` does, without the formatting machinery:
/// this runs several times per record).
pub fn push_i64(out: &mut String, v: i64) {
    const DIGITS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut buf = [0u8; 21];
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    while n >= 100 {
        let d = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        if let (Some(dst), Some(src)) = (buf.get_mut(i..i + 2), DIGITS.get(d..d + 2)) {
            dst.copy_from_slice(src);
        }
    }
    if n >= 10 {
        let d = n as usize * 2;
        i -= 2;
        if let (Some(dst), Some(src)) = (buf.get_mut(i..i + 2), DIGITS.get(d..d + 2)) {
            dst.copy_from_slice(src);
        }
    } else {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + n as u8;
        }
    }
    if v < 0 {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'-';
        }
    }
    if let Some(Ok(text)) = buf.get(i..).map(std::str::from_utf8) {
        out.push_str(text);
    }
}

/// Appends `bytes` as Kafka's `StringDecoder` shows them: `new String(bytes, UTF_8)`, malformed
/// sequences replaced by U+FFFD as Java replaces them (`java::utf8_string`).
pub fn push_lossy(out: &mut String, bytes: &[u8]) {
    out.push_str(&crate::java::utf8_string(bytes));
}

/// Appends a record's metadata part: `| offset: … headerKeys: [...]` (magic 2) or
/// `| offset: … isValid: … crc: …` (legacy, without the 4.0 tool's stray `}`), then `control`.
pub fn record_metadata(out: &mut String, b: &RawBatch<'_>, r: &Record, control: Option<&str>) {
    out.push_str("| offset: ");
    push_i64(out, r.offset);
    out.push(' ');
    out.push_str(b.timestamp_type().name());
    out.push_str(": ");
    push_i64(out, r.timestamp);
    out.push_str(" keySize: ");
    push_i64(out, i64::from(r.key_size()));
    out.push_str(" valueSize: ");
    push_i64(out, i64::from(r.value_size()));
    if b.magic() >= 2 {
        out.push_str(" sequence: ");
        push_i64(out, i64::from(r.sequence));
        out.push_str(" headerKeys: [");
        for (i, h) in r.headers.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&h.key);
        }
        out.push(']');
    } else {
        out.push_str(if r.is_valid {
            " isValid: true crc: "
        } else {
            " isValid: false crc: "
        });
        push_i64(out, i64::from(r.crc.unwrap_or_default()));
    }
    if let Some(control) = control {
        out.push_str(control);
    }
}

/// Appends the record contents: `key: K` and `payload: V`, each only when present, the first
/// one after `| ` when the metadata was skipped and after a space otherwise (the Java port's
/// rule; Kafka 4.0 put a bare space before a lone payload).
pub fn record_contents(
    out: &mut String,
    key: Option<&str>,
    payload: Option<&str>,
    skip_metadata: bool,
) {
    let mut prefix = if skip_metadata { "| " } else { " " };
    if let Some(k) = key {
        out.push_str(prefix);
        out.push_str("key: ");
        out.push_str(k);
        prefix = " ";
    }
    if let Some(v) = payload {
        out.push_str(prefix);
        out.push_str("payload: ");
        out.push_str(v);
    }
}

/// [`record_contents`] for raw bytes under Kafka's `StringDecoder`, without intermediate
/// strings.
pub fn record_contents_lossy(
    out: &mut String,
    key: Option<&[u8]>,
    payload: Option<&[u8]>,
    skip_metadata: bool,
) {
    let mut prefix = if skip_metadata { "| " } else { " " };
    if let Some(k) = key {
        out.push_str(prefix);
        out.push_str("key: ");
        push_lossy(out, k);
        prefix = " ";
    }
    if let Some(v) = payload {
        out.push_str(prefix);
        out.push_str("payload: ");
        push_lossy(out, v);
    }
}

/// A `{"type":"batch"}` object (see `docs/json.md`).
pub fn batch_json(file: &str, position: u64, b: &RawBatch<'_>, is_valid: bool) -> Value {
    let h = b.header();
    json!({
        "type": "batch",
        "file": file,
        "baseOffset": h.map_or(b.base_offset(), |h| h.base_offset),
        "lastOffset": b.last_offset(),
        "count": b.records_count(),
        "position": position,
        "size": b.size_in_bytes(),
        "magic": b.magic(),
        "compression": codec_name(b),
        "crc": b.checksum(),
        "isValid": is_valid,
        "producerId": h.map_or(-1, |h| h.producer_id),
        "producerEpoch": h.map_or(-1, |h| h.producer_epoch),
        "baseSequence": h.map_or(-1, |h| h.base_sequence),
        "lastSequence": h.map_or(-1, |h| h.last_sequence()),
        "partitionLeaderEpoch": b.partition_leader_epoch(),
        "isTransactional": b.is_transactional(),
        "isControl": b.is_control(),
        "deleteHorizonMs": h.and_then(|h| h.delete_horizon_ms()),
        "timestampType": b.timestamp_type().name(),
        "maxTimestamp": b.max_timestamp(),
    })
}

/// Bytes by the shared JSON rule (see [`bytes_value`](super::json::bytes_value)), serialized without building a `Value`.
struct BytesJson<'a>(Option<&'a [u8]>);

impl serde::Serialize for BytesJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine as _;
        use serde::ser::SerializeMap as _;
        match self.0 {
            None => s.serialize_none(),
            Some(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => s.serialize_str(text),
                Err(_) => {
                    let mut m = s.serialize_map(Some(1))?;
                    m.serialize_entry(
                        "base64",
                        &base64::engine::general_purpose::STANDARD.encode(bytes),
                    )?;
                    m.end()
                }
            },
        }
    }
}

#[derive(serde::Serialize)]
struct HeaderJson<'a> {
    key: &'a str,
    value: BytesJson<'a>,
}

/// A `{"type":"record"}` line; fields after `type` in name order, as every JSON line.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    crc: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded: Option<&'a Value>,
    file: &'a str,
    headers: Vec<HeaderJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_valid: Option<bool>,
    key: BytesJson<'a>,
    key_size: i32,
    offset: i64,
    sequence: i32,
    timestamp: i64,
    timestamp_type: &'static str,
    value: BytesJson<'a>,
    value_size: i32,
}

/// Writes a `{"type":"record"}` line: offset, timestamp, key, value, headers and the rest of
/// what the text line shows, plus the decoded control record and internal-topic record when
/// given. Keys and values follow the shared byte rules ([`bytes_value`](super::json::bytes_value)).
pub fn write_record_json(
    out: &mut impl std::io::Write,
    file: &str,
    b: &RawBatch<'_>,
    r: &Record,
    control: Option<&Value>,
    decoded: Option<&Value>,
) -> std::io::Result<()> {
    let legacy = b.magic() < 2;
    let line = RecordJson {
        kind: "record",
        control,
        crc: if legacy { r.crc } else { None },
        decoded,
        file,
        headers: r
            .headers
            .iter()
            .map(|h| HeaderJson {
                key: &h.key,
                value: BytesJson(h.value.as_deref()),
            })
            .collect(),
        is_valid: legacy.then_some(r.is_valid),
        key: BytesJson(r.key.as_deref()),
        key_size: r.key_size(),
        offset: r.offset,
        sequence: r.sequence,
        timestamp: r.timestamp,
        timestamp_type: b.timestamp_type().name(),
        value: BytesJson(r.value.as_deref()),
        value_size: r.value_size(),
    };
    serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// Kafka's `StringDecoder`: `new String(bytes, UTF_8)`, malformed sequences replaced by U+FFFD
/// as Java replaces them.
pub fn string_decode(bytes: &[u8]) -> String {
    crate::java::utf8_string(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_prefixes_follow_the_java_port() {
        let mut s = String::new();
        record_contents(&mut s, None, Some("v"), true);
        assert_eq!(s, "| payload: v");
        s.clear();
        record_contents(&mut s, Some("k"), Some("v"), false);
        assert_eq!(s, " key: k payload: v");
        s.clear();
        record_contents(&mut s, Some("k"), None, true);
        assert_eq!(s, "| key: k");
    }

    #[test]
    fn integers_and_lossy_text() {
        for v in [0i64, 7, -1, 10, 1_700_000_000_000, i64::MIN, i64::MAX] {
            let mut s = String::new();
            push_i64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        let mut s = String::new();
        push_lossy(&mut s, &[b'a', 0xff, b'b']);
        assert_eq!(s, "a\u{fffd}b");
    }

    fn control(key: [u8; 4], value: &[u8]) -> Result<(String, Value), String> {
        let r = Record {
            offset: 0,
            timestamp: 0,
            timestamp_type: crate::record::TimestampType::CreateTime,
            key: Some(key.to_vec()),
            value: Some(value.to_vec()),
            headers: vec![],
            sequence: -1,
            attributes: 0,
            magic: 2,
            crc: None,
            is_valid: true,
            size_in_bytes: 0,
        };
        control_record(&r)
    }

    #[test]
    fn control_record_texts() {
        assert_eq!(
            control([0, 0, 0, 0], &[0, 0, 0, 0, 0, 5]).unwrap().0,
            " endTxnMarker: ABORT coordinatorEpoch: 5"
        );
        assert_eq!(
            control([0, 0, 0, 7], b"").unwrap().0,
            " controlType: UNKNOWN(7)"
        );
        assert!(control([0, 0, 0, 1], &[0]).is_err());
        assert!(control([0, 0, 0, 3], &[9]).is_err());
    }

    #[test]
    fn optional_longs() {
        assert_eq!(optional_long(None), "OptionalLong.empty");
        assert_eq!(optional_long(Some(5)), "OptionalLong[5]");
    }
}
