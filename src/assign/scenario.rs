//! A scripted group: topics, members and rebalance events, as given on the command line
//! (`--topic`, `--members`, `--then "join c4"`) or in a scenario file (`docs/simulate-assignment.md`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::limits::{RoundSize, MAX_PARTITIONS};
use crate::common::{Uuid, UuidError};

/// A topic of the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioTopic {
    /// The name.
    pub name: String,
    /// The partition count.
    pub partitions: i32,
    /// Replica racks per partition (index = partition id), for rack-aware assignment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub racks: Option<Vec<Vec<String>>>,
    /// The topic id, which the server-side uniform assignor orders by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
}

/// A member of the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioMember {
    /// The member id.
    pub id: String,
    /// Subscribed topics; `None` means every topic of the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<String>>,
    /// `client.rack`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<String>,
    /// `group.instance.id` (static membership).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
}

impl ScenarioMember {
    /// A dynamic member subscribed to every topic.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            topics: None,
            rack: None,
            instance_id: None,
        }
    }
}

/// Something that makes the group rebalance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A member joins (JoinGroup).
    Join {
        /// The new member.
        #[serde(flatten)]
        member: ScenarioMember,
    },
    /// A member leaves cleanly (LeaveGroup).
    Leave {
        /// Its id.
        member: String,
    },
    /// A member stops heartbeating; the coordinator removes it after `session.timeout.ms`.
    Crash {
        /// Its id.
        member: String,
    },
    /// A topic grows to `partitions` partitions.
    AddPartitions {
        /// The topic.
        topic: String,
        /// The new partition count.
        partitions: i32,
    },
    /// A new topic appears (members subscribed to "all topics" pick it up).
    CreateTopic {
        /// The topic.
        topic: String,
        /// Its partition count.
        partitions: i32,
    },
    /// A member changes its subscription.
    Subscribe {
        /// The member.
        member: String,
        /// Its new topics.
        topics: Vec<String>,
    },
    /// A topic is deleted.
    DeleteTopic {
        /// The topic.
        topic: String,
    },
}

impl Event {
    /// Parses the `--then` syntax: `join c4[=t1,t2] [rack=R] [instance=I]`, `leave c2`,
    /// `crash c1`, `add-partitions orders:12`, `create-topic audit:3`, `subscribe c3=orders`,
    /// `delete-topic payments`.
    pub fn parse(text: &str) -> Result<Event, EventError> {
        let mut words = text.split_whitespace();
        let verb = words.next().ok_or(EventError::Empty)?;
        let arg = words.next();
        let rest: Vec<&str> = words.collect();
        let need = |what: &'static str| -> Result<&str, EventError> {
            arg.ok_or_else(|| EventError::Needs {
                text: text.to_string(),
                verb: verb.to_string(),
                what,
            })
        };
        let no_rest = |e: Event| -> Result<Event, EventError> {
            if rest.is_empty() {
                Ok(e)
            } else {
                Err(EventError::Unexpected {
                    text: text.to_string(),
                    rest: rest.join(" "),
                })
            }
        };
        match verb {
            "join" => {
                let spec = need("a member id, as `join c4` or `join c4=orders,payments`")?;
                let mut member = parse_member(spec)?;
                for opt in rest {
                    match opt.split_once('=') {
                        Some(("rack", r)) => member.rack = Some(r.to_string()),
                        Some(("instance", i)) | Some(("instance-id", i)) => {
                            member.instance_id = Some(i.to_string())
                        }
                        _ => {
                            return Err(EventError::UnknownOption {
                                text: text.to_string(),
                                option: opt.to_string(),
                            })
                        }
                    }
                }
                Ok(Event::Join { member })
            }
            "leave" => no_rest(Event::Leave {
                member: need("a member id")?.to_string(),
            }),
            "crash" => no_rest(Event::Crash {
                member: need("a member id")?.to_string(),
            }),
            "add-partitions" | "create-topic" => {
                let (topic, n) =
                    parse_topic_count(need("TOPIC:COUNT")?).map_err(|e| EventError::Topic {
                        text: text.to_string(),
                        source: e,
                    })?;
                let n = n.ok_or_else(|| EventError::Needs {
                    text: text.to_string(),
                    verb: verb.to_string(),
                    what: "TOPIC:COUNT",
                })?;
                no_rest(if verb == "add-partitions" {
                    Event::AddPartitions {
                        topic,
                        partitions: n,
                    }
                } else {
                    Event::CreateTopic {
                        topic,
                        partitions: n,
                    }
                })
            }
            "subscribe" => {
                let spec = need("MEMBER=TOPIC[,TOPIC...]")?;
                let (m, topics) = spec
                    .split_once('=')
                    .ok_or_else(|| EventError::Subscription {
                        text: text.to_string(),
                    })?;
                no_rest(Event::Subscribe {
                    member: m.to_string(),
                    topics: split_list(topics),
                })
            }
            "delete-topic" => no_rest(Event::DeleteTopic {
                topic: need("a topic")?.to_string(),
            }),
            other => Err(EventError::Unknown {
                text: text.to_string(),
                verb: other.to_string(),
            }),
        }
    }

    /// The event in `--then` syntax.
    pub fn describe(&self) -> String {
        match self {
            Event::Join { member } => {
                let mut s = format!("join {}", member.id);
                if let Some(t) = &member.topics {
                    s.push('=');
                    s.push_str(&t.join(","));
                }
                if let Some(r) = &member.rack {
                    s.push_str(&format!(" rack={r}"));
                }
                if let Some(i) = &member.instance_id {
                    s.push_str(&format!(" instance={i}"));
                }
                s
            }
            Event::Leave { member } => format!("leave {member}"),
            Event::Crash { member } => format!("crash {member}"),
            Event::AddPartitions { topic, partitions } => {
                format!("add-partitions {topic}:{partitions}")
            }
            Event::CreateTopic { topic, partitions } => {
                format!("create-topic {topic}:{partitions}")
            }
            Event::Subscribe { member, topics } => {
                format!("subscribe {member}={}", topics.join(","))
            }
            Event::DeleteTopic { topic } => format!("delete-topic {topic}"),
        }
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(String::from)
        .collect()
}

/// Parses `c1` or `c1=orders,payments`.
pub fn parse_member(spec: &str) -> Result<ScenarioMember, EmptyMemberId> {
    let (id, topics) = match spec.split_once('=') {
        Some((id, t)) => (id, Some(split_list(t))),
        None => (spec, None),
    };
    if id.trim().is_empty() {
        return Err(EmptyMemberId(spec.to_string()));
    }
    Ok(ScenarioMember {
        id: id.trim().to_string(),
        topics,
        rack: None,
        instance_id: None,
    })
}

/// Parses `orders:6` (or a bare `orders`, whose count comes from elsewhere).
pub fn parse_topic_count(spec: &str) -> Result<(String, Option<i32>), TopicSpecError> {
    let Some((name, n)) = spec.rsplit_once(':') else {
        return Ok((spec.to_string(), None));
    };
    let spec = || spec.to_string();
    let digits = n.strip_prefix(['-', '+']).unwrap_or(n);
    let n: i32 = match n.parse() {
        Ok(n) => n,
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(if n.starts_with('-') {
                TopicSpecError::TooFew { spec: spec() }
            } else {
                TopicSpecError::TooMany {
                    spec: spec(),
                    count: n.to_string(),
                }
            })
        }
        Err(_) => {
            return Err(TopicSpecError::NotANumber {
                spec: spec(),
                count: n.to_string(),
            })
        }
    };
    if n < 1 {
        return Err(TopicSpecError::TooFew { spec: spec() });
    }
    if name.is_empty() {
        return Err(TopicSpecError::EmptyName { spec: spec() });
    }
    Ok((name.to_string(), Some(n)))
}

/// Why a `--then` event does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// Nothing but spaces.
    #[error("empty event")]
    Empty,
    /// The verb's argument is missing.
    #[error("event {text:?}: `{verb}` needs {what}")]
    Needs {
        /// The event as given.
        text: String,
        /// Its verb.
        verb: String,
        /// What the verb takes.
        what: &'static str,
    },
    /// Words after a complete event.
    #[error("event {text:?}: unexpected {rest:?}")]
    Unexpected {
        /// The event as given.
        text: String,
        /// The words left over.
        rest: String,
    },
    /// A `join` option other than `rack=` or `instance=`.
    #[error("event {text:?}: unknown option {option:?} (expected rack=R or instance=I)")]
    UnknownOption {
        /// The event as given.
        text: String,
        /// The option.
        option: String,
    },
    /// A `TOPIC:COUNT` that does not parse.
    #[error("event {text:?}: {source}")]
    Topic {
        /// The event as given.
        text: String,
        /// What is wrong with it.
        source: TopicSpecError,
    },
    /// A `subscribe` without `=`.
    #[error("event {text:?}: expected MEMBER=TOPIC[,TOPIC...]")]
    Subscription {
        /// The event as given.
        text: String,
    },
    /// A verb that is no event.
    #[error("unknown event {verb:?} in {text:?} (expected join, leave, crash, add-partitions, create-topic, subscribe or delete-topic)")]
    Unknown {
        /// The event as given.
        text: String,
        /// The verb.
        verb: String,
    },
    /// A `join` whose member has no id.
    #[error(transparent)]
    Member(#[from] EmptyMemberId),
}

/// A member written as `=topics` or `""`: its id is empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("member {0:?}: empty member id")]
pub struct EmptyMemberId(pub String);

/// Why a `TOPIC:COUNT` does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopicSpecError {
    /// A count of 0 or less.
    #[error("topic {spec:?}: partition count must be at least 1")]
    TooFew {
        /// The text given.
        spec: String,
    },
    /// A count past `i32::MAX`.
    #[error("topic {spec:?}: partition count {count} is more than {MAX_PARTITIONS}, the most Kafka allows (partition ids are int32)")]
    TooMany {
        /// The text given.
        spec: String,
        /// The count.
        count: String,
    },
    /// Not an integer.
    #[error("topic {spec:?}: partition count {count:?} is not a number")]
    NotANumber {
        /// The text given.
        spec: String,
        /// The count.
        count: String,
    },
    /// Nothing before the `:`.
    #[error("topic {spec:?}: empty topic name")]
    EmptyName {
        /// The text given.
        spec: String,
    },
}

/// Why a scenario cannot run: names that clash, or events that name what is not there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// A topic of no partitions.
    #[error("topic {0:?}: partition count must be at least 1")]
    NoPartitions(String),
    /// A topic named twice.
    #[error("topic {0:?} is listed twice")]
    TopicTwice(String),
    /// A member named twice.
    #[error("member {0:?} is listed twice")]
    MemberTwice(String),
    /// A subscription to a topic the scenario does not have.
    #[error(
        "member {member:?} subscribes to unknown topic {topic:?} (add it with --topic {topic}:N)"
    )]
    UnknownSubscription {
        /// The member.
        member: String,
        /// The topic.
        topic: String,
    },
    /// A `join` of a member already in the group.
    #[error("member {0:?} is already in the group")]
    AlreadyInGroup(String),
    /// An event naming a member not in the group.
    #[error("unknown member {0:?}")]
    UnknownMember(String),
    /// An event naming a topic that does not exist (then).
    #[error("unknown topic {0:?}")]
    UnknownTopic(String),
    /// `add-partitions` to no more than the topic has.
    #[error("topic {topic:?} has {now} partitions; the count can only grow")]
    CannotShrink {
        /// The topic.
        topic: String,
        /// Its partition count before the event.
        now: i32,
    },
    /// `create-topic` of a topic that exists.
    #[error("topic {0:?} already exists")]
    TopicExists(String),
    /// What is wrong with an event.
    #[error("event {number} ({event:?}): {problem}")]
    Event {
        /// Its number, from 1.
        number: usize,
        /// The event in `--then` syntax.
        event: String,
        /// What is wrong.
        problem: Box<ScenarioError>,
    },
}

/// A whole scripted group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// The group id (decides the coordinator).
    #[serde(default = "default_group")]
    pub group: String,
    /// Topics.
    pub topics: Vec<ScenarioTopic>,
    /// Members at the first rebalance, in join order.
    pub members: Vec<ScenarioMember>,
    /// Events, one rebalance each.
    #[serde(default)]
    pub events: Vec<Event>,
}

fn default_group() -> String {
    "my-group".to_string()
}

/// Why a scenario file was refused. `at` names the value as a path into the file, such as
/// `topics[0].partitions`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioFileError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Json(String),
    /// A value of the wrong type, or out of range.
    #[error("{}expected {expected}, found {found}", at_prefix(.at))]
    Field {
        /// Where.
        at: String,
        /// What the field takes.
        expected: &'static str,
        /// What the file holds there (a short form: `an array`, `"text"`, `1e300`).
        found: String,
    },
    /// A required field is absent.
    #[error("{}missing \"{field}\": {expected}", at_prefix(.at))]
    Missing {
        /// The object that lacks it.
        at: String,
        /// The field's name.
        field: &'static str,
        /// What the field takes.
        expected: &'static str,
    },
    /// An entry written in the short syntax (`"orders:6"`, `"c2=orders"`, `"join c4"`) that
    /// does not parse, or a topic id that is not one.
    #[error("{at}: {problem}")]
    Entry {
        /// Where.
        at: String,
        /// What is wrong.
        problem: EntryError,
    },
}

/// What is wrong with an entry of a scenario file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// A `"name:N"` topic that does not parse.
    #[error(transparent)]
    Topic(#[from] TopicSpecError),
    /// A topic without its count.
    #[error("topic {0:?} has no partition count (write {0}:N)")]
    NoCount(String),
    /// A member without an id.
    #[error(transparent)]
    Member(#[from] EmptyMemberId),
    /// An event that does not parse.
    #[error(transparent)]
    Event(#[from] EventError),
    /// A topic id that is not a Kafka `Uuid`.
    #[error("not a Kafka topic id: {0}")]
    TopicId(#[from] UuidError),
}

fn at_prefix(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!("{at}: ")
    }
}

/// What a partition count field takes (Kafka's partition ids are `int32`).
pub const PARTITION_COUNT: &str = "a partition count (an integer from 1 to 2147483647)";
const SCENARIO: &str = "a scenario (an object with \"topics\" and \"members\")";
const GROUP: &str = "a group id (a string)";
const STRATEGY: &str = "a strategy name (a string)";
const TOPICS: &str = "a list of topics (an array)";
const MEMBERS: &str = "a list of members (an array)";
const EVENTS: &str = "a list of events (an array)";
const TOPIC: &str = "a topic (\"name:N\", or an object with \"name\" and \"partitions\")";
const MEMBER: &str = "a member (\"id\", \"id=topic,topic\", or an object with \"id\")";
const EVENT: &str = "an event (a string such as \"join c4\", or an object with \"event\")";
const EVENT_KIND: &str = "one of \"join\", \"leave\", \"crash\", \"add-partitions\", \"create-topic\", \"subscribe\", \"delete-topic\"";
const TOPIC_NAME: &str = "a topic name (a string)";
const TOPIC_NAMES: &str = "a list of topic names (an array of strings)";
const TOPIC_ID: &str = "a topic id (a string)";
const RACKS: &str = "the replica racks of each partition (an array of arrays of strings)";
const MEMBER_ID: &str = "a member id (a string)";
const RACK: &str = "a rack (a string)";
const INSTANCE_ID: &str = "a group.instance.id (a string)";

/// A short description of a JSON value for an error message: scalars as written (long strings
/// cut), arrays and objects by kind.
fn found(v: &Value) -> String {
    const MAX_CHARS: usize = 40;
    match v {
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        Value::String(s) if s.chars().count() > MAX_CHARS => {
            let cut: String = s.chars().take(MAX_CHARS).collect();
            format!("{}...", Value::String(cut))
        }
        // serde_json writes 1e300 as `1e+300`; Rust's exponent form is closer to the file.
        Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) if f != 0.0 && !(1e-5..1e16).contains(&f.abs()) => format!("{f:e}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

fn field_path(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

type FileResult<T> = Result<T, ScenarioFileError>;

fn wrong(at: &str, expected: &'static str, v: &Value) -> ScenarioFileError {
    ScenarioFileError::Field {
        at: at.to_string(),
        expected,
        found: found(v),
    }
}

fn entry(at: &str, problem: impl Into<EntryError>) -> ScenarioFileError {
    ScenarioFileError::Entry {
        at: at.to_string(),
        problem: problem.into(),
    }
}

fn object<'v>(
    v: &'v Value,
    at: &str,
    expected: &'static str,
) -> FileResult<&'v Map<String, Value>> {
    v.as_object().ok_or_else(|| wrong(at, expected, v))
}

/// A field that may be absent or `null`.
fn optional<'v>(obj: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn required<'v>(
    obj: &'v Map<String, Value>,
    at: &str,
    key: &'static str,
    expected: &'static str,
) -> FileResult<&'v Value> {
    obj.get(key).ok_or_else(|| ScenarioFileError::Missing {
        at: at.to_string(),
        field: key,
        expected,
    })
}

fn string(v: &Value, at: &str, expected: &'static str) -> FileResult<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| wrong(at, expected, v))
}

fn optional_string(
    obj: &Map<String, Value>,
    at: &str,
    key: &str,
    expected: &'static str,
) -> FileResult<Option<String>> {
    optional(obj, key)
        .map(|v| string(v, &field_path(at, key), expected))
        .transpose()
}

fn required_string(
    obj: &Map<String, Value>,
    at: &str,
    key: &'static str,
    expected: &'static str,
) -> FileResult<String> {
    string(
        required(obj, at, key, expected)?,
        &field_path(at, key),
        expected,
    )
}

fn array<'v>(v: &'v Value, at: &str, expected: &'static str) -> FileResult<&'v [Value]> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| wrong(at, expected, v))
}

fn strings(v: &Value, at: &str, expected: &'static str) -> FileResult<Vec<String>> {
    let list = array(v, at, expected)?;
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        out.push(
            item.as_str()
                .map(str::to_string)
                .ok_or_else(|| ScenarioFileError::Field {
                    at: format!("{at}[{i}]"),
                    expected,
                    found: found(item),
                })?,
        );
    }
    Ok(out)
}

fn partition_count(v: &Value, at: &str) -> FileResult<i32> {
    v.as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .filter(|&n| n >= 1)
        .ok_or_else(|| wrong(at, PARTITION_COUNT, v))
}

fn topic_entry(v: &Value, at: &str) -> FileResult<ScenarioTopic> {
    if let Some(s) = v.as_str() {
        return match parse_topic_count(s).map_err(|e| entry(at, e))? {
            (name, Some(partitions)) => Ok(ScenarioTopic {
                name,
                partitions,
                racks: None,
                id: None,
            }),
            (name, None) => Err(entry(at, EntryError::NoCount(name))),
        };
    }
    let obj = object(v, at, TOPIC)?;
    let name = required_string(obj, at, "name", TOPIC_NAME)?;
    let partitions = partition_count(
        required(obj, at, "partitions", PARTITION_COUNT)?,
        &field_path(at, "partitions"),
    )?;
    let racks = match optional(obj, "racks") {
        None => None,
        Some(v) => {
            let at = field_path(at, "racks");
            let list = array(v, &at, RACKS)?;
            let mut racks = Vec::with_capacity(list.len());
            for (i, item) in list.iter().enumerate() {
                racks.push(strings(item, &format!("{at}[{i}]"), RACKS)?);
            }
            Some(racks)
        }
    };
    Ok(ScenarioTopic {
        name,
        partitions,
        racks,
        id: optional_string(obj, at, "id", TOPIC_ID)?
            .map(|text| {
                text.parse::<Uuid>()
                    .map_err(|e| entry(&field_path(at, "id"), e))
            })
            .transpose()?,
    })
}

/// A member object's fields (also those of a `join` event).
fn member_fields(obj: &Map<String, Value>, at: &str) -> FileResult<ScenarioMember> {
    Ok(ScenarioMember {
        id: required_string(obj, at, "id", MEMBER_ID)?,
        topics: optional(obj, "topics")
            .map(|v| strings(v, &field_path(at, "topics"), TOPIC_NAMES))
            .transpose()?,
        rack: optional_string(obj, at, "rack", RACK)?,
        instance_id: optional_string(obj, at, "instance_id", INSTANCE_ID)?,
    })
}

fn member_entry(v: &Value, at: &str) -> FileResult<ScenarioMember> {
    if let Some(s) = v.as_str() {
        return parse_member(s).map_err(|e| entry(at, e));
    }
    member_fields(object(v, at, MEMBER)?, at)
}

fn event_entry(v: &Value, at: &str) -> FileResult<Event> {
    if let Some(s) = v.as_str() {
        return Event::parse(s).map_err(|e| entry(at, e));
    }
    let obj = object(v, at, EVENT)?;
    let kind_value = required(obj, at, "event", EVENT_KIND)?;
    let kind_at = field_path(at, "event");
    let count = |key: &'static str| -> FileResult<i32> {
        partition_count(
            required(obj, at, key, PARTITION_COUNT)?,
            &field_path(at, key),
        )
    };
    Ok(match kind_value.as_str() {
        Some("join") => Event::Join {
            member: member_fields(obj, at)?,
        },
        Some("leave") => Event::Leave {
            member: required_string(obj, at, "member", MEMBER_ID)?,
        },
        Some("crash") => Event::Crash {
            member: required_string(obj, at, "member", MEMBER_ID)?,
        },
        Some("add-partitions") => Event::AddPartitions {
            topic: required_string(obj, at, "topic", TOPIC_NAME)?,
            partitions: count("partitions")?,
        },
        Some("create-topic") => Event::CreateTopic {
            topic: required_string(obj, at, "topic", TOPIC_NAME)?,
            partitions: count("partitions")?,
        },
        Some("subscribe") => Event::Subscribe {
            member: required_string(obj, at, "member", MEMBER_ID)?,
            topics: strings(
                required(obj, at, "topics", TOPIC_NAMES)?,
                &field_path(at, "topics"),
                TOPIC_NAMES,
            )?,
        },
        Some("delete-topic") => Event::DeleteTopic {
            topic: required_string(obj, at, "topic", TOPIC_NAME)?,
        },
        _ => return Err(wrong(&kind_at, EVENT_KIND, kind_value)),
    })
}

fn entries<T>(
    obj: &Map<String, Value>,
    key: &'static str,
    expected: &'static str,
    is_required: bool,
    entry: impl Fn(&Value, &str) -> FileResult<T>,
) -> FileResult<Vec<T>> {
    let value = if is_required {
        Some(required(obj, "", key, expected)?)
    } else {
        optional(obj, key)
    };
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let list = array(value, key, expected)?;
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        out.push(entry(item, &format!("{key}[{i}]"))?);
    }
    Ok(out)
}

/// Reads a scenario file's JSON; returns the scenario and the strategy it names, if any.
///
/// Every value is checked for its type and range, and an error names the field by its path in
/// the file (`topics[0].partitions: expected a partition count (an integer from 1 to
/// 2147483647), found 1e300`). Unknown fields are ignored.
pub fn parse_value(value: &Value) -> Result<(Scenario, Option<String>), ScenarioFileError> {
    let root = object(value, "", SCENARIO)?;
    let group = optional_string(root, "", "group", GROUP)?.unwrap_or_else(default_group);
    let strategy = optional_string(root, "", "strategy", STRATEGY)?;
    let topics = entries(root, "topics", TOPICS, true, topic_entry)?;
    let members = entries(root, "members", MEMBERS, true, member_entry)?;
    let events = entries(root, "events", EVENTS, false, event_entry)?;
    Ok((
        Scenario {
            group,
            topics,
            members,
            events,
        },
        strategy,
    ))
}

/// Parses a scenario file; returns the scenario and the strategy it names, if any.
pub fn parse_file(text: &str) -> Result<(Scenario, Option<String>), ScenarioFileError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| ScenarioFileError::Json(e.to_string()))?;
    parse_value(&value)
}

impl Scenario {
    /// Checks names: unique topics and members, events naming known members and topics.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        // Sets and maps, not lists: a script may name many members and topics.
        let mut topics: HashMap<&str, i32> = HashMap::new();
        for t in &self.topics {
            if t.partitions < 1 {
                return Err(ScenarioError::NoPartitions(t.name.clone()));
            }
            if topics.insert(&t.name, t.partitions).is_some() {
                return Err(ScenarioError::TopicTwice(t.name.clone()));
            }
        }
        let mut members: HashSet<&str> = HashSet::new();
        let check_topics = |who: &str, list: &[String], topics: &HashMap<&str, i32>| match list
            .iter()
            .find(|t| !topics.contains_key(t.as_str()))
        {
            Some(t) => Err(ScenarioError::UnknownSubscription {
                member: who.to_string(),
                topic: t.clone(),
            }),
            None => Ok(()),
        };
        for m in &self.members {
            if members.contains(m.id.as_str()) {
                return Err(ScenarioError::MemberTwice(m.id.clone()));
            }
            check_topics(&m.id, m.topics.as_deref().unwrap_or_default(), &topics)?;
            members.insert(&m.id);
        }
        for (i, e) in self.events.iter().enumerate() {
            let in_event = |problem: ScenarioError| ScenarioError::Event {
                number: i + 1,
                event: e.describe(),
                problem: Box::new(problem),
            };
            match e {
                Event::Join { member } => {
                    if members.contains(member.id.as_str()) {
                        return Err(in_event(ScenarioError::AlreadyInGroup(member.id.clone())));
                    }
                    check_topics(
                        &member.id,
                        member.topics.as_deref().unwrap_or_default(),
                        &topics,
                    )
                    .map_err(in_event)?;
                    members.insert(&member.id);
                }
                Event::Leave { member } | Event::Crash { member } => {
                    if !members.remove(member.as_str()) {
                        return Err(in_event(ScenarioError::UnknownMember(member.clone())));
                    }
                }
                Event::Subscribe { member, topics: ts } => {
                    if !members.contains(member.as_str()) {
                        return Err(in_event(ScenarioError::UnknownMember(member.clone())));
                    }
                    check_topics(member, ts, &topics).map_err(in_event)?;
                }
                Event::AddPartitions { topic, partitions } => {
                    let Some(now) = topics.get_mut(topic.as_str()) else {
                        return Err(in_event(ScenarioError::UnknownTopic(topic.clone())));
                    };
                    if *partitions <= *now {
                        return Err(in_event(ScenarioError::CannotShrink {
                            topic: topic.clone(),
                            now: *now,
                        }));
                    }
                    *now = *partitions;
                }
                Event::CreateTopic { topic, partitions } => {
                    if topics.contains_key(topic.as_str()) {
                        return Err(in_event(ScenarioError::TopicExists(topic.clone())));
                    }
                    topics.insert(topic, *partitions);
                }
                Event::DeleteTopic { topic } => {
                    if topics.remove(topic.as_str()).is_none() {
                        return Err(in_event(ScenarioError::UnknownTopic(topic.clone())));
                    }
                }
            }
        }
        Ok(())
    }

    /// The group in each round (the initial join, then one round per event): its members and
    /// the partitions of all its topics after the round's event, for [`super::limits::check`].
    /// Events that [`Scenario::validate`] would refuse count as they read.
    pub fn round_sizes(&self) -> Vec<RoundSize> {
        let mut topics: HashMap<&str, u64> = self
            .topics
            .iter()
            .map(|t| (t.name.as_str(), u64::try_from(t.partitions).unwrap_or(0)))
            .collect();
        let mut members = u64::try_from(self.members.len()).unwrap_or(u64::MAX);
        let size = |topics: &HashMap<&str, u64>, members: u64| RoundSize {
            members,
            partitions: topics.values().fold(0u64, |a, &b| a.saturating_add(b)),
        };
        let mut sizes = Vec::with_capacity(self.events.len().saturating_add(1));
        sizes.push(size(&topics, members));
        for e in &self.events {
            match e {
                Event::Join { .. } => members = members.saturating_add(1),
                Event::Leave { .. } | Event::Crash { .. } => members = members.saturating_sub(1),
                Event::AddPartitions { topic, partitions }
                | Event::CreateTopic { topic, partitions } => {
                    topics.insert(topic, u64::try_from(*partitions).unwrap_or(0));
                }
                Event::DeleteTopic { topic } => {
                    topics.remove(topic.as_str());
                }
                Event::Subscribe { .. } => {}
            }
            sizes.push(size(&topics, members));
        }
        sizes
    }
}
