//! `kafkit log-dirs`: Kafka's `kafka-log-dirs.sh` (`LogDirsCommand`) over the data directory
//! (`kafka-cli-surface.md` §6.4): the directory's partitions and their sizes.

use std::collections::BTreeSet;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;

use super::{usage_error, Example, Exit, GlobalArgs};
use kafkit::datadir::log_dirs::describe_log_dir;
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
/// of its one broker (node.id of meta.properties, else 0).
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
    /// Accepted for compatibility with kafka-log-dirs.sh and ignored: kafkit reads --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// Accepted for compatibility with kafka-log-dirs.sh and ignored.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<PathBuf>,
}

/// Kafka's `splitAtCommasAndFilterOutEmpty`.
fn split(list: Option<&str>) -> impl Iterator<Item = &str> {
    list.unwrap_or("").split(',').filter(|s| !s.is_empty())
}

/// Runs `kafkit log-dirs`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    if !args.describe {
        return Err(usage_error(
            "log-dirs",
            "Missing required argument \"[describe]\"",
        ));
    }
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
    let datadir = DataDir::open(&global.data_dir)?;
    let broker = datadir.node_id();
    let missing: Vec<String> = asked
        .iter()
        .filter(|id| **id != broker)
        .map(ToString::to_string)
        .collect();
    if !missing.is_empty() {
        return Err(Exit::failure(format!(
            "ERROR: The given brokers do not exist from --broker-list: {}. Current existent brokers: {broker}",
            missing.join(",")
        ))
        .into());
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let text_mode = global.output == OutputFormat::Text;
    if text_mode {
        writeln!(out, "{QUERYING}")?;
    }
    let description = describe_log_dir(&datadir, &topics)?;
    let log_dir = description.log_dir.to_string_lossy();
    match global.output {
        OutputFormat::Text => {
            writeln!(out, "{}", received_line(&[broker]))?;
            writeln!(out, "{}", kafka_json_line(&[(broker, &description)])?)?;
        }
        OutputFormat::Json => {
            write_event(
                &mut out,
                &LogDirsEvent::LogDir {
                    broker,
                    log_dir: &log_dir,
                    error: None,
                },
            )?;
            for replica in &description.replicas {
                write_event(
                    &mut out,
                    &LogDirsEvent::Replica {
                        broker,
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
    out.flush()?;
    Ok(())
}
