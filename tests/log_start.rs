//! The log start offset: `delete-records` moves it (Kafka's rules and lines, the checkpoint
//! bytes), readers start there (`consume`, `get-offsets --time -2`), a position below it is out
//! of range as Kafka's fetcher says; `log-dirs` describes the partitions and their sizes.

use std::path::Path;

use crate::common::{kafkit, kafkit_stdin, tempdir};

/// A topic `t` of two partitions: ten records in partition 0, three in partition 1.
fn records(dir: &Path) {
    kafkit(
        dir,
        &["topics", "--create", "--topic", "t", "--partitions", "2"],
    )
    .ok();
    let lines: String = (0..10).map(|i| format!("r{i}\n")).collect();
    kafkit_stdin(
        dir,
        &["produce", "--topic", "t", "--partition", "0"],
        lines.as_bytes(),
    )
    .ok();
    kafkit_stdin(
        dir,
        &["produce", "--topic", "t", "--partition", "1"],
        b"a\nb\nc\n",
    )
    .ok();
}

fn offsets_file(dir: &Path, json: &str) -> String {
    let path = dir.join("offsets.json");
    std::fs::write(&path, json).unwrap();
    path.to_string_lossy().into_owned()
}

fn delete(dir: &Path, json: &str) -> crate::common::Run {
    let file = offsets_file(dir.parent().unwrap(), json);
    kafkit(dir, &["delete-records", "--offset-json-file", &file])
}

#[test]
fn delete_records_moves_the_log_start_and_readers_follow() {
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    records(&dir);
    let run = delete(
        &dir,
        r#"{"partitions":[{"topic":"t","partition":0,"offset":4},{"topic":"t","partition":1,"offset":-1}],"version":1}"#,
    );
    assert_eq!(
        run.ok(),
        "Executing records delete operation\nRecords delete operation completed:\npartition: t-0\tlow_watermark: 4\npartition: t-1\tlow_watermark: 3\n"
    );
    // Kafka's checkpoint format, written atomically, entries above the first segment's base.
    assert_eq!(
        std::fs::read_to_string(dir.join("log-start-offset-checkpoint")).unwrap(),
        "0\n2\nt 0 4\nt 1 3\n"
    );
    assert!(!dir.join("log-start-offset-checkpoint.tmp").exists());
    // The segments stay: retention removes them, not delete-records.
    assert!(dir.join("t-0/00000000000000000000.log").exists());
    let earliest = kafkit(&dir, &["get-offsets", "--topic", "t", "--time", "-2"]);
    assert_eq!(earliest.ok(), "t:0:4\nt:1:3\n");
    let latest = kafkit(&dir, &["get-offsets", "--topic", "t"]);
    assert_eq!(latest.ok(), "t:0:10\nt:1:3\n");
    let consumed = kafkit(
        &dir,
        &[
            "consume",
            "--topic",
            "t",
            "--partition",
            "0",
            "--offset",
            "earliest",
            "--max-messages",
            "6",
            "--property",
            "print.offset=true",
        ],
    );
    let want: String = (4..10).map(|i| format!("Offset:{i}\tr{i}\n")).collect();
    assert_eq!(consumed.ok(), want);
    // A lower offset later changes nothing: the log start only rises.
    let run = delete(
        &dir,
        r#"{"partitions":[{"topic":"t","partition":0,"offset":2}]}"#,
    );
    assert!(run.ok().ends_with("partition: t-0\tlow_watermark: 4\n"));
    // A writer that appends afterwards keeps it.
    kafkit_stdin(
        &dir,
        &["produce", "--topic", "t", "--partition", "0"],
        b"more\n",
    )
    .ok();
    assert_eq!(
        kafkit(&dir, &["get-offsets", "--topic", "t", "--time", "earliest"]).ok(),
        "t:0:4\nt:1:3\n"
    );
    // dump-log-segments still shows every batch of the segment.
    let dump = kafkit(
        &dir,
        &[
            "dump-log-segments",
            "--files",
            dir.join("t-0/00000000000000000000.log").to_str().unwrap(),
        ],
    );
    assert!(
        dump.ok().contains("baseOffset: 0 lastOffset: 9"),
        "{}",
        dump.stdout
    );
}

#[test]
fn delete_records_refuses_as_the_broker() {
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    records(&dir);
    kafkit(
        &dir,
        &[
            "topics",
            "--create",
            "--topic",
            "c",
            "--config",
            "cleanup.policy=compact",
        ],
    )
    .ok();
    let run = delete(
        &dir,
        r#"{"partitions":[{"topic":"t","partition":0,"offset":11},{"topic":"t","partition":1,"offset":-2},{"topic":"c","partition":0,"offset":0},{"topic":"x","partition":0,"offset":0}]}"#,
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "Executing records delete operation\nRecords delete operation completed:\n\
         partition: c-0\terror: org.apache.kafka.common.errors.PolicyViolationException: Records of partition c-0 can not be deleted due to the configured policy\n\
         partition: t-0\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: Cannot increment the log start offset to 11 of partition t-0 since it is larger than the high watermark 10\n\
         partition: t-1\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The offset -2 for partition t-1 is not valid\n\
         partition: x-0\terror: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.\n"
    );
    assert_eq!(
        run.stderr,
        "Could not delete records of 4 of 4 partitions\n"
    );
    assert!(
        !dir.join("log-start-offset-checkpoint").exists()
            || std::fs::read_to_string(dir.join("log-start-offset-checkpoint")).unwrap()
                == "0\n0\n"
    );
    for (json, want) in [
        ("{", "The input string is not a valid JSON\n"),
        (r#"{"version":1}"#, "Missing partitions field\n"),
        (
            r#"{"version":3,"partitions":[]}"#,
            "Not supported version field value 3\n",
        ),
        (
            r#"{"partitions":[{"topic":"t","partition":0,"offset":1},{"topic":"t","partition":0,"offset":2}]}"#,
            "Offset json file contains duplicate topic partitions: t-0\n",
        ),
    ] {
        let run = delete(&dir, json);
        assert_eq!(run.fails(), want);
        assert_eq!(run.stdout, "", "nothing executed for {json}");
    }
}

#[test]
fn out_of_range_positions_reset_or_fail_as_kafka() {
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    records(&dir);
    delete(
        &dir,
        r#"{"partitions":[{"topic":"t","partition":0,"offset":5}]}"#,
    )
    .ok();
    let position = |offset: i64| {
        format!("FetchPosition{{offset={offset}, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{{leader=Optional[localhost:9092 (id: 0 rack: null isFenced: false)], epoch=0}}}}")
    };
    let run = kafkit(
        &dir,
        &[
            "consume",
            "--topic",
            "t",
            "--partition",
            "0",
            "--offset",
            "2",
            "--max-messages",
            "1",
            "--consumer-property",
            "auto.offset.reset=earliest",
        ],
    );
    assert_eq!(run.ok(), "r5\n");
    assert!(run.stderr.contains(&format!(
        "INFO [Consumer clientId=console-consumer] Fetch position {} is out of range for partition t-0, resetting offset (org.apache.kafka.clients.consumer.internals.FetchCollector)\n",
        position(2)
    )), "{}", run.stderr);
    assert!(run.stderr.contains(&format!(
        "INFO [Consumer clientId=console-consumer] Resetting offset for partition t-0 to position {}. (org.apache.kafka.clients.consumer.internals.SubscriptionState)\n",
        position(5)
    )), "{}", run.stderr);
    let run = kafkit(
        &dir,
        &[
            "consume",
            "--topic",
            "t",
            "--partition",
            "0",
            "--offset",
            "2",
            "--max-messages",
            "1",
            "--consumer-property",
            "auto.offset.reset=none",
        ],
    );
    assert_eq!(
        run.fails(),
        format!("org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position {} is out of range for partition t-0\n", position(2))
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn log_dirs_as_kafka() {
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    records(&dir);
    let future = dir.join("t-1.0123456789abcdef0123456789abcdef-future");
    crate::common::copy_dir(&dir.join("t-1"), &future);
    let size = |p: &str| std::fs::metadata(dir.join(p)).unwrap().len();
    let (s0, s1) = (
        size("t-0/00000000000000000000.log"),
        size("t-1/00000000000000000000.log"),
    );
    assert!(s0 > 0 && s1 > 0);
    let logdir = std::path::absolute(&dir).unwrap();
    let run = kafkit(
        &dir,
        &[
            "log-dirs",
            "--describe",
            "--topic-list",
            "t,zz",
            "--broker-list",
            "0",
        ],
    );
    assert_eq!(
        run.ok(),
        format!(
            "Querying brokers for log directories information\nReceived log directory information from brokers 0\n\
             {{\"brokers\":[{{\"broker\":0,\"logDirs\":[{{\"partitions\":[{{\"partition\":\"t-0\",\"size\":{s0},\"offsetLag\":0,\"isFuture\":false}},{{\"partition\":\"t-1\",\"size\":{s1},\"offsetLag\":0,\"isFuture\":false}},{{\"partition\":\"t-1\",\"size\":{s1},\"offsetLag\":0,\"isFuture\":true}}],\"error\":null,\"logDir\":\"{}\"}}]}}],\"version\":1}}\n",
            logdir.display()
        )
    );
    let none = kafkit(&dir, &["log-dirs", "--describe", "--topic-list", "zz"]);
    assert!(none.ok().contains("\"partitions\":[],"), "{}", none.stdout);
    let bad = kafkit(&dir, &["log-dirs", "--describe", "--broker-list", "0,2,1"]);
    assert_eq!(
        bad.fails(),
        "ERROR: The given brokers do not exist from --broker-list: 1,2. Current existent brokers: 0\n"
    );
    assert!(kafkit(&dir, &["log-dirs"])
        .fails()
        .starts_with("Missing required argument \"[describe]\""));
}

#[test]
fn a_groups_committed_offset_below_the_log_start_is_out_of_range() {
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    kafkit(&dir, &["topics", "--create", "--topic", "one"]).ok();
    let lines: String = (0..10).map(|i| format!("r{i}\n")).collect();
    kafkit_stdin(&dir, &["produce", "--topic", "one"], lines.as_bytes()).ok();
    let group = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "--topic",
            "one",
            "--group",
            "g",
            "--max-messages",
            "2",
        ];
        args.extend_from_slice(extra);
        kafkit(&dir, &args)
    };
    // The group commits offset 2.
    assert_eq!(group(&["--from-beginning"]).ok(), "r0\nr1\n");
    delete(
        &dir,
        r#"{"partitions":[{"topic":"one","partition":0,"offset":7}]}"#,
    )
    .ok();
    let run = group(&["--consumer-property", "auto.offset.reset=none"]);
    assert!(
        run.fails().contains("org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position FetchPosition{offset=2, "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    let run = group(&["--from-beginning"]);
    assert_eq!(run.ok(), "r7\nr8\n");
    assert!(
        run.stderr.contains("INFO [Consumer clientId=console-consumer, groupId=g] Resetting offset for partition one-0 to position FetchPosition{offset=7, "),
        "{}",
        run.stderr
    );
}

#[test]
fn a_writer_open_across_a_delete_records_keeps_the_new_log_start() {
    use kafkit::datadir::delete_records::delete_records;
    use kafkit::datadir::{DataDir, PartitionWriter, TopicPartition};
    let tmp = tempdir();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    records(&dir);
    let datadir = DataDir::open(&dir).unwrap();
    let topic = datadir.topic("t").unwrap().unwrap();
    // A writer opens partition 0 (log start 0) and keeps it open...
    let mut writer = PartitionWriter::new(&datadir).unwrap();
    assert_eq!(writer.log(&topic, 0).unwrap().log_start_offset(), 0);
    writer.release().unwrap();
    // ...while delete-records moves the log start to 6...
    let offsets = [(TopicPartition::new("t", 0), 6)].into_iter().collect();
    let results = delete_records(&datadir, &offsets).unwrap();
    assert_eq!(results[0].1.as_ref().unwrap(), &6);
    // ...and closes after it: its older view does not move the start back.
    writer.close().unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("log-start-offset-checkpoint")).unwrap(),
        "0\n1\nt 0 6\n"
    );
    assert_eq!(
        kafkit(&dir, &["get-offsets", "--time", "-2"]).ok(),
        "t:0:6\nt:1:0\n"
    );
}
