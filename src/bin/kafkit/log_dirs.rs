//! `kafkit log-dirs`: Kafka's `kafka-log-dirs.sh` (`LogDirsCommand`) over the data directory
//! (`kafka-cli-surface.md` §6.4): the directory's partitions and their sizes.

use std::collections::BTreeSet;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;

use super::{usage_error, Example, Exit, GlobalArgs};
use kafkit::datadir::log_dirs::{describe_log_dir, LogDirDescription};
use kafkit::datadir::DataDir;
use kafkit::output::json::write_event;
use kafkit::output::log_dirs::{kafka_json_line, received_line, LogDirsEvent, QUERYING};
use kafkit::output::OutputFormat;

/// Examples of `kafkit log-dirs` (`tests/man.rs` runs them, in order, in an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic of ten records:",
        line: "kafkit topics --create --topic demo && seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "The data directory's partitions and their sizes, as Kafka's JSON:",
        line: "kafkit log-dirs --describe --topic-list demo",
    },
];

/// Describe the data directory's partitions and their sizes (kafka-log-dirs.sh).
///
/// This tool helps to query log directory usage: the data directory is the one log directory
/// of its one broker (node.id of meta.properties, else 0). With --bootstrap-server, each
/// broker of a cluster describes its log directories (DescribeLogDirs).
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// Describe the specified log directories on the specified brokers.
    #[arg(long)]
    pub describe: bool,
    /// The list of topics to be queried in the form "topic1,topic2,topic3". All topics will be
    /// queried if no topic list is specified.
    #[arg(long, value_name = "TOPICS", value_hint = ValueHint::Other)]
    pub topic_list: Option<String>,
    /// The list of brokers to be queried in the form "0,1,2". All brokers in the cluster (the
    /// data directory's one) will be queried if no broker list is specified.
    #[arg(long, value_name = "IDS", value_hint = ValueHint::Other)]
    pub broker_list: Option<String>,
    /// The brokers to ask (DescribeLogDirs of each), `HOST:PORT[,HOST:PORT...]`, instead of
    /// reading --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms,
    /// default.api.timeout.ms, security.protocol, ...).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<PathBuf>,
}

/// Where the log directories are described: the data directory (opened once the arguments
/// are checked) or each broker of a cluster.
enum Source {
    Dir(Option<DataDir>),
    Cluster(kafkit::net::Cluster),
}

/// Kafka's `splitAtCommasAndFilterOutEmpty`.
fn split(list: Option<&str>) -> impl Iterator<Item = &str> {
    list.unwrap_or("").split(',').filter(|s| !s.is_empty())
}

/// Kafka's `commaDelimitedStringFromIntegerSet`.
fn joined<'a>(ids: impl IntoIterator<Item = &'a i32>) -> String {
    ids.into_iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// How Kafka's tool ends on an exception that is not its own: the message, then the stack
/// trace, whose first line is the `ExecutionException` of the admin client's future (the
/// frames below it are left out).
fn failed(e: &kafkit::net::NetError) -> anyhow::Error {
    // Kafka's client warnings first (a broker that cannot be reached, a refused login).
    let _ = super::net::message(e);
    let exception = e.java_exception();
    Exit::failure(format!(
        "{exception}\njava.util.concurrent.ExecutionException: {exception}"
    ))
    .into()
}

/// Runs `kafkit log-dirs`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    if !args.describe {
        return Err(usage_error(
            "log-dirs",
            "Missing required argument \"[describe]\"",
        ));
    }
    let mut source = match &args.bootstrap_server {
        Some(servers) => Source::Cluster(super::net::cluster(
            "log-dirs",
            servers,
            args.command_config.as_deref(),
            &[],
            global,
            "log-dirs-tool",
        )?),
        None => Source::Dir(None),
    };
    let topics: BTreeSet<String> = split(args.topic_list.as_deref())
        .map(str::to_string)
        .collect();
    let mut asked = BTreeSet::new();
    for id in split(args.broker_list.as_deref()) {
        // Java's Integer.valueOf, whose NumberFormatException message Kafka's tool prints.
        let id: i32 = id
            .parse()
            .map_err(|_| Exit::failure(format!("For input string: \"{id}\"")))?;
        asked.insert(id);
    }
    let existing: BTreeSet<i32> = match &mut source {
        Source::Cluster(cluster) => cluster
            .broker_nodes()
            .map_err(|e| failed(&e))?
            .into_iter()
            .collect(),
        Source::Dir(opened) => {
            BTreeSet::from([opened.insert(DataDir::open(&global.data_dir)?).node_id()])
        }
    };
    let missing: Vec<&i32> = asked.difference(&existing).collect();
    if !missing.is_empty() {
        return Err(Exit::failure(format!(
            "ERROR: The given brokers do not exist from --broker-list: {}. Current existent brokers: {}",
            joined(missing),
            joined(&existing)
        ))
        .into());
    }
    let brokers: Vec<i32> = if asked.is_empty() {
        existing.into_iter().collect()
    } else {
        asked.into_iter().collect()
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let text_mode = global.output == OutputFormat::Text;
    if text_mode {
        writeln!(out, "{QUERYING}")?;
        out.flush()?;
    }
    // Each broker's log directories, from the data directory or the brokers themselves.
    let mut described: Vec<(i32, Vec<LogDirDescription>)> = Vec::new();
    for broker in brokers {
        let dirs = match &mut source {
            Source::Cluster(cluster) => cluster
                .describe_log_dirs(broker, &topics)
                .map_err(|e| failed(&e))?,
            Source::Dir(Some(datadir)) => vec![describe_log_dir(datadir, &topics)?],
            Source::Dir(None) => Vec::new(),
        };
        described.push((broker, dirs));
    }
    match global.output {
        OutputFormat::Text => {
            let ids: Vec<i32> = described.iter().map(|(b, _)| *b).collect();
            writeln!(out, "{}", received_line(&ids))?;
            writeln!(out, "{}", kafka_json_line(&described)?)?;
        }
        OutputFormat::Json => {
            for (broker, dirs) in &described {
                for dir in dirs {
                    let log_dir = dir.log_dir.to_string_lossy();
                    write_event(
                        &mut out,
                        &LogDirsEvent::LogDir {
                            broker: *broker,
                            log_dir: &log_dir,
                            error: dir.error.as_deref(),
                        },
                    )?;
                    for replica in &dir.replicas {
                        write_event(
                            &mut out,
                            &LogDirsEvent::Replica {
                                broker: *broker,
                                log_dir: &log_dir,
                                topic: &replica.tp.topic,
                                partition: replica.tp.partition,
                                size: replica.size,
                                offset_lag: replica.offset_lag,
                                is_future: replica.is_future,
                            },
                        )?;
                    }
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}
