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

/// A magic 1 gzip wrapper of `count` empty inner messages (offsets relative to the wrapper's,
/// as a v1 producer writes them), as one log entry.
fn legacy_wrapper(count: i64) -> Vec<u8> {
    // A v1 message from its crc field: crc, magic, attributes, timestamp, key, value.
    let message = |attributes: u8, value: Option<&[u8]>| {
        let mut body = vec![1u8, attributes];
        body.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
        body.extend_from_slice(&(-1i32).to_be_bytes());
        match value {
            Some(value) => {
                body.extend_from_slice(&(value.len() as i32).to_be_bytes());
                body.extend_from_slice(value);
            }
            None => body.extend_from_slice(&(-1i32).to_be_bytes()),
        }
        let mut message = crc32fast::hash(&body).to_be_bytes().to_vec();
        message.extend_from_slice(&body);
        message
    };
    let entry = |offset: i64, message: &[u8]| {
        let mut entry = offset.to_be_bytes().to_vec();
        entry.extend_from_slice(&(message.len() as i32).to_be_bytes());
        entry.extend_from_slice(message);
        entry
    };
    let inner_message = message(0, Some(b""));
    let mut inner = Vec::new();
    for offset in 0..count {
        inner.extend_from_slice(&entry(offset, &inner_message));
    }
    let compressed = kafkit::record::compress(Compression::Gzip, &inner).expect("gzip");
    entry(count - 1, &message(1, Some(&compressed)))
}

#[test]
fn consume_streams_the_messages_of_a_huge_legacy_wrapper() {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let count = 2_000_000;
    let log = dir.path().join("t-0/00000000000000000000.log");
    fs::write(&log, legacy_wrapper(count)).expect("write");
    // Held decoded at once, its messages took over 300 MB.
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
    assert_eq!(run.stdout.len() as i64, count, "one empty line a record");
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
