//! `kafkit get-offsets`: Kafka's `kafka-get-offsets.sh` (`GetOffsetShell`) over the data
//! directory (`kafka-cli-surface.md` §6.1): `topic:partition:offset` per partition.

use kafkit::cluster::replication::LocalCluster;
use kafkit::datadir::is_cluster_dir;
use std::io::{self, BufWriter, Write};

use anyhow::Result;
use clap::ValueHint;
use regex::Regex;

use super::values::Suggest;
use super::{stderrln, Example, Exit, GlobalArgs};
use kafkit::client::offsets::{list_offset, OffsetEvent, OffsetSpec};
use kafkit::datadir::checkpoint::LOG_START_OFFSET_CHECKPOINT;
use kafkit::datadir::{names, DataDir, OffsetCheckpoint, TopicFilter, TopicPartition};
use kafkit::net::offsets::ListedOffset;
use kafkit::net::Cluster;
use kafkit::output::json::write_event;
use kafkit::output::{log4j, OutputFormat};
use std::collections::BTreeMap;

/// Examples of `kafkit get-offsets`, in its help and man page (`tests/man.rs` runs them, in order, in
/// an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic of ten records:",
        line: "kafkit topics --create --topic demo --partitions 3 && seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "The end offset of each of its partitions:",
        line: "kafkit get-offsets --topic demo",
    },
    Example {
        what: "The first offset of each partition, of every topic:",
        line: "kafkit get-offsets --time earliest",
    },
    Example {
        what: "The offset of the record with the highest timestamp, in partitions 0 and 1:",
        line: "kafkit get-offsets --topic-partitions 'demo:0-2' --time max-timestamp",
    },
];

/// Print the offsets of a topic's partitions (Kafka's kafka-get-offsets.sh).
///
/// An interactive shell for getting topic-partition offsets.
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// The topic to get the offsets for: a regular expression that must match whole names
    /// (`,` means `|`). Default: all topics.
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// Comma separated list of partition ids. Default: all partitions.
    #[arg(long, value_name = "IDS", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub partitions: Option<String>,
    /// Comma separated list of topic-partition patterns `TOPIC_REGEX[:PARTITIONS]` where
    /// PARTITIONS is N, N-M (M exclusive), N- or -M; cannot be used with --topic or
    /// --partitions.
    #[arg(long, value_name = "SPEC", value_hint = ValueHint::Other)]
    pub topic_partitions: Option<String>,
    /// The time to get offsets for: -1 or latest, -2 or earliest, -3 or max-timestamp,
    /// -4 or earliest-local, -5 or latest-tiered, or a timestamp in milliseconds (the first
    /// offset whose timestamp is at least it, found through the .timeindex).
    #[arg(
        long,
        value_name = "TIME",
        default_value = "latest",
        allow_hyphen_values = true,
        value_parser = Suggest::new(["latest", "earliest", "max-timestamp", "earliest-local", "latest-tiered"]), hide_possible_values = true,
    )]
    pub time: String,
    /// Exclude internal topics (__consumer_offsets, ...) from the listing.
    #[arg(long)]
    pub exclude_internal_topics: bool,
    /// The brokers to ask (ListOffsets), `HOST:PORT[,HOST:PORT...]`, instead of reading
    /// --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// With --bootstrap-server: a file of Kafka client properties (request.timeout.ms,
    /// default.api.timeout.ms, client.id, ...).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<std::path::PathBuf>,
}

fn error(message: impl std::fmt::Display) -> anyhow::Error {
    Exit::failure(format!("Error occurred: {message}")).into()
}

fn parse_time(text: &str) -> Result<OffsetSpec> {
    Ok(match text {
        "latest" | "-1" => OffsetSpec::Latest,
        "earliest" | "-2" => OffsetSpec::Earliest,
        "max-timestamp" | "-3" => OffsetSpec::MaxTimestamp,
        "earliest-local" | "-4" => OffsetSpec::Earliest,
        "latest-tiered" | "-5" => OffsetSpec::LatestTiered,
        other => OffsetSpec::Timestamp(other.parse::<i64>().map_err(|_| {
            error(format!("Malformed time argument {other}. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp"))
        })?),
    })
}

/// A partition selection: all, a set, or a range `[lower, upper)`.
#[derive(Debug, Clone)]
enum Partitions {
    All,
    List(Vec<i32>),
    Range(Option<i32>, Option<i32>),
}

impl Partitions {
    fn contains(&self, p: i32) -> bool {
        match self {
            Partitions::All => true,
            Partitions::List(list) => list.contains(&p),
            Partitions::Range(lo, hi) => lo.is_none_or(|lo| p >= lo) && hi.is_none_or(|hi| p < hi),
        }
    }
}

/// `--topic-partitions`: Kafka's rule regex, one rule per comma.
fn parse_rules(spec: &str) -> Result<Vec<(TopicFilter, Partitions)>> {
    let rule = Regex::new(r"^([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?$")
        .map_err(|e| error(e.to_string()))?;
    let mut rules = Vec::new();
    for part in spec.split(',') {
        let invalid = || error(format!("Invalid rule specification: {part}"));
        let caps = rule.captures(part).ok_or_else(invalid)?;
        let topic = caps.get(1).map_or("", |m| m.as_str());
        let filter = TopicFilter::new(if topic.is_empty() { ".*" } else { topic })
            .map_err(|e| error(e.to_string()))?;
        let num = |i: usize| -> Result<Option<i32>> {
            match caps.get(i).map(|m| m.as_str()).filter(|s| !s.is_empty()) {
                Some(s) => s.parse().map(Some).map_err(|_| invalid()),
                None => Ok(None),
            }
        };
        let partitions = if let Some(single) = caps.get(2) {
            if single.as_str().is_empty() {
                return Err(invalid());
            }
            Partitions::List(vec![num(2)?.unwrap_or(0)])
        } else if caps.get(3).is_some() || caps.get(4).is_some() {
            let (lo, hi) = (num(3)?, num(4)?);
            if lo.is_none() && hi.is_none() {
                return Err(invalid());
            }
            Partitions::Range(lo, hi)
        } else {
            Partitions::All
        };
        rules.push((filter, partitions));
    }
    Ok(rules)
}

/// Kafka's `createPartitionSet`: the ids of `--partitions`, split as Java's `String.split(",")`
/// does (trailing empty pieces dropped) and read by `Integer.parseInt` (a sign, no spaces); no
/// id at all means every partition.
fn partition_list(list: &str) -> Result<Partitions> {
    let mut pieces: Vec<&str> = list.split(',').collect();
    while pieces.last() == Some(&"") {
        pieces.pop();
    }
    if pieces.is_empty() {
        return Ok(Partitions::All);
    }
    let ids = pieces
        .iter()
        .map(|p| p.parse::<i32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            error(format!(
                "--partitions expects a comma separated list of numeric partition ids, but received: {list}"
            ))
        })?;
    Ok(Partitions::List(ids))
}

/// Where the offsets come from.
enum Source {
    Dir(DataDir),
    /// A local cluster (`cluster init`): each partition's leader, up to its high watermark.
    Leaders(LocalCluster),
    Cluster(Cluster),
}

/// Each selected partition's offset: read from its log in the directory as it is asked for,
/// or answered by the cluster's leaders all at once (one ListOffsets per leader).
enum Answers<'a> {
    Dir {
        datadir: &'a DataDir,
        spec: OffsetSpec,
        log_starts: BTreeMap<TopicPartition, i64>,
    },
    Leaders {
        cluster: &'a LocalCluster,
        spec: OffsetSpec,
    },
    Cluster(BTreeMap<TopicPartition, ListedOffset>),
}

impl<'a> Answers<'a> {
    fn new(source: &'a mut Source, selected: &[TopicPartition], spec: OffsetSpec) -> Result<Self> {
        Ok(match source {
            Source::Dir(datadir) => Answers::Dir {
                log_starts: OffsetCheckpoint::read(&datadir.root_file(LOG_START_OFFSET_CHECKPOINT))
                    .unwrap_or_default(),
                datadir,
                spec,
            },
            Source::Leaders(cluster) => Answers::Leaders { cluster, spec },
            Source::Cluster(cluster) => Answers::Cluster(
                cluster
                    .list_offsets(selected, spec.kafka_timestamp())
                    .map_err(|e| error(super::net::message(&e)))?,
            ),
        })
    }

    /// The partition's offset (`None`: no answer, left out as Kafka leaves it out), or the
    /// error message for Kafka's `Skip getting offsets ...` line. A torn tail the reader
    /// skipped is warned of on stderr.
    fn offset(&mut self, tp: &TopicPartition) -> std::result::Result<Option<i64>, String> {
        match self {
            Answers::Dir {
                datadir,
                spec,
                log_starts,
            } => {
                let dir = datadir.partition_dir(tp);
                let log_start = log_starts.get(tp).copied().unwrap_or(0);
                let listed = list_offset(&dir, *spec, log_start).map_err(|e| e.to_string())?;
                if let Some(tail) = listed.skipped {
                    stderrln!(
                        "{}",
                        log4j::line("WARN", &tail.to_string(), log4j::LOG_READER)
                    );
                }
                Ok(listed.offset)
            }
            Answers::Leaders { cluster, spec } => {
                // What a consumer may read: the leader's log below its high watermark.
                let Some(dir) = cluster.leader_dir(tp) else {
                    return Err("org.apache.kafka.common.errors.LeaderNotAvailableException: There is no leader for this topic-partition as we are in the middle of a leadership election.".to_string());
                };
                let hw = cluster.high_watermark(tp).map_err(|e| e.to_string())?;
                let listed = list_offset(&dir, *spec, 0).map_err(|e| e.to_string())?;
                Ok(match spec {
                    OffsetSpec::Latest => Some(hw),
                    _ => listed.offset.filter(|&o| o <= hw),
                })
            }
            Answers::Cluster(answers) => match answers.get(tp) {
                Some(Ok(offset)) => Ok(*offset),
                Some(Err(e)) => Err(e.to_string()),
                None => Ok(None),
            },
        }
    }
}

/// Runs `kafkit get-offsets`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    if args.topic_partitions.is_some() && (args.topic.is_some() || args.partitions.is_some()) {
        return Err(error(
            "--topic-partitions cannot be used with --topic or --partitions",
        ));
    }
    let spec = parse_time(&args.time)?;
    let rules = match &args.topic_partitions {
        Some(spec) => parse_rules(spec)?,
        None => {
            let filter = TopicFilter::new(args.topic.as_deref().unwrap_or(".*"))
                .map_err(|e| error(e.to_string()))?;
            let partitions = match args.partitions.as_deref() {
                None => Partitions::All,
                Some(list) => partition_list(list)?,
            };
            vec![(filter, partitions)]
        }
    };
    let mut source = match &args.bootstrap_server {
        None if is_cluster_dir(&global.data_dir) => Source::Leaders(
            LocalCluster::open(&global.data_dir).map_err(|e| error(format!("Error: {e}")))?,
        ),
        None => Source::Dir(DataDir::open(&global.data_dir)?),
        Some(servers) => Source::Cluster(super::net::cluster(
            "get-offsets",
            servers,
            args.command_config.as_deref(),
            &[],
            global,
            "GetOffsetShell",
        )?),
    };
    // (topic, partition count) of every topic, from the directory or the cluster's metadata.
    let topics: Vec<(String, i32)> = match &mut source {
        Source::Dir(datadir) => datadir
            .topics()?
            .into_iter()
            .map(|t| {
                let n = i32::try_from(t.partition_count()).unwrap_or(i32::MAX);
                (t.name, n)
            })
            .collect(),
        Source::Leaders(cluster) => cluster
            .topics()
            .into_iter()
            .map(|(name, partitions)| {
                let n = i32::try_from(partitions.len()).unwrap_or(i32::MAX);
                (name, n)
            })
            .collect(),
        Source::Cluster(cluster) => cluster
            .describe_topics()
            .map_err(|e| error(super::net::message(&e)))?
            .into_iter()
            .map(|t| {
                let n = i32::try_from(t.partitions.len()).unwrap_or(i32::MAX);
                (t.name, n)
            })
            .collect(),
    };
    let mut selected: Vec<TopicPartition> = Vec::new();
    for (topic, count) in &topics {
        if args.exclude_internal_topics && names::is_internal(topic) {
            continue;
        }
        for partition in 0..*count {
            let tp = TopicPartition::new(topic.as_str(), partition);
            if rules
                .iter()
                .any(|(f, p)| f.matches(&tp.topic) && p.contains(tp.partition))
            {
                selected.push(tp);
            }
        }
    }
    if selected.is_empty() {
        return Err(error(
            "Could not match any topic-partitions with the specified filters",
        ));
    }
    // Kafka sorts by the string `topic-partition` (so t-10 comes before t-2).
    selected.sort_by_key(|tp| tp.to_string());
    selected.dedup();
    let mut answers = Answers::new(&mut source, &selected, spec)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = 0usize;
    for tp in &selected {
        let offset = match answers.offset(tp) {
            Ok(Some(offset)) => offset,
            Ok(None) => continue,
            Err(e) => {
                // Kafka's tool goes on with the other partitions; the exit status tells.
                out.flush()?;
                stderrln!("Skip getting offsets for topic-partition {tp} due to error: {e}");
                failed += 1;
                continue;
            }
        };
        match global.output {
            OutputFormat::Text => writeln!(out, "{}:{}:{offset}", tp.topic, tp.partition)?,
            OutputFormat::Json => write_event(
                &mut out,
                &OffsetEvent::Offset {
                    topic: &tp.topic,
                    partition: tp.partition,
                    offset,
                },
            )?,
        }
    }
    out.flush()?;
    if failed > 0 {
        return Err(Exit::failure(format!(
            "Could not get offsets for {failed} of {} topic-partitions",
            selected.len()
        ))
        .into());
    }
    Ok(())
}
