//! Kafka's operator tools on a cluster `cluster init` made: `reassign-partitions` (`--generate`,
//! `--execute`, `--verify`) and `leader-election`, their output against Kafka's text, the
//! metadata log after each read back by the dump decoder and by the image, and the data a
//! reassignment copies compared byte for byte with the leader's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kafkit::cluster::image::MetadataImage;
use kafkit::cluster::init::append_records;
use kafkit::cluster::records::{MetadataRecord, PartitionChange};
use kafkit::datadir::placement::{assign_replicas_to_brokers, BrokerInfo};
use kafkit::log::partition::LogCheckpoints;
use kafkit::log::{Log, LogConfig};
use kafkit::record::{BatchBuilder, Compression, TimestampType};
use serde_json::Value;

use crate::common::{kafkit, tempdir, Run};

/// A cluster of `brokers` brokers in `<tmp>/c`.
fn cluster(tmp: &Path, brokers: &str) -> PathBuf {
    let dir = tmp.join("c");
    kafkit(&dir, &["cluster", "init", "--brokers", brokers]).ok();
    dir
}

fn create(dir: &Path, topic: &str, assignment: &str) {
    kafkit(
        dir,
        &[
            "topics",
            "--create",
            "--topic",
            topic,
            "--replica-assignment",
            assignment,
        ],
    )
    .ok();
}

fn image(dir: &Path) -> MetadataImage {
    MetadataImage::load(&dir.join("__cluster_metadata-0")).expect("the log replays")
}

fn write(tmp: &Path, name: &str, text: &str) -> String {
    let path = tmp.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn reassign(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["reassign-partitions"];
    all.extend(args);
    kafkit(dir, &all)
}

fn dump_metadata(dir: &Path) -> String {
    let log = dir.join("__cluster_metadata-0/00000000000000000000.log");
    kafkit(
        dir,
        &[
            "dump-log-segments",
            "--cluster-metadata-decoder",
            "--files",
            &log.display().to_string(),
        ],
    )
    .ok()
    .to_string()
}

/// The `PARTITION_CHANGE_RECORD` lines of the dump of the metadata log.
fn change_lines(dir: &Path) -> Vec<String> {
    dump_metadata(dir)
        .lines()
        .filter(|l| l.contains("PARTITION_CHANGE_RECORD"))
        .map(str::to_string)
        .collect()
}

/// A scratch directory with a cluster of `brokers` brokers and `topics` (name, replica
/// assignment) in it.
fn setup(brokers: &str, topics: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempdir();
    let dir = cluster(tmp.path(), brokers);
    for (topic, assignment) in topics {
        create(&dir, topic, assignment);
    }
    (tmp, dir)
}

fn metadata_log_len(dir: &Path) -> u64 {
    std::fs::metadata(dir.join("__cluster_metadata-0/00000000000000000000.log"))
        .unwrap()
        .len()
}

/// Writes `count` records into broker `broker`'s replica of `tp` with the library's log writer
/// (the data a produce would have left), in two segments.
fn write_records(dir: &Path, broker: i32, tp: &str, count: usize) {
    let path = dir.join(format!("broker-{broker}")).join(tp);
    let mut log = Log::open(&path, LogConfig::default(), LogCheckpoints::default(), 1000).unwrap();
    for i in 0..count {
        let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        let value = format!("record {i}");
        batch.append(1000 + i as i64, Some(b"k"), Some(value.as_bytes()), &[]);
        batch.append(1000 + i as i64, None, Some(b"second"), &[]);
        log.append(&batch.build().unwrap(), 1000).unwrap();
        if i == count / 2 {
            log.roll(1000).unwrap();
        }
    }
    log.close().unwrap();
}

/// A replica's log: its segment files' bytes in offset order, one after the other (a
/// follower rolls its segments by its own rules, as in Kafka, so the files may be cut
/// elsewhere than the leader's).
fn log_bytes(dir: &Path, broker: i32, tp: &str) -> Vec<u8> {
    segments(dir, broker, tp).into_values().flatten().collect()
}

/// The segment files (`.log`) of a replica, by name, with their bytes.
fn segments(dir: &Path, broker: i32, tp: &str) -> BTreeMap<String, Vec<u8>> {
    let path = dir.join(format!("broker-{broker}")).join(tp);
    std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn generate_prints_kafkas_current_and_a_placement_over_the_broker_list() {
    let (tmp, dir) = setup("3", &[("gen", "1:2,2:3,3:1"), ("gen2", "1")]);
    let topics = write(
        tmp.path(),
        "topics.json",
        r#"{"topics":[{"topic":"gen2"},{"topic":"gen"}],"version":1}"#,
    );
    let run = reassign(
        &dir,
        &[
            "--generate",
            "--topics-to-move-json-file",
            &topics,
            "--broker-list",
            "2,3",
        ],
    );
    let out = run.ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], "Current partition replica assignment");
    assert_eq!(
        lines[1],
        r#"{"version":1,"partitions":[{"topic":"gen","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},{"topic":"gen","partition":1,"replicas":[2,3],"log_dirs":["any","any"]},{"topic":"gen","partition":2,"replicas":[3,1],"log_dirs":["any","any"]},{"topic":"gen2","partition":0,"replicas":[1],"log_dirs":["any"]}]}"#
    );
    assert_eq!(lines[2], "");
    assert_eq!(lines[3], "Proposed partition reassignment configuration");
    let proposed: Value = serde_json::from_str(lines[4]).unwrap();
    let parts = proposed["partitions"].as_array().unwrap();
    let of = |topic: &str| -> BTreeMap<i32, Vec<i32>> {
        parts
            .iter()
            .filter(|p| p["topic"] == topic)
            .map(|p| {
                let replicas: Vec<i32> = p["replicas"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_i64().unwrap() as i32)
                    .collect();
                assert_eq!(p["log_dirs"].as_array().unwrap().len(), replicas.len());
                (p["partition"].as_i64().unwrap() as i32, replicas)
            })
            .collect()
    };
    // Kafka's placement with a random start: over two brokers the shift changes nothing, so the
    // proposal is the placement from start 0 or from start 1.
    let brokers = [2, 3].map(|id| BrokerInfo { id, rack: None });
    let from = |start| assign_replicas_to_brokers(&brokers, 3, 2, start, -1).unwrap();
    let gen = of("gen");
    assert!(gen == from(0) || gen == from(1), "{gen:?}");
    let one = of("gen2");
    assert!(one == BTreeMap::from([(0, vec![2])]) || one == BTreeMap::from([(0, vec![3])]));
    // Sorted by topic then partition, compact, version first.
    assert!(lines[4].starts_with(r#"{"version":1,"partitions":[{"topic":"gen","partition":0,"#));
}

#[test]
fn generate_refuses_what_kafka_refuses() {
    let (tmp, dir) = setup("2", &[("refused", "1:2")]);
    let topics = write(tmp.path(), "t.json", r#"{"topics":[{"topic":"refused"}]}"#);
    let dup_topics = write(
        tmp.path(),
        "d.json",
        r#"{"topics":[{"topic":"refused"},{"topic":"refused"}]}"#,
    );
    let unknown = write(tmp.path(), "u.json", r#"{"topics":[{"topic":"nope"}]}"#);
    let cases: [(&str, &str, &str); 5] = [
        (&topics, "1,2,1", "Error: Broker list contains duplicate entries: [1]"),
        (&dup_topics, "1,2", "Error: List of topics to reassign contains duplicate entries: [refused]"),
        (&unknown, "1,2", "Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic nope not found."),
        (&topics, "1,x", "Error: For input string: \"x\""),
        (&topics, "1", "Error: Replication factor: 2 larger than available brokers: 1."),
    ];
    for (file, brokers, message) in cases {
        let run = reassign(
            &dir,
            &[
                "--generate",
                "--topics-to-move-json-file",
                file,
                "--broker-list",
                brokers,
            ],
        );
        assert_eq!(run.fails().trim_end(), message);
        assert_eq!(run.code, 1);
    }
    let both = reassign(&dir, &["--generate", "--verify"]);
    assert!(both
        .fails()
        .starts_with("Command must include exactly one action: --generate, --execute, --verify, --cancel, --list"));
    let missing = reassign(&dir, &["--generate", "--topics-to-move-json-file", &topics]);
    assert!(missing
        .fails()
        .starts_with("Missing required argument \"[broker-list]\""));
}

#[test]
fn execute_moves_a_replica_with_its_data_byte_for_byte_and_writes_the_controllers_records() {
    let (tmp, dir) = setup("3", &[("moved", "1:2")]);
    write_records(&dir, 1, "moved-0", 6);
    write_records(&dir, 2, "moved-0", 6);
    assert_eq!(
        segments(&dir, 1, "moved-0").len(),
        2,
        "two segments to copy"
    );
    let leader_log = log_bytes(&dir, 1, "moved-0");
    let before = image(&dir).topics["moved"].partitions[&0].clone();
    assert_eq!((before.leader, before.leader_epoch), (1, 0));
    let plan = write(
        tmp.path(),
        "plan.json",
        r#"{"version":1,"partitions":[{"topic":"moved","partition":0,"replicas":[3,2],"log_dirs":["any","any"]}]}"#,
    );
    let run = reassign(&dir, &["--execute", "--reassignment-json-file", &plan]);
    assert_eq!(
        run.ok(),
        "Current partition replica assignment\n\n\
         {\"version\":1,\"partitions\":[{\"topic\":\"moved\",\"partition\":0,\"replicas\":[1,2],\"log_dirs\":[\"any\",\"any\"]}]}\n\n\
         Save this to use as the --reassignment-json-file option during rollback\n\
         Successfully started partition reassignment for moved-0\n"
    );
    // The new replica holds the leader's segments byte for byte; the removed one is gone.
    assert_eq!(log_bytes(&dir, 3, "moved-0"), leader_log);
    assert_eq!(leader_log.len(), 6 * 90);
    assert!(dir.join("broker-3/moved-0/partition.metadata").is_file());
    let left: Vec<String> = std::fs::read_dir(dir.join("broker-1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["meta.properties"]);
    // The image: the target replicas, the ISR without the removed replica, the leader moved to
    // the first target replica in the ISR, nothing in progress, one leader epoch more.
    let after = image(&dir).topics["moved"].partitions[&0].clone();
    assert_eq!(after.replicas, [3, 2]);
    assert_eq!(after.isr, [2, 3]);
    assert_eq!(after.leader, 3);
    assert!(after.adding_replicas.is_empty() && after.removing_replicas.is_empty());
    assert_eq!(after.leader_epoch, 1);
    assert_eq!(after.partition_epoch, 2);
    // The dump decoder reads the two records as a controller's.
    let changes = change_lines(&dir);
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(
        changes[0].contains(
            r#""replicas":[3,2,1],"removingReplicas":[1],"addingReplicas":[3],"directories":["#
        ),
        "{}",
        changes[0]
    );
    assert!(changes[1].contains(r#""isr":[2,3],"leader":3,"replicas":[3,2],"removingReplicas":[],"addingReplicas":[],"directories":["#), "{}", changes[1]);
    let dump = dump_metadata(&dir);
    assert!(!dump.contains("Error"), "{dump}");
    // `kafkit metadata` shows the routing table after the move.
    let listing = kafkit(&dir, &["metadata"]);
    assert!(
        listing
            .ok()
            .contains("partition 0, leader 3, replicas: 3,2, isrs: 2,3"),
        "{}",
        listing.stdout
    );
    // --verify: Kafka's lines.
    let verify = reassign(&dir, &["--verify", "--reassignment-json-file", &plan]);
    assert_eq!(
        verify.ok(),
        "Status of partition reassignment:\n\
         Reassignment of partition moved-0 is completed.\n\
         \n\
         Clearing broker-level throttles on brokers 1,2,3\n\
         Clearing topic-level throttles on topic moved\n"
    );
    // Another target than the replicas: Kafka's "no active reassignment" line.
    let other = write(
        tmp.path(),
        "other.json",
        r#"{"version":1,"partitions":[{"topic":"moved","partition":0,"replicas":[1,2]}]}"#,
    );
    let verify = reassign(&dir, &["--verify", "--reassignment-json-file", &other]);
    assert!(verify.ok().contains(
        "There is no active reassignment of partition moved-0, but replica set is 3,2 rather than 1,2."
    ));
}

#[test]
fn a_reorder_completes_in_one_record_and_keeps_its_leader() {
    let (tmp, dir) = setup("2", &[("reordered", "1:2")]);
    let plan = write(
        tmp.path(),
        "plan.json",
        r#"{"version":1,"partitions":[{"topic":"reordered","partition":0,"replicas":[2,1]}]}"#,
    );
    reassign(&dir, &["--execute", "--reassignment-json-file", &plan]).ok();
    let p = image(&dir).topics["reordered"].partitions[&0].clone();
    assert_eq!(
        (p.replicas, p.isr.clone(), p.leader),
        (vec![2, 1], vec![1, 2], 1)
    );
    // No replica removed: the leader epoch stays.
    assert_eq!((p.leader_epoch, p.partition_epoch), (0, 1));
    let changes = change_lines(&dir);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(!changes[0].contains("addingReplicas"), "{}", changes[0]);
    // The preferred leader is now 2: a preferred election moves it there.
    let run = kafkit(
        &dir,
        &[
            "leader-election",
            "--election-type",
            "preferred",
            "--all-topic-partitions",
        ],
    );
    assert_eq!(
        run.ok(),
        "Successfully completed leader election (PREFERRED) for partitions reordered-0\n"
    );
    assert_eq!(image(&dir).topics["reordered"].partitions[&0].leader, 2);
}

#[test]
fn execute_refuses_what_kafka_refuses_and_writes_nothing() {
    let (tmp, dir) = setup("2", &[("checked", "1:2")]);
    let cases = [
        (r#"{"version":1,"partitions":[]}"#, "Error: Partition reassignment list cannot be empty"),
        (r#"{"partitions":[{"topic":"checked","partition":0,"replicas":[]}]}"#, "Error: Partition replica list cannot be empty"),
        (r#"{"partitions":[{"topic":"checked","partition":0,"replicas":[1]},{"topic":"checked","partition":0,"replicas":[2]}]}"#, "Error: Partition reassignment contains duplicate topic partitions: checked-0"),
        (r#"{"partitions":[{"topic":"checked","partition":0,"replicas":[1,2,1]}]}"#, "Error: Partition replica lists may not contain duplicate entries: checked-0 contains multiple entries for 1"),
        (r#"{"partitions":[{"topic":"checked","partition":0,"replicas":[1,9]}]}"#, "Error: Unknown broker id 9"),
        (r#"{"partitions":[{"topic":"checked","partition":5,"replicas":[1,2]}]}"#, "Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Unable to find partition: checked-5"),
        (r#"{"partitions":[{"topic":"nope","partition":0,"replicas":[1,2]}]}"#, "Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic nope not found."),
        (r#"{"partitions":[{"topic":"checked","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}"#, "Error: Size of replicas list [1, 2] is different from size of log dirs list [any] for partition checked-0"),
        (r#"{"version":2,"partitions":[]}"#, "Error: Not supported version field value 2"),
        ("not json", "Error: The input string is not a valid JSON"),
    ];
    let size = metadata_log_len(&dir);
    for (i, (json, message)) in cases.iter().enumerate() {
        let plan = write(tmp.path(), &format!("p{i}.json"), json);
        let run = reassign(&dir, &["--execute", "--reassignment-json-file", &plan]);
        assert_eq!(run.fails().trim_end(), *message, "{json}");
        assert_eq!(metadata_log_len(&dir), size, "{json} wrote");
    }
    // A reassignment in progress (the controller's start record, its replica not caught up):
    // --execute wants --additional, --verify says it is in progress.
    let img = image(&dir);
    let topic_id = img.topics["checked"].id;
    append_records(
        &dir.join("__cluster_metadata-0"),
        &[MetadataRecord::PartitionChange(PartitionChange {
            replicas: Some(vec![2, 1]),
            removing_replicas: Some(vec![1]),
            adding_replicas: Some(vec![]),
            ..PartitionChange::none(topic_id, 0)
        })],
        1,
    )
    .unwrap();
    let plan = write(
        tmp.path(),
        "again.json",
        r#"{"partitions":[{"topic":"checked","partition":0,"replicas":[2]}]}"#,
    );
    let run = reassign(&dir, &["--execute", "--reassignment-json-file", &plan]);
    assert_eq!(
        run.fails().trim_end(),
        "Cannot execute because there is an existing partition assignment.  Use --additional to override this and create a new partition assignment in addition to the existing one. The --additional flag can also be used to change the throttle by resubmitting the current reassignment."
    );
    let verify = reassign(&dir, &["--verify", "--reassignment-json-file", &plan]);
    assert_eq!(
        verify.ok(),
        "Status of partition reassignment:\nReassignment of partition checked-0 is still in progress.\n\n"
    );
}

fn elect(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["leader-election"];
    all.extend(args);
    kafkit(dir, &all)
}

fn change(dir: &Path, topic: &str, f: impl FnOnce(PartitionChange) -> PartitionChange) {
    let id = image(dir).topics[topic].id;
    let change = f(PartitionChange::none(id, 0));
    append_records(
        &dir.join("__cluster_metadata-0"),
        &[MetadataRecord::PartitionChange(change)],
        1,
    )
    .unwrap();
}

#[test]
fn preferred_election_gives_the_first_replica_its_leadership_back() {
    let (tmp, dir) = setup("3", &[("pref", "1:2:3")]);
    let one = [
        "--election-type",
        "PREFERRED",
        "--topic",
        "pref",
        "--partition",
        "0",
    ];
    assert_eq!(
        elect(&dir, &one).ok(),
        "Valid replica already elected for partitions pref-0\n"
    );
    change(&dir, "pref", |c| PartitionChange { leader: 2, ..c });
    let run = elect(&dir, &one);
    assert_eq!(
        run.ok(),
        "Successfully completed leader election (PREFERRED) for partitions pref-0\n"
    );
    let p = image(&dir).topics["pref"].partitions[&0].clone();
    assert_eq!((p.leader, p.leader_epoch, p.isr), (1, 2, vec![1, 2, 3]));
    let dump = dump_metadata(&dir);
    let last = dump
        .lines()
        .rfind(|l| l.contains("PARTITION_CHANGE_RECORD"))
        .unwrap();
    assert!(last.contains(r#""leader":1}"#), "{last}");
    // The preferred replica out of the ISR: PREFERRED_LEADER_NOT_AVAILABLE, exit 1.
    change(&dir, "pref", |c| PartitionChange {
        leader: 2,
        isr: Some(vec![2, 3]),
        ..c
    });
    let size = metadata_log_len(&dir);
    let run = elect(&dir, &one);
    assert_eq!(
        run.stdout,
        "Error completing leader election (PREFERRED) for partition: pref-0: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: The preferred leader was not available.\n"
    );
    assert_eq!(run.fails().trim_end(), "1 replica(s) could not be elected");
    assert_eq!(metadata_log_len(&dir), size);
    // Unknown partitions, from a JSON file.
    let file = write(
        tmp.path(),
        "e.json",
        r#"{"partitions":[{"topic":"pref","partition":7}]}"#,
    );
    let run = elect(
        &dir,
        &["--election-type", "preferred", "--path-to-json-file", &file],
    );
    assert!(run.stdout.contains("for partition: pref-7: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition."), "{}", run.stdout);
    assert_eq!(run.code, 1);
}

#[test]
fn unclean_election_takes_a_live_replica_outside_the_isr() {
    let (_tmp, dir) = setup("3", &[("lost", "1:2:3")]);
    let args = ["--election-type", "unclean", "--all-topic-partitions"];
    // Every partition has a leader: nothing to elect, nothing said.
    assert_eq!(elect(&dir, &args).ok(), "");
    // Broker 1 fenced while it was the last ISR member: no leader.
    let epoch = image(&dir).brokers[&1].epoch;
    append_records(
        &dir.join("__cluster_metadata-0"),
        &[MetadataRecord::FenceBroker { id: 1, epoch }],
        1,
    )
    .unwrap();
    change(&dir, "lost", |c| PartitionChange {
        leader: -1,
        isr: Some(vec![1]),
        ..c
    });
    let run = elect(&dir, &args);
    assert_eq!(
        run.ok(),
        "Successfully completed leader election (UNCLEAN) for partitions lost-0\n"
    );
    let p = image(&dir).topics["lost"].partitions[&0].clone();
    assert_eq!((p.leader, p.isr, p.leader_recovery_state), (2, vec![2], 1));
    let dump = dump_metadata(&dir);
    assert!(
        dump.contains(r#""isr":[2],"leader":2,"leaderRecoveryState":1"#),
        "{dump}"
    );
}

#[test]
fn leader_election_checks_its_options_as_kafka_does() {
    let tmp = tempdir();
    let dir = cluster(tmp.path(), "1");
    let cases: [(&[&str], &str); 4] = [
        (&["--all-topic-partitions"], "Missing required option(s): election-type"),
        (&["--election-type", "preferred"], "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"),
        (&["--election-type", "preferred", "--topic", "t"], "Missing required option(s): partition"),
        (&["--election-type", "preferred", "--all-topic-partitions", "--partition", "0"], "Option partition is only allowed if topic is used"),
    ];
    for (args, message) in cases {
        assert_eq!(elect(&dir, args).fails().trim_end(), message);
    }
}

#[test]
fn alter_adds_partitions_placed_as_kafka_places_added_partitions() {
    let (_tmp, dir) = setup("3", &[("grown", "2:3,3:1")]);
    let alter = |count: &str, extra: &[&str]| {
        let mut args = vec![
            "topics",
            "--alter",
            "--topic",
            "grown",
            "--partitions",
            count,
        ];
        args.extend(extra);
        kafkit(&dir, &args)
    };
    assert_eq!(alter("5", &[]).ok(), "");
    // Kafka's rule for added partitions: brokers by id, the start at the first broker whose id
    // is at least partition 0's first replica (2: index 1), numbering on from 2. Checked
    // against the library's placement, which the vectors check.
    let brokers = [1, 2, 3].map(|id| BrokerInfo { id, rack: None });
    let expected = assign_replicas_to_brokers(&brokers, 3, 2, 1, 2).unwrap();
    assert_eq!(
        expected,
        BTreeMap::from([(2, vec![1, 3]), (3, vec![2, 3]), (4, vec![3, 1])])
    );
    let topic = image(&dir).topics["grown"].clone();
    assert_eq!(topic.partitions.len(), 5);
    for (p, replicas) in &expected {
        let partition = &topic.partitions[p];
        assert_eq!(&partition.replicas, replicas);
        assert_eq!((&partition.isr, partition.leader), (replicas, replicas[0]));
        for broker in replicas {
            let path = dir.join(format!("broker-{broker}/grown-{p}/partition.metadata"));
            assert!(path.is_file(), "{}", path.display());
        }
    }
    let dump = dump_metadata(&dir);
    assert_eq!(dump.matches("PARTITION_RECORD").count(), 5, "{dump}");
    // Kafka's refusals, and nothing written.
    let size = metadata_log_len(&dir);
    for (count, extra, message) in [
        ("5", &[][..], "Error while executing topic command : Topic already has 5 partition(s)."),
        ("3", &[][..], "Error while executing topic command : The topic grown currently has 5 partition(s); 3 would not be an increase."),
        ("7", &["--replica-assignment", "2:3,3:1,1:3,2:3,3:1,1:9,1:2"][..], "Error while executing topic command : The manual partition assignment includes broker 9, but no such broker is registered."),
        ("7", &["--replica-assignment", "2:3,3:1,1:3,2:3,3:1,1:2"][..], "Error while executing topic command : Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified."),
    ] {
        // Kafka's TopicCommand prints its errors on stdout.
        let run = alter(count, extra);
        run.fails();
        assert!(run.stdout.contains(message), "{}", run.stdout);
        assert_eq!(metadata_log_len(&dir), size);
    }
    // A manual assignment for the new partitions.
    alter("6", &["--replica-assignment", "2:3,3:1,1:3,2:3,3:1,2:1"]).ok();
    assert_eq!(image(&dir).topics["grown"].partitions[&5].replicas, [2, 1]);
}

#[test]
fn delete_removes_the_topic_from_the_metadata_and_its_replicas_from_the_brokers() {
    let (_tmp, dir) = setup("3", &[("gone", "1:2,2:3"), ("kept", "3")]);
    kafkit(
        &dir,
        &[
            "configs",
            "--alter",
            "--entity-type",
            "topics",
            "--entity-name",
            "gone",
            "--add-config",
            "retention.ms=1000",
        ],
    );
    write_records(&dir, 2, "gone-1", 2);
    let id = image(&dir).topics["gone"].id;
    assert_eq!(
        kafkit(&dir, &["topics", "--delete", "--topic", "gone"]).ok(),
        ""
    );
    let img = image(&dir);
    assert_eq!(img.topics.keys().collect::<Vec<_>>(), ["kept"]);
    assert!(!img.topic_configs.contains_key("gone"));
    for broker in 1..=3 {
        let names: Vec<String> = std::fs::read_dir(dir.join(format!("broker-{broker}")))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("gone"))
            .collect();
        assert!(names.is_empty(), "broker {broker}: {names:?}");
    }
    assert!(dir.join("broker-3/kept-0").is_dir());
    let dump = dump_metadata(&dir);
    assert!(
        dump.contains(&format!(
            r#"payload: {{"type":"REMOVE_TOPIC_RECORD","version":0,"data":{{"topicId":"{id}"}}}}"#
        )),
        "{dump}"
    );
    let again = kafkit(&dir, &["topics", "--delete", "--topic", "gone"]);
    again.fails();
    assert!(again
        .stdout
        .contains("Topic 'gone' does not exist as expected"));
    // The name is free again.
    create(&dir, "gone", "3");
    assert_ne!(image(&dir).topics["gone"].id, id);
}

#[test]
fn cancel_reverts_a_reassignment_in_progress() {
    let (tmp, dir) = setup("3", &[("cancelled", "1:2")]);
    let target = r#"{"partitions":[{"topic":"cancelled","partition":0,"replicas":[3,2]}]}"#;
    let plan = write(tmp.path(), "plan.json", target);
    let cancel = || reassign(&dir, &["--cancel", "--reassignment-json-file", &plan]);
    // Nothing in progress.
    assert_eq!(
        cancel().ok(),
        "None of the specified partition reassignments are active.\n\
         None of the specified partition moves are active.Clearing broker-level throttles on brokers 1,2,3\n\
         Clearing topic-level throttles on topic cancelled\n"
    );
    // The controller's start record, broker 3 not caught up yet.
    change(&dir, "cancelled", |c| PartitionChange {
        replicas: Some(vec![3, 2, 1]),
        removing_replicas: Some(vec![1]),
        adding_replicas: Some(vec![3]),
        ..c
    });
    assert!(
        reassign(&dir, &["--verify", "--reassignment-json-file", &plan])
            .ok()
            .contains("Reassignment of partition cancelled-0 is still in progress.")
    );
    assert_eq!(
        cancel().ok(),
        "Successfully cancelled partition reassignment for: cancelled-0\n\
         None of the specified partition moves are active.Clearing broker-level throttles on brokers 1,2,3\n\
         Clearing topic-level throttles on topic cancelled\n"
    );
    let p = image(&dir).topics["cancelled"].partitions[&0].clone();
    assert_eq!((p.replicas, p.isr, p.leader), (vec![2, 1], vec![1, 2], 1));
    assert!(p.adding_replicas.is_empty() && p.removing_replicas.is_empty());
    let dump = dump_metadata(&dir);
    let last = dump
        .lines()
        .rfind(|l| l.contains("PARTITION_CHANGE_RECORD"))
        .unwrap();
    assert!(
        last.contains(r#""replicas":[2,1],"removingReplicas":[],"addingReplicas":[],"#),
        "{last}"
    );
}

#[test]
fn a_follower_append_keeps_the_leaders_bytes_and_refuses_going_back() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, LogConfig::default(), LogCheckpoints::default(), 1).unwrap();
    let batch = |base: i64| {
        let mut b = BatchBuilder::new(base, Compression::None, TimestampType::CreateTime);
        b.append(5, None, Some(b"v"), &[]);
        b.build().unwrap()
    };
    // A gap (a compacted leader's log) is kept: offsets 3, then 7.
    let first = batch(3);
    let info = log.append_as_follower(&first, 1).unwrap();
    assert_eq!((info.first_offset, info.last_offset), (3, 3));
    log.append_as_follower(&batch(7), 1).unwrap();
    assert_eq!(log.log_end_offset(), 8);
    let err = log.append_as_follower(&batch(7), 1).unwrap_err();
    assert!(
        err.to_string()
            .contains("does not follow the previous batch, which ended at offset 7"),
        "{err}"
    );
    let mut corrupt = batch(9);
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    assert!(log.append_as_follower(&corrupt, 1).is_err());
    log.close().unwrap();
    let bytes = std::fs::read(dir.join("00000000000000000000.log")).unwrap();
    assert_eq!(&bytes[..first.len()], &first[..]);
}

#[test]
fn added_replicas_join_the_isr_one_by_one_and_a_leaderless_partition_stays_in_progress() {
    let (tmp, dir) = setup("3", &[("widened", "1"), ("stuck", "1")]);
    write_records(&dir, 1, "widened-0", 3);
    let leader_log = log_bytes(&dir, 1, "widened-0");
    assert_eq!(leader_log.len(), 3 * 90);
    change(&dir, "stuck", |c| PartitionChange { leader: -1, ..c });
    let plan = write(
        tmp.path(),
        "plan.json",
        r#"{"partitions":[{"topic":"stuck","partition":0,"replicas":[2]},{"topic":"widened","partition":0,"replicas":[2,3]}]}"#,
    );
    let run = reassign(&dir, &["--execute", "--reassignment-json-file", &plan]);
    assert!(run
        .ok()
        .ends_with("Successfully started partition reassignments for stuck-0,widened-0\n"));
    let img = image(&dir);
    let widened = &img.topics["widened"].partitions[&0];
    assert_eq!(
        (&widened.replicas[..], &widened.isr[..], widened.leader),
        (&[2, 3][..], &[2, 3][..], 2)
    );
    for broker in [2, 3] {
        assert_eq!(log_bytes(&dir, broker, "widened-0"), leader_log);
    }
    assert!(!dir.join("broker-1/widened-0").exists());
    let dump = dump_metadata(&dir);
    let changes: Vec<&str> = dump
        .lines()
        .filter(|l| l.contains("PARTITION_CHANGE_RECORD") && l.contains("\"partitionId\":0"))
        .collect();
    // stuck's leader loss, both starts, widened's first ISR expansion, its completion.
    assert_eq!(changes.len(), 5, "{dump}");
    assert!(changes[3].contains(r#""isr":[1,2]}"#), "{}", changes[3]);
    assert!(
        changes[4].contains(
            r#""isr":[2,3],"leader":2,"replicas":[2,3],"removingReplicas":[],"addingReplicas":[]"#
        ),
        "{}",
        changes[4]
    );
    // No leader to copy from: stuck-0 stays in progress, nothing copied.
    let stuck = &img.topics["stuck"].partitions[&0];
    assert_eq!(
        (&stuck.adding_replicas[..], &stuck.removing_replicas[..]),
        (&[2][..], &[1][..])
    );
    assert!(!dir.join("broker-2/stuck-0").exists());
    let verify = reassign(&dir, &["--verify", "--reassignment-json-file", &plan]);
    assert_eq!(
        verify.ok(),
        "Status of partition reassignment:\n\
         Reassignment of partition stuck-0 is still in progress.\n\
         Reassignment of partition widened-0 is completed.\n\n"
    );
}

#[test]
fn a_new_replica_rolls_its_segments_by_the_topics_settings() {
    let (tmp, dir) = setup("2", &[]);
    kafkit(
        &dir,
        &[
            "topics",
            "--create",
            "--topic",
            "rolled",
            "--replica-assignment",
            "1",
            "--config",
            "segment.bytes=1048576",
        ],
    )
    .ok();
    // The leader (Kafka's default 1 GiB segments) holds six 300 KiB records in one segment.
    let path = dir.join("broker-1/rolled-0");
    let mut log = Log::open(&path, LogConfig::default(), LogCheckpoints::default(), 1).unwrap();
    let value = vec![b'x'; 300 * 1024];
    for _ in 0..6 {
        let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        batch.append(1, None, Some(&value), &[]);
        log.append(&batch.build().unwrap(), 1).unwrap();
    }
    log.close().unwrap();
    assert_eq!(segments(&dir, 1, "rolled-0").len(), 1);
    let leader_log = log_bytes(&dir, 1, "rolled-0");
    let plan = write(
        tmp.path(),
        "plan.json",
        r#"{"partitions":[{"topic":"rolled","partition":0,"replicas":[2]}]}"#,
    );
    reassign(&dir, &["--execute", "--reassignment-json-file", &plan]).ok();
    // The new replica's 1 MiB segments take three records each.
    let names: Vec<String> = segments(&dir, 2, "rolled-0").into_keys().collect();
    assert_eq!(
        names,
        ["00000000000000000000.log", "00000000000000000003.log"]
    );
    assert_eq!(log_bytes(&dir, 2, "rolled-0"), leader_log);
}
