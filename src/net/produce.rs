//! Produce requests: record batches built by kafkit's own producer (`client::producer`, the
//! same accumulator, codecs and partitioners as for a data directory) sent to each
//! partition's leader, with `acks`, and idempotence (InitProducerId, then a producer id,
//! epoch and per-partition sequence numbers set in each batch before it is first sent), up to
//! `max.in.flight.requests.per.connection` requests in flight on each leader's connection.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{InitProducerIdRequest, ProduceRequest, ProducerId, TopicName};
use kafka_protocol::protocol::StrBytes;

use crate::record::{increment_sequence, set_producer_state, BuiltBatch};

use super::cluster::Cluster;
use super::errors::KafkaError;
use super::NetError;

/// Where a batch went: its base offset and the broker's append time (-1: CreateTime), or
/// -1 and -1 with `acks=0`, which has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    /// The offset of the batch's first record.
    pub base_offset: i64,
    /// `LogAppendTime` topics: the broker's time, else -1.
    pub log_append_time: i64,
}

/// Kafka's `max.in.flight.requests.per.connection` default (and the most an idempotent
/// producer may have).
pub const DEFAULT_MAX_IN_FLIGHT: usize = 5;

/// A topic's partitions as a producer writes them over the network.
#[derive(Debug)]
pub struct ClusterSink {
    cluster: Cluster,
    topic: String,
    partitions: i32,
    acks: i16,
    /// `(producer id, epoch)` once InitProducerId answered (`enable.idempotence`).
    producer: Option<(i64, i16)>,
    /// The next sequence number of each partition.
    sequences: BTreeMap<i32, i32>,
    leaders: BTreeMap<i32, i32>,
    /// `max.in.flight.requests.per.connection`.
    max_in_flight: usize,
    /// Groups submitted and not completed, the oldest first; its number is `first`.
    groups: VecDeque<Group>,
    first: u64,
    /// Requests sent and not answered, in the order sent.
    flights: VecDeque<Flight>,
}

impl ClusterSink {
    /// Looks `topic` up (the broker may create it, as Kafka's `auto.create.topics.enable`
    /// does), waiting up to `max.block.ms` for it and its leaders (Kafka's `Topic <t> not
    /// present in metadata after <n> ms.`), and with `idempotent` asks for a producer id.
    pub fn open(
        mut cluster: Cluster,
        topic: &str,
        acks: i16,
        idempotent: bool,
    ) -> Result<Self, NetError> {
        let deadline = Instant::now() + cluster.config().api_timeout;
        let mut attempt = 0;
        let absent = |cluster: &Cluster| {
            format!(
                "Topic {topic} not present in metadata after {} ms.",
                cluster.config().api_timeout.as_millis()
            )
        };
        let leaders = loop {
            let found = match cluster.with_retries(|c| c.leaders(&[topic], true, "produce")) {
                Ok(found) => found,
                // Kafka's producer says what it waited for, whatever kept it waiting.
                Err(NetError::Timeout { unreachable, .. }) => {
                    return Err(NetError::Timeout {
                        message: absent(&cluster),
                        unreachable,
                    })
                }
                Err(e) => return Err(e),
            };
            let leaders: BTreeMap<i32, i32> = found
                .iter()
                .filter_map(|(tp, leader)| Some((tp.partition, (*leader)?)))
                .collect();
            if !found.is_empty() && leaders.len() == found.len() {
                break leaders;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout {
                    message: absent(&cluster),
                    unreachable: None,
                });
            }
            std::thread::sleep(cluster.config().backoff(attempt).min(left));
            attempt += 1;
        };
        let producer = if idempotent {
            let timeout =
                i32::try_from(cluster.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
            let request = InitProducerIdRequest::default()
                .with_transaction_timeout_ms(timeout)
                .with_producer_id(ProducerId(-1))
                .with_producer_epoch(-1);
            let response = cluster.with_retries(|c| c.any("initProducerId")?.call(&request))?;
            if let Some(e) = KafkaError::from_code(response.error_code, None) {
                return Err(e.into());
            }
            Some((response.producer_id.0, response.producer_epoch))
        } else {
            None
        };
        Ok(ClusterSink {
            cluster,
            topic: topic.to_string(),
            partitions: i32::try_from(leaders.len()).unwrap_or(i32::MAX),
            acks,
            producer,
            sequences: BTreeMap::new(),
            leaders,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            groups: VecDeque::new(),
            first: 0,
            flights: VecDeque::new(),
        })
    }

    /// Sets `max.in.flight.requests.per.connection` (at least 1): how many Produce requests
    /// may wait for their answers on one connection.
    pub fn with_max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// The topic's partition count.
    pub fn partitions(&self) -> i32 {
        self.partitions
    }

    /// Sets the producer state of a batch about to be sent for the first time (idempotence),
    /// and counts its records into the partition's sequence.
    fn stamp(&mut self, partition: i32, batch: &mut BuiltBatch) -> Result<(), NetError> {
        let Some((pid, epoch)) = self.producer else {
            return Ok(());
        };
        let next = self.sequences.entry(partition).or_insert(0);
        let records = batch.records_count();
        set_producer_state(batch.as_mut_bytes(), pid, epoch, *next).map_err(|e| {
            NetError::Encode {
                api: "Produce",
                message: e.to_string(),
            }
        })?;
        *next = increment_sequence(*next, records);
        Ok(())
    }

    /// Sends `batches` (partition, batch; a partition's in order) as one group: each
    /// partition's batches to its leader, in Produce requests of one batch a partition (as
    /// Kafka's brokers require from v3 on), the k-th batch of each partition of a leader in
    /// its k-th request. Up to `max.in.flight.requests.per.connection` requests wait for their
    /// answers on each connection (the oldest is read when a connection has no room); the
    /// group's outcomes come from [`Self::complete`], groups in the order submitted.
    /// With idempotence each batch gets its sequence numbers here, once.
    pub fn submit(&mut self, mut batches: Vec<(i32, BuiltBatch)>) -> Result<(), NetError> {
        for (partition, batch) in batches.iter_mut() {
            self.stamp(*partition, batch)?;
        }
        let number = self.first + self.groups.len() as u64;
        let all: Vec<(u64, usize)> = (0..batches.len()).map(|i| (number, i)).collect();
        self.groups.push_back(Group {
            outcomes: vec![None; batches.len()],
            batches,
            started: Instant::now(),
        });
        // A batch whose leader is not known stays unanswered: `complete` retries it.
        for (leader, refs) in self.rounds(&all) {
            while self.flights.iter().filter(|f| f.leader == leader).count() >= self.max_in_flight {
                self.receive_oldest()?;
            }
            self.dispatch(leader, refs)?;
        }
        Ok(())
    }

    /// Groups submitted and not completed yet.
    pub fn in_flight(&self) -> usize {
        self.groups.len()
    }

    /// The outcomes of the oldest group submitted, waiting for its answers: each batch with
    /// its outcome, in the order given; `None` when no group waits. A batch whose leader
    /// moved, is not known yet or whose connection broke is sent again after a metadata
    /// refresh, and with it every later batch of its partition in flight (the broker refuses
    /// those as out of order): partition by partition in sequence order, keeping their
    /// sequence numbers so that the broker drops a duplicate, until `default.api.timeout.ms`;
    /// what was never answered then expires, with Kafka's message.
    pub fn complete(&mut self) -> Result<Option<Answered>, NetError> {
        let first = self.first;
        if self.groups.is_empty() {
            return Ok(None);
        }
        while self
            .flights
            .front()
            .is_some_and(|f| f.refs.iter().any(|(g, _)| *g == first))
        {
            self.receive_oldest()?;
        }
        let unsettled = self
            .groups
            .front()
            .is_some_and(|g| g.outcomes.iter().any(|o| !settled(o)));
        if unsettled {
            self.recover()?;
        }
        let Some(group) = self.groups.pop_front() else {
            return Ok(None);
        };
        self.first += 1;
        let waited = group.started.elapsed().as_millis();
        Ok(Some(
            group
                .batches
                .into_iter()
                .zip(group.outcomes)
                .map(|((partition, batch), outcome)| {
                    let outcome = match outcome {
                        Some(Ok(appended)) => Ok(appended),
                        Some(Err(e)) if !e.is_metadata_retriable() => Err(e),
                        _ => Err(KafkaError {
                            code: 7,
                            message: Some(format!(
                                "Expiring {} record(s) for {}-{partition}:{waited} ms has passed since batch creation",
                                batch.records_count(),
                                self.topic
                            )),
                        }),
                    };
                    (partition, batch, outcome)
                })
                .collect(),
        ))
    }

    /// The requests for the batches `refs` (a partition's in order): by leader, one batch a
    /// partition a request, round after round. Batches without a known leader are left out.
    fn rounds(&self, refs: &[(u64, usize)]) -> Vec<(i32, Vec<(u64, usize)>)> {
        let mut by_leader: BTreeMap<i32, Vec<Vec<(u64, usize)>>> = BTreeMap::new();
        let mut seen: BTreeMap<i32, usize> = BTreeMap::new();
        for r in refs {
            let Some(partition) = self.batch(*r).map(|(p, _)| *p) else {
                continue;
            };
            let Some(leader) = self.leaders.get(&partition) else {
                continue;
            };
            let round = seen.entry(partition).or_insert(0);
            let requests = by_leader.entry(*leader).or_default();
            if requests.len() <= *round {
                requests.resize_with(*round + 1, Vec::new);
            }
            if let Some(request) = requests.get_mut(*round) {
                request.push(*r);
            }
            *round += 1;
        }
        // Round after round, so that the leaders' connections fill evenly.
        let rounds = by_leader.values().map(Vec::len).max().unwrap_or(0);
        let mut requests = Vec::new();
        for round in 0..rounds {
            for (leader, of_leader) in &mut by_leader {
                if let Some(request) = of_leader.get_mut(round) {
                    requests.push((*leader, std::mem::take(request)));
                }
            }
        }
        requests
    }

    fn batch(&self, (group, index): (u64, usize)) -> Option<&(i32, BuiltBatch)> {
        let g = usize::try_from(group.checked_sub(self.first)?).ok()?;
        self.groups.get(g)?.batches.get(index)
    }

    fn outcome_mut(
        &mut self,
        (group, index): (u64, usize),
    ) -> Option<&mut Option<Result<Appended, KafkaError>>> {
        let g = usize::try_from(group.checked_sub(self.first)?).ok()?;
        self.groups.get_mut(g)?.outcomes.get_mut(index)
    }

    /// Sends one Produce request for `refs` to `leader` (with `acks=0` nothing is awaited and
    /// each batch is answered at once). A connection that breaks leaves its batches, and
    /// those of every request waiting on it, unanswered.
    fn dispatch(&mut self, leader: i32, refs: Vec<(u64, usize)>) -> Result<(), NetError> {
        let timeout =
            i32::try_from(self.cluster.config().request_timeout.as_millis()).unwrap_or(i32::MAX);
        let partitions = refs
            .iter()
            .filter_map(|r| self.batch(*r))
            .map(|(p, batch)| {
                PartitionProduceData::default()
                    .with_index(*p)
                    .with_records(Some(Bytes::copy_from_slice(batch.as_bytes())))
            })
            .collect();
        let request = ProduceRequest::default()
            .with_acks(self.acks)
            .with_timeout_ms(timeout)
            .with_topic_data(vec![TopicProduceData::default()
                .with_name(TopicName(StrBytes::from_string(self.topic.clone())))
                .with_partition_data(partitions)]);
        let acks = self.acks;
        let sent = self.cluster.node(leader).and_then(|conn| {
            if acks == 0 {
                conn.send_oneway(&request)
            } else {
                conn.send(&request)
            }
        });
        match sent {
            Ok(()) if acks == 0 => {
                for r in refs {
                    if let Some(slot) = self.outcome_mut(r) {
                        *slot = Some(Ok(Appended {
                            base_offset: -1,
                            log_append_time: -1,
                        }));
                    }
                }
            }
            Ok(()) => self.flights.push_back(Flight { leader, refs }),
            Err(e) if e.is_retriable() => self.lost(leader),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Reads the answer to the oldest request in flight into its batches' outcomes.
    fn receive_oldest(&mut self) -> Result<(), NetError> {
        let Some(flight) = self.flights.pop_front() else {
            return Ok(());
        };
        let response = match self
            .cluster
            .node(flight.leader)
            .and_then(|c| c.receive::<ProduceRequest>())
        {
            Ok(response) => response,
            Err(e) if e.is_retriable() => {
                self.lost(flight.leader);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let mut answers: BTreeMap<i32, Result<Appended, KafkaError>> = BTreeMap::new();
        for topic in response.responses {
            for p in topic.partition_responses {
                let answer = match KafkaError::from_code(
                    p.error_code,
                    p.error_message.as_ref().map(StrBytes::as_str),
                ) {
                    Some(e) => Err(e),
                    None => Ok(Appended {
                        base_offset: p.base_offset,
                        log_append_time: p.log_append_time_ms,
                    }),
                };
                answers.insert(p.index, answer);
            }
        }
        for r in flight.refs {
            let Some(partition) = self.batch(r).map(|(p, _)| *p) else {
                continue;
            };
            let answer = answers.remove(&partition).unwrap_or(Err(KafkaError {
                code: -1,
                message: None,
            }));
            if let Some(slot) = self.outcome_mut(r) {
                *slot = Some(answer);
            }
        }
        Ok(())
    }

    /// `leader`'s connection broke: it is closed, and the requests waiting on it stay
    /// unanswered.
    fn lost(&mut self, leader: i32) {
        self.cluster.drop_connection(leader);
        self.flights.retain(|f| f.leader != leader);
    }

    /// Settles every group in flight after a batch was not answered or answered with a
    /// retriable error: the answers still on their way are read, then the batches to send
    /// again (the unanswered, those refused for a moved or unknown leader, and those a
    /// broker refused as out of order behind one of them) go again, one batch a partition a
    /// request, in sequence order, after a metadata refresh and a backoff whenever a round
    /// did not settle them all.
    fn recover(&mut self) -> Result<(), NetError> {
        while !self.flights.is_empty() {
            self.receive_oldest()?;
        }
        let mut behind: BTreeSet<i32> = BTreeSet::new();
        for group in &mut self.groups {
            for ((partition, _), outcome) in group.batches.iter().zip(group.outcomes.iter_mut()) {
                let out_of_order =
                    matches!(outcome, Some(Err(e)) if e.code == OUT_OF_ORDER_SEQUENCE);
                if !settled(outcome) || (out_of_order && behind.contains(partition)) {
                    *outcome = None;
                    behind.insert(*partition);
                }
            }
        }
        let started = self.groups.front().map_or_else(Instant::now, |g| g.started);
        let deadline = started + self.cluster.config().api_timeout;
        let mut attempt = 0;
        loop {
            // Each partition's first batch not settled, in group order.
            let mut firsts: BTreeMap<i32, (u64, usize)> = BTreeMap::new();
            let mut unknown = false;
            for (g, group) in (self.first..).zip(&self.groups) {
                for (i, ((partition, _), outcome)) in
                    group.batches.iter().zip(&group.outcomes).enumerate()
                {
                    if !settled(outcome) {
                        firsts.entry(*partition).or_insert((g, i));
                        unknown |= !self.leaders.contains_key(partition);
                    }
                }
            }
            if firsts.is_empty() {
                return Ok(());
            }
            let refs: Vec<(u64, usize)> = firsts.into_values().collect();
            for (leader, refs) in self.rounds(&refs) {
                self.dispatch(leader, refs)?;
                self.receive_oldest()?;
            }
            let failed = unknown
                || refs
                    .iter()
                    .any(|r| self.outcome_ref(*r).is_some_and(|o| !settled(o)));
            if !failed {
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(self.cluster.config().backoff(attempt).min(left));
            attempt += 1;
            let topic = self.topic.clone();
            match self
                .cluster
                .with_retries(|c| c.leaders(&[topic.as_str()], false, "produce"))
            {
                Ok(found) => {
                    self.leaders = found
                        .iter()
                        .filter_map(|(tp, leader)| Some((tp.partition, (*leader)?)))
                        .collect();
                }
                // No broker answers: what is not acknowledged expires, as in Kafka's producer.
                Err(NetError::Timeout { .. }) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }

    fn outcome_ref(
        &self,
        (group, index): (u64, usize),
    ) -> Option<&Option<Result<Appended, KafkaError>>> {
        let g = usize::try_from(group.checked_sub(self.first)?).ok()?;
        self.groups.get(g)?.outcomes.get(index)
    }
}

/// `OUT_OF_ORDER_SEQUENCE_NUMBER`: a batch's sequence is not the next the broker expects.
const OUT_OF_ORDER_SEQUENCE: i16 = 45;

/// Whether an outcome is final: answered, and not with an error a metadata refresh may cure.
fn settled(outcome: &Option<Result<Appended, KafkaError>>) -> bool {
    match outcome {
        None => false,
        Some(Ok(_)) => true,
        Some(Err(e)) => !e.is_metadata_retriable(),
    }
}

/// What a group of batches came to: each batch and its outcome, in the order submitted.
pub type Answered = Vec<(i32, BuiltBatch, Result<Appended, KafkaError>)>;

/// A group of batches given to [`ClusterSink::submit`]; its outcomes fill in as the brokers
/// answer.
#[derive(Debug)]
struct Group {
    batches: Vec<(i32, BuiltBatch)>,
    outcomes: Vec<Option<Result<Appended, KafkaError>>>,
    started: Instant,
}

/// A Produce request sent and not answered yet: its leader, and its batches (group number,
/// index in the group).
#[derive(Debug)]
struct Flight {
    leader: i32,
    refs: Vec<(u64, usize)>,
}
