//! `produce --explain` on a local cluster (issue #20): the metadata lookup, the broker each
//! partition's batches go to, and the NOT_LEADER_OR_FOLLOWER redirect once the leader the
//! producer cached has moved.

use std::fs;
use std::path::Path;

use kafkit::log::LogReader;
use kafkit::record::batches;

use crate::common::{kafkit, kafkit_stdin, tempdir};

/// The values in broker `broker`'s replica of `topic-0`.
fn values(c: &Path, broker: i32, topic: &str) -> Vec<String> {
    let dir = c
        .join(format!("broker-{broker}"))
        .join(format!("{topic}-0"));
    let mut out = Vec::new();
    let reader = LogReader::open(&dir).expect("open");
    for &base in reader.segment_base_offsets() {
        let bytes = fs::read(dir.join(format!("{base:020}.log"))).expect("read");
        for b in batches(&bytes) {
            for r in b.expect("batch").records().expect("records") {
                out.push(String::from_utf8_lossy(&r.value.unwrap_or_default()).into_owned());
            }
        }
    }
    out
}

fn explain(c: &Path, value: &str) -> Vec<String> {
    let run = kafkit_stdin(
        c,
        &["produce", "--topic", "e", "--acks", "all", "--explain"],
        format!("{value}\n").as_bytes(),
    );
    run.ok();
    run.stderr.lines().map(str::to_string).collect()
}

#[test]
fn produce_explain_shows_the_lookup_and_one_not_leader_redirect_after_the_leader_moved() {
    let tmp = tempdir();
    let c = tmp.path().join("c");
    kafkit(&c, &["cluster", "init", "--brokers", "3"]).ok();
    kafkit(
        &c,
        &[
            "topics",
            "--create",
            "--topic",
            "e",
            "--replica-assignment",
            "1:2:3",
        ],
    )
    .ok();

    // A new producer: a metadata request, broker 1 leads at epoch 0, the batch goes to it.
    let first = explain(&c, "before");
    assert_eq!(
        first,
        [
            "explain: no cached metadata for topic e: metadata request to the cluster",
            "explain: metadata for topic e (the routing table)",
            "explain:   e-0: leader broker 1 (localhost:9092), leader epoch 0",
            "explain: e-0: sent to broker 1 (localhost:9092)",
        ]
    );

    // Broker 1 stops: broker 2 leads at epoch 1, but the producer's cache still says 1.
    kafkit(&c, &["cluster", "stop-broker", "1"]).ok();
    let second = explain(&c, "after");
    assert_eq!(
        second[..5],
        [
            "explain: cached metadata for topic e (from the last produce)",
            "explain:   e-0: leader broker 1 (localhost:9092), leader epoch 0",
            "explain: metadata for topic e (the routing table)",
            "explain:   e-0: leader broker 2 (localhost:9093), leader epoch 1",
            "explain: e-0: sent to broker 1 (localhost:9092) -> NOT_LEADER_OR_FOLLOWER -> metadata refresh -> leader is now broker 2 (epoch 1) -> sent to broker 2 (localhost:9093)",
        ]
    );
    assert_eq!(second.len(), 6, "{second:?}");
    assert!(
        second[5].ends_with(" WARN [Producer clientId=console-producer] Got error produce response with correlation id 1 on topic-partition e-0, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)"),
        "{}",
        second[5]
    );
    // The record landed on the new leader, not the stopped one.
    assert_eq!(values(&c, 2, "e"), ["before", "after"]);
    assert_eq!(values(&c, 1, "e"), ["before"]);

    // The cache is refreshed: the next run has no redirect.
    let third = explain(&c, "again");
    assert!(!third.iter().any(|l| l.contains("NOT_LEADER")), "{third:?}");
    assert_eq!(
        third.last().map(String::as_str),
        Some("explain: e-0: sent to broker 2 (localhost:9093)")
    );
}

#[test]
fn produce_explain_outside_a_cluster_is_a_usage_error() {
    let tmp = tempdir();
    let run = kafkit_stdin(
        tmp.path(),
        &["produce", "--topic", "e", "--explain"],
        b"x\n",
    );
    assert!(
        run.fails()
            .contains("Option --explain needs a local cluster"),
        "{}",
        run.stderr
    );
}
