//! A test oracle: Kafka 4.0's DumpLogSegments text for batches and records (spec §16), built
//! only from what `kafkit::record` decodes. Comparing it with the spec vectors' and the
//! fixtures' expected dumps checks every decoded field at once.

use kafkit::record::{
    batches, ControlRecordType, EndTransactionMarker, RawBatch, Record, TimestampType,
};

/// What to print besides the batch lines.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Batch lines only (no options).
    Batches,
    /// `--deep-iteration`.
    Deep,
    /// `--deep-iteration --print-data-log`.
    DeepPrint,
}

fn ts_name(t: TimestampType) -> &'static str {
    t.name()
}

/// The batch line of §16.1 / §16.2.
pub fn batch_line(b: &RawBatch<'_>) -> String {
    let codec = b.compression().expect("codec").name();
    if let Some(h) = b.header() {
        let horizon = match h.delete_horizon_ms() {
            Some(ms) => format!("OptionalLong[{ms}]"),
            None => "OptionalLong.empty".to_string(),
        };
        format!(
            "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}",
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
            horizon,
            b.position(),
            ts_name(h.timestamp_type()),
            h.max_timestamp,
            b.size_in_bytes(),
            h.magic,
            codec,
            h.crc,
            b.is_valid()
        )
    } else {
        format!(
            "offset: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}",
            b.last_offset(),
            b.position(),
            ts_name(b.timestamp_type()),
            b.max_timestamp(),
            b.size_in_bytes(),
            b.magic(),
            codec,
            b.checksum(),
            b.is_valid()
        )
    }
}

/// The record line of §16.3 (Scala 4.0 form, with the `}` quirk on legacy lines).
pub fn record_line(b: &RawBatch<'_>, r: &Record, print_data: bool) -> String {
    let mut s = format!(
        "| offset: {} {}: {} keySize: {} valueSize: {}",
        r.offset,
        ts_name(b.timestamp_type()),
        r.timestamp,
        r.key_size(),
        r.value_size()
    );
    if b.magic() >= 2 {
        let keys: Vec<&str> = r.headers.iter().map(|h| h.key.as_str()).collect();
        s += &format!(" sequence: {} headerKeys: [{}]", r.sequence, keys.join(","));
    } else {
        s += &format!(
            " isValid: {} crc: {}}}",
            r.is_valid,
            r.crc.expect("legacy crc")
        );
    }
    if b.is_control() {
        match ControlRecordType::of_record(r).expect("control key") {
            t @ (ControlRecordType::Commit | ControlRecordType::Abort) => {
                let m = EndTransactionMarker::from_record(r).expect("marker");
                assert_eq!(m.control_type, t);
                s += &format!(
                    " endTxnMarker: {} coordinatorEpoch: {}",
                    t.name(),
                    m.coordinator_epoch
                );
            }
            ControlRecordType::SnapshotHeader => s += " SnapshotHeader <json>",
            ControlRecordType::SnapshotFooter => s += " SnapshotFooter <json>",
            ControlRecordType::KraftVersion => s += " KRaftVersion <json>",
            ControlRecordType::KraftVoters => s += " KRaftVoters <json>",
            other => s += &format!(" controlType: {}({})", other.name(), other.id()),
        }
    } else if print_data {
        if let Some(k) = &r.key {
            s += &format!(" key: {}", String::from_utf8_lossy(k));
        }
        if let Some(v) = &r.value {
            s += &format!(" payload: {}", String::from_utf8_lossy(v));
        }
    }
    s
}

/// The dump body (everything after `Dumping …` and `Log starting offset: …`) of `file_name`.
pub fn dump(bytes: &[u8], file_name: &str, mode: Mode) -> String {
    let mut out = String::new();
    let mut it = batches(bytes);
    for b in it.by_ref() {
        let b = b.expect("batch");
        out += &batch_line(&b);
        out.push('\n');
        if mode != Mode::Batches {
            for r in b.records().expect("records") {
                out += &record_line(&b, &r, mode == Mode::DeepPrint);
                out.push('\n');
            }
        }
    }
    let invalid = bytes.len() - it.position();
    if invalid > 0 {
        out += &format!("Found {invalid} invalid bytes at the end of {file_name}\n");
    }
    out
}

/// `lines` without their first two (the `Dumping` and offset lines), newline-terminated.
pub fn body(lines: &[String]) -> String {
    assert!(lines.len() >= 2, "an expected dump has a header: {lines:?}");
    lines[2..].iter().map(|l| format!("{l}\n")).collect()
}
