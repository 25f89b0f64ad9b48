//! `kafkit dump-log-segments` (alias `dump-log`): Kafka's `kafka-dump-log.sh`.
//!
//! Prints segments (`.log`), KRaft snapshots (`.checkpoint`), offset and time indexes, producer
//! snapshots and transaction indexes line for line as Kafka's DumpLogSegments does (its Java
//! port where it fixed the 4.0 tool's quirks), with the same summaries on stderr. Where Kafka
//! would stop with a stack trace, this names the file and byte position and goes on.
//!
//! Exit status: 0, or 1 when a file could not be dumped where Kafka's tool fails too (missing
//! file, corrupt entry framing, undecodable records); with `--strict`, 3 when anything was found
//! wrong (bad CRC, invalid trailing bytes, index mismatches, time-index errors, non-consecutive
//! offsets in a log that shows no sign of compaction).

use std::io::{self, BufWriter};

use anyhow::Result;
use clap::ValueHint;

use super::{Example, Exit, GlobalArgs, QuietStderr};
use kafkit::output::dump::{dump_files, expand_directories, BytesDecoder, DumpOptions};
use kafkit::output::progress::Progress;

use crate::progress::{self, Bar};

/// Examples of `kafkit dump-log-segments`, in its help and man page (`tests/man.rs` runs them, in order, in
/// an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic of one partition and ten records:",
        line: "kafkit topics --create --topic demo && seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "Dump its segment's batches:",
        line: "kafkit dump-log-segments --files kafka-logs/demo-0/00000000000000000000.log",
    },
    Example {
        what: "Dump its records and their values:",
        line: "kafkit dump-log-segments --files kafka-logs/demo-0/00000000000000000000.log --print-data-log",
    },
    Example {
        what: "Dump every segment and index of the partition as JSON Lines:",
        line: "kafkit dump-log-segments --files kafka-logs/demo-0 --output json",
    },
    Example {
        what: "Check the offset index against the log, exiting with 3 if anything is wrong:",
        line: "kafkit dump-log-segments --files kafka-logs/demo-0/00000000000000000000.index --verify-index-only --strict",
    },
];

/// Dump Kafka log segments, indexes, producer snapshots, transaction indexes and KRaft
/// snapshots, as Kafka's `kafka-dump-log.sh` prints them.
#[derive(Debug, clap::Args)]
#[command(
    visible_alias = "dump-log",
    after_long_help = "Exit status: 0 when every file was dumped (bad CRCs, invalid trailing bytes and \
index mismatches are reported but, as in Kafka, do not change it); 1 when a file could not be \
dumped where Kafka's tool fails too (missing file, impossible entry framing such as a \
zero-filled tail, undecodable records), after dumping everything else; 3 with --strict when \
anything was found wrong.\n\nWith --output json, problems are JSON lines on stdout (see \
docs/json.md); otherwise they are printed on stderr as `Problem in <file> at byte <position>: \
<what>`, and Kafka's summaries (index mismatches, time-index errors, non-consecutive offsets) \
follow on stderr after all files."
)]
pub struct Args {
    /// REQUIRED: The comma separated list of data and index log files to be dumped. A partition
    /// directory stands for its segment files, in offset order.
    #[arg(long, value_name = "file1, file2, ...", value_hint = ValueHint::FilePath)]
    pub files: Option<String>,
    /// If set, printing the messages content when dumping data logs. Automatically set if any
    /// decoder option is specified.
    #[arg(long)]
    pub print_data_log: bool,
    /// If set, just verify the index log without printing its content.
    #[arg(long)]
    pub verify_index_only: bool,
    /// If set, just checks the index sanity without printing its content. This is the same
    /// check that is executed on broker startup to determine if an index needs rebuilding or
    /// not.
    #[arg(long)]
    pub index_sanity_check: bool,
    /// Size of largest message.
    #[arg(long, value_name = "size", allow_negative_numbers = true, default_value_t = 5 * 1024 * 1024,
          value_parser = clap::value_parser!(i64).range(0..=i64::from(i32::MAX)),
        value_hint = ValueHint::Other,
    )]
    pub max_message_size: i64,
    /// Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).
    #[arg(long, value_name = "size", allow_negative_numbers = true, default_value_t = i64::from(i32::MAX),
          value_parser = clap::value_parser!(i64).range(0..=i64::from(i32::MAX)),
        value_hint = ValueHint::Other,
    )]
    pub max_bytes: i64,
    /// If set, uses deep instead of shallow iteration. Automatically set if print-data-log is
    /// enabled.
    #[arg(long)]
    pub deep_iteration: bool,
    /// How to print record keys (in place of Kafka's --key-decoder-class).
    #[arg(long, value_parser = crate::values::bytes_decoder(), value_name = "DECODER")]
    pub key_decoder: Option<BytesDecoder>,
    /// How to print record values (in place of Kafka's --value-decoder-class).
    #[arg(long, value_parser = crate::values::bytes_decoder(), value_name = "DECODER")]
    pub value_decoder: Option<BytesDecoder>,
    /// If set, log data will be parsed as offset data from the __consumer_offsets topic.
    #[arg(long)]
    pub offsets_decoder: bool,
    /// If set, log data will be parsed as transaction metadata from the __transaction_state
    /// topic.
    #[arg(long)]
    pub transaction_log_decoder: bool,
    /// If set, log data will be parsed as cluster metadata records.
    #[arg(long)]
    pub cluster_metadata_decoder: bool,
    /// Skip metadata when printing records. This flag also skips control records.
    #[arg(long)]
    pub skip_record_metadata: bool,
    /// Exit with status 3 when anything is wrong: a bad CRC, invalid trailing bytes, an index
    /// entry that does not match the log, time-index errors, or non-consecutive offsets in a
    /// log that shows no sign of compaction.
    #[arg(long)]
    pub strict: bool,
}

/// Runs the command.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let format = global.output;
    if args.files.is_none() {
        let mut help = super::command();
        let help = help
            .find_subcommand_mut("dump-log-segments")
            .map(|c| c.render_help().to_string())
            .unwrap_or_default();
        return Err(Exit::failure(format!("Missing required argument \"[files]\"\n{help}")).into());
    }
    let list = file_list(args);
    let progress = if global.progress_wanted() {
        progress_bar(&list)
    } else {
        None
    };
    let stdout = io::stdout();
    let files: Vec<&str> = list.iter().map(String::as_str).collect();
    let mut bar = progress.map(Bar);
    let outcome = dump_files(
        &args.options(),
        &files,
        format,
        BufWriter::with_capacity(1 << 16, stdout.lock()),
        QuietStderr,
        bar.as_mut().map(|b| b as &mut dyn Progress),
    )?;
    if let Some(Bar(p)) = bar {
        p.finish_and_clear();
    }
    if outcome.failed {
        return Err(Exit {
            message: String::new(),
            code: 1,
        }
        .into());
    }
    if args.strict && outcome.wrong {
        return Err(Exit {
            message: String::new(),
            code: 3,
        }
        .into());
    }
    Ok(())
}

/// `--files`, split as Java's `String.split(",")` does (trailing empty items dropped), a
/// directory standing for its segment files in offset order.
fn file_list(args: &Args) -> Vec<String> {
    let mut list: Vec<&str> = args
        .files
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .collect();
    while list.len() > 1 && list.last() == Some(&"") {
        list.pop();
    }
    expand_directories(&list)
}

impl Args {
    fn options(&self) -> DumpOptions {
        DumpOptions {
            print_data_log: self.print_data_log,
            verify_index_only: self.verify_index_only,
            index_sanity_check: self.index_sanity_check,
            max_message_size: self.max_message_size,
            max_bytes: self.max_bytes,
            deep_iteration: self.deep_iteration,
            key_decoder: self.key_decoder,
            value_decoder: self.value_decoder,
            offsets_decoder: self.offsets_decoder,
            transaction_log_decoder: self.transaction_log_decoder,
            cluster_metadata_decoder: self.cluster_metadata_decoder,
            skip_record_metadata: self.skip_record_metadata,
        }
    }
}

/// A bar of the files' bytes, for large or many files.
fn progress_bar(files: &[String]) -> Option<indicatif::ProgressBar> {
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    if total < progress::DUMP_MIN_BYTES && files.len() < progress::DUMP_MIN_FILES {
        return None;
    }
    Some(progress::bytes(total))
}
