//! `kafkit configs`: Kafka's `kafka-configs.sh` for topics, over the data directory or a
//! cluster (`--bootstrap-server`), and for brokers over a cluster: describe an entity's
//! configs (`--describe`, `--all`), change them (`--alter --add-config k=v,...
//! --delete-config k`), with Kafka's parser, validation and messages; both places print
//! through the same lines and events (`output::configs`).

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;

use super::{usage_error, Example, Exit, GlobalArgs};
use kafkit::datadir::config::{check_keys, parse_add_config, ConfigEntry, ConfigError};
use kafkit::datadir::{names, DataDir, DataDirError, Topic};
use kafkit::net::configs::{AlterConfigOp, ConfigResource};
use kafkit::net::{Cluster, NetError};
use kafkit::output::configs::{
    altered_line, describe_header, describe_line, not_found_line, ConfigsEvent, Entity,
};
use kafkit::output::json::write_event;
use kafkit::output::OutputFormat;

/// Examples of `kafkit configs` (`tests/man.rs` runs them, in order, in an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic, then keep its records one hour and compact it too:",
        line: "kafkit topics --create --topic demo && kafkit configs --alter --topic demo --add-config retention.ms=3600000,cleanup.policy=[compact,delete]",
    },
    Example {
        what: "Its overrides, with the broker defaults they replace:",
        line: "kafkit configs --describe --entity-type topics --entity-name demo",
    },
    Example {
        what: "Back to the default retention:",
        line: "kafkit configs --alter --topic demo --delete-config retention.ms",
    },
    Example {
        what: "Every config of the topic, defaults included:",
        line: "kafkit configs --describe --topic demo --all",
    },
];

/// Kafka's entity types (`ConfigType`, and the broker loggers).
const ENTITY_TYPES: &[&str] = &[
    "topics",
    "clients",
    "users",
    "brokers",
    "ips",
    "client-metrics",
    "groups",
    "broker-loggers",
];

/// Describe or change a topic's or a broker's configs (kafka-configs.sh).
///
/// This tool helps to manipulate and describe entity config for a topic or a broker: topics
/// of the data directory, or of a cluster with --bootstrap-server; brokers of a cluster. The
/// other entity types (clients, users, ips, groups, client-metrics, broker-loggers) are
/// refused.
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// Alter the configuration for the entity.
    #[arg(long)]
    pub alter: bool,
    /// List configs for the given entity.
    #[arg(long)]
    pub describe: bool,
    /// List all configs for the given entity, defaults included.
    #[arg(long)]
    pub all: bool,
    /// Type of entity: topics, or brokers (with --bootstrap-server).
    #[arg(long, value_name = "TYPE", value_parser = super::values::Suggest::new(["topics", "brokers"]), hide_possible_values = true)]
    pub entity_type: Vec<String>,
    /// Name of entity (topic name/broker id).
    #[arg(long, value_name = "NAME", value_hint = ValueHint::Other)]
    pub entity_name: Vec<String>,
    /// Default entity name for brokers (the cluster-wide default of every broker).
    #[arg(long)]
    pub entity_default: bool,
    /// The topic's name (instead of --entity-type topics --entity-name).
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// The broker's ID (instead of --entity-type brokers --entity-name; with
    /// --bootstrap-server).
    #[arg(long, value_name = "ID", value_hint = ValueHint::Other)]
    pub broker: Option<String>,
    /// The config defaults for all brokers (with --bootstrap-server).
    #[arg(long)]
    pub broker_defaults: bool,
    /// Key Value pairs of configs to add. Square brackets can be used to group values which
    /// contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'. Names: every Kafka topic config
    /// (cleanup.policy, retention.ms, segment.bytes, ...).
    #[arg(long, value_name = "K=V,...", value_hint = ValueHint::Other)]
    pub add_config: Option<String>,
    /// Path to a properties file with configs to add.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub add_config_file: Option<PathBuf>,
    /// Config keys to remove 'k1,k2'; repeatable.
    #[arg(long, value_name = "K,...", value_delimiter = ',', value_hint = ValueHint::Other)]
    pub delete_config: Vec<String>,
    /// The brokers to connect to, `HOST:PORT[,HOST:PORT...]`, instead of --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// The Kafka controllers to connect to: not supported yet (refused).
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_controller: Option<String>,
    /// With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms,
    /// default.api.timeout.ms, client.id, security.protocol, ...).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<PathBuf>,
}

/// Kafka's `IllegalArgumentException`s: the message alone on stderr, exit 1.
fn refuse(message: impl Into<String>) -> anyhow::Error {
    Exit::failure(message).into()
}

/// What Kafka prints for an exception it did not expect (an error the cluster answered):
/// `Error while executing config command with args '...'`, then the exception (its stack
/// trace left out).
fn command_error(exception: impl std::fmt::Display) -> anyhow::Error {
    let args: Vec<String> = std::env::args()
        .skip_while(|a| a != "configs")
        .skip(1)
        .collect();
    Exit::failure(format!(
        "Error while executing config command with args '{}'\n{exception}",
        args.join(" ")
    ))
    .into()
}

/// A failed admin call as Kafka's tool shows it: the future's `ExecutionException` around
/// the client's exception.
fn call_error(e: &NetError) -> anyhow::Error {
    command_error(format!(
        "java.util.concurrent.ExecutionException: {}",
        super::net::java_exception(e)
    ))
}

/// The entity types kafkit's configs handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Topics,
    Brokers,
}

/// What the command line names: the entity type, and the entity names given (`""`: the
/// default entity, from --entity-default or --broker-defaults).
struct Target {
    kind: Kind,
    names: Vec<String>,
}

impl Target {
    /// The entity the action is about (Kafka's `entityNames.get(0)`), if named.
    fn name(&self) -> Option<&str> {
        self.names.first().map(String::as_str)
    }
}

/// The entity types and names of the command line, after Kafka's `checkArgs` (in its order).
fn check_args(args: &Args) -> Result<Target> {
    if usize::from(args.alter) + usize::from(args.describe) != 1 {
        return Err(usage_error(
            "configs",
            "Command must include exactly one action: --describe, --alter",
        ));
    }
    if args.describe {
        let with = if args.add_config.is_some() {
            Some("add-config")
        } else if !args.delete_config.is_empty() {
            Some("delete-config")
        } else {
            None
        };
        if let Some(with) = with {
            return Err(usage_error(
                "configs",
                format!("Option \"[describe]\" can't be used with option \"[{with}]\""),
            ));
        }
    }
    let mut types = args.entity_type.clone();
    let flags = [
        (args.topic.is_some(), "topics"),
        (args.broker.is_some(), "brokers"),
        (args.broker_defaults, "brokers"),
    ];
    types.extend(
        flags
            .iter()
            .filter(|(set, _)| *set)
            .map(|(_, t)| t.to_string()),
    );
    let mut distinct = types.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != types.len() {
        let mut dups = types.clone();
        for d in &distinct {
            if let Some(i) = dups.iter().position(|t| t == d) {
                dups.remove(i);
            }
        }
        dups.dedup();
        return Err(refuse(format!(
            "Duplicate entity type(s) specified: {}",
            dups.join(",")
        )));
    }
    if let Some(bad) = types.iter().find(|t| !ENTITY_TYPES.contains(&t.as_str())) {
        return Err(refuse(format!(
            "Invalid entity type {bad}, the entity type must be one of {} with a --bootstrap-server or --bootstrap-controller argument",
            ENTITY_TYPES.join(", ")
        )));
    }
    match types.as_slice() {
        [] => return Err(refuse("At least one entity type must be specified")),
        [_] => {}
        _ if distinct == ["clients", "users"] => {}
        _ => {
            return Err(refuse(
                "Only 'users' and 'clients' entity types may be specified together",
            ))
        }
    }
    if (!args.entity_name.is_empty() || !args.entity_type.is_empty() || args.entity_default)
        && flags.iter().any(|(set, _)| *set)
    {
        return Err(refuse(
            "--entity-{type,name,default} should not be used in conjunction with specific entity flags",
        ));
    }
    let kind = match types.first().map(String::as_str) {
        Some("topics") => Kind::Topics,
        Some("brokers") => Kind::Brokers,
        _ => {
            let other = types.join(",");
            return Err(refuse(format!(
                "kafkit configs supports --entity-type topics and brokers only: {other} configs are not supported yet"
            )));
        }
    };
    // Kafka's `entityNames`: --entity-name and --entity-default, then the entity flags.
    let mut names: Vec<String> = args.entity_name.clone();
    if args.entity_default {
        names.push(String::new());
    }
    names.extend(args.topic.clone());
    names.extend(args.broker.clone());
    if args.broker_defaults {
        names.push(String::new());
    }
    let has_name = names.iter().any(|n| !n.is_empty());
    let has_default = names.iter().any(String::is_empty);
    if args.bootstrap_server.is_some() && args.bootstrap_controller.is_some() {
        return Err(refuse(
            "Only one of --bootstrap-server or --bootstrap-controller can be specified",
        ));
    }
    if has_name && kind == Kind::Brokers {
        for id in args.entity_name.iter().chain(&args.broker) {
            if id.parse::<i32>().is_err() {
                return Err(refuse(format!(
                    "The entity name for brokers must be a valid integer broker id, but it is: {id}"
                )));
            }
        }
    }
    if args.describe && args.entity_default && kind == Kind::Topics {
        return Err(refuse(
            "--entity-default must not be specified with --describe of topics",
        ));
    }
    if args.alter {
        match kind {
            Kind::Brokers if !has_name && !has_default => {
                return Err(refuse(
                    "An entity-name or default entity must be specified with --alter of users, clients, brokers or ips",
                ))
            }
            Kind::Topics if !has_name => {
                return Err(refuse(
                    "An entity name must be specified with --alter of topics",
                ))
            }
            _ => {}
        }
        if args.add_config.is_some() && args.add_config_file.is_some() {
            return Err(refuse(
                "Only one of --add-config or --add-config-file must be specified",
            ));
        }
        if args.add_config.is_none()
            && args.add_config_file.is_none()
            && args.delete_config.is_empty()
        {
            return Err(refuse(
                "At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter",
            ));
        }
        if names.len() != types.len() {
            return Err(refuse(
                "An entity name must be specified for every entity type",
            ));
        }
    }
    Ok(Target { kind, names })
}

/// Where the configs are: a data directory's topics, or a cluster.
enum Backend {
    Dir,
    Cluster(Box<Cluster>),
}

/// Runs `kafkit configs`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let target = check_args(args)?;
    let mut backend = match (&args.bootstrap_server, &args.bootstrap_controller) {
        (Some(servers), _) => Backend::Cluster(Box::new(super::net::cluster(
            "configs",
            servers,
            args.command_config.as_deref(),
            &[],
            global,
            "adminclient-1",
        )?)),
        (None, Some(_)) => {
            return Err(usage_error(
                "configs",
                "--bootstrap-controller is not supported yet: use --bootstrap-server, or a --data-dir",
            ))
        }
        (None, None) if target.kind == Kind::Brokers => {
            return Err(refuse(
                "kafkit configs describes and alters brokers with --bootstrap-server only: a data directory holds topics",
            ))
        }
        (None, None) => Backend::Dir,
    };
    let stdout = io::stdout();
    let mut out = Printer {
        w: BufWriter::new(stdout.lock()),
        format: global.output,
    };
    let result = if args.alter {
        alter(args, global, &target, &mut backend, &mut out)
    } else {
        describe(args, global, &target, &mut backend, &mut out)
    };
    out.w.flush()?;
    result
}

/// Where the lines go: Kafka's text or JSON Lines, the same for both places.
struct Printer<W: Write> {
    w: W,
    format: OutputFormat,
}

impl<W: Write> Printer<W> {
    fn header(&mut self, entity: Entity, all: bool) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.w, "{}", describe_header(entity, all)),
            OutputFormat::Json => write_event(&mut self.w, &ConfigsEvent::header(entity, all)),
        }
    }

    fn configs(&mut self, entity: Entity, entries: &[ConfigEntry]) -> io::Result<()> {
        for entry in entries {
            match self.format {
                OutputFormat::Text => writeln!(self.w, "{}", describe_line(entry))?,
                OutputFormat::Json => {
                    write_event(&mut self.w, &ConfigsEvent::config(entity, entry))?
                }
            }
        }
        Ok(())
    }

    fn not_found(&mut self, entity: Entity) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.w, "{}", not_found_line(entity)),
            OutputFormat::Json => write_event(
                &mut self.w,
                &ConfigsEvent::NotFound {
                    entity,
                    message: not_found_line(entity),
                },
            ),
        }
    }

    fn altered(
        &mut self,
        entity: Entity,
        set: &[(String, String)],
        deleted: &[String],
        configs: &BTreeMap<String, String>,
    ) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.w, "{}", altered_line(entity)),
            OutputFormat::Json => write_event(
                &mut self.w,
                &ConfigsEvent::Altered {
                    entity,
                    set: set.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
                    deleted,
                    configs,
                },
            ),
        }
    }
}

/// The cluster's answer for a topic it does not have.
fn unknown_topic() -> anyhow::Error {
    command_error("java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.")
}

fn check_name(name: &str) -> Result<()> {
    names::validate_topic_name(name).map_err(|e| {
        command_error(format!(
            "org.apache.kafka.common.errors.InvalidTopicException: {e}"
        ))
    })
}

/// The entity of a name (`""`: the brokers' default).
fn entity(kind: Kind, name: &str) -> Entity<'_> {
    match kind {
        Kind::Topics => Entity::Topic(name),
        Kind::Brokers => Entity::Broker(Some(name).filter(|n| !n.is_empty())),
    }
}

/// The config resource of a checked name (`""`: the brokers' default).
fn resource(kind: Kind, name: &str) -> ConfigResource {
    match kind {
        Kind::Topics => ConfigResource::Topic(name.to_string()),
        Kind::Brokers => ConfigResource::Broker(name.parse().ok()),
    }
}

/// Kafka's `describeResourceConfig`: a named entity that does not exist is a line (without
/// `--all`); then each entity's header, and its configs (all of them, or those set on it).
fn describe(
    args: &Args,
    global: &GlobalArgs,
    target: &Target,
    backend: &mut Backend,
    out: &mut Printer<impl Write>,
) -> Result<()> {
    let name = target.name();
    if let (Kind::Topics, Some(name)) = (target.kind, name) {
        check_name(name)?;
    }
    let (entities, dir): (Vec<String>, Option<(DataDir, Vec<Topic>)>) = match backend {
        Backend::Dir => {
            let dir = DataDir::open(&global.data_dir)?;
            let topics = dir.topics()?;
            let names = topics.iter().map(|t| t.name.clone()).collect();
            (names, Some((dir, topics)))
        }
        // Kafka's tool describes a named entity with --all without listing first.
        Backend::Cluster(_) if name.is_some() && args.all => (Vec::new(), None),
        Backend::Cluster(cluster) => {
            let names = match target.kind {
                Kind::Topics => cluster
                    .describe_topics()
                    .map(|topics| topics.into_iter().map(|t| t.name).collect::<Vec<String>>()),
                Kind::Brokers => cluster
                    .metadata(Some(&[]), false, "describeCluster")
                    .map(|m| {
                        let mut ids: Vec<i32> = m.brokers.iter().map(|b| b.node_id.0).collect();
                        ids.sort_unstable();
                        let mut names: Vec<String> = ids.iter().map(i32::to_string).collect();
                        names.push(String::new());
                        names
                    }),
            };
            (names.map_err(|e| call_error(&e))?, None)
        }
    };
    let entities: Vec<String> = match name {
        Some(name) => {
            if !args.all && !entities.iter().any(|e| e == name) {
                out.not_found(entity(target.kind, name))?;
                return Ok(());
            }
            vec![name.to_string()]
        }
        None => entities,
    };
    for name in &entities {
        let shown = entity(target.kind, name);
        out.header(shown, args.all)?;
        let entries = match (&mut *backend, &dir) {
            (_, Some((_, topics))) => match topics.iter().find(|t| &t.name == name) {
                Some(topic) => topic.configs.describe(args.all),
                None => return Err(unknown_topic()),
            },
            (Backend::Cluster(cluster), None) => {
                let resource = resource(target.kind, name);
                let mut entries = cluster
                    .describe_configs(&resource, true)
                    .map_err(|e| call_error(&e))?;
                if !args.all {
                    entries.retain(|e| e.source == resource.dynamic_source());
                }
                entries
            }
            (Backend::Dir, None) => Vec::new(),
        };
        out.configs(shown, &entries)?;
    }
    Ok(())
}

/// The configs `--add-config`/`--add-config-file` set and `--delete-config` deletes.
struct Changes {
    set: Vec<(String, String)>,
    delete: Vec<String>,
}

/// The changes of the command line, as Kafka's `parseConfigsToBeAdded` and
/// `parseConfigsToBeDeleted` read them.
fn changes(args: &Args) -> Result<Changes> {
    let set = match (&args.add_config, &args.add_config_file) {
        (Some(text), _) => parse_add_config(text).map_err(|e| refuse(e.to_string()))?,
        (None, Some(path)) => {
            let set = super::properties(Some(path), &[])?;
            check_keys(&set).map_err(|e| refuse(e.to_string()))?;
            set
        }
        (None, None) => Vec::new(),
    };
    let delete: Vec<String> = args
        .delete_config
        .iter()
        .map(|k| k.trim().to_string())
        .collect();
    Ok(Changes { set, delete })
}

fn alter(
    args: &Args,
    global: &GlobalArgs,
    target: &Target,
    backend: &mut Backend,
    out: &mut Printer<impl Write>,
) -> Result<()> {
    let Changes { set, delete } = changes(args)?;
    let name = target.name().unwrap_or_default();
    if target.kind == Kind::Topics {
        check_name(name)?;
    }
    let configs = match backend {
        Backend::Dir => alter_dir(global, name, &set, &delete)?,
        Backend::Cluster(cluster) => {
            alter_cluster(cluster, resource(target.kind, name), &set, &delete)?
        }
    };
    out.altered(entity(target.kind, name), &set, &delete, &configs)?;
    Ok(())
}

/// `--alter` of a data directory's topic; its overrides after the change.
fn alter_dir(
    global: &GlobalArgs,
    name: &str,
    set: &[(String, String)],
    delete: &[String],
) -> Result<BTreeMap<String, String>> {
    let datadir = DataDir::open(&global.data_dir)?;
    let lock = datadir.lock()?;
    match datadir.alter_topic_configs(&lock, name, set, delete) {
        Ok(topic) => Ok(topic.configs.overrides().clone()),
        Err(DataDirError::UnknownTopic(_)) => Err(unknown_topic()),
        Err(DataDirError::Config(e @ ConfigError::NotSet(_))) => Err(refuse(e.to_string())),
        Err(DataDirError::Config(e)) => Err(command_error(format!(
            "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidConfigurationException: {e}"
        ))),
        Err(e) => Err(e.into()),
    }
}

/// The configs set on `resource` itself (Kafka's `getResourceConfig` without `--all`).
fn own_configs(
    cluster: &mut Cluster,
    resource: &ConfigResource,
) -> Result<BTreeMap<String, String>> {
    Ok(cluster
        .describe_configs(resource, false)
        .map_err(|e| call_error(&e))?
        .into_iter()
        .filter(|e| e.source == resource.dynamic_source())
        .map(|e| (e.name, e.value))
        .collect())
}

/// `--alter` over a cluster, as Kafka's `alterResourceConfig`: the resource's own configs
/// first (a config to delete must be among them), then one IncrementalAlterConfigs of the
/// deletions and the sets; its own configs after the change.
fn alter_cluster(
    cluster: &mut Cluster,
    resource: ConfigResource,
    set: &[(String, String)],
    delete: &[String],
) -> Result<BTreeMap<String, String>> {
    let before = own_configs(cluster, &resource)?;
    let missing: Vec<String> = delete
        .iter()
        .filter(|k| !before.contains_key(*k))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(refuse(ConfigError::NotSet(missing).to_string()));
    }
    let ops: Vec<AlterConfigOp> = delete
        .iter()
        .map(|k| AlterConfigOp::Delete(k.clone()))
        .chain(
            set.iter()
                .map(|(k, v)| AlterConfigOp::Set(k.clone(), v.clone())),
        )
        .collect();
    match cluster.incremental_alter_configs(&resource, &ops) {
        Ok(()) => {}
        Err(NetError::UnsupportedApi { .. }) => {
            return Err(refuse(
                "The INCREMENTAL_ALTER_CONFIGS API is not supported by the cluster. The API is supported starting from version 2.3.0. You may want to use an older version of this tool to interact with your cluster, or upgrade your brokers to version 2.3.0 or newer to avoid this error.",
            ))
        }
        Err(e) => return Err(call_error(&e)),
    }
    own_configs(cluster, &resource)
}
