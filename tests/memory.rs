//! Memory that input cannot inflate: whole `kafkit` processes run under an address-space
//! limit, on batches made to be expensive.

use std::fs;

use kafkit::record::{BatchBuilder, Compression, TimestampType};

use crate::common::{kafkit, kafkit_within, tempdir};

/// Records of the crafted batch: tiny ones, as many as a compressed batch of a few MB holds.
const RECORDS: i64 = 4_000_000;

/// Address space for reading it: the binary, its threads and buffers, one batch and one record.
/// Decoding every record of the batch at once took 526 MB of RAM (consume), holding its
/// decompressed bytes 51 MB (dump-log-segments).
const STREAMING: u64 = 48 << 20;

/// A topic `t` whose one segment is a single `codec` batch of [`RECORDS`] empty records: a few
/// MB on disk, about 36 MB decompressed.
fn one_huge_batch(codec: Compression) -> tempfile::TempDir {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let mut builder = BatchBuilder::new(0, codec, TimestampType::CreateTime);
    for _ in 0..RECORDS {
        builder.append(1_700_000_000_000, None, Some(b""), &[]);
    }
    let batch = builder.build().expect("build");
    fs::write(dir.path().join("t-0/00000000000000000000.log"), &batch).expect("write");
    dir
}

#[test]
fn consume_streams_the_records_of_a_huge_compressed_batch() {
    let dir = one_huge_batch(Compression::Gzip);
    let run = kafkit_within(
        dir.path(),
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "200",
        ],
        STREAMING,
    );
    run.ok();
    assert_eq!(run.stdout.len() as i64, RECORDS, "one empty line a record");
}

#[test]
fn dump_streams_the_records_of_a_huge_compressed_batch() {
    let dir = one_huge_batch(Compression::Zstd);
    let log = dir.path().join("t-0/00000000000000000000.log");
    let run = kafkit_within(
        dir.path(),
        &[
            "dump-log-segments",
            "--deep-iteration",
            "--files",
            log.to_str().expect("utf-8"),
        ],
        STREAMING,
    );
    run.ok();
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("| offset: "))
            .count() as i64,
        RECORDS
    );
}
