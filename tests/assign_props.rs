//! Property tests over random groups (Kafka's own random tests, spec §7): validity, balance,
//! stickiness and the cooperative two-phase rule.

use std::collections::{BTreeSet, HashSet};

use kafkit::assign::scenario::{Event, Scenario, ScenarioMember, ScenarioTopic};
use kafkit::assign::server::{self, id_from_name, ServerMember, ServerTopic};
use kafkit::assign::simulate::simulate;
use kafkit::assign::sticky::StickyAssignor;
use kafkit::assign::Strategy as Assignor;
use kafkit::assign::{props, range, roundrobin};
use kafkit::assign::{Member, Subscription, TopicMeta, TopicPartition, UserData};
use proptest::prelude::*;

/// Topic counts and, per member, a non-empty subset of topics (as a bit mask).
fn group() -> impl Strategy<Value = (Vec<i32>, Vec<u32>)> {
    (1usize..6).prop_flat_map(|t| {
        (
            proptest::collection::vec(1i32..9, t),
            proptest::collection::vec(1u32..(1 << t), 1..9),
        )
    })
}

fn topics(counts: &[i32]) -> Vec<TopicMeta> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &n)| TopicMeta::new(format!("t{i}"), n))
        .collect()
}

fn subscribed(mask: u32, n: usize) -> Vec<String> {
    (0..n)
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| format!("t{i}"))
        .collect()
}

fn members(counts: &[i32], masks: &[u32]) -> Vec<Member> {
    masks
        .iter()
        .enumerate()
        .map(|(i, &m)| Member {
            id: format!("consumer{i}"),
            subscription: Subscription {
                topics: subscribed(m, counts.len()).into(),
                ..Subscription::default()
            },
        })
        .collect()
}

/// Only the topics somebody subscribes to, as the real client passes them.
fn subscribed_topics(counts: &[i32], masks: &[u32]) -> Vec<TopicMeta> {
    let any: u32 = masks.iter().fold(0, |a, m| a | m);
    topics(counts)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| any & (1 << i) != 0)
        .map(|(_, t)| t)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_client_assignor_is_valid((counts, masks) in group()) {
        let t = subscribed_topics(&counts, &masks);
        let m = members(&counts, &masks);
        props::check_valid(&range::assign(&t, &m, false), &t, &m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        props::check_valid(&roundrobin::assign(&t, &m), &t, &m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for mut a in [StickyAssignor::eager(), StickyAssignor::cooperative()] {
            let out = a.assign(&t, &m).map_err(|e| TestCaseError::fail(e.to_string()))?;
            props::check_valid(&out.assignment, &t, &m).map_err(|e| TestCaseError::fail(e.to_string()))?;
            props::check_balanced(&out.assignment, &m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }

    /// Equal subscriptions: fully balanced, and after a member leaves every remaining member
    /// keeps all it had (the quota can only grow).
    #[test]
    fn sticky_keeps_partitions_when_a_member_leaves(counts in proptest::collection::vec(1i32..9, 1..5), n in 2usize..7, leaver in 0usize..7) {
        let all = (1u32 << counts.len()) - 1;
        let t = topics(&counts);
        let m = members(&counts, &vec![all; n]);
        let mut a = StickyAssignor::eager();
        let first = a.assign(&t, &m).map_err(|e| TestCaseError::fail(e.to_string()))?.assignment;
        prop_assert!(props::fully_balanced(&first));
        let leaver = leaver % n;
        let rest: Vec<Member> = m.iter().enumerate().filter(|(i, _)| *i != leaver).map(|(_, x)| {
            let mut x = x.clone();
            x.subscription.user_data = Some(UserData::Sticky {
                partitions: first.get(&x.id).cloned().unwrap_or_default(),
                generation: Some(1),
            });
            x
        }).collect();
        let second = a.assign(&t, &rest).map_err(|e| TestCaseError::fail(e.to_string()))?.assignment;
        props::check_valid(&second, &t, &rest).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(props::fully_balanced(&second));
        for x in &rest {
            let before: BTreeSet<&TopicPartition> = first.get(&x.id).map(|l| l.iter().collect()).unwrap_or_default();
            let after: BTreeSet<&TopicPartition> = second.get(&x.id).map(|l| l.iter().collect()).unwrap_or_default();
            prop_assert!(before.is_subset(&after), "{} lost partitions: {:?} -> {:?}", x.id, before, after);
        }
    }

    /// Unequal subscriptions, then random resubscriptions keeping owned partitions
    /// (`testReassignmentWithRandomSubscriptionsAndChanges`): valid, balanced, and no partition
    /// moves back and forth between two members (`isSticky`).
    #[test]
    fn sticky_general_path_is_valid_balanced_and_sticky((counts, masks) in group(), remasks in proptest::collection::vec(1u32..32, 8)) {
        let t = subscribed_topics(&counts, &masks);
        let m = members(&counts, &masks);
        let mut a = StickyAssignor::eager();
        let first = a.assign(&t, &m).map_err(|e| TestCaseError::fail(e.to_string()))?.assignment;
        let n = counts.len();
        let limit = (1u32 << n) - 1;
        let masks2: Vec<u32> = masks.iter().zip(remasks.iter().cycle()).map(|(_, r)| (r & limit).max(1)).collect();
        let mut m2 = members(&counts, &masks2);
        for x in &mut m2 {
            x.subscription.user_data = Some(UserData::Sticky {
                partitions: first.get(&x.id).cloned().unwrap_or_default(),
                generation: Some(1),
            });
        }
        let t2 = subscribed_topics(&counts, &masks2);
        let second = a.assign(&t2, &m2).map_err(|e| TestCaseError::fail(e.to_string()))?.assignment;
        props::check_valid(&second, &t2, &m2).map_err(|e| TestCaseError::fail(e.to_string()))?;
        props::check_balanced(&second, &m2).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(a.last_is_sticky);
    }

    /// The cooperative protocol: within one generation no partition is both revoked and
    /// assigned; follow-up rebalances end within 4 extra rounds; the end is valid and balanced.
    #[test]
    fn cooperative_two_phase_rule(counts in proptest::collection::vec(1i32..9, 1..5), n in 1usize..6, events in proptest::collection::vec(0u8..4, 1..5)) {
        let topics: Vec<ScenarioTopic> = counts.iter().enumerate().map(|(i, &c)| ScenarioTopic {
            name: format!("t{i}"), partitions: c, racks: None, id: None,
        }).collect();
        let mut sc = Scenario {
            group: "g".into(),
            topics,
            members: (0..n).map(|i| ScenarioMember::new(format!("c{i}"))).collect(),
            events: Vec::new(),
        };
        let mut alive: Vec<String> = sc.members.iter().map(|m| m.id.clone()).collect();
        let mut next = n;
        for e in events {
            match e {
                0 | 1 => {
                    sc.events.push(Event::Join { member: ScenarioMember::new(format!("c{next}")) });
                    alive.push(format!("c{next}"));
                    next += 1;
                }
                2 if alive.len() > 1 => {
                    let gone = alive.remove(0);
                    sc.events.push(Event::Leave { member: gone });
                }
                _ => {
                    let t = &sc.topics[0];
                    let grown = sc.events.iter().filter_map(|e| match e { Event::AddPartitions { partitions, .. } => Some(*partitions), _ => None }).max().unwrap_or(t.partitions) + 2;
                    sc.events.push(Event::AddPartitions { topic: t.name.clone(), partitions: grown });
                }
            }
        }
        sc.validate().map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Every strategy runs the script without an error and ends with each partition once.
        // Partitions in the group after each round (every member subscribes to every topic).
        let mut totals = vec![counts.iter().sum::<i32>() as usize];
        let mut t0 = counts[0];
        for e in &sc.events {
            if let Event::AddPartitions { partitions, .. } = e {
                t0 = *partitions;
            }
            totals.push((t0 + counts[1..].iter().sum::<i32>()) as usize);
        }
        for strategy in Assignor::ALL {
            let sim = simulate(&sc, strategy, 50);
            for (r, total) in sim.rounds.iter().zip(&totals) {
                prop_assert!(r.error.is_none(), "{strategy}: {:?}", r.error);
                let listed: usize = r.assignment.values().map(Vec::len).sum();
                let distinct: HashSet<&TopicPartition> = r.assignment.values().flatten().collect();
                prop_assert_eq!(listed, distinct.len());
                prop_assert_eq!(listed, *total, "{} round {}", strategy, r.round);
            }
        }
        for strategy in [Assignor::CooperativeSticky, Assignor::Uniform] {
            let sim = simulate(&sc, strategy, 50);
            for r in &sim.rounds {
                prop_assert!(r.error.is_none(), "{:?}", r.error);
                prop_assert!(r.phases.len() <= 5, "{} phases", r.phases.len());
                for p in &r.phases {
                    let revoked: HashSet<&TopicPartition> = p.revoked.iter().map(|(tp, _)| tp).collect();
                    for (tp, m) in &p.added {
                        prop_assert!(!revoked.contains(tp), "{tp} revoked and given to {m} in generation {}", p.generation);
                    }
                }
                prop_assert!(props::fully_balanced(&r.assignment), "{:?}", r.assignment);
                let mut seen = HashSet::new();
                for l in r.assignment.values() {
                    for tp in l {
                        prop_assert!(seen.insert(tp.clone()), "{tp} twice");
                    }
                }
            }
        }
    }

    /// Server uniform, homogeneous: every partition once, sizes within one
    /// (`testValidityAndBalanceForLargeSampleSet` in small).
    #[test]
    fn server_uniform_homogeneous_is_balanced(counts in proptest::collection::vec(1i32..9, 1..6), n in 1usize..9) {
        let topics: Vec<ServerTopic> = counts.iter().enumerate().map(|(i, &c)| ServerTopic {
            name: format!("t{i}"), partitions: c, id: id_from_name(&format!("t{i}")),
        }).collect();
        let names: Vec<String> = topics.iter().map(|t| t.name.clone()).collect();
        let members: Vec<ServerMember> = (0..n).map(|i| ServerMember {
            id: format!("m{i}"), topics: names.clone(), ..ServerMember::default()
        }).collect();
        let a = server::uniform(&topics, &members, None).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(props::fully_balanced(&a));
        let total: usize = a.values().map(Vec::len).sum();
        prop_assert_eq!(total, counts.iter().sum::<i32>() as usize);
        let r = server::range(&topics, &members, None).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let total: usize = r.values().map(Vec::len).sum();
        prop_assert_eq!(total, counts.iter().sum::<i32>() as usize);
    }
}

/// Kafka's `testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription`: 40 topics of
/// 1–10 partitions, 200 consumers with random subscriptions; then 50 of them leave and the rest
/// report what they own. Valid, balanced, and no partition moves back and forth.
#[test]
fn many_consumers_leaving_with_random_subscriptions() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let topics: Vec<TopicMeta> = (0..40)
        .map(|i| TopicMeta::new(format!("topic-{i}"), 1 + next(10) as i32))
        .collect();
    let mut members: Vec<Member> = (0..200)
        .map(|c| {
            let k = 1 + next(20) as usize;
            let mut ts: Vec<String> = (0..k).map(|_| format!("topic-{}", next(40))).collect();
            ts.sort();
            ts.dedup();
            Member {
                id: format!("consumer{c}"),
                subscription: Subscription {
                    topics: ts.into(),
                    ..Subscription::default()
                },
            }
        })
        .collect();
    for cooperative in [false, true] {
        let mut a = if cooperative {
            StickyAssignor::cooperative()
        } else {
            StickyAssignor::eager()
        };
        let first = a
            .assign(&topics, &members)
            .expect("first assignment")
            .assignment;
        props::check_valid(&first, &topics, &members).expect("valid");
        props::check_balanced(&first, &members).expect("balanced");
        for m in &mut members {
            let owned = first.get(&m.id).cloned().unwrap_or_default();
            m.subscription.user_data = Some(UserData::Sticky {
                partitions: owned.clone(),
                generation: Some(1),
            });
            m.subscription.owned = owned;
            m.subscription.generation = Some(1);
        }
        let mut rest = members.clone();
        for _ in 0..50 {
            let i = next(rest.len() as u64) as usize;
            rest.remove(i);
        }
        let second = a
            .assign(&topics, &rest)
            .expect("second assignment")
            .assignment;
        if cooperative {
            // Phase one withholds moving partitions: still no duplicates, only subscribers.
            let all: HashSet<&TopicPartition> = second.values().flatten().collect();
            assert_eq!(all.len(), second.values().map(Vec::len).sum::<usize>());
        } else {
            props::check_valid(&second, &topics, &rest).expect("valid after leaving");
            props::check_balanced(&second, &rest).expect("balanced after leaving");
        }
        assert!(a.last_is_sticky, "a partition moved back and forth");
        for m in &mut members {
            m.subscription.user_data = None;
            m.subscription.owned.clear();
            m.subscription.generation = None;
        }
    }
}
