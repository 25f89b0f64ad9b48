//! `--bootstrap-server` and the client properties, shared by the commands that can run
//! against a cluster instead of `--data-dir` (the library's `kafkit::net`).

use std::path::Path;

use anyhow::Result;

use super::{stderrln, usage_error, GlobalArgs};
use kafkit::net::{parse_bootstrap, ClientConfig, Cluster, NetError};
use kafkit::output::log4j;

/// The cluster `servers` names, with Kafka's client properties from `config_file` then
/// `properties` (`name=value`), for `command` (whose usage errors these are).
/// `--data-dir` given as well is a usage error: the two name different places.
pub fn cluster(
    command: &str,
    servers: &str,
    config_file: Option<&Path>,
    properties: &[String],
    global: &GlobalArgs,
    client_id: &str,
) -> Result<Cluster> {
    if global.data_dir_given {
        return Err(usage_error(
            command,
            "Option \"[bootstrap-server]\" can't be used with option \"[data-dir]\"",
        ));
    }
    if servers.trim().is_empty() {
        return Err(usage_error(
            command,
            "Error while validating the bootstrap address",
        ));
    }
    let bootstrap = parse_bootstrap(servers).map_err(|e| usage_error(command, e.to_string()))?;
    let props = super::properties(config_file, properties)?;
    let config =
        ClientConfig::new(client_id).apply(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    Ok(Cluster::new(bootstrap, config))
}

/// What a command prints for a failed call: the broker's message for a Kafka error (as
/// Kafka's tools print `e.getMessage`), and the warning Kafka's client logs when no broker
/// could be reached (on stderr, once). A refused login is logged as Kafka's `NetworkClient`
/// logs it (with the TLS library's reason as Java's `Caused by:` line) and its message is
/// Kafka's (`SSL handshake failed`, the broker's SASL message).
pub fn message(e: &NetError) -> String {
    match e {
        NetError::Kafka(k) => k.text(),
        NetError::Authentication {
            node,
            address,
            exception,
            message,
            cause,
        } => {
            stderrln!(
                "{}",
                log4j::line(
                    "ERROR",
                    &format!(
                        "Connection to node {node} ({address}) failed authentication due to: {message}"
                    ),
                    "org.apache.kafka.clients.NetworkClient"
                )
            );
            stderrln!("org.apache.kafka.common.errors.{exception}: {message}");
            if let Some(cause) = cause {
                stderrln!("Caused by: {cause}");
            }
            message.clone()
        }
        NetError::Timeout {
            unreachable: Some(warning),
            message,
        } => {
            stderrln!(
                "{}",
                log4j::line("WARN", warning, "org.apache.kafka.clients.NetworkClient")
            );
            message.clone()
        }
        other => other.to_string(),
    }
}

/// A failed call as the Java exception Kafka's tools print in a stack trace's first line
/// (`org.apache.kafka.common.errors.TimeoutException: ...`), with [`message`]'s text (and
/// its warning on stderr).
pub fn java_exception(e: &NetError) -> String {
    // What `message` warns of (a refused login's log lines) is printed as for any failure.
    let _ = message(e);
    e.java_exception()
}
