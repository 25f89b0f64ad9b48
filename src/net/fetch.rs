//! Fetch requests for a console consumer: one Fetch per leader for every partition read,
//! the record batches of the answers handed to each partition's
//! [`PartitionConsumer`](crate::client::consumer::PartitionConsumer) (kafkit's record module
//! decodes them, as it decodes a log's).
//!
//! Fetching ahead: as soon as an answer is read, the next Fetch goes out from the new
//! positions, so the broker reads while the batches of the last answer are decoded and
//! printed (as librdkafka's broker thread keeps fetching). Memory stays bounded: the answer
//! in flight is read only once every partition's buffer is empty (a partition that runs out
//! while others have batches waits for them), so at most one answer is held, up to
//! `fetch.max.bytes`, and one more waits in the socket. Every Fetch is a full one
//! (session id 0, epoch -1): Tansu 0.6 answers a KIP-227 session request with session id 0,
//! no session (`tests/net.rs`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_protocol::messages::{BrokerId, FetchRequest, TopicName};
use kafka_protocol::protocol::StrBytes;

use crate::client::consumer::{BatchSource, ConsumeError, IsolationLevel};
use crate::common::TopicPartition;
use crate::record::RawBatch;

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::NetError;

/// Kafka's consumer defaults: `fetch.max.wait.ms`, `fetch.max.bytes`,
/// `max.partition.fetch.bytes`.
const MAX_WAIT: Duration = Duration::from_millis(500);
const MAX_BYTES: i32 = 50 << 20;
const PARTITION_MAX_BYTES: i32 = 1 << 20;

/// Partitions and the offsets to fetch them from, by topic.
type ByTopic<'a> = BTreeMap<&'a str, Vec<(i32, i64)>>;

/// The fetches of one consumer, shared by its partitions' sources.
#[derive(Debug, Clone)]
pub struct Fetches(Arc<Mutex<Session>>);

#[derive(Debug)]
struct Session {
    cluster: Cluster,
    isolation: i8,
    check_crcs: bool,
    leaders: BTreeMap<TopicPartition, i32>,
    partitions: BTreeMap<TopicPartition, Position>,
    /// Fetches made so far.
    fetches: u64,
    /// Fetch requests sent ahead and not answered yet, by leader: the next fetch reads
    /// these instead of asking again.
    in_flight: Vec<i32>,
}

#[derive(Debug, Default)]
struct Position {
    /// The offset the next fetch asks from.
    next: i64,
    /// Batches fetched and not handed out yet.
    buffered: VecDeque<Vec<u8>>,
}

impl Fetches {
    /// Fetches through `cluster`, with `isolation.level` and `check.crcs`.
    pub fn new(cluster: Cluster, isolation: IsolationLevel, check_crcs: bool) -> Self {
        Fetches(Arc::new(Mutex::new(Session {
            cluster,
            isolation: match isolation {
                IsolationLevel::ReadUncommitted => 0,
                IsolationLevel::ReadCommitted => 1,
            },
            check_crcs,
            leaders: BTreeMap::new(),
            partitions: BTreeMap::new(),
            fetches: 0,
            in_flight: Vec::new(),
        })))
    }

    /// Runs `f` on the cluster (metadata, offsets) between fetches. A Fetch sent ahead is
    /// given up first (its connection closed, the positions unchanged, so the next fetch asks
    /// again): `f`'s requests must not read its answer as theirs.
    pub fn with_cluster<T>(&self, f: impl FnOnce(&mut Cluster) -> T) -> T {
        let mut session = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for leader in std::mem::take(&mut session.in_flight) {
            session.cluster.drop_connection(leader);
        }
        f(&mut session.cluster)
    }

    /// The source of `tp`'s batches from `offset` on.
    pub fn partition(&self, tp: TopicPartition, offset: i64) -> Box<dyn BatchSource> {
        let mut session = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        session.partitions.insert(
            tp.clone(),
            Position {
                next: offset,
                buffered: VecDeque::new(),
            },
        );
        Box::new(RemotePartition {
            session: self.0.clone(),
            tp,
            seen: 0,
        })
    }
}

/// One partition's batches, from its consumer's shared fetches.
#[derive(Debug)]
struct RemotePartition {
    session: Arc<Mutex<Session>>,
    tp: TopicPartition,
    /// The fetch count when this partition last found nothing: a fetch since then (asked by
    /// another partition) covered it, so it does not ask again in the same round.
    seen: u64,
}

impl BatchSource for RemotePartition {
    fn next_batch(&mut self) -> Result<Option<Vec<u8>>, ConsumeError> {
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let empty = |s: &Session, tp: &TopicPartition| {
            s.partitions.get(tp).is_none_or(|p| p.buffered.is_empty())
        };
        if empty(&session, &self.tp) {
            if self.seen == session.fetches {
                let others_have = session.partitions.values().any(|p| !p.buffered.is_empty());
                match (others_have, session.in_flight.is_empty()) {
                    // Others' batches first: the fetch in flight, which may wait for data
                    // up to fetch.max.wait.ms, is read once they are handed out.
                    (true, false) => {}
                    // Others' batches waiting: ask without waiting for more.
                    (true, true) => session.fetch(Duration::ZERO)?,
                    (false, _) => session.fetch(MAX_WAIT)?,
                }
            }
            self.seen = session.fetches;
        }
        let batch = session
            .partitions
            .get_mut(&self.tp)
            .and_then(|p| p.buffered.pop_front());
        // The last batch waiting and nothing asked ahead (every partition had its fill when
        // the last answer came): the next fetch goes out now, and the broker reads while this
        // one is decoded.
        if batch.is_some()
            && session.in_flight.is_empty()
            && session.partitions.values().all(|p| p.buffered.is_empty())
        {
            session.send(MAX_WAIT)?;
        }
        Ok(batch)
    }
}

impl Session {
    /// One Fetch per leader for every partition, waiting up to `wait` for data (or the
    /// answers of those sent ahead); the batches of the answers are buffered by partition,
    /// and the next Fetch goes out at once from the new positions (fetching ahead). A
    /// partition whose leader moved or is not known is looked up again before the next fetch.
    fn fetch(&mut self, wait: Duration) -> Result<(), ConsumeError> {
        self.fetches += 1;
        if self.in_flight.is_empty() {
            self.send(wait)?;
        }
        self.receive()?;
        self.send(MAX_WAIT)
    }

    /// Reads the answers of the fetches in flight into the partitions' buffers.
    fn receive(&mut self) -> Result<(), ConsumeError> {
        for leader in std::mem::take(&mut self.in_flight) {
            let response = match self
                .cluster
                .node(leader)
                .and_then(|c| c.receive::<FetchRequest>())
            {
                Ok(r) => r,
                Err(e) if e.is_retriable() => {
                    self.cluster.drop_connection(leader);
                    self.leaders.retain(|_, l| *l != leader);
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if let Some(e) = KafkaError::from_code(response.error_code, None) {
                return Err(NetError::from(e).into());
            }
            for topic in response.responses {
                for p in topic.partitions {
                    let tp = TopicPartition::new(topic.topic.0.as_str(), p.partition_index);
                    if let Some(e) = KafkaError::from_code(p.error_code, None) {
                        if e.is_metadata_retriable() {
                            self.leaders.remove(&tp);
                            continue;
                        }
                        return Err(NetError::from(e).into());
                    }
                    let Some(records) = p.records else { continue };
                    self.take(&tp, &records)?;
                }
            }
        }
        Ok(())
    }

    /// Sends one Fetch per leader for every partition from its position, waiting up to `wait`
    /// for data, without reading the answers ([`Self::fetch`] reads them). A partition whose
    /// leader moved or is not known is looked up first.
    fn send(&mut self, wait: Duration) -> Result<(), ConsumeError> {
        if self.leaders.len() < self.partitions.len() {
            let mut topics: Vec<&str> = self.partitions.keys().map(TopicPartition::topic).collect();
            topics.dedup();
            let found = self
                .cluster
                .with_retries(|c| c.leaders(&topics, false, "fetch"))?;
            self.leaders = found
                .into_iter()
                .filter_map(|(tp, leader)| Some((tp, leader?)))
                .collect();
        }
        let mut by_leader: BTreeMap<i32, ByTopic<'_>> = BTreeMap::new();
        for (tp, position) in &self.partitions {
            if let Some(leader) = self.leaders.get(tp) {
                by_leader
                    .entry(*leader)
                    .or_default()
                    .entry(tp.topic())
                    .or_default()
                    .push((tp.partition, position.next));
            }
        }
        let requests: Vec<(i32, FetchRequest)> = by_leader
            .into_iter()
            .map(|(leader, topics)| (leader, self.request(&topics, wait)))
            .collect();
        for (leader, request) in requests {
            match self.cluster.node(leader).and_then(|c| c.send(&request)) {
                Ok(()) => self.in_flight.push(leader),
                Err(e) if e.is_retriable() => {
                    self.cluster.drop_connection(leader);
                    self.leaders.retain(|_, l| *l != leader);
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    fn request(&self, topics: &ByTopic<'_>, wait: Duration) -> FetchRequest {
        FetchRequest::default()
            .with_replica_id(BrokerId(-1))
            .with_max_wait_ms(i32::try_from(wait.as_millis()).unwrap_or(i32::MAX))
            .with_min_bytes(1)
            .with_max_bytes(MAX_BYTES)
            .with_isolation_level(self.isolation)
            .with_session_id(0)
            .with_session_epoch(-1)
            .with_topics(
                topics
                    .iter()
                    .map(|(name, partitions)| {
                        FetchTopic::default()
                            .with_topic(TopicName(StrBytes::from_string((*name).to_string())))
                            .with_partitions(
                                partitions
                                    .iter()
                                    .map(|(p, offset)| {
                                        FetchPartition::default()
                                            .with_partition(*p)
                                            .with_current_leader_epoch(-1)
                                            .with_fetch_offset(*offset)
                                            .with_last_fetched_epoch(-1)
                                            .with_log_start_offset(-1)
                                            .with_partition_max_bytes(PARTITION_MAX_BYTES)
                                    })
                                    .collect(),
                            )
                    })
                    .collect(),
            )
    }

    /// Buffers the whole batches of a partition's answer that reach past its position (a
    /// batch the size limit cut is asked for again by the next fetch), each checked against
    /// its CRC with `check.crcs`, as Kafka's consumer checks them.
    fn take(&mut self, tp: &TopicPartition, records: &[u8]) -> Result<(), ConsumeError> {
        let check_crcs = self.check_crcs;
        let Some(position) = self.partitions.get_mut(tp) else {
            return Ok(());
        };
        let mut at = 0;
        loop {
            let batch = match RawBatch::read_at(records, at) {
                Ok(Some(batch)) => batch,
                Ok(None) => break,
                Err(source) => {
                    return Err(ConsumeError::Record {
                        partition: tp.to_string(),
                        offset: position.next,
                        source,
                    })
                }
            };
            at += batch.size_in_bytes();
            if batch.next_offset() <= position.next {
                continue;
            }
            if check_crcs && !batch.is_valid() {
                return Err(ConsumeError::Corrupt {
                    partition: tp.to_string(),
                    offset: batch.base_offset(),
                    cause: format!(
                        "Record is corrupt (stored crc = {}, computed crc = {})",
                        batch.checksum(),
                        batch.compute_checksum()
                    ),
                });
            }
            position.next = batch.next_offset();
            position.buffered.push_back(batch.as_bytes().to_vec());
        }
        Ok(())
    }
}
