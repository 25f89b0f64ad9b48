//! Choosing a record's partition: the [`Partitioner`] trait (Kafka's
//! `org.apache.kafka.clients.producer.Partitioner`) and the built-in strategies
//! (`kafka-cli-surface.md` §3.2, §3.3).
//!
//! The producer asks [`Partitioner::partition`] for every record that has no explicit
//! partition. When the record does not fit the open batch of the partition chosen, the producer
//! seals that batch, calls [`Partitioner::on_new_batch`] and asks again, as Kafka's
//! `RecordAccumulator` does with `abortOnNewBatch`: this is where sticky partitioners move on.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::murmur2::{partition_for_key, to_positive};

/// A record as a partitioner sees it.
#[derive(Debug, Clone, Copy)]
pub struct RecordRef<'a> {
    /// The topic.
    pub topic: &'a str,
    /// The key bytes, `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// The value bytes, `None` for a null value.
    pub value: Option<&'a [u8]>,
}

/// Chooses partitions for records (Kafka's `Partitioner` interface).
///
/// Implement it to plug in your own strategy; see `examples/` for the custom partitioners of
/// the classic Kafka tutorials.
pub trait Partitioner {
    /// The partition for `record`, in `0..partitions`. A value outside that range makes the
    /// producer fail with Kafka's message (`The partitioner generated an invalid partition
    /// number: <n>. ...`).
    fn partition(&mut self, record: &RecordRef<'_>, partitions: i32) -> i32;

    /// The batch of `previous` was sealed because the next record did not fit; a new batch
    /// starts. Sticky partitioners switch partitions here (Kafka's `onNewBatch`). For a
    /// partitioner that is [`Self::sticky_for_unkeyed`], it is also called when the batches
    /// of `previous` that `linger.ms` sent before they were full add up to `batch.size` (Kafka's
    /// built-in partitioner moves on after `batch.size` bytes, full batches or not).
    fn on_new_batch(&mut self, _topic: &str, _partitions: i32, _previous: i32) {}

    /// Whether [`Self::partition`] answers an unkeyed record with the partition it gave the
    /// previous one, until [`Self::on_new_batch`] (a sticky partitioner, as Kafka's built-in
    /// one): the producer then fills a batch with unkeyed records without asking for each.
    fn sticky_for_unkeyed(&self) -> bool {
        false
    }
}

impl<P: Partitioner + ?Sized> Partitioner for Box<P> {
    fn partition(&mut self, record: &RecordRef<'_>, partitions: i32) -> i32 {
        (**self).partition(record, partitions)
    }

    fn on_new_batch(&mut self, topic: &str, partitions: i32, previous: i32) {
        (**self).on_new_batch(topic, partitions, previous);
    }

    fn sticky_for_unkeyed(&self) -> bool {
        (**self).sticky_for_unkeyed()
    }
}

/// The random numbers partitioners draw: seeded for reproducible runs, else from the OS.
fn rng(seed: Option<u64>) -> StdRng {
    match seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => rand::make_rng(),
    }
}

/// Kafka's `toPositive(ThreadLocalRandom.nextInt()) % partitions`.
fn random_partition(rng: &mut StdRng, partitions: i32) -> i32 {
    if partitions <= 0 {
        return 0;
    }
    to_positive(rng.random::<i32>()) % partitions
}

/// The Java producer's default since Kafka 3.3 (KIP-794): keyed records go to
/// `toPositive(murmur2(key)) % partitions`; unkeyed records stick to one randomly chosen
/// partition until its batch is sealed, then a new random partition is drawn (which may be the
/// same one, as in Kafka's `BuiltInPartitioner.nextPartition`).
#[derive(Debug)]
pub struct BuiltInPartitioner {
    rng: StdRng,
    sticky: Option<i32>,
}

impl BuiltInPartitioner {
    /// A built-in partitioner; `seed` makes the sticky choices reproducible.
    pub fn new(seed: Option<u64>) -> Self {
        Self {
            rng: rng(seed),
            sticky: None,
        }
    }
}

impl Partitioner for BuiltInPartitioner {
    fn partition(&mut self, record: &RecordRef<'_>, partitions: i32) -> i32 {
        if let Some(key) = record.key {
            return partition_for_key(key, partitions);
        }
        match self.sticky {
            Some(p) if p < partitions => p,
            _ => {
                let p = random_partition(&mut self.rng, partitions);
                self.sticky = Some(p);
                p
            }
        }
    }

    fn on_new_batch(&mut self, _topic: &str, partitions: i32, previous: i32) {
        if self.sticky == Some(previous) {
            self.sticky = Some(random_partition(&mut self.rng, partitions));
        }
    }

    fn sticky_for_unkeyed(&self) -> bool {
        true
    }
}

/// Kafka's `RoundRobinPartitioner` as intended (strict rotation, keys ignored): a counter
/// starting at 0, `toPositive(counter++) % partitions`.
///
/// The producer asks again after sealing a full batch; answering that second question with the
/// same partition is Kafka's fix (KAFKA-17632) for releases up to 3.9.0, which skip partitions.
#[derive(Debug, Default)]
pub struct RoundRobinPartitioner {
    counter: i32,
    repeat: Option<i32>,
}

impl RoundRobinPartitioner {
    /// A rotation starting at partition 0.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Partitioner for RoundRobinPartitioner {
    fn partition(&mut self, _record: &RecordRef<'_>, partitions: i32) -> i32 {
        if let Some(p) = self.repeat.take().filter(|p| *p < partitions) {
            return p;
        }
        let n = self.counter;
        self.counter = self.counter.wrapping_add(1);
        if partitions <= 0 {
            return 0;
        }
        to_positive(n) % partitions
    }

    fn on_new_batch(&mut self, _topic: &str, _partitions: i32, previous: i32) {
        self.repeat = Some(previous);
    }
}

/// A uniformly random partition for every record, keys ignored (the random strategy of the
/// classic tutorials).
#[derive(Debug)]
pub struct RandomPartitioner {
    rng: StdRng,
}

impl RandomPartitioner {
    /// A random partitioner; `seed` makes it reproducible.
    pub fn new(seed: Option<u64>) -> Self {
        Self { rng: rng(seed) }
    }
}

impl Partitioner for RandomPartitioner {
    fn partition(&mut self, _record: &RecordRef<'_>, partitions: i32) -> i32 {
        random_partition(&mut self.rng, partitions)
    }
}

/// Kafka's `DefaultPartitioner` before 2.4: keyed records by murmur2, unkeyed records rotate
/// per record (`toPositive(counter++) % partitions`).
#[derive(Debug, Default)]
pub struct Murmur2Partitioner {
    round_robin: RoundRobinPartitioner,
}

impl Murmur2Partitioner {
    /// A murmur2 partitioner.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Partitioner for Murmur2Partitioner {
    fn partition(&mut self, record: &RecordRef<'_>, partitions: i32) -> i32 {
        match record.key {
            Some(key) => partition_for_key(key, partitions),
            None => self.round_robin.partition(record, partitions),
        }
    }

    fn on_new_batch(&mut self, topic: &str, partitions: i32, previous: i32) {
        self.round_robin.on_new_batch(topic, partitions, previous);
    }
}

/// The built-in strategies by name, for `--partitioner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PartitionerKind {
    /// Keyed: murmur2; unkeyed: uniform sticky (Kafka 3.3+ default).
    #[default]
    Default,
    /// Strict rotation over the partitions, keys ignored.
    RoundRobin,
    /// A random partition per record, keys ignored.
    Random,
    /// Keyed: murmur2; unkeyed: rotation per record (Kafka before 2.4).
    Murmur2,
}

impl PartitionerKind {
    /// A fresh partitioner of this kind.
    pub fn build(self, seed: Option<u64>) -> Box<dyn Partitioner> {
        match self {
            PartitionerKind::Default => Box::new(BuiltInPartitioner::new(seed)),
            PartitionerKind::RoundRobin => Box::new(RoundRobinPartitioner::new()),
            PartitionerKind::Random => Box::new(RandomPartitioner::new(seed)),
            PartitionerKind::Murmur2 => Box::new(Murmur2Partitioner::new()),
        }
    }
}
