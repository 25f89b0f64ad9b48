//! Topic names: Kafka's validation rules (`Topic.validate`), the `.`/`_` collision rule, the
//! internal topics, and the `--topic` filter of Kafka's tools (`TopicFilter`).

use regex::Regex;

/// The longest legal topic name, in UTF-16 code units as Java counts them.
pub const MAX_NAME_LENGTH: usize = 249;

/// Kafka 4.0's internal topics (`Topic.isInternal`).
pub const INTERNAL_TOPICS: [&str; 3] = [
    "__consumer_offsets",
    "__transaction_state",
    "__share_group_state",
];

/// The KRaft metadata log's topic (`Topic.CLUSTER_METADATA_TOPIC_NAME`): its `-0` directory is the
/// controller's, not a topic's.
pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// Why a topic name is illegal; displays as Kafka's `InvalidTopicException` message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Topic name is invalid: {reason}")]
pub struct InvalidTopicName {
    /// The first failing rule, in Kafka's words.
    pub reason: String,
}

/// Checks a topic name with Kafka's rules, in Kafka's order: empty, `.`, `..`, length,
/// characters.
pub fn validate_topic_name(name: &str) -> Result<(), InvalidTopicName> {
    let reason = if name.is_empty() {
        "the empty string is not allowed".to_string()
    } else if name == "." {
        "'.' is not allowed".to_string()
    } else if name == ".." {
        "'..' is not allowed".to_string()
    } else if name.encode_utf16().count() > MAX_NAME_LENGTH {
        format!("the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}")
    } else if !name.chars().all(is_legal_char) {
        format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        )
    } else {
        return Ok(());
    };
    Err(InvalidTopicName { reason })
}

fn is_legal_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-'
}

/// Whether the name contains `.` or `_`, the characters that collide in metric names.
pub fn has_collision_chars(name: &str) -> bool {
    name.contains(['.', '_'])
}

/// The name with every `.` replaced by `_`; two topics collide when these are equal.
pub fn unify_collision_chars(name: &str) -> String {
    name.replace('.', "_")
}

/// Whether two topic names collide in metric names (`Topic.hasCollision`).
pub fn has_collision(a: &str, b: &str) -> bool {
    unify_collision_chars(a) == unify_collision_chars(b)
}

/// Whether Kafka treats the topic as internal.
pub fn is_internal(name: &str) -> bool {
    INTERNAL_TOPICS.contains(&name)
}

/// The `--topic` filter of Kafka's tools (`TopicFilter.IncludeList`): a Java regex that must
/// match the whole name, where `,` means `|`.
#[derive(Debug, Clone)]
pub struct TopicFilter {
    raw: String,
    regex: Regex,
}

/// A `--topic` value that is not a valid regex; displays as Kafka's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{regex} is an invalid regex.")]
pub struct InvalidTopicFilter {
    /// The regex after Kafka's rewriting.
    pub regex: String,
}

impl TopicFilter {
    /// Rewrites the value as Kafka does (trim, `,` to `|`, spaces removed, surrounding quotes
    /// stripped) and compiles it to match whole names.
    pub fn new(value: &str) -> Result<Self, InvalidTopicFilter> {
        let rewritten: String = value
            .trim()
            .replace(',', "|")
            .chars()
            .filter(|c| *c != ' ')
            .collect();
        let regex_text = rewritten
            .trim_start_matches(['"', '\''])
            .trim_end_matches(['"', '\''])
            .to_string();
        let regex = Regex::new(&format!("^(?:{regex_text})$")).map_err(|_| InvalidTopicFilter {
            regex: regex_text.clone(),
        })?;
        Ok(Self {
            raw: value.to_string(),
            regex,
        })
    }

    /// Whether the filter selects this topic (the whole name must match).
    pub fn matches(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }

    /// The value as the user gave it.
    pub fn raw(&self) -> &str {
        &self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_of_rules() {
        assert_eq!(
            validate_topic_name("").unwrap_err().to_string(),
            "Topic name is invalid: the empty string is not allowed"
        );
        let long = "a".repeat(250);
        assert!(validate_topic_name(&long)
            .unwrap_err()
            .reason
            .starts_with("the length of"));
        assert!(validate_topic_name(&"a".repeat(249)).is_ok());
        assert!(validate_topic_name("...").is_ok());
    }

    #[test]
    fn filter_is_whole_match_with_commas() {
        let f = TopicFilter::new(" 'a, b' ").unwrap();
        assert!(f.matches("a") && f.matches("b") && !f.matches("ab"));
        let f = TopicFilter::new("test.topic").unwrap();
        assert!(f.matches("test_topic") && !f.matches("xtest.topic"));
        assert_eq!(
            TopicFilter::new("(").unwrap_err().to_string(),
            "( is an invalid regex."
        );
    }
}
