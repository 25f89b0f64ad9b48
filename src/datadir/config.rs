//! Topic-level configs (`LogConfig` in Kafka): every name Kafka accepts, its type, default and
//! validator, with Kafka's exact error messages (`kafka-cli-surface.md` §1.9).
//!
//! Where Kafka 4.0.0 changed a rule after the snapshot the spec table was read from, the 4.0.0
//! form is used (`kafka-disk-format.md` §13.4, KIP-1030): `segment.bytes` must be at least
//! 1048576 (was 14) and `message.timestamp.after.max.ms` defaults to 3600000 (was
//! `Long.MAX_VALUE`).

use std::collections::BTreeMap;

use crate::log::{CompressionPolicy, LogConfig};
use crate::record::{Compression, TimestampType};

/// The type of a config value (ConfigDef's `Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    /// A Java `int`.
    Int,
    /// A Java `long`.
    Long,
    /// A Java `double`.
    Double,
    /// `true` or `false`, any case.
    Boolean,
    /// Free text (maybe restricted by the validator).
    String,
    /// A comma-separated list, items trimmed.
    List,
}

impl ConfigType {
    fn java_name(self) -> &'static str {
        match self {
            ConfigType::Int => "INT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::List => "LIST",
        }
    }
}

/// What a value must satisfy besides its type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Validator {
    /// Anything of the right type.
    None,
    /// `Range.atLeast(min)`.
    AtLeast(i64),
    /// `Range.between(min, max)`.
    Between(i64, i64),
    /// `ValidString.in(...)`.
    OneOf(&'static [&'static str]),
    /// `ValidList.in(...)`: every item one of these.
    ListOf(&'static [&'static str]),
    /// gzip's level: 1..9 or -1.
    GzipLevel,
    /// `*` or `partition:broker,...` (the replication throttles).
    ThrottledReplicas,
    /// A metadata/message-format version string such as `3.0-IV1`.
    Version,
}

/// One topic config as Kafka defines it.
#[derive(Debug, Clone, Copy)]
pub struct ConfigKey {
    /// The config name, e.g. `cleanup.policy`.
    pub name: &'static str,
    /// Its type.
    pub kind: ConfigType,
    /// Its default, as Kafka prints it.
    pub default: &'static str,
    /// Its validator.
    pub validator: Validator,
}

/// A config definition (ConfigDef's `define`), for the topic configs here and the client ones
/// (`client::configs`).
pub const fn key(
    name: &'static str,
    kind: ConfigType,
    default: &'static str,
    validator: Validator,
) -> ConfigKey {
    ConfigKey {
        name,
        kind,
        default,
        validator,
    }
}

const LONG_MAX: &str = "9223372036854775807";

/// `compression.type` values, in Kafka's order (`BrokerCompressionType.names()`).
pub const COMPRESSION_TYPES: &[&str] =
    &["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];

use ConfigType as T;
use Validator as V;

/// Every topic config Kafka knows, sorted by name (as `--config` help lists them).
pub const TOPIC_CONFIGS: &[ConfigKey] = &[
    key(
        "cleanup.policy",
        T::List,
        "delete",
        V::ListOf(&["compact", "delete"]),
    ),
    key("compression.gzip.level", T::Int, "-1", V::GzipLevel),
    key("compression.lz4.level", T::Int, "9", V::Between(1, 17)),
    key(
        "compression.type",
        T::String,
        "producer",
        V::OneOf(COMPRESSION_TYPES),
    ),
    key(
        "compression.zstd.level",
        T::Int,
        "3",
        V::Between(-131072, 22),
    ),
    key("delete.retention.ms", T::Long, "86400000", V::AtLeast(0)),
    key("file.delete.delay.ms", T::Long, "60000", V::AtLeast(0)),
    key("flush.messages", T::Long, LONG_MAX, V::AtLeast(1)),
    key("flush.ms", T::Long, LONG_MAX, V::AtLeast(0)),
    key(
        "follower.replication.throttled.replicas",
        T::List,
        "",
        V::ThrottledReplicas,
    ),
    key("index.interval.bytes", T::Int, "4096", V::AtLeast(0)),
    key(
        "leader.replication.throttled.replicas",
        T::List,
        "",
        V::ThrottledReplicas,
    ),
    key("local.retention.bytes", T::Long, "-2", V::AtLeast(-2)),
    key("local.retention.ms", T::Long, "-2", V::AtLeast(-2)),
    key("max.compaction.lag.ms", T::Long, LONG_MAX, V::AtLeast(1)),
    key("max.message.bytes", T::Int, "1048588", V::AtLeast(0)),
    key("message.downconversion.enable", T::Boolean, "true", V::None),
    key("message.format.version", T::String, "3.0-IV1", V::Version),
    key(
        "message.timestamp.after.max.ms",
        T::Long,
        "3600000",
        V::AtLeast(0),
    ),
    key(
        "message.timestamp.before.max.ms",
        T::Long,
        LONG_MAX,
        V::AtLeast(0),
    ),
    key(
        "message.timestamp.difference.max.ms",
        T::Long,
        LONG_MAX,
        V::AtLeast(0),
    ),
    key(
        "message.timestamp.type",
        T::String,
        "CreateTime",
        V::OneOf(&["CreateTime", "LogAppendTime"]),
    ),
    key(
        "min.cleanable.dirty.ratio",
        T::Double,
        "0.5",
        V::Between(0, 1),
    ),
    key("min.compaction.lag.ms", T::Long, "0", V::AtLeast(0)),
    key("min.insync.replicas", T::Int, "1", V::AtLeast(1)),
    key("preallocate", T::Boolean, "false", V::None),
    key("remote.log.copy.disable", T::Boolean, "false", V::None),
    key("remote.log.delete.on.disable", T::Boolean, "false", V::None),
    key("remote.storage.enable", T::Boolean, "false", V::None),
    key("retention.bytes", T::Long, "-1", V::None),
    key("retention.ms", T::Long, "604800000", V::AtLeast(-1)),
    key("segment.bytes", T::Int, "1073741824", V::AtLeast(1_048_576)),
    key("segment.index.bytes", T::Int, "10485760", V::AtLeast(4)),
    key("segment.jitter.ms", T::Long, "0", V::AtLeast(0)),
    key("segment.ms", T::Long, "604800000", V::AtLeast(1)),
    key(
        "unclean.leader.election.enable",
        T::Boolean,
        "false",
        V::None,
    ),
];

/// The broker config a topic config falls back to, when the broker defines a default for it
/// (Kafka's `LogConfig.TOPIC_CONFIG_SYNONYMS`, whose first broker name `DescribeConfigs` reports
/// as the `DEFAULT_CONFIG` synonym; that default is the topic config's own). `None` where the
/// first broker name has no default of its own (`log.retention.ms`, `log.roll.ms`,
/// `log.roll.jitter.ms`, `log.flush.interval.ms`: Kafka then reports no default synonym) or
/// where there is no broker config at all.
pub fn default_synonym(name: &str) -> Option<&'static str> {
    Some(match name {
        "cleanup.policy" => "log.cleanup.policy",
        "compression.type" => "compression.type",
        "compression.gzip.level" => "compression.gzip.level",
        "compression.lz4.level" => "compression.lz4.level",
        "compression.zstd.level" => "compression.zstd.level",
        "delete.retention.ms" => "log.cleaner.delete.retention.ms",
        "file.delete.delay.ms" => "log.segment.delete.delay.ms",
        "flush.messages" => "log.flush.interval.messages",
        "index.interval.bytes" => "log.index.interval.bytes",
        "local.retention.bytes" => "log.local.retention.bytes",
        "local.retention.ms" => "log.local.retention.ms",
        "max.compaction.lag.ms" => "log.cleaner.max.compaction.lag.ms",
        "max.message.bytes" => "message.max.bytes",
        "message.downconversion.enable" => "log.message.downconversion.enable",
        "message.format.version" => "log.message.format.version",
        "message.timestamp.after.max.ms" => "log.message.timestamp.after.max.ms",
        "message.timestamp.before.max.ms" => "log.message.timestamp.before.max.ms",
        "message.timestamp.difference.max.ms" => "log.message.timestamp.difference.max.ms",
        "message.timestamp.type" => "log.message.timestamp.type",
        "min.cleanable.dirty.ratio" => "log.cleaner.min.cleanable.ratio",
        "min.compaction.lag.ms" => "log.cleaner.min.compaction.lag.ms",
        "min.insync.replicas" => "min.insync.replicas",
        "preallocate" => "log.preallocate",
        "retention.bytes" => "log.retention.bytes",
        "segment.bytes" => "log.segment.bytes",
        "segment.index.bytes" => "log.index.size.max.bytes",
        "unclean.leader.election.enable" => "unclean.leader.election.enable",
        _ => return None,
    })
}

/// Whether the text after byte `at` of `s` is outside square brackets: Kafka's lookahead
/// `(?=[^\]]*(?:\[|$))`, no `]` before the next `[` or the end.
fn outside_brackets(s: &str, at: usize) -> bool {
    let rest = s.get(at..).unwrap_or("");
    match rest.find([']', '[']) {
        Some(i) => rest.as_bytes().get(i) == Some(&b'['),
        None => true,
    }
}

/// `kafka-configs --add-config`'s parser (`ConfigCommand.parseConfigsToBeAdded`): entries split
/// at commas outside square brackets (trailing empty entries dropped, as Java's `split`), each
/// split at `\s*=\s*` outside brackets into exactly a key and a value; the key trimmed, the value
/// without any `[` or `]` and trimmed; a later key wins. Keys must be `[a-zA-Z0-9._-]*`.
pub fn parse_add_config(text: &str) -> Result<Vec<(String, String)>, ConfigError> {
    let mut entries: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == ',' && outside_brackets(text, i + 1) {
            entries.push(text.get(start..i).unwrap_or(""));
            start = i + 1;
        }
    }
    entries.push(text.get(start..).unwrap_or(""));
    while entries.len() > 1 && entries.last() == Some(&"") {
        entries.pop();
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in entries {
        let mut parts = Vec::new();
        let mut from = 0;
        for (i, c) in entry.char_indices() {
            if c != '=' || i < from {
                continue;
            }
            let after = i
                + 1
                + entry
                    .get(i + 1..)
                    .map_or(0, |r| r.len() - r.trim_start().len());
            if outside_brackets(entry, after) {
                let before = entry.get(from..i).unwrap_or("");
                parts.push(before.trim_end_matches(char::is_whitespace));
                from = after;
            }
        }
        parts.push(entry.get(from..).unwrap_or(""));
        let [key, value] = parts.as_slice() else {
            return Err(ConfigError::NotKeyValue);
        };
        let key = key.trim().to_string();
        let value: String = value.chars().filter(|c| *c != '[' && *c != ']').collect();
        out.retain(|(k, _)| *k != key);
        out.push((key, value.trim().to_string()));
    }
    check_keys(&out)?;
    Ok(out)
}

/// Kafka's `validatePropsKey`: every key `[a-zA-Z0-9._-]*`.
pub fn check_keys(entries: &[(String, String)]) -> Result<(), ConfigError> {
    match entries.iter().find(|(k, _)| {
        !k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
    }) {
        Some((k, _)) => Err(ConfigError::InvalidKey(k.clone())),
        None => Ok(()),
    }
}

/// Where a described config value comes from (Kafka's `ConfigEntry.ConfigSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    /// Set on the topic.
    DynamicTopicConfig,
    /// Set on one broker's loggers (a broker's answer over the network).
    DynamicBrokerLoggerConfig,
    /// Set on one broker at run time (a broker's answer over the network).
    DynamicBrokerConfig,
    /// Set at run time for every broker of the cluster (a broker's answer over the network).
    DynamicDefaultBrokerConfig,
    /// Set on a client-metrics resource (a broker's answer over the network).
    DynamicClientMetricsConfig,
    /// Set on a group (a broker's answer over the network).
    DynamicGroupConfig,
    /// In the broker's `server.properties` (a broker's answer over the network).
    StaticBrokerConfig,
    /// Kafka's default.
    DefaultConfig,
    /// A source the broker did not name (or one kafkit does not know).
    Unknown,
}

/// Serialized as Kafka's name ([`ConfigSource::name`]).
impl serde::Serialize for ConfigSource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl ConfigSource {
    /// Kafka's name, e.g. `DYNAMIC_TOPIC_CONFIG`.
    pub fn name(self) -> &'static str {
        match self {
            ConfigSource::DynamicTopicConfig => "DYNAMIC_TOPIC_CONFIG",
            ConfigSource::DynamicBrokerLoggerConfig => "DYNAMIC_BROKER_LOGGER_CONFIG",
            ConfigSource::DynamicBrokerConfig => "DYNAMIC_BROKER_CONFIG",
            ConfigSource::DynamicDefaultBrokerConfig => "DYNAMIC_DEFAULT_BROKER_CONFIG",
            ConfigSource::DynamicClientMetricsConfig => "DYNAMIC_CLIENT_METRICS_CONFIG",
            ConfigSource::DynamicGroupConfig => "DYNAMIC_GROUP_CONFIG",
            ConfigSource::StaticBrokerConfig => "STATIC_BROKER_CONFIG",
            ConfigSource::DefaultConfig => "DEFAULT_CONFIG",
            ConfigSource::Unknown => "UNKNOWN",
        }
    }
}

/// One synonym of a described config: a name, its value and where that comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSynonym {
    /// The topic config's or the broker config's name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Where it comes from.
    pub source: ConfigSource,
}

/// A topic config as Kafka's `DescribeConfigs` answers it (`ConfigHelper.createTopicConfigEntry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The config name.
    pub name: String,
    /// The effective value.
    pub value: String,
    /// Where the effective value comes from.
    pub source: ConfigSource,
    /// No topic config is sensitive (a password); always `false`.
    pub sensitive: bool,
    /// The topic's own value first (when set), then the broker default it falls back to.
    pub synonyms: Vec<ConfigSynonym>,
}

/// Looks a topic config up by name.
pub fn config_key(name: &str) -> Option<&'static ConfigKey> {
    TOPIC_CONFIGS.iter().find(|k| k.name == name)
}

/// A config rejected by Kafka's rules; displays as Kafka's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Not a topic config at all.
    #[error("Unknown topic config name: {0}")]
    Unknown(String),
    /// A value of the wrong type or out of range (`ConfigException`).
    #[error("Invalid value {value} for configuration {name}: {reason}")]
    InvalidValue {
        /// The config name.
        name: String,
        /// The value as Kafka prints it (parsed, when parsing succeeded).
        value: String,
        /// Kafka's reason, e.g. `Value must be at least 0`.
        reason: String,
    },
    /// A rule across several configs.
    #[error("{0}")]
    Conflict(String),
    /// An `--add-config` entry that is not `key=value`.
    #[error("Invalid entity config: all configs to be added must be in the format \"key=val\" or  \"key=[val1,val2]\" to group values which contain commas.")]
    NotKeyValue,
    /// A config name with a character outside `[a-zA-Z0-9._-]`.
    #[error("Invalid character found for config key: {0}")]
    InvalidKey(String),
    /// Configs to delete that the topic does not set (`kafka-configs --delete-config`).
    #[error("Invalid config(s): {}", .0.join(","))]
    NotSet(Vec<String>),
}

/// A parsed config value.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigValue {
    /// `INT`.
    Int(i32),
    /// `LONG`.
    Long(i64),
    /// `DOUBLE`.
    Double(f64),
    /// `BOOLEAN`.
    Boolean(bool),
    /// `STRING`.
    String(String),
    /// `LIST`.
    List(Vec<String>),
}

impl ConfigValue {
    /// The value as Java's `toString` prints it (what `ConfigException` shows).
    pub fn java_string(&self) -> String {
        match self {
            ConfigValue::Int(v) => v.to_string(),
            ConfigValue::Long(v) => v.to_string(),
            ConfigValue::Double(v) => crate::java::double_to_string(*v),
            ConfigValue::Boolean(v) => v.to_string(),
            ConfigValue::String(v) => v.clone(),
            ConfigValue::List(v) => format!("[{}]", v.join(", ")),
        }
    }

    /// The value as Kafka shows it in `DescribeConfigs` (`ConfigDef.convertToString`): a list
    /// joined by `,`, anything else as Java prints it.
    pub fn kafka_string(&self) -> String {
        match self {
            ConfigValue::List(v) => v.join(","),
            other => other.java_string(),
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            ConfigValue::Int(v) => Some(f64::from(*v)),
            ConfigValue::Long(v) => Some(*v as f64),
            ConfigValue::Double(v) => Some(*v),
            _ => None,
        }
    }

    /// The value of an `INT` or `LONG` config.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            ConfigValue::Int(v) => Some(i64::from(*v)),
            ConfigValue::Long(v) => Some(*v),
            _ => None,
        }
    }
}

fn invalid(key: &ConfigKey, value: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError::InvalidValue {
        name: key.name.to_string(),
        value: value.into(),
        reason: reason.into(),
    }
}

/// A number of the config's type, or ConfigDef's `Not a number of type INT` (LONG, DOUBLE).
fn number<T: std::str::FromStr>(key: &ConfigKey, raw: &str, text: &str) -> Result<T, ConfigError> {
    text.parse().map_err(|_| {
        invalid(
            key,
            raw,
            format!("Not a number of type {}", key.kind.java_name()),
        )
    })
}

/// Parses and validates one value of a known config (ConfigDef's `parseType` + validator).
pub fn parse_value(key: &ConfigKey, raw: &str) -> Result<ConfigValue, ConfigError> {
    let text = raw.trim();
    let value = match key.kind {
        ConfigType::Int => ConfigValue::Int(number(key, raw, text)?),
        ConfigType::Long => ConfigValue::Long(number(key, raw, text)?),
        ConfigType::Double => ConfigValue::Double(number(key, raw, text)?),
        ConfigType::Boolean => {
            if text.eq_ignore_ascii_case("true") {
                ConfigValue::Boolean(true)
            } else if text.eq_ignore_ascii_case("false") {
                ConfigValue::Boolean(false)
            } else {
                return Err(invalid(
                    key,
                    raw,
                    "Expected value to be either true or false",
                ));
            }
        }
        ConfigType::String => ConfigValue::String(text.to_string()),
        ConfigType::List => ConfigValue::List(if text.is_empty() {
            Vec::new()
        } else {
            text.split(',').map(|s| s.trim().to_string()).collect()
        }),
    };
    validate(key, &value)?;
    Ok(value)
}

fn validate(key: &ConfigKey, value: &ConfigValue) -> Result<(), ConfigError> {
    let shown = || value.java_string();
    match key.validator {
        Validator::None => Ok(()),
        Validator::AtLeast(min) => {
            let n = value.as_f64().unwrap_or(0.0);
            if n < min as f64 {
                return Err(invalid(
                    key,
                    shown(),
                    format!("Value must be at least {min}"),
                ));
            }
            Ok(())
        }
        Validator::Between(min, max) => {
            let n = value.as_f64().unwrap_or(0.0);
            if n < min as f64 {
                return Err(invalid(
                    key,
                    shown(),
                    format!("Value must be at least {min}"),
                ));
            }
            if n > max as f64 {
                return Err(invalid(
                    key,
                    shown(),
                    format!("Value must be no more than {max}"),
                ));
            }
            Ok(())
        }
        Validator::OneOf(allowed) => match value {
            ConfigValue::String(s) if allowed.contains(&s.as_str()) => Ok(()),
            _ => Err(invalid(
                key,
                shown(),
                format!("String must be one of: {}", allowed.join(", ")),
            )),
        },
        Validator::ListOf(allowed) => {
            if let ConfigValue::List(items) = value {
                for item in items {
                    if !allowed.contains(&item.as_str()) {
                        return Err(invalid(
                            key,
                            item.clone(),
                            format!("String must be one of: {}", allowed.join(", ")),
                        ));
                    }
                }
            }
            Ok(())
        }
        Validator::GzipLevel => {
            let n = value.as_i64().unwrap_or(0);
            if n == -1 || (1..=9).contains(&n) {
                Ok(())
            } else {
                Err(invalid(
                    key,
                    shown(),
                    "Value must be between 1 and 9 or equal to -1",
                ))
            }
        }
        Validator::ThrottledReplicas => {
            let items = match value {
                ConfigValue::List(items) => items.as_slice(),
                _ => &[],
            };
            let pair_ok = |s: &str| {
                s.is_empty()
                    || s.split_once(':').is_some_and(|(p, b)| {
                        !p.is_empty()
                            && !b.is_empty()
                            && p.bytes().all(|c| c.is_ascii_digit())
                            && b.bytes().all(|c| c.is_ascii_digit())
                    })
            };
            if items.iter().all(|s| pair_ok(s.trim())) || items.concat().trim() == "*" {
                Ok(())
            } else {
                Err(invalid(
                    key,
                    shown(),
                    format!(
                        "{} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...",
                        key.name
                    ),
                ))
            }
        }
        Validator::Version => {
            let s = shown();
            if is_version_string(&s) {
                Ok(())
            } else {
                Err(invalid(
                    key,
                    s.clone(),
                    format!("Version `{s}` is not a valid version"),
                ))
            }
        }
    }
}

/// `0.8.0` .. `3.9-IV0`: two or three dotted numbers, optionally `-IV<n>`.
fn is_version_string(s: &str) -> bool {
    let (numbers, iv) = match s.split_once("-IV") {
        Some((n, iv)) => (n, Some(iv)),
        None => (s, None),
    };
    let parts: Vec<&str> = numbers.split('.').collect();
    (2..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
        && iv.is_none_or(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

/// A topic's config overrides, validated; everything else takes Kafka's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicConfigs {
    overrides: BTreeMap<String, String>,
}

impl TopicConfigs {
    /// Validates overrides as `LogConfig.validate` does: unknown names first (in the order
    /// given), then each value, then the rules across configs. Values are stored trimmed.
    pub fn new<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<TopicConfigs, ConfigError> {
        let entries: Vec<(&str, &str)> = entries.into_iter().collect();
        if let Some((name, _)) = entries.iter().find(|(name, _)| config_key(name).is_none()) {
            return Err(ConfigError::Unknown((*name).to_string()));
        }
        let mut overrides = BTreeMap::new();
        for (name, raw) in entries {
            if let Some(key) = config_key(name) {
                parse_value(key, raw)?;
                overrides.insert(name.to_string(), raw.trim().to_string());
            }
        }
        let configs = TopicConfigs { overrides };
        configs.validate_together()?;
        Ok(configs)
    }

    /// These overrides after Kafka's `IncrementalAlterConfigs` on a topic: every name of
    /// `delete` must be set now (else [`ConfigError::NotSet`], as `kafka-configs` checks before
    /// asking), deletes go first, then the values of `set` replace or add; the result is
    /// validated whole as [`TopicConfigs::new`] validates.
    pub fn altered(
        &self,
        set: &[(String, String)],
        delete: &[String],
    ) -> Result<TopicConfigs, ConfigError> {
        let not_set: Vec<String> = delete
            .iter()
            .filter(|name| !self.overrides.contains_key(name.as_str()))
            .cloned()
            .collect();
        if !not_set.is_empty() {
            return Err(ConfigError::NotSet(not_set));
        }
        let mut entries = self.overrides.clone();
        for name in delete {
            entries.remove(name);
        }
        // Unknown names are reported in the order given, before any value.
        if let Some((name, _)) = set.iter().find(|(name, _)| config_key(name).is_none()) {
            return Err(ConfigError::Unknown(name.clone()));
        }
        for (name, value) in set {
            entries.insert(name.clone(), value.clone());
        }
        TopicConfigs::new(entries.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Kafka's `DescribeConfigs` of the topic: its overrides (the `DYNAMIC_TOPIC_CONFIG`
    /// entries `kafka-configs --describe` shows), or with `all` every topic config, by name.
    pub fn describe(&self, all: bool) -> Vec<ConfigEntry> {
        let mut entries = Vec::new();
        for key in TOPIC_CONFIGS {
            let set = self.overrides.contains_key(key.name);
            if !set && !all {
                continue;
            }
            let value = self
                .value(key.name)
                .map(|v| v.kafka_string())
                .unwrap_or_default();
            let mut synonyms = Vec::new();
            if set {
                synonyms.push(ConfigSynonym {
                    name: key.name.to_string(),
                    value: value.clone(),
                    source: ConfigSource::DynamicTopicConfig,
                });
            }
            if let Some(broker) = default_synonym(key.name) {
                synonyms.push(ConfigSynonym {
                    name: broker.to_string(),
                    value: parse_value(key, key.default)
                        .map(|v| v.kafka_string())
                        .unwrap_or_else(|_| key.default.to_string()),
                    source: ConfigSource::DefaultConfig,
                });
            }
            entries.push(ConfigEntry {
                name: key.name.to_string(),
                value,
                source: synonyms
                    .first()
                    .map_or(ConfigSource::DefaultConfig, |s| s.source),
                sensitive: false,
                synonyms,
            });
        }
        entries
    }

    fn validate_together(&self) -> Result<(), ConfigError> {
        let min_lag = self.long("min.compaction.lag.ms");
        let max_lag = self.long("max.compaction.lag.ms");
        if min_lag > max_lag {
            return Err(ConfigError::Conflict(format!(
                "conflict topic config setting min.compaction.lag.ms ({min_lag}) > max.compaction.lag.ms ({max_lag})"
            )));
        }
        if self.boolean("remote.storage.enable") {
            return Err(ConfigError::Conflict(
                "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."
                    .into(),
            ));
        }
        Ok(())
    }

    /// The overrides, sorted by name, values as stored.
    pub fn overrides(&self) -> &BTreeMap<String, String> {
        &self.overrides
    }

    /// Whether any config differs from Kafka's default source (any override at all).
    pub fn has_overrides(&self) -> bool {
        !self.overrides.is_empty()
    }

    /// The effective value of a config: the override, else Kafka's default. `None` for an
    /// unknown name.
    pub fn value(&self, name: &str) -> Option<ConfigValue> {
        let key = config_key(name)?;
        let raw = self.overrides.get(name).map_or(key.default, String::as_str);
        parse_value(key, raw)
            .ok()
            .or_else(|| parse_value(key, key.default).ok())
    }

    fn long(&self, name: &str) -> i64 {
        self.value(name).and_then(|v| v.as_i64()).unwrap_or(0)
    }

    fn boolean(&self, name: &str) -> bool {
        matches!(self.value(name), Some(ConfigValue::Boolean(true)))
    }

    fn string(&self, name: &str) -> String {
        match self.value(name) {
            Some(ConfigValue::String(s)) => s,
            _ => String::new(),
        }
    }

    fn unsigned(&self, name: &str, default: u32) -> u32 {
        self.value(name)
            .and_then(|v| v.as_i64())
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(default)
    }

    /// `min.insync.replicas`.
    pub fn min_insync_replicas(&self) -> i64 {
        self.long("min.insync.replicas")
    }

    /// The typed settings the log obeys.
    pub fn log_config(&self) -> LogConfig {
        let mut config = LogConfig::default();
        config.segment_bytes = self.unsigned("segment.bytes", config.segment_bytes);
        config.segment_ms = self.long("segment.ms");
        config.segment_index_bytes =
            self.unsigned("segment.index.bytes", config.segment_index_bytes);
        config.index_interval_bytes =
            self.unsigned("index.interval.bytes", config.index_interval_bytes);
        config.max_message_bytes = self.unsigned("max.message.bytes", config.max_message_bytes);
        config.timestamp_type = match self.string("message.timestamp.type").as_str() {
            "LogAppendTime" => TimestampType::LogAppendTime,
            _ => TimestampType::CreateTime,
        };
        config.compression = match self.string("compression.type").as_str() {
            "uncompressed" => CompressionPolicy::Fixed(Compression::None),
            "gzip" => CompressionPolicy::Fixed(Compression::Gzip),
            "snappy" => CompressionPolicy::Fixed(Compression::Snappy),
            "lz4" => CompressionPolicy::Fixed(Compression::Lz4),
            "zstd" => CompressionPolicy::Fixed(Compression::Zstd),
            _ => CompressionPolicy::Producer,
        };
        config.flush_messages = self.long("flush.messages");
        config.flush_ms = self.long("flush.ms");
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(name: &str, value: &str) -> String {
        TopicConfigs::new([(name, value)]).unwrap_err().to_string()
    }

    #[test]
    fn sorted_and_unique() {
        let names: Vec<&str> = TOPIC_CONFIGS.iter().map(|k| k.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        for k in TOPIC_CONFIGS {
            assert!(parse_value(k, k.default).is_ok(), "{} default", k.name);
        }
    }

    #[test]
    fn kafka_messages() {
        assert_eq!(err("x", "1"), "Unknown topic config name: x");
        assert_eq!(
            err("message.timestamp.type", "boom"),
            "Invalid value boom for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"
        );
        assert_eq!(
            err("retention.ms", "-2"),
            "Invalid value -2 for configuration retention.ms: Value must be at least -1"
        );
        assert_eq!(
            err("min.cleanable.dirty.ratio", "2"),
            "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"
        );
        assert_eq!(
            err("segment.bytes", "abc"),
            "Invalid value abc for configuration segment.bytes: Not a number of type INT"
        );
        assert_eq!(
            err("preallocate", "yes"),
            "Invalid value yes for configuration preallocate: Expected value to be either true or false"
        );
        assert_eq!(
            err("cleanup.policy", "compact,foo"),
            "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete"
        );
        assert_eq!(
            err("compression.gzip.level", "10"),
            "Invalid value 10 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"
        );
        assert!(TopicConfigs::new([("cleanup.policy", "compact, delete")]).is_ok());
        assert!(TopicConfigs::new([("leader.replication.throttled.replicas", "*")]).is_ok());
        assert!(TopicConfigs::new([("leader.replication.throttled.replicas", "0:1,1:2")]).is_ok());
        assert!(TopicConfigs::new([("leader.replication.throttled.replicas", "0-1")]).is_err());
    }

    #[test]
    fn add_config_parser() {
        let parsed = parse_add_config("a=1, b = [x,y] ,c=,d=[e=f]").unwrap();
        let pairs: Vec<(&str, &str)> = parsed
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(pairs, [("a", "1"), ("b", "x,y"), ("c", ""), ("d", "e=f")]);
        assert_eq!(parse_add_config("a=1,").unwrap().len(), 1);
        assert_eq!(
            parse_add_config("a=1,a=2").unwrap(),
            [("a".to_string(), "2".to_string())]
        );
        for bad in ["", "a", "a=1=2", "a=1,,b=2", ",a=1"] {
            assert_eq!(
                parse_add_config(bad),
                Err(ConfigError::NotKeyValue),
                "{bad}"
            );
        }
        assert_eq!(
            parse_add_config("a b=1").unwrap_err().to_string(),
            "Invalid character found for config key: a b"
        );
    }

    #[test]
    fn alter_as_kafka() {
        let c = TopicConfigs::new([("retention.ms", "100")]).unwrap();
        let set = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        assert_eq!(
            c.altered(&[], &["segment.ms".into(), "x".into()])
                .unwrap_err()
                .to_string(),
            "Invalid config(s): segment.ms,x"
        );
        assert_eq!(
            c.altered(&set("nope", "1"), &[]).unwrap_err().to_string(),
            "Unknown topic config name: nope"
        );
        let altered = c
            .altered(&set("cleanup.policy", "compact"), &["retention.ms".into()])
            .unwrap();
        assert_eq!(altered.overrides().len(), 1);
        assert_eq!(altered.overrides()["cleanup.policy"], "compact");
        assert!(c
            .altered(&set("min.compaction.lag.ms", "10"), &[])
            .unwrap()
            .altered(&set("max.compaction.lag.ms", "5"), &[])
            .unwrap_err()
            .to_string()
            .starts_with("conflict topic config setting"));
    }

    #[test]
    fn log_config_mapping() {
        let c = TopicConfigs::new([
            ("segment.bytes", "1048576"),
            ("compression.type", "zstd"),
            ("message.timestamp.type", "LogAppendTime"),
        ])
        .unwrap()
        .log_config();
        assert_eq!(c.segment_bytes, 1_048_576);
        assert_eq!(c.compression, CompressionPolicy::Fixed(Compression::Zstd));
        assert_eq!(c.timestamp_type, TimestampType::LogAppendTime);
        assert_eq!(TopicConfigs::default().log_config(), LogConfig::default());
    }
}
