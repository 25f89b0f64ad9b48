//! `consumer-groups --reset-offsets`, `--delete` and `--delete-offsets`: Kafka's
//! `ConsumerGroupService.resetOffsets`/`deleteGroups`/`deleteOffsets`, their messages and
//! tables, over `kafkit::group::admin` (each group's coordinator checks its state and writes)
//! and `kafkit::group::reset` (the new offsets).

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;

use super::{failed, warn_skipped, Args};
use crate::{stderrln, usage_error, Exit, GlobalArgs};
use kafkit::assign::java::compare_strings;
use kafkit::datadir::{now_ms, DataDir, TopicPartition};
use kafkit::group::admin::{AdminError, CommitOutcome, GroupAdmin};
use kafkit::group::reset::{self, Notice, Planner, ResetError, Scenario};
use kafkit::group::{GroupState, Groups};
use kafkit::output::groups::{self, GroupWriteEvent};
use kafkit::output::json::write_event;
use kafkit::output::{log4j, OutputFormat};

/// The logger of Kafka's `checkOffsetsRange` warnings.
const COMMAND_LOGGER: &str = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

/// Kafka's error for a topic or partition the data directory does not have.
const UNKNOWN_TOPIC: &str = "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.";

fn usage(message: impl Into<String>) -> anyhow::Error {
    usage_error("consumer-groups", message)
}

/// A run that printed its errors (Kafka's `Error: ...` lines on stdout) and exits 1.
fn printed_failure() -> anyhow::Error {
    Exit {
        message: String::new(),
        code: 1,
    }
    .into()
}

/// The groups asked for, in id order, once each.
fn sorted(ids: &[String]) -> Vec<&str> {
    let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    ids.sort_by(|a, b| compare_strings(a, b));
    ids.dedup();
    ids
}

/// `--topic t` (every partition of t) and `--topic t:0,1`, as Kafka's
/// `parseTopicPartitionsToReset` reads them; a topic the data directory does not have is
/// `Err(topic)`.
fn topic_partitions(
    datadir: &DataDir,
    args: &[String],
) -> Result<Vec<Result<TopicPartition, String>>> {
    let mut out = Vec::new();
    for arg in args {
        if arg.contains(':') {
            let parts: Vec<&str> = arg.split(':').collect();
            let [topic, partitions] = parts.as_slice() else {
                return Err(usage(format!(
                    "Invalid topic arg '{arg}', expected topic name and partitions"
                )));
            };
            for p in partitions.split(',') {
                let partition: i32 = p.parse().map_err(|_| {
                    usage(format!(
                        "Invalid partition '{p}' specified in topic arg '{arg}''"
                    ))
                })?;
                out.push(Ok(TopicPartition::new(*topic, partition)));
            }
        } else {
            match datadir.topic(arg)? {
                Some(topic) => out.extend(topic.topic_partitions().into_iter().map(Ok)),
                None => out.push(Err(arg.clone())),
            }
        }
    }
    Ok(out)
}

/// The scenario of the arguments (validated: exactly one).
fn scenario(args: &Args, single_group: Option<&str>) -> Result<Option<ScenarioArg>> {
    let timestamp = |parsed: Result<i64, reset::TimeParseError>| parsed.map_err(failed);
    Ok(Some(if args.to_earliest {
        ScenarioArg::One(Scenario::Earliest)
    } else if args.to_latest {
        ScenarioArg::One(Scenario::Latest)
    } else if args.to_current {
        ScenarioArg::One(Scenario::Current)
    } else if let Some(offset) = args.to_offset {
        ScenarioArg::One(Scenario::Offset(offset))
    } else if let Some(by) = args.shift_by {
        ScenarioArg::One(Scenario::ShiftBy(by))
    } else if let Some(text) = &args.to_datetime {
        ScenarioArg::One(Scenario::Timestamp(timestamp(reset::parse_datetime(text))?))
    } else if let Some(text) = &args.by_duration {
        let duration = timestamp(reset::parse_duration(text))?;
        ScenarioArg::One(Scenario::Timestamp(now()?.saturating_sub(duration)))
    } else if let Some(path) = &args.from_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        let plans = reset::parse_plan(&text, single_group)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        ScenarioArg::Plans(plans)
    } else {
        return Ok(None);
    }))
}

enum ScenarioArg {
    One(Scenario),
    Plans(BTreeMap<String, BTreeMap<TopicPartition, i64>>),
}

/// Now, in ms: `KAFKIT_NOW_MS` when set (a clock tests can fix), else the system clock's.
fn now() -> Result<i64> {
    match std::env::var("KAFKIT_NOW_MS") {
        Ok(text) => text
            .parse()
            .map_err(|_| failed(format!("KAFKIT_NOW_MS '{text}' is not a time in ms"))),
        Err(_) => Ok(now_ms()),
    }
}

fn refusal(
    out: &mut impl Write,
    format: OutputFormat,
    group: &str,
    state: GroupState,
) -> Result<()> {
    let message = format!(
        "Assignments can only be reset if the group '{group}' is inactive, but the current state is {state}."
    );
    match format {
        OutputFormat::Text => writeln!(out, "\nError: {message}")?,
        OutputFormat::Json => write_event(
            out,
            &GroupWriteEvent::ResetRefused {
                group,
                state: state.name(),
                message,
            },
        )?,
    }
    Ok(())
}

fn report_notices(out: &mut impl Write, format: OutputFormat, notices: Vec<Notice>) -> Result<()> {
    for notice in notices {
        match notice {
            Notice::Skipped(tail) => {
                out.flush()?;
                warn_skipped(&[tail]);
            }
            Notice::NoTimestamp { .. } if format == OutputFormat::Text => {
                writeln!(out, "\n{notice}")?;
            }
            Notice::NoTimestamp { .. } => stderrln!("{notice}"),
            Notice::AboveEnd { .. } | Notice::BelowStart { .. } => {
                out.flush()?;
                stderrln!(
                    "{}",
                    log4j::line("WARN", &notice.to_string(), COMMAND_LOGGER)
                );
            }
        }
    }
    Ok(())
}

/// `--reset-offsets`.
pub(super) fn reset_offsets(
    args: &Args,
    global: &GlobalArgs,
    datadir: &DataDir,
    loaded: &Groups,
    admin: &mut GroupAdmin<'_>,
    ids: &[String],
    out: &mut impl Write,
) -> Result<()> {
    let single_group = match args.group.as_slice() {
        [one] => Some(one.as_str()),
        _ => None,
    };
    let Some(scenario) = scenario(args, single_group)? else {
        return Err(usage("Option '[reset-offsets]' requires one of the following scenarios: [[to-offset], [shift-by], [to-datetime], [by-duration], [to-earliest], [to-latest], [to-current], [from-file]]"));
    };
    if !args.all_topics && args.topic.is_empty() && args.from_file.is_none() {
        return Err(usage(
            "One of the reset scopes should be defined: --all-topics, --topic.",
        ));
    }
    let named = topic_partitions(datadir, &args.topic)?;
    let named: Vec<TopicPartition> = named
        .into_iter()
        .collect::<Result<_, _>>()
        .map_err(|_| failed(UNKNOWN_TOPIC))?;
    let planner = Planner::new(datadir)?;
    let mut resets: Vec<(&str, BTreeMap<TopicPartition, i64>)> = Vec::new();
    let mut refused = false;
    for id in sorted(ids) {
        let summary = if args.execute {
            admin.describe_hosted(id)
        } else {
            admin.describe(id)
        }
        .map_err(failed)?;
        let state = summary.map_or(GroupState::Dead, |s| s.group_state());
        if !matches!(state, GroupState::Empty | GroupState::Dead) {
            refusal(out, global.output, id, state)?;
            resets.push((id, BTreeMap::new()));
            refused = true;
            continue;
        }
        let empty = BTreeMap::new();
        let committed = loaded.get(id).map_or(&empty, |g| &g.offsets);
        let partitions: Vec<TopicPartition> = if args.all_topics {
            committed.keys().cloned().collect()
        } else {
            named.clone()
        };
        let one;
        let scenario = match &scenario {
            ScenarioArg::One(s) => s,
            ScenarioArg::Plans(plans) => match plans.get(id) {
                Some(plan) => {
                    one = Scenario::Plan(plan.clone());
                    &one
                }
                None => {
                    if global.output == OutputFormat::Text {
                        writeln!(out, "\nError: No reset plan for group {id} found")?;
                    } else {
                        stderrln!("Error: No reset plan for group {id} found");
                    }
                    resets.push((id, BTreeMap::new()));
                    continue;
                }
            },
        };
        let planned = planner
            .plan(scenario, &partitions, committed)
            .map_err(|e| match e {
                ResetError::NoCommittedOffset(_) => usage(e.to_string()),
                e => failed(e),
            })?;
        report_notices(out, global.output, planned.notices)?;
        if args.execute {
            let offsets: Vec<(TopicPartition, i64)> = planned
                .offsets
                .iter()
                .map(|(tp, o)| (tp.clone(), *o))
                .collect();
            if let CommitOutcome::Active(summary) = admin.commit(id, &offsets).map_err(failed)? {
                refusal(out, global.output, id, summary.group_state())?;
                resets.push((id, BTreeMap::new()));
                refused = true;
                continue;
            }
        }
        resets.push((id, planned.offsets));
    }
    let shown: Vec<(&str, &BTreeMap<TopicPartition, i64>)> =
        resets.iter().map(|(g, o)| (*g, o)).collect();
    if args.export && global.output == OutputFormat::Text {
        let csv = reset::export_csv(shown, single_group.is_none());
        writeln!(out, "{csv}")?;
    } else {
        groups::write_reset(out, &shown, args.execute, global.output)?;
    }
    if refused {
        return Err(printed_failure());
    }
    Ok(())
}

/// `--delete`.
///
/// `delete` asks a group's coordinator (the directory's or the cluster's) to delete it.
pub(super) fn delete_groups(
    global: &GlobalArgs,
    delete: &mut dyn FnMut(&str) -> Result<Option<AdminError>>,
    ids: &[String],
    out: &mut impl Write,
) -> Result<()> {
    let mut deleted = Vec::new();
    let mut failures = Vec::new();
    for id in sorted(ids) {
        match delete(id)? {
            None => deleted.push(id),
            Some(error) => failures.push((id, error)),
        }
    }
    if global.output == OutputFormat::Json {
        for group in &deleted {
            write_event(out, &GroupWriteEvent::GroupDeleted { group })?;
        }
        for (group, error) in &failures {
            write_event(
                out,
                &GroupWriteEvent::GroupNotDeleted {
                    group,
                    error: error.name(),
                    message: error.message(),
                },
            )?;
        }
    } else {
        // The Scala tool's lists ('a', 'b'): the later Java tool's ('a, b') lost the quotes.
        let list = |ids: &[&str]| format!("'{}'", ids.join("', '"));
        if failures.is_empty() {
            writeln!(
                out,
                "Deletion of requested consumer groups ({}) was successful.",
                list(&deleted)
            )?;
        } else {
            writeln!(out, "\nError: Deletion of some consumer groups failed:")?;
            for (group, error) in &failures {
                writeln!(
                    out,
                    "* Group '{group}' could not be deleted due to: java.util.concurrent.ExecutionException: {error}"
                )?;
            }
            if !deleted.is_empty() {
                writeln!(
                    out,
                    "\nThese consumer groups were deleted successfully: {}",
                    list(&deleted)
                )?;
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(printed_failure())
    }
}

/// `--delete-offsets`.
pub(super) fn delete_offsets(
    args: &Args,
    global: &GlobalArgs,
    datadir: &DataDir,
    admin: &mut GroupAdmin<'_>,
    out: &mut impl Write,
) -> Result<()> {
    let [group] = args.group.as_slice() else {
        return Err(usage(
            "Found multiple arguments for option group, but you asked for only one",
        ));
    };
    let mut rows: Vec<(TopicPartition, Option<i32>, Option<AdminError>)> = Vec::new();
    let mut partitions = Vec::new();
    for named in topic_partitions(datadir, &args.topic)? {
        match named {
            Ok(tp) => partitions.push(tp),
            Err(topic) => rows.push((
                TopicPartition::new(topic.as_str(), -1),
                None,
                Some(AdminError::UnknownTopicOrPartition),
            )),
        }
    }
    partitions.sort();
    partitions.dedup();
    let outcome = admin.delete_offsets(group, &partitions).map_err(failed)?;
    let top = match outcome {
        Ok(results) => {
            let first_error = results.iter().find_map(|(_, e)| *e);
            rows.extend(
                results
                    .into_iter()
                    .map(|(tp, error)| (tp.clone(), Some(tp.partition), error)),
            );
            first_error
        }
        Err(error) => {
            rows.extend(
                partitions
                    .iter()
                    .map(|tp| (tp.clone(), Some(tp.partition), Some(error))),
            );
            Some(error)
        }
    };
    if global.output == OutputFormat::Text {
        match top {
            None => writeln!(
                out,
                "Request succeed for deleting offsets with topic {} group {group}",
                args.topic.join(", ")
            )?,
            Some(AdminError::GroupIdNotFound) => {
                writeln!(out, "\nError: '{group}' does not exist.")?;
            }
            Some(AdminError::NonEmptyGroup) => writeln!(
                out,
                "\nError: Deleting offsets of a consumer group '{group}' is forbidden if the group is not empty."
            )?,
            Some(AdminError::GroupSubscribedToTopic | AdminError::UnknownTopicOrPartition) => {
                writeln!(
                    out,
                    "\nError: Encounter some partition level error, see the follow-up details:"
                )?;
            }
        }
    }
    groups::write_offset_deletions(out, group, &rows, global.output)?;
    if top.is_some() || rows.iter().any(|(_, _, e)| e.is_some()) {
        return Err(printed_failure());
    }
    Ok(())
}
