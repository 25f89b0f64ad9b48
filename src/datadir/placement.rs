//! Replica placement: Kafka's classic `AdminUtils.assignReplicasToBrokers`
//! (`kafka-cli-surface.md` §2.1), rack-unaware and rack-aware.
//!
//! A kafkit data directory is a one-broker cluster, where every placement is `[broker]`; the
//! algorithm is here whole so multi-broker tools (`reassign-partitions --generate`) share it.
//! Verified against `vectors/cli/replica_placement_adminutils.json`.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;

pub mod striped;

/// A broker as placement sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerInfo {
    /// The broker id.
    pub id: i32,
    /// Its rack, if any.
    pub rack: Option<String>,
}

/// Why a placement is impossible; displays as Kafka's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// `InvalidPartitionsException`.
    #[error("{0}")]
    InvalidPartitions(String),
    /// `InvalidReplicationFactorException`.
    #[error("{0}")]
    InvalidReplicationFactor(String),
    /// `AdminOperationException`.
    #[error("{0}")]
    AdminOperation(String),
}

/// Kafka's `replicaIndex`: the broker index of a follower.
fn replica_index(first: usize, shift: usize, j: usize, n: usize) -> usize {
    let step = 1 + (shift + j) % (n - 1).max(1);
    (first + step) % n
}

/// Brokers ordered rack by rack: racks sorted by name, brokers of a rack by id, one from each
/// rack in turn (`getRackAlternatedBrokerList`).
pub fn rack_alternated_broker_list(broker_rack: &BTreeMap<i32, String>) -> Vec<i32> {
    let mut by_rack: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (id, rack) in broker_rack {
        by_rack.entry(rack.as_str()).or_default().push(*id);
    }
    let mut iters: Vec<std::vec::IntoIter<i32>> =
        by_rack.into_values().map(Vec::into_iter).collect();
    let mut out = Vec::with_capacity(broker_rack.len());
    while out.len() < broker_rack.len() {
        for it in &mut iters {
            if let Some(id) = it.next() {
                out.push(id);
            }
        }
    }
    out
}

/// `AdminUtils.assignReplicasToBrokers(brokers, nPartitions, rf, fixedStartIndex,
/// startPartitionId)`: partition id → replicas (leader first). A negative `fixed_start_index`
/// draws the start index and the shift at random, as Kafka does.
pub fn assign_replicas_to_brokers(
    brokers: &[BrokerInfo],
    n_partitions: i32,
    replication_factor: i32,
    fixed_start_index: i32,
    start_partition_id: i32,
) -> Result<BTreeMap<i32, Vec<i32>>, PlacementError> {
    if n_partitions <= 0 {
        return Err(PlacementError::InvalidPartitions(
            "Number of partitions must be larger than 0.".into(),
        ));
    }
    if replication_factor <= 0 {
        return Err(PlacementError::InvalidReplicationFactor(
            "Replication factor must be larger than 0.".into(),
        ));
    }
    let rf = usize::try_from(replication_factor).unwrap_or(usize::MAX);
    if rf > brokers.len() {
        return Err(PlacementError::InvalidReplicationFactor(format!(
            "Replication factor: {replication_factor} larger than available brokers: {}.",
            brokers.len()
        )));
    }
    let with_rack = brokers.iter().filter(|b| b.rack.is_some()).count();
    let (arranged, racks): (Vec<i32>, Option<BTreeMap<i32, String>>) = if with_rack == 0 {
        (brokers.iter().map(|b| b.id).collect(), None)
    } else if with_rack < brokers.len() {
        return Err(PlacementError::AdminOperation(
            "Not all brokers have rack information for replica rack aware assignment.".into(),
        ));
    } else {
        let map: BTreeMap<i32, String> = brokers
            .iter()
            .filter_map(|b| b.rack.clone().map(|r| (b.id, r)))
            .collect();
        (rack_alternated_broker_list(&map), Some(map))
    };
    let n = arranged.len();
    let mut rng = rand::rng();
    let (start_index, mut shift) = match usize::try_from(fixed_start_index) {
        Ok(fixed) => (fixed, fixed),
        Err(_) => (rng.random_range(0..n), rng.random_range(0..n)),
    };
    let num_racks = racks
        .as_ref()
        .map_or(1, |m| m.values().collect::<BTreeSet<_>>().len());
    let broker = |i: usize| arranged.get(i).copied().unwrap_or_default();
    let mut out = BTreeMap::new();
    let first_partition = usize::try_from(start_partition_id.max(0)).unwrap_or(0);
    let count = usize::try_from(n_partitions).unwrap_or(0);
    for partition in first_partition..first_partition + count {
        if partition > 0 && partition % n == 0 {
            shift += 1;
        }
        let first = (partition + start_index) % n;
        let leader = broker(first);
        let mut replicas = vec![leader];
        match &racks {
            None => {
                for j in 0..rf - 1 {
                    replicas.push(broker(replica_index(first, shift, j, n)));
                }
            }
            Some(rack_of) => {
                let rack = |id: i32| rack_of.get(&id).cloned().unwrap_or_default();
                let mut racks_used: BTreeSet<String> = BTreeSet::from([rack(leader)]);
                let mut brokers_used: BTreeSet<i32> = BTreeSet::from([leader]);
                let mut k = 0;
                for _ in 0..rf - 1 {
                    loop {
                        let candidate = broker(replica_index(first, shift * num_racks, k, n));
                        let candidate_rack = rack(candidate);
                        k += 1;
                        if (!racks_used.contains(&candidate_rack) || racks_used.len() == num_racks)
                            && (!brokers_used.contains(&candidate) || brokers_used.len() == n)
                        {
                            replicas.push(candidate);
                            racks_used.insert(candidate_rack);
                            brokers_used.insert(candidate);
                            break;
                        }
                    }
                }
            }
        }
        out.insert(i32::try_from(partition).unwrap_or(i32::MAX), replicas);
    }
    Ok(out)
}
