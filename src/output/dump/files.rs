//! The dump itself: every file kind DumpLogSegments reads, its lines (through the formatting in
//! [`crate::output::dump`]), its problems and Kafka's summaries. The command
//! (`kafkit dump-log-segments`) is a thin layer over [`dump_files`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::decode;
use crate::log::index::{IndexEntry, IndexFile};
use crate::log::{OffsetIndex, OffsetPosition, SegmentReader, Stop, TimestampOffset};
use crate::output::dump as fmt;
use crate::output::json::write_line;
use crate::output::progress::Progress;
use crate::output::OutputFormat;
use crate::record::{RawBatch, HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, RECORD_OVERHEAD_V0};

/// How `--key-decoder` / `--value-decoder` turn bytes into text (Kafka's decoder classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesDecoder {
    /// UTF-8, malformed sequences replaced by U+FFFD (Kafka's `StringDecoder`).
    String,
    /// Lower-case hexadecimal.
    Hex,
    /// A big-endian int32 from the first 4 bytes (Kafka's `IntegerDecoder`).
    Integer,
    /// A big-endian int64 from the first 8 bytes (Kafka's `LongDecoder`).
    Long,
}

/// What to dump and how: the options of `kafka-dump-log.sh` (see the command's help).
#[derive(Debug, Clone)]
pub struct DumpOptions {
    /// Print keys and payloads (implies deep iteration).
    pub print_data_log: bool,
    /// Check index entries without printing them.
    pub verify_index_only: bool,
    /// Only run Kafka's index sanity check.
    pub index_sanity_check: bool,
    /// Bytes read at each offset-index position when checking it against the log.
    pub max_message_size: i64,
    /// Only the first bytes of a `.log`/`.checkpoint` are read (`i32::MAX`: all, and trailing
    /// bytes are reported).
    pub max_bytes: i64,
    /// One line per record.
    pub deep_iteration: bool,
    /// How keys are printed.
    pub key_decoder: Option<BytesDecoder>,
    /// How values are printed.
    pub value_decoder: Option<BytesDecoder>,
    /// Decode `__consumer_offsets` records.
    pub offsets_decoder: bool,
    /// Decode `__transaction_state` records.
    pub transaction_log_decoder: bool,
    /// Decode `__cluster_metadata` records.
    pub cluster_metadata_decoder: bool,
    /// Omit record metadata in text lines.
    pub skip_record_metadata: bool,
}

impl Default for DumpOptions {
    /// Kafka's defaults: batch level, 5 MiB `--max-message-size`, no `--max-bytes` limit.
    fn default() -> Self {
        DumpOptions {
            print_data_log: false,
            verify_index_only: false,
            index_sanity_check: false,
            max_message_size: 5 * 1024 * 1024,
            max_bytes: i64::from(i32::MAX),
            deep_iteration: false,
            key_decoder: None,
            value_decoder: None,
            offsets_decoder: false,
            transaction_log_decoder: false,
            cluster_metadata_decoder: false,
            skip_record_metadata: false,
        }
    }
}

/// Which message parser prints record contents (Kafka's precedence: offsets > transaction log >
/// cluster metadata > key/value decoders).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parser {
    Offsets,
    TransactionLog,
    ClusterMetadata,
    Bytes(BytesDecoder, BytesDecoder),
}

/// What a dump found, for the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Something could not be dumped where Kafka's tool fails too (exit 1).
    pub failed: bool,
    /// Something is wrong with the data (exit 3 with `--strict`).
    pub wrong: bool,
    /// Problems reported.
    pub problems: u64,
}

/// Dumps `files` (paths as given on the command line) to `out` (data) and `err` (diagnostics,
/// summaries), as Kafka's DumpLogSegments does. I/O errors of `out`/`err` (a closed pipe) end
/// the dump.
pub fn dump_files<W: Write, E: Write>(
    args: &DumpOptions,
    files: &[&str],
    format: OutputFormat,
    out: W,
    err: E,
    progress: Option<&mut dyn Progress>,
) -> io::Result<Outcome> {
    let parser = if args.offsets_decoder {
        Parser::Offsets
    } else if args.transaction_log_decoder {
        Parser::TransactionLog
    } else if args.cluster_metadata_decoder {
        Parser::ClusterMetadata
    } else {
        Parser::Bytes(
            args.key_decoder.unwrap_or(BytesDecoder::String),
            args.value_decoder.unwrap_or(BytesDecoder::String),
        )
    };
    let print_data = args.print_data_log
        || args.offsets_decoder
        || args.transaction_log_decoder
        || args.cluster_metadata_decoder
        || args.key_decoder.is_some()
        || args.value_decoder.is_some();
    let mut d = Dumper {
        args,
        json: format == OutputFormat::Json,
        print_data,
        deep: args.deep_iteration || print_data,
        parser,
        out,
        err,
        line: String::with_capacity(1024),
        cwd: std::env::current_dir().unwrap_or_default(),
        index_mismatches: BTreeMap::new(),
        time_mismatches: BTreeMap::new(),
        time_out_of_order: BTreeMap::new(),
        time_not_found: BTreeMap::new(),
        non_consecutive: BTreeMap::new(),
        stats: Stats::default(),
        failed: false,
        wrong: false,
        progress,
        done: 0,
    };
    for &arg in files {
        let done = d.done;
        if let Some(p) = d.progress.as_deref_mut() {
            p.item(arg);
        }
        d.dump_file(arg)?;
        // Batches of a .log moved the progress as they went; any file is all done now.
        if let Some(p) = d.progress.as_deref_mut() {
            d.done = done + std::fs::metadata(arg).map_or(0, |m| m.len());
            p.set_position(d.done);
        }
    }
    d.print_summaries()?;
    d.out.flush()?;
    d.err.flush()?;
    Ok(Outcome {
        failed: d.failed,
        wrong: d.wrong,
        problems: d.stats.problems,
    })
}

#[derive(Debug, Default)]
struct Stats {
    files: u64,
    batches: u64,
    records: u64,
    bytes: u64,
    problems: u64,
}

struct Dumper<'a, 'p, W: Write, E: Write> {
    args: &'a DumpOptions,
    json: bool,
    print_data: bool,
    deep: bool,
    parser: Parser,
    out: W,
    err: E,
    line: String,
    cwd: PathBuf,
    /// index path → index offset → log offset (printed in descending index offset).
    index_mismatches: BTreeMap<String, BTreeMap<i64, i64>>,
    time_mismatches: BTreeMap<String, Vec<(i64, i64)>>,
    time_out_of_order: BTreeMap<String, Vec<(i64, i64)>>,
    time_not_found: BTreeMap<String, Vec<(i64, i64)>>,
    /// log path → previous offset → next offset.
    non_consecutive: BTreeMap<String, BTreeMap<i64, i64>>,
    stats: Stats,
    /// Something could not be dumped (exit 1, as Kafka's tool).
    failed: bool,
    /// Something is wrong with the data (exit 3 with `--strict`).
    wrong: bool,
    progress: Option<&'p mut dyn Progress>,
    /// Bytes done, as last reported to `progress`.
    done: u64,
}

/// Java's `new File(path).toString()`: duplicate and trailing separators removed.
fn java_path(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut prev_slash = false;
    for c in arg.chars() {
        if c == '/' {
            if prev_slash {
                continue;
            }
            prev_slash = true;
        } else {
            prev_slash = false;
        }
        out.push(c);
    }
    if out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    out
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The file-name prefix before the first `.` (Kafka's `name.split("\\.")[0]`).
fn prefix(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

fn read_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_i64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn decode_bytes(decoder: BytesDecoder, bytes: &[u8]) -> Result<String, String> {
    match decoder {
        BytesDecoder::String => Ok(fmt::string_decode(bytes)),
        BytesDecoder::Hex => Ok(bytes.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })),
        BytesDecoder::Integer => read_i32(bytes, 0)
            .map(|v| v.to_string())
            .ok_or_else(|| format!("{} byte(s) cannot hold an integer (4 bytes)", bytes.len())),
        BytesDecoder::Long => read_i64(bytes, 0)
            .map(|v| v.to_string())
            .ok_or_else(|| format!("{} byte(s) cannot hold a long (8 bytes)", bytes.len())),
    }
}

impl<W: Write, E: Write> Dumper<'_, '_, W, E> {
    fn abs(&self, path: &str) -> String {
        if path.starts_with('/') {
            path.to_string()
        } else {
            java_path(&format!("{}/{path}", self.cwd.display()))
        }
    }

    fn println(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")
    }

    /// One JSON line, `"type"` first and the other fields sorted by name (the convention of
    /// every kafkit command, see `docs/json.md`).
    fn emit(&mut self, value: &Value) -> io::Result<()> {
        let Value::Object(map) = value else {
            return write_line(&mut self.out, value);
        };
        let out = &mut self.out;
        out.write_all(b"{")?;
        let mut first = true;
        let typed = map.get_key_value("type");
        for (k, v) in typed
            .into_iter()
            .chain(map.iter().filter(|(k, _)| *k != "type"))
        {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            serde_json::to_writer(&mut *out, k).map_err(io::Error::from)?;
            out.write_all(b":")?;
            serde_json::to_writer(&mut *out, v).map_err(io::Error::from)?;
        }
        out.write_all(b"}\n")
    }

    /// Reports a problem: on stderr in text mode (naming the file and byte position), as a
    /// `{"type":"problem"}` line in JSON mode. `fatal` problems are those Kafka's tool fails on.
    fn problem(
        &mut self,
        file: &str,
        position: Option<u64>,
        kind: &str,
        message: &str,
        fatal: bool,
    ) -> io::Result<()> {
        self.stats.problems += 1;
        self.wrong = true;
        self.failed |= fatal;
        if self.json {
            let v = json!({
                "type": "problem", "file": file, "position": position, "kind": kind,
                "message": message, "fatal": fatal,
            });
            self.emit(&v)
        } else {
            self.out.flush()?;
            match position {
                Some(p) => writeln!(self.err, "Problem in {file} at byte {p}: {message}"),
                None => writeln!(self.err, "Problem in {file}: {message}"),
            }
        }
    }

    fn dump_file(&mut self, arg: &str) -> io::Result<()> {
        let display = java_path(arg);
        self.stats.files += 1;
        let name = file_name(&display).to_string();
        let suffix = name.rfind('.').map(|i| &name[i..]).unwrap_or("");
        let kind = match suffix {
            ".log" => "log",
            ".checkpoint" => "checkpoint",
            ".index" => "index",
            ".timeindex" => "timeindex",
            ".snapshot" => "snapshot",
            ".txnindex" => "txnindex",
            _ => "unknown",
        };
        if self.json {
            let v = json!({"type": "file", "file": display, "kind": kind});
            self.emit(&v)?;
        } else {
            self.println(&format!("Dumping {display}"))?;
        }
        let path = PathBuf::from(&display);
        match kind {
            "log" | "checkpoint" => self.dump_log(&path, &display, &name),
            "index" => self.dump_index(&path, &display, &name),
            "timeindex" => self.dump_time_index(&path, &display, &name),
            "snapshot" => self.dump_producer_snapshot(&path, &display),
            "txnindex" => self.dump_txn_index(&path, &display),
            _ => {
                if self.json {
                    let v = json!({"type": "ignored", "file": display});
                    self.emit(&v)
                } else {
                    self.out.flush()?;
                    writeln!(self.err, "Ignoring unknown file {display}")
                }
            }
        }
    }

    fn base_offset(&mut self, display: &str, name: &str) -> io::Result<Option<i64>> {
        match prefix(name).parse::<i64>() {
            Ok(v) => Ok(Some(v)),
            Err(_) => {
                let msg = format!(
                    "the file name does not start with a base offset (For input string: \"{}\")",
                    prefix(name)
                );
                self.problem(display, None, "bad_file_name", &msg, true)?;
                Ok(None)
            }
        }
    }

    fn header_line(&mut self, display: &str, name: &str) -> io::Result<()> {
        let text = if name.ends_with(".log") {
            match self.base_offset(display, name)? {
                Some(base) => format!("Log starting offset: {base}"),
                None => return Ok(()),
            }
        } else if name == "bootstrap.checkpoint" {
            "KRaft bootstrap snapshot".to_string()
        } else {
            match parse_snapshot_name(name) {
                Some((offset, epoch)) => {
                    format!("Snapshot end offset: {offset}, epoch: {epoch}")
                }
                None => {
                    let msg = "not a KRaft snapshot name (<20-digit end offset>-<10-digit epoch>.checkpoint)";
                    return self.problem(display, None, "bad_file_name", msg, true);
                }
            }
        };
        if self.json {
            let v = json!({"type": "header", "file": display, "text": text});
            self.emit(&v)
        } else {
            self.println(&text)
        }
    }

    fn open(&mut self, path: &Path, display: &str) -> io::Result<Option<(File, u64)>> {
        let opened = File::open(path).and_then(|f| {
            let len = f.metadata()?.len();
            Ok((f, len))
        });
        match opened {
            Ok(found) => Ok(Some(found)),
            Err(e) => {
                let msg = format!("cannot open {}: {e}", path.display());
                self.problem(display, None, "io", &msg, true)?;
                Ok(None)
            }
        }
    }

    fn dump_log(&mut self, path: &Path, display: &str, name: &str) -> io::Result<()> {
        self.header_line(display, name)?;
        let Some((file, len)) = self.open(path, display)? else {
            return Ok(());
        };
        let max_bytes = self.args.max_bytes;
        let unlimited = max_bytes == i64::from(i32::MAX);
        if len > i32::MAX as u64 {
            // Kafka refuses such a file; kafkit reads all of it (or up to --max-bytes).
            let msg = format!("The size of segment {display} ({len}) is larger than the maximum allowed segment size of 2147483647");
            self.problem(display, None, "segment_too_large", &msg, true)?;
        }
        let end = if unlimited {
            len
        } else {
            len.min(max_bytes as u64)
        };
        let abs = self.abs(display);
        let compacted = looks_compacted(&abs);
        let mut reader = SegmentReader::new(file, path, 0, end);
        let mut last_offset: i64 = -1;
        let mut pairs: BTreeMap<i64, i64> = BTreeMap::new();
        let mut saw_compaction = compacted;
        let mut line = std::mem::take(&mut self.line);
        loop {
            let (position, batch) = match reader.next_batch() {
                Ok(Some(found)) => found,
                Ok(None) => break,
                Err(e) => {
                    let position = reader.position();
                    let rest = end.saturating_sub(position);
                    let msg = match &e {
                        crate::log::LogError::Corrupt { source, .. } => format!(
                            "{source}; the remaining {rest} byte(s) are not a batch (a zero-filled, preallocated tail?) and were not dumped"
                        ),
                        crate::log::LogError::EntryTooLarge { size, limit, .. } => format!(
                            "a log entry of {size} bytes, larger than the {limit} bytes kafkit reads at once (and than any batch Kafka writes); the remaining {rest} byte(s) were not dumped"
                        ),
                        other => other.to_string(),
                    };
                    self.problem(display, Some(position), "corrupt_batch", &msg, true)?;
                    self.line = line;
                    return self.finish_log(display, &abs, pairs, saw_compaction);
                }
            };
            let is_valid = batch.is_valid();
            self.stats.batches += 1;
            self.stats.bytes += batch.size_in_bytes() as u64;
            if let Some(p) = self.progress.as_deref_mut() {
                self.done += batch.size_in_bytes() as u64;
                p.set_position(self.done);
            }
            if let Some(h) = batch.header() {
                if h.has_delete_horizon()
                    || i64::from(h.records_count) < i64::from(h.last_offset_delta) + 1
                {
                    saw_compaction = true;
                }
            }
            if self.json {
                let v = fmt::batch_json(display, position, &batch, is_valid);
                self.emit(&v)?;
            } else {
                line.clear();
                fmt::batch_line(&mut line, position, &batch, is_valid);
                line.push('\n');
                self.out.write_all(line.as_bytes())?;
            }
            if !is_valid {
                let msg = match batch.ensure_valid() {
                    Err(e) => e.to_string(),
                    Ok(()) => "invalid batch".to_string(),
                };
                let msg = msg.replace(&format!(" at byte {position}"), "");
                self.problem(display, Some(position), "bad_crc", &msg, false)?;
            }
            if batch.compression().is_err() {
                let msg = format!("Unknown compression type id: {}", batch.attributes() & 0x07);
                self.problem(display, Some(position), "unknown_compression", &msg, true)?;
                continue;
            }
            if self.deep {
                self.dump_records(
                    display,
                    position,
                    &batch,
                    &mut line,
                    &mut last_offset,
                    &mut pairs,
                )?;
            }
        }
        self.line = line;
        if let Stop::Trailing { position, bytes } = reader.stop() {
            if unlimited {
                let text = format!("Found {bytes} invalid bytes at the end of {name}");
                if self.json {
                    let msg = text.clone();
                    self.problem(
                        display,
                        Some(position),
                        "invalid_trailing_bytes",
                        &msg,
                        false,
                    )?;
                } else {
                    self.println(&text)?;
                    self.wrong = true;
                    self.stats.problems += 1;
                }
            }
        }
        self.finish_log(display, &abs, pairs, saw_compaction)
    }

    fn finish_log(
        &mut self,
        display: &str,
        abs: &str,
        pairs: BTreeMap<i64, i64>,
        compacted: bool,
    ) -> io::Result<()> {
        if pairs.is_empty() {
            return Ok(());
        }
        // Gaps are normal in a compacted log; the port's `-1 is followed by N` pair only says
        // where the file starts.
        if !compacted && pairs.keys().any(|&prev| prev >= 0) {
            self.wrong = true;
        }
        if self.json {
            for (prev, next) in &pairs {
                let v = json!({
                    "type": "problem", "file": display, "kind": "non_consecutive_offsets",
                    "message": format!("{prev} is followed by {next}"),
                    "previousOffset": prev, "offset": next, "compacted": compacted, "fatal": false,
                });
                self.emit(&v)?;
            }
        }
        self.non_consecutive
            .entry(abs.to_string())
            .or_default()
            .extend(pairs);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn dump_records(
        &mut self,
        display: &str,
        position: u64,
        batch: &RawBatch<'_>,
        line: &mut String,
        last_offset: &mut i64,
        pairs: &mut BTreeMap<i64, i64>,
    ) -> io::Result<()> {
        let records = match batch.record_iter() {
            Ok(it) => it,
            Err(e) => {
                let msg = format!("cannot read the records of this batch: {e}");
                return self.problem(display, Some(position), "bad_records", &msg, true);
            }
        };
        let control_batch = batch.is_control();
        for record in records {
            let r = match record {
                Ok(r) => r,
                Err(e) => {
                    let msg = format!("cannot read the records of this batch: {e}");
                    return self.problem(display, Some(position), "bad_records", &msg, true);
                }
            };
            self.stats.records += 1;
            if r.offset != last_offset.wrapping_add(1) {
                pairs.insert(*last_offset, r.offset);
            }
            *last_offset = r.offset;
            let control = if control_batch {
                match fmt::control_record(&r) {
                    Ok(c) => Some(c),
                    Err(msg) => {
                        self.problem(display, Some(position), "bad_control_record", &msg, true)?;
                        None
                    }
                }
            } else {
                None
            };
            // The common case (text, string decoders) writes the contents straight into the
            // line; every other parser builds its texts first.
            let direct = !self.json
                && self.parser == Parser::Bytes(BytesDecoder::String, BytesDecoder::String);
            let contents = if self.print_data && !control_batch && !direct {
                Some(self.parse(display, position, &r)?)
            } else {
                None
            };
            if self.json {
                let decoded = match &contents {
                    Some((_, _, decoded)) => decoded.as_ref(),
                    None => None,
                };
                fmt::write_record_json(
                    &mut self.out,
                    display,
                    batch,
                    &r,
                    control.as_ref().map(|(_, cj)| cj),
                    decoded,
                )?;
                continue;
            }
            line.clear();
            if !self.args.skip_record_metadata {
                fmt::record_metadata(line, batch, &r, control.as_ref().map(|(t, _)| t.as_str()));
            }
            if let Some((key, payload, _)) = &contents {
                fmt::record_contents(
                    line,
                    key.as_deref(),
                    payload.as_deref(),
                    self.args.skip_record_metadata,
                );
            } else if direct && self.print_data && !control_batch {
                fmt::record_contents_lossy(
                    line,
                    r.key.as_deref(),
                    r.value.as_deref(),
                    self.args.skip_record_metadata,
                );
            }
            line.push('\n');
            self.out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// The key and payload texts of a record under the chosen parser, and decoded JSON.
    #[allow(clippy::type_complexity)]
    fn parse(
        &mut self,
        display: &str,
        position: u64,
        r: &crate::record::Record,
    ) -> io::Result<(Option<String>, Option<String>, Option<Value>)> {
        let decoded = match self.parser {
            Parser::Offsets => decode::offsets(r.key.as_deref(), r.value.as_deref(), r.offset),
            Parser::TransactionLog => {
                decode::transaction_log(r.key.as_deref(), r.value.as_deref(), r.offset)
            }
            Parser::ClusterMetadata => decode::cluster_metadata(r.value.as_deref(), r.offset),
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
                                self.problem(display, Some(position), "undecodable", &msg, false)?;
                                format!("<{e}>")
                            }
                        });
                    }
                }
                let [key, payload] = texts;
                let decoded = (kd != BytesDecoder::String || vd != BytesDecoder::String)
                    .then(|| json!({"key": key, "value": payload}));
                return Ok((key, payload, decoded));
            }
        };
        if r.key.is_none() && matches!(self.parser, Parser::Offsets | Parser::TransactionLog) {
            // Kafka's tool stops here (RuntimeException); kafkit prints the record and says so.
            let msg = decoded.key.clone().unwrap_or_default();
            self.problem(display, Some(position), "undecodable", &msg, true)?;
        }
        Ok((decoded.key, decoded.payload, Some(decoded.json)))
    }

    fn dump_index(&mut self, path: &Path, display: &str, name: &str) -> io::Result<()> {
        let Some(base) = self.base_offset(display, name)? else {
            return Ok(());
        };
        let Some((file, len)) = self.open(path, display)? else {
            return Ok(());
        };
        let entries = len / 8;
        if entries == 0 {
            return self.say(display, "empty", &format!("{display} is empty."));
        }
        let abs = self.abs(display);
        let mut r = io::BufReader::with_capacity(1 << 16, file);
        let entry_from = |b: &[u8; 8]| -> (i64, i32) {
            let rel = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            let pos = i32::from_be_bytes([b[4], b[5], b[6], b[7]]);
            (base + i64::from(rel), pos)
        };
        let read_entry = |r: &mut io::BufReader<File>| -> io::Result<(i64, i32)> {
            let mut b = [0u8; 8];
            r.read_exact(&mut b)?;
            Ok(entry_from(&b))
        };
        if self.args.index_sanity_check {
            return self.sanity_check::<OffsetPosition>(&abs, base, display);
        }
        let log_path = path.with_file_name(format!("{}.log", prefix(name)));
        let mut log = match LiveLog::open(&log_path) {
            Ok(log) => Some(log),
            Err(e) => {
                let msg = format!("cannot check the index against {}: {e}", log_path.display());
                self.problem(display, None, "io", &msg, true)?;
                None
            }
        };
        let mut mismatches = BTreeMap::new();
        let max_message_size = self.args.max_message_size;
        for i in 0..entries {
            let (mut offset, mut position) = match read_entry(&mut r) {
                Ok(entry) => entry,
                Err(e) => {
                    self.entry_unreadable(display, i * 8, e)?;
                    break;
                }
            };
            if i > 0 && offset == base {
                break;
            }
            let mut log_offset = None;
            if let Some(log) = &mut log {
                let check = |log: &mut LiveLog, position: i32| {
                    log.check(
                        |file, len| first_batch_last_offset(file, len, position, max_message_size),
                        Result::is_ok,
                    )
                };
                let mut found = check(log, position);
                if found.as_ref() != Ok(&offset) {
                    let again = settled((offset, position), || {
                        let mut b = [0u8; 8];
                        r.get_ref().read_exact_at(&mut b, i * 8)?;
                        Ok(entry_from(&b))
                    });
                    if again != (offset, position) {
                        (offset, position) = again;
                        if i > 0 && offset == base {
                            break;
                        }
                        found = check(log, position);
                    }
                }
                match found {
                    Ok(found) => {
                        if found != offset {
                            mismatches.insert(offset, found);
                            self.wrong = true;
                            if self.json {
                                let v = json!({
                                    "type": "problem", "file": display, "kind": "index_mismatch",
                                    "position": i * 8, "indexOffset": offset, "logOffset": found,
                                    "message": format!("Index offset: {offset}, log offset: {found}"),
                                    "fatal": false,
                                });
                                self.emit(&v)?;
                            }
                        }
                        log_offset = Some(found);
                    }
                    Err(msg) => {
                        let msg = format!(
                            "index entry {i} (offset {offset}, position {position}): {msg}"
                        );
                        self.problem(display, Some(i * 8), "index_entry_not_in_log", &msg, true)?;
                    }
                }
            }
            if !self.args.verify_index_only {
                if self.json {
                    let v = json!({"type": "index_entry", "file": display, "offset": offset, "position": position, "logOffset": log_offset});
                    self.emit(&v)?;
                } else {
                    self.println(&format!("offset: {offset} position: {position}"))?;
                }
            }
        }
        if !mismatches.is_empty() {
            self.index_mismatches
                .entry(abs)
                .or_default()
                .extend(mismatches);
        }
        Ok(())
    }

    /// `--index-sanity-check`: Kafka's check of an index as Kafka sees it (every slot an entry),
    /// reported with the absolute path Kafka's messages carry.
    fn sanity_check<I: IndexEntry>(
        &mut self,
        abs: &str,
        base: i64,
        display: &str,
    ) -> io::Result<()> {
        let problem = IndexFile::<I>::open_all_slots(Path::new(abs), base)
            .and_then(|index| index.sanity_problem())
            .map_err(io::Error::other)?;
        match problem {
            Some((at, message)) => self.problem(display, Some(at), "corrupt_index", &message, true),
            None => self.say(
                display,
                "sanity_check_passed",
                &format!("{display} passed sanity check."),
            ),
        }
    }

    /// A line Kafka prints about a whole file (`is empty.`, `passed sanity check.`).
    fn say(&mut self, display: &str, kind: &str, text: &str) -> io::Result<()> {
        if self.json {
            let v = json!({"type": "index_status", "file": display, "status": kind, "text": text});
            self.emit(&v)
        } else {
            self.println(text)
        }
    }

    fn dump_time_index(&mut self, path: &Path, display: &str, name: &str) -> io::Result<()> {
        let Some(base) = self.base_offset(display, name)? else {
            return Ok(());
        };
        let Some((file, len)) = self.open(path, display)? else {
            return Ok(());
        };
        let abs = self.abs(display);
        let entries = len / 12;
        let entry_at = |n: u64| -> io::Result<(i64, i64)> {
            let mut b = [0u8; 12];
            file.read_exact_at(&mut b, n * 12)?;
            let ts = read_i64(&b, 0).unwrap_or_default();
            let rel = read_i32(&b, 8).unwrap_or_default();
            Ok((ts, base + i64::from(rel)))
        };
        if self.args.index_sanity_check {
            return self.sanity_check::<TimestampOffset>(&abs, base, display);
        }
        let log_path = path.with_file_name(format!("{}.log", prefix(name)));
        let index_path = path.with_file_name(format!("{}.index", prefix(name)));
        let mut log = match LiveLog::open(&log_path) {
            Ok(log) => Some(log),
            Err(e) => {
                let msg = format!(
                    "cannot check the time index against {}: {e}",
                    log_path.display()
                );
                self.problem(display, None, "io", &msg, true)?;
                None
            }
        };
        // A missing offset index means every lookup starts at the beginning of the log.
        let index = OffsetIndex::open_read_only(&index_path, base).ok();
        let mut prev_ts: i64 = -1;
        // The previous entry's offset, where its search started and where its batch was found.
        // An entry at or past that offset whose lookup starts at the same place is searched
        // from that batch on: the batches before it end below the offset, so Kafka's scan from
        // the lookup would pass them all. Without an `.index` every lookup starts at 0, and each
        // entry rescanned the log from its start (quadratic in the entries).
        let mut resume: Option<(i64, u64, u64)> = None;
        for i in 0..entries {
            let (mut ts, mut offset) = match entry_at(i) {
                Ok(entry) => entry,
                Err(e) => {
                    self.entry_unreadable(display, i * 12, e)?;
                    break;
                }
            };
            if i > 0 && offset == base {
                break;
            }
            if let Some(log) = &mut log {
                let check = |log: &mut LiveLog, offset: i64| {
                    let start = index
                        .as_ref()
                        .and_then(|idx| idx.lookup(offset).ok())
                        .map_or(0, |e| u64::from(e.position));
                    let from = match resume {
                        Some((prev, prev_start, at)) if offset >= prev && start == prev_start => at,
                        _ => start,
                    };
                    let found = log.check(
                        |file, len| find_batch_max_timestamp(file, &log_path, len, from, offset),
                        |found| matches!(found, Found::Batch { .. }),
                    );
                    (start, found)
                };
                let (mut start, mut found) = check(log, offset);
                if !matches!(found, Found::Batch { max_timestamp, .. } if max_timestamp == ts) {
                    let again = settled((ts, offset), || entry_at(i));
                    if again != (ts, offset) {
                        (ts, offset) = again;
                        if i > 0 && offset == base {
                            break;
                        }
                        (start, found) = check(log, offset);
                    }
                }
                match found {
                    Found::None => {
                        self.time_error(display, &abs, "time_index_offset_not_found", offset, -1)?
                    }
                    Found::Other(last) => {
                        self.time_error(display, &abs, "time_index_offset_not_found", offset, last)?
                    }
                    Found::Batch {
                        max_timestamp: max_ts,
                        position,
                    } => {
                        resume = Some((offset, start, position));
                        if max_ts != ts {
                            self.time_error(display, &abs, "time_index_mismatch", ts, max_ts)?;
                        }
                        if prev_ts >= ts {
                            self.time_error(display, &abs, "time_index_out_of_order", ts, prev_ts)?;
                        }
                    }
                    Found::Error(p, msg) => {
                        self.problem(display, Some(p), "corrupt_batch", &msg, true)?;
                    }
                }
            }
            if !self.args.verify_index_only {
                if self.json {
                    let v = json!({"type": "time_index_entry", "file": display, "timestamp": ts, "offset": offset});
                    self.emit(&v)?;
                } else {
                    self.println(&format!("timestamp: {ts} offset: {offset}"))?;
                }
            }
            prev_ts = ts;
        }
        Ok(())
    }

    /// An index entry at byte `at` could not be read. Reaching the end of the file there means
    /// the file was shorter when read than when it was opened (entries are only read within
    /// the length seen at opening): it was trimmed under the dump (a writer closing its live
    /// segment), and its entries end there. (Its length now proves nothing: a writer reopening
    /// the segment grows it again.) Any other error is this file's problem, and the dump goes
    /// on with the next file.
    fn entry_unreadable(&mut self, display: &str, at: u64, e: io::Error) -> io::Result<()> {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            return Ok(());
        }
        let msg = format!("cannot read the entry at byte {at}: {e}");
        self.problem(display, Some(at), "io", &msg, true)
    }

    fn time_error(
        &mut self,
        display: &str,
        abs: &str,
        kind: &str,
        a: i64,
        b: i64,
    ) -> io::Result<()> {
        self.wrong = true;
        let (map, message) = match kind {
            "time_index_mismatch" => (
                &mut self.time_mismatches,
                format!("Index timestamp: {a}, log timestamp: {b}"),
            ),
            "time_index_out_of_order" => (
                &mut self.time_out_of_order,
                format!("Index timestamp: {a}, Previously indexed timestamp: {b}"),
            ),
            _ => (
                &mut self.time_not_found,
                format!("Indexed offset: {a}, found log offset: {b}"),
            ),
        };
        map.entry(abs.to_string()).or_default().push((a, b));
        if self.json {
            let v = json!({"type": "problem", "file": display, "kind": kind, "message": message, "fatal": false});
            self.emit(&v)?;
        }
        Ok(())
    }

    fn dump_producer_snapshot(&mut self, path: &Path, display: &str) -> io::Result<()> {
        let Some((mut file, len)) = self.open(path, display)? else {
            return Ok(());
        };
        if len > (1 << 30) {
            let msg = format!("{len} bytes is too large for a producer snapshot");
            return self.problem(display, None, "corrupt_snapshot", &msg, true);
        }
        let mut bytes = Vec::with_capacity(len as usize);
        file.read_to_end(&mut bytes)?;
        let entries = match parse_producer_snapshot(&bytes) {
            Ok(entries) => entries,
            Err(msg) => {
                if self.json {
                    return self.problem(display, None, "corrupt_snapshot", &msg, false);
                }
                self.out.flush()?;
                self.wrong = true;
                self.stats.problems += 1;
                // Kafka's exact words, then where.
                return writeln!(self.err, "{msg} (in {display})");
            }
        };
        for e in entries {
            if self.json {
                let v = json!({
                    "type": "producer_snapshot_entry", "file": display,
                    "producerId": e.producer_id, "producerEpoch": e.epoch,
                    "coordinatorEpoch": e.coordinator_epoch,
                    "currentTxnFirstOffset": (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset),
                    "lastTimestamp": e.timestamp,
                    "firstSequence": (e.last_offset >= 0).then(|| decrement_sequence(e.last_sequence, e.offset_delta)),
                    "lastSequence": (e.last_offset >= 0).then_some(e.last_sequence),
                    "lastOffset": (e.last_offset >= 0).then_some(e.last_offset),
                    "offsetDelta": (e.last_offset >= 0).then_some(e.offset_delta),
                });
                self.emit(&v)?;
                continue;
            }
            let mut line = format!(
                "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} lastTimestamp: {}",
                e.producer_id,
                e.epoch,
                e.coordinator_epoch,
                fmt::optional_long((e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset)),
                e.timestamp
            );
            if e.last_offset >= 0 {
                let _ = write!(
                    line,
                    " firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
                    decrement_sequence(e.last_sequence, e.offset_delta),
                    e.last_sequence,
                    e.last_offset,
                    e.offset_delta,
                    e.timestamp
                );
            }
            self.println(&line)?;
        }
        Ok(())
    }

    fn dump_txn_index(&mut self, path: &Path, display: &str) -> io::Result<()> {
        let Some((file, len)) = self.open(path, display)? else {
            return Ok(());
        };
        let mut r = io::BufReader::with_capacity(1 << 16, file);
        let mut b = [0u8; 34];
        let mut at = 0u64;
        while at + 34 <= len {
            r.read_exact(&mut b)?;
            let version = b[0] as i8;
            if version > 0 {
                let msg = format!(
                    "Unexpected aborted transaction version {version} in transaction index {}, current version is 0",
                    self.abs(display)
                );
                return self.problem(display, Some(at), "corrupt_txn_index", &msg, true);
            }
            let pid = read_i64(&b, 2).unwrap_or_default();
            let first = read_i64(&b, 10).unwrap_or_default();
            let last = read_i64(&b, 18).unwrap_or_default();
            let lso = read_i64(&b, 26).unwrap_or_default();
            if self.json {
                let v = json!({"type": "aborted_txn", "file": display, "version": version, "producerId": pid,
                               "firstOffset": first, "lastOffset": last, "lastStableOffset": lso});
                self.emit(&v)?;
            } else {
                self.println(&format!("version: {version} producerId: {pid} firstOffset: {first} lastOffset: {last} lastStableOffset: {lso}"))?;
            }
            at += 34;
        }
        Ok(())
    }

    fn print_summaries(&mut self) -> io::Result<()> {
        if self.json {
            let time_errors: usize = [
                &self.time_mismatches,
                &self.time_out_of_order,
                &self.time_not_found,
            ]
            .iter()
            .flat_map(|m| m.values())
            .map(Vec::len)
            .sum();
            let v = json!({
                "type": "summary",
                "files": self.stats.files,
                "batches": self.stats.batches,
                "records": self.stats.records,
                "bytes": self.stats.bytes,
                "problems": self.stats.problems,
                "indexMismatches": self.index_mismatches.values().map(BTreeMap::len).sum::<usize>(),
                "timeIndexErrors": time_errors,
                "nonConsecutiveOffsets": self.non_consecutive.values().map(BTreeMap::len).sum::<usize>(),
                "ok": !self.wrong,
            });
            return self.emit(&v);
        }
        self.out.flush()?;
        let err = &mut self.err;
        for (file, m) in &self.index_mismatches {
            writeln!(err, "Mismatches in :{file}")?;
            for (index_offset, log_offset) in m.iter().rev() {
                writeln!(
                    err,
                    "  Index offset: {index_offset}, log offset: {log_offset}"
                )?;
            }
        }
        for (file, m) in &self.time_mismatches {
            writeln!(err, "Found timestamp mismatch in :{file}")?;
            for (a, b) in m {
                writeln!(err, "  Index timestamp: {a}, log timestamp: {b}")?;
            }
        }
        for (file, m) in &self.time_out_of_order {
            writeln!(err, "Found out of order timestamp in :{file}")?;
            for (a, b) in m {
                writeln!(
                    err,
                    "  Index timestamp: {a}, Previously indexed timestamp: {b}"
                )?;
            }
        }
        for m in self.time_not_found.values() {
            writeln!(
                err,
                "The following indexed offsets are not found in the log."
            )?;
            for (a, b) in m {
                writeln!(err, "Indexed offset: {a}, found log offset: {b}")?;
            }
        }
        for (file, m) in &self.non_consecutive {
            writeln!(err, "Non-consecutive offsets in {file}")?;
            for (a, b) in m {
                writeln!(err, "  {a} is followed by {b}")?;
            }
        }
        err.flush()
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

/// `<20-digit end offset>-<10-digit epoch>.checkpoint` → (offset, epoch).
fn parse_snapshot_name(name: &str) -> Option<(i64, i32)> {
    let stem = name.strip_suffix(".checkpoint")?;
    let (offset, epoch) = stem.split_once('-')?;
    if offset.len() != 20 || epoch.len() != 10 {
        return None;
    }
    if !offset
        .bytes()
        .chain(epoch.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((offset.parse().ok()?, epoch.parse().ok()?))
}

/// A segment's `.log` that an index is checked against, and its length as last seen. A writer
/// of a live segment appends a batch to the log before it adds the index entries that name
/// it, so an entry read after the length was taken may name a batch past it.
struct LiveLog {
    file: File,
    len: u64,
}

impl LiveLog {
    fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Self { file, len })
    }

    /// `check` against the log as last seen; when it does not `pass` and the log has grown
    /// since, once more against the log as it is now.
    fn check<T>(&mut self, check: impl Fn(&File, u64) -> T, pass: impl Fn(&T) -> bool) -> T {
        let found = check(&self.file, self.len);
        if pass(&found) {
            return found;
        }
        match self.file.metadata() {
            Ok(m) if m.len() > self.len => {
                self.len = m.len();
                check(&self.file, self.len)
            }
            _ => found,
        }
    }
}

/// An index entry read again until two reads agree (at most four reads in all): the writer of
/// a live segment may have been writing it through its map as it was first read (its offset
/// there, its position or timestamp not yet). A static file reads the same every time.
fn settled<T: PartialEq>(first: T, mut read: impl FnMut() -> io::Result<T>) -> T {
    let mut last = first;
    for _ in 0..3 {
        match read() {
            Ok(again) if again == last => break,
            Ok(again) => {
                last = again;
                std::thread::yield_now();
            }
            Err(_) => break,
        }
    }
    last
}

/// The last offset of the batch at `position` of the log, read as Kafka's index dump does: the
/// first batch of the slice `[position, position + max_message_size)`.
fn first_batch_last_offset(
    log: &File,
    log_len: u64,
    position: i32,
    max_message_size: i64,
) -> Result<i64, String> {
    if position < 0 || position as u64 > log_len {
        return Err(format!("the position is outside the log ({log_len} bytes)"));
    }
    let start = position as u64;
    let end = log_len.min(start + max_message_size as u64);
    let mut head = [0u8; 61];
    let avail = (end - start).min(61) as usize;
    let head = head.get_mut(..avail).unwrap_or_default();
    log.read_exact_at(head, start).map_err(|e| e.to_string())?;
    if (end - start) <= HEADER_SIZE_UP_TO_MAGIC as u64 {
        return Err("no batch starts there".to_string());
    }
    let size = read_i32(head, 8).unwrap_or_default();
    if size < RECORD_OVERHEAD_V0 as i32 {
        return Err(format!(
            "Found record size {size} smaller than minimum record overhead (14)"
        ));
    }
    if start + LOG_OVERHEAD as u64 + size as u64 > end {
        return Err("no whole batch starts there within --max-message-size".to_string());
    }
    let base = read_i64(head, 0).unwrap_or_default();
    let magic = head.get(16).copied().unwrap_or_default() as i8;
    if magic >= 2 {
        let delta = read_i32(head, 23).ok_or("batch too short for its header")?;
        Ok(base.wrapping_add(i64::from(delta)))
    } else {
        Ok(base)
    }
}

enum Found {
    None,
    Other(i64),
    Batch {
        max_timestamp: i64,
        /// Where the batch starts.
        position: u64,
    },
    Error(u64, String),
}

/// Kafka's time-index check: from `start`, the first batch whose last offset is at least
/// `offset`, and its largest record timestamp.
fn find_batch_max_timestamp(
    log: &File,
    path: &Path,
    log_len: u64,
    start: u64,
    offset: i64,
) -> Found {
    let file = match log.try_clone() {
        Ok(f) => f,
        Err(e) => return Found::Error(start, e.to_string()),
    };
    let mut reader = SegmentReader::new(file, path, start, log_len).with_window(8 << 10);
    loop {
        match reader.next_batch() {
            Ok(Some((pos, batch))) => {
                if batch.last_offset() < offset {
                    continue;
                }
                if batch.last_offset() != offset {
                    return Found::Other(batch.last_offset());
                }
                let mut max = -1i64;
                match batch.record_iter() {
                    Ok(records) => {
                        for r in records {
                            match r {
                                Ok(r) => max = max.max(r.timestamp),
                                Err(e) => return Found::Error(pos, e.to_string()),
                            }
                        }
                    }
                    Err(e) => return Found::Error(pos, e.to_string()),
                }
                return Found::Batch {
                    max_timestamp: max,
                    position: pos,
                };
            }
            Ok(None) => return Found::None,
            Err(e) => return Found::Error(reader.position(), e.to_string()),
        }
    }
}

struct ProducerEntry {
    producer_id: i64,
    epoch: i16,
    last_sequence: i32,
    last_offset: i64,
    offset_delta: i32,
    timestamp: i64,
    coordinator_epoch: i32,
    current_txn_first_offset: i64,
}

/// Kafka's `decrementSequence`.
fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    if sequence < decrement {
        i32::MAX - (decrement - sequence) + 1
    } else {
        sequence - decrement
    }
}

/// Kafka's `ProducerStateManager.readSnapshot`, with its error messages.
fn parse_producer_snapshot(bytes: &[u8]) -> Result<Vec<ProducerEntry>, String> {
    let schema_err = |m: &str| format!("Snapshot failed schema validation: {m}");
    let version = bytes
        .get(..2)
        .and_then(|b| b.try_into().ok())
        .map(i16::from_be_bytes)
        .ok_or_else(|| schema_err("null"))?;
    if version != 1 {
        return Err(schema_err(&format!(
            "Snapshot contained an unknown file version {version}"
        )));
    }
    let crc = bytes
        .get(2..6)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| schema_err("null"))?;
    let count = read_i32(bytes, 6).ok_or_else(|| schema_err("null"))?;
    if count < 0 {
        return Err(schema_err(
            "non-nullable field producerEntries was serialized as null",
        ));
    }
    let remaining = bytes.len() - 10;
    if count as usize > remaining {
        return Err(schema_err(&format!(
            "Tried to allocate a collection of size {count}, but there are only {remaining} bytes remaining."
        )));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let at = 10 + i * 46;
        let e = bytes.get(at..at + 46).ok_or_else(|| schema_err("null"))?;
        entries.push(ProducerEntry {
            producer_id: read_i64(e, 0).unwrap_or_default(),
            epoch: e
                .get(8..10)
                .and_then(|b| b.try_into().ok())
                .map_or(0, i16::from_be_bytes),
            last_sequence: read_i32(e, 10).unwrap_or_default(),
            last_offset: read_i64(e, 14).unwrap_or_default(),
            offset_delta: read_i32(e, 22).unwrap_or_default(),
            timestamp: read_i64(e, 26).unwrap_or_default(),
            coordinator_epoch: read_i32(e, 34).unwrap_or_default(),
            current_txn_first_offset: read_i64(e, 38).unwrap_or_default(),
        });
    }
    let computed = crate::record::crc32c(bytes.get(6..).unwrap_or_default());
    if crc != computed {
        return Err(format!(
            "Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. Computed crc: {computed}"
        ));
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_paths() {
        assert_eq!(java_path("a//b/"), "a/b");
        assert_eq!(java_path("/"), "/");
        assert_eq!(file_name("a/b.log"), "b.log");
        assert_eq!(prefix("0001.log.deleted"), "0001");
    }

    #[test]
    fn snapshot_names() {
        assert_eq!(
            parse_snapshot_name("00000000000000014459-0000000001.checkpoint"),
            Some((14459, 1))
        );
        assert_eq!(parse_snapshot_name("x.checkpoint"), None);
    }

    #[test]
    fn sequences_wrap() {
        assert_eq!(decrement_sequence(5, 2), 3);
        assert_eq!(decrement_sequence(0, 1), i32::MAX);
    }
}
