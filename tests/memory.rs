//! Memory that input cannot inflate: whole `kafkit` processes run under an address-space
//! limit, on batches made to be expensive.

use std::fs;

use kafkit::record::{BatchBuilder, Compression, TimestampType};

use crate::common::{kafkit, kafkit_within, tempdir};
use crate::record::legacy;

/// Records of the crafted batch: tiny ones, as many as a compressed batch of a few MB holds.
const RECORDS: i64 = 4_000_000;

/// Address space for reading it: the binary, its threads and buffers, one batch and one record.
/// Decoding every record of the batch at once took 526 MB of RAM (consume), holding its
/// decompressed bytes 51 MB (dump-log-segments). The mapped debug binary counts too (about
/// 20 MiB, growing with every command added: at 48 MiB, `produce`'s 2 x 10 MiB index maps no
/// longer fitted once the cluster commands were in); 56 MiB is still below what holding any of
/// these inputs takes (the binary plus 51 MB, or the 64 MiB line).
const STREAMING: u64 = 56 << 20;

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
    let run = consume_all(dir.path());
    run.ok();
    assert_eq!(run.stdout.len() as i64, RECORDS, "one empty line a record");
}

#[test]
fn dump_streams_the_records_of_a_huge_compressed_batch() {
    let dir = one_huge_batch(Compression::Zstd);
    let log = dir.path().join("t-0/00000000000000000000.log");
    let run = deep_dump(dir.path(), &log);
    run.ok();
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("| offset: "))
            .count() as i64,
        RECORDS
    );
}

/// A magic 1 gzip wrapper of `count` empty inner messages (offsets relative to the wrapper's,
/// as a v1 producer writes them), as one log entry.
fn legacy_wrapper(count: i64) -> Vec<u8> {
    let message = legacy::message(1, 0, 1_700_000_000_000, None, Some(b""));
    let inner: Vec<u8> = (0..count)
        .flat_map(|offset| legacy::entry(offset, &message))
        .collect();
    legacy::wrapper(
        1,
        Compression::Gzip,
        false,
        1_700_000_000_000,
        count - 1,
        &inner,
    )
}

/// `dump-log-segments --deep-iteration` of `log`, within [`STREAMING`].
fn deep_dump(dir: &std::path::Path, log: &std::path::Path) -> crate::common::Run {
    kafkit_within(
        dir,
        &[
            "dump-log-segments",
            "--deep-iteration",
            "--files",
            log.to_str().expect("utf-8"),
        ],
        STREAMING,
    )
}

/// `consume` of every record of topic `t`, within [`STREAMING`].
fn consume_all(dir: &std::path::Path) -> crate::common::Run {
    kafkit_within(
        dir,
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "200",
        ],
        STREAMING,
    )
}

#[test]
fn consume_streams_the_messages_of_a_huge_legacy_wrapper() {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let count = 2_000_000;
    let log = dir.path().join("t-0/00000000000000000000.log");
    fs::write(&log, legacy_wrapper(count)).expect("write");
    // Held decoded at once, its messages took over 300 MB.
    let run = consume_all(dir.path());
    run.ok();
    assert_eq!(run.stdout.len() as i64, count, "one empty line a record");
    let run = deep_dump(dir.path(), &log);
    run.ok();
    let offsets: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("| offset: "))
        .collect();
    assert_eq!(offsets.len() as i64, count);
    assert!(offsets[count as usize - 1].starts_with(&format!("{} ", count - 1)));
}

#[test]
fn an_entry_claiming_a_gigabyte_is_refused_not_read() {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let log = dir.path().join("t-0/00000000000000000000.log");
    // A size field of 900 MiB in a sparse file of 1000 MiB: the entry is whole on disk.
    let mut head = 0i64.to_be_bytes().to_vec();
    head.extend_from_slice(&(900i32 << 20).to_be_bytes());
    head.extend_from_slice(&[0, 0, 0, 0, 2]);
    fs::write(&log, &head).expect("write");
    fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .expect("open")
        .set_len(1000 << 20)
        .expect("extend");
    let expected =
        "a log entry of 943718412 bytes, larger than the 268435456 bytes kafkit reads at once";
    let run = consume_all(dir.path());
    let stderr = run.fails();
    assert!(
        stderr.contains("Record batch for partition t-0 at offset 0 is invalid"),
        "{stderr}"
    );
    assert!(stderr.contains(expected), "{stderr}");
    let run = kafkit_within(
        dir.path(),
        &["dump-log-segments", "--files", log.to_str().expect("utf-8")],
        STREAMING,
    );
    let stderr = run.fails();
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn produce_reads_through_a_line_too_long_to_send() {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    // 64 MiB without a line end, then a line that fits.
    let input = dir.path().join("input.txt");
    let mut bytes = vec![b'a'; 64 << 20];
    bytes.extend_from_slice(b"\nsmall\n");
    fs::write(&input, &bytes).expect("write input");
    drop(bytes);
    let run = kafkit_within(
        dir.path(),
        &[
            "produce",
            "--topic",
            "t",
            "--file",
            input.to_str().expect("utf-8"),
        ],
        STREAMING,
    );
    // Kafka's refusal, sized as Kafka sizes the record (a batch of it alone: 61 + 21 bytes of
    // overhead at most, a null key, the value's 4-byte length varint, no headers).
    let size = 61 + 21 + 1 + 4 + (64 << 20) + 1;
    assert!(
        run.stderr.contains(&format!(
            "with key: null, value: {} bytes with error:  (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)\norg.apache.kafka.common.errors.RecordTooLargeException: The message is {size} bytes when serialized which is larger than 1048576, which is the value of the max.request.size configuration.",
            64 << 20
        )),
        "{}",
        run.stderr
    );
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "200",
        ],
    );
    assert_eq!(run.stdout, "small\n");
}
