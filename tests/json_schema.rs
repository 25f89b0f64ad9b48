//! `docs/json.md` is the schema of `--output json`: each command family's runs print every type
//! and field its section documents, and nothing it does not (`common::json_doc`).

use crate::common::json_doc::{JsonDoc, Seen};
use crate::common::{kafkit, kafkit_stdin, repo_root, tempdir};

#[test]
fn topics_events_are_the_documented_ones() {
    let doc = JsonDoc::load();
    let dir = tempdir();
    let d = dir.path();
    // A broker's topic: only a partition directory, no id.
    std::fs::create_dir(d.join("legacy-0")).unwrap();
    let mut seen = Seen::default();
    for args in [
        // The metric-name warning, then the topic.
        &[
            "topics",
            "create",
            "--topic",
            "a.b",
            "--partitions",
            "2",
            "--config",
            "cleanup.policy=compact",
        ][..],
        &["topics", "list"],
        &["topics", "describe"],
        &["topics", "alter", "--topic", "a.b", "--partitions", "3"],
        &["topics", "delete", "--topic", "a.b"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--output", "json"]);
        let run = kafkit(d, &args);
        doc.check("topics", run.ok(), &mut seen);
    }
    doc.assert_covered("topics", &seen);
}

/// A vector file of the sticky assignor: a round Kafka's test checks (with its
/// `partitionsTransferringOwnership`), the same round against a wrong answer, and the round
/// again without one.
const STICKY_VECTOR: &str = r#"{"id": "json-schema", "assignor": "sticky", "rounds": [
    {"topics": {"topic1": 2, "topic2": 2}, "members": [
        {"id": "consumer3", "topics": ["topic1", "topic2"],
         "user_data": {"kind": "sticky", "partitions": [], "generation": 1}},
        {"id": "consumer2", "topics": ["topic1", "topic2"],
         "user_data": {"kind": "sticky", "partitions": [["topic1", 1], ["topic2", 1]], "generation": 1}},
        {"id": "consumer1", "topics": ["topic1", "topic2"],
         "user_data": {"kind": "sticky", "partitions": [["topic1", 0], ["topic2", 0]], "generation": 1}}],
     "expected": {"consumer3": [["topic2", 0]], "consumer2": [["topic1", 1], ["topic2", 1]], "consumer1": [["topic1", 0]]},
     "expected_partitions_transferring_ownership": {"topic2:0": "consumer3"}},
    {"topics": {"topic1": 2}, "members": [{"id": "consumer1", "topics": ["topic1"]}],
     "expected": {"consumer1": [["topic1", 1], ["topic1", 0]]}},
    {"topics": {"topic1": 2}, "members": [{"id": "consumer1", "topics": ["topic1"]}]}]}"#;

/// The server-side uniform assignor throws when members subscribe to topics that do not exist.
const THROWING_VECTOR: &str = r#"{"id": "json-schema-throws", "assignor": "server-uniform", "rounds": [
    {"topics": {"topic1": 3}, "subscription_type": "HETEROGENEOUS", "members": [
        {"id": "A", "topics": ["topic3"]}, {"id": "B", "topics": ["topic2"]}],
     "expected_error": "PartitionAssignorException"}]}"#;

#[test]
fn simulate_assignment_events_are_the_documented_ones() {
    let doc = JsonDoc::load();
    let dir = tempdir();
    let d = dir.path();
    let mut seen = Seen::default();
    let script = kafkit(
        d,
        &[
            "simulate-assignment",
            "--compare",
            "range,uniform",
            "--topic",
            "orders:3",
            "--members",
            "a,b",
            "--then",
            "leave b",
            "--explain",
            "--output",
            "json",
        ],
    );
    doc.check("simulate-assignment", script.ok(), &mut seen);
    for (name, text, code) in [
        ("sticky.json", STICKY_VECTOR, 2),
        ("throws.json", THROWING_VECTOR, 0),
    ] {
        let file = d.join(name);
        std::fs::write(&file, text).unwrap();
        let run = kafkit(
            d,
            &[
                "simulate-assignment",
                "--scenario",
                file.to_str().unwrap(),
                "--output",
                "json",
            ],
        );
        assert_eq!(run.code, code, "{name}: {}", run.stderr);
        doc.check("simulate-assignment", &run.stdout, &mut seen);
    }
    doc.assert_covered("simulate-assignment", &seen);
}

#[test]
fn errors_are_one_documented_object_on_every_command() {
    let doc = JsonDoc::load();
    let dir = tempdir();
    let mut seen = Seen::default();
    for args in [
        &[
            "consume", "--topic", "demo", "--offset", "1", "--output", "json",
        ][..],
        &[
            "topics", "describe", "--topic", "absent", "--output", "json",
        ],
        &["--output", "json", "dump-log-segments"],
    ] {
        let run = kafkit(dir.path(), args);
        run.fails();
        doc.check("errors", &run.stdout, &mut seen);
    }
    doc.assert_covered("errors", &seen);
}

/// A topic `t` of two partitions with three records written by `produce --input json --output
/// json`: a keyed one with headers, one whose key is not UTF-8, one with a null value.
fn produced(dir: &std::path::Path) -> crate::common::Run {
    kafkit(
        dir,
        &["topics", "--create", "--topic", "t", "--partitions", "2"],
    )
    .ok();
    kafkit_stdin(
        dir,
        &[
            "produce", "--topic", "t", "--input", "json", "--output", "json",
        ],
        concat!(
            r#"{"key":"k","value":"v","headers":[{"key":"h","value":"x"}],"partition":0}"#,
            "\n",
            r#"{"key":{"base64":"/w=="},"value":"w","timestamp":42,"partition":1}"#,
            "\n",
            r#"{"key":"n","value":null,"partition":1}"#,
            "\n",
        )
        .as_bytes(),
    )
}

/// Checks every line of each run's stdout against `section`'s tables, and that together they
/// printed every type and field the section documents.
fn check_covered(section: &str, runs: &[crate::common::Run]) {
    let doc = JsonDoc::load();
    let mut seen = Seen::default();
    for run in runs {
        doc.check(section, &run.stdout, &mut seen);
    }
    doc.assert_covered(section, &seen);
}

#[test]
fn produce_prints_the_documented_objects() {
    let dir = tempdir();
    let run = produced(dir.path());
    assert_eq!(run.ok().lines().count(), 3, "{}", run.stdout);
    check_covered("produce", &[run]);
}

#[test]
fn consume_prints_the_documented_objects() {
    let dir = tempdir();
    produced(dir.path()).ok();
    let args = "consume --topic t --from-beginning --max-messages 3 --output json";
    let run = kafkit(dir.path(), &args.split(' ').collect::<Vec<_>>());
    assert_eq!(run.ok().lines().count(), 3, "{}", run.stdout);
    check_covered("consume", &[run]);
}

#[test]
fn get_offsets_prints_the_documented_objects() {
    let dir = tempdir();
    produced(dir.path()).ok();
    let runs: Vec<_> = ["latest", "earliest"]
        .map(|time| {
            let run = kafkit(
                dir.path(),
                &[
                    "get-offsets",
                    "--topic",
                    "t",
                    "--time",
                    time,
                    "--output",
                    "json",
                ],
            );
            assert_eq!(run.ok().lines().count(), 2, "{}", run.stdout);
            run
        })
        .into();
    check_covered("get-offsets", &runs);
}

#[test]
fn consumer_groups_prints_its_documented_objects() {
    let doc = JsonDoc::load();
    let dir = crate::groups::groups_data_dir();
    let mut seen = Seen::default();
    for args in [
        &["consumer-groups", "--list", "--output", "json"][..],
        &[
            "consumer-groups",
            "--describe",
            "--all-groups",
            "--output",
            "json",
        ],
        &[
            "consumer-groups",
            "--describe",
            "--all-groups",
            "--members",
            "--output",
            "json",
        ],
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "billing",
            "--group",
            "gone",
            "--state",
            "--output",
            "json",
        ],
    ] {
        let run = kafkit(dir.path(), args);
        doc.check("consumer-groups", run.ok(), &mut seen);
    }
    doc.assert_covered("consumer-groups", &seen);
}

/// Dumps of every file kind, with every option that adds a field, and of damaged files: every
/// type and field of the `dump-log-segments` section is printed, and nothing else.
#[test]
fn dump_events_match_docs() {
    use std::fs;

    use kafkit::log::{snapshot_bytes, AbortedTxn, BatchMetadata, ProducerStateEntry};

    let doc = JsonDoc::load();
    let tmp = tempdir();
    let root = tmp.path();
    let dir = crate::dump::options::partition(root);
    let base = "t-0/00000000000000000000";
    fs::copy(
        dir.join("00000000000000000000.log"),
        dir.join("00000000000000000100-0000000001.checkpoint"),
    )
    .unwrap();
    let producer = |last_batch| ProducerStateEntry {
        producer_id: 7,
        producer_epoch: 1,
        coordinator_epoch: 2,
        last_timestamp: 1_700_000_000_000,
        current_txn_first_offset: Some(3),
        last_batch,
    };
    let snapshot = snapshot_bytes(&[
        producer(Some(BatchMetadata {
            last_seq: 9,
            last_offset: 40,
            offset_delta: 4,
            timestamp: 1_700_000_000_000,
        })),
        producer(None),
    ]);
    fs::write(dir.join("00000000000000000100.snapshot"), snapshot).unwrap();
    let txn = AbortedTxn {
        version: 0,
        producer_id: 7,
        first_offset: 10,
        last_offset: 20,
        last_stable_offset: 10,
    };
    fs::write(dir.join("00000000000000000000.txnindex"), txn.encode()).unwrap();
    fs::write(dir.join("leader-epoch-checkpoint"), "0\n0\n").unwrap();

    // Damage: an index entry pointing at the first batch, time-index entries out of order,
    // with another timestamp than their batch's and at an offset no batch ends at.
    let damaged = root.join("u-0");
    fs::create_dir(&damaged).unwrap();
    for suffix in ["log", "index", "timeindex"] {
        let name = format!("00000000000000000000.{suffix}");
        fs::copy(dir.join(&name), damaged.join(&name)).unwrap();
    }
    let index = damaged.join("00000000000000000000.index");
    let mut bytes = fs::read(&index).unwrap();
    bytes[4..8].copy_from_slice(&0i32.to_be_bytes());
    fs::write(&index, &bytes).unwrap();
    let time_index = damaged.join("00000000000000000000.timeindex");
    let mut bytes = fs::read(&time_index).unwrap();
    let first = i64::from_be_bytes(bytes[..8].try_into().unwrap());
    bytes[12..20].copy_from_slice(&(first - 1).to_be_bytes());
    bytes[32..36].copy_from_slice(&2i32.to_be_bytes());
    fs::write(&time_index, &bytes).unwrap();
    // A gap in the offsets, and bytes after the last batch that are not one.
    let gap = root.join("g-0");
    fs::create_dir(&gap).unwrap();
    let mut log = crate::dump::options::batches_at(&[0, 1, 5]);
    log.extend_from_slice(&[0; 20]);
    fs::write(gap.join("00000000000000000000.log"), &log).unwrap();

    let kafka_python = repo_root().join("tests/data/kafka-python");
    let legacy = kafka_python.join("kp-legacy-0/00000000000000000000.log");
    let control = kafka_python.join("kp-txn-0/00000000000000000000.log");
    let files = ["log", "index", "timeindex", "txnindex"]
        .map(|suffix| format!("{base}.{suffix}"))
        .join(",");
    let all = format!(
        "{files},t-0/00000000000000000100.snapshot,t-0/00000000000000000100-0000000001.checkpoint,t-0/leader-epoch-checkpoint,{},{}",
        legacy.display(),
        control.display()
    );
    let index_file = format!("{base}.index");
    let log_file = format!("{base}.log");
    let mut runs: Vec<Vec<String>> = [
        &["--files", &all, "--deep-iteration", "--key-decoder", "hex"][..],
        &["--files", &log_file, "--print-data-log"],
        &["--files", &index_file, "--index-sanity-check"],
        &["--files", "u-0", "--deep-iteration"],
        &[
            "--files",
            "g-0/00000000000000000000.log",
            "--deep-iteration",
        ],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect();
    // The internal-topic decoders and KRaft control records, on a real broker's files.
    match crate::common::fixtures() {
        Some(fixtures) => {
            for (file, decoder) in [
                (
                    "DonaldY__kafka-2.7.1/__consumer_offsets-39/00000000000000000000.log",
                    "--offsets-decoder",
                ),
                (
                    "8sylla__citypulse/__cluster_metadata-0/00000000000000014459-0000000001.checkpoint",
                    "--cluster-metadata-decoder",
                ),
            ] {
                let path = fixtures.join(file).display().to_string();
                runs.push(vec!["--files".into(), path, decoder.into()]);
            }
        }
        None => crate::common::skip(
            "the decoders' part of dump_events_match_docs needs ../shared/kafka-fixtures",
        ),
    }
    let mut seen = Seen::default();
    for args in &runs {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--output", "json"]);
        let run = crate::dump::dump_in(root, &args);
        assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
        doc.check("dump-log-segments", &run.stdout, &mut seen);
    }
    doc.assert_covered("dump-log-segments", &seen);
}

#[test]
fn consumer_group_writes_print_their_documented_objects() {
    let dir = crate::group_writes::data();
    let root = dir.path();
    let json = |args: &[&str]| {
        let run = kafkit(
            root,
            &[&["consumer-groups"], args, &["--output", "json"]].concat(),
        );
        assert!(!run.stdout.is_empty(), "{args:?}: {}", run.stderr);
        run
    };
    let member = crate::group_writes::Member::caught_up(root, "live");
    let mut runs = vec![
        json(&[
            "--reset-offsets",
            "--group",
            "live",
            "--all-topics",
            "--to-earliest",
            "--execute",
        ]),
        json(&["--delete", "--group", "live"]),
        json(&[
            "--delete-offsets",
            "--group",
            "live",
            "--topic",
            "t:0",
            "--topic",
            "nope",
        ]),
    ];
    member.stop();
    runs.extend([
        json(&[
            "--reset-offsets",
            "--group",
            "g",
            "--topic",
            "t",
            "--to-offset",
            "3",
            "--execute",
        ]),
        json(&["--delete-offsets", "--group", "g", "--topic", "t:1"]),
        json(&["--delete", "--group", "g"]),
    ]);
    check_covered("consumer-groups writes", &runs);
}

#[test]
fn configs_prints_its_documented_objects() {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let runs = [
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "retention.ms=1,cleanup.policy=compact",
            "--output",
            "json",
        ][..],
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--delete-config",
            "cleanup.policy",
            "--output",
            "json",
        ],
        &["configs", "--describe", "--topic", "t", "--output", "json"],
        &[
            "configs",
            "--describe",
            "--topic",
            "absent",
            "--output",
            "json",
        ],
    ]
    .map(|args| {
        let run = kafkit(dir.path(), args);
        run.ok();
        run
    });
    // Brokers' configs are a cluster's: their objects come from a broker.
    let Some(broker) = crate::common::broker::start() else {
        return;
    };
    crate::net::remote(&broker, &["topics", "--create", "--topic", "t"]).ok();
    let net = [
        &["configs", "--describe", "--entity-type", "brokers"][..],
        &["configs", "--describe", "--broker", "1"],
        &[
            "configs",
            "--alter",
            "--broker",
            &broker_id(&broker),
            "--add-config",
            "a=1",
        ],
        &["configs", "--describe", "--broker", "5"],
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "retention.ms=1",
        ],
        &["configs", "--describe", "--topic", "t", "--all"],
    ]
    .map(|args| {
        let mut args = args.to_vec();
        args.extend(["--output", "json"]);
        let run = crate::net::remote(&broker, &args);
        run.ok();
        run
    });
    let doc = JsonDoc::load();
    let mut seen = Seen::default();
    for run in runs.iter().chain(&net) {
        doc.check("configs", &run.stdout, &mut seen);
    }
    // Tansu describes no broker config, so no `config` object names a `broker` here; its
    // shape is checked in `output::configs`' unit tests.
    doc.assert_covered_but("configs", &seen, &[("config", "broker")]);
}

/// The node id of the test broker (Tansu's 111), from its `topics --describe`'s metadata.
fn broker_id(broker: &crate::common::broker::Broker) -> String {
    let brokers = crate::net::remote(
        broker,
        &["configs", "--describe", "--entity-type", "brokers"],
    );
    brokers
        .ok()
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("Dynamic configs for broker "))
        .and_then(|l| l.strip_suffix(" are:"))
        .expect("a broker")
        .to_string()
}

#[test]
fn delete_records_prints_its_documented_objects() {
    let dir = tempdir();
    produced(dir.path()).ok();
    let file = dir.path().join("offsets.json");
    std::fs::write(
        &file,
        r#"{"partitions":[{"topic":"t","partition":0,"offset":1},{"topic":"t","partition":7,"offset":1}]}"#,
    )
    .unwrap();
    let run = kafkit(
        dir.path(),
        &[
            "delete-records",
            "--offset-json-file",
            file.to_str().unwrap(),
            "--output",
            "json",
        ],
    );
    run.fails();
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    let doc = JsonDoc::load();
    let mut seen = Seen::default();
    let (results, error) = run
        .stdout
        .rsplit_once('\n')
        .map_or(("", ""), |(a, _)| a.rsplit_once('\n').unwrap_or(("", a)));
    doc.check("delete-records", &format!("{results}\n"), &mut seen);
    doc.check("errors", &format!("{error}\n"), &mut Seen::default());
    doc.assert_covered("delete-records", &seen);
}

#[test]
fn log_dirs_prints_its_documented_objects() {
    let dir = tempdir();
    produced(dir.path()).ok();
    let future = dir
        .path()
        .join("t-1.0123456789abcdef0123456789abcdef-future");
    crate::common::copy_dir(&dir.path().join("t-1"), &future);
    let run = kafkit(dir.path(), &["log-dirs", "--describe", "--output", "json"]);
    assert_eq!(run.ok().lines().count(), 4, "{}", run.stdout);
    check_covered("log-dirs", &[run]);
}

#[test]
fn log_cleaner_prints_its_documented_objects() {
    let dir = tempdir();
    let d = dir.path();
    for (topic, config) in [
        ("t", "retention.ms=3600000"),
        ("c", "cleanup.policy=compact"),
    ] {
        let args = ["topics", "--create", "--topic", topic, "--config", config];
        kafkit(d, &args[..]).ok();
    }
    kafkit_stdin(d, &["produce", "--topic", "t"], b"x\n").ok();
    // A broker's __consumer_offsets (compacted) holding magic-1 messages, which the cleaner
    // rewrites as v2 batches.
    let legacy = repo_root().join("tests/data/kafka-python/kp-legacy-0/00000000000000000000.log");
    std::fs::create_dir(d.join("__consumer_offsets-0")).unwrap();
    std::fs::copy(
        legacy,
        d.join("__consumer_offsets-0/00000000000000000000.log"),
    )
    .unwrap();
    // An empty active segment after it, so that it is in the dirty part.
    std::fs::write(d.join("__consumer_offsets-0/00000000000000001000.log"), b"").unwrap();
    let runs: Vec<_> = [
        // t's record has expired (the active segment is rolled first); c is compacted.
        &["log-cleaner", "--now", "+8d", "--output", "json"][..],
        // Its `.deleted` files are due a day later.
        &[
            "log-cleaner",
            "--now",
            "+9d",
            "--output",
            "json",
            "--dry-run",
        ],
    ]
    .iter()
    .map(|args| {
        let run = kafkit(d, args);
        run.ok();
        run
    })
    .collect();
    assert!(
        runs[0].stdout.contains("\"type\":\"segment\""),
        "{}",
        runs[0].stdout
    );
    assert!(
        runs[1].stdout.contains("\"type\":\"removed_file\""),
        "{}",
        runs[1].stdout
    );
    assert!(
        runs[0]
            .stdout
            .contains("\"type\":\"compaction\",\"topic\":\"__consumer_offsets\""),
        "{}",
        runs[0].stdout
    );
    check_covered("log-cleaner", &runs);
}

/// `cluster init`, `metadata` and `cluster what-if` on a cluster with a cluster-wide config, a
/// topic with overrides and one without.
#[test]
fn cluster_commands_print_their_documented_objects() {
    let dir = tempdir();
    let cluster = dir.path().join("cluster");
    let d = cluster.display().to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["--data-dir", d.as_str(), "--output", "json"];
        all.extend_from_slice(args);
        kafkit(dir.path(), &all)
    };
    let init = run(&[
        "cluster",
        "init",
        "--brokers",
        "3",
        "--rack",
        "1=a",
        "--config",
        "min.insync.replicas=2",
    ]);
    assert_eq!(init.ok().lines().count(), 4, "{}", init.stdout);
    check_covered("cluster init", &[init]);
    run(&[
        "topics",
        "--create",
        "--topic",
        "a",
        "--replica-assignment",
        "1:2,2:3",
    ])
    .ok();
    run(&[
        "topics",
        "--create",
        "--topic",
        "b",
        "--replication-factor",
        "3",
        "--config",
        "unclean.leader.election.enable=true",
    ])
    .ok();
    let metadata = run(&["metadata"]);
    assert_eq!(
        metadata.ok().lines().count(),
        1 + 1 + 3 + 1 + 2 + 2 + 1,
        "{}",
        metadata.stdout
    );
    check_covered("metadata", &[metadata]);
    let what_if = run(&["cluster", "what-if", "--down", "2,3"]);
    assert_eq!(
        what_if.ok().lines().count(),
        3 + 3 + 1,
        "{}",
        what_if.stdout
    );
    check_covered("cluster what-if", &[what_if]);
    let file = dir.path().join("plan.json");
    std::fs::write(
        &file,
        r#"{"partitions":[{"topic":"a","partition":0,"replicas":[3,2]},{"topic":"a","partition":1,"replicas":[2,3]}]}"#,
    )
    .unwrap();
    let plan = file.display().to_string();
    let topics = dir.path().join("topics.json");
    std::fs::write(&topics, r#"{"topics":[{"topic":"a"}]}"#).unwrap();
    let topics = topics.display().to_string();
    let generate = run(&[
        "reassign-partitions",
        "--generate",
        "--topics-to-move-json-file",
        &topics,
        "--broker-list",
        "1,2,3",
        "--disable-rack-aware",
    ]);
    assert_eq!(generate.ok().lines().count(), 4, "{}", generate.stdout);
    let with_plan = |action: &str| {
        run(&[
            "reassign-partitions",
            action,
            "--reassignment-json-file",
            &plan,
        ])
    };
    let execute = with_plan("--execute");
    assert_eq!(execute.ok().lines().count(), 4, "{}", execute.stdout);
    let verify = with_plan("--verify");
    assert_eq!(verify.ok().lines().count(), 2, "{}", verify.stdout);
    check_covered("reassign-partitions", &[generate, execute, verify]);
    let elect = |args: &[&str]| {
        let mut all = vec!["leader-election", "--election-type", "preferred"];
        all.extend_from_slice(args);
        run(&all)
    };
    let elected = elect(&["--topic", "a", "--partition", "0"]);
    assert_eq!(elected.ok().lines().count(), 1, "{}", elected.stdout);
    let missing = elect(&["--topic", "a", "--partition", "9"]);
    missing.fails();
    check_covered("leader-election", &[elected]);
}

/// `cluster status`, `replicate`, `stop-broker` and `start-broker` print their documented
/// objects, and only those.
#[test]
fn replication_commands_print_their_documented_objects() {
    let dir = tempdir();
    let cluster = dir.path().join("cluster");
    let d = cluster.display().to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["--data-dir", d.as_str(), "--output", "json"];
        all.extend_from_slice(args);
        kafkit(dir.path(), &all)
    };
    run(&["cluster", "init", "--brokers", "2"]).ok();
    run(&[
        "topics",
        "--create",
        "--topic",
        "a",
        "--replica-assignment",
        "1:2",
    ])
    .ok();
    kafkit_stdin(
        dir.path(),
        &[
            "--data-dir",
            d.as_str(),
            "produce",
            "--topic",
            "a",
            "--acks",
            "1",
        ],
        b"x\n",
    )
    .ok();
    let status = run(&["cluster", "status"]);
    let replicate = run(&["cluster", "replicate"]);
    let stop = run(&["cluster", "stop-broker", "1"]);
    let start = run(&["cluster", "start-broker", "1"]);
    for r in [&status, &replicate, &stop, &start] {
        r.ok();
    }
    assert_eq!(status.stdout.lines().count(), 3, "{}", status.stdout);
    check_covered(
        "cluster replicate, stop-broker, start-broker, status",
        &[status, replicate, stop, start],
    );
}
