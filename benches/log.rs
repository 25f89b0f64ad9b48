//! Append and read throughput of one partition (`cargo bench --bench log`).
//!
//! Figures quoted in BENCHMARKS.md come from this file.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use kafkit::log::{Log, LogCheckpoints, LogConfig, LogReader};
use kafkit::record::{BatchBuilder, Compression, TimestampType};

const RECORDS_PER_BATCH: usize = 100;
const VALUE_BYTES: usize = 100;
const BATCHES: usize = 1_000;

fn producer_batch(compression: Compression) -> Vec<u8> {
    let mut b = BatchBuilder::new(0, compression, TimestampType::CreateTime);
    for i in 0..RECORDS_PER_BATCH {
        let value = format!("{i:0>width$}", width = VALUE_BYTES);
        b.append(
            1_700_000_000_000 + i as i64,
            None,
            Some(value.as_bytes()),
            &[],
        );
    }
    b.build().expect("build")
}

fn append(c: &mut Criterion) {
    let mut group = c.benchmark_group("append");
    group.sample_size(10);
    for compression in [Compression::None, Compression::Lz4] {
        let batch = producer_batch(compression);
        group.throughput(Throughput::Elements((RECORDS_PER_BATCH * BATCHES) as u64));
        group.bench_function(
            format!(
                "{}x{}B records, {}",
                RECORDS_PER_BATCH * BATCHES,
                VALUE_BYTES,
                compression.name()
            ),
            |bench| {
                bench.iter_batched(
                    || tempfile::tempdir().expect("tempdir"),
                    |dir| {
                        let mut log = Log::open(
                            &dir.path().join("bench-0"),
                            LogConfig::default(),
                            LogCheckpoints::default(),
                            0,
                        )
                        .expect("open");
                        for _ in 0..BATCHES {
                            log.append(&batch, 0).expect("append");
                        }
                        log.close().expect("close");
                        dir
                    },
                    BatchSize::PerIteration,
                );
            },
        );
    }
    group.finish();
}

fn read(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bench-0");
    let batch = producer_batch(Compression::None);
    let mut log =
        Log::open(&path, LogConfig::default(), LogCheckpoints::default(), 0).expect("open");
    for _ in 0..BATCHES {
        log.append(&batch, 0).expect("append");
    }
    log.close().expect("close");

    let mut group = c.benchmark_group("read");
    group.sample_size(20);
    group.throughput(Throughput::Elements((RECORDS_PER_BATCH * BATCHES) as u64));
    group.bench_function("batches (headers only)", |bench| {
        bench.iter(|| {
            let mut reader = LogReader::open(&path).expect("reader");
            let mut r = reader.reader(0, 0).expect("segment");
            let mut n = 0i64;
            while let Some((_, b)) = r.next_batch().expect("batch") {
                n += b.last_offset();
            }
            black_box(n)
        });
    });
    group.bench_function("records (deep, CRC checked)", |bench| {
        bench.iter(|| {
            let mut reader = LogReader::open(&path).expect("reader");
            let mut r = reader.reader(0, 0).expect("segment");
            let mut n = 0usize;
            while let Some((_, b)) = r.next_batch().expect("batch") {
                b.ensure_valid().expect("valid");
                n += b.records().expect("records").len();
            }
            black_box(n)
        });
    });
    group.finish();

    // One seek = binary search of the segment's .index with positioned reads, then a forward
    // scan of at most index.interval.bytes of the .log.
    let mut group = c.benchmark_group("seek");
    group.bench_function("to the middle of a 100,000-record segment", |bench| {
        let mut reader = LogReader::open(&path).expect("reader");
        bench.iter(|| black_box(reader.seek(50_000).expect("seek")));
    });
    group.finish();
}

criterion_group!(benches, append, read);
criterion_main!(benches);
