//! `.log` segments and KRaft `.checkpoint` snapshots: batches, records (deep iteration), the
//! decoders of `--print-data-log`, control records, trailing bytes and offset gaps (§16).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io;
use std::path::Path;

use super::event::{Batch, Contents, Control, DumpEvent, ProblemKind, RecordEvent};
use super::printer::Printer;
use super::{BytesDecoder, Dumper, Parser};
use crate::decode::{self, schema::DecodeError};
use crate::log::{LogError, SegmentReader, Stop};
use crate::record::{ControlRecordType, EndTransactionMarker, RawBatch, Record, RecordError};

/// Why a control record could not be read.
#[derive(Debug, thiserror::Error)]
enum BadControl {
    /// Its key or marker value does not decode.
    #[error("{0}")]
    Record(#[from] RecordError),
    /// Its KRaft message does not decode.
    #[error("cannot decode {} control record: {source}", kind.name())]
    Kraft {
        kind: ControlRecordType,
        source: DecodeError,
    },
}

/// What a control record says.
fn control(r: &Record) -> Result<Control, BadControl> {
    let kind = ControlRecordType::of_record(r)?;
    match kind {
        ControlRecordType::Commit | ControlRecordType::Abort => {
            let m = EndTransactionMarker::from_record(r)?;
            Ok(Control::EndTxn {
                marker: kind,
                coordinator_epoch: m.coordinator_epoch,
            })
        }
        other => match decode::kraft_control(other, r.value.as_deref()) {
            Some(Ok((label, data))) => Ok(Control::Kraft {
                kind: other,
                label,
                data,
            }),
            Some(Err(source)) => Err(BadControl::Kraft {
                kind: other,
                source,
            }),
            None => Ok(Control::Other { kind: other }),
        },
    }
}

/// Why a `--key-decoder`/`--value-decoder` cannot read bytes (Kafka's
/// `BufferUnderflowException`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum Undecodable {
    #[error("{0} byte(s) cannot hold an integer (4 bytes)")]
    Integer(usize),
    #[error("{0} byte(s) cannot hold a long (8 bytes)")]
    Long(usize),
}

fn decode_bytes(decoder: BytesDecoder, bytes: &[u8]) -> Result<String, Undecodable> {
    match decoder {
        BytesDecoder::String => Ok(crate::java::utf8_string(bytes).into_owned()),
        BytesDecoder::Hex => Ok(bytes.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })),
        BytesDecoder::Integer => bytes
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(|b| i32::from_be_bytes(b).to_string())
            .ok_or(Undecodable::Integer(bytes.len())),
        BytesDecoder::Long => bytes
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .map(|b| i64::from_be_bytes(b).to_string())
            .ok_or(Undecodable::Long(bytes.len())),
    }
}

/// Kafka's default parser: `StringDecoder` for keys and values.
const STRINGS: Parser = Parser::Bytes(BytesDecoder::String, BytesDecoder::String);

/// What a parser made of a record, owned until its event is printed.
enum Parsed {
    /// Kafka's `StringDecoder` on both: the printers read the bytes themselves.
    Strings,
    /// A bytes decoder's texts.
    Texts(Option<String>, Option<String>),
    /// An internal-topic decoder's texts and JSON.
    Message(decode::Decoded),
}

impl Parsed {
    fn contents(&self) -> Contents<'_> {
        match self {
            Parsed::Strings => Contents::Strings,
            Parsed::Texts(key, payload) => Contents::Texts {
                key: key.as_deref(),
                payload: payload.as_deref(),
            },
            Parsed::Message(d) => Contents::Message {
                key: d.key.as_deref(),
                payload: d.payload.as_deref(),
                json: &d.json,
            },
        }
    }
}

/// Topics whose logs are compacted by default, where offset gaps are normal.
fn looks_compacted(abs: &str) -> bool {
    let dir = abs.rsplit('/').nth(1).unwrap_or_default();
    [
        "__consumer_offsets-",
        "__transaction_state-",
        "__share_group_state-",
        "__cluster_metadata-",
    ]
    .iter()
    .any(|p| dir.starts_with(p))
}

/// What deep iteration keeps over a file's records.
struct Offsets {
    /// The last record's offset (-1 before the first).
    last: i64,
    /// Where an offset does not follow the previous one: previous → next.
    gaps: BTreeMap<i64, i64>,
    /// The log is compacted (by its topic, or as its batches show), so gaps are normal.
    compacted: bool,
}

impl<P: Printer> Dumper<'_, '_, P> {
    /// Dumps a `.log` or `.checkpoint`: its header line, then every batch (and with deep
    /// iteration every record) up to `--max-bytes`.
    pub(super) fn dump_log(&mut self, path: &Path, name: &str) -> io::Result<()> {
        // Without the header's numbers, the batches are dumped all the same.
        self.header_line(name)?;
        let opened = File::open(path).and_then(|f| {
            let len = f.metadata()?.len();
            Ok((f, len))
        });
        let (file, len) = match opened {
            Ok(found) => found,
            Err(e) => return self.io_problem(None, format!("cannot open {}: {e}", path.display())),
        };
        let unlimited = self.args.max_bytes == i64::from(i32::MAX);
        if len > i32::MAX as u64 {
            // Kafka refuses such a file; kafkit reads all of it (or up to --max-bytes).
            let msg = format!("The size of segment {} ({len}) is larger than the maximum allowed segment size of 2147483647", self.display);
            self.problem(None, ProblemKind::SegmentTooLarge, msg, true)?;
        }
        let end = if unlimited {
            len
        } else {
            len.min(self.args.max_bytes as u64)
        };
        let mut offsets = Offsets {
            last: -1,
            gaps: BTreeMap::new(),
            compacted: looks_compacted(&self.absolute),
        };
        let mut reader = SegmentReader::new(file, path, 0, end);
        loop {
            let (position, batch) = match reader.next_batch() {
                Ok(Some(found)) => found,
                Ok(None) => break,
                Err(e) => {
                    let position = reader.position();
                    let rest = end.saturating_sub(position);
                    let msg = match &e {
                        LogError::Corrupt { source, .. } => format!(
                            "{source}; the remaining {rest} byte(s) are not a batch (a zero-filled, preallocated tail?) and were not dumped"
                        ),
                        LogError::EntryTooLarge { size, limit, .. } => format!(
                            "a log entry of {size} bytes, larger than the {limit} bytes kafkit reads at once (and than any batch Kafka writes); the remaining {rest} byte(s) were not dumped"
                        ),
                        other => other.to_string(),
                    };
                    self.problem(Some(position), ProblemKind::CorruptBatch, msg, true)?;
                    return self.offset_gaps(offsets);
                }
            };
            self.dump_batch(position, &batch, &mut offsets)?;
        }
        if let Stop::Trailing { position, bytes } = reader.stop() {
            if unlimited {
                let msg = format!("Found {bytes} invalid bytes at the end of {name}");
                self.problem(
                    Some(position),
                    ProblemKind::InvalidTrailingBytes,
                    msg,
                    false,
                )?;
            }
        }
        self.offset_gaps(offsets)
    }

    /// One batch: its line, its problems, its records.
    fn dump_batch(
        &mut self,
        position: u64,
        batch: &RawBatch<'_>,
        offsets: &mut Offsets,
    ) -> io::Result<()> {
        let is_valid = batch.is_valid();
        self.summary.batches += 1;
        self.summary.bytes += batch.size_in_bytes() as u64;
        if let Some(p) = self.progress.as_deref_mut() {
            self.done += batch.size_in_bytes() as u64;
            p.set_position(self.done);
        }
        if let Some(h) = batch.header() {
            if h.has_delete_horizon()
                || i64::from(h.records_count) < i64::from(h.last_offset_delta) + 1
            {
                offsets.compacted = true;
            }
        }
        self.emit(&DumpEvent::Batch(Batch::of(position, batch, is_valid)))?;
        if !is_valid {
            let msg = match batch.ensure_valid() {
                Err(e) => e.to_string(),
                Ok(()) => "invalid batch".to_string(),
            };
            let msg = msg.replace(&format!(" at byte {position}"), "");
            self.problem(Some(position), ProblemKind::BadCrc, msg, false)?;
        }
        if batch.compression().is_err() {
            let msg = format!("Unknown compression type id: {}", batch.attributes() & 0x07);
            return self.problem(Some(position), ProblemKind::UnknownCompression, msg, true);
        }
        if self.deep {
            self.dump_records(position, batch, offsets)?;
        }
        Ok(())
    }

    /// Kafka's line before the batches, or a problem when the name does not give its numbers.
    fn header_line(&mut self, name: &str) -> io::Result<()> {
        let header = if name.ends_with(".log") {
            match self.base_offset(name)? {
                Some(base) => super::Header {
                    text: format!("Log starting offset: {base}"),
                    base_offset: Some(base),
                    end_offset: None,
                    epoch: None,
                },
                None => return Ok(()),
            }
        } else {
            match super::checkpoint::header(name) {
                Some(header) => header,
                None => {
                    let msg = "not a KRaft snapshot name (<20-digit end offset>-<10-digit epoch>.checkpoint)";
                    return self.problem(None, ProblemKind::BadFileName, msg.to_string(), true);
                }
            }
        };
        self.emit(&DumpEvent::Header(header))
    }

    /// Reports the file's offset gaps (deep iteration), once it is read.
    fn offset_gaps(&mut self, offsets: Offsets) -> io::Result<()> {
        let Offsets {
            gaps, compacted, ..
        } = offsets;
        // Gaps are normal in a compacted log; the port's `-1 is followed by N` pair only says
        // where the file starts.
        if !compacted && gaps.keys().any(|&prev| prev >= 0) {
            self.wrong = true;
        }
        for (previous_offset, offset) in gaps {
            let kind = ProblemKind::NonConsecutiveOffsets {
                previous_offset,
                offset,
                compacted,
            };
            self.finding(
                None,
                kind,
                format!("{previous_offset} is followed by {offset}"),
            )?;
        }
        Ok(())
    }

    /// The records of a batch (deep iteration).
    fn dump_records(
        &mut self,
        position: u64,
        batch: &RawBatch<'_>,
        offsets: &mut Offsets,
    ) -> io::Result<()> {
        let records = match batch.record_iter() {
            Ok(it) => it,
            Err(e) => {
                let msg = format!("cannot read the records of this batch: {e}");
                return self.problem(Some(position), ProblemKind::BadRecords, msg, true);
            }
        };
        let control_batch = batch.is_control();
        let (magic, timestamp_type) = (batch.magic(), batch.timestamp_type().name());
        for record in records {
            let r = match record {
                Ok(r) => r,
                Err(e) => {
                    let msg = format!("cannot read the records of this batch: {e}");
                    return self.problem(Some(position), ProblemKind::BadRecords, msg, true);
                }
            };
            self.summary.records += 1;
            if r.offset != offsets.last.wrapping_add(1) {
                offsets.gaps.insert(offsets.last, r.offset);
            }
            offsets.last = r.offset;
            let control = match control_batch {
                true => match control(&r) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        let msg = e.to_string();
                        self.problem(Some(position), ProblemKind::BadControlRecord, msg, true)?;
                        None
                    }
                },
                false => None,
            };
            // Kafka's `StringDecoder` on both, the common case, needs no parsing here.
            let shown = self.print_data && !control_batch;
            let strings = shown && self.parser == STRINGS;
            let parsed = match shown && !strings {
                true => Some(self.parse(position, &r)?),
                false => None,
            };
            let contents = match strings {
                true => Contents::Strings,
                false => parsed.as_ref().map_or(Contents::Hidden, Parsed::contents),
            };
            let event = RecordEvent::of(&r, magic, timestamp_type, control.as_ref(), contents);
            self.emit(&DumpEvent::Record(event))?;
        }
        Ok(())
    }

    /// What the chosen parser makes of a record's key and value.
    fn parse(&mut self, position: u64, r: &Record) -> io::Result<Parsed> {
        let decoded = match self.parser {
            Parser::Bytes(BytesDecoder::String, BytesDecoder::String) => {
                return Ok(Parsed::Strings)
            }
            Parser::Bytes(kd, vd) => {
                let mut texts = [None, None];
                for (slot, (bytes, dec)) in texts
                    .iter_mut()
                    .zip([(r.key.as_deref(), kd), (r.value.as_deref(), vd)])
                {
                    if let Some(bytes) = bytes {
                        *slot = Some(match decode_bytes(dec, bytes) {
                            Ok(t) => t,
                            Err(e) => {
                                let msg = format!("record at offset {}: {e}", r.offset);
                                self.problem(Some(position), ProblemKind::Undecodable, msg, false)?;
                                format!("<{e}>")
                            }
                        });
                    }
                }
                let [key, payload] = texts;
                return Ok(Parsed::Texts(key, payload));
            }
            Parser::Offsets => decode::offsets(r.key.as_deref(), r.value.as_deref(), r.offset),
            Parser::TransactionLog => {
                decode::transaction_log(r.key.as_deref(), r.value.as_deref(), r.offset)
            }
            Parser::ClusterMetadata => decode::cluster_metadata(r.value.as_deref(), r.offset),
        };
        if r.key.is_none() && matches!(self.parser, Parser::Offsets | Parser::TransactionLog) {
            // Kafka's tool stops here (RuntimeException); kafkit prints the record and says so.
            let msg = decoded.key.clone().unwrap_or_default();
            self.problem(Some(position), ProblemKind::Undecodable, msg, true)?;
        }
        Ok(Parsed::Message(decoded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control_of(key: [u8; 4], value: &[u8]) -> Result<Control, BadControl> {
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
        control(&r)
    }

    #[test]
    fn control_records() {
        assert!(matches!(
            control_of([0, 0, 0, 0], &[0, 0, 0, 0, 0, 5]),
            Ok(Control::EndTxn {
                marker: ControlRecordType::Abort,
                coordinator_epoch: 5
            })
        ));
        assert!(matches!(
            control_of([0, 0, 0, 7], b""),
            Ok(Control::Other {
                kind: ControlRecordType::Unknown(7)
            })
        ));
        assert!(matches!(
            control_of([0, 0, 0, 1], &[0]),
            Err(BadControl::Record(_))
        ));
        let err = control_of([0, 0, 0, 3], &[9]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot decode SNAPSHOT_HEADER control record: "),
            "{err}"
        );
    }

    #[test]
    fn bytes_decoders() {
        assert_eq!(decode_bytes(BytesDecoder::Hex, &[0, 0xab]).unwrap(), "00ab");
        assert_eq!(
            decode_bytes(BytesDecoder::Integer, &[0, 0, 1, 0, 9]).unwrap(),
            "256"
        );
        assert_eq!(
            decode_bytes(BytesDecoder::Long, &[1, 2])
                .unwrap_err()
                .to_string(),
            "2 byte(s) cannot hold a long (8 bytes)"
        );
    }
}
