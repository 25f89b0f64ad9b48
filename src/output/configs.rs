//! `kafkit configs`: Kafka's `kafka-configs.sh --describe` lines for topics, and the JSON Lines
//! events of `--output json` (`docs/json.md`, "configs").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::datadir::config::{ConfigEntry, ConfigSource};

/// What `configs` describes or alters: a topic, or a broker (`None`: the default of every
/// broker, Kafka's entity name `""`). Serialized as its one JSON field (`topic` or `broker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Entity<'a> {
    /// A topic, by name.
    Topic(&'a str),
    /// A broker, by id; `None` for the cluster-wide default.
    Broker(Option<&'a str>),
}

impl Entity<'_> {
    /// Kafka's entity type, singular (`topic`, `broker`).
    fn singular(self) -> &'static str {
        match self {
            Entity::Topic(_) => "topic",
            Entity::Broker(_) => "broker",
        }
    }
}

/// The line before an entity's configs: `Dynamic configs for topic t are:` (`All configs
/// ...` with `--all`), `Default configs for brokers in the cluster are:` for the brokers'
/// default.
pub fn describe_header(entity: Entity, all: bool) -> String {
    let which = if all { "All" } else { "Dynamic" };
    match entity {
        Entity::Topic(name) | Entity::Broker(Some(name)) => {
            format!("{which} configs for {} {name} are:", entity.singular())
        }
        Entity::Broker(None) => "Default configs for brokers in the cluster are:".to_string(),
    }
}

/// One config as `kafka-configs --describe` prints it:
/// `  name=value sensitive=false synonyms={SOURCE:name=value, ...}`.
pub fn describe_line(entry: &ConfigEntry) -> String {
    let synonyms: Vec<String> = entry
        .synonyms
        .iter()
        .map(|s| format!("{}:{}={}", s.source.name(), s.name, s.value))
        .collect();
    format!(
        "  {}={} sensitive={} synonyms={{{}}}",
        entry.name,
        entry.value,
        entry.sensitive,
        synonyms.join(", ")
    )
}

/// What `describe` prints when the entity does not exist (on stdout, exit 0, as Kafka).
pub fn not_found_line(entity: Entity) -> String {
    let name = match entity {
        Entity::Topic(name) | Entity::Broker(Some(name)) => name,
        Entity::Broker(None) => "",
    };
    format!(
        "The {} '{name}' doesn't exist and doesn't have dynamic config.",
        entity.singular()
    )
}

/// What `alter` prints when done.
pub fn altered_line(entity: Entity) -> String {
    match entity {
        Entity::Topic(name) | Entity::Broker(Some(name)) => {
            format!(
                "Completed updating config for {} {name}.",
                entity.singular()
            )
        }
        Entity::Broker(None) => {
            "Completed updating default config for brokers in the cluster.".to_string()
        }
    }
}

/// A synonym in a [`ConfigsEvent::Config`].
#[derive(Debug, Serialize)]
pub struct SynonymJson<'a> {
    /// The config's name (the topic's or the broker's).
    pub name: &'a str,
    /// Its value.
    pub value: &'a str,
    /// Where it comes from.
    pub source: ConfigSource,
}

/// One JSON Lines object of `kafkit configs --output json`, fields in the order of its table
/// in `docs/json.md`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConfigsEvent<'a> {
    /// `--describe`: a topic whose configs follow (text mode's header line).
    Topic {
        /// The topic.
        topic: &'a str,
        /// Whether every config follows (`--all`) or only the topic's own.
        all: bool,
    },
    /// `--describe` of brokers (over the network): a broker whose configs follow.
    Broker {
        /// The broker's id; `None` for the default of every broker in the cluster.
        broker: Option<&'a str>,
        /// Whether every config follows (`--all`) or only those set at run time.
        all: bool,
    },
    /// `--describe`: one config of the entity.
    Config {
        /// The topic or broker (its one field, `topic` or `broker`).
        #[serde(flatten)]
        entity: Entity<'a>,
        /// The config name.
        name: &'a str,
        /// Its effective value.
        value: &'a str,
        /// Where that value comes from.
        source: ConfigSource,
        /// Whether the value is secret (a broker shows it as `null`).
        sensitive: bool,
        /// The topic's own value first (when set), then the broker default it falls back to.
        synonyms: Vec<SynonymJson<'a>>,
    },
    /// `--describe` of an entity that does not exist.
    NotFound {
        /// The topic or broker.
        #[serde(flatten)]
        entity: Entity<'a>,
        /// Kafka's text.
        message: String,
    },
    /// `--alter` changed the entity's configs.
    Altered {
        /// The topic or broker.
        #[serde(flatten)]
        entity: Entity<'a>,
        /// The configs set, name → value as given.
        set: BTreeMap<&'a str, &'a str>,
        /// The configs deleted.
        deleted: &'a [String],
        /// The entity's own configs now, name → value.
        configs: &'a BTreeMap<String, String>,
    },
}

impl<'a> ConfigsEvent<'a> {
    /// The header event of an entity's configs.
    pub fn header(entity: Entity<'a>, all: bool) -> Self {
        match entity {
            Entity::Topic(topic) => ConfigsEvent::Topic { topic, all },
            Entity::Broker(broker) => ConfigsEvent::Broker { broker, all },
        }
    }

    /// The event of one described config.
    pub fn config(entity: Entity<'a>, entry: &'a ConfigEntry) -> Self {
        ConfigsEvent::Config {
            entity,
            name: &entry.name,
            value: &entry.value,
            source: entry.source,
            sensitive: entry.sensitive,
            synonyms: entry
                .synonyms
                .iter()
                .map(|s| SynonymJson {
                    name: &s.name,
                    value: &s.value,
                    source: s.source,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datadir::TopicConfigs;

    #[test]
    fn kafka_lines() {
        let configs =
            TopicConfigs::new([("min.insync.replicas", "2"), ("retention.ms", "50")]).unwrap();
        let lines: Vec<String> = configs.describe(false).iter().map(describe_line).collect();
        assert_eq!(
            lines,
            [
                "  min.insync.replicas=2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=2, DEFAULT_CONFIG:min.insync.replicas=1}",
                "  retention.ms=50 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=50}",
            ]
        );
        let all = TopicConfigs::default().describe(true);
        let line = |name: &str| describe_line(all.iter().find(|e| e.name == name).unwrap());
        assert_eq!(
            line("cleanup.policy"),
            "  cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}"
        );
        assert_eq!(
            line("segment.ms"),
            "  segment.ms=604800000 sensitive=false synonyms={}"
        );
        assert_eq!(
            line("min.cleanable.dirty.ratio"),
            "  min.cleanable.dirty.ratio=0.5 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.min.cleanable.ratio=0.5}"
        );
    }

    #[test]
    fn brokers_lines_and_events() {
        let default = Entity::Broker(None);
        assert_eq!(
            describe_header(default, false),
            "Default configs for brokers in the cluster are:"
        );
        assert_eq!(
            describe_header(Entity::Broker(Some("1")), true),
            "All configs for broker 1 are:"
        );
        assert_eq!(
            not_found_line(Entity::Broker(Some("7"))),
            "The broker '7' doesn't exist and doesn't have dynamic config."
        );
        assert_eq!(
            altered_line(default),
            "Completed updating default config for brokers in the cluster."
        );
        assert_eq!(
            altered_line(Entity::Topic("t")),
            "Completed updating config for topic t."
        );
        let json = |e: &ConfigsEvent| serde_json::to_string(e).unwrap();
        assert_eq!(
            json(&ConfigsEvent::header(default, false)),
            r#"{"type":"broker","broker":null,"all":false}"#
        );
        let empty = BTreeMap::new();
        assert_eq!(
            json(&ConfigsEvent::Altered {
                entity: Entity::Broker(Some("1")),
                set: BTreeMap::new(),
                deleted: &[],
                configs: &empty,
            }),
            r#"{"type":"altered","broker":"1","set":{},"deleted":[],"configs":{}}"#
        );
        let entry = ConfigEntry {
            name: "ssl.key.password".into(),
            value: "null".into(),
            source: ConfigSource::StaticBrokerConfig,
            sensitive: true,
            synonyms: Vec::new(),
        };
        assert_eq!(
            json(&ConfigsEvent::config(Entity::Broker(Some("1")), &entry)),
            r#"{"type":"config","broker":"1","name":"ssl.key.password","value":"null","source":"STATIC_BROKER_CONFIG","sensitive":true,"synonyms":[]}"#
        );
    }
}
