//! Replication in a local cluster (issue #20): produce to the leader, followers copying it byte
//! for byte, high watermarks and leader epochs, acks and min.insync.replicas, stopping and
//! starting brokers, and what survives a leader's loss under acks 1 and acks all. Plus the
//! storage layer's follower append and truncation these rest on.

use std::fs;
use std::path::{Path, PathBuf};

use kafkit::datadir::{EpochEntry, LeaderEpochCheckpoint, OffsetCheckpoint, TopicPartition};
use kafkit::log::{Log, LogCheckpoints, LogConfig, LogReader};
use kafkit::record::{batches, BatchBuilder, Compression, TimestampType};
use serde_json::Value;

use crate::common::{kafkit, kafkit_stdin, tempdir};

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// A cluster of three brokers in `<tmp>/c` with topic `t` of one partition on replicas 1,2,3
/// (1 leads), and extra `init` arguments.
fn cluster(tmp: &Path, init: &[&str]) -> PathBuf {
    let c = tmp.join("c");
    let mut args = vec!["cluster", "init", "--brokers", "3"];
    args.extend(init);
    kafkit(&c, &args).ok();
    kafkit(
        &c,
        &[
            "topics",
            "--create",
            "--topic",
            "t",
            "--replica-assignment",
            "1:2:3",
        ],
    )
    .ok();
    c
}

fn produce(c: &Path, acks: &str, values: &[&str]) {
    let input = values.join("\n") + "\n";
    kafkit_stdin(
        c,
        &["produce", "--topic", "t", "--acks", acks],
        input.as_bytes(),
    )
    .ok();
}

fn partition_dir(c: &Path, broker: i32) -> PathBuf {
    c.join(format!("broker-{broker}")).join("t-0")
}

/// The values of a replica's log, in offset order, read from its segments.
fn values(c: &Path, broker: i32) -> Vec<String> {
    let dir = partition_dir(c, broker);
    let mut out = Vec::new();
    let reader = LogReader::open(&dir).expect("open");
    for &base in reader.segment_base_offsets() {
        let bytes = fs::read(dir.join(format!("{base:020}.log"))).expect("read");
        for b in batches(&bytes) {
            let b = b.expect("batch");
            for r in b.records().expect("records") {
                out.push(String::from_utf8_lossy(&r.value.unwrap_or_default()).into_owned());
            }
        }
    }
    out
}

/// The partition leader epochs of a replica's batches.
fn batch_epochs(c: &Path, broker: i32) -> Vec<i32> {
    let bytes = fs::read(partition_dir(c, broker).join("00000000000000000000.log")).expect("read");
    batches(&bytes)
        .map(|b| b.expect("batch").partition_leader_epoch())
        .collect()
}

fn epochs(c: &Path, broker: i32) -> Vec<(i32, i64)> {
    LeaderEpochCheckpoint::read(&partition_dir(c, broker).join("leader-epoch-checkpoint"))
        .expect("checkpoint")
        .into_iter()
        .map(|e: EpochEntry| (e.epoch, e.start_offset))
        .collect()
}

fn high_watermark(c: &Path, broker: i32) -> Option<i64> {
    OffsetCheckpoint::read(
        &c.join(format!("broker-{broker}"))
            .join("replication-offset-checkpoint"),
    )
    .expect("checkpoint")
    .get(&TopicPartition::new("t", 0))
    .copied()
}

fn segment(c: &Path, broker: i32) -> Vec<u8> {
    fs::read(partition_dir(c, broker).join("00000000000000000000.log")).expect("read")
}

fn status_partition(c: &Path) -> Value {
    let out = kafkit(c, &["cluster", "status", "--output", "json"]);
    json_lines(out.ok())
        .into_iter()
        .find(|e| e["type"] == "partition")
        .expect("a partition event")
}

const SEVEN: [&str; 7] = ["1", "2", "3", "6", "7", "8", "9"];

#[test]
fn acks_1_loses_exactly_the_records_the_followers_had_not_fetched_when_the_leader_fell() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    // acks=all: the followers fetch before the produce ends; the high watermark is 3.
    produce(&c, "all", &["1", "2", "3"]);
    assert_eq!(high_watermark(&c, 1), Some(3));
    // acks=1: the leader alone has 4 and 5; the followers and the high watermark stay at 3.
    produce(&c, "1", &["4", "5"]);
    let p = status_partition(&c);
    assert_eq!(p["high_watermark"], 3);
    let ends: Vec<i64> = p["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["log_end_offset"].as_i64().unwrap())
        .collect();
    assert_eq!(ends, [5, 3, 3]);
    // The leader falls before its followers fetched: 2 leads from epoch 1, at its end (3).
    let stop = kafkit(&c, &["cluster", "stop-broker", "1", "--output", "json"]);
    let change = &json_lines(stop.ok())[0];
    assert_eq!(change["type"], "leader_change");
    assert_eq!(change["leader_before"], 1);
    assert_eq!(change["leader_after"], 2);
    assert_eq!(change["leader_epoch"], 1);
    assert_eq!(change["isr"], serde_json::json!([2, 3]));
    assert_eq!(epochs(&c, 2), [(0, 0), (1, 3)]);
    produce(&c, "1", &["6", "7", "8", "9"]);
    // The old leader returns: it asks for the end of its epoch 0, which the new leader ended
    // at 3, and cuts 4 and 5 before fetching 6..9; it rejoins the ISR.
    let start = kafkit(&c, &["cluster", "start-broker", "1", "--output", "json"]);
    let events = json_lines(start.ok());
    let returning = events
        .iter()
        .find(|e| e["type"] == "follower" && e["broker"] == 1)
        .expect("broker 1's fetch");
    assert_eq!(returning["truncated_to"], 3);
    assert_eq!(returning["truncated"], 2);
    assert_eq!(returning["fetched"], 4);
    assert_eq!(returning["joined_isr"], true);
    for broker in 1..=3 {
        assert_eq!(values(&c, broker), SEVEN, "broker {broker}");
        assert_eq!(epochs(&c, broker), [(0, 0), (1, 3)], "broker {broker}");
        assert_eq!(high_watermark(&c, broker), Some(7), "broker {broker}");
    }
    // Followers hold the leader's batches byte for byte, epochs and all.
    assert_eq!(segment(&c, 1), segment(&c, 2));
    assert_eq!(segment(&c, 3), segment(&c, 2));
    assert_eq!(batch_epochs(&c, 1), [0, 1]);
    let p = status_partition(&c);
    assert_eq!(p["isr"], serde_json::json!([2, 3, 1]));
    assert_eq!(p["leader"], 2);
}

#[test]
fn acks_all_loses_nothing_when_the_leader_falls() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    produce(&c, "all", &["1", "2", "3"]);
    produce(&c, "all", &["4", "5"]);
    kafkit(&c, &["cluster", "stop-broker", "1"]).ok();
    produce(&c, "all", &["6", "7", "8", "9"]);
    let start = kafkit(&c, &["cluster", "start-broker", "1", "--output", "json"]);
    let events = json_lines(start.ok());
    let returning = events
        .iter()
        .find(|e| e["type"] == "follower" && e["broker"] == 1)
        .expect("broker 1's fetch");
    assert_eq!(returning["truncated_to"], Value::Null);
    assert_eq!(returning["fetched"], 4);
    let all: Vec<String> = (1..=9).map(|i| i.to_string()).collect();
    for broker in 1..=3 {
        assert_eq!(values(&c, broker), all, "broker {broker}");
        assert_eq!(epochs(&c, broker), [(0, 0), (1, 5)], "broker {broker}");
    }
    assert_eq!(segment(&c, 1), segment(&c, 2));
}

#[test]
fn a_consumer_of_the_leader_sees_up_to_the_high_watermark_only() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    produce(&c, "1", &["a", "b"]);
    // The followers have not fetched: nothing is committed yet.
    assert_eq!(high_watermark(&c, 1), Some(0));
    let run = kafkit(
        &c,
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "300",
        ],
    );
    assert_eq!(run.stdout, "");
    let offsets = kafkit(&c, &["get-offsets", "--topic", "t"]);
    assert_eq!(offsets.ok(), "t:0:0\n");
    kafkit(&c, &["cluster", "replicate"]).ok();
    assert_eq!(high_watermark(&c, 1), Some(2));
    let run = kafkit(
        &c,
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--max-messages",
            "2",
        ],
    );
    assert_eq!(run.ok(), "a\nb\n");
    assert_eq!(kafkit(&c, &["get-offsets", "--topic", "t"]).ok(), "t:0:2\n");
}

#[test]
fn acks_all_under_min_insync_replicas_is_refused_with_not_enough_replicas() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &["--config", "min.insync.replicas=3"]);
    kafkit(&c, &["cluster", "stop-broker", "3"]).ok();
    let run = kafkit_stdin(&c, &["produce", "--topic", "t", "--acks", "all"], b"x\n");
    let stderr = run.fails();
    assert!(
        stderr.contains("org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required."),
        "{stderr}"
    );
    assert!(values(&c, 1).is_empty(), "nothing was written");
    // acks=1 does not ask the ISR: the leader takes it.
    produce(&c, "1", &["y"]);
    assert_eq!(values(&c, 1), ["y"]);
}

#[test]
fn an_unclean_election_loses_even_committed_records_and_only_when_enabled() {
    for enabled in [true, false] {
        let tmp = tempdir();
        let c = tmp.path().join("c");
        let config = format!("unclean.leader.election.enable={enabled}");
        kafkit(
            &c,
            &["cluster", "init", "--brokers", "2", "--config", &config],
        )
        .ok();
        kafkit(
            &c,
            &[
                "topics",
                "--create",
                "--topic",
                "t",
                "--replica-assignment",
                "1:2",
            ],
        )
        .ok();
        produce(&c, "all", &["1", "2"]);
        kafkit(&c, &["cluster", "stop-broker", "2"]).ok();
        // ISR [1]: acks=all is satisfied by the leader alone, the high watermark reaches 5.
        produce(&c, "all", &["3", "4", "5"]);
        assert_eq!(high_watermark(&c, 1), Some(5));
        // The last in-sync replica falls: offline, broker 1 kept as the ISR's last member.
        kafkit(&c, &["cluster", "stop-broker", "1"]).ok();
        let start = kafkit(&c, &["cluster", "start-broker", "2", "--output", "json"]);
        let events = json_lines(start.ok());
        let elected = events.iter().find(|e| e["type"] == "leader_change");
        if !enabled {
            // Nothing elects broker 2: the partition stays offline, nothing is lost yet.
            assert!(elected.is_none(), "{events:?}");
            assert_eq!(status_partition(&c)["leader"], -1);
            continue;
        }
        let elected = elected.expect("an unclean election");
        assert_eq!(elected["leader_after"], 2);
        assert_eq!(elected["unclean"], true);
        assert_eq!(elected["isr"], serde_json::json!([2]));
        produce(&c, "1", &["6"]);
        // Broker 1 returns and follows broker 2: the committed 3, 4, 5 go.
        let start = kafkit(&c, &["cluster", "start-broker", "1", "--output", "json"]);
        let events = json_lines(start.ok());
        let returning = events
            .iter()
            .find(|e| e["type"] == "follower" && e["broker"] == 1)
            .expect("broker 1's fetch");
        assert_eq!(returning["truncated_to"], 2);
        assert_eq!(values(&c, 1), ["1", "2", "6"]);
        assert_eq!(segment(&c, 1), segment(&c, 2));
    }
}

#[test]
fn the_metadata_log_reads_back_with_the_fencing_and_the_election() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    kafkit(&c, &["cluster", "stop-broker", "1"]).ok();
    kafkit(&c, &["cluster", "start-broker", "1"]).ok();
    let log = c.join("__cluster_metadata-0/00000000000000000000.log");
    let dump = kafkit(
        &c,
        &[
            "dump-log-segments",
            "--cluster-metadata-decoder",
            "--files",
            log.to_str().unwrap(),
        ],
    );
    let payloads: Vec<Value> = dump
        .ok()
        .lines()
        .filter_map(|l| l.split_once("payload: "))
        .map(|(_, p)| serde_json::from_str(p).expect("payload JSON"))
        .collect();
    let of = |kind: &str| -> Vec<&Value> {
        payloads
            .iter()
            .filter(|p| p["type"] == kind)
            .map(|p| &p["data"])
            .collect()
    };
    let fencing = of("BROKER_REGISTRATION_CHANGE_RECORD");
    assert_eq!(fencing.len(), 2);
    assert_eq!(fencing[0]["brokerId"], 1);
    assert_eq!(fencing[0]["fenced"], 1);
    assert_eq!(fencing[1]["fenced"], -1);
    let changes = of("PARTITION_CHANGE_RECORD");
    assert_eq!(changes[0]["leader"], 2);
    assert_eq!(changes[0]["isr"], serde_json::json!([2, 3]));
    // Back in the ISR once caught up (nothing to fetch here).
    assert_eq!(changes[1]["isr"], serde_json::json!([2, 3, 1]));
    assert_eq!(changes.len(), 2);
}

#[test]
fn stopping_a_stopped_broker_or_an_unknown_one_fails_with_a_message() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    kafkit(&c, &["cluster", "stop-broker", "2"]).ok();
    let again = kafkit(&c, &["cluster", "stop-broker", "2"]);
    assert_eq!(again.fails(), "Error: broker 2 is already stopped\n");
    let unknown = kafkit(&c, &["cluster", "start-broker", "9"]);
    assert_eq!(
        unknown.fails(),
        "Error: broker 9 is not registered in the cluster's metadata\n"
    );
    let running = kafkit(&c, &["cluster", "start-broker", "1"]);
    assert_eq!(running.fails(), "Error: broker 1 is already running\n");
}

fn small_batch(values: &[&str]) -> Vec<u8> {
    let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    for (i, v) in values.iter().enumerate() {
        b.append(i as i64, None, Some(v.as_bytes()), &[]);
    }
    b.build().expect("build")
}

#[test]
fn truncation_across_segments_keeps_the_log_whole_and_appendable() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let cfg = LogConfig {
        segment_bytes: 300,
        ..LogConfig::default()
    };
    let mut log = Log::open(&dir, cfg.clone(), LogCheckpoints::default(), 0).expect("open");
    for i in 0..12 {
        log.append(&small_batch(&[&format!("v{i}"), "pad-pad-pad"]), 0)
            .expect("append");
    }
    let segments = log.segment_base_offsets().to_vec();
    assert!(segments.len() >= 3, "{segments:?}");
    // Offset 8 is a batch boundary in the middle of the log.
    assert!(log.truncate_to(8, 0).expect("truncate"));
    assert_eq!(log.log_end_offset(), 8);
    assert!(log.segment_base_offsets().iter().all(|&b| b < 8));
    log.append(&small_batch(&["after"]), 0).expect("append");
    assert_eq!(log.log_end_offset(), 9);
    log.close().expect("close");
    // Reopened from its files: the same end, and its last record is the new one.
    let log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("reopen");
    assert_eq!(log.log_end_offset(), 9);
    assert_eq!(log.recovery().truncated_bytes, 0);
    let mut reader = LogReader::open(&dir).expect("reader");
    let (base, found) = reader.seek(8).expect("seek").expect("offset 8");
    let mut segment = reader.reader(base, found.position).expect("reader");
    let (_, batch) = segment.next_batch().expect("batch").expect("a batch");
    let records = batch.records().expect("records");
    assert_eq!(records[0].value.as_deref(), Some(&b"after"[..]));
    assert_eq!(records[0].offset, 8);
}

#[test]
fn a_follower_append_keeps_the_leaders_bytes_and_refuses_a_batch_behind_its_end() {
    let tmp = tempdir();
    let leader_dir = tmp.path().join("leader");
    let mut leader = Log::open(
        &leader_dir,
        LogConfig::default(),
        LogCheckpoints::default(),
        0,
    )
    .unwrap();
    leader.set_leader_epoch(4);
    leader.append(&small_batch(&["a", "b"]), 0).unwrap();
    leader.append(&small_batch(&["c"]), 0).unwrap();
    leader.close().unwrap();
    let bytes = fs::read(leader_dir.join("00000000000000000000.log")).unwrap();
    let follower_dir = tmp.path().join("follower");
    let mut follower = Log::open(
        &follower_dir,
        LogConfig::default(),
        LogCheckpoints::default(),
        0,
    )
    .unwrap();
    // Batch by batch, as a fetch hands them over; one behind the log end is refused (Kafka's
    // UnexpectedAppendOffsetException). A gap after it is not: a compacted leader's log has them.
    let first_size = batches(&bytes).next().unwrap().unwrap().size_in_bytes();
    follower
        .append_as_follower(&bytes[..first_size], 0)
        .unwrap();
    let behind = follower.append_as_follower(&bytes[..first_size], 0);
    assert!(behind.is_err());
    follower
        .append_as_follower(&bytes[first_size..], 0)
        .unwrap();
    assert_eq!(follower.log_end_offset(), 3);
    follower.close().unwrap();
    assert_eq!(
        fs::read(follower_dir.join("00000000000000000000.log")).unwrap(),
        bytes
    );
    let epochs: Vec<i32> = batches(&bytes)
        .map(|b| b.unwrap().partition_leader_epoch())
        .collect();
    assert_eq!(epochs, [4, 4]);
}

fn replicate_at(c: &Path, now: &str, stuck: Option<&str>) -> Vec<Value> {
    let mut args = vec!["cluster", "replicate", "--output", "json", "--now", now];
    if let Some(b) = stuck {
        args.extend(["--stuck-broker", b]);
    }
    json_lines(kafkit(c, &args).ok())
}

fn isr(c: &Path) -> Vec<i64> {
    status_partition(c)["isr"]
        .as_array()
        .expect("isr")
        .iter()
        .map(|v| v.as_i64().expect("id"))
        .collect()
}

#[test]
fn a_follower_behind_past_replica_lag_time_max_ms_leaves_the_isr_then_rejoins() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    produce(&c, "1", &["a", "b", "c"]);
    // Broker 2 fetches and is caught up at 1000; broker 3's fetcher is stuck: the partition's
    // first step counts it caught up at 1000 too, and it stays at 0.
    replicate_at(&c, "1000", Some("3"));
    assert_eq!(isr(&c), vec![1, 2, 3]);
    assert_eq!(high_watermark(&c, 1), Some(0));
    // Exactly replica.lag.time.max.ms (30000) later: still in sync, nothing moves.
    let events = replicate_at(&c, "31000", Some("3"));
    assert!(events.iter().all(|e| e.get("left_isr").is_none()));
    assert_eq!(isr(&c), vec![1, 2, 3]);
    assert_eq!(high_watermark(&c, 1), Some(0));
    // One millisecond more: broker 3 leaves, and the high watermark moves up to broker 2's end.
    let events = replicate_at(&c, "31001", Some("3"));
    let left: Vec<&Value> = events.iter().filter(|e| e["left_isr"] == true).collect();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["broker"], 3);
    assert_eq!(isr(&c), vec![1, 2]);
    assert_eq!(high_watermark(&c, 1), Some(3));
    assert_eq!(status_partition(&c)["high_watermark"], 3);
    // A follower at the leader's end is in sync however long since it was caught up.
    replicate_at(&c, "999999", Some("3"));
    assert_eq!(isr(&c), vec![1, 2]);
    // Broker 3's fetcher runs again: it catches up and rejoins.
    let events = replicate_at(&c, "1000000", None);
    assert!(events
        .iter()
        .any(|e| e["broker"] == 3 && e["joined_isr"] == true));
    assert_eq!(isr(&c), vec![1, 2, 3]);
    assert_eq!(values(&c, 3), ["a", "b", "c"]);
}

/// Two processes' steps at once, while a producer writes: one controller at a time (the
/// cluster's controller lock), so every step succeeds, none reads a checkpoint another is
/// replacing, and the replicas end as copies of the leader.
#[test]
fn concurrent_replication_steps_and_a_producer_share_the_cluster() {
    let tmp = tempdir();
    let c = cluster(tmp.path(), &[]);
    let lines: String = (0..20_000).map(|i| format!("{i}\n")).collect();
    std::thread::scope(|s| {
        let producer = s.spawn(|| {
            kafkit_stdin(
                &c,
                &["produce", "--topic", "t", "--acks", "1"],
                lines.as_bytes(),
            )
        });
        let steps: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    (0..4)
                        .map(|_| kafkit(&c, &["cluster", "replicate"]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for step in steps {
            for run in step.join().expect("a step thread") {
                assert_eq!(run.code, 0, "{}", run.stderr);
            }
        }
        let produced = producer.join().expect("the producer thread");
        assert_eq!(produced.code, 0, "{}", produced.stderr);
    });
    kafkit(&c, &["cluster", "replicate"]).ok();
    let leader = values(&c, 1);
    assert_eq!(leader.len(), 20_000);
    assert_eq!(values(&c, 2), leader);
    assert_eq!(values(&c, 3), leader);
    assert_eq!(epochs(&c, 2), epochs(&c, 1));
    assert_eq!(high_watermark(&c, 1), Some(20_000));
}
