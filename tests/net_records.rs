//! `delete-records` and `log-dirs` with `--bootstrap-server`: DeleteRecords through the
//! partitions' leaders and DescribeLogDirs of each broker, as Kafka's admin client asks them,
//! against a Tansu broker started per test (`common::broker`), printed by the printers the
//! data directory's runs print with.
//!
//! Tansu 0.6 cannot answer either call, and the tests that meet it say so by name: it lists
//! DeleteRecords v0-2 in ApiVersions, but its in-memory storage panics on one
//! (`dynostore.rs`: "not yet implemented") and the connection closes, so no log start moves;
//! it does not list DescribeLogDirs at all. What a Kafka broker's DeleteRecords answers print
//! is checked on the answers themselves (`net::records`' unit test).

use std::path::Path;

use crate::common::broker::{self, free_port, Broker};
use crate::common::{kafkit, tempdir, Run};
use crate::net::remote;

/// Kafka's admin client's timeout for a partition whose leader was never found.
const LOOKUP_TIMEOUT: &str = "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: deleteRecords(api=METADATA)";

/// Writes `text` to `dir/name` and returns its path.
fn file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_str().expect("path").to_string()
}

/// `fast.properties`: calls give up after 600 ms instead of Kafka's 60 s.
fn fast(dir: &Path) -> String {
    file(dir, "fast.properties", "default.api.timeout.ms=600\n")
}

/// A broker with a topic `t` of `partitions`, a scratch directory and its `fast.properties`.
fn broker_with_topic(partitions: &str) -> Option<(Broker, tempfile::TempDir, String)> {
    let broker = broker::start()?;
    let dir = tempdir();
    let fast = fast(dir.path());
    remote(
        &broker,
        &[
            "topics",
            "--create",
            "--topic",
            "t",
            "--partitions",
            partitions,
        ],
    )
    .ok();
    Some((broker, dir, fast))
}

fn lines(run: &Run) -> Vec<&str> {
    run.stdout.lines().collect()
}

#[test]
fn delete_records_of_partitions_a_cluster_does_not_have_time_out_as_kafkas_client() {
    let Some((broker, dir, fast)) = broker_with_topic("2") else {
        return;
    };
    let offsets = file(
        dir.path(),
        "offsets.json",
        r#"{"partitions":[{"topic":"nope","partition":0,"offset":4},{"topic":"t","partition":7,"offset":1}],"version":1}"#,
    );
    let args = [
        "delete-records",
        "--offset-json-file",
        &offsets,
        "--command-config",
        &fast,
    ];
    // Kafka's admin client looks an unknown topic or partition up again until
    // default.api.timeout.ms (a topic may be on its way), then fails it with its timeout.
    let net = remote(&broker, &args);
    assert_eq!(net.code, 1, "{}", net.stderr);
    assert_eq!(
        lines(&net),
        [
            "Executing records delete operation".to_string(),
            "Records delete operation completed:".to_string(),
            format!("partition: nope-0\terror: {LOOKUP_TIMEOUT}"),
            format!("partition: t-7\terror: {LOOKUP_TIMEOUT}"),
        ]
    );
    assert_eq!(
        net.stderr,
        "Could not delete records of 2 of 2 partitions\n"
    );
    // The data directory's run asks its one broker, which knows at once: the same lines from
    // the same printer, with the broker's own error.
    let data = dir.path().join("data");
    kafkit(
        &data,
        &["topics", "--create", "--topic", "t", "--partitions", "2"],
    )
    .ok();
    let local = kafkit(&data, &["delete-records", "--offset-json-file", &offsets]);
    assert_eq!(local.code, 1, "{}", local.stderr);
    assert_eq!(lines(&local)[..2], lines(&net)[..2]);
    assert_eq!(
        lines(&local)[2],
        "partition: nope-0\terror: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition."
    );
    assert_eq!(local.stderr, net.stderr);
    // JSON: the same events, the error object last.
    let mut json = vec!["--output", "json"];
    json.extend(args);
    let net = remote(&broker, &json);
    assert_eq!(
        lines(&net),
        [
            format!(
                r#"{{"type":"partition_error","topic":"nope","partition":0,"error":"{LOOKUP_TIMEOUT}","schema":1}}"#
            ),
            format!(
                r#"{{"type":"partition_error","topic":"t","partition":7,"error":"{LOOKUP_TIMEOUT}","schema":1}}"#
            ),
            r#"{"type":"error","code":1,"message":"Could not delete records of 2 of 2 partitions","schema":1}"#.to_string(),
        ]
    );
    // Asking did not create the topic (Metadata without auto-creation).
    assert_eq!(remote(&broker, &["topics", "--list"]).ok(), "t\n");
}

/// Tansu 0.6 lists DeleteRecords v0-2 but its in-memory storage panics on one ("not yet
/// implemented") and the connection closes: as Kafka's admin client, kafkit sends it again on
/// a new connection until default.api.timeout.ms, then fails each partition with Kafka's
/// timeout; no log start moved (a Kafka broker would answer each partition's low watermark).
#[test]
fn tansu_difference_delete_records_closes_the_connection() {
    let Some((broker, dir, fast)) = broker_with_topic("1") else {
        return;
    };
    let sent = crate::common::kafkit_stdin(
        &dir.path().join("unused"),
        &[
            "produce",
            "--topic",
            "t",
            "--bootstrap-server",
            &broker.bootstrap(),
            "--sync",
        ],
        b"a\nb\nc\n",
    );
    sent.ok();
    let offsets = file(
        dir.path(),
        "offsets.json",
        r#"{"partitions":[{"topic":"t","partition":0,"offset":2}],"version":1}"#,
    );
    let run = remote(
        &broker,
        &[
            "delete-records",
            "--offset-json-file",
            &offsets,
            "--command-config",
            &fast,
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Executing records delete operation\n\
         Records delete operation completed:\n\
         partition: t-0\terror: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: deleteRecords(api=DELETE_RECORDS)\n"
    );
    // The broker still starts the partition at 0 and serves its first record.
    assert_eq!(
        remote(&broker, &["get-offsets", "--topic", "t", "--time", "-2"]).ok(),
        "t:0:0\n"
    );
    let consumed = remote(
        &broker,
        &[
            "consume",
            "--topic",
            "t",
            "--partition",
            "0",
            "--offset",
            "earliest",
            "--max-messages",
            "1",
        ],
    );
    assert_eq!(consumed.ok(), "a\n");
    // Nothing was deleted in a data directory instead.
    assert!(!dir.path().join("unused").exists());
}

/// Tansu 0.6 does not list DescribeLogDirs (API key 35) in ApiVersions: Kafka's admin client
/// fails the call before sending it with `UnsupportedVersionException: The broker does not
/// support DESCRIBE_LOG_DIRS`, which kafka-log-dirs.sh prints with its stack trace (whose
/// first line kafkit prints) after its first line, and exits 1.
#[test]
fn tansu_difference_log_dirs_has_no_describe_log_dirs() {
    let Some(broker) = broker::start() else {
        return;
    };
    let unsupported = "org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support DESCRIBE_LOG_DIRS";
    for args in [
        &["log-dirs", "--describe"][..],
        &[
            "log-dirs",
            "--describe",
            "--topic-list",
            "t",
            "--broker-list",
            "111",
        ],
    ] {
        let run = remote(&broker, args);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(
            run.stdout, "Querying brokers for log directories information\n",
            "{args:?}"
        );
        assert_eq!(
            run.stderr,
            format!("{unsupported}\njava.util.concurrent.ExecutionException: {unsupported}\n"),
            "{args:?}"
        );
    }
    let json = remote(&broker, &["--output", "json", "log-dirs", "--describe"]);
    assert_eq!(json.code, 1);
    let error: serde_json::Value = serde_json::from_str(json.stdout.trim()).expect("one object");
    assert_eq!(error["type"], "error");
    assert_eq!(
        error["message"],
        format!("{unsupported}\njava.util.concurrent.ExecutionException: {unsupported}")
    );
}

/// Brokers named in --broker-list that the cluster does not have: the same line as for a data
/// directory, naming the cluster's brokers (Tansu's one is 111, the directory's 0).
#[test]
fn log_dirs_of_brokers_a_cluster_does_not_have_print_as_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let args = ["log-dirs", "--describe", "--broker-list", "7,111,0,3"];
    let net = remote(&broker, &args);
    let local = kafkit(dir.path(), &args);
    assert_eq!((net.code, local.code), (1, 1));
    assert_eq!(net.stdout, "");
    assert_eq!(
        net.stderr,
        "ERROR: The given brokers do not exist from --broker-list: 0,3,7. Current existent brokers: 111\n"
    );
    assert_eq!(
        local.stderr,
        "ERROR: The given brokers do not exist from --broker-list: 3,7,111. Current existent brokers: 0\n"
    );
    let bad = remote(&broker, &["log-dirs", "--describe", "--broker-list", "x"]);
    assert_eq!(bad.stderr, "For input string: \"x\"\n");
}

#[test]
fn brokers_that_are_down_and_a_data_dir_beside_are_kafkas_errors() {
    let dir = tempdir();
    let fast = fast(dir.path());
    let down = format!("127.0.0.1:{}", free_port());
    let warning = format!(
        "WARN Connection to node -1 (127.0.0.1/{down}) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)"
    );
    let offsets = file(
        dir.path(),
        "offsets.json",
        r#"{"partitions":[{"topic":"t","partition":0,"offset":-1}]}"#,
    );
    // Nothing answers: Kafka's client warning (once), then every partition's timeout.
    let run = kafkit(
        dir.path(),
        &[
            "delete-records",
            "--bootstrap-server",
            &down,
            "--offset-json-file",
            &offsets,
            "--command-config",
            &fast,
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        format!(
            "Executing records delete operation\nRecords delete operation completed:\npartition: t-0\terror: {LOOKUP_TIMEOUT}\n"
        )
    );
    assert_eq!(run.stderr.matches(&warning).count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .ends_with("\nCould not delete records of 1 of 1 partitions\n"),
        "{}",
        run.stderr
    );
    let run = kafkit(
        dir.path(),
        &[
            "log-dirs",
            "--describe",
            "--bootstrap-server",
            &down,
            "--command-config",
            &fast,
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    let timeout = "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listNodes";
    assert!(
        run.stderr.contains(&warning)
            && run.stderr.ends_with(&format!(
                "\n{timeout}\njava.util.concurrent.ExecutionException: {timeout}\n"
            )),
        "{}",
        run.stderr
    );
    // --command-config is read: a value Kafka refuses is its error, before any connection.
    let bad = file(dir.path(), "bad.properties", "request.timeout.ms=soon\n");
    for command in [
        &["delete-records", "--offset-json-file", &offsets][..],
        &["log-dirs", "--describe"],
    ] {
        let mut args = command.to_vec();
        args.extend(["--bootstrap-server", &down, "--command-config", &bad]);
        let run = kafkit(dir.path(), &args);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(
            run.stderr
                .contains("Invalid value soon for configuration request.timeout.ms"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // --data-dir names another place: a usage error, and the directory is left alone.
    let data = dir.path().join("data");
    let data = data.to_str().expect("path");
    kafkit(
        dir.path(),
        &["--data-dir", data, "topics", "--create", "--topic", "t"],
    )
    .ok();
    kafkit_stdin_ok(data, b"a\nb\n");
    for command in [
        &["delete-records", "--offset-json-file", &offsets][..],
        &["log-dirs", "--describe"],
    ] {
        let mut args = vec!["--data-dir", data];
        args.extend(command);
        args.extend(["--bootstrap-server", "127.0.0.1:9092"]);
        let run = kafkit(dir.path(), &args);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(
            run.stderr.starts_with(
                "Option \"[bootstrap-server]\" can't be used with option \"[data-dir]\"\n"
            ),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(
        kafkit(
            dir.path(),
            &[
                "--data-dir",
                data,
                "get-offsets",
                "--topic",
                "t",
                "--time",
                "earliest"
            ]
        )
        .ok(),
        "t:0:0\n"
    );
}

/// An offset file Kafka's tool refuses is refused before any broker is asked, in the same
/// words in both modes.
#[test]
fn offset_files_kafka_refuses_print_the_same_in_both_modes() {
    let dir = tempdir();
    let down = format!("127.0.0.1:{}", free_port());
    for text in [
        "nope",
        r#"{"version":2,"partitions":[]}"#,
        r#"{"partitions":[{"topic":"t","partition":0,"offset":1},{"topic":"t","partition":0,"offset":2}]}"#,
    ] {
        let offsets = file(dir.path(), "offsets.json", text);
        let local = kafkit(
            dir.path(),
            &["delete-records", "--offset-json-file", &offsets],
        );
        let net = kafkit(
            dir.path(),
            &[
                "delete-records",
                "--offset-json-file",
                &offsets,
                "--bootstrap-server",
                &down,
            ],
        );
        assert_eq!(local.code, 1, "{text}");
        assert_eq!(
            (net.code, &net.stdout, &net.stderr),
            (local.code, &local.stdout, &local.stderr),
            "{text}"
        );
    }
}

/// Two records into `data`'s topic `t`.
fn kafkit_stdin_ok(data: &str, lines: &[u8]) {
    crate::common::kafkit_stdin(Path::new(data), &["produce", "--topic", "t"], lines).ok();
}
