//! `kafkit configs`: Kafka's `kafka-configs.sh` for topics over the data directory: describe a
//! topic's config overrides (`--describe`, `--all`), change them (`--alter --add-config
//! k=v,... --delete-config k`), with Kafka's parser, validation and messages.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;

use super::{usage_error, Example, Exit, GlobalArgs};
use kafkit::datadir::config::{check_keys, parse_add_config, ConfigError};
use kafkit::datadir::{names, DataDir, DataDirError, Topic};
use kafkit::output::configs::{
    altered_line, describe_header, describe_line, not_found_line, ConfigsEvent,
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

/// Describe or change a topic's configs (kafka-configs.sh).
///
/// This tool helps to manipulate and describe entity config for a topic. kafkit holds topics
/// only: the other entity types (brokers, clients, users, ips, groups, client-metrics) are a
/// running cluster's, and are refused.
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
    /// Type of entity: topics (the one kafkit holds).
    #[arg(long, value_name = "TYPE", value_parser = super::values::Suggest::new(["topics"]), hide_possible_values = true)]
    pub entity_type: Vec<String>,
    /// Name of entity (the topic name).
    #[arg(long, value_name = "NAME", value_hint = ValueHint::Other)]
    pub entity_name: Vec<String>,
    /// Default entity name (for clients/users/brokers/ips: refused here).
    #[arg(long)]
    pub entity_default: bool,
    /// The topic's name (instead of --entity-type topics --entity-name).
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
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
    /// Accepted for compatibility with kafka-configs.sh and ignored: kafkit reads --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// Accepted for compatibility with kafka-configs.sh and ignored.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_controller: Option<String>,
    /// Accepted for compatibility with kafka-configs.sh and ignored.
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

/// The topic named, after Kafka's `checkArgs` (in its order).
fn check_args(args: &Args) -> Result<Option<String>> {
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
    if args.topic.is_some() {
        types.push("topics".into());
    }
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
        && args.topic.is_some()
    {
        return Err(refuse(
            "--entity-{type,name,default} should not be used in conjunction with specific entity flags",
        ));
    }
    if let Some(other) = types.iter().find(|t| *t != "topics") {
        return Err(refuse(format!(
            "kafkit configs supports --entity-type topics only: {other} configs belong to a running cluster, which kafkit does not talk to"
        )));
    }
    let mut names: Vec<String> = args.entity_name.clone();
    names.extend(args.topic.clone());
    if args.describe && args.entity_default {
        return Err(refuse(
            "--entity-default must not be specified with --describe of topics",
        ));
    }
    if args.alter {
        if names.is_empty() {
            return Err(refuse(
                "An entity name must be specified with --alter of topics",
            ));
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
        if names.len() != 1 || args.entity_default {
            return Err(refuse(
                "An entity name must be specified for every entity type",
            ));
        }
    }
    Ok(names.first().cloned())
}

/// Runs `kafkit configs`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let name = check_args(args)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.alter {
        alter(args, global, name.as_deref().unwrap_or_default(), &mut out)?;
    } else {
        describe(args, global, name.as_deref(), &mut out)?;
    }
    out.flush()?;
    Ok(())
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

fn describe(
    args: &Args,
    global: &GlobalArgs,
    name: Option<&str>,
    out: &mut impl Write,
) -> Result<()> {
    let datadir = DataDir::open(&global.data_dir)?;
    let topics: Vec<Topic> = match name {
        Some(name) => {
            check_name(name)?;
            match datadir.topic(name)? {
                Some(topic) => vec![topic],
                None if args.all => return Err(unknown_topic()),
                None => {
                    match global.output {
                        OutputFormat::Text => writeln!(out, "{}", not_found_line(name))?,
                        OutputFormat::Json => write_event(
                            out,
                            &ConfigsEvent::NotFound {
                                topic: name,
                                message: not_found_line(name),
                            },
                        )?,
                    }
                    return Ok(());
                }
            }
        }
        None => datadir.topics()?,
    };
    for topic in &topics {
        let entries = topic.configs.describe(args.all);
        match global.output {
            OutputFormat::Text => {
                writeln!(out, "{}", describe_header(&topic.name, args.all))?;
                for entry in &entries {
                    writeln!(out, "{}", describe_line(entry))?;
                }
            }
            OutputFormat::Json => {
                write_event(
                    out,
                    &ConfigsEvent::Topic {
                        topic: &topic.name,
                        all: args.all,
                    },
                )?;
                for entry in &entries {
                    write_event(out, &ConfigsEvent::config(&topic.name, entry))?;
                }
            }
        }
    }
    Ok(())
}

fn alter(args: &Args, global: &GlobalArgs, name: &str, out: &mut impl Write) -> Result<()> {
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
    check_name(name)?;
    let datadir = DataDir::open(&global.data_dir)?;
    let lock = datadir.lock()?;
    let topic = match datadir.alter_topic_configs(&lock, name, &set, &delete) {
        Ok(topic) => topic,
        Err(DataDirError::UnknownTopic(_)) => return Err(unknown_topic()),
        Err(DataDirError::Config(e @ ConfigError::NotSet(_))) => return Err(refuse(e.to_string())),
        Err(DataDirError::Config(e)) => {
            return Err(command_error(format!(
                "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidConfigurationException: {e}"
            )))
        }
        Err(e) => return Err(e.into()),
    };
    drop(lock);
    match global.output {
        OutputFormat::Text => writeln!(out, "{}", altered_line(name))?,
        OutputFormat::Json => write_event(
            out,
            &ConfigsEvent::Altered {
                topic: name,
                set: set.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
                deleted: &delete,
                configs: topic.configs.overrides(),
            },
        )?,
    }
    Ok(())
}
