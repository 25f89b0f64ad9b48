//! `kafkit topics`: Kafka's `kafka-topics.sh` over a data directory (`kafka-cli-surface.md` §1).
//!
//! Usage errors go to stderr with exit 1, as Kafka's `printUsageAndExit`; errors while
//! executing an action go to **stdout** as `Error while executing topic command : <message>`
//! with exit 1, as Kafka prints them.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::{ValueEnum, ValueHint};

use super::{stderrln, Example, Exit, GlobalArgs};
use kafkit::cluster::topics::{
    create_partitions as create_cluster_partitions, create_topic,
    delete_topic as delete_cluster_topic, is_cluster_dir, CreateTopicError, NewClusterTopic,
};
use kafkit::cluster::whatif::min_isr;
use kafkit::cluster::{MetadataImage, METADATA_PARTITION};
use kafkit::common::{Uuid, UuidError};
use kafkit::datadir::{
    names, DataDir, DataDirError, NewTopic, PartitionInfo, Topic, TopicConfigs, TopicFilter,
    TopicSource, MAX_REPLICATION_FACTOR,
};
use kafkit::net::admin::{CreateTopic, PartitionDescription};
use kafkit::net::{Cluster, NetError};
use kafkit::output::json::write_event;
use kafkit::output::topics::TopicsEvent;
use kafkit::output::OutputFormat;

/// Examples of `kafkit topics`, in its help and man page (`tests/man.rs` runs them, in order, in
/// an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Create a topic of three partitions (in ./kafka-logs, made if absent):",
        line: "kafkit topics --create --topic demo --partitions 3",
    },
    Example {
        what: "Create a compacted topic, with the action as a word:",
        line: "kafkit topics create --topic events --config cleanup.policy=compact",
    },
    Example {
        what: "List the topics, then describe one:",
        line: "kafkit topics --list && kafkit topics --describe --topic demo",
    },
    Example {
        what: "Describe every topic as JSON Lines:",
        line: "kafkit topics --describe --output json",
    },
    Example {
        what: "Grow a topic to six partitions:",
        line: "kafkit topics --alter --topic demo --partitions 6",
    },
    Example {
        what: "Delete a topic:",
        line: "kafkit topics --delete --topic events",
    },
];

/// The arguments of `kafkit topics`, named as kafka-topics.sh names them.
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// The action as a word, the same as its flag.
    #[arg(value_enum, value_name = "ACTION")]
    pub action: Option<Action>,
    /// Create a new topic.
    #[arg(long)]
    pub create: bool,
    /// List all available topics.
    #[arg(long)]
    pub list: bool,
    /// List details for the given topics.
    #[arg(long)]
    pub describe: bool,
    /// Alter the number of partitions and replica assignment. (To alter topic configurations,
    /// the kafka-configs tool can be used.)
    #[arg(long)]
    pub alter: bool,
    /// Delete a topic.
    #[arg(long)]
    pub delete: bool,
    /// The topic to create, alter, describe or delete. Except with --create it is a regular
    /// expression that must match whole names, where `,` means `|` (`a,b` selects a and b;
    /// escape dots: `my\.topic`).
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// The topic id to describe (22-character base64); wins over --topic.
    #[arg(long, value_name = "TOPIC_ID", value_hint = ValueHint::Other)]
    pub topic_id: Option<String>,
    /// The number of partitions for the topic being created or altered (default for create:
    /// the broker default num.partitions = 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub partitions: Option<String>,
    /// The replication factor for each partition of the topic being created (default 1; this
    /// one-broker directory cannot hold more).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub replication_factor: Option<String>,
    /// A list of manual partition-to-broker assignments for the topic being created or
    /// altered: `broker:broker,broker:broker,...` (partition 0 first).
    #[arg(long, value_name = "ASSIGNMENT", value_hint = ValueHint::Other)]
    pub replica_assignment: Option<String>,
    /// A topic configuration override for the topic being created, `name=value`; repeatable.
    /// Names: cleanup.policy, compression.type, retention.ms, segment.bytes, ... (every Kafka
    /// topic config).
    #[arg(long, value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub config: Vec<String>,
    /// No longer supported (Kafka 4.0); prints a warning only.
    #[arg(long, value_name = "NAME", value_hint = ValueHint::Other)]
    pub delete_config: Vec<String>,
    /// With --alter, --delete or --describe: only act if the topic exists.
    #[arg(long)]
    pub if_exists: bool,
    /// With --create: only create the topic if it does not already exist.
    #[arg(long)]
    pub if_not_exists: bool,
    /// Exclude internal topics when running --list or --describe.
    #[arg(long)]
    pub exclude_internal: bool,
    /// With --describe: only show topics that have overridden configs.
    #[arg(long)]
    pub topics_with_overrides: bool,
    /// With --describe: only show under-replicated partitions.
    #[arg(long)]
    pub under_replicated_partitions: bool,
    /// With --describe: only show partitions whose leader is not available.
    #[arg(long)]
    pub unavailable_partitions: bool,
    /// With --describe: only show partitions whose ISR count is below the configured minimum.
    #[arg(long)]
    pub under_min_isr_partitions: bool,
    /// With --describe: only show partitions whose ISR count equals the configured minimum.
    #[arg(long)]
    pub at_min_isr_partitions: bool,
    /// The brokers to connect to, `HOST:PORT[,HOST:PORT...]`, instead of --data-dir: every
    /// action runs against that cluster.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms,
    /// default.api.timeout.ms, client.id, ...).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<PathBuf>,
    /// Accepted for compatibility with kafka-topics.sh and ignored.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub partition_size_limit_per_response: Option<String>,
}

/// The five actions of kafka-topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Action {
    /// Create a new topic.
    Create,
    /// List all available topics.
    List,
    /// List details for the given topics.
    Describe,
    /// Add partitions to topics.
    Alter,
    /// Delete topics.
    Delete,
}

impl Action {
    fn option(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::List => "list",
            Action::Describe => "describe",
            Action::Alter => "alter",
            Action::Delete => "delete",
        }
    }
}

/// Where the topics are: a data directory, or a cluster (`--bootstrap-server`).
enum Backend {
    Dir,
    Cluster(Cluster),
}

/// Runs `kafkit topics`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let (action, note) = validate(args)?;
    let mut backend = match &args.bootstrap_server {
        None => Backend::Dir,
        Some(servers) => {
            let cluster = super::net::cluster(
                "topics",
                servers,
                args.command_config.as_deref(),
                &[],
                global,
                "adminclient-1",
            )?;
            Backend::Cluster(cluster)
        }
    };
    let stdout = io::stdout();
    let mut out = Out {
        w: BufWriter::new(stdout.lock()),
        format: global.output,
    };
    if let Some(note) = note {
        out.warning(note)?;
    }
    let result = match action {
        Action::Create => create(args, global, &mut backend, &mut out),
        Action::List => list(args, global, &mut backend, &mut out),
        Action::Describe => describe(args, global, &mut backend, &mut out),
        Action::Alter => alter(args, global, &mut backend, &mut out),
        Action::Delete => delete(args, global, &mut backend, &mut out),
    };
    match result {
        Ok(()) => {
            out.w.flush()?;
            Ok(())
        }
        Err(Failure::Io(e)) => Err(e.into()),
        // Kafka prints its line on stdout; with --output json, stdout is JSON Lines, and the
        // line goes where every command's error goes (`report`: stderr, and an `error` object).
        Err(Failure::Message(message)) => {
            out.w.flush()?;
            let line = format!("Error while executing topic command : {message}");
            match out.format {
                OutputFormat::Text => {
                    writeln!(out.w, "{line}")?;
                    out.w.flush()?;
                    Err(Exit {
                        message: String::new(),
                        code: 1,
                    }
                    .into())
                }
                OutputFormat::Json => Err(Exit::failure(line).into()),
            }
        }
    }
}

/// An action's failure: Kafka's message for stdout, or an I/O error writing the output.
enum Failure {
    Message(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

impl From<DataDirError> for Failure {
    fn from(e: DataDirError) -> Self {
        Failure::Message(e.to_string())
    }
}

impl From<NetError> for Failure {
    fn from(e: NetError) -> Self {
        Failure::Message(super::net::message(&e))
    }
}

type Outcome = std::result::Result<(), Failure>;

fn fail(message: impl Into<String>) -> Outcome {
    Err(Failure::Message(message.into()))
}

/// Where an action's results go: Kafka's text or JSON Lines.
struct Out<W: Write> {
    w: W,
    format: OutputFormat,
}

impl<W: Write> Out<W> {
    /// Writes one JSON Lines object.
    fn json(&mut self, event: &TopicsEvent) -> io::Result<()> {
        write_event(&mut self.w, event)
    }

    fn warning(&mut self, text: &str) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.w, "{text}"),
            OutputFormat::Json => self.json(&TopicsEvent::Warning { message: text }),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Validation (kafka-cli-surface.md §1.2), in Kafka's order.

fn usage(message: impl Into<String>) -> anyhow::Error {
    let mut cmd = super::command();
    cmd.build();
    let usage = cmd
        .find_subcommand_mut("topics")
        .map(|c| c.render_usage().to_string())
        .unwrap_or_default();
    Exit {
        message: format!(
            "{}\n\n{usage}\n\nFor more information, try 'kafkit topics --help'.",
            message.into()
        ),
        code: 1,
    }
    .into()
}

fn cant_combine(option: &str, with: &str) -> anyhow::Error {
    usage(format!(
        "Option \"[{option}]\" can't be used with option \"[{with}]\""
    ))
}

fn validate(args: &Args) -> Result<(Action, Option<&'static str>)> {
    let mut actions: Vec<Action> = Vec::new();
    for (set, action) in [
        (args.create, Action::Create),
        (args.list, Action::List),
        (args.alter, Action::Alter),
        (args.describe, Action::Describe),
        (args.delete, Action::Delete),
    ] {
        if set {
            actions.push(action);
        }
    }
    if let Some(word) = args.action {
        if !actions.contains(&word) {
            actions.push(word);
        }
    }
    let nothing_else = args.topic.is_none()
        && args.topic_id.is_none()
        && args.partitions.is_none()
        && args.replication_factor.is_none()
        && args.replica_assignment.is_none()
        && args.config.is_empty()
        && args.delete_config.is_empty()
        && !args.if_exists
        && !args.if_not_exists
        && !args.exclude_internal
        && !args.topics_with_overrides
        && !report_filters(args).iter().any(|(set, _)| *set)
        && args.bootstrap_server.is_none()
        && args.command_config.is_none()
        && args.partition_size_limit_per_response.is_none();
    if actions.is_empty() && nothing_else {
        return Err(usage("Create, delete, describe, or change a topic."));
    }
    let [action] = actions.as_slice() else {
        return Err(usage(
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete",
        ));
    };
    let action = *action;
    if !args.delete_config.is_empty() {
        stderrln!(
            "delete-config option is no longer supported and deprecated since version 4.0. The config will be fully removed in future releases."
        );
    }
    let has_topic = args.topic.is_some();
    let mut note = None;
    if action == Action::Describe && args.if_exists {
        if !has_topic && args.topic_id.is_none() {
            return Err(usage(
                "--topic or --topic-id is required to describe a topic",
            ));
        }
        if has_topic && args.topic_id.is_some() {
            note = Some(
                "Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID",
            );
        }
    }
    if !matches!(action, Action::List | Action::Describe) && !has_topic {
        return Err(usage("Missing required argument \"[topic]\""));
    }
    if action == Action::Alter && !args.config.is_empty() {
        return Err(usage(
            "Option combination \"[[bootstrap-server], [config]]\" can't be used with option \"[alter]\" (To alter topic configurations, the kafka-configs tool can be used.)",
        ));
    }
    if action == Action::Alter && args.partitions.is_none() {
        return Err(usage("Missing required argument \"[partitions]\""));
    }
    let name = action.option();
    let only = |set: bool, option: &str, allowed: &[Action]| {
        if set && !allowed.contains(&action) {
            Err(cant_combine(option, name))
        } else {
            Ok(())
        }
    };
    only(
        !args.config.is_empty(),
        "config",
        &[Action::Alter, Action::Create],
    )?;
    only(
        args.partitions.is_some(),
        "partitions",
        &[Action::Alter, Action::Create],
    )?;
    only(
        args.replication_factor.is_some(),
        "replication-factor",
        &[Action::Create],
    )?;
    only(
        args.replica_assignment.is_some(),
        "replica-assignment",
        &[Action::Alter, Action::Create],
    )?;
    if action == Action::Create && args.replica_assignment.is_some() {
        if args.partitions.is_some() {
            return Err(cant_combine("replica-assignment", "partitions"));
        }
        if args.replication_factor.is_some() {
            return Err(cant_combine("replica-assignment", "replication-factor"));
        }
    }
    for (set, option) in report_filters(args) {
        if set && args.topics_with_overrides {
            return Err(cant_combine(option, "topics-with-overrides"));
        }
        only(set, option, &[Action::Describe])?;
    }
    if args.topics_with_overrides {
        if let Some((_, option)) = report_filters(args).into_iter().find(|(set, _)| *set) {
            return Err(cant_combine("topics-with-overrides", option));
        }
    }
    only(
        args.topics_with_overrides,
        "topics-with-overrides",
        &[Action::Describe],
    )?;
    only(
        args.if_exists,
        "if-exists",
        &[Action::Alter, Action::Delete, Action::Describe],
    )?;
    only(args.if_not_exists, "if-not-exists", &[Action::Create])?;
    only(
        args.exclude_internal,
        "exclude-internal",
        &[Action::List, Action::Describe],
    )?;
    for (value, option) in [
        (&args.partitions, "partitions"),
        (&args.replication_factor, "replication-factor"),
        (
            &args.partition_size_limit_per_response,
            "partition-size-limit-per-response",
        ),
    ] {
        if let Some(v) = value {
            if v.trim().parse::<i32>().is_err() {
                return Err(usage(format!(
                    "Cannot parse argument '{v}' of option {option}"
                )));
            }
        }
    }
    Ok((action, note))
}

fn report_filters(args: &Args) -> [(bool, &'static str); 4] {
    [
        (
            args.under_replicated_partitions,
            "under-replicated-partitions",
        ),
        (args.under_min_isr_partitions, "under-min-isr-partitions"),
        (args.at_min_isr_partitions, "at-min-isr-partitions"),
        (args.unavailable_partitions, "unavailable-partitions"),
    ]
}

fn int_arg(value: &Option<String>) -> Option<i32> {
    value.as_deref().and_then(|v| v.trim().parse().ok())
}

// ---------------------------------------------------------------------------------------------
// Actions.

/// Parses `--replica-assignment` as TopicCommand does (`b1:b2,b3:b4`).
fn parse_assignment(text: &str) -> std::result::Result<Vec<Vec<i32>>, String> {
    let mut out: Vec<Vec<i32>> = Vec::new();
    for (i, part) in text.split(',').enumerate() {
        let mut brokers = Vec::new();
        for b in part.split(':') {
            let b = b.trim();
            brokers.push(
                b.parse::<i32>()
                    .map_err(|_| format!("For input string: \"{b}\""))?,
            );
        }
        let mut seen = Vec::new();
        let mut dups = Vec::new();
        for b in &brokers {
            if seen.contains(b) {
                if !dups.contains(b) {
                    dups.push(*b);
                }
            } else {
                seen.push(*b);
            }
        }
        if !dups.is_empty() {
            let dups: Vec<String> = dups.iter().map(i32::to_string).collect();
            return Err(format!(
                "Partition replica lists may not contain duplicate entries: {}",
                dups.join(",")
            ));
        }
        if let Some(first) = out.first() {
            if brokers.len() != first.len() {
                let list: Vec<String> = brokers.iter().map(i32::to_string).collect();
                return Err(format!(
                    "Partition {i} has different replication factor: [{}]",
                    list.join(", ")
                ));
            }
        }
        out.push(brokers);
    }
    Ok(out)
}

/// Parses `--config` entries as TopicCommand does: split on `\s*=\s*` into exactly two parts.
fn parse_configs(entries: &[String]) -> std::result::Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in entries {
        let mut parts: Vec<&str> = entry.split('=').map(str::trim).collect();
        // Java's String.split drops trailing empty strings.
        while parts.len() > 1 && parts.last() == Some(&"") {
            parts.pop();
        }
        let [key, value] = parts.as_slice() else {
            return Err("requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\".".into());
        };
        out.retain(|(k, _)| k != key);
        out.push(((*key).to_string(), (*value).to_string()));
    }
    Ok(out)
}

fn create(
    args: &Args,
    global: &GlobalArgs,
    backend: &mut Backend,
    out: &mut Out<impl Write>,
) -> Outcome {
    let name = args.topic.clone().unwrap_or_default();
    let entries = parse_configs(&args.config).map_err(Failure::Message)?;
    let configs = TopicConfigs::new(entries.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| Failure::Message(e.to_string()))?;
    if let Some(version) = configs.overrides().get("message.format.version") {
        out.warning(&format!(
            "WARNING: The configuration message.format.version={version} is specified. This configuration will be ignored if the version is newer than the inter.broker.protocol.version specified in the broker or if the inter.broker.protocol.version is 3.0 or newer. This configuration is deprecated and it will be removed in Apache Kafka 4.0."
        ))?;
    }
    let assignment = match args.replica_assignment.as_deref() {
        Some(text) if !text.is_empty() => Some(parse_assignment(text).map_err(Failure::Message)?),
        _ => None,
    };
    if names::has_collision_chars(&name) {
        out.warning("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.")?;
    }
    let rf = int_arg(&args.replication_factor);
    if rf.is_some_and(|rf| !(1..=MAX_REPLICATION_FACTOR).contains(&rf)) {
        return fail(format!(
            "The replication factor must be between 1 and {MAX_REPLICATION_FACTOR} inclusive"
        ));
    }
    let partitions = int_arg(&args.partitions);
    if partitions.is_some_and(|p| p < 1) {
        return fail("The partitions must be greater than 0");
    }
    if name.is_empty() {
        return fail("The given topic name '' cannot be represented in a request.");
    }
    // The controller's first checks, before the data directory is made: a bad name leaves none.
    DataDir::check_new_topic_name(&name).map_err(|e| Failure::Message(e.to_string()))?;
    if matches!(backend, Backend::Dir) && is_cluster_dir(&global.data_dir) {
        return create_in_cluster(
            args, global, out, name, partitions, rf, assignment, &configs,
        );
    }
    let topic = match backend {
        Backend::Dir => {
            let new = NewTopic {
                name: name.clone(),
                partitions,
                replication_factor: rf,
                assignment,
                configs,
            };
            let dir = DataDir::create(&global.data_dir)?;
            if dir.was_created() {
                stderrln!("Created data directory {}", global.data_dir.display());
            }
            let lock = dir.lock()?;
            let topic = match dir.create_topic(&lock, &new) {
                Ok(topic) => topic,
                Err(DataDirError::TopicExists(_)) if args.if_not_exists => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            drop(lock);
            Some(topic)
        }
        Backend::Cluster(cluster) => {
            let new = CreateTopic {
                name: name.clone(),
                partitions: partitions.unwrap_or(-1),
                replication_factor: rf.and_then(|r| i16::try_from(r).ok()).unwrap_or(-1),
                assignment,
                configs: entries,
            };
            match cluster.create_topic(&new) {
                Ok(()) => {}
                Err(NetError::Kafka(e)) if e.is_topic_exists() && args.if_not_exists => {
                    return Ok(())
                }
                Err(e) => return Err(e.into()),
            }
            None
        }
    };
    match out.format {
        OutputFormat::Text => writeln!(out.w, "Created topic {name}.")?,
        OutputFormat::Json => {
            // A cluster says what it made through its metadata, as describe reads it.
            let topic = match topic {
                Some(topic) => topic,
                None => {
                    let found = described(backend, global, args)?
                        .into_iter()
                        .find(|d| d.topic.name == name);
                    match found {
                        Some(d) => d.topic,
                        None => return fail(format!("Topic '{name}' does not exist as expected")),
                    }
                }
            };
            out.json(&TopicsEvent::created(&topic))?;
        }
    }
    Ok(())
}

/// `--create` in a cluster made by `cluster init`: the controller's records appended to its
/// metadata log, replicas placed over its brokers (rack-aware when they all have racks).
#[allow(clippy::too_many_arguments)]
fn create_in_cluster(
    args: &Args,
    global: &GlobalArgs,
    out: &mut Out<impl Write>,
    name: String,
    partitions: Option<i32>,
    rf: Option<i32>,
    assignment: Option<Vec<Vec<i32>>>,
    configs: &TopicConfigs,
) -> Outcome {
    let new = NewClusterTopic {
        name: name.clone(),
        partitions: partitions.unwrap_or(1),
        replication_factor: rf.unwrap_or(1),
        configs: configs.overrides().clone(),
        assignment,
    };
    let now = kafkit::datadir::now_ms();
    let (topic_id, placed) = match create_topic(&global.data_dir, &new, now) {
        Ok(created) => created,
        Err(CreateTopicError::Refused(DataDirError::TopicExists(_))) if args.if_not_exists => {
            return Ok(())
        }
        Err(CreateTopicError::Refused(e)) => return Err(e.into()),
        Err(e) => return fail(e.to_string()),
    };
    match out.format {
        OutputFormat::Text => writeln!(out.w, "Created topic {name}.")?,
        OutputFormat::Json => out.json(&TopicsEvent::Created {
            topic: &name,
            topic_id: Some(topic_id),
            partitions: placed.len(),
            replication_factor: placed.first().map_or(0, Vec::len),
            configs: &new.configs,
        })?,
    }
    Ok(())
}

fn topic_filter(args: &Args) -> std::result::Result<Option<TopicFilter>, Failure> {
    args.topic
        .as_deref()
        .map(TopicFilter::new)
        .transpose()
        .map_err(|e| Failure::Message(e.to_string()))
}

/// A topic with its partitions' leaders and in-sync replicas, from either backend: what
/// `--list`, `--describe` and `--delete` print from.
struct Described {
    topic: Topic,
    partitions: Vec<PartitionDescription>,
    /// Its `min.insync.replicas`: its override, else the broker's (a cluster's: its default).
    min_isr: i64,
}

/// Every topic, sorted: the data directory's (one live broker, its node, leads every
/// partition it holds, and the ISR is the replicas on it), or the cluster's metadata.
fn described(
    backend: &mut Backend,
    global: &GlobalArgs,
    args: &Args,
) -> std::result::Result<Vec<Described>, Failure> {
    match backend {
        Backend::Dir if is_cluster_dir(&global.data_dir) => {
            let dir = global.data_dir.join(METADATA_PARTITION);
            let image = MetadataImage::load(&dir).map_err(|e| Failure::Message(e.to_string()))?;
            image_topics(&image)
        }
        Backend::Dir => {
            let dir = DataDir::open(&global.data_dir)?;
            let node = dir.node_id();
            Ok(dir
                .topics()?
                .into_iter()
                .map(|topic| {
                    let partitions = topic
                        .partitions
                        .iter()
                        .map(|p| PartitionDescription {
                            partition: p.id,
                            leader: p.replicas.contains(&node).then_some(node),
                            replicas: p.replicas.clone(),
                            isr: p.replicas.iter().copied().filter(|b| *b == node).collect(),
                            elr: Vec::new(),
                            last_known_elr: Vec::new(),
                        })
                        .collect();
                    let min_isr = topic.configs.min_insync_replicas();
                    Described {
                        topic,
                        partitions,
                        min_isr,
                    }
                })
                .collect())
        }
        Backend::Cluster(cluster) => {
            let wanted = topic_filter(args)?;
            let mut out = Vec::new();
            for t in cluster.describe_topics()? {
                let describing = args.describe || args.action == Some(Action::Describe);
                let configs = if describing && wanted.as_ref().is_none_or(|f| f.matches(&t.name)) {
                    let entries = cluster.topic_configs(&t.name)?;
                    TopicConfigs::new(entries.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                        .map_err(|e| Failure::Message(e.to_string()))?
                } else {
                    TopicConfigs::default()
                };
                let topic = Topic {
                    name: t.name,
                    id: Some(t.id),
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| PartitionInfo {
                            id: p.partition,
                            replicas: p.replicas.clone(),
                        })
                        .collect(),
                    configs,
                    source: TopicSource::Cluster,
                };
                let min_isr = topic.configs.min_insync_replicas();
                out.push(Described {
                    topic,
                    partitions: t.partitions,
                    min_isr,
                });
            }
            Ok(out)
        }
    }
}

/// The topics `--topic` selects (all without it), sorted, internal ones dropped on request.
/// A cluster directory's topics (`cluster init`): its metadata image's partitions, leaders,
/// ISRs and ELRs, its configs, and `min.insync.replicas` with the cluster default.
fn image_topics(image: &MetadataImage) -> std::result::Result<Vec<Described>, Failure> {
    image
        .topics
        .values()
        .map(|t| {
            let topic = kafkit::cluster::replication::datadir_topic(image, &t.name)
                .map_err(|e| Failure::Message(format!("topic {}: {e}", t.name)))?
                .ok_or_else(|| Failure::Message(format!("topic {} vanished", t.name)))?;
            let partitions = t
                .partitions
                .iter()
                .map(|(&id, p)| PartitionDescription {
                    partition: id,
                    leader: (p.leader >= 0).then_some(p.leader),
                    replicas: p.replicas.clone(),
                    isr: p.isr.clone(),
                    elr: p.elr.clone(),
                    last_known_elr: p.last_known_elr.clone(),
                })
                .collect();
            Ok(Described {
                topic,
                partitions,
                min_isr: i64::try_from(min_isr(image, &t.name)).unwrap_or(i64::MAX),
            })
        })
        .collect()
}

fn selected(
    backend: &mut Backend,
    global: &GlobalArgs,
    args: &Args,
) -> std::result::Result<Vec<Described>, Failure> {
    let filter = topic_filter(args)?;
    Ok(described(backend, global, args)?
        .into_iter()
        .filter(|d| filter.as_ref().is_none_or(|f| f.matches(&d.topic.name)))
        .filter(|d| !(args.exclude_internal && d.topic.is_internal()))
        .collect())
}

/// Kafka's `ensureTopicExists`: an error when `--topic` selected nothing, unless `--if-exists`.
fn ensure_found(args: &Args, topics: &[Described]) -> Outcome {
    match &args.topic {
        Some(topic) if topics.is_empty() && !args.if_exists => {
            fail(format!("Topic '{topic}' does not exist as expected"))
        }
        _ => Ok(()),
    }
}

fn list(
    args: &Args,
    global: &GlobalArgs,
    backend: &mut Backend,
    out: &mut Out<impl Write>,
) -> Outcome {
    let topics = selected(backend, global, args)?;
    match out.format {
        OutputFormat::Text => {
            let names: Vec<&str> = topics.iter().map(|t| t.topic.name.as_str()).collect();
            writeln!(out.w, "{}", names.join("\n"))?;
        }
        OutputFormat::Json => {
            for t in &topics {
                out.json(&TopicsEvent::listed(&t.topic))?;
            }
        }
    }
    Ok(())
}

fn describe(
    args: &Args,
    global: &GlobalArgs,
    backend: &mut Backend,
    out: &mut Out<impl Write>,
) -> Outcome {
    let topics = match &args.topic_id {
        Some(text) => {
            let id: Uuid = text
                .parse()
                .map_err(|e: UuidError| Failure::Message(e.to_string()))?;
            let found: Vec<Described> = described(backend, global, args)?
                .into_iter()
                .filter(|d| d.topic.id == Some(id))
                .filter(|d| !(args.exclude_internal && d.topic.is_internal()))
                .collect();
            if found.is_empty() && !args.if_exists {
                return fail(format!("TopicId '{text}' does not exist as expected"));
            }
            found
        }
        None => {
            let topics = selected(backend, global, args)?;
            ensure_found(args, &topics)?;
            topics
        }
    };
    let filters = report_filters(args).iter().any(|(set, _)| *set);
    for Described {
        topic,
        partitions,
        min_isr,
    } in &topics
    {
        let min_isr = *min_isr;
        if args.topics_with_overrides && !topic.configs.has_overrides() {
            continue;
        }
        if !filters {
            topic_line(out, topic)?;
        }
        if args.topics_with_overrides {
            continue;
        }
        for p in partitions {
            let isr_len = i64::try_from(p.isr.len()).unwrap_or(i64::MAX);
            let shown = !filters
                || (args.under_replicated_partitions && p.replicas.len() > p.isr.len())
                || (args.unavailable_partitions && p.leader.is_none())
                || (args.under_min_isr_partitions && (p.leader.is_none() || isr_len < min_isr))
                || (args.at_min_isr_partitions && isr_len == min_isr);
            if shown {
                partition_line(out, topic, p)?;
            }
        }
    }
    Ok(())
}

fn ids(list: &[i32]) -> String {
    list.iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn topic_line(out: &mut Out<impl Write>, topic: &Topic) -> io::Result<()> {
    let overrides = topic.configs.overrides();
    match out.format {
        OutputFormat::Text => {
            let id = topic
                .id
                .filter(|id| !id.is_zero())
                .map(|id| format!("\tTopicId: {id}"))
                .unwrap_or_default();
            let configs: Vec<String> = overrides.iter().map(|(k, v)| format!("{k}={v}")).collect();
            writeln!(
                out.w,
                "Topic: {}{id}\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}",
                topic.name,
                topic.partition_count(),
                topic.replication_factor(),
                configs.join(",")
            )
        }
        OutputFormat::Json => out.json(&TopicsEvent::described(topic)),
    }
}

fn partition_line(
    out: &mut Out<impl Write>,
    topic: &Topic,
    p: &PartitionDescription,
) -> io::Result<()> {
    match out.format {
        OutputFormat::Text => writeln!(
            out.w,
            "\tTopic: {}\tPartition: {}\tLeader: {}\tReplicas: {}\tIsr: {}\tElr: {}\tLastKnownElr: {}",
            topic.name,
            p.partition,
            p.leader.map_or("none".to_string(), |l| l.to_string()),
            ids(&p.replicas),
            ids(&p.isr),
            ids(&p.elr),
            ids(&p.last_known_elr),
        ),
        OutputFormat::Json => out.json(&TopicsEvent::Partition {
            topic: &topic.name,
            partition: p.partition,
            leader: p.leader,
            replicas: &p.replicas,
            isr: &p.isr,
            elr: &p.elr,
            last_known_elr: &p.last_known_elr,
        }),
    }
}

/// `--alter --partitions`: the topics `--topic` selects, then for each the partitions added
/// after those it has (with the `--replica-assignment` entries after them, as Kafka sends
/// only those): in a data directory (under its lock), in a cluster made by `cluster init`
/// (the controller's `PartitionRecord`s, placed as Kafka places added partitions), or on a
/// broker (`--bootstrap-server`: one CreatePartitions a topic, as Kafka's `alterTopic`).
fn alter(
    args: &Args,
    global: &GlobalArgs,
    backend: &mut Backend,
    out: &mut Out<impl Write>,
) -> Outcome {
    let local = match backend {
        Backend::Dir if !is_cluster_dir(&global.data_dir) => {
            let dir = DataDir::open(&global.data_dir)?;
            let lock = dir.lock()?;
            Some((dir, lock))
        }
        _ => None,
    };
    let topics = selected(backend, global, args)?;
    ensure_found(args, &topics)?;
    let count = int_arg(&args.partitions).unwrap_or(0);
    let assignment = match args.replica_assignment.as_deref() {
        Some(text) if !text.is_empty() => Some(parse_assignment(text).map_err(Failure::Message)?),
        _ => None,
    };
    let now = kafkit::datadir::now_ms();
    for Described { topic, .. } in &topics {
        let new_entries = assignment
            .as_ref()
            .map(|a| a.get(topic.partition_count()..).unwrap_or(&[]));
        let altered = match (&mut *backend, &local) {
            (Backend::Cluster(cluster), _) => {
                cluster.create_partitions(&topic.name, count, new_entries)?;
                None
            }
            (Backend::Dir, Some((dir, lock))) => {
                Some(dir.create_partitions(lock, &topic.name, count, new_entries)?)
            }
            (Backend::Dir, None) => {
                cluster_outcome(create_cluster_partitions(
                    &global.data_dir,
                    &topic.name,
                    count,
                    new_entries,
                    now,
                ))?;
                None
            }
        };
        if out.format == OutputFormat::Json {
            match &altered {
                Some(altered) => out.json(&TopicsEvent::altered(altered))?,
                None => out.json(&TopicsEvent::Altered {
                    topic: &topic.name,
                    partitions: usize::try_from(count).unwrap_or_default(),
                })?,
            }
        }
    }
    Ok(())
}

/// A cluster's refusal as Kafka words it (its error class and message), any other failure
/// as it is.
fn cluster_outcome<T>(
    result: std::result::Result<T, CreateTopicError>,
) -> std::result::Result<T, Failure> {
    match result {
        Ok(v) => Ok(v),
        Err(CreateTopicError::Refused(e)) => Err(e.into()),
        Err(e) => Err(Failure::Message(e.to_string())),
    }
}

fn delete(
    args: &Args,
    global: &GlobalArgs,
    backend: &mut Backend,
    out: &mut Out<impl Write>,
) -> Outcome {
    let topics = match backend {
        Backend::Dir if is_cluster_dir(&global.data_dir) => {
            let topics = selected(backend, global, args)?;
            ensure_found(args, &topics)?;
            for d in &topics {
                let now = kafkit::datadir::now_ms();
                cluster_outcome(delete_cluster_topic(&global.data_dir, &d.topic.name, now))?;
                deleted(out, &d.topic.name)?;
            }
            return Ok(());
        }
        Backend::Dir => {
            let dir = DataDir::open(&global.data_dir)?;
            let lock = dir.lock()?;
            let topics = selected(backend, global, args)?;
            ensure_found(args, &topics)?;
            for d in &topics {
                dir.delete_topic(&lock, &d.topic.name)?;
                deleted(out, &d.topic.name)?;
            }
            return Ok(());
        }
        Backend::Cluster(_) => selected(backend, global, args)?,
    };
    ensure_found(args, &topics)?;
    if let Backend::Cluster(cluster) = backend {
        for d in &topics {
            cluster.delete_topic(&d.topic.name)?;
            deleted(out, &d.topic.name)?;
        }
    }
    Ok(())
}

fn deleted(out: &mut Out<impl Write>, topic: &str) -> io::Result<()> {
    if out.format == OutputFormat::Json {
        out.json(&TopicsEvent::Deleted { topic })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments() {
        assert_eq!(
            parse_assignment("0:1, 1:2").unwrap(),
            vec![vec![0, 1], vec![1, 2]]
        );
        assert_eq!(
            parse_assignment("0:0:1:1").unwrap_err(),
            "Partition replica lists may not contain duplicate entries: 0,1"
        );
        assert_eq!(
            parse_assignment("0,0:1").unwrap_err(),
            "Partition 1 has different replication factor: [0, 1]"
        );
        assert_eq!(
            parse_assignment("x").unwrap_err(),
            "For input string: \"x\""
        );
    }

    #[test]
    fn configs() {
        assert_eq!(
            parse_configs(&["a = b".into(), "a=c".into()]).unwrap(),
            vec![("a".to_string(), "c".to_string())]
        );
        assert!(parse_configs(&["a=b=c".into()]).is_err());
        assert!(parse_configs(&["a=".into()]).is_err());
        assert!(parse_configs(&["a".into()]).is_err());
    }
}
