//! What `kafkit produce` writes is Kafka data: kafka-python, an independent implementation,
//! reads every batch (valid CRC, the codec asked for, consecutive offsets) and finds the same
//! records `kafkit consume` prints; the `.index`/`.timeindex` entries follow Kafka's rules.
//!
//! Needs `python3` with kafka-python (installed by `.ci/run`). Without it the test is skipped
//! with a visible SKIPPED line (`common::skip`), unless prerequisites are required (CI) or
//! `KAFKIT_REQUIRE_KAFKA_PYTHON` is set, where it fails.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use kafkit::datadir::{DataDir, TopicPartition};
use kafkit::log::LogReader;

use crate::common::{kafkit_stdin, repo_root, skip, tempdir};
use crate::produce::{consume_all, create_topic};

/// kafka-python's view of some `.log` files, or `None` (after saying SKIPPED) without it.
fn kafka_python(logs: &[&Path]) -> Option<Value> {
    let script = repo_root().join("scripts/read-with-kafka-python.py");
    let out = Command::new("python3").arg(&script).args(logs).output();
    let required = std::env::var_os("KAFKIT_REQUIRE_KAFKA_PYTHON").is_some();
    let out = match out {
        Ok(out) if out.status.code() == Some(2) || out.status.code().is_none() => {
            assert!(
                !required,
                "kafka-python is required: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            skip("kafka-python is not installed (pip install kafka-python)");
            return None;
        }
        Err(e) => {
            assert!(!required, "python3 is required: {e}");
            skip(&format!("python3 was not found ({e})"));
            return None;
        }
        Ok(out) => out,
    };
    assert!(
        out.status.success(),
        "kafka-python failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("script output"))
}

fn segment_logs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut logs: Vec<_> = std::fs::read_dir(dir)
        .expect("partition dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    logs
}

#[test]
fn kafka_python_reads_what_produce_wrote_for_every_codec() {
    let dir = tempdir();
    let mut input = String::new();
    for i in 0..400 {
        let value = if i % 37 == 0 {
            "<NULL>".to_string()
        } else {
            format!("value-{i}-{}", "v".repeat(i % 90))
        };
        input.push_str(&format!("trace:{i},empty:\tkey-{i}\t{value}\n"));
    }
    for (codec, configs) in [
        ("none", &[][..]),
        ("gzip", &[][..]),
        ("snappy", &[][..]),
        ("lz4", &["message.timestamp.type=LogAppendTime"][..]),
        (
            "zstd",
            &["segment.bytes=1048576", "index.interval.bytes=100"][..],
        ),
    ] {
        let topic = format!("interop-{codec}");
        create_topic(dir.path(), &topic, 1, configs);
        kafkit_stdin(
            dir.path(),
            &[
                "produce",
                "--topic",
                &topic,
                "--compression-codec",
                codec,
                "--batch-size",
                "1500",
                "--property",
                "parse.key=true",
                "--property",
                "parse.headers=true",
                "--property",
                "null.marker=<NULL>",
            ],
            input.as_bytes(),
        )
        .ok();
        let Some(consumed) = read_back_with_kafka_python(dir.path(), &topic, codec, 400) else {
            return;
        };
        if codec == "lz4" {
            assert_eq!(consumed[0]["timestamp_type"], "LogAppendTime");
        }
    }
}

/// Lines that are whole values go to the producer a block at a time, and their records are
/// written from two words when their varints fit two bytes: kafka-python reads those batches
/// too. Values of many lengths (0 to 300 bytes, and around 8,192, where a record's lengths take
/// three varint bytes), `\n` and `\r\n` line ends, batches of more than 64 records (two-byte
/// offset deltas).
#[test]
fn kafka_python_reads_plain_lines_sent_by_block_for_every_codec() {
    let dir = tempdir();
    let mut input = String::new();
    for i in 0..3_000usize {
        let len = if i % 500 == 7 {
            8_180 + i % 20
        } else {
            i * 37 % 300
        };
        input.push_str(&"p".repeat(len));
        input.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
    }
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let topic = format!("plain-{codec}");
        create_topic(dir.path(), &topic, 1, &[]);
        kafkit_stdin(
            dir.path(),
            &[
                "produce",
                "--topic",
                &topic,
                "--compression-codec",
                codec,
                "--batch-size",
                "20000",
            ],
            input.as_bytes(),
        )
        .ok();
        if read_back_with_kafka_python(dir.path(), &topic, codec, 3_000).is_none() {
            return;
        }
    }
}

/// Checks what kafka-python reads of partition 0 of `topic` against what `kafkit consume`
/// prints (`count` records, every batch valid, of `codec`, consecutive offsets), then the
/// indexes; returns the consumed records, or `None` when kafka-python is not there (the test
/// is then SKIPPED).
fn read_back_with_kafka_python(
    dir: &Path,
    topic: &str,
    codec: &str,
    count: i64,
) -> Option<Vec<Value>> {
    let partition = DataDir::open(dir)
        .expect("datadir")
        .partition_dir(&TopicPartition::new(topic, 0));
    let logs = segment_logs(&partition);
    let log_refs: Vec<&Path> = logs.iter().map(|p| p.as_path()).collect();
    let seen = kafka_python(&log_refs)?;
    let consumed = consume_all(dir, topic);
    assert_eq!(consumed.len() as i64, count);
    let mut next = 0i64;
    let mut batches = 0;
    let mut i = 0;
    for file in seen["files"].as_array().expect("files") {
        assert_eq!(
            file["valid_bytes"], file["size"],
            "{codec}: no trailing bytes"
        );
        for batch in file["batches"].as_array().expect("batches") {
            batches += 1;
            assert_eq!(batch["magic"], 2);
            assert_eq!(batch["crc_valid"], true, "{codec}");
            assert_eq!(batch["codec"], codec);
            assert_eq!(batch["base_offset"], next, "{codec}: consecutive offsets");
            let records = batch["records"].as_array().expect("records");
            assert_eq!(batch["last_offset_delta"], records.len() as i64 - 1);
            for r in records {
                let c = &consumed[i];
                assert_eq!(r["offset"], next);
                assert_eq!(r["offset"], c["offset"]);
                assert_eq!(r["timestamp"], c["timestamp"], "{codec}");
                assert_eq!(r["key"], c["key"]);
                assert_eq!(r["value"], c["value"]);
                let headers: Vec<Value> = c["headers"]
                    .as_array()
                    .expect("headers")
                    .iter()
                    .map(|h| serde_json::json!([h["key"], h["value"]]))
                    .collect();
                assert_eq!(r["headers"], Value::Array(headers));
                next += 1;
                i += 1;
            }
        }
    }
    assert_eq!(next, count, "{codec}");
    assert!(batches > 10, "{codec}: {batches} batches");
    check_indexes(&partition);
    Some(consumed)
}

/// Kafka's index rules: every `.index` entry is (last offset of a batch, that batch's start),
/// strictly increasing; every `.timeindex` entry names a batch's last offset and the largest
/// timestamp up to it, both non-decreasing.
fn check_indexes(partition: &Path) {
    let mut log = LogReader::open(partition).expect("log");
    let bases = log.segment_base_offsets().to_vec();
    for base in bases {
        let mut starts = std::collections::BTreeMap::new();
        let mut max_so_far = std::collections::BTreeMap::new();
        let mut reader = log.reader(base, 0).expect("reader");
        let mut max_ts = -1;
        while let Some((pos, batch)) = reader.next_batch().expect("batch") {
            starts.insert(batch.last_offset(), pos);
            max_ts = max_ts.max(batch.max_timestamp());
            max_so_far.insert(batch.last_offset(), max_ts);
        }
        let seg = log.segment(base).expect("segment");
        let entries = seg.offset_index().all_entries().expect("index");
        assert!(
            !entries.is_empty() || starts.len() < 3,
            "{partition:?}: an index"
        );
        for w in entries.windows(2) {
            assert!(w[0].offset < w[1].offset && w[0].position < w[1].position);
        }
        for e in &entries {
            assert_eq!(
                starts.get(&e.offset),
                Some(&u64::from(e.position)),
                "index entry {e:?}"
            );
        }
        let times = seg
            .time_index()
            .expect("timeindex")
            .all_entries()
            .expect("timeindex");
        for w in times.windows(2) {
            assert!(w[0].offset <= w[1].offset && w[0].timestamp <= w[1].timestamp);
        }
        for t in &times {
            assert_eq!(
                max_so_far.get(&t.offset),
                Some(&t.timestamp),
                "time entry {t:?}"
            );
        }
    }
}
