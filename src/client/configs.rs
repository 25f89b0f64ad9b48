//! The consumer and producer configs kafkit reads (`--consumer-property`, `--producer-property`,
//! their files, and the options that set them), defined as Kafka's `ConsumerConfig` and
//! `ProducerConfig` define them and parsed by the ConfigDef machinery the topic configs use
//! ([`parse_value`]): the same trimming, types, validators and messages.

use crate::datadir::config::{key, parse_value, ConfigKey, ConfigType, ConfigValue, Validator};

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

/// `raw` parsed and validated as `key`; the first line of Kafka's `ConfigException` when it is
/// not valid (`... Invalid value -1 for configuration metadata.max.age.ms: Value must be at
/// least 0`).
fn parse(key: &ConfigKey, raw: &str) -> Result<ConfigValue, String> {
    parse_value(key, raw)
        .map_err(|e| format!("org.apache.kafka.common.config.ConfigException: {e}"))
}

/// An `INT` or `LONG` config's value.
pub fn number(key: &ConfigKey, raw: &str) -> Result<i64, String> {
    let value = parse(key, raw)?;
    value.as_i64().ok_or_else(|| mistyped(key, &value))
}

/// A `BOOLEAN` config's value.
pub fn boolean(key: &ConfigKey, raw: &str) -> Result<bool, String> {
    match parse(key, raw)? {
        ConfigValue::Boolean(b) => Ok(b),
        other => Err(mistyped(key, &other)),
    }
}

/// A `STRING` config's value (trimmed, as ConfigDef trims it).
pub fn string(key: &ConfigKey, raw: &str) -> Result<String, String> {
    match parse(key, raw)? {
        ConfigValue::String(s) => Ok(s),
        other => Err(mistyped(key, &other)),
    }
}

/// A key asked for as another type than it is defined with: a mistake in this file.
#[cold]
fn mistyped(key: &ConfigKey, value: &ConfigValue) -> String {
    format!(
        "kafkit: {} read as the wrong type ({})",
        key.name,
        value.java_string()
    )
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
    fn client_configs_parse_as_kafkas_configdef() {
        let exception = "org.apache.kafka.common.config.ConfigException: Invalid value";
        assert_eq!(number(&METADATA_MAX_AGE_MS, " 100 "), Ok(100));
        assert_eq!(
            number(&METADATA_MAX_AGE_MS, "-1"),
            Err(format!(
                "{exception} -1 for configuration metadata.max.age.ms: Value must be at least 0"
            ))
        );
        assert_eq!(
            number(&BATCH_SIZE, "x"),
            Err(format!(
                "{exception} x for configuration batch.size: Not a number of type INT"
            ))
        );
        assert_eq!(boolean(&EXCLUDE_INTERNAL_TOPICS, " FALSE"), Ok(false));
        assert_eq!(
            string(&ISOLATION_LEVEL, " read_committed "),
            Ok("read_committed".into())
        );
        assert_eq!(
            string(&AUTO_OFFSET_RESET, "smallest"),
            Err(format!("{exception} smallest for configuration auto.offset.reset: String must be one of: latest, earliest, none"))
        );
    }
}
