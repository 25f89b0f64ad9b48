//! `kafkit produce` (alias `console-producer`): Kafka's `kafka-console-producer.sh` writing to a
//! topic of the data directory (`kafka-cli-surface.md` §4).
//!
//! Lines follow Kafka's `LineMessageReader` rules; `--input json` reads the JSON Lines that
//! `consume --output json` prints. Text mode prints nothing on success, as Kafka's tool.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::ValueHint;

use super::signals::StopSignals;
use super::values::Suggest;
use super::{properties, stderrln, usage_error, Example, Exit, GlobalArgs, QuietStderr};
use crate::progress;
use kafkit::client::console::{
    ConsoleProduceError, ConsoleProducer, ConsoleProducerOptions, RecordReader,
};
use kafkit::client::producer::{kafka_exception, Destination};
use kafkit::client::{configs, partition_error, Acks, LineFormat, PartitionerKind, ProducerConfig};
use kafkit::cluster::replication::{replicate, LeaderWriters};
use kafkit::datadir::config::ConfigKey;
use kafkit::datadir::is_cluster_dir;
use kafkit::datadir::names::CLUSTER_METADATA_TOPIC;
use kafkit::datadir::{DataDir, PartitionInfo, PartitionWriter, Topic, TopicConfigs, TopicSource};
use kafkit::log::CompressionPolicy;
use kafkit::net::produce::{ClusterSink, DEFAULT_MAX_IN_FLIGHT};
use kafkit::output::progress::Progress;
use kafkit::output::{log4j, OutputFormat};
use kafkit::record::Compression;

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
    /// On a local cluster: print to stderr, before producing, the producer's metadata lookup
    /// (each partition's leader, listener and leader epoch), the broker each partition's
    /// batches go to, and the NOT_LEADER_OR_FOLLOWER redirect when the leader it cached at the
    /// last produce has moved.
    #[arg(long)]
    pub explain: bool,
    /// A line reader property, name=value; repeatable: parse.key, key.separator,
    /// parse.headers, headers.delimiter, headers.separator, headers.key.separator, null.marker,
    /// ignore.error. Other names are warned about.
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub property: Vec<String>,
    /// A producer config, name=value; repeatable. Used: acks, batch.size, compression.type,
    /// linger.ms, max.request.size, and with --bootstrap-server enable.idempotence,
    /// max.in.flight.requests.per.connection and the connection and security configs
    /// (accepted and ignored for --data-dir); other names are warned about (Kafka's "supplied
    /// but are not used yet").
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub producer_property: Vec<String>,
    /// A properties file of line reader properties; --property wins over it.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub reader_config: Option<PathBuf>,
    /// A properties file of producer configs; --producer-property wins over it.
    #[arg(long = "producer.config", value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub producer_config: Option<PathBuf>,
    /// The brokers to send the records to, `HOST:PORT[,HOST:PORT...]`, instead of writing
    /// them to --data-dir (client properties from --producer.config and --producer-property,
    /// with Kafka's names: acks, enable.idempotence, request.timeout.ms, ...).
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
    /// The producer properties (file, then `--producer-property`), for a cluster's client.
    props: Vec<(String, String)>,
}

/// The logger Kafka's `AbstractConfig.logUnused` logs the producer's unused configs with.
const PRODUCER_CONFIG: &str = "org.apache.kafka.clients.producer.ProducerConfig";
/// kafkit warns about the line reader's unknown properties in the same words, as its reader's.
const LINE_MESSAGE_READER: &str = "org.apache.kafka.tools.LineMessageReader";
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
            .map_err(|e| Exit::failure(kafka_exception(&e.to_string())))?;
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
        let n = configs::number(key, raw).map_err(|e| Exit::failure(e.to_string()))?;
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
    let linger_ms = configs::number(&configs::LINGER_MS, linger_raw)
        .map_err(|e| Exit::failure(e.to_string()))?;
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
            let used = configs::PRODUCER_CONFIGS_USED.contains(name)
                || configs::PRODUCER_CONFIGS_FOR_A_BROKER.contains(name)
                || (args.bootstrap_server.is_some() && *name == "enable.idempotence");
            !used
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
        props: producer_props,
    })
}

/// The data directory's topic, the writer of its partitions and the codec (`--compression-codec`,
/// else the topic's `compression.type`).
fn local(
    global: &GlobalArgs,
    topic_name: &str,
    codec: Option<Compression>,
    acks: Acks,
) -> Result<(Destination, Topic, Compression)> {
    if is_cluster_dir(&global.data_dir) {
        // A local cluster: each partition's leader takes its records (cluster::replication).
        let (writers, topic) = LeaderWriters::open(&global.data_dir, topic_name, acks == Acks::All)
            .map_err(|e| Exit::failure(e.to_string()))?;
        let compression = codec.unwrap_or(match topic.log_config().compression {
            CompressionPolicy::Fixed(c) => c,
            CompressionPolicy::Producer => Compression::None,
        });
        return Ok((writers.into(), topic, compression));
    }
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
    let writer = PartitionWriter::new(&datadir)?;
    Ok((writer.into(), topic, compression))
}

/// The cluster's topic (the broker may create it) and its leaders, with an idempotent
/// producer id unless `enable.idempotence=false` (or `acks` other than all without
/// `enable.idempotence` set, as Kafka turns it off then); the codec is the producer's
/// (`compression.type`, default none: the broker applies the topic's).
fn remote(
    args: &Args,
    global: &GlobalArgs,
    servers: &str,
    topic_name: &str,
    codec: Option<Compression>,
    acks: Acks,
    props: &[(String, String)],
) -> Result<(Destination, Topic, Compression)> {
    let cluster = super::net::cluster(
        "produce",
        servers,
        args.producer_config.as_deref(),
        &args.producer_property,
        global,
        "console-producer",
    )?;
    let idempotence = props
        .iter()
        .rev()
        .find(|(k, _)| k == "enable.idempotence")
        .map(|(_, v)| v.trim().to_ascii_lowercase());
    let idempotent = match (idempotence.as_deref(), acks) {
        (Some("false"), _) | (None, Acks::None | Acks::Leader) => false,
        (Some("true"), Acks::None | Acks::Leader) => {
            return Err(Exit::failure(
                "org.apache.kafka.common.config.ConfigException: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.",
            )
            .into())
        }
        _ => true,
    };
    // Kafka checks it whenever idempotence is on by default or by choice, even where acks
    // then turn idempotence off.
    let max_in_flight = props
        .iter()
        .rev()
        .find(|(k, _)| k == configs::MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION.name)
        .map_or(
            configs::MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION.default,
            |(_, v)| v.as_str(),
        );
    let max_in_flight = configs::number(
        &configs::MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
        max_in_flight,
    )
    .map_err(|e| Exit::failure(e.to_string()))?;
    if idempotence.as_deref() != Some("false") && max_in_flight > DEFAULT_MAX_IN_FLIGHT as i64 {
        return Err(Exit::failure(format!(
            "org.apache.kafka.common.config.ConfigException: To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is {max_in_flight}."
        ))
        .into());
    }
    let acks = match acks {
        Acks::None => 0,
        Acks::Leader => 1,
        Acks::All => -1,
    };
    let sink = ClusterSink::open(cluster, topic_name, acks, idempotent)
        .map_err(|e| Exit::failure(super::net::message(&e)))?
        .with_max_in_flight(usize::try_from(max_in_flight).unwrap_or(DEFAULT_MAX_IN_FLIGHT));
    let topic = Topic {
        name: topic_name.to_string(),
        id: None,
        partitions: (0..sink.partitions())
            .map(|id| PartitionInfo {
                id,
                replicas: Vec::new(),
            })
            .collect(),
        configs: TopicConfigs::default(),
        source: TopicSource::Cluster,
    };
    Ok((sink.into(), topic, codec.unwrap_or(Compression::None)))
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
        props,
    } = settings(args)?;
    for warning in &unused {
        stderrln!("{warning}");
    }
    // From here on SIGINT, SIGTERM and SIGHUP end the run as they end Kafka's (its shutdown
    // hook closes the producer): every record read so far is written, then the exit code is
    // 128 + the signal's number.
    let signals = StopSignals::catch()?;
    if args.explain && (args.bootstrap_server.is_some() || !is_cluster_dir(&global.data_dir)) {
        return Err(usage_error(
            "produce",
            format!(
                "Option --explain needs a local cluster as --data-dir ({} is not one; make one with `kafkit cluster init`)",
                global.data_dir.display()
            ),
        ));
    }

    let (destination, topic, compression) = match &args.bootstrap_server {
        None => local(global, topic_name, codec, acks)?,
        Some(servers) => remote(args, global, servers, topic_name, codec, acks, &props)?,
    };
    if let Some(p) = args.partition {
        if let Some(message) = partition_error(p, topic.partition_count() as i32, true) {
            return Err(Exit::failure(message).into());
        }
    }
    if args.explain {
        for line in super::explain::explain(&global.data_dir, &topic.name, args.partition)? {
            stderrln!("{line}");
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
    let interactive = args.file.is_none() && io::stdin().is_terminal();
    let options = ConsoleProducerOptions {
        reader: match args.input {
            InputFormat::Text => RecordReader::Lines(format),
            InputFormat::Json => RecordReader::Json,
        },
        partition: args.partition,
        interactive,
        report_written: global.output == OutputFormat::Json,
    };
    let partitioner = args.partitioner.build(args.partitioner_seed);
    // Kafka's callback logs a refused record and the producer goes on: a stderr that cannot
    // show it changes nothing ([`QuietStderr`]).
    let diagnostics = Arc::new(|message: &str| stderrln!("{message}"));
    let producer = ConsoleProducer::new(
        destination,
        topic.clone(),
        partitioner,
        config,
        options,
        Box::new(io::stdout()),
        diagnostics,
    );

    let show_progress = !global.quiet
        && QuietStderr::is_terminal()
        && (global.output == OutputFormat::Text || !io::stdout().is_terminal());
    let (input, input_fd, progress) = open_input(args, show_progress)?;
    let mut bar = progress.map(progress::Bar);
    let summary = producer
        .run(
            input,
            &mut signals.input(input_fd),
            bar.as_mut().map(|bar| bar as &mut dyn Progress),
        )
        .map_err(|e| match e {
            // Every record accepted is written; what stopped the run and what writing failed
            // with are said as Kafka's tool says them.
            ConsoleProduceError::Failed { .. } => Exit::failure(e.to_string()).into(),
            ConsoleProduceError::Output(e) => anyhow::Error::from(e),
        })?;
    if args.bootstrap_server.is_none() && is_cluster_dir(&global.data_dir) {
        // acks=all: the in-sync followers fetch before the run ends; acks 0 and 1 leave them
        // behind until a replication step. The high watermarks move either way.
        replicate(
            &global.data_dir,
            Some(std::slice::from_ref(&topic.name)),
            acks == Acks::All,
        )
        .map_err(|e| Exit::failure(format!("Error: {e}")))?;
        // The producer's metadata view now, for the next run's --explain.
        super::explain::remember(&global.data_dir, &topic.name)?;
    }
    if let Some(exit) = signals.exit() {
        return Err(exit.into());
    }
    if summary.refused > 0 {
        // With --sync the refusal ended the run, as the Java client's exception ends Kafka's
        // tool: its exception said it. Otherwise the producer went on, as Kafka's does, and a
        // script learns from the exit code and the count that not all was written (kcat's way).
        let message = if args.sync {
            String::new()
        } else {
            format!(
                "Could not write {} of {} records to topic {}",
                summary.refused, summary.records, topic.name
            )
        };
        return Err(Exit { message, code: 1 }.into());
    }
    Ok(())
}
