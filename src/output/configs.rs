//! `kafkit configs`: Kafka's `kafka-configs.sh --describe` lines for topics, and the JSON Lines
//! events of `--output json` (`docs/json.md`, "configs").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::datadir::config::{ConfigEntry, ConfigSource};

/// The line before a topic's configs: `Dynamic configs for topic t are:` (`All configs ...`
/// with `--all`).
pub fn describe_header(topic: &str, all: bool) -> String {
    let which = if all { "All" } else { "Dynamic" };
    format!("{which} configs for topic {topic} are:")
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

/// What `describe` prints when the topic does not exist (on stdout, exit 0, as Kafka).
pub fn not_found_line(topic: &str) -> String {
    format!("The topic '{topic}' doesn't exist and doesn't have dynamic config.")
}

/// What `alter` prints when done.
pub fn altered_line(topic: &str) -> String {
    format!("Completed updating config for topic {topic}.")
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
    /// `--describe`: one config of the topic.
    Config {
        /// The topic.
        topic: &'a str,
        /// The config name.
        name: &'a str,
        /// Its effective value.
        value: &'a str,
        /// Where that value comes from.
        source: ConfigSource,
        /// Always `false`: no topic config is a password.
        sensitive: bool,
        /// The topic's own value first (when set), then the broker default it falls back to.
        synonyms: Vec<SynonymJson<'a>>,
    },
    /// `--describe` of a topic that does not exist.
    NotFound {
        /// The topic.
        topic: &'a str,
        /// Kafka's text.
        message: String,
    },
    /// `--alter` changed the topic's configs.
    Altered {
        /// The topic.
        topic: &'a str,
        /// The configs set, name → value as given.
        set: BTreeMap<&'a str, &'a str>,
        /// The configs deleted.
        deleted: &'a [String],
        /// The topic's overrides now, name → value.
        configs: &'a BTreeMap<String, String>,
    },
}

impl<'a> ConfigsEvent<'a> {
    /// The event of one described config.
    pub fn config(topic: &'a str, entry: &'a ConfigEntry) -> Self {
        ConfigsEvent::Config {
            topic,
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
}
