//! `--output json`: JSON Lines that decode every fixture, and the same records kafka-python
//! reads from segments it wrote (`tests/data/kafka-python/`, made by
//! `scripts/make-kafka-python-segments.py`).

use std::path::Path;

use serde_json::Value;

use super::dump_in;
use crate::common::{fixtures, repo_root};

fn json_lines(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--output", "json"];
    all.extend_from_slice(args);
    let run = dump_in(dir, &all);
    assert!(
        run.stderr.is_empty(),
        "JSON mode keeps stderr empty: {}",
        run.stderr
    );
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn of_type<'a>(lines: &'a [Value], t: &str) -> Vec<&'a Value> {
    lines.iter().filter(|v| v["type"] == t).collect()
}

#[test]
fn records_match_what_kafka_python_reads() {
    let data = repo_root().join("tests/data/kafka-python");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("expected.json")).unwrap())
            .unwrap();
    let partitions = expected["partitions"].as_object().unwrap();
    assert!(partitions.len() >= 8);
    let mut codecs = std::collections::BTreeSet::new();
    for (partition, want) in partitions {
        let file = format!("{partition}/00000000000000000000.log");
        let lines = json_lines(&data, &["--files", &file, "--deep-iteration"]);
        let records: Vec<Value> = of_type(&lines, "record")
            .into_iter()
            .map(|r| {
                serde_json::json!({
                    "offset": r["offset"], "timestamp": r["timestamp"], "key": r["key"],
                    "value": r["value"], "headers": r["headers"],
                })
            })
            .collect();
        assert_eq!(
            Value::Array(records),
            want["records"],
            "{partition}: records"
        );
        let batches = of_type(&lines, "batch");
        let want_batches = want["batches"].as_array().unwrap();
        assert_eq!(batches.len(), want_batches.len(), "{partition}: batches");
        for (got, want) in batches.iter().zip(want_batches) {
            // kafka-python's fields, named as kafkit's `batch` object names them.
            for (field, value) in want.as_object().unwrap() {
                assert_eq!(&got[field], value, "{partition}: batch field {field}");
            }
            codecs.insert(got["compression"].as_str().unwrap().to_string());
        }
        let summary = of_type(&lines, "summary");
        assert_eq!(summary.len(), 1);
        assert_eq!(summary[0]["ok"], true, "{partition}: {lines:?}");
    }
    assert_eq!(codecs.len(), 5, "every codec is covered: {codecs:?}");
}

#[test]
fn aborted_transaction_and_control_records_in_json_and_text() {
    let data = repo_root().join("tests/data/kafka-python");
    let f = "kp-txn-0/00000000000000000000.log";
    let lines = json_lines(&data, &["--files", f, "--deep-iteration"]);
    let controls: Vec<&Value> = of_type(&lines, "record")
        .into_iter()
        .filter(|r| r.get("control").is_some())
        .collect();
    assert_eq!(controls.len(), 3);
    assert_eq!(
        controls[0]["control"],
        serde_json::json!({"type": "ABORT", "coordinator_epoch": 3})
    );
    let run = dump_in(&data, &["--files", f, "--deep-iteration"]);
    assert!(run.ok().contains(
        "| offset: 5 CreateTime: 1730000000010 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 3\n"
    ));
    assert!(run.stdout.contains("headerKeys: [trace,bin]"));
    let run = dump_in(
        &data,
        &[
            "--files",
            "kp-logappendtime-0/00000000000000000000.log",
            "--deep-iteration",
        ],
    );
    assert!(run
        .ok()
        .contains("| offset: 0 LogAppendTime: 1730000000999 keySize: 9 valueSize: "));
}

#[test]
fn every_fixture_decodes_to_json_with_one_record_per_text_record_line() {
    let Some(root) = fixtures() else { return };
    let index = std::fs::read_to_string(root.join("expected-dump/index.tsv")).unwrap();
    let mut seen = 0;
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols[1] != "deep" {
            continue;
        }
        let file = cols[0];
        let lines = json_lines(&root, &["--files", file, "--deep-iteration"]);
        let text = dump_in(&root, &["--files", file, "--deep-iteration"]);
        let record_lines = text
            .stdout
            .lines()
            .filter(|l| l.starts_with("| offset: "))
            .count();
        assert_eq!(of_type(&lines, "record").len(), record_lines, "{file}");
        assert_eq!(
            of_type(&lines, "batch").len(),
            text.stdout
                .lines()
                .filter(|l| l.starts_with("baseOffset: ") || l.starts_with("offset: "))
                .count(),
            "{file}"
        );
        for v in &lines {
            assert!(v["type"].is_string(), "{v}");
        }
        assert_eq!(lines.last().unwrap()["type"], "summary");
        seen += 1;
    }
    assert!(seen >= 10);
}

#[test]
fn decoded_internal_records_carry_their_json() {
    let Some(root) = fixtures() else { return };
    let lines = json_lines(
        &root,
        &[
            "--files",
            "mscaldas2012__kafka-connect-spooldir/__consumer_offsets-9/00000000000000000000.log",
            "--offsets-decoder",
        ],
    );
    let group = of_type(&lines, "record")
        .into_iter()
        .find(|r| r["decoded"]["key"]["type"] == "2" && !r["decoded"]["value"].is_null())
        .expect("a group metadata record");
    let member = &group["decoded"]["value"]["data"]["members"][0];
    assert!(member["subscription"]["topics"].is_array(), "{member}");
    assert!(member["assignment"]["assignedPartitions"].is_array());

    let lines = json_lines(
        &root,
        &[
            "--files",
            "8sylla__citypulse/__cluster_metadata-0/00000000000000014459-0000000001.checkpoint",
            "--cluster-metadata-decoder",
        ],
    );
    let records = of_type(&lines, "record");
    assert_eq!(records[0]["control"]["type"], "SNAPSHOT_HEADER");
    assert_eq!(
        records[1]["decoded"]["value"]["type"],
        "FEATURE_LEVEL_RECORD"
    );
    assert_eq!(
        records[1]["decoded"]["value"]["data"]["name"],
        "metadata.version"
    );
}

#[test]
fn every_fixture_has_the_records_kafka_python_reads() {
    let Some(root) = fixtures() else { return };
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo_root().join("tests/data/kafka-python/fixtures-expected.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let files = expected["files"].as_object().unwrap();
    assert!(files.len() >= 14);
    for (file, want) in files {
        let lines = json_lines(&root, &["--files", file, "--deep-iteration"]);
        let records: Vec<Value> = of_type(&lines, "record")
            .into_iter()
            .map(|r| {
                serde_json::json!({
                    "offset": r["offset"], "timestamp": r["timestamp"], "key": r["key"],
                    "value": r["value"], "headers": r["headers"],
                })
            })
            .collect();
        assert_eq!(
            records.len() as u64,
            want["records"].as_u64().unwrap(),
            "{file}"
        );
        assert_eq!(
            records.first().cloned().unwrap_or(Value::Null),
            want["first"],
            "{file}"
        );
        // Canonical JSON lines (sorted keys, compact, UTF-8), as the script hashes them.
        let canonical: Vec<String> = records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap())
            .collect();
        assert_eq!(
            u64::from(crc32fast::hash(canonical.join("\n").as_bytes())),
            want["crc32"].as_u64().unwrap(),
            "{file}: records differ from kafka-python's"
        );
    }
}
