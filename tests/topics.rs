//! `kafkit topics` against kafka-topics.sh's behaviour (`kafka-cli-surface.md` §1).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{fixtures, kafkit, tempdir, vectors, Run};

const PREFIX: &str = "Error while executing topic command : ";
const METRIC_WARNING: &str = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.";

/// The execution error a failed run printed on stdout (after any warnings; prefix removed).
#[track_caller]
fn exec_error(run: &Run) -> String {
    assert_eq!(
        run.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    let at = run
        .stdout
        .find(PREFIX)
        .unwrap_or_else(|| panic!("no `{PREFIX}` in stdout:\n{}", run.stdout));
    let error = &run.stdout[at + PREFIX.len()..];
    error
        .strip_suffix('\n')
        .unwrap_or_else(|| panic!("no final newline: {error:?}"))
        .to_string()
}

/// The first line of a usage error (stderr, exit 1, nothing on stdout).
#[track_caller]
fn usage_error(run: &Run) -> String {
    assert_eq!(
        run.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    run.stderr.lines().next().unwrap_or_default().to_string()
}

fn create(dir: &Path, topic: &str, extra: &[&str]) -> Run {
    let mut args = vec!["topics", "--create", "--topic", topic];
    args.extend_from_slice(extra);
    kafkit(dir, &args)
}

fn topic_id(dir: &Path, topic: &str) -> String {
    let text = fs::read_to_string(dir.join(format!("{topic}-0")).join("partition.metadata"))
        .expect("partition.metadata");
    text.rsplit(' ').next().expect("id").to_string()
}

#[test]
fn create_prints_kafkas_line_and_makes_partition_dirs() {
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    assert_eq!(
        create(&dir, "demo", &["--partitions", "3"]).ok(),
        "Created topic demo.\n"
    );
    let id = topic_id(&dir, "demo");
    assert_eq!(id.len(), 22);
    for p in 0..3 {
        let bytes = fs::read(dir.join(format!("demo-{p}/partition.metadata"))).expect("read");
        assert_eq!(bytes, format!("version: 0\ntopic_id: {id}").into_bytes());
        // Segments are the log's business.
        let files: Vec<_> = fs::read_dir(dir.join(format!("demo-{p}")))
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(files, vec![std::ffi::OsString::from("partition.metadata")]);
    }
    assert!(!dir.join("demo-3").exists());
    let meta = kafkit::datadir::MetaProperties::read(&dir.join("meta.properties")).expect("meta");
    assert_eq!((meta.version, meta.node_id), (1, 0));
    assert!(meta.cluster_id.is_some() && meta.directory_id.is_some());
    let text = fs::read_to_string(dir.join("meta.properties")).expect("meta");
    assert!(text.starts_with("#\n#"), "{text}");
    assert!(
        text.contains("\nnode.id=0\n") && text.contains("\nversion=1\n"),
        "{text}"
    );
}

#[test]
fn default_partition_count_is_one() {
    let tmp = tempdir();
    create(tmp.path(), "one", &[]).ok();
    assert!(tmp.path().join("one-0").is_dir());
    assert!(!tmp.path().join("one-1").exists());
}

#[test]
fn invalid_names_from_the_vectors() {
    let Some(vectors) = vectors() else { return };
    let text = fs::read_to_string(vectors.join("cli/topic_names.json")).expect("vectors");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let tmp = tempdir();
    let mut checked = 0;
    for case in doc["invalid"].as_array().expect("invalid") {
        let mut name = case["name"].as_str().expect("name").to_string();
        let mut message = case["message"].as_str().expect("message").to_string();
        if name == "a*250" {
            name = "a".repeat(250);
            message = message.replace("<250 x a>", &name);
        }
        if name.contains('\0') {
            continue; // cannot travel in argv; the library test covers it
        }
        if name.is_empty() {
            // The admin client refuses it before any request, with its own words.
            message = "The given topic name '' cannot be represented in a request.".into();
        }
        let run = create(tmp.path(), &name, &[]);
        assert_eq!(exec_error(&run), message, "name {name:?}");
        checked += 1;
    }
    assert!(checked >= 20);
    assert_eq!(
        fs::read_dir(tmp.path())
            .map(|d| d
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir() && !e.file_name().to_string_lossy().starts_with('.'))
                .count())
            .unwrap_or(0),
        0,
        "no partition directory may be made for an invalid name"
    );
}

#[test]
fn each_name_rule_in_order() {
    let tmp = tempdir();
    let d = tmp.path();
    assert_eq!(
        exec_error(&create(d, ".", &[])),
        "Topic name is invalid: '.' is not allowed"
    );
    let fresh = d.join("fresh");
    assert_eq!(
        exec_error(&create(&fresh, "..", &[])),
        "Topic name is invalid: '..' is not allowed"
    );
    assert!(
        !fresh.exists(),
        "an invalid name must not create the data directory"
    );
    // Length is checked before characters.
    let long = format!("{}!", "b".repeat(249));
    assert_eq!(
        exec_error(&create(d, &long, &[])),
        format!("Topic name is invalid: the length of '{long}' is longer than the max allowed length 249")
    );
    assert_eq!(
        exec_error(&create(d, "café", &[])),
        "Topic name is invalid: 'café' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    );
    create(d, "...", &[]).ok();
    create(d, &"a".repeat(249), &[]).ok();
}

#[test]
fn exists_and_if_not_exists() {
    let tmp = tempdir();
    create(tmp.path(), "demo", &[]).ok();
    let run = create(tmp.path(), "demo", &[]);
    assert_eq!(exec_error(&run), "Topic 'demo' already exists.");
    assert_eq!(
        run.stdout,
        format!("{PREFIX}Topic 'demo' already exists.\n")
    );
    let run = create(tmp.path(), "demo", &["--if-not-exists"]);
    assert_eq!(run.ok(), "");
}

#[test]
fn collision_warns_then_fails() {
    let tmp = tempdir();
    let run = create(tmp.path(), "foo.bar", &[]);
    assert_eq!(
        run.ok(),
        format!("{METRIC_WARNING}\nCreated topic foo.bar.\n")
    );
    let run = create(tmp.path(), "foo_bar", &[]);
    assert_eq!(
        run.stdout,
        format!(
            "{METRIC_WARNING}\n{PREFIX}Topic 'foo_bar' collides with existing topic: foo.bar\n"
        )
    );
    assert_eq!(run.code, 1);
    assert!(!tmp.path().join("foo_bar-0").exists());
    // Same name: "already exists" wins over the collision.
    assert_eq!(
        exec_error(&create(tmp.path(), "foo.bar", &[])),
        "Topic 'foo.bar' already exists."
    );
}

#[test]
fn partitions_and_replication_factor_checks() {
    let tmp = tempdir();
    let d = tmp.path();
    assert_eq!(
        exec_error(&create(d, "t", &["--partitions", "0"])),
        "The partitions must be greater than 0"
    );
    assert_eq!(
        exec_error(&create(d, "t", &["--partitions", "-1"])),
        "The partitions must be greater than 0"
    );
    assert_eq!(
        exec_error(&create(d, "t", &["--replication-factor", "0"])),
        "The replication factor must be between 1 and 32767 inclusive"
    );
    assert_eq!(
        exec_error(&create(
            d,
            "t",
            &["--replication-factor", "32768", "--partitions", "0"]
        )),
        "The replication factor must be between 1 and 32767 inclusive"
    );
    assert_eq!(
        exec_error(&create(d, "t", &["--replication-factor", "3"])),
        "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered."
    );
    assert!(!d.join("t-0").exists());
    create(d, "t", &["--replication-factor", "1", "--partitions", "2"]).ok();
    assert!(usage_error(&create(d, "u", &["--partitions", "x"]))
        .contains("Cannot parse argument 'x' of option partitions"));
}

#[test]
fn replica_assignment_checks() {
    let tmp = tempdir();
    let d = tmp.path();
    create(d, "ra", &["--replica-assignment", "0,0,0"]).ok();
    assert!(d.join("ra-2").is_dir() && !d.join("ra-3").exists());
    assert_eq!(
        exec_error(&create(d, "x", &["--replica-assignment", "1"])),
        "The manual partition assignment includes broker 1, but no such broker is registered."
    );
    assert_eq!(
        exec_error(&create(d, "x", &["--replica-assignment", "0:0"])),
        "Partition replica lists may not contain duplicate entries: 0"
    );
    assert_eq!(
        exec_error(&create(d, "x", &["--replica-assignment", "0,0:1"])),
        "Partition 1 has different replication factor: [0, 1]"
    );
    assert_eq!(
        exec_error(&create(d, "x", &["--replica-assignment", "0:a"])),
        "For input string: \"a\""
    );
    assert_eq!(
        usage_error(&create(
            d,
            "x",
            &["--replica-assignment", "0", "--partitions", "1"]
        )),
        "Option \"[replica-assignment]\" can't be used with option \"[partitions]\""
    );
}

#[test]
fn config_validation_messages() {
    let tmp = tempdir();
    let d = tmp.path();
    let cases = [
        ("boom=1", "Unknown topic config name: boom"),
        (
            "message.timestamp.type=boom",
            "Invalid value boom for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime",
        ),
        ("retention.ms=-5", "Invalid value -5 for configuration retention.ms: Value must be at least -1"),
        (
            "segment.bytes=1000",
            "Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576",
        ),
        (
            "segment.bytes=big",
            "Invalid value big for configuration segment.bytes: Not a number of type INT",
        ),
        (
            "min.insync.replicas=0",
            "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1",
        ),
        (
            "compression.zstd.level=23",
            "Invalid value 23 for configuration compression.zstd.level: Value must be no more than 22",
        ),
        (
            "compression.type=brotli",
            "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer",
        ),
        (
            "cleanup.policy=compact,nope",
            "Invalid value nope for configuration cleanup.policy: String must be one of: compact, delete",
        ),
        (
            "preallocate=maybe",
            "Invalid value maybe for configuration preallocate: Expected value to be either true or false",
        ),
        (
            "min.cleanable.dirty.ratio=1.5",
            "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1",
        ),
        (
            "a=b=c",
            "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\".",
        ),
    ];
    for (config, message) in cases {
        let run = create(d, "c", &["--config", config]);
        assert_eq!(exec_error(&run), message, "--config {config}");
    }
    let run = create(
        d,
        "c",
        &[
            "--config",
            "min.compaction.lag.ms=10",
            "--config",
            "max.compaction.lag.ms=5",
        ],
    );
    assert_eq!(
        exec_error(&run),
        "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"
    );
    assert!(!d.join("c-0").exists());
    create(
        d,
        "c",
        &[
            "--config",
            "cleanup.policy = compact",
            "--config",
            "retention.ms=-1",
        ],
    )
    .ok();
    let out = kafkit(d, &["topics", "--describe", "--topic", "c"])
        .ok()
        .to_string();
    assert!(
        out.lines()
            .next()
            .unwrap_or_default()
            .ends_with("\tConfigs: cleanup.policy=compact,retention.ms=-1"),
        "{out}"
    );
}

#[test]
fn usage_errors_in_kafkas_order() {
    let tmp = tempdir();
    let d = tmp.path();
    let cases: &[(&[&str], &str)] = &[
        (&["topics"], "Create, delete, describe, or change a topic."),
        (
            &["topics", "--topic", "x"],
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete",
        ),
        (
            &["topics", "--list", "--delete"],
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete",
        ),
        (
            &["topics", "create", "--list"],
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete",
        ),
        (&["topics", "--create"], "Missing required argument \"[topic]\""),
        (&["topics", "--delete"], "Missing required argument \"[topic]\""),
        (
            &["topics", "--describe", "--if-exists"],
            "--topic or --topic-id is required to describe a topic",
        ),
        (
            &["topics", "--alter", "--topic", "x", "--config", "a=b"],
            "Option combination \"[[bootstrap-server], [config]]\" can't be used with option \"[alter]\" (To alter topic configurations, the kafka-configs tool can be used.)",
        ),
        (&["topics", "--alter", "--topic", "x"], "Missing required argument \"[partitions]\""),
        (&["topics", "--list", "--config", "a=b"], "Option \"[config]\" can't be used with option \"[list]\""),
        (
            &["topics", "--describe", "--partitions", "2"],
            "Option \"[partitions]\" can't be used with option \"[describe]\"",
        ),
        (
            &["topics", "--alter", "--topic", "x", "--partitions", "2", "--replication-factor", "1"],
            "Option \"[replication-factor]\" can't be used with option \"[alter]\"",
        ),
        (
            &["topics", "--list", "--under-replicated-partitions"],
            "Option \"[under-replicated-partitions]\" can't be used with option \"[list]\"",
        ),
        (
            &["topics", "--describe", "--topics-with-overrides", "--at-min-isr-partitions"],
            "Option \"[at-min-isr-partitions]\" can't be used with option \"[topics-with-overrides]\"",
        ),
        (&["topics", "--list", "--if-exists"], "Option \"[if-exists]\" can't be used with option \"[list]\""),
        (
            &["topics", "--delete", "--topic", "x", "--if-not-exists"],
            "Option \"[if-not-exists]\" can't be used with option \"[delete]\"",
        ),
        (
            &["topics", "--create", "--topic", "x", "--exclude-internal"],
            "Option \"[exclude-internal]\" can't be used with option \"[create]\"",
        ),
    ];
    for (args, message) in cases {
        let run = kafkit(d, args);
        assert_eq!(usage_error(&run), *message, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
    // Options may repeat, as with jopt-simple.
    create(d, "r", &["--create", "--topic", "r"]).ok();
}

#[test]
fn list_is_sorted_filtered_by_whole_match_regex_and_excludes_internal() {
    let tmp = tempdir();
    let d = tmp.path();
    assert_eq!(
        kafkit(d, &["topics", "--create", "--topic", "b"]).ok(),
        "Created topic b.\n"
    );
    for t in [
        "a",
        "__consumer_offsets",
        "test.topic",
        "test_topic2",
        "Z",
        "ab",
    ] {
        create(d, t, &[]).ok();
    }
    assert_eq!(
        kafkit(d, &["topics", "--list"]).ok(),
        "Z\n__consumer_offsets\na\nab\nb\ntest.topic\ntest_topic2\n"
    );
    assert_eq!(
        kafkit(d, &["topics", "--list", "--exclude-internal"]).ok(),
        "Z\na\nab\nb\ntest.topic\ntest_topic2\n"
    );
    assert_eq!(kafkit(d, &["topics", "--list", "--topic", "a"]).ok(), "a\n");
    assert_eq!(
        kafkit(d, &["topics", "--list", "--topic", "a,b"]).ok(),
        "a\nb\n"
    );
    assert_eq!(
        kafkit(d, &["topics", "--list", "--topic", "a.*"]).ok(),
        "a\nab\n"
    );
    assert_eq!(
        kafkit(d, &["topics", "--list", "--topic", "test.topic2"]).ok(),
        "test_topic2\n"
    );
    assert_eq!(
        kafkit(d, &["topics", "--list", "--topic", "test\\.topic.*"]).ok(),
        "test.topic\n"
    );
    // Nothing matches: one empty line, as Kafka's println of an empty join.
    assert_eq!(
        kafkit(d, &["topics", "--list", "--topic", "nope"]).ok(),
        "\n"
    );
    let run = kafkit(d, &["topics", "--list", "--topic", "("]);
    assert_eq!(exec_error(&run), "( is an invalid regex.");
}

#[test]
fn list_of_an_empty_directory_is_one_empty_line() {
    let tmp = tempdir();
    assert_eq!(kafkit(tmp.path(), &["topics", "--list"]).ok(), "\n");
}

#[test]
fn describe_prints_kafkas_exact_lines() {
    let tmp = tempdir();
    let d = tmp.path();
    create(
        d,
        "orders",
        &["--partitions", "2", "--config", "cleanup.policy=compact"],
    )
    .ok();
    create(d, "plain", &[]).ok();
    let orders = topic_id(d, "orders");
    let plain = topic_id(d, "plain");
    let expected = format!(
        "Topic: orders\tTopicId: {orders}\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: cleanup.policy=compact\n\
         \tTopic: orders\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: \n\
         \tTopic: orders\tPartition: 1\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: \n\
         Topic: plain\tTopicId: {plain}\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n\
         \tTopic: plain\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: \n"
    );
    assert_eq!(kafkit(d, &["topics", "--describe"]).ok(), expected);
    let by_id = kafkit(d, &["topics", "--describe", "--topic-id", &plain])
        .ok()
        .to_string();
    assert!(by_id.starts_with("Topic: plain\t"), "{by_id}");
    assert_eq!(
        kafkit(d, &["topics", "--describe", "--topics-with-overrides"]).ok(),
        format!("Topic: orders\tTopicId: {orders}\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: cleanup.policy=compact\n")
    );
    // Report filters print partition lines only. One broker: never under-replicated; every
    // partition sits at min.insync.replicas = 1.
    assert_eq!(
        kafkit(
            d,
            &["topics", "--describe", "--under-replicated-partitions"]
        )
        .ok(),
        ""
    );
    assert_eq!(
        kafkit(d, &["topics", "--describe", "--unavailable-partitions"]).ok(),
        ""
    );
    assert_eq!(
        kafkit(
            d,
            &[
                "topics",
                "--describe",
                "--at-min-isr-partitions",
                "--topic",
                "plain"
            ]
        )
        .ok(),
        "\tTopic: plain\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: \n"
    );
    let run = kafkit(d, &["topics", "--describe", "--topic", "nope"]);
    assert_eq!(exec_error(&run), "Topic 'nope' does not exist as expected");
    assert_eq!(
        kafkit(
            d,
            &["topics", "--describe", "--topic", "nope", "--if-exists"]
        )
        .ok(),
        ""
    );
    let run = kafkit(
        d,
        &[
            "topics",
            "--describe",
            "--topic-id",
            "AAAAAAAAAAAAAAAAAAAAAQ",
        ],
    );
    assert_eq!(
        exec_error(&run),
        "TopicId 'AAAAAAAAAAAAAAAAAAAAAQ' does not exist as expected"
    );
    // Not an id: Kafka's Uuid.fromString fails with java.util.Base64's message.
    for (id, message) in [
        ("not.an.id", "Illegal base64 character 2e"),
        (
            "AAAA",
            "Input string `AAAA` decoded as 3 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID",
        ),
    ] {
        let run = kafkit(d, &["topics", "--describe", "--topic-id", id]);
        assert_eq!(exec_error(&run), message);
    }
}

#[test]
fn alter_adds_partitions_with_kafkas_messages() {
    let tmp = tempdir();
    let d = tmp.path();
    create(d, "grow", &["--partitions", "2"]).ok();
    let id = topic_id(d, "grow");
    assert_eq!(
        exec_error(&kafkit(
            d,
            &["topics", "--alter", "--topic", "grow", "--partitions", "2"]
        )),
        "Topic already has 2 partition(s)."
    );
    assert_eq!(
        exec_error(&kafkit(
            d,
            &["topics", "--alter", "--topic", "grow", "--partitions", "1"]
        )),
        "The topic grow currently has 2 partition(s); 1 would not be an increase."
    );
    assert_eq!(
        kafkit(
            d,
            &["topics", "--alter", "--topic", "grow", "--partitions", "4"]
        )
        .ok(),
        ""
    );
    for p in 0..4 {
        let bytes = fs::read(d.join(format!("grow-{p}/partition.metadata"))).expect("metadata");
        assert_eq!(bytes, format!("version: 0\ntopic_id: {id}").into_bytes());
    }
    let out = kafkit(d, &["topics", "--describe", "--topic", "grow"])
        .ok()
        .to_string();
    assert!(
        out.starts_with(&format!("Topic: grow\tTopicId: {id}\tPartitionCount: 4\t")),
        "{out}"
    );
    assert_eq!(out.lines().count(), 5);
    assert_eq!(
        exec_error(&kafkit(
            d,
            &[
                "topics",
                "--alter",
                "--topic",
                "grow",
                "--partitions",
                "6",
                "--replica-assignment",
                "0,0,0,0,0"
            ]
        )),
        "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified."
    );
    kafkit(
        d,
        &[
            "topics",
            "--alter",
            "--topic",
            "grow",
            "--partitions",
            "6",
            "--replica-assignment",
            "0,0,0,0,0,0",
        ],
    )
    .ok();
    assert!(d.join("grow-5").is_dir());
    assert_eq!(
        exec_error(&kafkit(
            d,
            &["topics", "--alter", "--topic", "nope", "--partitions", "6"]
        )),
        "Topic 'nope' does not exist as expected"
    );
    kafkit(
        d,
        &[
            "topics",
            "--alter",
            "--topic",
            "nope",
            "--partitions",
            "6",
            "--if-exists",
        ],
    )
    .ok();
}

#[test]
fn delete_removes_everything_and_honours_if_exists() {
    let tmp = tempdir();
    let d = tmp.path();
    create(d, "gone", &["--partitions", "3"]).ok();
    create(d, "kept", &[]).ok();
    assert_eq!(
        kafkit(d, &["topics", "--delete", "--topic", "gone"]).ok(),
        ""
    );
    assert_eq!(kafkit(d, &["topics", "--list"]).ok(), "kept\n");
    let leftovers: Vec<String> = fs::read_dir(d)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("gone"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert_eq!(
        exec_error(&kafkit(d, &["topics", "--delete", "--topic", "gone"])),
        "Topic 'gone' does not exist as expected"
    );
    assert_eq!(
        kafkit(d, &["topics", "--delete", "--topic", "gone", "--if-exists"]).ok(),
        ""
    );
    // The name is free again, with a new id.
    create(d, "gone", &[]).ok();
}

#[test]
fn word_form_equals_flag_form() {
    let a = tempdir();
    let b = tempdir();
    let pairs: &[(&[&str], &[&str])] = &[
        (
            &["topics", "create", "--topic", "demo", "--partitions", "3"],
            &["topics", "--create", "--topic", "demo", "--partitions", "3"],
        ),
        (&["topics", "list"], &["topics", "--list"]),
        (
            &["topics", "alter", "--topic", "demo", "--partitions", "4"],
            &["topics", "--alter", "--topic", "demo", "--partitions", "4"],
        ),
        (
            &["topics", "create", "--topic", "demo"],
            &["topics", "--create", "--topic", "demo"],
        ),
        (
            &["topics", "delete", "--topic", "demo"],
            &["topics", "--delete", "--topic", "demo"],
        ),
        (&["topics", "describe"], &["topics", "--describe"]),
    ];
    // Topic ids are random: compare describe output without them.
    let ids = regex::Regex::new("TopicId: [A-Za-z0-9_-]{22}").expect("regex");
    for (word, flag) in pairs {
        let x = kafkit(a.path(), word);
        let y = kafkit(b.path(), flag);
        let (xs, ys) = (
            ids.replace_all(&x.stdout, "TopicId: ?"),
            ids.replace_all(&y.stdout, "TopicId: ?"),
        );
        assert_eq!(
            (x.code, &xs, &x.stderr),
            (y.code, &ys, &y.stderr),
            "{word:?}"
        );
    }
}

#[test]
fn json_output_parses() {
    let tmp = tempdir();
    let d = tmp.path();
    let run = kafkit(
        d,
        &[
            "topics",
            "create",
            "--topic",
            "j.s",
            "--partitions",
            "2",
            "--output",
            "json",
        ],
    );
    let objects: Vec<serde_json::Value> = run
        .ok()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(objects[0]["type"], "warning");
    assert_eq!(objects[1]["type"], "created");
    assert_eq!(objects[1]["partitions"], 2);
    let out = kafkit(d, &["--output", "json", "topics", "describe"])
        .ok()
        .to_string();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["type"], "topic");
    assert_eq!(lines[0]["partition_count"], 2);
    assert_eq!(lines[0]["topic_id"].as_str().map(str::len), Some(22));
    assert_eq!(lines[2]["type"], "partition");
    assert_eq!(lines[2]["partition"], 1);
    assert_eq!(lines[2]["replicas"], serde_json::json!([0]));
    let list = kafkit(d, &["topics", "list", "--output", "json"])
        .ok()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(list.trim()).expect("json");
    assert_eq!(v["type"], "listed");
    assert_eq!(v["topic"], "j.s");
    let run = kafkit(
        d,
        &["topics", "create", "--topic", "j.s", "--output", "json"],
    );
    assert_eq!(run.code, 1);
    let last: serde_json::Value =
        serde_json::from_str(run.stdout.lines().last().expect("line")).expect("json");
    assert_eq!(last["type"], "error");
    assert_eq!(
        last["message"],
        "Error while executing topic command : Topic 'j.s' already exists."
    );
}

#[test]
fn four_processes_creating_the_same_topic() {
    let tmp = tempdir();
    let dir = tmp.path().join("race");
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_kafkit"))
                .args(["topics", "--create", "--topic", "x", "--partitions", "8"])
                .env("KAFKIT_DATA_DIR", &dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let stdouts: Vec<String> = outputs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .collect();
    let created = stdouts
        .iter()
        .filter(|s| *s == "Created topic x.\n")
        .count();
    let exists = stdouts
        .iter()
        .filter(|s| *s == &format!("{PREFIX}Topic 'x' already exists.\n"))
        .count();
    assert_eq!((created, exists), (1, 3), "{stdouts:?} {outputs:?}");
    for o in &outputs {
        let stdout = String::from_utf8_lossy(&o.stdout);
        let expected = if stdout.starts_with("Created") { 0 } else { 1 };
        assert_eq!(o.status.code(), Some(expected));
    }
    let id = topic_id(&dir, "x");
    for p in 0..8 {
        assert_eq!(
            fs::read(dir.join(format!("x-{p}/partition.metadata"))).expect("metadata"),
            format!("version: 0\ntopic_id: {id}").into_bytes()
        );
    }
    assert!(!dir.join("x-8").exists());
    let out = kafkit(&dir, &["topics", "--describe"]).ok().to_string();
    assert!(
        out.starts_with(&format!("Topic: x\tTopicId: {id}\tPartitionCount: 8\t")),
        "{out}"
    );
}

#[test]
fn lists_and_describes_real_broker_directories() {
    let Some(fixtures) = fixtures() else { return };
    let itu = fixtures.join("ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions");
    assert_eq!(
        kafkit(&itu, &["topics", "--list"]).ok(),
        "__transaction_state\n_confluent-ksql-default__command_topic\n"
    );
    assert_eq!(
        kafkit(&itu, &["topics", "--list", "--exclude-internal"]).ok(),
        "_confluent-ksql-default__command_topic\n"
    );
    let id = fs::read_to_string(itu.join("__transaction_state-44/partition.metadata"))
        .expect("metadata")
        .rsplit(' ')
        .next()
        .expect("id")
        .to_string();
    assert_eq!(
        kafkit(&itu, &["topics", "--describe", "--topic", "__transaction_state"]).ok(),
        format!(
            "Topic: __transaction_state\tTopicId: {id}\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n\
             \tTopic: __transaction_state\tPartition: 44\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: \n"
        )
    );
    // Kafka 0.11 (meta.properties version 0, no partition.metadata): no TopicId field.
    let shara = fixtures.join("SharaWeil__kafka-0.11.0");
    assert_eq!(kafkit(&shara, &["topics", "--list"]).ok(), "test0\n");
    let out = kafkit(&shara, &["topics", "--describe"]).ok().to_string();
    assert!(
        out.starts_with("Topic: test0\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"),
        "{out}"
    );
    // A stray non-partition directory (`golden/`) is ignored.
    let kafkalite = fixtures.join("asayers__kafkalite");
    assert_eq!(
        kafkit(&kafkalite, &["topics", "--list"]).ok(),
        "hamlet-gzip\nhamlet-none\nhamlet-snappy\n"
    );
}

#[test]
fn notes_and_warnings_kafka_prints() {
    let tmp = tempdir();
    let d = tmp.path();
    create(d, "n", &[]).ok();
    let id = topic_id(d, "n");
    // Both --topic and --topic-id with --if-exists: a note on stdout, then the id wins.
    let out = kafkit(
        d,
        &[
            "topics",
            "--describe",
            "--if-exists",
            "--topic",
            "other",
            "--topic-id",
            &id,
        ],
    )
    .ok()
    .to_string();
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID")
    );
    assert!(
        lines.next().is_some_and(|l| l.starts_with("Topic: n\t")),
        "{out}"
    );
    // --delete-config is only a warning since 4.0.
    let run = kafkit(d, &["topics", "--list", "--delete-config", "x"]);
    assert_eq!(run.ok(), "n\n");
    assert_eq!(
        run.stderr,
        "delete-config option is no longer supported and deprecated since version 4.0. The config will be fully removed in future releases.\n"
    );
    let run = create(d, "m", &["--config", "message.format.version=3.0-IV1"]);
    let out = run.ok();
    assert!(
        out.starts_with("WARNING: The configuration message.format.version=3.0-IV1 is specified."),
        "{out}"
    );
    assert!(out.ends_with("Created topic m.\n"), "{out}");
}

#[test]
fn reading_a_missing_directory_is_an_error_and_creates_nothing() {
    let tmp = tempdir();
    let missing = tmp.path().join("nope");
    for action in ["--list", "--describe"] {
        let run = kafkit(&missing, &["topics", action]);
        assert_eq!(
            exec_error(&run),
            format!("data directory {} does not exist", missing.display())
        );
    }
    let run = kafkit(&missing, &["topics", "--delete", "--topic", "x"]);
    assert_eq!(run.code, 1);
    assert!(!missing.exists());
}

#[test]
fn the_kraft_metadata_log_is_never_made_a_topic() {
    // Kafka's controller refuses to create __cluster_metadata; its -0 directory in a KRaft
    // broker's data directory is the controller's log, which a create wrote partition.metadata
    // into.
    let expected = concat!(
        "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\n",
        "Error while executing topic command : Creation of internal topic __cluster_metadata is prohibited.\n",
    );
    let refused = |dir: &Path| {
        let run = kafkit(
            dir,
            &["topics", "--create", "--topic", "__cluster_metadata"],
        );
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (1, expected),
            "{}",
            run.stderr
        );
    };
    let files = |dir: &Path| -> Vec<_> {
        fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect()
    };
    let dir = tempdir();
    refused(dir.path());
    assert!(files(dir.path()).is_empty(), "nothing created");

    let Some(fixtures) = fixtures() else { return };
    let kraft = tempdir();
    crate::common::copy_dir(&fixtures.join("8sylla__citypulse"), kraft.path());
    let log_dir = kraft.path().join("__cluster_metadata-0");
    let before = files(&log_dir);
    refused(kraft.path());
    // Nor is anything produced into it.
    let run = crate::common::kafkit_stdin(
        kraft.path(),
        &["produce", "--topic", "__cluster_metadata"],
        b"x\n",
    );
    assert!(
        run.fails()
            .contains("it is a KRaft controller's metadata log, not a topic"),
        "{}",
        run.stderr
    );
    assert_eq!(files(&log_dir), before);
}

#[test]
fn more_partitions_than_the_controller_takes_in_one_request_are_refused() {
    let tmp = tempdir();
    let d = tmp.path();
    // Kafka's controller makes at most 10000 partitions in one request; a larger count used to
    // make directories for as long as it took.
    assert_eq!(
        exec_error(&create(d, "big", &["--partitions", "10001"])),
        "Excessively large number of partitions per request."
    );
    let many: Vec<&str> = vec!["0"; 10_001];
    assert_eq!(
        exec_error(&create(
            d,
            "big",
            &["--replica-assignment", &many.join(",")]
        )),
        "Excessively large number of partitions per request."
    );
    assert!(!d.join("big-0").exists());
    create(d, "big", &["--partitions", "2"]).ok();
    let run = kafkit(
        d,
        &[
            "topics",
            "--alter",
            "--topic",
            "big",
            "--partitions",
            "2000000000",
        ],
    );
    assert_eq!(
        exec_error(&run),
        "Unable to perform excessively large batch operation."
    );
    assert!(!d.join("big-2").exists());
}
