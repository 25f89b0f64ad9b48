//! `kafkit reassign-partitions`: Kafka's `kafka-reassign-partitions.sh`
//! (`ReassignPartitionsCommand`) on a cluster made by `cluster init`: `--generate` proposes,
//! `--execute` moves replicas (and their data), `--verify` tells where each partition stands.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::ValueHint;

use super::{Example, Exit, GlobalArgs};
use kafkit::cluster::reassign::{
    cancel, cancellable, check_execute, execute, format_json, generate, parse_generate_args,
    parse_reassignment_json, plan_execute, verify, verify_text, Assignment, Executed,
    ReassignError, VerifyState,
};
use kafkit::cluster::topics::is_cluster_dir;
use kafkit::cluster::{MetadataImage, METADATA_PARTITION};
use kafkit::common::TopicPartition;
use kafkit::output::json::write_event;
use kafkit::output::ops::ReassignEvent;
use kafkit::output::OutputFormat;

/// Examples of `kafkit reassign-partitions` (`tests/man.rs` runs them, in order).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a cluster of three brokers with a topic on brokers 1 and 2:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic moved --replica-assignment 1:2",
    },
    Example {
        what: "Propose moving it to brokers 2 and 3:",
        line: "echo '{\"topics\":[{\"topic\":\"moved\"}],\"version\":1}' > topics.json && kafkit --data-dir cluster reassign-partitions --generate --topics-to-move-json-file topics.json --broker-list 2,3",
    },
    Example {
        what: "Move it, with its data, then check:",
        line: "echo '{\"version\":1,\"partitions\":[{\"topic\":\"moved\",\"partition\":0,\"replicas\":[3,2]}]}' > plan.json && kafkit --data-dir cluster reassign-partitions --execute --reassignment-json-file plan.json && kafkit --data-dir cluster reassign-partitions --verify --reassignment-json-file plan.json",
    },
];

/// Move partitions' replicas between the brokers of a cluster made by `cluster init`
/// (kafka-reassign-partitions.sh).
///
/// --generate prints the current assignment of the topics in --topics-to-move-json-file and
/// a proposal over --broker-list (Kafka's placement, random start, rack-aware unless
/// --disable-rack-aware). --execute writes the controller's records (the reassignment
/// started, each new replica joining the ISR, the last one completing it), copies the
/// leader's log to each new replica byte for byte, and deletes the removed replicas'
/// directories. --verify tells whether each partition of the file has its replicas.
/// --cancel reverts the reassignments of the file still in progress (a partition without a
/// leader to copy from stays in progress).
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// Propose a reassignment of the topics of --topics-to-move-json-file over --broker-list.
    #[arg(long)]
    pub generate: bool,
    /// Carry out the reassignment of --reassignment-json-file.
    #[arg(long)]
    pub execute: bool,
    /// Tell the state of the reassignment of --reassignment-json-file.
    #[arg(long)]
    pub verify: bool,
    /// Cancel the reassignments in progress of the partitions of --reassignment-json-file:
    /// their added replicas leave, the others stay.
    #[arg(long)]
    pub cancel: bool,
    /// The topics to move: {"topics":[{"topic":"foo"}],"version":1}.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub topics_to_move_json_file: Option<PathBuf>,
    /// The brokers to move them to, comma-separated ("1,2,3").
    #[arg(long, value_name = "ID,ID,...", value_hint = ValueHint::Other)]
    pub broker_list: Option<String>,
    /// The reassignment: {"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]}]}.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub reassignment_json_file: Option<PathBuf>,
    /// Place the proposal without racks.
    #[arg(long)]
    pub disable_rack_aware: bool,
    /// Execute even when a reassignment is in progress.
    #[arg(long)]
    pub additional: bool,
    /// With --verify: leave throttles as they are (kafkit sets none).
    #[arg(long)]
    pub preserve_throttles: bool,
}

/// Kafka's failure output: `Error: <message>`, or the message alone for its terse errors.
fn failure(e: &ReassignError) -> anyhow::Error {
    if e.is_terse() {
        Exit::failure(e.to_string()).into()
    } else {
        Exit::failure(format!("Error: {e}")).into()
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| Exit::failure(format!("Error: {}: {e}", path.display())).into())
}

/// Kafka's `Successfully <done> partition reassignment(s) <for> t-0,t-1`.
fn successfully(done: &str, for_: &str, partitions: &[&TopicPartition]) -> String {
    let names: Vec<String> = partitions.iter().map(ToString::to_string).collect();
    format!(
        "Successfully {done} partition reassignment{} {for_} {}",
        if names.len() == 1 { "" } else { "s" },
        names.join(",")
    )
}

/// `current` (or `proposed`) objects, one per partition.
fn write_assignment(
    out: &mut impl Write,
    assignment: &Assignment,
    current: bool,
) -> io::Result<()> {
    for (tp, replicas) in assignment {
        let (topic, partition) = (&*tp.topic, tp.partition);
        let event = if current {
            ReassignEvent::Current {
                topic,
                partition,
                replicas,
            }
        } else {
            ReassignEvent::Proposed {
                topic,
                partition,
                replicas,
            }
        };
        write_event(out, &event)?;
    }
    Ok(())
}

fn reassignment_event(
    out: &mut impl Write,
    tp: &TopicPartition,
    state: &'static str,
    replicas: &[i32],
    target: &Assignment,
) -> io::Result<()> {
    write_event(
        out,
        &ReassignEvent::Reassignment {
            topic: &tp.topic,
            partition: tp.partition,
            state,
            replicas,
            target: target.get(tp).map(Vec::as_slice).unwrap_or_default(),
        },
    )
}

pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let actions = [args.generate, args.execute, args.verify, args.cancel];
    if actions.iter().filter(|&&a| a).count() != 1 {
        return Err(super::usage_error(
            "reassign-partitions",
            "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list",
        ));
    }
    let missing = |name: &str| {
        super::usage_error(
            "reassign-partitions",
            format!("Missing required argument \"[{name}]\""),
        )
    };
    let action = if args.generate {
        "generate"
    } else if args.execute {
        "execute"
    } else if args.cancel {
        "cancel"
    } else {
        "verify"
    };
    let not_with = |option: &str| {
        super::usage_error(
            "reassign-partitions",
            format!("Option \"[{option}]\" can't be used with action \"[{action}]\""),
        )
    };
    if !is_cluster_dir(&global.data_dir) {
        return Err(Exit::failure(format!(
            "{} is not a cluster directory (one `kafkit cluster init` made): reassign-partitions moves replicas between a cluster's brokers",
            global.data_dir.display()
        ))
        .into());
    }
    let image = MetadataImage::load(&global.data_dir.join(METADATA_PARTITION))?;
    let mut out = BufWriter::new(io::stdout().lock());
    let json = global.output == OutputFormat::Json;
    if args.generate {
        if args.reassignment_json_file.is_some() {
            return Err(not_with("reassignment-json-file"));
        }
        let topics_file = args
            .topics_to_move_json_file
            .as_deref()
            .ok_or_else(|| missing("topics-to-move-json-file"))?;
        let brokers = args
            .broker_list
            .as_deref()
            .ok_or_else(|| missing("broker-list"))?;
        let (brokers, topics) =
            parse_generate_args(&read(topics_file)?, brokers).map_err(|e| failure(&e))?;
        let (current, proposed) = generate(&image, &topics, &brokers, !args.disable_rack_aware)
            .map_err(|e| failure(&e))?;
        if json {
            write_assignment(&mut out, &current, true)?;
            write_assignment(&mut out, &proposed, false)?;
        } else {
            writeln!(
                out,
                "Current partition replica assignment\n{}\n",
                format_json(&current)
            )?;
            writeln!(
                out,
                "Proposed partition reassignment configuration\n{}",
                format_json(&proposed)
            )?;
        }
        out.flush()?;
        return Ok(());
    }
    if args.topics_to_move_json_file.is_some() {
        return Err(not_with("topics-to-move-json-file"));
    }
    if args.broker_list.is_some() {
        return Err(not_with("broker-list"));
    }
    let file = args
        .reassignment_json_file
        .as_deref()
        .ok_or_else(|| missing("reassignment-json-file"))?;
    let entries = parse_reassignment_json(&read(file)?).map_err(|e| failure(&e))?;
    if args.execute {
        let target = check_execute(&entries).map_err(|e| failure(&e))?;
        let current = plan_execute(&image, &target, args.additional).map_err(|e| failure(&e))?;
        if json {
            write_assignment(&mut out, &current, true)?;
        } else {
            writeln!(
                out,
                "Current partition replica assignment\n\n{}\n\nSave this to use as the --reassignment-json-file option during rollback",
                format_json(&current)
            )?;
        }
        out.flush()?;
        let now = kafkit::datadir::now_ms();
        let done = execute(&global.data_dir, &target, now).map_err(|e| failure(&e))?;
        if json {
            let image = MetadataImage::load(&global.data_dir.join(METADATA_PARTITION))?;
            let (states, _) = verify(&image, &target);
            for (tp, executed) in &done {
                let state = match executed {
                    Executed::Started => "in_progress",
                    Executed::Completed | Executed::Unchanged => "completed",
                };
                let replicas = match states.get(tp) {
                    Some(VerifyState::Done { current }) => current.as_slice(),
                    _ => &[],
                };
                reassignment_event(&mut out, tp, state, replicas, &target)?;
            }
        } else {
            let names: Vec<&TopicPartition> = target.keys().collect();
            writeln!(out, "{}", successfully("started", "for", &names))?;
        }
        out.flush()?;
        return Ok(());
    }
    // --verify, --cancel: the file's partitions, the last entry of a partition named twice
    // winning.
    let target: Assignment = entries.into_iter().collect();
    if args.cancel {
        let cancelled = cancellable(&image, &target);
        if !cancelled.is_empty() {
            cancel(&global.data_dir, &cancelled, kafkit::datadir::now_ms())
                .map_err(|e| failure(&e))?;
        }
        if json {
            let image = MetadataImage::load(&global.data_dir.join(METADATA_PARTITION))?;
            for tp in &cancelled {
                let replicas = image
                    .topics
                    .get(&*tp.topic)
                    .and_then(|t| t.partitions.get(&tp.partition))
                    .map(|p| p.replicas.clone())
                    .unwrap_or_default();
                reassignment_event(&mut out, tp, "cancelled", &replicas, &target)?;
            }
            out.flush()?;
            return Ok(());
        }
        if cancelled.is_empty() {
            writeln!(
                out,
                "None of the specified partition reassignments are active."
            )?;
        } else {
            let names: Vec<&TopicPartition> = cancelled.iter().collect();
            writeln!(out, "{}", successfully("cancelled", "for:", &names))?;
        }
        // Kafka prints this one without a line end.
        write!(out, "None of the specified partition moves are active.")?;
        if !args.preserve_throttles {
            clear_throttles(&mut out, &image, &target)?;
        }
        out.flush()?;
        return Ok(());
    }
    let (states, ongoing) = verify(&image, &target);
    if json {
        for (tp, state) in &states {
            let (state, replicas) = match state {
                VerifyState::InProgress => ("in_progress", &[][..]),
                VerifyState::Done { current } if Some(current) == target.get(tp) => {
                    ("completed", current.as_slice())
                }
                VerifyState::Done { current } => ("differs", current.as_slice()),
            };
            reassignment_event(&mut out, tp, state, replicas, &target)?;
        }
        out.flush()?;
        return Ok(());
    }
    writeln!(out, "{}", verify_text(&states, &target))?;
    // Kafka then prints the replica log-dir moves, none here: an empty line.
    writeln!(out)?;
    if !ongoing && !args.preserve_throttles {
        clear_throttles(&mut out, &image, &target)?;
    }
    out.flush()?;
    Ok(())
}

/// Kafka's `clearAllThrottles` lines (kafkit sets no throttle, so there is nothing to clear):
/// every broker of the cluster and of the file, the file's topics.
fn clear_throttles(
    out: &mut impl Write,
    image: &MetadataImage,
    target: &Assignment,
) -> io::Result<()> {
    let mut brokers: Vec<i32> = image.brokers.keys().copied().collect();
    brokers.extend(target.values().flatten());
    brokers.sort_unstable();
    brokers.dedup();
    let mut topics: Vec<&str> = target.keys().map(|tp| &*tp.topic).collect();
    topics.dedup();
    let list: Vec<String> = brokers.iter().map(ToString::to_string).collect();
    writeln!(
        out,
        "Clearing broker-level throttles on broker{} {}",
        if brokers.len() == 1 { "" } else { "s" },
        list.join(",")
    )?;
    writeln!(
        out,
        "Clearing topic-level throttles on topic{} {}",
        if topics.len() == 1 { "" } else { "s" },
        topics.join(",")
    )
}
