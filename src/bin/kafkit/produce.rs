//! `kafkit produce` (alias `console-producer`): Kafka's `kafka-console-producer.sh` writing to a
//! topic of the data directory (`kafka-cli-surface.md` §4).
//!
//! Lines follow Kafka's `LineMessageReader` rules; `--input json` reads the JSON Lines that
//! `consume --output json` prints. Text mode prints nothing on success, as Kafka's tool.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::ValueHint;
use serde_json::{json, Value};

use super::signals::{StopSignals, Wake};
use super::values::Suggest;
use super::{properties, stderrln, usage_error, Example, Exit, GlobalArgs, QuietStderr};
use crate::progress;
use kafkit::client::producer::kafka_exception;
use kafkit::client::{
    configs, partition_error, Acks, Event, LineFormat, Lines, PartitionerKind, ProduceError,
    Producer, ProducerConfig,
};
use kafkit::datadir::config::ConfigKey;
use kafkit::datadir::names::CLUSTER_METADATA_TOPIC;
use kafkit::datadir::{now_ms, DataDir, PartitionWriter};
use kafkit::log::CompressionPolicy;
use kafkit::output::json::bytes_from_value;
use kafkit::output::json::write_typed_line;
use kafkit::output::{log4j, OutputFormat};
use kafkit::record::{Compression, Header, NO_TIMESTAMP};

/// Examples of `kafkit produce`, in its help and man page (`tests/man.rs` runs them, in order, in
/// an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic to write to:",
        line: "kafkit topics --create --topic demo --partitions 3",
    },
    Example {
        what: "Write ten records, one a line of standard input:",
        line: "seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "Write keyed records (key, a tab, value):",
        line: "printf 'alice\\tcreated\\nbob\\tpaid\\n' | kafkit produce --topic demo --property parse.key=true",
    },
    Example {
        what: "Load a file, compressed with zstd, leaving flushing to the system (acks 1):",
        line: "seq 1 100000 > lines.txt && kafkit produce --topic demo --file lines.txt --compression-codec zstd --acks 1",
    },
    Example {
        what: "Write what `consume --output json` printed, and report each write as JSON:",
        line: "kafkit consume --topic demo --from-beginning --max-messages 2 --output json | kafkit produce --topic demo --input json --output json",
    },
];

/// Write records to a topic from lines of text or JSON (Kafka's kafka-console-producer.sh).
///
/// Each line of standard input (or --file) becomes one record. With `--property parse.key=true`
/// a line is `key<TAB>value`; with `parse.headers=true`, `h1:v1,h2:v2<TAB>...`.
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// The topic to produce messages to.
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// Read lines from this file instead of standard input (a progress bar shows on a
    /// terminal).
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub file: Option<PathBuf>,
    /// The input format: Kafka's text lines, or the JSON Lines of `consume --output json`
    /// (key, value, headers, timestamp and partition are used).
    #[arg(long, value_enum, default_value_t = InputFormat::Text)]
    pub input: InputFormat,
    /// Write every record to this partition instead of asking the partitioner.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_hint = ValueHint::Other)]
    pub partition: Option<i32>,
    /// How records without --partition are spread: default = keyed by murmur2, unkeyed sticky
    /// (Kafka 3.3+); round-robin; random; murmur2 = keyed by murmur2, unkeyed rotating
    /// (Kafka before 2.4).
    #[arg(long, value_parser = crate::values::partitioner(), default_value = "default")]
    pub partitioner: PartitionerKind,
    /// Seed of the random choices of the default and random partitioners (reproducible runs).
    #[arg(long, value_name = "SEED", value_hint = ValueHint::Other)]
    pub partitioner_seed: Option<u64>,
    /// Batch size in bytes (batch.size, default 16384): a batch is written when the next
    /// record would not fit.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_hint = ValueHint::Other)]
    pub batch_size: Option<i32>,
    /// Also batch.size; wins over --batch-size when both are given, as in Kafka.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_hint = ValueHint::Other)]
    pub max_partition_memory_bytes: Option<i32>,
    /// The compression codec: none, gzip, snappy, lz4 or zstd. Given without a value: gzip.
    /// Default: the topic's compression.type (none when it is `producer`).
    #[arg(long, value_name = "CODEC", num_args = 0..=1, default_missing_value = "gzip", value_parser = Suggest::new(Compression::ALL.map(Compression::name)), hide_possible_values = true)]
    pub compression_codec: Option<String>,
    /// The acknowledgements the producer requires: 0, 1, or all (= -1, Kafka's default). With
    /// all, a record is acknowledged once an fsync covers it; the fsyncs run while appends go
    /// on, each covering every batch written meanwhile (group commit). With 0 or 1, as on a
    /// broker, flushing is left
    /// to the topic's flush.messages / flush.ms, segment rolls and the operating system, also
    /// when the run ends: a crash of the machine can lose what was written since the last
    /// flush (the next writer then cuts any torn tail).
    #[arg(
        long,
        visible_alias = "acks",
        value_name = "ACKS",
        allow_hyphen_values = true,
        value_parser = Suggest::new(["all", "1", "0", "-1"]), hide_possible_values = true,
    )]
    pub request_required_acks: Option<String>,
    /// Send records synchronously: each record is its own batch, fsynced before the next.
    #[arg(long)]
    pub sync: bool,
    /// A line reader property, name=value; repeatable: parse.key, key.separator,
    /// parse.headers, headers.delimiter, headers.separator, headers.key.separator, null.marker,
    /// ignore.error. Other names are warned about.
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub property: Vec<String>,
    /// A producer config, name=value; repeatable. Used: acks, batch.size, compression.type,
    /// linger.ms, max.request.size; Kafka's connection and security configs are accepted and
    /// ignored; other names are warned about (Kafka's "supplied but are not used yet").
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub producer_property: Vec<String>,
    /// A properties file of line reader properties; --property wins over it.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub reader_config: Option<PathBuf>,
    /// A properties file of producer configs; --producer-property wins over it.
    #[arg(long = "producer.config", value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub producer_config: Option<PathBuf>,
    /// Accepted for compatibility with kafka-console-producer.sh and ignored: kafkit writes to
    /// --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// The class reading the input: Kafka's org.apache.kafka.tools.LineMessageReader (the
    /// default) is the one there is (--input json reads consume's JSON Lines instead).
    #[arg(long, value_name = "CLASS", value_parser = Suggest::new([LINE_MESSAGE_READER]), hide_possible_values = true)]
    pub line_reader: Option<String>,
    /// How long a batch waits for more records before it is written, in ms (linger.ms; default
    /// 1000, Kafka's console producer's): a record of a quiet input is written this long after
    /// it is read, not at the end of the input.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_hint = ValueHint::Other)]
    pub timeout: Option<i64>,
    /// Accepted and ignored (network settings of kafka-console-producer.sh).
    #[arg(long, value_name = "N", hide = true)]
    pub message_send_max_retries: Option<String>,
    /// Accepted and ignored.
    #[arg(long, value_name = "MS", hide = true)]
    pub retry_backoff_ms: Option<String>,
    /// Accepted and ignored.
    #[arg(long, value_name = "MS", hide = true)]
    pub request_timeout_ms: Option<String>,
    /// Accepted and ignored.
    #[arg(long, value_name = "MS", hide = true)]
    pub metadata_expiry_ms: Option<String>,
    /// Accepted and ignored.
    #[arg(long, value_name = "MS", hide = true)]
    pub max_block_ms: Option<String>,
    /// Accepted and ignored.
    #[arg(long, value_name = "BYTES", hide = true)]
    pub max_memory_bytes: Option<String>,
    /// Accepted and ignored.
    #[arg(long, value_name = "BYTES", hide = true)]
    pub socket_buffer_size: Option<String>,
}

/// What each input line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum InputFormat {
    /// Kafka's console-producer lines.
    #[default]
    Text,
    /// JSON Lines as `consume --output json` prints them.
    Json,
}

fn invalid_config(value: &str, name: &str, allowed: &str) -> anyhow::Error {
    Exit::failure(format!(
        "org.apache.kafka.common.config.ConfigException: Invalid value {value} for configuration {name}: String must be one of: {allowed}"
    ))
    .into()
}

/// What the arguments and property files ask for, validated before the data directory is
/// touched.
struct Settings {
    format: LineFormat,
    acks: Acks,
    batch_size: usize,
    max_request_size: usize,
    linger: Duration,
    codec: Option<Compression>,
    /// Warnings about the properties and configs supplied but not used.
    unused: Vec<String>,
}

/// The logger Kafka's `AbstractConfig.logUnused` logs the producer's unused configs with.
const PRODUCER_CONFIG: &str = "org.apache.kafka.clients.producer.ProducerConfig";
/// kafkit warns about the line reader's unknown properties in the same words, as its reader's.
const LINE_MESSAGE_READER: &str = "org.apache.kafka.tools.LineMessageReader";
/// The logger of kafkit's own warnings about the console producer's input.
const PRODUCE_INPUT: &str = "kafkit.cli.produce";
/// Kafka's console producer's `--timeout` default, its `linger.ms`.
const CONSOLE_LINGER_MS: &str = "1000";

fn settings(args: &Args) -> Result<Settings> {
    if let Some(class) = args
        .line_reader
        .as_deref()
        .filter(|c| *c != "org.apache.kafka.tools.LineMessageReader")
    {
        return Err(usage_error(
            "produce",
            format!("The line reader {class} is not available: kafkit produce has Kafka's org.apache.kafka.tools.LineMessageReader (and --input json)."),
        ));
    }
    let reader_props = properties(args.reader_config.as_deref(), &args.property)?;
    let format =
        LineFormat::from_properties(reader_props.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(|e| Exit::failure(kafka_exception(&e.0)))?;
    let producer_props = properties(args.producer_config.as_deref(), &args.producer_property)?;
    let producer_prop = |name: &str| {
        producer_props
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let acks_text = args
        .request_required_acks
        .as_deref()
        .or(producer_prop("acks"))
        .unwrap_or("-1");
    let acks =
        Acks::parse(acks_text).ok_or_else(|| invalid_config(acks_text, "acks", "all, -1, 0, 1"))?;
    // Sizes are INTs of at least 0. --max-partition-memory-bytes wins over --batch-size, which
    // wins over batch.size (Kafka merges the options into the properties as text).
    let size = |key: &ConfigKey, option: Option<i32>| -> Result<usize> {
        let raw = option.map(|n| n.to_string());
        let raw = raw
            .as_deref()
            .or(producer_prop(key.name))
            .unwrap_or(key.default);
        let n = configs::number(key, raw).map_err(Exit::failure)?;
        Ok(usize::try_from(n).unwrap_or(0))
    };
    let batch_size = size(
        &configs::BATCH_SIZE,
        args.max_partition_memory_bytes.or(args.batch_size),
    )?;
    let max_request_size = size(&configs::MAX_REQUEST_SIZE, None)?;
    // --timeout wins over linger.ms, whose default here is the console producer's.
    let timeout = args.timeout.map(|ms| ms.to_string());
    let linger_raw = timeout
        .as_deref()
        .or(producer_prop(configs::LINGER_MS.name))
        .unwrap_or(CONSOLE_LINGER_MS);
    let linger_ms = configs::number(&configs::LINGER_MS, linger_raw).map_err(Exit::failure)?;
    let linger = Duration::from_millis(u64::try_from(linger_ms).unwrap_or(0));
    let codec = match args
        .compression_codec
        .as_deref()
        .or(producer_prop("compression.type"))
    {
        Some(name) => Some(Compression::from_name(name).ok_or_else(|| {
            invalid_config(name, "compression.type", "none, gzip, snappy, lz4, zstd")
        })?),
        None => None,
    };
    let unused_reader = reader_props
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !LineFormat::PROPERTIES.contains(name));
    let unused_producer = producer_props
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| {
            !configs::PRODUCER_CONFIGS_USED.contains(name)
                && !configs::PRODUCER_CONFIGS_FOR_A_BROKER.contains(name)
        });
    let unused = [
        (configs::unused_message(unused_producer), PRODUCER_CONFIG),
        (configs::unused_message(unused_reader), LINE_MESSAGE_READER),
    ]
    .into_iter()
    .filter_map(|(message, logger)| Some(log4j::line("WARN", &message?, logger)))
    .collect();
    Ok(Settings {
        format,
        acks,
        batch_size,
        max_request_size,
        linger,
        codec,
        unused,
    })
}

/// The input read, its file descriptor (to wait for it) and a progress bar.
type Input = (Box<dyn Read>, RawFd, Option<indicatif::ProgressBar>);

/// Standard input or --file, and a progress bar for a file when stderr is a terminal.
fn open_input(args: &Args, show_progress: bool) -> Result<Input> {
    let Some(path) = &args.file else {
        let stdin = io::stdin();
        let fd = stdin.as_raw_fd();
        return Ok((Box::new(stdin.lock()), fd, None));
    };
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let fd = file.as_raw_fd();
    // Nothing is printed on stdout in text mode: the bar is drawn even when stdout is the
    // terminal too (not when it carries --output json).
    let progress = match file.metadata() {
        Ok(meta) if show_progress => Some(progress::bytes(meta.len())),
        _ => None,
    };
    Ok((Box::new(file), fd, progress))
}

/// Runs `kafkit produce`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let Some(topic_name) = args.topic.as_deref() else {
        return Err(usage_error(
            "produce",
            "Missing required argument \"[topic]\"",
        ));
    };
    let Settings {
        format,
        acks,
        batch_size,
        max_request_size,
        linger,
        codec,
        unused,
    } = settings(args)?;
    for warning in &unused {
        stderrln!("{warning}");
    }
    // From here on SIGINT, SIGTERM and SIGHUP end the run as they end Kafka's (its shutdown
    // hook closes the producer): every record read so far is written, then the exit code is
    // 128 + the signal's number.
    let signals = StopSignals::catch()?;

    let datadir = DataDir::open(&global.data_dir)?;
    let topic = datadir.topic(topic_name)?.ok_or_else(|| {
        let hint = if topic_name == CLUSTER_METADATA_TOPIC {
            "it is a KRaft controller's metadata log, not a topic".to_string()
        } else {
            format!("create it with `kafkit topics --create --topic {topic_name}`")
        };
        Exit::failure(format!(
            "Topic {topic_name} not present in metadata: it does not exist in {} ({hint})",
            global.data_dir.display()
        ))
    })?;
    let compression = codec.unwrap_or(match topic.log_config().compression {
        CompressionPolicy::Fixed(c) => c,
        CompressionPolicy::Producer => Compression::None,
    });
    if let Some(p) = args.partition {
        if let Some(message) = partition_error(p, topic.partition_count() as i32, true) {
            return Err(Exit::failure(message).into());
        }
    }
    let config = ProducerConfig {
        batch_size,
        compression,
        acks,
        sync: args.sync,
        max_request_size,
        linger,
    };
    let json_out = global.output == OutputFormat::Json;
    let writer = PartitionWriter::new(&datadir)?;
    let partitioner = args.partitioner.build(args.partitioner_seed);
    let reporter = Reporter::new(&topic.name, args.sync);
    // The sender thread reports each write as it is acknowledged, while this thread may be
    // waiting for input.
    let acknowledge = {
        let reporter = reporter.clone();
        Box::new(move |events: &[Event]| reporter.print(events))
    };
    let mut producer = Producer::with_callback(
        writer,
        topic.clone(),
        partitioner,
        config,
        Some(acknowledge),
    )
    .report_written(json_out);

    let show_progress = !global.quiet
        && QuietStderr::is_terminal()
        && (global.output == OutputFormat::Text || !io::stdout().is_terminal());
    let (input, input_fd, progress) = open_input(args, show_progress)?;
    let interactive = args.file.is_none() && io::stdin().is_terminal();

    // Reads of 256 KiB: each block is parsed while it is still in the core's cache.
    let mut lines = Lines::new(input, 256 << 10);
    let whole_line_values = args.input == InputFormat::Text && format.whole_line_is_value();
    if whole_line_values {
        // A line longer than max.request.size cannot be sent: it is read through, not held.
        lines = lines.with_max_line(max_request_size);
    }
    // The records the input gave the producer (those it refused included).
    let mut records: u64 = 0;
    let mut headers: Vec<Header> = Vec::new();
    let mut stop: Option<String> = None;
    // CreateTime of text records: the clock is read when input arrives and every 64 lines,
    // not once per line (a clock read costs as much as parsing a line). With the read count
    // it was taken at.
    let mut clock = (u64::MAX, 0i64);
    // Lines that are whole values, not flushed one by one: the complete lines of each block
    // read go to the producer in one call, which reads the clock for each batch it starts;
    // the line that ends a block, or a lone `\r`, takes the path of a single line below, which
    // reads on.
    let by_block = whole_line_values && !args.sync && !interactive;
    loop {
        if by_block {
            let before = lines.line_count();
            let mut block = lines.buffered().peekable();
            // A call only when there is a line for it (not before each line of input whose lines
            // end with a lone `\r`).
            if block.peek().is_some() {
                let mut stamped = clock.1;
                let stamp = || {
                    stamped = now_ms();
                    stamped
                };
                let sent = producer.send_values(args.partition, stamp, block.map(Some));
                // The lines after these are stamped no earlier than these were.
                clock = (lines.reads(), stamped);
                if let Err(e) = sent {
                    stop = Some(e.to_string());
                    break;
                }
                // One record a line, all of them sent.
                records += lines.line_count() - before;
                reporter.report_new(&mut producer);
                if let Some(bar) = &progress {
                    bar.set_position(lines.consumed());
                }
            }
        }
        if interactive {
            reporter.prompt();
        }
        // Before the input is read (which may block), what is due goes to the log.
        let mut waited = Ok(());
        let next = lines.advance_with(|| match wait_for_input(&mut producer, &signals, input_fd) {
            Ok(read_on) => read_on,
            Err(e) => {
                waited = Err(e);
                false
            }
        });
        if let Err(e) = waited {
            stop = Some(e);
            break;
        }
        let line = match next {
            Ok(Some(range)) => range,
            Ok(None) => break,
            Err(e) => {
                stop = Some(format!("reading the input: {e}"));
                break;
            }
        };
        if let Some(length) = lines.dropped_line() {
            producer.refuse_unread_value(args.partition, length);
            records += 1;
            reporter.report_new(&mut producer);
            continue;
        }
        let line_number = lines.line_count();
        if clock.0 != lines.reads() || line_number.is_multiple_of(64) || interactive {
            clock = (lines.reads(), now_ms());
        }
        let now = clock.1;
        let line = lines.line(line);
        let sent = match args.input {
            InputFormat::Text => match format.parse(line, line_number, &mut headers) {
                Ok(parsed) => {
                    producer.send(args.partition, now, parsed.key, parsed.value, &headers)
                }
                Err(e) => {
                    stop = Some(kafka_exception(&e.0));
                    break;
                }
            },
            InputFormat::Json => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match json_record(line, line_number) {
                    Ok(r) => match producer.send(
                        args.partition.or(r.partition),
                        r.timestamp.unwrap_or(now),
                        r.key.as_deref(),
                        r.value.as_deref(),
                        &r.headers,
                    ) {
                        // The record's own timestamp or partition: say which line it is.
                        Err(
                            e @ (ProduceError::InvalidTimestamp(_)
                            | ProduceError::InvalidPartition(_)),
                        ) => {
                            stop = Some(format!(
                                "Invalid JSON record on line number {line_number}: {e}"
                            ));
                            break;
                        }
                        sent => sent,
                    },
                    Err(message) => {
                        stop = Some(message);
                        break;
                    }
                }
            }
        };
        if let Err(e) = sent {
            stop = Some(e.to_string());
            break;
        }
        records += 1;
        if args.sync || interactive {
            if let Err(e) = producer.flush() {
                stop = Some(e.to_string());
                break;
            }
        }
        reporter.report_new(&mut producer);
        if reporter.refused() > 0 && args.sync {
            break;
        }
        if let Some(bar) = &progress {
            if line_number.is_multiple_of(65_536) {
                bar.set_position(lines.consumed());
            }
        }
    }
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    // As Java's readLine had not returned it, the start of a line is no record.
    if let Some(signal) = signals.caught_name().filter(|_| lines.cut() > 0) {
        let message = format!(
            "The input was cut by {signal} in the middle of a line: the {} bytes read of it were not sent.",
            lines.cut()
        );
        stderrln!("{}", log4j::line("WARN", &message, PRODUCE_INPUT));
    }
    // Whatever was accepted before a bad line or a signal is written and durable, as Kafka's
    // shutdown hook closes the producer. What the sender reported is printed even when writing
    // failed.
    let mut errors: Vec<String> = stop.into_iter().collect();
    let mut note = |e: kafkit::client::ProduceError| {
        // A failed write stops the sender, and every later call reports it: say each once.
        for message in e.to_string().lines() {
            if !errors.iter().any(|m| m.lines().any(|l| l == message)) {
                errors.push(message.to_string());
            }
        }
    };
    if let Err(e) = producer.flush() {
        note(e);
    }
    let refused: Vec<Event> = producer.take_events().collect();
    reporter.print(&refused);
    match producer.close() {
        Ok(events) => reporter.print(&events),
        Err(e) => note(e),
    }
    if !errors.is_empty() {
        return Err(Exit::failure(errors.join("\n")).into());
    }
    // The logs are closed: a stdout that failed can be said now (a closed one is no error: it
    // stopped the report, not the run).
    if let Some(e) = reporter.output_error() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    if let Some(exit) = signals.exit() {
        return Err(exit.into());
    }
    let refused = reporter.refused();
    if refused > 0 {
        // With --sync the refusal ended the run, as the Java client's exception ends Kafka's
        // tool: its exception said it. Otherwise the producer went on, as Kafka's does, and a
        // script learns from the exit code and the count that not all was written (kcat's way).
        let message = if args.sync {
            String::new()
        } else {
            format!(
                "Could not write {refused} of {records} records to topic {}",
                topic.name
            )
        };
        return Err(Exit { message, code: 1 }.into());
    }
    Ok(())
}

/// Called before the input is read, which may block: hands the sealed batches to the sender,
/// with the open ones that have waited their linger time, and waits for input no longer than
/// the next open batch's linger time at a time. False when the run is to end instead: a stop
/// signal, or a closed standard output.
fn wait_for_input(
    producer: &mut Producer,
    signals: &StopSignals,
    input: RawFd,
) -> Result<bool, String> {
    loop {
        let deadline = producer.send_lingered().map_err(|e| e.to_string())?;
        match signals
            .wait_readable(input, deadline)
            .map_err(|e| format!("reading the input: {e}"))?
        {
            Wake::Input => return Ok(true),
            Wake::Signal => return Ok(false),
            Wake::Deadline => {}
        }
    }
}

/// Prints what happened to records: JSON lines for written ones on stdout (`--output json`),
/// Kafka's log lines for refused ones on stderr. The sender thread prints each acknowledged
/// write through it as it happens ([`Producer::with_callback`]), this thread the records the
/// producer refused itself; stdout is flushed after each call, so a script reading it sees
/// each acknowledgement at once.
#[derive(Clone)]
struct Reporter {
    shared: Arc<ReporterState>,
}

struct ReporterState {
    topic: String,
    sync: bool,
    /// How many records were refused.
    refused: AtomicU64,
    /// Standard output failed (a closed pipe): nothing more is printed there, and the run
    /// ends.
    output: Mutex<Option<io::Error>>,
    output_closed: AtomicBool,
}

impl Reporter {
    fn new(topic: &str, sync: bool) -> Self {
        Self {
            shared: Arc::new(ReporterState {
                topic: topic.to_string(),
                sync,
                refused: AtomicU64::new(0),
                output: Mutex::new(None),
                output_closed: AtomicBool::new(false),
            }),
        }
    }

    fn refused(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// The console producer's prompt, before it waits for a line from a terminal.
    fn prompt(&self) {
        if self.output_closed() {
            return;
        }
        let mut out = io::stdout().lock();
        if let Err(e) = out.write_all(b">").and_then(|()| out.flush()) {
            self.close_output(e);
        }
    }

    /// Nothing more goes to stdout after its first failure, which is kept to be said at the end.
    fn close_output(&self, error: io::Error) {
        let state = &self.shared;
        state.output_closed.store(true, Ordering::Relaxed);
        state
            .output
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_or_insert(error);
    }

    fn output_closed(&self) -> bool {
        self.shared.output_closed.load(Ordering::Relaxed)
    }

    /// The error that closed standard output, if it failed.
    fn output_error(&self) -> Option<io::Error> {
        self.shared
            .output
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Reports what the producer learnt since the last call: cheap after every record.
    fn report_new(&self, producer: &mut Producer) {
        if producer.may_have_events() {
            let events: Vec<Event> = producer.take_events().collect();
            self.print(&events);
        }
    }

    /// Prints `events`: the written records' lines on stdout with one write, then flushed.
    fn print(&self, events: &[Event]) {
        let state = &self.shared;
        let mut lines = Vec::new();
        for event in events {
            match event {
                Event::Written(m) => {
                    // Writing to a vector does not fail.
                    let _ = write_typed_line(
                        &mut lines,
                        json!({
                            "type": "produced",
                            "topic": state.topic,
                            "partition": m.partition,
                            "offset": m.offset,
                            "timestamp": m.timestamp,
                        }),
                    );
                }
                Event::Failed(f) => {
                    state.refused.fetch_add(1, Ordering::Relaxed);
                    self.print_failure(f);
                }
            }
        }
        if lines.is_empty() || self.output_closed() {
            return;
        }
        let mut out = io::stdout().lock();
        if let Err(e) = out.write_all(&lines).and_then(|()| out.flush()) {
            self.close_output(e);
        }
    }

    fn print_failure(&self, f: &kafkit::client::SendFailure) {
        let size = |n: i32| {
            if n < 0 {
                "null".to_string()
            } else {
                format!("{n} bytes")
            }
        };
        // Kafka's callback logs the error and the producer goes on: a stderr that cannot show
        // it changes nothing ([`QuietStderr`]).
        if !self.shared.sync {
            stderrln!(
                "{}",
                log4j::line(
                    "ERROR",
                    &format!(
                        "Error when sending message to topic {} with key: {}, value: {} with error: ",
                        self.shared.topic,
                        size(f.key_size),
                        size(f.value_size)
                    ),
                    "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback"
                )
            );
        }
        stderrln!("{}", f.error);
    }
}

/// A record read from a JSON line.
struct JsonRecord {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<Header>,
    timestamp: Option<i64>,
    partition: Option<i32>,
}

/// Reads one line of `consume --output json` output (other fields are ignored).
fn json_record(line: &[u8], line_number: u64) -> std::result::Result<JsonRecord, String> {
    let bad = |what: String| format!("Invalid JSON record on line number {line_number}: {what}");
    let value: Value = serde_json::from_slice(line).map_err(|e| bad(e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(bad("expected an object".to_string()));
    };
    let bytes = |name: &str| match obj.get(name) {
        None => Ok(None),
        Some(v) => bytes_from_value(v).map_err(|e| bad(format!("\"{name}\": {e}"))),
    };
    let key = bytes("key")?;
    let value = bytes("value")?;
    let mut headers = Vec::new();
    match obj.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                let (k, v) = match item {
                    Value::Object(h) => (h.get("key"), h.get("value")),
                    Value::Array(pair) if pair.len() == 2 => (pair.first(), pair.get(1)),
                    _ => (None, None),
                };
                let Some(Value::String(k)) = k else {
                    return Err(bad(
                        "each header needs a string \"key\" and a \"value\"".to_string()
                    ));
                };
                let v = bytes_from_value(v.unwrap_or(&Value::Null))
                    .map_err(|e| bad(format!("header \"{k}\": {e}")))?;
                headers.push(Header {
                    key: k.clone(),
                    value: v,
                });
            }
        }
        Some(_) => return Err(bad("\"headers\" must be a list".to_string())),
    }
    let int = |name: &str| match obj.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| bad(format!("\"{name}\" must be an integer"))),
    };
    // -1 is what consume prints for a record without a timestamp (Kafka's NO_TIMESTAMP: magic 0,
    // or an older producer's record): copied as a record sent without one, stamped now, as
    // MirrorMaker copies it. Any other negative timestamp is refused by the producer, as Kafka's
    // ProducerRecord refuses it.
    let timestamp = int("timestamp")?.filter(|&t| t != NO_TIMESTAMP);
    let partition = match int("partition")? {
        Some(p) => Some(i32::try_from(p).map_err(|_| bad("\"partition\" is out of range".into()))?),
        None => None,
    };
    Ok(JsonRecord {
        key,
        value,
        headers,
        timestamp,
        partition,
    })
}
