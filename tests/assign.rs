//! The assignors against Kafka's own answers: every file in `spec/vectors/assignors/`.

use std::collections::BTreeSet;

use kafkit::assign::{java, vectors};

use crate::common::vectors as vectors_dir;

/// Vector files that do not match Kafka yet. The test fails when one of these starts passing
/// (so the list cannot go stale) and when any other file fails.
const KNOWN_FAILURES: &[&str] = &[];

#[test]
fn every_assignor_vector_matches_kafka() {
    let Some(dir) = vectors_dir() else { return };
    let dir = dir.join("assignors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("read vectors/assignors")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut failing = BTreeSet::new();
    let mut report = Vec::new();
    let (mut files_run, mut rounds_run, mut rounds_ok) = (0, 0, 0);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read vector");
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        if value.get("rounds").is_none() {
            continue; // coordinator-partition-for-group.json, performance-anchors.json
        }
        files_run += 1;
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let file = vectors::parse(&text).expect("vector schema");
        let server = vectors::strategy_of(&file)
            .expect("strategy")
            .is_server_side();
        let replays = vectors::replay(&file).expect("replay");
        let mut bad = Vec::new();
        for (i, r) in replays.iter().enumerate() {
            rounds_run += 1;
            match r.check(server) {
                Ok(()) => rounds_ok += 1,
                Err(e) => bad.push(format!("  round {}: {e}", i + 1)),
            }
        }
        if !bad.is_empty() {
            failing.insert(id.clone());
            if !KNOWN_FAILURES.contains(&id.as_str()) {
                report.push(format!("{id}\n{}", bad.join("\n")));
            }
        }
    }
    eprintln!(
        "assignor vectors: {files_run} files, {} passing; {rounds_ok}/{rounds_run} rounds match Kafka",
        files_run - failing.len()
    );
    let fixed: Vec<&&str> = KNOWN_FAILURES
        .iter()
        .filter(|k| !failing.contains(**k))
        .collect();
    assert!(
        report.is_empty() && fixed.is_empty(),
        "{} unexpected failing files:\n{}\nknown failures that now pass (remove them from KNOWN_FAILURES): {fixed:?}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn coordinator_partitions_match_kafka() {
    let Some(dir) = vectors_dir() else { return };
    let text = std::fs::read_to_string(dir.join("assignors/coordinator-partition-for-group.json"))
        .expect("read coordinator vector");
    let value: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = value["cases"].as_array().expect("cases");
    assert!(!cases.is_empty());
    for case in cases {
        let group = case["group_id"].as_str().expect("group_id");
        let n = case["num_partitions"].as_u64().expect("num_partitions") as u32;
        assert_eq!(
            i64::from(java::string_hash(group)),
            case["java_hash_code"].as_i64().expect("hash"),
            "hashCode of {group:?}"
        );
        assert_eq!(
            u64::from(java::coordinator_partition(group, n)),
            case["expected_partition"].as_u64().expect("partition"),
            "partition of {group:?}"
        );
    }
}
