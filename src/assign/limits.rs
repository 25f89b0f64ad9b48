//! How large a simulation kafkit agrees to run, so that its memory stays bounded whatever the
//! input (a flag such as `--topic t:2147483647`, or a scenario file).
//!
//! Kafka's own bound on a topic's partition count is its `int32` partition id, 1 to
//! 2147483647 ([`MAX_PARTITIONS`]); a group anywhere near that cannot be simulated, so the other
//! bounds are kafkit's, chosen from measurements (`simulate-assignment --help`, section
//! "Limits", and `docs/simulate-assignment.md` say the same):
//!
//! * the assignors' work in a round grows with members × partitions: at most
//!   [`MAX_MEMBER_PARTITIONS`] in any round;
//! * the simulator keeps the report of every round of every strategy until it prints them (each
//!   report lists every partition's owner, the moves and the protocol trace, a few hundred bytes a
//!   partition or member): at most [`MAX_ENTRIES`] partitions and members summed over rounds and
//!   strategies, and at most [`MAX_ROUNDS`] rounds × strategies;
//! * a scenario file holds at most [`MAX_SCENARIO_BYTES`].
//!
//! A replayed assignor vector file (each round an explicit assign call, members listing their
//! owned partitions) is read, replayed and printed one round at a time, nothing kept from one
//! round to the next but the assignor's `maxGeneration`, so its bounds are on the file and on
//! the work ([`check_vector`]):
//!
//! * a vector file holds at most [`MAX_VECTOR_BYTES`] (Kafka's large case, 2,000 members
//!   reporting a million owned partitions, is 20 MB);
//! * a round on a path whose work grows with partitions + members, not their product (the sticky
//!   assignors' constrained path and the uniform assignor's homogeneous one: every member
//!   subscribes to the same topics, and no member has a rack) has at most
//!   [`MAX_ROUND_PARTITIONS`] partitions; any other round keeps the members × partitions bound;
//! * the rounds of a file together have at most [`MAX_VECTOR_PARTITIONS`] partitions.
//!
//! At these limits the process stays under 250 MiB of resident memory: the largest peak measured
//! (release build; 228 MiB in a debug build), 220 MiB, is a single round of 100,000 partitions
//! printed as JSON (`--output json` builds each round's line in memory); text output of the same
//! round peaks at 51 MiB.
//! `tests/assign_cli.rs` runs the largest inputs and checks the peak stays under 512 MiB.

/// The most partitions a topic can have: Kafka's partition ids are `int32`.
pub const MAX_PARTITIONS: i32 = i32::MAX;

/// The most members × partitions (of all the topics) a round may have.
pub const MAX_MEMBER_PARTITIONS: u64 = 10_000_000;

/// The most partitions and members, summed over every round of every strategy, that a run may
/// hold.
pub const MAX_ENTRIES: u64 = 100_000;

/// The most rounds (the initial join plus one per event) × strategies a run may hold.
pub const MAX_ROUNDS: u64 = 10_000;

/// The largest scenario file read (1 MiB).
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// The largest assignor vector file read (64 MiB).
pub const MAX_VECTOR_BYTES: u64 = 64 << 20;

/// The most partitions a replayed round may have on a path whose work is linear (sticky
/// assignors' constrained path, uniform assignor's homogeneous path): 2²¹, twice Kafka's large
/// case (500 topics × 2,000 partitions).
pub const MAX_ROUND_PARTITIONS: u64 = 1 << 21;

/// The most partitions summed over the rounds of a replayed vector file.
pub const MAX_VECTOR_PARTITIONS: u64 = 10_000_000;

/// One round of a replayed vector file, as the limits see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorRoundSize {
    /// Members and partitions.
    pub size: RoundSize,
    /// True when the assignor's work in the round grows with partitions + members (a sticky
    /// assignor or `uniform`, every member subscribed to the same topics, no member rack).
    pub linear: bool,
}

/// The group in one round: its members and the partitions of all its topics, after the round's
/// event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundSize {
    /// Members in the group.
    pub members: u64,
    /// Partitions of all the topics together.
    pub partitions: u64,
}

/// A simulation larger than the limits allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// A round with too many members × partitions.
    #[error(
        "the group is too large to simulate: round {round} has {members} member(s) and {partitions} partition(s), {product} member-partitions, more than the limit of {MAX_MEMBER_PARTITIONS}"
    )]
    MemberPartitions {
        /// The round (1 is the initial join).
        round: usize,
        /// Its members.
        members: u64,
        /// Its partitions.
        partitions: u64,
        /// members × partitions.
        product: u64,
    },
    /// Too many rounds × strategies.
    #[error(
        "the script is too long to simulate: {rounds} round(s) × {strategies} strateg{} = {total}, more than the limit of {MAX_ROUNDS} (kafkit keeps every round in memory until it prints it)",
        if *.strategies == 1 { "y" } else { "ies" }
    )]
    Rounds {
        /// Rounds of the script.
        rounds: u64,
        /// Strategies run.
        strategies: u64,
        /// rounds × strategies.
        total: u64,
    },
    /// Too many partitions and members over the rounds and strategies.
    #[error(
        "the script is too large to simulate: its {rounds} round(s) × {strategies} strateg{} hold {total} partitions and members in all, more than the limit of {MAX_ENTRIES} (kafkit keeps every round in memory until it prints it)",
        if *.strategies == 1 { "y" } else { "ies" }
    )]
    Entries {
        /// Rounds of the script.
        rounds: u64,
        /// Strategies run.
        strategies: u64,
        /// Σ over rounds and strategies of partitions + members.
        total: u64,
    },
    /// A replayed round on a linear path with too many partitions.
    #[error(
        "the group is too large to simulate: round {round} has {partitions} partition(s), more than the limit of {MAX_ROUND_PARTITIONS}"
    )]
    RoundPartitions {
        /// The round (1 is the first).
        round: usize,
        /// Its partitions.
        partitions: u64,
    },
    /// A vector file whose rounds hold too many partitions together.
    #[error(
        "the vector file is too large to replay: its {rounds} round(s) hold {total} partitions in all, more than the limit of {MAX_VECTOR_PARTITIONS}"
    )]
    VectorPartitions {
        /// Rounds of the file.
        rounds: u64,
        /// Σ over rounds of partitions.
        total: u64,
    },
}

/// Checks the rounds of a replayed vector file against the limits: a linear round at most
/// [`MAX_ROUND_PARTITIONS`] partitions, any other at most [`MAX_MEMBER_PARTITIONS`] members ×
/// partitions, all of them together at most [`MAX_VECTOR_PARTITIONS`] partitions.
pub fn check_vector(rounds: &[VectorRoundSize]) -> Result<(), LimitError> {
    for (i, r) in rounds.iter().enumerate() {
        let RoundSize {
            members,
            partitions,
        } = r.size;
        if r.linear {
            if partitions > MAX_ROUND_PARTITIONS {
                return Err(LimitError::RoundPartitions {
                    round: i + 1,
                    partitions,
                });
            }
        } else {
            let product = members.saturating_mul(partitions);
            if product > MAX_MEMBER_PARTITIONS {
                return Err(LimitError::MemberPartitions {
                    round: i + 1,
                    members,
                    partitions,
                    product,
                });
            }
        }
    }
    let total = rounds
        .iter()
        .fold(0u64, |sum, r| sum.saturating_add(r.size.partitions));
    if total > MAX_VECTOR_PARTITIONS {
        return Err(LimitError::VectorPartitions {
            rounds: u64::try_from(rounds.len()).unwrap_or(u64::MAX),
            total,
        });
    }
    Ok(())
}

/// Checks a run of `strategies` strategies over rounds of the given sizes against the limits.
pub fn check(rounds: &[RoundSize], strategies: usize) -> Result<(), LimitError> {
    for (i, r) in rounds.iter().enumerate() {
        let product = r.members.saturating_mul(r.partitions);
        if product > MAX_MEMBER_PARTITIONS {
            return Err(LimitError::MemberPartitions {
                round: i + 1,
                members: r.members,
                partitions: r.partitions,
                product,
            });
        }
    }
    let strategies = u64::try_from(strategies).unwrap_or(u64::MAX);
    let count = u64::try_from(rounds.len()).unwrap_or(u64::MAX);
    let total = count.saturating_mul(strategies);
    if total > MAX_ROUNDS {
        return Err(LimitError::Rounds {
            rounds: count,
            strategies,
            total,
        });
    }
    let entries = rounds
        .iter()
        .fold(0u64, |sum, r| {
            sum.saturating_add(r.members.saturating_add(r.partitions))
        })
        .saturating_mul(strategies);
    if entries > MAX_ENTRIES {
        return Err(LimitError::Entries {
            rounds: count,
            strategies,
            total: entries,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(members: u64, partitions: u64) -> RoundSize {
        RoundSize {
            members,
            partitions,
        }
    }

    #[test]
    fn limits_are_inclusive_and_name_what_is_over() {
        assert_eq!(check(&[round(1_000, 10_000)], 1), Ok(()));
        assert_eq!(
            check(&[round(1, 10), round(1_001, 10_000)], 1),
            Err(LimitError::MemberPartitions {
                round: 2,
                members: 1_001,
                partitions: 10_000,
                product: 10_010_000
            })
        );
        assert_eq!(
            check(&[round(1, u64::MAX)], 1),
            Err(LimitError::MemberPartitions {
                round: 1,
                members: 1,
                partitions: u64::MAX,
                product: u64::MAX
            })
        );
        let many = vec![round(1, 1); 5_000];
        assert_eq!(check(&many, 2), Ok(()));
        assert!(matches!(
            check(&many, 3),
            Err(LimitError::Rounds { total: 15_000, .. })
        ));
        assert_eq!(check(&[round(10, 49_990)], 2), Ok(()));
        assert_eq!(
            check(&[round(10, 49_991)], 2),
            Err(LimitError::Entries {
                rounds: 1,
                strategies: 2,
                total: 100_002
            })
        );
    }

    #[test]
    fn vector_rounds_on_a_linear_path_are_bounded_by_partitions() {
        let linear = |members, partitions| VectorRoundSize {
            size: round(members, partitions),
            linear: true,
        };
        let quadratic = |members, partitions| VectorRoundSize {
            size: round(members, partitions),
            linear: false,
        };
        // Kafka's large case, both rounds.
        assert_eq!(
            check_vector(&[linear(2_000, 1_000_000), linear(2_000, 1_000_000)]),
            Ok(())
        );
        assert_eq!(check_vector(&[linear(100_000, 1 << 21)]), Ok(()));
        assert_eq!(
            check_vector(&[linear(1, 1), linear(2, (1 << 21) + 1)]),
            Err(LimitError::RoundPartitions {
                round: 2,
                partitions: (1 << 21) + 1
            })
        );
        assert_eq!(check_vector(&[quadratic(1_000, 10_000)]), Ok(()));
        assert!(matches!(
            check_vector(&[quadratic(2_000, 1_000_000)]),
            Err(LimitError::MemberPartitions { round: 1, .. })
        ));
        assert_eq!(check_vector(&vec![linear(1, 1_000_000); 10]), Ok(()));
        assert_eq!(
            check_vector(&vec![linear(1, 1_000_000); 11]),
            Err(LimitError::VectorPartitions {
                rounds: 11,
                total: 11_000_000
            })
        );
    }
}
