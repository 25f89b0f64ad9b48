//! `kafkit log-cleaner`: retention's rules on small logs built for each (records produced with
//! timestamps hours apart, one segment each), judged at a `--now` in their future.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::{kafkit, kafkit_stdin, tempdir};

const T0: i64 = 1_700_000_000_000;
const HOUR: i64 = 3_600_000;

/// Makes topic `t` with `configs` (and `segment.ms` of an hour, so that each record, produced
/// 2 hours after the one before, starts a segment) and writes one record per timestamp,
/// `v0`, `v1`, ...
fn topic_with_segments(d: &Path, configs: &[&str], stamps: &[i64]) {
    let mut args = vec![
        "topics",
        "--create",
        "--topic",
        "t",
        "--config",
        "segment.ms=3600000",
    ];
    for c in configs {
        args.extend(["--config", c]);
    }
    kafkit(d, &args).ok();
    let input: String = stamps
        .iter()
        .enumerate()
        .map(|(i, ts)| format!("{{\"key\":\"k{i}\",\"value\":\"v{i}\",\"timestamp\":{ts}}}\n"))
        .collect();
    kafkit_stdin(
        d,
        &["produce", "--topic", "t", "--input", "json", "--sync"],
        input.as_bytes(),
    )
    .ok();
}

/// The partition's files, sorted.
fn files(d: &Path) -> Vec<String> {
    files_of(&d.join("t-0"))
}

/// The base offsets of the partition's `.log` files.
fn segments(d: &Path) -> Vec<i64> {
    files(d)
        .iter()
        .filter_map(|n| n.strip_suffix(".log"))
        .map(|n| n.parse().unwrap())
        .collect()
}

/// `offset:value` of every record a consumer reads from the beginning.
fn consumed(d: &Path) -> Vec<String> {
    let run = kafkit(
        d,
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--property",
            "print.offset=true",
        ],
    );
    run.stdout
        .lines()
        .map(|l| l.replace("Offset:", "").replace('\t', ":"))
        .collect()
}

fn cleaner(d: &Path, now: i64, extra: &[&str]) -> crate::common::Run {
    let now = now.to_string();
    let mut args = vec!["log-cleaner", "--now", &now];
    args.extend(extra);
    kafkit(d, &args)
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn retention_ms_deletes_the_expired_segments_oldest_first() {
    let dir = tempdir();
    let d = dir.path();
    let stamps = [T0, T0 + 2 * HOUR, T0 + 4 * HOUR, T0 + 6 * HOUR];
    topic_with_segments(d, &["retention.ms=10800000"], &stamps);
    assert_eq!(segments(d), [0, 1, 2, 3]);
    // At T0 + 8h, the segments of T0 and T0+2h are more than 3 hours old; T0+4h is exactly 4h
    // old too, and goes; T0+6h (2h) stays.
    let run = cleaner(d, T0 + 8 * HOUR, &["--output", "json"]);
    let events = json_lines(run.ok());
    let deleted: Vec<(i64, &str)> = events
        .iter()
        .filter(|e| e["type"] == "segment")
        .map(|e| {
            (
                e["base_offset"].as_i64().unwrap(),
                e["rule"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        deleted,
        [
            (0, "retention.ms"),
            (1, "retention.ms"),
            (2, "retention.ms")
        ]
    );
    assert_eq!(events[0]["largest_timestamp"], T0);
    assert_eq!(events[0]["records"], 1);
    let partition = events.iter().find(|e| e["type"] == "partition").unwrap();
    assert_eq!(partition["log_start_offset"], 3);
    assert_eq!(partition["rolled"], false);
    assert_eq!(segments(d), [3]);
    // The files wait for file.delete.delay.ms as `.deleted`.
    assert!(files(d).contains(&"00000000000000000000.log.deleted".to_string()));
    assert_eq!(consumed(d), ["3:v3"]);
    let earliest = kafkit(d, &["get-offsets", "--topic", "t", "--time", "earliest"]);
    assert_eq!(earliest.ok(), "t:0:3\n");
}

#[test]
fn every_segment_expired_rolls_the_active_one_and_keeps_the_log_end() {
    let dir = tempdir();
    let d = dir.path();
    topic_with_segments(d, &["retention.ms=3600000"], &[T0, T0 + 2 * HOUR]);
    let run = cleaner(d, T0 + 10 * HOUR, &[]);
    let out = run.ok();
    assert!(
        out.contains("Deleted segment 1 of t-0 (offsets 1..2, 1 record"),
        "{out}"
    );
    assert!(out.contains("t-0 now starts at offset 2 (its active segment was rolled first)"));
    assert!(
        out.ends_with("Deleted 2 segments (144 bytes, 2 records) of 1 partition.\n"),
        "{out}"
    );
    assert_eq!(segments(d), [2]);
    assert_eq!(consumed(d), Vec::<String>::new());
    // The log goes on at its end.
    kafkit_stdin(d, &["produce", "--topic", "t"], b"next\n").ok();
    assert_eq!(consumed(d), ["2:next"]);
    // An empty active segment never goes.
    let again = cleaner(d, T0 + 20 * HOUR, &[]);
    assert!(
        again.ok().starts_with("Deleted 0 segments"),
        "{}",
        again.stdout
    );
}

#[test]
fn retention_bytes_keeps_at_least_that_much() {
    let dir = tempdir();
    let d = dir.path();
    let stamps = [T0, T0 + 2 * HOUR, T0 + 4 * HOUR, T0 + 6 * HOUR];
    // 72 bytes a segment, 288 in all: keeping at least 140 lets the two oldest go.
    topic_with_segments(d, &["retention.ms=-1", "retention.bytes=140"], &stamps);
    let run = cleaner(d, T0, &["--output", "json"]);
    let rules: Vec<Value> = json_lines(run.ok())
        .into_iter()
        .filter(|e| e["type"] == "segment")
        .map(|e| e["rule"].clone())
        .collect();
    assert_eq!(rules, ["retention.bytes", "retention.bytes"]);
    assert_eq!(segments(d), [2, 3]);
    assert_eq!(consumed(d), ["2:v2", "3:v3"]);
}

#[test]
fn a_dry_run_says_what_and_why_and_changes_nothing() {
    let dir = tempdir();
    let d = dir.path();
    topic_with_segments(
        d,
        &["retention.ms=3600000"],
        &[T0, T0 + 2 * HOUR, T0 + 4 * HOUR],
    );
    let before = files(d);
    let run = cleaner(d, T0 + 5 * HOUR, &["--dry-run"]);
    let out = run.ok();
    assert!(out.contains("PARTITION"), "{out}");
    assert!(
        out.contains(&format!(
            "its largest timestamp {T0} is {} ms old, past retention.ms=3600000",
            5 * HOUR
        )),
        "{out}"
    );
    assert!(out.ends_with("Would delete 2 segments (144 bytes, 2 records) of 1 partition.\n"));
    assert_eq!(files(d), before);
    let json = cleaner(d, T0 + 5 * HOUR, &["--dry-run", "--output", "json"]);
    let events = json_lines(json.ok());
    assert!(events.iter().all(|e| e["dry_run"] == true), "{events:?}");
    assert_eq!(events.last().unwrap()["type"], "summary");
    assert_eq!(files(d), before);
}

#[test]
fn deleted_files_stay_for_file_delete_delay_ms() {
    let dir = tempdir();
    let d = dir.path();
    topic_with_segments(
        d,
        &["retention.ms=3600000", "file.delete.delay.ms=600000"],
        &[T0, T0 + 2 * HOUR, T0 + 4 * HOUR],
    );
    // A producer snapshot at a deleted segment's base goes with it.
    fs::write(d.join("t-0/00000000000000000001.snapshot"), b"").unwrap();
    let now = kafkit::datadir::now_ms();
    // The clock says now: the segments of T0 (2023) are long expired.
    kafkit(d, &["log-cleaner"]).ok();
    let deleted: Vec<String> = files(d)
        .into_iter()
        .filter(|f| f.ends_with(".deleted"))
        .collect();
    assert!(deleted.contains(&"00000000000000000001.snapshot.deleted".to_string()));
    assert!(deleted.contains(&"00000000000000000000.log.deleted".to_string()));
    // Ten minutes have not passed: nothing is removed.
    let early = cleaner(d, now + 60_000, &[]);
    assert!(!early.ok().contains("Removed"), "{}", early.stdout);
    assert_eq!(
        files(d).iter().filter(|f| f.ends_with(".deleted")).count(),
        deleted.len()
    );
    // Eleven minutes later they are.
    let late = cleaner(d, now + 660_000, &[]);
    assert_eq!(
        late.ok().matches("Removed ").count(),
        deleted.len(),
        "{}",
        late.stdout
    );
    assert!(files(d).iter().all(|f| !f.ends_with(".deleted")));
}

#[test]
fn with_no_delay_deleted_files_go_at_once() {
    let dir = tempdir();
    let d = dir.path();
    topic_with_segments(
        d,
        &["retention.ms=3600000", "file.delete.delay.ms=0"],
        &[T0, T0 + 2 * HOUR, T0 + 4 * HOUR],
    );
    cleaner(d, T0 + 5 * HOUR, &[]).ok();
    assert_eq!(
        files(d),
        [
            "00000000000000000002.index",
            "00000000000000000002.log",
            "00000000000000000002.timeindex",
            "partition.metadata"
        ]
    );
}

#[test]
fn the_log_start_offset_deletes_segments_below_it_even_when_compacted() {
    let dir = tempdir();
    let d = dir.path();
    let stamps = [T0, T0 + 2 * HOUR, T0 + 4 * HOUR];
    topic_with_segments(d, &["cleanup.policy=compact", "retention.ms=1"], &stamps);
    // Records deleted up to offset 2 (what delete-records leaves), and a leader-epoch file.
    fs::write(d.join("log-start-offset-checkpoint"), "0\n1\nt 0 2\n").unwrap();
    fs::write(d.join("t-0/leader-epoch-checkpoint"), "0\n2\n0 0\n3 1\n").unwrap();
    let run = cleaner(d, T0 + 100 * HOUR, &["--output", "json"]);
    let events = json_lines(run.ok());
    let rules: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "segment")
        .map(|e| &e["rule"])
        .collect();
    // retention.ms does not apply without `delete`: only the log start offset rule.
    assert_eq!(rules, ["log-start-offset", "log-start-offset"]);
    // Three keys once each, and only the active segment left: nothing to clean.
    let compaction = events.iter().find(|e| e["type"] == "compaction").unwrap();
    assert_eq!(compaction["cleaned"], false);
    assert_eq!(segments(d), [2]);
    // The log starts at its first segment: Kafka leaves it out of the checkpoint.
    assert_eq!(
        fs::read_to_string(d.join("log-start-offset-checkpoint")).unwrap(),
        "0\n0\n"
    );
    assert_eq!(
        fs::read_to_string(d.join("t-0/leader-epoch-checkpoint")).unwrap(),
        "0\n1\n3 2\n"
    );
}

#[test]
fn a_crash_between_renames_leaves_a_log_the_next_open_takes() {
    let dir = tempdir();
    let d = dir.path();
    topic_with_segments(
        d,
        &["retention.ms=3600000"],
        &[T0, T0 + 2 * HOUR, T0 + 4 * HOUR],
    );
    // What a kill -9 after the first `.log` rename leaves: its indexes still named.
    fs::rename(
        d.join("t-0/00000000000000000000.log"),
        d.join("t-0/00000000000000000000.log.deleted"),
    )
    .unwrap();
    assert_eq!(consumed(d), ["1:v1", "2:v2"]);
    kafkit_stdin(d, &["produce", "--topic", "t"], b"v3\n").ok();
    assert_eq!(consumed(d), ["1:v1", "2:v2", "3:v3"]);
    assert!(!files(d)
        .iter()
        .any(|f| f.starts_with("00000000000000000000.")));
}

#[test]
fn only_the_topics_asked_for() {
    let dir = tempdir();
    let d = dir.path();
    topic_with_segments(d, &["retention.ms=3600000"], &[T0, T0 + 2 * HOUR]);
    kafkit(d, &["topics", "--create", "--topic", "other"]).ok();
    let run = cleaner(d, T0 + 10 * HOUR, &["--topic", "other"]);
    assert_eq!(
        run.ok(),
        "Deleted 0 segments (0 bytes, 0 records) of 1 partition.\n"
    );
    assert_eq!(segments(d), [0, 1]);
    let missing = cleaner(d, T0, &["--topic", "absent"]);
    assert!(
        missing.fails().contains("Topic 'absent' does not exist"),
        "{}",
        missing.stderr
    );
}

/// A compacted topic `c`: a, b, a, (no key), b's tombstone, then c in the active segment, each
/// record in its own segment but the pairs produced within an hour.
fn compacted(d: &Path) {
    kafkit(
        d,
        &[
            "topics",
            "--create",
            "--topic",
            "c",
            "--config",
            "cleanup.policy=compact",
            "--config",
            "segment.ms=3600000",
        ],
    )
    .ok();
    let day = 24 * HOUR;
    let input = format!(
        concat!(
            "{{\"key\":\"a\",\"value\":\"1\",\"timestamp\":{}}}\n",
            "{{\"key\":\"b\",\"value\":\"1\",\"timestamp\":{}}}\n",
            "{{\"key\":\"a\",\"value\":\"2\",\"timestamp\":{}}}\n",
            "{{\"value\":\"nokey\",\"timestamp\":{}}}\n",
            "{{\"key\":\"b\",\"value\":null,\"timestamp\":{}}}\n",
            "{{\"key\":\"c\",\"value\":\"1\",\"timestamp\":{}}}\n"
        ),
        T0,
        T0 + 1,
        T0 + day,
        T0 + day + 1,
        T0 + 2 * day,
        T0 + 3 * day
    );
    kafkit_stdin(
        d,
        &["produce", "--topic", "c", "--input", "json", "--sync"],
        input.as_bytes(),
    )
    .ok();
}

fn compaction_event(d: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--dry-run", "--output", "json", "--topic", "c"];
    args.extend(extra);
    let run = cleaner(d, T0 + 10 * 24 * HOUR, &args);
    json_lines(run.ok())
        .into_iter()
        .find(|e| e["type"] == "compaction")
        .unwrap()
}

#[test]
fn a_dry_run_of_a_compacted_topic_says_what_kafkas_cleaner_would_remove() {
    let dir = tempdir();
    let d = dir.path();
    compacted(d);
    let before = fs::read_dir(d.join("c-0")).unwrap().count();
    let c = compaction_event(d, &[]);
    // Never cleaned: everything up to the active segment (offset 5) is dirty.
    assert_eq!(c["first_dirty_offset"], 0);
    assert_eq!(c["first_uncleanable_offset"], 5);
    assert_eq!(c["dirty_ratio"], 1.0);
    assert_eq!(c["cleanable"], true);
    assert_eq!(c["end_offset"], 5);
    assert_eq!(c["keys"], 2);
    // a@0 and b@1 are superseded, the keyless record goes, b's tombstone stays with a horizon.
    assert_eq!(c["records"], 5);
    assert_eq!(c["superseded"], 2);
    assert_eq!(c["without_key"], 1);
    assert_eq!(c["tombstones_removed"], 0);
    assert_eq!(c["tombstones_marked"], 1);
    assert_eq!(fs::read_dir(d.join("c-0")).unwrap().count(), before);
    // Cleaned up to 4 already (the cleaner checkpoint): only one segment is dirty.
    fs::write(d.join("cleaner-offset-checkpoint"), "0\n1\nc 0 4\n").unwrap();
    let c = compaction_event(d, &[]);
    assert_eq!(c["first_dirty_offset"], 4);
    assert!(c["dirty_ratio"].as_f64().unwrap() < 0.5, "{c}");
    assert_eq!(c["cleanable"], false);
    assert_eq!(c["why"], "not-dirty-enough");
}

#[test]
fn a_full_offset_map_stops_the_cleaning_where_kafkas_would() {
    let dir = tempdir();
    let d = dir.path();
    compacted(d);
    // Two slots: full (at 90%) after one key, so the map ends at a's first offset.
    let c = compaction_event(d, &["--dedupe-buffer-size", "48"]);
    assert_eq!(c["keys"], 1);
    assert_eq!(c["end_offset"], 1);
    assert_eq!(c["superseded"], 0);
}

/// What a cleaning that dropped record 0 leaves when killed: the new segment `0` (holding
/// offset 1 alone) as `.swap`, the old segments `0` and `1` still in place.
fn interrupted_clean(d: &Path) {
    topic_with_segments(d, &["retention.ms=-1"], &[T0, T0 + 2 * HOUR, T0 + 4 * HOUR]);
    let p = d.join("t-0");
    fs::copy(
        p.join("00000000000000000001.log"),
        p.join("00000000000000000000.log.swap"),
    )
    .unwrap();
}

#[test]
fn a_finished_swap_is_completed_by_the_next_open() {
    let dir = tempdir();
    let d = dir.path();
    interrupted_clean(d);
    // Readers see the log as the swap leaves it, before a writer completes it.
    assert_eq!(consumed(d), ["1:v1", "2:v2"]);
    cleaner(d, T0, &[]).ok();
    assert_eq!(segments(d), [0, 2]);
    assert!(!files(d).iter().any(|f| f.ends_with(".swap")));
    assert_eq!(consumed(d), ["1:v1", "2:v2"]);
    // The swapped-in segment got its indexes rebuilt.
    let dump = kafkit(
        d,
        &[
            "dump-log-segments",
            "--files",
            d.join("t-0/00000000000000000000.timeindex")
                .to_str()
                .unwrap(),
        ],
    );
    assert!(
        dump.ok().contains("timestamp: 1700007200000 offset: 1"),
        "{}",
        dump.stdout
    );
}

#[test]
fn a_swap_beside_cleaned_files_is_undone_by_the_next_open() {
    let dir = tempdir();
    let d = dir.path();
    interrupted_clean(d);
    // Killed before the index was renamed: the cleaning never happened.
    fs::write(d.join("t-0/00000000000000000000.index.cleaned"), b"").unwrap();
    kafkit_stdin(d, &["produce", "--topic", "t"], b"v3\n").ok();
    // (v3, written now, rolls a segment of its own.)
    assert_eq!(segments(d), [0, 1, 2, 3]);
    assert!(!files(d)
        .iter()
        .any(|f| f.ends_with(".swap") || f.ends_with(".cleaned")));
    assert_eq!(consumed(d), ["0:v0", "1:v1", "2:v2", "3:v3"]);
}

/// `key:value` (null for a tombstone) at each offset of topic `topic`.
fn consumed_keys(d: &Path, topic: &str) -> Vec<String> {
    let run = kafkit(
        d,
        &[
            "consume",
            "--topic",
            topic,
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--property",
            "print.offset=true",
            "--property",
            "print.key=true",
        ],
    );
    run.stdout
        .lines()
        .map(|l| l.replace("Offset:", "").replace('\t', ":"))
        .collect()
}

#[test]
fn compaction_keeps_the_latest_value_of_each_key_and_marks_then_drops_tombstones() {
    let dir = tempdir();
    let d = dir.path();
    compacted(d);
    // A producer snapshot at a segment the cleaning merges away goes with it.
    fs::write(d.join("c-0/00000000000000000002.snapshot"), b"").unwrap();
    let now = T0 + 10 * 24 * HOUR;
    let run = cleaner(d, now, &["--topic", "c"]);
    assert!(
        run.ok().contains("Cleaned c-0 up to offset 5: removed 3 of 5 records (2 superseded, 1 without a key, 0 tombstones past their delete horizon), 1 tombstone given a delete horizon"),
        "{}",
        run.stdout
    );
    // Offsets kept with their gaps; the active segment (c) untouched.
    assert_eq!(consumed_keys(d, "c"), ["2:a:2", "4:b:null", "5:c:1"]);
    assert_eq!(
        fs::read_to_string(d.join("cleaner-offset-checkpoint")).unwrap(),
        "0\n1\nc 0 5\n"
    );
    let p = d.join("c-0");
    let logs: Vec<String> = fs::read_dir(&p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    // The four cleaned segments fit one.
    assert_eq!(
        logs,
        ["00000000000000000000.log", "00000000000000000005.log"]
    );
    assert!(!p.join("00000000000000000002.snapshot").exists());
    // The tombstone's batch has its delete horizon: now + delete.retention.ms, as base timestamp.
    let dump = kafkit(
        d,
        &[
            "dump-log-segments",
            "--files",
            p.join("00000000000000000000.log").to_str().unwrap(),
        ],
    );
    let horizon = now + 86_400_000;
    assert!(
        dump.ok()
            .contains(&format!("deleteHorizonMs: OptionalLong[{horizon}]")),
        "{}",
        dump.stdout
    );
    // Nothing dirty: a second pass cleans nothing.
    let again = cleaner(d, now, &["--topic", "c"]);
    assert!(
        again.ok().contains("not cleaned (not-dirty-enough)"),
        "{}",
        again.stdout
    );
    // New records make it dirty again; past the horizon the tombstone goes.
    let input = format!(
        "{{\"key\":\"d\",\"value\":\"1\",\"timestamp\":{}}}\n{{\"key\":\"a\",\"value\":\"3\",\"timestamp\":{}}}\n{{\"key\":\"e\",\"value\":\"1\",\"timestamp\":{}}}\n",
        T0 + 4 * 24 * HOUR,
        T0 + 5 * 24 * HOUR,
        T0 + 6 * 24 * HOUR
    );
    kafkit_stdin(
        d,
        &["produce", "--topic", "c", "--input", "json", "--sync"],
        input.as_bytes(),
    )
    .ok();
    let later = cleaner(d, horizon + 1, &["--topic", "c", "--output", "json"]);
    let c = json_lines(later.ok())
        .into_iter()
        .find(|e| e["type"] == "compaction")
        .unwrap();
    assert_eq!(c["cleaned"], true, "{c}");
    assert_eq!(c["tombstones_removed"], 1);
    assert_eq!(c["superseded"], 1);
    assert_eq!(consumed_keys(d, "c"), ["5:c:1", "6:d:1", "7:a:3", "8:e:1"]);
}

#[test]
fn a_compacted_partition_reads_back_in_kafka_python() {
    let dir = tempdir();
    let d = dir.path();
    compacted(d);
    cleaner(d, T0 + 10 * 24 * HOUR, &["--topic", "c"]).ok();
    let script = crate::common::repo_root().join("scripts/read-with-kafka-python.py");
    let log = d.join("c-0/00000000000000000000.log");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(&log)
        .output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out)
            if out.status.code() == Some(2)
                && std::env::var_os("KAFKIT_REQUIRE_KAFKA_PYTHON").is_none() =>
        {
            crate::common::skip("kafka-python is not installed (pip install kafka-python)");
            return;
        }
        other => panic!("kafka-python failed: {other:?}"),
    };
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let batches = v["files"][0]["batches"].as_array().unwrap();
    let records: Vec<(i64, Value, Value)> = batches
        .iter()
        .inspect(|b| assert_eq!(b["crc_valid"], true, "{b}"))
        .flat_map(|b| b["records"].as_array().unwrap().clone())
        .map(|r| {
            (
                r["offset"].as_i64().unwrap(),
                r["key"].clone(),
                r["value"].clone(),
            )
        })
        .collect();
    assert_eq!(
        records,
        [
            (2, Value::from("a"), Value::from("2")),
            (4, Value::from("b"), Value::Null)
        ]
    );
}

#[test]
fn a_brokers_compacted_consumer_offsets_is_cleaned_again_as_kafka_would() {
    let Some(fixtures) = crate::common::fixtures() else {
        crate::common::skip("../shared/kafka-fixtures is absent");
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let from = fixtures.join("DonaldY__kafka-2.7.1/__consumer_offsets-39");
    crate::common::copy_dir(&from, &d.join("__consumer_offsets-39"));
    let before = consumed_keys_raw(d);
    let now = 1_800_000_000_000;
    let run = cleaner(
        d,
        now,
        &["--topic", "__consumer_offsets", "--output", "json"],
    );
    let events = json_lines(run.ok());
    let c = events.iter().find(|e| e["type"] == "compaction").unwrap();
    assert_eq!(c["cleaned"], true, "{c}");
    // Kafka 2.7 cleaned it without delete horizons: the tombstone's batch gets one now.
    assert_eq!(c["tombstones_marked"], 1, "{c}");
    assert_eq!(c["end_offset"], 18);
    assert_eq!(
        fs::read_to_string(d.join("cleaner-offset-checkpoint")).unwrap(),
        "0\n1\n__consumer_offsets 39 18\n"
    );
    let dump = kafkit(
        d,
        &[
            "dump-log-segments",
            "--files",
            d.join("__consumer_offsets-39/00000000000000000000.log")
                .to_str()
                .unwrap(),
        ],
    );
    let horizon = now + 86_400_000;
    assert!(
        dump.ok()
            .contains(&format!("deleteHorizonMs: OptionalLong[{horizon}]")),
        "{}",
        dump.stdout
    );
    // Every record kept (each key's latest already), at its offset.
    assert_eq!(consumed_keys_raw(d), before);
}

/// `offset` of every record of the copied `__consumer_offsets` (its keys are binary).
fn consumed_keys_raw(d: &Path) -> Vec<String> {
    let run = kafkit(
        d,
        &[
            "consume",
            "--topic",
            "__consumer_offsets",
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--property",
            "print.offset=true",
            "--property",
            "print.value=false",
        ],
    );
    run.stdout.lines().map(str::to_string).collect()
}

#[test]
fn killed_cleanings_leave_the_latest_value_of_every_key() {
    let dir = tempdir();
    let d = dir.path();
    kafkit(
        d,
        &[
            "topics",
            "--create",
            "--topic",
            "k",
            "--config",
            "cleanup.policy=compact",
            "--config",
            "segment.bytes=1048576",
            "--config",
            "min.cleanable.dirty.ratio=0.01",
            "--config",
            "file.delete.delay.ms=0",
        ],
    )
    .ok();
    let pad = "x".repeat(2000);
    let mut latest = std::collections::BTreeMap::new();
    // A pseudo-random kill delay (no dependency on a random crate here).
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut killed_mid_way = 0;
    for round in 0..24 {
        // Every key written again (a deleted one every few rounds): dirty segments to clean.
        let mut input = String::new();
        for key in 0..200 {
            let value = if (key + round) % 7 == 0 {
                None
            } else {
                Some(format!("{round}-{pad}"))
            };
            input.push_str(&format!("k{key}\t{}\n", value.as_deref().unwrap_or("null")));
            latest.insert(format!("k{key}"), value);
        }
        kafkit_stdin(
            d,
            &[
                "produce",
                "--topic",
                "k",
                "--property",
                "parse.key=true",
                "--property",
                "null.marker=null",
            ],
            input.as_bytes(),
        )
        .ok();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = std::time::Duration::from_micros(seed % 40_000);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kafkit"))
            .env("KAFKIT_DATA_DIR", d)
            .args(["log-cleaner", "--topic", "k", "--quiet"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            killed_mid_way += 1;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // A reader right after the kill sees every key's latest value (a tombstone as null).
        let run = kafkit(
            d,
            &[
                "consume",
                "--topic",
                "k",
                "--from-beginning",
                "--timeout-ms",
                "500",
                "--property",
                "print.key=true",
                "--property",
                "null.literal=null",
            ],
        );
        assert!(
            !run.stderr.contains("ERROR") || run.stderr.contains("TimeoutException"),
            "round {round}: {}",
            run.stderr
        );
        let mut seen = std::collections::BTreeMap::new();
        for line in run.stdout.lines() {
            let (key, value) = line.split_once('\t').unwrap();
            seen.insert(
                key.to_string(),
                (value != "null").then(|| value.to_string()),
            );
        }
        for (key, value) in &latest {
            // A key deleted long enough ago may be gone altogether; otherwise it is there.
            match (seen.get(key), value) {
                (Some(got), want) => assert_eq!(got, want, "round {round}, {key}"),
                (None, None) => {}
                (None, Some(_)) => panic!("round {round}: {key} lost"),
            }
        }
    }
    assert!(killed_mid_way > 0, "no cleaning was killed while it ran");
}

/// A batch of one record of producer `pid` (epoch 0, sequence `seq`), transactional or not.
fn producer_batch(pid: i64, seq: i32, txn: bool, key: &str, value: &str, ts: i64) -> Vec<u8> {
    use kafkit::record::{BatchBuilder, Compression, TimestampType};
    let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime)
        .producer_id(pid)
        .producer_epoch(0)
        .base_sequence(seq)
        .transactional(txn);
    b.append(ts, Some(key.as_bytes()), Some(value.as_bytes()), &[]);
    b.build().unwrap()
}

/// A plain (non-idempotent) batch of one record.
fn plain_batch(key: &str, value: &str, ts: i64) -> Vec<u8> {
    producer_batch(-1, -1, false, key, value, ts)
}

/// A COMMIT (or ABORT) marker of producer `pid`.
fn marker(commit: bool, pid: i64, ts: i64) -> Vec<u8> {
    use kafkit::record::EndTransactionMarker;
    let m = if commit {
        EndTransactionMarker::commit(0)
    } else {
        EndTransactionMarker::abort(0)
    };
    m.build_batch(0, ts, pid, 0, 0).unwrap()
}

/// Appends `batches` to partition 0 of `topic` through the library's writer, then rolls, so
/// that they are in a segment the cleaner may clean.
fn append_then_roll(d: &Path, topic: &str, batches: &[Vec<u8>]) {
    use kafkit::datadir::{DataDir, PartitionWriter};
    let datadir = DataDir::open(d).unwrap();
    let t = datadir.topic(topic).unwrap().unwrap();
    let mut writer = PartitionWriter::new(&datadir).unwrap();
    let log = writer.log(&t, 0).unwrap();
    for b in batches {
        log.append(b, T0).unwrap();
    }
    log.roll(T0).unwrap();
    writer.close().unwrap();
}

/// A compacted topic `x` that any dirty segment makes cleanable.
fn eager_compacted(d: &Path) {
    kafkit(
        d,
        &[
            "topics",
            "--create",
            "--topic",
            "x",
            "--config",
            "cleanup.policy=compact",
            "--config",
            "min.cleanable.dirty.ratio=0.01",
        ],
    )
    .ok();
}

/// The `compaction` event of a cleaning of `x` at `now`.
fn clean_x(d: &Path, now: i64) -> Value {
    let run = cleaner(d, now, &["--topic", "x", "--output", "json"]);
    json_lines(run.ok())
        .into_iter()
        .find(|e| e["type"] == "compaction")
        .unwrap()
}

/// `offset:key:value` of what a consumer of `x` reads with `isolation`.
fn consumed_x(d: &Path, isolation: &str) -> Vec<String> {
    let run = kafkit(
        d,
        &[
            "consume",
            "--topic",
            "x",
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--isolation-level",
            isolation,
            "--property",
            "print.offset=true",
            "--property",
            "print.key=true",
        ],
    );
    run.stdout
        .lines()
        .map(|l| l.replace("Offset:", "").replace('\t', ":"))
        .collect()
}

/// `dump-log-segments` of segment 0 of `x`.
fn dump_x(d: &Path) -> String {
    let run = kafkit(
        d,
        &[
            "dump-log-segments",
            "--files",
            d.join("x-0/00000000000000000000.log").to_str().unwrap(),
        ],
    );
    run.ok().to_string()
}

/// The entries of segment 0's transaction index (none when it has no file).
fn txn_index_x(d: &Path) -> Vec<kafkit::log::AbortedTxn> {
    let path = d.join("x-0/00000000000000000000.txnindex");
    if !path.exists() {
        return Vec::new();
    }
    kafkit::log::TransactionIndex::open(&path)
        .unwrap()
        .entries()
        .map(|e| e.unwrap().1)
        .collect()
}

#[test]
fn aborted_data_goes_and_markers_stay_while_their_data_does_then_age_out() {
    let dir = tempdir();
    let d = dir.path();
    eager_compacted(d);
    // Producer 1 commits a=1, producer 2 aborts a=x and b=x; then plain a=2 and c=1.
    append_then_roll(
        d,
        "x",
        &[
            producer_batch(1, 0, true, "a", "1", T0),
            producer_batch(2, 0, true, "a", "x", T0),
            producer_batch(2, 1, true, "b", "x", T0),
            marker(false, 2, T0),
            marker(true, 1, T0),
            plain_batch("a", "2", T0),
            plain_batch("c", "1", T0),
        ],
    );
    assert_eq!(
        consumed_x(d, "read_uncommitted"),
        ["0:a:1", "1:a:x", "2:b:x", "5:a:2", "6:c:1"]
    );
    let c = clean_x(d, T0 + HOUR);
    assert_eq!(c["cleaned"], true, "{c}");
    // The aborted records are not mapped: a's latest is 5, b has none.
    assert_eq!(c["keys"], 2, "{c}");
    assert_eq!(c["end_offset"], 7, "{c}");
    assert_eq!(c["aborted"], 2, "{c}");
    assert_eq!(c["superseded"], 1, "{c}");
    assert_eq!(c["markers_removed"], 0, "{c}");
    for isolation in ["read_uncommitted", "read_committed"] {
        assert_eq!(consumed_x(d, isolation), ["5:a:2", "6:c:1"], "{isolation}");
    }
    let dump = dump_x(d);
    // Each producer's last batch stays, emptied: its offsets, producer id and epoch kept,
    // uncompressed, without a delete horizon.
    for (offset, pid) in [(0, 1), (2, 2)] {
        assert!(
            dump.contains(&format!(
                "baseOffset: {offset} lastOffset: {offset} count: 0 baseSequence: "
            )) && dump.contains(&format!("producerId: {pid} producerEpoch: 0")),
            "{dump}"
        );
    }
    assert!(!dump.contains("baseOffset: 1 "), "{dump}");
    // Both markers stay (data of their transactions is still there, as empty batches), and the
    // ABORT's transaction is in the cleaned segment's index as it was derived from the log.
    assert_eq!(dump.matches("isControl: true").count(), 2, "{dump}");
    assert_eq!(
        txn_index_x(d),
        [kafkit::log::AbortedTxn {
            version: 0,
            producer_id: 2,
            first_offset: 1,
            last_offset: 3,
            last_stable_offset: 0,
        }]
    );

    // Both producers commit new transactions: their old batches are no longer their last.
    append_then_roll(
        d,
        "x",
        &[
            producer_batch(1, 1, true, "e", "1", T0),
            marker(true, 1, T0),
            producer_batch(2, 2, true, "f", "1", T0),
            marker(true, 2, T0),
            plain_batch("g", "1", T0),
        ],
    );
    let c = clean_x(d, T0 + 2 * HOUR);
    assert_eq!(c["cleaned"], true, "{c}");
    let dump = dump_x(d);
    assert!(
        !dump.contains("baseOffset: 0 lastOffset: 0 count: 0"),
        "{dump}"
    );
    assert!(
        !dump.contains("baseOffset: 2 lastOffset: 2 count: 0"),
        "{dump}"
    );
    // The markers were read after batches of their transactions: kept as they were.
    assert_eq!(dump.matches("isControl: true").count(), 4, "{dump}");
    assert!(!dump.contains("deleteHorizonMs: OptionalLong["), "{dump}");
    assert_eq!(txn_index_x(d).len(), 1);

    // No data of the first two transactions is left: their markers get a delete horizon...
    append_then_roll(d, "x", &[plain_batch("h", "1", T0)]);
    let now = T0 + 3 * HOUR;
    let c = clean_x(d, now);
    assert_eq!(c["cleaned"], true, "{c}");
    let horizon = now + 86_400_000;
    let dump = dump_x(d);
    assert_eq!(
        dump.matches(&format!("deleteHorizonMs: OptionalLong[{horizon}]"))
            .count(),
        2,
        "{dump}"
    );
    assert_eq!(dump.matches("isControl: true").count(), 4, "{dump}");
    assert!(txn_index_x(d).is_empty());

    // ... and go once it has passed.
    append_then_roll(d, "x", &[plain_batch("i", "1", T0)]);
    let c = clean_x(d, horizon + 1);
    assert_eq!(c["cleaned"], true, "{c}");
    assert_eq!(c["markers_removed"], 2, "{c}");
    let dump = dump_x(d);
    assert_eq!(dump.matches("isControl: true").count(), 2, "{dump}");
    for isolation in ["read_uncommitted", "read_committed"] {
        assert_eq!(
            consumed_x(d, isolation),
            ["5:a:2", "6:c:1", "7:e:1", "9:f:1", "11:g:1", "12:h:1", "13:i:1"],
            "{isolation}"
        );
    }
}

#[test]
fn a_cleaning_stops_at_the_first_open_transaction() {
    let dir = tempdir();
    let d = dir.path();
    eager_compacted(d);
    append_then_roll(
        d,
        "x",
        &[plain_batch("a", "1", T0), plain_batch("a", "2", T0)],
    );
    append_then_roll(d, "x", &[producer_batch(3, 0, true, "b", "1", T0)]);
    append_then_roll(d, "x", &[plain_batch("a", "3", T0)]);
    let run = cleaner(
        d,
        T0 + HOUR,
        &["--topic", "x", "--output", "json", "--dry-run"],
    );
    let c = json_lines(run.ok())
        .into_iter()
        .find(|e| e["type"] == "compaction")
        .unwrap();
    // Producer 3's transaction (offset 2) has no marker: nothing from there on is cleanable.
    assert_eq!(c["first_uncleanable_offset"], 2, "{c}");
    assert_eq!(c["end_offset"], 2, "{c}");
    assert_eq!(c["superseded"], 1, "{c}");
    let c = clean_x(d, T0 + HOUR);
    assert_eq!(c["cleaned"], true, "{c}");
    // a@0 goes (a@1 supersedes it); a@1 stays though a@3 is later: past the open transaction
    // nothing is mapped.
    assert_eq!(
        consumed_x(d, "read_uncommitted"),
        ["1:a:2", "2:b:1", "3:a:3"]
    );
    assert_eq!(
        fs::read_to_string(d.join("cleaner-offset-checkpoint")).unwrap(),
        "0\n1\nx 0 2\n"
    );
}

/// Topic `x` (compacted) holding `log` as its first segment, an empty active segment at
/// `next` after it.
fn compacted_with_segment(d: &Path, log: &Path, next: i64) {
    eager_compacted(d);
    let p = d.join("x-0");
    for entry in fs::read_dir(&p).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("00000000000000000000.") {
            fs::remove_file(path).unwrap();
        }
    }
    fs::copy(log, p.join("00000000000000000000.log")).unwrap();
    fs::write(p.join(format!("{next:020}.log")), b"").unwrap();
}

/// Each record of segment 0 of `x` as kafka-python reads it, `(offset, key, value)`, every
/// batch's CRC checked and its magic one of `magics`; `None` when kafka-python is missing.
fn kafka_python_records(d: &Path, magics: &[i64]) -> Option<Vec<(i64, Value, Value)>> {
    let script = crate::common::repo_root().join("scripts/read-with-kafka-python.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(d.join("x-0/00000000000000000000.log"))
        .output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out)
            if out.status.code() == Some(2)
                && std::env::var_os("KAFKIT_REQUIRE_KAFKA_PYTHON").is_none() =>
        {
            crate::common::skip("kafka-python is not installed (pip install kafka-python)");
            return None;
        }
        other => panic!("kafka-python failed: {other:?}"),
    };
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    Some(
        v["files"][0]["batches"]
            .as_array()
            .unwrap()
            .iter()
            .inspect(|b| {
                assert_eq!(b["crc_valid"], true, "{b}");
                assert!(magics.contains(&b["magic"].as_i64().unwrap()), "{b}");
            })
            .flat_map(|b| b["records"].as_array().unwrap().clone())
            .map(|r| {
                (
                    r["offset"].as_i64().unwrap(),
                    r["key"].clone(),
                    r["value"].clone(),
                )
            })
            .collect(),
    )
}

#[test]
fn a_kafka_python_transactional_log_loses_its_aborted_transaction() {
    let dir = tempdir();
    let d = dir.path();
    let log = crate::common::repo_root()
        .join("tests/data/kafka-python/kp-txn-0/00000000000000000000.log");
    compacted_with_segment(d, &log, 12);
    let before = consumed_x(d, "read_committed");
    assert_eq!(before.len(), 6, "{before:?}");
    assert_eq!(consumed_x(d, "read_uncommitted").len(), 9);
    let c = clean_x(d, T0);
    assert_eq!(c["cleaned"], true, "{c}");
    // Producer 7's first transaction (offsets 0-2) was aborted: its records go, its marker stays
    // (its data was there to read), and with it the index entry a broker would have written.
    assert_eq!(c["aborted"], 3, "{c}");
    assert_eq!(c["end_offset"], 12, "{c}");
    for isolation in ["read_uncommitted", "read_committed"] {
        assert_eq!(consumed_x(d, isolation), before, "{isolation}");
    }
    assert_eq!(
        txn_index_x(d),
        [kafkit::log::AbortedTxn {
            version: 0,
            producer_id: 7,
            first_offset: 0,
            last_offset: 5,
            last_stable_offset: 3,
        }]
    );
    let dump = dump_x(d);
    assert_eq!(dump.matches("isControl: true").count(), 3, "{dump}");
    assert!(
        dump.starts_with("Dumping") && !dump.contains("baseOffset: 0 "),
        "{dump}"
    );
    let Some(records) = kafka_python_records(d, &[2]) else {
        return;
    };
    let offsets: Vec<i64> = records.iter().map(|r| r.0).collect();
    // The data records and the three markers' control records.
    assert_eq!(offsets, [3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert_eq!(records[0].1, Value::from("other-key-0"));
}

#[test]
fn legacy_message_sets_are_rewritten_as_v2_batches_keeping_their_tombstones() {
    let dir = tempdir();
    let d = dir.path();
    let log = crate::common::repo_root()
        .join("tests/data/kafka-python/kp-legacy-0/00000000000000000000.log");
    compacted_with_segment(d, &log, 10);
    let c = clean_x(d, T0);
    assert_eq!(c["cleaned"], true, "{c}");
    // Offsets 1 and 6-8 have no key; the tombstone of `plain` (9) is kept: no segment was
    // clean before, so the legacy delete horizon is 0.
    assert_eq!(c["without_key"], 4, "{c}");
    assert_eq!(c["tombstones_removed"], 0, "{c}");
    assert_eq!(
        consumed_keys(d, "x"),
        [
            "0:k0:v0 plain",
            "2:g0:v1 gzip 0",
            "3:g1:v1 gzip 1",
            "4:g2:v1 gzip 2",
            "5:g3:v1 gzip 3",
            "9:plain:null"
        ]
    );
    let dump = dump_x(d);
    // Kafka 4.0 writes what it cleans as v2: v0's record as CreateTime -1, the gzip set as one
    // gzip batch from its first kept offset.
    assert!(
        !dump.contains("magic: 0") && !dump.contains("magic: 1"),
        "{dump}"
    );
    assert!(
        dump.contains("baseOffset: 0 lastOffset: 0 count: 1")
            && dump.contains("baseOffset: 2 lastOffset: 5 count: 4")
            && dump.contains("compresscodec: gzip"),
        "{dump}"
    );
    let Some(records) = kafka_python_records(d, &[2]) else {
        return;
    };
    let offsets: Vec<i64> = records.iter().map(|r| r.0).collect();
    assert_eq!(offsets, [0, 2, 3, 4, 5, 9]);
    assert_eq!(records[5].2, Value::Null);
}

#[test]
fn a_brokers_committed_transaction_is_kept_whole() {
    let Some(fixtures) = crate::common::fixtures() else {
        crate::common::skip("../shared/kafka-fixtures is absent");
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let log = fixtures.join(
        "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/_confluent-ksql-default__command_topic-0/00000000000000000000.log",
    );
    compacted_with_segment(d, &log, 2);
    let before = consumed_x(d, "read_committed");
    assert_eq!(before.len(), 1, "{before:?}");
    let c = clean_x(d, T0);
    assert_eq!(c["cleaned"], true, "{c}");
    assert_eq!(c["end_offset"], 2, "{c}");
    assert_eq!(c["records"], 2, "{c}");
    assert_eq!(
        c["aborted"].as_u64().unwrap() + c["markers_removed"].as_u64().unwrap(),
        0
    );
    // Its record is its key's latest and its COMMIT follows data of its transaction: the
    // segment is written back byte for byte, and the cleaner checkpoint moves past it.
    assert_eq!(
        fs::read(d.join("x-0/00000000000000000000.log")).unwrap(),
        fs::read(&log).unwrap()
    );
    assert_eq!(
        fs::read_to_string(d.join("cleaner-offset-checkpoint")).unwrap(),
        "0\n1\nx 0 2\n"
    );
    for isolation in ["read_uncommitted", "read_committed"] {
        assert_eq!(consumed_x(d, isolation), before, "{isolation}");
    }
}

#[test]
fn min_and_max_compaction_lag_ms_hold_back_and_force_a_cleaning() {
    let dir = tempdir();
    let d = dir.path();
    compacted(d);
    let day = 24 * HOUR;
    let config = |action: &str, cfg: &str| {
        kafkit(d, &["configs", "--alter", "--topic", "c", action, cfg]).ok();
    };
    // The cleaner's clock is T0 + 10 days; one segment a record, the largest timestamps T0,
    // T0+1, T0+1d, T0+1d+1, T0+2d (the active segment, offset 5, is never cleaned).
    // min.compaction.lag.ms of 8.5 days: segment 4 (T0+2d, after T0+1.5d) is too young.
    config(
        "--add-config",
        &format!("min.compaction.lag.ms={}", 8 * day + day / 2),
    );
    let c = compaction_event(d, &[]);
    assert_eq!(c["first_uncleanable_offset"], 4, "{c}");
    assert_eq!(c["end_offset"], 4);
    // a@0 superseded by a@2; b's tombstone (offset 4) is not read, so none is marked.
    assert_eq!(c["superseded"], 1);
    assert_eq!(c["tombstones_marked"], 0);
    // 9.5 days: segment 2 (T0+1d, after T0+0.5d) already is.
    config(
        "--add-config",
        &format!("min.compaction.lag.ms={}", 9 * day + day / 2),
    );
    let c = compaction_event(d, &[]);
    assert_eq!(c["first_uncleanable_offset"], 2, "{c}");
    assert_eq!(c["superseded"], 0);
    config("--delete-config", "min.compaction.lag.ms");

    // Cleaned up to 4: one small dirty segment, not dirty enough for the ratio...
    fs::write(d.join("cleaner-offset-checkpoint"), "0\n1\nc 0 4\n").unwrap();
    let c = compaction_event(d, &[]);
    assert_eq!(
        (c["cleanable"].clone(), c["why"].clone()),
        (json!(false), json!("not-dirty-enough"))
    );
    // With max.compaction.lag.ms of 9 days its first record (T0+2d) is young enough (the
    // limit is T0+1d): the ratio still decides.
    config(
        "--add-config",
        &format!("max.compaction.lag.ms={}", 9 * day),
    );
    let c = compaction_event(d, &[]);
    assert_eq!(c["why"], "not-dirty-enough", "{c}");
    // With 7 days it is older than allowed (T0+3d): Kafka cleans it whatever the ratio.
    config(
        "--add-config",
        &format!("max.compaction.lag.ms={}", 7 * day),
    );
    let c = compaction_event(d, &[]);
    assert_eq!(
        (c["cleanable"].clone(), c["why"].clone()),
        (json!(true), json!("max-compaction-lag"))
    );
    let run = cleaner(d, T0 + 10 * day, &["--topic", "c", "--output", "json"]);
    let done = json_lines(run.ok());
    assert!(
        done.iter()
            .any(|e| e["type"] == "compaction" && e["cleaned"] == true),
        "{done:?}"
    );
}

#[test]
fn the_cleaner_refuses_a_directory_a_broker_holds() {
    use std::os::fd::AsRawFd;
    let dir = tempdir();
    let d = dir.path();
    compacted(d);
    let before = files_of(&d.join("c-0"));
    // A broker's FileChannel.tryLock(): a POSIX write lock on `.lock`, held by this process.
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(d.join(".lock"))
        .unwrap();
    // SAFETY: zeroed flock is valid; fd is open for the duration of the call.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLKW, &fl as *const libc::flock) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    let run = cleaner(d, T0 + 10 * 24 * HOUR, &["--topic", "c"]);
    assert!(
        run.fails()
            .contains("Failed to acquire lock on file .lock in "),
        "{}",
        run.stderr
    );
    assert_eq!(files_of(&d.join("c-0")), before);
    drop(file);
    cleaner(d, T0 + 10 * 24 * HOUR, &["--topic", "c"]).ok();
    assert_ne!(files_of(&d.join("c-0")), before);
}

fn files_of(p: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
