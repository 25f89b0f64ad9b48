//! `kafkit consume` through the binary: Kafka's validation, the DefaultMessageFormatter text,
//! JSON output, offsets, isolation, following, closed pipes (`kafka-cli-surface.md` §5).

use std::fs;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{kafkit, kafkit_stdin, tempdir, vectors};
use crate::produce::{consume_all, create_topic};

fn produce_json(dir: &std::path::Path, topic: &str, lines: &[&str]) {
    let input = lines.join("\n");
    kafkit_stdin(
        dir,
        &["produce", "--topic", topic, "--input", "json"],
        input.as_bytes(),
    )
    .ok();
}

#[test]
fn validation_messages_are_kafkas() {
    let dir = tempdir();
    create_topic(dir.path(), "t", 1, &[]);
    for (args, message) in [
        (&["consume"][..], "Exactly one of --include/--topic is required. "),
        (&["consume", "--topic", "t", "--include", "t"][..], "Exactly one of --include/--topic is required. "),
        (&["consume", "--include", "t", "--partition", "0"][..], "The topic is required when partition is specified."),
        (
            &["consume", "--topic", "t", "--partition", "0", "--offset", "1", "--from-beginning"][..],
            "Options from-beginning and offset cannot be specified together.",
        ),
        (&["consume", "--topic", "t", "--offset", "1"][..], "The partition is required when offset is specified."),
        (
            &["consume", "--topic", "t", "--partition", "0", "--offset", "-1"][..],
            "The provided offset value '-1' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.",
        ),
        (
            &["consume", "--topic", "t", "--partition", "0", "--offset", "first"][..],
            "The provided offset value 'first' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.",
        ),
    ] {
        let run = kafkit(dir.path(), args);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(run.stderr.lines().next(), Some(message), "{args:?}: {}", run.stderr);
    }
    // Kafka's ConsoleConsumerOptions: a group and a partition exclude each other, however the
    // group is given.
    for group in [
        &["--group", "g"][..],
        &["--consumer-property", "group.id=g"][..],
    ] {
        let mut args = vec!["consume", "--topic", "t", "--partition", "0"];
        args.extend_from_slice(group);
        let err = kafkit(dir.path(), &args).fails().to_string();
        assert!(
            err.contains("Options group and partition cannot be specified together."),
            "{args:?}: {err}"
        );
    }
    // kafkit's time offsets need no --partition, but a group starts from its commits.
    let err = kafkit(
        dir.path(),
        &["consume", "--topic", "t", "--group", "g", "--offset", "@0"],
    )
    .fails()
    .to_string();
    assert!(
        err.contains("Options group and offset cannot be specified together"),
        "{err}"
    );
    // Group ids given in several places must match; Kafka lists them in its HashSet's order
    // (by hash bucket: 'a' before 'b' whichever was given first).
    let config = dir.path().join("consumer.properties");
    std::fs::write(&config, "group.id=b\n").expect("write");
    for args in [
        vec!["--group", "b", "--consumer-property", "group.id=a"],
        vec![
            "--consumer.config",
            config.to_str().expect("path"),
            "--consumer-property",
            "group.id=a",
        ],
        vec![
            "--group",
            "a",
            "--consumer.config",
            config.to_str().expect("path"),
        ],
    ] {
        let mut all = vec!["consume", "--topic", "t"];
        all.extend(args);
        let err = kafkit(dir.path(), &all).fails().to_string();
        assert!(
            err.contains("The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. Detected group ids: 'a', 'b'"),
            "{all:?}: {err}"
        );
    }
    // The same id given twice is one group.
    kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "t",
            "--group",
            "a",
            "--consumer-property",
            "group.id=a",
            "--consumer-property",
            "group.initial.rebalance.delay.ms=0",
            "--timeout-ms",
            "100",
        ],
    )
    .ok();
}

#[test]
fn formatter_examples_of_the_spec_through_the_binary() {
    let dir = tempdir();
    create_topic(dir.path(), "f", 1, &[]);
    produce_json(
        dir.path(),
        "f",
        &[
            r#"{"key":"key","value":"value","timestamp":123,"headers":[{"key":"h1","value":"v1"},{"key":"h2","value":"v2"}]}"#,
            r#"{"key":"key","value":null,"timestamp":124}"#,
            r#"{"key":null,"value":"v","timestamp":125,"headers":[{"key":"h","value":null}]}"#,
        ],
    );
    let consume_at = |offset: &str, props: &[&str]| {
        let mut args = vec![
            "consume",
            "--topic",
            "f",
            "--partition",
            "0",
            "--offset",
            offset,
            "--max-messages",
            "1",
        ];
        for p in props {
            args.push("--property");
            args.push(p);
        }
        let run = kafkit(dir.path(), &args);
        assert_eq!(run.stderr, "Processed a total of 1 messages\n");
        run.ok().to_string()
    };
    let consume = |props: &[&str]| consume_at("0", props);
    assert_eq!(consume(&[]), "value\n");
    assert_eq!(consume(&["print.key=true"]), "key\tvalue\n");
    assert_eq!(
        consume(&["print.key=true", "print.partition=true"]),
        "Partition:0\tkey\tvalue\n"
    );
    assert_eq!(
        consume(&[
            "print.timestamp=true",
            "print.partition=true",
            "print.offset=true",
            "print.key=true"
        ]),
        "CreateTime:123\tPartition:0\tOffset:0\tkey\tvalue\n"
    );
    assert_eq!(
        consume(&[
            "print.timestamp=true",
            "print.partition=true",
            "print.offset=true",
            "print.headers=true",
            "print.key=true"
        ]),
        "CreateTime:123\tPartition:0\tOffset:0\th1:v1,h2:v2\tkey\tvalue\n"
    );
    assert_eq!(
        consume(&[
            "print.timestamp=true",
            "print.partition=true",
            "print.offset=true",
            "print.headers=true",
            "print.key=true",
            "print.value=false",
            "key.separator=<sep>",
            "line.separator=<end>",
            "headers.separator=|",
        ]),
        "CreateTime:123<sep>Partition:0<sep>Offset:0<sep>h1:v1|h2:v2<sep>key<end>"
    );
    assert_eq!(
        consume(&["print.delivery=TRUE", "print.value=false"]),
        "Delivery:NOT_PRESENT\n"
    );
    assert_eq!(consume(&["print.value=false"]), "");
    // The console consumer gives the formatter each record without its leader epoch.
    assert_eq!(consume(&["print.epoch=true"]), "Epoch:NOT_PRESENT\tvalue\n");
    assert_eq!(
        consume(&[
            "print.delivery=true",
            "print.epoch=true",
            "print.offset=true"
        ]),
        "Offset:0\tDelivery:NOT_PRESENT\tEpoch:NOT_PRESENT\tvalue\n"
    );
    // The second record: no headers, a null value under null.literal.
    assert_eq!(
        consume_at("1", &["print.headers=true", "null.literal=<null>"]),
        "NO_HEADERS\t<null>\n"
    );
    // The third: a null key and a null header value, both under null.literal.
    assert_eq!(
        consume_at(
            "2",
            &[
                "print.headers=true",
                "print.key=true",
                "null.literal=<null>"
            ]
        ),
        "h:<null>\t<null>\tv\n"
    );
}

#[test]
fn log_append_time_is_printed_as_such() {
    let dir = tempdir();
    create_topic(
        dir.path(),
        "lat",
        1,
        &["message.timestamp.type=LogAppendTime"],
    );
    let run = kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "lat", "--output", "json"],
        b"a\n",
    );
    let produced: Value = serde_json::from_str(run.ok().trim()).expect("json");
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "lat",
            "--from-beginning",
            "--max-messages",
            "1",
            "--property",
            "print.timestamp=true",
        ],
    );
    assert_eq!(
        run.ok(),
        format!("LogAppendTime:{}\ta\n", produced["timestamp"])
    );
}

#[test]
fn the_formatter_vectors_through_the_binary() {
    let Some(dir_v) = vectors() else { return };
    let doc: Value = serde_json::from_str(
        &fs::read_to_string(dir_v.join("cli/console_consumer_default_formatter.json"))
            .expect("vectors"),
    )
    .expect("json");
    let dir = tempdir();
    create_topic(dir.path(), "v", 1, &[]);
    let mut checked = 0;
    for case in doc["steps_cumulative"].as_array().expect("steps") {
        let config = case["config"].as_object().expect("config");
        let r = &case["record"];
        // Rows this data directory can hold: a CreateTime record at offset 0 of partition 0,
        // no Java deserializer, no share-group delivery count.
        if config.keys().any(|k| k.ends_with("deserializer"))
            || r["timestamp_type"] != "CREATE_TIME"
            || config.get("print.delivery").is_some_and(|v| v == "true")
            || config.get("print.epoch").is_some_and(|v| v == "true")
        {
            continue;
        }
        kafkit(dir.path(), &["topics", "--delete", "--topic", "v"]).ok();
        create_topic(dir.path(), "v", 1, &[]);
        let headers: Vec<Value> = r["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .map(|p| serde_json::json!({"key": p[0], "value": p[1]}))
            .collect();
        let line = serde_json::json!({"key": r["key"], "value": r["value"], "timestamp": r["timestamp"], "headers": headers});
        produce_json(dir.path(), "v", &[&line.to_string()]);
        let mut args = vec![
            "consume".to_string(),
            "--topic".into(),
            "v".into(),
            "--partition".into(),
            "0".into(),
            "--offset".into(),
            "0".into(),
            "--max-messages".into(),
            "1".into(),
        ];
        for (k, v) in config {
            args.push("--property".into());
            args.push(format!("{k}={}", v.as_str().expect("value")));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let expected = case["expected_output"]
            .as_str()
            .expect("expected")
            .replace("Offset:123", "Offset:0");
        assert_eq!(kafkit(dir.path(), &args).ok(), expected, "{case}");
        checked += 1;
    }
    assert!(checked >= 3, "{checked}");
}

#[test]
fn json_output_has_every_field_under_the_shared_byte_rules() {
    let dir = tempdir();
    create_topic(dir.path(), "j", 1, &[]);
    produce_json(
        dir.path(),
        "j",
        &[
            r#"{"key":{"base64":"/w=="},"value":"v","timestamp":42,"headers":[{"key":"h","value":null}]}"#,
        ],
    );
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "j",
            "--from-beginning",
            "--max-messages",
            "1",
            "--output",
            "json",
        ],
    );
    assert_eq!(
        run.ok(),
        "{\"type\":\"record\",\"topic\":\"j\",\"partition\":0,\"offset\":0,\"timestamp\":42,\"timestamp_type\":\"CreateTime\",\"key\":{\"base64\":\"/w==\"},\"value\":\"v\",\"headers\":[{\"key\":\"h\",\"value\":null}],\"schema\":1}\n"
    );
}

#[test]
fn offsets_earliest_latest_numbers_and_out_of_range() {
    let dir = tempdir();
    create_topic(dir.path(), "o", 2, &[]);
    let input: String = (0..10).map(|i| format!("{i}\n")).collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "o", "--partition", "1"],
        input.as_bytes(),
    )
    .ok();
    let read = |extra: &[&str]| {
        let mut args = vec!["consume", "--topic", "o", "--timeout-ms", "200"];
        args.extend_from_slice(extra);
        let run = kafkit(dir.path(), &args);
        run.ok().lines().map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(
        read(&["--partition", "1", "--offset", "7"]),
        ["7", "8", "9"]
    );
    assert_eq!(
        read(&["--partition", "1", "--offset", "earliest"]).len(),
        10
    );
    assert_eq!(
        read(&[
            "--partition",
            "1",
            "--offset",
            "EARLIEST",
            "--max-messages",
            "2"
        ]),
        ["0", "1"]
    );
    assert!(read(&["--partition", "1", "--offset", "latest"]).is_empty());
    assert!(read(&["--partition", "1"]).is_empty(), "default: the end");
    assert_eq!(read(&["--partition", "1", "--from-beginning"]).len(), 10);
    // Beyond the end: auto.offset.reset=latest.
    assert!(read(&["--partition", "1", "--offset", "99"]).is_empty());
    assert!(read(&["--partition", "0", "--offset", "0"]).is_empty());
    assert_eq!(read(&["--from-beginning"]).len(), 10);
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--include",
            "o|x",
            "--from-beginning",
            "--timeout-ms",
            "200",
        ],
    );
    assert_eq!(run.ok().lines().count(), 10);
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "o",
            "--from-beginning",
            "--max-messages",
            "4",
        ],
    );
    assert_eq!(run.ok(), "0\n1\n2\n3\n");
    assert_eq!(run.stderr, "Processed a total of 4 messages\n");
    let run = kafkit(
        dir.path(),
        &["consume", "--topic", "o", "--timeout-ms", "100"],
    );
    assert!(run.stderr.contains("ERROR Error processing message, terminating consumer process:  (org.apache.kafka.tools.consumer.ConsoleConsumer)\norg.apache.kafka.common.errors.TimeoutException\nProcessed a total of 0 messages\n"), "{}", run.stderr);
    assert_eq!(run.code, 0);
}

/// `kafkit consume` running on `dir` with `args`: the child (stderr piped) and its stdout
/// lines as they are printed (read by `reader`).
struct Following {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    reader: std::thread::JoinHandle<()>,
}

fn follow(dir: &std::path::Path, args: &[&str]) -> Following {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .arg("consume")
        .args(args)
        .env("KAFKIT_DATA_DIR", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    Following {
        child,
        lines,
        reader,
    }
}

/// Waits for the consumer to exit by itself, at most until 60 s after `start`.
fn exits(child: &mut std::process::Child, start: Instant, what: &str) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the consumer did not {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn follows_new_records_until_max_messages() {
    let dir = tempdir();
    create_topic(dir.path(), "live", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "live"], b"old\n").ok();
    let Following {
        mut child,
        lines,
        reader,
    } = follow(
        dir.path(),
        &["--topic", "live", "--partition", "0", "--max-messages", "3"],
    );
    // The consumer starts at the end, at a moment this test does not see: records are written,
    // one run of produce each, until it has printed three of them; those must be three
    // consecutive ones (it follows every record written after it started), never "old".
    let mut printed = Vec::new();
    let start = Instant::now();
    for i in 1.. {
        kafkit_stdin(
            dir.path(),
            &["produce", "--topic", "live"],
            format!("new{i}\n").as_bytes(),
        )
        .ok();
        std::thread::sleep(Duration::from_millis(100));
        printed.extend(lines.try_iter());
        if printed.len() >= 3 || child.try_wait().expect("wait").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the consumer did not follow the new records: {printed:?}");
        }
    }
    // It stops by itself at three messages.
    let status = exits(&mut child, start, "stop at --max-messages");
    reader.join().expect("reader");
    printed.extend(lines.try_iter());
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    assert!(status.success(), "stderr: {err}");
    assert_eq!(printed.len(), 3, "{printed:?} stderr: {err}");
    let first: u32 = printed[0]
        .strip_prefix("new")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{printed:?}"));
    assert_eq!(
        printed,
        [first, first + 1, first + 2].map(|n| format!("new{n}")),
        "stderr: {err}"
    );
    assert_eq!(err, "Processed a total of 3 messages\n");
}

#[test]
fn reads_from_the_middle_of_a_ten_segment_partition() {
    let dir = tempdir();
    create_topic(dir.path(), "roll", 1, &["segment.bytes=1048576"]);
    let input: String = (0..110_000)
        .map(|i| format!("{i:06} {}\n", "r".repeat(93)))
        .collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "roll", "--acks", "1"],
        input.as_bytes(),
    )
    .ok();
    let segments = fs::read_dir(dir.path().join("roll-0"))
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .expect("entry")
                .path()
                .extension()
                .is_some_and(|x| x == "log")
        })
        .count();
    assert!(segments >= 10, "{segments} segments");
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "roll",
            "--partition",
            "0",
            "--offset",
            "55555",
            "--timeout-ms",
            "200",
        ],
    );
    let lines: Vec<&str> = run.ok().lines().collect();
    assert_eq!(lines.len(), 110_000 - 55_555);
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("{:06} ", 55_555 + i)), "{line}");
    }
}

#[test]
fn seeking_uses_the_index_not_a_scan() {
    let dir = tempdir();
    create_topic(dir.path(), "seek", 1, &[]);
    let input: String = (0..5000)
        .map(|i| format!("{i:05} {}\n", "s".repeat(94)))
        .collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "seek", "--batch-size", "1000"],
        input.as_bytes(),
    )
    .ok();
    // Destroy the first 100 KB of the segment: a reader that scanned from the start would fail;
    // one that seeks through the .index never reads those bytes.
    let log = dir.path().join("seek-0/00000000000000000000.log");
    let mut bytes = fs::read(&log).expect("read");
    for b in &mut bytes[..100_000] {
        *b = 0xff;
    }
    fs::write(&log, &bytes).expect("write");
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "seek",
            "--partition",
            "0",
            "--offset",
            "4000",
            "--max-messages",
            "2",
        ],
    );
    let out = run.ok();
    assert!(
        out.starts_with("04000 ") && out.lines().nth(1).is_some_and(|l| l.starts_with("04001 ")),
        "{out}"
    );
    // Reading from the start does hit the damage: corruption, since index entries name batches
    // after it (not a torn tail that recovery would cut).
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "seek",
            "--partition",
            "0",
            "--offset",
            "0",
            "--max-messages",
            "1",
        ],
    );
    assert!(
        run.fails().contains(
            "Record batch for partition seek-0 at offset 0 is invalid, cause: Found record size -1 smaller than minimum record overhead (14)"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempdir();
    create_topic(dir.path(), "p", 1, &[]);
    let input: String = (0..50_000)
        .map(|i| format!("{i} {}\n", "p".repeat(40)))
        .collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "p", "--acks", "1"],
        input.as_bytes(),
    )
    .ok();
    let script = format!(
        "'{}' consume --topic p --from-beginning --timeout-ms 2000 | head -n 1; echo \"status=${{PIPESTATUS[0]}}\"",
        env!("CARGO_BIN_EXE_kafkit")
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .env("KAFKIT_DATA_DIR", dir.path())
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.starts_with("0 ppp"), "{stdout}");
    assert!(stdout.contains("status=0"), "{stdout} {stderr}");
    // Kafka's ConsoleConsumer.checkErr, then the count: nothing else.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(
        lines[0], "Unable to write to standard out, closing consumer.",
        "{stderr}"
    );
    let count = lines[1]
        .strip_prefix("Processed a total of ")
        .and_then(|rest| rest.strip_suffix(" messages"))
        .and_then(|n| n.parse::<u64>().ok());
    assert!(count.is_some_and(|n| n >= 1), "{stderr}");
}

#[test]
fn read_committed_through_the_binary() {
    use kafkit::datadir::{DataDir, PartitionWriter};
    use kafkit::record::{BatchBuilder, Compression, EndTransactionMarker, TimestampType};
    let dir = tempdir();
    create_topic(dir.path(), "tx", 1, &[]);
    {
        let datadir = DataDir::open(dir.path()).expect("datadir");
        let topic = datadir.topic("tx").expect("topic").expect("exists");
        let mut writer = PartitionWriter::new(&datadir).expect("writer");
        let log = writer.log(&topic, 0).expect("log");
        let txn = |pid: i64, v: &str| {
            let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime)
                .producer_id(pid)
                .producer_epoch(0)
                .base_sequence(0)
                .transactional(true);
            b.append(1, None, Some(v.as_bytes()), &[]);
            b.build().expect("build")
        };
        for batch in [
            txn(1, "committed"),
            txn(2, "aborted"),
            EndTransactionMarker::abort(0)
                .build_batch(0, 1, 2, 0, 0)
                .expect("marker"),
            EndTransactionMarker::commit(0)
                .build_batch(0, 1, 1, 0, 0)
                .expect("marker"),
        ] {
            log.append(&batch, 1).expect("append");
        }
        writer.close().expect("close");
    }
    let read = |level: &str| {
        kafkit(
            dir.path(),
            &[
                "consume",
                "--topic",
                "tx",
                "--from-beginning",
                "--timeout-ms",
                "200",
                "--isolation-level",
                level,
            ],
        )
        .ok()
        .to_string()
    };
    assert_eq!(read("read_committed"), "committed\n");
    assert_eq!(read("read_uncommitted"), "committed\naborted\n");
    assert_eq!(
        consume_all(dir.path(), "tx").len(),
        2,
        "control records are never shown"
    );
}

#[test]
fn ctrl_c_ends_following_with_the_processed_total() {
    let dir = tempdir();
    create_topic(dir.path(), "int", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "int"], b"one\ntwo\n").ok();
    let child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(["consume", "--topic", "int", "--from-beginning"])
        .env("KAFKIT_DATA_DIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: sending SIGINT to the child we spawned.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "one\ntwo\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Processed a total of 2 messages\n"
    );
    assert_eq!(out.status.code(), Some(130));
}

#[test]
fn formatter_config_file_and_formatter_class() {
    let dir = tempdir();
    create_topic(dir.path(), "fc", 1, &[]);
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "fc", "--property", "parse.key=true"],
        b"k\tv\n",
    )
    .ok();
    let config = dir.path().join("formatter.properties");
    fs::write(&config, "print.key=true\nkey.separator=->\n").expect("write");
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "fc",
            "--from-beginning",
            "--max-messages",
            "1",
            "--formatter-config",
            config.to_str().expect("path"),
            "--property",
            "key.separator==",
            "--formatter",
            "org.apache.kafka.tools.consumer.DefaultMessageFormatter",
        ],
    );
    assert_eq!(run.ok(), "k=v\n");
    // LoggingMessageFormatter writes what the default one writes (its INFO log lines are below
    // the tools' WARN level); NoOpMessageFormatter writes nothing, the records still counted.
    for (class, out) in [
        ("LoggingMessageFormatter", "k=v\n"),
        ("NoOpMessageFormatter", ""),
    ] {
        let class = format!("org.apache.kafka.tools.consumer.{class}");
        let run = kafkit(
            dir.path(),
            &[
                "consume",
                "--topic",
                "fc",
                "--from-beginning",
                "--max-messages",
                "1",
                "--property",
                "print.key=true",
                "--property",
                "key.separator==",
                "--formatter",
                &class,
            ],
        );
        assert_eq!(run.ok(), out, "{class}");
        assert!(
            run.stderr.ends_with("Processed a total of 1 messages\n"),
            "{}",
            run.stderr
        );
    }
    // A class Kafka's tools would not load: another package's, or a name without its package.
    for class in [
        "com.example.JsonMessageFormatter",
        "OffsetsMessageFormatter",
    ] {
        let err = kafkit(
            dir.path(),
            &["consume", "--topic", "fc", "--formatter", class],
        )
        .fails()
        .to_string();
        assert!(
            err.contains(&format!("The formatter {class} is not available: kafkit consume has Kafka's DefaultMessageFormatter, LoggingMessageFormatter, NoOpMessageFormatter, OffsetsMessageFormatter, GroupMetadataMessageFormatter and TransactionLogMessageFormatter (and --output json).")),
            "{err}"
        );
    }
}

#[test]
fn auto_offset_reset_decides_out_of_range_and_groupless_starts() {
    let dir = tempdir();
    create_topic(dir.path(), "r", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "r"], b"a\nb\n").ok();
    let run = |extra: &[&str]| {
        let mut args = vec!["consume", "--topic", "r", "--timeout-ms", "200"];
        args.extend_from_slice(extra);
        kafkit(dir.path(), &args)
    };
    let out = run(&[
        "--partition",
        "0",
        "--offset",
        "50",
        "--consumer-property",
        "auto.offset.reset=earliest",
    ]);
    assert_eq!(out.ok(), "a\nb\n");
    assert_eq!(
        run(&["--consumer-property", "auto.offset.reset=earliest"]).ok(),
        "a\nb\n"
    );
    assert_eq!(
        run(&["--consumer-property", "auto.offset.reset=latest"]).ok(),
        ""
    );
    let err = run(&[
        "--from-beginning",
        "--consumer-property",
        "auto.offset.reset=latest",
    ])
    .fails()
    .to_string();
    assert_eq!(
        err.trim_end(),
        "Can't simultaneously specify --from-beginning and 'auto.offset.reset=latest', please remove one option"
    );
    let err = run(&["--consumer-property", "auto.offset.reset=none"])
        .fails()
        .to_string();
    assert!(
        err.contains("Undefined offset with no reset policy for partitions: [r-0]"),
        "{err}"
    );
    // An offset in range needs no policy.
    assert_eq!(
        run(&[
            "--partition",
            "0",
            "--offset",
            "1",
            "--consumer-property",
            "auto.offset.reset=none"
        ])
        .ok(),
        "b\n"
    );
}

#[test]
fn a_subscription_picks_up_added_partitions_at_its_metadata_refresh() {
    // Kafka's consumer learns of partitions added to its topic at its next metadata refresh
    // (metadata.max.age.ms, five minutes by default) and reads them from where
    // auto.offset.reset says (--from-beginning: their first record).
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "grow"]).ok();
    kafkit_stdin(dir.path(), &["produce", "--topic", "grow"], b"p0-a\np0-b\n").ok();
    let Following {
        mut child,
        lines,
        reader,
    } = follow(
        dir.path(),
        &[
            "--topic",
            "grow",
            "--from-beginning",
            "--max-messages",
            "4",
            "--consumer-property",
            "metadata.max.age.ms=100",
            "--property",
            "print.partition=true",
        ],
    );
    // The consumer has read the one partition there was before the topic grows.
    let mut printed: Vec<String> = Vec::new();
    let start = Instant::now();
    while printed.len() < 2 {
        printed.extend(lines.recv_timeout(Duration::from_secs(60)));
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the consumer printed {printed:?}");
        }
    }
    kafkit(
        dir.path(),
        &["topics", "--alter", "--topic", "grow", "--partitions", "2"],
    )
    .ok();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "grow", "--partition", "1"],
        b"p1-a\np1-b\n",
    )
    .ok();
    let status = exits(&mut child, start, "read the added partition");
    reader.join().expect("reader");
    printed.extend(lines.try_iter());
    assert!(status.success(), "{status:?}");
    assert_eq!(
        printed,
        [
            "Partition:0\tp0-a",
            "Partition:0\tp0-b",
            "Partition:1\tp1-a",
            "Partition:1\tp1-b"
        ]
    );
}

#[test]
fn a_pattern_subscription_drops_a_deleted_topic_and_takes_it_again_when_created() {
    // With --include, a deleted topic leaves the subscription and the others are read on, as in
    // Kafka's consumer; created again, it is matched at the next refresh as a new topic, read
    // from where auto.offset.reset says (--from-beginning: its first record).
    let dir = tempdir();
    create_topic(dir.path(), "in-a", 1, &[]);
    create_topic(dir.path(), "in-b", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "in-a"], b"a1\n").ok();
    kafkit_stdin(dir.path(), &["produce", "--topic", "in-b"], b"b1\n").ok();
    let Following {
        mut child,
        lines,
        reader,
    } = follow(
        dir.path(),
        &[
            "--include",
            "in-.*",
            "--from-beginning",
            "--max-messages",
            "4",
            "--consumer-property",
            "metadata.max.age.ms=100",
            "--output",
            "json",
        ],
    );
    let start = Instant::now();
    let mut printed: Vec<String> = Vec::new();
    let mut wait_for = |count: usize, child: &mut std::process::Child| {
        while printed.len() < count {
            // Only the end of its output (or a minute) means the consumer stopped short: it may
            // exit before this thread has taken its last line.
            match lines.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    let record: Value = serde_json::from_str(&line).expect("json");
                    printed.push(format!("{}:{}", record["topic"], record["value"]));
                }
                Err(RecvTimeoutError::Timeout) if start.elapsed() < Duration::from_secs(60) => {}
                Err(_) => {
                    let _ = child.kill();
                    panic!("the consumer printed {printed:?}");
                }
            }
        }
        printed.clone()
    };
    let first = wait_for(2, &mut child);
    assert!(first.contains(&r#""in-a":"a1""#.to_string()), "{first:?}");
    kafkit(dir.path(), &["topics", "--delete", "--topic", "in-a"]).ok();
    kafkit_stdin(dir.path(), &["produce", "--topic", "in-b"], b"b2\n").ok();
    assert_eq!(wait_for(3, &mut child)[2], r#""in-b":"b2""#);
    create_topic(dir.path(), "in-a", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "in-a"], b"a-new\n").ok();
    assert_eq!(wait_for(4, &mut child)[3], r#""in-a":"a-new""#);
    let status = exits(&mut child, start, "stop at --max-messages");
    reader.join().expect("reader");
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_pattern_leaves_out_internal_topics_unless_told_otherwise() {
    // Kafka's IncludeList: a topic matches only if it is not internal or the consumer's
    // exclude.internal.topics (true by default) is false; --topic names one all the same.
    let dir = tempdir();
    create_topic(dir.path(), "__consumer_offsets", 1, &[]);
    create_topic(dir.path(), "user", 1, &[]);
    // A broker writes internal topics itself (produce refuses them, as a broker refuses a
    // client): through the library here.
    {
        use kafkit::datadir::{DataDir, PartitionWriter};
        use kafkit::record::{BatchBuilder, Compression, TimestampType};
        let datadir = DataDir::open(dir.path()).expect("datadir");
        let topic = datadir
            .topic("__consumer_offsets")
            .expect("topic")
            .expect("exists");
        let mut writer = PartitionWriter::new(&datadir).expect("writer");
        let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        batch.append(1, None, Some(b"internal"), &[]);
        let log = writer.log(&topic, 0).expect("log");
        log.append(&batch.build().expect("build"), 1)
            .expect("append");
        writer.close().expect("close");
    }
    kafkit_stdin(dir.path(), &["produce", "--topic", "user"], b"mine\n").ok();
    let read = |args: &[&str]| {
        let mut all = vec!["consume", "--from-beginning", "--timeout-ms", "300"];
        all.extend_from_slice(args);
        let mut values: Vec<String> = kafkit(dir.path(), &all)
            .ok()
            .lines()
            .map(String::from)
            .collect();
        values.sort();
        values
    };
    assert_eq!(read(&["--include", ".*"]), ["mine"]);
    assert_eq!(
        read(&[
            "--include",
            ".*",
            "--consumer-property",
            "exclude.internal.topics=True"
        ]),
        ["mine"]
    );
    assert_eq!(
        read(&[
            "--include",
            ".*",
            "--consumer-property",
            "exclude.internal.topics= false"
        ]),
        ["internal", "mine"]
    );
    assert_eq!(read(&["--topic", "__consumer_offsets"]), ["internal"]);
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--include",
            ".*",
            "--consumer-property",
            "exclude.internal.topics=no",
        ],
    );
    assert_eq!(
        run.fails().trim(),
        "org.apache.kafka.common.config.ConfigException: Invalid value no for configuration exclude.internal.topics: Expected value to be either true or false"
    );
}

#[test]
fn deserializers_print_what_kafkas_print_and_their_errors_stop_or_skip() {
    let dir = tempdir();
    create_topic(dir.path(), "n", 1, &[]);
    // Key: an int, value: a long, as Kafka's IntegerSerializer and LongSerializer write them
    // (big-endian); the third record has a null key and a value that is no long.
    let input = concat!(
        r#"{"key":{"base64":"AAAABw=="},"value":{"base64":"AAABH3H7BMs="}}"#,
        "\n",
        r#"{"key":{"base64":"/////w=="},"value":{"base64":"//////////s="},"headers":[{"key":"h","value":{"base64":"/1xh"}}]}"#,
        "\n",
        r#"{"key":null,"value":"abc"}"#,
        "\n",
    );
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "n", "--input", "json"],
        input.as_bytes(),
    )
    .ok();
    let class = |name: &str| format!("org.apache.kafka.common.serialization.{name}");
    let (int, long) = (class("IntegerDeserializer"), class("LongDeserializer"));
    let mut args = vec![
        "consume",
        "--topic",
        "n",
        "--from-beginning",
        "--timeout-ms",
        "300",
        "--key-deserializer",
        &int,
        "--value-deserializer",
        &long,
        "--property",
        "print.key=true",
    ];
    // The null key reaches the deserializer as the null literal's bytes ("null" read as an int:
    // 1853189228), as Kafka's formatter hands it over; the value fails. What was written of the
    // record stays, the record is counted, and the run stops with Kafka's error and exit 1.
    let printed = "7\t1234567890123\n-1\t-5\n1853189228\t";
    let exception = "org.apache.kafka.common.errors.SerializationException: Size of data received by LongDeserializer is not 8";
    let run = kafkit(dir.path(), &args);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (1, printed),
        "{}",
        run.stderr
    );
    let err: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(err[0], "Processed a total of 3 messages");
    assert!(
        err[1].ends_with("] ERROR Unknown error when running consumer:  (org.apache.kafka.tools.consumer.ConsoleConsumer)"),
        "{}",
        run.stderr
    );
    assert_eq!(err[2], exception);
    // --skip-message-on-error logs it and goes on.
    args.push("--skip-message-on-error");
    let run = kafkit(dir.path(), &args);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, printed),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&format!(
        "ERROR Error processing message, skipping this message:  (org.apache.kafka.tools.consumer.ConsoleConsumer)\n{exception}\n"
    )));
    assert!(
        run.stderr.ends_with("Processed a total of 3 messages\n"),
        "{}",
        run.stderr
    );
    // Both streams into one file, as on a terminal: the records printed before the skipped one
    // come before its log line.
    let both = dir.path().join("both.txt");
    let file = fs::File::create(&both).expect("file");
    let status = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(&args)
        .env("KAFKIT_DATA_DIR", dir.path())
        .stdout(file.try_clone().expect("clone"))
        .stderr(file)
        .status()
        .expect("run");
    assert!(status.success());
    let text = fs::read_to_string(&both).expect("read");
    let skipped = text.find("skipping this message").expect("logged");
    assert!(
        text[..skipped].starts_with("7\t1234567890123\n-1\t-5\n"),
        "{text}"
    );

    // --property wins over --value-deserializer; headers.deserializer does header values.
    let (string, bytes) = (class("StringDeserializer"), class("BytesDeserializer"));
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "n",
            "--partition",
            "0",
            "--offset",
            "1",
            "--max-messages",
            "2",
            "--value-deserializer",
            &long,
            "--property",
            &format!("value.deserializer={bytes}"),
            "--property",
            &format!("headers.deserializer={string}"),
            "--property",
            "print.headers=true",
        ],
    );
    assert_eq!(
        run.ok(),
        "h:\u{fffd}\\a\t\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFB\nNO_HEADERS\tabc\n"
    );

    // A class Kafka would not find, or ListDeserializer without its list and inner classes
    // (Kafka's configure fails): logged with the exception, and the bytes printed as they are.
    let list = class("ListDeserializer");
    for (deserializer, exception) in [
        (
            "com.example.Missing",
            "java.lang.ClassNotFoundException: com.example.Missing\n",
        ),
        (
            list.as_str(),
            "org.apache.kafka.common.config.ConfigException: Not able to determine the list class",
        ),
    ] {
        let args = [
            "consume",
            "--topic",
            "n",
            "--partition",
            "0",
            "--offset",
            "2",
            "--max-messages",
            "1",
            "--value-deserializer",
            deserializer,
        ];
        let run = kafkit(dir.path(), &args);
        assert_eq!(run.ok(), "abc\n");
        assert!(run.stderr.contains(&format!(
            "ERROR Unable to instantiate a deserializer from {deserializer} (org.apache.kafka.tools.consumer.DefaultMessageFormatter)\n{exception}"
        )), "{}", run.stderr);
    }
    // Kafka's ByteArrayDeserializer prints an object identity: refused, saying so.
    let array = class("ByteArrayDeserializer");
    let run = kafkit(
        dir.path(),
        &["consume", "--topic", "n", "--value-deserializer", &array],
    );
    assert!(run.fails().contains("cannot reproduce"), "{}", run.stderr);
    // The formatter does not shape --output json: its deserializers are not even loaded.
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "n",
            "--from-beginning",
            "--max-messages",
            "1",
            "--output",
            "json",
            "--value-deserializer",
            &array,
            "--key-deserializer",
            "x.Missing",
        ],
    );
    assert!(
        run.ok().starts_with(r#"{"type":"record""#),
        "{}",
        run.stdout
    );
    assert!(!run.stderr.contains("ERROR"), "{}", run.stderr);
}

#[test]
fn systest_events_print_shutdown_complete_at_the_end() {
    let dir = tempdir();
    create_topic(dir.path(), "st", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "st"], b"v\n").ok();
    let base = [
        "consume",
        "--topic",
        "st",
        "--from-beginning",
        "--max-messages",
        "1",
    ];
    assert_eq!(kafkit(dir.path(), &base).ok(), "v\n");
    let run = kafkit(
        dir.path(),
        &[&base[..], &["--enable-systest-events"]].concat(),
    );
    assert_eq!(run.ok(), "v\nshutdown_complete\n");
    // Also when the consumer stops on an error (a value its deserializer refuses).
    let long = "org.apache.kafka.common.serialization.LongDeserializer";
    let failing = [
        &base[..],
        &["--enable-systest-events", "--value-deserializer", long],
    ]
    .concat();
    let run = kafkit(dir.path(), &failing);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (1, "shutdown_complete\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn negative_max_messages_and_timeout_mean_what_they_mean_in_kafka() {
    // Kafka's loop runs while count < max-messages or max-messages is -1; a negative
    // --timeout-ms is no timeout.
    let dir = tempdir();
    create_topic(dir.path(), "neg", 1, &[]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "neg"], b"a\nb\nc\n").ok();
    let read = |max: &str, timeout: &str| {
        let args = [
            "consume",
            "--topic",
            "neg",
            "--from-beginning",
            "--max-messages",
            max,
            "--timeout-ms",
            timeout,
        ];
        kafkit(dir.path(), &args).ok().to_string()
    };
    assert_eq!(read("-1", "200"), "a\nb\nc\n");
    assert_eq!(read("-2", "200"), "");
    assert_eq!(read("2", "-1"), "a\nb\n");
}

#[test]
fn metadata_max_age_is_a_long_of_at_least_zero() {
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    for (value, why) in [
        ("soon", "Not a number of type LONG"),
        ("-1", "Value must be at least 0"),
    ] {
        let run = kafkit(
            dir.path(),
            &[
                "consume",
                "--topic",
                "t",
                "--consumer-property",
                &format!("metadata.max.age.ms={value}"),
            ],
        );
        assert_eq!(
            run.fails().trim(),
            format!("org.apache.kafka.common.config.ConfigException: Invalid value {value} for configuration metadata.max.age.ms: {why}")
        );
    }
}

#[test]
fn malformed_utf8_is_shown_as_javas_new_string_shows_it() {
    use base64::Engine as _;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let dir = tempdir();
    create_topic(dir.path(), "u", 1, &[]);
    // A surrogate (ED A0 80: one U+FFFD in Java, three in Rust's from_utf8_lossy) in the value,
    // a 3-byte sequence cut by the end of the key (ED A6: one in Java, two in Rust).
    let line = format!(
        "{}\n",
        serde_json::json!({
            "key": {"base64": b64(&[0x6b, 0xed, 0xa6])},
            "value": {"base64": b64(&[0x61, 0xed, 0xa0, 0x80, 0x62])},
        })
    );
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "u", "--input", "json"],
        line.as_bytes(),
    )
    .ok();
    let string = "org.apache.kafka.common.serialization.StringDeserializer";
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "u",
            "--from-beginning",
            "--max-messages",
            "1",
            "--property",
            "print.key=true",
            "--key-deserializer",
            string,
            "--value-deserializer",
            string,
        ],
    );
    assert_eq!(run.ok(), "k\u{fffd}\ta\u{fffd}b\n");
    // dump-log-segments shows them as Kafka's StringDecoder does.
    let segment = dir.path().join("u-0").join("00000000000000000000.log");
    let run = kafkit(
        dir.path(),
        &[
            "dump-log-segments",
            "--files",
            segment.to_str().unwrap(),
            "--print-data-log",
        ],
    );
    assert!(
        run.ok().contains(" key: k\u{fffd} payload: a\u{fffd}b\n"),
        "{}",
        run.stdout
    );
}

/// Topic `t` of two partitions with records at known times: partition 0 at 1000, 2000, 3000
/// ms, partition 1 at 1500 and 5000 ms.
fn timed_topic(dir: &std::path::Path) {
    create_topic(dir, "t", 2, &[]);
    produce_json(
        dir,
        "t",
        &[
            r#"{"partition":0,"timestamp":1000,"key":"a","value":"p0-1000"}"#,
            r#"{"partition":0,"timestamp":2000,"key":"b","value":"p0-2000"}"#,
            r#"{"partition":0,"timestamp":3000,"key":"c","value":"p0-3000"}"#,
            r#"{"partition":1,"timestamp":1500,"key":null,"value":"p1-1500","headers":[["h","x"],["n",null]]}"#,
            r#"{"partition":1,"timestamp":5000,"key":"e","value":null}"#,
        ],
    );
}

#[test]
fn exit_at_end_stops_once_every_partition_is_read_to_its_end() {
    let dir = tempdir();
    timed_topic(dir.path());
    // The timeout only keeps a broken --exit-at-end from hanging the test: reached, it would
    // print Kafka's TimeoutException, which must not be there.
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--exit-at-end",
            "--timeout-ms",
            "120000",
        ],
    );
    assert_eq!(run.ok(), "p0-1000\np0-2000\np0-3000\np1-1500\nnull\n");
    assert_eq!(run.stderr, "Processed a total of 5 messages\n");
    // An empty partition is at its end at once; assign mode too.
    create_topic(dir.path(), "empty", 1, &[]);
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "empty",
            "--partition",
            "0",
            "--offset",
            "0",
            "--exit-at-end",
            "--timeout-ms",
            "120000",
        ],
    );
    assert_eq!(run.ok(), "");
    assert_eq!(run.stderr, "Processed a total of 0 messages\n");
}

#[test]
fn offset_takes_a_time_for_one_partition_or_all() {
    let dir = tempdir();
    timed_topic(dir.path());
    let consume = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "--topic",
            "t",
            "--exit-at-end",
            "--format",
            r"%p:%o:%T\n",
        ];
        args.extend_from_slice(extra);
        kafkit(dir.path(), &args)
    };
    for (offset, partition, want) in [
        // The first record at or after the time.
        ("@2000", Some("0"), "0:1:2000\n0:2:3000\n"),
        ("@1999", Some("0"), "0:1:2000\n0:2:3000\n"),
        ("@0", Some("0"), "0:0:1000\n0:1:2000\n0:2:3000\n"),
        // None as late: the end.
        ("@3001", Some("0"), ""),
        // Every partition, each from its own first record at or after the time.
        ("@1800", None, "0:1:2000\n0:2:3000\n1:1:5000\n"),
        ("@1500", None, "0:1:2000\n0:2:3000\n1:0:1500\n1:1:5000\n"),
        ("@4000", None, "1:1:5000\n"),
        // ISO-8601 with its zone.
        (
            "1970-01-01T00:00:01.800Z",
            None,
            "0:1:2000\n0:2:3000\n1:1:5000\n",
        ),
        (
            "1970-01-01T01:00:02+01:00",
            Some("0"),
            "0:1:2000\n0:2:3000\n",
        ),
    ] {
        let mut extra = vec!["--offset", offset];
        if let Some(p) = partition {
            extra.extend(["--partition", p]);
        }
        let run = consume(&extra);
        assert_eq!(
            run.ok(),
            want,
            "--offset {offset} --partition {partition:?}"
        );
    }
    for (offset, says) in [
        ("@soon", "The provided offset value '@soon' is incorrect: 'soon' is not a number of milliseconds."),
        ("@-5", "The provided offset value '@-5' is incorrect: the time cannot be negative."),
        ("2026-12-01T10:00:00", "The provided offset value '2026-12-01T10:00:00' is incorrect: not an ISO-8601 time (no zone: end it with Z or +HH:MM)"),
        ("2026-02-30T10:00:00Z", "no such day in the month"),
        // Not a time: Kafka's own message.
        ("soon", "The provided offset value 'soon' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long."),
    ] {
        let run = consume(&["--partition", "0", "--offset", offset]);
        assert_eq!(run.code, 1, "{offset}");
        assert!(run.stderr.lines().next().unwrap().contains(says), "{offset}: {}", run.stderr);
        assert!(run.stderr.contains("Usage: kafkit consume"), "{offset}");
        assert_eq!(run.stdout, "", "{offset}");
    }
    let run = consume(&["--offset", "@1000", "--from-beginning"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .starts_with("Options from-beginning and offset cannot be specified together."),
        "{}",
        run.stderr
    );
}

#[test]
fn format_strings_use_kcats_placeholders() {
    let dir = tempdir();
    timed_topic(dir.path());
    let consume = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--exit-at-end",
        ];
        args.extend_from_slice(extra);
        kafkit(dir.path(), &args)
    };
    let run = consume(&["--format", r"%t %p %o %T %k(%K) %s(%S) [%h] 100%%\n"]);
    assert_eq!(
        run.ok(),
        "t 0 0 1000 a(1) p0-1000(7) [] 100%\n\
         t 0 1 2000 b(1) p0-2000(7) [] 100%\n\
         t 0 2 3000 c(1) p0-3000(7) [] 100%\n\
         t 1 0 1500 (-1) p1-1500(7) [h=x,n=] 100%\n\
         t 1 1 5000 e(1) (-1) [] 100%\n"
    );
    // %R: the value's size as 4 big-endian bytes; nothing is added between records.
    let run = consume(&["--partition", "1", "--format", "%R"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.raw_stdout, [0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff]);
    // JSON escaping: every line is JSON, null stays null.
    let run = consume(&[
        "--format",
        r#"{"p":%p,"key":%k,"value":%s,"headers":%h}\n"#,
        "--format-escape",
        "json",
    ]);
    let lines: Vec<Value> = run
        .ok()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(
        lines[3],
        serde_json::json!({"p": 1, "key": null, "value": "p1-1500", "headers": [{"key": "h", "value": "x"}, {"key": "n", "value": null}]})
    );
    assert_eq!(lines[4]["value"], Value::Null);
    // With Kafka's formatter options or --output json: refused, with what to drop.
    for (extra, says) in [
        (
            &["--format", "%s", "--property", "print.key=true"][..],
            "Option \"[format]\" can't be used with option \"[property]\"",
        ),
        (
            &[
                "--format",
                "%s",
                "--formatter",
                "org.apache.kafka.tools.consumer.NoOpMessageFormatter",
            ][..],
            "Option \"[format]\" can't be used with option \"[formatter]\"",
        ),
        (
            &[
                "--format",
                "%s",
                "--value-deserializer",
                "org.apache.kafka.common.serialization.StringDeserializer",
            ][..],
            "Option \"[format]\" can't be used with option \"[value-deserializer]\"",
        ),
        (
            &["--format", "%s", "--output", "json"][..],
            "Option \"[format]\" can't be used with option \"[output json]\"",
        ),
        (
            &["--format", "%x"][..],
            "The format '%x' is incorrect: Unsupported formatter: %x",
        ),
        (&["--format-escape", "json"][..], "--format"),
    ] {
        let run = consume(extra);
        assert_eq!(run.code, 1, "{extra:?}");
        assert!(run.stderr.contains(says), "{extra:?}: {}", run.stderr);
    }
}
