//! `kafkit simulate-assignment` through the binary.

use crate::common::{kafkit, tempdir, vectors};

fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn range_splits_ten_partitions_over_three_consumers_like_kafka() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--topic",
            "orders:10",
            "--members",
            "c0,c1,c2",
        ],
    );
    let out = run.ok();
    assert!(out.contains("orders 0-3"), "{out}");
    assert!(out.contains("orders 4-6"), "{out}");
    assert!(out.contains("orders 7-9"), "{out}");
    assert!(out.contains("__consumer_offsets-12"), "{out}");
}

#[test]
fn roundrobin_deals_partitions_in_turn() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--strategy",
            "roundrobin",
            "--topic",
            "orders:10",
            "--members",
            "c0,c1,c2",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    assert_eq!(lines[0]["type"], "round");
    assert_eq!(lines[0]["round"], 1);
    assert_eq!(
        lines[0]["assignment"]["c0"],
        serde_json::json!([["orders", 0], ["orders", 3], ["orders", 6], ["orders", 9]])
    );
    assert_eq!(lines.last().unwrap()["type"], "summary");
}

#[test]
fn sticky_example_of_the_seed_notes_gives_kafkas_answer() {
    // Four topics of two partitions, C0..C2, then C1 leaves (spec §4.4, kpy-sticky-assignor1).
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--strategy",
            "org.apache.kafka.clients.consumer.StickyAssignor",
            "--topic",
            "t0:2",
            "--topic",
            "t1:2",
            "--topic",
            "t2:2",
            "--topic",
            "t3:2",
            "--members",
            "C0,C1,C2",
            "--then",
            "leave C1",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    let round2 = &lines[1];
    assert_eq!(round2["event"], "leave C1");
    assert_eq!(
        round2["assignment"]["C0"],
        serde_json::json!([["t0", 0], ["t0", 1], ["t1", 1], ["t3", 0]])
    );
    assert_eq!(
        round2["assignment"]["C2"],
        serde_json::json!([["t1", 0], ["t2", 0], ["t2", 1], ["t3", 1]])
    );
    assert_eq!(round2["stickiness"]["kept"], 5);
    assert_eq!(round2["moves"].as_array().unwrap().len(), 3);
}

#[test]
fn cooperative_sticky_runs_a_revocation_round_then_a_follow_up() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--strategy",
            "cooperative-sticky",
            "--topic",
            "orders:6",
            "--members",
            "c1,c2,c3",
            "--then",
            "join c4",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    let phases = lines[1]["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2, "{phases:?}");
    assert_eq!(phases[0]["revoked"].as_array().unwrap().len(), 1);
    assert!(phases[0]["assigned"].as_array().unwrap().is_empty());
    assert_eq!(
        phases[1]["assigned"],
        phases[0]["revoked"]
            .as_array()
            .map(|r| {
                serde_json::Value::Array(
                    r.iter()
                        .map(|x| serde_json::json!([x[0], x[1], "c4"]))
                        .collect(),
                )
            })
            .unwrap()
    );
    assert_eq!(lines[1]["unavailable"], 1);
}

#[test]
fn explain_traces_coordinator_leader_and_sync() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--group",
            "test-group",
            "--topic",
            "orders:4",
            "--members",
            "a,b",
            "--then",
            "leave a",
            "--explain",
        ],
    );
    let out = run.ok();
    assert!(out.contains("String.hashCode 627841412"), "{out}");
    assert!(out.contains("partition 12 of __consumer_offsets"), "{out}");
    assert!(out.contains("a is the leader"), "{out}");
    assert!(
        out.contains("the leader left: the new leader is b"),
        "{out}"
    );
    assert!(
        out.contains("SyncGroup -> b: orders-0, orders-1, orders-2, orders-3"),
        "{out}"
    );
}

#[test]
fn explain_shows_targets_and_reconciliation_for_the_new_protocol() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--strategy",
            "uniform",
            "--topic",
            "orders:4",
            "--members",
            "a,b",
            "--then",
            "join c",
            "--explain",
        ],
    );
    let out = run.ok();
    assert!(out.contains("target c:"), "{out}");
    assert!(out.contains("UNREVOKED_PARTITIONS"), "{out}");
    assert!(out.contains("reconciliation step 2"), "{out}");
}

#[test]
fn compare_puts_strategies_side_by_side() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--compare",
            "range,roundrobin,sticky,cooperative-sticky,uniform,server-range",
            "--topic",
            "orders:6",
            "--members",
            "c1,c2,c3",
            "--then",
            "join c4",
        ],
    );
    let out = run.ok();
    for s in [
        "range",
        "roundrobin",
        "sticky",
        "cooperative-sticky",
        "uniform",
        "server-range",
        "UNAVAILABLE",
    ] {
        assert!(out.contains(s), "{s} missing:\n{out}");
    }
    let json = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--compare",
            "range,cooperative-sticky",
            "--topic",
            "orders:6",
            "--members",
            "c1,c2",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(json.ok());
    let summaries: Vec<_> = lines.iter().filter(|l| l["type"] == "summary").collect();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[1]["strategy"], "cooperative-sticky");
}

#[test]
fn events_cover_partitions_subscriptions_and_deleted_topics() {
    let dir = tempdir();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--strategy",
            "sticky",
            "--topic",
            "orders:4",
            "--topic",
            "payments:2",
            "--member",
            "c1=orders,payments",
            "--member",
            "c2=orders",
            "--rack",
            "c1=a",
            "--then",
            "add-partitions orders:6",
            "--then",
            "subscribe c2=orders,payments",
            "--then",
            "delete-topic payments",
            "--then",
            "crash c1",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    let last = &lines[4];
    assert_eq!(last["event"], "crash c1");
    assert_eq!(last["assignment"]["c2"].as_array().unwrap().len(), 6);
    assert!(last["assignment"].get("c1").is_none());
}

#[test]
fn scenario_file_runs_like_the_flags() {
    let dir = tempdir();
    let file = dir.path().join("group.json");
    std::fs::write(
        &file,
        r#"{"group": "orders-app", "strategy": "cooperative-sticky",
            "topics": ["orders:6", {"name": "payments", "partitions": 2}],
            "members": ["c1", {"id": "c2", "topics": ["orders"], "rack": "a"}],
            "events": ["join c3", {"event": "leave", "member": "c1"}]}"#,
    )
    .unwrap();
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--scenario",
            file.to_str().unwrap(),
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["group"], "orders-app");
    assert_eq!(lines[3]["strategy"], "cooperative-sticky");
    assert_eq!(lines[2]["event"], "leave c1");
}

#[test]
fn a_vector_file_is_replayed_round_by_round() {
    let Some(v) = vectors() else { return };
    let dir = tempdir();
    let file = v.join("assignors/coop-AddRemoveTwoConsumersTwoTopics.json");
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--scenario",
            file.to_str().unwrap(),
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    let rounds: Vec<_> = lines.iter().filter(|l| l["type"] == "round").collect();
    assert!(rounds.len() >= 2);
    assert!(rounds.iter().all(|r| r["matches_kafka"] == true));
    let text = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", file.to_str().unwrap()],
    );
    assert!(text.ok().contains("rounds match Kafka"));

    let err = v.join("assignors/server-uniform-het-nonexistent-topics.json");
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--scenario",
            err.to_str().unwrap(),
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    assert_eq!(lines[0]["error"], "PartitionAssignorException");
}

#[test]
fn a_bare_topic_takes_its_partition_count_from_the_data_dir() {
    let dir = tempdir();
    for p in 0..3 {
        std::fs::create_dir(dir.path().join(format!("orders-{p}"))).unwrap();
    }
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--topic",
            "orders",
            "--members",
            "a,b",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    assert_eq!(
        lines[0]["assignment"]["a"],
        serde_json::json!([["orders", 0], ["orders", 1]])
    );
}

#[test]
fn bad_input_is_named_and_fails() {
    let dir = tempdir();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--topic",
                "orders:3",
                "--members",
                "a",
                "--then",
                "leave zed",
            ],
            "unknown member \"zed\"",
        ),
        (
            &["--topic", "orders", "--members", "a"],
            "topic \"orders\" has no partition count",
        ),
        (
            &[
                "--strategy",
                "fastest",
                "--topic",
                "orders:3",
                "--members",
                "a",
            ],
            "unknown strategy \"fastest\"",
        ),
        (
            &["--topic", "orders:x", "--members", "a"],
            "is not a number",
        ),
        (
            &[
                "--topic",
                "orders:3",
                "--members",
                "a",
                "--then",
                "explode a",
            ],
            "unknown event \"explode\"",
        ),
        (&["--topic", "orders:3"], "no members"),
        (
            &["--topic", "orders:3", "--member", "a=nope"],
            "unknown topic \"nope\"",
        ),
        (
            &[
                "--topic",
                "orders:3",
                "--members",
                "a",
                "--then",
                "add-partitions orders:2",
            ],
            "can only grow",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["simulate-assignment"];
        all.extend_from_slice(args);
        let run = kafkit(dir.path(), &all);
        let err = run.fails();
        assert!(err.contains(want), "{args:?}: expected {want:?} in {err:?}");
    }
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let err = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", bad.to_str().unwrap()],
    )
    .fails()
    .to_string();
    assert!(err.contains("not valid JSON"), "{err}");
    std::fs::write(&bad, r#"{"topics": ["orders"], "members": ["a"]}"#).unwrap();
    let err = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", bad.to_str().unwrap()],
    )
    .fails()
    .to_string();
    assert!(err.contains("has no partition count"), "{err}");
}
