//! `kafkit consume` (alias `console-consumer`): Kafka's `kafka-console-consumer.sh` reading a
//! topic of the data directory without its lock (`kafka-cli-surface.md` §5).
//!
//! With `--partition` it reads that partition (assign mode) from `--offset`; without it, every
//! partition of the topic (or of the topics `--include` matches). It keeps following new
//! records until `--max-messages` records were printed or no record came for `--timeout-ms`.

use std::io::{self, BufWriter, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::ValueHint;
use indicatif::ProgressBar;

use super::signals::{self, StopSignals};
use super::values::Suggest;
use super::{properties, stderrln, usage_error, Example, Exit, GlobalArgs};
use crate::client::offsets::offset_range;
use crate::client::{configs, ConsumeError, IsolationLevel, PartitionConsumer};
use crate::datadir::checkpoint::LOG_START_OFFSET_CHECKPOINT;
use crate::datadir::{DataDir, OffsetCheckpoint, TopicFilter, TopicPartition};
use crate::output::deserializer::Deserializer;
use crate::output::json::write_typed_line;
use crate::output::message::{record_json, DeserializerIssue, FormatError, Formatter, MessageView};
use crate::output::{log4j, progress, OutputFormat};

/// Examples of `kafkit consume`, in its help and man page (`tests/man.rs` runs them, in order, in
/// an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic of ten records to read:",
        line: "kafkit topics --create --topic demo --partitions 3 && seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "Read it from the beginning, ending after ten records:",
        line: "kafkit consume --topic demo --from-beginning --max-messages 10",
    },
    Example {
        what: "Show each record's partition, offset and timestamp too:",
        line: "kafkit consume --topic demo --from-beginning --max-messages 10 --property print.partition=true --property print.offset=true --property print.timestamp=true",
    },
    Example {
        what: "Read the topics a regular expression matches, as JSON Lines:",
        line: "kafkit consume --include 'de.*' --from-beginning --max-messages 3 --output json",
    },
    Example {
        what: "Read one partition from its start until nothing comes for half a second:",
        line: "kafkit consume --topic demo --partition 0 --offset earliest --timeout-ms 500",
    },
];

/// Read records from a topic (Kafka's kafka-console-consumer.sh).
///
/// Prints each record's value (or more with `--property print.key=true` ...), one per line.
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// The topic to consume on.
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// Regular expression specifying list of topics to include for consumption.
    #[arg(long, value_name = "REGEX", value_hint = ValueHint::Other)]
    pub include: Option<String>,
    /// The partition to consume from. Consumption starts from the end of the partition unless
    /// '--offset' is specified.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub partition: Option<i32>,
    /// The offset to consume from (a non-negative number), or 'earliest' which means from
    /// beginning, or 'latest' which means from end.
    #[arg(long, value_name = "OFFSET", allow_hyphen_values = true, value_parser = Suggest::new(["earliest", "latest"]), hide_possible_values = true)]
    pub offset: Option<String>,
    /// Start with the earliest message present in the log rather than the latest message.
    #[arg(long)]
    pub from_beginning: bool,
    /// The maximum number of messages to consume before exiting. If not set, consumption is
    /// continual (as with -1; any other negative number consumes none, as in Kafka).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_hint = ValueHint::Other)]
    pub max_messages: Option<i32>,
    /// If specified, exit if no message is available for consumption for the specified
    /// interval (a negative one: no limit, as in Kafka).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_hint = ValueHint::Other)]
    pub timeout_ms: Option<i64>,
    /// Set to read_committed in order to filter out transactional messages which are not
    /// committed. Set to read_uncommitted to read all messages.
    #[arg(long, value_enum, default_value_t = IsolationLevel::ReadUncommitted)]
    pub isolation_level: IsolationLevel,
    /// Consumer groups are not supported yet (a later version); rejected with a message.
    #[arg(long, value_name = "GROUP", value_hint = ValueHint::Other)]
    pub group: Option<String>,
    /// A message formatter property, name=value; repeatable: print.timestamp, print.key,
    /// print.value, print.partition, print.offset, print.headers, print.epoch, print.delivery,
    /// key.separator, line.separator, headers.separator, null.literal, key.deserializer,
    /// value.deserializer, headers.deserializer. Text output only.
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub property: Vec<String>,
    /// A consumer config, name=value; repeatable. Used: isolation.level, auto.offset.reset,
    /// metadata.max.age.ms, exclude.internal.topics (group.id is refused).
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub consumer_property: Vec<String>,
    /// Print `shutdown_complete` on stdout when the consumer ends, as Kafka's does for its system
    /// tests (its shutdown hook; it runs however the consumer ended, once it had started).
    #[arg(long)]
    pub enable_systest_events: bool,
    /// If there is an error when processing a message, skip it instead of halting.
    #[arg(long)]
    pub skip_message_on_error: bool,
    /// The class to deserialize keys with before printing them (Kafka's
    /// org.apache.kafka.common.serialization.*Deserializer: String, Short, Integer, Long, Float,
    /// Double, Boolean, UUID, Bytes, ByteBuffer, Void), printed as on Java 19+; the
    /// key.deserializer property.
    #[arg(long, value_name = "CLASS", value_parser = Suggest::new(Deserializer::ALL.map(Deserializer::class_name)), hide_possible_values = true)]
    pub key_deserializer: Option<String>,
    /// The class to deserialize values with before printing them (as --key-deserializer); the
    /// value.deserializer property. headers.deserializer (--property) does header values.
    #[arg(long, value_name = "CLASS", value_parser = Suggest::new(Deserializer::ALL.map(Deserializer::class_name)), hide_possible_values = true)]
    pub value_deserializer: Option<String>,
    /// The formatter (org.apache.kafka.tools.consumer.*): DefaultMessageFormatter (the default),
    /// LoggingMessageFormatter, NoOpMessageFormatter, and for internal topics
    /// OffsetsMessageFormatter, GroupMetadataMessageFormatter, TransactionLogMessageFormatter
    /// (the JSON of Kafka's 4.0 line at commit 1eb7644, the dump goldens' reference: later releases
    /// label the key's version "type"; no newline after a record; they take no --property nor
    /// deserializer). Text output only: --output json prints its own objects.
    #[arg(long, value_name = "CLASS", value_parser = Suggest::new(Formatter::CLASSES.map(|c| format!("org.apache.kafka.tools.consumer.{c}"))), hide_possible_values = true)]
    pub formatter: Option<String>,
    /// A properties file of formatter properties; --property wins over it.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub formatter_config: Option<std::path::PathBuf>,
    /// A properties file of consumer configs; --consumer-property wins over it.
    #[arg(long = "consumer.config", value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub consumer_config: Option<std::path::PathBuf>,
    /// Accepted for compatibility with kafka-console-consumer.sh and ignored: kafkit reads
    /// --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
}

/// Where a partition starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Earliest,
    Latest,
    At(i64),
}

fn parse_offset(text: &str) -> Option<Start> {
    if text.eq_ignore_ascii_case("earliest") {
        Some(Start::Earliest)
    } else if text.eq_ignore_ascii_case("latest") {
        Some(Start::Latest)
    } else {
        text.parse::<i64>().ok().filter(|n| *n >= 0).map(Start::At)
    }
}

/// Kafka's validation, in Kafka's order (`ConsoleConsumerOptions`).
fn validate(args: &Args) -> Result<Start> {
    if args.topic.is_some() == args.include.is_some() {
        return Err(usage_error(
            "consume",
            "Exactly one of --include/--topic is required. ",
        ));
    }
    if args.partition.is_some() && args.topic.is_none() {
        return Err(usage_error(
            "consume",
            "The topic is required when partition is specified.",
        ));
    }
    if args.partition.is_some() && args.from_beginning && args.offset.is_some() {
        return Err(usage_error(
            "consume",
            "Options from-beginning and offset cannot be specified together.",
        ));
    }
    if args.offset.is_some() && args.partition.is_none() {
        return Err(usage_error(
            "consume",
            "The partition is required when offset is specified.",
        ));
    }
    let consumer_props = properties(args.consumer_config.as_deref(), &args.consumer_property)?;
    let group_property = consumer_props.iter().any(|(k, _)| k == "group.id");
    if args.group.is_some() || group_property {
        return Err(Exit::failure(
            "Consumer groups are not supported yet: kafkit consume reads without a group. Drop --group (or group.id) and use --partition N --offset ..., or --from-beginning.",
        )
        .into());
    }
    match &args.offset {
        Some(text) => parse_offset(text).ok_or_else(|| {
            usage_error(
                "consume",
                format!("The provided offset value '{text}' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long."),
            )
        }),
        None if args.from_beginning => Ok(Start::Earliest),
        None => Ok(Start::Latest),
    }
}

/// What the arguments and the property files ask for, validated.
struct Settings {
    start: Start,
    /// auto.offset.reset; `None` is the policy `none`.
    reset: Option<Start>,
    isolation: IsolationLevel,
    formatter: Formatter,
    /// metadata.max.age.ms: how often a subscription looks for partitions added to its topics
    /// (and, with --include, for new topics that match).
    metadata_max_age: Duration,
    /// exclude.internal.topics: --include leaves out `__consumer_offsets` and the other internal
    /// topics (Kafka's default), unless this is false.
    exclude_internal: bool,
    /// check.crcs: a batch whose checksum does not match ends the run.
    check_crcs: bool,
}

/// The logger of Kafka's console consumer, as its log lines name it.
const CONSOLE_CONSUMER: &str = "org.apache.kafka.tools.consumer.ConsoleConsumer";

/// An ERROR line of Kafka's tool logging, with the exception's first line under it.
fn error_lines(message: &str, logger: &str, exception: &str) -> String {
    format!("{}\n{exception}", log4j::line("ERROR", message, logger))
}

/// [`error_lines`] on stderr.
fn log_error(message: &str, logger: &str, exception: &str) {
    stderrln!("{}", error_lines(message, logger, exception));
}

/// Runs `kafkit consume`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let settings = settings(args, global)?;
    let datadir = DataDir::open(&global.data_dir)?;
    let mut backlog = 0;
    let mut consumers = open_partitions(
        subscribed(args, global, &datadir, &settings)?,
        &datadir,
        &settings,
        &mut backlog,
    )?;
    // The records to read up to the partitions' ends as they are now (an upper bound: offsets
    // of control records and compacted-away records count), or --max-messages if fewer.
    let expected = match max_messages(args) {
        Some(limit) => limit.min(backlog),
        None => backlog,
    };
    let mut progress = (global.progress_wanted() && expected >= progress::CONSUME_MIN_RECORDS)
        .then(|| progress::records(expected));
    // Ctrl-C, SIGTERM and SIGHUP end the loop instead of the process, so the consumer still
    // prints `Processed a total of N messages`, as Kafka's shutdown hook does.
    let signals = StopSignals::catch()?;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut total: u64 = 0;
    let outcome = consume_loop(
        args,
        global,
        &datadir,
        &settings,
        &mut consumers,
        &mut out,
        &mut total,
        &mut progress,
    )
    .and_then(|()| out.flush().map_err(Into::into));
    if let Some(bar) = progress.take() {
        bar.finish_and_clear();
    }
    if args.enable_systest_events {
        // A closed pipe is no error here, as it is none for the records.
        let _ = out
            .write_all(b"shutdown_complete\n")
            .and_then(|()| out.flush());
    }
    match outcome {
        Err(e) if is_broken_pipe(&e) => {
            stderrln!("Unable to write to standard out, closing consumer.");
            stderrln!("Processed a total of {total} messages");
            Ok(())
        }
        Err(e) => {
            stderrln!("Processed a total of {total} messages");
            Err(e)
        }
        Ok(()) => {
            stderrln!("Processed a total of {total} messages");
            // Ended by a signal, as the JVM reports it: 128 + the signal number.
            match signals.exit() {
                None => Ok(()),
                Some(exit) => Err(exit.into()),
            }
        }
    }
}

/// Validation, then the consumer and formatter properties (files first, arguments win).
fn settings(args: &Args, global: &GlobalArgs) -> Result<Settings> {
    let mut start = validate(args)?;
    let consumer_props = properties(args.consumer_config.as_deref(), &args.consumer_property)?;
    let prop = |name: &str| {
        consumer_props
            .iter()
            .rfind(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let isolation = match prop("isolation.level") {
        Some(raw) => {
            match configs::string(&configs::ISOLATION_LEVEL, raw).map_err(Exit::failure)? {
                level if level == "read_committed" => IsolationLevel::ReadCommitted,
                _ => IsolationLevel::ReadUncommitted,
            }
        }
        None => args.isolation_level,
    };
    // auto.offset.reset: where a partition without a valid position starts (Kafka's
    // --from-beginning sets it to earliest).
    let explicit_reset = prop("auto.offset.reset");
    if let Some(value) = explicit_reset.filter(|v| *v != "earliest") {
        if args.from_beginning {
            return Err(Exit::failure(format!(
                "Can't simultaneously specify --from-beginning and 'auto.offset.reset={value}', please remove one option"
            ))
            .into());
        }
    }
    let explicit_reset = explicit_reset
        .map(|raw| configs::string(&configs::AUTO_OFFSET_RESET, raw))
        .transpose()
        .map_err(Exit::failure)?;
    let reset = match explicit_reset.as_deref() {
        Some("earliest") => Some(Start::Earliest),
        Some("none") => None,
        Some(_) => Some(Start::Latest),
        None if args.from_beginning => Some(Start::Earliest),
        None => Some(Start::Latest),
    };
    if args.partition.is_none() {
        // Subscribe mode without a group: no committed offsets, the reset policy decides.
        start = reset.unwrap_or(Start::At(-1));
    }
    let key = &configs::METADATA_MAX_AGE_MS;
    let ms = configs::number(key, prop(key.name).unwrap_or(key.default)).map_err(Exit::failure)?;
    // Validated as at least 0.
    let metadata_max_age = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    let key = &configs::EXCLUDE_INTERNAL_TOPICS;
    let exclude_internal =
        configs::boolean(key, prop(key.name).unwrap_or(key.default)).map_err(Exit::failure)?;
    let key = &configs::CHECK_CRCS;
    let check_crcs =
        configs::boolean(key, prop(key.name).unwrap_or(key.default)).map_err(Exit::failure)?;
    // The formatter's properties: the file, then --key-deserializer and --value-deserializer,
    // then --property (Kafka's formatterArgs).
    let mut formatter_props = properties(args.formatter_config.as_deref(), &[])?;
    for (name, class) in [
        ("key.deserializer", &args.key_deserializer),
        ("value.deserializer", &args.value_deserializer),
    ] {
        if let Some(class) = class.as_deref().filter(|c| !c.is_empty()) {
            formatter_props.push((name.to_string(), class.to_string()));
        }
    }
    formatter_props.extend(properties(None, &args.property)?);
    let class = args
        .formatter
        .as_deref()
        .unwrap_or("org.apache.kafka.tools.consumer.DefaultMessageFormatter");
    let Some(formatter) = Formatter::new(
        class,
        formatter_props
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    ) else {
        return Err(usage_error(
            "consume",
            format!(
                "The formatter {class} is not available: kafkit consume has Kafka's {} and {} (and --output json).",
                Formatter::CLASSES[..Formatter::CLASSES.len() - 1].join(", "),
                Formatter::CLASSES[Formatter::CLASSES.len() - 1],
            ),
        ));
    };
    // The formatter shapes the text output only; --output json does not load it.
    let issues = match global.output {
        OutputFormat::Json => &[][..],
        OutputFormat::Text => formatter.deserializer_issues(),
    };
    for issue in issues {
        match issue {
            DeserializerIssue::Unavailable(why) => {
                return Err(Exit::failure(format!("kafkit consume: {why}")).into())
            }
            // Kafka's formatter logs the class it cannot load and prints the bytes as they are.
            DeserializerIssue::NotLoaded { class, exception } => log_error(
                &format!("Unable to instantiate a deserializer from {class}"),
                "org.apache.kafka.tools.consumer.DefaultMessageFormatter",
                exception,
            ),
        }
    }
    Ok(Settings {
        start,
        reset,
        isolation,
        formatter,
        metadata_max_age,
        exclude_internal,
        check_crcs,
    })
}

/// The partitions to read: one in assign mode, else every partition of the matching topics.
fn subscribed(
    args: &Args,
    global: &GlobalArgs,
    datadir: &DataDir,
    settings: &Settings,
) -> Result<Vec<TopicPartition>> {
    let mut partitions: Vec<TopicPartition> = Vec::new();
    if let Some(name) = &args.topic {
        let topic = datadir.topic(name)?.ok_or_else(|| {
            Exit::failure(format!(
                "Topic {name} does not exist in {}",
                global.data_dir.display()
            ))
        })?;
        match args.partition {
            Some(p) if p < 0 || p as usize >= topic.partition_count() => {
                return Err(Exit::failure(format!(
                    "Partition {p} of topic {name} does not exist (the topic has {} partitions)",
                    topic.partition_count()
                ))
                .into())
            }
            Some(p) => partitions.push(TopicPartition::new(name.clone(), p)),
            None => partitions.extend(topic.topic_partitions()),
        }
    } else if let Some(regex) = &args.include {
        let filter = TopicFilter::new(regex).map_err(|e| Exit::failure(e.to_string()))?;
        for topic in datadir.topics()? {
            // Kafka's IncludeList: internal topics only with exclude.internal.topics=false.
            if filter.matches(&topic.name) && !(settings.exclude_internal && topic.is_internal()) {
                partitions.extend(topic.topic_partitions());
            }
        }
    }
    Ok(partitions)
}

/// A consumer for each of `partitions`, positioned where the settings say.
/// `backlog` grows by the records from each consumer's start to its partition's end.
fn open_partitions(
    partitions: Vec<TopicPartition>,
    datadir: &DataDir,
    settings: &Settings,
    backlog: &mut u64,
) -> Result<Vec<(TopicPartition, PartitionConsumer)>> {
    let log_starts =
        OffsetCheckpoint::read(&datadir.root_file(LOG_START_OFFSET_CHECKPOINT)).unwrap_or_default();
    let mut consumers = Vec::new();
    let mut undefined: Vec<String> = Vec::new();
    for tp in partitions {
        let dir = datadir.partition_dir(&tp);
        let checkpointed = log_starts.get(&tp).copied().unwrap_or(0);
        let range = offset_range(&dir, checkpointed)?;
        let earliest = range.start;
        // An end that cannot be read (a corrupt last batch) is needed only to start there: a
        // read from before it serves the records up to the damage, then reports it.
        let in_range = |n: i64| n >= earliest && range.end.as_ref().map_or(true, |&end| n <= end);
        let end = range.end.as_ref().ok().copied();
        let offset = match (settings.start, settings.reset) {
            (Start::Earliest, _) => earliest,
            (Start::At(n), _) if in_range(n) => n,
            (Start::At(_), Some(Start::Earliest)) => earliest,
            // Latest, or out of range with auto.offset.reset latest.
            (Start::Latest, _) | (Start::At(_), Some(_)) => range.end?,
            (Start::At(_), None) => {
                undefined.push(tp.to_string());
                continue;
            }
        };
        if let Some(end) = end {
            *backlog += u64::try_from(end - offset).unwrap_or(0);
        }
        let consumer = PartitionConsumer::new(dir, offset, settings.isolation)
            .with_check_crcs(settings.check_crcs);
        consumers.push((tp, consumer));
    }
    if !undefined.is_empty() {
        return Err(Exit::failure(format!(
            "org.apache.kafka.clients.consumer.NoOffsetForPartitionException: Undefined offset with no reset policy for partitions: [{}]",
            undefined.join(", ")
        ))
        .into());
    }
    Ok(consumers)
}

/// A subscription's refresh (Kafka's metadata refresh, every metadata.max.age.ms): partitions
/// added to its topics since, and with --include topics created since that match, join it,
/// positioned by auto.offset.reset as Kafka positions a newly assigned partition without a
/// committed offset.
fn add_new_partitions(
    args: &Args,
    global: &GlobalArgs,
    datadir: &DataDir,
    settings: &Settings,
    consumers: &mut Vec<(TopicPartition, PartitionConsumer)>,
) -> Result<()> {
    let new: Vec<TopicPartition> = subscribed(args, global, datadir, settings)?
        .into_iter()
        .filter(|tp| !consumers.iter().any(|(known, _)| known == tp))
        .collect();
    if !new.is_empty() {
        consumers.extend(open_partitions(new, datadir, settings, &mut 0)?);
    }
    Ok(())
}

/// Prints records, partition after partition (at most 500 each per round, Kafka's
/// max.poll.records), until --max-messages, --timeout-ms without a record, or a signal.
#[allow(clippy::too_many_arguments)] // the run's state, owned by `run`, which reports it after
fn consume_loop(
    args: &Args,
    global: &GlobalArgs,
    datadir: &DataDir,
    settings: &Settings,
    consumers: &mut Vec<(TopicPartition, PartitionConsumer)>,
    out: &mut impl Write,
    total: &mut u64,
    progress: &mut Option<ProgressBar>,
) -> Result<()> {
    let json = global.output == OutputFormat::Json;
    // Kafka's: a negative timeout is none; -1 messages (or none given) is no limit, another
    // negative count stops before the first record.
    let timeout = args
        .timeout_ms
        .and_then(|ms| u64::try_from(ms).ok())
        .map(Duration::from_millis);
    let limit = max_messages(args);
    let reached = |total: u64| limit.is_some_and(|max| total >= max);
    let mut last_record = Instant::now();
    let mut last_refresh = Instant::now();
    loop {
        if signals::caught().is_some() || reached(*total) {
            return Ok(());
        }
        if args.partition.is_none() && last_refresh.elapsed() >= settings.metadata_max_age {
            add_new_partitions(args, global, datadir, settings, consumers)?;
            last_refresh = Instant::now();
        }
        let mut got = 0u64;
        let mut gone: Vec<TopicPartition> = Vec::new();
        for (tp, consumer) in consumers.iter_mut() {
            for _ in 0..500 {
                if reached(*total) {
                    return Ok(());
                }
                let record = match consumer.next_record() {
                    Ok(Some(record)) => record,
                    Ok(None) => break,
                    // A topic the pattern matched leaves the subscription when it is deleted, as
                    // in Kafka's consumer; created again, it is matched at the next refresh as a
                    // new topic, positioned by auto.offset.reset (never read on from the old
                    // topic's position). Each partition leaves when it finds itself gone, so a
                    // partition of the new topic taken in meanwhile stays. A topic named by
                    // --topic stops the run instead.
                    Err(ConsumeError::Deleted { .. } | ConsumeError::Replaced { .. })
                        if args.include.is_some() =>
                    {
                        gone.push(tp.clone());
                        break;
                    }
                    // Kafka's consumer throws these from poll(), and the console consumer
                    // logs them as it ends.
                    Err(
                        e @ (ConsumeError::Corrupt { .. }
                        | ConsumeError::CorruptRecord { .. }
                        | ConsumeError::Record { .. }),
                    ) => {
                        out.flush()?;
                        let mut exception = format!("org.apache.kafka.common.KafkaException: {e}");
                        if let ConsumeError::Record { source, offset, .. } = &e {
                            exception.push_str(&format!(
                                "\nCaused by: {source} (in the batch at offset {offset})"
                            ));
                        }
                        return Err(Exit::failure(error_lines(
                            "Unknown error when running consumer: ",
                            CONSOLE_CONSUMER,
                            &exception,
                        ))
                        .into());
                    }
                    Err(e) => return Err(e.into()),
                };
                let r = &record.record;
                let view = MessageView {
                    topic: &tp.topic,
                    partition: tp.partition,
                    offset: r.offset,
                    timestamp: r.timestamp,
                    timestamp_type: r.timestamp_type,
                    key: r.key.as_deref(),
                    value: r.value.as_deref(),
                    headers: &r.headers,
                    // Kafka's console consumer hands the formatter a copy of each record made
                    // without its leader epoch (and without a delivery count), so
                    // `print.epoch=true` always shows `Epoch:NOT_PRESENT`.
                    leader_epoch: None,
                    delivery_count: None,
                };
                // Counted before it is written, as Kafka's console consumer counts it.
                *total += 1;
                got += 1;
                if json {
                    write_typed_line(out, record_json(&view))?;
                } else {
                    match settings.formatter.write(out, &view) {
                        Ok(()) => {}
                        Err(FormatError::Io(e)) => return Err(e.into()),
                        Err(FormatError::Deserialize(exception)) if args.skip_message_on_error => {
                            // The records before it are shown first, as on Kafka's stdout.
                            out.flush()?;
                            above(progress, || {
                                log_error(
                                    "Error processing message, skipping this message: ",
                                    CONSOLE_CONSUMER,
                                    &exception,
                                );
                            });
                        }
                        Err(FormatError::Deserialize(exception)) => {
                            // What the formatter wrote of the record stays; after the count.
                            out.flush()?;
                            return Err(Exit::failure(error_lines(
                                "Unknown error when running consumer: ",
                                CONSOLE_CONSUMER,
                                &exception,
                            ))
                            .into());
                        }
                    }
                }
            }
            // Moved once a round of up to 500 records, not per record.
            if let Some(bar) = progress {
                bar.set_position(*total);
            }
        }
        if !gone.is_empty() {
            consumers.retain(|(tp, _)| !gone.contains(tp));
        }
        for (_, consumer) in consumers.iter_mut() {
            if let Some(tail) = consumer.take_skipped() {
                out.flush()?;
                above(progress, || {
                    stderrln!(
                        "{}",
                        log4j::line("WARN", &tail.to_string(), log4j::LOG_READER)
                    );
                });
            }
        }
        if got > 0 {
            last_record = Instant::now();
            continue;
        }
        // Caught up: show what was printed, then wait for more or give up. The range the bar
        // measured is read.
        out.flush()?;
        if let Some(bar) = progress.take() {
            bar.finish_and_clear();
        }
        let waited = last_record.elapsed();
        let nap = Duration::from_millis(50);
        match timeout {
            Some(timeout) if waited >= timeout => {
                log_error(
                    "Error processing message, terminating consumer process: ",
                    CONSOLE_CONSUMER,
                    "org.apache.kafka.common.errors.TimeoutException",
                );
                return Ok(());
            }
            Some(timeout) => std::thread::sleep((timeout - waited).min(nap)),
            None => std::thread::sleep(nap),
        }
    }
}

/// --max-messages as a limit: -1 (or none given) is none, another negative count stops before
/// the first record, as in Kafka.
fn max_messages(args: &Args) -> Option<u64> {
    match args.max_messages {
        None | Some(-1) => None,
        Some(n) => Some(u64::try_from(n).unwrap_or(0)),
    }
}

/// Runs `print` with the progress bar, if any, lifted off the screen: a line printed on stderr
/// is not drawn over.
fn above(progress: &Option<ProgressBar>, print: impl FnOnce()) {
    match progress {
        Some(bar) => bar.suspend(print),
        None => print(),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
