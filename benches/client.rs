//! The console producer's and consumer's hot paths (`cargo bench --bench client`): murmur2,
//! line parsing, the formatter, splitting a block into lines and encoding them into batches
//! (the console producer's calling thread, without the disk), the producer's batching into a
//! partition (a `send` per record and a `send_values` per run), the consumer's reads.
//!
//! End-to-end figures (the binary against `cp`, seeks in a 10-segment partition) come from
//! `scripts/bench-client.sh`; both are quoted in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kafkit::client::{
    murmur2, Acks, BuiltInPartitioner, IsolationLevel, LineFormat, Lines, PartitionConsumer,
    Partitioner, Producer, ProducerConfig, RoundRobinPartitioner,
};
use kafkit::datadir::{DataDir, NewTopic, PartitionWriter, TopicPartition};
use kafkit::output::message::{MessageFormatter, MessageView};
use kafkit::record::{BatchBuilder, Compression, TimestampType};

const RECORDS: usize = 200_000;

fn lines() -> Vec<Vec<u8>> {
    (0..RECORDS)
        .map(|i| format!("key-{i:06}\t{i:010} {}", "x".repeat(78)).into_bytes())
        .collect()
}

fn pure(c: &mut Criterion) {
    let mut group = c.benchmark_group("pure");
    let keys: Vec<String> = (0..1000).map(|i| format!("user-{i:011}")).collect();
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.bench_function("murmur2 of 16-byte keys", |b| {
        b.iter(|| {
            for k in &keys {
                black_box(murmur2(k.as_bytes()));
            }
        })
    });
    let lines = lines();
    let format = LineFormat::from_properties([("parse.key", "true")]).expect("format");
    group.throughput(Throughput::Elements(RECORDS as u64));
    group.bench_function("parse key\\tvalue lines of 100 bytes", |b| {
        let mut headers = Vec::new();
        b.iter(|| {
            for (n, line) in lines.iter().enumerate() {
                black_box(format.parse(line, n as u64, &mut headers).expect("parse"));
            }
        })
    });
    let formatter =
        MessageFormatter::from_properties([("print.key", "true"), ("print.offset", "true")]);
    group.bench_function("format key+offset+value", |b| {
        let mut out = Vec::with_capacity(RECORDS * 128);
        b.iter(|| {
            out.clear();
            for (n, line) in lines.iter().enumerate() {
                let view = MessageView {
                    topic: "t",
                    partition: 0,
                    offset: n as i64,
                    timestamp: 0,
                    timestamp_type: TimestampType::CreateTime,
                    key: Some(&line[..10]),
                    value: Some(&line[11..]),
                    headers: &[],
                    leader_epoch: None,
                    delivery_count: None,
                };
                formatter.write(&mut out, &view).expect("write");
            }
            black_box(out.len())
        })
    });
    // The lines as the console producer reads them: one input, 256 KiB reads.
    let input: Vec<u8> = lines
        .iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect();
    group.bench_function("split 200k lines of 100 bytes (Lines::buffered)", |b| {
        b.iter(|| {
            let mut lines = Lines::new(&input[..], 256 << 10);
            let mut count = lines.buffered().count();
            while lines.next_line().expect("line").is_some() {
                count += 1 + lines.buffered().count();
            }
            assert_eq!(count, RECORDS);
        })
    });
    group.bench_function(
        "batch 200k values (append_values, 16 KiB batches, sealed)",
        |b| {
            let mut free: Vec<Vec<u8>> = Vec::new();
            b.iter(|| {
                let mut values = lines.iter().map(|l| Some(&l[..]));
                let mut next = None;
                loop {
                    let buffer = free.pop().unwrap_or_default();
                    let mut batch = BatchBuilder::with_buffer(
                        0,
                        Compression::None,
                        TimestampType::CreateTime,
                        buffer,
                    );
                    let Some(value) = next.take().or_else(|| values.next()) else {
                        break;
                    };
                    batch.append(1_700_000_000_000, None, value, &[]);
                    next = batch.append_values(
                        16_384,
                        usize::MAX,
                        usize::MAX,
                        1_700_000_000_000,
                        &mut values,
                    );
                    free.push(batch.seal().expect("seal").into_bytes());
                    if next.is_none() {
                        break;
                    }
                }
            })
        },
    );
    group.finish();
}

fn produce_consume(c: &mut Criterion) {
    let mut group = c.benchmark_group("partition");
    group.sample_size(10);
    group.throughput(Throughput::Elements(RECORDS as u64));
    let lines = lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let datadir = DataDir::create(dir.path()).expect("datadir");
    // A producer of a new one-partition topic (p1, p2, ...) of `datadir`.
    let mut n = 0;
    let mut new_producer = |partitioner: Box<dyn Partitioner>| {
        n += 1;
        let lock = datadir.lock().expect("lock");
        let topic = datadir
            .create_topic(
                &lock,
                &NewTopic {
                    name: format!("p{n}"),
                    partitions: Some(1),
                    ..NewTopic::default()
                },
            )
            .expect("topic");
        drop(lock);
        let writer = PartitionWriter::new(&datadir).expect("writer");
        let config = ProducerConfig {
            acks: Acks::Leader,
            ..ProducerConfig::default()
        };
        Producer::new(writer, topic, partitioner, config)
    };
    group.bench_function("produce 200k records of 100 bytes (acks=1)", |b| {
        b.iter(|| {
            let mut p = new_producer(Box::new(RoundRobinPartitioner::new()));
            for line in &lines {
                p.send(None, 1_700_000_000_000, None, Some(line), &[])
                    .expect("send");
            }
            p.close().expect("close");
        })
    });
    group.bench_function("produce 200k values by run (send_values, acks=1)", |b| {
        b.iter(|| {
            let mut p = new_producer(Box::new(BuiltInPartitioner::new(Some(1))));
            p.send_values(
                None,
                || 1_700_000_000_000,
                lines.iter().map(|l| Some(&l[..])),
            )
            .expect("send");
            p.close().expect("close");
        })
    });
    let partition = datadir.partition_dir(&TopicPartition::new("p1", 0));
    group.bench_function("consume 200k records of 100 bytes", |b| {
        b.iter(|| {
            let mut c =
                PartitionConsumer::new(partition.clone(), 0, IsolationLevel::ReadUncommitted);
            let mut count = 0;
            while let Some(r) = c.next_record().expect("record") {
                black_box(&r);
                count += 1;
            }
            assert_eq!(count, RECORDS);
        })
    });
    group.finish();
}

criterion_group!(benches, pure, produce_consume);
criterion_main!(benches);
