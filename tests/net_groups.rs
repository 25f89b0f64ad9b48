//! Consumer groups over `--bootstrap-server`: `consume --group` as a member of a group whose
//! coordinator is a broker (Tansu, started per test: `common::broker`), the classic protocol
//! with kafkit's assignors in the leader; what it commits is what kafka-python reads of the
//! group (OffsetFetch), and what kcat's member of a group commits is where kafkit's resumes.
//!
//! Tansu 0.6 answers a JoinGroup after half the member's `session.timeout.ms` (it waits that
//! long for other members; Kafka waits `group.initial.rebalance.delay.ms` for a new group), so
//! the members here ask for 2 s sessions: a join takes 1 s instead of 22.5 s with Kafka's
//! default 45 s.

use std::process::Command;

use crate::common::broker::{self, Broker};
use crate::common::{kafkit, kafkit_stdin, tempdir};
use crate::group_writes::table;
use crate::net::remote;

/// stderr without log4j's timestamps.
fn untimed(stderr: &str) -> String {
    let stamp =
        regex::Regex::new(r"(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ").expect("regex");
    stamp.replace_all(stderr, "[TIME] ").into_owned()
}

/// Runs a kafka-python script (`B` is the bootstrap address); `None` after a SKIPPED line
/// when kafka-python is not installed.
fn kafka_python(broker: &Broker, script: &str) -> Option<String> {
    let script = format!("B = '{}'\n{script}", broker.bootstrap());
    let out = match Command::new("python3").args(["-c", &script]).output() {
        Ok(out) => out,
        Err(e) => {
            crate::common::skip(&format!("python3 did not run: {e}"));
            return None;
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("No module named 'kafka'") {
        crate::common::skip("kafka-python is not installed");
        return None;
    }
    assert!(out.status.success(), "kafka-python failed: {err}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// kafka-python's view of `group`'s committed offsets of `topic`'s `partitions`:
/// `partition offset` lines (`None` for none).
fn committed_by_kafka_python(
    broker: &Broker,
    group: &str,
    topic: &str,
    partitions: i32,
) -> Option<String> {
    kafka_python(
        broker,
        &format!(
            "from kafka import KafkaConsumer, TopicPartition\n\
             c = KafkaConsumer(bootstrap_servers=B, group_id='{group}', enable_auto_commit=False, api_version_auto_timeout_ms=10000)\n\
             for p in range({partitions}):\n    print(p, c.committed(TopicPartition('{topic}', p)))\n\
             c.close(autocommit=False)\n"
        ),
    )
}

/// `Partition:P\tOffset:O\tvalue` lines: the next offset of each partition after them.
fn next_offsets(printed: &str, partitions: i32) -> Vec<i64> {
    let mut next = vec![0i64; usize::try_from(partitions).expect("count")];
    for line in printed.lines() {
        let mut fields = line.split('\t');
        let p: usize = fields
            .next()
            .and_then(|f| f.strip_prefix("Partition:"))
            .and_then(|p| p.parse().ok())
            .expect("a partition");
        let o: i64 = fields
            .next()
            .and_then(|f| f.strip_prefix("Offset:"))
            .and_then(|o| o.parse().ok())
            .expect("an offset");
        next[p] = next[p].max(o + 1);
    }
    next
}

#[test]
fn a_group_member_resumes_from_what_it_committed_and_kafka_python_agrees() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let create = ["topics", "--create", "--topic", "gm", "--partitions", "2"];
    kafkit(dir.path(), &create).ok();
    remote(&broker, &create).ok();
    let lines: String = (0..12).map(|i| format!("k{i}\tv{i}\n")).collect();
    let produce = ["produce", "--topic", "gm", "--property", "parse.key=true"];
    kafkit_stdin(dir.path(), &produce, lines.as_bytes()).ok();
    let bootstrap = broker.bootstrap();
    let mut to_broker = produce.to_vec();
    // --sync: a batch a record (Tansu's "latest" is the last batch's base offset + 1).
    to_broker.extend(["--bootstrap-server", &bootstrap, "--sync"]);
    kafkit_stdin(&dir.path().join("unused"), &to_broker, lines.as_bytes()).ok();

    let shown = "--property print.partition=true --property print.offset=true";
    let first = format!("consume --topic gm --group g --from-beginning --max-messages 5 {shown}");
    let rest = format!("consume --topic gm --group g --timeout-ms 1500 {shown}");
    let tansu = ["--consumer-property", "session.timeout.ms=2000"];
    let mut outputs = Vec::new();
    for line in [&first, &rest] {
        let args: Vec<&str> = line.split(' ').collect();
        let local = kafkit(dir.path(), &args);
        let mut net_args = args.clone();
        net_args.extend(tansu);
        let net = remote(&broker, &net_args);
        // The same records, the same log lines, the same exit, in both modes.
        assert_eq!(net.code, local.code, "{line}: {}", net.stderr);
        assert_eq!(net.stdout, local.stdout, "{line}");
        assert_eq!(untimed(&net.stderr), untimed(&local.stderr), "{line}");
        outputs.push(net);
    }
    assert!(
        outputs[0]
            .stderr
            .contains("[Consumer clientId=console-consumer, groupId=g] Adding newly assigned partitions: gm-0, gm-1"),
        "{}",
        outputs[0].stderr
    );
    assert!(outputs[0]
        .stderr
        .ends_with("Processed a total of 5 messages\n"));
    // The second member resumed where the first committed: every record once.
    assert!(outputs[1]
        .stderr
        .ends_with("Processed a total of 7 messages\n"));
    let mut values: Vec<&str> = outputs
        .iter()
        .flat_map(|r| r.stdout.lines())
        .map(|l| l.rsplit('\t').next().expect("value"))
        .collect();
    values.sort_by_key(|v| v[1..].parse::<u32>().expect("vN"));
    let all: Vec<String> = (0..12).map(|i| format!("v{i}")).collect();
    assert_eq!(values, all);

    // What kafkit committed (each partition's next offset after what it printed, at close) is
    // what kafka-python's consumer of the group sees.
    let Some(seen) = committed_by_kafka_python(&broker, "g", "gm", 2) else {
        return;
    };
    let printed = format!("{}{}", outputs[0].stdout, outputs[1].stdout);
    let expected: String = next_offsets(&printed, 2)
        .iter()
        .enumerate()
        .map(|(p, o)| format!("{p} {o}\n"))
        .collect();
    assert_eq!(seen, expected);
    assert_eq!(
        next_offsets(&printed, 2).iter().sum::<i64>(),
        12,
        "{expected}"
    );

    // The other way: kcat's member (librdkafka's classic protocol) of group "kc" reads 3
    // records and commits at close; kafkit's member of "kc" starts from there and reads the
    // other 9 (--from-beginning: from the start of a partition kcat committed nothing of).
    let Some(mut kcat) = broker::kcat() else {
        return;
    };
    let out = kcat
        .args(["-b", &bootstrap, "-G", "kc", "-c", "3", "-f", "%p %o %s\n"])
        .args([
            "-X",
            "auto.offset.reset=earliest",
            "-X",
            "session.timeout.ms=2000",
        ])
        .args(["-X", "heartbeat.interval.ms=500", "gm"])
        .output()
        .expect("kcat runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(read.lines().count(), 3, "{read}");
    let run = remote(
        &broker,
        &[
            "consume",
            "--topic",
            "gm",
            "--group",
            "kc",
            "--from-beginning",
            "--timeout-ms",
            "1500",
            "--consumer-property",
            "session.timeout.ms=2000",
        ],
    );
    assert!(
        run.stderr.ends_with("Processed a total of 9 messages\n"),
        "{}",
        run.stderr
    );
    let mut values: Vec<&str> = read
        .lines()
        .map(|l| l.rsplit(' ').next().expect("value"))
        .chain(run.stdout.lines())
        .collect();
    values.sort_by_key(|v| v[1..].parse::<u32>().expect("vN"));
    assert_eq!(values, all, "kcat read {read}, kafkit {}", run.stdout);
}

/// A Tansu difference: it answers a first JoinGroup with MEMBER_ID_REQUIRED (79) at every
/// version, where Kafka does from v4 only (KIP-394), so kafka-python 2.0's member (JoinGroup
/// v2, which does not know the code) fails with `UnknownError` against Tansu. Its admin-side
/// calls (FindCoordinator, OffsetFetch) work, and the test above uses them.
#[test]
fn tansu_asks_kafka_pythons_v2_join_for_a_member_id() {
    let Some(broker) = broker::start() else {
        return;
    };
    remote(
        &broker,
        &["topics", "--create", "--topic", "kp", "--partitions", "1"],
    )
    .ok();
    let Some(out) = kafka_python(
        &broker,
        "from kafka import KafkaConsumer\n\
         c = KafkaConsumer('kp', bootstrap_servers=B, group_id='kp', consumer_timeout_ms=5000, api_version_auto_timeout_ms=10000)\n\
         try:\n    next(iter(c))\nexcept StopIteration:\n    print('joined')\nexcept Exception as e:\n    print(type(e).__name__)\n",
    ) else {
        return;
    };
    assert_eq!(out, "UnknownError\n");
}

/// Runs `line` on `dir` and against `broker`: the same exit, stdout and stderr (log4j's
/// timestamps aside); the broker's run.
fn same_in_both(dir: &std::path::Path, broker: &Broker, line: &str) -> crate::common::Run {
    let args: Vec<&str> = line.split(' ').collect();
    let local = kafkit(dir, &args);
    let net = remote(broker, &args);
    assert_eq!(net.code, local.code, "{line}: {}", net.stderr);
    assert_eq!(net.stdout, local.stdout, "{line}");
    assert_eq!(untimed(&net.stderr), untimed(&local.stderr), "{line}");
    net
}

/// `consumer-groups --list` and `--describe` of a group a member committed offsets of print
/// what they print for a data directory whose group committed the same (the coordinator of
/// `--state` aside: the directory's is `localhost:9092 (node)`, the broker's its own).
#[test]
fn consumer_groups_list_and_describe_print_what_they_print_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let bootstrap = broker.bootstrap();
    let create = ["topics", "--create", "--topic", "cg", "--partitions", "3"];
    kafkit(dir.path(), &create).ok();
    remote(&broker, &create).ok();
    let lines: String = (0..9).map(|i| format!("k{i}\tv{i}\n")).collect();
    let produce = ["produce", "--topic", "cg", "--property", "parse.key=true"];
    kafkit_stdin(dir.path(), &produce, lines.as_bytes()).ok();
    let mut to_broker = produce.to_vec();
    to_broker.extend(["--bootstrap-server", &bootstrap, "--sync"]);
    kafkit_stdin(&dir.path().join("unused"), &to_broker, lines.as_bytes()).ok();
    let consume = "consume --topic cg --group cgroup --from-beginning --max-messages 4";
    let args: Vec<&str> = consume.split(' ').collect();
    let local = kafkit(dir.path(), &args);
    let mut net_args = args.clone();
    net_args.extend(["--consumer-property", "session.timeout.ms=2000"]);
    assert_eq!(remote(&broker, &net_args).ok(), local.ok());

    for line in [
        "consumer-groups --list",
        "consumer-groups --list --state",
        "consumer-groups --describe --group cgroup",
        "consumer-groups --describe --all-groups",
        "consumer-groups --describe --group cgroup --members",
    ] {
        same_in_both(dir.path(), &broker, line);
    }
    assert!(kafkit(
        dir.path(),
        &["consumer-groups", "--describe", "--group", "cgroup"]
    )
    .stdout
    .contains("LOG-END-OFFSET"),);
    let state = remote(
        &broker,
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "cgroup",
            "--state",
        ],
    );
    let coordinator = format!("127.0.0.1:{}  (", broker.port());
    assert!(state.ok().contains(&coordinator), "{}", state.stdout);
    let local = kafkit(
        dir.path(),
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "cgroup",
            "--state",
        ],
    );
    // The coordinator, and the padding of its column, differ.
    let node = regex::Regex::new(r"\S+:\d+  \(\d+\) +").expect("regex");
    assert_eq!(
        node.replace_all(&state.stdout, "COORDINATOR "),
        node.replace_all(local.ok(), "COORDINATOR ")
    );
    // A Tansu difference: a group it does not know is described as one without members; a
    // directory (and Kafka, whose coordinator answers Dead) says it does not exist.
    let args = ["consumer-groups", "--describe", "--group", "nope"];
    let net = remote(&broker, &args);
    let printed = format!("{}{}", net.stdout, net.stderr);
    assert!(
        printed.contains("Consumer group 'nope' has no active members."),
        "{printed}"
    );
    let local = kafkit(dir.path(), &args);
    let printed = format!("{}{}", local.stdout, local.stderr);
    assert!(
        printed.contains("Consumer group 'nope' does not exist."),
        "{printed}"
    );
    // --delete: the same answers from the broker's coordinator as from the directory's.
    for line in [
        "consumer-groups --delete --group cgroup",
        "consumer-groups --list",
    ] {
        same_in_both(dir.path(), &broker, line);
    }
    assert_eq!(
        kafkit(dir.path(), &["consumer-groups", "--list"]).stdout,
        ""
    );
    // A Tansu difference: deleting a group it does not know succeeds (Kafka's coordinator
    // answers GROUP_ID_NOT_FOUND, as the directory's does).
    let args = ["consumer-groups", "--delete", "--group", "nope"];
    let net = remote(&broker, &args);
    assert_eq!(
        net.ok(),
        "Deletion of requested consumer groups ('nope') was successful.\n"
    );
    let local = kafkit(dir.path(), &args);
    assert_eq!(local.code, 1);
    assert!(
        local
            .stdout
            .contains("GroupIdNotFoundException: The group id does not exist."),
        "{}",
        local.stdout
    );
}

/// Two members of one group against the broker share its partitions: the first takes both,
/// the second's join makes the group rebalance (the eager protocol of Kafka's default
/// `[range, cooperative-sticky]`: the first revokes both), and the leader's range assignment
/// gives each one partition; every record is read once, by its partition's owner.
#[test]
fn two_members_share_the_partitions_of_a_group_on_the_broker() {
    let Some(broker) = broker::start() else {
        return;
    };
    remote(
        &broker,
        &["topics", "--create", "--topic", "duo", "--partitions", "2"],
    )
    .ok();
    let member = |timeout| {
        member_thread(
            &broker,
            "duo",
            "duo",
            timeout,
            &["--property", "print.partition=true"],
        )
    };
    let first = member("14000");
    std::thread::sleep(std::time::Duration::from_secs(3));
    let second = member("10000");
    std::thread::sleep(std::time::Duration::from_secs(7));
    let lines: String = (0..20).map(|i| format!("k{i}\tv{i}\n")).collect();
    let bootstrap = broker.bootstrap();
    let produce = [
        "produce",
        "--topic",
        "duo",
        "--property",
        "parse.key=true",
        "--sync",
        "--bootstrap-server",
        &bootstrap,
    ];
    kafkit_stdin(&tempdir().path().join("unused"), &produce, lines.as_bytes()).ok();
    let first = first.join().expect("first member");
    let second = second.join().expect("second member");
    let owned = |run: &crate::common::Run| -> Vec<String> {
        let mut partitions: Vec<String> = run
            .stdout
            .lines()
            .map(|l| l.split('\t').next().expect("partition").to_string())
            .collect();
        partitions.sort();
        partitions.dedup();
        partitions
    };
    // Each reads one partition, not the other's.
    let (a, b) = (owned(&first), owned(&second));
    assert_eq!(a.len(), 1, "{}\n{}", first.stdout, first.stderr);
    assert_eq!(b.len(), 1, "{}\n{}", second.stdout, second.stderr);
    assert_ne!(a, b);
    let mine = |p: &str| {
        p.strip_prefix("Partition:")
            .expect("Partition:")
            .to_string()
    };
    let prefix = "[Consumer clientId=console-consumer, groupId=duo] ";
    assert!(
        first.stderr.contains(&format!(
            "{prefix}Adding newly assigned partitions: duo-0, duo-1"
        )),
        "{}",
        first.stderr
    );
    assert!(
        first.stderr.contains(&format!(
            "{prefix}Revoke previously assigned partitions duo-0, duo-1"
        )),
        "{}",
        first.stderr
    );
    assert!(
        first.stderr.contains(&format!(
            "{prefix}Adding newly assigned partitions: duo-{}",
            mine(&a[0])
        )),
        "{}",
        first.stderr
    );
    assert!(
        second.stderr.contains(&format!(
            "{prefix}Adding newly assigned partitions: duo-{}",
            mine(&b[0])
        )),
        "{}",
        second.stderr
    );
    // Every record once.
    let mut values: Vec<u32> = first
        .stdout
        .lines()
        .chain(second.stdout.lines())
        .map(|l| l.rsplit("\tv").next().expect("value").parse().expect("N"))
        .collect();
    values.sort_unstable();
    assert_eq!(values, (0..20).collect::<Vec<u32>>());
}

/// A broker that stops under a group's member ends the run with Kafka's error and exit 1
/// within `default.api.timeout.ms` or so, the member not waiting again to leave a
/// coordinator that is gone; what it printed was committed before.
#[test]
fn a_broker_that_stops_under_a_group_member_ends_the_run_with_an_error() {
    let Some(broker) = broker::start() else {
        return;
    };
    let bootstrap = broker.bootstrap();
    remote(
        &broker,
        &["topics", "--create", "--topic", "gs", "--partitions", "1"],
    )
    .ok();
    let produce = ["produce", "--topic", "gs", "--bootstrap-server", &bootstrap];
    kafkit_stdin(&tempdir().path().join("unused"), &produce, b"a\nb\n").ok();
    let stderr = crate::net::consume_until_the_broker_stops(
        broker,
        &[
            "consume",
            "--topic",
            "gs",
            "--group",
            "gs",
            "--from-beginning",
            "--bootstrap-server",
            &bootstrap,
            "--consumer-property",
            "session.timeout.ms=2000",
            "--consumer-property",
            "heartbeat.interval.ms=500",
            "--consumer-property",
            "default.api.timeout.ms=1000",
            "--consumer-property",
            "request.timeout.ms=1000",
        ],
    );
    assert!(
        stderr.contains("Processed a total of 2 messages"),
        "{stderr}"
    );
    assert!(stderr.contains("could not be established"), "{stderr}");
}

/// A member of `group` reading `topic` on the broker, on a thread of its own, until
/// `timeout` ms pass without a record (2 s sessions, 500 ms heartbeats), with `extra`
/// arguments.
fn member_thread(
    broker: &Broker,
    topic: &'static str,
    group: &'static str,
    timeout: &'static str,
    extra: &'static [&'static str],
) -> std::thread::JoinHandle<crate::common::Run> {
    let bootstrap = broker.bootstrap();
    std::thread::spawn(move || {
        let args = [
            &[
                "consume",
                "--topic",
                topic,
                "--group",
                group,
                "--timeout-ms",
                timeout,
                "--consumer-property",
                "session.timeout.ms=2000",
                "--consumer-property",
                "heartbeat.interval.ms=500",
                "--bootstrap-server",
                &bootstrap,
            ][..],
            extra,
        ]
        .concat();
        kafkit(&tempdir().path().join("unused"), &args)
    })
}

/// Topic `rs` (2 partitions) with the same 9 keyed records in `dir` and on `broker` (one
/// batch a record on the broker: Tansu's "latest" is the last batch's base offset + 1), and
/// group `rg` committing 2 on rs-0 and 1 on rs-1 in both, through `--reset-offsets
/// --execute` (an OffsetCommit with generation -1 on the broker: no join). Each
/// partition's record count.
fn reset_data(dir: &std::path::Path, broker: &Broker) -> Vec<i64> {
    let create = ["topics", "--create", "--topic", "rs", "--partitions", "2"];
    kafkit(dir, &create).ok();
    remote(broker, &create).ok();
    let lines: String = (0..9).map(|i| format!("k{i}\tv{i}\n")).collect();
    let produce = ["produce", "--topic", "rs", "--property", "parse.key=true"];
    kafkit_stdin(dir, &produce, lines.as_bytes()).ok();
    let bootstrap = broker.bootstrap();
    let mut to_broker = produce.to_vec();
    to_broker.extend(["--bootstrap-server", &bootstrap, "--sync"]);
    kafkit_stdin(&dir.join("unused"), &to_broker, lines.as_bytes()).ok();
    for (partition, offset) in [("rs:0", 2), ("rs:1", 1)] {
        let line = format!(
            "consumer-groups --reset-offsets --group rg --topic {partition} --to-offset {offset} --execute"
        );
        let run = same_in_both(dir, broker, &line);
        let p: i32 = partition[3..].parse().expect("partition");
        assert_eq!(run.ok(), table(&[("rg", "rs", p, offset)]));
    }
    let ends = kafkit(dir, &["get-offsets", "--topic", "rs"]);
    ends.ok()
        .lines()
        .map(|l| {
            l.rsplit(':')
                .next()
                .and_then(|o| o.parse().ok())
                .expect("rs:p:offset")
        })
        .collect()
}

/// `consumer-groups --reset-offsets` against a broker prints, for every scope and scenario,
/// what it prints for a data directory holding the same records and commits (one planner:
/// committed offsets from OffsetFetch, log starts, ends and timestamps from ListOffsets);
/// `--execute` commits what `--describe` then shows, in both modes.
#[test]
fn reset_offsets_plan_and_commit_what_they_do_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let root = dir.path();
    let ends = reset_data(root, &broker);
    assert_eq!(ends.len(), 2);
    assert!(ends.iter().all(|&e| e >= 2), "{ends:?}");
    let all =
        |offsets: [i64; 2]| table(&[("rg", "rs", 0, offsets[0]), ("rg", "rs", 1, offsets[1])]);
    let plan = root.join("plan.csv");
    std::fs::write(&plan, "rs,0,1\nrs,1,99\n").expect("plan");
    let plan = plan.to_str().expect("path").to_string();
    let dry = "consumer-groups --reset-offsets --group rg --dry-run";
    for (scenario, expected) in [
        ("--topic rs --to-earliest", Some(all([0, 0]))),
        ("--topic rs --to-latest", Some(all([ends[0], ends[1]]))),
        ("--topic rs --to-current", Some(all([2, 1]))),
        (
            "--topic rs:1 --to-offset 1",
            Some(table(&[("rg", "rs", 1, 1)])),
        ),
        ("--topic rs --shift-by 1", Some(all([3, 2]))),
        // Clamped below the log start, with Kafka's WARN on stderr (compared untimed).
        ("--topic rs --shift-by -5", Some(all([0, 0]))),
        ("--topic rs --to-offset 99", Some(all([ends[0], ends[1]]))),
        ("--all-topics --to-earliest", Some(all([0, 0]))),
        (
            "--all-topics --to-current --export",
            Some("rs,0,2\nrs,1,1\n\n".to_string()),
        ),
        (
            "--to-datetime 2000-01-01T00:00:00.000 --topic rs",
            Some(all([0, 0])),
        ),
        ("--by-duration PT1H --topic rs", Some(all([0, 0]))),
        (
            &format!("--from-file {plan}"),
            Some(table(&[("rg", "rs", 0, 1), ("rg", "rs", 1, ends[1])])),
        ),
        ("--topic rs --to-latest --output json", None),
        ("--topic nope --to-latest", None),
    ] {
        let line = format!("{dry} {scenario}");
        let run = same_in_both(root, &broker, &line);
        if let Some(expected) = expected {
            assert_eq!(run.ok(), expected, "{line}");
        }
    }
    // --all-groups: every group of the cluster (rg alone); a group nobody committed for is
    // reset from the log (--to-current without a commit: the log end).
    for line in [
        "consumer-groups --reset-offsets --all-groups --topic rs:0 --to-latest --dry-run",
        "consumer-groups --reset-offsets --group fresh --topic rs --to-current --dry-run",
        "consumer-groups --reset-offsets --group fresh --topic rs --shift-by 1 --dry-run",
    ] {
        same_in_both(root, &broker, line);
    }
    // --execute commits the plan; --describe shows it, the same in both modes.
    let line = "consumer-groups --reset-offsets --group rg --topic rs --shift-by 1 --execute";
    assert_eq!(same_in_both(root, &broker, line).ok(), all([3, 2]));
    let described = same_in_both(root, &broker, "consumer-groups --describe --group rg");
    let current: Vec<(String, String)> = described
        .ok()
        .lines()
        .filter(|l| l.starts_with("rg "))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells[2].to_string(), cells[3].to_string())
        })
        .collect();
    assert_eq!(
        current,
        [
            ("0".to_string(), "3".to_string()),
            ("1".to_string(), "2".to_string())
        ]
    );
    // A Tansu difference: ListOffsets for a timestamp after every record answers offset 0
    // (Kafka answers -1, and the tool falls back to the log end with its notice, as the
    // directory does).
    let line = format!("{dry} --topic rs --to-datetime 2999-01-01T00:00:00.000");
    let args: Vec<&str> = line.split(' ').collect();
    let local = kafkit(root, &args);
    assert_eq!(
        local.ok(),
        format!(
            "\nWarn: Partition 0 from topic rs is empty. Falling back to latest known offset.\n\
             \nWarn: Partition 1 from topic rs is empty. Falling back to latest known offset.\n{}",
            all([ends[0], ends[1]])
        )
    );
    assert_eq!(remote(&broker, &args).ok(), all([0, 0]));
}

/// A group with a member on the broker (Stable) is refused with Kafka's message, before and
/// instead of any commit; OffsetDelete, which Tansu 0.6 does not list in ApiVersions, fails
/// as Kafka's admin client fails on such a broker (`UnsupportedVersionException` from
/// `NodeApiVersions`: "The node does not support OFFSET_DELETE").
#[test]
fn a_live_group_is_refused_and_delete_offsets_needs_a_broker_with_offset_delete() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    reset_data(dir.path(), &broker);
    let member = member_thread(&broker, "rs", "busy", "6000", &[]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let run = remote(
        &broker,
        &[
            "consumer-groups",
            "--reset-offsets",
            "--group",
            "busy",
            "--topic",
            "rs",
            "--to-earliest",
            "--execute",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "\nError: Assignments can only be reset if the group 'busy' is inactive, but the current state is Stable.\n{}",
            table(&[])
        )
    );
    let state = remote(
        &broker,
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "busy",
            "--state",
        ],
    );
    assert!(state.ok().contains("Stable"), "{}", state.stdout);
    member.join().expect("member");

    // --delete-offsets: the directory deletes; Tansu has no OffsetDelete.
    let args = [
        "consumer-groups",
        "--delete-offsets",
        "--group",
        "rg",
        "--topic",
        "rs",
    ];
    let local = kafkit(dir.path(), &args);
    assert_eq!(
        local.ok(),
        "Request succeed for deleting offsets with topic rs group rg\n\
         \nTOPIC                          PARTITION       STATUS         \
         \nrs                             0               Successful     \
         \nrs                             1               Successful     \n"
    );
    let net = remote(&broker, &args);
    assert_eq!(net.code, 1, "{}", net.stderr);
    let status = "Error: :org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support OFFSET_DELETE";
    assert_eq!(
        net.stdout,
        format!(
            "\nError: Encounter some unknown error: UNSUPPORTED_VERSION\n\
             \nTOPIC                          PARTITION       STATUS         \
             \nrs                             0               {status}\
             \nrs                             1               {status}\n"
        )
    );
    // Nothing was deleted: the group still has its offsets.
    let described = remote(&broker, &["consumer-groups", "--describe", "--group", "rg"]);
    assert!(described.ok().contains("rg "), "{}", described.stdout);
    let json = remote(&broker, &[&args[..], &["--output", "json"]].concat());
    assert_eq!(json.code, 1);
    assert!(
        json.stdout.contains(r#""error":"UNSUPPORTED_VERSION""#),
        "{}",
        json.stdout
    );
}
