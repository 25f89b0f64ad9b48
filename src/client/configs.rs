//! The consumer and producer configs kafkit reads (`--consumer-property`, `--producer-property`,
//! their files, and the options that set them), defined as Kafka's `ConsumerConfig` and
//! `ProducerConfig` define them and parsed by the ConfigDef machinery the topic configs use
//! ([`parse_value`]): the same trimming, types, validators and messages.

use crate::datadir::config::{
    key, parse_value, ConfigError, ConfigKey, ConfigType, ConfigValue, Validator,
};

/// `batch.size` (also `--batch-size`, `--max-partition-memory-bytes`).
pub const BATCH_SIZE: ConfigKey = key(
    "batch.size",
    ConfigType::Int,
    "16384",
    Validator::AtLeast(0),
);
/// `max.request.size`.
pub const MAX_REQUEST_SIZE: ConfigKey = key(
    "max.request.size",
    ConfigType::Int,
    "1048576",
    Validator::AtLeast(0),
);
/// `linger.ms` (also `--timeout`): how long an open batch waits for more records.
pub const LINGER_MS: ConfigKey = key("linger.ms", ConfigType::Long, "0", Validator::AtLeast(0));
/// `max.in.flight.requests.per.connection`: Produce requests a producer may have waiting for
/// their answers on one connection (`--bootstrap-server`; a data directory has no requests).
pub const MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION: ConfigKey = key(
    "max.in.flight.requests.per.connection",
    ConfigType::Int,
    "5",
    Validator::AtLeast(1),
);
/// The producer configs kafkit reads.
pub const PRODUCER_CONFIGS_USED: [&str; 5] = [
    "acks",
    "batch.size",
    "compression.type",
    "linger.ms",
    "max.request.size",
];
/// The configs of Kafka's `ProducerConfig` (at the Kafka commit `kafka-cli-surface.md` reads)
/// that only a client of a broker has a use for (connections, security, metadata, retries,
/// metrics, client identity, serializers the console producer sets itself, partitioning by
/// broker load): accepted without a word, as the console producer's network options are.
/// Kafka's other configs that kafkit does not read (codec levels, idempotence, transactions,
/// interceptors, `partitioner.class`, ...) are warned about as unused, as unknown names are.
pub const PRODUCER_CONFIGS_FOR_A_BROKER: [&str; 80] = [
    "bootstrap.servers",
    "buffer.memory",
    "client.dns.lookup",
    "client.id",
    "connections.max.idle.ms",
    "delivery.timeout.ms",
    "enable.metrics.push",
    "key.serializer",
    "max.block.ms",
    "max.in.flight.requests.per.connection",
    "metadata.max.age.ms",
    "metadata.max.idle.ms",
    "metadata.recovery.strategy",
    "metric.reporters",
    "metrics.num.samples",
    "metrics.recording.level",
    "metrics.sample.window.ms",
    "partitioner.adaptive.partitioning.enable",
    "partitioner.availability.timeout.ms",
    "receive.buffer.bytes",
    "reconnect.backoff.max.ms",
    "reconnect.backoff.ms",
    "request.timeout.ms",
    "retries",
    "retry.backoff.max.ms",
    "retry.backoff.ms",
    "sasl.client.callback.handler.class",
    "sasl.jaas.config",
    "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.service.name",
    "sasl.kerberos.ticket.renew.jitter",
    "sasl.kerberos.ticket.renew.window.factor",
    "sasl.login.callback.handler.class",
    "sasl.login.class",
    "sasl.login.connect.timeout.ms",
    "sasl.login.read.timeout.ms",
    "sasl.login.refresh.buffer.seconds",
    "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter",
    "sasl.login.retry.backoff.max.ms",
    "sasl.login.retry.backoff.ms",
    "sasl.mechanism",
    "sasl.oauthbearer.clock.skew.seconds",
    "sasl.oauthbearer.expected.audience",
    "sasl.oauthbearer.expected.issuer",
    "sasl.oauthbearer.header.urlencode",
    "sasl.oauthbearer.jwks.endpoint.refresh.ms",
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms",
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
    "sasl.oauthbearer.jwks.endpoint.url",
    "sasl.oauthbearer.scope.claim.name",
    "sasl.oauthbearer.sub.claim.name",
    "sasl.oauthbearer.token.endpoint.url",
    "security.protocol",
    "security.providers",
    "send.buffer.bytes",
    "socket.connection.setup.timeout.max.ms",
    "socket.connection.setup.timeout.ms",
    "ssl.cipher.suites",
    "ssl.enabled.protocols",
    "ssl.endpoint.identification.algorithm",
    "ssl.engine.factory.class",
    "ssl.key.password",
    "ssl.keymanager.algorithm",
    "ssl.keystore.certificate.chain",
    "ssl.keystore.key",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.type",
    "ssl.protocol",
    "ssl.provider",
    "ssl.secure.random.implementation",
    "ssl.trustmanager.algorithm",
    "ssl.truststore.certificates",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.type",
    "value.serializer",
];

/// Kafka's `AbstractConfig.logUnused` message for the `names` supplied and not used (sorted,
/// as Java prints a set: `[a, b]`), or `None` when there are none. Kafka logs it at INFO, below
/// its tools' WARN threshold; kafkit shows it as a warning, since kafkit leaves more unused.
pub fn unused_message<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable();
    names.dedup();
    (!names.is_empty()).then(|| {
        format!(
            "These configurations '[{}]' were supplied but are not used yet.",
            names.join(", ")
        )
    })
}

/// `metadata.max.age.ms`: how often a subscription looks for new partitions and topics.
pub const METADATA_MAX_AGE_MS: ConfigKey = key(
    "metadata.max.age.ms",
    ConfigType::Long,
    "300000",
    Validator::AtLeast(0),
);
/// `exclude.internal.topics`: a pattern subscription leaves out internal topics.
pub const EXCLUDE_INTERNAL_TOPICS: ConfigKey = key(
    "exclude.internal.topics",
    ConfigType::Boolean,
    "true",
    Validator::None,
);
/// `isolation.level`.
pub const ISOLATION_LEVEL: ConfigKey = key(
    "isolation.level",
    ConfigType::String,
    "read_uncommitted",
    Validator::OneOf(&["read_committed", "read_uncommitted"]),
);
/// `check.crcs`: the consumer verifies every batch's checksum.
pub const CHECK_CRCS: ConfigKey = key("check.crcs", ConfigType::Boolean, "true", Validator::None);
/// `auto.offset.reset`.
pub const AUTO_OFFSET_RESET: ConfigKey = key(
    "auto.offset.reset",
    ConfigType::String,
    "latest",
    Validator::OneOf(&["latest", "earliest", "none"]),
);

/// A client config that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientConfigError {
    /// Not valid by Kafka's rules: the first line of Kafka's `ConfigException` (`... Invalid
    /// value -1 for configuration metadata.max.age.ms: Value must be at least 0`).
    #[error("org.apache.kafka.common.config.ConfigException: {0}")]
    Invalid(#[from] ConfigError),
    /// A key asked for as another type than it is defined with: a mistake in this file.
    #[error("kafkit: {name} read as the wrong type ({value})")]
    Mistyped {
        /// The config's name.
        name: &'static str,
        /// Its value, as Java prints it.
        value: String,
    },
}

/// `raw` parsed and validated as `key`.
fn parse(key: &ConfigKey, raw: &str) -> Result<ConfigValue, ClientConfigError> {
    Ok(parse_value(key, raw)?)
}

/// An `INT` or `LONG` config's value.
pub fn number(key: &ConfigKey, raw: &str) -> Result<i64, ClientConfigError> {
    let value = parse(key, raw)?;
    value.as_i64().ok_or_else(|| mistyped(key, &value))
}

/// A `BOOLEAN` config's value.
pub fn boolean(key: &ConfigKey, raw: &str) -> Result<bool, ClientConfigError> {
    match parse(key, raw)? {
        ConfigValue::Boolean(b) => Ok(b),
        other => Err(mistyped(key, &other)),
    }
}

/// A `STRING` config's value (trimmed, as ConfigDef trims it).
pub fn string(key: &ConfigKey, raw: &str) -> Result<String, ClientConfigError> {
    match parse(key, raw)? {
        ConfigValue::String(s) => Ok(s),
        other => Err(mistyped(key, &other)),
    }
}

#[cold]
fn mistyped(key: &ConfigKey, value: &ConfigValue) -> ClientConfigError {
    ClientConfigError::Mistyped {
        name: key.name,
        value: value.java_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_producer_defaults_are_the_keys_defaults() {
        use crate::client::producer::{DEFAULT_BATCH_SIZE, DEFAULT_MAX_REQUEST_SIZE};
        assert_eq!(BATCH_SIZE.default, DEFAULT_BATCH_SIZE.to_string());
        assert_eq!(
            MAX_REQUEST_SIZE.default,
            DEFAULT_MAX_REQUEST_SIZE.to_string()
        );
    }

    #[test]
    fn unused_configs_are_named_as_kafka_names_them() {
        assert_eq!(unused_message([]), None);
        assert_eq!(
            unused_message(["foo", "bar", "foo"]).as_deref(),
            Some("These configurations '[bar, foo]' were supplied but are not used yet.")
        );
        // The lists are sorted, distinct and disjoint.
        for list in [
            &PRODUCER_CONFIGS_USED[..],
            &PRODUCER_CONFIGS_FOR_A_BROKER[..],
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
        assert!(PRODUCER_CONFIGS_USED
            .iter()
            .all(|n| !PRODUCER_CONFIGS_FOR_A_BROKER.contains(n)));
        assert!(PRODUCER_CONFIGS_USED.contains(&LINGER_MS.name));
    }

    #[test]
    fn client_configs_parse_as_kafkas_configdef() {
        let exception = "org.apache.kafka.common.config.ConfigException: Invalid value";
        assert_eq!(number(&METADATA_MAX_AGE_MS, " 100 "), Ok(100));
        let message = |e: ClientConfigError| e.to_string();
        assert_eq!(
            number(&METADATA_MAX_AGE_MS, "-1").map_err(message),
            Err(format!(
                "{exception} -1 for configuration metadata.max.age.ms: Value must be at least 0"
            ))
        );
        assert_eq!(
            number(&BATCH_SIZE, "x").map_err(message),
            Err(format!(
                "{exception} x for configuration batch.size: Not a number of type INT"
            ))
        );
        assert_eq!(boolean(&EXCLUDE_INTERNAL_TOPICS, " FALSE"), Ok(false));
        assert!(matches!(
            boolean(&BATCH_SIZE, "1"),
            Err(ClientConfigError::Mistyped {
                name: "batch.size",
                ..
            })
        ));
        assert_eq!(
            string(&ISOLATION_LEVEL, " read_committed "),
            Ok("read_committed".into())
        );
        assert_eq!(
            string(&AUTO_OFFSET_RESET, "smallest").map_err(message),
            Err(format!("{exception} smallest for configuration auto.offset.reset: String must be one of: latest, earliest, none"))
        );
    }
}
