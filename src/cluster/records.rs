//! The `__cluster_metadata` records the image is built from, as typed values over what the
//! layout-table decoder ([`crate::decode::metadata_record`]) reads: one decoder for the dump
//! tool and the image, the types only name the fields the image uses.
//!
//! Every record type Kafka 3.x and 4.0 write has a variant or is named in [`Skipped`]: ACLs,
//! SCRAM credentials, delegation tokens, client quotas, producer-id blocks, controller
//! registrations, no-ops and the ZooKeeper migration state change nothing the image shows.

use super::image::Partition;
use crate::common::Uuid;
use crate::decode::jvalue::JValue;
use crate::decode::schema::EncodeError;
use crate::decode::{encode_metadata_record, metadata_record, MetadataRecordError};

/// A record's field that is missing or of another type than its layout says (a layout table
/// out of step with the record, since the decoder read it whole).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordFieldError {
    /// The value does not decode as a metadata record.
    #[error(transparent)]
    Decode(#[from] MetadataRecordError),
    /// A field the image needs is absent or mistyped.
    #[error("{record} has no usable field {field}")]
    Field {
        /// The record type.
        record: &'static str,
        /// The field's JSON name.
        field: &'static str,
    },
}

/// A listener of a registered broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The listener name (`PLAINTEXT`, `EXTERNAL`).
    pub name: String,
    /// The advertised host.
    pub host: String,
    /// The advertised port.
    pub port: u16,
    /// Kafka's `SecurityProtocol` id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL).
    pub security_protocol: i16,
}

/// `RegisterBrokerRecord`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterBroker {
    /// The broker id.
    pub broker_id: i32,
    /// The incarnation id the broker chose at startup.
    pub incarnation_id: Uuid,
    /// The broker epoch (the offset of this record in the controller's log).
    pub broker_epoch: i64,
    /// Its listeners, in the order it registered them.
    pub endpoints: Vec<Endpoint>,
    /// Supported features: name, min and max version.
    pub features: Vec<(String, i16, i16)>,
    /// `broker.rack`.
    pub rack: Option<String>,
    /// Whether it registers fenced (always, in practice).
    pub fenced: bool,
    /// Whether it is in controlled shutdown (version 1+).
    pub in_controlled_shutdown: bool,
    /// Its log directories' ids (version 3+).
    pub log_dirs: Vec<Uuid>,
}

/// `PartitionRecord`: a partition as created (or as a snapshot holds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRecord {
    /// The partition number.
    pub partition_id: i32,
    /// Its topic's id.
    pub topic_id: Uuid,
    /// Its replicas, ISR, leader, epochs and ELR: what the image keeps.
    pub partition: Partition,
    /// Each replica's log directory id (version 1+).
    pub directories: Vec<Uuid>,
}

/// `PartitionChangeRecord`: what changed; `None` (and a leader of -2) is no change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionChange {
    /// The partition number.
    pub partition_id: i32,
    /// Its topic's id.
    pub topic_id: Uuid,
    /// The new ISR.
    pub isr: Option<Vec<i32>>,
    /// The new leader; -2 ([`NO_LEADER_CHANGE`]) for no change, -1 for none.
    pub leader: i32,
    /// The new replicas.
    pub replicas: Option<Vec<i32>>,
    /// The new removing replicas.
    pub removing_replicas: Option<Vec<i32>>,
    /// The new adding replicas.
    pub adding_replicas: Option<Vec<i32>>,
    /// The new leader recovery state; -1 for no change.
    pub leader_recovery_state: i8,
    /// The new ELR.
    pub eligible_leader_replicas: Option<Vec<i32>>,
    /// The new last known ELR.
    pub last_known_elr: Option<Vec<i32>>,
    /// Each new replica's log directory id (version 1+), set with a new replica list.
    pub directories: Option<Vec<Uuid>>,
}

impl PartitionChange {
    /// A change of nothing yet, to fill in with struct update syntax.
    pub fn none(topic_id: Uuid, partition_id: i32) -> PartitionChange {
        PartitionChange {
            partition_id,
            topic_id,
            isr: None,
            leader: NO_LEADER_CHANGE,
            replicas: None,
            removing_replicas: None,
            adding_replicas: None,
            leader_recovery_state: -1,
            eligible_leader_replicas: None,
            last_known_elr: None,
            directories: None,
        }
    }
}

/// `PartitionChangeRecord.leader` when the leader does not change.
pub const NO_LEADER_CHANGE: i32 = -2;
/// A partition without a leader.
pub const NO_LEADER: i32 = -1;

/// `ConfigRecord`'s resource types (Kafka's `ConfigResource.Type`).
pub mod resource_type {
    /// A topic's configs.
    pub const TOPIC: i8 = 2;
    /// A broker's configs (resource name `""`: the cluster-wide default).
    pub const BROKER: i8 = 4;
}

/// Record types that change nothing the image shows, read and passed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped(pub &'static str);

/// One metadata record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetadataRecord {
    /// `RegisterBrokerRecord`.
    RegisterBroker(RegisterBroker),
    /// `UnregisterBrokerRecord`.
    UnregisterBroker {
        /// The broker.
        broker_id: i32,
        /// Its epoch (the registration it ends).
        broker_epoch: i64,
    },
    /// `TopicRecord`.
    Topic {
        /// The topic name.
        name: String,
        /// Its id.
        topic_id: Uuid,
    },
    /// `PartitionRecord`.
    Partition(PartitionRecord),
    /// `ConfigRecord`.
    Config {
        /// [`resource_type`].
        resource_type: i8,
        /// The topic name, broker id, or `""`.
        resource_name: String,
        /// The config's name.
        name: String,
        /// Its value; `None` deletes it.
        value: Option<String>,
    },
    /// `PartitionChangeRecord`.
    PartitionChange(PartitionChange),
    /// `FenceBrokerRecord`.
    FenceBroker {
        /// The broker.
        id: i32,
        /// Its epoch.
        epoch: i64,
    },
    /// `UnfenceBrokerRecord`.
    UnfenceBroker {
        /// The broker.
        id: i32,
        /// Its epoch.
        epoch: i64,
    },
    /// `RemoveTopicRecord`.
    RemoveTopic {
        /// The topic's id.
        topic_id: Uuid,
    },
    /// `FeatureLevelRecord` (level 0 removes the feature).
    FeatureLevel {
        /// `metadata.version`, `kraft.version`, ...
        name: String,
        /// Its level.
        level: i16,
    },
    /// `BrokerRegistrationChangeRecord`.
    BrokerRegistrationChange {
        /// The broker.
        broker_id: i32,
        /// Its epoch.
        broker_epoch: i64,
        /// 1 fenced, -1 unfenced, 0 no change.
        fenced: i8,
        /// 1 in controlled shutdown, 0 no change.
        in_controlled_shutdown: i8,
    },
    /// `ClearElrRecord` (Kafka 4.0): the ELR and last known ELR of a topic's partitions, or of
    /// every topic's when the name is empty, are cleared.
    ClearElr {
        /// The topic, or `""` for all.
        topic_name: String,
    },
    /// `BeginTransactionRecord`: the records up to the next end or abort are one change.
    BeginTransaction,
    /// `EndTransactionRecord`.
    EndTransaction,
    /// `AbortTransactionRecord`: the records since the begin are dropped.
    AbortTransaction,
    /// A record type the image does not use.
    Skipped(Skipped),
}

/// Typed access to a decoded record's fields.
struct Fields<'a> {
    record: &'static str,
    data: &'a JValue,
}

impl Fields<'_> {
    fn missing(&self, field: &'static str) -> RecordFieldError {
        RecordFieldError::Field {
            record: self.record,
            field,
        }
    }

    fn int(&self, field: &'static str) -> Result<i64, RecordFieldError> {
        match self.data.get(field) {
            Some(JValue::Int(n)) => Ok(*n),
            _ => Err(self.missing(field)),
        }
    }

    /// A tagged or later-version integer field: absent is its default.
    fn int_or(&self, field: &'static str, default: i64) -> Result<i64, RecordFieldError> {
        match self.data.get(field) {
            None => Ok(default),
            Some(JValue::Int(n)) => Ok(*n),
            Some(_) => Err(self.missing(field)),
        }
    }

    fn narrow<T: TryFrom<i64>>(&self, field: &'static str, n: i64) -> Result<T, RecordFieldError> {
        T::try_from(n).map_err(|_| self.missing(field))
    }

    fn i32(&self, field: &'static str) -> Result<i32, RecordFieldError> {
        self.narrow(field, self.int(field)?)
    }

    fn i8_or(&self, field: &'static str, default: i8) -> Result<i8, RecordFieldError> {
        self.narrow(field, self.int_or(field, i64::from(default))?)
    }

    fn bool_or(&self, field: &'static str, default: bool) -> Result<bool, RecordFieldError> {
        match self.data.get(field) {
            None => Ok(default),
            Some(JValue::Bool(b)) => Ok(*b),
            Some(_) => Err(self.missing(field)),
        }
    }

    fn string(&self, field: &'static str) -> Result<String, RecordFieldError> {
        self.opt_string(field)?.ok_or_else(|| self.missing(field))
    }

    fn opt_string(&self, field: &'static str) -> Result<Option<String>, RecordFieldError> {
        match self.data.get(field) {
            None | Some(JValue::Null) => Ok(None),
            Some(JValue::Str(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.missing(field)),
        }
    }

    fn uuid(&self, field: &'static str) -> Result<Uuid, RecordFieldError> {
        self.string(field)?.parse().map_err(|_| self.missing(field))
    }

    /// An int32 array; absent or null is `None`.
    fn ints(&self, field: &'static str) -> Result<Option<Vec<i32>>, RecordFieldError> {
        match self.data.get(field) {
            None | Some(JValue::Null) => Ok(None),
            Some(JValue::Arr(items)) => items
                .iter()
                .map(|v| match v {
                    JValue::Int(n) => self.narrow(field, *n),
                    _ => Err(self.missing(field)),
                })
                .collect::<Result<Vec<i32>, _>>()
                .map(Some),
            Some(_) => Err(self.missing(field)),
        }
    }

    fn uuids(&self, field: &'static str) -> Result<Vec<Uuid>, RecordFieldError> {
        match self.data.get(field) {
            None | Some(JValue::Null) => Ok(Vec::new()),
            Some(JValue::Arr(items)) => items
                .iter()
                .map(|v| match v {
                    JValue::Str(s) => s.parse().map_err(|_| self.missing(field)),
                    _ => Err(self.missing(field)),
                })
                .collect(),
            Some(_) => Err(self.missing(field)),
        }
    }

    fn objects(&self, field: &'static str) -> Result<Vec<Fields<'_>>, RecordFieldError> {
        match self.data.get(field) {
            Some(JValue::Arr(items)) => Ok(items
                .iter()
                .map(|data| Fields {
                    record: self.record,
                    data,
                })
                .collect()),
            _ => Err(self.missing(field)),
        }
    }
}

impl MetadataRecord {
    /// Reads a record's value (frame version, type, version, message).
    pub fn read(value: &[u8]) -> Result<MetadataRecord, RecordFieldError> {
        let (schema, _version, data) = metadata_record(value)?;
        let Some(api_key) = schema.api_key else {
            return Err(MetadataRecordError::UnknownType(-1).into());
        };
        Self::from_fields(api_key, &data)
    }

    fn from_fields(api_key: i16, data: &JValue) -> Result<MetadataRecord, RecordFieldError> {
        let f = |record| Fields { record, data };
        Ok(match api_key {
            0 => {
                let r = f("RegisterBrokerRecord");
                let endpoints = r
                    .objects("endPoints")?
                    .iter()
                    .map(|e| {
                        Ok(Endpoint {
                            name: e.string("name")?,
                            host: e.string("host")?,
                            port: e.narrow("port", e.int("port")?)?,
                            security_protocol: e
                                .narrow("securityProtocol", e.int("securityProtocol")?)?,
                        })
                    })
                    .collect::<Result<_, RecordFieldError>>()?;
                let features = r
                    .objects("features")?
                    .iter()
                    .map(|e| {
                        Ok((
                            e.string("name")?,
                            e.narrow("minSupportedVersion", e.int("minSupportedVersion")?)?,
                            e.narrow("maxSupportedVersion", e.int("maxSupportedVersion")?)?,
                        ))
                    })
                    .collect::<Result<_, RecordFieldError>>()?;
                MetadataRecord::RegisterBroker(RegisterBroker {
                    broker_id: r.i32("brokerId")?,
                    incarnation_id: r.uuid("incarnationId")?,
                    broker_epoch: r.int("brokerEpoch")?,
                    endpoints,
                    features,
                    rack: r.opt_string("rack")?,
                    fenced: r.bool_or("fenced", true)?,
                    in_controlled_shutdown: r.bool_or("inControlledShutdown", false)?,
                    log_dirs: r.uuids("logDirs")?,
                })
            }
            1 => {
                let r = f("UnregisterBrokerRecord");
                MetadataRecord::UnregisterBroker {
                    broker_id: r.i32("brokerId")?,
                    broker_epoch: r.int("brokerEpoch")?,
                }
            }
            2 => {
                let r = f("TopicRecord");
                MetadataRecord::Topic {
                    name: r.string("name")?,
                    topic_id: r.uuid("topicId")?,
                }
            }
            3 => {
                let r = f("PartitionRecord");
                let list = |field| Ok::<_, RecordFieldError>(r.ints(field)?.unwrap_or_default());
                MetadataRecord::Partition(PartitionRecord {
                    partition_id: r.i32("partitionId")?,
                    topic_id: r.uuid("topicId")?,
                    partition: Partition {
                        replicas: list("replicas")?,
                        isr: list("isr")?,
                        removing_replicas: list("removingReplicas")?,
                        adding_replicas: list("addingReplicas")?,
                        leader: r.i32("leader")?,
                        leader_recovery_state: r.i8_or("leaderRecoveryState", 0)?,
                        leader_epoch: r.i32("leaderEpoch")?,
                        partition_epoch: r.i32("partitionEpoch")?,
                        elr: list("eligibleLeaderReplicas")?,
                        last_known_elr: list("lastKnownElr")?,
                    },
                    directories: r.uuids("directories")?,
                })
            }
            4 => {
                let r = f("ConfigRecord");
                MetadataRecord::Config {
                    resource_type: r.i8_or("resourceType", 0)?,
                    resource_name: r.string("resourceName")?,
                    name: r.string("name")?,
                    value: r.opt_string("value")?,
                }
            }
            5 => {
                let r = f("PartitionChangeRecord");
                MetadataRecord::PartitionChange(PartitionChange {
                    partition_id: r.i32("partitionId")?,
                    topic_id: r.uuid("topicId")?,
                    isr: r.ints("isr")?,
                    leader: r.narrow("leader", r.int_or("leader", i64::from(NO_LEADER_CHANGE))?)?,
                    replicas: r.ints("replicas")?,
                    removing_replicas: r.ints("removingReplicas")?,
                    adding_replicas: r.ints("addingReplicas")?,
                    leader_recovery_state: r.i8_or("leaderRecoveryState", -1)?,
                    eligible_leader_replicas: r.ints("eligibleLeaderReplicas")?,
                    last_known_elr: r.ints("lastKnownElr")?,
                    directories: match r.data.get("directories") {
                        None | Some(JValue::Null) => None,
                        Some(_) => Some(r.uuids("directories")?),
                    },
                })
            }
            7 | 8 => {
                let r = f(if api_key == 7 {
                    "FenceBrokerRecord"
                } else {
                    "UnfenceBrokerRecord"
                });
                let (id, epoch) = (r.i32("id")?, r.int("epoch")?);
                if api_key == 7 {
                    MetadataRecord::FenceBroker { id, epoch }
                } else {
                    MetadataRecord::UnfenceBroker { id, epoch }
                }
            }
            9 => MetadataRecord::RemoveTopic {
                topic_id: f("RemoveTopicRecord").uuid("topicId")?,
            },
            12 => {
                let r = f("FeatureLevelRecord");
                MetadataRecord::FeatureLevel {
                    name: r.string("name")?,
                    level: r.narrow("featureLevel", r.int("featureLevel")?)?,
                }
            }
            17 => {
                let r = f("BrokerRegistrationChangeRecord");
                MetadataRecord::BrokerRegistrationChange {
                    broker_id: r.i32("brokerId")?,
                    broker_epoch: r.int("brokerEpoch")?,
                    fenced: r.i8_or("fenced", 0)?,
                    in_controlled_shutdown: r.i8_or("inControlledShutdown", 0)?,
                }
            }
            28 => MetadataRecord::ClearElr {
                topic_name: f("ClearElrRecord").string("topicName")?,
            },
            23 => MetadataRecord::BeginTransaction,
            24 => MetadataRecord::EndTransaction,
            25 => MetadataRecord::AbortTransaction,
            10 => MetadataRecord::Skipped(Skipped("DelegationTokenRecord")),
            11 => MetadataRecord::Skipped(Skipped("UserScramCredentialRecord")),
            14 => MetadataRecord::Skipped(Skipped("ClientQuotaRecord")),
            15 => MetadataRecord::Skipped(Skipped("ProducerIdsRecord")),
            18 => MetadataRecord::Skipped(Skipped("AccessControlEntryRecord")),
            19 => MetadataRecord::Skipped(Skipped("RemoveAccessControlEntryRecord")),
            20 => MetadataRecord::Skipped(Skipped("NoOpRecord")),
            21 => MetadataRecord::Skipped(Skipped("ZkMigrationStateRecord")),
            22 => MetadataRecord::Skipped(Skipped("RemoveUserScramCredentialRecord")),
            26 => MetadataRecord::Skipped(Skipped("RemoveDelegationTokenRecord")),
            27 => MetadataRecord::Skipped(Skipped("RegisterControllerRecord")),
            other => return Err(MetadataRecordError::UnknownType(other).into()),
        })
    }
}

fn int(n: impl Into<i64>) -> JValue {
    JValue::Int(n.into())
}

fn str(s: &str) -> JValue {
    JValue::Str(s.to_string())
}

fn opt_str(s: Option<&str>) -> JValue {
    s.map_or(JValue::Null, str)
}

fn uuid(id: Uuid) -> JValue {
    JValue::Str(id.to_string())
}

fn ints(list: &[i32]) -> JValue {
    JValue::Arr(list.iter().map(|&n| int(n)).collect())
}

fn obj(fields: Vec<(&str, JValue)>) -> JValue {
    JValue::Obj(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

impl MetadataRecord {
    /// The record's value as Kafka 4.0's controller writes it at metadata.version 4.0-IV3:
    /// `RegisterBrokerRecord` v3, `PartitionRecord` v1 (no ELR), `PartitionChangeRecord` v1 (v2 with ELR fields), the others v0. Only the types
    /// kafkit writes; the others are [`EncodeError::UnsupportedVersion`].
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let (name, version, data) = match self {
            MetadataRecord::FeatureLevel { name, level } => (
                "FeatureLevelRecord",
                0,
                obj(vec![("name", str(name)), ("featureLevel", int(*level))]),
            ),
            MetadataRecord::RegisterBroker(r) => (
                "RegisterBrokerRecord",
                3,
                obj(vec![
                    ("brokerId", int(r.broker_id)),
                    ("isMigratingZkBroker", JValue::Bool(false)),
                    ("incarnationId", uuid(r.incarnation_id)),
                    ("brokerEpoch", int(r.broker_epoch)),
                    (
                        "endPoints",
                        JValue::Arr(
                            r.endpoints
                                .iter()
                                .map(|e| {
                                    obj(vec![
                                        ("name", str(&e.name)),
                                        ("host", str(&e.host)),
                                        ("port", int(e.port)),
                                        ("securityProtocol", int(e.security_protocol)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                    (
                        "features",
                        JValue::Arr(
                            r.features
                                .iter()
                                .map(|(name, min, max)| {
                                    obj(vec![
                                        ("name", str(name)),
                                        ("minSupportedVersion", int(*min)),
                                        ("maxSupportedVersion", int(*max)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                    ("rack", opt_str(r.rack.as_deref())),
                    ("fenced", JValue::Bool(r.fenced)),
                    (
                        "inControlledShutdown",
                        JValue::Bool(r.in_controlled_shutdown),
                    ),
                    (
                        "logDirs",
                        JValue::Arr(r.log_dirs.iter().map(|&d| uuid(d)).collect()),
                    ),
                ]),
            ),
            MetadataRecord::UnfenceBroker { id, epoch } => (
                "UnfenceBrokerRecord",
                0,
                obj(vec![("id", int(*id)), ("epoch", int(*epoch))]),
            ),
            MetadataRecord::BrokerRegistrationChange {
                broker_id,
                broker_epoch,
                fenced,
                ..
            } => (
                // Version 0, as `ReplicationControlManager.handleBrokerFenced` and
                // `handleBrokerUnfenced` write it.
                "BrokerRegistrationChangeRecord",
                0,
                obj(vec![
                    ("brokerId", int(*broker_id)),
                    ("brokerEpoch", int(*broker_epoch)),
                    ("fenced", int(*fenced)),
                ]),
            ),
            MetadataRecord::FenceBroker { id, epoch } => (
                "FenceBrokerRecord",
                0,
                obj(vec![("id", int(*id)), ("epoch", int(*epoch))]),
            ),
            MetadataRecord::RemoveTopic { topic_id } => (
                "RemoveTopicRecord",
                0,
                obj(vec![("topicId", uuid(*topic_id))]),
            ),
            MetadataRecord::Topic { name, topic_id } => (
                "TopicRecord",
                0,
                obj(vec![("name", str(name)), ("topicId", uuid(*topic_id))]),
            ),
            MetadataRecord::Partition(r) => {
                let p = &r.partition;
                (
                    "PartitionRecord",
                    1,
                    obj(vec![
                        ("partitionId", int(r.partition_id)),
                        ("topicId", uuid(r.topic_id)),
                        ("replicas", ints(&p.replicas)),
                        ("isr", ints(&p.isr)),
                        ("removingReplicas", ints(&p.removing_replicas)),
                        ("addingReplicas", ints(&p.adding_replicas)),
                        ("leader", int(p.leader)),
                        ("leaderRecoveryState", int(p.leader_recovery_state)),
                        ("leaderEpoch", int(p.leader_epoch)),
                        ("partitionEpoch", int(p.partition_epoch)),
                        (
                            "directories",
                            JValue::Arr(r.directories.iter().map(|&d| uuid(d)).collect()),
                        ),
                    ]),
                )
            }
            MetadataRecord::PartitionChange(c) => {
                let list = |l: &Option<Vec<i32>>| l.as_deref().map_or(JValue::Null, ints);
                // Version 2 carries the ELR fields, which Kafka writes only with ELR enabled;
                // version 1 (directories) otherwise, as a 4.0 controller does.
                let elr = c.eligible_leader_replicas.is_some() || c.last_known_elr.is_some();
                let mut fields = vec![
                    ("partitionId", int(c.partition_id)),
                    ("topicId", uuid(c.topic_id)),
                    ("isr", list(&c.isr)),
                    ("leader", int(c.leader)),
                    ("replicas", list(&c.replicas)),
                    ("removingReplicas", list(&c.removing_replicas)),
                    ("addingReplicas", list(&c.adding_replicas)),
                    ("leaderRecoveryState", int(c.leader_recovery_state)),
                    (
                        "directories",
                        c.directories.as_deref().map_or(JValue::Null, |d| {
                            JValue::Arr(d.iter().map(|&d| uuid(d)).collect())
                        }),
                    ),
                ];
                if elr {
                    fields.push(("eligibleLeaderReplicas", list(&c.eligible_leader_replicas)));
                    fields.push(("lastKnownElr", list(&c.last_known_elr)));
                }
                (
                    "PartitionChangeRecord",
                    if elr { 2 } else { 1 },
                    obj(fields),
                )
            }
            MetadataRecord::Config {
                resource_type,
                resource_name,
                name,
                value,
            } => (
                "ConfigRecord",
                0,
                obj(vec![
                    ("resourceType", int(*resource_type)),
                    ("resourceName", str(resource_name)),
                    ("name", str(name)),
                    ("value", opt_str(value.as_deref())),
                ]),
            ),
            MetadataRecord::BeginTransaction => ("BeginTransactionRecord", 0, obj(vec![])),
            MetadataRecord::EndTransaction => ("EndTransactionRecord", 0, obj(vec![])),
            MetadataRecord::AbortTransaction => ("AbortTransactionRecord", 0, obj(vec![])),
            _ => {
                return Err(EncodeError::UnsupportedVersion {
                    version: 0,
                    message: "a metadata record kafkit does not write".to_string(),
                })
            }
        };
        encode_metadata_record(name, version, &data)
    }
}
