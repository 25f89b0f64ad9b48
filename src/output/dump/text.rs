//! Kafka-exact text of `kafka-dump-log.sh` (DumpLogSegments): a dump's events as the lines
//! Kafka's tool prints on stdout, its diagnostics and, after all files, its summaries on
//! stderr.
//!
//! The text follows Kafka's Java port of the tool (`org.apache.kafka.tools.DumpLogSegments`),
//! which differs from the 4.0 Scala tool only in small fixes (see `docs/json.md` and the golden
//! tests). Lines are built in one reused buffer, so a dump allocates nothing per line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::event::{
    Batch, Contents, Control, DumpEvent, Header, ProblemKind, ProducerEntry, RecordEvent,
};
use super::printer::Printer;
use crate::output::decimal;

/// Prints events as Kafka's lines: data on `out`, diagnostics and summaries on `err`.
pub struct TextPrinter<W: Write, E: Write> {
    out: W,
    err: E,
    /// `--skip-record-metadata`: record lines without their metadata.
    skip_record_metadata: bool,
    line: Line,
    /// The absolute path of the file being dumped (the summaries' name for it).
    absolute: String,
    summaries: Summaries,
}

/// What Kafka prints on stderr after all files, by absolute path.
#[derive(Default)]
struct Summaries {
    /// index → index offset → log offset (printed in descending index offset).
    index_mismatches: BTreeMap<String, BTreeMap<i64, i64>>,
    time_mismatches: BTreeMap<String, Vec<(i64, i64)>>,
    time_out_of_order: BTreeMap<String, Vec<(i64, i64)>>,
    time_not_found: BTreeMap<String, Vec<(i64, i64)>>,
    /// log → previous offset → next offset.
    non_consecutive: BTreeMap<String, BTreeMap<i64, i64>>,
}

impl<W: Write, E: Write> TextPrinter<W, E> {
    /// A printer to `out` and `err`.
    pub fn new(out: W, err: E, skip_record_metadata: bool) -> Self {
        TextPrinter {
            out,
            err,
            skip_record_metadata,
            line: Line(Vec::with_capacity(1024)),
            absolute: String::new(),
            summaries: Summaries::default(),
        }
    }

    fn println(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")
    }

    /// Writes `line` (built in `self.line` by `build`) and a newline to stdout.
    #[inline]
    fn print_line(&mut self, build: impl FnOnce(&mut Line)) -> io::Result<()> {
        let mut line = std::mem::take(&mut self.line);
        line.0.clear();
        build(&mut line);
        line.push(b'\n');
        let written = self.out.write_all(&line.0);
        self.line = line;
        written
    }

    /// A diagnostic line on stderr, after what stdout has so far.
    fn eprintln(&mut self, text: std::fmt::Arguments<'_>) -> io::Result<()> {
        self.out.flush()?;
        writeln!(self.err, "{text}")
    }

    fn summarise(&mut self, kind: ProblemKind) {
        let file = self.absolute.clone();
        let s = &mut self.summaries;
        match kind {
            ProblemKind::IndexMismatch {
                index_offset,
                log_offset,
            } => {
                s.index_mismatches
                    .entry(file)
                    .or_default()
                    .insert(index_offset, log_offset);
            }
            ProblemKind::TimeIndexMismatch {
                index_timestamp,
                log_timestamp,
            } => s
                .time_mismatches
                .entry(file)
                .or_default()
                .push((index_timestamp, log_timestamp)),
            ProblemKind::TimeIndexOutOfOrder {
                index_timestamp,
                previous_timestamp,
            } => s
                .time_out_of_order
                .entry(file)
                .or_default()
                .push((index_timestamp, previous_timestamp)),
            ProblemKind::TimeIndexOffsetNotFound {
                index_offset,
                log_offset,
            } => s
                .time_not_found
                .entry(file)
                .or_default()
                .push((index_offset, log_offset)),
            ProblemKind::NonConsecutiveOffsets {
                previous_offset,
                offset,
                ..
            } => {
                s.non_consecutive
                    .entry(file)
                    .or_default()
                    .insert(previous_offset, offset);
            }
            _ => {}
        }
    }

    /// Kafka's summaries (§18.2), on stderr.
    fn print_summaries(&mut self) -> io::Result<()> {
        self.out.flush()?;
        let (err, s) = (&mut self.err, &self.summaries);
        for (file, m) in &s.index_mismatches {
            writeln!(err, "Mismatches in :{file}")?;
            for (index_offset, log_offset) in m.iter().rev() {
                writeln!(
                    err,
                    "  Index offset: {index_offset}, log offset: {log_offset}"
                )?;
            }
        }
        for (file, m) in &s.time_mismatches {
            writeln!(err, "Found timestamp mismatch in :{file}")?;
            for (a, b) in m {
                writeln!(err, "  Index timestamp: {a}, log timestamp: {b}")?;
            }
        }
        for (file, m) in &s.time_out_of_order {
            writeln!(err, "Found out of order timestamp in :{file}")?;
            for (a, b) in m {
                writeln!(
                    err,
                    "  Index timestamp: {a}, Previously indexed timestamp: {b}"
                )?;
            }
        }
        for m in s.time_not_found.values() {
            writeln!(
                err,
                "The following indexed offsets are not found in the log."
            )?;
            for (a, b) in m {
                writeln!(err, "Indexed offset: {a}, found log offset: {b}")?;
            }
        }
        for (file, m) in &s.non_consecutive {
            writeln!(err, "Non-consecutive offsets in {file}")?;
            for (a, b) in m {
                writeln!(err, "  {a} is followed by {b}")?;
            }
        }
        Ok(())
    }
}

impl<W: Write, E: Write> Printer for TextPrinter<W, E> {
    #[inline]
    fn print(&mut self, event: &DumpEvent<'_>) -> io::Result<()> {
        // Records first: there are millions of them.
        if let DumpEvent::Record(r) = event {
            let skip = self.skip_record_metadata;
            return self.print_line(|line| record_line(line, r, skip));
        }
        self.print_other(event)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.err.flush()
    }
}

impl<W: Write, E: Write> TextPrinter<W, E> {
    fn print_other(&mut self, event: &DumpEvent<'_>) -> io::Result<()> {
        match event {
            DumpEvent::File { file, absolute, .. } => {
                self.absolute.clear();
                self.absolute.push_str(absolute);
                self.out.write_all(b"Dumping ")?;
                self.println(file)
            }
            DumpEvent::Header(Header { text, .. }) | DumpEvent::IndexStatus { text, .. } => {
                self.println(text)
            }
            DumpEvent::Batch(b) => self.print_line(|line| batch_line(line, b)),
            DumpEvent::Record(r) => {
                let skip = self.skip_record_metadata;
                self.print_line(|line| record_line(line, r, skip))
            }
            DumpEvent::IndexEntry {
                offset, position, ..
            } => self.print_line(|line| {
                line.push_str("offset: ");
                line.push_i64(*offset);
                line.push_str(" position: ");
                line.push_i64(i64::from(*position));
            }),
            DumpEvent::TimeIndexEntry { timestamp, offset } => self.print_line(|line| {
                line.push_str("timestamp: ");
                line.push_i64(*timestamp);
                line.push_str(" offset: ");
                line.push_i64(*offset);
            }),
            DumpEvent::ProducerSnapshotEntry(e) => self.print_line(|line| producer_line(line, e)),
            DumpEvent::AbortedTxn {
                version,
                producer_id,
                first_offset,
                last_offset,
                last_stable_offset,
            } => self.print_line(|line| {
                let _ = write!(line, "version: {version} producerId: {producer_id} firstOffset: {first_offset} lastOffset: {last_offset} lastStableOffset: {last_stable_offset}");
            }),
            DumpEvent::Ignored { file } => self.eprintln(format_args!("Ignoring unknown file {file}")),
            DumpEvent::Problem(p) => match p.kind {
                ProblemKind::IndexMismatch { .. }
                | ProblemKind::TimeIndexMismatch { .. }
                | ProblemKind::TimeIndexOutOfOrder { .. }
                | ProblemKind::TimeIndexOffsetNotFound { .. }
                | ProblemKind::NonConsecutiveOffsets { .. } => {
                    self.summarise(p.kind);
                    Ok(())
                }
                // Kafka's own line, on stdout.
                ProblemKind::InvalidTrailingBytes => self.println(&p.message),
                // Kafka prints the exception's words and goes on; kafkit adds where.
                ProblemKind::CorruptSnapshot if !p.fatal => {
                    self.eprintln(format_args!("{} (in {})", p.message, p.file))
                }
                _ => match p.position {
                    Some(at) => self.eprintln(format_args!(
                        "Problem in {} at byte {at}: {}",
                        p.file, p.message
                    )),
                    None => self.eprintln(format_args!("Problem in {}: {}", p.file, p.message)),
                },
            },
            DumpEvent::Summary(_) => self.print_summaries(),
        }
    }
}

/// Kafka's `OptionalLong.toString`.
pub fn optional_long(v: Option<i64>) -> String {
    match v {
        Some(v) => format!("OptionalLong[{v}]"),
        None => "OptionalLong.empty".to_string(),
    }
}

/// Appends the batch line (§16.1 / §16.2, no newline).
fn batch_line(out: &mut Line, b: &Batch) {
    if b.magic >= 2 {
        let _ = write!(
            out,
            "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {}",
            b.base_offset,
            b.last_offset,
            b.count.unwrap_or_default(),
            b.base_sequence,
            b.last_sequence,
            b.producer_id,
            b.producer_epoch,
            b.partition_leader_epoch,
            b.is_transactional,
            b.is_control,
            optional_long(b.delete_horizon_ms),
        );
    } else {
        let _ = write!(out, "offset: {}", b.last_offset);
    }
    let _ = write!(
        out,
        " position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}",
        b.position,
        b.timestamp_type,
        b.max_timestamp,
        b.size,
        b.magic,
        b.compression,
        b.crc,
        b.is_valid,
    );
}

/// The text DumpLogSegments prints for a control record after its metadata
/// (` endTxnMarker: COMMIT coordinatorEpoch: 0`, ` SnapshotHeader {...}`, ...).
fn control_text(out: &mut Line, control: &Control) {
    match control {
        Control::EndTxn {
            marker,
            coordinator_epoch,
        } => {
            let _ = write!(
                out,
                " endTxnMarker: {} coordinatorEpoch: {coordinator_epoch}",
                marker.name()
            );
        }
        Control::Kraft { label, data, .. } => {
            let _ = write!(out, " {label} {}", data.to_kafka_string());
        }
        Control::Other { kind } => {
            let _ = write!(out, " controlType: {}({})", kind.name(), kind.id());
        }
    }
}

/// Appends a record line (§16.3, no newline): its metadata (unless skipped), then its contents.
#[inline]
fn record_line(out: &mut Line, r: &RecordEvent<'_>, skip_metadata: bool) {
    if !skip_metadata {
        record_metadata(out, r);
    }
    match r.contents {
        Contents::Hidden => {}
        Contents::Strings => record_contents_lossy(out, r.key.0, r.value.0, skip_metadata),
        Contents::Texts { key, payload } | Contents::Message { key, payload, .. } => {
            record_contents(out, key, payload, skip_metadata)
        }
    }
}

/// Appends a record's metadata part: `| offset: … headerKeys: [...]` (magic 2) or
/// `| offset: … isValid: … crc: …` (legacy, without the 4.0 tool's stray `}`), then its
/// control record.
fn record_metadata(out: &mut Line, r: &RecordEvent<'_>) {
    out.push_str("| offset: ");
    out.push_i64(r.offset);
    out.push(b' ');
    out.push_str(r.timestamp_type);
    out.push_str(": ");
    out.push_i64(r.timestamp);
    out.push_str(" keySize: ");
    out.push_i64(i64::from(r.key_size));
    out.push_str(" valueSize: ");
    out.push_i64(i64::from(r.value_size));
    match r.is_valid {
        None => {
            out.push_str(" sequence: ");
            out.push_i64(i64::from(r.sequence));
            out.push_str(" headerKeys: [");
            for (i, h) in r.headers.0.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.push_str(&h.key);
            }
            out.push(b']');
        }
        Some(is_valid) => {
            out.push_str(if is_valid {
                " isValid: true crc: "
            } else {
                " isValid: false crc: "
            });
            out.push_i64(i64::from(r.crc.unwrap_or_default()));
        }
    }
    if let Some(control) = r.control {
        control_text(out, control);
    }
}

/// Appends the record contents: `key: K` and `payload: V`, each only when present, the first
/// one after `| ` when the metadata was skipped and after a space otherwise (the Java port's
/// rule; Kafka 4.0 put a bare space before a lone payload).
fn record_contents(out: &mut Line, key: Option<&str>, payload: Option<&str>, skip_metadata: bool) {
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

/// [`record_contents`] for raw bytes under Kafka's `StringDecoder` (`new String(bytes,
/// UTF_8)`, malformed sequences replaced as Java replaces them), without intermediate strings.
fn record_contents_lossy(
    out: &mut Line,
    key: Option<&[u8]>,
    payload: Option<&[u8]>,
    skip_metadata: bool,
) {
    let mut prefix = if skip_metadata { "| " } else { " " };
    if let Some(k) = key {
        out.push_str(prefix);
        out.push_str("key: ");
        out.push_str(&crate::java::utf8_string(k));
        prefix = " ";
    }
    if let Some(v) = payload {
        out.push_str(prefix);
        out.push_str("payload: ");
        out.push_str(&crate::java::utf8_string(v));
    }
}

/// Appends a producer's line (§17.3).
fn producer_line(out: &mut Line, e: &ProducerEntry) {
    let _ = write!(
        out,
        "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} lastTimestamp: {}",
        e.producer_id,
        e.producer_epoch,
        e.coordinator_epoch,
        optional_long(e.current_txn_first_offset),
        e.last_timestamp
    );
    if let (Some(first), Some(last), Some(offset), Some(delta)) = (
        e.first_sequence,
        e.last_sequence,
        e.last_offset,
        e.offset_delta,
    ) {
        let _ = write!(
            out,
            " firstSequence: {first} lastSequence: {last} lastOffset: {offset} offsetDelta: {delta} timestamp: {}",
            e.last_timestamp
        );
    }
}

/// A line being built, as bytes (always UTF-8: only `str`s and digits go in), so that numbers
/// are written in place.
#[derive(Debug, Default)]
struct Line(Vec<u8>);

impl Line {
    fn push_str(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    /// An ASCII byte.
    fn push(&mut self, b: u8) {
        self.0.push(b);
    }

    /// The decimal form of `v` (what `write!` does, without the formatting machinery: this
    /// runs several times per record).
    fn push_i64(&mut self, v: i64) {
        decimal::push(&mut self.0, v);
    }

    #[cfg(test)]
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::ControlRecordType;

    #[test]
    fn contents_prefixes_follow_the_java_port() {
        let mut s = Line::default();
        record_contents(&mut s, None, Some("v"), true);
        assert_eq!(s.as_str(), "| payload: v");
        s.0.clear();
        record_contents(&mut s, Some("k"), Some("v"), false);
        assert_eq!(s.as_str(), " key: k payload: v");
        s.0.clear();
        record_contents(&mut s, Some("k"), None, true);
        assert_eq!(s.as_str(), "| key: k");
        s.0.clear();
        record_contents_lossy(&mut s, None, Some(&[b'a', 0xff, b'b']), false);
        assert_eq!(s.as_str(), " payload: a\u{fffd}b");
    }

    #[test]
    fn control_record_texts() {
        let mut s = Line::default();
        control_text(
            &mut s,
            &Control::EndTxn {
                marker: ControlRecordType::Abort,
                coordinator_epoch: 5,
            },
        );
        assert_eq!(s.as_str(), " endTxnMarker: ABORT coordinatorEpoch: 5");
        s.0.clear();
        control_text(
            &mut s,
            &Control::Other {
                kind: ControlRecordType::from_id(7),
            },
        );
        assert_eq!(s.as_str(), " controlType: UNKNOWN(7)");
    }

    #[test]
    fn optional_longs() {
        assert_eq!(optional_long(None), "OptionalLong.empty");
        assert_eq!(optional_long(Some(5)), "OptionalLong[5]");
    }
}
