//! `kafkit consumer-groups`: Kafka's `kafka-consumer-groups.sh` (`ConsumerGroupCommand`) over
//! the groups of the data directory's `__consumer_offsets` (`kafka-cli-surface.md` §6.2):
//! `--list` and `--describe` (`--offsets`, `--members`, `--state`) read the partitions and take
//! no lock (`--describe --group` only the named groups' own partitions, `Groups::load_groups`);
//! `--reset-offsets --execute`, `--delete` and `--delete-offsets` go through each group's
//! coordinator (`kafkit::group::admin`), the running one or one hosted for the command.
//! With `--bootstrap-server`, every action asks a cluster's coordinators instead
//! (`kafkit::net::groups`), through the same checks, plans and printers.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;

use super::values::Suggest;
use super::{stderrln, usage_error, Example, Exit, GlobalArgs, QuietStderr};
use kafkit::assign::java::compare_strings;
use kafkit::common::TopicPartition;
use kafkit::datadir::log_ends::LogEndCache;
use kafkit::datadir::DataDir;
use kafkit::group::describe::{self, Coordinator, LogEnds};
use kafkit::group::{Group, GroupState, GroupType, Groups};
use kafkit::log::SkippedTail;
use kafkit::output::groups;
use kafkit::output::log4j;

/// Examples of `kafkit consumer-groups`, in its help and man page (`tests/man.rs` runs them,
/// in order, in an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic of ten records:",
        line: "kafkit topics --create --topic demo --partitions 3 && seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "The groups of the data directory, with their type and state:",
        line: "kafkit consumer-groups --list --type --state",
    },
    Example {
        what: "A group's committed offsets, log ends and lag, partition by partition:",
        line: "kafkit consumer-groups --describe --group my-group",
    },
    Example {
        what: "The members of every group and the partitions each is assigned:",
        line: "kafkit consumer-groups --describe --all-groups --members --verbose",
    },
    Example {
        what: "Reset a group's offsets of a topic to its first offsets (without --execute: only the plan):",
        line: "kafkit consumer-groups --reset-offsets --group my-group --topic demo --to-earliest --execute",
    },
    Example {
        what: "Delete a group that has no live member, with its committed offsets:",
        line: "kafkit consumer-groups --delete --group my-group",
    },
];

const STATE_NAMES: [&str; 7] = [
    "PreparingRebalance",
    "CompletingRebalance",
    "Stable",
    "Dead",
    "Empty",
    "Assigning",
    "Reconciling",
];

/// List, describe, delete consumer groups and reset their offsets (Kafka's
/// kafka-consumer-groups.sh).
///
/// This tool helps to list all consumer groups, describe a consumer group, delete consumer
/// group info, or reset consumer group offsets, as the data directory's __consumer_offsets
/// partitions hold them (a directory copied from a broker too). Groups are described as a
/// coordinator has them right after loading those partitions: members are not expired and
/// offsets do not expire. Changes go through the group's coordinator (a running member's, or
/// one the command hosts), which refuses them while the group has live members.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// List all consumer groups.
    #[arg(long)]
    pub list: bool,
    /// Pass in groups to delete topic partition offsets and ownership information over the
    /// entire consumer group. For instance --group g1 --group g2
    #[arg(long)]
    pub delete: bool,
    /// Reset offsets of consumer group. Supports one consumer group at the time, and instances
    /// should be inactive. Has 2 execution options: --dry-run (the default) to plan which
    /// offsets to reset, and --execute to update the offsets. Additionally, the --export option
    /// is used to export the results to a CSV format. You must choose one of the following
    /// reset specifications: --to-datetime, --by-duration, --to-earliest, --to-latest,
    /// --shift-by, --from-file, --to-current, --to-offset. To define the scope use --all-topics
    /// or --topic. One scope must be specified unless you use '--from-file'.
    #[arg(long)]
    pub reset_offsets: bool,
    /// Delete offsets of consumer group. Supports one consumer group at the time, and multiple
    /// topics.
    #[arg(long)]
    pub delete_offsets: bool,
    /// The topic whose consumer group information should be deleted or topic whose should be
    /// included in the reset offset process. In `reset-offsets` case, partitions can be
    /// specified using this format: `topic1:0,1,2`, where 0,1,2 are the partition to be
    /// included in the process. Reset-offsets also supports multiple topic inputs.
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Vec<String>,
    /// Consider all topics assigned to a group in the `reset-offsets` process.
    #[arg(long)]
    pub all_topics: bool,
    /// Only show results without executing changes on Consumer Groups. Supported operations:
    /// reset-offsets.
    #[arg(long)]
    pub dry_run: bool,
    /// Execute operation. Supported operations: reset-offsets.
    #[arg(long)]
    pub execute: bool,
    /// Export operation execution to a CSV format (on stdout). Supported operations:
    /// reset-offsets.
    #[arg(long)]
    pub export: bool,
    /// Reset offsets to a specific offset.
    #[arg(long, value_name = "OFFSET", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub to_offset: Option<i64>,
    /// Reset offsets to values defined in CSV file (`topic,partition,offset` lines for one
    /// --group, else `group,topic,partition,offset`: what --export prints).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub from_file: Option<PathBuf>,
    /// Reset offsets to offset from datetime. Format: 'YYYY-MM-DDTHH:mm:SS.sss' (a zone
    /// `Z`, `+hh`, `+hhmm` or `+hh:mm` may follow; none is UTC).
    #[arg(long, value_name = "DATETIME", value_hint = ValueHint::Other)]
    pub to_datetime: Option<String>,
    /// Reset offsets to offset by duration from current timestamp. Format: 'PnDTnHnMnS'. The
    /// current time is the clock's, or KAFKIT_NOW_MS (ms since the epoch) when it is set.
    #[arg(long, value_name = "DURATION", value_hint = ValueHint::Other)]
    pub by_duration: Option<String>,
    /// Reset offsets to earliest offset.
    #[arg(long)]
    pub to_earliest: bool,
    /// Reset offsets to latest offset.
    #[arg(long)]
    pub to_latest: bool,
    /// Reset offsets to current offset.
    #[arg(long)]
    pub to_current: bool,
    /// Reset offsets shifting current offset by 'n', where 'n' can be positive or negative.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub shift_by: Option<i64>,
    /// Describe consumer group and list offset lag (number of messages not yet processed)
    /// related to given group.
    #[arg(long)]
    pub describe: bool,
    /// The consumer group we wish to act on (repeatable).
    #[arg(long, value_name = "GROUP", value_hint = ValueHint::Other)]
    pub group: Vec<String>,
    /// Apply to all consumer groups.
    #[arg(long)]
    pub all_groups: bool,
    /// Describe the group and list all topic partitions in the group along with their offset
    /// lag. This is the default sub-action of and may be used with '--describe' only.
    #[arg(long)]
    pub offsets: bool,
    /// Describe members of the group. This option may be used with '--describe' only.
    #[arg(long)]
    pub members: bool,
    /// Provide additional information, if any, when describing the group (with '--members':
    /// each member's partitions). This option may be used with '--describe' only.
    #[arg(long)]
    pub verbose: bool,
    /// When specified with '--describe', includes the state of the group. When specified with
    /// '--list', it displays the state of all groups; it can also list groups with specific
    /// states (comma-separated, any case: stable,empty).
    #[arg(
        long,
        value_name = "STATES",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = Suggest::new(STATE_NAMES),
        hide_possible_values = true,
    )]
    pub state: Option<String>,
    /// When specified with '--list', it displays the types of all the groups; it can also list
    /// groups with specific types (comma-separated: classic,consumer).
    #[arg(
        long = "type",
        value_name = "TYPES",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = Suggest::new(["classic", "consumer"]),
        hide_possible_values = true,
    )]
    pub group_type: Option<String>,
    /// The brokers to connect to instead of --data-dir (every action: the groups of the
    /// cluster's coordinators).
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// Kafka's admin client properties for --bootstrap-server (request.timeout.ms, ...).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<PathBuf>,
    /// Accepted for compatibility with kafka-consumer-groups.sh and ignored (the groups are
    /// read from disk; there is nothing to wait for).
    #[arg(long, value_name = "MS", value_hint = ValueHint::Other)]
    pub timeout: Option<u64>,
}

/// Kafka's `checkArgs` and its action count, in its order, with its messages.
fn validate(args: &Args) -> Result<()> {
    let usage = |message: &str| Err(usage_error("consumer-groups", message));
    // jopt-simple refuses an option whose `availableIf` option is absent while parsing.
    for (given, name, available) in [
        (args.members, "members", args.describe),
        (args.verbose, "verbose", args.describe),
        (args.offsets, "offsets", args.describe),
        (args.state.is_some(), "state", args.describe || args.list),
        (args.group_type.is_some(), "type", args.list),
    ] {
        if given && !available {
            return usage(&format!(
                "Option(s) [{name}] are unavailable given other options on the command line"
            ));
        }
    }
    if args.describe {
        if args.group.is_empty() && !args.all_groups {
            return usage("Option [describe] takes one of these options: [group], [all-groups]");
        }
        let sub_actions = [args.members, args.offsets, args.state.is_some()];
        if sub_actions.iter().filter(|&&s| s).count() > 1 {
            return usage(
                "Option [describe] takes at most one of these options: [members], [offsets], [state]",
            );
        }
        if args.state.as_deref().is_some_and(|s| !s.is_empty()) {
            return usage("Option [describe] does not take a value for [state]");
        }
    }
    let scopes = "[group], [all-groups]";
    if args.delete {
        if args.group.is_empty() && !args.all_groups {
            return usage(&format!(
                "Option [delete] takes one of these options: {scopes}"
            ));
        }
        if !args.topic.is_empty() {
            return usage(
                "The consumer does not support topic-specific offset deletion from a consumer group.",
            );
        }
    }
    if args.delete_offsets && (args.group.is_empty() || args.topic.is_empty()) {
        return usage("Option [delete-offsets] takes the following options: [group], [topic]");
    }
    if args.reset_offsets {
        if args.dry_run && args.execute {
            return usage("Option [reset-offsets] only accepts one of [execute] and [dry-run]");
        }
        if !args.dry_run && !args.execute {
            stderrln!("WARN: No action will be performed as the --execute option is missing.In a future major release, the default behavior of this command will be to prompt the user before executing the reset rather than doing a dry run. You should add the --dry-run option explicitly if you are scripting this command and want to keep the current default behavior without prompting.");
        }
        if args.group.is_empty() && !args.all_groups {
            return usage(&format!(
                "Option [reset-offsets] takes one of these options: {scopes}"
            ));
        }
        let given: Vec<&str> = scenarios(args).map(|(name, _)| name).collect();
        if let [first, second, ..] = given.as_slice() {
            return usage(&format!(
                "Option \"[{first}]\" can't be used with option \"[{second}]\""
            ));
        }
    }
    if !args.group.is_empty() && args.all_groups {
        return usage("Option \"[group]\" can't be used with option \"[all-groups]\"");
    }
    if !args.group.is_empty() && args.list {
        return usage("Option \"[group]\" can't be used with option \"[list]\"");
    }
    for (given, action) in [(args.list, "list"), (args.describe, "describe")] {
        if given && !args.topic.is_empty() {
            return usage(&format!(
                "Option \"[topic]\" can't be used with option \"[{action}]\""
            ));
        }
    }
    let actions = [
        args.list,
        args.describe,
        args.delete,
        args.reset_offsets,
        args.delete_offsets,
    ];
    if actions.iter().filter(|&&a| a).count() != 1 {
        return usage("Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets");
    }
    // Kafka ignores the options of --reset-offsets given with another action; kafkit refuses
    // them in the words of Kafka's other conflicts, so that an --execute is never a no-op.
    if !args.reset_offsets {
        let action = ["list", "describe", "delete", "", "delete-offsets"]
            .into_iter()
            .zip(actions)
            .find_map(|(name, given)| given.then_some(name))
            .unwrap_or_default();
        let reset_only = [
            (args.all_topics, "all-topics"),
            (args.dry_run, "dry-run"),
            (args.execute, "execute"),
            (args.export, "export"),
        ]
        .into_iter()
        .chain(scenarios(args).map(|(name, _)| (true, name)));
        for (given, name) in reset_only {
            if given {
                return usage(&format!(
                    "Option \"[{name}]\" can't be used with option \"[{action}]\""
                ));
            }
        }
    }
    Ok(())
}

/// The reset scenarios given, in the order Kafka's `checkArgs` checks them.
fn scenarios(args: &Args) -> impl Iterator<Item = (&'static str, ())> + '_ {
    [
        (args.to_offset.is_some(), "to-offset"),
        (args.to_datetime.is_some(), "to-datetime"),
        (args.by_duration.is_some(), "by-duration"),
        (args.to_earliest, "to-earliest"),
        (args.to_latest, "to-latest"),
        (args.to_current, "to-current"),
        (args.shift_by.is_some(), "shift-by"),
        (args.from_file.is_some(), "from-file"),
    ]
    .into_iter()
    .filter_map(|(given, name)| given.then_some((name, ())))
}

/// `--state` of `--list`: the states asked for (empty: every state).
fn states(text: &str) -> Result<Vec<GroupState>> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let states: Vec<GroupState> = text
        .split(',')
        .map(|s| GroupState::parse(s.trim()))
        .collect();
    if states.contains(&GroupState::Unknown) {
        let valid: Vec<&str> = GroupState::CONSUMER_STATES
            .iter()
            .map(|s| s.name())
            .collect();
        return Err(usage_error(
            "consumer-groups",
            format!(
                "Invalid state list '{text}'. Valid states are: {}",
                valid.join(", ")
            ),
        ));
    }
    Ok(states)
}

/// `--type` of `--list`: the types asked for (empty: every type).
fn types(text: &str) -> Result<Vec<GroupType>> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|t| GroupType::parse(t.trim()))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            let valid: Vec<&str> = GroupType::ALL.iter().map(|t| t.name()).collect();
            usage_error(
                "consumer-groups",
                format!(
                    "Invalid types list '{text}'. Valid types are: {}",
                    valid.join(", ")
                ),
            )
        })
}

#[path = "consumer_groups_writes.rs"]
mod writes;

/// A failure Kafka's tool reports as `Error: Executing consumer group command failed due to ...`.
pub(crate) fn failed(message: impl std::fmt::Display) -> anyhow::Error {
    Exit::failure(format!(
        "Error: Executing consumer group command failed due to {message}"
    ))
    .into()
}

pub(crate) fn warn_skipped(tails: &[SkippedTail]) {
    for tail in tails {
        stderrln!(
            "{}",
            log4j::line("WARN", &tail.to_string(), log4j::LOG_READER)
        );
    }
}

/// Runs `kafkit consumer-groups`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    if let Some(servers) = &args.bootstrap_server {
        return run_cluster(args, global, servers);
    }
    validate(args)?;
    let datadir = DataDir::open(&global.data_dir)?;
    let writes = args.reset_offsets || args.delete || args.delete_offsets;
    // `--describe --offsets` reads the partitions' log ends: the log-end cache is loaded on
    // another thread while the groups are read.
    let mut cache = (args.describe && !args.members && args.state.is_none()).then(|| {
        let root = datadir.path().to_path_buf();
        std::thread::spawn(move || LogEndCache::load(&root))
    });
    let mut groups = if args.describe && !args.all_groups {
        // Only the groups named: each from its coordinator's partition.
        let ids: Vec<&str> = args.group.iter().map(String::as_str).collect();
        Groups::load_groups(&datadir, &ids)
    } else {
        Groups::load(&datadir)
    }
    .map_err(failed)?;
    // Members that died with their host are read as expired once their sessions ended, as a
    // broker's coordinator would have expired them.
    groups
        .expire_unhosted(&datadir, kafkit::datadir::now_ms())
        .map_err(failed)?;
    warn_skipped(groups.skipped_tails());
    if groups.unread_records() > 0 {
        stderrln!(
            "kafkit: skipped {} record(s) of __consumer_offsets of the new consumer protocol (KIP-848) or of share groups, which kafkit does not read yet: their groups are not shown",
            groups.unread_records()
        );
    }
    let mut consumer_groups: Vec<&Group> =
        groups.iter().filter(|g| g.is_consumer_group()).collect();
    consumer_groups.sort_by(|a, b| compare_strings(&a.id, &b.id));
    if writes {
        let ids: Vec<String> = if args.all_groups {
            consumer_groups.iter().map(|g| g.id.clone()).collect()
        } else {
            args.group.clone()
        };
        return writes::run(
            args,
            global,
            &mut writes::DirGroups::new(&datadir, &groups)?,
            &ids,
        );
    }
    let coordinator = Coordinator::of(&datadir);
    let view = View {
        consumer_groups,
        get: &|id| groups.get(id),
        coordinator: &|_| coordinator.clone(),
    };
    view.show(args, global, &mut |partitions| {
        // The cache loaded beside the groups serves the first group; later ones load it again
        // (the describe before may have written it).
        let cache = cache
            .take()
            .and_then(|loading| loading.join().ok())
            .unwrap_or_else(|| LogEndCache::load(datadir.path()));
        LogEnds::read_with(cache, partitions.iter().copied())
    })
}

/// Every action against a cluster: the groups its coordinators describe
/// (`kafkit::net::groups`), printed, planned and changed by the same code as a data
/// directory's.
fn run_cluster(args: &Args, global: &GlobalArgs, servers: &str) -> Result<()> {
    validate(args)?;
    let mut cluster = super::net::cluster(
        "consumer-groups",
        servers,
        args.command_config.as_deref(),
        &[],
        global,
        "adminclient-1",
    )?;
    let net_failed = |e: kafkit::net::NetError| failed(super::net::message(&e));
    if args.reset_offsets || args.delete || args.delete_offsets {
        let ids: Vec<String> = if args.all_groups {
            consumer_group_ids(&mut cluster).map_err(net_failed)?
        } else {
            args.group.clone()
        };
        return writes::run(args, global, &mut writes::ClusterGroups::new(cluster), &ids);
    }
    let mut ids: Vec<String> = if args.list || args.all_groups {
        consumer_group_ids(&mut cluster).map_err(net_failed)?
    } else {
        args.group.clone()
    };
    ids.sort_by(|a, b| compare_strings(a, b));
    ids.dedup();
    let mut described: Vec<Group> = Vec::new();
    let mut coordinators: BTreeMap<String, Coordinator> = BTreeMap::new();
    for id in &ids {
        let (group, coordinator) = cluster.describe_group(id).map_err(net_failed)?;
        coordinators.insert(id.clone(), coordinator);
        described.extend(group);
    }
    let mut consumer_groups: Vec<&Group> = described.iter().collect();
    if !args.list && !args.all_groups {
        // A group named that is not a consumer group is refused by `show`.
        consumer_groups.retain(|g| g.is_consumer_group());
    }
    let unknown = Coordinator {
        id: -1,
        host: String::new(),
        port: 0,
    };
    let view = View {
        consumer_groups,
        get: &|id| described.iter().find(|g| g.id == id),
        coordinator: &|id| {
            coordinators
                .get(id)
                .cloned()
                .unwrap_or_else(|| unknown.clone())
        },
    };
    view.show(args, global, &mut |partitions| {
        let tps: Vec<TopicPartition> = partitions.iter().map(|tp| (*tp).clone()).collect();
        let mut ends = LogEnds::default();
        // ListOffsets "latest" of each partition, the broker's log end (Kafka's lag).
        if let Ok(answers) = cluster.list_offsets(&tps, -1) {
            for (tp, answer) in answers {
                ends.ends.insert(tp, answer.ok().flatten());
            }
        }
        ends
    })
}

/// The ids of the cluster's consumer groups (protocol type `consumer`, or none: only offsets).
fn consumer_group_ids(
    cluster: &mut kafkit::net::Cluster,
) -> Result<Vec<String>, kafkit::net::NetError> {
    Ok(cluster
        .list_groups()?
        .into_iter()
        .filter(|g| g.protocol_type.is_empty() || g.protocol_type == "consumer")
        .map(|g| g.id)
        .collect())
}

/// The groups `--list` and `--describe` print, from a data directory or a cluster.
struct View<'a> {
    /// The consumer groups, in id order.
    consumer_groups: Vec<&'a Group>,
    /// A group by id (any protocol type), `None` when there is none.
    get: &'a dyn Fn(&str) -> Option<&'a Group>,
    /// The coordinator of a group.
    coordinator: &'a dyn Fn(&str) -> Coordinator,
}

impl View<'_> {
    /// `--list`, or `--describe` of the groups asked, each partition's log end from `ends`.
    fn show(
        self,
        args: &Args,
        global: &GlobalArgs,
        ends: &mut dyn FnMut(&BTreeSet<&TopicPartition>) -> LogEnds,
    ) -> Result<()> {
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        let consumer_groups = self.consumer_groups;
        if args.list {
            let wanted_states = states(args.state.as_deref().unwrap_or_default())?;
            let wanted_types = types(args.group_type.as_deref().unwrap_or_default())?;
            let listed: Vec<&Group> = consumer_groups
                .into_iter()
                .filter(|g| wanted_states.is_empty() || wanted_states.contains(&g.state))
                .filter(|g| wanted_types.is_empty() || wanted_types.contains(&g.group_type))
                .collect();
            groups::write_list(
                &mut out,
                &listed,
                args.group_type.is_some(),
                args.state.is_some(),
                global.output,
            )?;
            return Ok(out.flush()?);
        }
        let mut ids: Vec<&str> = if args.all_groups {
            consumer_groups.iter().map(|g| g.id.as_str()).collect()
        } else {
            args.group.iter().map(String::as_str).collect()
        };
        ids.sort_by(|a, b| compare_strings(a, b));
        ids.dedup();
        // Kafka's admin client describes every group before anything is printed.
        let mut described = Vec::new();
        for id in ids {
            let group = (self.get)(id);
            if let Some(g) = group.filter(|g| !g.is_consumer_group()) {
                return Err(failed(format!(
                    "GroupId {id} is not a consumer group ({}).",
                    g.protocol_type
                )));
            }
            let assignments = match group {
                Some(g) => describe::member_assignments(g).map_err(failed)?,
                None => Vec::new(),
            };
            described.push((id, group, assignments));
        }
        let mut diag = QuietStderr;
        for (id, group, assignments) in &described {
            if args.members {
                groups::write_members(
                    &mut out,
                    &mut diag,
                    id,
                    *group,
                    assignments,
                    args.verbose,
                    global.output,
                )?;
            } else if args.state.is_some() {
                let coordinator = (self.coordinator)(id);
                groups::write_state(&mut out, &mut diag, id, *group, &coordinator, global.output)?;
            } else {
                let rows = match group {
                    Some(g) => {
                        let ends = ends(&describe::partitions_of(g, assignments));
                        out.flush()?;
                        warn_skipped(&ends.skipped);
                        for (tp, e) in &ends.errors {
                            stderrln!("Skip getting the log end offset of {tp} due to error: {e}");
                        }
                        describe::offset_rows(g, assignments, |tp| ends.get(tp))
                    }
                    None => Vec::new(),
                };
                groups::write_offsets(&mut out, &mut diag, id, *group, &rows, global.output)?;
            }
        }
        Ok(out.flush()?)
    }
}
