//! `dump-log-segments` throughput (`cargo bench --bench dump`).
//!
//! Writes a segment once to `target/bench-data/dump-<MiB>/00000000000000000000.log`
//! (`KAFKIT_BENCH_MB`, default 256: batches of 100 records of 100-byte values, uncompressed,
//! plus a second, lz4-compressed segment) and dumps it in-process to a sink: batch level (every
//! batch header and CRC), and deep iteration with `--print-data-log`. The same files serve the
//! command-line figures in BENCHMARKS.md (`cat` vs `kafkit`, peak memory).

use std::hint::black_box;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kafkit::output::dump::{dump_files, DumpOptions};
use kafkit::output::OutputFormat;
use kafkit::record::{BatchBuilder, Compression, TimestampType};

const RECORDS_PER_BATCH: usize = 100;
const VALUE_BYTES: usize = 100;

fn segment(compression: Compression) -> PathBuf {
    let mb: u64 = std::env::var("KAFKIT_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-data")
        .join(format!("dump-{mb}-{}-0", compression.name()));
    let path = dir.join("00000000000000000000.log");
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("bench dir");
    let tmp = dir.join("segment.tmp");
    let mut out = io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
    let (mut written, mut offset) = (0u64, 0i64);
    while written < mb << 20 {
        let mut b = BatchBuilder::new(offset, compression, TimestampType::CreateTime);
        for i in 0..RECORDS_PER_BATCH {
            let value = format!("value {offset:>12} {i:0>width$}", width = VALUE_BYTES - 20);
            b.append(
                1_700_000_000_000 + offset + i as i64,
                Some(format!("key-{}", (offset + i as i64) % 1000).as_bytes()),
                Some(value.as_bytes()),
                &[],
            );
        }
        let bytes = b.build().expect("build");
        out.write_all(&bytes).expect("write");
        written += bytes.len() as u64;
        offset += RECORDS_PER_BATCH as i64;
    }
    out.flush().expect("flush");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename");
    path
}

/// Dumps `path` as `kafkit dump-log-segments --files PATH` does (`deep`: with
/// `--deep-iteration --print-data-log`).
fn run(path: &Path, deep: bool) {
    let options = DumpOptions {
        deep_iteration: deep,
        print_data_log: deep,
        ..DumpOptions::default()
    };
    let p = path.to_string_lossy();
    let outcome = dump_files(
        &options,
        &[p.as_ref()],
        OutputFormat::Text,
        io::sink(),
        io::sink(),
        None,
    )
    .expect("dump");
    black_box(outcome);
}

fn dumps(c: &mut Criterion) {
    let mut group = c.benchmark_group("dump-log-segments");
    group.sample_size(10);
    for compression in [Compression::None, Compression::Lz4] {
        let path = segment(compression);
        let len = std::fs::metadata(&path).expect("segment").len();
        group.throughput(Throughput::Bytes(len));
        group.bench_function(
            format!("batches {} MiB {}", len >> 20, compression.name()),
            |b| b.iter(|| run(&path, false)),
        );
        group.bench_function(
            format!(
                "deep print-data-log {} MiB {}",
                len >> 20,
                compression.name()
            ),
            |b| b.iter(|| run(&path, true)),
        );
    }
    group.finish();
}

criterion_group!(benches, dumps);
criterion_main!(benches);
