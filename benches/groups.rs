//! `consumer-groups --describe` of a group over 10,000 partitions (`cargo bench --bench groups`).
//!
//! Writes a data directory once to `target/bench-data/groups-10000/` (`cargo bench --bench
//! groups -- no-such-bench` only writes it): topic `big` of 10,000 partitions, each a `.log` of
//! one batch of 10 records (no indexes, as a broker's copied partitions often come), and the
//! group `bench` in its `__consumer_offsets` partition: 100 members of 100 partitions each
//! (range over `big`, group metadata value v3 as brokers write it), and three rounds of offset
//! commits, each member committing its 100 partitions in one batch (30,000 commits, 300
//! batches). Then measures, in-process: loading the groups, and the whole describe (load, log
//! ends of the 10,000 partitions, rows, Kafka's text to a sink). `scripts/bench-consumer-groups.sh`
//! times the command line on the same directory.

use std::hint::black_box;
use std::io;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use kafkit::assign::java::coordinator_partition;
use kafkit::datadir::DataDir;
use kafkit::group::describe::{self, LogEnds};
use kafkit::group::protocol::{Assignment, Subscription, TopicPartitions};
use kafkit::group::{
    CoordinatorRecord, GroupMetadataValue, Groups, MemberMetadata, OffsetCommitKey,
    OffsetCommitValue, Versioned,
};
use kafkit::output::groups::write_offsets;
use kafkit::output::OutputFormat;
use kafkit::record::{BatchBuilder, Compression, TimestampType};

const PARTITIONS: i32 = 10_000;
const MEMBERS: i32 = 100;
const RECORDS_PER_PARTITION: i64 = 10;
const COMMIT_ROUNDS: i64 = 3;
const GROUP: &str = "bench";

/// A record's key and value (`None`: null).
type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// One segment of `records` (key, value) at `dir/00000000000000000000.log`, in batches of
/// `per_batch`.
fn write_log(dir: &Path, records: &[KeyValue], per_batch: usize) {
    std::fs::create_dir_all(dir).expect("partition dir");
    let mut bytes = Vec::new();
    let mut offset = 0i64;
    for chunk in records.chunks(per_batch) {
        let mut b = BatchBuilder::new(offset, Compression::None, TimestampType::CreateTime);
        for (key, value) in chunk {
            b.append(
                1_700_000_000_000 + offset,
                key.as_deref(),
                value.as_deref(),
                &[],
            );
            offset += 1;
        }
        bytes.extend(b.build().expect("build"));
    }
    std::fs::write(dir.join("00000000000000000000.log"), bytes).expect("write log");
}

fn encoded(record: &CoordinatorRecord) -> KeyValue {
    let (key, value) = record.encode().expect("encode");
    (Some(key), value)
}

/// The data directory (written on first use).
fn data_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/bench-data/groups-{PARTITIONS}"));
    let done = root.join("meta.properties");
    if done.exists() {
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    for p in 0..PARTITIONS {
        let records: Vec<_> = (0..RECORDS_PER_PARTITION)
            .map(|i| (None, Some(format!("value {i}").into_bytes())))
            .collect();
        write_log(&root.join(format!("big-{p}")), &records, records.len());
    }
    let per_member = PARTITIONS / MEMBERS;
    let member_id = |m: i32| format!("consumer-bench-{m}-{m:08x}");
    let mut records = Vec::new();
    for round in 1..=COMMIT_ROUNDS {
        for p in 0..PARTITIONS {
            // The last round leaves lags of 0, 1 and 2.
            let offset = RECORDS_PER_PARTITION - i64::from(p % 3) - (COMMIT_ROUNDS - round);
            let value = OffsetCommitValue::new(offset, 1_700_000_000_000 + round);
            records.push(encoded(&CoordinatorRecord::offset_commit(
                OffsetCommitKey {
                    group: GROUP.into(),
                    topic: "big".into(),
                    partition: p,
                },
                value,
            )));
        }
    }
    let members = (0..MEMBERS)
        .map(|m| {
            let subscription = Versioned::new(
                3,
                Subscription {
                    topics: vec!["big".into()],
                    ..Subscription::default()
                },
            );
            let assignment = Versioned::new(
                3,
                Assignment {
                    assigned_partitions: vec![TopicPartitions {
                        topic: "big".into(),
                        partitions: (m * per_member..(m + 1) * per_member).collect(),
                    }],
                    user_data: None,
                },
            );
            MemberMetadata {
                member_id: member_id(m),
                group_instance_id: None,
                client_id: format!("consumer-bench-{m}"),
                client_host: format!("/10.0.{}.{}", m / 250, m % 250),
                rebalance_timeout: 300_000,
                session_timeout: 45_000,
                subscription: subscription.encode().expect("sub"),
                assignment: assignment.encode().expect("asg"),
                unknown_tagged_fields: Vec::new(),
            }
        })
        .collect();
    records.push(encoded(&CoordinatorRecord::group_metadata(
        GROUP,
        GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation: 1,
            protocol: Some("range".into()),
            leader: Some(member_id(0)),
            current_state_timestamp: 1_700_000_000_000,
            members,
            unknown_tagged_fields: Vec::new(),
        },
    )));
    let partition = coordinator_partition(GROUP, 50);
    write_log(
        &root.join(format!("__consumer_offsets-{partition}")),
        &records,
        per_member as usize,
    );
    std::fs::write(&done, "version=1\nnode.id=0\n").expect("meta.properties");
    root
}

/// What `kafkit consumer-groups --describe --group bench` does, its text to a sink.
fn describe(datadir: &DataDir) {
    let groups = Groups::load(datadir).expect("load");
    let group = groups.get(GROUP).expect("group");
    let assignments = describe::member_assignments(group).expect("assignments");
    let ends = LogEnds::read(datadir, describe::partitions_of(group, &assignments));
    let rows = describe::offset_rows(group, &assignments, |tp| ends.get(tp));
    assert_eq!(rows.len(), PARTITIONS as usize);
    write_offsets(
        &mut io::sink(),
        &mut io::sink(),
        GROUP,
        Some(group),
        &rows,
        OutputFormat::Text,
    )
    .expect("write");
    black_box(rows.len());
}

fn groups(c: &mut Criterion) {
    let datadir = DataDir::open(data_dir()).expect("open");
    let mut g = c.benchmark_group("consumer-groups");
    g.sample_size(20);
    g.bench_function("load __consumer_offsets (30,001 records)", |b| {
        b.iter(|| black_box(Groups::load(&datadir).expect("load").len()))
    });
    g.bench_function("describe a group of 10,000 partitions", |b| {
        b.iter(|| describe(&datadir))
    });
    g.finish();
}

criterion_group!(benches, groups);
criterion_main!(benches);
