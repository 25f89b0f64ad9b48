//! Memory that input cannot inflate: peak resident memory of whole `kafkit` processes, as the
//! kernel accounts it, on batches made to be expensive.

use std::fs;

use kafkit::record::{BatchBuilder, Compression, TimestampType};

use crate::common::{kafkit, kafkit_peak_kib, tempdir};

/// The bound for any command on any input.
const BOUND_KIB: u64 = 512 << 10;
/// Records of the crafted batch: tiny ones, as many as a compressed batch of a few MB holds.
const RECORDS: i64 = 4_000_000;

/// A topic `t` whose one segment is a single `codec` batch of [`RECORDS`] empty records: a few
/// MB on disk, tens of MB decompressed, and over a hundred bytes a record once decoded into
/// records held at once.
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
fn consume_and_dump_stream_the_records_of_a_huge_compressed_batch() {
    for codec in [Compression::Gzip, Compression::Zstd] {
        let dir = one_huge_batch(codec);
        let (run, peak) = kafkit_peak_kib(
            dir.path(),
            &["consume", "--topic", "t", "--from-beginning", "--timeout-ms", "200"],
        );
        run.ok();
        assert_eq!(run.stdout.len() as i64, RECORDS, "{codec:?}: one empty line a record");
        // Every record decoded at once took over 500 MB here; streamed, memory is the batch,
        // a codec buffer and a record.
        assert!(peak < 64 << 10, "{codec:?}: consume peaked at {peak} KiB");
        let log = dir.path().join("t-0/00000000000000000000.log");
        let (run, peak) = kafkit_peak_kib(
            dir.path(),
            &["dump-log-segments", "--deep-iteration", "--files", log.to_str().expect("utf-8")],
        );
        run.ok();
        assert_eq!(
            run.stdout.lines().filter(|l| l.starts_with("| offset: ")).count() as i64,
            RECORDS,
            "{codec:?}"
        );
        assert!(peak < 64 << 10, "{codec:?}: dump peaked at {peak} KiB");
        assert!(peak < BOUND_KIB);
    }
}
