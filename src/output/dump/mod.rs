//! `kafka-dump-log.sh` (DumpLogSegments): every file kind it reads, walked into typed events
//! ([`DumpEvent`]) that a printer shows as Kafka's exact lines or as JSON Lines.
//!
//! The dump reads each file through the storage library (`log::SegmentReader` for `.log` and
//! `.checkpoint`, `log::index` for `.index`/`.timeindex`, `log::producer_state` for
//! `.snapshot`, `log::txn_index` for `.txnindex`) and hands what it finds, entries and problems
//! alike, to one `Printer` (`printer.rs`): the text printer writes Kafka's lines and, after
//! all files, Kafka's summaries; the JSON printer writes each event as one object
//! (`docs/json.md`). The command (`kafkit dump-log-segments`) is a thin layer over
//! [`dump_files`].
//!
//! * `log.rs`: `.log` and `.checkpoint` (batches, records, decoders, control records);
//! * `index.rs`: `.index` and `.timeindex`, checked against their log;
//! * `snapshot.rs`, `txn_index.rs`: producer snapshots and transaction indexes;
//! * `checkpoint.rs`: KRaft snapshot names;
//! * `event.rs`, `text.rs`, `printer.rs`: the events and their two printers.

mod checkpoint;
mod event;
mod index;
mod log;
mod printer;
mod snapshot;
mod text;
mod txn_index;

use std::io::{self, Write};
use std::path::PathBuf;

pub use event::{
    Batch, Contents, Control, DumpEvent, FileKind, Header, IndexStatus, Problem, ProblemKind,
    ProducerEntry, RecordEvent, Summary,
};
pub use text::optional_long;

use crate::output::progress::Progress;
use crate::output::OutputFormat;
use printer::{JsonPrinter, Printer};
use text::TextPrinter;

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

impl Parser {
    fn of(args: &DumpOptions) -> Self {
        if args.offsets_decoder {
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
        }
    }
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

/// Dumps `files` (paths as given on the command line) as Kafka's DumpLogSegments does: in text,
/// Kafka's lines to `out` and diagnostics and summaries to `err`; in JSON, one object per event
/// to `out` (`err` is not written). I/O errors of `out`/`err` (a closed pipe) end the dump.
pub fn dump_files<W: Write, E: Write>(
    args: &DumpOptions,
    files: &[&str],
    format: OutputFormat,
    out: W,
    err: E,
    progress: Option<&mut dyn Progress>,
) -> io::Result<Outcome> {
    match format {
        OutputFormat::Text => dump_with(
            args,
            files,
            TextPrinter::new(out, err, args.skip_record_metadata),
            progress,
        ),
        OutputFormat::Json => dump_with(args, files, JsonPrinter::new(out), progress),
    }
}

fn dump_with<P: Printer>(
    args: &DumpOptions,
    files: &[&str],
    printer: P,
    progress: Option<&mut dyn Progress>,
) -> io::Result<Outcome> {
    let print_data = args.print_data_log
        || args.offsets_decoder
        || args.transaction_log_decoder
        || args.cluster_metadata_decoder
        || args.key_decoder.is_some()
        || args.value_decoder.is_some();
    let mut d = Dumper {
        args,
        print_data,
        deep: args.deep_iteration || print_data,
        parser: Parser::of(args),
        printer,
        cwd: std::env::current_dir().unwrap_or_default(),
        display: String::new(),
        absolute: String::new(),
        summary: Summary::default(),
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
    d.summary.ok = !d.wrong;
    let problems = d.summary.problems;
    d.printer
        .print(&DumpEvent::Summary(std::mem::take(&mut d.summary)))?;
    d.printer.finish()?;
    Ok(Outcome {
        failed: d.failed,
        wrong: d.wrong,
        problems,
    })
}

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

/// The walk over the files: what it read and found so far, and the printer it hands events to.
struct Dumper<'a, 'p, P: Printer> {
    args: &'a DumpOptions,
    print_data: bool,
    deep: bool,
    parser: Parser,
    printer: P,
    cwd: PathBuf,
    /// The file being dumped, as given (Java-normalised) and as an absolute path.
    display: String,
    absolute: String,
    /// Counts so far; `ok` is filled in at the end.
    summary: Summary,
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

impl<P: Printer> Dumper<'_, '_, P> {
    /// Prints an event about the file being dumped.
    fn emit(&mut self, event: &DumpEvent<'_>) -> io::Result<()> {
        self.printer.print(event)
    }

    /// Reports a problem with the file being dumped. `fatal` problems are those Kafka's tool
    /// fails on.
    fn problem(
        &mut self,
        position: Option<u64>,
        kind: ProblemKind,
        message: String,
        fatal: bool,
    ) -> io::Result<()> {
        self.summary.problems += 1;
        self.wrong = true;
        self.failed |= fatal;
        self.report(position, kind, message, fatal)
    }

    /// Reports what Kafka's tool lists in its summaries (index mismatches, time-index errors,
    /// offset gaps): counted apart, never fatal. Offset gaps are wrong only in a log that is
    /// not compacted, which the caller decides.
    fn finding(
        &mut self,
        position: Option<u64>,
        kind: ProblemKind,
        message: String,
    ) -> io::Result<()> {
        match kind {
            ProblemKind::IndexMismatch { .. } => {
                self.summary.index_mismatches += 1;
                self.wrong = true;
            }
            ProblemKind::NonConsecutiveOffsets { .. } => self.summary.non_consecutive_offsets += 1,
            _ => {
                self.summary.time_index_errors += 1;
                self.wrong = true;
            }
        }
        self.report(position, kind, message, false)
    }

    fn report(
        &mut self,
        position: Option<u64>,
        kind: ProblemKind,
        message: String,
        fatal: bool,
    ) -> io::Result<()> {
        self.printer.print(&DumpEvent::Problem(Problem {
            file: &self.display,
            kind,
            position,
            message,
            fatal,
        }))
    }

    /// Dumps one file, by its kind.
    fn dump_file(&mut self, arg: &str) -> io::Result<()> {
        self.display = java_path(arg);
        self.absolute = if self.display.starts_with('/') {
            self.display.clone()
        } else {
            java_path(&format!("{}/{}", self.cwd.display(), self.display))
        };
        self.summary.files += 1;
        let name = file_name(&self.display).to_string();
        let kind = FileKind::of(&name);
        self.printer.print(&DumpEvent::File {
            file: &self.display,
            kind,
            absolute: &self.absolute,
        })?;
        let path = PathBuf::from(&self.display);
        match kind {
            FileKind::Log | FileKind::Checkpoint => self.dump_log(&path, &name),
            FileKind::Index => self.dump_index(&path, &name),
            FileKind::TimeIndex => self.dump_time_index(&path, &name),
            FileKind::Snapshot => self.dump_producer_snapshot(&path),
            FileKind::TxnIndex => self.dump_txn_index(),
            FileKind::Unknown => self.printer.print(&DumpEvent::Ignored {
                file: &self.display,
            }),
        }
    }

    /// The base offset Kafka parses from the file name; a fatal problem when there is none.
    fn base_offset(&mut self, name: &str) -> io::Result<Option<i64>> {
        match prefix(name).parse::<i64>() {
            Ok(v) => Ok(Some(v)),
            Err(_) => {
                let msg = format!(
                    "the file name does not start with a base offset (For input string: \"{}\")",
                    prefix(name)
                );
                self.problem(None, ProblemKind::BadFileName, msg, true)?;
                Ok(None)
            }
        }
    }

    /// An I/O error on the file being dumped, after which it is not read further.
    fn io_problem(&mut self, position: Option<u64>, message: String) -> io::Result<()> {
        self.problem(position, ProblemKind::Io, message, true)
    }
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
    fn file_kinds_by_the_last_suffix() {
        assert_eq!(FileKind::of("0.log"), FileKind::Log);
        assert_eq!(FileKind::of("0.log.deleted"), FileKind::Unknown);
        assert_eq!(FileKind::of("0.timeindex"), FileKind::TimeIndex);
        assert_eq!(FileKind::of("leader-epoch-checkpoint"), FileKind::Unknown);
    }
}
