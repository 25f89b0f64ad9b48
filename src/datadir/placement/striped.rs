//! Kafka's KRaft `StripedReplicaPlacer` (`kafka-cli-surface.md` §2.2), the controller's
//! placement for CreateTopics and CreatePartitions: racks striped round-robin, each rack's
//! brokers in turn from a random offset, fenced brokers only as followers and only when a
//! rack has no unfenced broker left in the round. A port of
//! `metadata/src/main/java/org/apache/kafka/metadata/placement/StripedReplicaPlacer.java`,
//! draw for draw on the same `java.util.Random`, so that Kafka's `MockRandom` gives Kafka's
//! test answers (`vectors/cli/replica_placement_striped.json`, every case replayed by the
//! tests).

use super::PlacementError;
use crate::assign::java::{capacity_after, compare_strings, hash_order, string_hash};
pub use crate::java::{shuffle, JavaRandom, MockRandom, Random};

/// A broker the controller may place on (`UsableBroker`): registered, not in controlled
/// shutdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsableBroker {
    /// The broker id.
    pub id: i32,
    /// Its rack, if any.
    pub rack: Option<String>,
    /// Fenced: placed only as a follower.
    pub fenced: bool,
}

/// `BrokerList`: a rack's unfenced or fenced brokers, walked from an offset once per epoch.
#[derive(Debug, Default)]
struct BrokerList {
    brokers: Vec<i32>,
    /// How many were handed out in the current epoch.
    index: usize,
    offset: usize,
    epoch: u64,
}

impl BrokerList {
    /// Sorted, and a random start offset when not empty.
    fn initialize<R: JavaRandom + ?Sized>(&mut self, random: &mut R) {
        if !self.brokers.is_empty() {
            self.brokers.sort_unstable();
            self.offset = random.next_index(self.brokers.len());
        }
    }

    /// The next broker of this epoch; a new epoch restarts the walk one further on.
    fn next(&mut self, epoch: u64) -> Option<i32> {
        let size = self.brokers.len();
        if size == 0 {
            return None;
        }
        if self.epoch != epoch {
            self.epoch = epoch;
            self.index = 0;
            self.offset = (self.offset + 1) % size;
        }
        if self.index >= size {
            return None;
        }
        let broker = self.brokers.get((self.index + self.offset) % size).copied();
        self.index += 1;
        broker
    }
}

/// `Rack`: its fenced and unfenced brokers.
#[derive(Debug, Default)]
struct Rack {
    name: Option<String>,
    fenced: BrokerList,
    unfenced: BrokerList,
}

impl Rack {
    /// `next`: an unfenced broker, else a fenced one.
    fn next(&mut self, epoch: u64) -> Option<i32> {
        self.unfenced
            .next(epoch)
            .or_else(|| self.fenced.next(epoch))
    }
}

/// `RackList`: the state of one `place` call, kept across its partitions (and, in Kafka's
/// tests, across calls).
#[derive(Debug)]
pub struct RackList<'r, R: JavaRandom + ?Sized> {
    random: &'r mut R,
    /// In `HashMap<Optional<String>, Rack>` iteration order, which decides the order of draws.
    racks: Vec<Rack>,
    /// Indices into `racks`, by rack name (no rack first).
    rack_names: Vec<usize>,
    total: usize,
    unfenced: usize,
    epoch: u64,
    offset: usize,
}

impl<'r, R: JavaRandom + ?Sized> RackList<'r, R> {
    /// Groups `brokers` (in the order the controller iterates them) by rack, initialises each
    /// rack's fenced then unfenced list in the rack map's iteration order, then draws the first
    /// rack.
    pub fn new(random: &'r mut R, brokers: &[UsableBroker]) -> Self {
        let mut racks: Vec<Rack> = Vec::new();
        for broker in brokers {
            let at = match racks.iter().position(|r| r.name == broker.rack) {
                Some(at) => at,
                None => {
                    racks.push(Rack {
                        name: broker.rack.clone(),
                        ..Rack::default()
                    });
                    racks.len() - 1
                }
            };
            if let Some(rack) = racks.get_mut(at) {
                let list = if broker.fenced {
                    &mut rack.fenced
                } else {
                    &mut rack.unfenced
                };
                list.brokers.push(broker.id);
            }
        }
        // Optional.hashCode: the string's, 0 when empty.
        let hashes: Vec<i32> = racks
            .iter()
            .map(|r| r.name.as_deref().map_or(0, string_hash))
            .collect();
        let mut slots: Vec<Option<Rack>> = racks.into_iter().map(Some).collect();
        let racks: Vec<Rack> = hash_order(&hashes, capacity_after(16, slots.len()))
            .into_iter()
            .filter_map(|i| slots.get_mut(i).and_then(Option::take))
            .collect();
        let mut list = Self {
            random,
            total: brokers.len(),
            unfenced: brokers.iter().filter(|b| !b.fenced).count(),
            rack_names: (0..racks.len()).collect(),
            racks,
            epoch: 0,
            offset: 0,
        };
        for rack in &mut list.racks {
            rack.fenced.initialize(list.random);
            rack.unfenced.initialize(list.random);
        }
        let racks = &list.racks;
        list.rack_names.sort_by(|&a, &b| {
            let name = |i: usize| racks.get(i).and_then(|r| r.name.as_deref());
            match (name(a), name(b)) {
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
                (Some(x), Some(y)) => compare_strings(x, y),
            }
        });
        if !list.rack_names.is_empty() {
            list.offset = list.random.next_index(list.rack_names.len());
        }
        list
    }

    fn rack(&mut self, name_index: usize) -> Option<&mut Rack> {
        let at = *self.rack_names.get(name_index)?;
        self.racks.get_mut(at)
    }

    /// `RackList.place`: the replicas of the next partition, leader first.
    pub fn place(&mut self, replication_factor: i32) -> Result<Vec<i32>, PlacementError> {
        check_positive(replication_factor)?;
        check_enough(replication_factor, self.total)?;
        check_unfenced(self.unfenced)?;
        let n = self.rack_names.len();
        // After as many partitions as unfenced brokers, reshuffle so as not to repeat them.
        if u64::try_from(self.unfenced).unwrap_or(u64::MAX) == self.epoch && self.unfenced > 1 {
            shuffle(&mut self.rack_names, self.random);
            for rack in &mut self.racks {
                shuffle(&mut rack.fenced.brokers, self.random);
                shuffle(&mut rack.unfenced.brokers, self.random);
            }
            self.epoch = 0;
        }
        if self.offset == n {
            self.offset = 0;
        }
        let epoch = self.epoch;
        let rf = usize::try_from(replication_factor).unwrap_or(0);
        let mut replicas = Vec::with_capacity(rf);
        // Every round of the racks hands out at least one broker while any is left, so a
        // walk longer than (brokers + 1) rounds cannot happen; it is bounded rather than trusted.
        let bound = (self.total + 1) * n.max(1);
        let mut leader_rack = self.offset;
        let mut leader = None;
        for _ in 0..bound {
            if let Some(id) = self.rack(leader_rack).and_then(|r| r.unfenced.next(epoch)) {
                leader = Some(id);
                break;
            }
            leader_rack = (leader_rack + 1) % n;
        }
        replicas.push(leader.ok_or_else(exhausted)?);
        let mut first_rack = Some(leader_rack);
        let mut rack_index = self.offset;
        for _ in 1..rf {
            let mut found = None;
            for _ in 0..bound {
                if first_rack == Some(rack_index) {
                    // The leader's rack is skipped the first time the walk reaches it.
                    first_rack = None;
                } else {
                    found = self.rack(rack_index).and_then(|r| r.next(epoch));
                }
                rack_index = (rack_index + 1) % n;
                if found.is_some() {
                    break;
                }
            }
            replicas.push(found.ok_or_else(exhausted)?);
        }
        self.epoch += 1;
        self.offset += 1;
        Ok(replicas)
    }
}

fn exhausted() -> PlacementError {
    PlacementError::InvalidReplicationFactor(
        "No broker is left to place a replica on in this round of the racks.".into(),
    )
}

fn check_positive(rf: i32) -> Result<(), PlacementError> {
    if rf <= 0 {
        return Err(PlacementError::InvalidReplicationFactor(format!(
            "Invalid replication factor {rf}: the replication factor must be positive."
        )));
    }
    Ok(())
}

fn check_unfenced(unfenced: usize) -> Result<(), PlacementError> {
    if unfenced == 0 {
        return Err(PlacementError::InvalidReplicationFactor(
            "All brokers are currently fenced.".into(),
        ));
    }
    Ok(())
}

fn check_enough(rf: i32, total: usize) -> Result<(), PlacementError> {
    if usize::try_from(rf).unwrap_or(usize::MAX) > total {
        return Err(PlacementError::InvalidReplicationFactor(format!(
            "The target replication factor of {rf} cannot be reached because only {total} broker(s) are registered."
        )));
    }
    Ok(())
}

/// `StripedReplicaPlacer.place`: `partitions` partitions of `replication_factor` replicas on
/// `brokers` (in the controller's iteration order), drawing from `random`. Kafka's messages
/// (`InvalidReplicationFactorException`), checked in Kafka's order.
pub fn place<R: JavaRandom + ?Sized>(
    random: &mut R,
    brokers: &[UsableBroker],
    partitions: usize,
    replication_factor: i32,
) -> Result<Vec<Vec<i32>>, PlacementError> {
    let mut racks = RackList::new(random, brokers);
    check_positive(replication_factor)?;
    check_unfenced(racks.unfenced)?;
    check_enough(replication_factor, racks.total)?;
    (0..partitions)
        .map(|_| racks.place(replication_factor))
        .collect()
}
