//! `consumer-groups --reset-offsets`, `--delete` and `--delete-offsets`: Kafka's
//! `ConsumerGroupService.resetOffsets`/`deleteGroups`/`deleteOffsets`, their messages and
//! tables, over `kafkit::group::admin` (each group's coordinator checks its state and writes)
//! and `kafkit::group::reset` (the new offsets). Where the groups live is a [`GroupStore`]: a
//! data directory's coordinators ([`DirGroups`]) or a cluster's ([`ClusterGroups`]); the
//! checks, plans, messages and tables are one code for both.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;

use super::{failed, warn_skipped, Args};
use crate::{stderrln, usage_error, Exit, GlobalArgs};
use kafkit::assign::java::compare_strings;
use kafkit::datadir::{now_ms, DataDir, TopicPartition};
use kafkit::group::admin::{AdminError, CommitOutcome, GroupAdmin, OffsetDeletion};
use kafkit::group::reset::{self, DirOffsets, Notice, Planner, Reset, ResetError, Scenario};
use kafkit::group::{CommittedOffset, GroupState, Groups};
use kafkit::net::groups::ClusterOffsets;
use kafkit::net::{Cluster, NetError};
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
/// `parseTopicPartitionsToReset` reads them; a topic `store` does not have is `Err(topic)`.
fn topic_partitions(
    store: &mut dyn GroupStore,
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
            match store.partitions(arg)? {
                Some(partitions) => out.extend(partitions.into_iter().map(Ok)),
                None => out.push(Err(arg.clone())),
            }
        }
    }
    Ok(out)
}

/// The committed offsets of a group, by partition.
type Committed = BTreeMap<TopicPartition, CommittedOffset>;

/// Where the groups the writing actions change live, and what those actions ask of it.
pub(super) trait GroupStore {
    /// Every partition of `topic`; `None` when there is no such topic.
    fn partitions(&mut self, topic: &str) -> Result<Option<Vec<TopicPartition>>>;
    /// The group's state (Dead when unknown) and committed offsets, as its coordinator has
    /// them; `for_write`: as the coordinator that will write has them.
    fn describe(&mut self, group: &str, for_write: bool) -> Result<(GroupState, Committed)>;
    /// The new offsets of `partitions` for a group that committed `committed` (the one
    /// [`Planner`], over this store's partitions).
    fn plan(
        &mut self,
        scenario: &Scenario,
        partitions: &[TopicPartition],
        committed: &Committed,
    ) -> Result<Reset, ResetError>;
    /// Commits `offsets` for `group` from outside it (no member id, generation -1).
    fn commit(&mut self, group: &str, offsets: &[(TopicPartition, i64)]) -> Result<CommitOutcome>;
    /// Deletes `group`'s committed offsets of `partitions` (OffsetDelete).
    fn delete_offsets(
        &mut self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<OffsetDeletion>;
    /// Deletes `group` (DeleteGroups): `Some` error when its coordinator refused.
    fn delete_group(&mut self, group: &str) -> Result<Option<AdminError>>;
}

/// `--reset-offsets`, `--delete` or `--delete-offsets` of the groups `ids` in `store`.
pub(super) fn run(
    args: &Args,
    global: &GlobalArgs,
    store: &mut dyn GroupStore,
    ids: &[String],
) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let done = if args.reset_offsets {
        reset_offsets(args, global, store, ids, &mut out)
    } else if args.delete {
        delete_groups(global, &mut |id| store.delete_group(id), ids, &mut out)
    } else {
        delete_offsets(args, global, store, &mut out)
    };
    out.flush()?;
    done
}

/// A data directory's groups: its coordinators (`GroupAdmin`), its groups as loaded, its logs.
pub(super) struct DirGroups<'a> {
    datadir: &'a DataDir,
    loaded: &'a Groups,
    admin: GroupAdmin<'a>,
    planner: Planner<DirOffsets<'a>>,
}

impl<'a> DirGroups<'a> {
    /// The groups of `datadir`, as loaded in `loaded`.
    pub(super) fn new(datadir: &'a DataDir, loaded: &'a Groups) -> Result<Self> {
        Ok(DirGroups {
            datadir,
            loaded,
            admin: GroupAdmin::new(datadir, loaded),
            planner: Planner::new(datadir)?,
        })
    }
}

impl GroupStore for DirGroups<'_> {
    fn partitions(&mut self, topic: &str) -> Result<Option<Vec<TopicPartition>>> {
        Ok(self.datadir.topic(topic)?.map(|t| t.topic_partitions()))
    }

    fn describe(&mut self, group: &str, for_write: bool) -> Result<(GroupState, Committed)> {
        let summary = if for_write {
            self.admin.describe_hosted(group)
        } else {
            self.admin.describe(group)
        }
        .map_err(failed)?;
        let state = summary.map_or(GroupState::Dead, |s| s.group_state());
        let committed = self
            .loaded
            .get(group)
            .map(|g| g.offsets.clone())
            .unwrap_or_default();
        Ok((state, committed))
    }

    fn plan(
        &mut self,
        scenario: &Scenario,
        partitions: &[TopicPartition],
        committed: &Committed,
    ) -> Result<Reset, ResetError> {
        self.planner.plan(scenario, partitions, committed)
    }

    fn commit(&mut self, group: &str, offsets: &[(TopicPartition, i64)]) -> Result<CommitOutcome> {
        self.admin.commit(group, offsets).map_err(failed)
    }

    fn delete_offsets(
        &mut self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<OffsetDeletion> {
        self.admin.delete_offsets(group, partitions).map_err(failed)
    }

    fn delete_group(&mut self, group: &str) -> Result<Option<AdminError>> {
        self.admin.delete_group(group).map_err(failed)
    }
}

/// A cluster's groups: their coordinators and the partitions' leaders (`kafkit::net::groups`).
pub(super) struct ClusterGroups {
    cluster: Cluster,
}

impl ClusterGroups {
    /// The groups of `cluster`.
    pub(super) fn new(cluster: Cluster) -> Self {
        ClusterGroups { cluster }
    }
}

/// A failed call, as Kafka's tool reports it.
fn net_failed(e: NetError) -> anyhow::Error {
    failed(crate::net::message(&e))
}

impl GroupStore for ClusterGroups {
    fn partitions(&mut self, topic: &str) -> Result<Option<Vec<TopicPartition>>> {
        let topics = [topic];
        let leaders = self
            .cluster
            .with_retries(|c| c.leaders(&topics, false, "describeTopics"))
            .map_err(net_failed)?;
        Ok((!leaders.is_empty()).then(|| leaders.into_keys().collect()))
    }

    /// DescribeGroups and OffsetFetch: one coordinator decides and writes, so `for_write`
    /// changes nothing.
    fn describe(&mut self, group: &str, _for_write: bool) -> Result<(GroupState, Committed)> {
        let (described, _) = self.cluster.describe_group(group).map_err(net_failed)?;
        Ok(described.map_or((GroupState::Dead, BTreeMap::new()), |g| {
            (g.state, g.offsets)
        }))
    }

    fn plan(
        &mut self,
        scenario: &Scenario,
        partitions: &[TopicPartition],
        committed: &Committed,
    ) -> Result<Reset, ResetError> {
        Planner::over(ClusterOffsets::new(&mut self.cluster)).plan(scenario, partitions, committed)
    }

    fn commit(&mut self, group: &str, offsets: &[(TopicPartition, i64)]) -> Result<CommitOutcome> {
        self.cluster
            .commit_offsets(group, offsets)
            .map_err(net_failed)
    }

    fn delete_offsets(
        &mut self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<OffsetDeletion> {
        self.cluster
            .delete_offsets(group, partitions)
            .map_err(net_failed)
    }

    fn delete_group(&mut self, group: &str) -> Result<Option<AdminError>> {
        self.cluster.delete_group(group).map_err(net_failed)
    }
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
fn reset_offsets(
    args: &Args,
    global: &GlobalArgs,
    store: &mut dyn GroupStore,
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
    let named = topic_partitions(store, &args.topic)?;
    let named: Vec<TopicPartition> = named
        .into_iter()
        .collect::<Result<_, _>>()
        .map_err(|_| failed(UNKNOWN_TOPIC))?;
    let mut resets: Vec<(&str, BTreeMap<TopicPartition, i64>)> = Vec::new();
    let mut refused = false;
    for id in sorted(ids) {
        let (state, committed) = store.describe(id, args.execute)?;
        if !matches!(state, GroupState::Empty | GroupState::Dead) {
            refusal(out, global.output, id, state)?;
            resets.push((id, BTreeMap::new()));
            refused = true;
            continue;
        }
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
        let planned = store
            .plan(scenario, &partitions, &committed)
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
            if let CommitOutcome::Active(summary) = store.commit(id, &offsets)? {
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
fn delete_groups(
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
fn delete_offsets(
    args: &Args,
    global: &GlobalArgs,
    store: &mut dyn GroupStore,
    out: &mut impl Write,
) -> Result<()> {
    let [group] = args.group.as_slice() else {
        return Err(usage(
            "Found multiple arguments for option group, but you asked for only one",
        ));
    };
    let mut rows: Vec<(TopicPartition, Option<i32>, Option<AdminError>)> = Vec::new();
    let mut partitions = Vec::new();
    for named in topic_partitions(store, &args.topic)? {
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
    let outcome = store.delete_offsets(group, &partitions)?;
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
            Some(error @ AdminError::OffsetDeleteUnsupported) => {
                writeln!(out, "\nError: Encounter some unknown error: {}", error.name())?;
            }
        }
    }
    groups::write_offset_deletions(out, group, &rows, global.output)?;
    if top.is_some() || rows.iter().any(|(_, _, e)| e.is_some()) {
        return Err(printed_failure());
    }
    Ok(())
}
