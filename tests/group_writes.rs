//! `kafkit consumer-groups --reset-offsets`, `--delete` and `--delete-offsets`
//! (kafka-consumer-groups.sh, `kafka-cli-surface.md` §6.2): every reset scenario against its
//! table, dry runs that change no byte, what `--execute` writes (read back by `--describe` and
//! `dump-log-segments --offsets-decoder`), the CSV round trip, clamping, the state rules against
//! a live member, deletes, and Kafka's messages for bad input.
//!
//! Kafka prints the reset rows in hash-map order; kafkit sorts them by group, topic and
//! partition, so the tables below are in that order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use kafkit::log::{Log, LogCheckpoints, LogConfig};
use kafkit::record::{BatchBuilder, Compression, TimestampType};

use crate::common::{kafkit, tempdir, Run};

/// The first record's timestamp: 2023-11-14T22:13:20.000Z; record i is `BASE + i` seconds.
const BASE: i64 = 1_700_000_000_000;

/// Topic `t`: partition 0 holds 10 records, partition 1 holds 5, one a second from `BASE`;
/// group `g` committed 4 on t-0 and 2 on t-1.
pub fn data() -> tempfile::TempDir {
    let dir = tempdir();
    let root = dir.path();
    crate::client::topic(root, "t", 2);
    for (partition, count) in [(0, 10), (1, 5)] {
        let mut log = Log::open(
            &root.join(format!("t-{partition}")),
            LogConfig::default(),
            LogCheckpoints::default(),
            0,
        )
        .expect("open");
        for i in 0..count {
            let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
            let value = format!("v{i}");
            batch.append(BASE + i * 1000, None, Some(value.as_bytes()), &[]);
            log.append(&batch.build().expect("build"), 0)
                .expect("append");
        }
        log.close().expect("close");
    }
    for (partition, offset) in [("t:0", "4"), ("t:1", "2")] {
        reset(
            root,
            &[
                "--group",
                "g",
                "--topic",
                partition,
                "--to-offset",
                offset,
                "--execute",
            ],
        )
        .ok();
    }
    dir
}

fn reset(root: &Path, args: &[&str]) -> Run {
    kafkit(
        root,
        &[&["consumer-groups", "--reset-offsets"], args].concat(),
    )
}

/// Kafka 4.0's reset table: `%n%-30s %-30s %-10s %-15s` per line, then a newline.
pub fn table(rows: &[(&str, &str, i32, i64)]) -> String {
    let mut out = format!(
        "\n{:<30} {:<30} {:<10} {:<15}",
        "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"
    );
    for (group, topic, partition, offset) in rows {
        out.push_str(&format!(
            "\n{group:<30} {topic:<30} {partition:<10} {offset:<15}"
        ));
    }
    out.push('\n');
    out
}

fn g(rows: &[(i32, i64)]) -> String {
    let rows: Vec<_> = rows.iter().map(|&(p, o)| ("g", "t", p, o)).collect();
    table(&rows)
}

/// The committed offsets `--describe` shows for `group`: partition → CURRENT-OFFSET.
fn described(root: &Path, group: &str) -> BTreeMap<String, String> {
    let run = kafkit(root, &["consumer-groups", "--describe", "--group", group]);
    run.ok()
        .lines()
        .filter(|l| l.starts_with(&format!("{group} ")))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (format!("{}-{}", cells[1], cells[2]), cells[3].to_string())
        })
        .collect()
}

/// Every file of the data directory with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

#[test]
fn every_scenario_prints_its_table_and_a_dry_run_changes_nothing() {
    let dir = data();
    let root = dir.path();
    let before = snapshot(root);
    for (args, expected) in [
        (&["--to-earliest"][..], g(&[(0, 0), (1, 0)])),
        (&["--to-latest"], g(&[(0, 10), (1, 5)])),
        (&["--to-current"], g(&[(0, 4), (1, 2)])),
        (&["--to-offset", "3"], g(&[(0, 3), (1, 3)])),
        (&["--shift-by", "2"], g(&[(0, 6), (1, 4)])),
        (
            &["--to-datetime", "2023-11-14T22:13:22.500"],
            g(&[(0, 3), (1, 3)]),
        ),
        (
            &["--to-datetime", "2023-11-14T23:13:22.500+01:00"],
            g(&[(0, 3), (1, 3)]),
        ),
        (
            &["--to-datetime", "2023-11-14T21:13:22.5-0100"],
            g(&[(0, 3), (1, 3)]),
        ),
    ] {
        let run = reset(
            root,
            &[&["--group", "g", "--topic", "t", "--dry-run"], args].concat(),
        );
        assert_eq!(run.ok(), expected, "{args:?}");
        assert_eq!(run.stderr, "", "{args:?}");
    }
    // Without --dry-run: the same table, and Kafka's warning.
    let run = reset(root, &["--group", "g", "--topic", "t:1", "--to-latest"]);
    assert_eq!(run.ok(), g(&[(1, 5)]));
    assert!(run.stderr.starts_with("WARN: No action will be performed as the --execute option is missing.In a future major release,"), "{}", run.stderr);
    // --all-topics: the committed partitions.
    let run = reset(
        root,
        &["--group", "g", "--all-topics", "--to-earliest", "--dry-run"],
    );
    assert_eq!(run.ok(), g(&[(0, 0), (1, 0)]));
    // --all-groups: every group of the data directory (here `g` alone).
    let run = reset(
        root,
        &["--all-groups", "--topic", "t:0", "--to-latest", "--dry-run"],
    );
    assert_eq!(run.ok(), g(&[(0, 10)]));
    // --to-current without a commit: the log end; an unknown group is Dead, so it can be reset.
    let run = reset(
        root,
        &[
            "--group",
            "fresh",
            "--topic",
            "t",
            "--to-current",
            "--dry-run",
        ],
    );
    assert_eq!(
        run.ok(),
        table(&[("fresh", "t", 0, 10), ("fresh", "t", 1, 5)])
    );
    assert_eq!(before, snapshot(root), "a dry run wrote");
}

#[test]
fn offsets_are_clamped_with_kafkas_warnings() {
    let dir = data();
    let root = dir.path();
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--topic",
            "t",
            "--to-offset",
            "7",
            "--dry-run",
        ],
    );
    assert_eq!(run.ok(), g(&[(0, 7), (1, 5)]));
    assert!(run.stderr.contains("] WARN New offset (7) is higher than latest offset for topic partition t-1. Value will be set to 5 (org.apache.kafka.tools.consumer.group.ConsumerGroupCommand)\n"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--topic",
            "t",
            "--shift-by",
            "-3",
            "--dry-run",
        ],
    );
    assert_eq!(run.ok(), g(&[(0, 1), (1, 0)]));
    assert!(run.stderr.contains("] WARN New offset (-1) is lower than earliest offset for topic partition t-1. Value will be set to 0 (org."), "{}", run.stderr);
    // After the last record of t-1: Kafka falls back to the log end, with its notice on stdout.
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--topic",
            "t",
            "--to-datetime",
            "2023-11-14T22:13:27.000",
            "--dry-run",
        ],
    );
    assert_eq!(
        run.ok(),
        format!(
            "\nWarn: Partition 1 from topic t is empty. Falling back to latest known offset.\n{}",
            g(&[(0, 7), (1, 5)])
        )
    );
    // --shift-by needs a commit.
    let run = reset(
        root,
        &["--group", "fresh", "--topic", "t", "--shift-by", "1"],
    );
    assert!(
        run.fails().contains(
            "Cannot shift offset for partition t-0 since there is no current committed offset"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn by_duration_counts_back_from_a_clock_tests_can_fix() {
    let dir = data();
    let out = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args([
            "consumer-groups",
            "--reset-offsets",
            "--group",
            "g",
            "--topic",
            "t",
            "--by-duration",
            "PT7.5S",
            "--dry-run",
        ])
        .env("KAFKIT_DATA_DIR", dir.path())
        .env("KAFKIT_NOW_MS", (BASE + 10_000).to_string())
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&out.stdout), g(&[(0, 3), (1, 3)]));
    assert!(out.status.success());
}

#[test]
fn execute_commits_what_describe_and_the_offsets_decoder_read() {
    let dir = data();
    let root = dir.path();
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--topic",
            "t:0",
            "--to-offset",
            "9",
            "--execute",
        ],
    );
    assert_eq!(run.ok(), g(&[(0, 9)]));
    let offsets = described(root, "g");
    assert_eq!(offsets.get("t-0").map(String::as_str), Some("9"));
    assert_eq!(offsets.get("t-1").map(String::as_str), Some("2"));
    let partition = kafkit::assign::java::coordinator_partition("g", 50);
    let log = root.join(format!(
        "__consumer_offsets-{partition}/00000000000000000000.log"
    ));
    let dump = kafkit(
        root,
        &[
            "dump-log-segments",
            "--files",
            log.to_str().expect("path"),
            "--offsets-decoder",
        ],
    );
    let last = dump.ok().lines().last().unwrap_or_default().to_string();
    assert!(last.contains(r#"key: {"type":"1","data":{"group":"g","topic":"t","partition":0}} payload: {"version":"3","data":{"offset":9,"leaderEpoch":-1,"metadata":"","#), "{last}");
    // A group that committed nothing has nothing to reset under --all-topics: an empty table,
    // and no record (a log takes no empty batch; this once failed the coordinator's write).
    let offsets_logs = || {
        let mut all = snapshot(root);
        all.retain(|path, _| path.to_string_lossy().contains("__consumer_offsets"));
        all
    };
    let before = offsets_logs();
    let run = reset(
        root,
        &[
            "--group",
            "nothing",
            "--all-topics",
            "--to-earliest",
            "--execute",
        ],
    );
    assert_eq!(run.ok(), table(&[]));
    assert_eq!(offsets_logs(), before);
}

#[test]
fn an_export_is_a_plan_from_file_reads_in_both_forms() {
    let dir = data();
    let root = dir.path();
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--topic",
            "t",
            "--to-offset",
            "3",
            "--export",
            "--dry-run",
        ],
    );
    assert_eq!(run.ok(), "t,0,3\nt,1,3\n\n");
    let plan = root.join("plan.csv");
    std::fs::write(&plan, &run.stdout).expect("write");
    let plan_arg = plan.to_str().expect("path");
    let run = reset(
        root,
        &["--group", "g", "--from-file", plan_arg, "--execute"],
    );
    assert_eq!(run.ok(), g(&[(0, 3), (1, 3)]));
    let offsets = described(root, "g");
    assert_eq!(offsets.values().collect::<Vec<_>>(), ["3", "3"]);
    // Two groups: the CSV names them, and a file of that form resets each.
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--group",
            "h",
            "--topic",
            "t:1",
            "--to-earliest",
            "--export",
            "--dry-run",
        ],
    );
    assert_eq!(run.ok(), "g,t,1,0\nh,t,1,0\n\n");
    std::fs::write(&plan, "g,t,1,1\nh,t,1,99\n").expect("write");
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--group",
            "h",
            "--from-file",
            plan_arg,
            "--execute",
        ],
    );
    assert_eq!(run.ok(), table(&[("g", "t", 1, 1), ("h", "t", 1, 5)]));
    assert!(run.stderr.contains("New offset (99) is higher than latest offset for topic partition t-1. Value will be set to 5"), "{}", run.stderr);
    assert_eq!(
        described(root, "h").get("t-1").map(String::as_str),
        Some("5")
    );
    // A group the file does not name.
    let run = reset(
        root,
        &[
            "--group",
            "g",
            "--group",
            "x",
            "--from-file",
            plan_arg,
            "--dry-run",
        ],
    );
    assert_eq!(
        run.ok(),
        format!("\nError: No reset plan for group x found\n{}", g(&[(1, 1)]))
    );
}

#[test]
fn kafkas_messages_for_bad_input() {
    let dir = data();
    let root = dir.path();
    for (args, message) in [
        (&["--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--dry-run", "--execute"][..], "Option [reset-offsets] only accepts one of [execute] and [dry-run]"),
        (&["--reset-offsets", "--group", "g", "--to-earliest", "--dry-run"], "One of the reset scopes should be defined: --all-topics, --topic."),
        (&["--reset-offsets", "--group", "g", "--all-topics", "--dry-run"], "Option '[reset-offsets]' requires one of the following scenarios: [[to-offset], [shift-by], [to-datetime], [by-duration], [to-earliest], [to-latest], [to-current], [from-file]]"),
        (&["--reset-offsets", "--group", "g", "--all-topics", "--to-latest", "--to-earliest", "--dry-run"], "Option \"[to-earliest]\" can't be used with option \"[to-latest]\""),
        (&["--reset-offsets", "--all-topics", "--to-latest", "--dry-run"], "Option [reset-offsets] takes one of these options: [group], [all-groups]"),
        (&["--reset-offsets", "--group", "g", "--topic", "t:x", "--to-latest", "--dry-run"], "Invalid partition 'x' specified in topic arg 't:x''"),
        (&["--reset-offsets", "--group", "g", "--topic", "t:0:1", "--to-latest", "--dry-run"], "Invalid topic arg 't:0:1', expected topic name and partitions"),
        (&["--reset-offsets", "--group", "g", "--topic", "nope", "--to-latest", "--dry-run"], "Error: Executing consumer group command failed due to java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition."),
        (&["--reset-offsets", "--group", "g", "--topic", "t", "--to-datetime", "2023-11-14", "--dry-run"], "Error: Executing consumer group command failed due to java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format. Timestamp: 2023-11-14"),
        (&["--reset-offsets", "--group", "g", "--topic", "t", "--to-datetime", "2023-11-14T25:00:00.000", "--dry-run"], "Error: Executing consumer group command failed due to java.text.ParseException: Unparseable date: \"2023-11-14T25:00:00.000Z\""),
        (&["--reset-offsets", "--group", "g", "--topic", "t", "--by-duration", "1H", "--dry-run"], "Error: Executing consumer group command failed due to Text cannot be parsed to a Duration"),
        (&["--delete", "--group", "g", "--topic", "t"], "The consumer does not support topic-specific offset deletion from a consumer group."),
        (&["--delete"], "Option [delete] takes one of these options: [group], [all-groups]"),
        (&["--delete-offsets", "--group", "g"], "Option [delete-offsets] takes the following options: [group], [topic]"),
        (&["--describe", "--group", "g", "--topic", "t"], "Option \"[topic]\" can't be used with option \"[describe]\""),
        (&["--describe", "--group", "g", "--execute"], "Option \"[execute]\" can't be used with option \"[describe]\""),
        (&["--delete", "--group", "g", "--to-earliest"], "Option \"[to-earliest]\" can't be used with option \"[delete]\""),
        (&["--list", "--describe", "--all-groups"], "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets"),
    ] {
        let before = snapshot(root);
        let run = kafkit(root, &[&["consumer-groups"], args].concat());
        assert!(run.fails().starts_with(message) || run.stderr.contains(&format!("\n{message}")), "{args:?}: {}", run.stderr);
        assert_eq!(before, snapshot(root), "{args:?} wrote");
    }
}

#[test]
fn delete_offsets_then_delete_and_describe_and_list_and_the_tombstones() {
    let dir = data();
    let root = dir.path();
    let run = kafkit(
        root,
        &[
            "consumer-groups",
            "--delete-offsets",
            "--group",
            "g",
            "--topic",
            "t:1",
        ],
    );
    assert_eq!(
        run.ok(),
        format!("Request succeed for deleting offsets with topic t:1 group g\n\n{:<30} {:<15} {:<15}\n{:<30} {:<15} {:<15}\n", "TOPIC", "PARTITION", "STATUS", "t", "1", "Successful")
    );
    assert_eq!(described(root, "g").keys().collect::<Vec<_>>(), ["t-0"]);
    // An unknown group, an unknown topic.
    let run = kafkit(
        root,
        &[
            "consumer-groups",
            "--delete-offsets",
            "--group",
            "nobody",
            "--topic",
            "t:0",
        ],
    );
    assert_eq!(run.stdout, format!("\nError: 'nobody' does not exist.\n\n{:<30} {:<15} {:<15}\n{:<30} {:<15} {:<15}\n", "TOPIC", "PARTITION", "STATUS", "t", "0", "Error: :org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist."));
    run.fails();
    let run = kafkit(
        root,
        &[
            "consumer-groups",
            "--delete-offsets",
            "--group",
            "g",
            "--topic",
            "nope",
        ],
    );
    assert!(run.stdout.ends_with(&format!("\n{:<30} {:<15} {:<15}\n", "nope", "Not Provided", "Error: :org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.")), "{}", run.stdout);
    // Delete: one group deleted, one unknown.
    let run = kafkit(
        root,
        &[
            "consumer-groups",
            "--delete",
            "--group",
            "g",
            "--group",
            "nobody",
        ],
    );
    assert_eq!(run.stdout, "\nError: Deletion of some consumer groups failed:\n* Group 'nobody' could not be deleted due to: java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.\n\nThese consumer groups were deleted successfully: 'g'\n");
    run.fails();
    assert_eq!(kafkit(root, &["consumer-groups", "--list"]).ok(), "");
    let run = kafkit(root, &["consumer-groups", "--describe", "--group", "g"]);
    assert_eq!(run.ok(), "\nError: Consumer group 'g' does not exist.\n");
    // What a broker writes: a tombstone per offset, then the group's.
    let partition = kafkit::assign::java::coordinator_partition("g", 50);
    let log = root.join(format!(
        "__consumer_offsets-{partition}/00000000000000000000.log"
    ));
    let dump = kafkit(
        root,
        &[
            "dump-log-segments",
            "--files",
            log.to_str().expect("path"),
            "--offsets-decoder",
        ],
    );
    let tombstones: Vec<&str> = dump
        .ok()
        .lines()
        .filter(|l| l.ends_with("payload: <DELETE>"))
        .collect();
    assert_eq!(tombstones.len(), 3, "{}", dump.stdout);
    assert!(
        tombstones[0]
            .contains(r#"key: {"type":"1","data":{"group":"g","topic":"t","partition":1}}"#),
        "{}",
        tombstones[0]
    );
    assert!(
        tombstones[1]
            .contains(r#"key: {"type":"1","data":{"group":"g","topic":"t","partition":0}}"#),
        "{}",
        tombstones[1]
    );
    assert!(
        tombstones[2].contains(r#"key: {"type":"2","data":{"group":"g"}}"#),
        "{}",
        tombstones[2]
    );
    let run = kafkit(root, &["consumer-groups", "--delete", "--all-groups"]);
    assert_eq!(
        run.ok(),
        "Deletion of requested consumer groups ('') was successful.\n"
    );
}

/// A `kafkit consume --group` process, for as long as the test holds it.
pub struct Member(Child);

impl Member {
    pub fn start(root: &Path, group: &str, out: &Path) -> Member {
        let child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
            .args([
                "consume",
                "--topic",
                "t",
                "--group",
                group,
                "--from-beginning",
            ])
            .args(["--consumer-property", "group.initial.rebalance.delay.ms=0"])
            .args(["--consumer-property", "heartbeat.interval.ms=100"])
            .env("KAFKIT_DATA_DIR", root)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(out).expect("out"))
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        Member(child)
    }

    /// Stops it as SIGTERM does (it leaves the group and closes).
    pub fn stop(self) {
        drop(self);
    }

    /// A member of `group` that has consumed all 15 records of `data()`'s topic.
    pub fn caught_up(root: &Path, group: &str) -> Member {
        let out = root.join(format!("{group}.out"));
        let member = Member::start(root, group, &out);
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::fs::read_to_string(&out)
            .unwrap_or_default()
            .lines()
            .count()
            < 15
        {
            assert!(Instant::now() < deadline, "the member never consumed");
            thread::sleep(Duration::from_millis(50));
        }
        member
    }
}

impl Drop for Member {
    /// A failing test still stops its member.
    fn drop(&mut self) {
        let pid = i32::try_from(self.0.id()).expect("pid");
        // SAFETY: a signal to our own child, not yet waited for.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

#[test]
fn a_live_group_is_refused_and_a_member_started_after_a_reset_resumes_there() {
    let dir = data();
    let root = dir.path();
    let member = Member::caught_up(root, "live");
    let before = snapshot(root);
    for mode in ["--dry-run", "--execute"] {
        let run = reset(
            root,
            &["--group", "live", "--all-topics", "--to-earliest", mode],
        );
        assert_eq!(run.stdout, format!("\nError: Assignments can only be reset if the group 'live' is inactive, but the current state is Stable.\n{}", table(&[])), "{mode}");
        run.fails();
    }
    let run = kafkit(root, &["consumer-groups", "--delete", "--group", "live"]);
    assert_eq!(run.stdout, "\nError: Deletion of some consumer groups failed:\n* Group 'live' could not be deleted due to: java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.\n");
    let run = kafkit(
        root,
        &[
            "consumer-groups",
            "--delete-offsets",
            "--group",
            "live",
            "--topic",
            "t:0",
        ],
    );
    assert!(
        run.stdout.starts_with(
            "\nError: Encounter some partition level error, see the follow-up details:\n"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Error: :org.apache.kafka.common.errors.GroupSubscribedToTopicException: Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it."), "{}", run.stdout);
    // Refusals write nothing (the member's own commits aside: compare the topic's files).
    let topic_files = |s: &BTreeMap<PathBuf, Vec<u8>>| -> BTreeMap<PathBuf, Vec<u8>> {
        s.iter()
            .filter(|(p, _)| p.to_string_lossy().contains("/t-"))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect()
    };
    assert_eq!(topic_files(&before), topic_files(&snapshot(root)));
    member.stop();
    let run = reset(
        root,
        &[
            "--group",
            "live",
            "--topic",
            "t:0",
            "--to-offset",
            "8",
            "--execute",
        ],
    );
    assert_eq!(run.ok(), table(&[("live", "t", 0, 8)]));
    // A member started now resumes at 8 on t-0 and at the end of t-1 (all consumed before).
    let out = root.join("second.out");
    let member = Member::start(root, "live", &out);
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&out)
        .unwrap_or_default()
        .lines()
        .count()
        < 2
    {
        assert!(
            Instant::now() < deadline,
            "the second member never consumed"
        );
        thread::sleep(Duration::from_millis(50));
    }
    thread::sleep(Duration::from_millis(300));
    member.stop();
    assert_eq!(std::fs::read_to_string(&out).expect("out"), "v8\nv9\n");
}

#[test]
fn a_reset_of_an_idle_group_goes_through_the_live_host_of_its_partition() {
    let dir = data();
    let root = dir.path();
    let partition = kafkit::assign::java::coordinator_partition("live", 50);
    let idle = (0..)
        .map(|i| format!("idle-{i}"))
        .find(|g| kafkit::assign::java::coordinator_partition(g, 50) == partition)
        .expect("a group of the same partition");
    let member = Member::caught_up(root, "live");
    // The live member hosts the partition: the reset is its host's to check and write.
    let run = reset(
        root,
        &[
            "--group",
            &idle,
            "--topic",
            "t:1",
            "--to-offset",
            "3",
            "--execute",
        ],
    );
    assert_eq!(run.ok(), table(&[(&idle, "t", 1, 3)]));
    assert_eq!(
        described(root, &idle).get("t-1").map(String::as_str),
        Some("3")
    );
    let run = kafkit(root, &["consumer-groups", "--delete", "--group", &idle]);
    assert_eq!(
        run.ok(),
        format!("Deletion of requested consumer groups ('{idle}') was successful.\n")
    );
    // The live group is untouched.
    let run = reset(
        root,
        &[
            "--group",
            "live",
            "--all-topics",
            "--to-earliest",
            "--dry-run",
        ],
    );
    assert!(
        run.stdout.contains("the current state is Stable."),
        "{}",
        run.stdout
    );
    member.stop();
}

#[test]
fn a_group_whose_members_all_died_can_be_reset_with_no_coordinator_running() {
    let dir = data();
    let root = dir.path();
    let member = Member::caught_up(root, "dead");
    let pid = i32::try_from(member.0.id()).expect("pid");
    // SAFETY: a signal to our own child, not yet waited for.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    drop(member);
    // Its last metadata says Stable with one member (what `--describe` shows), but no process
    // hosts its coordinator, so no member is alive: it is reset as the Empty group a new
    // coordinator loads (Kafka resets it once the member's session expires).
    let state = kafkit(
        root,
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "dead",
            "--state",
        ],
    );
    assert!(state.ok().contains("Stable"), "{}", state.stdout);
    let run = reset(
        root,
        &[
            "--group",
            "dead",
            "--topic",
            "t:0",
            "--to-offset",
            "2",
            "--execute",
        ],
    );
    assert_eq!(run.ok(), table(&[("dead", "t", 0, 2)]));
    assert_eq!(
        described(root, "dead").get("t-0").map(String::as_str),
        Some("2")
    );
}
