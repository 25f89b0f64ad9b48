//! `kafkit leader-election`: Kafka's `kafka-leader-election.sh` (`LeaderElectionCommand`) on a
//! cluster made by `cluster init`: preferred or unclean elections by the controller's rules
//! (`kafkit::cluster::election`), their records appended to the metadata log.

use std::collections::BTreeSet;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;
use serde_json::Value;

use super::{Example, Exit, GlobalArgs};
use kafkit::cluster::election::{elect_leaders, ElectionType};
use kafkit::cluster::topics::is_cluster_dir;
use kafkit::output::json::write_event;
use kafkit::output::ops::ElectionEvent;
use kafkit::output::OutputFormat;

/// Examples of `kafkit leader-election` (`tests/man.rs` runs them, in order).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a cluster of three brokers with a topic of three partitions on all three:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic elected --partitions 3 --replication-factor 3",
    },
    Example {
        what: "Give every partition its preferred leader back:",
        line: "kafkit --data-dir cluster leader-election --election-type preferred --all-topic-partitions",
    },
];

/// Elect partitions' leaders in a cluster made by `cluster init` (kafka-leader-election.sh).
///
/// PREFERRED makes each partition's first replica its leader when it is in the ISR and alive
/// (else the current leader stays: PREFERRED_LEADER_NOT_AVAILABLE); a partition it leads
/// already needs no election. UNCLEAN elects a leader for a partition that has none, from
/// the ISR if it can, else any live replica (data may be lost; the ISR becomes the new
/// leader alone).
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// preferred or unclean.
    #[arg(long, value_name = "TYPE", value_parser = election_type, value_hint = ValueHint::Other)]
    pub election_type: Option<ElectionType>,
    /// Every partition of the cluster (those that need no election are left out).
    #[arg(long)]
    pub all_topic_partitions: bool,
    /// The topic of the partition to elect (with --partition).
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// The partition to elect (with --topic).
    #[arg(long, value_name = "N", value_hint = ValueHint::Other)]
    pub partition: Option<i32>,
    /// The partitions to elect: {"partitions":[{"topic":"foo","partition":1}]}.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub path_to_json_file: Option<PathBuf>,
}

/// Kafka's `ElectionTypeConverter`: the enum's name, in any case.
fn election_type(text: &str) -> std::result::Result<ElectionType, String> {
    match text.to_ascii_uppercase().as_str() {
        "PREFERRED" => Ok(ElectionType::Preferred),
        "UNCLEAN" => Ok(ElectionType::Unclean),
        _ => Err(format!(
            "Value {text} is not valid, must be one of: [PREFERRED, UNCLEAN]"
        )),
    }
}

/// `--path-to-json-file` (`parseReplicaElectionData`).
fn parse_json(text: &str) -> std::result::Result<Vec<(String, i32)>, String> {
    let json: Value =
        serde_json::from_str(text).map_err(|_| "Replica election data is empty".to_string())?;
    let partitions = json
        .get("partitions")
        .ok_or("Replica election data is missing \"partitions\" field")?;
    let list = partitions
        .as_array()
        .ok_or_else(|| format!("Expected JSON array, received {partitions}"))?;
    let mut out = Vec::new();
    for entry in list {
        let topic = entry.get("topic").ok_or("No such field exists: `topic`")?;
        let topic = topic
            .as_str()
            .ok_or_else(|| format!("Expected `String` value, received {topic}"))?;
        let partition = entry
            .get("partition")
            .ok_or("No such field exists: `partition`")?;
        let partition = partition
            .as_i64()
            .and_then(|p| i32::try_from(p).ok())
            .ok_or_else(|| format!("Expected `Integer` value, received {partition}"))?;
        out.push((topic.to_string(), partition));
    }
    let mut seen = BTreeSet::new();
    let dups: BTreeSet<String> = out
        .iter()
        .filter(|tp| !seen.insert((*tp).clone()))
        .map(|(t, p)| format!("{t}-{p}"))
        .collect();
    if !dups.is_empty() {
        return Err(format!(
            "Replica election data contains duplicate partitions: [{}]",
            dups.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    out.sort();
    Ok(out)
}

pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let Some(election_type) = args.election_type else {
        return Err(Exit::failure("Missing required option(s): election-type").into());
    };
    let chosen = [
        args.topic.is_some(),
        args.all_topic_partitions,
        args.path_to_json_file.is_some(),
    ];
    if chosen.iter().filter(|&&c| c).count() != 1 {
        return Err(Exit::failure(
            "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file",
        )
        .into());
    }
    if args.topic.is_some() && args.partition.is_none() {
        return Err(Exit::failure("Missing required option(s): partition").into());
    }
    if args.topic.is_none() && args.partition.is_some() {
        return Err(Exit::failure("Option partition is only allowed if topic is used").into());
    }
    if !is_cluster_dir(&global.data_dir) {
        return Err(Exit::failure(format!(
            "{} is not a cluster directory (one `kafkit cluster init` made): leader-election elects leaders among a cluster's brokers",
            global.data_dir.display()
        ))
        .into());
    }
    let partitions = match (&args.topic, args.partition, &args.path_to_json_file) {
        (Some(topic), Some(partition), _) => Some(vec![(topic.clone(), partition)]),
        (_, _, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Exit::failure(format!("{}: {e}", path.display())))?;
            Some(parse_json(&text).map_err(Exit::failure)?)
        }
        _ => None,
    };
    let now = kafkit::datadir::now_ms();
    let results = elect_leaders(&global.data_dir, partitions.as_deref(), election_type, now)?;
    let name = |(t, p): &(String, i32)| format!("{t}-{p}");
    let succeeded: Vec<String> = results
        .iter()
        .filter(|(_, r)| r.is_ok())
        .map(|(tp, _)| name(tp))
        .collect();
    let noop: Vec<String> = results
        .iter()
        .filter(|(_, r)| matches!(r, Err(kafkit::cluster::election::ElectionError::NotNeeded)))
        .map(|(tp, _)| name(tp))
        .collect();
    let failed: Vec<(String, String)> = results
        .iter()
        .filter_map(|(tp, r)| match r {
            Err(kafkit::cluster::election::ElectionError::NotNeeded) | Ok(()) => None,
            Err(e) => Some((name(tp), e.to_string())),
        })
        .collect();
    let mut out = BufWriter::new(io::stdout().lock());
    let kind = election_type.as_str();
    if global.output == OutputFormat::Json {
        for ((topic, partition), result) in &results {
            let error = result.as_ref().err();
            write_event(
                &mut out,
                &ElectionEvent::Election {
                    topic,
                    partition: *partition,
                    election_type: kind,
                    error: error.map(|e| e.name()),
                    message: error.map(ToString::to_string),
                },
            )?;
        }
    }
    let text = global.output == OutputFormat::Text;
    if text && !succeeded.is_empty() {
        writeln!(
            out,
            "Successfully completed leader election ({kind}) for partitions {}",
            succeeded.join(", ")
        )?;
    }
    if text && !noop.is_empty() {
        writeln!(
            out,
            "Valid replica already elected for partitions {}",
            noop.join(", ")
        )?;
    }
    for (tp, error) in failed.iter().filter(|_| text) {
        writeln!(
            out,
            "Error completing leader election ({kind}) for partition: {tp}: {error}"
        )?;
    }
    out.flush()?;
    if !failed.is_empty() {
        return Err(
            Exit::failure(format!("{} replica(s) could not be elected", failed.len())).into(),
        );
    }
    Ok(())
}
