//! `kafkit consume` (alias `console-consumer`): Kafka's `kafka-console-consumer.sh` reading a
//! topic of the data directory without its lock (`kafka-cli-surface.md` §5).
//!
//! With `--partition` it reads that partition (assign mode) from `--offset`; without it, every
//! partition of the topic (or of the topics `--include` matches). It keeps following new
//! records until `--max-messages` records were printed or no record came for `--timeout-ms`.

use std::io::{self, BufWriter, Write};
use std::time::Duration;

use anyhow::Result;
use clap::ValueHint;

use super::signals::StopSignals;
use super::values::Suggest;
use super::{properties, stderrln, usage_error, Example, Exit, GlobalArgs};
use crate::progress;
use kafkit::assign::Strategy;
use kafkit::client::configs::{self, ClientConfigError};
use kafkit::client::console::{
    ConsoleConsumeError, ConsoleConsumer, ConsoleConsumerConfig, ConsumerGroup, RecordOutput,
    StartOffset as Start, Subscription, CONSOLE_CONSUMER,
};
use kafkit::client::consumer::ConsumeError;
use kafkit::client::group::GroupConfig;
use kafkit::client::IsolationLevel;
use kafkit::datadir::{DataDir, TopicFilter};
use kafkit::output::deserializer::Deserializer;
use kafkit::output::format::{FormatEscape, RecordFormat};
use kafkit::output::message::{DeserializerIssue, Formatter};
use kafkit::output::progress::Progress;
use kafkit::output::{log4j, OutputFormat};

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
    /// beginning, or 'latest' which means from end. Or a time, as kcat takes it: '@' and
    /// milliseconds since the epoch (@1796086513663), or an ISO-8601 time with its zone
    /// (2026-12-01T10:00:00Z, 2026-12-01T11:00:00.5+01:00): each partition starts at its first
    /// record whose timestamp is at least that (Kafka's offsetsForTimes, through the
    /// .timeindex), or at its end when it has none. A time applies to --partition, or without
    /// it to every partition read.
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
    #[arg(long, value_parser = crate::values::isolation_level(), default_value = "read_uncommitted")]
    pub isolation_level: IsolationLevel,
    /// The consumer group: the partitions of --topic or --include are shared with the
    /// group's other members (other kafkit processes on this data directory), read from the
    /// group's committed offsets, and what was printed is committed.
    #[arg(long, value_name = "GROUP", value_hint = ValueHint::Other)]
    pub group: Option<String>,
    /// A message formatter property, name=value; repeatable: print.timestamp, print.key,
    /// print.value, print.partition, print.offset, print.headers, print.epoch, print.delivery,
    /// key.separator, line.separator, headers.separator, null.literal, key.deserializer,
    /// value.deserializer, headers.deserializer. Text output only.
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub property: Vec<String>,
    /// A consumer config, name=value; repeatable. Used: isolation.level, auto.offset.reset,
    /// metadata.max.age.ms, exclude.internal.topics, and with a group group.id, client.id,
    /// group.instance.id, session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms,
    /// partition.assignment.strategy, enable.auto.commit, auto.commit.interval.ms (and, for
    /// tests, the coordinator's group.initial.rebalance.delay.ms and
    /// group.min.session.timeout.ms).
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
    /// The brokers to fetch from, `HOST:PORT[,HOST:PORT...]`, instead of reading --data-dir
    /// (client properties from --consumer.config and --consumer-property, with Kafka's names;
    /// without --group).
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// Exit (0) once every partition read has been read to its end, as kcat's -e: no waiting
    /// for new records, no TimeoutException. Not an option of Kafka's tool.
    #[arg(long)]
    pub exit_at_end: bool,
    /// Print each record as this kcat format string says (kcat's -f) instead of Kafka's
    /// formatter: %s value, %S value size, %R value size as a big-endian int32 (binary), %k
    /// key, %K key size (-1 for null), %t topic, %p partition, %o offset, %T timestamp (ms),
    /// %h headers (name=value,...), %% a %; \n \r \t \xHH \NNN in the text. Nothing is added
    /// after a record (end the format with \n). Cannot be used with Kafka's formatter options
    /// (--formatter, --formatter-config, --property, --key-deserializer,
    /// --value-deserializer) nor --output json.
    #[arg(long, value_name = "FORMAT", value_hint = ValueHint::Other)]
    pub format: Option<String>,
    /// How --format writes %s, %k, %t and %h: as bytes (none, kcat's way), or as JSON values
    /// with their quotes (json: a string, null, or {"base64": ...} for bytes that are not
    /// UTF-8), so that '{"key":%k,"value":%s}\n' makes a JSON line whatever the record holds.
    #[arg(long, value_parser = crate::values::format_escape(), value_name = "ESCAPE", requires = "format")]
    pub format_escape: Option<FormatEscape>,
}

/// `--offset`: Kafka's values, or a time as kcat takes one. `Err(None)` for a value that is
/// none of them (Kafka's message), `Err(Some(why))` for a time that is malformed.
fn parse_offset(text: &str) -> Result<Start, Option<String>> {
    if text.eq_ignore_ascii_case("earliest") {
        Ok(Start::Earliest)
    } else if text.eq_ignore_ascii_case("latest") {
        Ok(Start::Latest)
    } else if let Some(ms) = text.strip_prefix('@') {
        match ms.parse::<i64>() {
            Ok(ms) if ms >= 0 => Ok(Start::Time(ms)),
            Ok(_) => Err(Some("the time cannot be negative".to_string())),
            Err(_) => Err(Some(format!("'{ms}' is not a number of milliseconds"))),
        }
    } else if text.len() > 4 && text.as_bytes().get(4) == Some(&b'-') {
        match iso_8601_ms(text) {
            Ok(ms) if ms >= 0 => Ok(Start::Time(ms)),
            Ok(_) => Err(Some("the time cannot be before 1970".to_string())),
            Err(why) => Err(Some(why)),
        }
    } else {
        text.parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .map(Start::At)
            .ok_or(None)
    }
}

/// Milliseconds since the epoch of an ISO-8601 time with its zone:
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` then `Z` or `+HH:MM` / `-HH:MM` (or `+HHMM`, `+HH`).
/// A time without a zone is refused rather than read in the local zone.
fn iso_8601_ms(text: &str) -> Result<i64, String> {
    let bad = |what: &str| format!("not an ISO-8601 time ({what})");
    let (date, time) = text
        .split_once(['T', 't'])
        .ok_or_else(|| bad("no 'T' between the date and the time"))?;
    let number = |s: &str, what: &str| -> Result<i64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad(what));
        }
        s.parse::<i64>().map_err(|_| bad(what))
    };
    let mut ymd = date.split('-');
    let (Some(y), Some(m), Some(d), None) = (ymd.next(), ymd.next(), ymd.next(), ymd.next()) else {
        return Err(bad("the date is not YYYY-MM-DD"));
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad("the date is not YYYY-MM-DD"));
    }
    let (year, month, day) = (number(y, "year")?, number(m, "month")?, number(d, "day")?);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(bad("no such month")),
    };
    if !(1..=days_in_month).contains(&day) {
        return Err(bad("no such day in the month"));
    }
    // The zone: Z, or a sign and HH[:MM].
    let (clock, zone_ms) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, 0)
    } else if let Some(at) = time.rfind(['+', '-']) {
        let (clock, zone) = time.split_at(at);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let zone = zone.get(1..).unwrap_or_default().replace(':', "");
        let (hh, mm) = match zone.len() {
            2 => (number(&zone, "zone")?, 0),
            4 => (
                number(zone.get(..2).unwrap_or_default(), "zone")?,
                number(zone.get(2..).unwrap_or_default(), "zone")?,
            ),
            _ => return Err(bad("the zone is not Z or +HH:MM")),
        };
        if hh > 23 || mm > 59 {
            return Err(bad("the zone is not Z or +HH:MM"));
        }
        (clock, sign * (hh * 3600 + mm * 60) * 1000)
    } else {
        return Err(bad("no zone: end it with Z or +HH:MM"));
    };
    let (hms, fraction) = match clock.split_once(['.', ',']) {
        Some((hms, fraction)) => (hms, Some(fraction)),
        None => (clock, None),
    };
    let mut fields = hms.split(':');
    let (Some(h), Some(mi), s, None) = (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(bad("the time is not HH:MM:SS"));
    };
    if h.len() != 2 || mi.len() != 2 || s.is_some_and(|s| s.len() != 2) {
        return Err(bad("the time is not HH:MM:SS"));
    }
    let (hour, minute) = (number(h, "hour")?, number(mi, "minute")?);
    let second = s.map_or(Ok(0), |s| number(s, "second"))?;
    if hour > 23 || minute > 59 || second > 59 {
        return Err(bad("no such time of day"));
    }
    let millis = match fraction {
        None => 0,
        Some(f) => {
            number(f, "fraction of a second")?;
            let ms: String = f.chars().chain("000".chars()).take(3).collect();
            number(&ms, "fraction of a second")?
        }
    };
    // Days from 1970-01-01 to the date (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis - zone_ms)
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
    let start = args.offset.as_deref().map(parse_offset);
    let is_time = matches!(start, Some(Ok(Start::Time(_)) | Err(Some(_))));
    // A time names where every partition starts, so it needs no --partition (kcat's s@).
    if args.offset.is_some() && args.partition.is_none() && !is_time {
        return Err(usage_error(
            "consume",
            "The partition is required when offset is specified.",
        ));
    }
    if is_time && args.from_beginning {
        return Err(usage_error(
            "consume",
            "Options from-beginning and offset cannot be specified together.",
        ));
    }
    let groups = group_ids(args)?;
    if groups.len() > 1 {
        let detected: Vec<String> = groups.iter().map(|g| format!("'{g}'")).collect();
        return Err(usage_error(
            "consume",
            format!("The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. Detected group ids: {}", detected.join(", ")),
        ));
    }
    if !groups.is_empty() && args.partition.is_some() {
        return Err(usage_error(
            "consume",
            "Options group and partition cannot be specified together.",
        ));
    }
    // kafkit's own: an --offset without --partition is a time, where every partition of an
    // assignment starts; a group starts from its committed offsets.
    if !groups.is_empty() && args.offset.is_some() {
        return Err(usage_error(
            "consume",
            "Options group and offset cannot be specified together: a group starts from its committed offsets (auto.offset.reset where it has none).",
        ));
    }
    if let Some(format) = &args.format {
        let kafkas = [
            ("formatter", args.formatter.is_some()),
            ("formatter-config", args.formatter_config.is_some()),
            ("property", !args.property.is_empty()),
            ("key-deserializer", args.key_deserializer.is_some()),
            ("value-deserializer", args.value_deserializer.is_some()),
        ];
        if let Some((option, _)) = kafkas.iter().find(|(_, given)| *given) {
            return Err(usage_error(
                "consume",
                format!("Option \"[format]\" can't be used with option \"[{option}]\": --format replaces Kafka's formatter"),
            ));
        }
        RecordFormat::parse(format, FormatEscape::None).map_err(|why| {
            usage_error(
                "consume",
                format!("The format '{format}' is incorrect: {why}"),
            )
        })?;
    }
    match (&args.offset, start) {
        (Some(_), Some(Ok(start))) => Ok(start),
        (Some(text), Some(Err(None))) => Err(usage_error(
            "consume",
            format!("The provided offset value '{text}' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long."),
        )),
        (Some(text), Some(Err(Some(why)))) => Err(usage_error(
            "consume",
            format!("The provided offset value '{text}' is incorrect: {why}. A time is '@' and milliseconds since the epoch, or an ISO-8601 time with its zone, such as 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00."),
        )),
        _ if args.from_beginning => Ok(Start::Earliest),
        _ => Ok(Start::Latest),
    }
}

/// The distinct group ids given by `--group`, `--consumer.config` and `--consumer-property`
/// (each file or list's last `group.id`), in the order Kafka's `checkConsumerGroup` prints
/// them: a `java.util.HashSet`'s.
fn group_ids(args: &Args) -> Result<Vec<String>> {
    let last_group_id = |props: Vec<(String, String)>| {
        props
            .into_iter()
            .rev()
            .find_map(|(k, v)| (k == "group.id").then_some(v))
    };
    let mut ids: Vec<String> = Vec::new();
    let given = [
        args.group.clone(),
        last_group_id(properties(args.consumer_config.as_deref(), &[])?),
        last_group_id(properties(None, &args.consumer_property)?),
    ];
    for id in given.into_iter().flatten() {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let order = kafkit::assign::java::string_map_order(&ids);
    Ok(order
        .into_iter()
        .filter_map(|i| ids.get(i).cloned())
        .collect())
}

/// What the arguments and the property files ask for, validated: the consumer, and how it
/// prints records.
struct Settings {
    consumer: ConsoleConsumerConfig,
    output: RecordOutput,
}

/// [`log4j::error_lines`] on stderr.
fn log_error(message: &str, logger: &str, exception: &str) {
    stderrln!("{}", log4j::error_lines(message, logger, exception));
}

/// Runs `kafkit consume`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let Settings { consumer, output } = settings(args, global)?;
    let mut consumer = match &args.bootstrap_server {
        None if kafkit::datadir::is_cluster_dir(&global.data_dir) => {
            let cluster = kafkit::cluster::replication::LocalCluster::open(&global.data_dir)
                .map_err(|e| Exit::failure(format!("Error: {e}")))?;
            ConsoleConsumer::open_local_cluster(cluster, consumer)
        }
        None => ConsoleConsumer::open(DataDir::open(&global.data_dir)?, consumer),
        Some(servers) => {
            let cluster = super::net::cluster(
                "consume",
                servers,
                args.consumer_config.as_deref(),
                &args.consumer_property,
                global,
                "console-consumer",
            )?;
            ConsoleConsumer::open_cluster(cluster, consumer)
        }
    }
    .map_err(failure)?;
    let bar = (global.progress_wanted()
        && consumer.expected_records() >= progress::CONSUME_MIN_RECORDS)
        .then(|| progress::records(consumer.expected_records()));
    // A line printed on stderr lifts the bar off the screen first, so it is not drawn over.
    let diagnostics = {
        let bar = bar.clone();
        move |message: &str| match &bar {
            Some(bar) => bar.suspend(|| stderrln!("{message}")),
            None => stderrln!("{message}"),
        }
    };
    // Ctrl-C, SIGTERM and SIGHUP end the loop instead of the process, so the consumer still
    // prints `Processed a total of N messages`, as Kafka's shutdown hook does.
    let signals = StopSignals::catch()?;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut bar = bar.map(progress::Bar);
    let outcome = consumer.run(
        &output,
        &mut out,
        bar.as_mut().map(|bar| bar as &mut dyn Progress),
        signals.flag(),
        &diagnostics,
    );
    if args.enable_systest_events {
        // A closed pipe is no error here, as it is none for the records.
        let _ = out
            .write_all(b"shutdown_complete\n")
            .and_then(|()| out.flush());
    }
    let total = consumer.consumed();
    match outcome {
        Err(e) if e.is_broken_pipe() => {
            stderrln!("Unable to write to standard out, closing consumer.");
            stderrln!("Processed a total of {total} messages");
            Ok(())
        }
        Err(e) => {
            stderrln!("Processed a total of {total} messages");
            Err(failure(e))
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

/// The consumer's error as the command reports it: what Kafka's consumer or formatter threw is
/// logged as Kafka's tool logs it (`Unknown error when running consumer: `), kafkit's own
/// refusals are their message, and the data directory's and logs' errors their chain.
fn failure(e: ConsoleConsumeError) -> anyhow::Error {
    match e {
        ConsoleConsumeError::Invalid(_) | ConsoleConsumeError::Deserialize(_) => {
            Exit::failure(log4j::error_lines(
                "Unknown error when running consumer: ",
                CONSOLE_CONSUMER,
                &e.to_string(),
            ))
            .into()
        }
        ConsoleConsumeError::UnknownTopic { .. }
        | ConsoleConsumeError::UnknownPartition { .. }
        | ConsoleConsumeError::OffsetOutOfRange { .. }
        | ConsoleConsumeError::NoOffset(_) => Exit::failure(e.to_string()).into(),
        ConsoleConsumeError::Network(e)
        | ConsoleConsumeError::Consume(ConsumeError::Network(e)) => {
            Exit::failure(super::net::message(&e)).into()
        }
        e => e.into(),
    }
}

/// Validation, then the consumer and formatter properties (files first, arguments win).
fn settings(args: &Args, global: &GlobalArgs) -> Result<Settings> {
    let start = validate(args)?;
    let consumer_props = properties(args.consumer_config.as_deref(), &args.consumer_property)?;
    let prop = |name: &str| {
        consumer_props
            .iter()
            .rfind(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let config_error = |e: ClientConfigError| Exit::failure(e.to_string());
    let isolation = match prop("isolation.level") {
        Some(raw) => match configs::string(&configs::ISOLATION_LEVEL, raw).map_err(config_error)? {
            level if level == "read_committed" => IsolationLevel::ReadCommitted,
            _ => IsolationLevel::ReadUncommitted,
        },
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
        .map_err(config_error)?;
    let reset = match explicit_reset.as_deref() {
        Some("earliest") => Some(Start::Earliest),
        Some("none") => None,
        Some(_) => Some(Start::Latest),
        None if args.from_beginning => Some(Start::Earliest),
        None => Some(Start::Latest),
    };
    let key = &configs::METADATA_MAX_AGE_MS;
    let ms = configs::number(key, prop(key.name).unwrap_or(key.default)).map_err(config_error)?;
    // Validated as at least 0.
    let metadata_max_age = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    let key = &configs::EXCLUDE_INTERNAL_TOPICS;
    let exclude_internal =
        configs::boolean(key, prop(key.name).unwrap_or(key.default)).map_err(config_error)?;
    let key = &configs::CHECK_CRCS;
    let check_crcs =
        configs::boolean(key, prop(key.name).unwrap_or(key.default)).map_err(config_error)?;
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
    let output = match (&args.format, global.output) {
        (Some(_), OutputFormat::Json) => {
            return Err(usage_error(
                "consume",
                "Option \"[format]\" can't be used with option \"[output json]\": each prints the records its own way",
            ))
        }
        (Some(format), OutputFormat::Text) => RecordOutput::Format(
            RecordFormat::parse(format, args.format_escape.unwrap_or_default())
                .map_err(|e| Exit::failure(e.to_string()))?,
        ),
        (None, OutputFormat::Json) => RecordOutput::Json,
        (None, OutputFormat::Text) => RecordOutput::Formatter(formatter),
    };
    let subscription = match (&args.topic, &args.include) {
        (Some(name), _) => Subscription::Topic {
            name: name.clone(),
            partition: args.partition,
        },
        (None, Some(regex)) => Subscription::Pattern(
            TopicFilter::new(regex).map_err(|e| Exit::failure(e.to_string()))?,
        ),
        // validate() requires one of them.
        (None, None) => {
            return Err(usage_error(
                "consume",
                "Exactly one of --include/--topic is required. ",
            ))
        }
    };
    // Kafka's: a negative timeout is none; -1 messages (or none given) is no limit, another
    // negative count stops before the first record.
    let timeout = args
        .timeout_ms
        .and_then(|ms| u64::try_from(ms).ok())
        .map(Duration::from_millis);
    let max_messages = match args.max_messages {
        None | Some(-1) => None,
        Some(n) => Some(u64::try_from(n).unwrap_or(0)),
    };
    let group = group_settings(args, &prop)?;
    Ok(Settings {
        consumer: ConsoleConsumerConfig {
            subscription,
            start,
            reset,
            isolation,
            check_crcs,
            metadata_max_age,
            exclude_internal,
            max_messages,
            timeout,
            exit_at_end: args.exit_at_end,
            skip_message_on_error: args.skip_message_on_error,
            group,
        },
        output,
    })
}

/// `--group` (or `group.id`) and the group's consumer configs; the coordinator's
/// `group.initial.rebalance.delay.ms` and `group.min.session.timeout.ms` (broker configs, used
/// when this process hosts the group's coordinator) are taken as consumer configs too.
fn group_settings<'a>(
    args: &Args,
    prop: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Option<ConsumerGroup>> {
    let Some(group_id) = args.group.as_deref().or_else(|| prop("group.id")) else {
        return Ok(None);
    };
    let number = |name: &str, default: i64| -> Result<i64> {
        match prop(name) {
            None => Ok(default),
            Some(raw) => raw.trim().parse::<i64>().map_err(|_| {
                Exit::failure(format!(
                    "Invalid value {raw} for configuration {name}: Not a number of type INT"
                ))
                .into()
            }),
        }
    };
    let int = |name: &str, default: i64| -> Result<i32> {
        let n = number(name, default)?;
        i32::try_from(n).map_err(|_| {
            Exit::failure(format!(
                "Invalid value {n} for configuration {name}: Not a number of type INT"
            ))
            .into()
        })
    };
    let mut member = GroupConfig::new(group_id);
    member.client_id = prop("client.id").unwrap_or("console-consumer").to_string();
    member.group_instance_id = prop("group.instance.id").map(str::to_string);
    member.session_timeout_ms = int("session.timeout.ms", 45_000)?;
    member.max_poll_interval_ms = int("max.poll.interval.ms", 300_000)?;
    member.heartbeat_interval_ms =
        u64::try_from(number("heartbeat.interval.ms", 3_000)?).unwrap_or(1);
    if let Some(raw) = prop("partition.assignment.strategy") {
        member.strategies = raw
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|name| {
                Strategy::parse(name).ok_or_else(|| {
                    Exit::failure(format!(
                        "Invalid value {name} for configuration partition.assignment.strategy: Class {name} cannot be found"
                    ))
                    .into()
                })
            })
            .collect::<Result<Vec<_>>>()?;
    }
    member.coordinator.initial_rebalance_delay_ms = number(
        "group.initial.rebalance.delay.ms",
        member.coordinator.initial_rebalance_delay_ms,
    )?;
    member.coordinator.min_session_timeout_ms = int(
        "group.min.session.timeout.ms",
        i64::from(member.coordinator.min_session_timeout_ms),
    )?;
    let enable_auto_commit = match prop("enable.auto.commit") {
        None => true,
        Some(raw) => match raw.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(Exit::failure(format!(
                    "Invalid value {raw} for configuration enable.auto.commit: Expected value to be either true or false"
                ))
                .into())
            }
        },
    };
    let interval = number("auto.commit.interval.ms", 5_000)?;
    Ok(Some(ConsumerGroup {
        member,
        enable_auto_commit,
        auto_commit_interval: Duration::from_millis(u64::try_from(interval).unwrap_or(0)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_8601_times_are_read_with_their_zone() {
        // 2026-12-01T10:00:00Z, as `date -u -d 2026-12-01T10:00:00Z +%s` gives.
        let base = 1_796_119_200_000;
        for (text, ms) in [
            ("2026-12-01T10:00:00Z", base),
            ("2026-12-01t10:00:00z", base),
            ("2026-12-01T10:00Z", base),
            ("2026-12-01T11:00:00+01:00", base),
            ("2026-12-01T11:00:00+0100", base),
            ("2026-12-01T11:00:00+01", base),
            ("2026-12-01T05:30:00-04:30", base),
            ("2026-12-01T10:00:00.5Z", base + 500),
            ("2026-12-01T10:00:00,123456Z", base + 123),
            ("1970-01-01T00:00:00Z", 0),
            ("2000-02-29T00:00:00Z", 951_782_400_000),
        ] {
            assert_eq!(iso_8601_ms(text), Ok(ms), "{text}");
        }
        for text in [
            "2026-12-01T10:00:00",
            "2026-12-01 10:00:00Z",
            "2026-13-01T10:00:00Z",
            "2026-02-29T10:00:00Z",
            "2026-12-01T24:00:00Z",
            "2026-12-01T10:00:00+25:00",
            "2026-12-1T10:00:00Z",
            "2026-12-01T10:00:00.Z",
            "2026-12-01T10:00:0xZ",
        ] {
            assert!(iso_8601_ms(text).is_err(), "{text}");
        }
    }

    #[test]
    fn offsets_and_times() {
        assert_eq!(parse_offset("earliest"), Ok(Start::Earliest));
        assert_eq!(parse_offset("7"), Ok(Start::At(7)));
        assert_eq!(
            parse_offset("@1796119200000"),
            Ok(Start::Time(1_796_119_200_000))
        );
        assert_eq!(
            parse_offset("2026-12-01T10:00:00Z"),
            Ok(Start::Time(1_796_119_200_000))
        );
        assert_eq!(parse_offset("-1"), Err(None));
        assert_eq!(parse_offset("soon"), Err(None));
        assert!(matches!(parse_offset("@-1"), Err(Some(_))));
        assert!(matches!(parse_offset("@x"), Err(Some(_))));
        assert!(matches!(parse_offset("1969-12-31T23:59:59Z"), Err(Some(_))));
    }
}
