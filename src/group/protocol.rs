//! The consumer protocol: what a consumer sends when it joins a classic group
//! ([`Subscription`], `ConsumerProtocolSubscription` versions 0–3) and what the leader's
//! assignor gives each member ([`Assignment`], `ConsumerProtocolAssignment` versions 0–3). The
//! coordinator keeps both as opaque bytes in [`MemberMetadata`];
//! for groups of protocol type `consumer` they are these messages, each prefixed with its int16
//! version, never flexible.
//!
//! As Kafka's `ConsumerProtocol` does, a version above 3 is read as version 3 (newer versions
//! only add fields at the end), and the version found is kept.

use super::records::{MemberMetadata, Message, ReadError, Versioned, WriteError};
use super::wire::{Reader, Writer};

/// A topic and some of its partitions, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartitions {
    /// The topic.
    pub topic: String,
    /// Partition numbers.
    pub partitions: Vec<i32>,
}

/// A member's subscription: `ownedPartitions` exists from version 1 (else empty),
/// `generationId` from 2 (else -1), `rackId` from 3 (else `None`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subscription {
    /// The subscribed topics.
    pub topics: Vec<String>,
    /// The assignor's own data (the sticky assignors' previous assignment and generation).
    pub user_data: Option<Vec<u8>>,
    /// The partitions the member owns (the cooperative protocol sends them).
    pub owned_partitions: Vec<TopicPartitions>,
    /// The generation of the owned partitions, or -1.
    pub generation_id: i32,
    /// `client.rack`.
    pub rack_id: Option<String>,
}

/// What the leader assigned a member.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Assignment {
    /// The assigned partitions, by topic.
    pub assigned_partitions: Vec<TopicPartitions>,
    /// The assignor's own data.
    pub user_data: Option<Vec<u8>>,
}

impl Assignment {
    /// The number of assigned partitions.
    pub fn partition_count(&self) -> usize {
        self.assigned_partitions
            .iter()
            .map(|t| t.partitions.len())
            .sum()
    }

    /// Every assigned partition as `(topic, partition)`, in the order stored.
    pub fn partitions(&self) -> impl Iterator<Item = (&str, i32)> {
        self.assigned_partitions
            .iter()
            .flat_map(|t| t.partitions.iter().map(move |&p| (t.topic.as_str(), p)))
    }
}

fn read_topic_partitions(
    r: &mut Reader<'_>,
    what: &'static str,
) -> Result<Vec<TopicPartitions>, ReadError> {
    let count = r.array_len(what, false)?;
    (0..count)
        .map(|_| {
            Ok(TopicPartitions {
                topic: r.string("topic", false)?,
                partitions: r.i32_array("partitions", false)?,
            })
        })
        .collect()
}

fn write_topic_partitions(
    w: &mut Writer<'_>,
    what: &'static str,
    items: &[TopicPartitions],
) -> Result<(), WriteError> {
    w.array_len(what, items.len(), false)?;
    for item in items {
        w.string("topic", &item.topic, false)?;
        w.i32_array("partitions", &item.partitions, false)?;
    }
    Ok(())
}

impl Message for Subscription {
    const NAME: &'static str = "ConsumerProtocolSubscription";
    const VERSIONS: (i16, i16) = (0, 3);
    const FLEXIBLE_FROM: Option<i16> = None;

    fn read_from(r: &mut Reader<'_>, version: i16, _flexible: bool) -> Result<Self, ReadError> {
        let count = r.array_len("topics", false)?;
        let topics = (0..count)
            .map(|_| r.string("topics", false))
            .collect::<Result<_, _>>()?;
        let user_data = r.nullable_bytes("userData", false)?;
        let owned_partitions = if version >= 1 {
            read_topic_partitions(r, "ownedPartitions")?
        } else {
            Vec::new()
        };
        let generation_id = if version >= 2 {
            r.i32("generationId")?
        } else {
            -1
        };
        let rack_id = if version >= 3 {
            r.nullable_string("rackId", false)?
        } else {
            None
        };
        Ok(Subscription {
            topics,
            user_data,
            owned_partitions,
            generation_id,
            rack_id,
        })
    }

    fn write_to(
        &self,
        w: &mut Writer<'_>,
        version: i16,
        _flexible: bool,
    ) -> Result<(), WriteError> {
        w.array_len("topics", self.topics.len(), false)?;
        for topic in &self.topics {
            w.string("topics", topic, false)?;
        }
        w.nullable_bytes("userData", self.user_data.as_deref(), false)?;
        if version >= 1 {
            write_topic_partitions(w, "ownedPartitions", &self.owned_partitions)?;
        }
        if version >= 2 {
            w.i32(self.generation_id);
        }
        if version >= 3 {
            w.nullable_string("rackId", self.rack_id.as_deref(), false)?;
        }
        Ok(())
    }
}

impl Message for Assignment {
    const NAME: &'static str = "ConsumerProtocolAssignment";
    const VERSIONS: (i16, i16) = (0, 3);
    const FLEXIBLE_FROM: Option<i16> = None;

    fn read_from(r: &mut Reader<'_>, _version: i16, _flexible: bool) -> Result<Self, ReadError> {
        Ok(Assignment {
            assigned_partitions: read_topic_partitions(r, "assignedPartitions")?,
            user_data: r.nullable_bytes("userData", false)?,
        })
    }

    fn write_to(
        &self,
        w: &mut Writer<'_>,
        _version: i16,
        _flexible: bool,
    ) -> Result<(), WriteError> {
        write_topic_partitions(w, "assignedPartitions", &self.assigned_partitions)?;
        w.nullable_bytes("userData", self.user_data.as_deref(), false)
    }
}

/// `StickyAssignor`'s user data in a subscription: its `STICKY_ASSIGNOR_USER_DATA_V1` struct
/// (unversioned, no length prefix), the member's previous assignment by topic and the
/// generation it was assigned in; schema V0 has no generation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StickyUserData {
    /// `previous_assignment`: topics in the order given, each with its partitions.
    pub previous_assignment: Vec<TopicPartitions>,
    /// `generation` (schema V1).
    pub generation: Option<i32>,
}

impl StickyUserData {
    /// `StickyAssignor.serializeTopicPartitionAssignment`: schema V1 with a generation, V0
    /// without.
    pub fn encode(&self) -> Result<Vec<u8>, WriteError> {
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out);
        write_topic_partitions(&mut w, "previous_assignment", &self.previous_assignment)?;
        if let Some(generation) = self.generation {
            w.i32(generation);
        }
        Ok(out)
    }

    /// `StickyAssignor.deserializeTopicPartitionAssignment`: schema V1, else V0 (no
    /// generation); `None` when neither reads (the assignor then treats the member as having
    /// no previous assignment).
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader::new(bytes);
        let previous_assignment = read_topic_partitions(&mut r, "previous_assignment").ok()?;
        Some(StickyUserData {
            previous_assignment,
            generation: r.i32("generation").ok(),
        })
    }
}

/// Reads a consumer-protocol message as `ConsumerProtocol.deserialize*` does: a version below 0
/// is an error, one above the highest known is read as the highest (and kept as found).
pub fn decode<M: Message>(bytes: &[u8]) -> Result<Versioned<M>, ReadError> {
    Versioned::decode_as(bytes, |version| {
        let (lowest, highest) = M::VERSIONS;
        if version < lowest {
            return Err(ReadError::UnsupportedVersion {
                message: M::NAME,
                version,
                lowest,
                highest,
            });
        }
        Ok(version.min(highest))
    })
}

/// Reading one member's consumer-protocol bytes.
impl MemberMetadata {
    /// Its assignment: empty while it has none (no bytes), as Kafka's admin client reads it.
    pub fn decode_assignment(&self) -> Result<Assignment, ReadError> {
        if self.assignment.is_empty() {
            return Ok(Assignment::default());
        }
        decode::<Assignment>(&self.assignment).map(|v| v.message)
    }

    /// Its subscription.
    pub fn decode_subscription(&self) -> Result<Versioned<Subscription>, ReadError> {
        decode::<Subscription>(&self.subscription)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn kafkas_version_3_subscription_and_assignment() {
        // ConsumerProtocol.serializeSubscription(topics [foo], owned foo-0, generation 0,
        // rack "rack") and serializeAssignment([foo-0]), as in decode/'s test of the same.
        let mut sub = vec![0, 3, 0, 0, 0, 1, 0, 3, b'f', b'o', b'o', 255, 255, 255, 255];
        sub.extend_from_slice(&[0, 0, 0, 1, 0, 3, b'f', b'o', b'o', 0, 0, 0, 1, 0, 0, 0, 0]);
        sub.extend_from_slice(&[0, 0, 0, 0, 0, 4, b'r', b'a', b'c', b'k']);
        let read = decode::<Subscription>(&sub).unwrap();
        assert_eq!(read.version, 3);
        let foo0 = vec![TopicPartitions {
            topic: "foo".into(),
            partitions: vec![0],
        }];
        assert_eq!(
            read.message,
            Subscription {
                topics: vec!["foo".into()],
                user_data: None,
                owned_partitions: foo0.clone(),
                generation_id: 0,
                rack_id: Some("rack".into()),
            }
        );
        assert_eq!(read.encode().unwrap(), sub);
        let asg = [
            0, 3, 0, 0, 0, 1, 0, 3, b'f', b'o', b'o', 0, 0, 0, 1, 0, 0, 0, 0, 255, 255, 255, 255,
        ];
        let read = decode::<Assignment>(&asg).unwrap();
        assert_eq!(read.message.assigned_partitions, foo0);
        assert_eq!(read.message.partition_count(), 1);
        assert_eq!(read.encode().unwrap(), asg);
    }

    #[test]
    fn newer_versions_read_as_the_highest_and_negative_ones_fail() {
        let asg = [0, 9, 0, 0, 0, 0, 255, 255, 255, 255, 7, 7];
        let read = decode::<Assignment>(&asg).unwrap();
        assert_eq!((read.version, read.message), (9, Assignment::default()));
        assert!(matches!(
            decode::<Assignment>(&[255, 255, 0, 0, 0, 0]),
            Err(ReadError::UnsupportedVersion { version: -1, .. })
        ));
        assert_eq!(
            decode::<Subscription>(&[0, 0, 0, 0, 0, 1, 0, 5, b'a']).unwrap_err(),
            ReadError::Truncated {
                what: "topics",
                position: 8,
                needed: 5,
                remaining: 1
            }
        );
    }

    #[test]
    fn sticky_user_data_is_kafkas_struct() {
        // STICKY_ASSIGNOR_USER_DATA_V1 of previous_assignment [{topic "t1", partitions [0, 2]},
        // {topic "t", partitions [1]}] and generation 5, field by field as Kafka's Schema.write
        // writes them: ARRAY (int32 count), each STRING (int16 length + UTF-8) and ARRAY of
        // INT32, then INT32.
        let mut v1 = vec![0, 0, 0, 2];
        v1.extend_from_slice(&[0, 2, b't', b'1', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2]);
        v1.extend_from_slice(&[0, 1, b't', 0, 0, 0, 1, 0, 0, 0, 1]);
        v1.extend_from_slice(&[0, 0, 0, 5]);
        let data = StickyUserData {
            previous_assignment: vec![
                TopicPartitions {
                    topic: "t1".into(),
                    partitions: vec![0, 2],
                },
                TopicPartitions {
                    topic: "t".into(),
                    partitions: vec![1],
                },
            ],
            generation: Some(5),
        };
        assert_eq!(data.encode().unwrap(), v1);
        assert_eq!(StickyUserData::decode(&v1), Some(data.clone()));
        // V0: the same without the generation; what is neither reads as nothing.
        let v0 = v1.get(..v1.len() - 4).unwrap();
        let older = StickyUserData {
            generation: None,
            ..data
        };
        assert_eq!(older.encode().unwrap(), v0);
        assert_eq!(StickyUserData::decode(v0), Some(older));
        assert_eq!(StickyUserData::decode(v1.get(..6).unwrap()), None);
        assert_eq!(StickyUserData::decode(&[0, 0, 0, 1, 255, 255]), None);
    }

    fn topic_partitions() -> impl Strategy<Value = Vec<TopicPartitions>> {
        proptest::collection::vec(
            ("[a-z]{1,6}", proptest::collection::vec(any::<i32>(), 0..4))
                .prop_map(|(topic, partitions)| TopicPartitions { topic, partitions }),
            0..3,
        )
    }

    proptest! {
        #[test]
        fn subscriptions_round_trip(
            version in 0i16..=3,
            topics in proptest::collection::vec("[a-z.]{0,8}", 0..4),
            user_data in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..10)),
            owned in topic_partitions(),
            generation in any::<i32>(),
            rack in proptest::option::of("[a-z]{0,5}"),
        ) {
            let sub = Versioned::new(version, Subscription {
                topics,
                user_data,
                owned_partitions: if version >= 1 { owned } else { Vec::new() },
                generation_id: if version >= 2 { generation } else { -1 },
                rack_id: rack.filter(|_| version >= 3),
            });
            let bytes = sub.encode().unwrap();
            prop_assert_eq!(decode::<Subscription>(&bytes).unwrap(), sub);
        }

        #[test]
        fn assignments_round_trip(
            version in 0i16..=3,
            assigned in topic_partitions(),
            user_data in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..10)),
        ) {
            let asg = Versioned::new(version, Assignment { assigned_partitions: assigned, user_data });
            let bytes = asg.encode().unwrap();
            prop_assert_eq!(decode::<Assignment>(&bytes).unwrap(), asg);
        }

        #[test]
        fn any_bytes_read_or_fail(bytes in proptest::collection::vec(any::<u8>(), 0..60)) {
            let _ = decode::<Subscription>(&bytes);
            let _ = decode::<Assignment>(&bytes);
        }
    }
}
