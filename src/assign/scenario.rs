//! A scripted group: topics, members and rebalance events, as given on the command line
//! (`--topic`, `--members`, `--then "join c4"`) or in a scenario file (`docs/simulate-assignment.md`).

use serde::{Deserialize, Serialize};

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
    /// The topic id (Kafka's base64 form), which the server-side uniform assignor orders by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
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
    pub fn parse(text: &str) -> Result<Event, String> {
        let mut words = text.split_whitespace();
        let verb = words.next().ok_or_else(|| "empty event".to_string())?;
        let arg = words.next();
        let rest: Vec<&str> = words.collect();
        let need = |what: &str| -> Result<&str, String> {
            arg.ok_or_else(|| format!("event {text:?}: `{verb}` needs {what}"))
        };
        let no_rest = |e: Event| -> Result<Event, String> {
            if rest.is_empty() {
                Ok(e)
            } else {
                Err(format!("event {text:?}: unexpected {:?}", rest.join(" ")))
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
                            return Err(format!(
                                "event {text:?}: unknown option {opt:?} (expected rack=R or instance=I)"
                            ))
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
                let (topic, n) = parse_topic_count(need("TOPIC:COUNT")?)
                    .map_err(|e| format!("event {text:?}: {e}"))?;
                let n = n.ok_or_else(|| format!("event {text:?}: `{verb}` needs TOPIC:COUNT"))?;
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
                    .ok_or_else(|| format!("event {text:?}: expected MEMBER=TOPIC[,TOPIC...]"))?;
                no_rest(Event::Subscribe {
                    member: m.to_string(),
                    topics: split_list(topics),
                })
            }
            "delete-topic" => no_rest(Event::DeleteTopic {
                topic: need("a topic")?.to_string(),
            }),
            other => Err(format!(
                "unknown event {other:?} in {text:?} (expected join, leave, crash, add-partitions, create-topic, subscribe or delete-topic)"
            )),
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
pub fn parse_member(spec: &str) -> Result<ScenarioMember, String> {
    let (id, topics) = match spec.split_once('=') {
        Some((id, t)) => (id, Some(split_list(t))),
        None => (spec, None),
    };
    if id.trim().is_empty() {
        return Err(format!("member {spec:?}: empty member id"));
    }
    Ok(ScenarioMember {
        id: id.trim().to_string(),
        topics,
        rack: None,
        instance_id: None,
    })
}

/// Parses `orders:6` (or a bare `orders`, whose count comes from elsewhere).
pub fn parse_topic_count(spec: &str) -> Result<(String, Option<i32>), String> {
    match spec.rsplit_once(':') {
        None => Ok((spec.to_string(), None)),
        Some((name, n)) => {
            let n: i32 = n
                .parse()
                .map_err(|_| format!("topic {spec:?}: partition count {n:?} is not a number"))?;
            if n < 1 {
                return Err(format!(
                    "topic {spec:?}: partition count must be at least 1"
                ));
            }
            if name.is_empty() {
                return Err(format!("topic {spec:?}: empty topic name"));
            }
            Ok((name.to_string(), Some(n)))
        }
    }
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

/// The scenario-file form, which also accepts the `--then` syntax for events.
#[derive(Debug, Clone, Deserialize)]
struct ScenarioFile {
    #[serde(default = "default_group")]
    group: String,
    #[serde(default)]
    strategy: Option<String>,
    topics: Vec<TopicEntry>,
    members: Vec<MemberEntry>,
    #[serde(default)]
    events: Vec<EventEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum TopicEntry {
    Short(String),
    Full(ScenarioTopic),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum MemberEntry {
    Short(String),
    Full(ScenarioMember),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum EventEntry {
    Short(String),
    Full(Event),
}

/// Parses a scenario file; returns the scenario and the strategy it names, if any.
pub fn parse_file(text: &str) -> Result<(Scenario, Option<String>), String> {
    let file: ScenarioFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut topics = Vec::new();
    for t in file.topics {
        topics.push(match t {
            TopicEntry::Full(t) => t,
            TopicEntry::Short(s) => match parse_topic_count(&s)? {
                (name, Some(n)) => ScenarioTopic {
                    name,
                    partitions: n,
                    racks: None,
                    id: None,
                },
                (name, None) => {
                    return Err(format!(
                        "topic {name:?} has no partition count (write {name}:N)"
                    ))
                }
            },
        });
    }
    let mut members = Vec::new();
    for m in file.members {
        members.push(match m {
            MemberEntry::Full(m) => m,
            MemberEntry::Short(s) => parse_member(&s)?,
        });
    }
    let mut events = Vec::new();
    for e in file.events {
        events.push(match e {
            EventEntry::Full(e) => e,
            EventEntry::Short(s) => Event::parse(&s)?,
        });
    }
    Ok((
        Scenario {
            group: file.group,
            topics,
            members,
            events,
        },
        file.strategy,
    ))
}

impl Scenario {
    /// Checks names: unique topics and members, events naming known members and topics.
    pub fn validate(&self) -> Result<(), String> {
        let mut topics: Vec<String> = Vec::new();
        let mut counts: Vec<i32> = Vec::new();
        for t in &self.topics {
            if t.partitions < 1 {
                return Err(format!(
                    "topic {:?}: partition count must be at least 1",
                    t.name
                ));
            }
            if topics.contains(&t.name) {
                return Err(format!("topic {:?} is listed twice", t.name));
            }
            topics.push(t.name.clone());
            counts.push(t.partitions);
        }
        let mut members: Vec<String> = Vec::new();
        let check_topics = |who: &str, list: &Option<Vec<String>>, topics: &[String]| {
            for t in list.iter().flatten() {
                if !topics.contains(t) {
                    return Err(format!(
                        "member {who:?} subscribes to unknown topic {t:?} (add it with --topic {t}:N)"
                    ));
                }
            }
            Ok(())
        };
        for m in &self.members {
            if members.contains(&m.id) {
                return Err(format!("member {:?} is listed twice", m.id));
            }
            check_topics(&m.id, &m.topics, &topics)?;
            members.push(m.id.clone());
        }
        for (i, e) in self.events.iter().enumerate() {
            let at = format!("event {} ({:?})", i + 1, e.describe());
            match e {
                Event::Join { member } => {
                    if members.contains(&member.id) {
                        return Err(format!(
                            "{at}: member {:?} is already in the group",
                            member.id
                        ));
                    }
                    check_topics(&member.id, &member.topics, &topics)
                        .map_err(|m| format!("{at}: {m}"))?;
                    members.push(member.id.clone());
                }
                Event::Leave { member } | Event::Crash { member } => {
                    if !members.contains(member) {
                        return Err(format!("{at}: unknown member {member:?}"));
                    }
                    members.retain(|m| m != member);
                }
                Event::Subscribe { member, topics: ts } => {
                    if !members.contains(member) {
                        return Err(format!("{at}: unknown member {member:?}"));
                    }
                    check_topics(member, &Some(ts.clone()), &topics)
                        .map_err(|m| format!("{at}: {m}"))?;
                }
                Event::AddPartitions { topic, partitions } => {
                    let Some(i) = topics.iter().position(|t| t == topic) else {
                        return Err(format!("{at}: unknown topic {topic:?}"));
                    };
                    let now = counts.get(i).copied().unwrap_or(0);
                    if *partitions <= now {
                        return Err(format!(
                            "{at}: topic {topic:?} has {now} partitions; the count can only grow"
                        ));
                    }
                    if let Some(c) = counts.get_mut(i) {
                        *c = *partitions;
                    }
                }
                Event::CreateTopic { topic, partitions } => {
                    if topics.contains(topic) {
                        return Err(format!("{at}: topic {topic:?} already exists"));
                    }
                    topics.push(topic.clone());
                    counts.push(*partitions);
                }
                Event::DeleteTopic { topic } => {
                    let Some(i) = topics.iter().position(|t| t == topic) else {
                        return Err(format!("{at}: unknown topic {topic:?}"));
                    };
                    topics.remove(i);
                    counts.remove(i);
                }
            }
        }
        Ok(())
    }
}
