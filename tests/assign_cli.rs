//! `kafkit simulate-assignment` through the binary.

use std::path::Path;

use crate::common::{kafkit, kafkit_within, tempdir, vectors, Run};

/// `simulate-assignment --scenario FILE --output json`, against the data directory `dir`.
fn scenario_json(dir: &Path, file: &Path) -> Run {
    kafkit(
        dir,
        &[
            "simulate-assignment",
            "--scenario",
            file.to_str().expect("a UTF-8 path"),
            "--output",
            "json",
        ],
    )
}

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
    let run = scenario_json(dir.path(), &file);
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
    let run = scenario_json(dir.path(), &file);
    let lines = json_lines(run.ok());
    let rounds: Vec<_> = lines
        .iter()
        .filter(|l| l["type"] == "vector_round")
        .collect();
    assert!(rounds.len() >= 2);
    assert!(rounds.iter().all(|r| r["matches_kafka"] == true));
    let text = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", file.to_str().unwrap()],
    );
    assert!(text.ok().contains("rounds match Kafka"));

    let err = v.join("assignors/server-uniform-het-nonexistent-topics.json");
    let run = scenario_json(dir.path(), &err);
    let lines = json_lines(run.ok());
    assert_eq!(lines[0]["error"], "PartitionAssignorException");
}

#[test]
fn a_vector_files_topic_ids_are_kafka_uuids() {
    let dir = tempdir();
    let file = dir.path().join("ids.json");
    let vector = |id: &str| {
        format!(
            r#"{{"id": "ids", "assignor": "server-uniform", "rounds": [{{"topics": {{"t": 2}},
                "topic_ids": {{"t": "{id}"}}, "members": [{{"id": "a", "topics": ["t"]}}]}}]}}"#
        )
    };
    // Kafka's test ids set the unused low bits of the last character, which Java ignores.
    std::fs::write(&file, vector("T2-B4s3VTwiI5YHbPp6YUe")).unwrap();
    let run = scenario_json(dir.path(), &file);
    let lines = json_lines(run.ok());
    assert_eq!(
        lines[0]["assignment"]["a"],
        serde_json::json!([["t", 0], ["t", 1]])
    );
    std::fs::write(&file, vector("T2-B4s3")).unwrap();
    let run = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", file.to_str().unwrap()],
    );
    assert!(
        run.fails().contains("not an assignor vector file: Input string `T2-B4s3` decoded as 5 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID at line 2"),
        "{}",
        run.stderr
    );
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

#[test]
fn static_members_are_ordered_by_instance_id_and_explain_goes_into_json() {
    let dir = tempdir();
    // Range orders static members by group.instance.id, before dynamic ones (MemberInfo order).
    let run = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--topic",
            "orders:3",
            "--members",
            "a,b,c",
            "--instance-id",
            "b=y",
            "--instance-id",
            "c=x",
            "--explain",
            "--output",
            "json",
        ],
    );
    let lines = json_lines(run.ok());
    assert_eq!(
        lines[0]["assignment"]["c"],
        serde_json::json!([["orders", 0]])
    );
    assert_eq!(
        lines[0]["assignment"]["b"],
        serde_json::json!([["orders", 1]])
    );
    assert_eq!(
        lines[0]["assignment"]["a"],
        serde_json::json!([["orders", 2]])
    );
    let explain = lines[0]["explain"].as_array().expect("explain lines");
    assert!(explain
        .iter()
        .any(|l| l.as_str().unwrap_or("").contains("__consumer_offsets")));
}

/// The most memory a run may use: 512 MiB of address space, which bounds its resident memory.
const MEMORY_CEILING: u64 = 512 << 20;

/// Asserts a refusal: exit code 1, exactly `message` on stderr, nothing on stdout, within the
/// memory ceiling.
#[track_caller]
fn refused_in_bounded_memory(dir: &std::path::Path, args: &[&str], message: &str) {
    let mut all = vec!["simulate-assignment"];
    all.extend_from_slice(args);
    let run = kafkit_within(dir, &all, MEMORY_CEILING);
    assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
    assert_eq!(run.stderr, format!("{message}\n"), "{args:?}");
    assert_eq!(run.stdout, "", "{args:?}");
}

/// Runs a simulation and asserts that it succeeds within the memory ceiling.
#[track_caller]
fn runs_in_bounded_memory(dir: &std::path::Path, args: &[&str]) -> crate::common::Run {
    let mut all = vec!["simulate-assignment"];
    all.extend_from_slice(args);
    let run = kafkit_within(dir, &all, MEMORY_CEILING);
    run.ok();
    run
}

const SEE_LIMITS: &str = "; see Limits in `kafkit simulate-assignment --help`";

#[test]
fn partition_counts_are_bounded_by_kafka_and_members_x_partitions() {
    let dir = tempdir();
    // Grew past 9.5 GB of memory before the limits.
    refused_in_bounded_memory(
        dir.path(),
        &["--topic", "t:2147483647", "--members", "a"],
        &format!("simulate-assignment: the group is too large to simulate: round 1 has 1 member(s) and 2147483647 partition(s), 2147483647 member-partitions, more than the limit of 10000000{SEE_LIMITS}"),
    );
    refused_in_bounded_memory(
        dir.path(),
        &["--topic", "t:2147483648", "--members", "a"],
        "simulate-assignment: topic \"t:2147483648\": partition count 2147483648 is more than 2147483647, the most Kafka allows (partition ids are int32)",
    );
    // An event that grows a topic is counted in its own round.
    refused_in_bounded_memory(
        dir.path(),
        &[
            "--topic",
            "t:3",
            "--members",
            "a",
            "--then",
            "join b",
            "--then",
            "add-partitions t:2147483647",
        ],
        &format!("simulate-assignment: the group is too large to simulate: round 3 has 2 member(s) and 2147483647 partition(s), 4294967294 member-partitions, more than the limit of 10000000{SEE_LIMITS}"),
    );
    // The limit is inclusive: 1000 members × 10000 partitions run, one more member does not.
    let members: Vec<String> = (0..1000).map(|i| format!("c{i}")).collect();
    let thousand = members.join(",");
    let run = runs_in_bounded_memory(dir.path(), &["--topic", "t:10000", "--members", &thousand]);
    assert!(
        run.stdout.contains("balance: min 10 max 10"),
        "{}",
        run.stdout
    );
    let more = format!("{thousand},c1000");
    refused_in_bounded_memory(
        dir.path(),
        &["--topic", "t:10000", "--members", &more],
        &format!("simulate-assignment: the group is too large to simulate: round 1 has 1001 member(s) and 10000 partition(s), 10010000 member-partitions, more than the limit of 10000000{SEE_LIMITS}"),
    );
    // An assignor vector naming a huge topic is refused before it is replayed.
    let vector = dir.path().join("vector.json");
    std::fs::write(
        &vector,
        r#"{"assignor": "range", "rounds": [{"topics": {"t": 2147483647}, "members": [{"id": "a", "topics": ["t"]}]}]}"#,
    )
    .unwrap();
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", vector.to_str().unwrap()],
        &format!("simulate-assignment: the group is too large to simulate: round 1 has 1 member(s) and 2147483647 partition(s), 2147483647 member-partitions, more than the limit of 10000000{SEE_LIMITS}"),
    );
}

#[test]
fn the_largest_allowed_scripts_stay_under_512_mib() {
    let dir = tempdir();
    // The heaviest round: 100000 partitions and members, printed as JSON (each round's line is
    // built in memory), every partition a move.
    let run = runs_in_bounded_memory(
        dir.path(),
        &["--topic", "t:99998", "--members", "a,b", "--output", "json"],
    );
    let lines = json_lines(&run.stdout);
    assert_eq!(lines[0]["moves"].as_array().map(Vec::len), Some(99_998));
    refused_in_bounded_memory(
        dir.path(),
        &["--topic", "t:99999", "--members", "a,b"],
        &format!("simulate-assignment: the script is too large to simulate: its 1 round(s) × 1 strategy hold 100001 partitions and members in all, more than the limit of 100000 (kafkit keeps every round in memory until it prints it){SEE_LIMITS}"),
    );
    refused_in_bounded_memory(
        dir.path(),
        &[
            "--topic",
            "t:16666",
            "--members",
            "a",
            "--compare",
            "range,roundrobin,sticky,cooperative-sticky,uniform,server-range",
        ],
        &format!("simulate-assignment: the script is too large to simulate: its 1 round(s) × 6 strategies hold 100002 partitions and members in all, more than the limit of 100000 (kafkit keeps every round in memory until it prints it){SEE_LIMITS}"),
    );
    // The most rounds: 1666 × 6 strategies run, 1667 do not.
    let script = |rounds: usize| {
        let events: Vec<String> = (1..rounds)
            .map(|i| {
                if i % 2 == 1 {
                    format!("\"join x{}\"", i / 2)
                } else {
                    format!("\"leave x{}\"", i / 2 - 1)
                }
            })
            .collect();
        let path = dir.path().join(format!("rounds-{rounds}.json"));
        std::fs::write(
            &path,
            format!(
                r#"{{"topics": ["t:2"], "members": ["a", "b"], "events": [{}]}}"#,
                events.join(",")
            ),
        )
        .unwrap();
        path
    };
    let all = "range,roundrobin,sticky,cooperative-sticky,uniform,server-range";
    let ok = script(1666);
    let run = runs_in_bounded_memory(
        dir.path(),
        &["--scenario", ok.to_str().unwrap(), "--compare", all],
    );
    let head: String = run.stdout.chars().take(300).collect();
    assert!(run.stdout.contains("1666 join x832"), "{head}");
    let long = script(1667);
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", long.to_str().unwrap(), "--compare", all],
        &format!("simulate-assignment: the script is too long to simulate: 1667 round(s) × 6 strategies = 10002, more than the limit of 10000 (kafkit keeps every round in memory until it prints it){SEE_LIMITS}"),
    );
}

#[test]
fn the_limits_in_the_help_are_the_limits_enforced() {
    use kafkit::assign::limits::*;
    let dir = tempdir();
    let help = kafkit(dir.path(), &["simulate-assignment", "--help"])
        .ok()
        .to_string();
    for line in [
        format!(
            "  a topic has 1 to {MAX_PARTITIONS} partitions (Kafka's partition ids are int32);"
        ),
        format!(
            "  members x partitions (of all topics) in any round: at most {MAX_MEMBER_PARTITIONS};"
        ),
        format!(
            "  partitions + members summed over all rounds and strategies: at most {MAX_ENTRIES};"
        ),
        format!(
            "  rounds (the initial join, then one per event) x strategies: at most {MAX_ROUNDS};"
        ),
        format!("  a --scenario file: at most {MAX_SCENARIO_BYTES} bytes (1 MiB)."),
        format!("  the file: at most {MAX_VECTOR_BYTES} bytes (64 MiB);"),
        format!("  cooperative-sticky or uniform (work grows with partitions + members): at most {MAX_ROUND_PARTITIONS} partitions;"),
        format!("  any other round: members x partitions at most {MAX_MEMBER_PARTITIONS};"),
        format!("  partitions summed over the file's rounds: at most {MAX_VECTOR_PARTITIONS}."),
    ] {
        assert!(help.lines().any(|l| l == line), "{line:?} not in\n{help}");
    }
    assert_eq!(
        kafkit::assign::scenario::PARTITION_COUNT,
        format!("a partition count (an integer from 1 to {MAX_PARTITIONS})")
    );
}

#[test]
fn scenario_files_are_read_up_to_1_mib_and_devices_end_at_once() {
    let dir = tempdir();
    let started = std::time::Instant::now();
    // Read 4.7 GB in 10 s before the limit.
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", "/dev/zero"],
        "simulate-assignment: scenario file /dev/zero (a character device, not a regular file) is larger than 67108864 bytes (64 MiB), the most an assignor vector file may hold (a scenario file: 1048576 bytes)",
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // Several MB of garbage.
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"topics\": [".repeat(500_000)).unwrap();
    let path = garbage.to_str().unwrap();
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", path],
        &format!("simulate-assignment: scenario file {path} is larger than 1048576 bytes (1 MiB), the most a scenario file may hold"),
    );
    // Under the limit, garbage is not JSON, however deep it nests.
    std::fs::write(&garbage, "[".repeat(1 << 20)).unwrap();
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", path],
        &format!("simulate-assignment: {path}: not valid JSON: recursion limit exceeded at line 1 column 128"),
    );
    // The limit is inclusive: a scenario of exactly 1 MiB is read, one byte more is not.
    let scenario = r#"{"topics": ["t:3"], "members": ["a"]}"#;
    let mut text = scenario.to_string();
    text.push_str(&" ".repeat((1 << 20) - scenario.len()));
    let exact = dir.path().join("exact.json");
    std::fs::write(&exact, &text).unwrap();
    runs_in_bounded_memory(dir.path(), &["--scenario", exact.to_str().unwrap()]);
    text.push(' ');
    std::fs::write(&exact, &text).unwrap();
    let path = exact.to_str().unwrap();
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", path],
        &format!("simulate-assignment: scenario file {path} is larger than 1048576 bytes (1 MiB), the most a scenario file may hold"),
    );
}

#[test]
fn scenario_fields_of_the_wrong_type_are_named_with_what_they_take() {
    let dir = tempdir();
    let file = dir.path().join("scenario.json");
    let cases: &[(&str, &str)] = &[
        (
            r#"{"topics": [{"name": "t", "partitions": 1e300}], "members": ["a"]}"#,
            "topics[0].partitions: expected a partition count (an integer from 1 to 2147483647), found 1e300",
        ),
        (
            r#"{"topics": ["u:1", {"name": "t", "partitions": 2147483648}], "members": ["a"]}"#,
            "topics[1].partitions: expected a partition count (an integer from 1 to 2147483647), found 2147483648",
        ),
        (
            r#"{"topics": [{"name": "t", "partitions": 0}], "members": ["a"]}"#,
            "topics[0].partitions: expected a partition count (an integer from 1 to 2147483647), found 0",
        ),
        (
            r#"{"topics": [{"name": "t", "partitions": 3.0}], "members": ["a"]}"#,
            "topics[0].partitions: expected a partition count (an integer from 1 to 2147483647), found 3.0",
        ),
        (
            r#"{"topics": [{"name": "t", "partitions": "six"}], "members": ["a"]}"#,
            "topics[0].partitions: expected a partition count (an integer from 1 to 2147483647), found \"six\"",
        ),
        (
            r#"{"topics": [{"name": "t"}], "members": ["a"]}"#,
            "topics[0]: missing \"partitions\": a partition count (an integer from 1 to 2147483647)",
        ),
        (
            r#"{"topics": [{"name": 7, "partitions": 3}], "members": ["a"]}"#,
            "topics[0].name: expected a topic name (a string), found 7",
        ),
        (
            r#"{"topics": [{"name": "t", "partitions": 2, "racks": [["a"], [1]]}], "members": ["a"]}"#,
            "topics[0].racks[1][0]: expected the replica racks of each partition (an array of arrays of strings), found 1",
        ),
        (
            r#"{"topics": [true], "members": ["a"]}"#,
            "topics[0]: expected a topic (\"name:N\", or an object with \"name\" and \"partitions\"), found true",
        ),
        (
            r#"{"topics": ["t"], "members": ["a"]}"#,
            "topics[0]: topic \"t\" has no partition count (write t:N)",
        ),
        (
            r#"{"topics": [{"name": "t", "partitions": 3, "id": "not an id"}], "members": ["a"]}"#,
            "topics[0].id: not a Kafka topic id: Illegal base64 character 20",
        ),
        (
            r#"{"topics": "t:3", "members": ["a"]}"#,
            "topics: expected a list of topics (an array), found \"t:3\"",
        ),
        (
            r#"{"members": ["a"]}"#,
            "missing \"topics\": a list of topics (an array)",
        ),
        (
            r#"[{"topics": ["t:3"]}]"#,
            "expected a scenario (an object with \"topics\" and \"members\"), found an array",
        ),
        (
            r#"{"topics": ["t:3"], "members": [{"id": "a", "topics": "t"}]}"#,
            "members[0].topics: expected a list of topic names (an array of strings), found \"t\"",
        ),
        (
            r#"{"topics": ["t:3"], "members": [{"id": "a", "rack": {"zone": 1}}]}"#,
            "members[0].rack: expected a rack (a string), found an object",
        ),
        (
            r#"{"group": 5, "topics": ["t:3"], "members": ["a"]}"#,
            "group: expected a group id (a string), found 5",
        ),
        (
            r#"{"topics": ["t:3"], "members": ["a"], "events": [{"event": "add-partitions", "topic": "t", "partitions": -4}]}"#,
            "events[0].partitions: expected a partition count (an integer from 1 to 2147483647), found -4",
        ),
        (
            r#"{"topics": ["t:3"], "members": ["a"], "events": ["join b", {"event": "jump"}]}"#,
            "events[1].event: expected one of \"join\", \"leave\", \"crash\", \"add-partitions\", \"create-topic\", \"subscribe\", \"delete-topic\", found \"jump\"",
        ),
        (
            r#"{"topics": ["t:3"], "members": ["a"], "events": [{"event": "leave"}]}"#,
            "events[0]: missing \"member\": a member id (a string)",
        ),
        (
            r#"{"topics": ["t:3"], "members": ["a"], "events": ["explode a"]}"#,
            "events[0]: unknown event \"explode\" in \"explode a\" (expected join, leave, crash, add-partitions, create-topic, subscribe or delete-topic)",
        ),
        (
            r#"{"topics": ["t:3"], "members": ["a"], "strategy": ["range"]}"#,
            "strategy: expected a strategy name (a string), found an array",
        ),
    ];
    for (json, want) in cases {
        std::fs::write(&file, json).unwrap();
        // Run from the file's directory, so that the message names it as given.
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_kafkit"))
            .args(["simulate-assignment", "--scenario", "scenario.json"])
            .current_dir(dir.path())
            .output()
            .expect("run kafkit");
        assert_eq!(run.status.code(), Some(1), "{json}");
        assert_eq!(
            String::from_utf8_lossy(&run.stderr),
            format!("simulate-assignment: scenario.json: {want}\n"),
            "{json}"
        );
    }
    // Nulls stand for absent optional fields, and the scenario runs.
    std::fs::write(
        &file,
        r#"{"group": null, "topics": [{"name": "t", "partitions": 2, "racks": null, "id": null}], "members": [{"id": "a", "topics": null}], "events": null}"#,
    )
    .unwrap();
    let out = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", file.to_str().unwrap()],
    )
    .ok()
    .to_string();
    assert!(out.contains("t 0-1"), "{out}");
}

/// Kafka's large sticky-assignor case (`AbstractStickyAssignorTest.
/// testLargeAssignmentAndGroupWithUniformSubscription`, `scripts/gen-large-assignment.py` writes
/// it full size) as a `cooperative-sticky` vector file: `consumers` members `c0000`... subscribed
/// to `topics` topics `t000`... of `partitions` partitions. With `owned` (the first round's
/// assignment) members 1.. report it as owned with generation 1 and member 0 reports nothing;
/// `expected` is written as the round's expected result.
fn large_vector(
    topics: usize,
    partitions: i32,
    consumers: usize,
    owned: Option<&serde_json::Map<String, serde_json::Value>>,
    expected: Option<&str>,
) -> String {
    let names: Vec<String> = (0..topics).map(|t| format!("\"t{t:03}\"")).collect();
    let list = names.join(",");
    let mut s =
        String::from(r#"{"id":"large","assignor":"cooperative-sticky","rounds":[{"topics":{"#);
    let counts: Vec<String> = names.iter().map(|n| format!("{n}:{partitions}")).collect();
    s.push_str(&counts.join(","));
    s.push_str(r#"},"members":["#);
    for c in 0..consumers {
        if c > 0 {
            s.push(',');
        }
        let id = format!("c{c:04}");
        s.push_str(&format!(r#"{{"id":"{id}","topics":[{list}]"#));
        if let Some(owned) = owned {
            let mine = if c == 0 { None } else { owned.get(&id) };
            s.push_str(&format!(
                r#","owned":{},"generation":1,"user_data":{{"kind":"cooperative","generation":1}}"#,
                mine.map_or("[]".to_string(), |v| v.to_string())
            ));
        }
        s.push('}');
    }
    s.push(']');
    if let Some(e) = expected {
        s.push_str(&format!(r#","expected":{e}"#));
    }
    s.push_str("}]}");
    s
}

/// The same group as [`large_vector`] through the library.
fn large_members(
    topics: usize,
    consumers: usize,
    owned: Option<&kafkit::assign::Assignment>,
) -> Vec<kafkit::assign::Member> {
    use kafkit::assign::{Member, Subscription, UserData};
    let list: std::rc::Rc<[String]> = (0..topics).map(|t| format!("t{t:03}")).collect();
    (0..consumers)
        .map(|c| {
            let id = format!("c{c:04}");
            let mut s = Subscription {
                topics: list.clone(),
                ..Subscription::default()
            };
            if let Some(owned) = owned {
                if c > 0 {
                    s.owned = owned.get(&id).cloned().unwrap_or_default();
                }
                s.generation = Some(1);
                s.user_data = Some(UserData::Cooperative { generation: 1 });
            }
            Member {
                id,
                subscription: s,
            }
        })
        .collect()
}

/// A `round` line's `assignment` as the library's type.
fn assignment_of(line: &serde_json::Value) -> kafkit::assign::Assignment {
    line["assignment"]
        .as_object()
        .expect("an assignment")
        .iter()
        .map(|(m, list)| {
            let list = list
                .as_array()
                .expect("a list")
                .iter()
                .map(|tp| {
                    kafkit::assign::TopicPartition::new(
                        tp[0].as_str().expect("a topic"),
                        tp[1].as_i64().expect("a partition") as i32,
                    )
                })
                .collect();
            (m.clone(), list)
        })
        .collect()
}

fn assignment_json(a: &kafkit::assign::Assignment) -> String {
    serde_json::Value::Object(
        a.iter()
            .map(|(m, l)| {
                let l = l
                    .iter()
                    .map(|tp| serde_json::json!([&*tp.topic, tp.partition]))
                    .collect();
                (m.clone(), serde_json::Value::Array(l))
            })
            .collect(),
    )
    .to_string()
}

#[test]
fn a_large_group_and_its_owned_partitions_replay_exactly_as_the_library_assigns() {
    use kafkit::assign::sticky::StickyAssignor;
    use kafkit::assign::TopicMeta;
    // 500 members × 25,000 partitions: past the former bound of 10,000,000 members ×
    // partitions (and of 100,000 partitions a run), which the sticky assignors' constrained path
    // does not need.
    let (topics, partitions, consumers) = (50, 500, 500);
    let metas: Vec<TopicMeta> = (0..topics)
        .map(|t| TopicMeta::new(format!("t{t:03}"), partitions))
        .collect();
    let dir = tempdir();
    let first = dir.path().join("round1.json");
    std::fs::write(
        &first,
        large_vector(topics, partitions, consumers, None, None),
    )
    .unwrap();
    let run = scenario_json(dir.path(), &first);
    let lines = json_lines(run.ok());
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["matches_kafka"], serde_json::Value::Null);
    assert_eq!(lines[1]["rounds"], 1);
    assert_eq!(lines[1]["checked"], 0);
    let want = StickyAssignor::cooperative()
        .assign(&metas, &large_members(topics, consumers, None))
        .unwrap();
    let got = assignment_of(&lines[0]);
    assert_eq!(
        got, want.assignment,
        "round 1, member by member, in list order"
    );
    assert_eq!(got.values().map(Vec::len).sum::<usize>(), 25_000);

    // The same members report what they own (member 0 nothing); the library's answer, written
    // into the file as the expected result, is what kafkit finds.
    let second_members = large_members(topics, consumers, Some(&got));
    let want = StickyAssignor::cooperative()
        .assign(&metas, &second_members)
        .unwrap();
    assert_eq!(want.assignment["c0000"].len(), 50);
    let owned = lines[0]["assignment"].as_object().unwrap();
    let second = dir.path().join("round2.json");
    let expected = assignment_json(&want.assignment);
    std::fs::write(
        &second,
        large_vector(topics, partitions, consumers, Some(owned), Some(&expected)),
    )
    .unwrap();
    let run = scenario_json(dir.path(), &second);
    let lines = json_lines(run.ok());
    assert_eq!(assignment_of(&lines[0]), want.assignment);
    assert_eq!(lines[0]["matches_kafka"], true);
    let transferring: std::collections::BTreeMap<String, String> = want
        .transferring
        .unwrap()
        .iter()
        .map(|(tp, m)| (tp.to_string(), m.clone()))
        .collect();
    assert_eq!(
        lines[0]["partitions_transferring_ownership"],
        serde_json::json!(transferring)
    );
    assert_eq!(
        (lines[1]["checked"].as_u64(), lines[1]["matching"].as_u64()),
        (Some(1), Some(1))
    );
    let text = kafkit(
        dir.path(),
        &[
            "simulate-assignment",
            "--scenario",
            second.to_str().unwrap(),
        ],
    );
    assert!(text
        .ok()
        .ends_with("matches Kafka's expected result\n\n1/1 rounds match Kafka\n"));

    // One partition moved in the expected result: the round differs, exit 2.
    let mut wrong = want.assignment.clone();
    let moved = wrong.get_mut("c0001").unwrap().pop().unwrap();
    wrong.get_mut("c0002").unwrap().push(moved);
    std::fs::write(
        &second,
        large_vector(
            topics,
            partitions,
            consumers,
            Some(owned),
            Some(&assignment_json(&wrong)),
        ),
    )
    .unwrap();
    let run = scenario_json(dir.path(), &second);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let lines = json_lines(&run.stdout);
    assert_eq!(lines[0]["matches_kafka"], false);
    let differences = lines[0]["differences"].as_str().unwrap();
    assert!(differences.starts_with("c0001: got ["), "{differences}");
    // Round 1 has no expected result: replayed, not checked.
    let text = kafkit(
        dir.path(),
        &["simulate-assignment", "--scenario", first.to_str().unwrap()],
    );
    assert!(text.ok().ends_with(
        "  no expected result in the file: not checked\n\n1 round(s) replayed; the file gives no expected result to check them against\n"
    ));
}

#[test]
fn kafkas_large_case_runs_both_rounds_under_512_mib() {
    // 2,000 members, 500 topics × 2,000 partitions: a million partitions, two billion
    // members × partitions; then the same members report a million owned partitions (a 20 MB
    // file). Refused by the former limits.
    let (topics, partitions, consumers) = (500, 2_000, 2_000);
    let dir = tempdir();
    let first = dir.path().join("round1.json");
    std::fs::write(
        &first,
        large_vector(topics, partitions, consumers, None, None),
    )
    .unwrap();
    let run = runs_in_bounded_memory(
        dir.path(),
        &["--scenario", first.to_str().unwrap(), "--output", "json"],
    );
    let lines = json_lines(&run.stdout);
    let owned = lines[0]["assignment"].as_object().unwrap();
    assert_eq!(owned.len(), 2_000);
    assert!(owned
        .values()
        .all(|l| l.as_array().map(Vec::len) == Some(500)));
    let second = dir.path().join("round2.json");
    std::fs::write(
        &second,
        large_vector(topics, partitions, consumers, Some(owned), None),
    )
    .unwrap();
    assert!(std::fs::metadata(&second).unwrap().len() > 20_000_000);
    let run = runs_in_bounded_memory(
        dir.path(),
        &["--scenario", second.to_str().unwrap(), "--output", "json"],
    );
    let lines = json_lines(&run.stdout);
    let now = lines[0]["assignment"].as_object().unwrap();
    // Everyone keeps what it reported; member 0 gets back the 500 partitions nobody reported.
    for (m, list) in now {
        if m != "c0000" {
            assert_eq!(list, &owned[m], "{m}");
        }
    }
    assert_eq!(now["c0000"].as_array().map(Vec::len), Some(500));
    assert_eq!(
        lines[0]["partitions_transferring_ownership"],
        serde_json::json!({})
    );
}

#[test]
fn vector_files_are_bounded_by_size_partitions_and_members_x_partitions() {
    use kafkit::assign::limits::*;
    let dir = tempdir();
    let vector = |name: &str, assignor: &str, rounds: &[(&str, &str)]| {
        let rounds: Vec<String> = rounds
            .iter()
            .map(|(topics, members)| format!(r#"{{"topics": {topics}, "members": {members}}}"#))
            .collect();
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!(
                r#"{{"assignor": "{assignor}", "rounds": [{}]}}"#,
                rounds.join(",")
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    let one = r#"[{"id": "a", "topics": ["t"]}]"#;
    // Equal subscriptions on the sticky assignors' constrained path: partitions are the bound.
    let at_limit = format!(r#"{{"t": {MAX_ROUND_PARTITIONS}}}"#);
    let over = format!(r#"{{"t": {}}}"#, MAX_ROUND_PARTITIONS + 1);
    let path = vector(
        "over.json",
        "cooperative-sticky",
        &[(r#"{"t": 1}"#, one), (&over, one)],
    );
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", &path],
        &format!("simulate-assignment: the group is too large to simulate: round 2 has 2097153 partition(s), more than the limit of 2097152{SEE_LIMITS}"),
    );
    let path = vector("at.json", "uniform", &[(&at_limit, one)]);
    let run = runs_in_bounded_memory(dir.path(), &["--scenario", &path, "--output", "json"]);
    let lines = json_lines(&run.stdout);
    assert_eq!(
        lines[0]["assignment"]["a"].as_array().map(Vec::len),
        Some(1 << 21)
    );
    // Members with different subscriptions take the general path: members × partitions.
    let two = r#"[{"id": "a", "topics": ["t"]}, {"id": "b", "topics": ["t", "u"]}]"#;
    let path = vector(
        "general.json",
        "sticky",
        &[(r#"{"t": 5000000, "u": 1}"#, two)],
    );
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", &path],
        &format!("simulate-assignment: the group is too large to simulate: round 1 has 2 member(s) and 5000001 partition(s), 10000002 member-partitions, more than the limit of 10000000{SEE_LIMITS}"),
    );
    // So does a member with a rack, and range whatever the subscriptions.
    let racked = r#"[{"id": "a", "topics": ["t"], "rack": "r1"}]"#;
    let path = vector("rack.json", "sticky", &[(r#"{"t": 10000001}"#, racked)]);
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", &path],
        &format!("simulate-assignment: the group is too large to simulate: round 1 has 1 member(s) and 10000001 partition(s), 10000001 member-partitions, more than the limit of 10000000{SEE_LIMITS}"),
    );
    // The rounds of a file together.
    let million = r#"{"t": 1000000}"#;
    let path = vector("rounds.json", "sticky", &[(million, one); 11]);
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", &path],
        &format!("simulate-assignment: the vector file is too large to replay: its 11 round(s) hold 11000000 partitions in all, more than the limit of {MAX_VECTOR_PARTITIONS}{SEE_LIMITS}"),
    );
    // The file: 64 MiB at most, whatever it holds.
    let big = dir.path().join("big.json");
    let head = r#"{"assignor": "sticky", "rounds": []}"#;
    let mut text = head.to_string();
    text.push_str(&" ".repeat(MAX_VECTOR_BYTES as usize + 1 - head.len()));
    std::fs::write(&big, &text).unwrap();
    let path = big.to_str().unwrap();
    refused_in_bounded_memory(
        dir.path(),
        &["--scenario", path],
        &format!("simulate-assignment: scenario file {path} is larger than 67108864 bytes (64 MiB), the most an assignor vector file may hold (a scenario file: 1048576 bytes)"),
    );
    text.pop();
    std::fs::write(&big, &text).unwrap();
    let run = runs_in_bounded_memory(dir.path(), &["--scenario", path, "--output", "json"]);
    assert_eq!(json_lines(&run.stdout)[0]["rounds"], 0);
}

#[test]
fn the_densest_vector_file_allowed_stays_under_512_mib() {
    use kafkit::assign::limits::MAX_VECTOR_BYTES;
    // 64 MiB of owned and expected partitions, 8 bytes each: eight million of them.
    let dir = tempdir();
    let head = r#"{"assignor": "cooperative-sticky", "rounds": [{"topics": {"t": 2}, "members": [{"id": "a", "topics": ["t"], "generation": 1, "owned": [["t",1]"#;
    let middle = r#"]}], "expected": {"a": [["t",0]"#;
    let tail = "]}}]}";
    let entries = (MAX_VECTOR_BYTES as usize - head.len() - middle.len() - tail.len()) / 8;
    let mut text = String::with_capacity(MAX_VECTOR_BYTES as usize);
    text.push_str(head);
    text.push_str(&r#",["t",0]"#.repeat(entries / 2));
    text.push_str(middle);
    text.push_str(&r#",["t",1]"#.repeat(entries - entries / 2));
    text.push_str(tail);
    assert!(text.len() as u64 <= MAX_VECTOR_BYTES && text.len() as u64 > MAX_VECTOR_BYTES - 8);
    let path = dir.path().join("dense.json");
    std::fs::write(&path, &text).unwrap();
    drop(text);
    for output in ["json", "text"] {
        let run = kafkit_within(
            dir.path(),
            &[
                "simulate-assignment",
                "--scenario",
                path.to_str().unwrap(),
                "--output",
                output,
            ],
            MEMORY_CEILING,
        );
        assert_eq!(run.code, 2, "{output}: {}", run.stderr);
        assert!(
            run.stdout.contains("want [t-0,t-1,t-1,t-1,"),
            "{output}: {}",
            &run.stdout[..run.stdout.len().min(500)]
        );
        assert!(run.stdout.contains(",... (4194"), "{output}");
    }
}
