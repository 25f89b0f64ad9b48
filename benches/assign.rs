//! Kafka's large sticky-assignor tests (`AbstractStickyAssignorTest`), timed.
//!
//! 2,000 consumers, 500 topics × 2,000 partitions (1,000,000 partitions), no racks,
//! `CooperativeStickyAssignor`:
//!
//! * `uniform/first`: all consumers subscribe to all topics; assign from scratch.
//! * `uniform/reassign`: then consumers 1..1999 report their assignment as owned (generation 1),
//!   consumer 0 reports nothing; assign again.
//! * `nonequal/first`, `nonequal/reassign`: the same, but the last consumer subscribes to the
//!   first topic only (the general path).
//!
//! `first`/`reassign` time the algorithm (`assign_indexed`: per member, partition indices);
//! `+topic-partitions` adds spelling the result out as a million `TopicPartition` values and
//! dropping them.
//!
//! Kafka's Java code takes 0.39 s, 4.01 s, 9.74 s and 9.33 s on a 2-core machine like ours
//! (`spec/vectors/assignors/performance-anchors.json`). Figures in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use kafkit::assign::sticky::StickyAssignor;
use kafkit::assign::{Assignment, Member, Subscription, TopicMeta, UserData};

const TOPICS: usize = 500;
const PARTITIONS: i32 = 2000;
const CONSUMERS: usize = 2000;

fn topics() -> Vec<TopicMeta> {
    (0..TOPICS)
        .map(|t| TopicMeta::new(format!("topic{t}"), PARTITIONS))
        .collect()
}

fn members(nonequal: bool) -> Vec<Member> {
    let all: std::rc::Rc<[String]> = (0..TOPICS).map(|t| format!("topic{t}")).collect();
    (0..CONSUMERS)
        .map(|c| Member {
            id: format!("consumer{c}"),
            subscription: Subscription {
                topics: if nonequal && c == CONSUMERS - 1 {
                    vec!["topic0".to_string()].into()
                } else {
                    all.clone()
                },
                ..Subscription::default()
            },
        })
        .collect()
}

fn with_owned(members: &[Member], first: &Assignment) -> Vec<Member> {
    members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut m = m.clone();
            m.subscription.generation = Some(1);
            m.subscription.user_data = Some(UserData::Cooperative { generation: 1 });
            if i > 0 {
                m.subscription.owned = first.get(&m.id).cloned().unwrap_or_default();
            }
            m
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let topics = topics();
    for (name, nonequal) in [("uniform", false), ("nonequal", true)] {
        let members = members(nonequal);
        let mut group = c.benchmark_group(name);
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(20));
        group.bench_function("first", |b| {
            b.iter(|| {
                let mut a = StickyAssignor::cooperative();
                black_box(a.assign_indexed(&topics, &members).map(|o| o.count(0)))
            })
        });
        group.bench_function("first+topic-partitions", |b| {
            b.iter(|| {
                let mut a = StickyAssignor::cooperative();
                black_box(a.assign(&topics, &members).map(|o| o.assignment.len()))
            })
        });
        let mut a = StickyAssignor::cooperative();
        let first = match a.assign(&topics, &members) {
            Ok(o) => o.assignment,
            Err(e) => panic!("first assignment failed: {e}"),
        };
        let second = with_owned(&members, &first);
        group.bench_function("reassign", |b| {
            b.iter(|| {
                let mut a = StickyAssignor::cooperative();
                black_box(a.assign_indexed(&topics, &second).map(|o| o.count(0)))
            })
        });
        group.bench_function("reassign+topic-partitions", |b| {
            b.iter(|| {
                let mut a = StickyAssignor::cooperative();
                black_box(a.assign(&topics, &second).map(|o| o.assignment.len()))
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
